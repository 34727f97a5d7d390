"""The block construction: its table, every board 5..40, random access, the .rpath
format and its streaming verifier, and a local Dask cluster."""

from __future__ import annotations

import itertools
import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rompicapo.cli import main
from rompicapo.common import InputError
from rompicapo.paths import construct, verify_path
from rompicapo.paths.block_table import ROLES, SIZES, TABLE_PATH, generate_table
from rompicapo.paths.blocks import BlockPath, split_length, write_blocks_rpath
from rompicapo.paths.moves import CASELLE
from rompicapo.paths.rpath import read_header, write_path_array, write_rpath
from rompicapo.paths.verify_stream import verify_rpath

MOVES = np.array(CASELLE)


# ----------------------------------------------------------------------------- the table


def test_shipped_table_is_what_the_script_regenerates():
    assert generate_table() == json.loads(TABLE_PATH.read_text())


def test_every_table_path_is_a_block_path_with_the_promised_ends():
    """Checked by coordinates here, not by the construction's code: every cell once, caselle
    steps, start at the corner, and the exit jump lands on the next block's entry."""
    table = json.loads(TABLE_PATH.read_text())
    seen = set()
    for b in table["blocks"]:
        h, w, role = b["h"], b["w"], b["role"]
        seen.add((role, h, w))
        cells = b["cells"]
        assert sorted(cells) == list(range(h * w)) and cells[0] == 0
        rc = [divmod(x, w) for x in cells]
        for (r1, c1), (r2, c2) in itertools.pairwise(rc):
            assert (r2 - r1, c2 - c1) in CASELLE
        if role != "last":
            dr, dc = CASELLE[b["exit_move"]]
            target = (0, w) if role == "straight" else (h, w - 1)
            assert (rc[-1][0] + dr, rc[-1][1] + dc) == target
    # all 75 (role, h, w): this is the proof that every split into parts 5..9 works
    assert seen == {(r, h, w) for r in ROLES for h in SIZES for w in SIZES}


@given(st.integers(5, 10**12))
def test_every_length_splits_into_parts_of_5_to_9(n):
    parts, base, extra = split_length(n)
    assert base >= 5 and base + (extra > 0) <= 9 and 0 <= extra < parts
    assert base * parts + extra == n


def test_short_sides_are_refused():
    with pytest.raises(InputError, match=">= 5"):
        BlockPath(4, 100)
    with pytest.raises(InputError, match=">= 5"):
        split_length(3)
    with pytest.raises(InputError, match="2\\^62"):
        BlockPath(10**10, 10**10)


# ----------------------------------------------------------------------------- boards


def test_every_board_from_5x5_to_40x40_is_a_verified_path():
    failures = []
    for rows in range(5, 41):
        for cols in range(5, 41):
            path = BlockPath(rows, cols).fill_path()
            check = verify_path(path, rows, cols, "caselle", start=(0, 0))
            if not check:
                failures.append((rows, cols, check.reason))
    assert failures == []


@pytest.mark.parametrize("rows,cols", [(1001, 997), (5, 4321), (3001, 7), (2345, 1234)])
def test_large_boards_are_verified_paths(rows, cols):
    res = construct(rows, cols, method="blocks")
    assert res.found and res.method == "blocks" and res.verify()


def test_threads_write_the_same_path_as_one_thread():
    bp = BlockPath(2003, 2999)  # 6M cells: more than one thread slice
    assert np.array_equal(bp.fill_path(jobs=1), bp.fill_path(jobs=2))


def test_auto_method_uses_blocks_only_where_they_apply():
    assert construct(12, 12, method="auto").method == "blocks"
    # other starts, closed tours and the knight: the block cycle
    assert construct(12, 12, start=(1, 1), method="auto").method == "blocks-cycle"
    assert construct(12, 12, moves="knight", method="auto").method == "blocks-cycle"
    assert construct(12, 12, closed=True, method="blocks").method == "blocks-cycle"
    assert construct(9, 9, start=(1, 1), method="auto").method.startswith("greedy")
    assert construct(4, 4, method="auto").method.startswith("greedy")
    with pytest.raises(InputError, match="lattice"):
        construct(12, 12, moves="1,1;1,-1", method="blocks")
    # small boards get the direct search, with its proofs
    assert construct(4, 4, method="blocks").status == "impossible"
    small = construct(4, 9, method="blocks")
    assert small.method.startswith("greedy") and small.found and small.verify()


# ----------------------------------------------------------------------------- random access


@settings(max_examples=60, deadline=None)
@given(st.integers(5, 60), st.integers(5, 60), st.data())
def test_cell_at_and_step_of_agree_with_the_built_path(rows, cols, data):
    bp = BlockPath(rows, cols)
    path = bp.fill_path()
    steps = np.arange(1, rows * cols + 1)
    r, c = bp.cell_at(steps)
    assert np.array_equal(r * cols + c, path)
    assert np.array_equal(bp.step_of(r, c), steps)
    k = data.draw(st.integers(1, rows * cols))
    assert bp.cell_at(k) == divmod(int(path[k - 1]), cols)
    assert bp.step_of(divmod(int(path[k - 1]), cols)) == k
    # a slice of the path and of the moves, from anywhere
    first = data.draw(st.integers(1, rows * cols))
    part = np.empty(rows * cols - first + 1, np.int64)
    assert np.array_equal(bp.fill_path(part, first), path[first - 1 :])
    if first < rows * cols:
        moves = bp.fill_moves(np.empty(rows * cols - first, np.uint8), first)
        pr, pc = np.divmod(path[first - 1 :].astype(np.int64), cols)
        assert np.array_equal(MOVES[moves, 0], np.diff(pr))
        assert np.array_equal(MOVES[moves, 1], np.diff(pc))


def test_random_access_on_a_million_by_million_board():
    bp = BlockPath(10**6, 10**6)
    steps = np.random.default_rng(4).integers(1, 10**12 + 1, 100_000)
    r, c = bp.cell_at(steps)
    assert np.array_equal(bp.step_of(r, c), steps)
    # consecutive steps are caselle moves apart
    r2, c2 = bp.cell_at(np.minimum(steps + 1, 10**12))
    d = {tuple(x) for x in np.stack([r2 - r, c2 - c], 1)[steps < 10**12].tolist()}
    assert d <= set(CASELLE)
    assert bp.cell_at(1) == (0, 0)
    with pytest.raises(InputError, match="outside"):
        bp.cell_at(10**12 + 1)
    with pytest.raises(InputError, match="off the"):
        bp.step_of((10**6, 0))


# ----------------------------------------------------------------------------- .rpath


def test_streamed_file_round_trips(tmp_path):
    rows, cols = 23, 31
    a = tmp_path / "a.rpath"
    header = write_blocks_rpath(a, rows, cols, jobs=1, chunk_moves=100)
    assert header.n_chunks == 8 and os.path.getsize(a) == header.file_size
    assert read_header(a) == header
    check = verify_rpath(a, start=(0, 0), moves="caselle")
    assert check.ok, check.reason
    assert check.stats["mode"] == "sequential"
    both = verify_rpath(a, mode="partitioned", jobs=2)
    assert both.ok and both.stats["partitions"] == 1
    # the same path written from its array gives the same moves and checksums
    b = tmp_path / "b.rpath"
    write_path_array(b, BlockPath(rows, cols).fill_path(), rows, cols, CASELLE, method="blocks",
                     chunk_moves=100)  # fmt: skip
    assert a.read_bytes() == b.read_bytes()


def test_a_time_limit_stops_the_check_between_chunks_without_a_verdict(tmp_path, capsys):
    a = tmp_path / "a.rpath"
    write_blocks_rpath(a, 23, 31, jobs=1, chunk_moves=100)  # 8 chunks
    for mode in ("sequential", "partitioned"):
        cut = verify_rpath(a, mode=mode, jobs=2, time_limit=1e-9)  # expired at the first chunk
        assert not cut.ok and cut.stats["stopped"] == "time", mode
        assert "not checked to the end" in cut.reason
        whole = verify_rpath(a, mode=mode, jobs=2, time_limit=60)
        assert whole.ok and "stopped" not in whole.stats
    # the command: not valid (0), not shown wrong (1), but stopped (130) when time ran out
    assert main(["verify-path", str(a), "--time", "60"]) == 0
    assert "a valid 23x31" in capsys.readouterr().out


def test_resume_rewrites_only_the_damaged_chunks(tmp_path):
    fresh, f = tmp_path / "fresh.rpath", tmp_path / "f.rpath"
    write_blocks_rpath(fresh, 30, 40, chunk_moves=100)
    header = write_blocks_rpath(f, 30, 40, chunk_moves=100)
    raw = bytearray(f.read_bytes())
    raw[header.chunk_offset(2) + 5] ^= 1  # a damaged chunk
    k = header.chunk_offset(7)
    raw[k : k + 104] = bytes(104)  # a chunk never written (the file is preallocated)
    f.write_bytes(bytes(raw))
    bp = BlockPath(30, 40)
    calls = []

    def fill(lo, out):
        calls.append(lo)
        bp.fill_moves(out, lo + 1)

    write_rpath(f, 30, 40, (0, 0), CASELLE, fill, method="blocks", chunk_moves=100, resume=True)
    assert calls == [200, 700] and f.read_bytes() == fresh.read_bytes()
    # a file of another header (no method named) cannot be continued: refused, left as it was
    # (issue 28: --resume never replaces a file it cannot continue)
    calls.clear()
    with pytest.raises(InputError, match="cannot resume"):
        write_rpath(f, 30, 40, (0, 0), CASELLE, fill, chunk_moves=100, resume=True)
    assert calls == [] and f.read_bytes() == fresh.read_bytes()
    # without resume it is replaced whole, through FILE.part renamed at the end
    write_rpath(f, 30, 40, (0, 0), CASELLE, fill, chunk_moves=100)
    assert len(calls) == header.n_chunks and not (tmp_path / "f.rpath.part").exists()


@pytest.mark.parametrize("mode", ["sequential", "partitioned"])
def test_a_corrupted_byte_is_detected_with_a_clear_message(tmp_path, mode):
    f = tmp_path / "a.rpath"
    header = write_blocks_rpath(f, 20, 20, chunk_moves=64)
    data = bytearray(f.read_bytes())
    data[header.chunk_offset(3) + 10] ^= 0x04
    f.write_bytes(bytes(data))
    check = verify_rpath(f, mode=mode)
    assert (
        not check
        and check.reason == "chunk 3 (moves 193..256) is corrupted: its checksum does not match"
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_no_corruption_of_the_body_passes(tmp_path, data):
    f = tmp_path / "h.rpath"
    header = write_blocks_rpath(f, 9, 11, chunk_moves=16)
    raw = bytearray(f.read_bytes())
    k = data.draw(st.integers(header.data_offset, len(raw) - 1))
    raw[k] ^= data.draw(st.integers(1, 255))
    f.write_bytes(bytes(raw))
    assert not verify_rpath(f).ok


def _write_moves(path, rows, cols, moves, start=(0, 0)):
    moves = np.asarray(moves, np.uint8)
    return write_rpath(path, rows, cols, start, CASELLE,
                       lambda lo, out: out.__setitem__(slice(None), moves[lo : lo + len(out)]),
                       chunk_moves=7)  # fmt: skip


@pytest.mark.parametrize("mode", ["sequential", "partitioned"])
def test_wrong_paths_with_good_checksums_are_rejected(tmp_path, mode):
    bp = BlockPath(6, 7)
    good = bp.fill_moves(np.empty(41, np.uint8))
    f = tmp_path / "w.rpath"
    _write_moves(f, 6, 7, good)
    assert verify_rpath(f, mode=mode).ok
    bad = good.copy()
    bad[5] = 9
    _write_moves(f, 6, 7, bad)
    assert "move 6 is byte 9" in verify_rpath(f, mode=mode).reason
    off = good.copy()
    off[0] = 3  # (0, -3) from (0, 0)
    _write_moves(f, 6, 7, off)
    assert verify_rpath(f, mode=mode).reason == "step 2: (0, -3) is outside the 6x7 board"
    # swapping two consecutive moves changes one cell: on the board, it is a repeat
    path = bp.fill_path()
    for k in range(40):
        swapped = good.copy()
        swapped[k], swapped[k + 1] = good[k + 1], good[k]
        r, c = divmod(int(path[k]), 7)
        r, c = r + CASELLE[good[k + 1]][0], c + CASELLE[good[k + 1]][1]
        if swapped[k] != good[k] and 0 <= r < 6 and 0 <= c < 7:
            break
    _write_moves(f, 6, 7, swapped)
    assert verify_rpath(f, mode=mode).reason.startswith(f"cell ({r}, {c}) is visited twice")
    assert verify_path(np.asarray(path), 6, 7, "caselle").ok
    _write_moves(f, 6, 7, good, start=(0, 1))
    assert (
        "outside" in verify_rpath(f, mode=mode).reason
        or "twice" in verify_rpath(f, mode=mode).reason
    )
    _write_moves(f, 6, 7, good)
    assert "starts at (0, 0), not at (1, 1)" in verify_rpath(f, start=(1, 1), mode=mode).reason
    assert "not a move of knight" in verify_rpath(f, moves="knight", mode=mode).reason


def test_foreign_and_truncated_files_are_clear_errors(tmp_path):
    f = tmp_path / "x.rpath"
    f.write_bytes(b"hello world, not a path")
    with pytest.raises(InputError, match=r"not an \.rpath file"):
        read_header(f)
    write_blocks_rpath(f, 10, 10)
    raw = f.read_bytes()
    f.write_bytes(raw[:-5])
    with pytest.raises(InputError, match="truncated"):
        read_header(f)
    f.write_bytes(raw[:12] + b"x" + raw[13:])
    with pytest.raises(InputError, match="header"):
        read_header(f)


# the header readers' fuzz test (the writer's and the verifier's): test_paths_verifiers.py


def test_dask_local_cluster_writes_the_same_file(tmp_path):
    distributed = pytest.importorskip("distributed")
    one = tmp_path / "one.rpath"
    many = tmp_path / "many.rpath"
    write_blocks_rpath(one, 57, 61, jobs=1, chunk_moves=97)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        write_blocks_rpath(many, 57, 61, scheduler=cluster.scheduler_address, chunk_moves=97)
        check = verify_rpath(many, scheduler=client)
    assert one.read_bytes() == many.read_bytes()
    assert check.ok and check.stats["chunks"] == 36


# ----------------------------------------------------------------------------- CLI


def test_cli_random_access_and_streaming(tmp_path, capsys):
    assert main(["path-at", "1000000", "1", "1000000000000"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "step 1: 0,0"
    r, c = (int(x) for x in out[1].split(": ")[1].split(","))
    assert main(["step-of", "1000000", f"{r},{c}", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["steps"] == [10**12]
    f = tmp_path / "p.rpath"
    assert main(["path", "300x200", "--out", str(f), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["verified"] and res["method"] == "blocks" and res["bytes"] == f.stat().st_size
    assert main(["verify-path", str(f)]) == 0
    assert "a valid 300x200 caselle path" in capsys.readouterr().out
    raw = bytearray(f.read_bytes())
    raw[-100] ^= 1
    f.write_bytes(bytes(raw))
    assert main(["verify-path", str(f), "--json"]) == 1
    assert "corrupted" in json.loads(capsys.readouterr().out)["reason"]
    # greedy paths stream too (converted from the array)
    g = tmp_path / "g.rpath"
    assert main(["path", "30", "--method", "greedy", "--out", str(g), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["verify-path", str(g), "30"]) == 0
    assert main(["verify-path", str(g), "31"]) == 2
    assert "not 31" in capsys.readouterr().err


# ----------------------------------------------------------------------------- 3-bit packing


@settings(deadline=None)  # the first example loads the kernels
@given(st.lists(st.integers(0, 7), max_size=70))
def test_the_3_bit_codec_round_trips(values):
    from rompicapo.paths._rpath_kernel import pack3, unpack3

    moves = np.array(values, np.uint8)
    packed = np.empty((len(values) + 7) // 8 * 3, np.uint8)
    pack3(moves, packed)
    back = np.empty(len(values), np.uint8)
    unpack3(packed, back)
    assert np.array_equal(back, moves)


def test_packed_files_hold_the_same_moves_in_three_eighths(tmp_path):
    from rompicapo.paths.rpath import read_chunk

    u8, u3 = tmp_path / "u8.rpath", tmp_path / "u3.rpath"
    h8 = write_blocks_rpath(u8, 41, 37, chunk_moves=100)
    h3 = write_blocks_rpath(u3, 41, 37, chunk_moves=100, encoding="u3")
    assert h3.encoding == "u3" and h3.chunk_moves == 96  # whole groups of 8
    assert read_header(u3) == h3
    # 1516 moves: 15 chunks of 96 (36 bytes) and one of 76 (30 bytes), a CRC-32 each
    assert h3.file_size - h3.data_offset == 15 * 36 + 30 + 16 * 4
    with open(u8, "rb") as f8, open(u3, "rb") as f3:
        a = np.concatenate([read_chunk(f8, h8, i) for i in range(h8.n_chunks)])
        b = np.concatenate([read_chunk(f3, h3, i) for i in range(h3.n_chunks)])
    assert np.array_equal(a, b)
    assert verify_rpath(u3, start=(0, 0)).ok
    raw = bytearray(u3.read_bytes())
    raw[h3.chunk_offset(4) + 7] ^= 0x10
    u3.write_bytes(bytes(raw))
    assert "chunk 4 (moves 385..480) is corrupted" in verify_rpath(u3).reason
    write_blocks_rpath(u3, 41, 37, chunk_moves=100, encoding="u3", resume=True)
    assert verify_rpath(u3).ok
    with pytest.raises(InputError, match="at most 8 moves"):
        write_rpath(tmp_path / "k.rpath", 5, 5, (0, 0), [(1, 2), (2, 1)] * 5, lambda a, b: None,
                    encoding="u3")  # fmt: skip


def test_cli_packed_output(tmp_path, capsys):
    f = tmp_path / "p.rpath"
    assert main(["path", "50x60", "--out", str(f), "--packed", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["verified"] and res["bytes"] == f.stat().st_size < 50 * 60 * 3 // 8 + 400
    assert main(["verify-path", str(f)]) == 0


def test_partitioned_check_over_several_row_partitions(tmp_path, monkeypatch):
    import rompicapo.paths.verify_stream as vs

    monkeypatch.setattr(vs, "PARALLEL_MOVES", 0)  # small file, still split among threads
    f = tmp_path / "p.rpath"
    write_blocks_rpath(f, 61, 23, chunk_moves=50)
    check = verify_rpath(f, jobs=3, mode="partitioned")
    assert check.ok and check.stats["partitions"] == 3
    bp = BlockPath(61, 23)
    moves = bp.fill_moves(np.empty(61 * 23 - 1, np.uint8))
    path = bp.fill_path()
    k = 700  # swap two moves in the middle band: one cell changes, so one is reached twice
    while True:
        r, c = divmod(int(path[k]), 23)
        r, c = r + CASELLE[moves[k + 1]][0], c + CASELLE[moves[k + 1]][1]
        if moves[k] != moves[k + 1] and 0 <= r < 61 and 0 <= c < 23:
            break
        k += 1
    moves[k], moves[k + 1] = moves[k + 1], moves[k]
    _write_moves(f, 61, 23, moves)
    seq = verify_rpath(f, mode="sequential")
    par = verify_rpath(f, jobs=3, mode="partitioned")
    assert not seq.ok and seq.reason == par.reason and "visited twice" in par.reason
