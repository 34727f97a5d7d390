"""Edge-matching puzzles (Eternity II and any R x C set) and Joshua Blackwood's search.

One call per command (`rompicapo.edges.api`, re-exported here): [`solve()`][rompicapo.edges.solve]
(search, then optionally polish), [`improve_board()`][rompicapo.edges.improve_board],
[`score_board()`][rompicapo.edges.score_board], [`render_board()`][rompicapo.edges.render_board],
[`viewer_url()`][rompicapo.edges.viewer_url], [`make_puzzle()`][rompicapo.edges.make_puzzle]
(generator). They take what a user names (``"eternity2"`` or a pieces file, a board file or a viewer
URL) and check every argument and output path before any search.

- `rompicapo.edges.puzzle`: pieces, boards, clues, score, validation, files, viewer URLs;
- `rompicapo.edges.generate`: solvable puzzles of any size, with their solution;
- `rompicapo.edges.blackwood`: fill orders, schedules, candidate tables, ``search`` (one
  thread) and ``solve`` (processes or a Dask cluster);
- `rompicapo.edges.improve`: ``improve``, adaptive large-neighbourhood search that
  polishes a board (exact region repair in ``_repair_kernel``);
- `rompicapo.edges.hunt`: the score hunt, a resumable portfolio of Blackwood restarts
  and the improver over an elite pool, its boards kept in SQLite (`rompicapo.edges.hunt_db`);
- `rompicapo.edges.study` and `rompicapo.edges.study_report`: parameter studies of
  Blackwood's search and their report;
- `rompicapo.edges.render`: SVG and PNG pictures, heat maps;
- `rompicapo.edges.verify`: the independent verifier (imports nothing from the search
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
