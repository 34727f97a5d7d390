"""The strategies `construct()` tries, each a small function.

A `Request` holds the checked arguments of one call and the
[`PathResult`][rompicapo.paths.PathResult] being
filled in. A `Strategy` is a pair ``(applies, run)``: ``run`` is called when
``applies`` holds and returns the answer, or None to let the next strategy try.
`dispatch()` walks a table of them in order; the table of ``construct`` is
`rompicapo.paths.construct.STRATEGIES`. This module holds every strategy but the window
search (`rompicapo.paths.window`, which makes open paths from the closed tours that
`closed_tour()` builds here with `TOUR_STRATEGIES`).

Proofs: "impossible" is only said with one. The cheap ones are exact facts
(`rompicapo.paths.obstructions`). On small boards (<= 42 cells) an exhaustive search
([`rompicapo.paths.count.search_path()`][rompicapo.paths.search_path]) settles a failed search.
Otherwise the answer is "not found".
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from rompicapo.common import (
    Deadline,
    InputError,
    ProgressCallback,
    Stopwatch,
    check_memory,
    check_time_limit,
    jit_warmup,
    peak_rss_bytes,
    seed_sequence,
)
from rompicapo.paths import bands
from rompicapo.paths.bands import TIE_BREAKS, index_dtype, kernel_bytes_per_cell
from rompicapo.paths.moves import MoveSet, parse_moves
from rompicapo.paths.obstructions import (
    NARROW_SIDE,
    STRUCTURE_CELLS,
    board_obstruction,
    prove_by_structure,
)
from rompicapo.paths.result import PathResult

__all__ = [
    "BLOCKS",
    "DFS",
    "EXHAUSTIVE",
    "EXHAUSTIVE_CELLS",
    "GREEDY",
    "METHODS",
    "OBSTRUCTIONS",
    "PROFILE",
    "TOUR_STRATEGIES",
    "Request",
    "Strategy",
    "block_method",
    "blocks_refusal",
    "choose_blocks",
    "closed_tour",
    "dispatch",
    "profile_applies",
    "progress_callback",
]

METHODS = ("greedy", "blocks", "auto")
_SHORT_SIDE = "it needs both sides >= 5"

# Boards up to this many cells get an exhaustive search when the greedy search gives up:
# the exhaustive kernel settles any such board in well under a second in the cases measured
# (5x7 from any start, 6x6, 4xN); above, a proof could take hours and is left to `count`.
EXHAUSTIVE_CELLS = 42


# --------------------------------------------------------------------------------------------
# The request and the dispatcher
# --------------------------------------------------------------------------------------------


@dataclass
class Request:
    """The checked arguments of one `construct()` call (see there), and
    the result the strategies fill in (``result``: a greedy-method result until a strategy
    returns its own)."""

    rows: int
    cols: int
    start: tuple[int, int]
    mset: MoveSet
    closed: bool = False
    method: str = "greedy"
    seed: int = 0
    tie_break: str = "centre"
    max_attempts: int | None = None
    time_limit: float | None = None
    deadline: Deadline = field(default_factory=lambda: Deadline(None))
    prove: bool = True
    progress: ProgressCallback | None = None
    jobs: int = 1
    strips: int | None = None
    notes: list[str] = field(default_factory=list)
    # "blocks" or "blocks-cycle" when a block construction makes the path, else ""
    block_kind: str = ""
    result: PathResult = field(init=False)

    def __post_init__(self) -> None:
        self.result = PathResult(
            rows=self.rows, cols=self.cols, start=self.start, moves=self.mset,
            closed=self.closed, seed=self.seed, notes=list(self.notes),
        )  # fmt: skip

    @property
    def cells(self) -> int:
        return self.rows * self.cols


@dataclass(frozen=True)
class Strategy:
    """One way to answer a request: ``run`` is tried when ``applies`` holds; it returns the
    answer, or None to let the next strategy of the table try (what it learnt, counts and
    time, stays in ``request.result``)."""

    name: str
    applies: Callable[[Request], bool]
    run: Callable[[Request], PathResult | None]


def dispatch(request: Request, table: tuple[Strategy, ...]) -> PathResult:
    """The answer of the first strategy of ``table`` that applies and gives one; else the
    request's result as the strategies left it ("not found")."""
    for strategy in table:
        if strategy.applies(request):
            answer = strategy.run(request)
            if answer is not None:
                return answer
    return request.result


def choose_blocks(
    rows: int, cols: int, start: tuple[int, int], mset: MoveSet, closed: bool, method: str
) -> str:
    """``"blocks"`` or ``"blocks-cycle"`` when ``method`` asks for a block construction and one
    makes the path, else ``""``; an [`InputError`][rompicapo.common.InputError] for an unknown
    method, and for ``method="blocks"`` on a board no block construction or direct search takes."""
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}: use one of {', '.join(METHODS)}")
    # knight boards with a side of 3 or 4 are below every block table's minimum: they go
    # straight to the proofs and the exact column-profile search
    if method not in ("blocks", "auto") or profile_applies(rows, cols, mset):
        return ""
    kind, why_not = block_method(rows, cols, start, mset, closed)
    # a board below the blocks' minimum is small enough for a direct search; a bipartite
    # leaper's closed tour on odd x odd gets its impossibility proof from the search
    small = why_not == "size" or (why_not == "colour" and closed)
    if method == "blocks" and not kind and not small:
        raise InputError(
            "the block construction does not apply: "
            f"{blocks_refusal(rows, cols, start, mset, closed)} (use method='greedy')"
        )
    return kind


# --------------------------------------------------------------------------------------------
# Block constructions: no search, no seed
# --------------------------------------------------------------------------------------------


def blocks_refusal(
    rows: int, cols: int, start: tuple[int, int], mset: MoveSet, closed: bool
) -> str:
    """Why no block construction can make this path ("" when one can: the corner path of
    `blocks` or the cycle of `cycles`): the one
    rule `construct()`'s ``method="auto"`` and the CLI's streamed output both follow.

    ```pycon
    >>> from rompicapo.paths import parse_moves
    >>> blocks_refusal(5, 5, (0, 0), parse_moves("caselle"), False)  # the corner path applies
    ''
    >>> blocks_refusal(8, 8, (3, 3), parse_moves("caselle"), False)
    'the caselle blocks need both sides >= 10'

    ```"""
    kind, _ = block_method(rows, cols, start, mset, closed)
    if kind:
        return ""
    from rompicapo.paths.cycles import cycle_refusal

    return cycle_refusal(rows, cols, mset)


def block_method(
    rows: int, cols: int, start: tuple[int, int], mset: MoveSet, closed: bool
) -> tuple[str, str]:
    """``("blocks", "")`` for the corner path (caselle, open, start (0, 0), sides >= 5),
    ``("blocks-cycle", "")`` for the block cycle cut at the start, else ``("", why)`` with
    ``why`` the cycle's `refusal_kind()`."""
    from rompicapo.paths.cycles import refusal_kind

    if not _path_refusal(rows, cols, start, mset, closed):
        return "blocks", ""
    kind = refusal_kind(rows, cols, mset)
    return ("blocks-cycle", "") if not kind else ("", kind)


def _path_refusal(rows: int, cols: int, start: tuple[int, int], mset: MoveSet, closed: bool) -> str:
    """Why the corner path of `rompicapo.paths.blocks` cannot make this path."""
    from rompicapo.paths.blocks import MIN_SIDE

    if set(mset.moves) != set(parse_moves("caselle").moves):
        return f"it is made for caselle moves, not {mset.name}"
    if closed:
        return "it makes open paths, not closed tours"
    if min(rows, cols) < MIN_SIDE:
        return _SHORT_SIDE
    if start != (0, 0):
        return "its path starts at (0, 0)"
    return ""


def _check_block_memory(rows: int, cols: int, what: str) -> None:
    """Refuse a block path that would not fit in memory: the path array, plus the
    verifier's byte per cell that every caller runs next."""
    n = rows * cols
    itemsize = np.dtype(index_dtype(n)).itemsize
    check_memory(
        n * (itemsize + 1),
        f"a {rows}x{cols} {what} ({n:,} cells at {itemsize + 1} bytes each with its check; "
        "write it to a .rpath file to stream it instead)",
    )


def _construct_blocks(rows: int, cols: int, mset: MoveSet, jobs: int | None) -> PathResult:
    from rompicapo.paths.blocks import BlockPath, warm_up

    result = PathResult(rows=rows, cols=cols, start=(0, 0), moves=mset, method="blocks")
    bp = BlockPath(rows, cols)  # sizes checked (exact ints) before compiling anything
    _check_block_memory(rows, cols, "block path")
    result.compile_seconds = jit_warmup("paths.blocks.path", lambda: warm_up("path"))
    with Stopwatch() as sw:
        result.path = bp.fill_path(jobs=jobs)
    result.solve_seconds = sw.seconds
    result.peak_bytes = peak_rss_bytes()
    result.status = "found"
    result.counts["bands"] = len(bp.bands)
    result.counts["blocks_per_band"] = len(bp.block_widths)
    return result


def _construct_cycle(rows, cols, mset, start, closed, jobs) -> PathResult:
    """The block cycle read from ``start``: a closed tour, hence also an open path."""
    from rompicapo.paths.cycles import BlockCycle, warm_up

    result = PathResult(
        rows=rows, cols=cols, start=start, moves=mset, closed=closed, method="blocks-cycle"
    )
    result.compile_seconds = jit_warmup("paths.cycles.path", lambda: warm_up("path"))
    _check_block_memory(rows, cols, "block cycle")
    with Stopwatch() as sw:
        bc = BlockCycle(rows, cols, mset, start)
        result.path = bc.fill_path(jobs=jobs)
    result.solve_seconds = sw.seconds
    result.peak_bytes = peak_rss_bytes()
    result.status = "found"
    result.counts["bands"] = bc.bands
    result.counts["blocks_per_band"] = bc.block_columns
    if bc.transposed:
        result.counts["transposed"] = 1
    return result


def _by_blocks(request: Request) -> PathResult:
    """The corner path of `blocks` or the block cycle read from the
    start (`cycles`)."""
    rows, cols, mset = request.rows, request.cols, request.mset
    if request.block_kind == "blocks":
        result = _construct_blocks(rows, cols, mset, request.jobs)
    else:
        result = _construct_cycle(rows, cols, mset, request.start, request.closed, request.jobs)
    result.notes += request.notes
    return result


# --------------------------------------------------------------------------------------------
# Proofs before the search
# --------------------------------------------------------------------------------------------


def _by_obstruction(request: Request) -> PathResult | None:
    """The answer "impossible" with a proof that looks at no cell (lattice, colours, Pósa), or
    None."""
    proof = board_obstruction(
        request.rows, request.cols, request.start, request.mset, request.closed
    )
    if not proof:
        return None
    request.result.status = "impossible"
    request.result.proof = proof
    return request.result


# --------------------------------------------------------------------------------------------
# Exact column profiles (knight, a side of 3 or 4)
# --------------------------------------------------------------------------------------------


# Knight paths on boards with a side of 3 or 4: the column-profile programme of
# rompicapo.paths.narrow decides every start (a path or a proof) where the walk gave "not found"
# (4 x 30 from (0, 9)); on 4 x n at most ~38,000 states per cell, 4 x 2000 from any start in
# well under a second once the first columns are computed. Closed tours too (3 x n: Schwenk's
# even n >= 10; 4 x n is Pósa's, refused before).
PROFILE_SIDES = (3, 4)


def profile_applies(rows: int, cols: int, mset: MoveSet) -> bool:
    return min(rows, cols) in PROFILE_SIDES and mset == parse_moves("knight")


def _profile_applies(request: Request) -> bool:
    return request.method != "greedy" and profile_applies(request.rows, request.cols, request.mset)


def _by_profile(request: Request) -> PathResult:
    """The exact column-profile search: "found", "impossible" with its proof, or "not found"
    when the time limit ran out first."""
    from rompicapo.paths.narrow import check_plan_memory, narrow_path, warm_up

    result, mset, deadline = request.result, request.mset, request.deadline
    # a board whose plan cannot fit is refused before anything compiles (a cold compile takes
    # 5-10 s: "3x99999999999" was one line, but after them)
    check_plan_memory(max(result.rows, result.cols))
    result.compile_seconds = jit_warmup("paths.narrow", warm_up)
    with Stopwatch() as sw:
        seconds = None if deadline.time_limit is None else max(1e-3, deadline.remaining())
        res = narrow_path(
            result.rows, result.cols, result.start, mset, closed=result.closed, time_limit=seconds
        )
    result.solve_seconds += sw.seconds
    result.peak_bytes = peak_rss_bytes()
    result.method = "profile"
    result.status = res.status
    result.counts.update({f"profile_{k}": v for k, v in res.counts.items()})
    if res.status == "found":
        result.path = res.path.astype(index_dtype(result.rows * result.cols))
    elif res.status == "impossible":
        result.proof = res.proof
    else:
        result.counts["time_limit_reached"] = 1
    return result


# --------------------------------------------------------------------------------------------
# The greedy walk (rompicapo.paths.bands)
# --------------------------------------------------------------------------------------------


def _by_walk(request: Request) -> PathResult | None:
    """Warnsdorff's walk with Pósa rotations, by bands: "found", "interrupted", "impossible"
    by the structure check, "not found" when the time limit stopped it, or None when it gave
    up otherwise (the next strategies may still find a path or a proof)."""
    result, mset = request.result, request.mset
    rows, cols, n = request.rows, request.cols, request.cells
    itype = index_dtype(n)
    check_memory(
        n * kernel_bytes_per_cell(n),
        f"a {rows}x{cols} board ({n:,} cells at {kernel_bytes_per_cell(n)} bytes each)",
    )
    result.compile_seconds = jit_warmup(
        f"paths.construct.{np.dtype(itype).name}.{len(mset)}",
        lambda: bands.warm_kernels(itype, mset),
    )
    with Stopwatch() as sw:
        walk = _Walk(request, itype)
        plausible = n <= STRUCTURE_CELLS or min(rows, cols) < NARROW_SIDE
        if n > 1 and plausible and walk.prove_by_structure():
            return result
        status, done_cells = walk.solve()
    result.solve_seconds += sw.seconds  # after a window or depth-first try, if one ran
    result.peak_bytes = peak_rss_bytes()
    walk.record(status, done_cells)
    if result.status != "not found" or walk.run.timed_out:
        return result
    if n > STRUCTURE_CELLS and min(rows, cols) >= NARROW_SIDE:
        walk.prove_by_structure()
    return result if result.status == "impossible" else None


class _Walk:
    """The arrays and the settings of one greedy walk over the board."""

    def __init__(self, request: Request, itype: type) -> None:
        self.request = request
        n = request.cells
        max_attempts = request.max_attempts
        if max_attempts is None:
            # small boards have the exhaustive search behind them; large ones get a generous
            # margin (the 1000x1000 tail run needs no regrowth at all)
            max_attempts = 16 if n <= EXHAUSTIVE_CELLS else 64 + 4 * max(1, int(math.log2(n + 1)))
        self.max_attempts = max_attempts
        # the kernel sees the moves in sorted order: a move set and a seed decide the path,
        # however the set was spelled
        canonical = sorted(request.mset.moves)
        self.dr0 = np.array([m[0] for m in canonical], dtype=np.int64)
        self.dc0 = np.array([m[1] for m in canonical], dtype=np.int64)
        # seeds >= 0 keep the paths they always gave; negative ones get their own streams
        seed = request.seed
        self.ss = np.random.SeedSequence(seed) if seed >= 0 else seed_sequence(seed)
        self.start_flat = request.start[0] * request.cols + request.start[1]
        self.state = np.empty(n, np.uint8)
        self.path = np.empty(n, itype)
        self.pos = np.empty(n, itype)
        self.run: bands.WalkRun | None = None
        self.pieces: list[bands.Piece] = []
        # A closed tour is a cycle: any cell may be where the search starts, and the cycle is
        # then read from the asked start. The walk peels the board from the edges (ties go
        # farthest from the centre) and ends near the centre, so started at the centre it ends
        # next to its start: 3000x3000 caselle closes after 7 rotations in 1 CPU s, where from
        # the corner the end had to be brought back across the board (gave up after 300 s).
        rows, cols = request.rows, request.cols
        self.search_start = (rows // 2, cols // 2) if request.closed else request.start

    def prove_by_structure(self) -> bool:
        """The structure check (connectivity, dead ends), with the path and state arrays as
        its scratch space: True when it proved the request impossible."""
        return prove_by_structure(
            self.request.result, self.start_flat, self.dr0, self.dc0, self.path, self.state
        )

    def solve(self) -> tuple[str, int]:
        """Plan the bands and walk them: (status, cells of the path done in order)."""
        req = self.request
        self.pieces = bands.plan_pieces(
            req.rows, req.cols, self.search_start, req.closed, req.strips
        )
        deadline = (
            None if req.time_limit is None else time.perf_counter() + req.deadline.remaining()
        )
        self.run = bands.WalkRun(
            dr0=self.dr0, dc0=self.dc0, tie=TIE_BREAKS[req.tie_break],
            max_attempts=self.max_attempts, deadline=deadline,
        )  # fmt: skip
        return bands.solve_pieces(
            self.run, self.pieces, req.rows, req.cols, self.state, self.path, self.pos, self.ss,
            req.jobs, req.progress,
        )  # fmt: skip

    def record(self, status: str, done_cells: int) -> None:
        """Put the walk's outcome, path and counts in the result."""
        result, run, pieces = self.request.result, self.run, self.pieces
        result.rotations = run.rotations
        result.restarts = run.restarts
        if run.exact_nodes:
            result.counts["exact_nodes"] = run.exact_nodes
        if run.merges:
            result.counts["merged_bands"] = run.merges
        result.counts["path_cells"] = done_cells
        if len(pieces) > 1:
            result.counts["strips"] = len(pieces)
            result.method = f"greedy, {len(pieces)} strips"
        if status == "found":
            result.status = "found"
            path = self.path
            if self.request.closed and self.search_start != self.request.start:
                path = np.roll(path, -int(np.flatnonzero(path == self.start_flat)[0]))
            result.path = path
            return
        # interrupted, or stopped by the time limit: keep the cells done; no proof now
        result.status = "interrupted" if status == "interrupted" else "not found"
        if status == "interrupted" or run.timed_out:
            result.path = self.path[:done_cells].copy()
        if status != "interrupted" and run.timed_out:
            result.counts["time_limit_reached"] = 1


# Paths on boards up to this many cells that the walk missed get the depth-first search of
# the block tables. Closed tours used to try it first, but the walk is the quicker of the two:
# on every board of 5..64 rows up to 4096 cells, from (rows // 2, cols // 3), it closed all 8,866
# caselle tours (4 ms at worst, 18 CPU s in all) and every knight tour Schwenk allows but
# 5 x 16 (0.5 s to give up), where a failed search costs the DFS up to 8 seeds x 8 ends x 200,000
# nodes (1-2 CPU s on 5 x 150 caselle before the walk closed it in milliseconds).
DFS_CELLS = 4096
DFS_NODES = 200_000
DFS_SEEDS = 8


def _dfs_applies(request: Request) -> bool:
    # the walk can miss the open tours of thin boards (5 x 13 knight from (3, 11)) and a
    # closed one now and then (5 x 16 knight)
    return request.cells <= DFS_CELLS and request.method != "greedy"


def _by_dfs(request: Request) -> PathResult | None:
    """A path (closed: ending next to the start) by the block tables' depth-first search, or
    None when the node budgets or the time run out (no proof either way). One search of
    ``DFS_NODES`` takes ~0.1 s; the time is checked between searches."""
    from rompicapo.paths._block_search_kernel import block_path

    result, mset, deadline = request.result, request.mset, request.deadline
    rows, cols = result.rows, result.cols
    r0, c0 = result.start
    dr, dc = mset.arrays()
    ends = [
        (r0 + a) * cols + c0 + b for a, b in mset.moves if 0 <= r0 + a < rows and 0 <= c0 + b < cols
    ]
    if not result.closed:
        ends = [-1]
    nodes = 0
    with Stopwatch() as sw:
        for seed in range(DFS_SEEDS):
            for end in ends:
                if deadline.expired():
                    break
                path, k = block_path(rows, cols, dr, dc, r0 * cols + c0, end, DFS_NODES, seed)
                nodes += int(k)
                if len(path):
                    result.path = path.astype(np.int32)
                    result.status = "found"
                    result.method = "dfs"
                    break
            if result.found:
                break
    result.solve_seconds += sw.seconds
    result.counts["dfs_nodes"] = nodes
    if not result.found and deadline.expired():
        result.counts["time_limit_reached"] = 1  # "not found within the time limit"
    return result if result.found else None


# --------------------------------------------------------------------------------------------
# Exhaustive search on small boards
# --------------------------------------------------------------------------------------------


def _exhaustive_applies(request: Request) -> bool:
    return request.prove and request.cells <= EXHAUSTIVE_CELLS


def _by_exhaustive(request: Request) -> PathResult:
    """Settle a small board the walk gave up on: a path, or "impossible" with the count of
    nodes of the exhaustive search that proves it."""
    from rompicapo.paths.count import search_path

    result = request.result
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
    return result


# --------------------------------------------------------------------------------------------
# The tables
# --------------------------------------------------------------------------------------------


def _always(request: Request) -> bool:
    return True


BLOCKS = Strategy("blocks", lambda request: bool(request.block_kind), _by_blocks)
OBSTRUCTIONS = Strategy("obstructions", _always, _by_obstruction)
PROFILE = Strategy("profile", _profile_applies, _by_profile)
GREEDY = Strategy("greedy", _always, _by_walk)
DFS = Strategy("dfs", _dfs_applies, _by_dfs)
EXHAUSTIVE = Strategy("exhaustive", _exhaustive_applies, _by_exhaustive)

#: The strategies for closed tours, in the order they are tried: those of
#: :data:`rompicapo.paths.construct.STRATEGIES` but the window search, which makes open paths.
TOUR_STRATEGIES = (BLOCKS, OBSTRUCTIONS, PROFILE, GREEDY, DFS, EXHAUSTIVE)


def closed_tour(
    rows: int, cols: int, mset: MoveSet, time_limit: float | None = None
) -> np.ndarray | None:
    """A closed tour of ``rows x cols`` read from (0, 0) (what ``construct(rows, cols,
    moves=mset, closed=True, method="auto", jobs=1)`` returns), or None when none was found
    within ``time_limit`` seconds or none exists."""
    request = Request(
        rows, cols, (0, 0), mset, closed=True, method="auto", time_limit=time_limit,
        deadline=Deadline(check_time_limit(time_limit)),
        block_kind=choose_blocks(rows, cols, (0, 0), mset, True, "auto"),
    )  # fmt: skip
    result = dispatch(request, TOUR_STRATEGIES)
    return result.path if result.found else None


def progress_callback(progress: object) -> ProgressCallback | None:
    """``progress`` as a callback: earlier releases took a bool (True drew a bar on stderr);
    the library no longer draws, so a bool means no callback."""
    if isinstance(progress, bool) or progress is None:
        return None
    if not callable(progress):
        raise InputError(f"progress must be a callable or None, got {type(progress).__name__}")
    return progress
