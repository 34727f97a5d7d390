"""The run contract in the games family: verify() never says True without checking, --json is
to_dict(), every parser refuses bad text with InputError only, and old flags still parse."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.cli import build_parser, main
from rompicapo.common import InputError, NotVerifiable
from rompicapo.games import Engine, TicTacToe, minimax
from rompicapo.games.connect4 import Connect4Result, bench, parse_position, read_test_set
from rompicapo.games.impartial import (
    grundy_values,
    nim_advice,
    parse_heaps,
    parse_octal,
    parse_subtraction_set,
)
from rompicapo.games.pig import solve_pig
from rompicapo.games.tictactoe import analyse_tictactoe, parse_cells

TTT = TicTacToe()
# Timings differ from run to run; everything else in --json must equal to_dict().
TIMINGS = {"solve_seconds", "compile_seconds", "peak_bytes", "cpu_seconds"}


def _untimed(d: dict) -> dict:
    return {k: v for k, v in d.items() if k not in TIMINGS}


# ---- verify(): True, False, or NotVerifiable ----------------------------------------------


def test_depth_limited_search_is_not_verifiable():
    with pytest.raises(NotVerifiable):
        minimax(TTT, depth=2).verify()


def test_search_stopped_by_time_is_not_verifiable():
    out = Engine(TTT).search(time_limit=1e-9)
    if out.complete:  # pragma: no cover - a machine fast enough to finish in a nanosecond
        pytest.skip("the search finished before its time limit")
    with pytest.raises(NotVerifiable):
        out.verify()


def test_connect4_score_of_a_big_position_is_not_verifiable_and_a_wrong_one_is_false():
    with pytest.raises(NotVerifiable):
        Connect4Result(moves="4455", score=18).verify()  # 38 empty cells
    # End-Easy position of Pons' test set with 5 empty cells: its score is -1
    moves = "2252576253462244111563365343671351441"
    assert Connect4Result(moves=moves, score=-1).verify()
    assert not Connect4Result(moves=moves, score=1).verify()


def test_nim_advice_is_checked_by_brute_force():
    assert nim_advice([3, 5, 8]).verify()
    wrong = nim_advice([3, 5, 8])
    wrong.move = (1, 1)
    assert not wrong.verify()
    with pytest.raises(NotVerifiable):
        nim_advice([30, 31]).verify()


# ---- --json equals to_dict() ----------------------------------------------------------------


def _json(capsys, *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_is_to_dict(capsys, tmp_path):
    cases = [
        (("game", "tictactoe", "4"), lambda: analyse_tictactoe("4")),
        (("game", "nim", "3", "5", "8"), lambda: nim_advice([3, 5, 8])),
        (("game", "grundy", "octal", "0.77"), lambda: grundy_values("octal", "0.77", 30)),
        (("game", "pig", "--goal", "20"), lambda: solve_pig(20)),
    ]
    for argv, call in cases:
        assert _untimed(_json(capsys, *argv)) == _untimed(call().to_dict()), argv
    from rompicapo.games.connect4 import Connect4Solver

    moves = "2252576253462244111563365343671351441"
    assert _untimed(_json(capsys, "game", "connect4", "solve", moves)) == _untimed(
        Connect4Solver().solve(moves).to_dict()
    )
    f = tmp_path / "set.txt"
    f.write_text(f"{moves} -1\n")
    got = _json(capsys, "game", "connect4", "bench", str(f))
    want = bench(f).to_dict()
    for key in ("positions", "correct", "mismatches", "counts", "path"):
        assert got[key] == want[key]


# ---- the earlier issues' flags still parse ------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["game", "tictactoe", "--search", "minimax", "--stats", "--fail-hard", "--window=-1,1"],
        ["game", "tictactoe", "--order", "4,0,2,6,8,1,3,5,7"],
        ["game", "nim", "3", "5", "--misere", "--count-games"],
        ["game", "grundy", "subtract", "1,2,3", "--upto", "40"],
        ["game", "connect4", "solve", "4455", "--analyze", "--weak"],
        ["game", "connect4", "bench", "f.txt", "--limit", "5", "--weak"],
        ["game", "pig", "--goal", "50", "--scores", "1,2,3"],
        ["game", "play", "nim", "--engine-first", "--heaps", "1,2", "--misere"],
    ],
)
def test_earlier_flags_parse(argv):
    args = build_parser().parse_args(argv)
    assert callable(args.handler)


# ---- every parser: random text is parsed or refused with InputError, nothing else ------------


def _only_input_errors(parse, text):
    with contextlib.suppress(InputError):
        parse(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_position_parser(text):
    _only_input_errors(parse_position, text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=12), max_size=5))
def test_heaps_parser(heaps):
    _only_input_errors(parse_heaps, heaps)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30))
def test_subtraction_and_octal_and_cells_parsers(text):
    _only_input_errors(parse_subtraction_set, text)
    _only_input_errors(parse_octal, text)
    _only_input_errors(parse_cells, text)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_test_set_reader(tmp_path_factory, data):
    f = tmp_path_factory.mktemp("c4") / "set.txt"
    f.write_bytes(data)
    _only_input_errors(read_test_set, f)
