"""The independent path verifier: valid paths pass, every kind of wrong path fails, and the
reason names the first problem and its place.

Valid paths come from tests/paths/conftest.py (a backtracking search written for the tests, and
the boustrophedon for the rook's step); expected messages are worked out by hand in comments,
and for random corruptions they are compared with ``naive_first_problem`` below, a plain
cell-by-cell loop written independently of the vectorised, chunked scan.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rompicapo.common import InputError
from rompicapo.paths.moves import parse_moves
from rompicapo.paths.verify import PathCheck, read_path_array, verify_path, verify_path_file

ROOK_STEP = "0,1;1,0"
ROOK_WORDS = "a move of the set 0,1;0,-1;1,0;-1,0"  # parse_moves closes the set in this order

# The 10x10 paper game, found by the DFS in conftest.py and checked by hand at its first steps:
# 1 (0,0) -> 2 (3,0) is (3,0); 2 -> 3 (1,2) is (-2,2); 3 -> 4 (1,5) is (0,3).
PAPER_10X10 = """\
  1  62  40  16  61  39  75  49  38  74
 54  18   3  53  58   4  52  72   5  51
 41  15  60  67  94  79  66  95  78  48
  2  63  57  17  64  69  76  50  37  73
 55  19  99  82  59  98  91  71   6  90
 42  14  29  68  93  80  65  96  77  47
 23  83  56  24  86  70  25  87  36  10
 30  20 100  81  32  97  92  33   7  89
 43  13  28  44  12  27  45  11  26  46
 22  84  31  21  85  34   8  88  35   9"""

# the 3x3 boustrophedon: (0,0) (0,1) (0,2) (1,2) (1,1) (1,0) (2,0) (2,1) (2,2)
SNAKE_3X3 = [0, 1, 2, 5, 4, 3, 6, 7, 8]

CHUNKS = [1, 2, 3, 7, 1 << 20]


def paper_path() -> np.ndarray:
    steps = np.array([[int(x) for x in line.split()] for line in PAPER_10X10.splitlines()])
    return np.argsort(steps.ravel(), kind="stable")


def naive_first_problem(path, rows, cols, moves, start=None, closed=False) -> str:
    """The reference: the verifier's contract written as a plain loop over the steps."""
    n = rows * cols
    move_set = parse_moves(moves)
    legal = set(move_set.moves)
    words = (
        f"a {move_set.name} move"
        if move_set.name in ("caselle", "knight")
        else f"a move of the set {move_set.spec}"
    )
    path = [int(x) for x in path]
    if len(path) > n:
        return f"the path has {len(path)} cells, the {rows}x{cols} board has {n}"
    if start is not None and 0 <= path[0] < n and path[0] != start:
        return (
            f"step 1: the path starts at {divmod(path[0], cols)}, "
            f"not at the required start {divmod(start, cols)}"
        )
    first_seen: dict[int, int] = {}
    problem = ""
    for i, cell in enumerate(path):
        if not 0 <= cell < n:
            problem = f"step {i + 1}: index {cell} is outside the {rows}x{cols} board"
            break
        if i > 0:
            (ra, ca), (rb, cb) = divmod(path[i - 1], cols), divmod(cell, cols)
            if (rb - ra, cb - ca) not in legal:
                problem = f"step {i} -> {i + 1}: {(ra, ca)} to {(rb, cb)} is not {words}"
                break
        if cell in first_seen:
            problem = (
                f"cell {divmod(cell, cols)} is visited twice "
                f"(steps {first_seen[cell] + 1} and {i + 1})"
            )
            break
        first_seen[cell] = i
    if len(path) < n:
        message = f"the path has {len(path)} cells, the {rows}x{cols} board has {n}"
        if not problem:
            missing = min(set(range(n)) - set(first_seen))
            message += f": cell {divmod(missing, cols)} is never visited"
        return message
    if problem:
        return problem
    if closed:
        (ra, ca), (rb, cb) = divmod(path[-1], cols), divmod(path[0], cols)
        if (rb - ra, cb - ca) not in legal:
            return (
                f"the path is not closed: its last cell {(ra, ca)} (step {n}) is not "
                f"one {words[2:]} away from its first cell {(rb, cb)}"
            )
    return ""


# --------------------------------------------------------------------------------------------
# Valid paths
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", CHUNKS)
def test_paper_game_path_is_valid(chunk):
    check = verify_path(paper_path(), 10, 10, chunk=chunk)
    assert check == PathCheck(True, "")
    assert bool(check) is True
    assert verify_path(paper_path(), 10, 10, start=(0, 0), chunk=chunk)
    assert verify_path(paper_path(), 10, 10, start=0, chunk=chunk)


def test_dfs_paths_are_valid(leaper_path):
    for rows, cols in [(5, 5), (6, 6), (5, 7), (10, 10), (30, 30)]:
        assert verify_path(leaper_path(rows, cols), rows, cols, "caselle"), (rows, cols)
    knight = leaper_path(5, 5, parse_moves("knight").moves)
    assert verify_path(knight, 5, 5, "knight")
    assert verify_path(knight, 5, 5, "1,2;2,1;1,-2;2,-1")
    # a knight's path is no caselle path: (0,0) -> its second cell is a knight's jump
    assert not verify_path(knight, 5, 5, "caselle")


def test_one_cell_board_and_closed_two_by_two():
    assert verify_path(np.array([0]), 1, 1)
    # (0,0) (0,1) (1,1) (1,0) and back to (0,0): a rook-step cycle
    assert verify_path(np.array([0, 1, 3, 2]), 2, 2, ROOK_STEP, closed=True)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64, np.int16])
def test_integer_dtypes_and_lists(snake_path, dtype):
    path = snake_path(12, 9).astype(dtype)
    assert verify_path(path, 12, 9, ROOK_STEP, chunk=10)
    assert verify_path(path.tolist(), 12, 9, ROOK_STEP)


def test_read_only_memmap_file(tmp_path, snake_path):
    file = tmp_path / "snake.npy"
    np.save(file, snake_path(300, 200, np.int32))
    arr = read_path_array(file)
    assert isinstance(arr, np.memmap) and not arr.flags.writeable
    assert verify_path(arr, 300, 200, ROOK_STEP, chunk=4096)
    assert verify_path_file(file, 300, 200, ROOK_STEP)
    assert verify_path_file(str(file), 300, 200, ROOK_STEP, start=(0, 0))
    # the same numbers read on a 200x300 board: row 0 of the 300x200 snake ends at index 199,
    # (0, 199) here, and index 399 (row 1's first cell) is (1, 99) here: not a rook step
    check = verify_path_file(file, 200, 300, ROOK_STEP)
    assert check.reason == f"step 200 -> 201: (0, 199) to (1, 99) is not {ROOK_WORDS}"


# --------------------------------------------------------------------------------------------
# Hand-made wrong paths, with the message worked out by hand
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", CHUNKS)
def test_wrong_jump(chunk):
    path = paper_path()
    path[[1, 2]] = path[[2, 1]]  # steps 2 (3,0) and 3 (1,2) swapped: (0,0) -> (1,2) first
    check = verify_path(path, 10, 10, chunk=chunk)
    assert check == PathCheck(False, "step 1 -> 2: (0, 0) to (1, 2) is not a caselle move")
    assert not check
    assert str(check) == check.reason


@pytest.mark.parametrize("chunk", CHUNKS)
def test_repeated_cell(chunk):
    # step 9 goes back from (2,1) to (2,0), a legal rook step onto the cell of step 7
    path = [0, 1, 2, 5, 4, 3, 6, 7, 6]
    check = verify_path(path, 3, 3, ROOK_STEP, chunk=chunk)
    assert check.reason == "cell (2, 0) is visited twice (steps 7 and 9)"


@pytest.mark.parametrize("chunk", CHUNKS)
def test_missing_cell(chunk):
    check = verify_path(SNAKE_3X3[:-1], 3, 3, ROOK_STEP, chunk=chunk)
    assert check.reason == "the path has 8 cells, the 3x3 board has 9: cell (2, 2) is never visited"
    # a short path with a problem of its own: only the length is reported
    check = verify_path([0, 4, 8], 3, 3, ROOK_STEP, chunk=chunk)
    assert check.reason == "the path has 3 cells, the 3x3 board has 9"


@pytest.mark.parametrize("chunk", CHUNKS)
def test_out_of_range(chunk):
    for bad, shown in [(9, "9"), (-1, "-1"), (10**6, "1000000")]:
        path = np.array([*SNAKE_3X3[:-1], bad], dtype=np.int64)
        check = verify_path(path, 3, 3, ROOK_STEP, chunk=chunk)
        assert check.reason == f"step 9: index {shown} is outside the 3x3 board"
    huge = np.array([*SNAKE_3X3[:-1], 2**64 - 1], dtype=np.uint64)
    check = verify_path(huge, 3, 3, ROOK_STEP, chunk=chunk)
    assert check.reason == "step 9: index 18446744073709551615 is outside the 3x3 board"
    # out of range at step 1 comes before a start check
    check = verify_path([12, *SNAKE_3X3[1:]], 3, 3, ROOK_STEP, start=0, chunk=chunk)
    assert check.reason == "step 1: index 12 is outside the 3x3 board"


def test_too_long():
    check = verify_path([*SNAKE_3X3, 8], 3, 3, ROOK_STEP)
    assert check.reason == "the path has 10 cells, the 3x3 board has 9"


def test_wrong_start():
    check = verify_path(SNAKE_3X3, 3, 3, ROOK_STEP, start=(0, 1))
    assert check.reason == "step 1: the path starts at (0, 0), not at the required start (0, 1)"
    assert not verify_path(SNAKE_3X3, 3, 3, ROOK_STEP, start=8)
    assert verify_path(SNAKE_3X3[::-1], 3, 3, ROOK_STEP, start=(2, 2))
    for outside in [(3, 0), (0, -1), 9, -1]:
        with pytest.raises(InputError, match="outside the 3x3 board"):
            verify_path(SNAKE_3X3, 3, 3, ROOK_STEP, start=outside)
    with pytest.raises(InputError, match="start cell"):
        verify_path(SNAKE_3X3, 3, 3, ROOK_STEP, start="corner")


def test_closed():
    check = verify_path(SNAKE_3X3, 3, 3, ROOK_STEP, closed=True)
    assert check.reason == (
        "the path is not closed: its last cell (2, 2) (step 9) is not one move of the set "
        "0,1;0,-1;1,0;-1,0 away from its first cell (0, 0)"
    )
    assert verify_path(SNAKE_3X3, 3, 3, ROOK_STEP, closed=False)
    # the 2x4 ring (0,0) .. (0,3) (1,3) .. (1,0) closes
    assert verify_path([0, 1, 2, 3, 7, 6, 5, 4], 2, 4, ROOK_STEP, closed=True)


@pytest.mark.parametrize(
    ("path", "words"),
    [
        (np.arange(9, dtype=np.float64), "dtype float64"),
        (np.ones(9, dtype=bool), "dtype bool"),
        (np.array(["0"] * 9), "dtype <U1"),
        (np.arange(9).reshape(3, 3), "2-D array of shape (3, 3)"),
        (np.int64(0), "0-D array"),
        (np.array([], dtype=np.int64), "the path is empty"),
        ([[0, 1], [2]], "not an array of integers"),
        (None, "dtype object"),
    ],
)
def test_not_a_path_array(path, words):
    check = verify_path(path, 3, 3, ROOK_STEP)
    assert not check.ok
    assert words in check.reason


def test_bad_arguments():
    for rows, cols in [(0, 3), (3, -1), (2.5, 3), ("3", 3)]:
        with pytest.raises(InputError):
            verify_path(SNAKE_3X3, rows, cols, ROOK_STEP)
    with pytest.raises(InputError, match="unknown move set"):
        verify_path(SNAKE_3X3, 3, 3, "bishop")
    with pytest.raises(InputError, match="chunk"):
        verify_path(SNAKE_3X3, 3, 3, ROOK_STEP, chunk=0)


def test_move_check_uses_coordinates_not_flat_differences():
    # on a 3x3 board, 2 -> 3 is +1 in flat index but (0,2) -> (1,0): no rook step (wraps a row)
    check = verify_path([0, 1, 2, 3, 4, 5, 6, 7, 8], 3, 3, ROOK_STEP)
    assert check.reason == f"step 3 -> 4: (0, 2) to (1, 0) is not {ROOK_WORDS}"
    # a long custom move: (0, 40) on a 1x41 board, the only move from (0, 0)
    assert verify_path([0, 40], 1, 41, "0,40") == PathCheck(
        False, "the path has 2 cells, the 1x41 board has 41: cell (0, 1) is never visited"
    )
    assert verify_path([0, 1], 1, 2, "0,40").reason == "step 1 -> 2: (0, 0) to (0, 1) is not " + (
        "a move of the set 0,40;0,-40"
    )


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------


def test_file_errors(tmp_path):
    text = tmp_path / "path.dat"  # text, read as .npy: any name but .rpath and .txt
    text.write_text("0 1 2 5 4 3 6 7 8\n")
    floats = tmp_path / "floats.npy"
    np.save(floats, np.arange(9, dtype=np.float64))
    grid = tmp_path / "grid.npy"
    np.save(grid, np.arange(9).reshape(3, 3))
    archive = tmp_path / "path.npz"
    np.savez(archive, path=np.arange(9))
    objects = tmp_path / "objects.npy"
    np.save(objects, np.array([0, "x"], dtype=object), allow_pickle=True)
    truncated = tmp_path / "truncated.npy"
    np.save(truncated, np.arange(1000))
    truncated.write_bytes(truncated.read_bytes()[:200])
    cases = [
        (tmp_path / "missing.npy", "no such file"),
        (tmp_path, "directory"),
        (text, "not a .npy array file"),
        (floats, "dtype is float64"),
        (grid, "2-D array"),
        (archive, ".npz archive"),
        (objects, "not a .npy array file"),
        (truncated, "not a .npy array file"),
    ]
    for file, words in cases:
        with pytest.raises(InputError) as info:
            verify_path_file(file, 3, 3, ROOK_STEP)
        message = str(info.value)
        assert message.startswith(f"{file} is not a path: ") and words in message, message
        assert "\n" not in message


def test_numbered_grids_are_read_by_the_verifier_itself(tmp_path):
    grid = tmp_path / "snake.txt"
    grid.write_text("1 2 3\n6 5 4\n")
    assert verify_path_file(grid, 2, 3, ROOK_STEP, start=(0, 0), closed=False)
    assert verify_path_file(grid, 3, 2, ROOK_STEP).reason == "the grid is 2x3, not the 3x2 board"
    grid.write_text("1 2 3\n6 4 5\n")  # one cell numbered wrong: (0, 2) to (1, 1)
    assert "step 3 -> 4" in verify_path_file(grid, 2, 3, ROOK_STEP).reason
    grid.write_text("1 2 3\n6 5 5\n")
    assert "once each" in verify_path_file(grid, 2, 3, ROOK_STEP).reason
    grid.write_text("1 2 x\n")
    with pytest.raises(InputError, match="not a grid of step numbers"):
        verify_path_file(grid, 1, 3, ROOK_STEP)


def test_file_with_empty_and_wrong_paths(tmp_path):
    empty = tmp_path / "empty.npy"
    np.save(empty, np.array([], dtype=np.int32))
    assert verify_path_file(empty, 3, 3) == PathCheck(False, "the path is empty")
    wrong = tmp_path / "wrong.npy"
    np.save(wrong, np.array([0, 1, 2, 3, 4, 5, 6, 7, 8]))
    assert verify_path_file(wrong, 3, 3, ROOK_STEP).reason.startswith("step 3 -> 4")


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=300))
def test_read_path_array_never_raises_anything_but_input_error(tmp_path_factory, data):
    file = tmp_path_factory.mktemp("bytes") / "random.npy"
    file.write_bytes(data)
    try:
        arr = read_path_array(file)
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert arr.ndim == 1 and arr.dtype.kind in "iu"


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

boards = st.tuples(st.integers(1, 40), st.integers(1, 40))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    board=boards,
    chunk=st.integers(1, 64),
    dtype=st.sampled_from([np.int32, np.int64, np.uint32]),
)
def test_every_snake_path_verifies(snake_path, board, chunk, dtype):
    rows, cols = board
    path = snake_path(rows, cols).astype(dtype)
    assert verify_path(path, rows, cols, ROOK_STEP, chunk=chunk) == PathCheck(True, "")
    assert verify_path(path[::-1], rows, cols, ROOK_STEP, start=int(path[-1]), chunk=chunk)


@settings(max_examples=300, deadline=None)
@given(board=boards, data=st.data(), chunk=st.integers(1, 64))
def test_any_swap_is_found_at_the_right_step(snake_path, board, data, chunk):
    rows, cols = board
    n = rows * cols
    if n < 3:
        return
    path = snake_path(rows, cols)
    i = data.draw(st.integers(0, n - 3), label="i")
    j = data.draw(st.integers(i + 2, n - 1), label="j")
    path[[i, j]] = path[[j, i]]
    check = verify_path(path, rows, cols, ROOK_STEP, chunk=chunk)
    expected = naive_first_problem(path, rows, cols, ROOK_STEP)
    assert check == PathCheck(expected == "", expected)
    if check.ok:
        # a swap can leave a path (the naive checker agrees): [0, 1, 3, 2] on 2x2 swapped at
        # steps 1 and 3 is [3, 1, 0, 2], another rook walk; only for steps two apart
        assert j == i + 2
        return
    # a swap leaves every cell once, so the first problem is a move at or before the swap
    assert check.reason.startswith("step ")
    first_step = int(check.reason.split()[1])
    assert first_step <= j + 1


@settings(max_examples=300, deadline=None)
@given(board=boards, data=st.data(), chunk=st.integers(1, 64))
def test_any_changed_entry_is_found(snake_path, board, data, chunk):
    rows, cols = board
    n = rows * cols
    path = snake_path(rows, cols)
    k = data.draw(st.integers(0, n - 1), label="k")
    value = data.draw(st.integers(-3, n + 3).filter(lambda v: v != path[k]), label="value")
    path[k] = value
    check = verify_path(path, rows, cols, ROOK_STEP, chunk=chunk)
    assert not check.ok
    assert check.reason == naive_first_problem(path, rows, cols, ROOK_STEP)


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    chunk=st.integers(1, 40),
    moves=st.sampled_from(["caselle", "knight", "0,1;1,0", "1,1;0,2"]),
    closed=st.booleans(),
)
def test_random_walks_match_the_naive_checker(data, chunk, moves, closed):
    # arbitrary integer arrays: mostly wrong, of any length; both checkers must agree exactly
    rows = data.draw(st.integers(1, 6), label="rows")
    cols = data.draw(st.integers(1, 6), label="cols")
    n = rows * cols
    path = data.draw(st.lists(st.integers(-1, n), min_size=1, max_size=n + 2), label="path")
    start = data.draw(st.none() | st.integers(0, n - 1), label="start")
    check = verify_path(path, rows, cols, moves, start=start, closed=closed, chunk=chunk)
    expected = naive_first_problem(path, rows, cols, moves, start=start, closed=closed)
    assert check == PathCheck(expected == "", expected)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), chunk=st.integers(1, 200))
def test_caselle_corruptions_match_the_naive_checker(data, chunk):
    path = paper_path()
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        k = data.draw(st.integers(0, 99), label="k")
        path[k] = data.draw(st.integers(0, 99), label="value")
    check = verify_path(path, 10, 10, chunk=chunk)
    assert check.reason == naive_first_problem(path, 10, 10, "caselle")


def test_large_snake_over_many_chunks(snake_path):
    # 1.2 M cells: more than one default chunk of 2^20 steps
    rows, cols = 1200, 1000
    path = snake_path(rows, cols, np.int32)
    assert verify_path(path, rows, cols, ROOK_STEP)
    wrong = path.copy()
    wrong[1_100_000] = wrong[1_100_002]  # in the second chunk; also a repeat, reported later
    check = verify_path(wrong, rows, cols, ROOK_STEP)
    assert check.reason == naive_first_problem(wrong, rows, cols, ROOK_STEP)
    # 0-based position 1,099,999 ends row 1099, odd, walked right to left: (1099, 0); position
    # 1,100,000 now holds position 1,100,002's cell, (1100, 2) on row 1100, walked left to right
    expected = f"step 1100000 -> 1100001: (1099, 0) to (1100, 2) is not {ROOK_WORDS}"
    assert check.reason == expected


@pytest.mark.slow
def test_nine_hundred_million_cells(snake_path):
    # the 30000 x 30000 board: 3.6 GB of int32 path, 0.9 GB of seen-array
    path = snake_path(30000, 30000, np.int32)
    assert verify_path(path, 30000, 30000, ROOK_STEP)
    path[-1] = 0
    check = verify_path(path, 30000, 30000, ROOK_STEP)
    assert check.reason == f"step 899999999 -> 900000000: (29999, 1) to (0, 0) is not {ROOK_WORDS}"
