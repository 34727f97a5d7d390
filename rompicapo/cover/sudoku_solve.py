"""Solving Sudoku: one puzzle (`solve()`), a file of classic 9x9 lines in one kernel call
(`solve_batch()`), whatever a file holds (`solve_file()`), and the uniqueness count
that generating repeats (`count_upto()`).

Classic 9x9 puzzles go to `rompicapo.cover._sudoku_simd` (boxes and bands as vectors of
candidate sets, written as LLVM IR: triad rules, hidden and naked singles, DPLL-style
branching), a whole file in one kernel call; the band bit-set kernel
`rompicapo.cover._sudoku_bits_kernel` it replaced stays as the tests' reference. The DLX
engine (`rompicapo.cover.solve()`, on the exact-cover form of
`rompicapo.cover.sudoku_model`) handles everything else and serves as the independent
cross-check in the tests.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    KernelStop,
    NotVerifiable,
    SearchResult,
    Stopwatch,
    check_limit,
    check_time_limit,
    jit_warmup,
    peak_rss_bytes,
    renamed_keywords,
)
from rompicapo.cover.sudoku_model import (
    Sudoku,
    grid_from_options,
    load_puzzles,
    problem_and_givens,
)

__all__ = [
    "BatchResult",
    "SudokuResult",
    "SudokuResults",
    "count_upto",
    "solve",
    "solve_batch",
    "solve_file",
    "warm_up",
]


def _bits_one(
    cells: np.ndarray,
    limit: int,
    solution: np.ndarray,
    stats: np.ndarray,
    stop: np.ndarray | None = None,
) -> int:
    """One 9x9 puzzle (``uint8[81]``) through the vector kernel: its solution count up to
    ``limit`` (a lower bound when ``stop``, a `KernelStop` flag, ended the search), the first
    solution in ``solution``, [guesses, propagations] in ``stats``."""
    from rompicapo.cover import _sudoku_simd as VK

    if cells.max() > 9:  # the kernel shifts by the digit: check here, not there
        raise InputError("a 9x9 Sudoku has digits 1-9 (0 for empty)")
    counts, solutions, rows = VK.solve(cells, limit, stop)
    solution[:] = solutions[0]
    stats[:] = rows[0]
    return int(counts[0])


def warm_up() -> float:
    from rompicapo.cover import _sudoku_simd as VK

    # the cell kernel (rating only) compiles on rate()'s first call
    return jit_warmup("cover.sudoku9", lambda: VK.solve(np.zeros((1, 81), np.uint8), 1))


@dataclass
class SudokuResult(SearchResult):
    """``solutions`` (grids) found, at most ``max_solutions`` (the call's ``limit``);
    ``count`` = how many; ``unique`` when exactly one exists (needs a limit of 2 or more).

    ``to_dict()`` (``rompicapo sudoku solve --json``): ``puzzle``, ``solutions`` (the number
    found), ``unique``, ``solution``, ``engine``, ``counts``, ``solve_seconds``, plus
    ``count``, ``limit``, ``compile_seconds``, ``peak_bytes``.
    """

    puzzle: Sudoku | None = None
    """The puzzle solved."""
    solutions: list[list[list[int]]] = field(default_factory=list)
    """The solutions found, each a grid of digits (at most ``max_solutions``)."""
    count: int = 0
    """Solutions found, up to ``max_solutions``: 1 with ``max_solutions >= 2`` proves the solution
    unique."""
    max_solutions: int = 2
    """The most solutions looked for (2 by default: enough to tell a unique solution)."""
    engine: str = "bitboard"
    """The solver that ran: ``"bitboard"`` or ``"dlx"``."""
    stopped: str | None = None  # "time" or "interrupted": count is then a lower bound
    """``"time"`` or ``"interrupted"`` when the search ended early: ``count`` is then a lower
    bound."""

    _dict_exclude = ("puzzle", "solutions", "max_solutions")

    @property
    def limit(self) -> int:
        return self.max_solutions

    @property
    def unique(self) -> bool:
        return self.count == 1 and self.max_solutions >= 2 and self.stopped is None

    @property
    def solution(self) -> Sudoku | None:
        return self.puzzle.with_grid(self.solutions[0]) if self.solutions and self.puzzle else None

    def _repr_svg_(self) -> str | None:
        """Jupyter shows the first solution's grid, the givens in black and the digits found in
        blue (or the puzzle when there is no solution)."""
        from rompicapo.cover.render import sudoku_svg

        p = self.puzzle
        if p is None:
            return None
        grid = self.solutions[0] if self.solutions else p.grid
        what = "solved" if self.solutions else "unsolved"
        title = f"the {what} {p.size}x{p.size} Sudoku, givens in black, digits found in blue"
        return sudoku_svg(grid, p.box, givens=p.grid, regions=p.regions, title=title)

    def verify(self) -> bool:
        """True when every solution found fills the puzzle by the rules (checked
        independently); NotVerifiable when none was found (no solution cannot be checked
        without solving again)."""
        from rompicapo.cover.verify import sudoku_ok

        p = self.puzzle
        if p is None or not self.solutions:
            raise NotVerifiable("no solution was found, so there is nothing to check")
        return all(
            sudoku_ok(p.grid, s, p.box, diagonals=p.diagonals, regions=p.regions)
            for s in self.solutions
        )

    def _dict_extra(self) -> dict[str, Any]:
        return {
            "puzzle": self.puzzle.line() if self.puzzle else None,
            "solutions": self.count,
            "unique": self.unique,
            "solution": self.solution.line() if self.solution else None,
            "limit": self.max_solutions,
        }

    def report(self) -> str:
        """The first solution drawn as a grid, and whether it is unique."""
        if self.count == 0:
            if self.stopped:
                return f"{self.puzzle.line()}\nno solution found before the stop ({self.stopped})"
            return f"{self.puzzle.line()}\nno solution"
        text = self.solution.pretty()
        if self.stopped:
            return text + f"\n{self.count}+ solutions; stopped ({self.stopped}) before the rest"
        if self.count == 1 and self.max_solutions >= 2:
            return text + "\nunique solution"
        more = "+" if self.count >= self.max_solutions else ""
        return text + f"\n{self.count}{more} solutions (the first shown)"


_ENGINES = ("auto", "bitboard", "dlx")


@renamed_keywords(max_solutions="limit")
def solve(
    puzzle: Sudoku | str,
    *,
    limit: int = 2,
    engine: str = "auto",
    time_limit: float | None = None,
) -> SudokuResult:
    """Solve one puzzle, counting solutions up to ``limit`` (2 decides uniqueness; formerly
    ``max_solutions``).

    ``engine``: ``"bitboard"`` (classic 9x9 only), ``"dlx"``, or ``"auto"`` (bitboard when
    it applies). ``time_limit`` (seconds) stops the DLX search, which can take long on big or
    nearly empty grids; the result then has ``stopped="time"`` and its count is a lower
    bound (``unique`` is False). The bitboard engine answers a 9x9 puzzle in microseconds, but
    counting the solutions of a nearly empty grid up to a large ``limit`` takes minutes: it
    honours ``time_limit`` and Ctrl-C alike (it looks every 1024 guesses).
    """
    deadline = Deadline(check_time_limit(time_limit))
    if isinstance(puzzle, str):
        puzzle = Sudoku.parse(puzzle)
    if not isinstance(puzzle, Sudoku):
        raise InputError(f"puzzle must be a Sudoku or its text, got {type(puzzle).__name__}")
    max_solutions = check_limit(limit)
    if max_solutions is None:
        raise InputError("limit must be a positive number of solutions")
    max_solutions = min(max_solutions, 2**31 - 1)  # the kernels count in int32
    if engine not in _ENGINES:
        raise InputError(f"engine must be one of {', '.join(_ENGINES)}, got {str(engine)!r}")
    use_bitboard = engine == "bitboard" or (engine == "auto" and puzzle.is_classic9)
    if use_bitboard and not puzzle.is_classic9:
        raise InputError("the bitboard engine solves classic 9x9 Sudoku only")
    if use_bitboard:
        compile_seconds = warm_up()
        solution = np.zeros(81, np.uint8)
        stats = np.zeros(2, np.int64)
        with Stopwatch() as sw, KernelStop(deadline.time_left()) as stop:
            n = _bits_one(puzzle.array().reshape(81), max_solutions, solution, stats, stop.flag)
        grids = [solution.reshape(9, 9).tolist()] if n > 0 else []
        return SudokuResult(
            puzzle=puzzle, solutions=grids, count=max(int(n), 0), max_solutions=max_solutions,
            engine="bitboard", stopped=stop.reason, solve_seconds=sw.seconds,
            compile_seconds=compile_seconds,
            peak_bytes=peak_rss_bytes(),
            counts={"guesses": int(stats[0]), "propagations": int(stats[1])},
        )  # fmt: skip
    from rompicapo.cover.solve import solve as cover_solve

    problem, givens = problem_and_givens(puzzle)
    r = cover_solve(problem, limit=max_solutions, givens=givens, time_limit=deadline.time_left())
    return SudokuResult(
        puzzle=puzzle,
        solutions=[grid_from_options(puzzle.size, s) for s in r.solutions],
        count=r.count,
        max_solutions=max_solutions,
        engine="dlx",
        stopped=r.stopped if r.stopped in ("time", "interrupted") else None,
        solve_seconds=r.solve_seconds,
        compile_seconds=r.compile_seconds,
        peak_bytes=r.peak_bytes,
        counts=r.counts,
    )


@dataclass
class BatchResult(SearchResult):
    """A batch of classic 9x9 puzzles solved in one kernel call.

    ``to_dict()`` (``rompicapo sudoku solve FILE --json``): ``puzzles`` (how many),
    ``solutions`` (the count per puzzle, up to the limit), ``unique``, ``no_solution``,
    ``solved`` (the solution lines), ``puzzles_per_second``, ``solve_seconds``, plus
    ``limit``, ``counts``, ``compile_seconds``, ``peak_bytes``.
    """

    puzzles: np.ndarray | None = None
    solutions: np.ndarray | None = None
    counts_per_puzzle: np.ndarray | None = None
    guesses: np.ndarray | None = None
    max_solutions: int = 2

    _dict_exclude = ("puzzles", "solutions", "counts_per_puzzle", "guesses", "max_solutions")

    @property
    def limit(self) -> int:
        return self.max_solutions

    @property
    def puzzles_per_second(self) -> float:
        n = 0 if self.puzzles is None else len(self.puzzles)
        return n / self.solve_seconds if self.solve_seconds > 0 else math.inf

    def footer(self) -> str:
        """One line about the whole batch (the CLI prints it on stderr)."""
        c = self.counts_per_puzzle
        what = (
            f"{int((c == 0).sum())} without solution, {int((c == 1).sum())} unique, "
            f"{int((c >= 2).sum())} with {self.max_solutions}+ solutions"
            if self.max_solutions >= 2
            else f"{int((c == 0).sum())} without solution, {int((c >= 1).sum())} solved"
        )
        return (
            f"{len(c)} puzzles: {what}; {self.solve_seconds:.3f} s "
            f"({self.puzzles_per_second:,.0f} puzzles/s)"
        )

    def solution_strings(self) -> list[str]:
        out = []
        for sol, n in zip(self.solutions, self.counts_per_puzzle, strict=True):
            out.append("".join(str(int(d)) for d in sol) if n else "no-solution".ljust(81, "."))
        return out

    def report(self) -> str:
        """One line per puzzle: its first solution (or ``no-solution...``) and the count,
        ``+`` when the count reached the limit."""
        return "\n".join(
            f"{grid} {n}{'+' if n >= self.max_solutions else ''}"
            for grid, n in zip(self.solution_strings(), self.counts_per_puzzle, strict=True)
        )

    def verify(self) -> bool:
        """True when every solution found is right (checked independently); NotVerifiable
        when no puzzle of the batch has a solution."""
        from rompicapo.cover.verify import sudoku_ok

        if self.counts_per_puzzle is None or not (self.counts_per_puzzle > 0).any():
            raise NotVerifiable("no puzzle of the batch has a solution to check")
        for puzzle, sol, n in zip(
            self.puzzles, self.solutions, self.counts_per_puzzle, strict=True
        ):
            if n and not sudoku_ok(
                puzzle.reshape(9, 9).tolist(), sol.reshape(9, 9).tolist(), (3, 3)
            ):
                return False
        return True

    def _dict_extra(self) -> dict[str, Any]:
        c = self.counts_per_puzzle
        return {
            "puzzles": 0 if self.puzzles is None else len(self.puzzles),
            "solutions": c,
            "unique": int((c == 1).sum()),
            "no_solution": int((c == 0).sum()),
            "solved": self.solution_strings(),
            "puzzles_per_second": round(self.puzzles_per_second, 1),
            "limit": self.max_solutions,
        }


@renamed_keywords(max_solutions="limit")
def solve_batch(puzzles, *, limit: int = 2) -> BatchResult:
    """Solve many classic 9x9 puzzles in one kernel call (``uint8[P, 81]`` from
    `read_puzzles()`, or a list of `Sudoku`), counting each up to ``limit``
    (formerly ``max_solutions``)."""
    max_solutions = check_limit(limit)
    if max_solutions is None:
        raise InputError("limit must be a positive number of solutions")
    max_solutions = min(max_solutions, 2**31 - 1)  # the kernels count in int32
    if isinstance(puzzles, np.ndarray):
        if puzzles.size == 0 or puzzles.size % 81 or puzzles.ndim > 2:
            raise InputError(f"puzzles must be an array of rows of 81 cells, got {puzzles.shape}")
        if not np.issubdtype(puzzles.dtype, np.integer) or puzzles.min() < 0 or puzzles.max() > 9:
            raise InputError("puzzle cells must be integers 0 (empty) to 9")
    from rompicapo.cover import _sudoku_simd as VK

    if not isinstance(puzzles, np.ndarray):
        puzzles = list(puzzles)
        if not puzzles or not all(isinstance(p, Sudoku) and p.is_classic9 for p in puzzles):
            raise InputError("batch solving takes classic 9x9 puzzles only")
        puzzles = np.array([p.array().reshape(81) for p in puzzles], dtype=np.uint8)
    puzzles = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, 81)
    if puzzles.size and puzzles.max() > 9:
        raise InputError("a 9x9 Sudoku has digits 1-9 (0 for empty)")
    compile_seconds = warm_up()
    # no time limit here; the stop request answers Ctrl-C within milliseconds
    with Stopwatch() as sw, KernelStop(None) as stop:
        counts, solutions, stats = VK.solve(puzzles, max_solutions, stop.flag)
    guesses = stats[:, 0].copy()
    return BatchResult(
        puzzles=puzzles, solutions=solutions, counts_per_puzzle=counts, guesses=guesses,
        max_solutions=max_solutions, solve_seconds=sw.seconds, compile_seconds=compile_seconds,
        peak_bytes=peak_rss_bytes(), counts={"guesses": int(guesses.sum())},
    )  # fmt: skip


def count_upto(
    puzzle: Sudoku, grid: np.ndarray, limit: int, deadline: Deadline | None = None
) -> int | None:
    """Solutions of ``grid`` (same shape and variant as ``puzzle``), counted up to ``limit``;
    None when ``deadline`` passed before the count was settled."""
    if puzzle.is_classic9:
        return _bits_one(
            np.ascontiguousarray(grid, np.uint8).reshape(81), limit, np.zeros(81, np.uint8),
            np.zeros(2, np.int64),
        )  # fmt: skip
    from rompicapo.cover.solve import solve as solve_cover

    problem, givens = problem_and_givens(puzzle.with_grid(grid))
    time_limit = None if deadline is None else deadline.time_left()
    # a progress callback makes the solver look up between short kernel calls, so Ctrl-C and
    # SIGTERM stop a count of a big grid within a fraction of a second
    r = solve_cover(
        problem,
        limit=limit,
        keep_solutions=0,
        givens=givens,
        time_limit=time_limit,
        progress=_listening,
    )
    if r.stopped == "interrupted":
        raise KeyboardInterrupt
    return None if r.stopped == "time" else r.count


def _listening(event: object) -> None:
    """A progress callback that draws nothing (see `count_upto()`)."""


@dataclass
class SudokuResults(SearchResult):
    """The results of several puzzles solved or rated one by one (variants, other sizes).

    ``to_dict()``: ``puzzles`` (how many) and ``results`` (each result's ``to_dict()``).
    """

    results: list[SearchResult] = field(default_factory=list)

    def verify(self) -> bool:
        """True when every checkable result is right; NotVerifiable when none is checkable."""
        checked = []
        for r in self.results:
            try:
                checked.append(r.verify())
            except NotVerifiable:
                continue
        if not checked:
            raise NotVerifiable("no result here has an answer to check")
        return all(checked)

    def _dict_extra(self) -> dict[str, Any]:
        return {"puzzles": len(self.results)}

    def report(self) -> str:
        return "\n".join(r.report() for r in self.results)

    @classmethod
    def gather(cls, results: list[SearchResult]) -> SudokuResults:
        """The results together: their counts and seconds summed, the peak memory the
        largest."""
        counts: dict[str, int] = {}
        for r in results:
            for k, v in r.counts.items():
                counts[k] = counts.get(k, 0) + int(v)
        return cls(
            results=results,
            solve_seconds=sum(r.solve_seconds for r in results),
            compile_seconds=sum(r.compile_seconds for r in results),
            peak_bytes=max((r.peak_bytes for r in results), default=0),
            counts=counts,
        )


@renamed_keywords(max_solutions="limit")
def solve_file(
    source: str | os.PathLike,
    *,
    limit: int = 2,
    box: str | tuple[int, int] | None = None,
    diagonals: bool = False,
    regions: str | None = None,
    engine: str = "auto",
    time_limit: float | None = None,
) -> SudokuResult | BatchResult | SudokuResults:
    """Solve what ``source`` holds (see `load_puzzles()`): one
    puzzle gives a `SudokuResult`, a file of classic 9x9 lines a `BatchResult` (one
    kernel call), several other puzzles a `SudokuResults`. Each is counted up to ``limit``
    solutions (2 decides uniqueness). ``time_limit`` covers the whole file: puzzles solved one by
    one stop at it (the ones not reached are left out, the one it stopped marked ``stopped``); a
    batch of 9x9 lines (microseconds a puzzle) is one uninterrupted call."""
    deadline = Deadline(check_time_limit(time_limit))
    check_limit(limit)
    puzzles = load_puzzles(source, box=box, diagonals=diagonals, regions=regions)
    if isinstance(puzzles, np.ndarray):
        if engine not in ("auto", "bitboard"):
            grids = [Sudoku.from_grid(p.reshape(9, 9)) for p in puzzles]
            return _solve_each(grids, limit, engine, deadline)
        return solve_batch(puzzles, limit=limit)
    if len(puzzles) == 1:
        return solve(puzzles[0], limit=limit, engine=engine, time_limit=deadline.time_left())
    return _solve_each(puzzles, limit, engine, deadline)


def _solve_each(
    puzzles: list[Sudoku], limit: int, engine: str, deadline: Deadline
) -> SudokuResults:
    results: list[SearchResult] = []
    for p in puzzles:
        if results and deadline.expired():
            break
        r = solve(p, limit=limit, engine=engine, time_limit=deadline.time_left())
        results.append(r)
        if r.stopped:
            break
    return SudokuResults.gather(results)
