"""Pictures of exact-cover answers as SVG: a Sudoku grid, a queens board, a packing.

Jupyter shows [`SudokuResult`][rompicapo.cover.sudoku_solve.SudokuResult],
[`QueensResult`][rompicapo.cover.queens.QueensResult] and
[`PackingResult`][rompicapo.cover.polyomino.PackingResult] with these. Each picture carries a
``<title>`` saying what it shows.

```pycon
>>> svg = queens_svg(4, [1, 3, 0, 2])
>>> svg.count('class="queen"')
4

```"""

from __future__ import annotations

import colorsys
from collections.abc import Sequence
from xml.sax.saxutils import escape

from rompicapo.common import svg_document

__all__ = ["packing_svg", "queens_svg", "sudoku_svg"]

SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
FONT = 'font-family="Helvetica, Arial, sans-serif" text-anchor="middle"'
GIVEN_FILL = "#111111"
FILLED_FILL = "#1f5fbf"  # the digits the solver wrote: blue, as pencil marks on paper


def _region_walls(region: list[list[int]], cell: float, margin: float) -> list[str]:
    """Path commands of the walls between cells of different regions (and around the grid)."""
    rows, cols = len(region), len(region[0])
    d = [f"M{margin:g} {margin:g}h{cols * cell:g}v{rows * cell:g}h{-cols * cell:g}z"]
    for r in range(rows):
        for c in range(cols):
            x, y = margin + c * cell, margin + r * cell
            if c + 1 < cols and region[r][c] != region[r][c + 1]:
                d.append(f"M{x + cell:g} {y:g}v{cell:g}")
            if r + 1 < rows and region[r][c] != region[r + 1][c]:
                d.append(f"M{x:g} {y + cell:g}h{cell:g}")
    return d


def _thin_grid(rows: int, cols: int, cell: float, margin: float) -> str:
    d = [f"M{margin:g} {margin + r * cell:g}h{cols * cell:g}" for r in range(1, rows)]
    d += [f"M{margin + c * cell:g} {margin:g}v{rows * cell:g}" for c in range(1, cols)]
    return f'<path d="{"".join(d)}" stroke="#b0b0b0" stroke-width="1" fill="none"/>'


def sudoku_svg(
    grid: Sequence[Sequence[int]],
    box: tuple[int, int] = (3, 3),
    *,
    givens: Sequence[Sequence[int]] | None = None,
    regions: Sequence[Sequence[int]] | None = None,
    title: str = "",
) -> str:
    """A Sudoku grid (``grid[r][c]`` in 0..N, 0 empty) with thick walls between boxes (or the
    jigsaw ``regions``); the digits of ``givens`` black, the others blue. One ``<text>`` per
    digit shown.

    ```pycon
    >>> svg = sudoku_svg([[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]], (2, 2))
    >>> svg.count("<text")
    16

    ```"""
    n = len(grid)
    bh, bw = box
    region = [list(row) for row in regions] if regions else [
        [(r // bh) * (n // bw) + c // bw for c in range(n)] for r in range(n)
    ]  # fmt: skip
    cell = 36 if n <= 16 else 24
    margin = cell / 2
    side = n * cell + 2 * margin
    body = [_thin_grid(n, n, cell, margin)]
    walls = "".join(_region_walls(region, cell, margin))
    body.append(f'<path d="{walls}" stroke="#222" stroke-width="2.5" fill="none"/>')
    body.append(f'<g {FONT} font-size="{cell * 0.6:g}">')
    for r in range(n):
        for c in range(n):
            v = grid[r][c]
            if not v:
                continue
            given = givens is None or givens[r][c] == v
            look = f'fill="{GIVEN_FILL}" font-weight="bold"' if given else f'fill="{FILLED_FILL}"'
            body.append(
                f'<text x="{margin + (c + 0.5) * cell:g}" y="{margin + (r + 0.72) * cell:g}" '
                f"{look}>{SYMBOLS[v - 1]}</text>"
            )
    body.append("</g>")
    filled = sum(1 for row in grid for v in row if v)
    title = title or f"a {n}x{n} Sudoku grid, {filled} of {n * n} cells filled"
    return svg_document(side, side, title, body)


def queens_svg(n: int, cols: Sequence[int], *, title: str = "") -> str:
    """An ``n`` x ``n`` chessboard with a queen in row ``r``, column ``cols[r]`` (from 0) of
    each row: a dark disc with a crown, one ``<g class="queen">`` each."""
    cell = 40 if n <= 16 else max(8, 640 // n)
    margin = cell / 2
    side = n * cell + 2 * margin
    dark = []
    for r in range(n):
        for c in range(n):
            if (r + c) % 2:
                dark.append(f"M{margin + c * cell:g} {margin + r * cell:g}h{cell}v{cell}h{-cell}z")
    body = [
        f'<rect x="{margin:g}" y="{margin:g}" width="{n * cell}" height="{n * cell}" '
        'fill="#f0d9b5" stroke="#333"/>',
        f'<path d="{"".join(dark)}" fill="#b58863"/>',
    ]
    for r, c in enumerate(cols):
        x, y = margin + (c + 0.5) * cell, margin + (r + 0.5) * cell
        s = cell * 0.3
        crown = (
            f"M{x - s:g} {y + s * 0.6:g}L{x - s:g} {y - s * 0.5:g}L{x - s / 2:g} {y:g}"
            f"L{x:g} {y - s * 0.8:g}L{x + s / 2:g} {y:g}L{x + s:g} {y - s * 0.5:g}"
            f"L{x + s:g} {y + s * 0.6:g}z"
        )
        body.append(
            f'<g class="queen"><title>queen in row {r + 1}, column {c + 1}</title>'
            f'<circle cx="{x:g}" cy="{y:g}" r="{cell * 0.42:g}" fill="#222"/>'
            f'<path d="{crown}" fill="#f5f5f5"/></g>'
        )
    title = title or f"{len(cols)} queens on the {n}x{n} board, no two attacking"
    return svg_document(side, side, title, body)


def piece_colours(names: Sequence[str]) -> dict[str, str]:
    """A colour for each piece name: hues spaced by the golden angle, so that pieces with
    neighbouring names look different."""
    out = {}
    for k, name in enumerate(sorted(set(names))):
        r, g, b = colorsys.hls_to_rgb((k * 0.618033988749895) % 1.0, (0.55, 0.7, 0.45)[k % 3], 0.65)
        out[name] = f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"
    return out


def packing_svg(drawing: str, *, title: str = "") -> str:
    """A packing drawn as text (one letter per cell naming its piece, ``.`` an empty cell of
    the region, a space outside it) as coloured pieces with their letters, a wall between
    different pieces."""
    lines = drawing.split("\n")
    rows, cols = len(lines), max((len(line) for line in lines), default=0)
    at = [[line[c] if c < len(line) else " " for c in range(cols)] for line in lines]
    cell = 32 if max(rows, cols) <= 30 else max(6, 960 // max(rows, cols))
    margin = cell / 2
    names = [ch for row in at for ch in row if ch not in " ."]
    colours = piece_colours(names)
    body = []
    for r in range(rows):
        for c in range(cols):
            ch = at[r][c]
            if ch == " ":
                continue
            fill = "#ffffff" if ch == "." else colours[ch]
            x, y = margin + c * cell, margin + r * cell
            body.append(
                f'<rect class="cell" x="{x:g}" y="{y:g}" width="{cell}" height="{cell}" '
                f'fill="{fill}" stroke="{fill}"/>'
            )
    walls = []
    for r in range(rows + 1):
        for c in range(cols + 1):
            here = at[r][c] if r < rows and c < cols else " "
            left = at[r][c - 1] if 0 < c <= cols and r < rows else " "
            up = at[r - 1][c] if 0 < r <= rows and c < cols else " "
            x, y = margin + c * cell, margin + r * cell
            if r < rows and here != left:
                walls.append(f"M{x:g} {y:g}v{cell}")
            if c < cols and here != up:
                walls.append(f"M{x:g} {y:g}h{cell}")
    body.append(f'<path d="{"".join(walls)}" stroke="#222" stroke-width="2" fill="none"/>')
    if cell >= 14:
        body.append(f'<g {FONT} font-size="{cell * 0.45:g}" fill="#222">')
        for name in sorted(colours):
            # the letter once per piece, in its first cell
            r, c = next((r, c) for r in range(rows) for c in range(cols) if at[r][c] == name)
            x, y = margin + (c + 0.5) * cell, margin + (r + 0.68) * cell
            body.append(f'<text x="{x:g}" y="{y:g}">{escape(name)}</text>')
        body.append("</g>")
    title = title or f"a packing of {len(colours)} pieces in a region of {len(names)} cells"
    return svg_document(cols * cell + 2 * margin, rows * cell + 2 * margin, title, body)
