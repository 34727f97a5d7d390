"""Blackwood's search: fill orders, schedules, tables, and the kernel on small puzzles.

Expected numbers come from the algorithm description in
``shared/references/blackwood-algorithm.md`` (cited by section as "ref §N").
"""

from __future__ import annotations

import datafiles
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.common import ProgressEvent
from rompicapo.edges import _kernel as K
from rompicapo.edges.blackwood import (
    BLACKWOOD_BREAK_INDEXES,
    Settings,
    blackwood_quota,
    break_schedule,
    build_tables,
    fill_order,
    make_plan,
    quota_schedule,
    search,
    solve,
)
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import (
    Board,
    eternity2,
    eternity2_clues,
    load_pieces,
    score,
)
from rompicapo.edges.verify import board_problems, count_matched_joints, rotated_edges

BENCH = datafiles.DATA / "eternity2" / "benchmarks"


def _rank(order: np.ndarray) -> np.ndarray:
    rank = np.empty(len(order), dtype=int)
    rank[order] = np.arange(len(order))
    return rank


# --------------------------------------------------------------------------------------------
# Fill orders and schedules
# --------------------------------------------------------------------------------------------


def test_blackwood_order_matches_the_reference_grid() -> None:
    order = fill_order(16, 16, "blackwood")
    rank = _rank(order).reshape(16, 16)
    # top row of the grid drawn in ref §3 (row 0 = top here)
    assert rank[0].tolist() == [
        196, 197, 198, 199, 200, 205, 210, 215, 220, 225, 230, 235, 243, 249, 254, 255,
    ]  # fmt: skip
    assert rank[4].tolist() == [
        176, 177, 178, 179, 180, 201, 206, 211, 216, 221, 226, 231, 236, 237, 238, 239,
    ]  # fmt: skip
    assert rank[3, 12:].tolist() == [240, 244, 245, 246]
    assert rank[15].tolist() == list(range(16))  # bottom row first
    # notable positions, ref §3: south of centre 103, west 118, centre 119, east 120, north 135
    assert (rank[9, 7], rank[8, 6], rank[8, 7], rank[8, 8], rank[7, 7]) == (103, 118, 119, 120, 135)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 24), st.integers(2, 24), st.sampled_from(["blackwood", "rows"]))
def test_fill_orders_put_left_and_lower_neighbours_first(rows, cols, kind) -> None:
    order = fill_order(rows, cols, kind)
    assert sorted(order.tolist()) == list(range(rows * cols))
    rank = _rank(order).reshape(rows, cols)
    for r in range(rows):
        for c in range(cols):
            if c > 0:
                assert rank[r, c - 1] < rank[r, c]
            if r < rows - 1:
                assert rank[r + 1, c] < rank[r, c]


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 12), st.integers(2, 12))
def test_frame_order_checks_every_earlier_neighbour(rows, cols) -> None:
    """Any order works: each earlier neighbour is either keyed (left, below) or checked (above,
    right), so every joint between placed cells is enforced."""
    puzzle, _ = generate(rows, cols, frame_colours=2, inner_colours=3, seed=rows * cols)
    plan = make_plan(puzzle, settings=Settings(order="frame"))
    n = rows * cols
    rank = _rank(plan.pos_cell)
    assert sorted(plan.pos_cell.tolist()) == list(range(n))
    assert plan.pos_cell[:cols].tolist() == list(range(n - cols, n))  # bottom row first
    for i, cell in enumerate(plan.pos_cell.tolist()):
        r, c = divmod(cell, cols)
        expect = {
            "left": cell - 1 if c > 0 and rank[cell - 1] < i else n,
            "below": cell + cols if r < rows - 1 and rank[cell + cols] < i else n,
            "above": cell - cols if r > 0 and rank[cell - cols] < i else n,
            "right": cell + 1 if c < cols - 1 and rank[cell + 1] < i else n,
        }
        got = {
            "left": plan.pos_left[i],
            "below": plan.pos_below[i],
            "above": plan.pos_above[i],
            "right": plan.pos_right[i],
        }
        assert got == expect


def test_adjacent_pairs_inside_the_first_positions() -> None:
    # ref §3: adjacent pairs inside the first d placed cells: 247 -> 462, 248 -> 464,
    # 250 -> 468, 252 -> 472, 256 -> 480
    plan = make_plan(eternity2(), eternity2_clues("centre"))
    joints = plan.pos_joints
    assert [int(joints[d]) for d in (247, 248, 250, 252, 256)] == [462, 464, 468, 472, 480]


def test_quota_curve_values() -> None:
    # ref §4: values at i = 17, 20, 26, 40, 56, 76, 102, 120, 160 and none after 160
    at = [17, 20, 26, 40, 56, 76, 102, 120, 160]
    assert [blackwood_quota(i) for i in at] == [2, 11, 28, 48, 70, 89, 105, 110, 119]
    assert blackwood_quota(16) == 0 and blackwood_quota(161) == 0
    q = quota_schedule(256, "blackwood", 122)
    assert np.all(np.diff(q[:161]) >= 0)
    scaled = quota_schedule(100, "scaled", 61)
    assert scaled.max() <= 61 and scaled[0] == 0


def test_break_schedule() -> None:
    allow = break_schedule(256, "blackwood")
    # ref §5: A(i) = number of break indexes <= i; 0 before 201, 10 from 239 on
    assert allow[200] == 0 and allow[201] == 1 and allow[238] == 9 and allow[239] == 10
    assert allow[255] == len(BLACKWOOD_BREAK_INDEXES)
    assert not break_schedule(64, "none").any()
    assert break_schedule(128, "scaled")[-1] == 10
    # ref §9: Bucas's JB470 indexes {197, 203, 210, 216, 221, 225, 229, 233, 236, 238}
    bucas = break_schedule(256, "bucas")
    assert bucas[196] == 0 and bucas[197] == 1 and bucas[238] == 10
    assert break_schedule(256, "clues")[149] == 0 and break_schedule(256, "clues")[-1] == 15


def test_eternity2_heuristic_sides() -> None:
    plan = make_plan(eternity2(), eternity2_clues("centre"))
    # ref §2: colours {13, 16, 10} cover 24 + 50 + 48 = 122 piece sides
    assert plan.settings.heuristic == (13, 16, 10)
    assert int(plan.heur_count.sum()) == 122


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


def _decode(word: int) -> tuple[int, int, int, int, int, int]:
    return (
        word & K.PIECE_MASK,
        (word >> K.ROT_SHIFT) & 3,
        (word >> K.TOP_SHIFT) & K.COLOUR_MASK,
        (word >> K.RIGHT_SHIFT) & K.COLOUR_MASK,
        (word >> K.HEUR_SHIFT) & 7,
        word >> K.BREAK_SHIFT,
    )


def test_eternity2_tables_invariants() -> None:
    puzzle = eternity2()
    plan = make_plan(puzzle, eternity2_clues("centre"))
    tables = build_tables(plan, np.random.default_rng(5))
    nc = tables.n_colours
    frame = puzzle.frame_colours
    sizes_exact, sizes_break = [], []
    first_position = {int(t): i for i, t in reversed(list(enumerate(tables.pos_table)))}
    assert len(first_position) == 11  # corner/border/inner kinds, early/late, clue filters
    for t, i in first_position.items():
        spec = plan.specs[i]
        if spec[0] == "clue":
            # ref §7: the centre table holds only 139 at rotation 2 under key (11, 6)
            entries = tables.entries(t, 11, 6)
            assert [_decode(int(w))[:2] for w in entries] == [(138, 2)]
            continue
        _, top_req, right_req, with_breaks, _, _, _ = spec
        for key in range(nc * nc):
            left, below = divmod(key, nc)
            entries = [_decode(int(w)) for w in tables.entries(t, left, below)]
            breaks = [e[5] for e in entries]
            # break entries come after every exact one (ref §2 sort score)
            assert breaks == sorted(breaks)
            exact_h = [e[4] for e in entries if e[5] == 0]
            assert exact_h == sorted(exact_h, reverse=True) or spec[4]
            for piece, rot, top, right, _heur, brk in entries:
                edges = rotated_edges(puzzle.pieces[piece].tolist(), rot)
                assert (edges[0], edges[1]) == (top, right)
                assert piece != 138  # the clue piece lives only in the centre table
                if top_req >= 0:
                    assert top == top_req
                else:
                    assert top != 0
                if right_req >= 0:
                    assert right == right_req
                else:
                    assert right != 0
                wrong = [s for s, want in ((3, left), (2, below)) if edges[s] != want]
                assert len(wrong) == brk <= 1 and (brk == 0 or with_breaks)
                for s in wrong:  # never on grey, never on a frame colour (ref §2)
                    assert edges[s] not in frame and edges[s] != 0
            if plan.specs[i][3]:
                sizes_break.append(len(entries))
            else:
                sizes_exact.append(len(entries))
    # ref §2 (measured): inner exact lists <= 7 entries, with-break lists <= 96
    assert max(sizes_exact) <= 12 and max(sizes_break) <= 96
    # the south-of-centre cell (row 9, col 7) only takes pieces showing 6 on top (ref §7)
    assert plan.specs[103][1] == 6 and plan.specs[118][2] == 11


# --------------------------------------------------------------------------------------------
# The kernel on small puzzles: every answer checked by the independent verifier
# --------------------------------------------------------------------------------------------


def _checked(result, puzzle) -> None:
    assert result.verify()
    placements = result.board.placements()
    assert board_problems(puzzle.rows, puzzle.cols, puzzle.pieces, placements) == []
    assert count_matched_joints(puzzle.rows, puzzle.cols, puzzle.pieces, placements) == result.score


@pytest.mark.parametrize(
    ("rows", "cols", "f", "i", "seed"),
    [(3, 3, 1, 2, 0), (4, 6, 2, 3, 1), (5, 5, 2, 4, 2), (6, 6, 3, 5, 3), (2, 7, 1, 2, 4)],
)
def test_kernel_solves_generated_puzzles(rows, cols, f, i, seed) -> None:
    puzzle, _ = generate(rows, cols, frame_colours=f, inner_colours=i, seed=seed)
    result = search(puzzle, time_limit=20, seed=seed)
    assert result.solved and result.score == puzzle.n_joints
    assert result.counts["placements"] >= rows * cols
    _checked(result, puzzle)


@pytest.mark.parametrize(
    "name",
    ["brendan_03x03", "brendan_04x04", "brendan_05x05", "brendan_06x06", "e2_clue1_6x6",
     "e2_clue3_6x6", "e2_clue2_6x12", "e2_clue4_6x12"],
)  # fmt: skip
def test_kernel_solves_small_benchmark_sets(name) -> None:
    puzzle = load_pieces(BENCH / f"{name}_pieces.txt", allow_duplicates=True)
    result = search(puzzle, time_limit=30, seed=1)
    assert result.solved, f"{name}: best {result.score}/{puzzle.n_joints}"
    _checked(result, puzzle)


@pytest.mark.parametrize("order", ["frame", "rows"])
def test_kernel_solves_with_other_orders(order) -> None:
    for seed, (rows, cols) in enumerate([(4, 4), (5, 7), (6, 6)]):
        puzzle, _ = generate(rows, cols, frame_colours=2, inner_colours=4, seed=seed)
        result = search(puzzle, time_limit=20, seed=seed, settings=Settings(order=order))
        assert result.solved, (order, rows, cols)
        _checked(result, puzzle)


def test_exhausted_search_proves_no_perfect_board() -> None:
    puzzle, solution = generate(3, 3, frame_colours=1, inner_colours=3, seed=9)
    pieces = puzzle.pieces.copy()
    k = int(solution.piece[1, 1])  # the only inner piece: recolour one side, no solution left
    pieces[k, 0] = 4
    from rompicapo.edges.puzzle import Puzzle

    broken = Puzzle(3, 3, pieces, "broken")
    result = search(broken, time_limit=10)
    assert result.exhausted and not result.solved
    assert result.score == broken.n_joints - 1  # the greedy completion places the last piece
    _checked(result, broken)


def test_clues_are_kept_and_respected() -> None:
    puzzle, solution = generate(6, 6, frame_colours=2, inner_colours=4, seed=11)
    clues = Board.empty(6, 6)
    for r, c in ((2, 3), (4, 1)):
        clues.piece[r, c], clues.rotation[r, c] = solution.piece[r, c], solution.rotation[r, c]
    result = search(puzzle, clues, time_limit=20, seed=3)
    assert result.solved
    for r, c, k, rot in clues.placements():
        assert (result.board.piece[r, c], result.board.rotation[r, c]) == (k, rot)
    _checked(result, puzzle)


def test_eternity2_short_run_with_blackwood_settings() -> None:
    puzzle = eternity2()
    result = search(
        puzzle, eternity2_clues("centre"), time_limit=None, node_limit=3_000_000, seed=2
    )
    _checked(result, puzzle)
    # the centre clue stays where the rules put it (piece 139, rotation 2 at I8)
    if result.partial.piece[8, 7] >= 0:
        assert (result.partial.piece[8, 7], result.partial.rotation[8, 7]) == (138, 2)
    assert (result.board.piece[8, 7], result.board.rotation[8, 7]) == (138, 2)
    assert result.counts["nodes"] == 3_000_000
    # nodes = placements + retreats (ref §6 measured nodes ~ 2 x placements)
    assert result.counts["nodes"] / 2 <= result.counts["placements"] <= result.counts["nodes"]
    # no breaks before position 201: a board of depth d <= 201 has no mismatched joint
    assert result.search_score == score(result.partial, puzzle)
    assert result.heat is not None and result.heat.sum() == result.counts["placements"]


def test_same_seed_same_search() -> None:
    puzzle, _ = generate(7, 7, frame_colours=3, inner_colours=6, seed=4)
    a = search(
        puzzle, time_limit=None, node_limit=200_000, seed=8, settings=Settings(breaks="scaled")
    )
    b = search(
        puzzle, time_limit=None, node_limit=200_000, seed=8, settings=Settings(breaks="scaled")
    )
    assert a.counts == b.counts and a.board == b.board


def test_solve_in_two_processes_collects_the_best() -> None:
    puzzle, _ = generate(5, 5, frame_colours=2, inner_colours=3, seed=6)
    result = solve(puzzle, time_limit=20, jobs=2, seed=1)
    assert result.solved and result.settings["jobs"] == 2
    _checked(result, puzzle)


def test_ctrl_c_returns_the_best_board_so_far() -> None:
    """A KeyboardInterrupt (raised here from the progress callback, as Ctrl-C would be between
    two kernel calls) ends the search with the best board found, counted and verified."""
    puzzle = eternity2()
    calls = []

    def interrupt(event: ProgressEvent) -> None:
        if event.kind != "progress":
            return
        calls.append(event.counts)
        raise KeyboardInterrupt

    result = search(puzzle, eternity2_clues("centre"), time_limit=30, seed=4, progress=interrupt)
    assert result.interrupted and len(calls) == 1
    assert result.counts["placements"] == calls[0]["placements"] > 0
    assert result.search_score == calls[0]["best_score"] > 0
    _checked(result, puzzle)


def test_progress_events_carry_the_best_board() -> None:
    puzzle, _ = generate(5, 5, frame_colours=2, inner_colours=3, seed=3)
    events: list[ProgressEvent] = []
    result = search(puzzle, time_limit=None, node_limit=20_000, seed=0, progress=events.append)
    bests = [e for e in events if e.kind == "best"]
    assert bests and bests[-1].best == result.search_score
    assert bests[-1].answer == result.partial.placements()


def test_on_progress_still_works_and_names_progress() -> None:
    puzzle, _ = generate(5, 5, frame_colours=2, inner_colours=3, seed=3)
    reports: list[dict] = []
    with pytest.warns(DeprecationWarning, match="progress="):
        result = search(puzzle, time_limit=None, node_limit=20_000, on_progress=reports.append)
    assert reports and reports[-1]["best"] == result.partial.placements()
    with pytest.warns(DeprecationWarning, match="progress="):
        solve(puzzle, time_limit=None, node_limit=1000, jobs=1, on_progress=reports.append)


def test_all_five_clues_use_the_clue_aware_settings() -> None:
    puzzle, clues = eternity2(), eternity2_clues("all")
    plan = make_plan(puzzle, clues)
    assert (plan.settings.quota, plan.settings.breaks, plan.settings.quota_scale) == (
        "blackwood",
        "clues",
        0.9,
    )
    # the neighbours of every hint piece filled before it only take matching candidates
    for r, c, k, rot in clues.placements():
        edges = puzzle.edges(k, rot)
        i_below = int(np.nonzero(plan.pos_cell == (r + 1) * 16 + c)[0][0])
        i_left = int(np.nonzero(plan.pos_cell == r * 16 + c - 1)[0][0])
        assert plan.specs[i_below][1] == edges[2] and plan.specs[i_left][2] == edges[3]
    result = search(puzzle, clues, time_limit=None, node_limit=2_000_000, seed=1)
    _checked(result, puzzle)
    for r, c, k, rot in clues.placements():
        assert (result.board.piece[r, c], result.board.rotation[r, c]) == (k, rot)
