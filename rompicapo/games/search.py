"""The game searches, one module per job (this module gathers them for earlier imports):

- :mod:`rompicapo.games.plain`: minimax, alpha-beta (max/min form), negamax, memoised minimax
  (the Knuth-Moore window contract is stated there);
- :mod:`rompicapo.games.engine`: negamax with a transposition table, killers, history,
  singular extensions, iterative deepening and MTD(f);
- :mod:`rompicapo.games.chance`: expectiminimax, Star1 and Star2;
- :mod:`rompicapo.games.retrograde`: retrograde analysis into a table of every position;
- :mod:`rompicapo.games.outcome`: what they return (:class:`SearchOutcome`), their counts,
  and the move-ordering hook :func:`static_order`;
- ``time_limit``, ``node_limit`` and ``progress`` inside them: the private ``_limits`` module.

Every name here is also in :mod:`rompicapo.games`, the way to import it.
"""

from rompicapo.games.chance import expectiminimax, star1, star2
from rompicapo.games.engine import EXACT, LOWER, UPPER, Engine
from rompicapo.games.outcome import SearchOutcome, SearchStats, static_order
from rompicapo.games.plain import alphabeta, minimax, negamax, solve
from rompicapo.games.retrograde import PositionTable, retrograde

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
