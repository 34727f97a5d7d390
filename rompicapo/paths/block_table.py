"""The block table of the deterministic construction, and the script that regenerates it.

Run ``python -m rompicapo.paths.block_table`` to rebuild ``data/block_table.json`` (about a
second). The table holds, for every block of ``h`` rows and ``w`` columns (5 <= h, w <= 9) and
every *role*, one caselle path that visits each cell of the block once:

- ``straight`` starts at the block's top-left cell ``(0, 0)`` and ends one move before
  ``(0, w)``, the top-left cell of the next block to the right;
- ``turn`` starts at ``(0, 0)`` and ends one move before ``(h, w - 1)``: the top-*right* cell of
  the block below, where the next band (running the other way) starts;
- ``last`` starts at ``(0, 0)`` and ends anywhere (the last block of the board).

Blocks of bands running right to left use the mirror image (columns reflected), so their entry
is the top-right cell and their exits are the mirrored ones; the move set is symmetric, so a
mirrored path is a path. Why corners: with the entry at a block corner every one of the 75
(role, h, w) paths exists (the search below finds each in under 10^4 nodes), so *any* split of
the rows and of the columns into parts of 5..9 gives a board's path. Other entry rows (the
middle of the left side, say) leave holes: a 7-row straight block entered at row 3 has no path
of width 5, and entries below row 2 cannot turn into a 5-row band.

Proof that every R x C board with R, C >= 5 is covered: every integer n >= 5 is a sum of parts
5..9 (``split_length``); the table has a path for every (role, h, w); and the junctions only
involve the two blocks they join (checked in ``tests/paths/test_paths_blocks.py``, which rebuilds
and verifies the table and every board 5..40 x 5..40).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rompicapo.paths.moves import CASELLE

__all__ = ["ROLES", "SIZES", "TABLE_PATH", "generate_table", "write_table"]

ROLES = ("straight", "turn", "last")
SIZES = range(5, 10)  # block heights and widths
TABLE_PATH = Path(__file__).resolve().parent / "data" / "block_table.json"

# Generous: every path of the table is found in under 10^4 nodes with seed 0.
_NODE_LIMIT = 10**6


def _exit_cells(role: str, h: int, w: int) -> list[tuple[int, int, int]]:
    """(row, col, move index) of the allowed last cells: cell + move = the next entry."""
    if role == "last":
        return [(-1, -1, -1)]
    target = (0, w) if role == "straight" else (h, w - 1)
    out = []
    for k, (dr, dc) in enumerate(CASELLE):
        r, c = target[0] - dr, target[1] - dc
        if 0 <= r < h and 0 <= c < w:
            out.append((r, c, k))
    return out


def generate_table() -> dict:
    """Search every (role, h, w) path; raise if one is missing (the construction needs all)."""
    from rompicapo.paths._block_search_kernel import block_path

    dr = np.array([m[0] for m in CASELLE], np.int64)
    dc = np.array([m[1] for m in CASELLE], np.int64)
    entries = []
    for role in ROLES:
        for h in SIZES:
            for w in SIZES:
                found = None
                for r, c, k in _exit_cells(role, h, w):
                    end = -1 if r < 0 else r * w + c
                    for seed in range(4):
                        path, _ = block_path(h, w, dr, dc, 0, end, _NODE_LIMIT, seed)
                        if len(path):
                            found = (path, k)
                            break
                    if found:
                        break
                if found is None:
                    raise RuntimeError(f"no {role} path for a {h}x{w} block")
                path, k = found
                entries.append(
                    {"role": role, "h": h, "w": w, "exit_move": int(k), "cells": path.tolist()}
                )
    return {
        "moves": [list(m) for m in CASELLE],
        "entry": "top-left cell (0, 0); bands running right to left use the mirror image",
        "cells": "flat index r * w + c inside the block, in path order",
        "exit_move": "index into moves of the jump from the last cell to the next block's entry",
        "blocks": entries,
    }


def write_table(path: Path = TABLE_PATH) -> Path:
    """Regenerate the table and write it as JSON (one block per line, diff-friendly)."""
    table = generate_table()
    head = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in table.items() if k != "blocks"]
    lines = [json.dumps(b, separators=(",", ":")) for b in table["blocks"]]
    text = "{\n" + "\n".join(head) + '\n "blocks": [\n' + ",\n".join(lines) + "\n ]\n}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


if __name__ == "__main__":
    print(f"wrote {write_table()}")
