"""The dice game Pig: race to ``goal`` points. On his turn a player rolls a die as often as he
likes; a 1 ends the turn with nothing banked, anything else adds to the turn total; holding
banks the turn total and passes the turn.

- [`solve_pig()`][rompicapo.games.solve_pig]: the optimal policy and win probabilities by value
  iteration (Neller and Presser, "Optimal Play of the Dice Game Pig", UMAP Journal 25(1), 2004): for
  goal 100 the first player wins with probability 0.5306 when both play optimally;
- [`Pig`][rompicapo.games.Pig]: the game with its chance nodes for the search library
  (expectiminimax, Star1, Star2), values being MAX's (the first player's) probability of winning.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    Progress,
    ProgressCallback,
    SearchResult,
    check_int,
    check_time_limit,
    jit_warmup,
)
from rompicapo.games import _pig_kernel as K
from rompicapo.games.game import CHANCE, MAX, MIN, Game

__all__ = ["Pig", "PigSolution", "check_pig_state", "solve_pig"]

# Value iteration stops when a sweep moves no value by more than this: far below any
# probability one would print, and reached in about 160 sweeps for goal 100.
TOLERANCE = 1e-13


@dataclass
class PigSolution(SearchResult):
    """``win[i, j, k]``: the mover's probability of winning at scores (i, j), turn total k;
    ``roll[i, j, k]``: True where rolling is optimal (else hold)."""

    goal: int = 100
    complete: bool = True
    stopped: str | None = None  # "time" or "interrupted": the values have not settled
    win: np.ndarray = field(default_factory=lambda: np.zeros(0))
    roll: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))

    @property
    def first_player_win(self) -> float:
        return float(self.win[0, 0, 0])

    def should_roll(self, my_score: int, opponent_score: int, turn_total: int) -> bool:
        i, j, k = check_pig_state(self.goal, my_score, opponent_score, turn_total)
        if i + k >= self.goal:
            return False
        return bool(self.roll[i, j, k])

    def hold_at(self, my_score: int, opponent_score: int) -> list[int]:
        """The turn totals at which the optimal player holds, for these scores."""
        i, j = my_score, opponent_score
        return [k for k in range(1, self.goal - i) if not self.roll[i, j, k]]

    # the tables have goal**3 entries: to_dict() gives the answer, not the tables
    _dict_exclude = ("win", "roll")

    def _dict_extra(self) -> dict:
        return {"first_player_win": self.first_player_win}

    def report(self) -> str:
        sweeps = f"{self.counts.get('sweeps', 0)} sweeps, {self.solve_seconds:.2f} s"
        if self.stopped is not None:
            change = self.counts.get("largest_change")
            if change is None:
                return f"Pig to {self.goal}: stopped ({self.stopped}) before the first sweep ended"
            return (
                f"Pig to {self.goal}: stopped ({self.stopped}) after {sweeps}, before the values "
                f"settled (largest change in the last sweep {change:.1e}); the first player's "
                f"win probability so far {self.first_player_win:.6f}, not yet the optimum"
            )
        return (
            f"Pig to {self.goal}: the first player wins with probability "
            f"{self.first_player_win:.6f} under optimal play ({sweeps})"
        )

    def advice(self, my_score: int, opponent_score: int, turn_total: int) -> str:
        """Roll or hold at these scores, with the win probability, in words."""
        i, j, k = my_score, opponent_score, turn_total
        what = "roll" if self.should_roll(i, j, k) else "hold"
        p = 1.0 if i + k >= self.goal else float(self.win[i, j, k])
        return (
            f"at {i}:{j} with turn total {k}: {what} (win probability {p:.4f})\n"
            f"holds at turn totals {self.hold_at(i, j)[:10]} ... for these scores"
        )

    def verify(self) -> bool:
        """The table satisfies the optimality equations (independent code in verify.py)."""
        from rompicapo.games.verify import pig_residual

        return pig_residual(self.goal, self.win, self.roll) < 1e-9


def check_pig_state(goal: int, my_score: int, opponent_score: int, turn_total: int):
    """The state ``(my_score, opponent_score, turn_total)`` checked against ``goal``."""
    i, j, k = (
        check_int(v, n)
        for v, n in zip(
            (my_score, opponent_score, turn_total),
            ("my score", "opponent score", "turn total"),
            strict=True,
        )
    )
    if not (0 <= i < goal and 0 <= j < goal and 0 <= k <= goal):
        raise InputError(f"scores must be 0..{goal - 1} and the turn total 0..{goal}")
    return i, j, k


def solve_pig(
    goal: int = 100,
    *,
    time_limit: float | None = None,
    progress: ProgressCallback | None = None,
) -> PigSolution:
    """Optimal play of Pig to ``goal`` by value iteration (numba).

    The tables are swept one sweep per kernel call, so ``time_limit`` (seconds of wall clock) and
    Ctrl-C stop between two sweeps: the result then has ``complete=False``, ``stopped`` saying why,
    and values not yet converged (``counts["largest_change"]`` says how far). ``progress`` receives
    a [`ProgressEvent`][rompicapo.common.ProgressEvent] per sweep (throttled), its ``done`` the
    sweeps made.
    """
    goal = check_int(goal, "goal", minimum=2, maximum=400)
    deadline = Deadline(check_time_limit(time_limit))
    events = Progress(progress, unit="sweeps")
    compile_seconds = jit_warmup("games.pig", lambda: K.sweep_totals(3, 4, 0, *K.empty_tables(3)))
    win, roll = K.empty_tables(goal)
    # a slice of score sums per kernel call, about a million states: tens of milliseconds
    per_call = max(1, 2_000_000 // (goal * goal))
    t0 = time.perf_counter()
    sweeps, delta, stopped = 0, float("inf"), None
    try:
        while delta >= TOLERANCE:
            sweep_delta = 0.0
            for high in range(2 * goal - 2, -1, -per_call):
                if deadline.expired():
                    stopped = "time"
                    break
                low = max(0, high - per_call + 1)
                sweep_delta = max(sweep_delta, K.sweep_totals(goal, high, low, win, roll))
            if stopped is not None:
                break
            sweeps, delta = sweeps + 1, sweep_delta
            events.update(sweeps, counts={"sweeps": sweeps}, message=f"change {delta:.1e}")
    except KeyboardInterrupt:
        stopped = "interrupted"
    out = PigSolution(goal=goal, win=win, roll=roll.view(bool))  # 0 or 1: no copy
    out.complete, out.stopped = stopped is None, stopped
    out.solve_seconds = time.perf_counter() - t0
    out.compile_seconds = compile_seconds
    out.counts = {"sweeps": sweeps, "states": goal * goal * (goal + 1) // 2}
    if np.isfinite(delta):  # none before the first sweep
        out.counts["largest_change"] = float(delta)  # type: ignore[assignment]
    events.finish(counts={"sweeps": sweeps})
    return out


class Pig(Game):
    """Pig as a [`Game`][rompicapo.games.Game] with chance nodes. A state is ``(scores, turn_total,
    mover, rolling)``: ``scores`` of (MAX, MIN), the mover's turn total, the mover (MAX or MIN), and
    whether a die is in the air (a chance node). Moves: ``"roll"``, ``"hold"`` (with a turn total
    above 0); die outcomes 1..6. Reaching the goal ends the game; the utility is 1 when MAX wins, 0
    when MIN does, so values are MAX's probability of winning."""

    bounds = (0.0, 1.0)

    def __init__(self, goal: int = 100) -> None:
        if goal < 2:
            raise InputError(f"goal must be at least 2, got {goal}")
        self.goal = goal
        self.name = f"pig to {goal}"

    def initial(self):
        return ((0, 0), 0, MAX, False)

    def to_move(self, state) -> int:
        return CHANCE if state[3] else state[2]

    def moves(self, state) -> list[Any]:
        if state[3]:
            return list(range(1, 7))
        return ["roll", "hold"] if state[1] > 0 else ["roll"]

    def outcomes(self, state):
        return [(r, 1 / 6) for r in range(1, 7)]

    def apply(self, state, move):
        scores, k, mover, rolling = state
        other = MIN if mover == MAX else MAX
        if rolling:
            if move == 1:
                return (scores, 0, other, False)
            return (scores, k + move, mover, False)
        if move == "roll":
            return (scores, k, mover, True)
        idx = 0 if mover == MAX else 1
        banked = list(scores)
        banked[idx] += k
        return (tuple(banked), 0, other, False)

    def is_terminal(self, state) -> bool:
        scores, k, mover, _ = state
        return scores[0 if mover == MAX else 1] + k >= self.goal or max(scores) >= self.goal

    def utility(self, state) -> float:
        scores, k, mover, _ = state
        total = scores[0 if mover == MAX else 1] + k
        if total >= self.goal:
            return 1.0 if mover == MAX else 0.0
        return 1.0 if scores[0] >= self.goal else 0.0

    def evaluate(self, state) -> float:
        """A rough win probability for MAX: the score lead (turn total counted at half its
        value, as it may still be lost) over the goal, squeezed into (0, 1). Affine in the
        lead, so averaging at chance nodes is meaningful."""
        scores, k, mover, _ = state
        lead = scores[0] - scores[1] + (k / 2 if mover == MAX else -k / 2)
        return min(1.0, max(0.0, 0.5 + lead / (2 * self.goal)))

    def render(self, state) -> str:
        scores, k, mover, _ = state
        who = "you (MAX)" if mover == MAX else "engine (MIN)"
        return f"scores {scores[0]} : {scores[1]}   turn total {k}   to move: {who}"
