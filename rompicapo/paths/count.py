"""Exhaustive search of jump-grid paths: exact counts, enumeration, proofs of impossibility.

A path visits every cell of the ``rows x cols`` board once, each step one move of the move set;
it is a numpy array of flat cells ``r * cols + c``. Two paths that differ by a symmetry of the
board count separately. A closed tour is a path whose last cell is one move from its first.

- [`count_paths()`][rompicapo.paths.count_paths] counts the paths from one start or from every start
  (each class of starts under the board's symmetries is searched once), in parallel prefix jobs with
  a progress bar and a resumable checkpoint file.
- [`search_path()`][rompicapo.paths.search_path] finds one path or proves that none exists.
- [`iter_paths()`][rompicapo.paths.iter_paths] streams the paths from a start in search order.

```pycon
>>> count_paths(5, 7, start=(2, 3)).count  # the "Solitario del 35" from its centre
13272
>>> search_path(4, 4, (0, 0)).proven, search_path(4, 4, (0, 0)).path is None
(True, True)

```

The kernels live in `rompicapo.paths._count_kernel`, called through
`rompicapo.paths.exhaustive`; the jobs, checkpoints, symmetries and counts by end cell
have their own modules (`count_jobs`, `checkpoints`,
`symmetry`, `ends`). ``verify()`` on the results
checks paths with `rompicapo.paths.verify`, which shares no code with them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from rompicapo.common import (
    Deadline,
    Progress,
    ProgressCallback,
    Stopwatch,
    check_limit,
    check_node_limit,
    check_seed,
    check_time_limit,
    peak_rss_bytes,
    resolve_jobs,
)
from rompicapo.paths import _count_kernel as K
from rompicapo.paths.checkpoints import (
    CHECKPOINT_EVERY,
    CHECKPOINT_FORMAT,
    CHECKPOINT_VERSION,
    open_checkpoint,
)
from rompicapo.paths.count_jobs import (
    BIG_BOARD_CELLS,
    SLICE_NODES,
    TARGET_JOBS,
    TARGET_JOBS_BIG,
    JobsOutcome,
    count_in_jobs,
    scheduler_for,
)
from rompicapo.paths.count_results import CountResult, EndCountResult, ExhaustiveResult
from rompicapo.paths.ends import count_end_matrix
from rompicapo.paths.exhaustive import (
    MAX_SEARCH_CELLS,
    NO_LIMIT,
    check_board,
    check_count_ends,
    check_start,
    kernel_run,
    kernel_seed,
    result_fields,
    warm_up,
)
from rompicapo.paths.moves import MoveSet
from rompicapo.paths.symmetry import Cell, board_symmetries, start_classes

__all__ = [
    "CountResult",
    "EndCountResult",
    "ExhaustiveResult",
    "board_symmetries",
    "count_end_matrix",
    "count_paths",
    "iter_paths",
    "search_path",
    "start_classes",
]
# Defined in the modules the count is made of, and importable from here as before; a setting
# changed here changes nothing: change it on its own module.
__all__ += [
    "BIG_BOARD_CELLS",
    "CHECKPOINT_EVERY",
    "CHECKPOINT_FORMAT",
    "CHECKPOINT_VERSION",
    "MAX_SEARCH_CELLS",
    "NO_LIMIT",
    "SLICE_NODES",
    "TARGET_JOBS",
    "TARGET_JOBS_BIG",
    "Cell",
]

# Without --jobs/--checkpoint/--scheduler, count_paths first tries the whole count in this
# process with this many nodes (about 4 s of kernel time at 25 M nodes/s): starting worker
# processes costs 1-3 s (interpreter, numba cache load; more on a loaded machine), so a count
# pays for them only when it is several seconds long. 6x6 from every start (49 M nodes) stays
# in-process. A count that overruns the probe loses at most this much work.
PROBE_NODES = 100_000_000

# Paths enumerated per kernel call by iter_paths: big enough to amortise the call, small
# enough that the first path arrives at once.
ENUM_CHUNK = 256


def count_paths(
    rows: int,
    cols: int,
    start: Cell | None = None,
    moves: str | MoveSet = "caselle",
    closed: bool = False,
    *,
    jobs: int | None = None,
    checkpoint: str | os.PathLike | None = None,
    scheduler: Any = None,
    progress: ProgressCallback | None = None,
    samples: bool = True,
    time_limit: float | None = None,
) -> CountResult:
    """Count exactly the paths (``closed=True``: closed tours) from ``start``, or from every
    start when ``start`` is None.

    - ``jobs``: worker processes (default None: all cores; 1 = this process only; more than
      the cores are capped, with a note in ``result.notes``). Without ``jobs``,
      ``checkpoint`` or ``scheduler`` a small count runs in this process at once.
    - ``checkpoint``: a ``.json`` file of finished prefix jobs, checksummed; an interrupted
      count (Ctrl-C, a crash, the time limit) resumes from it and gives the same total. It
      records the problem and refuses a different one, or an edited file
      ([`InputError`][rompicapo.common.InputError]). Its folder is checked before any search.
    - ``scheduler``: a Dask scheduler address (or ``distributed.Client``) to run the jobs on;
      a wrong address is refused before any search.
    - ``progress``: a callable receiving [`ProgressEvent`][rompicapo.common.ProgressEvent] (jobs
      done of the total); the library draws nothing.
    - ``samples``: keep one path per class of starts in the result, for ``verify()``.
    - ``time_limit``: seconds of wall clock for the whole call; when it runs out the jobs
      finished so far are saved (with ``checkpoint``) and the result has ``complete=False``.

    With ``start=None`` each class of starts under the board's symmetries (that preserve the
    move set) is counted once; ``table`` has every start. Raises InputError for a bad size,
    start, move set, path or address, and for a board too large for an exhaustive search. On
    KeyboardInterrupt the checkpoint is saved and the interrupt re-raised.

    ```pycon
    >>> count_paths(5, 5, start=(0, 0), jobs=1).count
    552

    ```
    """
    deadline = Deadline(check_time_limit(time_limit))
    ms = check_board(rows, cols, moves)
    rows, cols = int(rows), int(cols)
    check_count_ends(rows, cols, ms)
    if start is not None:
        start = check_start(start, rows, cols)
    jobs, note = (None, "") if jobs is None else resolve_jobs(jobs)  # None: probe, then all cores
    notes = [note] if note else []
    ckpt, data = open_checkpoint(checkpoint, rows, cols, start, ms, closed)
    tracker = Progress(progress, unit="jobs")
    per_rep: dict[Cell, int] = {}
    found: dict[Cell, np.ndarray] = {}
    outcome = None
    with scheduler_for(scheduler) as scheduler:
        classes = {start: [start]} if start is not None else start_classes(rows, cols, ms)
        compile_seconds = warm_up()
        with Stopwatch() as sw:
            todo, nodes = list(classes), 0
            if jobs is None and ckpt is None and scheduler is None:
                todo, nodes = _count_in_process(
                    rows, cols, ms, closed, todo, deadline, per_rep, found
                )
            if todo:
                outcome = count_in_jobs(
                    rows, cols, start, ms, closed, todo, jobs, ckpt, data, scheduler,
                    tracker, deadline,
                )  # fmt: skip
                per_rep.update(outcome.counted)
                found.update(outcome.samples)
                nodes += outcome.nodes
    tracker.finish(counts={"nodes": nodes})
    complete = outcome is None or outcome.complete
    table, count = _add_up(rows, cols, start, classes, per_rep)
    return CountResult(
        solve_seconds=sw.seconds, compile_seconds=compile_seconds,
        counts=_job_counts(nodes, outcome), rows=rows, cols=cols, moves=ms.spec,
        closed=bool(closed), start=start, count=count, table=table if complete else None,
        nodes=nodes, jobs=0 if outcome is None else outcome.jobs,
        split_depth=0 if outcome is None else outcome.split_depth,
        samples=found if samples else {}, complete=complete, notes=notes,
        checkpoint=None if ckpt is None else str(ckpt), peak_bytes=peak_rss_bytes(),
    )  # fmt: skip


def _job_counts(nodes: int, outcome: JobsOutcome | None) -> dict[str, int]:
    """The result's ``counts``: nodes, jobs run, and the nodes of jobs finished by earlier runs
    (``nodes_from_checkpoint``, not in this run's solve_seconds); ``jobs_done`` when the time
    limit stopped the jobs."""
    if outcome is None:  # counted in this process
        return {"nodes": nodes, "jobs": 0, "nodes_from_checkpoint": 0}
    counts = {"nodes": nodes, "jobs": outcome.jobs, "nodes_from_checkpoint": outcome.resumed_nodes}
    if not outcome.complete:
        counts["jobs_done"] = outcome.jobs_done
    return counts


def _count_in_process(rows, cols, ms, closed, reps, deadline, per_rep, found):
    """Count from the representatives in this process, within PROBE_NODES nodes in all (and
    the time limit), into ``per_rep`` and ``found``: the representatives left to the jobs and
    the nodes spent."""
    todo = list(reps)
    nodes = 0
    budget = PROBE_NODES
    if deadline.time_limit is not None:  # the kernel has no clock: bound it by its speed
        budget = min(budget, max(1, int(10_000_000 * deadline.remaining())))
    for rep in list(todo):
        if deadline.expired():
            break  # left to the jobs, which stop at the deadline too
        run = kernel_run(rows, cols, ms, closed, [rep[0] * cols + rep[1]], node_limit=budget)
        if run.status != K.DONE:
            break
        budget -= run.nodes
        per_rep[rep] = run.leaves
        nodes += 1 + run.nodes  # the start state, then the states below it
        if len(run.out):
            found[rep] = run.out[0].copy()
        todo.remove(rep)
    return todo, nodes


def _add_up(rows, cols, start, classes, per_rep) -> tuple[np.ndarray | None, int]:
    """The table of counts from every start (None with a start) and the count."""
    if start is not None:
        return None, per_rep[start]
    table = np.zeros((rows, cols), dtype=np.int64)
    for rep, members in classes.items():
        for m in members:
            table[m] = per_rep[rep]
    return table, int(table.sum())


# --------------------------------------------------------------------------------------------
# One path or a proof; enumeration
# --------------------------------------------------------------------------------------------


def search_path(
    rows: int,
    cols: int,
    start: Cell | None,
    moves: str | MoveSet = "caselle",
    closed: bool = False,
    node_limit: int | None = None,
    *,
    seed: int | None = None,
) -> ExhaustiveResult:
    """Find one path from ``start`` (any start when None) by exhaustive search, or prove none.

    ``node_limit`` caps the nodes (over all starts); ``seed`` (any integer) tries moves in a
    random order, which gives a random (not uniform) path. See
    [`ExhaustiveResult`][rompicapo.paths.ExhaustiveResult] for ``proven``.

    ```pycon
    >>> result = search_path(5, 5, (0, 0))
    >>> result.proven, result.exists, result.path[:6].tolist()
    (True, True, [0, 15, 18, 3, 11, 14])
    >>> print(search_path(4, 4, None).report())  # from any start: none
    4x4 caselle path from any start: none, proven by exhaustive search (3 nodes)
    >>> search_path(5, 5, (0, 0), node_limit=5).exists  # stopped first: not known

    ```"""
    ms = check_board(rows, cols, moves)
    rows, cols = int(rows), int(cols)
    node_limit = check_node_limit(node_limit)
    seed = kernel_seed(check_seed(seed))
    if start is not None:
        start = check_start(start, rows, cols)
    reps = [start] if start is not None else list(start_classes(rows, cols, ms))
    compile_seconds = warm_up()
    nodes = 0
    path = None
    proven = True
    with Stopwatch() as sw:
        for rep in reps:
            # the kernel's limit counts the states below the start, which is one node too
            left = None if node_limit is None else node_limit - nodes - 1
            if left is not None and left < 1:
                proven = False
                break
            run = kernel_run(
                rows, cols, ms, closed, [rep[0] * cols + rep[1]],
                stop_when_full=True, node_limit=left, seed=seed,
            )  # fmt: skip
            nodes += 1 + run.nodes  # the start state, then the states below it
            if len(run.out):
                path = run.out[0].copy()
                break
            if run.status == K.LIMIT:
                proven = False
                break
    return ExhaustiveResult(
        **result_fields(sw.seconds, compile_seconds, nodes, rows, cols, ms, closed),
        start=start,
        path=path,
        proven=path is not None or proven,
    )


def iter_paths(
    rows: int,
    cols: int,
    start: Cell,
    moves: str | MoveSet = "caselle",
    closed: bool = False,
    limit: int | None = None,
) -> Iterator[np.ndarray]:
    """Yield the paths from ``start`` one by one, in search order, at most ``limit`` of them.

    Streams: the kernel fills a buffer of paths and resumes from its saved state, so the first
    paths arrive at once and memory stays small however many paths there are. ``limit`` is
    None (all of them) or a positive integer; the board is checked when the iterator is made,
    not at its first ``next()``.

    ```pycon
    >>> from rompicapo.paths import verify_path
    >>> first = list(iter_paths(5, 5, (0, 0), limit=3))
    >>> [path[-3:].tolist() for path in first], all(verify_path(p, 5, 5) for p in first)
    ([[9, 24, 12], [2, 17, 5], [12, 20, 23]], True)
    >>> sum(1 for _ in iter_paths(5, 5, (0, 0)))  # all of them, as count_paths counts them
    552

    ```"""
    ms = check_board(rows, cols, moves, out_paths=ENUM_CHUNK)
    rows, cols = int(rows), int(cols)
    r, c = check_start(start, rows, cols)
    limit = check_limit(limit)
    return _iter_paths(rows, cols, (r, c), ms, closed, limit)


def _iter_paths(rows, cols, start, ms, closed, limit) -> Iterator[np.ndarray]:
    r, c = start
    warm_up()
    prefix = [r * cols + c]
    state = None
    given = 0
    while limit is None or given < limit:
        cap = ENUM_CHUNK if limit is None else min(ENUM_CHUNK, limit - given)
        run = kernel_run(
            rows, cols, ms, closed, prefix, out_cap=cap, stop_when_full=True, state=state
        )
        for p in run.out:
            yield p.copy()
        given += len(run.out)
        if run.status == K.DONE:
            return
        state = (run.path, run.masks, run.depth)
