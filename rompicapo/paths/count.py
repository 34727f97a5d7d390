"""Exhaustive search of jump-grid paths: exact counts, enumeration, proofs of impossibility.

A path visits every cell of the ``rows x cols`` board once, each step one move of the move set;
it is a numpy array of flat cells ``r * cols + c``. Two paths that differ by a symmetry of the
board count separately. A closed tour is a path whose last cell is one move from its first.

- :func:`count_paths` counts the paths from one start or from every start (each class of
  starts under the board's symmetries is searched once), in parallel prefix jobs with a
  progress bar and a resumable checkpoint file.
- :func:`search_path` finds one path or proves that none exists.
- :func:`iter_paths` streams the paths from a start in search order.

>>> count_paths(5, 7, start=(2, 3)).count  # the "Solitario del 35" from its centre
13272
>>> search_path(4, 4, (0, 0)).proven, search_path(4, 4, (0, 0)).path is None
(True, True)

The kernels live in :mod:`rompicapo.paths._count_kernel`; ``verify()`` on the results checks
paths with :mod:`rompicapo.paths.verify`, which shares no code with them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
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
    check_output_path,
    check_seed,
    check_time_limit,
    connect_scheduler,
    jit_warmup,
    peak_rss_bytes,
    read_checked_json,
    resolve_jobs,
    run_jobs,
    seed_u64,
    write_checked_json,
)
from rompicapo.paths import _count_kernel as K
from rompicapo.paths.moves import MoveSet, parse_moves

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

Cell = tuple[int, int]

# Without --jobs/--checkpoint/--scheduler, count_paths first tries the whole count in this
# process with this many nodes (about 4 s of kernel time at 25 M nodes/s): starting worker
# processes costs 1-3 s (interpreter, numba cache load; more on a loaded machine), so a count
# pays for them only when it is several seconds long. 6x6 from every start (49 M nodes) stays
# in-process. A count that overruns the probe loses at most this much work.
PROBE_NODES = 100_000_000

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

# A checkpoint file is rewritten at most this often (seconds): rewriting it after every job
# would cost O(jobs^2) on a big run.
CHECKPOINT_EVERY = 5.0

CHECKPOINT_FORMAT = "rompicapo-count-checkpoint"
CHECKPOINT_VERSION = 1

# Paths enumerated per kernel call by iter_paths: big enough to amortise the call, small
# enough that the first path arrives at once.
ENUM_CHUNK = 256

NO_LIMIT = 2**62

# An exhaustive search holds the path and a move mask per cell (two int64 arrays) and, for the
# count from every start, a list of start classes: beyond this many cells no exhaustive search
# could finish anyway (7x7 from every start is already 10^11 nodes), so the board is refused
# before anything is allocated instead of growing memory with no output.
MAX_SEARCH_CELLS = 1 << 20


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass
class CountResult(SearchResult):
    """The exact number of paths (or closed tours) from one start or from every start.

    ``count`` is the number from ``start``, or with ``start=None`` the total over all starts;
    ``table`` (rows x cols, int64) holds the count from every start (``start=None`` only).
    ``nodes`` counts the search states visited, start states included (machine-independent
    work, the same however the count is split into jobs); ``samples`` maps a start
    cell to one path from it (one per class of starts that has any), for ``verify()``.
    """

    rows: int = 0
    cols: int = 0
    moves: str = "caselle"
    closed: bool = False
    start: Cell | None = None
    count: int = 0
    table: np.ndarray | None = None
    nodes: int = 0
    jobs: int = 0
    split_depth: int = 0
    samples: dict[Cell, np.ndarray] = field(default_factory=dict)
    # False when the time limit stopped the count first: ``count`` is then a lower bound
    complete: bool = True
    notes: list[str] = field(default_factory=list)
    checkpoint: str | None = None

    _dict_exclude = ("samples", "table")

    @property
    def total(self) -> int:
        return self.count

    @property
    def min(self) -> int:
        return int(self.table.min()) if self.table is not None else self.count

    @property
    def max(self) -> int:
        return int(self.table.max()) if self.table is not None else self.count

    def _dict_extra(self) -> dict[str, Any]:
        if self.table is None:
            return {}
        return {"table": self.table, "total": self.total, "min": self.min, "max": self.max}

    def report(self, *, stats: bool = True) -> str:
        """The lines ``rompicapo count`` prints: the count (or the table), a proof line when
        there is no path, and (``stats``) the nodes and speed."""
        kind = "closed tours" if self.closed else "paths"
        board = f"{self.rows}x{self.cols} {self.moves}"
        lines = []
        if not self.complete:
            done = self.counts.get("jobs_done", 0)
            lines.append(
                f"{board} {kind}: stopped by the time limit after {done:,} of {self.jobs:,} "
                f"jobs; at least {self.count:,} (not a complete count)"
                + (
                    f"; the jobs done are saved in {self.checkpoint}: the same call resumes"
                    if self.checkpoint
                    else ""
                )
            )
        elif self.start is not None:
            lines.append(f"{board} {kind} from {self.start}: {self.count:,}")
            if self.count == 0:
                lines.append(
                    f"no {kind[:-1]} from {self.start}: proven by exhaustive search "
                    f"({self.nodes:,} nodes)"
                )
        else:
            lines.append(f"{board} {kind} from every start:")
            lines.append(_table_text(self.table))
            lines.append(f"total {self.total:,}  min {self.min:,}  max {self.max:,}")
            if self.total == 0:
                lines.append(
                    f"no {kind[:-1]} from any start: proven by exhaustive search "
                    f"({self.nodes:,} nodes)"
                )
        if stats:
            searched = self.nodes - self.counts.get("nodes_from_checkpoint", 0)
            rate = searched / self.solve_seconds if self.solve_seconds > 0 else 0.0
            jobs = f"  jobs {self.jobs}" if self.jobs else ""
            lines.append(
                f"nodes {self.nodes:,}{jobs}  {self.solve_seconds:.3f} s"
                f" (+{self.compile_seconds:.2f} s compile)  {rate / 1e6:.1f} M nodes/s"
            )
        return "\n".join(lines)

    def verify(self) -> bool:
        """Recount with independent code: True when the recount equals ``count`` (and the table
        from every start, when there is one), False when not.

        The recount (:func:`rompicapo.paths.verify.recount_paths`, a plain depth-first search
        in Python) is slow on purpose, so it runs on boards of at most
        :data:`~rompicapo.paths.verify.RECOUNT_MAX_CELLS` cells; larger counts raise
        :class:`~rompicapo.common.NotVerifiable` (their sample paths can still be checked with
        :meth:`check_samples`, which is evidence, not a verification). An incomplete count
        (time limit) raises NotVerifiable too.
        """
        from rompicapo.paths.verify import RECOUNT_MAX_CELLS, recount_paths

        if not self.complete:
            raise NotVerifiable("the count was stopped by the time limit: nothing to check")
        if self.rows * self.cols > RECOUNT_MAX_CELLS:
            raise NotVerifiable(
                f"{self.rows}x{self.cols} is too large for the independent recount (at most "
                f"{RECOUNT_MAX_CELLS} cells); check_samples() checks the sample paths"
            )
        moves = parse_moves(self.moves)
        if self.table is None:
            return (
                recount_paths(self.rows, self.cols, moves, self.start, closed=self.closed)
                == self.count
            )
        if self.table.shape != (self.rows, self.cols):
            return False
        for r in range(self.rows):
            for c in range(self.cols):
                want = recount_paths(self.rows, self.cols, moves, (r, c), closed=self.closed)
                if int(self.table[r, c]) != want:
                    return False
        return int(self.table.sum()) == self.count

    def check_samples(self) -> bool:
        """Check every sample path with the independent verifier, and the table's bookkeeping.

        True when each sample is a valid path (closed when asked) from its start, the count
        from that start is non-zero, every start with a non-zero count has a sample in its
        class of symmetric starts, and the table sums to ``count``. This is evidence, not a
        recount: see :meth:`verify`. Raises :class:`~rompicapo.common.NotVerifiable` for an
        incomplete count and for a count of zero (no path to check).
        """
        from rompicapo.paths.verify import verify_path

        if not self.complete:
            raise NotVerifiable("the count was stopped by the time limit: nothing to check")
        if self.count == 0:
            raise NotVerifiable(
                "a count of zero has no path to check; it rests on the exhaustive search alone"
            )
        moves = parse_moves(self.moves)
        for start, path in self.samples.items():
            check = verify_path(
                np.asarray(path), self.rows, self.cols, moves, start=start, closed=self.closed
            )
            if not check:
                return False
        if self.table is None:
            if self.start not in self.samples:
                raise NotVerifiable("the result keeps no sample path (samples=False)")
            return True
        if self.table.shape != (self.rows, self.cols) or int(self.table.sum()) != self.count:
            return False
        for rep, members in start_classes(self.rows, self.cols, moves).items():
            counts = {int(self.table[m]) for m in members}
            if len(counts) != 1 or (counts.pop() > 0) != (rep in self.samples):
                return False
        return True


def _table_text(table) -> str:
    rows, cols = table.shape
    width = max(len(f"{int(table.max()):,}"), len(str(cols - 1)))
    head = "    " + " ".join(f"{c:>{width}}" for c in range(cols))
    lines = [head]
    for r in range(rows):
        lines.append(f"{r:>3} " + " ".join(f"{int(v):>{width},}" for v in table[r]))
    return "\n".join(lines)


@dataclass
class ExhaustiveResult(SearchResult):
    """One path found by exhaustive search, or a proof that none exists.

    ``proven`` is True iff the search finished: either ``path`` holds a path, or ``path`` is
    None and no path exists (from ``start``, or from any start when ``start`` is None). With a
    ``node_limit`` the search may stop first: then ``path`` is None and ``proven`` is False.
    """

    rows: int = 0
    cols: int = 0
    moves: str = "caselle"
    closed: bool = False
    start: Cell | None = None
    path: np.ndarray | None = None
    proven: bool = False
    nodes: int = 0

    @property
    def exists(self) -> bool | None:
        """True / False when known, None when the node limit stopped the search first."""
        if self.path is not None:
            return True
        return False if self.proven else None

    def report(self) -> str:
        where = "any start" if self.start is None else f"{self.start}"
        kind = "closed tour" if self.closed else "path"
        head = f"{self.rows}x{self.cols} {self.moves} {kind} from {where}"
        if self.path is not None:
            return f"{head}: found ({self.nodes:,} nodes)"
        if self.proven:
            return f"{head}: none, proven by exhaustive search ({self.nodes:,} nodes)"
        return f"{head}: not settled within the node limit ({self.nodes:,} nodes)"

    def verify(self) -> bool:
        """A found path passes the independent verifier (True) or not (False). Without a
        path there is nothing to check: :class:`~rompicapo.common.NotVerifiable` (a proof of
        non-existence rests on the exhaustive search alone)."""
        if self.path is None:
            raise NotVerifiable(
                "no path to check" + (" (none exists, by exhaustive search)" if self.proven else "")
            )
        from rompicapo.paths.verify import verify_path

        first = (int(self.path[0]) // self.cols, int(self.path[0]) % self.cols)
        return bool(
            verify_path(
                self.path,
                self.rows,
                self.cols,
                parse_moves(self.moves),
                start=self.start if self.start is not None else first,
                closed=self.closed,
            )
        )


# --------------------------------------------------------------------------------------------
# Input checks and symmetries
# --------------------------------------------------------------------------------------------


def _check_board(rows: int, cols: int, moves: str | MoveSet, out_paths: int = 1) -> MoveSet:
    """The move set of a valid board for exhaustive search, or InputError before allocating:
    sizes are compared as Python ints (no overflow), the board must be small enough for an
    exhaustive search to be held, and its arrays must fit in memory."""
    for name, v in (("rows", rows), ("cols", cols)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise InputError(f"{name} must be an integer, got {v!r}")
        if v < 1:
            raise InputError(f"the board needs at least one row and one column, got {rows}x{cols}")
    cells = int(rows) * int(cols)
    if cells > MAX_SEARCH_CELLS:
        raise InputError(
            f"a {rows}x{cols} board has {cells:,} cells: exhaustive search takes at most "
            f"{MAX_SEARCH_CELLS:,} cells (7x7 from every start is already 10^11 nodes)"
        )
    ms = parse_moves(moves)
    if len(ms) > K.MAX_MOVES:
        raise InputError(f"at most {K.MAX_MOVES} moves are supported, got {len(ms)}")
    # path and move masks (int64 per cell), the output buffer of paths, and the padded board
    check_memory(8 * cells * (3 + out_paths), f"exhaustive search of a {rows}x{cols} board")
    return ms


def _check_start(start: Any, rows: int, cols: int) -> Cell:
    try:
        r, c = (int(x) for x in start)
    except (TypeError, ValueError):
        raise InputError(f"a start is a cell (row, col), got {start!r}") from None
    if not (0 <= r < rows and 0 <= c < cols):
        raise InputError(
            f"start ({r}, {c}) is outside the {rows}x{cols} board "
            f"(rows 0..{rows - 1}, columns 0..{cols - 1})"
        )
    return r, c


def board_symmetries(rows: int, cols: int, moves: str | MoveSet = "caselle") -> list[tuple]:
    """The symmetries of the board that map the move set onto itself.

    Each is ``(transpose, flip_rows, flip_cols)``: transpose first (square boards only), then
    mirror rows and/or columns. A rectangle has 4 (8 when square), fewer when a custom move
    set is not symmetric under some of them.
    """
    ms = parse_moves(moves)
    moveset = set(ms.moves)
    out = []
    for transpose in (False, True) if rows == cols else (False,):
        for flip_r in (False, True):
            for flip_c in (False, True):
                mapped = set()
                for dr, dc in moveset:
                    if transpose:
                        dr, dc = dc, dr
                    mapped.add((-dr if flip_r else dr, -dc if flip_c else dc))
                if mapped == moveset:
                    out.append((transpose, flip_r, flip_c))
    return out


def _apply(sym: tuple, cell: Cell, rows: int, cols: int) -> Cell:
    transpose, flip_r, flip_c = sym
    r, c = cell
    if transpose:
        r, c = c, r
    return (rows - 1 - r if flip_r else r, cols - 1 - c if flip_c else c)


def start_classes(rows: int, cols: int, moves: str | MoveSet = "caselle") -> dict[Cell, list[Cell]]:
    """The classes of start cells under the board's symmetries: representative -> members.

    Representatives are the first cell of each class in row-major order; paths from any two
    members of a class are in one-to-one correspondence, so one count serves the class.
    """
    syms = board_symmetries(rows, cols, moves)
    # every cell's images under the symmetries at once (a 1 x 100,000 board has 50,000
    # classes: cell by cell in Python this took most of a --time of a second or two)
    flat = np.arange(rows * cols, dtype=np.int64)
    images = np.stack(
        [rr * cols + cc for rr, cc in (_apply(s, divmod(flat, cols), rows, cols) for s in syms)]
    )
    images.sort(axis=0)  # each column: the class of that cell, its first cell on top
    reps = np.flatnonzero(images[0] == flat)
    orbits = images[:, reps].T.tolist()
    return {
        divmod(int(first), cols): [divmod(m, cols) for m in sorted(set(orbit))]
        for first, orbit in zip(reps.tolist(), orbits, strict=True)
    }


# --------------------------------------------------------------------------------------------
# Kernel calls
# --------------------------------------------------------------------------------------------


@dataclass
class _Run:
    status: int
    leaves: int
    nodes: int
    out: np.ndarray
    path: np.ndarray
    masks: np.ndarray
    depth: int


def _kernel_run(
    rows: int,
    cols: int,
    moves: MoveSet,
    closed: bool,
    prefix: list[int] | np.ndarray,
    *,
    stop_depth: int | None = None,
    out_cap: int = 1,
    stop_when_full: bool = False,
    node_limit: int | None = None,
    seed: int | None = None,
    state: tuple[np.ndarray, np.ndarray, int] | None = None,
    rules: int = K.DEFAULT_RULES,
    ends: np.ndarray | None = None,
) -> _Run:
    """One call of the search kernel from ``prefix`` (or from a saved ``state``); ``ends``
    (int64, one per cell) counts the whole paths by their last cell."""
    n = rows * cols
    dr, dc = moves.arrays()
    if state is None:
        path = np.zeros(n, dtype=np.int64)
        path[: len(prefix)] = prefix
        masks = np.full(n, K.UNEXPANDED, dtype=np.int64)
        depth = len(prefix)
    else:
        path, masks, depth = state
    out = np.empty((out_cap, n), dtype=np.int64)
    status, leaves, nodes, n_out, depth = K.search(
        np.int64(rows),
        np.int64(cols),
        dr,
        dc,
        bool(closed),
        np.int64(rules),
        path,
        masks,
        np.int64(depth),
        np.int64(len(prefix)),
        np.int64(n + 1 if stop_depth is None else stop_depth),
        out,
        bool(stop_when_full),
        np.int64(NO_LIMIT if node_limit is None else node_limit),
        np.int64(-1 if seed is None else seed),
        np.empty(0, np.int64) if ends is None else ends,
    )
    return _Run(int(status), int(leaves), int(nodes), out[:n_out], path, masks, int(depth))


def _warm_up() -> float:
    """Compile (or load from numba's cache) the search kernel on a 1x2 board."""
    return jit_warmup(
        "paths.count.search", lambda: _kernel_run(1, 2, parse_moves("0,1"), False, [0])
    )


# With a time limit, a job runs in slices of this many nodes (a few tenths of a second) and
# looks at the clock between them, so a worker stops soon after the deadline instead of
# finishing a job that may take minutes. The kernel resumes exactly where a slice stopped, so
# the counts are those of one uninterrupted call.
SLICE_NODES = 2_000_000


def _count_job(job: tuple) -> tuple:
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
        run = _kernel_run(
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


# --------------------------------------------------------------------------------------------
# Checkpoints
# --------------------------------------------------------------------------------------------


def _problem(rows, cols, start, moves: MoveSet, closed, split_depth, ends=False) -> dict:
    problem = {
        "rows": rows,
        "cols": cols,
        "start": list(start) if start is not None else None,
        "moves": sorted([list(m) for m in moves.moves]),
        "closed": bool(closed),
        "split_depth": split_depth,
    }
    if ends:
        problem["ends"] = True  # counts by (start, end) pair: another problem's checkpoint
    return problem


def _load_checkpoint(path: Path) -> dict[str, Any] | None:
    """The checkpoint at ``path`` (None if there is no file); InputError if it is unusable.

    Checkpoints carry a checksum of their content (:func:`~rompicapo.common.write_checked_json`):
    an edited count or a damaged file is refused, never added to a total.
    """
    if not path.exists():
        return None
    try:
        data = read_checked_json(path, kind=CHECKPOINT_FORMAT, what="checkpoint")
    except InputError as exc:
        raise InputError(
            f"checkpoint {str(path)!r} is corrupt or not a rompicapo count checkpoint ({exc})"
        ) from None
    try:
        if data.get("format") != CHECKPOINT_FORMAT or data.get("version") != CHECKPOINT_VERSION:
            raise ValueError
        problem = data["problem"]
        done = data["done"]
        if not isinstance(problem, dict) or not isinstance(done, dict):
            raise ValueError
        for key, value in done.items():
            [int(x) for x in key.split(".")]
            leaves, nodes = value[:2]
            for cell, paths in value[2] if len(value) > 2 else ():  # counts by end cell
                if type(cell) is not int or type(paths) is not int:
                    raise ValueError
            if not all(type(x) is int for x in (leaves, nodes)):
                raise ValueError
            if leaves < 0 or nodes < 0:
                raise ValueError
        samples = data.get("samples", {})
        if not isinstance(samples, dict):
            raise ValueError
        for key, value in samples.items():
            int(key)
            [int(x) for x in value]
    except (ValueError, TypeError, KeyError, AttributeError):
        raise InputError(
            f"checkpoint {str(path)!r} is corrupt or not a rompicapo count checkpoint"
        ) from None
    return data


def _save_checkpoint(path: Path, problem, done, samples) -> None:
    """Write the checkpoint atomically, with a checksum of its content."""
    data = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "problem": problem,
        "done": done,
        "samples": {str(k): v for k, v in samples.items()},
    }
    write_checked_json(path, data, kind=CHECKPOINT_FORMAT)


# --------------------------------------------------------------------------------------------
# count_paths
# --------------------------------------------------------------------------------------------


class _OutOfTime(Exception):
    """The time limit passed while the jobs were being planned."""


def _prefix_jobs(
    rows, cols, moves, closed, reps, depth, deadline: Deadline | None = None
) -> tuple[list[tuple[int, ...]], int]:
    """Every live path prefix of ``depth`` cells from the representatives, and the nodes spent
    (:class:`_OutOfTime` when ``deadline`` passes: a board of 1 x 100,000 has 50,000 of them)."""
    prefixes: list[tuple[int, ...]] = []
    nodes = 0
    for k, (r, c) in enumerate(reps):
        if deadline is not None and k % 64 == 63 and deadline.expired():
            raise _OutOfTime  # (a small board is planned whole: its checkpoint can be resumed)
        cap = 1024
        while True:
            run = _kernel_run(
                rows, cols, moves, closed, [r * cols + c], stop_depth=depth, out_cap=cap
            )
            if run.leaves <= cap:
                break
            cap = run.leaves
        nodes += 1 + run.nodes  # the start state, then the states down to the prefixes
        prefixes.extend(tuple(int(x) for x in p[:depth]) for p in run.out)
    return prefixes, nodes


def _choose_split_depth(rows, cols, moves, closed, reps, deadline: Deadline | None = None) -> int:
    n = rows * cols
    target = TARGET_JOBS_BIG if n >= BIG_BOARD_CELLS else TARGET_JOBS
    depth = 2
    while depth < n:
        jobs, _ = _prefix_jobs(rows, cols, moves, closed, reps, depth, deadline)
        if len(jobs) >= target:
            break
        depth += 1
    return min(depth, n)


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
      (:class:`~rompicapo.common.InputError`). Its folder is checked before any search.
    - ``scheduler``: a Dask scheduler address (or ``distributed.Client``) to run the jobs on;
      a wrong address is refused before any search.
    - ``progress``: a callable receiving :class:`~rompicapo.common.ProgressEvent` (jobs done of
      the total); the library draws nothing.
    - ``samples``: keep one path per class of starts in the result, for ``verify()``.
    - ``time_limit``: seconds of wall clock for the whole call; when it runs out the jobs
      finished so far are saved (with ``checkpoint``) and the result has ``complete=False``.

    With ``start=None`` each class of starts under the board's symmetries (that preserve the
    move set) is counted once; ``table`` has every start. Raises InputError for a bad size,
    start, move set, path or address, and for a board too large for an exhaustive search. On
    KeyboardInterrupt the checkpoint is saved and the interrupt re-raised.
    """
    deadline = Deadline(check_time_limit(time_limit))
    ms = _check_board(rows, cols, moves)
    rows, cols = int(rows), int(cols)
    if start is not None:
        start = _check_start(start, rows, cols)
    notes: list[str] = []
    if jobs is not None:
        jobs, note = resolve_jobs(jobs)
        if note:
            notes.append(note)
    ckpt = None
    data = None
    if checkpoint is not None:
        ckpt = check_output_path(checkpoint, "checkpoint", suffixes=(".json",))
        data = _load_checkpoint(ckpt)
        if data is not None:  # another problem's file is refused before any work
            _same_problem(ckpt, data, rows, cols, start, ms, closed)
    tracker = Progress(progress, unit="jobs")
    own_client = None
    if isinstance(scheduler, str):
        scheduler = own_client = connect_scheduler(scheduler)
    try:
        classes = {start: [start]} if start is not None else start_classes(rows, cols, ms)
        compile_seconds = _warm_up()
        per_rep: dict[Cell, int] = {}
        nodes = 0
        found: dict[Cell, np.ndarray] = {}
        n_jobs_run = 0
        split_depth = 0
        resumed_nodes = 0
        jobs_done = 0
        complete = True
        with Stopwatch() as sw:
            todo = list(classes)
            if jobs is None and ckpt is None and scheduler is None:
                budget = PROBE_NODES
                if time_limit is not None:  # the kernel has no clock: bound it by its speed
                    budget = min(budget, max(1, int(10_000_000 * deadline.remaining())))
                for rep in list(todo):
                    if deadline.expired():
                        break  # left to the jobs below, which stop at the deadline too
                    run = _kernel_run(
                        rows, cols, ms, closed, [rep[0] * cols + rep[1]], node_limit=budget
                    )
                    if run.status != K.DONE:
                        break
                    budget -= run.nodes
                    per_rep[rep] = run.leaves
                    nodes += 1 + run.nodes  # the start state, then the states below it
                    if len(run.out):
                        found[rep] = run.out[0].copy()
                    todo.remove(rep)
            if todo:
                outcome = _count_in_jobs(
                    rows, cols, start, ms, closed, todo, jobs, ckpt, data, scheduler,
                    tracker, deadline,
                )  # fmt: skip
                counted, job_nodes, job_samples, n_jobs_run, split_depth = outcome[:5]
                resumed_nodes, jobs_done = outcome[5:]
                per_rep.update(counted)
                found.update(job_samples)
                nodes += job_nodes
                complete = jobs_done == n_jobs_run
    finally:
        if own_client is not None:
            own_client.close()
    tracker.finish(counts={"nodes": nodes})

    table = None
    if start is None:
        table = np.zeros((rows, cols), dtype=np.int64)
        for rep, members in classes.items():
            for m in members:
                table[m] = per_rep[rep]
        count = int(table.sum())
    else:
        count = per_rep[start]
    counts = {"nodes": nodes, "jobs": n_jobs_run, "nodes_from_checkpoint": resumed_nodes}
    if not complete:
        counts["jobs_done"] = jobs_done
    return CountResult(
        solve_seconds=sw.seconds,
        compile_seconds=compile_seconds,
        # nodes_from_checkpoint: nodes of jobs finished by earlier runs (not this solve_seconds)
        counts=counts,
        rows=rows,
        cols=cols,
        moves=ms.spec,
        closed=bool(closed),
        start=start,
        count=count,
        table=table if complete else None,
        nodes=nodes,
        jobs=n_jobs_run,
        split_depth=split_depth,
        samples=found if samples else {},
        complete=complete,
        notes=notes,
        checkpoint=None if ckpt is None else str(ckpt),
        peak_bytes=peak_rss_bytes(),
    )


def _count_in_jobs(
    rows,
    cols,
    start,
    ms,
    closed,
    reps,
    jobs,
    ckpt,
    data,
    scheduler,
    tracker,
    deadline,
    ends=False,
):
    """Split the counts from ``reps`` into prefix jobs, run them, checkpoint, and add up.
    With ``ends``, ``counted`` maps each rep to ``(paths, counts by end cell)``."""
    clock = None if deadline.time_limit is None else deadline
    try:
        if data is not None:
            depth = _same_problem(ckpt, data, rows, cols, start, ms, closed, ends)
            done: dict[str, list[int]] = data["done"]
            samples: dict[int, list[int]] = {int(k): v for k, v in data.get("samples", {}).items()}
        else:
            depth = _choose_split_depth(rows, cols, ms, closed, reps, clock)
            done, samples = {}, {}
        prefixes, prefix_nodes = _prefix_jobs(rows, cols, ms, closed, reps, depth, clock)
    except _OutOfTime:  # no job planned yet: an incomplete count of nothing
        nothing = {rep: (0, np.zeros(rows * cols, np.int64)) if ends else 0 for rep in reps}
        return nothing, 0, {}, 1, 0, 0, 0
    problem = _problem(rows, cols, start, ms, closed, depth, ends)

    keyed = {".".join(map(str, p)): p for p in prefixes}
    if not set(done) <= set(keyed):
        raise InputError(f"checkpoint {str(ckpt)!r} lists jobs this problem does not have: corrupt")
    # the deadline travels with each job as seconds since the epoch (workers' clocks)
    until = None if deadline.time_limit is None else time.time() + deadline.remaining()
    pending = [
        (rows, cols, ms.spec, bool(closed), p, until, bool(ends))
        for k, p in keyed.items()
        if k not in done
    ]
    resumed_nodes = sum(value[1] for value in done.values())

    last_save = time.monotonic()

    def save() -> None:
        if ckpt is not None:
            _save_checkpoint(ckpt, problem, done, samples)

    tracker.total = len(keyed)
    tracker.update(len(done))
    try:
        for job, (leaves, job_nodes, sample, *by_end) in run_jobs(
            _count_job,
            pending,
            n_jobs=jobs,
            scheduler=scheduler,
            deadline=None if deadline.time_limit is None else deadline,
        ):
            prefix = job[4]
            if leaves is None:  # stopped by the deadline: not done, not saved
                break
            done[".".join(map(str, prefix))] = [leaves, job_nodes, *by_end]
            if sample is not None and prefix[0] not in samples:
                samples[prefix[0]] = sample
            tracker.update(len(done))
            if ckpt is not None and time.monotonic() - last_save > CHECKPOINT_EVERY:
                save()
                last_save = time.monotonic()
            if deadline.expired():
                break  # the time limit: keep what is done (saved below), stop the rest
    except KeyboardInterrupt:
        save()
        raise
    save()

    counted = {rep: 0 for rep in reps}
    by_end = {rep: np.zeros(rows * cols, np.int64) for rep in reps}
    nodes = prefix_nodes
    rep_of = {r * cols + c: (r, c) for r, c in reps}
    for key, (leaves, job_nodes, *pairs) in done.items():
        rep = rep_of[keyed[key][0]]
        counted[rep] += leaves
        nodes += job_nodes
        for cell, paths in pairs[0] if pairs else ():
            by_end[rep][cell] += paths
    if ends:
        counted = {rep: (counted[rep], by_end[rep]) for rep in reps}
    found = {
        rep_of[cell]: np.asarray(path, dtype=np.int64)
        for cell, path in samples.items()
        if cell in rep_of
    }
    return counted, nodes, found, len(keyed), depth, resumed_nodes, len(done)


def _same_problem(ckpt, data, rows, cols, start, ms, closed, ends=False) -> int:
    """The split depth of a checkpoint of this very problem; InputError for another one."""
    want = _problem(rows, cols, start, ms, closed, data["problem"].get("split_depth"), ends)
    if data["problem"] != want:
        raise InputError(
            f"checkpoint {str(ckpt)!r} is for a different problem "
            f"({_describe(data['problem'])}); use another file for {_describe(want)}"
        )
    return check_int(want["split_depth"], "the checkpoint's split depth", minimum=1)


def _describe(problem: dict[str, Any]) -> str:
    start = problem.get("start")
    where = "every start" if start is None else f"start {tuple(start)}"
    kind = "closed tours" if problem.get("closed") else "paths"
    return f"{kind} on {problem.get('rows')}x{problem.get('cols')} from {where}"


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
    random order, which gives a random (not uniform) path. See :class:`ExhaustiveResult` for
    ``proven``.
    """
    ms = _check_board(rows, cols, moves)
    rows, cols = int(rows), int(cols)
    node_limit = check_node_limit(node_limit)
    seed = _kernel_seed(check_seed(seed))
    if start is not None:
        start = _check_start(start, rows, cols)
    reps = [start] if start is not None else list(start_classes(rows, cols, ms))
    compile_seconds = _warm_up()
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
            run = _kernel_run(
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
        solve_seconds=sw.seconds,
        compile_seconds=compile_seconds,
        counts={"nodes": nodes},
        rows=rows,
        cols=cols,
        moves=ms.spec,
        closed=bool(closed),
        start=start,
        path=path,
        proven=path is not None or proven,
        nodes=nodes,
    )


def _kernel_seed(seed: int | None) -> int | None:
    """The kernel's non-negative int64 seed: small seeds as they are (the paths they gave
    before stay the same), any other integer folded into [0, 2^63)."""
    if seed is None or 0 <= seed < 2**63:
        return seed
    return seed_u64(seed) % 2**63


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
    """
    ms = _check_board(rows, cols, moves, out_paths=ENUM_CHUNK)
    rows, cols = int(rows), int(cols)
    r, c = _check_start(start, rows, cols)
    limit = check_limit(limit)
    return _iter_paths(rows, cols, (r, c), ms, closed, limit)


def _iter_paths(rows, cols, start, ms, closed, limit) -> Iterator[np.ndarray]:
    r, c = start
    _warm_up()
    prefix = [r * cols + c]
    state = None
    given = 0
    while limit is None or given < limit:
        cap = ENUM_CHUNK if limit is None else min(ENUM_CHUNK, limit - given)
        run = _kernel_run(
            rows, cols, ms, closed, prefix, out_cap=cap, stop_when_full=True, state=state
        )
        for p in run.out:
            yield p.copy()
        given += len(run.out)
        if run.status == K.DONE:
            return
        state = (run.path, run.masks, run.depth)


# --------------------------------------------------------------------------------------------
# Counts by (start, end) pair
# --------------------------------------------------------------------------------------------


@dataclass
class EndCountResult(SearchResult):
    """The paths (or closed tours) counted by (start, end) pair: ``matrix[s, e]`` (flat cells
    ``r * cols + c``, int64) is the number of paths from ``s`` that end at ``e``.

    Read backwards, a path from s to e is a path from e to s, so the matrix must be symmetric;
    a symmetry of the board maps paths to paths, so ``matrix[g(s), g(e)] = matrix[s, e]``; the
    row sums are the per-start counts of :func:`count_paths`. :meth:`checks` tests all three
    (the first two are real tests only where the rows were counted, not copied: with
    ``symmetry=True`` one start per class is counted and the other rows are its images).
    """

    rows: int = 0
    cols: int = 0
    moves: str = "caselle"
    closed: bool = False
    matrix: np.ndarray | None = None
    nodes: int = 0
    counted_starts: list[Cell] = field(default_factory=list)

    @property
    def table(self) -> np.ndarray:
        """The per-start counts (row sums) as a rows x cols array."""
        return self.matrix.sum(axis=1).reshape(self.rows, self.cols)

    def checks(self) -> dict[str, bool]:
        """``symmetric`` (reversal), ``invariant`` (every board symmetry that keeps the moves),
        each over the whole matrix."""
        m = self.matrix
        out = {"symmetric": bool(np.array_equal(m, m.T)), "invariant": True}
        rows, cols = self.rows, self.cols
        for sym in board_symmetries(rows, cols, self.moves):
            perm = np.array(
                [
                    _apply(sym, divmod(k, cols), rows, cols)[0] * cols
                    + _apply(sym, divmod(k, cols), rows, cols)[1]
                    for k in range(rows * cols)
                ]
            )
            image = np.empty_like(m)
            image[np.ix_(perm, perm)] = m
            out["invariant"] &= bool(np.array_equal(image, m))
        return out

    def verify(self) -> bool:
        """The per-start counts (row sums) against the independent plain recount of
        :func:`rompicapo.paths.verify.recount_paths` (boards of at most 20 cells), and the
        matrix's own checks; NotVerifiable above that size (:meth:`checks` still applies)."""
        from rompicapo.paths.verify import RECOUNT_MAX_CELLS, recount_paths

        if self.matrix is None:
            raise NotVerifiable("no matrix to check")
        if self.rows * self.cols > RECOUNT_MAX_CELLS:
            raise NotVerifiable(
                f"{self.rows}x{self.cols} is too large for the independent recount; "
                "checks() tests the matrix's symmetry and invariance"
            )
        if not all(self.checks().values()):
            return False
        moves = parse_moves(self.moves)
        table = self.table
        return all(
            int(table[r, c]) == recount_paths(self.rows, self.cols, moves, (r, c),
                                              closed=self.closed)
            for r in range(self.rows)
            for c in range(self.cols)
        )  # fmt: skip

    def report(self) -> str:
        data = self.to_dict()
        checks = ", ".join(f"{k} {'ok' if v else 'FAILED'}" for k, v in data["checks"].items())
        return (
            f"{self.rows}x{self.cols} {self.moves} by (start, end): total {data['total']:,}\n"
            f"{_table_text(self.table)}\nchecks: {checks}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "cols": self.cols,
            "moves": self.moves,
            "closed": self.closed,
            "total": int(self.matrix.sum()),
            "nodes": self.nodes,
            "counted_starts": [list(c) for c in self.counted_starts],
            "table": self.table.tolist(),
            "matrix": self.matrix.tolist(),
            "checks": self.checks(),
            "solve_seconds": round(self.solve_seconds, 6),
            "compile_seconds": round(self.compile_seconds, 6),
        }


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
    """Count the paths of the board by (start, end) pair (see :class:`EndCountResult`).

    ``symmetry``: count one start per class of symmetric starts and fill the other rows by the
    symmetry (as :func:`count_paths` does); False counts every start, so that the matrix's
    symmetry and invariance test the counts themselves. ``jobs``, ``checkpoint``, ``scheduler``
    and ``progress`` as for :func:`count_paths` (the checkpoint records the end counts of each
    job and is a different problem from a plain count's).
    """
    ms = _check_board(rows, cols, moves)
    rows, cols = int(rows), int(cols)
    n = rows * cols
    check_memory(8 * n * n * 2, f"the {n} x {n} matrix of counts")
    if symmetry:
        classes = start_classes(rows, cols, ms)
    else:
        classes = {(r, c): [(r, c)] for r in range(rows) for c in range(cols)}
    if jobs is not None:
        jobs, _ = resolve_jobs(jobs)
    ckpt = data = None
    if checkpoint is not None:
        ckpt = check_output_path(checkpoint, "checkpoint", suffixes=(".json",))
        data = _load_checkpoint(ckpt)
        if data is not None:  # another problem's file is refused before any work
            _same_problem(ckpt, data, rows, cols, None, ms, closed, True)
    tracker = Progress(None if isinstance(progress, bool) else progress, unit="jobs")
    own_client = None
    if isinstance(scheduler, str):
        scheduler = own_client = connect_scheduler(scheduler)
    compile_seconds = _warm_up()
    per_rep: dict[Cell, np.ndarray] = {}
    nodes = 0
    try:
        with Stopwatch() as sw:
            if jobs is None and ckpt is None and scheduler is None:
                for rep in classes:
                    by_end = np.zeros(n, np.int64)
                    run = _kernel_run(rows, cols, ms, closed, [rep[0] * cols + rep[1]], ends=by_end)
                    per_rep[rep] = by_end
                    nodes += 1 + run.nodes
            else:
                counted, job_nodes, *_ = _count_in_jobs(
                    rows, cols, None, ms, closed, list(classes), jobs, ckpt, data, scheduler,
                    tracker, Deadline(None), ends=True,
                )  # fmt: skip
                per_rep = {rep: by_end for rep, (_, by_end) in counted.items()}
                nodes += job_nodes
    finally:
        if own_client is not None:
            own_client.close()
    tracker.finish(counts={"nodes": nodes})
    matrix = np.zeros((n, n), np.int64)
    syms = board_symmetries(rows, cols, ms)
    ends_rc = [divmod(e, cols) for e in range(n)]
    for rep, members in classes.items():
        for member in members:
            # a symmetry that takes the representative to this member takes its paths along
            sym = next(g for g in syms if _apply(g, rep, rows, cols) == member)
            image = [_apply(sym, rc, rows, cols) for rc in ends_rc]
            cols_of = np.array([r * cols + c for r, c in image])
            matrix[member[0] * cols + member[1], cols_of] = per_rep[rep]
    return EndCountResult(
        solve_seconds=sw.seconds,
        compile_seconds=compile_seconds,
        counts={"nodes": nodes},
        rows=rows,
        cols=cols,
        moves=ms.spec,
        closed=bool(closed),
        matrix=matrix,
        nodes=nodes,
        counted_starts=list(classes),
    )
