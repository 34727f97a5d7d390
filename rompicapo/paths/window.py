"""Open paths from any start on narrow boards, for leapers that change colour at every move
(the knight): a window of a few columns around the start, searched exhaustively, joined to
closed tours of the board on either side.

Why: on a narrow board (a side of 5..9) with both sides odd there is no closed tour to cut
open, and a path from a start in the middle must cover one end of the board and come back
past its start; Warnsdorff's walk with rotations and the plain depth-first search miss such
paths (5 x 39 from (1, 1), 5 x 59 from (3, 1): "not found" after 10^5 rotations). Here the
board (long side horizontal) is cut into

    L = columns [0, a)    |    W = columns [a, b) holding the start    |    R = columns [b, C)

where L and R are empty or have a closed tour (for the knight: Schwenk's theorem). The path is
found on the window's cells plus one node per side: it may leave the window into L's tour at
a cell x, go round the tour and come back from x's neighbour on the tour (a detour), and it
may end by going round a tour. That search has 25..100 nodes; windows and seeds are tried in a
fixed order, so the path depends on nothing but the board, the start and the leaper.

```pycon
>>> from rompicapo.paths.verify import verify_path
>>> path = window_path(5, 39, (1, 1), "knight")
>>> bool(verify_path(path, 5, 39, "knight", start=(1, 1)))
True

```"""

from __future__ import annotations

import numpy as np

from rompicapo.common import Deadline, Stopwatch, check_time_limit
from rompicapo.paths._block_search_kernel import hamiltonian_dfs
from rompicapo.paths.bands import index_dtype
from rompicapo.paths.moves import MoveSet, parse_moves
from rompicapo.paths.result import PathResult
from rompicapo.paths.strategies import Request, Strategy, closed_tour

__all__ = ["WINDOW", "WINDOW_CELLS", "WINDOW_SIDE", "window_path"]

# The short side up to which :func:`window_path` applies (a window of up to 12 columns of
# 9 cells is a search of about 100 nodes).
WINDOW_SIDE = 9
_WIDTHS = range(3, 13)
WINDOW_CELLS = 1 << 20  # larger boards: the tours of the sides would be built in memory
_NODES = 20_000
_SEEDS = 3


def _schwenk(m: int, n: int) -> bool:
    m, n = min(m, n), max(m, n)
    return not ((m % 2 and n % 2) or m in (1, 2, 4) or (m == 3 and n in (4, 6, 8)))


#: Closed tours of the sides already built, by (rows, cols, moves); only tours found are kept
#: (a side not built within its time may be built by a later call with more time).
_TOURS: dict[tuple[int, int, MoveSet], np.ndarray] = {}
_TOURS_KEPT = 64


def _tour(rows: int, cols: int, mset: MoveSet, deadline: Deadline) -> np.ndarray | None:
    """A closed tour of ``rows x cols`` (flat cells, from (0, 0)) or None (none exists, or
    none was built within 10 s or the time left)."""
    if mset == parse_moves("knight") and not _schwenk(rows, cols):
        return None
    key = (rows, cols, mset)
    if key in _TOURS:
        return _TOURS[key]
    seconds = min(10.0, deadline.remaining())
    if seconds <= 0:
        return None
    tour = closed_tour(rows, cols, mset, time_limit=seconds)
    if tour is None:
        return None
    out = np.asarray(tour, np.int64)
    out.flags.writeable = False
    if len(_TOURS) >= _TOURS_KEPT:
        _TOURS.pop(next(iter(_TOURS)))
    _TOURS[key] = out
    return out


def _windows(cols: int, c0: int):
    """(a, b) windows holding column ``c0``: narrow first, the start near the middle first."""
    for w in _WIDTHS:
        if w > cols:
            break
        lo, hi = max(0, c0 - w + 1), min(c0, cols - w)
        for a in sorted(range(lo, hi + 1), key=lambda a: (abs(a + (w - 1) / 2 - c0), a)):
            yield a, a + w
    if cols > _WIDTHS[-1] and cols <= 2 * _WIDTHS[-1]:
        yield 0, cols  # a short board: the window is the whole board


class _Side:
    """One side's closed tour placed on the board (flat cells of the board ``rows x cols``)."""

    def __init__(self, tour: np.ndarray, rows: int, width: int, cols: int, offset: int) -> None:
        r, c = np.divmod(tour, width)
        self.cells = r * cols + c + offset
        self.pos = np.full(rows * cols, -1, np.int64)  # the place of a board cell on the tour
        self.pos[self.cells] = np.arange(len(self.cells))

    def __contains__(self, cell: int) -> bool:
        return self.pos[cell] >= 0

    def round_from(self, x: int, step: int) -> np.ndarray:
        """The tour from cell ``x`` going round in direction ``step`` (+1 or -1)."""
        i = int(self.pos[x])
        return np.roll(self.cells[::step], -(i if step == 1 else len(self.cells) - 1 - i))


def _neighbours(cell: int, rows: int, cols: int, moves) -> list[int]:
    r, c = divmod(cell, cols)
    return [(r + a) * cols + c + b for a, b in moves if 0 <= r + a < rows and 0 <= c + b < cols]


def _try_window(rows, cols, start, mset, a, b, sides, node_limit, seeds):
    """The path for one window ``[a, b)``, or None."""
    moves = mset.moves
    win = [r * cols + c for r in range(rows) for c in range(a, b)]
    local = {x: i for i, x in enumerate(win)}
    nw = len(win)
    present = [s for s in sides if s is not None]
    n = nw + len(present)
    adj: list[set[int]] = [set() for _ in range(n)]
    pair = np.zeros((max(1, len(present)), n, n), np.bool_)
    witness: list[dict] = [{} for _ in present]
    for i, x in enumerate(win):
        for y in _neighbours(x, rows, cols, moves):
            if y in local:
                adj[i].add(local[y])
            else:
                for k, s in enumerate(present):
                    if y in s:
                        adj[i].add(nw + k)
                        adj[nw + k].add(i)
    for k, s in enumerate(present):
        # a detour u -> x ... y -> v along the tour, (x, y) one of its edges
        near = {y for i in range(nw) for y in _neighbours(win[i], rows, cols, moves) if y in s}
        ln = len(s.cells)
        for x in near:
            i = int(s.pos[x])
            for step in (1, -1):
                y = int(s.cells[(i - step) % ln])  # going round from x away from y ends at y
                if y not in near:
                    continue
                for u in _neighbours(x, rows, cols, moves):
                    for v in _neighbours(y, rows, cols, moves):
                        if u in local and v in local and u != v:
                            lu, lv = local[u], local[v]
                            if not pair[k, lu, lv]:
                                pair[k, lu, lv] = True
                                witness[k][(lu, lv)] = (x, step)
    width = max(len(s) for s in adj)
    nb = np.full((n, max(1, width)), -1, np.int64)
    nbn = np.zeros(n, np.int64)
    for i, s in enumerate(adj):
        nbn[i] = len(s)
        nb[i, : len(s)] = sorted(s)
    for seed in range(seeds):
        order, _ = hamiltonian_dfs(nb, nbn, local[start], -1, nw, pair, node_limit, seed)
        if len(order):
            return _expand(order, win, present, witness, rows, cols, moves)
    return None


def _expand(order, win, present, witness, rows, cols, moves) -> np.ndarray:
    nw = len(win)
    parts = []
    for t, node in enumerate(order):
        node = int(node)
        if node < nw:
            parts.append(np.array([win[node]], np.int64))
            continue
        k = node - nw
        s = present[k]
        u = int(order[t - 1])
        if t + 1 < len(order):
            x, step = witness[k][(u, int(order[t + 1]))]
        else:  # the end: enter next to u, go round either way
            x = next(y for y in _neighbours(win[u], rows, cols, moves) if y in s)
            step = 1
        parts.append(s.round_from(x, step))
    return np.concatenate(parts)


def window_path(
    rows: int,
    cols: int,
    start: tuple[int, int],
    moves: str | MoveSet = "knight",
    *,
    node_limit: int = _NODES,
    seeds: int = _SEEDS,
    info: dict | None = None,
    time_limit: float | None = None,
) -> np.ndarray | None:
    """An open path through every cell of ``rows x cols`` from ``start`` (flat cells
    ``r * cols + c``, int64), or None when no window's search finds one within its node
    budget (no proof either way). For boards with a side of at most `WINDOW_SIDE`;
    deterministic (no seed: windows and search seeds are tried in a fixed order). ``info``,
    when given, receives ``window`` (the columns ``(a, b)`` of the window along the long
    side), ``windows`` (how many were searched) and ``stopped`` ("time" when ``time_limit``
    seconds ran out first: building the sides' tours of a long board takes seconds)."""
    deadline = Deadline(check_time_limit(time_limit))
    if info is not None:
        info.clear()
    return _window_path(rows, cols, start, moves, node_limit, seeds, info, deadline)


def _window_path(rows, cols, start, moves, node_limit, seeds, info, deadline: Deadline):
    info = {} if info is None else info
    info["windows"] = 0
    mset = parse_moves(moves)
    r0, c0 = int(start[0]), int(start[1])
    if rows > cols:  # the long side horizontal: solve the transpose and read it back
        path = _window_path(cols, rows, (c0, r0), mset.transposed(), node_limit, seeds, info,
                            deadline)  # fmt: skip
        if path is None:
            return None
        c, r = np.divmod(path, rows)
        return r * cols + c
    start_flat = r0 * cols + c0
    for a, b in _windows(cols, c0):
        if deadline.expired():
            info["stopped"] = "time"
            return None
        sides = []
        ok = True
        for width, offset in ((a, 0), (cols - b, b)):
            if width == 0:
                sides.append(None)
                continue
            tour = _tour(rows, width, mset, deadline)
            if tour is None:
                ok = False
                break
            sides.append(_Side(tour, rows, width, cols, offset))
        if not ok:
            continue
        info["windows"] += 1
        path = _try_window(rows, cols, start_flat, mset, a, b, sides, node_limit, seeds)
        if path is not None:
            info["window"] = (a, b)
            return path
    return None


# --------------------------------------------------------------------------------------------
# The strategy of construct()
# --------------------------------------------------------------------------------------------


def _window_applies(request: Request) -> bool:
    """Open knight paths on a narrow board: `window_path()` first (the walk misses paths
    from starts in the middle of 5 x n: it must cover one end and come back). Only the knight:
    Schwenk's theorem says at once which sides have the closed tours the window joins; for
    another leaper each side would be a search that may fail slowly."""
    if request.closed or request.method == "greedy" or request.mset != parse_moves("knight"):
        return False
    return 1 < request.cells <= WINDOW_CELLS and min(request.rows, request.cols) <= WINDOW_SIDE


def _by_window(request: Request) -> PathResult | None:
    """The window search joined to closed tours of the sides, or None (no proof either way,
    or the time ran out)."""
    result, deadline = request.result, request.deadline
    info: dict = {}
    seconds = None if deadline.time_limit is None else max(1e-3, deadline.remaining())
    with Stopwatch() as sw:
        path = window_path(
            result.rows, result.cols, result.start, request.mset, info=info, time_limit=seconds
        )
    result.solve_seconds += sw.seconds
    result.counts["windows"] = info["windows"]
    if path is None:
        return None
    result.path = path.astype(index_dtype(request.cells))
    result.status = "found"
    result.method = "window"
    result.counts["window_columns"] = info["window"][1] - info["window"][0]
    return result


WINDOW = Strategy("window", _window_applies, _by_window)
