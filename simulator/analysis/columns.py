"""Record columns in one parallel pass: the bridge from the kernels' row records to
column arrays (DataFrame columns, Arrow arrays).

The kernels write one int64 row per hand or game (``simulator.core.records``).  Reading one
column of such an array touches every row's cache line, so twenty column reads cost twenty
passes over the whole record.  ``gather_nb`` reads each row once and writes the columns
asked for into a preallocated ``(n_columns, n_rows)`` array of the caller's dtype (one
call per output dtype: ``int64`` for deal numbers, ``int16``/``int32`` for counts,
``int8`` for codes), in blocks of rows on the kernels' threads (``simulator.engine.blocks``).  Each column of the result is then a
contiguous row of that array: one copy from record to column, no per-row Python work.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.blocks import run_blocks


#: the dtypes ``gather`` fills, one block each, in one pass over the records
DTYPES = (np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.int16))


@njit(cache=True, nogil=True)
def gather_nb(records, start, stop, index64, out64, index32, out32, index16, out16):
    """``outXX[j, i] = records[i, indexXX[j]]`` for rows ``start <= i < stop`` (cast to the
    block's dtype): each row is read once."""
    for i in range(start, stop):
        for j in range(index64.shape[0]):
            out64[j, i] = records[i, index64[j]]
        for j in range(index32.shape[0]):
            out32[j, i] = records[i, index32[j]]
        for j in range(index16.shape[0]):
            out16[j, i] = records[i, index16[j]]


def gather(records: np.ndarray, columns: dict[np.dtype, list[int]]) -> dict[np.dtype, np.ndarray]:
    """The record columns asked for, per dtype of ``DTYPES`` (``columns``: dtype → record
    column indices), each as a ``(len(indices), n)`` array of that dtype."""
    records = np.ascontiguousarray(records, dtype=np.int64)
    n = records.shape[0]
    unknown = set(map(np.dtype, columns)) - set(DTYPES)
    if unknown:
        raise ValueError(f"gather fills {', '.join(map(str, DTYPES))} columns, not {sorted(map(str, unknown))}")
    index = {dtype: np.asarray(columns.get(dtype, ()), dtype=np.int64) for dtype in DTYPES}
    out = {dtype: np.empty((len(index[dtype]), n), dtype=dtype) for dtype in DTYPES}
    args = (index[DTYPES[0]], out[DTYPES[0]], index[DTYPES[1]], out[DTYPES[1]], index[DTYPES[2]], out[DTYPES[2]])
    run_blocks(lambda start, stop: gather_nb(records, start, stop, *args), n, n_blocks=64)
    return out
