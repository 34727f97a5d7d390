"""The ``rompicapo game`` commands: the chapter's numbers through the CLI, and bad input as
one-line errors with exit status 2."""

from __future__ import annotations

import io

import datafiles
import pytest

from rompicapo.cli import main

DATA = datafiles.DATA / "connect4"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_tictactoe_stats(capsys):
    code, out, err = run(capsys, "game", "tictactoe", "--order", "4,0,2,6,8,1,3,5,7", "--stats")
    assert code == 0
    assert "--stats is deprecated; the counts are always shown" in err
    assert "terminal evaluations 2,893" in out  # issue 6
    assert "value +0" in out
    code, out, _ = run(capsys, "game", "tictactoe", "--search", "alphabeta", "--stats")
    assert "terminal evaluations 7,330" in out  # issue 6


def test_nim_winning_move(capsys):
    code, out, _ = run(capsys, "game", "nim", "3", "5", "8")
    assert code == 0
    assert out.startswith("N:") and "take 2 from heap 3 (8 -> 6)" in out  # issue 6
    code, out, _ = run(capsys, "game", "nim", "1", "2", "3", "--misere")
    assert out.startswith("P:")


def test_grundy_subtract(capsys):
    code, out, _ = run(capsys, "game", "grundy", "subtract", "1,2,3", "--upto", "12")
    assert code == 0
    assert "0 1 2 3 0 1 2 3 0 1 2 3 0" in out and "period 4" in out


def test_connect4_solve_and_analyse(capsys):
    code, out, _ = run(capsys, "game", "connect4", "solve", "4455")
    assert code == 0 and "score 18" in out  # Pons' example (tests/data/connect4/README.md)
    code, out, _ = run(capsys, "game", "connect4", "analyse", "47724652442416755146")
    assert code == 0 and "best column(s) [6]; score 8" in out  # Test_L2_R1: score 8
    # the earlier spelling still works, with a warning naming the command that replaces it
    code, out, err = run(capsys, "game", "connect4", "solve", "47724652442416755146", "--analyze")
    assert code == 0 and "best column(s) [6]; score 8" in out
    assert "--analyze is deprecated; use 'game connect4 analyse'" in err


def test_connect4_limits(capsys):
    # searched alone, the empty board needs about a billion nodes: the node limit stops it,
    # exit status 0 (the shipped opening book answers it at once)
    code, out, _ = run(
        capsys, "game", "connect4", "solve", "", "--nodes", "5000", "--json", "--no-book"
    )
    assert code == 0
    assert '"stopped": "nodes"' in out and '"nodes": 5000' in out and '"score": null' in out
    code, out, _ = run(
        capsys, "game", "connect4", "analyse", "4455", "--nodes", "5000", "--no-book"
    )
    assert code == 0 and "stopped by the node limit: columns [1, 2, 3, 4, 5, 6, 7]" in out
    code, out, _ = run(capsys, "game", "connect4", "solve", "", "--nodes", "5000", "--json")
    assert code == 0 and '"score": 1' in out and '"from_book": true' in out
    code, out, _ = run(capsys, "game", "tictactoe", "--nodes", "100")
    assert code == 0 and "stopped by the node limit" in out and "nodes 100 " in out


def test_play_connect4_quickly(capsys, monkeypatch):
    # a budget of 2,000 nodes a move: the engine answers at once (heuristic early on)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n1\n1\n1\n1\n1\n2\n2\n"))
    code, out, _ = run(capsys, "game", "connect4", "play", "--nodes", "2000")
    assert code == 0
    assert out.count("engine plays") >= 4
    assert "column 1 is full" in out or "the engine wins" in out


def test_play_nim_engine_first(capsys, monkeypatch):
    # (1, 2) is an N-position: the engine takes 1 from heap 2, leaving 1 1; then we take one
    # and the engine the last
    monkeypatch.setattr("sys.stdin", io.StringIO("1 1\n"))
    code, out, _ = run(capsys, "game", "play", "nim", "--heaps", "1,2", "--engine-first")
    assert code == 0
    assert "engine plays take 1 from heap 2" in out and "the engine wins" in out


def test_connect4_bench(capsys):
    code, out, _ = run(
        capsys, "game", "connect4", "bench", str(DATA / "Test_L3_R1"), "--limit", "50"
    )
    assert code == 0 and "50 positions, 50 correct" in out


def test_play_tictactoe_against_the_engine(capsys, monkeypatch):
    # the engine plays perfectly: a careless human loses or draws, never wins
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n1\n2\n3\n5\n6\n7\n8\n"))
    code, out, _ = run(capsys, "game", "play", "tictactoe")
    assert code == 0
    assert "the engine wins" in out or "draw" in out


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["game", "connect4", "solve", "448"], "not a column"),
        (["game", "connect4", "solve", "4444444"], "full"),
        (["game", "nim", "3", "-1"], "negative"),
        (["game", "nim", "3", "x"], "not an integer"),
        (["game", "chess"], "invalid choice"),
        (["game", "play", "chess"], "invalid choice"),
        (["game", "tictactoe", "--order", "1,2,3"], "cells 0..8"),
        (["game", "tictactoe", "4,4"], "not a legal move"),
        (["game", "grundy", "subtract", "0,-1"], "positive"),
        (["game", "grundy", "octal", "7.7"], "octal code"),
        (["game", "connect4", "bench", "/nonexistent/file"], "does not exist"),
        (["game", "connect4", "analyse", "448"], "not a column"),
        (["game", "connect4", "solve", "44", "--nodes", "0"], "at least 1"),
        (["game", "connect4", "solve", "44", "--time", "-1"], "positive number of seconds"),
        (["game", "connect4", "analyse", "1212121"], "already over"),
        (["game", "connect4", "play", "--time", "0"], "positive number of seconds"),
        (["game", "tictactoe", "--nodes", "x"], "not an integer"),
        (["game", "play", "nim", "--nodes", "-5"], "at least 1"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, argv, fragment):
    code, _out, err = run(capsys, *argv)
    assert code == 2
    assert fragment in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
