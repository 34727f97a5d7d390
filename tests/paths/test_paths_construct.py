"""The constructor: every path it returns passes the independent verifier, impossibility is only
claimed with a proof, and the figures of issue 2 that fit in a test (10x10 from all 100 starts,
every board 5x5..30x30 from the corner) hold."""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rompicapo.common import InputError, InsufficientMemoryError, NotVerifiable
from rompicapo.paths import (
    bands,
    construct,
    parse_cell,
    parse_moves,
    parse_size,
    search_path,
    verify_path,
)
from rompicapo.paths.bands import luby
from rompicapo.paths.construct import EXHAUSTIVE_CELLS

# the module, not the function of the same name that rompicapo.paths exports
construct_mod = importlib.import_module("rompicapo.paths.construct")


def test_ten_by_ten_from_every_start():
    # Issue 2: "the 10x10 paper game from each of its 100 start cells, all verified".
    for r in range(10):
        for c in range(10):
            res = construct(10, 10, (r, c))
            assert res.found, (r, c, res.status)
            assert verify_path(res.path, 10, 10, "caselle", start=(r, c))
            assert res.path[0] == r * 10 + c


def test_every_board_from_5x5_to_30x30_from_the_corner():
    # Issue 2: "every R x C from 5x5 to 30x30 from the corner, all verified".
    failures = []
    for rows in range(5, 31):
        for cols in range(5, 31):
            res = construct(rows, cols)
            if not (res.found and res.verify()):
                failures.append((rows, cols, res.status))
    assert failures == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.integers(1, 40),
    cols=st.integers(1, 40),
    data=st.data(),
    seed=st.integers(0, 10_000),
)
def test_random_boards_are_found_and_verified_or_proven_impossible(rows, cols, data, seed):
    start = (data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1)))
    res = construct(rows, cols, start, seed=seed)
    assert res.status in ("found", "impossible"), res.status
    if res.found:
        check = verify_path(res.path, rows, cols, "caselle", start=start)
        assert check, check.reason
    else:
        assert res.proof
        assert res.path is None
    if rows * cols <= 16:
        # tiny boards: the exhaustive search must agree on existence
        ex = search_path(rows, cols, start, "caselle")
        assert ex.proven
        assert (ex.path is not None) == res.found


@pytest.mark.parametrize(
    ("rows", "cols"),
    [(3, 3), (4, 4), (2, 2), (2, 5), (2, 9), (2, 40), (3, 7), (3, 40), (1, 4)],
)
def test_boards_with_no_path_are_reported_impossible(rows, cols):
    res = construct(rows, cols)
    assert res.status == "impossible"
    assert not res.found
    with pytest.raises(NotVerifiable):  # no path: nothing to check, never a silent False
        res.verify()
    assert res.proof


def test_impossible_small_board_with_exhaustive_proof():
    # 4x4 knight: the move graph is connected and has no dead ends, so only the exhaustive
    # search can settle it (no knight's path exists on 4x4 from a corner).
    res = construct(4, 4, moves="knight")
    assert res.status == "impossible"
    assert "exhaustive search" in res.proof
    assert res.counts["proof_nodes"] > 0


def test_colouring_proof_for_knight_on_odd_board():
    # On 5x5 a knight's path alternates colours, 13 cells of (0,0)'s colour vs 12.
    res = construct(5, 5, (0, 1), moves="knight")
    assert res.status == "impossible" and "colour" in res.proof
    ok = construct(5, 5, (0, 0), moves="knight")
    assert ok.found and ok.verify()


def test_lattice_proof_for_a_leaper_that_keeps_colour():
    res = construct(50, 50, moves="1,3;3,1;1,-3;3,-1")
    assert res.status == "impossible" and "lattice" in res.proof


def _board_connected(rows: int, cols: int, moves) -> bool:
    """Breadth-first search over the board's move graph (nothing from the constructor)."""
    steps = parse_moves(moves).moves
    seen = {(0, 0)}
    todo = [(0, 0)]
    while todo:
        r, c = todo.pop()
        for dr, dc in steps:
            cell = (r + dr, c + dc)
            if 0 <= cell[0] < rows and 0 <= cell[1] < cols and cell not in seen:
                seen.add(cell)
                todo.append(cell)
    return len(seen) == rows * cols


@pytest.mark.parametrize(
    ("rows", "cols", "moves"),
    [(1, 2, "0,1"), (2, 1, "1,0"), (1, 5, "0,1;2,1"), (5, 1, "1,0;1,2"), (1, 7, "0,1;1,1")],
)
def test_a_line_board_needs_only_the_moves_along_it(rows, cols, moves):
    # the moves' lattice misses (1, 0) or (0, 1), but a one-row (one-column) board never
    # needs the missing step: these paths exist (they said "impossible: lattice" before)
    res = construct(rows, cols, moves=moves)
    assert res.found and res.verify()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.integers(1, 6),
    cols=st.integers(1, 6),
    steps=st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=1, max_size=3),
)
def test_a_lattice_proof_means_the_board_falls_apart(rows, cols, steps):
    steps = [s for s in steps if s != (0, 0)]
    if not steps:
        return
    moves = ";".join(f"{a},{b}" for a, b in steps)
    res = construct(rows, cols, moves=moves, time_limit=5)
    if res.status == "impossible" and "lattice" in res.proof:
        assert not _board_connected(rows, cols, moves), res.proof
    if res.found:
        assert res.verify()


@pytest.mark.parametrize("closed", [False, True])
def test_knight_on_8x8(closed):
    res = construct(8, 8, moves="knight", closed=closed)
    assert res.found
    assert verify_path(res.path, 8, 8, "knight", start=(0, 0), closed=closed)


@pytest.mark.parametrize(("rows", "cols"), [(6, 6), (10, 10), (30, 30), (101, 99), (200, 200)])
def test_closed_tours(rows, cols):
    res = construct(rows, cols, closed=True)
    assert res.found
    assert verify_path(res.path, rows, cols, "caselle", start=(0, 0), closed=True)


def test_closed_tour_impossible_by_colouring():
    res = construct(5, 5, moves="knight", closed=True)
    assert res.status == "impossible"


def test_custom_moves_and_the_knight_spelled_out():
    a = construct(9, 7, moves="1,2;2,1;1,-2;2,-1", seed=3)
    b = construct(9, 7, moves="knight", seed=3)
    assert a.found and b.found
    assert np.array_equal(a.path, b.path)
    c = construct(12, 12, moves="1,0;0,1;1,1;1,-1")  # the king
    assert c.found and verify_path(c.path, 12, 12, "1,0;0,1;1,1;1,-1")


def test_same_seed_same_path_and_seeds_differ():
    a = construct(60, 60, seed=7)
    b = construct(60, 60, seed=7)
    assert np.array_equal(a.path, b.path)
    paths = {construct(60, 60, seed=s).path.tobytes() for s in range(4)}
    assert len(paths) > 1


@pytest.mark.parametrize("tie", ["centre", "order", "random"])
def test_tie_breaks(tie):
    res = construct(40, 40, tie_break=tie, seed=1)
    assert res.found and res.verify()


def test_large_board_and_counts():
    res = construct(1000, 1000, seed=5)
    assert res.found and res.verify()
    assert res.path.dtype == np.int32
    assert res.solve_seconds > 0 and res.compile_seconds >= 0
    assert res.peak_bytes > 9 * 10**6
    summary = res.to_dict()
    for key in (
        "rows", "cols", "start", "moves", "found", "verified", "rotations", "restarts",
        "solve_seconds", "compile_seconds", "peak_bytes",
    ):  # fmt: skip
        assert key in summary
    grid = res.grid()
    assert grid.shape == (1000, 1000) and grid[0, 0] == 1 and grid.max() == 10**6


def test_64_bit_indices_are_used_above_the_32_bit_limit(monkeypatch):
    # A board of 2^31 cells does not fit in a test; lowering the threshold exercises the
    # 64-bit arrays and kernel specialisation on a small board.
    assert construct_mod.kernel_bytes_per_cell(10**9) == 9
    assert construct_mod.kernel_bytes_per_cell(3 * 10**9) == 17
    monkeypatch.setattr(bands, "INT32_CELLS", 100)
    res = construct(40, 30, (3, 4))
    assert res.path.dtype == np.int64
    assert res.found and verify_path(res.path, 40, 30, start=(3, 4))


def test_memory_is_checked_before_allocating(monkeypatch):
    import rompicapo.common as common

    monkeypatch.setattr(common, "available_memory", lambda: 10**8)
    with pytest.raises(InsufficientMemoryError, match=r"needs about .* available"):
        construct(50_000, 50_000)


def test_interrupt_returns_the_partial_path(monkeypatch):
    construct(10, 10)  # compile first: the interruption is simulated on the search's calls
    calls = {"n": 0}
    real = bands._kernel.extend_path

    def interrupted(*args):
        calls["n"] += 1
        if calls["n"] > 1:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(bands, "CHUNK_CELLS", 1000)
    monkeypatch.setattr(bands._kernel, "extend_path", interrupted)
    res = construct(100, 100)
    assert res.status == "interrupted"
    assert len(res.path) == 1001
    # a prefix of a path: consecutive cells one move apart, no repeats
    rr, cc = np.divmod(res.path, 100)
    d = {(int(a), int(b)) for a, b in zip(np.diff(rr), np.diff(cc), strict=True)}
    assert d <= set(parse_moves("caselle").moves)
    assert len(set(res.path.tolist())) == len(res.path)


def test_bad_input_is_a_clear_error():
    with pytest.raises(InputError, match="outside"):
        construct(10, 10, (10, 0))
    with pytest.raises(InputError, match="unknown move set"):
        construct(10, 10, moves="bishop")
    with pytest.raises(InputError, match="at least 1"):
        construct(0, 5)
    with pytest.raises(InputError, match="tie-break"):
        construct(10, 10, tie_break="nearest")
    with pytest.raises(InputError):
        parse_size("10x")
    with pytest.raises(InputError):
        parse_cell("1;2", 5, 5)
    assert parse_size("5x7") == (5, 7) and parse_size("12") == (12, 12)


def test_small_boards_agree_with_exhaustive_search():
    # every board up to EXHAUSTIVE_CELLS cells from the corner: found iff a path exists
    for rows in range(1, 7):
        for cols in range(rows, 8):
            if rows * cols > EXHAUSTIVE_CELLS:
                continue
            res = construct(rows, cols)
            ex = search_path(rows, cols, (0, 0))
            assert ex.proven
            assert res.found == (ex.path is not None), (rows, cols)
            assert res.status in ("found", "impossible")


def test_luby_sequence():
    # Luby, Sinclair and Zuckerman (1993): 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8
    assert [luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]


@pytest.mark.parametrize(
    ("rows", "cols", "start", "strips"),
    [
        (300, 200, (0, 0), 3),  # downward bands
        (300, 200, (299, 199), 3),  # start at the bottom: bands visited upward
        (300, 200, (150, 77), 4),  # start in the middle: the first band grows to hold it
        (640, 90, (5, 89), 10),  # narrow bands of 64 rows
    ],
)
def test_boards_cut_in_bands(rows, cols, start, strips):
    res = construct(rows, cols, start, strips=strips, seed=2)
    assert res.found
    assert res.counts["strips"] >= 2
    check = verify_path(res.path, rows, cols, start=start)
    assert check, check.reason


def test_bands_give_the_same_path_on_any_number_of_threads():
    one = construct(400, 300, strips=4, jobs=1, seed=9)
    two = construct(400, 300, strips=4, jobs=2, seed=9)
    assert np.array_equal(one.path, two.path)


def test_band_plan_covers_the_board_in_order():
    for start in [(0, 0), (999, 5), (500, 500), (400, 0)]:
        pieces = bands.plan_pieces(1000, 1000, start, False, 8)
        assert sum(p.rows for p in pieces) == 1000
        assert pieces[0].lo <= start[0] < pieces[0].hi
        offsets = [p.offset for p in pieces]
        assert offsets == sorted(offsets)
        # consecutive bands touch, and every band but the last hands over to the next
        for a, b in itertools.pairwise(pieces):
            assert a.hi == b.lo or b.hi == a.lo
            assert a.target is not None
        assert pieces[-1].target is None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.integers(192, 420),
    cols=st.integers(12, 260),
    strips=st.integers(2, 5),
    data=st.data(),
    seed=st.integers(0, 10**6),
)
def test_random_starts_on_boards_cut_in_bands(rows, cols, strips, data, seed):
    # Regression: a dead end next to the reserved hand-over window once read the window cells'
    # uninitialised path positions and corrupted the path (found on 3406x4987 from (1838, 2358)).
    start = (data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1)))
    res = construct(rows, cols, start, strips=strips, seed=seed)
    assert res.found, res.status
    check = verify_path(res.path, rows, cols, start=start)
    assert check, check.reason


@pytest.mark.parametrize("start", [(0, 0), (399, 10), (230, 150)])
def test_a_band_that_cannot_hand_over_is_merged_with_the_next(monkeypatch, start):
    # Force every band with a hand-over to fail once, so that every fallback merge runs
    # (down to a single piece for the last band) and the result must still verify.
    real = bands.search_piece
    seen: set[tuple[int, int]] = set()

    def failing_once(run, pc, *args):
        if pc.handover and (pc.lo, pc.hi) not in seen:
            seen.add((pc.lo, pc.hi))
            return "gave up"
        return real(run, pc, *args)

    monkeypatch.setattr(bands, "search_piece", failing_once)
    res = construct(400, 300, start, strips=4, seed=1)
    assert res.found
    assert res.counts["merged_bands"] >= 1
    check = verify_path(res.path, 400, 300, start=start)
    assert check, check.reason


def test_closed_tours_use_the_table_of_construct_but_the_window():
    # window.py builds its sides' closed tours with TOUR_STRATEGIES (it cannot import
    # construct, which imports it): the two tables must not drift apart.
    from rompicapo.paths.strategies import TOUR_STRATEGIES
    from rompicapo.paths.window import WINDOW

    assert [s for s in construct_mod.STRATEGIES if s is not WINDOW] == list(TOUR_STRATEGIES)
    assert WINDOW in construct_mod.STRATEGIES


def test_every_strategy_of_the_table_answers_some_board():
    # one board per strategy of construct's table, each answered by it
    cases = {
        "blocks": ((20, 20), (0, 0), "caselle", "auto"),
        "blocks-cycle": ((20, 20), (3, 4), "caselle", "auto"),
        "profile": ((4, 30), (0, 9), "knight", "auto"),
        "window": ((5, 39), (1, 1), "knight", "auto"),
        "greedy": ((10, 10), (0, 0), "caselle", "greedy"),
    }
    for method, (size, start, moves, how) in cases.items():
        res = construct(*size, start, moves, method=how)
        assert res.found and res.method == method and res.verify(), (method, res.method)
    impossible = construct(5, 5, (0, 1), "knight")  # the colour of the start
    assert impossible.status == "impossible" and "colour" in impossible.proof
