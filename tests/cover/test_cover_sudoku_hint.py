"""next_step: every step it gives agrees with the unique solution, and following the steps
solves puzzles that need only singles and locked candidates."""

import pytest

from rompicapo.common import InputError
from rompicapo.cover.sudoku_hint import candidates, next_step
from rompicapo.cover.verify import sudoku_ok

# Wikipedia's example (singles only); a generated "medium" puzzle (needs locked candidates:
# rompicapo.cover.sudoku.generate(seed=8)); the solutions come from the independent
# brute force below, not from the solver.
SINGLES = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
LOCKED = "..5.....4........2..41573..8.3..1....9..78.23.57..4.1...9.......72.89.........76."


def _brute(grid):
    """Plain backtracking (no solver code): the solutions, up to two."""
    g = [row[:] for row in grid]
    out = []

    def ok(r, c, d):
        if any(g[r][j] == d for j in range(9)) or any(g[i][c] == d for i in range(9)):
            return False
        r0, c0 = 3 * (r // 3), 3 * (c // 3)
        return all(g[r0 + i][c0 + j] != d for i in range(3) for j in range(3))

    def go(k):
        if len(out) > 1:
            return
        if k == 81:
            out.append([row[:] for row in g])
            return
        r, c = divmod(k, 9)
        if g[r][c]:
            go(k + 1)
            return
        for d in range(1, 10):
            if ok(r, c, d):
                g[r][c] = d
                go(k + 1)
                g[r][c] = 0

    go(0)
    return out


def _grid(line):
    return [[0 if ch == "." else int(ch) for ch in line[r * 9 : r * 9 + 9]] for r in range(9)]


@pytest.mark.parametrize("line", [SINGLES, LOCKED])
def test_steps_agree_with_the_unique_solution(line):
    grid = _grid(line)
    sols = _brute(grid)
    assert len(sols) == 1
    sol = sols[0]
    kinds = set()
    while (step := next_step(grid)) is not None:
        assert step.kind != "contradiction"
        for r, c, d in step.eliminations:
            assert sol[r][c] != d  # a removed candidate is never the answer
        if step.cell is None:
            break
        r, c = step.cell
        assert grid[r][c] == 0 and sol[r][c] == step.digit
        kinds.add(step.kind)
        if step.eliminations:
            kinds.add("locked")
        grid[r][c] = step.digit
    assert all(all(row) for row in grid)
    assert sudoku_ok(_grid(line), grid, (3, 3))
    if line == LOCKED:
        assert "locked" in kinds


def test_pointing_explained():
    # box 1 holds 1 only in row 1 (its other cells are blocked), so 1 leaves row 1 elsewhere
    grid = _grid(LOCKED)
    step = next_step(grid)
    assert step is not None and step.kind in ("naked single", "hidden single")
    cand = candidates(grid, (3, 3))
    r, c = step.cell
    assert step.digit in cand[r][c]


def test_contradiction_and_bad_input():
    grid = _grid(SINGLES)
    grid[0][2] = 5  # a second 5 in row 1
    assert next_step(grid).kind == "contradiction"
    with pytest.raises(InputError):
        next_step([[0] * 9] * 8)
    with pytest.raises(InputError):
        next_step([[0] * 4] * 4, (3, 3))
    assert next_step([[0] * 4 for _ in range(4)], (2, 2)) is None  # empty: nothing forced
