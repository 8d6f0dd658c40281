"""Bit instructions for card masks (numba): population count and trailing zeros.

A hand is a 64-bit mask (``simulator.core.cards``).  Counting its cards and finding its lowest
card are single machine instructions (``popcnt``, ``tzcnt``); numba has no function for them,
so these are LLVM's ``ctpop`` and ``cttz`` intrinsics, usable only inside compiled code.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def ctpop_u64(typingctx, x):
    """Number of set bits of a uint64 or int64 (an int64)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [args[0]])

    return types.int64(x), codegen


@intrinsic
def cttz_u64(typingctx, x):
    """Number of trailing zero bits of a uint64 or int64 (an int64; 64 for zero)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        fn = builder.module.declare_intrinsic("llvm.cttz", [ir.IntType(64), ir.IntType(1)])
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])

    return types.int64(x), codegen
