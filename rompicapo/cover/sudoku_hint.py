"""The next logical step of a Sudoku, explained: what a person would do next.

`next_step()` looks, in this order, for a naked single (a cell with one candidate left),
a hidden single (a digit with one place left in a row, column or box) and a locked candidate
(pointing: a digit of a box confined to one row or column of it, removed from the rest of that
line; claiming: a digit of a row or column confined to one box, removed from the rest of that
box). Candidates are plain Python sets, eliminated by the givens and by the locked candidates
found so far; a step is only ever a consequence of the rules, so on a puzzle with a unique
solution the digit a single places is the solution's digit.

Any box size (``box = (rows, cols)``); diagonal and jigsaw variants are not handled (a hint on
them is refused by the caller).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rompicapo.common import InputError

__all__ = ["Step", "candidates", "next_step"]


@dataclass
class Step:
    """One step: ``kind`` ``"naked single"``, ``"hidden single"``, ``"pointing"``,
    ``"claiming"`` or ``"contradiction"``; ``cell`` (r, c) and ``digit`` for a single;
    ``eliminations`` [(r, c, digit), ...] for a locked candidate; ``explanation`` in words
    (rows and columns counted from 1)."""

    kind: str
    explanation: str
    cell: tuple[int, int] | None = None
    digit: int | None = None
    eliminations: list[tuple[int, int, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "explanation": self.explanation,
            "cell": list(self.cell) if self.cell else None,
            "digit": self.digit,
            "eliminations": [list(e) for e in self.eliminations],
        }


def _units(n: int, box: tuple[int, int]) -> list[tuple[str, list[tuple[int, int]]]]:
    bh, bw = box
    units: list[tuple[str, list[tuple[int, int]]]] = []
    for r in range(n):
        units.append((f"row {r + 1}", [(r, c) for c in range(n)]))
    for c in range(n):
        units.append((f"column {c + 1}", [(r, c) for r in range(n)]))
    for k in range(n):
        r0, c0 = (k // (n // bw)) * bh, (k % (n // bw)) * bw
        cells = [(r0 + i, c0 + j) for i in range(bh) for j in range(bw)]
        units.append((f"box {k + 1}", cells))
    return units


def _box_of(r: int, c: int, n: int, box: tuple[int, int]) -> int:
    return (r // box[0]) * (n // box[1]) + c // box[1]


def candidates(grid, box: tuple[int, int]) -> list[list[set[int]]]:
    """The digits each empty cell can still hold given the filled cells (empty set for a
    filled cell)."""
    n = len(grid)
    units = _units(n, box)
    out = [[set() if grid[r][c] else set(range(1, n + 1)) for c in range(n)] for r in range(n)]
    for _, cells in units:
        seen = {grid[r][c] for r, c in cells if grid[r][c]}
        for r, c in cells:
            out[r][c] -= seen
    return out


def _check(grid, box) -> int:
    n = len(grid)
    if n == 0 or any(len(row) != n for row in grid):
        raise InputError("a Sudoku grid is N rows of N cells")
    if box[0] * box[1] != n:
        raise InputError(f"boxes of {box[0]}x{box[1]} do not tile a {n}x{n} grid")
    for row in grid:
        for v in row:
            if not isinstance(v, int) or not 0 <= v <= n:
                raise InputError(f"cells hold 0..{n}, got {v!r}")
    return n


def next_step(grid, box: tuple[int, int] = (3, 3)) -> Step | None:
    """The next logical step (see the module docstring), or None when none of these
    techniques applies (the puzzle then needs a harder technique or a guess). A cell left
    without candidates, or a digit without a place in a unit, is a ``"contradiction"``."""
    n = _check(grid, tuple(box))
    box = (int(box[0]), int(box[1]))
    units = _units(n, box)
    for _, cells in units:
        digits = [grid[r][c] for r, c in cells if grid[r][c]]
        if len(digits) != len(set(digits)):
            return Step("contradiction", "a digit appears twice in one unit of the givens")
    cand = candidates(grid, box)
    # Locked candidates only remove candidates (the grid cannot show that), so they are
    # applied here and the search goes on: the step shown is the first single they reveal,
    # explained with the eliminations that led to it, or the first locked candidate alone.
    first: Step | None = None
    removed: list[tuple[int, int, int]] = []
    reasons: list[str] = []
    while True:
        step = _single(grid, cand, units, n)
        if step is not None:
            if removed and step.kind != "contradiction":
                step.explanation = "; ".join(reasons) + ". Then " + step.explanation
                step.eliminations = removed
            return step
        locked = _locked(grid, cand, units, n, box)
        if locked is None:
            return first
        if first is None:
            first = locked
        removed += locked.eliminations
        reasons.append(f"{locked.kind}: {locked.explanation}")
        for r, c, d in locked.eliminations:
            cand[r][c].discard(d)


def _single(grid, cand, units, n) -> Step | None:
    for r in range(n):
        for c in range(n):
            if not grid[r][c] and not cand[r][c]:
                return Step(
                    "contradiction",
                    f"the cell at row {r + 1}, column {c + 1} has no candidate left",
                    cell=(r, c),
                )
    for r in range(n):
        for c in range(n):
            if not grid[r][c] and len(cand[r][c]) == 1:
                d = next(iter(cand[r][c]))
                return Step(
                    "naked single",
                    f"row {r + 1}, column {c + 1} can only hold {_sym(d)}: every other digit "
                    "already appears in its row, column or box",
                    cell=(r, c),
                    digit=d,
                )
    for name, cells in units:
        present = {grid[r][c] for r, c in cells if grid[r][c]}
        for d in range(1, n + 1):
            if d in present:
                continue
            spots = [(r, c) for r, c in cells if d in cand[r][c]]
            if not spots:
                return Step("contradiction", f"{_sym(d)} has no place left in {name}")
            if len(spots) == 1:
                r, c = spots[0]
                return Step(
                    "hidden single",
                    f"in {name}, {_sym(d)} fits only at row {r + 1}, column {c + 1}",
                    cell=(r, c),
                    digit=d,
                )
    return None


def _locked(grid, cand, units, n, box) -> Step | None:
    lines = [u for u in units if not u[0].startswith("box")]
    boxes = [u for u in units if u[0].startswith("box")]
    # pointing: within a box, d is confined to one row or column
    for bname, bcells in boxes:
        for d in range(1, n + 1):
            spots = [(r, c) for r, c in bcells if d in cand[r][c]]
            if len(spots) < 2:
                continue
            for axis, word in ((0, "row"), (1, "column")):
                if len({s[axis] for s in spots}) != 1:
                    continue
                k = spots[0][axis]
                line = [(k, j) if axis == 0 else (j, k) for j in range(n)]
                gone = [(r, c, d) for r, c in line if (r, c) not in bcells and d in cand[r][c]]
                if gone:
                    return Step(
                        "pointing",
                        f"in {bname}, {_sym(d)} can only go in {word} {k + 1}, so "
                        f"{_sym(d)} is removed from the rest of {word} {k + 1} ({_cells(gone)})",
                        digit=d,
                        eliminations=gone,
                    )
    # claiming (box-line reduction): within a row or column, d is confined to one box
    for lname, lcells in lines:
        for d in range(1, n + 1):
            spots = [(r, c) for r, c in lcells if d in cand[r][c]]
            if len(spots) < 2:
                continue
            bs = {_box_of(r, c, n, box) for r, c in spots}
            if len(bs) != 1:
                continue
            b = bs.pop()
            bname, bcells = boxes[b]
            gone = [(r, c, d) for r, c in bcells if (r, c) not in lcells and d in cand[r][c]]
            if gone:
                return Step(
                    "claiming",
                    f"in {lname}, {_sym(d)} can only go in {bname}, so {_sym(d)} is removed "
                    f"from the rest of {bname} ({_cells(gone)})",
                    digit=d,
                    eliminations=gone,
                )
    return None


def _sym(d: int) -> str:
    # digits as the grid writes them: 1-9, then A, B, ... (16x16 uses 1-9 and A-G)
    return "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[d - 1]


def _cells(gone: list[tuple[int, int, int]]) -> str:
    return ", ".join(f"r{r + 1}c{c + 1}" for r, c, _ in gone)
