"""Generating Sudoku: a random full grid, clues removed while the solution stays unique
(`generate()`), minimal or down to a number of clues, symmetric on request, of a wanted
difficulty (rated by `rompicapo.cover.sudoku_rate.rate()`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    NotVerifiable,
    SearchResult,
    Stopwatch,
    check_int,
    check_seed,
    check_time_limit,
    peak_rss_bytes,
    seed_sequence,
)
from rompicapo.cover.sudoku_model import (
    Sudoku,
    grid_from_options,
    parse_box,
    parse_regions,
    problem_and_givens,
)
from rompicapo.cover.sudoku_rate import rate
from rompicapo.cover.sudoku_solve import count_upto, warm_up

__all__ = [
    "DIFFICULTIES",
    "DIFFICULTY_TRIES",
    "GenerateResult",
    "generate",
    "is_minimal",
    "random_full_grid",
]


def _remove_clues(
    empty: Sudoku,
    full: np.ndarray,
    rng: np.random.Generator,
    clues: int | None,
    symmetric: bool,
    deadline: Deadline,
) -> tuple[np.ndarray, str | None]:
    """One pass of clue removal over ``full`` in random order, keeping a removal (of a cell,
    or of a half-turn pair) when the solution stays unique; stops at ``clues`` clues. Returns
    the grid reached and why it stopped early (None, "time" or "interrupted"): the grid is
    always a puzzle with one solution."""
    n = empty.size
    grid = full.copy()
    done: set[int] = set()
    try:
        for cell in rng.permutation(n * n):
            if clues is not None and int(np.count_nonzero(grid)) <= clues:
                break
            cell = int(cell)
            if cell in done:
                continue
            if deadline.expired():
                return grid, "time"
            orbit = {cell, n * n - 1 - cell} if symmetric else {cell}
            done |= orbit
            trial = grid.copy()
            for x in orbit:
                trial[x // n, x % n] = 0
            count = count_upto(empty, trial, 2, deadline)
            if count is None:
                return grid, "time"
            if count == 1:
                grid = trial
    except KeyboardInterrupt:
        return grid, "interrupted"
    return grid, None


def random_full_grid(puzzle: Sudoku, seed: int) -> np.ndarray:
    from rompicapo.cover.solve import solve as cover_solve

    problem, _ = problem_and_givens(puzzle)
    r = cover_solve(problem, limit=1, seed=seed)
    if not r.solutions:  # stopped (Ctrl-C, SIGTERM) before the first grid: nothing to keep
        raise KeyboardInterrupt
    return np.array(grid_from_options(puzzle.size, r.solutions[0]), dtype=np.uint8)


#: Seconds the uniqueness recount of :meth:`GenerateResult.verify` may take after a run was
#: stopped early: a stop must not wait for a full count of a big grid.
_STOPPED_RECOUNT_SECONDS = 1.0


@dataclass
class GenerateResult(SearchResult):
    """A generated puzzle with a unique solution; ``minimal`` when every clue is needed
    (removing any one gives a second solution).

    ``to_dict()`` (``rompicapo sudoku generate --json``): ``puzzle``, ``solution``, ``clues``,
    ``unique``, ``minimal``, ``symmetric``, ``seed``, ``rating``, ``solve_seconds``, plus
    ``counts``, ``compile_seconds``, ``peak_bytes``.
    """

    puzzle: Sudoku | None = None
    solution: Sudoku | None = None
    minimal: bool = False
    symmetric: bool = False
    seed: int | None = None
    rating: str = ""
    stopped: str | None = None  # "time" or "interrupted": removal stopped early

    _dict_exclude = ("puzzle", "solution")

    def _repr_svg_(self) -> str | None:
        """Jupyter shows the generated puzzle: its clues on the empty grid."""
        from rompicapo.cover.render import sudoku_svg

        p = self.puzzle
        if p is None:
            return None
        title = f"a generated {p.size}x{p.size} Sudoku with {p.clue_count} clues"
        return sudoku_svg(p.grid, p.box, regions=p.regions, title=title)

    def verify(self) -> bool:
        """The solution fills the puzzle by the rules (independent check), and the puzzle has
        exactly one solution (counted again by the solver, up to two)."""
        from rompicapo.cover.verify import sudoku_ok

        p, s = self.puzzle, self.solution
        if p is None or s is None:
            raise NotVerifiable("no puzzle was generated")
        if not sudoku_ok(p.grid, s.grid, p.box, diagonals=p.diagonals, regions=p.regions):
            return False
        # a run stopped early (time limit, Ctrl-C) does not spend long on the recount: every
        # removal it kept was counted unique when it was made
        limit = Deadline(_STOPPED_RECOUNT_SECONDS if self.stopped else None)
        count = count_upto(p, p.array(), 2, limit)
        if count is None:
            raise NotVerifiable(
                f"the uniqueness recount did not finish within {_STOPPED_RECOUNT_SECONDS:g} s "
                "of a run that was stopped early"
            )
        return count == 1

    def _dict_extra(self) -> dict[str, Any]:
        return {
            "puzzle": self.puzzle.line() if self.puzzle else None,
            "solution": self.solution.line() if self.solution else None,
            "clues": self.puzzle.clue_count if self.puzzle else 0,
            "unique": True,
        }

    def report(self) -> str:
        """The puzzle drawn, its line, and a summary."""
        return (
            f"{self.puzzle.pretty()}\n\n{self.puzzle.line()}\n"
            f"{self.puzzle.clue_count} clues, unique solution, "
            f"{'minimal' if self.minimal else 'not minimal'}"
            f"{f' (stopped: {self.stopped})' if self.stopped else ''}"
            f"{', symmetric' if self.symmetric else ''}; rating {self.rating}; "
            f"{self.solve_seconds * 1000:.1f} ms"
        )


def is_minimal(puzzle: Sudoku) -> bool:
    """True when removing any single clue gives a puzzle with more than one solution."""
    return bool(_minimal(puzzle, None))


def _minimal(puzzle: Sudoku, deadline: Deadline | None) -> bool | None:
    """`is_minimal()`, or None when ``deadline`` passed before it was settled."""
    grid = puzzle.array()
    for r, c in zip(*np.nonzero(grid), strict=True):
        trial = grid.copy()
        trial[r, c] = 0
        count = count_upto(puzzle, trial, 2, deadline)
        if count is None:
            return None
        if count == 1:
            return False
    return True


def generate(
    *,
    box: tuple[int, int] | str = (3, 3),
    clues: int | None = None,
    symmetric: bool = False,
    seed: int | None = None,
    diagonals: bool = False,
    regions: str | None = None,
    time_limit: float | None = None,
    difficulty: str | None = None,
) -> GenerateResult:
    """A puzzle with exactly one solution, from a random full grid (seeded), removing clues in
    random order (in pairs of cells symmetric under a half turn when ``symmetric``) whenever
    the solution stays unique. One pass over the cells makes the puzzle minimal: a clue that
    was needed with more clues present is still needed with fewer. With ``clues``, removal
    stops at that many (the result may then not be minimal), and if a pass ends above it,
    new grids are tried (a few times) and the one with fewest clues is returned. ``seed`` is
    any integer (negative ones too) or None for a fresh one; ``box`` is ``(rows, cols)`` or
    ``"RxC"``.

    ``time_limit`` (seconds; 16x16 takes seconds, 25x25 minutes) and Ctrl-C stop the removal
    and keep the grid reached: every removal kept was checked, so the puzzle still has one
    solution, but ``minimal`` is False (not shown) and ``stopped`` says why. The first full
    grid is always built, since there is no puzzle without it.

    ``difficulty`` (``"easy"``, ``"medium"``, ``"hard"`` or ``"fiendish"``, see
    `Rating`) generates from ``seed``, ``seed + 1``, ... (a
    fresh seed if None) until a puzzle rates so, at most `DIFFICULTY_TRIES` puzzles or
    ``time_limit`` seconds; the result is the last puzzle made (its ``rating`` says whether the wish
    was met) and its ``seed`` alone makes it again.
    """
    if difficulty is not None:
        return _generate_rated(
            difficulty, box=box, clues=clues, symmetric=symmetric, seed=seed,
            diagonals=diagonals, regions=regions, time_limit=time_limit,
        )  # fmt: skip
    deadline = Deadline(check_time_limit(time_limit))
    box = parse_box(box)
    seed = check_seed(seed)
    if not isinstance(symmetric, bool) or not isinstance(diagonals, bool):
        raise InputError("symmetric and diagonals must be True or False")
    n = box[0] * box[1]
    layout = parse_regions(regions, n) if regions is not None else None
    empty = Sudoku(tuple((0,) * n for _ in range(n)), tuple(box), diagonals, layout)
    if clues is not None:
        clues = check_int(clues, "clues", minimum=0, maximum=n * n)
    warm_up()
    rng = np.random.default_rng(seed_sequence(seed))
    # tries at a target below what one pass reaches: each is one more full pass
    attempts = 1 if clues is None else 20
    best: np.ndarray | None = None
    stopped: str | None = None
    with Stopwatch() as sw:
        for _ in range(attempts):
            full = random_full_grid(empty, int(rng.integers(2**31)))
            grid, stopped = _remove_clues(empty, full, rng, clues, symmetric, deadline)
            if best is None or np.count_nonzero(grid) < np.count_nonzero(best):
                best, best_full = grid, full
            if stopped or clues is None or np.count_nonzero(best) <= clues:
                break
        puzzle = empty.with_grid(best)
        try:
            minimal = None if stopped else _minimal(puzzle, deadline)
        except KeyboardInterrupt:
            minimal, stopped = None, "interrupted"
        if minimal is None:
            stopped = stopped or "time"
    label = "unrated" if stopped else rate(puzzle).label
    return GenerateResult(
        puzzle=puzzle,
        solution=empty.with_grid(best_full),
        minimal=bool(minimal),
        symmetric=symmetric,
        seed=seed,
        rating=label,
        stopped=stopped,
        solve_seconds=sw.seconds,
        peak_bytes=peak_rss_bytes(),
        counts={"clues": puzzle.clue_count},
    )


#: Puzzles :func:`generate` makes at most while looking for a wanted difficulty. From seed 5
#: (9x9) the first "hard" was the 1st puzzle, "easy" the 3rd, "medium" the 4th; "fiendish"
#: is rarer, hence a cap rather than a loop without end.
DIFFICULTY_TRIES = 200
DIFFICULTIES = ("easy", "medium", "hard", "fiendish")


def _generate_rated(difficulty: object, *, seed: int | None, time_limit: float | None,
                    **kw: Any) -> GenerateResult:  # fmt: skip
    if difficulty not in DIFFICULTIES:
        raise InputError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, got {difficulty!r}")
    deadline = Deadline(check_time_limit(time_limit))
    seed = check_seed(seed)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (1 << 62))
    for k in range(DIFFICULTY_TRIES):
        res = generate(seed=seed + k, time_limit=deadline.time_left(), **kw)
        if res.rating == difficulty or deadline.expired():
            break
    return res
