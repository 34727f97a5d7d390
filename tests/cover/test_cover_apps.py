"""Polyominoes, the independent verifiers, and the CLI commands."""

from __future__ import annotations

import json

import datafiles
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.cli import main
from rompicapo.common import InputError
from rompicapo.cover import Packing, pack, parse_dlx, queens, solve
from rompicapo.cover.polyomino import parse_pieces, parse_region
from rompicapo.cover.verify import cover_violations, langford_ok, queens_ok, tiling_ok

DATA = datafiles.DATA / "exact-cover"


def test_pentomino_rectangles_with_symmetry_breaking():
    # Haselgrove & Haselgrove 1960 / README: 3x20 has 2 tilings up to symmetry (8 in all)
    r = pack("pentominoes", "3x20", keep_solutions=8, limit=None)
    assert r.count == 2 and r.packing.symmetry_factor == 4 and r.total == 8
    assert r.verify()
    full = pack("pentominoes", "3x20", symmetry=False)
    assert full.count == 8


def test_piece_and_region_drawings():
    pieces = parse_pieces("AAB\n.BB")  # a domino A and an L-tromino B
    assert pieces == {"A": ((0, 0), (0, 1)), "B": ((0, 1), (1, 0), (1, 1))}
    region = parse_region("###\n#.#\n###")
    assert len(region) == 8
    with pytest.raises(InputError, match="not connected"):
        parse_pieces("A.A")
    with pytest.raises(InputError, match="only 4"):
        Packing.build("pentominoes", "2x2")


def test_tetromino_packing_with_holes_and_letters():
    # 5 free tetrominoes (20 cells) cannot tile 4x5 (parity of T), a well-known fact
    assert pack("tetrominoes", "4x5", symmetry=False).count == 0
    # in a 5x5 box with 5 holes they fit; cells are secondary items, drawings verified
    r = pack("tetrominoes", "5x5", limit=3)
    assert r.count == 3 and r.verify()
    assert all(d.count(".") == 5 for d in r.drawings)


def test_fixed_orientations_restrict_placements():
    free = Packing.build("tetrominoes", "5x5", orientations="all")
    fixed = Packing.build("tetrominoes", "5x5", orientations="fixed")
    assert len(fixed.problem.options) < len(free.problem.options)


# --- verifiers ------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.permutations(range(8)))
def test_queens_verifier_matches_a_direct_attack_check(cols):
    attacks = any(abs(cols[i] - cols[j]) == j - i for i in range(8) for j in range(i + 1, 8))
    assert queens_ok(8, list(cols)) == (not attacks)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 63), min_size=0, max_size=10, unique=True))
def test_cover_verifier_accepts_exactly_the_92_queen_solutions(choice):
    problem = parse_dlx((DATA / "queens-8.dlx").read_text())
    cols = {k // 8: k % 8 for k in choice}
    ok = len(choice) == 8 and len(cols) == 8 and queens_ok(8, [cols[i] for i in range(8)])
    assert (not cover_violations(problem, choice)) == ok


def test_cover_verifier_sees_colour_and_bound_violations():
    problem = parse_dlx((DATA / "bounds-example.dlx").read_text())
    (good,) = solve(problem, limit=None).solutions
    assert cover_violations(problem, good) == []
    assert any("covered" in w for w in cover_violations(problem, good[:-1]))
    colour = parse_dlx((DATA / "color-example.dlx").read_text())
    assert any("colours" in w for w in cover_violations(colour, [0, 1]))  # X:0 with X:1
    assert cover_violations(colour, [0, 0]) and cover_violations(colour, [99])


@settings(max_examples=100, deadline=None)
@given(st.permutations([1, 1, 2, 2, 3, 3]))
def test_langford_verifier(seq):
    places = {d: [k for k, x in enumerate(seq) if x == d] for d in (1, 2, 3)}
    ok = all(places[d][1] - places[d][0] == d + 1 for d in (1, 2, 3))
    assert langford_ok(3, list(seq)) == ok
    assert langford_ok(3, [3, 1, 2, 1, 3, 2])


def test_tiling_verifier_rejects_wrong_shapes_and_gaps():
    r = pack("pentominoes", "3x20", limit=1)
    drawing = r.drawings[0]
    pieces, region = r.packing.pieces, r.packing.region
    assert tiling_ok(pieces, region, drawing)
    swapped = drawing.replace("I", "#").replace("L", "I").replace("#", "L")
    assert not tiling_ok(pieces, region, swapped)
    assert not tiling_ok(pieces, region, drawing.replace("X", ".", 1))


# --- CLI ------------------------------------------------------------------------------------


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_cover_count_json_and_listing(capsys):
    code, out, _ = run(capsys, "cover", str(DATA / "queens-8.dlx"), "--json")
    data = json.loads(out)
    assert code == 0 and data["solutions"] == 92 and data["complete"] and data["nodes"] > 0
    code, out, _ = run(capsys, "cover", str(DATA / "color-example.dlx"), "--all")
    assert code == 0 and "A C X:1 Y:1" in out and out.strip().endswith("s")
    code, out, _ = run(capsys, "cover", str(DATA / "queens-8.dlx"), "--limit", "3", "--json")
    assert len(json.loads(out)["kept"]) == 3
    code, out, _ = run(capsys, "cover", str(DATA / "queens-8.dlx"), "--seed", "4")
    assert code == 0 and out.count("  r") == 8


def test_cli_errors_are_one_line_exit_2(capsys, tmp_path):
    code, _, err = run(capsys, "cover", str(tmp_path / "missing.dlx"))
    assert code == 2 and err.count("\n") == 1
    bad = tmp_path / "bad.dlx"
    bad.write_text("A B\nA C\n")
    code, _, err = run(capsys, "cover", str(bad))
    assert code == 2 and "unknown item 'C'" in err
    empty = tmp_path / "empty.dlx"
    empty.write_text("")
    code, _, err = run(capsys, "cover", str(empty))
    assert code == 2 and "empty input" in err
    code, _, err = run(capsys, "sudoku", "solve", "123")
    assert code == 2 and "got 3" in err


def test_cli_queens_and_polyomino(capsys):
    code, out, _ = run(capsys, "queens", "8")
    assert code == 0 and out.startswith("92 solutions")
    code, out, _ = run(capsys, "queens", "5", "--limit", "2")
    assert out.count("Q") == 10
    code, out, _ = run(capsys, "polyomino", "--pieces", "pentominoes", "--region", "3x20")
    assert code == 0 and out.startswith("8 packings (2 up to")
    code, out, _ = run(capsys, "polyomino", "--region", "3x20", "--limit", "1")
    assert "XXX" in out


def test_cli_sudoku_solve_generate_rate(capsys, tmp_path):
    puzzle = "...8.1..........435............7.8........1...2..3....6......75..34........2..6.."
    code, out, _ = run(capsys, "sudoku", "solve", puzzle)
    assert code == 0 and "unique solution" in out and "------+" in out
    code, out, _ = run(capsys, "sudoku", "solve", "11" + "." * 79)
    assert code == 0 and "no solution" in out
    f = tmp_path / "two.txt"
    f.write_text(puzzle + "\n" + "." * 81 + "\n")
    code, out, _ = run(capsys, "sudoku", "solve", str(f))
    assert code == 0 and out.splitlines()[0].endswith(" 1") and out.splitlines()[1].endswith(" 2+")
    code, out, _ = run(capsys, "sudoku", "generate", "--seed", "3", "--json")
    data = json.loads(out)
    assert data["unique"] and data["minimal"] and len(data["puzzle"]) == 81
    code, out, _ = run(capsys, "sudoku", "generate", "--box", "2x2", "--seed", "1")
    assert code == 0 and "clues, unique solution" in out
    code, out, _ = run(capsys, "sudoku", "rate", puzzle)
    assert code == 0 and puzzle in out


def test_queens_api_lists_and_verifies():
    r = queens(6, limit=None, keep_solutions=4)
    assert r.count == 4 and r.verify()
