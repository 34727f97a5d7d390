"""Hostile files, numbers and paths, for every command that reads or writes one.

Each class of the issue, with a case for every reader or writer it concerns, refused in one
line before any work by the shared mechanisms of :mod:`rompicapo.common.files` (exit 2, one
line, no traceback, no "please report", within seconds, nothing left behind, the inputs
unchanged: :func:`~.harness.check_refused` checks them all):

- inputs that are not regular files: FIFOs (a reader that opened one would wait for ever:
  the harness's alarm turns a regression into a failure), devices, ``/proc``;
- inputs that overflow a reader: JSON nested 100,000 deep, ``1e400``, numbers of 5,000 digits
  in files and on the command line, a 5 MB line (the message quotes 60 characters of it);
- outputs that would destroy an input or another output (symbolic and hard links included);
- ``--resume`` over a file of another path;
- a closed standard input.
"""

from __future__ import annotations

import json
import re
import struct
import sys

import numpy as np
import pytest

from rompicapo.cli import main
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import format_board, format_pieces
from rompicapo.paths.rpath import MAGIC

from .harness import Case, check_refused, npy_bytes, rpath_bytes

HUGE = "9" * 5000
_PIECES, _SOLUTION = generate(4, 4, frame_colours=2, inner_colours=3, seed=1)
PIECES = format_pieces(_PIECES).encode()  # a valid 4x4 pieces file
BOARD = format_board(_SOLUTION, _PIECES).encode()  # its solution, a valid board
LONG = ["--time", "600"]


def _huge_colour(text: bytes) -> bytes:
    """The pieces file with its first piece's first colour made a number of 5,000 digits."""
    lines = text.decode().splitlines()
    k = next(i for i, line in enumerate(lines) if line.split() and line.split()[0].isdigit())
    words = lines[k].split()
    lines[k] = " ".join([HUGE, *words[1:]])
    return ("\n".join(lines) + "\n").encode()


HUGE_PIECES = _huge_colour(PIECES)  # a refusal after the search would time the case out


def _rpath_with_header(text: str) -> bytes:
    """An .rpath file whose JSON header is ``text`` (the magic and length are right)."""
    raw = text.encode()
    return MAGIC + struct.pack("<I", len(raw)) + raw


def _checkpoint(payload_text: str) -> bytes:
    """A checkpoint file whose payload is the JSON ``payload_text`` (checksum irrelevant: the
    limits refuse it before the checksum is looked at)."""
    doc = f'{{"kind": "rompicapo-count-checkpoint", "payload": {payload_text}, "sha256": "0"}}'
    return doc.encode()


def _header() -> dict:
    raw = rpath_bytes()
    (length,) = struct.unpack("<I", raw[8:12])
    return json.loads(raw[12 : 12 + length].decode())


HEADER = _header()
DEEP = "[" * 100_000 + "]" * 100_000

# ---- inputs that are not regular files ---------------------------------------------------

FIFO = [
    Case(["cover", "p.dlx"], fifos=("p.dlx",), says="FIFO"),
    Case(["sudoku", "solve", "p.txt"], fifos=("p.txt",), says="FIFO"),
    Case(["sudoku", "rate", "p.sdk"], fifos=("p.sdk",), says="FIFO"),
    Case(["verify-path", "p.npy", "10"], fifos=("p.npy",), says="FIFO"),
    Case(["verify-path", "p.rpath"], fifos=("p.rpath",), says="FIFO"),
    Case(["edges", "solve", "p.txt", *LONG], fifos=("p.txt",), says="FIFO"),
    Case(["edges", "solve", "eternity2", "--clues", "c.txt", *LONG], fifos=("c.txt",)),
    Case(["edges", "improve", "b.txt", "eternity2", *LONG], fifos=("b.txt",), says="FIFO"),
    Case(["edges", "improve", "b.txt", "p.txt", *LONG], files={"b.txt": BOARD}, fifos=("p.txt",)),
    Case(["edges", "render", "b.txt", "eternity2", "--svg", "x.svg"], fifos=("b.txt",)),
    Case(["edges", "score", "b.txt", "eternity2"], fifos=("b.txt",), says="FIFO"),
    Case(["edges", "url", "b.txt", "eternity2"], fifos=("b.txt",), says="FIFO"),
    Case(["edges", "study", "p.txt", "--db", "s.sqlite", "--nodes", "10"], fifos=("p.txt",)),
    Case(["edges", "study", "eternity2", "--db", "s.sqlite", "--nodes", "10"], fifos=("s.sqlite",)),
    Case(["edges", "study-report", "s.sqlite", "--out", "rep"], fifos=("s.sqlite",)),
    Case(["game", "connect4", "bench", "t.txt"], fifos=("t.txt",), says="FIFO"),
    Case(["polyomino", "--pieces", "p.txt"], fifos=("p.txt",), says="FIFO"),
    Case(["polyomino", "--region", "r.txt"], fifos=("r.txt",), says="FIFO"),
    Case(["count", "4x5", "--checkpoint", "c.json"], fifos=("c.json",), says="FIFO"),
    # outputs: a FIFO is no file to write either
    Case(["path", "10", "--out", "o.npy"], fifos=("o.npy",), says="FIFO"),
    Case(
        [
            "edges",
            "generate",
            "4x4",
            "--frame-colours",
            "2",
            "--inner-colours",
            "3",
            "--out",
            "o.txt",
        ],
        fifos=("o.txt",),
        says="FIFO",
    ),
]

DEVICE = [
    Case(["cover", "/dev/zero"], says="device"),
    Case(["sudoku", "solve", "/dev/zero"], says="device"),
    Case(["verify-path", "/dev/zero", "10"], says="device"),
    Case(["verify-path", "z.rpath"], links={"z.rpath": "/dev/zero"}, says="device"),
    Case(["edges", "score", "/dev/zero", "eternity2"], says="device"),
    Case(["edges", "solve", "/dev/zero", *LONG], says="device"),
    Case(["game", "connect4", "bench", "/dev/zero"], says="device"),
    Case(["polyomino", "--pieces", "/dev/zero"], says="device"),
    Case(["count", "4x5", "--checkpoint", "z.json"], links={"z.json": "/dev/zero"}),
    Case(["path", "10", "--out", "o.npy"], links={"o.npy": "/dev/full"}, says="device"),
    Case(["edges", "solve", "eternity2", "--out", "o.txt", *LONG], links={"o.txt": "/dev/null"}),
    # /proc takes no new file: refused before the search (issue 26: this one searched for
    # a 3000x3000 path, failed to write it, and exited 0)
    Case(["path", "3000", "--png", "/proc/x.png"], says="cannot be written"),
    Case(["path", "300", "--out", "/proc/x.npy", "--method", "greedy"]),
    Case(["edges", "solve", "eternity2", "--out", "/proc/b.txt", *LONG]),
    Case(["count", "5", "--checkpoint", "/proc/c.json"]),
    Case(["edges", "study", "eternity2", "--db", "/proc/s.sqlite", "--nodes", "10"]),
]

# ---- inputs that overflow a reader -------------------------------------------------------

JSON = [
    Case(["count", "4x5", "--checkpoint", "c.json"], files={"c.json": DEEP.encode()}, says="nests"),
    Case(["count", "4x5", "--checkpoint", "c.json"], files={"c.json": _checkpoint(DEEP)}),
    Case(
        ["count", "4x5", "--checkpoint", "c.json"],
        files={"c.json": _checkpoint('{"rows": 1e400}')},
        says="out of range",
    ),
    Case(
        ["count", "4x5", "--checkpoint", "c.json"],
        files={"c.json": _checkpoint('{"rows": ' + HUGE + "}")},
        says="digits",
    ),
    Case(
        ["count", "4x5", "--checkpoint", "c.json"],
        files={"c.json": _checkpoint('{"rows": NaN}')},
        says="NaN",
    ),
    Case(
        ["verify-path", "x.rpath"],
        files={"x.rpath": _rpath_with_header("[" * 60_000)},
        says="nests",
    ),
    Case(
        ["verify-path", "x.rpath"],
        files={
            "x.rpath": _rpath_with_header(json.dumps(HEADER).replace('"rows": 1', '"rows": 1e400'))
        },
        says="out of range",
    ),
    Case(
        ["verify-path", "x.rpath"],
        files={
            "x.rpath": _rpath_with_header(
                json.dumps(HEADER).replace('"rows": 1', f'"rows": {HUGE}')
            )
        },
        says="digits",
    ),
]

NUMBERS = [
    Case(["path", HUGE]),
    Case(["path", f"10x{HUGE}"]),
    Case(["path", "10", "--start", f"{HUGE},0"]),
    Case(["path", "10", "--start", f"0,{HUGE}"]),
    Case(["path", "10", "--seed", HUGE]),
    Case(["path", "10", "--time", HUGE]),
    Case(["path", "10", "--moves", f"1,{HUGE}"]),
    Case(["path-at", HUGE, "1"]),
    Case(["path-at", "100", HUGE]),
    Case(["step-of", "100", f"{HUGE},0"]),
    Case(["count", f"{HUGE}x1"]),
    Case(["count", "5", "--start", f"0,{HUGE}"]),
    Case(["count", "5", "--start", "0,0", "--seed", HUGE]),
    Case(["verify-path", "x.npy", HUGE], files={"x.npy": npy_bytes(np.arange(100))}),
    Case(["queens", HUGE]),
    Case(["polyomino", "--region", f"{HUGE}x5"]),
    Case(["sudoku", "generate", "--box", f"{HUGE}x3"]),
    Case(["sudoku", "generate", "--clues", HUGE]),
    Case(["game", "grundy", "subtract", f"1,{HUGE}"]),
    Case(["game", "grundy", "octal", "0." + "7" * 5000], says="digits"),
    Case(["game", "nim", "3", HUGE]),
    Case(["game", "pig", "--goal", HUGE]),
    Case(["game", "connect4", "solve", HUGE]),
    Case(["edges", "generate", f"{HUGE}x5", "--frame-colours", "2", "--inner-colours", "3"]),
    Case(["edges", "generate", "5x5", "--frame-colours", HUGE, "--inner-colours", "3"]),
    Case(["edges", "solve", "eternity2", "--breaks", HUGE, *LONG]),
    Case(["edges", "solve", "eternity2", "--heuristic", f"1,{HUGE}", *LONG]),
    # ... and in files
    Case(["edges", "score", "b.txt", "p.txt"], files={"b.txt": BOARD, "p.txt": HUGE_PIECES}),
    Case(["edges", "solve", "p.txt", *LONG], files={"p.txt": HUGE_PIECES}),
    Case(["game", "connect4", "bench", "t.txt"], files={"t.txt": f"4455 {HUGE}\n".encode()}),
    Case(["sudoku", "solve", "p.txt"], files={"p.txt": HUGE.encode()}),
    Case(["sudoku", "solve", "p.txt"], files={"p.txt": b"1" * 5_000_000}),  # a 5 MB line
    Case(["cover", "p.dlx"], files={"p.dlx": b"a b\n" + b"c" * 5_000_000 + b"\n"}),
]

# ---- outputs that would destroy an input or another output -------------------------------

GENERATE = ["edges", "generate", "4x4", "--frame-colours", "2", "--inner-colours", "3"]
SAME = [
    Case(
        ["edges", "solve", "p.txt", "--out", "p.txt", *LONG],
        files={"p.txt": PIECES},
        says="destroy",
    ),
    Case(
        ["edges", "solve", "l.txt", "--out", "p.txt", *LONG],
        files={"p.txt": PIECES},
        links={"l.txt": "p.txt"},
        says="destroy",
    ),
    Case(
        ["edges", "solve", "p.txt", "--out", "h.txt", *LONG],
        files={"p.txt": PIECES},
        links={"h.txt": "+p.txt"},
        says="destroy",
    ),
    Case(["edges", "solve", "p.txt", "--out", "./sub/../p.txt", *LONG], files={"p.txt": PIECES}),
    Case(
        ["edges", "solve", "eternity2", "--clues", "b.txt", "--out", "b.txt", *LONG],
        files={"b.txt": BOARD},
    ),
    Case(
        ["edges", "solve", "p.txt", "--svg", "h.svg", "--heat", "h.svg", *LONG],
        files={"p.txt": PIECES},
        says="same file",
    ),
    Case(
        ["edges", "solve", "p.txt", "--png", "h.png", "--heat", "./h.png", *LONG],
        files={"p.txt": PIECES},
        says="same file",
    ),
    Case(
        ["edges", "improve", "b.txt", "p.txt", "--out", "b.txt", *LONG],
        files={"b.txt": BOARD, "p.txt": PIECES},
        says="destroy",
    ),
    Case(
        ["edges", "improve", "b.txt", "p.txt", "--out", "p.txt", *LONG],
        files={"b.txt": BOARD, "p.txt": PIECES},
        says="destroy",
    ),
    Case(
        ["edges", "render", "b.txt", "p.txt", "--svg", "b.txt"],
        files={"b.txt": BOARD, "p.txt": PIECES},
    ),
    Case([*GENERATE, "--out", "g.txt", "--solution", "g.txt"], says="same file"),
    Case(
        [*GENERATE, "--out", "g.txt", "--solution", "l.txt"],
        files={"g.txt": PIECES},
        links={"l.txt": "g.txt"},
        says="same file",
    ),
    Case(["edges", "study", "p.txt", "--db", "p.txt", "--nodes", "10"], files={"p.txt": PIECES}),
]

# ---- --resume over a file of another path -------------------------------------------------

RPATH = rpath_bytes()
RESUME = [
    Case(
        ["path", "100", "--out", "x.rpath", "--resume"],
        files={"x.rpath": RPATH},
        says="cannot resume",
    ),
    Case(
        ["path", "100", "--out", "x.rpath", "--resume"],
        files={"x.rpath.part": RPATH},
        says="cannot resume",
    ),
    Case(["path", "100", "--out", "x.rpath", "--resume", "--packed"], files={"x.rpath": RPATH}),
    Case(["path", "100", "--out", "x.rpath", "--resume"], files={"x.rpath": b"not an rpath"}),
]

CASES = FIFO + DEVICE + JSON + NUMBERS + SAME + RESUME


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_refused_in_one_line(case, tmp_path, capsys, addresses):
    line = check_refused(case, tmp_path, capsys, addresses)
    # the message quotes at most 60 characters of what the user gave
    assert len(line) <= 600 and not re.search(r"[0-9]{61}", line), line


def test_every_class_has_cases():
    assert min(len(c) for c in (FIFO, DEVICE, JSON, NUMBERS, SAME, RESUME)) >= 4
    readers = {c.argv[0] if c.argv[0] != "edges" else " ".join(c.argv[:2]) for c in FIFO}
    assert {"cover", "sudoku", "verify-path", "edges solve", "edges improve", "edges render",
            "game", "polyomino", "count"} <= readers  # fmt: skip


@pytest.mark.parametrize(
    "argv",
    [["cover", "-"], ["sudoku", "solve", "-"], ["sudoku", "rate", "-"], ["game", "play", "nim"]],
)
def test_a_closed_standard_input_is_an_input_error(argv, monkeypatch, capsys):
    """``<&-``: Python starts with ``sys.stdin = None``; every reader of ``-`` (and the
    terminal game) says so in one line (it was "AttributeError ... please report it")."""
    monkeypatch.setattr(sys, "stdin", None)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "standard input is closed" in err
