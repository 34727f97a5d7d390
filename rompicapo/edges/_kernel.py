"""numba kernel: Blackwood's depth-first search over a fixed fill order (flat arrays only).

Memory picture (built by `rompicapo.edges.blackwood`; ``n`` cells, ``K = NC*NC`` keys,
``NC`` = number of colours including grey):

- fill order, per position ``i`` in ``0..n-1``: ``pos_cell[i]`` (the cell filled at ``i``),
  ``pos_left[i]`` and ``pos_below[i]`` (the neighbour cells whose colours form the key; ``n``, a
  sentinel cell that always shows grey, on the rim), ``pos_table[i]`` (which candidate table),
  ``pos_quota[i]`` (heuristic sides the board must hold once ``i`` is filled, 0 = no quota),
  ``pos_allow[i]`` (breaks allowed in total once ``i`` is filled) and ``pos_joints[i]`` (inner
  joints among the first ``i`` positions: a partial board of depth ``d`` with ``b`` breaks scores
  ``pos_joints[d] - b``; length ``n + 1``);
- checks, for orders that fill a cell after its upper or right neighbour (e.g. the frame
  first): ``pos_above[i]``/``pos_right[i]``, the placed neighbour whose bottom/left colour the
  candidate's top/right must equal (``n`` = no check: ``bottom[n] = left[n] = -1``). With
  ``checked`` false (Blackwood's orders) the kernel never looks at them;
- candidate tables: the list for table ``t`` and key ``left*NC + below`` is the entry range
  ``tab_start[t*K + key] .. tab_start[t*K + key + 1]``;
- entries (pre-rotated pieces), one int32 word each, ``ent[j]``: bits 0-9 the piece *type*
  (identical pieces, up to rotation, share a type and a count of copies), 10-11 the
  rotation, 12-17 the top colour, 18-23 the right colour, 24-26 the heuristic side count, 27 the
  break flag. One word per entry keeps a whole list in one or two cache lines; ``ent2[j]`` holds
  the bottom and left colours (``bottom | left << 6``), read only by checked orders;
- state: ``avail[type]`` (copies not on the board), ``placed[i]`` (entry index at position
  ``i``, -1 empty), ``top[cell]``/``right[cell]`` (colours shown by the placed pieces; index
  ``n`` is grey), ``cum_breaks[i]``/``cum_heur[i]`` (totals over positions ``0..i-1``),
  ``counters``.

Work is counted as Bucas counts it: ``placements`` = forward placements, ``nodes`` = loop
iterations (one per placement or retreat; Blackwood's node count).

Three kernels: `walk()`, Blackwood's search for orders in which every cell's checked
neighbours are its keys (his order, the row scan: the hot path, laid out for speed, see its
docstring); `search()`, the same search for any order (upper and right neighbours checked);
`exact_search()`, perfect boards with forward checking. ``walk`` and ``search`` see the same
nodes on the same tables (tests/edges/test_edges_kernel_speedpath.py). They share no helpers:
inlined helpers cost the kernels dearly (see the note above ``exact_search``).
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit

# Entry layout (see the module docstring); colours below 64 and pieces below 1024 fit.
PIECE_MASK = 0x3FF
ROT_SHIFT = 10
TOP_SHIFT = 12
RIGHT_SHIFT = 18
HEUR_SHIFT = 24
BREAK_SHIFT = 27
COLOUR_MASK = 0x3F

# counters[] slots
C_NODES = 0
C_PLACEMENTS = 1
C_DEPTH = 2  # current depth (position to fill next)
C_BEST_DEPTH = 3
C_BEST_SCORE = 4
C_STATUS = 5
N_COUNTERS = 6

# new_state() tuple slots read by the caller
S_HEAT = 8
S_BEST = 9

# status values
RUNNING = 0  # node budget of this call spent; call again to continue
SOLVED = 1  # every position filled
EXHAUSTED = 2  # the whole tree (under these settings) was searched


def pack_entry(piece, rotation, top, right, heur, brk):
    """One table entry as the kernel reads it (numpy-vectorisable)."""
    return (
        piece
        | (rotation << ROT_SHIFT)
        | (top << TOP_SHIFT)
        | (right << RIGHT_SHIFT)
        | (heur << HEUR_SHIFT)
        | (brk << BREAK_SHIFT)
    )


@njit(cache=True)
def search(
    pos_cell,
    pos_left,
    pos_below,
    pos_table,
    pos_above,
    pos_right,
    pos_quota,
    pos_allow,
    pos_joints,
    n_keys,
    n_colours,
    tab_start,
    ent,
    ent2,
    checked,
    avail,
    placed,
    top,
    right,
    bottom,
    left,
    cum_breaks,
    cum_heur,
    heat,
    best_placed,
    counters,
    max_nodes,
):
    """Run Blackwood's backtracking from the saved state for at most ``max_nodes`` iterations.

    Returns nothing; ``counters[C_STATUS]`` says why it stopped (RUNNING: budget spent, call
    again with the same arrays to continue; SOLVED; EXHAUSTED). Whenever a placement makes a
    partial board scoring more than ``counters[C_BEST_SCORE]``, the placed entries are copied to
    ``best_placed`` (-1 beyond the depth) and the best score and depth updated.
    """
    n = pos_cell.shape[0]
    i = counters[C_DEPTH]
    nodes = counters[C_NODES]
    placements = counters[C_PLACEMENTS]
    best_depth = counters[C_BEST_DEPTH]
    best_score = counters[C_BEST_SCORE]
    limit = nodes + max_nodes
    status = RUNNING
    while nodes < limit:
        nodes += 1
        cell = pos_cell[i]
        base = pos_table[i] * n_keys + right[pos_left[i]] * n_colours + top[pos_below[i]]
        stop = tab_start[base + 1]
        prev = placed[i]
        if prev >= 0:
            # back at this position: free its piece and resume after the entry it held
            avail[ent[prev] & PIECE_MASK] += 1
            j = prev + 1
        else:
            j = tab_start[base]
        allow = pos_allow[i] - cum_breaks[i]
        need = pos_quota[i] - cum_heur[i]
        need_top = -1
        need_right = -1
        if checked:
            need_top = bottom[pos_above[i]]
            need_right = left[pos_right[i]]
        found = -1
        while j < stop:
            e = ent[j]
            # break entries sit at the end of each list, so the first one over the allowance
            # ends the scan
            if (e >> BREAK_SHIFT) > allow:
                break
            if avail[e & PIECE_MASK] != 0:
                # lists are sorted by heuristic count, so the first unused candidate under the
                # quota ends the scan too (exact pruning, Blackwood's "break out of the loop")
                if ((e >> HEUR_SHIFT) & 7) < need:
                    break
                if checked and (
                    (need_top >= 0 and ((e >> TOP_SHIFT) & COLOUR_MASK) != need_top)
                    or (need_right >= 0 and ((e >> RIGHT_SHIFT) & COLOUR_MASK) != need_right)
                ):
                    j += 1
                    continue
                found = j
                break
            j += 1
        if found >= 0:
            e = ent[found]
            avail[e & PIECE_MASK] -= 1
            placed[i] = found
            top[cell] = (e >> TOP_SHIFT) & COLOUR_MASK
            right[cell] = (e >> RIGHT_SHIFT) & COLOUR_MASK
            if checked:
                bottom[cell] = ent2[found] & COLOUR_MASK
                left[cell] = ent2[found] >> 6
            brk = cum_breaks[i] + (e >> BREAK_SHIFT)
            cum_breaks[i + 1] = brk
            cum_heur[i + 1] = cum_heur[i] + ((e >> HEUR_SHIFT) & 7)
            heat[cell] += 1
            placements += 1
            i += 1
            if i > best_depth:
                best_depth = i
            sc = pos_joints[i] - brk
            if sc > best_score:
                best_score = sc
                for k in range(n):
                    best_placed[k] = placed[k] if k < i else -1
            if i == n:
                status = SOLVED
                break
        else:
            placed[i] = -1
            i -= 1
            if i < 0:
                status = EXHAUSTED
                i = 0
                break
    counters[C_DEPTH] = i
    counters[C_NODES] = nodes
    counters[C_PLACEMENTS] = placements
    counters[C_BEST_DEPTH] = best_depth
    counters[C_BEST_SCORE] = best_score
    counters[C_STATUS] = status


# The walking kernel's lists: each (table, key) list is followed by one SENTINEL word, which is
# at or above either scan limit, so the scan needs no end index. An entry is below LIM_EXACT
# when it has no break and below LIM_BREAK always (the break flag is bit 27, nothing above it).
LIM_EXACT = 1 << BREAK_SHIFT
LIM_BREAK = 1 << (BREAK_SHIFT + 1)
SENTINEL = LIM_BREAK


# The walking kernel's cells show one word each, ``shown[cell]``: the top colour in bits 0-5
# and the right colour in bits 6-11 (the entry's bits 12-23 as they are), so a list's key is
# ``(shown[left] & SHOWN_RIGHT) | (shown[below] & COLOUR_MASK)`` = right << 6 | top: one store
# per placement, one array and no multiply (its tables have 64 x 64 keys each).
SHOWN_MASK = 0xFFF
SHOWN_RIGHT = COLOUR_MASK << 6
WALK_KEYS = 1 << 12


# The walking kernel reads one int32 array, ``code``: the per-position records first
# (``code[i * P_STRIDE + field]``), then each table's start words (``WALK_KEYS`` per table: the
# index in ``code`` where the list of that key starts), then the lists themselves. One array for
# all three (seven before the records) keeps the hot loop's base pointers in registers: measured
# x1.025 placements per CPU second over three arrays (paired, 2026-12-02, same placements).
P_CELL = 0
P_LEFT = 1
P_BELOW = 2
P_TBASE = 3  # where the start words of the position's table begin in ``code``
P_QUOTA = 4
P_ALLOW = 5
P_JOINTS = 6  # inner joints among positions 0..i (pos_joints[i + 1])
P_KIND = 7  # which checks the position's scan needs:
KIND_PLAIN = 0  # no quota, no breaks
KIND_QUOTA = 1  # a quota, no breaks
KIND_BREAKS = 2  # breaks allowed, no quota
KIND_BOTH = 3
P_STRIDE = 8
# A mask that cannot change a valid index but tells the compiler it is not negative, so numba's
# negative-index wraparound drops out of the hot loop. Indexes read from arrays are cast to
# uint64 instead (no instruction at all: numba wraps only signed indexes; the scan's step went
# from 9 to 7 instructions, measured +13% placements per CPU second).
NONNEG = 0x7FFFFFFF


@njit(cache=True, inline="never")
def _keep_best(best_placed, placed, i):
    """``best_placed[:i] = placed[:i]`` and ``best_placed[i:] = -1``, as loops in a function of
    their own (a new best is rare). A slice assignment in `walk()` also compiled numba's
    message for mismatched shapes (f-strings and their Unicode machinery): 3.7 of the 9 CPU
    seconds that ``edges solve`` compiled on a cold cache."""
    for k in range(i):
        best_placed[k] = placed[k]
    for k in range(i, best_placed.shape[0]):
        best_placed[k] = -1


@njit(cache=True)
def walk(
    code,
    avail,
    placed,
    shown,
    cum_breaks,
    cum_heur,
    heat,
    best_placed,
    counters,
    max_nodes,
):
    """`search()` for orders with no checked neighbours (Blackwood's, the row scan), on
    sentinel-terminated lists, all in ``code`` (built by `walk_code()`): position ``i``'s
    constants are ``code[i * P_STRIDE + P_*]``; its list for key ``k`` (``right << 6 | top`` of
    the left and lower neighbours) starts at ``code[code[code[i * P_STRIDE + P_TBASE] + k]]``
    and ends at a word ``>= SENTINEL``; ``placed[i]`` indexes ``code`` (the entry words sit
    there as they are); ``shown[cell]`` is the cell's top and right colour in one word
    (``SHOWN_MASK``; ``shown[n]`` = 0, grey). Same state (``shown`` in place of ``top`` and
    ``right``), counters and node count as `search()`: the same tables give the same nodes,
    placements and boards. ``heat`` must start at zero with the state: the best depth is read
    from it.

    Why it is faster: a retreat resumes the scan of the position it returns to at once (no key
    to recompute); the scan stops on one word compare (the sentinel, or the first break entry
    over the allowance); the breaks and heuristic sides so far live in registers; a cell shows
    its two key colours in one word; the nodes left are counted down; indexes read from arrays
    are cast to uint64, which numba does not wrap around; records, start words and lists share
    one array (one base pointer instead of three).

    Measured slower in paired runs (2026-12-01, same placements), so left out: the board's
    entries and per-position heat in the records (0.99); the piece counts, colours, entries and
    heat in one working array (0.97); each position's key written by its neighbours when placed
    (0.95); the best-board copy outside the inner loop (0.94) or as element loops (0.93); a
    record after the last position instead of the depth test (0.89); uint64 record offsets
    (0.92). Measured slower on 2026-12-02 (three tables, 3 x 100 M placements, old and new
    kernel in one process advanced in lockstep, so both see the same load; two copies of the
    same kernel agree within 1%): the next position's key from the placed entry's word in a
    register instead of its cell's stored word, with the previous cell's key bits as a record
    field (0.93 with the quota and allowance packed in one field, 0.90 with a 16-word record;
    the 16-word record alone 0.96); the quota as an unsigned range test ending the scan at the
    first entry under it, used or not, as libblackwood does (0.85), or as a plain scan limit
    with the heuristic counts stored inverted (7 - h) in the walker's entries (0.95); the
    breaks and heuristic sides in one register (0.98); the quota scan in two copies by depth
    (0.87); the loop body twice (each copy sees alternate depths; 0.99); the shown colours in
    ``code`` too (0.95). Removing the heat count and the best-board test altogether (which
    changes the results, to measure them) was 0.99: that bookkeeping costs nothing measurable.
    On boards of ``blackwood.MACHINE_CELLS`` cells or more the same search runs as a machine
    specialised to the plan (`rompicapo.edges._walk_machine`, x1.24 over this kernel on
    Eternity II), with libblackwood's adaptive filter around it (lists without the pieces of
    the depths the search has not gone back to for a while, a copy of ``code`` made by
    `filter_walk_code()`, ``blackwood.Walker``): scans deep in the tree meet such pieces
    in 60-80% of their steps, shallow ones in 1-3%. This kernel serves the smaller boards,
    where a machine's compilation (1-3 s) would cost more than the search.
    This loop's speed hangs on how LLVM allocates its registers: changes that remove
    instructions can still lose.
    """
    n = placed.shape[0]
    i = counters[C_DEPTH]
    depth0 = i
    best_depth = counters[C_BEST_DEPTH]
    best_score = counters[C_BEST_SCORE]
    # nodes left in this call, counted down to zero: no limit held in a register
    left = max(max_nodes, 0)
    status = RUNNING
    if left > 0:
        left -= 1
        brk = cum_breaks[i]
        heu = cum_heur[i]
        j = placed[i]
        if j >= 0:
            # stopped just after retreating to i: free its piece, resume after its entry
            avail[code[j] & PIECE_MASK] += 1
            j += 1
        else:
            p = (i * P_STRIDE) & NONNEG
            key = (shown[code[p + P_LEFT]] & SHOWN_RIGHT) | (shown[code[p + P_BELOW]] & COLOUR_MASK)
            j = code[np.uint64(code[p + P_TBASE] + key)]
        while True:
            p = (i * P_STRIDE) & NONNEG
            # The scan in four copies, one per kind of position (quota, breaks, both, neither):
            # each checks only what its positions need, and each copy's branches get their own
            # history in the predictor (measured +6% placements per CPU second). In every copy:
            # the sentinel or the first break entry over the allowance ends the scan; the first
            # unused candidate under the quota ends it too (lists are sorted by heuristic
            # count), by a word over every limit, which sends the code below to the retreat.
            kind = code[p + P_KIND]
            if kind == KIND_PLAIN:
                lim = LIM_EXACT
                e = code[np.uint64(j)]
                h = 0
                while e < lim:
                    if avail[e & PIECE_MASK] != 0:
                        h = (e >> HEUR_SHIFT) & 7
                        break
                    j += 1
                    e = code[np.uint64(j)]
            elif kind == KIND_QUOTA:
                lim = LIM_EXACT
                need = code[p + P_QUOTA] - heu
                e = code[np.uint64(j)]
                h = 0
                while e < lim:
                    if avail[e & PIECE_MASK] != 0:
                        h = (e >> HEUR_SHIFT) & 7
                        if h < need:
                            e = SENTINEL
                        break
                    j += 1
                    e = code[np.uint64(j)]
            elif kind == KIND_BREAKS:
                lim = LIM_BREAK if code[p + P_ALLOW] > brk else LIM_EXACT
                e = code[np.uint64(j)]
                h = 0
                while e < lim:
                    if avail[e & PIECE_MASK] != 0:
                        h = (e >> HEUR_SHIFT) & 7
                        break
                    j += 1
                    e = code[np.uint64(j)]
            else:
                lim = LIM_BREAK if code[p + P_ALLOW] > brk else LIM_EXACT
                need = code[p + P_QUOTA] - heu
                e = code[np.uint64(j)]
                h = 0
                while e < lim:
                    if avail[e & PIECE_MASK] != 0:
                        h = (e >> HEUR_SHIFT) & 7
                        if h < need:
                            e = SENTINEL
                        break
                    j += 1
                    e = code[np.uint64(j)]
            if e < lim:
                avail[e & PIECE_MASK] -= 1
                placed[np.uint64(i)] = j
                cell = np.uint64(code[p + P_CELL])
                shown[cell] = (e >> TOP_SHIFT) & SHOWN_MASK
                brk += e >> BREAK_SHIFT
                heu += h
                i += 1
                heat[cell] += 1
                sc = code[p + P_JOINTS] - brk
                if sc > best_score:
                    best_score = sc
                    # a call, not an element loop here: inlined, the vectorised copy's set-up took
                    # registers from the whole loop (measured +3-6%)
                    _keep_best(best_placed, placed, i)
                if i == n:
                    status = SOLVED
                    break
                if left == 0:
                    placed[i] = -1  # the next call starts on a fresh position
                    break
                left -= 1
                p = (i * P_STRIDE) & NONNEG
                key = (shown[np.uint64(code[p + P_LEFT])] & SHOWN_RIGHT) | (
                    shown[np.uint64(code[p + P_BELOW])] & COLOUR_MASK
                )
                j = code[np.uint64(code[p + P_TBASE] + key)]
            else:
                # (placed[i] keeps its stale entry: the walk reads placed[k] only for k < i,
                # and the call that stops here marks the fresh position itself)
                i -= 1
                if i < 0:
                    status = EXHAUSTED
                    break
                if left == 0:
                    break
                left -= 1
                j = placed[np.uint64(i)]
                e = code[np.uint64(j)]
                avail[e & PIECE_MASK] += 1
                brk -= e >> BREAK_SHIFT
                heu -= (e >> HEUR_SHIFT) & 7
                j += 1
        if status == RUNNING:
            # the totals of the positions below i, for the next call (a piece still on i after
            # a retreat is freed by that call, so it does not count)
            j = placed[i]
            if j >= 0:
                brk -= code[j] >> BREAK_SHIFT
                heu -= (code[j] >> HEUR_SHIFT) & 7
            cum_breaks[i] = brk
            cum_heur[i] = heu
    # the deepest position reached: positions are reached in order, so the ones with
    # placements are 0..d-1 (heat starts at zero with the state; one register less in the loop)
    while best_depth < n and heat[code[best_depth * P_STRIDE + P_CELL]] != 0:
        best_depth += 1
    # every node placed (one deeper) or retreated (one shallower): the placements follow from
    # the nodes and the depths, one register less in the loop
    nodes = max(max_nodes, 0) - left
    counters[C_PLACEMENTS] += (nodes + i - depth0) // 2
    counters[C_DEPTH] = max(i, 0)
    counters[C_NODES] += nodes
    counters[C_BEST_DEPTH] = best_depth
    counters[C_BEST_SCORE] = best_score
    counters[C_STATUS] = status


def walk_code(
    pos_cell, pos_left, pos_below, pos_table, pos_quota, pos_allow, pos_joints, starts, lists
):
    """The `walk()` kernel's ``code`` array: the per-position records (``P_*`` fields), then
    ``starts`` (``WALK_KEYS`` words per table: the index in ``lists`` of the list of each key),
    then ``lists`` (sentinel-terminated), with every index moved to its place in ``code``."""
    n = len(pos_cell)
    at_starts = n * P_STRIDE
    at_lists = at_starts + len(starts)
    info = np.zeros((n, P_STRIDE), dtype=np.int64)
    info[:, P_CELL] = pos_cell
    info[:, P_LEFT] = pos_left
    info[:, P_BELOW] = pos_below
    info[:, P_TBASE] = at_starts + np.asarray(pos_table, dtype=np.int64) * WALK_KEYS
    info[:, P_QUOTA] = pos_quota
    info[:, P_ALLOW] = pos_allow
    info[:, P_JOINTS] = pos_joints[1 : n + 1]
    info[:, P_KIND] = KIND_QUOTA * (pos_quota > 0) + KIND_BREAKS * (pos_allow > 0)
    code = np.concatenate((info.ravel(), np.asarray(starts, dtype=np.int64) + at_lists, lists))
    if code.max(initial=0) > np.iinfo(np.int32).max:
        raise ValueError("tables too large for the walking kernel's int32 code")
    return code.astype(np.int32)


@njit(cache=True)
def filter_walk_code(code, n, lists_at, fixed, out, to_out, to_code):
    """libblackwood's adaptive filter, made exact: ``out`` (``2 * len(code)`` words) is
    ``code`` followed by a copy of its start words and lists without the entries of the piece
    types in ``fixed`` (``fixed[type] != 0``: every copy is on the positions below the walk's
    floor). While the search stays at the floor or deeper those pieces cannot be free, so the
    scans find the same candidates in shorter lists. The walking machine
    (`rompicapo.edges._walk_machine`) reads the copy by adding ``len(code) - n *
    P_STRIDE`` to a record's table base; ``code``'s own words keep their indexes in ``out``
    (a ``placed`` index below the floor reads the same word). ``lists_at``: where the lists
    begin in ``code``.

    ``to_out[q]``: the index in ``out`` of the filtered word kept for ``code[q]`` (a dropped
    entry: of the next word kept); ``to_code[w]``: the index in ``code`` of ``out[w]``."""
    size = code.shape[0]
    starts_at = n * P_STRIDE
    shift = size - starts_at  # from a start word in code to its filtered copy
    for q in range(size):
        out[q] = code[q]
        to_code[q] = q
    w = size + (lists_at - starts_at)
    for q in range(lists_at, size):
        e = code[q]
        to_out[q] = w
        if e >= SENTINEL or fixed[e & PIECE_MASK] == 0:
            out[w] = e
            to_code[w] = q
            w += 1
    for q in range(starts_at, lists_at):
        out[q + shift] = to_out[code[q]]


def new_state(n_cells: int, copies: np.ndarray):
    """Fresh state arrays for `search()` (start at position 0, nothing placed);
    ``copies[type]`` = how many pieces of each type the puzzle has."""
    avail = copies.astype(np.int16)
    placed = np.full(n_cells, -1, dtype=np.int32)
    top = np.zeros(n_cells + 1, dtype=np.int32)
    right = np.zeros(n_cells + 1, dtype=np.int32)
    bottom = np.full(n_cells + 1, -1, dtype=np.int32)
    left = np.full(n_cells + 1, -1, dtype=np.int32)
    cum_breaks = np.zeros(n_cells + 1, dtype=np.int32)
    cum_heur = np.zeros(n_cells + 1, dtype=np.int32)
    heat = np.zeros(n_cells, dtype=np.int64)
    best_placed = np.full(n_cells, -1, dtype=np.int32)
    counters = np.zeros(N_COUNTERS, dtype=np.int64)
    counters[C_BEST_SCORE] = -1
    return (
        avail,
        placed,
        top,
        right,
        bottom,
        left,
        cum_breaks,
        cum_heur,
        heat,
        best_placed,
        counters,
    )


# --------------------------------------------------------------------------------------------
# Exact search for perfect boards: forward checking and fail-first candidate order
# --------------------------------------------------------------------------------------------
# The placing and retreating steps repeat those of search() on purpose: shared through
# inline="always" helpers they cost both kernels dearly (measured: Blackwood's kernel on
# Eternity II 47-55 -> 29-31 M placements per CPU second, this one 45 -> 36 M nodes/s).


@njit(cache=True)
def exact_search(
    pos_cell,
    pos_left,
    pos_below,
    pos_table,
    pos_above,
    pos_right,
    pos_joints,
    n_keys,
    n_colours,
    tab_start,
    ent,
    ent2,
    checked,
    avail,
    placed,
    top,
    right,
    bottom,
    left,
    heat,
    best_placed,
    counters,
    cand,
    n_cand,
    cand_at,
    max_nodes,
):
    """Depth-first search for a perfect board (no quota, no breaks) from the saved state, for
    at most ``max_nodes`` iterations; same tables, state and counters as `search()`.

    On arriving at a position the kernel lists its candidates once (``cand[i, :n_cand[i]]``,
    ``cand_at[i]`` = the one on the board): the unused entries of its list that pass the upper
    and right checks and leave the next position at least one candidate (*forward checking*,
    counted in the next position's list, the candidate's own piece excluded), sorted by that
    count, fewest first (*fail-first*, stable): small subtrees are searched
    first, which on Brendan's sets reaches the first perfect board after about 3x fewer nodes
    than the table order (measured; see ``blackwood.Settings.value_order``).

    The best score is ``pos_joints`` of the deepest position reached (every placed joint
    matches).
    """
    n = pos_cell.shape[0]
    width = cand.shape[1]
    i = counters[C_DEPTH]
    nodes = counters[C_NODES]
    placements = counters[C_PLACEMENTS]
    best_depth = counters[C_BEST_DEPTH]
    best_score = counters[C_BEST_SCORE]
    limit = nodes + max_nodes
    status = RUNNING
    support = np.empty(width, dtype=np.int64)
    while nodes < limit:
        nodes += 1
        cell = pos_cell[i]
        prev = placed[i]
        if prev >= 0:
            # back at this position: free its piece and take the next listed candidate
            avail[ent[prev] & PIECE_MASK] += 1
            k = cand_at[i] + 1
        else:
            base = pos_table[i] * n_keys + right[pos_left[i]] * n_colours + top[pos_below[i]]
            need_top = -1
            need_right = -1
            if checked:
                need_top = bottom[pos_above[i]]
                need_right = left[pos_right[i]]
            # the next position's list: its key part not shown by this cell is fixed
            via_right = False
            via_top = False
            fixed = 0
            if i + 1 < n:
                via_right = pos_left[i + 1] == cell
                via_top = pos_below[i + 1] == cell
                fixed = pos_table[i + 1] * n_keys
                if not via_right:
                    fixed += right[pos_left[i + 1]] * n_colours
                if not via_top:
                    fixed += top[pos_below[i + 1]]
            m = 0
            for j in range(tab_start[base], tab_start[base + 1]):
                e = ent[j]
                if avail[e & PIECE_MASK] == 0:
                    continue
                if checked and (
                    (need_top >= 0 and ((e >> TOP_SHIFT) & COLOUR_MASK) != need_top)
                    or (need_right >= 0 and ((e >> RIGHT_SHIFT) & COLOUR_MASK) != need_right)
                ):
                    continue
                f = 1
                if i + 1 < n:
                    # entries of the next position's list still usable once this one is placed
                    nxt = fixed
                    if via_right:
                        nxt += ((e >> RIGHT_SHIFT) & COLOUR_MASK) * n_colours
                    if via_top:
                        nxt += (e >> TOP_SHIFT) & COLOUR_MASK
                    t = e & PIECE_MASK
                    avail[t] -= 1
                    f = 0
                    for q in range(tab_start[nxt], tab_start[nxt + 1]):
                        if avail[ent[q] & PIECE_MASK] != 0:
                            f += 1
                    avail[t] += 1
                    if f == 0:
                        continue
                # insertion sort, fewest live candidates next first (stable)
                q = m
                while q > 0 and support[q - 1] > f:
                    cand[i, q] = cand[i, q - 1]
                    support[q] = support[q - 1]
                    q -= 1
                cand[i, q] = j
                support[q] = f
                m += 1
            n_cand[i] = m
            k = 0
        if k < n_cand[i]:
            j = cand[i, k]
            cand_at[i] = k
            e = ent[j]
            avail[e & PIECE_MASK] -= 1
            placed[i] = j
            top[cell] = (e >> TOP_SHIFT) & COLOUR_MASK
            right[cell] = (e >> RIGHT_SHIFT) & COLOUR_MASK
            if checked:
                bottom[cell] = ent2[j] & COLOUR_MASK
                left[cell] = ent2[j] >> 6
            heat[cell] += 1
            placements += 1
            i += 1
            if i > best_depth:
                best_depth = i
                best_score = pos_joints[i]
                for q in range(n):
                    best_placed[q] = placed[q] if q < i else -1
            if i == n:
                status = SOLVED
                break
        else:
            placed[i] = -1
            i -= 1
            if i < 0:
                status = EXHAUSTED
                i = 0
                break
    counters[C_DEPTH] = i
    counters[C_NODES] = nodes
    counters[C_PLACEMENTS] = placements
    counters[C_BEST_DEPTH] = best_depth
    counters[C_BEST_SCORE] = best_score
    counters[C_STATUS] = status
