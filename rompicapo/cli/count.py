"""``rompicapo count``: exact counts of jump-grid paths, lists of them, proofs that none exist.

A thin shell over `rompicapo.paths.count`; imported lazily so ``rompicapo --help`` stays
fast.
"""

from __future__ import annotations

import argparse
import os
import sys

from rompicapo.cli.options import (
    add_deprecated_flag,
    add_run_options,
    int_arg,
    mark_paths,
    positive_int,
    time_left,
)
from rompicapo.common import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "count",
        help="count every path (or closed tour) exactly, list them, or prove there is none",
        description=(
            "Exhaustive search of the paths that visit every cell of the board once. "
            "Without --start, counts from every start (one search per class of symmetric "
            "starts) and prints the table."
        ),
    )
    p.add_argument("size", metavar="SIZE", help="N (square) or RxC, e.g. 5x7")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--start", metavar="R,C", help="0-based start cell, e.g. 2,3")
    where.add_argument(
        "--all-starts", action="store_true", help="count from every start (the default)"
    )
    p.add_argument("--closed", action="store_true", help="count closed tours only")
    p.add_argument(
        "--moves", default="caselle", help="caselle (default), knight, or 'DR,DC;DR,DC;...'"
    )
    p.add_argument(
        "--checkpoint",
        metavar="FILE",
        help="save finished jobs in FILE.json (checksummed); rerun to resume",
    )
    p.add_argument(
        "--limit",
        type=positive_int,
        metavar="N",
        help="print the first N paths from --start instead (N >= 1; formerly --list)",
    )
    p.add_argument(
        "--seed",
        type=int_arg,
        metavar="N",
        help="print one path from --start found in a seeded random order instead (any "
        "integer; formerly --random)",
    )
    add_deprecated_flag(p, "--list", "--limit", dest="limit", type=positive_int, metavar="N")
    add_deprecated_flag(p, "--random", "--seed", dest="seed", type=int_arg, metavar="N")
    add_run_options(
        p,
        scheduler=True,
        jobs_help="worker processes (default: all cores; more are capped)",
    )
    p.add_argument(
        "--ends",
        action="store_true",
        help="count by (start, end) pair: the matrix, checked symmetric (a path read backwards) "
        "and invariant under the board's symmetries",
    )
    p.set_defaults(handler=_count)
    mark_paths(p, outputs=("checkpoint",))


def _count(args: argparse.Namespace) -> int:
    from rompicapo.cli.progress import ProgressPrinter
    from rompicapo.common import dumps_json
    from rompicapo.paths import parse_cell, parse_size, render
    from rompicapo.paths.count import count_paths, iter_paths, search_path

    rows, cols = parse_size(args.size)
    start = parse_cell(args.start) if args.start is not None else None
    kind = "closed tours" if args.closed else "paths"

    if args.limit is not None or args.seed is not None:
        if start is None:
            raise InputError("--limit and --seed need --start R,C")
        if args.seed is not None:
            found = search_path(rows, cols, start, args.moves, args.closed, seed=args.seed)
            paths = [found.path] if found.path is not None else []
        else:
            paths = iter_paths(rows, cols, start, args.moves, args.closed, limit=args.limit)
        n = 0
        try:
            for n, path in enumerate(paths, 1):
                if args.json:
                    print(dumps_json([int(x) for x in path]))
                else:
                    print(f"#{n}\n{render.grid_text(path, rows, cols)}\n")
        except BrokenPipeError:  # `| head`: the reader has seen enough
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        if n == 0 and not args.json:
            print(f"no {kind} from {start} on {rows}x{cols}")
        return 0

    show = not args.quiet and not args.json and sys.stderr.isatty()
    if args.ends:
        return _count_ends(args, rows, cols, show)
    try:
        with ProgressPrinter(f"{rows}x{cols} jobs", enabled=show, transient=False) as progress:
            result = count_paths(
                rows,
                cols,
                start,
                args.moves,
                args.closed,
                jobs=args.jobs,
                checkpoint=args.checkpoint,
                scheduler=args.scheduler,
                progress=progress,
                time_limit=time_left(args),
            )
    except KeyboardInterrupt:
        from rompicapo.common.parallel import stop_reason

        how = "stopped by the time limit" if stop_reason() == "time" else "interrupted"
        if args.checkpoint:
            print(
                f"{how}: finished jobs saved in {args.checkpoint}; "
                f"rerun the same command with --checkpoint {args.checkpoint} to resume",
                file=sys.stderr,
            )
        else:
            print(f"{how}: nothing saved (give --checkpoint FILE to make a count resumable)",
                  file=sys.stderr)  # fmt: skip
        return 130
    if not args.quiet:
        for note in result.notes:
            print(f"note: {note}", file=sys.stderr)
    if args.json:
        print(dumps_json(result.to_dict()))
    else:
        print(result.report(stats=not args.quiet))
    return 0


def _count_ends(args: argparse.Namespace, rows: int, cols: int, show: bool) -> int:
    """``count --ends``: the (start, end) matrix with its checks (exit 1 if one fails)."""
    from rompicapo.cli.progress import ProgressPrinter
    from rompicapo.common import dumps_json
    from rompicapo.paths.count import count_end_matrix

    if args.start is not None:
        raise InputError("--ends counts from every start: drop --start")
    try:
        with ProgressPrinter(f"{rows}x{cols} jobs", enabled=show, transient=False) as progress:
            res = count_end_matrix(
                rows, cols, args.moves, args.closed, jobs=args.jobs,
                checkpoint=args.checkpoint, scheduler=args.scheduler, progress=progress,
            )  # fmt: skip
    except KeyboardInterrupt:
        print("interrupted" + (f": finished jobs saved in {args.checkpoint}" if args.checkpoint
              else ""), file=sys.stderr)  # fmt: skip
        return 130
    print(dumps_json(res.to_dict()) if args.json else res.report())
    return 0 if all(res.checks().values()) else 1
