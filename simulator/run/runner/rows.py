"""The rows a run writes: its chunk plan, each chunk's label columns and the Parquet schema.

``experiment_plan`` and ``plan_chunks`` split each cell into chunks; ``play_chunk_columns``
plays one chunk and returns its columns with the cell's labels (dictionary-encoded,
``LABEL_COLUMNS``); ``run_schema`` is the one schema every chunk file of a run shares, with a
column for every swept parameter.
"""

from __future__ import annotations

import json
import platform
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...core.records import GAME_ROW, HAND_ROW, RUN_LABELS, SWEEP_DOC, column_descriptions
from ..experiment import Cell, Experiment
from ..seeds import derive_seed
from ..rundir import Chunk, Plan


def experiment_plan(exp: Experiment) -> Plan:
    return Plan.from_experiment(exp.to_dict(), len(exp.cells()))


def plan_chunks(exp: Experiment) -> list[Chunk]:
    """Every chunk of an experiment, as a list (small runs; the runner iterates lazily)."""
    return list(experiment_plan(exp))


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _versions() -> dict[str, str]:
    import numba
    import pyarrow

    return {"python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
            "pandas": pd.__version__, "pyarrow": pyarrow.__version__}


#: the label columns of every row of a run, dictionary-encoded (Arrow dictionary arrays,
#: pandas categoricals) with the run's values in cell order as the dictionary of every file
#: (declared with their descriptions in ``simulator.core.records.RUN_LABELS``)
LABEL_COLUMNS = tuple(c.frame for c in RUN_LABELS if c.dtype == "category")


def _cell_labels(cell: Cell) -> dict[str, str]:
    return {"matchup": f"{cell.a} vs {cell.b}", "a": cell.a, "b": cell.b, "variant": cell.variant}


def _exp_key(exp: Experiment) -> str:
    return json.dumps(exp.to_dict(), sort_keys=True, default=str)


_PER_EXPERIMENT: dict[tuple[str, str], Any] = {}


def _cached(kind: str, exp: Experiment, make):
    """``make(exp)``, computed once per experiment (``Experiment`` holds lists: not hashable)."""
    key = (kind, _exp_key(exp))
    if key not in _PER_EXPERIMENT:
        if len(_PER_EXPERIMENT) > 32:
            _PER_EXPERIMENT.clear()
        _PER_EXPERIMENT[key] = make(exp)
    return _PER_EXPERIMENT[key]


def _label_dictionaries(exp: Experiment) -> dict[str, tuple[str, ...]]:
    """Per label column, every value the run's cells take, in cell order: the dictionary
    of that column in every file, so all files share it and concatenate as one categorical."""
    return _cached("labels", exp, _make_label_dictionaries)


def _make_label_dictionaries(exp: Experiment) -> dict[str, tuple[str, ...]]:
    values: dict[str, dict[str, None]] = {k: {} for k in LABEL_COLUMNS}
    for cell in exp.cells():
        for key, value in _cell_labels(cell).items():
            values[key].setdefault(value, None)
    return {k: tuple(v) for k, v in values.items()}


def _label_frame(exp: Experiment, cell: Cell, n: int) -> dict[str, Any]:
    """The label columns of a cell's rows: the same columns, in the same order, for every
    cell of the run (a swept parameter a cell does not take is null there)."""
    dictionaries = _label_dictionaries(exp)
    labels: dict[str, Any] = {"cell": np.full(n, cell.index, dtype=np.int32)}
    for key, value in _cell_labels(cell).items():
        code = dictionaries[key].index(value)
        labels[key] = pd.Categorical.from_codes(np.full(n, code, dtype=np.int8 if len(dictionaries[key]) < 128
                                                        else np.int32), categories=list(dictionaries[key]))
    for key in exp.sweep:
        value = cell.sweep.get(key)
        labels[key] = pd.array([value] * n if value is not None else [pd.NA] * n, dtype="Float64")
    return labels


def _label_arrays(exp: Experiment, cell: Cell, n: int) -> list:
    """``_label_frame`` as Arrow arrays, built without pandas."""
    import pyarrow as pa

    dictionaries = _label_dictionaries(exp)
    arrays = [pa.array(np.full(n, cell.index, dtype=np.int32))]
    for key, value in _cell_labels(cell).items():
        index_type = np.int8 if len(dictionaries[key]) < 128 else np.int32
        arrays.append(pa.DictionaryArray.from_arrays(pa.array(np.full(n, dictionaries[key].index(value), index_type)),
                                                     pa.array(dictionaries[key], type=pa.string())))
    for key in exp.sweep:
        value = cell.sweep.get(key)
        arrays.append(pa.array(np.full(n, value, dtype=np.float64)) if value is not None
                      else pa.nulls(n, type=pa.float64()))
    return arrays


def play_chunk_columns(exp: Experiment, cell: Cell, chunk: Chunk) -> list[tuple[str, str, object]]:
    """Play one chunk; its rows as ``api.record_columns`` (checked for strategy errors)."""
    from ... import api

    seed = derive_seed(exp.seed, cell.index)
    context = f"cell {cell.index}"
    if chunk.mode == "deals":
        records = api.play_deal_records(cell.a, cell.b, cell.rules, chunk.start, chunk.count, seed, exp.mirrored,
                                        context=context)
        api.check_hand_errors(records, cell.a, cell.b, context)
        return api.hand_columns(records)
    games, _ = api.play_game_records(cell.a, cell.b, cell.rules, chunk.start, chunk.count, seed, exp.mirrored,
                                     context=context)
    api.check_game_errors(games, cell.a, cell.b, context)
    return api.game_columns(games)


def chunk_frame(exp: Experiment, cell: Cell, chunk: Chunk) -> pd.DataFrame:
    """Play one chunk and label its rows with the cell (as a DataFrame; the runner writes
    ``chunk_table``, the same rows as Arrow)."""
    from ... import api

    df = api.columns_frame(play_chunk_columns(exp, cell, chunk))
    labels = pd.DataFrame(_label_frame(exp, cell, len(df)), index=df.index)
    return pd.concat([labels, df], axis=1)


def chunk_table(exp: Experiment, cell: Cell, chunk: Chunk):
    """Play one chunk: its labelled rows as an Arrow table of the run's schema, built
    straight from the record arrays (``api.record_columns``, ``api.arrow_arrays``)."""
    import pyarrow as pa

    from ... import api

    columns = play_chunk_columns(exp, cell, chunk)
    n = len(columns[0][2][0]) if columns[0][1] != "plain" else len(columns[0][2])
    arrays = _label_arrays(exp, cell, n) + api.arrow_arrays(columns)
    return pa.Table.from_arrays(arrays, schema=run_schema(exp, chunk.mode))


@lru_cache(maxsize=8)
def _empty_frames(n_hand_cols: int, n_game_cols: int) -> dict[str, pd.DataFrame]:
    from ... import api

    return {"deals": api.hand_frame(np.zeros((0, n_hand_cols), np.int64)),
            "games": api.game_frame(np.zeros((0, n_game_cols), np.int64))}


def run_schema(exp: Experiment, mode: str):
    """The one Arrow schema of every ``mode`` file of a run: the types ``chunk_table``
    builds, with the pandas metadata of the same frame (so pandas reads the nullable and
    categorical columns back as ``chunk_frame`` makes them), and each field's description
    in its metadata under ``description`` (``run_column_descriptions``)."""
    return _cached(f"schema-{mode}", exp, lambda e: _make_run_schema(e, mode))


def run_column_descriptions(exp: Experiment, mode: str) -> dict[str, str]:
    """Every column of a run's ``mode`` files (``deals`` or ``games``) -> its description, in
    file order: the labels, one column per swept parameter, then the hand or game row's
    columns, all declared in ``simulator.core.records``."""
    out = column_descriptions(RUN_LABELS)
    out.update({key: SWEEP_DOC.format(name=key) for key in exp.sweep})
    out.update(column_descriptions(HAND_ROW if mode == "deals" else GAME_ROW))
    return out


def _make_run_schema(exp: Experiment, mode: str):
    import pyarrow as pa

    from ... import api
    from ...core.records import N_GAME_COLS, N_HAND_COLS

    cell = exp.cells()[0]
    labels = pd.DataFrame(_label_frame(exp, cell, 0))
    frame = pd.concat([labels, _empty_frames(N_HAND_COLS, N_GAME_COLS)[mode]], axis=1)
    pandas_schema = pa.Schema.from_pandas(frame, preserve_index=False)
    empty = np.zeros((0, N_HAND_COLS if mode == "deals" else N_GAME_COLS), np.int64)
    columns = api.hand_columns(empty) if mode == "deals" else api.game_columns(empty)
    arrays = _label_arrays(exp, cell, 0) + api.arrow_arrays(columns)
    docs = run_column_descriptions(exp, mode)
    fields = [pa.field(name, array.type, metadata={"description": docs[name]})
              for name, array in zip(pandas_schema.names, arrays, strict=True)]
    return pa.schema(fields, metadata=pandas_schema.metadata)
