"""The walking kernel as a state machine specialised to one plan: one set of blocks per depth,
the plan's constants folded in, written as LLVM IR by a numba intrinsic.

This is how libblackwood is fast: it generates C for the puzzle and the fill order, one label
per depth with the cell, the neighbours, the tables, the quota and the allowance as constants,
and gotos from depth to depth (read how, nothing copied). numba has no goto, so the machine is
emitted as IR: depth ``k`` has an *enter* block (the key from its two neighbours, the start of
its list), a *scan* (the same scan as `walk()`'s, with only the
checks depth ``k`` needs), a *place* step that branches to depth ``k + 1``'s enter block and a
*retreat* that frees depth ``k - 1``'s piece and branches back into depth ``k - 1``'s scan. Each
depth's loop has its own branches, so the predictor keeps a history per depth.

Folded in: each depth's cell, neighbours, table, joints and which checks it needs (quota,
breaks). Read at run time from the records: the quota and the allowance themselves, which
parameter studies vary, so plans that differ only in those values share one machine (the
test suite's Eternity II searches need 5 machines instead of 14).

Measured against `walk()` on Eternity II, both advanced in
lockstep in one process on the same tables (2026-12-02, AMD EPYC, 3 tables x 150 M
placements, same nodes and boards): x1.235, 1.252, 1.231 with every constant folded; reading
the quota and the allowance measured 1.005 of that (kept), reading the table and the joints
too 0.978, and reading every field with one scan for all kinds of depth x1.14 over ``walk``.

The price is compilation: a machine takes about 13 s to compile for 256 cells (3 s for 64),
so `rompicapo.edges.blackwood` uses one from ``MACHINE_CELLS`` cells on, and by default
only for a search long enough to repay it or when it is compiled already (``Settings.kernel``).
Each machine is a small generated module, written once to the cache folder
(`cache_folder()`) under a name that hashes its constants and this file, and compiled
with ``cache=True``: a second run of the same plan shape loads it in about half a second.

The machine's contract is `walk()`'s (same state, counters, node
count and boards on the same tables; tests/edges/test_edges_kernel_speedpath.py checks node for
node against the general kernel), with two more arguments for the adaptive filter: ``floor``
(a retreat below it ends the walk with status EXHAUSTED and depth ``floor - 1``) and ``shift``
(where the start words the scan uses sit, from the records' table base: ``0`` for the tables'
own code, or the copy's offset, see `filter_walk_code()`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from rompicapo.common.jit import (
    forget_generated,
    generated_folder,
    njit,
    numba_index_folder,
    source_digest,
)
from rompicapo.edges import _kernel as K

# The machine's registers, passed in and out through one int64 array.
R_DEPTH, R_INDEX, R_BREAKS, R_HEUR, R_LEFT, R_BEST, R_STATUS, R_FLOOR, R_SHIFT = range(9)
N_REGS = 9

# element types of code, avail, placed, shown, heat, best and regs
_DTYPES = (
    types.int32,
    types.int16,
    types.int32,
    types.int32,
    types.int64,
    types.int32,
    types.int64,
)
_I16 = ir.IntType(16)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_I8P = ir.IntType(8).as_pointer()


def plan_constants(code: np.ndarray, n: int) -> tuple[tuple[int, ...], ...]:
    """Per position, the record fields of a walking kernel's ``code`` (``P_CELL`` ..
    ``P_KIND``) that the machine folds in: all but the quota and the allowance (zero here)."""
    records = np.asarray(code[: n * K.P_STRIDE], dtype=np.int64).reshape(n, K.P_STRIDE)
    # the quota and the allowance are read at run time (see the module docstring): zeroed
    # here, so plans that differ only in their values share one machine
    records[:, [K.P_QUOTA, K.P_ALLOW]] = 0
    return tuple(tuple(int(x) for x in row) for row in records)


def emit(builder: ir.IRBuilder, arrays: list, constants: tuple) -> None:
    """Write the machine for ``constants`` (`plan_constants()`) at ``builder``'s position:
    ``arrays`` are the data pointers of ``code``, ``avail``, ``placed``, ``shown``, ``heat``,
    ``best`` and ``regs``. It starts at ``regs[R_DEPTH]``'s scan, resuming at
    ``regs[R_INDEX]``, and stores its registers back when it stops."""
    code, avail, placed, shown, heat, best, regs = arrays
    n = len(constants)
    fn = builder.function

    def i32(v):
        return ir.Constant(_I32, v)

    def i64(v):
        return ir.Constant(_I64, v)

    def at(ptr, index):
        return builder.gep(ptr, [index], inbounds=True)

    def load(ptr, index):
        return builder.load(at(ptr, index))

    def block(name, k):
        return fn.append_basic_block(f"{name}{k}")

    # registers as stack slots: LLVM's mem2reg turns them into SSA values
    reg_names = ("j", "breaks", "heur", "left", "best", "depth", "status")
    j, brk, heu, left, best_score, depth, status = (
        cgutils.alloca_once(builder, _I64, name=name) for name in reg_names
    )
    for slot, r in ((j, R_INDEX), (brk, R_BREAKS), (heu, R_HEUR), (left, R_LEFT)):
        builder.store(load(regs, i64(r)), slot)
    builder.store(load(regs, i64(R_BEST)), best_score)
    builder.store(i64(K.RUNNING), status)
    floor = load(regs, i64(R_FLOOR))
    shift = load(regs, i64(R_SHIFT))
    start = load(regs, i64(R_DEPTH))
    builder.store(start, depth)

    enter = [block("enter", k) for k in range(n)]
    scan = [block("scan", k) for k in range(n)]
    done = fn.append_basic_block("done")
    switch = builder.switch(start, done)
    for k in range(n):
        switch.add_case(i64(k), scan[k])

    def stop(at_depth, new_status=None):
        builder.store(i64(at_depth), depth)
        if new_status is not None:
            builder.store(i64(new_status), status)
        builder.branch(done)

    def field(k, f):
        return builder.sext(load(code, i64(k * K.P_STRIDE + f)), _I64)

    for k, (cell, cell_left, cell_below, tbase, _, _, joints, kind) in enumerate(constants):
        # enter k: the key from the two neighbours' shown words, the start of its list
        builder.position_at_end(enter[k])
        shown_left = builder.sext(load(shown, i64(cell_left)), _I64)
        shown_below = builder.sext(load(shown, i64(cell_below)), _I64)
        key = builder.or_(
            builder.and_(shown_left, i64(K.SHOWN_RIGHT)),
            builder.and_(shown_below, i64(K.COLOUR_MASK)),
        )
        start_word = builder.add(builder.add(shift, i64(tbase)), key)
        builder.store(builder.sext(load(code, start_word), _I64), j)
        builder.branch(scan[k])

        # scan k: the first unused entry under the limit (the break allowance), and the quota
        builder.position_at_end(scan[k])
        if kind & K.KIND_BREAKS:
            more = builder.icmp_signed(">", field(k, K.P_ALLOW), builder.load(brk))
            limit = builder.select(more, i32(K.LIM_BREAK), i32(K.LIM_EXACT))
        else:
            limit = i32(K.LIM_EXACT)
        if kind & K.KIND_QUOTA:
            need = builder.sub(field(k, K.P_QUOTA), builder.load(heu))
        step, check, skip, found, place, fail = (
            block(name, k) for name in ("step", "check", "skip", "found", "place", "fail")
        )
        builder.branch(step)
        builder.position_at_end(step)
        index = builder.load(j)
        word = load(code, index)
        builder.cbranch(builder.icmp_signed("<", word, limit), check, fail)
        builder.position_at_end(check)
        piece = builder.zext(builder.and_(word, i32(K.PIECE_MASK)), _I64)
        copies = load(avail, piece)
        builder.cbranch(builder.icmp_signed("!=", copies, ir.Constant(_I16, 0)), found, skip)
        builder.position_at_end(skip)
        builder.store(builder.add(index, i64(1)), j)
        builder.branch(step)
        builder.position_at_end(found)
        heur = builder.zext(builder.and_(builder.lshr(word, i32(K.HEUR_SHIFT)), i32(7)), _I64)
        if kind & K.KIND_QUOTA:
            # lists are sorted by heuristic count: the first one under the quota ends the scan
            builder.cbranch(builder.icmp_signed("<", heur, need), fail, place)
        else:
            builder.branch(place)

        # place k, then enter k + 1
        builder.position_at_end(place)
        builder.store(builder.sub(copies, ir.Constant(_I16, 1)), at(avail, piece))
        builder.store(builder.trunc(index, _I32), at(placed, i64(k)))
        shown_word = builder.and_(builder.lshr(word, i32(K.TOP_SHIFT)), i32(K.SHOWN_MASK))
        builder.store(shown_word, at(shown, i64(cell)))
        breaks = builder.add(
            builder.load(brk), builder.zext(builder.lshr(word, i32(K.BREAK_SHIFT)), _I64)
        )
        builder.store(breaks, brk)
        builder.store(builder.add(builder.load(heu), heur), heu)
        heat_at = at(heat, i64(cell))
        builder.store(builder.add(builder.load(heat_at), i64(1)), heat_at)
        score = builder.sub(i64(joints), breaks)
        better, placed_ok = block("better", k), block("placed", k)
        is_better = builder.icmp_signed(">", score, builder.load(best_score))
        builder.cbranch(is_better, better, placed_ok)
        builder.position_at_end(better)
        builder.store(score, best_score)
        # the best board: positions 0..k as placed, the rest empty (-1: every byte 0xFF)
        cgutils.raw_memcpy(
            builder, builder.bitcast(best, _I8P), builder.bitcast(placed, _I8P), i64(k + 1), 4
        )
        if k + 1 < n:
            cgutils.memset(builder, at(best, i64(k + 1)), i64((n - k - 1) * 4), 0xFF)
        builder.branch(placed_ok)
        builder.position_at_end(placed_ok)
        if k + 1 == n:
            stop(n, K.SOLVED)
        else:
            nodes_left = builder.load(left)
            out, on = block("out", k), block("on", k)
            builder.cbranch(builder.icmp_signed("==", nodes_left, i64(0)), out, on)
            builder.position_at_end(out)
            builder.store(i32(-1), at(placed, i64(k + 1)))  # the next call starts it fresh
            stop(k + 1)
            builder.position_at_end(on)
            builder.store(builder.sub(nodes_left, i64(1)), left)
            builder.branch(enter[k + 1])

        # retreat from k to k - 1: free its piece, resume its scan after its entry
        builder.position_at_end(fail)
        below_floor, back = block("below", k), block("back", k)
        builder.cbranch(builder.icmp_signed("<", i64(k - 1), floor), below_floor, back)
        builder.position_at_end(below_floor)
        stop(k - 1, K.EXHAUSTED)
        builder.position_at_end(back)
        if k == 0:
            builder.unreachable()  # -1 is below every floor (floor >= 0)
            continue
        nodes_left = builder.load(left)
        out, on = block("back_out", k), block("back_on", k)
        builder.cbranch(builder.icmp_signed("==", nodes_left, i64(0)), out, on)
        builder.position_at_end(out)
        stop(k - 1)  # placed[k - 1] keeps its piece: the next call frees it
        builder.position_at_end(on)
        builder.store(builder.sub(nodes_left, i64(1)), left)
        prev = builder.sext(load(placed, i64(k - 1)), _I64)
        prev_word = load(code, prev)
        prev_piece = at(avail, builder.zext(builder.and_(prev_word, i32(K.PIECE_MASK)), _I64))
        builder.store(builder.add(builder.load(prev_piece), ir.Constant(_I16, 1)), prev_piece)
        prev_breaks = builder.zext(builder.lshr(prev_word, i32(K.BREAK_SHIFT)), _I64)
        builder.store(builder.sub(builder.load(brk), prev_breaks), brk)
        prev_heur = builder.and_(builder.lshr(prev_word, i32(K.HEUR_SHIFT)), i32(7))
        builder.store(builder.sub(builder.load(heu), builder.zext(prev_heur, _I64)), heu)
        builder.store(builder.add(prev, i64(1)), j)
        builder.branch(scan[k - 1])

    builder.position_at_end(done)
    for slot, r in (
        (j, R_INDEX),
        (brk, R_BREAKS),
        (heu, R_HEUR),
        (left, R_LEFT),
        (best_score, R_BEST),
        (depth, R_DEPTH),
        (status, R_STATUS),
    ):
        builder.store(builder.load(slot), at(regs, i64(r)))


def machine(constants: tuple):
    """The numba intrinsic ``run(code, avail, placed, shown, heat, best, regs)`` that runs the
    machine of ``constants`` (see `emit()`) on the arrays' data."""

    @intrinsic
    def run(typingctx, code, avail, placed, shown, heat, best, regs):
        # the IR is written for flat arrays of these element types (K.new_state's): anything
        # else is a typing error here, not a wrong load in the machine
        given = (code, avail, placed, shown, heat, best, regs)
        if tuple(getattr(a, "dtype", None) for a in given) != _DTYPES:
            return None
        if any(a.ndim != 1 or a.layout != "C" for a in given):  # the machine indexes flat data
            return None
        signature = types.none(*given)

        def codegen(context, builder, sig, args):
            arrays = [
                cgutils.create_struct_proxy(ty)(context, builder, value=value).data
                for ty, value in zip(sig.args, args, strict=True)
            ]
            emit(builder, arrays, constants)
            return context.get_dummy_value()

        return signature, codegen

    return run


@njit(cache=True)
def enter(code, avail, placed, shown, cum_breaks, cum_heur, counters, max_nodes, floor, shift):
    """The registers the machine starts with (`walk()`'s first
    node: a piece left on the current depth by a retreat is freed and its scan resumes after
    it; a fresh depth starts its list)."""
    regs = np.zeros(N_REGS, dtype=np.int64)
    i = counters[K.C_DEPTH]
    regs[R_DEPTH] = i
    regs[R_BEST] = counters[K.C_BEST_SCORE]
    regs[R_STATUS] = K.RUNNING
    regs[R_FLOOR] = floor
    regs[R_SHIFT] = shift
    if max_nodes > 0:
        regs[R_LEFT] = max_nodes - 1
        regs[R_BREAKS] = cum_breaks[i]
        regs[R_HEUR] = cum_heur[i]
        j = placed[i]
        if j >= 0:
            avail[code[j] & K.PIECE_MASK] += 1
            j += 1
        else:
            p = i * K.P_STRIDE
            key = (shown[code[p + K.P_LEFT]] & K.SHOWN_RIGHT) | (
                shown[code[p + K.P_BELOW]] & K.COLOUR_MASK
            )
            j = code[code[p + K.P_TBASE] + shift + key]
        regs[R_INDEX] = j
    return regs


@njit(cache=True)
def leave(code, placed, cum_breaks, cum_heur, heat, counters, max_nodes, regs):
    """Write the machine's registers back as `walk()` leaves its
    counters (and the totals below the depth it stopped at, for the next call)."""
    n = placed.shape[0]
    i = regs[R_DEPTH]
    status = regs[R_STATUS]
    nodes = 0
    if max_nodes > 0:
        nodes = max_nodes - regs[R_LEFT]
        if status == K.RUNNING:
            brk = regs[R_BREAKS]
            heu = regs[R_HEUR]
            j = placed[i]
            if j >= 0:  # a piece left on i by a retreat is freed by the next call
                brk -= code[j] >> K.BREAK_SHIFT
                heu -= (code[j] >> K.HEUR_SHIFT) & 7
            cum_breaks[i] = brk
            cum_heur[i] = heu
    best_depth = counters[K.C_BEST_DEPTH]
    while best_depth < n and heat[code[best_depth * K.P_STRIDE + K.P_CELL]] != 0:
        best_depth += 1
    counters[K.C_PLACEMENTS] += (nodes + i - counters[K.C_DEPTH]) // 2
    counters[K.C_DEPTH] = max(i, 0)
    counters[K.C_NODES] += nodes
    counters[K.C_BEST_DEPTH] = best_depth
    counters[K.C_BEST_SCORE] = regs[R_BEST]
    counters[K.C_STATUS] = status


# The module written for each plan. It holds the plan's constants and the compiled function,
# so numba's cache (``cache=True``) keys the compiled machine to this file.
_SOURCE = '''"""rompicapo's walking machine for one plan, written by rompicapo.edges._walk_machine
(version {version}). Safe to delete: it is written again when needed."""

from rompicapo.common.jit import njit

from rompicapo.edges import _walk_machine as M

CONSTANTS = {constants!r}
RUN = M.machine(CONSTANTS)


@njit(cache=True)
def walk(
    code, avail, placed, shown, cum_breaks, cum_heur, heat, best, counters, max_nodes, floor,
    shift,
):
    regs = M.enter(
        code, avail, placed, shown, cum_breaks, cum_heur, counters, max_nodes, floor, shift
    )
    if max_nodes > 0:
        RUN(code, avail, placed, shown, heat, best, regs)
    M.leave(code, placed, cum_breaks, cum_heur, heat, counters, max_nodes, regs)
'''

_loaded: dict[str, Callable] = {}


def _version() -> str:
    """A digest of the code the machine is built from (this file, the kernel's layout and every
    module they import, `source_digest()`): a change to any gives new module names, so no
    stale compiled machine is loaded."""
    return source_digest(__file__)


def cache_folder() -> Path:
    """Where the plans' modules (and numba's cache of them) go: ``$ROMPICAPO_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/rompicapo`` or ``~/.cache/rompicapo``, each under ``walk-machines``; a
    private temporary folder (one per process) when none of these can be written."""
    return generated_folder("walk-machines")


def _forget_other_versions(folder: Path, version: str) -> None:
    """Delete the machines (and numba's cache of them, wherever numba keeps it) that another
    version of this file or of the kernel's layout wrote: they are never loaded again."""
    forget_generated(folder, "walk_*_*.py", lambda old: old.stem.split("_")[1] == version)


def _name(code: np.ndarray, n: int) -> str:
    """The machine's name: the version digest and a digest of its constants."""
    digest = hashlib.sha256(repr(plan_constants(code, n)).encode()).hexdigest()[:16]
    return f"{_version()}_{digest}"


def compiled(code: np.ndarray, n: int) -> bool:
    """Whether the machine for this plan is loaded in this process or compiled in the cache
    folder (its module and numba's index of it are there): using it costs no compilation."""
    name = _name(code, n)
    if name in _loaded:
        return True
    folder = cache_folder()
    return (folder / f"walk_{name}.py").is_file() and any(
        numba_index_folder(folder).glob(f"walk_{name}.*.nbi")
    )


def walker(code: np.ndarray, n: int) -> Callable:
    """The compiled machine for the plan whose walking-kernel ``code`` (its first ``n``
    records) is given: ``walk(code, avail, placed, shown, cum_breaks, cum_heur, heat, best,
    counters, max_nodes, floor, shift)``. Written and compiled on first use (numba compiles on
    the first call), loaded from the cache folder after that, kept for the process."""
    constants = plan_constants(code, n)
    version = _version()
    name = _name(code, n)
    if name in _loaded:
        return _loaded[name]
    folder = cache_folder()
    path = folder / f"walk_{name}.py"
    if not path.is_file():
        _forget_other_versions(folder, version)
    text = _SOURCE.format(version=version, constants=constants)
    try:
        intact = path.read_text() == text
    except (OSError, UnicodeDecodeError):
        intact = False
    if not intact:  # missing, or damaged since: (re)write it whole
        tmp = folder / f".walk_{name}.{os.getpid()}.tmp"
        tmp.write_text(text)
        try:
            # the first writer wins and the file is never touched again, so numba's cache of
            # it (keyed to the file's time stamp) stays valid when two processes start at once
            os.link(tmp, path)
        except FileExistsError:
            if path.read_text() != text:
                os.replace(tmp, path)
        except OSError:  # no hard links on this file system
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    module_name = f"rompicapo_walk_{name}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the walking machine {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    _loaded[name] = module.walk
    return module.walk


def _first_call(walk: Callable, code: np.ndarray, n: int) -> None:
    """Call ``walk`` for no nodes on a fresh state: numba compiles it, or loads its cache."""
    state = K.new_state(n, np.zeros(1, dtype=np.int64))
    avail, placed, shown, _, _, _, cum_breaks, cum_heur, heat, best, counters = state
    walk(code, avail, placed, shown, cum_breaks, cum_heur, heat, best, counters, 0, 0, 0)


def compiled_walker(code: np.ndarray, n: int) -> Callable:
    """`walker()`, compiled (or loaded from numba's cache) before it is returned. A cache
    that numba cannot read (a damaged index or data file raises while loading) is deleted and
    the machine compiled again; an OSError (nothing can be written) is the caller's."""
    walk = walker(code, n)
    try:
        _first_call(walk, code, n)
    except OSError:
        raise
    except Exception:  # numba's own errors while reading a damaged cache vary
        name = _name(code, n)
        for stale in numba_index_folder(cache_folder()).glob(f"walk_{name}.*"):
            stale.unlink(missing_ok=True)
        _loaded.pop(name, None)
        walk = walker(code, n)  # a fresh module: a new dispatcher, no cache to read
        _first_call(walk, code, n)
    return walk
