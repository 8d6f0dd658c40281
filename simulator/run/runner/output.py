"""The run directory before and after a run: disk and workers checked, prepared, cleared.

``check_disk`` and ``check_jobs`` refuse a run that cannot fit; ``prepare_run_dir`` creates
or resumes a run directory (its manifest written once, exclusively); ``clearable_files`` and
``clear_run_dir`` remove only files ginsim wrote.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

from ...infra import inputs
from ..experiment import BYTES_PER_ROW, Experiment
from ..seeds import derive_seed
from ..rundir import (
    LOCK, MANIFEST, SUBDIR, RunError, FORMAT, check_subdirs, code_fingerprint, is_confirmation_file,
    report_files, create_manifest, experiment_hash, manifest_hash, plugin_digests, new_run_id,
    read_manifest, require_digests,
)

from .rows import _git_commit, _versions


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
