"""Path files, written and read back: [`write_path()`][rompicapo.paths.write_path] and
[`load_path()`][rompicapo.paths.load_path].

Three formats, chosen by the file's suffix, each read back as what was written:

- ``.npy``: the flat cells ``r * cols + c`` as a numpy array (read memory-mapped);
- ``.rpath``: the start and the moves in checksummed chunks (`rompicapo.paths.rpath`),
  one byte per move or 3 bits (``packed``); the file knows its board;
- ``.txt``: the numbered grid as ``rompicapo path`` prints it (one line per row, the step at
  which each cell is visited, 1 = the start), for boards of up to a million cells.

```pycon
>>> import numpy as np, tempfile, os
>>> snake = np.array([0, 1, 2, 5, 4, 3])          # 2 x 3, rook steps
>>> folder = tempfile.mkdtemp()
>>> for suffix in (".npy", ".rpath", ".txt"):
...     name = write_path(snake, os.path.join(folder, "p" + suffix), rows=2, cols=3,
...                       moves="0,1;1,0")
...     assert load_path(name).tolist() == snake.tolist()
>>> print(open(os.path.join(folder, "p.txt")).read(), end="")
1 2 3
6 5 4

```

The verifiers read files with their own code (`rompicapo.paths.verify`,
`rompicapo.paths.verify_stream`), not with this module (which opens ``.npy`` files with
the verifier's careful reader, and decodes ``.rpath`` files with the writer's codec).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from rompicapo.common import (
    InputError,
    InternalError,
    atomic_path,
    check_memory,
    check_output_path,
    open_input,
    read_text,
)
from rompicapo.paths.board import parse_size
from rompicapo.paths.moves import MoveSet, parse_moves
from rompicapo.paths.result import PathResult

__all__ = ["PATH_SUFFIXES", "load_path", "write_path"]

# What a path file may be: a numpy array of flat cells, the streamed move format, or the
# numbered grid as text.
PATH_SUFFIXES = (".npy", ".rpath", ".txt")


def suffix_of(path: str | os.PathLike[str]) -> str:
    """The format of a path file: ``".rpath"``, ``".txt"``, or ``".npy"`` for any other name
    (a ``.npy`` file is read whatever its name, as before)."""
    name = os.fspath(path).lower()
    return next((s for s in (".rpath", ".txt") if name.endswith(s)), ".npy")


# --------------------------------------------------------------------------------------------
# write_path
# --------------------------------------------------------------------------------------------


def write_path(
    path_or_result: PathResult | np.ndarray | Any,
    filename: str | os.PathLike[str],
    verify: bool = True,
    *,
    rows: int | None = None,
    cols: int | None = None,
    moves: str | MoveSet = "caselle",
    start: tuple[int, int] | None = None,
    closed: bool = False,
    packed: bool = False,
) -> Path:
    """Write a path to ``filename``: ``.npy`` (the flat cells ``r * cols + c``), ``.rpath``
    (its start and moves, one byte per move, or 3 bits with ``packed``) or ``.txt`` (the
    numbered grid); [`load_path()`][rompicapo.paths.load_path] reads each back.

    ``path_or_result`` is a [`PathResult`][rompicapo.paths.PathResult] with a path (its board, moves
    and start are used), or an array of flat cells with ``rows`` and ``cols`` (and ``moves``,
    ``start``, ``closed`` when they matter). With ``verify`` the independent verifier checks the
    path first: an invalid array is an [`InputError`][rompicapo.common.InputError], an invalid
    result an [`InternalError`][rompicapo.common.InternalError] (a solver bug). The extension must
    be known (no suffix is appended) and the folder writable; the file appears whole or not at all.
    Returns the path written.

    ```pycon
    >>> import numpy as np
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     name = write_path(np.array([0, 1, 3, 2]), Path(folder, "path.txt"), rows=2, cols=2,
    ...                       moves="0,1;1,0")
    ...     print(name.name)
    ...     print(name.read_text(), end="")  # the numbered grid: step 1 at (0, 0)
    path.txt
    1 2
    4 3
    >>> write_path(np.array([0, 3, 1, 2]), "bad.npy", rows=2, cols=2, moves="0,1;1,0")
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: not writing 'bad.npy': not a valid path: step 1 -> 2: (0, 0)
    to (1, 1) is not a move of the set 0,1;0,-1;1,0;-1,0

    ```"""
    method = ""
    from_result = isinstance(path_or_result, PathResult)
    if from_result:
        res = path_or_result
        if not res.found or res.path is None:
            raise InputError(f"the result holds no complete path to write (it is {res.status!r})")
        path, rows, cols, mset = res.path, res.rows, res.cols, res.moves
        start, closed, method = res.start, res.closed, res.method
    else:
        if rows is None:
            raise InputError("write_path of an array needs the board: rows (and cols)")
        rows, cols = parse_size((rows, rows if cols is None else cols))
        mset = parse_moves(moves)
        path = np.asarray(path_or_result)
        if path.ndim != 1 or path.dtype.kind not in "iu":
            raise InputError(
                f"a path is a 1-D array of integer cells, got shape {path.shape} of {path.dtype}"
            )
    target = check_path_output(filename, "path file", rows * cols, packed)
    if verify:
        from rompicapo.paths.verify import verify_path

        check = verify_path(path, rows, cols, mset, start=start, closed=closed)
        if not check:
            if from_result:
                raise InternalError(f"the verifier rejects the solver's path: {check.reason}")
            raise InputError(f"not writing {str(target)!r}: not a valid path: {check.reason}")
    with atomic_path(target) as tmp:
        _WRITERS[suffix_of(target)](tmp, path, rows, cols, mset, method, packed)
    return target


def check_path_output(filename, what: str, cells: int, packed: bool = False) -> Path:
    """``filename`` checked as a path file to write (a known suffix, a writable folder), before
    any work: ``packed`` needs ``.rpath``, and ``.txt`` a board it can print."""
    from rompicapo.paths.render import TEXT_MAX_CELLS

    target = check_output_path(filename, what, suffixes=PATH_SUFFIXES)
    suffix = suffix_of(target)
    if packed and suffix != ".rpath":
        raise InputError("packed applies to .rpath files")
    if suffix == ".txt" and cells > TEXT_MAX_CELLS:
        raise InputError(
            f"{target}: a numbered grid of {cells:,} cells is too large to read; .txt takes "
            f"boards of up to {TEXT_MAX_CELLS:,} cells (use .npy or .rpath)"
        )
    return target


def _write_npy(tmp: Path, path, rows, cols, mset, method, packed) -> None:
    with open(tmp, "wb") as fh:
        np.save(fh, path)


def _write_rpath(tmp: Path, path, rows, cols, mset, method, packed) -> None:
    from rompicapo.paths.rpath import write_path_array

    encoding = "u3" if packed else "u8"
    write_path_array(tmp, path, rows, cols, mset.moves, method=method, encoding=encoding)


def _write_text(tmp: Path, path, rows, cols, mset, method, packed) -> None:
    from rompicapo.paths.render import grid_text

    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(grid_text(path, rows, cols) + "\n")


_WRITERS = {".npy": _write_npy, ".rpath": _write_rpath, ".txt": _write_text}


# --------------------------------------------------------------------------------------------
# load_path
# --------------------------------------------------------------------------------------------


def load_path(filename: str | os.PathLike[str]) -> np.ndarray:
    """The path saved in ``filename`` by [`write_path()`][rompicapo.paths.write_path], as a 1-D
    integer array of flat cells ``r * cols + c``: a ``.npy`` file memory-mapped read-only (any name
    other than ``.rpath`` and ``.txt`` is read as ``.npy``), an ``.rpath`` file decoded from its
    start and moves (int32 below 2^31 cells, int64 above), a ``.txt`` numbered grid (int64).

    Raises [`InputError`][rompicapo.common.InputError] with one line, ``"FILE is not a path: ..."``,
    for a missing file, a directory, a file of another kind (text, pickle, ``.npz``, truncated), an
    array that is not a 1-D integer array, a damaged ``.rpath`` chunk, or a grid that does not
    number every cell once. The path itself is not checked:
    [`verify_path()`][rompicapo.paths.verify_path] does that.

    ```pycon
    >>> import tempfile
    >>> import numpy as np
    >>> from pathlib import Path
    >>> from rompicapo.paths import construct
    >>> result = construct(5, 7, start=(2, 3), seed=1)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     for name in ("path.npy", "path.rpath", "path.txt"):
    ...         back = load_path(write_path(result, Path(folder, name)))
    ...         print(name, back.dtype, np.array_equal(back, result.path))
    path.npy int32 True
    path.rpath int32 True
    path.txt int64 True
    >>> load_path("no-such-path.npy")
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: no-such-path.npy is not a path: no such file

    ```"""
    name = os.fspath(filename)
    if not os.path.exists(name):
        raise InputError(f"{name} is not a path: no such file")
    if os.path.isdir(name):
        raise InputError(f"{name} is not a path: it is a directory")
    return _READERS[suffix_of(name)](name)


def _read_npy(name: str) -> np.ndarray:
    """The array, memory-mapped: numpy's own format, read with the verifier's careful opener
    (a FIFO, a pickle or an ``.npz`` archive is refused, never read)."""
    from rompicapo.paths.verify import read_path_array

    return read_path_array(name)


def _read_rpath(name: str) -> np.ndarray:
    """The cells from the start and the moves, chunk by chunk (each chunk's checksum checked
    by `read_chunk()`)."""
    from rompicapo.paths.rpath import read_chunk, read_header

    header = read_header(name)
    rows, cols, n = header.rows, header.cols, header.cells
    dtype = np.int32 if n <= 2**31 - 1 else np.int64
    check_memory(n * (np.dtype(dtype).itemsize + 16), f"the {rows}x{cols} path of {name}")
    dr = np.array([m[0] for m in header.moves], np.int64)
    dc = np.array([m[1] for m in header.moves], np.int64)
    path = np.empty(n, dtype)
    r, c = header.start
    path[0] = r * cols + c
    with open_input(name, ".rpath file") as f:
        for i in range(header.n_chunks):
            try:
                moves = read_chunk(f, header, i)
            except InputError as exc:
                raise InputError(f"{name} is not a path: {exc}") from None
            if len(moves) and int(moves.max()) >= len(dr):
                raise InputError(f"{name} is not a path: chunk {i} names a move not in the file")
            rr = r + np.cumsum(dr[moves])
            cc = c + np.cumsum(dc[moves])
            off = (rr < 0) | (rr >= rows) | (cc < 0) | (cc >= cols)
            lo, hi = header.chunk_range(i)
            if off.any():
                step = lo + int(np.argmax(off)) + 2
                raise InputError(f"{name} is not a path: step {step:,} leaves the board")
            path[lo + 1 : hi + 1] = rr * cols + cc
            r, c = int(rr[-1]), int(cc[-1])
    return path


def _read_text(name: str) -> np.ndarray:
    """The path from a numbered grid: the cell numbered k is the k-th of the path."""
    text = read_text(name, "path file")
    try:
        lines = [[int(v) for v in line.split()] for line in text.splitlines() if line.strip()]
    except ValueError:
        raise InputError(f"{name} is not a path: not a grid of step numbers") from None
    rows, cols = len(lines), len(lines[0]) if lines else 0
    if not rows or any(len(line) != cols for line in lines):
        raise InputError(f"{name} is not a path: the grid's rows are not all the same length")
    try:
        steps = np.array(lines, np.int64).ravel()
    except OverflowError:  # a number of more than 19 digits: no step of any board
        raise InputError(f"{name} is not a path: a step number is too large") from None
    n = rows * cols
    order = np.argsort(steps, kind="stable")
    if not np.array_equal(steps[order], np.arange(1, n + 1)):
        raise InputError(f"{name} is not a path: the grid does not number its {n} cells 1..{n}")
    return order.astype(np.int64)


_READERS = {".npy": _read_npy, ".rpath": _read_rpath, ".txt": _read_text}
