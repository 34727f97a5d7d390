"""numba: the block construction's random access and its path and move writers.

The board is cut into bands of rows and each band into blocks of columns (parts of 5..9, see
``rompicapo.paths.blocks``). ``geom`` holds the cut as 8 int64 numbers::

    rows, cols, bands, band_base, band_extra, blocks, block_base, block_extra

``bands`` parts of ``band_base`` rows, the last ``band_extra`` of them one row taller (the same
for blocks and columns), so where a part starts and which part holds a row are O(1) arithmetic.
Band ``i`` runs left to right when ``i`` is even. Within a band, block ``j`` (counted from the
left) plays role 0 (straight), 1 (turn: the last block of its band) or 2 (last: the board's last
block). The table arrays are indexed ``[role, h, w, k]``:

- ``cells[role, h, w, k]``: the k-th cell of the block's path, ``lr * w + lc`` (left-to-right);
- ``index[role, h, w, lr * w + lc]``: the inverse;
- ``offsets[d, role, h, w, k]``: ``lr * cols + lc`` (d = 0) or ``lr * cols + w - 1 - lc``
  (d = 1, mirrored), so a block's flat cells are its corner's flat index plus these;
- ``moves[d, role, h, w, k]``: the move index from the k-th cell to the next, the exit jump at
  ``k = h * w - 1`` (mirrored for d = 1).
"""

from __future__ import annotations

from rompicapo.common.jit import njit


@njit(cache=True, inline="always")
def _start(i, base, n, extra):
    """First row (column) of part ``i``."""
    tall = i - (n - extra)
    return i * base + (tall if tall > 0 else 0)


@njit(cache=True, inline="always")
def _part(x, base, n, extra):
    """The part that holds row (column) ``x``."""
    short_end = (n - extra) * base
    if x < short_end:
        return x // base
    return (n - extra) + (x - short_end) // (base + 1)


@njit(cache=True, inline="always")
def _length(i, base, n, extra):
    return base + 1 if i >= n - extra else base


@njit(cache=True, inline="always")
def _role(i, j, right, geom):
    last_in_band = (j == geom[5] - 1) if right else (j == 0)
    if not last_in_band:
        return 0
    return 2 if i == geom[2] - 1 else 1


@njit(cache=True, inline="always")
def _locate(step, geom):
    """(band, block, step at which the block starts) of the block holding ``step``."""
    cols = geom[1]
    i = _part(step // cols, geom[3], geom[2], geom[4])
    row0 = _start(i, geom[3], geom[2], geom[4])
    h = _length(i, geom[3], geom[2], geom[4])
    s = step - row0 * cols
    x = s // h  # columns of the band already passed, counted along the band's direction
    if i % 2 == 0:
        j = _part(x, geom[6], geom[5], geom[7])
        before = _start(j, geom[6], geom[5], geom[7])
    else:
        j = _part(cols - 1 - x, geom[6], geom[5], geom[7])
        before = cols - _start(j, geom[6], geom[5], geom[7]) - _length(j, geom[6], geom[5], geom[7])
    return i, j, row0 * cols + h * before


@njit(cache=True)
def cells_at(geom, cells, steps, out_r, out_c):
    """Row and column of each step (0-based) of ``steps``; the caller checks the range."""
    for t in range(steps.shape[0]):
        step = steps[t]
        i, j, first = _locate(step, geom)
        h = _length(i, geom[3], geom[2], geom[4])
        w = _length(j, geom[6], geom[5], geom[7])
        right = i % 2 == 0
        local = cells[_role(i, j, right, geom), h, w, step - first]
        lr = local // w
        lc = local - lr * w
        out_r[t] = _start(i, geom[3], geom[2], geom[4]) + lr
        col0 = _start(j, geom[6], geom[5], geom[7])
        out_c[t] = col0 + lc if right else col0 + w - 1 - lc


@njit(cache=True)
def steps_of(geom, index, rs, cs, out):
    """Step (0-based) at which the path visits each cell ``(rs[t], cs[t])``."""
    cols = geom[1]
    for t in range(rs.shape[0]):
        i = _part(rs[t], geom[3], geom[2], geom[4])
        j = _part(cs[t], geom[6], geom[5], geom[7])
        row0 = _start(i, geom[3], geom[2], geom[4])
        col0 = _start(j, geom[6], geom[5], geom[7])
        h = _length(i, geom[3], geom[2], geom[4])
        w = _length(j, geom[6], geom[5], geom[7])
        right = i % 2 == 0
        lc = cs[t] - col0 if right else w - 1 - (cs[t] - col0)
        k = index[_role(i, j, right, geom), h, w, (rs[t] - row0) * w + lc]
        before = col0 if right else cols - col0 - w
        out[t] = row0 * cols + h * before + k


@njit(cache=True)
def _next_block(i, j, geom):
    """The block after (i, j) along the path (the caller stops at the last one)."""
    if i % 2 == 0:
        if j + 1 < geom[5]:
            return i, j + 1
        return i + 1, j
    if j > 0:
        return i, j - 1
    return i + 1, j


@njit(cache=True, nogil=True)
def fill(geom, table, first, out, add_corner):
    """Copy, block after block along the path, the rows of a per-block ``table`` (indexed
    ``[mirrored, role, h, w, k]``) into ``out``, starting at step ``first`` (0-based).

    With ``table = offsets`` and ``add_corner`` each entry gets its block's corner flat index:
    ``out[t]`` is the flat cell of step ``first + t``. With ``table = moves`` and no corner,
    ``out[t]`` is the move from step ``first + t`` to the next. Either way a copy with an add,
    the cost of writing memory.
    """
    cols = geom[1]
    n = out.shape[0]
    if n == 0:
        return
    i, j, start = _locate(first, geom)
    k0 = first - start
    t = 0
    while True:
        h = _length(i, geom[3], geom[2], geom[4])
        w = _length(j, geom[6], geom[5], geom[7])
        right = i % 2 == 0
        base = 0
        if add_corner:
            base = _start(i, geom[3], geom[2], geom[4]) * cols + _start(
                j, geom[6], geom[5], geom[7]
            )
        row = table[0 if right else 1, _role(i, j, right, geom), h, w]
        stop = h * w
        if stop - k0 > n - t:
            stop = k0 + n - t
        for k in range(k0, stop):
            out[t] = base + row[k]
            t += 1
        if t >= n:
            return
        k0 = 0
        i, j = _next_block(i, j, geom)
