"""Sudoku: any box size (4x4, 9x9, 16x16, 25x25, any R x C boxes), with variants (both
diagonals; jigsaw regions), solved as exact cover; a bitboard fast path for classic 9x9.

The exact-cover form (as in the article the issue cites): for an N x N grid, primary items
``p r c`` (cell filled), ``r r d`` (row r has digit d), ``c c d``, ``b k d`` (box or region k),
and with ``diagonals`` also ``d d`` and ``a d`` (main and anti-diagonal); one option per
candidate (r, c, d): 4N^2 items (N = 9: 324) and N^3 options (729). Givens are options
forced into the solution; givens that clash simply give no solution.

Classic 9x9 puzzles go to :mod:`rompicapo.cover._sudoku_bits_kernel` (per-digit band bit
sets: triad rules, hidden and naked singles, DPLL-style branching), a whole file in one kernel
call (:func:`solve_batch`); the older cell-mask kernel :mod:`rompicapo.cover._sudoku_kernel`
stays for :func:`rate`, whose labels are defined by its deductions and guess counts. The DLX
engine handles everything else and serves as the independent cross-check in the tests.

Text: a puzzle is N*N symbols row by row, ``1-9`` then ``A-Z`` (N <= 35; for N = 16 the digits
are 1-9, A-G), with ``.``, ``0`` or ``_`` for an empty cell; blanks, ``|``, ``+`` and lines of
``-`` (a printed grid) are ignored.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from rompicapo.common import InputError, SearchResult, Stopwatch, jit_warmup, peak_rss_bytes
from rompicapo.cover.problem import Problem

__all__ = [
    "BatchResult",
    "GenerateResult",
    "Rating",
    "Sudoku",
    "SudokuResult",
    "generate",
    "parse_box",
    "rate",
    "read_puzzles",
    "solve",
    "solve_batch",
]

SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_EMPTY = "._0"


def parse_box(text: str) -> tuple[int, int]:
    """``"3x3"`` -> (3, 3): box rows by box columns."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m:
        raise InputError(f"box size must look like 3x3, got {text!r}")
    bh, bw = int(m.group(1)), int(m.group(2))
    if bh < 1 or bw < 1 or bh * bw > len(SYMBOLS):
        raise InputError(f"box {text!r}: the grid side R*C must be between 1 and {len(SYMBOLS)}")
    return bh, bw


def _default_box(n: int) -> tuple[int, int]:
    """The most square boxes for side n (9 -> 3x3, 6 -> 2x3, 12 -> 3x4)."""
    r = math.isqrt(n)
    while n % r:
        r -= 1
    return r, n // r


@dataclass(frozen=True)
class Sudoku:
    """A puzzle: ``grid[r][c]`` in 0..N (0 empty), boxes ``box = (rows, cols)``, optional
    ``diagonals`` and jigsaw ``regions`` (``regions[r][c]`` = region number, replacing boxes)."""

    grid: tuple[tuple[int, ...], ...]
    box: tuple[int, int] = (3, 3)
    diagonals: bool = False
    regions: tuple[tuple[int, ...], ...] | None = None

    @property
    def size(self) -> int:
        return len(self.grid)

    @property
    def is_classic9(self) -> bool:
        return self.size == 9 and self.box == (3, 3) and not self.diagonals and self.regions is None

    @property
    def clue_count(self) -> int:
        return sum(1 for row in self.grid for v in row if v)

    @classmethod
    def parse(
        cls,
        text: str,
        *,
        box: str | tuple[int, int] | None = None,
        diagonals: bool = False,
        regions: str | None = None,
    ) -> Sudoku:
        """Read a puzzle (see the module docstring); the side N comes from the length."""
        lines = [ln for ln in text.splitlines() if not re.fullmatch(r"[\s\-+|=]*", ln) or not ln]
        cleaned = re.sub(r"[\s|+]", "", "".join(lines))
        if isinstance(box, str):
            box = parse_box(box)
        if box is not None:
            n = box[0] * box[1]
        else:
            n = math.isqrt(len(cleaned))
            if n * n != len(cleaned) or n == 0:
                raise InputError(
                    f"a Sudoku has N*N cells (81 for 9x9), got {len(cleaned)} characters"
                )
            if n > len(SYMBOLS):
                raise InputError(f"grids up to {len(SYMBOLS)}x{len(SYMBOLS)} are supported")
            box = _default_box(n)
        if len(cleaned) != n * n:
            raise InputError(f"a {n}x{n} Sudoku has {n * n} cells, got {len(cleaned)} characters")
        symbols = SYMBOLS[:n]
        grid = []
        for r in range(n):
            row = []
            for c in range(n):
                ch = cleaned[r * n + c].upper()
                if ch in _EMPTY and not (ch == "0" and "0" in symbols):
                    row.append(0)
                elif ch in symbols:
                    row.append(symbols.index(ch) + 1)
                else:
                    raise InputError(
                        f"bad character {cleaned[r * n + c]!r} at row {r + 1}, column {c + 1} "
                        f"(use {symbols[0]}-{symbols[-1]} and . for empty)"
                    )
            grid.append(tuple(row))
        layout = _parse_regions(regions, n) if regions is not None else None
        return cls(tuple(grid), tuple(box), diagonals, layout)

    @classmethod
    def from_grid(cls, grid, box: tuple[int, int] | None = None, **kw) -> Sudoku:
        rows = tuple(tuple(int(v) for v in row) for row in grid)
        return cls(rows, box or _default_box(len(rows)), **kw)

    def line(self) -> str:
        """One line, row by row, ``.`` for empty cells."""
        return "".join(SYMBOLS[v - 1] if v else "." for row in self.grid for v in row)

    def pretty(self) -> str:
        """The grid as a person writes it, boxes separated by ``|`` and ``-+-`` lines."""
        return format_grid(self.grid, self.box if self.regions is None else (self.size, self.size))

    def with_grid(self, grid) -> Sudoku:
        return Sudoku(tuple(tuple(int(v) for v in row) for row in grid), self.box, self.diagonals,
                      self.regions)  # fmt: skip

    def array(self) -> np.ndarray:
        return np.array(self.grid, dtype=np.uint8)


def format_grid(grid, box: tuple[int, int]) -> str:
    """A grid with ``|`` between boxes and separator lines between bands of boxes."""
    n = len(grid)
    bh, bw = box
    out = []
    for r in range(n):
        if r and r % bh == 0:
            out.append("-+-".join("-" * (2 * bw - 1) for _ in range(n // bw)))
        cells = [SYMBOLS[v - 1] if v else "." for v in grid[r]]
        out.append(" | ".join(" ".join(cells[c : c + bw]) for c in range(0, n, bw)))
    return "\n".join(out)


def _parse_regions(layout: str, n: int) -> tuple[tuple[int, ...], ...]:
    cleaned = re.sub(r"[\s|+]", "", layout)
    if len(cleaned) != n * n:
        raise InputError(f"a jigsaw layout for {n}x{n} needs {n * n} letters, got {len(cleaned)}")
    names: dict[str, int] = {}
    grid = tuple(
        tuple(names.setdefault(cleaned[r * n + c], len(names)) for c in range(n)) for r in range(n)
    )
    if len(names) != n:
        raise InputError(f"a jigsaw layout for {n}x{n} needs {n} regions, got {len(names)}")
    sizes = [sum(row.count(k) for row in grid) for k in range(n)]
    if any(s != n for s in sizes):
        raise InputError(f"every jigsaw region needs {n} cells, got sizes {sorted(sizes)}")
    return grid


# ------------------------------------------------------------------------------------------
# The exact-cover form
# ------------------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def exact_cover_form(
    n: int, box: tuple[int, int], diagonals: bool, regions: tuple | None
) -> Problem:
    """The exact-cover problem of an empty N x N grid; option ``(r*N + c)*N + d-1`` puts
    digit d in cell (r, c)."""
    bh, bw = box
    primary = [("p", r, c) for r in range(n) for c in range(n)]
    primary += [("r", r, d) for r in range(n) for d in range(1, n + 1)]
    primary += [("c", c, d) for c in range(n) for d in range(1, n + 1)]
    primary += [("b", k, d) for k in range(n) for d in range(1, n + 1)]
    if diagonals:
        primary += [("d", d) for d in range(1, n + 1)] + [("a", d) for d in range(1, n + 1)]
    problem = Problem(primary=primary)
    for r in range(n):
        for c in range(n):
            k = regions[r][c] if regions is not None else (r // bh) * (n // bw) + c // bw
            for d in range(1, n + 1):
                items = [("p", r, c), ("r", r, d), ("c", c, d), ("b", k, d)]
                if diagonals and r == c:
                    items.append(("d", d))
                if diagonals and r + c == n - 1:
                    items.append(("a", d))
                problem.add_option(items)
    return problem


def _problem_and_givens(puzzle: Sudoku) -> tuple[Problem, list[int]]:
    n = puzzle.size
    problem = exact_cover_form(n, puzzle.box, puzzle.diagonals, puzzle.regions)
    givens = [
        (r * n + c) * n + v - 1 for r in range(n) for c in range(n) if (v := puzzle.grid[r][c])
    ]
    return problem, givens


def _grid_from_options(n: int, options: list[int]) -> list[list[int]]:
    grid = [[0] * n for _ in range(n)]
    for o in options:
        cell, d = divmod(o, n)
        grid[cell // n][cell % n] = d + 1
    return grid


# ------------------------------------------------------------------------------------------
# Solving
# ------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _tables():
    from rompicapo.cover import _sudoku_kernel

    return _sudoku_kernel.tables()


@lru_cache(maxsize=1)
def _bits_tables() -> np.ndarray:
    from rompicapo.cover import _sudoku_bits_kernel

    return _sudoku_bits_kernel.tables()


def _bits_one(cells: np.ndarray, limit: int, solution: np.ndarray, stats: np.ndarray) -> int:
    """One 9x9 puzzle (``uint8[81]``) through the band bit-set kernel: its solution count up
    to ``limit``, the first solution in ``solution``, [guesses, propagations] in ``stats``."""
    from rompicapo.cover import _sudoku_bits_kernel as BK

    if cells.max() > 9:  # the kernel indexes its words by digit: check here, not there
        raise InputError("a 9x9 Sudoku has digits 1-9 (0 for empty)")
    stack = np.zeros((BK.STACK_ROWS, BK.STACK_COLS), np.int64)
    return int(BK.solve_one(cells, limit, solution, _bits_tables(), stack, stats))


def _warm() -> float:
    from rompicapo.cover import _sudoku_bits_kernel as BK
    from rompicapo.cover import _sudoku_kernel as SK

    def tiny() -> None:
        puzzles = np.zeros((1, 81), np.uint8)
        BK.solve_batch(
            puzzles, 2, np.zeros_like(puzzles), np.zeros(1, np.int32), np.zeros(1, np.int64),
            _bits_tables(),
        )  # fmt: skip
        _bits_one(puzzles[0], 1, np.zeros(81, np.uint8), np.zeros(2, np.int64))
        # the cell kernel stays for rating (its guess counts define the labels)
        SK.solve_one(puzzles[0], 1, np.zeros(81, np.uint8), *_tables(), np.zeros(2, np.int64))

    return jit_warmup("cover.sudoku9", tiny)


@dataclass
class SudokuResult(SearchResult):
    """``solutions`` (grids) found, at most ``max_solutions``; ``count`` = how many;
    ``unique`` when exactly one exists (needs ``max_solutions >= 2``)."""

    puzzle: Sudoku | None = None
    solutions: list[list[list[int]]] = field(default_factory=list)
    count: int = 0
    max_solutions: int = 2
    engine: str = "bitboard"

    @property
    def unique(self) -> bool:
        return self.count == 1 and self.max_solutions >= 2

    @property
    def solution(self) -> Sudoku | None:
        return self.puzzle.with_grid(self.solutions[0]) if self.solutions and self.puzzle else None

    def verify(self) -> bool:
        from rompicapo.cover.verify import sudoku_ok

        p = self.puzzle
        assert p is not None
        return all(
            sudoku_ok(p.grid, s, p.box, diagonals=p.diagonals, regions=p.regions)
            for s in self.solutions
        )

    def report(self, max_solutions: int) -> str:
        if self.count == 0:
            return f"{self.puzzle.line()}\nno solution"
        text = self.solution.pretty()
        if self.count == 1 and max_solutions >= 2:
            return text + "\nunique solution"
        more = "+" if self.count >= max_solutions else ""
        return text + f"\n{self.count}{more} solutions (the first shown)"

    def as_dict(self) -> dict:
        return {
            "puzzle": self.puzzle.line(),
            "solutions": self.count,
            "unique": self.unique,
            "solution": self.solution.line() if self.solution else None,
            "engine": self.engine,
            "counts": self.counts,
            "solve_seconds": round(self.solve_seconds, 6),
        }


def solve(puzzle: Sudoku | str, *, max_solutions: int = 2, engine: str = "auto") -> SudokuResult:
    """Solve one puzzle, counting solutions up to ``max_solutions`` (2 decides uniqueness).

    ``engine``: ``"bitboard"`` (classic 9x9 only), ``"dlx"``, or ``"auto"`` (bitboard when
    it applies).
    """
    if isinstance(puzzle, str):
        puzzle = Sudoku.parse(puzzle)
    if max_solutions < 1:
        raise InputError("max_solutions must be at least 1")
    use_bitboard = engine == "bitboard" or (engine == "auto" and puzzle.is_classic9)
    if use_bitboard and not puzzle.is_classic9:
        raise InputError("the bitboard engine solves classic 9x9 Sudoku only")
    if use_bitboard:
        compile_seconds = _warm()
        solution = np.zeros(81, np.uint8)
        stats = np.zeros(2, np.int64)
        with Stopwatch() as sw:
            n = _bits_one(puzzle.array().reshape(81), max_solutions, solution, stats)
        grids = [solution.reshape(9, 9).tolist()] if n else []
        return SudokuResult(
            puzzle=puzzle, solutions=grids, count=int(n), max_solutions=max_solutions,
            engine="bitboard", solve_seconds=sw.seconds, compile_seconds=compile_seconds,
            peak_bytes=peak_rss_bytes(),
            counts={"guesses": int(stats[0]), "propagations": int(stats[1])},
        )  # fmt: skip
    from rompicapo.cover.solve import solve as cover_solve

    problem, givens = _problem_and_givens(puzzle)
    r = cover_solve(problem, limit=max_solutions, givens=givens)
    return SudokuResult(
        puzzle=puzzle,
        solutions=[_grid_from_options(puzzle.size, s) for s in r.solutions],
        count=r.count,
        max_solutions=max_solutions,
        engine="dlx",
        solve_seconds=r.solve_seconds,
        compile_seconds=r.compile_seconds,
        peak_bytes=r.peak_bytes,
        counts=r.counts,
    )


def read_puzzles(path: str | Path) -> np.ndarray:
    """Every 81-character puzzle line of a file (``#`` comments and blank lines skipped) as a
    ``uint8[P, 81]`` array, 0 for empty; a line of another length or with a bad character is
    an error naming the line."""
    raw = Path(path).read_bytes() if not isinstance(path, bytes) else path
    lines = raw.split(b"\n")
    keep = [ln.strip() for ln in lines]
    numbered = [(i + 1, ln) for i, ln in enumerate(keep) if ln and not ln.startswith(b"#")]
    for line_no, ln in numbered:
        if len(ln) != 81:
            raise InputError(f"{path}:{line_no}: a puzzle line has 81 characters, got {len(ln)}")
    if not numbered:
        raise InputError(f"{path}: no puzzles")
    data = np.frombuffer(b"".join(ln for _, ln in numbered), dtype=np.uint8).reshape(-1, 81)
    digits = data - ord("0")
    empty = (data == ord(".")) | (data == ord("0")) | (data == ord("_"))
    bad = ~empty & ((digits < 1) | (digits > 9))
    if bad.any():
        row, col = map(int, np.argwhere(bad)[0])
        raise InputError(
            f"{path}:{numbered[row][0]}: bad character {chr(data[row, col])!r} at position "
            f"{col + 1} (use 1-9 and . for empty)"
        )
    return np.where(empty, 0, digits).astype(np.uint8)


@dataclass
class BatchResult(SearchResult):
    """A batch of classic 9x9 puzzles solved in one kernel call."""

    puzzles: np.ndarray | None = None
    solutions: np.ndarray | None = None
    counts_per_puzzle: np.ndarray | None = None
    guesses: np.ndarray | None = None
    max_solutions: int = 2

    @property
    def puzzles_per_second(self) -> float:
        n = 0 if self.puzzles is None else len(self.puzzles)
        return n / self.solve_seconds if self.solve_seconds > 0 else math.inf

    def summary(self) -> str:
        c = self.counts_per_puzzle
        return (
            f"{int((c == 0).sum())} without solution, {int((c == 1).sum())} unique, "
            f"{int((c >= 2).sum())} with {self.max_solutions}+ solutions"
            if self.max_solutions >= 2
            else f"{int((c == 0).sum())} without solution, {int((c >= 1).sum())} solved"
        )

    def solution_strings(self) -> list[str]:
        out = []
        for sol, n in zip(self.solutions, self.counts_per_puzzle, strict=True):
            out.append("".join(str(int(d)) for d in sol) if n else "no-solution".ljust(81, "."))
        return out

    def verify(self) -> bool:
        from rompicapo.cover.verify import sudoku_ok

        for puzzle, sol, n in zip(
            self.puzzles, self.solutions, self.counts_per_puzzle, strict=True
        ):
            if n and not sudoku_ok(
                puzzle.reshape(9, 9).tolist(), sol.reshape(9, 9).tolist(), (3, 3)
            ):
                return False
        return True

    def as_dict(self) -> dict:
        return {
            "puzzles": len(self.puzzles),
            "solutions": self.counts_per_puzzle.tolist(),
            "unique": int((self.counts_per_puzzle == 1).sum()),
            "no_solution": int((self.counts_per_puzzle == 0).sum()),
            "solved": self.solution_strings(),
            "puzzles_per_second": round(self.puzzles_per_second, 1),
            "solve_seconds": round(self.solve_seconds, 6),
        }


def solve_batch(puzzles, *, max_solutions: int = 2) -> BatchResult:
    """Solve many classic 9x9 puzzles in one kernel call (``uint8[P, 81]`` from
    :func:`read_puzzles`, or a list of :class:`Sudoku`)."""
    from rompicapo.cover import _sudoku_bits_kernel as BK

    if not isinstance(puzzles, np.ndarray):
        if not all(p.is_classic9 for p in puzzles):
            raise InputError("batch solving takes classic 9x9 puzzles only")
        puzzles = np.array([p.array().reshape(81) for p in puzzles], dtype=np.uint8)
    puzzles = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, 81)
    if puzzles.size and puzzles.max() > 9:
        raise InputError("a 9x9 Sudoku has digits 1-9 (0 for empty)")
    compile_seconds = _warm()
    solutions = np.zeros_like(puzzles)
    counts = np.zeros(len(puzzles), np.int32)
    guesses = np.zeros(len(puzzles), np.int64)
    with Stopwatch() as sw:
        BK.solve_batch(puzzles, max_solutions, solutions, counts, guesses, _bits_tables())
    return BatchResult(
        puzzles=puzzles, solutions=solutions, counts_per_puzzle=counts, guesses=guesses,
        max_solutions=max_solutions, solve_seconds=sw.seconds, compile_seconds=compile_seconds,
        peak_bytes=peak_rss_bytes(), counts={"guesses": int(guesses.sum())},
    )  # fmt: skip


# ------------------------------------------------------------------------------------------
# Uniqueness, generation, rating
# ------------------------------------------------------------------------------------------


def _count_upto(puzzle: Sudoku, grid: np.ndarray, limit: int) -> int:
    """Solutions of ``grid`` (same shape and variant as ``puzzle``), counted up to ``limit``."""
    if puzzle.is_classic9:
        return _bits_one(
            np.ascontiguousarray(grid, np.uint8).reshape(81), limit, np.zeros(81, np.uint8),
            np.zeros(2, np.int64),
        )  # fmt: skip
    from rompicapo.cover.solve import _Search

    problem, givens = _problem_and_givens(puzzle.with_grid(grid))
    engine = _Search(problem.arrays(), givens=givens)
    engine.run(stop_after=limit, max_store=0, node_budget=2**62)
    return int(engine.counters[0])


def _random_full_grid(puzzle: Sudoku, seed: int) -> np.ndarray:
    from rompicapo.cover.solve import solve as cover_solve

    problem, _ = _problem_and_givens(puzzle)
    r = cover_solve(problem, limit=1, seed=seed)
    return np.array(_grid_from_options(puzzle.size, r.solutions[0]), dtype=np.uint8)


@dataclass
class GenerateResult(SearchResult):
    """A generated puzzle with a unique solution; ``minimal`` when every clue is needed
    (removing any one gives a second solution)."""

    puzzle: Sudoku | None = None
    solution: Sudoku | None = None
    minimal: bool = False
    symmetric: bool = False
    seed: int | None = None
    rating: str = ""

    def verify(self) -> bool:
        from rompicapo.cover.verify import sudoku_ok

        p, s = self.puzzle, self.solution
        return sudoku_ok(p.grid, s.grid, p.box, diagonals=p.diagonals, regions=p.regions) and (
            _count_upto(p, p.array(), 2) == 1
        )

    def as_dict(self) -> dict:
        return {
            "puzzle": self.puzzle.line(),
            "solution": self.solution.line(),
            "clues": self.puzzle.clue_count,
            "unique": True,
            "minimal": self.minimal,
            "symmetric": self.symmetric,
            "seed": self.seed,
            "rating": self.rating,
            "solve_seconds": round(self.solve_seconds, 6),
        }


def is_minimal(puzzle: Sudoku) -> bool:
    """True when removing any single clue gives a puzzle with more than one solution."""
    grid = puzzle.array()
    for r, c in zip(*np.nonzero(grid), strict=True):
        trial = grid.copy()
        trial[r, c] = 0
        if _count_upto(puzzle, trial, 2) == 1:
            return False
    return True


def generate(
    *,
    box: tuple[int, int] = (3, 3),
    clues: int | None = None,
    symmetric: bool = False,
    seed: int | None = None,
    diagonals: bool = False,
    regions: str | None = None,
) -> GenerateResult:
    """A puzzle with exactly one solution, from a random full grid (seeded), removing clues in
    random order (in pairs of cells symmetric under a half turn when ``symmetric``) whenever
    the solution stays unique. One pass over the cells makes the puzzle minimal: a clue that
    was needed with more clues present is still needed with fewer. With ``clues``, removal
    stops at that many (the result may then not be minimal), and if a pass ends above it,
    new grids are tried (a few times) and the one with fewest clues is returned.
    """
    n = box[0] * box[1]
    layout = _parse_regions(regions, n) if regions is not None else None
    empty = Sudoku(tuple((0,) * n for _ in range(n)), tuple(box), diagonals, layout)
    if clues is not None and clues > n * n:
        raise InputError(f"a {n}x{n} grid has only {n * n} cells, asked for {clues} clues")
    _warm()
    rng = np.random.default_rng(seed)
    # tries at a target below what one pass reaches: each is one more full pass
    attempts = 1 if clues is None else 20
    best: np.ndarray | None = None
    with Stopwatch() as sw:
        for _ in range(attempts):
            full = _random_full_grid(empty, int(rng.integers(2**31)))
            grid = full.copy()
            cells = rng.permutation(n * n)
            done: set[int] = set()
            for cell in cells:
                if clues is not None and int(np.count_nonzero(grid)) <= clues:
                    break
                cell = int(cell)
                if cell in done:
                    continue
                orbit = {cell, n * n - 1 - cell} if symmetric else {cell}
                done |= orbit
                trial = grid.copy()
                for x in orbit:
                    trial[x // n, x % n] = 0
                if _count_upto(empty, trial, 2) == 1:
                    grid = trial
            if best is None or np.count_nonzero(grid) < np.count_nonzero(best):
                best, best_full = grid, full
            if clues is None or np.count_nonzero(best) <= clues:
                break
        puzzle = empty.with_grid(best)
        minimal = is_minimal(puzzle)
    label = rate(puzzle).label
    return GenerateResult(
        puzzle=puzzle,
        solution=empty.with_grid(best_full),
        minimal=minimal,
        symmetric=symmetric,
        seed=seed,
        rating=label,
        solve_seconds=sw.seconds,
        peak_bytes=peak_rss_bytes(),
        counts={"clues": puzzle.clue_count},
    )


@dataclass
class Rating:
    """Difficulty by search effort.

    ``label``: ``"easy"`` (naked and hidden singles solve it), ``"medium"`` (also needs locked
    candidates), ``"hard"`` (needs guessing, at most ``_HARD_GUESSES`` guesses with the
    bitboard solver), ``"fiendish"`` (more), ``"invalid"`` (no solution or several).
    ``guesses`` counts the bitboard solver's guesses (9x9) and ``nodes`` the DLX search-tree
    nodes, both while proving uniqueness (counting up to 2).
    """

    label: str
    guesses: int
    nodes: int
    solutions: int

    def as_dict(self) -> dict:
        return {"label": self.label, "guesses": self.guesses, "nodes": self.nodes,
                "solutions": self.solutions}  # fmt: skip


#: Guess counts above this rate "fiendish": the forum's hardest puzzles need hundreds, the
#: 17-clue puzzles a handful, so 50 splits "needs some trial" from "needs a lot".
_HARD_GUESSES = 50


def rate(puzzle: Sudoku | str) -> Rating:
    """Rate a puzzle's difficulty (see :class:`Rating`)."""
    if isinstance(puzzle, str):
        puzzle = Sudoku.parse(puzzle)
    from rompicapo.cover.solve import solve as cover_solve

    problem, givens = _problem_and_givens(puzzle)
    dlx = cover_solve(problem, limit=2, keep=0, givens=givens)
    nodes = dlx.counts["nodes"]
    if dlx.count != 1:
        return Rating("invalid", 0, nodes, dlx.count)
    if not puzzle.is_classic9:
        empty = sum(1 for row in puzzle.grid for v in row if not v)
        # DLX with MRV meets a forced choice at every level when singles suffice
        label = "easy" if nodes <= 2 * empty + 2 else "hard"
        return Rating(label, 0, nodes, 1)
    from rompicapo.cover import _sudoku_kernel as SK

    _warm()
    stats = np.zeros(2, np.int64)
    cells = puzzle.array().reshape(81)
    SK.solve_one(cells, 2, np.zeros(81, np.uint8), *_tables(), stats, False)
    if stats[0] == 0:
        return Rating("easy", 0, nodes, 1)
    SK.solve_one(cells, 2, np.zeros(81, np.uint8), *_tables(), stats, True)
    guesses = int(stats[0])
    if guesses == 0:
        label = "medium"
    elif guesses <= _HARD_GUESSES:
        label = "hard"
    else:
        label = "fiendish"
    return Rating(label, guesses, nodes, 1)
