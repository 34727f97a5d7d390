"""Block tables for Hamiltonian *cycles* of any leaper, and the script that regenerates them.

The cycle construction (`rompicapo.paths.cycles`) cuts the board into bands of rows
(an even number of them) and blocks of columns (at least two); block column 0 is a *return
strip*. The cycle runs through band 0 left to right, then in a serpentine over block columns
1..J-1 (band 1 right to left, band 2 left to right, ...), ends the last band (odd, so running
right to left) in block column 1, steps into the strip and climbs it back to block (0, 0)::

    (0,0) -> (0,1) -> ... -> (0,J-1)
      ^                        v
    (1,0)    (1,1) <- ... <- (1,J-1)
      ^        v
    (2,0)    (2,1) -> ... -> (2,J-1)
      ^                        v
    (3,0) <- (3,1) <- ... <- (3,J-1)

Every block is entered from one side and left through another (``in_side``, ``out_side``: 0 =
left, 1 = right, 2 = above, 3 = below; 10 pairs occur). Inside it, the cycle follows a path of
the table that starts at the block's *entry cell* and ends one move before the next block's
entry cell. Entry cells sit at a corner of the entry side:

- from the left: the top-left cell; from the right: the top-right cell;
- from above: the top-right cell; from below: the bottom-left cell.

*Bipartite leapers* (every move changes the colour of the chessboard colouring, like the
knight) alternate colours along the cycle, so every entry cell must have the same colour on the
board. Their blocks all have an even width (the board is transposed when only its row count is
even; with both odd a closed tour is impossible), so every block has an even number of cells
and the colour of each entry is fixed by the block's corner parity ``p = (row0 + col0) % 2``:
when the corner's colour differs from ``p`` the entry moves one cell along its side (down for
the left and right sides, inward for the top and bottom). For other leapers the entries stay at
the corners and ``p`` is 0.

A block's path thus depends on its shape ``h x w``, its ``(in_side, out_side)``, ``p``, and
``q``: the parity of the next block's length along the way when the cycle goes left or up
(that block's corner, hence its entry, then depends on its own size). The table holds one path
for every such key with ``h`` in ``B..2B`` and ``w`` in ``B..2B`` (even ``w`` only for bipartite
leapers), found by the depth-first search of `rompicapo.paths._block_search_kernel`.
`build_table()` tries ``B = 3, 4, ...`` up to `MAX_B` and keeps the first ``B`` for
which every block exists; if there is none, the leaper gets no blocks and the reason is kept.

Every R x C board with ``R >= 2B`` and ``C >= 2B`` (bipartite: the even side split in even
widths, so ``C >= 2 * (B rounded up to even)``) has such a split: an even number 2k of bands of
``B..2B`` rows covers every R in ``[2kB, 4kB]``, and these ranges meet; J >= 2 parts of
``B..2B`` (or even ones) cover every length from ``2B`` on.

Run ``python -m rompicapo.paths.leaper_blocks`` to rebuild the shipped tables (caselle and
knight) in ``rompicapo/paths/data/``.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

from rompicapo.paths.moves import MoveSet, parse_moves

__all__ = [
    "COMBOS",
    "MAX_B",
    "SHIPPED",
    "build_table",
    "entry_cell",
    "exit_target",
    "is_bipartite",
    "load_table",
    "table_path",
    "write_table",
]

LEFT, RIGHT, ABOVE, BELOW = 0, 1, 2, 3
SIDE_NAMES = ("the left", "the right", "above", "below")
OUT_NAMES = ("to the left", "to the right", "upward", "downward")
# The (in_side, out_side) pairs the serpentine with a return strip uses (any I even, J >= 2).
COMBOS: tuple[tuple[int, int], ...] = (
    (BELOW, RIGHT),  # block (0, 0)
    (LEFT, RIGHT),  # along an even band
    (LEFT, BELOW),  # right end of an even band
    (ABOVE, RIGHT),  # left end of an even band i >= 2
    (ABOVE, BELOW),  # J = 2: the serpentine column is one block wide
    (ABOVE, LEFT),  # right end of an odd band (J = 2: also the last band)
    (RIGHT, LEFT),  # along an odd band, and the last band's step into the strip
    (RIGHT, BELOW),  # left end of an odd band
    (RIGHT, ABOVE),  # block (I-1, 0): the strip's foot
    (BELOW, ABOVE),  # the strip
)
MIN_B = 3
MAX_B = 8
# Per search: generous for blocks that exist (found in well under 10^4 nodes as a rule), short
# enough that a block with no path costs a fraction of a second.
NODE_LIMIT = 300_000
SEEDS = 4
DATA_DIR = Path(__file__).resolve().parent / "data"
SHIPPED = ("caselle", "knight")


def is_bipartite(moves: MoveSet) -> bool:
    """True when every move changes the chessboard colour (dr + dc odd), like the knight's."""
    return all((dr + dc) % 2 for dr, dc in moves.moves)


def entry_cell(side: int, h: int, w: int, p: int, shift: bool) -> tuple[int, int]:
    """The entry cell ``(lr, lc)`` of an ``h x w`` block entered through ``side``."""
    if side == LEFT:
        r, c, dr, dc = 0, 0, 1, 0
    elif side == RIGHT:
        r, c, dr, dc = 0, w - 1, 1, 0
    elif side == ABOVE:
        r, c, dr, dc = 0, w - 1, 0, -1
    else:
        r, c, dr, dc = h - 1, 0, 0, 1
    if shift and (r + c) % 2 != p:
        r, c = r + dr, c + dc
    return r, c


def exit_target(out: int, h: int, w: int, p: int, q: int, shift: bool) -> tuple[int, int]:
    """The next block's entry cell in this block's coordinates (the exit is one move before).

    ``q`` is the parity of the next block's width (going left) or height (going up); the
    next block's corner parity follows from ``p`` and the sizes.
    """
    if out == RIGHT:  # next block: same rows, corner (0, w)
        er, ec = entry_cell(LEFT, h, 0, (p + w) % 2, shift)
        return er, w + ec
    if out == BELOW:  # corner (h, 0), same columns
        er, ec = entry_cell(ABOVE, 0, w, (p + h) % 2, shift)
        return h + er, ec
    if out == LEFT:  # corner (0, -w'), w' of parity q; its entry column is w' - 1
        er, _ = entry_cell(RIGHT, h, 2 - q, (p + q) % 2, shift)
        return er, -1
    _, ec = entry_cell(BELOW, 2 - q, w, (p + q) % 2, shift)  # corner (-h', 0)
    return -1, ec


def _sizes(b: int, bipartite: bool) -> tuple[list[int], list[int]]:
    heights = list(range(b, 2 * b + 1))
    widths = [w for w in heights if w % 2 == 0] if bipartite else heights
    return heights, widths


def _keys(b: int, bipartite: bool):
    """Every (combo, h, w, p, q) the boards need."""
    heights, widths = _sizes(b, bipartite)
    ps = (0, 1) if bipartite else (0,)
    for k, (_, out) in enumerate(COMBOS):
        # going left, the next width is even for bipartite leapers (q = 0); going up, the
        # next height has either parity
        qs = (0, 1) if bipartite and out == ABOVE else (0,)
        for h in heights:
            for w in widths:
                for p in ps:
                    for q in qs:
                        yield k, h, w, p, q


def _search_block(h, w, dr, dc, start, target, bipartite):
    """A path of the block from ``start`` to a cell one move before ``target``, or None.
    Returns ``(cells, exit_move)``."""
    from rompicapo.paths._block_search_kernel import block_path

    sr, sc = start
    exits = []
    for k in range(len(dr)):
        r, c = target[0] - int(dr[k]), target[1] - int(dc[k])
        if not (0 <= r < h and 0 <= c < w) or (r, c) == (sr, sc):
            continue
        # a bipartite leaper's path through an even block ends on the other colour
        if bipartite and (h * w) % 2 == 0 and (r + c) % 2 == (sr + sc) % 2:
            continue
        exits.append((r, c, k))
    for seed in range(SEEDS):
        for r, c, k in exits:
            path, _ = block_path(h, w, dr, dc, sr * w + sc, r * w + c, NODE_LIMIT, seed)
            if len(path):
                return path, k
    return None


def build_table(moves: str | MoveSet = "caselle", *, max_b: int = MAX_B) -> dict:
    """Search the block table of a leaper. Returns the table as a dict; when no ``B`` up to
    ``max_b`` gives every block, ``{"moves": ..., "blocks": None, "reason": "..."}``."""
    mset = parse_moves(moves)
    bip = is_bipartite(mset)
    dr, dc = mset.arrays()
    reach = mset.reach
    why = ""
    g = 0
    ms = mset.moves
    for i in range(len(ms)):
        for j in range(i + 1, len(ms)):
            g = math.gcd(g, abs(ms[i][0] * ms[j][1] - ms[i][1] * ms[j][0]))
    if g == 0:
        why = f"the {mset.name} moves all lie on one line"
    elif g != 1:
        why = f"the {mset.name} moves do not reach every cell (their lattice has index {g})"
    for b in range(max(MIN_B, reach + 1), max_b + 1) if not why else ():
        blocks = []
        for k, h, w, p, q in _keys(b, bip):
            din, out = COMBOS[k]
            start = entry_cell(din, h, w, p, bip)
            target = exit_target(out, h, w, p, q, bip)
            found = _search_block(h, w, dr, dc, start, target, bip)
            if found is None:
                why = (
                    f"no B up to {b} gives every block (B = {b}: no path for a {h}x{w} block "
                    f"entered from "
                    f"{SIDE_NAMES[din]} and left {OUT_NAMES[out]}, p={p}, q={q})"
                )
                blocks = None
                break
            path, move = found
            blocks.append({"key": [k, h, w, p, q], "exit_move": int(move), "cells": path.tolist()})
        if blocks is not None:
            heights, widths = _sizes(b, bip)
            return {
                "moves": [list(m) for m in mset.moves],
                "B": b,
                "bipartite": bip,
                "heights": heights,
                "widths": widths,
                "combos": [list(c) for c in COMBOS],
                "cells": "flat index r * w + c inside the block, in path order",
                "exit_move": "index into moves of the jump to the next block's entry",
                "blocks": blocks,
            }
    if not why:
        why = f"no B in {max(MIN_B, reach + 1)}..{max_b} gives every block"
    return {"moves": [list(m) for m in mset.moves], "blocks": None, "reason": why}


def table_path(name: str) -> Path:
    return DATA_DIR / f"cycle_table_{name}.json"


def write_table(name: str, path: Path | None = None) -> Path:
    """Rebuild the table of a named leaper and write it as JSON, one block per line."""
    table = build_table(name)
    if table["blocks"] is None:
        raise RuntimeError(f"no block table for {name}: {table['reason']}")
    path = path or table_path(name)
    head = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in table.items() if k != "blocks"]
    lines = [json.dumps(b, separators=(",", ":")) for b in table["blocks"]]
    text = "{\n" + "\n".join(head) + '\n "blocks": [\n' + ",\n".join(lines) + "\n ]\n}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def load_table(mset: MoveSet) -> dict:
    """The table of a move set: the shipped file for caselle and knight, else built (and kept
    for the process). ``blocks`` is None (with ``reason``) when the leaper has none. Its
    ``moves`` and ``exit_move`` indexes follow ``mset.moves`` in their order."""
    # Keyed by the moves in their order, not by the MoveSet (equal for any order): the table's
    # move indexes follow that order, and the knight seen transposed lists its moves in
    # another one; a cache shared between the two orders gave one caller the other's indexes.
    return _load_table(mset.name, mset.moves)


@lru_cache(maxsize=16)
def _load_table(name: str, moves: tuple[tuple[int, int], ...]) -> dict:
    mset = MoveSet(name, moves)
    for name in SHIPPED:
        if mset == parse_moves(name):
            data = json.loads(table_path(name).read_text())
            if {tuple(m) for m in data["moves"]} != set(mset.moves):
                raise RuntimeError(f"{table_path(name)} was made for another move set")
            break
    else:
        data = build_table(mset)
    if data["blocks"] is not None:
        # the table indexes moves in its own order; map them to this set's order
        order = {tuple(m): i for i, m in enumerate(mset.moves)}
        own = [tuple(m) for m in data["moves"]]
        for b in data["blocks"]:
            b["exit_move"] = order[own[b["exit_move"]]]
        data["moves"] = [list(m) for m in mset.moves]
    return data


if __name__ == "__main__":
    for leaper in SHIPPED:
        print(f"wrote {write_table(leaper)}")
