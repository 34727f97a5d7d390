"""Polish an edge-matching board: adaptive large-neighbourhood search (ALNS).

A backtracker stops where its last cells cannot be filled; the board it leaves has a few
mismatched joints and perhaps holes. `improve()` takes such a board (complete or partial)
and repeats:

1. **destroy**: free a region of cells (never a clue) with one of six operators, each
   around an *anchor*, a cell of a random mismatched joint (a region touching no mismatched
   joint cannot score more): ``rectangle`` (a block of cells holding the anchor), ``cells``
   (the anchor and cells of its kind, inner, edge or corner, scattered over the board, so
   pieces can trade places), ``mismatches`` (a compact blob grown at random from both cells
   of a mismatched joint), ``line`` (a stretch of the anchor's row or column), ``border``
   (a stretch of the frame, round its corners) and ``misfits`` (the cells of the anchor's
   kind on other mismatched joints: the pieces that match least trade places);
2. **repair**: put the freed pieces back by exact search (the numba kernel in
   ``_repair_kernel``: the region in most-constrained-first order, branch and bound on matched
   joints, at most ``repair_nodes`` nodes per repair), asking for the best arrangement that
   moves a piece. Three repair methods: ``branch-and-bound`` (the region's best arrangement)
   ``target`` (only arrangements within a joint of the region's bound: a mismatch the
   bound does not foresee ends a branch at once, so the search goes deeper for the same
   nodes) and ``deep`` (a region ``DEEP_SIZE`` times larger, ``DEEP_NODES`` times the nodes);
3. **accept** the repaired board or go back, by the ``acceptance`` criterion: ``hill``
   (as good as the current board or better: plateaus are crossed, valleys never),
   ``lahc`` (late acceptance, Burke and Bykov 2017: also as good as the board of
   ``LAHC_LENGTH`` iterations ago), ``record`` (record-to-record travel: as good as the best
   board minus ``DEVIATION``) or ``annealing`` (a loss of ``d`` joints with probability
   ``exp(-d / T)``, ``T`` cooling from ``T_START`` to ``T_END`` over the run). The best board
   met is kept and returned, so the result never scores less than the board given; after
   ``RETURN_AFTER`` iterations without a new best the search goes back to it.

Adaptive weights (ALNS, Ropke and Pisinger 2006): the operator and the repair method of each
iteration are drawn with probability proportional to their weights. Each use earns a reward
by outcome (``REWARD_BEST`` for a new best board, ``REWARD_BETTER`` for a better current
board, ``REWARD_ACCEPTED`` for a move accepted at equal or lower score, 0 otherwise); every
``SEGMENT`` iterations each weight moves a fraction ``REACTION`` of the way to the mean
reward of the segment, never below ``MIN_WEIGHT``. Each operator's region size adapts too: it
grows after a repair proven optimal and shrinks after a repair cut by ``repair_nodes``, so
repairs sit where the exact search just about finishes. The loop runs in a numba kernel
(``_alns_kernel``), in chunks of about ``CHUNK_SECONDS``.

A partial board is first completed: its empty cells, a region of their own, get the unused
pieces. The kernel first looks for a perfect fill; when its node budget leaves that open (many
holes), Blackwood's search for perfect boards runs with the placed pieces pinned; failing
both, the kernel fills the holes to within 1, 2, ... joints of its bound, or best-first.

```pycon
>>> from rompicapo.edges.generate import generate
>>> puzzle, solution = generate(5, 5, frame_colours=2, inner_colours=3, seed=1)
>>> holes = solution.copy(); holes.piece[1:4, 1:4] = -1
>>> result = improve(holes, puzzle, time_limit=None, node_limit=200, seed=0)
>>> result.score_after == puzzle.n_joints, result.verify()
(True, True)

```"""

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
    ProgressEvent,
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
from rompicapo.edges.improve_alns import ACCEPTANCE, OPERATORS, REPAIRS, REPAIRS_ON, AlnsSearch
from rompicapo.edges.puzzle import Board, Puzzle, rule_problems, validate
from rompicapo.edges.puzzle import score as model_score

__all__ = ["ACCEPTANCE", "NODE_CAP", "OPERATORS", "REPAIRS", "REPAIR_NODES", "ImproveResult",
           "improve"]  # fmt: skip

# Default acceptance, by measurement (benchmarks/edges_improve.py's boards, 30 s, load 10-14,
# ~8 s of CPU per run): hill, annealing, late acceptance and record-to-record all reach 462 on
# the three boards; in 120 s hill reached 463, annealing 462. Accepting losses does not pay
# within such budgets; the other criteria stay for longer runs.
DEFAULT_ACCEPTANCE = "hill"

# Nodes per repair. Many small repairs beat few deep ones (measured with the Python loop, 10 s
# from the same start, final score by budget 500 / 1000 / 2000 / 5000 / 20000: Brendan 16x16
# with 90 % of its cells emptied 407 / 405 / 409 / 394 / 387; an empty Brendan 6x6
# 58 / 58 / 60 / 58 / 58; Eternity II 462 for all); 2000 nodes are ~0.5 ms, and a region of a
# dozen scattered inner cells is still searched to the end.
REPAIR_NODES = 2_000
NODE_CAP = REPAIR_NODES  # the earlier name
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


# --------------------------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------------------------


@dataclass
class ImproveResult(SearchResult):
    """The polished board and how it got there.

    ``score_before``: matched joints of the board given; ``score_completed``: after filling its
    holes (equal to ``score_before`` for a complete board); ``score_after``: the final board's.
    ``operators``: per destroy operator, ``uses``, ``improved`` (accepted repairs that raised
    the current score), ``moved`` (accepted at equal score), ``worse`` (accepted lower),
    ``best`` (repairs that gave a new best board), ``gain`` (joints won by those), ``nodes``,
    ``proven`` (repairs searched to the end), ``capped`` (cut by ``repair_nodes``), ``weight``
    (final ALNS weight) and ``size`` (final region size); ``repairs``: the same per repair
    method (no ``size``). ``acceptance``: the criterion used. ``history``: ``(seconds, score)``
    at the start and at each new best. ``counts``: ``iterations``, ``nodes``.
    """

    puzzle: Puzzle | None = None
    """The pieces and the board's size."""
    board: Board | None = None
    """The improved board."""
    start: Board | None = None
    """The board given."""
    clues: Board | None = None
    """The clue pieces kept in place, as a board."""
    score_before: int = 0
    """Matched joints of the board given."""
    score_completed: int = 0
    """Matched joints after its holes were filled (``score_before`` for a complete board)."""
    score_after: int = 0
    """Matched joints of the improved board."""
    iterations: int = 0
    """Destroy-and-repair rounds run."""
    operators: dict[str, dict] = field(default_factory=dict)
    """Per destroy operator: uses, improved, moved, worse, best, gain, nodes, proven, capped, weight
    and size (see the class text)."""
    repairs: dict[str, dict] = field(default_factory=dict)
    """The same measures per repair method (no size)."""
    acceptance: str = DEFAULT_ACCEPTANCE
    """The acceptance criterion of worse boards."""
    history: list[tuple[float, int]] = field(default_factory=list)
    """``(seconds, score)`` at the start and at each new best."""
    solved: bool = False
    """True when a perfect board was reached."""
    interrupted: bool = False
    """True when Ctrl-C or SIGTERM stopped the run (the best board is kept)."""
    seed: int = 0
    """The seed of the run."""

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
    """Where the board was written, if anywhere."""

    _dict_exclude = ("puzzle", "board", "start", "clues")

    def _repr_svg_(self) -> str | None:
        """Jupyter shows the improved board, mismatched joints marked in red."""
        from rompicapo.edges.render import board_picture

        return board_picture(self.board, self.puzzle, "improved board")

    def verify(self) -> bool:
        """Recount with `rompicapo.edges.verify` (code that shares nothing with this
        search): the final board is valid and complete (unless Ctrl-C came while the holes of
        a partial board were being filled: then it is the board given), both scores are
        right, every clue is in place, and the score did not go down. Raises
        [`NotVerifiable`][rompicapo.common.NotVerifiable] when the result holds no board."""
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
        if self.operators:
            line += (
                f"{self.acceptance} acceptance; operators (weight, new bests): "
                + ", ".join(f"{op} {o['weight']:g} {o['best']}" for op, o in self.operators.items())
                + "\n"
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
    """``rot_edges`` (p×16 + r×4 + s), ``grey_mask`` (p×4 + r; 16 for a repeated turn of a
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
    """One board, flat (the holes filled, or the board given)."""

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
    """Compile the kernels on a 3x3 board (every cell freed, then a few iterations)."""
    from rompicapo.edges.generate import generate

    puzzle, solution = generate(3, 3, frame_colours=1, inner_colours=2, seed=0)
    piece = solution.piece.ravel().astype(np.int64)
    state = _State(piece, solution.rotation.ravel().astype(np.int64), 0)
    rep = _Repairer(puzzle)
    rep(state, np.arange(9), piece.copy(), np.random.default_rng(0), 100, -1)
    tables = (rep.rot_edges, rep.grey_mask, rep.ptype)
    alns = AlnsSearch(puzzle, tables, np.ones(9, dtype=bool), OPERATORS, "hill", 100,
                      np.random.default_rng(0))  # fmt: skip
    alns.start(piece, state.rot, puzzle.n_joints - 1)
    alns.run(20)


def _from_dict_callback(on_progress: Callable[[dict], None]) -> ProgressCallback:
    """The dict callback of earlier releases (``on_progress``) as a ``progress`` callback fed
    from the same events."""
    if not callable(on_progress):
        raise InputError(f"on_progress must be a callable, got {type(on_progress).__name__}")

    def as_dict(event: ProgressEvent) -> None:
        if event.kind in ("progress", "best") and event.counts:
            on_progress(
                {"seconds": event.elapsed, "iterations": int(event.done),
                 "score": event.counts.get("score", 0),
                 "max_score": event.counts.get("max_score", 0)}
            )  # fmt: skip

    return as_dict


def _check_arguments(
    board: Board, puzzle: Puzzle, clues: Board | None, operators, acceptance: str, repairs
) -> None:
    if not isinstance(puzzle, Puzzle) or not isinstance(board, Board):
        raise InputError("improve() takes a Board and a Puzzle")
    validate(board, puzzle, complete=False)
    ops = tuple(operators) if isinstance(operators, (tuple, list)) else (operators,)
    unknown = [op for op in ops if op not in OPERATORS]
    if unknown or not ops:
        raise InputError(f"operators must be among {', '.join(OPERATORS)}, got {operators!r}")
    if isinstance(repairs, str) or not repairs or any(r not in REPAIRS for r in repairs):
        raise InputError(f"repairs must be among {', '.join(REPAIRS)}, got {repairs!r}")
    if acceptance not in ACCEPTANCE:
        raise InputError(f"acceptance must be one of {', '.join(ACCEPTANCE)}, got {acceptance!r}")
    if clues is not None:
        if (clues.rows, clues.cols) != (puzzle.rows, puzzle.cols):
            raise InputError(
                f"clues are {clues.rows}x{clues.cols} but the puzzle is {puzzle.rows}x{puzzle.cols}"
            )
        cp = rule_problems(clues, puzzle, complete=False)
        if cp:
            raise InputError(f"clues: {cp[0]}")


@renamed_keywords(
    seconds="time_limit",
    max_iterations="node_limit",
    node_cap="repair_nodes",
    on_progress=("progress", _from_dict_callback),
)
def improve(
    board: Board,
    puzzle: Puzzle,
    *,
    time_limit: float | None = 30.0,
    seed: int | None = 0,
    clues: Board | None = None,
    node_limit: int | None = None,
    repair_nodes: int = REPAIR_NODES,
    operators: tuple[str, ...] = OPERATORS,
    acceptance: str = DEFAULT_ACCEPTANCE,
    repairs: tuple[str, ...] = REPAIRS_ON,
    progress: ProgressCallback | None = None,
) -> ImproveResult:
    """Improve ``board`` (complete, or partial: its holes are filled first) for
    ``time_limit`` seconds of wall clock (None: no limit; compilation included) or
    ``node_limit`` destroy-and-repair steps (this search's nodes are repairs; each repair
    searches at most ``repair_nodes`` nodes of the exact kernel), or until perfect.
    ``operators``: the destroy operators used (a subset of `OPERATORS`); ``repairs``:
    the repair methods (a subset of `REPAIRS`; ``"deep"`` is off by default);
    ``acceptance``: ``"hill"`` (default), ``"annealing"``, ``"lahc"`` or ``"record"`` (see
    the module's text).

    ``clues`` (a partial board) are pinned: placed if their cell is empty, never moved; a board that
    puts another piece on a clue cell is an [`InputError`][rompicapo.common.InputError]. The result
    is the best board met: its score is never below the board given, and it is valid (each piece
    once, grey exactly on the rim). Ctrl-C ends the search and returns the best board so far
    (``interrupted``). ``progress`` receives [`ProgressEvent`][rompicapo.common.ProgressEvent]
    objects (``done``: repairs; ``best``: the best score; ``counts``: iterations, nodes, score,
    current, max_score; ``message``: the operators' weights). Same seed and ``node_limit`` without a
    time limit: same board. Deprecated names: ``seconds``, ``max_iterations``, ``node_cap`` (now
    ``repair_nodes``), ``on_progress`` (a dict callback; use ``progress``).
    """
    deadline = Deadline(check_time_limit(time_limit))
    max_iterations = check_node_limit(node_limit)
    seed = check_seed(seed) or 0
    callback = progress
    _check_arguments(board, puzzle, clues, operators, acceptance, repairs)
    repair_nodes = check_int(repair_nodes, "repair_nodes", minimum=1, maximum=10**12)
    operators = tuple(operators) if isinstance(operators, (tuple, list)) else (operators,)
    compile_s = jit_warmup("edges.improve", _warm)
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
    # the clock of the time limit started at the call (compilation above included)
    t0 = time.perf_counter() - deadline.elapsed()
    events = Progress(callback, unit="repairs")
    tables = (rep.rot_edges, rep.grey_mask, rep.ptype)
    alns = AlnsSearch(puzzle, tables, movable, operators, acceptance, repair_nodes, rng,
                      tuple(repairs))  # fmt: skip
    interrupted = False
    score_completed = score_before
    history = [(0.0, score_before)]
    with Stopwatch() as sw:
        try:
            holes = np.nonzero(state.piece < 0)[0]
            if len(holes):
                seconds = deadline.time_limit
                solver_s = SOLVER_SHARE * seconds if seconds is not None else SOLVER_SECONDS
                state, nodes = _fill_holes(state, holes, puzzle, rep, rng, solver_s, seed)
                alns.nodes_before = nodes
            score_completed = state.score
            if score_completed > score_before:
                history.append((time.perf_counter() - t0, score_completed))
            alns.start(state.piece, state.rot, state.score)
            alns.search(deadline.time_limit, max_iterations, t0, history, events)
        except KeyboardInterrupt:
            interrupted = True
    found = alns.best()
    best = None if found is None else _State(*found)
    if best is None and (state.piece >= 0).all():
        best = state  # stopped between the hole filling and the search
    if best is not None and best.score >= score_before:
        out, after = _to_board(best, rows, cols), best.score
    else:  # interrupted before the holes were filled
        out, after = start.copy(), score_before
    counts = {"iterations": alns.iterations, "nodes": alns.nodes}
    events.finish(counts={**counts, "score": after, "max_score": puzzle.n_joints})
    return ImproveResult(
        solve_seconds=sw.seconds, compile_seconds=compile_s, counts=counts, puzzle=puzzle,
        board=out, start=start, clues=clues, score_before=score_before,
        score_completed=score_completed, score_after=after, iterations=alns.iterations,
        operators=alns.operator_stats(), repairs=alns.repair_stats(), acceptance=acceptance,
        history=history, solved=after == puzzle.n_joints, interrupted=interrupted, seed=seed,
    )  # fmt: skip


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

    First a search for a perfect fill by the kernel (every joint of the holes must match). If the
    node cap cut it (neither found nor ruled out), Blackwood's search for perfect boards
    ([`rompicapo.edges.blackwood.search()`][rompicapo.edges.search], the placed pieces pinned as
    clues) gets ``solver_seconds``: its candidate tables find a perfect fill of many holes far
    faster than the kernel's scan of every free piece. Failing that, target-first searches (one
    joint short of the bound, two, ...), then a branch and bound from any fill (its first descent
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
