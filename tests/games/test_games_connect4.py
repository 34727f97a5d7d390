"""Connect Four: Pons' score convention, his test sets (a sample here, every position in
benchmarks/connect4_vs_pons.py), the enhancements, bad move strings."""

from __future__ import annotations

import datafiles
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.common import InputError, NotVerifiable
from rompicapo.games import Engine
from rompicapo.games import _connect4_kernel as K
from rompicapo.games import verify as V
from rompicapo.games.connect4 import Connect4, Connect4Solver, parse_position

DATA = datafiles.DATA / "connect4"


@pytest.fixture(scope="module")
def solver() -> Connect4Solver:
    return Connect4Solver(table_log2=20)


def read_set(name: str, every: int, count: int) -> list[tuple[str, int]]:
    lines = [ln.split() for ln in (DATA / name).read_text().splitlines() if ln.strip()]
    return [(m, int(s)) for m, s in lines[::every][:count]]


def test_pons_examples(solver):
    # tests/data/connect4/README.md (Pons, Part 2): "4455" scores 18, "44455554221" -15
    assert solver.solve("4455").score == 18
    assert solver.solve("44455554221").score == -15


@pytest.mark.parametrize(
    ("name", "every", "count"),
    [
        ("Test_L3_R1", 1, 1000),  # End-Easy: the whole set (about 50 nodes a position)
        ("Test_L2_R1", 1, 1000),  # Middle-Easy: the whole set (about 400)
        ("Test_L1_R1", 1, 1000),  # Begin-Easy: the whole set (about 3,000)
        ("Test_L2_R2", 100, 10),  # Middle-Medium: a sample (about 33,000 nodes a position)
        ("Test_L1_R2", 250, 4),  # Begin-Medium: a sample (about 1 M nodes a position)
    ],
)
def test_pons_test_sets(solver, name, every, count):
    # the expected scores are the second column of Pons' files
    for moves, expected in read_set(name, every, count):
        result = solver.solve(moves)
        assert result.score == expected, moves
        assert result.nodes > 0


@pytest.mark.parametrize(
    ("name", "every", "count"),
    [("Test_L3_R1", 10, 100), ("Test_L2_R1", 20, 50), ("Test_L1_R1", 50, 20)],
)
def test_weak_solve_gives_the_sign(solver, name, every, count):
    for moves, expected in read_set(name, every, count):
        assert solver.solve(moves, weak=True).score == (expected > 0) - (expected < 0), moves


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Test_L2_R2", "Test_L1_R2"])
def test_pons_medium_sets_in_full(name):
    # Middle-Medium (about 1 min) and Begin-Medium (about 5 min of CPU) in full
    solver = Connect4Solver()
    for moves, expected in read_set(name, 1, 1000):
        assert solver.solve(moves).score == expected, moves


def test_scores_against_the_independent_solver(solver):
    # End-Easy positions with at most 9 empty cells, re-solved by verify.py's plain search
    rows = [(m, s) for m, s in read_set("Test_L3_R1", 1, 1000) if len(m) >= 33][:12]
    assert len(rows) >= 5
    for moves, expected in rows:
        result = solver.solve(moves)
        assert result.verify(max_empty=9)
        assert V.connect4_score(moves) == expected


def test_every_feature_combination_gives_the_same_scores():
    rows = read_set("Test_L2_R1", 40, 25) + read_set("Test_L1_R1", 200, 5)
    for features in range(K.ALL_FEATURES + 1):
        s = Connect4Solver(table_log2=18, features=features)
        assert [s.solve(m).score for m, _ in rows] == [e for _, e in rows], features


def test_analyse_agrees_with_solve(solver):
    moves = read_set("Test_L2_R1", 1, 1)[0][0]
    analysis = solver.analyse(moves)
    assert analysis.score == solver.solve(moves).score
    for col in analysis.best_columns:
        assert (
            solver.solve(moves + str(col)).score == -analysis.score
            or parse_position(moves + str(col)).won
        )
    with pytest.raises(NotVerifiable):  # too many empty cells to re-solve independently
        analysis.verify(max_empty=0)
    # an End-Easy position (Pons' Test_L3_R1 style, 5 empty cells): every column re-solved
    assert solver.analyse("2252576253462244111563365343671351441").verify(max_empty=12)


def test_full_column_scores_none(solver):
    # a Middle-Easy position (Test_L2_R1, score 8) whose centre column is full
    analysis = solver.analyse("47724652442416755146")
    assert analysis.scores[3] is None
    assert len(analysis.scores) == 7
    assert analysis.score == 8


def test_node_limit(solver):
    assert solver.try_solve("", node_limit=1000) is None
    cut = solver.solve("", node_limit=1000)
    assert (cut.complete, cut.stopped, cut.score, cut.nodes) == (False, "nodes", None, 1000)
    with pytest.raises(NotVerifiable):
        cut.verify()
    assert "score unknown: stopped by the node limit" in cut.report()
    assert solver.best_move("", node_limit=1000) in range(1, 8)


def test_generic_engine_agrees_near_the_end(solver):
    game = Connect4()
    for moves, expected in read_set("Test_L3_R1", 1, 1000):
        if len(moves) < 35:
            continue
        state = parse_position(moves)
        value = Engine(game).search(state).value  # +1/0/-1 for the player to move
        assert value == (expected > 0) - (expected < 0), moves


@pytest.mark.parametrize(
    ("moves", "fragment"),
    [
        ("448", "not a column"),
        ("40", "not a column"),
        ("4a", "not a column"),
        ("4444444", "full"),
        ("12121212", "after the game was won"),
    ],
)
def test_bad_move_strings(moves, fragment):
    with pytest.raises(InputError, match=fragment):
        parse_position(moves)


def test_finished_game_cannot_be_solved(solver):
    with pytest.raises(InputError, match="over"):
        solver.solve("1212121")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="012345678x", max_size=30))
def test_parser_agrees_with_the_independent_replay(moves):
    replay = V.connect4_replay(moves)
    try:
        p = parse_position(moves)
    except InputError:
        assert replay is None
        return
    assert replay is not None
    assert p.count == len(moves) == sum(len(c) for c in replay)
    heights = [bin(p.mask >> (7 * c) & 0x7F).count("1") for c in range(7)]
    assert heights == [len(c) for c in replay]
