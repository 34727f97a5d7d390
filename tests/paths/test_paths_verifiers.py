"""The two verifiers catch a corrupted answer, share no code with the path makers, and read the
files and move sets with their own code."""

from __future__ import annotations

import ast
import contextlib
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rompicapo.paths
from rompicapo.common import InputError, ProgressEvent
from rompicapo.paths import construct, parse_moves, verify_path, write_path
from rompicapo.paths.rpath import read_header
from rompicapo.paths.verify import read_moves
from rompicapo.paths.verify_stream import read_stream_header, verify_rpath

PACKAGE = Path(rompicapo.paths.__file__).parent


# ------------------------------------------------------------------ one wrong cell


@pytest.mark.parametrize(("rows", "cols", "moves"), [(10, 10, "caselle"), (7, 9, "knight")])
def test_the_path_verifier_rejects_one_wrong_cell(rows, cols, moves):
    path = construct(rows, cols, moves=moves, method="auto").path.astype(np.int64)
    assert verify_path(path, rows, cols, moves)
    for k in (0, 1, len(path) // 2, len(path) - 1):
        wrong = path.copy()
        wrong[k] = path[k - 1] if k else path[1]  # a cell of the path, visited twice now
        assert not verify_path(wrong, rows, cols, moves), k
        wrong[k] = rows * cols  # off the board
        assert not verify_path(wrong, rows, cols, moves), k


# ------------------------------------------------------------------ one wrong bit


def _flip(name: Path, offset: int, bit: int, fix_crc: bool) -> None:
    """Flip one bit of a chunk's stored moves; with ``fix_crc`` the chunk's CRC-32 is
    rewritten to match, so only the verifier's check of the moves can catch it."""
    header = read_header(name)
    raw = bytearray(name.read_bytes())
    raw[offset] ^= 1 << bit
    if fix_crc:
        i = (offset - header.data_offset) // (header.stored_bytes(header.chunk_moves) + 4)
        lo, hi = header.chunk_range(i)
        start = header.chunk_offset(i)
        end = start + header.stored_bytes(hi - lo)
        raw[end : end + 4] = zlib.crc32(bytes(raw[start:end])).to_bytes(4, "little")
    name.write_bytes(bytes(raw))


@pytest.mark.parametrize("mode", ["sequential", "partitioned"])
@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("fix_crc", [False, True])
def test_the_stream_verifier_rejects_one_wrong_bit(tmp_path, mode, packed, fix_crc):
    res = construct(30, 40, (3, 4), method="auto")
    name = tmp_path / "p.rpath"
    write_path(res, name, packed=packed)
    header = read_header(name)
    assert verify_rpath(name, mode=mode, jobs=2)
    good = name.read_bytes()
    rng = np.random.default_rng(7)
    for _ in range(5):
        name.write_bytes(good)
        offset = header.chunk_offset(0) + int(rng.integers(header.stored_bytes(50)))
        _flip(name, offset, int(rng.integers(8)), fix_crc)
        check = verify_rpath(name, mode=mode, jobs=2, moves="caselle", start=(3, 4))
        assert not check, offset
        if not fix_crc:
            assert "is corrupted: its checksum does not match" in check.reason


# ------------------------------------------------------------------ progress


def test_verify_rpath_reports_progress_events_and_keeps_the_old_callback(tmp_path):
    name = tmp_path / "p.rpath"
    write_path(construct(20, 20, method="blocks"), name)
    events: list[ProgressEvent] = []
    assert verify_rpath(name, progress=events.append)
    assert events[0].kind == "start" and events[-1].kind == "done"
    assert events[-1].unit == "chunks" and events[-1].total == 2 * read_header(name).n_chunks
    calls = []
    with pytest.warns(DeprecationWarning, match="on_progress= is now progress="):
        assert verify_rpath(name, on_progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1][0] == calls[-1][1] == 2 * read_header(name).n_chunks
    with pytest.raises(InputError, match="not both"):
        verify_rpath(name, progress=events.append, on_progress=print)


# ------------------------------------------------------------------ their own readers


def test_the_verifiers_import_nothing_from_the_path_makers():
    # the shared plumbing (errors, progress, files) and the decorator every kernel compiles with
    allowed = {"rompicapo.common", "rompicapo.common.jit", "rompicapo.paths.verify",
               "rompicapo.paths"}  # fmt: skip
    for module in ("verify.py", "verify_stream.py", "_verify_stream_kernel.py"):
        tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rompicapo"):
                assert node.module in allowed, (module, node.module)
                if node.module == "rompicapo.paths":
                    assert [a.name for a in node.names] == ["_verify_stream_kernel"], module


def test_the_stream_header_reader_agrees_with_the_writer(tmp_path):
    for packed in (False, True):
        name = tmp_path / f"p{int(packed)}.rpath"
        write_path(construct(12, 10, (1, 1), "knight", closed=True, method="auto"), name,
                   packed=packed)  # fmt: skip
        ours, theirs = read_stream_header(name), read_header(name)
        for field in ("rows", "cols", "start", "moves", "cells", "chunk_moves", "data_offset"):
            assert getattr(ours, field) == getattr(theirs, field)
        assert ours.packed == packed
        assert [ours.chunk_offset(i) for i in range(ours.n_chunks)] == [
            theirs.chunk_offset(i) for i in range(theirs.n_chunks)
        ]


@pytest.mark.parametrize("reader", [read_header, read_stream_header])
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(blob=st.binary(max_size=300))
def test_the_header_readers_never_crash(tmp_path, reader, blob):
    f = tmp_path / "r.rpath"
    f.write_bytes(b"RPATH\x00\x01\x00" + blob)
    with contextlib.suppress(InputError):
        reader(f)


@pytest.mark.parametrize(
    "spec", ["caselle", "knight", " Knight ", "0,1;1,0", "1,2;2,1;1,-2;2,-1", "3,1", [(1, 1)]]
)
def test_the_verifier_reads_move_sets_as_the_solvers_do(spec):
    ours, theirs = read_moves(spec), parse_moves(spec)
    assert set(ours.moves) == set(theirs.moves)
    assert ours.name == theirs.spec
    assert read_moves(theirs).name == theirs.spec  # a MoveSet, read by its pairs


@pytest.mark.parametrize("spec", ["bishop", "1,2;x", "", "0,0", "1,99", [(1,)]])
def test_the_verifier_refuses_what_is_no_move_set(spec):
    with pytest.raises(InputError):
        read_moves(spec)
