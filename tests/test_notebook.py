"""The notebook of the docs runs from top to bottom, and the results it shows draw themselves
(``_repr_svg_`` / ``_repr_html_``, what Jupyter displays)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUDOKU = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"


def test_results_draw_themselves_for_jupyter():
    from rompicapo.cover import pack, queens, sudoku
    from rompicapo.games.connect4 import solve_moves
    from rompicapo.paths import construct

    svg = construct(5, 7, start=(2, 3), seed=1)._repr_svg_()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert construct(4, 4)._repr_svg_() is None  # no path: nothing to draw
    assert "5 3 4 | 6 7 8 | 9 1 2" in sudoku.solve(SUDOKU)._repr_html_()
    assert queens(6, limit=1, jobs=1)._repr_html_().count("Q") == 6
    assert "<pre>" in pack("pentominoes", "3x20", limit=1, jobs=1)._repr_html_()
    assert "1 2 3 4 5 6 7" in solve_moves("4455")._repr_html_()


def test_an_edge_matching_board_draws_itself():
    from rompicapo.edges import solve

    pieces = ROOT / "tests" / "data" / "eternity2" / "benchmarks" / "brendan_04x04_pieces.txt"
    board = solve(str(pieces), time_limit=10, jobs=1)
    assert board.solved and "<svg" in board._repr_svg_()


def test_the_tour_notebook_runs(monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.read(ROOT / "docs" / "notebooks" / "tour.ipynb", as_version=4)
    env_path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    monkeypatch.setenv("PYTHONPATH", env_path)  # the kernel imports this checkout
    nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    shown = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "execute_result"
    ]
    kinds = {kind for output in shown for kind in output["data"]}
    assert {"image/svg+xml", "text/html"} <= kinds
