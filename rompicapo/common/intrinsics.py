"""The LLVM operations that rompicapo's kernels use and numba does not spell: one module, one
idiom.

Two kinds of kernel use them:

- numba kernels call the intrinsics below like functions: `popcount()`, `lowest_bit()`,
  `trailing_zeros()`, `prefetch()`, `stream_store()` and `store_fence()`;
- kernels written as LLVM IR (the 9x9 Sudoku solver, the Eternity II machine) declare LLVM's
  intrinsics with `declare()`, which names an overloaded intrinsic after the very types it
  is declared with (``llvm.ctpop.v16i16``, ``llvm.memcpy.p0i8.p0i8.i64``, ``llvm.prefetch.p0i8``).

The one idiom is that last rule: every overloaded intrinsic, here and in the IR kernels, gets
the name its argument types mangle to, as llvmlite prints those types. llvmlite 0.43 to 0.50 print
typed pointers (``i8*``, so ``p0i8``), and each LLVM from 14 on reads that name for those types;
where an LLVM build reads the module with opaque pointers it renames the declaration itself, as
it renames any name written for typed pointers. No name is written by hand for one LLVM.

```pycon
>>> from llvmlite import ir
>>> m = ir.Module()
>>> declare(m, "llvm.ctpop", ir.VectorType(ir.IntType(16), 16),
...         [ir.VectorType(ir.IntType(16), 16)], overloaded=(0,)).name
'llvm.ctpop.v16i16'

```
"""

from __future__ import annotations

import platform
from collections.abc import Sequence

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = [
    "declare",
    "lowest_bit",
    "mangled",
    "popcount",
    "prefetch",
    "store_fence",
    "stream_store",
    "trailing_zeros",
]

_X86 = platform.machine().lower() in ("x86_64", "amd64")
_I1 = ir.IntType(1)
_I32 = ir.IntType(32)


def mangled(ty: ir.Type) -> str:
    """The suffix LLVM gives an overloaded intrinsic for an argument of type ``ty``: ``i64``,
    ``v16i16``, and for a pointer what llvmlite prints for it (``p0i8`` for ``i8*``).

    ```pycon
    >>> mangled(ir.IntType(128)), mangled(ir.VectorType(ir.IntType(8), 16))
    ('i128', 'v16i8')

    ```"""
    if isinstance(ty, ir.IntType):
        return f"i{ty.width}"
    if isinstance(ty, ir.VectorType):
        return f"v{ty.count}{mangled(ty.element)}"
    if isinstance(ty, ir.PointerType):
        return ty.intrinsic_name
    raise TypeError(f"no intrinsic suffix for the LLVM type {ty}")


def declare(
    module: ir.Module,
    name: str,
    ret: ir.Type,
    args: Sequence[ir.Type],
    *,
    overloaded: Sequence[int] = (),
) -> ir.Function:
    """The declaration of LLVM's intrinsic ``name`` in ``module`` (made once): returning
    ``ret`` from ``args``. ``overloaded``: the positions of the arguments whose types name the
    intrinsic, in order (``(0,)`` for ``llvm.ctpop``; ``(0, 1, 2)`` for ``llvm.memcpy``'s two
    pointers and length); none for a target's own intrinsic (``llvm.x86.sse.sfence``)."""
    suffix = [mangled(args[k]) for k in overloaded]
    full = ".".join([name, *suffix])
    existing = module.globals.get(full)
    if existing is not None:
        return existing
    return ir.Function(module, ir.FunctionType(ret, list(args)), full)


def _integer(ty: types.Type) -> bool:
    return isinstance(ty, types.Integer)


@intrinsic
def popcount(typingctx, word):
    """The number of 1 bits of an integer, of its own type (LLVM's ``ctpop``: one POPCNT
    instruction on x86-64 CPUs since 2008, a short bit trick elsewhere)."""
    if not _integer(word):
        return None
    sig = word(word)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


def _count_trailing_zeros(nonzero: bool):
    """LLVM's ``cttz`` on an integer, of its own type; ``nonzero``: the caller promises a
    nonzero word, so LLVM may use a bare TZCNT or BSF."""

    def typer(typingctx, word):
        if not _integer(word):
            return None

        def codegen(context, builder, signature, args):
            return builder.cttz(args[0], ir.Constant(_I1, int(nonzero)))

        return word(word), codegen

    return typer


lowest_bit = intrinsic(_count_trailing_zeros(nonzero=True))
lowest_bit.__doc__ = """The index of the lowest 1 bit of a nonzero integer (TZCNT or BSF). Undefined
for zero: the caller has checked."""
trailing_zeros = intrinsic(_count_trailing_zeros(nonzero=False))
trailing_zeros.__doc__ = """The number of 0 bits below the lowest 1 bit of an integer: its width for
zero."""


@intrinsic
def prefetch(typingctx, table, index):
    """Ask the CPU to bring ``table[index]`` into its caches (LLVM's ``prefetch``: read, highest
    locality, data). No effect on results: a hint for a table in main memory whose entry is
    needed a little later."""
    if not isinstance(table, types.Array) or not _integer(index):
        return None
    sig = types.void(table, index)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
        voidptr = cgutils.voidptr_t
        fn = declare(builder.module, "llvm.prefetch", ir.VoidType(),
                     [voidptr, _I32, _I32, _I32], overloaded=(0,))  # fmt: skip
        builder.call(fn, [builder.bitcast(ptr, voidptr), _I32(0), _I32(3), _I32(1)])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def stream_store(typingctx, arr, idx, val):
    """``arr[idx] = val`` (val cast to the array's type) as a non-temporal ("streaming") store.

    A plain store to memory that is not in cache first reads the cache line (read for
    ownership), so filling a 400 MB path array moves 800 MB. A store marked ``!nontemporal``
    (MOVNTI on x86-64) goes to memory through write-combining buffers without that read: the
    block cycle's fill of 10^8 cells went from 0.14 to 0.09 CPU s. Only for arrays far larger
    than the caches and not read back at once; `store_fence()` after the last of them."""
    if not isinstance(arr, types.Array) or not _integer(idx):
        return None
    sig = types.void(arr, idx, val)

    def codegen(context, builder, signature, args):
        aryty, idxty, valty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        index = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [index])
        value = context.cast(builder, args[2], valty, aryty.dtype)
        store = builder.store(value, ptr)
        store.set_metadata("nontemporal", builder.module.add_metadata([_I32(1)]))
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def store_fence(typingctx):
    """Make the streaming stores before it visible before any store after it (SFENCE on x86-64;
    other machines get a plain store for ``!nontemporal`` and need nothing)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        if _X86:
            fn = declare(builder.module, "llvm.x86.sse.sfence", ir.VoidType(), [])
            builder.call(fn, [])
        return context.get_dummy_value()

    return sig, codegen
