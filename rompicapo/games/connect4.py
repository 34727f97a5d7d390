"""Connect Four on the 7 x 6 board: positions from move strings, an exact solver, a game.

A position is written as the columns played from the empty board, one digit 1..7 per move
(the first player moves first): ``"4455"``. Scores follow Pascal Pons' convention, from the
point of view of the player to move: 0 a draw; ``22 - s`` if the mover wins with his s-th
stone; ``s - 22`` if the opponent wins with his s-th stone. The empty board scores +1 (the
first player wins with his last stone, playing the centre).

    >>> solver = Connect4Solver()
    >>> solver.solve("4455").score
    18

The solver (numba, :mod:`rompicapo.games._connect4_kernel`) is negamax alpha-beta on
bitboards with null-window searches on the exact score, a transposition table holding a lower
and an upper bound and the best move per position (mirror images share entries), and moves
ordered by the threats they create.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from rompicapo.common import (
    InputError,
    NotVerifiable,
    Progress,
    ProgressCallback,
    SearchResult,
    check_limit,
    check_memory,
    jit_warmup,
    read_text,
)
from rompicapo.games import _connect4_kernel as K
from rompicapo.games.game import MAX, MIN, Game

__all__ = [
    "Connect4",
    "Connect4Analysis",
    "Connect4Bench",
    "Connect4Result",
    "Connect4Solver",
    "bench",
    "parse_position",
    "read_test_set",
    "solve_moves",
]

WIDTH, HEIGHT, CELLS = K.WIDTH, K.HEIGHT, K.SIZE


@dataclass(frozen=True)
class Position:
    """A legal Connect Four position: the mover's stones, all stones, stones played, and
    whether the last move connected four (then the game is over)."""

    moves: str
    pos: int
    mask: int
    won: bool

    @property
    def count(self) -> int:
        return len(self.moves)

    @property
    def over(self) -> bool:
        return self.won or len(self.moves) == CELLS

    def playable_columns(self) -> list[int]:
        """The 1-based columns that are not full."""
        top = self.mask + K.BOTTOM
        return [c + 1 for c in range(WIDTH) if top & int(K.COLUMN_MASK[c])]

    def play(self, col: int) -> Position:
        """The position after a stone in column ``col`` (1-based)."""
        if self.over:
            raise InputError(f"the game is over: no move after {self.moves!r}")
        if not 1 <= col <= WIDTH:
            raise InputError(f"column must be 1..{WIDTH}, got {col}")
        move = (self.mask + K.BOTTOM) & int(K.COLUMN_MASK[col - 1])
        if move == 0:
            raise InputError(f"column {col} is full")
        mover = self.pos | move
        return Position(
            self.moves + str(col), mover ^ (self.mask | move), self.mask | move, _has_four(mover)
        )


def _has_four(stones: int) -> bool:
    """Four in a line among ``stones`` (plain Python: cheaper than a kernel call per move)."""
    for d in (1, HEIGHT + 1, HEIGHT, HEIGHT + 2):
        m = stones & (stones >> d)
        if m & (m >> (2 * d)):
            return True
    return False


def parse_position(moves: str) -> Position:
    """The position after ``moves`` (digits 1..7). Raises :class:`InputError` naming the first
    bad move: not a column, a full column, or a move after the game was already won."""
    moves = moves.strip()
    p = Position("", 0, 0, False)
    for i, ch in enumerate(moves, 1):
        if not ("1" <= ch <= str(WIDTH)):
            raise InputError(f"move {i} of {moves!r} is {ch!r}, not a column 1..{WIDTH}")
        if p.won:
            raise InputError(f"move {i} of {moves!r} comes after the game was won at move {i - 1}")
        col = int(ch)
        if not (p.mask + K.BOTTOM) & int(K.COLUMN_MASK[col - 1]):
            raise InputError(f"move {i} of {moves!r} plays column {col}, which is full")
        p = p.play(col)
    return p


@dataclass
class Connect4Result(SearchResult):
    """The score of a position (Pons' convention) and the work it took."""

    moves: str = ""
    score: int = 0
    weak: bool = False
    cpu_seconds: float = 0.0  # CPU time of the solve: on a shared machine steadier than wall

    @property
    def nodes(self) -> int:
        return self.counts.get("nodes", 0)

    def _dict_extra(self) -> dict:
        return {"nodes": self.nodes, "explanation": explain_score(self.score, self.weak)}

    def report(self) -> str:
        return "\n".join(
            [
                Connect4().render(parse_position(self.moves)),
                f"score {self.score} ({explain_score(self.score, self.weak)})",
                f"nodes {self.nodes:,}  time {self.solve_seconds:.4f} s  "
                f"(compile/load {self.compile_seconds:.2f} s)",
            ]
        )

    def verify(self, max_empty: int = 12) -> bool:
        """Replay the moves and recompute the score with the independent pure-Python search of
        :mod:`rompicapo.games.verify`: True when it agrees, False when not (or when the moves
        are not a legal game). Positions with more than ``max_empty`` empty cells are too big
        for that search: :class:`~rompicapo.common.NotVerifiable` is raised for them (a check
        of the score's range alone is not a verification)."""
        from rompicapo.games import verify as V

        if V.connect4_replay(self.moves) is None:
            return False
        empty = CELLS - len(self.moves)
        if empty > max_empty:
            raise NotVerifiable(
                f"{empty} empty cells: too many for the independent search (max_empty={max_empty})"
            )
        true = V.connect4_score(self.moves)
        return (true > 0) - (true < 0) == self.score if self.weak else true == self.score


def explain_score(score: int, weak: bool = False) -> str:
    """Pons' score in words, from the point of view of the player to move."""
    if score == 0:
        return "draw with best play"
    who = "the player to move" if score > 0 else "the opponent"
    if weak:
        return f"{who} wins"
    return f"{who} wins with his stone number {22 - abs(score)}"


@dataclass
class Connect4Analysis(SearchResult):
    """The score of every column (None for a full column) and the best columns."""

    moves: str = ""
    scores: list[int | None] = field(default_factory=list)

    @property
    def score(self) -> int:
        return max(s for s in self.scores if s is not None)

    @property
    def best_columns(self) -> list[int]:
        best = self.score
        return [c + 1 for c, s in enumerate(self.scores) if s == best]

    def _dict_extra(self) -> dict:
        return {"score": self.score, "best_columns": self.best_columns}

    def report(self) -> str:
        cells = ["  -" if s is None else f"{s:3d}" for s in self.scores]
        return "\n".join(
            [
                Connect4().render(parse_position(self.moves)),
                "column:" + "".join(f"{c:>4}" for c in range(1, 8)),
                "score: " + " ".join(cells),
                f"best column(s) {self.best_columns}; score {self.score}",
                f"nodes {self.counts.get('nodes', 0):,}  time {self.solve_seconds:.3f} s",
            ]
        )

    def verify(self, max_empty: int = 12) -> bool:
        """Every column's score against the independent search; raises
        :class:`~rompicapo.common.NotVerifiable` when some column leaves more than
        ``max_empty`` empty cells (see :meth:`Connect4Result.verify`)."""
        for c, s in enumerate(self.scores, 1):
            if s is None:
                continue
            child = Connect4Result(moves=self.moves + str(c), score=-s)
            if parse_position(child.moves).won:
                if s != (CELLS + 1 - len(self.moves)) // 2:
                    return False
            elif not child.verify(max_empty):
                return False
        return True


@dataclass
class Connect4Bench(SearchResult):
    """A test set solved: how many scores equal the file's, mean time and nodes per position."""

    path: str = ""
    positions: int = 0
    correct: int = 0
    weak: bool = False
    mean_us: float = 0.0
    mean_nodes: float = 0.0
    mismatches: list[tuple[str, int, int]] = field(default_factory=list)

    def report(self) -> str:
        return (
            f"{self.positions} positions, {self.correct} correct; mean time "
            f"{self.mean_us:,.1f} us; mean nodes {self.mean_nodes:,.1f}; total "
            f"{self.solve_seconds:.2f} s"
        )

    def verify(self) -> bool:
        """True when every score equals the one the file gives (an independent source)."""
        if self.positions == 0:
            raise NotVerifiable("no positions were solved")
        return self.correct == self.positions and not self.mismatches


def solve_moves(
    moves: str, *, analyze: bool = False, weak: bool = False, solver: Connect4Solver | None = None
) -> Connect4Result | Connect4Analysis:
    """The score of the position after ``moves`` (or, with ``analyze``, of every column).

    The moves are checked before the solver's table is allocated or its kernel loaded, so a
    bad position costs nothing."""
    position = parse_position(moves)
    if position.over:
        raise InputError(f"the game is already over after {position.moves!r}")
    solver = solver or Connect4Solver()
    return solver.analyze(position, weak=weak) if analyze else solver.solve(position, weak=weak)


def read_test_set(path: object) -> list[tuple[str, int]]:
    """The ``MOVES SCORE`` lines of one of Pons' test files, each position checked legal.

    Raises :class:`InputError` naming the file and line of the first bad one."""
    rows: list[tuple[str, int]] = []
    for n, line in enumerate(read_text(path, "test set").split("\n"), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise InputError("expected 'MOVES SCORE'", path=path, line=n)
        try:
            score = int(parts[1])
        except ValueError:
            raise InputError(
                f"score {parts[1][:20]!r} is not an integer", path=path, line=n
            ) from None
        try:
            position = parse_position(parts[0])
        except InputError as exc:
            raise InputError(str(exc), path=path, line=n) from None
        if position.over:
            raise InputError("the game is already over in this position", path=path, line=n)
        if abs(score) > CELLS // 2:
            raise InputError(f"score {score} is out of range", path=path, line=n)
        rows.append((position.moves, score))
    if not rows:
        raise InputError(f"test set {str(path)!r} has no positions")
    return rows


def bench(
    path: object,
    *,
    limit: int | None = None,
    weak: bool = False,
    progress: ProgressCallback | None = None,
    solver: Connect4Solver | None = None,
) -> Connect4Bench:
    """Solve the positions of a test file (``MOVES SCORE`` lines, Pons' format), the first
    ``limit`` of them, and compare each score with the file's."""
    limit = check_limit(limit)
    rows = read_test_set(path)[:limit]
    solver = solver or Connect4Solver()
    tracker = Progress(progress, unit="positions", total=len(rows))
    out = Connect4Bench(path=str(path), positions=len(rows), weak=weak)
    times: list[float] = []
    nodes = 0
    t0 = time.perf_counter()
    for i, (moves, expected) in enumerate(rows, 1):
        r = solver.solve(moves, weak=weak)
        want = (expected > 0) - (expected < 0) if weak else expected
        if r.score == want:
            out.correct += 1
        else:
            out.mismatches.append((moves, want, r.score))
        times.append(r.solve_seconds)
        nodes += r.nodes
        tracker.update(i)
    out.solve_seconds = time.perf_counter() - t0
    out.mean_us = 1e6 * sum(times) / len(times)
    out.mean_nodes = nodes / len(rows)
    out.counts = {"nodes": nodes, "positions": len(rows)}
    tracker.finish()
    return out


# An End-Easy position of Pons' test set (score -1) with 5 empty cells.
_WARMUP = "2252576253462244111563365343671351441"


class Connect4Solver:
    """Exact (or weak: win/draw/loss) Connect Four solver with its own transposition table.

    ``table_log2``: the table holds 2**table_log2 entries of 8 bytes (2**24: 134 MB), one word
    per position, in buckets of two that keep the costliest entry (the kernel's docstring has
    the layout). Each solve starts from an empty table
    (the table's epoch changes; nothing is cleared), as Pons' benchmark resets his before every
    position. ``features`` selects the enhancements over Pons' algorithm (bit flags of
    :mod:`rompicapo.games._connect4_kernel`: ``TT_MOVE``, ``MIRROR``, ``ETC``, ``PREFETCH``;
    0 is his algorithm with a two-bound table).
    """

    def __init__(self, table_log2: int = 24, *, features: int = K.DEFAULT_FEATURES) -> None:
        if not K.MIN_TABLE_LOG2 <= table_log2 <= K.MAX_TABLE_LOG2:
            raise InputError(
                f"table_log2 must be {K.MIN_TABLE_LOG2}..{K.MAX_TABLE_LOG2}, got {table_log2}"
            )
        entries = 1 << table_log2
        check_memory(entries * 8, "the Connect Four transposition table")
        self.table = np.zeros(entries, dtype=np.int64)
        self.table.fill(0)  # touch every page now, not during the first timed solves
        self.scratch = np.zeros((K.STACK_ROWS, K.STACK_FIELDS), dtype=np.int64)
        self.stats = np.zeros(K.N_STATS, dtype=np.int64)
        self.features = features
        self.epoch = 0
        # the epoch lives in the bits of each entry's identity above its tag
        self.max_epoch = K.max_epoch(table_log2)
        self.compile_seconds = jit_warmup("games.connect4", self._warmup)

    def _warmup(self) -> None:
        # a position with a few moves left: compiles every path of the kernel in no time
        p = parse_position(_WARMUP)
        K.solve(
            p.pos,
            p.mask,
            p.count,
            False,
            np.zeros(1 << K.MIN_TABLE_LOG2, np.int64),
            1,
            np.zeros(K.N_STATS, np.int64),
            np.zeros((K.STACK_ROWS, K.STACK_FIELDS), np.int64),
            K.ALL_FEATURES,
        )

    def _next_epoch(self) -> int:
        self.epoch += 1
        if self.epoch > self.max_epoch:  # the epochs ran out: clear for real
            self.table[:] = 0
            self.epoch = 1
        return self.epoch

    def solve(
        self, moves: str | Position, *, weak: bool = False, node_limit: int | None = None
    ) -> Connect4Result:
        """The score of the position after ``moves`` (Pons' convention; with ``weak`` only its
        sign: +1 win, 0 draw, -1 loss). With ``node_limit`` the search gives up after that many
        nodes and raises :class:`InputError` (:meth:`try_solve` returns None instead)."""
        res = self.try_solve(moves, weak=weak, node_limit=node_limit)
        if res is None:
            raise InputError(f"node limit {node_limit:,} reached before the position was solved")
        return res

    def try_solve(
        self, moves: str | Position, *, weak: bool = False, node_limit: int | None = None
    ) -> Connect4Result | None:
        """Like :meth:`solve`, but returns None when ``node_limit`` nodes did not suffice."""
        p = moves if isinstance(moves, Position) else parse_position(moves)
        if p.over:
            raise InputError(f"the game is already over after {p.moves!r}")
        stats = self.stats
        stats[:] = 0
        stats[3] = 0 if node_limit is None else int(node_limit)
        epoch = self._next_epoch()
        t0, c0 = time.perf_counter(), time.thread_time()
        score = int(
            K.solve(
                p.pos, p.mask, p.count, weak, self.table, epoch, stats, self.scratch, self.features
            )
        )
        seconds, cpu = time.perf_counter() - t0, time.thread_time() - c0
        if stats[4]:
            return None
        res = Connect4Result(moves=p.moves, score=score, weak=weak)
        res.solve_seconds = seconds
        res.cpu_seconds = cpu
        res.compile_seconds = self.compile_seconds
        self.compile_seconds = 0.0
        res.counts = {
            "nodes": int(stats[0]),
            "tt_cuts": int(stats[1]),
            "cutoffs": int(stats[2]),
            "parity_cuts": int(stats[5]),
        }
        return res

    def analyze(self, moves: str | Position, *, weak: bool = False) -> Connect4Analysis:
        """The score of playing each column (None where the column is full)."""
        p = moves if isinstance(moves, Position) else parse_position(moves)
        if p.over:
            raise InputError(f"the game is already over after {p.moves!r}")
        scores: list[int | None] = []
        nodes = 0
        t0 = time.perf_counter()
        for col in range(1, WIDTH + 1):
            if col not in p.playable_columns():
                scores.append(None)
                continue
            child = p.play(col)
            if child.won:
                scores.append((CELLS + 1 - p.count) // 2 if not weak else 1)
            elif child.over:
                scores.append(0)
            else:
                r = self.solve(child, weak=weak)
                nodes += r.nodes
                scores.append(-r.score)
        out = Connect4Analysis(moves=p.moves, scores=scores)
        out.solve_seconds = time.perf_counter() - t0
        out.counts = {"nodes": nodes}
        return out

    def best_move(self, moves: str | Position, *, node_limit: int = 2_000_000) -> int:
        """A best column (1-based) if each column can be solved within ``node_limit`` nodes;
        otherwise a safe heuristic move: win now, else block, else a non-losing move making the
        most threats, centre first."""
        p = moves if isinstance(moves, Position) else parse_position(moves)
        if p.over:
            raise InputError(f"the game is already over after {p.moves!r}")
        best, best_score = None, None
        for col in (4, 3, 5, 2, 6, 1, 7):
            if col not in p.playable_columns():
                continue
            child = p.play(col)
            if child.won:
                return col
            if child.over:
                score = 0
            else:
                r = self.try_solve(child, weak=False, node_limit=node_limit)
                if r is None:
                    return self._heuristic_move(p)
                score = -r.score
            if best_score is None or score > best_score:
                best, best_score = col, score
        return best

    def _heuristic_move(self, p: Position) -> int:
        safe = int(K.non_losing_moves(p.pos, p.mask))
        candidates = [c for c in (4, 3, 5, 2, 6, 1, 7) if safe & int(K.COLUMN_MASK[c - 1])]
        if not candidates:
            candidates = p.playable_columns()
        return max(candidates, key=lambda c: int(K.move_threats(p.pos, p.mask, c - 1)))


class Connect4(Game):
    """Connect Four as a :class:`~rompicapo.games.game.Game`: states are
    :class:`Position` objects, moves 1-based columns, utility +1/-1/0 for the first player."""

    name = "connect4"

    def initial(self) -> Position:
        return Position("", 0, 0, False)

    def to_move(self, state: Position) -> int:
        return MAX if state.count % 2 == 0 else MIN

    def moves(self, state: Position) -> list[int]:
        return [] if state.over else state.playable_columns()

    def apply(self, state: Position, move: int) -> Position:
        return state.play(move)

    def undo(self, state: Position, move: int) -> Position:
        return parse_position(state.moves[:-1])

    def is_terminal(self, state: Position) -> bool:
        return state.over

    def utility(self, state: Position) -> float:
        if not state.won:
            return 0
        return 1 if state.count % 2 == 1 else -1  # the player who just moved connected four

    def key(self, state: Position) -> int:
        return state.pos + state.mask

    def play(self, state: Position, move: int) -> Position:
        return state.play(move)

    def render(self, state: Position) -> str:
        rows = []
        first = state.pos if state.count % 2 == 0 else state.pos ^ state.mask
        for r in range(HEIGHT - 1, -1, -1):
            cells = []
            for c in range(WIDTH):
                bit = 1 << (c * (HEIGHT + 1) + r)
                cells.append("X" if first & bit else "O" if state.mask & bit else ".")
            rows.append(" ".join(cells))
        rows.append(" ".join(str(c) for c in range(1, WIDTH + 1)))
        return "\n".join(rows)
