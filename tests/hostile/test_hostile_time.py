"""Every limit holds on every shape: ``--time 2`` ends a command within 2 s more.

A property test draws shapes for each command that takes ``--time`` (1 x n, n x 1, n x n,
huge and degenerate boards, regions, boxes, problems and tables) and runs it in its own
process, measuring the wall time from the start of the process to its end (start-up, loading
numba's compiled kernels and the output included). The bound asserted: the run ends within
``LIMIT + OVERRUN`` seconds (2 + 2), the overrun stretched by :func:`.processes.load_factor`
on a loaded machine. A run that overran is run once more before the verdict: the first run of
a kernel after installing compiles it (numba, not interrupted: it is cached for every later
run), which no limit can cover.

The exit status is 0, 1 (no answer within the limit, for commands that answer yes or no), 2
(a shape refused up front: too big for memory, ...) or 130 (stopped by the watchdog before any
result); never a traceback or "please report". The default suite runs the shapes named in the
issue (:data:`ISSUE_SHAPES`); ``-m slow`` draws the rest. With ``ROMPICAPO_TIME_LOG=FILE`` each
run appends ``command, argv, seconds`` to FILE (the figures of the change's notes).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .processes import load_factor

LIMIT = 2.0  # --time
OVERRUN = 2.0  # the promise: no command overruns --time by more than this

DATA = Path(__file__).resolve().parents[1] / "data"

# the shapes of the issue: each ran 7 s to minutes past its limit before
ISSUE_SHAPES = [
    ["count", "1x100000"],
    ["polyomino", "--region", "100000x1", "--pieces", "tetrominoes"],
    ["queens", "1000"],
    ["sudoku", "generate", "--box", "5x5"],
    ["game", "grundy", "octal", "0.777777", "--upto", "10000"],
    ["path", "1x100000", "--method", "greedy"],
    ["game", "pig", "--goal", "400"],  # value iteration over 32 M states: minutes
]


def _run(argv: list[str], folder: Path) -> tuple[int, float, str]:
    env = {**os.environ, "TMPDIR": str(folder)}
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "rompicapo", *argv, "--time", f"{LIMIT:g}"],
        cwd=folder,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=120,
    )
    return proc.returncode, time.monotonic() - t0, proc.stderr.decode(errors="replace")


def check_limit_holds(argv: list[str], folder: Path) -> float:
    """Run ``argv --time 2``; assert the status and the bound; return the seconds taken."""
    bound = LIMIT + OVERRUN * load_factor()
    status, seconds, err = _run(argv, folder)
    if seconds > bound:  # a first run compiles what numba had not cached: once more
        status, seconds, err = _run(argv, folder)
    log = os.environ.get("ROMPICAPO_TIME_LOG")
    if log:
        with open(log, "a") as fh:
            fh.write(json.dumps({"argv": argv, "seconds": round(seconds, 2), "status": status}))
            fh.write("\n")
    label = f"{' '.join(argv)} --time {LIMIT:g}: exit {status} after {seconds:.1f} s\n{err}"
    assert status in (0, 1, 2, 130), label
    assert "Traceback" not in err and "please report" not in err, label
    assert seconds <= bound, f"over the bound of {bound:.1f} s: {label}"
    return seconds


@pytest.mark.parametrize("argv", ISSUE_SHAPES, ids=" ".join)
def test_the_issues_shapes_keep_the_time_limit(argv, tmp_path):
    check_limit_holds(argv, tmp_path)


# ---- the drawn shapes ---------------------------------------------------------------------

SIDES = st.sampled_from([1, 2, 3, 5, 7, 10, 40, 300, 3000, 100_000, 10**9])


def _shape() -> st.SearchStrategy[str]:
    """1 x n, n x 1, n x n or r x c, n from degenerate to huge."""
    return st.one_of(
        SIDES.map(lambda n: f"1x{n}"),
        SIDES.map(lambda n: f"{n}x1"),
        SIDES.map(lambda n: f"{n}x{n}"),
        st.tuples(SIDES, SIDES).map(lambda rc: f"{rc[0]}x{rc[1]}"),
    )


def _dlx(kind: str, n: int, folder: Path) -> str:
    """A .dlx file of an odd shape: one item in n options, n items in one option, or n
    queens from the shared test data."""
    if kind == "queens":
        return str(DATA / "exact-cover" / f"queens-{min(max(n, 8), 15)}.dlx")
    items = [f"i{k}" for k in range(n)]
    text = " ".join(items) + "\n"
    text += " ".join(items) + "\n" if kind == "wide" else "".join(f"{x}\n" for x in items)
    path = folder / f"{kind}-{n}.dlx"
    path.write_text(text)
    return str(path)


COMMANDS = {
    "path": st.tuples(
        _shape(), st.sampled_from([[], ["--method", "greedy"], ["--moves", "knight"]])
    ).map(lambda a: ["path", a[0], *a[1]]),
    "count": st.tuples(_shape(), st.sampled_from([[], ["--start", "0,0"], ["--closed"]])).map(
        lambda a: ["count", a[0], *a[1]]
    ),
    "queens": st.sampled_from([1, 2, 3, 8, 13, 200, 1000]).map(lambda n: ["queens", str(n)]),
    "polyomino": st.tuples(_shape(), st.sampled_from(["pentominoes", "tetrominoes"])).map(
        lambda a: ["polyomino", "--region", a[0], "--pieces", a[1]]
    ),
    "sudoku generate": st.tuples(st.integers(1, 6), st.integers(1, 6)).map(
        lambda b: ["sudoku", "generate", "--box", f"{b[0]}x{b[1]}"]
    ),
    "sudoku solve": st.tuples(st.integers(2, 6), st.integers(2, 6)).map(
        lambda b: ["sudoku", "solve", "." * (b[0] * b[1]) ** 2, "--box", f"{b[0]}x{b[1]}"]
    ),
    "sudoku rate": st.tuples(st.integers(2, 6), st.integers(2, 6)).map(
        lambda b: ["sudoku", "rate", "." * (b[0] * b[1]) ** 2, "--box", f"{b[0]}x{b[1]}"]
    ),
    "game grundy": st.one_of(
        st.integers(1, 12).map(lambda k: ["game", "grundy", "octal", "0." + "7" * k]),
        st.integers(1, 60).map(
            lambda k: ["game", "grundy", "subtract", ",".join(str(3 * i + 1) for i in range(k))]
        ),
    ).map(lambda a: [*a, "--upto", "10000"]),
    "edges solve": st.tuples(
        st.sampled_from(["2x2", "2x30", "30x2", "8x8", "eternity2"]),
        st.sampled_from([["--jobs", "1"], []]),
    ).map(
        lambda a: [
            "edges",
            "solve",
            *(["eternity2"] if a[0] == "eternity2" else ["p.txt"]),
            *a[1],
            "--quiet",
            "#" + a[0],
        ]
    ),
}


def _prepare(argv: list[str], folder: Path) -> list[str]:
    """Files some commands need (an edges puzzle of the drawn size), written into ``folder``."""
    if argv[:2] == ["edges", "solve"]:
        size = argv.pop()[1:]
        if size != "eternity2":
            from rompicapo.edges.generate import generate
            from rompicapo.edges.puzzle import format_pieces

            rows, cols = (int(x) for x in size.split("x"))
            pieces, _ = generate(rows, cols, frame_colours=2, inner_colours=3, seed=1)
            (folder / "p.txt").write_text(format_pieces(pieces))
    return argv


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_shape_keeps_the_time_limit(command, tmp_path_factory):
    """Drawn shapes of ``command``, each run with ``--time 2``."""

    @settings(max_examples=8, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(argv=COMMANDS[command])
    def check(argv):
        folder = tmp_path_factory.mktemp("t")
        check_limit_holds(_prepare(list(argv), folder), folder)

    check()


@pytest.mark.slow
@settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(kind=st.sampled_from(["wide", "tall", "queens"]), n=st.sampled_from([1, 10, 3000, 200_000]))
def test_every_cover_shape_keeps_the_time_limit(kind, n, tmp_path_factory):
    folder = tmp_path_factory.mktemp("c")
    check_limit_holds(["cover", _dlx(kind, n, folder)], folder)
