"""A score hunt's search: the ``"score"`` breaks and ``Settings.stop_at_complete``.

With breaks allowed, Blackwood's search can complete a board that still has mismatched joints.
By default that ends the search (his rule); with ``stop_at_complete=False`` the search goes on
from it for complete boards with fewer breaks. Every board here is checked by the independent
verifier (`rompicapo.edges.verify`), not by the search's own score.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rompicapo.cli import main
from rompicapo.common import InputError
from rompicapo.edges import HuntSettings
from rompicapo.edges.blackwood import (
    BLACKWOOD_BREAK_INDEXES,
    SCORE_EXTRA_BREAKS,
    Settings,
    break_schedule,
    search,
)
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import eternity2, eternity2_clues, format_pieces
from rompicapo.edges.verify import board_problems, count_matched_joints


def _verified_score(result) -> int:
    puzzle, placements = result.puzzle, result.board.placements()
    pieces = puzzle.pieces.tolist()
    assert not board_problems(puzzle.rows, puzzle.cols, pieces, placements, complete=True)
    return count_matched_joints(puzzle.rows, puzzle.cols, pieces, placements)


def test_score_breaks_extend_blackwoods_near_the_end() -> None:
    allow = break_schedule(256, "score")
    assert (allow[:241] == break_schedule(256, "blackwood")[:241]).all()
    assert allow[240] == len(BLACKWOOD_BREAK_INDEXES) and allow[241] == 11
    assert allow[255] == len(BLACKWOOD_BREAK_INDEXES) + len(SCORE_EXTRA_BREAKS)
    assert all(239 < i < 256 for i in SCORE_EXTRA_BREAKS)
    with pytest.raises(InputError, match="256 cells"):
        break_schedule(64, "score")


def test_stop_at_complete_must_be_a_bool() -> None:
    with pytest.raises(InputError, match="stop_at_complete"):
        Settings(stop_at_complete="no")  # type: ignore[arg-type]


# order "rows" runs the walking kernel, "frame" the general one (it checks upper neighbours)
@pytest.mark.parametrize(("order", "puzzle_seed"), [("rows", 3), ("frame", 0)])
def test_search_goes_on_past_a_complete_board_with_breaks(order, puzzle_seed) -> None:
    puzzle, _ = generate(8, 8, frame_colours=3, inner_colours=6, seed=puzzle_seed)
    common = {"order": order, "breaks": "scaled", "quota": "none"}
    budget = 3_000_000
    stop = search(puzzle, settings=Settings(**common), node_limit=budget, time_limit=None, seed=1)
    # the first complete board ends Blackwood's search; it has breaks, so it is not solved
    assert stop.counts["nodes"] < budget and stop.search_depth == 64
    assert not stop.solved and stop.score < puzzle.n_joints and stop.verify()
    assert _verified_score(stop) == stop.score == stop.search_score
    go_on = search(
        puzzle,
        settings=Settings(**common, stop_at_complete=False),
        node_limit=budget,
        time_limit=None,
        seed=1,
    )
    # the same tree up to that board, then on: never worse, here better
    assert go_on.counts["nodes"] == budget or go_on.solved
    assert go_on.search_score > stop.search_score
    assert _verified_score(go_on) == go_on.score >= go_on.search_score
    assert go_on.verify() and go_on.settings["stop_at_complete"] is False
    assert "stop_at_complete" not in stop.settings


def test_search_going_on_still_stops_at_a_perfect_board() -> None:
    puzzle, _ = generate(4, 4, frame_colours=2, inner_colours=3, seed=5)
    settings = Settings(order="rows", breaks="scaled", quota="none", stop_at_complete=False)
    result = search(puzzle, settings=settings, node_limit=10**8, time_limit=None, seed=0)
    assert result.solved and result.counts["nodes"] < 10**8
    assert _verified_score(result) == puzzle.n_joints


def test_eternity2_score_breaks_complete_boards() -> None:
    puzzle, clues = eternity2(), eternity2_clues("centre")
    stop = search(
        puzzle, clues, settings=Settings(breaks="score"), node_limit=40_000_000,
        time_limit=None, seed=1008,
    )  # fmt: skip
    # measured: this seed completes a board after 26.6 M nodes, with 17 breaks
    assert stop.search_depth == 256 and not stop.solved and stop.counts["nodes"] < 40_000_000
    assert _verified_score(stop) == stop.score == stop.search_score >= 480 - 18
    go_on = search(
        puzzle, clues, settings=Settings(breaks="score", stop_at_complete=False),
        node_limit=40_000_000, time_limit=None, seed=1008,
    )  # fmt: skip
    assert go_on.counts["nodes"] == 40_000_000
    assert _verified_score(go_on) == go_on.score >= stop.score
    assert (go_on.board.piece[8, 7], go_on.board.rotation[8, 7]) == (138, 2)  # the clue


def test_hunt_restarts_use_the_score_search() -> None:
    e2 = eternity2()
    default = HuntSettings().search_for(e2, 1)
    assert default.breaks == "score" and default.stop_at_complete is False
    # a search given with breaks left to auto gets them too; one that names them keeps them
    held = HuntSettings(search=Settings(holdback=4)).search_for(e2, 1)
    assert held.breaks == "score" and held.holdback == 4
    named = HuntSettings(search=Settings(breaks="blackwood")).search_for(e2, 1)
    assert named.breaks == "blackwood"
    # all five clues, or another puzzle: the search's own auto settings
    assert HuntSettings().search_for(e2, 5).breaks == "auto"
    small, _ = generate(6, 6, frame_colours=2, inner_colours=3, seed=2)
    assert HuntSettings().search_for(small, 0).breaks == "auto"
    assert HuntSettings().to_dict(e2, 1)["search"]["breaks"] == "score"


def test_cli_score_breaks_and_going_on(tmp_path: Path, capsys) -> None:
    puzzle, _ = generate(6, 6, frame_colours=2, inner_colours=3, seed=2)
    pieces = tmp_path / "p.txt"
    pieces.write_text(format_pieces(puzzle))
    base = ["edges", "solve", str(pieces), "--jobs", "1"]
    assert main([*base, "--breaks", "score"]) == 2
    err = capsys.readouterr().err.strip()
    assert "256 cells" in err and len(err.splitlines()) == 1
    args = [*base, "--breaks", "scaled", "--no-stop-at-complete", "--nodes", "100000", "--json"]
    assert main(args) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["settings"]["stop_at_complete"] is False


def test_cli_best_score_names_the_hunts_pair(capsys) -> None:
    """``--best-score`` is ``--breaks score --no-stop-at-complete``, and refuses a flag that
    says otherwise beside it in one line."""
    base = ["edges", "solve", "eternity2", "--jobs", "1", "--nodes", "20000", "--json"]
    assert main([*base, "--best-score"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["settings"]["breaks"] == "score"
    assert info["settings"]["stop_at_complete"] is False
    for extra in (["--breaks", "blackwood"], ["--stop-at-complete"]):
        assert main([*base, "--best-score", *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert "--best-score means --breaks score --no-stop-at-complete" in err
        assert extra[-1] in err and len(err.splitlines()) == 1
    assert main([*base, "--best-score", "--breaks", "score"]) == 0  # the same thing twice
    capsys.readouterr()
    assert main(base) == 0  # without it, Blackwood's settings as before (his rule is unsaid)
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert settings["breaks"] == "blackwood" and "stop_at_complete" not in settings
