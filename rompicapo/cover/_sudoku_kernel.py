"""numba kernel: a bitboard solver for classic 9x9 Sudoku, one call for a whole batch.

Why not dancing links here: DLX-style C solvers reach about 25,000 puzzles/s on the 17-clue
set; the target is twice that, and per-puzzle Python overhead must vanish. So the 9x9 fast
path keeps, per cell, a 9-bit mask of candidate digits and alternates two deductions until
neither applies:

- *naked single*: a cell with one candidate gets that digit (removed from its 20 peers);
- *hidden single*: a digit possible in only one cell of a row, column or box goes there
  (found for all nine digits of a unit at once with the "seen once / seen twice" masks);

and, when singles stall, *locked candidates* (box-line interactions); then guesses on an
unsolved cell with the fewest candidates (the MRV rule, as DLX does; ties between
two-candidate cells go to the one most peers interact with), with one saved copy of the 81
masks per guess level. Counting stops at ``max_solutions``.

Speed notes (hardest-1106, CPU puzzles/s under a load of 11 on 2 cores): the tables are
unsigned (``uint8``), so numba indexes without its negative-index test (1,936 -> 2,214); naked
singles are pushed on a queue by the placement that creates them instead of found by scanning
the 81 cells every pass (-> 2,393); the branching cell's score reads a per-pass table of
two-candidate cells (-> 2,442); the grid keeps a placed digit's bit, so the hidden-single
scan of the 27 units runs without branches, and rows and columns are walked by arithmetic
(-> 3,208). The search is unchanged: the same guesses, the same counts.

Puzzles and solutions are flat ``uint8[81]``, row-major, 0 = empty. Counts per puzzle:
``guesses`` (digits tried on a branching cell) and ``passes`` (rounds of deduction), the
search-effort measures that the difficulty rating uses.
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit

FULL = 0x1FF  # the nine candidate bits


def tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(peers[81,20], units[27,9], popcount[512], lowest digit[512]) for the 9x9 grid."""
    units = []
    units += [[r * 9 + c for c in range(9)] for r in range(9)]
    units += [[r * 9 + c for r in range(9)] for c in range(9)]
    units += [
        [(br + i) * 9 + bc + j for i in range(3) for j in range(3)]
        for br in (0, 3, 6)
        for bc in (0, 3, 6)
    ]
    peers = np.zeros((81, 20), np.uint8)
    for cell in range(81):
        ps = sorted({x for u in units if cell in u for x in u} - {cell})
        peers[cell] = ps
    popcount = np.array([bin(m).count("1") for m in range(512)], np.uint8)
    lowest = np.array([(m & -m).bit_length() if m else 0 for m in range(512)], np.uint8)
    return peers, np.array(units, np.uint8), popcount, lowest


@njit(cache=True, inline="always")
def _place(cand, grid, cell, digit, peers, queue, qn):
    """Put ``digit`` in ``cell``, take it from the peers' candidates, and push onto
    ``queue[qn:]`` the empty peers left with one candidate or none (naked singles and dead
    cells, found where they appear instead of by scanning the grid). Returns the new ``qn``."""
    bit = np.uint16(1 << (digit - 1))
    grid[cell] = bit
    cand[cell] = 0
    for k in range(20):
        p = peers[cell, k]
        m = cand[p]
        if m & bit:
            m = m & ~bit
            cand[p] = m
            if m & (m - np.uint16(1)) == 0 and grid[p] == 0:
                queue[qn] = p
                qn += 1
    return qn


@njit(cache=True)
def _deduce(cand, grid, peers, units, popcount, lowest, segments, locked, queue, qn):
    """Naked singles from ``queue[:qn]`` (cells left with one candidate), hidden singles, and
    (with ``locked``) locked candidates when singles stall, until nothing applies.
    Returns (consistent, passes)."""
    passes = 0
    while True:
        passes += 1
        progress = False
        while qn > 0:
            qn -= 1
            cell = queue[qn]
            if grid[cell] == 0:
                m = cand[cell]
                if m == 0:
                    return False, passes
                qn = _place(cand, grid, cell, lowest[m], peers, queue, qn)
                progress = True
        for u in range(27):
            # digits seen once, twice or more, placed: branch-free, as a filled cell has no
            # candidates and an empty one no placed bit; rows and columns by arithmetic, the
            # boxes by table (this loop is most of the time: these two changes made the
            # solver 1.35x faster)
            once = np.uint16(0)
            twice = np.uint16(0)
            placed = np.uint16(0)
            if u < 9:
                start = u * 9
                step = 1
            elif u < 18:
                start = u - 9
                step = 9
            else:
                start = 0
                step = 0
            if step:
                for k in range(9):
                    cell = start + k * step
                    m = cand[cell]
                    twice |= once & m
                    once |= m
                    placed |= grid[cell]
            else:
                for k in range(9):
                    cell = units[u, k]
                    m = cand[cell]
                    twice |= once & m
                    once |= m
                    placed |= grid[cell]
            if (once | placed) != FULL:
                return False, passes  # some digit has no place left in this unit
            single = once & ~twice & ~placed
            if single != 0:
                for k in range(9):
                    cell = units[u, k]
                    if grid[cell] == 0:
                        m = np.int64(cand[cell]) & single
                        if m != 0:
                            if m & (m - 1) != 0:
                                return False, passes  # two digits need this one cell
                            qn = _place(cand, grid, cell, lowest[m], peers, queue, qn)
                            progress = True
        if qn > 0:
            continue
        if not progress and locked:
            progress = _locked_candidates(cand, grid, segments)
            if progress:
                for cell in range(81):
                    if grid[cell] == 0 and cand[cell] & (cand[cell] - np.uint16(1)) == 0:
                        queue[qn] = cell
                        qn += 1
        if not progress:
            return True, passes


@njit(cache=True)
def _locked_candidates(cand, grid, segments):
    """Box-line interactions. A row meets a box in a 3-cell *segment*; if a digit's places in
    a box all lie in one segment, the rest of that row loses it ("pointing"); if a digit's
    places in a row all lie in one segment, the rest of that box loses it ("claiming"). Same
    for columns. Returns True if a candidate was removed."""
    removed = False
    for orient in range(2):  # 0: rows, 1: columns
        for line in range(9):
            for seg in range(3):
                m = 0
                for j in range(3):
                    cell = line * 9 + seg * 3 + j if orient == 0 else (seg * 3 + j) * 9 + line
                    if grid[cell] == 0:
                        m |= np.int64(cand[cell])
                segments[orient, line, seg] = m
        for line in range(9):
            band = (line // 3) * 3
            for seg in range(3):
                here = segments[orient, line, seg]
                if here == 0:
                    continue
                # claiming: in this line the digit occurs only in this segment
                in_line = here & ~(
                    segments[orient, line, (seg + 1) % 3] | segments[orient, line, (seg + 2) % 3]
                )
                # pointing: in this box the digit occurs only in this segment
                box_rest = 0
                for other in range(band, band + 3):
                    if other != line:
                        box_rest |= segments[orient, other, seg]
                in_box = here & ~box_rest
                if in_line != 0:  # remove from the box's other lines
                    for other in range(band, band + 3):
                        if other != line and segments[orient, other, seg] & in_line:
                            for j in range(3):
                                cell = (
                                    other * 9 + seg * 3 + j
                                    if orient == 0
                                    else (seg * 3 + j) * 9 + other
                                )
                                if grid[cell] == 0 and cand[cell] & in_line:
                                    cand[cell] &= ~np.uint16(in_line)
                                    removed = True
                if in_box != 0:  # remove from the line's other segments
                    for s2 in range(3):
                        if s2 != seg and segments[orient, line, s2] & in_box:
                            for j in range(3):
                                cell = (
                                    line * 9 + s2 * 3 + j
                                    if orient == 0
                                    else (s2 * 3 + j) * 9 + line
                                )
                                if grid[cell] == 0 and cand[cell] & in_box:
                                    cand[cell] &= ~np.uint16(in_box)
                                    removed = True
            if removed:
                return True
    return removed


@njit(cache=True)
def _load(puzzle, cand, grid, peers, queue):
    """Place the givens; returns the length of the naked-single queue, or -1 if two givens
    clash."""
    for cell in range(81):
        cand[cell] = FULL
        grid[cell] = 0
    qn = 0
    for cell in range(81):
        d = puzzle[cell]
        if d != 0:
            if cand[cell] & (1 << (d - 1)) == 0:
                return -1
            qn = _place(cand, grid, cell, d, peers, queue, qn)
    return qn


@njit(cache=True)
def solve_one(puzzle, max_solutions, solution, peers, units, popcount, lowest, stats, locked=True):
    """Count the solutions of one puzzle up to ``max_solutions``; the first goes to
    ``solution``. ``stats`` gets [guesses, passes]. Returns the count."""
    cand = np.zeros(81, np.uint16)
    grid = np.zeros(81, np.uint16)  # the placed digit's bit, 0 = empty
    saved_cand = np.zeros((82, 81), np.uint16)
    saved_grid = np.zeros((82, 81), np.uint16)
    branch_cell = np.zeros(82, np.int64)
    untried = np.zeros(82, np.int64)
    segments = np.zeros((2, 9, 3), np.int64)
    # a cell is pushed when it loses a candidate and has at most one left, so one deduction
    # pushes at most 729 cells (plus 81 per locked-candidates rescan): 4096 is plenty
    queue = np.zeros(4096, np.uint8)
    bivalue = np.zeros(81, np.bool_)
    guesses = 0
    passes = 0
    found = 0
    qn = _load(puzzle, cand, grid, peers, queue)
    if qn < 0:
        stats[0] = 0
        stats[1] = 0
        return 0
    ok, p = _deduce(cand, grid, peers, units, popcount, lowest, segments, locked, queue, qn)
    passes += p
    depth = 0
    while True:
        if ok:
            # branch on a cell with fewest candidates; among two-candidate cells, on the one
            # whose candidates most peers share, two-candidate peers weighing 3 (its choice
            # settles the most): on the hardest-1106 set this cuts the guesses per puzzle
            # from 570 to 234 (weight 1: 260, weight 4: 237)
            best = -1
            best_n = 10
            for cell in range(81):
                n = popcount[cand[cell]]  # 0 for a filled cell
                bivalue[cell] = n == 2
                if grid[cell] == 0 and n < best_n:
                    best = cell
                    best_n = n
            if best_n == 2:
                best_score = -1
                for cell in range(81):
                    if bivalue[cell]:
                        c = cand[cell]
                        score = 0
                        for k in range(20):
                            p = peers[cell, k]
                            if cand[p] & c:
                                score += 1 + 2 * np.int64(bivalue[p])
                        if score > best_score:
                            best = cell
                            best_score = score
            if best < 0:  # every cell filled: a solution
                if found == 0:
                    for cell in range(81):
                        solution[cell] = lowest[grid[cell]]
                found += 1
                if found >= max_solutions:
                    break
            else:  # branch on best's candidates
                saved_cand[depth, :] = cand
                saved_grid[depth, :] = grid
                branch_cell[depth] = best
                untried[depth] = cand[best]
                depth += 1
        # try the next candidate of the deepest branching cell that has one left
        while depth > 0 and untried[depth - 1] == 0:
            depth -= 1
        if depth == 0:
            break
        m = untried[depth - 1]
        bit = m & -m
        untried[depth - 1] = m ^ bit
        cand[:] = saved_cand[depth - 1]
        grid[:] = saved_grid[depth - 1]
        qn = _place(cand, grid, branch_cell[depth - 1], lowest[bit], peers, queue, 0)
        guesses += 1
        ok, p = _deduce(cand, grid, peers, units, popcount, lowest, segments, locked, queue, qn)
        passes += p
    stats[0] = guesses
    stats[1] = passes
    return found


@njit(cache=True)
def solve_batch(puzzles, max_solutions, solutions, counts, guesses, peers, units, popcount,
                lowest):  # fmt: skip
    """Solve every row of ``puzzles`` (uint8[P, 81]) in one call: ``counts[i]`` solutions
    (at most ``max_solutions``), the first in ``solutions[i]``, ``guesses[i]`` guesses."""
    stats = np.zeros(2, np.int64)
    for i in range(puzzles.shape[0]):
        counts[i] = solve_one(
            puzzles[i], max_solutions, solutions[i], peers, units, popcount, lowest, stats
        )
        guesses[i] = stats[0]
