"""Retrograde analysis: every position reachable from a start, solved backwards from the end.

[`retrograde()`][rompicapo.games.retrograde.retrograde] tabulates the positions breadth-first, then
works backwards from the finished games: a position is won if some move reaches a position lost for
the opponent, lost when every move reaches a position won for the opponent; the rest (including
cycles that nobody can force out of) are draws. It uses only the sign of the utility and no
recursion, so it also works on games with cycles. The result is a
[`PositionTable`][rompicapo.games.PositionTable].
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from rompicapo.common import (
    InputError,
    NotVerifiable,
    ProgressCallback,
    SearchResult,
    renamed_keywords,
)
from rompicapo.games._limits import CHECK_EVERY, Limits, SearchStopped, stop_message
from rompicapo.games.game import CHANCE, Game

__all__ = ["RETROGRADE_POSITIONS", "PositionTable", "retrograde"]

# The positions tabulated at most unless told otherwise: about 2 GB of Python objects for a
# game with small states; a larger game needs node_limit= raised on purpose.
RETROGRADE_POSITIONS = 5_000_000


@dataclass
class PositionTable(SearchResult):
    """Every position reachable from a start, with its value for the player to move (+1 win,
    -1 loss, 0 draw), the number of plies to the end with best play (win fast, lose slow), and
    a best move. Built by [`retrograde()`][rompicapo.games.retrograde.retrograde].

    ``complete`` is False when a limit stopped the analysis (``stopped`` says which): the
    table then holds the positions enumerated so far and no values."""

    game: Game | None = None
    keys: list[Hashable] = field(default_factory=list)
    index: dict[Hashable, int] = field(default_factory=dict)
    states: list[Any] = field(default_factory=list)
    values: list[int] = field(default_factory=list)
    distances: list[int] = field(default_factory=list)
    best_moves: list[Any] = field(default_factory=list)
    complete: bool = True
    stopped: str | None = None

    # the positions themselves are objects; to_dict() gives the table's size and counts
    _dict_exclude = ("game", "keys", "index", "states", "values", "distances", "best_moves")

    def _dict_extra(self) -> dict[str, Any]:
        wins = sum(1 for v in self.values if v > 0)
        losses = sum(1 for v in self.values if v < 0)
        return {
            "positions": len(self.keys),
            "wins": wins,
            "losses": losses,
            "draws": len(self.values) - wins - losses,
        }

    def __len__(self) -> int:
        return len(self.keys)

    def _i(self, state: Any) -> int:
        if not self.complete:
            raise InputError(f"the table is incomplete ({stop_message(self.stopped)}): no values")
        k = self.game.key(state)
        if k not in self.index:
            raise InputError("that position is not in the table (not reachable from its start)")
        return self.index[k]

    def value(self, state: Any) -> int:
        """+1, 0 or -1 for the player to move."""
        return self.values[self._i(state)]

    def max_value(self, state: Any) -> int:
        """+1, 0 or -1 from MAX's point of view."""
        return self.values[self._i(state)] * self.game.to_move(state)

    def distance(self, state: Any) -> int:
        return self.distances[self._i(state)]

    def best_move(self, state: Any) -> Any:
        return self.best_moves[self._i(state)]

    def report(self) -> str:
        c = self.to_dict()
        head = f"{c['positions']:,} positions"
        if not self.complete:
            return f"{head} enumerated, {stop_message(self.stopped)}: no values"
        return (
            f"{head}: {c['wins']:,} won, {c['losses']:,} lost, {c['draws']:,} drawn for the "
            f"player to move; {self.solve_seconds:.3f} s"
        )

    def verify(self) -> bool:
        """Check every entry against the independent memoised minimax of
        `rompicapo.games.verify` (small games only)."""
        from rompicapo.games.verify import exact_value

        g = self.game
        if g is None:
            raise NotVerifiable("this table does not carry its game: nothing to replay")
        if not self.complete:
            raise NotVerifiable(f"the table is incomplete ({stop_message(self.stopped)})")
        return all(
            _sign(exact_value(g, s)) == v * g.to_move(s)
            for s, v in zip(self.states, self.values, strict=True)
        )


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


@renamed_keywords(max_positions="node_limit", start="state")
def retrograde(
    game: Game,
    state: Any = None,
    *,
    time_limit: float | None = None,
    node_limit: int | None = RETROGRADE_POSITIONS,
    progress: ProgressCallback | None = None,
) -> PositionTable:
    """Retrograde analysis of every position reachable from ``state`` (default: the start).
    ``node_limit`` counts positions (default `RETROGRADE_POSITIONS`); a limit that
    stops the enumeration returns an incomplete table (``complete=False``).
    ``max_positions=`` and ``start=`` are the old names of ``node_limit=`` and ``state=``.

    ```pycon
    >>> from rompicapo.games import TicTacToe
    >>> len(retrograde(TicTacToe())), retrograde(TicTacToe(), node_limit=100).stopped
    (5478, 'nodes')

    ```"""
    limits = Limits(time_limit, node_limit, progress, unit="positions")
    state = game.initial() if state is None else state
    t0 = time.perf_counter()
    index: dict[Hashable, int] = {game.key(state): 0}
    states: list[Any] = [state]
    succ: list[list[tuple[Any, int]]] = []
    table, stopped = limits.run(lambda: _solve(game, limits, index, states, succ))
    if stopped is not None:
        keys = [game.key(s) for s in states]
        table = PositionTable(
            game=game, keys=keys, index=index, states=states, complete=False, stopped=stopped
        )
    table.solve_seconds = time.perf_counter() - t0
    table.counts = table._dict_extra()
    limits.finish(table.counts, stopped)
    return table


def _solve(
    game: Game,
    limits: Limits,
    index: dict[Hashable, int],
    states: list[Any],
    succ: list[list[tuple[Any, int]]],
) -> PositionTable:
    """Enumerate (into ``index``, ``states`` and ``succ``, kept if a limit stops it), then
    resolve backwards and pick the best moves."""
    _enumerate(game, limits, index, states, succ)
    value, dist, resolved = _backwards(game, limits, states, succ)
    best = _best_moves(succ, value, dist, resolved)
    return PositionTable(
        game=game,
        keys=[game.key(s) for s in states],
        index=index,
        states=states,
        values=value,
        distances=dist,
        best_moves=best,
    )


def _enumerate(
    game: Game,
    limits: Limits,
    index: dict[Hashable, int],
    states: list[Any],
    succ: list[list[tuple[Any, int]]],
) -> None:
    """Breadth-first: every position reachable, and each one's (move, child index) pairs."""
    key = game.key
    check_at = limits.first()
    i = 0
    while i < len(states):
        s = states[i]
        children: list[tuple[Any, int]] = []
        if not game.is_terminal(s):
            if game.to_move(s) == CHANCE:
                raise InputError("retrograde analysis here handles games without chance nodes")
            for m in game.moves(s):
                c = game.apply(s, m)
                k = key(c)
                j = index.get(k)
                if j is None:
                    if len(states) >= check_at:
                        check_at = limits.check(len(states))
                    j = index[k] = len(states)
                    states.append(c)
                children.append((m, j))
        succ.append(children)
        i += 1


def _backwards(
    game: Game, limits: Limits, states: list[Any], succ: list[list[tuple[Any, int]]]
) -> tuple[list[int], list[int], list[bool]]:
    """Values (+1/0/-1 for the mover), distances to the end, and which positions resolved."""
    n = len(states)
    pred: list[list[int]] = [[] for _ in range(n)]
    for p, children in enumerate(succ):
        for _, c in children:
            pred[c].append(p)
    value = [0] * n
    dist = [0] * n
    resolved = [False] * n
    # counts a position's moves that do not yet lead to a win for the opponent
    unrefuted = [len({c for _, c in children}) for children in succ]
    queue: list[int] = []
    for p in range(n):
        if not succ[p]:
            resolved[p] = True
            s = states[p]
            value[p] = _sign(game.to_move(s) * game.utility(s)) if game.is_terminal(s) else 0
            if value[p] != 0:
                queue.append(p)
    head = 0
    while head < len(queue):  # positions leave the queue in order of distance
        if head % CHECK_EVERY == 0 and limits.deadline.expired():
            raise SearchStopped("time")
        c = queue[head]
        head += 1
        for p in set(pred[c]):
            if resolved[p]:
                continue
            if value[c] < 0:  # the child is lost for its mover: the parent wins
                resolved[p], value[p], dist[p] = True, 1, dist[c] + 1
                queue.append(p)
            else:
                unrefuted[p] -= 1
                if unrefuted[p] == 0:  # every move loses: the last to resolve is the slowest
                    resolved[p], value[p], dist[p] = True, -1, dist[c] + 1
                    queue.append(p)
    return value, dist, resolved


def _best_moves(
    succ: list[list[tuple[Any, int]]], value: list[int], dist: list[int], resolved: list[bool]
) -> list[Any]:
    """Win fast, lose slow, keep a draw; a drawn position's distance is set to 0."""
    best: list[Any] = [None] * len(succ)
    for p, children in enumerate(succ):
        if not children:
            continue
        if value[p] > 0:
            cands = [(dist[c], m) for m, c in children if resolved[c] and value[c] < 0]
            best[p] = min(cands, key=lambda t: t[0])[1]
        elif value[p] < 0:
            best[p] = max(((dist[c], m) for m, c in children), key=lambda t: t[0])[1]
        else:
            draws = [m for m, c in children if value[c] == 0]
            best[p] = draws[0] if draws else children[0][0]
            dist[p] = 0
    return best
