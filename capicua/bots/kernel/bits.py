"""Bit operations the kernel's jitted code calls on int64 tile masks: the
lowest set bit, the number of set bits, the zero bits above the highest one.

They compile to one machine instruction each (LLVM's ``cttz``, ``ctpop``,
``ctlz``) inside the function that calls them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from llvmlite import ir
from numba.extending import intrinsic

# numba's @intrinsic wraps its typing function, so mypy reads that function's
# signature (typingctx, src) as the call's, while jitted code calls the
# intrinsic with ``src`` alone. The casts state the real call for mypy; at run
# time each name is numba's intrinsic object, unchanged.
_BitOp = Callable[[Any], Any]


def _cttz_typing(typingctx: Any, src: Any) -> Any:
    """Index of the lowest set bit (src != 0)."""
    sig = src(src)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


def _popcount_typing(typingctx: Any, src: Any) -> Any:
    """Number of set bits."""
    sig = src(src)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return sig, codegen


def _clz_typing(typingctx: Any, src: Any) -> Any:
    """Number of zero bits above the highest set bit (src != 0)."""
    sig = src(src)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


cttz = cast(_BitOp, intrinsic(_cttz_typing))
popcount = cast(_BitOp, intrinsic(_popcount_typing))
clz = cast(_BitOp, intrinsic(_clz_typing))
