"""numba: the ``.rpath`` codec for 3-bit moves (eight moves in three bytes, little-endian)."""

from __future__ import annotations

import numpy as np

from rompicapo.common.jit import njit


@njit(cache=True, nogil=True)
def pack3(moves, out):
    """Pack ``moves`` (values 0..7) into ``out`` (``ceil(n / 8) * 3`` bytes); the last group
    is padded with zeros."""
    n = moves.shape[0]
    for g in range((n + 7) // 8):
        v = 0
        for j in range(8):
            k = 8 * g + j
            if k < n:
                v |= np.int64(moves[k]) << (3 * j)
        out[3 * g] = v & 255
        out[3 * g + 1] = (v >> 8) & 255
        out[3 * g + 2] = (v >> 16) & 255


@njit(cache=True, nogil=True)
def unpack3(packed, out):
    """Unpack ``out.shape[0]`` moves from ``packed`` (the inverse of `pack3()`)."""
    n = out.shape[0]
    for g in range((n + 7) // 8):
        v = np.int64(packed[3 * g]) | (np.int64(packed[3 * g + 1]) << 8)
        v |= np.int64(packed[3 * g + 2]) << 16
        for j in range(8):
            k = 8 * g + j
            if k < n:
                out[k] = (v >> (3 * j)) & 7
