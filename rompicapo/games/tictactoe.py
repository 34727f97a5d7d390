"""Tic-tac-toe and the m,n,k-games: k in a row on an m x n board, X (MAX) moves first.

A state is ``(x, o, winner)``: the bit masks of X's and O's cells (cell ``r * n + c`` is bit
``r * n + c``) and the winner so far (+1 X, -1 O, 0 nobody yet). The game ends at the first
line of k or when the board is full; the utility is +1, -1 or 0 from X's point of view.
Moves are cell indices, listed in increasing order.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from rompicapo.common import InputError, ProgressCallback
from rompicapo.games.game import MAX, MIN, Game

__all__ = ["TICTACTOE_SEARCHES", "MNKGame", "TicTacToe", "analyse_tictactoe", "parse_cells"]

State = tuple[int, int, int]


class MNKGame(Game):
    """k in a row on an m-row, n-column board."""

    def __init__(self, m: int, n: int, k: int) -> None:
        if not (1 <= m <= 8 and 1 <= n <= 8 and 1 <= k <= max(m, n)):
            raise InputError(f"need 1 <= m, n <= 8 and 1 <= k <= max(m, n); got {m},{n},{k}")
        self.m, self.n, self.k, self.cells = m, n, k, m * n
        self.name = f"{m},{n},{k}-game"
        self.full = (1 << self.cells) - 1
        # For each cell, the lines of k through it: a move can only complete one of these, so
        # the win test after a move looks at a handful of masks instead of all of them.
        self.lines_through: list[list[int]] = [[] for _ in range(self.cells)]
        for r in range(m):
            for c in range(n):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                    if 0 <= end_r < m and 0 <= end_c < n:
                        line = [(r + dr * i) * n + c + dc * i for i in range(k)]
                        mask = sum(1 << cell for cell in line)
                        for cell in line:
                            self.lines_through[cell].append(mask)

        # The free cells of every set of taken cells, looked up instead of scanned: the move
        # generator is the search's most frequent call (boards up to 16 cells: 65,536 lists).
        self.free: list[list[int]] | None = None
        if self.cells <= 16:
            self.free = [
                [c for c in range(self.cells) if not taken >> c & 1]
                for taken in range(1 << self.cells)
            ]

    def initial(self) -> State:
        return (0, 0, 0)

    def to_move(self, state: State) -> int:
        x, o, _ = state
        return MAX if (x | o).bit_count() % 2 == 0 else MIN

    def moves(self, state: State) -> list[int]:
        taken = state[0] | state[1]
        if self.free is not None:
            return self.free[taken]
        return [cell for cell in range(self.cells) if not taken >> cell & 1]

    def apply(self, state: State, cell: int) -> State:
        x, o, _ = state
        bit = 1 << cell
        if (x | o).bit_count() % 2 == 0:
            x |= bit
            for line in self.lines_through[cell]:
                if x & line == line:
                    return (x, o, MAX)
            return (x, o, 0)
        o |= bit
        for line in self.lines_through[cell]:
            if o & line == line:
                return (x, o, MIN)
        return (x, o, 0)

    def undo(self, state: State, cell: int) -> State:
        x, o, _ = state
        return (x & ~(1 << cell), o & ~(1 << cell), 0)

    def is_terminal(self, state: State) -> bool:
        return state[2] != 0 or (state[0] | state[1]) == self.full

    def utility(self, state: State) -> float:
        return state[2]

    def play(self, state: State, move: int) -> State:
        if not isinstance(move, int) or not 0 <= move < self.cells:
            raise InputError(f"cell must be an integer 0..{self.cells - 1}, got {move!r}")
        return super().play(state, move)

    def render(self, state: State) -> str:
        x, o, _ = state
        rows = []
        for r in range(self.m):
            row = []
            for c in range(self.n):
                i = r * self.n + c
                row.append("X" if x >> i & 1 else "O" if o >> i & 1 else str(i))
            rows.append(" ".join(f"{s:>2}" for s in row))
        return "\n".join(rows)


class TicTacToe(MNKGame):
    """Noughts and crosses: the 3,3,3-game. 255,168 complete games, value 0 (a draw)."""

    def __init__(self) -> None:
        super().__init__(3, 3, 3)
        self.name = "tic-tac-toe"


TICTACTOE_SEARCHES = ("minimax", "alphabeta", "negamax", "engine", "retrograde")
"""The searches :func:`analyse_tictactoe` runs."""


def __getattr__(name: str) -> object:
    if name == "SEARCHES":  # the earlier name, kept for one release
        warnings.warn(
            "rompicapo.games.tictactoe.SEARCHES is now TICTACTOE_SEARCHES",
            DeprecationWarning,
            stacklevel=2,
        )
        return TICTACTOE_SEARCHES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_cells(text: str | Sequence[int], what: str = "moves") -> list[int]:
    """``"4,0,2"`` (or a list) -> [4, 0, 2]; InputError naming ``what`` on anything else."""
    if not isinstance(text, str):
        return [int(c) for c in text]
    try:
        return [int(x) for x in text.replace(" ", "").split(",") if x != ""]
    except ValueError:
        raise InputError(
            f"{what} must be integers separated by commas, got {text[:40]!r}"
        ) from None


def analyse_tictactoe(
    moves: str | Sequence[int] = "",
    *,
    search: str = "alphabeta",
    order: str | Sequence[int] | None = None,
    window: tuple[float, float] | str = (-2, 2),
    fail_soft: bool = True,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
):
    """Solve tic-tac-toe after ``moves`` (cells 0..8) with one of `TICTACTOE_SEARCHES`,
    within the limits.

    ``order`` lists the cells 0..8 once each in the order to try them (default 0..8);
    ``window`` is (alpha, beta) for alphabeta and negamax. Returns a
    [`SearchOutcome`][rompicapo.games.SearchOutcome] whose ``counts`` hold the search's work.
    From the empty board minimax evaluates the textbook's 255,168 finished games, and
    alpha-beta trying the centre, then corners, then edges evaluates 2,893:

    ```pycon
    >>> analyse_tictactoe(search="minimax").counts["leaves"]
    255168
    >>> out = analyse_tictactoe(order="4,0,2,6,8,1,3,5,7")
    >>> out.value, out.counts["leaves"]
    (0, 2893)

    ```"""
    from rompicapo.games.engine import Engine
    from rompicapo.games.outcome import SearchOutcome, SearchStats, static_order
    from rompicapo.games.plain import alphabeta, minimax, negamax
    from rompicapo.games.retrograde import retrograde

    if search not in TICTACTOE_SEARCHES:
        choices = ", ".join(TICTACTOE_SEARCHES)
        raise InputError(f"search must be one of {choices}, got {search!r}")
    game = TicTacToe()
    state = game.initial()
    for cell in parse_cells(moves, "moves"):
        state = game.play(state, cell)
    hook = None
    if order is not None and order != "":
        cells = parse_cells(order, "order")
        if sorted(cells) != list(range(9)):
            raise InputError(f"order must list the cells 0..8 once each, got {order}")
        hook = static_order(cells)
    bounds = (
        [float(x) for x in parse_cells(window, "window")]
        if isinstance(window, str)
        else [float(x) for x in window]
    )
    if len(bounds) != 2 or not bounds[0] < bounds[1]:
        raise InputError(f"window must be alpha,beta with alpha < beta, got {window}")
    limits = {"time_limit": time_limit, "node_limit": node_limit, "progress": progress}
    if search == "minimax":
        return minimax(game, state, order=hook, **limits)
    if search == "alphabeta":
        return alphabeta(game, state, *bounds, order=hook, fail_soft=fail_soft, **limits)
    if search == "negamax":
        return negamax(game, state, *bounds, order=hook, fail_soft=fail_soft, **limits)
    if search == "engine":
        return Engine(game, order=hook).search(state, **limits)
    table = retrograde(game, state, **limits)
    out = SearchOutcome(
        value=table.max_value(state) if table.complete else None,
        move=table.best_move(state) if table.complete else None,
        stats=SearchStats(nodes=len(table)),
        complete=table.complete,
        stopped=table.stopped,
        game=game,
        state=state,
    )
    out.solve_seconds = table.solve_seconds
    return out
