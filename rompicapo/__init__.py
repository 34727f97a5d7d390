"""rompicapo: puzzles and games solved by search, fast, and every answer checked.

Families (one subpackage each, never importing one another):

- `rompicapo.paths`  - jump-grid paths ("il gioco delle 100 caselle"), leapers' tours
- `rompicapo.cover`  - exact cover (dancing links), Sudoku, queens, polyominoes
- `rompicapo.games`  - two-player game search, Nim and Grundy, Connect Four
- `rompicapo.edges`  - edge-matching puzzles (Eternity II)

Shared plumbing lives in `rompicapo.common`; the ``rompicapo`` command in
`rompicapo.cli`.
"""

__version__ = "0.1.0"
