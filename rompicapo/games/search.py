"""The game searches, one module per job (this module gathers them for earlier imports):

- `rompicapo.games.plain`: minimax, alpha-beta (max/min form), negamax, memoised minimax
  (the Knuth-Moore window contract is stated there);
- `rompicapo.games.engine`: negamax with a transposition table, killers, history,
  singular extensions, iterative deepening and MTD(f);
- `rompicapo.games.chance`: expectiminimax, Star1 and Star2;
- `rompicapo.games.retrograde`: retrograde analysis into a table of every position;
- `rompicapo.games.outcome`: what they return ([`SearchOutcome`][rompicapo.games.SearchOutcome]),
  their counts, and the move-ordering hook [`static_order()`][rompicapo.games.static_order];
- ``time_limit``, ``node_limit`` and ``progress`` inside them: the private ``_limits`` module.

Every name here is also in `rompicapo.games`, the way to import it.
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
