"""numba: one Hamiltonian path of a small graph: a block between two given cells, or a window.

The block construction (`rompicapo.paths.blocks`) needs, for each block shape, a path that
visits every cell of an ``h x w`` block once, starts at a fixed entry cell and ends at a given
exit cell (or anywhere). Blocks have at most 9 x 9 = 81 cells, so a depth-first search with
Warnsdorff's ordering and leaf pruning finds one in milliseconds when one exists; a node budget
bounds the cases where none exists (the table then records the shape as unavailable, which the
split of the board avoids).

The window search of `rompicapo.paths.window` runs the same depth-first search on a graph
of its own, where a few "virtual" nodes stand for whole closed tours beside the window.
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit


@njit(cache=True)
def xorshift(state):
    """The next state of Marsaglia's 64-bit xorshift (a uint64)."""
    state ^= state << np.uint64(13)
    state ^= state >> np.uint64(7)
    state ^= state << np.uint64(17)
    return state


@njit(cache=True)
def sort_by_keys(items, keys, k):
    """Sort ``items[:k]`` by ``keys[:k]`` (both in place; insertion sort, k is small)."""
    for a in range(1, k):
        kk = keys[a]
        uu = items[a]
        b = a - 1
        while b >= 0 and keys[b] > kk:
            keys[b + 1] = keys[b]
            items[b + 1] = items[b]
            b -= 1
        keys[b + 1] = kk
        items[b + 1] = uu


@njit(cache=True)
def block_path(h, w, dr, dc, start, end, node_limit, seed):
    """Return ``(path, nodes)``: a Hamiltonian path of the ``h x w`` block (flat cells
    ``r * w + c``) from ``start`` to ``end`` (``end < 0``: any end), or an empty array when the
    search ends (exhausted or ``node_limit`` nodes) without one. The block's leaper graph
    (moves ``dr``, ``dc``) searched by `hamiltonian_dfs()`, with no virtual node."""
    n = h * w
    m = dr.shape[0]
    nb = np.full((n, m), -1, np.int64)
    nbn = np.zeros(n, np.int64)
    for r in range(h):
        for c in range(w):
            v = r * w + c
            for k in range(m):
                rr = r + dr[k]
                cc = c + dc[k]
                if 0 <= rr < h and 0 <= cc < w:
                    nb[v, nbn[v]] = rr * w + cc
                    nbn[v] += 1
    no_pairs = np.zeros((1, 1, 1), np.bool_)
    return hamiltonian_dfs(nb, nbn, start, end, n, no_pairs, node_limit, seed)


@njit(cache=True)
def hamiltonian_dfs(nb, nbn, start, end, virt0, pair, node_limit, seed):
    """Return ``(path, nodes)``: an order of all ``len(nbn)`` nodes of the graph ``nb`` (row
    ``v`` lists ``v``'s ``nbn[v]`` neighbours) from ``start`` to ``end`` (``end < 0``: any
    end), or an empty array when the search ends (exhausted or past ``node_limit`` nodes)
    without one.

    Nodes from ``virt0`` up are "virtual" (`rompicapo.paths.window`: a whole closed tour
    beside a window of the board): one that is not last must lie between real nodes ``u`` and
    ``v`` with ``pair[x - virt0, u, v]``. With ``virt0 = len(nbn)`` the graph is plain and
    ``pair`` is never read.

    Depth-first, Warnsdorff's order (fewest free neighbours first), ties broken by a seeded
    random key so that restarts explore different trees. Pruning: ``deg[u]`` counts the
    neighbours of ``u`` that are free or the head of the path. A free node with ``deg < 1`` can
    no longer be reached; with a fixed end, a free node other than the end with ``deg < 2``
    could only be the path's last node, so the branch dies.
    """
    n = nbn.shape[0]
    m = nb.shape[1]
    deg = nbn.copy()
    free = np.ones(n, np.bool_)
    path = np.empty(n, np.int64)
    # Per depth: the candidate list (sorted) and the index of the next one to try.
    cand = np.empty((n, m), np.int64)
    ncand = np.zeros(n, np.int64)
    nexti = np.zeros(n, np.int64)
    state = np.uint64(seed * 2654435761 + 1)
    keys = np.empty(m, np.int64)
    path[0] = start
    free[start] = False
    depth = 0
    nodes = 0
    fresh = True
    while depth >= 0:
        v = path[depth]
        if fresh:
            fresh = False
            nodes += 1
            if depth == n - 1:
                if end < 0 or v == end:
                    return path.copy(), nodes
            if nodes > node_limit:
                return np.empty(0, np.int64), nodes
            prev = path[depth - 1] if depth > 0 else -1
            # Candidates: free neighbours, fewest onward moves first, random tie-break.
            k = 0
            for j in range(nbn[v]):
                u = nb[v, j]
                if not free[u] or (u == end and depth != n - 2):
                    continue
                if v >= virt0 and not pair[v - virt0, prev, u]:
                    continue  # out of a cycle only where the cycle's edge allows
                if u >= virt0 and depth + 2 < n:
                    # into a cycle that is not the end: some free way out must exist
                    way = False
                    for t in range(virt0):
                        if free[t] and pair[u - virt0, v, t]:
                            way = True
                            break
                    if not way:
                        continue
                state = xorshift(state)
                cand[depth, k] = u
                keys[k] = deg[u] * 64 + np.int64(state % np.uint64(64))
                k += 1
            sort_by_keys(cand[depth], keys, k)
            ncand[depth] = k
            nexti[depth] = 0
        if nexti[depth] >= ncand[depth]:
            # Backtrack: v stops being the head and becomes free again.
            if depth > 0:
                p = path[depth - 1]
                free[v] = True
                for j in range(nbn[p]):
                    u = nb[p, j]
                    if free[u] or u == v:
                        deg[u] += 1
            depth -= 1
            continue
        u = cand[depth, nexti[depth]]
        nexti[depth] += 1
        # Move the head from v to u: v is no longer free nor head.
        free[u] = False
        ok = True
        for j in range(nbn[v]):
            x = nb[v, j]
            if free[x] or x == u:
                deg[x] -= 1
        remaining = n - depth - 2
        if remaining > 0:
            for j in range(nbn[v]):
                x = nb[v, j]
                if free[x]:
                    if deg[x] < 1:
                        ok = False  # unreachable
                        break
                    if deg[x] < 2 and end >= 0 and x != end and remaining > 1:
                        ok = False  # a second leaf besides the fixed end
                        break
        if ok:
            depth += 1
            path[depth] = u
            fresh = True
        else:
            free[u] = True
            for j in range(nbn[v]):
                x = nb[v, j]
                if free[x] or x == u:
                    deg[x] += 1
    return np.empty(0, np.int64), nodes
