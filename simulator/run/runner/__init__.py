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

from ..rundir import MANIFEST, Chunk, RunError
from .rows import (
    chunk_frame, chunk_table, experiment_plan, LABEL_COLUMNS, plan_chunks, play_chunk_columns,
    run_column_descriptions, run_schema,
)
from .chunk import experiment_sids, PARQUET_OPTIONS, parquet_options, STATISTICS_COLUMNS
from .output import (
    check_disk, check_jobs, clear_run_dir, clearable_files, DISK_BYTES_PER_ROW, prepare_run_dir,
    WORKER_BYTES,
)
from .play import bar_disabled, finished_run_of, RECORD_SECONDS, run_experiment, run_status

__all__ = ["MANIFEST", "Chunk", "RunError", "chunk_frame", "chunk_table", "experiment_plan", "LABEL_COLUMNS",
           "plan_chunks", "play_chunk_columns", "run_column_descriptions", "run_schema", "experiment_sids",
           "PARQUET_OPTIONS", "parquet_options", "STATISTICS_COLUMNS", "check_disk", "check_jobs",
           "clear_run_dir", "clearable_files", "DISK_BYTES_PER_ROW", "prepare_run_dir", "WORKER_BYTES",
           "bar_disabled", "finished_run_of", "RECORD_SECONDS", "run_experiment", "run_status"]
