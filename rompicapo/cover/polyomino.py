"""Polyomino packing: place every piece once in a region, as an exact-cover problem.

Pieces and regions are drawn as text. A region is ``"RxC"`` (a rectangle) or a drawing whose
cells are any characters other than ``.`` and blanks. A set of pieces is a name
(``pentominoes``, ``tetrominoes``) or a drawing where each letter marks the cells of one piece
(pieces separated by ``.`` or blanks, like a solved puzzle)::

    FF.I
    .F.I

Items: one primary item per piece (used once) and one per cell (covered once; secondary when
the pieces have fewer cells than the region, which makes it a packing with holes). Options:
every placement of every piece in its allowed orientations (``all`` = rotations and
reflections, ``rotations``, or ``fixed``).

Symmetry breaking: the region's symmetries (those of the 8 square symmetries that map it onto
itself) turn each tiling into up to ``|G|`` tilings. With ``symmetry=True`` one piece whose
every placement is moved by every nontrivial symmetry (an asymmetric piece such as F, or X in
a 6x10 box) is kept only in placements that are first in their orbit, so each class is counted
once and the total is ``count * |G|`` exactly.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rompicapo.common import (
    Deadline,
    InputError,
    NotVerifiable,
    ProgressCallback,
    SearchResult,
    check_int,
    check_limit,
    check_memory,
    check_node_limit,
    check_time_limit,
    parse_scheduler_address,
    read_text,
    renamed_keywords,
)
from rompicapo.cover.problem import Problem

__all__ = [
    "PIECE_SETS",
    "Packing",
    "PackingResult",
    "load_pieces",
    "load_region",
    "pack",
    "parse_pieces",
    "parse_region",
]

#: A region larger than this is refused before its cells are listed: with at most 62 pieces
#: (one letter or digit each) a larger region is mostly holes, and listing its cells and
#: placements alone would take seconds.
MAX_REGION_CELLS = 100_000
#: Placements (options) a packing may have; each costs about a hundred bytes per cell in
#: Python and is checked cell by cell while building, so more would take minutes to list.
MAX_PLACEMENTS = 2_000_000

Cell = tuple[int, int]


def _side_by_side(shapes: dict[str, list[str]]) -> str:
    """One drawing of several pieces, each given as rows, placed left to right."""
    height = max(len(rows) for rows in shapes.values())
    columns = []
    for rows in shapes.values():
        width = max(len(r) for r in rows)
        columns.append([r.ljust(width, ".") for r in rows] + ["." * width] * (height - len(rows)))
    return "\n".join(" ".join(col[i] for col in columns) for i in range(height))


_PENTOMINOES = _side_by_side(
    {
        "F": [".FF", "FF.", ".F."],
        "I": ["IIIII"],
        "L": ["LLLL", "L..."],
        "N": ["NN..", ".NNN"],
        "P": ["PP", "PP", "P."],
        "T": ["TTT", ".T.", ".T."],
        "U": ["U.U", "UUU"],
        "V": ["V..", "V..", "VVV"],
        "W": ["W..", "WW.", ".WW"],
        "X": [".X.", "XXX", ".X."],
        "Y": ["YYYY", ".Y.."],
        "Z": ["ZZ.", ".Z.", ".ZZ"],
    }
)

_TETROMINOES = _side_by_side(
    {
        "I": ["IIII"],
        "O": ["OO", "OO"],
        "T": ["TTT", ".T."],
        "S": [".SS", "SS."],
        "L": ["LLL", "L.."],
    }
)

#: Named piece sets (each piece free: all orientations are the same piece).
PIECE_SETS = {"pentominoes": _PENTOMINOES, "tetrominoes": _TETROMINOES}


def _normalise(cells) -> tuple[Cell, ...]:
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def parse_pieces(spec: str, *, source: str | None = None) -> dict[str, tuple[Cell, ...]]:
    """Pieces from a set name or a drawing (one letter per piece); shapes normalised.

    ``source`` (a file name) is named in errors, with the line of a bad character."""
    if not isinstance(spec, str):
        raise InputError(f"pieces must be text, got {type(spec).__name__}")
    text = PIECE_SETS.get(spec.strip().lower(), spec)
    where = source or "pieces"
    cells: dict[str, list[Cell]] = {}
    for r, line in enumerate(text.splitlines()):
        for c, ch in enumerate(line):
            if ch in ". \t":
                continue
            if not (ch.isalnum()):
                raise InputError(
                    f"bad character {ch!r} in the pieces (letters mark pieces, '.' is empty)",
                    path=where,
                    line=r + 1 if source else None,
                )
            cells.setdefault(ch, []).append((r, c))
    if not cells:
        raise InputError(
            "no piece drawn (and not one of " + ", ".join(PIECE_SETS) + ")", path=where
        )
    pieces = {}
    for name, cs in cells.items():
        if not _connected(cs):
            raise InputError(f"piece {name!r} is not connected", path=where)
        pieces[name] = _normalise(cs)
    return pieces


#: Names that are surely meant as files (a drawing never ends like this).
_FILE_SUFFIXES = (".txt", ".pieces", ".region", ".poly", ".dat")


def _exists(name: str, *, file: bool) -> bool:
    """Path(name).is_file() / is_dir(), False for names the OS refuses (too long, ...)."""
    try:
        return Path(name).is_file() if file else Path(name).is_dir()
    except (OSError, ValueError):
        return False


def _file_or_text(spec: str, what: str) -> tuple[str | None, str]:
    """``(file name, text)`` when ``spec`` names a file, else ``(None, spec)``. A value that
    looks like a file name (a folder in it, a known suffix) but is none is refused."""
    one_line = "\n" not in spec and "\0" not in spec and 0 < len(spec) < 4096
    if one_line and _exists(spec, file=True):
        return spec, read_text(spec, f"{what} file")
    parent = str(Path(spec.strip()).parent) if one_line else "."
    if one_line and (
        (parent not in (".", "") and _exists(parent, file=False))  # dir/missing-file
        or spec.strip().lower().endswith(_FILE_SUFFIXES)
        or os.path.lexists(spec)  # a folder, a FIFO, a device: refused by read_text
    ):
        read_text(spec, f"{what} file")  # raises: does not exist, not a file, unreadable
    return None, spec


def load_pieces(spec: str | dict) -> dict[str, tuple[Cell, ...]]:
    """Pieces from what a person gives: a set name (`PIECE_SETS`), a file holding a
    drawing, or a drawing itself (rows separated by newlines or ``/``). A single word that is
    none of these (``"foo"``) is refused rather than read as a drawing of pieces f and o.
    A dict of shapes (name -> cells) is checked and normalised.

    ```pycon
    >>> load_pieces("AAB/..B")  # a drawing, rows separated by "/"
    {'A': ((0, 0), (0, 1)), 'B': ((0, 0), (1, 0))}
    >>> sorted(load_pieces("tetrominoes"))
    ['I', 'L', 'O', 'S', 'T']
    >>> load_pieces("foo")
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: unknown piece set 'foo': give one of pentominoes,
    tetrominoes, a file, or a drawing with '/' between rows (e.g. 'FF./.FF')

    ```"""
    if isinstance(spec, dict):
        return _check_shapes(spec)
    if not isinstance(spec, str):
        raise InputError(f"pieces must be a set name, a file or a drawing, got {spec!r:.40}")
    if spec.strip().lower() in PIECE_SETS:
        return parse_pieces(spec)
    name, text = _file_or_text(spec, "pieces")
    if name is not None:
        return parse_pieces(text, source=name)
    if "\n" not in text and "/" not in text and not re.search(r"[.\s]", text.strip()):
        raise InputError(
            f"unknown piece set {text[:40]!r}: give one of {', '.join(PIECE_SETS)}, a file, "
            "or a drawing with '/' between rows (e.g. 'FF./.FF')"
        )
    return parse_pieces(text.replace("/", "\n"))


def _check_shapes(shapes: dict) -> dict[str, tuple[Cell, ...]]:
    out = {}
    if not shapes:
        raise InputError("no pieces given")
    for name, cells in shapes.items():
        try:
            cs = [(int(r), int(c)) for r, c in cells]
        except (TypeError, ValueError):
            raise InputError(f"piece {name!r}: cells must be (row, column) pairs") from None
        if not cs or len(set(cs)) != len(cs) or not _connected(cs):
            raise InputError(f"piece {name!r} must be a connected set of distinct cells")
        if any(abs(v) > MAX_REGION_CELLS for cell in cs for v in cell):
            raise InputError(f"piece {name!r} has a cell beyond {MAX_REGION_CELLS}")
        out[str(name)] = _normalise(cs)
    return out


def _connected(cells) -> bool:
    todo = [cells[0]]
    seen = {cells[0]}
    cellset = set(cells)
    while todo:
        r, c = todo.pop()
        for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if n in cellset and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cellset)


def parse_region(spec: str, *, source: str | None = None) -> frozenset[Cell]:
    """``"RxC"`` for a rectangle, or a drawing whose non-``.``, non-blank characters are cells.
    Regions of more than `MAX_REGION_CELLS` cells are refused before they are listed."""
    if not isinstance(spec, str):
        raise InputError(f"region must be text, got {type(spec).__name__}")
    where = source or "region"
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", spec)
    if m:
        if len(m.group(1)) > 12 or len(m.group(2)) > 12:
            raise InputError(f"region {spec.strip()[:40]!r} is too large")
        rows, cols = int(m.group(1)), int(m.group(2))
        if rows < 1 or cols < 1:
            raise InputError(f"region {spec.strip()!r} has no cells")
        if rows * cols > MAX_REGION_CELLS:
            raise InputError(
                f"region {spec.strip()!r} has {rows * cols} cells; at most {MAX_REGION_CELLS}"
            )
        return frozenset((r, c) for r in range(rows) for c in range(cols))
    cells = frozenset(
        (r, c)
        for r, line in enumerate(spec.splitlines())
        for c, ch in enumerate(line)
        if ch not in ". \t"
    )
    if not cells:
        raise InputError(
            f"{spec.strip()[:40]!r} is neither RxC nor a drawing with cells", path=where
        )
    if len(cells) > MAX_REGION_CELLS:
        raise InputError(f"the region has {len(cells)} cells; at most {MAX_REGION_CELLS}")
    return cells


def load_region(spec: str | frozenset) -> frozenset[Cell]:
    """A region from what a person gives: ``"RxC"``, a file holding a drawing, or a drawing
    (rows separated by newlines or ``/``). A set of (row, column) cells is checked.

    ```pycon
    >>> sorted(load_region("2x3"))
    [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    >>> sorted(load_region("XX./.XX"))  # a drawing: "." is no cell
    [(0, 0), (0, 1), (1, 1), (1, 2)]

    ```"""
    if isinstance(spec, (set, frozenset)):
        try:
            cells = frozenset((int(r), int(c)) for r, c in spec)
        except (TypeError, ValueError):
            raise InputError("region cells must be (row, column) pairs") from None
        if not cells or len(cells) > MAX_REGION_CELLS:
            raise InputError(f"a region needs 1 to {MAX_REGION_CELLS} cells, got {len(cells)}")
        return cells
    if not isinstance(spec, str):
        raise InputError(f"region must be RxC, a file or a drawing, got {spec!r:.40}")
    if re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", spec):
        return parse_region(spec)
    name, text = _file_or_text(spec, "region")
    if name is not None:
        return parse_region(text, source=name)
    return parse_region(text.replace("/", "\n"))


# the 8 symmetries of the square grid, as maps of (r, c)
_SYMMETRIES = (
    lambda r, c: (r, c),
    lambda r, c: (c, -r),
    lambda r, c: (-r, -c),
    lambda r, c: (-c, r),
    lambda r, c: (r, -c),
    lambda r, c: (-r, c),
    lambda r, c: (c, r),
    lambda r, c: (-c, -r),
)

_ORIENTATIONS = {"all": 8, "rotations": 4, "fixed": 1}


def _orientations(shape: tuple[Cell, ...], which: str) -> list[tuple[Cell, ...]]:
    out: list[tuple[Cell, ...]] = []
    for f in _SYMMETRIES[: _ORIENTATIONS[which]]:
        s = _normalise([f(r, c) for r, c in shape])
        if s not in out:
            out.append(s)
    return out


def _check_placements(
    shapes: dict[str, tuple[Cell, ...]], cells: frozenset[Cell], orientations: str
) -> None:
    """Refuse, before listing them, more placements than `MAX_PLACEMENTS` or than
    memory holds: the count of positions of each orientation in the region's bounding box
    is an upper bound known from the sizes alone."""
    height = max(r for r, _ in cells) - min(r for r, _ in cells) + 1
    width = max(c for _, c in cells) - min(c for _, c in cells) + 1
    bound = 0
    entries = 0
    for shape in shapes.values():
        for o in _orientations(shape, orientations):
            h = max(r for r, _ in o) + 1
            w = max(c for _, c in o) + 1
            spots = max(0, height - h + 1) * max(0, width - w + 1)
            bound += spots
            entries += spots * (len(o) + 1)
    if bound > MAX_PLACEMENTS:
        raise InputError(
            f"{len(shapes)} pieces in a {height}x{width} region have up to {bound:,} "
            f"placements; at most {MAX_PLACEMENTS:,} are listed"
        )
    check_memory(150 * entries, f"the placements of {len(shapes)} pieces")


def _region_symmetries(region: frozenset[Cell]) -> list:
    """The symmetries mapping the region onto itself (as functions on absolute cells)."""
    rmin = min(r for r, _ in region)
    cmin = min(c for _, c in region)
    found = []
    for f in _SYMMETRIES:
        image = [f(r, c) for r, c in region]
        dr = rmin - min(r for r, _ in image)
        dc = cmin - min(c for _, c in image)
        if frozenset((r + dr, c + dc) for r, c in image) == region:
            found.append(lambda r, c, f=f, dr=dr, dc=dc: (f(r, c)[0] + dr, f(r, c)[1] + dc))
    return found


@dataclass
class Packing:
    """A polyomino packing problem; ``problem`` is its exact-cover form, ``placements[k]`` the
    (piece, cells) of option ``k``; ``symmetry_factor`` the number of tilings each counted
    solution stands for (1 without symmetry breaking).

    ```pycon
    >>> from rompicapo.cover import solve
    >>> packing = Packing.build({"L": ((0, 0), (1, 0), (1, 1)), "I": ((0, 0),)}, "2x2")
    >>> len(packing.placements), packing.problem.primary
    (8, ['L', 'I', '0,0', '0,1', '1,0', '1,1'])
    >>> [packing.draw(s) for s in solve(packing.problem, limit=None).solutions]
    ['LI\\nLL', 'LL\\nLI', 'LL\\nIL', 'IL\\nLL']

    ```"""

    pieces: dict[str, tuple[Cell, ...]]
    """Each piece's name and cells."""
    region: frozenset[Cell]
    """The cells to cover."""
    problem: Problem
    """The exact-cover form: one primary item per piece and per cell."""
    placements: list[tuple[str, tuple[Cell, ...]]]
    """``placements[k]``: the piece and the cells of option ``k``."""
    symmetry_factor: int = 1
    """Tilings each counted solution stands for (1 without symmetry breaking)."""
    restricted_piece: str | None = None
    """The piece whose placements were restricted to break the region's symmetry, or None."""

    @classmethod
    def build(
        cls,
        pieces: str | dict[str, tuple[Cell, ...]] = "pentominoes",
        region: str | frozenset[Cell] = "6x10",
        *,
        orientations: str = "all",
        symmetry: bool = False,
        deadline: Deadline | None = None,
    ) -> Packing:
        """The exact-cover form of packing ``pieces`` into ``region``. ``deadline``: when it
        passes while the placements are listed, ``TimeoutError`` (a region of 100,000
        cells has millions of them)."""
        if orientations not in _ORIENTATIONS:
            raise InputError(f"orientations must be one of {', '.join(_ORIENTATIONS)}")
        shapes = load_pieces(pieces)
        cells = load_region(region)
        area = sum(len(s) for s in shapes.values())
        if area > len(cells):
            raise InputError(f"the pieces cover {area} cells but the region has only {len(cells)}")
        _check_placements(shapes, cells, orientations)
        all_placements: dict[str, list[tuple[Cell, ...]]] = {}
        # the region's extent, once (inside the loops it cost a pass over every cell for
        # each row: a region of 100,000 x 1 took minutes, its transpose a second)
        r_lo, r_hi = min(r for r, _ in cells), max(r for r, _ in cells)
        c_lo, c_hi = min(c for _, c in cells), max(c for _, c in cells)

        def look_at_the_clock() -> None:
            if deadline is not None and deadline.expired():
                raise TimeoutError("the time limit passed while listing the placements")

        for name, shape in shapes.items():
            spots = []
            for o in _orientations(shape, orientations):
                h = max(r for r, _ in o)
                w = max(c for _, c in o)
                for r0 in range(r_lo, r_hi - h + 1):
                    if r0 % 256 == 0:
                        look_at_the_clock()
                    for c0 in range(c_lo, c_hi - w + 1):
                        placed = tuple((r + r0, c + c0) for r, c in o)
                        if all(x in cells for x in placed):
                            spots.append(placed)
            all_placements[name] = spots
        factor, restricted = 1, None
        if symmetry and orientations == "all":
            group = _region_symmetries(cells)
            if len(group) > 1:
                restricted = _piece_to_restrict(all_placements, group)
                if restricted is not None:
                    factor = len(group)
                    keep = []
                    for spot in all_placements[restricted]:
                        orbit = [tuple(sorted(g(r, c) for r, c in spot)) for g in group]
                        if tuple(sorted(spot)) == min(orbit):
                            keep.append(spot)
                    all_placements[restricted] = keep
        sorted_cells = sorted(cells)
        names = [f"{r},{c}" for r, c in sorted_cells]
        problem = Problem(primary=list(shapes) + (names if area == len(cells) else []))
        if area < len(cells):
            problem = Problem(primary=list(shapes), secondary=names)
        placements = []
        for name, spots in all_placements.items():
            for k, spot in enumerate(spots):
                if k % 1024 == 0:
                    look_at_the_clock()
                problem.add_option([name, *(f"{r},{c}" for r, c in sorted(spot))])
                placements.append((name, tuple(sorted(spot))))
        return cls(shapes, cells, problem, placements, factor, restricted)

    def draw(self, solution: list[int]) -> str:
        """The region with each cell showing the letter of the piece on it (``.`` empty)."""
        rows = range(min(r for r, _ in self.region), max(r for r, _ in self.region) + 1)
        cols = range(min(c for _, c in self.region), max(c for _, c in self.region) + 1)
        where = {}
        for k in solution:
            name, spot = self.placements[k]
            for cell in spot:
                where[cell] = name
        return "\n".join(
            "".join(where.get((r, c), "." if (r, c) in self.region else " ") for c in cols).rstrip()
            for r in rows
        )


def _piece_to_restrict(placements: dict[str, list], group: list) -> str | None:
    """A piece none of whose placements is fixed by a nontrivial region symmetry; among
    those, the one with the fewest placements (restricting it prunes the most)."""
    best = None
    for name, spots in placements.items():
        if all(
            tuple(sorted(g(r, c) for r, c in spot)) != tuple(sorted(spot))
            for spot in spots
            for g in group[1:]
        ) and (best is None or len(spots) < len(placements[best])):
            best = name
    return best


@dataclass
class PackingResult(SearchResult):
    """``count`` solutions found (tilings counted once per symmetry class when
    ``symmetry_factor > 1``; ``total`` is then ``count * symmetry_factor``), ``drawings``
    the kept ones drawn with letters; ``listing`` when the call listed packings (a limit or
    ``keep_solutions``) rather than counting them all.

    ``to_dict()`` (``rompicapo polyomino --json``): ``pieces`` (how many), ``cells``,
    ``options``, ``solutions`` (the number found), ``symmetry_factor``, ``total`` (None when
    listing), ``drawings``, ``nodes``, ``solve_seconds``, plus ``count``, ``complete``,
    ``stopped``, ``jobs``, ``notes``, ``counts``, ``compile_seconds``, ``peak_bytes``.

    ```pycon
    >>> result = pack("pentominoes", "3x20", limit=1)
    >>> print(result.drawings[0])
    VVVNNNFTWYYYYZPPPXUU
    VLNNFFFTWWYZZZPPXXXU
    VLLLLFTTTWWZIIIIIXUU
    >>> result.count, result.stopped, result.verify()
    (1, 'limit', True)

    ```"""

    packing: Packing | None = None
    """The pieces, the region and their exact-cover problem."""
    count: int = 0
    """Packings found (once per symmetry class when the region's symmetry was used)."""
    solutions: list[list[int]] = field(default_factory=list)
    """The packings kept, each a list of placement numbers (see ``drawings``)."""
    complete: bool = True
    """True when every packing was counted."""
    stopped: str | None = None
    """Why the count ended early, or None."""
    listing: bool = False
    """True when the call listed packings rather than counting them all."""
    jobs: int = 1
    """Workers that counted."""
    notes: list[str] = field(default_factory=list)
    """Remarks for the user."""

    _dict_exclude = ("packing", "solutions", "listing")

    @property
    def total(self) -> int:
        return self.count * (self.packing.symmetry_factor if self.packing else 1)

    @property
    def drawings(self) -> list[str]:
        return [self.packing.draw(s) for s in self.solutions] if self.packing else []

    def _repr_svg_(self) -> str | None:
        """Jupyter shows the first kept packing, one colour per piece (None when counting)."""
        from rompicapo.cover.render import packing_svg

        if self.packing is None or not self.solutions:
            return None
        drawing = self.packing.draw(self.solutions[0])
        pieces = len(self.solutions[0])
        title = f"a packing of {pieces} pieces, one colour and letter per piece" + (
            f" (the first of {len(self.solutions)} kept)" if len(self.solutions) > 1 else ""
        )
        return packing_svg(drawing, title=title)

    def _repr_html_(self) -> str | None:
        """Jupyter shows the count when no packing was kept (the picture otherwise)."""
        from html import escape

        return None if self.solutions else f"<pre>{escape(self.report())}</pre>"

    def verify(self) -> bool:
        """True when every kept packing is a tiling of the region by the pieces (checked
        independently from the drawings); NotVerifiable when none was kept (a count)."""
        from rompicapo.cover.verify import tiling_ok

        if self.packing is None or not self.solutions:
            raise NotVerifiable("no packing was kept, so there is nothing to check")
        return all(tiling_ok(self.packing.pieces, self.packing.region, d) for d in self.drawings)

    def _dict_extra(self) -> dict[str, Any]:
        p = self.packing
        return {
            "pieces": len(p.pieces) if p else 0,
            "cells": len(p.region) if p else 0,
            "options": len(p.problem.options) if p else 0,
            "solutions": self.count,
            "symmetry_factor": p.symmetry_factor if p else 1,
            "total": None if self.listing else self.total,
            "drawings": self.drawings,
            "nodes": self.counts.get("nodes", 0),
        }

    def report(self) -> str:
        """The kept packings drawn, then how many there are."""
        out = []
        for k, drawing in enumerate(self.drawings, start=1):
            out += [f"packing {k}:", drawing, ""]
        factor = self.packing.symmetry_factor if self.packing else 1
        bound = (
            "" if self.complete or self.listing else f" (stopped: {self.stopped}; a lower bound)"
        )
        if self.listing:
            out.append(f"{self.count} packing{'s' * (self.count != 1)} shown")
        elif factor > 1:
            out.append(
                f"{self.total} packings ({self.count} up to the region's {factor} symmetries, "
                f"piece {self.packing.restricted_piece} restricted){bound}; "
                f"{self.solve_seconds:.3f} s"
            )
        else:
            out.append(f"{self.count} packings{bound}; {self.solve_seconds:.3f} s")
        return "\n".join(out)


@renamed_keywords(keep="keep_solutions")
def pack(
    pieces: str | dict = "pentominoes",
    region: str | frozenset = "6x10",
    *,
    orientations: str = "all",
    symmetry: bool = True,
    limit: int | None = None,
    keep_solutions: int | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: ProgressCallback | None = None,
) -> PackingResult:
    """Count the packings, or list the first ``limit`` of them.

    ``keep_solutions`` (formerly ``keep``) is how many packings to keep: by default all that
    are found when there is a ``limit``, none when counting them all.

    ``pieces``: a set name, a file, a drawing or a dict of shapes
    ([`load_pieces()`][rompicapo.cover.load_pieces]); ``region``: ``"RxC"``, a file, a drawing or a
    set of cells ([`load_region()`][rompicapo.cover.load_region]). Counting runs on ``jobs`` workers
    (None = all cores) or a Dask ``scheduler``, as
    [`rompicapo.cover.count()`][rompicapo.cover.count] does; ``time_limit``, ``node_limit`` and
    ``progress`` are the run contract's. Everything is checked before the placements are listed.

    ```pycon
    >>> result = pack("pentominoes", "3x20", jobs=1)  # the twelve pentominoes in a 3x20 box
    >>> result.count, result.packing.symmetry_factor, result.total
    (2, 4, 8)
    >>> pack("tetrominoes", "4x5", jobs=1).count  # the five tetrominoes never fill a 4x5 box
    0

    ```"""
    from rompicapo.cover.engine import solutions_to_keep
    from rompicapo.cover.solve import count, solve

    deadline = Deadline(check_time_limit(time_limit))
    limit = check_limit(limit)
    keep = solutions_to_keep(limit, keep_solutions)
    check_node_limit(node_limit)
    if jobs is not None:
        check_int(jobs, "jobs", minimum=1, maximum=4096)
    if isinstance(scheduler, str):
        parse_scheduler_address(scheduler)
    if not isinstance(symmetry, bool):
        raise InputError(f"symmetry must be True or False, got {symmetry!r}")
    listing = keep > 0 or limit is not None
    if listing and scheduler is not None:
        raise InputError(
            "a scheduler counts packings; it does not list them (limit, keep_solutions)"
        )
    try:
        packing = Packing.build(
            pieces, region, orientations=orientations, symmetry=symmetry, deadline=deadline
        )
    except TimeoutError:  # no placement list yet: nothing counted
        return PackingResult(
            complete=False, stopped="time", listing=listing,
            notes=["the time limit passed while the placements were listed"],
            solve_seconds=deadline.elapsed(),
        )  # fmt: skip
    # the time limit covers listing the placements too
    left = None if time_limit is None else max(deadline.remaining(), 1e-6)
    common = {"time_limit": left, "node_limit": node_limit, "progress": progress}
    if not listing:
        r = count(packing.problem, jobs=jobs, scheduler=scheduler, **common)
    else:
        r = solve(packing.problem, limit=limit, keep_solutions=keep, **common)
    return PackingResult(
        packing=packing,
        count=r.count,
        solutions=r.solutions,
        complete=r.complete,
        stopped=r.stopped,
        listing=listing,
        jobs=r.jobs,
        notes=r.notes,
        solve_seconds=r.solve_seconds,
        compile_seconds=r.compile_seconds,
        peak_bytes=r.peak_bytes,
        counts=r.counts,
    )
