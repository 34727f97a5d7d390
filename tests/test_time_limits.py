"""Every family's kernels honour ``time_limit`` inside one long call: a 0.2 s limit on a search
of minutes ends it within 0.5 s (stretched on a loaded machine), with the partial result marked.

Each search is warmed first (one tiny call with the same kernels), so compilation, which no
limit interrupts, is not part of the time. The searches, and how long they take unlimited on
the 2-core machines these tests run on: counting the 9x9 Sudoku grids up to 3,000,000 (about
2 s; unlimited, any limit up to 2^31 - 1 runs for hours), the 16-queens solutions (about 40 s),
the 5x7 paths from every start (seconds; the 6x6 board's, minutes), Connect Four's empty board
(about 20 s of CPU) and Blackwood's search on Eternity II (endless).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import psutil
import pytest
from hostile.processes import load_factor
from waiting import wait_until

LIMIT = 0.2
BOUND = 0.5  # the promise: the call returns within this many seconds of its start


def timed(call):
    t0 = time.perf_counter()
    result = call()
    return result, time.perf_counter() - t0


def check(result, seconds: float, stopped: str = "time") -> None:
    assert result.stopped == stopped
    assert seconds < BOUND * load_factor(), f"{seconds:.2f} s"


def test_sudoku_vector_kernel() -> None:
    from rompicapo.cover import sudoku

    sudoku.solve("." * 81, limit=5)  # warm
    result, seconds = timed(lambda: sudoku.solve("." * 81, limit=3_000_000, time_limit=LIMIT))
    check(result, seconds)
    assert 0 < result.count < 3_000_000 and not result.unique
    assert result.engine == "bitboard"


def test_exact_cover_queens() -> None:
    from rompicapo import cover

    cover.queens(6, jobs=1)
    result, seconds = timed(lambda: cover.queens(16, jobs=1, time_limit=LIMIT))
    check(result, seconds)
    assert 0 < result.count < 14_772_512  # OEIS A000170: 16 queens


def test_paths_count() -> None:
    from rompicapo import paths

    paths.count_paths(3, 4, jobs=1)
    result, seconds = timed(lambda: paths.count_paths(6, 6, jobs=1, time_limit=LIMIT))
    check(result, seconds)


def test_connect4_empty_board() -> None:
    from rompicapo.games import Connect4Solver

    solver = Connect4Solver()
    solver.solve("4455443")
    result, seconds = timed(lambda: solver.solve("", time_limit=LIMIT))
    check(result, seconds)
    assert result.score is None


@pytest.mark.parametrize("jobs", [1])
def test_edges_blackwood(jobs: int) -> None:
    from rompicapo import edges

    edges.solve("eternity2", time_limit=0.5, jobs=jobs)
    result, seconds = timed(lambda: edges.solve("eternity2", time_limit=LIMIT, jobs=jobs))
    check(result, seconds, "limit")
    assert result.verify()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_the_sudoku_vector_kernel_stops_on_a_signal(signum) -> None:
    # a count of minutes, inside one kernel call: the signal's handler could only run when the
    # call returned, so the stop request reads the signal on the side
    empty = "." * 81
    argv = [sys.executable, "-m", "rompicapo", "sudoku", "solve", empty, "--limit", "1000000000"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        worker = psutil.Process(proc.pid)
        assert wait_until(lambda: worker.cpu_times().user > 1.0, timeout=120)  # searching
        proc.send_signal(signum)
        t0 = time.perf_counter()
        _, err = proc.communicate(timeout=30)
        seconds = time.perf_counter() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert seconds < BOUND * load_factor(), f"{seconds:.2f} s"
