"""``rompicapo path`` and ``rompicapo verify-path``: one path through every cell, and its check.

Exit status: 0 when a path was found and verified (or a file holds a valid path), 1 when there
is none (impossible, not found, interrupted, rejected by the verifier, or an invalid path in a
file), 2 for bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Boards with at most this many columns and cells are printed as a numbered grid.
TEXT_GRID_COLS = 40
TEXT_GRID_CELLS = 2500
# Above this many cells a progress bar goes to stderr (the run takes a few seconds or more).
PROGRESS_CELLS = 100_000_000


def register(subparsers: argparse._SubParsersAction) -> None:
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
    p.add_argument("--start", metavar="R,C", default="0,0", help="0-based start cell (0,0)")
    p.add_argument(
        "--moves", default="caselle", help="caselle (default), knight, or 'DR,DC;DR,DC;...'"
    )
    p.add_argument("--closed", action="store_true", help="ask for a closed tour")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="random seed (default 0)")
    p.add_argument(
        "--tie-break",
        default="centre",
        choices=["centre", "order", "random"],
        help="Warnsdorff's tie-break: farthest from the centre (default), move order, random",
    )
    p.add_argument("--time-limit", type=float, metavar="S", help="give up after S seconds")
    p.add_argument("--out", metavar="FILE.npy", help="save the path (flat cell indices)")
    p.add_argument("--pdf", metavar="FILE", help="draw the path as a PDF page")
    p.add_argument("--png", metavar="FILE", help="draw the visit order as a PNG image")
    p.add_argument("--svg", metavar="FILE", help="draw the path as SVG (small boards)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--quiet", action="store_true", help="no grid, no progress bar")
    p.set_defaults(handler=run_path)

    v = subparsers.add_parser(
        "verify-path",
        help="check a saved path (.npy of flat cell indices) with the independent verifier",
    )
    v.add_argument("file", metavar="FILE.npy")
    v.add_argument("size", metavar="SIZE", help="N or RxC")
    v.add_argument("--moves", default="caselle", help="caselle (default), knight, 'DR,DC;...'")
    v.add_argument("--start", metavar="R,C", help="the path must start here")
    v.add_argument("--closed", action="store_true", help="the path must close into a tour")
    v.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    v.set_defaults(handler=run_verify_path)


def run_path(args: argparse.Namespace) -> int:
    from rompicapo.common import dumps_json
    from rompicapo.paths import construct, parse_cell, parse_size, render

    rows, cols = parse_size(args.size)
    start = parse_cell(args.start, rows, cols)
    show_progress = not args.quiet and not args.json and rows * cols > PROGRESS_CELLS
    res = construct(
        rows,
        cols,
        start,
        args.moves,
        closed=args.closed,
        seed=args.seed,
        tie_break=args.tie_break,
        time_limit=args.time_limit,
        progress=show_progress,
    )
    check = res.check() if res.found else None
    verified = bool(check) if check is not None else False
    if res.found and not verified:  # pragma: no cover - a solver bug; say it loudly
        print(f"rompicapo path: the verifier rejects the path: {check.reason}", file=sys.stderr)

    saved: list[str] = []
    if res.path is not None and args.out:
        import numpy as np

        out = args.out if res.found else str(Path(args.out).with_suffix(".partial.npy"))
        np.save(out, res.path)
        saved.append(out)
    if res.found:
        title = f"{rows}x{cols}, {res.moves.name} moves, from ({start[0]}, {start[1]})"
        if args.pdf:
            render.write_pdf(res.path, rows, cols, args.pdf, title=title)
            saved.append(args.pdf)
        if args.png:
            render.write_png(res.path, rows, cols, args.png)
            saved.append(args.png)
        if args.svg:
            render.write_svg(res.path, rows, cols, args.svg)
            saved.append(args.svg)

    ok = res.found and verified  # a path the verifier rejects is no answer
    if args.json:
        print(dumps_json(res.summary(verified=verified)))
        return 0 if ok else 1
    board = f"{rows}x{cols} {res.moves.name} from ({start[0]}, {start[1]})"
    if args.closed:
        board += ", closed tour"
    timing = f"solve {res.solve_seconds:.3f} s, compile {res.compile_seconds:.2f} s"
    if res.found:
        print(
            f"{board}: found, {'verified' if verified else 'NOT VERIFIED'} "
            f"({res.rotations} rotations, {res.restarts} restarts, {timing})"
        )
        if not args.quiet and cols <= TEXT_GRID_COLS and rows * cols <= TEXT_GRID_CELLS:
            print()
            print(render.grid_text(res.path, rows, cols))
    elif res.status == "impossible":
        print(f"{board}: impossible: {res.proof}")
    elif res.status == "interrupted":
        done = res.counts.get("path_cells", 0)
        print(f"{board}: interrupted after {done:,} of {rows * cols:,} cells ({timing})")
    else:
        print(
            f"{board}: not found ({res.rotations} rotations, {res.restarts} restarts, "
            f"{timing}); no proof that none exists"
        )
    for name in saved:
        print(f"wrote {name}")
    return 0 if ok else 1


def run_verify_path(args: argparse.Namespace) -> int:
    from rompicapo.common import dumps_json
    from rompicapo.paths import parse_cell, parse_moves, parse_size, verify_path_file

    rows, cols = parse_size(args.size)
    moves = parse_moves(args.moves)
    start = parse_cell(args.start, rows, cols) if args.start else None
    # the file variant loads the .npy memory-mapped and says when the file is not a path
    check = verify_path_file(args.file, rows, cols, moves, start=start, closed=args.closed)
    if args.json:
        print(
            dumps_json(
                {
                    "file": args.file,
                    "rows": rows,
                    "cols": cols,
                    "moves": moves.spec,
                    "valid": bool(check),
                    "reason": check.reason,
                }
            )
        )
    elif check:
        print(f"{args.file}: a valid {rows}x{cols} {moves.name} path")
    else:
        print(f"{args.file}: not a valid {rows}x{cols} {moves.name} path: {check.reason}")
    return 0 if check else 1
