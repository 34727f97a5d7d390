"""Hostile input for the exact-cover family: cover, sudoku solve/generate/rate, queens,
polyomino. Every case must be refused in one line with exit status 2, quickly, leaving
nothing behind (see harness.py). The classes: bad numbers (zero, negative, huge, not a
number), random bytes, empty, binary and non-UTF-8 files, missing files and folders,
malformed problem files, sizes whose arrays would not fit in memory, unknown names, and
scheduler addresses where no Dask scheduler answers.
"""

from __future__ import annotations

import pytest

from .harness import Case, check_refused, random_bytes

HUGE = "99999999999999999999999"
RB = random_bytes()
Q = b"A B\nA\nB\n"  # a tiny, valid problem
COLOUR = b"A B | X\nA X:1\nB X:1\n"
BOUNDS = b"2|A B\nA\nA B\nB\n"
# 100,000 items and one option holding them all: dancing cells would need 2 x 100,001 x
# 100,000 x 4 bytes (80 GB) of saved set sizes
WIDE = (" ".join(f"i{k}" for k in range(100_000)) + "\n") * 2
PUZZLE = "...8.1..........435............7.8........1...2..3....6......75..34........2..6.."


def dlx(text: bytes | str) -> dict[str, bytes]:
    return {"p.dlx": text.encode() if isinstance(text, str) else text}


COVER = [
    Case(["cover", "{tmp}/missing.dlx"], says="does not exist"),
    Case(["cover", "{tmp}"], says="folder"),
    Case(["cover", "p.dlx"], dlx(RB)),
    Case(["cover", "p.dlx"], dlx(b""), says="empty input"),
    Case(["cover", "p.dlx"], dlx(b"| only a comment\n\n"), says="empty input"),
    Case(["cover", "p.dlx"], dlx(b"A B\nA\x00B\n"), says="NUL"),
    Case(["cover", "p.dlx"], dlx(b"A B\nA \xff\n"), says="p.dlx:2"),
    Case(["cover", "p.dlx"], dlx(b"A B\nA\nA C\n"), says="p.dlx:3: option uses unknown"),
    Case(["cover", "p.dlx"], dlx(b"A B\nA B A\n"), says="twice"),
    Case(["cover", "p.dlx"], dlx(b"A A\nA\n"), says="declared twice"),
    Case(["cover", "p.dlx"], dlx(f"{HUGE}|A B\nA\n"), says="at most"),
    Case(["cover", "p.dlx"], dlx(b"3:2|A\nA\n"), says="lo <= hi"),
    Case(["cover", "p.dlx"], dlx(b"x:y|A\nA\n"), says="digits expected"),
    Case(["cover", "p.dlx"], dlx(b"A B\nA :x\n"), says="p.dlx:2: empty item name"),
    Case(["cover", "p.dlx"], dlx(b"A B\nA B:\n"), says="empty colour"),
    Case(["cover", "p.dlx"], dlx(b"A:B C\nC\n"), says="contains ':'"),
    Case(["cover", "p.dlx"], dlx(b"A | X\nA:1\n"), says="colour"),
    Case(["cover", "p.dlx", "--engine", "cells"], dlx(WIDE), says="memory"),
    Case(["cover", "p.dlx", "--engine", "cells"], dlx(COLOUR), says="colours"),
    Case(["cover", "p.dlx", "--engine", "links"], dlx(BOUNDS), says="multiplicities"),
    Case(["cover", "p.dlx", "--engine", "turbo"], dlx(Q)),
    Case(["cover", "p.dlx", "--time-limit", "-5"], dlx(Q), says="positive"),
    Case(["cover", "p.dlx", "--time", "0"], dlx(Q)),
    Case(["cover", "p.dlx", "--time", "nan"], dlx(Q)),
    Case(["cover", "p.dlx", "--time", "inf"], dlx(Q)),
    Case(["cover", "p.dlx", "--time", HUGE], dlx(Q), says="ten years"),
    Case(["cover", "p.dlx", "--time", "soon"], dlx(Q)),
    Case(["cover", "p.dlx", "--nodes", "0"], dlx(Q)),
    Case(["cover", "p.dlx", "--nodes", "-1"], dlx(Q)),
    Case(["cover", "p.dlx", "--nodes", HUGE], dlx(Q)),
    Case(["cover", "p.dlx", "--limit", "0"], dlx(Q)),
    Case(["cover", "p.dlx", "--limit", HUGE], dlx(Q)),
    Case(["cover", "p.dlx", "--jobs", "0"], dlx(Q)),
    Case(["cover", "p.dlx", "--jobs", HUGE], dlx(Q)),
    Case(["cover", "p.dlx", "--jobs", "5000"], dlx(Q), says="jobs"),
    Case(["cover", "p.dlx", "--random", "abc"], dlx(Q)),
    Case(["cover", "p.dlx", "--first", "--jobs", "2"], dlx(Q), says="--count only"),
    Case(["cover", "p.dlx", "--jobs", "2"], dlx(BOUNDS), says="multiplicities"),
    Case(["cover", "p.dlx", "--jobs", "2", "--nodes", "5"], dlx(Q), says="node limit"),
    Case(["cover", "p.dlx", "--scheduler", "{closed}"], dlx(Q), says="Dask scheduler"),
    Case(["cover", "p.dlx", "--scheduler", "{http}"], dlx(Q), says="Dask scheduler"),
    Case(["cover", "p.dlx", "--scheduler", "not an address"], dlx(Q), says="Dask scheduler"),
    Case(["cover", "p.dlx", "--scheduler", "tcp://127.0.0.1:99999"], dlx(Q), says="port"),
    Case(["cover", "p.dlx", "--all", "--scheduler", "{closed}"], dlx(Q)),
]


def puzzles(data: bytes) -> dict[str, bytes]:
    return {"s.txt": data}


SUDOKU = [
    Case(["sudoku", "solve", "s.txt"], puzzles(RB)),
    Case(["sudoku", "solve", "s.txt"], puzzles(b""), says="no puzzle"),
    Case(["sudoku", "solve", "s.txt"], puzzles(b"# nothing but a comment\n"), says="no puzzle"),
    Case(["sudoku", "solve", "s.txt"], puzzles(b"\xff" * 81 + b"\n"), says="UTF-8"),
    Case(
        ["sudoku", "solve", "s.txt"],
        puzzles((PUZZLE + "\n" + "." * 80 + "x\n").encode()),
        says="s.txt:2",
    ),
    Case(
        ["sudoku", "solve", "s.txt"],
        puzzles((PUZZLE + "\n" + "." * 80 + "\n").encode()),
        says="s.txt",
    ),
    Case(["sudoku", "solve", "{tmp}/missing.txt"], says="does not exist"),
    Case(["sudoku", "solve", "{tmp}"], says="folder"),
    Case(["sudoku", "solve", "123"], says="got 3"),
    Case(["sudoku", "solve", "x" + "." * 80], says="bad character"),
    Case(["sudoku", "solve", "." * 81, "--box", "0x3"]),
    Case(["sudoku", "solve", "." * 81, "--box", f"{HUGE}x2"]),
    Case(["sudoku", "solve", "." * 81, "--box", "abc"], says="3x3"),
    Case(["sudoku", "solve", "." * 81, "--box", "7x7"]),
    Case(["sudoku", "solve", "." * 81, "--limit", "0"]),
    Case(["sudoku", "solve", "." * 81, "--max-solutions", "-1"]),
    Case(["sudoku", "solve", "." * 81, "--limit", HUGE]),
    Case(["sudoku", "solve", PUZZLE, "--regions", "AAAA"], says="81 letters"),
    Case(["sudoku", "solve", PUZZLE, "--regions", "A" * 81], says="9 regions"),
    Case(["sudoku", "generate", "--seed", "abc"]),
    Case(["sudoku", "generate", "--seed", "1.5"]),
    Case(["sudoku", "generate", "--box", "0x0"]),
    Case(["sudoku", "generate", "--box", "99999x99999"]),
    Case(["sudoku", "generate", "--box", "foo"]),
    Case(["sudoku", "generate", "--clues", "0"]),
    Case(["sudoku", "generate", "--clues", "82"], says="clues"),
    Case(["sudoku", "generate", "--clues", HUGE]),
    Case(["sudoku", "rate", "s.txt"], puzzles(RB)),
    Case(["sudoku", "rate", "s.txt"], puzzles(b"")),
    Case(["sudoku", "rate", "123"]),
    Case(["sudoku", "rate", "." * 81, "--box", "2x2"], says="16 cells"),
    Case(["sudoku", "rate", "{tmp}/missing.sdk"], says="does not exist"),
    Case(["sudoku", "solve", "." * 81, "--time", "0"], says="positive"),
    Case(["sudoku", "generate", "--time", "nan"]),
    Case(["sudoku", "rate", "." * 81, "--time", "-1"]),
    Case(["sudoku", "nonsense"]),
]

QUEENS = [
    Case(["queens", "0"]),
    Case(["queens", "-3"]),
    Case(["queens", HUGE]),
    Case(["queens", "1001"], says="at most 1000"),
    Case(["queens", "abc"]),
    Case(["queens", "8", "--limit", "0"]),
    Case(["queens", "8", "--list", "0"]),
    Case(["queens", "8", "--jobs", "0"]),
    Case(["queens", "8", "--jobs", "5000"], says="jobs"),
    Case(["queens", "8", "--time", "-1"]),
    Case(["queens", "8", "--nodes", "0"]),
]


def piece_file(data: bytes) -> dict[str, bytes]:
    return {"pieces.txt": data}


POLYOMINO = [
    Case(["polyomino", "--pieces", "foo"], says="unknown piece set"),
    Case(["polyomino", "--pieces", "pieces.txt"], piece_file(RB)),
    Case(["polyomino", "--pieces", "pieces.txt"], piece_file(b""), says="no piece"),
    Case(["polyomino", "--pieces", "pieces.txt"], piece_file(b"AA\nA#\n"), says="pieces.txt:2"),
    Case(["polyomino", "--pieces", "pieces.txt"], piece_file(b"AA\n\xffA\n"), says="UTF-8"),
    Case(["polyomino", "--pieces", "{tmp}/missing.txt"], says="does not exist"),
    Case(["polyomino", "--pieces", "{tmp}"], says="folder"),
    Case(["polyomino", "--pieces", "A.A"], says="not connected"),
    Case(["polyomino", "--pieces", "AA/A#"], says="bad character"),
    Case(["polyomino", "--region", "0x5"], says="no cells"),
    Case(["polyomino", "--region", f"{HUGE}x3"]),
    Case(["polyomino", "--region", "99999999999x99999999999"], says="at most"),
    Case(["polyomino", "--region", "1000x1000"], says="at most"),
    Case(["polyomino", "--region", "300x300"], says="placements"),
    Case(["polyomino", "--region", "pieces.txt"], piece_file(RB)),
    Case(["polyomino", "--region", "{tmp}/missing.txt"], says="does not exist"),
    Case(["polyomino", "--region", "2x2"], says="only 4"),
    Case(["polyomino", "--region", "..../...."], says="neither"),
    Case(["polyomino", "--orientations", "bogus"]),
    Case(["polyomino", "--list", "0"]),
    Case(["polyomino", "--jobs", "0"]),
    Case(["polyomino", "--time", "0"]),
    Case(["polyomino", "--nodes", HUGE]),
    Case(["polyomino", "--region", "3x20", "--scheduler", "{closed}"], says="Dask scheduler"),
    Case(["polyomino", "--region", "3x20", "--scheduler", "{http}"], says="Dask scheduler"),
    Case(["polyomino", "--limit", "2", "--scheduler", "{closed}"], says="scheduler"),
]

CASES = COVER + SUDOKU + QUEENS + POLYOMINO


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_refused_in_one_line(case, tmp_path, capsys, addresses):
    check_refused(case, tmp_path, capsys, addresses)
