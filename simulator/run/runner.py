"""Running an experiment: cells split into chunks, played in parallel, written to Parquet.

A run directory (``simulator.run.rundir`` says what makes it trustworthy) holds
``manifest.json`` (the resolved experiment, run id, code fingerprint, seeds, versions, git
commit, and ``complete`` once every chunk is written), ``data/`` with the hand rows of
single deals and ``games/`` with the game rows, one Parquet file per chunk of a cell, all
with one schema: ``pandas.read_parquet(run_dir + "/data")`` reads every hand, with a
column for every swept parameter (null where a cell does not take it).

* **Deterministic**: cell c plays deals 0..N-1 with its own seed derived from (experiment
  seed, c); a chunk is a range of those deals, so results do not depend on the chunk
  size, the number of jobs, or the backend.
* **Atomic, verified and resumable**: each chunk is written under a temporary name unique
  to the run and renamed; its Parquet metadata carries its provenance.  ``--resume``
  verifies every file, re-plays missing and truncated chunks, and refuses foreign files or
  a change of code.  A finished run directory is never overwritten; a directory that is
  not a ginsim run is never written into.
* **One writer**: the run directory is locked for the whole run.
* **Parallel**: numba threads within a process; joblib processes across chunks; with
  ``backend="dask"`` the chunks go to a Dask distributed cluster through joblib.
* **Bounded memory**: a worker holds one chunk at a time; chunks are planned lazily.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..infra import inputs
from ..core.records import GAME_ROW, HAND_ROW, RUN_LABELS, SWEEP_DOC, column_descriptions
from .experiment import BYTES_PER_ROW, Cell, Experiment
from .seeds import derive_seed
from .rundir import (
    LOCK,
    MANIFEST,
    META_KEY,
    SUBDIR,
    Chunk,
    Plan,
    RunError,
    DIGEST_FORMAT,
    FORMAT,
    RunLock,
    check_subdirs,
    chunk_provenance,
    chunk_record,
    code_fingerprint,
    is_confirmation_file,
    report_files,
    create_manifest,
    experiment_hash,
    finish_advice,
    is_own_temp,
    manifest_hash,
    plugin_digests,
    new_run_id,
    read_manifest,
    readable_run,
    require_digests,
    temp_name,
    todo_chunks,
    update_manifest,
    run_path,
    verify_run,
)

__all__ = ["MANIFEST", "RunError", "Chunk", "plan_chunks", "run_experiment",
           "chunk_frame"]


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
    from .. import api

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
    from .. import api

    df = api.columns_frame(play_chunk_columns(exp, cell, chunk))
    labels = pd.DataFrame(_label_frame(exp, cell, len(df)), index=df.index)
    return pd.concat([labels, df], axis=1)


def chunk_table(exp: Experiment, cell: Cell, chunk: Chunk):
    """Play one chunk: its labelled rows as an Arrow table of the run's schema, built
    straight from the record arrays (``api.record_columns``, ``api.arrow_arrays``)."""
    import pyarrow as pa

    from .. import api

    columns = play_chunk_columns(exp, cell, chunk)
    n = len(columns[0][2][0]) if columns[0][1] != "plain" else len(columns[0][2])
    arrays = _label_arrays(exp, cell, n) + api.arrow_arrays(columns)
    return pa.Table.from_arrays(arrays, schema=run_schema(exp, chunk.mode))


@lru_cache(maxsize=8)
def _empty_frames(n_hand_cols: int, n_game_cols: int) -> dict[str, pd.DataFrame]:
    from .. import api

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

    from .. import api
    from ..core.records import N_GAME_COLS, N_HAND_COLS

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


_PARENT_WATCH: list[int] = []


def _exit_with_parent() -> None:
    """In a local worker process: exit as soon as the process that started the run dies
    (for instance by ``kill -9``), instead of playing on for nobody.  A daemon thread
    polls the parent pid; a reparented worker leaves at once, and any chunk it was writing
    stays a temporary file that ``--resume`` removes."""
    if _PARENT_WATCH:
        return
    import threading

    parent = os.getppid()
    _PARENT_WATCH.append(parent)
    if parent <= 1:
        return

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="ginsim-exit-with-parent", daemon=True).start()


def _play_chunk(exp: Experiment, cell: Cell, chunk: Chunk, threads: int, provenance: dict[str, Any],
                watch_parent: bool = False, check_code: bool = True):
    """Play one chunk in this process: its Arrow table, provenance in the metadata.
    ``check_code`` first refuses a process whose code fingerprint is not the run's."""
    import numba

    from ..engine.select import will_play

    if watch_parent:
        _exit_with_parent()

    sids = experiment_sids(exp)  # (registers the experiment's plug-ins)
    here = code_fingerprint(exp.plugins) if check_code else provenance["code_fingerprint"]
    if here != provenance["code_fingerprint"]:
        raise RunError(f"worker pid {os.getpid()} runs other code than the run (fingerprint {here}, "
                       f"run {provenance['code_fingerprint']}); install the same ginsim and plug-ins everywhere")
    will_play(sids)  # one engine for every cell of the run
    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))  # the kernels' thread pool
    table = chunk_table(exp, cell, chunk)
    metadata = dict(table.schema.metadata or {})
    metadata[META_KEY] = json.dumps(provenance).encode()
    return table.replace_schema_metadata(metadata)


#: Parquet options of every chunk file: zstd pages (smaller than snappy's and cheaper to
#: read back); for the options that depend on the columns see ``parquet_options``
PARQUET_OPTIONS = {"compression": "zstd"}
#: the one column whose Parquet statistics (min and max per file) are written: a reader
#: filtering a run's rows by cell skips the other cells' files; ginsim itself reads none
STATISTICS_COLUMNS = ("cell",)


def parquet_options(schema) -> dict[str, Any]:
    """The ``pyarrow.parquet.write_table`` options of a chunk file of ``schema``:
    ``PARQUET_OPTIONS``; the int64 columns (deal, game and pair numbers, which rise row by
    row and are almost all distinct) delta-encoded instead of dictionary-encoded, which
    makes them a few bits a row; dictionary encoding for the others; statistics only for
    ``STATISTICS_COLUMNS``.  The rows read back are the same whatever the options."""
    import pyarrow as pa

    numbers = [field.name for field in schema if pa.types.is_int64(field.type)]
    return {**PARQUET_OPTIONS,
            "use_dictionary": [field.name for field in schema if field.name not in numbers],
            "column_encoding": dict.fromkeys(numbers, "DELTA_BINARY_PACKED"),
            "write_statistics": [name for name in STATISTICS_COLUMNS if name in schema.names]}


def _write_chunk(table, chunk: Chunk, run_dir: str, run_id: str) -> tuple[Chunk, dict[str, Any]]:
    """Write a chunk's table atomically: encoded in memory, then written under a temporary
    name unique to the run and this process, then renamed.  Returns the chunk and what the
    manifest records of it (``rundir.chunk_record``: the sha256, size and rows of the bytes
    written).  pyarrow releases the GIL while it encodes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **parquet_options(table.schema))
    data = memoryview(sink.getvalue())
    target = Path(run_dir) / chunk.path
    tmp = temp_name(target, run_id)
    try:
        tmp.unlink(missing_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return chunk, chunk_record(data, table.num_rows)


def experiment_sids(exp: Experiment) -> set[int]:
    """The strategy ids the cells of ``exp`` play (its plug-ins registered first)."""
    import strategies

    for name, path in exp.plugins.items():
        strategies.register(name, path)
    return {strategies.parse_strategy(spec).sid for cell in exp.cells() for spec in (cell.a, cell.b)}


def _run_chunk(exp: Experiment, cell: Cell, chunk: Chunk, run_dir: str, threads: int,
               provenance: dict[str, Any], watch_parent: bool = False) -> tuple[Chunk, dict[str, Any]]:
    """Play and write one chunk (what a worker process does)."""
    table = _play_chunk(exp, cell, chunk, threads, provenance, watch_parent)
    return _write_chunk(table, chunk, run_dir, provenance["run_id"])


def _play_and_write(exp: Experiment, cells: dict[int, Cell], chunks, out: Path, threads: int,
                    manifest: dict[str, Any], done) -> int:
    """Play chunks in this process while a writer thread writes the previous one: the
    kernel (``nogil``) and pyarrow both release the GIL, so playing chunk i + 1 overlaps
    writing chunk i.  At most one chunk waits for the writer (memory: two chunks).  Every
    write is finished (or its temporary file removed) before this returns or raises, so
    the run's lock is never released under a write in flight.  ``done(chunk, record)`` is
    called as each chunk lands; returns the number written."""
    from concurrent.futures import ThreadPoolExecutor

    wrote = 0
    pending = None
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ginsim-writer") as writer:
        try:
            for chunk in chunks:
                # this process checked ginsim's code against the manifest in prepare_run_dir and
                # imported it; a plug-in is registered again per chunk, so its file is checked again
                table = _play_chunk(exp, cells[chunk.cell], chunk, threads, chunk_provenance(manifest, chunk),
                                    check_code=bool(exp.plugins))
                if pending is not None:
                    done(*pending.result())
                    wrote += 1
                pending = writer.submit(_write_chunk, table, chunk, str(out), manifest["run_id"])
                del table
            if pending is not None:
                done(*pending.result())
                wrote += 1
                pending = None
        finally:
            if pending is not None:
                pending.cancel()
                try:
                    pending.result()
                except BaseException:  # noqa: BLE001 - the first error is the one raised
                    pass
    return wrote


#: bytes on disk per row of a chunk file (zstd Parquet), measured on runs of 400,000 deals
#: (11.7 B per deal) and 40,000 games (11.6 B per game)
DISK_BYTES_PER_ROW = 12
#: memory of a worker process before it plays (Python, numpy, pandas, pyarrow, numba and
#: the compiled kernels), measured (ru_maxrss) at about 320 MB
WORKER_BYTES = 350_000_000


def check_disk(out: Path, rows: int, files: int) -> None:
    """Refuse a run whose files would not fit on the disk of ``out`` (bytes and inodes),
    before anything is written (``simulator.infra.inputs.check_disk``)."""
    inputs.check_disk("deals/games", out, rows, DISK_BYTES_PER_ROW, "rows to write",
                      "give fewer deals or games, or another --out", RunError)
    where = Path(out).absolute()
    while not where.exists() and where != where.parent:
        where = where.parent
    inodes = os.statvfs(where).f_favail
    if inodes and files > inodes:
        raise RunError(f"chunk/game_chunk: {files:,} chunk files to write, the file system at {where} has room for "
                       f"{inodes:,} more files; give a larger chunk, or another --out")


def check_jobs(exp: Experiment, jobs: int) -> None:
    """Refuse more worker processes than this machine's memory holds, each with its chunks."""
    if jobs == 1:
        return
    per_worker = WORKER_BYTES + max(min(size, per_file) * BYTES_PER_ROW[mode] for mode, size, per_file in
                                    (("deals", exp.deals or 0, exp.chunk), ("games", exp.games or 0, exp.game_chunk)))
    inputs.check_memory(f"--jobs {jobs}", jobs, per_worker, "worker processes with their chunks",
                        "give --jobs {most} or less", RunError)


def _check_output_dir(out: Path) -> None:
    """Refuse an output path that is not a directory, or a non-empty directory that holds
    no ginsim run: ginsim writes only into its own run directories."""
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out} exists and is not a directory")
    if out.is_dir() and not (out / MANIFEST).exists():
        # ginsim confirm's files may sit beside a study's run (they depend on its seeds only)
        others = [p.name for p in out.iterdir() if p.name != LOCK and not is_confirmation_file(p)]
        if others:
            raise RunError(f"--out {out} is not empty and holds no ginsim run (found {others[0]!r}"
                           f"{f' and {len(others) - 1} more' if len(others) > 1 else ''}); "
                           f"choose a new or empty directory")


def prepare_run_dir(exp: Experiment, out: Path, resume: bool) -> dict[str, Any]:
    """The manifest of the run in ``out`` (created now, or the one to resume).  Called
    with the run directory locked."""
    check_subdirs(out)
    wanted = json.loads(json.dumps(exp.to_dict()))
    fingerprint = code_fingerprint(exp.plugins)
    if (out / MANIFEST).exists():
        try:
            manifest = read_manifest(out)
        except RunError as exc:
            if resume:
                raise
            raise RunError(f"{exc}; --force replaces it") from None
        if not resume:
            state = "a finished run" if manifest["complete"] else "an unfinished run (use --resume)"
            raise RunError(f"{out} already holds {state}; choose another --out, or --force to replace it")
        require_digests(out, manifest)
        if manifest["experiment"] != wanted:
            raise RunError(f"{out} holds a run of a different experiment; cannot --resume it")
        if manifest["code_fingerprint"] != fingerprint:
            raise RunError(f"{out} was played by other code (fingerprint {manifest['code_fingerprint']}, now "
                           f"{fingerprint}: ginsim or a plug-in changed); resuming would mix the two, "
                           f"so start a new run with another --out")
        return manifest
    manifest = {
        "format": FORMAT,
        "run_id": new_run_id(),
        "experiment": wanted,
        "experiment_hash": experiment_hash(wanted),
        "code_fingerprint": fingerprint,
        "cells": [{"cell": c.index, "a": c.a, "b": c.b, "variant": c.variant, "rules": c.rules,
                   "sweep": c.sweep, "seed": derive_seed(exp.seed, c.index)} for c in exp.cells()],
        "plugin_sha256": plugin_digests(exp.plugins),
        "versions": _versions(),
        "git_commit": _git_commit(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "complete": False,
        "chunks": {},
    }
    manifest = json.loads(json.dumps(manifest))  # as read back: the hash covers the JSON data
    manifest["manifest_hash"] = manifest_hash(manifest)
    # the manifest first, then the folders: another ginsim starting on the same directory
    # sees a run (and waits on its lock), never folders without a manifest
    try:
        create_manifest(out, manifest)
    except OSError as exc:
        raise RunError(f"output directory {out} is not writable: {exc.strerror or exc}") from None
    try:
        for mode, size in (("deals", exp.deals), ("games", exp.games)):
            if size:
                (out / SUBDIR[mode]).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        (out / MANIFEST).unlink(missing_ok=True)
        raise RunError(f"output directory {out} is not writable: {exc.strerror or exc}") from None
    return manifest


#: a temporary file ginsim writes next to a chunk or the manifest (``rundir.temp_name``), of any run
_ANY_OWN_TEMP = re.compile(r"^\.(manifest\.json|cell-\d{4,}-chunk-\d{5,}\.parquet)\.[0-9a-f]{12}-\d+\.tmp$")
_CHUNK_FILE = re.compile(r"^cell-\d{4,}-chunk-\d{5,}\.parquet$")


def _is_ginsim_manifest(path: Path) -> bool:
    """True for a manifest ginsim wrote, of this or an older format: a JSON object holding
    the resolved experiment and its cells."""
    try:
        data = inputs.read_json(path, "a run manifest", RunError)
    except RunError:
        return False
    return isinstance(data, dict) and isinstance(data.get("experiment"), dict) and isinstance(data.get("cells"), list)


#: a staging folder ``ginsim report`` makes (``tempfile.mkdtemp``), left behind when it was killed
_REPORT_STAGE = re.compile(r"^\.ginsim-report-[A-Za-z0-9_]+$")
#: what a report's staging folder holds
_REPORT_NAME = re.compile(r"^(report\.md|report\.html|[A-Za-z0-9_.-]+\.png)$")


def clearable_files(out: Path) -> list[Path]:
    """What ``ginsim run --force`` removes from ``out``: only files ginsim wrote there.

    Those are ``manifest.json`` (a ginsim manifest of any format), the chunk files
    (``cell-NNNN-chunk-NNNNN.parquet``) and ginsim's temporary files in ``data/`` and
    ``games/`` (and those folders once empty), the report files a ``ginsim report`` wrote,
    by exact name and unchanged since (``simulator.run.rundir.report_files``), and
    the staging folder of a killed ``ginsim report`` with its report files.  The lock file
    (the caller holds it) and ``ginsim confirm``'s ``confirm.json`` / ``confirm.md``
    (``rundir.is_confirmation_file``) stay.  Any other file or folder (a user's copy of a
    report, a renamed figure, an edited report) raises ``RunError`` naming it, before
    anything is removed."""
    out = Path(out)
    if not out.is_dir():
        return []
    doomed: list[Path] = []
    foreign: list[str] = []
    reports = set(report_files(out))
    for entry in sorted(out.iterdir()):
        if entry.is_symlink():
            foreign.append(entry.name)
        elif entry.name == LOCK and entry.is_file():
            continue
        elif entry.name in SUBDIR.values() and entry.is_dir():
            for inner in sorted(entry.iterdir()):
                ours = inner.is_file() and not inner.is_symlink() and bool(
                    _CHUNK_FILE.match(inner.name) or _ANY_OWN_TEMP.match(inner.name))
                if ours:
                    doomed.append(inner)
                else:
                    foreign.append(f"{entry.name}/{inner.name}")
            doomed.append(entry)  # the folder itself, emptied first
        elif entry.is_file() and entry.name == MANIFEST and _is_ginsim_manifest(entry):
            doomed.append(entry)
        elif entry.is_file() and is_confirmation_file(entry):
            continue  # ginsim confirm's output depends on the seeds, not on this run: kept
        elif entry.is_file() and entry.name != MANIFEST and (_ANY_OWN_TEMP.match(entry.name) or entry in reports):
            doomed.append(entry)
        elif entry.is_dir() and _REPORT_STAGE.match(entry.name):
            inner = sorted(entry.iterdir())
            strays = [i for i in inner if i.is_symlink() or not i.is_file() or not _REPORT_NAME.match(i.name)]
            if strays:
                foreign.append(f"{entry.name}/{strays[0].name}")
            doomed.extend([*inner, entry])
        else:
            foreign.append(entry.name + ("/" if entry.is_dir() else ""))
    if foreign:
        more = f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else ""
        raise RunError(f"--force removes only files ginsim wrote, and {out / foreign[0]}{more} is not one "
                       f"(a report file counts only by the name and content ginsim report recorded); "
                       f"move it away or choose another --out")
    return doomed


def clear_run_dir(out: Path) -> list[Path]:
    """Remove an earlier run and its report from ``out`` (``clearable_files``), holding
    the directory's lock; returns what was removed."""
    doomed = clearable_files(out)
    for path in doomed:
        if path.is_dir():
            path.rmdir()
        else:
            path.unlink(missing_ok=True)
    return doomed


def _remove_fresh_run(out: Path, created_dir: bool, manifest: dict[str, Any] | None) -> None:
    """Undo a fresh run that wrote no chunk (called holding the lock): remove exactly the
    files and folders it made.  The lock file goes only with a directory this run created,
    so a lock file another process may hold is never unlinked from a directory in use."""
    if manifest is not None:
        (out / MANIFEST).unlink(missing_ok=True)
    for sub in SUBDIR.values():
        folder = out / sub
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    if created_dir and [p.name for p in out.iterdir()] == [LOCK]:
        (out / LOCK).unlink()
        out.rmdir()


def run_experiment(exp: Experiment, out: str | Path, jobs: int = 1, backend: str = "local",
                   scheduler: str | None = None, resume: bool = False, progress: bool = True,
                   force: bool = False) -> Path:
    """Run every missing chunk of ``exp`` into ``out``; returns the run directory.

    ``force`` first removes an earlier run (and its report) from ``out``: only the files
    ginsim wrote there (``clearable_files``); any other file stops it before anything is
    removed."""
    if backend not in ("local", "dask"):
        raise RunError(f"backend must be local or dask, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise RunError(f"--scheduler {scheduler} names a Dask scheduler, used only with --backend dask; "
                       f"add --backend dask or drop --scheduler")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise RunError(f"--jobs must be a positive integer, got {jobs!r}")
    if str(out).strip() == "":
        raise RunError("--out must name a directory, got an empty string")
    if force and resume:
        raise RunError("--force replaces an earlier run and --resume completes it: give one of them")
    out = run_path(out)
    check_jobs(exp, jobs)
    plan = experiment_plan(exp)
    jobs = min(jobs, plan.n_chunks())  # never more workers than chunks
    if force or not (out / MANIFEST).exists():  # all of it is to be written (a resume checks what is left)
        check_disk(out, plan.total_rows(), plan.n_chunks())
    if force:
        if out.exists() and not out.is_dir():
            raise RunError(f"--out {out} exists and is not a directory")
        clearable_files(out)  # refuse a directory with other files before anything starts
    elif not (out / LOCK).exists():
        # an early refusal before anything starts; a directory with a lock file may be a run
        # another ginsim is creating right now (its subdirectories come before its manifest),
        # so it is checked only under the lock, where the holder is named
        _check_output_dir(out)
    client = cluster = None
    if backend == "dask":
        client, cluster = _dask_client(jobs, scheduler)  # before anything is written
    created_dir = not out.exists()
    try:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunError(f"output directory {out} is not writable: {exc.strerror or exc}") from None
        with RunLock(out, f"experiment {exp.name!r}"):
            manifest = None
            fresh = False
            wrote = 0
            try:
                if force:
                    removed = clear_run_dir(out)
                    files = [p for p in removed if p.parent != out or p.name not in SUBDIR.values()]
                    if files and progress:
                        print(f"ginsim: --force: removed the earlier run in {out} "
                              f"({_plural(len(files), 'file')} ginsim wrote)", file=sys.stderr)
                _check_output_dir(out)
                fresh = not (out / MANIFEST).exists()
                manifest = prepare_run_dir(exp, out, resume)
                wrote = _play(exp, out, manifest, jobs, backend, progress, fresh)
            except BaseException:
                # a run that wrote nothing leaves nothing behind: only what it made goes
                if fresh and wrote == 0 and not _any_chunk(out):
                    _remove_fresh_run(out, created_dir, manifest)
                raise
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    return out


def finished_run_of(exp: Experiment, out: str | Path) -> bool:
    """True when ``out`` holds a finished run of exactly ``exp`` (the same resolved
    experiment), played by this code, whose every file verifies: re-running it would only
    reproduce the same rows, so ``ginsim run`` shows that run instead of refusing.  Anything
    else (no run, another experiment or code, an unfinished, damaged or changed run, one
    without chunk digests) is False."""
    out = run_path(out)
    if not (out / MANIFEST).is_file():
        return False
    try:
        manifest = read_manifest(out)
    except RunError:
        return False
    if not manifest.get("complete") or manifest["format"] < DIGEST_FORMAT \
            or manifest["experiment"] != json.loads(json.dumps(exp.to_dict())) \
            or manifest["code_fingerprint"] != code_fingerprint(exp.plugins):
        return False
    return verify_run(out, manifest, deep=True).complete  # every chunk's bytes proven


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _any_chunk(out: Path) -> bool:
    return any(any((out / sub).glob("*.parquet")) for sub in SUBDIR.values() if (out / sub).is_dir())


def _dask_client(jobs: int, scheduler: str | None):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise RunError("--backend dask needs the distributed package: pip install 'dask[distributed]'") from None
    if scheduler:
        try:
            return Client(scheduler, timeout="10s"), None
        except (OSError, TimeoutError, ValueError) as exc:
            raise RunError(f"cannot reach the Dask scheduler at {scheduler}: {str(exc).splitlines()[0]}") from None
    cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
    return Client(cluster), cluster


def bar_disabled(progress: bool) -> bool | None:
    """tqdm's ``disable`` for a progress bar: off when not wanted, and off when stderr is not
    a terminal (tqdm's None), so a redirected log holds no carriage-return bars."""
    return None if progress else True


class _Progress:
    """The run's progress bar.  While the kernels compile (``compiling``) no bar is shown:
    the first chunk to land, compile included, starts the bar as already done, so its rate
    and ETA count only chunks played with compiled kernels."""

    def __init__(self, make, done: int, compiling: bool):
        self._make, self._done, self._started = make, done, time.perf_counter()
        self._bar = None if compiling else make(done)

    def update(self, count: int) -> None:
        if self._bar is None:
            print(f"ginsim: kernels ready; first chunk done after {time.perf_counter() - self._started:.0f} s",
                  file=sys.stderr, flush=True)
            self._bar = self._make(self._done + count)
        else:
            self._bar.update(count)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _play(exp: Experiment, out: Path, manifest: dict[str, Any], jobs: int, backend: str, progress: bool,
          fresh: bool) -> int:
    """Play the chunks the run still lacks; returns how many were written."""
    import joblib
    from tqdm import tqdm

    plan = Plan.from_experiment(manifest["experiment"], len(manifest["cells"]))
    check_subdirs(out)
    # a resumed run's chunks are read whole: a chunk damaged inside, behind an intact
    # footer, is re-played rather than kept
    verification = verify_run(out, manifest, deep=not fresh)
    if verification.foreign or verification.other_code:
        raise RunError(f"{out}: " + "; ".join(p for p in verification.problems() if "missing" not in p
                                             and "truncated" not in p) + "; ginsim will not mix them into this run")
    if verification.damaged:
        print(f"ginsim: re-playing {len(verification.damaged)} truncated or damaged chunk(s): "
              f"{', '.join(verification.damaged[:3])}", file=sys.stderr)
    for sub in SUBDIR.values():
        folder = out / sub
        if folder.is_dir():
            for path in folder.iterdir():
                if is_own_temp(path.name, manifest["run_id"]):
                    path.unlink()
    cells = {c.index: c for c in exp.cells()}
    total = plan.total_rows()
    done = sum(plan.chunk(mode, cell, index).count for mode in plan.sizes
               for cell, index in verification.present[mode])
    n_todo = plan.n_chunks() - sum(len(v) for v in verification.present.values())
    if not fresh:
        check_disk(out, total - done, n_todo)
    jobs = max(1, min(jobs, n_todo))  # never more workers than chunks to play
    threads = max(1, (os.cpu_count() or 1) // jobs)
    unit = "deal" if not exp.games else ("game" if not exp.deals else "row")
    compiling = False
    if progress and done < total:
        from ..infra.cache import announce_compile
        from ..engine.select import kernels_compiled

        entries = tuple({"deals": "play_deal_block_nb", "games": "play_game_block_nb"}[m] for m in plan.sizes)
        if not kernels_compiled(entries, sids=experiment_sids(exp)):  # say so, rather than show a bar frozen at 0%
            announce_compile()
            compiling = True
    bar = _Progress(lambda initial: tqdm(total=total, initial=initial, unit=unit, unit_scale=True,
                                         disable=bar_disabled(progress), desc=exp.name, smoothing=0.1),
                    done, compiling)
    tasks = (joblib.delayed(_run_chunk)(exp, cells[c.cell], c, str(out), threads, chunk_provenance(manifest, c))
             for c in todo_chunks(plan, verification))
    records = _Records(out, manifest, bar.update)
    try:
        if backend == "dask":
            with joblib.parallel_config(backend="dask", wait_for_workers_timeout=120):
                for chunk, record in joblib.Parallel(return_as="generator_unordered")(tasks):
                    records.landed(chunk, record)
        elif jobs == 1:
            _play_and_write(exp, cells, todo_chunks(plan, verification), out, threads, manifest, records.landed)
        else:
            tasks = (joblib.delayed(fn)(*args, **kwargs, watch_parent=True) for fn, args, kwargs in tasks)
            for chunk, record in joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")(tasks):
                records.landed(chunk, record)
    finally:
        bar.close()
        records.flush()  # what landed stays recorded, even when interrupted
    final = verify_run(out, manifest)
    if not final.complete:
        raise RunError(f"{out}: the run did not complete: " + "; ".join(final.problems()))
    manifest["complete"] = True
    manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    update_manifest(out, manifest)
    return records.count


#: the manifest is written again at most this often while chunks land (``_Records``)
RECORD_SECONDS = 2.0


class _Records:
    """The run's chunk records, kept as its chunks land: each chunk's sha256, size and rows
    (``rundir.chunk_record``) go into the manifest's ``chunks``, and the manifest is written
    again (atomically) at most every ``RECORD_SECONDS`` and once when the run stops, so a
    run of many chunks does not rewrite it for every one.  A chunk a killed process wrote
    but did not record yet is played again by ``--resume``; ``progress(rows)`` is the bar."""

    def __init__(self, out: Path, manifest: dict[str, Any], progress):
        self.out, self.manifest, self.progress = out, manifest, progress
        self.count, self.pending, self.last = 0, 0, time.monotonic()
        manifest.setdefault("chunks", {})

    def landed(self, chunk: Chunk, record: dict[str, Any]) -> None:
        self.manifest["chunks"][chunk.path] = record
        self.count += 1
        self.pending += 1
        self.progress(chunk.count)
        if time.monotonic() - self.last >= RECORD_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            update_manifest(self.out, self.manifest)
            self.pending, self.last = 0, time.monotonic()


def run_status(run_dir: str | Path) -> str | None:
    """None for a finished, intact run; else one line saying what is unfinished or missing."""
    manifest, verification = readable_run(run_path(run_dir), allow_missing=True)
    if verification.complete and manifest["complete"]:
        return None
    if verification.complete:
        return f"UNFINISHED RUN: every chunk is written but the run was not closed; {finish_advice(run_dir)}"
    return (f"UNFINISHED RUN: {'; '.join(verification.problems())}; the numbers below cover the chunks "
            f"written so far ({finish_advice(run_dir)})")
