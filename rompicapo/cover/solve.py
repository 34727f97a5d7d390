"""Solving exact-cover problems: first solution, at most k, all, count, lazy iteration, random,
limits by time and nodes, progress, and parallel counting (threads or a Dask cluster).

Every entry point returns a [`CoverResult`][rompicapo.cover.CoverResult] (or yields solutions
lazily); a solution is a list of option numbers of the [`Problem`][rompicapo.cover.Problem]. The
engine is chosen from the problem ([`plan_engine()`][rompicapo.cover.plan_engine]); the search over
it is `Search`; counting in parallel is `rompicapo.cover.counting`.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator, Sequence
from typing import Any

from rompicapo.common import (
    Deadline,
    InputError,
    Progress,
    ProgressCallback,
    Stopwatch,
    check_int,
    check_limit,
    check_node_limit,
    check_seed,
    check_time_limit,
    connect_scheduler,
    peak_rss_bytes,
    renamed_keywords,
    resolve_jobs,
    retired_keywords,
)
from rompicapo.cover import _kernel as K
from rompicapo.cover.counting import PARTS_PER_JOB, count_parallel, split
from rompicapo.cover.engine import (
    ENGINES,
    NODE_CHUNK,
    QUIET_CHUNK,
    STORE_BATCH,
    UNLIMITED,
    Search,
    as_problem,
    check_givens,
    check_keep_solutions,
    dropped_notes,
    plan_engine,
    search_bytes,
    warm_engine,
)
from rompicapo.cover.problem import Problem, ProblemArrays
from rompicapo.cover.result import CoverResult

__all__ = [
    "ENGINES",
    "CoverResult",
    "count",
    "estimate_remaining",
    "iter_solutions",
    "plan_engine",
    "search_bytes",
    "solve",
    "split",
]


def _drive(
    search: Search,
    *,
    limit: int | None,
    keep: int,
    deadline: Deadline,
    node_limit: int | None,
    progress: Progress,
) -> tuple[list[list[int]], int, bool, str | None]:
    """Call the kernel until the tree ends, a limit stops it, or Ctrl-C (the solutions found
    so far are kept: ``stopped`` is then ``"interrupted"``)."""
    watched = deadline.time_limit is not None or progress.callback is not None
    kept: list[list[int]] = []
    found = 0
    stopped = None
    nodes0 = int(search.counters[K.C_NODES])
    try:
        while not search.done:
            budget = NODE_CHUNK if watched else QUIET_CHUNK
            if node_limit is not None:
                left = node_limit - (int(search.counters[K.C_NODES]) - nodes0)
                if left <= 0:
                    stopped = "nodes"
                    break
                budget = min(budget, left)
            want = int(UNLIMITED) if limit is None else limit - found
            store = max(0, min(keep - len(kept), STORE_BATCH))
            if store > 0:  # pause when the store is full, so no kept solution is lost
                want = min(want, store)
            before = int(search.counters[K.C_SOLUTIONS])
            _, sols = search.run(stop_after=want, max_store=store, chunk_nodes=int(budget))
            found += int(search.counters[K.C_SOLUTIONS]) - before
            kept.extend(sols)
            progress.update(
                100 * search.progress(),
                counts={"solutions": found, "nodes": int(search.counters[K.C_NODES])},
                message=f"{found:,} solutions",
            )
            if limit is not None and found >= limit:
                stopped = "limit" if not search.done else None
                break
            if deadline.expired() and not search.done:
                stopped = "time"
                break
    except KeyboardInterrupt:
        stopped = "interrupted"
    return kept, found, search.done and stopped is None, stopped


@renamed_keywords(keep="keep_solutions")
def solve(
    problem: Problem | str | os.PathLike,
    *,
    limit: int | None = 1,
    keep_solutions: int | None = None,
    givens: Sequence[int] = (),
    seed: int | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
    engine: str = "auto",
) -> CoverResult:
    """Find solutions: the first (``limit=1``), at most ``limit``, or all (``limit=None``).

    ``problem`` is a [`Problem`][rompicapo.cover.Problem] or the name of a ``.dlx`` file (``"-"`` =
    stdin).
    ``keep_solutions`` bounds how many are stored (default: all found, up to ``limit``; 0 counts
    up to ``limit`` and keeps none; formerly ``keep``); ``givens`` are
    option numbers forced into every solution (contradicting givens give no solution);
    ``seed`` (any integer) shuffles the option and item order, so ``limit=1`` gives a random
    solution (reproducible, though not uniformly distributed); ``time_limit`` (seconds of wall
    clock for the whole call) and ``node_limit`` stop early; ``progress`` receives
    [`ProgressEvent`][rompicapo.common.ProgressEvent] objects (``done`` = percent of the tree, by
    Knuth's estimate); ``engine`` picks the kernel (see `ENGINES`; ``"auto"`` is right
    almost always). Ctrl-C stops the search and returns what was found
    (``stopped="interrupted"``). Every argument is checked before the search starts, the
    memory of its arrays included.

    ```pycon
    >>> from rompicapo.cover import parse_dlx
    >>> knuth = parse_dlx("a b c d e f g\\nc e\\na d g\\nb c f\\na d f\\nb g\\nd e g\\n")
    >>> result = solve(knuth)
    >>> result.solution, [knuth.describe(k) for k in result.solution], result.verify()
    ([3, 4, 0], ['a d f', 'b g', 'c e'], True)
    >>> result = solve(knuth, limit=None)  # all of them: the search ends, the count is exact
    >>> result.count, result.complete
    (1, True)

    ```"""
    deadline = Deadline(check_time_limit(time_limit))
    limit = check_limit(limit)
    keep = check_keep_solutions(keep_solutions)
    givens = check_givens(givens)
    seed = check_seed(seed)
    node_limit = check_node_limit(node_limit)
    events = Progress(progress, unit="%", total=100)
    problem = as_problem(problem)
    engine = plan_engine(problem.arrays(), engine)  # refused here, before compiling anything
    compile_seconds = warm_engine(engine)
    with Stopwatch() as sw:
        search = Search(problem.arrays(), givens=givens, seed=seed, engine=engine, planned=True)
        keep_n = (limit if limit is not None else 1 << 62) if keep is None else keep
        kept, found, complete, stopped = _drive(
            search,
            limit=limit,
            keep=keep_n,
            deadline=deadline,
            node_limit=node_limit,
            progress=events,
        )
    counts = search.counts()
    counts["solutions"] = found
    events.finish(counts=counts)
    return CoverResult(
        problem=problem,
        solutions=kept,
        count=found,
        complete=complete,
        stopped=stopped,
        algorithm=search.algorithm,
        solve_seconds=sw.seconds,
        compile_seconds=compile_seconds,
        peak_bytes=peak_rss_bytes(),
        counts=counts,
        notes=dropped_notes(problem),
    )


def iter_solutions(
    problem: Problem | str | os.PathLike,
    *,
    givens: Sequence[int] = (),
    seed: int | None = None,
    batch: int = 64,
    engine: str = "auto",
) -> Iterator[list[int]]:
    """Yield the solutions one by one, lazily: the search pauses between batches of ``batch``
    solutions (the first batch is a single one, so the first answer comes at once).

    ```pycon
    >>> from rompicapo.cover import queens_problem
    >>> solutions = iter_solutions(queens_problem(6))
    >>> next(solutions)  # the first, at once
    [1, 9, 17, 18, 34, 26]
    >>> 1 + sum(1 for _ in solutions)  # and the other three
    4

    ```"""
    givens = check_givens(givens)
    seed = check_seed(seed)
    batch = check_int(batch, "batch", minimum=1, maximum=STORE_BATCH)
    problem = as_problem(problem)
    engine = plan_engine(problem.arrays(), engine)
    warm_engine(engine)
    search = Search(problem.arrays(), givens=givens, seed=seed, engine=engine, planned=True)
    size = 1
    while not search.done:
        _, sols = search.run(stop_after=size, max_store=size, chunk_nodes=int(UNLIMITED))
        yield from sols
        size = min(batch, size * 4)


@retired_keywords(processes="the count runs on threads (the kernels release the GIL)")
def count(
    problem: Problem | str | os.PathLike,
    *,
    givens: Sequence[int] = (),
    jobs: int | None = None,
    scheduler: Any = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
    parts_per_job: int = PARTS_PER_JOB,
    engine: str = "auto",
) -> CoverResult:
    """Count every solution without keeping any (exact, 64-bit per kernel call, summed in
    Python integers across subproblems, so the total has no upper limit).

    ``jobs``: workers; None (the default) = all cores of this machine, 1 = in this process; more
    than the cores is capped (``notes`` says so). With several jobs or a Dask ``scheduler`` (an
    address, or a ``distributed.Client``), the tree is cut into about ``parts_per_job * jobs``
    subproblems ([`split()`][rompicapo.cover.split]) counted in parallel by
    [`rompicapo.common.run_jobs()`][rompicapo.common.run_jobs]: on this
    machine by threads (the kernels release the GIL, so threads need no start-up, where a spawned
    process first spends 0.5-1 s loading numba and the kernels; ``processes=``, which asked for
    processes, is accepted and ignored with a DeprecationWarning); ``counts`` then sums the workers'
    measures (plus the splitting) and their CPU time (``worker_cpu_ms_max``: the busiest worker,
    ``worker_cpu_ms_total``: all of them).

    ``time_limit`` covers the whole call (splitting and workers' start-up included): the workers
    stop when it runs out and ``count`` is then a lower bound (``stopped="time"``). A problem with
    multiplicities, ``givens`` or a ``node_limit`` is counted in one process: with ``jobs=None``
    silently (a note says so), with ``jobs > 1`` or a scheduler it is an
    [`InputError`][rompicapo.common.InputError]. The scheduler is reached
    ([`rompicapo.common.connect_scheduler()`][rompicapo.common.connect_scheduler]) before any work:
    a wrong address is one line within seconds. Ctrl-C stops the count and returns the lower bound
    so far (``stopped="interrupted"``).

    ```pycon
    >>> from rompicapo.cover import queens_problem
    >>> result = count(queens_problem(6), jobs=1)
    >>> result.count, result.complete, result.solutions
    (4, True, [])
    >>> print(result.report())
    4 solutions; 111 nodes, 626 updates; ... s

    ```"""
    deadline = Deadline(check_time_limit(time_limit))
    givens = check_givens(givens)
    node_limit = check_node_limit(node_limit)
    parts_per_job = check_int(parts_per_job, "parts_per_job", minimum=1, maximum=10**6)
    explicit = jobs is not None and check_int(jobs, "jobs", minimum=1, maximum=4096) > 1
    problem = as_problem(problem)
    arrays = problem.arrays()
    engine = plan_engine(arrays, engine)  # it applies and fits, before a scheduler or a split
    why_single = _why_single(arrays, givens, node_limit)
    if (explicit or scheduler is not None) and why_single is not None:
        raise InputError(f"parallel counting (jobs > 1 or a scheduler) cannot take {why_single}")
    n_jobs, note = resolve_jobs(jobs)
    notes = [note] if note else []
    if scheduler is None and (n_jobs == 1 or why_single is not None):
        if n_jobs > 1:
            notes.append(f"counted in one process ({why_single} cannot be split)")
        result = solve(
            problem, limit=None, keep_solutions=0, givens=givens, time_limit=deadline.time_left(),
            node_limit=node_limit, progress=progress, engine=engine,
        )  # fmt: skip
        result.notes = notes + result.notes
        return result
    events = Progress(progress, unit="parts")
    with _connected(scheduler) as scheduler:
        return count_parallel(
            problem, n_jobs, scheduler, parts_per_job, engine, events, notes, deadline,
        )  # fmt: skip


def _why_single(arrays: ProblemArrays, givens: list[int], node_limit: int | None) -> str | None:
    """Why a count cannot be split into subproblems, or None when it can."""
    if arrays.has_multiplicities:
        return "a problem with multiplicities"
    if givens:
        return "givens"
    if node_limit is not None:
        return "a node limit"
    return None


@contextlib.contextmanager
def _connected(scheduler: Any) -> Iterator[Any]:
    """The scheduler for the workers: an address is connected first (a wrong one costs
    seconds, not a split of the tree) and closed at the end; a client or None as given."""
    if scheduler is None or hasattr(scheduler, "submit"):
        yield scheduler
        return
    client = connect_scheduler(scheduler)
    try:
        yield client
    finally:
        client.close()


@renamed_keywords(seconds="elapsed")
def estimate_remaining(fraction: float, elapsed: float) -> float:
    """Seconds left after ``elapsed`` seconds (formerly ``seconds``) have searched ``fraction``
    of the tree, if it is as uniform as Knuth's progress estimate assumes."""
    if fraction <= 0:
        return math.inf
    return elapsed * (1 - fraction) / fraction
