"""The independent path verifier: is this array a path that visits every cell once?

A *path* on an R x C board is a 1-D integer array of flat row-major cell indices
(``r * cols + c``). It is valid when

1. it has exactly R×C entries, all in ``0 .. R*C-1``;
2. no cell appears twice (so, with 1., every cell appears once);
3. every two consecutive cells are one move of the move set apart;
4. optionally, it starts at a given cell, and (``closed=True``) its last cell is one move from
   its first.

This module shares nothing with the constructor: it imports only numpy and
`rompicapo.common`, reads move sets with its own few lines (`read_moves()`), and
checks moves by coordinates (the row and column differences of consecutive cells looked up in a
small table), not by the constructor's neighbour arithmetic.

Memory: a ``bool`` array with one byte per cell records the cells seen so far; the path itself is
read in chunks of ``chunk`` steps, each converted to int32 (int64 above 2^31 cells) temporaries,
so a path of 10^9 cells (int32 or int64, or a read-only ``np.memmap`` from
``np.load(..., mmap_mode="r")``) is checked with about 1 GB of extra memory and never copied
whole (measured on 30000 x 30000 from a memmap: 0.95 GB of anonymous memory at the peak).

Messages number steps from 1, as on paper, and give cells as ``(row, col)`` counted from 0::

    step 17 -> 18: (2, 3) to (2, 5) is not a caselle move
    cell (4, 1) is visited twice (steps 3 and 40)
    step 12: index 104 is outside the 10x10 board
    the path has 99 cells, the 10x10 board has 100: cell (0, 2) is never visited

```pycon
>>> import numpy as np
>>> verify_path(np.array([0, 1, 3, 2]), 2, 2, "0,1;1,0")
PathCheck(ok=True, reason='')
>>> verify_path(np.array([0, 3, 1, 2]), 2, 2, "0,1;1,0").reason
'step 1 -> 2: (0, 0) to (1, 1) is not a move of the set 0,1;0,-1;1,0;-1,0'

```"""

from __future__ import annotations

import math
import operator
import os
from dataclasses import dataclass

import numpy as np

from rompicapo.common import InputError, check_memory, open_input

__all__ = [
    "RECOUNT_MAX_CELLS",
    "Moves",
    "PathCheck",
    "read_moves",
    "read_path_array",
    "recount_paths",
    "verify_path",
    "verify_path_file",
]

# 2^20 steps per chunk: the temporaries of one chunk (a dozen arrays of 4-8 bytes per step, ~60
# MB) stay in or near the cache, while each numpy call still works on a million elements so its
# per-call overhead is invisible. Measured on a 10^4 x 10^4 path (int32): 2^20 checks 76 M
# cells/s, 2^18 59 M, 2^24 25 M (the temporaries then stream through main memory).
DEFAULT_CHUNK = 1 << 20

# Bytes of temporaries per step of a chunk (coordinates, differences, keys, masks), used for
# the memory estimate before allocating.
_TEMP_BYTES_PER_STEP = 64


# --------------------------------------------------------------------------------------------
# Move sets, read by the verifier itself
# --------------------------------------------------------------------------------------------

# The named leapers from their definitions: caselle jumps 3 cells along a row or a column or 2
# along a diagonal; the knight 1 one way and 2 the other.
_NAMED = {
    "caselle": frozenset({(3, 0), (-3, 0), (0, 3), (0, -3), (2, 2), (2, -2), (-2, 2), (-2, -2)}),
    "knight": frozenset((a, b) for a in (-2, -1, 1, 2) for b in (-2, -1, 1, 2) if abs(a) != abs(b)),
}
_LONGEST = 64  # cells along an axis: a longer move is refused (its lookup table would be big)


@dataclass(frozen=True)
class Moves:
    """A move set as the verifiers read it: its moves (closed under negation) and its name
    (``caselle``, ``knight``, or the moves written ``DR,DC;DR,DC;...``)."""

    moves: tuple[tuple[int, int], ...]
    name: str

    @property
    def named(self) -> bool:
        return self.name in _NAMED

    @property
    def reach(self) -> int:
        return max(max(abs(dr), abs(dc)) for dr, dc in self.moves)


def read_moves(moves: object) -> Moves:
    """``"caselle"``, ``"knight"``, ``"DR,DC;DR,DC;..."`` (the negations added), pairs, or any
    object with a ``moves`` attribute of pairs (a [`MoveSet`][rompicapo.paths.MoveSet]), as a
    `Moves`. [`InputError`][rompicapo.common.InputError] for anything else, an empty set, (0, 0), or
    a move longer than 64 cells along an axis."""
    if isinstance(moves, str) and moves.strip().lower() in _NAMED:
        name = moves.strip().lower()
        return Moves(tuple(sorted(_NAMED[name])), name)
    try:
        if isinstance(moves, str):
            parts = [p.split(",") for p in moves.split(";") if p.strip()]
            pairs = [(int(a), int(b)) for a, b in parts]
        else:
            pairs = [(int(a), int(b)) for a, b in getattr(moves, "moves", moves)]
    except (TypeError, ValueError):
        raise InputError(
            f"unknown move set {moves!r}: use caselle, knight or 'DR,DC;DR,DC;...'"
        ) from None
    if not pairs:
        raise InputError(f"empty move set {moves!r}")
    if (0, 0) in pairs:
        raise InputError("the move (0, 0) does not go anywhere")
    if max(max(abs(a), abs(b)) for a, b in pairs) > _LONGEST:
        raise InputError(f"a move of {moves!r} is longer than {_LONGEST} cells along an axis")
    closed: list[tuple[int, int]] = []
    negated = all((-a, -b) in pairs for a, b in pairs)
    for a, b in pairs:  # each move, then its negation unless the list has them all already
        for m in ((a, b),) if negated else ((a, b), (-a, -b)):
            if m not in closed:
                closed.append(m)
    name = next((k for k, table in _NAMED.items() if set(closed) == table), None)
    return Moves(tuple(closed), name or ";".join(f"{a},{b}" for a, b in closed))


@dataclass(frozen=True)
class PathCheck:
    """The verdict on a path: ``ok``, or the first problem found and where it is.

    ``bool(check)`` is ``check.ok``; ``reason`` is ``""`` when the path is valid.

    ```pycon
    >>> import numpy as np
    >>> check = verify_path(np.array([0, 3, 1, 2]), 2, 2, "0,1;1,0")
    >>> bool(check), check.ok
    (False, False)
    >>> print(check)
    step 1 -> 2: (0, 0) to (1, 1) is not a move of the set 0,1;0,-1;1,0;-1,0
    >>> print(verify_path(np.array([0, 1, 3, 2]), 2, 2, "0,1;1,0"))
    valid path

    ```"""

    ok: bool
    """True when the path is valid."""
    reason: str = ""
    """The first problem found and where it is; ``""`` when the path is valid."""

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return "valid path" if self.ok else self.reason


def verify_path(
    path: object,
    rows: int,
    cols: int,
    moves: object = "caselle",
    *,
    start: int | tuple[int, int] | None = None,
    closed: bool = False,
    chunk: int = DEFAULT_CHUNK,
) -> PathCheck:
    """Check that ``path`` visits every cell of the ``rows`` x ``cols`` board once by legal moves.

    ``path``: a 1-D integer array (or anything ``np.asarray`` turns into one) of flat row-major
    indices. ``moves``: a move-set name, spec or move set (see `read_moves()`). ``start``:
    a flat index or a ``(row, col)`` pair the path must begin at. ``closed``: the last cell
    must also be one move from the first. ``chunk``: steps checked per vectorised batch.

    Returns a [`PathCheck`][rompicapo.paths.PathCheck]; a wrong path (including a non-integer dtype,
    a wrong number of dimensions or an empty array) is a ``PathCheck(False, reason)``, never an
    exception. The reason names the first problem: a wrong length first, then a wrong start cell,
    then, in step order, an index outside the board, a step that is not a move, or a repeated cell
    (at the same step, in that order).

    Raises [`InputError`][rompicapo.common.InputError] for a bad board size, start cell, move set or
    chunk, and [`InsufficientMemoryError`][rompicapo.common.InsufficientMemoryError] when the
    seen-array would not fit.

    ```pycon
    >>> import numpy as np
    >>> verify_path(np.array([0, 1, 2, 3]), 2, 2).reason
    'step 1 -> 2: (0, 0) to (0, 1) is not a caselle move'

    ```
    """
    rows, cols = _board_size(rows, cols)
    move_set = read_moves(moves)
    n_cells = rows * cols
    start_cell = None if start is None else _flat_cell(start, rows, cols)
    chunk = operator.index(chunk)
    if chunk < 1:
        raise InputError(f"chunk must be at least 1 step, got {chunk}")

    arr, problem = _as_path_array(path)
    if problem:
        return PathCheck(False, problem)
    assert arr is not None
    board = _Board(rows, cols, move_set)
    length = int(arr.shape[0])
    if length > n_cells:
        return PathCheck(False, board.length_message(length))
    check_memory(
        n_cells + _TEMP_BYTES_PER_STEP * min(chunk, length),
        f"verifying a path on the {rows}x{cols} board",
    )

    first = arr[0]
    if start_cell is not None and 0 <= first < n_cells and int(first) != start_cell:
        return PathCheck(
            False,
            f"step 1: the path starts at {board.cell(int(first))}, "
            f"not at the required start {board.cell(start_cell)}",
        )

    seen = np.zeros(n_cells, dtype=bool)
    problem = _scan(arr, board, seen, chunk)
    if length < n_cells:
        message = board.length_message(length)
        if problem is None:
            message += f": cell {board.cell(int(np.argmin(seen)))} is never visited"
        return PathCheck(False, message)
    if problem is not None:
        return PathCheck(False, problem)
    if closed:
        last, head = int(arr[-1]), int(arr[0])
        if not board.is_move(last, head):
            return PathCheck(
                False,
                f"the path is not closed: its last cell {board.cell(last)} (step {length}) is not "
                f"{board.move_words} away from its first cell {board.cell(head)}",
            )
    return PathCheck(True, "")


def verify_path_file(
    filename: str | os.PathLike[str],
    rows: int,
    cols: int,
    moves: object = "caselle",
    *,
    start: int | tuple[int, int] | None = None,
    closed: bool = False,
) -> PathCheck:
    """[`verify_path()`][rompicapo.paths.verify_path] on a ``.npy`` file, memory-mapped read-only
    (never loaded whole), or on a ``.txt`` numbered grid (one line per row, the step of each cell, 1
    = the start).

    Raises [`InputError`][rompicapo.common.InputError] ("FILE is not a path: ...") when the file is
    missing or is not a 1-D integer ``.npy`` array (or a grid of integers); a readable array that is
    a wrong path gives ``PathCheck(False, reason)``.

    ```pycon
    >>> import numpy as np
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     np.save(Path(folder, "good.npy"), np.array([0, 1, 3, 2]))
    ...     np.save(Path(folder, "bad.npy"), np.array([0, 1, 2, 3]))
    ...     print(verify_path_file(Path(folder, "good.npy"), 2, 2, "0,1;1,0"))
    ...     print(verify_path_file(Path(folder, "bad.npy"), 2, 2, "0,1;1,0"))
    valid path
    step 2 -> 3: (0, 1) to (1, 0) is not a move of the set 0,1;0,-1;1,0;-1,0

    ```"""
    if os.fspath(filename).lower().endswith(".txt"):
        grid = _read_grid(filename)
        if grid.shape != (rows, cols):
            shape = "x".join(str(x) for x in grid.shape)
            return PathCheck(False, f"the grid is {shape}, not the {rows}x{cols} board")
        # cell k is visited at step grid[k]: the cell of step t goes to place t - 1
        steps = grid.ravel() - 1
        n = steps.size
        if steps.min() < 0 or steps.max() >= n or np.bincount(steps, minlength=n).max() != 1:
            return PathCheck(False, f"the grid does not number its {n} cells 1..{n} once each")
        path = np.empty(n, np.int64)
        path[steps] = np.arange(n)
        return verify_path(path, rows, cols, moves, start=start, closed=closed)
    arr = read_path_array(filename)
    return verify_path(arr, rows, cols, moves, start=start, closed=closed)


def _read_grid(filename: str | os.PathLike[str]) -> np.ndarray:
    """The verifier's own reading of a numbered grid: a 2-D array of integers."""
    name = os.fspath(filename)
    with open_input(name, "path file") as fh:
        data = fh.read(64 << 20)
    try:
        rows = [[int(v) for v in line.split()] for line in data.decode().splitlines()]
        rows = [row for row in rows if row]
        if not rows or len({len(row) for row in rows}) != 1:
            raise ValueError
    except (ValueError, UnicodeDecodeError):
        raise InputError(f"{name} is not a path: not a grid of step numbers") from None
    try:
        return np.array(rows, np.int64)
    except OverflowError:  # a number of more than 19 digits: no step of any board
        raise InputError(f"{name} is not a path: a step number is too large") from None


def _npy_claims(fh) -> int | None:
    """The bytes a ``.npy`` file's header says its data takes, header included (None: not a
    ``.npy`` header this reads, left to numpy); the file is read back from its start after."""
    from numpy.lib import format as npy

    try:
        version = npy.read_magic(fh)
        read = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}[version]
        shape, _, dtype = read(fh)
        claimed = fh.tell() + math.prod(shape) * dtype.itemsize
    except (ValueError, KeyError, OSError, EOFError, TypeError, SyntaxError):
        claimed = None
    fh.seek(0)
    return claimed


def read_path_array(filename: str | os.PathLike[str]) -> np.ndarray:
    """The verifier's own reading of a ``.npy`` file holding a 1-D integer array,
    memory-mapped read-only when possible
    ([`rompicapo.paths.load_path()`][rompicapo.paths.load_path] reads every
    path format).

    Raises [`InputError`][rompicapo.common.InputError] with one line, ``"FILE is not a path: ..."``,
    for a missing file, a directory, a file that is not ``.npy`` (text, pickle, ``.npz``,
    truncated), or an array that is not a 1-D integer array.
    """
    name = os.fspath(filename)

    def refuse(why: str) -> InputError:
        return InputError(f"{name} is not a path: {why}")

    if not os.path.exists(name):
        raise refuse("no such file")
    if os.path.isdir(name):
        raise refuse("it is a directory")
    # the one checked door for input files: a FIFO or a device is refused, never read
    fh = open_input(name, "path file")
    # numpy's memory map wants a name: the open file's own (the file checked, even if the name
    # was changed since)
    here = f"/proc/self/fd/{fh.fileno()}"
    source = here if os.path.exists(here) else name
    claimed = _npy_claims(fh)
    size = os.fstat(fh.fileno()).st_size
    if claimed is not None and claimed > size:
        # checked before numpy allocates what the header claims (10^15 entries: a MemoryError,
        # or all the memory there is)
        fh.close()
        raise refuse(
            f"not a .npy array file: its header claims {claimed:,} bytes, the file holds "
            f"{size:,} (truncated or damaged)"
        )
    try:
        try:
            arr = np.load(source, mmap_mode="r", allow_pickle=False)
        except ValueError as exc:
            if "mmap" not in str(exc):
                raise
            # mmap refuses an empty array (and a truncated file): read it plainly, which is
            # cheap for the one and fails for the other
            arr = np.load(source, allow_pickle=False)
    except ValueError:
        raise refuse("not a .npy array file") from None
    except (OSError, EOFError):
        raise refuse("not a .npy array file (unreadable or truncated)") from None
    except MemoryError:
        raise refuse("its header claims more entries than this machine's memory holds") from None
    finally:
        fh.close()
    if not isinstance(arr, np.ndarray):  # an .npz archive
        close = getattr(arr, "close", None)
        if close is not None:
            close()
        raise refuse("it is an .npz archive, not a .npy array")
    if arr.dtype.kind not in "iu":
        raise refuse(f"its dtype is {arr.dtype}, not an integer type")
    if arr.ndim != 1:
        raise refuse(f"it is a {arr.ndim}-D array of shape {arr.shape}, not a 1-D array")
    return arr


# --------------------------------------------------------------------------------------------
# Board geometry and the move table
# --------------------------------------------------------------------------------------------


class _Board:
    """Coordinates, messages and the move lookup table of one board and move set.

    The table has ``side + 1`` rows and columns (``side = 2 * reach + 1``): entry
    ``(dr + reach, dc + reach)`` says whether ``(dr, dc)`` is a move, and the extra last row and
    column, always False, catch every difference beyond the reach (differences are clamped to
    them).
    """

    def __init__(self, rows: int, cols: int, move_set: Moves) -> None:
        self.rows, self.cols, self.n_cells = rows, cols, rows * cols
        # Coordinates in int32 when every index fits: integer division, the dominant cost of
        # the scan, is 2.5x faster on int32 than on int64 (1.5 vs 3.8 ns per element measured).
        self.dtype = np.dtype(np.int32 if self.n_cells < 2**31 else np.int64)
        self.udtype = np.dtype(np.uint32 if self.n_cells < 2**31 else np.uint64)
        self.reach = move_set.reach
        self.side = 2 * self.reach + 1
        self.table = np.zeros((self.side + 1) * (self.side + 1), dtype=bool)
        for dr, dc in move_set.moves:
            self.table[(dr + self.reach) * (self.side + 1) + (dc + self.reach)] = True
        if move_set.named:
            self.move_words = f"one {move_set.name} move"
            self.not_a_move = f"is not a {move_set.name} move"
        else:
            self.move_words = f"one move of the set {move_set.name}"
            self.not_a_move = f"is not a move of the set {move_set.name}"

    def cell(self, index: int) -> str:
        r, c = divmod(int(index), self.cols)
        return f"({r}, {c})"

    def length_message(self, length: int) -> str:
        return f"the path has {length} cells, the {self.rows}x{self.cols} board has {self.n_cells}"

    def is_move(self, a: int, b: int) -> bool:
        (ra, ca), (rb, cb) = divmod(a, self.cols), divmod(b, self.cols)
        dr, dc = rb - ra, cb - ca
        if abs(dr) > self.reach or abs(dc) > self.reach:
            return False
        return bool(self.table[(dr + self.reach) * (self.side + 1) + (dc + self.reach)])

    def first_bad_move(self, r: np.ndarray, c: np.ndarray) -> int:
        """Index i of the first pair (i, i + 1) of consecutive cells that is not a move, or -1.

        ``r`` and ``c`` are the row and column arrays, of dtype ``self.dtype``.
        """
        if r.shape[0] < 2:
            return -1
        keys = []
        for coord in (r, c):
            diff = coord[1:] - coord[:-1]
            diff += self.reach
            # A legal difference now lies in 0 .. side-1; read as unsigned, a negative one is
            # huge, so clamping to side (the all-False row/column) bounds it on both sides.
            unsigned = diff.view(self.udtype)
            np.minimum(unsigned, self.side, out=unsigned)
            keys.append(diff)
        key = keys[0]
        key *= self.side + 1
        key += keys[1]
        # intp keys: take() converts narrower index arrays itself, slower (measured: 1.3 ns per
        # element with int32 keys, 0.4 with intp, 0.15 for the conversion)
        key = key.astype(np.intp, copy=False)
        legal = self.table.take(key)
        if legal.all():
            return -1
        return int(np.argmin(legal))


# --------------------------------------------------------------------------------------------
# The chunked scan
# --------------------------------------------------------------------------------------------


def _scan(arr: np.ndarray, board: _Board, seen: np.ndarray, chunk: int) -> str | None:
    """Walk the path in chunks; mark ``seen``; return the first problem in step order, or None.

    Per chunk: indices outside the board, illegal steps (including the one entering the chunk
    from the previous chunk's last cell) and cells already marked by earlier chunks are found
    vectorised. A cell repeated *within* one chunk is invisible to that test; it shows as fewer
    marked cells than steps marked, counted once when the scan stops, and only then is located
    (by sorting chunks, the slow path taken only for a wrong path).
    """
    n_cells = board.n_cells
    length = int(arr.shape[0])
    unsigned = arr.dtype.kind == "u"
    marked = 0
    prev = -1  # the last cell of the previous chunk
    for lo in range(0, length, chunk):
        raw = arr[lo : lo + chunk]
        outside = raw >= n_cells if unsigned else (raw < 0) | (raw >= n_cells)
        limit = int(np.argmax(outside)) if outside.any() else raw.shape[0]
        v = np.asarray(raw[:limit], dtype=board.dtype)
        r, c = np.divmod(v, board.dtype.type(board.cols))

        # (position in the chunk, kind): kinds order problems found at the same step
        found: list[tuple[int, int, str]] = []
        if limit < raw.shape[0]:
            step = lo + limit + 1
            found.append(
                (limit, 0, f"step {step}: index {raw[limit]} is outside the {board.rows}x"
                 f"{board.cols} board")
            )  # fmt: skip
        if lo > 0 and limit > 0 and not board.is_move(prev, int(v[0])):
            (ra, ca), (rb, cb) = divmod(prev, board.cols), divmod(int(v[0]), board.cols)
            found.append((0, 1, _move_message(board, lo - 1, ra, ca, rb, cb)))
        bad = board.first_bad_move(r, c)
        if bad >= 0:
            found.append(
                (bad + 1, 1, _move_message(board, lo + bad, r[bad], c[bad], r[bad + 1], c[bad + 1]))
            )
        again = seen[v]
        if again.any():
            j = int(np.argmax(again))
            first = _first_occurrence(arr, int(v[j]), 0, lo, chunk)
            found.append((j, 2, _repeat_message(board, int(v[j]), first, lo + j)))

        if found:
            stop, _, message = min(found)
            seen[v[:stop]] = True
            marked += stop
            if np.count_nonzero(seen) != marked:
                return _first_inner_repeat(arr, board, lo + stop, chunk)
            return message
        seen[v] = True
        marked += limit
        prev = int(v[-1])
    if np.count_nonzero(seen) != marked:
        return _first_inner_repeat(arr, board, length, chunk)
    return None


def _move_message(board: _Board, i: int, ra: int, ca: int, rb: int, cb: int) -> str:
    """The move from 0-based position ``i`` to ``i + 1`` is illegal (steps i+1 -> i+2)."""
    return f"step {i + 1} -> {i + 2}: ({ra}, {ca}) to ({rb}, {cb}) {board.not_a_move}"


def _repeat_message(board: _Board, index: int, first: int, again: int) -> str:
    return f"cell {board.cell(index)} is visited twice (steps {first + 1} and {again + 1})"


def _first_occurrence(arr: np.ndarray, value: int, lo: int, hi: int, chunk: int) -> int:
    """The first position in ``arr[lo:hi]`` holding ``value`` (scanned in chunks), or -1."""
    for a in range(lo, hi, chunk):
        hits = np.flatnonzero(arr[a : min(a + chunk, hi)] == value)
        if hits.size:
            return a + int(hits[0])
    return -1


def _first_inner_repeat(arr: np.ndarray, board: _Board, stop: int, chunk: int) -> str:
    """Locate the earliest repeat among ``arr[:stop]``, known to lie inside one chunk."""
    for lo in range(0, stop, chunk):
        v = np.asarray(arr[lo : min(lo + chunk, stop)], dtype=board.dtype)
        order = np.argsort(v, kind="stable")
        ordered = v[order]
        later = order[1:][ordered[1:] == ordered[:-1]]
        if later.size:
            j = int(later.min())
            first = _first_occurrence(v, int(v[j]), 0, j, chunk)
            return _repeat_message(board, int(v[j]), lo + first, lo + j)
    raise AssertionError("a repeat was counted but not found")  # pragma: no cover


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


def _board_size(rows: object, cols: object) -> tuple[int, int]:
    try:
        r, c = operator.index(rows), operator.index(cols)  # type: ignore[arg-type]
    except TypeError:
        raise InputError(f"a board size is two integers, got {rows!r} x {cols!r}") from None
    if r < 1 or c < 1:
        raise InputError(f"a board has at least 1 row and 1 column, got {r}x{c}")
    return r, c


def _flat_cell(cell: object, rows: int, cols: int) -> int:
    """A flat index or a (row, col) pair -> flat index, checked to be on the board."""
    try:
        if isinstance(cell, tuple | list | np.ndarray) and len(cell) == 2:
            r, c = operator.index(cell[0]), operator.index(cell[1])
            if not (0 <= r < rows and 0 <= c < cols):
                raise InputError(f"start cell ({r}, {c}) is outside the {rows}x{cols} board")
            return r * cols + c
        index = operator.index(cell)  # type: ignore[arg-type]
    except TypeError:
        raise InputError(
            f"a start cell is a flat index or a (row, col) pair, got {cell!r}"
        ) from None
    if not 0 <= index < rows * cols:
        raise InputError(f"start index {index} is outside the {rows}x{cols} board")
    return index


def _as_path_array(path: object) -> tuple[np.ndarray | None, str]:
    """The path as a 1-D integer ndarray (no copy of an ndarray), or None and why not."""
    if isinstance(path, np.ndarray):
        arr = path
    else:
        try:
            arr = np.asarray(path)
        except (TypeError, ValueError):
            return None, f"the path is not an array of integers ({type(path).__name__})"
    if arr.dtype.kind not in "iu":
        return None, f"the path has dtype {arr.dtype}; a path is an array of integer cell indices"
    if arr.ndim != 1:
        return None, (
            f"the path is a {arr.ndim}-D array of shape {arr.shape}; "
            "a path is a 1-D array of flat cell indices"
        )
    if arr.shape[0] == 0:
        return None, "the path is empty"
    return arr, ""


# --------------------------------------------------------------------------------------------
# An independent recount, for small boards
# --------------------------------------------------------------------------------------------

# A plain depth-first count in Python visits every partial path: about 10^5 of them per start
# at 20 cells (4 x 5 caselle), a second or so. Beyond this many cells the recount is refused.
RECOUNT_MAX_CELLS = 20


def recount_paths(
    rows: int,
    cols: int,
    moves: object,
    start: tuple[int, int],
    *,
    closed: bool = False,
) -> int:
    """The number of paths through every cell of the board from ``start`` (closed tours only
    with ``closed``), by a plain depth-first search with no pruning: code that shares nothing
    with the counting kernel, slow on purpose, for boards of at most
    `RECOUNT_MAX_CELLS` cells.

    ```pycon
    >>> recount_paths(4, 5, "caselle", (0, 0))   # as rompicapo count 4x5 --start 0,0
    6

    ```"""
    rows, cols = _board_size(rows, cols)
    if rows * cols > RECOUNT_MAX_CELLS:
        raise InputError(
            f"the plain recount takes boards of at most {RECOUNT_MAX_CELLS} cells, "
            f"not {rows}x{cols}"
        )
    ms = read_moves(moves)
    n = rows * cols
    neighbours = [
        [
            (r + dr) * cols + (c + dc)
            for dr, dc in ms.moves
            if 0 <= r + dr < rows and 0 <= c + dc < cols
        ]
        for r in range(rows)
        for c in range(cols)
    ]
    first = _flat_cell(start, rows, cols)
    home = set(neighbours[first])

    def walk(cell: int, seen: int, depth: int) -> int:
        if depth == n:
            return 1 if not closed or cell in home else 0
        return sum(
            walk(nxt, seen | (1 << nxt), depth + 1)
            for nxt in neighbours[cell]
            if not seen >> nxt & 1
        )

    return walk(first, 1 << first, 1)
