"""The work row's 8-byte words read as another 8-byte type, inside numba.

A match's work row (``simulator.engine.work``) is one int64 array; the strategies' parameter
rows in it are float64 and the random streams uint64.  ``as_float64_nb(a)`` and
``as_uint64_nb(a)`` give the same memory as such an array, as ``a.view(np.float64)`` would,
for a contiguous one-dimensional array of 8-byte words.

numba's own ``view`` first compiles numpy's check of whether the new type fits the array's
last axis (a function of its own for each pair of types, about a tenth of a second of the
cold start each) and checks it on every call; between two types of the same size that
check never fails, so these read the words as they are, and refuse at compile time
anything but a contiguous 1-D array of 8-byte words read as another 8-byte type.  The new
array shares the old one's memory and its reference count (a borrowed view, as numba's).
"""

from __future__ import annotations

from numba.core import types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import make_array


def _words_as(target):
    """An intrinsic reading a C-contiguous 1-D array of 8-byte words as ``target`` words."""

    def typer(typingctx, a):
        if not (isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"
                and getattr(a.dtype, "bitwidth", 0) == 64):
            return None  # numba then says no signature matches: only 1-D contiguous 8-byte words
        result = a.copy(dtype=target)

        def codegen(context, builder, sig, args):
            source = make_array(sig.args[0])(context, builder, args[0])
            view = make_array(sig.return_type)(context, builder)
            for field in sorted(view._datamodel._fields):  # every field as it is; the data pointer retyped
                value = getattr(source, field)
                setattr(view, field, builder.bitcast(value, view.data.type) if field == "data" else value)
            return impl_ret_borrowed(context, builder, sig.return_type, view._getvalue())

        return result(a), codegen

    typer.__name__ = typer.__qualname__ = f"as_{target}_nb"
    return intrinsic(typer)


#: ``a`` (C-contiguous, 1-D, 8-byte words) read as float64: ``a.view(np.float64)`` without numpy's check
as_float64_nb = _words_as(types.float64)
#: ``a`` (C-contiguous, 1-D, 8-byte words) read as uint64: ``a.view(np.uint64)`` without numpy's check
as_uint64_nb = _words_as(types.uint64)
