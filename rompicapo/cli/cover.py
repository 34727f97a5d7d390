"""``rompicapo cover | sudoku | queens | polyomino``: the exact-cover family's commands.

Thin shells over `rompicapo.cover`: each handler parses, makes one API call, and prints
``result.report()`` (or, with ``--json``, ``result.to_dict()``). Reading files, guessing a
Sudoku file's layout, piece sets and regions, checking sizes and memory: all in the API.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from rompicapo.cli.options import (
    add_deprecated_flag,
    add_run_options,
    int_arg,
    mark_paths,
    positive_int,
    time_left,
)
from rompicapo.common import EXIT_INTERRUPTED, InputError, InternalError, NotVerifiable, dumps_json

__all__ = ["register"]


def register(subparsers) -> None:
    _register_cover(subparsers)
    _register_queens(subparsers)
    _register_polyomino(subparsers)
    _register_sudoku(subparsers)


def _register_cover(subparsers) -> None:
    p = subparsers.add_parser(
        "cover",
        help="solve an exact-cover problem in Knuth's DLX1/DLX2/DLX3 text format",
        description="Count or list the solutions of an exact-cover problem (dancing cells or "
        "dancing links).",
    )
    p.add_argument("file", metavar="FILE.dlx", help="problem in Knuth's text format ('-' = stdin)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--count", action="store_true", help="count the solutions (default)")
    mode.add_argument("--first", action="store_true", help="print the first solution")
    mode.add_argument("--all", action="store_true", help="print every solution")
    mode.add_argument("--limit", type=positive_int, metavar="K", help="print at most K solutions")
    p.add_argument(
        "--seed",
        type=int_arg,
        metavar="N",
        help="shuffle the search order with seed N (any integer): alone, print one random "
        "solution; with --limit K or --all, list them in that order (formerly --random)",
    )
    add_deprecated_flag(p, "--random", "--seed", dest="seed", type=int_arg, metavar="SEED")
    p.add_argument("--progress", action="store_true", help="progress bar and estimate on stderr")
    add_deprecated_flag(
        p, "--processes", None, dest="processes", nargs=0, const=True,
        instead="ignored: the count runs on threads",
    )  # fmt: skip
    p.add_argument(
        "--engine",
        choices=["auto", "bits", "links", "cells", "m"],
        default="auto",
        help="auto (bit sets, dancing cells or links, by the problem's shape; M with "
        "multiplicities), bits, links, cells, m",
    )
    add_run_options(
        p,
        nodes=True,
        scheduler=True,
        time_aliases=("--time-limit",),
        jobs_help="count with N threads (default: all cores; 1 = this process)",
    )
    p.set_defaults(handler=_cover)
    mark_paths(p, inputs=("file",))


def _register_queens(subparsers) -> None:
    q = subparsers.add_parser("queens", help="n queens: count or list the placements")
    q.add_argument("n", type=positive_int, help="board size")
    qm = q.add_mutually_exclusive_group()
    qm.add_argument("--count", action="store_true", help="count the solutions (default)")
    qm.add_argument(
        "--limit", type=positive_int, metavar="K",
        help="draw the first K solutions (formerly --list)",
    )  # fmt: skip
    add_deprecated_flag(qm, "--list", "--limit", dest="limit", type=positive_int, metavar="K")
    q.add_argument("--progress", action="store_true", help="progress bar on stderr")
    add_run_options(
        q, nodes=True, jobs_help="count with N threads (default: all cores; 1 = this process)"
    )
    q.set_defaults(handler=_queens)


def _register_polyomino(subparsers) -> None:
    y = subparsers.add_parser(
        "polyomino", help="pack polyominoes into a region (pentominoes in a 6x10 box, ...)"
    )
    y.add_argument(
        "--pieces",
        default="pentominoes",
        help="pentominoes, tetrominoes, a file, or a drawing (one letter per piece, '/' "
        "between rows)",
    )
    y.add_argument(
        "--region", default="6x10", help="RxC, a file, or a drawing of the cells ('/' between rows)"
    )
    ym = y.add_mutually_exclusive_group()
    ym.add_argument("--count", action="store_true", help="count the packings (default)")
    ym.add_argument(
        "--limit", type=positive_int, metavar="K",
        help="draw the first K packings (formerly --list)",
    )  # fmt: skip
    add_deprecated_flag(ym, "--list", "--limit", dest="limit", type=positive_int, metavar="K")
    y.add_argument(
        "--orientations",
        choices=["all", "rotations", "fixed"],
        default="all",
        help="which orientations of each piece may be used (default: all 8)",
    )
    y.add_argument(
        "--no-symmetry",
        action="store_true",
        help="do not break the region's symmetry (count every tiling, slower)",
    )
    y.add_argument("--progress", action="store_true", help="progress bar on stderr")
    add_run_options(
        y,
        nodes=True,
        scheduler=True,
        jobs_help="count with N threads (default: all cores; 1 = this process)",
    )
    y.set_defaults(handler=_polyomino)
    mark_paths(y, inputs=("pieces", "region"))


# --------------------------------------------------------------------------------------------
# Shared: progress, checking, printing
# --------------------------------------------------------------------------------------------


def _progress(args: argparse.Namespace, what: str):
    """A ProgressPrinter when --progress was asked (and not --quiet), else a no-op."""
    if not getattr(args, "progress", False) or args.quiet:
        return contextlib.nullcontext(None)
    from rompicapo.cli.progress import ProgressPrinter

    return ProgressPrinter(what)


def _finish(args: argparse.Namespace, result, footer: str | None = None) -> int:
    """Check the answer independently, print it, and say how the run ended."""
    try:
        ok = result.verify()
    except NotVerifiable:
        ok = True  # a count or no answer: nothing to check, and report() says what it is
    if not ok:
        raise InternalError("an answer failed its independent verification")
    if not args.quiet:
        for note in getattr(result, "notes", ()):
            print(note, file=sys.stderr)
    print(dumps_json(result.to_dict()) if args.json else result.report())
    if footer and not args.json and not args.quiet:
        print(footer, file=sys.stderr)
    if getattr(result, "stopped", None) == "interrupted":
        print(f"rompicapo {args.command}: interrupted; the result so far is above", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


# --------------------------------------------------------------------------------------------
# cover, queens, polyomino
# --------------------------------------------------------------------------------------------


def _cover(args: argparse.Namespace) -> int:
    from rompicapo.cover import count, solve

    listing = args.first or args.all or args.limit is not None or args.seed is not None
    if args.count and args.seed is not None:
        raise InputError("--seed orders a listing (--first, --limit K, --all); a count is the same")
    if listing and ((args.jobs or 1) > 1 or args.scheduler):
        raise InputError("--jobs and --scheduler apply to --count only")
    limits = {"time_limit": time_left(args), "node_limit": args.node_limit}
    with _progress(args, "searching") as progress:
        if listing:
            result = solve(
                args.file,
                limit=None if args.all else (args.limit or 1),
                seed=args.seed,
                progress=progress,
                engine=args.engine,
                **limits,
            )
        else:
            result = count(
                args.file,
                jobs=args.jobs,
                scheduler=args.scheduler,
                progress=progress,
                engine=args.engine,
                **limits,
            )
    return _finish(args, result)


def _queens(args: argparse.Namespace) -> int:
    from rompicapo.cover.queens import queens

    with _progress(args, "queens") as progress:
        result = queens(
            args.n,
            limit=args.limit,
            jobs=args.jobs,
            time_limit=time_left(args),
            node_limit=args.node_limit,
            progress=progress,
        )
    return _finish(args, result)


def _polyomino(args: argparse.Namespace) -> int:
    from rompicapo.cover.polyomino import pack

    with _progress(args, "packing") as progress:
        result = pack(
            args.pieces,
            args.region,
            orientations=args.orientations,
            symmetry=not args.no_symmetry,
            limit=args.limit,
            jobs=args.jobs,
            scheduler=args.scheduler,
            time_limit=time_left(args),
            node_limit=args.node_limit,
            progress=progress,
        )
    return _finish(args, result)


# --------------------------------------------------------------------------------------------
# sudoku
# --------------------------------------------------------------------------------------------


def _register_sudoku(subparsers) -> None:
    s = subparsers.add_parser("sudoku", help="solve, generate and rate Sudoku puzzles")
    sub = s.add_subparsers(dest="sudoku_command", metavar="ACTION", parser_class=type(s))
    sub.required = True

    solve_p = sub.add_parser("solve", help="solve a puzzle, or every puzzle of a file")
    solve_p.add_argument(
        "puzzle", metavar="PUZZLE|FILE", help="81 characters (. for empty) or a file ('-' = stdin)"
    )
    _sudoku_shape_args(solve_p)
    add_run_options(
        solve_p,
        jobs=False,
        limit=True,
        default_limit=2,
        limit_aliases=("--max-solutions",),
    )
    solve_p.set_defaults(handler=_sudoku_solve)
    mark_paths(solve_p, inputs=("puzzle",))

    gen = sub.add_parser("generate", help="generate a puzzle with a unique solution, minimal")
    gen.add_argument("--box", default="3x3", help="box size RxC (default 3x3, a 9x9 grid)")
    gen.add_argument("--clues", type=positive_int, metavar="N", help="aim at N clues (or fewer)")
    gen.add_argument("--symmetric", action="store_true", help="clues symmetric under 180°")
    add_run_options(gen, jobs=False, seed=True)
    gen.set_defaults(handler=_sudoku_generate)

    rate = sub.add_parser("rate", help="rate the difficulty of a puzzle, or of every puzzle")
    rate.add_argument(
        "puzzle", metavar="PUZZLE|FILE", help="81 characters (. for empty) or a file ('-' = stdin)"
    )
    _sudoku_shape_args(rate)
    add_run_options(rate, jobs=False)
    rate.set_defaults(handler=_sudoku_rate)
    mark_paths(rate, inputs=("puzzle",))


def _sudoku_shape_args(p) -> None:
    p.add_argument("--box", default=None, help="box size RxC (default: from the puzzle length)")
    p.add_argument("--diagonals", action="store_true", help="both main diagonals hold 1..N too")
    p.add_argument("--regions", metavar="LAYOUT", help="jigsaw regions: one letter per cell")


def _shape(args: argparse.Namespace) -> dict:
    return {"box": args.box, "diagonals": args.diagonals, "regions": args.regions}


def _sudoku_solve(args: argparse.Namespace) -> int:
    from rompicapo.cover import sudoku

    result = sudoku.solve_file(
        args.puzzle, limit=args.limit, time_limit=time_left(args), **_shape(args)
    )
    footer = result.footer() if isinstance(result, sudoku.BatchResult) else None
    return _finish(args, result, footer)


def _sudoku_generate(args: argparse.Namespace) -> int:
    from rompicapo.cover import sudoku

    result = sudoku.generate(
        box=args.box,
        clues=args.clues,
        symmetric=args.symmetric,
        seed=args.seed,
        time_limit=time_left(args),
    )
    return _finish(args, result)


def _sudoku_rate(args: argparse.Namespace) -> int:
    from rompicapo.cover import sudoku

    result = sudoku.rate_file(args.puzzle, time_limit=time_left(args), **_shape(args))
    return _finish(args, result)
