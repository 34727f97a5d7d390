"""numba kernel: Connect Four (7 columns x 6 rows) solved by negamax alpha-beta on bitboards.

The memory picture first. A position is two 64-bit integers:

- ``mask``: every stone on the board;
- ``pos``: the stones of the player to move.

Bit ``7 * col + row`` is the cell of column ``col`` (0 = left) and row ``row`` (0 = bottom).
Each column has one spare bit above its top cell (row 6), so a shift by 1 moves a stone up, by
7 one column right, by 6 and 8 along the two diagonals, and nothing spills from one column
into the next. ``pos + mask`` is a unique key of the position (adding the stones of the mover
to the mask sets the bit above each column's top stone to mark the height). After a move the
other player is to move: ``pos' = pos ^ mask`` (the opponent's stones), ``mask' = mask | move``.

Scores follow Pascal Pons' convention: from the point of view of the player to move, 0 a draw,
``22 - s`` when the mover wins with his s-th stone, ``s - 22`` when the opponent does.

The transposition table is an ``(entries, 2)`` int64 array: column 0 the key, column 1 packs

    bits 0-5  lower bound + 32   bits 6-11  upper bound + 32   bits 12-15  best column + 1
    bits 16-  epoch

An entry counts only when its epoch is the current one, so moving to a new position ("clear
the table") costs nothing. Mirror images share one entry: the key is the smaller of the
position's key and its mirror's, and the stored column is mirrored with it.

``stats``: [0] nodes (negamax calls), [1] table probes that changed the window or answered,
[2] beta cutoffs, [3] node budget (0: none), [4] 1 when the budget ran out (result invalid).
"""

from __future__ import annotations

import numpy as np
from numba import njit

WIDTH = 7
HEIGHT = 6
SIZE = WIDTH * HEIGHT
H1 = HEIGHT + 1

BOTTOM = 0
for _c in range(WIDTH):
    BOTTOM |= 1 << (_c * H1)
BOARD = BOTTOM * ((1 << HEIGHT) - 1)
COLUMN_MASK = np.array([((1 << HEIGHT) - 1) << (c * H1) for c in range(WIDTH)], dtype=np.int64)
TOP_MASK = np.array([1 << (HEIGHT - 1 + c * H1) for c in range(WIDTH)], dtype=np.int64)
BOTTOM_MASK = np.array([1 << (c * H1) for c in range(WIDTH)], dtype=np.int64)
# centre columns first: in Connect Four the centre takes part in the most lines of four
CENTRE_ORDER = np.array([3, 4, 2, 5, 1, 6, 0], dtype=np.int64)

LOWER_SHIFT = 0
UPPER_SHIFT = 6
MOVE_SHIFT = 12
EPOCH_SHIFT = 16
# ``features``: bit flags of the enhancements over Pons' solver, for ablation studies
TT_MOVE = 1  # try the table's best move first
MIRROR = 2  # a position and its mirror image share one table entry
ETC = 4  # enhanced transposition cutoff: look up every child before searching any
ALL_FEATURES = TT_MOVE | MIRROR | ETC

OFFSET = 32  # scores lie in -21..21; +32 makes them fit six bits as 11..53


@njit(cache=True, inline="always")
def popcount(x: int) -> int:
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56 & 0xFF


@njit(cache=True, inline="always")
def winning_cells(pos: int, mask: int) -> int:
    """The empty cells (playable now or later) where ``pos``'s player would complete four."""
    # vertical: three stones below
    r = (pos << 1) & (pos << 2) & (pos << 3)
    for d in (H1, HEIGHT, HEIGHT + 2):  # horizontal, one diagonal, the other
        p = (pos << d) & (pos << (2 * d))
        r |= p & (pos << (3 * d))
        r |= p & (pos >> d)
        p = (pos >> d) & (pos >> (2 * d))
        r |= p & (pos << d)
        r |= p & (pos >> (3 * d))
    return r & (BOARD ^ mask)


@njit(cache=True, inline="always")
def playable(mask: int) -> int:
    """One bit per non-full column: the cell where a stone would land."""
    return (mask + BOTTOM) & BOARD


@njit(cache=True)
def can_win_next(pos: int, mask: int) -> bool:
    return (winning_cells(pos, mask) & playable(mask)) != 0


@njit(cache=True, inline="always")
def non_losing_moves(pos: int, mask: int) -> int:
    """The playable cells that do not hand the opponent a win next move (0 if none)."""
    possible = playable(mask)
    threats = winning_cells(pos ^ mask, mask)
    forced = possible & threats
    if forced:
        if forced & (forced - 1):
            return 0  # two threats to block at once: lost
        possible = forced
    return possible & ~(threats >> 1)  # never play just below an opponent's winning cell


@njit(cache=True, inline="always")
def mirror_key(key: int) -> int:
    m = 0
    for c in range(WIDTH):
        m |= ((key >> (c * H1)) & 0x7F) << ((WIDTH - 1 - c) * H1)
    return m


@njit(cache=True)
def negamax(pos, mask, moves, alpha, beta, table, epoch, stats, scratch, features):
    """Fail-hard-at-the-bounds negamax of a position where nobody has won and the mover cannot
    win at once. Knuth-Moore contract: the true score ``V`` and the result ``v`` satisfy
    ``V <= v <= alpha`` when ``v <= alpha``, ``beta <= v <= V`` when ``v >= beta``, else
    ``v == V``."""
    stats[0] += 1
    if stats[3] != 0 and stats[0] > stats[3]:
        stats[4] = 1
        return 0
    nxt = non_losing_moves(pos, mask)
    if nxt == 0:
        return -((SIZE - moves) // 2)
    if moves >= SIZE - 2:
        return 0
    lo = -((SIZE - 2 - moves) // 2)  # the opponent cannot win on his next move
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    hi = (SIZE - 1 - moves) // 2  # we cannot win on this move
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta

    key = pos + mask
    mkey = mirror_key(key)
    mirrored = mkey < key and (features & MIRROR) != 0
    if mirrored:
        key = mkey
    n_entries = table.shape[0]
    slot = key % n_entries
    tt_col = -1
    entry_lo = -64
    entry_hi = 64
    if table[slot, 0] == key and (table[slot, 1] >> EPOCH_SHIFT) == epoch:
        word = table[slot, 1]
        entry_lo = ((word >> LOWER_SHIFT) & 63) - OFFSET
        entry_hi = ((word >> UPPER_SHIFT) & 63) - OFFSET
        tt_col = ((word >> MOVE_SHIFT) & 15) - 1
        if tt_col >= 0 and mirrored:
            tt_col = WIDTH - 1 - tt_col
        if alpha < entry_lo:
            alpha = entry_lo
            stats[1] += 1
            if alpha >= beta:
                return alpha
        if beta > entry_hi:
            beta = entry_hi
            stats[1] += 1
            if alpha >= beta:
                return beta

    if features & ETC:
        # Enhanced transposition cutoff: a child whose stored upper bound already proves
        # a score >= beta for us ends the node before any child is searched.
        opp = pos ^ mask
        for i in range(WIDTH):
            move = nxt & COLUMN_MASK[i]
            if move:
                ckey = opp + (mask | move)
                cm = mirror_key(ckey)
                if cm < ckey:
                    ckey = cm
                cslot = ckey % n_entries
                if table[cslot, 0] == ckey and (table[cslot, 1] >> EPOCH_SHIFT) == epoch:
                    c_hi = ((table[cslot, 1] >> UPPER_SHIFT) & 63) - OFFSET
                    if -c_hi >= beta:
                        stats[1] += 1
                        return -c_hi

    # Move ordering: the table's best move, then the moves that create the most winning
    # cells (threats), ties broken centre first. Insertion sort into this ply's scratch row.
    cols = scratch[moves]
    n = 0
    for i in range(WIDTH):
        c = CENTRE_ORDER[i]
        if nxt & COLUMN_MASK[c]:
            if c == tt_col and (features & TT_MOVE) != 0:
                score = 1000
            else:
                score = popcount(winning_cells(pos | (nxt & COLUMN_MASK[c]), mask))
            j = n
            while j > 0 and (cols[j - 1] >> 8) < score:
                cols[j] = cols[j - 1]
                j -= 1
            cols[j] = (score << 8) | c
            n += 1

    alpha0 = alpha
    best_col = -1
    for i in range(n):
        c = cols[i] & 0xFF
        move = nxt & COLUMN_MASK[c]
        score = -negamax(
            pos ^ mask,
            mask | move,
            moves + 1,
            -beta,
            -alpha,
            table,
            epoch,
            stats,
            scratch,
            features,
        )
        if stats[4]:
            return 0
        if score >= beta:
            stats[2] += 1
            _store(table, slot, key, epoch, score, entry_hi, c, mirrored)
            return score
        if score > alpha:
            alpha = score
            best_col = c
    if best_col < 0 and tt_col >= 0:
        best_col = tt_col
    if alpha > alpha0:
        # the first move that raised alpha: an exact score inside the original window
        _store(table, slot, key, epoch, alpha, alpha, best_col, mirrored)
    else:
        _store(table, slot, key, epoch, entry_lo, alpha, best_col, mirrored)
    return alpha


@njit(cache=True, inline="always")
def _store(table, slot, key, epoch, lo, hi, col, mirrored):
    """Store bounds ``lo <= V <= hi`` (tightened with what the slot already knows about this
    key in this epoch) and the best column."""
    if table[slot, 0] == key and (table[slot, 1] >> EPOCH_SHIFT) == epoch:
        word = table[slot, 1]
        prev_lo = ((word >> LOWER_SHIFT) & 63) - OFFSET
        prev_hi = ((word >> UPPER_SHIFT) & 63) - OFFSET
        if prev_lo > lo:
            lo = prev_lo
        if prev_hi < hi:
            hi = prev_hi
        if col < 0:
            col = ((word >> MOVE_SHIFT) & 15) - 1
            if col >= 0 and mirrored:
                col = WIDTH - 1 - col
    if lo < -OFFSET + 1:
        lo = -OFFSET + 1
    if hi > OFFSET - 1:
        hi = OFFSET - 1
    if col >= 0 and mirrored:
        col = WIDTH - 1 - col
    table[slot, 0] = key
    table[slot, 1] = (
        (epoch << EPOCH_SHIFT)
        | ((col + 1) << MOVE_SHIFT)
        | ((hi + OFFSET) << UPPER_SHIFT)
        | ((lo + OFFSET) << LOWER_SHIFT)
    )


@njit(cache=True)
def solve(pos, mask, moves, weak, table, epoch, stats, scratch, features):
    """The exact score (or with ``weak`` only its sign) of a position where nobody has won,
    by null-window searches that halve the interval of possible scores, the table carrying
    what each search learnt to the next. Pons' start: try the scores nearer 0 first, where
    positions of a game are most often decided."""
    if can_win_next(pos, mask):
        return 1 if weak else (SIZE + 1 - moves) // 2
    lo = -((SIZE - moves) // 2)
    hi = (SIZE + 1 - moves) // 2
    if weak:
        lo = -1
        hi = 1
    while lo < hi:
        med = lo + (hi - lo) // 2
        if med <= 0 and -((-lo) // 2) < med:  # halves toward zero
            med = -((-lo) // 2)
        elif med >= 0 and hi // 2 > med:
            med = hi // 2
        r = negamax(pos, mask, moves, med, med + 1, table, epoch, stats, scratch, features)
        if stats[4]:
            return 0
        if r <= med:
            hi = r
        else:
            lo = r
    if weak:  # a null-window result can overshoot the (-1, 1) interval: keep its sign
        return (lo > 0) - (lo < 0)
    return lo


@njit(cache=True)
def move_threats(pos: int, mask: int, col: int) -> int:
    """How many winning cells the mover has after playing ``col`` (for a quick heuristic)."""
    move = playable(mask) & COLUMN_MASK[col]
    return popcount(winning_cells(pos | move, mask))
