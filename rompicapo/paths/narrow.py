"""Open paths and closed tours on boards with few rows (3 x n, 4 x n, n x 3, n x 4): an exact
decision.

A frontier dynamic programme over the columns (the "mate array" of Knuth's SIMPATH, over
vertices instead of edges): the board, its short side as rows, is swept cell by cell down each
column; the state is, for the few cells added but with neighbours still to come, whether each
has 0, 1 or 2 path edges and which one-edge cells are the two ends of one partial path (see
`rompicapo.paths._narrow_kernel`). Every reachable state is kept, so the answer is exact:
an open Hamiltonian path from the start exists if and only if a state that is one single path
survives the last cell; it is then read back through the parent pointers. Closed tours are
the same programme without a start: no cell may retire with one edge, and the one cycle may
close only at the last cell.

Long boards cost little more than short ones: a column's step depends only on the set of
states entering it and on the column's *type* (near the left edge, the start's offset in it,
or wholly before / wholly after the start, the last column). Sets are interned and column steps
memoised on (set, type), so columns that see the same set again (the sets become periodic a
few columns from the left edge and from the start: period 1 before the start, 2 after it, for
the knight on 4 x n) are looked up, not recomputed. The steps kept also serve later calls with
other starts and lengths (up to `MEMO_BYTES`).

Supports any symmetric move set whose moves that fit in the short side reach at most
`MAX_WINDOW` cells back in the sweep (knight: 7 on 3 rows, 9 on 4 rows; caselle: 9 and
12); the state count, not the board's length, is what limits it (knight: at most ~2,200 states
per cell on 3 rows, ~38,000 on 4 rows).

```pycon
>>> from rompicapo.paths.verify import verify_path
>>> res = narrow_path(4, 30, (0, 9))
>>> res.status, bool(verify_path(res.path, 4, 30, "knight", start=(0, 9)))
('found', True)
>>> narrow_path(3, 6, (1, 1)).status
'impossible'

```"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    check_memory,
    check_time_limit,
    renamed_keywords,
)
from rompicapo.paths import _narrow_kernel as _k
from rompicapo.paths.moves import MoveSet, parse_moves

__all__ = ["MAX_WINDOW", "MEMO_BYTES", "NarrowResult", "narrow_applies", "narrow_path"]

#: States hold 4 bits for each cell of the window, in an int64: at most 15 cells.
MAX_WINDOW = 15
#: Column steps kept between calls (parent pointers and choices of every state): above this
#: the memo is emptied before the next call.
MEMO_BYTES = 512 << 20
# Bytes per state a column step allocates: children (8), parents (4), choices (1) and the
# argsort's indices (8), for each edge subset tried; the kept layers, 5 per state and cell.
_STEP_BYTES = 21
_LAYER_BYTES = 5


@dataclass
class NarrowResult:
    """``status``: ``"found"`` (``path``: every cell once from the start, flat cells
    ``r * cols + c``), ``"impossible"`` (``proof`` says why) or ``"not found"`` (the time limit
    ran out first). ``counts``: ``states`` (the most states after one cell), ``columns``
    (column steps computed, the rest were looked up), ``profiles`` (distinct state sets)."""

    status: str
    path: np.ndarray | None = None
    proof: str = ""
    counts: dict[str, int] = field(default_factory=dict)


def _orient(rows: int, cols: int, mset: MoveSet) -> tuple[int, int, MoveSet, bool]:
    """(short side, long side, moves in the sweep's frame, transposed?): the sweep runs along
    the long side; a board with fewer columns than rows is swept along its rows."""
    if cols < rows:
        return cols, rows, mset.transposed(), True
    return rows, cols, mset, False


def _back_moves(short: int, mset: MoveSet) -> tuple[tuple[int, int], ...]:
    """The moves that fit in ``short`` rows and go to an earlier cell of the sweep."""
    back = (m for m in mset.moves if abs(m[0]) < short and (m[1] < 0 or (m[1] == 0 and m[0] < 0)))
    return tuple(sorted(back))


def _window(short: int, back: tuple[tuple[int, int], ...]) -> int:
    return max((-(dc * short + dr) for dr, dc in back), default=0)


def narrow_applies(rows: int, cols: int, moves: str | MoveSet = "knight") -> bool:
    """Whether `narrow_path()` takes this board and move set: its window (how far back in
    the sweep a move reaches) is at most `MAX_WINDOW` cells."""
    short, _, ms, _ = _orient(rows, cols, parse_moves(moves))
    back = _back_moves(short, ms)
    return _window(short, back) <= MAX_WINDOW


class _Profiles:
    """The interned state sets and memoised column steps of one (short side, moves)."""

    def __init__(self) -> None:
        self.sets: list[np.ndarray] = []
        self.by_content: dict[tuple[int, int], list[int]] = {}
        # (entering set, column type) -> step id; a step: entering set, leaving set, and the
        # parents and choices of each of its cells
        self.step_ids: dict[tuple[int, tuple], int] = {}
        self.steps: list[tuple[int, int, list[tuple[np.ndarray, np.ndarray]]]] = []
        self.bytes = 0

    def intern(self, states: np.ndarray) -> int:
        key = (len(states), hash(states.tobytes()))
        for i in self.by_content.get(key, ()):
            if np.array_equal(self.sets[i], states):
                return i
        self.sets.append(states)
        self.by_content.setdefault(key, []).append(len(self.sets) - 1)
        self.bytes += states.nbytes
        return len(self.sets) - 1


_MEMO: dict[tuple[int, tuple[tuple[int, int], ...], bool], _Profiles] = {}


def _profiles(short: int, back: tuple[tuple[int, int], ...], closed: bool) -> _Profiles:
    if sum(p.bytes for p in _MEMO.values()) > MEMO_BYTES:
        _MEMO.clear()
    return _MEMO.setdefault((short, back, closed), _Profiles())


def _column_type(c: int, long: int, short: int, s: int, w: int, reach: int) -> tuple:
    """What column ``c``'s step depends on besides its entering states: the left edge
    (``min(c, reach)``), where the start is relative to the column (``s - c * short``, or
    +-2^40 when the start is wholly ahead or wholly retired; a closed tour, ``s`` < 0, has no
    start), and whether it is the last."""
    first = c * short
    if s < 0:
        rel = -(1 << 40)
    elif s > first + short - 1:
        rel = 1 << 40  # the start is ahead
    elif s < first - w:
        rel = -(1 << 40)  # the start has retired before this column
    else:
        rel = s - first
    return (min(c, reach), rel, c == long - 1)


def _stretch_end(ctype: tuple, long: int, short: int, s: int, reach: int) -> int:
    """The last column of the run of columns that share ``ctype`` (wholly before or wholly
    after the start, off the left edge, not the last column), or -1 for other types."""
    left_edge, rel, last = ctype
    if last or left_edge < reach:
        return -1
    if rel > 0 and abs(rel) == 1 << 40:
        return min(long - 2, (s - short) // short)  # c * short + short - 1 < s
    if rel < 0 and abs(rel) == 1 << 40:
        return long - 2
    return -1


def check_plan_memory(long: int) -> None:
    """Raise [`InsufficientMemoryError`][rompicapo.common.InsufficientMemoryError] when the column
    plan of a board ``long`` columns long (one int32 step id per column) would not fit in memory."""
    check_memory(long * 4, f"the column plan of a board {long:,} columns long")


def _seconds_left(deadline: Deadline) -> float | None:
    """An earlier release's ``deadline=`` as the seconds of ``time_limit=``."""
    return None if deadline.time_limit is None else max(1e-3, deadline.remaining())


@renamed_keywords(deadline=("time_limit", _seconds_left))
def narrow_path(
    rows: int,
    cols: int,
    start: tuple[int, int],
    moves: str | MoveSet = "knight",
    *,
    closed: bool = False,
    time_limit: float | None = None,
) -> NarrowResult:
    """Decide whether an open path through every cell of ``rows x cols`` from ``start``
    exists (with ``closed``: a closed tour, read from ``start``), and return one if it does
    (see the module's docstring).

    Exact: ``"impossible"`` only when no path exists, ``"found"`` with a path the caller can check
    with [`verify_path()`][rompicapo.paths.verify_path]; ``"not found"`` only when ``time_limit``
    seconds ran out first. Raises [`InputError`][rompicapo.common.InputError] when the board or
    moves are out of scope (`narrow_applies()`), and
    [`InsufficientMemoryError`][rompicapo.common.InsufficientMemoryError] before a step whose arrays
    would not fit.
    """
    mset = parse_moves(moves)
    deadline = Deadline(check_time_limit(time_limit))
    rows, cols = int(rows), int(cols)
    r0, c0 = int(start[0]), int(start[1])
    if not (rows >= 1 and cols >= 1 and 0 <= r0 < rows and 0 <= c0 < cols):
        raise InputError(f"start ({r0}, {c0}) is not on the {rows}x{cols} board")
    if not narrow_applies(rows, cols, mset):
        raise InputError(
            f"the column-profile search takes boards whose moves reach at most {MAX_WINDOW} "
            f"cells back along the short side; {rows}x{cols} with {mset.name} does not"
        )
    short, long, ms, transposed = _orient(rows, cols, mset)
    sr, sc = (c0, r0) if transposed else (r0, c0)
    back = _back_moves(short, ms)
    if _window(short, back) == 0:  # no move fits across the short side: no edge at all
        if rows * cols == 1 and not closed:
            return NarrowResult("found", path=np.zeros(1, np.int64))
        return NarrowResult(
            "impossible", proof=f"no {mset.name} move fits on a board {short} cells wide"
        )
    # whatever the answer, the sweep keeps one step id (int32) per column: refuse before the
    # work a board whose plan alone would not fit (reading a path back checks its own need)
    check_plan_memory(long)
    sweep = _Sweep(short, long, back, sc * short + sr, closed, deadline)
    if not sweep.run():
        return NarrowResult("not found", counts=sweep.counts)
    counts = sweep.counts
    used = np.concatenate([*sweep.filled, np.array(sweep.listed, np.int32)])
    final = sweep.prof.sets[sweep.cur]
    done = len(used) == long and len(final) > 0
    i = _k.accepting(final, sweep.w, closed) if done else -1
    if i < 0:
        where = f" (none left after column {len(used) - 1})" if len(used) < long else ""
        what = "tour" if closed else "path from the start"
        return NarrowResult(
            "impossible",
            proof=(
                f"exhaustive search over the column profiles: every partial {what}, swept "
                f"column by column ({counts['states']:,} states at most, "
                f"{counts['profiles']} distinct sets of them){where}, and none completes"
            ),
            counts=counts,
        )
    # sweep index c * short + r is the transposed board's flat cell r * cols + c
    path = _read_back(
        sweep.prof, used, int(i), short, sweep.s, sweep.bdr, sweep.bdc, sweep.n,
        0 if transposed else cols,
    )  # fmt: skip
    return NarrowResult("found", path=path, counts=counts)


class _Sweep:
    """The column-by-column programme over a board ``short`` cells wide and ``long`` columns
    long, in the sweep's frame (``s``: the start's sweep index); its column steps are
    memoised in ``prof`` for every board of that width and move set."""

    def __init__(self, short, long, back, s, closed, deadline: Deadline) -> None:
        self.short, self.long, self.s, self.closed, self.deadline = short, long, s, closed, deadline
        self.w = w = _window(short, back)
        self.reach = max(-dc for _, dc in back)
        self.bdr = np.array([m[0] for m in back], np.int64)
        self.bdc = np.array([m[1] for m in back], np.int64)
        self.n = short * long
        # a closed tour's programme has no start: its steps serve every start
        self.s_dp = -1 if closed else s
        self.prof = _profiles(short, back, closed)
        self.nsub = 1 + len(back) + len(back) * (len(back) - 1) // 2
        self.cur = self.prof.intern(
            np.array([sum(_k.INSIDE << (4 * i) for i in range(w))], np.int64)
        )
        # the step id of each column: arrays for the stretches filled by period, a list for
        # the columns visited one by one since the last stretch (from column ``listed_from``)
        self.filled: list[np.ndarray] = []
        self.listed: list[int] = []
        self.listed_from = 0
        self.counts = {"states": 0, "columns": 0, "profiles": 0}
        self.seen_sets = {self.cur}
        self.regime: tuple = ()
        self.first_seen: dict[int, int] = {}  # entering set -> first column in the regime

    def run(self) -> bool:
        """Sweep every column (or until no state is left); False when the time ran out."""
        prof, c = self.prof, 0
        while c < self.long:
            ctype = _column_type(c, self.long, self.short, self.s_dp, self.w, self.reach)
            end = _stretch_end(ctype, self.long, self.short, self.s_dp, self.reach)
            if end > c:
                if self._repeats(c, end, ctype):
                    c = end + 1
                    continue
                self.first_seen[self.cur] = c
            key = (self.cur, ctype)
            if key not in prof.step_ids and not self._step(key, c):
                return False
            step_id = prof.step_ids[key]
            self.listed.append(step_id)
            self.cur = prof.steps[step_id][1]
            self.seen_sets.add(self.cur)
            c += 1
            if len(prof.sets[self.cur]) == 0:
                break
        self.counts["profiles"] = len(self.seen_sets)
        self.counts["states"] = max(len(prof.sets[x]) for x in self.seen_sets)
        return True

    def _repeats(self, c: int, end: int, ctype: tuple) -> bool:
        """In a stretch of columns of one type, once an entering set comes back the columns
        repeat with that period to the stretch's end (no need to visit them one by one): fill
        columns ``c .. end`` so and return True; False when the set is new."""
        if ctype != self.regime:
            self.regime, self.first_seen = ctype, {}
        if self.cur not in self.first_seen:
            return False
        c_first = self.first_seen[self.cur]
        period = c - c_first
        left = end - c + 1
        listed, listed_from = self.listed, self.listed_from
        pattern = np.array(listed[c_first - listed_from : c - listed_from], np.int32)
        repeats = np.tile(pattern, -(-left // period))[:left]
        self.filled += [np.array(listed, np.int32), repeats]
        if left % period:
            self.cur = self.prof.steps[int(pattern[left % period])][0]
        self.listed, self.listed_from = [], end + 1
        return True

    def _step(self, key: tuple, c: int) -> bool:
        """Compute column ``c``'s step from the entering set (cell by cell, a layer of parent
        pointers and choices each) and memoise it; False when the time ran out first."""
        prof, short = self.prof, self.short
        layers = []
        states = prof.sets[self.cur]
        for r in range(short):
            need = len(states) * (self.nsub * _STEP_BYTES + short * _LAYER_BYTES)
            if need > 64 << 20:
                check_memory(need, f"a column step of {len(states):,} states")
            if self.deadline.expired():
                most = max(len(prof.sets[x]) for x in self.seen_sets | {self.cur})
                self.counts["states"] = max(most, len(states))
                self.counts["profiles"] = len(self.seen_sets)
                return False
            v = c * short + r
            states, par, cho = _k.step(
                states, v, r, c, self.s_dp, v == self.n - 1, self.w, self.bdr, self.bdc, short,
                self.closed,
            )  # fmt: skip
            layers.append((par, cho))
            prof.bytes += par.nbytes + cho.nbytes
        prof.step_ids[key] = len(prof.steps)
        prof.steps.append((self.cur, prof.intern(states), layers))
        self.counts["columns"] += 1
        return True


def _read_back(prof, used, final, short, s, bdr, bdc, n, board_cols) -> np.ndarray:
    """The path from the parent pointers of the columns' steps (``used``: the step id of each
    column; shared steps stored once)."""
    present = np.zeros(len(prof.steps), np.bool_)
    present[used] = True
    steps = np.flatnonzero(present)
    step_of_column = (np.cumsum(present) - 1)[used]
    chunks_p, chunks_c, offsets = [], [], []
    total = 0
    for sid in steps:
        for par, cho in prof.steps[int(sid)][2]:
            offsets.append(total)
            chunks_p.append(par)
            chunks_c.append(cho)
            total += len(par)
    step_of_column = step_of_column.astype(np.int32)
    # the layers joined, then per cell: a layer id (4), a choice (1), the path (8), two
    # neighbours (16)
    check_memory(total * _LAYER_BYTES + n * 29, f"reading back a path of {n:,} cells")
    # cell c * short + r reads layer (step id) * short + r
    layer = (step_of_column[:, None] * short + np.arange(short, dtype=np.int32)).ravel()
    parent = np.concatenate(chunks_p)
    choice = np.concatenate(chunks_c)
    choices = _k.backtrack(final, parent, choice, np.array(offsets, np.int64), layer)
    path = _k.edges_to_path(choices, short, s, bdr, bdc, board_cols)
    if len(path) != n:  # the programme's own invariant: an accepted state is one whole path
        raise AssertionError(f"column profiles read back {len(path)} of {n} cells")
    return path


def warm_up() -> None:
    """Compile (or load from cache) the kernels on a tiny board."""
    narrow_path(3, 4, (0, 0))
