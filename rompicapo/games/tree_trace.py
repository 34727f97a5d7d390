"""The alpha-beta tree as it is explored, with the branches a cutoff leaves unexplored.

[`alphabeta_tree()`][rompicapo.games.alphabeta_tree] runs the same fail-soft alpha-beta as
[`rompicapo.games.plain.alphabeta()`][rompicapo.games.alphabeta] (max/min form, values from MAX's
point of view, moves in the game's order or an ordering hook's) but records every node it visits:
the move that led there, the window it was searched with, its value, and, where a cutoff ended the
loop over the moves, the moves left unexplored (``cut``). The web playground draws this tree; it is
meant for small trees (a tic-tac-toe position a few moves in), so by default it stops after
`TREE_NODES` nodes and returns the tree cut there (``complete=False``).

```pycon
>>> from rompicapo.games import TicTacToe
>>> g = TicTacToe()
>>> s = g.initial()
>>> for cell in (4, 0, 8, 2, 6):
...     s = g.play(s, cell)
>>> tree = alphabeta_tree(g, s)
>>> tree.value, tree.counts["leaves"], tree.verify()
(-1.0, 7, True)

```"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rompicapo.common import InputError, NotVerifiable, ProgressCallback, SearchResult
from rompicapo.games._limits import Limits, stop_message
from rompicapo.games.game import MAX, Game

__all__ = ["TREE_NODES", "AlphaBetaTree", "TraceNode", "alphabeta_tree"]

INF = float("inf")
# A drawn tree of more nodes than this cannot be read on a page: the default node_limit.
TREE_NODES = 5000


@dataclass
class TraceNode:
    """One visited node: ``move`` led here (None at the root); ``player`` moves here (MAX or
    MIN, None at a terminal); ``alpha``/``beta`` the window it was searched with; ``value``
    its fail-soft value (None where a limit stopped the search inside it); ``children`` the
    visited children in search order; ``cut`` the moves a cutoff left unexplored; ``cutoff``
    whether the loop over the moves ended on a bound (possibly at the last move, with nothing
    cut); ``terminal`` whether the game is over here."""

    move: Any
    """The move that led here (None at the root)."""
    player: int | None
    """The player to move here, MAX (+1) or MIN (-1); None at a terminal position."""
    alpha: float
    """The lower end of the window the node was searched with."""
    beta: float
    """The upper end of the window."""
    value: float | None = None
    """Its fail-soft value; None where a limit stopped the search inside it."""
    terminal: bool = False
    """True when the game is over here."""
    cutoff: bool = False
    """True when the loop over the moves ended on a bound."""
    children: list[TraceNode] = field(default_factory=list)
    """The visited children, in search order."""
    cut: list[Any] = field(default_factory=list)
    """The moves a cutoff left unexplored."""

    def counts(self) -> dict[str, int]:
        """Nodes, leaves (terminal evaluations), cutoffs (as
        [`alphabeta()`][rompicapo.games.alphabeta] counts them: the
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

        def num(x: float | None) -> float | None:
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


class _Counts(dict):
    """The counts dict; calling it (``tree.counts()``, the API of the release that returned the
    root [`TraceNode`][rompicapo.games.TraceNode]) still works, with a DeprecationWarning, for
    one release."""

    def __call__(self) -> dict[str, int]:
        warnings.warn(
            "alphabeta_tree(...).counts() is now the dict alphabeta_tree(...).counts",
            DeprecationWarning,
            stacklevel=2,
        )
        return dict(self)


@dataclass
class AlphaBetaTree(SearchResult):
    """The traced search: its ``root`` [`TraceNode`][rompicapo.games.TraceNode], the root's
    ``value``, the window, and whether it finished (``complete``; ``stopped`` says which limit cut
    it).

    ``to_dict()`` holds the result's keys (counts, timings, ``complete``, ``stopped``) and the
    root node's (``move``, ``player``, ``alpha``, ``beta``, ``value``, ``terminal``,
    ``cutoff``, ``cut``, ``children``): the tree drawn by the playground."""

    root: TraceNode | None = None
    value: float | None = None
    complete: bool = True
    stopped: str | None = None
    game: Game | None = None
    state: Any = None

    _dict_exclude = ("root", "game", "state")

    def _dict_extra(self) -> dict[str, Any]:
        return {} if self.root is None else self.root.to_dict()

    def report(self) -> str:
        c = self.counts
        head = "stopped" if self.value is None else f"value {self.value:+g} (MAX's view)"
        if not self.complete:
            head += f" ({stop_message(self.stopped)}: the tree is cut there)"
        return (
            f"{head}; nodes {c['nodes']:,}  terminal evaluations {c['leaves']:,}  "
            f"cutoffs {c['cutoffs']:,}  moves cut {c['cut_moves']:,}"
        )

    def verify(self) -> bool:
        """The root's value against the independent memoised minimax of
        `rompicapo.games.verify`, by the Knuth-Moore window contract: exact inside the
        window, a bound at its edges."""
        from rompicapo.games.verify import exact_value

        if self.game is None or self.root is None:
            raise NotVerifiable("this result does not carry its game: nothing to replay")
        if not self.complete or self.value is None:
            raise NotVerifiable(f"the search was {stop_message(self.stopped)} before it finished")
        true = exact_value(self.game, self.state)
        v, a, b = self.value, self.root.alpha, self.root.beta
        if v <= a:
            return true <= v
        if v >= b:
            return true >= v
        return abs(v - true) < 1e-9


def _old_max_nodes(func: Callable[..., AlphaBetaTree]) -> Callable[..., AlphaBetaTree]:
    """``max_nodes=N``, the old keyword, kept for one release: as before, a tree of more than
    N nodes raises [`InputError`][rompicapo.common.InputError] (``node_limit=N`` returns the tree
    cut at N instead)."""

    @functools.wraps(func)
    def inner(*args: Any, **kwargs: Any) -> AlphaBetaTree:
        if "max_nodes" not in kwargs:
            return func(*args, **kwargs)
        if "node_limit" in kwargs:
            raise InputError("give node_limit or its old name max_nodes, not both")
        warnings.warn(
            "alphabeta_tree(): max_nodes= is now node_limit= (a tree cut at the limit is "
            "returned, not an error)",
            DeprecationWarning,
            stacklevel=2,
        )
        cap = kwargs.pop("max_nodes")
        out = func(*args, node_limit=cap, **kwargs)
        if out.stopped == "nodes":
            raise InputError(
                f"the tree has more than {cap:,} nodes: too big to draw; play more moves"
            )
        return out

    return inner


@_old_max_nodes
def alphabeta_tree(
    game: Game,
    state: Any = None,
    alpha: float = -2,
    beta: float = 2,
    *,
    order: Callable[[Any, Sequence[Any]], Sequence[Any]] | None = None,
    time_limit: float | None = None,
    node_limit: int | None = TREE_NODES,
    progress: ProgressCallback | None = None,
) -> AlphaBetaTree:
    """Search ``state`` (default: the initial position) with fail-soft alpha-beta in window
    ``(alpha, beta)`` and return the explored tree
    ([`AlphaBetaTree`][rompicapo.games.AlphaBetaTree]).

    Raises [`InputError`][rompicapo.common.InputError] for an empty window. A limit returns the tree
    explored so far (``complete=False``); ``max_nodes=`` is the old, deprecated name of
    ``node_limit=``."""
    if not alpha < beta:
        raise InputError(f"the window must have alpha < beta, got ({alpha}, {beta})")
    limits = Limits(time_limit, node_limit, progress)
    state = game.initial() if state is None else state
    root = TraceNode(None, None, float(alpha), float(beta))
    t0 = time.perf_counter()
    _, stopped = limits.run(lambda: _trace(game, order, limits, root, state))
    out = AlphaBetaTree(
        root=root,
        value=root.value if stopped is None else None,
        complete=stopped is None,
        stopped=stopped,
        game=game,
        state=state,
    )
    out.solve_seconds = time.perf_counter() - t0
    out.counts = _Counts(root.counts())
    limits.finish(out.counts, stopped)
    return out


def _trace(
    game: Game,
    order: Callable[[Any, Sequence[Any]], Sequence[Any]] | None,
    limits: Limits,
    root: TraceNode,
    state: Any,
) -> None:
    """Fill ``root`` (and below it) with the search of ``state``. Each node joins the tree
    before it is searched, so a search a limit stops leaves the tree explored so far."""
    visited = 0
    check_at = limits.first()

    def search(node: TraceNode, s: Any) -> float:
        nonlocal visited, check_at
        visited += 1
        if game.is_terminal(s):
            node.terminal = True
            node.value = float(game.utility(s))
            return node.value
        player = node.player = game.to_move(s)
        a, b = node.alpha, node.beta
        moves = list(game.moves(s) if order is None else order(s, game.moves(s)))
        v = -INF if player == MAX else INF
        for i, m in enumerate(moves):
            if visited >= check_at:  # before the child joins the tree: a cut tree has no stub
                check_at = limits.check(visited)
            if player == MAX:
                child = TraceNode(m, None, max(a, v), b)
            else:
                child = TraceNode(m, None, a, min(b, v))
            node.children.append(child)
            x = search(child, game.apply(s, m))
            v = max(v, x) if player == MAX else min(v, x)
            if (player == MAX and v >= b) or (player != MAX and v <= a):
                node.cutoff = True
                node.cut = moves[i + 1 :]
                break
        node.value = v
        return v

    search(root, state)
