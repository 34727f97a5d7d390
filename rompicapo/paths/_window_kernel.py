"""numba: a Hamiltonian path of a small graph whose "virtual" nodes stand for whole cycles.

Used by :mod:`rompicapo.paths.window`: the cells of a narrow window of the board holding the
start are real nodes; the board left and right of the window, each covered by a closed tour,
are one virtual node each. The path may pass through a virtual node (enter its cycle at x, go
round it, leave from x's neighbour on the cycle) only between two real cells ``u``, ``v`` that
``pair[k, u, v]`` allows, or end in it (enter and go round, from any real neighbour).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rompicapo.paths._block_search_kernel import sort_by_keys, xorshift


@njit(cache=True)
def window_search(nb, nbn, start, virt0, pair, node_limit, seed):
    """Return ``(path, nodes)``: an order of all ``len(nbn)`` nodes from ``start`` along the
    edges ``nb`` (any end), where every virtual node ``x >= virt0`` that is not last lies
    between ``u`` and ``v`` with ``pair[x - virt0, u, v]``; or an empty array when the search
    ends (exhausted or past ``node_limit`` nodes) without one.

    Depth-first, Warnsdorff's order (fewest free neighbours first, ties broken by a seeded
    random key, so that restarts explore different trees); a free node with no free neighbour
    left (and that is not the last one) kills the branch.
    """
    n = nbn.shape[0]
    m = nb.shape[1]
    deg = nbn.copy()
    free = np.ones(n, np.bool_)
    path = np.empty(n, np.int64)
    cand = np.empty((n, m), np.int64)
    ncand = np.zeros(n, np.int64)
    nexti = np.zeros(n, np.int64)
    keys = np.empty(m, np.int64)
    state = np.uint64(seed * 2654435761 + 1)
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
                return path.copy(), nodes
            if nodes > node_limit:
                return np.empty(0, np.int64), nodes
            prev = path[depth - 1] if depth > 0 else -1
            k = 0
            for j in range(nbn[v]):
                u = nb[v, j]
                if not free[u]:
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
            if depth > 0:  # backtrack: v is free again, its neighbours regain it
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
        free[u] = False
        for j in range(nbn[v]):
            x = nb[v, j]
            if free[x] or x == u:
                deg[x] -= 1
        ok = True
        if n - depth - 2 > 0:
            for j in range(nbn[v]):
                x = nb[v, j]
                if free[x] and deg[x] < 1:
                    ok = False  # x can no longer be reached
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
