"""The 9x9 fast path behind sudoku.solve / solve_batch (the vector kernel, _sudoku_simd):
solution counts against tdoku's (recorded in tests/data/sudoku-speed/README.md), the older
cell-mask kernel and the DLX engine, every solution checked by the independent verifier; and
the rule settings of the band bit-set kernel (_sudoku_bits_kernel), the vector kernel's
reference in tests/cover/test_cover_sudoku_simd.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.common import InputError, NotVerifiable
from rompicapo.cover import _sudoku_kernel as cell_kernel
from rompicapo.cover import sudoku
from rompicapo.cover.sudoku import Sudoku
from rompicapo.cover.sudoku_generate import random_full_grid
from rompicapo.cover.verify import sudoku_ok

DATA = Path(__file__).resolve().parents[1] / "data" / "sudoku-speed"

# file -> solutions of every puzzle (tdoku, limit 2): 1, or 2 meaning "two or more"
SAMPLES = {
    "17_clue_sample.txt": 1,
    "forum_hardest_1905_11+_sample.txt": 1,
    "forum_hardest_1106_sample.txt": 1,
    "serg_benchmark_sample.txt": 2,
}


def _cell_kernel_count(cells: np.ndarray, limit: int) -> int:
    peers, units, popcount, lowest = cell_kernel.tables()
    return int(
        cell_kernel.solve_one(
            cells, limit, np.zeros(81, np.uint8), peers, units, popcount, lowest,
            np.zeros(2, np.int64),
        )
    )  # fmt: skip


@pytest.mark.parametrize(("name", "expected"), sorted(SAMPLES.items()))
def test_samples_counts_match_tdoku_and_the_cell_kernel_and_verify(name, expected):
    puzzles = sudoku.read_puzzles(DATA / name)
    batch = sudoku.solve_batch(puzzles, limit=2)
    assert (batch.counts_per_puzzle == expected).all()
    for p, sol in zip(puzzles, batch.solutions, strict=True):
        assert sudoku_ok(p.reshape(9, 9).tolist(), sol.reshape(9, 9).tolist(), (3, 3))
        assert _cell_kernel_count(p, 2) == expected
    # one puzzle at a time gives the same counts and, for unique puzzles, the same grid
    for p, sol in zip(puzzles[:5], batch.solutions[:5], strict=True):
        one = sudoku.solve(Sudoku.from_grid(p.reshape(9, 9)))
        assert one.count == expected and one.verify()
        if expected == 1:
            assert np.array_equal(np.array(one.solutions[0]).reshape(81), sol)


def test_unique_samples_agree_with_dlx():
    for name in ("forum_hardest_1106_sample.txt", "17_clue_sample.txt"):
        puzzles = sudoku.read_puzzles(DATA / name)[:6]
        batch = sudoku.solve_batch(puzzles)
        for p, sol in zip(puzzles, batch.solutions, strict=True):
            r = sudoku.solve(Sudoku.from_grid(p.reshape(9, 9)), engine="dlx")
            assert r.count == 1
            assert np.array_equal(np.array(r.solutions[0]).reshape(81), sol)


def test_counting_beyond_two_on_open_grids():
    # the empty grid and a grid with one row given: many solutions, counted up to the limit
    for text in ("." * 81, "123456789" + "." * 72):
        for limit in (1, 2, 5, 40):
            r = sudoku.solve(text, limit=limit)
            assert r.count == limit and r.verify()
    # three clues that fix nothing: counts agree with DLX up to 30
    text = "1" + "." * 39 + "5" + "." * 39 + "9"
    assert sudoku.solve(text, limit=30).count == 30
    assert sudoku.solve(text, limit=30, engine="dlx").count == 30


def test_clashes_and_dead_ends_have_no_solution():
    clash = "11" + "." * 79
    assert sudoku.solve(clash).count == 0
    box_clash = "1........" + ".1......." + "." * 63
    assert sudoku.solve(box_clash).count == 0
    column_clash = "1" + "." * 8 + "1" + "." * 71
    assert sudoku.solve(column_clash).count == 0
    # r1c9 must be 9 (row), but 9 is given in its column lower down
    hidden = "12345678." + "." * 8 + "9" + "." * 63
    assert sudoku.solve(hidden).count == 0
    batch = sudoku.solve_batch([Sudoku.parse(clash), Sudoku.parse(hidden)])
    assert batch.counts_per_puzzle.tolist() == [0, 0]
    with pytest.raises(InputError, match=r"0 \(empty\) to 9"):
        sudoku.solve_batch(np.full((1, 81), 10, np.uint8))


@st.composite
def puzzles_from_a_grid(draw):
    """A random solved grid (DLX with a random seed) with a random set of cells emptied, and
    sometimes one given changed to another digit (often no solution)."""
    seed = draw(st.integers(0, 2**20))
    full = random_full_grid(Sudoku.parse("." * 81), seed).reshape(81)
    keep = draw(st.integers(17, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**20)))
    cells = rng.permutation(81)[:keep]
    grid = np.zeros(81, np.uint8)
    grid[cells] = full[cells]
    if draw(st.booleans()):
        k = int(cells[0])
        grid[k] = draw(st.integers(1, 9))
    return grid


@settings(max_examples=60, deadline=None)
@given(puzzles_from_a_grid())
def test_counts_agree_with_dlx_on_random_puzzles(grid):
    puzzle = Sudoku.from_grid(grid.reshape(9, 9))
    bits = sudoku.solve(puzzle, limit=3)
    dlx = sudoku.solve(puzzle, limit=3, engine="dlx")
    assert bits.count == dlx.count
    if bits.count:
        assert bits.verify()
    else:  # no solution: nothing to check, and verify() says so instead of returning True
        with pytest.raises(NotVerifiable):
            bits.verify()
    if bits.count == 1:
        assert bits.solutions == dlx.solutions
    batch = sudoku.solve_batch(grid.reshape(1, 81), limit=3)
    assert int(batch.counts_per_puzzle[0]) == dlx.count


def test_rule_sets_give_the_same_counts_and_the_triad_rules_cut_guesses():
    # heuristic 0: cell branching only; 1: pattern branching; 3: also the triad-count rule;
    # 7 (the default): 3 after an optimistic start on the cheap rules (bit 4)
    from rompicapo.cover import _sudoku_bits_kernel as BK

    puzzles = np.concatenate([
        sudoku.read_puzzles(DATA / name) for name in sorted(SAMPLES)
    ])  # fmt: skip
    runs = []
    for heuristic in (0, 1, 2, 3, 7):
        sol = np.zeros_like(puzzles)
        counts = np.zeros(len(puzzles), np.int32)
        guesses = np.zeros(len(puzzles), np.int64)
        BK.solve_batch(puzzles, 2, sol, counts, guesses, heuristic)
        runs.append((counts, guesses))
    assert all(np.array_equal(runs[0][0], c) for c, _ in runs)
    hard = sudoku.read_puzzles(DATA / "forum_hardest_1106_sample.txt")
    n = len(hard)
    start = sum(len(sudoku.read_puzzles(DATA / name)) for name in sorted(SAMPLES)[:1])
    assert sorted(SAMPLES)[1] == "forum_hardest_1106_sample.txt"
    g = [guesses[start : start + n].sum() for _, guesses in runs]
    assert g[3] < g[1] < g[0]


def test_the_optimistic_start_leaves_hard_puzzles_to_the_full_rules():
    # top1465's roots leave 46-61 open cells: with the start limited to roots of at most 48
    # (CHEAP_OPEN), the default makes about the full rules' decisions (9.04 against 8.87 a
    # puzzle); starting cheap on every root with a pair made 11.63
    from rompicapo.cover import _sudoku_bits_kernel as BK

    puzzles = sudoku.read_puzzles(DATA.parent / "sudoku" / "puzzles3_magictour_top1465.txt")
    decisions = {}
    for heuristic in (3, 7):
        sol = np.zeros_like(puzzles)
        counts = np.zeros(len(puzzles), np.int32)
        guesses = np.zeros(len(puzzles), np.int64)
        BK.solve_batch(puzzles, 2, sol, counts, guesses, heuristic)
        assert (counts == 1).all()
        decisions[heuristic] = guesses.sum()
    assert decisions[7] <= 1.05 * decisions[3]
