"""A software prefetch for compiled loops that read one array at random positions.

Dual coordinate descent reads and writes α_p at the pairs' random order; each access misses
every cache at 10⁷–10⁸ pairs, and the loop's long chain of dependent arithmetic (the gradient
through w, the step) keeps the processor from running ahead to the next misses. Asking for the
cache line of the pair a few dozen steps ahead overlaps those misses with the arithmetic: a
measured epoch-like pass over 10⁸ pairs took 18–21 s without and 5.2–5.4 s with it. LLVM's
``llvm.prefetch`` is emitted through a numba intrinsic (numba has no prefetch of its own); a
prefetch is a hint and never faults.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["prefetch"]

#: how many steps ahead a loop asks for the line it will read
DISTANCE = 32


def _prefetch(typingctx, array, index):
    """Ask for the cache line of ``array[index]`` (for writing, to be kept in every cache level)."""
    signature = types.void(array, index)

    def codegen(context, builder, sig, args):
        array_type = sig.args[0]
        pointer = cgutils.get_item_pointer(context, builder, array_type,
                                           context.make_array(array_type)(context, builder, args[0]), [args[1]])
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]), "llvm.prefetch.p0i8")
        # arguments: address, 1 = for a write, 3 = keep in all levels, 1 = data (not instructions)
        builder.call(function, [builder.bitcast(pointer, byte_pointer), ir.Constant(i32, 1), ir.Constant(i32, 3),
                                ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return signature, codegen


#: ``prefetch(array, index)`` inside a compiled function (typed for the callers' type checks)
prefetch = cast(Callable[[Any, Any], None], intrinsic(_prefetch))
