"""rompicapo: puzzles and games solved by search, fast, and every answer checked.

Families (one subpackage each, never importing one another):

- :mod:`rompicapo.paths`  - jump-grid paths ("il gioco delle 100 caselle"), leapers' tours
- :mod:`rompicapo.cover`  - exact cover (dancing links), Sudoku, queens, polyominoes
- :mod:`rompicapo.games`  - two-player game search, Nim and Grundy, Connect Four
- :mod:`rompicapo.edges`  - edge-matching puzzles (Eternity II)

Shared plumbing lives in :mod:`rompicapo.common`; the ``rompicapo`` command in
:mod:`rompicapo.cli`.
"""

__version__ = "0.1.0"
