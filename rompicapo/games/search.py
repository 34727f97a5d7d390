"""Adversarial search over any game that follows :mod:`rompicapo.games.game`.

Every search counts its work in :class:`SearchStats` (machine-independent) and returns a
:class:`SearchOutcome` (value, best move, principal variation, counts, seconds).

Counting convention (the one the tic-tac-toe figures use): ``nodes`` counts every position
the search visits (every recursive call, root included); ``leaves`` counts the terminal
positions whose utility was evaluated; ``evaluations`` counts heuristic evaluations at the
depth horizon; ``cutoffs`` counts the nodes left before their last move because the window
closed; ``tt_hits`` counts table probes that answered without searching.

The window contract (Knuth and Moore, 1975). Called with a window ``(alpha, beta)``,
``alpha < beta``, on a position whose true value is ``V``, a fail-soft search returns ``v``:

- ``alpha < v < beta``: ``v == V`` (exact);
- ``v <= alpha``: ``V <= v`` (an upper bound: the position is no better than ``v``);
- ``v >= beta``: ``V >= v`` (a lower bound: the position is at least ``v``).

A fail-hard search keeps the same meaning but never leaves the window: it returns ``alpha``
for "at most alpha" and ``beta`` for "at least beta". Max nodes cut on ``v >= beta`` and min
nodes on ``v <= alpha``: with equality a tie cannot change the root value, so it cuts too
(with strict inequalities ties are searched and fewer branches are pruned). The negamax form
returns values from the point of view of the player to move; the max/min form from MAX's.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rompicapo.common import InputError, NotVerifiable, SearchResult, renamed_keywords
from rompicapo.games.game import CHANCE, MAX, MIN, Game

__all__ = [
    "EXACT",
    "LOWER",
    "UPPER",
    "Engine",
    "PositionTable",
    "SearchOutcome",
    "SearchStats",
    "alphabeta",
    "expectiminimax",
    "minimax",
    "negamax",
    "retrograde",
    "solve",
    "star1",
    "star2",
    "static_order",
]

INF = math.inf
Order = Callable[[Any, Sequence[Any]], Sequence[Any]]
"""A move-ordering hook: ``order(state, moves)`` returns the moves in the order to try them."""

EXACT, LOWER, UPPER = 0, 1, 2
"""The kind of value a transposition-table entry holds: exact, a lower or an upper bound."""


@dataclass
class SearchStats:
    """Machine-independent work counts of one search (see the module docstring)."""

    nodes: int = 0
    leaves: int = 0
    evaluations: int = 0
    cutoffs: int = 0
    tt_hits: int = 0
    tt_probes: int = 0
    chance_cutoffs: int = 0
    extensions: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class SearchOutcome(SearchResult):
    """The value of the searched position, from MAX's point of view (max/min form) or from the
    player to move (negamax form and :class:`Engine`); see ``perspective``."""

    value: float = 0.0
    move: Any = None
    pv: list[Any] = field(default_factory=list)
    stats: SearchStats = field(default_factory=SearchStats)
    depth: int | None = None
    complete: bool = True
    perspective: str = "max"
    game: Game | None = None
    state: Any = None

    # the game and its state are objects, not data; the counts carry the stats
    _dict_exclude = ("game", "state", "stats")

    def __post_init__(self) -> None:
        self.counts = self.stats.to_dict()

    def max_value(self) -> float:
        """The value from MAX's point of view, whatever the search's perspective."""
        if self.perspective == "mover" and self.game is not None:
            return self.value * self.game.to_move(self.state)
        return self.value

    def report(self) -> str:
        """The position, its value from MAX's point of view, the best move and the work."""
        lines = []
        if self.game is not None and self.state is not None:
            lines.append(self.game.render(self.state))
        kind = "" if self.complete else " (stopped early: a bound, not the exact value)"
        if self.depth is not None:
            kind = f" (heuristic, depth {self.depth})"
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
        :mod:`rompicapo.games.verify` and compare: True when they agree, False when not.

        Raises :class:`~rompicapo.common.NotVerifiable` for what has no exact value to compare
        with: a search stopped by a time limit or a depth limit, or one without its game."""
        from rompicapo.games.verify import exact_value

        if self.game is None:
            raise NotVerifiable("this result does not carry its game: nothing to replay")
        if not self.complete:
            raise NotVerifiable("the search was stopped before it finished (time limit)")
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


def _finish(stats: SearchStats, t0: float, **kw: Any) -> SearchOutcome:
    out = SearchOutcome(stats=stats, **kw)
    out.solve_seconds = time.perf_counter() - t0
    return out


def _check_window(alpha: float, beta: float) -> None:
    if not alpha < beta:
        raise InputError(f"the window needs alpha < beta, got ({alpha}, {beta})")


# --------------------------------------------------------------------------------------------
# Minimax
# --------------------------------------------------------------------------------------------


def minimax(
    game: Game, state: Any = None, *, depth: int | None = None, order: Order | None = None
) -> SearchOutcome:
    """Plain minimax (max/min form): every line to the end, or to ``depth`` plies where
    ``game.evaluate`` stands in for the rest. On the empty tic-tac-toe board it visits all
    255,168 complete games (``stats.leaves``). Returns the value for MAX and a best move.
    (It is :func:`expectiminimax`, which also handles chance nodes.)"""
    return expectiminimax(game, state, depth=depth, order=order)


def _root(
    game: Game, state: Any, child_value: Callable[[Any], float], st: SearchStats, order
) -> tuple[float, Any, list[Any]]:
    """The root of the full-window max/min searches: value, best move, one-move PV."""
    st.nodes += 1
    if game.is_terminal(state):
        st.leaves += 1
        return game.utility(state), None, []
    sign = game.to_move(state)
    moves = game.moves(state) if order is None else order(state, game.moves(state))
    best_v, best_m = -INF, None
    for m in moves:
        v = child_value(game.apply(state, m))
        if best_m is None or sign * v > best_v:
            best_v, best_m = sign * v, m
    return sign * best_v, best_m, [best_m]


# --------------------------------------------------------------------------------------------
# Alpha-beta, max/min form
# --------------------------------------------------------------------------------------------


def alphabeta(
    game: Game,
    state: Any = None,
    alpha: float = -INF,
    beta: float = INF,
    *,
    fail_soft: bool = True,
    order: Order | None = None,
    depth: int | None = None,
) -> SearchOutcome:
    """Alpha-beta in max/min form (values from MAX's point of view) with window
    ``(alpha, beta)``, fail-soft or fail-hard (see the module docstring for the contract).

    ``order`` is a move-ordering hook; ``depth`` limits the search, ``game.evaluate`` scoring
    the horizon. With window (-2, 2) and cells scanned 0..8 the empty tic-tac-toe board costs
    7,330 terminal evaluations; with order [4,0,2,6,8,1,3,5,7], 2,893.
    """
    _check_window(alpha, beta)
    state = game.initial() if state is None else state
    st = SearchStats()
    moves_of, apply, terminal, utility = game.moves, game.apply, game.is_terminal, game.utility
    to_move, evaluate = game.to_move, game.evaluate
    limit = INF if depth is None else depth
    best_at_root: list[Any] = [None]
    # plain local counters: the hot loop updates them faster than attributes of `st`
    nodes = leaves = evaluations = cutoffs = 0

    def soft(s: Any, a: float, b: float, d: float, root: bool) -> float:
        nonlocal nodes, leaves, evaluations, cutoffs
        nodes += 1
        if terminal(s):
            leaves += 1
            return utility(s)
        if d <= 0:
            evaluations += 1
            return evaluate(s)
        moves = moves_of(s) if order is None else order(s, moves_of(s))
        if to_move(s) == MAX:
            v = -INF
            for m in moves:
                x = soft(apply(s, m), a if a > v else v, b, d - 1, False)
                if x > v:
                    v = x
                    if root:
                        best_at_root[0] = m
                    if v >= b:
                        cutoffs += 1
                        return v
            return v
        v = INF
        for m in moves:
            x = soft(apply(s, m), a, b if b < v else v, d - 1, False)
            if x < v:
                v = x
                if root:
                    best_at_root[0] = m
                if v <= a:
                    cutoffs += 1
                    return v
        return v

    def hard(s: Any, a: float, b: float, d: float, root: bool) -> float:
        nonlocal nodes, leaves, evaluations, cutoffs
        nodes += 1
        if terminal(s):
            leaves += 1
            u = utility(s)
            return a if u < a else b if u > b else u
        if d <= 0:
            evaluations += 1
            u = evaluate(s)
            return a if u < a else b if u > b else u
        moves = moves_of(s) if order is None else order(s, moves_of(s))
        if to_move(s) == MAX:
            for m in moves:
                x = hard(apply(s, m), a, b, d - 1, False)
                if x > a:
                    a = x
                    if root:
                        best_at_root[0] = m
                    if a >= b:
                        cutoffs += 1
                        return b
            return a
        for m in moves:
            x = hard(apply(s, m), a, b, d - 1, False)
            if x < b:
                b = x
                if root:
                    best_at_root[0] = m
                if a >= b:
                    cutoffs += 1
                    return a
        return b

    t0 = time.perf_counter()
    v = (soft if fail_soft else hard)(state, alpha, beta, limit, True)
    st.nodes, st.leaves, st.evaluations, st.cutoffs = nodes, leaves, evaluations, cutoffs
    m = best_at_root[0]
    return _finish(
        st, t0, value=v, move=m, pv=[] if m is None else [m], depth=depth, game=game, state=state
    )


# --------------------------------------------------------------------------------------------
# Alpha-beta, negamax form
# --------------------------------------------------------------------------------------------


def negamax(
    game: Game,
    state: Any = None,
    alpha: float = -INF,
    beta: float = INF,
    *,
    fail_soft: bool = True,
    order: Order | None = None,
    depth: int | None = None,
    quiescence: Callable[[Any], Sequence[Any]] | None = None,
) -> SearchOutcome:
    """Alpha-beta in negamax form: every value is from the point of view of the player to
    move, and a child's value is negated. Same window contract as :func:`alphabeta`.

    ``quiescence(state)`` (with ``depth``) lists the "noisy" moves to keep searching at the
    horizon (captures, threats): there the side to move may stand pat on ``game.evaluate`` or
    try a noisy move, so the horizon does not fall in the middle of an exchange.
    """
    _check_window(alpha, beta)
    state = game.initial() if state is None else state
    st = SearchStats()
    moves_of, apply, terminal, utility = game.moves, game.apply, game.is_terminal, game.utility
    to_move, evaluate = game.to_move, game.evaluate
    limit = INF if depth is None else depth
    best_at_root: list[Any] = [None]
    # plain local counters: the hot loop updates them faster than attributes of `st`
    nodes = leaves = evaluations = cutoffs = 0

    def qsearch(s: Any, a: float, b: float) -> float:
        nonlocal nodes, leaves, evaluations, cutoffs
        nodes += 1
        if terminal(s):
            leaves += 1
            return to_move(s) * utility(s)
        evaluations += 1
        v = to_move(s) * evaluate(s)  # stand pat: the mover may decline every noisy move
        if v >= b:
            return v
        for m in quiescence(s):
            x = -qsearch(apply(s, m), -b, -(a if a > v else v))
            if x > v:
                v = x
                if v >= b:
                    cutoffs += 1
                    return v
        return v

    def search(s: Any, a: float, b: float, d: float, root: bool) -> float:
        nonlocal nodes, leaves, evaluations, cutoffs
        nodes += 1
        if terminal(s):
            leaves += 1
            u = to_move(s) * utility(s)
            if fail_soft:
                return u
            return a if u < a else b if u > b else u
        if d <= 0:
            if quiescence is not None:
                nodes -= 1  # qsearch counts this node itself
                u = qsearch(s, a, b)
            else:
                evaluations += 1
                u = to_move(s) * evaluate(s)
            if fail_soft:
                return u
            return a if u < a else b if u > b else u
        moves = moves_of(s) if order is None else order(s, moves_of(s))
        v = -INF if fail_soft else a
        for m in moves:
            x = -search(apply(s, m), -b, -(a if a > v else v), d - 1, False)
            if x > v:
                v = x
                if root:
                    best_at_root[0] = m
                if v >= b:
                    cutoffs += 1
                    return v if fail_soft else b
        return v

    t0 = time.perf_counter()
    v = search(state, alpha, beta, limit, True)
    st.nodes, st.leaves, st.evaluations, st.cutoffs = nodes, leaves, evaluations, cutoffs
    m = best_at_root[0]
    return _finish(
        st,
        t0,
        value=v,
        move=m,
        pv=[] if m is None else [m],
        depth=depth,
        perspective="mover",
        game=game,
        state=state,
    )


# --------------------------------------------------------------------------------------------
# The engine: negamax with a transposition table, move ordering, iterative deepening, MTD(f)
# --------------------------------------------------------------------------------------------


class _Timeout(Exception):
    pass


# How often (in nodes) the engine looks at the clock: often enough to stop within about a
# millisecond of the deadline at Python speeds (~1 us per node), rarely enough to cost nothing.
_CLOCK_EVERY = 1024
# The width of the null windows of the singular-extension test: far below any difference of
# values that matters, far above floating-point noise.
_NULL_WIDTH = 1e-9


class Engine:
    """Negamax alpha-beta (fail-soft) with the usual enhancements, each one optional:

    - a transposition table of ``(depth, value, kind, best move)`` per ``game.key``: an entry
      answers a probe only if its depth is at least the remaining depth and its kind decides
      against the window (exact; a lower bound >= beta; an upper bound <= alpha); otherwise its
      best move is tried first;
    - move ordering: the ``order`` hook, then the history heuristic (moves that caused cutoffs,
      weighted by depth squared), then two killer moves per ply, then the table's move;
    - depth-limited search with ``game.evaluate`` and a ``quiescence`` hook (as in
      :func:`negamax`);
    - singular extensions (``singular=margin``): when the table's move is better than every
      other move by ``margin`` (checked by null-window searches of the others at half depth),
      that move is searched one ply deeper, so forced lines are not cut off at the horizon;
    - iterative deepening with a time limit, MTD(f) on null windows, principal variations
      read back from the table.

    Values are from the point of view of the player to move at the root. The table survives
    between calls (that is what iterative deepening and MTD(f) feed on); :meth:`clear` empties
    it. ``tt_entries`` bounds its size: when full it is emptied (a simple, predictable policy).
    """

    def __init__(
        self,
        game: Game,
        *,
        tt: bool = True,
        tt_entries: int = 2_000_000,
        killers: bool = True,
        history: bool = True,
        order: Order | None = None,
        quiescence: Callable[[Any], Sequence[Any]] | None = None,
        singular: float | None = None,
        singular_depth: int = 4,
    ) -> None:
        self.game = game
        # singular extensions only where the remaining depth is at least singular_depth: the
        # verification searches cost about half the node's work, worth it only high in the tree
        self.singular, self.singular_depth = singular, singular_depth
        self._root_depth = INF
        self.use_tt, self.tt_entries = tt, tt_entries
        self.use_killers, self.use_history = killers, history
        self.order, self.quiescence = order, quiescence
        # key -> (depth, value, kind, best move, whether a horizon was hit when it was stored)
        self.table: dict[Hashable, tuple[float, float, int, Any, bool]] = {}
        self.history: dict[Any, int] = {}
        self.killers: list[list[Any]] = []
        self.stats = SearchStats()
        self._deadline = INF
        self._horizon_hit = False

    def clear(self) -> None:
        """Forget the table, the killers and the history."""
        self.table.clear()
        self.history.clear()
        self.killers.clear()

    # -- the search --------------------------------------------------------------------------

    def _ordered(self, s: Any, moves: Sequence[Any], ply: int, tt_move: Any) -> list[Any]:
        moves = list(moves if self.order is None else self.order(s, moves))
        if self.use_history and self.history:
            h = self.history
            moves.sort(key=lambda m: -h.get(m, 0))  # stable: ties keep the hook's order
        if self.use_killers and ply < len(self.killers):
            for k in reversed(self.killers[ply]):
                if k in moves:
                    moves.remove(k)
                    moves.insert(0, k)
        if tt_move is not None and tt_move in moves:
            moves.remove(tt_move)
            moves.insert(0, tt_move)
        return moves

    def _qsearch(self, s: Any, a: float, b: float) -> float:
        game, st = self.game, self.stats
        st.nodes += 1
        if game.is_terminal(s):
            st.leaves += 1
            return game.to_move(s) * game.utility(s)
        st.evaluations += 1
        v = game.to_move(s) * game.evaluate(s)
        if v >= b:
            return v
        for m in self.quiescence(s):
            x = -self._qsearch(game.apply(s, m), -b, -max(a, v))
            if x > v:
                v = x
                if v >= b:
                    st.cutoffs += 1
                    return v
        return v

    def _search(self, s: Any, a: float, b: float, d: float, ply: int) -> float:
        game, st = self.game, self.stats
        st.nodes += 1
        if st.nodes % _CLOCK_EVERY == 0 and time.perf_counter() > self._deadline:
            raise _Timeout
        if game.is_terminal(s):
            st.leaves += 1
            return game.to_move(s) * game.utility(s)
        if d <= 0:
            self._horizon_hit = True
            if self.quiescence is not None:
                st.nodes -= 1
                return self._qsearch(s, a, b)
            st.evaluations += 1
            return game.to_move(s) * game.evaluate(s)
        tt_move = entry = None
        key = None
        if self.use_tt:
            key = game.key(s)
            st.tt_probes += 1
            entry = self.table.get(key)
            if entry is not None:
                e_depth, e_value, e_kind, tt_move, e_inexact = entry
                if e_depth >= d and (
                    e_kind == EXACT
                    or (e_kind == LOWER and e_value >= b)
                    or (e_kind == UPPER and e_value <= a)
                ):
                    st.tt_hits += 1
                    if e_inexact:  # the stored value rests on the horizon: so does this one
                        self._horizon_hit = True
                    return e_value
        extend = None
        if (
            self.singular is not None
            and entry is not None
            and d != INF
            and d >= self.singular_depth
            and e_kind != UPPER
            and e_depth >= d - 3
            and ply < 2 * self._root_depth  # bounds the cascade of extensions on one line
        ):
            extend = self._singular_move(s, tt_move, e_value - self.singular, d, ply)
        a0 = a
        v, best = -INF, None
        for m in self._ordered(s, game.moves(s), ply, tt_move):
            child_depth = d if m == extend else d - 1
            x = -self._search(game.apply(s, m), -b, -(a if a > v else v), child_depth, ply + 1)
            if x > v:
                v, best = x, m
                if v >= b:
                    st.cutoffs += 1
                    self._reward(m, ply, d, tt_move)
                    break
        if self.use_tt:
            kind = UPPER if v <= a0 else LOWER if v >= b else EXACT
            if len(self.table) >= self.tt_entries:
                self.table.clear()
            # the flag is the whole search's so far: it may call an entry inexact whose own
            # subtree met no horizon, never the reverse (iterative deepening stays correct)
            self.table[key] = (d, v, kind, best, self._horizon_hit)
        return v

    def _singular_move(self, s: Any, tt_move: Any, target: float, d: float, ply: int) -> Any:
        """``tt_move`` if every other move stays below ``target`` in a null-window search at
        half depth (then it is singular and worth a deeper look), else None."""
        game = self.game
        if tt_move not in game.moves(s):
            return None
        horizon_hit = self._horizon_hit  # the test's own horizons do not make the result inexact
        try:
            for m in game.moves(s):
                if m == tt_move:
                    continue
                # is this move worth at least target? a window just below target answers it
                child = game.apply(s, m)
                x = -self._search(child, -target, -target + _NULL_WIDTH, d // 2, ply + 1)
                if x >= target:
                    return None
        finally:
            self._horizon_hit = horizon_hit
        self.stats.extensions += 1
        return tt_move

    def _reward(self, move: Any, ply: int, d: float, tt_move: Any) -> None:
        if self.use_history:
            # depth squared: a cutoff high in the tree saves far more work than one near the
            # leaves (an exact search has infinite depth, so weight by the ply instead).
            w = d if d != INF else max(1, 64 - ply)
            self.history[move] = self.history.get(move, 0) + int(w * w)
        if self.use_killers and move != tt_move:
            while len(self.killers) <= ply:
                self.killers.append([])
            ks = self.killers[ply]
            if not ks or ks[0] != move:
                ks.insert(0, move)
                del ks[2:]  # two killers per ply: the classic choice

    def principal_variation(self, state: Any, max_length: int = 256) -> list[Any]:
        """The line of best moves read back from the table (stops at a missing entry)."""
        pv: list[Any] = []
        seen = set()
        s = state
        while len(pv) < max_length and not self.game.is_terminal(s):
            key = self.game.key(s)
            entry = self.table.get(key)
            if entry is None or entry[3] is None or key in seen:
                break
            seen.add(key)
            pv.append(entry[3])
            s = self.game.apply(s, entry[3])
        return pv

    def search(
        self,
        state: Any = None,
        depth: int | None = None,
        alpha: float = -INF,
        beta: float = INF,
        *,
        time_limit: float | None = None,
    ) -> SearchOutcome:
        """One fail-soft search of ``state`` to ``depth`` plies (None: to the end) with window
        ``(alpha, beta)``. Raises nothing on a time-out: returns ``complete=False``."""
        _check_window(alpha, beta)
        game = self.game
        state = game.initial() if state is None else state
        self.stats = SearchStats()
        self._deadline = INF if time_limit is None else time.perf_counter() + time_limit
        self._horizon_hit = False
        t0 = time.perf_counter()
        d = INF if depth is None else depth
        self._root_depth = d
        try:
            v = self._search(state, alpha, beta, d, 0)
            complete = True
        except _Timeout:
            v, complete = 0.0, False
        pv = self.principal_variation(state, 256 if depth is None else depth) if complete else []
        if complete and not pv and not game.is_terminal(state):
            # no table: fall back to a best move found by a 1-ply look-ahead over the children
            pv = self._best_by_children(state, d)
        return _finish(
            self.stats,
            t0,
            value=v,
            move=pv[0] if pv else None,
            pv=pv,
            depth=depth,
            complete=complete,
            perspective="mover",
            game=game,
            state=state,
        )

    def _best_by_children(self, state: Any, d: float) -> list[Any]:
        best, best_v = None, -INF
        for m in self.game.moves(state):
            x = -self._search(self.game.apply(state, m), -INF, INF, d - 1, 1)
            if best is None or x > best_v:
                best, best_v = m, x
        return [best]

    def iterative_deepening(
        self, state: Any = None, max_depth: int = 64, time_limit: float | None = None
    ) -> SearchOutcome:
        """Search to depth 1, 2, ... ``max_depth``, each pass ordering moves with the table and
        history the previous one left. Stops early when a pass reached no horizon (the value is
        then exact) or when ``time_limit`` seconds have passed; returns the deepest complete
        pass (``depth`` says which) with the counts of all passes added up."""
        game = self.game
        state = game.initial() if state is None else state
        total = SearchStats()
        t0 = time.perf_counter()
        deadline = INF if time_limit is None else t0 + time_limit
        best: SearchOutcome | None = None
        for d in range(1, max_depth + 1):
            remaining = deadline - time.perf_counter()
            if remaining <= 0 and best is not None:
                break
            out = self.search(state, d, time_limit=None if deadline == INF else remaining)
            for k, val in out.stats.to_dict().items():
                setattr(total, k, getattr(total, k) + val)
            if not out.complete:
                break
            best = out
            if not self._horizon_hit:
                break
        if best is None:
            raise InputError("the time limit ran out before depth 1 was searched")
        best.stats = total
        best.counts = total.to_dict()
        best.solve_seconds = time.perf_counter() - t0
        best.complete = not self._horizon_hit or best.depth == max_depth
        return best

    def mtdf(
        self, state: Any = None, guess: float = 0, depth: int | None = None, step: float = 1
    ) -> SearchOutcome:
        """MTD(f) (Plaat et al., 1996): converge on the value with null-window searches
        ``(beta - step, beta)``, each one a bound, the table carrying work between them.
        ``step`` is the spacing of the possible values (1 for integer utilities)."""
        game = self.game
        state = game.initial() if state is None else state
        total = SearchStats()
        t0 = time.perf_counter()
        g, lower, upper, passes = guess, -INF, INF, 0
        while lower < upper:
            beta = g + step if g == lower else g
            out = self.search(state, depth, beta - step, beta)
            passes += 1
            for k, val in out.stats.to_dict().items():
                setattr(total, k, getattr(total, k) + val)
            g = out.value
            if g < beta:
                upper = g
            else:
                lower = g
        pv = self.principal_variation(state, 256 if depth is None else depth)
        res = _finish(
            total,
            t0,
            value=g,
            move=pv[0] if pv else None,
            pv=pv,
            depth=depth,
            perspective="mover",
            game=game,
            state=state,
        )
        res.counts["passes"] = passes
        return res


# --------------------------------------------------------------------------------------------
# Chance nodes: expectiminimax, Star1, Star2 (max/min form, values from MAX's point of view)
# --------------------------------------------------------------------------------------------


def expectiminimax(
    game: Game,
    state: Any = None,
    *,
    depth: int | None = None,
    order: Order | None = None,
    count_chance: bool = True,
) -> SearchOutcome:
    """Expectiminimax without pruning: max and min nodes as in minimax, chance nodes average
    their outcomes weighted by probability. ``depth`` counts every ply, chance plies included
    (with ``count_chance=False`` only the players' plies, as OpenSpiel counts), and
    ``game.evaluate`` scores the horizon (it must be affine in the win probability)."""
    state = game.initial() if state is None else state
    st = SearchStats()
    moves_of, apply, terminal, utility = game.moves, game.apply, game.is_terminal, game.utility
    to_move, evaluate, outcomes = game.to_move, game.evaluate, game.outcomes
    limit = INF if depth is None else depth
    chance_step = 1 if count_chance else 0

    def value(s: Any, d: float) -> float:
        st.nodes += 1
        if terminal(s):
            st.leaves += 1
            return utility(s)
        if d <= 0:
            st.evaluations += 1
            return evaluate(s)
        p = to_move(s)
        if p == CHANCE:
            return sum(pr * value(apply(s, m), d - chance_step) for m, pr in outcomes(s))
        moves = moves_of(s) if order is None else order(s, moves_of(s))
        if p == MAX:
            return max(value(apply(s, m), d - 1) for m in moves)
        return min(value(apply(s, m), d - 1) for m in moves)

    t0 = time.perf_counter()
    if to_move(state) == CHANCE or terminal(state):
        v, best = value(state, limit), None
    else:
        v, best, _ = _root(game, state, lambda c: value(c, limit - 1), st, order)
    return _finish(
        st,
        t0,
        value=v,
        move=best,
        pv=[] if best is None else [best],
        depth=depth,
        game=game,
        state=state,
    )


def star1(
    game: Game,
    state: Any = None,
    alpha: float | None = None,
    beta: float | None = None,
    *,
    depth: int | None = None,
    count_chance: bool = True,
) -> SearchOutcome:
    """Ballard's Star1 (1983): alpha-beta through chance nodes. With every value within
    ``game.bounds = (L, U)``, after some outcomes are searched the chance value is boxed in
    by taking L or U for the rest; each outcome is searched with the window that would decide
    the chance node, and the node is cut as soon as the box leaves (alpha, beta). Same value
    as :func:`expectiminimax` (Knuth-Moore contract, fail-soft), fewer nodes."""
    return _star(game, state, alpha, beta, depth, probe=False, count_chance=count_chance)


def star2(
    game: Game,
    state: Any = None,
    alpha: float | None = None,
    beta: float | None = None,
    *,
    depth: int | None = None,
    count_chance: bool = True,
) -> SearchOutcome:
    """Ballard's Star2: Star1 plus a probing phase. Before a chance node searches its
    outcomes in full, it searches only the first move of each outcome's position: for a MAX
    position that gives a lower bound, for a MIN position an upper bound, which can cut the
    chance node at once (games like backgammon and Pig, where chance and choice alternate),
    and otherwise tightens the Star1 windows."""
    return _star(game, state, alpha, beta, depth, probe=True, count_chance=count_chance)


def _star(
    game: Game, state: Any, alpha, beta, depth, *, probe: bool, count_chance: bool
) -> SearchOutcome:
    L, U = game.bounds
    state = game.initial() if state is None else state
    alpha = L if alpha is None else alpha
    beta = U if beta is None else beta
    _check_window(alpha, beta)
    st = SearchStats()
    moves_of, apply, terminal, utility = game.moves, game.apply, game.is_terminal, game.utility
    to_move, evaluate, outcomes = game.to_move, game.evaluate, game.outcomes
    limit = INF if depth is None else depth
    chance_step = 1 if count_chance else 0
    best_at_root: list[Any] = [None]

    def search(s: Any, a: float, b: float, d: float, root: bool = False) -> float:
        st.nodes += 1
        if terminal(s):
            st.leaves += 1
            return utility(s)
        if d <= 0:
            st.evaluations += 1
            return evaluate(s)
        p = to_move(s)
        if p == CHANCE:
            return chance(s, a, b, d)
        if p == MAX:
            v = -INF
            for m in moves_of(s):
                x = search(apply(s, m), a if a > v else v, b, d - 1)
                if x > v:
                    v = x
                    if root:
                        best_at_root[0] = m
                    if v >= b:
                        st.cutoffs += 1
                        return v
            return v
        v = INF
        for m in moves_of(s):
            x = search(apply(s, m), a, b if b < v else v, d - 1)
            if x < v:
                v = x
                if root:
                    best_at_root[0] = m
                if v <= a:
                    st.cutoffs += 1
                    return v
        return v

    def _probe(children, probs, lo, hi, a, b, d, side):
        """Star2's probing phase for one side. side MAX: search only the first move of each
        outcome whose position is MAX's, for lower bounds, as long as a cut at beta is still
        possible (the outcomes not yet probed counted at U); returns the cut value, or None
        once the cut has become impossible. side MIN: the mirror image (upper bounds, alpha)."""
        done, rest_p = 0.0, 1.0
        for i, c in enumerate(children):
            p = probs[i]
            rest_p -= p
            if side == MAX:
                need = (b - done - rest_p * U) / p  # the least lower bound this one must give
                if need > U:
                    return None
                if need > lo[i]:
                    if terminal(c) or to_move(c) != MAX:
                        return None
                    r = search(apply(c, moves_of(c)[0]), lo[i], need, d - chance_step - 1)
                    lo[i] = max(lo[i], min(r, U))  # exact or a lower bound: either way <= V
                    if r < need:
                        return None
                done += p * lo[i]
            else:
                need = (a - done - rest_p * L) / p  # the greatest upper bound that still cuts
                if need < L:
                    return None
                if need < hi[i]:
                    if terminal(c) or to_move(c) != MIN:
                        return None
                    r = search(apply(c, moves_of(c)[0]), need, hi[i], d - chance_step - 1)
                    hi[i] = min(hi[i], max(r, L))
                    if r > need:
                        return None
                done += p * hi[i]
        return done

    def chance(s: Any, a: float, b: float, d: float) -> float:
        outs = outcomes(s)
        children = [apply(s, m) for m, _ in outs]
        probs = [pr for _, pr in outs]
        lo = [L] * len(outs)
        hi = [U] * len(outs)
        if probe and d - chance_step > 0:
            cut = _probe(children, probs, lo, hi, a, b, d, MAX)
            if cut is None:
                cut = _probe(children, probs, lo, hi, a, b, d, MIN)
            if cut is not None:
                st.chance_cutoffs += 1
                return cut
        done = 0.0  # sum of p * value over the outcomes searched so far
        rest_lo = sum(p * x for p, x in zip(probs, lo, strict=True))
        rest_hi = sum(p * x for p, x in zip(probs, hi, strict=True))
        for i, c in enumerate(children):
            p = probs[i]
            rest_lo -= p * lo[i]
            rest_hi -= p * hi[i]
            A = (a - done - rest_hi) / p  # this outcome at most A: the node is at most alpha
            B = (b - done - rest_lo) / p  # at least B: the node is at least beta
            if hi[i] <= A:
                st.chance_cutoffs += 1
                return done + p * hi[i] + rest_hi
            if lo[i] >= B:
                st.chance_cutoffs += 1
                return done + p * lo[i] + rest_lo
            v = search(c, max(A, lo[i]), min(B, hi[i]), d - chance_step)
            if v <= A:
                st.chance_cutoffs += 1
                return done + p * v + rest_hi
            if v >= B:
                st.chance_cutoffs += 1
                return done + p * v + rest_lo
            done += p * v
        return done

    t0 = time.perf_counter()
    v = search(state, alpha, beta, limit, True)
    m = best_at_root[0]
    return _finish(
        st, t0, value=v, move=m, pv=[] if m is None else [m], depth=depth, game=game, state=state
    )


# --------------------------------------------------------------------------------------------
# Exact solving: memoised negamax and retrograde analysis
# --------------------------------------------------------------------------------------------


def solve(game: Game, state: Any = None) -> SearchOutcome:
    """The exact value of ``state`` (MAX's point of view) by memoised minimax: each distinct
    position (by ``game.key``) is solved once. ``counts['positions']`` is how many."""
    state = game.initial() if state is None else state
    st = SearchStats()
    memo: dict[Hashable, float] = {}
    moves_of, apply, terminal, utility = game.moves, game.apply, game.is_terminal, game.utility
    to_move, key = game.to_move, game.key

    def value(s: Any) -> float:
        k = key(s)
        v = memo.get(k)
        if v is not None:
            st.tt_hits += 1
            return v
        st.nodes += 1
        if terminal(s):
            st.leaves += 1
            v = utility(s)
        elif to_move(s) == MAX:
            v = max(value(apply(s, m)) for m in moves_of(s))
        else:
            v = min(value(apply(s, m)) for m in moves_of(s))
        memo[k] = v
        return v

    t0 = time.perf_counter()
    v, best, pv = _root(game, state, value, st, None)
    memo[key(state)] = v
    out = _finish(st, t0, value=v, move=best, pv=pv, game=game, state=state)
    out.counts["positions"] = len(memo)
    return out


@dataclass
class PositionTable(SearchResult):
    """Every position reachable from a start, with its value for the player to move (+1 win,
    -1 loss, 0 draw), the number of plies to the end with best play (win fast, lose slow), and
    a best move. Built by :func:`retrograde`."""

    game: Game | None = None
    keys: list[Hashable] = field(default_factory=list)
    index: dict[Hashable, int] = field(default_factory=dict)
    states: list[Any] = field(default_factory=list)
    values: list[int] = field(default_factory=list)
    distances: list[int] = field(default_factory=list)
    best_moves: list[Any] = field(default_factory=list)

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

    def verify(self) -> bool:
        """Check every entry against the independent memoised minimax of
        :mod:`rompicapo.games.verify` (small games only)."""
        from rompicapo.games.verify import exact_value

        g = self.game
        if g is None:
            raise NotVerifiable("this table does not carry its game: nothing to replay")
        return all(
            _sign(exact_value(g, s)) == v * g.to_move(s)
            for s, v in zip(self.states, self.values, strict=True)
        )


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


@renamed_keywords(max_positions="node_limit")
def retrograde(game: Game, start: Any = None, *, node_limit: int = 5_000_000) -> PositionTable:
    """Retrograde analysis: tabulate every position reachable from ``start``, then work
    backwards from the finished games. A position is won if some move reaches a position lost
    for the opponent, lost when every move reaches a position won for the opponent; the rest
    (including cycles that nobody can force out of) are draws. Uses only the sign of the
    utility (win, draw, loss) and needs no recursion, so it also works on games with cycles."""
    start = game.initial() if start is None else start
    t0 = time.perf_counter()
    key = game.key
    index: dict[Hashable, int] = {key(start): 0}
    states: list[Any] = [start]
    succ: list[list[tuple[Any, int]]] = []
    i = 0
    while i < len(states):  # breadth-first enumeration
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
                    j = index[k] = len(states)
                    states.append(c)
                    if len(states) > node_limit:
                        raise InputError(
                            f"more than node_limit={node_limit:,} positions: too large"
                        )
                children.append((m, j))
        succ.append(children)
        i += 1
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
    best: list[Any] = [None] * n
    for p in range(n):
        if not succ[p]:
            continue
        if value[p] > 0:
            cands = [(dist[c], m) for m, c in succ[p] if resolved[c] and value[c] < 0]
            best[p] = min(cands, key=lambda t: t[0])[1]
        elif value[p] < 0:
            best[p] = max(((dist[c], m) for m, c in succ[p]), key=lambda t: t[0])[1]
        else:
            draws = [m for m, c in succ[p] if value[c] == 0]
            best[p] = draws[0] if draws else succ[p][0][0]
            dist[p] = 0
    table = PositionTable(
        game=game,
        keys=[key(s) for s in states],
        index=index,
        states=states,
        values=value,
        distances=dist,
        best_moves=best,
    )
    table.solve_seconds = time.perf_counter() - t0
    table.counts = {
        "positions": n,
        "wins": sum(1 for v in value if v > 0),
        "losses": sum(1 for v in value if v < 0),
        "draws": sum(1 for v in value if v == 0),
    }
    return table
