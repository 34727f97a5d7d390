"""Path files: what write_path writes, load_path reads back, in every format and on boards of
every shape (one row, one column, rectangles both ways, a single cell)."""

from __future__ import annotations

import numpy as np
import pytest

from rompicapo.common import InputError
from rompicapo.paths import construct, load_path, verify_path, write_path
from rompicapo.paths.files import PATH_SUFFIXES
from rompicapo.paths.render import grid_text

FORMATS = [(".npy", False), (".rpath", False), (".rpath", True), (".txt", False)]


def _snake(rows: int, cols: int) -> np.ndarray:
    """Row by row, every other row backwards: a path of rook steps on any board."""
    grid = np.arange(rows * cols).reshape(rows, cols)
    grid[1::2] = grid[1::2, ::-1]
    return grid.ravel()


@pytest.mark.parametrize(("suffix", "packed"), FORMATS)
@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (1, 9), (9, 1), (3, 7), (7, 3), (6, 6)])
def test_every_format_reads_back_what_was_written(tmp_path, suffix, packed, rows, cols):
    path = _snake(rows, cols)
    name = write_path(
        path, tmp_path / f"p{suffix}", rows=rows, cols=cols, moves="0,1;1,0", packed=packed
    )
    back = load_path(name)
    assert back.dtype.kind == "i" and back.ndim == 1
    assert back.tolist() == path.tolist()


@pytest.mark.parametrize(("suffix", "packed"), FORMATS)
@pytest.mark.parametrize(
    ("rows", "cols", "start", "moves", "closed"),
    [
        (10, 10, (0, 0), "caselle", False),
        (7, 12, (3, 5), "caselle", False),
        (12, 7, (0, 0), "knight", True),
        (5, 39, (1, 1), "knight", False),
    ],
)
def test_results_read_back_as_the_paths_found(tmp_path, suffix, packed, rows, cols, start, moves,
                                              closed):  # fmt: skip
    res = construct(rows, cols, start, moves, closed=closed, method="auto")
    assert res.found
    back = load_path(write_path(res, tmp_path / f"r{suffix}", packed=packed))
    assert back.tolist() == res.path.tolist()
    assert verify_path(back, rows, cols, moves, start=start, closed=closed)


def test_the_text_format_is_the_numbered_grid_as_printed(tmp_path):
    res = construct(5, 5)
    name = write_path(res, tmp_path / "p.txt")
    assert name.read_text() == grid_text(res.path, 5, 5) + "\n"
    assert grid_text(res.path, 5, 5) in res.report()  # what `rompicapo path 5` prints
    assert ".txt" in PATH_SUFFIXES


def test_a_large_board_is_refused_as_text_before_anything_is_written(tmp_path):
    with pytest.raises(InputError, match="too large"):
        write_path(_snake(1, 1_000_001), tmp_path / "big.txt", rows=1, cols=1_000_001,
                   moves="0,1", verify=False)  # fmt: skip
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("suffix", "content", "why"),
    [
        (".txt", "1 2\n3\n", "not all the same length"),
        (".txt", "1 2\n2 4\n", "does not number"),
        (".txt", "1 x\n", "not a grid"),
        (".txt", "", "not all the same length"),
        (".npy", "plain text", "not a .npy"),
        (".rpath", "plain text", "not an .rpath"),
    ],
)
def test_files_that_hold_no_path_are_one_line_errors(tmp_path, suffix, content, why):
    name = tmp_path / f"bad{suffix}"
    name.write_text(content)
    with pytest.raises(InputError, match=why) as info:
        load_path(name)
    assert "\n" not in str(info.value)


def test_a_damaged_rpath_chunk_is_refused(tmp_path):
    res = construct(20, 20, method="blocks")
    name = write_path(res, tmp_path / "p.rpath")
    raw = bytearray(name.read_bytes())
    raw[-10] ^= 1  # a byte of the last chunk's moves
    name.write_bytes(bytes(raw))
    with pytest.raises(InputError, match="corrupted"):
        load_path(name)
