"""The symmetries of a board that keep a move set, and the classes of start cells they make.

Paths from two starts of one class are in one-to-one correspondence, so the counts search one
start per class ([`start_classes()`][rompicapo.paths.start_classes]) and copy its count to the
others.
"""

from __future__ import annotations

import numpy as np

from rompicapo.paths.moves import MoveSet, parse_moves

__all__ = ["Cell", "apply_symmetry", "board_symmetries", "start_classes"]

Cell = tuple[int, int]


def board_symmetries(rows: int, cols: int, moves: str | MoveSet = "caselle") -> list[tuple]:
    """The symmetries of the board that map the move set onto itself.

    Each is ``(transpose, flip_rows, flip_cols)``: transpose first (square boards only), then
    mirror rows and/or columns. A rectangle has 4 (8 when square), fewer when a custom move
    set is not symmetric under some of them.
    """
    ms = parse_moves(moves)
    moveset = set(ms.moves)
    out = []
    for transpose in (False, True) if rows == cols else (False,):
        for flip_r in (False, True):
            for flip_c in (False, True):
                mapped = set()
                for dr, dc in moveset:
                    if transpose:
                        dr, dc = dc, dr
                    mapped.add((-dr if flip_r else dr, -dc if flip_c else dc))
                if mapped == moveset:
                    out.append((transpose, flip_r, flip_c))
    return out


def apply_symmetry(sym: tuple, cell: Cell, rows: int, cols: int) -> Cell:
    """The image of ``cell`` under ``sym`` (one of `board_symmetries()`); ``cell`` may be
    a pair of arrays of rows and columns."""
    transpose, flip_r, flip_c = sym
    r, c = cell
    if transpose:
        r, c = c, r
    return (rows - 1 - r if flip_r else r, cols - 1 - c if flip_c else c)


def start_classes(rows: int, cols: int, moves: str | MoveSet = "caselle") -> dict[Cell, list[Cell]]:
    """The classes of start cells under the board's symmetries: representative -> members.

    Representatives are the first cell of each class in row-major order; paths from any two
    members of a class are in one-to-one correspondence, so one count serves the class.

    ```pycon
    >>> start_classes(3, 3, "knight")  # corners, edges, and the centre alone
    {(0, 0): [(0, 0), (0, 2), (2, 0), (2, 2)], (0, 1): [(0, 1), (1, 0), (1, 2), (2, 1)],
     (1, 1): [(1, 1)]}

    ```"""
    syms = board_symmetries(rows, cols, moves)
    # every cell's images under the symmetries at once (a 1 x 100,000 board has 50,000
    # classes: cell by cell in Python this took most of a --time of a second or two)
    flat = np.arange(rows * cols, dtype=np.int64)
    rc = divmod(flat, cols)
    images = np.stack(
        [rr * cols + cc for rr, cc in (apply_symmetry(s, rc, rows, cols) for s in syms)]
    )
    images.sort(axis=0)  # each column: the class of that cell, its first cell on top
    reps = np.flatnonzero(images[0] == flat)
    orbits = images[:, reps].T.tolist()
    return {
        divmod(int(first), cols): [divmod(m, cols) for m in sorted(set(orbit))]
        for first, orbit in zip(reps.tolist(), orbits, strict=True)
    }
