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

import itertools
import math
import os
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    NotVerifiable,
    Progress,
    ProgressCallback,
    SearchResult,
    Stopwatch,
    check_int,
    check_limit,
    check_memory,
    check_node_limit,
    check_seed,
    check_time_limit,
    connect_scheduler,
    jit_warmup,
    peak_rss_bytes,
    resolve_jobs,
    seed_sequence,
)
from rompicapo.cover import _bits_kernel as BK
from rompicapo.cover import _cells_kernel as CK
from rompicapo.cover import _kernel as K
from rompicapo.cover.problem import Problem, ProblemArrays, read_dlx

__all__ = ["CoverResult", "count", "iter_solutions", "solve"]

#: Nodes per kernel call when something (a clock, a progress bar) must be looked at between
#: calls: DLX visits roughly 5-20 M nodes per second, so this is tens of milliseconds.
_NODE_CHUNK = 200_000
#: Nodes per kernel call when nothing is watched: Ctrl-C is only seen between kernel calls,
#: and this keeps a call well under a second while its Python overhead stays far below 1%.
_QUIET_CHUNK = 2_000_000
#: The solution store of one kernel call is at most this many int32 entries (64 MB): a
#: problem with 200,000 items has as many levels, and 4096 rows of them would be 3.3 GB.
_STORE_ENTRIES = 1 << 24
#: "auto" never picks dancing cells when their per-level copies (levels x items, twice)
#: would take more than this: they would be slow to copy and may not fit at all.
_CELLS_MAX_BYTES = 512 * 1024 * 1024
#: The search engines: bit sets (X/C), dancing cells (X), dancing links (X/C), dancing links
#: with multiplicities (M).
ENGINES = ("auto", "bits", "cells", "links", "m")
#: "auto" picks bit sets up to this many options (a table of conflicts of 8 MB, 128 words per
#: set of options) ...
_BITS_MAX_OPTIONS = 8192
#: ... when counting the options of every primary item at a node (``primary items x words``)
#: is at most this many times the work of taking an option in dancing links
#: (:func:`_count_to_work_ratio`). Measured (CPU time of the best other engine over bits, one
#: run each, load 9): pentominoes, ratio 0.3-0.34, 3.1-3.2x; queens, 0.3-0.45, 2.5-3.3x;
#: Langford pairs, 0.7, 2.3-2.4x; 4x4 Sudoku, 1.0, 2.8x; 6x6 Sudoku with givens, 6.0,
#: 0.5-1.3x (even); 9x9 Sudoku with givens, 27, 0.5-0.8x; empty 16x16 Sudoku, 256, 0.05x.
_BITS_MAX_COUNT_RATIO = 4.0
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
#: Searches whose arrays take less than this are not checked against the free memory: asking
#: the system costs 0.1 ms, a fifth of counting a small problem such as 8 queens.
_CHECK_MEMORY_ABOVE = 64 * 1024 * 1024
#: A budget that never runs out.
_UNLIMITED = np.int64(2**62)


@dataclass
class CoverResult(SearchResult):
    """What a search found.

    ``solutions`` holds the solutions kept (lists of option numbers, givens included);
    ``count`` is the number found, the exact total when ``complete`` (the whole search tree was
    explored); ``stopped`` says why a search ended early (``"limit"``, ``"time"``, ``"nodes"``,
    ``"interrupted"``) or is ``None``. ``counts`` holds Knuth's measures: ``nodes``,
    ``updates``, ``cleansings``, ``max_level`` (and for parallel counts ``parts``, ``workers``
    and the workers' CPU time). ``notes`` are remarks for the user (jobs capped, options
    dropped). ``verify()`` checks every kept solution with :mod:`rompicapo.cover.verify`.

    ``to_dict()`` is what ``rompicapo cover --json`` prints: ``algorithm``, ``items``,
    ``options``, ``solutions`` (the number found), ``complete``, ``stopped``, ``nodes``,
    ``updates``, ``cleansings``, ``jobs``, ``solve_seconds``, ``compile_seconds``,
    ``peak_bytes``, ``kept`` (the kept solutions' options as Knuth writes them), ``file``,
    plus ``count``, ``counts`` and ``notes``.
    """

    problem: Problem | None = None
    solutions: list[list[int]] = field(default_factory=list)
    count: int = 0
    complete: bool = False
    stopped: str | None = None
    algorithm: str = "X"
    jobs: int = 1
    notes: list[str] = field(default_factory=list)

    _dict_exclude = ("problem", "solutions")

    @property
    def solution(self) -> list[int] | None:
        """The first solution kept, or None."""
        return self.solutions[0] if self.solutions else None

    def verify(self) -> bool:
        """True when every kept solution is an exact cover (checked independently), False
        when one is not; NotVerifiable when no solution was kept (a count, or no solution:
        neither can be checked without searching again)."""
        from rompicapo.cover.verify import cover_violations

        if self.problem is None or not self.solutions:
            raise NotVerifiable("no solution was kept, so there is nothing to check")
        return all(not cover_violations(self.problem, s) for s in self.solutions)

    def _dict_extra(self) -> dict[str, Any]:
        p = self.problem
        return {
            "items": {"primary": len(p.primary), "secondary": len(p.secondary)} if p else None,
            "options": len(p.options) if p else None,
            "solutions": self.count,
            "nodes": self.counts.get("nodes", 0),
            "updates": self.counts.get("updates", 0),
            "cleansings": self.counts.get("cleansings", 0),
            "kept": [[p.describe(k) for k in s] for s in self.solutions] if p else [],
            "file": p.source if p else None,
        }

    def report(self) -> str:
        """The kept solutions (one option a line, as Knuth writes them) and a summary line."""
        out = []
        p = self.problem
        for n, sol in enumerate(self.solutions, start=1):
            out.append(f"solution {n}:")
            out += [f"  {p.describe(k) if p else k}" for k in sorted(sol)]
        c = self.counts
        if self.complete:
            exact = ""
        elif self.stopped == "limit":
            exact = " (stopped at the limit)"
        elif self.stopped == "interrupted":
            exact = " (interrupted: a lower bound)"
        else:
            exact = f" (stopped by the {self.stopped} limit: a lower bound)"
        out.append(
            f"{self.count} solution{'s' * (self.count != 1)}{exact}; "
            f"{c.get('nodes', 0):,} nodes, {c.get('updates', 0):,} updates; "
            f"{self.solve_seconds:.3f} s" + (f" with {self.jobs} workers" if self.jobs > 1 else "")
        )
        return "\n".join(out)


def _warm(engine: str) -> float:
    """Compile (or load from numba's cache) the kernels of one engine on a tiny problem (a
    command compiles only what it runs); seconds taken, 0 once done in this process."""

    def tiny() -> None:
        p = Problem(primary=["a", "b"], secondary=["x"])
        colours = {"x": 1} if engine in ("links", "m") else {}  # links also run Algorithm C
        p.add_option(["a", "x"], colours=colours)
        p.add_option(["b", "x"], colours=colours)
        arrays = p.arrays()
        _Search(arrays, engine=engine).run(stop_after=2, max_store=2, node_budget=_UNLIMITED)
        if engine != "m":
            _Search(arrays, givens=[0], engine=engine).run(
                stop_after=1, max_store=0, node_budget=_UNLIMITED, split_depth=1
            )

    return jit_warmup(f"cover.dlx.{engine}", tiny)


def _levels(a: ProblemArrays, engine: str) -> int:
    """Search-tree levels: one per primary item, and for Algorithm M one per unit of bound; bit
    sets keep a row per level, so they count no more levels than options either."""
    if engine == "m":
        return int(a.upper.astype(np.int64).sum()) + a.n_primary + 1
    if engine == "bits":
        return min(a.n_primary, a.n_options) + 1
    return a.n_primary + 1


def search_bytes(a: ProblemArrays, engine: str) -> int:
    """Bytes of the arrays a search of ``a`` with ``engine`` allocates (the kernels' state,
    the per-level arrays, one solution store), from the sizes alone, in Python integers."""
    entries = len(a.option_items)
    items, options, primary = a.n_items, a.n_options, a.n_primary
    levels = _levels(a, engine) if engine in ENGINES[1:] else primary + 1
    rows = max(1, min(_STORE_BATCH, _STORE_ENTRIES // max(levels, 1)))
    common = levels * (4 + 8 + 8) + rows * (levels + 1) * 4 + 8 * options  # + orders
    if engine == "cells":
        sets = 4 * (7 * entries + 3 * items + 3 * primary + 8)
        saved = levels * (2 * items + 2 + 1) * 4  # saved sizes before and after, active, best
        return common + sets + saved
    if engine == "bits":
        words, pwords = -(-options // 64), -(-primary // 64)
        sets = 8 * words * (options + 2 * primary + levels + 1)  # conflicts, items, live rows
        sets += 8 * pwords * (options + levels + 1)  # primary items of options, uncovered
        building = items * options + 64 * pwords * options + 8 * words * entries
        return common + sets + building
    nodes = items + 1 + entries + options + 1
    links = 4 * (5 * nodes + options + 3 * (items + 2)) + 8 * (items + 2)
    return common + links + levels * 4


def plan_engine(a: ProblemArrays, engine: str = "auto") -> str:
    """The engine a search of ``a`` will use (``"auto"`` resolved), after checking that it
    applies and that its arrays fit in memory (estimated from the sizes: nothing is
    allocated, no kernel is compiled)."""
    if engine == "auto":
        if a.has_multiplicities:
            engine = "m"
        elif a.n_options <= _BITS_MAX_OPTIONS and _count_to_work_ratio(a) <= _BITS_MAX_COUNT_RATIO:
            engine = "bits"
        elif (
            a.has_colours
            or _copy_to_work_ratio(a) > _CELLS_MAX_COPY_RATIO
            or search_bytes(a, "cells") > _CELLS_MAX_BYTES
        ):
            engine = "links"
        else:
            engine = "cells"
    if engine not in ENGINES:
        raise InputError(f"engine must be one of {', '.join(ENGINES)}, got {str(engine)[:20]!r}")
    if engine == "cells" and (a.has_colours or a.has_multiplicities):
        raise InputError("dancing cells here handle neither colours nor multiplicities")
    if engine in ("bits", "links") and a.has_multiplicities:
        raise InputError("multiplicities need Algorithm M (engine 'm')")
    need = search_bytes(a, engine)
    if need > _CHECK_MEMORY_ABOVE:
        check_memory(
            need,
            f"a search of {a.n_items} items and {a.n_options} option"
            f"{'s' * (a.n_options != 1)} ({engine} engine)",
        )
    return engine


def _take_work(a: ProblemArrays) -> float:
    """The mean work of taking an option in dancing links: for each of its items, that
    item's option count, times the option's length (the entries a take walks when every
    option is still there); at least 1."""
    if a.n_options == 0 or a.n_items == 0:
        return 1.0
    set_len = np.bincount(a.option_items, minlength=a.n_items)
    opt_len = np.diff(a.option_start)
    sums = np.concatenate(([0], np.cumsum(set_len[a.option_items])))
    walked = (sums[a.option_start[1:]] - sums[a.option_start[:-1]]) * opt_len
    return max(float(walked.mean()), 1.0)


def _copy_to_work_ratio(a: ProblemArrays) -> float:
    """Items (what dancing cells copy per level) over the work of taking an option."""
    return a.n_items / _take_work(a)


def _count_to_work_ratio(a: ProblemArrays) -> float:
    """The words bit sets read to count every primary item's options at a node, over the work
    of taking an option in dancing links."""
    return a.n_primary * -(-a.n_options // 64) / _take_work(a)


class _Search:
    """One resumable search over one problem (a kernel's arrays and state).

    ``engine``: ``"bits"`` (bit sets, Algorithms X and C), ``"cells"`` (dancing cells, sparse
    sets, Algorithm X with uncoloured secondary items), ``"links"`` (dancing links, Algorithms
    X and C), ``"m"`` (dancing links, Algorithm M), or ``"auto"`` (see :func:`plan_engine`).
    ``planned``: ``engine`` comes from :func:`plan_engine` already (not checked again).
    ``layout``: the read-only bit-set arrays of an earlier search of the same problem without
    a seed (the parts of a parallel count share them).
    """

    def __init__(
        self,
        arrays: ProblemArrays,
        *,
        givens: Sequence[int] = (),
        seed: int | None = None,
        engine: str = "auto",
        planned: bool = False,
        layout: tuple | None = None,
    ) -> None:
        a = arrays
        self.arrays = a
        if not planned:
            engine = plan_engine(a, engine)
        self.engine = engine
        self.layout = None
        self.use_m = engine == "m"
        n_options = a.n_options
        if seed is None:
            option_order = np.arange(n_options, dtype=np.int32)
            item_order = np.arange(a.n_primary, dtype=np.int32)
        else:
            # a random solution: shuffle the order of the options in every item's list and the
            # order of the items (which breaks MRV ties), as Knuth's DLX does with seed s
            rng = np.random.default_rng(seed_sequence(seed))
            option_order = rng.permutation(n_options).astype(np.int32)
            item_order = rng.permutation(a.n_primary).astype(np.int32)
        levels = _levels(a, engine)
        self.levels = levels
        self.store_rows = max(1, min(_STORE_BATCH, _STORE_ENTRIES // levels))
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
        elif engine == "bits":
            if layout is None or seed is not None:
                layout = BK.build_bits(
                    a.n_primary, a.n_items, a.option_start, a.option_items, a.option_colours,
                    option_order, item_order,
                )  # fmt: skip
            self.bits = self.layout = layout
            words, pwords = self.bits[0], self.bits[1]
            self.live, self.uncovered = BK.start_rows(n_options, a.n_primary, levels, words, pwords)
            self.best = np.zeros(levels, np.int64)
            self.choice = np.zeros(levels, np.int64)
            self.option_bit = np.empty(n_options, np.int64)
            self.option_bit[option_order] = np.arange(n_options)
        else:
            self.links = K.build_links(
                a.n_primary,
                a.n_items,
                a.option_start,
                a.option_items,
                a.option_colours,
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
        if self.engine == "bits":
            words, pwords, _, _, _, conflict, primary = self.bits[:7]
            ok = BK.commit_options(
                self.option_bit[givens], words, pwords, conflict, primary, self.live,
                self.uncovered, self.counters,
            )  # fmt: skip
        elif self.engine == "cells":
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
        if max_store > self.store_rows:
            # a smaller store than asked: pause when it is full so no solution is lost (every
            # caller calls again until the search is done)
            max_store = self.store_rows
            stop_after = min(stop_after, max_store)
        store = np.zeros((max(max_store, 1), self.levels), np.int32)
        store_len = np.zeros(max(max_store, 1), np.int32)
        tail = (
            self.choice, self.choice_k, self.choice_d, self.state, self.counters, store,
            store_len, max_store, np.int64(stop_after), np.int64(node_budget),
        )  # fmt: skip
        if self.engine == "bits":
            status, stored = BK.search_bits(
                *self.bits, self.live, self.uncovered, self.best, *tail, split_depth
            )
        elif self.engine == "cells":
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
        return ("C" if self.arrays.has_colours else "X") + "/" + self.engine


def _as_problem(problem: object) -> Problem:
    """A Problem, or one read from a ``.dlx`` file name (``"-"`` = standard input)."""
    if isinstance(problem, Problem):
        return problem
    if isinstance(problem, (str, os.PathLike)):
        return read_dlx(problem)
    raise InputError(f"problem must be a Problem or a .dlx file name, got {type(problem).__name__}")


def _check_givens(givens: object) -> list[int]:
    if isinstance(givens, (str, bytes)) or not hasattr(givens, "__iter__"):
        raise InputError("givens must be a list of option numbers")
    return [check_int(g, "a given option", minimum=0, maximum=2**31 - 1) for g in givens]


def _dropped_notes(problem: Problem) -> list[str]:
    where = problem.source or "<text>"
    return [f"{where}:{line}: option ignored (no primary items)" for line in problem.dropped_lines]


def _drive(
    search: _Search,
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
            budget = _NODE_CHUNK if watched else _QUIET_CHUNK
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


def solve(
    problem: Problem | str | os.PathLike,
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

    ``problem`` is a :class:`Problem` or the name of a ``.dlx`` file (``"-"`` = stdin).
    ``keep`` bounds how many are stored (default: all found, up to ``limit``); ``givens`` are
    option numbers forced into every solution (contradicting givens give no solution);
    ``seed`` (any integer) shuffles the option and item order, so ``limit=1`` gives a random
    solution (reproducible, though not uniformly distributed); ``time_limit`` (seconds of wall
    clock for the whole call) and ``node_limit`` stop early; ``progress`` receives
    :class:`~rompicapo.common.ProgressEvent` objects (``done`` = percent of the tree, by
    Knuth's estimate); ``engine`` picks the kernel (see :data:`ENGINES`; ``"auto"`` is right
    almost always). Ctrl-C stops the search and returns what was found
    (``stopped="interrupted"``). Every argument is checked before the search starts, the
    memory of its arrays included.
    """
    deadline = Deadline(check_time_limit(time_limit))
    limit = check_limit(limit)
    keep = None if keep is None else check_int(keep, "keep", minimum=0, maximum=10**18)
    givens = _check_givens(givens)
    seed = check_seed(seed)
    node_limit = check_node_limit(node_limit)
    events = Progress(progress, unit="%", total=100)
    problem = _as_problem(problem)
    engine = plan_engine(problem.arrays(), engine)  # refused here, before compiling anything
    compile_seconds = _warm(engine)
    with Stopwatch() as sw:
        search = _Search(problem.arrays(), givens=givens, seed=seed, engine=engine, planned=True)
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
        notes=_dropped_notes(problem),
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
    solutions (the first batch is a single one, so the first answer comes at once)."""
    givens = _check_givens(givens)
    seed = check_seed(seed)
    batch = check_int(batch, "batch", minimum=1, maximum=_STORE_BATCH)
    problem = _as_problem(problem)
    engine = plan_engine(problem.arrays(), engine)
    _warm(engine)
    search = _Search(problem.arrays(), givens=givens, seed=seed, engine=engine, planned=True)
    size = 1
    while not search.done:
        _, sols = search.run(stop_after=size, max_store=size, node_budget=int(_UNLIMITED))
        yield from sols
        size = min(batch, size * 4)


# --------------------------------------------------------------------------------------------
# Counting, in parallel
# --------------------------------------------------------------------------------------------


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
    budget = _NODE_CHUNK if end is not None else _QUIET_CHUNK
    engine = plan_engine(arrays, engine)
    layout = None
    for prefix in prefixes:
        if (end is not None and time.time() >= end) or (stop is not None and stop.is_set()):
            stopped = True
            break
        search = _Search(arrays, givens=prefix, engine=engine, planned=True, layout=layout)
        layout = search.layout
        while not search.done:
            search.run(stop_after=int(_UNLIMITED), max_store=0, node_budget=budget)
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
    problem: Problem | str | os.PathLike,
    *,
    givens: Sequence[int] = (),
    jobs: int | None = None,
    scheduler: Any = None,
    processes: bool = False,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
    parts_per_job: int = _PARTS_PER_JOB,
    engine: str = "auto",
) -> CoverResult:
    """Count every solution without keeping any (exact, 64-bit per kernel call, summed in
    Python integers across subproblems, so the total has no upper limit).

    ``jobs``: workers; None (the default) = all cores of this machine, 1 = in this process;
    more than the cores is capped (``notes`` says so). With several jobs or a Dask
    ``scheduler`` (an address, or a ``distributed.Client``), the tree is cut into about
    ``parts_per_job * jobs`` subproblems (:func:`split`) counted in parallel by
    :func:`rompicapo.common.run_jobs`: on this machine by threads (the kernels release the
    GIL, so threads need no start-up; a spawned process first spends 0.5-1 s loading numba and
    the kernels), or by processes with ``processes=True``; ``counts`` then sums the workers'
    measures (plus the splitting) and their CPU time (``worker_cpu_ms_max``: the busiest
    worker, ``worker_cpu_ms_total``: all of them).

    ``time_limit`` covers the whole call (splitting and workers' start-up included): the
    workers stop when it runs out and ``count`` is then a lower bound (``stopped="time"``). A
    problem with multiplicities, ``givens`` or a ``node_limit`` is counted in one process: with
    ``jobs=None`` silently (a note says so), with ``jobs > 1`` or a scheduler it is an
    :class:`~rompicapo.common.InputError`. The scheduler is reached
    (:func:`rompicapo.common.connect_scheduler`) before any work: a wrong address is one line
    within seconds. Ctrl-C stops the count and returns the lower bound so far
    (``stopped="interrupted"``).
    """
    deadline = Deadline(check_time_limit(time_limit))
    givens = _check_givens(givens)
    node_limit = check_node_limit(node_limit)
    parts_per_job = check_int(parts_per_job, "parts_per_job", minimum=1, maximum=10**6)
    explicit = jobs is not None and check_int(jobs, "jobs", minimum=1, maximum=4096) > 1
    problem = _as_problem(problem)
    arrays = problem.arrays()
    engine = plan_engine(arrays, engine)  # it applies and fits, before a scheduler or a split
    why_single = (
        "a problem with multiplicities"
        if arrays.has_multiplicities
        else "givens"
        if givens
        else "a node limit"
        if node_limit is not None
        else None
    )
    if (explicit or scheduler is not None) and why_single is not None:
        raise InputError(f"parallel counting (jobs > 1 or a scheduler) cannot take {why_single}")
    n_jobs, note = resolve_jobs(jobs)
    notes = [note] if note else []
    if scheduler is None and (n_jobs == 1 or why_single is not None):
        if n_jobs > 1:
            notes.append(f"counted in one process ({why_single} cannot be split)")
        result = solve(
            problem,
            limit=None,
            keep=0,
            givens=givens,
            time_limit=deadline.time_left(),
            node_limit=node_limit,
            progress=progress,
            engine=engine,
        )
        result.notes = notes + result.notes
        return result
    events = Progress(progress, unit="parts")
    # the scheduler first: a wrong address costs seconds, not a split of the tree
    client = None
    if scheduler is not None and not hasattr(scheduler, "submit"):
        client = connect_scheduler(scheduler)
        scheduler_arg: Any = client
    else:
        scheduler_arg = scheduler
    try:
        return _count_parallel(
            problem, n_jobs, scheduler_arg, processes, parts_per_job, engine, events, notes,
            deadline,
        )  # fmt: skip
    finally:
        if client is not None:
            client.close()


def _count_parallel(
    problem: Problem,
    n_jobs: int,
    scheduler: Any,
    processes: bool,
    parts_per_job: int,
    engine: str,
    events: Progress,
    notes: list[str],
    deadline: Deadline,
) -> CoverResult:
    from rompicapo.common import run_jobs

    arrays = problem.arrays()
    search0 = _Search(arrays, engine=engine)  # checks the engine and the memory up front
    compile_seconds = _warm(search0.engine)
    total = nodes = updates = cleansings = 0
    cpu_by_worker: dict[tuple[int, int], float] = {}
    stopped = None
    with Stopwatch() as sw:
        n_parts = parts_per_job * n_jobs
        prefixes = split(problem, n_parts, engine=engine)
        # deal the prefixes round-robin so every job gets early and late parts of the
        # tree; many small jobs, handed out as workers free up, keep the ending balanced
        n_groups = min(len(prefixes), n_parts)
        groups = [prefixes[g::n_groups] for g in range(n_groups)] if prefixes else []
        events.total = len(groups)
        pool = {} if scheduler is not None or processes else {"threads": True}
        # wall-clock end for the workers (time.time(): the same clock in every process of
        # this machine; monotonic clocks are not comparable across processes)
        end = None if deadline.time_limit is None else time.time() + deadline.remaining()
        token = next(_TOKENS)
        _STOPS[token] = threading.Event()
        finished = run_jobs(
            _count_job,
            [(arrays, g, engine, end, token) for g in groups],
            n_jobs=n_jobs,
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
        jobs=n_jobs,
        solve_seconds=sw.seconds,
        compile_seconds=compile_seconds,
        peak_bytes=peak_rss_bytes(),
        counts=counts,
        notes=notes + _dropped_notes(problem),
    )


def estimate_remaining(fraction: float, seconds: float) -> float:
    """Seconds left if the tree is as uniform as Knuth's progress estimate assumes."""
    if fraction <= 0:
        return math.inf
    return seconds * (1 - fraction) / fraction
