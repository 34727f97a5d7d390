"""Open knight paths on narrow boards from any start: the window search joined to closed
tours of the sides (:mod:`rompicapo.paths.window`), every answer through the verifier."""

from __future__ import annotations

import numpy as np
import pytest

from rompicapo.paths import construct, verify_path
from rompicapo.paths.window import window_path

# the open paths the walk and the plain depth-first search gave up on ("not found")
MISSED = [
    (5, 39, (1, 1)),
    (5, 59, (3, 1)),
    (5, 71, (1, 27)),
    (67, 5, (1, 1)),
    (79, 5, (1, 1)),
    (83, 5, (1, 1)),
]


@pytest.mark.parametrize("rows, cols, start", MISSED)
def test_the_paths_the_walk_missed(rows, cols, start):
    res = construct(rows, cols, start=start, moves="knight", method="auto")
    assert res.found and res.method == "window", (res.status, res.method)
    assert verify_path(res.path, rows, cols, "knight", start=start)
    assert "window" in res.report()


@pytest.mark.parametrize("rows", [5, 7])
def test_every_start_of_narrow_odd_boards(rows):
    """Both sides odd: every start of the colour of (0, 0) has a path (and the others none)."""
    for cols in range(5, 24, 2):
        for r in range(rows):
            for c in range(cols):
                if (r + c) % 2:
                    continue
                path = window_path(rows, cols, (r, c), "knight")
                assert path is not None, (rows, cols, r, c)
                assert verify_path(path, rows, cols, "knight", start=(r, c)), (rows, cols, r, c)


def test_even_boards_and_the_transpose():
    for rows, cols, start in [(6, 31, (2, 17)), (8, 27, (7, 13)), (29, 6, (14, 3))]:
        path = window_path(rows, cols, start, "knight")
        assert verify_path(path, rows, cols, "knight", start=start)
    a = window_path(5, 41, (2, 20), "knight")
    b = window_path(41, 5, (20, 2), "knight")
    r, c = np.divmod(a, 41)
    assert np.array_equal(c * 5 + r, b)  # the transpose is read back cell by cell


def test_deterministic_and_no_path_from_the_wrong_colour():
    assert np.array_equal(window_path(5, 45, (3, 21)), window_path(5, 45, (3, 21)))
    assert window_path(5, 9, (0, 1)) is None  # the minority colour: no path exists
    res = construct(5, 45, start=(0, 1), moves="knight", method="auto")
    assert res.status == "impossible" and "colour" in res.proof


def test_the_time_limit_covers_the_sides_tours():
    # a 5 x n board's sides are closed tours of 5 x ~n/2: seconds to build on long boards.
    # The window search stops at its time limit (5 x 100001 took 39 s for a 3 s limit
    # before), and a side not finished in time is not remembered as having no tour
    info: dict = {}
    assert window_path(5, 2001, (2, 1000), time_limit=0.001, info=info) is None
    assert info["stopped"] == "time" and info["windows"] == 0
    path = window_path(5, 2001, (2, 1000), time_limit=60, info=info)
    assert path is not None and "stopped" not in info
    assert verify_path(path, 5, 2001, "knight", start=(2, 1000))
