"""A generator of solvable edge-matching puzzles of any size, with their solution.

Colour the joints of a ``rows x cols`` board first, then cut it into pieces: a joint along the
frame ring (between two rim cells, on the rim's line) gets one of ``frame_colours`` colours
``1..F``, every other inner joint one of ``inner_colours`` colours ``F+1..F+M``, the outside
grey. Colours are dealt from a shuffled deck holding each colour equally often (as Eternity II
does: every colour count within one of the others), so no colour is rare by accident. Pieces are
listed Eternity II's way (border pieces with grey at the bottom, corners with grey at bottom and
left, inner pieces in a random turn) in a shuffled order, and the solution says where each went.

```pycon
>>> puzzle, solution = generate(4, 5, frame_colours=2, inner_colours=3, seed=1)
>>> puzzle.rows, puzzle.cols, puzzle.n_pieces
(4, 5, 20)
>>> from rompicapo.edges.puzzle import score
>>> score(solution, puzzle) == puzzle.n_joints
True

```"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rompicapo.common import (
    InputError,
    InternalError,
    SearchResult,
    check_int,
    check_seed,
    seed_sequence,
    write_text_atomic,
)
from rompicapo.edges.puzzle import (
    MAX_COLOUR,
    MAX_SIDE,
    Board,
    Puzzle,
    check_board_path,
    format_board,
    format_pieces,
    score,
)

__all__ = ["GeneratedPuzzle", "generate", "make_puzzle", "parse_size"]


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
    rows, cols = check_int(rows, "rows"), check_int(cols, "cols")
    if not (2 <= rows <= MAX_SIDE and 2 <= cols <= MAX_SIDE):
        raise InputError(f"board size {rows}x{cols} out of range (2..{MAX_SIDE} per side)")
    frame_colours = check_int(frame_colours, "frame_colours", minimum=1, maximum=MAX_COLOUR)
    inner_colours = check_int(inner_colours, "inner_colours", minimum=1, maximum=MAX_COLOUR)
    if frame_colours + inner_colours > MAX_COLOUR:
        raise InputError(
            f"{frame_colours} + {inner_colours} colours exceed the maximum of {MAX_COLOUR}"
        )
    seed = check_seed(seed) or 0
    # Seeds >= 0 draw as they always did (same seed, same puzzle as earlier releases);
    # negative ones go through the run contract's seed sequence.
    rng = np.random.default_rng(seed if seed >= 0 else seed_sequence(seed))
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


def parse_size(text: str) -> tuple[int, int]:
    """``"RxC"`` (e.g. ``"8x8"``) as ``(rows, cols)``, checked against the sizes supported."""
    m = re.fullmatch(r"\s*(\d{1,6})\s*[xX]\s*(\d{1,6})\s*", str(text))
    if not m:
        raise InputError(f"size must be RxC like 8x8, got {str(text)[:40]!r}")
    rows, cols = int(m.group(1)), int(m.group(2))
    if not (2 <= rows <= MAX_SIDE and 2 <= cols <= MAX_SIDE):
        raise InputError(f"board size {rows}x{cols} out of range (2..{MAX_SIDE} per side)")
    return rows, cols


PIECES_SUFFIXES = (".txt", ".pieces")


@dataclass
class GeneratedPuzzle(SearchResult):
    """A generated puzzle, its solution, and where they were written (if anywhere)."""

    puzzle: Puzzle | None = None
    """The pieces made."""
    solution: Board | None = None
    """The board they were cut from: a perfect solution."""
    out: str | None = None
    """Where the pieces were written, if anywhere."""
    solution_out: str | None = None
    """Where the solution was written, if anywhere."""
    comment: str = ""
    """The command line that makes the same set (written at the top of the files)."""
    _dict_exclude = ("puzzle", "solution", "comment")

    def _repr_svg_(self) -> str | None:
        """Jupyter shows the solution the puzzle was made from."""
        from rompicapo.edges.render import board_picture

        return board_picture(self.solution, self.puzzle, "generated puzzle's solution")

    def verify(self) -> bool:
        """The solution is perfect by the independent verifier."""
        from rompicapo.edges.verify import board_problems, count_matched_joints

        p, b = self.puzzle, self.solution
        assert p is not None and b is not None
        placements = b.placements()
        return not board_problems(p.rows, p.cols, p.pieces.tolist(), placements) and (
            count_matched_joints(p.rows, p.cols, p.pieces.tolist(), placements) == p.n_joints
        )

    def _dict_extra(self) -> dict:
        p = self.puzzle
        assert p is not None
        return {"puzzle": p.name, "size": [p.rows, p.cols], "pieces": p.pieces.tolist()}

    def pieces_text(self) -> str:
        assert self.puzzle is not None
        return format_pieces(self.puzzle, comment=f"made by: {self.comment}")

    def report(self) -> str:
        """The pieces file's text when it was not written, else where things went."""
        if self.out is None:
            text = self.pieces_text()
        else:
            text = f"pieces written to {self.out}\n"
        if self.solution_out is not None:
            text += f"solution written to {self.solution_out}\n"
        return text


def make_puzzle(
    size: str | tuple[int, int],
    *,
    frame_colours: int,
    inner_colours: int,
    seed: int | None = 0,
    out: str | Path | None = None,
    solution_out: str | Path | None = None,
) -> GeneratedPuzzle:
    """`generate()` from ``"RxC"`` (or ``(rows, cols)``), writing the pieces to ``out`` and
    the solution to ``solution_out`` when given (both paths checked before anything is made).

    ```pycon
    >>> made = make_puzzle("6x6", frame_colours=3, inner_colours=5, seed=7)
    >>> made.puzzle.n_pieces, made.puzzle.n_joints, made.verify()
    (36, 60, True)

    ```"""
    rows, cols = parse_size(size) if isinstance(size, str) else size
    if out is not None:
        check_board_path(out, "pieces file")
    if solution_out is not None:
        check_board_path(solution_out, "solution file")
    puzzle, solution = generate(
        rows, cols, frame_colours=frame_colours, inner_colours=inner_colours, seed=seed or 0
    )
    cmd = (
        f"rompicapo edges generate {rows}x{cols} --frame-colours {frame_colours} "
        f"--inner-colours {inner_colours} --seed {seed or 0}"
    )
    result = GeneratedPuzzle(
        puzzle=puzzle, solution=solution, out=None if out is None else str(out),
        solution_out=None if solution_out is None else str(solution_out), comment=cmd,
    )  # fmt: skip
    if score(solution, puzzle) != puzzle.n_joints:
        raise InternalError("the generated solution is not perfect")
    if out is not None:
        write_text_atomic(out, result.pieces_text())
    if solution_out is not None:
        write_text_atomic(
            solution_out, format_board(solution, puzzle, comment=f"solution of: {cmd}")
        )
    return result
