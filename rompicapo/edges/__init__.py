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
- :mod:`rompicapo.edges.hunt`: the score hunt, a resumable portfolio of Blackwood restarts
  and the improver over an elite pool, its boards kept in SQLite (:mod:`rompicapo.edges.hunt_db`);
- :mod:`rompicapo.edges.study` and :mod:`rompicapo.edges.study_report`: parameter studies of
  Blackwood's search and their report;
- :mod:`rompicapo.edges.render`: SVG and PNG pictures, heat maps;
- :mod:`rompicapo.edges.verify`: the independent verifier (imports nothing from the search
  or the model);
- ``_kernel``: the numba search loop.
"""

from rompicapo.edges.api import (
    RenderResult,
    ScoreResult,
    UrlResult,
    improve_board,
    render_board,
    score_board,
    solve,
    viewer_url,
)
from rompicapo.edges.blackwood import EdgeSearchResult, Settings, search
from rompicapo.edges.generate import GeneratedPuzzle, make_puzzle
from rompicapo.edges.hunt import HuntResult, HuntSettings, hunt
from rompicapo.edges.hunt_db import hunt_status
from rompicapo.edges.improve import ImproveResult
from rompicapo.edges.puzzle import (
    Board,
    Puzzle,
    board_url,
    eternity2,
    eternity2_clues,
    load_board,
    load_puzzle,
    save_board,
    score,
)
from rompicapo.edges.study import Budget, Design, load_results, run_study
from rompicapo.edges.study_report import study_report

__all__ = [
    "Board",
    "Budget",
    "Design",
    "EdgeSearchResult",
    "GeneratedPuzzle",
    "HuntResult",
    "HuntSettings",
    "ImproveResult",
    "Puzzle",
    "RenderResult",
    "ScoreResult",
    "Settings",
    "UrlResult",
    "board_url",
    "eternity2",
    "eternity2_clues",
    "hunt",
    "hunt_status",
    "improve_board",
    "load_board",
    "load_puzzle",
    "load_results",
    "make_puzzle",
    "render_board",
    "run_study",
    "save_board",
    "score",
    "score_board",
    "search",
    "solve",
    "study_report",
    "viewer_url",
]
