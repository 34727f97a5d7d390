"""The exact kernel for perfect boards (forward checking, fail-first candidate order).

It must find what Blackwood's kernel finds and refute what it refutes: both search the whole
tree of a fill order when there is no perfect board. Expected solution counts are the shipped
solution files' (every Brendan set is solvable) and the generator's planted solution.
"""

from __future__ import annotations

from pathlib import Path

import datafiles
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rompicapo.edges import _kernel as K
from rompicapo.edges.blackwood import Settings, build_tables, make_plan, search
from rompicapo.edges.blackwood_walker import exact_state, run_exact
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import Puzzle, load_pieces
from rompicapo.edges.verify import board_problems, count_matched_joints

BENCH = datafiles.DATA / "eternity2" / "benchmarks"


def _perfect(result, puzzle: Puzzle) -> bool:
    placements = result.board.placements()
    return (
        board_problems(puzzle.rows, puzzle.cols, puzzle.pieces, placements) == []
        and count_matched_joints(puzzle.rows, puzzle.cols, puzzle.pieces, placements)
        == puzzle.n_joints
    )


@pytest.mark.parametrize("name", ["brendan_05x05", "brendan_06x06"])
@pytest.mark.parametrize("seed", [0, 1])
def test_exact_kernel_finds_a_perfect_brendan_board(name, seed) -> None:
    puzzle = load_pieces(BENCH / f"{name}_pieces.txt", allow_duplicates=True)
    settings_ = Settings(order="rows", restart_nodes=10**12)
    assert make_plan(puzzle, settings=settings_).exact
    result = search(puzzle, settings=settings_, time_limit=60, seed=seed)
    assert result.solved and result.verify()
    assert result.counts["restarts"] == 1  # one depth-first search, no restart needed
    assert _perfect(result, puzzle)  # the independent verifier


def test_value_order_table_runs_blackwoods_kernel() -> None:
    puzzle, _ = generate(4, 4, frame_colours=2, inner_colours=3, seed=5)
    assert make_plan(puzzle).exact
    assert not make_plan(puzzle, settings=Settings(value_order="table")).exact
    # Blackwood's settings (quota, breaks) never use the exact kernel
    assert not make_plan(puzzle, settings=Settings(quota="scaled", breaks="scaled")).exact


def _first_board(puzzle: Puzzle, order: str, value_order: str, seed: int) -> tuple[bool, int]:
    """Search the whole tree (no time limit, one run): (found, nodes)."""
    result = search(
        puzzle,
        settings=Settings(order=order, value_order=value_order, restart_nodes=10**12),
        time_limit=None,
        seed=seed,
    )
    assert result.solved or result.exhausted
    if result.solved:
        assert _perfect(result, puzzle)
    return result.solved, result.counts["nodes"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(3, 4),
    st.integers(3, 5),
    st.integers(0, 10**6),
    st.sampled_from(["rows", "frame", "diagonal"]),
    st.booleans(),
)
def test_exact_and_table_kernels_agree_on_solvability(rows, cols, seed, order, damage) -> None:
    puzzle, solution = generate(rows, cols, frame_colours=2, inner_colours=3, seed=seed)
    if damage:
        # recolour one inner side of an inner piece: usually no perfect board is left
        rng = np.random.default_rng(seed)
        pieces = puzzle.pieces.copy()
        k = int(solution.piece[1, 1])
        side = int(rng.integers(4))
        pieces[k, side] = 1 + (int(pieces[k, side]) % int(pieces.max()))
        puzzle = Puzzle(rows, cols, pieces, "damaged")
    exact, _ = _first_board(puzzle, order, "fail-first", seed)
    table, _ = _first_board(puzzle, order, "table", seed)
    assert exact == table
    if not damage:
        assert exact  # the planted solution is there


def test_candidate_lists_are_sorted_fewest_options_next_first() -> None:
    puzzle, _ = generate(5, 5, frame_colours=2, inner_colours=3, seed=2)
    plan = make_plan(puzzle, settings=Settings(order="rows"))
    tables = build_tables(plan, np.random.default_rng(0))
    n = puzzle.rows * puzzle.cols
    state = K.new_state(n, plan.copies)
    extra = exact_state(tables, n)
    run_exact(plan, tables, state, extra, 40)
    cand, n_cand, _ = extra
    avail, _, top, right = state[0], state[1], state[2].copy(), state[3].copy()
    depth = int(state[-1][K.C_DEPTH])
    # the lists of the positions on the board were made with the pieces of the earlier ones
    # still placed and the later ones free: rebuild that for the deepest listed position
    i = min(depth, n - 1) - 1
    placed = state[1]
    free = avail.copy()
    for q in range(i, n):
        if placed[q] >= 0:
            free[tables.ent[placed[q]] & K.PIECE_MASK] += 1
    supports = []
    for j in cand[i, : n_cand[i]].tolist():
        e = int(tables.ent[j])
        cell = int(plan.pos_cell[i])
        top[cell] = (e >> K.TOP_SHIFT) & K.COLOUR_MASK
        right[cell] = (e >> K.RIGHT_SHIFT) & K.COLOUR_MASK
        nxt = (
            int(tables.pos_table[i + 1]) * tables.n_colours**2
            + int(right[plan.pos_left[i + 1]]) * tables.n_colours
            + int(top[plan.pos_below[i + 1]])
        )
        free[e & K.PIECE_MASK] -= 1
        lst = tables.ent[tables.tab_start[nxt] : tables.tab_start[nxt + 1]]
        supports.append(int((free[lst & K.PIECE_MASK] > 0).sum()))
        free[e & K.PIECE_MASK] += 1
    assert supports, "the deepest position has candidates"
    assert all(s > 0 for s in supports)  # forward checking dropped the dead ends
    assert supports == sorted(supports)


def test_unknown_value_order_is_an_input_error() -> None:
    from rompicapo.common import InputError

    puzzle, _ = generate(3, 3, frame_colours=1, inner_colours=2, seed=0)
    with pytest.raises(InputError, match="value order"):
        make_plan(puzzle, settings=Settings(value_order="best"))


RUNS = Path(__file__).resolve().parents[2] / "runs"


def test_the_8x8_board_found_by_the_search_is_perfect() -> None:
    # runs/edges-brendan-08x08-board.txt: written from search(..., seed=3) (see its header)
    from rompicapo.edges.puzzle import load_board

    puzzle = load_pieces(BENCH / "brendan_08x08_pieces.txt", allow_duplicates=True)
    board = load_board(RUNS / "edges-brendan-08x08-board.txt", puzzle)
    placements = board.placements()
    assert board_problems(8, 8, puzzle.pieces, placements) == []
    assert count_matched_joints(8, 8, puzzle.pieces, placements) == puzzle.n_joints == 112


@pytest.mark.slow
def test_the_8x8_search_replays() -> None:
    # about 1.0e11 nodes: 40 min of one core here
    puzzle = load_pieces(BENCH / "brendan_08x08_pieces.txt", allow_duplicates=True)
    result = search(
        puzzle, settings=Settings(order="rows", restart_nodes=10**16), time_limit=None, seed=3
    )
    assert result.solved and _perfect(result, puzzle)
    assert result.counts["nodes"] <= 101_852_496_620  # the recorded run (deterministic)
