"""Jump-grid paths: fill an R x C grid visiting every cell once with leaper moves.

"Il gioco delle 100 caselle": write 1..R×C on the board so that each number is one jump from
the previous one, a jump being 3 cells along a row or column or 2 along a diagonal. Other
leapers (the knight, any symmetric set of (dr, dc)) work the same way.

- `construct()` finds one path (Warnsdorff's rule + Pósa rotations, any board, any start);
  [`find_path()`][rompicapo.paths.find_path] also checks it and writes and draws it where asked,
  every output path checked before the search; [`write_path()`][rompicapo.paths.write_path] saves a
  path as ``.npy``, ``.rpath`` or ``.txt`` (the numbered grid), and
  [`load_path()`][rompicapo.paths.load_path] reads each back;
- `rompicapo.paths.cycles` makes closed tours by blocks (caselle, the knight, any leaper
  with a block table), read from any start, with O(1) ``cell_at`` / ``step_of``;
- [`count_paths()`][rompicapo.paths.count_paths] counts them all exactly,
  [`search_path()`][rompicapo.paths.search_path] finds one or proves none,
  [`iter_paths()`][rompicapo.paths.iter_paths] streams them, `count_end_matrix()` counts them by
  (start, end) pair;
- [`verify_path()`][rompicapo.paths.verify_path] checks a path with code that shares nothing with
  the solvers;
- [`rompicapo.paths.render`][rompicapo.paths.render] draws a path as text, PDF, PNG or SVG.

```pycon
>>> from rompicapo.paths import construct
>>> res = construct(10, 10)
>>> res.found, res.verify(), int(res.grid()[0, 0])
(True, True, 1)

```"""

from rompicapo.paths import render
from rompicapo.paths.api import (
    BlockLookup,
    FileCheck,
    cells_at,
    check_path_file,
    find_path,
    steps_of,
)
from rompicapo.paths.blocks import BlockPath
from rompicapo.paths.board import parse_cell, parse_size
from rompicapo.paths.construct import construct
from rompicapo.paths.count import (
    CountResult,
    ExhaustiveResult,
    count_paths,
    iter_paths,
    search_path,
    start_classes,
)
from rompicapo.paths.files import load_path, write_path
from rompicapo.paths.moves import CASELLE, KNIGHT, MoveSet, parse_moves
from rompicapo.paths.result import PathResult
from rompicapo.paths.strategies import blocks_refusal
from rompicapo.paths.verify import PathCheck, verify_path, verify_path_file

__all__ = [
    "CASELLE",
    "KNIGHT",
    "BlockLookup",
    "BlockPath",
    "CountResult",
    "ExhaustiveResult",
    "FileCheck",
    "MoveSet",
    "PathCheck",
    "PathResult",
    "blocks_refusal",
    "cells_at",
    "check_path_file",
    "construct",
    "count_paths",
    "find_path",
    "iter_paths",
    "load_path",
    "parse_cell",
    "parse_moves",
    "parse_size",
    "render",
    "search_path",
    "start_classes",
    "steps_of",
    "verify_path",
    "verify_path_file",
    "write_path",
]
