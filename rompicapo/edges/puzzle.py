"""Edge-matching puzzles: pieces, boards, clues, score, validation, files and viewer URLs.

The memory picture first. A [`Puzzle`][rompicapo.edges.Puzzle] is ``rows x cols`` and a ``(n, 4)``
array of edge colours, one row per piece in its *listed* orientation ``(top, right, bottom, left)``;
colour 0 is the grey of the frame. A [`Board`][rompicapo.edges.Board] is two ``rows x cols`` arrays:
the zero-based piece index in each cell (-1 when empty) and its rotation, ``r`` clockwise quarter
turns of the listed piece (one turn: ``(t, r, b, l) -> (l, t, r, b)``). Row 0 is the top row. Clues
are a partial board.

Files (the shared data folder's conventions; the header of every file repeats them):

- pieces: one piece a line, ``TOP RIGHT BOTTOM LEFT``; piece ``k`` is the ``k``-th non-comment
  line (1-based in files, 0-based in arrays); ``# size: ROWS COLS`` optional (else the size is
  inferred from the counts of corner, border and inner pieces);
- boards, solutions and clues: ``ROW COL PIECE ROTATION`` lines, piece 1-based, cells left out
  are empty.

The score of a board is the number of inner joints (two side-by-side occupied cells) whose
colours match: 480 for a perfect Eternity II board.

```pycon
>>> puzzle = eternity2()
>>> puzzle.rows, puzzle.cols, puzzle.n_pieces, puzzle.n_joints
(16, 16, 256, 480)
>>> clues = eternity2_clues("centre")
>>> int(clues.piece[8, 7]) + 1, int(clues.rotation[8, 7])
(139, 2)

```"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from rompicapo.common import InputError, check_output_path, read_text, write_text_atomic

__all__ = [
    "MAX_COLOUR",
    "Board",
    "Puzzle",
    "board_from_url",
    "board_url",
    "check_board_path",
    "eternity2",
    "eternity2_clues",
    "format_board",
    "format_pieces",
    "is_url",
    "load_board",
    "load_clues",
    "load_pieces",
    "load_puzzle",
    "mismatched_joints",
    "parse_board",
    "parse_pieces",
    "read_board",
    "rule_problems",
    "save_board",
    "score",
    "validate",
]

GREY = 0
# Colours are stored in int16 arrays and written as one letter 'a'+c in viewer URLs; 63 leaves
# room for every published set (Brendan's 20x20 uses 28) and keeps the search tables small
# ((colours+1)^2 keys per table).
MAX_COLOUR = 63
# The search kernel packs a piece index in 10 bits (one int32 word per table entry), so at
# most 1024 pieces: 32 x 32. Published sets stop at 20 x 20.
MAX_SIDE = 32

DATA = Path(__file__).resolve().parent / "data"

SIDES = ("top", "right", "bottom", "left")


# --------------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Puzzle:
    """``rows x cols`` board and its pieces, ``pieces[k] = (top, right, bottom, left)``."""

    rows: int
    """Rows of the board."""
    cols: int
    """Columns of the board."""
    pieces: np.ndarray
    """``pieces[k] = (top, right, bottom, left)`` colours of piece k (0: grey, the frame)."""
    name: str = ""
    """The set's name (``"eternity2"``, a file's stem, ...)."""

    @property
    def n_pieces(self) -> int:
        return int(self.pieces.shape[0])

    @property
    def n_joints(self) -> int:
        """Inner joints of a complete board: the perfect score."""
        return self.rows * (self.cols - 1) + self.cols * (self.rows - 1)

    @property
    def max_colour(self) -> int:
        return int(self.pieces.max())

    @property
    def frame_colours(self) -> frozenset[int]:
        """Colours on the sides next to a grey side of a border or corner piece.

        These meet only along the frame ring; Blackwood's search never lets them mismatch.
        """
        out: set[int] = set()
        for edges in self.pieces.tolist():
            for side in range(4):
                if edges[side] == GREY:
                    for nb in ((side + 1) % 4, (side + 3) % 4):
                        if edges[nb] != GREY:
                            out.add(int(edges[nb]))
        return frozenset(out)

    @property
    def is_eternity2(self) -> bool:
        """True for the official Eternity II set in Blackwood's numbering (the shipped file)."""
        e2 = _eternity2_pieces()
        return self.pieces.shape == e2.shape and bool(np.array_equal(self.pieces, e2))

    def edges(self, index: int, rotation: int) -> tuple[int, int, int, int]:
        """``(top, right, bottom, left)`` of piece ``index`` (0-based) turned ``rotation``.

        The model's own rotation (the verifier derives its own: they share no code)."""
        listed = self.pieces[index].tolist()
        t = rotation % 4
        return (listed[-t % 4], listed[(1 - t) % 4], listed[(2 - t) % 4], listed[(3 - t) % 4])

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return (
            f"<Puzzle{label} {self.rows}x{self.cols}, {self.n_pieces} pieces, "
            f"colours 1..{self.max_colour}>"
        )


@dataclass(eq=False)
class Board:
    """A full or partial board: ``piece[r, c]`` (0-based, -1 empty) and ``rotation[r, c]``."""

    piece: np.ndarray
    """``piece[r, c]``: the piece (from 0) on cell (r, c), -1 when empty."""
    rotation: np.ndarray
    """``rotation[r, c]``: its quarter turns clockwise, 0..3."""

    @classmethod
    def empty(cls, rows: int, cols: int) -> Board:
        return cls(np.full((rows, cols), -1, dtype=np.int16), np.zeros((rows, cols), dtype=np.int8))

    @property
    def rows(self) -> int:
        return int(self.piece.shape[0])

    @property
    def cols(self) -> int:
        return int(self.piece.shape[1])

    @property
    def n_placed(self) -> int:
        return int((self.piece >= 0).sum())

    def placements(self) -> list[tuple[int, int, int, int]]:
        """``(row, col, piece_index, rotation)`` of every occupied cell, row by row."""
        rr, cc = np.nonzero(self.piece >= 0)
        return [
            (int(r), int(c), int(self.piece[r, c]), int(self.rotation[r, c]))
            for r, c in zip(rr, cc, strict=True)
        ]

    def copy(self) -> Board:
        return Board(self.piece.copy(), self.rotation.copy())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return bool(
            np.array_equal(self.piece, other.piece) and np.array_equal(_rot0(self), _rot0(other))
        )

    __hash__ = None  # type: ignore[assignment]


def _rot0(board: Board) -> np.ndarray:
    return np.where(board.piece >= 0, board.rotation, 0)


def _edge_arrays(board: Board, puzzle: Puzzle) -> np.ndarray:
    """``(rows, cols, 4)`` colours shown in each cell (-1 where empty)."""
    rows, cols = board.rows, board.cols
    out = np.full((rows, cols, 4), -1, dtype=np.int64)
    filled = board.piece >= 0
    k = board.piece[filled].astype(np.int64)
    t = board.rotation[filled].astype(np.int64) % 4
    pieces = puzzle.pieces.astype(np.int64)
    for side in range(4):
        out[filled, side] = pieces[k, (side - t) % 4]
    return out


def score(board: Board, puzzle: Puzzle) -> int:
    """Matched inner joints between two occupied cells (the model's count; the search's
    results are re-checked by `rompicapo.edges.verify`, which counts on its own)."""
    e = _edge_arrays(board, puzzle)
    h = (e[:, :-1, 1] >= 0) & (e[:, 1:, 3] >= 0) & (e[:, :-1, 1] == e[:, 1:, 3])
    v = (e[:-1, :, 2] >= 0) & (e[1:, :, 0] >= 0) & (e[:-1, :, 2] == e[1:, :, 0])
    return int(h.sum() + v.sum())


def rule_problems(board: Board, puzzle: Puzzle, *, complete: bool = True) -> list[str]:
    """Every rule ``board`` breaks (each piece once, rotations 0..3, grey exactly on the rim,
    with ``complete`` every cell filled), one short message each; [] when it is valid."""
    problems: list[str] = []
    rows, cols = puzzle.rows, puzzle.cols
    seen: dict[int, tuple[int, int]] = {}
    for r, c, k, rot in board.placements():
        if not 0 <= k < puzzle.n_pieces:
            problems.append(f"cell ({r}, {c}) holds piece {k + 1}, which does not exist")
            continue
        if rot not in (0, 1, 2, 3):
            problems.append(f"cell ({r}, {c}) has rotation {rot}, not 0..3")
            continue
        if k in seen:
            problems.append(f"piece {k + 1} is used at {seen[k]} and at ({r}, {c})")
        seen.setdefault(k, (r, c))
        edges = puzzle.edges(k, rot)
        outside = (r == 0, c == cols - 1, r == rows - 1, c == 0)
        for side in range(4):
            if outside[side] and edges[side] != GREY:
                problems.append(f"cell ({r}, {c}) shows colour {edges[side]} on the rim")
            elif not outside[side] and edges[side] == GREY:
                problems.append(f"cell ({r}, {c}) puts grey inside the board ({SIDES[side]} side)")
    if complete and board.n_placed < rows * cols:
        problems.append(f"{rows * cols - board.n_placed} cells are empty")
    return problems


def mismatched_joints(board: Board, puzzle: Puzzle) -> list[tuple[int, int, int, int]]:
    """Joints between two occupied cells whose colours differ: ``(r1, c1, r2, c2)`` pairs."""
    out = []
    for r, c, k, rot in board.placements():
        e = puzzle.edges(k, rot)
        if c + 1 < board.cols and board.piece[r, c + 1] >= 0:
            o = puzzle.edges(int(board.piece[r, c + 1]), int(board.rotation[r, c + 1]))
            if e[1] != o[3]:
                out.append((r, c, r, c + 1))
        if r + 1 < board.rows and board.piece[r + 1, c] >= 0:
            o = puzzle.edges(int(board.piece[r + 1, c]), int(board.rotation[r + 1, c]))
            if e[2] != o[0]:
                out.append((r, c, r + 1, c))
    return out


def validate(board: Board, puzzle: Puzzle, *, complete: bool = True) -> None:
    """Raise [`InputError`][rompicapo.common.InputError] naming the first broken rule (each piece
    once, grey exactly on the rim, and with ``complete`` every cell filled); return quietly
    otherwise."""
    if (board.rows, board.cols) != (puzzle.rows, puzzle.cols):
        raise InputError(
            f"board is {board.rows}x{board.cols} but the puzzle is {puzzle.rows}x{puzzle.cols}"
        )
    problems = rule_problems(board, puzzle, complete=complete)
    if problems:
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        raise InputError(problems[0] + more)


# --------------------------------------------------------------------------------------------
# Pieces files
# --------------------------------------------------------------------------------------------

_SIZE = re.compile(r"^#\s*size:\s*(\S+)\s+(\S+)\s*$", re.IGNORECASE)
# A pieces file may declare that it repeats pieces on purpose (the generator writes it).
_DUPLICATES = re.compile(r"^\s*#\s*duplicates:\s*allowed\s*$", re.IGNORECASE | re.MULTILINE)


def _data_lines(text: str, what: str) -> tuple[list[tuple[int, list[str]]], tuple[int, int] | None]:
    """Non-comment lines as ``(line_number, tokens)`` and the ``# size:`` header if any."""
    lines: list[tuple[int, list[str]]] = []
    size = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            m = _SIZE.match(line)
            if m:
                try:
                    size = (int(m.group(1)), int(m.group(2)))
                except ValueError:
                    raise InputError(
                        f"{what} line {number}: size must be two integers, got {line!r}"
                    ) from None
            continue
        lines.append((number, line.split("#", 1)[0].split()))
    return lines, size


def _check_size(rows: int, cols: int) -> None:
    if not (2 <= rows <= MAX_SIDE and 2 <= cols <= MAX_SIDE):
        raise InputError(f"board size {rows}x{cols} out of range (2..{MAX_SIDE} per side)")


def _infer_size(n_border: int, n_inner: int, what: str) -> tuple[int, int]:
    # border = 2(R-2) + 2(C-2) and inner = (R-2)(C-2): R-2 and C-2 are the roots of
    # x^2 - (border/2) x + inner.
    half = n_border / 2
    disc = half * half - 4 * n_inner
    if n_border % 2 == 0 and disc >= 0:
        root = round(disc**0.5)
        if root * root == int(disc) and (int(half) + root) % 2 == 0:
            a, b = (int(half) + root) // 2, (int(half) - root) // 2
            if b >= 0:
                return b + 2, a + 2
    raise InputError(
        f"{what}: cannot infer the board size from {n_border} border and {n_inner} inner "
        "pieces; add a '# size: ROWS COLS' line"
    )


def _canonical(edges: Sequence[int]) -> tuple[int, ...]:
    e = tuple(int(x) for x in edges)
    return min(e[i:] + e[:i] for i in range(4))


def parse_pieces(
    text: str,
    *,
    name: str = "",
    size: tuple[int, int] | None = None,
    allow_duplicates: bool = False,
) -> Puzzle:
    """Read a pieces file's text; raise [`InputError`][rompicapo.common.InputError] with a one-line
    reason if it is bad.

    Checks: four integer colours a line, colours in ``0..MAX_COLOUR``, grey only on one side or
    two adjacent sides, exactly 4 corners, ``2(R-2)+2(C-2)`` border and ``(R-2)(C-2)`` inner
    pieces for the size (``size`` argument, else the ``# size:`` line, else inferred), and no two
    pieces equal up to rotation unless ``allow_duplicates`` (Tomy's clue puzzles repeat pieces).
    """
    what = name or "pieces"
    lines, header_size = _data_lines(text, what)
    if not lines:
        raise InputError(f"{what}: no pieces found")
    rows_: list[list[int]] = []
    for number, tokens in lines:
        if len(tokens) != 4:
            raise InputError(
                f"{what} line {number}: expected 4 colours (top right bottom left), "
                f"got {len(tokens)} values"
            )
        try:
            colours = [int(t) for t in tokens]
        except ValueError:
            raise InputError(
                f"{what} line {number}: colours must be integers, got {' '.join(tokens)!r}"
            ) from None
        for c in colours:
            if not 0 <= c <= MAX_COLOUR:
                raise InputError(f"{what} line {number}: colour {c} out of range 0..{MAX_COLOUR}")
        greys = [s for s in range(4) if colours[s] == GREY]
        if len(greys) > 2 or (len(greys) == 2 and (greys[1] - greys[0]) % 2 == 0):
            raise InputError(
                f"{what} line {number}: piece {len(rows_) + 1} has grey on "
                f"{' and '.join(SIDES[s] for s in greys)}; a piece has grey on one side "
                "(border) or two adjacent sides (corner)"
            )
        rows_.append(colours)
    pieces = np.array(rows_, dtype=np.int16)
    greys = (pieces == GREY).sum(axis=1)
    n_corner, n_border, n_inner = (int((greys == g).sum()) for g in (2, 1, 0))
    if n_corner != 4:
        raise InputError(f"{what}: {n_corner} corner pieces (two grey sides); a board needs 4")
    rows, cols = size or header_size or _infer_size(n_border, n_inner, what)
    _check_size(rows, cols)
    if len(pieces) != rows * cols:
        raise InputError(
            f"{what}: {len(pieces)} pieces listed but a {rows}x{cols} board needs {rows * cols}"
        )
    want_border = 2 * (rows - 2) + 2 * (cols - 2)
    if n_border != want_border:
        raise InputError(
            f"{what}: {n_border} border pieces (one grey side) but a {rows}x{cols} board needs "
            f"{want_border}"
        )
    if not allow_duplicates and not _DUPLICATES.search(text):
        seen: dict[tuple[int, ...], int] = {}
        for k, edges in enumerate(rows_):
            key = _canonical(edges)
            if key in seen:
                raise InputError(
                    f"{what}: pieces {seen[key] + 1} and {k + 1} are the same piece up to "
                    "rotation (if the set repeats pieces on purpose, add a "
                    "'# duplicates: allowed' line or pass allow_duplicates)"
                )
            seen[key] = k
    return Puzzle(rows, cols, pieces, name)


def format_pieces(puzzle: Puzzle, *, comment: str = "") -> str:
    """The pieces file of a puzzle (with its size line); `parse_pieces()` reads it back."""
    out = [f"# {line}" for line in comment.splitlines()]
    out.append(
        f"# {puzzle.name or 'puzzle'}: {puzzle.rows} rows x {puzzle.cols} cols, "
        f"{puzzle.n_pieces} pieces, colours 1..{puzzle.max_colour} + grey 0."
    )
    out.append(f"# size: {puzzle.rows} {puzzle.cols}")
    canon = {_canonical(row) for row in puzzle.pieces.tolist()}
    if len(canon) < puzzle.n_pieces:
        out.append("# duplicates: allowed")
    out.append("# Format: line k (non-comment lines only) = piece k; TOP RIGHT BOTTOM LEFT.")
    out += [" ".join(str(int(x)) for x in row) for row in puzzle.pieces.tolist()]
    return "\n".join(out) + "\n"


def load_pieces(
    path: str | Path, *, size: tuple[int, int] | None = None, allow_duplicates: bool = False
) -> Puzzle:
    """Read a pieces file (see `parse_pieces()`)."""
    p = Path(path)
    return parse_pieces(
        _read(p, "pieces file"), name=p.stem, size=size, allow_duplicates=allow_duplicates
    )


def _read(path: Path, what: str = "file") -> str:
    # common.read_text: a missing file, a folder, binary bytes, a BOM or CRLF are handled the
    # same way in every family (one line naming the file).
    return read_text(path, what)


# Names of the shipped official set, accepted wherever a pieces file is.
ETERNITY2_NAMES = ("eternity2", "e2", "eternity-ii")


def load_puzzle(spec: str | Path, *, allow_duplicates: bool = False) -> Puzzle:
    """A puzzle from ``spec``: ``"eternity2"`` (also ``e2``, ``eternity-ii``: the shipped
    official set) or a pieces file (see `parse_pieces()`)."""
    if not isinstance(spec, (str, Path)) or not str(spec):
        raise InputError(f"pieces: expected a file name or 'eternity2', got {spec!r}")
    if str(spec).lower() in ETERNITY2_NAMES:
        return eternity2()
    return load_pieces(spec, allow_duplicates=allow_duplicates)


def is_url(spec: str) -> bool:
    """True when ``spec`` is a viewer URL (or its ``#...board_edges=`` fragment), not a file."""
    return str(spec).startswith(("http://", "https://")) or "board_edges=" in str(spec)


def read_board(spec: str | Path | Board, puzzle: Puzzle, *, strict: bool = True) -> Board:
    """A board from ``spec``: a [`Board`][rompicapo.edges.Board] (checked against the puzzle), an
    e2.bucas.name viewer URL (see `board_from_url()`) or a board file."""
    if isinstance(spec, Board):
        if (spec.rows, spec.cols) != (puzzle.rows, puzzle.cols):
            raise InputError(
                f"board is {spec.rows}x{spec.cols} but the puzzle is {puzzle.rows}x{puzzle.cols}"
            )
        if strict:
            validate(spec, puzzle, complete=False)
        return spec
    if not isinstance(spec, (str, Path)) or not str(spec):
        raise InputError(f"board: expected a file name or a viewer URL, got {spec!r}")
    if isinstance(spec, str) and is_url(spec):
        return board_from_url(spec, puzzle)
    return load_board(spec, puzzle, strict=strict)


CLUE_NAMES = ("centre", "center", "all", "none")


def load_clues(spec: str | Path | Board | None, puzzle: Puzzle) -> Board:
    """Pinned pieces from ``spec``: a [`Board`][rompicapo.edges.Board], a clues file, ``"none"``, or
    on Eternity II ``"centre"``/``"all"``; None = the default (Eternity II's centre clue on Eternity
    II, none elsewhere)."""
    if spec is None:
        return (
            eternity2_clues("centre")
            if puzzle.is_eternity2
            else Board.empty(puzzle.rows, puzzle.cols)
        )
    if isinstance(spec, Board):
        return read_board(spec, puzzle)
    if str(spec) in CLUE_NAMES:
        if spec == "none":
            return Board.empty(puzzle.rows, puzzle.cols)
        if not puzzle.is_eternity2:
            raise InputError(f"clues {spec!r} names Eternity II's clues; give a clues file")
        return eternity2_clues(str(spec))
    return read_board(spec, puzzle)


# Board files are text; anything else is most likely a slip (a picture's name, a missing
# extension), refused before the search instead of written as something else.
BOARD_SUFFIXES = (".txt", ".board")


def check_board_path(path: object, what: str = "board file") -> Path:
    """``path`` checked for [`save_board()`][rompicapo.edges.save_board] before any work (folder
    writable, .txt)."""
    return check_output_path(path, what, suffixes=BOARD_SUFFIXES)


@cache
def _eternity2_pieces() -> np.ndarray:
    return parse_pieces((DATA / "eternity2_pieces.txt").read_text()).pieces


def eternity2() -> Puzzle:
    """The 256 official Eternity II pieces (Blackwood's numbering and colours), 16x16.

    ```pycon
    >>> puzzle = eternity2()
    >>> puzzle.rows, puzzle.cols, puzzle.n_pieces, puzzle.n_joints
    (16, 16, 256, 480)

    ```"""
    return Puzzle(16, 16, _eternity2_pieces().copy(), "eternity2")


def eternity2_clues(which: str = "centre") -> Board:
    """Eternity II clues: ``"centre"`` (piece 139 at row 8, col 7, rotation 2), ``"all"`` (the
    centre and the four hint pieces of the clue puzzles) or ``"none"``."""
    if which not in ("centre", "center", "all", "none"):
        raise InputError(f"clues must be 'centre', 'all', 'none' or a file, got {which!r}")
    board = parse_board((DATA / "eternity2_clues.txt").read_text(), eternity2(), what="clues")
    if which == "all":
        return board
    out = Board.empty(16, 16)
    if which != "none":
        out.piece[8, 7], out.rotation[8, 7] = board.piece[8, 7], board.rotation[8, 7]
    return out


# --------------------------------------------------------------------------------------------
# Board files
# --------------------------------------------------------------------------------------------


def parse_board(text: str, puzzle: Puzzle, *, what: str = "board", strict: bool = True) -> Board:
    """Read ``ROW COL PIECE ROTATION`` lines into a board of the puzzle's size.

    Raises [`InputError`][rompicapo.common.InputError] for malformed lines, cells outside the board,
    unknown pieces, rotations outside 0..3, a cell filled twice and (``strict``) any broken rule of
    `validate()` for a partial board: a piece used twice, grey inside the board or a colour on the
    rim.
    """
    lines, size = _data_lines(text, what)
    if size is not None and size != (puzzle.rows, puzzle.cols):
        raise InputError(
            f"{what} is {size[0]}x{size[1]} but the puzzle is {puzzle.rows}x{puzzle.cols}"
        )
    board = Board.empty(puzzle.rows, puzzle.cols)
    for number, tokens in lines:
        if len(tokens) != 4:
            raise InputError(
                f"{what} line {number}: expected 'ROW COL PIECE ROTATION', got {len(tokens)} values"
            )
        try:
            row, col, piece, rot = (int(t) for t in tokens)
        except ValueError:
            raise InputError(
                f"{what} line {number}: values must be integers, got {' '.join(tokens)!r}"
            ) from None
        if not (0 <= row < puzzle.rows and 0 <= col < puzzle.cols):
            raise InputError(
                f"{what} line {number}: cell ({row}, {col}) is outside the "
                f"{puzzle.rows}x{puzzle.cols} board"
            )
        if not 1 <= piece <= puzzle.n_pieces:
            raise InputError(
                f"{what} line {number}: piece {piece} does not exist (1..{puzzle.n_pieces})"
            )
        if rot not in (0, 1, 2, 3):
            raise InputError(f"{what} line {number}: rotation {rot} is not 0..3")
        if board.piece[row, col] >= 0:
            raise InputError(f"{what} line {number}: cell ({row}, {col}) is filled twice")
        board.piece[row, col] = piece - 1
        board.rotation[row, col] = rot
    if strict:
        problems = rule_problems(board, puzzle, complete=False)
        if problems:
            raise InputError(f"{what}: {problems[0]}")
    return board


def load_board(path: str | Path, puzzle: Puzzle, *, strict: bool = True) -> Board:
    """Read a board, solution or clues file (see `parse_board()`)."""
    p = Path(path)
    return parse_board(_read(p, "board file"), puzzle, what=p.name, strict=strict)


def format_board(board: Board, puzzle: Puzzle | None = None, *, comment: str = "") -> str:
    """The board as ``ROW COL PIECE ROTATION`` lines with a header (and its score if the puzzle
    is given); `parse_board()` reads it back."""
    out = []
    for line in comment.splitlines():
        out.append(f"# {line}")
    if puzzle is not None:
        out.append(
            f"# score: {score(board, puzzle)} of {puzzle.n_joints} joints matched, "
            f"{board.n_placed} of {puzzle.rows * puzzle.cols} cells filled"
        )
    out.append(f"# size: {board.rows} {board.cols}")
    out.append("# Format: ROW COL PIECE ROTATION; row 0 = top, piece 1-based, rotation = clockwise")
    out.append("#   quarter turns of the listed piece, (t,r,b,l) -> (l,t,r,b) per turn.")
    for r, c, k, rot in board.placements():
        out.append(f"{r} {c} {k + 1} {rot}")
    return "\n".join(out) + "\n"


def save_board(path: str | Path, board: Board, puzzle: Puzzle | None = None, **kw: str) -> None:
    """Write the board file atomically (a failed write leaves nothing behind)."""
    write_text_atomic(path, format_board(board, puzzle, **kw))


# --------------------------------------------------------------------------------------------
# e2.bucas.name viewer URLs
# --------------------------------------------------------------------------------------------

VIEWER = "https://e2.bucas.name/"
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def board_url(board: Board, puzzle: Puzzle, *, name: str = "rompicapo") -> str:
    """The board in the e2.bucas.name viewer: ``board_edges`` holds four letters a cell
    (``'a' + colour`` for top, right, bottom, left), rows from the top, ``aaaa`` when empty;
    ``motifs_order=jblackwood`` tells the viewer our colour numbering for Eternity II."""
    if puzzle.max_colour >= len(_LETTERS):
        raise InputError(
            f"the viewer writes a colour as one letter a..z; this puzzle uses colour "
            f"{puzzle.max_colour}"
        )
    cells = []
    for r in range(board.rows):
        for c in range(board.cols):
            k = int(board.piece[r, c])
            if k < 0:
                cells.append("aaaa")
            else:
                cells.append(
                    "".join(_LETTERS[x] for x in puzzle.edges(k, int(board.rotation[r, c])))
                )
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "board"
    url = (
        f"{VIEWER}#puzzle={safe}&board_w={board.cols}&board_h={board.rows}"
        f"&board_edges={''.join(cells)}"
    )
    if puzzle.is_eternity2:
        url += "&motifs_order=jblackwood"
    return url


def board_from_url(url: str, puzzle: Puzzle) -> Board:
    """Read a viewer URL back: each cell's four letters are matched to an unused piece and
    rotation of the puzzle (``aaaa`` is an empty cell)."""
    params = dict(part.split("=", 1) for part in re.split(r"[#&?]", url) if "=" in part)
    try:
        width, height = int(params["board_w"]), int(params["board_h"])
        letters = params["board_edges"]
    except (KeyError, ValueError):
        raise InputError("URL lacks board_w, board_h or board_edges") from None
    if (height, width) != (puzzle.rows, puzzle.cols):
        raise InputError(
            f"URL board is {height}x{width} but the puzzle is {puzzle.rows}x{puzzle.cols}"
        )
    if len(letters) != 4 * width * height or not set(letters) <= set(_LETTERS):
        raise InputError(f"board_edges must be {4 * width * height} letters a..z")
    by_edges: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for k in range(puzzle.n_pieces):
        for rot in range(4):
            by_edges.setdefault(puzzle.edges(k, rot), []).append((k, rot))
    board = Board.empty(height, width)
    used: set[int] = set()
    for cell in range(width * height):
        chunk = letters[4 * cell : 4 * cell + 4]
        if chunk == "aaaa":
            continue
        edges = tuple(_LETTERS.index(ch) for ch in chunk)
        options = [(k, rot) for k, rot in by_edges.get(edges, []) if k not in used]
        if not options:
            r, c = divmod(cell, width)
            raise InputError(f"URL cell ({r}, {c}) shows edges {edges} that no unused piece has")
        k, rot = options[0]
        used.add(k)
        board.piece[divmod(cell, width)] = k
        board.rotation[divmod(cell, width)] = rot
    return board


def placements_board(
    rows: int, cols: int, placements: Iterable[tuple[int, int, int, int]]
) -> Board:
    """A board from ``(row, col, piece_index, rotation)`` tuples."""
    board = Board.empty(rows, cols)
    for r, c, k, rot in placements:
        board.piece[r, c] = k
        board.rotation[r, c] = rot
    return board
