"""Block cycles: closed tours and paths from any start by blocks, for caselle, the
knight and other leapers; Schwenk's theorem; counts by (start, end) pair.

Every path is checked by the independent verifier (:mod:`rompicapo.paths.verify`, which imports
nothing from the solvers); table paths are checked here by coordinates.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rompicapo.cli import main
from rompicapo.common import InputError
from rompicapo.paths import construct, parse_moves, verify_path
from rompicapo.paths.count import count_end_matrix, count_paths
from rompicapo.paths.cycles import BlockCycle, cycle_refusal, write_cycle_rpath
from rompicapo.paths.leaper_blocks import (
    COMBOS,
    build_table,
    entry_cell,
    exit_target,
    table_path,
)
from rompicapo.paths.rpath import write_rpath
from rompicapo.paths.verify_stream import verify_rpath

KNIGHT = parse_moves("knight").moves
CASELLE = parse_moves("caselle").moves


def schwenk(m: int, n: int) -> bool:
    """Schwenk (1991): an m x n board (m <= n) has a closed knight's tour unless m and n are
    both odd, m is 1, 2 or 4, or m = 3 and n is 4, 6 or 8."""
    m, n = min(m, n), max(m, n)
    return not ((m % 2 and n % 2) or m in (1, 2, 4) or (m == 3 and n in (4, 6, 8)))


def expected_proof(m: int, n: int) -> str:
    """A word the proof of impossibility must contain: the argument Schwenk's theorem rests on
    for that board."""
    m, n = min(m, n), max(m, n)
    if m * n == 1:
        return "no move"
    if m * n % 2:
        return "colour"
    if m == 1 or m == 2:
        return "cells"  # unconnected cells, or cells with a single neighbour
    if 4 in (m, n):
        return "Pósa"  # also 3 x 4: its two outer columns send every move inward
    return "exhaustive search"


def check_schwenk(m: int, n: int) -> None:
    res = construct(m, n, moves="knight", closed=True, method="auto")
    if schwenk(m, n):
        assert res.found, (m, n, res.status)
        assert verify_path(res.path, m, n, "knight", start=(0, 0), closed=True)
    else:
        assert res.status == "impossible", (m, n, res.status)
        assert expected_proof(m, n) in res.proof, (m, n, res.proof)


# ----------------------------------------------------------------------------- Schwenk


@pytest.mark.parametrize("m", range(1, 13))
def test_schwenk_up_to_12(m):
    for n in range(m, 13):
        check_schwenk(m, n)


@pytest.mark.parametrize(
    "m, n", [(3, 10), (3, 14), (4, 40), (5, 40), (6, 39), (3, 40), (7, 38), (12, 40), (39, 40)]
)
def test_schwenk_sample_up_to_40(m, n):
    check_schwenk(m, n)


@pytest.mark.slow
@pytest.mark.parametrize("m", range(1, 41))
def test_schwenk_every_board_up_to_40(m):
    for n in range(m, 41):
        check_schwenk(m, n)


# ----------------------------------------------------------------------------- the tables


@pytest.mark.parametrize("name", ["knight", "caselle"])
def test_shipped_table_is_what_the_builder_regenerates(name):
    shipped = json.loads(table_path(name).read_text())
    assert build_table(name) == shipped


@pytest.mark.parametrize("name", ["knight", "caselle"])
def test_every_table_path_has_the_promised_ends(name):
    """By coordinates: every cell once, legal moves, the entry cell first, and the exit jump
    lands on the next block's entry (the layout's contract)."""
    table = json.loads(table_path(name).read_text())
    moves = [tuple(m) for m in table["moves"]]
    shift = table["bipartite"]
    for b in table["blocks"]:
        k, h, w, p, q = b["key"]
        cells = b["cells"]
        assert sorted(cells) == list(range(h * w))
        rc = [divmod(x, w) for x in cells]
        for (r1, c1), (r2, c2) in itertools.pairwise(rc):
            assert (r2 - r1, c2 - c1) in moves
        assert rc[0] == entry_cell(COMBOS[k][0], h, w, p, shift)
        dr, dc = moves[b["exit_move"]]
        assert (rc[-1][0] + dr, rc[-1][1] + dc) == exit_target(COMBOS[k][1], h, w, p, q, shift)


def test_any_leaper_gets_blocks_or_a_reason():
    rook = build_table("0,1;1,0")  # the rook's step: bipartite, blocks from B = 4
    assert rook["blocks"] is not None
    bc = BlockCycle(9, 14, "0,1;1,0", start=(4, 5))
    assert verify_path(bc.fill_path(), 9, 14, "0,1;1,0", start=(4, 5), closed=True)
    zebra = build_table("2,3;3,2;2,-3;3,-2")
    assert zebra["blocks"] is None and "no B up to" in zebra["reason"]
    assert "lattice" in build_table("1,1;1,-1")["reason"]
    with pytest.raises(InputError, match="does not apply") as err:
        construct(30, 30, moves="2,3;3,2;2,-3;3,-2", method="blocks")
    assert "\n" not in str(err.value)
    res = construct(30, 30, moves="2,3;3,2;2,-3;3,-2", method="auto", time_limit=5)
    assert res.method.startswith("greedy")


# ----------------------------------------------------------------------------- cycles


@pytest.mark.parametrize("name", ["caselle", "knight"])
def test_every_cycle_closes_10_to_40(name):
    rng = np.random.default_rng(15)
    served = 0
    for rows in range(10, 41):
        for cols in range(10, 41, 3):
            if cycle_refusal(rows, cols, name):
                continue
            start = (int(rng.integers(rows)), int(rng.integers(cols)))
            bc = BlockCycle(rows, cols, name, start)
            path = bc.fill_path()
            assert verify_path(path, rows, cols, name, start=start, closed=True), (rows, cols)
            served += 1
    assert served > 200


def test_which_boards_blocks_serve():
    assert cycle_refusal(10, 10, "caselle") == ""
    assert "10" in cycle_refusal(9, 40, "caselle")
    assert cycle_refusal(10, 12, "knight") == "" and cycle_refusal(13, 12, "knight") == ""
    assert "even side >= 12" in cycle_refusal(10, 10, "knight")
    assert "both sides are odd" in cycle_refusal(41, 41, "knight")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["caselle", "knight"]),
    st.integers(10, 10**6),
    st.integers(10, 10**6),
    st.data(),
)
def test_cell_at_and_step_of_are_inverse(name, rows, cols, data):
    assume(not cycle_refusal(rows, cols, name))
    n = rows * cols
    start = (data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1)))
    bc = BlockCycle(rows, cols, name, start)
    steps = np.array(data.draw(st.lists(st.integers(1, n - 1), min_size=1, max_size=20)))
    every = np.concatenate([steps, steps + 1, [1, n]])
    r, c = bc.cell_at(every)
    assert np.all((r >= 0) & (r < rows) & (c >= 0) & (c < cols))
    assert np.array_equal(bc.step_of(r, c), every)
    assert bc.cell_at(1) == start and bc.step_of(start) == 1
    moves = set(parse_moves(name).moves)
    k = len(steps)
    for a in range(k):  # consecutive steps are one move apart
        assert (int(r[k + a] - r[a]), int(c[k + a] - c[a])) in moves
    # the last cell is one move from the first: the cycle closes
    last = bc.cell_at(n)
    assert (last[0] - start[0], last[1] - start[1]) in moves


def test_construct_uses_the_cycle_for_any_start_and_closed():
    res = construct(31, 44, start=(17, 3), moves="knight", closed=True, method="auto")
    assert res.method == "blocks-cycle" and res.found
    assert verify_path(res.path, 31, 44, "knight", start=(17, 3), closed=True)
    res = construct(25, 25, start=(24, 1), method="blocks")
    assert res.method == "blocks-cycle" and res.verify()
    assert construct(25, 25, method="auto").method == "blocks"  # the corner path: (0, 0)


def test_large_path_arrays_written_with_streaming_stores_are_the_same_path():
    """From 64 MB up the fill uses non-temporal stores: the array must hold the same cells
    as the plain stores write into small slices, and be a closed tour."""
    bc = BlockCycle(4100, 4100, "knight", start=(2049, 17))
    whole = bc.fill_path(jobs=2)  # 67 MB of int32
    assert whole.nbytes >= 64 << 20
    for first in (1, 7_777_777, bc.cells - 99_999):
        part = bc.fill_path(np.empty(100_000, np.int32), first, jobs=1)
        assert np.array_equal(whole[first - 1 : first - 1 + 100_000], part)
    assert verify_path(whole, 4100, 4100, "knight", start=(2049, 17), closed=True)


@pytest.mark.parametrize("mode", ["sequential", "partitioned"])
def test_streamed_cycle_is_verified(tmp_path, mode):
    f = tmp_path / "k.rpath"
    write_cycle_rpath(f, 60, 70, "knight", (33, 9), chunk_moves=500, jobs=2)
    check = verify_rpath(f, start=(33, 9), moves="knight", closed=True, mode=mode, jobs=2)
    assert check, check.reason
    assert verify_rpath(f, start=(33, 9), moves="knight", mode=mode, jobs=2)


@pytest.mark.parametrize("mode", ["sequential", "partitioned"])
def test_streamed_open_path_is_not_a_closed_tour(tmp_path, mode):
    """A valid open path passes the streaming verifier, and fails it when a closed tour is
    asked for, with the reason: the in-memory verifier's verdict on the same path."""
    res = construct(12, 13, moves="caselle", start=(0, 0))
    path = np.asarray(res.path, np.int64)
    assert verify_path(path, 12, 13, "caselle", start=(0, 0))
    assert not verify_path(path, 12, 13, "caselle", start=(0, 0), closed=True)
    index = {m: k for k, m in enumerate(CASELLE)}
    steps = np.array(
        [
            index[(int(b // 13 - a // 13), int(b % 13 - a % 13))]
            for a, b in itertools.pairwise(path)
        ],
        np.uint8,
    )

    def fill(first: int, out: np.ndarray) -> None:
        out[:] = steps[first : first + len(out)]

    f = tmp_path / "open.rpath"
    write_rpath(f, 12, 13, (0, 0), CASELLE, fill, chunk_moves=40)
    assert verify_rpath(f, start=(0, 0), moves="caselle", mode=mode, jobs=2)
    check = verify_rpath(f, start=(0, 0), moves="caselle", closed=True, mode=mode, jobs=2)
    assert not check
    last = divmod(int(path[-1]), 13)
    assert check.reason.startswith(f"the path is not closed: its last cell {last} (step 156)")


def test_a_move_set_read_back_keeps_its_order():
    for name in ("knight", "caselle", "1,3;3,1"):
        mset = parse_moves(name)
        assert parse_moves([list(m) for m in mset.moves]).moves == mset.moves
        assert parse_moves(mset.transposed().moves).moves == mset.transposed().moves


def test_cycles_on_transposed_boards_do_not_change_the_file_of_another(tmp_path):
    # The tables were cached by move set, equal in any order of the moves: a board read
    # transposed (an odd side) first made the knight's table index its moves in the transposed
    # order for every later caller, and a streamed cycle failed verification. A fresh process,
    # so that no earlier test has filled the caches.
    script = (
        "import sys\n"
        "from rompicapo.paths.cycles import BlockCycle, write_cycle_rpath\n"
        "from rompicapo.paths.verify_stream import verify_rpath\n"
        "BlockCycle(60, 71, 'knight', (3, 4)).cell_at(5)\n"
        "write_cycle_rpath(sys.argv[1], 60, 70, 'knight', (33, 9), chunk_moves=500, jobs=2)\n"
        "print(bool(verify_rpath(sys.argv[1], start=(33, 9), moves='knight')))\n"
    )
    f = tmp_path / "k.rpath"
    out = subprocess.run(
        [sys.executable, "-c", script, str(f)], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_cli_any_start_closed_and_random_access(tmp_path, capsys):
    f = tmp_path / "c.rpath"
    assert main(["path", "100", "--start", "47,11", "--out", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "blocks-cycle" and out["verified"] and out["start"] == [47, 11]
    assert main(["verify-path", str(f), "--closed", "--start", "47,11", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] and out["closed"]
    assert main(["path", "14", "--moves", "knight", "--closed", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] and out["closed"] and out["method"] == "blocks-cycle"
    args = ["--start", "4711,99", "--moves", "knight", "--json"]
    assert main(["path-at", "1000000", "1", "1000000000000", *args]) == 0
    cells = json.loads(capsys.readouterr().out)["cells"]
    assert cells[0] == [4711, 99]
    r, c = cells[1]
    assert (r - 4711, c - 99) in KNIGHT  # the last step is one move from the start
    assert main(["step-of", "1000000", f"{r},{c}", *args]) == 0
    assert json.loads(capsys.readouterr().out)["steps"] == [10**12]


# ----------------------------------------------------------------------------- (start, end)


def brute_force_ends(rows: int, cols: int, moves) -> np.ndarray:
    """Plain depth-first search, no pruning, recording each path's two ends."""
    n = rows * cols
    nbrs = [
        [(r + a) * cols + c + b for a, b in moves if 0 <= r + a < rows and 0 <= c + b < cols]
        for r in range(rows)
        for c in range(cols)
    ]
    out = np.zeros((n, n), np.int64)
    for s in range(n):
        seen = [False] * n
        seen[s] = True
        stack = [(s, iter(nbrs[s]))]
        while stack:
            v, it = stack[-1]
            if len(stack) == n:
                out[s, v] += 1
            for u in it:
                if not seen[u]:
                    seen[u] = True
                    stack.append((u, iter(nbrs[u])))
                    break
            else:
                seen[v] = False
                stack.pop()
    return out


def test_end_matrix_5x5_against_brute_force():
    res = count_end_matrix(5, 5, symmetry=False)
    assert np.array_equal(res.matrix, brute_force_ends(5, 5, CASELLE))
    assert res.checks() == {"symmetric": True, "invariant": True}
    assert np.array_equal(res.table, count_paths(5, 5).table)


def test_end_matrix_5x6_symmetric_and_row_sums():
    res = count_end_matrix(5, 6, symmetry=False)
    assert res.checks() == {"symmetric": True, "invariant": True}
    assert np.array_equal(res.table, count_paths(5, 6).table)
    assert np.array_equal(count_end_matrix(5, 6).matrix, res.matrix)


def test_closed_tours_are_the_paths_that_end_one_move_from_their_start():
    # a closed tour from s is a path from s ending next to s: the matrix's entries at s's
    # neighbours add up to the closed count (the same from every start), an independent
    # search of the kernel's closed mode (the 7x7 closed count is checked this way too)
    for rows, cols, closed_per_start in ((5, 5, 96), (5, 6, 592)):
        m = count_end_matrix(rows, cols).matrix
        closed = count_paths(rows, cols, start=(0, 0), closed=True).count
        assert closed == closed_per_start
        for s in range(rows * cols):
            r, c = divmod(s, cols)
            near = [
                (r + dr) * cols + c + dc
                for dr, dc in CASELLE
                if 0 <= r + dr < rows and 0 <= c + dc < cols
            ]
            assert int(m[s, near].sum()) == closed


@pytest.mark.slow
def test_end_matrix_6x6():
    res = count_end_matrix(6, 6)
    assert res.checks() == {"symmetric": True, "invariant": True}
    assert np.array_equal(res.table, count_paths(6, 6).table)
    assert int(res.matrix.sum()) == 8_250_272


def test_end_matrix_with_jobs_and_checkpoint(tmp_path):
    ck = tmp_path / "ck.json"
    res = count_end_matrix(5, 5, jobs=1, checkpoint=ck)
    assert np.array_equal(res.matrix, count_end_matrix(5, 5).matrix)
    assert json.loads(ck.read_text())["payload"]["problem"]["ends"] is True
    again = count_end_matrix(5, 5, jobs=1, checkpoint=ck)  # resumed: every job already done
    assert np.array_equal(again.matrix, res.matrix)
    with pytest.raises(InputError, match="different problem"):
        count_paths(5, 5, jobs=1, checkpoint=ck)


# ----------------------------------------------------------------------------- greedy closed


@pytest.mark.parametrize("moves, start", [("caselle", (0, 0)), ("knight", (13, 7))])
def test_greedy_closed_tour_is_read_from_the_asked_start(moves, start):
    """The walk starts at the centre and the cycle is read from the start."""
    res = construct(300, 300, start=start, moves=moves, closed=True, method="greedy")
    assert res.found and res.method.startswith("greedy")
    assert verify_path(res.path, 300, 300, moves, start=start, closed=True)
