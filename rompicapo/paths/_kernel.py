"""numba kernels of the path constructor: Warnsdorff's rule with Pósa rotations, table-free.

Memory picture (per cell, 32-bit boards: exactly 9 bytes; 64-bit boards: 17 bytes):

- ``state``  uint8[n]: bit 7 set = the cell is on the path; bits 0..6 = its *free degree*, the
  number of its neighbours not on the path. The free degree is kept for every cell, on the path
  or not: it is a function of the set of visited cells only, so visiting (or un-visiting) a cell
  is "flip its bit, add -1 (or +1) to each neighbour" whatever the order of the path, and
  Pósa rotations, which reorder the path without changing its cells, leave it untouched.
  A free cell reads ``state < 128``, and then ``state`` *is* its degree: one load answers both
  questions the greedy step asks.
- ``path``   int32/int64[n]: the cells in path order (flat row-major indices ``r * cols + c``).
- ``pos``    int32/int64[n]: the position of each visited cell in ``path`` (for rotations).

Neighbours are computed from coordinates, never tabulated. The current cell's (row, col) is
carried along the walk (a move adds (dr, dc)), so no division happens in the hot loop. Cells at
least ``reach`` away from every side take a branch with no bounds checks (the flat offset
``dr * cols + dc`` is always inside the board there); this is the framed-board trick of the
old C program without paying memory for the frame.

All kernels take and return plain integers and arrays; the Python layer owns the policy
(budgets, restarts, seeds).
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit

VISITED = 128  # bit 7 of state

# Status codes returned by extend_path.
DONE = 0  # the path covers every cell (and closes, if asked)
PAUSED = 1  # reached the requested length; call again to go on
BUDGET = 2  # the rotation budget of this attempt is spent
STUCK = 3  # no rotation is possible at all (the end has one neighbour, the previous cell)

# Tie-break modes for Warnsdorff's rule among free neighbours of equal free degree.
TIE_CENTRE = 0  # the neighbour farthest from the centre of the board (the article's rule)
TIE_ORDER = 1  # the first in the (seeded) move order
TIE_RANDOM = 2  # a uniformly random one (one random number per tie)


KEY_SHIFT = 52  # degree (< 256) in bits 52..59 of a candidate's key
FREE_LIMIT = VISITED << KEY_SHIFT  # keys at or above this are cells already on the path
# tie value in bits 4..50 (|dr a0 + dc b0| < 2^40 on any board that fits in memory), the move
# index in bits 0..3
TB_BITS = 47


@njit(cache=True, nogil=True, inline="always")
def _best_key(state, cur, r, c, geo, drt, dct, offt, tie, rng, decrement):
    """Scan cur's neighbours (lowering their degree first if ``decrement``) and return the
    least key ``degree << 52 | tie value << 4 | move index``; a key >= FREE_LIMIT means no
    free neighbour.

    The moves come as tuples so that numba compiles one specialisation per move count with the
    loop fully unrolled and the offsets in registers; the min is taken without data-dependent
    branches (degrees look random to a branch predictor, a conditional move does not care).
    """
    rows, cols, rlo, rhi, clo, chi, s1r, s1c = geo
    best = np.int64(1) << 62
    a0 = 2 * r - s1r
    b0 = 2 * c - s1c
    if rlo <= r < rhi and clo <= c < chi:
        # interior: every move stays on the board, no bounds checks
        for k in range(len(offt)):
            # unsigned: numba then skips its negative-index fix-up on every access
            nb = np.uint64(cur + offt[k])
            if decrement:
                d = np.int64(state[nb]) - 1
                state[nb] = d
            else:
                d = np.int64(state[nb])
            best = min(best, _key(d, k, a0, b0, drt[k], dct[k], tie, rng))
    else:
        for k in range(len(offt)):
            rr = r + drt[k]
            cc = c + dct[k]
            if 0 <= rr < rows and 0 <= cc < cols:
                nb = np.uint64(rr * cols + cc)
                if decrement:
                    d = np.int64(state[nb]) - 1
                    state[nb] = d
                else:
                    d = np.int64(state[nb])
                best = min(best, _key(d, k, a0, b0, drt[k], dct[k], tie, rng))
    return best


@njit(cache=True, nogil=True, inline="always")
def _key(d, k, a0, b0, dr, dc, tie, rng):
    if tie == TIE_CENTRE:
        # |2(r+dr) - s|^2 + |2(c+dc) - s|^2 = const + 4 (dr a0 + dc b0 + dr^2 + dc^2): the
        # bracket orders the candidates exactly as the squared distance does
        tb = (np.int64(1) << (TB_BITS - 1)) - (dr * a0 + dc * b0 + dr * dr + dc * dc)
    elif tie == TIE_RANDOM:
        tb = np.int64((rng >> np.uint64(6 * k)) & np.uint64(63))
    else:
        tb = np.int64(0)
    return (d << KEY_SHIFT) | (tb << 4) | k


@njit(cache=True, nogil=True)
def _next_random(rng):
    """splitmix64: a fast, well-mixed 64-bit generator (state in, (state, value) out)."""
    rng = (rng + np.uint64(0x9E3779B97F4A7C15)) & np.uint64(0xFFFFFFFFFFFFFFFF)
    z = rng
    z = ((z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & np.uint64(0xFFFFFFFFFFFFFFFF)
    z = ((z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & np.uint64(0xFFFFFFFFFFFFFFFF)
    z = z ^ (z >> np.uint64(31))
    return rng, z


@njit(cache=True, nogil=True)
def init_state(rows, cols, dr, dc, state):
    """Fill ``state`` with every cell's number of in-board neighbours (no cell visited).

    Cells at least ``reach`` from every side have all their moves on the board; only the
    frame around them needs the bounds checks.
    """
    nm = dr.shape[0]
    reach = 0
    for k in range(nm):
        reach = max(reach, abs(dr[k]), abs(dc[k]))
    for r in range(rows):
        base = r * cols
        inner = reach <= r < rows - reach
        for c in range(cols):
            if inner and reach <= c < cols - reach:
                state[base + c] = nm
                continue
            d = 0
            for k in range(nm):
                rr = r + dr[k]
                cc = c + dc[k]
                if 0 <= rr < rows and 0 <= cc < cols:
                    d += 1
            state[base + c] = d


@njit(cache=True, nogil=True, inline="always")
def _add_to_neighbours(rows, cols, dr, dc, state, x, delta):
    """Add ``delta`` to the free degree of every neighbour of cell ``x``."""
    r = x // cols
    c = x - r * cols
    for k in range(dr.shape[0]):
        rr = r + dr[k]
        cc = c + dc[k]
        if 0 <= rr < rows and 0 <= cc < cols:
            state[rr * cols + cc] += delta


@njit(cache=True, nogil=True)
def visit_cell(rows, cols, dr, dc, state, x):
    """Put cell ``x`` on the path: set its bit, lower its neighbours' free degree."""
    state[x] |= VISITED
    _add_to_neighbours(rows, cols, dr, dc, state, x, -1)


@njit(cache=True, nogil=True)
def truncate_path(rows, cols, dr, dc, state, path, pos, plen, new_len):
    """Take the cells after position ``new_len - 1`` off the path; return ``new_len``.

    The exact inverse of visiting them: a free degree depends only on which cells are on the
    path, not on their order, so the cells can come off in any order.
    """
    for i in range(new_len, plen):
        x = path[i]
        state[x] &= VISITED - 1
        pos[x] = -1
        _add_to_neighbours(rows, cols, dr, dc, state, x, 1)
    return new_len


@njit(cache=True, nogil=True)
def _has_free_neighbour(rows, cols, dr, dc, state, x):
    r = x // cols
    c = x - r * cols
    for k in range(dr.shape[0]):
        rr = r + dr[k]
        cc = c + dc[k]
        if 0 <= rr < rows and 0 <= cc < cols and state[rr * cols + cc] < VISITED:
            return True
    return False


@njit(cache=True, nogil=True)
def _adjacent_rc(cols, dr, dc, a, tr, tc):
    ra = a // cols
    ca = a - ra * cols
    for k in range(dr.shape[0]):
        if ra + dr[k] == tr and ca + dc[k] == tc:
            return True
    return False


@njit(cache=True, nogil=True)
def _good_end(rows, cols, dr, dc, state, x, closing, tr, tc):
    """A new end is good if the walk can go on from it (or, when closing, if it is one move
    from the target cell (tr, tc): the start of a closed tour, or the next strip's start)."""
    if closing:
        return _adjacent_rc(cols, dr, dc, x, tr, tc)
    return _has_free_neighbour(rows, cols, dr, dc, state, x)


@njit(cache=True, nogil=True)
def _reverse(path, pos, lo, hi):
    """Reverse path[lo..hi] in place and fix pos: one Pósa rotation."""
    while lo < hi:
        a = path[lo]
        b = path[hi]
        path[lo] = b
        path[hi] = a
        pos[b] = lo
        pos[a] = hi
        lo += 1
        hi -= 1


@njit(cache=True, nogil=True)
def _rotate(
    rows, cols, dr, dc, state, path, pos, plen, closing, tr, tc, rng, cand, cand2, allow_random
):
    """One Pósa step at a dead end; return (rotations done, cells moved, rng).

    The end y = path[plen-1] is adjacent to path[i] (i < plen-2): reversing path[i+1..plen-1]
    keeps every cell and makes path[i+1] the new end. Preference, cheapest first:
    1. a single rotation whose new end is good, the shortest such reversal;
    2. two rotations whose second new end is good, found by a look-ahead that computes
       positions after the first reversal without doing it;
    3. only if ``allow_random``: a random rotation (a step of a random walk over the ends).
    Step 2 keeps to reversals of at most LOCAL_REVERSAL cells when there are any.
    Returns 0 rotations when none is possible. A rotation costs the length of the reversal.
    """
    end = path[plen - 1]
    last = plen - 1
    r = end // cols
    c = end - r * cols
    ng = 0
    nall = 0
    for k in range(dr.shape[0]):
        rr = r + dr[k]
        cc = c + dc[k]
        if 0 <= rr < rows and 0 <= cc < cols:
            i = pos[rr * cols + cc]
            if 0 <= i < plen - 2:
                cand2[nall] = i
                nall += 1
                if _good_end(rows, cols, dr, dc, state, path[i + 1], closing, tr, tc):
                    cand[ng] = i
                    ng += 1
    if nall == 0:
        return 0, 0, rng
    # keep to local rotations (reversals within the last LOCAL_REVERSAL cells) when there are
    # any: a reversal of the whole path costs O(cells) and scrambles the walk's late cells
    nloc = 0
    for j in range(nall):
        if last - cand2[j] <= LOCAL_REVERSAL:
            cand2[nloc], cand2[j] = cand2[j], cand2[nloc]
            nloc += 1
    n_any = nall
    if nloc > 0:
        nall = nloc
    if ng > 0:
        # the shortest reversal: cheapest, and it keeps the order of the older path
        best = cand[0]
        for j in range(1, ng):
            if cand[j] > best:
                best = cand[j]
        _reverse(path, pos, best + 1, last)
        return 1, last - best, rng
    # Look-ahead: after reversing [i1+1, last], the cell at original position j sits at
    # f(j) = j for j <= i1 and i1 + 1 + last - j beyond (f is its own inverse).
    rng, z = _next_random(rng)
    offset = np.int64((z >> np.uint64(8)) % np.uint64(nall))
    for t in range(nall):
        i1 = cand2[(t + offset) % nall]
        e1 = path[i1 + 1]
        r1 = e1 // cols
        c1 = e1 - r1 * cols
        for k in range(dr.shape[0]):
            rr = r1 + dr[k]
            cc = c1 + dc[k]
            if 0 <= rr < rows and 0 <= cc < cols:
                j = pos[rr * cols + cc]
                if j < 0:
                    continue
                jn = j if j <= i1 else i1 + 1 + last - j
                if jn >= plen - 2:
                    continue
                # new end after the second reversal: the cell now at position jn + 1
                q = jn + 1
                orig = q if q <= i1 else i1 + 1 + last - q
                e2 = path[orig]
                if _good_end(rows, cols, dr, dc, state, e2, closing, tr, tc):
                    _reverse(path, pos, i1 + 1, last)
                    _reverse(path, pos, jn + 1, last)
                    return 2, (last - i1) + (last - jn), rng
    if not allow_random:
        return 0, 0, rng
    rng, z = _next_random(rng)
    pick = cand2[np.int64(z % np.uint64(n_any))]
    _reverse(path, pos, pick + 1, last)
    return 1, last - pick, rng


@njit(cache=True, nogil=True, inline="always")
def _map_forward(p, chain, depth, last):
    """Position after the reversals chain[0..depth-1] of the cell at original position p.

    A reversal starting at a maps q -> q for q < a and a + last - q beyond; it is its own
    inverse, so mapping back applies the same maps in the opposite order.
    """
    for t in range(depth):
        a = chain[t]
        if p >= a:
            p = a + last - p
    return p


@njit(cache=True, nogil=True, inline="always")
def _map_backward(q, chain, depth, last):
    for t in range(depth - 1, -1, -1):
        a = chain[t]
        if q >= a:
            q = a + last - q
    return q


@njit(cache=True, nogil=True)
def _heap_push(hkey, hval, size, key, val):
    i = size
    hkey[i] = key
    hval[i] = val
    while i > 0:
        parent = (i - 1) >> 1
        if hkey[parent] <= hkey[i]:
            break
        hkey[parent], hkey[i] = hkey[i], hkey[parent]
        hval[parent], hval[i] = hval[i], hval[parent]
        i = parent
    return size + 1


@njit(cache=True, nogil=True)
def _heap_pop(hkey, hval, size):
    val = hval[0]
    size -= 1
    hkey[0] = hkey[size]
    hval[0] = hval[size]
    i = 0
    while True:
        lft = 2 * i + 1
        if lft >= size:
            break
        m = lft
        if lft + 1 < size and hkey[lft + 1] < hkey[lft]:
            m = lft + 1
        if hkey[i] <= hkey[m]:
            break
        hkey[m], hkey[i] = hkey[i], hkey[m]
        hval[m], hval[i] = hval[i], hval[m]
        i = m
    return val, size


@njit(cache=True, nogil=True)
def find_free_cells(state, out):
    """Write up to len(out) free cells into out; return how many there are in all."""
    count = 0
    for x in range(state.shape[0]):
        if state[x] < VISITED:
            if count < out.shape[0]:
                out[count] = x
            count += 1
    return count


@njit(cache=True, nogil=True)
def rotation_search(
    rows,
    cols,
    dr,
    dc,
    state,
    path,
    pos,
    plen,
    closing,
    tr,
    tc,
    min_pivot,
    max_nodes,
    qpiv,
    qpar,
    qend,
    qdep,
    hkey,
    hval,
    chain,
):
    """Search sequences of Pósa rotations for one whose final end is good; apply it.

    Best-first over ends, nearest first to the target cell (tr, tc) (the free cell the end
    must reach, or the start when closing a tour); each end is expanded once (marked with bit
    6 of its state byte, cleared before returning). Reversals are not done while searching:
    the position of a cell after a sequence of reversals is computed by composing their maps
    (``_map_forward``), so a node costs O(depth), not O(path length).

    Only reversals that start at ``min_pivot`` or later are tried: in the end game a reversal
    of the whole path is both slow and harmful (it sends the cells the walk left for last back
    to the middle of the path).

    Returns (rotations applied, cells moved); (0, 0) when max_nodes ends gave nothing.
    """
    last = plen - 1
    MARK = 64
    maxdepth = chain.shape[0]
    root = path[last]
    qpiv[0] = -1
    qpar[0] = -1
    qend[0] = root
    qdep[0] = 0
    nodes = 1
    state[root] |= MARK
    hsize = 0
    rr0 = root // cols
    cc0 = root - rr0 * cols
    hsize = _heap_push(hkey, hval, hsize, (rr0 - tr) ** 2 + (cc0 - tc) ** 2, 0)
    found = -1
    while hsize > 0 and found < 0:
        u, hsize = _heap_pop(hkey, hval, hsize)
        depth = qdep[u]
        if depth >= maxdepth:
            continue
        # the reversal starts on the way from the root to u, in order
        w = u
        for t in range(depth - 1, -1, -1):
            chain[t] = qpiv[w]
            w = qpar[w]
        e = qend[u]
        er = e // cols
        ec = e - er * cols
        for k in range(dr.shape[0]):
            rr = er + dr[k]
            cc = ec + dc[k]
            if not (0 <= rr < rows and 0 <= cc < cols):
                continue
            v = rr * cols + cc
            if state[v] < VISITED or pos[v] < 0:  # free, or reserved: not on the path
                continue
            p = _map_forward(pos[v], chain, depth, last)
            if p >= last - 1 or p + 1 < min_pivot:
                continue
            # reversing [p+1, last] makes the cell now at p+1 the end
            wnew = path[_map_backward(p + 1, chain, depth, last)]
            if state[wnew] & MARK:
                continue
            state[wnew] |= MARK
            qpiv[nodes] = p + 1
            qpar[nodes] = u
            qend[nodes] = wnew
            qdep[nodes] = depth + 1
            if _good_end(rows, cols, dr, dc, state, wnew, closing, tr, tc):
                found = nodes
                nodes += 1
                break
            wr = wnew // cols
            wc = wnew - wr * cols
            hsize = _heap_push(hkey, hval, hsize, (wr - tr) ** 2 + (wc - tc) ** 2, nodes)
            nodes += 1
            if nodes >= max_nodes:
                break
        if nodes >= max_nodes:
            break
    for i in range(nodes):
        state[qend[i]] &= ~MARK & 255
    if found < 0:
        return 0, nodes
    depth = qdep[found]
    w = found
    for t in range(depth - 1, -1, -1):
        chain[t] = qpiv[w]
        w = qpar[w]
    moved = nodes  # a node expanded costs about as much as a cell moved
    for t in range(depth):
        _reverse(path, pos, chain[t], last)
        moved += last - chain[t] + 1
    return depth, moved


FEW_FREE = 64  # below this many free cells, the end game aims rotations at one of them
SEARCH_NODES = 1 << 15  # ends a targeted rotation search may expand (~1.5 MB of queue)
MAX_CHAIN = 512  # rotations in one targeted sequence
LOCAL_REVERSAL = 8192  # the end game tries sequences of reversals this short first


@njit(cache=True, nogil=True)
def _unstick(
    rows,
    cols,
    dr,
    dc,
    state,
    path,
    pos,
    plen,
    reserved,
    closing,
    end_r,
    end_c,
    rng,
    cand,
    cand2,
    free,
    nfree,
    bufs,
    chain,
):
    """Move the end of a stuck path; return (rotations, cells moved, rng, nfree).

    While many cells are free, a cheap local step (``_rotate``) nearly always finds an end with
    a free neighbour; when it does not, and always in the end game (few free cells, or closing
    a tour), a targeted search runs. The free cells can be
    far from the end and a random walk of rotations may need 10^5 steps to meet them (measured
    on 1000x1000); there a targeted search (``rotation_search``) aims at the nearest free cell
    (or, closing, at the target (end_r, end_c)). ``free`` caches the free cells found by the
    last scan of the board.
    """
    n = rows * cols
    if not closing and n - reserved - plen > FEW_FREE:
        done, moved, rng = _rotate(
            rows, cols, dr, dc, state, path, pos, plen, False, 0, 0, rng, cand, cand2, False
        )
        if done > 0:
            return done, moved, rng, nfree
        # no local step helps: a region of free cells may lie far back along the path (seen on
        # a 417x10000 band: 250,000 free cells that only a long reversal reaches), so aim at it
    end = path[plen - 1]
    er = end // cols
    ec = end - er * cols
    if closing:
        tr = end_r
        tc = end_c
    else:
        # keep the cached free cells that are still free; rescan when none is left
        k = 0
        for i in range(nfree):
            if state[free[i]] < VISITED:
                free[k] = free[i]
                k += 1
        nfree = k
        if nfree == 0:
            nfree = min(find_free_cells(state, free), free.shape[0])
        best = -1
        bestd = np.int64(1) << 62
        for i in range(nfree):
            fr = free[i] // cols
            fc = free[i] - fr * cols
            d = (fr - er) ** 2 + (fc - ec) ** 2
            if d < bestd:
                bestd = d
                best = free[i]
        tr = best // cols
        tc = best - tr * cols
    # local rearrangements first (reversals within the last LOCAL_REVERSAL cells), then any
    searched = 0
    for min_pivot in (max(1, plen - LOCAL_REVERSAL), 1):
        done, cost = rotation_search(
            rows, cols, dr, dc, state, path, pos, plen, closing, tr, tc, min_pivot,
            SEARCH_NODES, bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], chain,
        )  # fmt: skip
        searched += cost
        if done > 0:
            return done, searched, rng, nfree
    # nothing within reach of the search: a random rotation moves the end elsewhere
    done, moved, rng = _rotate(
        rows, cols, dr, dc, state, path, pos, plen, closing, tr, tc, rng, cand, cand2, True
    )
    return done, moved + searched, rng, nfree


@njit(cache=True, nogil=True)
def extend_path(
    rows,
    cols,
    dr,
    dc,
    drt,
    dct,
    offt,
    state,
    path,
    pos,
    plen,
    target_len,
    reserved,
    closing,
    end_r,
    end_c,
    max_work,
    rng,
    tie,
    centre2_r,
    centre2_c,
):
    """Grow the path from its end until it has ``target_len`` cells (and, when ``closing``,
    until its last cell is one move from the cell (end_r, end_c), which may lie outside the
    board: the start for a closed tour, the next strip's start when a board is cut in strips).

    Greedy step (Warnsdorff): go to the free neighbour of least free degree; ties by ``tie``
    (TIE_CENTRE: farthest from the point (centre2_r / 2, centre2_c / 2), normally the centre
    of the board; the Python layer moves it a little to randomise a restart).
    At a dead end before ``target_len``: a Pósa rotation (see ``_rotate``) moves the end.
    The path ``path[:plen]`` must be on the board with its cells marked in ``state``/``pos``.

    Returns ``(plen, rotations, work, rng, status)``: status DONE when every cell is on the path
    (and, when ``closing``, ends next to (end_r, end_c)), PAUSED when
    ``target_len < n`` was reached, BUDGET when the rotations of this call moved more than
    ``max_work`` cells (a rotation costs the length of the reversed part), STUCK when no
    rotation exists.

    ``reserved`` cells (see ``reserve_cells``) are off limits for now; the end game counts the
    free cells without them.
    """
    n = rows * cols
    nm = dr.shape[0]
    reach = 0
    for k in range(nm):
        reach = max(reach, abs(dr[k]), abs(dc[k]))
    rlo = reach
    rhi = rows - reach
    clo = reach
    chi = cols - reach
    s1r = centre2_r
    s1c = centre2_c
    geo = (rows, cols, rlo, rhi, clo, chi, s1r, s1c)
    cand = np.empty(nm, np.int64)
    cand2 = np.empty(nm, np.int64)
    # the end game's buffers: a list of the last free cells, and the rotation search's queue
    free = np.empty(FEW_FREE, np.int64)
    nfree = 0
    bufs = np.empty((6, SEARCH_NODES), np.int64)
    chain = np.empty(MAX_CHAIN, np.int64)
    rotations = 0
    work = 0
    cur = path[plen - 1]
    r = cur // cols
    c = cur - r * cols
    while True:
        if plen >= target_len:
            if plen < n:
                return plen, rotations, work, rng, PAUSED
            if not closing or _adjacent_rc(cols, dr, dc, cur, end_r, end_c):
                return plen, rotations, work, rng, DONE
            # every cell is on the path but the ends do not meet: rotate until they do
            ending = True
        else:
            # choose the next cell from cur (its neighbours' degrees are up to date)
            key = _best_key(state, cur, r, c, geo, drt, dct, offt, tie, rng, False)
            if tie == TIE_RANDOM:
                rng, _ = _next_random(rng)
            if key < FREE_LIMIT:
                # Walk: visit the best neighbour, then update its neighbours and choose the
                # next one in the same pass over them.
                while True:
                    best = key & 15
                    nxt = cur + offt[best]
                    r += drt[best]
                    c += dct[best]
                    ux = np.uint64(nxt)
                    state[ux] |= VISITED
                    path[np.uint64(plen)] = nxt
                    pos[ux] = plen
                    plen += 1
                    cur = nxt
                    key = _best_key(state, cur, r, c, geo, drt, dct, offt, tie, rng, True)
                    if tie == TIE_RANDOM:
                        rng, _ = _next_random(rng)
                    if key >= FREE_LIMIT or plen >= target_len:
                        break
                continue
            ending = False  # a dead end before target_len
        # a Pósa rotation (or a targeted sequence of them) moves the end
        if work > max_work:
            return plen, rotations, work, rng, BUDGET
        done, moved, rng, nfree = _unstick(
            rows, cols, dr, dc, state, path, pos, plen, reserved, ending, end_r, end_c, rng,
            cand, cand2, free, nfree, bufs, chain,
        )  # fmt: skip
        if done == 0:
            return plen, rotations, work, rng, STUCK
        rotations += done
        work += moved
        cur = path[plen - 1]
        r = cur // cols
        c = cur - r * cols


@njit(cache=True, nogil=True)
def board_structure(rows, cols, dr, dc, start, queue, seen):
    """Facts that rule a path out, in O(cells): returns (cells reached from ``start``,
    number of cells with exactly one neighbour, whether ``start`` has exactly one).

    ``queue`` (>= cells entries) and ``seen`` (uint8, zeroed) are scratch: the constructor
    lends it its path and state arrays before the search starts.
    """
    head = 0
    tail = 1
    queue[0] = start
    seen[start] = 1
    while head < tail:
        x = queue[head]
        head += 1
        r = x // cols
        c = x - r * cols
        for k in range(dr.shape[0]):
            rr = r + dr[k]
            cc = c + dc[k]
            if 0 <= rr < rows and 0 <= cc < cols:
                y = rr * cols + cc
                if seen[y] == 0:
                    seen[y] = 1
                    queue[tail] = y
                    tail += 1
    leaves = 0
    start_leaf = False
    for r in range(rows):
        for c in range(cols):
            d = 0
            for k in range(dr.shape[0]):
                rr = r + dr[k]
                cc = c + dc[k]
                if 0 <= rr < rows and 0 <= cc < cols:
                    d += 1
            if d == 1:
                leaves += 1
                if r * cols + c == start:
                    start_leaf = True
    return tail, leaves, start_leaf


@njit(cache=True, nogil=True)
def reserve_cells(state, pos, cells, reserve):
    """Put cells off limits (``reserve``) or give them back, without touching any degree.

    A reserved cell reads as visited, so the walk never enters it, but its neighbours still
    count it as free: they look easier than they are and Warnsdorff's rule leaves them for
    last. Reserving the cells around a hand-over point thus makes the walk finish next to them;
    giving them back restores a consistent state (they were counted as free all along).
    A reserved cell reads as visited but is not on the path: its ``pos`` is -1, which every
    rotation checks before it trusts a position.
    """
    for i in range(cells.shape[0]):
        if reserve:
            state[cells[i]] |= VISITED
            pos[cells[i]] = -1
        else:
            state[cells[i]] &= VISITED - 1


@njit(cache=True, nogil=True)
def complete_exact(
    rows,
    cols,
    dr,
    dc,
    state,
    path,
    pos,
    plen,
    n_total,
    closing,
    end_r,
    end_c,
    node_limit,
    cand,
    nxt,
):
    """Finish the path by depth-first search: visit every free cell, ending (when ``closing``)
    one move from (end_r, end_c). For the end game only: the free cells should be few (the
    caller frees the last cells of a stuck path) and ``cand`` (8 x (free + 1)) and ``nxt``
    (free + 1) are scratch space.

    Candidates are tried in Warnsdorff's order (least free degree first). A branch is cut when
    it leaves two free cells with no free neighbour (each could only be the last cell), or,
    closing, when no free cell one move from the target is left for the last step.
    Returns (new plen, nodes): plen == n_total on success; on failure the path is back at
    ``plen`` cells and the state as it was.
    """
    base = plen
    depth = 0  # cells added beyond base
    nodes = 0
    # candidates of the current end, sorted by degree, into cand[:, depth]
    total_cand = np.empty(n_total - base + 1, np.int64)
    total_cand[0] = _fill_candidates(rows, cols, dr, dc, state, path[plen - 1], cand, 0)
    nxt[0] = 0
    while True:
        if plen == n_total:
            if not closing or _adjacent_rc(cols, dr, dc, path[plen - 1], end_r, end_c):
                return plen, nodes
        i = nxt[depth]
        if plen < n_total and i < total_cand[depth] and nodes < node_limit:
            nxt[depth] = i + 1
            y = cand[i, depth]
            if state[y] >= VISITED:
                continue
            nodes += 1
            visit_cell(rows, cols, dr, dc, state, y)
            path[plen] = y
            pos[y] = plen
            plen += 1
            depth += 1
            if _dead_cells(rows, cols, dr, dc, state, y) >= 2 or (
                closing
                and plen < n_total
                and not _target_reachable(rows, cols, dr, dc, state, end_r, end_c)
            ):
                total_cand[depth] = 0
            else:
                total_cand[depth] = _fill_candidates(rows, cols, dr, dc, state, y, cand, depth)
            nxt[depth] = 0
            continue
        # backtrack
        if depth == 0 or nodes >= node_limit:
            # undo everything beyond base
            truncate_path(rows, cols, dr, dc, state, path, pos, plen, base)
            return base, nodes
        truncate_path(rows, cols, dr, dc, state, path, pos, plen, plen - 1)
        plen -= 1
        depth -= 1


@njit(cache=True, nogil=True)
def _fill_candidates(rows, cols, dr, dc, state, x, cand, depth):
    """Free neighbours of x into cand[:, depth], least free degree first; returns how many."""
    r = x // cols
    c = x - r * cols
    m = 0
    for k in range(dr.shape[0]):
        rr = r + dr[k]
        cc = c + dc[k]
        if 0 <= rr < rows and 0 <= cc < cols:
            y = rr * cols + cc
            if state[y] < VISITED:
                # insertion sort by degree
                j = m
                while j > 0 and state[cand[j - 1, depth]] > state[y]:
                    cand[j, depth] = cand[j - 1, depth]
                    j -= 1
                cand[j, depth] = y
                m += 1
    return m


@njit(cache=True, nogil=True)
def _dead_cells(rows, cols, dr, dc, state, y):
    """Free neighbours of y with no free neighbour left: each can only be the last cell."""
    r = y // cols
    c = y - r * cols
    dead = 0
    for k in range(dr.shape[0]):
        rr = r + dr[k]
        cc = c + dc[k]
        if 0 <= rr < rows and 0 <= cc < cols:
            z = rr * cols + cc
            if state[z] == 0:
                dead += 1
    return dead


@njit(cache=True, nogil=True)
def _target_reachable(rows, cols, dr, dc, state, tr, tc):
    """Is a free cell one move from (tr, tc) left (the last step must be one)?"""
    for k in range(dr.shape[0]):
        rr = tr - dr[k]
        cc = tc - dc[k]
        if 0 <= rr < rows and 0 <= cc < cols and state[rr * cols + cc] < VISITED:
            return True
    return False
