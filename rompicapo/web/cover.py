"""The exact-cover page's routes (/api/cover/...): Sudoku (solve, uniqueness, rating, the next
logical step, generation with symmetry and a difficulty), N-queens and polyomino packings one
solution at a time with their count, and an uploaded ``.dlx`` problem counted or listed in a
job with live progress.

Every puzzle comes in as text and is read by the family's text parsers (``Sudoku.parse``,
``parse_pieces``, ``parse_region``, ``parse_dlx``): no value a client sends is ever taken as a
file name. Sizes and times are capped here (see the constants). Every search runs in the job
manager's workers (`rompicapo.web.jobs`): solving, rating, hints, queens and one packing
in the quick lane; generating, counting packings and ``.dlx`` runs in a job worker.
"""

from __future__ import annotations

import contextlib
import secrets
from functools import lru_cache
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from rompicapo.common import InputError, StopRequested
from rompicapo.web.params import field, json_body, known, upload_text
from rompicapo.web.run import heavy, quick, start_job

__all__ = ["ROUTES"]


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


# The quick lane's cap for a Sudoku answer (a 16x16 with few clues can take seconds), and the
# solvers each call needs (see rompicapo.web.warmup: "queens" is the exact-cover engine too).
SUDOKU_SECONDS = 10.0
SUDOKU = {"time_limit": SUDOKU_SECONDS, "family": "sudoku"}
COVER = {"time_limit": POLY_SECONDS, "family": "queens"}


def _sudoku(body: dict[str, Any]) -> str:
    """The puzzle's text, checked (a cheap parse) before any worker is asked."""
    from rompicapo.cover.sudoku import Sudoku

    text = field(body, "puzzle", str, max_length=4000)
    puzzle = Sudoku.parse(text)
    if puzzle.size > SUDOKU_MAX_SIDE:
        raise InputError(f"the playground takes grids up to {SUDOKU_MAX_SIDE}x{SUDOKU_MAX_SIDE}")
    return text


def solve_sudoku(text: str) -> dict[str, Any]:
    """Solve (counting up to two solutions), with the verifier's word (a worker's task)."""
    from rompicapo.cover import sudoku
    from rompicapo.cover.sudoku import Sudoku

    puzzle = Sudoku.parse(text)
    r = sudoku.solve(puzzle, limit=2)
    out = r.to_dict()
    out["verified"] = r.verify() if r.solutions else None
    out["size"] = puzzle.size
    out["box"] = list(puzzle.box)
    return out


def rate_sudoku(text: str) -> Any:
    from rompicapo.cover import sudoku

    return sudoku.rate(text, time_limit=SUDOKU_SECONDS)


def hint_sudoku(text: str) -> dict[str, Any]:
    from rompicapo.cover.sudoku import Sudoku
    from rompicapo.cover.sudoku_hint import next_step

    puzzle = Sudoku.parse(text)
    step = next_step([list(row) for row in puzzle.grid], puzzle.box)
    if step is None:
        return {
            "kind": None,
            "explanation": "no single or locked candidate applies here: the next step "
            "needs a harder technique (or the puzzle is already solved)",
        }
    return step.to_dict()


async def sudoku_solve(request: Request) -> JSONResponse:
    """Solve a Sudoku (any box size): the solution and whether it is unique."""
    text = _sudoku(known(await json_body(request), "puzzle"))
    return JSONResponse(await quick(request, solve_sudoku, text, **SUDOKU))


async def sudoku_rate(request: Request) -> JSONResponse:
    """How hard a Sudoku is, by the techniques a person needs."""
    text = _sudoku(known(await json_body(request), "puzzle"))
    return JSONResponse(await quick(request, rate_sudoku, text, **SUDOKU))


async def sudoku_hint(request: Request) -> JSONResponse:
    """The next step a person can take, and why."""
    text = _sudoku(known(await json_body(request), "puzzle"))
    return JSONResponse(await quick(request, hint_sudoku, text, **SUDOKU))


def generate_sudoku(box: str, symmetric: bool, difficulty: str, seed: int) -> dict[str, Any]:
    """A puzzle of the wanted difficulty (``sudoku.generate``'s own search), checked (a job
    worker's task)."""
    from rompicapo.cover import sudoku

    wanted = None if difficulty == "any" else difficulty
    r = sudoku.generate(box=box, symmetric=symmetric, seed=seed, difficulty=wanted,
                        time_limit=GENERATE_SECONDS)  # fmt: skip
    out = r.to_dict()
    out["wanted"] = difficulty
    out["found"] = difficulty in ("any", r.rating)
    out["verified"] = r.verify()
    out["size"] = r.puzzle.size
    out["box"] = list(r.puzzle.box)
    return out


async def sudoku_generate(request: Request) -> JSONResponse:
    """A new puzzle with a unique solution, of the box size and difficulty asked."""
    body = known(await json_body(request), "box", "symmetric", "difficulty", "seed")
    box = field(body, "box", str, "3x3", choices=("2x2", "2x3", "3x3", "3x4", "4x4"))
    symmetric = field(body, "symmetric", bool, False)
    difficulty = field(body, "difficulty", str, "any", choices=DIFFICULTIES)
    seed = field(body, "seed", int, None, minimum=-(2**62), maximum=2**62)
    if box == "4x4" and difficulty != "any":
        raise InputError("16x16 puzzles are generated without a wanted difficulty")
    if seed is None:  # a seed the page can show, so the puzzle can be made again
        seed = secrets.randbelow(10**9)
    return JSONResponse(await heavy(request, generate_sudoku, box, symmetric, difficulty, seed,
                                    time_limit=GENERATE_SECONDS * 2, family="sudoku"))  # fmt: skip


# --------------------------------------------------------------------------------------------
# N-queens and polyominoes
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _queens_count(n: int) -> int:
    from rompicapo.cover import queens

    return queens(n, jobs=1).count


def queens_solution(n: int, index: int) -> dict[str, Any]:
    """Solution ``index`` of ``n`` queens, checked, with the count (a worker's task)."""
    from rompicapo.cover import queens
    from rompicapo.cover.verify import queens_ok

    r = queens(n, limit=index + 1, jobs=1)
    if len(r.placements) <= index:
        raise InputError(f"{n} queens have only {len(r.placements)} solutions")
    cols = r.placements[index]
    total = _queens_count(n) if n <= QUEENS_COUNT_MAX else None
    return {"n": n, "index": index, "columns": cols, "count": total,
            "verified": queens_ok(n, cols)}  # fmt: skip


async def queens_route(request: Request) -> JSONResponse:
    """Solution ``index`` (from 0) of ``n`` queens, checked."""
    body = known(await json_body(request), "n", "index")
    n = field(body, "n", int, 8, minimum=1, maximum=QUEENS_MAX)
    index = field(body, "index", int, 0, minimum=0, maximum=POLY_MAX_INDEX)
    return JSONResponse(await quick(request, queens_solution, n, index, **COVER))


def _packing_input(body: dict[str, Any]) -> tuple[str, str]:
    """The pieces' name and the region's text, checked (cheap parses) before a worker is
    asked."""
    from rompicapo.cover.polyomino import PIECE_SETS, parse_region

    pieces = field(body, "pieces", str, "pentominoes", choices=tuple(PIECE_SETS))
    region_text = field(body, "region", str, "6x10", max_length=2000).replace("/", "\n")
    if len(parse_region(region_text)) > POLY_MAX_CELLS:
        raise InputError(f"the playground packs regions up to {POLY_MAX_CELLS} cells")
    return pieces, region_text


def packing(pieces: str, region_text: str, index: int) -> dict[str, Any]:
    """Packing ``index`` of the region, checked (a worker's task)."""
    from rompicapo.cover import pack
    from rompicapo.cover.polyomino import parse_pieces, parse_region
    from rompicapo.cover.verify import tiling_ok

    shapes, region = parse_pieces(pieces), parse_region(region_text)
    r = pack(shapes, region, symmetry=False, limit=index + 1, jobs=1,
             time_limit=POLY_SECONDS)  # fmt: skip
    drawings = r.drawings
    if len(drawings) <= index:
        more = "" if r.complete else f" within {POLY_SECONDS:g} s"
        raise InputError(f"found only {len(drawings)} packings{more}")
    drawing = drawings[index]
    return {"index": index, "drawing": drawing, "verified": tiling_ok(shapes, region, drawing)}


def count_packings(pieces: str, region_text: str) -> dict[str, Any]:
    from rompicapo.cover import pack
    from rompicapo.cover.polyomino import parse_pieces, parse_region

    r = pack(parse_pieces(pieces), parse_region(region_text), symmetry=True, jobs=1,
             time_limit=POLY_SECONDS)  # fmt: skip
    return {"count": r.total, "complete": r.complete, "stopped": r.stopped,
            "symmetry_factor": r.packing.symmetry_factor, "seconds": r.solve_seconds}  # fmt: skip


async def polyomino_route(request: Request) -> JSONResponse:
    """The ``index``-th packing of the pieces into the region."""
    body = known(await json_body(request), "pieces", "region", "index")
    pieces, region = _packing_input(body)
    index = field(body, "index", int, 0, minimum=0, maximum=POLY_MAX_INDEX)
    return JSONResponse(await quick(request, packing, pieces, region, index, **COVER))


async def polyomino_count(request: Request) -> JSONResponse:
    """A job counting every packing of the pieces into the region."""
    pieces, region = _packing_input(known(await json_body(request), "pieces", "region"))
    return JSONResponse(await heavy(request, count_packings, pieces, region, **COVER))


# --------------------------------------------------------------------------------------------
# .dlx uploads
# --------------------------------------------------------------------------------------------


def run_dlx(progress: Any, text: str, mode: str, limit: int, seconds: float) -> Any:
    """Count or list the solutions of an uploaded problem (a job). A Stop is honoured from the
    search's first report after its start: the search then returns its partial result itself
    (its ``to_dict()``, solutions kept), as on Ctrl-C."""
    from rompicapo.cover import count, parse_dlx, solve

    problem = parse_dlx(text, source="upload.dlx")

    def relay(event: Any) -> None:
        if event.kind == "start":  # before the search runs: nothing to keep yet
            with contextlib.suppress(StopRequested):
                progress(event)
            return
        progress(event)

    if mode == "count":
        return count(problem, jobs=1, time_limit=seconds, progress=relay)
    return solve(problem, limit=limit, time_limit=seconds, progress=relay)


def check_dlx(text: str) -> int:
    """Parse an uploaded problem (a worker's task): InputError naming the line, or its
    number of options."""
    from rompicapo.cover import parse_dlx

    return len(parse_dlx(text, source="upload.dlx").options)


async def dlx_job(request: Request) -> JSONResponse:
    """``POST /api/cover/dlx?mode=count|list&limit=..&time_limit=..`` with the file as the raw
    body: a job counting (exact, one worker) or listing solutions. The file is parsed first
    (a bad one is a 400 naming its line), then searched in a job."""
    q = known(dict(request.query_params), "mode", "limit", "time_limit")
    for key in ("limit", "time_limit"):
        if key in q:
            try:
                q[key] = float(q[key]) if key == "time_limit" else int(q[key])
            except ValueError:
                raise InputError(f"{key} must be a number") from None
    mode = field(q, "mode", str, "count", choices=("count", "list"))
    limit = field(q, "limit", int, 10, minimum=1, maximum=DLX_MAX_LIST)
    seconds = field(q, "time_limit", float, 30.0, minimum=0.1, maximum=DLX_MAX_SECONDS)
    text = await upload_text(request, max_bytes=DLX_MAX_BYTES)
    await quick(request, check_dlx, text, time_limit=DLX_MAX_SECONDS)
    return start_job(request, f"cover-dlx-{mode}", run_dlx, text, mode, limit, seconds,
                     time_limit=seconds, family="queens")  # fmt: skip


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
