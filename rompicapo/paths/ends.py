"""Counts of paths by (start, end) pair: `count_end_matrix()`.

The search kernel counts the whole paths from a start by their last cell; one start per class
of symmetric starts is searched (or every start, ``symmetry=False``) and the other rows of the
matrix are the images of its row under the board's symmetries.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from rompicapo.common import (
    Deadline,
    Progress,
    ProgressCallback,
    Stopwatch,
    check_memory,
    resolve_jobs,
)
from rompicapo.paths.checkpoints import open_checkpoint
from rompicapo.paths.count_jobs import count_in_jobs, scheduler_for
from rompicapo.paths.count_results import EndCountResult
from rompicapo.paths.exhaustive import (
    check_board,
    check_count_ends,
    kernel_run,
    result_fields,
    warm_up,
)
from rompicapo.paths.moves import MoveSet
from rompicapo.paths.symmetry import Cell, apply_symmetry, board_symmetries, start_classes

__all__ = ["count_end_matrix"]


def count_end_matrix(
    rows: int,
    cols: int,
    moves: str | MoveSet = "caselle",
    closed: bool = False,
    *,
    symmetry: bool = True,
    jobs: int | None = None,
    checkpoint: str | os.PathLike | None = None,
    scheduler: Any = None,
    progress: ProgressCallback | bool | None = None,
) -> EndCountResult:
    """Count the paths of the board by (start, end) pair (see `EndCountResult`).

    ``symmetry``: count one start per class of symmetric starts and fill the other rows by the
    symmetry (as [`count_paths()`][rompicapo.paths.count_paths] does); False counts every start, so
    that the matrix's symmetry and invariance test the counts themselves. ``jobs``, ``checkpoint``,
    ``scheduler`` and ``progress`` as for [`count_paths()`][rompicapo.paths.count_paths] (the
    checkpoint records the end counts of each job and is a different problem from a plain count's).
    """
    ms = check_board(rows, cols, moves)
    check_count_ends(int(rows), int(cols), ms)
    rows, cols = int(rows), int(cols)
    n = rows * cols
    check_memory(8 * n * n * 2, f"the {n} x {n} matrix of counts")
    if symmetry:
        classes = start_classes(rows, cols, ms)
    else:
        classes = {(r, c): [(r, c)] for r in range(rows) for c in range(cols)}
    if jobs is not None:
        jobs, _ = resolve_jobs(jobs)
    ckpt, data = open_checkpoint(checkpoint, rows, cols, None, ms, closed, ends=True)
    tracker = Progress(None if isinstance(progress, bool) else progress, unit="jobs")
    per_rep: dict[Cell, np.ndarray] = {}
    nodes = 0
    with scheduler_for(scheduler) as scheduler:
        compile_seconds = warm_up()
        with Stopwatch() as sw:
            if jobs is None and ckpt is None and scheduler is None:
                for rep in classes:
                    by_end = np.zeros(n, np.int64)
                    run = kernel_run(rows, cols, ms, closed, [rep[0] * cols + rep[1]], ends=by_end)
                    per_rep[rep] = by_end
                    nodes += 1 + run.nodes
            else:
                outcome = count_in_jobs(
                    rows, cols, None, ms, closed, list(classes), jobs, ckpt, data, scheduler,
                    tracker, Deadline(None), ends=True,
                )  # fmt: skip
                per_rep = {rep: by_end for rep, (_, by_end) in outcome.counted.items()}
                nodes += outcome.nodes
    tracker.finish(counts={"nodes": nodes})
    return EndCountResult(
        **result_fields(sw.seconds, compile_seconds, nodes, rows, cols, ms, closed),
        matrix=_fill_matrix(rows, cols, ms, classes, per_rep),
        counted_starts=list(classes),
    )


def _fill_matrix(rows, cols, ms, classes, per_rep) -> np.ndarray:
    """The n x n matrix: each representative's counts by end, and their images for the other
    members of its class."""
    n = rows * cols
    matrix = np.zeros((n, n), np.int64)
    syms = board_symmetries(rows, cols, ms)
    ends_rc = [divmod(e, cols) for e in range(n)]
    for rep, members in classes.items():
        for member in members:
            # a symmetry that takes the representative to this member takes its paths along
            sym = next(g for g in syms if apply_symmetry(g, rep, rows, cols) == member)
            image = [apply_symmetry(sym, rc, rows, cols) for rc in ends_rc]
            cols_of = np.array([r * cols + c for r, c in image])
            matrix[member[0] * cols + member[1], cols_of] = per_rep[rep]
    return matrix
