"""Run directories: what makes a run's files trustworthy.

A run directory is ginsim's own: it is created empty (or resumed), it holds
``manifest.json`` (created once, exclusively), a lock file while a run writes to it, and
one Parquet file per chunk in ``data/`` (hand rows) and ``games/`` (game rows).  Nothing
else is read or deleted by ginsim.

* **Provenance.**  Every run gets a random *run id*.  The manifest records it with a hash
  of the resolved experiment and the *code fingerprint* (``code_fingerprint``: the sources
  that play and label rows, and each plug-in's content).  Every chunk file carries the same
  provenance in its Parquet metadata (key ``ginsim``): run id, experiment hash, mode, cell,
  chunk index, first deal, deal count and fingerprint.
* **The manifest is verified, not believed.**  ``manifest_hash`` covers everything in it
  that decides what was played and how rows are labelled: the experiment, the cells with
  their seeds, the fingerprint and each plug-in's sha256.  ``read_manifest`` checks every
  field's type and range, that hash, and that each cell's seed (and, when the experiment
  can say so without plug-in code, the whole cell) is the one the experiment implies.
* **A run directory is data.**  Reading a run never executes code it names;
  ``load_plugins`` registers its plug-ins only when the user trusts them
  (``--trust-plugins``), and only after each file's sha256 matches the recorded one.
* **Nothing outside the run directory.**  The lock file is opened with ``O_NOFOLLOW`` and
  must be a regular file with one link; ``data/`` and ``games/`` must be real directories
  (``check_subdirs``); new files are created exclusively, never through a link.
* **Verification.**  ``verify_run`` checks each file in ``data/`` and ``games/`` against the
  plan that the manifest implies, reading only Parquet footers, and names every missing,
  unexpected, foreign, misplaced, truncated or other-code file.  ``--resume``, ``show``,
  ``report`` and the analysis read only verified files.
* **One writer.**  ``RunLock`` holds an exclusive ``fcntl`` lock on ``.ginsim-run.lock`` for
  the whole run; a second ginsim process aiming at the same directory is refused with the
  holder's pid, host and experiment.  The kernel drops the lock when its holder dies, even
  by ``kill -9``, so a crashed run never blocks its own resume.
* **The plan is arithmetic.**  Chunks are numbered per cell, ``start = index * chunk``; a
  huge run is planned lazily, never as a list of every chunk.
"""

from __future__ import annotations

from .manifest import (
    Chunk, chunk_name, chunk_provenance, code_fingerprint, create_manifest, DIGEST_FORMAT, experiment_hash,
    file_sha256, FORMAT, HASHED_FIELDS, HASHED_FORMAT, is_own_temp, load_plugins, LOCK, LOCK_TRIES,
    MANIFEST, manifest_hash, META_KEY, new_file, new_run_id, Plan, plugin_digests, plugin_file,
    READ_FORMATS, read_manifest, run_path, RunError, SUBDIR, temp_name, update_manifest,
)
from .lock import check_subdirs, finish_advice, kept_state, live_holder, locked_output, RunLock
from .chunks import (
    chunk_record, NOT_A_FILE, read_chunk, read_chunk_table, read_rows, readable_run, require_digests,
    seal_run, todo_chunks, Verification, verify_run,
)
from .documents import (
    check_seal, CONFIRM_WRITER, CONFIRMATION_FILES, GENERATOR, head_of, is_confirmation_file, read_sealed,
    report_files, REPORT_RECORD, SEAL, seal, seal_file, written_by_ginsim,
)

__all__ = ["Chunk", "chunk_name", "chunk_provenance", "code_fingerprint", "create_manifest", "DIGEST_FORMAT",
           "experiment_hash", "file_sha256", "FORMAT", "HASHED_FIELDS", "HASHED_FORMAT", "is_own_temp",
           "load_plugins", "LOCK", "LOCK_TRIES", "MANIFEST", "manifest_hash", "META_KEY", "new_file",
           "new_run_id", "Plan", "plugin_digests", "plugin_file", "READ_FORMATS", "read_manifest",
           "run_path", "RunError", "SUBDIR", "temp_name", "update_manifest", "check_subdirs",
           "finish_advice", "kept_state", "live_holder", "locked_output", "RunLock", "chunk_record",
           "NOT_A_FILE", "read_chunk", "read_chunk_table", "read_rows", "readable_run", "require_digests",
           "seal_run", "todo_chunks", "Verification", "verify_run", "check_seal", "CONFIRM_WRITER",
           "CONFIRMATION_FILES", "GENERATOR", "head_of", "is_confirmation_file", "read_sealed",
           "report_files", "REPORT_RECORD", "SEAL", "seal", "seal_file", "written_by_ginsim"]
