"""``rompicapo game connect4 book build|verify|info``: the opening book of exact scores. A thin
shell over `rompicapo.games.connect4_book` and `rompicapo.games.connect4_book_build`."""

from __future__ import annotations

import argparse
import sys

from rompicapo.cli.options import add_run_options, int_arg, mark_paths, positive_int, time_left
from rompicapo.common import EXIT_INTERRUPTED


def register_book(c4sub: argparse._SubParsersAction, parser_class: type) -> None:
    """Add ``book build|verify|info`` under ``game connect4``."""
    book = c4sub.add_parser("book", help="the opening book of exact scores: build, verify, info")
    sub = book.add_subparsers(dest="book_action", metavar="ACTION", parser_class=parser_class)
    sub.required = True

    p = sub.add_parser(
        "build",
        help="build the book of every position up to N stones (resumable)",
        description="Solve every position of N stones by the search (mirror images once), "
        "derive the shallower ones by negamax over their children, and write the book.",
    )
    p.add_argument(
        "--depth", type=positive_int, required=True, metavar="N", help="the most stones (1..12)"
    )
    p.add_argument(
        "--out", metavar="FILE", help="the book file, .bin (default connect4-book-N.bin here)"
    )
    p.add_argument("--root", default="", metavar="MOVES", help="build from this position")
    p.add_argument(
        "--checkpoint",
        metavar="FILE",
        help="keep the finished positions in FILE.json (checksummed); rerun to resume",
    )
    add_run_options(p, time=True, scheduler=True)
    p.set_defaults(handler=_build)
    mark_paths(p, outputs=("out", "checkpoint"))

    p = sub.add_parser("verify", help="re-solve a random sample of a book's entries by search")
    p.add_argument("file", help="a book file (.bin)")
    p.add_argument(
        "--sample", type=positive_int, default=20, metavar="K", help="entries (default 20)"
    )
    p.add_argument("--seed", type=int_arg, default=0, metavar="N", help="random seed (default 0)")
    add_run_options(p, time=False, jobs=False)
    p.set_defaults(handler=_verify)
    mark_paths(p, inputs=("file",))

    p = sub.add_parser("info", help="a book's depth, positions per layer and checksum")
    p.add_argument("file", nargs="?", help="a book file (default: the one shipped)")
    add_run_options(p, time=False, jobs=False)
    p.set_defaults(handler=_info)
    mark_paths(p, inputs=("file",))


def _build(args: argparse.Namespace) -> int:
    from rompicapo.cli.games import _print
    from rompicapo.cli.progress import LOG_SECONDS, ProgressPrinter
    from rompicapo.games.connect4_book_build import build_book

    out = args.out or f"connect4-book-{args.depth}.bin"
    show = not (args.quiet or args.json)
    try:
        with ProgressPrinter(
            "positions", enabled=show, transient=False, log_every=LOG_SECONDS
        ) as progress:
            result = build_book(
                args.depth,
                root=args.root,
                out=out,
                jobs=args.jobs,
                scheduler=args.scheduler,
                checkpoint=args.checkpoint,
                time_limit=time_left(args),
                progress=progress,
            )
    except KeyboardInterrupt:
        _stopped(args, "interrupted")
        return EXIT_INTERRUPTED
    status = _print(args, result)
    if not result.complete:
        _stopped(args, "stopped by the time limit")
        return EXIT_INTERRUPTED
    return status


def _stopped(args: argparse.Namespace, how: str) -> None:
    if args.checkpoint:
        print(
            f"{how}: the positions solved are kept in {args.checkpoint}; rerun the same "
            f"command to resume",
            file=sys.stderr,
        )
    else:
        print(
            f"{how}: nothing kept (give --checkpoint FILE to make a build resumable)",
            file=sys.stderr,
        )


def _verify(args: argparse.Namespace) -> int:
    from rompicapo.cli.games import _print
    from rompicapo.cli.progress import ProgressPrinter
    from rompicapo.games.connect4_book import read_book
    from rompicapo.games.connect4_book_build import verify_book

    book = read_book(args.file)  # a bad file is one line before any search
    with ProgressPrinter("entries", enabled=not (args.quiet or args.json)) as progress:
        result = verify_book(
            book, sample=min(args.sample, book.entries), seed=args.seed, progress=progress
        )
    return _print(args, result) or (0 if not result.mismatches else 1)


def _info(args: argparse.Namespace) -> int:
    from rompicapo.cli.games import _print
    from rompicapo.common import InputError
    from rompicapo.games.connect4_book import default_book, read_book

    book = read_book(args.file) if args.file else default_book()
    if book is None:
        raise InputError("this installation ships no Connect Four book; give a book file")
    return _print(args, book.info())
