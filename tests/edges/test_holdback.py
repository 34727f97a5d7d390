"""Verhaard's end game in Blackwood's search: the tiling measure, the held pieces, the option."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import rompicapo.edges
from rompicapo.cli import main
from rompicapo.common import InputError
from rompicapo.edges.blackwood import Settings, build_tables, make_plan, search
from rompicapo.edges.blackwood_holdback import (
    block_counts_of,
    default_release,
    held_types,
    tiling_scores,
)
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import Board, eternity2, eternity2_clues, format_pieces


def _brute_counts(pieces: list[list[int]]) -> list[int]:
    """Perfect 2x3 blocks per piece, by plain backtracking over (piece, distinct turn)."""
    turns = []
    for k, p in enumerate(pieces):
        seen = []
        for r in range(4):
            e = tuple(p[(s - r) % 4] for s in range(4))  # (top, right, bottom, left)
            if e not in seen:
                seen.append(e)
                turns.append((k, e))
    counts = [0] * len(pieces)

    def fill(cells: list) -> None:
        i = len(cells)
        if i == 6:
            for k, _ in cells:
                counts[k] += 1
            return
        for k, e in turns:
            if any(k == kk for kk, _ in cells):
                continue
            if i % 3 and cells[i - 1][1][1] != e[3]:
                continue
            if i >= 3 and cells[i - 3][1][2] != e[0]:
                continue
            fill([*cells, (k, e)])

    fill([])
    return counts


def test_block_counts_by_hand() -> None:
    # Seven pieces in two colours, with symmetric ones (a piece of one colour shows the same
    # sides in all four turns; (1, 2, 1, 2) in two).
    pieces = [[1, 1, 2, 2], [2, 2, 1, 1], [1, 2, 1, 2], [2, 1, 2, 1], [1, 1, 1, 2], [1, 1, 1, 1]]
    pieces.append([2, 2, 2, 1])
    assert block_counts_of(np.array(pieces)).tolist() == _brute_counts(pieces)


def test_block_counts_none_and_few() -> None:
    # colours 1..3 that never meet: no perfect block at all
    pieces = [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]]
    assert block_counts_of(np.array(pieces)).tolist() == [0] * 6
    # six copies of a one-colour piece: 6! orderings of the six pieces, each one block
    assert block_counts_of(np.array([[4, 4, 4, 4]] * 6)).tolist() == [720] * 6
    rng = np.random.default_rng(3)
    pieces = rng.integers(1, 4, size=(7, 4)).tolist()
    assert block_counts_of(np.array(pieces)).tolist() == _brute_counts(pieces)


def test_held_types_picks_best_tiling() -> None:
    puzzle, _ = generate(6, 6, frame_colours=2, inner_colours=3, seed=4)
    interior = (puzzle.pieces != 0).all(axis=1)
    held = held_types(puzzle, 3, interior)
    assert held.sum() == 3 and not (held & ~interior).any()
    scores = block_counts_of(puzzle.pieces[interior])
    by_piece = np.zeros(puzzle.n_pieces, dtype=np.int64)
    by_piece[interior] = scores
    assert by_piece[held].min() >= by_piece[interior & ~held].max()
    with pytest.raises(InputError, match="at most"):
        held_types(puzzle, int(interior.sum()) + 1, interior)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"holdback": -1}, "holdback"),
        ({"holdback": "eight"}, "holdback"),
        ({"holdback": 2, "holdback_release": -3}, "holdback_release"),
        ({"holdback": 2, "holdback_release": 1.5}, "holdback_release"),
        ({"holdback_release": 200}, "needs holdback"),
    ],
)
def test_settings_validation(kw: dict, match: str) -> None:
    with pytest.raises(InputError, match=match):
        Settings(**kw)


def test_plan_validation() -> None:
    puzzle, _ = generate(6, 6, frame_colours=2, inner_colours=3, seed=1)
    with pytest.raises(InputError, match="position"):
        make_plan(puzzle, settings=Settings(holdback=2, holdback_release=36))
    # identical pieces are one type, held all together or not at all
    inner = [p for p in puzzle.pieces.tolist() if 0 not in p]
    types = len({min(tuple(p[i:] + p[:i]) for i in range(4)) for p in inner})
    assert types < len(inner) == 16
    with pytest.raises(InputError, match=f"at most {types} "):
        make_plan(puzzle, settings=Settings(holdback=types + 1))
    # more held pieces than inner cells after the release
    with pytest.raises(InputError, match="hold back fewer"):
        make_plan(puzzle, settings=Settings(holdback=5, holdback_release=33))


def _check_held(settings: Settings, rows: int, seed: int, clue: bool = False) -> None:
    """A search with holdback on: no held piece before the release, the clue in its place."""
    puzzle, solution = generate(rows, rows, frame_colours=2, inner_colours=3, seed=seed)
    clues = Board.empty(rows, rows)
    if clue:
        r, c = rows // 2, rows // 2 - 1
        clues.piece[r, c], clues.rotation[r, c] = solution.piece[r, c], solution.rotation[r, c]
    plan = make_plan(puzzle, clues, settings)
    release = plan.settings.holdback_release
    assert release == (settings.holdback_release or default_release(rows, rows))
    assert plan.held is not None and plan.held.sum() == settings.holdback
    res = search(puzzle, clues, settings=settings, time_limit=None, node_limit=2_000_000)
    assert res.partial is not None
    assert res.search_depth >= release  # the test means something: the early cells are full
    # (a clue may be a copy of a held piece: it stays where it is)
    free = [i for i in range(release) if plan.specs[i][0] == "cell"]
    early = res.partial.piece.ravel()[plan.pos_cell[free]]
    early = early[early >= 0]
    assert not plan.held[plan.piece_type[early]].any()
    if clue:
        assert res.partial.piece[r, c] == solution.piece[r, c]
        assert res.partial.rotation[r, c] == solution.rotation[r, c]
        i = int(np.flatnonzero(plan.pos_cell == r * rows + c)[0])
        assert plan.specs[i][0] == "clue"


def test_held_pieces_wait_exact_kernel() -> None:
    _check_held(Settings(holdback=3, order="rows"), 6, seed=2)


def test_held_pieces_wait_walk_kernel_with_clue() -> None:
    st = Settings(holdback=3, order="rows", value_order="table", breaks=(30,))
    _check_held(st, 6, seed=3, clue=True)


def test_held_pieces_wait_general_kernel() -> None:
    # the frame order fills the inner cells last: release the held pieces among them
    st = Settings(holdback=3, holdback_release=28, order="frame", value_order="table")
    _check_held(st, 6, seed=5)


def test_held_pieces_wait_machine() -> None:
    st = Settings(holdback=4, order="rows", value_order="table", breaks=(60,), kernel="machine")
    _check_held(st, 8, seed=6)


def test_off_is_unchanged() -> None:
    puzzle, _ = generate(8, 8, frame_colours=2, inner_colours=4, seed=7)
    st = Settings(order="rows", value_order="table", breaks=(50, 55, 60))
    plan_default = make_plan(puzzle, settings=st)
    plan_off = make_plan(puzzle, settings=replace(st, holdback=0))
    assert plan_off.specs == plan_default.specs and plan_off.held is None
    a = build_tables(plan_default, np.random.default_rng(5))
    b = build_tables(plan_off, np.random.default_rng(5))
    assert (a.ent == b.ent).all() and (a.walk == b.walk).all()
    runs = [
        search(puzzle, settings=s, time_limit=None, node_limit=300_000, seed=9)
        for s in (st, replace(st, holdback=0))
    ]
    assert runs[0].board == runs[1].board and runs[0].counts == runs[1].counts
    assert runs[0].settings == runs[1].settings
    # and holdback on changes the tables of the early positions only
    on = make_plan(puzzle, settings=replace(st, holdback=4))
    release = on.settings.holdback_release
    assert on.specs[release:] == plan_default.specs[release:]
    assert all(s[-1] == "held" for s in on.specs[:release])


def test_eternity2_holds_no_heuristic_piece() -> None:
    puzzle, clues = eternity2(), eternity2_clues("centre")
    plan = make_plan(puzzle, clues, Settings(holdback=16))
    assert plan.settings.holdback_release == 256 - 48
    assert plan.held is not None and plan.held.sum() == 16
    assert not plan.heur_count[plan.held].any()  # the quota wants those pieces early
    assert not (puzzle.pieces[plan.held] == 0).any()
    scores = tiling_scores(puzzle)
    allowed = (puzzle.pieces != 0).all(axis=1) & (plan.heur_count == 0)
    allowed[clues.piece[clues.piece >= 0]] = False
    assert scores[plan.held].min() >= scores[allowed & ~plan.held].max()
    centre = int(np.flatnonzero(plan.pos_cell == 8 * 16 + 7)[0])
    assert plan.specs[centre] == ("clue", 138, 2)


def _pieces_file(tmp_path: Path) -> Path:
    puzzle, _ = generate(6, 6, frame_colours=2, inner_colours=3, seed=2)
    path = tmp_path / "p.txt"
    path.write_text(format_pieces(puzzle))
    return path


def test_cli_solve_holdback(tmp_path: Path, capsys) -> None:
    pieces = _pieces_file(tmp_path)
    args = ["edges", "solve", str(pieces), "--time", "20", "--jobs", "1", "--json"]
    assert main([*args, "--holdback", "3", "--holdback-release", "20"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["solved"] and info["settings"]["holdback"] == 3
    assert info["settings"]["holdback_release"] == 20
    assert main([*args, "--holdback", "99"]) == 2
    err = capsys.readouterr().err.strip()
    assert "holdback must be at most" in err and len(err.splitlines()) == 1


def test_cli_hunt_passes_holdback(tmp_path: Path, monkeypatch) -> None:
    seen = {}

    def fake_hunt(*args, settings, **kwargs):
        seen["search"] = settings.search
        raise InputError("stop here")

    monkeypatch.setattr(rompicapo.edges, "hunt", fake_hunt)
    pieces = _pieces_file(tmp_path)
    db = tmp_path / "h.sqlite"
    assert main(["edges", "hunt", str(pieces), "--db", str(db), "--holdback", "4"]) == 2
    assert seen["search"] == Settings(holdback=4, stop_at_complete=False)
    assert main(["edges", "hunt", str(pieces), "--db", str(db)]) == 2
    assert seen["search"] is None
