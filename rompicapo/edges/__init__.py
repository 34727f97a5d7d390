"""Edge-matching puzzles (Eternity II and any R x C set) and Joshua Blackwood's search.

One call per command (:mod:`rompicapo.edges.api`, re-exported here): :func:`solve` (search,
then optionally polish), :func:`improve_board`, :func:`score_board`, :func:`render_board`,
:func:`viewer_url`, :func:`make_puzzle` (generator). They take what a user names
(``"eternity2"`` or a pieces file, a board file or a viewer URL) and check every argument and
output path before any search.

- :mod:`rompicapo.edges.puzzle`: pieces, boards, clues, score, validation, files, viewer URLs;
- :mod:`rompicapo.edges.generate`: solvable puzzles of any size, with their solution;
- :mod:`rompicapo.edges.blackwood`: fill orders, schedules, candidate tables, ``search`` (one
  thread) and ``solve`` (processes or a Dask cluster);
- :mod:`rompicapo.edges.improve`: ``improve``, adaptive large-neighbourhood search that
  polishes a board (exact region repair in ``_repair_kernel``);
- :mod:`rompicapo.edges.study` and :mod:`rompicapo.edges.study_report`: parameter studies of
  Blackwood's search and their report;
- :mod:`rompicapo.edges.render`: SVG and PNG pictures, heat maps;
- :mod:`rompicapo.edges.verify`: the independent verifier (imports nothing from the search
  or the model);
- ``_kernel``: the numba search loop.
"""

from rompicapo.edges.api import (
    improve_board,
    render_board,
    score_board,
    solve,
    viewer_url,
)
from rompicapo.edges.generate import make_puzzle
from rompicapo.edges.hunt import HuntSettings, hunt

__all__ = [
    "HuntSettings",
    "hunt",
    "improve_board",
    "make_puzzle",
    "render_board",
    "score_board",
    "solve",
    "viewer_url",
]
