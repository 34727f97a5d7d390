"""Solving exact-cover problems: first solution, at most k, all, count, lazy iteration, random,
limits by time and nodes, progress, and parallel counting (threads, processes or a Dask
cluster).

Every entry point returns a :class:`CoverResult` (or yields solutions lazily); a solution is a
list of option numbers of the :class:`~rompicapo.cover.problem.Problem`. The engine is chosen
from the problem (see :class:`_Search`): Algorithm X on dancing cells
(:mod:`rompicapo.cover._cells_kernel`) or on dancing links, Algorithm C (colours) on dancing
links, Algorithm M (multiplicities) on dancing links (:mod:`rompicapo.cover._kernel`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from rompicapo.common import InputError, SearchResult, Stopwatch, jit_warmup, peak_rss_bytes
from rompicapo.cover import _cells_kernel as CK
from rompicapo.cover import _kernel as K
from rompicapo.cover.problem import Problem, ProblemArrays

__all__ = ["CoverResult", "count", "iter_solutions", "solve"]

#: Nodes per kernel call when something (a clock, a progress bar) must be looked at between
#: calls: DLX visits roughly 5-20 M nodes per second, so this is tens of milliseconds.
_NODE_CHUNK = 200_000
#: The search engines: dancing cells, dancing links (X/C), dancing links with multiplicities.
ENGINES = ("auto", "cells", "links", "m")
#: Solutions stored per kernel call (the store is this many rows of one level each).
_STORE_BATCH = 4096
#: Subproblems per worker in a parallel count. Measured on pento-6x10 with 2 threads: 8 gave
#: 28 parts and a busiest worker at 1.31 of 2.58 s CPU (1.95x); the next split depth (288
#: parts) adds 4% of set-up CPU (one search built per part) and balances no better.
_PARTS_PER_JOB = 8
#: Dancing cells copy every item's set size when they enter a level and back when they leave
#: it, where dancing links touch only what they unlink; so "auto" compares that copy (the
#: number of items) with the work of taking an option (:func:`_copy_to_work_ratio`).
#: Measured (CPU time of links over cells): pentominoes, ratio 0.01-0.02, cells 2.5-2.7x
#: faster; Langford pairs, 0.24, 1.27x; queens, 0.44, 1.11-1.16x; 9x9 Sudoku, 2.25, even
#: (637 and 618 puzzles/s, one call per puzzle); 16x16 Sudoku, 4.0, links 1.13x faster.
_CELLS_MAX_COPY_RATIO = 3.0
#: A budget that never runs out.
_UNLIMITED = np.int64(2**62)


@dataclass
class CoverResult(SearchResult):
    """What a search found.

    ``solutions`` holds the solutions kept (lists of option numbers, givens included);
    ``count`` is the number found, the exact total when ``complete`` (the whole search tree was
    explored); ``stopped`` says why a search ended early (``"limit"``, ``"time"``, ``"nodes"``)
    or is ``None``. ``counts`` holds Knuth's measures: ``nodes``, ``updates``, ``cleansings``,
    ``max_level``. ``verify()`` checks every kept solution with :mod:`rompicapo.cover.verify`.
    """

    problem: Problem | None = None
    solutions: list[list[int]] = field(default_factory=list)
    count: int = 0
    complete: bool = False
    stopped: str | None = None
    algorithm: str = "X"
    jobs: int = 1

    @property
    def solution(self) -> list[int] | None:
        """The first solution kept, or None."""
        return self.solutions[0] if self.solutions else None

    def verify(self) -> bool:
        from rompicapo.cover.verify import cover_violations

        assert self.problem is not None
        return all(not cover_violations(self.problem, s) for s in self.solutions)

    def as_dict(self) -> dict:
        """A JSON-ready summary (what ``rompicapo cover --json`` prints)."""
        p = self.problem
        return {
            "algorithm": self.algorithm,
            "items": {"primary": len(p.primary), "secondary": len(p.secondary)} if p else None,
            "options": len(p.options) if p else None,
            "solutions": self.count,
            "complete": self.complete,
            "stopped": self.stopped,
            "nodes": self.counts.get("nodes", 0),
            "updates": self.counts.get("updates", 0),
            "cleansings": self.counts.get("cleansings", 0),
            "jobs": self.jobs,
            "solve_seconds": round(self.solve_seconds, 6),
            "compile_seconds": round(self.compile_seconds, 6),
            "peak_bytes": self.peak_bytes,
            "kept": [sorted(s) for s in self.solutions],
        }


def _warm() -> float:
    """Compile (or load from numba's cache) the kernels on a tiny problem; seconds taken."""

    def tiny() -> None:
        a = Problem(primary=["a", "b"], secondary=["x"])
        a.add_option(["a", "x"], colors={"x": 1})
        a.add_option(["b", "x"], colors={"x": 1})
        b = Problem(primary=["a", "b"], secondary=["x"])
        b.add_option(["a", "x"])
        b.add_option(["b"])
        for arrays, engine in ((a.arrays(), "links"), (a.arrays(), "m"), (b.arrays(), "cells")):
            search = _Search(arrays, engine=engine)
            search.run(stop_after=2, max_store=2, node_budget=_UNLIMITED, split_depth=-1)
            if engine != "m":
                _Search(arrays, givens=[0], engine=engine).run(
                    stop_after=1, max_store=0, node_budget=_UNLIMITED, split_depth=1
                )

    return jit_warmup("cover.dlx", tiny)


def _copy_to_work_ratio(a: ProblemArrays) -> float:
    """Items (what dancing cells copy per level) over the mean work of taking an option: for
    each of its items, that item's option count, times the option's length (the entries a
    take walks when every option is still there)."""
    if a.n_options == 0 or a.n_items == 0:
        return 0.0
    set_len = np.bincount(a.option_items, minlength=a.n_items)
    opt_len = np.diff(a.option_start)
    sums = np.concatenate(([0], np.cumsum(set_len[a.option_items])))
    walked = (sums[a.option_start[1:]] - sums[a.option_start[:-1]]) * opt_len
    return a.n_items / max(float(walked.mean()), 1.0)


class _Search:
    """One resumable search over one problem (a kernel's arrays and state).

    ``engine``: ``"cells"`` (dancing cells, sparse sets, Algorithm X with uncoloured secondary
    items), ``"links"`` (dancing links, Algorithms X and C), ``"m"`` (dancing links,
    Algorithm M), or ``"auto"``: cells when nothing is coloured, every bound is 1 and the
    per-level copy of cells is small next to the work of a step (``_CELLS_MAX_COPY_RATIO``),
    else links or M (multiplicities). Dancing cells
    stop taking an option as soon as an item would lose its last option, so they visit a
    third of the nodes and fewer updates than links on pentominoes, and their unsigned arrays
    skip numba's negative-index test: measured 2.6x faster than links on pento-6x10, 1.27x on
    Langford pairs, 1.11-1.16x on queens (benchmarks/cover_dlx.py --engines).
    """

    def __init__(
        self,
        arrays: ProblemArrays,
        *,
        givens: Sequence[int] = (),
        seed: int | None = None,
        engine: str = "auto",
    ) -> None:
        a = arrays
        self.arrays = a
        if engine == "auto":
            if a.has_multiplicities:
                engine = "m"
            elif a.has_colors or _copy_to_work_ratio(a) > _CELLS_MAX_COPY_RATIO:
                engine = "links"
            else:
                engine = "cells"
        if engine not in ENGINES:
            raise InputError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        if engine == "cells" and (a.has_colors or a.has_multiplicities):
            raise InputError("dancing cells here handle neither colours nor multiplicities")
        if engine == "links" and a.has_multiplicities:
            raise InputError("multiplicities need Algorithm M (engine 'm')")
        self.engine = engine
        self.use_m = engine == "m"
        n_options = a.n_options
        if seed is None:
            option_order = np.arange(n_options, dtype=np.int32)
            item_order = np.arange(a.n_primary, dtype=np.int32)
        else:
            # a random solution: shuffle the order of the options in every item's list and the
            # order of the items (which breaks MRV ties), as Knuth's DLX does with seed s
            rng = np.random.default_rng(seed)
            option_order = rng.permutation(n_options).astype(np.int32)
            item_order = rng.permutation(a.n_primary).astype(np.int32)
        levels = int(a.upper.sum()) + a.n_primary + 1 if self.use_m else a.n_primary + 1
        self.levels = levels
        self.choice = np.zeros(levels, np.int32)
        self.choice_k = np.zeros(levels, np.int64)
        self.choice_d = np.zeros(levels, np.int64)
        self.state = np.zeros(CK.N_STATE, np.int64)
        self.counters = np.zeros(K.N_COUNTERS, np.int64)
        if engine == "cells":
            self.cells = CK.build_cells(
                a.n_primary, a.n_items, a.option_start, a.option_items, option_order, item_order
            )
            # unsigned, as every array of the cells kernel (see its module docstring)
            self.choice = np.zeros(levels, np.uint32)
            self.best = np.zeros(levels, np.uint32)
            self.saved_before = np.zeros((levels, a.n_items), np.uint32)
            self.saved_after = np.zeros((levels, a.n_items), np.uint32)
            self.saved_active = np.zeros((levels, 2), np.uint32)
            self.state[CK.STATE_ACTIVE] = a.n_primary
        else:
            self.links = K.build_links(
                a.n_primary,
                a.n_items,
                a.option_start,
                a.option_items,
                a.option_colors,
                option_order,
                item_order,
            )
            # remaining multiplicity per primary item (all 1 for Algorithms X, C) and slack
            self.bound = np.zeros(a.n_items + 2, np.int32)
            self.slack = np.zeros(a.n_items + 2, np.int32)
            self.bound[1 : a.n_primary + 1] = a.upper
            self.slack[1 : a.n_primary + 1] = a.upper - a.lower
            self.first_tweak = np.zeros(levels, np.int32)
        self.givens = [int(g) for g in givens]
        if self.givens:
            self._commit_givens()

    def _commit_givens(self) -> None:
        a = self.arrays
        if self.use_m:
            raise InputError("givens (fixed options) need a problem without multiplicities")
        if not all(0 <= g < a.n_options for g in self.givens):
            raise InputError(f"a given option number is outside 0..{a.n_options - 1}")
        givens = np.asarray(self.givens, np.int32)
        if self.engine == "cells":
            c = self.cells
            ok = CK.commit_options(
                givens, a.option_start, a.n_primary, a.n_items, *c[:-1], self.state,
                self.counters,
            )  # fmt: skip
        else:
            llink, rlink, top, ulink, dlink, color, length, _, option_node = self.links
            ok = K.commit_options(
                givens, option_node, a.n_primary, a.n_items, llink, rlink, top, ulink, dlink,
                color, length, self.counters,
            )  # fmt: skip
        if not ok:  # the givens contradict each other: no solution at all
            self.state[K.STATE_PC] = K.PC_DONE

    @property
    def done(self) -> bool:
        return int(self.state[K.STATE_PC]) == K.PC_DONE

    def run(
        self, *, stop_after: int, max_store: int, node_budget: int, split_depth: int = -1
    ) -> tuple[int, list[list[int]]]:
        """One kernel call; returns (status, solutions stored in this call)."""
        store = np.zeros((max(max_store, 1), self.levels), np.int32)
        store_len = np.zeros(max(max_store, 1), np.int32)
        tail = (
            self.choice, self.choice_k, self.choice_d, self.state, self.counters, store,
            store_len, max_store, np.int64(stop_after), np.int64(node_budget),
        )  # fmt: skip
        if self.engine == "cells":
            status, stored = CK.search_cells(
                self.arrays.n_primary,
                *self.cells,
                self.best,
                self.saved_before,
                self.saved_after,
                self.saved_active,
                *tail,
                split_depth,
            )
        elif self.use_m:
            if split_depth >= 0:
                raise InputError(
                    "splitting into subproblems needs a problem without multiplicities"
                )
            status, stored = K.search_m(
                self.arrays.n_primary, *self.links[:-1], self.bound, self.slack,
                self.first_tweak, *tail,
            )  # fmt: skip
        else:
            status, stored = K.search_xc(
                self.arrays.n_primary, *self.links[:-1], self.bound, *tail, split_depth
            )
        sols = [
            self.givens + [int(o) for o in store[s, : store_len[s]] if o >= 0]
            for s in range(stored)
        ]
        return int(status), sols

    def progress(self) -> float:
        """Knuth's estimate of the fraction of the tree searched (assumes uniform branching)."""
        if self.done:
            return 1.0
        level = int(self.state[K.STATE_LEVEL])
        f, scale = 0.0, 1.0
        for lv in range(level):
            d = max(int(self.choice_d[lv]), 1)
            k = min(int(self.choice_k[lv]), d - 1)
            scale /= d
            f += k * scale
        return min(f + 0.5 * scale, 1.0)

    def counts(self) -> dict[str, int]:
        c = self.counters
        return {
            "nodes": int(c[K.C_NODES]),
            "updates": int(c[K.C_UPDATES]),
            "cleansings": int(c[K.C_CLEANSINGS]),
            "max_level": int(c[K.C_MAX_LEVEL]),
        }

    @property
    def algorithm(self) -> str:
        """Knuth's letter for the algorithm, with the data structure: X/cells, C/links, ..."""
        if self.use_m:
            return "M/links"
        return ("C" if self.arrays.has_colors else "X") + "/" + self.engine


ProgressCallback = Callable[[float, int], None]


def _drive(
    search: _Search,
    *,
    limit: int | None,
    keep: int,
    time_limit: float | None,
    node_limit: int | None,
    progress: ProgressCallback | None,
) -> tuple[list[list[int]], int, bool, str | None]:
    """Call the kernel until the tree ends or a limit stops it."""
    watched = time_limit is not None or progress is not None
    t_end = None if time_limit is None else time.perf_counter() + time_limit
    kept: list[list[int]] = []
    found = 0
    stopped = None
    nodes0 = int(search.counters[K.C_NODES])
    while not search.done:
        budget = _NODE_CHUNK if watched else _UNLIMITED
        if node_limit is not None:
            left = node_limit - (int(search.counters[K.C_NODES]) - nodes0)
            if left <= 0:
                stopped = "nodes"
                break
            budget = min(budget, left)
        want = int(_UNLIMITED) if limit is None else limit - found
        store = max(0, min(keep - len(kept), _STORE_BATCH))
        if store > 0:  # pause when the store is full, so no kept solution is lost
            want = min(want, store)
        before = int(search.counters[K.C_SOLUTIONS])
        _, sols = search.run(stop_after=want, max_store=store, node_budget=int(budget))
        found += int(search.counters[K.C_SOLUTIONS]) - before
        kept.extend(sols)
        if progress is not None:
            progress(search.progress(), found)
        if limit is not None and found >= limit:
            stopped = "limit" if not search.done else None
            break
        if t_end is not None and time.perf_counter() >= t_end and not search.done:
            stopped = "time"
            break
    return kept, found, search.done and stopped is None, stopped


def solve(
    problem: Problem,
    *,
    limit: int | None = 1,
    keep: int | None = None,
    givens: Sequence[int] = (),
    seed: int | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
    engine: str = "auto",
) -> CoverResult:
    """Find solutions: the first (``limit=1``), at most ``limit``, or all (``limit=None``).

    ``keep`` bounds how many are stored (default: all found, up to ``limit``); ``givens`` are
    option numbers forced into every solution (contradicting givens give no solution);
    ``seed`` shuffles the option and item order, so ``limit=1`` gives a random solution
    (reproducible, though not uniformly distributed); ``time_limit`` (seconds) and
    ``node_limit`` stop early; ``progress(fraction, found)`` is called now and then;
    ``engine`` picks the kernel (see :data:`ENGINES`; ``"auto"`` is right almost always).
    """
    compile_seconds = _warm()
    with Stopwatch() as sw:
        search = _Search(problem.arrays(), givens=givens, seed=seed, engine=engine)
        keep_n = (limit if limit is not None else 1 << 62) if keep is None else keep
        kept, found, complete, stopped = _drive(
            search,
            limit=limit,
            keep=keep_n,
            time_limit=time_limit,
            node_limit=node_limit,
            progress=progress,
        )
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
        counts=search.counts(),
    )


def iter_solutions(
    problem: Problem,
    *,
    givens: Sequence[int] = (),
    seed: int | None = None,
    batch: int = 64,
    engine: str = "auto",
) -> Iterator[list[int]]:
    """Yield the solutions one by one, lazily: the search pauses between batches of ``batch``
    solutions (the first batch is a single one, so the first answer comes at once)."""
    _warm()
    search = _Search(problem.arrays(), givens=givens, seed=seed, engine=engine)
    size = 1
    while not search.done:
        _, sols = search.run(stop_after=size, max_store=size, node_budget=int(_UNLIMITED))
        yield from sols
        size = min(batch, size * 4)


# --------------------------------------------------------------------------------------------
# Counting, in parallel
# --------------------------------------------------------------------------------------------


def _count_job(
    job: tuple[ProblemArrays, list[list[int]], str],
) -> tuple[int, int, int, int, float, tuple[int, int]]:
    """Count the solutions under each prefix (a worker's share): (count, nodes, updates,
    cleansings, CPU seconds of this thread, (process id, thread id))."""
    import os
    import threading

    cpu0 = time.thread_time()
    arrays, prefixes, engine = job
    total = nodes = updates = cleansings = 0
    for prefix in prefixes:
        search = _Search(arrays, givens=prefix, engine=engine)
        search.run(stop_after=int(_UNLIMITED), max_store=0, node_budget=int(_UNLIMITED))
        c = search.counters
        total += int(c[K.C_SOLUTIONS])
        nodes += int(c[K.C_NODES])
        updates += int(c[K.C_UPDATES])
        cleansings += int(c[K.C_CLEANSINGS])
    worker = (os.getpid(), threading.get_ident())
    return total, nodes, updates, cleansings, time.thread_time() - cpu0, worker


def split(
    problem: Problem, min_parts: int, *, max_depth: int = 6, engine: str = "auto"
) -> list[list[int]]:
    """Cut the search tree into at least ``min_parts`` subproblems (prefixes of options that
    the search would choose on its first levels), or as many as ``max_depth`` levels give."""
    arrays = problem.arrays()
    prefixes: list[list[int]] = []
    for depth in range(1, max_depth + 1):
        search = _Search(arrays, engine=engine)
        prefixes = []
        while not search.done:
            _, part = search.run(
                stop_after=_STORE_BATCH,
                max_store=_STORE_BATCH,
                node_budget=int(_UNLIMITED),
                split_depth=depth,
            )
            prefixes.extend(part)
        if len(prefixes) >= min_parts:
            break
    return prefixes


def count(
    problem: Problem,
    *,
    givens: Sequence[int] = (),
    jobs: int = 1,
    scheduler: str | None = None,
    processes: bool = False,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
    parts_per_job: int = _PARTS_PER_JOB,
    engine: str = "auto",
) -> CoverResult:
    """Count every solution without keeping any (exact, 64-bit per kernel call, summed in
    Python integers across subproblems, so the total has no upper limit).

    With ``jobs > 1`` or a Dask ``scheduler`` address, the tree is cut into about
    ``parts_per_job * jobs`` subproblems (:func:`split`) counted in parallel by
    :func:`rompicapo.common.run_jobs`: on this machine by ``jobs`` threads (the kernels
    release the GIL, so threads need no start-up; a spawned process first spends 0.5-1 s
    loading numba and the kernels), or by processes with ``processes=True``; ``counts`` then
    sums the workers' measures (plus the splitting) and their CPU time
    (``worker_cpu_ms_max``: the busiest worker, ``worker_cpu_ms_total``: all of them).
    Time and node limits apply to single-process counts only.
    """
    if (jobs > 1 or scheduler is not None) and not givens:
        arrays = problem.arrays()
        if arrays.has_multiplicities:
            raise InputError("parallel counting needs a problem without multiplicities")
        if time_limit is not None or node_limit is not None:
            raise InputError("time and node limits apply to single-process counts only")
        from rompicapo.common import run_jobs

        compile_seconds = _warm()
        with Stopwatch() as sw:
            n_parts = parts_per_job * max(jobs, 1)
            prefixes = split(problem, n_parts, engine=engine)
            # deal the prefixes round-robin so every job gets early and late parts of the
            # tree; many small jobs, handed out as workers free up, keep the ending balanced
            n_groups = min(len(prefixes), n_parts)
            groups = [prefixes[g::n_groups] for g in range(n_groups)] if prefixes else []
            total = nodes = updates = cleansings = 0
            pool = {} if scheduler is not None or processes else {"threads": True}
            finished = run_jobs(
                _count_job,
                [(arrays, g, engine) for g in groups],
                n_jobs=jobs,
                scheduler=scheduler,
                **pool,
            )
            cpu_by_worker: dict[tuple[int, int], float] = {}
            for done, (_, (n, nd, up, cl, cpu, worker)) in enumerate(finished, start=1):
                cpu_by_worker[worker] = cpu_by_worker.get(worker, 0.0) + cpu
                total += n
                nodes += nd
                updates += up
                cleansings += cl
                if progress is not None:
                    progress(done / max(len(groups), 1), total)
        return CoverResult(
            problem=problem,
            count=total,
            complete=True,
            algorithm=_Search(arrays, engine=engine).algorithm,
            jobs=jobs,
            solve_seconds=sw.seconds,
            compile_seconds=compile_seconds,
            peak_bytes=peak_rss_bytes(),
            counts={
                "nodes": nodes,
                "updates": updates,
                "cleansings": cleansings,
                "parts": len(prefixes),
                "workers": len(cpu_by_worker),
                # CPU milliseconds of the busiest worker and of all: on idle cores the wall
                # time approaches the first; its ratio to a one-process run is the speed-up
                "worker_cpu_ms_max": round(1000 * max(cpu_by_worker.values(), default=0.0)),
                "worker_cpu_ms_total": round(1000 * sum(cpu_by_worker.values())),
            },
        )
    result = solve(
        problem,
        limit=None,
        keep=0,
        givens=givens,
        time_limit=time_limit,
        node_limit=node_limit,
        progress=progress,
        engine=engine,
    )
    return result


def estimate_remaining(fraction: float, seconds: float) -> float:
    """Seconds left if the tree is as uniform as Knuth's progress estimate assumes."""
    if fraction <= 0:
        return math.inf
    return seconds * (1 - fraction) / fraction
