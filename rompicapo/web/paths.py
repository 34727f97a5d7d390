"""The paths page's routes (/api/paths/...): the paper game, maps of boards of any size, counts.

- ``prefix``: the paper game's hint and "still possible?" (`rompicapo.paths.prefix.
  complete_prefix()`, time-limited, in the quick lane);
- ``board``: a board from a start, as the page will read it. Where the block construction applies
  ([`rompicapo.paths.steps_of()`][rompicapo.paths.steps_of]: from (0, 0) on boards with both sides
  >= 5, from other starts on the boards its block cycle covers) any cell's step is O(1), so a 10^6 x
  10^6 map is drawn tile by tile; other boards (up to `GREEDY_MAX_CELLS` cells) get the greedy
  constructor's path, built once by a job worker and kept for the few boards last asked. The answer
  carries a *board handle* that the other routes take;
- ``tile`` (GET), ``cell``, ``step``, ``window``: read a board shown before, by its handle.
  They never build one (an unknown or dropped handle is a 404): a tile is an ``<img>`` and
  must not start work;
- ``count``: the per-start counts of a small board, as a job with progress.

A tile is a 256 x 256 PNG of zoom ``z`` (a cell is 2^z pixels; z < 0: a pixel is 2^-z cells),
coloured by the step number (start blue to end red) with a lightness sawtooth along the steps,
and the cell grid when cells are big. Tiles and lookups take milliseconds (the block
construction's kernels, vectorised), so they run in the server's thread pool once this
process has loaded those kernels (compiled by the quick lane's worker first).
"""

from __future__ import annotations

import io
import secrets
from collections import OrderedDict
from typing import Any

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from rompicapo.common import InputError, check_int
from rompicapo.web.jobs import NoSuchJob
from rompicapo.web.params import field, json_body, known
from rompicapo.web.run import heavy, quick, start_job
from rompicapo.web.warmup import warm_up

__all__ = ["ROUTES", "Board", "render_tile"]

TILE = 256
MAX_SIDE = 10_000_000  # steps stay below 2^53: exact as JavaScript numbers
GREEDY_MAX_CELLS = 1_000_000
GREEDY_TIME_LIMIT = 30.0
GRID_MAX_CELLS = 900  # the numbered grid is sent whole up to 30 x 30
COUNT_MAX_CELLS = 36
PREFIX_MAX_SECONDS = 5.0
Z_MIN, Z_MAX = -30, 6
# Greedy boards kept (each up to 8 MB), and board handles remembered.
BOARDS_KEPT = 4
HANDLES_KEPT = 2000


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
    """A board's path from a start, read by random access: ``steps(rr, cc)`` (arrays of one
    shape) and ``cell(step)``. ``grid`` is the greedy path's numbered grid, or None where
    the block construction answers ([`rompicapo.paths.steps_of()`][rompicapo.paths.steps_of] /
    ``cells_at``)."""

    def __init__(self, rows: int, cols: int, start: tuple[int, int], method: str,
                 grid: np.ndarray | None = None) -> None:  # fmt: skip
        self.rows, self.cols, self.start, self.method = rows, cols, start, method
        self.cells = rows * cols
        self.grid = grid

    def steps(self, rr: np.ndarray, cc: np.ndarray) -> np.ndarray:
        """Step numbers (1-based) of the cells ``(rr, cc)``."""
        if self.grid is not None:
            return self.grid[rr, cc]
        from rompicapo.paths import steps_of

        cells = np.stack([np.ravel(rr), np.ravel(cc)], axis=1)
        found = steps_of(self.rows, self.cols, cells, start=self.start)
        return np.asarray(found.steps).reshape(np.shape(rr))

    def cell(self, step: int) -> tuple[int, int]:
        if self.grid is not None:
            r, c = np.nonzero(self.grid == step)
            return int(r[0]), int(c[0])
        from rompicapo.paths import cells_at

        return cells_at(self.rows, self.cols, [step], start=self.start).cells[0]

    def info(self) -> dict[str, Any]:
        out = {
            "rows": self.rows,
            "cols": self.cols,
            "cells": self.cells,
            "start": list(self.start),
            "end": list(self.cell(self.cells)),
            "method": self.method,
        }
        if self.cells <= GRID_MAX_CELLS:
            rr, cc = np.indices((self.rows, self.cols))
            out["grid"] = self.steps(rr, cc).tolist()
        return out


def block_method(rows: int, cols: int, start: tuple[int, int]) -> str | None:
    """``"blocks"`` or ``"blocks-cycle"`` when the block construction gives this board's path
    from ``start``, else None (then the greedy constructor does)."""
    from rompicapo.paths import steps_of

    try:
        return steps_of(rows, cols, np.array([start]), start=start).method
    except InputError:
        return None


def greedy_grid(rows: int, cols: int, start: tuple[int, int]) -> np.ndarray:
    """The greedy constructor's path as a numbered grid (a job worker's task)."""
    from rompicapo.paths import construct

    if rows * cols > GREEDY_MAX_CELLS:
        raise InputError(
            f"a {rows:,}x{cols:,} board from {start} is too large for the greedy path here "
            f"(at most {GREEDY_MAX_CELLS:,} cells; the block construction answers from (0, 0) "
            "on boards with both sides >= 5)"
        )
    res = construct(rows, cols, start, time_limit=GREEDY_TIME_LIMIT, jobs=1)
    if not res.found:
        raise InputError(
            f"no path of the {rows}x{cols} board from {start}: {res.status}"
            + (f" ({res.proof})" if res.proof else "")
        )
    return np.asarray(res.grid(), dtype=np.int64)


# greedy boards by (rows, cols, sr, sc); handles -> (rows, cols, sr, sc, method)
_grids: OrderedDict[tuple[int, int, int, int], np.ndarray] = OrderedDict()
_handles: OrderedDict[str, tuple[int, int, int, int, str]] = OrderedDict()
_loaded = False


async def _kernels(request: Request) -> None:
    """Load the block construction's kernels in this process, once: a worker compiles them
    into numba's cache first (or finds them there), so this process only loads them."""
    global _loaded
    if not _loaded:  # two first requests at once both load: harmless, done once after
        await quick(request, warm_up, "paths", time_limit=5.0, family="paths")
        await run_in_threadpool(warm_up, "paths")
        _loaded = True


def _remember_handle(key: tuple[int, int, int, int], method: str) -> str:
    handle = secrets.token_urlsafe(12)
    _handles[handle] = (*key, method)
    while len(_handles) > HANDLES_KEPT:
        _handles.popitem(last=False)
    return handle


def _board_of(handle: Any) -> Board:
    """The board a handle names, as built before; 404 when unknown or no longer kept."""
    if not isinstance(handle, str) or handle not in _handles:
        raise NoSuchJob("no such board here: show the board again")
    rows, cols, sr, sc, method = _handles[handle]
    grid = None
    if method == "greedy":
        grid = _grids.get((rows, cols, sr, sc))
        if grid is None:
            raise NoSuchJob("this board is no longer kept (only the last few are): show it again")
    return Board(rows, cols, (sr, sc), method, grid)


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


def _board_args(body: dict[str, Any]) -> tuple[int, int, tuple[int, int]]:
    rows = field(body, "rows", int, minimum=1, maximum=MAX_SIDE)
    cols = field(body, "cols", int, minimum=1, maximum=MAX_SIDE)
    sr = field(body, "sr", int, 0, minimum=0, maximum=rows - 1)
    sc = field(body, "sc", int, 0, minimum=0, maximum=cols - 1)
    return rows, cols, (sr, sc)


async def board(request: Request) -> JSONResponse:
    """A board from a start: its handle and what the page draws first (see the module)."""
    rows, cols, start = _board_args(known(await json_body(request), "rows", "cols", "sr", "sc"))
    await _kernels(request)
    key = (rows, cols, *start)
    method = block_method(rows, cols, start)
    if method is None:
        method = "greedy"
        if key not in _grids:
            grid = await heavy(
                request, greedy_grid, rows, cols, start, time_limit=GREEDY_TIME_LIMIT
            )
            _grids[key] = np.asarray(grid, dtype=np.int64)  # it came back as lists
        _grids.move_to_end(key)
        while len(_grids) > BOARDS_KEPT:
            _grids.popitem(last=False)
    b = Board(rows, cols, start, method, _grids.get(key) if method == "greedy" else None)
    info = await run_in_threadpool(b.info)
    return JSONResponse({**info, "board": _remember_handle(key, method)})


def _query_int(request: Request, name: str, minimum: int, maximum: int) -> int:
    value = request.query_params.get(name)
    if value is None:
        raise InputError(f"{name} is required")
    if len(value) > 40:
        raise InputError(f"{name} is too long")
    return check_int(value, name, minimum=minimum, maximum=maximum)


async def tile(request: Request) -> Response:
    """``GET /api/paths/tile?b=HANDLE&z=..&x=..&y=..``: a PNG of a board shown before."""
    z = _query_int(request, "z", Z_MIN, Z_MAX)
    x = _query_int(request, "x", 0, 1 << 40)
    y = _query_int(request, "y", 0, 1 << 40)
    b = _board_of(request.query_params.get("b"))
    await _kernels(request)
    png = await run_in_threadpool(render_tile, b, z, x, y)
    return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=3600"})


async def cell(request: Request) -> JSONResponse:
    """The cell visited at ``step``."""
    body = known(await json_body(request), "board", "step")
    b = _board_of(field(body, "board", str, max_length=40))
    step = field(body, "step", (int, str), max_length=40)
    step = check_int(step, "step", minimum=1, maximum=b.cells)
    await _kernels(request)
    r, c = await run_in_threadpool(b.cell, step)
    return JSONResponse({"step": step, "cell": [r, c]})


async def step(request: Request) -> JSONResponse:
    """The step at which cell ``(r, c)`` is visited."""
    body = known(await json_body(request), "board", "r", "c")
    b = _board_of(field(body, "board", str, max_length=40))
    r = field(body, "r", int, minimum=0, maximum=b.rows - 1)
    c = field(body, "c", int, minimum=0, maximum=b.cols - 1)
    await _kernels(request)
    s = await run_in_threadpool(b.steps, np.array([r]), np.array([c]))
    return JSONResponse({"step": int(s[0]), "cell": [r, c]})


async def window(request: Request) -> JSONResponse:
    """The steps of a window of cells (rows r0.., cols c0..; at most 64 x 64): the map's
    numbers and path lines when zoomed in."""
    body = known(await json_body(request), "board", "r0", "c0", "h", "w")
    b = _board_of(field(body, "board", str, max_length=40))
    r0 = field(body, "r0", int, minimum=0, maximum=b.rows - 1)
    c0 = field(body, "c0", int, minimum=0, maximum=b.cols - 1)
    h = min(field(body, "h", int, minimum=1, maximum=64), b.rows - r0)
    w = min(field(body, "w", int, minimum=1, maximum=64), b.cols - c0)
    await _kernels(request)
    rr, cc = np.indices((h, w))
    steps = await run_in_threadpool(b.steps, rr + r0, cc + c0)
    return JSONResponse({"r0": r0, "c0": c0, "steps": steps.tolist()})


def complete(rows: int, cols: int, cells: list, seconds: float) -> dict[str, Any]:
    """Hint / still possible? (a quick worker's task)."""
    from rompicapo.paths.prefix import complete_prefix

    res = complete_prefix(rows, cols, cells, time_limit=seconds)
    out = {
        "status": res.status,
        "proof": res.proof,
        "path": [list(c) for c in res.path],
        "nodes": res.counts.get("nodes", 0),
        "seconds": res.solve_seconds,
    }
    if res.status == "found":
        out["verified"] = res.verify()
    return out


async def prefix(request: Request) -> JSONResponse:
    """Hint / still possible?: complete the written cells within a time limit."""
    body = known(await json_body(request), "rows", "cols", "prefix", "time_limit")
    rows = field(body, "rows", int, minimum=1, maximum=30)
    cols = field(body, "cols", int, minimum=1, maximum=30)
    cells = field(body, "prefix", list, max_length=900)
    seconds = field(body, "time_limit", float, 2.0, minimum=0.05, maximum=PREFIX_MAX_SECONDS)
    if not cells:
        raise InputError("the prefix is empty: write the first number first")
    return JSONResponse(await quick(request, complete, rows, cols, cells, seconds,
                                    time_limit=seconds))  # fmt: skip


def count_board(progress: Any, rows: int, cols: int) -> dict[str, Any]:
    """The per-start counts of a small board (a job): the count's own prefix jobs report
    progress, and a Stop raised from the callback ends it between them, as Ctrl-C does."""
    from rompicapo.paths import count_paths

    res = count_paths(rows, cols, jobs=1, progress=progress)
    return {"rows": rows, "cols": cols, "table": res.table.tolist(), "total": int(res.count),
            "nodes": int(res.nodes), "source": "computed now"}  # fmt: skip


async def count(request: Request) -> JSONResponse:
    """The per-start counts of a small board, as a job with progress."""
    body = known(await json_body(request), "rows", "cols")
    rows = field(body, "rows", int, minimum=1, maximum=COUNT_MAX_CELLS)
    cols = field(body, "cols", int, minimum=1, maximum=COUNT_MAX_CELLS)
    if rows * cols > COUNT_MAX_CELLS:
        raise InputError(
            f"counting live is for boards of at most {COUNT_MAX_CELLS} cells; "
            "7x7 is shown from the shipped result"
        )
    return start_job(request, "paths-count", count_board, rows, cols, time_limit=600.0)


ROUTES = [
    Route("/board", board, methods=["POST"]),
    Route("/tile", tile, methods=["GET"]),
    Route("/cell", cell, methods=["POST"]),
    Route("/step", step, methods=["POST"]),
    Route("/window", window, methods=["POST"]),
    Route("/prefix", prefix, methods=["POST"]),
    Route("/count", count, methods=["POST"]),
]
