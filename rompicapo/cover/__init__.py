"""Exact cover: Knuth's Algorithms X, C and M on dancing links and dancing cells in numba,
and what they solve.

- [`Problem`][rompicapo.cover.Problem]: items (primary with optional multiplicity bounds, secondary
  with optional colours) and options; [`read_dlx()`][rompicapo.cover.read_dlx] /
  [`parse_dlx()`][rompicapo.cover.parse_dlx] / [`format_dlx()`][rompicapo.cover.format_dlx] for
  Knuth's DLX1-DLX3 text format.
- `solve()` (first, at most k, all, random with a seed, time and node limits),
  [`count()`][rompicapo.cover.count] (exact, in parallel on all cores by default, on threads or a
  Dask ``scheduler``), [`iter_solutions()`][rompicapo.cover.iter_solutions] (lazy). Each takes a
  [`Problem`][rompicapo.cover.Problem] or a ``.dlx`` file name and the run contract's keywords
  (``time_limit``, ``node_limit``, ``limit``, ``seed``, ``jobs``, ``scheduler``, ``progress``),
  checked before any work, the memory of the search arrays included
  ([`plan_engine()`][rompicapo.cover.plan_engine]). Results carry Knuth's counts, ``to_dict()``,
  ``report()`` and ``verify()``.
- Applications: [`sudoku`][rompicapo.cover.sudoku] (``solve_file``, ``rate_file``, ``generate``),
  `queens()`, [`langford()`][rompicapo.cover.langford], [`pack()`][rompicapo.cover.pack]
  (polyominoes; [`load_pieces()`][rompicapo.cover.load_pieces],
  [`load_region()`][rompicapo.cover.load_region] read what a person gives).

```pycon
>>> from rompicapo.cover import queens
>>> queens(8).count
92

```"""

from rompicapo.cover import sudoku
from rompicapo.cover.polyomino import Packing, PackingResult, load_pieces, load_region, pack
from rompicapo.cover.problem import Problem, ProblemArrays, format_dlx, parse_dlx, read_dlx
from rompicapo.cover.queens import (
    LangfordResult,
    QueensResult,
    iter_queens,
    langford,
    langford_problem,
    queens,
    queens_problem,
)
from rompicapo.cover.solve import CoverResult, count, iter_solutions, plan_engine, solve, split

__all__ = [
    "CoverResult",
    "LangfordResult",
    "Packing",
    "PackingResult",
    "Problem",
    "ProblemArrays",
    "QueensResult",
    "count",
    "format_dlx",
    "iter_queens",
    "iter_solutions",
    "langford",
    "langford_problem",
    "load_pieces",
    "load_region",
    "pack",
    "parse_dlx",
    "plan_engine",
    "queens",
    "queens_problem",
    "read_dlx",
    "solve",
    "split",
    "sudoku",
]
