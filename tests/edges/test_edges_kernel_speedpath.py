"""The walking kernel (``_kernel.walk``, Blackwood's search for orders without checked
neighbours) against two references: the general kernel (``_kernel.search``), which must see the
very same search node for node, and a brute-force count of the partial boards of tiny puzzles,
written here from the rules alone (no solver code), which an exhausted search must equal.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from rompicapo.edges import _kernel as K
from rompicapo.edges.blackwood import (
    Settings,
    Walker,
    build_tables,
    fill_order,
    make_plan,
    search,
)
from rompicapo.edges.blackwood_walker import entries_of, run_kernel
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import Puzzle, eternity2, eternity2_clues
from rompicapo.edges.verify import board_problems, count_matched_joints

# --------------------------------------------------------------------------------------------
# Node for node against the general kernel
# --------------------------------------------------------------------------------------------


# the general kernel on the same tables (it accepts unchecked orders too)
_general = functools.partial(run_kernel, general=True)


class _Machine:
    """A step that walks each state with its own :class:`Walker` (the plan's machine and the
    filter), made on the state's first step with the given class attributes (to force many
    copies and drops, or none)."""

    def __init__(self, **attributes: int) -> None:
        self.attributes = attributes
        self.walkers: dict[int, Walker] = {}

    def __call__(self, plan, tables, state, budget) -> None:
        walker = self.walkers.get(id(state[0]))
        if walker is None:
            walker = Walker(plan, tables)
            for name, value in self.attributes.items():
                setattr(walker, name, value)
            self.walkers[id(state[0])] = walker
        run_kernel(plan, tables, state, budget, walker=walker)


NO_FILTER = {"MIN_FLOOR": 1 << 20}  # the machine alone: no copy is ever made


def _run(step, plan, tables, nodes: int, chunk: int):
    """Run ``nodes`` nodes in calls of ``chunk`` (the state must carry across calls); the
    final counters, heat, status history and the best board's entry words."""
    n = len(plan.pos_cell)
    state = K.new_state(n, plan.copies)
    counters = state[-1]
    statuses = []
    done = 0
    while done < nodes:
        budget = min(chunk, nodes - done)
        step(plan, tables, state, budget)
        statuses.append(int(counters[K.C_STATUS]))
        if counters[K.C_STATUS] != K.RUNNING:
            break
        done += budget
    return counters.copy(), state[K.S_HEAT].copy(), statuses, state[K.S_BEST].copy()


def _words(ent: np.ndarray, placed: np.ndarray) -> list[int]:
    return [int(ent[j]) if j >= 0 else -1 for j in placed.tolist()]


def _cases():
    e2 = ("eternity2", eternity2(), eternity2_clues("centre"), Settings())
    out = [e2]
    # Blackwood's order with his quota and breaks scaled to the size: the loose quota lets
    # the search reach the breaks (10x10 fills the board with some, 12x12 keeps searching),
    # the full one stops it at the quota again and again
    for rows, cols, f, i, seed, scale in ((10, 10, 3, 6, 5, 0.5), (12, 12, 4, 8, 1, 0.5),
                                          (12, 12, 4, 8, 2, 1.0)):  # fmt: skip
        puzzle, _ = generate(rows, cols, frame_colours=f, inner_colours=i, seed=seed)
        settings = Settings(order="blackwood", quota="scaled", breaks="scaled", quota_scale=scale)
        out.append((f"{rows}x{cols}-quota{scale}", puzzle, None, settings))
    # repeated pieces (types with several copies), table order of a perfect-board search
    # (8x8 seed 1: 13 types with copies, a perfect board after 377,194 nodes)
    puzzle, _ = generate(8, 8, frame_colours=1, inner_colours=3, seed=1)
    out.append(("8x8-repeated-pieces", puzzle, None, Settings(order="rows", value_order="table")))
    return out


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
@pytest.mark.parametrize("chunk", [997, 1 << 30])
@pytest.mark.parametrize("walker", ["kernel", "machine"])
def test_walk_sees_the_same_search_as_the_general_kernel(case, chunk, walker) -> None:
    _, puzzle, clues, settings = case
    plan = make_plan(puzzle, clues, settings)
    assert not plan.checked and not plan.exact  # the walking kernel runs this plan
    tables = build_tables(plan, np.random.default_rng(7))
    nodes = 400_000
    step = run_kernel if walker == "kernel" else _Machine(**NO_FILTER)
    c_walk, h_walk, s_walk, b_walk = _run(step, plan, tables, nodes, chunk)
    c_ref, h_ref, s_ref, b_ref = _run(_general, plan, tables, nodes, chunk)
    assert c_walk.tolist() == c_ref.tolist()  # nodes, placements, depth, best depth and score
    assert (h_walk == h_ref).all()  # placements per cell
    assert s_walk == s_ref
    # the best boards hold the same entries (each kernel indexes its own entry array)
    assert _words(entries_of(plan, tables), b_walk) == _words(tables.ent, b_ref)
    assert c_walk[K.C_PLACEMENTS] > 1000  # a real search, not a stop at once


# --------------------------------------------------------------------------------------------
# An exhausted search against a brute-force count of partial boards
# --------------------------------------------------------------------------------------------


def _rotated(piece: list[int], r: int) -> tuple[int, int, int, int]:
    """(top, right, bottom, left) of ``piece`` (same order) turned ``r`` times clockwise."""
    return tuple(piece[(s - r) % 4] for s in range(4))  # type: ignore[return-value]


def _brute_force(puzzle: Puzzle, order: list[int]) -> tuple[int, int]:
    """(partial boards, perfect boards) filling ``order`` cell by cell: every prefix of the
    order that can be filled with distinct pieces so that grey is exactly on the rim and every
    joint between filled cells matches. Boards that differ only by swapping identical pieces
    or turning a symmetric piece count once (they show the same edges everywhere)."""
    rows, cols = puzzle.rows, puzzle.cols
    pieces = puzzle.pieces.tolist()
    shown: dict[int, tuple[int, int, int, int]] = {}
    free = list(range(len(pieces)))
    partial = perfect = 0

    def fits(cell: int, e: tuple[int, int, int, int]) -> bool:
        r, c = divmod(cell, cols)
        rim = (r == 0, c == cols - 1, r == rows - 1, c == 0)
        if any((e[s] == 0) != rim[s] for s in range(4)):
            return False
        for s, (dr, dc) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
            other = (r + dr) * cols + (c + dc)
            if not rim[s] and other in shown and shown[other][(s + 2) % 4] != e[s]:
                return False
        return True

    def fill(depth: int) -> None:
        nonlocal partial, perfect
        if depth == len(order):
            perfect += 1
            return
        cell = order[depth]
        seen = set()
        for k in list(free):
            for r in range(4):
                e = _rotated(pieces[k], r)
                if e in seen or not fits(cell, e):
                    continue
                seen.add(e)
                partial += 1
                free.remove(k)
                shown[cell] = e
                fill(depth + 1)
                del shown[cell]
                free.append(k)

    fill(0)
    return partial, perfect


def _damaged(rows: int, cols: int, seed: int) -> Puzzle:
    """A generated puzzle with one inner side of one piece recoloured: usually no perfect
    board is left (the brute force says)."""
    puzzle, solution = generate(rows, cols, frame_colours=1, inner_colours=3, seed=seed)
    pieces = puzzle.pieces.copy()
    rng = np.random.default_rng(seed)
    k = int(solution.piece[rows // 2, cols // 2])
    side = int(np.nonzero(pieces[k])[0][rng.integers(np.count_nonzero(pieces[k]))])
    pieces[k, side] = 2 + (int(pieces[k, side]) - 1) % 3  # another inner colour
    return Puzzle(rows, cols, pieces, "damaged")


@pytest.mark.parametrize(
    ("rows", "cols", "seed"), [(3, 3, 0), (3, 4, 1), (4, 3, 2), (4, 4, 3), (4, 5, 4)]
)
def test_exhausted_walk_counts_every_partial_board(rows, cols, seed) -> None:
    puzzle = _damaged(rows, cols, seed)
    settings = Settings(order="rows", quota="none", breaks="none", value_order="table")
    plan = make_plan(puzzle, settings=settings)
    assert not plan.checked and not plan.exact
    result = search(puzzle, settings=settings, time_limit=None, node_limit=10**8, seed=seed)
    partial, perfect = _brute_force(puzzle, fill_order(rows, cols, "rows").tolist())
    if perfect:
        assert result.solved
    else:
        assert result.exhausted and not result.solved
        # every partial board is one forward placement of the whole tree
        assert result.counts["placements"] == partial
        assert result.counts["nodes"] == 2 * partial + 1  # each placed once, retreated once
    assert result.verify()
    placements = result.board.placements()
    assert board_problems(rows, cols, puzzle.pieces, placements) == []
    assert count_matched_joints(rows, cols, puzzle.pieces, placements) == result.score


def test_the_damage_leaves_some_puzzles_without_a_perfect_board() -> None:
    # the exhausted branch above must be exercised, not only the solved one
    order = fill_order(3, 3, "rows").tolist()
    assert _brute_force(_damaged(3, 3, 0), order)[1] == 0


# --------------------------------------------------------------------------------------------
# The adaptive filter: the same search on shorter lists
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
def test_walk_filter_sees_the_same_search(case) -> None:
    _, puzzle, clues, settings = case
    plan = make_plan(puzzle, clues, settings)
    tables = build_tables(plan, np.random.default_rng(7))
    # small stretches and floors, so that copies are made, raised and dropped many times
    filtered = _Machine(PROBE=613, STRETCH=2_311, MIN_FLOOR=3, RAISE=2)
    nodes = 400_000
    c_f, h_f, s_f, b_f = _run(filtered, plan, tables, nodes, 997)
    c_ref, h_ref, s_ref, b_ref = _run(run_kernel, plan, tables, nodes, 997)
    assert c_f.tolist() == c_ref.tolist()
    assert (h_f == h_ref).all()
    assert s_f == s_ref
    ent = entries_of(plan, tables)
    assert _words(ent, b_f) == _words(ent, b_ref)
    (walker,) = filtered.walkers.values()
    assert walker.builds > 10 and walker.drops > 5  # the filter was really in use


@pytest.mark.parametrize(("rows", "cols", "seed"), [(3, 3, 0), (3, 4, 1), (4, 4, 3), (4, 5, 4)])
def test_exhausted_machine_counts_every_partial_board(rows, cols, seed) -> None:
    # the machine (and the filter, forced on tiny boards) to the end of the tree, against the
    # brute force: every partial board once, with a retreat past every floor on the way
    puzzle = _damaged(rows, cols, seed)
    settings = Settings(order="rows", quota="none", breaks="none", value_order="table")
    plan = make_plan(puzzle, settings=settings)
    tables = build_tables(plan, np.random.default_rng(seed))
    step = _Machine(PROBE=3, STRETCH=5, MIN_FLOOR=1, RAISE=1)
    counters, heat, statuses, _ = _run(step, plan, tables, 10**8, 1009)
    partial, perfect = _brute_force(puzzle, fill_order(rows, cols, "rows").tolist())
    if perfect:
        assert statuses[-1] == K.SOLVED
    else:
        assert statuses[-1] == K.EXHAUSTED
        assert counters[K.C_PLACEMENTS] == partial
        assert counters[K.C_NODES] == 2 * partial + 1
    assert heat.sum() == counters[K.C_PLACEMENTS]  # every placement counted on its cell
    (walker,) = step.walkers.values()
    assert walker.builds > 0 and walker.drops > 0
