"""Connect Four on the 7 x 6 board: positions from move strings, an exact solver, a game.

A position is written as the columns played from the empty board, one digit 1..7 per move
(the first player moves first): ``"4455"``. Scores follow Pascal Pons' convention, from the
point of view of the player to move: 0 a draw; ``22 - s`` if the mover wins with his s-th
stone; ``s - 22`` if the opponent wins with his s-th stone. The empty board scores +1 (the
first player wins with his last stone, playing the centre).

    ```pycon
    >>> solver = Connect4Solver()
    >>> solver.solve("4455").score
    18

    ```

The solver (numba, `rompicapo.games._connect4_kernel`) is negamax alpha-beta on
bitboards with null-window searches on the exact score, a transposition table holding a lower
and an upper bound and the best move per position (mirror images share entries), and moves
ordered by the threats they create.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rompicapo.common import (
    InputError,
    NotVerifiable,
    Progress,
    ProgressCallback,
    SearchResult,
    check_limit,
    check_memory,
    check_node_limit,
    check_time_limit,
    jit_warmup,
    read_text,
    renamed_keywords,
)
from rompicapo.games import _connect4_kernel as K
from rompicapo.games._limits import Limits, SearchStopped, stop_message
from rompicapo.games.connect4_book import Connect4Book, book_answer, resolve_book
from rompicapo.games.game import MAX, MIN, Game

__all__ = [
    "CONNECT4_SLICE_NODES",
    "Connect4",
    "Connect4Analysis",
    "Connect4Bench",
    "Connect4Result",
    "Connect4Solver",
    "Position",
    "bench",
    "explain_score",
    "parse_position",
    "read_test_set",
    "solve_moves",
]

WIDTH, HEIGHT, CELLS = K.WIDTH, K.HEIGHT, K.SIZE
# what a ``book=`` argument may be (`rompicapo.games.connect4_book.resolve_book`)
BookChoice = bool | str | Path | Connect4Book | None


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


def _to_play(moves: str | Position) -> Position:
    """``moves`` as a position where a move is still to be made, or InputError."""
    p = moves if isinstance(moves, Position) else parse_position(moves)
    if p.over:
        raise InputError(f"the game is already over after {p.moves!r}")
    return p


def parse_position(moves: str) -> Position:
    """The position after ``moves`` (digits 1..7). Raises
    [`InputError`][rompicapo.common.InputError] naming the first
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
    """The score of a position (Pons' convention) and the work it took. ``complete`` is False
    when a limit stopped the search (``stopped`` says which); ``score`` is then None."""

    moves: str = ""
    """The position: the columns played from the empty board, ``1``..``7``."""
    score: int | None = 0
    """Pons' score for the player to move (positive: he wins, the sooner the higher); None when a
    limit stopped the search."""
    weak: bool = False
    """True when only the sign was asked for (+1 win, 0 draw, -1 loss)."""
    cpu_seconds: float = 0.0  # CPU time of the solve: on a shared machine steadier than wall
    """CPU time of the solve: on a shared machine steadier than the wall clock."""
    complete: bool = True
    """False when a limit stopped the search."""
    stopped: str | None = None
    """Which limit stopped the search, or None."""
    from_book: bool = False
    """True when the score was read from the opening book, not searched."""

    @property
    def nodes(self) -> int:
        return self.counts.get("nodes", 0)

    def _dict_extra(self) -> dict:
        return {"nodes": self.nodes, "explanation": explain_score(self.score, self.weak)}

    def report(self) -> str:
        if self.score is None:
            verdict = f"score unknown: {stop_message(self.stopped)}"
        else:
            verdict = f"score {self.score} ({explain_score(self.score, self.weak)})"
            verdict += " from the opening book" if self.from_book else ""
        return "\n".join(
            [
                Connect4().render(parse_position(self.moves)),
                verdict,
                f"nodes {self.nodes:,}  time {self.solve_seconds:.4f} s  "
                f"(compile/load {self.compile_seconds:.2f} s)",
            ]
        )

    def _repr_svg_(self) -> str:
        """Jupyter shows the position (the score is in ``report()``)."""
        from rompicapo.games.render import connect4_svg

        return connect4_svg(self.moves)

    def verify(self, max_empty: int = 12) -> bool:
        """Replay the moves and recompute the score with the independent pure-Python search of
        `rompicapo.games.verify`: True when it agrees, False when not (or when the moves are not a
        legal game). Positions with more than ``max_empty`` empty cells are too big for that search:
        [`NotVerifiable`][rompicapo.common.NotVerifiable] is raised for them (a check of the score's
        range alone is not a verification)."""
        from rompicapo.games import verify as V

        if not self.complete or self.score is None:
            raise NotVerifiable(f"the search was {stop_message(self.stopped)}: no score to check")
        if V.connect4_replay(self.moves) is None:
            return False
        empty = CELLS - len(self.moves)
        if empty > max_empty:
            raise NotVerifiable(
                f"{empty} empty cells: too many for the independent search (max_empty={max_empty})"
            )
        true = V.connect4_score(self.moves)
        return (true > 0) - (true < 0) == self.score if self.weak else true == self.score


def explain_score(score: int | None, weak: bool = False) -> str:
    """Pons' score in words, from the point of view of the player to move."""
    if score is None:
        return "unknown"
    if score == 0:
        return "draw with best play"
    who = "the player to move" if score > 0 else "the opponent"
    if weak:
        return f"{who} wins"
    return f"{who} wins with his stone number {22 - abs(score)}"


@dataclass
class Connect4Analysis(SearchResult):
    """The score of every column (None for a full column) and the best columns.

    ``complete`` is False when a limit stopped the analysis (``stopped`` says which): the
    columns in ``unsolved`` have no score then, and the best columns are those of the known
    scores."""

    moves: str = ""
    """The position: the columns played from the empty board, ``1``..``7``."""
    scores: list[int | None] = field(default_factory=list)
    """The score of playing each column 1..7 (None for a full or unsolved column)."""
    weak: bool = False
    """True when only the signs were asked for."""
    unsolved: list[int] = field(default_factory=list)
    """Columns (from 1) a limit left without a score."""
    complete: bool = True
    """False when a limit stopped the analysis."""
    stopped: str | None = None
    """Which limit stopped the analysis, or None."""
    from_book: list[int] = field(default_factory=list)
    """The columns (from 1) whose score the opening book gave."""

    @property
    def score(self) -> int | None:
        """The best known score (the position's score when ``complete``)."""
        return max((s for s in self.scores if s is not None), default=None)

    @property
    def best_columns(self) -> list[int]:
        best = self.score
        return [c + 1 for c, s in enumerate(self.scores) if s is not None and s == best]

    @property
    def move(self) -> int | None:
        """A proven best column, centre first: a best column of a complete analysis, or a
        column that wins at once; None when the limits left the best column unknown."""
        best = self.best_columns
        wins_now = (1 if self.weak else (CELLS + 1 - len(self.moves)) // 2) == self.score
        if not best or not (self.complete or wins_now):
            return None
        return min(best, key=lambda c: abs(c - 4))

    def _dict_extra(self) -> dict:
        return {"score": self.score, "best_columns": self.best_columns, "move": self.move}

    def report(self) -> str:
        cells = [
            "  ?" if c + 1 in self.unsolved else "  -" if s is None else f"{s:3d}"
            for c, s in enumerate(self.scores)
        ]
        lines = [
            Connect4().render(parse_position(self.moves)),
            "column:" + "".join(f"{c:>4}" for c in range(1, 8)),
            "score: " + " ".join(cells),
            f"best column(s) {self.best_columns}; score {self.score}",
        ]
        if not self.complete:
            lines.append(f"{stop_message(self.stopped)}: columns {self.unsolved} unsolved (?)")
        if self.from_book:
            lines.append(f"columns {self.from_book} from the opening book")
        lines.append(f"nodes {self.counts.get('nodes', 0):,}  time {self.solve_seconds:.3f} s")
        return "\n".join(lines)

    def _repr_svg_(self) -> str:
        """Jupyter shows the position with the score of each column under it, the best
        underlined."""
        from rompicapo.games.render import connect4_svg

        return connect4_svg(self.moves, self.scores, best=self.best_columns, unsolved=self.unsolved)

    def verify(self, max_empty: int = 12) -> bool:
        """Every column's score against the independent search of `rompicapo.games.verify` (a full
        column must be full there, a column winning at once must connect four there); raises
        [`NotVerifiable`][rompicapo.common.NotVerifiable] for an analysis a limit stopped, and when
        some column leaves more than ``max_empty`` empty cells (see
        [`Connect4Result.verify()`][rompicapo.games.connect4.Connect4Result.verify])."""
        from rompicapo.games import verify as V

        if not self.complete:
            raise NotVerifiable(f"the analysis was {stop_message(self.stopped)}")
        board = V.connect4_replay(self.moves)
        if board is None or len(self.scores) != WIDTH:
            return False
        for c, s in enumerate(self.scores, 1):
            if s is None:
                if len(board[c - 1]) != HEIGHT:
                    return False
                continue
            child = self.moves + str(c)
            if V.connect4_connects_four(child):
                if s != (1 if self.weak else (CELLS + 1 - len(self.moves)) // 2):
                    return False
            elif not Connect4Result(moves=child, score=-s, weak=self.weak).verify(max_empty):
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
    # every position's (moves, score found), in the file's order: what verify() checks
    found: list[tuple[str, int]] = field(default_factory=list)

    _dict_exclude = ("found",)

    def report(self) -> str:
        return (
            f"{self.positions} positions, {self.correct} correct; mean time "
            f"{self.mean_us:,.1f} us; mean nodes {self.mean_nodes:,.1f}; total "
            f"{self.solve_seconds:.2f} s"
        )

    def verify(self) -> bool:
        """True when every score found equals the one the file gives (an independent source),
        the file read again by `rompicapo.games.verify`'s own reader."""
        from rompicapo.games.verify import connect4_test_set

        if self.positions == 0:
            raise NotVerifiable("no positions were solved")
        given = connect4_test_set(self.path)[: self.positions]
        if len(given) != self.positions or len(self.found) != self.positions:
            return False
        for (moves, score), (file_moves, file_score) in zip(self.found, given, strict=True):
            want = (file_score > 0) - (file_score < 0) if self.weak else file_score
            if moves != file_moves or score != want:
                return False
        return True


@renamed_keywords(analyze="analyse")
def solve_moves(
    moves: str,
    *,
    analyse: bool = False,
    weak: bool = False,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
    solver: Connect4Solver | None = None,
    book: BookChoice = True,
) -> Connect4Result | Connect4Analysis:
    """The score of the position after ``moves`` (or, with ``analyse``, of every column),
    within the limits (``analyze=`` is the old spelling, deprecated). ``book``: the opening
    book read first (True: the one shipped with the package; False: the search alone; a
    file name or a [`Connect4Book`][rompicapo.games.Connect4Book]).

    The moves, the limits and the book are checked before the solver's table is allocated or
    its kernel loaded, so a bad position costs nothing."""
    position = _to_play(moves)
    check_time_limit(time_limit)  # checked now, before the table is allocated
    check_node_limit(node_limit)
    if progress is not None and not callable(progress):
        raise InputError(f"progress must be a callable or None, got {type(progress).__name__}")
    opened = resolve_book(book)
    if opened is not None and solver is None:  # answered by the book: no table to allocate
        known = book_answer(position, weak, opened, analyse)
        if known is not None:
            return known
    solver = solver or Connect4Solver()
    run = solver.analyse if analyse else solver.solve
    return run(
        position,
        weak=weak,
        time_limit=time_limit,
        node_limit=node_limit,
        progress=progress,
        book=opened or False,
    )


def read_test_set(path: object) -> list[tuple[str, int]]:
    """The ``MOVES SCORE`` lines of one of Pons' test files, each position checked legal.

    Raises [`InputError`][rompicapo.common.InputError] naming the file and line of the first bad
    one."""
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
    book: BookChoice = True,
) -> Connect4Bench:
    """Solve the positions of a test file (``MOVES SCORE`` lines, Pons' format), the first
    ``limit`` of them, and compare each score with the file's; ``book`` as for
    [`solve_moves()`][rompicapo.games.solve_moves] (False measures the search alone)."""
    limit = check_limit(limit)
    rows = read_test_set(path)[:limit]
    opened = resolve_book(book) or False
    solver = solver or Connect4Solver()
    tracker = Progress(progress, unit="positions", total=len(rows))
    out = Connect4Bench(path=str(path), positions=len(rows), weak=weak)
    times: list[float] = []
    nodes = 0
    t0 = time.perf_counter()
    for i, (moves, expected) in enumerate(rows, 1):
        r = solver.solve(moves, weak=weak, book=opened)
        out.found.append((moves, r.score))
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


# The nodes of one kernel call when a clock or a progress callback watches a solve: about a
# tenth of a second at the kernel's ~10 M nodes per second, so a time limit is kept within
# that and progress comes several times a second; the slices' restarts cost the paths back to
# where each stopped, far below a slice.
CONNECT4_SLICE_NODES = 1 << 20

# An End-Easy position of Pons' test set (score -1) with 5 empty cells.
_WARMUP = "2252576253462244111563365343671351441"


class Connect4Solver:
    """Exact (or weak: win/draw/loss) Connect Four solver with its own transposition table.

    ``table_log2``: the table holds 2**table_log2 entries of 8 bytes (2**24: 134 MB), one word
    per position, in buckets of two that keep the costliest entry (the kernel's docstring has
    the layout). Each solve starts from an empty table
    (the table's epoch changes; nothing is cleared), as Pons' benchmark resets his before every
    position. ``features`` selects the enhancements over Pons' algorithm (bit flags of
    `rompicapo.games._connect4_kernel`: ``TT_MOVE``, ``MIRROR``, ``ETC``, ``PREFETCH``;
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

    def next_epoch(self) -> int:
        """Start a new epoch of the table: the entries of earlier solves become invisible (the
        table is cleared for real when the epochs run out). Returns the new epoch."""
        return self._next_epoch()

    def _next_epoch(self) -> int:
        self.epoch += 1
        if self.epoch > self.max_epoch:  # the epochs ran out: clear for real
            self.table[:] = 0
            self.epoch = 1
        return self.epoch

    def solve(
        self,
        moves: str | Position,
        *,
        weak: bool = False,
        time_limit: float | None = None,
        node_limit: int | None = None,
        progress: ProgressCallback | None = None,
        book: BookChoice = False,
    ) -> Connect4Result:
        """The score of the position after ``moves`` (Pons' convention; with ``weak`` only its
        sign: +1 win, 0 draw, -1 loss). A limit that stops the search returns the result with
        ``complete=False`` and ``score`` None
        ([`try_solve()`][rompicapo.games.connect4.Connect4Solver.try_solve] returns None
        instead). ``book`` (the solver searches unless given one; True: the shipped book): a
        position the book holds is answered from it, ``from_book`` True, no node searched."""
        p = _to_play(moves)
        limits = Limits(time_limit, node_limit, progress)
        opened = resolve_book(book)
        known = None if opened is None else book_answer(p, weak, opened, False)
        if known is not None:
            return known  # type: ignore[return-value]
        res = self._solve(p, weak, limits, 0)
        limits.finish(res.counts, res.stopped)
        return res

    def try_solve(
        self,
        moves: str | Position,
        *,
        weak: bool = False,
        time_limit: float | None = None,
        node_limit: int | None = None,
        progress: ProgressCallback | None = None,
        book: BookChoice = False,
    ) -> Connect4Result | None:
        """Like [`solve()`][rompicapo.games.connect4.Connect4Solver.solve], but returns None when
        a limit stopped the search."""
        res = self.solve(
            moves,
            weak=weak,
            time_limit=time_limit,
            node_limit=node_limit,
            progress=progress,
            book=book,
        )
        return res if res.complete else None

    def _solve(self, p: Position, weak: bool, limits: Limits, offset: int) -> Connect4Result:
        """One position, in a call whose earlier solves visited ``offset`` nodes."""
        stats = self.stats
        stats[:] = 0
        epoch = self._next_epoch()
        t0, c0 = time.perf_counter(), time.thread_time()
        score, stopped = self._run_kernel(p, weak, epoch, limits, offset)
        seconds, cpu = time.perf_counter() - t0, time.thread_time() - c0
        res = Connect4Result(moves=p.moves, score=score, weak=weak, stopped=stopped)
        res.complete = stopped is None
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

    def _run_kernel(
        self, p: Position, weak: bool, epoch: int, limits: Limits, offset: int
    ) -> tuple[int | None, str | None]:
        """The kernel's score, or None and why the limits stopped it.

        The kernel cannot be interrupted, so a clock or a progress callback is served between
        slices of `CONNECT4_SLICE_NODES` nodes. A slice that runs out leaves in the
        table what it proved (it stores only finished subtrees), so the next slice, with the
        same epoch, walks back to where it stopped at the cost of the path to it. Unwatched
        and unlimited, the position is solved in one call, as before the limits existed."""
        try:
            return self._kernel_slices(p, weak, epoch, limits, offset)
        except KeyboardInterrupt:  # Ctrl-C is seen when the kernel returns
            return None, "interrupted"

    def _kernel_slices(
        self, p: Position, weak: bool, epoch: int, limits: Limits, offset: int
    ) -> tuple[int | None, str | None]:
        stats = self.stats
        while True:
            cap = None if limits.node_limit is None else limits.node_limit - offset
            if limits.watched:
                slice_end = int(stats[0]) + CONNECT4_SLICE_NODES
                cap = slice_end if cap is None else min(cap, slice_end)
            if cap is not None and cap <= stats[0]:
                return None, "nodes"
            stats[3] = 0 if cap is None else cap
            stats[4] = 0
            score = int(
                K.solve(
                    p.pos,
                    p.mask,
                    p.count,
                    weak,
                    self.table,
                    epoch,
                    stats,
                    self.scratch,
                    self.features,
                )
            )
            if not stats[4]:
                return score, None
            stats[0] -= 1  # the node the budget refused was counted, not visited
            try:
                limits.check(offset + int(stats[0]))
            except SearchStopped as stop:
                return None, stop.reason

    def analyse(
        self,
        moves: str | Position,
        *,
        weak: bool = False,
        time_limit: float | None = None,
        node_limit: int | None = None,
        progress: ProgressCallback | None = None,
        book: BookChoice = False,
    ) -> Connect4Analysis:
        """The score of playing each column (None where the column is full), the limits
        counting the whole analysis: the columns a limit leaves unsolved are listed in
        ``unsolved`` (``complete=False``). ``book`` as for
        [`solve()`][rompicapo.games.connect4.Connect4Solver.solve]: the columns whose
        positions it holds are listed in ``from_book``."""
        p = _to_play(moves)
        opened = resolve_book(book)
        limits = Limits(time_limit, node_limit, progress)
        out = Connect4Analysis(moves=p.moves, weak=weak)
        nodes = 0
        t0 = time.perf_counter()
        for col in range(1, WIDTH + 1):
            out.scores.append(None)
            if col not in p.playable_columns():
                continue
            child = p.play(col)
            if child.won:
                out.scores[-1] = (CELLS + 1 - p.count) // 2 if not weak else 1
            elif child.over:
                out.scores[-1] = 0
            elif opened is not None and (known := opened.score(child)) is not None:
                out.scores[-1] = -((known > 0) - (known < 0)) if weak else -known
                out.from_book.append(col)
            elif out.stopped is None:
                r = self._solve(child, weak, limits, nodes)
                nodes += r.nodes
                out.compile_seconds += r.compile_seconds
                out.stopped = r.stopped
                out.scores[-1] = None if r.score is None else -r.score
            if out.scores[-1] is None:
                out.unsolved.append(col)
        out.complete = out.stopped is None
        out.solve_seconds = time.perf_counter() - t0
        out.counts = {"nodes": nodes}
        limits.finish(out.counts, out.stopped)
        return out

    def analyze(self, moves: str | Position, *, weak: bool = False) -> Connect4Analysis:
        """The old spelling of [`analyse()`][rompicapo.games.connect4.Connect4Solver.analyse]
        (deprecated, kept for one release)."""
        warnings.warn("Connect4Solver.analyze() is now analyse()", DeprecationWarning, stacklevel=2)
        return self.analyse(moves, weak=weak)

    def best_move(
        self,
        moves: str | Position,
        *,
        time_limit: float | None = None,
        node_limit: int | None = None,
        progress: ProgressCallback | None = None,
    ) -> int:
        """A best column (1-based, centre first) if the analysis of every column finishes within the
        limits (``node_limit`` counts the nodes of the whole analysis), or a column that wins at
        once; otherwise [`safe_move()`][rompicapo.games.connect4.Connect4Solver.safe_move]."""
        p = _to_play(moves)
        analysis = self.analyse(p, time_limit=time_limit, node_limit=node_limit, progress=progress)
        return self.safe_move(p) if analysis.move is None else analysis.move

    def safe_move(self, moves: str | Position) -> int:
        """A heuristic column, no search: win now, else block, else a non-losing move making
        the most threats, centre first."""
        p = _to_play(moves)
        for c in (4, 3, 5, 2, 6, 1, 7):
            if c in p.playable_columns() and p.play(c).won:
                return c
        safe = int(K.non_losing_moves(p.pos, p.mask))
        candidates = [c for c in (4, 3, 5, 2, 6, 1, 7) if safe & int(K.COLUMN_MASK[c - 1])]
        if not candidates:
            candidates = p.playable_columns()
        return max(candidates, key=lambda c: int(K.move_threats(p.pos, p.mask, c - 1)))


class Connect4(Game):
    """Connect Four as a [`Game`][rompicapo.games.Game]: states are
    [`Position`][rompicapo.games.Position] objects, moves 1-based columns, utility +1/-1/0 for the
    first player.

    ``solver`` is the [`Connect4Solver`][rompicapo.games.Connect4Solver] the computer's moves use;
    without one, a solver with the default table is made when a move is first asked for."""

    name = "connect4"

    def __init__(self, solver: Connect4Solver | None = None) -> None:
        self._solver = solver

    @property
    def solver(self) -> Connect4Solver:
        if self._solver is None:
            self._solver = Connect4Solver()
        return self._solver

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
