"""Blackwood's search with Verhaard's end game: pieces that tile well are held back.

Louis Verhaard's solver (467 joints, the 2008 Eternity II prize) kept the pieces that fit
together most easily out of the early part of the fill and gave them only to the last cells,
where a search runs short of fitting pieces and makes its breaks. `tiling_scores()` measures
how well each interior piece tiles with the others (the perfect 2x3 blocks that contain it,
`rompicapo.edges._holdback_kernel.block_counts()`); `held_types()` picks the best-tiling ones
that ``Settings(holdback=N)`` keeps off every position of the fill order before
``holdback_release`` (by default the last three rows' worth of positions).

Measured here on Eternity II with the centre clue, 2026-12-02, AMD EPYC, one job, 30 s per
search, seeds 0-5, the plain kernel for all, off and on alternating (load 3-5 on 2 cores): it
does not pay inside Blackwood's search. Mean search score (and completed score) off 454.3
(459.0); holdback 8: 433.2 (449.8); 16: 328.3 (422.8); 32: 263.2 (410.3); released at 232
instead of 208, holdback 4: 443.0 (454.7); 8: 415.0 (444.3). No seed gained. The likely reason:
every held piece is one candidate less at each of the ~160 inner positions before the release,
and the branches that reach a depth shrink about geometrically with that (depth 248 off,
138-198 with 16 held); the pieces that tile best are the most flexible ones, so they cost most.
The option stays for other schedules and puzzles (a search without quota and breaks, an
improver's end game), off by default.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from rompicapo.common import InputError
from rompicapo.edges._holdback_kernel import block_counts
from rompicapo.edges.puzzle import Puzzle

__all__ = ["RELEASE_ROWS", "default_release", "held_types", "tiling_scores"]

# The default release: this many rows' worth of positions before the end of the fill order.
RELEASE_ROWS = 3


def default_release(rows: int, cols: int) -> int:
    """The fill-order index from which held pieces may be placed when the settings leave it
    open: the last `RELEASE_ROWS` rows' worth of positions."""
    return max(0, rows * cols - RELEASE_ROWS * cols)


def _lists(keys: np.ndarray, ids: np.ndarray, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """``ids`` grouped by ``keys`` (stable): the ids and the start of each key's run."""
    order = np.argsort(keys, kind="stable")
    start = np.searchsorted(keys[order], np.arange(n_keys + 1)).astype(np.int64)
    return ids[order].astype(np.int64), start


def block_counts_of(pieces: np.ndarray) -> np.ndarray:
    """Per piece of ``pieces`` (``(n, 4)``, no grey sides): the perfect 2x3 blocks of distinct
    pieces of the set, any turns, that contain it (see `rompicapo.edges._holdback_kernel`)."""
    pieces = np.asarray(pieces, dtype=np.int64)
    n = len(pieces)
    nc = int(pieces.max(initial=0)) + 1
    sides = np.empty((4 * n, 4), dtype=np.int64)
    for r in range(4):
        for s in range(4):
            sides[r::4, s] = pieces[:, (s - r) % 4]
    # one oriented piece per distinct set of sides of each piece
    _, first = np.unique(
        np.column_stack([np.repeat(np.arange(n), 4), sides]), axis=0, return_index=True
    )
    q = np.sort(first)
    lft, top, w = sides[q, 3], sides[q, 0], nc + 1
    # each oriented piece under (left, top), (left, any), (any, top), (any, any); any = nc
    keys = np.concatenate([lft * w + top, lft * w + nc, nc * w + top, np.full(len(q), nc * w + nc)])
    lists, start = _lists(keys, np.tile(q, 4), w * w)
    counts = np.zeros(n, dtype=np.int64)
    block_counts(sides, lists, start, nc, counts)
    return counts


@cache
def _scores(rows: int, cols: int, raw: bytes) -> np.ndarray:
    pieces = np.frombuffer(raw, dtype=np.int16).reshape(-1, 4)
    inner = np.flatnonzero((pieces != 0).all(axis=1))
    scores = np.zeros(len(pieces), dtype=np.int64)
    if len(inner):
        scores[inner] = block_counts_of(pieces[inner])
    scores.flags.writeable = False
    return scores


def tiling_scores(puzzle: Puzzle) -> np.ndarray:
    """Per piece of ``puzzle``: the perfect 2x3 blocks of distinct interior pieces that contain
    it (0 for frame pieces). Counted once per process and puzzle (about 4 s on Eternity II)."""
    pieces = np.ascontiguousarray(puzzle.pieces, dtype=np.int16)
    return _scores(puzzle.rows, puzzle.cols, pieces.tobytes())


def held_types(puzzle: Puzzle, holdback: int, candidates: np.ndarray) -> np.ndarray:
    """Per piece: whether it is one of the ``holdback`` best-tiling pieces among ``candidates``
    (a boolean mask of the pieces that may be held: free interior piece types), ties broken
    by the lower piece number."""
    pool = np.flatnonzero(candidates)
    if holdback > len(pool):
        raise InputError(
            f"holdback must be at most {len(pool)} (the free interior pieces that may be held)"
        )
    held = np.zeros(puzzle.n_pieces, dtype=bool)
    if holdback:
        scores = tiling_scores(puzzle)
        best = pool[np.lexsort((pool, -scores[pool]))[:holdback]]
        held[best] = True
    return held
