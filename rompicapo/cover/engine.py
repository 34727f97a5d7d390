"""The search engines of exact cover: which one a problem gets
([`plan_engine()`][rompicapo.cover.plan_engine]), the
memory its arrays take (`search_bytes()`), and one resumable search over a kernel
(`Search`): Algorithm X on bit sets (`rompicapo.cover._bits_kernel`, also C), on
dancing cells (`rompicapo.cover._cells_kernel`) or on dancing links, Algorithm C (colours)
and Algorithm M (multiplicities) on dancing links (`rompicapo.cover._kernel`).

The entry points that drive a search (`rompicapo.cover.solve()`,
[`rompicapo.cover.count()`][rompicapo.cover.count]) live in `rompicapo.cover.solve` and
`rompicapo.cover.counting`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from rompicapo.common import InputError, check_int, check_memory, jit_warmup, seed_sequence
from rompicapo.cover import _bits_kernel as BK
from rompicapo.cover import _cells_kernel as CK
from rompicapo.cover import _kernel as K
from rompicapo.cover.problem import Problem, ProblemArrays, read_dlx

__all__ = [
    "ENGINES",
    "NODE_CHUNK",
    "QUIET_CHUNK",
    "STORE_BATCH",
    "UNLIMITED",
    "Search",
    "as_problem",
    "check_givens",
    "check_keep_solutions",
    "dropped_notes",
    "plan_engine",
    "search_bytes",
    "solutions_to_keep",
    "warm_engine",
]


#: Nodes per kernel call when something (a clock, a progress bar) must be looked at between
#: calls: DLX visits roughly 5-20 M nodes per second, so this is tens of milliseconds.
NODE_CHUNK = 200_000
#: Nodes per kernel call when nothing is watched: Ctrl-C is only seen between kernel calls,
#: and this keeps a call well under a second while its Python overhead stays far below 1%.
QUIET_CHUNK = 2_000_000
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
STORE_BATCH = 4096

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
UNLIMITED = np.int64(2**62)


def warm_engine(engine: str) -> float:
    """Compile (or load from numba's cache) the kernels of one engine on a tiny problem (a
    command compiles only what it runs); seconds taken, 0 once done in this process."""

    def tiny() -> None:
        p = Problem(primary=["a", "b"], secondary=["x"])
        colours = {"x": 1} if engine in ("links", "m") else {}  # links also run Algorithm C
        p.add_option(["a", "x"], colours=colours)
        p.add_option(["b", "x"], colours=colours)
        arrays = p.arrays()
        Search(arrays, engine=engine).run(stop_after=2, max_store=2, chunk_nodes=UNLIMITED)
        if engine != "m":
            Search(arrays, givens=[0], engine=engine).run(
                stop_after=1, max_store=0, chunk_nodes=UNLIMITED, split_depth=1
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
    rows = max(1, min(STORE_BATCH, _STORE_ENTRIES // max(levels, 1)))
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
    allocated, no kernel is compiled).

    ```pycon
    >>> from rompicapo.cover import Problem, queens_problem
    >>> plan_engine(queens_problem(8).arrays())  # small: the bit-parallel kernel
    'bits'
    >>> twice = Problem(primary=["a"], bounds={"a": (2, 3)}, options=[["a"], ["a"], ["a"]])
    >>> plan_engine(twice.arrays())  # multiplicities: Algorithm M
    'm'
    >>> plan_engine(twice.arrays(), "cells")
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: dancing cells here handle neither colours nor multiplicities

    ```"""
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


class Search:
    """One resumable search over one problem (a kernel's arrays and state).

    ``engine``: ``"bits"`` (bit sets, Algorithms X and C), ``"cells"`` (dancing cells, sparse
    sets, Algorithm X with uncoloured secondary items), ``"links"`` (dancing links, Algorithms
    X and C), ``"m"`` (dancing links, Algorithm M), or ``"auto"`` (see
    [`plan_engine()`][rompicapo.cover.plan_engine]).
    ``planned``: ``engine`` comes from [`plan_engine()`][rompicapo.cover.plan_engine] already (not
    checked again).
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
        self.store_rows = max(1, min(STORE_BATCH, _STORE_ENTRIES // levels))
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
        self, *, stop_after: int, max_store: int, chunk_nodes: int, split_depth: int = -1
    ) -> tuple[int, list[list[int]]]:
        """One kernel call of at most ``chunk_nodes`` nodes, which pauses after ``stop_after``
        more solutions and stores at most ``max_store`` of them; returns (status, solutions
        stored in this call)."""
        if max_store > self.store_rows:
            # a smaller store than asked: pause when it is full so no solution is lost (every
            # caller calls again until the search is done)
            max_store = self.store_rows
            stop_after = min(stop_after, max_store)
        store = np.zeros((max(max_store, 1), self.levels), np.int32)
        store_len = np.zeros(max(max_store, 1), np.int32)
        tail = (
            self.choice, self.choice_k, self.choice_d, self.state, self.counters, store,
            store_len, max_store, np.int64(stop_after), np.int64(chunk_nodes),
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


def as_problem(problem: object) -> Problem:
    """A Problem, or one read from a ``.dlx`` file name (``"-"`` = standard input)."""
    if isinstance(problem, Problem):
        return problem
    if isinstance(problem, (str, os.PathLike)):
        return read_dlx(problem)
    raise InputError(f"problem must be a Problem or a .dlx file name, got {type(problem).__name__}")


def check_givens(givens: object) -> list[int]:
    """``givens`` as a list of option numbers, checked (not yet against a problem)."""
    if isinstance(givens, (str, bytes)) or not hasattr(givens, "__iter__"):
        raise InputError("givens must be a list of option numbers")
    return [check_int(g, "a given option", minimum=0, maximum=2**31 - 1) for g in givens]


def check_keep_solutions(keep_solutions: object) -> int | None:
    """How many solutions to store (0 or more), or None for the caller's default, checked."""
    if keep_solutions is None:
        return None
    return check_int(keep_solutions, "keep_solutions", minimum=0, maximum=10**18)


def solutions_to_keep(limit: int | None, keep_solutions: object) -> int:
    """How many solutions a call that counts or lists keeps (queens, packings):
    ``keep_solutions`` checked, or by default the ``limit``'s worth (none without a limit: a
    count)."""
    keep = check_keep_solutions(keep_solutions)
    if keep is None:
        return 0 if limit is None else limit
    return keep


def dropped_notes(problem: Problem) -> list[str]:
    """One note per option of the file that was ignored (it names no primary item)."""
    where = problem.source or "<text>"
    return [f"{where}:{line}: option ignored (no primary items)" for line in problem.dropped_lines]
