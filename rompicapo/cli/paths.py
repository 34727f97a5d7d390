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
    p.add_argument("--start", metavar="R,C", default=None, help="0-based start cell (0,0)")
    p.add_argument(
        "--method",
        choices=["blocks", "greedy"],
        default=None,
        help="blocks: the deterministic block constructions (caselle from 0,0, sides >= 5; "
        "block cycles for any start, closed tours and other leapers with a block table, "
        "sides >= 10 for caselle and the knight); greedy: Warnsdorff + Pósa search (any board "
        "and start). Default: blocks where they apply, else greedy",
    )
    p.add_argument("--jobs", type=int, metavar="N", help="threads/processes (default: all cores)")
    p.add_argument(
        "--scheduler", metavar="ADDRESS", help="write a blocks .rpath file on this Dask cluster"
    )
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
    p.add_argument(
        "--out",
        metavar="FILE",
        help="save the path: FILE.npy (flat cell indices) or FILE.rpath (streamed, one byte "
        "per move; with blocks the path is never held in memory)",
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
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--quiet", action="store_true", help="no grid, no progress bar")
    p.set_defaults(handler=run_path)

    v = subparsers.add_parser(
        "verify-path",
        help="check a saved path (.npy of flat cell indices) with the independent verifier",
    )
    v.add_argument("file", metavar="FILE", help="FILE.npy, or FILE.rpath (checked streaming)")
    v.add_argument("size", metavar="SIZE", nargs="?", help="N or RxC (an .rpath file knows it)")
    v.add_argument("--jobs", type=int, metavar="N", help="threads for .rpath (default: all)")
    v.add_argument("--scheduler", metavar="ADDRESS", help="check an .rpath file on a Dask cluster")
    v.add_argument("--moves", default="caselle", help="caselle (default), knight, 'DR,DC;...'")
    v.add_argument("--start", metavar="R,C", help="the path must start here")
    v.add_argument("--closed", action="store_true", help="the path must close into a tour")
    v.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    v.set_defaults(handler=run_verify_path)

    # random access to the block construction's path: the two questions, one shape each
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
        q.add_argument("--json", action="store_true", help="print one JSON object on stdout")
        q.add_argument(
            "--start", metavar="R,C", help="the block cycle's path from this cell (0-based)"
        )
        q.add_argument("--closed", action="store_true", help="the block cycle (a closed tour)")
        q.add_argument(
            "--moves", default="caselle", help="caselle (default), knight, or 'DR,DC;...'"
        )
        q.set_defaults(handler=handler)


def run_path(args: argparse.Namespace) -> int:
    from rompicapo.common import InputError, dumps_json
    from rompicapo.paths import construct, parse_cell, parse_moves, parse_size, render

    rows, cols = parse_size(args.size)
    start = parse_cell(args.start or "0,0", rows, cols)
    method = args.method or "auto"
    if args.scheduler and (method == "greedy" or not (args.out or "").endswith(".rpath")):
        raise InputError("--scheduler writes block paths to a file: add --out FILE.rpath")
    show_progress = not args.quiet and not args.json and rows * cols > PROGRESS_CELLS
    if args.out and args.out.endswith(".rpath") and method != "greedy":
        from rompicapo.paths import blocks_refusal

        why_not = blocks_refusal(rows, cols, start, parse_moves(args.moves), args.closed)
        if not why_not:
            return _stream_blocks(args, rows, cols, show_progress, start)
        if method == "blocks":
            raise InputError(f"the block construction does not apply: {why_not}")
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
        jobs=args.jobs,
        method=method,
    )
    check = res.check() if res.found else None
    verified = bool(check) if check is not None else False
    if res.found and not verified:  # pragma: no cover - a solver bug; say it loudly
        print(f"rompicapo path: the verifier rejects the path: {check.reason}", file=sys.stderr)

    saved: list[str] = []
    if res.path is not None and args.out:
        import numpy as np

        if args.out.endswith(".rpath") and res.found:
            from rompicapo.paths.rpath import write_path_array

            write_path_array(
                args.out,
                res.path,
                rows,
                cols,
                res.moves.moves,
                method=res.method,
                encoding="u3" if args.packed and len(res.moves) <= 8 else "u8",
            )
            out = args.out
        else:
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
        how = (
            f"{res.method}, {res.counts['bands']} bands of {res.counts['blocks_per_band']} blocks"
            if res.method.startswith("blocks")
            else f"{res.rotations} rotations, {res.restarts} restarts"
        )
        print(f"{board}: found, {'verified' if verified else 'NOT VERIFIED'} ({how}, {timing})")
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


def _stream_blocks(
    args: argparse.Namespace, rows: int, cols: int, show_progress: bool, start=(0, 0)
) -> int:
    """``path --out FILE.rpath`` with blocks: write the file chunk by chunk (never the whole
    path in memory), then check it with the streaming verifier. The corner path serves caselle
    from (0, 0); the block cycle (read from ``start``) everything else."""
    import functools

    from rompicapo.common import Stopwatch, dumps_json, jit_warmup, peak_rss_bytes, progress_bar
    from rompicapo.paths import parse_moves
    from rompicapo.paths.blocks import warm_up, write_blocks_rpath
    from rompicapo.paths.construct import block_method
    from rompicapo.paths.verify_stream import verify_rpath

    mset = parse_moves(args.moves)
    method, _ = block_method(rows, cols, start, mset, args.closed)
    if method == "blocks-cycle":
        from rompicapo.paths import cycles

        warm_up = cycles.warm_up
        write_blocks_rpath = functools.partial(cycles.write_cycle_rpath, moves=mset, start=start)
    compile_seconds = jit_warmup(f"paths.{method}", warm_up)
    with progress_bar(disable=not show_progress, transient=True) as bar:
        task = bar.add_task("write", total=None)
        with Stopwatch() as write_sw:
            try:
                header = write_blocks_rpath(
                    args.out,
                    rows,
                    cols,
                    jobs=args.jobs,
                    scheduler=args.scheduler,
                    on_chunk=lambda k: bar.advance(task, k),
                    resume=args.resume,
                    encoding="u3" if args.packed else "u8",
                )
            except KeyboardInterrupt:
                print(
                    f"interrupted: {args.out} is incomplete; the same command with --resume "
                    "keeps the chunks already written",
                    file=sys.stderr,
                )
                return 130
        task2 = bar.add_task("verify", total=2 * header.n_chunks)
        with Stopwatch() as verify_sw:
            check = verify_rpath(
                args.out,
                jobs=args.jobs,
                scheduler=args.scheduler,
                on_progress=lambda done, total: bar.update(task2, completed=done),
            )
    summary = {
        "rows": rows,
        "cols": cols,
        "start": list(start),
        "moves": mset.spec,
        "closed": bool(args.closed),
        "method": method,
        "seed": None,
        "found": True,
        "status": "found",
        "verified": bool(check),
        "reason": check.reason,
        "out": args.out,
        "bytes": header.file_size,
        "write_seconds": round(write_sw.seconds, 3),
        "verify_seconds": round(verify_sw.seconds, 3),
        "compile_seconds": round(compile_seconds, 3),
        "peak_bytes": peak_rss_bytes(),
    }
    if args.json:
        print(dumps_json(summary))
    else:
        print(
            f"{rows}x{cols} {mset.name} from ({start[0]}, {start[1]}): {method}"
            f"{' (a closed tour)' if method == 'blocks-cycle' else ''}, written to {args.out} "
            f"({header.file_size / 1e9:.3g} GB in {write_sw.seconds:.2f} s), "
            f"{'verified' if check else 'NOT VERIFIED: ' + check.reason} "
            f"in {verify_sw.seconds:.2f} s (compile {compile_seconds:.2f} s)"
        )
    return 0 if check else 1


def run_path_at(args: argparse.Namespace) -> int:
    from rompicapo.common import InputError, dumps_json
    from rompicapo.paths import parse_size

    rows, cols = parse_size(args.size)
    try:
        steps = [int(s.replace("_", "")) for s in args.step]
    except ValueError:
        raise InputError(f"a step is a whole number, got {' '.join(args.step)!r}") from None
    bp, method = _random_access(args, rows, cols)
    cells = [bp.cell_at(s) for s in steps]
    if args.json:
        print(dumps_json({"rows": rows, "cols": cols, "method": method,
                          "steps": steps, "cells": [list(c) for c in cells]}))  # fmt: skip
    else:
        for s, (r, c) in zip(steps, cells, strict=False):
            print(f"step {s}: {r},{c}")
    return 0


def run_step_of(args: argparse.Namespace) -> int:
    from rompicapo.common import dumps_json
    from rompicapo.paths import parse_cell, parse_size

    rows, cols = parse_size(args.size)
    bp, method = _random_access(args, rows, cols)
    cells = [parse_cell(c, rows, cols) for c in args.cell]
    steps = [bp.step_of(c) for c in cells]
    if args.json:
        print(dumps_json({"rows": rows, "cols": cols, "method": method,
                          "cells": [list(c) for c in cells], "steps": steps}))  # fmt: skip
    else:
        for (r, c), s in zip(cells, steps, strict=False):
            print(f"{r},{c}: step {s}")
    return 0


def _random_access(args: argparse.Namespace, rows: int, cols: int):
    """The corner path (caselle, no --start, not --closed) or the block cycle read from
    --start (default 0,0), and its method name."""
    from rompicapo.paths import parse_cell, parse_moves
    from rompicapo.paths.blocks import BlockPath
    from rompicapo.paths.cycles import BlockCycle

    mset = parse_moves(args.moves)
    if args.start is None and not args.closed and mset == parse_moves("caselle"):
        return BlockPath(rows, cols), "blocks"
    start = parse_cell(args.start or "0,0", rows, cols)
    return BlockCycle(rows, cols, mset, start), "blocks-cycle"


def run_verify_path(args: argparse.Namespace) -> int:
    from rompicapo.common import InputError, Stopwatch, dumps_json
    from rompicapo.paths import parse_cell, parse_moves, parse_size, verify_path_file

    moves = parse_moves(args.moves)
    with Stopwatch() as sw:
        if args.file.endswith(".rpath"):
            rows, cols, check = _check_rpath(args)
            how = ", streamed"
        else:
            if args.size is None:
                raise InputError("verify-path FILE.npy needs the board SIZE")
            rows, cols = parse_size(args.size)
            start = parse_cell(args.start, rows, cols) if args.start else None
            # the file variant loads the .npy memory-mapped and says when it is not a path
            check = verify_path_file(args.file, rows, cols, moves, start=start, closed=args.closed)
            how = ""
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
                    "verify_seconds": round(sw.seconds, 3),
                }
            )
        )
    elif check:
        print(f"{args.file}: a valid {rows}x{cols} {moves.name} path ({sw.seconds:.2f} s{how})")
    else:
        print(f"{args.file}: not a valid {rows}x{cols} {moves.name} path: {check.reason}")
    return 0 if check else 1


def _check_rpath(args: argparse.Namespace):
    """``verify-path FILE.rpath``: the board comes from the file (SIZE, if given, must agree)."""
    from rompicapo.common import InputError, progress_bar
    from rompicapo.paths import parse_cell, parse_size
    from rompicapo.paths.rpath import read_header
    from rompicapo.paths.verify_stream import verify_rpath

    header = read_header(args.file)
    rows, cols = header.rows, header.cols
    if args.size is not None and parse_size(args.size) != (rows, cols):
        raise InputError(f"{args.file} holds a {rows}x{cols} path, not {args.size}")
    if args.closed:
        raise InputError(".rpath files hold open paths; --closed is for .npy files")
    start = parse_cell(args.start, rows, cols) if args.start else None
    with progress_bar(disable=args.json or header.cells <= PROGRESS_CELLS, transient=True) as bar:
        task = bar.add_task("verify", total=2 * header.n_chunks)
        check = verify_rpath(
            args.file,
            start=start,
            moves=args.moves,
            jobs=args.jobs,
            scheduler=args.scheduler,
            on_progress=lambda done, total: bar.update(task, completed=done),
        )
    return rows, cols, check
