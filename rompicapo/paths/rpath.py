"""The ``.rpath`` streamed path format: a header, then the moves, in checksummed chunks.

A path of N cells is its start cell and its N - 1 moves, each move naming its index in the
header's move list: one byte per move (encoding ``u8``; a 10^10-cell path takes 10 GB) or
three bits (``u3``, eight moves in three bytes, for move sets of at most 8 moves: 3.75 GB). It
is written and read band by band with bounded memory. Layout (integers little-endian)::

    offset 0    b"RPATH\\x00\\x01\\x00"   magic and format version (1)
    offset 8    uint32 L              length of the JSON header
    offset 12   L bytes of UTF-8 JSON {"format": "rpath", "version": 1, "rows", "cols",
                "start": [r, c], "moves": [[dr, dc], ...], "cells": N, "encoding": "u8" or
                "u3", "chunk_moves": K, "checksum": "crc32", "method": "..."}
    then        ceil((N - 1) / K) chunks: chunk i holds moves i*K .. min((i+1)*K, N-1) - 1
                (``u8``: one byte each; ``u3``: groups of 8 moves as 24-bit little-endian
                words, move j of a group in bits 3j..3j+2, the last group padded with 0),
                followed by the CRC-32 of the stored bytes (uint32)

Chunk ``i`` therefore starts at ``12 + L + i * (B + 4)``, B the stored size of K moves (K, or
3K/8 with K a multiple of 8): writers fill chunks in any order and
in parallel (each at its own offset of one preallocated file) and readers seek straight to any
chunk. The checksums tell a damaged byte from a wrong path: a flipped byte is reported as
"chunk i is corrupted", before the path check would see a stray move.

This module only knows the format; it does not know how paths are made, and the verifier
(`rompicapo.paths.verify_stream`) checks the moves themselves.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from rompicapo.common import (
    InputError,
    Progress,
    ProgressCallback,
    loads_json,
    open_input,
    renamed_keywords,
    run_jobs,
)
from rompicapo.paths import _rpath_kernel as _codec

__all__ = [
    "DEFAULT_CHUNK_MOVES",
    "MAGIC",
    "RpathHeader",
    "partial_name",
    "read_chunk",
    "read_header",
    "write_rpath",
]

MAGIC = b"RPATH\x00\x01\x00"
VERSION = 1
# 2^24 moves (16 MiB) per chunk: big enough that a chunk's read, checksum and kernel call dwarf
# the per-call overhead, small enough that a worker's buffers stay a few tens of MB and a
# 10^10-cell file still splits into ~600 chunks to share among cores.
DEFAULT_CHUNK_MOVES = 1 << 24
# Below this many moves a file is written, or checked, in one thread: more would not pay off.
PARALLEL_MOVES = 1 << 26
_PREFIX = struct.Struct("<8sI")
_CRC = struct.Struct("<I")
_MAX_HEADER = 1 << 20


@dataclass(frozen=True)
class RpathHeader:
    """What an ``.rpath`` file says about its path, and where its chunks are."""

    rows: int
    cols: int
    start: tuple[int, int]
    moves: tuple[tuple[int, int], ...]
    cells: int
    chunk_moves: int
    data_offset: int
    method: str = ""
    encoding: str = "u8"

    def stored_bytes(self, n: int) -> int:
        """Bytes that ``n`` moves take in a chunk."""
        return n if self.encoding == "u8" else (n + 7) // 8 * 3

    @property
    def n_moves(self) -> int:
        return max(0, self.cells - 1)

    @property
    def n_chunks(self) -> int:
        return -(-self.n_moves // self.chunk_moves)

    def chunk_range(self, i: int) -> tuple[int, int]:
        """Moves ``lo .. hi - 1`` held by chunk ``i``."""
        lo = i * self.chunk_moves
        return lo, min(lo + self.chunk_moves, self.n_moves)

    def chunk_offset(self, i: int) -> int:
        return self.data_offset + i * (self.stored_bytes(self.chunk_moves) + _CRC.size)

    @property
    def file_size(self) -> int:
        if self.n_chunks == 0:
            return self.data_offset
        lo, hi = self.chunk_range(self.n_chunks - 1)
        return self.chunk_offset(self.n_chunks - 1) + self.stored_bytes(hi - lo) + _CRC.size

    def to_json(self) -> dict:
        return {
            "format": "rpath",
            "version": VERSION,
            "rows": self.rows,
            "cols": self.cols,
            "start": list(self.start),
            "moves": [list(m) for m in self.moves],
            "cells": self.cells,
            "encoding": self.encoding,
            "chunk_moves": self.chunk_moves,
            "checksum": "crc32",
            "method": self.method,
        }


ENCODINGS = ("u8", "u3")


def _header_bytes(
    rows, cols, start, moves, chunk_moves, method, encoding
) -> tuple[bytes, RpathHeader]:
    if encoding not in ENCODINGS:
        raise InputError(f"unknown move encoding {encoding!r}: use u8 or u3")
    if encoding == "u3" and len(moves) > 8:
        raise InputError(f"3-bit packing holds at most 8 moves, the set has {len(moves)}")
    if encoding == "u3":
        chunk_moves = max(8, chunk_moves // 8 * 8)  # whole groups of 8 per chunk
    args = (rows, cols, tuple(start), tuple(moves), rows * cols, chunk_moves)
    probe = RpathHeader(*args, 0, method, encoding)
    text = json.dumps(probe.to_json(), separators=(",", ":")).encode()
    head = _PREFIX.pack(MAGIC, len(text)) + text
    return head, RpathHeader(*args, len(head), method, encoding)


def read_header(filename: str | os.PathLike[str]) -> RpathHeader:
    """Read and check an ``.rpath`` header; raise InputError with the reason if it is not one
    (wrong magic, unknown version, bad JSON, missing fields, or a file of the wrong length)."""
    name = os.fspath(filename)
    try:
        with open_input(name, ".rpath file") as f:
            prefix = f.read(_PREFIX.size)
            if len(prefix) < _PREFIX.size or prefix[:6] != MAGIC[:6]:
                raise InputError(f"{name}: not an .rpath file (no RPATH magic at the start)")
            magic, length = _PREFIX.unpack(prefix)
            if magic != MAGIC:
                raise InputError(f"{name}: .rpath format version {magic[6]} is not supported")
            if length > _MAX_HEADER:
                raise InputError(f"{name}: header length {length} is implausible (corrupted?)")
            text = f.read(length)
            size = os.fstat(f.fileno()).st_size
    except OSError as e:
        raise InputError(f"cannot read {name}: {e.strerror or e}") from None
    try:
        head = loads_json(text, "the .rpath header", path=name)
        header = header_from_json(head, _PREFIX.size + length)
    except InputError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError) as e:
        raise InputError(
            f"{name}: the .rpath header is damaged ({type(e).__name__}: {e})"
        ) from None
    rows, cols, moves, cells = header.rows, header.cols, header.moves, header.cells
    chunk, encoding = header.chunk_moves, header.encoding
    if encoding not in ENCODINGS:
        raise InputError(f"{name}: move encoding {encoding!r} is not supported (u8, u3)")
    if encoding == "u3" and (chunk % 8 or len(moves) > 8):
        raise InputError(f"{name}: the .rpath header is inconsistent (u3 chunks or moves)")
    if rows < 1 or cols < 1 or cells != rows * cols or chunk < 1 or not 1 <= len(moves) <= 255:
        raise InputError(f"{name}: the .rpath header is inconsistent (rows, cols, cells, moves)")
    if size != header.file_size:
        raise InputError(
            f"{name}: the file has {size:,} bytes, its header promises {header.file_size:,} "
            f"({'truncated' if size < header.file_size else 'trailing bytes'})"
        )
    return header


def read_chunk(f, header: RpathHeader, i: int, buf: np.ndarray | None = None) -> np.ndarray:
    """Chunk ``i``'s moves as a uint8 array (a view of ``buf`` when given), its checksum
    checked; raise InputError naming the chunk and its moves if it does not match."""
    lo, hi = header.chunk_range(i)
    n = hi - lo
    if buf is None or len(buf) < n:
        buf = np.empty(n, np.uint8)
    view = buf[:n]
    stored = view if header.encoding == "u8" else np.empty(header.stored_bytes(n), np.uint8)
    f.seek(header.chunk_offset(i))
    got = f.readinto(memoryview(stored))
    crc = f.read(_CRC.size)
    if got != len(stored) or len(crc) != _CRC.size:
        raise InputError(f"chunk {i} is truncated")
    if zlib.crc32(stored) != _CRC.unpack(crc)[0]:
        raise InputError(
            f"chunk {i} (moves {lo + 1:,}..{hi:,}) is corrupted: its checksum does not match"
        )
    if header.encoding == "u3":
        _codec.unpack3(stored, view)
    return view


FillMoves = Callable[[int, np.ndarray], None]
"""``fill(first, out)``: write moves ``first .. first + len(out) - 1`` (0-based) into ``out``."""


def chunk_counter(on_chunk: Callable[[int], None]) -> ProgressCallback:
    """An earlier release's ``on_chunk(n)`` (told how many chunks were just written) as a
    ``progress`` callable, for the writers' old keyword."""
    told = [0]

    def call(event) -> None:
        done = int(event.done)
        if done > told[0]:
            on_chunk(done - told[0])
            told[0] = done

    return call


@renamed_keywords(on_chunk=("progress", chunk_counter))
def write_rpath(
    filename: str | os.PathLike[str],
    rows: int,
    cols: int,
    start: tuple[int, int],
    moves: Iterable[tuple[int, int]],
    fill: FillMoves | None = None,
    *,
    chunk_task: Callable | None = None,
    method: str = "",
    chunk_moves: int = DEFAULT_CHUNK_MOVES,
    encoding: str = "u8",
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: ProgressCallback | None = None,
    resume: bool = False,
) -> RpathHeader:
    """Write an ``.rpath`` file chunk by chunk.

    Either ``fill`` (a function of this process: chunks are written in order, in this process)
    or ``chunk_task``, an importable function called as ``chunk_task((filename, header_json,
    data_offset, first_chunk, last_chunk))`` in threads (``jobs``, default all cores) or on a
    Dask cluster (``scheduler``); each call writes its chunks at their offsets in the
    preallocated file (so Dask workers must see the same file system). ``progress``: a
    callable receiving [`ProgressEvent`][rompicapo.common.ProgressEvent] (chunks written or kept, of
    the file's chunks; the earlier ``on_chunk(n)``, told how many chunks were just written,
    still works and warns).

    ``encoding``: ``"u8"`` (a byte per move) or ``"u3"`` (3 bits, move sets of <= 8 moves).

    The chunks go to ``FILE.part`` (`partial_name()`), renamed onto ``FILE`` when all are
    written: a kill at any moment leaves the old ``FILE`` or the new one, never half of it.
    ``resume``: chunks of ``FILE.part`` (or of ``FILE`` itself) with the same header whose
    checksum matches are kept and only the others are written; a file of another board,
    start, move set or layout is refused (it is never replaced by a path it cannot continue).

    Refuses before writing when the disk lacks the room. Returns the header.
    """
    final = os.fspath(filename)
    head, header = _header_bytes(rows, cols, start, list(moves), chunk_moves, method, encoding)
    name, resume = _preallocate(final, head, header, resume)
    tracker = Progress(progress, unit="chunks", total=header.n_chunks)
    if fill is not None:
        write_chunks(
            name,
            header,
            0,
            header.n_chunks,
            fill,
            resume,
            lambda k: tracker.update(tracker.done + k),
        )
        tracker.finish()
        _finish(name, final)
        return header
    if chunk_task is None:
        raise ValueError("write_rpath needs fill or chunk_task")
    if scheduler is None and header.n_moves < PARALLEL_MOVES:
        jobs = 1  # a small file is written before threads would pay off
    # A few chunks per task: enough tasks to balance the workers, few enough that each task's
    # start-up (constructing the path object) is negligible.
    per_task = 4
    tasks = [
        (
            name,
            header.to_json(),
            header.data_offset,
            i,
            min(i + per_task, header.n_chunks),
            resume,
        )
        for i in range(0, header.n_chunks, per_task)
    ]
    # threads locally: the fill kernels, zlib.crc32 and os.pwrite all release the GIL
    for task, _ in run_jobs(chunk_task, tasks, n_jobs=jobs, scheduler=scheduler, threads=True):
        tracker.update(tracker.done + task[4] - task[3])  # written or kept
    tracker.finish()
    _finish(name, final)
    return header


def _preallocate(final: str, head: bytes, header: RpathHeader, resume: bool) -> tuple[str, bool]:
    """The file the chunks go to (see `_target()`), at its full size with its header
    written, unless it is resumed; and whether it is. Refuses when the disk lacks the room."""
    name = _target(final, head, header, resume)
    resume = resume and os.path.exists(name)
    folder = os.path.dirname(os.path.abspath(name))
    free = shutil.disk_usage(folder).free
    if os.path.exists(name):
        free += os.path.getsize(name)
    if header.file_size > free:
        raise InputError(
            f"{final}: the path needs {header.file_size / 1e9:.1f} GB on disk, "
            f"{folder} has {free / 1e9:.1f} GB free"
        )
    if not resume:
        with open(name, "wb") as f:
            f.write(head)
            f.truncate(header.file_size)
    return name, resume


def partial_name(filename: str | os.PathLike[str]) -> str:
    """Where the chunks of ``filename`` are written before it is whole: ``FILE.part``."""
    return os.fspath(filename) + ".part"


def _target(final: str, head: bytes, header: RpathHeader, resume: bool) -> str:
    """The file to write the chunks into: ``FILE.part``, or with ``resume`` the partial or
    finished file of the same path; InputError when ``resume`` meets a file of another path."""
    part = partial_name(final)
    if not resume:
        return part
    for candidate in (part, final):
        if _same_file(candidate, head, header.file_size):
            return candidate
    for candidate in (part, final):
        if os.path.exists(candidate):
            raise InputError(
                f"cannot resume {final}: {candidate} holds {_holds(candidate)}, not this path "
                f"({header.rows}x{header.cols} from {header.start}, {len(header.moves)} moves,"
                f" {header.encoding}); remove it or write another file"
            )
    return part


def _holds(name: str) -> str:
    try:
        h = read_header(name)
    except InputError:
        return "no .rpath path this run could continue"
    return f"a {h.rows}x{h.cols} path from {h.start} ({len(h.moves)} moves, {h.encoding})"


def _finish(name: str, final: str) -> None:
    if name != final:
        os.replace(name, final)


def write_chunks(
    name: str,
    header: RpathHeader,
    first: int,
    last: int,
    fill: FillMoves,
    resume: bool = False,
    on_chunk: Callable[[int], None] | None = None,
) -> int:
    """Write chunks ``first .. last - 1`` of a preallocated file (the body of a chunk task);
    with ``resume``, keep the chunks whose checksum already matches. Returns chunks written."""
    buf = np.empty(min(header.chunk_moves, max(1, header.n_moves)), np.uint8)
    packed = np.empty(header.stored_bytes(len(buf)), np.uint8)
    from rompicapo.common.parallel import stopping

    written = 0
    fd = os.open(name, os.O_RDWR)
    try:
        for i in range(first, last):
            if stopping():  # Ctrl-C or SIGTERM in this process: the chunks written are kept
                break
            lo, hi = header.chunk_range(i)
            view = buf[: hi - lo]
            stored = view if header.encoding == "u8" else packed[: header.stored_bytes(hi - lo)]
            off = header.chunk_offset(i)
            if resume:
                got = os.preadv(fd, [memoryview(stored)], off)
                crc = os.pread(fd, _CRC.size, off + len(stored))
                if (
                    got == len(stored)
                    and len(crc) == _CRC.size
                    and zlib.crc32(stored) == _CRC.unpack(crc)[0]
                ):
                    continue
            fill(lo, view)
            if header.encoding == "u3":
                _codec.pack3(view, stored)
            os.pwrite(fd, memoryview(stored), off)
            os.pwrite(fd, _CRC.pack(zlib.crc32(stored)), off + len(stored))
            written += 1
            if on_chunk:
                on_chunk(1)
    finally:
        os.close(fd)
    return written


def _same_file(name: str, head: bytes, size: int) -> bool:
    """Does ``name`` exist with this exact header and length (a run to resume)?"""
    try:
        with open(name, "rb") as f:
            return f.read(len(head)) == head and os.fstat(f.fileno()).st_size == size
    except OSError:
        return False


def header_from_json(head: dict, data_offset: int) -> RpathHeader:
    """The header object from its JSON form (a file's header, or what chunk tasks receive).
    Raises KeyError, ValueError, TypeError or IndexError when a field is missing or malformed;
    `read_header()` turns those into InputError and checks the values."""
    return RpathHeader(
        int(head["rows"]),
        int(head["cols"]),
        (int(head["start"][0]), int(head["start"][1])),
        tuple((int(a), int(b)) for a, b in head["moves"]),
        int(head["cells"]),
        int(head["chunk_moves"]),
        int(data_offset),
        str(head.get("method", "")),
        str(head["encoding"]),
    )


def write_path_array(
    filename: str | os.PathLike[str],
    path: np.ndarray,
    rows: int,
    cols: int,
    moves: Iterable[tuple[int, int]],
    *,
    method: str = "",
    chunk_moves: int = DEFAULT_CHUNK_MOVES,
    encoding: str = "u8",
) -> RpathHeader:
    """Write a path held as an array of flat cells (``r * cols + c``) as an ``.rpath`` file.

    Raises InputError if two consecutive cells are not one move of ``moves`` apart (the file
    could not name that step).
    """
    moves = [tuple(m) for m in moves]
    path = np.asarray(path)
    if len(path) != rows * cols:
        raise InputError(f"the path has {len(path):,} cells, the board {rows * cols:,}")
    reach = max(max(abs(a), abs(b)) for a, b in moves)
    side = 2 * reach + 1
    code = np.full(side * side, 255, np.uint8)  # (dr, dc) -> move index, 255 = not a move
    for k, (a, b) in enumerate(moves):
        code[(a + reach) * side + (b + reach)] = k

    def fill(first: int, out: np.ndarray) -> None:
        seg = path[first : first + len(out) + 1].astype(np.int64)
        r, c = np.divmod(seg, cols)
        dr, dc = np.diff(r), np.diff(c)
        ok = (np.abs(dr) <= reach) & (np.abs(dc) <= reach)
        key = np.where(ok, (dr + reach) * side + (dc + reach), 0)
        out[:] = np.where(ok, code[key], 255)
        if (out == 255).any():
            k = int(np.argmax(out == 255))
            raise InputError(f"step {first + k + 1} -> {first + k + 2} is not a move of the set")

    start = divmod(int(path[0]), cols) if len(path) else (0, 0)
    return write_rpath(
        filename,
        rows,
        cols,
        start,
        moves,
        fill,
        method=method,
        chunk_moves=chunk_moves,
        encoding=encoding,
    )
