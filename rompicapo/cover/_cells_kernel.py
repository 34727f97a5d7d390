"""numba kernel: "dancing cells" (sparse sets) for Algorithm X with secondary items.

Knuth's later alternative to dancing links (TAOCP 7.2.2.3): instead of doubly linked lists,
each item keeps its options in a *sparse set*, a segment of one array whose first
``size[j]`` entries are the active ones. Removing an entry swaps it with the last active one
and shrinks ``size``; undoing is copying the saved sizes back, because the removed entries
wait right after the active parts, in the order they left.

Memory picture, for ``n_items`` items and options laid out one after another (every array
``uint32``, see below):

- node ``p`` (one per item of each option, numbered as in ``option_items``):
  ``node_item[p]``, ``node_option[p]``, ``node_loc[p]`` = where ``p`` sits now in ``cells``,
  ``first[p]``/``last[p]`` = the nodes of its option are ``first[p] .. last[p] - 1``;
- ``cells[start[j] : start[j + 1]]`` holds item ``j``'s nodes, the first ``size[j]`` active;
- ``active[:n_active]`` lists the primary items still to cover (a sparse set:
  ``pos[j]`` = where primary item ``j`` sits in ``active``; ``n_active`` in ``state``);
  secondary items need no such list (below); ``order`` lists the primary items in the order
  that breaks ties of the item choice;
- ``saved_before[l]`` / ``saved_after[l]`` hold the set sizes to go back to at level ``l``,
  before and after the options of the item chosen there left the other sets.

The invariant that keeps the inner loop short: *every option still active in the set of an
item not yet covered contains only items not yet covered*. Choosing item ``i`` removes all of
``i``'s options from the other sets at once; taking option ``x`` removes, for each other item
``j`` of ``x``, every option of ``j``'s set from the sets of its other items. So no test
"was this item still active?" is needed (Knuth's and xcover's loops make one per node), and
secondary items need no active list. Taking ``x`` stops as soon as a primary item not in ``x``
would lose its last option: that branch is dead, and finding out early saves the rest of the
work (Knuth's dancing cells do the same); that is why this engine visits a third of the nodes
of dancing links on pentominoes.

Why ``uint32``: numba indexes an array with a signed integer by first adding the length when
the index is negative (Python's wrap-around). With unsigned indices that test disappears; on
pento-6x10-xq the same code runs in 0.60 s with ``uint32`` arrays and 1.15 s with ``int32``.
All arithmetic in the hot loops therefore stays unsigned (``U(1)``, never a plain ``1``:
``uint64 - int64`` would be a float in numba).

Counts: ``nodes`` as in dancing links (entries to a level), ``updates`` = entries removed from
a set, those of an option whose taking then failed included (work done is work counted).

The search has the contract of `rompicapo.cover._kernel.search_xc()` (same ``state``
program counter, ``counters`` and store layout, same return values), so the caller drives
either kernel the same way. Colours stay with dancing links (Algorithm C), multiplicities
with Algorithm M.
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit

U = np.uint32

PC_FORWARD = 0
PC_BACKDOWN = 1
PC_DONE = 2
STATE_PC = 0
STATE_LEVEL = 1
STATE_ACTIVE = 2  # how many primary items are still to cover
N_STATE = 3
C_SOLUTIONS = 0
C_NODES = 1
C_UPDATES = 2
C_MAX_LEVEL = 4
STOP_EXHAUSTED = 0
STOP_SOLUTIONS = 1
STOP_BUDGET = 2


@njit(cache=True, nogil=True)
def build_cells(n_primary, n_items, option_start, option_items, option_order, item_order):
    """The sparse-set arrays; options enter the item sets in ``option_order`` and primary
    items the active list in ``item_order`` (which breaks ties of the item choice)."""
    n_nodes = len(option_items)
    length = np.zeros(n_items, np.uint32)
    for a in range(n_nodes):
        length[option_items[a]] += 1
    start = np.zeros(n_items + 1, np.uint32)
    for j in range(n_items):
        start[j + 1] = start[j] + length[j]
    size = np.zeros(n_items, np.uint32)
    cells = np.zeros(n_nodes, np.uint32)
    node_item = np.zeros(n_nodes, np.uint32)
    node_option = np.zeros(n_nodes, np.uint32)
    node_loc = np.zeros(n_nodes, np.uint32)
    first = np.zeros(n_nodes, np.uint32)
    last = np.zeros(n_nodes, np.uint32)
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
    active = np.zeros(max(n_primary, 1), np.uint32)
    pos = np.zeros(max(n_primary, 1), np.uint32)
    order = np.zeros(max(n_primary, 1), np.uint32)
    for k in range(n_primary):
        j = item_order[k]
        active[k] = j
        pos[j] = k
        order[k] = j
    return start, size, cells, node_item, node_option, node_loc, first, last, active, pos, order


@njit(cache=True, inline="always")
def _swap_to(x, end, members, where):
    """Sparse-set step: member ``x`` goes to position ``end`` of ``members`` (``where`` is the
    partner array, ``members[where[x]] == x``) and the member there takes ``x``'s place."""
    loc = where[x]
    moved = members[end]
    members[loc] = moved
    where[moved] = loc
    members[end] = x
    where[x] = end


@njit(cache=True, inline="always")
def _deactivate(j, n_active, active, pos):
    """Move primary item ``j`` out of ``active[:n_active]``; returns the new ``n_active``."""
    n = n_active - U(1)
    _swap_to(j, n, active, pos)
    return n


@njit(cache=True, inline="always")
def _remove_nodes(lo, hi, n_primary, n_active, start, size, cells, node_item, node_loc, pos,
                  may_fail):  # fmt: skip
    """Remove nodes ``lo .. hi-1`` (part of one option) from their item sets. With
    ``may_fail``, stop before the removal that would leave a primary item still to cover
    (``pos < n_active``) without options. Returns where it stopped (``hi`` = all removed)."""
    r = lo
    while r < hi:
        m = node_item[r]
        s = size[m] - U(1)
        if may_fail and s == U(0) and m < n_primary and pos[m] < n_active:
            return r
        _swap_to(r, start[m] + s, cells, node_loc)
        size[m] = s
        r += U(1)
    return r


@njit(cache=True, inline="always")
def _hide_options(j, n_primary, n_active, start, size, cells, node_item, node_loc, first, last,
                  pos):  # fmt: skip
    """Remove every active option of item ``j`` from the sets of its other items (no early
    stop: the item chosen at a level and the givens); returns the removals."""
    removed = 0
    base = start[j]
    for k in range(size[j]):
        y = cells[base + U(k)]
        lo = first[y]
        hi = last[y]
        _remove_nodes(lo, y, n_primary, n_active, start, size, cells, node_item, node_loc, pos,
                      False)  # fmt: skip
        _remove_nodes(y + U(1), hi, n_primary, n_active, start, size, cells, node_item,
                      node_loc, pos, False)  # fmt: skip
        removed += np.int64(hi - lo) - 1
    return removed


@njit(cache=True, nogil=True)
def commit_options(options, option_first, n_primary, n_items, start, size, cells, node_item,
                   node_option, node_loc, first, last, active, pos, state,
                   counters):  # fmt: skip
    """Put the given options into every solution first; False if two of them share an item.
    (A given is still in the sets of all its items, so taking it also removes it: taken
    options are gone from every set, as in the search.)"""
    used = np.zeros(n_items, np.bool_)
    for k in range(len(options)):
        p = option_first[options[k]]
        for q in range(first[p], last[p]):
            if used[node_item[q]]:
                return False
            used[node_item[q]] = True
    n_active = U(state[STATE_ACTIVE])
    np_ = U(n_primary)
    for k in range(len(options)):
        p = option_first[options[k]]
        for q in range(first[p], last[p]):
            if node_item[q] < np_:
                n_active = _deactivate(node_item[q], n_active, active, pos)
        for q in range(first[p], last[p]):
            counters[C_UPDATES] += _hide_options(
                node_item[q], np_, n_active, start, size, cells, node_item, node_loc, first,
                last, pos,
            )  # fmt: skip
    state[STATE_ACTIVE] = n_active
    return True


@njit(cache=True, nogil=True)
def search_cells(n_primary, start, size, cells, node_item, node_option, node_loc, first, last,
                 active, pos, order, best, saved_before, saved_after, saved_active,
                 choice, choice_k, choice_d, state, counters,
                 store, store_len, max_store, stop_after, node_budget, split_depth):  # fmt: skip
    """Algorithm X on sparse sets; the contract of `rompicapo.cover._kernel.search_xc()`.

    At level ``l`` the chosen item ``best[l]`` (the first primary item of ``active`` with the
    fewest options) becomes inactive and its options leave the other sets once (sizes saved
    before that in ``saved_before[l]``, after it in ``saved_after[l]``); then each of its options in
    turn is taken from that state, ``choice[l]`` being its position in the item's set, which
    stays still while the item is inactive. Undoing a step is copying saved sizes back.
    """
    np_ = U(n_primary)
    pc = state[STATE_PC]
    level = state[STATE_LEVEL]
    n_active = U(state[STATE_ACTIVE])
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
            if n_active == U(0) or level == split_depth:  # a solution (or a subproblem)
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
            # the active primary item with the fewest options, the first in ``order`` on ties
            # (Knuth's rule; ``active`` is shuffled by the swaps, and taking the first there
            # instead made 14x more nodes on a 16x16 Sudoku); one option is as few as a live
            # branch has, so the scan stops there
            i = U(0)
            least = U(0xFFFFFFFF)
            k = U(0)
            while least > U(1) and k < np_:
                j = order[k]
                if pos[j] < n_active and size[j] < least:
                    i = j
                    least = size[j]
                k += U(1)
            if least == U(0):
                pc = PC_BACKDOWN
                continue
            best[level] = i
            choice[level] = 0
            choice_k[level] = 0
            choice_d[level] = least
            saved_before[level, :] = size
            saved_active[level, 0] = n_active
            n_active = _deactivate(i, n_active, active, pos)
            updates += _hide_options(
                i, np_, n_active, start, size, cells, node_item, node_loc, first, last, pos
            )
            # every option of i starts from this same state: save it once (a single option
            # needs no copy: failed or done, the level goes back to saved_before at once)
            if least > U(1):
                saved_after[level, :] = size
                saved_active[level, 1] = n_active
        else:  # PC_BACKDOWN
            if level == 0:
                pc = PC_DONE
                break
            level -= 1
            choice[level] += U(1)
            choice_k[level] += 1
            if choice[level] < size[best[level]]:  # (a chosen item's set stays still)
                size[:] = saved_after[level]
                n_active = saved_active[level, 1]
        # try the options of best[level] from choice[level] on
        i = best[level]
        base = start[i]
        descended = False
        while choice[level] < size[i]:
            x = cells[base + choice[level]]
            # take x's option: its other primary items leave the active list, then the
            # options of each of its other items leave the other sets; written out here, not
            # called, because numba's inlined helper with an early return ran 45% slower
            # (langford-12-half 0.26 s against 0.18 s)
            lo = first[x]
            hi = last[x]
            r = lo
            while r < hi:
                j = node_item[r]
                if r != x and j < np_:
                    n_active = _deactivate(j, n_active, active, pos)
                r += U(1)
            alive = True
            r = lo
            while r < hi and alive:
                if r != x:
                    j = node_item[r]
                    base_j = start[j]
                    for k in range(size[j]):
                        y = cells[base_j + U(k)]
                        y_lo = first[y]
                        y_hi = last[y]
                        got = _remove_nodes(
                            y_lo, y, np_, n_active, start, size, cells, node_item, node_loc,
                            pos, True,
                        )  # fmt: skip
                        if got == y:
                            got = _remove_nodes(
                                y + U(1), y_hi, np_, n_active, start, size, cells, node_item,
                                node_loc, pos, True,
                            )  # fmt: skip
                        if got != y_hi:  # a primary item still to cover has no option left
                            alive = False
                            break
                        updates += np.int64(y_hi - y_lo) - 1
                r += U(1)
            if alive:
                descended = True
                break
            choice[level] += U(1)
            choice_k[level] += 1
            if choice[level] < size[i]:
                size[:] = saved_after[level]
                n_active = saved_active[level, 1]
        if descended:
            level += 1
            pc = PC_FORWARD
            continue
        # every option of i tried: i active again, with all its options
        size[:] = saved_before[level]
        n_active = saved_active[level, 0]
        pc = PC_BACKDOWN
    state[STATE_PC] = pc
    state[STATE_LEVEL] = level
    state[STATE_ACTIVE] = n_active
    counters[C_SOLUTIONS] += found
    counters[C_NODES] = nodes
    counters[C_UPDATES] = updates
    counters[C_MAX_LEVEL] = max_level
    return status, stored
