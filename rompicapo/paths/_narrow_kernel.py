"""numba: one step of the column-profile dynamic programme of `rompicapo.paths.narrow`.

The board has ``R`` rows (few) and is swept cell by cell in column-major order (cell
``v = c * R + r``). Adding cell ``v`` decides its edges to earlier cells (at most 2; at most 1
for the start ``s``). A cell whose neighbours have all been added *retires*. The cells that
are added but not retired are the ``W`` cells ``v - W .. v - 1`` (``W`` = the largest index
distance of a move), and the state holds one 4-bit code per such cell (nibble ``i`` = cell
``v - W + i``), SIMPATH's "mate array":

- ``0``: no edge yet (a path of one cell);
- ``1``: two edges (inside a path; also the phantom cells before cell 0);
- ``2``: one edge, and the other end of its path has retired (it is the start or the end of
  the final path: a *terminal*);
- ``3..``: one edge, and the other end of its path is the window cell with the same code
  (codes are renumbered in order of first appearance, so equal partial solutions have equal
  states).

Rules that keep the partial solutions those that can grow into an open Hamiltonian path from
``s``: no cycle; a cell retires with one or two edges (never none); a cell other than ``s``
that retires with one edge is the path's other end, so at most one does; a path both of whose
ends have retired is the whole answer, allowed only at the last cell with every other window
cell inside it. After the last cell a state accepts when its non-inside cells are one terminal
(``2``) or one pair: a single path covering the board, ``s`` at one end.
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit

INSIDE = 1
TERMINAL = 2
FIRST_LABEL = 3
FRESH = 15  # a label made during a transition, renumbered before encoding


@njit(cache=True, inline="always")
def _partner(a, w, i):
    """The other window cell (index in ``a[0..w]``) with the label ``a[i]``, or -1."""
    x = a[i]
    for j in range(w + 1):
        if j != i and a[j] == x:
            return j
    return -1


@njit(cache=True, inline="always")
def _far_end(a, w, i, x):
    """The far end of the path that window cell ``i`` (code ``x``) ends: -2 for a retired
    terminal, else a window index (``i`` itself for a path of one cell)."""
    if x == TERMINAL:
        return -2
    if x >= FIRST_LABEL:
        return _partner(a, w, i)
    return i


@njit(cache=True)
def step(states, v, r, c, s, last, w, bdr, bdc, rows, closed):
    """Add cell ``v`` (row ``r``, column ``c``) to every state of ``states`` (sorted, unique).

    ``bdr``/``bdc``: the backward moves (to earlier cells; those that fit in ``rows``).
    ``s``: the start's cell index; ``last``: ``v`` is the board's last cell. ``closed``: the
    partial solutions are those of a closed tour instead (no start, no terminal: every cell
    retires with two edges, and the one cycle closes at the last cell).
    Returns ``(children, parent, choice)``: the sorted unique states after ``v``, for each the
    index in ``states`` of one state it came from and the bitmask of backward moves (bit ``j``
    = an edge from ``v`` along ``bdr[j], bdc[j]``) that made it.
    """
    # ---- phase 1: v's backward neighbours, the start's place, the edge subsets to try --------
    nb = bdr.shape[0]
    k = states.shape[0]
    # the backward neighbours on the board, as window indices (cell v - off is a[w - off])
    nbw = np.empty(nb, np.int64)
    nbbit = np.empty(nb, np.int64)
    m = 0
    for j in range(nb):
        rr = r + bdr[j]
        cc = c + bdc[j]
        if 0 <= rr < rows and cc >= 0:
            off = v - (cc * rows + rr)
            nbw[m] = w - off
            nbbit[m] = 1 << j
            m += 1
    s_idx = s - (v - w)  # the start's window index (valid when 0 <= s_idx <= w)
    s_in = 0 <= s_idx <= w and not closed
    s_retired = s < v - w  # retired before this step
    retiring = v - w
    maxdeg = 1 if v == s and not closed else 2
    # subsets of the neighbours with at most maxdeg edges
    subs = np.empty(1 + m + m * (m - 1) // 2, np.int64)
    ns = 0
    subs[ns] = 0
    ns += 1
    for i in range(m):
        subs[ns] = 1 << i
        ns += 1
    if maxdeg == 2:
        for i in range(m):
            for j in range(i + 1, m):
                subs[ns] = (1 << i) | (1 << j)
                ns += 1
    # ---- phase 2: every state times every subset: join the edges, retire cell v - w ---------
    cap = k * ns
    child = np.empty(cap, np.int64)
    par = np.empty(cap, np.int32)
    cho = np.empty(cap, np.uint8)
    out = 0
    base = np.empty(w + 1, np.int64)
    a = np.empty(w + 1, np.int64)
    relabel = np.empty(16, np.int64)
    for si in range(k):
        st = states[si]
        for i in range(w):
            base[i] = (st >> (4 * i)) & 15
        base[w] = 0
        for q in range(ns):
            sub = subs[q]
            for i in range(w + 1):
                a[i] = base[i]
            ok = True
            e0 = -1
            e1 = -1
            bits = 0
            for i in range(m):
                if (sub >> i) & 1:
                    u = nbw[i]
                    if a[u] == INSIDE or (s_in and u == s_idx and a[u] != 0):
                        ok = False
                        break
                    if e0 < 0:
                        e0 = u
                    else:
                        e1 = u
                    bits |= nbbit[i]
            if not ok:
                continue
            # -- v's labels from its edges: none, one (extend a path end), two (join two)
            complete = False
            if e0 < 0:
                a[w] = 0
            elif e1 < 0:
                x = a[e0]
                if x == 0:
                    a[e0] = FRESH
                    a[w] = FRESH
                else:
                    a[w] = x
                    a[e0] = INSIDE
            else:
                x0 = a[e0]
                x1 = a[e1]
                if x0 >= FIRST_LABEL and x0 == x1:
                    if not (closed and last):
                        continue  # the two ends of one path: a cycle
                    # the tour closes at the last cell
                    a[e0] = INSIDE
                    a[e1] = INSIDE
                    a[w] = INSIDE
                    x0 = x1 = INSIDE
                    complete = True
                f0 = e0 if complete else _far_end(a, w, e0, x0)
                f1 = e1 if complete else _far_end(a, w, e1, x1)
                if x0 != 0:
                    a[e0] = INSIDE
                if x1 != 0:
                    a[e1] = INSIDE
                a[w] = INSIDE
                if complete:
                    pass
                elif f0 == -2 and f1 == -2:
                    complete = True
                elif f0 == -2:
                    a[f1] = TERMINAL
                elif f1 == -2:
                    a[f0] = TERMINAL
                else:
                    a[f0] = FRESH
                    a[f1] = FRESH
            # -- retire cell v - w (a[0])
            rc = a[0]
            if rc == 0:
                continue  # a cell off every path
            if rc != INSIDE:
                if closed:
                    continue  # a closed tour enters and leaves every cell
                if retiring != s:
                    # it ends the path: no other end but the start's may have retired
                    nt = 0
                    for i in range(w + 1):
                        if a[i] == TERMINAL:
                            nt += 1
                    if nt - (1 if s_retired else 0) != 0:
                        continue
                if rc == TERMINAL:
                    complete = True
                else:
                    a[_partner(a, w, 0)] = TERMINAL
            if complete:
                if not last:
                    continue
                for i in range(1, w + 1):
                    if a[i] != INSIDE:
                        ok = False
                        break
                if not ok:
                    continue
            # -- shift out a[0], renumber the labels, encode
            for i in range(16):
                relabel[i] = -1
            nxt = FIRST_LABEL
            code = np.int64(0)
            for i in range(1, w + 1):
                x = a[i]
                if x >= FIRST_LABEL:
                    if relabel[x] < 0:
                        relabel[x] = nxt
                        nxt += 1
                    x = relabel[x]
                code |= np.int64(x) << (4 * (i - 1))
            child[out] = code
            par[out] = si
            cho[out] = bits
            out += 1
    # ---- phase 3: the children sorted, duplicates dropped (the first parent kept) -----------
    child = child[:out]
    order = np.argsort(child, kind="mergesort")
    keep = 0
    for i in range(out):
        if i == 0 or child[order[i]] != child[order[i - 1]]:
            keep += 1
    res = np.empty(keep, np.int64)
    rpar = np.empty(keep, np.int32)
    rcho = np.empty(keep, np.uint8)
    j = 0
    for i in range(out):
        o = order[i]
        if i == 0 or child[o] != child[order[i - 1]]:
            res[j] = child[o]
            rpar[j] = par[o]
            rcho[j] = cho[o]
            j += 1
    return res, rpar, rcho


@njit(cache=True)
def accepting(states, w, closed):
    """Index of the first state that is a finished path (see the module's rules; a closed
    tour: every window cell inside it), or -1."""
    for si in range(states.shape[0]):
        st = states[si]
        nt = 0
        npair = 0
        label = -1
        ok = True
        for i in range(w):
            x = (st >> (4 * i)) & 15
            if x == 0:
                ok = False
                break
            if x == TERMINAL:
                nt += 1
            elif x >= FIRST_LABEL:
                if label < 0:
                    label = x
                elif x != label:
                    ok = False
                    break
                npair += 1
        if not ok:
            continue
        if nt == 0 and npair == 0:
            return si
        if not closed and ((nt == 1 and npair == 0) or (nt == 0 and npair == 2)):
            return si
    return -1


@njit(cache=True)
def backtrack(final, parent, choice, offset, layer):
    """The edge choice of every cell, reading the parents back from state ``final`` of the
    last cell. Cell ``v``'s layer is ``layer[v]``: its parents and choices are
    ``parent[offset[layer[v]] : ...]`` (layers shared by repeated columns appear once)."""
    n = layer.shape[0]
    out = np.empty(n, np.uint8)
    i = final
    for v in range(n - 1, -1, -1):
        o = offset[layer[v]] + i
        out[v] = choice[o]
        i = parent[o]
    return out


@njit(cache=True)
def edges_to_path(choice, rows, s, bdr, bdc, board_cols):
    """The path from ``s`` along the edges ``choice`` selects (bit ``j`` of ``choice[v]``: the
    edge from cell ``v`` along backward move ``j``; cells as sweep indices ``c * rows + r``),
    as the board's flat cells ``r * board_cols + c`` (``board_cols`` 0: the sweep indices
    themselves, which are the flat cells of the transposed board). Returns the path (shorter
    than the board if the edges do not form one path from ``s``)."""
    n = choice.shape[0]
    adj = np.full((n, 2), -1, np.int64)
    for v in range(n):
        m = choice[v]
        if m == 0:
            continue
        r = v % rows
        c = v // rows
        for j in range(bdr.shape[0]):
            if (m >> j) & 1:
                u = (c + bdc[j]) * rows + r + bdr[j]
                adj[v, 0 if adj[v, 0] < 0 else 1] = u
                adj[u, 0 if adj[u, 0] < 0 else 1] = v
    path = np.empty(n, np.int64)
    path[0] = s
    prev = -1
    k = 1
    while k < n:
        cur = path[k - 1]
        nxt = adj[cur, 0] if adj[cur, 0] != prev else adj[cur, 1]
        if nxt < 0:
            break
        path[k] = nxt
        prev = cur
        k += 1
    if board_cols > 0:
        for i in range(k):
            v = path[i]
            path[i] = (v % rows) * board_cols + v // rows
    return path[:k]
