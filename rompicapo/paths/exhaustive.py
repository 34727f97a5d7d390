"""One call of the exhaustive search kernel (`rompicapo.paths._count_kernel`), and the
checks of a board and a start before any is made.

Every count, search and enumeration of `rompicapo.paths.count` goes through
`kernel_run()`: it lays out the kernel's arrays from a prefix of a path (or resumes from a
saved state) and hands back a `KernelRun`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from rompicapo.common import InputError, check_memory, jit_warmup, seed_u64
from rompicapo.paths import _count_kernel as K
from rompicapo.paths.moves import MoveSet, parse_moves
from rompicapo.paths.symmetry import Cell

__all__ = [
    "MAX_SEARCH_CELLS",
    "NO_LIMIT",
    "KernelRun",
    "check_board",
    "check_count_ends",
    "check_start",
    "kernel_run",
    "kernel_seed",
    "result_fields",
    "warm_up",
]

NO_LIMIT = 2**62

# An exhaustive search holds the path and a move mask per cell (two int64 arrays) and, for the
# count from every start, a list of start classes: beyond this many cells no exhaustive search
# could finish anyway (7x7 from every start is already 10^11 nodes), so the board is refused
# before anything is allocated instead of growing memory with no output.
MAX_SEARCH_CELLS = 1 << 20


def check_board(rows: int, cols: int, moves: str | MoveSet, out_paths: int = 1) -> MoveSet:
    """The move set of a valid board for exhaustive search, or InputError before allocating:
    sizes are compared as Python ints (no overflow), the board must be small enough for an
    exhaustive search to be held, and its arrays must fit in memory."""
    for name, v in (("rows", rows), ("cols", cols)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise InputError(f"{name} must be an integer, got {v!r}")
        if v < 1:
            raise InputError(f"the board needs at least one row and one column, got {rows}x{cols}")
    cells = int(rows) * int(cols)
    if cells > MAX_SEARCH_CELLS:
        raise InputError(
            f"a {rows}x{cols} board has {cells:,} cells: exhaustive search takes at most "
            f"{MAX_SEARCH_CELLS:,} cells (7x7 from every start is already 10^11 nodes)"
        )
    ms = parse_moves(moves)
    if len(ms) > K.MAX_MOVES:
        raise InputError(f"at most {K.MAX_MOVES} moves are supported, got {len(ms)}")
    # path and move masks (int64 per cell), the output buffer of paths, and the padded board
    check_memory(8 * cells * (3 + out_paths), f"exhaustive search of a {rows}x{cols} board")
    return ms


# The nodes of an exhaustive count from every start grow by about this factor per cell, with
# the caselle moves: 57,319 nodes on 5x5, 48,964,348 on 6x6 (measured), 10^11 on 7x7. Other move
# sets are reckoned with a lower factor (an estimate from below: a refusal is then certain).
CASELLE_GROWTH, CASELLE_6X6_NODES = 1.85, 48_964_348
LEAST_GROWTH = 1.3
# A count estimated at more nodes than this is refused at once: at a billion nodes a second
# (a cluster; one core does about 5 million) it would take over 3,000 years.
MAX_COUNT_NODES_LOG10 = 20.0


def count_nodes_log10(rows: int, cols: int, ms: MoveSet) -> tuple[float, bool]:
    """``(log10 of the nodes, estimated from below?)`` of an exhaustive count of a board."""
    cells = int(rows) * int(cols)
    if ms.spec == "caselle":
        return math.log10(CASELLE_6X6_NODES) + (cells - 36) * math.log10(CASELLE_GROWTH), False
    return cells * math.log10(LEAST_GROWTH), True


def check_count_ends(rows: int, cols: int, ms: MoveSet) -> None:
    """Refuse, at once and with the estimate, a count that could not end (``count 1000x1000``
    searched for 25 s before anything was said)."""
    log10, from_below = count_nodes_log10(rows, cols, ms)
    if log10 <= MAX_COUNT_NODES_LOG10:
        return
    years = log10 - 9 - math.log10(3600 * 24 * 365.25)
    about = "at least" if from_below else "about"
    raise InputError(
        f"an exhaustive count of the {rows}x{cols} board would visit {about} 10^{log10:,.0f} "
        f"nodes, {about} 10^{years:,.0f} years at a billion nodes a second: it cannot end; "
        "count a smaller board (7x7 from every start is 10^11 nodes)"
    )


def check_start(start: Any, rows: int, cols: int) -> Cell:
    try:
        r, c = (int(x) for x in start)
    except (TypeError, ValueError):
        raise InputError(f"a start is a cell (row, col), got {start!r}") from None
    if not (0 <= r < rows and 0 <= c < cols):
        raise InputError(
            f"start ({r}, {c}) is outside the {rows}x{cols} board "
            f"(rows 0..{rows - 1}, columns 0..{cols - 1})"
        )
    return r, c


@dataclass
class KernelRun:
    """What one kernel call left: its status (``_count_kernel.DONE``, ``LIMIT``...), the whole
    paths counted (``leaves``), the nodes, the paths kept (``out``), and the state to resume
    from (``path``, ``masks``, ``depth``)."""

    status: int
    leaves: int
    nodes: int
    out: np.ndarray
    path: np.ndarray
    masks: np.ndarray
    depth: int


def kernel_run(
    rows: int,
    cols: int,
    moves: MoveSet,
    closed: bool,
    prefix: list[int] | np.ndarray,
    *,
    stop_depth: int | None = None,
    out_cap: int = 1,
    stop_when_full: bool = False,
    node_limit: int | None = None,
    seed: int | None = None,
    state: tuple[np.ndarray, np.ndarray, int] | None = None,
    rules: int = K.DEFAULT_RULES,
    ends: np.ndarray | None = None,
) -> KernelRun:
    """One call of the search kernel from ``prefix`` (or from a saved ``state``); ``ends``
    (int64, one per cell) counts the whole paths by their last cell."""
    n = rows * cols
    dr, dc = moves.arrays()
    if state is None:
        path = np.zeros(n, dtype=np.int64)
        path[: len(prefix)] = prefix
        masks = np.full(n, K.UNEXPANDED, dtype=np.int64)
        depth = len(prefix)
    else:
        path, masks, depth = state
    out = np.empty((out_cap, n), dtype=np.int64)
    status, leaves, nodes, n_out, depth = K.search(
        np.int64(rows),
        np.int64(cols),
        dr,
        dc,
        bool(closed),
        np.int64(rules),
        path,
        masks,
        np.int64(depth),
        np.int64(len(prefix)),
        np.int64(n + 1 if stop_depth is None else stop_depth),
        out,
        bool(stop_when_full),
        np.int64(NO_LIMIT if node_limit is None else node_limit),
        np.int64(-1 if seed is None else seed),
        np.empty(0, np.int64) if ends is None else ends,
    )
    return KernelRun(int(status), int(leaves), int(nodes), out[:n_out], path, masks, int(depth))


def warm_up() -> float:
    """Compile (or load from numba's cache) the search kernel on a 1x2 board."""
    return jit_warmup(
        "paths.count.search", lambda: kernel_run(1, 2, parse_moves("0,1"), False, [0])
    )


def kernel_seed(seed: int | None) -> int | None:
    """The kernel's non-negative int64 seed: small seeds as they are (the paths they gave
    before stay the same), any other integer folded into [0, 2^63)."""
    if seed is None or 0 <= seed < 2**63:
        return seed
    return seed_u64(seed) % 2**63


def result_fields(
    solve_seconds: float,
    compile_seconds: float,
    nodes: int,
    rows: int,
    cols: int,
    ms: MoveSet,
    closed: bool,
) -> dict[str, Any]:
    """The fields every exhaustive search's result has: times, nodes, the board."""
    return {
        "solve_seconds": solve_seconds,
        "compile_seconds": compile_seconds,
        "counts": {"nodes": nodes},
        "nodes": nodes,
        "rows": rows,
        "cols": cols,
        "moves": ms.spec,
        "closed": bool(closed),
    }
