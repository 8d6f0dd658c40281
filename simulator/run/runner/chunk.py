"""One chunk played and written: in this process or in a worker, atomically, with its provenance.

``_play_chunk`` plays a chunk's deals with the cell's seed; ``_write_chunk`` writes the
Parquet file under a temporary name unique to the run and renames it, returning the chunk's
sha256, size and rows for the manifest; a local worker exits when the process that started
the run dies (``_exit_with_parent``).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from ..experiment import Cell, Experiment
from ..rundir import META_KEY, Chunk, RunError, chunk_provenance, chunk_record, code_fingerprint, temp_name

from .rows import chunk_table


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

    from ...engine.select import will_play

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
