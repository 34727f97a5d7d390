"""Pictures of boards: SVG and PNG, one colour per edge colour, mismatched joints marked in red;
and a heat map of where a search spent its placements.

Each cell is drawn as four triangles (top, right, bottom, left) meeting at its centre, the way
the physical pieces look; grey is the frame. A mismatched joint gets a red bar across it; empty
cells are left white.
"""

from __future__ import annotations

import colorsys
from pathlib import Path

import numpy as np

from rompicapo.common import (
    check_output_path,
    png_bytes,
    svg_document,
    write_bytes_atomic,
    write_text_atomic,
)
from rompicapo.edges.puzzle import Board, Puzzle, mismatched_joints, score

__all__ = [
    "PICTURE_SUFFIXES",
    "board_picture",
    "board_png",
    "board_svg",
    "check_picture_path",
    "heat_png",
    "heat_svg",
    "palette",
    "save_heat",
    "save_picture",
]

PICTURE_SUFFIXES = (".svg", ".png")

GREY_RGB = (150, 150, 150)
MISMATCH_RGB = (220, 0, 0)


def palette(n_colours: int) -> list[tuple[int, int, int]]:
    """``n_colours + 1`` RGB colours: grey for 0, then hues spaced by the golden angle (so any
    two neighbouring colour numbers look different) with alternating lightness."""
    out = [GREY_RGB]
    for k in range(1, n_colours + 1):
        hue = (k * 0.618033988749895) % 1.0
        light = (0.45, 0.62, 0.30)[k % 3]
        r, g, b = colorsys.hls_to_rgb(hue, light, 0.75)
        out.append((int(r * 255), int(g * 255), int(b * 255)))
    return out


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _triangles(x: float, y: float, s: float) -> list[list[tuple[float, float]]]:
    cx, cy = x + s / 2, y + s / 2
    return [
        [(x, y), (x + s, y), (cx, cy)],  # top
        [(x + s, y), (x + s, y + s), (cx, cy)],  # right
        [(x + s, y + s), (x, y + s), (cx, cy)],  # bottom
        [(x, y + s), (x, y), (cx, cy)],  # left
    ]


def _bars(board: Board, puzzle: Puzzle, cell: int, margin: int):
    """Red bars across mismatched joints: ``(x0, y0, x1, y1)`` rectangles."""
    bars = []
    w = max(2, cell // 8)
    for r1, c1, r2, c2 in mismatched_joints(board, puzzle):
        if r1 == r2:  # vertical joint between (r1, c1) and (r1, c1+1)
            x = margin + c2 * cell
            bars.append(
                (
                    x - w / 2,
                    margin + r1 * cell + cell * 0.15,
                    x + w / 2,
                    margin + (r1 + 0.85) * cell,
                )
            )
        else:
            y = margin + r2 * cell
            bars.append(
                (
                    margin + c1 * cell + cell * 0.15,
                    y - w / 2,
                    margin + (c1 + 0.85) * cell,
                    y + w / 2,
                )
            )
    return bars


def board_svg(
    board: Board, puzzle: Puzzle, *, cell: int = 40, numbers: bool = False, title: str = ""
) -> str:
    """The board as an SVG document (text), ``title`` its description (by default its size
    and how many cells are filled)."""
    margin = cell // 2
    colours = palette(puzzle.max_colour)
    width, height = board.cols * cell + 2 * margin, board.rows * cell + 2 * margin
    title = title or (
        f"a {board.rows}x{board.cols} edge-matching board, {board.n_placed} of "
        f"{board.rows * board.cols} cells filled"
    )
    out: list[str] = []
    for r in range(board.rows):
        for c in range(board.cols):
            x, y = margin + c * cell, margin + r * cell
            k = int(board.piece[r, c])
            if k < 0:
                out.append(
                    f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="white" '
                    'stroke="#ccc"/>'
                )
                continue
            edges = puzzle.edges(k, int(board.rotation[r, c]))
            for side, tri in enumerate(_triangles(x, y, cell)):
                pts = " ".join(f"{px:g},{py:g}" for px, py in tri)
                out.append(
                    f'<polygon points="{pts}" fill="{_hex(colours[edges[side]])}" '
                    'stroke="#333" stroke-width="0.5"/>'
                )
            if numbers:
                out.append(
                    f'<text x="{x + cell / 2:g}" y="{y + cell / 2 + cell / 10:g}" '
                    f'font-size="{cell / 3.5:g}" text-anchor="middle" font-family="sans-serif" '
                    f'fill="white" stroke="black" stroke-width="0.3">{k + 1}</text>'
                )
    for x0, y0, x1, y1 in _bars(board, puzzle, cell, margin):
        out.append(
            f'<rect x="{x0:g}" y="{y0:g}" width="{x1 - x0:g}" height="{y1 - y0:g}" '
            f'fill="{_hex(MISMATCH_RGB)}"/>'
        )
    return svg_document(width, height, title, out)


def board_picture(board: Board | None, puzzle: Puzzle | None, what: str = "board") -> str | None:
    """The SVG a result shows in Jupyter: ``board`` with its mismatched joints in red, titled
    with its size, score and mismatches (``what`` names it: "best board", ...); None when
    there is no board."""
    if board is None or puzzle is None:
        return None
    bad = len(mismatched_joints(board, puzzle))
    title = (
        f"the {board.rows}x{board.cols} {what}: {score(board, puzzle)} of {puzzle.n_joints} "
        f"joints matched, {bad} mismatched joints marked by red bars"
    )
    return board_svg(board, puzzle, title=title)


def board_png(board: Board, puzzle: Puzzle, *, cell: int = 40):
    """The board as a Pillow image."""
    from PIL import Image, ImageDraw

    margin = cell // 2
    colours = palette(puzzle.max_colour)
    img = Image.new(
        "RGB", (board.cols * cell + 2 * margin, board.rows * cell + 2 * margin), "white"
    )
    draw = ImageDraw.Draw(img)
    for r in range(board.rows):
        for c in range(board.cols):
            x, y = margin + c * cell, margin + r * cell
            k = int(board.piece[r, c])
            if k < 0:
                draw.rectangle([x, y, x + cell, y + cell], outline=(204, 204, 204))
                continue
            edges = puzzle.edges(k, int(board.rotation[r, c]))
            for side, tri in enumerate(_triangles(x, y, cell)):
                draw.polygon(tri, fill=colours[edges[side]], outline=(51, 51, 51))
    for x0, y0, x1, y1 in _bars(board, puzzle, cell, margin):
        draw.rectangle([x0, y0, x1, y1], fill=MISMATCH_RGB)
    return img


def _heat_rgb(heat: np.ndarray) -> np.ndarray:
    """Cells coloured by log10(placements + 1): white (none) through yellow to dark red."""
    v = np.log10(heat.astype(float) + 1.0)
    t = v / v.max() if v.max() > 0 else v
    r = 255 - 115 * np.clip(t * 2 - 1, 0, 1)
    g = 255 - 255 * t
    b = 255 - 255 * np.clip(t * 2, 0, 1)
    return np.stack([r, g, b], axis=-1).astype(np.uint8)


def heat_svg(heat: np.ndarray, *, cell: int = 30, title: str = "placements per cell") -> str:
    """Heat map of placements per cell (log scale) as SVG, with the counts in each cell."""
    rgb = _heat_rgb(heat)
    rows, cols = heat.shape
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * cell}" '
        f'height="{rows * cell + 20}">',
        f'<text x="2" y="14" font-size="12" font-family="sans-serif">{_escape(title)}</text>',
    ]
    for r in range(rows):
        for c in range(cols):
            out.append(
                f'<rect x="{c * cell}" y="{20 + r * cell}" width="{cell}" height="{cell}" '
                f'fill="{_hex(tuple(int(x) for x in rgb[r, c]))}" stroke="#999" '  # type: ignore[arg-type]
                f'stroke-width="0.5"><title>{int(heat[r, c])}</title></rect>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def heat_png(heat: np.ndarray, *, cell: int = 30):
    from PIL import Image

    rgb = _heat_rgb(heat)
    img = Image.fromarray(rgb, "RGB")
    return img.resize((heat.shape[1] * cell, heat.shape[0] * cell), Image.NEAREST)


def check_picture_path(path: object, what: str = "picture", suffixes=PICTURE_SUFFIXES) -> Path:
    """``path`` checked before any work: a writable folder and a .svg or .png name."""
    return check_output_path(path, what, suffixes=suffixes)


def save_picture(path: str | Path, board: Board, puzzle: Puzzle, **kw) -> None:
    """Write ``path`` as SVG or PNG by its suffix (checked first; written atomically)."""
    p = check_picture_path(path)
    if p.name.lower().endswith(".svg"):
        write_text_atomic(p, board_svg(board, puzzle, **kw))
    else:
        img = board_png(board, puzzle, **{k: v for k, v in kw.items() if k == "cell"})
        write_bytes_atomic(p, png_bytes(img))


def save_heat(path: str | Path, heat: np.ndarray) -> None:
    """Write a heat map of placements per cell as SVG or PNG by the suffix of ``path``."""
    p = check_picture_path(path, "heat map")
    if p.name.lower().endswith(".svg"):
        write_text_atomic(p, heat_svg(heat))
    else:
        write_bytes_atomic(p, png_bytes(heat_png(heat)))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
