"""Valid paths for the verifier and render tests, made here without the package's constructor.

- ``leaper_path(rows, cols, moves, start)``: a depth-first search that tries the free neighbour
  with the fewest free neighbours first (Warnsdorff's order) and backtracks; quick on the small
  boards the tests use (10x10 caselle, 30x30 caselle, 5x5 knight).
- ``snake_path(rows, cols)``: the boustrophedon (row 0 left to right, row 1 right to left, ...),
  a path on any board for the rook's step "0,1;1,0".
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

CASELLE = ((3, 0), (-3, 0), (0, 3), (0, -3), (2, 2), (2, -2), (-2, 2), (-2, -2))
ROOK_STEP = "0,1;1,0"


def _leaper_path(rows: int, cols: int, moves=CASELLE, start: int = 0) -> np.ndarray:
    n = rows * cols

    def neighbours(i: int) -> list[int]:
        r, c = divmod(i, cols)
        return [
            (r + dr) * cols + c + dc
            for dr, dc in moves
            if 0 <= r + dr < rows and 0 <= c + dc < cols
        ]

    adjacency = [neighbours(i) for i in range(n)]
    free = [True] * n
    path = [start]
    free[start] = False
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, n + 100))
    budget = [200_000]  # nodes: fail the fixture loudly rather than search forever

    def extend() -> bool:
        if len(path) == n:
            return True
        budget[0] -= 1
        if budget[0] < 0:
            raise RuntimeError(f"no path found on {rows}x{cols} within the node budget")
        options = [j for j in adjacency[path[-1]] if free[j]]
        options.sort(key=lambda j: sum(free[k] for k in adjacency[j]))
        for j in options:
            free[j] = False
            path.append(j)
            if extend():
                return True
            path.pop()
            free[j] = True
        return False

    try:
        if not extend():
            raise RuntimeError(f"no path on {rows}x{cols} from {start}")
    finally:
        sys.setrecursionlimit(limit)
    return np.array(path, dtype=np.int64)


def _snake_path(rows: int, cols: int, dtype=np.int64) -> np.ndarray:
    grid = np.arange(rows * cols, dtype=dtype).reshape(rows, cols)
    grid[1::2] = grid[1::2, ::-1]
    return grid.ravel()


@pytest.fixture(scope="session")
def leaper_path():
    return _leaper_path


@pytest.fixture(scope="session")
def snake_path():
    return _snake_path
