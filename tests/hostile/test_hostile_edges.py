"""Hostile input for ``rompicapo edges ...``: every subcommand, refused in one line.

Each case must end with exit status 2, one line on stderr, no traceback, within seconds and
with nothing left behind (the harness checks all four). The searches must refuse *before*
they search: an output path, a scheduler address or a setting that is wrong costs a second,
not the run (``--time 600`` on the search cases would show a late refusal as a timeout).
"""

from __future__ import annotations

import pytest

from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import format_board, format_pieces

from .harness import Case, check_refused, random_bytes

HUGE = "99999999999999999999999"
_SMALL, _SOLUTION = generate(4, 4, frame_colours=2, inner_colours=3, seed=1)
SMALL = format_pieces(_SMALL).encode()  # a valid 4x4 pieces file (not Eternity II)
SMALL_BOARD = format_board(_SOLUTION, _SMALL).encode()
E2_BOARD = b"# the centre clue alone: a valid partial board of Eternity II\n8 7 139 2\n"
FILES = {
    "rand.bin": random_bytes(),
    "empty.txt": b"",
    "small.txt": SMALL,
    "small_board.txt": SMALL_BOARD,
    "b.txt": E2_BOARD,
    "rand.sqlite": random_bytes(seed=3),
}
GENERATE_5X5 = ("generate", "5x5", "--frame-colours", "2", "--inner-colours", "3")
LONG = ["--time", "600"]  # a refusal that came after the search would time the case out


def solve(*args: str, says: str | None = None) -> Case:
    return Case(["edges", "solve", *args], files=FILES, says=says)


def improve(*args: str, says: str | None = None) -> Case:
    return Case(["edges", "improve", *args], files=FILES, says=says)


def edges(*args: str, says: str | None = None) -> Case:
    return Case(["edges", *args], files=FILES, says=says)


CASES = [
    # ---- solve: output paths, checked before the search
    solve("eternity2", *LONG, "--out", "/nonexistent/b.txt", says="does not exist"),
    solve("eternity2", *LONG, "--out", "{tmp}"),
    solve("eternity2", *LONG, "--out", "b.npy", says=".txt"),
    solve("eternity2", *LONG, "--out", "b", says=".txt"),
    solve("eternity2", *LONG, "--svg", "/nonexistent/x.svg"),
    solve("eternity2", *LONG, "--svg", "x.png", says=".svg"),
    solve("eternity2", *LONG, "--png", "x.svg", says=".png"),
    solve("eternity2", *LONG, "--png", "{tmp}"),
    solve("eternity2", *LONG, "--heat", "heat.txt", says=".svg"),
    solve("eternity2", *LONG, "--heat", "/nonexistent/h.png"),
    solve("eternity2", *LONG, "--out", "ok.txt", "--svg", "/nonexistent/x.svg"),
    # ---- solve: schedulers
    solve("eternity2", *LONG, "--scheduler", "{closed}", says="Dask scheduler"),
    solve("eternity2", *LONG, "--scheduler", "{http}", says="Dask scheduler"),
    solve("eternity2", *LONG, "--scheduler", "garbage::", says="Dask scheduler"),
    solve("eternity2", *LONG, "--scheduler", "tcp://no-such-host.invalid:8786"),
    # ---- solve: numbers and settings
    solve("eternity2", *LONG, "--heuristic", "99,100,101", says="heuristic"),
    solve("eternity2", *LONG, "--heuristic", "a,b"),
    solve("eternity2", *LONG, "--heuristic", "0,13,16"),
    solve("eternity2", *LONG, "--heuristic", HUGE),
    solve("eternity2", "--time", "-5"),
    solve("eternity2", "--time", "0"),
    solve("eternity2", "--time", "nan"),
    solve("eternity2", "--time", HUGE, says="ten years"),
    solve("eternity2", "--nodes", "0"),
    solve("eternity2", "--nodes", HUGE),
    solve("eternity2", "--nodes", "-3"),
    solve("eternity2", *LONG, "--jobs", "0"),
    solve("eternity2", *LONG, "--jobs", HUGE),
    solve("eternity2", *LONG, "--jobs", "5000", says="jobs"),
    solve("eternity2", *LONG, "--seed", "abc"),
    solve("eternity2", *LONG, "--seed", "1.5"),
    solve("eternity2", *LONG, "--node-cap", "0"),
    solve("eternity2", *LONG, "--node-cap", HUGE),
    solve("eternity2", *LONG, "--quota-scale", "-1"),
    solve("eternity2", *LONG, "--quota-scale", "11"),
    solve("eternity2", *LONG, "--quota-scale", "nan"),
    solve("eternity2", *LONG, "--quota-scale", "1e400"),
    solve("eternity2", *LONG, "--breaks", "often", says="breaks"),
    solve("eternity2", *LONG, "--breaks", "999", says="break"),
    solve("eternity2", *LONG, "--breaks", HUGE),
    solve("eternity2", *LONG, "--order", "spiral"),
    solve("eternity2", *LONG, "--quota", "lots"),
    solve("small.txt", *LONG, "--quota", "blackwood", says="256 cells"),
    solve("eternity2", *LONG, "--polish", "-1"),
    solve("eternity2", *LONG, "--polish", "0"),
    # ---- solve: inputs
    solve("rand.bin", *LONG, says="rand.bin"),
    solve("empty.txt", *LONG),
    solve("missing.txt", *LONG, says="does not exist"),
    solve("{tmp}", *LONG, says="folder"),
    solve("b.txt", *LONG),  # a board file given as the pieces
    solve("eternity2", *LONG, "--clues", "rand.bin"),
    solve("eternity2", *LONG, "--clues", "missing.txt"),
    solve("eternity2", *LONG, "--clues", "small_board.txt"),
    solve("small.txt", *LONG, "--clues", "centre", says="Eternity II"),
    # ---- improve
    improve("missing.txt", "eternity2", says="does not exist"),
    improve("rand.bin", "eternity2"),
    improve("empty.txt", "eternity2", *LONG, says="no pieces"),
    improve("b.txt", "eternity2", *LONG, "--out", "/nonexistent/x.txt"),
    improve("b.txt", "eternity2", *LONG, "--out", "{tmp}"),
    improve("b.txt", "eternity2", *LONG, "--out", "x.png", says=".txt"),
    improve("b.txt", "eternity2", "--time", "0"),
    improve("b.txt", "eternity2", "--time", "-1"),
    improve("b.txt", "eternity2", "--time", HUGE),
    improve("b.txt", "eternity2", *LONG, "--nodes", "0"),
    improve("b.txt", "eternity2", *LONG, "--node-cap", "0"),
    improve("b.txt", "eternity2", *LONG, "--node-cap", HUGE),
    improve("b.txt", "eternity2", *LONG, "--seed", "1.5"),
    improve("b.txt", "eternity2", *LONG, "--clues", "missing.txt"),
    improve("b.txt", "rand.bin", *LONG),
    improve("small_board.txt", "small.txt", *LONG, "--clues", "centre", says="Eternity II"),
    improve("https://e2.bucas.name/#board_w=16", "eternity2", *LONG, says="board_edges"),
    improve("small_board.txt", "eternity2", *LONG),  # a board of another puzzle
    # ---- score
    edges("score", "missing.txt", "eternity2", says="does not exist"),
    edges("score", "rand.bin", "eternity2"),
    edges("score", "b.txt", "rand.bin"),
    edges("score", "b.txt", "empty.txt"),
    edges("score", "b.txt", "missing-pieces.txt"),
    edges("score", "{tmp}", "eternity2"),
    edges("score", "https://e2.bucas.name/#board_w=16&board_h=16&board_edges=zz", "eternity2"),
    edges("score", f"https://e2.bucas.name/#board_w={HUGE}&board_h=1&board_edges=a", "eternity2"),
    # ---- generate
    edges("generate", "5by5", "--frame-colours", "2", "--inner-colours", "3", says="RxC"),
    edges("generate", "1x5", "--frame-colours", "2", "--inner-colours", "3"),
    edges("generate", f"{HUGE}x5", "--frame-colours", "2", "--inner-colours", "3"),
    edges("generate", "5x5", "--frame-colours", "0", "--inner-colours", "3"),
    edges("generate", "5x5", "--frame-colors", "2", "--inner-colors", "-1"),
    edges("generate", "5x5", "--frame-colours", HUGE, "--inner-colours", "3"),
    edges("generate", "5x5", "--frame-colours", "40", "--inner-colours", "40"),
    edges("generate", "5x5", "--frame-colours", "2", "--inner-colours", "3", "--seed", "x"),
    edges(*GENERATE_5X5, "--out", "/nonexistent/p.txt"),
    edges("generate", "5x5", "--frame-colours", "2", "--inner-colours", "3", "--out", "{tmp}"),
    edges("generate", "5x5", "--frame-colours", "2", "--inner-colours", "3", "--out", "p.png"),
    edges(*GENERATE_5X5, "--out", "p.txt", "--solution", "/nonexistent/s.txt"),
    # ---- render
    edges("render", "b.txt", "eternity2", says="svg"),
    edges("render", "b.txt", "eternity2", "--svg", "x.png"),
    edges("render", "b.txt", "eternity2", "--png", "x.svg"),
    edges("render", "b.txt", "eternity2", "--svg", "/nonexistent/x.svg"),
    edges("render", "b.txt", "eternity2", "--png", "{tmp}"),
    edges("render", "rand.bin", "eternity2", "--svg", "x.svg"),
    edges("render", "missing.txt", "eternity2", "--svg", "x.svg"),
    # ---- url
    edges("url", "missing.txt", "eternity2"),
    edges("url", "rand.bin", "eternity2"),
    edges("url", "b.txt", "empty.txt"),
    edges("url", "small_board.txt", "eternity2"),
    # ---- study
    edges("study", "eternity2", "--db", "/nonexistent/s.sqlite", "--nodes", "10"),
    edges("study", "eternity2", "--db", "{tmp}", "--nodes", "10"),
    edges("study", "eternity2", "--db", "s.txt", "--nodes", "10", says=".sqlite"),
    edges("study", "eternity2", "--db", "rand.sqlite", "--nodes", "10", says="SQLite"),
    edges("study", "eternity2", "--db", "s.sqlite", "--nodes", "10", "--scheduler", "{closed}"),
    edges("study", "eternity2", "--db", "s.sqlite", "--nodes", "10", "--scheduler", "{http}"),
    edges("study", "eternity2", "--db", "s.sqlite", "--nodes", "0"),
    edges("study", "eternity2", "--db", "s.sqlite", "--time", "-1"),
    edges("study", "eternity2", "--db", "s.sqlite", "--seeds", "-1"),
    edges("study", "eternity2", "--db", "s.sqlite", "--seeds", HUGE),
    edges("study", "eternity2", "--db", "s.sqlite", "--curves", "1000000"),
    edges("study", "eternity2", "--db", "s.sqlite", "--amplitude", "1.5"),
    edges("study", "eternity2", "--db", "s.sqlite", "--amplitude", "nan"),
    edges("study", "eternity2", "--db", "s.sqlite", "--level-spread", "-0.1"),
    edges("study", "eternity2", "--db", "s.sqlite", "--break-shift", "-1"),
    edges("study", "eternity2", "--db", "s.sqlite", "--colour-sets", "some"),
    edges("study", "eternity2", "--db", "s.sqlite", "--colour-sets", "list:99-100-101"),
    edges("study", "eternity2", "--db", "s.sqlite", "--colour-sets", "sample:abc"),
    edges("study", "eternity2", "--db", "s.sqlite", "--max-jobs", "0"),
    edges("study", "eternity2", "--db", "s.sqlite", "--jobs", "0"),
    edges("study", "small.txt", "--db", "s.sqlite", "--clues", "centre"),
    edges("study", "rand.bin", "--db", "s.sqlite"),
    # ---- study-report
    edges("study-report", "missing.sqlite", "--out", "rep"),
    edges("study-report", "rand.sqlite", "--out", "rep"),
    edges("study-report", "empty.txt", "--out", "rep"),
    edges("study-report", "rand.sqlite", "--out", "/nonexistent/dir/rep"),
    edges("study-report", "rand.sqlite", "--out", "small.txt", says="not a folder"),
    # ---- the command itself
    edges(),
    edges("solve"),
    edges("no-such-command"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_refused_in_one_line(case, tmp_path, capsys, addresses):
    check_refused(case, tmp_path, capsys, addresses)


def test_every_edges_command_is_covered():
    commands = {c.argv[1] for c in CASES if len(c.argv) > 1}
    assert {"solve", "improve", "score", "generate", "render", "url", "study",
            "study-report"} <= commands  # fmt: skip
