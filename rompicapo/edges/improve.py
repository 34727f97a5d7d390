"""Polish an edge-matching board: adaptive large-neighbourhood search (ALNS).

A backtracker stops where its last cells cannot be filled; the board it leaves has a few
mismatched joints and perhaps holes. :func:`improve` takes such a board (complete or partial)
and repeats:

1. **destroy**: free a region of cells (never a clue) with one of four operators, each
   around an *anchor*, a cell of a random mismatched joint (a region touching no mismatched
   joint cannot score more): ``rectangle`` (a block of cells holding the anchor), ``cells``
   (the anchor and cells of its kind, inner or rim, scattered over the board, so pieces can
   trade places), ``mismatches`` (a compact blob grown at random from both cells of the
   joint) and ``line`` (a stretch of the anchor's row or column);
2. **repair**: put the freed pieces back by exact search (the numba kernel in
   ``_repair_kernel``: the region in most-constrained-first order, branch and bound on matched
   joints, at most ``node_cap`` nodes per repair);
3. **accept** the repair when it matches as many joints as before or more: improvements and
   equal-score moves (which change the board and let the search drift across plateaus) are
   kept, a worse board never is, so the score never goes down.

Adaptive weights (ALNS, Ropke and Pisinger 2006): the operator of each iteration is drawn
with probability proportional to its weight. Each use earns a reward by outcome
(``REWARD_IMPROVED`` for a better board, ``REWARD_MOVED`` for an equal board that changed,
0 otherwise); every ``SEGMENT`` iterations each weight moves a fraction ``REACTION`` of the
way to the operator's mean reward in that segment, never below ``MIN_WEIGHT``. Each operator's
region size adapts too: it grows after a repair proven optimal and shrinks after a repair cut
by the node cap, so repairs sit where the exact search just about finishes.

A partial board is first completed: its empty cells, a region of their own, get the unused
pieces. The kernel first looks for a perfect fill; when its node cap leaves that open (many
holes), Blackwood's search for perfect boards runs with the placed pieces pinned; failing
both, the kernel fills the holes to within 1, 2, ... joints of its bound, or best-first.

>>> from rompicapo.edges.generate import generate
>>> puzzle, solution = generate(5, 5, frame_colours=2, inner_colours=3, seed=1)
>>> holes = solution.copy(); holes.piece[1:4, 1:4] = -1
>>> result = improve(holes, puzzle, time_limit=None, node_limit=200, seed=0)
>>> result.score_after == puzzle.n_joints, result.verify()
(True, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

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
    check_node_limit,
    check_seed,
    check_time_limit,
    jit_warmup,
    renamed_keywords,
    seed_sequence,
)
from rompicapo.edges import _repair_kernel as RK
from rompicapo.edges.puzzle import Board, Puzzle, rule_problems, validate
from rompicapo.edges.puzzle import score as model_score

__all__ = ["NODE_CAP", "OPERATORS", "ImproveResult", "improve"]

OPERATORS = ("rectangle", "cells", "mismatches", "line")

# Nodes per repair. Many small repairs beat few deep ones (measured here, 10 s from the same
# start, final score by cap 500 / 1000 / 2000 / 5000 / 20000: Brendan 16x16 with 90 % of its
# cells emptied 407 / 405 / 409 / 394 / 387; an empty Brendan 6x6 58 / 58 / 60 / 58 / 58;
# Eternity II 462 for all); 2000 nodes are ~0.5 ms, ~1500 repairs a second on Eternity II,
# and a region of a dozen scattered inner cells is still searched to the end.
NODE_CAP = 2_000
# Region sizes in cells: MIN_REGION keeps a repair able to move something (two cells can
# swap); MAX_REGION bounds the per-node candidate scan (4 x cells options). Start sizes are
# where repairs on Eternity II are still proven within NODE_CAP (measured; the sizes adapt).
MIN_REGION = 2
MAX_REGION = 40
START_SIZE = {"rectangle": 9.0, "cells": 10.0, "mismatches": 8.0, "line": 8.0}
SIZE_STEP = 0.5  # +0.5 after a proven repair, -0.5 after a capped one: ~half are proven
# ALNS (Ropke and Pisinger's scheme, their rewards 33 and 9 for a new best and a better
# solution; here an equal-score move that changed the board plays the "accepted" role).
REWARD_IMPROVED = 33.0
REWARD_MOVED = 9.0
SEGMENT = 50  # iterations between weight updates: enough uses per operator to average
REACTION = 0.2  # how far a weight moves to the segment's mean reward
MIN_WEIGHT = 0.5  # every operator keeps >= ~5 % of the draws (rewards are 0..33)
# Completing a partial board: the holes are one region, given COMPLETION_NODES (an exact fill
# of Blackwood's 6-10 holes takes ~10^4-10^5 nodes), but at most COMPLETION_WORK candidate
# checks (a node scans 4 x holes candidates): ~0.5 s for any board.
COMPLETION_NODES = 10**6
COMPLETION_WORK = 2 * 10**8
# Target-first tries when filling holes: a perfect fill, then one joint short of the bound,
# ... (each with 1/(2 x TARGET_TRIES) of the budget; half is kept for the plain branch and
# bound). A search that must meet the bound prunes every unforeseen mismatch at once, as a
# search for perfect boards does: it finds perfect fills the plain search does not.
TARGET_TRIES = 8
# Blackwood's search for a perfect fill of many holes gets this share of the time (or
# SOLVER_SECONDS without a time limit), only when the kernel could neither find nor rule out
# a perfect fill.
SOLVER_SHARE = 0.25
SOLVER_SECONDS = 5.0
PROGRESS_SECONDS = 0.5


# --------------------------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------------------------


@dataclass
class ImproveResult(SearchResult):
    """The polished board and how it got there.

    ``score_before``: matched joints of the board given; ``score_completed``: after filling its
    holes (equal to ``score_before`` for a complete board); ``score_after``: the final board's.
    ``operators``: per destroy operator, ``uses``, ``improved`` (repairs that raised the
    score), ``moved`` (equal-score repairs that changed the board), ``gain`` (joints won),
    ``nodes``, ``proven`` (repairs searched to the end), ``capped`` (cut by the node cap),
    ``weight`` (final ALNS weight) and ``size`` (final region size). ``history``: ``(seconds,
    score)`` at the start and at each improvement. ``counts``: ``iterations``, ``nodes``.
    """

    puzzle: Puzzle | None = None
    board: Board | None = None
    start: Board | None = None
    clues: Board | None = None
    score_before: int = 0
    score_completed: int = 0
    score_after: int = 0
    iterations: int = 0
    operators: dict[str, dict] = field(default_factory=dict)
    history: list[tuple[float, int]] = field(default_factory=list)
    solved: bool = False
    interrupted: bool = False
    seed: int = 0

    @property
    def gain(self) -> int:
        return self.score_after - self.score_before

    def score_at(self, seconds: float) -> int:
        """The score the search had reached ``seconds`` after it started."""
        best = self.score_completed
        for t, s in self.history:
            if t <= seconds:
                best = max(best, s)
        return best

    # Set by the command-level improve (rompicapo.edges.improve_board): where the board was
    # written.
    out: str | None = None

    _dict_exclude = ("puzzle", "board", "start", "clues")

    def _repr_svg_(self) -> str | None:
        """Jupyter shows the board as its SVG, mismatched joints in red."""
        from rompicapo.edges.render import board_svg

        if self.board is None or self.puzzle is None:
            return None
        return board_svg(self.board, self.puzzle)

    def verify(self) -> bool:
        """Recount with :mod:`rompicapo.edges.verify` (code that shares nothing with this
        search): the final board is valid and complete (unless Ctrl-C came while the holes of
        a partial board were being filled: then it is the board given), both scores are
        right, every clue is in place, and the score did not go down. Raises
        :class:`NotVerifiable` when the result holds no board."""
        from rompicapo.edges.verify import board_problems, count_matched_joints

        p = self.puzzle
        if p is None or self.board is None or self.start is None:
            raise NotVerifiable("this result holds no board to check")
        pieces = p.pieces.tolist()
        placements = self.board.placements()
        complete = not (self.interrupted and self.board == self.start)
        if board_problems(p.rows, p.cols, pieces, placements, complete=complete):
            return False
        if count_matched_joints(p.rows, p.cols, pieces, placements) != self.score_after:
            return False
        start = self.start.placements()
        if count_matched_joints(p.rows, p.cols, pieces, start) != self.score_before:
            return False
        if self.clues is not None:
            for r, c, k, rot in self.clues.placements():
                here = int(self.board.piece[r, c])
                if (here >= 0 or complete) and (here != k or self.board.rotation[r, c] != rot):
                    return False
        return self.score_after >= self.score_before and (
            not self.solved or self.score_after == p.n_joints
        )

    def _dict_extra(self) -> dict:
        p = self.puzzle
        try:
            verified: bool | None = self.verify()
        except NotVerifiable:
            verified = None
        return {
            "puzzle": None if p is None else p.name,
            "size": None if p is None else [p.rows, p.cols],
            "gain": self.gain,
            "max_score": None if p is None else p.n_joints,
            "history": [[round(t, 3), s] for t, s in self.history],
            "verified": verified,
        }

    def report(self, what: str = "improved") -> str:
        """The line ``rompicapo edges improve`` prints, then the board (or where it went)."""
        from rompicapo.edges.puzzle import format_board

        assert self.puzzle is not None
        state = "interrupted" if self.interrupted else ("solved" if self.solved else what)
        filled = (
            f" (holes filled: {self.score_completed})"
            if self.score_completed != self.score_before
            else ""
        )
        try:
            verified: bool | None = self.verify()
        except NotVerifiable:
            verified = None
        line = (
            f"{state}: score {self.score_before} -> {self.score_after}/{self.puzzle.n_joints} "
            f"({self.gain:+d}){filled}; {self.iterations:,} repairs, "
            f"{self.counts.get('nodes', 0):,} nodes in {self.solve_seconds:.1f} s; "
            f"verified {verified}\n"
        )
        if self.out:
            return line + f"board written to {self.out}\n"
        if self.board is None:
            return line
        return line + format_board(self.board, self.puzzle)


# --------------------------------------------------------------------------------------------
# Piece tables and board state (flat arrays for the kernel)
# --------------------------------------------------------------------------------------------


def _piece_tables(puzzle: Puzzle) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``rot_edges`` (p*16 + r*4 + s), ``grey_mask`` (p*4 + r; 16 for a repeated turn of a
    symmetric piece) and ``ptype`` (one id per set of pieces equal up to rotation)."""
    pieces = puzzle.pieces.astype(np.int64)
    n = len(pieces)
    rot = np.empty((n, 4, 4), dtype=np.int64)
    for r in range(4):
        for s in range(4):
            rot[:, r, s] = pieces[:, (s - r) % 4]
    grey = ((rot == 0) * (1 << np.arange(4))).sum(axis=2)
    for r in range(1, 4):
        for r0 in range(r):
            same = (rot[:, r] == rot[:, r0]).all(axis=1)
            grey[same, r] = 16
    canon: dict[tuple[int, ...], int] = {}
    ptype = np.array(
        [canon.setdefault(min(tuple(rot[k, r]) for r in range(4)), k) for k in range(n)],
        dtype=np.int64,
    )
    return rot.reshape(-1), grey.reshape(-1).astype(np.int64), ptype


@dataclass
class _State:
    """One board, flat; replaced as a whole on each accepted move (so Ctrl-C never sees half
    a move)."""

    piece: np.ndarray
    rot: np.ndarray
    score: int


def _to_board(state: _State, rows: int, cols: int) -> Board:
    return Board(
        state.piece.reshape(rows, cols).astype(np.int16),
        np.where(state.piece >= 0, state.rot, 0).reshape(rows, cols).astype(np.int8),
    )


def _place_clues(board: Board, clues: Board, puzzle: Puzzle) -> Board:
    """The board with every clue in place; a clue cell holding another piece, or a clue piece
    used elsewhere, is an error."""
    out = board.copy()
    used = {int(k): (r, c) for r, c, k, _ in board.placements()}
    for r, c, k, rot in clues.placements():
        have = int(board.piece[r, c])
        if have == k:
            if int(board.rotation[r, c]) != rot:
                raise InputError(
                    f"the board turns clue piece {k + 1} at ({r}, {c}) {board.rotation[r, c]} "
                    f"times, the clue {rot} times"
                )
            continue
        if have >= 0:
            raise InputError(
                f"the board holds piece {have + 1} at ({r}, {c}), where the clue pins piece {k + 1}"
            )
        if k in used:
            raise InputError(f"clue piece {k + 1} of cell ({r}, {c}) is on the board at {used[k]}")
        out.piece[r, c], out.rotation[r, c] = k, rot
    return out


# --------------------------------------------------------------------------------------------
# Destroy operators: each returns the cells to free (never a clue cell)
# --------------------------------------------------------------------------------------------


class _Destroy:
    def __init__(self, rows: int, cols: int, movable: np.ndarray, rot_edges: np.ndarray):
        self.rows, self.cols = rows, cols
        self.movable = movable  # bool per cell: not a clue
        self.rot_edges = rot_edges.reshape(-1, 4, 4)
        cells = np.arange(rows * cols)
        r, c = np.divmod(cells, cols)
        rim = (r == 0) | (r == rows - 1) | (c == 0) | (c == cols - 1)
        self.inner = cells[movable & ~rim]
        self.rim = cells[movable & rim]
        self.all = cells[movable]

    def _free(self, cells: np.ndarray) -> np.ndarray:
        cells = np.unique(cells)
        return cells[self.movable[cells]]

    def anchor(self, rng: np.random.Generator, state: _State) -> int:
        """A movable cell of a random mismatched joint (a random movable cell when none):
        a region that touches no mismatched joint cannot score more, so every region
        holds an anchor."""
        a, b = self.mismatched_cells(state)
        ends = np.concatenate([a, b])
        ends = ends[self.movable[ends]]
        pool = ends if len(ends) else self.all
        return int(pool[rng.integers(len(pool))])

    def rectangle(self, rng: np.random.Generator, size: int, state: _State) -> np.ndarray:
        ar, ac = divmod(self.anchor(rng, state), self.cols)
        h = int(rng.integers(1, min(self.rows, size) + 1))
        w = min(self.cols, max(1, round(size / h)))
        r0 = int(rng.integers(max(0, ar - h + 1), min(ar, self.rows - h) + 1))
        c0 = int(rng.integers(max(0, ac - w + 1), min(ac, self.cols - w) + 1))
        rr, cc = np.meshgrid(np.arange(r0, r0 + h), np.arange(c0, c0 + w), indexing="ij")
        return self._free((rr * self.cols + cc).ravel())

    def cells(self, rng: np.random.Generator, size: int, state: _State) -> np.ndarray:
        """The anchor and random cells of its kind (inner or rim), where its piece could go."""
        anchor = self.anchor(rng, state)
        pool = self.rim if np.isin(anchor, self.rim) else self.inner
        pool = pool[pool != anchor]
        others = rng.choice(pool, size=min(size - 1, len(pool)), replace=False)
        return self._free(np.append(others, anchor))

    def line(self, rng: np.random.Generator, size: int, state: _State) -> np.ndarray:
        ar, ac = divmod(self.anchor(rng, state), self.cols)
        if rng.random() < 0.5:
            length = min(size, self.cols)
            c0 = int(rng.integers(max(0, ac - length + 1), min(ac, self.cols - length) + 1))
            cells = ar * self.cols + np.arange(c0, c0 + length)
        else:
            length = min(size, self.rows)
            r0 = int(rng.integers(max(0, ar - length + 1), min(ar, self.rows - length) + 1))
            cells = np.arange(r0, r0 + length) * self.cols + ac
        return self._free(cells)

    def mismatched_cells(self, state: _State) -> tuple[np.ndarray, np.ndarray]:
        """The two cells of every mismatched joint (``a[i]``, ``b[i]``)."""
        rows, cols = self.rows, self.cols
        shown = self.rot_edges[state.piece, state.rot].reshape(rows, cols, 4)
        idx = np.arange(rows * cols).reshape(rows, cols)
        h = shown[:, :-1, 1] != shown[:, 1:, 3]
        v = shown[:-1, :, 2] != shown[1:, :, 0]
        a = np.concatenate([idx[:, :-1][h], idx[:-1, :][v]])
        b = np.concatenate([idx[:, 1:][h], idx[1:, :][v]])
        return a, b

    def mismatches(self, rng: np.random.Generator, size: int, state: _State) -> np.ndarray:
        """A compact blob grown from the two cells of one random mismatched joint."""
        a, b = self.mismatched_cells(state)
        if len(a) == 0:
            return self.rectangle(rng, size, state)
        i = int(rng.integers(len(a)))
        chosen = {cell for cell in (int(a[i]), int(b[i])) if self.movable[cell]}
        frontier = list(chosen)
        while len(chosen) < size and frontier:
            cell = frontier[int(rng.integers(len(frontier)))]
            r, c = divmod(cell, self.cols)
            around = [
                rr * self.cols + cc
                for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                if 0 <= rr < self.rows and 0 <= cc < self.cols
            ]
            around = [nb for nb in around if self.movable[nb] and nb not in chosen]
            if not around:
                frontier.remove(cell)
                continue
            nb = around[int(rng.integers(len(around)))]
            chosen.add(nb)
            frontier.append(nb)
        return np.array(sorted(chosen), dtype=np.int64)


# --------------------------------------------------------------------------------------------
# The search
# --------------------------------------------------------------------------------------------


class _Repairer:
    """Calls the kernel on one region; keeps its scratch arrays."""

    def __init__(self, puzzle: Puzzle):
        self.rows, self.cols = puzzle.rows, puzzle.cols
        self.rot_edges, self.grey_mask, self.ptype = _piece_tables(puzzle)
        n = puzzle.rows * puzzle.cols
        self.out_cell = np.empty(n, dtype=np.int64)
        self.out_piece = np.empty(n, dtype=np.int64)
        self.out_rot = np.empty(n, dtype=np.int64)
        self.counters = np.zeros(RK.N_COUNTERS, dtype=np.int64)

    def __call__(
        self,
        state: _State,
        region: np.ndarray,
        free: np.ndarray,
        rng: np.random.Generator,
        node_cap: int,
        floor_offset: int,
        slack: int = -1,
    ) -> tuple[_State | None, int, bool]:
        """Repair ``region`` with the pieces ``free``: the new state when an arrangement
        scoring at least the current one + ``floor_offset`` + 1 (with ``slack`` >= 0: the
        region's bound - ``slack``) was found (None otherwise), the nodes, and whether the
        repair was proven."""
        # identical pieces next to each other (the kernel's multiset rule), the groups and the
        # order inside each in random order so equal-score repairs differ from run to run
        types = self.ptype[free]
        key = rng.random(self.ptype.shape[0])[types]
        free = free[np.lexsort((rng.random(len(free)), key))]
        m = len(region)
        region = region[rng.permutation(m)]
        c = self.counters
        RK.repair(
            self.rows,
            self.cols,
            state.piece,
            state.rot,
            self.rot_edges,
            self.grey_mask,
            region,
            free,
            self.ptype[free],
            floor_offset,
            slack,
            node_cap,
            self.out_cell,
            self.out_piece,
            self.out_rot,
            c,
        )
        nodes, proven = int(c[RK.R_NODES]), bool(c[RK.R_PROVEN])
        if not c[RK.R_FOUND]:
            return None, nodes, proven
        piece = state.piece.copy()
        rot = state.rot.copy()
        piece[self.out_cell[:m]] = self.out_piece[:m]
        rot[self.out_cell[:m]] = self.out_rot[:m]
        new = _State(piece, rot, state.score - int(c[RK.R_CURRENT]) + int(c[RK.R_BEST]))
        return new, nodes, proven


def _warm() -> None:
    """Compile the kernel on a 3x3 board (every cell freed)."""
    from rompicapo.edges.generate import generate

    puzzle, solution = generate(3, 3, frame_colours=1, inner_colours=2, seed=0)
    piece = solution.piece.ravel().astype(np.int64)
    state = _State(piece, solution.rotation.ravel().astype(np.int64), 0)
    _Repairer(puzzle)(state, np.arange(9), piece.copy(), np.random.default_rng(0), 100, -1)


@renamed_keywords(seconds="time_limit", max_iterations="node_limit")
def improve(
    board: Board,
    puzzle: Puzzle,
    *,
    time_limit: float | None = 30.0,
    seed: int | None = 0,
    clues: Board | None = None,
    node_limit: int | None = None,
    node_cap: int = NODE_CAP,
    operators: tuple[str, ...] = OPERATORS,
    progress: ProgressCallback | None = None,
    on_progress: Callable[[dict], None] | None = None,
) -> ImproveResult:
    """Improve ``board`` (complete, or partial: its holes are filled first) for
    ``time_limit`` seconds of wall clock (None: no limit; compilation included) or
    ``node_limit`` destroy-and-repair steps (this search's nodes are repairs; each repair
    searches at most ``node_cap`` nodes of the exact kernel), or until perfect. Old keyword
    names: ``seconds``, ``max_iterations``.

    ``clues`` (a partial board) are pinned: placed if their cell is empty, never moved; a
    board that puts another piece on a clue cell is an :class:`InputError`. The score never
    goes down and the board stays valid (each piece once, grey exactly on the rim). Ctrl-C
    ends the search and returns the best board so far (``interrupted``). ``progress`` receives
    :class:`~rompicapo.common.ProgressEvent` objects (``done``: repairs; ``best``: the score)
    about every half second; ``on_progress``, the earlier callback, a dict (seconds,
    iterations, score, max_score). Same seed and ``node_limit`` without a time limit: same
    board.
    """
    deadline = Deadline(check_time_limit(time_limit))
    seconds = deadline.time_limit
    max_iterations = check_node_limit(node_limit)
    seed = check_seed(seed) or 0
    if not isinstance(puzzle, Puzzle) or not isinstance(board, Board):
        raise InputError("improve() takes a Board and a Puzzle")
    validate(board, puzzle, complete=False)
    node_cap = check_int(node_cap, "node_cap", minimum=1, maximum=10**12)
    unknown = [op for op in operators if op not in OPERATORS]
    if unknown or not operators:
        raise InputError(f"operators must be among {', '.join(OPERATORS)}, got {operators!r}")
    if clues is not None:
        if (clues.rows, clues.cols) != (puzzle.rows, puzzle.cols):
            raise InputError(
                f"clues are {clues.rows}x{clues.cols} but the puzzle is {puzzle.rows}x{puzzle.cols}"
            )
        cp = rule_problems(clues, puzzle, complete=False)
        if cp:
            raise InputError(f"clues: {cp[0]}")
    compile_s = jit_warmup("edges.repair", _warm)
    rows, cols, n = puzzle.rows, puzzle.cols, puzzle.rows * puzzle.cols
    rng = np.random.default_rng(seed if seed >= 0 else seed_sequence(seed))
    score_before = model_score(board, puzzle)
    start = board.copy()
    work = _place_clues(board, clues, puzzle) if clues is not None else board.copy()
    movable = np.ones(n, dtype=bool)
    if clues is not None:
        movable[(clues.piece >= 0).ravel()] = False
    rep = _Repairer(puzzle)
    piece = work.piece.ravel().astype(np.int64)
    rot = np.where(piece >= 0, work.rotation.ravel(), 0).astype(np.int64)
    state = _State(piece, rot, model_score(work, puzzle))
    total_nodes = 0
    # the clock of the time limit started at the call (compilation above included)
    t0 = time.perf_counter() - deadline.elapsed()
    history = [(0.0, score_before)]
    events = Progress(progress, unit="repairs")

    def report(info: dict) -> None:
        counts = {k: int(v) for k, v in info.items() if k != "seconds"}
        events.update(info["iterations"], counts=counts)
        if info["score"] > (-1 if events.best_value is None else events.best_value):
            events.best(info["score"], counts=counts)
        if on_progress is not None:
            on_progress(info)

    stats = {
        op: {
            "uses": 0, "improved": 0, "moved": 0, "gain": 0, "nodes": 0, "proven": 0,
            "capped": 0, "weight": 1.0, "size": START_SIZE[op],
        }
        for op in operators
    }  # fmt: skip
    interrupted = False
    iterations = 0
    score_completed = score_before
    with Stopwatch() as sw:
        try:
            holes = np.nonzero(state.piece < 0)[0]
            if len(holes):
                solver_s = SOLVER_SHARE * seconds if seconds is not None else SOLVER_SECONDS
                state, nodes = _fill_holes(state, holes, puzzle, rep, rng, solver_s, seed)
                total_nodes += nodes
            score_completed = state.score
            if score_completed > score_before:
                history.append((time.perf_counter() - t0, score_completed))
            state, iterations, total_nodes = _search(
                state, rep, _Destroy(rows, cols, movable, rep.rot_edges), stats, rng,
                seconds, max_iterations, node_cap, puzzle.n_joints, t0, history, report,
                total_nodes,
            )  # fmt: skip
        except _Interrupted as stop:
            interrupted = True
            state, iterations, total_nodes = stop.state, stop.iterations, stop.nodes
        except KeyboardInterrupt:  # while the holes were being filled
            interrupted = True
    if state.score >= score_before and (state.piece >= 0).all():
        out, after = _to_board(state, rows, cols), state.score
    else:  # interrupted before the holes were filled
        out, after = start.copy(), score_before
    events.finish(counts={"iterations": iterations, "nodes": total_nodes})
    for op in stats.values():
        op["weight"] = round(op["weight"], 3)
        op["size"] = round(op["size"], 1)
    return ImproveResult(
        solve_seconds=sw.seconds,
        compile_seconds=compile_s,
        counts={"iterations": iterations, "nodes": total_nodes},
        puzzle=puzzle,
        board=out,
        start=start,
        clues=clues,
        score_before=score_before,
        score_completed=score_completed,
        score_after=after,
        iterations=iterations,
        operators=stats,
        history=history,
        solved=after == puzzle.n_joints,
        interrupted=interrupted,
        seed=seed,
    )


def _fill_holes(
    state: _State,
    holes: np.ndarray,
    puzzle: Puzzle,
    rep: _Repairer,
    rng: np.random.Generator,
    solver_seconds: float,
    seed: int,
) -> tuple[_State, int]:
    """Fill the empty cells with the unused pieces.

    First a search for a perfect fill by the kernel (every joint of the holes must match). If
    the node cap cut it (neither found nor ruled out), Blackwood's search for perfect boards
    (:func:`rompicapo.edges.blackwood.search`, the placed pieces pinned as clues) gets
    ``solver_seconds``: its candidate tables find a perfect fill of many holes far faster than
    the kernel's scan of every free piece. Failing that, target-first searches (one joint
    short of the bound, two, ...), then a branch and bound from any fill (its first descent
    always completes: piece kinds match cell kinds).
    """
    unused = np.setdiff1d(np.arange(puzzle.n_pieces), state.piece[state.piece >= 0])
    budget = max(len(holes), min(COMPLETION_NODES, COMPLETION_WORK // (4 * len(holes))))
    per_try = budget // (2 * TARGET_TRIES)
    total = 0
    perfect = _joints_touching(state, holes, rep.rows, rep.cols)
    new, nodes, proven = rep(state, holes, unused, rng, per_try, -1, 0)
    total += nodes
    bound = int(rep.counters[RK.R_BOUND])
    if new is not None:
        return new, total
    if bound == perfect and not proven and solver_seconds > 0:
        from rompicapo.edges.blackwood import Settings, search

        pinned = _to_board(state, rep.rows, rep.cols)
        perfect_only = Settings(quota="none", breaks="none")
        res = search(puzzle, pinned, settings=perfect_only, time_limit=solver_seconds, seed=seed)
        total += res.counts.get("nodes", 0)
        if res.interrupted:  # the search keeps Ctrl-C to itself; pass it on
            raise KeyboardInterrupt
        if res.solved and res.board is not None:
            piece = res.board.piece.ravel().astype(np.int64)
            rot = res.board.rotation.ravel().astype(np.int64)
            return _State(piece, rot, puzzle.n_joints), total
    for slack in range(1, TARGET_TRIES):
        new, nodes, _ = rep(state, holes, unused, rng, per_try, -1, slack)
        total += nodes
        if new is not None:
            return new, total
    new, nodes, _ = rep(state, holes, unused, rng, budget // 2, -1)
    assert new is not None
    return new, total + nodes


def _joints_touching(state: _State, cells: np.ndarray, rows: int, cols: int) -> int:
    """Joints with an end in ``cells`` and the other end occupied or in ``cells``."""
    inside = np.zeros(rows * cols, dtype=bool)
    inside[cells] = True
    filled = (state.piece >= 0) | inside
    grid_in, grid_f = inside.reshape(rows, cols), filled.reshape(rows, cols)
    h = (grid_in[:, :-1] | grid_in[:, 1:]) & grid_f[:, :-1] & grid_f[:, 1:]
    v = (grid_in[:-1, :] | grid_in[1:, :]) & grid_f[:-1, :] & grid_f[1:, :]
    return int(h.sum() + v.sum())


class _Interrupted(Exception):
    def __init__(self, state: _State, iterations: int, nodes: int):
        self.state, self.iterations, self.nodes = state, iterations, nodes


def _search(
    state: _State,
    rep: _Repairer,
    destroy: _Destroy,
    stats: dict[str, dict],
    rng: np.random.Generator,
    seconds: float | None,
    max_iterations: int | None,
    node_cap: int,
    perfect: int,
    t0: float,
    history: list[tuple[float, int]],
    on_progress: Callable[[dict], None] | None,
    total_nodes: int,
) -> tuple[_State, int, int]:
    names = list(stats)
    segment = {op: [0.0, 0] for op in names}  # reward sum, uses in this segment
    max_size = min(MAX_REGION, len(destroy.all))
    iterations = 0
    last_report = t0
    try:
        while state.score < perfect and len(destroy.all) >= MIN_REGION:
            now = time.perf_counter()
            if seconds is not None and now - t0 >= seconds:
                break
            if max_iterations is not None and iterations >= max_iterations:
                break
            if on_progress is not None and now - last_report >= PROGRESS_SECONDS:
                last_report = now
                on_progress(
                    {"seconds": now - t0, "iterations": iterations, "score": state.score,
                     "max_score": perfect}
                )  # fmt: skip
            weights = np.array([stats[op]["weight"] for op in names])
            op = names[int(rng.choice(len(names), p=weights / weights.sum()))]
            st = stats[op]
            size = int(min(max_size, max(MIN_REGION, round(st["size"]))))
            region = getattr(destroy, op)(rng, size, state)
            iterations += 1
            st["uses"] += 1
            segment[op][1] += 1
            if len(region) < MIN_REGION:
                continue
            new, nodes, proven = rep(state, region, state.piece[region], rng, node_cap, -1)
            total_nodes += nodes
            st["nodes"] += nodes
            if proven:
                st["proven"] += 1
                st["size"] = min(max_size, st["size"] + SIZE_STEP)
            else:
                st["capped"] += 1
                st["size"] = max(MIN_REGION, st["size"] - SIZE_STEP)
            reward = 0.0
            if new is not None:
                if new.score > state.score:
                    st["improved"] += 1
                    st["gain"] += new.score - state.score
                    reward = REWARD_IMPROVED
                    history.append((time.perf_counter() - t0, new.score))
                    state = new
                elif not (
                    np.array_equal(new.piece, state.piece) and np.array_equal(new.rot, state.rot)
                ):
                    st["moved"] += 1
                    reward = REWARD_MOVED
                    state = new
            segment[op][0] += reward
            if iterations % SEGMENT == 0:
                for name in names:
                    total, uses = segment[name]
                    if uses:
                        w = stats[name]["weight"]
                        stats[name]["weight"] = max(
                            MIN_WEIGHT, (1 - REACTION) * w + REACTION * total / uses
                        )
                    segment[name] = [0.0, 0]
    except KeyboardInterrupt:
        raise _Interrupted(state, iterations, total_nodes) from None
    return state, iterations, total_nodes
