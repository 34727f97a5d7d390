"""Blackwood's search, part 2: the candidate tables of a plan.

`build_tables()` draws one set of candidate lists for a `Plan`:
per position and key (colour on the left, colour below), the pre-rotated pieces that fit, in
Blackwood's order (more heuristic sides first, random among equals, break entries last), and
the same lists as the walking kernel's code (`rompicapo.edges._kernel.walk_code()`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rompicapo.edges import _kernel as K
from rompicapo.edges.blackwood_plan import ANY, Plan, spare_copies

__all__ = ["Tables", "all_rotations", "build_tables"]

# Sort score weights: U < 100 only shuffles entries with equal heuristic count, and any break
# entry (-100000) sorts after every exact one.
HEUR_WEIGHT = 100
BREAK_WEIGHT = 100_000
TIE_BREAK_RANGE = 99


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


def all_rotations(pieces: np.ndarray) -> np.ndarray:
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
    sides = _Sides(plan)
    spec_ids: dict[tuple, int] = {}
    pos_table = np.empty(len(plan.specs), dtype=np.int32)
    for i, spec in enumerate(plan.specs):
        pos_table[i] = spec_ids.setdefault(spec, len(spec_ids))
    parts = [
        _clue_entries(plan, sides, spec) if spec[0] == "clue" else _cell_entries(sides, spec, rng)
        for spec in spec_ids
    ]
    keys = np.concatenate([p[0] for p in parts])
    tabs = np.concatenate([np.full(len(p[0]), tid) for tid, p in enumerate(parts)])
    scores = np.concatenate([p[1] for p in parts])
    words = np.concatenate([p[2] for p in parts])
    words2 = np.concatenate([p[3] for p in parts])
    # A piece with rotational symmetry shows the same edges in two or four turns: keep one.
    no_rot = words & ~(3 << K.ROT_SHIFT)
    _, first = np.unique(np.stack([tabs, keys, no_rot]), axis=1, return_index=True)
    keys, tabs, scores = keys[first], tabs[first], scores[first]
    words, words2 = words[first], words2[first]
    order = np.lexsort((-scores, keys, tabs))
    slot = tabs[order] * nc * nc + keys[order]
    tab_start = np.searchsorted(slot, np.arange(len(spec_ids) * nc * nc + 1)).astype(np.int32)
    ent = words[order].astype(np.int32)
    return Tables(
        nc,
        pos_table,
        tab_start,
        ent,
        words2[order].astype(np.int32),
        int(np.diff(tab_start).max(initial=0)),
        _walk_code(plan, pos_table, tab_start, ent, nc),
    )


class _Sides:
    """Every (piece, turn) of a plan's puzzle as flat arrays: its sides, piece, turn,
    heuristic count, and whether it may be listed (one piece of each type, and only if a
    copy is left beside the clues)."""

    def __init__(self, plan: Plan) -> None:
        puzzle = plan.puzzle
        self.nc = puzzle.max_colour + 1
        self.frame = np.zeros(self.nc, dtype=bool)
        self.frame[list(puzzle.frame_colours)] = True
        self.rot = all_rotations(puzzle.pieces.astype(np.int64))
        n_pieces = puzzle.n_pieces
        self.piece_ids = np.repeat(np.arange(n_pieces), 4)
        self.rot_ids = np.tile(np.arange(4), n_pieces)
        flat = self.rot.reshape(-1, 4)
        self.t, self.r, self.b, self.lft = flat[:, 0], flat[:, 1], flat[:, 2], flat[:, 3]
        self.heur = plan.heur_count[self.piece_ids]
        spare = spare_copies(plan.clues, plan.piece_type, plan.copies)
        is_rep = plan.piece_type == np.arange(n_pieces)
        self.usable = (is_rep & (spare > 0))[self.piece_ids]
        # the tables of positions before Settings.holdback_release leave the held pieces out
        self.held = plan.held[self.piece_ids] if plan.held is not None else None

    def breakable(self, colour: np.ndarray) -> np.ndarray:
        return (colour != 0) & ~self.frame[colour]


def _clue_entries(plan: Plan, sides: _Sides, spec: tuple) -> tuple:
    """The one entry of a clue cell: (keys, sort scores, words, words2)."""
    nc = sides.nc
    _, k, rr = spec
    e = sides.rot[k, rr]
    keys = np.array([e[3] * nc + e[2]])
    tk = int(plan.piece_type[k])
    rr_type = (rr + int(plan.type_turn[k])) % 4  # the clue as its type turned
    words = np.array([K.pack_entry(tk, rr_type, e[0], e[1], plan.heur_count[k], 0)])
    words2 = np.array([e[2] | (e[3] << 6)])
    return keys, np.zeros(1), words, words2


def _cell_entries(s: _Sides, spec: tuple, rng: np.random.Generator) -> tuple:
    """The entries of a free cell's table: (keys, sort scores, words, words2)."""
    nc = s.nc
    t, r, b, lft = s.t, s.r, s.b, s.lft
    _, top_req, right_req, with_breaks, bottom_row, key_l, key_b = spec[:7]
    ok = s.usable.copy()
    if spec[7:] == ("held",) and s.held is not None:
        ok &= ~s.held
    # a side facing a neighbour filled later is not keyed: it must merely not be grey
    if not key_l:
        ok &= lft != 0
    if not key_b:
        ok &= b != 0
    ok &= (t == 0) if top_req == 0 else ((t != 0) if top_req == ANY else (t == top_req))
    ok &= (r == 0) if right_req == 0 else ((r != 0) if right_req == ANY else (r == right_req))
    sel = np.nonzero(ok)[0]
    key_parts = [lft[sel] * nc * key_l + b[sel] * key_b]
    idx_parts = [sel]
    brk_parts = [np.zeros(len(sel), dtype=np.int64)]
    if with_breaks and key_l and key_b:
        other = np.arange(1, nc)
        # left side broken: the key's left colour differs from the piece's left
        s2 = sel[s.breakable(lft[sel])]
        xs = np.tile(other, len(s2))
        ss = np.repeat(s2, len(other))
        keep = (xs != lft[ss]) & s.breakable(xs)
        key_parts.append(xs[keep] * nc + b[ss[keep]])
        idx_parts.append(ss[keep])
        brk_parts.append(np.ones(int(keep.sum()), dtype=np.int64))
        # bottom side broken
        s2 = sel[s.breakable(b[sel])]
        xs = np.tile(other, len(s2))
        ss = np.repeat(s2, len(other))
        keep = (xs != b[ss]) & s.breakable(xs)
        key_parts.append(lft[ss[keep]] * nc + xs[keep])
        idx_parts.append(ss[keep])
        brk_parts.append(np.ones(int(keep.sum()), dtype=np.int64))
    keys = np.concatenate(key_parts)
    idx = np.concatenate(idx_parts)
    brk = np.concatenate(brk_parts)
    h = s.heur[idx]
    tie = rng.integers(0, TIE_BREAK_RANGE, size=len(idx))
    if bottom_row:
        # Blackwood re-sorts the bottom row at each run: heuristic colour first, else random
        scores = HEUR_WEIGHT * (h > 0) - BREAK_WEIGHT * brk + tie
    else:
        scores = HEUR_WEIGHT * h - BREAK_WEIGHT * brk + tie
    words = K.pack_entry(s.piece_ids[idx], s.rot_ids[idx], t[idx], r[idx], h, brk)
    words2 = b[idx] | (lft[idx] << 6)
    return keys, scores, words, words2


def _walk_code(
    plan: Plan, pos_table: np.ndarray, tab_start: np.ndarray, ent: np.ndarray, nc: int
) -> np.ndarray:
    """The lists as the walking kernel's code (`K.walk_code()`)."""
    n_tables = int(pos_table.max()) + 1 if len(pos_table) else 0
    n_lists = len(tab_start) - 1
    # The walker's key of (table t, left l, below b) is t * WALK_KEYS + (l << 6 | b); keys of
    # colours the puzzle lacks point at the first list's sentinel (never read).
    starts = tab_start[:-1] + np.arange(n_lists)
    wstart = np.full(n_tables * K.WALK_KEYS, starts[0] + tab_start[1] - tab_start[0])
    tt, ll, bb = np.meshgrid(np.arange(n_tables), np.arange(nc), np.arange(nc), indexing="ij")
    wstart[(tt * K.WALK_KEYS + (ll << 6) + bb).ravel()] = starts
    return K.walk_code(
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
