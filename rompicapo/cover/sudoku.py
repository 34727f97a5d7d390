"""Sudoku: any box size (4x4, 9x9, 16x16, 25x25, any R x C boxes), with variants (both
diagonals; jigsaw regions), solved as exact cover; a bitboard fast path for classic 9x9.

The exact-cover form (as in the literature): for an N x N grid, primary items
``p r c`` (cell filled), ``r r d`` (row r has digit d), ``c c d``, ``b k d`` (box or region k),
and with ``diagonals`` also ``d d`` and ``a d`` (main and anti-diagonal); one option per
candidate (r, c, d): 4N^2 items (N = 9: 324) and N^3 options (729). Givens are options
forced into the solution; givens that clash simply give no solution.

Classic 9x9 puzzles go to :mod:`rompicapo.cover._sudoku_simd` (boxes and bands as vectors of
candidate sets, written as LLVM IR: triad rules, hidden and naked singles, DPLL-style
branching), a whole file in one kernel call (:func:`solve_batch`); the band bit-set kernel
:mod:`rompicapo.cover._sudoku_bits_kernel` it replaced stays as the tests' reference; the
older cell-mask kernel :mod:`rompicapo.cover._sudoku_kernel`
stays for :func:`rate`, whose labels are defined by its deductions and guess counts. The DLX
engine handles everything else and serves as the independent cross-check in the tests.

Text: a puzzle is N*N symbols row by row, ``1-9`` then ``A-Z`` (N <= 35; for N = 16 the digits
are 1-9, A-G), with ``.``, ``0`` or ``_`` for an empty cell; blanks, ``|``, ``+`` and lines of
``-`` (a printed grid) are ignored.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    NotVerifiable,
    SearchResult,
    Stopwatch,
    check_int,
    check_limit,
    check_memory,
    check_seed,
    check_time_limit,
    decode_text,
    jit_warmup,
    peak_rss_bytes,
    read_text,
    renamed_keywords,
    seed_sequence,
)
from rompicapo.cover.problem import Problem

__all__ = [
    "BatchResult",
    "GenerateResult",
    "Rating",
    "Sudoku",
    "SudokuResult",
    "SudokuResults",
    "generate",
    "load_puzzles",
    "parse_box",
    "rate",
    "rate_file",
    "read_puzzles",
    "solve",
    "solve_batch",
    "solve_file",
]

SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_EMPTY = "._0"


def parse_box(text: str | tuple[int, int]) -> tuple[int, int]:
    """``"3x3"`` (or ``(3, 3)``) -> (3, 3): box rows by box columns, checked."""
    if isinstance(text, (tuple, list)) and len(text) == 2:
        bh = check_int(text[0], "box rows", minimum=1, maximum=len(SYMBOLS))
        bw = check_int(text[1], "box columns", minimum=1, maximum=len(SYMBOLS))
        text = f"{bh}x{bw}"
    if not isinstance(text, str):
        raise InputError(f"box must look like 3x3 or (3, 3), got {str(text)[:40]!r}")
    m = re.fullmatch(r"\s*(\d{1,6})\s*[xX]\s*(\d{1,6})\s*", text)
    if not m:
        raise InputError(f"box size must look like 3x3, got {text[:40]!r}")
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
        if not isinstance(text, str):
            raise InputError(f"a puzzle is text, got {type(text).__name__}")
        if not isinstance(diagonals, bool):
            raise InputError(f"diagonals must be True or False, got {diagonals!r}")
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
    if not isinstance(layout, str):
        raise InputError(f"regions is a layout text, got {type(layout).__name__}")
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


def _bits_one(cells: np.ndarray, limit: int, solution: np.ndarray, stats: np.ndarray) -> int:
    """One 9x9 puzzle (``uint8[81]``) through the vector kernel: its solution count up to
    ``limit``, the first solution in ``solution``, [guesses, propagations] in ``stats``."""
    from rompicapo.cover import _sudoku_simd as VK

    if cells.max() > 9:  # the kernel shifts by the digit: check here, not there
        raise InputError("a 9x9 Sudoku has digits 1-9 (0 for empty)")
    counts, solutions, rows = VK.solve(cells, limit)
    solution[:] = solutions[0]
    stats[:] = rows[0]
    return int(counts[0])


def _warm() -> float:
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
    solutions: list[list[list[int]]] = field(default_factory=list)
    count: int = 0
    max_solutions: int = 2
    engine: str = "bitboard"
    stopped: str | None = None  # "time" or "interrupted": count is then a lower bound

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

    def _repr_html_(self) -> str:
        """Jupyter shows the first solution's grid (or the puzzle when there is none)."""
        from html import escape

        grid = self.solutions[0] if self.solutions else self.puzzle.grid
        return f"<pre>{escape(format_grid(grid, self.puzzle.box))}</pre>"

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
    bound (``unique`` is False). The bitboard engine answers a 9x9 in microseconds and is
    not interrupted.
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
    r = cover_solve(problem, limit=max_solutions, givens=givens, time_limit=deadline.time_left())
    return SudokuResult(
        puzzle=puzzle,
        solutions=[_grid_from_options(puzzle.size, s) for s in r.solutions],
        count=r.count,
        max_solutions=max_solutions,
        engine="dlx",
        stopped=r.stopped if r.stopped in ("time", "interrupted") else None,
        solve_seconds=r.solve_seconds,
        compile_seconds=r.compile_seconds,
        peak_bytes=r.peak_bytes,
        counts=r.counts,
    )


def read_puzzles(path: str | Path | bytes) -> np.ndarray:
    """Every 81-character puzzle line of a file (``#`` comments and blank lines skipped) as a
    ``uint8[P, 81]`` array, 0 for empty; a line of another length or with a bad character is
    an error naming the file and the line. ``path`` may also be the file's bytes. The file is
    read with :func:`rompicapo.common.read_text` (binary, non-UTF-8 files refused)."""
    if isinstance(path, bytes):
        source, text = "<bytes>", decode_text(path, "<bytes>")
    else:
        source, text = str(path), read_text(path, "puzzle file")
    return _puzzle_array(text, source)


def _puzzle_array(text: str, source: str) -> np.ndarray:
    numbered = [
        (i + 1, ln.strip())
        for i, ln in enumerate(text.split("\n"))
        if ln.strip() and not ln.strip().startswith("#")
    ]
    for line_no, ln in numbered:
        if len(ln) != 81:
            raise InputError(
                f"a puzzle line has 81 characters, got {len(ln)}", path=source, line=line_no
            )
        if not ln.isascii():
            bad = next(ch for ch in ln if not ch.isascii())
            raise InputError(
                f"bad character {bad!r} at position {ln.index(bad) + 1} (use 1-9 and . for empty)",
                path=source,
                line=line_no,
            )
    if not numbered:
        raise InputError("no puzzles", path=source)
    check_memory(4 * 81 * len(numbered), f"{len(numbered)} puzzles of {source}")
    raw = "".join(ln for _, ln in numbered).encode("ascii")
    data = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 81)
    digits = data - ord("0")
    empty = (data == ord(".")) | (data == ord("0")) | (data == ord("_"))
    bad = ~empty & ((digits < 1) | (digits > 9))
    if bad.any():
        row, col = map(int, np.argwhere(bad)[0])
        raise InputError(
            f"bad character {chr(data[row, col])!r} at position {col + 1} "
            "(use 1-9 and . for empty)",
            path=source,
            line=numbered[row][0],
        )
    return np.where(empty, 0, digits).astype(np.uint8)


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
    :func:`read_puzzles`, or a list of :class:`Sudoku`), counting each up to ``limit``
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
    compile_seconds = _warm()
    with Stopwatch() as sw:
        counts, solutions, stats = VK.solve(puzzles, max_solutions)
    guesses = stats[:, 0].copy()
    return BatchResult(
        puzzles=puzzles, solutions=solutions, counts_per_puzzle=counts, guesses=guesses,
        max_solutions=max_solutions, solve_seconds=sw.seconds, compile_seconds=compile_seconds,
        peak_bytes=peak_rss_bytes(), counts={"guesses": int(guesses.sum())},
    )  # fmt: skip


# ------------------------------------------------------------------------------------------
# Uniqueness, generation, rating
# ------------------------------------------------------------------------------------------


def _count_upto(
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

    problem, givens = _problem_and_givens(puzzle.with_grid(grid))
    time_limit = None if deadline is None else deadline.time_left()
    # a progress callback makes the solver look up between short kernel calls, so Ctrl-C and
    # SIGTERM stop a count of a big grid within a fraction of a second
    r = solve_cover(
        problem, limit=limit, keep=0, givens=givens, time_limit=time_limit, progress=_listening
    )
    if r.stopped == "interrupted":
        raise KeyboardInterrupt
    return None if r.stopped == "time" else r.count


def _listening(event: object) -> None:
    """A progress callback that draws nothing (see :func:`_count_upto`)."""


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
            count = _count_upto(empty, trial, 2, deadline)
            if count is None:
                return grid, "time"
            if count == 1:
                grid = trial
    except KeyboardInterrupt:
        return grid, "interrupted"
    return grid, None


def _random_full_grid(puzzle: Sudoku, seed: int) -> np.ndarray:
    from rompicapo.cover.solve import solve as cover_solve

    problem, _ = _problem_and_givens(puzzle)
    r = cover_solve(problem, limit=1, seed=seed)
    if not r.solutions:  # stopped (Ctrl-C, SIGTERM) before the first grid: nothing to keep
        raise KeyboardInterrupt
    return np.array(_grid_from_options(puzzle.size, r.solutions[0]), dtype=np.uint8)


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
        count = _count_upto(p, p.array(), 2, limit)
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
    """:func:`is_minimal`, or None when ``deadline`` passed before it was settled."""
    grid = puzzle.array()
    for r, c in zip(*np.nonzero(grid), strict=True):
        trial = grid.copy()
        trial[r, c] = 0
        count = _count_upto(puzzle, trial, 2, deadline)
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

    ``difficulty`` (``"easy"``, ``"medium"``, ``"hard"`` or ``"fiendish"``, see :class:`Rating`)
    generates from ``seed``, ``seed + 1``, ... (a fresh seed if None) until a puzzle rates so,
    at most :data:`DIFFICULTY_TRIES` puzzles or ``time_limit`` seconds; the result is the last
    puzzle made (its ``rating`` says whether the wish was met) and its ``seed`` alone makes it
    again.
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
    layout = _parse_regions(regions, n) if regions is not None else None
    empty = Sudoku(tuple((0,) * n for _ in range(n)), tuple(box), diagonals, layout)
    if clues is not None:
        clues = check_int(clues, "clues", minimum=0, maximum=n * n)
    _warm()
    rng = np.random.default_rng(seed_sequence(seed))
    # tries at a target below what one pass reaches: each is one more full pass
    attempts = 1 if clues is None else 20
    best: np.ndarray | None = None
    stopped: str | None = None
    with Stopwatch() as sw:
        for _ in range(attempts):
            full = _random_full_grid(empty, int(rng.integers(2**31)))
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
    """Rate a puzzle's difficulty (see :class:`Rating`). ``time_limit`` (seconds) stops the
    DLX count that proves uniqueness (long only on big, nearly empty grids): the label is
    then ``"unrated"``."""
    deadline = Deadline(check_time_limit(time_limit))
    if isinstance(puzzle, str):
        puzzle = Sudoku.parse(puzzle)
    if not isinstance(puzzle, Sudoku):
        raise InputError(f"puzzle must be a Sudoku or its text, got {type(puzzle).__name__}")
    from rompicapo.cover.solve import solve as cover_solve

    problem, givens = _problem_and_givens(puzzle)
    dlx = cover_solve(problem, limit=2, keep=0, givens=givens, time_limit=deadline.time_left())
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

    _warm()
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


# ------------------------------------------------------------------------------------------
# Files: what a person gives on the command line
# ------------------------------------------------------------------------------------------

#: Names that are surely meant as files (a puzzle's text never ends like this).
_FILE_SUFFIXES = (".txt", ".sdk", ".sdm", ".sudoku", ".dat", ".csv", ".puzzles")


def _source_text(source: str | os.PathLike) -> tuple[str | None, str]:
    """``(file name, text)`` when ``source`` names a file, else ``(None, source)``: the
    puzzle's own text. A name that looks like a file (a folder in it, a known suffix) but
    is not one is an InputError, not a puzzle with bad characters."""
    if isinstance(source, os.PathLike):
        return str(source), read_text(source, "puzzle file")
    if not isinstance(source, str):
        raise InputError(f"expected a puzzle or a file name, got {type(source).__name__}")
    if source == "-":
        return "<stdin>", read_text("-", "puzzle file")
    one_line = "\n" not in source and 0 < len(source) < 4096
    if one_line and os.path.isfile(source):  # False, not OSError, for a name too long
        return source, read_text(source, "puzzle file")
    looks_like_a_file = one_line and (
        os.sep in source.strip() or source.strip().lower().endswith(_FILE_SUFFIXES)
    )
    if looks_like_a_file or (one_line and os.path.lexists(source)):
        # raises: does not exist, a folder, a FIFO or a device, unreadable
        read_text(source, "puzzle file")
    return None, source


def load_puzzles(
    source: str | os.PathLike,
    *,
    box: str | tuple[int, int] | None = None,
    diagonals: bool = False,
    regions: str | None = None,
) -> list[Sudoku] | np.ndarray:
    """The puzzles of ``source``: a file name (``"-"`` = stdin) or a puzzle's own text.

    A file of several lines of equal length (``#`` comments and blank lines skipped) holds
    one puzzle per line when each line has a square number of cells (blanks, ``|`` and ``+``
    ignored) and the lines are not as many as their cells (then they are the rows of one
    grid, printed or not). A file of classic 9x9 lines comes back as a ``uint8[P, 81]`` array for
    :func:`solve_batch`; anything else as a list of :class:`Sudoku`. Errors name the file
    and line.
    """
    name, text = _source_text(source)
    if name is None:
        return [Sudoku.parse(text, box=box, diagonals=diagonals, regions=regions)]
    numbered = [
        (i + 1, ln.strip())
        for i, ln in enumerate(text.split("\n"))
        if ln.strip() and not ln.strip().startswith("#")
    ]
    if not numbered:
        raise InputError("no puzzle in this file", path=name)
    lines = [ln for _, ln in numbered]
    # one puzzle per line, or the rows of one grid? Rows of a grid (printed or not) are as
    # many as their cells; whole puzzles have a square number of cells each
    rows = [re.sub(r"[\s|+]", "", ln) for ln in lines if not re.fullmatch(r"[\s\-+|=]*", ln)]
    width = len(rows[0]) if rows else 0
    many = (
        len(rows) > 1
        and all(len(r) == width for r in rows)
        and width != len(rows)
        and width >= 4
        and math.isqrt(width) ** 2 == width
    )
    if many:
        classic = box in (None, "3x3", (3, 3)) and not diagonals and regions is None
        if classic and all(len(ln) == 81 for ln in lines):
            return _puzzle_array(text, name)
        out = []
        for line_no, ln in numbered:
            try:
                out.append(Sudoku.parse(ln, box=box, diagonals=diagonals, regions=regions))
            except InputError as exc:
                raise InputError(str(exc), path=name, line=line_no) from None
        return out
    try:
        return [Sudoku.parse("\n".join(lines), box=box, diagonals=diagonals, regions=regions)]
    except InputError as exc:
        raise InputError(str(exc), path=name) from None


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


def _totals(results: list[SearchResult]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for r in results:
        for k, v in r.counts.items():
            counts[k] = counts.get(k, 0) + int(v)
    return {
        "solve_seconds": sum(r.solve_seconds for r in results),
        "compile_seconds": sum(r.compile_seconds for r in results),
        "peak_bytes": max((r.peak_bytes for r in results), default=0),
        "counts": counts,
    }


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
    """Solve what ``source`` holds (see :func:`load_puzzles`): one puzzle gives a
    :class:`SudokuResult`, a file of classic 9x9 lines a :class:`BatchResult` (one kernel
    call), several other puzzles a :class:`SudokuResults`. Each is counted up to ``limit``
    solutions (2 decides uniqueness). ``time_limit`` covers the whole file: puzzles solved
    one by one stop at it (the ones not reached are left out, the one it stopped marked
    ``stopped``); a batch of 9x9 lines (microseconds a puzzle) is one uninterrupted call."""
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
    return SudokuResults(results=results, **_totals(results))


def rate_file(
    source: str | os.PathLike,
    *,
    box: str | tuple[int, int] | None = None,
    diagonals: bool = False,
    regions: str | None = None,
    time_limit: float | None = None,
) -> Rating | SudokuResults:
    """Rate what ``source`` holds (see :func:`load_puzzles`): one :class:`Rating`, or a
    :class:`SudokuResults` of ratings for a file of several puzzles. ``time_limit`` covers
    the whole file: the puzzles not reached are left out, the one it stopped is
    ``"unrated"``."""
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
    return SudokuResults(results=results, **_totals(results))
