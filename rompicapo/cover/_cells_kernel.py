"""numba kernel: "dancing cells" (sparse sets) for Algorithm X with secondary items.

Knuth's later alternative to dancing links (TAOCP 7.2.2.3): instead of doubly linked lists,
each item keeps its options in a *sparse set*, a segment of one array whose first
``size[j]`` entries are the active ones. Removing an entry swaps it with the last active one
and shrinks ``size``; undoing is copying the saved sizes back, because the removed entries
wait right after the active parts. Taking an option makes its items inactive and removes the
options that clash with it from the sets of the items that were active; an item left without
options ends the step at once.

Memory picture, for ``n_items`` items and options laid out one after another:

- node ``p`` (one per item of each option): ``node_item[p]``, ``node_option[p]``,
  ``node_loc[p]`` = where ``p`` sits now in ``cells``, ``first[p]``/``last[p]`` = the nodes of
  its option;
- ``cells[start[j] : start[j + 1]]`` holds item ``j``'s nodes, the first ``size[j]`` active;
- ``active[:n_active]`` lists the active items, primary and secondary (a sparse set too,
  ``n_active`` in ``state[2]``, ``active_pos[j]`` = where item ``j`` sits in ``active``);
- ``saved[l]`` holds the set sizes to go back to at level ``l``.

The search mirrors :func:`rompicapo.cover._kernel.search_xc` (same ``state`` program counter,
``counters`` and store layout, same return values), so the caller drives either. It is an
alternative engine and a cross-check (the tests compare both with brute force); see
:class:`rompicapo.cover.solve._Search` for the measurements.
"""

from __future__ import annotations

import numpy as np
from numba import njit

PC_FORWARD = 0
PC_BACKDOWN = 1
PC_DONE = 2
STATE_PC = 0
STATE_LEVEL = 1
STATE_ACTIVE = 2  # how many items are still active
N_STATE = 3
C_SOLUTIONS = 0
C_NODES = 1
C_UPDATES = 2
C_MAX_LEVEL = 4
STOP_EXHAUSTED = 0
STOP_SOLUTIONS = 1
STOP_BUDGET = 2


@njit(cache=True)
def build_cells(n_primary, n_items, option_start, option_items, option_order, item_order):
    """The sparse-set arrays; options enter the item sets in ``option_order`` and primary
    items the active list in ``item_order`` (secondary items follow them)."""
    n_nodes = len(option_items)
    length = np.zeros(n_items, np.int32)
    for a in range(n_nodes):
        length[option_items[a]] += 1
    start = np.zeros(n_items + 1, np.int32)
    for j in range(n_items):
        start[j + 1] = start[j] + length[j]
    size = np.zeros(n_items, np.int32)
    cells = np.zeros(n_nodes, np.int32)
    node_item = np.zeros(n_nodes, np.int32)
    node_option = np.zeros(n_nodes, np.int32)
    node_loc = np.zeros(n_nodes, np.int32)
    first = np.zeros(n_nodes + 1, np.int32)  # first node of each node's option
    last = np.zeros(n_nodes + 1, np.int32)  # one past its last node
    for k in range(len(option_start) - 1):
        o = option_order[k]
        for a in range(option_start[o], option_start[o + 1]):
            j = option_items[a]
            loc = start[j] + size[j]
            cells[loc] = a
            node_loc[a] = loc
            size[j] += 1
            node_item[a] = j
            node_option[a] = o
            first[a] = option_start[o]
            last[a] = option_start[o + 1]
    active = np.zeros(max(n_items, 1), np.int32)
    active_pos = np.zeros(max(n_items, 1), np.int32)
    for k in range(n_items):
        j = item_order[k] if k < n_primary else k
        active[k] = j
        active_pos[j] = k
    return start, size, cells, node_item, node_option, node_loc, first, last, active, active_pos


@njit(cache=True)
def _deactivate(j, active, active_pos, state):
    n = state[STATE_ACTIVE] - 1
    pos = active_pos[j]
    other = active[n]
    active[pos] = other
    active_pos[other] = pos
    active[n] = j
    active_pos[j] = n
    state[STATE_ACTIVE] = n


@njit(cache=True)
def _hide_options(j, n_primary, start, size, cells, node_item, node_loc, first, last,
                  active_pos, was_active, now_active, may_fail):  # fmt: skip
    """Remove every active option of item ``j`` from the sets of the other items that were
    active when this step began (``active_pos < was_active``). With ``may_fail``, stop
    (returning -1) as soon as a primary item still active (``active_pos < now_active``)
    would lose its last option: that branch is dead, and finding out now saves the rest of
    the work (Knuth's dancing cells do the same). Otherwise return the number of removals."""
    removed = 0
    base = start[j]
    for k in range(size[j]):
        y = cells[base + k]
        for r in range(first[y], last[y]):
            m = node_item[r]
            if m == j or active_pos[m] >= was_active:
                continue
            end = start[m] + size[m] - 1
            if may_fail and end == start[m] and m < n_primary and active_pos[m] < now_active:
                return -1
            loc = node_loc[r]
            moved = cells[end]
            cells[loc] = moved
            node_loc[moved] = loc
            cells[end] = r
            node_loc[r] = end
            size[m] -= 1
            removed += 1
    return removed


@njit(cache=True)
def _take(x, skip, n_primary, start, size, cells, node_item, node_loc, first, last, active,
          active_pos, state, may_fail):  # fmt: skip
    """Put option node ``x``'s option into the solution: its items (but ``skip``, already
    inactive) become inactive, then the options clashing with it leave the sets of the items
    that were active (those just made inactive included, so no option is met twice).
    Returns the removals, or -1 if a primary item was left without options."""
    was_active = state[STATE_ACTIVE]
    for q in range(first[x], last[x]):
        j = node_item[q]
        if j != skip:
            _deactivate(j, active, active_pos, state)
    now_active = state[STATE_ACTIVE]
    removed = 0
    for q in range(first[x], last[x]):
        j = node_item[q]
        if j == skip:
            continue
        got = _hide_options(
            j, n_primary, start, size, cells, node_item, node_loc, first, last, active_pos,
            was_active, now_active, may_fail,
        )  # fmt: skip
        if got < 0:
            return -1
        removed += got
    return removed


@njit(cache=True)
def commit_options(options, option_first, n_primary, n_items, start, size, cells, node_item,
                   node_option, node_loc, first, last, active, active_pos, state,
                   counters):  # fmt: skip
    """Put the given options into every solution first; False if two of them conflict."""
    used = np.zeros(n_items, np.bool_)
    for k in range(len(options)):
        p = option_first[options[k]]
        for q in range(first[p], last[p]):
            if used[node_item[q]]:
                return False
            used[node_item[q]] = True
    for k in range(len(options)):
        counters[C_UPDATES] += _take(
            option_first[options[k]], -1, n_primary, start, size, cells, node_item, node_loc,
            first, last, active, active_pos, state, False,
        )  # fmt: skip
    return True


@njit(cache=True)
def search_cells(n_primary, start, size, cells, node_item, node_option, node_loc, first, last,
                 active, active_pos, best, saved, saved_active,
                 choice, choice_k, choice_d, state, counters,
                 store, store_len, max_store, stop_after, node_budget, split_depth):  # fmt: skip
    """Algorithm X on sparse sets; the contract of :func:`rompicapo.cover._kernel.search_xc`.

    At level ``l`` the chosen item ``best[l]`` becomes inactive and its options leave the
    other sets once (all set sizes saved before that in ``saved[l, 0]``, and after it in
    ``saved[l, 1]``); then each of its options in turn is taken from that state, ``choice[l]``
    being its position in the item's set, which stays still while the item is inactive.
    Undoing a step is copying the saved sizes back: removed entries wait right after the
    active parts.
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
            # the active primary item with the fewest options (first on ties)
            n_active = state[STATE_ACTIVE]
            i = -1
            least = 0x7FFFFFFF
            for k in range(n_active):
                j = active[k]
                if j < n_primary and size[j] < least:
                    i = j
                    least = size[j]
                    if least <= 1:
                        break
            if i < 0 or level == split_depth:  # no primary item left: a solution
                found += 1
                if stored < max_store:
                    for k in range(level):
                        store[stored, k] = node_option[cells[start[best[k]] + choice[k]]]
                    store_len[stored] = level
                    stored += 1
                pc = PC_BACKDOWN
                if found >= stop_after:
                    status = STOP_SOLUTIONS
                    break
                continue
            if least == 0:
                pc = PC_BACKDOWN
                continue
            best[level] = i
            choice[level] = 0
            choice_k[level] = 0
            choice_d[level] = least
            saved[level, 0, :] = size
            saved_active[level, 0] = n_active
            _deactivate(i, active, active_pos, state)
            updates += _hide_options(
                i, n_primary, start, size, cells, node_item, node_loc, first, last, active_pos,
                n_active, n_active - 1, False,
            )  # fmt: skip
            # every option of i starts from this same state: save it once
            saved[level, 1, :] = size
            saved_active[level, 1] = state[STATE_ACTIVE]
        else:  # PC_BACKDOWN
            if level == 0:
                pc = PC_DONE
                break
            level -= 1
            size[:] = saved[level, 1]
            state[STATE_ACTIVE] = saved_active[level, 1]
            choice[level] += 1
            choice_k[level] += 1
        # try the options of best[level] from choice[level] on
        i = best[level]
        descended = False
        while choice[level] < size[i]:
            x = cells[start[i] + choice[level]]
            got = _take(
                x, i, n_primary, start, size, cells, node_item, node_loc, first, last, active,
                active_pos, state, True,
            )  # fmt: skip
            if got >= 0:
                updates += got
                descended = True
                break
            size[:] = saved[level, 1]
            state[STATE_ACTIVE] = saved_active[level, 1]
            choice[level] += 1
            choice_k[level] += 1
        if descended:
            level += 1
            pc = PC_FORWARD
            continue
        # every option of i tried: i active again, with all its options
        size[:] = saved[level, 0]
        state[STATE_ACTIVE] = saved_active[level, 0]
        pc = PC_BACKDOWN
    state[STATE_PC] = pc
    state[STATE_LEVEL] = level
    counters[C_SOLUTIONS] += found
    counters[C_NODES] = nodes
    counters[C_UPDATES] = updates
    counters[C_MAX_LEVEL] = max_level
    return status, stored
