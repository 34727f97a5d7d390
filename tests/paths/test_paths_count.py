"""Exact counts of jump-grid paths: the pruned kernel against brute force and published counts.

Two independent counters live here: a subset dynamic programme (bitmask of visited cells x end
cell, for boards of up to 20 cells) and the kernel module's plain DFS without pruning. Counts
on bigger boards come from the C program that enumerated the "Solitario del 35".
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from numba import njit

from rompicapo.common import InputError, NotVerifiable
from rompicapo.paths import _count_kernel as K
from rompicapo.paths import count as count_module
from rompicapo.paths import count_jobs, exhaustive
from rompicapo.paths._count_kernel import count_plain
from rompicapo.paths.count import (
    board_symmetries,
    count_paths,
    iter_paths,
    search_path,
    start_classes,
)
from rompicapo.paths.moves import parse_moves

# ---------------------------------------------------------------------------------------------
# Independent counters and checker
# ---------------------------------------------------------------------------------------------


def _adjacency(rows: int, cols: int, moves: str) -> np.ndarray:
    """adj[i] = bit set of the cells one move from cell i (coordinates, no framed board)."""
    adj = np.zeros(rows * cols, dtype=np.int64)
    for r in range(rows):
        for c in range(cols):
            for dr, dc in parse_moves(moves).moves:
                if 0 <= r + dr < rows and 0 <= c + dc < cols:
                    adj[r * cols + c] |= 1 << ((r + dr) * cols + c + dc)
    return adj


@njit(cache=True)
def _subset_dp(n, adj, start):
    """ways[mask, v]: paths visiting exactly the cells of mask and ending at v, starting at
    ``start`` (or at any cell when ``start`` is -1)."""
    ways = np.zeros((1 << n, n), dtype=np.int64)
    for v in range(n):
        if start < 0 or v == start:
            ways[1 << v, v] = 1
    for mask in range(1, 1 << n):
        for v in range(n):
            w = ways[mask, v]
            if w == 0:
                continue
            nxt = adj[v] & ~mask
            for u in range(n):
                if (nxt >> u) & 1:
                    ways[mask | (1 << u), u] += w
    return ways


def dp_table(rows: int, cols: int, moves: str) -> np.ndarray:
    """Paths from every start by subset DP: paths from s = paths ending at s (reverse them)."""
    n = rows * cols
    assert n <= 20, "2^n x n table"
    ways = _subset_dp(n, _adjacency(rows, cols, moves), -1)
    return ways[(1 << n) - 1].reshape(rows, cols)


def dp_closed_from_first_cell(rows: int, cols: int, moves: str) -> int:
    """Closed tours from cell 0: paths from 0 through every cell that end one move from 0."""
    n = rows * cols
    assert n <= 20, "2^n x n table"
    adj = _adjacency(rows, cols, moves)
    ways = _subset_dp(n, adj, 0)
    return int(sum(ways[(1 << n) - 1, v] for v in range(n) if (adj[0] >> v) & 1))


def plain_table(rows: int, cols: int, moves: str = "caselle", closed: bool = False) -> np.ndarray:
    dr, dc = parse_moves(moves).arrays()
    return np.array(
        [
            [count_plain(rows, cols, dr, dc, r * cols + c, closed)[0] for c in range(cols)]
            for r in range(rows)
        ]
    )


def is_path(path, rows: int, cols: int, moves: str, start=None, closed=False) -> bool:
    """A local checker by coordinates (the package verifier is tested on its own)."""
    cells = [int(x) for x in path]
    if sorted(cells) != list(range(rows * cols)):
        return False
    if start is not None and cells[0] != start[0] * cols + start[1]:
        return False
    legal = set(parse_moves(moves).moves)
    steps = list(itertools.pairwise(cells))
    if closed:
        steps.append((cells[-1], cells[0]))
    return all((b // cols - a // cols, b % cols - a % cols) in legal for a, b in steps)


# ---------------------------------------------------------------------------------------------
# Known counts
# ---------------------------------------------------------------------------------------------

# Established with the two brute-force counters of this file (subset DP for 4x5; plain DFS
# without pruning, count_plain, for 4x6 and 5x5), run on 2026-11-29.
KNOWN_CASELLE = {
    (4, 5): [[6, 6, 4, 6, 6], [8, 8, 12, 8, 8], [8, 8, 12, 8, 8], [6, 6, 4, 6, 6]],
    (4, 6): [[8, 6, 0, 0, 6, 8], [12, 6, 0, 0, 6, 12], [12, 6, 0, 0, 6, 12], [8, 6, 0, 0, 6, 8]],
    (5, 5): [
        [552, 548, 552, 548, 552],
        [548, 412, 400, 412, 548],
        [552, 400, 352, 400, 552],
        [548, 412, 400, 412, 548],
        [552, 548, 552, 548, 552],
    ],
}


@pytest.mark.parametrize("size", sorted(KNOWN_CASELLE))
def test_known_tables(size):
    rows, cols = size
    result = count_paths(rows, cols)
    assert result.table.tolist() == KNOWN_CASELLE[size]
    assert result.count == int(np.sum(KNOWN_CASELLE[size]))
    assert (result.min, result.max) == (
        int(np.min(KNOWN_CASELLE[size])),
        int(np.max(KNOWN_CASELLE[size])),
    )


def test_known_tables_are_brute_force_counts():
    assert dp_table(4, 5, "caselle").tolist() == KNOWN_CASELLE[(4, 5)]
    assert plain_table(4, 6).tolist() == KNOWN_CASELLE[(4, 6)]
    assert plain_table(5, 5).tolist() == KNOWN_CASELLE[(5, 5)]


def test_solitario_del_35_from_the_centre():
    # 13,272 solutions from the centre of 5x7: the C program of the 2000s.
    result = count_paths(5, 7, start=(2, 3))
    assert result.count == 13_272
    assert result.table is None
    assert result.nodes > 0 and result.solve_seconds >= 0 and result.compile_seconds >= 0


def test_solitario_del_35_from_a_corner():
    # 52,730 solutions from a corner of 5x7: the same C program.
    assert count_paths(5, 7, start=(0, 0)).count == 52_730
    assert count_paths(5, 7, start=(4, 6)).count == 52_730  # the opposite corner, by symmetry


def test_knight_5x5_matches_the_published_total():
    # 1,728 directed open knight's tours on 5x5, 304 from each corner (OEIS A165134).
    result = count_paths(5, 5, moves="knight")
    assert result.count == 1728
    assert result.table[0, 0] == 304


@pytest.mark.parametrize(
    ("rows", "cols", "moves"),
    [
        (4, 5, "caselle"),
        (3, 4, "knight"),
        (4, 5, "knight"),
        (3, 6, "knight"),
        (4, 4, "1,2;1,1"),  # no reflection keeps it: every start is its own class but rot180
        (3, 5, "0,1;1,0"),  # rook's step: snakes
        (4, 4, "0,1;1,0;1,1"),  # 4 of the 8 square symmetries keep it
    ],
)
def test_tables_equal_subset_dp(rows, cols, moves):
    assert (
        count_paths(rows, cols, moves=moves).table.tolist() == dp_table(rows, cols, moves).tolist()
    )


@settings(max_examples=40, deadline=None)
@given(
    rows=st.integers(1, 4),
    cols=st.integers(1, 4),
    pairs=st.lists(
        st.tuples(st.integers(-3, 3), st.integers(-3, 3)).filter(lambda m: m != (0, 0)),
        min_size=1,
        max_size=4,
    ),
    closed=st.booleans(),
)
@example(rows=1, cols=2, pairs=[(0, 1)], closed=True)  # two cells: s -> v is a closed tour
@example(rows=1, cols=1, pairs=[(0, 1)], closed=True)  # one cell: no move back to it
def test_random_move_sets_agree_with_subset_dp(rows, cols, pairs, closed):
    # Any leaper on any small board: the symmetry classes, the pruning and the closed-tour
    # rule together must reproduce the brute-force table exactly.
    moves = ";".join(f"{dr},{dc}" for dr, dc in pairs)
    result = count_paths(rows, cols, moves=moves, closed=closed)
    n = rows * cols
    adj = _adjacency(rows, cols, moves)
    table = np.zeros((rows, cols), dtype=np.int64)
    for s in range(n):
        ways = _subset_dp(n, adj, s)[(1 << n) - 1]
        ends = [v for v in range(n) if not closed or (adj[s] >> v) & 1]
        table[s // cols, s % cols] = sum(ways[v] for v in ends)
    assert result.table.tolist() == table.tolist()


@pytest.mark.parametrize(
    ("rows", "cols", "moves"), [(4, 5, "caselle"), (4, 4, "0,1;1,0"), (3, 4, "1,1;0,1")]
)
def test_closed_counts_equal_subset_dp(rows, cols, moves):
    result = count_paths(rows, cols, moves=moves, closed=True)
    assert result.table[0, 0] == dp_closed_from_first_cell(rows, cols, moves)


@pytest.mark.parametrize(("rows", "cols"), [(5, 5), (5, 6)])
def test_pruned_equals_plain_dfs(rows, cols):
    # The plain DFS explores every partial path; the pruned kernel must count the same paths.
    for r, c in start_classes(rows, cols):
        dr, dc = parse_moves("caselle").arrays()
        plain = count_plain(rows, cols, dr, dc, r * cols + c, False)[0]
        assert count_paths(rows, cols, start=(r, c)).count == plain


@pytest.mark.parametrize("closed", [False, True])
def test_every_rule_set_counts_the_same(closed):
    # Each pruning rule must only cut dead subtrees: the counts agree with the plain DFS and
    # the node counts shrink as rules are added.
    moves = parse_moves("caselle")
    dr, dc = moves.arrays()
    for start in [(0, 0), (1, 2), (2, 2)]:
        plain, plain_nodes = count_plain(5, 5, dr, dc, start[0] * 5 + start[1], closed)
        nodes = []
        for rules in (0, K.LINKS, K.LINKS | K.LOOKAHEAD, K.LINKS | K.LOOKAHEAD | K.CONNECTED):
            run = exhaustive.kernel_run(5, 5, moves, closed, [start[0] * 5 + start[1]], rules=rules)
            assert run.leaves == plain
            nodes.append(run.nodes)
        assert nodes[0] == plain_nodes
        assert nodes == sorted(nodes, reverse=True) and nodes[-1] < nodes[0]


def test_closed_tours_are_counted_twice_from_every_start():
    # A closed tour through every cell passes every cell: from each start it is found once in
    # each direction, so every start has the same even count, 2 x the number of tours.
    for rows, cols in [(4, 5), (5, 5), (5, 6)]:
        result = count_paths(rows, cols, closed=True)
        assert result.min == result.max
        assert result.min % 2 == 0
        assert result.count == rows * cols * result.min
    assert count_paths(5, 5, closed=True).min == plain_table(5, 5, closed=True)[2, 2] == 96


@pytest.mark.parametrize(("rows", "cols"), [(3, 3), (4, 4), *[(3, n) for n in range(3, 11)]])
def test_boards_without_a_path(rows, cols):
    # 3xN: the middle row only reaches itself (moves (0, +-3)), so no path; 3x3 and 4x4 are
    # too small (the subset DP agrees on those that fit).
    result = count_paths(rows, cols)
    assert result.count == 0 and result.table.max() == 0
    proof = search_path(rows, cols, None)
    assert proof.proven and proof.path is None and proof.exists is False
    if rows * cols <= 20:
        assert dp_table(rows, cols, "caselle").max() == 0


def test_symmetries():
    assert len(board_symmetries(5, 7)) == 4
    assert len(board_symmetries(6, 6)) == 8
    assert len(board_symmetries(6, 6, "0,1;1,0;1,1")) == 4  # transposes, half turn
    assert len(board_symmetries(6, 6, "0,1;1,1")) == 2
    assert len(board_symmetries(5, 7, "1,2")) == 2  # only the identity and the half turn
    classes = start_classes(5, 7)
    assert len(classes) == 12
    assert sorted(m for ms in classes.values() for m in ms) == [
        (r, c) for r in range(5) for c in range(7)
    ]
    assert len(start_classes(7, 7)) == 10  # the "10 symmetry classes" of 7x7


def test_split_into_jobs_counts_the_same_nodes():
    unsplit = count_paths(5, 6, start=(0, 0))
    split = count_paths(5, 6, start=(0, 0), jobs=1)
    assert split.jobs > 1 and unsplit.jobs == 0
    assert (split.count, split.nodes) == (unsplit.count, unsplit.nodes) == (5291, unsplit.nodes)


def test_probe_falls_back_to_jobs(monkeypatch):
    # A count bigger than the in-process probe goes on in prefix jobs with the same result.
    direct = count_paths(5, 5)
    monkeypatch.setattr(count_module, "PROBE_NODES", 50)
    monkeypatch.setattr(count_jobs, "TARGET_JOBS", 20)
    serial = count_jobs.run_jobs  # in this process: worker start-up is tested elsewhere
    monkeypatch.setattr(
        count_jobs, "run_jobs", lambda func, jobs, **kw: serial(func, jobs, n_jobs=1)
    )
    via_jobs = count_paths(5, 5, jobs=None)
    assert via_jobs.jobs >= 20
    assert via_jobs.table.tolist() == direct.table.tolist()
    assert via_jobs.nodes == direct.nodes


def test_iter_paths_streams_every_path_once(monkeypatch):
    monkeypatch.setattr(count_module, "ENUM_CHUNK", 7)  # many resumes of the kernel
    paths = list(iter_paths(5, 5, (0, 0)))
    assert len(paths) == 552
    assert len({tuple(p) for p in paths}) == 552
    assert all(is_path(p, 5, 5, "caselle", start=(0, 0)) for p in paths)
    assert [tuple(p) for p in iter_paths(5, 5, (0, 0), limit=10)] == [tuple(p) for p in paths[:10]]
    closed = list(iter_paths(5, 5, (2, 2), closed=True))
    assert len(closed) == 96
    assert all(is_path(p, 5, 5, "caselle", start=(2, 2), closed=True) for p in closed)
    assert list(iter_paths(4, 4, (0, 0))) == []


def test_search_path_finds_or_stops():
    found = search_path(5, 7, (2, 3))
    assert found.proven and is_path(found.path, 5, 7, "caselle", start=(2, 3))
    a = search_path(5, 7, (2, 3), seed=1).path
    b = search_path(5, 7, (2, 3), seed=1).path
    c = search_path(5, 7, (2, 3), seed=2).path
    assert a.tolist() == b.tolist() and is_path(c, 5, 7, "caselle", start=(2, 3))
    assert a.tolist() != c.tolist() or a.tolist() != found.path.tolist()
    stopped = search_path(6, 7, (0, 0), closed=True, node_limit=100)
    assert not stopped.proven and stopped.path is None and stopped.exists is None
    assert stopped.nodes <= 100
    anywhere = search_path(4, 6, None)
    assert anywhere.proven and is_path(anywhere.path, 4, 6, "caselle")


def test_results_verify_with_the_independent_verifier():
    pytest.importorskip("rompicapo.paths.verify")
    result = count_paths(5, 6)
    # 30 cells: too many for the plain recount; the samples are evidence, not a verification
    with pytest.raises(NotVerifiable):
        result.verify()
    assert result.check_samples()
    assert set(result.samples) == set(start_classes(5, 6)) - {
        (r, c) for r in range(5) for c in range(6) if result.table[r, c] == 0
    }
    bad = result.samples[(0, 0)].copy()
    bad[[3, 4]] = bad[[4, 3]]
    result.samples[(0, 0)] = bad
    assert not result.check_samples()
    assert count_paths(5, 7, start=(2, 3)).check_samples()
    assert search_path(5, 5, (0, 0)).verify()
    # small boards are recounted by a plain DFS that shares nothing with the kernel: 4x5 has
    # 144 paths (the table above), 4x4 none; a wrong count is caught
    small = count_paths(4, 5)
    assert small.count == 144 and small.verify()
    small.table[0, 0] += 1
    assert not small.verify()
    assert count_paths(4, 4).verify()
    assert count_paths(4, 5, start=(1, 2)).verify()
    with pytest.raises(NotVerifiable):  # no path to show
        count_paths(4, 4).check_samples()
    with pytest.raises(NotVerifiable):
        search_path(4, 4, (0, 0)).verify()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: count_paths(0, 5), "at least one row"),
        (lambda: count_paths(5, 5, start=(5, 0)), "outside the 5x5 board"),
        (lambda: count_paths(5, 5, start=(0, -1)), "outside the 5x5 board"),
        (lambda: count_paths(5, 5, start="x"), "a start is a cell"),
        (lambda: count_paths(5, 5, moves="rook"), "unknown move set"),
        (lambda: count_paths(2.5, 5), "must be an integer"),
        (lambda: search_path(5, 5, (0, 0), node_limit=0), "node_limit"),
        (lambda: list(iter_paths(5, 5, (0, 0), limit=-1)), "limit"),
    ],
)
def test_bad_input_is_one_line_input_error(call, message):
    with pytest.raises(InputError, match=message) as info:
        call()
    assert "\n" not in str(info.value)


@pytest.mark.slow
def test_regression_counts_of_bigger_boards():
    # Counted in this repository (benchmarks/small_boards.py, 2026-11-29): 6x6 every start
    # 8,250,272 (49 M nodes); 6x7 from a corner 8,253,472 and 202,408 closed tours per start.
    assert count_paths(6, 6).total == 8_250_272
    assert count_paths(6, 7, (0, 0)).count == 8_253_472
    assert count_paths(6, 7, (0, 0), closed=True).count == 202_408
