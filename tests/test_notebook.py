"""The notebook of the docs runs from top to bottom, and the results it shows draw themselves
(``_repr_svg_`` / ``_repr_png_``, what Jupyter displays): each picture is read back and must
show the answer (the digits where they stand, one queen per row and column, ...)."""

from __future__ import annotations

import io
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUDOKU = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"


SVG = "{http://www.w3.org/2000/svg}"


def _svg(text: str | None) -> ET.Element:
    """The parsed picture, which must be well-formed SVG with a title saying what it shows."""
    assert text is not None
    root = ET.fromstring(text.encode())
    assert root.tag == f"{SVG}svg"
    title = root.find(f"{SVG}title")
    assert title is not None and len(title.text) > 20, "the picture needs its description"
    return root


def test_a_path_draws_itself_as_svg_and_a_large_one_as_png():
    from PIL import Image

    from rompicapo.paths import construct
    from rompicapo.paths.render import png_size

    small = construct(5, 7, start=(2, 3), seed=1)
    root = _svg(small._repr_svg_())
    numbers = [int(t.text) for t in root.iter(f"{SVG}text")]
    assert sorted(numbers) == list(range(1, 36))  # every step numbered once
    assert small._repr_png_() is None  # the SVG is shown: no second picture
    assert construct(4, 4)._repr_svg_() is None  # no path: nothing to draw
    assert construct(4, 4)._repr_png_() is None
    big = construct(300, 300)
    assert big._repr_svg_() is None  # too big for SVG...
    data, meta = big._repr_png_()  # ...so Jupyter gets a PNG, with its alternative text
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.size == png_size(300, 300, 1024) == (900, 900)
    assert "300x300" in meta["alt"] and image.text["Description"] == meta["alt"]
    # the colour ramp runs by step (3 pixels per cell): dark early, bright late
    rgb = image.convert("RGB")
    brightness = []
    for step in (9_000, 45_000, 81_000):
        r, c = divmod(int(big.path[step]), 300)
        brightness.append(sum(rgb.getpixel((3 * c + 1, 3 * r + 1))))
    assert brightness == sorted(brightness) and brightness[2] - brightness[0] > 200


def test_a_sudoku_draws_its_81_digits_where_they_stand():
    from rompicapo.cover import sudoku

    res = sudoku.solve(SUDOKU)
    root = _svg(res._repr_svg_())
    texts = list(root.iter(f"{SVG}text"))
    assert len(texts) == 81
    # read the grid back from the picture: a digit's row and column from its position
    cell = float(root.get("width")) / 10  # 9 cells and two half-cell margins
    grid = [[0] * 9 for _ in range(9)]
    for t in texts:
        c, r = int(float(t.get("x")) / cell - 0.5), int(float(t.get("y")) / cell - 0.5)
        grid[r][c] = int(t.text)
    assert grid == [list(row) for row in res.solutions[0]]
    givens = [t for t in texts if t.get("font-weight") == "bold"]
    assert len(givens) == sum(ch != "0" for ch in SUDOKU) == 30


def test_queens_and_a_packing_draw_themselves():
    from rompicapo.cover import pack, queens

    res = queens(8, limit=1, jobs=1)
    root = _svg(res._repr_svg_())
    discs = [g.find(f"{SVG}circle") for g in root.iter(f"{SVG}g") if g.get("class") == "queen"]
    assert len(discs) == 8
    spots = {(float(d.get("cy")), float(d.get("cx"))) for d in discs}
    rows, cols = {y for y, _ in spots}, {x for _, x in spots}
    assert len(rows) == len(cols) == 8  # one queen per row and per column
    assert res._repr_html_() is None  # the board is the picture, not text
    assert "<pre>" in queens(8, jobs=1)._repr_html_()  # a count has no board: its report
    assert queens(8, jobs=1)._repr_svg_() is None

    packing = pack("pentominoes", "6x10", limit=1, jobs=1)
    root = _svg(packing._repr_svg_())
    cells = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "cell"]
    assert len(cells) == 60 and len({r.get("fill") for r in cells}) == 12  # a colour per piece
    letters = sorted(t.text for t in root.iter(f"{SVG}text"))
    assert letters == sorted("FILNPTUVWXYZ")


def test_connect_four_and_nim_draw_themselves():
    from rompicapo.games import Connect4Solver, nim_advice
    from rompicapo.games.connect4 import solve_moves

    analysis = Connect4Solver().analyse("4455")
    root = _svg(analysis._repr_svg_())
    stones = [c.get("class") for c in root.iter(f"{SVG}circle") if c.get("class")]
    assert sorted(stones) == ["stone first"] * 2 + ["stone second"] * 2
    scores = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "score"]
    assert [int(s) for s in scores] == analysis.scores
    assert len(list(_svg(solve_moves("4455")._repr_svg_()).iter(f"{SVG}circle"))) == 42

    advice = nim_advice([3, 5, 8])  # take 2 from the heap of 8
    root = _svg(advice._repr_svg_())
    kinds = [c.get("class") for c in root.iter(f"{SVG}circle")]
    assert kinds.count("take") == 2 and kinds.count("keep") == 14


def test_a_scored_eternity_board_marks_its_mismatches():
    from rompicapo.edges import score_board

    board = ROOT / "tests" / "data" / "eternity2" / "eternity2_board_blackwood_470.txt"
    res = score_board(board, "eternity2")
    root = _svg(res._repr_svg_())
    red = [r for r in root.iter(f"{SVG}rect") if r.get("fill") == "#dc0000"]
    assert res.mismatched == 10 and len(red) == 10
    assert "470 of 480" in root.find(f"{SVG}title").text


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
    kinds = [kind for output in shown for kind in output["data"] if kind.startswith("image/")]
    assert kinds.count("image/svg+xml") >= 7 and "image/png" in kinds  # every family draws
    for output in shown:  # and every picture says what it shows
        if "image/svg+xml" in output["data"]:
            _svg(output["data"]["image/svg+xml"])
        if "image/png" in output["data"]:
            assert len(output["metadata"]["image/png"]["alt"]) > 20
