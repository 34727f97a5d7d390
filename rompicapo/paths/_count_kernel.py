"""numba kernels for the exhaustive search of jump-grid paths (count, enumerate, prove).

The memory picture
------------------
The ``rows x cols`` board sits inside a frame ``reach`` cells wide (``reach`` = the longest
move along an axis), flattened row-major into ``board`` (uint8) with row width
``width = cols + 2 * reach``. Frame cells and used cells hold 1, free cells 0, so a move from
padded cell ``k`` with flat offset ``off[i] = dr[i] * width + dc[i]`` is legal exactly when
``board[k + off[i]] == 0``: no bounds checks in the inner loop (the trick of the C programs
that counted the "Solitario del 35").

The search state is the path so far, ``pp[0..depth-1]`` (padded cells), and per depth a bit
mask ``masks[d]`` of the moves still to try from ``pp[d]`` (bit i = move i; -1 means "not
expanded yet"). The board and every counter below are functions of the path, so the state can
be handed back to Python and resumed later (enumeration in chunks, node limits) or started from
any prefix (parallel jobs).

Pruning (exact: it only cuts subtrees that contain no completion)
-----------------------------------------------------------------
Let F be the free cells and e the end of the path. A completion is a Hamiltonian path of the
graph induced on F + {e} that starts at e. For a free cell u let ``link[u]`` = number of its
neighbours that are free or equal to e. In the completion every free cell but the last has
two path neighbours and the last has one, so

- no free cell may have ``link == 0`` (``zeros == 0``);
- at most one free cell may have ``link == 1`` (``ones <= 1``), and it must be the last cell:
  if it is a neighbour of e while other free cells remain, the state is dead.

For closed tours the start s is the other end of the completion (e -> ... -> last -> s), so
``link`` also counts s, s is never "left behind", and every free cell needs ``link >= 2``
(``ones == 0``).

``link`` changes only at the neighbours of the old end when the path moves e -> v (they lose
e; the neighbours of v keep their count, v turned from free into the end), so one move costs
one pass over the neighbours of e. Before expanding a node we also look one move ahead: a
neighbour u of e with ``link[u] == 2`` becomes a ``link == 1`` cell as soon as the path moves
elsewhere, so when there are more such neighbours than the ``ones`` budget allows the move is
forced to one of them (or the node is dead). These rules cut 5x7 from its centre from
1.04 * 10^8 plain DFS nodes to 3.9 * 10^5 (benchmarks/small_boards.py measures each rule).

Counts: the kernel's ``nodes`` = path states entered below the state it was given (moves that
survived the pruning), so a count split into prefix jobs adds up to the same number of nodes
as the unsplit search; callers add one per start state.
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit

# Status codes returned by :func:`search`.
DONE = 0  # the subtree under the base state is exhausted
FULL = 1  # the solution buffer filled up and ``stop_when_full`` asked to stop there
LIMIT = 2  # ``node_limit`` nodes were entered; resume from the returned state

UNEXPANDED = -1  # masks[d] before the node at depth d has been expanded

# Pruning rules, a bit set (``rules`` argument of :func:`search`); benchmarks/small_boards.py
# measures each.
LINKS = 1  # no free cell with link 0, at most one (closed: none) with link 1
LOOKAHEAD = 2  # forced moves from the link-1 and link-2 neighbours of the end
CONNECTED = 4  # the free cells and the end form one connected piece (a flood fill)
# CONNECTED is off by default: on 5x7 and 6x6 it cuts 10-30% of the nodes but costs four times
# the time per node (the cuts it adds come deep in the tree, where little is left to save; with
# the flood fill only where at least half the cells are free it cuts under 3%). A forced-edge
# rule was measured and dropped too: a free cell with link 2 (not the last) uses both links, so
# a cell with three or four such neighbours is dead; it cuts 25-30% of the nodes on 5x7 and 6x6
# but the full check costs 3.5x the time per node (an incremental one, not built, would add a
# pass over the neighbours of every cell whose link changes: about what the nodes save).
DEFAULT_RULES = LINKS | LOOKAHEAD

# The move masks are int64 bit sets and -1 is the "unexpanded" sentinel, so a move set may
# have at most 63 moves.
MAX_MOVES = 63


@njit(cache=True)
def _frame(rows, cols, dr, dc):
    """The framed board (frame = 1, cells = 0), its row width, the frame width, move offsets."""
    reach = 1
    for i in range(dr.shape[0]):
        reach = max(reach, abs(dr[i]), abs(dc[i]))
    width = cols + 2 * reach
    height = rows + 2 * reach
    board = np.ones(height * width, dtype=np.uint8)
    for r in range(rows):
        for c in range(cols):
            board[(r + reach) * width + c + reach] = 0
    off = np.empty(dr.shape[0], dtype=np.int64)
    for i in range(dr.shape[0]):
        off[i] = dr[i] * width + dc[i]
    return board, width, reach, off


@njit(cache=True)
def _pick_bit(m, randomize):
    """Index of the lowest set bit of ``m`` (or of a uniformly random set bit)."""
    if randomize:
        n = 0
        x = m
        while x:
            x &= x - 1
            n += 1
        k = np.random.randint(n)
        x = m
        while k:
            x &= x - 1
            k -= 1
        m = x
    i = 0
    while not (m >> i) & 1:
        i += 1
    return i


@njit(cache=True, inline="always")
def _advance(board, link, off, e, v, keep_e, ones, zeros):
    """Move the end e -> v: v leaves the free cells; unless ``keep_e`` (the start of a closed
    tour stays a link), the free neighbours of e lose it. Returns the new (ones, zeros)."""
    board[v] = 1
    if link[v] == 1:
        ones -= 1
    if not keep_e:
        for j in range(off.shape[0]):
            u = e + off[j]
            if board[u] == 0:
                old = link[u]
                link[u] = old - 1
                if old == 1:
                    ones -= 1
                    zeros += 1
                elif old == 2:
                    ones += 1
    return ones, zeros


@njit(cache=True, inline="always")
def _retreat(board, link, off, e, v, keep_e, ones, zeros):
    """Undo `_advance()` exactly. Returns the restored (ones, zeros)."""
    if not keep_e:
        for j in range(off.shape[0]):
            u = e + off[j]
            if board[u] == 0:
                old = link[u]
                link[u] = old + 1
                if old == 0:
                    zeros -= 1
                    ones += 1
                elif old == 1:
                    ones -= 1
    board[v] = 0
    if link[v] == 1:
        ones += 1
    return ones, zeros


@njit(cache=True)
def search(
    rows,
    cols,
    dr,
    dc,
    closed,
    rules,
    path,
    masks,
    depth,
    base_depth,
    stop_depth,
    out,
    stop_when_full,
    node_limit,
    seed,
    ends,
):
    """Depth-first search of the completions of ``path[:depth]``; resumable.

    - ``path`` (int64[rows*cols], flat cells r*cols+c) and ``masks`` (int64[rows*cols]) hold
      the state; both are updated in place, so after a FULL or LIMIT return a second call with
      the returned depth continues exactly where the first stopped. A fresh search passes
      ``masks[depth-1] = -1``.
    - The search never backs up above ``base_depth`` (the prefix it was given).
    - A state of depth ``stop_depth`` (or a complete path, depth rows*cols) is a leaf: it is
      counted and, while ``out`` has room, copied into ``out`` (row n, -1 padded).
    - ``closed``: count only paths whose last cell is one move from the first.
    - ``rules``: the pruning rules to apply, a bit set of LINKS, LOOKAHEAD, CONNECTED (0 =
      plain DFS with the same state handling, for cross-checks and measurements).
    - ``seed >= 0``: try moves in a random order (numba's generator seeded with ``seed``).
    - ``ends`` (int64, ``rows*cols`` long, or empty): each counted whole path adds one at its
      last cell, so a count from one start gives the counts by (start, end) pair.

    Returns ``(status, leaves, nodes, n_out, depth)``.
    """
    # ---- phase 1: the framed board and the path given (or resumed) ---------------------------
    n_cells = rows * cols
    n_moves = dr.shape[0]
    board, width, reach, off = _frame(rows, cols, dr, dc)
    randomize = seed >= 0
    if randomize:
        np.random.seed(seed)

    # order[k]: the index of cell k in the path, n_cells for a free cell, -1 for the frame.
    order = np.full(board.shape[0], -1, dtype=np.int64)
    for k in range(board.shape[0]):
        if board[k] == 0:
            order[k] = n_cells
    pp = np.empty(n_cells, dtype=np.int64)
    for k in range(depth):
        cell = path[k]
        pp[k] = (cell // cols + reach) * width + cell % cols + reach
        board[pp[k]] = 1
        order[pp[k]] = k
    start = pp[0]

    # ---- phase 2: the links of every cell, and the counts of cells with 0 and 1 links ----------
    # link[u]: neighbours of free cell u that are free, the end, or (closed) the start. A cell
    # on the path keeps the link it had when the path entered it (state path[:k], end pp[k-1]),
    # so that backing up over it (after a resume) restores the counters exactly.
    # int8: a link is at most the number of moves (<= MAX_MOVES = 63); one byte per cell
    # instead of four measured 20% more nodes/s (6x6 corner: 25 -> 30 M nodes/s CPU).
    link = np.zeros(board.shape[0], dtype=np.int8)
    ones = 0
    zeros = 0
    for k in range(board.shape[0]):
        if order[k] < 0:
            continue
        t = min(order[k], depth)  # the path length when k was (or is) free
        if t == 0:
            continue
        n = 0
        for i in range(n_moves):
            o = order[k + off[i]]
            if o >= t or o == t - 1 or (closed and o == 0):
                n += 1
        link[k] = n
        if order[k] == n_cells:
            if n == 0:
                zeros += 1
            elif n == 1:
                ones += 1
    # A closed tour of two cells goes s -> v -> (back to) s over one edge: there v has a single
    # link and is fine; on three cells or more a closed tour is a cycle.
    cycle = closed and n_cells > 2
    allowed_ones = 0 if cycle else 1

    # ---- phase 3: the search's counters and the pruning rules --------------------------------
    leaves = 0
    nodes = 0
    n_out = 0
    status = DONE
    links = (rules & LINKS) != 0
    lookahead = (rules & LOOKAHEAD) != 0
    connected = (rules & CONNECTED) != 0
    seen = np.zeros(board.shape[0] if connected else 1, dtype=np.int64)
    stack = np.empty(n_cells if connected else 1, dtype=np.int64)
    stamp = 0
    if links and depth < n_cells and (zeros > 0 or ones > allowed_ones):
        return status, leaves, nodes, n_out, depth

    # ---- phase 4: the depth-first loop --------------------------------------------------------
    while True:
        d = depth
        end = pp[d - 1]
        m = masks[d - 1]
        # -- expand a new state: a leaf is counted (and copied to out), else its moves are
        #    listed, pruned by the lookahead on the end's neighbours
        if m == UNEXPANDED:
            free = n_cells - d
            if d >= n_cells or d >= stop_depth:  # a leaf: a whole path or a job prefix
                ok = True
                if closed and d == n_cells:
                    ok = False
                    for i in range(n_moves):
                        if end + off[i] == start:
                            ok = True
                if ok:
                    leaves += 1
                    if ends.shape[0] > 0 and d == n_cells:
                        ends[(end // width - reach) * cols + end % width - reach] += 1
                    if n_out < out.shape[0]:
                        for k in range(d):
                            p = pp[k]
                            out[n_out, k] = (p // width - reach) * cols + p % width - reach
                        for k in range(d, n_cells):
                            out[n_out, k] = -1
                        n_out += 1
                        if stop_when_full and n_out == out.shape[0]:
                            # reported after backing up below, so a resume does not recount
                            status = FULL
                m = 0
            else:
                all_moves = 0
                link2 = 0
                c1 = 0
                c2 = 0
                for i in range(n_moves):
                    u = end + off[i]
                    if board[u] == 0:
                        all_moves |= 1 << i
                        if link[u] == 1:
                            c1 += 1
                        elif link[u] == 2:
                            c2 += 1
                            link2 |= 1 << i
                m = all_moves
                if lookahead:
                    if c1 > 0:
                        # a neighbour whose only link is the end must be next and last
                        if cycle or free > 1:
                            m = 0
                    elif not (closed and end == start):
                        # leaving the end turns every other link-2 neighbour into a link-1
                        budget = allowed_ones - ones
                        if c2 - 1 > budget:
                            m = 0
                        elif c2 > budget:
                            m = link2
            masks[d - 1] = m
        # -- no move left: back up one cell (never above the prefix given)
        if m == 0:
            if d == base_depth:
                break
            # undo the move pp[d-2] -> pp[d-1]
            e = pp[d - 2]
            keep = closed and e == start
            ones, zeros = _retreat(board, link, off, e, pp[d - 1], keep, ones, zeros)
            depth = d - 1
            if status == FULL:
                break
            continue
        # -- the next move: advance, then prune (links, connectivity) or go deeper
        i = _pick_bit(m, randomize)
        masks[d - 1] = m & ~(1 << i)
        v = end + off[i]
        keep = closed and end == start
        ones, zeros = _advance(board, link, off, end, v, keep, ones, zeros)
        dead = links and d + 1 < n_cells and (zeros > 0 or ones > allowed_ones)
        if connected and not dead and n_cells - d - 1 >= 2:
            # flood the free cells from v; they must all be reached
            stamp += 1
            seen[v] = stamp
            stack[0] = v
            top = 1
            reached = 0
            while top > 0:
                top -= 1
                k = stack[top]
                for j in range(n_moves):
                    u = k + off[j]
                    if board[u] == 0 and seen[u] != stamp:
                        seen[u] = stamp
                        stack[top] = u
                        top += 1
                        reached += 1
            dead = reached < n_cells - d - 1
        if dead:
            ones, zeros = _retreat(board, link, off, end, v, keep, ones, zeros)
            continue
        pp[d] = v
        masks[d] = UNEXPANDED
        depth = d + 1
        nodes += 1
        if nodes >= node_limit:
            status = LIMIT
            break

    # ---- phase 5: the path back in board cells, for a resume ---------------------------------
    for k in range(depth):
        p = pp[k]
        path[k] = (p // width - reach) * cols + p % width - reach
    return status, leaves, nodes, n_out, depth


@njit(cache=True)
def count_plain(rows, cols, dr, dc, start, closed):
    """The plainest exhaustive count, for cross-checks: DFS on a framed board, no pruning.

    Returns ``(paths, nodes)`` from flat start cell ``start``; ``closed`` keeps only paths whose
    last cell is one move from the start.
    """
    n_cells = rows * cols
    n_moves = dr.shape[0]
    board, width, reach, off = _frame(rows, cols, dr, dc)
    first = (start // cols + reach) * width + start % cols + reach
    cell = np.empty(n_cells, dtype=np.int64)
    tried = np.zeros(n_cells, dtype=np.int64)
    cell[0] = first
    board[first] = 1
    depth = 1
    paths = 0
    nodes = 0
    while depth > 0:
        top = depth - 1
        if depth == n_cells:
            good = True
            if closed:
                good = False
                for i in range(n_moves):
                    if cell[top] + off[i] == first:
                        good = True
            if good:
                paths += 1
            tried[top] = n_moves
        if tried[top] < n_moves:
            v = cell[top] + off[tried[top]]
            tried[top] += 1
            if board[v] == 0:
                board[v] = 1
                cell[depth] = v
                tried[depth] = 0
                depth += 1
                nodes += 1
        else:
            board[cell[top]] = 0
            depth -= 1
    return paths, nodes
