"""numba kernel: Connect Four (7 columns x 6 rows) solved by negamax alpha-beta on bitboards.

The memory picture first. A position is two 64-bit integers:

- ``mask``: every stone on the board;
- ``pos``: the stones of the player to move.

Bit ``7 * col + row`` is the cell of column ``col`` (0 = left) and row ``row`` (0 = bottom).
Each column has one spare bit above its top cell (row 6), so a shift by 1 moves a stone up, by
7 one column right, by 6 and 8 along the two diagonals, and nothing spills from one column
into the next. ``pos + mask`` is a unique 49-bit key of the position (adding the stones of the
mover to the mask sets the bit above each column's top stone to mark the height). After a move
the other player is to move: ``pos' = pos ^ mask`` (the opponent's stones), ``mask' = mask |
move``. Every integer is int64 (bits 0-48 carry the board; left shifts that push bits past 63
only lose bits that a later mask would drop), so numba never mixes signed and unsigned types.

Scores follow Pascal Pons' convention: from the point of view of the player to move, 0 a draw,
``22 - s`` when the mover wins with his s-th stone, ``s - 22`` when the opponent does.

The transposition table is a flat int64 array of ``2**b`` words, one word per position:

    bits 0-5  lower bound + 32   bits 6-11  upper bound + 32   bits 12-14  best column + 1
    bits 15-19  work: the bit length of the node count of the search that stored the entry
    bits 20-  the entry's identity: the search's epoch, then the key's tag

The key is mixed by a multiplication modulo 2**49 by an odd constant (a bijection of the 49-bit
keys): its top ``b - 1`` bits choose a bucket of two words (one cache line), its other
``50 - b`` bits (the tag) are stored, so bucket and tag together give back the key and a match
is never a false hit. The bucket's first word keeps the entry of the most work, the second the
latest other one. A full table (the empty board visits ~50 positions per word) used to replace
whatever the slot held, often the costly entries near the root with leaves; keeping the
costliest entry per bucket took a 2**20-word table on a 3-ply position ("434") from 257 M
nodes to 81 M, and the empty board from 159 s to 103 s CPU. The epoch (``b - 6``
bits above the tag) makes the entries of earlier solves invisible, so moving to a new position
("clear the table") costs nothing; the caller clears for real when the epochs run out. A
position and its mirror image share one entry: the key is the smaller of the two, and the
stored column is mirrored with it.

The table (134 MB by default) lives in main memory, and a probe that waits for it costs about
as much as the rest of a node: that wait, not arithmetic, made this solver slower per node
than Pons'. So each node hashes its children's keys and asks the memory for their entries
(``PREFETCH``) before it reads its own entry (already fetched by its parent) and sorts its
moves; by the time a child is entered, its entry is in the caches. The enhanced transposition
cutoff (``ETC``), which reads every child's entry before searching any, still waits for them,
so it runs only at nodes with ``ETC_MIN_EMPTY`` or more empty cells, and there it also requests
the first child's children ahead.

The search is iterative: an explicit stack (one row of ``scratch`` per ply) instead of
recursive calls, which in numba pass every array argument and check an error status on each
return. ``stats`` (``N_STATS`` int64): [0] nodes (negamax calls), [1] table probes that
changed the window or answered, [2] beta cutoffs, [3] node budget (0: none), [4] 1 when the
budget ran out (result invalid), [5] nodes whose window a parity strategy narrowed.
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.intrinsics import popcount, prefetch
from rompicapo.common.jit import njit

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

# ``features``: bit flags of the enhancements over Pons' solver, for ablation studies
TT_MOVE = 1  # try the table's best move first
MIRROR = 2  # a position and its mirror image share one table entry
ETC = 4  # enhanced transposition cutoff: look up every child before searching any
PREFETCH = 8  # at each node, ask the memory for the children's table entries first
PARITY = 16  # bounds from the parity strategies (claimeven, follow-up below an odd threat)
FORCED = 32  # a node with a single move that does not lose keeps no table entry
ALL_FEATURES = TT_MOVE | MIRROR | ETC | PREFETCH | PARITY | FORCED
DEFAULT_FEATURES = ALL_FEATURES
# ETC waits for the children's entries to arrive from memory: at every node it saved 23% of
# the nodes on Begin-Medium but cost 10% more time; at nodes with 16 or more empty cells, whose
# subtrees pay for the wait, it saves 14% of the nodes at the same time, and 12% of the time
# on Begin-Hard (measured side by side).
ETC_MIN_EMPTY = 16

# rows 0, 2, 4 (the first player's, when the second answers every move on top of it) and rows
# 1, 3, 5 of every column; a column's marker bit (the cell above its top stone, ``mask +
# BOTTOM``) lies on an odd row when it holds an odd number of stones
EVEN_ROWS = 0
ODD_ROWS = 0
for _c in range(WIDTH):
    for _r in range(HEIGHT):
        if _r & 1:
            ODD_ROWS |= 1 << (_c * H1 + _r)
        else:
            EVEN_ROWS |= 1 << (_c * H1 + _r)
NO_BOUND = 64  # larger than any score

OFFSET = 32  # scores lie in -21..21; +32 makes them fit six bits as 11..53
KEY_BITS = WIDTH * H1  # 49
KEY_MASK = (1 << KEY_BITS) - 1
WORK_SHIFT = 15  # bits 0-14: lower bound, upper bound, column
WORK_MAX = 31  # bits 15-19: the bit length of the node count of the search that stored it
DATA_BITS = 20  # the entry's identity (epoch, tag) starts here
ID_BITS = 64 - DATA_BITS
ID_MASK = (1 << ID_BITS) - 1
# odd: multiplying by it modulo 2**49 permutes the keys; its top bits depend on every key bit
HASH_MUL = 0x1_5A4E_35C2_D5B3 | 1
MIN_TABLE_LOG2 = 10
MAX_TABLE_LOG2 = 30

# columns of a stack row (``scratch[ply]``)
F_POS, F_MASK, F_ALPHA, F_BETA, F_ALPHA0, F_SLOT, F_IDENT, F_MIRR = 0, 1, 2, 3, 4, 5, 6, 7
F_LO, F_HI, F_TTCOL, F_N, F_I, F_BEST = 8, 9, 10, 11, 12, 13
F_NODES0 = 14  # the node count when the node was entered: its search's work on leaving
F_COLS = 16  # up to 7 columns in search order
F_CHILD = 24  # per column: the child's hashed key (PREFETCH)
F_PF = 31  # the key (pos + mask) of the position whose children's hashes F_CHILD holds
STACK_FIELDS = 32
STACK_ROWS = SIZE + 2
N_STATS = 6


@njit(cache=True, inline="always")
def bit_count(x: int) -> int:
    """The number of stones of a bitboard (one POPCNT), as an int64 like the bitboards."""
    return np.int64(popcount(np.uint64(x)))


@njit(cache=True, inline="always")
def winning_cells(pos: int, mask: int) -> int:
    """The empty cells (playable now or later) where ``pos``'s player would complete four."""
    # vertical: three stones below
    r = (pos << 1) & (pos << 2) & (pos << 3)
    # horizontal
    p = (pos << H1) & (pos << (2 * H1))
    r |= p & (pos << (3 * H1))
    r |= p & (pos >> H1)
    p = (pos >> H1) & (pos >> (2 * H1))
    r |= p & (pos << H1)
    r |= p & (pos >> (3 * H1))
    # diagonal one way
    p = (pos << HEIGHT) & (pos << (2 * HEIGHT))
    r |= p & (pos << (3 * HEIGHT))
    r |= p & (pos >> HEIGHT)
    p = (pos >> HEIGHT) & (pos >> (2 * HEIGHT))
    r |= p & (pos << HEIGHT)
    r |= p & (pos >> (3 * HEIGHT))
    # diagonal the other way
    p = (pos << (HEIGHT + 2)) & (pos << (2 * (HEIGHT + 2)))
    r |= p & (pos << (3 * (HEIGHT + 2)))
    r |= p & (pos >> (HEIGHT + 2))
    p = (pos >> (HEIGHT + 2)) & (pos >> (2 * (HEIGHT + 2)))
    r |= p & (pos << (HEIGHT + 2))
    r |= p & (pos >> (3 * (HEIGHT + 2)))
    return r & (BOARD ^ mask)


@njit(cache=True, inline="always")
def has_four(stones: int) -> bool:
    """Four in a line among ``stones``."""
    m = stones & (stones >> H1)
    if m & (m >> (2 * H1)):
        return True
    m = stones & (stones >> HEIGHT)
    if m & (m >> (2 * HEIGHT)):
        return True
    m = stones & (stones >> (HEIGHT + 2))
    if m & (m >> (2 * (HEIGHT + 2))):
        return True
    m = stones & (stones >> 1)
    return (m & (m >> 2)) != 0


@njit(cache=True, inline="always")
def parity_bound(pos: int, mask: int, moves: int, threats: int) -> int:
    """An upper bound on the mover's score proved by a strategy that fixes in advance which
    empty cells each player gets (Allis' claimeven and follow-up), or ``NO_BOUND``.

    A column is *odd* when it has an odd number of empty cells; the odd columns come in pairs
    plus, when the second player is to move, one more. The answering player (the one not to
    move) replies to a move on top of it in the same column, and to a move into the bottom
    cell of an odd column with the bottom cell of the column paired with it; after that
    answer every column is even again. Whatever the mover does, the answerer then gets every
    other cell of each column, starting with the second empty one; the mover the rest, at
    most one bottom of each pair. A player who never gets four in a line never wins.
    ``threats``: the opponent's winning cells (``winning_cells(pos ^ mask, mask)``).

    - The first player to move (every column even, or pairs): he gets at most the empty cells
      of rows 0, 2, 4 and the bottoms of the odd columns. No four there: he cannot win (bound
      0); and if the second then has four among the cells he surely gets (rows 1, 3, 5 above
      the odd bottoms), the second wins (bound -1).
    - The second player to move: the first answers as above, except in one odd column X where
      he has a winning cell on an even row r above its bottom. Nobody plays the cell below r
      (the second would lose at once, the first gives the cell away), so when everything else
      is full the second must, and loses. Before that the second gets at most rows 0, 2, 4
      outside X, the other odd bottoms and X's odd rows up to r - 1: no four there, he loses,
      at the latest with the first's stone on r when only X's cells from r - 1 up were empty
      (bound r / 2 - 3: -2 for r = 2, -1 for r = 4).
    """
    bases = (mask + BOTTOM) & ODD_ROWS  # the bottom empty cell of every odd column
    opp = pos ^ mask
    if (moves & 1) == 0:
        if has_four(pos | (EVEN_ROWS & ~mask) | bases):
            return NO_BOUND
        if has_four(opp | (ODD_ROWS & ~mask & ~bases)):
            return -1
        return 0
    # the first player's winning cells on even rows above an odd column's bottom
    above = bases
    for _ in range(HEIGHT - 1):
        above |= (above << 1) & BOARD
    odd_threats = threats & EVEN_ROWS & above
    if odd_threats == 0:
        return NO_BOUND
    bound = NO_BOUND
    for c in range(WIDTH):
        b = bases & COLUMN_MASK[c]
        t = odd_threats & COLUMN_MASK[c] & ~(b - 1)  # at or above the bottom: above it
        if b != 0 and t != 0:
            r = t & -t  # the lowest
            mine = pos | (EVEN_ROWS & ~mask & ~COLUMN_MASK[c]) | (bases & ~COLUMN_MASK[c])
            if not has_four(mine | ((r - b) & ODD_ROWS)):
                # at the latest, 35 + row cells are full when the second must play below r
                # (move 36 + row) and the first wins with move 37 + row, his stone
                # 19 + row / 2: the second's score is at most row / 2 - 3
                row = bit_count(r - 1) - c * H1
                bound = min(bound, row // 2 - 3)
    return bound


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
    return _non_losing(mask, winning_cells(pos ^ mask, mask))


@njit(cache=True, inline="always")
def _non_losing(mask: int, threats: int) -> int:
    """`non_losing_moves()` given the opponent's winning cells ``threats``."""
    possible = playable(mask)
    forced = possible & threats
    if forced:
        if forced & (forced - 1):
            return 0  # two threats to block at once: lost
        possible = forced
    return possible & ~(threats >> 1)  # never play just below an opponent's winning cell


@njit(cache=True, inline="always")
def mirror_key(key: int) -> int:
    """The key of the mirror image: the seven 7-bit column groups in reverse order."""
    g = 0x7F
    left = (1 << (3 * H1)) - 1  # columns 0-2
    centre = g << (3 * H1)
    # columns 4-6 and 0-2 swap places as blocks: the groups now hold 4 5 6 3 0 1 2
    k = ((key & left) << (4 * H1)) | ((key >> (4 * H1)) & left) | (key & centre)
    # then the outer groups of each block swap: 6 5 4 3 2 1 0
    outer_lo = g | (g << (4 * H1))
    outer_hi = (g << (2 * H1)) | (g << (6 * H1))
    keep = (g << H1) | (g << (5 * H1)) | centre
    return ((k & outer_lo) << (2 * H1)) | ((k & outer_hi) >> (2 * H1)) | (k & keep)


@njit(cache=True, inline="always")
def _hash(key: int) -> int:
    return (key * HASH_MUL) & KEY_MASK


@njit(cache=True, inline="always")
def _bit_length(x):
    """The number of bits of ``x >= 0`` (0 for 0): every bit below the top one set, counted."""
    x |= x >> 1
    x |= x >> 2
    x |= x >> 4
    x |= x >> 8
    x |= x >> 16
    x |= x >> 32
    return bit_count(x)


@njit(cache=True, inline="always")
def _store(table, slot, ident, lo, hi, col, mirrored, work, tag_bits):
    """Store bounds ``lo <= V <= hi`` (tightened with what the bucket already knows about this
    position in this epoch) and the best column (-1: none; unmirrored) in the two-word bucket
    at ``slot``. ``work``: the nodes the search of this position took. The bucket's first word
    keeps the entry of the most work (the costliest to recompute), its second the latest other
    one: a displaced first word moves to the second."""
    w = _bit_length(work)
    if w > WORK_MAX:
        w = WORK_MAX
    w0 = table[slot]
    w1 = table[slot + 1]
    id0 = (w0 >> DATA_BITS) & ID_MASK
    epoch = ident >> tag_bits
    live0 = (id0 >> tag_bits) == epoch
    work0 = (w0 >> WORK_SHIFT) & WORK_MAX if live0 else -1
    word = w0
    found = id0 == ident
    if not found and ((w1 >> DATA_BITS) & ID_MASK) == ident:
        word = w1
        found = True
    if found:
        prev_lo = (word & 63) - OFFSET
        prev_hi = ((word >> 6) & 63) - OFFSET
        if prev_lo > lo:
            lo = prev_lo
        if prev_hi < hi:
            hi = prev_hi
        if col < 0:
            col = ((word >> 12) & 7) - 1
            if col >= 0 and mirrored:
                col = WIDTH - 1 - col
        prev_w = (word >> WORK_SHIFT) & WORK_MAX
        if prev_w > w:
            w = prev_w
    if lo < -OFFSET + 1:
        lo = -OFFSET + 1
    if hi > OFFSET - 1:
        hi = OFFSET - 1
    if col >= 0 and mirrored:
        col = WIDTH - 1 - col
    new = (ident << DATA_BITS) | (w << WORK_SHIFT) | ((col + 1) << 12) | ((hi + OFFSET) << 6)
    new |= lo + OFFSET
    if id0 == ident or w >= work0:
        if live0 and id0 != ident:
            table[slot + 1] = w0  # the first word's entry is demoted, not lost
        table[slot] = new
    else:
        table[slot + 1] = new


@njit(cache=True, inline="always")
def _child_hashes(pos, mask, moves, table, scratch, d, tag_bits, use_mirror, use_prefetch):
    """Hash the keys of the children reached by ``moves`` into ``scratch[d, F_CHILD + col]``
    and (``use_prefetch``) ask the memory for their table entries."""
    opp = pos ^ mask
    for c in range(WIDTH):
        move = moves & COLUMN_MASK[c]
        if move:
            ckey = opp + (mask | move)
            if use_mirror:
                cm = mirror_key(ckey)
                if cm < ckey:
                    ckey = cm
            ch = _hash(ckey)
            scratch[d, F_CHILD + c] = ch
            if use_prefetch:
                prefetch(table, (ch >> tag_bits) << 1)


@njit(cache=True)
def table_bits(table) -> int:
    """log2 of the table's length (a power of two)."""
    b = 0
    while (1 << b) < table.shape[0]:
        b += 1
    return b


@njit(cache=True)
def bucket_tag_bits(log2: int) -> int:
    """The bits of a hashed key stored in each entry of a table of ``2**log2`` words: the
    other ``log2 - 1`` choose its two-word bucket."""
    return KEY_BITS - (log2 - 1)


def max_epoch(log2: int) -> int:
    """The last epoch a table of ``2**log2`` words can tell apart (the identity's bits above
    the tag)."""
    return (1 << (ID_BITS - bucket_tag_bits(log2))) - 1


@njit(cache=True)
def negamax(pos, mask, moves, alpha, beta, table, epoch, stats, scratch, features):
    """Fail-hard-at-the-bounds negamax of a position where nobody has won and the mover cannot
    win at once. Knuth-Moore contract: the true score ``V`` and the result ``v`` satisfy
    ``V <= v <= alpha`` when ``v <= alpha``, ``beta <= v <= V`` when ``v >= beta``, else
    ``v == V``. ``table``: ``2**b`` words (module docstring); ``scratch``: int64
    ``(STACK_ROWS, STACK_FIELDS)``, the explicit stack."""
    tag_bits = bucket_tag_bits(table_bits(table))
    tag_mask = (1 << tag_bits) - 1
    epoch_id = epoch << tag_bits
    use_mirror = (features & MIRROR) != 0
    use_tt_move = (features & TT_MOVE) != 0
    use_etc = (features & ETC) != 0
    use_prefetch = (features & PREFETCH) != 0
    use_parity = (features & PARITY) != 0
    use_forced = (features & FORCED) != 0
    scratch[:, F_PF] = -1
    nodes = stats[0]
    budget = stats[3]
    tt_cuts = 0
    parity_cuts = 0
    cutoffs = 0
    d = 0
    v = 0
    while True:
        # ---- enter the node at ply d: (pos, mask, alpha, beta) ----
        nodes += 1
        if budget != 0 and nodes > budget:
            stats[0] = nodes
            stats[4] = 1
            return 0
        m = moves + d
        threats = winning_cells(pos ^ mask, mask)
        nxt = _non_losing(mask, threats)
        resolved = True
        if nxt == 0:
            v = -((SIZE - m) // 2)
        elif m >= SIZE - 2:
            v = 0
        else:
            resolved = False
            lo = -((SIZE - 2 - m) // 2)  # the opponent cannot win on his next move
            if alpha < lo:
                alpha = lo
                if alpha >= beta:
                    v = alpha
                    resolved = True
            hi = (SIZE - 1 - m) // 2  # we cannot win on this move
            if use_parity:
                bound = parity_bound(pos, mask, m, threats)
                if bound < hi:
                    hi = bound
                    parity_cuts += beta > hi
            if not resolved and beta > hi:
                beta = hi
                if alpha >= beta:
                    v = beta
                    resolved = True
        key = pos + mask
        mirrored = False
        slot = -1  # no table entry
        ident = 0
        tt_col = -1
        entry_lo = -64
        entry_hi = 64
        n = 0
        forced = use_forced and not resolved and (nxt & (nxt - 1)) == 0
        if forced:
            # a single move that does not lose at once: played without a table entry, hashes
            # or ordering (its child has an entry; a transposition costs one node more)
            n = 1
            scratch[d, F_COLS] = bit_count(nxt - 1) // H1
        searched = not resolved and not forced
        if searched:
            if use_mirror:
                mk = mirror_key(key)
                if mk < key:
                    key = mk
                    mirrored = True
            h = _hash(key)
            slot = (h >> tag_bits) << 1
            ident = epoch_id | (h & tag_mask)
            word = table[slot]
            hit = ((word >> DATA_BITS) & ID_MASK) == ident
            if not hit:
                word = table[slot + 1]
                hit = ((word >> DATA_BITS) & ID_MASK) == ident
            if hit:
                entry_lo = (word & 63) - OFFSET
                entry_hi = ((word >> 6) & 63) - OFFSET
                tt_col = ((word >> 12) & 7) - 1
                if tt_col >= 0 and mirrored:
                    tt_col = WIDTH - 1 - tt_col
                if alpha < entry_lo:
                    alpha = entry_lo
                    tt_cuts += 1
                    if alpha >= beta:
                        v = alpha
                        resolved = True
                if not resolved and beta > entry_hi:
                    beta = entry_hi
                    tt_cuts += 1
                    if alpha >= beta:
                        v = beta
                        resolved = True
        searched = not resolved and not forced
        if searched and (use_prefetch or use_etc) and scratch[d, F_PF] != pos + mask:
            # the children's entries, asked for now (this node's own entry, which its parent
            # asked for, is read above: a node it settles hashes nothing)
            _child_hashes(pos, mask, nxt, table, scratch, d, tag_bits, use_mirror, use_prefetch)
            scratch[d, F_PF] = pos + mask
        if searched:
            # Move ordering: the table's best move, then the moves that create the most
            # winning cells (threats), ties broken centre first: insertion sort of
            # (score << 3 | column) into this ply's stack row.
            n = 0
            for i in range(WIDTH):
                c = CENTRE_ORDER[i]
                move = nxt & COLUMN_MASK[c]
                if move:
                    if c == tt_col and use_tt_move:
                        s = 1000
                    else:
                        s = bit_count(winning_cells(pos | move, mask))
                    e = (s << 3) | c
                    j = n
                    while j > 0 and (scratch[d, F_COLS + j - 1] >> 3) < s:
                        scratch[d, F_COLS + j] = scratch[d, F_COLS + j - 1]
                        j -= 1
                    scratch[d, F_COLS + j] = e
                    n += 1
        if searched and use_etc and SIZE - m >= ETC_MIN_EMPTY and d + 1 < STACK_ROWS:
            # the first child's children: requested now, they arrive while this node waits
            # for its own children's entries below
            c = scratch[d, F_COLS] & 7
            cmask = mask | (nxt & COLUMN_MASK[c])
            cpos = pos ^ mask
            if scratch[d + 1, F_PF] != cpos + cmask:
                _child_hashes(
                    cpos, cmask, playable(cmask), table, scratch, d + 1, tag_bits, use_mirror, True
                )
                scratch[d + 1, F_PF] = cpos + cmask
        if searched and use_etc and SIZE - m >= ETC_MIN_EMPTY:
            # Enhanced transposition cutoff: a child whose stored upper bound already proves
            # a score >= beta for us ends the node before any child is searched.
            # Branch-free over the children (their matches are unpredictable): the best of
            # their proven bounds, one test at the end.
            etc_best = -64
            for c in range(WIDTH):
                if nxt & COLUMN_MASK[c]:
                    ch = scratch[d, F_CHILD + c]
                    cslot = (ch >> tag_bits) << 1
                    cident = epoch_id | (ch & tag_mask)
                    cword = table[cslot]
                    val = OFFSET - ((cword >> 6) & 63)
                    hit = ((cword >> DATA_BITS) & ID_MASK) == cident
                    etc_best = max(etc_best, val if hit else -64)
                    cword = table[cslot + 1]
                    val = OFFSET - ((cword >> 6) & 63)
                    hit = ((cword >> DATA_BITS) & ID_MASK) == cident
                    etc_best = max(etc_best, val if hit else -64)
            if use_parity and etc_best < beta:
                # the same with the children's parity bounds (computed, not looked up)
                opp = pos ^ mask
                for c in range(WIDTH):
                    move = nxt & COLUMN_MASK[c]
                    if move:
                        cmask = mask | move
                        bound = parity_bound(opp, cmask, m + 1, winning_cells(pos | move, cmask))
                        if bound < NO_BOUND:
                            etc_best = max(etc_best, -bound)
            if etc_best >= beta:
                tt_cuts += 1
                v = etc_best
                resolved = True
        if not resolved:
            scratch[d, F_POS] = pos
            scratch[d, F_MASK] = mask
            scratch[d, F_ALPHA] = alpha
            scratch[d, F_BETA] = beta
            scratch[d, F_ALPHA0] = alpha
            scratch[d, F_SLOT] = slot
            scratch[d, F_IDENT] = ident
            scratch[d, F_MIRR] = mirrored
            scratch[d, F_LO] = entry_lo
            scratch[d, F_HI] = entry_hi
            scratch[d, F_TTCOL] = tt_col
            scratch[d, F_N] = n
            scratch[d, F_I] = 0
            scratch[d, F_BEST] = -1
            scratch[d, F_NODES0] = nodes
            # descend into the first child
            c = scratch[d, F_COLS] & 7
            move = nxt & COLUMN_MASK[c]
            pos, mask = pos ^ mask, mask | move
            alpha, beta = -beta, -alpha
            d += 1
            continue
        # ---- return v from ply d to its parents, until a parent has a child to search ----
        while True:
            if d == 0:
                stats[0] = nodes
                stats[1] += tt_cuts
                stats[2] += cutoffs
                stats[5] += parity_cuts
                return v
            d -= 1
            score = -v
            i = scratch[d, F_I]
            c = scratch[d, F_COLS + i] & 7
            beta = scratch[d, F_BETA]
            if score >= beta:
                cutoffs += 1
                if scratch[d, F_SLOT] >= 0:
                    _store(
                        table,
                        scratch[d, F_SLOT],
                        scratch[d, F_IDENT],
                        score,
                        scratch[d, F_HI],
                        c,
                        scratch[d, F_MIRR] != 0,
                        nodes - scratch[d, F_NODES0],
                        tag_bits,
                    )
                v = score
                continue
            alpha = scratch[d, F_ALPHA]
            if score > alpha:
                alpha = score
                scratch[d, F_ALPHA] = alpha
                scratch[d, F_BEST] = c
            i += 1
            n = scratch[d, F_N]
            if i < n:
                scratch[d, F_I] = i
                pos = scratch[d, F_POS]
                mask = scratch[d, F_MASK]
                c = scratch[d, F_COLS + i] & 7
                move = (mask + BOTTOM) & COLUMN_MASK[c]
                pos, mask = pos ^ mask, mask | move
                alpha, beta = -beta, -alpha
                d += 1
                break
            best = scratch[d, F_BEST]
            if best < 0:
                best = scratch[d, F_TTCOL]
            if scratch[d, F_SLOT] < 0:
                pass  # a forced move's node: no entry
            elif alpha > scratch[d, F_ALPHA0]:
                # a move raised alpha: an exact score inside the original window
                _store(
                    table,
                    scratch[d, F_SLOT],
                    scratch[d, F_IDENT],
                    alpha,
                    alpha,
                    best,
                    scratch[d, F_MIRR] != 0,
                    nodes - scratch[d, F_NODES0],
                    tag_bits,
                )
            else:
                _store(
                    table,
                    scratch[d, F_SLOT],
                    scratch[d, F_IDENT],
                    scratch[d, F_LO],
                    alpha,
                    best,
                    scratch[d, F_MIRR] != 0,
                    nodes - scratch[d, F_NODES0],
                    tag_bits,
                )
            v = alpha


@njit(cache=True)
def solve(pos, mask, moves, weak, table, epoch, stats, scratch, features):
    """The exact score (or with ``weak`` only its sign) of a position where nobody has won,
    by null-window searches, the table carrying what each search learnt to the next (MTD(f)
    with first guess 0): the first asks whether the score is above 0, each next one whether
    the score equals the bound just proved (fail high at ``g``: is it <= g? fail low: is it
    >= g?). A score near 0 takes two searches that each prove half of it, where bisecting the
    interval (Pons' order) proves bounds far from it first: on the empty board (score +1)
    those detours cost 19% of the nodes, on Begin-Hard positions the two orders are within 3%.
    ``epoch`` must be in 1 .. ``max_epoch`` of the table."""
    if can_win_next(pos, mask):
        return 1 if weak else (SIZE + 1 - moves) // 2
    lo = -((SIZE - moves) // 2)
    hi = (SIZE + 1 - moves) // 2
    if weak:
        lo = -1
        hi = 1
    med = 0
    while lo < hi:
        med = max(lo, min(hi - 1, med))
        r = negamax(pos, mask, moves, med, med + 1, table, epoch, stats, scratch, features)
        if stats[4]:
            return 0
        if r <= med:
            hi = r
            med = r - 1
        else:
            lo = r
            med = r
    if weak:  # a null-window result can overshoot the (-1, 1) interval: keep its sign
        return (lo > 0) - (lo < 0)
    return lo


@njit(cache=True)
def move_threats(pos: int, mask: int, col: int) -> int:
    """How many winning cells the mover has after playing ``col`` (for a quick heuristic)."""
    move = playable(mask) & COLUMN_MASK[col]
    return bit_count(winning_cells(pos | move, mask))
