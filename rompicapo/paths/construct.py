"""construct(): one path through every cell of an R x C board, for any start and leaper.

The search is Warnsdorff's rule with Pósa rotations (the kernel in ``_kernel.py``) under a
restart policy that removes the heavy tail of the plain greedy walk:

- an *attempt* may spend a budget of rotation work (cells moved by reversals);
- when it is spent (or no rotation exists), the last ``m`` cells are taken off the path and
  regrown with fresh randomness: a new move order, and a tie-break centre moved by a few cells,
  which changes which of two equal-degree cells Warnsdorff's rule takes;
- ``m`` follows Luby's sequence (1, 1, 2, 1, 1, 2, 4, ...) times a base, so short regrowths
  are tried often and long ones (up to a full restart) now and then: Luby, Sinclair and
  Zuckerman (1993) show this schedule is within a log factor of the best fixed cutoff, without
  knowing the run-time distribution.

Measured on 1000x1000 (seeds 0..299): without the policy, 2 seeds in 300 needed 10^5+
rotations and a minute or two; every stuck run was one free cell short of done, the end
random-walking in search of its only neighbour. See ``benchmarks/paths_tail.py``.

Proofs: when the search gives up, the board is small enough and ``prove`` is on, an
exhaustive search (``rompicapo.paths.count.search_path``) decides: "impossible" is only said
with that proof, or with a colouring argument for bipartite move sets (a knight's path
alternates colours, so on a board with more dark than light cells it must start on a dark one).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rompicapo.common import (
    InputError,
    SearchResult,
    Stopwatch,
    check_memory,
    format_bytes,
    jit_warmup,
    peak_rss_bytes,
)
from rompicapo.paths import _kernel
from rompicapo.paths.moves import MoveSet, parse_moves

__all__ = [
    "EXHAUSTIVE_CELLS",
    "TIE_BREAKS",
    "PathResult",
    "construct",
    "kernel_bytes_per_cell",
    "parse_cell",
    "parse_size",
]

TIE_BREAKS = {
    "centre": _kernel.TIE_CENTRE,
    "order": _kernel.TIE_ORDER,
    "random": _kernel.TIE_RANDOM,
}

# Boards up to this many cells get an exhaustive search when the greedy search gives up:
# the exhaustive kernel settles any such board in well under a second in the cases measured
# (5x7 from any start, 6x6, 4xN); above, a proof could take hours and is left to `count`.
EXHAUSTIVE_CELLS = 42

# Budget of rotation work per attempt, in cells moved by reversals: a fraction of the board
# (rotations at a dead end reverse suffixes, so the work, not the count, is what costs), and at
# least enough for the few hundred short rotations a typical board needs.
WORK_PER_CELL = 0.5
MIN_WORK = 1 << 16

# Regrowth length base: about sqrt(n) cells, so on 10^6 cells the first regrowths redo ~1000
# cells (~30 us) and the Luby schedule reaches a full restart after a few dozen attempts.
MIN_REGROW = 64

# Progress: the kernel is called in chunks of this many cells, so a progress bar can move and
# Ctrl-C can be honoured between chunks (a chunk takes well under a second).
CHUNK_CELLS = 1 << 24

INT32_CELLS = 2**31 - 1


def kernel_bytes_per_cell(cells: int) -> int:
    """Bytes per cell of the constructor's arrays: 9 with 32-bit indices, 17 with 64-bit."""
    return 1 + 2 * (4 if cells <= INT32_CELLS else 8)


def _luby(i: int) -> int:
    """The i-th term (i >= 1) of Luby's sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...

    t(i) = 2^(k-1) if i = 2^k - 1, else t(i - 2^(k-1) + 1) where 2^(k-1) <= i < 2^k - 1.
    """
    while True:
        k = i.bit_length()
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


# --------------------------------------------------------------------------------------------
# Parsing helpers shared by the CLI and the API
# --------------------------------------------------------------------------------------------


def parse_size(text: str | int | tuple[int, int]) -> tuple[int, int]:
    """``"10"`` -> (10, 10); ``"5x7"`` -> (5, 7); also accepts an int or a pair."""
    if isinstance(text, tuple):
        rows, cols = text
    elif isinstance(text, int):
        rows = cols = text
    else:
        t = str(text).strip().lower()
        parts = t.split("x")
        if len(parts) not in (1, 2) or not all(p.strip().lstrip("+").isdigit() for p in parts):
            raise InputError(f"bad board size {text!r}: write N or RxC with positive integers")
        rows = int(parts[0])
        cols = int(parts[-1])
    if not (isinstance(rows, int | np.integer) and isinstance(cols, int | np.integer)):
        raise InputError(f"bad board size {text!r}: write N or RxC with positive integers")
    if rows < 1 or cols < 1:
        raise InputError(f"bad board size {text!r}: rows and columns must be at least 1")
    return int(rows), int(cols)


def parse_cell(text: str | tuple[int, int] | int, rows: int, cols: int) -> tuple[int, int]:
    """``"R,C"`` (0-based), a pair, or a flat index -> (r, c) checked to be on the board."""
    if isinstance(text, str):
        parts = text.replace(" ", "").split(",")
        try:
            r, c = (int(p) for p in parts)
        except ValueError:
            raise InputError(f"bad cell {text!r}: write R,C (0-based row and column)") from None
    elif isinstance(text, int | np.integer):
        if not 0 <= text < rows * cols:
            raise InputError(f"cell index {text} is outside the {rows}x{cols} board")
        r, c = divmod(int(text), cols)
    else:
        try:
            r, c = (int(v) for v in text)
        except (TypeError, ValueError):
            raise InputError(f"bad cell {text!r}: give (row, col)") from None
    if not (0 <= r < rows and 0 <= c < cols):
        raise InputError(
            f"start ({r}, {c}) is outside the {rows}x{cols} board "
            f"(rows 0..{rows - 1}, columns 0..{cols - 1})"
        )
    return r, c


# --------------------------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------------------------


@dataclass
class PathResult(SearchResult):
    """A path search's answer.

    ``status`` is ``"found"`` (``path`` holds every cell once, from ``start``), ``"impossible"``
    (no such path exists, and ``proof`` says how that was shown), ``"not found"`` (the search
    gave up without a proof) or ``"interrupted"`` (Ctrl-C; ``path`` holds the partial path).
    """

    rows: int = 0
    cols: int = 0
    start: tuple[int, int] = (0, 0)
    moves: MoveSet = field(default_factory=lambda: parse_moves("caselle"))
    closed: bool = False
    seed: int | None = None
    method: str = "greedy"
    status: str = "not found"
    path: np.ndarray | None = None
    proof: str = ""
    rotations: int = 0
    restarts: int = 0

    @property
    def found(self) -> bool:
        return self.status == "found"

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    def grid(self) -> np.ndarray:
        """The R x C array of step numbers (1 = start), as written on paper."""
        from rompicapo.paths.render import step_grid

        if self.path is None or len(self.path) != self.cells:
            raise InputError("no complete path to show")
        return step_grid(self.path, self.rows, self.cols)

    def verify(self) -> bool:
        """Check the path with the independent verifier (False when there is no path)."""
        return bool(self.check()) if self.found else False

    def check(self):
        """The verifier's full verdict (a PathCheck with the reason of a failure)."""
        from rompicapo.paths.verify import verify_path

        return verify_path(
            self.path if self.path is not None else np.empty(0, np.int64),
            self.rows,
            self.cols,
            self.moves,
            start=self.start,
            closed=self.closed,
        )

    def summary(self, verified: bool | None = None) -> dict[str, Any]:
        """The fields of ``rompicapo path --json``."""
        return {
            "rows": self.rows,
            "cols": self.cols,
            "start": list(self.start),
            "moves": self.moves.spec,
            "closed": self.closed,
            "method": self.method,
            "seed": self.seed,
            "found": self.found,
            "status": self.status,
            "verified": self.verify() if verified is None else verified,
            "proof": self.proof,
            "rotations": self.rotations,
            "restarts": self.restarts,
            "solve_seconds": round(self.solve_seconds, 6),
            "compile_seconds": round(self.compile_seconds, 6),
            "peak_bytes": self.peak_bytes,
        }


# --------------------------------------------------------------------------------------------
# The search
# --------------------------------------------------------------------------------------------


def _warm_kernels() -> None:
    """Compile (or load from cache) the kernels with the signatures construct() uses."""
    dr, dc = parse_moves("caselle").arrays()
    for itype in (np.int32, np.int64):
        _run_tiny(dr, dc, itype)
        _kernel.board_structure(3, 3, dr, dc, 0, np.empty(9, itype), np.zeros(9, np.uint8))


def _run_tiny(dr: np.ndarray, dc: np.ndarray, itype: type) -> None:
    rows = cols = 6
    n = rows * cols
    state = np.empty(n, np.uint8)
    path = np.empty(n, itype)
    pos = np.empty(n, itype)
    _kernel.init_state(rows, cols, dr, dc, state)
    _kernel.visit_cell(rows, cols, dr, dc, state, 0)
    path[0] = 0
    pos[0] = 0
    drt, dct, offt = _move_tuples(dr, dc, cols)
    plen, *_ = _kernel.extend_path(
        rows, cols, dr, dc, drt, dct, offt, state, path, pos, 1, n, False, 1000,
        np.uint64(1), _kernel.TIE_CENTRE, rows - 1, cols - 1,
    )  # fmt: skip
    _kernel.truncate_path(rows, cols, dr, dc, state, path, pos, plen, 1)


def _move_tuples(dr: np.ndarray, dc: np.ndarray, cols: int) -> tuple[tuple, tuple, tuple]:
    """Moves as tuples: the kernel specialises on their length and unrolls the scan."""
    return (
        tuple(int(x) for x in dr),
        tuple(int(x) for x in dc),
        tuple(int(a) * cols + int(b) for a, b in zip(dr, dc, strict=True)),
    )


def _lattice_obstruction(moves: MoveSet) -> str:
    """The moves generate a sublattice of Z^2; if it is not all of Z^2, cells in different
    cosets are never joined, and every board of 2+ cells has cells in two cosets (one of
    (0, 0), (0, 1), (1, 0) lies outside a proper sublattice)."""
    g = 0
    ms = moves.moves
    for i in range(len(ms)):
        for j in range(i + 1, len(ms)):
            g = math.gcd(g, abs(ms[i][0] * ms[j][1] - ms[i][1] * ms[j][0]))
    if g == 1:
        return ""
    return (
        f"the {moves.name} moves reach only 1 cell in {g} of the plane (their lattice has "
        f"index {g}), so the board's cells fall apart into unconnected classes"
    )


# Boards up to this many cells get the O(cells) connectivity and dead-end check before the
# search (a few ms per million cells; above, the check is skipped, never wrong).
STRUCTURE_CELLS = 50_000_000


def _structure_obstruction(rows, cols, start_flat, dr, dc, queue, seen) -> str:
    reached, leaves, start_leaf = _kernel.board_structure(
        rows, cols, dr, dc, start_flat, queue, seen
    )
    n = rows * cols
    if reached < n:
        return (
            f"only {reached} of the {n} cells can be reached from the start "
            f"(the move graph is not connected)"
        )
    # A cell with one neighbour must be an end of the path; the start is one end already.
    free_ends = leaves - (1 if start_leaf else 0)
    if n > 2 and free_ends > 1:
        return (
            f"{leaves} cells have a single neighbour and each must be an end of the path, "
            f"but a path from the given start has only one more end"
        )
    return ""


def _colour_obstruction(rows: int, cols: int, start: tuple[int, int], moves: MoveSet, closed: bool):
    """For a move set whose moves all change r + c by an odd amount, a path alternates the two
    colours of the chessboard colouring: return why no path can exist, or ''."""
    if not all((dr + dc) % 2 for dr, dc in moves.moves):
        return ""
    n = rows * cols
    even = (n + 1) // 2  # cells with (r + c) even: the colour of (0, 0)
    odd = n // 2
    start_even = (start[0] + start[1]) % 2 == 0
    if closed and n > 1 and even != odd:
        return (
            f"every {moves.name} move changes the colour of the cell; a closed tour alternates "
            f"colours, but this board has {even} cells of one colour and {odd} of the other"
        )
    if even > odd and not start_even:
        return (
            f"every {moves.name} move changes the colour of the cell, so a path alternates "
            f"colours; this board has {even} cells of the colour of (0, 0) and {odd} of the "
            f"other, so a path must start on the colour of (0, 0), and ({start[0]}, {start[1]}) "
            f"is not"
        )
    return ""


def construct(
    rows: int,
    cols: int | None = None,
    start: tuple[int, int] | str | int = (0, 0),
    moves: str | MoveSet = "caselle",
    *,
    closed: bool = False,
    seed: int | None = None,
    tie_break: str = "centre",
    max_attempts: int | None = None,
    time_limit: float | None = None,
    prove: bool = True,
    progress: bool = False,
) -> PathResult:
    """Find a path through every cell of a ``rows`` x ``cols`` board from ``start``.

    Args:
        rows, cols: the board (``cols`` defaults to ``rows``).
        start: the first cell, ``(r, c)`` 0-based, ``"r,c"`` or a flat index.
        moves: ``"caselle"`` (default), ``"knight"``, ``"DR,DC;..."`` or a :class:`MoveSet`.
        closed: ask for a closed tour (the last cell one move from the first).
        seed: makes the run reproducible (the same seed gives the same path); ``None`` = 0.
        tie_break: Warnsdorff's tie-break: ``"centre"`` (farthest from the centre, default),
            ``"order"`` (first in the seeded move order) or ``"random"``.
        max_attempts: give up after this many regrowths (default: 64 + 4 log2(cells)).
        time_limit: give up after this many seconds of search.
        prove: on small boards (<= 42 cells), settle a failure by exhaustive search.
        progress: show a progress bar on stderr (worth it above ~10^8 cells).

    Returns a :class:`PathResult`; ``status`` says whether a path was found, shown impossible,
    not found, or interrupted. Raises :class:`~rompicapo.common.InputError` for a bad size,
    start or move set, and :class:`~rompicapo.common.InsufficientMemoryError` when the arrays
    would not fit in the memory available (checked before allocating).
    """
    if cols is None:
        cols = rows
    rows, cols = parse_size((rows, cols))
    r0, c0 = parse_cell(start, rows, cols)
    mset = parse_moves(moves)
    if tie_break not in TIE_BREAKS:
        raise InputError(f"unknown tie-break {tie_break!r}: use one of {', '.join(TIE_BREAKS)}")
    seed = 0 if seed is None else int(seed)
    if seed < 0:
        raise InputError(f"seed must be >= 0, got {seed}")
    n = rows * cols
    result = PathResult(rows=rows, cols=cols, start=(r0, c0), moves=mset, closed=closed, seed=seed)
    if len(mset) > 16:
        raise InputError(f"the constructor takes at most 16 moves, {mset.name!r} has {len(mset)}")
    obstruction = ""
    if n > 1:
        obstruction = _lattice_obstruction(mset) or _colour_obstruction(
            rows, cols, (r0, c0), mset, closed
        )
    if obstruction:
        result.status = "impossible"
        result.proof = obstruction
        return result

    itype = np.int32 if n <= INT32_CELLS else np.int64
    need = n * kernel_bytes_per_cell(n)
    check_memory(
        need, f"a {rows}x{cols} board ({n:,} cells at {kernel_bytes_per_cell(n)} bytes each)"
    )
    result.compile_seconds = jit_warmup("paths.construct", _warm_kernels)

    if max_attempts is None:
        # small boards have the exhaustive search behind them; large ones get a generous
        # margin (the 1000x1000 tail run needs no regrowth at all)
        max_attempts = 16 if n <= EXHAUSTIVE_CELLS else 64 + 4 * max(1, int(math.log2(n + 1)))
    # the kernel sees the moves in sorted order: a move set and a seed decide the path,
    # however the set was spelled
    canonical = sorted(mset.moves)
    dr0 = np.array([m[0] for m in canonical], dtype=np.int64)
    dc0 = np.array([m[1] for m in canonical], dtype=np.int64)
    ss = np.random.SeedSequence(seed)
    start_flat = r0 * cols + c0

    with Stopwatch() as sw:
        state = np.empty(n, np.uint8)
        path = np.empty(n, itype)
        pos = np.empty(n, itype)
        if 1 < n <= STRUCTURE_CELLS:
            state[:] = 0
            obstruction = _structure_obstruction(rows, cols, start_flat, dr0, dc0, path, state)
            if obstruction:
                result.status = "impossible"
                result.proof = obstruction
                return result
        _kernel.init_state(rows, cols, dr0, dc0, state)
        _kernel.visit_cell(rows, cols, dr0, dc0, state, start_flat)
        path[0] = start_flat
        pos[start_flat] = 0
        plen = 1
        status = _search(
            result, rows, cols, dr0, dc0, state, path, pos, plen, ss, TIE_BREAKS[tie_break],
            max_attempts, time_limit, progress,
        )  # fmt: skip
    result.solve_seconds = sw.seconds
    result.peak_bytes = peak_rss_bytes()
    if status == "found":
        result.status = "found"
        result.path = path
        return result
    if status == "interrupted":
        result.status = "interrupted"
        result.path = path[: result.counts["path_cells"]].copy()
        del path
        return result
    del path, pos, state
    result.status = "not found"
    if prove and n <= EXHAUSTIVE_CELLS:
        _settle_by_exhaustive_search(result)
    return result


def _settle_by_exhaustive_search(result: PathResult) -> None:
    from rompicapo.paths.count import search_path

    with Stopwatch() as sw:
        ex = search_path(result.rows, result.cols, result.start, result.moves, closed=result.closed)
    result.solve_seconds += sw.seconds
    result.counts["proof_nodes"] = int(ex.nodes)
    if ex.path is not None:
        result.status = "found"
        result.path = np.asarray(ex.path, dtype=np.int32)
        result.method = "greedy+exhaustive"
    elif ex.proven:
        result.status = "impossible"
        result.proof = f"proven by exhaustive search ({ex.nodes:,} nodes)"


def _search(
    result: PathResult,
    rows: int,
    cols: int,
    dr0: np.ndarray,
    dc0: np.ndarray,
    state: np.ndarray,
    path: np.ndarray,
    pos: np.ndarray,
    plen: int,
    ss: np.random.SeedSequence,
    tie: int,
    max_attempts: int,
    time_limit: float | None,
    progress: bool,
) -> str:
    """The restart policy around the kernel; returns "found", "gave up" or "interrupted"."""
    n = rows * cols
    # small boards: a budget proportional to the board, so that hopeless boards reach their
    # exhaustive proof quickly
    work_budget = max(int(WORK_PER_CELL * n), min(MIN_WORK, 64 * n))
    regrow_base = max(MIN_REGROW, math.isqrt(n))
    gen = np.random.default_rng(ss)
    t_start = time.perf_counter()
    attempt = 0
    rotations = 0
    # the seed orders the moves, which decides exact ties of Warnsdorff's rule
    perm = gen.permutation(len(dr0))
    centre_r, centre_c = rows - 1, cols - 1
    jitter = max(1, min(rows, cols) // 8)
    rng = np.uint64(gen.integers(1, 2**63))
    bar = None
    task = None
    if progress:
        from rompicapo.common import progress_bar

        bar = progress_bar()
        bar.start()
        task = bar.add_task(f"path {rows}x{cols}", total=n)
    try:
        while True:
            dr = np.ascontiguousarray(dr0[perm])
            dc = np.ascontiguousarray(dc0[perm])
            drt, dct, offt = _move_tuples(dr, dc, cols)
            status = _kernel.PAUSED
            while status == _kernel.PAUSED:
                target = min(n, plen + CHUNK_CELLS)
                plen, rot, _work, rng, status = _kernel.extend_path(
                    rows, cols, dr, dc, drt, dct, offt, state, path, pos, plen, target,
                    result.closed, work_budget, rng, tie, centre_r, centre_c,
                )  # fmt: skip
                rng = np.uint64(rng)  # numba hands uint64 back as a Python int
                rotations += int(rot)
                result.counts["path_cells"] = int(plen)
                if bar is not None:
                    bar.update(task, completed=plen)
            if status == _kernel.DONE:
                return "found"
            attempt += 1
            if attempt > max_attempts or (
                time_limit is not None and time.perf_counter() - t_start > time_limit
            ):
                return "gave up"
            # Regrow: take the last m cells off and go on with fresh randomness.
            m = regrow_base * _luby(attempt)
            new_len = max(1, plen - m)
            if new_len == 1:
                result.counts["full_restarts"] = result.counts.get("full_restarts", 0) + 1
            plen = int(_kernel.truncate_path(rows, cols, dr0, dc0, state, path, pos, plen, new_len))
            perm = gen.permutation(len(dr0))
            centre_r = rows - 1 + int(gen.integers(-jitter, jitter + 1))
            centre_c = cols - 1 + int(gen.integers(-jitter, jitter + 1))
    except KeyboardInterrupt:
        return "interrupted"
    finally:
        result.rotations = rotations
        result.restarts = attempt
        if bar is not None:
            bar.stop()


def describe_memory(rows: int, cols: int) -> str:
    """How much memory the constructor's arrays take for a board, for messages and docs."""
    n = rows * cols
    return f"{format_bytes(n * kernel_bytes_per_cell(n))} ({kernel_bytes_per_cell(n)} bytes/cell)"
