"""Blackwood's search for edge-matching puzzles: fill orders, schedules, tables, restarts.

The algorithm is Joshua Blackwood's (the 470 board), reimplemented from the description in the
shared references (``blackwood-algorithm.md``); no code of his or of any GPL repository is used.
In short: fill the cells in a fixed order in which every cell's left and lower neighbours come
earlier, so a cell's candidates are the pre-rotated pieces listed under the key (colour on the
left, colour below); try them in a fixed order that puts pieces with three *heuristic colours*
first (random among equals); require, for the first ~60 % of the order, a growing *quota* of
heuristic sides on the board; from position 201 on allow a slowly growing number of *breaks*
(one mismatched joint per piece, never on the frame); restart from scratch with new random
tie-breaks after a node cap. The deepest and best boards are kept.

Beyond Blackwood: any fill order works (a neighbour filled earlier above or to the right is
checked by the kernel; the frame-first and diagonal orders use it); pinned clues filter the
candidates of the neighbours filled before them (his centre-clue trick, for any clue); identical
pieces are one type with a count; off Eternity II the default searches for perfect boards with a
portfolio of orders and growing node caps. A perfect-board search (no quota, no breaks) runs the
exact kernel (``_kernel.exact_search``): forward checking on the next cell and a fail-first
candidate order (the candidates leaving the next cell fewest options first), ~3x fewer nodes
to the first perfect board than the tables' order on Brendan's sets.

Layers: :func:`fill_order`, :func:`quota_schedule`, :func:`break_schedule` and
:func:`heuristic_colours` make a :class:`Plan` (everything fixed for a puzzle and its clues);
:func:`build_tables` draws one set of randomly tie-broken candidate tables; :func:`search` runs
restarts in this process for a time; :func:`solve` runs searches on all cores (or a Dask
cluster) and keeps the best board.

All positions and rows here are in the data files' convention (row 0 = top) except inside the
fill-order builders, which think as Blackwood does, from the bottom row up.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    InternalError,
    NotVerifiable,
    Progress,
    ProgressCallback,
    SearchResult,
    Stopwatch,
    check_int,
    check_node_limit,
    check_seed,
    check_time_limit,
    connect_scheduler,
    jit_warmup,
    renamed_keywords,
    resolve_jobs,
    run_jobs,
    seed_sequence,
)
from rompicapo.edges import _kernel as K
from rompicapo.edges._walk_machine import compiled as machine_compiled
from rompicapo.edges._walk_machine import compiled_walker
from rompicapo.edges._walk_machine import walker as walk_machine
from rompicapo.edges.puzzle import Board, Puzzle, rule_problems
from rompicapo.edges.puzzle import score as model_score

__all__ = [
    "BLACKWOOD_BREAK_INDEXES",
    "BLACKWOOD_HEURISTIC_COLOURS",
    "BLACKWOOD_NODE_CAP",
    "EdgeSearchResult",
    "Plan",
    "Settings",
    "Tables",
    "blackwood_quota",
    "break_schedule",
    "build_tables",
    "fill_order",
    "heuristic_colours",
    "make_plan",
    "quota_schedule",
    "search",
    "solve",
]

# Blackwood's final constants (reference §4-§6).
BLACKWOOD_HEURISTIC_COLOURS = (13, 16, 10)
BLACKWOOD_BREAK_INDEXES = (201, 206, 211, 216, 221, 225, 229, 233, 237, 239)
BLACKWOOD_MAX_QUOTA_INDEX = 160
# Bucas's JB470 scenario (reference §9): the same quota and colours, breaks a little earlier.
BUCAS_BREAK_INDEXES = (197, 203, 210, 216, 221, 225, 229, 233, 236, 238)
# Clue-aware settings for Eternity II with all five clues. Blackwood's quota, tuned for a board
# without hints, cannot be met next to the hint pieces (the search stuck at 62 pieces here);
# 0.9 of it can. Six more breaks, from position 150 on, give the slack the hints take away.
# Measured here, 60 s, seed 0: no quota with Blackwood's breaks 384; no quota with these 437;
# quota x 0.6 / 0.8 / 0.9 with these 437 / 439 / 441.
CLUE_BREAK_INDEXES = (150, 160, 170, 180, 190, 200, 206, 211, 216, 221, 225, 229, 233, 237, 239)
CLUE_QUOTA_SCALE = 0.9
# Nodes per run before a restart with new tie-breaks (his constant; ~1 h per run at his speed).
BLACKWOOD_NODE_CAP = 5 * 10**10
# Sort score weights: U < 100 only shuffles entries with equal heuristic count, and any break
# entry (-100000) sorts after every exact one.
HEUR_WEIGHT = 100
BREAK_WEIGHT = 100_000
TIE_BREAK_RANGE = 99
# A kernel call runs this long before Python looks at the clock, prints the live line and
# lets Ctrl-C in: short enough to feel live, long enough that the calls cost nothing.
CHUNK_SECONDS = 0.5
# solve(): starting a worker process (Python, numpy, numba, the cached kernels) takes 1-2 s on
# an idle machine and measured 5-13 s here with the load at 7 on 2 cores. Below this time
# limit the search runs in this process (already started, kernels loaded) with a note.
PARALLEL_MIN_SECONDS = 5.0
# Seconds past the time limit after which workers that have not answered are terminated and
# the best board they reported is kept: the limit holds even when start-up ate it all.
OVERRUN_GRACE = 1.0


# --------------------------------------------------------------------------------------------
# Fill orders
# --------------------------------------------------------------------------------------------


def _to_cells(rows: int, cols: int, bottom_up: Sequence[tuple[int, int]]) -> np.ndarray:
    return np.array([(rows - 1 - b) * cols + c for b, c in bottom_up], dtype=np.int32)


def _rows_order(rows: int, cols: int) -> list[tuple[int, int]]:
    return [(b, c) for b in range(rows) for c in range(cols)]


def _blackwood_order(
    rows: int, cols: int, top_rows: int, left_cols: int, right_cols: int
) -> list[tuple[int, int]]:
    """Blackwood's order (reference §3) for any size: rows from the bottom up to the last
    ``top_rows`` rows; then the left ``left_cols`` of those rows row by row; the middle column by
    column, each bottom to top; the right ``right_cols`` peeled as a staircase (bottom row of
    what is left, then its left column while more than two columns are left)."""
    first_top = rows - top_rows
    seq = [(b, c) for b in range(first_top) for c in range(cols)]
    seq += [(b, c) for b in range(first_top, rows) for c in range(left_cols)]
    seq += [(b, c) for c in range(left_cols, cols - right_cols) for b in range(first_top, rows)]
    b0, c0 = first_top, cols - right_cols
    while b0 < rows:
        seq += [(b0, c) for c in range(c0, cols)]
        b0 += 1
        if cols - c0 > 2 and b0 < rows:
            seq += [(b, c0) for b in range(b0, rows)]
            c0 += 1
    return seq


def _frame_order(rows: int, cols: int) -> list[tuple[int, int]]:
    """The frame first (bottom row, right column upwards, left column upwards, top row), then
    the inside row by row from the bottom: the frame's joints only use the few frame colours,
    and the inside then meets fixed colours on all four sides."""
    seq = [(0, c) for c in range(cols)]
    seq += [(b, cols - 1) for b in range(1, rows - 1)]
    seq += [(b, 0) for b in range(1, rows)]
    seq += [(rows - 1, c) for c in range(1, cols)]
    seq += [(b, c) for b in range(1, rows - 1) for c in range(1, cols - 1)]
    return seq


def _diagonal_order(rows: int, cols: int) -> list[tuple[int, int]]:
    """Anti-diagonals from the bottom-left corner (b + c = 0, 1, ...), each from the bottom."""
    return sorted(((b, c) for b in range(rows) for c in range(cols)), key=lambda x: (sum(x), x[0]))


ORDERS = ("blackwood", "rows", "frame", "diagonal", "portfolio")
VALUE_ORDERS = ("fail-first", "table")
KERNELS = ("auto", "machine", "plain")
QUOTAS = ("auto", "blackwood", "scaled", "none")
BREAKS = ("auto", "blackwood", "bucas", "clues", "scaled", "none")
MAX_CELLS = 32 * 32
# "portfolio": restarts cycle through these orders with node caps doubling every cycle. The
# time to a perfect board depends on the order by factors of 10 to 1000, differently for each
# puzzle (measured here, median nodes over 5 seeds: Brendan 6x6 rows 0.55 M, frame 4.1 M;
# clue puzzle 4 rows > 1000 M, frame 0.036 M), so trying each with growing caps costs at most
# about 2 x 4 times the best order's nodes and avoids the worst ones' tails.
PORTFOLIO = ("rows", "frame", "diagonal", "blackwood")
PORTFOLIO_FIRST_CAP = 1 << 20


def fill_order(rows: int, cols: int, kind: str = "blackwood") -> np.ndarray:
    """Cells (``row*cols + col``, row 0 = top) in the order the search fills them.

    ``"blackwood"``: Blackwood's order, exact on 16x16 (top five rows split 5 | 7 | 4 columns)
    and scaled in proportion on other sizes (a plain row scan below 6x6); ``"rows"``: a row scan
    from the bottom row up; in both every cell's left and lower neighbours come earlier.
    ``"frame"``: the frame first, then the inside (cells meet placed neighbours above or on the
    right too, which the kernel then checks).
    """
    if kind == "frame":
        seq = _frame_order(rows, cols)
    elif kind == "diagonal":
        seq = _diagonal_order(rows, cols)
    elif kind == "rows" or rows < 6 or cols < 6:
        seq = _rows_order(rows, cols)
    elif kind == "blackwood":
        seq = _blackwood_order(
            rows, cols, round(rows * 5 / 16), round(cols * 5 / 16), round(cols * 4 / 16)
        )
    else:
        raise InputError(f"fill order must be one of {', '.join(ORDERS)}, got {kind!r}")
    return _to_cells(rows, cols, seq)


# --------------------------------------------------------------------------------------------
# Schedules
# --------------------------------------------------------------------------------------------


def blackwood_quota(i: int) -> int:
    """Blackwood's heuristic-side quota at position ``i`` of 256 (reference §4)."""
    if i <= 16:
        return 0
    if i <= 26:
        return int((i - 16) * 2.8)
    if i <= 56:
        return int((i - 26) * 1.43333 + 28)
    if i <= 76:
        return int((i - 56) * 0.9 + 71)
    if i <= 102:
        return int((i - 76) * 0.6538 + 89)
    if i <= BLACKWOOD_MAX_QUOTA_INDEX:
        return int((i - 102) / 4.4615 + 106)
    return 0


# Heuristic sides on the Eternity II set for Blackwood's three colours (reference §2, measured).
BLACKWOOD_HEURISTIC_SIDES = 122


def quota_schedule(n_cells: int, kind: str | Sequence[int], heuristic_sides: int) -> np.ndarray:
    """Quota per position: ``"blackwood"`` (his curve, 256 cells), ``"scaled"`` (his curve
    stretched to ``n_cells`` positions and scaled to the ``heuristic_sides`` available),
    ``"none"``, or a curve: ``n_cells`` integers, the heuristic sides required once each
    position is filled (what a parameter study varies)."""
    if not isinstance(kind, str):
        curve = [int(q) for q in kind]
        if len(curve) != n_cells:
            raise InputError(f"a quota curve needs {n_cells} values, got {len(curve)}")
        if any(q < 0 or q > 4 * n_cells for q in curve):
            raise InputError(f"quota curve values must be in 0..{4 * n_cells}")
        return np.array(curve, dtype=np.int32)
    if kind == "none":
        return np.zeros(n_cells, dtype=np.int32)
    if kind == "blackwood":
        if n_cells != 256:
            raise InputError("Blackwood's quota is for 256 cells; use 'scaled' for other sizes")
        return np.array([blackwood_quota(i) for i in range(256)], dtype=np.int32)
    if kind == "scaled":
        ratio = heuristic_sides / BLACKWOOD_HEURISTIC_SIDES
        return np.array(
            [int(blackwood_quota(round(i * 256 / n_cells)) * ratio) for i in range(n_cells)],
            dtype=np.int32,
        )
    raise InputError(f"quota must be 'blackwood', 'scaled' or 'none', got {kind!r}")


def break_schedule(n_cells: int, kind: str | Sequence[int]) -> np.ndarray:
    """Total breaks allowed once position ``i`` is filled: the number of break indexes ``<= i``.

    ``"blackwood"``: his ten indexes 201..239 (256 cells); ``"bucas"``: Bucas's JB470 ten,
    197..238; ``"clues"``: fifteen from 150 on
    (256 cells, for Eternity II with all five clues); ``"scaled"``: Blackwood's at the same
    fractions of ``n_cells``; ``"none"``: no breaks (perfect boards only); or a list of indexes.
    """
    if isinstance(kind, str):
        if kind == "none":
            idx: Sequence[int] = ()
        elif kind == "blackwood":
            if n_cells != 256:
                raise InputError("Blackwood's breaks are for 256 cells; use 'scaled'")
            idx = BLACKWOOD_BREAK_INDEXES
        elif kind == "bucas":
            if n_cells != 256:
                raise InputError("Bucas's breaks are for 256 cells; use 'scaled'")
            idx = BUCAS_BREAK_INDEXES
        elif kind == "clues":
            if n_cells != 256:
                raise InputError("the clue-aware breaks are for 256 cells; use 'scaled'")
            idx = CLUE_BREAK_INDEXES
        elif kind == "scaled":
            idx = [round(p * n_cells / 256) for p in BLACKWOOD_BREAK_INDEXES]
        else:
            raise InputError(
                f"breaks must be 'blackwood', 'bucas', 'clues', 'scaled' or 'none', got {kind!r}"
            )
    else:
        idx = list(kind)
    idx_arr = np.array(sorted(idx), dtype=np.int64)
    return np.searchsorted(idx_arr, np.arange(n_cells), side="right").astype(np.int32)


def heuristic_colours(puzzle: Puzzle) -> tuple[int, ...]:
    """Blackwood's (13, 16, 10) on Eternity II; elsewhere, by analogy, the rarest frame colour
    and the two rarest inner colours (colours that must not be left for the end)."""
    if puzzle.is_eternity2:
        return BLACKWOOD_HEURISTIC_COLOURS
    counts = np.bincount(puzzle.pieces.ravel(), minlength=puzzle.max_colour + 1)
    frame = sorted(puzzle.frame_colours, key=lambda c: (counts[c], c))
    inner = sorted(
        (c for c in range(1, puzzle.max_colour + 1) if c not in puzzle.frame_colours and counts[c]),
        key=lambda c: (counts[c], c),
    )
    return tuple(frame[:1] + inner[:2])


# --------------------------------------------------------------------------------------------
# Plan: everything fixed for a puzzle, clues and settings
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """Search parameters; ``"auto"`` means Blackwood's on Eternity II with the centre clue, the
    clue-aware settings with more clues (0.9 of his quota, which assumes a board without hints
    and starves near the hint pieces; breaks from 150 on) and, elsewhere, a search for perfect
    boards (a portfolio of fill orders, no quota, no breaks)."""

    order: str = "auto"
    # "auto", "blackwood", "scaled", "none", or a curve (one int per position of the fill
    # order: heuristic sides required once it is filled; see quota_schedule)
    quota: str | tuple[int, ...] = "auto"
    breaks: str | tuple[int, ...] = "auto"
    heuristic: tuple[int, ...] | None = None
    node_cap: int = BLACKWOOD_NODE_CAP
    quota_scale: float | None = None  # multiplies the quota (below 1: looser); None = auto
    # Candidate order of a perfect-board search (no quota, no breaks): "fail-first" runs the
    # exact kernel (forward checking; candidates leaving the next cell fewest options first),
    # "table" Blackwood's kernel (the tables' order). Measured here, row scan, median nodes to
    # the first perfect board, fail-first / table: Brendan 5x5 0.36 (100 seeds), 6x6 0.35
    # (100 seeds), clue puzzle 1 0.10 (20 seeds); the exact kernel does ~0.65x the nodes per
    # CPU second (Brendan 8x8: 44-46 M vs 68 M).
    value_order: str = "fail-first"
    # How the walking search runs on boards of MACHINE_CELLS cells or more: "machine", the
    # plan's compiled machine (x1.24 on Eternity II; 13 s to compile once per plan shape, then
    # cached); "plain", the kernel every plan shares (no compilation); "auto", the machine when
    # it is compiled already or the search may run long enough to repay compiling it (see
    # MACHINE_MIN_SECONDS). Same nodes and boards either way.
    kernel: str = "auto"

    def __post_init__(self) -> None:
        # Everything that can be checked without the puzzle is checked here, when the settings
        # are made: a bad value is one line before any search (the puzzle-dependent checks,
        # colours and positions, are in make_plan).
        if self.order not in ("auto", *ORDERS):
            raise InputError(
                f"order must be auto or one of {', '.join(ORDERS)}, got {self.order!r}"
            )
        if isinstance(self.quota, str):
            if self.quota not in QUOTAS:
                raise InputError(
                    f"quota must be one of {', '.join(QUOTAS)} or a curve, got {self.quota!r}"
                )
        else:
            object.__setattr__(
                self, "quota", tuple(check_int(q, "quota curve", minimum=0) for q in self.quota)
            )
        if isinstance(self.breaks, str):
            if self.breaks not in BREAKS:
                raise InputError(
                    f"breaks must be one of {', '.join(BREAKS)} or a list of positions, "
                    f"got {self.breaks!r}"
                )
        else:
            object.__setattr__(
                self,
                "breaks",
                tuple(
                    check_int(b, "break index", minimum=0, maximum=MAX_CELLS) for b in self.breaks
                ),
            )
        if self.heuristic is not None:
            if isinstance(self.heuristic, (str, bytes)) or not len(self.heuristic):
                raise InputError(f"heuristic must be colour numbers, got {self.heuristic!r}")
            object.__setattr__(
                self,
                "heuristic",
                tuple(
                    check_int(c, "heuristic colour", minimum=1, maximum=63) for c in self.heuristic
                ),
            )
        object.__setattr__(
            self, "node_cap", check_int(self.node_cap, "node_cap", minimum=1, maximum=10**18)
        )
        if self.quota_scale is not None:
            scale = self.quota_scale
            if (
                isinstance(scale, bool)
                or not isinstance(scale, (int, float))
                or not (0 <= scale <= 10)
            ):
                raise InputError(f"quota_scale must be a number in 0..10, got {scale!r}")
        if self.value_order not in VALUE_ORDERS:
            raise InputError(
                f"value order must be one of {', '.join(VALUE_ORDERS)}, got {self.value_order!r}"
            )
        if self.kernel not in KERNELS:
            raise InputError(f"kernel must be one of {', '.join(KERNELS)}, got {self.kernel!r}")

    def resolved(self, puzzle: Puzzle, n_clues: int = 1) -> Settings:
        e2 = puzzle.is_eternity2
        hints = e2 and n_clues > 1
        quota = "blackwood" if e2 else "none"
        breaks = "clues" if hints else ("blackwood" if e2 else "none")
        scale = CLUE_QUOTA_SCALE if hints else 1.0
        return Settings(
            order=("blackwood" if e2 else "portfolio") if self.order == "auto" else self.order,
            quota=quota if self.quota == "auto" else self.quota,
            breaks=breaks if self.breaks == "auto" else self.breaks,
            heuristic=self.heuristic if self.heuristic is not None else heuristic_colours(puzzle),
            node_cap=self.node_cap,
            quota_scale=scale if self.quota_scale is None else self.quota_scale,
            value_order=self.value_order,
            kernel=self.kernel,
        )


@dataclass
class Plan:
    """Per position: cell, key neighbours, table spec, quota, break allowance, joints so far."""

    puzzle: Puzzle
    clues: Board
    settings: Settings
    pos_cell: np.ndarray
    pos_left: np.ndarray
    pos_below: np.ndarray
    pos_above: np.ndarray
    pos_right: np.ndarray
    checked: bool  # some cell is filled after its upper or right neighbour
    pos_quota: np.ndarray
    pos_allow: np.ndarray
    pos_joints: np.ndarray
    specs: list[tuple]  # per position: the spec of its candidate table
    heur_count: np.ndarray  # per piece: sides in a heuristic colour
    piece_type: np.ndarray  # per piece: its type (first piece equal to it up to rotation)
    type_turn: np.ndarray  # per piece: clockwise turns taking its type's listing to its own
    copies: np.ndarray  # per type id (= piece index of the representative): number of copies
    # no quota and no breaks: a search for perfect boards, run by the exact kernel unless the
    # settings ask for the table order (value_order "table")
    exact: bool = False
    # the walking search runs as the plan's machine (set by _prepare_machine before a search)
    use_machine: bool = False


ANY = -1  # a side that must merely not be grey


def make_plan(puzzle: Puzzle, clues: Board | None = None, settings: Settings | None = None) -> Plan:
    """Fix the order, schedules and per-position table specs for a search."""
    rows, cols, n = puzzle.rows, puzzle.cols, puzzle.rows * puzzle.cols
    clues = clues if clues is not None else Board.empty(rows, cols)
    st = (settings or Settings()).resolved(puzzle, clues.n_placed)
    if (clues.rows, clues.cols) != (rows, cols):
        raise InputError(f"clues are {clues.rows}x{clues.cols} but the puzzle is {rows}x{cols}")
    problems = rule_problems(clues, puzzle, complete=False)
    if problems:
        raise InputError(f"clues: {problems[0]}")
    present = set(np.unique(puzzle.pieces).tolist()) - {0}
    missing = [c for c in st.heuristic or () if c not in present]
    if missing:
        raise InputError(
            f"heuristic colours must be colours of the puzzle (1..{puzzle.max_colour}), "
            f"got {missing[0]}"
        )
    if not isinstance(st.breaks, str) and any(b >= n for b in st.breaks):
        raise InputError(f"break indexes must be positions 0..{n - 1}, got {max(st.breaks)}")
    order = fill_order(rows, cols, PORTFOLIO[0] if st.order == "portfolio" else st.order)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    # Key on the left and lower neighbours when they come earlier (the rim counts as grey, the
    # sentinel cell n); check the upper and right ones when they come earlier.
    pos_left = np.empty(n, dtype=np.int32)
    pos_below = np.empty(n, dtype=np.int32)
    pos_above = np.full(n, n, dtype=np.int32)
    pos_right = np.full(n, n, dtype=np.int32)
    key_left = np.ones(n, dtype=bool)
    key_below = np.ones(n, dtype=bool)
    joints = np.zeros(n + 1, dtype=np.int32)
    for i, cell in enumerate(order.tolist()):
        r, c = divmod(cell, cols)
        left = cell - 1 if c > 0 else n
        below = cell + cols if r < rows - 1 else n
        if left < n and rank[left] > i:
            left, key_left[i] = n, False
        if below < n and rank[below] > i:
            below, key_below[i] = n, False
        pos_left[i], pos_below[i] = left, below
        if r > 0 and rank[cell - cols] < i:
            pos_above[i] = cell - cols
        if c < cols - 1 and rank[cell + 1] < i:
            pos_right[i] = cell + 1
        earlier = sum(
            1
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < rows and 0 <= cc < cols and rank[rr * cols + cc] < i
        )
        joints[i + 1] = joints[i] + earlier
    heur = np.isin(puzzle.pieces, np.array(st.heuristic, dtype=np.int16)).sum(axis=1)
    piece_type, type_turn = _piece_types(puzzle.pieces)
    copies = np.bincount(piece_type, minlength=puzzle.n_pieces).astype(np.int64)
    quota = (quota_schedule(n, st.quota, int(heur.sum())) * st.quota_scale).astype(np.int32)
    allow = break_schedule(n, st.breaks)
    specs = []
    for i, cell in enumerate(order.tolist()):
        r, c = divmod(cell, cols)
        if clues.piece[r, c] >= 0:
            specs.append(("clue", int(clues.piece[r, c]), int(clues.rotation[r, c])))
            continue
        top_req = 0 if r == 0 else ANY
        right_req = 0 if c == cols - 1 else ANY
        if r > 0 and clues.piece[r - 1, c] >= 0:
            top_req = puzzle.edges(int(clues.piece[r - 1, c]), int(clues.rotation[r - 1, c]))[2]
        if c < cols - 1 and clues.piece[r, c + 1] >= 0:
            right_req = puzzle.edges(int(clues.piece[r, c + 1]), int(clues.rotation[r, c + 1]))[3]
        bottom_row = r == rows - 1 and 0 < c < cols - 1
        specs.append(
            (
                "cell",
                top_req,
                right_req,
                bool(allow[i] > 0),
                bottom_row,
                bool(key_left[i]),
                bool(key_below[i]),
            )
        )
    checked = bool((pos_above < n).any() or (pos_right < n).any())
    if st.value_order not in VALUE_ORDERS:
        raise InputError(
            f"value order must be one of {', '.join(VALUE_ORDERS)}, got {st.value_order!r}"
        )
    exact = not (quota.any() or allow.any()) and st.value_order == "fail-first"
    return Plan(
        puzzle, clues, st, order, pos_left, pos_below, pos_above, pos_right, checked,
        quota, allow, joints, specs, heur, piece_type, type_turn, copies, exact,
    )  # fmt: skip


def _piece_types(pieces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Identical pieces (up to rotation) are one type with several copies: the search then
    never tries two copies of the same piece in the same place (Tomy's clue puzzles repeat up
    to a third of their pieces). Returns each piece's type (its first equal piece) and the
    clockwise turns ``d`` with ``piece = representative turned d``."""
    first: dict[tuple[int, ...], int] = {}
    ptype = np.empty(len(pieces), dtype=np.int64)
    turn = np.zeros(len(pieces), dtype=np.int64)
    rows = pieces.tolist()
    for k, e in enumerate(rows):
        canon = min(tuple(e[i:] + e[:i]) for i in range(4))
        rep = first.setdefault(canon, k)
        ptype[k] = rep
        if rep != k:
            base = rows[rep]
            # rep turned d: side s shows base[(s - d) % 4]; find d with that equal to e
            turn[k] = next(d for d in range(4) if all(base[(s - d) % 4] == e[s] for s in range(4)))
    return ptype, turn


# --------------------------------------------------------------------------------------------
# Candidate tables
# --------------------------------------------------------------------------------------------


@dataclass
class Tables:
    """Concatenated candidate lists: list (table ``t``, key) is ``ent[start[t*K+key] :
    start[t*K+key+1]]``; ``pos_table[i]`` is the table of position ``i``."""

    n_colours: int
    pos_table: np.ndarray
    tab_start: np.ndarray
    ent: np.ndarray
    ent2: np.ndarray  # bottom | left << 6 of each entry (for checked orders)
    width: int = 0  # longest list (the exact kernel's candidate rows)
    # The same lists for the walking kernel (``_kernel.walk``, built by ``_kernel.walk_code``):
    # the plan's per-position records, the start word of each (table, left << 6 | below) key,
    # then the lists, each followed by a sentinel word; ``placed`` indexes this array.
    walk: np.ndarray | None = None

    def entries(self, table: int, left: int, below: int) -> np.ndarray:
        k = table * self.n_colours**2 + left * self.n_colours + below
        return self.ent[self.tab_start[k] : self.tab_start[k + 1]]


def _all_rotations(pieces: np.ndarray) -> np.ndarray:
    """``(n, 4, 4)``: ``[p, r]`` = (top, right, bottom, left) of piece p turned r clockwise."""
    out = np.empty((pieces.shape[0], 4, 4), dtype=np.int64)
    for r in range(4):
        for s in range(4):
            out[:, r, s] = pieces[:, (s - r) % 4]
    return out


def build_tables(plan: Plan, rng: np.random.Generator) -> Tables:
    """One draw of the candidate tables (random tie-breaks among equal heuristic counts)."""
    puzzle = plan.puzzle
    nc = puzzle.max_colour + 1
    n_keys = nc * nc
    frame = np.zeros(nc, dtype=bool)
    frame[list(puzzle.frame_colours)] = True
    rot = _all_rotations(puzzle.pieces.astype(np.int64))
    n_pieces = puzzle.n_pieces
    piece_ids = np.repeat(np.arange(n_pieces), 4)
    rot_ids = np.tile(np.arange(4), n_pieces)
    flat = rot.reshape(-1, 4)
    t, r, b, lft = flat[:, 0], flat[:, 1], flat[:, 2], flat[:, 3]
    heur = plan.heur_count[piece_ids]
    # Only one piece of each type gets entries, and only if a copy is left beside the clues.
    spare = plan.copies.copy()
    for _, _, k, _ in plan.clues.placements():
        spare[plan.piece_type[k]] -= 1
    is_rep = plan.piece_type == np.arange(n_pieces)
    usable = (is_rep & (spare > 0))[piece_ids]

    spec_ids: dict[tuple, int] = {}
    pos_table = np.empty(len(plan.specs), dtype=np.int32)
    for i, spec in enumerate(plan.specs):
        pos_table[i] = spec_ids.setdefault(spec, len(spec_ids))

    keys_all, tabs_all, scores_all, words_all, words2_all = [], [], [], [], []
    breakable = lambda colour: (colour != 0) & ~frame[colour]  # noqa: E731
    other = np.arange(1, nc)
    for spec, tid in spec_ids.items():
        if spec[0] == "clue":
            _, k, rr = spec
            e = rot[k, rr]
            keys = np.array([e[3] * nc + e[2]])
            tk = int(plan.piece_type[k])
            rr_type = (rr + int(plan.type_turn[k])) % 4  # the clue as its type turned
            words = np.array([K.pack_entry(tk, rr_type, e[0], e[1], plan.heur_count[k], 0)])
            words2 = np.array([e[2] | (e[3] << 6)])
            scores = np.zeros(1)
        else:
            _, top_req, right_req, with_breaks, bottom_row, key_l, key_b = spec
            ok = usable.copy()
            # a side facing a neighbour filled later is not keyed: it must merely not be grey
            if not key_l:
                ok &= lft != 0
            if not key_b:
                ok &= b != 0
            ok &= (t == 0) if top_req == 0 else ((t != 0) if top_req == ANY else (t == top_req))
            ok &= (
                (r == 0) if right_req == 0 else ((r != 0) if right_req == ANY else (r == right_req))
            )
            sel = np.nonzero(ok)[0]
            key_parts = [lft[sel] * nc * key_l + b[sel] * key_b]
            idx_parts = [sel]
            brk_parts = [np.zeros(len(sel), dtype=np.int64)]
            if with_breaks and key_l and key_b:
                # left side broken: the key's left colour differs from the piece's left
                s2 = sel[breakable(lft[sel])]
                xs = np.tile(other, len(s2))
                ss = np.repeat(s2, len(other))
                keep = (xs != lft[ss]) & breakable(xs)
                key_parts.append(xs[keep] * nc + b[ss[keep]])
                idx_parts.append(ss[keep])
                brk_parts.append(np.ones(int(keep.sum()), dtype=np.int64))
                # bottom side broken
                s2 = sel[breakable(b[sel])]
                xs = np.tile(other, len(s2))
                ss = np.repeat(s2, len(other))
                keep = (xs != b[ss]) & breakable(xs)
                key_parts.append(lft[ss[keep]] * nc + xs[keep])
                idx_parts.append(ss[keep])
                brk_parts.append(np.ones(int(keep.sum()), dtype=np.int64))
            keys = np.concatenate(key_parts)
            idx = np.concatenate(idx_parts)
            brk = np.concatenate(brk_parts)
            h = heur[idx]
            tie = rng.integers(0, TIE_BREAK_RANGE, size=len(idx))
            if bottom_row:
                # Blackwood re-sorts the bottom row at each run: heuristic colour first, else random
                scores = HEUR_WEIGHT * (h > 0) - BREAK_WEIGHT * brk + tie
            else:
                scores = HEUR_WEIGHT * h - BREAK_WEIGHT * brk + tie
            words = K.pack_entry(piece_ids[idx], rot_ids[idx], t[idx], r[idx], h, brk)
            words2 = b[idx] | (lft[idx] << 6)
        keys_all.append(keys)
        words2_all.append(words2)
        tabs_all.append(np.full(len(keys), tid))
        scores_all.append(scores)
        words_all.append(words)
    keys = np.concatenate(keys_all)
    tabs = np.concatenate(tabs_all)
    scores = np.concatenate(scores_all)
    words = np.concatenate(words_all)
    words2 = np.concatenate(words2_all)
    # A piece with rotational symmetry shows the same edges in two or four turns: keep one.
    no_rot = words & ~(3 << K.ROT_SHIFT)
    _, first = np.unique(np.stack([tabs, keys, no_rot]), axis=1, return_index=True)
    keys, tabs, scores = keys[first], tabs[first], scores[first]
    words, words2 = words[first], words2[first]
    order = np.lexsort((-scores, keys, tabs))
    slot = tabs[order] * n_keys + keys[order]
    tab_start = np.searchsorted(slot, np.arange(len(spec_ids) * n_keys + 1)).astype(np.int32)
    ent = words[order].astype(np.int32)
    n_lists = len(tab_start) - 1
    # The walker's key of (table t, left l, below b) is t * WALK_KEYS + (l << 6 | b); keys of
    # colours the puzzle lacks point at the first list's sentinel (never read).
    starts = tab_start[:-1] + np.arange(n_lists)
    wstart = np.full(len(spec_ids) * K.WALK_KEYS, starts[0] + tab_start[1] - tab_start[0])
    tt, ll, bb = np.meshgrid(np.arange(len(spec_ids)), np.arange(nc), np.arange(nc), indexing="ij")
    wstart[(tt * K.WALK_KEYS + (ll << 6) + bb).ravel()] = starts
    walk = K.walk_code(
        plan.pos_cell,
        plan.pos_left,
        plan.pos_below,
        pos_table,
        plan.pos_quota,
        plan.pos_allow,
        plan.pos_joints,
        wstart,
        np.insert(ent, tab_start[1:], K.SENTINEL),
    )
    return Tables(
        nc,
        pos_table,
        tab_start,
        ent,
        words2[order].astype(np.int32),
        int(np.diff(tab_start).max(initial=0)),
        walk,
    )


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass
class EdgeSearchResult(SearchResult):
    """The best board found (``board``, completed greedily with the leftover pieces) and how.

    ``search_score``/``search_depth``: the best partial board of the search (Blackwood's and
    Bucas's figure: matched joints among the placed pieces), ``deepest``: most pieces placed at
    once; ``score``: the completed board's matched joints (>= ``search_score``). ``counts``:
    ``nodes`` (loop iterations), ``placements`` (forward placements, Bucas's count),
    ``restarts``. ``heat``: placements per cell (rows x cols).
    """

    puzzle: Puzzle | None = None
    board: Board | None = None
    partial: Board | None = None
    score: int = -1
    search_score: int = -1
    search_depth: int = 0
    deepest: int = 0
    solved: bool = False
    exhausted: bool = False
    interrupted: bool = False
    heat: np.ndarray | None = None
    settings: dict = field(default_factory=dict)
    wall_seconds: float = 0.0  # solve(): including process start-up and compilation
    # CPU time of the searching thread(s): on a shared machine the wall clock also counts the
    # time other processes held the core, this does not
    cpu_seconds: float = 0.0

    # Set by the command-level solve (rompicapo.edges.solve): the viewer URL of the board,
    # where it was written, and the polish run's result.
    url: str | None = None
    out: str | None = None
    polish: SearchResult | None = None
    # Set by solve(): why fewer jobs ran than were asked for (jobs capped to the cores).
    note: str | None = None

    _dict_exclude = ("puzzle", "board", "partial", "heat")

    @property
    def placements_per_second(self) -> float:
        """Forward placements per wall-clock second of search (all jobs together)."""
        return self.counts.get("placements", 0) / self.solve_seconds if self.solve_seconds else 0.0

    @property
    def placements_per_cpu_second(self) -> float:
        """Forward placements per second of CPU time actually given to the search."""
        return self.counts.get("placements", 0) / self.cpu_seconds if self.cpu_seconds else 0.0

    def _repr_svg_(self) -> str | None:
        """Jupyter shows the board as its SVG, mismatched joints in red."""
        from rompicapo.edges.render import board_svg

        if self.board is None or self.puzzle is None:
            return None
        return board_svg(self.board, self.puzzle)

    def verify(self) -> bool:
        """Recount with :mod:`rompicapo.edges.verify` (code that shares nothing with the
        search): both boards keep the rules and their scores are the ones reported.

        Raises :class:`NotVerifiable` when there is no board to check."""
        from rompicapo.edges.verify import board_problems, count_matched_joints

        p = self.puzzle
        if p is None or self.board is None or self.partial is None:
            raise NotVerifiable("this result holds no board to check")
        pieces = p.pieces.tolist()
        for board, expected in ((self.board, self.score), (self.partial, self.search_score)):
            placements = board.placements()
            if board_problems(p.rows, p.cols, pieces, placements, complete=False):
                return False
            if count_matched_joints(p.rows, p.cols, pieces, placements) != expected:
                return False
        return not self.solved or self.score == p.n_joints

    def _dict_extra(self) -> dict:
        p = self.puzzle
        try:
            verified: bool | None = self.verify()
        except NotVerifiable:
            verified = None
        return {
            "puzzle": None if p is None else p.name,
            "size": None if p is None else [p.rows, p.cols],
            "max_score": None if p is None else p.n_joints,
            "placements_per_second": round(self.placements_per_second),
            "placements_per_cpu_second": round(self.placements_per_cpu_second),
            "wall_seconds": round(self.wall_seconds or self.solve_seconds, 3),
            "verified": verified,
        }

    def report(self) -> str:
        """What ``rompicapo edges solve`` prints: the score line, the polish line, the viewer
        URL and the board (or where it was written)."""
        from rompicapo.edges.puzzle import format_board

        p = self.puzzle
        assert p is not None
        d = self.to_dict()
        state = "solved" if self.solved else ("interrupted" if self.interrupted else "best")
        lines = [
            f"{state}: score {self.score}/{p.n_joints} (search: {self.search_score} with "
            f"{self.search_depth} pieces, deepest {self.deepest}); "
            f"{self.counts.get('placements', 0):,} placements, "
            f"{self.placements_per_second / 1e6:.2f} M/s over "
            f"{self.settings.get('jobs', 1)} jobs "
            f"in {self.solve_seconds:.1f} s; verified {d['verified']}"
        ]
        if self.note:
            lines.append(f"note: {self.note}")
        if self.polish is not None:
            lines.append(self.polish.report().splitlines()[0])
        if self.url:
            lines.append(self.url)
        text = "\n".join(lines) + "\n"
        if self.out:
            text += f"board written to {self.out}\n"
        elif not self.interrupted and self.board is not None:
            text += format_board(self.final_board, p)
        return text

    @property
    def final_board(self) -> Board | None:
        """The board to keep: the polished one when polishing did not lower the score."""
        polished = getattr(self.polish, "board", None)
        if polished is not None and getattr(self.polish, "score_after", -1) >= self.score:
            return polished
        return self.board


def complete_board(partial: Board, puzzle: Puzzle, clues: Board | None = None) -> Board:
    """Fill the empty cells greedily (fill order of rows) with the unused pieces, each time the
    piece and turn that matches most already-placed neighbours and keeps grey on the rim."""
    board = partial.copy()
    if clues is not None:
        for r, c, k, rot in clues.placements():
            if board.piece[r, c] < 0 and k not in set(board.piece.ravel().tolist()):
                board.piece[r, c], board.rotation[r, c] = k, rot
    rows, cols = board.rows, board.cols
    unused = np.array(
        sorted(set(range(puzzle.n_pieces)) - set(board.piece.ravel().tolist())), dtype=np.int64
    )
    rot = _all_rotations(puzzle.pieces.astype(np.int64))
    # Vectorised over (unused piece, turn), in that order: argmax picks the first best one,
    # as a scan of pieces then turns with a strict ">" would.
    for r in range(rows - 1, -1, -1):
        for c in range(cols):
            if board.piece[r, c] >= 0 or not len(unused):
                continue
            cand = rot[unused]  # (u, 4 turns, 4 sides)
            rim = np.array((r == 0, c == cols - 1, r == rows - 1, c == 0))
            ok = ((cand == 0) == rim).all(axis=2)
            if not ok.any():
                continue
            m = np.zeros(ok.shape, dtype=np.int64)
            for s, (dr, dc, opp) in enumerate(((-1, 0, 2), (0, 1, 3), (1, 0, 0), (0, -1, 1))):
                rr2, cc2 = r + dr, c + dc
                if 0 <= rr2 < rows and 0 <= cc2 < cols and board.piece[rr2, cc2] >= 0:
                    o = rot[board.piece[rr2, cc2], board.rotation[rr2, cc2]]
                    m += cand[:, :, s] == o[opp]
            m[~ok] = -1
            best = int(np.argmax(m))
            i, turn = divmod(best, 4)
            board.piece[r, c], board.rotation[r, c] = int(unused[i]), turn
            unused = np.delete(unused, i)
    return board


# --------------------------------------------------------------------------------------------
# Search in this process
# --------------------------------------------------------------------------------------------


def _warm(kind: str) -> None:
    """Compile (or load from numba's cache) one kernel of the search on a 3x3 puzzle: ``"walk"``
    (:func:`K.walk`, Blackwood's order and the row scan), ``"general"`` (:func:`K.search`, orders
    with checked neighbours), ``"exact"`` (:func:`K.exact_search`) or ``"filter"`` (the adaptive
    filter of the plans' machines, which are compiled per plan by :func:`_prepare_machine`). A
    search compiles only the kernels its plans run (:func:`_kernel_of`): each is 1-2 s of
    compilation on a cold cache."""
    from rompicapo.edges.generate import generate

    puzzle, _ = generate(3, 3, frame_colours=1, inner_colours=2, seed=0)
    settings = Settings(order="frame", value_order="table") if kind == "general" else None
    plan = make_plan(puzzle, settings=settings)
    tables = build_tables(plan, np.random.default_rng(0))
    if kind == "exact":
        _run_exact(plan, tables, K.new_state(9, plan.copies), _exact_state(tables, 9), 100)
    elif kind == "filter":
        walk = tables.walk
        fixed = np.zeros(len(plan.copies), dtype=np.uint8)
        out, to_out = np.zeros(2 * len(walk), dtype=np.int32), np.zeros(len(walk), dtype=np.int32)
        K.filter_walk_code(walk, 9, _lists_at(tables, 9), fixed, out, to_out, out.copy())
    else:
        _run_kernel(plan, tables, K.new_state(9, plan.copies), 100, general=kind == "general")


def _kernel_of(plan: Plan) -> str:
    """Which kernel runs ``plan``'s search (:func:`_warm`'s kinds)."""
    if plan.exact:
        return "exact"
    if plan.checked:
        return "general"
    return "filter" if plan.use_machine else "walk"


def _plans_of(puzzle: Puzzle, clues: Board | None, settings: Settings | None) -> list[Plan]:
    """The plans a search runs: one, or the portfolio's orders in turn."""
    plan = make_plan(puzzle, clues, settings)
    plans = [plan]
    if plan.settings.order == "portfolio":
        plans += [make_plan(puzzle, clues, replace(plan.settings, order=o)) for o in PORTFOLIO[1:]]
    return plans


def _warm_plans(plans: Sequence[Plan]) -> float:
    """Compile (or load) the kernels that ``plans`` run, each once per process: the seconds."""
    kinds = dict.fromkeys(_kernel_of(p) for p in plans)
    return sum(jit_warmup(f"edges.search.{kind}", lambda k=kind: _warm(k)) for kind in kinds)


def _lists_at(tables: Tables, n: int) -> int:
    """Where the lists begin in the walking kernel's code: after the records and start words."""
    return n * K.P_STRIDE + (int(tables.pos_table.max()) + 1) * K.WALK_KEYS


class Walker:
    """The walking search on boards of ``MACHINE_CELLS`` cells or more: the plan's machine
    (:mod:`rompicapo.edges._walk_machine`: :func:`K.walk` specialised to the plan, one set of
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

    def walk(self, state: tuple, max_nodes: int) -> None:
        """``max_nodes`` nodes of the search from ``state``, on the filtered copy when there
        is one: same nodes, placements, heat and boards as :func:`K.walk` on the tables' own
        code."""
        arrays = _walk_state(state)
        _, placed, _, cum_breaks, cum_heur, heat, best, counters = arrays
        walk, code, n = self.machine, self.tables.walk, self.n
        left = max_nodes
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


def _prepare_machine(plan: Plan, time_limit: float | None, node_limit: int | None) -> float:
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


def _walker_for(plan: Plan, tables: Tables) -> Walker | None:
    """The :class:`Walker` of a new search state when its plan runs as a machine
    (:func:`_prepare_machine`), else None: :func:`K.walk` or the general kernel runs it
    (:func:`_run_kernel`)."""
    if not plan.use_machine:
        return None
    try:
        return Walker(plan, tables)
    except OSError:
        return None  # no machine could be written (a full disk): K.walk, same search, slower


def _walk_state(state: tuple) -> tuple:
    """The arrays of a :func:`K.new_state` state that :func:`K.walk` takes, in its order (its
    cells show top and right in one word, kept in the state's ``top``)."""
    avail, placed, shown, _, _, _, cum_breaks, cum_heur, heat, best, counters = state
    return avail, placed, shown, cum_breaks, cum_heur, heat, best, counters


def _run_kernel(
    plan: Plan,
    tables: Tables,
    state: tuple,
    max_nodes: int,
    *,
    general: bool = False,
    walker: Walker | None = None,
) -> None:
    """Blackwood's search on a :func:`K.new_state` state for ``max_nodes`` more nodes: the
    walking kernel when no neighbour is checked (Blackwood's order, the row scan), the general
    one otherwise (same nodes and boards; on Eternity II the walker makes about 2.2x the
    placements per CPU second, measured side by side with benchmarks/edges_speed.py). Which one
    ran decides the entry array that ``placed`` indexes (:func:`_entries_of`). ``general``
    forces the general kernel (the tests compare the two node for node). ``walker``: the
    walking search runs as this state's :class:`Walker` (the plan's machine and the adaptive
    filter: the same search, faster on large boards)."""
    if not plan.checked and not general:
        if walker is not None:
            walker.walk(state, max_nodes)
        else:
            K.walk(tables.walk, *_walk_state(state), max_nodes)
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
        max_nodes,
    )


def _entries_of(plan: Plan, tables: Tables) -> np.ndarray:
    """The entry array the kernel of ``plan`` indexes ``placed`` with: the walking kernel's
    code (its lists hold the same words), or the plain lists of the general and exact kernels."""
    return tables.ent if (plan.exact or plan.checked) else tables.walk


def _exact_state(tables: Tables, n_cells: int) -> tuple:
    """The exact kernel's own state beside :func:`K.new_state`'s: candidate lists per
    position, their lengths, the listed candidate on the board per position."""
    cand = np.zeros((n_cells, max(tables.width, 1)), dtype=np.int32)
    return cand, np.zeros(n_cells, dtype=np.int32), np.zeros(n_cells, dtype=np.int32)


def _run_exact(plan: Plan, tables: Tables, state: tuple, extra: tuple, max_nodes: int) -> None:
    """The exact kernel on a :func:`K.new_state` state and its :func:`_exact_state`."""
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
        max_nodes,
    )


def _board_of(plan: Plan, tables: Tables, placed: np.ndarray) -> Board:
    """The board of the placed entries: each type's copies handed out in piece order (clue
    cells get their own clue piece), each turned so it shows the entry's edges."""
    puzzle = plan.puzzle
    ent = _entries_of(plan, tables)
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


LegacyProgress = Callable[[dict], None]


def _rng(seed: int) -> np.random.Generator:
    """The tables' random generator: seeds >= 0 draw as they always did (published figures
    stay reproducible); negative seeds go through the run contract's seed sequence."""
    return np.random.default_rng(seed if seed >= 0 else seed_sequence(seed))


def _check_puzzle(puzzle: object) -> Puzzle:
    if not isinstance(puzzle, Puzzle):
        raise InputError(f"puzzle must be a Puzzle, got {type(puzzle).__name__}")
    return puzzle


@renamed_keywords(seconds="time_limit", max_nodes="node_limit")
def search(
    puzzle: Puzzle,
    clues: Board | None = None,
    *,
    settings: Settings | None = None,
    time_limit: float | None = 60.0,
    node_limit: int | None = None,
    seed: int | None = 0,
    progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_progress: LegacyProgress | None = None,
) -> EdgeSearchResult:
    """Blackwood's search in this process (one thread) until a perfect board, the whole tree
    searched, ``time_limit`` seconds of wall clock (None: no limit; compilation included) or
    ``node_limit`` nodes in total, or Ctrl-C.

    Each run draws new tables from ``seed`` and its run number and stops at the node cap
    (``settings.node_cap``); the best partial board over all runs is returned, completed
    greedily. A KeyboardInterrupt ends the search and returns what was found so far
    (``interrupted``). ``progress`` receives :class:`~rompicapo.common.ProgressEvent`
    objects about every half second (``done``: nodes; ``best``: the best search score;
    ``counts``: nodes, placements, deepest, best_score, max_score). ``on_progress`` is the
    earlier dict callback, kept for old scripts. (Old keyword names: ``seconds``,
    ``max_nodes``.)
    """
    deadline = Deadline(check_time_limit(time_limit))
    node_limit = check_node_limit(node_limit)
    seed = check_seed(seed) or 0
    _check_puzzle(puzzle)
    events = Progress(progress, unit="nodes")
    seconds, max_nodes = time_limit, node_limit
    plans = _plans_of(puzzle, clues, settings)
    plan = plans[0]
    compile_s = sum(_prepare_machine(p, deadline.time_limit, node_limit) for p in plans)
    compile_s += _warm_plans(plans)
    n = puzzle.rows * puzzle.cols
    rng = _rng(seed)
    totals = {"nodes": 0, "placements": 0, "restarts": 0}
    heat = np.zeros(n, dtype=np.int64)
    best_score, best_partial, deepest = -1, Board.empty(puzzle.rows, puzzle.cols), 0
    best_depth = 0
    solved = exhausted = interrupted = False
    chunk = 1 << 18  # grows to CHUNK_SECONDS of work after the first call
    t0 = time.perf_counter()
    last_report = t0
    state = K.new_state(n, plan.copies)  # replaced per run; here for an early Ctrl-C
    counters = state[-1]
    cpu0 = time.thread_time()
    with Stopwatch() as sw:
        try:
            while True:
                run = totals["restarts"]
                plan = plans[run % len(plans)]
                node_cap = plan.settings.node_cap
                if len(plans) > 1:
                    node_cap = min(node_cap, PORTFOLIO_FIRST_CAP << (run // len(plans)))
                tables = build_tables(plan, rng)
                state = K.new_state(n, plan.copies)
                extra = _exact_state(tables, n) if plan.exact else ()
                walker = _walker_for(plan, tables)
                counters = state[-1]
                run_nodes = 0
                totals["restarts"] += 1
                while True:
                    budget = chunk
                    if max_nodes is not None:
                        budget = min(budget, max_nodes - totals["nodes"] - run_nodes)
                    budget = min(budget, node_cap - run_nodes)
                    tc = time.perf_counter()
                    before = int(counters[K.C_NODES])
                    if plan.exact:
                        _run_exact(plan, tables, state, extra, max(budget, 0))
                    else:
                        _run_kernel(plan, tables, state, max(budget, 0), walker=walker)
                    took = time.perf_counter() - tc
                    run_nodes = int(counters[K.C_NODES])
                    if took > 0.01 and run_nodes - before >= budget:
                        chunk = max(1 << 12, int(budget * CHUNK_SECONDS / took))
                    if int(counters[K.C_BEST_SCORE]) > best_score:
                        best_score = int(counters[K.C_BEST_SCORE])
                        best_depth = int((state[K.S_BEST] >= 0).sum())
                        best_partial = _board_of(plan, tables, state[K.S_BEST])
                    deepest = max(deepest, int(counters[K.C_BEST_DEPTH]))
                    status = int(counters[K.C_STATUS])
                    now = time.perf_counter()
                    done_nodes = totals["nodes"] + run_nodes
                    stop = (
                        status != K.RUNNING
                        or (seconds is not None and deadline.expired())
                        or (max_nodes is not None and done_nodes >= max_nodes)
                        or (should_stop is not None and should_stop())
                    )
                    if now - last_report >= CHUNK_SECONDS or stop:
                        last_report = now
                        info = {
                            "seconds": now - t0,
                            "nodes": done_nodes,
                            "placements": totals["placements"] + int(counters[K.C_PLACEMENTS]),
                            "deepest": deepest,
                            "best_score": best_score,
                            "max_score": puzzle.n_joints,
                        }
                        now_counts = {k: int(v) for k, v in info.items() if k != "seconds"}
                        events.update(done_nodes, counts=now_counts)
                        if best_score > (-1 if events.best_value is None else events.best_value):
                            events.best(best_score, counts=now_counts)
                        if on_progress is not None:
                            on_progress({**info, "best": best_partial.placements()})
                    if stop or run_nodes >= node_cap:
                        break
                totals["nodes"] += run_nodes
                totals["placements"] += int(counters[K.C_PLACEMENTS])
                heat += state[K.S_HEAT]
                counters[:] = 0  # added: an interrupt from here on must not add them again
                state[K.S_HEAT][:] = 0
                if status == K.SOLVED:
                    solved = True
                    break
                if status == K.EXHAUSTED:
                    exhausted = True
                    break
                if stop:
                    break
        except KeyboardInterrupt:
            interrupted = True
            # the kernel's counters are current after every call: count the interrupted run
            totals["nodes"] += int(counters[K.C_NODES])
            totals["placements"] += int(counters[K.C_PLACEMENTS])
            heat += state[K.S_HEAT]
    board = complete_board(best_partial, puzzle, plan.clues)
    final = model_score(board, puzzle)
    st = plans[0].settings
    events.finish(counts=totals)
    return EdgeSearchResult(
        wall_seconds=deadline.elapsed(),
        solve_seconds=sw.seconds,
        cpu_seconds=time.thread_time() - cpu0,
        compile_seconds=compile_s,
        counts=totals,
        puzzle=puzzle,
        board=board,
        partial=best_partial,
        score=final,
        search_score=max(best_score, 0),
        search_depth=best_depth,
        deepest=deepest,
        solved=solved or final == puzzle.n_joints,
        exhausted=exhausted,
        interrupted=interrupted,
        heat=heat.reshape(puzzle.rows, puzzle.cols),
        settings={
            "order": st.order,
            "quota": st.quota if isinstance(st.quota, str) else list(st.quota),
            "quota_scale": st.quota_scale,
            "breaks": st.breaks if isinstance(st.breaks, str) else list(st.breaks),
            "heuristic": list(st.heuristic or ()),
            "node_cap": st.node_cap,
            "seed": seed,
            "clues": plan.clues.n_placed,
        },
    )


# --------------------------------------------------------------------------------------------
# Parallel restarts
# --------------------------------------------------------------------------------------------


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def _job(spec: dict) -> dict:
    """One worker's search (module level so processes and Dask workers can import it)."""
    puzzle = Puzzle(
        spec["rows"], spec["cols"], np.array(spec["pieces"], dtype=np.int16), spec["name"]
    )
    clues = Board.empty(puzzle.rows, puzzle.cols)
    for r, c, k, rot in spec["clues"]:
        clues.piece[r, c], clues.rotation[r, c] = k, rot
    folder = Path(spec["progress_dir"]) if spec.get("progress_dir") else None
    report = None
    stop_file = None
    if folder is not None and folder.is_dir():
        own = folder / f"job{spec['job']}.json"
        stop_file = folder / "stop"

        def report(progress: dict) -> None:
            with contextlib.suppress(OSError):
                _write_json(own, progress)

    settings = Settings(
        **{k: (tuple(v) if isinstance(v, list) else v) for k, v in spec["settings"].items()}
    )
    # The parent's deadline, as wall-clock time: a worker that took long to start searches
    # only for what is left of the whole command's time limit.
    end = spec.get("end")
    time_limit = None if end is None else max(0.05, end - time.time())
    res = search(
        puzzle,
        clues,
        settings=settings,
        time_limit=time_limit,
        node_limit=spec.get("max_nodes"),
        seed=spec["seed"],
        on_progress=report,
        should_stop=(lambda: stop_file.exists()) if stop_file is not None else None,
    )
    assert res.partial is not None
    if res.interrupted:
        if report is not None:  # the last word for the parent, which reads it after Ctrl-C
            report(
                {
                    "seconds": res.solve_seconds,
                    "nodes": res.counts["nodes"],
                    "placements": res.counts["placements"],
                    "deepest": res.deepest,
                    "best_score": res.search_score,
                    "max_score": puzzle.n_joints,
                    "best": res.partial.placements(),
                }
            )
        raise KeyboardInterrupt
    return {
        "partial": res.partial.placements(),
        "search_score": res.search_score,
        "search_depth": res.search_depth,
        "deepest": res.deepest,
        "solved": res.solved,
        "exhausted": res.exhausted,
        "counts": res.counts,
        "solve_seconds": res.solve_seconds,
        "cpu_seconds": res.cpu_seconds,
        "compile_seconds": res.compile_seconds,
        "heat": res.heat.tolist() if res.heat is not None else None,
        "settings": res.settings,
    }


@renamed_keywords(seconds="time_limit", max_nodes="node_limit")
def solve(
    puzzle: Puzzle,
    clues: Board | None = None,
    *,
    settings: Settings | None = None,
    time_limit: float | None = 60.0,
    node_limit: int | None = None,
    jobs: int | None = None,
    seed: int | None = 0,
    scheduler: object | None = None,
    progress: ProgressCallback | None = None,
    on_progress: LegacyProgress | None = None,
) -> EdgeSearchResult:
    """Blackwood's search on ``jobs`` processes (default: all cores; more are capped to the
    cores with a ``note``) or a Dask cluster, each with its own seed (``seed``, ``seed+1``,
    ...); the best board wins.

    ``time_limit`` is wall clock for the whole call, worker start-up and compilation
    included: a worker searches only for what is left of it. ``node_limit`` caps each job's
    nodes. The first job to find a perfect board (or search the whole tree) stops the others.
    Ctrl-C stops every job and returns the best board reported so far (``interrupted``), read
    from the progress files the local jobs write every half second. ``progress`` receives
    :class:`~rompicapo.common.ProgressEvent` objects about every second (``done``:
    placements; ``best``: the best search score; ``counts``: placements, deepest, best_score,
    max_score, jobs); ``on_progress`` is the earlier dict callback. A ``scheduler`` address is
    reached (or refused in one line) before anything starts. (Old keyword names: ``seconds``,
    ``max_nodes``.)
    """
    deadline = Deadline(check_time_limit(time_limit))
    node_limit = check_node_limit(node_limit)
    seed = check_seed(seed) or 0
    _check_puzzle(puzzle)
    st = settings or Settings()
    if not isinstance(st, Settings):
        raise InputError(f"settings must be a Settings, got {type(st).__name__}")
    plans = _plans_of(puzzle, clues, st)  # fail early, in this process, on bad clues or settings
    clue_list = clues.placements() if clues is not None else []
    note = None
    client = None
    if scheduler is not None:
        n_jobs = check_int(jobs, "jobs", minimum=1, maximum=4096) if jobs is not None else None
        # one line within seconds for a wrong address, before any folder or worker exists
        client = connect_scheduler(scheduler) if isinstance(scheduler, str) else scheduler
        if n_jobs is None:
            n_jobs = max(1, sum(client.nthreads().values()))
    else:
        n_jobs, note = resolve_jobs(jobs)
        if (
            n_jobs > 1
            and deadline.time_limit is not None
            and (deadline.time_limit < PARALLEL_MIN_SECONDS)
        ):
            short = (
                f"jobs={n_jobs} run as 1 in this process: a time limit under "
                f"{PARALLEL_MIN_SECONDS:g} s is shorter than starting worker processes"
            )
            note = short if note is None else f"{note}; {short}"
            n_jobs = 1
    end = None if deadline.time_limit is None else time.time() + deadline.remaining()
    folder = Path(tempfile.mkdtemp(prefix="rompicapo-edges-"))
    specs = [
        {
            "job": k,
            "rows": puzzle.rows,
            "cols": puzzle.cols,
            "name": puzzle.name,
            "pieces": puzzle.pieces.tolist(),
            "clues": clue_list,
            "settings": {
                key: (list(v) if isinstance(v, tuple) else v) for key, v in asdict(st).items()
            },
            "end": end,
            "max_nodes": node_limit,
            "seed": seed + k,
            "progress_dir": str(folder) if client is None else None,
        }
        for k in range(n_jobs)
    ]
    done = threading.Event()
    t0 = time.perf_counter()
    events = Progress(progress, unit="placements")

    def read_progress() -> list[dict]:
        out = []
        for f in folder.glob("job*.json"):
            with contextlib.suppress(OSError, ValueError):
                out.append(json.loads(f.read_text()))
        return out

    import multiprocessing

    before = {p.pid for p in multiprocessing.active_children()}
    overran = threading.Event()

    def monitor() -> None:
        while not done.wait(1.0 if deadline.remaining() > 1.0 else 0.2):
            if deadline.expired():
                # workers stop by their own clock; the stop file also reaches the ones still
                # compiling when the time ran out
                with contextlib.suppress(OSError):
                    (folder / "stop").touch()
            if client is None and deadline.end + OVERRUN_GRACE < time.monotonic():
                # Workers still starting (or stuck) past the limit: end this run's own worker
                # processes; the boards they reported are kept (read below).
                overran.set()
                for child in multiprocessing.active_children():
                    if child.pid not in before:
                        child.terminate()
                return
            reports = read_progress()
            if not reports:
                continue
            placements = sum(p["placements"] for p in reports)
            seconds_ = time.perf_counter() - t0
            info = {
                "seconds": seconds_,
                "placements": placements,
                "placements_per_second": placements / max(seconds_, 1e-9),
                "deepest": max(p["deepest"] for p in reports),
                "best_score": max(p["best_score"] for p in reports),
                "max_score": puzzle.n_joints,
                "jobs": len(reports),
            }
            counts = {k: int(v) for k, v in info.items() if k != "seconds"}
            events.update(placements, counts=counts)
            if info["best_score"] > (-1 if events.best_value is None else events.best_value):
                events.best(info["best_score"], counts=counts)
            if on_progress is not None:
                on_progress(info)

    watcher = threading.Thread(target=monitor, daemon=True)
    watcher.start()
    results: list[dict] = []
    interrupted = False
    failures: list[BaseException] = []
    parent_compile = 0.0

    def collect(job_specs: list[dict], workers: int) -> None:
        try:
            for _, out in run_jobs(_job, job_specs, n_jobs=workers, scheduler=client):
                results.append(out)
                if out["solved"] or out["exhausted"]:
                    with contextlib.suppress(OSError):
                        (folder / "stop").touch()
        except BaseException as exc:  # handed to the calling thread below
            failures.append(exc)

    try:
        if client is None and n_jobs > 1:
            # The kernels are compiled (or loaded) here before any worker starts: on a cold
            # cache the workers then load them from numba's cache instead of compiling them
            # side by side with job 0 (on 2 cores, twice the wait, past the time limit).
            parent_compile = _warm_plans(plans)
            # Job 0 runs here, in this process (started, kernels loaded), while the workers
            # start: the seconds a worker takes to start are not lost to the whole search.
            # run_jobs runs a lone job in this process; two slots make it a process pool,
            # which (spawn start method) starts workers on demand: one per job, never idle.
            background = threading.Thread(
                target=collect, args=(specs[1:], max(2, n_jobs - 1)), daemon=True
            )
            background.start()
            try:
                collect(specs[:1], 1)
                # collect() keeps job 0's Ctrl-C in failures: the workers must hear of it now
                # (a signal sent to this process alone does not reach them), not at their
                # time limit
                if any(isinstance(exc, KeyboardInterrupt) for exc in failures):
                    raise KeyboardInterrupt
            except BaseException:
                with contextlib.suppress(OSError):
                    (folder / "stop").touch()
                raise
            finally:
                # the workers stop by their own clock, at the stop file, or the monitor ends
                # them past the grace period
                while background.is_alive():
                    background.join(0.2)
        else:
            collect(specs, n_jobs)
        for exc in failures:
            if not (isinstance(exc, BrokenProcessPool) and overran.is_set()):
                raise exc
    except KeyboardInterrupt:
        interrupted = True
        time.sleep(0.3)  # let interrupted local jobs finish writing their progress files
    except BrokenProcessPool:
        raise InternalError("a worker process of the search died") from None
    finally:
        done.set()
        watcher.join(timeout=2)
        if client is not None and isinstance(scheduler, str):
            client.close()
    wall = time.perf_counter() - t0
    if interrupted or not results:
        results += [
            {
                "partial": p["best"],
                "search_score": p["best_score"],
                "search_depth": len(p["best"]),
                "deepest": p["deepest"],
                "solved": p["best_score"] == puzzle.n_joints,
                "exhausted": False,
                "counts": {"nodes": p["nodes"], "placements": p["placements"], "restarts": 0},
                "solve_seconds": p["seconds"],
                "compile_seconds": 0.0,
                "heat": None,
                "settings": {},
            }
            for p in read_progress()
        ]
    for f in folder.iterdir():
        with contextlib.suppress(OSError):
            f.unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()
    if not results and overran.is_set():
        # no worker got to search before the limit: a short search here, said in the note
        res = search(puzzle, clues, settings=st, time_limit=0.2, node_limit=node_limit, seed=seed)
        res.note = "no worker process started searching within the time limit"
        res.settings["jobs"] = n_jobs
        return res
    if not results:
        raise KeyboardInterrupt
    best = max(results, key=lambda o: (o["search_score"], o["deepest"]))
    partial = Board.empty(puzzle.rows, puzzle.cols)
    for r, c, k, rot in best["partial"]:
        partial.piece[r, c], partial.rotation[r, c] = k, rot
    board = complete_board(partial, puzzle, clues)
    final = model_score(board, puzzle)
    counts = {
        key: sum(int(o["counts"].get(key, 0)) for o in results)
        for key in ("nodes", "placements", "restarts")
    }
    heats = [np.array(o["heat"]) for o in results if o["heat"] is not None]
    settings_out = dict(best["settings"] or results[0]["settings"])
    settings_out["jobs"] = n_jobs
    events.finish(counts=counts)
    return EdgeSearchResult(
        # the jobs search side by side: the longest one is the search time
        solve_seconds=max(float(o["solve_seconds"]) for o in results),
        wall_seconds=wall,
        note=note,
        cpu_seconds=sum(float(o.get("cpu_seconds", 0.0)) for o in results),
        compile_seconds=max(parent_compile, *(o["compile_seconds"] for o in results)),
        counts=counts,
        puzzle=puzzle,
        board=board,
        partial=partial,
        score=final,
        search_score=int(best["search_score"]),
        search_depth=int(best["search_depth"]),
        deepest=max(int(o["deepest"]) for o in results),
        solved=final == puzzle.n_joints,
        exhausted=any(o["exhausted"] for o in results),
        interrupted=interrupted,
        heat=sum(heats) if heats else None,
        settings=settings_out,
    )
