"""Blackwood's search for edge-matching puzzles: fill orders, schedules, tables, restarts.

The algorithm is Joshua Blackwood's (the 470 board), reimplemented from the description in the
shared references (``blackwood-algorithm.md``); no code of his or of any GPL repository is used.
In short: fill the cells in a fixed order in which every cell's left and lower neighbours come
earlier, so a cell's candidates are the pre-rotated pieces listed under the key (colour on the
left, colour below); try them in a fixed order that puts pieces with three *heuristic colours*
first (random among equals); require, for the first ~60 % of the order, a growing *quota* of
heuristic sides on the board; from position 201 on allow a slowly growing number of *breaks*
(one mismatched joint per piece, never on the frame); restart from scratch with new random
tie-breaks after a node cap. The deepest and best boards are kept.

Beyond Blackwood: any fill order works (a neighbour filled earlier above or to the right is
checked by the kernel; the frame-first and diagonal orders use it); pinned clues filter the
candidates of the neighbours filled before them (his centre-clue trick, for any clue); identical
pieces are one type with a count; off Eternity II the default searches for perfect boards with a
portfolio of orders and growing node caps. A perfect-board search (no quota, no breaks) runs the
exact kernel (``_kernel.exact_search``): forward checking on the next cell and a fail-first
candidate order (the candidates leaving the next cell fewest options first), ~3x fewer nodes
to the first perfect board than the tables' order on Brendan's sets.

Layers, one module each, all re-exported here (import from this module):

- `blackwood_plan`: `fill_order()`, `quota_schedule()`,
  `break_schedule()` and `heuristic_colours()` make a `Plan` (everything fixed
  for a puzzle, its clues and its [`Settings`][rompicapo.edges.Settings]; `make_plan()`);
- `blackwood_holdback`: Verhaard's end game (``Settings.holdback``): how well each piece
  tiles (`tiling_scores()`) and which pieces wait for the end of the fill order;
- `blackwood_tables`: `build_tables()` draws one set of randomly
  tie-broken candidate tables;
- `blackwood_walker`: which kernel runs a plan (the plan's compiled
  machine and its adaptive filter, `Walker`, on large boards) and how;
- `blackwood_search`: [`search()`][rompicapo.edges.search] runs restarts in this process;
- `blackwood_results`: [`EdgeSearchResult`][rompicapo.edges.EdgeSearchResult], `complete_board()`;
- `blackwood_solve`: `solve()` runs searches on all cores (or a Dask
  cluster) and keeps the best board.
"""

from __future__ import annotations

# Every name the single module had; __all__ below lists the public API.
from rompicapo.edges.blackwood_plan import (  # noqa: F401
    ANY,
    BLACKWOOD_BREAK_INDEXES,
    BLACKWOOD_HEURISTIC_COLOURS,
    BLACKWOOD_HEURISTIC_SIDES,
    BLACKWOOD_MAX_QUOTA_INDEX,
    BLACKWOOD_NODE_CAP,
    BREAKS,
    BUCAS_BREAK_INDEXES,
    CLUE_BREAK_INDEXES,
    CLUE_QUOTA_SCALE,
    KERNELS,
    MAX_CELLS,
    ORDERS,
    PORTFOLIO,
    PORTFOLIO_FIRST_CAP,
    QUOTAS,
    SCORE_BREAK_INDEXES,
    SCORE_EXTRA_BREAKS,
    VALUE_ORDERS,
    Plan,
    Settings,
    blackwood_quota,
    break_schedule,
    fill_order,
    heuristic_colours,
    make_plan,
    quota_schedule,
)
from rompicapo.edges.blackwood_results import (  # noqa: F401
    EdgeSearchResult,
    complete_board,
)
from rompicapo.edges.blackwood_search import (  # noqa: F401
    CHUNK_SECONDS,
    LegacyProgress,
    search,
)
from rompicapo.edges.blackwood_solve import (  # noqa: F401
    OVERRUN_GRACE,
    PARALLEL_MIN_SECONDS,
    solve,
)
from rompicapo.edges.blackwood_tables import (  # noqa: F401
    BREAK_WEIGHT,
    HEUR_WEIGHT,
    TIE_BREAK_RANGE,
    Tables,
    build_tables,
)
from rompicapo.edges.blackwood_walker import (  # noqa: F401
    MACHINE_CELLS,
    MACHINE_MIN_NODES,
    MACHINE_MIN_SECONDS,
    Walker,
    entries_of,
    exact_state,
    prepare_machine,
    run_exact,
    run_kernel,
    walk_state,
)

# The names of earlier releases for what the layers now call without an underscore.
_entries_of = entries_of
_exact_state = exact_state
_prepare_machine = prepare_machine
_run_exact = run_exact
_run_kernel = run_kernel
_walk_state = walk_state

__all__ = [
    "BLACKWOOD_BREAK_INDEXES",
    "BLACKWOOD_HEURISTIC_COLOURS",
    "BLACKWOOD_NODE_CAP",
    "EdgeSearchResult",
    "Plan",
    "Settings",
    "Tables",
    "blackwood_quota",
    "break_schedule",
    "build_tables",
    "fill_order",
    "heuristic_colours",
    "make_plan",
    "quota_schedule",
    "search",
    "solve",
]
