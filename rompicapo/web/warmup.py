"""Compiling the kernels as the server starts, so that the first click rarely waits.

numba compiles a kernel on its first call, or loads it from its cache (``NUMBA_CACHE_DIR``,
else ``__pycache__``, or the kernels shipped compiled with the wheel) when an earlier run
compiled it. On a cold cache without shipped kernels the first Sudoku took 17 s and the first
Connect Four answer about 40 s on a loaded 2-core machine. So `start_warm_up()` hands
`warm_up()` to a warm-up worker of its own as soon as the server starts
(`rompicapo.web.jobs.JobManager.warm_up()`): it compiles what the pages ask first (Sudoku,
Connect Four, N queens and the exact-cover engine, the path map), then the Eternity II search,
and ends; the quick lane's worker then loads each from the cache, after any request waiting.
No request waits behind the compilation of another solver; one that needs a solver not
compiled yet compiles it itself, and its page says "compiling the solver (once, about N s)"
from ``/api/health``.

What each solver's warm-up runs is `rompicapo.warmup`'s task of the same kernels (the one
list that ``rompicapo warm-up`` compiles too): `TASKS` names it.
"""

from __future__ import annotations

from typing import Any

from rompicapo.warmup import run_task

__all__ = ["ESTIMATES", "TASKS", "start_warm_up", "warm_up"]

# Seconds each warm-up took on a cold cache without shipped kernels (Intel Xeon, 2 cores, load
# 7 to 12 from the other users of the machine; four cold starts: Sudoku 71-140 s, Connect Four
# 23-42, queens and the exact-cover engine 42-60, paths 16-25, Eternity II 41-65): what the page
# announces while it runs. On a warm cache, or with the shipped kernels, each takes a second.
ESTIMATES = {"sudoku": 90.0, "connect4": 35.0, "queens": 50.0, "paths": 20.0, "edges": 55.0}
# the playground's solvers and the task of rompicapo.warmup that compiles each one's kernels
TASKS = {
    "sudoku": "Sudoku solver",
    "connect4": "Connect Four solver",
    "queens": "exact-cover solver",
    "paths": "path solvers, counter and verifier",
    "edges": "Eternity II search and improver",
}
# What the warm-up worker compiles, in this order, and which lane then loads it from the cache
# (after the pages' requests): the quick lane what the pages ask first; the job workers load
# the Eternity II search themselves, at a search's start.
PLAN = (("quick", "sudoku"), ("quick", "connect4"), ("quick", "queens"), ("quick", "paths"),
        (None, "edges"))  # fmt: skip


def warm_up(family: str) -> float:
    """Compile (or load from numba's cache) the kernels the playground uses for ``family``
    (one of `TASKS`) in this process; the seconds it took."""
    if family not in TASKS:
        raise ValueError(f"no warm-up for {family!r}")
    return run_task(TASKS[family])


def start_warm_up(manager: Any) -> None:
    """Queue every `warm_up()` of `PLAN` in the manager's warm-up worker."""
    for lane, family in PLAN:
        manager.warm_up(family, warm_up, ESTIMATES[family], reload_lane=lane)
