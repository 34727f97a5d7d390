"""construct(): one path through every cell of an R x C board, for any start and leaper.

[`construct()`][rompicapo.paths.construct.construct] checks its arguments and walks `STRATEGIES`, a
table of strategies tried in order until one answers:

1. ``blocks``: the block constructions of `rompicapo.paths.blocks` (the corner path) and
   `rompicapo.paths.cycles` (a block cycle read from the start), no search at all;
2. ``obstructions``: the proofs that need no look at the cells
   (`rompicapo.paths.obstructions`: the moves' lattice, colours, Pósa on 4 x n);
3. ``profile``: open knight paths and tours with a side of 3 or 4, decided exactly by the
   column-profile search of `rompicapo.paths.narrow`;
4. ``window``: open knight paths on narrow boards, by `rompicapo.paths.window`;
5. ``greedy``: Warnsdorff's rule with Pósa rotations, by bands of rows
   (`rompicapo.paths.bands`), with the structure proof (connectivity, dead ends);
6. ``dfs``: the block tables' depth-first search on boards the walk missed;
7. ``exhaustive``: on small boards (<= 42 cells) an exhaustive search settles the rest.

Each strategy is a small function in `rompicapo.paths.strategies` (the window's in
`rompicapo.paths.window`); "impossible" is only said with a proof, else the answer is "not
found". Board sizes and cells are parsed by `rompicapo.paths.board`; the result is a
[`PathResult`][rompicapo.paths.PathResult].
"""

from __future__ import annotations

from rompicapo.common import (
    Deadline,
    InputError,
    ProgressCallback,
    check_seed,
    check_time_limit,
    resolve_jobs,
)
from rompicapo.paths.bands import (
    BAND_CELLS,
    CHUNK_CELLS,
    EXACT_FREE,
    EXACT_NODES,
    EXACT_TAIL,
    HANDOVER_ATTEMPTS,
    INT32_CELLS,
    MAX_STRIPS,
    MIN_REGROW,
    MIN_WORK,
    PHASE1_WORK,
    STRIP_CELLS,
    STRIP_MIN_ROWS,
    TIE_BREAKS,
    WINDOW_HALF_COLS,
    WINDOW_ROWS,
    WINDOW_SLACK,
    WORK_PER_CELL,
    kernel_bytes_per_cell,
)
from rompicapo.paths.board import parse_cell, parse_size
from rompicapo.paths.moves import MoveSet, parse_moves
from rompicapo.paths.obstructions import (
    NARROW_SIDE,
    STRUCTURE_CELLS,
)
from rompicapo.paths.result import (
    TEXT_GRID_CELLS,
    TEXT_GRID_COLS,
    PathResult,
)
from rompicapo.paths.strategies import (
    BLOCKS,
    DFS,
    DFS_CELLS,
    DFS_NODES,
    DFS_SEEDS,
    EXHAUSTIVE,
    EXHAUSTIVE_CELLS,
    GREEDY,
    METHODS,
    OBSTRUCTIONS,
    PROFILE,
    PROFILE_SIDES,
    Request,
    block_method,
    blocks_refusal,
    choose_blocks,
    dispatch,
    progress_callback,
)
from rompicapo.paths.window import WINDOW

__all__ = [
    "EXHAUSTIVE_CELLS",
    "STRATEGIES",
    "TIE_BREAKS",
    "PathResult",
    "construct",
    "kernel_bytes_per_cell",
    "parse_cell",
    "parse_size",
]
# Defined where the strategies live, and importable from here as before; a setting changed
# here changes nothing: change it on its own module.
__all__ += [
    "BAND_CELLS",
    "CHUNK_CELLS",
    "DFS_CELLS",
    "DFS_NODES",
    "DFS_SEEDS",
    "EXACT_FREE",
    "EXACT_NODES",
    "EXACT_TAIL",
    "HANDOVER_ATTEMPTS",
    "INT32_CELLS",
    "MAX_STRIPS",
    "METHODS",
    "MIN_REGROW",
    "MIN_WORK",
    "NARROW_SIDE",
    "PHASE1_WORK",
    "PROFILE_SIDES",
    "STRIP_CELLS",
    "STRIP_MIN_ROWS",
    "STRUCTURE_CELLS",
    "TEXT_GRID_CELLS",
    "TEXT_GRID_COLS",
    "WINDOW_HALF_COLS",
    "WINDOW_ROWS",
    "WINDOW_SLACK",
    "WORK_PER_CELL",
    "block_method",
    "blocks_refusal",
]

#: The strategies of :func:`construct` in the order they are tried (see the module's text).
STRATEGIES = (BLOCKS, OBSTRUCTIONS, PROFILE, WINDOW, GREEDY, DFS, EXHAUSTIVE)


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
    progress: ProgressCallback | None = None,
    jobs: int | None = None,
    strips: int | None = None,
    method: str = "greedy",
) -> PathResult:
    """Find a path through every cell of a ``rows`` x ``cols`` board from ``start``.

    Args:
        rows, cols: the board (``cols`` defaults to ``rows``).
        start: the first cell, ``(r, c)`` 0-based, ``"r,c"`` or a flat index.
        moves: ``"caselle"`` (default), ``"knight"``, ``"DR,DC;..."`` or a
            [`MoveSet`][rompicapo.paths.MoveSet].
        closed: ask for a closed tour (the last cell one move from the first).
        seed: makes the run reproducible (the same seed gives the same path); any integer,
            negative ones included; ``None`` = 0.
        tie_break: Warnsdorff's tie-break: ``"centre"`` (farthest from the centre, default),
            ``"order"`` (first in the seeded move order) or ``"random"``.
        max_attempts: give up after this many regrowths (default: 64 + 4 log2(cells)).
        time_limit: give up after this many seconds of wall clock for the whole call
            (compilation included).
        prove: on small boards (<= 42 cells), settle a failure by exhaustive search.
        progress: a callable receiving [`ProgressEvent`][rompicapo.common.ProgressEvent] (cells of
            the path done); the library draws nothing.
        jobs: threads solving bands of the board at once (default: all cores; more than the
            cores are capped, with a note in ``result.notes``).
        strips: bands of rows the board is cut into (default: 1 below 0.5M cells, then 2, then one
            per ~1M cells, at most 64, bands of at least 64 rows; 1 for closed tours). The bands,
            not the jobs, decide the path: a seed gives the same path whatever the number of cores.
        method: ``"greedy"`` (default: the walk, any board, start and move set, then the
            proofs), ``"blocks"`` (no search, no seed: a block construction, or an InputError
            in one line when none applies; a board below the blocks' minimum gets the direct
            search instead) or ``"auto"`` (blocks where they apply, else greedy). Any method
            but greedy also tries the exact column profiles (open knight paths and tours with
            a side of 3 or 4: a path, or "impossible" with its proof, or "not found" only when
            ``time_limit`` runs out), the window search (open knight paths, a side <= 9) and
            the depth-first search; see the module's text. Greedy closed tours start the walk
            at the board's centre and read the cycle from ``start``.

    Returns a [`PathResult`][rompicapo.paths.PathResult]; ``status`` says whether a path was found,
    shown impossible, not found, or interrupted. Raises [`InputError`][rompicapo.common.InputError]
    for a bad size, start or move set, and
    [`InsufficientMemoryError`][rompicapo.common.InsufficientMemoryError] when the arrays would not
    fit in the memory available (checked before allocating).

    ```pycon
    >>> result = construct(5, 7, start=(2, 3), seed=1)  # the "Solitario del 35"
    >>> result.found, result.verify(), int(result.grid()[2, 3])
    (True, True, 1)

    ```
    """
    deadline = Deadline(check_time_limit(time_limit))
    rows, cols = parse_size((rows, rows if cols is None else cols))
    start = parse_cell(start, rows, cols)
    mset = parse_moves(moves)
    if tie_break not in TIE_BREAKS:
        raise InputError(f"unknown tie-break {tie_break!r}: use one of {', '.join(TIE_BREAKS)}")
    seed = check_seed(seed)
    jobs, jobs_note = resolve_jobs(jobs)
    progress = progress_callback(progress)
    block_kind = choose_blocks(rows, cols, start, mset, closed, method)
    if not block_kind and len(mset) > 16:
        raise InputError(f"the constructor takes at most 16 moves, {mset.name!r} has {len(mset)}")
    request = Request(
        rows, cols, start, mset, closed=closed, method=method, seed=0 if seed is None else seed,
        tie_break=tie_break, max_attempts=max_attempts, time_limit=time_limit,
        deadline=deadline, prove=prove, progress=progress, jobs=jobs, strips=strips,
        notes=[jobs_note] if jobs_note else [], block_kind=block_kind,
    )  # fmt: skip
    return dispatch(request, STRATEGIES)
