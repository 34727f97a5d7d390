"""The deterministic block construction: a caselle path of any R x C board with R, C >= 5,
with O(1) random access and no search.

The rows are cut into *bands* and the columns into *blocks*, each part 5..9 long (the fewest
parts, as equal as possible: 23 = 7 + 8 + 8). The path runs through the blocks of band 0 from
left to right, turns down into the last block of band 1, runs back right to left, and so on
(boustrophedon). Inside each block it follows a path from the block table
(`rompicapo.paths.block_table`): it enters at the block's top corner on the side it comes
from and leaves one jump away from the next block's entry. So the path starts at ``(0, 0)``.

Because every block's place in the path is arithmetic (band by row, block by column, a table
look-up inside), `BlockPath.cell_at()` and `BlockPath.step_of()` answer in O(1) without
building anything: step 10^12 of a 10^6 x 10^6 board costs the same as step 1. Writing the
whole path (`BlockPath.fill_path()`) or its moves (`BlockPath.fill_moves()`) copies table
rows with an offset, in threads over slices.

Steps are numbered from 1, as on the paper board: step 1 is the start, step R×C the last cell.

```pycon
>>> bp = BlockPath(10, 10)
>>> bp.cell_at(1), bp.cell_at(100)
((0, 0), (6, 2))
>>> bp.step_of((9, 0))
84

```"""

from __future__ import annotations

import json
from functools import lru_cache

import numpy as np

from rompicapo.common import (
    InputError,
    ProgressCallback,
    check_memory,
    default_jobs,
    renamed_keywords,
    run_jobs,
)
from rompicapo.paths import _blocks_kernel as kernel
from rompicapo.paths.block_table import ROLES, SIZES, TABLE_PATH
from rompicapo.paths.moves import CASELLE
from rompicapo.paths.rpath import chunk_counter

__all__ = ["MIN_SIDE", "BlockPath", "split_length"]

MIN_SIDE = min(SIZES)  # boards with both sides >= 5 have a block path
_MAX = max(SIZES) + 1

# Steps are int64 in the kernels (with a margin for the arithmetic around them).
_MAX_CELLS = 1 << 62
# Threads write slices of at least this many cells: below it the thread start-up is not worth it.
_MIN_SLICE = 1 << 22


def split_length(n: int) -> tuple[int, int, int]:
    """Cut ``n >= 5`` into the fewest parts of 5..9, as equal as possible.

    Returns ``(parts, base, extra)``: ``parts`` parts of ``base``, the last ``extra`` of them
    one longer. With ``parts = ceil(n / 9)``, ``base = n // parts >= 5`` for every n >= 5
    (the worst case is n = 9k + 1, cut into k + 1 parts of at least 5).

    ```pycon
    >>> split_length(23)
    (3, 7, 2)

    ```"""
    if n < MIN_SIDE:
        raise InputError(f"a side of {n} is too short for the block construction (needs >= 5)")
    parts = -(-n // (_MAX - 1))
    base, extra = divmod(n, parts)
    return parts, base, extra


def _short(number: int) -> str:
    text = str(number)
    return text if len(text) <= 24 else f"{text[:10]}...({len(text)} digits)"


@lru_cache(maxsize=1)
def _table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The block table as arrays ``cells[role, h, w, k]``, ``index[role, h, w, cell]`` and
    ``moves[mirrored, role, h, w, k]`` (the last k of a block holds the exit jump)."""
    data = json.loads(TABLE_PATH.read_text())
    if [tuple(m) for m in data["moves"]] != list(CASELLE):
        raise InputError(f"{TABLE_PATH} was made for another move set")
    cells = np.full((len(ROLES), _MAX, _MAX, _MAX * _MAX), -1, np.int64)
    index = np.full_like(cells, -1)
    moves = np.full((2, len(ROLES), _MAX, _MAX, _MAX * _MAX), -1, np.int8)
    move_index = {m: k for k, m in enumerate(CASELLE)}
    mirror = [move_index[(dr, -dc)] for dr, dc in CASELLE]
    for b in data["blocks"]:
        role, h, w = ROLES.index(b["role"]), b["h"], b["w"]
        path = np.asarray(b["cells"], np.int64)
        cells[role, h, w, : h * w] = path
        index[role, h, w, path] = np.arange(h * w)
        r, c = np.divmod(path, w)
        for k in range(h * w - 1):
            m = move_index[(int(r[k + 1] - r[k]), int(c[k + 1] - c[k]))]
            moves[0, role, h, w, k] = m
            moves[1, role, h, w, k] = mirror[m]
        moves[0, role, h, w, h * w - 1] = b["exit_move"]
        moves[1, role, h, w, h * w - 1] = mirror[b["exit_move"]] if b["exit_move"] >= 0 else -1
    return cells, index, moves


class BlockPath:
    """The block construction's path of a ``rows`` x ``cols`` board (both >= 5), never stored
    whole: ask for cells, steps, slices of the path or of its moves.

    Raises [`InputError`][rompicapo.common.InputError] when a side is shorter than 5.

    ```pycon
    >>> bp = BlockPath(10**6, 10**6)  # 10^12 cells, nothing stored
    >>> bp.cell_at(10**12), bp.step_of((999999, 0))
    ((999998, 3), 999999999964)

    ```
    """

    def __init__(self, rows: int, cols: int) -> None:
        rows, cols = int(rows), int(cols)  # Python ints: the checks below cannot overflow
        if rows < MIN_SIDE or cols < MIN_SIDE:
            raise InputError(
                f"the block construction needs both sides >= {MIN_SIDE}, got {rows}x{cols}"
            )
        if rows * cols > _MAX_CELLS:
            raise InputError(
                f"a {_short(rows)}x{_short(cols)} board has more than 2^62 cells: steps would "
                "not fit in 64 bits"
            )
        self.rows = rows
        self.cols = cols
        self.cells = rows * cols
        self.geom = np.array([rows, cols, *split_length(rows), *split_length(cols)], dtype=np.int64)
        self._cells, self._index, self._moves = _table()
        self._offsets: np.ndarray | None = None

    start = (0, 0)
    moves = CASELLE

    def __repr__(self) -> str:
        return f"BlockPath({self.rows}, {self.cols})"

    @property
    def bands(self) -> list[int]:
        """Heights of the bands, top to bottom."""
        n, base, extra = (int(x) for x in self.geom[2:5])
        return [base] * (n - extra) + [base + 1] * extra

    @property
    def block_widths(self) -> list[int]:
        """Widths of the blocks, left to right (the same in every band)."""
        n, base, extra = (int(x) for x in self.geom[5:8])
        return [base] * (n - extra) + [base + 1] * extra

    # ---------------------------------------------------------------- random access

    def cell_at(self, step):
        """The cell ``(row, col)`` visited at step ``step`` (1 = the start, R×C = the end).

        ``step`` may be an int (returns a tuple of ints) or an integer array (returns two arrays,
        rows and columns). O(1) per step. Raises InputError outside 1..R×C.
        """
        scalar = np.ndim(step) == 0
        if scalar or isinstance(step, (list, tuple)):
            # exact Python ints first: a huge step must be refused, not wrap around in int64
            for s in [step] if scalar else step:
                if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
                    raise InputError(f"a step is a whole number, got {str(s)[:40]!r}")
                if not 1 <= int(s) <= self.cells:
                    raise InputError(f"step {_short(int(s))} is outside 1..{self.cells:,}")
        steps = np.atleast_1d(np.asarray(step, dtype=np.int64)) - 1
        if steps.size and (steps.min() < 0 or steps.max() >= self.cells):
            bad = int(steps.min() if steps.min() < 0 else steps.max()) + 1
            raise InputError(f"step {bad} is outside 1..{self.cells:,}")
        rr = np.empty(steps.size, np.int64)
        cc = np.empty(steps.size, np.int64)
        kernel.cells_at(self.geom, self._cells, steps.ravel(), rr, cc)
        if scalar:
            return int(rr[0]), int(cc[0])
        return rr.reshape(steps.shape), cc.reshape(steps.shape)

    def step_of(self, cell, col=None):
        """The step (1-based) at which the path visits ``cell``.

        ``cell`` is ``(r, c)`` (returns an int), or ``step_of(rows_array, cols_array)`` (returns
        an array). O(1) per cell. Raises InputError for a cell off the board.
        """
        if col is None:
            r, c = cell
            scalar = True
        else:
            r, c = cell, col
            scalar = np.ndim(r) == 0 and np.ndim(c) == 0
        if scalar:
            for v in (r, c):
                if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                    raise InputError(f"a cell is two whole numbers, got {str(cell)[:40]!r}")
            if not (0 <= int(r) < self.rows and 0 <= int(c) < self.cols):
                raise InputError(
                    f"cell ({_short(int(r))}, {_short(int(c))}) is off the "
                    f"{self.rows:,}x{self.cols:,} board"
                )
        rs = np.atleast_1d(np.asarray(r, dtype=np.int64)).ravel()
        cs = np.atleast_1d(np.asarray(c, dtype=np.int64)).ravel()
        if rs.shape != cs.shape:
            raise InputError("step_of needs as many rows as columns")
        off = (rs < 0) | (rs >= self.rows) | (cs < 0) | (cs >= self.cols)
        if off.any():
            k = int(np.argmax(off))
            raise InputError(
                f"cell ({rs[k]}, {cs[k]}) is off the {self.rows:,}x{self.cols:,} board"
            )
        out = np.empty(rs.size, np.int64)
        kernel.steps_of(self.geom, self._index, rs, cs, out)
        out += 1
        return int(out[0]) if scalar else out

    # ---------------------------------------------------------------- bulk writing

    def _offsets_for_cols(self) -> np.ndarray:
        if self._offsets is None:
            cells = self._cells
            off = np.zeros((2, *cells.shape), np.int64)
            for h in SIZES:
                for w in SIZES:
                    local = cells[:, h, w, : h * w]
                    lr, lc = np.divmod(local, w)
                    off[0, :, h, w, : h * w] = lr * self.cols + lc
                    off[1, :, h, w, : h * w] = lr * self.cols + (w - 1 - lc)
            self._offsets = off
        return self._offsets

    def fill_path(self, out: np.ndarray | None = None, first: int = 1, *, jobs: int | None = None):
        """Write the flat cells ``r * cols + c`` of steps ``first, first + 1, ...`` into ``out``
        (its length says how many; default: a new array of the whole path, int32 when the
        indices fit). Threads (``jobs``, default all cores) write slices at once.
        """
        if out is None:
            n = self.cells - first + 1
            dtype = np.int32 if self.cells <= np.iinfo(np.int32).max else np.int64
            check_memory(n * np.dtype(dtype).itemsize, f"the path of {self.cells:,} cells")
            out = np.empty(n, dtype)
        self._check_slice(first, len(out), self.cells)
        offsets = self._offsets_for_cols()
        self._in_threads(lambda f, o: kernel.fill(self.geom, offsets, f, o, True), first, out, jobs)
        return out

    def fill_moves(self, out: np.ndarray, first: int = 1, *, jobs: int | None = None) -> np.ndarray:
        """Write the moves from step ``first + t`` to ``first + t + 1`` into ``out[t]`` (uint8
        indices into `CASELLE`); there are R×C - 1 moves in all."""
        self._check_slice(first, len(out), self.cells - 1)
        self._in_threads(
            lambda f, o: kernel.fill(self.geom, self._moves, f, o, False), first, out, jobs
        )
        return out

    @staticmethod
    def _check_slice(first: int, length: int, total: int) -> None:
        if first < 1 or first - 1 + length > total:
            raise InputError(f"steps {first}..{first + length - 1} are outside 1..{total:,}")

    @staticmethod
    def _in_threads(write, first: int, out: np.ndarray, jobs: int | None) -> None:
        n = len(out)
        jobs = default_jobs() if jobs is None else max(1, int(jobs))
        parts = max(1, min(jobs, n // _MIN_SLICE))
        cuts = [n * k // parts for k in range(parts + 1)]
        slices = run_jobs(  # threads: the kernels release the GIL
            lambda k: write(first - 1 + cuts[k], out[cuts[k] : cuts[k + 1]]),
            range(parts),
            n_jobs=parts,
            threads=True,
        )
        for _ in slices:
            pass


def warm_up(part: str = "all") -> None:
    """Compile (or load from numba's cache) the block kernels on a 5x5 board: ``"path"`` (the
    path writer, what ``construct`` runs), ``"moves"`` (the move writer of ``.rpath`` files),
    ``"lookup"`` (``cells_at`` and ``steps_of``) or ``"all"``. A command compiles only the part
    it runs: each part is a kernel or a signature of its own, about a second on a cold cache."""
    warm_parts(BlockPath(5, 5), part)


def warm_parts(walker, part: str) -> None:
    """`warm_up()`'s calls on ``walker`` (a `BlockPath` or a block cycle)."""
    if part in ("lookup", "all"):
        walker.cell_at(np.array([1, walker.cells]))
        walker.step_of(np.array([0]), np.array([0]))
    if part in ("path", "all"):
        walker.fill_path()
    if part in ("moves", "all"):
        walker.fill_moves(np.empty(walker.cells - 1, np.uint8))


# ------------------------------------------------------------------------------ streaming


def write_block_chunks(task: tuple) -> int:
    """Chunk task of `write_blocks_rpath()` (runs in a thread or on a Dask worker): write
    chunks ``first .. last - 1`` of the preallocated file. Returns the chunks written."""
    from rompicapo.paths.rpath import header_from_json, write_chunks

    name, head, data_offset, first, last, resume = task
    header = header_from_json(head, data_offset)
    bp = BlockPath(header.rows, header.cols)
    return write_chunks(
        name, header, first, last, lambda lo, out: bp.fill_moves(out, lo + 1, jobs=1), resume
    )


@renamed_keywords(on_chunk=("progress", chunk_counter))
def write_blocks_rpath(
    filename,
    rows: int,
    cols: int,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    chunk_moves: int | None = None,
    progress: ProgressCallback | None = None,
    resume: bool = False,
    encoding: str = "u8",
):
    """Write the block path of a ``rows`` x ``cols`` board as an ``.rpath`` file, chunks in
    parallel on all cores (``jobs``) or on a Dask cluster (``scheduler``). Memory: a chunk
    buffer (16 MiB) per worker, whatever the board. ``resume`` keeps the chunks of an
    interrupted run whose checksums match; ``encoding="u3"`` packs 8 moves in 3 bytes. Returns the
    file's header."""
    from rompicapo.paths.rpath import DEFAULT_CHUNK_MOVES, write_rpath

    bp = BlockPath(rows, cols)
    return write_rpath(
        filename,
        rows,
        cols,
        bp.start,
        bp.moves,
        chunk_task=write_block_chunks,
        method="blocks",
        chunk_moves=chunk_moves or DEFAULT_CHUNK_MOVES,
        jobs=jobs,
        scheduler=scheduler,
        progress=progress,
        resume=resume,
        encoding=encoding,
    )
