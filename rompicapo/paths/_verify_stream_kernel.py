"""numba: the streaming verifier's loops over move bytes (independent of every path maker).

Positions are rebuilt from the moves by adding (dr, dc); a visited *bitmap* (one bit per cell,
for one range of rows) records the cells seen. Nothing here is shared with the constructors.
"""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit


@njit(cache=True, nogil=True)
def summarise(moves, dr, dc, out):
    """Sum and prefix extremes of a chunk's moves, relative to its first cell.

    ``out`` = [first bad byte index or -1, sum dr, sum dc, min row, max row, min col, max col]
    (the extremes over the cells reached after each move; 0 if the chunk is empty).
    """
    nm = dr.shape[0]
    r = 0
    c = 0
    rmin = 0
    rmax = 0
    cmin = 0
    cmax = 0
    bad = -1
    for t in range(moves.shape[0]):
        m = moves[t]
        if m >= nm:
            bad = t
            break
        r += dr[m]
        c += dc[m]
        if r < rmin:
            rmin = r
        if r > rmax:
            rmax = r
        if c < cmin:
            cmin = c
        if c > cmax:
            cmax = c
    out[0] = bad
    out[1] = r
    out[2] = c
    out[3] = rmin
    out[4] = rmax
    out[5] = cmin
    out[6] = cmax


@njit(cache=True, nogil=True)
def first_outside(moves, dr, dc, r0, c0, rows, cols):
    """Index of the first move of the chunk that leaves the board, or -1."""
    r = r0
    c = c0
    for t in range(moves.shape[0]):
        r += dr[moves[t]]
        c += dc[moves[t]]
        if r < 0 or r >= rows or c < 0 or c >= cols:
            return t
    return -1


@njit(cache=True, nogil=True)
def mark_rows(moves, dr, dc, r0, c0, cols, lo, hi, bitmap):
    """Mark the cells reached by the chunk's moves whose row is in ``lo .. hi - 1``.

    Returns ``(marked, first_repeat)``: how many cells were marked, and the index of the first
    move that reaches an already marked cell (-1 if none; marking stops there).
    """
    r = r0
    c = c0
    marked = 0
    for t in range(moves.shape[0]):
        r += dr[moves[t]]
        c += dc[moves[t]]
        if lo <= r < hi:
            bit = (r - lo) * cols + c
            byte = bit >> 3
            mask = np.uint8(1 << (bit & 7))
            if bitmap[byte] & mask:
                return marked, t
            bitmap[byte] |= mask
            marked += 1
    return marked, -1


@njit(cache=True, nogil=True)
def walk(moves, dr, dc, r, c, rows, cols, bitmap, out):
    """Follow a chunk's moves from ``(r, c)``, marking every cell in the whole-board bitmap.

    ``out`` = [status, index, row, col]: status 0 (all good; row, col = the last cell), 1 (byte
    ``index`` is not a move), 2 (move ``index`` leaves the board at row, col) or 3 (move
    ``index`` reaches row, col a second time).
    """
    nm = dr.shape[0]
    for t in range(moves.shape[0]):
        m = moves[t]
        if m >= nm:
            out[0] = 1
            out[1] = t
            return
        r += dr[m]
        c += dc[m]
        if r < 0 or r >= rows or c < 0 or c >= cols:
            out[0] = 2
            out[1] = t
            out[2] = r
            out[3] = c
            return
        bit = r * cols + c
        byte = bit >> 3
        mask = np.uint8(1 << (bit & 7))
        if bitmap[byte] & mask:
            out[0] = 3
            out[1] = t
            out[2] = r
            out[3] = c
            return
        bitmap[byte] |= mask
    out[0] = 0
    out[2] = r
    out[3] = c


@njit(cache=True, nogil=True)
def unpack_triples(packed, out):
    """Moves of 3 bits each: move ``k`` is bits ``3k .. 3k + 2`` of ``packed`` read as one
    little-endian bit stream (bit ``b`` is bit ``b % 8`` of byte ``b // 8``); fills ``out``.
    Eight moves fill three bytes exactly, so whole groups are read three bytes at a time."""
    n = out.shape[0]
    whole = n // 8
    for g in range(whole):
        word = np.int64(packed[3 * g]) | (np.int64(packed[3 * g + 1]) << 8)
        word |= np.int64(packed[3 * g + 2]) << 16
        for j in range(8):
            out[8 * g + j] = (word >> (3 * j)) & 7
    for k in range(8 * whole, n):
        bit = 3 * k
        v = np.int64(packed[bit >> 3]) >> (bit & 7)
        if bit & 7 > 5:  # the move runs on into the next byte
            v |= np.int64(packed[(bit >> 3) + 1]) << (8 - (bit & 7))
        out[k] = v & 7
