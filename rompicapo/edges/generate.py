"""A generator of solvable edge-matching puzzles of any size, with their solution.

Colour the joints of a ``rows x cols`` board first, then cut it into pieces: a joint along the
frame ring (between two rim cells, on the rim's line) gets one of ``frame_colours`` colours
``1..F``, every other inner joint one of ``inner_colours`` colours ``F+1..F+M``, the outside
grey. Colours are dealt from a shuffled deck holding each colour equally often (as Eternity II
does: every colour count within one of the others), so no colour is rare by accident. Pieces are
listed Eternity II's way (border pieces with grey at the bottom, corners with grey at bottom and
left, inner pieces in a random turn) in a shuffled order, and the solution says where each went.

>>> puzzle, solution = generate(4, 5, frame_colours=2, inner_colours=3, seed=1)
>>> puzzle.rows, puzzle.cols, puzzle.n_pieces
(4, 5, 20)
>>> from rompicapo.edges.puzzle import score
>>> score(solution, puzzle) == puzzle.n_joints
True
"""

from __future__ import annotations

import numpy as np

from rompicapo.common import InputError
from rompicapo.edges.puzzle import MAX_COLOUR, MAX_SIDE, Board, Puzzle

__all__ = ["generate"]


def _deck(rng: np.random.Generator, n: int, first: int, count: int) -> np.ndarray:
    reps = -(-n // count)
    deck = np.tile(np.arange(first, first + count), reps)[:n] if n else np.zeros(0, int)
    # Tile-then-truncate favours the low colours by at most one each; the shuffle spreads them.
    rng.shuffle(deck)
    return deck


def generate(
    rows: int, cols: int, *, frame_colours: int, inner_colours: int, seed: int = 0
) -> tuple[Puzzle, Board]:
    """A random solvable ``rows x cols`` puzzle and one perfect solution of it.

    ``frame_colours`` colours ``1..F`` for the joints along the frame ring and ``inner_colours``
    colours ``F+1..F+M`` for the others; same ``seed``, same puzzle. Few colours make many
    solutions (and repeated pieces); Eternity II has 5 and 17.
    """
    if not (2 <= rows <= MAX_SIDE and 2 <= cols <= MAX_SIDE):
        raise InputError(f"board size {rows}x{cols} out of range (2..{MAX_SIDE} per side)")
    if frame_colours < 1 or inner_colours < 1:
        raise InputError("--frame-colors and --inner-colors must be at least 1")
    if frame_colours + inner_colours > MAX_COLOUR:
        raise InputError(
            f"{frame_colours} + {inner_colours} colours exceed the maximum of {MAX_COLOUR}"
        )
    rng = np.random.default_rng(seed)
    # horiz[r, c]: colour between (r, c) and (r, c+1); vert[r, c]: between (r, c) and (r+1, c).
    horiz = np.zeros((rows, cols - 1), dtype=np.int16)
    vert = np.zeros((rows - 1, cols), dtype=np.int16)
    frame_h = np.zeros_like(horiz, dtype=bool)
    frame_h[[0, rows - 1], :] = True
    frame_v = np.zeros_like(vert, dtype=bool)
    frame_v[:, [0, cols - 1]] = True
    n_frame = int(frame_h.sum() + frame_v.sum())
    n_inner = horiz.size + vert.size - n_frame
    frame_deck = _deck(rng, n_frame, 1, frame_colours)
    inner_deck = _deck(rng, n_inner, frame_colours + 1, inner_colours)
    horiz[frame_h], vert[frame_v] = np.split(frame_deck, [int(frame_h.sum())])
    horiz[~frame_h], vert[~frame_v] = np.split(inner_deck, [int((~frame_h).sum())])

    cells = []
    for r in range(rows):
        for c in range(cols):
            top = vert[r - 1, c] if r > 0 else 0
            right = horiz[r, c] if c < cols - 1 else 0
            bottom = vert[r, c] if r < rows - 1 else 0
            left = horiz[r, c - 1] if c > 0 else 0
            cells.append((r, c, (int(top), int(right), int(bottom), int(left))))

    listed = []
    for r, c, edges in cells:
        rot = _listing_turns(edges, rng)
        # The listed piece turned `rot` clockwise gives the board edges, so the listed piece is
        # the board piece turned back: listed[s] = edges[(s + rot) % 4].
        piece = tuple(edges[(s + rot) % 4] for s in range(4))
        listed.append((r, c, piece, rot))
    order = rng.permutation(len(listed))
    pieces = np.array([listed[i][2] for i in order], dtype=np.int16)
    solution = Board.empty(rows, cols)
    for k, i in enumerate(order):
        r, c, _, rot = listed[i]
        solution.piece[r, c] = k
        solution.rotation[r, c] = rot
    name = f"gen_{rows}x{cols}_f{frame_colours}_i{inner_colours}_s{seed}"
    return Puzzle(rows, cols, pieces, name), solution


def _listing_turns(edges: tuple[int, int, int, int], rng: np.random.Generator) -> int:
    """Clockwise turns from the listed orientation to the board orientation of a cell."""
    greys = [s for s in range(4) if edges[s] == 0]
    if not greys:
        return int(rng.integers(4))
    if len(greys) == 1:
        # listed with grey at the bottom (side 2); it sits at side greys[0] on the board.
        return (greys[0] - 2) % 4
    # corner: listed grey at bottom and left (sides 2, 3); the board's pair is (s, s+1).
    s = greys[0] if (greys[0] + 1) % 4 == greys[1] else greys[1]
    return (s - 2) % 4
