"""Counting in parallel: the search tree cut into subproblems ([`split()`][rompicapo.cover.split]),
counted by threads of this process or on a Dask cluster (`count_parallel()`, behind
[`rompicapo.cover.count()`][rompicapo.cover.count]), the workers' measures summed.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from typing import Any

from rompicapo.common import Deadline, Progress, Stopwatch, peak_rss_bytes
from rompicapo.cover import _kernel as K
from rompicapo.cover.engine import (
    NODE_CHUNK,
    QUIET_CHUNK,
    STORE_BATCH,
    UNLIMITED,
    Search,
    dropped_notes,
    plan_engine,
    warm_engine,
)
from rompicapo.cover.problem import Problem, ProblemArrays
from rompicapo.cover.result import CoverResult

__all__ = ["PARTS_PER_JOB", "count_parallel", "split"]


#: Subproblems per worker in a parallel count. Measured on pento-6x10 with 2 threads: 8 gave
#: 28 parts and a busiest worker at 1.31 of 2.58 s CPU (1.95x); the next split depth (288
#: parts) adds 4% of set-up CPU (one search built per part) and balances no better.
PARTS_PER_JOB = 8

#: Stop flags of parallel counts running in threads of this process, by the count's token:
#: Ctrl-C sets its flag so the threads stop within one chunk of nodes (a thread cannot be
#: interrupted inside a kernel). Worker processes do not see it (they get Ctrl-C themselves).
_STOPS: dict[int, threading.Event] = {}
_TOKENS = itertools.count(1)


def _count_job(
    job: tuple[ProblemArrays, list[list[int]], str, float | None, int],
) -> tuple[int, int, int, int, float, tuple[int, int], bool]:
    """Count the solutions under each prefix (a worker's share): (count, nodes, updates,
    cleansings, CPU seconds of this thread, (process id, thread id), stopped early). ``end``
    is the wall-clock time (``time.time()``) to stop at, or None; the kernel runs in chunks
    of nodes so the clock and the stop flag are looked at now and then."""
    cpu0 = time.thread_time()
    arrays, prefixes, engine, end, token = job
    stop = _STOPS.get(token)
    total = nodes = updates = cleansings = 0
    stopped = False
    budget = NODE_CHUNK if end is not None else QUIET_CHUNK
    engine = plan_engine(arrays, engine)
    layout = None
    for prefix in prefixes:
        if (end is not None and time.time() >= end) or (stop is not None and stop.is_set()):
            stopped = True
            break
        search = Search(arrays, givens=prefix, engine=engine, planned=True, layout=layout)
        layout = search.layout
        while not search.done:
            search.run(stop_after=int(UNLIMITED), max_store=0, chunk_nodes=budget)
            if search.done:
                break
            if (end is not None and time.time() >= end) or (stop is not None and stop.is_set()):
                stopped = True
                break
        c = search.counters
        total += int(c[K.C_SOLUTIONS])
        nodes += int(c[K.C_NODES])
        updates += int(c[K.C_UPDATES])
        cleansings += int(c[K.C_CLEANSINGS])
        if stopped:
            break
    worker = (os.getpid(), threading.get_ident())
    return total, nodes, updates, cleansings, time.thread_time() - cpu0, worker, stopped


def split(
    problem: Problem, min_parts: int, *, max_depth: int = 6, engine: str = "auto"
) -> list[list[int]]:
    """Cut the search tree into at least ``min_parts`` subproblems (prefixes of options that
    the search would choose on its first levels), or as many as ``max_depth`` levels give.

    ```pycon
    >>> from rompicapo.cover import count, queens_problem
    >>> problem = queens_problem(6)
    >>> parts = split(problem, 4)
    >>> len(parts), parts[:3]
    (6, [[0], [1], [2]])
    >>> sum(count(problem, givens=part, jobs=1).count for part in parts)  # 6 queens: 4 solutions
    4

    ```"""
    arrays = problem.arrays()
    prefixes: list[list[int]] = []
    for depth in range(1, max_depth + 1):
        search = Search(arrays, engine=engine)
        prefixes = []
        while not search.done:
            _, part = search.run(
                stop_after=STORE_BATCH,
                max_store=STORE_BATCH,
                chunk_nodes=int(UNLIMITED),
                split_depth=depth,
            )
            prefixes.extend(part)
        if len(prefixes) >= min_parts:
            break
    return prefixes


def count_parallel(
    problem: Problem,
    jobs: int,
    scheduler: Any,
    parts_per_job: int,
    engine: str,
    events: Progress,
    notes: list[str],
    deadline: Deadline,
) -> CoverResult:
    """Count ``problem``'s solutions on ``jobs`` threads of this process (the kernels release
    the GIL) or on a Dask ``scheduler`` (a client): the tree is cut into
    about ``parts_per_job * jobs`` subproblems ([`split()`][rompicapo.cover.split]) dealt out
    round-robin;
    ``events`` hears each group finish, ``deadline`` stops the workers. What
    [`rompicapo.cover.count()`][rompicapo.cover.count] runs once its arguments are checked."""
    from rompicapo.common import run_jobs

    arrays = problem.arrays()
    search0 = Search(arrays, engine=engine)  # checks the engine and the memory up front
    compile_seconds = warm_engine(search0.engine)
    total = nodes = updates = cleansings = 0
    cpu_by_worker: dict[tuple[int, int], float] = {}
    stopped = None
    with Stopwatch() as sw:
        n_parts = parts_per_job * jobs
        prefixes = split(problem, n_parts, engine=engine)
        # deal the prefixes round-robin so every job gets early and late parts of the
        # tree; many small jobs, handed out as workers free up, keep the ending balanced
        n_groups = min(len(prefixes), n_parts)
        groups = [prefixes[g::n_groups] for g in range(n_groups)] if prefixes else []
        events.total = len(groups)
        pool = {} if scheduler is not None else {"threads": True}
        # wall-clock end for the workers (time.time(): the same clock in every process of
        # this machine; monotonic clocks are not comparable across processes)
        end = None if deadline.time_limit is None else time.time() + deadline.remaining()
        token = next(_TOKENS)
        _STOPS[token] = threading.Event()
        finished = run_jobs(
            _count_job,
            [(arrays, g, engine, end, token) for g in groups],
            n_jobs=jobs,
            scheduler=scheduler,
            **pool,
        )
        try:
            for done, (_, (n, nd, up, cl, cpu, worker, cut)) in enumerate(finished, start=1):
                cpu_by_worker[worker] = cpu_by_worker.get(worker, 0.0) + cpu
                total += n
                nodes += nd
                updates += up
                cleansings += cl
                if cut and stopped is None:
                    stopped = "time"
                events.update(done, counts={"solutions": total}, message=f"{total:,} solutions")
        except KeyboardInterrupt:
            stopped = "interrupted"
            _STOPS[token].set()  # the threads stop within a chunk, so closing does not wait
            finished.close()
        finally:
            _STOPS.pop(token, None)
    counts = {
        "nodes": nodes,
        "updates": updates,
        "cleansings": cleansings,
        "solutions": total,
        "parts": len(prefixes),
        "workers": len(cpu_by_worker),
        # CPU milliseconds of the busiest worker and of all: on idle cores the wall
        # time approaches the first; its ratio to a one-process run is the speed-up
        "worker_cpu_ms_max": round(1000 * max(cpu_by_worker.values(), default=0.0)),
        "worker_cpu_ms_total": round(1000 * sum(cpu_by_worker.values())),
    }
    events.finish(counts=counts)
    return CoverResult(
        problem=problem,
        count=total,
        complete=stopped is None,
        stopped=stopped,
        algorithm=search0.algorithm,
        jobs=jobs,
        solve_seconds=sw.seconds,
        compile_seconds=compile_seconds,
        peak_bytes=peak_rss_bytes(),
        counts=counts,
        notes=notes + dropped_notes(problem),
    )
