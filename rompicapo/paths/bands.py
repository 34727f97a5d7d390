"""The greedy walk of `construct()`, by bands of rows.

The search is Warnsdorff's rule with Pósa rotations (the kernel in ``_kernel.py``); this
module is the policy around it:

- **the end game**: a plain rotation walk has a heavy tail. On 1000x1000, 2 seeds in 300
  needed 10^5+ rotations and a minute or two: the run was one free cell short of done, and the
  end random-walked in search of that cell's neighbours. When few cells are left free, the
  kernel searches *sequences* of rotations best-first toward the nearest free cell, preferring
  short reversals. Seeds 0..299 then need at most ~20 rotations and no regrowth at all;
- **regrowth**: an attempt may spend a budget of rotation work (cells moved by reversals).
  When it is spent, the last ``m`` cells come off the path and are regrown with fresh
  randomness: a new move order, and a tie-break centre moved a few cells. ``m`` follows Luby's
  sequence (1, 1, 2, 1, 1, 2, 4, ...) times a base, so short regrowths are tried often and long
  ones (up to a full restart) now and then. Luby, Sinclair and Zuckerman (1993): within a log
  factor of the best fixed cutoff, without knowing the run-time distribution;
- **bands**: boards of 0.5M cells and more are cut into bands of rows that threads solve at once.
  Each band ends next to the next band's start. A reserved window at that hand-over makes the
  walk finish there (see `plan_pieces()` and ``_kernel.reserve_cells``), and the last cells
  are completed exactly by depth-first search.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass

import numpy as np

from rompicapo.common import Progress
from rompicapo.paths import _kernel
from rompicapo.paths.moves import MoveSet, parse_moves

__all__ = [
    "TIE_BREAKS",
    "Piece",
    "WalkRun",
    "index_dtype",
    "kernel_bytes_per_cell",
    "luby",
    "plan_pieces",
    "search_piece",
    "solve_pieces",
    "warm_kernels",
]

TIE_BREAKS = {
    "centre": _kernel.TIE_CENTRE,
    "order": _kernel.TIE_ORDER,
    "random": _kernel.TIE_RANDOM,
}

# Budget of rotation work per attempt, in cells moved by reversals: a fraction of the board
# (rotations at a dead end reverse suffixes, so the work, not the count, is what costs), and at
# least enough for the few hundred short rotations a typical board needs.
WORK_PER_CELL = 0.5
MIN_WORK = 1 << 16

# Regrowth length base: about sqrt(n) cells, so on 10^6 cells the first regrowths redo ~1000
# cells (~30 us) and the Luby schedule reaches a full restart after a few dozen attempts.
MIN_REGROW = 64

# Progress: the kernel is called in chunks of this many cells, so a progress bar can move and
# Ctrl-C can be honoured between chunks (a chunk takes well under a second).
CHUNK_CELLS = 1 << 22

INT32_CELLS = 2**31 - 1


def index_dtype(cells: int) -> type:
    """The dtype of the path arrays of a board of ``cells`` cells: int32 below 2^31 cells."""
    return np.int32 if cells <= INT32_CELLS else np.int64


def kernel_bytes_per_cell(cells: int) -> int:
    """Bytes per cell of the constructor's arrays: 9 with 32-bit indices, 17 with 64-bit."""
    return 1 + 2 * (4 if cells <= INT32_CELLS else 8)


def luby(i: int) -> int:
    """The i-th term (i >= 1) of Luby's sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...

    t(i) = 2^(k-1) if i = 2^k - 1, else t(i - 2^(k-1) + 1) where 2^(k-1) <= i < 2^k - 1.
    """
    while True:
        k = i.bit_length()
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


def warm_kernels(itype: type, mset: MoveSet) -> None:
    """Compile (or load from cache) the kernels with the signatures construct() uses for
    ``itype`` path arrays (int32 below 2^31 cells: the 64-bit variant is compiled only when a
    board needs it) and ``mset``'s number of moves (the scan is specialised on it)."""
    dr, dc = mset.arrays()
    _run_tiny(dr, dc, itype)
    dr, dc = parse_moves("caselle").arrays()
    _kernel.board_structure(3, 3, dr, dc, 0, np.empty(9, itype), np.zeros(9, np.uint8))


def _run_tiny(dr: np.ndarray, dc: np.ndarray, itype: type) -> None:
    rows = cols = 6
    n = rows * cols
    state = np.empty(n, np.uint8)
    path = np.empty(n, itype)
    pos = np.empty(n, itype)
    _kernel.init_state(rows, cols, dr, dc, state)
    _kernel.visit_cell(rows, cols, dr, dc, state, 0)
    path[0] = 0
    pos[0] = 0
    drt, dct, offt = _move_tuples(dr, dc, cols)
    plen, *_ = _kernel.extend_path(
        rows, cols, dr, dc, drt, dct, offt, state, path, pos, 1, n, 0, False, 0, 0, 1000,
        np.uint64(1), _kernel.TIE_CENTRE, rows - 1, cols - 1,
    )  # fmt: skip
    _kernel.truncate_path(rows, cols, dr, dc, state, path, pos, plen, 1)
    _kernel.complete_exact(
        rows, cols, dr, dc, state, path, pos, 1, n, True, 0, 0, 100,
        np.empty((len(dr), n), np.int64), np.empty(n, np.int64),
    )  # fmt: skip
    _kernel.reserve_cells(state, pos, np.array([1, 2], np.int64), True)
    _kernel.reserve_cells(state, pos, np.array([1, 2], np.int64), False)


def _move_tuples(dr: np.ndarray, dc: np.ndarray, cols: int) -> tuple[tuple, tuple, tuple]:
    """Moves as tuples: the kernel specialises on their length and unrolls the scan."""
    return (
        tuple(int(x) for x in dr),
        tuple(int(x) for x in dc),
        tuple(int(a) * cols + int(b) for a, b in zip(dr, dc, strict=True)),
    )


@dataclass
class Piece:
    """A band of whole rows [lo, hi) solved on its own: its path starts at ``start`` (local
    coordinates) and, unless it is the last piece, ends one move from ``target`` (the next
    piece's start, one row outside the band); it fills path[offset : offset + cells]."""

    lo: int
    hi: int
    start: tuple[int, int]
    target: tuple[int, int] | None
    offset: int
    centre2: tuple[int, int]
    handover: bool = False  # the target is the next band's start (not the start of a tour)

    @property
    def rows(self) -> int:
        return self.hi - self.lo


@dataclass
class WalkRun:
    dr0: np.ndarray
    dc0: np.ndarray
    tie: int
    max_attempts: int
    deadline: float | None
    rotations: int = 0
    restarts: int = 0
    exact_nodes: int = 0
    merges: int = 0
    stop: bool = False
    timed_out: bool = False  # the time limit stopped the walk (not a failure of the search)


# Boards from STRIP_CELLS cells up are cut into bands of whole rows, about BAND_CELLS each,
# solved at the same time (numba kernels release the GIL, so threads share the arrays).
# Measured on 2 cores, median of 3 seeds: 1000x1000 42 -> 79 M cells/s with 2 bands; 3000x3000
# 42 -> 88 with 8; 10000x10000 32 -> 90 with 2 (a band's state stays in cache). Below ~0.5M
# cells (~10 ms) the threads would cost more than they save.
STRIP_CELLS = 1 << 19
BAND_CELLS = 1 << 20
# Bands thinner than this make the hand-over between bands harder than it is worth.
STRIP_MIN_ROWS = 64
MAX_STRIPS = 64


def plan_pieces(rows, cols, start, closed, strips) -> list[Piece]:
    """Cut the board into bands of rows, visited from the start's side of the board.

    The number of bands depends on the board only (not on the cores), so a seed gives the same
    path on every machine; the cores decide how many bands are solved at once. Each band but the
    last ends next to the middle cell of the next band's first row; Warnsdorff's tie-break
    centre is put on that cell, so the walk peels the band from its far side and finishes close
    to the hand-over, where a few targeted rotations close it.
    """
    n = rows * cols
    if strips is None:
        strips = 1 if closed or n < STRIP_CELLS else min(MAX_STRIPS, max(2, round(n / BAND_CELLS)))
    strips = max(1, min(int(strips), rows // STRIP_MIN_ROWS if rows >= STRIP_MIN_ROWS else 1))
    if closed:
        strips = 1
    if strips == 1:
        # a closed tour is one piece whose end must come back next to its start
        return [Piece(0, rows, start, start if closed else None, 0, (rows - 1, cols - 1))]
    r0, c0 = start
    downward = r0 < rows - r0  # visit the bands away from the start's edge
    edges = [round(i * rows / strips) for i in range(strips + 1)]
    if not downward:  # mirror: build the bands from the bottom edge up
        edges = [rows - e for e in reversed(edges)]
    bands = list(itertools.pairwise(edges))
    if not downward:
        bands.reverse()  # visiting order: bottom band first
    # the first band must hold the start: merge bands until it does
    while not (bands[0][0] <= r0 < bands[0][1]):
        (a0, b0), (a1, b1) = bands[0], bands[1]
        bands[0:2] = [(min(a0, a1), max(b0, b1))]
    mid = cols // 2
    pieces = []
    offset = 0
    for i, (lo, hi) in enumerate(bands):
        h = hi - lo
        if i == 0:
            st = (r0 - lo, c0)
        else:
            st = (0, mid) if downward else (h - 1, mid)
        if i + 1 < len(bands):
            target = (h, mid) if downward else (-1, mid)
            centre2 = (2 * target[0], 2 * mid)
        else:
            target = None
            centre2 = (h - 1, cols - 1)
        pieces.append(Piece(lo, hi, st, target, offset, centre2, handover=target is not None))
        offset += h * cols
    return pieces


# The hand-over window: the rows of a band next to the next band, around the hand-over
# column. Big enough that the walk can finish inside it once it is opened, small enough to
# leave the rest of the band to the walk's usual order.
WINDOW_ROWS = 6
WINDOW_HALF_COLS = 6


def _handover_window(pc: Piece, cols: int) -> np.ndarray:
    tr, tc = pc.target
    if tr >= pc.rows:  # the next band is below
        r_lo, r_hi = pc.rows - WINDOW_ROWS, pc.rows
    else:
        r_lo, r_hi = 0, WINDOW_ROWS
    c_lo, c_hi = max(0, tc - WINDOW_HALF_COLS), min(cols, tc + WINDOW_HALF_COLS + 1)
    rr, cc = np.meshgrid(np.arange(r_lo, r_hi), np.arange(c_lo, c_hi), indexing="ij")
    cells = (rr * cols + cc).ravel().astype(np.int64)
    start_flat = pc.start[0] * cols + pc.start[1]
    return cells[cells != start_flat]


# The end game by exact search: when a stuck path has at most EXACT_FREE free cells, its last
# cells are freed (EXACT_TAIL, then 4x more) and the rest is solved by depth-first search with
# up to EXACT_NODES nodes each time (a few ms).
WINDOW_SLACK = 64
# A band that has not handed over after this many regrowths is merged with the next band
# (cheaper than insisting: a failing hand-over usually fails every time).
HANDOVER_ATTEMPTS = 12
PHASE1_WORK = 1 << 16
EXACT_FREE = 64
EXACT_TAIL = 96
EXACT_NODES = 200_000


def _finish_exactly(run, rows, cols, state, path, pos, plen, closing, end_r, end_c):
    n = rows * cols
    for tail in (EXACT_TAIL, 4 * EXACT_TAIL):
        base = max(1, plen - tail)
        plen = int(
            _kernel.truncate_path(rows, cols, run.dr0, run.dc0, state, path, pos, plen, base)
        )
        free = n - plen
        cand = np.empty((len(run.dr0), free + 1), np.int64)
        nxt = np.empty(free + 1, np.int64)
        plen, nodes = _kernel.complete_exact(
            rows, cols, run.dr0, run.dc0, state, path, pos, plen, n, closing, end_r, end_c,
            EXACT_NODES, cand, nxt,
        )  # fmt: skip
        plen = int(plen)
        run.exact_nodes += int(nodes)
        if plen == n:
            return plen, True
    return plen, False


def _merge_pieces(a: Piece, b: Piece) -> Piece:
    """One piece for band ``a`` and the next band ``b``: a's start, b's hand-over (if any)."""
    lo, hi = min(a.lo, b.lo), max(a.hi, b.hi)
    h = hi - lo
    start = (a.start[0] + (a.lo - lo), a.start[1])
    if b.target is None:
        return Piece(lo, hi, start, None, a.offset, (h - 1, b.centre2[1]))  # board centre
    target = (b.target[0] + (b.lo - lo), b.target[1])
    centre2 = (2 * target[0], b.centre2[1])
    return Piece(lo, hi, start, target, a.offset, centre2, handover=True)


def solve_pieces(run, pieces, rows, cols, state, path, pos, ss, jobs, progress):
    """Solve every piece (in threads when there are several), then turn local cell numbers
    into board cell numbers. Returns (status, cells of the path done in order)."""
    n = rows * cols
    pieces = list(pieces)
    seeds = list(ss.spawn(len(pieces)))
    done = [0] * len(pieces)
    tracker = Progress(progress, unit="cells", total=n)

    def report(i: int, cells: int) -> None:
        done[i] = cells
        tracker.update(sum(done))

    def solve(i: int) -> str:
        pc = pieces[i]
        lo, hi = pc.lo * cols, pc.hi * cols
        seg = path[pc.offset : pc.offset + (hi - lo)]
        status = search_piece(
            run, pc, cols, state[lo:hi], seg, pos[lo:hi], seeds[i], lambda c: report(i, c)
        )
        if status == "found" and pc.lo:
            seg += pc.lo * cols  # local cell numbers -> board cell numbers
        return status

    statuses: list[str] = []
    try:
        if len(pieces) == 1:
            statuses = [solve(0)]
        else:
            from concurrent.futures import ThreadPoolExecutor

            workers = max(1, int(jobs))
            with ThreadPoolExecutor(max_workers=min(workers, len(pieces))) as pool:
                futures = [pool.submit(solve, i) for i in range(len(pieces))]
                try:
                    statuses = [f.result() for f in futures]
                except KeyboardInterrupt:
                    run.stop = True
                    statuses = [f.result() for f in futures]
                    statuses.append("interrupted")
        # A band that could not hand over is merged with the next band and solved again: the
        # failed hand-over disappears, and a merge that reaches the last band has none at all.
        while "interrupted" not in statuses and "gave up" in statuses[:-1] and not run.timed_out:
            i = statuses.index("gave up")
            pieces[i : i + 2] = [_merge_pieces(pieces[i], pieces[i + 1])]
            seeds[i : i + 2] = [seeds[i].spawn(1)[0]]
            done[i : i + 2] = [0]
            statuses[i : i + 2] = [solve(i)]
            run.merges += 1
    except KeyboardInterrupt:
        statuses = ["interrupted"]
    tracker.finish()
    # the cells done in path order: whole pieces, then the prefix of the first unfinished one
    in_order = 0
    for i, pc in enumerate(pieces):
        in_order = pc.offset + done[i]
        if done[i] < pc.rows * cols:
            break
    if "interrupted" in statuses:
        return "interrupted", in_order
    if all(s == "found" for s in statuses):
        return "found", n
    return "gave up", in_order


def search_piece(run, pc, cols, state, path, pos, ss, report) -> str:
    """The restart policy around the kernel for one piece; "found", "gave up" or "interrupted".

    ``state``, ``path`` and ``pos`` are the piece's slices of the board's arrays (local cell
    numbers), ``ss`` its seed sequence, ``report(cells)`` tells how many cells are on its path.
    """
    walk = _PieceWalk(run, pc, cols, state, path, pos, ss, report)
    try:
        while True:
            outcome = walk.extend()
            if outcome is None:
                outcome = walk.recover()
            if outcome is not None:
                return outcome
    except KeyboardInterrupt:
        run.stop = True
        return "interrupted"


class _PieceWalk:
    """One piece's walk: its arrays, the hand-over window, and the randomness of regrowths."""

    def __init__(self, run, pc, cols, state, path, pos, ss, report) -> None:
        self.run, self.pc, self.cols, self.report = run, pc, cols, report
        self.state, self.path, self.pos = state, path, pos
        self.rows = rows = pc.rows
        self.n = n = rows * cols
        dr0, dc0 = run.dr0, run.dc0
        start_flat = pc.start[0] * cols + pc.start[1]
        _kernel.init_state(rows, cols, dr0, dc0, state)
        _kernel.visit_cell(rows, cols, dr0, dc0, state, start_flat)
        path[0] = start_flat
        pos[start_flat] = 0
        self.plen = 1
        self.closing = pc.target is not None
        self.end = pc.target if self.closing else (0, 0)
        self.window = _handover_window(pc, cols) if pc.handover else np.empty(0, np.int64)
        self.all_window = self.window.copy()
        _kernel.reserve_cells(state, pos, self.window, True)
        self.reserved = len(self.window)
        # small boards: a budget proportional to the board, so that hopeless boards reach their
        # exhaustive proof quickly
        self.work_budget = max(int(WORK_PER_CELL * n), min(MIN_WORK, 64 * n))
        self.regrow_base = max(MIN_REGROW, math.isqrt(n))
        self.gen = np.random.default_rng(ss)
        self.attempt = 0
        # the seed orders the moves, which decides exact ties of Warnsdorff's rule
        self.perm = self.gen.permutation(len(dr0))
        self.centre = pc.centre2
        # a restart moves the tie-break centre a little; a band that must end at a hand-over
        # cell keeps its centre near that cell, or its walk would no longer finish there
        self.jitter = 2 if self.closing else max(1, min(rows, cols) // 8)
        self.rng = np.uint64(self.gen.integers(1, 2**63))

    def _past_deadline(self) -> bool:
        return self.run.deadline is not None and time.perf_counter() > self.run.deadline

    def _open_window(self) -> None:
        _kernel.reserve_cells(self.state, self.pos, self.window, False)
        self.reserved = 0

    def extend(self) -> str | None:
        """Walk on, a chunk of cells at a time, until the kernel stops: "found", "interrupted",
        "gave up" (the time limit), or None when the walk is stuck."""
        run, n = self.run, self.n
        dr = np.ascontiguousarray(run.dr0[self.perm])
        dc = np.ascontiguousarray(run.dc0[self.perm])
        drt, dct, offt = _move_tuples(dr, dc, self.cols)
        status = _kernel.PAUSED
        while status == _kernel.PAUSED:
            if run.stop:
                return "interrupted"
            # the wall clock is looked at between chunks (a fraction of a second each), so a
            # run that would succeed without restarts still honours the time limit
            if self._past_deadline():
                run.timed_out = True
                return "gave up"
            # the window opens a little before the rest of the band is done: the cells the
            # walk deferred around it are often reachable only through it
            # with a time limit, shorter chunks: the clock is read between them
            chunk = CHUNK_CELLS if run.deadline is None else CHUNK_CELLS // 4
            target = min(n - self.reserved - WINDOW_SLACK * (self.reserved > 0), self.plen + chunk)
            # while the window is shut, a stuck walk should open it rather than search long
            budget = min(self.work_budget, PHASE1_WORK) if self.reserved else self.work_budget
            self.plen, rot, _work, rng, status = _kernel.extend_path(
                self.rows, self.cols, dr, dc, drt, dct, offt, self.state, self.path, self.pos,
                self.plen, target, self.reserved, self.closing, *self.end, budget, self.rng,
                run.tie, *self.centre,
            )  # fmt: skip
            if self.reserved and self.plen >= n - self.reserved - WINDOW_SLACK:
                # the band is covered but for the hand-over window: open it, finish there
                self._open_window()
                status = _kernel.PAUSED
            self.rng = np.uint64(rng)  # numba hands uint64 back as a Python int
            run.rotations += int(rot)
            self.report(int(self.plen))
        return "found" if status == _kernel.DONE else None

    def recover(self) -> str | None:
        """After the walk got stuck: open the hand-over window, finish exactly, or regrow.
        "found", "gave up" (out of attempts or time), or None: walk on."""
        if self.reserved:  # stuck before the hand-over window opened: open it and go on
            self._open_window()
            return None
        if self.n - self.plen <= EXACT_FREE:
            self.plen, solved = _finish_exactly(
                self.run, self.rows, self.cols, self.state, self.path, self.pos, self.plen,
                self.closing, *self.end,
            )  # fmt: skip
            if solved:
                return "found"
        self.attempt += 1
        self.run.restarts += 1
        run = self.run
        most = min(run.max_attempts, HANDOVER_ATTEMPTS) if self.pc.handover else run.max_attempts
        if self.attempt > most or self._past_deadline():
            return "gave up"
        self._regrow()
        return None

    def _regrow(self) -> None:
        """Take the last m cells off and go on with fresh randomness."""
        state, pos, all_window = self.state, self.pos, self.all_window
        m = self.regrow_base * luby(self.attempt)
        new_len = max(1, self.plen - m)
        if self.pc.handover:
            # long reversals can carry the hand-over window deep into the path; cut back to
            # before its first cell, so that the regrowth plays the window's end game again
            on_path = pos[all_window][state[all_window] >= 128]
            on_path = on_path[on_path >= 0]
            if len(on_path):
                new_len = max(1, min(new_len, int(on_path.min())))
        if self.reserved:
            self._open_window()
        run = self.run
        plen = _kernel.truncate_path(
            self.rows, self.cols, run.dr0, run.dc0, state, self.path, pos, self.plen, new_len
        )
        self.plen = int(plen)
        if self.pc.handover:
            # the regrown walk plays the same end game: reserve the window cells that are
            # free again, so that it finishes next to the hand-over once more
            self.window = all_window[state[all_window] < 128]
            _kernel.reserve_cells(state, pos, self.window, True)
            self.reserved = len(self.window)
        self.report(self.plen)
        self.perm = self.gen.permutation(len(self.run.dr0))
        r, c = self.pc.centre2
        self.centre = (
            r + int(self.gen.integers(-self.jitter, self.jitter + 1)),
            c + int(self.gen.integers(-self.jitter, self.jitter + 1)),
        )
