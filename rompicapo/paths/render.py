"""Pictures of a path: the numbered grid as text, PDF, PNG and SVG.

A path is a 1-D integer array of flat row-major cell indices (``r * cols + c``), step 1 first.
These functions draw what they are given: they check the shape, dtype, length and range of the
path (one clear [`InputError`][rompicapo.common.InputError] otherwise), not that it is a legal path
(that is `rompicapo.paths.verify`'s job).

What each picture shows, by board size:

- **text**: small boards: the numbered grid, as on paper; large boards: (up to 10^6 cells)
- **PDF (A4)**: small boards: numbered cells, both sides <= 30; large boards: the path as a
  colour-graded polyline up to 250,000 cells; above, the visit order as a downsampled image
- **PNG**: small boards: the path drawn over the grid, with step numbers, both sides <= 40; large
  boards: the visit order as a colour image, one or a few pixels per cell, downsampled (mean step
  per block) above ``max_side``
- **SVG**: small boards: grid, graded path, numbers <= 30; large boards: refused above 200x200 cells

Colours run along viridis (perceptually uniform, readable in grey and by colour-blind readers)
from dark purple at step 1 to yellow at the last step; the start cell is marked green and the
end cell red.

```pycon
>>> import numpy as np
>>> print(grid_text(np.array([0, 1, 3, 2]), 2, 2))
1 2
4 3

```"""

from __future__ import annotations

import functools
import itertools
import math
import os
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

from rompicapo.common import InputError, check_memory

__all__ = [
    "grid_text",
    "path_from_step_grid",
    "png_image",
    "png_size",
    "step_grid",
    "write_pdf",
    "write_png",
    "write_svg",
]

# Largest board drawn as a numbered grid in the PDF ("about 30x30": at 30 cells across an A4
# page a cell is 17 pt wide, room for three digits at a readable 7 pt).
PDF_NUMBERED_SIDE = 30
# Largest board drawn as a polyline in the PDF; above it the visit order is an embedded image.
# 250,000 segments make a ~4 MB PDF that viewers still render in a second or two; far more
# lines than the ~500 x 700 points of the page can show anyway.
PDF_POLYLINE_CELLS = 250_000
# Pixels on the long side of the image embedded in a PDF for huge boards (about 150 dpi over
# the width of an A4 page: sharp in print, a few MB at most).
PDF_IMAGE_SIDE = 1200
# Colour bands of a graded polyline: each band is one PDF/SVG path with one stroke colour, so
# a million-cell path makes 256 colour changes, not a million. 256 is the colormap's own
# resolution, so more bands would show no finer gradient.
GRADIENT_BANDS = 256

# Largest board whose PNG draws the path itself over the grid (both sides); a 40-cell side at
# 48 px per cell is a 1968 px image, within the default max_side of 2048.
PNG_DRAWN_SIDE = 40
# Pixels per cell of a drawn PNG at most (big enough for step numbers and markers), and the
# least below which the drawing is unreadable and the colour image is used instead.
PNG_CELL_PX = 48
PNG_MIN_CELL_PX = 8
# Pixels per cell at most in the colour image of a mid-size board (41x41 -> 328 px): a few
# pixels per cell; the image is for the pattern, not for single cells.
PNG_MAX_PIXELS_PER_CELL = 8
# Supersampling of drawn PNGs: Pillow draws aliased lines, so draw 3x larger and shrink with a
# Lanczos filter for smooth lines and text.
PNG_SUPERSAMPLE = 3

# SVG is for small boards: every segment is text in the file and every number an element.
SVG_MAX_CELLS = 200 * 200
SVG_NUMBERED_SIDE = 30

# The text grid is for reading; a million numbers (~7 MB) is already more than anyone reads.
TEXT_MAX_CELLS = 1_000_000

# Steps per chunk when reading a path of any size (see verify.DEFAULT_CHUNK for the reason).
CHUNK = 1 << 20

START_RGB = (44, 160, 44)  # green
END_RGB = (214, 39, 40)  # red


# --------------------------------------------------------------------------------------------
# Step grids and text
# --------------------------------------------------------------------------------------------


def step_grid(path: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """The ``(rows, cols)`` grid of step numbers: ``grid[r, c]`` is when cell (r, c) is visited.

    Steps count from 1. dtype uint32 when R×C < 2^32, else int64. Raises
    [`InputError`][rompicapo.common.InputError] when the path does not visit every cell exactly
    once.

    ```pycon
    >>> step_grid(np.array([0, 1, 3, 2]), 2, 2).tolist()
    [[1, 2], [4, 3]]

    ```"""
    arr = _checked_path(path, rows, cols)
    n = rows * cols
    dtype = np.uint32 if n < 2**32 else np.int64
    check_memory(n * np.dtype(dtype).itemsize, f"the step grid of a {rows}x{cols} board")
    grid = np.zeros(n, dtype=dtype)
    for lo in range(0, n, CHUNK):
        hi = min(lo + CHUNK, n)
        grid[arr[lo:hi]] = np.arange(lo + 1, hi + 1, dtype=dtype)
    missing = np.flatnonzero(grid == 0)
    if missing.size:
        r, c = divmod(int(missing[0]), cols)
        raise InputError(f"the path never visits cell ({r}, {c}): it is not a path over the board")
    return grid.reshape(rows, cols)


def path_from_step_grid(grid: object) -> np.ndarray:
    """The path (flat indices, int32 or int64) of a grid of step numbers 1..R×C, each once.

    The inverse of [`step_grid()`][rompicapo.paths.render.step_grid]. Raises
    [`InputError`][rompicapo.common.InputError] for a grid that is not 2-D,
    not integer, or not a numbering of its cells by 1..R×C.

    ```pycon
    >>> path_from_step_grid([[1, 2], [4, 3]]).tolist()
    [0, 1, 3, 2]

    ```"""
    g = np.asarray(grid)
    if g.ndim != 2 or g.size == 0:
        raise InputError(f"a step grid is a non-empty 2-D array, got shape {g.shape}")
    if g.dtype.kind not in "iu":
        raise InputError(f"a step grid holds integers, got dtype {g.dtype}")
    rows, cols = g.shape
    n = rows * cols
    flat = g.ravel()
    outside = (flat < 1) | (flat > n)
    if outside.any():
        i = int(np.argmax(outside))
        r, c = divmod(i, cols)
        raise InputError(f"cell ({r}, {c}) holds {flat[i]}, outside the steps 1..{n}")
    steps = flat.astype(np.int64)
    counts = np.bincount(steps, minlength=n + 1)
    if (counts[1:] != 1).any():
        missing = int(np.flatnonzero(counts[1:] == 0)[0]) + 1
        repeated = int(np.flatnonzero(counts > 1)[0])
        first, second = (divmod(int(i), cols) for i in np.flatnonzero(steps == repeated)[:2])
        raise InputError(
            f"step {repeated} appears twice, at {first} and {second}, and step {missing} is missing"
        )
    path = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
    path[steps - 1] = np.arange(n, dtype=path.dtype)
    return path


def grid_text(path: np.ndarray, rows: int, cols: int) -> str:
    """The numbered grid "as on paper": one line per row, numbers right-aligned in columns.

    Every column is ``len(str(rows * cols))`` characters wide, columns are separated by one
    space, lines by ``"\\n"`` (no trailing newline). Refused above 10^6 cells.
    """
    if rows * cols > TEXT_MAX_CELLS:
        raise InputError(
            f"a text grid of {rows}x{cols} cells is too large to read; "
            f"the limit is {TEXT_MAX_CELLS:,} cells (use a PNG)"
        )
    grid = step_grid(path, rows, cols)
    width = len(str(rows * cols))
    return "\n".join(" ".join(f"{v:>{width}}" for v in row) for row in grid.tolist())


# --------------------------------------------------------------------------------------------
# Colours and the visit-order image
# --------------------------------------------------------------------------------------------


@functools.cache
def _colormap() -> np.ndarray:
    """viridis as a (256, 3) uint8 table, read from ``viridis.txt`` beside this module
    (matplotlib's table, rounded: the pictures need no plotting library)."""
    text = Path(__file__).with_name("viridis.txt").read_text()
    rows = [line for line in text.splitlines() if line and not line.startswith("# ")]
    return np.array([[int(r[i : i + 2], 16) for i in (1, 3, 5)] for r in rows], np.uint8)


def _hex(rgb: np.ndarray | tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(int(x) for x in rgb))


def _bands(n_points: int, n_bands: int = GRADIENT_BANDS) -> list[tuple[int, int, np.ndarray]]:
    """Split a polyline of ``n_points`` points into at most ``n_bands`` runs of one colour.

    Returns ``(first point, last point, rgb)``; consecutive runs share their boundary point so
    the line has no gaps. The colour of a run is that of its middle step.
    """
    segments = n_points - 1
    if segments < 1:
        return []
    k = min(n_bands, segments)
    cuts = np.linspace(0, segments, k + 1).round().astype(np.int64)
    lut = _colormap()
    out = []
    for a, b in itertools.pairwise(cuts.tolist()):
        if b > a:
            t = ((a + b) / 2) / segments
            out.append((int(a), int(b), lut[min(255, int(t * 256))]))
    return out


def _order_image(path: np.ndarray, rows: int, cols: int, max_side: int) -> np.ndarray:
    """The visit order as an RGB image (h, w, 3), one pixel per block of ``b x b`` cells.

    ``b = ceil(max(rows, cols) / max_side)`` (1 when the board fits). A pixel's colour is the
    mean step of its block's cells. Computed in chunks straight from the path, so a 10^9-cell
    board needs only the ``h * w`` sums and counts, never an R x C array.
    """
    block = max(1, math.ceil(max(rows, cols) / max_side))
    h, w = math.ceil(rows / block), math.ceil(cols / block)
    n = rows * cols
    sums = np.zeros(h * w, dtype=np.float64)
    counts = np.zeros(h * w, dtype=np.float64)
    # int32 arithmetic when every index fits: integer division is 2.5x faster than in int64
    dtype = np.int32 if n < 2**31 else np.int64
    for lo in range(0, n, CHUNK):
        hi = min(lo + CHUNK, n)
        r, c = np.divmod(np.asarray(path[lo:hi], dtype=dtype), dtype(cols))
        if block > 1:
            r //= dtype(block)
            c //= dtype(block)
        pixel = r.astype(np.intp)
        pixel *= w
        pixel += c
        # steps (0-based here) are exact in float64 up to 2^53, and a block sum of at most
        # (max side / max_side)^2 steps of < 2^63 each stays well within float64's range
        sums += np.bincount(pixel, weights=np.arange(lo, hi, dtype=np.float64), minlength=h * w)
        counts += np.bincount(pixel, minlength=h * w)
    mean = sums / np.maximum(counts, 1)
    level = np.clip(mean * (255.0 / max(1, n - 1)), 0, 255).astype(np.uint8)
    return _colormap()[level].reshape(h, w, 3)


# --------------------------------------------------------------------------------------------
# PNG
# --------------------------------------------------------------------------------------------


def png_size(rows: int, cols: int, max_side: int = 2048) -> tuple[int, int]:
    """The ``(width, height)`` in pixels of [`write_png()`][rompicapo.paths.render.write_png]'s
    image of a rows x cols board.

    - both sides <= 40 and ``s = min(48, max_side // (max(rows, cols) + 1)) >= 8``: the path
      drawn with ``s`` pixels per cell and half a cell of margin: ``((cols + 1) s, (rows + 1)
      s)``;
    - else, when the board fits in ``max_side``: ``k = min(8, max_side // max(rows, cols))``
      pixels per cell: ``(cols k, rows k)``;
    - else one pixel per block of ``b = ceil(max(rows, cols) / max_side)`` cells:
      ``(ceil(cols / b), ceil(rows / b))``, so neither side exceeds ``max_side``.
    """
    rows, cols = _board_size(rows, cols)
    if max_side < 1:
        raise InputError(f"max_side must be at least 1 pixel, got {max_side}")
    cell = _drawn_cell_px(rows, cols, max_side)
    if cell:
        return (cols + 1) * cell, (rows + 1) * cell
    longest = max(rows, cols)
    if longest <= max_side:
        k = min(PNG_MAX_PIXELS_PER_CELL, max_side // longest)
        return cols * k, rows * k
    block = math.ceil(longest / max_side)
    return math.ceil(cols / block), math.ceil(rows / block)


def _drawn_cell_px(rows: int, cols: int, max_side: int) -> int:
    """Pixels per cell of a drawn (small-board) PNG, or 0 when the board gets the colour image."""
    if max(rows, cols) > PNG_DRAWN_SIDE:
        return 0
    cell = min(PNG_CELL_PX, max_side // (max(rows, cols) + 1))
    return cell if cell >= PNG_MIN_CELL_PX else 0


def write_png(
    path: np.ndarray,
    rows: int,
    cols: int,
    filename: str | os.PathLike[str],
    *,
    max_side: int = 2048,
) -> tuple[int, int]:
    """Write a PNG of the path and return its ``(width, height)`` (see
    [`png_size()`][rompicapo.paths.render.png_size]).

    Small boards (both sides <= 40): the path drawn as lines between cell centres over the grid,
    coloured from step 1 (dark purple) to the last (yellow), step numbers in the cells' corners
    up to 30x30, start and end marked green and red. Larger boards: the visit order as a colour
    image, computed in chunks from the path without an R x C array, start and end ringed.
    """
    image = png_image(path, rows, cols, max_side=max_side)
    image.save(os.fspath(filename), format="PNG", optimize=False)
    return image.size


def png_image(path: np.ndarray, rows: int, cols: int, *, max_side: int = 2048):
    """The Pillow image [`write_png()`][rompicapo.paths.render.write_png] writes, of
    [`png_size()`][rompicapo.paths.render.png_size] pixels.

    ```pycon
    >>> png_image(np.arange(64 * 64), 64, 64, max_side=256).size
    (256, 256)

    ```"""
    from PIL import Image

    rows, cols = _board_size(rows, cols)
    size = png_size(rows, cols, max_side)
    arr = _checked_path(path, rows, cols)
    cell = _drawn_cell_px(rows, cols, max_side)
    if cell:
        image = _drawn_png(arr, rows, cols, cell)
    else:
        rgb = _order_image(arr, rows, cols, max_side)
        k = size[0] // rgb.shape[1]
        image = Image.fromarray(rgb, "RGB")
        if k > 1:
            image = image.resize(size, Image.Resampling.NEAREST)
        _ring_ends(image, arr, rows, cols)
    assert image.size == size, (image.size, size)
    return image


def _drawn_png(arr: np.ndarray, rows: int, cols: int, cell: int):
    from PIL import Image, ImageDraw, ImageFont

    ss = PNG_SUPERSAMPLE
    s = cell * ss
    width, height = (cols + 1) * s, (rows + 1) * s
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    x0 = y0 = s // 2
    grid_px = max(1, s // 40)
    for r in range(rows + 1):
        draw.line(
            [(x0, y0 + r * s), (x0 + cols * s, y0 + r * s)], fill=(200, 200, 200), width=grid_px
        )
    for c in range(cols + 1):
        draw.line(
            [(x0 + c * s, y0), (x0 + c * s, y0 + rows * s)], fill=(200, 200, 200), width=grid_px
        )
    rr, cc = np.divmod(np.asarray(arr, dtype=np.int64), cols)
    xs = (x0 + cc * s + s / 2).tolist()
    ys = (y0 + rr * s + s / 2).tolist()
    n = rows * cols
    line_px = max(2, s // 10)
    lut = _colormap()
    for step in range(n - 1):
        colour = tuple(int(v) for v in lut[min(255, (step * 256) // max(1, n - 1))])
        draw.line([(xs[step], ys[step]), (xs[step + 1], ys[step + 1])], fill=colour, width=line_px)
    if max(rows, cols) <= SVG_NUMBERED_SIDE:
        # numbers after the lines, with a white halo: diagonal moves cross the cells' corners
        font = ImageFont.load_default(size=max(6, int(s * 0.24)))
        halo = max(1, s // 24)
        for step in range(n):
            x, y = xs[step] - s / 2 + s * 0.06, ys[step] - s / 2 + s * 0.04
            draw.text(
                (x, y),
                str(step + 1),
                fill=(90, 90, 90),
                font=font,
                stroke_width=halo,
                stroke_fill="white",
            )
    radius = s * 0.2
    for i, colour in ((0, START_RGB), (n - 1, END_RGB)):
        x, y = xs[i], ys[i]
        draw.ellipse(
            [x - radius, y - radius, x + radius, y + radius],
            fill=colour,
            outline="white",
            width=max(1, s // 30),
        )
    return image.resize((width // ss, height // ss), Image.Resampling.LANCZOS)


def _ring_ends(image, arr: np.ndarray, rows: int, cols: int) -> None:
    """Ring the start (green) and end (red) cells on a colour image of the board."""
    from PIL import ImageDraw

    width, height = image.size
    draw = ImageDraw.Draw(image)
    radius = max(3.0, min(width, height) / 60)
    for index, colour in ((int(arr[0]), START_RGB), (int(arr[-1]), END_RGB)):
        r, c = divmod(index, cols)
        x, y = (c + 0.5) * width / cols, (r + 0.5) * height / rows
        # keep a ring on a border cell inside the image: still around the cell, fully visible
        x = min(max(x, radius + 2), width - radius - 3)
        y = min(max(y, radius + 2), height - radius - 3)
        box = [x - radius, y - radius, x + radius, y + radius]
        draw.ellipse(box, outline="white", width=max(3, int(radius / 2)))
        draw.ellipse(box, outline=colour, width=max(1, int(radius / 4)))


# --------------------------------------------------------------------------------------------
# SVG
# --------------------------------------------------------------------------------------------


def _svg_title(rows: int, cols: int, numbered: bool) -> str:
    steps = ", each cell numbered by its step" if numbered else ""
    return (
        f"a path through the {rows * cols:,} cells of the {rows}x{cols} board{steps}, coloured "
        "from dark purple at the start (green dot) to yellow at the end (red dot)"
    )


def write_svg(path: np.ndarray, rows: int, cols: int, filename: str | os.PathLike[str]) -> None:
    """Write an SVG of the path: grid, graded path, step numbers up to 30x30, start and end.

    Refused ([`InputError`][rompicapo.common.InputError]) above 200x200 = 40,000 cells, where the
    file would hold tens of thousands of elements: use
    [`write_png()`][rompicapo.paths.render.write_png] for those.
    """
    rows, cols = _board_size(rows, cols)
    n = rows * cols
    if n > SVG_MAX_CELLS:
        raise InputError(
            f"an SVG of a {rows}x{cols} board ({n:,} cells) would be too heavy to view; "
            f"SVG is for boards up to {SVG_MAX_CELLS:,} cells (200x200): use a PNG"
        )
    arr = _checked_path(path, rows, cols)
    numbered = max(rows, cols) <= SVG_NUMBERED_SIDE
    s = 32 if numbered else max(4, 960 // max(rows, cols))
    m = s // 2
    width, height = cols * s + 2 * m, rows * s + 2 * m
    rr, cc = np.divmod(np.asarray(arr, dtype=np.int64), cols)
    xs, ys = (m + cc * s + s // 2).tolist(), (m + rr * s + s // 2).tolist()
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">',
        f"<title>{escape(_svg_title(rows, cols, numbered))}</title>",
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    grid = [f"M{m} {m + r * s}h{cols * s}" for r in range(rows + 1)]
    grid += [f"M{m + c * s} {m}v{rows * s}" for c in range(cols + 1)]
    out.append(
        f'<path d="{"".join(grid)}" stroke="#c8c8c8" stroke-width="{max(0.5, s / 40):g}" '
        'fill="none"/>'
    )
    out.append(
        f'<g fill="none" stroke-width="{max(1.0, s / 10):g}" stroke-linecap="round" '
        'stroke-linejoin="round">'
    )
    for a, b, rgb in _bands(n):
        points = " ".join(f"{xs[i]},{ys[i]}" for i in range(a, b + 1))
        out.append(f'<polyline stroke="{_hex(rgb)}" points="{points}"/>')
    out.append("</g>")
    if numbered:
        # numbers after the lines, on a white halo: diagonal moves cross the cells' corners
        font = s * 0.26
        out.append(
            f'<g font-family="Helvetica, Arial, sans-serif" font-size="{font:g}" fill="#505050" '
            f'stroke="white" stroke-width="{font * 0.3:g}" paint-order="stroke" '
            'stroke-linejoin="round">'
        )
        dx, dy = s * 0.07 - s / 2, s * 0.07 - s / 2 + font
        for step in range(n):
            x, y = xs[step] + dx, ys[step] + dy
            out.append(f'<text x="{x:g}" y="{y:g}">{step + 1}</text>')
        out.append("</g>")
    radius = max(s * 0.2, max(width, height) / 150)  # markers stay visible on 200x200
    for i, rgb, name in ((0, START_RGB, "start"), (n - 1, END_RGB, "end")):
        out.append(
            f'<circle cx="{xs[i]}" cy="{ys[i]}" r="{radius:g}" fill="{_hex(rgb)}" stroke="white" '
            f'stroke-width="{max(0.5, s / 30):g}"><title>{name}: step {i + 1}</title></circle>'
        )
    out.append("</svg>")
    with open(os.fspath(filename), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


# --------------------------------------------------------------------------------------------
# PDF
# --------------------------------------------------------------------------------------------


def write_pdf(
    path: np.ndarray,
    rows: int,
    cols: int,
    filename: str | os.PathLike[str],
    *,
    title: str | None = None,
    subtitle: str | None = None,
) -> None:
    """Write a one-page A4 PDF of the path, scaled to fit, in the orientation of the board.

    Both sides <= 30: the numbered grid as in the paper game, start and end cells shaded green
    and red. Up to 250,000 cells: the path as a polyline graded from step 1 to the last, in 256
    one-colour runs. Above: the visit order as an embedded image (at most 1200 px a side,
    mean step per block). Start and end are marked and a legend line explains the colours.
    """
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.pdfgen import canvas

    rows, cols = _board_size(rows, cols)
    arr = _checked_path(path, rows, cols)
    n = rows * cols
    page_w, page_h = landscape(A4) if cols > rows else A4
    pdf = canvas.Canvas(os.fspath(filename), pagesize=(page_w, page_h), pageCompression=1)
    title = title if title is not None else f"A path over the {rows}x{cols} board"
    pdf.setTitle(title)
    pdf.setCreator("rompicapo")

    margin = 36.0
    top = page_h - margin
    pdf.setFont("Helvetica-Bold", 16)
    pdf.drawString(margin, top - 16, title)
    top -= 24
    if subtitle:
        pdf.setFont("Helvetica", 10)
        pdf.drawString(margin, top - 10, subtitle)
        top -= 16
    top -= 8
    bottom = margin + 28  # room for the legend line
    cell = min((page_w - 2 * margin) / cols, (top - bottom) / rows)
    x0 = (page_w - cols * cell) / 2
    y_top = top  # the board's top edge; row r spans y_top - (r+1) cell .. y_top - r cell

    def centre(index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r, c = np.divmod(np.asarray(index, dtype=np.int64), cols)
        return x0 + (c + 0.5) * cell, y_top - (r + 0.5) * cell

    first, last = int(arr[0]), int(arr[-1])
    if max(rows, cols) <= PDF_NUMBERED_SIDE:
        _pdf_numbered(pdf, arr, rows, cols, x0, y_top, cell)
        legend = (
            f"Step 1 at {_rc(first, cols)} (green) to step {n} at {_rc(last, cols)} (red); "
            "each number is one move from the one before."
        )
        _pdf_legend(pdf, x0, y_top - rows * cell - 18, legend, n, bar=False)
    else:
        if n <= PDF_POLYLINE_CELLS:
            xs, ys = centre(arr)
            _pdf_polyline(pdf, xs.tolist(), ys.tolist(), cell)
        else:
            _pdf_image(pdf, arr, rows, cols, x0, y_top, cell)
        pdf.setStrokeColorRGB(0.3, 0.3, 0.3)
        pdf.setLineWidth(0.5)
        pdf.rect(x0, y_top - rows * cell, cols * cell, rows * cell, stroke=1, fill=0)
        (sx, ex), (sy, ey) = centre(np.array([first, last]))
        radius = max(3.0, min(8.0, cell * 0.45))
        for x, y, rgb in ((sx, sy, START_RGB), (ex, ey, END_RGB)):
            pdf.setStrokeColorRGB(1, 1, 1)
            pdf.setFillColorRGB(*(v / 255 for v in rgb))
            pdf.setLineWidth(1)
            pdf.circle(float(x), float(y), radius, stroke=1, fill=1)
        legend = f"start {_rc(first, cols)} green, end {_rc(last, cols)} red; colour = step:"
        _pdf_legend(pdf, x0, y_top - rows * cell - 18, legend, n, bar=True)
    pdf.showPage()
    pdf.save()


def _rc(index: int, cols: int) -> str:
    r, c = divmod(index, cols)
    return f"({r}, {c})"


def _pdf_numbered(pdf, arr: np.ndarray, rows: int, cols: int, x0: float, y_top: float, cell):
    grid = step_grid(arr, rows, cols)
    n = rows * cols
    digits = len(str(n))
    # Helvetica digits are 0.556 em wide: fit the longest number in 80% of the cell width
    font = min(cell * 0.45, cell * 0.8 / (0.556 * digits))
    shade = {1: (0.75, 0.92, 0.75), n: (0.98, 0.76, 0.76)}
    pdf.setLineWidth(max(0.3, cell / 60))
    pdf.setStrokeColorRGB(0.2, 0.2, 0.2)
    for r in range(rows):
        for c in range(cols):
            step = int(grid[r, c])
            x, y = x0 + c * cell, y_top - (r + 1) * cell
            if step in shade:
                pdf.setFillColorRGB(*shade[step])
                pdf.rect(x, y, cell, cell, stroke=1, fill=1)
            else:
                pdf.rect(x, y, cell, cell, stroke=1, fill=0)
            bold = step in shade
            pdf.setFont("Helvetica-Bold" if bold else "Helvetica", font)
            pdf.setFillColorRGB(0, 0, 0)
            pdf.drawCentredString(x + cell / 2, y + cell / 2 - 0.35 * font, str(step))


def _pdf_polyline(pdf, xs: list[float], ys: list[float], cell: float) -> None:
    pdf.setLineWidth(max(0.15, min(1.5, cell * 0.2)))
    pdf.setLineCap(1)
    pdf.setLineJoin(1)
    for a, b, rgb in _bands(len(xs)):
        pdf.setStrokeColorRGB(*(int(v) / 255 for v in rgb))
        line = pdf.beginPath()
        line.moveTo(xs[a], ys[a])
        for i in range(a + 1, b + 1):
            line.lineTo(xs[i], ys[i])
        pdf.drawPath(line, stroke=1, fill=0)


def _pdf_image(pdf, arr, rows: int, cols: int, x0: float, y_top: float, cell: float) -> None:
    from PIL import Image
    from reportlab.lib.utils import ImageReader

    rgb = _order_image(arr, rows, cols, PDF_IMAGE_SIDE)
    reader = ImageReader(Image.fromarray(rgb, "RGB"))
    pdf.drawImage(reader, x0, y_top - rows * cell, width=cols * cell, height=rows * cell)


def _pdf_legend(pdf, x: float, y: float, text: str, n: int, *, bar: bool) -> None:
    """One legend line with its baseline near ``y``, from ``x``; a colour bar 1..n if ``bar``."""
    pdf.setFillColorRGB(0, 0, 0)
    pdf.setFont("Helvetica", 9)
    pdf.drawString(x, y + 4, text)
    if not bar:
        return
    x += pdf.stringWidth(text, "Helvetica", 9) + 8
    pdf.drawString(x, y + 4, "1")
    x += pdf.stringWidth("1 ", "Helvetica", 9)
    lut = _colormap()
    width, parts = 120.0, 64
    for i in range(parts):
        rgb = lut[(i * 256) // parts]
        pdf.setFillColorRGB(*(int(v) / 255 for v in rgb))
        pdf.rect(x + i * width / parts, y + 2, width / parts + 0.3, 10, stroke=0, fill=1)
    pdf.setFillColorRGB(0, 0, 0)
    pdf.drawString(x + width + 4, y + 4, f"{n:,}")


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


def _board_size(rows: object, cols: object) -> tuple[int, int]:
    try:
        r, c = int(rows), int(cols)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        raise InputError(f"a board size is two integers, got {rows!r} x {cols!r}") from None
    if r < 1 or c < 1:
        raise InputError(f"a board has at least 1 row and 1 column, got {r}x{c}")
    return r, c


def _checked_path(path: object, rows: int, cols: int) -> np.ndarray:
    """The path as a 1-D integer array of length rows×cols with every index on the board."""
    rows, cols = _board_size(rows, cols)
    arr = path if isinstance(path, np.ndarray) else np.asarray(path)
    if arr.dtype.kind not in "iu" or arr.ndim != 1:
        raise InputError(
            f"a path is a 1-D integer array of flat cell indices, got a {arr.ndim}-D {arr.dtype} "
            "array"
        )
    n = rows * cols
    if arr.shape[0] != n:
        raise InputError(f"the path has {arr.shape[0]} cells, the {rows}x{cols} board has {n}")
    for lo in range(0, n, CHUNK):
        part = arr[lo : lo + CHUNK]
        if part.min() < 0 or part.max() >= n:
            bad = int(np.argmax((part < 0) | (part >= n)))
            raise InputError(
                f"step {lo + bad + 1}: index {part[bad]} is outside the {rows}x{cols} board"
            )
    return arr
