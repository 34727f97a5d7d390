"""The game protocol: what a game must tell the search library, and nothing more.

A game is an object with these methods (subclass [`Game`][rompicapo.games.Game] for the defaults):

- ``initial()``: the start state;
- ``to_move(state)``: ``MAX`` (+1, the first player), ``MIN`` (-1, the second player) or
  ``CHANCE`` (0, a die or a card decides);
- ``moves(state)``: the legal moves, in the game's natural order (the search tries them in
  this order unless an ordering hook says otherwise);
- ``apply(state, move)``: the state after ``move``; the old state is left untouched, so the
  searches "undo" a move by returning to the parent state they still hold;
- ``undo(state, move)``: the state before ``move`` (for interactive play and for games that
  want it; the searches do not need it);
- ``is_terminal(state)`` and ``utility(state)``: the payoff of a finished game, always from
  MAX's point of view (a zero-sum game: MIN's payoff is the negation);
- ``key(state)``: a hashable key for transposition tables (default: the state itself);
- ``outcomes(state)``: at a chance node, the list of ``(move, probability)`` pairs;
- ``evaluate(state)``: a heuristic estimate of the value of a non-terminal state from MAX's
  point of view, for depth-limited searches (default 0). With chance nodes the estimate must be
  an affine function of the win probability, or averaging over outcomes misranks moves;
- ``bounds``: the lowest and highest value a position can have, needed by the pruned chance
  searches (Star1, Star2) and by fail-soft searches that start from a finite window.

States are immutable values (tuples, ints); the searches store them in tables and compare them.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from rompicapo.common import InputError

__all__ = ["CHANCE", "MAX", "MIN", "Game", "IllegalMoveError"]

MAX = 1
"""The first player: maximises the utility."""
MIN = -1
"""The second player: minimises the utility."""
CHANCE = 0
"""A chance node: the next move is drawn with the probabilities of ``outcomes``."""


class IllegalMoveError(InputError):
    """A move that the rules do not allow in this state (the message says which and why)."""


class Game:
    """Base class of the protocol above. Subclasses implement the abstract methods."""

    name: str = "game"
    bounds: tuple[float, float] = (-1.0, 1.0)

    def initial(self) -> Any:
        raise NotImplementedError

    def to_move(self, state: Any) -> int:
        raise NotImplementedError

    def moves(self, state: Any) -> Sequence[Any]:
        raise NotImplementedError

    def apply(self, state: Any, move: Any) -> Any:
        raise NotImplementedError

    def undo(self, state: Any, move: Any) -> Any:
        raise NotImplementedError(f"{self.name} does not implement undo")

    def is_terminal(self, state: Any) -> bool:
        raise NotImplementedError

    def utility(self, state: Any) -> float:
        raise NotImplementedError

    def key(self, state: Any) -> Hashable:
        return state

    def outcomes(self, state: Any) -> Sequence[tuple[Any, float]]:
        raise NotImplementedError(f"{self.name} has no chance nodes")

    def evaluate(self, state: Any) -> float:
        return 0.0

    def play(self, state: Any, move: Any) -> Any:
        """``apply`` after checking that ``move`` is legal: for moves that come from a user."""
        if self.is_terminal(state):
            raise IllegalMoveError(f"the game is over; {move!r} cannot be played")
        if move not in self.moves(state):
            raise IllegalMoveError(f"{move!r} is not a legal move here")
        return self.apply(state, move)

    def render(self, state: Any) -> str:
        """A text picture of ``state`` for the terminal."""
        return repr(state)
