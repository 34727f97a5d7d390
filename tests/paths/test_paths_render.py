"""Pictures of a path: the text grid exactly, and PDF, PNG and SVG files that exist, open and
have the documented size.

Valid paths come from tests/paths/conftest.py (a backtracking search written for the tests and
the boustrophedon for the rook's step); the 5x5 path below was found by that search and is
checked here by the independent verifier before its grid is compared.
"""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from PIL import Image

from rompicapo.common import InputError
from rompicapo.paths.render import (
    _colormap,
    _order_image,
    grid_text,
    path_from_step_grid,
    png_size,
    step_grid,
    write_pdf,
    write_png,
    write_svg,
)
from rompicapo.paths.verify import verify_path

# A 5x5 caselle path (found by conftest's search): 1 (0,0) -> 2 (3,0) -> 3 (3,3) -> 4 (0,3) ...
PATH_5X5 = [
    0,
    15,
    18,
    3,
    11,
    14,
    22,
    7,
    19,
    4,
    1,
    16,
    8,
    23,
    20,
    5,
    17,
    2,
    10,
    13,
    21,
    6,
    9,
    24,
    12,
]
GRID_5X5 = """\
 1 11 18  4 10
16 22  8 13 23
19  5 25 20  6
 2 12 17  3  9
15 21  7 14 24"""

A4_PORTRAIT = (595.2756, 841.8898)  # reportlab's A4 in points (210 x 297 mm)


def pdf_pages(data: bytes) -> list[tuple[float, float]]:
    """The MediaBox (width, height) of every page object of a reportlab PDF."""
    pages = re.findall(rb"/Type /Page\b(?!s)", data)
    boxes = re.findall(rb"/MediaBox \[ 0 0 ([\d.]+) ([\d.]+) \]", data)
    assert len(boxes) == len(pages)
    return [(float(w), float(h)) for w, h in boxes]


def pdf_content(data: bytes) -> bytes:
    """The page's content stream (reportlab writes one page: ASCII85, then Flate)."""
    streams = re.findall(rb"stream\r?\n(.*?)endstream", data, re.S)
    assert len(streams) == 1
    raw = streams[0].strip()
    return zlib.decompress(base64.a85decode(raw.removesuffix(b"~>")))


# --------------------------------------------------------------------------------------------
# Step grids and text
# --------------------------------------------------------------------------------------------


def test_grid_text_of_the_known_5x5_path():
    path = np.array(PATH_5X5)
    assert verify_path(path, 5, 5, "caselle")
    assert grid_text(path, 5, 5) == GRID_5X5


def test_grid_text_columns(leaper_path):
    text = grid_text(leaper_path(10, 10), 10, 10)
    lines = text.split("\n")
    assert len(lines) == 10
    assert all(len(line) == 10 * 3 + 9 for line in lines)  # width len("100") = 3, 9 spaces
    assert sorted(int(x) for x in text.split()) == list(range(1, 101))
    assert lines[0].startswith("  1 ")  # right-aligned
    assert grid_text([0], 1, 1) == "1"
    assert grid_text([2, 1, 0], 1, 3) == "3 2 1"


def test_grid_text_refuses_huge_boards():
    with pytest.raises(InputError, match="too large"):
        grid_text(np.zeros(1), 1001, 1000)


def test_step_grid_and_its_inverse(snake_path):
    grid = step_grid(snake_path(3, 4), 3, 4)
    assert grid.dtype == np.uint32
    assert grid.tolist() == [[1, 2, 3, 4], [8, 7, 6, 5], [9, 10, 11, 12]]
    assert path_from_step_grid(grid).tolist() == snake_path(3, 4).tolist()
    assert path_from_step_grid(grid.astype(np.int8)).dtype == np.int32


def test_step_grid_refuses_what_is_not_a_path():
    with pytest.raises(InputError, match="never visits cell \\(0, 2\\)"):
        step_grid([0, 1, 1], 1, 3)
    with pytest.raises(InputError, match="index 3 is outside"):
        step_grid([0, 1, 3], 1, 3)
    with pytest.raises(InputError, match="has 2 cells"):
        step_grid([0, 1], 1, 3)
    with pytest.raises(InputError, match="1-D integer"):
        step_grid(np.zeros(3), 1, 3)


@pytest.mark.parametrize(
    ("grid", "words"),
    [
        ([[1, 2], [2, 4]], "step 2 appears twice, at (0, 1) and (1, 0), and step 3 is missing"),
        ([[1, 2], [3, 5]], "cell (1, 1) holds 5, outside the steps 1..4"),
        ([[0, 1], [2, 3]], "cell (0, 0) holds 0, outside the steps 1..4"),
        ([1, 2, 3], "2-D array"),
        ([[1.0, 2.0]], "integers"),
        (np.zeros((0, 3), dtype=int), "non-empty"),
    ],
)
def test_path_from_step_grid_errors(grid, words):
    with pytest.raises(InputError) as info:
        path_from_step_grid(grid)
    assert words in str(info.value)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.randoms(use_true_random=False))
def test_step_grid_round_trip(rows, cols, rnd):
    # any permutation of the cells is a visiting order step_grid numbers and inverts
    path = np.array(rnd.sample(range(rows * cols), rows * cols))
    grid = step_grid(path, rows, cols)
    assert grid[np.unravel_index(path, (rows, cols))].tolist() == list(range(1, rows * cols + 1))
    assert path_from_step_grid(grid).tolist() == path.tolist()


@settings(max_examples=200, deadline=None)
@given(
    hnp.arrays(
        dtype=st.sampled_from([np.int8, np.int32, np.int64, np.uint16]),
        shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4),
    )
)
def test_path_from_step_grid_accepts_only_numberings(grid):
    try:
        path = path_from_step_grid(grid)
    except InputError as exc:
        assert "\n" not in str(exc)
        numbering = (
            grid.ndim == 2
            and grid.size > 0
            and sorted(grid.ravel().tolist()) == list(range(1, grid.size + 1))
        )
        assert not numbering
    else:
        assert step_grid(path, *grid.shape).tolist() == grid.tolist()


# --------------------------------------------------------------------------------------------
# PNG
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "cols", "max_side", "size"),
    [
        (10, 10, 2048, (528, 528)),  # drawn: 48 px a cell, (10 + 1) * 48
        (5, 7, 2048, (384, 288)),  # drawn: (7 + 1) * 48 by (5 + 1) * 48
        (40, 40, 2048, (1968, 1968)),  # drawn: 48 px, the largest drawn board
        (10, 10, 200, (198, 198)),  # drawn: 200 // 11 = 18 px a cell
        (10, 10, 80, (80, 80)),  # 80 // 11 = 7 px a cell is too small: 8 px per cell image
        (41, 41, 2048, (328, 328)),  # colour image: 8 px per cell at most
        (300, 200, 2048, (1200, 1800)),  # colour image: 2048 // 300 = 6 px per cell
        (3000, 2000, 2048, (1000, 1500)),  # blocks of ceil(3000 / 2048) = 2 cells
        (3000, 2000, 100, (67, 100)),  # blocks of 30 cells: ceil(2000 / 30) = 67
    ],
)
def test_png_size_rules(rows, cols, max_side, size):
    assert png_size(rows, cols, max_side) == size
    assert max(size) <= max(max_side, 2048)


def test_png_of_small_boards_draws_the_path(tmp_path, leaper_path):
    for rows, cols in [(10, 10), (5, 7), (1, 1)]:
        file = tmp_path / f"{rows}x{cols}.png"
        path = leaper_path(rows, cols) if rows > 1 else np.array([0])
        size = write_png(path, rows, cols, file)
        with Image.open(file) as image:
            assert image.format == "PNG" and image.mode == "RGB"
            assert image.size == size == png_size(rows, cols)
            pixels = np.asarray(image)
        # the start cell (0, 0) is centred at (0.5 + 0.5) cells: its marker is green (on 1x1
        # the end's red marker covers it)
        cell = size[0] // (cols + 1)
        marker = (44, 160, 44) if rows > 1 else (214, 39, 40)
        assert pixels[cell, cell].astype(int).tolist() == pytest.approx(marker, abs=12)
        # the margin is white and the lines are coloured
        assert tuple(pixels[1, 1]) == (255, 255, 255)
        if rows > 1:
            assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50


def test_png_colour_image(tmp_path, snake_path):
    file = tmp_path / "snake.png"
    size = write_png(snake_path(300, 200, np.int32), 300, 200, file)
    with Image.open(file) as image:
        assert image.size == size == (1200, 1800)
        pixels = np.asarray(image)
    lut = _colormap()
    # 6 px per cell. Cell (0, 0) is step 1, viridis' first colour; cell (299, 100), on the
    # last row walked right to left, is 0-based step 299 * 200 + 99 = 59899: level
    # 59899 * 255 / 59999 = 254.6, truncated to 254
    assert tuple(pixels[2, 2 + 30]) == tuple(lut[int(5 * 255 / 59999)])
    assert tuple(pixels[-3, 600]) == tuple(lut[254])


def test_png_of_a_huge_board_is_downsampled(tmp_path, snake_path):
    file = tmp_path / "huge.png"
    path = snake_path(3000, 2000, np.int32)
    size = write_png(path, 3000, 2000, file, max_side=2048)
    with Image.open(file) as image:
        assert image.size == size == (1000, 1500)
    small = write_png(path, 3000, 2000, tmp_path / "small.png", max_side=100)
    assert small == (67, 100)


def test_png_from_a_read_only_memmap(tmp_path, snake_path):
    file = tmp_path / "path.npy"
    np.save(file, snake_path(50, 60))
    path = np.load(file, mmap_mode="r")
    assert write_png(path, 50, 60, tmp_path / "m.png") == (480, 400)  # 8 px per cell


def test_order_image_is_the_mean_step_per_block(snake_path):
    # the 4x4 snake's steps:  1  2  3  4 / 8  7  6  5 / 9 10 11 12 / 16 15 14 13
    # blocks of 2x2 cells: mean 0-based step (0+1+7+6)/4 = 3.5, (2+3+5+4)/4 = 3.5,
    # (8+9+15+14)/4 = 11.5, 11.5; colour level = mean * 255 / 15, truncated
    rgb = _order_image(snake_path(4, 4), 4, 4, max_side=2)
    lut = _colormap()
    assert rgb.shape == (2, 2, 3)
    assert rgb[0, 0].tolist() == rgb[0, 1].tolist() == lut[59].tolist()  # 3.5 * 17 = 59.5
    assert rgb[1, 0].tolist() == rgb[1, 1].tolist() == lut[195].tolist()  # 11.5 * 17 = 195.5
    # one pixel per cell: the step itself
    rgb = _order_image(snake_path(4, 4), 4, 4, max_side=4)
    assert rgb[1, 0].tolist() == lut[7 * 17].tolist()


def test_png_refuses_bad_input(tmp_path):
    with pytest.raises(InputError, match="has 3 cells"):
        write_png(np.arange(3), 2, 2, tmp_path / "x.png")
    with pytest.raises(InputError, match="outside"):
        write_png(np.array([0, 1, 2, 9]), 2, 2, tmp_path / "x.png")
    with pytest.raises(InputError, match="max_side"):
        write_png(np.arange(4), 2, 2, tmp_path / "x.png", max_side=0)
    with pytest.raises(InputError, match="at least 1 row"):
        write_png(np.arange(4), 0, 2, tmp_path / "x.png")


# --------------------------------------------------------------------------------------------
# SVG
# --------------------------------------------------------------------------------------------

SVG = "{http://www.w3.org/2000/svg}"


def test_svg_of_the_paper_game(tmp_path, leaper_path):
    file = tmp_path / "paper.svg"
    write_svg(leaper_path(10, 10), 10, 10, file)
    root = ET.parse(file).getroot()
    assert root.tag == f"{SVG}svg"
    # 32 units a cell and half a cell of margin each side: 10 * 32 + 32
    assert (root.get("width"), root.get("height")) == ("352", "352")
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert sorted(int(t) for t in texts) == list(range(1, 101))
    lines = list(root.iter(f"{SVG}polyline"))
    assert len(lines) == 99  # fewer segments than the 256 colour bands: one band each
    assert len({line.get("stroke") for line in lines}) > 50
    circles = list(root.iter(f"{SVG}circle"))
    assert [c.get("fill") for c in circles] == ["#2ca02c", "#d62728"]


def test_svg_of_a_larger_board(tmp_path, snake_path):
    file = tmp_path / "snake.svg"
    write_svg(snake_path(200, 150), 200, 150, file)
    root = ET.parse(file).getroot()
    assert list(root.iter(f"{SVG}text")) == []  # no numbers above 30x30
    assert len(list(root.iter(f"{SVG}polyline"))) == 256
    points = sum(len(p.get("points").split()) for p in root.iter(f"{SVG}polyline"))
    assert points == 200 * 150 + 255  # bands share their end points


def test_svg_refuses_big_boards(tmp_path):
    with pytest.raises(InputError, match="SVG is for boards up to 40,000 cells"):
        write_svg(np.arange(201 * 200), 201, 200, tmp_path / "big.svg")
    assert not (tmp_path / "big.svg").exists()


# --------------------------------------------------------------------------------------------
# PDF
# --------------------------------------------------------------------------------------------


def test_pdf_numbered_grid(tmp_path, leaper_path):
    file = tmp_path / "paper.pdf"
    write_pdf(leaper_path(10, 10), 10, 10, file, title="Il gioco delle 100 caselle")
    data = file.read_bytes()
    assert data.startswith(b"%PDF-")
    assert pdf_pages(data) == [A4_PORTRAIT]
    assert b"/Subtype /Image" not in data
    content = pdf_content(data)
    numbers = re.findall(rb"\((\d+)\) Tj", content)
    assert sorted(int(x) for x in numbers) == list(range(1, 101))
    assert b"(Il gioco delle 100 caselle) Tj" in content


def test_pdf_landscape_for_wide_boards(tmp_path, leaper_path):
    file = tmp_path / "wide.pdf"
    write_pdf(leaper_path(5, 7), 5, 7, file)
    assert pdf_pages(file.read_bytes()) == [A4_PORTRAIT[::-1]]


def test_pdf_polyline_and_image(tmp_path, snake_path):
    polyline = tmp_path / "polyline.pdf"
    write_pdf(snake_path(40, 40), 40, 40, polyline)
    data = polyline.read_bytes()
    assert pdf_pages(data) == [A4_PORTRAIT] and b"/Subtype /Image" not in data
    big = tmp_path / "big.pdf"
    write_pdf(snake_path(200, 100), 200, 100, big)
    content = pdf_content(big.read_bytes())
    # 19,999 segments drawn in 256 one-colour runs: 256 stroke colours (RG), plus the border
    # and the two end markers' white outlines
    assert len(re.findall(rb" l\b", content)) == 200 * 100 - 1
    assert len(re.findall(rb" RG\b", content)) == 256 + 3
    image = tmp_path / "image.pdf"
    write_pdf(snake_path(600, 500, np.int32), 600, 500, image)  # 300,000 > 250,000 cells
    data = image.read_bytes()
    assert pdf_pages(data) == [A4_PORTRAIT] and b"/Subtype /Image" in data
    # the embedded image is the downsampled visit order, at most 1200 px a side
    width = int(re.search(rb"/Width (\d+)", data).group(1))
    height = int(re.search(rb"/Height (\d+)", data).group(1))
    assert (width, height) == (500, 600)


def test_pdf_refuses_bad_input(tmp_path):
    with pytest.raises(InputError, match="has 3 cells"):
        write_pdf(np.arange(3), 2, 2, tmp_path / "x.pdf")
