"""The independent verifier of edge-matching boards: scores and rule checks from plain lists.

This module imports nothing from the rest of `rompicapo.edges` (not the model, not the
search): it re-derives every rotated edge itself from the listed piece colours, so a bug in the
solver's tables or in the model's rotation code cannot hide a wrong answer.

Conventions (those of the data files): a piece is ``(top, right, bottom, left)``; colour 0 is the
grey of the frame; rotation ``r`` is ``r`` clockwise quarter turns, one turn taking
``(t, r, b, l)`` to ``(l, t, r, b)``; row 0 is the top row. A placement is
``(row, col, piece_index, rotation)`` with ``piece_index`` zero-based.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["board_problems", "count_matched_joints", "rotated_edges"]

GREY = 0


def rotated_edges(piece: Sequence[int], rotation: int) -> tuple[int, int, int, int]:
    """The ``(top, right, bottom, left)`` colours of ``piece`` after ``rotation`` clockwise turns.

    ```pycon
    >>> rotated_edges((1, 2, 3, 4), 1)
    (4, 1, 2, 3)

    ```"""
    t = rotation % 4
    return tuple(int(piece[(side - t) % 4]) for side in range(4))  # type: ignore[return-value]


def _edge_grid(
    rows: int,
    cols: int,
    pieces: Sequence[Sequence[int]],
    placements: Iterable[tuple[int, int, int, int]],
) -> dict[tuple[int, int], tuple[int, int, int, int]]:
    grid: dict[tuple[int, int], tuple[int, int, int, int]] = {}
    for row, col, index, rotation in placements:
        grid[(row, col)] = rotated_edges(pieces[index], rotation)
    return grid


def count_matched_joints(
    rows: int,
    cols: int,
    pieces: Sequence[Sequence[int]],
    placements: Iterable[tuple[int, int, int, int]],
) -> int:
    """How many inner joints (between two occupied, side-by-side cells) show equal colours.

    A complete ``rows x cols`` board has ``rows*(cols-1) + cols*(rows-1)`` inner joints (480 on
    Eternity II); empty cells simply contribute no joints.
    """
    grid = _edge_grid(rows, cols, pieces, placements)
    matched = 0
    for (row, col), edges in grid.items():
        right = grid.get((row, col + 1))
        if right is not None and edges[1] == right[3]:
            matched += 1
        below = grid.get((row + 1, col))
        if below is not None and edges[2] == below[0]:
            matched += 1
    return matched


def board_problems(
    rows: int,
    cols: int,
    pieces: Sequence[Sequence[int]],
    placements: Sequence[tuple[int, int, int, int]],
    *,
    complete: bool = True,
) -> list[str]:
    """Every rule the board breaks, one short message each; an empty list means a valid board.

    Rules: cells inside the board, each cell at most once, each piece at most once, rotations
    0..3, grey exactly on the rim (a side facing outside is grey, a side facing another cell is
    not), and with ``complete`` every cell filled. Matching colours is *not* a rule here (that is
    the score).
    """
    problems: list[str] = []
    seen_cells: set[tuple[int, int]] = set()
    seen_pieces: dict[int, tuple[int, int]] = {}
    for row, col, index, rotation in placements:
        if not (0 <= row < rows and 0 <= col < cols):
            problems.append(f"cell ({row}, {col}) is outside the {rows}x{cols} board")
            continue
        if not 0 <= index < len(pieces):
            problems.append(f"cell ({row}, {col}) holds piece {index + 1}, which does not exist")
            continue
        if rotation not in (0, 1, 2, 3):
            problems.append(f"cell ({row}, {col}) has rotation {rotation}, not 0..3")
            continue
        if (row, col) in seen_cells:
            problems.append(f"cell ({row}, {col}) is filled twice")
        seen_cells.add((row, col))
        if index in seen_pieces:
            first = seen_pieces[index]
            problems.append(f"piece {index + 1} is used at {first} and at ({row}, {col})")
        seen_pieces.setdefault(index, (row, col))
        edges = rotated_edges(pieces[index], rotation)
        outside = (row == 0, col == cols - 1, row == rows - 1, col == 0)
        for side, name in enumerate(("top", "right", "bottom", "left")):
            if outside[side] and edges[side] != GREY:
                problems.append(f"cell ({row}, {col}) shows colour {edges[side]} on the rim")
            elif not outside[side] and edges[side] == GREY:
                problems.append(f"cell ({row}, {col}) puts grey inside the board ({name} side)")
    if complete and len(seen_cells) < rows * cols:
        problems.append(f"{rows * cols - len(seen_cells)} cells are empty")
    return problems
