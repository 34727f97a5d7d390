"""The alpha-beta tree as it is explored, with the branches a cutoff leaves unexplored.

:func:`alphabeta_tree` runs the same fail-soft alpha-beta as
:func:`rompicapo.games.search.alphabeta` (max/min form, values from MAX's point of view, moves
in the game's order or an ordering hook's) but records every node it visits: the move that led
there, the window it was searched with, its value, and, where a cutoff ended the loop over the
moves, the moves left unexplored (``cut``). The web playground draws this tree; it is meant for
small trees (a tic-tac-toe position a few moves in), so it stops with an
:class:`~rompicapo.common.InputError` past ``max_nodes``.

>>> from rompicapo.games import TicTacToe
>>> g = TicTacToe()
>>> s = g.initial()
>>> for cell in (4, 0, 8, 2, 6):
...     s = g.play(s, cell)
>>> tree = alphabeta_tree(g, s)
>>> tree.value, tree.counts()["leaves"]
(-1.0, 7)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rompicapo.common import InputError
from rompicapo.games.game import MAX, Game

__all__ = ["TraceNode", "alphabeta_tree"]

INF = float("inf")


@dataclass
class TraceNode:
    """One visited node: ``move`` led here (None at the root); ``player`` moves here (MAX or
    MIN, None at a terminal); ``alpha``/``beta`` the window it was searched with; ``value``
    its fail-soft value; ``children`` the visited children in search order; ``cut`` the moves
    a cutoff left unexplored; ``cutoff`` whether the loop over the moves ended on a
    bound (possibly at the last move, with nothing cut); ``terminal`` whether the game is
    over here."""

    move: Any
    player: int | None
    alpha: float
    beta: float
    value: float = 0.0
    terminal: bool = False
    cutoff: bool = False
    children: list[TraceNode] = field(default_factory=list)
    cut: list[Any] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Nodes, leaves (terminal evaluations), cutoffs (as :func:`alphabeta` counts them: the
        bound was reached, even on the last move) and cut moves in this subtree."""
        out = {"nodes": 0, "leaves": 0, "cutoffs": 0, "cut_moves": 0}
        stack = [self]
        while stack:
            n = stack.pop()
            out["nodes"] += 1
            out["leaves"] += n.terminal
            out["cutoffs"] += n.cutoff
            out["cut_moves"] += len(n.cut)
            stack.extend(n.children)
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly nested dict (infinite bounds as None)."""

        def num(x: float) -> float | None:
            return None if x in (INF, -INF) else x

        return {
            "move": self.move,
            "player": None if self.player is None else ("max" if self.player == MAX else "min"),
            "alpha": num(self.alpha),
            "beta": num(self.beta),
            "value": num(self.value),
            "terminal": self.terminal,
            "cutoff": self.cutoff,
            "cut": list(self.cut),
            "children": [c.to_dict() for c in self.children],
        }


def alphabeta_tree(
    game: Game,
    state: Any = None,
    alpha: float = -2,
    beta: float = 2,
    *,
    order: Callable[[Any, Sequence[Any]], Sequence[Any]] | None = None,
    max_nodes: int = 5000,
) -> TraceNode:
    """Search ``state`` (default: the initial position) with fail-soft alpha-beta in window
    ``(alpha, beta)`` and return the root :class:`TraceNode` of the explored tree.

    Raises :class:`InputError` for an empty window or when more than ``max_nodes`` nodes are
    visited (the tree is too big to draw)."""
    if not alpha < beta:
        raise InputError(f"the window must have alpha < beta, got ({alpha}, {beta})")
    state = game.initial() if state is None else state
    visited = 0

    def search(s: Any, move: Any, a: float, b: float) -> TraceNode:
        nonlocal visited
        visited += 1
        if visited > max_nodes:
            raise InputError(
                f"the tree has more than {max_nodes:,} nodes: too big to draw; play more moves"
            )
        if game.is_terminal(s):
            return TraceNode(move, None, a, b, float(game.utility(s)), terminal=True)
        player = game.to_move(s)
        node = TraceNode(move, player, a, b)
        moves = list(game.moves(s) if order is None else order(s, game.moves(s)))
        v = -INF if player == MAX else INF
        for i, m in enumerate(moves):
            if player == MAX:
                child = search(game.apply(s, m), m, max(a, v), b)
                v = max(v, child.value)
                node.children.append(child)
                if v >= b:
                    node.cutoff = True
                    node.cut = moves[i + 1 :]
                    break
            else:
                child = search(game.apply(s, m), m, a, min(b, v))
                v = min(v, child.value)
                node.children.append(child)
                if v <= a:
                    node.cutoff = True
                    node.cut = moves[i + 1 :]
                    break
        node.value = v
        return node

    return search(state, None, float(alpha), float(beta))
