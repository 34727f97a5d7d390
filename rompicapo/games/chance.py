"""Chance nodes: expectiminimax, and Ballard's Star1 and Star2 (max/min form, values from MAX's
point of view).

A chance node's value is the probability-weighted mean of its outcomes'. Star1 and Star2 prune
through chance nodes with the bounds ``game.bounds = (L, U)`` that every value lies within,
and keep the Knuth-Moore window contract of `rompicapo.games.plain` (fail-soft). Every
search takes ``time_limit``, ``node_limit`` and ``progress``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rompicapo.common import ProgressCallback
from rompicapo.games._limits import Limits
from rompicapo.games.game import CHANCE, MAX, MIN, Game
from rompicapo.games.outcome import (
    INF,
    Order,
    SearchOutcome,
    SearchStats,
    best_child,
    check_window,
    run_search,
)

__all__ = ["expectiminimax", "star1", "star2"]


def expectiminimax(
    game: Game,
    state: Any = None,
    *,
    depth: int | None = None,
    order: Order | None = None,
    count_chance: bool = True,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> SearchOutcome:
    """Expectiminimax without pruning: max and min nodes as in minimax, chance nodes average
    their outcomes weighted by probability. ``depth`` counts every ply, chance plies included
    (with ``count_chance=False`` only the players' plies, as OpenSpiel counts), and
    ``game.evaluate`` scores the horizon (it must be affine in the win probability)."""
    limits = Limits(time_limit, node_limit, progress)
    state = game.initial() if state is None else state
    moves_of, apply, terminal, utility = game.moves, game.apply, game.is_terminal, game.utility
    to_move, evaluate, outcomes, check = game.to_move, game.evaluate, game.outcomes, limits.check
    limit = INF if depth is None else depth
    chance_step = 1 if count_chance else 0
    # plain local counters: the hot loop updates them faster than attributes of a SearchStats
    nodes = leaves = evaluations = 0
    check_at = limits.first()
    best: list[Any] = [None]

    def value(s: Any, d: float) -> float:
        nonlocal nodes, leaves, evaluations, check_at
        if nodes >= check_at:
            check_at = check(nodes)
        nodes += 1
        if terminal(s):
            leaves += 1
            return utility(s)
        if d <= 0:
            evaluations += 1
            return evaluate(s)
        p = to_move(s)
        if p == CHANCE:
            return sum(pr * value(apply(s, m), d - chance_step) for m, pr in outcomes(s))
        moves = moves_of(s) if order is None else order(s, moves_of(s))
        if p == MAX:
            return max(value(apply(s, m), d - 1) for m in moves)
        return min(value(apply(s, m), d - 1) for m in moves)

    def root() -> float:
        nonlocal nodes
        if to_move(state) == CHANCE or terminal(state):
            return value(state, limit)
        nodes += 1
        return best_child(game, state, order, lambda c: value(c, limit - 1), best)

    def counts() -> SearchStats:
        return SearchStats(nodes=nodes, leaves=leaves, evaluations=evaluations)

    return run_search(limits, root, counts, best, game=game, state=state, depth=depth)


def star1(
    game: Game,
    state: Any = None,
    alpha: float | None = None,
    beta: float | None = None,
    *,
    depth: int | None = None,
    count_chance: bool = True,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> SearchOutcome:
    """Ballard's Star1 (1983): alpha-beta through chance nodes. With every value within
    ``game.bounds = (L, U)``, after some outcomes are searched the chance value is boxed in
    by taking L or U for the rest; each outcome is searched with the window that would decide
    the chance node, and the node is cut as soon as the box leaves (alpha, beta). Same value
    as [`expectiminimax()`][rompicapo.games.expectiminimax] (Knuth-Moore contract, fail-soft),
    fewer nodes."""
    limits = Limits(time_limit, node_limit, progress)
    return _star(game, state, alpha, beta, depth, limits, probe=False, count_chance=count_chance)


def star2(
    game: Game,
    state: Any = None,
    alpha: float | None = None,
    beta: float | None = None,
    *,
    depth: int | None = None,
    count_chance: bool = True,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> SearchOutcome:
    """Ballard's Star2: Star1 plus a probing phase. Before a chance node searches its
    outcomes in full, it searches only the first move of each outcome's position: for a MAX
    position that gives a lower bound, for a MIN position an upper bound, which can cut the
    chance node at once (games like backgammon and Pig, where chance and choice alternate),
    and otherwise tightens the Star1 windows."""
    limits = Limits(time_limit, node_limit, progress)
    return _star(game, state, alpha, beta, depth, limits, probe=True, count_chance=count_chance)


def _star(
    game: Game,
    state: Any,
    alpha: float | None,
    beta: float | None,
    depth: int | None,
    limits: Limits,
    *,
    probe: bool,
    count_chance: bool,
) -> SearchOutcome:
    L, U = game.bounds
    state = game.initial() if state is None else state
    alpha = L if alpha is None else alpha
    beta = U if beta is None else beta
    check_window(alpha, beta)
    st = SearchStats()
    search, best = _star_search(game, st, limits, probe, 1 if count_chance else 0)
    limit = INF if depth is None else depth
    return run_search(
        limits,
        lambda: search(state, alpha, beta, limit, True),
        st,
        best,
        game=game,
        state=state,
        depth=depth,
    )


def _star_search(
    game: Game, st: SearchStats, limits: Limits, probe: bool, chance_step: int
) -> tuple[Callable[..., float], list[Any]]:
    """The recursive search of Star1 (Star2 with ``probe``), counting into ``st``, and the cell
    holding the best root move so far."""
    moves_of, apply, terminal, utility = game.moves, game.apply, game.is_terminal, game.utility
    to_move, evaluate, check = game.to_move, game.evaluate, limits.check
    best_at_root: list[Any] = [None]
    check_at = limits.first()

    def search(s: Any, a: float, b: float, d: float, root: bool = False) -> float:
        nonlocal check_at
        if st.nodes >= check_at:
            check_at = check(st.nodes)
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

    # defined after search, found by search when it first meets a chance node
    chance = _star_chance(game, st, search, probe, chance_step)
    return search, best_at_root


def _star_chance(
    game: Game, st: SearchStats, search: Callable[..., float], probe: bool, chance_step: int
) -> Callable[[Any, float, float, float], float]:
    """Star1's chance node (with Star2's probing phase first when ``probe``): the outcomes'
    values boxed in by ``game.bounds``, each outcome searched with the window that would
    decide the node, the node cut as soon as the box leaves the window."""
    L, U = game.bounds
    apply, outcomes = game.apply, game.outcomes
    probe_side = _star2_probe(game, search, chance_step) if probe else None

    def chance(s: Any, a: float, b: float, d: float) -> float:
        outs = outcomes(s)
        children = [apply(s, m) for m, _ in outs]
        probs = [pr for _, pr in outs]
        lo = [L] * len(outs)
        hi = [U] * len(outs)
        if probe and d - chance_step > 0:
            cut = probe_side(children, probs, lo, hi, a, b, d, MAX)
            if cut is None:
                cut = probe_side(children, probs, lo, hi, a, b, d, MIN)
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

    return chance


def _star2_probe(
    game: Game, search: Callable[..., float], chance_step: int
) -> Callable[..., float | None]:
    """Star2's probing phase at a chance node, for one side (a function of the outcomes'
    positions, their probabilities, their bounds ``lo``/``hi`` tightened in place, the window,
    the depth and the side)."""
    L, U = game.bounds
    moves_of, apply, terminal, to_move = game.moves, game.apply, game.is_terminal, game.to_move

    def probe_side(children, probs, lo, hi, a, b, d, side) -> float | None:
        """side MAX: search only the first move of each outcome whose position is MAX's, for
        lower bounds, as long as a cut at beta is still possible (the outcomes not yet probed
        counted at U); returns the cut value, or None once the cut has become impossible.
        side MIN: the mirror image (upper bounds, alpha)."""
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

    return probe_side
