"""Pig: the optimal policy by value iteration against Neller and Presser's published values,
and the chance-node searches against it."""

from __future__ import annotations

import math

import pytest

from rompicapo.common import InputError
from rompicapo.games import expectiminimax, star1, star2
from rompicapo.games.game import MAX
from rompicapo.games.pig import Pig, solve_pig


@pytest.fixture(scope="module")
def pig100():
    return solve_pig(100)


def test_first_player_wins_53_06_percent(pig100):
    # Neller and Presser, "Optimal Play of the Dice Game Pig" (UMAP Journal 25(1), 2004):
    # with optimal play on both sides the first player wins with probability 0.5306
    assert round(pig100.first_player_win, 4) == 0.5306
    assert pig100.verify()


def test_the_41_49_exception(pig100):
    # Neller and Presser's optimal policy at scores 41 (mover) and 49 is not a simple
    # threshold: hold at turn totals 22..26 but roll again at 27 (their example, as retold by
    # the "possiblywrong" blog, 2014, "Pig Puzzle Solution")
    assert [pig100.should_roll(41, 49, k) for k in range(20, 29)] == [
        True, True, False, False, False, False, False, True, False
    ]  # fmt: skip


def test_winning_now_means_hold(pig100):
    assert not pig100.should_roll(90, 0, 10)
    with pytest.raises(InputError):
        pig100.should_roll(-1, 0, 0)
    with pytest.raises(InputError):
        solve_pig(1)


class ExactPig(Pig):
    """Pig whose horizon evaluation is the exact value from the value-iteration table: then a
    depth-limited expectiminimax must return the exact value at the root."""

    def __init__(self, goal, table):
        super().__init__(goal)
        self.table = table

    def _mover_win(self, i, j, k):
        return 1.0 if i + k >= self.goal else float(self.table.win[i, j, k])

    def evaluate(self, state):
        (s0, s1), k, mover, rolling = state
        i, j = (s0, s1) if mover == MAX else (s1, s0)
        if rolling:  # the average over the die, as the chance node would take it
            p = (1 - self._mover_win(j, i, 0)) / 6
            p += sum(self._mover_win(i, j, k + r) for r in range(2, 7)) / 6
        else:
            p = self._mover_win(i, j, k)
        return p if mover == MAX else 1 - p


def test_chance_searches_agree_with_value_iteration():
    table = solve_pig(10)
    game = ExactPig(10, table)
    exact = table.first_player_win  # 0.7094... for goal 10
    for depth in (3, 6):
        values = [f(game, depth=depth).value for f in (expectiminimax, star1, star2)]
        assert all(math.isclose(v, exact, abs_tol=1e-9) for v in values), values


def test_star1_prunes_pig():
    # the heuristic evaluation; all three agree, Star1 visits fewer nodes
    game = Pig(10)
    full = expectiminimax(game, depth=12)
    s1 = star1(game, depth=12)
    s2 = star2(game, depth=12)
    assert math.isclose(full.value, s1.value) and math.isclose(full.value, s2.value)
    assert s1.stats.nodes < full.stats.nodes


def test_a_time_limit_stops_between_two_slices_of_a_sweep(capsys):
    from rompicapo.cli import main

    r = solve_pig(400, time_limit=0.3)  # 159+ sweeps of 32 M states: minutes of work
    assert (r.complete, r.stopped) == (False, "time") and r.counts["sweeps"] < 159
    assert "not yet the optimum" in r.report() or "before the first sweep" in r.report()
    assert r.to_dict()["stopped"] == "time"
    done = solve_pig(20, time_limit=60)
    assert done.complete and done.stopped is None and done.verify()
    # the command takes --time like every long command
    assert main(["game", "pig", "--goal", "20", "--time", "60", "--json"]) == 0
    assert '"complete": true' in capsys.readouterr().out
