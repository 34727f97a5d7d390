"""numba kernel: exact repair of a region of an edge-matching board (flat arrays only).

The improver (`rompicapo.edges.improve`) frees a set of cells (the *region*) and asks
this kernel for the arrangement of the free pieces on those cells that matches the most
joints. The memory picture:

- the board: ``cell_piece[cell]`` (piece index, -1 empty) and ``cell_rot[cell]`` for the
  ``rows*cols`` cells (``cell = row*cols + col``, row 0 = top). Cells outside the region are
  fixed; what the region cells hold now is the arrangement to beat;
- pieces: ``rot_edges[p*16 + r*4 + s]`` is the colour on side ``s`` (0 top, 1 right, 2 bottom,
  3 left) of piece ``p`` turned ``r`` clockwise; ``grey_mask[p*4 + r]`` has bit ``s`` set when
  that side is grey, or is 16 (matches no cell) for a turn that repeats an earlier one of a
  symmetric piece;
- the region: ``region[j]`` (cells) and ``free[f]`` (the pieces to place, as many as cells),
  ``free_type[f]`` an id shared by identical pieces, which sit next to each other in ``free``:
  a copy is tried only when the copy before it is placed (the multiset rule), so two copies
  never give the same arrangement twice.

Search: the region is filled in a fixed order, most constrained cell first (the cell with the
most fixed or already ordered neighbours); a cell's candidates are every free piece and turn
that shows grey exactly on its rim sides, tried in decreasing order of joints they match with
the neighbours already there. Branch and bound on matched joints: the bound adds, for each
cell still to fill, the best it could match against its fixed neighbours (computed once over
all free pieces) plus one per joint with an earlier region cell; a candidate whose bound does
not beat the best found ends the scan of its cell (candidates are sorted, so the rest are no
better). The kernel counts ``nodes`` (placements) and stops at ``max_nodes``.
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit

# counters[] slots
R_NODES = 0
R_CURRENT = 1  # matched joints touching the region in the board as given
R_BEST = 2  # best score found (the floor when nothing was found)
R_FOUND = 3  # 1 when an arrangement beating the floor is in out_*
R_PROVEN = 4  # 1 when the whole tree was searched: nothing beats R_BEST
R_BOUND = 5  # the bound on the region's score before anything is placed
N_COUNTERS = 6

# A side whose neighbour is off the board, empty, or filled later in the region order
NB_NONE = 0
NB_FIXED = 1  # neighbour fixed outside the region: its colour is known
NB_EARLIER = 2  # neighbour earlier in the region order: its colour is read from the stack


@njit(cache=True)
def _neighbour(rows, cols, cell, side):
    r = cell // cols
    c = cell - r * cols
    if side == 0:
        return cell - cols if r > 0 else -1
    if side == 1:
        return cell + 1 if c < cols - 1 else -1
    if side == 2:
        return cell + cols if r < rows - 1 else -1
    return cell - 1 if c > 0 else -1


@njit(cache=True)
def _rim_mask(rows, cols, cell):
    r = cell // cols
    c = cell - r * cols
    mask = 0
    if r == 0:
        mask |= 1
    if c == cols - 1:
        mask |= 2
    if r == rows - 1:
        mask |= 4
    if c == 0:
        mask |= 8
    return mask


@njit(cache=True)
def _matches(rot_edges, p, r, need):
    """Sides of piece ``p`` turned ``r`` showing the colour ``need[s]`` (-1: no neighbour)."""
    g = 0
    for s in range(4):
        if need[s] >= 0 and rot_edges[p * 16 + r * 4 + s] == need[s]:
            g += 1
    return g


@njit(cache=True)
def _is_current(cell_piece, cell_rot, pos_cell, free, place_f, place_r, m):
    for e in range(m):
        cell = pos_cell[e]
        if cell_piece[cell] != free[place_f[e]] or cell_rot[cell] != place_r[e]:
            return False
    return True


@njit(cache=True)
def region_score(rows, cols, cell_piece, cell_rot, rot_edges, region, in_region):
    """Matched joints with at least one end in the region (each joint once)."""
    total = 0
    for j in range(region.shape[0]):
        cell = region[j]
        p = cell_piece[cell]
        if p < 0:
            continue
        for s in range(4):
            nb = _neighbour(rows, cols, cell, s)
            if nb < 0 or cell_piece[nb] < 0:
                continue
            if in_region[nb] and nb < cell:
                continue  # a joint inside the region: counted from its lower-numbered cell
            mine = rot_edges[p * 16 + cell_rot[cell] * 4 + s]
            theirs = rot_edges[cell_piece[nb] * 16 + cell_rot[nb] * 4 + (s + 2) % 4]
            if mine == theirs:
                total += 1
    return total


@njit(cache=True)
def repair(
    rows,
    cols,
    cell_piece,
    cell_rot,
    rot_edges,
    grey_mask,
    region,
    free,
    free_type,
    floor_offset,
    slack,
    max_nodes,
    out_cell,
    out_piece,
    out_rot,
    counters,
    skip_current=False,
):
    """Best arrangement of ``free`` on ``region`` scoring more than the region's current score
    plus ``floor_offset`` (matched joints with an end in the region), or, when ``slack`` is 0
    or more, scoring at least the region's bound minus ``slack`` (a target-first search: with
    slack 0 any mismatch the bound does not foresee ends a branch, as in a search for perfect
    boards).

    The improver passes -1 (accept an arrangement as good as the current one or better); for a
    region of empty cells the current score is 0, so -1 accepts any complete fill. On return
    ``counters`` holds the nodes, the region's current score, the best score found, whether an
    arrangement was found and whether the search was proven (the tree searched to the end, not
    stopped by the node cap: then nothing beats the best found). When something was found,
    ``out_cell[d]``, ``out_piece[d]``, ``out_rot[d]`` (``d`` in fill order) are the
    arrangement, and ``counters[R_BOUND]`` is the bound. The board arrays are read, never
    written. With ``skip_current`` the region's current arrangement is never returned (the
    best arrangement that moves a piece: with a floor below the current score, a way off a
    local optimum).
    """
    n = rows * cols
    m = region.shape[0]
    in_region = np.zeros(n, dtype=np.bool_)
    for j in range(m):
        in_region[region[j]] = True
    current = region_score(rows, cols, cell_piece, cell_rot, rot_edges, region, in_region)
    counters[R_CURRENT] = current
    floor = current + floor_offset
    counters[R_BOUND] = current
    if m == 0:
        counters[R_NODES] = 0
        counters[R_BEST] = floor
        counters[R_FOUND] = 0
        counters[R_PROVEN] = 1
        return

    # ---- fill order: most constrained first -------------------------------------------------
    ordered = np.zeros(n, dtype=np.bool_)
    pos_cell = np.empty(m, dtype=np.int64)
    taken = np.zeros(m, dtype=np.bool_)
    for d in range(m):
        best_j = -1
        best_known = -1
        for j in range(m):
            if taken[j]:
                continue
            cell = region[j]
            known = 0
            for s in range(4):
                nb = _neighbour(rows, cols, cell, s)
                if nb < 0:
                    known += 1  # the rim constrains a cell as much as a neighbour
                elif in_region[nb]:
                    if ordered[nb]:
                        known += 1
                elif cell_piece[nb] >= 0:
                    known += 1
            if known > best_known:
                best_known = known
                best_j = j
        taken[best_j] = True
        pos_cell[d] = region[best_j]
        ordered[region[best_j]] = True

    rank = np.full(n, -1, dtype=np.int64)
    for d in range(m):
        rank[pos_cell[d]] = d
    nb_kind = np.zeros(m * 4, dtype=np.int64)
    nb_val = np.zeros(m * 4, dtype=np.int64)  # fixed colour, or the earlier position
    pos_mask = np.empty(m, dtype=np.int64)
    for d in range(m):
        cell = pos_cell[d]
        pos_mask[d] = _rim_mask(rows, cols, cell)
        for s in range(4):
            nb = _neighbour(rows, cols, cell, s)
            if nb < 0:
                continue
            if in_region[nb]:
                if rank[nb] < d:
                    nb_kind[d * 4 + s] = NB_EARLIER
                    nb_val[d * 4 + s] = rank[nb]
            elif cell_piece[nb] >= 0:
                nb_kind[d * 4 + s] = NB_FIXED
                nb_val[d * 4 + s] = rot_edges[cell_piece[nb] * 16 + cell_rot[nb] * 4 + (s + 2) % 4]

    # ---- bound: best against fixed neighbours + one per earlier-region joint ----------------
    suffix = np.zeros(m + 1, dtype=np.int64)
    need = np.empty(4, dtype=np.int64)
    for d in range(m - 1, -1, -1):
        for s in range(4):
            need[s] = nb_val[d * 4 + s] if nb_kind[d * 4 + s] == NB_FIXED else -1
        best_ext = 0
        for f in range(m):
            for r in range(4):
                if grey_mask[free[f] * 4 + r] == pos_mask[d]:
                    best_ext = max(best_ext, _matches(rot_edges, free[f], r, need))
        earlier = 0
        for s in range(4):
            if nb_kind[d * 4 + s] == NB_EARLIER:
                earlier += 1
        suffix[d] = suffix[d + 1] + best_ext + earlier
    counters[R_BOUND] = suffix[0]
    if slack >= 0:
        floor = max(floor, suffix[0] - slack - 1)

    # ---- depth-first branch and bound --------------------------------------------------------
    width = 4 * m
    opts = np.empty(m * width, dtype=np.int64)  # f*4 + r, sorted by gain, per depth
    ogain = np.empty(m * width, dtype=np.int64)
    nopt = np.zeros(m, dtype=np.int64)
    cursor = np.zeros(m, dtype=np.int64)
    tmp_opt = np.empty(width, dtype=np.int64)
    tmp_gain = np.empty(width, dtype=np.int64)
    bucket = np.zeros(6, dtype=np.int64)
    used = np.zeros(m, dtype=np.bool_)
    place_f = np.full(m, -1, dtype=np.int64)
    place_r = np.zeros(m, dtype=np.int64)
    score_at = np.zeros(m + 1, dtype=np.int64)
    best = floor
    found = 0
    nodes = 0
    d = 0
    expand = True
    capped = False
    while True:
        if expand:
            expand = False
            for s in range(4):
                kind = nb_kind[d * 4 + s]
                if kind == NB_FIXED:
                    need[s] = nb_val[d * 4 + s]
                elif kind == NB_EARLIER:
                    e = nb_val[d * 4 + s]
                    need[s] = rot_edges[free[place_f[e]] * 16 + place_r[e] * 4 + (s + 2) % 4]
                else:
                    need[s] = -1
            count = 0
            for g in range(6):
                bucket[g] = 0
            for f in range(m):
                if used[f]:
                    continue
                if f > 0 and free_type[f] == free_type[f - 1] and not used[f - 1]:
                    continue  # the multiset rule: an identical copy comes first
                for r in range(4):
                    if grey_mask[free[f] * 4 + r] != pos_mask[d]:
                        continue
                    g = _matches(rot_edges, free[f], r, need)
                    tmp_opt[count] = f * 4 + r
                    tmp_gain[count] = g
                    bucket[g] += 1
                    count += 1
            # counting sort, highest gain first, ties in the (shuffled) order of ``free``
            start = 0
            for g in range(4, -1, -1):
                c = bucket[g]
                bucket[g] = start
                start += c
            base = d * width
            for k in range(count):
                g = tmp_gain[k]
                opts[base + bucket[g]] = tmp_opt[k]
                ogain[base + bucket[g]] = g
                bucket[g] += 1
            nopt[d] = count
            cursor[d] = 0
        if place_f[d] >= 0:
            used[place_f[d]] = False
            place_f[d] = -1
        placed = False
        g = 0
        base = d * width
        while cursor[d] < nopt[d]:
            k = cursor[d]
            g = ogain[base + k]
            if score_at[d] + g + suffix[d + 1] <= best:
                cursor[d] = nopt[d]  # sorted: no later candidate can do better
                break
            cursor[d] = k + 1
            o = opts[base + k]
            place_f[d] = o >> 2
            place_r[d] = o & 3
            used[o >> 2] = True
            nodes += 1
            placed = True
            break
        if placed:
            if (
                d + 1 == m
                and skip_current
                and _is_current(cell_piece, cell_rot, pos_cell, free, place_f, place_r, m)
            ):
                pass  # the arrangement the board has: not a move
            elif d + 1 == m:
                # the bound check guarantees a better score than ``best``
                best = score_at[d] + g
                found = 1
                for e in range(m):
                    out_cell[e] = pos_cell[e]
                    out_piece[e] = free[place_f[e]]
                    out_rot[e] = place_r[e]
            else:
                score_at[d + 1] = score_at[d] + g
                d += 1
                expand = True
            if nodes >= max_nodes:
                capped = True
                break
        else:
            d -= 1
            if d < 0:
                break
    counters[R_NODES] = nodes
    counters[R_BEST] = best
    counters[R_FOUND] = found
    counters[R_PROVEN] = 0 if capped else 1
