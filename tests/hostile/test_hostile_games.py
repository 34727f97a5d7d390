"""Hostile input to ``rompicapo game ...``: every subcommand refuses in one line (exit 2)."""

from __future__ import annotations

import pytest

from .harness import Case, check_refused, random_bytes

HUGE = "99999999999999999999999"

CASES = [
    # tic-tac-toe: moves, orders and windows
    Case(["game", "tictactoe", "9"], says="cell"),
    Case(["game", "tictactoe", "-1"]),
    Case(["game", "tictactoe", HUGE]),
    Case(["game", "tictactoe", "4,4"]),
    Case(["game", "tictactoe", "a,b"], says="moves"),
    Case(["game", "tictactoe", "0,3,1,4,2,5"]),  # a move after X has won
    Case(["game", "tictactoe", "--order", "1,2,3"], says="order"),
    Case(["game", "tictactoe", "--order", "0,0,1,2,3,4,5,6,7"], says="order"),
    Case(["game", "tictactoe", "--order", "x"], says="order"),
    Case(["game", "tictactoe", "--window", "2,-2"], says="window"),
    Case(["game", "tictactoe", "--window", "1"], says="window"),
    Case(["game", "tictactoe", "--window", "nan,1"]),
    Case(["game", "tictactoe", "--search", "magic"]),
    # Nim and Grundy values
    Case(["game", "nim", "-3"], says="heap"),
    Case(["game", "nim", "x"], says="heap"),
    Case(["game", "nim", HUGE], says="heap"),
    Case(["game", "nim", "1e9999"], says="heap"),
    Case(["game", "nim", "30", "30", "--count-games"], says="count_games"),
    Case(["game", "grundy", "subtract", "0"], says="subtraction"),
    Case(["game", "grundy", "subtract", "-1,2"]),  # argparse takes it for a flag
    Case(["game", "grundy", "subtract", "a,b"], says="subtraction"),
    Case(["game", "grundy", "subtract", HUGE], says="subtraction"),
    Case(["game", "grundy", "subtract", ""], says="subtraction"),
    Case(["game", "grundy", "octal", "7.7"], says="octal"),
    Case(["game", "grundy", "octal", "0.8"], says="octal"),
    Case(["game", "grundy", "octal", "0.77", "--upto", "-1"]),
    Case(["game", "grundy", "octal", "0.77", "--upto", HUGE]),
    Case(["game", "grundy", "subtract", "1,2", "--upto", "10001"], says="upto"),
    Case(["game", "grundy", "magic", "1"]),
    # Connect Four
    Case(["game", "connect4", "solve", "8"], says="column"),
    Case(["game", "connect4", "solve", "0"], says="column"),
    Case(["game", "connect4", "solve", "1111111"], says="full"),
    Case(["game", "connect4", "solve", "4a"], says="column"),
    Case(["game", "connect4", "solve", "1212121"], says="over"),  # the game is won
    Case(["game", "connect4", "solve", "4" * 43]),
    Case(["game", "connect4", "bench", "missing.txt"], says="does not exist"),
    Case(["game", "connect4", "bench", "{tmp}"], says="folder"),
    Case(["game", "connect4", "bench", "r.bin"], files={"r.bin": random_bytes()}),
    Case(["game", "connect4", "bench", "e.txt"], files={"e.txt": b""}, says="no positions"),
    Case(["game", "connect4", "bench", "b.txt"], files={"b.txt": b"4455\n"}, says=":1:"),
    Case(["game", "connect4", "bench", "b.txt"], files={"b.txt": b"4455 x\n"}, says=":1:"),
    Case(["game", "connect4", "bench", "b.txt"], files={"b.txt": b"4455 18\n9 1\n"}, says=":2:"),
    Case(["game", "connect4", "bench", "b.txt"], files={"b.txt": b"4455 99\n"}, says="range"),
    Case(
        ["game", "connect4", "bench", "b.txt"],
        files={"b.txt": b"\xef\xbb\xbf4455 18\r\n\xff\n"},
        says="utf-8",
    ),
    Case(["game", "connect4", "bench", "b.txt", "--limit", "0"], files={"b.txt": b"4455 18\n"}),
    Case(["game", "connect4", "bench", "b.txt", "--limit", HUGE], files={"b.txt": b"4455 18\n"}),
    Case(["game", "connect4", "bench", "b.txt", "--limit", "-5"], files={"b.txt": b"4455 18\n"}),
    # the Connect Four opening book
    Case(["game", "connect4", "book", "info", "missing.bin"], says="does not exist"),
    Case(["game", "connect4", "book", "info", "{tmp}"], says="folder"),
    Case(
        ["game", "connect4", "book", "info", "r.bin"],
        files={"r.bin": random_bytes()},
        says="not a usable connect four book",
    ),
    Case(["game", "connect4", "book", "info", "e.bin"], files={"e.bin": b""}, says="book"),
    Case(
        ["game", "connect4", "book", "info", "h.bin"],
        files={"h.bin": b"RPC4BOOK\x01\x00\x07\x06\x00\x02"},
        says="book",
    ),
    Case(
        ["game", "connect4", "book", "verify", "r.bin"],
        files={"r.bin": random_bytes()},
        says="book",
    ),
    Case(["game", "connect4", "book", "verify", "missing.bin"], says="does not exist"),
    Case(["game", "connect4", "book", "verify", "x.bin", "--sample", "0"]),
    Case(["game", "connect4", "book", "verify", "x.bin", "--sample", HUGE]),
    Case(["game", "connect4", "book", "build"]),  # --depth is required
    Case(["game", "connect4", "book", "build", "--depth", "0"]),
    Case(["game", "connect4", "book", "build", "--depth", HUGE]),
    Case(["game", "connect4", "book", "build", "--depth", "13"], says="depth"),
    Case(["game", "connect4", "book", "build", "--depth", "3", "--root", "8"], says="column"),
    Case(["game", "connect4", "book", "build", "--depth", "3", "--root", "4444"], says="depth"),
    Case(["game", "connect4", "book", "build", "--depth", "8", "--root", "1212121"], says="over"),
    Case(["game", "connect4", "book", "build", "--depth", "3", "--out", "b.txt"], says=".bin"),
    Case(
        ["game", "connect4", "book", "build", "--depth", "3", "--out", "{tmp}/no/b.bin"],
        says="does not exist",
    ),
    Case(
        ["game", "connect4", "book", "build", "--depth", "3", "--checkpoint", "c.txt"], says=".json"
    ),
    Case(
        ["game", "connect4", "book", "build", "--depth", "3", "--checkpoint", "c.json"],
        files={"c.json": b"{}"},
        says="checkpoint",
    ),
    Case(["game", "connect4", "book", "build", "--depth", "3", "--jobs", "0"]),
    Case(
        ["game", "connect4", "book", "build", "--depth", "3", "--scheduler", "nowhere"],
        says="scheduler",
    ),
    Case(
        ["game", "connect4", "solve", "44", "--book", "r.bin"],
        files={"r.bin": random_bytes()},
        says="book",
    ),
    Case(["game", "connect4", "analyze", "44", "--book", "missing.bin"], says="does not exist"),
    Case(["game", "connect4", "analyse", "44", "--book", "x.bin", "--no-book"]),
    Case(
        ["game", "connect4", "bench", "b.txt", "--book", "b.txt"],
        files={"b.txt": b"4455 18\n"},
        says="book",
    ),
    # Pig
    Case(["game", "pig", "--goal", "1"], says="goal"),
    Case(["game", "pig", "--goal", "401"], says="goal"),
    Case(["game", "pig", "--goal", HUGE]),
    Case(["game", "pig", "--goal", "-100"]),
    Case(["game", "pig", "--goal", "x"]),
    Case(["game", "pig", "--goal", "20", "--scores", "1,2"], says="scores"),
    Case(["game", "pig", "--goal", "20", "--scores", "20,0,0"], says="scores"),
    Case(["game", "pig", "--goal", "20", "--scores", "-1,0,0"], says="scores"),
    Case(["game", "pig", "--goal", "20", "--scores", f"0,0,{HUGE}"], says="turn total"),
    Case(["game", "pig", "--goal", "20", "--scores", "a,b,c"], says="scores"),
    # play: a bad game or heaps
    Case(["game", "play", "chess"]),
    Case(["game", "play", "nim", "--heaps", "x,y"], says="heaps"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_refused_in_one_line(case, tmp_path, capsys, addresses):
    check_refused(case, tmp_path, capsys, addresses)
