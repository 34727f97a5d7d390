"""Blackwood's search, part 1: the plan, everything fixed for a puzzle, its clues and settings.

Fill orders (`fill_order()`), the quota and break schedules (`quota_schedule()`,
`break_schedule()`), the heuristic colours (`heuristic_colours()`), the search's
parameters ([`Settings`][rompicapo.edges.Settings]) and their product, `Plan` (`make_plan()`).
See `rompicapo.edges.blackwood` for the algorithm; the constants are Blackwood's
(reference ``blackwood-algorithm.md``) unless said otherwise.

All positions and rows here are in the data files' convention (row 0 = top) except inside the
fill-order builders, which think as Blackwood does, from the bottom row up.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rompicapo.common import InputError, check_int, renamed_keywords
from rompicapo.edges.blackwood_holdback import default_release, held_types
from rompicapo.edges.puzzle import Board, Puzzle, rule_problems

__all__ = [
    "ANY",
    "BLACKWOOD_BREAK_INDEXES",
    "BLACKWOOD_HEURISTIC_COLOURS",
    "BLACKWOOD_HEURISTIC_SIDES",
    "BLACKWOOD_MAX_QUOTA_INDEX",
    "BLACKWOOD_NODE_CAP",
    "BREAKS",
    "BUCAS_BREAK_INDEXES",
    "CLUE_BREAK_INDEXES",
    "CLUE_QUOTA_SCALE",
    "KERNELS",
    "MAX_CELLS",
    "ORDERS",
    "PORTFOLIO",
    "PORTFOLIO_FIRST_CAP",
    "QUOTAS",
    "SCORE_BREAK_INDEXES",
    "SCORE_EXTRA_BREAKS",
    "VALUE_ORDERS",
    "Plan",
    "Settings",
    "blackwood_quota",
    "break_schedule",
    "check_puzzle",
    "fill_order",
    "heuristic_colours",
    "make_plan",
    "quota_schedule",
    "spare_copies",
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
# A score hunt's breaks: Blackwood's ten, then SCORE_EXTRA_BREAKS more past his last one. His
# schedule is made for 470 (a complete board with ten breaks); past position 239 it allows none,
# so his search almost never completes a board (at depth 250 it placed 15 pieces per CPU hour
# here) and its boards end in a greedy fill of the last cells. Allowing breaks near the end
# lets it complete boards at once, and with `Settings.stop_at_complete` off it goes on for
# complete boards with fewer breaks. The positions are chosen by measurement (see
# benchmarks/edges_breaks.py).
SCORE_EXTRA_BREAKS = (241, 243, 245, 247, 249, 251, 253, 255)
SCORE_BREAK_INDEXES = BLACKWOOD_BREAK_INDEXES + SCORE_EXTRA_BREAKS
# Nodes per run before a restart with new tie-breaks (his constant; ~1 h per run at his speed).
BLACKWOOD_NODE_CAP = 5 * 10**10


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
BREAKS = ("auto", "blackwood", "bucas", "clues", "score", "scaled", "none")
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

    ``"blackwood"``: his ten indexes 201..239 (256 cells); ``"bucas"``: Bucas's JB470 ten, 197..238;
    ``"clues"``: fifteen from 150 on (256 cells, for Eternity II with all five clues); ``"score"``:
    his ten and ``SCORE_EXTRA_BREAKS`` near the end (256 cells, a score hunt); ``"scaled"``:
    Blackwood's at the same fractions of ``n_cells``; ``"none"``: no breaks (perfect boards only);
    or a list of indexes.
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
        elif kind == "score":
            if n_cells != 256:
                raise InputError("the score hunt's breaks are for 256 cells; use 'scaled'")
            idx = SCORE_BREAK_INDEXES
        elif kind == "scaled":
            idx = [round(p * n_cells / 256) for p in BLACKWOOD_BREAK_INDEXES]
        else:
            raise InputError(f"breaks must be one of {', '.join(BREAKS[1:])}, got {kind!r}")
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
    """The fill order: ``"auto"``, ``"blackwood"``, ``"rows"``, ``"frame"``, ``"diagonal"`` or
    ``"portfolio"`` (several, restart by restart)."""
    # "auto", "blackwood", "scaled", "none", or a curve (one int per position of the fill
    # order: heuristic sides required once it is filled; see quota_schedule)
    quota: str | tuple[int, ...] = "auto"
    """Heuristic sides required along the fill order: ``"auto"``, ``"blackwood"``, ``"scaled"``,
    ``"none"``, or a curve of one integer per position."""
    breaks: str | tuple[int, ...] = "auto"
    """Where mismatches ("breaks") are allowed: ``"auto"``, ``"blackwood"``, ``"bucas"``,
    ``"clues"``, ``"score"``, ``"scaled"``, ``"none"``, or the positions themselves."""
    heuristic: tuple[int, ...] | None = None
    """The prioritised colours (None: the puzzle's own, Blackwood's on Eternity II)."""
    # nodes per run before a restart with new tie-breaks (Settings(node_cap=...) in earlier
    # releases, still accepted with a DeprecationWarning)
    restart_nodes: int = BLACKWOOD_NODE_CAP
    """Nodes per run before a restart with new tie-breaks."""
    quota_scale: float | None = None  # multiplies the quota (below 1: looser); None = auto
    """Multiplies the quota (below 1: looser); None chooses by the puzzle."""
    # Candidate order of a perfect-board search (no quota, no breaks): "fail-first" runs the
    # exact kernel (forward checking; candidates leaving the next cell fewest options first),
    # "table" Blackwood's kernel (the tables' order). Measured here, row scan, median nodes to
    # the first perfect board, fail-first / table: Brendan 5x5 0.36 (100 seeds), 6x6 0.35
    # (100 seeds), clue puzzle 1 0.10 (20 seeds); the exact kernel does ~0.65x the nodes per
    # CPU second (Brendan 8x8: 44-46 M vs 68 M).
    value_order: str = "fail-first"
    """Candidate order of a perfect-board search: ``"fail-first"`` (the exact kernel, fewest options
    next first) or ``"table"`` (Blackwood's tables' order)."""
    # How the walking search runs on boards of MACHINE_CELLS cells or more: "machine", the
    # plan's compiled machine (x1.24 on Eternity II; 13 s to compile once per plan shape, then
    # cached); "plain", the kernel every plan shares (no compilation); "auto", the machine when
    # it is compiled already or the search may run long enough to repay compiling it (see
    # MACHINE_MIN_SECONDS). Same nodes and boards either way.
    kernel: str = "auto"
    """How the search runs on big boards: ``"machine"`` (the plan's compiled machine), ``"plain"``
    (the shared kernel) or ``"auto"``; the same nodes and boards either way."""
    # Verhaard's end game (rompicapo.edges.blackwood_holdback): this many of the best-tiling
    # interior pieces are kept off every position of the fill order before holdback_release
    # (None: the last three rows' worth of positions). 0: off, the tables as without it.
    holdback: int = 0
    """Verhaard's end game: this many of the best-tiling interior pieces kept off the board until
    ``holdback_release`` (0: off)."""
    holdback_release: int | None = None
    """The position of the fill order from which the held-back pieces may be placed (None: the last
    three rows' worth)."""
    # A complete board with breaks ends the search (True: Blackwood's rule, his breaks allowing
    # 470 and nothing less) or the search goes on from it for complete boards with fewer breaks
    # (False: a score hunt's rule; only a perfect board ends it).
    stop_at_complete: bool = True
    """True: a complete board with breaks ends the search (Blackwood's rule); False: it goes on for
    complete boards with fewer breaks."""

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
            self,
            "restart_nodes",
            check_int(self.restart_nodes, "restart_nodes", minimum=1, maximum=10**18),
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
        if not isinstance(self.stop_at_complete, bool):
            raise InputError(
                f"stop_at_complete must be True or False, got {self.stop_at_complete!r}"
            )
        object.__setattr__(
            self, "holdback", check_int(self.holdback, "holdback", minimum=0, maximum=MAX_CELLS)
        )
        if self.holdback_release is not None:
            if not self.holdback:  # a release of nothing: the user meant to hold pieces back
                raise InputError("holdback_release needs holdback (how many pieces to hold back)")
            object.__setattr__(
                self,
                "holdback_release",
                check_int(
                    self.holdback_release, "holdback_release", minimum=0, maximum=MAX_CELLS - 1
                ),
            )

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
            restart_nodes=self.restart_nodes,
            quota_scale=scale if self.quota_scale is None else self.quota_scale,
            value_order=self.value_order,
            kernel=self.kernel,
            holdback=self.holdback,
            holdback_release=(
                default_release(puzzle.rows, puzzle.cols)
                if self.holdback and self.holdback_release is None
                else self.holdback_release
            ),
            stop_at_complete=self.stop_at_complete,
        )

    @property
    def node_cap(self) -> int:
        """The earlier name of `restart_nodes` (deprecated)."""
        warnings.warn(
            "Settings.node_cap is now Settings.restart_nodes", DeprecationWarning, stacklevel=2
        )
        return self.restart_nodes


# Settings(node_cap=...) of earlier releases: restart_nodes, with a DeprecationWarning.
Settings.__init__ = renamed_keywords(node_cap="restart_nodes")(Settings.__init__)  # type: ignore[method-assign]


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
    # per piece: held back from the positions before the release (Settings.holdback), or None
    held: np.ndarray | None = None


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
    may_hold = (heur == 0) if quota.any() else np.ones(len(heur), dtype=bool)
    held = _hold_back(puzzle, clues, st, order, piece_type, copies, specs, may_hold)
    return Plan(
        puzzle, clues, st, order, pos_left, pos_below, pos_above, pos_right, checked,
        quota, allow, joints, specs, heur, piece_type, type_turn, copies, exact, held=held,
    )  # fmt: skip


def spare_copies(clues: Board, piece_type: np.ndarray, copies: np.ndarray) -> np.ndarray:
    """Per piece type (the index of its first piece): the copies left beside the clues."""
    spare = copies.copy()
    for _, _, k, _ in clues.placements():
        spare[piece_type[k]] -= 1
    return spare


def _hold_back(
    puzzle: Puzzle,
    clues: Board,
    st: Settings,
    order: np.ndarray,
    piece_type: np.ndarray,
    copies: np.ndarray,
    specs: list[tuple],
    may_hold: np.ndarray,
) -> np.ndarray | None:
    """The held pieces of ``Settings.holdback`` (None when off), chosen among the free interior
    pieces that ``may_hold`` allows; marks the specs of the free cells before the release
    ``"held"``, so that their tables leave those pieces out.

    With a quota, pieces with a side in a heuristic colour are never held: the quota wants
    nearly all those sides placed early (Blackwood's, 119 of Eternity II's 122 by position
    160), and holding even two such pieces stopped every search at depth 143-148 (30 s, seeds
    0-1, holdback 16: search score 261-270 instead of 454)."""
    if not st.holdback:
        return None
    n = len(order)
    release = st.holdback_release
    assert release is not None  # resolved
    if release >= n:
        raise InputError(f"holdback_release must be a position 0..{n - 1}, got {release}")
    spare = spare_copies(clues, piece_type, copies)
    interior = (puzzle.pieces != 0).all(axis=1)
    held = held_types(
        puzzle,
        st.holdback,
        interior & may_hold & (piece_type == np.arange(len(copies))) & (spare > 0),
    )
    rows, cols = puzzle.rows, puzzle.cols
    late = [
        i
        for i in range(release, n)
        if specs[i][0] == "cell"
        and 0 < order[i] // cols < rows - 1
        and 0 < order[i] % cols < cols - 1
    ]
    if int(spare[held].sum()) > len(late):
        raise InputError(
            f"holdback {st.holdback} leaves more pieces than the {len(late)} free inner cells "
            f"from position {release} on; hold back fewer or release earlier"
        )
    for i in range(release):
        if specs[i][0] == "cell":
            specs[i] = (*specs[i], "held")
    return held


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


def check_puzzle(puzzle: object) -> Puzzle:
    """``puzzle`` itself when it is a [`Puzzle`][rompicapo.edges.Puzzle]; else an InputError."""
    if not isinstance(puzzle, Puzzle):
        raise InputError(f"puzzle must be a Puzzle, got {type(puzzle).__name__}")
    return puzzle
