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

import errno
import fcntl
import hashlib
import json
import math
import os
import re
import socket
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core._cache import package_sources

MANIFEST = "manifest.json"
LOCK = ".ginsim-run.lock"
#: the Parquet metadata key of a chunk's provenance
META_KEY = b"ginsim"
#: version of the run-directory layout this code writes and reads
FORMAT = 2
#: where each kind of row goes in a run directory
SUBDIR = {"deals": "data", "games": "games"}
#: the most deals (or games) one cell may ask for: deal numbers stay far inside int64
MAX_PER_CELL = 2**40

#: modules that only read or show rows; every other module of ``simulator`` and
#: ``strategies`` plays, labels or lays out rows and so belongs to the code fingerprint
NOT_PLAYING_MODULES = frozenset({
    "simulator/cli.py", "simulator/tools/bench.py", "simulator/run/replay.py",
    "simulator/analysis/stats.py", "simulator/analysis/report.py", "simulator/analysis/loading.py",
    "simulator/analysis/figures.py", "simulator/analysis/tables.py", "simulator/analysis/rendering.py",
    "simulator/studies/inference.py", "simulator/studies/strong_study.py",
})

_CHUNK_NAME = re.compile(r"^cell-(\d{4,})-chunk-(\d{5,})\.parquet$")


class RunError(ValueError):
    """A run that cannot start or be read as it is (bad output directory, finished or
    locked run, mismatched resume, damaged or foreign files): one line says why."""


# ----------------------------------------------------------------------------- where runs live

def run_path(location) -> Path:
    """A run directory given as a path or an fsspec-style URL, as a local path.

    ``file://`` URLs (``file:///shared/runs/x``, ``file://localhost/...``) name a
    directory on a filesystem every process can see: a local disk, or at cluster scale a
    shared POSIX filesystem (NFS, Lustre, CephFS...) mounted at the same path on the
    client and on every worker.  A run needs that filesystem's guarantees: ``fcntl``
    locks for the one writer, an atomic rename for each chunk, exclusive creation of the
    manifest.  Object stores (``s3://``, ``gs://``...) offer none of them, so any other
    scheme is refused with a one-line ``RunError``."""
    from urllib.parse import unquote, urlparse

    text = os.fspath(location)
    if not isinstance(text, str) or "://" not in text:
        return Path(location)
    url = urlparse(text)
    if url.scheme != "file":
        raise RunError(f"{text}: runs are written to a path or a file:// URL on a shared POSIX filesystem "
                       f"(fcntl locks, atomic renames); {url.scheme}:// storage has neither, so mount it on every "
                       f"worker and give the mounted path")
    if url.netloc not in ("", "localhost"):
        raise RunError(f"{text}: a file:// URL names a path on this machine (file:///path or "
                       f"file://localhost/path), not on host {url.netloc!r}")
    return Path(unquote(url.path))


# ----------------------------------------------------------------------------- provenance

_FINGERPRINT_CACHE: dict[tuple, str] = {}


def code_fingerprint(plugins: dict[str, str] | None = None) -> str:
    """A hash of the code that plays rows: every module of ``simulator`` and ``strategies``
    except those in ``NOT_PLAYING_MODULES``, and the content of each plug-in file by name.
    Two runs with equal fingerprints were played by the same code."""
    plugins = dict(sorted((plugins or {}).items()))
    files = package_sources(NOT_PLAYING_MODULES)
    key = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for _, p in files) + tuple(plugins.items())
    if key in _FINGERPRINT_CACHE:
        return _FINGERPRINT_CACHE[key]
    digest = hashlib.sha256()
    for name, path in files:
        digest.update(f"{name}\0".encode())
        digest.update(path.read_bytes())
    from strategies.registry import split_class_spec

    for name, path in plugins.items():
        try:
            content = Path(split_class_spec(path)[0]).read_bytes()  # ("file.py:Class": a Python strategy)
        except OSError as exc:
            raise RunError(f"plug-in {name!r}: cannot read {path}: {exc.strerror or exc}") from None
        digest.update(f"plugin:{name}\0".encode())
        digest.update(content)
    value = digest.hexdigest()[:20]
    _FINGERPRINT_CACHE[key] = value
    return value


def experiment_hash(experiment: dict[str, Any]) -> str:
    """A hash of the resolved experiment (its canonical JSON)."""
    text = json.dumps(experiment, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def new_run_id() -> str:
    return uuid.uuid4().hex


# ----------------------------------------------------------------------------- the plan

@dataclass(frozen=True)
class Chunk:
    """A range of deals (or games) of one cell, written to one file."""

    mode: str  # "deals" or "games"
    cell: int
    index: int
    start: int
    count: int

    @property
    def path(self) -> str:
        return f"{SUBDIR[self.mode]}/{chunk_name(self.cell, self.index)}"


def chunk_name(cell: int, index: int) -> str:
    return f"cell-{cell:04d}-chunk-{index:05d}.parquet"


@dataclass(frozen=True)
class Plan:
    """Which chunks a run has: per mode, ``size`` rows per cell in files of ``per_file``."""

    n_cells: int
    sizes: dict[str, tuple[int, int]]  # mode -> (rows per cell, rows per file)

    @classmethod
    def from_experiment(cls, experiment: dict[str, Any], n_cells: int) -> "Plan":
        sizes = {}
        for mode, per_file_key in (("deals", "chunk"), ("games", "game_chunk")):
            if experiment.get(mode):
                sizes[mode] = (int(experiment[mode]), int(experiment[per_file_key]))
        return cls(n_cells, sizes)

    def chunks_per_cell(self, mode: str) -> int:
        size, per_file = self.sizes[mode]
        return math.ceil(size / per_file)

    def chunk(self, mode: str, cell: int, index: int) -> Chunk | None:
        """The planned chunk, or None when (mode, cell, index) is not in the plan."""
        if mode not in self.sizes or not 0 <= cell < self.n_cells:
            return None
        size, per_file = self.sizes[mode]
        start = index * per_file
        if index < 0 or start >= size:
            return None
        return Chunk(mode, cell, index, start, min(per_file, size - start))

    def __iter__(self) -> Iterator[Chunk]:
        for mode in self.sizes:
            for cell in range(self.n_cells):
                for index in range(self.chunks_per_cell(mode)):
                    yield self.chunk(mode, cell, index)

    def total_rows(self) -> int:
        return sum(size * self.n_cells for size, _ in self.sizes.values())

    def n_chunks(self) -> int:
        return sum(self.chunks_per_cell(m) * self.n_cells for m in self.sizes)


def chunk_provenance(manifest: dict[str, Any], chunk: Chunk) -> dict[str, Any]:
    return {"format": FORMAT, "run_id": manifest["run_id"], "experiment_hash": manifest["experiment_hash"],
            "code_fingerprint": manifest["code_fingerprint"], "mode": chunk.mode, "cell": chunk.cell,
            "chunk": chunk.index, "start": chunk.start, "count": chunk.count}


def temp_name(target: Path, run_id: str) -> Path:
    """A temporary name next to ``target`` that only this run (and this process) uses."""
    return target.with_name(f".{target.name}.{run_id[:12]}-{os.getpid()}.tmp")


def is_own_temp(name: str, run_id: str) -> bool:
    return name.startswith(".") and name.endswith(".tmp") and f".{run_id[:12]}-" in name


# ----------------------------------------------------------------------------- manifest

_MANIFEST_KEYS = {"format": int, "run_id": str, "experiment": dict, "experiment_hash": str,
                  "code_fingerprint": str, "cells": list, "complete": bool}


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The manifest of a run directory, checked for shape; one-line RunError otherwise."""
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        raise RunError(f"{run_dir} is not a run directory (no {MANIFEST})")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RunError(f"{path}: not a ginsim manifest (unreadable JSON: {exc})") from None
    if not isinstance(manifest, dict):
        raise RunError(f"{path}: not a ginsim manifest (a JSON object expected)")
    if "format" not in manifest and "experiment" in manifest:
        raise RunError(f"{path}: written by an older ginsim without chunk provenance; "
                       f"its rows cannot be verified, so run the experiment again")
    for key, kind in _MANIFEST_KEYS.items():
        if not isinstance(manifest.get(key), kind) or (kind is int and isinstance(manifest.get(key), bool)):
            raise RunError(f"{path}: not a ginsim manifest (field {key!r} missing or not a {kind.__name__})")
    if manifest["format"] != FORMAT:
        raise RunError(f"{path}: run-directory format {manifest['format']}, this ginsim reads format {FORMAT}")
    exp = manifest["experiment"]
    for key in ("name", "mirrored", "chunk", "game_chunk"):
        if key not in exp:
            raise RunError(f"{path}: not a ginsim manifest (experiment.{key} missing)")
    for i, cell in enumerate(manifest["cells"]):
        if not isinstance(cell, dict) or cell.get("cell") != i or not all(
                k in cell for k in ("a", "b", "variant", "rules", "sweep", "seed")):
            raise RunError(f"{path}: not a ginsim manifest (cells[{i}] malformed)")
    if experiment_hash(exp) != manifest["experiment_hash"]:
        raise RunError(f"{path}: the experiment was edited after the run started (its hash differs)")
    return manifest


def create_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Write the manifest only if none exists (``O_EXCL`` through a hard link), atomically."""
    path = Path(run_dir) / MANIFEST
    tmp = temp_name(path, manifest["run_id"])
    tmp.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise RunError(f"{run_dir} already holds a run (its {MANIFEST} appeared while starting)") from None
    finally:
        tmp.unlink(missing_ok=True)


def update_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    path = Path(run_dir) / MANIFEST
    tmp = temp_name(path, manifest["run_id"])
    tmp.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- the lock

class RunLock:
    """An exclusive lock on a run directory for the life of one ``ginsim run``.

    ``fcntl.flock`` on a file in the directory: the operating system releases it when the
    holder exits in any way, so only live processes block.  The file records who holds it.
    """

    def __init__(self, run_dir: Path, what: str):
        self.path = Path(run_dir) / LOCK
        self.what = what
        self.fd: int | None = None

    def __enter__(self) -> "RunLock":
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            raise RunError(f"{self.path.parent} is in use by another ginsim run ({self.holder()}); "
                           f"wait for it or choose another --out") from None
        self.fd = fd
        info = {"pid": os.getpid(), "host": socket.gethostname(), "what": self.what,
                "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        return self

    def holder(self) -> str:
        try:
            info = json.loads(self.path.read_text())
            return f"pid {info['pid']} on {info['host']}, {info['what']}, since {info['since']}"
        except (OSError, ValueError, KeyError, TypeError):
            return "holder unknown"

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


# ----------------------------------------------------------------------------- verification

@dataclass
class Verification:
    """What a run directory holds against its plan."""

    plan: Plan
    good: dict[str, list[Path]] = field(default_factory=lambda: {"deals": [], "games": []})
    missing: int = 0
    first_missing: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)  # truncated or unreadable planned chunks
    foreign: list[str] = field(default_factory=list)  # files ginsim did not write for this run
    other_code: list[str] = field(default_factory=list)  # chunks played by other code
    present: dict[str, set[tuple[int, int]]] = field(default_factory=dict)  # verified (cell, index)

    @property
    def complete(self) -> bool:
        return not (self.missing or self.damaged or self.foreign or self.other_code)

    def problems(self) -> list[str]:
        """One phrase per kind of problem, naming up to three files each."""
        def names(items: list[str], total: int | None = None) -> str:
            shown = ", ".join(items[:3])
            more = (total if total is not None else len(items)) - min(len(items), 3)
            return shown + (f" and {more} more" if more > 0 else "")

        out = []
        if self.foreign:
            out.append(f"{len(self.foreign)} file(s) not written by this run: {names(self.foreign)}")
        if self.other_code:
            out.append(f"{len(self.other_code)} chunk(s) played by other code: {names(self.other_code)}")
        if self.damaged:
            out.append(f"{len(self.damaged)} truncated or damaged chunk(s): {names(self.damaged)}")
        if self.missing:
            out.append(f"{self.missing} of {self.plan.n_chunks()} chunk(s) missing: "
                       f"{names(self.first_missing, self.missing)}")
        return out


def _read_provenance(path: Path) -> tuple[dict[str, Any] | None, int | None]:
    """(provenance, number of rows) from a Parquet footer; (None, None) when unreadable."""
    import pyarrow.parquet as pq

    try:
        meta = pq.read_metadata(path)
    except Exception:  # noqa: BLE001 - any unreadable footer is a damaged file
        return None, None
    raw = (meta.metadata or {}).get(META_KEY)
    try:
        return (json.loads(raw) if raw else {}), meta.num_rows
    except ValueError:
        return {}, meta.num_rows


def verify_run(run_dir: Path, manifest: dict[str, Any]) -> Verification:
    """Check every file of ``data/`` and ``games/`` against the plan and the provenance in
    the manifest.  Reads Parquet footers only."""
    run_dir = Path(run_dir)
    plan = Plan.from_experiment(manifest["experiment"], len(manifest["cells"]))
    result = Verification(plan)
    run_id = manifest["run_id"]
    present = result.present
    for mode, sub in SUBDIR.items():
        folder = run_dir / sub
        present[mode] = set()
        if not folder.is_dir():
            continue
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries)
        for name in names:
            rel = f"{sub}/{name}"
            if is_own_temp(name, run_id):
                continue  # an interrupted write of this run; --resume removes it
            m = _CHUNK_NAME.match(name)
            chunk = plan.chunk(mode, int(m.group(1)), int(m.group(2))) if m else None
            if chunk is None:
                result.foreign.append(rel)
                continue
            prov, rows = _read_provenance(folder / name)
            if prov is None:
                result.damaged.append(rel)
                continue
            if prov.get("run_id") != run_id or prov.get("experiment_hash") != manifest["experiment_hash"]:
                result.foreign.append(rel)
                continue
            expected = {"mode": chunk.mode, "cell": chunk.cell, "chunk": chunk.index, "start": chunk.start,
                        "count": chunk.count}
            if any(prov.get(k) != v for k, v in expected.items()):
                result.foreign.append(rel)  # a chunk of this run under another chunk's name
                continue
            if rows != chunk.count:
                result.damaged.append(rel)
                continue
            if prov.get("code_fingerprint") != manifest["code_fingerprint"]:
                result.other_code.append(rel)
                continue
            result.good[mode].append(folder / name)
            present[mode].add((chunk.cell, chunk.index))
    for mode in plan.sizes:
        per_cell = plan.chunks_per_cell(mode)
        expected = per_cell * plan.n_cells
        result.missing += expected - len(present[mode])
        if len(result.first_missing) < 3 and expected > len(present[mode]):
            for chunk in _missing(plan, mode, present[mode]):
                result.first_missing.append(chunk.path)
                if len(result.first_missing) >= 3:
                    break
    return result


def _missing(plan: Plan, mode: str, present: set[tuple[int, int]]) -> Iterator[Chunk]:
    for cell in range(plan.n_cells):
        for index in range(plan.chunks_per_cell(mode)):
            if (cell, index) not in present:
                yield plan.chunk(mode, cell, index)


def todo_chunks(plan: Plan, verification: Verification) -> Iterator[Chunk]:
    """The chunks still to play, lazily: those without a verified file."""
    for mode in plan.sizes:
        yield from _missing(plan, mode, verification.present[mode])


def readable_run(run_dir: Path, allow_missing: bool = False) -> tuple[dict[str, Any], Verification]:
    """The manifest and the verified files of a run, for reading.  Refuses (RunError, one
    line) a run with foreign, damaged or other-code files, and one with missing chunks
    unless ``allow_missing``."""
    manifest = read_manifest(run_dir)
    verification = verify_run(run_dir, manifest)
    problems = [p for p in verification.problems() if allow_missing is False or "missing" not in p]
    if problems:
        hint = " (finish it with ginsim run ... --resume)" if verification.missing and not (
            verification.foreign or verification.damaged or verification.other_code) else ""
        raise RunError(f"{run_dir}: " + "; ".join(problems) + hint)
    return manifest, verification


#: every file ``ginsim report`` writes carries this mark, so a report is only ever
#: replaced by another report, never a user's own file of the same name
GENERATOR = "ginsim report"


def written_by_ginsim(path: Path) -> bool:
    """True when ``path`` is a file that ``ginsim report`` wrote (it carries the mark)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    if path.suffix == ".png":
        return b"tEXtSoftware\x00" + GENERATOR.encode() in head
    return f'<meta name="generator" content="{GENERATOR}">'.encode() in head or \
        f"<!-- generated by {GENERATOR}".encode() in head
