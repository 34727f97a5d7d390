"""Model and files: record boards, shipped solutions, URLs, bad files, generator."""

from __future__ import annotations

import contextlib

import datafiles
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.common import InputError
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import (
    Board,
    board_from_url,
    board_url,
    eternity2,
    eternity2_clues,
    format_board,
    load_board,
    load_pieces,
    mismatched_joints,
    parse_board,
    parse_pieces,
    score,
    validate,
)
from rompicapo.edges.verify import board_problems, count_matched_joints, rotated_edges

DATA = datafiles.DATA / "eternity2"
BENCH = DATA / "benchmarks"

SOLVED_SETS = sorted(p.name[: -len("_pieces.txt")] for p in BENCH.glob("*_pieces.txt"))


@pytest.mark.parametrize(
    ("name", "expected"),
    # expected scores: data/eternity2/README.md and the boards' headers (published 470 and 467)
    [("eternity2_board_blackwood_470.txt", 470), ("eternity2_board_verhaard_467.txt", 467)],
)
def test_record_boards_rescore_exactly(name: str, expected: int) -> None:
    puzzle = eternity2()
    board = load_board(DATA / name, puzzle)
    validate(board, puzzle)
    assert score(board, puzzle) == expected
    assert len(mismatched_joints(board, puzzle)) == puzzle.n_joints - expected


@pytest.mark.parametrize("name", [s for s in SOLVED_SETS if (BENCH / f"{s}_solution.txt").exists()])
def test_every_shipped_solution_is_perfect(name: str) -> None:
    puzzle = load_pieces(BENCH / f"{name}_pieces.txt", allow_duplicates=True)
    board = load_board(BENCH / f"{name}_solution.txt", puzzle)
    validate(board, puzzle)
    assert score(board, puzzle) == puzzle.n_joints


def test_eternity2_shipped_copy_and_clues() -> None:
    puzzle = eternity2()
    assert puzzle.is_eternity2 and puzzle.n_joints == 480
    # frame colours 1 5 9 13 17: eternity2_pieces.txt header
    assert puzzle.frame_colours == {1, 5, 9, 13, 17}
    clues = eternity2_clues("all")
    assert clues.n_placed == 5
    # edges of 139 at I8: eternity2_clues.txt header "139 @ I8 -> 18 6 6 11"
    assert puzzle.edges(int(clues.piece[8, 7]), int(clues.rotation[8, 7])) == (18, 6, 6, 11)
    assert puzzle.edges(int(clues.piece[2, 2]), int(clues.rotation[2, 2])) == (22, 3, 11, 19)
    assert eternity2_clues("centre").n_placed == 1 and eternity2_clues("none").n_placed == 0


def test_url_round_trip_record_board() -> None:
    puzzle = eternity2()
    board = load_board(DATA / "eternity2_board_blackwood_470.txt", puzzle)
    url = board_url(board, puzzle, name="Joshua_Blackwood_470")
    assert url.startswith("https://e2.bucas.name/#puzzle=Joshua_Blackwood_470&board_w=16")
    assert url.endswith("&motifs_order=jblackwood")
    assert board_from_url(url, puzzle) == board


def test_url_round_trip_partial_board() -> None:
    puzzle, solution = generate(5, 7, frame_colours=2, inner_colours=4, seed=3)
    partial = solution.copy()
    partial.piece[2, 3] = -1
    back = board_from_url(board_url(partial, puzzle), puzzle)
    assert back.n_placed == 34 and score(back, puzzle) == score(partial, puzzle)


def test_generated_puzzles_contain_their_solution() -> None:
    for rows, cols, f, i in [(2, 2, 1, 1), (3, 5, 1, 2), (8, 8, 3, 6), (16, 16, 5, 17)]:
        puzzle, solution = generate(rows, cols, frame_colours=f, inner_colours=i, seed=7)
        validate(solution, puzzle)
        assert score(solution, puzzle) == puzzle.n_joints
        assert puzzle.max_colour == f + i or rows * cols < 10
        # same seed, same puzzle
        again, _ = generate(rows, cols, frame_colours=f, inner_colours=i, seed=7)
        assert np.array_equal(again.pieces, puzzle.pieces)


def test_generated_colour_counts_follow_eternity2_shape() -> None:
    puzzle, _ = generate(16, 16, frame_colours=5, inner_colours=17, seed=1)
    # Eternity II: 5 frame colours on the frame ring, 17 inner; every colour within one pair of
    # the others (eternity2 generator data header: 5 x 12 frame pairs, 24-25 inner pairs)
    assert puzzle.frame_colours == {1, 2, 3, 4, 5}
    counts = np.bincount(puzzle.pieces.ravel())[1:]
    assert set((counts[:5] // 2).tolist()) == {12}
    assert set((counts[5:] // 2).tolist()) <= {24, 25}


# --------------------------------------------------------------------------------------------
# Bad files: one clear line each
# --------------------------------------------------------------------------------------------

GOOD_2X2 = "0 1 2 0\n0 0 3 1\n2 4 0 0\n3 0 0 4\n"


@pytest.mark.parametrize(
    ("text", "size", "message"),
    [
        ("1 2 3\n", None, "expected 4 colours"),
        ("a b c d\n", None, "must be integers"),
        ("0 1 1 99\n", None, "out of range"),
        ("0 -1 1 0\n", None, "out of range"),
        ("0 1 0 1\n", None, "grey on top and bottom"),
        (GOOD_2X2, (3, 3), "4 pieces listed but a 3x3 board needs 9"),
        (GOOD_2X2 + "1 1 1 1\n2 2 2 2\n", (2, 3), "0 border pieces"),
        ("0 1 1 0\n0 1 1 0\n1 1 0 0\n1 0 0 1\n", None, "same piece up to rotation"),
        ("0 1 1 0\n", None, "1 corner pieces"),
        ("", None, "no pieces"),
    ],
)
def test_bad_pieces_files(text: str, size, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_pieces(text, size=size)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0 0 1\n", "expected 'ROW COL PIECE ROTATION'"),
        ("0 0 x 1\n", "must be integers"),
        ("5 0 1 0\n", "outside"),
        ("0 0 9 0\n", "does not exist"),
        ("0 0 1 4\n", "rotation 4"),
        ("0 0 1 0\n0 0 2 0\n", "filled twice"),
        ("0 0 1 0\n1 1 1 0\n", "used at"),
        ("0 0 1 1\n", "grey inside|on the rim"),
        ("# size: 3 3\n0 0 1 0\n", "is 3x3"),
    ],
)
def test_bad_board_files(text: str, message: str) -> None:
    puzzle = parse_pieces(GOOD_2X2)
    with pytest.raises(InputError, match=message):
        parse_board(text, puzzle)


def test_board_with_grey_inside_is_refused() -> None:
    puzzle, solution = generate(4, 4, frame_colours=2, inner_colours=3, seed=2)
    bad = solution.copy()
    # swap a corner into an inner cell: grey faces inside
    bad.piece[1, 1], bad.piece[0, 0] = solution.piece[0, 0], solution.piece[1, 1]
    bad.rotation[1, 1], bad.rotation[0, 0] = solution.rotation[0, 0], solution.rotation[1, 1]
    with pytest.raises(InputError, match=r"grey inside|on the rim"):
        validate(bad, puzzle)
    with pytest.raises(InputError, match=r"grey inside|on the rim"):
        parse_board(format_board(bad), puzzle)


def test_load_missing_file() -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_pieces("/nonexistent/pieces.txt")


# --------------------------------------------------------------------------------------------
# Properties: parsers never crash with anything but InputError; writer and reader agree
# --------------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="0123456789 -#\nsize:x", max_size=200))
def test_parse_pieces_fails_only_with_input_error(text: str) -> None:
    with contextlib.suppress(InputError):
        parse_pieces(text)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="0123456789 -#\n", max_size=120))
def test_parse_board_fails_only_with_input_error(text: str) -> None:
    puzzle, _ = generate(3, 4, frame_colours=2, inner_colours=2, seed=0)
    try:
        board = parse_board(text, puzzle)
    except InputError:
        return
    assert board_problems(3, 4, puzzle.pieces, board.placements(), complete=False) == []


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 7),
    st.integers(2, 7),
    st.integers(1, 4),
    st.integers(1, 6),
    st.integers(0, 10**6),
    st.lists(st.integers(0, 48), max_size=10),
)
def test_format_parse_url_round_trip(rows, cols, f, i, seed, holes) -> None:
    puzzle, solution = generate(rows, cols, frame_colours=f, inner_colours=i, seed=seed)
    board = solution.copy()
    for h in holes:
        if h < rows * cols:
            board.piece.flat[h] = -1
    assert parse_board(format_board(board, puzzle), puzzle) == board
    back = board_from_url(board_url(board, puzzle), puzzle)
    assert back.n_placed == board.n_placed and score(back, puzzle) == score(board, puzzle)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(2, 6), st.integers(0, 10**6), st.integers(0, 3))
def test_verifier_counts_one_broken_joint(rows, cols, seed, turn) -> None:
    """Turning one inner piece of a perfect board loses exactly the joints whose colours then
    differ; the verifier's count agrees with a direct recount."""
    puzzle, solution = generate(rows, cols, frame_colours=2, inner_colours=3, seed=seed)
    assert count_matched_joints(rows, cols, puzzle.pieces, solution.placements()) == (
        puzzle.n_joints
    )
    b = solution.copy()
    b.rotation[0, 0] = (b.rotation[0, 0] + turn) % 4
    problems = board_problems(rows, cols, puzzle.pieces, b.placements())
    assert (problems == []) == (turn == 0 or _corner_symmetric(puzzle, b))
    assert rotated_edges((1, 2, 3, 4), turn) == tuple(
        (1, 2, 3, 4)[(s - turn) % 4] for s in range(4)
    )


def _corner_symmetric(puzzle, board: Board) -> bool:
    e = puzzle.edges(int(board.piece[0, 0]), int(board.rotation[0, 0]))
    return e[0] == 0 and e[3] == 0
