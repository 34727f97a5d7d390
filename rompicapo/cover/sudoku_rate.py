"""Rating Sudoku by search effort (`rate()`, `rate_file()`): the DLX count proves the
solution unique, then the cell-mask kernel `rompicapo.cover._sudoku_kernel` (classic 9x9)
tells whether singles, locked candidates or guesses solve it; its deductions and guess counts
define the labels.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    NotVerifiable,
    SearchResult,
    check_time_limit,
)
from rompicapo.cover.sudoku_model import Sudoku, load_puzzles, problem_and_givens
from rompicapo.cover.sudoku_solve import SudokuResults, warm_up

__all__ = ["Rating", "rate", "rate_file"]


@lru_cache(maxsize=1)
def _tables():
    from rompicapo.cover import _sudoku_kernel

    return _sudoku_kernel.tables()


@dataclass
class Rating(SearchResult):
    """Difficulty by search effort.

    ``label``: ``"unrated"`` (the time limit stopped the uniqueness count), ``"easy"`` (naked
    and hidden singles solve it), ``"medium"`` (also needs locked
    candidates), ``"hard"`` (needs guessing, at most ``_HARD_GUESSES`` guesses with the
    bitboard solver), ``"fiendish"`` (more), ``"invalid"`` (no solution or several).
    ``guesses`` counts the bitboard solver's guesses (9x9) and ``nodes`` the DLX search-tree
    nodes, both while proving uniqueness (counting up to 2).

    ``to_dict()`` (``rompicapo sudoku rate --json``): ``label``, ``guesses``, ``nodes``,
    ``solutions``, plus ``puzzle`` and the common counters.
    """

    label: str = ""
    guesses: int = 0
    nodes: int = 0
    solutions: int = 0
    puzzle: Sudoku | None = None

    _dict_exclude = ("puzzle",)

    def _dict_extra(self) -> dict[str, Any]:
        return {"puzzle": self.puzzle.line() if self.puzzle else None}

    def verify(self) -> bool:
        raise NotVerifiable("a rating is a measure of search effort, not an answer to check")

    def report(self) -> str:
        line = self.puzzle.line() if self.puzzle else "?"
        return f"{line} {self.label} (guesses {self.guesses}, dlx nodes {self.nodes})"


#: Guess counts above this rate "fiendish": the forum's hardest puzzles need hundreds, the
#: 17-clue puzzles a handful, so 50 splits "needs some trial" from "needs a lot".
_HARD_GUESSES = 50


def rate(puzzle: Sudoku | str, *, time_limit: float | None = None) -> Rating:
    """Rate a puzzle's difficulty (see `Rating`). ``time_limit`` (seconds) stops the
    DLX count that proves uniqueness (long only on big, nearly empty grids): the label is
    then ``"unrated"``."""
    deadline = Deadline(check_time_limit(time_limit))
    if isinstance(puzzle, str):
        puzzle = Sudoku.parse(puzzle)
    if not isinstance(puzzle, Sudoku):
        raise InputError(f"puzzle must be a Sudoku or its text, got {type(puzzle).__name__}")
    from rompicapo.cover.solve import solve as cover_solve

    problem, givens = problem_and_givens(puzzle)
    dlx = cover_solve(
        problem, limit=2, keep_solutions=0, givens=givens, time_limit=deadline.time_left()
    )
    nodes = dlx.counts["nodes"]
    if dlx.stopped in ("time", "interrupted"):
        return Rating(
            label="unrated", guesses=0, nodes=nodes, solutions=dlx.count,
            puzzle=puzzle, counts={"nodes": nodes},
        )  # fmt: skip
    if dlx.count != 1:
        return Rating(
            label="invalid",
            guesses=0,
            nodes=nodes,
            solutions=dlx.count,
            puzzle=puzzle,
            counts={"nodes": nodes},
        )
    if not puzzle.is_classic9:
        empty = sum(1 for row in puzzle.grid for v in row if not v)
        # DLX with MRV meets a forced choice at every level when singles suffice
        label = "easy" if nodes <= 2 * empty + 2 else "hard"
        return Rating(
            label=label,
            guesses=0,
            nodes=nodes,
            solutions=1,
            puzzle=puzzle,
            counts={"nodes": nodes},
        )
    from rompicapo.cover import _sudoku_kernel as SK

    warm_up()
    stats = np.zeros(2, np.int64)
    cells = puzzle.array().reshape(81)
    SK.solve_one(cells, 2, np.zeros(81, np.uint8), *_tables(), stats, False)
    if stats[0] == 0:
        return Rating(
            label="easy",
            guesses=0,
            nodes=nodes,
            solutions=1,
            puzzle=puzzle,
            counts={"nodes": nodes, "guesses": 0},
        )
    SK.solve_one(cells, 2, np.zeros(81, np.uint8), *_tables(), stats, True)
    guesses = int(stats[0])
    if guesses == 0:
        label = "medium"
    elif guesses <= _HARD_GUESSES:
        label = "hard"
    else:
        label = "fiendish"
    return Rating(
        label=label,
        guesses=guesses,
        nodes=nodes,
        solutions=1,
        puzzle=puzzle,
        counts={"nodes": nodes, "guesses": guesses},
    )


def rate_file(
    source: str | os.PathLike,
    *,
    box: str | tuple[int, int] | None = None,
    diagonals: bool = False,
    regions: str | None = None,
    time_limit: float | None = None,
) -> Rating | SudokuResults:
    """Rate what ``source`` holds (see `load_puzzles()`): one
    `Rating`, or a `SudokuResults` of ratings for a file of several puzzles.
    ``time_limit`` covers the whole file: the puzzles not reached are left out, the one it stopped
    is ``"unrated"``."""
    deadline = Deadline(check_time_limit(time_limit))
    puzzles = load_puzzles(source, box=box, diagonals=diagonals, regions=regions)
    if isinstance(puzzles, np.ndarray):
        puzzles = [Sudoku.from_grid(p.reshape(9, 9)) for p in puzzles]
    if len(puzzles) == 1:
        return rate(puzzles[0], time_limit=deadline.time_left())
    results: list[SearchResult] = []
    for p in puzzles:
        if results and deadline.expired():
            break
        results.append(rate(p, time_limit=deadline.time_left()))
    return SudokuResults.gather(results)
