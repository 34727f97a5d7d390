"""The streaming verifier of ``.rpath`` files: a path of 10^10 cells checked in bounded memory.

The file's moves are read chunk by chunk (by this module's own reader of the format described in
`rompicapo.paths.rpath`, not the writer's code) and the path is valid
when every chunk's checksum matches, every byte names a move, every cell lies on the board and
no cell is reached twice (with R×C cells in all, that means every cell once); a closed tour's
last cell must also be one move from its first. Two passes:

1. every chunk is summarised in parallel (its moves' sum and the extremes of its rows and
   columns, relative to its first cell); prefix sums give each chunk's first cell, and the
   extremes show which chunk leaves the board (rescanned to name the step);
2. the rows are cut into *partitions*, each with a bitmap of one bit per cell of its rows, and
   each partition replays only the chunks whose rows meet it. A path made of bands (as the
   block construction's) touches one or two partitions per chunk, so the work splits evenly.

Memory: the bitmaps in flight (R×C/8 bytes in all, less when there are more partitions than
workers) plus a 16 MiB buffer per worker. Runs on all cores by default (threads: the kernels,
file reads and zlib release the GIL) or on a Dask cluster (``scheduler``); the workers read the
file by name, so they must see it.

Nothing here comes from the path makers or their codec: the header and the chunks are read
by `read_stream_header()` and `read_stream_chunk()` below (3-bit moves unpacked by this
module's own kernel), the move sets by the verifier's own parser
(`rompicapo.paths.verify.read_moves()`).
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass, field

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    Progress,
    ProgressCallback,
    check_memory,
    check_time_limit,
    default_jobs,
    open_input,
    renamed_keywords,
    run_jobs,
)
from rompicapo.paths import _verify_stream_kernel as kernel
from rompicapo.paths.verify import read_moves

__all__ = [
    "StreamCheck",
    "StreamHeader",
    "read_stream_chunk",
    "read_stream_header",
    "verify_rpath",
]

# A partition's bitmap is kept under this size, so that a few of them in flight stay far below
# the 4 GB allowed for 10^10 cells (1.25 GB of bits in all).
_PARTITION_BYTES = 1 << 29
# Chunks per pass-1 task: enough tasks to balance the workers.
_SUMMARY_CHUNKS = 8
# Below this many moves a file is checked in one thread: more would not pay off.
PARALLEL_MOVES = 1 << 26


# --------------------------------------------------------------------------------------------
# The verifier's own reader of the .rpath format
# --------------------------------------------------------------------------------------------

_MAGIC = b"RPATH\x00\x01\x00"  # "RPATH", a zero byte, format version 1, a zero byte
_HEADER_LIMIT = 1 << 20  # a longer JSON header is damage, not a path


@dataclass(frozen=True)
class StreamHeader:
    """An ``.rpath`` file's header as this verifier reads it: the board, the start, the move
    list (a move byte is an index into it), the cells, the moves per chunk, where the chunks
    begin, and whether moves take 3 bits (``packed``) or a byte."""

    rows: int
    cols: int
    start: tuple[int, int]
    moves: tuple[tuple[int, int], ...]
    cells: int
    chunk_moves: int
    data_offset: int
    packed: bool

    @property
    def n_moves(self) -> int:
        return max(0, self.cells - 1)

    @property
    def n_chunks(self) -> int:
        return (self.n_moves + self.chunk_moves - 1) // self.chunk_moves

    def chunk_range(self, i: int) -> tuple[int, int]:
        """Moves ``lo .. hi - 1`` of chunk ``i``."""
        return i * self.chunk_moves, min((i + 1) * self.chunk_moves, self.n_moves)

    def stored(self, n: int) -> int:
        """Bytes of ``n`` moves in a chunk: a byte each, or 3 bytes per group of 8."""
        return 3 * ((n + 7) // 8) if self.packed else n

    def chunk_offset(self, i: int) -> int:
        return self.data_offset + i * (self.stored(self.chunk_moves) + 4)  # + its CRC-32


def read_stream_header(filename: str | os.PathLike[str]) -> StreamHeader:
    """Read and check the header of an ``.rpath`` file; [`InputError`][rompicapo.common.InputError]
    when the file is not one (no magic, another version, damaged JSON, inconsistent fields, a wrong
    length)."""
    name = os.fspath(filename)
    try:
        with open_input(name, ".rpath file") as f:
            lead = f.read(12)
            if len(lead) < 12 or lead[:6] != _MAGIC[:6]:
                raise InputError(f"{name}: not an .rpath file (no RPATH magic at the start)")
            if lead[:8] != _MAGIC:
                raise InputError(f"{name}: .rpath format version {lead[6]} is not supported")
            length = int.from_bytes(lead[8:12], "little")
            if length > _HEADER_LIMIT:
                raise InputError(f"{name}: header length {length} is implausible (corrupted?)")
            text = f.read(length)
            size = os.fstat(f.fileno()).st_size
    except OSError as e:
        raise InputError(f"cannot read {name}: {e.strerror or e}") from None
    try:
        header = _header_fields(json.loads(text.decode("utf-8")), 12 + length)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError) as e:
        raise InputError(f"{name}: the .rpath header is damaged ({type(e).__name__})") from None
    if header is None:
        raise InputError(f"{name}: the .rpath header is inconsistent")
    last = header.n_chunks - 1
    end = header.data_offset
    if last >= 0:
        lo, hi = header.chunk_range(last)
        end = header.chunk_offset(last) + header.stored(hi - lo) + 4
    if size != end:
        raise InputError(
            f"{name}: the file has {size:,} bytes, its header promises {end:,} "
            f"({'truncated' if size < end else 'trailing bytes'})"
        )
    return header


def _header_fields(head: dict, data_offset: int) -> StreamHeader | None:
    """The header from its JSON object, or None when its fields disagree."""
    rows, cols, cells = int(head["rows"]), int(head["cols"]), int(head["cells"])
    start = (int(head["start"][0]), int(head["start"][1]))
    moves = tuple((int(m[0]), int(m[1])) for m in head["moves"])
    chunk, encoding = int(head["chunk_moves"]), head["encoding"]
    packed = encoding == "u3"
    if encoding not in ("u8", "u3") or (packed and (chunk % 8 or len(moves) > 8)):
        return None
    if rows < 1 or cols < 1 or cells != rows * cols or chunk < 1 or not 1 <= len(moves) <= 255:
        return None
    return StreamHeader(rows, cols, start, moves, cells, chunk, data_offset, packed)


def read_stream_chunk(f, header: StreamHeader, i: int, buf: np.ndarray | None = None):
    """Chunk ``i``'s move bytes (a view of ``buf`` when given), its CRC-32 checked;
    [`InputError`][rompicapo.common.InputError] naming the chunk and its moves when it does not
    match."""
    lo, hi = header.chunk_range(i)
    n = hi - lo
    if buf is None or len(buf) < n:
        buf = np.empty(n, np.uint8)
    moves = buf[:n]
    raw = np.empty(header.stored(n), np.uint8) if header.packed else moves
    f.seek(header.chunk_offset(i))
    got = f.readinto(memoryview(raw))
    tail = f.read(4)
    if got != len(raw) or len(tail) != 4:
        raise InputError(f"chunk {i} is truncated")
    if zlib.crc32(raw) != int.from_bytes(tail, "little"):
        raise InputError(
            f"chunk {i} (moves {lo + 1:,}..{hi:,}) is corrupted: its checksum does not match"
        )
    if header.packed:
        kernel.unpack_triples(raw, moves)
    return moves


@dataclass(frozen=True)
class StreamCheck:
    """The verdict on an ``.rpath`` file: ``ok`` or the first problem found (``reason``)."""

    ok: bool
    reason: str = ""
    header: StreamHeader | None = None
    stats: dict = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return "valid path" if self.ok else self.reason


def _arrays(header: StreamHeader) -> tuple[np.ndarray, np.ndarray]:
    dr = np.array([m[0] for m in header.moves], np.int64)
    dc = np.array([m[1] for m in header.moves], np.int64)
    return dr, dc


def summarise_chunks(task: tuple) -> list[tuple[int, ...]]:
    """Pass 1 task: ``(filename, first, last)`` -> per chunk ``(bad, sr, sc, rmin, rmax, cmin,
    cmax)``, or a string with the reason the chunk is unreadable."""
    name, first, last = task
    header = read_stream_header(name)
    dr, dc = _arrays(header)
    buf = np.empty(header.chunk_moves, np.uint8)
    out = np.empty(7, np.int64)
    res: list = []
    with open_input(name, ".rpath file") as f:
        for i in range(first, last):
            try:
                moves = read_stream_chunk(f, header, i, buf)
            except InputError as e:
                return [*res, str(e)]
            kernel.summarise(moves, dr, dc, out)
            res.append(tuple(int(x) for x in out))
    return res


def mark_partition(task: tuple) -> tuple[int, int, int, int]:
    """Pass 2 task: ``(filename, lo, hi, [(chunk, r0, c0), ...], start)`` -> ``(marked,
    repeat_move, r, c)``: cells of rows ``lo .. hi - 1`` marked, and the first move (0-based,
    over the whole path) that reaches a marked cell again (-1 if none) with that cell."""
    name, lo, hi, chunks, start = task
    header = read_stream_header(name)
    dr, dc = _arrays(header)
    cols = header.cols
    bitmap = np.zeros(((hi - lo) * cols + 7) // 8, np.uint8)
    marked = 0
    if lo <= start[0] < hi:
        bit = (start[0] - lo) * cols + start[1]
        bitmap[bit >> 3] |= np.uint8(1 << (bit & 7))
        marked = 1
    buf = np.empty(header.chunk_moves, np.uint8)
    with open_input(name, ".rpath file") as f:
        for i, r0, c0 in chunks:
            moves = read_stream_chunk(f, header, i, buf)
            n, rep = kernel.mark_rows(moves, dr, dc, r0, c0, cols, lo, hi, bitmap)
            marked += n
            if rep >= 0:
                pos_r = r0 + int(dr[moves[: rep + 1]].sum())
                pos_c = c0 + int(dc[moves[: rep + 1]].sum())
                return marked, header.chunk_range(i)[0] + rep, pos_r, pos_c
    return marked, -1, -1, -1


def _old_progress(on_progress):
    """A ``progress`` callable that calls ``on_progress(done, total)``, as earlier releases
    did, for each event but the start."""

    def call(event) -> None:
        if event.kind != "start":
            on_progress(int(event.done), int(event.total or 0))

    return call


@renamed_keywords(on_progress=("progress", _old_progress))
def verify_rpath(
    filename: str | os.PathLike[str],
    *,
    start: tuple[int, int] | None = None,
    moves=None,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: ProgressCallback | None = None,
    mode: str = "auto",
    closed: bool = False,
    time_limit: float | None = None,
) -> StreamCheck:
    """Check the path in an ``.rpath`` file; see the module docstring for how.

    ``mode``: ``"sequential"`` (one pass in order, one bitmap for the board, the next chunk
    read and checksummed in a second thread meanwhile), ``"partitioned"`` (the two passes) or
    ``"auto"``: sequential locally on up to 2 workers (one read of the file instead of two, and
    two threads are all it can use), partitioned on more cores and on a Dask cluster.

    ``start``: the path must start there. ``moves``: a move set (spec or MoveSet) the file's
    moves must belong to. ``closed``: the path must be a closed tour, its last cell one move (of
    ``moves``, or of the file's move list without it) from its first. Raises InputError when
    the file is not an ``.rpath`` file at all; every problem of the path itself (a damaged
    chunk included) is a failed check. A valid check's ``stats["end"]`` is the last cell.
    ``progress``: a callable receiving [`ProgressEvent`][rompicapo.common.ProgressEvent] (chunks
    processed, two passes: ``total`` is twice the chunks). The earlier ``on_progress(done,
    total)`` still works and warns (DeprecationWarning).

    ``time_limit`` (seconds of wall clock) stops the check between two chunks: the verdict is
    then not ok, with ``stats["stopped"] == "time"`` and a reason that says the path was not
    checked to the end (neither valid nor shown wrong).
    """
    name = os.fspath(filename)
    header = read_stream_header(name)

    def fail(reason: str) -> StreamCheck:
        return StreamCheck(False, reason, header)

    allowed = set(header.moves)
    if moves is not None:
        asked = read_moves(moves)
        allowed = set(asked.moves)
        extra = [m for m in header.moves if m not in allowed]
        if extra:
            return fail(f"the file's move set has {extra[0]}, not a move of {asked.name}")
    why = _header_problem(header, start)
    if why:
        return fail(why)
    if scheduler is None and header.n_moves < PARALLEL_MOVES:
        jobs = 1
    n_workers = default_jobs() if jobs is None else max(1, int(jobs))
    if mode not in ("auto", "sequential", "partitioned"):
        raise InputError(f"unknown verification mode {mode!r}")
    tracker = _TimedProgress(
        progress, Deadline(check_time_limit(time_limit)), unit="chunks", total=2 * header.n_chunks
    )
    try:
        if mode == "sequential" or (mode == "auto" and scheduler is None and n_workers <= 2):
            check = _verify_sequential(name, header, n_workers > 1, fail, tracker)
        else:
            check = _verify_partitioned(name, header, jobs, n_workers, scheduler, fail, tracker)
    except _OutOfTime:
        tracker.finish()
        done, total = int(tracker.done), 2 * header.n_chunks
        return StreamCheck(
            False,
            f"not checked to the end: the time limit came after {done:,} of {total:,} chunk passes",
            header,
            {"stopped": "time", "chunk_passes": done},
        )
    tracker.finish()
    return _closure_checked(check, allowed, fail) if closed else check


class _OutOfTime(Exception):
    """The check's time limit came between two chunks."""


class _TimedProgress(Progress):
    """The check's progress, which also ends the check when its deadline has passed."""

    def __init__(self, callback, deadline: Deadline, **kw) -> None:
        super().__init__(callback, **kw)
        self.deadline = deadline

    def update(self, done: float, **kw) -> None:
        super().update(done, **kw)
        if done < (self.total or 0) and self.deadline.expired():
            raise _OutOfTime


def _header_problem(header: StreamHeader, start: tuple[int, int] | None) -> str:
    """What makes the file's header describe no valid path (from ``start``), or ""."""
    rows, cols = header.rows, header.cols
    if len(set(header.moves)) != len(header.moves) or (0, 0) in header.moves:
        return "the file's move list repeats a move or holds (0, 0)"
    r0, c0 = header.start
    if not (0 <= r0 < rows and 0 <= c0 < cols):
        return f"the start ({r0}, {c0}) is off the {rows}x{cols} board"
    if start is not None and tuple(start) != (r0, c0):
        return f"the path starts at ({r0}, {c0}), not at {tuple(start)}"
    return ""


def _verify_partitioned(name, header, jobs, n_workers, scheduler, fail, tracker: Progress):
    """The two passes of the module's text: chunk summaries, then partitions of rows."""
    n_chunks = header.n_chunks
    total_work = 2 * n_chunks
    # Pass 1: summaries, chunk starts, the board's edges.
    tasks = [
        (name, i, min(i + _SUMMARY_CHUNKS, n_chunks)) for i in range(0, n_chunks, _SUMMARY_CHUNKS)
    ]
    summaries: list = [None] * n_chunks
    done = 0
    for (_, first, last), res in run_jobs(
        summarise_chunks, tasks, n_jobs=jobs, scheduler=scheduler, threads=True
    ):
        for k, s in enumerate(res):
            summaries[first + k] = s
        done += last - first
        tracker.update(done)
    starts = _chunk_starts(name, header, summaries)
    if isinstance(starts, str):
        return fail(starts)
    # Pass 2: partitions of rows, each with its bitmap, replaying the chunks that meet it.
    rows, cols = header.rows, header.cols
    rows_per_part = max(1, min(-(-rows // n_workers), (_PARTITION_BYTES * 8) // cols))
    parts = [(lo, min(lo + rows_per_part, rows)) for lo in range(0, rows, rows_per_part)]
    if scheduler is None:  # on a cluster the bitmaps live in the workers' memory
        check_memory(
            min(len(parts), n_workers) * ((rows_per_part * cols + 7) // 8),
            f"the visited bitmaps of {rows}x{cols}",
        )
    lo_rows = np.array([starts[i, 0] + summaries[i][3] for i in range(n_chunks)], np.int64)
    hi_rows = np.array([starts[i, 0] + summaries[i][4] for i in range(n_chunks)], np.int64)
    tasks2 = []
    for lo, hi in parts:
        meet = np.nonzero((hi_rows >= lo) & (lo_rows < hi))[0]
        chunks = [(int(i), int(starts[i, 0]), int(starts[i, 1])) for i in meet]
        tasks2.append((name, lo, hi, chunks, header.start))
    marked = 0
    repeats = []
    replays = max(1, sum(len(t[3]) for t in tasks2))  # chunk replays in all, for the progress
    for task, (n, rep, rr, cc) in run_jobs(
        mark_partition, tasks2, n_jobs=jobs, scheduler=scheduler, threads=True
    ):
        marked += n
        if rep >= 0:
            repeats.append((rep, rr, cc))
        done += len(task[3]) * n_chunks // replays
        tracker.update(min(done, total_work))
    if repeats:
        rep, rr, cc = min(repeats)
        return fail(f"cell ({rr}, {cc}) is visited twice (again at step {rep + 2:,})")
    if marked != header.cells:  # pragma: no cover - impossible after the checks above
        return fail(f"{marked:,} cells visited, the board has {header.cells:,}")
    end = tuple(int(x) for x in starts[-1] + summaries[-1][1:3]) if n_chunks else header.start
    stats = {
        "chunks": n_chunks,
        "partitions": len(parts),
        "cells": header.cells,
        "mode": "partitioned",
        "end": end,
    }
    return StreamCheck(True, "", header, stats)


def _chunk_starts(name: str, header: StreamHeader, summaries: list) -> np.ndarray | str:
    """Each chunk's first cell (from the summaries' sums), or the reason the path fails: an
    unreadable chunk, a byte that names no move, or a step off the board (named by
    rescanning its chunk)."""
    rows, cols = header.rows, header.cols
    starts = np.empty((header.n_chunks, 2), np.int64)
    r, c = header.start
    dr, dc = _arrays(header)
    for i, s in enumerate(summaries):
        if isinstance(s, str) or s is None:
            return s or f"chunk {i} could not be read"
        bad, sr, sc, rmin, rmax, cmin, cmax = s
        if bad >= 0:
            with open_input(name, ".rpath file") as f:
                value = int(read_stream_chunk(f, header, i)[bad])
            step = header.chunk_range(i)[0] + bad + 1
            return f"move {step:,} is byte {value}, not one of the {len(header.moves)} moves"
        if r + rmin < 0 or r + rmax >= rows or c + cmin < 0 or c + cmax >= cols:
            with open_input(name, ".rpath file") as f:
                chunk = read_stream_chunk(f, header, i)
            t = kernel.first_outside(chunk, dr, dc, r, c, rows, cols)
            rr = r + int(dr[chunk[: t + 1]].sum())
            cc = c + int(dc[chunk[: t + 1]].sum())
            step = header.chunk_range(i)[0] + t + 2
            return f"step {step:,}: ({rr}, {cc}) is outside the {rows}x{cols} board"
        starts[i] = r, c
        r += sr
        c += sc
    return starts


def _closure_checked(check: StreamCheck, allowed: set, fail) -> StreamCheck:
    """``check`` unless it is valid and its last cell is not one move of ``allowed`` from its
    first (a path that is not closed), which fails."""
    if not check:
        return check
    (r0, c0), (r, c) = check.header.start, check.stats["end"]
    if check.header.cells < 2 or (r0 - r, c0 - c) not in allowed:
        return fail(
            f"the path is not closed: its last cell ({r}, {c}) (step {check.header.cells:,}) "
            f"is not one move away from its first cell ({r0}, {c0})"
        )
    return check


def _verify_sequential(name: str, header: StreamHeader, prefetch: bool, fail, tracker: Progress):
    """One pass in path order over a bitmap of the whole board; with ``prefetch`` a second
    thread reads and checksums chunk i + 1 while chunk i is walked."""
    from concurrent.futures import ThreadPoolExecutor

    rows, cols = header.rows, header.cols
    check_memory((header.cells + 7) // 8, f"the visited bitmap of {rows}x{cols}")
    bitmap = np.zeros((header.cells + 7) // 8, np.uint8)
    r, c = header.start
    bit = r * cols + c
    bitmap[bit >> 3] |= np.uint8(1 << (bit & 7))
    dr, dc = _arrays(header)
    out = np.zeros(4, np.int64)
    n = header.n_chunks
    bufs = [np.empty(header.chunk_moves, np.uint8) for _ in range(2)]
    with open_input(name, ".rpath file") as f, ThreadPoolExecutor(1) as pool:

        def read(i: int):
            try:
                return read_stream_chunk(f, header, i, bufs[i % 2])
            except InputError as e:
                return str(e)

        pending = pool.submit(read, 0) if (prefetch and n) else None
        for i in range(n):
            moves = pending.result() if pending else read(i)
            pending = pool.submit(read, i + 1) if (prefetch and i + 1 < n) else None
            if isinstance(moves, str):
                return fail(moves)
            kernel.walk(moves, dr, dc, r, c, rows, cols, bitmap, out)
            status, t, rr, cc = (int(x) for x in out)
            first = header.chunk_range(i)[0]
            if status == 1:
                return fail(
                    f"move {first + t + 1:,} is byte {int(moves[t])}, "
                    f"not one of the {len(header.moves)} moves"
                )
            if status == 2:
                return fail(
                    f"step {first + t + 2:,}: ({rr}, {cc}) is outside the {rows}x{cols} board"
                )
            if status == 3:
                return fail(f"cell ({rr}, {cc}) is visited twice (again at step {first + t + 2:,})")
            r, c = rr, cc
            tracker.update(2 * (i + 1))
        if pending is not None:
            pending.result()
    stats = {
        "chunks": n,
        "partitions": 1,
        "cells": header.cells,
        "mode": "sequential",
        "end": (r, c),
    }
    return StreamCheck(True, "", header, stats)
