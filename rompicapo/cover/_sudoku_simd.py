"""Classic 9x9 Sudoku on vectors: boxes and bands as lanes of 16-bit candidate sets, written as
LLVM IR by a numba intrinsic, a whole batch in one call.

The model (tdoku's, github t-dillon/tdoku ``solver_dpll_triad_simd``, whose design this
follows; read, nothing copied): besides the 729 cell literals (cell c holds digit d) there are
*triads*, the three cells of a row (column) inside a box, and per digit a *configuration* in
each band of three boxes: the permutation that puts the digit in one row of each of its boxes
(6 of them; the same for the three columns of a stack). The state is 480 bytes:

- per box a vector of 16 lanes of 9-bit digit sets (``<16 x i16>``): lane ``4i + j`` holds
  the digits cell (i, j) may still hold; lane ``4i + 3`` (H) the digits that may be absent
  from minirow i, lane ``12 + j`` (V) those that may be absent from minicol j; lane 15 is 0;
- per band (three rows of boxes, then three columns) ``<8 x i16>``: lane k the digits that may
  still take configuration k (`PERMS`), and beside it the eliminations not yet applied.

The rules, all as a handful of vector operations:

- *box*: each cell holds one digit, a minirow (minicol) holds three, so an H (V) lane at least
  six; a lane at its minimum is asserted (a naked single; a triad whose three digits are
  known). Each row and column of the 4x4 lane matrix holds every digit exactly once (it is in
  one of the three cells or the triad is without it), so a digit that only one lane of such a
  group may hold is asserted there (hidden singles within the box and the triads' definition),
  and a digit no lane may hold is a contradiction. An asserted cell empties its digit from the
  box's other cells and its other digits from the cell. The assertions also go to the box's
  two bands: a digit placed in minirow i, or absent from the others, loses the configurations
  that put it elsewhere in this box.
- *band*: the configurations give the 3x3 triads a digit may reach (``T``); a triad only three
  digits reach holds all three (each loses the configurations that put it elsewhere in that
  box), repeated until it stalls; a triad that fewer reach is a contradiction. Then each of
  the three boxes is restricted: a cell to its triad's digits, an H (V) lane to the digits
  that may be in another triad of the box.

The work is organised differently from tdoku, which sends each change at once from box to
band to box by recursive calls: here one function, `Emitter.emit_propagate()`, keeps a bit
per band (pending eliminations) and per box (cells changed) and sweeps the marked ones, the
six bands then the nine boxes, until none is marked. A band's messages are AND-ed into its
boxes' cells; a box runs its rules to its fixpoint and ORs its band messages into the bands'
pending eliminations. Increments that arrive in one sweep are handled in one visit, and
nothing is spilled around calls. The rules form one long chain of dependent instructions, so
the marked boxes of a sweep run two at a time, side by side in one ``<32 x i16>`` vector (the
box rules are the same for every box; their indices are known at run time only): two
independent chains in the same instructions. Their band messages depend on where the box sits
in its bands: on x86 with SSSE3 one ``pshufb`` per band with a control picked from a per-box
table, elsewhere three constant shuffles and lane selects. The last marked box of a sweep and
each band run their own code, lanes and band indices constant. LLVM picks the instructions
(on AVX-512: ``vprolq``/``vpermq``/``vpermt2w``, ``vpopcntw``, mask registers, the pairs in
512-bit registers; with AVX2 or SSE the same IR in 256- or 128-bit pieces; NEON alike).

The search branches as tdoku does: in the band with the fewest configurations that is not
fixed, the digit with the fewest (two when there is one, else three, else any); the first
branch keeps its first configuration (the state is copied, 480 bytes), the second removes
that configuration (DPLL: the negation is asserted, not guessed). When every band is fixed
(each digit one configuration everywhere) the boxes hold a solution. Counting stops at the
limit. ``stats`` gets [guesses, propagations] per puzzle. Every 1024 guesses the search
reads a stop request (`rompicapo.common.KernelStop`'s flag, set from another thread at a time
limit or on Ctrl-C; the batch releases the GIL): when it is set, the search answers it (the
flag's second entry) and unwinds as if the limit were reached, in microseconds. Measured on
the empty grid counting 3,000,000 solutions, the check costs nothing that shows (see
``benchmarks/cover_sudoku.py``).

Apart from ``pshufb`` (used only when the CPU numba compiles for has SSSE3, see
`_has_ssse3()`) only generic LLVM IR is emitted (vector types, constant shuffles,
``llvm.ctpop``), so the kernel compiles for any CPU numba targets: the tests run the host's
code and the portable code compiled for a baseline x86-64 (SSE2, about half the speed) and
lower the IR for aarch64. The kernel compiles in about 1.5 s of CPU. Measured step by step
against tdoku and against its own earlier versions: ``benchmarks/cover_sudoku.py``'s
docstring.

Puzzles and solutions are flat ``uint8[81]`` rows, row-major, 0 = empty, digits 1-9 (the
caller checks).
"""

from __future__ import annotations

import itertools

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from rompicapo.common.intrinsics import declare
from rompicapo.common.jit import njit, target_cpu_features

# configuration k of a digit in a band: peer box p (left to right, or top to bottom) holds it
# in element (minirow, or minicol) PERMS[k][p]
PERMS = tuple(itertools.permutations(range(3)))
ALL = 0x1FF  # the nine digits

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I16 = ir.IntType(16)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
I128 = ir.IntType(128)
V32 = ir.VectorType(I16, 32)
V16 = ir.VectorType(I16, 16)
V8 = ir.VectorType(I16, 8)

# box lanes (see the module docstring)
CELLS = tuple(4 * i + j for i in range(3) for j in range(3))
H = (3, 7, 11)
V = (12, 13, 14)
MINS = tuple(1 if k in CELLS else 6 if k in H + V else 0 for k in range(16))
BOX_ALL = tuple(ALL if k < 15 else 0 for k in range(16))
# lanes of a band's triads T: 4p + e for peer p, element e; lane 15 holds ALL
T_ALL = 15
T_ZERO = 12

# the state: 9 boxes, the 6 bands' configurations, their pending eliminations (480 bytes)
STATE = ir.LiteralStructType([ir.ArrayType(V16, 9), ir.ArrayType(V8, 6), ir.ArrayType(V8, 6)])
S_BOX, S_CFG, S_ELIM = range(3)
STATE_BYTES = 480
# the search's context: limit, solutions found, guesses, propagations, solution output
# the search's context: limit, solutions found, guesses, propagations, solution output, stop
# request (int64[2]: the request, the search's answer)
CTX = ir.LiteralStructType([I64, I64, I64, I64, I8.as_pointer(), I64.as_pointer()])
C_LIMIT, C_FOUND, C_GUESSES, C_PROPAGATIONS, C_OUT, C_STOP = range(6)
POLL_MASK = 1023  # the stop request is read when the guess count is a multiple of 1024
LINKAGE = "internal"  # "external" lets a profiler name the functions


def _has_ssse3():
    """Whether the CPU numba compiles for is an x86-64 with SSSE3 (pshufb)."""
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    return "+ssse3" in target_cpu_features().split(",")


def _const(values, ty=V16):
    return ir.Constant(ty, [ir.Constant(ty.element, int(v)) for v in values])


def _index(values):
    return ir.Constant(ir.VectorType(I32, len(values)), [ir.Constant(I32, int(v)) for v in values])


def _mask(lanes, boxes=1):
    return _lanes([0xFFFF if k in lanes else 0 for k in range(16)], boxes)


def _lanes(values, boxes=1):
    """A constant of ``boxes`` boxes, each with the 16 lane ``values``."""
    return _const(tuple(values) * boxes, ir.VectorType(I16, 16 * boxes))


def _i32(v):
    return ir.Constant(I32, v)


def _i64(v):
    return ir.Constant(I64, v)


def band_peers(u):
    """The boxes of band u (0-2: rows of boxes, 3-5: columns of boxes), by peer position."""
    return [3 * u + p for p in range(3)] if u < 3 else [3 * p + (u - 3) for p in range(3)]


def _rot_row(s):
    """Shuffle: lane 4r + c <- lane 4r + (c + s) % 4 (within a row of the 4x4 matrix)."""
    return [4 * (k // 4) + (k % 4 + s) % 4 for k in range(16)]


def _rot_col(s):
    """Shuffle: lane 4r + c <- lane 4((r + s) % 4) + c (within a column)."""
    return [4 * ((k // 4 + s) % 4) + k % 4 for k in range(16)]


def _other_rows(s):
    """Shuffle of the cell rows: row r <- row (r + s) % 3; row 3 <- 0."""
    return [4 * ((k // 4 + s) % 3) + k % 4 if k < 12 else 16 for k in range(16)]


def _other_triads(s):
    """Shuffle of the H and V lanes: H[i] <- H[(i + s) % 3], V alike; other lanes <- 0."""
    return [
        H[(H.index(k) + s) % 3] if k in H else V[(V.index(k) + s) % 3] if k in V else 16
        for k in range(16)
    ]


def _triad_sources():
    """Two shuffles of a band's configurations (and a constant with ALL in lane 0) whose OR is
    its triads T (lane 4p + e: digits with a configuration putting them in element e of peer
    p; lane T_ALL: ALL; other lanes 0)."""
    first, second = [], []
    for lane in range(16):
        p, e = divmod(lane, 4)
        if p < 3 and e < 3:
            ks = [k for k in range(6) if PERMS[k][p] == e]
            first.append(ks[0])
            second.append(ks[1])
        else:
            src = 8 if lane == T_ALL else 9  # the constant's lane 0 (ALL) or lane 1 (0)
            first.append(src)
            second.append(src)
    return first, second


def _box_message(u, p):
    """Shuffle of (T, NT) giving band u's restriction of its peer p: a cell's digits are its
    triad's, the band's own triad lanes (H for a row band, V for a column band) the digits
    that may be elsewhere in the box (NT), the other triad lanes ALL, lane 15 zero."""
    idx = []
    for lane in range(16):
        i, j = divmod(lane, 4)
        if lane in CELLS:
            idx.append(4 * p + (i if u < 3 else j))
        elif u < 3 and lane in H:
            idx.append(16 + 4 * p + H.index(lane))
        elif u >= 3 and lane in V:
            idx.append(16 + 4 * p + V.index(lane))
        else:
            idx.append(T_ZERO if lane == 15 else T_ALL)
    return idx


class Emitter:
    """Writes the solver's functions into one LLVM module (see the module docstring)."""

    def __init__(self, module: ir.Module, pshufb: bool | None = None):
        """``pshufb``: whether x86 SSSE3's byte shuffle may be used (None: when the CPU numba
        compiles for has it)."""
        self.m = module
        m = self.m
        self.ctpop16 = declare(m, "llvm.ctpop", V16, [V16], overloaded=(0,))
        self.ctpop32 = declare(m, "llvm.ctpop", V32, [V32], overloaded=(0,))
        self.cttz32 = declare(m, "llvm.cttz", I32, [I32, I1], overloaded=(0,))
        self.ctpop128 = declare(m, "llvm.ctpop", I128, [I128], overloaded=(0,))
        self.cttz16 = declare(m, "llvm.cttz", I16, [I16, I1], overloaded=(0,))
        i8p = I8.as_pointer()
        self.memcpy = declare(
            m, "llvm.memcpy", ir.VoidType(), [i8p, i8p, I64, I1], overloaded=(0, 1, 2)
        )
        self.pshufb = None
        if _has_ssse3() if pshufb is None else pshufb:
            v16b = ir.VectorType(I8, 16)
            self.pshufb = declare(m, "llvm.x86.ssse3.pshuf.b.128", v16b, [v16b, v16b])
            # per box: the byte controls giving its row band's and column band's eliminations
            # from [H0, H1, H2, V0, V1, V2, 0, 0]
            rows = []
            for b in range(9):
                bi, bj = divmod(b, 3)
                pair = []
                for base, at in ((0, bj), (3, bi)):
                    ctrl = []
                    for k in range(8):
                        if k < 6:
                            lane = base + PERMS[k][at]
                            ctrl += [2 * lane, 2 * lane + 1]
                        else:
                            ctrl += [0x80, 0x80]
                    pair.append(ir.Constant(v16b, [ir.Constant(I8, c) for c in ctrl]))
                rows.append(ir.Constant(ir.ArrayType(v16b, 2), pair))
            ty = ir.ArrayType(ir.ArrayType(v16b, 2), 9)
            self.spread_table = ir.GlobalVariable(self.m, ty, "rompicapo_sudoku_spread")
            self.spread_table.initializer = ir.Constant(ty, rows)
            self.spread_table.global_constant = True
            self.spread_table.linkage = "internal"
            self.spread_table.align = 16
        self.zero16 = ir.Constant(V16, None)
        self.zero8 = ir.Constant(V8, None)
        sp = STATE.as_pointer()
        self.propagate_fn = self._function("propagate", I1, [sp, I32])
        self.search_fn = self._function("search", ir.VoidType(), [sp, CTX.as_pointer()])
        self.solve_fn = self._function(
            "solve", I64, [I8.as_pointer(), I64, I8.as_pointer(), I64.as_pointer(),
                           I64.as_pointer()]
        )  # fmt: skip

    def _function(self, name, ret, args):
        fn = ir.Function(self.m, ir.FunctionType(ret, args), "rompicapo_sudoku_" + name)
        fn.linkage = LINKAGE
        return fn

    def emit_all(self) -> ir.Function:
        self.emit_propagate()
        self.emit_search()
        self.emit_solve()
        return self.solve_fn

    # -- helpers --------------------------------------------------------------------------
    @staticmethod
    def shuffle(bld, a, idx, b=None):
        """Shuffle of ``a`` (lanes 0-15) and ``b`` (16-31; zeros when None). On a vector of two
        boxes a 16-lane pattern applies to each half."""
        if a.type.count == 32 and len(idx) == 16:
            idx = [x + 16 * h if x < 16 else x + 16 + 16 * h for h in (0, 1) for x in idx]
        return bld.shuffle_vector(a, ir.Constant(a.type, None) if b is None else b, _index(idx))

    @staticmethod
    def andnot(bld, a, b):
        """a & ~b"""
        ones = ir.Constant(b.type, [ir.Constant(I16, 0xFFFF)] * b.type.count)
        return bld.and_(a, bld.xor(b, ones))

    @staticmethod
    def is_zero(bld, v):
        bits = ir.IntType(16 * v.type.count)
        return bld.icmp_unsigned("==", bld.bitcast(v, bits), ir.Constant(bits, 0))

    @staticmethod
    def any_lane(bld, flags):
        """Whether any lane of an ``<N x i1>`` is set."""
        bits = ir.IntType(flags.type.count)
        return bld.icmp_unsigned("!=", bld.bitcast(flags, bits), ir.Constant(bits, 0))

    @staticmethod
    def at(bld, s, part, index):
        """Pointer to a vector of the state: box ``index`` (S_BOX), or band ``index``'s
        configurations (S_CFG) or pending eliminations (S_ELIM); ``index`` an int or an i32."""
        index = _i32(index) if isinstance(index, int) else index
        return bld.gep(s, [_i32(0), _i32(part), index], inbounds=True)

    @staticmethod
    def field(bld, ctx, k):
        return bld.gep(ctx, [_i32(0), _i32(k)], inbounds=True)

    def bump(self, bld, ctx, k):
        p = self.field(bld, ctx, k)
        bld.store(bld.add(bld.load(p), _i64(1)), p)

    @staticmethod
    def mark_if(bld, dirty, changed, unit):
        """Mark ``unit`` (an int, or an i32) in ``dirty`` when ``changed``."""
        bit = _i32(1 << unit) if isinstance(unit, int) else bld.shl(_i32(1), unit)
        bld.store(bld.or_(bld.load(dirty), bld.select(changed, bit, _i32(0))), dirty)

    @staticmethod
    def loop(bld, name, start, blocks):
        """Open a loop block at ``bld`` (its phi starts at ``start``: the caller adds the value
        each back edge brings and branches back to ``phi.parent``) and make the named blocks
        it will use."""
        fn = bld.function
        head = bld.block
        body = fn.append_basic_block(name)
        made = tuple(fn.append_basic_block(f"{name}_{b}") for b in blocks)
        bld.branch(body)
        bld.position_at_end(body)
        phi = bld.phi(start.type)
        phi.add_incoming(start, head)
        return phi, made

    def again_unless_stalled(self, bld, phi, elim, again, out):
        """Close a `loop()`: once more with ``phi & ~elim`` when ``elim`` takes something
        from ``phi``, else on at ``out``."""
        bld.cbranch(self.is_zero(bld, bld.and_(phi, elim)), out, again)
        bld.position_at_end(again)
        phi.add_incoming(self.andnot(bld, phi, elim), again)
        bld.branch(phi.parent)
        bld.position_at_end(out)

    def row_or(self, bld, x):
        """Every lane: the OR of the other three lanes of its row of the 4x4 matrix."""
        r = self.shuffle(bld, x, _rot_row(1))
        for s in (2, 3):
            r = bld.or_(r, self.shuffle(bld, x, _rot_row(s)))
        return r

    def col_or(self, bld, x):
        """Every lane: the OR of the other three lanes of its column."""
        r = self.shuffle(bld, x, _rot_col(1))
        for s in (2, 3):
            r = bld.or_(r, self.shuffle(bld, x, _rot_col(s)))
        return r

    # -- the box rules --------------------------------------------------------------------
    def box_eliminations(self, bld, a):
        """For the asserted literals ``a`` of a box (or two: 32 lanes) (cell lanes: digits
        placed; H/V lanes: digits absent from the minirow / minicol): the box's eliminations,
        and ``y``, the digits placed in each minirow (at its H lane) and minicol (at its V
        lane)."""
        n = a.type.count // 16
        placed = bld.and_(a, _mask(CELLS, n))
        rows = bld.or_(placed, self.row_or(bld, placed))  # minirow i's placed digits, row i
        cols = bld.or_(placed, self.col_or(bld, placed))
        every = bld.or_(
            rows,
            bld.or_(
                self.shuffle(bld, rows, _other_rows(1)), self.shuffle(bld, rows, _other_rows(2))
            ),
        )
        y = bld.or_(bld.and_(rows, _mask(H, n)), bld.and_(cols, _mask(V, n)))
        # a placed digit leaves the other cells, the cell's other digits leave it, the
        # minirow's and minicol's triad lanes lose the digits placed in them
        cell_full = bld.sext(bld.icmp_unsigned("!=", placed, ir.Constant(a.type, None)), a.type)
        elim = bld.or_(bld.or_(bld.and_(every, _mask(CELLS, n)), cell_full), y)
        return bld.xor(elim, placed), y

    def band_messages(self, bld, a, y, b):
        """The eliminations box b sends its two bands, from its assertions ``a`` and ``y``
        (`box_eliminations()`): configurations putting a digit in a minirow it is absent
        from, or in another minirow than the one it is placed in (minicols alike). ``b`` is
        an int, or an i32 known at run time only."""
        x = bld.or_(
            bld.and_(a, _mask(H + V)),
            bld.or_(self.shuffle(bld, y, _other_triads(1)), self.shuffle(bld, y, _other_triads(2))),
        )

        def spread(lanes, at):
            """to band lane k: x[lanes[PERMS[k][at]]], ``at`` the box's place in the band"""
            if isinstance(at, int):
                return self.shuffle(bld, x, [lanes[PERMS[k][at]] for k in range(6)] + [16, 16])
            # the three candidates, picked with lane masks (a scalar condition would become
            # branches)
            options = [spread(lanes, k) for k in range(3)]
            where = bld.insert_element(self.zero8, bld.trunc(at, I16), _i32(0))
            where = self.shuffle(bld, where, [0] * 8)
            pick = options[2]
            for k in (1, 0):
                pick = bld.select(
                    bld.icmp_unsigned("==", where, _const([k] * 8, V8)), options[k], pick
                )
            return pick

        if isinstance(b, int):
            bi, bj = divmod(b, 3)
            return spread(H, bj), spread(V, bi)
        if self.pshufb is not None:
            # a byte shuffle whose control the box picks from a table: the H and V lanes
            # gathered in one 128-bit vector, then one pshufb per band
            g = bld.bitcast(self.shuffle(bld, x, [*H, *V, 16, 16]), ir.VectorType(I8, 16))
            out = []
            for which in (0, 1):
                cp = bld.gep(self.spread_table, [_i32(0), b, _i32(which)], inbounds=True)
                ctrl = bld.load(cp, align=16)
                out.append(bld.bitcast(bld.call(self.pshufb, [g, ctrl]), V8))
            return tuple(out)
        bi = bld.udiv(b, _i32(3))
        bj = bld.sub(b, bld.mul(bi, _i32(3)))
        return spread(H, bj), spread(V, bi)

    def box_work(self, bld, s, boxes, dirty, fail):
        """One box, or two side by side in one vector (``boxes``: ints, or i32 values known
        at run time only): the box rules until they stall; the assertions go to the bands'
        pending eliminations (marking a band when they take something from it). The rules
        are the same for every box, so two boxes make two independent chains in the same
        instructions (a box at its fixpoint does not change in more rounds)."""
        n = len(boxes)
        ptrs = [self.at(bld, s, S_BOX, box) for box in boxes]
        start = bld.load(ptrs[0], align=32)
        if n == 2:
            start = self.shuffle(bld, start, list(range(32)), bld.load(ptrs[1], align=32))
        name = f"box{boxes[0]}" if n == 1 and isinstance(boxes[0], int) else f"boxes{n}"
        cells, (test, again, send) = self.loop(bld, name, start, ("test", "again", "send"))
        count = bld.call(self.ctpop32 if n == 2 else self.ctpop16, [cells])
        at_min = bld.sext(bld.icmp_unsigned("==", count, _lanes(MINS, n)), cells.type)
        rows = self.row_or(bld, cells)
        cols = self.col_or(bld, cells)
        # asserted: a lane at its minimum, or a digit no other lane of its row (or column)
        # of the 4x4 matrix may hold
        a = self.andnot(bld, cells, self.andnot(bld, bld.and_(rows, cols), at_min))
        elim, y = self.box_eliminations(bld, a)
        # contradictions: a lane under its minimum, a digit no lane of a row (column) holds
        under = bld.icmp_unsigned("<", count, _lanes(MINS, n))
        lost = bld.and_(bld.or_(rows, cells), bld.or_(cols, cells))
        hole = bld.icmp_unsigned("!=", lost, _lanes([ALL] * 16, n))
        bld.cbranch(self.any_lane(bld, bld.or_(under, hole)), fail, test)
        bld.position_at_end(test)
        self.again_unless_stalled(bld, cells, elim, again, send)
        for h, (box, ptr) in enumerate(zip(boxes, ptrs, strict=True)):

            def half(v, h=h):
                return v if n == 1 else bld.shuffle_vector(v, v, _index(range(16 * h, 16 * h + 16)))

            bld.store(half(cells), ptr, align=32)
            # the last assertions hold the earlier ones: a literal once asserted stays so
            to_row, to_col = self.band_messages(bld, half(a), half(y), box)
            if isinstance(box, int):
                bi, bj = _i32(box // 3), _i32(box % 3)
            else:
                bi = bld.udiv(box, _i32(3))
                bj = bld.sub(box, bld.mul(bi, _i32(3)))
            for u, new in ((bi, to_row), (bld.add(_i32(3), bj), to_col)):
                ep = self.at(bld, s, S_ELIM, u)
                bld.store(bld.or_(bld.load(ep, align=16), new), ep, align=16)
                # a band's configurations never meet its eliminations after its visit: only
                # the new ones can take something
                cfg = bld.load(self.at(bld, s, S_CFG, u), align=16)
                self.mark_if(bld, dirty, bld.not_(self.is_zero(bld, bld.and_(cfg, new))), u)

    # -- the band rules -------------------------------------------------------------------
    def triads(self, bld, cfg):
        first, second = _triad_sources()
        const = _const([ALL] + [0] * 7, V8)
        return bld.or_(self.shuffle(bld, cfg, first, const), self.shuffle(bld, cfg, second, const))

    def band_work(self, bld, s, u, dirty, fail):
        """Band u: its pending eliminations, the triad-count rule until it stalls, and the
        restriction of its three boxes (marking those that change)."""
        cp = self.at(bld, s, S_CFG, u)
        cfg0 = self.andnot(
            bld, bld.load(cp, align=16), bld.load(self.at(bld, s, S_ELIM, u), align=16)
        )
        cfg, (counted, again, out) = self.loop(bld, f"band{u}", cfg0, ("counted", "again", "out"))
        t = self.triads(bld, cfg)
        count = bld.call(self.ctpop16, [t])
        few = bld.icmp_unsigned("<", count, _const([3 if k in CELLS else 0 for k in range(16)]))
        bld.cbranch(self.any_lane(bld, few), fail, counted)
        bld.position_at_end(counted)
        # a triad only three digits reach holds them: each loses its configurations that
        # put it in another element of that box
        full = bld.select(bld.icmp_unsigned("==", count, _const([3] * 16)), t, self.zero16)
        other = self.row_or(bld, full)
        elim = None
        for p in range(3):
            g = self.shuffle(bld, other, [4 * p + PERMS[k][p] for k in range(6)] + [16, 16])
            elim = g if elim is None else bld.or_(elim, g)
        self.again_unless_stalled(bld, cfg, elim, again, out)
        bld.store(cfg, cp, align=16)
        elsewhere = self.row_or(bld, t)  # per triad: the digits that may be in another one
        for p, box in enumerate(band_peers(u)):
            msg = self.shuffle(bld, t, _box_message(u, p), elsewhere)
            bp = self.at(bld, s, S_BOX, box)
            cells = bld.load(bp, align=32)
            bld.store(bld.and_(cells, msg), bp, align=32)
            changed = bld.not_(self.is_zero(bld, self.andnot(bld, cells, msg)))
            self.mark_if(bld, dirty, changed, 6 + box)

    # -- propagation, search, solve -------------------------------------------------------
    def emit_propagate(self):
        """propagate(state, dirty) -> ok: the rules until nothing changes. ``dirty`` marks the
        bands (bits 0-5) with pending eliminations and the boxes (bits 6-14) whose cells
        changed; sweeps visit the marked ones in a fixed order until none is left."""
        fn = self.propagate_fn
        s, dirty0 = fn.args
        bld = ir.IRBuilder(fn.append_basic_block("entry"))
        fail = fn.append_basic_block("fail")
        dirty = bld.alloca(I32)  # a register after LLVM's mem2reg
        bld.store(dirty0, dirty)
        sweep = fn.append_basic_block("sweep")
        bld.branch(sweep)
        bld.position_at_end(sweep)
        for u in range(6):
            work = fn.append_basic_block(f"work{u}")
            skip = fn.append_basic_block(f"skip{u}")
            d = bld.load(dirty)
            bld.cbranch(bld.icmp_unsigned("!=", bld.and_(d, _i32(1 << u)), _i32(0)), work, skip)
            bld.position_at_end(work)
            bld.store(bld.and_(d, _i32(~(1 << u) & 0xFFFFFFFF)), dirty)
            self.band_work(bld, s, u, dirty, fail)
            bld.branch(skip)
            bld.position_at_end(skip)
        # the marked boxes, two at a time in one vector, in index order; the last one alone
        # runs its own code (its lanes and bands constant)
        pending = bld.alloca(I32)
        d = bld.load(dirty)
        bld.store(bld.lshr(d, _i32(6)), pending)
        bld.store(bld.and_(d, _i32(63)), dirty)
        boxes = fn.append_basic_block("boxes")
        two = fn.append_basic_block("two")
        one = fn.append_basic_block("one")
        swept = fn.append_basic_block("swept")
        bld.branch(boxes)
        bld.position_at_end(boxes)
        left = bld.load(pending)
        some = fn.append_basic_block("some")
        bld.cbranch(bld.icmp_unsigned("==", left, _i32(0)), swept, some)
        bld.position_at_end(some)
        rest = bld.and_(left, bld.sub(left, _i32(1)))
        bld.cbranch(bld.icmp_unsigned("==", rest, _i32(0)), one, two)
        bld.position_at_end(two)
        p = bld.call(self.cttz32, [left, ir.Constant(I1, 1)])
        q = bld.call(self.cttz32, [rest, ir.Constant(I1, 1)])
        bld.store(bld.and_(rest, bld.sub(rest, _i32(1))), pending)
        self.box_work(bld, s, [p, q], dirty, fail)
        bld.branch(boxes)
        bld.position_at_end(one)
        for b in range(8):
            work = fn.append_basic_block(f"work{6 + b}")
            skip = fn.append_basic_block(f"skip{6 + b}")
            bld.cbranch(bld.icmp_unsigned("==", left, _i32(1 << b)), work, skip)
            bld.position_at_end(work)
            self.box_work(bld, s, [b], dirty, fail)
            bld.branch(swept)
            bld.position_at_end(skip)
        self.box_work(bld, s, [8], dirty, fail)
        bld.branch(swept)
        bld.position_at_end(swept)
        done = fn.append_basic_block("done")
        bld.cbranch(bld.icmp_unsigned("!=", bld.load(dirty), _i32(0)), sweep, done)
        bld.position_at_end(done)
        bld.ret(ir.Constant(I1, 1))
        bld.position_at_end(fail)
        bld.ret(ir.Constant(I1, 0))

    def propagate(self, bld, s, ctx, dirty):
        self.bump(bld, ctx, C_PROPAGATIONS)
        return bld.call(self.propagate_fn, [s, dirty])

    def emit_search(self):
        """search(state, ctx): count the solutions below a propagated state (see the module
        docstring); the first one found is written to ctx's output."""
        fn = self.search_fn
        s, ctx = fn.args
        bld = ir.IRBuilder(fn.append_basic_block("entry"))
        top = fn.append_basic_block("top")
        leaf = fn.append_basic_block("leaf")
        solution = fn.append_basic_block("solution")
        first = fn.append_basic_block("first")
        branch = fn.append_basic_block("branch")
        go = fn.append_basic_block("go")
        negate = fn.append_basic_block("negate")
        ret = fn.append_basic_block("ret")
        copy = bld.alloca(STATE)
        copy.align = 32
        bld.branch(top)

        # the band to branch in: fewest configurations over its nine digits, but not fixed
        # (9); every band fixed is a leaf
        bld.position_at_end(top)
        best_key = _i32(-1)
        best_u = _i32(0)
        fixed = ir.Constant(I1, 1)
        for u in range(6):
            c = bld.load(self.at(bld, s, S_CFG, u), align=16)
            n = bld.trunc(bld.call(self.ctpop128, [bld.bitcast(c, I128)]), I32)
            key = bld.sub(n, _i32(10))  # unsigned: a fixed band's is huge
            better = bld.icmp_unsigned("<", key, best_key)
            best_key = bld.select(better, key, best_key)
            best_u = bld.select(better, _i32(u), best_u)
            fixed = bld.and_(fixed, bld.icmp_unsigned("==", n, _i32(9)))
        bld.cbranch(bld.icmp_unsigned(">", best_key, _i32(1000)), leaf, branch)

        # every band has at most nine configurations; propagation leaves every digit at
        # least one in each band (else a box row or column would lack it), so each has
        # exactly one: a solution (checked anyway)
        bld.position_at_end(leaf)
        bld.cbranch(fixed, solution, ret)
        bld.position_at_end(solution)
        fp = self.field(bld, ctx, C_FOUND)
        found = bld.add(bld.load(fp), _i64(1))
        bld.store(found, fp)
        bld.cbranch(bld.icmp_unsigned("==", found, _i64(1)), first, ret)
        bld.position_at_end(first)
        out = bld.load(self.field(bld, ctx, C_OUT))
        for b in range(9):
            box = bld.load(self.at(bld, s, S_BOX, b), align=32)
            bi, bj = divmod(b, 3)
            for i in range(3):
                for j in range(3):
                    x = bld.extract_element(box, _i32(4 * i + j))
                    d = bld.add(bld.call(self.cttz16, [x, ir.Constant(I1, 0)]), ir.Constant(I16, 1))
                    cell = (3 * bi + i) * 9 + 3 * bj + j
                    bld.store(bld.trunc(d, I8), bld.gep(out, [_i64(cell)]))
        bld.branch(ret)

        # the digit of that band with the fewest configurations: two if any, else three,
        # else the first with more (counted bit-sliced over the six configuration lanes)
        # every 1024 guesses: a stop request ends the search (the limit is set to 0, so each
        # caller's check below unwinds at once)
        bld.position_at_end(branch)
        poll = fn.append_basic_block("poll")
        stop = fn.append_basic_block("stop")
        guess = fn.append_basic_block("guess")
        guesses = bld.load(self.field(bld, ctx, C_GUESSES))
        due = bld.icmp_unsigned("==", bld.and_(guesses, _i64(POLL_MASK)), _i64(0))
        bld.cbranch(due, poll, guess)
        bld.position_at_end(poll)
        # an atomic (monotonic) read: another thread writes it, and LLVM must not keep it in a
        # register across the loop
        request = bld.load_atomic(bld.load(self.field(bld, ctx, C_STOP)), "monotonic", 8)
        bld.cbranch(bld.icmp_unsigned("!=", request, _i64(0)), stop, guess)
        bld.position_at_end(stop)
        flag = bld.load(self.field(bld, ctx, C_STOP))
        bld.store(_i64(1), bld.gep(flag, [_i64(1)]))
        bld.store(_i64(0), self.field(bld, ctx, C_LIMIT))
        bld.branch(ret)
        bld.position_at_end(guess)
        cp = self.at(bld, s, S_CFG, best_u)
        cfg = bld.load(cp, align=16)
        zero = ir.Constant(I16, 0)
        one = two = three = four = zero
        for k in range(6):
            x = bld.extract_element(cfg, _i32(k))
            four = bld.or_(four, bld.and_(three, x))
            three = bld.or_(three, bld.and_(two, x))
            two = bld.or_(two, bld.and_(one, x))
            one = bld.or_(one, x)
        only2 = bld.and_(two, bld.not_(three))
        only3 = bld.and_(three, bld.not_(four))
        pick = bld.select(
            bld.icmp_unsigned("!=", only2, zero),
            only2,
            bld.select(bld.icmp_unsigned("!=", only3, zero), only3, four),
        )
        digit = bld.and_(pick, bld.neg(pick))
        spread = self.shuffle(bld, bld.insert_element(self.zero8, digit, _i32(0)), [0] * 6 + [8, 8])
        configs = bld.bitcast(bld.and_(cfg, spread), I128)  # the digit's, one bit per lane
        others = bld.and_(configs, bld.sub(configs, ir.Constant(I128, 1)))  # all but the first
        self.bump(bld, ctx, C_GUESSES)
        i8p = I8.as_pointer()
        bld.call(
            self.memcpy,
            [bld.bitcast(copy, i8p), bld.bitcast(s, i8p), _i64(STATE_BYTES), ir.Constant(I1, 0)],
        )
        mark = bld.shl(_i32(1), best_u)
        ep = self.at(bld, copy, S_ELIM, best_u)
        bld.store(bld.or_(bld.load(ep, align=16), bld.bitcast(others, V8)), ep, align=16)
        bld.cbranch(self.propagate(bld, copy, ctx, mark), go, negate)
        bld.position_at_end(go)
        bld.call(fn, [copy, ctx])
        enough = bld.icmp_unsigned(
            ">=", bld.load(self.field(bld, ctx, C_FOUND)), bld.load(self.field(bld, ctx, C_LIMIT))
        )
        bld.cbranch(enough, ret, negate)
        bld.position_at_end(negate)
        ep = self.at(bld, s, S_ELIM, best_u)
        firstc = bld.bitcast(bld.xor(configs, others), V8)
        bld.store(bld.or_(bld.load(ep, align=16), firstc), ep, align=16)
        bld.cbranch(self.propagate(bld, s, ctx, mark), top, ret)

        bld.position_at_end(ret)
        bld.ret_void()

    def emit_solve(self):
        """solve(puzzle, limit, solution, stats, stop) -> solutions found (at most ``limit``;
        fewer when the stop request ended the search)."""
        fn = self.solve_fn
        puzzle, limit, out, stats, stop = fn.args
        bld = ir.IRBuilder(fn.append_basic_block("entry"))
        run = fn.append_basic_block("run")
        done = fn.append_basic_block("done")
        s = bld.alloca(STATE)
        s.align = 32
        ctx = bld.alloca(CTX)
        for k, val in ((C_LIMIT, limit), (C_FOUND, _i64(0)), (C_GUESSES, _i64(0)),
                       (C_PROPAGATIONS, _i64(0)), (C_OUT, out), (C_STOP, stop)):  # fmt: skip
            bld.store(val, self.field(bld, ctx, k))
        # the givens: per box, the digits as lanes (1 << d >> 1: 0 for an empty cell) are
        # asserted as the box rules would (the box's eliminations, its bands' messages)
        to_rows = [self.zero8] * 3
        to_cols = [self.zero8] * 3
        one = _const([1] * 16)
        for b in range(9):
            bi, bj = divmod(b, 3)
            g = self.zero16
            for i in range(3):
                for j in range(3):
                    cell = (3 * bi + i) * 9 + 3 * bj + j
                    d = bld.zext(bld.load(bld.gep(puzzle, [_i64(cell)])), I16)
                    g = bld.insert_element(g, d, _i32(4 * i + j))
            g = bld.lshr(bld.shl(one, g), one)
            elim, y = self.box_eliminations(bld, g)
            to_row, to_col = self.band_messages(bld, g, y, b)
            bld.store(self.andnot(bld, _const(BOX_ALL), elim), self.at(bld, s, S_BOX, b), align=32)
            to_rows[bi] = bld.or_(to_rows[bi], to_row)
            to_cols[bj] = bld.or_(to_cols[bj], to_col)
        for u in range(6):
            bld.store(_const([ALL] * 6 + [0, 0], V8), self.at(bld, s, S_CFG, u), align=16)
            pending = to_rows[u] if u < 3 else to_cols[u - 3]
            bld.store(pending, self.at(bld, s, S_ELIM, u), align=16)
        # every band and box marked: the boxes' rules run once at least
        bld.cbranch(self.propagate(bld, s, ctx, _i32(0x7FFF)), run, done)
        bld.position_at_end(run)
        bld.call(self.search_fn, [s, ctx])
        bld.branch(done)
        bld.position_at_end(done)
        for k, slot in ((C_GUESSES, 0), (C_PROPAGATIONS, 1)):
            bld.store(bld.load(self.field(bld, ctx, k)), bld.gep(stats, [_i64(slot)]))
        bld.ret(bld.load(self.field(bld, ctx, C_FOUND)))


def solver_function(module: ir.Module) -> ir.Function:
    """The solver's entry ``solve(puzzle, limit, solution, stats, stop)`` in ``module``, written
    there on first use."""
    fn = module.globals.get("rompicapo_sudoku_solve")
    return fn if fn is not None else Emitter(module).emit_all()


def _flat_c(ty, dtype, ndim):
    return (
        isinstance(ty, types.Array) and ty.dtype == dtype and ty.ndim == ndim and ty.layout == "C"
    )


@intrinsic
def _solve_row(typingctx, puzzles, row, limit, solutions, stats, stop):
    """Solve ``puzzles[row]`` into ``solutions[row]`` and ``stats[row]``: the count. ``stop``
    is the stop request (int64[2])."""
    if not (
        _flat_c(puzzles, types.uint8, 2) and _flat_c(solutions, types.uint8, 2)
        and _flat_c(stats, types.int64, 2) and isinstance(row, types.Integer)
        and isinstance(limit, types.Integer) and _flat_c(stop, types.int64, 1)
    ):  # fmt: skip
        return None  # the IR reads and writes flat rows of these types only
    sig = types.int64(puzzles, row, limit, solutions, stats, stop)

    def codegen(context, builder, sig, args):
        pz, rw, lim, sol, st, sp = args
        data = [
            cgutils.create_struct_proxy(ty)(context, builder, value=val).data
            for ty, val in ((sig.args[0], pz), (sig.args[3], sol), (sig.args[4], st),
                            (sig.args[5], sp))
        ]  # fmt: skip
        rw = context.cast(builder, rw, sig.args[1], types.int64)
        lim = context.cast(builder, lim, sig.args[2], types.int64)
        cells = builder.mul(rw, _i64(81))
        return builder.call(
            solver_function(builder.module),
            [
                builder.gep(data[0], [cells]),
                lim,
                builder.gep(data[1], [cells]),
                builder.gep(data[2], [builder.mul(rw, _i64(2))]),
                data[3],
            ],
        )

    return sig, codegen


@njit(cache=True, nogil=True)
def solve_batch(puzzles, max_solutions, solutions, counts, stats, stop):
    """Every row of ``puzzles`` (uint8[P, 81], digits 0-9): ``counts[i]`` solutions up to
    ``max_solutions``, the first in ``solutions[i]``, ``stats[i]`` = [guesses, propagations],
    until ``stop`` (a `KernelStop` flag) asks to stop: then ``stop[1]`` is 1, the row being
    searched keeps the solutions found so far, and the rows after it are left as they were.
    Releases the GIL, so that the stop request's thread runs meanwhile. Call it through
    `solve()` (one compiled signature)."""
    for i in range(puzzles.shape[0]):
        if stop[0] != 0:
            stop[1] = 1
            return
        counts[i] = _solve_row(puzzles, i, max_solutions, solutions, stats, stop)
        if stop[1] != 0:
            return


def solve(
    puzzles: np.ndarray, max_solutions: int, stop: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(counts int32[P], solutions uint8[P, 81], stats int64[P, 2])`` for ``puzzles``
    (uint8[P, 81], digits 0-9, checked by the caller), counting each up to ``max_solutions``
    (at least 1); ``stats`` rows are [guesses, propagations]. ``stop``: a `KernelStop` flag;
    when the search answered it (``stop[1] == 1``), the rows not reached count -1 and the last
    row reached holds the solutions counted before the stop (a lower bound).

    ```pycon
    >>> counts, solutions, stats = solve(np.zeros((2, 81), np.uint8), 3)  # empty grids
    >>> counts.tolist()
    [3, 3]
    >>> sorted(solutions[0, :9].tolist())
    [1, 2, 3, 4, 5, 6, 7, 8, 9]

    ```"""
    # always the same argument types: one compiled signature
    puzzles = np.require(puzzles, np.uint8, ["C", "W"]).reshape(-1, 81)
    solutions = np.zeros_like(puzzles)
    counts = np.full(len(puzzles), -1, np.int32)
    stats = np.zeros((len(puzzles), 2), np.int64)
    if stop is None:
        stop = np.zeros(2, np.int64)
    solve_batch(puzzles, int(max_solutions), solutions, counts, stats, stop)
    return counts, solutions, stats
