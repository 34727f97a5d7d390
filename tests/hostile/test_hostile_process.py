"""Hostile surroundings of a whole process: full and closed streams, ASCII-only
terminals, a closed standard input, stop signals with the tree of worker processes checked,
a read-only working folder, two studies on one new database.

Each case runs ``python -m rompicapo`` in its own process (:mod:`.processes` checks the exit
status, the lines on stderr, no traceback, no "please report", no "Exception ignored", the
time, the processes it started gone 2 s after the signal, its inputs unchanged, nothing left
in the working or the temporary folder).
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from rompicapo.cover.problem import format_dlx
from rompicapo.cover.queens import queens_problem
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import format_pieces

from .processes import Run, check_process

DATA = Path(__file__).resolve().parents[1] / "data"
QUEENS_17 = format_dlx(queens_problem(17)).encode()
ASCII = {"PYTHONIOENCODING": "ascii"}

STREAMS = [
    Run(["queens", "8"], 1, says="cannot write the output: No space left on device", stdout="full"),
    Run(
        ["game", "nim", "3", "5", "8"],
        1,
        says="No space left on device",
        stdout="full",
        env={"PYTHONUNBUFFERED": "1"},
    ),
    Run(["path", "--help"], 1, says="No space left on device", stdout="full"),
    Run(["path", "10"], 1, says="standard output is closed", stdout="closed"),
    Run(["path", "0"], 2, stderr="full", stderr_lines=None),  # the one line cannot be written
    Run(["cover", "-"], 2, says="standard input is closed", stdin="closed"),
    Run(["sudoku", "solve", "-"], 2, says="standard input is closed", stdin="closed"),
    Run(["game", "play", "nim"], 2, says="standard input is closed", stdin="closed"),
]

ENCODINGS = [
    Run(["path", "--help"], 0, env=ASCII, stderr_lines=0),
    Run(["sudoku", "generate", "--help"], 0, env=ASCII, stderr_lines=0),
    Run(["game", "nim", "3", "5", "--misere"], 0, env=ASCII, stderr_lines=0),
    Run(["path", "10", "--out", "\u00fc.npy"], 0, env=ASCII, stderr_lines=0, leaves=("*.npy",)),
    Run(["edges", "--help"], 0, env={**ASCII, "LC_ALL": "C", "LANG": "C"}, stderr_lines=0),
]

EDGES = ["edges", "solve", "eternity2", "--time", "60", "--jobs", "2", "--quiet"]
# the signal comes once the worker process has reported a board (its progress file), plus 1 s
SEARCHING = "tmp:rompicapo-edges-*/job1.json"
BOARD = ("edges_best_*.txt",)


def stopped(argv: list[str], sig: int, **kw) -> Run:
    """``argv`` stopped by ``sig`` (exit 130) within 3 s, its workers gone 2 s after."""
    return Run(argv, 130, signal=sig, **{"stop_seconds": 3, "signal_after": 6, **kw})


SIGNALS = [
    # the best board saved (edges_best_SCORE.txt) and printed, the workers gone
    stopped(EDGES, signal.SIGTERM, signal_when=SEARCHING, signal_after=1, leaves=BOARD),
    stopped(EDGES, signal.SIGHUP, signal_when=SEARCHING, signal_after=1, leaves=BOARD),
    # a second signal 50 ms later loses nothing
    stopped(
        EDGES,
        signal.SIGTERM,
        signal_when=SEARCHING,
        signal_after=1,
        second_signal=0.05,
        leaves=BOARD,
    ),
    stopped(
        ["count", "7x7", "--checkpoint", "c.json", "--jobs", "2"],
        signal.SIGTERM,
        says="saved in c.json",
        leaves=("c.json",),
    ),
    # 17 queens: 95,815,104 solutions, minutes of counting on two threads
    stopped(["cover", "q17.dlx", "--jobs", "2"], signal.SIGTERM, files={"q17.dlx": QUEENS_17}),
    # a partial .rpath is kept beside the old file, resumable, and said so
    stopped(
        ["path", "15000", "--out", "z.rpath", "--quiet"],
        signal.SIGTERM,
        says="--resume",
        signal_when="z.rpath.part",
        signal_after=0.3,
        leaves=("z.rpath.part",),
    ),
    # Ctrl-C stops the removal of clues within one solver chunk (about 1 s on an idle core, 2 s
    # measured on the machine loaded 6x) and prints the puzzle reached
    stopped(["sudoku", "generate", "--box", "5x5"], signal.SIGINT, signal_after=8, stop_seconds=4),
]

# the default suite keeps one stop of edges solve (the double signal); the single SIGTERM and
# the SIGHUP take the same path (-m slow runs them)
SLOW = (SIGNALS[0], SIGNALS[1])
CASES = [
    pytest.param(run, marks=pytest.mark.slow, id=run.id)
    if run in SLOW
    else pytest.param(run, id=run.id)
    for run in STREAMS + ENCODINGS + SIGNALS
]


@pytest.mark.parametrize("run", CASES)
def test_a_hostile_process(run, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    got = check_process(run, work)
    if run in ENCODINGS:
        text = got.out.decode("ascii")  # ASCII only, whatever the text was
        assert text.strip()
        if run.argv[0] == "path" and "--help" in run.argv:
            assert "Posa rotations" in " ".join(text.split())
    if run.signal in (signal.SIGTERM, signal.SIGHUP) and run.argv[:2] == ["edges", "solve"]:
        saved = list(work.glob("edges_best_*.txt"))
        assert len(saved) == 1, "the best board was not kept"
        assert f"{saved[0].stem.split('_')[-1]}/480" in got.out.decode(), "nor printed"
    if run.argv[:2] == ["sudoku", "generate"] and run.signal:
        assert "clues, unique solution" in got.out.decode()


def test_a_read_only_working_folder_still_runs(tmp_path):
    """``edges solve`` with no output asked, in a folder that takes no file (``/proc``): the
    board of a stopped run would go to the temporary folder, said in a note, and the search
    runs (it refused to, because of that fallback file)."""
    pieces, _ = generate(5, 5, frame_colours=2, inner_colours=3, seed=2)
    source = tmp_path / "p.txt"
    source.write_text(format_pieces(pieces))
    work = tmp_path / "work"
    work.mkdir()
    # stderr: the note, and the first progress line
    run = Run(["edges", "solve", str(source), "--time", "10", "--jobs", "1"], 0,
              says="working folder cannot be written", stderr_lines=2, cwd="/proc")  # fmt: skip
    got = check_process(run, work)
    assert "score" in got.out.decode()


def test_two_studies_on_one_new_database_both_complete_without_running_a_job_twice(tmp_path):
    """Two ``edges study`` started together on a new file: the file is made once (it was
    "table meta already exists"), both exit 0, and the jobs they ran add up to the plan."""
    pieces, _ = generate(4, 4, frame_colours=2, inner_colours=3, seed=3)
    (tmp_path / "p.txt").write_text(format_pieces(pieces))
    argv = [sys.executable, "-m", "rompicapo", "edges", "study", "p.txt", "--db", "s.sqlite",
            "--nodes", "20000", "--seeds", "1", "--colour-sets", "sample:2", "--curves", "3",
            "--break-variants", "2", "--baseline-seeds", "3", "--jobs", "1", "--quiet"]  # fmt: skip
    procs = [
        subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (_, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0 and not err.strip(), err.decode()
    ran = [int(re.search(rb"(\d+) jobs run now", out).group(1)) for out, _ in outs]
    planned = {int(re.search(rb"left of (\d+)", out).group(1)) for out, _ in outs}
    assert len(planned) == 1 and sum(ran) == planned.pop(), outs
    import sqlite3

    with sqlite3.connect(tmp_path / "s.sqlite") as conn:
        total, distinct = conn.execute(
            "SELECT count(*), count(DISTINCT id) FROM results"
        ).fetchone()
        claims = conn.execute("SELECT count(*) FROM claims").fetchone()[0]
    assert total == distinct == sum(ran) and claims == 0
