"""Proofs that no path exists: the exact facts checked before (or after) a search.

- the lattice the moves generate (every cell in one class of it, or two cells never joined);
- the colouring of leapers whose every move changes colour (the knight): a path alternates the
  two colours, so their counts and the start's colour decide;
- Pósa's argument on boards with 4 rows (or columns) for such leapers;
- connectivity and cells with a single neighbour (the structure check, O(cells) in the kernel).

Each returns the proof as a sentence for the user, or ``""`` when it proves nothing.
"""

from __future__ import annotations

import math

from rompicapo.paths import _kernel
from rompicapo.paths.moves import MoveSet

__all__ = [
    "NARROW_SIDE",
    "STRUCTURE_CELLS",
    "board_obstruction",
    "colour_obstruction",
    "four_rows_obstruction",
    "in_lattice",
    "lattice_obstruction",
    "prove_by_structure",
    "structure_obstruction",
]


def board_obstruction(
    rows: int, cols: int, start: tuple[int, int], mset: MoveSet, closed: bool
) -> str:
    """The first cheap proof that no path (closed tour: ``closed``) from ``start`` exists, or
    ``""``: no look at the cells, so it runs before anything is allocated."""
    if rows * cols == 1:
        if closed:
            return "a closed tour ends one move from its start, and a 1x1 board has no move"
        return ""
    return (
        lattice_obstruction(rows, cols, mset)
        or colour_obstruction(rows, cols, start, mset, closed)
        or four_rows_obstruction(rows, cols, mset, closed, start)
        or lattice_obstruction(rows, cols, mset, fitting=True)
    )


def in_lattice(moves: list[tuple[int, int]], step: tuple[int, int]) -> bool:
    """Whether ``step`` is a sum of the moves (with signs): a member of the lattice they
    generate. The lattice's basis in echelon form is (a, b), (0, d): a is the gcd of the row
    steps, and d the gcd of the column steps left once (a, b) has taken each row step away."""
    a, b = 0, 0
    for r, c in moves:  # (a, b) <- a combination of (a, b) and (r, c) with row gcd(a, r)
        g, x, y = _extended_gcd(a, r)
        a, b = g, x * b + y * c
    d = 0
    for r, c in moves:
        d = math.gcd(d, c - (r // a) * b if a else c)
    p, q = step
    if a == 0:
        return p == 0 and (q % d == 0 if d else q == 0)
    if p % a:
        return False
    rest = q - (p // a) * b
    return rest % d == 0 if d else rest == 0


def _extended_gcd(a: int, b: int) -> tuple[int, int, int]:
    """(g, x, y) with g = gcd(a, b) >= 0 and a×x + b×y = g."""
    x0, y0, x1, y1 = 1, 0, 0, 1
    while b:
        q, a, b = a // b, b, a % b
        x0, x1 = x1, x0 - q * x1
        y0, y1 = y1, y0 - q * y1
    return (a, x0, y0) if a >= 0 else (-a, -x0, -y0)


def lattice_obstruction(rows: int, cols: int, moves: MoveSet, fitting: bool = False) -> str:
    """The moves join only cells whose difference lies in the lattice they generate. The
    board's cells all lie in one class exactly when each of its unit steps, (0, 1) with 2+
    columns and (1, 0) with 2+ rows, is in the lattice; else (0, 0) and that neighbour are
    never joined (a 1 x n board needs only (0, 1), so (0, 1) alone serves it). With
    ``fitting`` only the moves that fit on the board count: on 1 x 10**9 the caselle moves that
    can be made are (0, +-3), and the proof takes no look at the 10**9 cells (the structure
    check would, for seconds past any time limit)."""
    usable = list(moves.moves)
    if fitting:
        usable = [(r, c) for r, c in usable if abs(r) < rows and abs(c) < cols]
    fits = "" if len(usable) == len(moves.moves) else f" that fit on a {rows}x{cols} board"
    for step, needed in (((0, 1), cols > 1), ((1, 0), rows > 1)):
        if needed and not in_lattice(usable, step):
            return (
                f"no sum of the {moves.name} moves{fits} is {step}, so the cells (0, 0) and "
                f"{step} are never on one path (the lattice of the moves splits the board into "
                "classes)"
            )
    return ""


# The O(cells) connectivity and dead-end check costs about as much as the walk itself, so it
# runs before the search only where a disconnected board is plausible (small boards, and
# narrow ones: every caselle board with both sides >= 5 is connected); elsewhere it runs only
# if the search gives up, to turn "not found" into a proof when there is one.
STRUCTURE_CELLS = 1 << 16
NARROW_SIDE = 8


def prove_by_structure(result, start_flat, dr, dc, queue, seen) -> bool:
    """Run the structure check (``queue`` and ``seen`` are scratch arrays of the board's size);
    on an obstruction, mark ``result`` impossible with it as the proof and return True."""
    seen[:] = 0
    why = structure_obstruction(
        result.rows, result.cols, start_flat, dr, dc, queue, seen, result.closed
    )
    if why:
        result.status = "impossible"
        result.proof = why
    return bool(why)


def structure_obstruction(rows, cols, start_flat, dr, dc, queue, seen, closed=False) -> str:
    reached, leaves, start_leaf = _kernel.board_structure(
        rows, cols, dr, dc, start_flat, queue, seen
    )
    n = rows * cols
    if reached < n:
        return (
            f"only {reached} of the {n} cells can be reached from the start "
            f"(the move graph is not connected)"
        )
    if closed and n > 2 and leaves:
        return (
            f"{leaves} cells have a single neighbour, and a closed tour enters and leaves each cell"
        )
    # A cell with one neighbour must be an end of the path; the start is one end already.
    free_ends = leaves - (1 if start_leaf else 0)
    if n > 2 and free_ends > 1:
        return (
            f"{leaves} cells have a single neighbour and each must be an end of the path, "
            f"but a path from the given start has only one more end"
        )
    return ""


def colour_obstruction(rows: int, cols: int, start: tuple[int, int], moves: MoveSet, closed: bool):
    """For a move set whose moves all change r + c by an odd amount, a path alternates the two
    colours of the chessboard colouring: return why no path can exist, or ''."""
    if not all((dr + dc) % 2 for dr, dc in moves.moves):
        return ""
    n = rows * cols
    even = (n + 1) // 2  # cells with (r + c) even: the colour of (0, 0)
    odd = n // 2
    start_even = (start[0] + start[1]) % 2 == 0
    if closed and n > 1 and even != odd:
        return (
            f"every {moves.name} move changes the colour of the cell; a closed tour alternates "
            f"colours, but this board has {even} cells of one colour and {odd} of the other"
        )
    if even > odd and not start_even:
        return (
            f"every {moves.name} move changes the colour of the cell, so a path alternates "
            f"colours; this board has {even} cells of the colour of (0, 0) and {odd} of the "
            f"other, so a path must start on the colour of (0, 0), and ({start[0]}, {start[1]}) "
            f"is not"
        )
    return ""


def _outer_middle_axes(rows: int, cols: int, mset: MoveSet) -> list[str]:
    """``"row"`` and/or ``"column"``: the board has 4 of them, every move that fits across
    them goes from an outer one (first or last) to one of the two middle ones, and every move
    changes the colour of the cell (the knight; any leaper with |d| in {1, 2} across 4 and
    dr + dc odd). Pósa's argument below needs exactly this; 4 x 4 has both axes."""
    axes = []
    for axis, side in (("row", rows), ("column", cols)):
        if side != 4:
            continue
        across = [abs(m[0] if axis == "row" else m[1]) for m in mset.moves]
        fit = [(d, m) for d, m in zip(across, mset.moves, strict=True) if d <= 3]
        if fit and all(d in (1, 2) and (m[0] + m[1]) % 2 for d, m in fit):
            axes.append(axis)
    return axes


def four_rows_obstruction(
    rows: int, cols: int, mset: MoveSet, closed: bool, start: tuple[int, int] = (0, 0)
) -> str:
    """Pósa's argument on 4 x n (and n x 4): no closed tour, and no open path from a cell of
    the two middle rows.

    Every move from an outer row lands in a middle row, so the 2n outer cells are pairwise
    non-adjacent. On a path of 4n cells that starts (or ends) in a middle row they are 2n
    non-consecutive places among the other 4n - 1, which forces every other place: all of one
    parity, hence (every move changes colour) all of one colour. But the two outer rows hold
    n cells of each colour (their colourings are opposite: they are 3 rows apart). On a closed
    tour the same holds for any cut of it. So a path ends in outer rows at both ends.
    """
    for axis in _outer_middle_axes(rows, cols, mset):
        if closed:
            return (
                f"Pósa: on a board with 4 {axis}s every {mset.name} move from an outer {axis} "
                f"(first or last) lands in the two middle {axis}s, which hold as many cells; so "
                "a closed tour alternates outer and middle cells, as it alternates colours, and "
                "all outer cells would have one colour, but they have both"
            )
        if (start[0] if axis == "row" else start[1]) not in (1, 2):
            continue
        n = cols if axis == "row" else rows
        return (
            f"Pósa: on a board with 4 {axis}s every {mset.name} move from an outer {axis} "
            f"(first or last) lands in one of the two middle {axis}s, so no two of the {2 * n} "
            f"outer cells are consecutive on a path; a path of {4 * n} cells that starts in a "
            f"middle {axis} must then put them at every other place of its last {4 * n - 1}, "
            "all at places of one parity, hence all of one colour (every move changes colour), "
            f"but the outer {axis}s hold {n} cells of each colour; so every open path starts "
            f"and ends in an outer {axis}, and ({start[0]}, {start[1]}) is in a middle {axis}"
        )
    return ""
