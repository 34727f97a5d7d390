"""Compiling the kernels as the server starts, so that the first click rarely waits.

numba compiles a kernel on its first call, or loads it from its cache (``NUMBA_CACHE_DIR``,
else ``__pycache__``) when an earlier run compiled it. On a cold cache the first Sudoku took
17 s and the first Connect Four answer about 40 s on a loaded 2-core machine. So
:func:`start_warm_up` hands :func:`warm_up` to a warm-up worker of its own as soon as the
server starts (:meth:`rompicapo.web.jobs.JobManager.warm_up`): it compiles what the pages ask
first (Sudoku, Connect Four, N queens and the exact-cover engine, the path map), then the
Eternity II search, and ends; the quick lane's worker then loads each from the cache, after
any request waiting. No request waits behind the compilation of another solver; one that needs
a solver not compiled yet compiles it itself, and its page says "compiling the solver (once,
about N s)" from ``/api/health``.

:func:`warm_up` calls only the families' public API, each on a tiny input: it is the one place
to swap for a shared warm-up API.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["ESTIMATES", "start_warm_up", "warm_up"]

# Seconds each warm-up took on a cold cache (Intel Xeon, 2 cores, load 7 to 12 from the other
# users of the machine; four cold starts: Sudoku 71-140 s, Connect Four 23-42, queens and the
# exact-cover engine 42-60, paths 16-25, Eternity II 41-65): what the page announces while it
# runs. On a warm cache each takes about a second.
ESTIMATES = {"sudoku": 90.0, "connect4": 35.0, "queens": 50.0, "paths": 20.0, "edges": 55.0}
# What the warm-up worker compiles, in this order, and which lane then loads it from the cache
# (after the pages' requests): the quick lane what the pages ask first; the job workers load
# the Eternity II search themselves, at a search's start.
PLAN = (("quick", "sudoku"), ("quick", "connect4"), ("quick", "queens"), ("quick", "paths"),
        (None, "edges"))  # fmt: skip
EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def warm_up(family: str) -> float:
    """Compile (or load from numba's cache) the kernels the playground uses for ``family``
    (one of :data:`ESTIMATES`) in this process; the seconds it took."""
    t0 = time.perf_counter()
    if family == "sudoku":  # what the page's first Solve runs: the solve and its check
        from rompicapo.cover import sudoku

        sudoku.solve(EASY, limit=2).verify()
    elif family == "queens":  # and the exact-cover engine of packings and .dlx problems
        from rompicapo.cover import queens

        queens(6, jobs=1)
    elif family == "connect4":
        from rompicapo.games.connect4 import Connect4Solver

        Connect4Solver(table_log2=12).try_solve("4455", weak=True, node_limit=1000)
    elif family == "paths":
        from rompicapo.paths import steps_of

        steps_of(10, 10, [(0, 0)])
    elif family == "edges":
        from rompicapo.edges.blackwood import search
        from rompicapo.edges.puzzle import eternity2, load_clues

        puzzle = eternity2()
        search(puzzle, load_clues(None, puzzle), time_limit=None, node_limit=1000, seed=0)
    else:
        raise ValueError(f"no warm-up for {family!r}")
    return time.perf_counter() - t0


def start_warm_up(manager: Any) -> None:
    """Queue every :func:`warm_up` of :data:`PLAN` in the manager's warm-up worker."""
    for lane, family in PLAN:
        manager.warm_up(family, warm_up, ESTIMATES[family], reload_lane=lane)
