"""Pictures of game positions as SVG: a Connect Four position (with the score of each column
when an analysis gave them) and Nim heaps (with the winning move marked).

Jupyter shows [`Connect4Result`][rompicapo.games.connect4.Connect4Result],
[`Connect4Analysis`][rompicapo.games.connect4.Connect4Analysis] and
[`NimAdvice`][rompicapo.games.impartial.NimAdvice] with these. Each picture carries a
``<title>`` saying what it shows.

```pycon
>>> svg = connect4_svg("4455")
>>> svg.count('class="stone first"'), svg.count('class="stone second"')
(2, 2)

```"""

from __future__ import annotations

from collections.abc import Sequence

from rompicapo.common import svg_document

__all__ = ["connect4_svg", "nim_svg"]

COLUMNS, ROWS = 7, 6
FONT = 'font-family="Helvetica, Arial, sans-serif" text-anchor="middle"'
FIRST_RGB, SECOND_RGB = "#d62728", "#f2c500"  # red moves first, yellow second
WIN_RGB, LOSS_RGB, DRAW_RGB = "#2c7a2c", "#b22222", "#555555"


def _stones(moves: str) -> list[tuple[int, int, int]]:
    """``(column, height, player)`` of each stone of ``moves`` (columns 1..7, player 0 first),
    read here from the move digits alone."""
    heights = [0] * COLUMNS
    out = []
    for i, ch in enumerate(moves):
        col = int(ch) - 1
        out.append((col, heights[col], i % 2))
        heights[col] += 1
    return out


def _score_text(score: int) -> tuple[str, str]:
    if score > 0:
        return f"+{score}", WIN_RGB
    return (str(score), LOSS_RGB) if score < 0 else ("0", DRAW_RGB)


def connect4_svg(
    moves: str,
    scores: Sequence[int | None] | None = None,
    *,
    best: Sequence[int] = (),
    unsolved: Sequence[int] = (),
) -> str:
    """The position after ``moves`` (column digits 1..7, red first) on the blue 7x6 frame,
    the last stone ringed; under each column its score when ``scores`` are given (``-`` for a
    full column, ``?`` for the ``unsolved`` ones), the ``best`` columns (from 1) underlined.

    ```pycon
    >>> svg = connect4_svg("44", [-2, -1, 0, 1, 0, -1, -2], best=[4])
    >>> "+1" in svg
    True

    ```"""
    cell = 48
    margin = cell / 2
    score_band = cell * 0.9 if scores is not None else 0
    width = COLUMNS * cell + 2 * margin
    height = ROWS * cell + 2 * margin + score_band + cell * 0.3
    body = [
        f'<rect x="{margin:g}" y="{margin:g}" width="{COLUMNS * cell}" height="{ROWS * cell}" '
        'rx="8" fill="#1f4fa8"/>'
    ]
    stones = {(c, h): p for c, h, p in _stones(moves)}
    last = _stones(moves)[-1][:2] if moves else None
    for c in range(COLUMNS):
        for h in range(ROWS):
            x, y = margin + (c + 0.5) * cell, margin + (ROWS - h - 0.5) * cell
            player = stones.get((c, h))
            if player is None:
                body.append(f'<circle cx="{x:g}" cy="{y:g}" r="{cell * 0.4:g}" fill="white"/>')
                continue
            kind, fill = ("first", FIRST_RGB) if player == 0 else ("second", SECOND_RGB)
            ring = ' stroke="white" stroke-width="3"' if (c, h) == last else ""
            body.append(
                f'<circle class="stone {kind}" cx="{x:g}" cy="{y:g}" r="{cell * 0.4:g}" '
                f'fill="{fill}"{ring}/>'
            )
    label_y = margin + ROWS * cell + cell * 0.4
    body.append(f'<g {FONT} font-size="{cell * 0.3:g}" fill="#444">')
    body += [
        f'<text x="{margin + (c + 0.5) * cell:g}" y="{label_y:g}">{c + 1}</text>'
        for c in range(COLUMNS)
    ]
    body.append("</g>")
    if scores is not None:
        y = label_y + cell * 0.6
        body.append(f'<g {FONT} font-size="{cell * 0.38:g}" font-weight="bold">')
        for c, s in enumerate(scores):
            if s is None:
                text, fill = ("?" if c + 1 in unsolved else "-"), "#888888"
            else:
                text, fill = _score_text(s)
            x = margin + (c + 0.5) * cell
            body.append(f'<text class="score" x="{x:g}" y="{y:g}" fill="{fill}">{text}</text>')
            if c + 1 in best:
                body.append(
                    f'<rect x="{x - cell * 0.3:g}" y="{y + 4:g}" width="{cell * 0.6:g}" '
                    f'height="3" fill="{fill}"/>'
                )
        body.append("</g>")
    to_move = "red" if len(moves) % 2 == 0 else "yellow"
    title = f"Connect Four after {len(moves)} moves ({moves or 'none'}), {to_move} to move"
    if scores is not None:
        title += "; under each column the score of playing it"
    return svg_document(width, height, title, body)


def nim_svg(heaps: Sequence[int], move: tuple[int, int] | None = None) -> str:
    """Nim heaps as rows of counters, heap 1 on top; the counters of the winning ``move``
    (``(heap from 1, objects to take)``) drawn hollow in red, to be taken from the right."""
    r = 9
    gap = 2 * r + 6
    longest = max(heaps, default=0)
    label = 64
    width = label + max(longest, 1) * gap + r * 2
    height = len(heaps) * gap + 2 * r
    body = [f'<g {FONT} font-size="13" fill="#333">']
    for i in range(len(heaps)):
        y = r + i * gap + gap / 2 + 4
        body.append(f'<text x="{label / 2:g}" y="{y:g}">heap {i + 1}</text>')
    body.append("</g>")
    for i, size in enumerate(heaps):
        take = move[1] if move is not None and move[0] == i + 1 else 0
        y = r + i * gap + gap / 2
        for k in range(size):
            x = label + k * gap + gap / 2
            if k >= size - take:
                body.append(
                    f'<circle class="take" cx="{x:g}" cy="{y:g}" r="{r}" fill="white" '
                    'stroke="#d62728" stroke-width="2.5" stroke-dasharray="4 2"/>'
                )
            else:
                body.append(f'<circle class="keep" cx="{x:g}" cy="{y:g}" r="{r}" fill="#333"/>')
    title = f"Nim heaps {', '.join(map(str, heaps)) or 'none'}"
    if move is not None:
        title += f"; the winning move takes {move[1]} from heap {move[0]} (hollow red counters)"
    return svg_document(width, height, title, body)
