"""A Sudoku and its text: the grid (any box size, both diagonals, jigsaw regions), reading it
from a line, a printed grid or a file, drawing it, and its exact-cover form.

Text: a puzzle is N×N symbols row by row, ``1-9`` then ``A-Z`` (N <= 35; for N = 16 the digits
are 1-9, A-G), with ``.``, ``0`` or ``_`` for an empty cell; blanks, ``|``, ``+`` and lines of
``-`` (a printed grid) are ignored. A file holds one puzzle (a line or a printed grid) or one
puzzle per line (`load_puzzles()`); a file of classic 9x9 lines is read straight into an
array (`read_puzzles()`) for the batch solver.

The exact-cover form: for an N x N grid, primary items ``p r c`` (cell filled), ``r r d`` (row
r has digit d), ``c c d``, ``b k d`` (box or region k), and with ``diagonals`` also ``d d`` and
``a d`` (main and anti-diagonal); one option per candidate (r, c, d): 4N^2 items (N = 9: 324)
and N^3 options (729). Givens are options forced into the solution; givens that clash simply
give no solution.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from rompicapo.common import InputError, check_int, check_memory, decode_text, read_text
from rompicapo.cover.problem import Problem

__all__ = [
    "SYMBOLS",
    "Sudoku",
    "exact_cover_form",
    "format_grid",
    "grid_from_options",
    "load_puzzles",
    "parse_box",
    "parse_regions",
    "problem_and_givens",
    "read_puzzles",
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
        layout = parse_regions(regions, n) if regions is not None else None
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


def parse_regions(layout: str, n: int) -> tuple[tuple[int, ...], ...]:
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


def problem_and_givens(puzzle: Sudoku) -> tuple[Problem, list[int]]:
    n = puzzle.size
    problem = exact_cover_form(n, puzzle.box, puzzle.diagonals, puzzle.regions)
    givens = [
        (r * n + c) * n + v - 1 for r in range(n) for c in range(n) if (v := puzzle.grid[r][c])
    ]
    return problem, givens


def grid_from_options(n: int, options: list[int]) -> list[list[int]]:
    grid = [[0] * n for _ in range(n)]
    for o in options:
        cell, d = divmod(o, n)
        grid[cell // n][cell % n] = d + 1
    return grid


def read_puzzles(path: str | Path | bytes) -> np.ndarray:
    """Every 81-character puzzle line of a file (``#`` comments and blank lines skipped) as a
    ``uint8[P, 81]`` array, 0 for empty; a line of another length or with a bad character is
    an error naming the file and the line. ``path`` may also be the file's bytes. The file is
    read with [`rompicapo.common.read_text()`][rompicapo.common.read_text] (binary, non-UTF-8
    files refused)."""
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

    A file of several lines of equal length (``#`` comments and blank lines skipped) holds one
    puzzle per line when each line has a square number of cells (blanks, ``|`` and ``+`` ignored)
    and the lines are not as many as their cells (then they are the rows of one grid, printed or
    not). A file of classic 9x9 lines comes back as a ``uint8[P, 81]`` array for `solve_batch()`;
    anything else as a list of `Sudoku`. Errors name the file and line.
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
