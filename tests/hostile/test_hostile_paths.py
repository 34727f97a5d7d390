"""Hostile input for the paths family: path, count, verify-path, path-at, step-of.

Every case must be refused before any search: exit 2, one line on stderr, no traceback, within
the harness's few seconds, and no file left behind (a bad output path never creates anything).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest

from rompicapo.cli import main
from rompicapo.common import write_checked_json
from rompicapo.paths.checkpoints import CHECKPOINT_FORMAT, CHECKPOINT_VERSION, problem_of
from rompicapo.paths.moves import parse_moves

from .harness import Case, check_refused, npy_bytes, random_bytes, rpath_bytes

HUGE = "99999999999999999999999"


def _checkpoint(rows: int = 4, cols: int = 5) -> dict:
    problem = problem_of(rows, cols, None, parse_moves("caselle"), False, 3)
    return {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "problem": problem,
        "done": {"0.7.14": [3, 40]},
        "samples": {},
    }


def _checked(payload: dict) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        name = Path(folder) / "c.json"
        write_checked_json(name, payload, kind=CHECKPOINT_FORMAT)
        return name.read_bytes()


def _tampered() -> bytes:
    """A real checkpoint whose count was edited by hand (the checksum no longer matches)."""
    doc = json.loads(_checked(_checkpoint()))
    doc["payload"]["done"]["0.7.14"][0] += 1000
    return json.dumps(doc).encode()


def _unchecked() -> bytes:
    """A checkpoint in the earlier layout, without a checksum: refused, not trusted."""
    return json.dumps(_checkpoint()).encode()


RPATH = rpath_bytes()
NPY = npy_bytes(np.arange(100))
RANDOM = random_bytes()

PATH = [
    Case(["path", "0"], says="at least 1"),
    Case(["path", "5x0"]),
    Case(["path", "-3"]),
    Case(["path", "abc"], says="board size"),
    Case(["path", "5y7"]),
    Case(["path", HUGE]),
    Case(["path", HUGE, "--method", "greedy"]),
    Case(["path", f"{HUGE}x5"]),
    Case(["path", "100000x100000", "--method", "greedy"], says="memory"),
    # the column profiles of a 3-row board keep a step id per column
    Case(["path", "3x99999999999", "--moves", "knight", "--time", "2"], says="memory"),
    Case(["path", "10", "--start", "10,0"], says="outside"),
    Case(["path", "10", "--start", "x"]),
    Case(["path", "10", "--start", f"{HUGE},0"], says="outside"),
    Case(["path", "10", "--start", "-1,0"]),
    Case(["path", "10", "--moves", "queen"]),
    Case(["path", "10", "--moves", "0,0"]),
    Case(["path", "10", "--moves", f"1,{HUGE}"]),
    Case(["path", "10", "--moves", ";;;"]),
    Case(["path", "10", "--seed", "abc"]),
    Case(["path", "10", "--seed", "1.5"]),
    Case(["path", "10", "--time", "-5"]),
    Case(["path", "10", "--time", "nan"]),
    Case(["path", "10", "--time", "inf"]),
    Case(["path", "10", "--time-limit", "0"]),
    Case(["path", "10", "--time", HUGE], says="ten years"),
    Case(["path", "10", "--jobs", "0"]),
    Case(["path", "10", "--jobs", "-1"]),
    Case(["path", "10", "--jobs", HUGE]),
    Case(["path", "10", "--out", "x.csv"], says=".npy or .rpath or .txt"),
    Case(["path", "10", "--out", "x"], says=".npy or .rpath or .txt"),
    Case(["path", "2000", "--out", "x.txt"], says="too large to read"),
    Case(["path", "10", "--out", ".npy"]),
    Case(["path", "10", "--out", "/nonexistent/x.npy"], says="does not exist"),
    Case(["path", "10", "--out", "{tmp}"]),
    Case(["path", "10", "--out", "/nonexistent/x.rpath", "--method", "blocks"]),
    Case(["path", "10", "--pdf", "/nonexistent/x.pdf"]),
    Case(["path", "10", "--pdf", "x.png"]),
    Case(["path", "10", "--png", "x.jpg"]),
    Case(["path", "10", "--png", "/nonexistent/x.png"]),
    Case(["path", "10", "--svg", "x.png"]),
    Case(["path", "10", "--svg", "/nonexistent/x.svg"]),
    Case(["path", "300", "--svg", "x.svg"], says="svg"),
    Case(["path", "10", "--scheduler", "{closed}", "--out", "x.rpath"], says="scheduler"),
    Case(["path", "10", "--scheduler", "{http}", "--out", "x.rpath"], says="scheduler"),
    Case(["path", "10", "--scheduler", "{closed}"], says="scheduler"),
    Case(["path", "10", "--scheduler", "garbage", "--out", "x.rpath"], says="scheduler"),
    Case(["path", "10", "--scheduler", "tcp://127.0.0.1:99999", "--out", "x.rpath"]),
    Case(["path", "10", "--packed"], says="rpath"),
    Case(["path", "10", "--resume", "--out", "x.npy"], says="rpath"),
    Case(["path", "10", "--out", "x.rpath", "--packed", "--moves", "1,2;2,1;1,1;3,0;0,3"]),
    # blocks now make paths from any start and closed tours (the block cycle), but not for a
    # leaper without a block table, nor closed knight tours on odd x odd boards
    Case(["path", "10", "--method", "blocks", "--moves", "0,5"], says="does not apply"),
    Case(["path", "11", "--method", "blocks", "--closed", "--moves", "knight", "--out", "x.rpath"]),
    Case(["path", "10", "--method", "magic"]),
    Case(["path", "10", "--tie-break", "left"]),
]

COUNT = [
    Case(["count", "0"]),
    Case(["count", "5x-1"]),
    Case(["count", "x5"]),
    Case(["count", "100000x100000", "--start", "0,0"], says="exhaustive search"),
    Case(["count", "99999999999x99999999999"], says="exhaustive search"),
    Case(["count", f"{HUGE}x1"]),
    Case(["count", "5", "--start", "0,0", "--limit", "0"], says="at least 1"),
    Case(["count", "5", "--start", "0,0", "--limit", "-3"]),
    Case(["count", "5", "--start", "0,0", "--limit", HUGE]),
    Case(["count", "5", "--limit", "3"], says="--start"),
    Case(["count", "5", "--seed", "3"], says="--start"),
    Case(["count", "5", "--start", "5,5"], says="outside"),
    Case(["count", "5", "--start", f"0,{HUGE}"], says="outside"),
    Case(["count", "5", "--start", "0,0", "--seed", "abc"]),
    Case(["count", "5", "--start", "0,0", "--all-starts"]),
    Case(["count", "5", "--moves", "queen"]),
    Case(["count", "5", "--jobs", "0"]),
    Case(["count", "5", "--jobs", HUGE]),
    Case(["count", "5", "--time", "-1"]),
    Case(["count", "5", "--time", "inf"]),
    Case(["count", "5", "--checkpoint", "/nonexistent/c.json"], says="does not exist"),
    Case(["count", "5", "--checkpoint", "c.txt"], says=".json"),
    Case(["count", "5", "--checkpoint", "{tmp}"]),
    Case(["count", "4x5", "--checkpoint", "c.json"], files={"c.json": RANDOM}, says="corrupt"),
    Case(["count", "4x5", "--checkpoint", "c.json"], files={"c.json": b""}, says="corrupt"),
    Case(["count", "4x5", "--checkpoint", "c.json"], files={"c.json": b"{"}, says="corrupt"),
    Case(["count", "4x5", "--checkpoint", "c.json"], files={"c.json": _tampered()}, says="edited"),
    Case(["count", "4x5", "--checkpoint", "c.json"], files={"c.json": _unchecked()}),
    Case(
        ["count", "5x4", "--checkpoint", "c.json"],
        files={"c.json": _checked(_checkpoint())},
        says="different problem",
    ),
    Case(["count", "5", "--scheduler", "{closed}"], says="scheduler"),
    Case(["count", "5", "--scheduler", "{http}"], says="scheduler"),
    Case(["count", "5", "--scheduler", "nonsense"], says="scheduler"),
    Case(["count", "4x5", "--scheduler", "{closed}", "--checkpoint", "c.json"]),
]

VERIFY = [
    Case(["verify-path", "missing.npy", "10"], says="no such file"),
    Case(["verify-path", "x.npy", "10"], files={"x.npy": RANDOM}, says="not a path"),
    Case(["verify-path", "x.npy", "10"], files={"x.npy": b""}),
    Case(["verify-path", "x.npy", "10"], files={"x.npy": npy_bytes(np.zeros(100, float))}),
    Case(["verify-path", "x.npy", "10"], files={"x.npy": npy_bytes(np.zeros((10, 10), int))}),
    Case(["verify-path", "x.npy"], files={"x.npy": NPY}, says="size"),
    Case(["verify-path", "x.npy", "0"], files={"x.npy": NPY}),
    Case(["verify-path", "x.npy", "10", "--start", "10,10"], files={"x.npy": NPY}),
    Case(["verify-path", "x.npy", "10", "--moves", "queen"], files={"x.npy": NPY}),
    Case(["verify-path", "x.npy", "10", "--jobs", "0"], files={"x.npy": NPY}),
    Case(["verify-path", "x.npy", "10", "--scheduler", "{closed}"], files={"x.npy": NPY}),
    Case(["verify-path", "{tmp}", "10"]),
    Case(["verify-path", "x.rpath"], files={"x.rpath": RANDOM}, says="rpath"),
    Case(["verify-path", "x.rpath"], files={"x.rpath": b""}),
    Case(["verify-path", "x.rpath"], files={"x.rpath": RPATH[:20]}),
    Case(["verify-path", "x.rpath", "7"], files={"x.rpath": RPATH}, says="1x4"),
    Case(["verify-path", "x.rpath", "--start", "5,5"], files={"x.rpath": RPATH}),
    Case(
        ["verify-path", "x.rpath", "--scheduler", "{closed}"],
        files={"x.rpath": RPATH},
        says="scheduler",
    ),
    Case(
        ["verify-path", "x.rpath", "--scheduler", "{http}"],
        files={"x.rpath": RPATH},
        says="scheduler",
    ),
]

LOOKUP = [
    Case(["path-at", "1000000", HUGE], says="at most"),
    Case(["path-at", "4", "3"], says="sides >= 10"),
    Case(["path-at", "5", "3", "--moves", "knight"], says="odd"),
    Case(["step-of", "12", "0,0", "--start", "12,0"]),
    Case(["path-at", "10", "0"]),
    Case(["path-at", "10", "101"]),
    Case(["path-at", "10", "-1"]),
    Case(["path-at", "10", "abc"]),
    Case(["path-at", "10", "1.5"]),
    Case(["path-at", HUGE, "1"]),
    Case(["path-at", "0", "1"]),
    Case(["path-at", "10"]),
    Case(["step-of", "10", "10,0"], says="outside"),
    Case(["step-of", "10", "x"]),
    Case(["step-of", "10", f"{HUGE},0"]),
    Case(["step-of", "10", "-1,0"]),
    Case(["step-of", "4", "0,0"]),
    Case(["step-of", HUGE, "0,0"]),
    Case(["step-of", "10"]),
]

CASES = PATH + COUNT + VERIFY + LOOKUP


def test_every_command_of_the_family_is_covered():
    commands = {c.argv[0] for c in CASES}
    assert commands == {"path", "count", "verify-path", "path-at", "step-of"}
    assert len(CASES) >= 60


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_refused_in_one_line(case, tmp_path, capsys, addresses):
    line = check_refused(case, tmp_path, capsys, addresses)
    # library messages talk about parameters, not flags the command may not have
    assert "--method greedy" not in line and "use greedy" not in line


def test_an_open_rpath_checked_as_a_closed_tour_is_a_verdict_not_a_crash(tmp_path, capsys):
    """``--closed`` on an ``.rpath`` file is checked (it was refused before the streaming
    verifier could check closure): the 1x4 path 0..3 does not close, one line, exit 1."""
    f = tmp_path / "x.rpath"
    f.write_bytes(RPATH)
    moves = ["--moves", "0,1;0,-1"]
    assert main(["verify-path", str(f), "--closed", *moves]) == 1
    out = capsys.readouterr()
    lines = out.out.strip().splitlines()
    assert len(lines) == 1 and "the path is not closed" in lines[0] and not out.err.strip()
    assert main(["verify-path", str(f), *moves]) == 0


def test_a_huge_board_where_no_move_fits_is_proved_impossible_at_once(capsys):
    """On a board 2 columns wide only the moves (+-3, 0) of caselle fit, and no sum of them
    joins two columns: a proof that needs no memory, so the answer is "impossible" (exit 1),
    not a refusal for the board's size (issue 28: no O(cells) work past --time)."""
    assert main(["path", f"{HUGE}x2", "--time", "2"]) == 1
    out = capsys.readouterr()
    assert "impossible: no sum of the caselle moves that fit" in out.out and not out.err
