"""The paths page's routes (/api/paths/...): the paper game, maps of boards of any size, counts.

- ``prefix``: the paper game's hint and "still possible?" (:func:`rompicapo.paths.prefix.
  complete_prefix`, time-limited);
- ``board``, ``tile``, ``cell``, ``step``, ``window``: a board from a start. From (0, 0) on
  boards with both sides >= 5 the block construction answers any cell or step in O(1)
  (:class:`rompicapo.paths.blocks.BlockPath`), so a 10^6 x 10^6 map is drawn tile by tile on
  demand; other starts use the greedy constructor's path (boards up to
  :data:`GREEDY_MAX_CELLS`), kept for the few boards last asked;
- ``count``: the per-start counts of a small board as a job with progress.

A tile is a 256 x 256 PNG of zoom ``z`` (a cell is 2^z pixels; z < 0: a pixel is 2^-z cells),
coloured by the step number (start blue to end red) with a lightness sawtooth along the steps,
and the cell grid when cells are big.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from typing import Any

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from rompicapo.common import InputError, check_int
from rompicapo.web.params import field, json_body

__all__ = ["ROUTES", "Board", "get_board", "render_tile"]

TILE = 256
MAX_SIDE = 10_000_000  # steps stay below 2^53: exact as JavaScript numbers
GREEDY_MAX_CELLS = 1_000_000
GREEDY_TIME_LIMIT = 30.0
GRID_MAX_CELLS = 900  # the numbered grid is sent whole up to 30 x 30
WINDOW_MAX_CELLS = 64 * 64
COUNT_MAX_CELLS = 36
PREFIX_MAX_SECONDS = 10.0
Z_MIN, Z_MAX = -30, 6


def _lut() -> np.ndarray:
    """256 colours from blue (start) through green and yellow to red (end)."""
    stops = np.array(
        [[49, 54, 149], [69, 117, 180], [116, 173, 209], [171, 217, 233], [254, 224, 144],
         [253, 174, 97], [244, 109, 67], [215, 48, 39], [165, 0, 38]], dtype=np.float64,
    )  # fmt: skip
    x = np.linspace(0, len(stops) - 1, 256)
    i = np.minimum(x.astype(int), len(stops) - 2)
    f = (x - i)[:, None]
    return np.round(stops[i] * (1 - f) + stops[i + 1] * f).astype(np.uint8)


LUT = _lut()
BACKGROUND = np.array([238, 240, 244], np.uint8)


class Board:
    """A board's path from a start, as random access: ``steps(rows, cols)`` (arrays) and
    ``cell(step)``. Block construction from (0, 0) when it applies, else a greedy path."""

    def __init__(self, rows: int, cols: int, start: tuple[int, int]) -> None:
        from rompicapo.paths.blocks import MIN_SIDE, BlockPath

        self.rows, self.cols, self.start = rows, cols, start
        self.cells = rows * cols
        self.grid: np.ndarray | None = None
        self.block: Any = None
        if start == (0, 0) and rows >= MIN_SIDE and cols >= MIN_SIDE:
            self.block = BlockPath(rows, cols)
            self.method = "blocks"
            self.end = self.block.cell_at(self.cells)
            return
        if self.cells > GREEDY_MAX_CELLS:
            raise InputError(
                f"a {rows:,}x{cols:,} board from {start} is too large for the greedy path here "
                f"(at most {GREEDY_MAX_CELLS:,} cells; from (0, 0) any board with sides >= 5)"
            )
        from rompicapo.paths import construct

        res = construct(rows, cols, start, time_limit=GREEDY_TIME_LIMIT, jobs=1)
        if not res.found:
            raise InputError(
                f"no path of the {rows}x{cols} board from {start}: {res.status}"
                + (f" ({res.proof})" if res.proof else "")
            )
        self.method = "greedy"
        self.grid = np.asarray(res.grid(), dtype=np.int64)
        last = int(np.argmax(self.grid))
        self.end = divmod(last, cols)

    def steps(self, rr: np.ndarray, cc: np.ndarray) -> np.ndarray:
        """Step numbers (1-based) of the cells ``(rr, cc)`` (arrays of one shape)."""
        if self.block is not None:
            return np.asarray(self.block.step_of(rr.ravel(), cc.ravel())).reshape(rr.shape)
        return self.grid[rr, cc]

    def cell(self, step: int) -> tuple[int, int]:
        if self.block is not None:
            return self.block.cell_at(step)
        r, c = np.nonzero(self.grid == step)
        return int(r[0]), int(c[0])

    def info(self) -> dict[str, Any]:
        out = {
            "rows": self.rows,
            "cols": self.cols,
            "cells": self.cells,
            "start": list(self.start),
            "end": list(self.end),
            "method": self.method,
        }
        if self.cells <= GRID_MAX_CELLS:
            rr, cc = np.indices((self.rows, self.cols))
            out["grid"] = self.steps(rr, cc).tolist()
        return out


_boards: OrderedDict[tuple[int, int, int, int], Board] = OrderedDict()
_boards_lock = threading.Lock()
_build_lock = threading.Lock()
BOARDS_KEPT = 4


def get_board(rows: int, cols: int, start: tuple[int, int]) -> Board:
    """The board from the cache, or built (at most :data:`BOARDS_KEPT` kept)."""
    key = (rows, cols, *start)
    with _boards_lock:
        if key in _boards:
            _boards.move_to_end(key)
            return _boards[key]
    with _build_lock:  # one greedy construction at a time
        with _boards_lock:
            if key in _boards:
                return _boards[key]
        board = Board(rows, cols, start)
        with _boards_lock:
            _boards[key] = board
            while len(_boards) > BOARDS_KEPT:
                _boards.popitem(last=False)
        return board


def _axis(first_pixel: int, z: int, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """Cells along one axis of a tile: (cell index per pixel, on-board mask)."""
    px = np.arange(first_pixel, first_pixel + TILE, dtype=np.int64)
    if z >= 0:
        cells = px >> z
    else:  # a pixel covers 2^-z cells: sample the one in its middle
        k = -z
        cells = (px << k) + (1 << (k - 1))
        cells = np.where(cells >= limit, px << k, cells)
    return cells, (cells >= 0) & (cells < limit)


def render_tile(board: Board, z: int, x: int, y: int) -> bytes:
    """The PNG of tile (x, y) at zoom z (see the module docstring)."""
    from PIL import Image

    cols, on_c = _axis(x * TILE, z, board.cols)
    rows, on_r = _axis(y * TILE, z, board.rows)
    img = np.empty((TILE, TILE, 3), np.uint8)
    img[:] = BACKGROUND
    ri, ci = np.nonzero(on_r)[0], np.nonzero(on_c)[0]
    if ri.size and ci.size:
        # distinct cells only (a big cell covers many pixels)
        ur, r_inv = np.unique(rows[ri], return_inverse=True)
        uc, c_inv = np.unique(cols[ci], return_inverse=True)
        rr, cc = np.meshgrid(ur, uc, indexing="ij")
        steps = board.steps(rr, cc)
        frac = (steps - 1) / max(1, board.cells - 1)
        colour = LUT[np.minimum((frac * 256).astype(np.int64), 255)]
        # the global colour changes too slowly to see the path on a big board: a sawtooth of
        # lightness along the steps shows its direction and bands at every zoom (a period of
        # 50 steps for big cells; coarser views a period spanning a few hundred pixels)
        period = 50 if z >= 1 else 1024 << -z
        phase = (steps % period) / period
        if z < 1:  # 8 levels: flat runs keep the PNG encoding fast where cells are pixels
            phase = np.floor(phase * 8) / 8
        shade = 0.66 + 0.34 * phase
        colour = (colour * shade[..., None]).astype(np.uint8)
        img[ri[0] : ri[-1] + 1, ci[0] : ci[-1] + 1] = colour[r_inv][:, c_inv]
        if z >= 3:  # the cell grid: darken the first pixel row and column of every cell
            edge = (1 << z) - 1
            line_r = ri[((y * TILE + ri) & edge) == 0]
            line_c = ci[((x * TILE + ci) & edge) == 0]
            block = img[ri[0] : ri[-1] + 1, ci[0] : ci[-1] + 1]
            block[line_r - ri[0]] = block[line_r - ri[0]] * 0.55
            block[:, line_c - ci[0]] = block[:, line_c - ci[0]] * 0.55
    buf = io.BytesIO()
    Image.fromarray(img, "RGB").save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


# ------------------------------------------------------------------ requests


def _board_args(get: Any) -> tuple[int, int, tuple[int, int]]:
    rows = check_int(get("rows"), "rows", minimum=1, maximum=MAX_SIDE)
    cols = check_int(get("cols"), "cols", minimum=1, maximum=MAX_SIDE)
    sr = check_int(get("sr") if get("sr") is not None else 0, "start row", minimum=0,
                   maximum=rows - 1)  # fmt: skip
    sc = check_int(get("sc") if get("sc") is not None else 0, "start column", minimum=0,
                   maximum=cols - 1)  # fmt: skip
    return rows, cols, (sr, sc)


def _query(request: Request) -> Any:
    params = request.query_params

    def get(name: str) -> Any:
        value = params.get(name)
        if value is not None and len(value) > 40:
            raise InputError(f"{name} is too long")
        if value is None and name in ("rows", "cols"):
            raise InputError(f"{name} is required")
        return value

    return get


def _body_get(body: dict[str, Any]) -> Any:
    def get(name: str) -> Any:
        value = body.get(name)
        if value is None and name in ("rows", "cols"):
            raise InputError(f"{name} is required")
        if isinstance(value, str) and len(value) > 40:
            raise InputError(f"{name} is too long")
        if isinstance(value, bool) or (value is not None and not isinstance(value, (int, str))):
            raise InputError(f"{name} must be an integer")
        return value

    return get


async def board(request: Request) -> JSONResponse:
    body = await json_body(request)
    rows, cols, start = _board_args(_body_get(body))
    b = await run_in_threadpool(get_board, rows, cols, start)
    return JSONResponse(b.info())


async def tile(request: Request) -> Response:
    get = _query(request)
    rows, cols, start = _board_args(get)
    z = check_int(get("z"), "z", minimum=Z_MIN, maximum=Z_MAX)
    x = check_int(get("x"), "x", minimum=0, maximum=1 << 40)
    y = check_int(get("y"), "y", minimum=0, maximum=1 << 40)
    b = await run_in_threadpool(get_board, rows, cols, start)
    png = await run_in_threadpool(render_tile, b, z, x, y)
    return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=3600"})


async def cell(request: Request) -> JSONResponse:
    """The cell visited at ``step``."""
    body = await json_body(request)
    rows, cols, start = _board_args(_body_get(body))
    step = check_int(_body_get(body)("step"), "step", minimum=1, maximum=rows * cols)
    b = await run_in_threadpool(get_board, rows, cols, start)
    r, c = b.cell(step)
    return JSONResponse({"step": step, "cell": [r, c]})


async def step(request: Request) -> JSONResponse:
    """The step at which cell ``(r, c)`` is visited."""
    body = await json_body(request)
    get = _body_get(body)
    rows, cols, start = _board_args(get)
    r = check_int(get("r"), "row", minimum=0, maximum=rows - 1)
    c = check_int(get("c"), "column", minimum=0, maximum=cols - 1)
    b = await run_in_threadpool(get_board, rows, cols, start)
    s = int(b.steps(np.array([r]), np.array([c]))[0])
    return JSONResponse({"step": s, "cell": [r, c]})


async def window(request: Request) -> JSONResponse:
    """The steps of a window of cells (rows r0.., cols c0..; at most 64 x 64): the map's
    numbers and path lines when zoomed in."""
    body = await json_body(request)
    get = _body_get(body)
    rows, cols, start = _board_args(get)
    r0 = check_int(get("r0"), "r0", minimum=0, maximum=rows - 1)
    c0 = check_int(get("c0"), "c0", minimum=0, maximum=cols - 1)
    h = check_int(get("h"), "h", minimum=1, maximum=64)
    w = check_int(get("w"), "w", minimum=1, maximum=64)
    h, w = min(h, rows - r0), min(w, cols - c0)
    b = await run_in_threadpool(get_board, rows, cols, start)
    rr, cc = np.indices((h, w))
    steps = b.steps(rr + r0, cc + c0)
    return JSONResponse({"r0": r0, "c0": c0, "steps": steps.tolist()})


async def prefix(request: Request) -> JSONResponse:
    """Hint / still possible?: complete the written cells within a time limit."""
    from rompicapo.paths.prefix import complete_prefix

    body = await json_body(request)
    rows = field(body, "rows", int, minimum=1, maximum=30)
    cols = field(body, "cols", int, minimum=1, maximum=30)
    cells = field(body, "prefix", list, max_length=900)
    seconds = field(body, "time_limit", float, 2.0, minimum=0.05, maximum=PREFIX_MAX_SECONDS)
    res = await run_in_threadpool(lambda: complete_prefix(rows, cols, cells, time_limit=seconds))
    out = {
        "status": res.status,
        "proof": res.proof,
        "path": [list(c) for c in res.path],
        "nodes": res.counts.get("nodes", 0),
        "seconds": res.solve_seconds,
    }
    if res.status == "found":
        out["verified"] = res.verify()
    return JSONResponse(out)


async def count(request: Request) -> JSONResponse:
    """The per-start counts of a small board, as a job with progress."""
    body = await json_body(request)
    rows = field(body, "rows", int, minimum=1, maximum=COUNT_MAX_CELLS)
    cols = field(body, "cols", int, minimum=1, maximum=COUNT_MAX_CELLS)
    tab = field(body, "tab", str, max_length=64)
    if rows * cols > COUNT_MAX_CELLS:
        raise InputError(
            f"counting live is for boards of at most {COUNT_MAX_CELLS} cells; "
            "7x7 is shown from the shipped result"
        )

    def run(progress):
        from rompicapo.paths import count_paths

        # one call: the count's own prefix jobs report progress (and a Stop raised from the
        # callback ends it between jobs, as Ctrl-C does)
        res = count_paths(rows, cols, jobs=1, progress=progress)
        table = res.table.tolist()
        return {"rows": rows, "cols": cols, "table": table, "total": int(res.count),
                "nodes": int(res.nodes), "source": "computed now"}  # fmt: skip

    job = request.app.state.jobs.start(tab, "paths-count", run)
    return JSONResponse(job.summary())


ROUTES = [
    Route("/board", board, methods=["POST"]),
    Route("/tile", tile, methods=["GET"]),
    Route("/cell", cell, methods=["POST"]),
    Route("/step", step, methods=["POST"]),
    Route("/window", window, methods=["POST"]),
    Route("/prefix", prefix, methods=["POST"]),
    Route("/count", count, methods=["POST"]),
]
