"""numba kernel: the improver's adaptive large-neighbourhood search loop (flat arrays only).

`rompicapo.edges.improve` calls `run()` in chunks of iterations (it keeps the clock,
the progress reports and Ctrl-C); every bit of the search's state lives in the arrays passed
in, so chunking does not change the result: same seed and iteration count, same board.

The memory picture (``n = rows*cols`` cells, ``cell = row*cols + col``):

- the board: ``piece[cell]``, ``rot[cell]`` (the current board, complete) and ``best_piece``,
  ``best_rot`` (the best board met); pieces as in `rompicapo.edges._repair_kernel`
  (``rot_edges``, ``grey_mask``, ``ptype``); ``movable[cell]`` (not a clue), ``rim_cycle`` (the
  movable rim cells in order round the frame) and ``kind[cell]`` (0 inner, 1 edge, 2 corner);
- ``ints``/``floats``: the scalar state and settings, slots ``I_*``/``F_*`` below;
- operators: ``op_on[o]`` (enabled), ``op_weight[o]`` (roulette weight), ``op_size[o]``
  (region size, adapted), ``op_stats[o*N_STATS + S_*]`` (counts), ``op_seg[o*2]``,
  ``op_seg[o*2+1]`` (reward sum and work in the current segment: a use counts 1 plus its nodes
  in units of the repair budget); the same for the repair
  methods (``rep_*``);
- ``lahc[L]``: late acceptance's list of past scores; ``rng[0]``: xorshift64* state;
- ``events[2*k]``, ``events[2*k+1]``: iteration and score of each new best (``I_EVENTS``
  of them, the buffer emptied by the caller after each chunk).

One iteration: draw a destroy operator and a repair method (roulette on their weights),
free a region round an anchor (a cell of a random mismatched joint), draw the acceptance
threshold (the score the repaired board must reach), repair the region by branch and bound
asking for its best arrangement that differs from the current one and reaches the threshold,
then accept or not, reward both operators, and every ``SEGMENT`` iterations move each weight a
fraction ``REACTION`` towards its segment's mean reward.
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit
from rompicapo.edges._repair_kernel import (
    N_COUNTERS,
    R_BEST,
    R_CURRENT,
    R_FOUND,
    R_NODES,
    R_PROVEN,
    repair,
)

# destroy operators
OP_RECTANGLE = 0
OP_CELLS = 1
OP_MISMATCHES = 2
OP_LINE = 3
OP_BORDER = 4
OP_MISFITS = 5
N_OPS = 6
# repair methods
REP_BNB = 0  # branch and bound for the region's best arrangement
REP_TARGET = 1  # only arrangements within a joint of the region's bound (prunes much more)
REP_DEEP = 2  # branch and bound on a region DEEP_SIZE times larger, DEEP_NODES times the nodes
N_REPS = 3
DEEP_SIZE = 1.5
DEEP_NODES = 20
# acceptance criteria
ACC_HILL = 0  # as good as the current board or better
ACC_LAHC = 1  # late acceptance: or as good as the board of L iterations ago
ACC_SA = 2  # simulated annealing: worse by d with probability exp(-d / T)
ACC_RECORD = 3  # record-to-record travel: as good as the best board minus a deviation

# op_stats / rep_stats slots
S_USES = 0
S_IMPROVED = 1  # raised the current score
S_MOVED = 2  # accepted at equal score
S_WORSE = 3  # accepted lower
S_GAIN = 4  # new-best joints won
S_NODES = 5
S_PROVEN = 6
S_CAPPED = 7
S_BEST = 8  # iterations that found a new best board
N_STATS = 9

# ints slots
I_SCORE = 0  # current board's score
I_BEST = 1  # best board's score
I_ITER = 2  # iterations so far
I_NODES = 3  # repair nodes so far
I_EVENTS = 4  # entries in events
I_PERFECT = 5  # the score of a perfect board
I_ACCEPT = 6  # ACC_*
I_SINCE_BEST = 7  # iterations since the best last rose (or since a return to it)
I_RETURN = 8  # back to the best board after this many iterations without a new best (0: never)
I_SEGMENT = 9  # iterations between weight updates
I_REPAIR_NODES = 10  # node budget of one repair
I_MAX_EVENTS = 11
I_DEVIATION = 12  # record-to-record travel's deviation from the best score
N_INTS = 13

# floats slots
F_T0 = 0  # annealing: temperature at the start
F_T1 = 1  # ... at the end
F_PROGRESS = 2  # share of the run done at the chunk's start (time or iterations)
F_PER_ITER = 3  # share of the run per iteration (0 with a time limit: the caller updates)
F_REACTION = 4
F_MIN_WEIGHT = 5
F_SIZE_STEP = 6
F_MIN_SIZE = 7
F_MAX_SIZE = 8
F_REWARD_BEST = 9
F_REWARD_BETTER = 10
F_REWARD_ACCEPTED = 11
N_FLOATS = 12


# --------------------------------------------------------------------------------------------
# Random numbers (xorshift64*, state in an array so chunks continue the stream)
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _next(rng):
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(2685821657736338717)


@njit(cache=True)
def _below(rng, n):
    """A uniform integer in [0, n)."""
    return np.int64((_next(rng) >> np.uint64(11)) % np.uint64(n))


@njit(cache=True)
def _uniform(rng):
    """A uniform float in (0, 1)."""
    return (np.float64(_next(rng) >> np.uint64(11)) + 0.5) / 9007199254740992.0


@njit(cache=True)
def _roulette(rng, weight, on):
    total = 0.0
    for o in range(weight.shape[0]):
        if on[o]:
            total += weight[o]
    x = _uniform(rng) * total
    last = -1
    for o in range(weight.shape[0]):
        if on[o]:
            last = o
            x -= weight[o]
            if x < 0:
                return o
    return last


# --------------------------------------------------------------------------------------------
# Destroy operators: fill region[0:m] with movable cells, return m
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _mismatched(rows, cols, piece, rot, rot_edges, ends):
    """The two cells of every mismatched joint: ``ends[2i]``, ``ends[2i+1]``; returns the count."""
    k = 0
    for r in range(rows):
        for c in range(cols):
            cell = r * cols + c
            e = piece[cell] * 16 + rot[cell] * 4
            if c + 1 < cols:
                o = piece[cell + 1] * 16 + rot[cell + 1] * 4
                if rot_edges[e + 1] != rot_edges[o + 3]:
                    ends[2 * k] = cell
                    ends[2 * k + 1] = cell + 1
                    k += 1
            if r + 1 < rows:
                o = piece[cell + cols] * 16 + rot[cell + cols] * 4
                if rot_edges[e + 2] != rot_edges[o]:
                    ends[2 * k] = cell
                    ends[2 * k + 1] = cell + cols
                    k += 1
    return k


@njit(cache=True)
def _anchor(rng, movable, ends, n_mis, n, rim_only, kind):
    """A movable cell of a random mismatched joint (of the rim with ``rim_only``); a random
    movable cell (rim cell) when there is none. -1 when no cell qualifies."""
    for _ in range(8):
        if n_mis == 0:
            break
        cell = ends[_below(rng, 2 * n_mis)]
        if movable[cell] and (not rim_only or kind[cell] != 0):
            return cell
    for _ in range(64):
        cell = _below(rng, n)
        if movable[cell] and (not rim_only or kind[cell] != 0):
            return cell
    for cell in range(n):
        if movable[cell] and (not rim_only or kind[cell] != 0):
            return cell
    return -1


@njit(cache=True)
def _block(rng, rows, cols, movable, anchor, h, w, region):
    """An ``h`` x ``w`` block of cells holding the anchor, placed at random."""
    ar = anchor // cols
    ac = anchor - ar * cols
    lo, hi = max(0, ar - h + 1), min(ar, rows - h)
    r0 = lo + _below(rng, hi - lo + 1)
    lo, hi = max(0, ac - w + 1), min(ac, cols - w)
    c0 = lo + _below(rng, hi - lo + 1)
    m = 0
    for r in range(r0, r0 + h):
        for c in range(c0, c0 + w):
            if movable[r * cols + c]:
                region[m] = r * cols + c
                m += 1
    return m


@njit(cache=True)
def _rectangle(rng, rows, cols, movable, anchor, size, region):
    h = 1 + _below(rng, min(rows, size))
    w = min(cols, max(1, (size + h // 2) // h))
    return _block(rng, rows, cols, movable, anchor, h, w, region)


@njit(cache=True)
def _line(rng, rows, cols, movable, anchor, size, region):
    """A stretch of the anchor's row or column."""
    if _below(rng, 2) == 0:
        return _block(rng, rows, cols, movable, anchor, 1, min(size, cols), region)
    return _block(rng, rows, cols, movable, anchor, min(size, rows), 1, region)


@njit(cache=True)
def _take(cell, movable, mark, region, m):
    """Add ``cell`` to ``region[0:m]`` when movable and not in yet; the new length."""
    if cell < 0 or not movable[cell] or mark[cell]:
        return m
    mark[cell] = True
    region[m] = cell
    return m + 1


@njit(cache=True)
def _scatter(rng, movable, kind, of_kind, size, region, mark, m):
    """Random movable cells of kind ``of_kind`` added to ``region[0:m]`` up to ``size``."""
    n = movable.shape[0]
    tries = 0
    while m < size and tries < 20 * size:
        tries += 1
        cell = _below(rng, n)
        if kind[cell] == of_kind:
            m = _take(cell, movable, mark, region, m)
    return m


@njit(cache=True)
def _cells(rng, movable, kind, anchor, size, region, mark):
    """The anchor and random movable cells of its kind (inner, edge or corner), scattered."""
    m = _take(anchor, movable, mark, region, 0)
    m = _scatter(rng, movable, kind, kind[anchor], size, region, mark, m)
    mark[region[:m]] = False
    return m


@njit(cache=True)
def _blob(rng, rows, cols, movable, first, second, size, region, mark):
    """A compact blob grown at random from the two cells of a joint."""
    m = _take(second, movable, mark, region, _take(first, movable, mark, region, 0))
    tries = 0
    while 0 < m < size and tries < 20 * size:
        tries += 1
        cell = region[_below(rng, m)]
        r = cell // cols
        c = cell - r * cols
        side = _below(rng, 4)
        if side == 0 and r > 0:
            nb = cell - cols
        elif side == 1 and c < cols - 1:
            nb = cell + 1
        elif side == 2 and r < rows - 1:
            nb = cell + cols
        elif side == 3 and c > 0:
            nb = cell - 1
        else:
            continue
        m = _take(nb, movable, mark, region, m)
    mark[region[:m]] = False
    return m


@njit(cache=True)
def _misfits(rng, movable, kind, anchor, ends, n_mis, size, region, mark):
    """The anchor and other cells of its kind on mismatched joints (from a random joint on),
    then random cells of its kind: the pieces that match least, free to trade places."""
    m = _take(anchor, movable, mark, region, 0)
    first = _below(rng, 2 * n_mis) if n_mis else 0
    for j in range(2 * n_mis):
        if m >= size:
            break
        cell = ends[(first + j) % (2 * n_mis)]
        if kind[cell] == kind[anchor]:
            m = _take(cell, movable, mark, region, m)
    m = _scatter(rng, movable, kind, kind[anchor], size, region, mark, m)
    mark[region[:m]] = False
    return m


@njit(cache=True)
def _border(rng, rim_cycle, rim_pos, anchor, size, region):
    """A stretch of the frame (corners included) holding the anchor, a rim cell."""
    k = rim_cycle.shape[0]
    length = min(size, k)
    at = rim_pos[anchor]
    start = at - _below(rng, length)
    for j in range(length):
        region[j] = rim_cycle[(start + j) % k]
    return length


# --------------------------------------------------------------------------------------------
# The loop
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _prepare_free(rng, piece, ptype, region, m, free, free_type, key):
    """``free``: the region's pieces in random order, identical pieces next to each other (the
    repair kernel's multiset rule); the region itself shuffled."""
    for j in range(m - 1, 0, -1):
        i = _below(rng, j + 1)
        region[i], region[j] = region[j], region[i]
    for j in range(m):
        free[j] = piece[region[j]]
        key[ptype[free[j]]] = _uniform(rng)
    for j in range(m - 1, 0, -1):
        i = _below(rng, j + 1)
        free[i], free[j] = free[j], free[i]
    for j in range(1, m):  # insertion sort on the type's key: types grouped, order random
        f = free[j]
        i = j - 1
        while i >= 0 and key[ptype[free[i]]] > key[ptype[f]]:
            free[i + 1] = free[i]
            i -= 1
        free[i + 1] = f
    for j in range(m):
        free_type[j] = ptype[free[j]]


@njit(cache=True)
def _threshold(rng, ints, floats, lahc, score):
    """The least score the repaired board must reach to be accepted."""
    acc = ints[I_ACCEPT]
    if acc == ACC_LAHC:
        past = lahc[ints[I_ITER] % lahc.shape[0]]
        return min(score, past)
    if acc == ACC_RECORD:
        return min(score, ints[I_BEST] - ints[I_DEVIATION])
    if acc == ACC_SA:
        frac = min(1.0, floats[F_PROGRESS] + ints[I_ITER] * floats[F_PER_ITER])
        t = floats[F_T0] * (floats[F_T1] / floats[F_T0]) ** frac
        # accept a loss d with probability exp(-d / t): draw the largest loss accepted
        return score - np.int64(np.floor(-t * np.log(_uniform(rng))))
    return score


@njit(cache=True)
def _destroy(rng, op, rows, cols, movable, kind, rim_cycle, rim_pos, ends, n_mis, size,
             region, mark):  # fmt: skip
    n = rows * cols
    if op == OP_BORDER:
        anchor = _anchor(rng, movable, ends, n_mis, n, True, kind)
        if anchor < 0 or rim_cycle.shape[0] < 2:
            return 0
        return _border(rng, rim_cycle, rim_pos, anchor, size, region)
    anchor = _anchor(rng, movable, ends, n_mis, n, False, kind)
    if anchor < 0:
        return 0
    if op == OP_RECTANGLE:
        return _rectangle(rng, rows, cols, movable, anchor, size, region)
    if op == OP_LINE:
        return _line(rng, rows, cols, movable, anchor, size, region)
    if op == OP_CELLS:
        return _cells(rng, movable, kind, anchor, size, region, mark)
    if op == OP_MISFITS:
        return _misfits(rng, movable, kind, anchor, ends, n_mis, size, region, mark)
    if n_mis == 0:
        return _blob(rng, rows, cols, movable, anchor, -1, size, region, mark)
    i = _below(rng, n_mis)
    return _blob(rng, rows, cols, movable, ends[2 * i], ends[2 * i + 1], size, region, mark)


@njit(cache=True)
def _reward(weight, seg, n, reaction, min_weight):
    for o in range(n):
        uses = seg[o * 2 + 1]
        if uses > 0:
            mean = seg[o * 2] / uses
            weight[o] = max(min_weight, (1.0 - reaction) * weight[o] + reaction * mean)
        seg[o * 2] = 0.0
        seg[o * 2 + 1] = 0.0


@njit(cache=True)
def _adopt(piece, rot, out_cell, out_piece, out_rot, m):
    for d in range(m):
        piece[out_cell[d]] = out_piece[d]
        rot[out_cell[d]] = out_rot[d]


@njit(cache=True)
def run(rows, cols, piece, rot, best_piece, best_rot, rot_edges, grey_mask, ptype, movable,
        kind, rim_cycle, rim_pos, ints, floats, op_on, op_weight, op_size, op_stats, op_seg,
        rep_on, rep_weight, rep_stats, rep_seg, lahc, rng, events, max_iters):  # fmt: skip
    """Up to ``max_iters`` iterations (fewer when the best board becomes perfect); the state
    arrays are updated in place."""
    n = rows * cols
    region = np.empty(n, dtype=np.int64)
    free = np.empty(n, dtype=np.int64)
    free_type = np.empty(n, dtype=np.int64)
    out_cell = np.empty(n, dtype=np.int64)
    out_piece = np.empty(n, dtype=np.int64)
    out_rot = np.empty(n, dtype=np.int64)
    key = np.zeros(ptype.shape[0], dtype=np.float64)
    mark = np.zeros(n, dtype=np.bool_)
    ends = np.empty(4 * n, dtype=np.int64)
    counters = np.zeros(N_COUNTERS, dtype=np.int64)
    min_size, max_size = floats[F_MIN_SIZE], floats[F_MAX_SIZE]
    step = floats[F_SIZE_STEP]
    done = 0
    while done < max_iters and ints[I_BEST] < ints[I_PERFECT]:
        if 0 < ints[I_RETURN] <= ints[I_SINCE_BEST]:  # wandered too long: back to the best
            piece[:] = best_piece
            rot[:] = best_rot
            ints[I_SCORE] = ints[I_BEST]
            ints[I_SINCE_BEST] = 0
        score = ints[I_SCORE]
        n_mis = _mismatched(rows, cols, piece, rot, rot_edges, ends)
        op = _roulette(rng, op_weight, op_on)
        rp = _roulette(rng, rep_weight, rep_on)
        size = min(max_size, max(min_size, op_size[op]))
        if rp == REP_DEEP:
            size = min(max_size, size * DEEP_SIZE)
        size = np.int64(size + 0.5)
        m = _destroy(rng, op, rows, cols, movable, kind, rim_cycle, rim_pos, ends, n_mis, size,
                     region, mark)  # fmt: skip
        threshold = _threshold(rng, ints, floats, lahc, score)
        ints[I_ITER] += 1
        ints[I_SINCE_BEST] += 1
        done += 1
        op_stats[op * N_STATS + S_USES] += 1
        rep_stats[rp * N_STATS + S_USES] += 1
        reward = 0.0
        nodes = 0
        if m >= 2:
            _prepare_free(rng, piece, ptype, region, m, free, free_type, key)
            slack = 1 if rp == REP_TARGET else -1
            budget = ints[I_REPAIR_NODES] * (DEEP_NODES if rp == REP_DEEP else 1)
            repair(rows, cols, piece, rot, rot_edges, grey_mask, region[:m], free[:m],
                          free_type[:m], threshold - score - 1, slack, budget,
                          out_cell, out_piece, out_rot, counters, True)  # fmt: skip
            nodes = counters[R_NODES]
            ints[I_NODES] += nodes
            op_stats[op * N_STATS + S_NODES] += nodes
            rep_stats[rp * N_STATS + S_NODES] += nodes
            adapt = rp != REP_DEEP  # sizes suit the plain budget
            if counters[R_PROVEN]:
                op_stats[op * N_STATS + S_PROVEN] += 1
                rep_stats[rp * N_STATS + S_PROVEN] += 1
                if adapt:
                    op_size[op] = min(max_size, op_size[op] + step)
            else:
                op_stats[op * N_STATS + S_CAPPED] += 1
                rep_stats[rp * N_STATS + S_CAPPED] += 1
                if adapt:
                    op_size[op] = max(min_size, op_size[op] - step)
            if counters[R_FOUND]:
                new = score - counters[R_CURRENT] + counters[R_BEST]
                _adopt(piece, rot, out_cell, out_piece, out_rot, m)
                ints[I_SCORE] = new
                slot = S_IMPROVED if new > score else (S_MOVED if new == score else S_WORSE)
                op_stats[op * N_STATS + slot] += 1
                rep_stats[rp * N_STATS + slot] += 1
                reward = floats[F_REWARD_BETTER] if new > score else floats[F_REWARD_ACCEPTED]
                if new > ints[I_BEST]:
                    op_stats[op * N_STATS + S_GAIN] += new - ints[I_BEST]
                    rep_stats[rp * N_STATS + S_GAIN] += new - ints[I_BEST]
                    op_stats[op * N_STATS + S_BEST] += 1
                    rep_stats[rp * N_STATS + S_BEST] += 1
                    reward = floats[F_REWARD_BEST]
                    ints[I_BEST] = new
                    ints[I_SINCE_BEST] = 0
                    best_piece[:] = piece
                    best_rot[:] = rot
                    k = min(ints[I_EVENTS], ints[I_MAX_EVENTS] - 1)
                    events[2 * k] = ints[I_ITER]
                    events[2 * k + 1] = new
                    ints[I_EVENTS] = k + 1
        if ints[I_ACCEPT] == ACC_LAHC:
            lahc[(ints[I_ITER] - 1) % lahc.shape[0]] = ints[I_SCORE]
        # a use costs 1 plus its nodes in units of the plain budget: the weights follow the
        # reward per unit of time, so a deep repair must win 20 times as much to keep its share
        work = 1.0 + nodes / ints[I_REPAIR_NODES]
        op_seg[op * 2] += reward
        op_seg[op * 2 + 1] += work
        rep_seg[rp * 2] += reward
        rep_seg[rp * 2 + 1] += work
        if ints[I_ITER] % ints[I_SEGMENT] == 0:
            _reward(op_weight, op_seg, op_weight.shape[0], floats[F_REACTION], floats[F_MIN_WEIGHT])
            _reward(rep_weight, rep_seg, rep_weight.shape[0], floats[F_REACTION],
                    floats[F_MIN_WEIGHT])  # fmt: skip
    return done
