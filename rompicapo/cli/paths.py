"""``rompicapo path``, ``verify-path``, ``path-at`` and ``step-of``: one path through every
cell, its check, and random access to the block construction's path.

Each handler parses, makes one call to `rompicapo.paths`' API and prints the result's
``report()`` (or ``to_dict()`` with ``--json``). Exit status: 0 when a path was found and
verified (or a file holds a valid path), 1 when there is none (impossible, not found,
interrupted, rejected by the verifier, or an invalid path in a file), 2 for bad input.
"""

from __future__ import annotations

import argparse
import sys

from rompicapo.cli.options import add_run_options, mark_paths, time_left
from rompicapo.common import EXIT_INTERRUPTED, EXIT_OUTPUT

# Above this many cells a progress bar goes to stderr (the run takes a few seconds or more).
PROGRESS_CELLS = 100_000_000


def register(subparsers: argparse._SubParsersAction) -> None:
    _register_path(subparsers)
    _register_verify_path(subparsers)
    _register_random_access(subparsers)


def _register_path(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "path",
        help="find a path through every cell of an R x C board with leaper moves",
        description=(
            "Warnsdorff's rule with Pósa rotations and restarts: one path through every cell, "
            "checked by an independent verifier. Small boards with no path are proven "
            "impossible."
        ),
    )
    p.add_argument("size", metavar="SIZE", help="N (square) or RxC, e.g. 10 or 5x7")
    p.add_argument("--start", metavar="R,C", default=None, help="0-based start cell (0,0)")
    p.add_argument(
        "--method",
        choices=["blocks", "greedy"],
        default=None,
        help="blocks: the deterministic block constructions (caselle from 0,0, sides >= 5; "
        "block cycles for any start, closed tours and other leapers with a block table, "
        "sides >= 10 for caselle and the knight); greedy: Warnsdorff + Pósa search (any board "
        "and start). Default: blocks where they apply, else greedy (open knight paths on "
        "boards with a side <= 9 first get a search of a few columns around the start joined "
        "to closed tours of the two sides)",
    )
    p.add_argument(
        "--moves", default="caselle", help="caselle (default), knight, or 'DR,DC;DR,DC;...'"
    )
    p.add_argument("--closed", action="store_true", help="ask for a closed tour")
    p.add_argument(
        "--tie-break",
        default="centre",
        choices=["centre", "order", "random"],
        help="Warnsdorff's tie-break: farthest from the centre (default), move order, random",
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        help="save the path: FILE.npy (flat cell indices), FILE.rpath (streamed, one byte "
        "per move; with blocks the path is never held in memory) or FILE.txt (the numbered "
        "grid); paths.load_path reads each back",
    )
    p.add_argument(
        "--packed",
        action="store_true",
        help="with --out FILE.rpath: 3 bits per move instead of a byte (3/8 of the size)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="with --out FILE.rpath: keep the chunks an interrupted run already wrote",
    )
    p.add_argument("--pdf", metavar="FILE", help="draw the path as a PDF page")
    p.add_argument("--png", metavar="FILE", help="draw the visit order as a PNG image")
    p.add_argument("--svg", metavar="FILE", help="draw the path as SVG (small boards)")
    add_run_options(
        p,
        seed=True,
        default_seed=0,
        scheduler=True,
        time_aliases=("--time-limit",),
        jobs_help="threads solving bands of the board, or writing an .rpath file "
        "(default: all cores; more are capped)",
    )
    p.set_defaults(handler=run_path)
    mark_paths(p, outputs=("out", "pdf", "png", "svg"))


def _register_verify_path(subparsers: argparse._SubParsersAction) -> None:
    v = subparsers.add_parser(
        "verify-path",
        help="check a saved path (.npy of flat cells, .txt grid, or .rpath) with the "
        "independent verifier",
    )
    v.add_argument(
        "file", metavar="FILE", help="FILE.npy, FILE.txt, or FILE.rpath (checked streaming)"
    )
    v.add_argument("size", metavar="SIZE", nargs="?", help="N or RxC (an .rpath file knows it)")
    v.add_argument("--moves", default="caselle", help="caselle (default), knight, 'DR,DC;...'")
    v.add_argument("--start", metavar="R,C", help="the path must start here")
    v.add_argument("--closed", action="store_true", help="the path must close into a tour")
    add_run_options(
        v,
        scheduler=True,
        jobs_help="threads checking an .rpath file (default: all cores; more are capped)",
    )
    v.set_defaults(handler=run_verify_path)
    mark_paths(v, inputs=("file",))


def _register_random_access(subparsers: argparse._SubParsersAction) -> None:
    """``path-at`` and ``step-of``: random access to the block construction's path, the two
    questions, one shape each."""
    for name, what, arg, meta, arg_help, handler in (
        ("path-at", "the cell at a step", "step", "STEP", "step numbers, 1 = the start",
         run_path_at),
        ("step-of", "the step at which the path visits a cell", "cell", "R,C", "0-based cells",
         run_step_of),
    ):  # fmt: skip
        q = subparsers.add_parser(
            name, help=f"{what} of the block construction's path (O(1), nothing built)"
        )
        q.add_argument("size", metavar="SIZE", help="N or RxC, both sides >= 5")
        q.add_argument(arg, metavar=meta, nargs="+", help=arg_help)
        q.add_argument(
            "--start", metavar="R,C", help="the block cycle's path from this cell (0-based)"
        )
        q.add_argument("--closed", action="store_true", help="the block cycle (a closed tour)")
        q.add_argument(
            "--moves", default="caselle", help="caselle (default), knight, or 'DR,DC;...'"
        )
        add_run_options(q, time=False, jobs=False)
        q.set_defaults(handler=handler)


def run_path(args: argparse.Namespace) -> int:
    from rompicapo.cli.progress import ProgressPrinter
    from rompicapo.common import dumps_json
    from rompicapo.paths import find_path, parse_size

    rows, cols = parse_size(args.size)
    show = not args.quiet and not args.json and rows * cols > PROGRESS_CELLS
    try:
        with ProgressPrinter(f"path {rows}x{cols}", enabled=show) as progress:
            res = find_path(
                rows,
                cols,
                args.start,
                args.moves,
                method=args.method,
                closed=args.closed,
                seed=args.seed,
                tie_break=args.tie_break,
                time_limit=time_left(args),
                jobs=args.jobs,
                scheduler=args.scheduler,
                out=args.out,
                packed=args.packed,
                resume=args.resume,
                pdf=args.pdf,
                png=args.png,
                svg=args.svg,
                progress=progress,
            )
    except KeyboardInterrupt:
        if args.out and args.out.endswith(".rpath"):
            import os

            from rompicapo.paths.rpath import partial_name

            part = partial_name(args.out)
            if os.path.exists(part):
                print(
                    f"interrupted: {part} holds the chunks written so far ({args.out} is "
                    "untouched); the same command with --resume continues from them",
                    file=sys.stderr,
                )
                return 130
        raise
    _notes(res, args)
    if args.json:
        print(dumps_json(res.to_dict()))
    else:
        print(res.report(grid=not args.quiet))
    if getattr(res, "unwritten", []):
        return EXIT_OUTPUT  # a file asked for was kept elsewhere (said on stderr)
    return 0 if res.found and res.verified else 1


def _notes(res, args: argparse.Namespace) -> None:
    """Notes (a capped --jobs) and files that could not be written, on stderr."""
    for line in getattr(res, "unwritten", []):
        print(f"rompicapo {args.command}: {line}", file=sys.stderr)
    if not getattr(args, "quiet", False):
        for note in getattr(res, "notes", []):
            print(f"note: {note}", file=sys.stderr)


def run_path_at(args: argparse.Namespace) -> int:
    from rompicapo.common import dumps_json
    from rompicapo.paths import cells_at

    res = cells_at(
        args.size, None, args.step, start=args.start, closed=args.closed, moves=args.moves
    )
    print(dumps_json(res.to_dict()) if args.json else res.report())
    return 0


def run_step_of(args: argparse.Namespace) -> int:
    from rompicapo.common import dumps_json
    from rompicapo.paths import steps_of

    res = steps_of(
        args.size, None, args.cell, start=args.start, closed=args.closed, moves=args.moves
    )
    print(dumps_json(res.to_dict()) if args.json else res.report())
    return 0


def run_verify_path(args: argparse.Namespace) -> int:
    from rompicapo.cli.progress import ProgressPrinter
    from rompicapo.common import dumps_json
    from rompicapo.paths import check_path_file

    show = not args.quiet and not args.json and sys.stderr.isatty()
    with ProgressPrinter("verify", enabled=show) as progress:
        res = check_path_file(
            args.file,
            args.size,
            moves=args.moves,
            start=args.start,
            closed=args.closed,
            jobs=args.jobs,
            scheduler=args.scheduler,
            progress=progress,
            time_limit=time_left(args),
        )
    _notes(res, args)
    print(dumps_json(res.to_dict()) if args.json else res.report())
    if res.stopped is not None:
        return EXIT_INTERRUPTED  # not checked: neither valid (0) nor shown wrong (1)
    return 0 if res.valid else 1
