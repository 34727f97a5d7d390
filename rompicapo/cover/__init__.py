"""Exact cover: Knuth's Algorithms X, C and M on dancing links and dancing cells in numba,
and what they solve.

- :class:`Problem`: items (primary with optional multiplicity bounds, secondary with optional
  colours) and options; :func:`read_dlx` / :func:`parse_dlx` / :func:`format_dlx` for Knuth's
  DLX1-DLX3 text format.
- :func:`solve` (first, at most k, all, random with a seed, time and node limits),
  :func:`count` (exact, in parallel with ``jobs`` threads or processes, or a Dask
  ``scheduler``),
  :func:`iter_solutions` (lazy). Results carry Knuth's counts and ``verify()``.
- Applications: :mod:`~rompicapo.cover.sudoku`, :func:`queens`, :func:`langford`,
  :func:`pack` (polyominoes).

>>> from rompicapo.cover import queens
>>> queens(8).count
92
"""

from rompicapo.cover.polyomino import Packing, PackingResult, pack
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
from rompicapo.cover.solve import CoverResult, count, iter_solutions, solve, split

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
    "pack",
    "parse_dlx",
    "queens",
    "queens_problem",
    "read_dlx",
    "solve",
    "split",
]
