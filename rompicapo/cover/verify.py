"""Independent verifiers: they share no code with the solvers and trust nothing they return.

Each function takes plain data (a problem's lists of items and options, a grid as a list of
rows, queen positions, a drawing of a tiling) and checks the answer from first principles.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

__all__ = [
    "cover_violations",
    "is_exact_cover",
    "langford_ok",
    "queens_ok",
    "sudoku_ok",
    "tiling_ok",
]


def cover_violations(problem: Any, solution: Sequence[int]) -> list[str]:
    """What is wrong with ``solution`` (option numbers) for ``problem``; empty if nothing.

    ``problem`` needs ``primary``, ``secondary``, ``bounds`` (primary item -> (lo, hi)) and
    ``options`` (tuples of ``(item, colour or None)``). The rules: every primary item is
    covered between lo and hi times (default exactly once); every secondary item at most once,
    or any number of times if every use gives it the same colour; no option chosen twice.
    """
    wrong: list[str] = []
    options = problem.options
    if len(set(solution)) != len(solution):
        wrong.append("an option is chosen twice")
    uses: Counter[Hashable] = Counter()
    colours: dict[Hashable, set] = {}
    for k in solution:
        if not 0 <= k < len(options):
            wrong.append(f"option {k} does not exist")
            continue
        for item, colour in options[k]:
            uses[item] += 1
            colours.setdefault(item, set()).add(colour)
    for item in problem.primary:
        lo, hi = problem.bounds.get(item, (1, 1))
        if not lo <= uses[item] <= hi:
            wrong.append(f"primary item {item!r} covered {uses[item]} times, not {lo}..{hi}")
    for item in problem.secondary:
        if uses[item] > 1:
            cs = colours[item]
            if None in cs or len(cs) > 1:
                wrong.append(f"secondary item {item!r} used {uses[item]} times, colours {cs}")
    known = set(problem.primary) | set(problem.secondary)
    for item in uses:
        if item not in known:
            wrong.append(f"unknown item {item!r}")
    return wrong


def is_exact_cover(problem: Any, solution: Sequence[int]) -> bool:
    """True when `cover_violations()` finds nothing."""
    return not cover_violations(problem, solution)


def queens_ok(n: int, cols: Sequence[int]) -> bool:
    """``cols[i]`` is the column of the queen in row i: n queens, none attacking another."""
    if len(cols) != n or sorted(cols) != list(range(n)):
        return False
    return (
        len({i + c for i, c in enumerate(cols)}) == n
        and len({i - c for i, c in enumerate(cols)}) == n
    )


def langford_ok(n: int, seq: Sequence[int]) -> bool:
    """Each digit 1..n appears twice in ``seq``, the two copies of i with i digits between."""
    if len(seq) != 2 * n:
        return False
    for d in range(1, n + 1):
        where = [k for k, x in enumerate(seq) if x == d]
        if len(where) != 2 or where[1] - where[0] != d + 1:
            return False
    return True


def _canonical(cells: Sequence[tuple[int, int]]) -> tuple:
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def _congruent(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]]) -> bool:
    target = _canonical(b)
    for flip in (False, True):
        cells = [(r, -c) if flip else (r, c) for r, c in a]
        for _ in range(4):
            if _canonical(cells) == target:
                return True
            cells = [(c, -r) for r, c in cells]
    return False


def tiling_ok(pieces: dict, region, drawing: str) -> bool:
    """``drawing`` (rows of letters, ``.``/blank for empty) places every piece exactly once,
    each congruent to its shape (rotations and reflections allowed), inside ``region``; when
    the pieces' area equals the region's, every region cell is covered."""
    found: dict[str, list[tuple[int, int]]] = {}
    rmin = min(r for r, _ in region)
    cmin = min(c for _, c in region)
    for r, line in enumerate(drawing.splitlines()):
        for c, ch in enumerate(line):
            if ch not in ". ":
                found.setdefault(ch, []).append((r + rmin, c + cmin))
    if set(found) != set(pieces):
        return False
    covered = [cell for cells in found.values() for cell in cells]
    if not set(covered) <= set(region):
        return False
    if sum(len(s) for s in pieces.values()) == len(region) and set(covered) != set(region):
        return False
    return all(_congruent(found[name], list(shape)) for name, shape in pieces.items())


def sudoku_ok(
    puzzle: Sequence[Sequence[int]],
    solution: Sequence[Sequence[int]],
    box: tuple[int, int],
    *,
    diagonals: bool = False,
    regions: Sequence[Sequence[int]] | None = None,
) -> bool:
    """``solution`` is a complete grid (digits 1..N, N = box rows * box columns) whose rows,
    columns and boxes (or jigsaw ``regions``) and, with ``diagonals``, both main diagonals hold
    every digit once, and which agrees with every given (nonzero) cell of ``puzzle``."""
    bh, bw = box
    n = bh * bw
    if len(solution) != n or any(len(row) != n for row in solution):
        return False
    full = set(range(1, n + 1))
    units: list[list[tuple[int, int]]] = []
    units += [[(r, c) for c in range(n)] for r in range(n)]
    units += [[(r, c) for r in range(n)] for c in range(n)]
    if regions is None:
        units += [
            [(br + i, bc + j) for i in range(bh) for j in range(bw)]
            for br in range(0, n, bh)
            for bc in range(0, n, bw)
        ]
    else:
        by_region: dict[int, list[tuple[int, int]]] = {}
        for r in range(n):
            for c in range(n):
                by_region.setdefault(regions[r][c], []).append((r, c))
        units += list(by_region.values())
    if diagonals:
        units += [[(i, i) for i in range(n)], [(i, n - 1 - i) for i in range(n)]]
    for unit in units:
        if {solution[r][c] for r, c in unit} != full or len(unit) != n:
            return False
    return all(puzzle[r][c] in (0, solution[r][c]) for r in range(n) for c in range(n))
