"""numba: random access and writers for the block *cycle* (see ``rompicapo.paths.cycles``).

The board (internal coordinates: transposed when ``geom[10]``) is cut into ``I`` bands (even)
and ``J >= 2`` block columns; block column 0 is the return strip. The cycle visits block
(0, 0), then band 0 left to right, then bands 1..I-1 over block columns 1..J-1 in a
serpentine, then climbs the strip from (I-1, 0) to (1, 0). ``geom`` holds int64 numbers::

    0 R, 1 C                          internal rows and columns
    2 I, 3 hbase, 4 hextra, 5 hstep   bands: I parts, hbase rows, the last hextra ones + hstep
    6 J, 7 wbase, 8 wextra, 9 wstep   block columns, the same way
    10 transposed, 11 shift           shift: entries depend on the corner parity p
    12 hmin, 13 NH, 14 wmin, 15 NW    table key ranges
    16 N                              cells
    17 pos0                           cycle step of the path's first cell
    18 sr, 19 sc                      real flat index = r' * sr + c' * sc

Table arrays are indexed ``[kid, k]`` with ``kid = (((combo*NH + h-hmin)*NW + w-wmin)*2+p)*2+q``
and ``combo = combo_of[in_side * 4 + out_side]`` (sides: 0 left, 1 right, 2 above, 3 below).
"""

from __future__ import annotations

from rompicapo.common.intrinsics import store_fence, stream_store
from rompicapo.common.jit import njit


@njit(cache=True, inline="always")
def _start(i, base, n, extra, step):
    tall = i - (n - extra)
    return i * base + (step * tall if tall > 0 else 0)


@njit(cache=True, inline="always")
def _part(x, base, n, extra, step):
    short_end = (n - extra) * base
    if x < short_end:
        return x // base
    return (n - extra) + (x - short_end) // (base + step)


@njit(cache=True, inline="always")
def _length(i, base, n, extra, step):
    return base + step if i >= n - extra else base


@njit(cache=True, inline="always")
def _row0(i, g):
    return _start(i, g[3], g[2], g[4], g[5])


@njit(cache=True, inline="always")
def _col0(j, g):
    return _start(j, g[7], g[6], g[8], g[9])


@njit(cache=True, inline="always")
def _h(i, g):
    return _length(i, g[3], g[2], g[4], g[5])


@njit(cache=True, inline="always")
def _w(j, g):
    return _length(j, g[7], g[6], g[8], g[9])


@njit(cache=True, inline="always")
def _next(i, j, big_i, big_j):
    if j == 0:
        return (0, 1) if i == 0 else (i - 1, 0)
    if i % 2 == 0:
        return (i, j + 1) if j < big_j - 1 else (i + 1, j)
    if j > 1:
        return i, j - 1
    return (i + 1, 1) if i < big_i - 1 else (i, 0)


@njit(cache=True, inline="always")
def _prev(i, j, big_i, big_j):
    if j == 0:
        return (big_i - 1, 1) if i == big_i - 1 else (i + 1, 0)
    if i % 2 == 0:
        if j > 1:
            return i, j - 1
        return (0, 0) if i == 0 else (i - 1, 1)
    return (i, j + 1) if j < big_j - 1 else (i - 1, big_j - 1)


@njit(cache=True, inline="always")
def _kid(i, j, g, combo_of):
    """The table key of block (i, j)."""
    ni, nj = _next(i, j, g[2], g[6])
    pi, pj = _prev(i, j, g[2], g[6])
    if nj == j + 1:
        out = 1
    elif nj == j - 1:
        out = 0
    elif ni == i + 1:
        out = 3
    else:
        out = 2
    if pj == j - 1:
        side = 0
    elif pj == j + 1:
        side = 1
    elif pi == i - 1:
        side = 2
    else:
        side = 3
    h = _h(i, g)
    w = _w(j, g)
    p = 0
    q = 0
    if g[11]:
        p = (_row0(i, g) + _col0(j, g)) % 2
        if out == 0:
            q = _w(nj, g) % 2
        elif out == 2:
            q = _h(ni, g) % 2
    combo = combo_of[side * 4 + out]
    return (((combo * g[13] + h - g[12]) * g[15] + w - g[14]) * 2 + p) * 2 + q


@njit(cache=True, inline="always")
def _block_first(i, j, g):
    """The cycle step at which block (i, j) starts."""
    big_r = g[0]
    big_c = g[1]
    h0 = _h(0, g)
    w0 = _w(0, g)
    if i == 0:
        return h0 * _col0(j, g)
    if j == 0:
        s1 = h0 * big_c + (big_r - h0) * (big_c - w0)
        return s1 + w0 * (big_r - _row0(i, g) - _h(i, g))
    t = h0 * big_c + (_row0(i, g) - h0) * (big_c - w0)
    if i % 2 == 1:
        return t + _h(i, g) * (big_c - _col0(j, g) - _w(j, g))
    return t + _h(i, g) * (_col0(j, g) - w0)


@njit(cache=True, inline="always")
def _locate(s, g):
    """(i, j) of the block holding cycle step ``s``."""
    big_r = g[0]
    big_c = g[1]
    h0 = _h(0, g)
    w0 = _w(0, g)
    s0 = h0 * big_c
    if s < s0:
        return 0, _part(s // h0, g[7], g[6], g[8], g[9])
    s1 = s0 + (big_r - h0) * (big_c - w0)
    if s < s1:
        i = _part(h0 + (s - s0) // (big_c - w0), g[3], g[2], g[4], g[5])
        t = s0 + (_row0(i, g) - h0) * (big_c - w0)
        x = (s - t) // _h(i, g)
        if i % 2 == 1:
            return i, _part(big_c - 1 - x, g[7], g[6], g[8], g[9])
        return i, _part(w0 + x, g[7], g[6], g[8], g[9])
    x = (s - s1) // w0
    return _part(big_r - 1 - x, g[3], g[2], g[4], g[5]), 0


@njit(cache=True)
def cells_at(g, cells, combo_of, steps, out_r, out_c):
    """Real row and column of each path step (0-based) of ``steps``; the caller checks them."""
    n = g[16]
    for t in range(steps.shape[0]):
        s = (steps[t] + g[17]) % n
        i, j = _locate(s, g)
        w = _w(j, g)
        local = cells[_kid(i, j, g, combo_of), s - _block_first(i, j, g)]
        lr = local // w
        r = _row0(i, g) + lr
        c = _col0(j, g) + local - lr * w
        if g[10]:
            out_r[t] = c
            out_c[t] = r
        else:
            out_r[t] = r
            out_c[t] = c


@njit(cache=True)
def steps_of(g, index, combo_of, rs, cs, out):
    """Path step (0-based) of each real cell ``(rs[t], cs[t])``."""
    n = g[16]
    for t in range(rs.shape[0]):
        r = rs[t]
        c = cs[t]
        if g[10]:
            r, c = c, r
        i = _part(r, g[3], g[2], g[4], g[5])
        j = _part(c, g[7], g[6], g[8], g[9])
        w = _w(j, g)
        k = index[_kid(i, j, g, combo_of), (r - _row0(i, g)) * w + c - _col0(j, g)]
        out[t] = (_block_first(i, j, g) + k - g[17] + n) % n


@njit(cache=True)
def cycle_step_of(g, index, combo_of, r, c):
    """Cycle step of internal cell (r, c) (to place the path's first cell)."""
    i = _part(r, g[3], g[2], g[4], g[5])
    j = _part(c, g[7], g[6], g[8], g[9])
    w = _w(j, g)
    k = index[_kid(i, j, g, combo_of), (r - _row0(i, g)) * w + c - _col0(j, g)]
    return _block_first(i, j, g) + k


@njit(cache=True, nogil=True)
def fill(g, table, combo_of, first, out, add_corner):
    """Copy, block after block along the cycle from path step ``first`` (0-based), the rows of
    ``table[kid]`` into ``out``, wrapping from the last block to the first. With ``add_corner``
    (``table`` = flat offsets) ``out[t]`` is the flat cell of step ``first + t``; without it
    (``table`` = moves) the move from that step to the next."""
    _fill(g, table, combo_of, first, out, add_corner, False)


@njit(cache=True, nogil=True)
def fill_streaming(g, table, combo_of, first, out):
    """`fill()` of the flat cells with non-temporal stores (an array far larger than the
    caches, not read back at once). A kernel of its own: with the choice a runtime flag of one
    kernel, the streaming loop ran 4x slower (0.58 against 0.11 CPU s for 10^8 cells)."""
    _fill(g, table, combo_of, first, out, True, True)
    store_fence()


@njit(cache=True, inline="always")
def _fill(g, table, combo_of, first, out, add_corner, stream):
    n_out = out.shape[0]
    if n_out == 0:
        return
    s = (first + g[17]) % g[16]
    i, j = _locate(s, g)
    k0 = s - _block_first(i, j, g)
    t = 0
    while True:
        h = _h(i, g)
        w = _w(j, g)
        base = 0
        if add_corner:
            base = _row0(i, g) * g[18] + _col0(j, g) * g[19]
        row = table[_kid(i, j, g, combo_of)]
        stop = h * w
        if stop - k0 > n_out - t:
            stop = k0 + n_out - t
        if stream:
            for k in range(k0, stop):
                stream_store(out, t, base + row[k])
                t += 1
        else:
            for k in range(k0, stop):
                out[t] = base + row[k]
                t += 1
        if t >= n_out:
            return
        k0 = 0
        i, j = _next(i, j, g[2], g[6])
