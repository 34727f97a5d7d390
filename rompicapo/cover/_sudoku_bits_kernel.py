"""numba kernel: classic 9x9 Sudoku on band bit sets, a whole batch in one call.

`rompicapo.cover.sudoku.solve()` used it until the vector kernel
(`rompicapo.cover._sudoku_simd`) replaced it; it stays as that kernel's reference (its
tests compare them answer for answer) and for the benchmark's history.

The representation (the idea of the fastest published solvers, e.g. tdoku and JCZSolve; the
code is our own): for each digit d and band b (three rows) one 27-bit word ``F[3*d + b]``
holds the cells of the band where d may still go, a placed d included; ``S[b]`` holds the
band's placed cells. A digit's whole position set is three words, so the rules of one digit
are a few table look-ups:

- *triads*: a row meets a box in a three-cell triad. In a band, d sits once in each of the
  three rows and once in each of the three boxes, so the (row, box) triads that may hold it
  form a 3x3 pattern that must contain a permutation matrix; triads in no such permutation are
  emptied (one 512-entry table). This is box-line reduction both ways ("pointing" and
  "claiming") and more, and a pattern with no permutation is a contradiction (a row or box of
  the band without d). The same table on (band, column) pairs of a stack of three columns
  gives the vertical direction.
- *hidden singles*: a row, box or column holding d in one cell only;
- *naked singles*: a cell left with one digit, found for the 27 cells of a band at once by
  counting over the nine digit words with "seen once / seen twice" masks; a cell with none
  is a contradiction.

When these stall, one more rule, over all digits of a band or stack at once:

- *triad counts*: a triad's three cells hold exactly three digits, so a triad only three
  digits can reach gets all three (each is then forced into it), and a triad that three
  digits are forced into (their triad in every permutation left) loses every other digit.

Then the search branches as tdoku does, on a digit's placement pattern: in the band or stack
with the fewest permutations left over its nine digits (but not fixed), the digit with the
fewest (two when possible); one of its open triads that is not forced is chosen, and the two
branches are "the digit is in this triad" and "it is not". The state (30 words) is saved
before the first branch; the second is the saved state with the triad's cells cleared, then
propagated (DPLL: the negation is asserted, not guessed). When every band and stack is fixed
but cells are open, a cell with the fewest candidates is branched on the same way (its lowest
digit, or not). With these rules the hardest-1106 set takes 110.5 branching decisions per
puzzle (the same with the optimistic start below), tdoku's driver reports 110.4; counting stops
at ``max_solutions``.

Work per node, kept small (the rules' fixpoint is the same whatever the order, so none of
this changes a count or a guess): the givens are set in one pass per digit; a digit is looked
at again only when a rule could find something new for it (a placement, an emptied triad, a
unit left with one cell: see `_place()`); the two triad steps alternate only while the
other changes something; the triad-count rule packs a digit's six patterns into one word
and counts over the six units at once, and skips the triads no rule can change (reached by
exactly the three digits forced into them); the band step is one look-up of a fused table; a
naked single is placed without visiting the other digits' words, and the naked singles are
looked for after every digit, not only when no digit is marked; the tables are int32. No
array is passed where numba would update its reference count (two atomic operations) per
call or per digit: the tables are a global constant, a digit's rules are written out in
`_propagate()`, and states are saved and restored by row index, not through row views.

An optimistic start (``heuristic`` bit 4): on puzzles with many solutions (the serg set: 34-35
givens, two or more solutions, every branch leads to one) the triad-count rule and the pattern
branching cost more per node than they save, and branching on two-candidate cells finds the
solutions in fewer nodes. So when the root (after every rule, the triad counts included) has a
cell with two candidates left and at most ``CHEAP_OPEN`` (48) open cells, the search starts
with the cheap rules: naked and hidden singles only (no triad rule; a row, box or column left
without a digit is the contradiction), cell branching. The first contradiction shows the puzzle
needs the full rules: if no solution was found yet, the search starts again from the saved root
state with them (no cheap guess stays on the stack, where it would make the proof tree of a
unique puzzle bigger); after a solution, it goes on with them, and a state saved under the
cheap rules gets every digit through the full rules when the search comes back to it. The
counts do not change; the guesses do (serg 6.92 -> 7.19 a puzzle, 17-clue 0.561 -> 0.59 on the
first 12,000: the cheap guesses before a restart are counted). Singles only were measured
against singles and triads under the optimistic start: serg 1.07x faster (more guesses, each
cheaper), hardest-1106 and 17-clue the same within noise.

Why at most 48 open cells: the cheap start pays when little is left to fill; a root with
many open cells is a hard puzzle, where the first contradiction comes soon and the cheap
guesses before it are wasted. After the root's fixpoint, serg's puzzles leave 39-47 open
cells (5th-95th percentile), magictour top1465's 46-61, the hardest sets' 55-60, and the
17-clue puzzles not solved at the root 17-59. Paired against the start on every root with a
pair (11 alternated rounds, median, 2026-12-02): top1465 1.09x faster (guesses 11.63 ->
9.04 a puzzle; tdoku 8.9), 1905 11+ 1.02x (66.2 -> 62.8), hardest-1106 1.01x (112.8 ->
110.5), serg and 17-clue unchanged (0.995, 1.00; the same guesses on serg).

Measured and dropped (paired old/new runs, median ratio, above 1 is faster): the digit's
rules as a called function instead of written out (0.96-0.99); a naked-singles scan of only
the bands whose words changed (0.94-0.97: the bookkeeping costs more than the skipped bands);
under the cheap rules, the scan only when no digit is marked (0.90); the optimistic start
decided before the root's triad-count rule (serg 1.02, 17-clue 0.99); one loop over the
puzzles indexing rows in place instead of a call per puzzle (1.00-1.02).

``heuristic`` (default 7) exists for measurements: bit 1 turns on the pattern branching
(else cells only), bit 2 the triad-count rule, bit 4 the optimistic start. All settings give
the same counts.

Puzzles and solutions are flat ``uint8[81]``, row-major, 0 = empty. ``guesses`` counts the
branching decisions (the first branch of each; the second is deduced).
"""

from __future__ import annotations

import itertools

import numpy as np

from rompicapo.common.intrinsics import popcount, trailing_zeros
from rompicapo.common.jit import njit

BAND = 0x7FFFFFF  # 27 cells
NWORDS = 30  # 27 digit-band words, 3 solved-cell words
ALL6 = (1 << 54) - 1  # six 9-bit patterns
MAX_DEPTH = 82
CHEAP_DEPTH = 0  # where the optimistic start begins (1 costs more guesses on hardest-1106)
CHEAP_OPEN = 48  # the optimistic start only when the root leaves at most this many open cells
STACK_ROWS = MAX_DEPTH + 2  # saved states, the live state, one scratch row
STACK_COLS = 80  # a state, the branch's word and mask, cheap-rules flag; scratch row needs 78


def tables() -> np.ndarray:
    """One int32 table of 8 x 512 rows: [row triads, permutation keep, triad expand, column
    expand, in-band peers (first 27 entries), permutations inside a pattern, triads in every
    permutation inside a pattern, band keep (permutation keep then triad expand)]; see the
    module docstring."""
    t = np.zeros((8, 512), np.int64)
    for x in range(512):  # the 9 cells of a row -> which of its 3 triads are not empty
        t[0, x] = sum(1 << k for k in range(3) if (x >> (3 * k)) & 7)
    perms = [sum(1 << (r * 3 + s[r]) for r in range(3)) for s in itertools.permutations(range(3))]
    for p in range(512):  # a 3x3 pattern -> the union of the permutation matrices inside it
        m = 0
        for q in perms:
            if q & p == q:
                m |= q
        t[1, p] = m
        t[5, p] = sum(1 for q in perms if q & p == q)
        t[6, p] = 511 if m else 0  # triads in every permutation inside the pattern
        for q in perms:
            if q & p == q:
                t[6, p] &= q
    for x in range(512):  # triads (bit row*3 + box) -> their 27 cells
        t[2, x] = sum(
            7 << (9 * r + 3 * k) for r in range(3) for k in range(3) if (x >> (r * 3 + k)) & 1
        )
    for x in range(512):  # a band pattern -> the cells its permutations may use: one look-up
        t[7, x] = t[2, t[1, x]]  # instead of two in a row on the band step's critical path
    for x in range(512):  # columns -> their cells in a band (bits j, j + 9, j + 18)
        t[3, x] = sum(0x40201 << j for j in range(9) if (x >> j) & 1)
    for p in range(27):  # same row, box or column inside the band, the cell itself excluded
        r, c = divmod(p, 9)
        m = 0
        for q in range(27):
            r2, c2 = divmod(q, 9)
            if q != p and (r2 == r or c2 == c or c2 // 3 == c // 3):
                m |= 1 << q
        t[4, p] = m
    # int32 (every entry fits 27 bits): half the cache footprint of int64
    return t.astype(np.int32)


# The tables as a global: numba compiles them into the kernel as a constant array, so no
# function takes them as an argument (an array argument's reference count is updated on entry
# and exit of every call, and an inlined one's on every use), and their shape is known, so an
# index needs no run-time wraparound check.
TB = tables()


@njit(cache=True, inline="always")
def _ctz(x):
    return np.int64(trailing_zeros(np.uint64(x)))


@njit(cache=True, inline="always")
def _band_pattern(w):
    """The (row, box) triads of a band word that are not empty, bit row * 3 + box."""
    # (the mask tells the compiler the index is not negative: no wraparound check)
    return (TB[0, w & 511] | (TB[0, (w >> 9) & 511] << 3) | (TB[0, (w >> 18) & 511] << 6)) & 511


@njit(cache=True, inline="always")
def _placed(st):
    """The number of placed cells (bits of the three solved-cell words)."""
    n = 0
    for b in range(3):
        n += np.int64(popcount(np.uint64(st[27 + b])))
    return n


@njit(cache=True, inline="always")
def _single(x):
    """At most one bit set."""
    return x & (x - 1) == 0


@njit(cache=True, inline="always")
def _place_alone(st, d, b, p):
    """Digit ``d`` into cell ``p`` of band ``b`` when no other digit may go there (a naked
    single): d leaves its peers and the cell is marked placed; no other word changes."""
    col = np.int64(0x40201) << (p % 9)
    st[3 * d + b] &= ~TB[4, p]
    for b2 in range(3):
        if b2 != b:
            st[3 * d + b2] &= ~col
    st[27 + b] |= np.int64(1) << p


@njit(cache=True, inline="always")
def _place(st, d, b, p, triads):
    """Digit ``d`` (0-8) into cell ``p`` (0-26) of band ``b``: other digits leave the cell, d
    leaves its peers. Returns the bit set of digits the rules must look at again: d, and each
    other digit whose loss of the cell emptied one of its triads (the cell's row or column
    triad: its patterns change; only with ``triads``, the rules that look at patterns) or left
    one cell (or none) in the cell's row, box or column (a hidden single, or a contradiction).
    A digit losing the cell otherwise keeps its patterns and singles, so the rules, which
    stood at their fixpoint for it, would find nothing new."""
    bit = np.int64(1) << p
    dirty = np.int64(1) << d
    c = p % 9
    rowtri = np.int64(7) << (p - p % 3)
    col = np.int64(0x40201) << c
    row = np.int64(511) << (p - c)
    box = np.int64(0x1C0E07) << (c - c % 3)
    for e in range(9):
        w = st[3 * e + b]
        if w & bit and e != d:
            w &= ~bit
            st[3 * e + b] = w
            if (
                (triads and (w & rowtri == 0 or w & col == 0))
                or _single(w & row)
                or _single(w & box)
                or _single(
                    (st[3 * e] & col) | ((st[3 * e + 1] & col) << 1) | ((st[3 * e + 2] & col) << 2)
                )
            ):
                dirty |= np.int64(1) << e
    _place_alone(st, d, b, p)
    return dirty


@njit(cache=True)
def _propagate(st, dirty, triads):
    """Apply the rules until nothing changes. Returns False on a contradiction. Per marked
    digit: the triad rules (both directions) until they stall, then its hidden singles; after
    each digit, the naked singles. With ``triads`` False (the optimistic start's cheap rules)
    only the singles run, and a row, box or column left without the digit is the
    contradiction the triad steps would have found. (A digit's rules are written out here,
    not called: numba's inlining of a function with an array argument updates the array's
    reference count, two atomic operations per digit.)"""
    changed = True  # the caller changed the state: scan at least once
    while True:
        if dirty:
            d = _ctz(dirty)
            dirty &= dirty - 1
            stacks_done = False
            w0 = st[3 * d]
            w1 = st[3 * d + 1]
            w2 = st[3 * d + 2]
            # Both rules are idempotent, so each step runs again only while the other one
            # changes something: no full pass just to confirm the fixpoint.
            while triads:
                # bands: (row, box) triads
                o0, o1, o2 = w0, w1, w2
                k = TB[7, _band_pattern(w0)]
                if k == 0:
                    return False
                w0 &= k
                k = TB[7, _band_pattern(w1)]
                if k == 0:
                    return False
                w1 &= k
                k = TB[7, _band_pattern(w2)]
                if k == 0:
                    return False
                w2 &= k
                if stacks_done and w0 == o0 and w1 == o1 and w2 == o2:
                    break
                # stacks: (band, column) pairs of three columns
                o0, o1, o2 = w0, w1, w2
                c0 = (w0 | (w0 >> 9) | (w0 >> 18)) & 511
                c1 = (w1 | (w1 >> 9) | (w1 >> 18)) & 511
                c2 = (w2 | (w2 >> 9) | (w2 >> 18)) & 511
                a0 = np.int64(0)
                a1 = np.int64(0)
                a2 = np.int64(0)
                for s in range(3):
                    sh = 3 * s
                    k = TB[1, ((c0 >> sh) & 7) | (((c1 >> sh) & 7) << 3) | (((c2 >> sh) & 7) << 6)]
                    if k == 0:
                        return False
                    a0 |= (k & 7) << sh
                    a1 |= ((k >> 3) & 7) << sh
                    a2 |= ((k >> 6) & 7) << sh
                w0 &= TB[3, a0]
                w1 &= TB[3, a1]
                w2 &= TB[3, a2]
                if w0 == o0 and w1 == o1 and w2 == o2:
                    break
                stacks_done = True
            # d is not marked for another pass for this: the hidden singles below already see
            # the new words, and other digits see the change through the naked-singles scan
            if w0 != st[3 * d] or w1 != st[3 * d + 1] or w2 != st[3 * d + 2]:
                changed = True
            st[3 * d] = w0
            st[3 * d + 1] = w1
            st[3 * d + 2] = w2
            # hidden singles: columns with one cell over the 9 rows, then rows and boxes
            one = np.int64(0)
            two = np.int64(0)
            for w in (w0, w1, w2):
                for r in range(3):
                    x = (w >> (9 * r)) & 511
                    two |= one & x
                    one |= x
            if not triads and one != 511:
                return False  # a column without d (else the triad steps would see it)
            colsingle = TB[3, one & ~two]
            for b in range(3):
                w = st[3 * d + b]
                h = w & colsingle
                for r in range(3):
                    x = w & (np.int64(511) << (9 * r))
                    y = w & (np.int64(0x1C0E07) << (3 * r))  # box r of the band
                    if not triads and (x == 0 or y == 0):
                        return False
                    if x & (x - 1) == 0:
                        h |= x
                    if y & (y - 1) == 0:
                        h |= y
                h &= ~st[27 + b]
                while h:
                    p = _ctz(h)
                    h &= h - 1
                    if st[3 * d + b] >> p & 1:  # else an earlier single took it: fails later
                        dirty |= _place(st, d, b, p, triads)
                        changed = True
        if not changed:
            if dirty == 0:
                return True
            continue  # no word changed since the last scan: it would find nothing
        changed = False
        # naked singles, band by band, after every digit, not only when the marks run out: the
        # scan costs less than a digit's rules, and the digits reduced next see its placements
        # at once (fewer passes over them; the fixpoint is the same)
        for b in range(3):
            one = np.int64(0)
            two = np.int64(0)
            for e in range(9):
                x = st[3 * e + b]
                two |= one & x
                one |= x
            if one != BAND:
                return False  # a cell without candidates
            h = one & ~two & ~st[27 + b]
            while h:
                p = _ctz(h)
                h &= h - 1
                bit = np.int64(1) << p
                for e in range(9):
                    if st[3 * e + b] & bit:
                        # the cell's only digit: no other digit's word to visit
                        _place_alone(st, e, b, p)
                        dirty |= np.int64(1) << e
                        changed = True
                        break
        if dirty == 0:
            return True


@njit(cache=True, inline="always")
def _pairs(st, b):
    """The open cells of band ``b`` with two candidates left."""
    c1 = np.int64(0)
    c2 = np.int64(0)
    c3 = np.int64(0)
    for e in range(9):
        x = st[3 * e + b]
        c3 |= c2 & x
        c2 |= c1 & x
        c1 |= x
    return c2 & ~c3 & ~st[27 + b]


@njit(cache=True)
def _choose(st):
    """A cell with the fewest candidates: (band, cell) with two if any, else the first
    unsolved cell of least count; (-1, -1) when every cell is placed."""
    best_b = -1
    best_p = -1
    best_n = 10
    for b in range(3):
        two = _pairs(st, b)
        if two:
            return b, _ctz(two)
        free = BAND & ~st[27 + b]
        while free and best_n > 3:
            p = _ctz(free)
            free &= free - 1
            n = 0
            for e in range(9):
                n += (st[3 * e + b] >> p) & 1
            if n < best_n:
                best_n = n
                best_b = b
                best_p = p
    return best_b, best_p


@njit(cache=True)
def _branch_triad(st, scratch, have_totals):
    """Branch as tdoku does, on a digit's placement pattern in a band or stack: the band or
    stack of three boxes with the fewest (row, box) permutations over its nine digits, not
    yet fixed, and in it the digit with the fewest (two when possible). One of that digit's
    open triads is chosen: "yes" (applied here) empties the rest of its row (column) and box,
    "no" is returned as (word, mask to clear) for the stack. (-1, 0) when every band and stack
    is fixed."""
    best = 10000
    best_u = -1
    for u in range(6):
        if have_totals:  # the patterns _triad_counts left
            total = 0
            for d in range(9):
                total += TB[5, (scratch[24 + d] >> (9 * u)) & 511]
        else:
            total = 0
            for d in range(9):
                total += TB[5, _pattern(st, d, u)]
        if 9 < total < best:
            best = total
            best_u = u
    if best_u < 0:
        return -1, np.int64(0)
    best_n = 7
    best_d = 0
    for d in range(9):
        n = TB[5, _pattern(st, d, best_u)]
        if 1 < n < best_n:
            best_n = n
            best_d = d
            if n == 2:
                break
    d = best_d
    k = TB[1, _pattern(st, d, best_u)]
    # an open triad that is not forced: its row of the pattern has another open triad
    t = 0
    while True:
        if (k >> t) & 1 and (k >> (3 * (t // 3))) & 7 != (np.int64(1) << (t % 3)):
            break
        t += 1
    r = t // 3
    j = t % 3
    if best_u < 3:  # band best_u: row r, box j
        b = best_u
        tri = np.int64(7) << (9 * r + 3 * j)
        rest = ((np.int64(511) << (9 * r)) | (np.int64(0x1C0E07) << (3 * j))) & ~tri
        st[3 * d + b] &= ~rest
        return 3 * d + b, tri
    s = best_u - 3  # stack s: band r, column 3s + j
    col = np.int64(0x40201) << (3 * s + j)
    st[3 * d + r] &= ~((np.int64(0x1C0E07) << (3 * s)) & ~col)
    for b2 in range(3):
        if b2 != r:
            st[3 * d + b2] &= ~col
    return 3 * d + r, col


@njit(cache=True)
def _triad_counts(st, scratch):
    """A triad (three cells of a row or column inside a box) holds exactly three digits. Per
    band and stack, over the nine digits: a triad that only three digits can reach gets all
    three (each is forced into it); a triad that three digits must occupy loses the others.
    Returns -1 on a contradiction, else the bit set of digits whose words changed. When
    nothing changed, ``scratch[24 + d]`` holds digit d's six patterns (for
    `_branch_triad()`), 9 bits per unit u at bit 9u (bands 0-2, stacks 3-5)."""
    # One int64 per digit packs its six 9-bit patterns, so the counters below treat the six
    # units at once (the rule is the same for each).
    # patterns at scratch[24 + d], forced triads at scratch[9 + d] (indexed, not sliced: a
    # slice is an array view whose reference count is updated)
    c1 = np.int64(0)
    c2 = np.int64(0)
    c3 = np.int64(0)
    c4 = np.int64(0)
    f1 = np.int64(0)
    f2 = np.int64(0)
    f3 = np.int64(0)
    f4 = np.int64(0)
    for d in range(9):
        w0 = st[3 * d]
        w1 = st[3 * d + 1]
        w2 = st[3 * d + 2]
        p0 = _band_pattern(w0)
        p1 = _band_pattern(w1)
        p2 = _band_pattern(w2)
        c0 = (w0 | (w0 >> 9) | (w0 >> 18)) & 511
        cc1 = (w1 | (w1 >> 9) | (w1 >> 18)) & 511
        cc2 = (w2 | (w2 >> 9) | (w2 >> 18)) & 511
        s0 = (c0 & 7) | ((cc1 & 7) << 3) | ((cc2 & 7) << 6)
        s1 = ((c0 >> 3) & 7) | (((cc1 >> 3) & 7) << 3) | (((cc2 >> 3) & 7) << 6)
        s2 = ((c0 >> 6) & 7) | (((cc1 >> 6) & 7) << 3) | (((cc2 >> 6) & 7) << 6)
        p = (
            np.int64(p0) | (np.int64(p1) << 9) | (np.int64(p2) << 18)
            | (s0 << 27) | (s1 << 36) | (s2 << 45)
        )  # fmt: skip
        f = (
            np.int64(TB[6, p0]) | (np.int64(TB[6, p1]) << 9) | (np.int64(TB[6, p2]) << 18)
            | (np.int64(TB[6, s0]) << 27) | (np.int64(TB[6, s1]) << 36)
            | (np.int64(TB[6, s2]) << 45)
        )  # fmt: skip
        scratch[24 + d] = p
        scratch[9 + d] = f
        c4 |= c3 & p
        c3 |= c2 & p
        c2 |= c1 & p
        c1 |= p
        f4 |= f3 & f
        f3 |= f2 & f
        f2 |= f1 & f
        f1 |= f
    if (~c3 & ALL6) or f4:
        return -1
    add_all = c3 & ~c4
    rem_all = f3 & ~f4
    # units whose rule has material: the first one that changes something returns, the
    # patterns of the others may then be stale. A triad in both sets is reached by exactly the
    # three digits forced into it, so neither rule changes anything there (common in a nearly
    # solved band, where every triad is full): the exclusive or skips those.
    todo = (add_all ^ rem_all) & ALL6
    dirty = np.int64(0)
    while todo:
        u = _ctz(todo) // 9
        sh9 = 9 * u
        todo &= ~(np.int64(511) << sh9)
        add_u = (add_all >> sh9) & 511
        rem_u = (rem_all >> sh9) & 511
        for d in range(9):
            p = (scratch[24 + d] >> sh9) & 511
            fd = (scratch[9 + d] >> sh9) & 511
            new = p & ~(rem_u & ~fd)
            add = add_u & p & ~fd
            while add:
                t = _ctz(add)
                add &= add - 1
                new &= ~((np.int64(7) << (3 * (t // 3))) | (np.int64(0x49) << (t % 3))) | (
                    np.int64(1) << t
                )
            if new == p:
                continue
            k = TB[1, new]
            if k == 0:
                return -1
            dirty |= np.int64(1) << d
            if u < 3:
                st[3 * d + u] &= TB[2, k]
            else:
                sh = 3 * (u - 3)
                stack_cols = TB[3, np.int64(7) << sh]
                for b in range(3):
                    allowed = TB[3, ((k >> (3 * b)) & 7) << sh]
                    st[3 * d + b] &= ~(stack_cols & ~allowed)
        if dirty:
            break
    return dirty


@njit(cache=True, inline="always")
def _pattern(st, d, u):
    """Digit d's 3x3 pattern in band u (u < 3: rows x boxes) or stack u - 3 (bands x
    columns)."""
    if u < 3:
        w = st[3 * d + u]
        return _band_pattern(w)
    sh = 3 * (u - 3)
    w0 = st[3 * d]
    w1 = st[3 * d + 1]
    w2 = st[3 * d + 2]
    c0 = ((w0 | (w0 >> 9) | (w0 >> 18)) >> sh) & 7
    c1 = ((w1 | (w1 >> 9) | (w1 >> 18)) >> sh) & 7
    c2 = ((w2 | (w2 >> 9) | (w2 >> 18)) >> sh) & 7
    return c0 | (c1 << 3) | (c2 << 6)


@njit(cache=True, inline="always")
def _save(stack, row, st):
    """The state words into ``stack[row]`` (a plain loop, and no row view: a view's reference
    count would be updated per call)."""
    for i in range(NWORDS):
        stack[row, i] = st[i]


@njit(cache=True, inline="always")
def _restore(st, stack, row):
    """The state words of ``stack[row]`` back into ``st``."""
    for i in range(NWORDS):
        st[i] = stack[row, i]


@njit(cache=True)
def _givens(puzzle, st, scratch):
    """The state of the givens, all placed at once (cheaper than one `_place()` each):
    per digit, the bands' words lose the rows, boxes and columns of its givens and every
    other given cell. False when two givens of a digit share a row, box or column. The rules
    have not run: every digit must be looked at (``_propagate`` with all nine dirty)."""
    g = scratch[:30]  # g[3 * v + band], v = 0 (empty cells, ignored) to 9
    for i in range(30):
        g[i] = 0
    for cell in range(81):
        b = cell // 27
        g[3 * np.int64(puzzle[cell]) + b] |= np.int64(1) << (cell - 27 * b)
    placed0 = np.int64(0)
    placed1 = np.int64(0)
    placed2 = np.int64(0)
    for d in range(1, 10):
        placed0 |= g[3 * d]
        placed1 |= g[3 * d + 1]
        placed2 |= g[3 * d + 2]
    st[27] = placed0
    st[28] = placed1
    st[29] = placed2
    for d in range(9):
        cols = np.int64(0)
        for b in range(3):
            x = g[3 * d + 3 + b]
            c = (x | (x >> 9) | (x >> 18)) & 511
            if cols & c or x & (x >> 9) or x & (x >> 18):
                return False  # a column with two
            cols |= c
        colcells = TB[3, cols]
        for b in range(3):
            x = g[3 * d + 3 + b]
            peers = colcells
            for r in range(3):
                y = x & (np.int64(511) << (9 * r))
                if y:
                    if y & (y - 1):
                        return False  # a row with two
                    peers |= np.int64(511) << (9 * r)
                y = x & (np.int64(0x1C0E07) << (3 * r))
                if y:
                    if y & (y - 1):
                        return False  # a box with two
                    peers |= np.int64(0x1C0E07) << (3 * r)
            st[3 * d + b] = (BAND & ~peers & ~st[27 + b]) | x
    return True


@njit(cache=True)
def solve_one(puzzle, max_solutions, solution, stack, stats, heuristic=7):
    """Count the solutions of one puzzle up to ``max_solutions``; the first goes to
    ``solution``. ``stack`` is scratch int64[STACK_ROWS, STACK_COLS]; ``stats`` gets
    [guesses, propagation calls]. Returns the count."""
    st = stack[MAX_DEPTH]
    scratch = stack[MAX_DEPTH + 1]
    guesses = 0
    calls = 0
    if not _givens(puzzle, st, scratch):
        stats[0] = 0
        stats[1] = 0
        return 0  # clashing givens
    dirty = np.int64(511)
    found = 0
    depth = 0
    h = heuristic & 3
    cheap = False  # singles only (no triad rules), cell branching
    cheap_tried = heuristic & 4 == 0  # the optimistic start: once a puzzle at most
    ok = _propagate(st, dirty, not cheap)
    calls += 1
    while True:
        if ok and st[27] & st[28] & st[29] == BAND:
            # every cell placed (consistently: each placement cleared its peers): a solution
            if found == 0:
                for w in range(27):
                    x = st[w]
                    base = 27 * (w % 3)
                    while x:
                        solution[base + _ctz(x)] = w // 3 + 1
                        x &= x - 1
            found += 1
            if found >= max_solutions:
                break
            ok = False
        elif not ok and cheap:
            # the first contradiction: the full rules from here on; before any solution, from
            # where the cheap rules began (stack[CHEAP_DEPTH] is its state), so no cheap guess
            # stays on the stack
            h = heuristic & 3
            cheap = False
            if found == 0 and depth > CHEAP_DEPTH:
                _restore(st, stack, CHEAP_DEPTH)
                depth = CHEAP_DEPTH
                ok = True
                continue
        if ok and h & 2:
            r = _triad_counts(st, scratch)
            if r < 0:
                ok = False
            elif r:
                ok = _propagate(st, r, not cheap)
                calls += 1
                continue
        if ok:
            if depth == CHEAP_DEPTH and not cheap_tried:
                cheap_tried = True
                if _placed(st) >= 81 - CHEAP_OPEN and _pairs(st, 0) | _pairs(st, 1) | _pairs(st, 2):
                    h = 0
                    cheap = True
            if h & 1:
                # save first: _branch_triad applies its "yes" branch to st
                _save(stack, depth, st)
                w, nomask = _branch_triad(st, scratch, h & 2 != 0)
                if w >= 0:
                    stack[depth, NWORDS] = w
                    stack[depth, NWORDS + 1] = nomask
                    stack[depth, NWORDS + 2] = cheap
                    depth += 1
                    guesses += 1
                    ok = _propagate(st, np.int64(1) << (w // 3), not cheap)
                    calls += 1
                    continue
            b, p = _choose(st)
            if b >= 0:
                # branch: save, try the lowest digit; its removal is the alternative
                bit = np.int64(1) << p
                d = 0
                while not st[3 * d + b] & bit:
                    d += 1
                _save(stack, depth, st)
                stack[depth, NWORDS] = 3 * d + b
                stack[depth, NWORDS + 1] = bit
                stack[depth, NWORDS + 2] = cheap
                depth += 1
                guesses += 1
                ok = _propagate(st, _place(st, d, b, p, not cheap), not cheap)
                calls += 1
                continue
        if depth == 0:
            break
        depth -= 1
        _restore(st, stack, depth)
        w = stack[depth, NWORDS]
        st[w] &= ~stack[depth, NWORDS + 1]
        dirty = np.int64(1) << (w // 3)
        if stack[depth, NWORDS + 2] and not cheap:
            dirty = np.int64(511)  # a state of the cheap rules: every digit to the full rules
        ok = _propagate(st, dirty, not cheap)
        calls += 1
    stats[0] = guesses
    stats[1] = calls
    return found


@njit(cache=True)
def solve_batch(puzzles, max_solutions, solutions, counts, guesses, heuristic=7):
    """Solve every row of ``puzzles`` (uint8[P, 81]) in one call: ``counts[i]`` solutions
    (at most ``max_solutions``), the first in ``solutions[i]``, ``guesses[i]`` guesses."""
    stack = np.zeros((STACK_ROWS, STACK_COLS), np.int64)
    stats = np.zeros(2, np.int64)
    for i in range(puzzles.shape[0]):
        counts[i] = solve_one(puzzles[i], max_solutions, solutions[i], stack, stats, heuristic)
        guesses[i] = stats[0]
