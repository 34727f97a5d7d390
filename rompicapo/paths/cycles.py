"""Hamiltonian cycles by blocks, for any leaper with a block table: closed tours, and paths from
any start (the cycle cut open at that cell), with O(1) random access.

The layout and the table are described in `rompicapo.paths.leaper_blocks`: bands of rows
(an even number), block columns (at least two, the first a return strip), a serpentine that
climbs back up the strip. Every block's place along the cycle is arithmetic, so
`BlockCycle.cell_at()` and `BlockCycle.step_of()` cost O(1); a path from ``start`` is
the cycle read from ``start``'s position, so it is the same arithmetic plus an offset modulo
R×C, and its last cell is one move from its first (every path this class gives is a closed
tour).

```pycon
>>> bc = BlockCycle(12, 12, "knight", start=(4, 7))
>>> bc.cell_at(1), bc.step_of((4, 7))
((4, 7), 1)
>>> r, c = bc.cell_at(144); sorted((abs(r - 4), abs(c - 7)))
[1, 2]

```

Which boards: ``R, C >= 2B`` where ``B`` is the table's smallest block side (5 for caselle and
the knight); the knight (any bipartite leaper) also needs an even side, split in blocks of even
width (so its even side must be >= 12: blocks of 6..10). `cycle_refusal()` says why a board
is not served.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from rompicapo.common import InputError, ProgressCallback, check_memory, renamed_keywords
from rompicapo.paths import _cycles_kernel as kernel
from rompicapo.paths.blocks import BlockPath, warm_parts
from rompicapo.paths.leaper_blocks import COMBOS, is_bipartite, load_table
from rompicapo.paths.moves import MoveSet, parse_moves
from rompicapo.paths.rpath import chunk_counter

__all__ = ["BlockCycle", "cycle_refusal", "cycle_sizes", "refusal_kind"]

_MAX_CELLS = 1 << 62
# Path arrays from this size up are written with non-temporal stores (far larger than the
# caches: the stores skip reading every line first); the move chunks of .rpath files are
# written to the file right after, from cache, so they keep plain stores.
_STREAM_BYTES = 64 << 20


def _split_even(n: int, lo: int, hi: int) -> tuple[int, int, int, int] | None:
    """``n`` as an even number (>= 2) of parts of lo..hi, as equal as possible:
    (parts, base, extra, 1) or None."""
    parts = 2 * max(1, -(-n // (2 * hi)))
    base, extra = divmod(n, parts)
    if base < lo or base + (extra > 0) > hi:
        return None
    return parts, base, extra, 1


def _split_two(n: int, lo: int, hi: int, step: int) -> tuple[int, int, int, int] | None:
    """``n`` as >= 2 parts of lo..hi that are multiples of ``step``: (parts, base, extra, step)
    (the last ``extra`` parts are ``base + step``) or None."""
    if n % step:
        return None
    m, lo2, hi2 = n // step, -(-lo // step), hi // step
    parts = max(2, -(-m // hi2))
    base, extra = divmod(m, parts)
    if base < lo2 or base + (extra > 0) > hi2:
        return None
    return parts, base * step, extra, step


def _plan(rows: int, cols: int, mset: MoveSet):
    """(reason, transposed, table, row split, col split): reason is '' when blocks apply.
    `refusal_kind()` sorts the reasons."""
    bip = is_bipartite(mset)
    transposed = False
    if bip and cols % 2:
        if rows % 2:
            return (
                f"both sides are odd and every {mset.name} move changes colour: a closed tour "
                "alternates colours, but the board has one more cell of one colour",
                False, None, None, None,
            )  # fmt: skip
        transposed = True
    inner = mset.transposed() if transposed else mset
    table = load_table(inner)
    if table["blocks"] is None:
        return f"no block table for {mset.name}: {table['reason']}", transposed, None, None, None
    r_in, c_in = (cols, rows) if transposed else (rows, cols)
    hs, ws = table["heights"], table["widths"]
    step = 2 if bip else 1
    rsplit = _split_even(r_in, hs[0], hs[-1])
    csplit = _split_two(c_in, ws[0], ws[-1], step)
    if rsplit is None or csplit is None:
        even = " and an even side" if bip else ""
        return (
            f"the {mset.name} blocks need both sides >= {2 * hs[0]}{even} "
            f"(the even side >= {2 * ws[0]})"
            if bip
            else f"the {mset.name} blocks need both sides >= {2 * hs[0]}",
            transposed, None, None, None,
        )  # fmt: skip
    if rows * cols > _MAX_CELLS:
        return "the board has more than 2^62 cells", transposed, None, None, None
    return "", transposed, table, rsplit, csplit


def cycle_refusal(rows: int, cols: int, moves: str | MoveSet = "caselle") -> str:
    """Why the block cycle cannot serve this board and leaper ('' when it can), in one line."""
    return _plan(int(rows), int(cols), parse_moves(moves))[0]


def refusal_kind(rows: int, cols: int, moves: str | MoveSet = "caselle") -> str:
    """'' (blocks apply), ``"size"`` (a side below the blocks' minimum: a small board, left to
    the search), ``"colour"`` (a bipartite leaper on odd x odd: no cycle exists), ``"table"``
    (the leaper has no block table) or ``"huge"``."""
    why = cycle_refusal(rows, cols, moves)
    if not why:
        return ""
    if why.startswith("both sides are odd"):
        return "colour"
    if why.startswith("no block table"):
        return "table"
    if why.startswith("the board has more"):
        return "huge"
    return "size"


def cycle_sizes(moves: str | MoveSet = "caselle") -> dict:
    """The table's block sizes: ``{"B", "heights", "widths", "bipartite"}`` (or ``reason``)."""
    mset = parse_moves(moves)
    t = load_table(mset)
    if t["blocks"] is None:
        return {"reason": t["reason"]}
    return {k: t[k] for k in ("B", "heights", "widths", "bipartite")}


def _arrays(mset: MoveSet):
    """Table arrays ``cells[kid, k]``, ``index[kid, cell]``, ``moves[kid, k]`` (indexes into
    ``mset.moves`` in its order), the width of each key, and the key ranges (hmin, NH, wmin,
    NW)."""
    return _arrays_of(mset.name, mset.moves)  # keyed by the order: see load_table


@lru_cache(maxsize=8)
def _arrays_of(name: str, moves: tuple[tuple[int, int], ...]):
    t = load_table(MoveSet(name, moves))
    hs, ws = t["heights"], t["widths"]
    hmin, nh = hs[0], hs[-1] - hs[0] + 1
    wmin, nw = ws[0], ws[-1] - ws[0] + 1
    kmax = hs[-1] * ws[-1]
    nkeys = len(COMBOS) * nh * nw * 4
    cells = np.full((nkeys, kmax), -1, np.int64)
    index = np.full((nkeys, kmax), -1, np.int64)
    moves = np.full((nkeys, kmax), -1, np.int8)
    width = np.ones(nkeys, np.int64)
    move_index = {tuple(m): i for i, m in enumerate(t["moves"])}
    shift = bool(t["bipartite"])
    for b in t["blocks"]:
        k, h, w, p, q = b["key"]
        path = np.asarray(b["cells"], np.int64)
        r, c = np.divmod(path, w)
        mv = [move_index[(int(a), int(d))] for a, d in zip(np.diff(r), np.diff(c), strict=True)]
        # without the parity shift the entries do not depend on p, q: one path serves all
        for pp in (p,) if shift else (0, 1):
            for qq in (q,) if shift else (0, 1):
                kid = (((k * nh + h - hmin) * nw + w - wmin) * 2 + pp) * 2 + qq
                cells[kid, : h * w] = path
                index[kid, path] = np.arange(h * w)
                moves[kid, : h * w - 1] = mv
                moves[kid, h * w - 1] = b["exit_move"]
                width[kid] = w
    combo_of = np.full(16, -1, np.int64)
    for k, (a, o) in enumerate(COMBOS):
        combo_of[a * 4 + o] = k
    return cells, index, moves, width, (hmin, nh, wmin, nw), shift, combo_of


class BlockCycle:
    """The block cycle of a ``rows`` x ``cols`` board for a leaper, read as a path from
    ``start`` (default ``(0, 0)``); never stored whole. Step 1 is ``start``, step R×C is one
    move from it.

    Raises [`InputError`][rompicapo.common.InputError] with `cycle_refusal()`'s reason when the
    board or the leaper is not served.
    """

    def __init__(self, rows: int, cols: int, moves="caselle", start=(0, 0)) -> None:
        rows, cols = int(rows), int(cols)
        mset = parse_moves(moves)
        why, transposed, table, rsplit, csplit = _plan(rows, cols, mset)
        if why:
            raise InputError(f"the block cycle does not apply: {why}")
        r0, c0 = (int(start[0]), int(start[1]))
        if not (0 <= r0 < rows and 0 <= c0 < cols):
            raise InputError(f"start ({r0}, {c0}) is outside the {rows}x{cols} board")
        self.rows, self.cols, self.cells = rows, cols, rows * cols
        self.moves = mset.moves
        self.mset = mset
        self.start = (r0, c0)
        self.transposed = transposed
        self.B = table["B"]
        inner = mset.transposed() if transposed else mset
        cells, index, mv, width, (hmin, nh, wmin, nw), shift, combo_of = _arrays(inner)
        r_in, c_in = (cols, rows) if transposed else (rows, cols)
        sr, sc = (1, cols) if transposed else (cols, 1)
        self.geom = np.array(
            [r_in, c_in, *rsplit, *csplit, int(transposed), int(shift),
             hmin, nh, wmin, nw, rows * cols, 0, sr, sc],
            dtype=np.int64,
        )  # fmt: skip
        self._cells, self._index, self._mv, self._combo = cells, index, mv, combo_of
        self._width = width
        self._offsets: np.ndarray | None = None
        ri, ci = (c0, r0) if transposed else (r0, c0)
        self.geom[17] = kernel.cycle_step_of(self.geom, index, combo_of, ri, ci)

    def __repr__(self) -> str:
        return f"BlockCycle({self.rows}, {self.cols}, {self.mset.name!r}, start={self.start})"

    @property
    def bands(self) -> int:
        return int(self.geom[2])

    @property
    def block_columns(self) -> int:
        return int(self.geom[6])

    # ---------------------------------------------------------------- random access

    def cell_at(self, step):
        """The cell ``(row, col)`` at step ``step`` (1 = the start, R×C = the last, one move
        from the start). An int gives a tuple, an integer array two arrays. O(1) per step."""
        scalar = np.ndim(step) == 0
        steps = np.atleast_1d(np.asarray(step, dtype=np.int64)) - 1
        if steps.size and (steps.min() < 0 or steps.max() >= self.cells):
            bad = int(steps.min() if steps.min() < 0 else steps.max()) + 1
            raise InputError(f"step {bad} is outside 1..{self.cells:,}")
        rr = np.empty(steps.size, np.int64)
        cc = np.empty(steps.size, np.int64)
        kernel.cells_at(self.geom, self._cells, self._combo, steps.ravel(), rr, cc)
        if scalar:
            return int(rr[0]), int(cc[0])
        return rr.reshape(steps.shape), cc.reshape(steps.shape)

    def step_of(self, cell, col=None):
        """The step (1-based) of ``cell`` = ``(r, c)``, or of arrays ``step_of(rows, cols)``.
        O(1) per cell. Raises InputError for a cell off the board."""
        if col is None:
            r, c = cell
            scalar = True
        else:
            r, c = cell, col
            scalar = np.ndim(r) == 0 and np.ndim(c) == 0
        rs = np.atleast_1d(np.asarray(r, dtype=np.int64)).ravel()
        cs = np.atleast_1d(np.asarray(c, dtype=np.int64)).ravel()
        if rs.shape != cs.shape:
            raise InputError("step_of needs as many rows as columns")
        off = (rs < 0) | (rs >= self.rows) | (cs < 0) | (cs >= self.cols)
        if off.any():
            k = int(np.argmax(off))
            raise InputError(f"cell ({rs[k]}, {cs[k]}) is off the {self.rows}x{self.cols} board")
        out = np.empty(rs.size, np.int64)
        kernel.steps_of(self.geom, self._index, self._combo, rs, cs, out)
        out += 1
        return int(out[0]) if scalar else out

    # ---------------------------------------------------------------- bulk writing

    def _offsets_table(self) -> np.ndarray:
        if self._offsets is None:
            cells = self._cells
            w = self._width[:, None]
            lr, lc = np.divmod(np.maximum(cells, 0), w)
            self._offsets = lr * self.geom[18] + lc * self.geom[19]
        return self._offsets

    def fill_path(self, out: np.ndarray | None = None, first: int = 1, *, jobs: int | None = None):
        """Write the flat cells ``r * cols + c`` of steps ``first, first + 1, ...`` into ``out``
        (default: a new array of the whole path, int32 when it fits); threads write slices."""
        if out is None:
            n = self.cells - first + 1
            dtype = np.int32 if self.cells <= np.iinfo(np.int32).max else np.int64
            check_memory(n * np.dtype(dtype).itemsize, f"the path of {self.cells:,} cells")
            out = np.empty(n, dtype)
        BlockPath._check_slice(first, len(out), self.cells)
        offsets = self._offsets_table()
        if out.nbytes >= _STREAM_BYTES:
            write = lambda f, o: kernel.fill_streaming(self.geom, offsets, self._combo, f, o)  # noqa: E731
        else:
            write = lambda f, o: kernel.fill(self.geom, offsets, self._combo, f, o, True)  # noqa: E731
        BlockPath._in_threads(write, first, out, jobs)
        return out

    def fill_moves(self, out: np.ndarray, first: int = 1, *, jobs: int | None = None) -> np.ndarray:
        """Write the moves from step ``first + t`` to the next into ``out[t]`` (uint8 indices
        into ``moves``); R×C - 1 moves in all (the closing move is not written). Threads
        (``jobs``, default all cores) write slices at once."""
        BlockPath._check_slice(first, len(out), self.cells - 1)
        BlockPath._in_threads(
            lambda f, o: kernel.fill(self.geom, self._mv, self._combo, f, o, False),
            first, out, jobs,
        )  # fmt: skip
        return out


def warm_up(part: str = "all") -> None:
    """Compile (or load from numba's cache) the cycle kernels on a 12x12 knight's board, one
    part at a time as `rompicapo.paths.blocks.warm_up()` does."""
    warm_parts(BlockCycle(12, 12, "knight", (1, 1)), part)


# ------------------------------------------------------------------------------ streaming


def write_cycle_chunks(task: tuple) -> int:
    """Chunk task of `write_cycle_rpath()` (a thread or a Dask worker)."""
    from rompicapo.paths.rpath import header_from_json, write_chunks

    name, head, data_offset, first, last, resume = task
    header = header_from_json(head, data_offset)
    bc = BlockCycle(header.rows, header.cols, header.moves, header.start)
    return write_chunks(
        name, header, first, last, lambda lo, out: bc.fill_moves(out, lo + 1, jobs=1), resume
    )


@renamed_keywords(on_chunk=("progress", chunk_counter))
def write_cycle_rpath(
    filename,
    rows: int,
    cols: int,
    moves="caselle",
    start=(0, 0),
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    chunk_moves: int | None = None,
    progress: ProgressCallback | None = None,
    resume: bool = False,
    encoding: str = "u8",
):
    """Write the block cycle from ``start`` as an ``.rpath`` path (its last cell one move from
    its first), chunks in threads or on Dask. Returns the header."""
    from rompicapo.paths.rpath import DEFAULT_CHUNK_MOVES, write_rpath

    bc = BlockCycle(rows, cols, moves, start)
    return write_rpath(
        filename,
        rows,
        cols,
        bc.start,
        bc.moves,
        chunk_task=write_cycle_chunks,
        method="blocks-cycle",
        chunk_moves=chunk_moves or DEFAULT_CHUNK_MOVES,
        jobs=jobs,
        scheduler=scheduler,
        progress=progress,
        resume=resume,
        encoding=encoding,
    )
