"""What every game search returns, and the pieces the searches share.

Every search counts its work in [`SearchStats`][rompicapo.games.SearchStats] (machine-independent)
and returns a [`SearchOutcome`][rompicapo.games.SearchOutcome] (value, best move, principal
variation, counts, seconds).

Counting convention (the one the tic-tac-toe figures use): ``nodes`` counts every position
the search visits (every recursive call, root included); ``leaves`` counts the terminal
positions whose utility was evaluated; ``evaluations`` counts heuristic evaluations at the
depth horizon; ``cutoffs`` counts the nodes left before their last move because the window
closed; ``tt_hits`` counts table probes that answered without searching.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rompicapo.common import InputError, NotVerifiable, SearchResult
from rompicapo.games._limits import Limits, stop_message
from rompicapo.games.game import Game

__all__ = ["Order", "SearchOutcome", "SearchStats", "static_order"]

INF = math.inf
Order = Callable[[Any, Sequence[Any]], Sequence[Any]]
"""A move-ordering hook: ``order(state, moves)`` returns the moves in the order to try them."""


@dataclass
class SearchStats:
    """Machine-independent work counts of one search (see the module docstring)."""

    nodes: int = 0
    """Positions visited: every recursive call, the root included."""
    leaves: int = 0
    """Terminal positions whose utility was evaluated."""
    evaluations: int = 0
    """Heuristic evaluations at the depth horizon."""
    cutoffs: int = 0
    """Nodes left before their last move because the window closed."""
    tt_hits: int = 0
    """Transposition-table probes that answered without searching."""
    tt_probes: int = 0
    """Transposition-table probes."""
    chance_cutoffs: int = 0
    """Chance nodes cut by the bounds of their outcomes (Star1, Star2)."""
    extensions: int = 0
    """Singular extensions of the [`Engine`][rompicapo.games.Engine]: a move searched deeper
    because every other move stayed below it."""

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)

    def add(self, other: SearchStats) -> None:
        """Add ``other``'s counts to these (the passes of iterative deepening, MTD(f))."""
        for k, v in other.__dict__.items():
            setattr(self, k, getattr(self, k) + v)


@dataclass
class SearchOutcome(SearchResult):
    """The value of the searched position, from MAX's point of view (max/min form) or from the
    player to move (negamax form and [`Engine`][rompicapo.games.Engine]); see
    ``perspective``.

    ``complete`` is False when a limit stopped the search; ``stopped`` then says which
    (``"nodes"``, ``"time"``, ``"interrupted"``), ``value`` is None (no bound was proven) and
    ``move`` is the best move found at the root so far (None if none was finished)."""

    value: float | None = 0.0
    """The position's value (see ``perspective``); None when a limit stopped the search before a
    bound was proven."""
    move: Any = None
    """The best move at the root (the best found so far when not ``complete``; None if none was
    finished)."""
    pv: list[Any] = field(default_factory=list)
    """The principal variation: the moves of best play from the root."""
    stats: SearchStats = field(default_factory=SearchStats)
    """The search's work counts (also in ``counts``)."""
    depth: int | None = None
    """The depth searched to, for a depth-limited search; None for a search to the end."""
    complete: bool = True
    """False when a limit stopped the search."""
    stopped: str | None = None
    """``"nodes"``, ``"time"`` or ``"interrupted"`` when a limit stopped the search, else None."""
    perspective: str = "max"
    """``"max"``: ``value`` is from MAX's point of view; ``"mover"``: from the player to move's."""
    game: Game | None = None
    """The game searched."""
    state: Any = None
    """The position searched."""

    # the game and its state are objects, not data; the counts carry the stats
    _dict_exclude = ("game", "state", "stats")

    def __post_init__(self) -> None:
        self.counts = self.stats.to_dict()

    def max_value(self) -> float | None:
        """The value from MAX's point of view, whatever the search's perspective."""
        if self.value is not None and self.perspective == "mover" and self.game is not None:
            return self.value * self.game.to_move(self.state)
        return self.value

    def report(self) -> str:
        """The position, its value from MAX's point of view, the best move and the work."""
        lines = []
        if self.game is not None and self.state is not None:
            lines.append(self.game.render(self.state))
        if self.value is None:
            lines.append(
                f"{stop_message(self.stopped) or 'stopped'} before the value was known; "
                f"best move so far {self.move}"
            )
        else:
            kind = "" if self.complete else f" ({stop_message(self.stopped)}: not exact)"
            if self.depth is not None:
                kind = f" (heuristic, depth {self.depth})" + (
                    "" if self.complete else f", {stop_message(self.stopped)}"
                )
            lines.append(
                f"value {self.max_value():+g} (MAX's view: +1 MAX wins, 0 draw, -1 MIN wins)"
                f"{kind}; best move {self.move}"
            )
        c = self.counts
        lines.append(
            f"nodes {c.get('nodes', 0):,}  terminal evaluations {c.get('leaves', 0):,}  "
            f"cutoffs {c.get('cutoffs', 0):,}  tt hits {c.get('tt_hits', 0):,}  "
            f"time {self.solve_seconds:.3f} s"
        )
        return "\n".join(lines)

    def verify(self) -> bool:
        """Recompute the exact value with the independent memoised minimax of
        `rompicapo.games.verify` and compare: True when they agree, False when not.

        Raises [`NotVerifiable`][rompicapo.common.NotVerifiable] for what has no exact value to
        compare with: a search stopped by a limit or a depth limit, or one without its game."""
        from rompicapo.games.verify import exact_value

        if self.game is None:
            raise NotVerifiable("this result does not carry its game: nothing to replay")
        if not self.complete or self.value is None:
            raise NotVerifiable(f"the search was {stop_message(self.stopped)} before it finished")
        if self.depth is not None:
            raise NotVerifiable("the search stopped at a depth limit: its value is heuristic")
        v = exact_value(self.game, self.state)
        if self.perspective == "mover":
            v *= self.game.to_move(self.state)
        return abs(v - self.value) < 1e-9


def static_order(priority: Iterable[Any]) -> Order:
    """An ordering hook that tries moves in the order of ``priority`` (moves not listed last).

    ``static_order([4, 0, 2, 6, 8, 1, 3, 5, 7])`` tries tic-tac-toe's centre, then corners.
    """
    rank = {m: i for i, m in enumerate(priority)}
    last = len(rank)

    def order(state: Any, moves: Sequence[Any]) -> list[Any]:
        return sorted(moves, key=lambda m: rank.get(m, last))

    return order


def finish(
    stats: SearchStats,
    t0: float,
    limits: Limits | None,
    stopped: str | None,
    **kw: Any,
) -> SearchOutcome:
    """The outcome of a search that ran from ``t0``: complete unless ``stopped``; the closing
    progress event sent (not with ``limits=None``: one pass of several)."""
    out = SearchOutcome(stats=stats, complete=stopped is None, stopped=stopped, **kw)
    out.solve_seconds = time.perf_counter() - t0
    if limits is not None:
        limits.finish(out.counts, stopped)
    return out


def run_search(
    limits: Limits,
    call: Callable[[], float],
    stats: SearchStats | Callable[[], SearchStats],
    best: list[Any],
    *,
    game: Game,
    state: Any,
    depth: int | None = None,
    perspective: str = "max",
) -> SearchOutcome:
    """Run ``call`` (a search from the root) under ``limits`` and return its outcome: the best
    root move (kept in ``best[0]`` as the search found it) as a one-move principal variation,
    and the counts (``stats``, or a function returning them once the search has ended)."""
    t0 = time.perf_counter()
    v, stopped = limits.run(call)
    m = best[0]
    return finish(
        stats() if callable(stats) else stats,
        t0,
        limits,
        stopped,
        value=v,
        move=m,
        pv=[] if m is None else [m],
        depth=depth,
        perspective=perspective,
        game=game,
        state=state,
    )


def check_window(alpha: float, beta: float) -> None:
    if not alpha < beta:
        raise InputError(f"the window needs alpha < beta, got ({alpha}, {beta})")


def best_child(
    game: Game,
    state: Any,
    order: Order | None,
    child_value: Callable[[Any], float],
    best: list[Any],
) -> float:
    """The root of the full-window max/min searches: the best child's value for MAX, the best
    move kept in ``best[0]`` as soon as it is found (a stopped search keeps it)."""
    sign = game.to_move(state)
    moves = game.moves(state) if order is None else order(state, game.moves(state))
    best_v = -INF
    for m in moves:
        v = child_value(game.apply(state, m))
        if best[0] is None or sign * v > best_v:
            best_v, best[0] = sign * v, m
    return sign * best_v
