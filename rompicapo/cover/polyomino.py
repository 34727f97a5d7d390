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

import re
from dataclasses import dataclass, field

from rompicapo.common import InputError, SearchResult
from rompicapo.cover.problem import Problem

__all__ = ["PIECE_SETS", "Packing", "PackingResult", "pack", "parse_pieces", "parse_region"]

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


def parse_pieces(spec: str) -> dict[str, tuple[Cell, ...]]:
    """Pieces from a set name or a drawing (one letter per piece); shapes normalised."""
    text = PIECE_SETS.get(spec.strip().lower(), spec)
    cells: dict[str, list[Cell]] = {}
    for r, line in enumerate(text.splitlines()):
        for c, ch in enumerate(line):
            if ch in ". \t":
                continue
            if not (ch.isalnum()):
                raise InputError(
                    f"pieces: bad character {ch!r} (letters mark pieces, '.' is empty)"
                )
            cells.setdefault(ch, []).append((r, c))
    if not cells:
        raise InputError("pieces: no piece drawn (and not one of " + ", ".join(PIECE_SETS) + ")")
    pieces = {}
    for name, cs in cells.items():
        if not _connected(cs):
            raise InputError(f"pieces: piece {name!r} is not connected")
        pieces[name] = _normalise(cs)
    return pieces


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


def parse_region(spec: str) -> frozenset[Cell]:
    """``"RxC"`` for a rectangle, or a drawing whose non-``.``, non-blank characters are cells."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", spec)
    if m:
        rows, cols = int(m.group(1)), int(m.group(2))
        if rows < 1 or cols < 1:
            raise InputError(f"region {spec!r} has no cells")
        return frozenset((r, c) for r in range(rows) for c in range(cols))
    cells = frozenset(
        (r, c)
        for r, line in enumerate(spec.splitlines())
        for c, ch in enumerate(line)
        if ch not in ". \t"
    )
    if not cells:
        raise InputError(f"region {spec!r} is neither RxC nor a drawing with cells")
    return cells


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
    solution stands for (1 without symmetry breaking)."""

    pieces: dict[str, tuple[Cell, ...]]
    region: frozenset[Cell]
    problem: Problem
    placements: list[tuple[str, tuple[Cell, ...]]]
    symmetry_factor: int = 1
    restricted_piece: str | None = None

    @classmethod
    def build(
        cls,
        pieces: str | dict[str, tuple[Cell, ...]] = "pentominoes",
        region: str | frozenset[Cell] = "6x10",
        *,
        orientations: str = "all",
        symmetry: bool = False,
    ) -> Packing:
        if orientations not in _ORIENTATIONS:
            raise InputError(f"orientations must be one of {', '.join(_ORIENTATIONS)}")
        shapes = parse_pieces(pieces) if isinstance(pieces, str) else dict(pieces)
        cells = parse_region(region) if isinstance(region, str) else frozenset(region)
        area = sum(len(s) for s in shapes.values())
        if area > len(cells):
            raise InputError(f"the pieces cover {area} cells but the region has only {len(cells)}")
        all_placements: dict[str, list[tuple[Cell, ...]]] = {}
        for name, shape in shapes.items():
            spots = []
            for o in _orientations(shape, orientations):
                h = max(r for r, _ in o)
                w = max(c for _, c in o)
                for r0 in range(min(r for r, _ in cells), max(r for r, _ in cells) - h + 1):
                    for c0 in range(min(c for _, c in cells), max(c for _, c in cells) - w + 1):
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
            for spot in spots:
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
    the kept ones drawn with letters."""

    packing: Packing | None = None
    count: int = 0
    solutions: list[list[int]] = field(default_factory=list)
    complete: bool = True

    @property
    def total(self) -> int:
        return self.count * (self.packing.symmetry_factor if self.packing else 1)

    @property
    def drawings(self) -> list[str]:
        return [self.packing.draw(s) for s in self.solutions] if self.packing else []

    def verify(self) -> bool:
        from rompicapo.cover.verify import tiling_ok

        assert self.packing is not None
        return all(tiling_ok(self.packing.pieces, self.packing.region, d) for d in self.drawings)


def pack(
    pieces: str | dict = "pentominoes",
    region: str | frozenset = "6x10",
    *,
    orientations: str = "all",
    symmetry: bool = True,
    limit: int | None = None,
    keep: int = 0,
    jobs: int = 1,
    scheduler: str | None = None,
) -> PackingResult:
    """Count (``limit=None``) or list packings; keep the first ``keep`` solutions."""
    from rompicapo.cover.solve import count, solve

    packing = Packing.build(pieces, region, orientations=orientations, symmetry=symmetry)
    if keep == 0 and limit is None:
        r = count(packing.problem, jobs=jobs, scheduler=scheduler)
    else:
        r = solve(packing.problem, limit=limit, keep=keep)
    return PackingResult(
        packing=packing,
        count=r.count,
        solutions=r.solutions,
        complete=r.complete,
        solve_seconds=r.solve_seconds,
        compile_seconds=r.compile_seconds,
        peak_bytes=r.peak_bytes,
        counts=r.counts,
    )
