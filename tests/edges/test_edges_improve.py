"""The improver (issue 8, part 1): large-neighbourhood search over edge-matching boards.

Expected numbers: a perfect R x C board matches R(C-1) + C(R-1) joints (puzzle.py's
``n_joints``); the Brendan 6x6 set and its solution come from tests/data/eternity2
(jfbucas/eternityII-viewer, Brendan Owen's 2007 benchmarks).
"""

from __future__ import annotations

import json
from pathlib import Path

import datafiles
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.cli import main
from rompicapo.common import InputError, ProgressEvent
from rompicapo.edges import _repair_kernel as RK
from rompicapo.edges import make_puzzle
from rompicapo.edges.generate import generate
from rompicapo.edges.improve import OPERATORS, REPAIRS, _piece_tables, improve
from rompicapo.edges.improve_alns import MIN_WEIGHT
from rompicapo.edges.puzzle import Board, load_board, load_pieces, save_board, score
from rompicapo.edges.verify import board_problems, count_matched_joints

BENCH = datafiles.DATA / "eternity2" / "benchmarks"


def _scrambled(rows: int, cols: int, seed: int, holes: float = 0.0, colours=(2, 4)):
    """A generated puzzle and a valid board of it: the solution with its pieces shuffled
    among cells of the same kind (corner, border, inner), turned to keep grey on the rim,
    then a fraction ``holes`` of the cells emptied."""
    frame, inner = colours
    puzzle, solution = generate(rows, cols, frame_colours=frame, inner_colours=inner, seed=seed)
    rng = np.random.default_rng(seed)
    _, grey, _ = _piece_tables(puzzle)
    board = solution.copy()
    r, c = np.divmod(np.arange(rows * cols), cols)
    kind = (r == 0).astype(int) + (r == rows - 1) + (c == 0) + (c == cols - 1)
    for k in range(3):
        cells = np.nonzero(kind == k)[0]
        pieces = board.piece.ravel()[cells].copy()
        rng.shuffle(pieces)
        for cell, p in zip(cells.tolist(), pieces.tolist(), strict=True):
            rr, cc = divmod(cell, cols)
            rim = (rr == 0) | ((cc == cols - 1) << 1) | ((rr == rows - 1) << 2) | ((cc == 0) << 3)
            turns = [t for t in range(4) if grey[p * 4 + t] == rim]
            board.piece[rr, cc] = p
            board.rotation[rr, cc] = turns[int(rng.integers(len(turns)))]
    if holes:
        board.piece[rng.random((rows, cols)) < holes] = -1
    assert not board_problems(rows, cols, puzzle.pieces, board.placements(), complete=False)
    return puzzle, board, solution


# --------------------------------------------------------------------------------------------
# The kernel
# --------------------------------------------------------------------------------------------


def test_repair_kernel_finds_the_optimum_of_a_small_region() -> None:
    # the 3x3 inside of a 5x5 solution, its pieces listed in reverse: the optimum is the
    # solution's arrangement
    puzzle, _, solution = _scrambled(5, 5, seed=3)
    rot_edges, grey, ptype = _piece_tables(puzzle)
    piece = solution.piece.ravel().astype(np.int64)
    rot = solution.rotation.ravel().astype(np.int64)
    region = np.array([r * 5 + c for r in range(1, 4) for c in range(1, 4)])
    free = piece[region].copy()[::-1].copy()
    out = np.empty(25, dtype=np.int64), np.empty(25, dtype=np.int64), np.empty(25, dtype=np.int64)
    counters = np.zeros(RK.N_COUNTERS, dtype=np.int64)
    # floor offset 0: only strictly better than the solution counts; nothing is
    RK.repair(5, 5, piece, rot, rot_edges, grey, region, free, ptype[free], 0, -1, 10**6, *out,
              counters)  # fmt: skip
    assert counters[RK.R_PROVEN] == 1 and counters[RK.R_FOUND] == 0
    # the 3x3 region touches 24 joints (12 inside, 12 to the ring); all match
    assert counters[RK.R_CURRENT] == 24
    # the region emptied: any fill beats -1, the best is the solution's
    empty = piece.copy()
    empty[region] = -1
    RK.repair(5, 5, empty, rot, rot_edges, grey, region, free, ptype[free], -1, -1, 10**6, *out,
              counters)  # fmt: skip
    assert counters[RK.R_PROVEN] == 1 and counters[RK.R_FOUND] == 1 and counters[RK.R_BEST] == 24
    # target-first: the bound of the emptied region is 24 (a perfect fill exists), slack 0
    # finds it; and nothing reaches the bound + 1 (slack -1 is "off", so ask via the floor)
    RK.repair(5, 5, empty, rot, rot_edges, grey, region, free, ptype[free], -1, 0, 10**6, *out,
              counters)  # fmt: skip
    assert counters[RK.R_BOUND] == 24 and counters[RK.R_FOUND] == 1 and counters[RK.R_BEST] == 24


# --------------------------------------------------------------------------------------------
# The improver
# --------------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 6),
    st.integers(2, 6),
    st.integers(0, 10**6),
    st.sampled_from([0.0, 0.3, 1.0]),
    st.integers(0, 3),
)
def test_improver_never_lowers_the_score_nor_breaks_the_rules(rows, cols, seed, holes, clue):
    puzzle, board, solution = _scrambled(rows, cols, seed, holes)
    clues = None
    if clue:
        # pin `clue` cells of the solution that the board agrees with (or leaves empty)
        clues = Board.empty(rows, cols)
        rng = np.random.default_rng(seed)
        used = set(board.piece.ravel().tolist())
        for cell in rng.permutation(rows * cols)[:clue].tolist():
            r, c = divmod(cell, cols)
            k, rot = int(solution.piece[r, c]), int(solution.rotation[r, c])
            same = board.piece[r, c] == k and board.rotation[r, c] == rot
            if same or (board.piece[r, c] < 0 and k not in used):
                clues.piece[r, c], clues.rotation[r, c] = k, rot
    before = count_matched_joints(rows, cols, puzzle.pieces, board.placements())
    res = improve(board, puzzle, time_limit=None, node_limit=30, seed=seed, clues=clues)
    assert res.verify()
    assert res.score_before == before <= res.score_after
    assert not board_problems(rows, cols, puzzle.pieces, res.board.placements(), complete=True)
    assert res.score_after == score(res.board, puzzle)
    if clues is not None:
        for r, c, k, rot in clues.placements():
            assert (res.board.piece[r, c], res.board.rotation[r, c]) == (k, rot)


@pytest.mark.parametrize("acceptance", ["annealing", "lahc"])
def test_same_seed_same_board(acceptance: str) -> None:
    puzzle, board, _ = _scrambled(6, 6, seed=11)
    a = improve(board, puzzle, time_limit=None, node_limit=60, seed=5, acceptance=acceptance)
    b = improve(board, puzzle, time_limit=None, node_limit=60, seed=5, acceptance=acceptance)
    assert a.board == b.board and a.score_after == b.score_after
    ops = a.operators
    assert sum(o["uses"] for o in ops.values()) == a.iterations == 60
    assert a.counts["nodes"] == sum(o["nodes"] for o in ops.values())


def _damaged(size: str, seed: int, moved: int):
    """A generated puzzle (make_puzzle) and its solution with ``moved`` cells of each kind
    (inner, edge) traded among themselves and turned at random (grey kept on the rim)."""
    made = make_puzzle(size, frame_colours=2, inner_colours=4, seed=seed)
    puzzle, board = made.puzzle, made.solution.copy()
    rows, cols = puzzle.rows, puzzle.cols
    _, grey, _ = _piece_tables(puzzle)
    rng = np.random.default_rng(seed)
    r, c = np.divmod(np.arange(rows * cols), cols)
    kind = (r == 0).astype(int) + (r == rows - 1) + (c == 0) + (c == cols - 1)
    for k in (0, 1):
        cells = rng.permutation(np.nonzero(kind == k)[0])[:moved]
        pieces = board.piece.ravel()[cells].copy()[::-1]
        for cell, p in zip(cells.tolist(), pieces.tolist(), strict=True):
            rr, cc = divmod(cell, cols)
            rim = (rr == 0) | ((cc == cols - 1) << 1) | ((rr == rows - 1) << 2) | ((cc == 0) << 3)
            turns = [t for t in range(4) if grey[p * 4 + t] == rim]
            board.piece[rr, cc], board.rotation[rr, cc] = p, turns[int(rng.integers(len(turns)))]
    return puzzle, board


@pytest.mark.parametrize("acceptance", ["annealing", "lahc", "hill"])
@pytest.mark.parametrize("seed", [1, 2])
def test_damaged_generated_board_is_repaired_to_perfect(acceptance: str, seed: int) -> None:
    # 6x6, 2 + 4 colours: 5 inner and 5 edge pieces out of place; a perfect board exists (the
    # solution), every criterion finds one and stops there
    puzzle, board = _damaged("6x6", seed, moved=5)
    assert score(board, puzzle) < puzzle.n_joints
    res = improve(board, puzzle, time_limit=None, node_limit=20_000, seed=seed,
                  acceptance=acceptance)  # fmt: skip
    assert res.solved and res.score_after == puzzle.n_joints == 60 and res.verify()
    assert res.acceptance == acceptance and res.iterations < 20_000


def test_the_deep_repair_can_be_chosen() -> None:
    puzzle, board = _damaged("6x6", 5, moved=5)
    res = improve(board, puzzle, time_limit=None, node_limit=200, seed=1, repairs=("deep",))
    assert res.verify() and list(res.repairs) == ["deep"]
    assert res.repairs["deep"]["uses"] == res.iterations


@pytest.mark.parametrize("op", OPERATORS)
def test_each_operator_alone_keeps_the_rules_and_reports_its_weight(op: str) -> None:
    puzzle, board = _damaged("7x6", 3, moved=6)
    res = improve(board, puzzle, time_limit=None, node_limit=300, seed=4, operators=(op,))
    assert res.verify() and res.score_after >= res.score_before
    assert list(res.operators) == [op] and res.operators[op]["uses"] == res.iterations
    d = json.loads(json.dumps(res.to_dict()))
    assert d["operators"][op]["weight"] >= MIN_WEIGHT
    assert set(d["repairs"]) == {"branch-and-bound", "target"} < set(REPAIRS)
    assert sum(m["uses"] for m in d["repairs"].values()) == res.iterations
    assert d["acceptance"] == res.acceptance


def test_scrambled_board_is_improved_to_perfect() -> None:
    # 5x5, 2 + 4 colours: the region sizes cover the board, so the search reaches 40 joints
    puzzle, board, _ = _scrambled(5, 5, seed=2)
    res = improve(board, puzzle, time_limit=None, node_limit=5000, seed=0)  # stops when perfect
    assert res.solved and res.score_after == 40 and res.verify()
    assert res.history[0] == (0.0, res.score_before) and res.history[-1][1] == 40


def test_ctrl_c_returns_the_best_board_so_far() -> None:
    # 12x12 with Eternity II's share of colours: far from perfect after the first half second
    puzzle, board, _ = _scrambled(12, 12, seed=9, colours=(4, 12))
    calls = []

    def interrupt(event: ProgressEvent) -> None:  # the progress callback runs inside the loop
        if event.counts:
            calls.append(event)
            raise KeyboardInterrupt

    res = improve(board, puzzle, time_limit=None, seed=0, progress=interrupt)
    assert res.interrupted and len(calls) == 1 and res.verify()
    assert res.score_after == score(res.board, puzzle) >= res.score_before
    assert res.score_after == calls[0].counts["score"]


def test_on_progress_still_works_with_a_warning() -> None:
    # the earlier dict callback, kept for one release beside progress=
    puzzle, board, _ = _scrambled(8, 8, seed=4, colours=(3, 6))
    seen: list[dict] = []
    with pytest.warns(DeprecationWarning, match="progress="):
        res = improve(board, puzzle, time_limit=None, node_limit=300, seed=0,
                      on_progress=seen.append)  # fmt: skip
    assert seen and res.verify()
    with pytest.raises(InputError, match="not both"):  # one callback, under one of its names
        improve(board, puzzle, node_limit=3, on_progress=seen.append, progress=print)
    assert set(seen[0]) == {"seconds", "iterations", "score", "max_score"}
    assert seen[-1]["max_score"] == puzzle.n_joints
    assert all(s["score"] <= res.score_after for s in seen)


def test_node_cap_is_the_old_name_of_repair_nodes() -> None:
    puzzle, board, _ = _scrambled(6, 6, seed=11)
    new = improve(board, puzzle, time_limit=None, node_limit=40, seed=1, repair_nodes=300)
    with pytest.warns(DeprecationWarning, match="repair_nodes"):
        old = improve(board, puzzle, time_limit=None, node_limit=40, seed=1, node_cap=300)
    assert old.board == new.board and old.counts == new.counts


def test_perfect_completion_of_a_partial_brendan_board() -> None:
    puzzle = load_pieces(BENCH / "brendan_06x06_pieces.txt")
    solution = load_board(BENCH / "brendan_06x06_solution.txt", puzzle)
    partial = solution.copy()
    rng = np.random.default_rng(0)
    partial.piece[rng.random((6, 6)) < 0.5] = -1  # about half the cells emptied
    res = improve(partial, puzzle, time_limit=None, node_limit=5000, seed=0)
    assert res.solved and res.score_after == puzzle.n_joints == 60 and res.verify()
    assert res.score_before == score(partial, puzzle) < 60


def test_perfect_completion_of_a_mostly_empty_brendan_board() -> None:
    # 90 % of the 10x10 solution's cells emptied: too many holes for the kernel's exact
    # search; Blackwood's search with the rest pinned fills them (measured: 0.4 s)
    puzzle = load_pieces(BENCH / "brendan_10x10_pieces.txt")
    partial = load_board(BENCH / "brendan_10x10_solution.txt", puzzle)
    partial.piece[np.random.default_rng(0).random((10, 10)) < 0.9] = -1
    res = improve(partial, puzzle, time_limit=None, node_limit=2000, seed=0)
    assert res.solved and res.score_after == 180 and res.verify()


def test_bad_input_is_a_one_line_error() -> None:
    puzzle, board, solution = _scrambled(4, 4, seed=1)
    with pytest.raises(InputError, match="4x4"):
        improve(Board.empty(3, 4), puzzle, time_limit=1)
    twice = board.copy()
    twice.piece[0, 1] = twice.piece[0, 0]
    with pytest.raises(InputError, match="used at"):
        improve(twice, puzzle, time_limit=1)
    clues = Board.empty(4, 4)
    other = int(solution.piece[0, 0]) if board.piece[0, 0] != solution.piece[0, 0] else None
    if other is not None:
        clues.piece[0, 0], clues.rotation[0, 0] = other, solution.rotation[0, 0]
        with pytest.raises(InputError, match="clue"):
            improve(board, puzzle, time_limit=1, clues=clues)
    with pytest.raises(InputError, match="operators"):
        improve(board, puzzle, time_limit=1, operators=("nope",))
    with pytest.raises(InputError, match="repair_nodes"):
        improve(board, puzzle, time_limit=1, repair_nodes=0)
    with pytest.raises(InputError, match="repairs"):
        improve(board, puzzle, time_limit=1, repairs=("nope",))
    with pytest.raises(InputError, match="acceptance"):
        improve(board, puzzle, time_limit=1, acceptance="greedy")


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def test_cli_improve_round_trip(tmp_path: Path, capsys) -> None:
    puzzle, board, _ = _scrambled(6, 6, seed=7, holes=0.2)
    pieces, start, out = tmp_path / "p.txt", tmp_path / "b.txt", tmp_path / "out.txt"
    from rompicapo.edges.puzzle import format_pieces

    pieces.write_text(format_pieces(puzzle))
    save_board(start, board, puzzle)
    rc = main(["edges", "improve", str(start), str(pieces), "--time", "2", "--seed", "1",
               "--out", str(out), "--json"])  # fmt: skip
    assert rc == 0
    info = json.loads(capsys.readouterr().out)
    assert info["verified"] and info["score_after"] >= info["score_before"]
    assert main(["edges", "score", str(out), str(pieces), "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["valid"] and scored["score"] == info["score_after"]
    # plain output names both scores
    assert main(["edges", "improve", str(out), str(pieces), "--time", "0.5", "--quiet"]) == 0
    assert f"score {info['score_after']} -> " in capsys.readouterr().out


def test_cli_solve_polish(tmp_path: Path, capsys) -> None:
    puzzle, _, _ = _scrambled(6, 6, seed=4)
    pieces = tmp_path / "p.txt"
    from rompicapo.edges.puzzle import format_pieces

    pieces.write_text(format_pieces(puzzle))
    rc = main(["edges", "solve", str(pieces), "--time", "0.5", "--nodes", "2000", "--jobs", "1",
               "--polish", "1", "--json"])  # fmt: skip
    assert rc == 0
    info = json.loads(capsys.readouterr().out)
    assert info["polish"]["verified"] and info["polish"]["score_after"] >= info["search_score"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--time", "0"], "positive number of seconds"),
        (["--time", "1", "--node-cap", "0"], "must be at least 1"),
        (["--time", "1", "--clues", "centre"], "names Eternity II's clues"),
    ],
)
def test_cli_improve_bad_input(tmp_path: Path, capsys, args, message) -> None:
    puzzle, board, _ = _scrambled(4, 4, seed=1)
    from rompicapo.edges.puzzle import format_pieces

    pieces, start = tmp_path / "p.txt", tmp_path / "b.txt"
    pieces.write_text(format_pieces(puzzle))
    save_board(start, board, puzzle)
    try:
        code = main(["edges", "improve", str(start), str(pieces), *args])
    except SystemExit as exc:  # argparse's own refusals (a flag's type)
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_improve_missing_board(tmp_path: Path, capsys) -> None:
    assert main(["edges", "improve", str(tmp_path / "nope.txt"), "eternity2"]) == 2
    assert "does not exist" in capsys.readouterr().err
