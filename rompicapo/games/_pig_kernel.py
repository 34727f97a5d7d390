"""numba kernel: value iteration for the dice game Pig (Neller and Presser, 2004).

``win[i, j, k]`` is the probability that the player to move wins with optimal play when his
score is ``i``, the opponent's ``j`` and his turn total ``k`` (all below ``goal``; states with
``i + k >= goal`` are won: hold). Rolling gives 1/6 the opponent's turn at (j, i, 0) (a 1) and
1/6 each the turn totals k + 2 .. k + 6; holding gives the opponent's turn at (j, i + k, 0).
The states form cycles (two 1s in a row return to the same state), so the values are the fixed
point of these equations, reached by sweeping them in place until no value moves by more
than a tolerance.
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit


@njit(cache=True)
def sweep_totals(goal, high, low, win, roll):
    """Update ``win`` (goal x goal x goal, float64) and ``roll`` (same shape, uint8: 1 where
    rolling is optimal) in place for the states whose score sum lies in ``high`` down to
    ``low``; return the largest change made. Totals ``2 * goal - 2`` down to 0 in slices make
    one sweep: higher sums first, as their values feed the lower ones within the same sweep,
    and a caller can stop between two slices."""
    delta = 0.0
    for total in range(high, low - 1, -1):
        for i in range(max(0, total - goal + 1), min(goal - 1, total) + 1):
            j = total - i
            for k in range(goal - i - 1, -1, -1):
                p_roll = (1.0 - win[j, i, 0]) / 6.0
                for r in range(2, 7):
                    if i + k + r >= goal:
                        p_roll += 1.0 / 6.0
                    else:
                        p_roll += win[i, j, k + r] / 6.0
                if k == 0:
                    p_hold = -1.0  # holding a turn total of 0 only passes: not a move here
                else:
                    p_hold = 1.0 - win[j, i + k, 0]
                if p_roll > p_hold:
                    best = p_roll
                    roll[i, j, k] = 1
                else:
                    best = p_hold
                    roll[i, j, k] = 0
                d = abs(best - win[i, j, k])
                if d > delta:
                    delta = d
                win[i, j, k] = best
    return delta


def empty_tables(goal: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((goal, goal, goal)), np.zeros((goal, goal, goal), dtype=np.uint8)
