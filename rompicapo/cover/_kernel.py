"""numba kernels: dancing links (Knuth's Algorithms X, C and M) on flat int32 arrays.

The memory picture (Knuth, TAOCP 7.2.2.1, and his programs DLX1-DLX3), with ``N`` items:

- *Item list*: ``llink``/``rlink`` (size ``N+2``) link the active primary items in a circular
  list headed by 0, and the secondary items in a second list headed by ``N+1``.
- *Nodes*: ``top``, ``ulink``, ``dlink``, ``color``, one entry per node.
  Nodes ``1..N`` are the item headers; their vertical list holds the item's options, and
  ``length[i]`` counts them. Then come the options, each preceded by a *spacer* node: option
  node ``p`` has ``top[p]`` = its item; a spacer has ``top <= 0``, its ``ulink`` pointing to the
  first node of the option before it and its ``dlink`` to the last node of the option after it,
  so a walk along an option wraps around through its spacers.
- ``color[p]``: 0 no colour; ``c > 0`` the colour of a secondary item; ``-1`` while the node's
  item is *purified* to the node's own colour (Algorithm C), so hiding skips it.
- ``node_option[p]`` is the caller's option number of node ``p`` (-1 for headers and spacers).

The searches are resumable state machines: everything they need lives in the arrays passed in
(``state`` holds the program counter and the level), so a call may stop after a given number of
solutions or search-tree nodes and a later call resumes exactly there. That one mechanism gives
lazy iteration, "at most k", time limits, node limits and progress reports.

Counts (Knuth's measures): ``nodes`` = search-tree nodes (entries to a level), ``updates`` =
links removed (each unlinked node or item), ``cleansings`` = nodes touched by purification.
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit

# state[STATE_PC] takes these values
PC_FORWARD = 0  # entering a level: check for a solution, choose an item, branch
PC_BACKDOWN = 1  # leaving a level: undo its choice, try the next option
PC_DONE = 2  # the whole tree has been searched

STATE_PC = 0
STATE_LEVEL = 1

# counters[...]
C_SOLUTIONS = 0
C_NODES = 1
C_UPDATES = 2
C_CLEANSINGS = 3
C_MAX_LEVEL = 4
N_COUNTERS = 5

# why a search call returned
STOP_EXHAUSTED = 0  # the tree is finished; the solution count is exact
STOP_SOLUTIONS = 1  # the call found the solutions it was asked for (or filled its store)
STOP_BUDGET = 2  # the call spent its node budget; call again to go on


@njit(cache=True, nogil=True)
def build_links(n_primary, n_items, option_start, option_items, option_colors, option_order,
                item_order):  # fmt: skip
    """Lay out the dancing-links arrays; options enter their item lists in ``option_order``
    and primary items enter the active list in ``item_order`` (both permutations)."""
    n_options = len(option_start) - 1
    n_nodes = n_items + 1 + len(option_items) + n_options + 1
    llink = np.zeros(n_items + 2, np.int32)
    rlink = np.zeros(n_items + 2, np.int32)
    top = np.zeros(n_nodes, np.int32)
    ulink = np.zeros(n_nodes, np.int32)
    dlink = np.zeros(n_nodes, np.int32)
    color = np.zeros(n_nodes, np.int32)
    length = np.zeros(n_items + 2, np.int32)
    node_option = np.full(n_nodes, -1, np.int32)
    option_node = np.zeros(n_options, np.int32)  # first node of each option
    # primary items: circular list headed by 0, in item_order
    prev = 0
    for k in range(n_primary):
        i = item_order[k] + 1
        rlink[prev] = i
        llink[i] = prev
        prev = i
    rlink[prev] = 0
    llink[0] = prev
    # secondary items: circular list headed by N+1
    head = n_items + 1
    prev = head
    for i in range(n_primary + 1, n_items + 1):
        rlink[prev] = i
        llink[i] = prev
        prev = i
    rlink[prev] = head
    llink[head] = prev
    for i in range(1, n_items + 1):
        ulink[i] = i
        dlink[i] = i
    # options, each after a spacer
    spacer = n_items + 1
    top[spacer] = 0
    p = spacer
    for k in range(n_options):
        o = option_order[k]
        first = p + 1
        for a in range(option_start[o], option_start[o + 1]):
            p += 1
            i = option_items[a] + 1
            top[p] = i
            color[p] = option_colors[a]
            node_option[p] = o
            # append p at the bottom of item i's list
            last = ulink[i]
            dlink[last] = p
            ulink[p] = last
            dlink[p] = i
            ulink[i] = p
            length[i] += 1
        option_node[o] = first
        dlink[spacer] = p  # the spacer before points to this option's last node
        p += 1
        spacer = p
        top[spacer] = -(k + 1)
        ulink[spacer] = first  # the spacer after points to this option's first node
    return llink, rlink, top, ulink, dlink, color, length, node_option, option_node


# --------------------------------------------------------------------------------------------
# The dance steps
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _hide(p, top, ulink, dlink, color, length):
    """Remove the other nodes of ``p``'s option from their item lists; return the updates."""
    updates = 0
    q = p + 1
    while q != p:
        x = top[q]
        if x <= 0:
            q = ulink[q]
            continue
        if color[q] >= 0:
            u = ulink[q]
            d = dlink[q]
            dlink[u] = d
            ulink[d] = u
            length[x] -= 1
            updates += 1
        q += 1
    return updates


@njit(cache=True)
def _unhide(p, top, ulink, dlink, color, length):
    """Undo `_hide()` (walking the option the other way)."""
    q = p - 1
    while q != p:
        x = top[q]
        if x <= 0:
            q = dlink[q]
            continue
        if color[q] >= 0:
            u = ulink[q]
            d = dlink[q]
            dlink[u] = q
            ulink[d] = q
            length[x] += 1
        q -= 1


@njit(cache=True)
def _cover(i, llink, rlink, top, ulink, dlink, color, length):
    """Remove item ``i`` from the active list and every option containing it from the others."""
    updates = 1
    p = dlink[i]
    while p != i:
        updates += _hide(p, top, ulink, dlink, color, length)
        p = dlink[p]
    left = llink[i]
    right = rlink[i]
    rlink[left] = right
    llink[right] = left
    return updates


@njit(cache=True)
def _uncover(i, llink, rlink, top, ulink, dlink, color, length):
    left = llink[i]
    right = rlink[i]
    rlink[left] = i
    llink[right] = i
    p = ulink[i]
    while p != i:
        _unhide(p, top, ulink, dlink, color, length)
        p = ulink[p]


@njit(cache=True)
def _purify(p, top, ulink, dlink, color, length, counters):
    """Keep only the options that give ``p``'s secondary item ``p``'s colour (Algorithm C)."""
    c = color[p]
    i = top[p]
    updates = 0
    q = dlink[i]
    while q != i:
        if color[q] == c:
            if q != p:
                color[q] = -1
                counters[C_CLEANSINGS] += 1
        else:
            updates += _hide(q, top, ulink, dlink, color, length)
        q = dlink[q]
    return updates


@njit(cache=True)
def _unpurify(p, top, ulink, dlink, color, length):
    c = color[p]
    i = top[p]
    q = ulink[i]
    while q != i:
        if color[q] < 0:
            color[q] = c
        elif q != p:
            _unhide(q, top, ulink, dlink, color, length)
        q = ulink[q]


@njit(cache=True)
def _commit_others(x, n_primary, llink, rlink, top, ulink, dlink, color, length, counters,
                   bound):  # fmt: skip
    """Take option node ``x`` into the solution: for each other item of its option, a primary
    item's bound drops by one and the item is covered when it reaches 0 (at once, in
    Algorithms X and C, where every bound is 1); a secondary item is covered, or purified to
    its colour (Algorithm C)."""
    updates = 0
    p = x + 1
    while p != x:
        j = np.int64(top[p])  # int64 as everywhere: one compiled version of _cover, _uncover
        if j <= 0:
            p = ulink[p]
            continue
        if j <= n_primary:
            bound[j] -= 1
            if bound[j] == 0:
                updates += _cover(j, llink, rlink, top, ulink, dlink, color, length)
        else:
            c = color[p]
            if c == 0:
                updates += _cover(j, llink, rlink, top, ulink, dlink, color, length)
            elif c > 0:
                updates += _purify(p, top, ulink, dlink, color, length, counters)
        p += 1
    return updates


@njit(cache=True)
def _uncommit_others(x, n_primary, llink, rlink, top, ulink, dlink, color, length, bound):
    """Undo `_commit_others()` (walking the option the other way)."""
    p = x - 1
    while p != x:
        j = np.int64(top[p])  # int64 as everywhere: one compiled version of _cover, _uncover
        if j <= 0:
            p = dlink[p]
            continue
        if j <= n_primary:
            if bound[j] == 0:
                _uncover(j, llink, rlink, top, ulink, dlink, color, length)
            bound[j] += 1
        else:
            c = color[p]
            if c == 0:
                _uncover(j, llink, rlink, top, ulink, dlink, color, length)
            elif c > 0:
                _unpurify(p, top, ulink, dlink, color, length)
        p -= 1


@njit(cache=True, nogil=True)
def commit_options(options, option_node, n_primary, n_items, llink, rlink, top, ulink, dlink,
                   color, length, counters):  # fmt: skip
    """Put the given options into every solution before searching (Sudoku givens, the prefix
    of a parallel job). Returns False, changing nothing useful, if two of them conflict.
    Algorithms X and C only (all bounds 1)."""
    used = np.full(n_items + 1, -2, np.int64)  # -2 unused, else the colour it was used with
    for k in range(len(options)):
        first = option_node[options[k]]
        p = first
        while top[p] > 0:
            j = top[p]
            c = color[p]
            if used[j] != -2 and (j <= n_primary or c == 0 or used[j] != c):
                return False
            used[j] = c
            p += 1
    for k in range(len(options)):
        p = np.int64(option_node[options[k]])
        while top[p] > 0:
            j = np.int64(top[p])
            if j <= n_primary or color[p] == 0:
                counters[C_UPDATES] += _cover(j, llink, rlink, top, ulink, dlink, color, length)
            elif color[p] > 0:
                counters[C_UPDATES] += _purify(p, top, ulink, dlink, color, length, counters)
            p += 1
    return True


# --------------------------------------------------------------------------------------------
# Algorithm X/C: exactly-once primary items, secondary items with optional colours
# --------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def search_xc(n_primary, llink, rlink, top, ulink, dlink, color, length, node_option, bound,
              choice, choice_k, choice_d, state, counters,
              store, store_len, max_store, stop_after, node_budget, split_depth):  # fmt: skip
    """Run Algorithm C (X when nothing is coloured) from ``state`` until something stops it.

    Each solution found (or, when ``split_depth >= 0``, each partial solution of that many
    options: the subproblems of a parallel count) adds 1 to ``counters[C_SOLUTIONS]``; the
    first ``max_store`` of this call are written to ``store[s, :store_len[s]]`` as option
    numbers. The call returns ``(status, stored)``: ``STOP_SOLUTIONS`` after ``stop_after``
    solutions, ``STOP_BUDGET`` after ``node_budget`` nodes, ``STOP_EXHAUSTED`` at the end.
    The item chosen is the first active one of minimum length (Knuth's MRV tie-break).
    ``choice_k[l]``/``choice_d[l]`` say that level ``l`` tries option k of d (progress).
    """
    pc = state[STATE_PC]
    level = state[STATE_LEVEL]
    nodes = counters[C_NODES]
    updates = counters[C_UPDATES]
    max_level = counters[C_MAX_LEVEL]
    budget_end = nodes + node_budget
    found = 0
    stored = 0
    status = STOP_EXHAUSTED
    n_items_bound = len(llink) - 2  # header nodes are 1..N
    while True:
        if pc == PC_DONE:
            break
        if pc == PC_FORWARD:
            if nodes >= budget_end:
                status = STOP_BUDGET
                break
            nodes += 1
            if level > max_level:
                max_level = level
            if rlink[0] == 0 or level == split_depth:
                found += 1
                if stored < max_store:
                    for k in range(level):
                        store[stored, k] = node_option[choice[k]]
                    store_len[stored] = level
                    stored += 1
                pc = PC_BACKDOWN
                if found >= stop_after:
                    status = STOP_SOLUTIONS
                    break
                continue
            # choose the active primary item with the fewest options, the first one on ties
            best = 0
            best_len = 0x7FFFFFFF
            i = rlink[0]
            while i != 0:
                n = length[i]
                if n < best_len:
                    best = i
                    best_len = n
                    if n == 0:
                        break
                i = rlink[i]
            updates += _cover(best, llink, rlink, top, ulink, dlink, color, length)
            x = dlink[best]
            choice[level] = x
            choice_k[level] = 0
            choice_d[level] = best_len
        else:  # PC_BACKDOWN
            if level == 0:
                pc = PC_DONE
                break
            level -= 1
            x = choice[level]
            _uncommit_others(x, n_primary, llink, rlink, top, ulink, dlink, color, length, bound)
            x = dlink[x]
            choice[level] = x
            choice_k[level] += 1
        if x <= n_items_bound:  # back at the item's header: every option has been tried
            _uncover(np.int64(x), llink, rlink, top, ulink, dlink, color, length)
            pc = PC_BACKDOWN
            continue
        updates += _commit_others(
            x, n_primary, llink, rlink, top, ulink, dlink, color, length, counters, bound
        )
        level += 1
        pc = PC_FORWARD
    state[STATE_PC] = pc
    state[STATE_LEVEL] = level
    counters[C_SOLUTIONS] += found
    counters[C_NODES] = nodes
    counters[C_UPDATES] = updates
    counters[C_MAX_LEVEL] = max_level
    return status, stored


# --------------------------------------------------------------------------------------------
# Algorithm M: multiplicities (primary item i covered between lower and upper times), colours
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _tweak(n, top, ulink, dlink, color, length):
    """Hide node ``n``'s option and take ``n`` (the top of its item's list) out of that list."""
    updates = _hide(n, top, ulink, dlink, color, length) + 1
    u = ulink[n]
    d = dlink[n]
    dlink[u] = d
    ulink[d] = u
    length[top[n]] -= 1
    return updates


@njit(cache=True)
def _untweak(c, first, top, ulink, dlink, color, length, unhide):
    """Undo the tweaks made on item ``c`` since node ``first`` was its top option. The tweaked
    nodes still point down to one another, so the chain from ``first`` to the present top
    rebuilds the list; with ``unhide`` each of their options is restored in the other lists
    too (without it, ``c`` is covered and the caller uncovers it)."""
    z = dlink[c]
    dlink[c] = first
    r = first
    above = c
    k = 0
    while r != z:
        ulink[r] = above
        k += 1
        if unhide:
            _unhide(r, top, ulink, dlink, color, length)
        above = r
        r = dlink[r]
    ulink[z] = above
    length[c] += k


@njit(cache=True)
def _deactivate(i, llink, rlink):
    left = llink[i]
    right = rlink[i]
    rlink[left] = right
    llink[right] = left


@njit(cache=True)
def _reactivate(i, llink, rlink):
    left = llink[i]
    right = rlink[i]
    rlink[left] = i
    llink[right] = i


@njit(cache=True, nogil=True)
def search_m(n_primary, llink, rlink, top, ulink, dlink, color, length, node_option, bound,
             slack, first_tweak,
             choice, choice_k, choice_d, state, counters,
             store, store_len, max_store, stop_after, node_budget):  # fmt: skip
    """Algorithm M (Knuth's DLX3): like `search_xc()` but primary item ``i`` must be
    covered between ``bound[i] - slack[i]`` and ``bound[i]`` times.

    Steps as in TAOCP 7.2.2.1 Algorithm M: when an item's bound drops to 0 it is covered (no
    other option of it may join), and its options are then stepped through without hiding.
    The item chosen minimises the branching degree ``len + min(slack, bound) - bound + 1``,
    ties going to the smaller slack, then the longer list, then the first (as DLX3 does).
    Unlike DLX3, items whose every remaining subset of options is acceptable are still branched
    on (last), so every solution is counted, not only the "core" ones.
    Stored solutions contain ``-1`` for levels that chose no option; the caller drops them.
    """
    pc = state[STATE_PC]
    level = state[STATE_LEVEL]
    nodes = counters[C_NODES]
    updates = counters[C_UPDATES]
    max_level = counters[C_MAX_LEVEL]
    budget_end = nodes + node_budget
    found = 0
    stored = 0
    status = STOP_EXHAUSTED
    n_items_bound = len(llink) - 2
    best = 0
    x = 0
    infinity = 0x7FFFFFFF
    # program points inside a level: 0 = advance (try choice[level]), 1 = back up (restore)
    step = 0
    while True:
        if pc == PC_DONE:
            break
        if pc == PC_FORWARD:
            if nodes >= budget_end:
                status = STOP_BUDGET
                break
            nodes += 1
            if level > max_level:
                max_level = level
            score = infinity
            best = 0
            best_s = 0
            best_l = 0
            fallback = 0
            i = rlink[0]
            while i != 0:
                b = bound[i]
                s = slack[i]
                if s > b:
                    s = b
                n = length[i]
                if n > b or s < b:
                    t = n + s - b + 1
                    if t < score or (t == score and (s < best_s or (s == best_s and n > best_l))):
                        score = t
                        best = i
                        best_s = s
                        best_l = n
                elif fallback == 0 and n > 0:
                    fallback = i
                i = rlink[i]
            if score == infinity:
                if fallback == 0:  # no active item needs anything more: a solution
                    found += 1
                    if stored < max_store:
                        for k in range(level):
                            c = choice[k]
                            store[stored, k] = node_option[c] if c > n_items_bound else -1
                        store_len[stored] = level
                        stored += 1
                    pc = PC_BACKDOWN
                    if found >= stop_after:
                        status = STOP_SOLUTIONS
                        break
                    continue
                best = fallback
                s = slack[best]
                if s > bound[best]:
                    s = bound[best]
                score = length[best] + s - bound[best] + 1
            if score <= 0:  # too few options left to reach the item's lower bound
                pc = PC_BACKDOWN
                continue
            x = dlink[best]
            choice[level] = x
            choice_k[level] = 0
            choice_d[level] = score
            bound[best] -= 1
            if bound[best] == 0:  # covered enough: no other option of best may join
                updates += _cover(best, llink, rlink, top, ulink, dlink, color, length)
            first_tweak[level] = x if (bound[best] != 0 or slack[best] != 0) else 0
            step = 0
        else:  # PC_BACKDOWN
            if level == 0:
                pc = PC_DONE
                break
            level -= 1
            x = choice[level]
            if x <= n_items_bound:  # the null move: reactivate the item, then restore it
                best = x
                _reactivate(best, llink, rlink)
                step = 1
            else:
                best = top[x]
                _uncommit_others(
                    x, n_primary, llink, rlink, top, ulink, dlink, color, length, bound
                )
                x = dlink[x]
                choice[level] = x
                choice_k[level] += 1
                step = 0
        if step == 0:  # advance: is choice[level] allowed? tweak it if needed
            if bound[best] == 0 and slack[best] == 0:
                if x == best:
                    step = 1
            elif length[best] <= bound[best] - slack[best]:
                step = 1
            elif x != best:
                if bound[best] == 0:  # best is covered, x's option already hidden
                    d = dlink[x]
                    dlink[best] = d
                    ulink[d] = best
                    length[best] -= 1
                else:
                    updates += _tweak(x, top, ulink, dlink, color, length)
            elif bound[best] != 0:
                _deactivate(best, llink, rlink)
        if step == 1:  # back up: restore best's state at entry to this level
            if bound[best] == 0 and slack[best] == 0:
                _uncover(best, llink, rlink, top, ulink, dlink, color, length)
            elif bound[best] == 0:
                _untweak(
                    best, first_tweak[level], top, ulink, dlink, color, length, np.bool_(False)
                )  # np.bool_: a literal False would compile a second version
                _uncover(best, llink, rlink, top, ulink, dlink, color, length)
            else:
                _untweak(best, first_tweak[level], top, ulink, dlink, color, length, np.bool_(True))
            bound[best] += 1
            pc = PC_BACKDOWN
            continue
        if x > n_items_bound:
            updates += _commit_others(
                x, n_primary, llink, rlink, top, ulink, dlink, color, length, counters, bound
            )
        level += 1
        pc = PC_FORWARD
    state[STATE_PC] = pc
    state[STATE_LEVEL] = level
    counters[C_SOLUTIONS] += found
    counters[C_NODES] = nodes
    counters[C_UPDATES] = updates
    counters[C_MAX_LEVEL] = max_level
    return status, stored
