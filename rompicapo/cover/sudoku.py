"""Sudoku: any box size (4x4, 9x9, 16x16, 25x25, any R x C boxes), with variants (both
diagonals; jigsaw regions), solved as exact cover; a vector kernel for classic 9x9.

One module per job (this module gathers their public names, the way to import them):

- `rompicapo.cover.sudoku_model`: the puzzle (`Sudoku`), its text and files
  (`load_puzzles()`, `read_puzzles()`), drawing it, its exact-cover form;
- `rompicapo.cover.sudoku_solve`: `solve()` (one puzzle), `solve_batch()` (a
  file of classic 9x9 lines in one kernel call), `solve_file()`;
- `rompicapo.cover.sudoku_generate`: `generate()` (unique, minimal, symmetric, of a
  wanted difficulty);
- `rompicapo.cover.sudoku_rate`: `rate()`, `rate_file()` (difficulty by search
  effort);
- `rompicapo.cover.sudoku_hint`: the next logical step, explained.

```pycon
>>> from rompicapo.cover import sudoku
>>> sudoku.Sudoku.parse("1.34" "34.2" "2.43" "43.1").size
4

```"""

from rompicapo.cover.sudoku_generate import (
    DIFFICULTIES,
    DIFFICULTY_TRIES,
    GenerateResult,
    generate,
    is_minimal,
)
from rompicapo.cover.sudoku_model import (
    SYMBOLS,
    Sudoku,
    exact_cover_form,
    format_grid,
    load_puzzles,
    parse_box,
    read_puzzles,
)
from rompicapo.cover.sudoku_rate import Rating, rate, rate_file
from rompicapo.cover.sudoku_solve import (
    BatchResult,
    SudokuResult,
    SudokuResults,
    solve,
    solve_batch,
    solve_file,
)

__all__ = [
    "DIFFICULTIES",
    "DIFFICULTY_TRIES",
    "SYMBOLS",
    "BatchResult",
    "GenerateResult",
    "Rating",
    "Sudoku",
    "SudokuResult",
    "SudokuResults",
    "exact_cover_form",
    "format_grid",
    "generate",
    "is_minimal",
    "load_puzzles",
    "parse_box",
    "rate",
    "rate_file",
    "read_puzzles",
    "solve",
    "solve_batch",
    "solve_file",
]
