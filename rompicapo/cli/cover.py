"""``rompicapo cover | sudoku | queens | polyomino``: the exact-cover family's commands.

Thin shells over :mod:`rompicapo.cover`: parse, call one API function, print the answer as a
person writes it (Knuth's option lines, a Sudoku grid, a board, a tiling drawn with letters)
or, with ``--json``, one JSON object.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rompicapo.common import InputError, dumps_json

__all__ = ["register"]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer seed, got {text!r}") from None


def register(subparsers) -> None:
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
    mode.add_argument("--limit", type=_positive, metavar="K", help="print at most K solutions")
    mode.add_argument("--random", type=_seed, metavar="SEED", help="print a random solution")
    p.add_argument("--progress", action="store_true", help="progress bar and estimate on stderr")
    p.add_argument("--jobs", type=_positive, default=1, metavar="N", help="count with N threads")
    p.add_argument(
        "--processes", action="store_true", help="with --jobs: worker processes, not threads"
    )
    p.add_argument("--scheduler", metavar="ADDRESS", help="count on a Dask cluster")
    p.add_argument("--time-limit", type=float, metavar="SECONDS", help="stop after this long")
    p.add_argument(
        "--engine",
        choices=["auto", "links", "cells", "m"],
        default="auto",
        help="auto (dancing cells or links, by the problem's shape; links with colours, M with "
        "multiplicities), links, cells, m",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_cover)

    q = subparsers.add_parser("queens", help="n queens: count or list the placements")
    q.add_argument("n", type=_positive, help="board size")
    qm = q.add_mutually_exclusive_group()
    qm.add_argument("--count", action="store_true", help="count the solutions (default)")
    qm.add_argument("--list", type=_positive, metavar="K", help="draw the first K solutions")
    q.add_argument("--jobs", type=_positive, default=1, metavar="N", help="count with N threads")
    q.add_argument("--json", action="store_true", help="print one JSON object")
    q.set_defaults(handler=_queens)

    y = subparsers.add_parser(
        "polyomino", help="pack polyominoes into a region (pentominoes in a 6x10 box, ...)"
    )
    y.add_argument(
        "--pieces",
        default="pentominoes",
        help="pentominoes, tetrominoes, a file or a drawing (one letter per piece)",
    )
    y.add_argument("--region", default="6x10", help="RxC, a file, or a drawing of the cells")
    ym = y.add_mutually_exclusive_group()
    ym.add_argument("--count", action="store_true", help="count the packings (default)")
    ym.add_argument("--list", type=_positive, metavar="K", help="draw the first K packings")
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
    y.add_argument("--jobs", type=_positive, default=1, metavar="N", help="count with N threads")
    y.add_argument("--scheduler", metavar="ADDRESS", help="count on a Dask cluster")
    y.add_argument("--json", action="store_true", help="print one JSON object")
    y.set_defaults(handler=_polyomino)

    _register_sudoku(subparsers)


# --------------------------------------------------------------------------------------------
# cover
# --------------------------------------------------------------------------------------------


def _read_problem(path: str):
    from rompicapo.cover import parse_dlx, read_dlx

    if path == "-":
        return parse_dlx(sys.stdin.read(), source="<stdin>")
    return read_dlx(path)


def _cover(args: argparse.Namespace) -> int:
    from rompicapo.cover import count, solve

    problem = _read_problem(args.file)
    for line in problem.dropped_lines:
        print(f"{args.file}:{line}: option ignored (no primary items)", file=sys.stderr)
    listing = args.first or args.all or args.limit is not None or args.random is not None
    if (args.jobs > 1 or args.scheduler) and listing:
        raise InputError("--jobs and --scheduler apply to --count only")
    bar = None
    callback = None
    if args.progress:
        from rompicapo.common import progress_bar

        bar = progress_bar()
        bar.start()
        task = bar.add_task("searching", total=1000)

        def callback(fraction: float, found: int) -> None:
            bar.update(task, completed=int(1000 * fraction), description=f"{found} solutions")

    try:
        if listing:
            limit = 1 if (args.first or args.random is not None) else args.limit
            result = solve(
                problem,
                limit=None if args.all else limit,
                seed=args.random,
                time_limit=args.time_limit,
                progress=callback,
                engine=args.engine,
            )
        else:
            result = count(
                problem,
                jobs=args.jobs,
                scheduler=args.scheduler,
                processes=args.processes,
                time_limit=args.time_limit,
                progress=callback,
                engine=args.engine,
            )
    finally:
        if bar is not None:
            bar.stop()
    if not result.verify():  # pragma: no cover - a solver bug, never expected
        raise InputError("internal error: a solution failed verification")
    if args.json:
        out = result.as_dict()
        out["file"] = args.file
        out["kept"] = [[problem.describe(k) for k in s] for s in result.solutions]
        print(dumps_json(out))
        return 0
    for n, sol in enumerate(result.solutions, start=1):
        print(f"solution {n}:")
        for k in sorted(sol):
            print(f"  {problem.describe(k)}")
    c = result.counts
    if result.complete:
        exact = ""
    elif result.stopped == "limit":
        exact = " (stopped at the limit)"
    else:
        exact = f" (stopped by the {result.stopped} limit: a lower bound)"
    print(
        f"{result.count} solution{'s' * (result.count != 1)}{exact}; "
        f"{c.get('nodes', 0):,} nodes, {c.get('updates', 0):,} updates; "
        f"{result.solve_seconds:.3f} s"
        + (f" with {result.jobs} workers" if result.jobs > 1 else "")
    )
    return 0


# --------------------------------------------------------------------------------------------
# queens, polyomino
# --------------------------------------------------------------------------------------------


def _queens(args: argparse.Namespace) -> int:
    from rompicapo.cover.queens import draw_queens, queens

    if args.list:
        result = queens(args.n, limit=args.list, keep=args.list)
    else:
        result = queens(args.n, jobs=args.jobs)
    if not result.verify():  # pragma: no cover
        raise InputError("internal error: a placement failed verification")
    if args.json:
        print(
            dumps_json(
                {
                    "n": args.n,
                    "solutions": result.count,
                    "placements": result.placements,
                    "nodes": result.counts.get("nodes", 0),
                    "solve_seconds": round(result.solve_seconds, 6),
                }
            )
        )
        return 0
    for k, cols in enumerate(result.placements, start=1):
        print(f"solution {k}: columns {' '.join(str(c + 1) for c in cols)}")
        print(draw_queens(args.n, cols))
        print()
    noun = "solutions" if result.count != 1 else "solution"
    what = "first " if args.list else ""
    print(f"{what}{result.count} {noun} of {args.n} queens; {result.solve_seconds:.3f} s")
    return 0


def _text_or_file(value: str) -> str:
    """A file's text, or the value itself with ``/`` standing for a line break."""
    path = Path(value)
    if "\n" not in value and len(value) < 256 and path.is_file():
        return path.read_text()
    return value.replace("/", "\n")


def _polyomino(args: argparse.Namespace) -> int:
    from rompicapo.cover.polyomino import pack

    pieces = _text_or_file(args.pieces)
    region = _text_or_file(args.region)
    if args.list:
        result = pack(
            pieces, region, orientations=args.orientations, symmetry=not args.no_symmetry,
            limit=args.list, keep=args.list,
        )  # fmt: skip
    else:
        result = pack(
            pieces, region, orientations=args.orientations, symmetry=not args.no_symmetry,
            jobs=args.jobs, scheduler=args.scheduler,
        )  # fmt: skip
    if not result.verify():  # pragma: no cover
        raise InputError("internal error: a packing failed verification")
    factor = result.packing.symmetry_factor
    if args.json:
        print(
            dumps_json(
                {
                    "pieces": len(result.packing.pieces),
                    "cells": len(result.packing.region),
                    "options": len(result.packing.problem.options),
                    "solutions": result.count,
                    "symmetry_factor": factor,
                    "total": result.total if not args.list else None,
                    "drawings": result.drawings,
                    "nodes": result.counts.get("nodes", 0),
                    "solve_seconds": round(result.solve_seconds, 6),
                }
            )
        )
        return 0
    for k, drawing in enumerate(result.drawings, start=1):
        print(f"packing {k}:")
        print(drawing)
        print()
    if args.list:
        print(f"{result.count} packing{'s' * (result.count != 1)} shown")
    elif factor > 1:
        print(
            f"{result.total} packings ({result.count} up to the region's {factor} symmetries, "
            f"piece {result.packing.restricted_piece} restricted); {result.solve_seconds:.3f} s"
        )
    else:
        print(f"{result.count} packings; {result.solve_seconds:.3f} s")
    return 0


# --------------------------------------------------------------------------------------------
# sudoku
# --------------------------------------------------------------------------------------------


def _register_sudoku(subparsers) -> None:
    s = subparsers.add_parser("sudoku", help="solve, generate and rate Sudoku puzzles")
    sub = s.add_subparsers(dest="sudoku_command", metavar="ACTION", parser_class=type(s))
    sub.required = True

    solve_p = sub.add_parser("solve", help="solve a puzzle, or every puzzle of a file")
    solve_p.add_argument(
        "puzzle", metavar="PUZZLE|FILE", help="81 characters (. for empty) or a file"
    )
    solve_p.add_argument(
        "--max-solutions", type=_positive, default=2, metavar="K",
        help="stop after K solutions (2 = uniqueness check, the default)",
    )  # fmt: skip
    _sudoku_shape_args(solve_p)
    solve_p.add_argument("--json", action="store_true", help="print JSON")
    solve_p.set_defaults(handler=_sudoku_solve)

    gen = sub.add_parser("generate", help="generate a puzzle with a unique solution, minimal")
    gen.add_argument("--box", default="3x3", help="box size RxC (default 3x3, a 9x9 grid)")
    gen.add_argument("--clues", type=_positive, metavar="N", help="aim at N clues (or fewer)")
    gen.add_argument("--symmetric", action="store_true", help="clues symmetric under 180°")
    gen.add_argument("--seed", type=_seed, default=None, metavar="S", help="random seed")
    gen.add_argument("--json", action="store_true", help="print JSON")
    gen.set_defaults(handler=_sudoku_generate)

    rate = sub.add_parser("rate", help="rate the difficulty of a puzzle, or of every puzzle")
    rate.add_argument("puzzle", metavar="PUZZLE|FILE", help="81 characters (. for empty) or a file")
    _sudoku_shape_args(rate)
    rate.add_argument("--json", action="store_true", help="print JSON")
    rate.set_defaults(handler=_sudoku_rate)


def _sudoku_shape_args(p) -> None:
    p.add_argument("--box", default=None, help="box size RxC (default: from the puzzle length)")
    p.add_argument("--diagonals", action="store_true", help="both main diagonals hold 1..N too")
    p.add_argument("--regions", metavar="LAYOUT", help="jigsaw regions: one letter per cell")


def _puzzles_from(arg: str) -> list[str]:
    path = Path(arg)
    if len(arg) < 4096 and path.is_file():
        text = path.read_text()
        lines = [ln.strip() for ln in text.splitlines()]
        lines = [ln for ln in lines if ln and not ln.startswith("#")]
        if lines and all(len(ln) == len(lines[0]) for ln in lines) and len(lines) > 1:
            short = len(lines[0]) < 16
            return ["\n".join(lines)] if short else lines
        return ["\n".join(lines)]
    return [arg]


def _sudoku_solve(args: argparse.Namespace) -> int:
    import numpy as np

    from rompicapo.cover import sudoku

    classic = args.box in (None, "3x3") and not args.diagonals and args.regions is None
    texts = _puzzles_from(args.puzzle)
    if classic and len(texts) > 1 and all(len(t) == 81 for t in texts):
        # a file of 81-character lines: parsed with numpy, solved in one kernel call
        puzzles = sudoku.read_puzzles(args.puzzle)
    else:
        puzzles = [sudoku.Sudoku.parse(t, box=args.box, diagonals=args.diagonals,
                                       regions=args.regions) for t in texts]  # fmt: skip
    if len(puzzles) > 1 and (
        isinstance(puzzles, np.ndarray) or all(p.is_classic9 for p in puzzles)
    ):
        batch = sudoku.solve_batch(puzzles, max_solutions=args.max_solutions)
        if not batch.verify():  # pragma: no cover
            raise InputError("internal error: a solution failed verification")
        if args.json:
            print(dumps_json(batch.as_dict()))
        else:
            for grid, n in zip(batch.solution_strings(), batch.counts_per_puzzle, strict=True):
                print(f"{grid} {n}{'+' if n >= args.max_solutions else ''}")
            print(
                f"{len(puzzles)} puzzles: {batch.summary()}; {batch.solve_seconds:.3f} s "
                f"({batch.puzzles_per_second:,.0f} puzzles/s)",
                file=sys.stderr,
            )
        return 0
    results = [sudoku.solve(p, max_solutions=args.max_solutions) for p in puzzles]
    for r in results:
        if not r.verify():  # pragma: no cover
            raise InputError("internal error: a solution failed verification")
    if args.json:
        print(
            dumps_json([r.as_dict() for r in results] if len(results) > 1 else results[0].as_dict())
        )
        return 0
    for r in results:
        print(r.report(args.max_solutions))
    return 0


def _sudoku_generate(args: argparse.Namespace) -> int:
    from rompicapo.cover import sudoku

    box = sudoku.parse_box(args.box)
    result = sudoku.generate(box=box, clues=args.clues, symmetric=args.symmetric, seed=args.seed)
    if not result.verify():  # pragma: no cover
        raise InputError("internal error: the generated puzzle failed verification")
    if args.json:
        print(dumps_json(result.as_dict()))
        return 0
    print(result.puzzle.pretty())
    print()
    print(result.puzzle.line())
    print(
        f"{result.puzzle.clue_count} clues, unique solution, "
        f"{'minimal' if result.minimal else 'not minimal'}"
        f"{', symmetric' if args.symmetric else ''}; rating {result.rating}; "
        f"{result.solve_seconds * 1000:.1f} ms"
    )
    return 0


def _sudoku_rate(args: argparse.Namespace) -> int:
    from rompicapo.cover import sudoku

    puzzles = [sudoku.Sudoku.parse(t, box=args.box, diagonals=args.diagonals, regions=args.regions)
               for t in _puzzles_from(args.puzzle)]  # fmt: skip
    ratings = [sudoku.rate(p) for p in puzzles]
    if args.json:
        out = [r.as_dict() for r in ratings]
        print(dumps_json(out if len(out) > 1 else out[0]))
        return 0
    for p, r in zip(puzzles, ratings, strict=True):
        print(f"{p.line()} {r.label} (guesses {r.guesses}, dlx nodes {r.nodes})")
    return 0
