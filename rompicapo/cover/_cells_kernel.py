"""numba kernel: "dancing cells" (sparse sets) for Algorithm X with secondary items.

Knuth's later alternative to dancing links (TAOCP 7.2.2.3): instead of doubly linked lists,
each item keeps its options in a *sparse set*, a segment of one array whose first
``size[j]`` entries are the active ones. Removing an entry swaps it with the last active one
and shrinks ``size``; undoing is restoring ``size`` (saved on a *trail*), because the removed
entries wait right after the active part. Taking an option makes its items inactive and
removes the options that clash with it from the sets of the items still active only: an
inactive item's set is not looked at until it is active again.

Memory picture, for ``n_items`` items and options laid out one after another:

- node ``p`` (one per item of each option): ``node_item[p]``, ``node_option[p]``,
  ``node_loc[p]`` = where ``p`` sits now in ``cells``, ``first[p]``/``last[p]`` = the nodes of
  its option;
- ``cells[start[j] : start[j + 1]]`` holds item ``j``'s nodes, the first ``size[j]`` active;
- ``active[:n_active]`` lists the active primary items (a sparse set too, ``n_active`` in
  ``state[2]``, ``active_pos[j]`` = where item ``j`` sits in ``active``); ``alive[j]`` flags
  every active item, secondary ones included;
- ``trail`` holds (item, size) pairs, ``stamp``/``option_stamp`` mark which sets and options
  the current step has already saved or removed.

The search mirrors :func:`rompicapo.cover._kernel.search_xc` (same ``state`` program counter,
``counters`` and store layout, same return values), so the caller drives either. Measured
slower than dancing links here (see :mod:`rompicapo.cover.solve`), it is kept as an
alternative engine and a cross-check: the tests compare both with brute force.
"""

from __future__ import annotations

import numpy as np
from numba import njit

PC_FORWARD = 0
PC_BACKDOWN = 1
PC_DONE = 2
STATE_PC = 0
STATE_LEVEL = 1
STATE_ACTIVE = 2  # how many primary items are still uncovered
STATE_TRAIL = 3  # height of the trail of saved set sizes
STATE_STAMP = 4  # a fresh number for each option taken (marks sets already saved)
N_STATE = 5
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
    items the active list in ``item_order``."""
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
    active = np.zeros(max(n_primary, 1), np.int32)
    active_pos = np.zeros(max(n_primary, 1), np.int32)
    for k in range(n_primary):
        active[k] = item_order[k]
        active_pos[item_order[k]] = k
    alive = np.ones(n_items, np.int8)
    stamp = np.zeros(n_items, np.int64)
    option_stamp = np.zeros(len(option_start), np.int64)
    trail = np.zeros((n_nodes + n_items + 1, 2), np.int32)
    return (start, size, cells, node_item, node_option, node_loc, first, last, active,
            active_pos, alive, stamp, option_stamp, trail)  # fmt: skip


@njit(cache=True)
def _deactivate(j, n_primary, active, active_pos, alive, state):
    alive[j] = 0
    if j < n_primary:  # swap j to the end of the active part
        n = state[STATE_ACTIVE] - 1
        pos = active_pos[j]
        other = active[n]
        active[pos] = other
        active_pos[other] = pos
        active[n] = j
        active_pos[j] = n
        state[STATE_ACTIVE] = n


@njit(cache=True)
def _hide_options(j, n_primary, start, size, cells, node_item, node_option, node_loc, first,
                  last, alive, stamp, option_stamp, trail, state, may_fail):  # fmt: skip
    """Remove every active option of item ``j`` from the sets of the items still active,
    saving each set's size on the trail the first time this step shrinks it. With
    ``may_fail``, stop (returning -1) as soon as an active primary item would lose its last
    option: that branch is dead, and finding out now saves the rest of the work (Knuth's
    dancing cells do the same). Otherwise return the number of removals."""
    now = state[STATE_STAMP]
    top = state[STATE_TRAIL]
    removed = 0
    base = start[j]
    for k in range(size[j]):
        y = cells[base + k]
        o = node_option[y]
        if option_stamp[o] == now:  # met already in the set of another item of this step
            continue
        option_stamp[o] = now
        for r in range(first[y], last[y]):
            m = node_item[r]
            if alive[m] == 0:
                continue
            if may_fail and size[m] == 1 and m < n_primary:
                state[STATE_TRAIL] = top
                return -1
            if stamp[m] != now:
                stamp[m] = now
                trail[top, 0] = m
                trail[top, 1] = size[m]
                top += 1
            end = start[m] + size[m] - 1
            loc = node_loc[r]
            moved = cells[end]
            cells[loc] = moved
            node_loc[moved] = loc
            cells[end] = r
            node_loc[r] = end
            size[m] -= 1
            removed += 1
    state[STATE_TRAIL] = top
    return removed


@njit(cache=True)
def _restore(size, trail, mark, state):
    """Set sizes back from the trail down to height ``mark``."""
    top = state[STATE_TRAIL]
    while top > mark:
        top -= 1
        size[trail[top, 0]] = trail[top, 1]
    state[STATE_TRAIL] = top


@njit(cache=True)
def _take(x, skip, n_primary, start, size, cells, node_item, node_option, node_loc, first, last,
          active, active_pos, alive, stamp, option_stamp, trail, state, may_fail):  # fmt: skip
    """Put option node ``x``'s option into the solution: its items (but ``skip``, already
    inactive) become inactive, then the options clashing with it leave the active sets.
    Returns the removals, or -1 if a primary item was left without options."""
    for q in range(first[x], last[x]):
        j = node_item[q]
        if j != skip:
            _deactivate(j, n_primary, active, active_pos, alive, state)
    state[STATE_STAMP] += 1
    removed = 0
    for q in range(first[x], last[x]):
        j = node_item[q]
        if j == skip:
            continue
        got = _hide_options(
            j, n_primary, start, size, cells, node_item, node_option, node_loc, first, last,
            alive, stamp, option_stamp, trail, state, may_fail,
        )  # fmt: skip
        if got < 0:
            return -1
        removed += got
    return removed


@njit(cache=True)
def _reactivate_option(x, skip, n_primary, node_item, first, last, alive, state):
    for q in range(first[x], last[x]):
        j = node_item[q]
        if j != skip:
            alive[j] = 1
            if j < n_primary:
                state[STATE_ACTIVE] += 1


@njit(cache=True)
def commit_options(options, option_first, n_primary, n_items, start, size, cells, node_item,
                   node_option, node_loc, first, last, active, active_pos, alive, stamp,
                   option_stamp, trail, state, counters):  # fmt: skip
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
            option_first[options[k]], -1, n_primary, start, size, cells, node_item, node_option,
            node_loc, first, last, active, active_pos, alive, stamp, option_stamp, trail, state,
            False,
        )  # fmt: skip
    return True


@njit(cache=True)
def search_cells(n_primary, start, size, cells, node_item, node_option, node_loc, first, last,
                 active, active_pos, alive, stamp, option_stamp, trail, best, marks,
                 choice, choice_k, choice_d, state, counters,
                 store, store_len, max_store, stop_after, node_budget, split_depth):  # fmt: skip
    """Algorithm X on sparse sets; the contract of :func:`rompicapo.cover._kernel.search_xc`.

    At level ``l`` the chosen item ``best[l]`` is made inactive and its options leave the
    other sets once (trail height before that in ``marks[l, 0]``); then each of its options
    in turn is taken (height before in ``marks[l, 1]``), ``choice[l]`` being its position in
    the item's set, which stays still while the item is inactive.
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
            n_active = state[STATE_ACTIVE]
            if n_active == 0 or level == split_depth:
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
            # the active primary item with the fewest options (first on ties)
            i = active[0]
            least = size[i]
            for k in range(1, n_active):
                if least <= 1:
                    break
                j = active[k]
                if size[j] < least:
                    i = j
                    least = size[j]
            if least == 0:
                pc = PC_BACKDOWN
                continue
            best[level] = i
            choice[level] = 0
            choice_k[level] = 0
            choice_d[level] = least
            marks[level, 0] = state[STATE_TRAIL]
            _deactivate(i, n_primary, active, active_pos, alive, state)
            state[STATE_STAMP] += 1
            updates += _hide_options(
                i, n_primary, start, size, cells, node_item, node_option, node_loc, first,
                last, alive, stamp, option_stamp, trail, state, False,
            )  # fmt: skip
        else:  # PC_BACKDOWN
            if level == 0:
                pc = PC_DONE
                break
            level -= 1
            i = best[level]
            x = cells[start[i] + choice[level]]
            _restore(size, trail, marks[level, 1], state)
            _reactivate_option(x, i, n_primary, node_item, first, last, alive, state)
            choice[level] += 1
            choice_k[level] += 1
        # try the options of best[level] from choice[level] on
        i = best[level]
        descended = False
        while choice[level] < size[i]:
            x = cells[start[i] + choice[level]]
            marks[level, 1] = state[STATE_TRAIL]
            got = _take(
                x, i, n_primary, start, size, cells, node_item, node_option, node_loc, first,
                last, active, active_pos, alive, stamp, option_stamp, trail, state, True,
            )  # fmt: skip
            if got >= 0:
                updates += got
                descended = True
                break
            _restore(size, trail, marks[level, 1], state)
            _reactivate_option(x, i, n_primary, node_item, first, last, alive, state)
            choice[level] += 1
            choice_k[level] += 1
        if descended:
            level += 1
            pc = PC_FORWARD
            continue
        # every option of i tried: make i active again with all its options
        _restore(size, trail, marks[level, 0], state)
        alive[i] = 1
        state[STATE_ACTIVE] += 1
        pc = PC_BACKDOWN
    state[STATE_PC] = pc
    state[STATE_LEVEL] = level
    counters[C_SOLUTIONS] += found
    counters[C_NODES] = nodes
    counters[C_UPDATES] = updates
    counters[C_MAX_LEVEL] = max_level
    return status, stored
