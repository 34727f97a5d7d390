"""The exact-cover page's routes (/api/cover/...): Sudoku (solve, uniqueness, rating, the next
logical step, generation with symmetry and a difficulty), N-queens and polyomino packings one
solution at a time with their count, and an uploaded ``.dlx`` problem counted or listed in a
job with live progress.

Every puzzle comes in as text and is read by the family's text parsers (``Sudoku.parse``,
``parse_pieces``, ``parse_region``, ``parse_dlx``): no value a client sends is ever taken as a
file name. Sizes and times are capped here (see the constants).
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from rompicapo.common import InputError, StopRequested
from rompicapo.web.params import field, json_body, upload_text

__all__ = ["ROUTES"]


def _known(body: dict[str, Any], *names: str) -> dict[str, Any]:
    """``body`` when it names only ``names``: a field the route does not know is a mistake
    (a typo would otherwise be ignored silently), so it is a 400 naming it."""
    extra = sorted(set(body) - set(names))
    if extra:
        takes = ", ".join(names)
        raise InputError(f"unknown field {str(extra[0])[:40]!r}; this route takes {takes}")
    return body


# Sudoku: grids up to 16x16 on the page (25x25 generation takes minutes).
SUDOKU_MAX_SIDE = 16
# Generation with a wanted difficulty tries new seeds for at most this long.
GENERATE_SECONDS = 12.0
DIFFICULTIES = ("any", "easy", "medium", "hard", "fiendish")
# N-queens: solutions listed one at a time up to this n; counted up to QUEENS_COUNT_MAX.
QUEENS_MAX = 14
QUEENS_COUNT_MAX = 12
# Polyomino packings: regions up to this many cells, a packing index up to this, counts cut
# at this many seconds (then a lower bound).
POLY_MAX_CELLS = 200
POLY_MAX_INDEX = 1000
POLY_SECONDS = 10.0
# An uploaded .dlx problem: at most this many bytes, jobs at most this long.
DLX_MAX_BYTES = 2 * 1024 * 1024
DLX_MAX_SECONDS = 60.0
DLX_MAX_LIST = 1000


def _sudoku(body: dict[str, Any]):
    from rompicapo.cover.sudoku import Sudoku

    text = field(body, "puzzle", str, max_length=4000)
    puzzle = Sudoku.parse(text)
    if puzzle.size > SUDOKU_MAX_SIDE:
        raise InputError(f"the playground takes grids up to {SUDOKU_MAX_SIDE}x{SUDOKU_MAX_SIDE}")
    return puzzle


async def sudoku_solve(request: Request) -> JSONResponse:
    from rompicapo.cover import sudoku

    puzzle = _sudoku(_known(await json_body(request), "puzzle"))
    r = await run_in_threadpool(sudoku.solve, puzzle, limit=2)
    out = r.to_dict()
    out["verified"] = r.verify() if r.solutions else None
    out["size"] = puzzle.size
    out["box"] = list(puzzle.box)
    return JSONResponse(out)


async def sudoku_rate(request: Request) -> JSONResponse:
    from rompicapo.cover import sudoku

    puzzle = _sudoku(_known(await json_body(request), "puzzle"))
    r = await run_in_threadpool(sudoku.rate, puzzle)
    return JSONResponse(r.to_dict())


async def sudoku_hint(request: Request) -> JSONResponse:
    from rompicapo.cover.sudoku_hint import next_step

    puzzle = _sudoku(_known(await json_body(request), "puzzle"))
    step = await run_in_threadpool(next_step, [list(row) for row in puzzle.grid], puzzle.box)
    if step is None:
        return JSONResponse(
            {
                "kind": None,
                "explanation": "no single or locked candidate applies here: the next step "
                "needs a harder technique (or the puzzle is already solved)",
            }
        )
    return JSONResponse(step.to_dict())


def _generate(box: str, symmetric: bool, difficulty: str, seed: int | None) -> dict[str, Any]:
    from rompicapo.cover import sudoku

    t0 = time.monotonic()
    tries = 0
    base = seed
    while True:
        tries += 1
        r = sudoku.generate(box=box, symmetric=symmetric, seed=base)
        if difficulty in ("any", r.rating) or time.monotonic() - t0 > GENERATE_SECONDS:
            break
        base = (r.seed or 0) + 1  # the next seed: reproducible from the first one
    out = r.to_dict()
    out["tries"] = tries
    out["wanted"] = difficulty
    out["found"] = difficulty in ("any", r.rating)
    out["verified"] = r.verify()
    out["size"] = r.puzzle.size
    out["box"] = list(r.puzzle.box)
    return out


async def sudoku_generate(request: Request) -> JSONResponse:
    body = _known(await json_body(request), "box", "symmetric", "difficulty", "seed")
    box = field(body, "box", str, "3x3", choices=("2x2", "2x3", "3x3", "3x4", "4x4"))
    symmetric = field(body, "symmetric", bool, False)
    difficulty = field(body, "difficulty", str, "any", choices=DIFFICULTIES)
    seed = field(body, "seed", int, None, minimum=-(2**62), maximum=2**62)
    if box == "4x4" and difficulty != "any":
        raise InputError("16x16 puzzles are generated without a wanted difficulty")
    return JSONResponse(await run_in_threadpool(_generate, box, symmetric, difficulty, seed))


# --------------------------------------------------------------------------------------------
# N-queens and polyominoes
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _queens_count(n: int) -> int:
    from rompicapo.cover import queens

    return queens(n, jobs=1).count


async def queens_route(request: Request) -> JSONResponse:
    from rompicapo.cover import queens
    from rompicapo.cover.verify import queens_ok

    body = _known(await json_body(request), "n", "index")
    n = field(body, "n", int, 8, minimum=1, maximum=QUEENS_MAX)
    index = field(body, "index", int, 0, minimum=0, maximum=POLY_MAX_INDEX)
    r = await run_in_threadpool(lambda: queens(n, limit=index + 1, keep=index + 1, jobs=1))
    if len(r.placements) <= index:
        raise InputError(f"{n} queens have only {len(r.placements)} solutions")
    cols = r.placements[index]
    total = await run_in_threadpool(_queens_count, n) if n <= QUEENS_COUNT_MAX else None
    return JSONResponse(
        {
            "n": n,
            "index": index,
            "columns": cols,
            "count": total,
            "verified": queens_ok(n, cols),
        }
    )


def _packing_input(body: dict[str, Any]):
    from rompicapo.cover.polyomino import PIECE_SETS, parse_pieces, parse_region

    pieces = field(body, "pieces", str, "pentominoes", choices=tuple(PIECE_SETS))
    region_text = field(body, "region", str, "6x10", max_length=2000)
    region = parse_region(region_text.replace("/", "\n"))
    if len(region) > POLY_MAX_CELLS:
        raise InputError(f"the playground packs regions up to {POLY_MAX_CELLS} cells")
    return parse_pieces(pieces), region


async def polyomino_route(request: Request) -> JSONResponse:
    from rompicapo.cover import pack
    from rompicapo.cover.verify import tiling_ok

    body = _known(await json_body(request), "pieces", "region", "index")
    shapes, region = _packing_input(body)
    index = field(body, "index", int, 0, minimum=0, maximum=POLY_MAX_INDEX)

    def run():
        return pack(
            shapes, region, symmetry=False, limit=index + 1, keep=index + 1, jobs=1,
            time_limit=POLY_SECONDS,
        )  # fmt: skip

    r = await run_in_threadpool(run)
    drawings = r.drawings
    if len(drawings) <= index:
        more = "" if r.complete else f" within {POLY_SECONDS:g} s"
        raise InputError(f"found only {len(drawings)} packings{more}")
    drawing = drawings[index]
    return JSONResponse(
        {"index": index, "drawing": drawing, "verified": tiling_ok(shapes, region, drawing)}
    )


async def polyomino_count(request: Request) -> JSONResponse:
    from rompicapo.cover import pack

    body = _known(await json_body(request), "pieces", "region")
    shapes, region = _packing_input(body)

    def run():
        return pack(shapes, region, symmetry=True, jobs=1, time_limit=POLY_SECONDS)

    r = await run_in_threadpool(run)
    return JSONResponse(
        {
            "count": r.total,
            "complete": r.complete,
            "stopped": r.stopped,
            "symmetry_factor": r.packing.symmetry_factor,
            "seconds": r.solve_seconds,
        }
    )


# --------------------------------------------------------------------------------------------
# .dlx uploads
# --------------------------------------------------------------------------------------------


async def dlx_job(request: Request) -> JSONResponse:
    """``POST /api/cover/dlx?tab=..&mode=count|list&limit=..&time_limit=..`` with the file as
    the raw body: a job counting (exact, one worker) or listing solutions."""
    from rompicapo.cover import count, parse_dlx, solve

    q = _known(dict(request.query_params), "tab", "mode", "limit", "time_limit")
    for key in ("limit", "time_limit"):
        if key in q:
            try:
                q[key] = float(q[key]) if key == "time_limit" else int(q[key])
            except ValueError:
                raise InputError(f"{key} must be a number") from None
    mode = field(q, "mode", str, "count", choices=("count", "list"))
    limit = field(q, "limit", int, 10, minimum=1, maximum=DLX_MAX_LIST)
    seconds = field(q, "time_limit", float, 30.0, minimum=0.1, maximum=DLX_MAX_SECONDS)
    tab = field(q, "tab", str, max_length=64)
    text = await upload_text(request, max_bytes=DLX_MAX_BYTES)
    problem = await run_in_threadpool(parse_dlx, text, source="upload.dlx")

    def run(progress):
        last: dict[str, Any] = {}

        def relay(event):
            last["event"] = event
            progress(event)

        t0 = time.perf_counter()
        try:
            if mode == "count":
                return count(problem, jobs=1, time_limit=seconds, progress=relay)
            return solve(problem, limit=limit, time_limit=seconds, progress=relay)
        except StopRequested:
            # A stop in the search returns its partial result (solutions kept); only a stop
            # raised by the very first report, before the search began, comes through here:
            # the last report's counts (if any) are the lower bound the page shows.
            counts = dict(last["event"].counts) if "event" in last else {}
            return {
                "count": int(counts.get("solutions", 0)),
                "solutions": int(counts.get("solutions", 0)),
                "complete": False,
                "stopped": "interrupted",
                "nodes": int(counts.get("nodes", 0)),
                "counts": counts,
                "kept": [],
                "algorithm": "",
                "solve_seconds": time.perf_counter() - t0,
                "notes": ["stopped: the count is the last progress report's (a lower bound)"],
            }

    job = request.app.state.jobs.start(tab, f"cover-dlx-{mode}", run)
    return JSONResponse(job.summary())


ROUTES = [
    Route("/sudoku/solve", sudoku_solve, methods=["POST"]),
    Route("/sudoku/rate", sudoku_rate, methods=["POST"]),
    Route("/sudoku/hint", sudoku_hint, methods=["POST"]),
    Route("/sudoku/generate", sudoku_generate, methods=["POST"]),
    Route("/queens", queens_route, methods=["POST"]),
    Route("/polyomino", polyomino_route, methods=["POST"]),
    Route("/polyomino/count", polyomino_count, methods=["POST"]),
    Route("/dlx", dlx_job, methods=["POST"]),
]
