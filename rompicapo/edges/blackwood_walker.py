"""Blackwood's search, part 3: running a plan's kernels in this process.

Which kernel runs a plan (`kernel_of()`: the walking kernel, the general one for orders with
checked neighbours, the exact one for perfect boards, or the plan's compiled machine with the
adaptive filter, `Walker`, chosen by `prepare_machine()`), how each is called on a
`rompicapo.edges._kernel.new_state()` state, and how the placed entries become a board.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from rompicapo.common import jit_warmup
from rompicapo.edges import _kernel as K
from rompicapo.edges._walk_machine import compiled as machine_compiled
from rompicapo.edges._walk_machine import compiled_walker
from rompicapo.edges._walk_machine import walker as walk_machine
from rompicapo.edges.blackwood_plan import PORTFOLIO, Plan, Settings, make_plan
from rompicapo.edges.blackwood_tables import Tables, build_tables
from rompicapo.edges.puzzle import Board, Puzzle

__all__ = [
    "MACHINE_CELLS",
    "MACHINE_MIN_NODES",
    "MACHINE_MIN_SECONDS",
    "Walker",
    "board_of",
    "entries_of",
    "exact_state",
    "kernel_of",
    "plans_of",
    "prepare_machine",
    "reopen_complete",
    "run_exact",
    "run_kernel",
    "walk_state",
    "walker_for",
    "warm_plans",
]


def _warm(kind: str) -> None:
    """Compile (or load from numba's cache) one kernel of the search on a 3x3 puzzle: ``"walk"``
    (`K.walk()`, Blackwood's order and the row scan), ``"general"`` (`K.search()`, orders
    with checked neighbours), ``"exact"`` (`K.exact_search()`) or ``"filter"`` (the adaptive
    filter of the plans' machines, which are compiled per plan by `prepare_machine()`). A
    search compiles only the kernels its plans run (`kernel_of()`): each is 1-2 s of
    compilation on a cold cache."""
    from rompicapo.edges.generate import generate

    puzzle, _ = generate(3, 3, frame_colours=1, inner_colours=2, seed=0)
    settings = Settings(order="frame", value_order="table") if kind == "general" else None
    plan = make_plan(puzzle, settings=settings)
    tables = build_tables(plan, np.random.default_rng(0))
    if kind == "exact":
        run_exact(plan, tables, K.new_state(9, plan.copies), exact_state(tables, 9), 100)
    elif kind == "filter":
        walk = tables.walk
        fixed = np.zeros(len(plan.copies), dtype=np.uint8)
        out, to_out = np.zeros(2 * len(walk), dtype=np.int32), np.zeros(len(walk), dtype=np.int32)
        K.filter_walk_code(walk, 9, _lists_at(tables, 9), fixed, out, to_out, out.copy())
    else:
        run_kernel(plan, tables, K.new_state(9, plan.copies), 100, general=kind == "general")


def kernel_of(plan: Plan) -> str:
    """Which kernel runs ``plan``'s search (`_warm()`'s kinds)."""
    if plan.exact:
        return "exact"
    if plan.checked:
        return "general"
    return "filter" if plan.use_machine else "walk"


def plans_of(puzzle: Puzzle, clues: Board | None, settings: Settings | None) -> list[Plan]:
    """The plans a search runs: one, or the portfolio's orders in turn."""
    plan = make_plan(puzzle, clues, settings)
    plans = [plan]
    if plan.settings.order == "portfolio":
        plans += [make_plan(puzzle, clues, replace(plan.settings, order=o)) for o in PORTFOLIO[1:]]
    return plans


def warm_plans(plans: Sequence[Plan]) -> float:
    """Compile (or load) the kernels that ``plans`` run, each once per process: the seconds."""
    kinds = dict.fromkeys(kernel_of(p) for p in plans)
    return sum(jit_warmup(f"edges.search.{kind}", lambda k=kind: _warm(k)) for kind in kinds)


def _lists_at(tables: Tables, n: int) -> int:
    """Where the lists begin in the walking kernel's code: after the records and start words."""
    return n * K.P_STRIDE + (int(tables.pos_table.max()) + 1) * K.WALK_KEYS


class Walker:
    """The walking search on boards of ``MACHINE_CELLS`` cells or more: the plan's machine
    (`rompicapo.edges._walk_machine`: `K.walk()` specialised to the plan, one set of
    blocks per depth) with libblackwood's adaptive filter, made exact: while the search stays
    at depth ``floor`` or deeper, the pieces on positions ``0..floor-1`` cannot be free, so it
    walks a copy of the tables' code without their entries (same candidates, shorter scans:
    deep in Eternity II's tree, 60-80% of the scan steps met such pieces). ``floor`` is the
    shallowest position the search placed a piece on in its last stretch; a retreat below it
    ends the walk, drops the filter, and a short unfiltered stretch picks the next floor.
    ``placed`` and the best board keep indexes into the tables' own code between calls (they
    are moved into the copy and back around each walk), so the state is as without a filter.
    One per search state (its floor and copy follow that state).

    How deep the floor is matters: from one state deep in seed 8's tree (depth 234) the walker
    made 29 M placements per CPU second unfiltered, 30-33 M with the floor at 64, 32-35 M at
    128, 35-36 M at 160, 37 M at 192, 38-40 M at 210 (the floors this rule picks there are
    200-220). Tuned on 2026-12-02, none kept (old and new filter advanced in lockstep on the
    same tables, 3 tables x 600 M nodes unless said; two copies of the same filter agree
    within 2% per table, 1% in total; the filter itself measured x1.17 there): a shorter
    stretch (1 << 21: 0.99), ``RAISE`` 8 (1.00), both (1.00), ``RAISE`` 4 with a stretch of
    1 << 22 (0.98), a shorter or longer probe (1 << 19: 1.01; 1 << 23: 1.00), ``MIN_FLOOR`` 48
    (1.02, 300 M nodes); up to 3 nested copies, a drop going on on the copy under it for a
    probe's length before the floor may rise again (1.00-1.01, though the nodes walked
    unfiltered fell from 18-29% to 7-9%: after a drop the search mostly runs shallow, where a
    copy saves little); a copy 8, 16 or 32 positions under the floor made straight after a
    drop (1.01, 1.00, 1.02; 16 with 3 nested copies 0.99); 32 with ``MIN_FLOOR`` 48 and a
    probe of 1 << 19 over 5 tables x 1.2 G nodes (1.00). Making a copy takes 0.5 ms, 30-70
    copies per 600 M nodes: under 0.2% of the time, not worth making cheaper."""

    PROBE = 1 << 21  # nodes of an unfiltered stretch that picks the floor
    MIN_FLOOR = 64  # below this depth a copy saves too little to pay for itself
    RAISE = 16  # a floor this much deeper than the copy's is worth a new copy
    STRETCH = 1 << 23  # nodes of a filtered stretch, after which the floor may rise

    def __init__(self, plan: Plan, tables: Tables) -> None:
        self.tables = tables
        self.cells = plan.pos_cell
        self.copies = plan.copies
        self.n = len(plan.pos_cell)
        self.machine = walk_machine(tables.walk, self.n)
        self.lists_at = _lists_at(tables, self.n)
        size = len(tables.walk)
        self.shift = size - self.n * K.P_STRIDE  # from a start word to its filtered copy
        self.code = np.zeros(2 * size, dtype=np.int32)
        self.to_out = np.zeros(size, dtype=np.int32)
        self.to_code = np.zeros(2 * size, dtype=np.int32)
        self.floor = 0  # 0: no copy in use
        self.builds = 0  # copies made
        self.drops = 0  # walks ended by a retreat below the floor

    def build(self, floor: int, placed: np.ndarray) -> None:
        """A copy without the piece types whose every copy is on positions ``0..floor-1``."""
        types = self.tables.walk[placed[:floor]] & K.PIECE_MASK
        on = np.bincount(types, minlength=len(self.copies))[: len(self.copies)]
        fixed = (on >= self.copies).astype(np.uint8)
        code, to_out, to_code = self.code, self.to_out, self.to_code
        K.filter_walk_code(self.tables.walk, self.n, self.lists_at, fixed, code, to_out, to_code)
        self.floor = floor
        self.builds += 1

    def walk(self, state: tuple, slice_nodes: int) -> None:
        """``slice_nodes`` nodes of the search from ``state``, on the filtered copy when there
        is one: same nodes, placements, heat and boards as `K.walk()` on the tables' own
        code."""
        arrays = walk_state(state)
        _, placed, _, cum_breaks, cum_heur, heat, best, counters = arrays
        walk, code, n = self.machine, self.tables.walk, self.n
        left = slice_nodes
        while left > 0:
            nodes0, best0 = int(counters[K.C_NODES]), int(counters[K.C_BEST_SCORE])
            heat0 = heat[self.cells]
            floor = self.floor
            if floor:
                i = int(counters[K.C_DEPTH])
                # positions floor.. (and a piece left on i by a retreat) into the filtered lists
                top = i + 1 if placed[i] >= 0 else i
                placed[floor:top] = self.to_out[placed[floor:top]]
                walk(self.code, *arrays, min(left, self.STRETCH), floor, self.shift)
                i = int(counters[K.C_DEPTH])
                if counters[K.C_STATUS] == K.EXHAUSTED:
                    # retreated below the floor: the piece on floor - 1 comes next, unfiltered
                    counters[K.C_STATUS] = K.RUNNING
                    words = code[placed[:i]]
                    cum_breaks[i] = (words >> K.BREAK_SHIFT).sum()
                    cum_heur[i] = ((words >> K.HEUR_SHIFT) & 7).sum()
                    self.floor = 0
                    self.drops += 1
                top = i + 1 if i < n and placed[i] >= 0 else i
                if top > floor:
                    placed[floor:top] = self.to_code[placed[floor:top]]
                if int(counters[K.C_BEST_SCORE]) != best0:
                    # (to_code keeps the indexes into code's own words: those below the floor)
                    best[best >= 0] = self.to_code[best[best >= 0]]
            else:
                walk(code, *arrays, min(left, self.PROBE), 0, 0)
                i = int(counters[K.C_DEPTH])
            left -= int(counters[K.C_NODES]) - nodes0
            if int(counters[K.C_STATUS]) != K.RUNNING:
                return
            if floor and not self.floor:
                continue  # dropped at the floor: a short unfiltered stretch picks the next one
            # the shallowest position placed on in this stretch: the pieces below it stayed put
            moved = np.flatnonzero(heat[self.cells] != heat0)
            low = min(int(moved[0]) if len(moved) else i, i)
            if low >= self.MIN_FLOOR and low >= floor + self.RAISE:
                self.build(low, placed)


# From this many cells on, the walking search may run as the plan's machine (a compilation of
# 3 s at 64 cells, 13 s at 256, then cached); below it always as K.walk.
MACHINE_CELLS = 64
# Settings.kernel "auto" compiles a machine only for a search that may run this long (a time
# limit of at least this many seconds, or none) and this many nodes (a node limit this large,
# or none): the machine places x1.24 as fast, so a 13 s compilation pays for itself within a
# run of about 70 s, and every later run of the same plan shape loads it in half a second.
MACHINE_MIN_SECONDS = 60.0
MACHINE_MIN_NODES = 10**9


def _machine_plan(plan: Plan) -> bool:
    """Whether ``plan``'s search can run as a machine (walkable, ``MACHINE_CELLS`` or more)."""
    return not (plan.exact or plan.checked or len(plan.pos_cell) < MACHINE_CELLS)


def prepare_machine(plan: Plan, time_limit: float | None, node_limit: int | None) -> float:
    """Decide whether ``plan``'s search runs as its machine (``Settings.kernel``) and, if so,
    compile it or load it from the cache before the search's clock matters: the seconds it
    took (0.0 when no machine is used). The machine depends on the plan only (its records),
    not on the tables' random order."""
    kernel = plan.settings.kernel
    plan.use_machine = False
    if not _machine_plan(plan) or kernel == "plain":
        return 0.0
    t0 = time.perf_counter()
    tables = build_tables(plan, np.random.default_rng(0))
    n = len(plan.pos_cell)
    long_search = (time_limit is None or time_limit >= MACHINE_MIN_SECONDS) and (
        node_limit is None or node_limit >= MACHINE_MIN_NODES
    )
    if kernel == "auto" and not long_search and not machine_compiled(tables.walk, n):
        return 0.0
    with contextlib.suppress(OSError):  # no machine could be written: K.walk runs the search
        compiled_walker(tables.walk, n)
        plan.use_machine = True
    return time.perf_counter() - t0


def walker_for(plan: Plan, tables: Tables) -> Walker | None:
    """The `Walker` of a new search state when its plan runs as a machine
    (`prepare_machine()`), else None: `K.walk()` or the general kernel runs it
    (`run_kernel()`)."""
    if not plan.use_machine:
        return None
    try:
        return Walker(plan, tables)
    except OSError:
        return None  # no machine could be written (a full disk): K.walk, same search, slower


def walk_state(state: tuple) -> tuple:
    """The arrays of a `K.new_state()` state that `K.walk()` takes, in its order (its
    cells show top and right in one word, kept in the state's ``top``)."""
    avail, placed, shown, _, _, _, cum_breaks, cum_heur, heat, best, counters = state
    return avail, placed, shown, cum_breaks, cum_heur, heat, best, counters


def reopen_complete(plan: Plan, tables: Tables, state: tuple) -> bool:
    """After a kernel call that ended on a complete board (status SOLVED): False if the board
    is perfect; otherwise the state is set back as if the search had just retreated from the
    last position (its piece freed by the next call, which tries the entries after it), so the
    search goes on for complete boards with fewer breaks, and True."""
    _, placed, _, _, _, _, cum_breaks, cum_heur, _, _, counters = state
    n = len(plan.pos_cell)
    if plan.checked:  # the general kernel keeps the totals of every depth itself
        if cum_breaks[n] == 0:
            return False
    else:  # the walking kernel keeps them in registers: count them from the entries placed
        words = tables.walk[placed[:n]]
        if int((words >> K.BREAK_SHIFT).sum()) == 0:
            return False
        below = words[: n - 1]
        cum_breaks[n - 1] = (below >> K.BREAK_SHIFT).sum()
        cum_heur[n - 1] = ((below >> K.HEUR_SHIFT) & 7).sum()
    counters[K.C_DEPTH] = n - 1
    counters[K.C_STATUS] = K.RUNNING
    return True


def run_kernel(
    plan: Plan,
    tables: Tables,
    state: tuple,
    slice_nodes: int,
    *,
    general: bool = False,
    walker: Walker | None = None,
) -> None:
    """Blackwood's search on a `K.new_state()` state for ``slice_nodes`` more nodes: the
    walking kernel when no neighbour is checked (Blackwood's order, the row scan), the general
    one otherwise (same nodes and boards; on Eternity II the walker makes about 2.2x the
    placements per CPU second, measured side by side with benchmarks/edges_speed.py). Which one
    ran decides the entry array that ``placed`` indexes (`entries_of()`). ``general``
    forces the general kernel (the tests compare the two node for node). ``walker``: the
    walking search runs as this state's `Walker` (the plan's machine and the adaptive
    filter: the same search, faster on large boards)."""
    if not plan.checked and not general:
        if walker is not None:
            walker.walk(state, slice_nodes)
        else:
            K.walk(tables.walk, *walk_state(state), slice_nodes)
        return
    K.search(
        plan.pos_cell,
        plan.pos_left,
        plan.pos_below,
        tables.pos_table,
        plan.pos_above,
        plan.pos_right,
        plan.pos_quota,
        plan.pos_allow,
        plan.pos_joints,
        tables.n_colours**2,
        tables.n_colours,
        tables.tab_start,
        tables.ent,
        tables.ent2,
        plan.checked,
        *state,
        slice_nodes,
    )


def entries_of(plan: Plan, tables: Tables) -> np.ndarray:
    """The entry array the kernel of ``plan`` indexes ``placed`` with: the walking kernel's
    code (its lists hold the same words), or the plain lists of the general and exact kernels."""
    return tables.ent if (plan.exact or plan.checked) else tables.walk


def exact_state(tables: Tables, n_cells: int) -> tuple:
    """The exact kernel's own state beside `K.new_state()`'s: candidate lists per
    position, their lengths, the listed candidate on the board per position."""
    cand = np.zeros((n_cells, max(tables.width, 1)), dtype=np.int32)
    return cand, np.zeros(n_cells, dtype=np.int32), np.zeros(n_cells, dtype=np.int32)


def run_exact(plan: Plan, tables: Tables, state: tuple, extra: tuple, slice_nodes: int) -> None:
    """The exact kernel on a `K.new_state()` state and its `exact_state()`."""
    avail, placed, top, right, bottom, left, _, _, heat, best, counters = state
    K.exact_search(
        plan.pos_cell,
        plan.pos_left,
        plan.pos_below,
        tables.pos_table,
        plan.pos_above,
        plan.pos_right,
        plan.pos_joints,
        tables.n_colours**2,
        tables.n_colours,
        tables.tab_start,
        tables.ent,
        tables.ent2,
        plan.checked,
        avail,
        placed,
        top,
        right,
        bottom,
        left,
        heat,
        best,
        counters,
        *extra,
        slice_nodes,
    )


def board_of(plan: Plan, tables: Tables, placed: np.ndarray) -> Board:
    """The board of the placed entries: each type's copies handed out in piece order (clue
    cells get their own clue piece), each turned so it shows the entry's edges."""
    puzzle = plan.puzzle
    ent = entries_of(plan, tables)
    board = Board.empty(puzzle.rows, puzzle.cols)
    pools: dict[int, list[int]] = {}
    for k in range(puzzle.n_pieces):
        pools.setdefault(int(plan.piece_type[k]), []).append(k)
    for r, c, k, rot in plan.clues.placements():
        if placed[np.nonzero(plan.pos_cell == r * puzzle.cols + c)[0][0]] >= 0:
            board.piece[r, c], board.rotation[r, c] = k, rot
            pools[int(plan.piece_type[k])].remove(k)
    for i, j in enumerate(placed.tolist()):
        cell = int(plan.pos_cell[i])
        if j < 0 or board.piece.flat[cell] >= 0:
            continue
        e = int(ent[j])
        k = pools[e & K.PIECE_MASK].pop(0)
        board.piece.flat[cell] = k
        board.rotation.flat[cell] = (((e >> K.ROT_SHIFT) & 3) - int(plan.type_turn[k])) % 4
    return board
