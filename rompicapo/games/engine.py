"""The engine: negamax with a transposition table, move ordering, iterative deepening, MTD(f).

Values are from the point of view of the player to move at the root; the window contract is
the one of `rompicapo.games.plain`. Every entry point takes ``time_limit``, ``node_limit``
and ``progress``; for iterative deepening and MTD(f) they
cover all the passes together.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from rompicapo.common import ProgressCallback, check_int, renamed_keywords
from rompicapo.games._limits import Limits, keyword_only
from rompicapo.games.game import Game
from rompicapo.games.outcome import INF, Order, SearchOutcome, SearchStats, check_window, finish

__all__ = ["EXACT", "LOWER", "UPPER", "Engine"]

EXACT, LOWER, UPPER = 0, 1, 2
"""The kind of value a transposition-table entry holds: exact, a lower or an upper bound."""

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
      [`negamax()`][rompicapo.games.negamax]);
    - singular extensions (``singular=margin``): when the table's move is better than every
      other move by ``margin`` (checked by null-window searches of the others at half depth),
      that move is searched one ply deeper, so forced lines are not cut off at the horizon;
    - iterative deepening with a time limit, MTD(f) on null windows, principal variations
      read back from the table.

    Values are from the point of view of the player to move at the root. The table survives
    between calls (that is what iterative deepening and MTD(f) feed on);
    [`clear()`][rompicapo.games.engine.Engine.clear] empties
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
        self._horizon_hit = False
        # the run's limits; the nodes of earlier passes (the limits count the whole run); the
        # node count of this pass at which they are checked next; the best root move so far
        self._limits = Limits()
        self._offset = 0
        self._check_at = self._limits.first()
        self._root_best: Any = None

    @property
    def exact(self) -> bool:
        """True when the last search met no depth horizon: the value it returned (if it
        finished) is exact, not an estimate."""
        return not self._horizon_hit

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

    def _count(self) -> None:
        """One more node, after checking the run's limits when a check is due."""
        st = self.stats
        if st.nodes >= self._check_at:
            self._check_at = self._limits.check(st.nodes + self._offset) - self._offset
        st.nodes += 1

    def _qsearch(self, s: Any, a: float, b: float) -> float:
        game, st = self.game, self.stats
        self._count()
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
        if st.nodes >= self._check_at:
            self._check_at = self._limits.check(st.nodes + self._offset) - self._offset
        st.nodes += 1
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
                if ply == 0:
                    self._root_best = m
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

    # -- the entry points ----------------------------------------------------------------------

    def search(
        self,
        state: Any = None,
        depth: int | None = None,
        alpha: float = -INF,
        beta: float = INF,
        *,
        time_limit: float | None = None,
        node_limit: int | None = None,
        progress: ProgressCallback | None = None,
    ) -> SearchOutcome:
        """One fail-soft search of ``state`` to ``depth`` plies (None: to the end) with window
        ``(alpha, beta)``. Raises nothing when a limit stops it: returns ``complete=False``,
        ``value`` None and the best root move finished so far."""
        check_window(alpha, beta)
        limits = Limits(time_limit, node_limit, progress)
        out = self._pass(state, depth, alpha, beta, limits, 0)
        limits.finish(out.counts, out.stopped)
        return out

    def _pass(
        self,
        state: Any,
        depth: int | None,
        alpha: float,
        beta: float,
        limits: Limits,
        offset: int,
    ) -> SearchOutcome:
        """One search of a run whose earlier passes visited ``offset`` nodes."""
        game = self.game
        state = game.initial() if state is None else state
        self.stats = SearchStats()
        self._limits, self._offset = limits, offset
        self._check_at = limits.due - offset
        self._horizon_hit = False
        self._root_best = None
        t0 = time.perf_counter()
        d = INF if depth is None else depth
        self._root_depth = d
        v, stopped = limits.run(lambda: self._search(state, alpha, beta, d, 0))
        if stopped is not None:
            pv = [] if self._root_best is None else [self._root_best]
        else:
            pv = self.principal_variation(state, 256 if depth is None else depth)
            if not pv and not game.is_terminal(state):
                # no table: fall back to a best move found by a 1-ply look-ahead
                pv = self._best_by_children(state, d)
        return finish(
            self.stats,
            t0,
            None,
            stopped,
            value=v,
            move=pv[0] if pv else None,
            pv=pv,
            depth=depth,
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

    @keyword_only("depth", "time_limit", kept=2)
    @renamed_keywords(max_depth="depth")
    def iterative_deepening(
        self,
        state: Any = None,
        *,
        depth: int | None = 64,
        time_limit: float | None = None,
        node_limit: int | None = None,
        progress: ProgressCallback | None = None,
    ) -> SearchOutcome:
        """Search to depth 1, 2, ... ``depth`` (None: until a pass is exact), each pass ordering
        moves with the table and history the previous one left. Stops early when a pass
        reached no horizon (the value is then exact); returns the deepest complete pass
        (``depth`` says which) with the counts of all passes added up. A limit that stops a
        pass keeps the pass before it (``complete=False``, ``stopped`` says which limit).

        ``max_depth=`` is the old name of ``depth=`` (deprecated)."""
        game = self.game
        state = game.initial() if state is None else state
        depth = None if depth is None else check_int(depth, "depth", minimum=1)
        limits = Limits(time_limit, node_limit, progress)
        total = SearchStats()
        t0 = time.perf_counter()
        best: SearchOutcome | None = None
        stopped = None
        d = 0
        while depth is None or d < depth:
            d += 1
            if best is not None and limits.deadline.expired():
                stopped = "time"
                break
            out = self._pass(state, d, -INF, INF, limits, total.nodes)
            total.add(out.stats)
            if not out.complete:
                stopped = out.stopped
                if best is None:  # stopped before depth 1 was done: the partial pass
                    best = out
                break
            best = out
            if not self._horizon_hit:
                break
        assert best is not None
        best.stats = total
        best.counts = total.to_dict()
        best.solve_seconds = time.perf_counter() - t0
        best.complete, best.stopped = stopped is None, stopped
        limits.finish(best.counts, stopped)
        return best

    def mtdf(
        self,
        state: Any = None,
        guess: float = 0,
        depth: int | None = None,
        step: float = 1,
        *,
        time_limit: float | None = None,
        node_limit: int | None = None,
        progress: ProgressCallback | None = None,
    ) -> SearchOutcome:
        """MTD(f) (Plaat et al., 1996): converge on the value with null-window searches
        ``(beta - step, beta)``, each one a bound, the table carrying work between them.
        ``step`` is the spacing of the possible values (1 for integer utilities). A limit that
        stops it leaves ``value`` None (the bounds proven so far are not a value)."""
        game = self.game
        state = game.initial() if state is None else state
        limits = Limits(time_limit, node_limit, progress)
        total = SearchStats()
        t0 = time.perf_counter()
        g, lower, upper, passes, stopped = guess, -INF, INF, 0, None
        while lower < upper:
            beta = g + step if g == lower else g
            out = self._pass(state, depth, beta - step, beta, limits, total.nodes)
            passes += 1
            total.add(out.stats)
            if not out.complete:
                stopped = out.stopped
                break
            g = out.value
            if g < beta:
                upper = g
            else:
                lower = g
        pv = [] if stopped else self.principal_variation(state, 256 if depth is None else depth)
        res = finish(
            total,
            t0,
            limits,
            stopped,
            value=None if stopped else g,
            move=pv[0] if pv else None,
            pv=pv,
            depth=depth,
            perspective="mover",
            game=game,
            state=state,
        )
        res.counts["passes"] = passes
        return res
