"""Blackwood's search, part 4: restarts in this process ([`search()`][rompicapo.edges.search]).

Each run draws new tables from the seed and its run number and walks them until the node cap
(``Settings.restart_nodes``), a perfect board, the whole tree searched, the time or node limit, or
Ctrl-C; the best partial board over all runs is kept and completed greedily.
"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Callable

import numpy as np

from rompicapo.common import (
    Deadline,
    Progress,
    ProgressCallback,
    ProgressEvent,
    Stopwatch,
    check_node_limit,
    check_seed,
    check_time_limit,
    renamed_keywords,
    seed_sequence,
)
from rompicapo.edges import _kernel as K
from rompicapo.edges.blackwood_plan import PORTFOLIO_FIRST_CAP, Plan, Settings, check_puzzle
from rompicapo.edges.blackwood_results import EdgeSearchResult, complete_board
from rompicapo.edges.blackwood_tables import build_tables
from rompicapo.edges.blackwood_walker import (
    board_of,
    exact_state,
    plans_of,
    prepare_machine,
    reopen_complete,
    run_exact,
    run_kernel,
    walker_for,
    warm_plans,
)
from rompicapo.edges.puzzle import Board, Puzzle
from rompicapo.edges.puzzle import score as model_score

__all__ = ["CHUNK_SECONDS", "LegacyProgress", "accepts_on_progress", "search"]

# A kernel call runs this long before Python looks at the clock, prints the live line and
# lets Ctrl-C in: short enough to feel live, long enough that the calls cost nothing.
CHUNK_SECONDS = 0.5

# The dict callback of earlier releases (``on_progress``): seconds, nodes, placements,
# deepest, best_score, max_score and best (the best partial board's placements).
LegacyProgress = Callable[[dict], None]


def _rng(seed: int) -> np.random.Generator:
    """The tables' random generator: seeds >= 0 draw as they always did (published figures
    stay reproducible); negative seeds go through the run contract's seed sequence."""
    return np.random.default_rng(seed if seed >= 0 else seed_sequence(seed))


class _Restarts:
    """The state of one [`search()`][rompicapo.edges.search]: totals over the runs, the best
    board so far, and the current run's kernel state (its counters are current after every kernel
    call)."""

    def __init__(
        self,
        plans: list[Plan],
        deadline: Deadline,
        node_limit: int | None,
        should_stop: Callable[[], bool] | None,
        events: Progress,
    ) -> None:
        self.plans, self.deadline, self.node_limit = plans, deadline, node_limit
        self.should_stop, self.events = should_stop, events
        self.puzzle = plans[0].puzzle
        self.n = self.puzzle.rows * self.puzzle.cols
        self.totals = {"nodes": 0, "placements": 0, "restarts": 0}
        self.heat = np.zeros(self.n, dtype=np.int64)
        self.best_score, self.best_depth, self.deepest = -1, 0, 0
        self.best_partial = Board.empty(self.puzzle.rows, self.puzzle.cols)
        self.solved = self.exhausted = self.interrupted = False
        self.chunk = 1 << 18  # grows to CHUNK_SECONDS of work after the first call
        self.t0 = self.last_report = time.perf_counter()
        self.state = K.new_state(self.n, plans[0].copies)  # replaced per run: an early Ctrl-C

    def run(self, rng: np.random.Generator) -> None:
        """Runs until one ends the search; a KeyboardInterrupt ends it with what was found."""
        try:
            while True:
                status, stop = self._one_run(rng)
                self._add_run()
                if status == K.SOLVED:
                    # a complete board: solved only if perfect (with breaks allowed it may not
                    # be, and ends the search only while Settings.stop_at_complete holds)
                    self.solved = self.best_score >= int(self.plans[0].pos_joints[-1])
                    break
                if status == K.EXHAUSTED:
                    self.exhausted = True
                    break
                if stop:
                    break
        except KeyboardInterrupt:
            self.interrupted = True
            self._add_run()  # the kernel's counters are current after every call

    def _add_run(self) -> None:
        counters = self.state[-1]
        self.totals["nodes"] += int(counters[K.C_NODES])
        self.totals["placements"] += int(counters[K.C_PLACEMENTS])
        self.heat += self.state[K.S_HEAT]
        counters[:] = 0  # added: an interrupt from here on must not add them again
        self.state[K.S_HEAT][:] = 0

    def _one_run(self, rng: np.random.Generator) -> tuple[int, bool]:
        """One run on new tables until its node cap or the end: (kernel status, stop)."""
        run = self.totals["restarts"]
        plan = self.plans[run % len(self.plans)]
        node_cap = plan.settings.restart_nodes
        if len(self.plans) > 1:
            node_cap = min(node_cap, PORTFOLIO_FIRST_CAP << (run // len(self.plans)))
        tables = build_tables(plan, rng)
        state = self.state = K.new_state(self.n, plan.copies)
        extra = exact_state(tables, self.n) if plan.exact else ()
        walker = walker_for(plan, tables)
        counters = state[-1]
        run_nodes = 0
        self.totals["restarts"] += 1
        while True:
            budget = self.chunk
            if self.node_limit is not None:
                budget = min(budget, self.node_limit - self.totals["nodes"] - run_nodes)
            budget = min(budget, node_cap - run_nodes)
            tc = time.perf_counter()
            before = int(counters[K.C_NODES])
            if plan.exact:
                run_exact(plan, tables, state, extra, max(budget, 0))
            else:
                run_kernel(plan, tables, state, max(budget, 0), walker=walker)
            took = time.perf_counter() - tc
            run_nodes = int(counters[K.C_NODES])
            if took > 0.01 and run_nodes - before >= budget:
                self.chunk = max(1 << 12, int(budget * CHUNK_SECONDS / took))
            if int(counters[K.C_BEST_SCORE]) > self.best_score:
                self.best_score = int(counters[K.C_BEST_SCORE])
                self.best_depth = int((state[K.S_BEST] >= 0).sum())
                self.best_partial = board_of(plan, tables, state[K.S_BEST])
            self.deepest = max(self.deepest, int(counters[K.C_BEST_DEPTH]))
            status = int(counters[K.C_STATUS])
            if (
                status == K.SOLVED
                and not plan.settings.stop_at_complete
                and not plan.exact
                and reopen_complete(plan, tables, state)
            ):
                status = K.RUNNING  # a complete board with breaks: kept, and the search goes on
            done_nodes = self.totals["nodes"] + run_nodes
            stop = (
                status != K.RUNNING
                or (self.deadline.time_limit is not None and self.deadline.expired())
                or (self.node_limit is not None and done_nodes >= self.node_limit)
                or (self.should_stop is not None and self.should_stop())
            )
            self._tell(done_nodes, stop)
            if stop or run_nodes >= node_cap:
                return status, stop

    def _tell(self, done_nodes: int, stop: bool) -> None:
        """Progress events every CHUNK_SECONDS, and at the end."""
        now = time.perf_counter()
        if now - self.last_report < CHUNK_SECONDS and not stop:
            return
        self.last_report = now
        info = {
            "seconds": now - self.t0,
            "nodes": done_nodes,
            "placements": self.totals["placements"] + int(self.state[-1][K.C_PLACEMENTS]),
            "deepest": self.deepest,
            "best_score": self.best_score,
            "max_score": self.puzzle.n_joints,
        }
        counts = {k: int(v) for k, v in info.items() if k != "seconds"}
        events = self.events
        # the best first: the events after it carry its board (answer) with its score
        if self.best_score > (-1 if events.best_value is None else events.best_value):
            events.done = done_nodes
            events.best(self.best_score, counts=counts, answer=self.best_partial.placements())
        events.update(done_nodes, counts=counts)

    def result(self, seed: int, compile_s: float, sw: Stopwatch, cpu: float) -> EdgeSearchResult:
        """The result: the best partial board completed greedily, counted and described."""
        puzzle, plan = self.puzzle, self.plans[0]
        board = complete_board(self.best_partial, puzzle, plan.clues)
        final = model_score(board, puzzle)
        st = plan.settings
        return EdgeSearchResult(
            wall_seconds=self.deadline.elapsed(),
            solve_seconds=sw.seconds,
            cpu_seconds=cpu,
            compile_seconds=compile_s,
            counts=self.totals,
            puzzle=puzzle,
            board=board,
            partial=self.best_partial,
            score=final,
            search_score=max(self.best_score, 0),
            search_depth=self.best_depth,
            deepest=self.deepest,
            solved=final == puzzle.n_joints,
            exhausted=self.exhausted,
            interrupted=self.interrupted,
            heat=self.heat.reshape(puzzle.rows, puzzle.cols),
            settings={
                "order": st.order,
                "quota": st.quota if isinstance(st.quota, str) else list(st.quota),
                "quota_scale": st.quota_scale,
                "breaks": st.breaks if isinstance(st.breaks, str) else list(st.breaks),
                "heuristic": list(st.heuristic or ()),
                "restart_nodes": st.restart_nodes,
                "seed": seed,
                "clues": plan.clues.n_placed,
                **(
                    {"holdback": st.holdback, "holdback_release": st.holdback_release}
                    if st.holdback
                    else {}
                ),
                **({} if st.stop_at_complete else {"stop_at_complete": False}),
            },
        )


def accepts_on_progress(func):
    """``func(on_progress=...)``, the dict callback of earlier releases, keeps working for
    one release with a DeprecationWarning naming ``progress``: the dict (seconds, the counts,
    ``best``: the best board's placements) is made from each ProgressEvent that has counts."""

    @functools.wraps(func)
    def inner(*args, **kwargs):
        legacy = kwargs.pop("on_progress", None)
        if legacy is not None:
            warnings.warn(
                f"{func.__name__}(): on_progress= is deprecated and goes in the next release; "
                "pass progress= (a callable taking rompicapo.common.ProgressEvent; the best "
                "board is in its answer)",
                DeprecationWarning,
                stacklevel=2,
            )
            kwargs["progress"] = _also_legacy(kwargs.get("progress"), legacy)
        return func(*args, **kwargs)

    return inner


def _also_legacy(progress: ProgressCallback | None, legacy: LegacyProgress) -> ProgressCallback:
    def both(event: ProgressEvent) -> None:
        if progress is not None:
            progress(event)
        if event.kind in ("progress", "best") and event.counts:
            legacy({"seconds": event.elapsed, **event.counts, "best": event.answer or []})

    return both


@accepts_on_progress
@renamed_keywords(seconds="time_limit", max_nodes="node_limit")
def search(
    puzzle: Puzzle,
    clues: Board | None = None,
    *,
    settings: Settings | None = None,
    time_limit: float | None = 60.0,
    node_limit: int | None = None,
    seed: int | None = 0,
    progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> EdgeSearchResult:
    """Blackwood's search in this process (one thread) until a perfect board, the whole tree
    searched, ``time_limit`` seconds of wall clock (None: no limit; compilation included) or
    ``node_limit`` nodes in total, or Ctrl-C.

    Each run draws new tables from ``seed`` and its run number and stops at the node cap
    (``settings.restart_nodes``); the best partial board over all runs is returned, completed
    greedily. A KeyboardInterrupt ends the search and returns what was found so far
    (``interrupted``). ``progress`` receives [`ProgressEvent`][rompicapo.common.ProgressEvent]
    objects about every half second (``done``: nodes; ``best``: the best search score;
    ``counts``: nodes, placements, deepest, best_score, max_score; ``answer``: the best
    partial board's placements). ``should_stop()`` is asked between kernel calls.

    ``on_progress=``, the dict callback of earlier releases, still works for this release
    with a DeprecationWarning (`accepts_on_progress()`). (Old keyword names:
    ``seconds``, ``max_nodes``.)
    """
    deadline = Deadline(check_time_limit(time_limit))
    node_limit = check_node_limit(node_limit)
    seed = check_seed(seed) or 0
    check_puzzle(puzzle)
    events = Progress(progress, unit="nodes")
    plans = plans_of(puzzle, clues, settings)
    compile_s = sum(prepare_machine(p, deadline.time_limit, node_limit) for p in plans)
    compile_s += warm_plans(plans)
    restarts = _Restarts(plans, deadline, node_limit, should_stop, events)
    cpu0 = time.thread_time()
    with Stopwatch() as sw:
        restarts.run(_rng(seed))
    result = restarts.result(seed, compile_s, sw, time.thread_time() - cpu0)
    events.finish(counts=restarts.totals)
    return result
