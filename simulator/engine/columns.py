"""Record columns in one parallel pass: the bridge from the kernels' row records to
column arrays (DataFrame columns, Arrow arrays).

The kernels write one int64 row per hand or game (``simulator.core.records``).  Reading one
column of such an array touches every row's cache line, so twenty column reads cost twenty
passes over the whole record.  ``gather_nb`` reads each row once and writes the columns
asked for into a preallocated ``(n_columns, n_rows)`` array of the caller's dtype (one
call per output dtype: ``int64`` for deal numbers, ``int16``/``int32`` for counts,
``int8`` for codes), in blocks of rows on the kernels' threads (``simulator.infra.blocks``).  Each column of the result is then a
contiguous row of that array: one copy from record to column, no per-row Python work.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core import records as RC
from ..core.cards import format_card
from ..core.records import GAME_ROW, HAND_ROW
from ..infra.blocks import run_blocks
from ..infra.jit import KERNEL


#: the dtypes ``gather`` fills, one block each, in one pass over the records
DTYPES = (np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.int16))


@KERNEL
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


_CARD_NAMES = [format_card(c) if c % 16 < 13 else "" for c in range(64)]
_UPCARD_CATEGORIES = [n for n in _CARD_NAMES if n]
#: card code -> index of its name in ``_UPCARD_CATEGORIES`` (-1: not a card)
_CARD_CODE_INDEX = np.array([_UPCARD_CATEGORIES.index(n) if n else -1 for n in _CARD_NAMES], dtype=np.int8)
_CATEGORIES = {"seat": ("a", "b"), "outcome": tuple(RC.OUTCOMES), "card": tuple(_UPCARD_CATEGORIES)}


def _gather_dtype(c) -> np.dtype:
    """The dtype a raw column is gathered into: the frame's for plain numbers, else int16
    (seats, codes, deadwood and card codes all fit)."""
    if c.kind in ("int", "by_seat"):
        return np.dtype(c.dtype)
    return np.dtype(np.int16)


def record_columns(records: np.ndarray, row: tuple, names: tuple[str, ...],
                   a_seat_col: int) -> list[tuple[str, str, object]]:
    """The frame's columns made from records, in frame order, as ``(name, form, data)``:
    ``plain`` (a numpy array of the final dtype), ``category`` (``(codes, categories)``,
    int8 codes, -1 for missing) or ``masked`` (``(values, mask)``, True = missing).

    Built column by column as the schema entries ``row`` say (``simulator.core.records``:
    ``kind`` and ``dtype``), with no per-row Python work: the raw columns are gathered in
    one parallel pass per dtype (``simulator.engine.columns.gather``), and every derived column
    is one vectorised expression.  ``hand_frame``/``game_frame`` wrap the result in pandas,
    ``hand_table``/``game_table`` in Arrow."""
    r = np.asarray(records)
    if r.ndim != 2:
        raise ValueError("records must be a 2-d array (rows × record columns)")
    raw = [c for c in row if c.raw is not None]
    groups: dict[np.dtype, list[str]] = {}
    for c in raw:
        for name in ((c.raw + "0", c.raw + "1") if c.kind == "by_seat" else (c.raw,)):
            groups.setdefault(_gather_dtype(c), []).append(name)
    blocks = gather(r, {dtype: [names.index(n) for n in group] for dtype, group in groups.items()})
    cols: dict[str, np.ndarray] = {}
    for dtype, group in groups.items():
        cols.update(zip(group, blocks[dtype]))
    a_seat = cols[names[a_seat_col]]
    out: list[tuple[str, str, object]] = []
    for c in row:
        if c.frame is None:
            continue
        kind = c.kind
        if kind == "int":
            out.append((c.frame, "plain", cols[c.raw]))
        elif kind == "a_seat":
            out.append((c.frame, "plain", cols[c.raw] == a_seat))
        elif kind == "seat":
            seat = cols[c.raw]
            codes = np.where(seat < 0, np.int8(-1), (seat != a_seat).astype(np.int8))
            out.append((c.frame, "category", (codes, _CATEGORIES["seat"])))
        elif kind == "outcome":
            out.append((c.frame, "category", (cols[c.raw].astype(np.int8), _CATEGORIES["outcome"])))
        elif kind == "card":
            out.append((c.frame, "category", (_CARD_CODE_INDEX[cols[c.raw] & 63], _CATEGORIES["card"])))
        elif kind == "deadwood":  # missing for a dead hand
            dead = cols["outcome"] == RC.OUT_DEAD
            values = cols[c.raw]
            values[dead] = 0
            out.append((c.frame, "masked", (values, dead)))
        elif kind == "flag":
            out.append((c.frame, "plain", cols[c.raw] == 1))
        elif kind == "by_seat":
            seat0, seat1 = cols[c.raw + "0"], cols[c.raw + "1"]
            a_first = a_seat == 0
            out.append((c.frame + "_a", "plain", np.where(a_first, seat0, seat1)))
            out.append((c.frame + "_b", "plain", np.where(a_first, seat1, seat0)))
        elif kind == "net_a":  # points to A minus points to B
            winner = cols["winner"]
            points = cols["points"]
            net = np.where(winner < 0, 0, np.where(winner == a_seat, points, -points))
            out.append((c.frame, "plain", net.astype(c.dtype, copy=False)))
        elif kind == "margin_a":
            score = {name: data for name, _, data in out}
            out.append((c.frame, "plain", (score["score_a"] - score["score_b"]).astype(c.dtype, copy=False)))
        else:
            raise ValueError(f"record column {c.frame!r}: unknown kind {kind!r}")
    return out


_DTYPES: dict[tuple, pd.CategoricalDtype] = {}


def _categorical(codes: np.ndarray, categories: tuple) -> pd.Categorical:
    dtype = _DTYPES.get(categories)
    if dtype is None:
        dtype = _DTYPES[categories] = pd.CategoricalDtype(list(categories))
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def _frame(records: np.ndarray, row: tuple, names: tuple[str, ...], a_seat_col: int) -> pd.DataFrame:
    """Records as a DataFrame (``record_columns`` wrapped in pandas arrays)."""
    return columns_frame(record_columns(records, row, names, a_seat_col))


def columns_frame(columns: list[tuple[str, str, object]]) -> pd.DataFrame:
    """``record_columns`` as a DataFrame, each column wrapped without a copy."""
    frame: dict[str, object] = {}
    for name, form, data in columns:
        if form == "plain":
            frame[name] = data
        elif form == "category":
            frame[name] = _categorical(*data)
        else:
            frame[name] = pd.arrays.IntegerArray(*data)
    return pd.DataFrame(frame, copy=False)


def arrow_arrays(columns: list[tuple[str, str, object]]) -> list:
    """``record_columns`` as Arrow arrays (numbers without a copy, categories as dictionary
    arrays with int8 indices, missing values as nulls)."""
    import pyarrow as pa

    arrays = []
    for _, form, data in columns:
        if form == "plain":
            arrays.append(pa.array(data))
        elif form == "category":
            codes, categories = data
            missing = codes < 0
            indices = pa.array(codes, mask=missing) if missing.any() else pa.array(codes)
            arrays.append(pa.DictionaryArray.from_arrays(indices, _dictionary(categories)))
        else:
            values, mask = data
            arrays.append(pa.array(values, mask=mask) if mask.any() else pa.array(values))
    return arrays


_ARROW_DICTIONARIES: dict[tuple, object] = {}


def _dictionary(categories: tuple):
    import pyarrow as pa

    if categories not in _ARROW_DICTIONARIES:
        _ARROW_DICTIONARIES[categories] = pa.array(list(categories), type=pa.string())
    return _ARROW_DICTIONARIES[categories]


def hand_columns(records: np.ndarray) -> list[tuple[str, str, object]]:
    """``record_columns`` of hand records."""
    return record_columns(records, HAND_ROW, RC.HAND_RECORD_NAMES, RC.H_A_SEAT)


def game_columns(records: np.ndarray) -> list[tuple[str, str, object]]:
    """``record_columns`` of game records."""
    return record_columns(records, GAME_ROW, RC.GAME_RECORD_NAMES, RC.G_A_SEAT)


def hand_frame(records: np.ndarray) -> pd.DataFrame:
    """Hand records as the documented DataFrame (columns: ``simulator.core.records.HAND_ROW``)."""
    return _frame(records, HAND_ROW, RC.HAND_RECORD_NAMES, RC.H_A_SEAT)


def game_frame(records: np.ndarray) -> pd.DataFrame:
    """Game records as the documented DataFrame (columns: ``simulator.core.records.GAME_ROW``)."""
    return _frame(records, GAME_ROW, RC.GAME_RECORD_NAMES, RC.G_A_SEAT)
