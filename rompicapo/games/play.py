"""The computer's move in the family's games, and moves typed by a person.

[`computer_move()`][rompicapo.games.computer_move] is the engine's policy, one choice per kind of
game, each named here:

- Connect Four: the solver's analysis of every column within the limits; a proven best column
  (or one winning at once) when it finishes, else the solver's safe heuristic move. Without
  limits the budget is `CONNECT4_COLUMN_NODES` nodes a playable column;
- Nim: Bouton's winning move; in a lost position `NIM_LOST_MOVE`;
- m,n,k-games (tic-tac-toe): retrograde analysis from the position, which wins fastest and
  loses slowest;
- any other game: the [`Engine`][rompicapo.games.Engine]'s iterative deepening within
  the limits.

```pycon
>>> from rompicapo.games import Nim, TicTacToe
>>> computer_move(Nim((3, 5, 8))).move          # nim-sum 14: take 2 from the heap of 8
(2, 2)
>>> choice = computer_move(TicTacToe())
>>> choice.move, choice.value, choice.verify()  # any first move draws; the first cell is taken
(0, 0, True)

```"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from rompicapo.common import (
    InputError,
    NotVerifiable,
    ProgressCallback,
    SearchResult,
    check_node_limit,
    check_time_limit,
)
from rompicapo.games._limits import stop_message
from rompicapo.games.connect4 import Connect4
from rompicapo.games.engine import Engine
from rompicapo.games.game import CHANCE, Game
from rompicapo.games.impartial import Nim, nim_winning_move
from rompicapo.games.retrograde import RETROGRADE_POSITIONS, retrograde
from rompicapo.games.tictactoe import MNKGame

__all__ = [
    "CONNECT4_COLUMN_NODES",
    "NIM_LOST_MOVE",
    "MoveChoice",
    "computer_move",
    "describe_move",
    "parse_move",
]

CONNECT4_COLUMN_NODES = 3_000_000
"""Connect Four without limits: the computer's node budget per playable column (7 columns:
21 M nodes, a second or so on one core of a 2026 laptop). Late in the game every column is
solved well within it and the move is proven best; early on the budget runs out and the
safe heuristic move is played at once instead of a minutes-long solve."""

NIM_LOST_MOVE = "take one object from the largest heap"
"""Nim in a lost position (every move loses against best play): the move that changes the
least, so the game lasts longest and the opponent has the most chances to go wrong."""

# The independent brute force of verify.py visits every sub-position of a Nim position: fine up
# to this many objects. The pure-Python Connect Four check: fine up to this many empty cells.
_VERIFY_NIM_OBJECTS = 24
_VERIFY_C4_EMPTY = 12


@dataclass
class MoveChoice(SearchResult):
    """The computer's move: ``move``, ``how`` it was chosen, the position's ``value`` for the
    player to move when the move is proven best (Pons' score for Connect Four, +1/0/-1 or the
    game's utility otherwise; None for a heuristic move), and whether a limit cut the
    search (``complete``, ``stopped``)."""

    move: Any = None
    """The move the computer plays."""
    how: str = ""
    """How it was chosen (Bouton's winning move, the solver's best, a heuristic, ...)."""
    value: float | None = None
    """The position's value for the player to move when the move is proven best; None for a
    heuristic move."""
    complete: bool = True
    """False when a limit cut the search."""
    stopped: str | None = None
    """Which limit cut the search, or None."""
    game: Game | None = None
    """The game played."""
    state: Any = None
    """The position the move is played from."""

    _dict_exclude = ("game", "state")

    def _dict_extra(self) -> dict[str, Any]:
        return {"described": None if self.game is None else describe_move(self.game, self.move)}

    def report(self) -> str:
        what = describe_move(self.game, self.move) if self.game is not None else str(self.move)
        cut = "" if self.complete else f"; {stop_message(self.stopped)}"
        return f"the computer plays {what} ({self.how}{cut})"

    def verify(self) -> bool:
        """The move against the independent checks of `rompicapo.games.verify`: legal
        and best (for Nim, winning unless the position is lost; for Connect Four, the score
        kept). Raises [`NotVerifiable`][rompicapo.common.NotVerifiable] for a heuristic move, which
        claims nothing to check, and for positions too big for the independent searches."""
        if self.game is None:
            raise NotVerifiable("this result does not carry its game: nothing to replay")
        if self.value is None:
            raise NotVerifiable(f"a heuristic move ({self.how}) claims no value to check")
        if isinstance(self.game, Connect4):
            return _verify_connect4(self.state.moves, self.move, self.value)
        if isinstance(self.game, Nim):
            return _verify_nim(self.state[0], self.move, self.game.misere)
        return _verify_exact(self.game, self.state, self.move, self.value)


def _verify_connect4(moves: str, column: Any, score: float) -> bool:
    from rompicapo.games import verify as V

    child = moves + str(column)
    if not isinstance(column, int) or V.connect4_replay(child) is None:
        return False
    if V.connect4_connects_four(child):
        return score == (43 - len(moves)) // 2
    if 42 - len(moves) > _VERIFY_C4_EMPTY:
        raise NotVerifiable(f"{42 - len(moves)} empty cells: too many for the independent check")
    return V.connect4_score(moves) == score == -V.connect4_score(child)


def _verify_nim(heaps: tuple[int, ...], move: Any, misere: bool) -> bool:
    from rompicapo.games import verify as V

    if sum(heaps) > _VERIFY_NIM_OBJECTS:
        raise NotVerifiable(f"{sum(heaps)} objects: the brute force stops at {_VERIFY_NIM_OBJECTS}")
    heap, take = move
    if not (0 <= heap < len(heaps) and 1 <= take <= heaps[heap]):
        return False
    return V.nim_is_p_position(tuple(heaps), misere) or V.check_nim_move(
        tuple(heaps), heap, take, misere
    )


def _verify_exact(game: Game, state: Any, move: Any, value: float) -> bool:
    from rompicapo.games.verify import exact_value

    if move not in game.moves(state):
        return False
    mover = game.to_move(state)
    here = exact_value(game, state)
    return here == exact_value(game, game.apply(state, move)) and here * mover == value


def computer_move(
    game: Game,
    state: Any = None,
    *,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> MoveChoice:
    """The computer's move in ``state`` (default: the start) of ``game``, chosen as the module
    docstring says, within ``time_limit`` seconds and ``node_limit`` nodes when given."""
    time_limit = check_time_limit(time_limit)
    node_limit = check_node_limit(node_limit)
    state = game.initial() if state is None else state
    if game.is_terminal(state):
        raise InputError("the game is over: there is no move to make")
    if game.to_move(state) == CHANCE:
        raise InputError("a die decides here, not a player")
    t0 = time.perf_counter()
    kw = {"time_limit": time_limit, "node_limit": node_limit, "progress": progress}
    if isinstance(game, Connect4):
        out = _connect4_move(game, state, **kw)
    elif isinstance(game, Nim):
        out = _nim_move(game, state)
    elif isinstance(game, MNKGame):
        if node_limit is None:
            kw["node_limit"] = RETROGRADE_POSITIONS
        table = retrograde(game, state, **kw)
        out = MoveChoice(complete=table.complete, stopped=table.stopped)
        if table.complete:
            out.move, out.value = table.best_move(state), table.value(state)
            out.how = "retrograde analysis: wins fastest, loses slowest"
        out.counts = dict(table.counts)
    else:
        engine = Engine(game)
        res = engine.iterative_deepening(state, **kw)
        out = MoveChoice(move=res.move, complete=res.complete, stopped=res.stopped)
        out.how = f"iterative deepening to depth {res.depth}"
        if res.complete and engine.exact:
            out.value = res.value
        out.counts = dict(res.counts)
    if out.move is None:  # a limit stopped the search before it had a move
        out.move, out.how = game.moves(state)[0], "the first legal move: no search finished"
    out.game, out.state = game, state
    out.solve_seconds = time.perf_counter() - t0
    return out


def _connect4_move(game: Connect4, state: Any, **limits: Any) -> MoveChoice:
    if limits["time_limit"] is None and limits["node_limit"] is None:
        limits["node_limit"] = CONNECT4_COLUMN_NODES * len(state.playable_columns())
    analysis = game.solver.analyse(state, **limits)
    out = MoveChoice(complete=analysis.complete, stopped=analysis.stopped)
    out.counts = dict(analysis.counts)
    if analysis.move is not None:
        out.move, out.value = analysis.move, analysis.score
        out.how = "proven best" if analysis.complete else "wins at once"
    else:
        out.move = game.solver.safe_move(state)
        out.how = "heuristic: the limits left the best column unknown"
    return out


def _nim_move(game: Nim, state: Any) -> MoveChoice:
    heaps = state[0]
    move = nim_winning_move(heaps, game.misere)
    if move is not None:
        out = MoveChoice(move=move, how="Bouton's winning move", value=1)
    else:
        biggest = max(range(len(heaps)), key=lambda i: heaps[i])
        out = MoveChoice(move=(biggest, 1), how=f"the position is lost: {NIM_LOST_MOVE}", value=-1)
    out.counts = {"objects": sum(heaps)}
    return out


def parse_move(game: Game, text: str, state: Any = None) -> Any:
    """A move typed by a person: a cell number for tic-tac-toe, a column 1..7 for Connect
    Four, ``HEAP AMOUNT`` (heaps from 1) for Nim; for any other game, the legal move in
    ``state`` whose text is ``text``. InputError says what to type instead."""
    text = text.strip()
    if isinstance(game, Connect4):
        if text not in list("1234567"):
            raise InputError(f"type a column 1..7, not {text!r}")
        return int(text)
    if isinstance(game, Nim):
        parts = text.replace(",", " ").split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise InputError("type HEAP AMOUNT, e.g. '3 2' takes 2 from heap 3")
        return int(parts[0]) - 1, int(parts[1])
    if isinstance(game, MNKGame):
        try:
            return int(text)
        except ValueError:
            raise InputError(f"type a cell number 0..{game.cells - 1}, not {text!r}") from None
    state = game.initial() if state is None else state
    for m in game.moves(state):
        if str(m) == text:
            return m
    raise InputError(f"{text!r} is not a legal move here")


def describe_move(game: Game, move: Any) -> str:
    """A move in words: ``take 2 from heap 3`` for Nim, the cell or column otherwise."""
    if isinstance(game, Nim):
        return f"take {move[1]} from heap {move[0] + 1}"
    return str(move)
