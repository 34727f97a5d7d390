"""Counts split into prefix jobs: run in worker processes (or on a Dask scheduler), with a
progress report, a time limit and a resumable checkpoint.

The search tree from the start cells is cut at a depth (the split depth): each live prefix of
that many cells is a job, counted by `count_job()` in a worker. The jobs finished are
recorded in a checkpoint (`rompicapo.paths.checkpoints`) as they come in.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rompicapo.common import Deadline, InputError, connect_scheduler, run_jobs
from rompicapo.paths import _count_kernel as K
from rompicapo.paths.checkpoints import (
    CHECKPOINT_EVERY,
    problem_of,
    same_problem,
    save_checkpoint,
)
from rompicapo.paths.exhaustive import kernel_run
from rompicapo.paths.moves import parse_moves
from rompicapo.paths.symmetry import Cell

__all__ = [
    "BIG_BOARD_CELLS",
    "SLICE_NODES",
    "TARGET_JOBS",
    "TARGET_JOBS_BIG",
    "JobsOutcome",
    "OutOfTime",
    "choose_split_depth",
    "count_in_jobs",
    "count_job",
    "prefix_jobs",
    "scheduler_for",
]

# The tree is split into prefix jobs at the smallest depth giving at least this many jobs:
# enough for load balance on a few dozen cores (prefix subtrees vary by orders of magnitude),
# for a smooth ETA and for a checkpoint that loses little on Ctrl-C, while the per-job
# overhead (about a millisecond of IPC) stays small next to the work of big boards.
TARGET_JOBS = 400
# Boards beyond 6x7 (7x7: about 10^11 nodes from all starts) get this many jobs instead: about
# 10^7 nodes (half a second) per job on average, so a Ctrl-C loses little and the ETA moves,
# while the per-job overhead stays near 0.2%.
BIG_BOARD_CELLS = 43
TARGET_JOBS_BIG = 10_000

# With a time limit, a job runs in slices of this many nodes (a few tenths of a second) and
# looks at the clock between them, so a worker stops soon after the deadline instead of
# finishing a job that may take minutes. The kernel resumes exactly where a slice stopped, so
# the counts are those of one uninterrupted call.
SLICE_NODES = 2_000_000


def count_job(job: tuple) -> tuple:
    """Worker: count the completions of one prefix. ``job`` = (rows, cols, moves, closed,
    prefix[, deadline[, ends]]); returns (paths, nodes, one path or None[, [[end cell, paths],
    ...]]), paths None when the deadline (seconds since the epoch, for workers in other
    processes or machines) came first. Top level, so processes can import it."""
    rows, cols, moves, closed, prefix = job[:5]
    deadline = job[5] if len(job) > 5 else None
    by_end = np.zeros(rows * cols, np.int64) if len(job) > 6 and job[6] else None
    ms = parse_moves(moves)
    leaves = nodes = 0
    sample = None
    state = None
    while True:
        if deadline is not None and time.time() > deadline:
            return None, nodes, None, *([] if by_end is None else [[]])
        run = kernel_run(
            rows, cols, ms, closed, list(prefix), ends=by_end, state=state,
            node_limit=None if deadline is None else SLICE_NODES,
        )  # fmt: skip
        leaves += run.leaves
        nodes += run.nodes
        if sample is None and len(run.out):
            sample = run.out[0].tolist()
        if deadline is None or run.status == K.DONE:
            break
        state = (run.path, run.masks, run.depth)
    if by_end is None:
        return leaves, nodes, sample
    return leaves, nodes, sample, [[int(e), int(by_end[e])] for e in np.flatnonzero(by_end)]


class OutOfTime(Exception):
    """The time limit passed while the jobs were being planned."""


def prefix_jobs(
    rows, cols, moves, closed, reps, depth, deadline: Deadline | None = None
) -> tuple[list[tuple[int, ...]], int]:
    """Every live path prefix of ``depth`` cells from the representatives, and the nodes spent
    (`OutOfTime` when ``deadline`` passes: a board of 1 x 100,000 has 50,000 of them)."""
    prefixes: list[tuple[int, ...]] = []
    nodes = 0
    for k, (r, c) in enumerate(reps):
        if deadline is not None and k % 64 == 63 and deadline.expired():
            raise OutOfTime  # (a small board is planned whole: its checkpoint can be resumed)
        cap = 1024
        while True:
            run = kernel_run(
                rows, cols, moves, closed, [r * cols + c], stop_depth=depth, out_cap=cap
            )
            if run.leaves <= cap:
                break
            cap = run.leaves
        nodes += 1 + run.nodes  # the start state, then the states down to the prefixes
        prefixes.extend(tuple(int(x) for x in p[:depth]) for p in run.out)
    return prefixes, nodes


def choose_split_depth(rows, cols, moves, closed, reps, deadline: Deadline | None = None) -> int:
    """The smallest prefix depth that gives at least TARGET_JOBS (TARGET_JOBS_BIG) jobs."""
    n = rows * cols
    target = TARGET_JOBS_BIG if n >= BIG_BOARD_CELLS else TARGET_JOBS
    depth = 2
    while depth < n:
        jobs, _ = prefix_jobs(rows, cols, moves, closed, reps, depth, deadline)
        if len(jobs) >= target:
            break
        depth += 1
    return min(depth, n)


@contextmanager
def scheduler_for(scheduler: Any) -> Iterator[Any]:
    """The scheduler to run jobs on: an address is connected here (refused before any search
    when wrong) and the connection closed on leaving; a client or None is used as it is."""
    own = None
    if isinstance(scheduler, str):
        scheduler = own = connect_scheduler(scheduler)
    try:
        yield scheduler
    finally:
        if own is not None:
            own.close()


@dataclass
class JobsOutcome:
    """What `count_in_jobs()` found. ``counted`` maps each representative start to its
    paths (with ``ends``: to ``(paths, counts by end cell)``); ``samples`` to one path from it;
    ``jobs`` is the number of jobs of the problem, ``jobs_done`` those finished (fewer when the
    time limit came first), ``resumed_nodes`` the nodes of jobs finished by earlier runs."""

    counted: dict[Cell, Any]
    nodes: int
    samples: dict[Cell, np.ndarray]
    jobs: int
    split_depth: int
    resumed_nodes: int
    jobs_done: int

    @property
    def complete(self) -> bool:
        return self.jobs_done == self.jobs


@dataclass
class _Plan:
    """The jobs of a problem (by key: the prefix's cells joined by dots), those done (from a
    checkpoint, then as they finish) with their sample paths by start cell."""

    depth: int
    keyed: dict[str, tuple[int, ...]]
    prefix_nodes: int
    problem: dict[str, Any]
    done: dict[str, list]
    samples: dict[int, list[int]]
    ckpt: Path | None

    def save(self) -> None:
        if self.ckpt is not None:
            save_checkpoint(self.ckpt, self.problem, self.done, self.samples)


def count_in_jobs(
    rows, cols, start, ms, closed, reps, jobs, ckpt, data, scheduler, tracker, deadline, ends=False
) -> JobsOutcome:
    """Split the counts from ``reps`` into prefix jobs, run them, checkpoint, and add up.
    ``data`` is the checkpoint's content (None: start afresh); ``tracker`` a
    [`Progress`][rompicapo.common.Progress] counting jobs."""
    clock = None if deadline.time_limit is None else deadline
    try:
        plan = _plan_jobs(rows, cols, start, ms, closed, reps, ckpt, data, clock, ends)
    except OutOfTime:  # no job planned yet: an incomplete count of nothing
        nothing = {rep: (0, np.zeros(rows * cols, np.int64)) if ends else 0 for rep in reps}
        return JobsOutcome(nothing, 0, {}, 1, 0, 0, 0)
    resumed_nodes = sum(value[1] for value in plan.done.values())
    _run_plan(plan, rows, cols, ms, closed, jobs, scheduler, tracker, deadline, ends)
    counted, nodes, found = _add_up(plan, rows, cols, reps, ends)
    return JobsOutcome(
        counted, nodes, found, len(plan.keyed), plan.depth, resumed_nodes, len(plan.done)
    )


def _plan_jobs(rows, cols, start, ms, closed, reps, ckpt, data, clock, ends) -> _Plan:
    """The jobs, the split depth (the checkpoint's, or chosen) and what is done already."""
    if data is not None:
        depth = same_problem(ckpt, data, rows, cols, start, ms, closed, ends)
        done: dict[str, list] = data["done"]
        samples: dict[int, list[int]] = {int(k): v for k, v in data.get("samples", {}).items()}
    else:
        depth = choose_split_depth(rows, cols, ms, closed, reps, clock)
        done, samples = {}, {}
    prefixes, prefix_nodes = prefix_jobs(rows, cols, ms, closed, reps, depth, clock)
    problem = problem_of(rows, cols, start, ms, closed, depth, ends)
    keyed = {".".join(map(str, p)): p for p in prefixes}
    if not set(done) <= set(keyed):
        raise InputError(f"checkpoint {str(ckpt)!r} lists jobs this problem does not have: corrupt")
    return _Plan(depth, keyed, prefix_nodes, problem, done, samples, ckpt)


def _run_plan(plan, rows, cols, ms, closed, jobs, scheduler, tracker, deadline, ends) -> None:
    """Run the jobs not done yet, recording each in ``plan`` (and its checkpoint, at most every
    CHECKPOINT_EVERY seconds and at the end, Ctrl-C included) until all are done or the time
    limit comes."""
    # the deadline travels with each job as seconds since the epoch (workers' clocks)
    until = None if deadline.time_limit is None else time.time() + deadline.remaining()
    pending = [
        (rows, cols, ms.spec, bool(closed), p, until, bool(ends))
        for k, p in plan.keyed.items()
        if k not in plan.done
    ]
    last_save = time.monotonic()
    tracker.total = len(plan.keyed)
    tracker.update(len(plan.done))
    try:
        for job, (leaves, job_nodes, sample, *by_end) in run_jobs(
            count_job,
            pending,
            n_jobs=jobs,
            scheduler=scheduler,
            deadline=None if deadline.time_limit is None else deadline,
        ):
            prefix = job[4]
            if leaves is None:  # stopped by the deadline: not done, not saved
                break
            plan.done[".".join(map(str, prefix))] = [leaves, job_nodes, *by_end]
            if sample is not None and prefix[0] not in plan.samples:
                plan.samples[prefix[0]] = sample
            tracker.update(len(plan.done))
            if plan.ckpt is not None and time.monotonic() - last_save > CHECKPOINT_EVERY:
                plan.save()
                last_save = time.monotonic()
            if deadline.expired():
                break  # the time limit: keep what is done (saved below), stop the rest
    except KeyboardInterrupt:
        plan.save()
        raise
    plan.save()


def _add_up(plan, rows, cols, reps, ends) -> tuple[dict, int, dict[Cell, np.ndarray]]:
    """The counts by representative, the nodes (planning included) and the sample paths."""
    counted = {rep: 0 for rep in reps}
    by_end = {rep: np.zeros(rows * cols, np.int64) for rep in reps}
    nodes = plan.prefix_nodes
    rep_of = {r * cols + c: (r, c) for r, c in reps}
    for key, (leaves, job_nodes, *pairs) in plan.done.items():
        rep = rep_of[plan.keyed[key][0]]
        counted[rep] += leaves
        nodes += job_nodes
        for cell, paths in pairs[0] if pairs else ():
            by_end[rep][cell] += paths
    if ends:
        counted = {rep: (counted[rep], by_end[rep]) for rep in reps}
    found = {
        rep_of[cell]: np.asarray(path, dtype=np.int64)
        for cell, path in plan.samples.items()
        if cell in rep_of
    }
    return counted, nodes, found
