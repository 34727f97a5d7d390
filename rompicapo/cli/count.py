"""``rompicapo count``: exact counts of jump-grid paths, lists of them, proofs that none exist.

A thin shell over :mod:`rompicapo.paths.count`; imported lazily so ``rompicapo --help`` stays
fast.
"""

from __future__ import annotations

import argparse
import os
import sys

from rompicapo.common import InputError


def _table_text(table) -> str:
    rows, cols = table.shape
    width = max(len(f"{int(table.max()):,}"), len(str(cols - 1)))
    head = "    " + " ".join(f"{c:>{width}}" for c in range(cols))
    lines = [head]
    for r in range(rows):
        lines.append(f"{r:>3} " + " ".join(f"{int(v):>{width},}" for v in table[r]))
    return "\n".join(lines)


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
    p.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: all cores)")
    p.add_argument("--checkpoint", metavar="FILE", help="save finished jobs here; rerun to resume")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run the jobs on this Dask scheduler")
    p.add_argument(
        "--list", type=int, metavar="N", help="print the first N paths from --start instead"
    )
    p.add_argument(
        "--random", type=int, metavar="SEED", help="print one path found in a seeded random order"
    )
    p.add_argument(
        "--ends",
        action="store_true",
        help="count by (start, end) pair: the matrix, checked symmetric (a path read backwards) "
        "and invariant under the board's symmetries",
    )
    p.add_argument("--json", action="store_true", help="JSON output (JSON lines with --list)")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no statistics line")
    p.set_defaults(handler=_count)


def _count(args: argparse.Namespace) -> int:
    from rompicapo.common import dumps_json
    from rompicapo.paths import parse_cell, parse_size, render
    from rompicapo.paths.count import count_paths, iter_paths, search_path

    rows, cols = parse_size(args.size)
    start = parse_cell(args.start) if args.start is not None else None
    if args.jobs is not None and args.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {args.jobs}")
    kind = "closed tours" if args.closed else "paths"

    if args.list is not None or args.random is not None:
        if start is None:
            raise InputError("--list and --random need --start R,C")
        if args.list is not None and args.list < 0:
            raise InputError(f"--list must be at least 0, got {args.list}")
        if args.random is not None:
            found = search_path(rows, cols, start, args.moves, args.closed, seed=args.random)
            paths = [found.path] if found.path is not None else []
        else:
            paths = iter_paths(rows, cols, start, args.moves, args.closed, limit=args.list)
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

    progress = not args.quiet and not args.json and sys.stderr.isatty()
    if args.ends:
        return _count_ends(args, rows, cols, progress)
    try:
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
        )
    except KeyboardInterrupt:
        if args.checkpoint:
            print(
                f"interrupted: finished jobs saved in {args.checkpoint}; "
                f"rerun the same command with --checkpoint {args.checkpoint} to resume",
                file=sys.stderr,
            )
        else:
            print("interrupted: nothing saved (give --checkpoint FILE to make a count resumable)",
                  file=sys.stderr)  # fmt: skip
        return 130

    if args.json:
        print(dumps_json(result.as_dict()))
        return 0
    board = f"{rows}x{cols} {result.moves}"
    if start is not None:
        print(f"{board} {kind} from {start}: {result.count:,}")
        if result.count == 0:
            print(
                f"no {kind[:-1]} from {start}: proven by exhaustive search ({result.nodes:,} nodes)"
            )
    else:
        print(f"{board} {kind} from every start:")
        print(_table_text(result.table))
        print(f"total {result.total:,}  min {result.min:,}  max {result.max:,}")
        if result.total == 0:
            print(f"no {kind[:-1]} from any start: proven by exhaustive search "
                  f"({result.nodes:,} nodes)")  # fmt: skip
    if not args.quiet:
        searched = result.nodes - result.counts.get("nodes_from_checkpoint", 0)
        rate = searched / result.solve_seconds if result.solve_seconds > 0 else 0.0
        jobs = f"  jobs {result.jobs}" if result.jobs else ""
        print(
            f"nodes {result.nodes:,}{jobs}  {result.solve_seconds:.3f} s"
            f" (+{result.compile_seconds:.2f} s compile)  {rate / 1e6:.1f} M nodes/s"
        )
    return 0


def _count_ends(args: argparse.Namespace, rows: int, cols: int, progress: bool) -> int:
    """``count --ends``: the (start, end) matrix with its checks (exit 1 if one fails)."""
    from rompicapo.common import dumps_json
    from rompicapo.paths.count import count_end_matrix

    if args.start is not None:
        raise InputError("--ends counts from every start: drop --start")
    try:
        res = count_end_matrix(
            rows, cols, args.moves, args.closed, jobs=args.jobs,
            checkpoint=args.checkpoint, scheduler=args.scheduler, progress=progress,
        )  # fmt: skip
    except KeyboardInterrupt:
        print("interrupted" + (f": finished jobs saved in {args.checkpoint}" if args.checkpoint
              else ""), file=sys.stderr)  # fmt: skip
        return 130
    data = res.as_dict()
    if args.json:
        print(dumps_json(data))
    else:
        print(f"{rows}x{cols} {res.moves} by (start, end): total {data['total']:,}")
        print(_table_text(res.table))
        print(
            "checks: "
            + ", ".join(f"{k} {'ok' if v else 'FAILED'}" for k, v in data["checks"].items())
        )
    return 0 if all(data["checks"].values()) else 1
