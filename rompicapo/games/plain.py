"""The plain searches: minimax, alpha-beta (max/min form), negamax, and memoised minimax.

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

Every search here takes the run contract's ``time_limit``, ``node_limit`` and ``progress``; a
search they stop returns ``complete=False`` with ``stopped`` saying why, and keeps the best
root move it had finished.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from rompicapo.common import ProgressCallback
from rompicapo.games._limits import Limits
from rompicapo.games.chance import expectiminimax
from rompicapo.games.game import MAX, Game
from rompicapo.games.outcome import (
    INF,
    Order,
    SearchOutcome,
    SearchStats,
    best_child,
    check_window,
    run_search,
)

__all__ = ["alphabeta", "minimax", "negamax", "solve"]


def minimax(
    game: Game,
    state: Any = None,
    *,
    depth: int | None = None,
    order: Order | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> SearchOutcome:
    """Plain minimax (max/min form): every line to the end, or to ``depth`` plies where
    ``game.evaluate`` stands in for the rest. On the empty tic-tac-toe board it visits all
    255,168 complete games (``stats.leaves``). Returns the value for MAX and a best move.
    (It is [`expectiminimax()`][rompicapo.games.expectiminimax], which also handles chance nodes.)

    ```pycon
    >>> from rompicapo.games import TicTacToe
    >>> cut = minimax(TicTacToe(), node_limit=1000)
    >>> cut.complete, cut.stopped, cut.counts["nodes"]
    (False, 'nodes', 1000)

    ```"""
    return expectiminimax(
        game,
        state,
        depth=depth,
        order=order,
        time_limit=time_limit,
        node_limit=node_limit,
        progress=progress,
    )


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
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> SearchOutcome:
    """Alpha-beta in max/min form (values from MAX's point of view) with window
    ``(alpha, beta)``, fail-soft or fail-hard (see the module docstring for the contract).

    ``order`` is a move-ordering hook; ``depth`` limits the search, ``game.evaluate`` scoring
    the horizon. With window (-2, 2) and cells scanned 0..8 the empty tic-tac-toe board costs
    7,330 terminal evaluations; with order [4,0,2,6,8,1,3,5,7], 2,893.
    """
    check_window(alpha, beta)
    limits = Limits(time_limit, node_limit, progress)
    state = game.initial() if state is None else state
    search, counts, best = _maxmin_alphabeta(game, order, limits, fail_soft)
    limit = INF if depth is None else depth
    return run_search(
        limits,
        lambda: search(state, alpha, beta, limit, True),
        counts,
        best,
        game=game,
        state=state,
        depth=depth,
    )


def _maxmin_alphabeta(
    game: Game, order: Order | None, limits: Limits, fail_soft: bool
) -> tuple[Callable[..., float], Callable[[], SearchStats], list[Any]]:
    """The recursive alpha-beta of [`alphabeta()`][rompicapo.games.alphabeta] (fail-soft or
    fail-hard), a function returning its counts, and the cell holding the best root move so far."""
    moves_of, apply, terminal, utility = game.moves, game.apply, game.is_terminal, game.utility
    to_move, evaluate, check = game.to_move, game.evaluate, limits.check
    best_at_root: list[Any] = [None]
    # plain local counters: the hot loop updates them faster than attributes of a SearchStats
    nodes = leaves = evaluations = cutoffs = 0
    check_at = limits.first()

    def soft(s: Any, a: float, b: float, d: float, root: bool) -> float:
        nonlocal nodes, leaves, evaluations, cutoffs, check_at
        if nodes >= check_at:
            check_at = check(nodes)
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
        nonlocal nodes, leaves, evaluations, cutoffs, check_at
        if nodes >= check_at:
            check_at = check(nodes)
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

    def counts() -> SearchStats:
        return SearchStats(nodes=nodes, leaves=leaves, evaluations=evaluations, cutoffs=cutoffs)

    return (soft if fail_soft else hard), counts, best_at_root


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
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> SearchOutcome:
    """Alpha-beta in negamax form: every value is from the point of view of the player to
    move, and a child's value is negated. Same window contract as
    [`alphabeta()`][rompicapo.games.alphabeta].

    ``quiescence(state)`` (with ``depth``) lists the "noisy" moves to keep searching at the
    horizon (captures, threats): there the side to move may stand pat on ``game.evaluate`` or
    try a noisy move, so the horizon does not fall in the middle of an exchange.
    """
    check_window(alpha, beta)
    limits = Limits(time_limit, node_limit, progress)
    state = game.initial() if state is None else state
    search, counts, best = _negamax(game, order, quiescence, limits, fail_soft)
    limit = INF if depth is None else depth
    return run_search(
        limits,
        lambda: search(state, alpha, beta, limit, True),
        counts,
        best,
        game=game,
        state=state,
        depth=depth,
        perspective="mover",
    )


def _negamax(
    game: Game,
    order: Order | None,
    quiescence: Callable[[Any], Sequence[Any]] | None,
    limits: Limits,
    fail_soft: bool,
) -> tuple[Callable[..., float], Callable[[], SearchStats], list[Any]]:
    """The recursive negamax of [`negamax()`][rompicapo.games.negamax], a function returning its
    counts, and the cell holding the best root move so far."""
    moves_of, apply, terminal, utility = game.moves, game.apply, game.is_terminal, game.utility
    to_move, evaluate, check = game.to_move, game.evaluate, limits.check
    best_at_root: list[Any] = [None]
    # plain local counters: the hot loop updates them faster than attributes of a SearchStats
    nodes = leaves = evaluations = cutoffs = 0
    check_at = limits.first()

    def qsearch(s: Any, a: float, b: float) -> float:
        nonlocal nodes, leaves, evaluations, cutoffs, check_at
        if nodes >= check_at:
            check_at = check(nodes)
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
        nonlocal nodes, leaves, evaluations, cutoffs, check_at
        if nodes >= check_at:
            check_at = check(nodes)
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

    def counts() -> SearchStats:
        return SearchStats(nodes=nodes, leaves=leaves, evaluations=evaluations, cutoffs=cutoffs)

    return search, counts, best_at_root


# --------------------------------------------------------------------------------------------
# Exact solving: memoised minimax
# --------------------------------------------------------------------------------------------


def solve(
    game: Game,
    state: Any = None,
    *,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> SearchOutcome:
    """The exact value of ``state`` (MAX's point of view) by memoised minimax: each distinct
    position (by ``game.key``) is solved once. ``counts['positions']`` is how many."""
    limits = Limits(time_limit, node_limit, progress)
    state = game.initial() if state is None else state
    st = SearchStats()
    memo: dict[Hashable, float] = {}
    moves_of, apply, terminal, utility = game.moves, game.apply, game.is_terminal, game.utility
    to_move, key, check = game.to_move, game.key, limits.check
    check_at = limits.first()
    best: list[Any] = [None]

    def value(s: Any) -> float:
        nonlocal check_at
        k = key(s)
        v = memo.get(k)
        if v is not None:
            st.tt_hits += 1
            return v
        if st.nodes >= check_at:
            check_at = check(st.nodes)
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

    def root() -> float:
        if terminal(state):
            return value(state)
        st.nodes += 1
        v = best_child(game, state, None, value, best)
        memo[key(state)] = v
        return v

    out = run_search(limits, root, st, best, game=game, state=state)
    out.counts["positions"] = len(memo)
    return out
