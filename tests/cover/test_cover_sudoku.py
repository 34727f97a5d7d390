"""Sudoku: the exact-cover form, the bitboard fast path, batch solving, generator, rating."""

from __future__ import annotations

import datafiles
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.common import InputError
from rompicapo.cover import count, sudoku
from rompicapo.cover.sudoku import Sudoku, exact_cover_form
from rompicapo.cover.verify import sudoku_ok

DATA = datafiles.DATA / "sudoku"

# A puzzle with a unique solution (the first line of the 17-clue set) and its solution,
# checked by the independent verifier below rather than trusted.
PUZZLE17 = "...8.1..........435............7.8........1...2..3....6......75..34........2..6.."


def test_exact_cover_form_has_the_articles_sizes():
    # the article: 324 items (cell, row-digit, column-digit, box-digit), 729 options
    p = exact_cover_form(9, (3, 3), False, None)
    assert len(p.primary) == 324 and len(p.options) == 729


def test_there_are_288_shidoku_grids():
    # 4x4 Sudoku ("Shidoku") has 288 completed grids (well known; e.g. OEIS A107739(2))
    p = exact_cover_form(4, (2, 2), False, None)
    r = count(p)
    assert r.count == 288


def test_bitboard_and_dlx_agree_and_verify():
    for engine in ("bitboard", "dlx"):
        r = sudoku.solve(PUZZLE17, engine=engine)
        assert r.count == 1 and r.unique and r.verify()
    assert (
        sudoku.solve(PUZZLE17, engine="bitboard").solutions
        == sudoku.solve(PUZZLE17, engine="dlx").solutions
    )


def test_sample_of_17_clue_set_all_unique_and_serg_set_all_multiple():
    # README: every 17-clue puzzle has exactly one solution, every serg puzzle two or more;
    # the files are the samples p17[::24] of 49,158 and serg[::10] of 10,000 (tests/data/sudoku)
    sample = sudoku.read_puzzles(DATA / "puzzles2_17_clue_every24th.txt")
    assert len(sample) == 2049
    batch = sudoku.solve_batch(sample)
    assert (batch.counts_per_puzzle == 1).all() and batch.verify()
    sample = sudoku.read_puzzles(DATA / "puzzles7_serg_benchmark_every10th.txt")
    assert len(sample) == 1000
    batch = sudoku.solve_batch(sample)
    assert (batch.counts_per_puzzle == 2).all() and batch.verify()


def test_magictour_top1465_all_unique_and_verified():
    # tdoku's benchmark README: every puzzle of top1465 has exactly one solution
    puzzles = sudoku.read_puzzles(DATA / "puzzles3_magictour_top1465.txt")
    assert len(puzzles) == 1465 and len({p.tobytes() for p in puzzles}) == 1465
    batch = sudoku.solve_batch(puzzles)
    assert (batch.counts_per_puzzle == 1).all() and batch.verify()


def test_dlx_cross_checks_the_bitboard_on_hard_puzzles():
    hard = sudoku.read_puzzles(DATA / "puzzles6_forum_hardest_1106_first15.txt")[:15]
    batch = sudoku.solve_batch(hard)
    for row, n, sol in zip(hard, batch.counts_per_puzzle, batch.solutions, strict=True):
        r = sudoku.solve(Sudoku.from_grid(row.reshape(9, 9)), engine="dlx")
        assert r.count == n == 1
        assert np.array_equal(np.array(r.solutions[0]).reshape(81), sol)


def test_contradicting_givens_mean_no_solution_not_a_crash():
    clash = "11" + "." * 79  # two 1s in the first row
    for engine in ("bitboard", "dlx"):
        r = sudoku.solve(clash, engine=engine)
        assert r.count == 0 and r.solutions == []
    hidden_clash = "12345678." + "........9" + "." * 63  # r1c9 can only be 9, r2c9 is 9
    assert sudoku.solve(hidden_clash).count == 0
    assert sudoku.solve(hidden_clash, engine="dlx").count == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1" * 80, "got 80"),
        ("x" + "." * 80, "bad character 'x' at row 1, column 1"),
        ("." * 40 + "A" + "." * 40, "bad character 'A'"),
        ("", "got 0"),
    ],
)
def test_bad_puzzle_text_gives_a_one_line_error(text, message):
    with pytest.raises(InputError, match=message):
        Sudoku.parse(text)


def test_read_puzzles_names_the_bad_line(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("# comment\n" + "." * 81 + "\n" + "." * 80 + "\n")
    with pytest.raises(InputError, match=r"p.txt:3: a puzzle line has 81"):
        sudoku.read_puzzles(f)
    f.write_text("." * 80 + "z\n")
    with pytest.raises(InputError, match=r"p.txt:1: bad character 'z' at position 81"):
        sudoku.read_puzzles(f)
    f.write_bytes(b"\x89PNG\x00\x01" * 20)
    with pytest.raises(InputError, match="not a text file"):
        sudoku.read_puzzles(f)


def test_printed_grid_parses_back():
    p = Sudoku.parse(PUZZLE17)
    assert Sudoku.parse(p.pretty()) == p
    assert Sudoku.parse(p.pretty()).line() == PUZZLE17


def test_other_sizes_and_variants():
    # 16x16 with letters, 6x6 with 2x3 boxes, diagonal and jigsaw variants, all by DLX
    g16 = sudoku.generate(box=(2, 2), seed=5)
    assert g16.puzzle.size == 4 and g16.verify()
    six = Sudoku.parse("." * 36, box="2x3")
    r = sudoku.solve(six, limit=3)
    assert r.count == 3 and r.verify()
    diag = Sudoku.parse("." * 81, diagonals=True)
    r = sudoku.solve(diag, limit=1)
    assert r.count == 1 and r.verify()
    sol = r.solutions[0]
    assert sorted(sol[i][i] for i in range(9)) == list(range(1, 10))
    layout = "AAABBBCCC" * 3 + "DDDEEEFFF" * 3 + "GGGHHHIII" * 3  # = ordinary boxes
    jig = Sudoku.parse(PUZZLE17, regions=layout)
    assert sudoku.solve(jig).solutions == sudoku.solve(PUZZLE17).solutions
    with pytest.raises(InputError, match="needs 9 regions"):
        Sudoku.parse(PUZZLE17, regions="A" * 81)


def test_sixteen_by_sixteen_solves():
    grid = sudoku.solve(Sudoku.parse("." * 256), limit=1)
    assert grid.count == 1 and grid.verify()
    assert set(grid.solution.line()) == set("123456789ABCDEFG")


def test_generated_puzzles_are_unique_and_minimal():
    for seed in range(5):
        g = sudoku.generate(seed=seed)
        assert g.verify() and g.minimal
        assert sudoku.solve(g.puzzle).unique
        assert sudoku.is_minimal(g.puzzle)
        assert g.puzzle.clue_count >= 17  # McGuire et al.: no 16-clue puzzle is unique
    assert sudoku.generate(seed=7).puzzle == sudoku.generate(seed=7).puzzle


def test_a_time_limit_keeps_what_was_reached():
    # 16x16 generation takes seconds: stopped at 1 s it keeps a puzzle with one solution
    g = sudoku.generate(box=(4, 4), seed=3, time_limit=1.0)
    assert g.stopped == "time" and not g.minimal and g.rating == "unrated"
    assert 0 < g.puzzle.clue_count < 256 and g.verify() and g.to_dict()["unique"]
    # the DLX engine counting an empty 16x16 stops at its limit with a lower bound
    s = sudoku.solve(Sudoku.parse("." * 256), limit=10**9, time_limit=0.5)
    assert s.stopped == "time" and 0 < s.count < 10**9 and not s.unique and s.verify()
    assert "stopped (time)" in s.report()
    r = sudoku.rate(Sudoku.parse("." * 256), time_limit=0.01)
    # an empty grid may be settled (two solutions) before the first check of the clock
    assert r.label == "unrated" or (r.label == "invalid" and r.solutions == 2)


def test_symmetric_generation_and_clue_target():
    g = sudoku.generate(seed=2, symmetric=True)
    cells = g.puzzle.array().reshape(81)
    assert g.verify()
    assert all((cells[i] != 0) == (cells[80 - i] != 0) for i in range(81))
    g = sudoku.generate(seed=2, clues=30)
    assert g.verify() and g.puzzle.clue_count <= 30


def test_rating_orders_easy_and_hardest():
    hard = sudoku.read_puzzles(DATA / "puzzles6_forum_hardest_1106_first15.txt")[0]
    assert sudoku.rate(Sudoku.from_grid(hard.reshape(9, 9))).label == "fiendish"
    easy = sudoku.solve(PUZZLE17).solution.line()
    easy = "." + easy[1:]  # one empty cell: a naked single
    assert sudoku.rate(easy).label == "easy"
    assert sudoku.rate("." * 81).label == "invalid"


@st.composite
def grids_and_mutations(draw):
    base = sudoku.solve(PUZZLE17).solutions[0]
    r, c = draw(st.integers(0, 8)), draw(st.integers(0, 8))
    v = draw(st.integers(1, 9))
    return base, r, c, v


@settings(max_examples=200, deadline=None)
@given(grids_and_mutations())
def test_verifier_catches_any_changed_cell(case):
    base, r, c, v = case
    puzzle = Sudoku.parse(PUZZLE17).grid
    assert sudoku_ok(puzzle, base, (3, 3))
    changed = [row[:] for row in base]
    changed[r][c] = v
    assert sudoku_ok(puzzle, changed, (3, 3)) == (v == base[r][c])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="123456789.0xA |-+\n", max_size=100))
def test_parser_never_crashes(text):
    try:
        p = Sudoku.parse(text)
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert p.size * p.size == sum(len(row) for row in p.grid)
