"""The paths family's entry points, one per command, each validating everything before work.

- [`find_path()`][rompicapo.paths.find_path] (``rompicapo path``): one path, written and drawn where
  asked. Every output path (``out``, ``pdf``, ``png``, ``svg``) and the scheduler address are
  checked *before* the search, so a typo costs a second, not the search;
- [`write_path()`][rompicapo.paths.write_path] (here for earlier releases' imports): a path to
  ``.npy``, ``.rpath`` or ``.txt``, read back by [`load_path()`][rompicapo.paths.load_path];
- [`check_path_file()`][rompicapo.paths.check_path_file] (``rompicapo verify-path``): the verdict on
  a saved path;
- [`cells_at()`][rompicapo.paths.cells_at] and [`steps_of()`][rompicapo.paths.steps_of] (``rompicapo
  path-at`` / ``step-of``): random access to the block construction's path, sizes and steps compared
  as exact integers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    NotVerifiable,
    ProgressCallback,
    SearchResult,
    Stopwatch,
    atomic_path,
    check_int,
    check_output_path,
    check_time_limit,
    connect_scheduler,
    jit_warmup,
    peak_rss_bytes,
    require_extra,
    resolve_jobs,
    write_or_keep,
)
from rompicapo.paths.board import parse_cell, parse_size
from rompicapo.paths.construct import construct
from rompicapo.paths.files import PATH_SUFFIXES, check_path_output, write_path
from rompicapo.paths.moves import MoveSet, parse_moves
from rompicapo.paths.result import PathResult
from rompicapo.paths.strategies import block_method, blocks_refusal

__all__ = [
    "PATH_SUFFIXES",
    "BlockLookup",
    "FileCheck",
    "cells_at",
    "check_path_file",
    "find_path",
    "steps_of",
    "write_path",
]

_PICTURES = (("pdf", ".pdf"), ("png", ".png"), ("svg", ".svg"))


def _is_rpath(path: Path) -> bool:
    return path.name.lower().endswith(".rpath")


# --------------------------------------------------------------------------------------------
# find_path
# --------------------------------------------------------------------------------------------


def find_path(
    rows: int | str,
    cols: int | None = None,
    start: tuple[int, int] | str | int | None = None,
    moves: str | MoveSet = "caselle",
    *,
    method: str | None = None,
    out: str | os.PathLike[str] | None = None,
    packed: bool = False,
    resume: bool = False,
    pdf: str | os.PathLike[str] | None = None,
    png: str | os.PathLike[str] | None = None,
    svg: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    time_limit: float | None = None,
    progress: ProgressCallback | None = None,
    **options: Any,
) -> PathResult:
    """Find one path through every cell, check it, and write and draw it where asked.

    ``rows`` may be a size text (``"10"``, ``"5x7"``). ``start=None`` means (0, 0) with the block
    construction where it applies (``method="auto"``); a given start means the greedy search, unless
    ``method`` says otherwise. ``options`` go to
    [`construct()`][rompicapo.paths.construct.construct] (``closed``, ``seed``, ``tie_break``,
    ``max_attempts``, ``prove``, ``strips``).

    - ``out``: ``.npy`` or ``.rpath``; with the block construction and no picture, an
      ``.rpath`` is written chunk by chunk and never held in memory (``resume`` keeps the
      chunks of an interrupted run, ``scheduler`` writes and checks it on a Dask cluster).
      A path that was not completed is saved as ``NAME.partial.npy`` beside ``out``.
    - ``pdf``, ``png``, ``svg``: pictures of a found path.
    - ``time_limit``: seconds of wall clock for the whole call (the block construction is not
      a search and always completes).

    Every output path, the scheduler address and every size are checked before the search. A file
    that still cannot be written at the end (a disk that filled up) is written to another file
    instead ([`rompicapo.common.write_or_keep()`][rompicapo.common.write_or_keep]) and
    ``result.unwritten`` says what failed and where it went. Returns a
    [`PathResult`][rompicapo.paths.PathResult] with ``verified`` set by the independent verifier
    when a path was found.

    ```pycon
    >>> from pathlib import Path
    >>> result = find_path("5x5")  # from (0, 0): the block construction
    >>> result.status, result.method, result.verified
    ('found', 'blocks', True)
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     result = find_path(6, 6, start=(2, 2), svg=Path(folder, "path.svg"))
    ...     print(result.method, result.verified, [Path(name).name for name in result.written])
    greedy True ['path.svg']

    ```"""
    deadline = Deadline(check_time_limit(time_limit))
    if isinstance(rows, str):
        if cols is not None:
            raise InputError("give the size as one text ('5x7') or as rows and cols, not both")
        rows, cols = parse_size(rows)
    rows, cols = parse_size((rows, rows if cols is None else cols))
    if method is None:
        method = "auto"  # blocks (the corner path or the cycle) where they apply, else greedy
    start = parse_cell((0, 0) if start is None else start, rows, cols)
    mset = parse_moves(moves)
    closed = bool(options.get("closed", False))

    out_path, pictures = _check_outputs(out, packed, resume, mset, pdf, png, svg, rows, cols)
    rpath = out_path is not None and _is_rpath(out_path)
    why_not = blocks_refusal(rows, cols, start, mset, closed)
    # the block constructions (the corner path, the cycle) are streamed; searches are built whole
    stream = rpath and not pictures and method in ("auto", "blocks") and not why_not
    if method == "blocks" and rpath and why_not and not why_not.startswith("it needs both"):
        raise InputError(f"the block construction does not apply: {why_not}")
    if scheduler is not None and not stream:
        raise InputError(
            "scheduler writes block paths to a file: give out='FILE.rpath', no picture, and a "
            "board the block construction makes" + (f" ({why_not})" if why_not else "")
        )
    if stream:
        return _stream_blocks(
            out_path, rows, cols, jobs, scheduler, resume, packed, progress,
            start=start, moves=mset, closed=closed,
        )  # fmt: skip

    remaining = None if time_limit is None else max(1e-3, deadline.remaining())
    res = construct(
        rows, cols, start, mset, method=method, jobs=jobs, time_limit=remaining,
        progress=progress, **options,
    )  # fmt: skip
    if res.found:
        res.verified = bool(res.check())
    _write_outputs(res, out_path, pictures, packed)
    return res


def _check_outputs(out, packed, resume, mset, pdf, png, svg, rows, cols):
    """The path file and the pictures asked for, each name checked before any search:
    ``(out path or None, {kind: picture path})``."""
    out_path = None if out is None else check_path_output(out, "out", rows * cols)
    rpath = out_path is not None and _is_rpath(out_path)
    if (packed or resume) and not rpath:
        raise InputError("packed and resume apply to an out file ending in .rpath")
    if packed and len(mset) > 8:
        raise InputError(
            f"packed (3 bits a move) holds at most 8 moves; {mset.name} has {len(mset)}"
        )
    pictures = {
        kind: check_output_path(name, kind, suffixes=(suffix,))
        for (kind, suffix), name in zip(_PICTURES, (pdf, png, svg), strict=True)
        if name is not None
    }
    if "pdf" in pictures:
        require_extra("pdf", "a PDF picture")
    if "svg" in pictures:
        from rompicapo.paths.render import SVG_MAX_CELLS

        if rows * cols > SVG_MAX_CELLS:
            raise InputError(
                f"an SVG of a {rows}x{cols} board ({rows * cols:,} cells) would be too heavy to "
                f"view; SVG is for boards up to {SVG_MAX_CELLS:,} cells (200x200): use a PNG"
            )
    return out_path, pictures


def _write_outputs(res: PathResult, out_path: Path | None, pictures: dict, packed: bool) -> None:
    """Write the verified path to ``out_path`` (an unfinished one to ``NAME.partial.npy``
    beside it) and draw the pictures; what was written, or kept elsewhere, goes in ``res``."""

    def attempt(name: Path, write) -> None:
        # a write that fails after the search keeps the result in another file, said where
        line = write_or_keep(name, write)
        if line is None:
            res.written.append(str(name))
        else:
            res.unwritten.append(line)

    if out_path is not None and res.path is not None:
        if res.found and res.verified:
            attempt(out_path, lambda p: write_path(res, p, verify=False, packed=packed))
        elif not res.found:  # an interrupted search keeps the cells it had
            partial = out_path.with_name(out_path.name[: -len(out_path.suffix)] + ".partial.npy")
            attempt(partial, lambda p: _save_npy(p, res.path))
    if res.found and res.verified:
        from rompicapo.paths import render

        rows, cols, (r0, c0) = res.rows, res.cols, res.start
        title = f"{rows}x{cols}, {res.moves.name} moves, from ({r0}, {c0})"
        writers = {
            "pdf": lambda p: render.write_pdf(res.path, rows, cols, p, title=title),
            "png": lambda p: render.write_png(res.path, rows, cols, p),
            "svg": lambda p: render.write_svg(res.path, rows, cols, p),
        }
        for kind, name in pictures.items():
            attempt(name, lambda p, k=kind: _atomic(p, writers[k]))


def _atomic(name: Path, write) -> None:
    suffix = name.suffix
    with atomic_path(name) as tmp:
        # the writers pick their format by name: give the temporary file the same suffix
        final = tmp.with_name(tmp.name + suffix)
        try:
            write(final)
            os.replace(final, tmp)
        finally:
            if final.exists():
                final.unlink()


def _save_npy(name: Path, path: np.ndarray) -> None:
    with atomic_path(name) as tmp, open(tmp, "wb") as fh:
        np.save(fh, path)


def _stream_blocks(
    out_path, rows, cols, jobs, scheduler, resume, packed, progress, *, start, moves, closed
) -> PathResult:
    """The block path (the corner path, or the cycle read from ``start``) written to an
    ``.rpath`` file chunk by chunk (never the whole path in memory), then checked by the
    streaming verifier."""
    import functools

    from rompicapo.paths.blocks import warm_up, write_blocks_rpath
    from rompicapo.paths.verify_stream import verify_rpath

    method, _ = block_method(rows, cols, start, moves, closed)
    if method == "blocks-cycle":
        from rompicapo.paths import cycles

        warm_up = cycles.warm_up
        write_blocks_rpath = functools.partial(cycles.write_cycle_rpath, moves=moves, start=start)
    jobs, note = resolve_jobs(jobs)
    res = PathResult(
        rows=rows, cols=cols, start=start, moves=moves, closed=method == "blocks-cycle",
        method=method, seed=None,
    )  # fmt: skip
    res.notes += [note] if note else []
    client = connect_scheduler(scheduler) if isinstance(scheduler, str) else scheduler
    try:
        # the .rpath writer runs the move kernel; the streaming verifier compiles its own
        res.compile_seconds = jit_warmup(f"paths.{method}.moves", lambda: warm_up("moves"))
        with Stopwatch() as write_sw:
            header = write_blocks_rpath(
                out_path,
                rows,
                cols,
                jobs=jobs,
                scheduler=client,
                progress=progress,
                resume=resume,
                encoding="u3" if packed else "u8",
            )
        with Stopwatch() as verify_sw:
            check = verify_rpath(
                out_path, jobs=jobs, scheduler=client, progress=progress, closed=res.closed
            )
    finally:
        if client is not None and client is not scheduler:
            client.close()
    res.status = "found"
    res.out = str(out_path)
    res.out_bytes = header.file_size
    res.write_seconds = write_sw.seconds
    res.verify_seconds = verify_sw.seconds
    res.solve_seconds = write_sw.seconds
    res.verified = bool(check)
    res.reason = check.reason
    res.peak_bytes = peak_rss_bytes()
    return res


# --------------------------------------------------------------------------------------------
# check_path_file
# --------------------------------------------------------------------------------------------


@dataclass
class FileCheck(SearchResult):
    """The verdict on a saved path: ``valid``, or the first problem (``reason``).

    ```pycon
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     result = find_path(5, 5, out=Path(folder, "path.npy"))
    ...     check = check_path_file(Path(folder, "path.npy"), "5x5", closed=True)
    >>> check.valid, check.verify(), (check.rows, check.cols), check.closed
    (False, False, (5, 5), True)
    >>> print(check.reason)
    the path is not closed: its last cell (1, 2) (step 25) is not one caselle move away from its
    first cell (0, 0)

    ```"""

    file: str = ""
    """The file checked."""
    rows: int = 0
    """Rows of the board, from the file."""
    cols: int = 0
    """Columns of the board, from the file."""
    moves: str = "caselle"
    """The move set's spec, from the file."""
    closed: bool = False
    """True when the file holds a closed tour (or one was asked for)."""
    valid: bool = False
    """True when the file holds a valid path."""
    reason: str = ""
    """The first problem found and where it is; ``""`` when valid."""
    verify_seconds: float = 0.0
    """Seconds the check took."""
    streamed: bool = False
    """True when the file was checked streaming (never loaded whole)."""
    stopped: str | None = None  # "time": not checked to the end (neither valid nor wrong)
    """``"time"`` when the time limit stopped the check first (neither valid nor wrong)."""
    notes: list[str] = field(default_factory=list)
    """Remarks for the user."""
    _name: str = ""

    _dict_exclude = ("streamed",)

    def verify(self) -> bool:
        """The check itself: True when the file holds a valid path, False when it does not."""
        return self.valid

    def report(self) -> str:
        what = f"{self.rows}x{self.cols} {self._name or self.moves}"
        what += " closed tour" if self.closed else " path"
        if self.valid:
            how = ", streamed" if self.streamed else ""
            return f"{self.file}: a valid {what} ({self.verify_seconds:.2f} s{how})"
        if self.stopped is not None:
            return f"{self.file}: {what} {self.reason}"
        return f"{self.file}: not a valid {what}: {self.reason}"


def check_path_file(
    filename: str | os.PathLike[str],
    size: str | int | tuple[int, int] | None = None,
    *,
    moves: str | MoveSet = "caselle",
    start: tuple[int, int] | str | int | None = None,
    closed: bool = False,
    jobs: int | None = None,
    scheduler: Any = None,
    progress: ProgressCallback | None = None,
    time_limit: float | None = None,
) -> FileCheck:
    """Check the path saved in ``filename`` with the independent verifier.

    An ``.rpath`` file knows its board (``size``, if given, must agree) and is checked
    streaming, in threads (``jobs``) or on a Dask cluster (``scheduler``); any other file is
    read as a ``.npy`` array of flat cells, memory-mapped, and needs ``size``. ``start``: the
    path must start there; ``closed``: it must close into a tour.
    A file that is not a path file at all is an [`InputError`][rompicapo.common.InputError]; a path
    file whose path is wrong gives ``valid=False`` with the reason. ``time_limit`` (seconds)
    stops the streaming check of an ``.rpath`` file between two chunks: ``stopped="time"``,
    ``valid=False`` and a reason that says the path was not checked to the end.

    ```pycon
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     result = find_path(5, 5, out=Path(folder, "path.npy"))
    ...     print(check_path_file(Path(folder, "path.npy"), "5x5").valid)
    ...     print(check_path_file(Path(folder, "path.npy"), "5x5", start=(2, 2)).reason)
    True
    step 1: the path starts at (0, 0), not at the required start (2, 2)

    ```"""
    if not isinstance(filename, (str, os.PathLike)) or not os.fspath(filename):
        raise InputError(f"expected a path file name, got {filename!r}")
    name = os.fspath(filename)
    mset = parse_moves(moves)
    result = FileCheck(file=name, moves=mset.spec, closed=bool(closed), _name=mset.name)
    if name.lower().endswith(".rpath"):
        from rompicapo.paths.rpath import read_header
        from rompicapo.paths.verify_stream import verify_rpath

        header = read_header(name)
        rows, cols = header.rows, header.cols
        if size is not None and parse_size(size) != (rows, cols):
            raise InputError(f"{name} holds a {rows}x{cols} path, not {size}")
        first = parse_cell(start, rows, cols) if start is not None else None
        jobs, note = resolve_jobs(jobs)
        result.notes += [note] if note else []
        client = connect_scheduler(scheduler) if isinstance(scheduler, str) else scheduler
        try:
            with Stopwatch() as sw:
                check = verify_rpath(
                    name, start=first, moves=mset, jobs=jobs, scheduler=client,
                    progress=progress, closed=closed, time_limit=time_limit,
                )  # fmt: skip
        finally:
            if client is not None and client is not scheduler:
                client.close()
        result.streamed = True
    else:
        from rompicapo.paths.verify import verify_path_file

        if scheduler is not None:
            raise InputError("scheduler applies to .rpath files; a .npy file is checked here")
        if size is None:
            raise InputError("checking a .npy or .txt path file needs the board size")
        rows, cols = parse_size(size)
        first = parse_cell(start, rows, cols) if start is not None else None
        with Stopwatch() as sw:
            check = verify_path_file(name, rows, cols, mset, start=first, closed=closed)
    result.rows, result.cols = rows, cols
    result.valid = bool(check)
    result.reason = check.reason
    result.stopped = getattr(check, "stats", {}).get("stopped")
    result.verify_seconds = round(sw.seconds, 3)
    result.solve_seconds = sw.seconds
    return result


# --------------------------------------------------------------------------------------------
# cells_at / steps_of
# --------------------------------------------------------------------------------------------

# Up to this many cells verify() fills the whole block path and checks the answers against it.
LOOKUP_VERIFY_CELLS = 1 << 22


@dataclass
class BlockLookup(SearchResult):
    """Answers of random access to the block construction's path: ``cells[i]`` is visited at
    ``steps[i]`` (1 = the start). ``query`` is ``"steps"`` (cells asked for steps) or
    ``"cells"`` (steps asked for cells).

    ```pycon
    >>> lookup = steps_of(10, 10, [(0, 0), (9, 9)])
    >>> lookup.steps, lookup.method, lookup.query
    ([1, 68], 'blocks', 'cells')
    >>> print(lookup.report())
    0,0: step 1
    9,9: step 68
    >>> lookup.verify()  # the whole path filled, checked, and the answers looked up in it
    True

    ```"""

    rows: int = 0
    """Rows of the board."""
    cols: int = 0
    """Columns of the board."""
    method: str = "blocks"
    """``"blocks"`` (the corner path from (0, 0)) or ``"blocks-cycle"`` (a closed tour read from
    ``start``)."""
    moves: str = "caselle"
    """The move set's spec."""
    start: tuple[int, int] = (0, 0)
    """The first cell of the path."""
    closed: bool = False
    """True for a closed tour."""
    steps: list[int] = field(default_factory=list)
    """The steps looked up or answered (1 = the start), in the order asked."""
    cells: list[tuple[int, int]] = field(default_factory=list)
    """``cells[i]`` is visited at ``steps[i]``, ``(row, col)`` from 0."""
    query: str = "steps"
    """``"steps"`` when cells were asked for their steps, ``"cells"`` when steps were asked for
    their cells."""

    _dict_exclude = ("query",)

    def report(self) -> str:
        pairs = zip(self.steps, self.cells, strict=True)
        if self.query == "steps":
            return "\n".join(f"step {s}: {r},{c}" for s, (r, c) in pairs)
        return "\n".join(f"{r},{c}: step {s}" for s, (r, c) in pairs)

    def verify(self) -> bool:
        """Fill the whole path, check it with the independent verifier, and look the answers
        up in it. Raises [`NotVerifiable`][rompicapo.common.NotVerifiable] above
        `LOOKUP_VERIFY_CELLS` cells (the path would not be held to check against)."""
        from rompicapo.paths.verify import verify_path

        n = self.rows * self.cols
        if n > LOOKUP_VERIFY_CELLS:
            raise NotVerifiable(
                f"a {self.rows}x{self.cols} board is too large to fill and check "
                f"(at most {LOOKUP_VERIFY_CELLS:,} cells)"
            )
        walker, _ = _walker(self.rows, self.cols, self.start, self.moves, self.closed)
        path = walker.fill_path(jobs=1)
        closed = self.method == "blocks-cycle"
        if not verify_path(path, self.rows, self.cols, self.moves, start=self.start,
                           closed=closed):  # fmt: skip
            return False
        return all(
            int(path[s - 1]) == r * self.cols + c
            for s, (r, c) in zip(self.steps, self.cells, strict=True)
        )


def _walker(rows, cols, start, moves, closed):
    """The corner path of `blocks` (caselle, open, from (0, 0)) or the
    block cycle of `cycles` read from ``start``, and its method name;
    InputError naming why when neither applies."""
    from rompicapo.paths.blocks import BlockPath
    from rompicapo.paths.cycles import BlockCycle

    rows, cols = parse_size((rows, rows if cols is None else cols))
    start = parse_cell((0, 0) if start is None else start, rows, cols)
    mset = parse_moves(moves)
    kind, _ = block_method(rows, cols, start, mset, bool(closed))
    if kind == "blocks":
        return BlockPath(rows, cols), kind
    if kind == "blocks-cycle":
        return BlockCycle(rows, cols, mset, start), kind
    why = blocks_refusal(rows, cols, start, mset, bool(closed))
    raise InputError(f"no block construction for this path: {why}")


def _warm(kind: str) -> float:
    from rompicapo.paths import blocks, cycles

    module = blocks if kind == "blocks" else cycles
    return jit_warmup(f"paths.{kind}.lookup", lambda: module.warm_up("lookup"))


def _lookup(walker, kind, moves, start, closed, **fields) -> BlockLookup:
    return BlockLookup(
        rows=walker.rows, cols=walker.cols, method=kind, moves=parse_moves(moves).spec,
        start=(0, 0) if start is None else parse_cell(start, walker.rows, walker.cols),
        closed=bool(closed), **fields,
    )  # fmt: skip


def cells_at(
    rows: int | str,
    cols: int | None,
    steps,
    *,
    start: tuple[int, int] | str | None = None,
    closed: bool = False,
    moves: str | MoveSet = "caselle",
) -> BlockLookup:
    """The cells the block construction's path visits at ``steps`` (1 = the start, R×C the
    end): exact integers, each checked against 1..R×C before any arithmetic. O(1) each.

    The corner path serves caselle from (0, 0); the block cycle (cut open at ``start``) serves
    other starts, closed tours and other leapers with a block table.

    ```pycon
    >>> cells_at(10, 10, [1, 100]).cells  # the first and the last cell of the 10x10 path
    [(0, 0), (6, 2)]

    ```"""
    if isinstance(rows, str):
        rows, cols = parse_size(rows)
    walker, kind = _walker(rows, cols, start, moves, closed)
    n = walker.rows * walker.cols
    steps = [check_int(s, "step", minimum=1, maximum=n) for s in _as_list(steps, pair=False)]
    compile_seconds = _warm(kind)  # after the checks: a bad step costs no compilation
    with Stopwatch() as sw:
        cells = [tuple(int(v) for v in walker.cell_at(s)) for s in steps]
    return _lookup(
        walker, kind, moves, start, closed, steps=steps, cells=cells, query="steps",
        solve_seconds=sw.seconds, compile_seconds=compile_seconds,
    )  # fmt: skip


def steps_of(
    rows: int | str,
    cols: int | None,
    cells,
    *,
    start: tuple[int, int] | str | None = None,
    closed: bool = False,
    moves: str | MoveSet = "caselle",
) -> BlockLookup:
    """The steps at which the block construction's path visits ``cells`` (``(r, c)`` or ``"r,c"``,
    0-based, on the board). O(1) each. ``start``, ``closed`` and ``moves`` as for
    [`cells_at()`][rompicapo.paths.cells_at]. ``cells`` may also be an integer array of shape (n,
    2): the cells are then checked and looked up as arrays (a map's tile of 65,536 cells in
    milliseconds), and ``steps`` is an array.

    ```pycon
    >>> steps_of(10, 10, [(0, 0), (9, 9)]).steps
    [1, 68]

    ```"""
    if isinstance(rows, str):
        rows, cols = parse_size(rows)
    walker, kind = _walker(rows, cols, start, moves, closed)
    if isinstance(cells, np.ndarray) and cells.ndim == 2 and cells.shape[1] == 2:
        if cells.dtype.kind not in "iu":
            raise InputError("an array of cells holds whole numbers")
        compile_seconds = _warm(kind)
        with Stopwatch() as sw:  # InputError for a cell off the board
            steps = walker.step_of(cells[:, 0].astype(np.int64), cells[:, 1].astype(np.int64))
        return _lookup(
            walker, kind, moves, start, closed, steps=steps, cells=cells, query="cells",
            solve_seconds=sw.seconds, compile_seconds=compile_seconds,
        )  # fmt: skip
    cells = [parse_cell(c, walker.rows, walker.cols, "cell") for c in _as_list(cells, pair=True)]
    compile_seconds = _warm(kind)
    with Stopwatch() as sw:
        steps = [int(walker.step_of(c)) for c in cells]
    return _lookup(
        walker, kind, moves, start, closed, steps=steps, cells=cells, query="cells",
        solve_seconds=sw.seconds, compile_seconds=compile_seconds,
    )  # fmt: skip


def _as_list(values, *, pair: bool) -> list:
    """One value or an iterable of them, as a non-empty list (a pair is one cell)."""
    one_cell = (
        isinstance(values, tuple)
        and len(values) == 2
        and all(isinstance(v, (int, np.integer)) for v in values)
    )
    if isinstance(values, (str, int, np.integer)) or (pair and one_cell):
        return [values]
    values = list(values)
    if not values:
        raise InputError("nothing asked: give at least one step or cell")
    return values
