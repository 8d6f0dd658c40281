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

import errno
import fcntl
import hashlib
import json
import math
import os
import re
import socket
import stat
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..infra.cache import package_sources, playing_modules
from ..infra.inputs import open_regular, parse_json, read_json, read_regular
from .limits import MAX_PER_CELL, PER_CELL_BITS, SEED_LIMIT, SEED_TEXT
from .seeds import derive_seed

MANIFEST = "manifest.json"
LOCK = ".ginsim-run.lock"
#: attempts, 50 ms apart, to take a run directory's lock before refusing: a reader that
#: checks whether a run is live (``live_holder``) holds it for an instant only
LOCK_TRIES = 4
#: the Parquet metadata key of a chunk's provenance
META_KEY = b"ginsim"
#: the first run-directory format whose manifest carries ``manifest_hash`` (over the
#: experiment, cells, seeds, fingerprint and plug-in sha256s) and ``plugin_sha256``
HASHED_FORMAT = 3
#: the first format whose manifest records, as each chunk is written, its sha256, size and
#: rows (``chunks``), so that every byte read from a chunk is proven (``read_chunk``)
DIGEST_FORMAT = 4
#: version of the run-directory layout this code writes
FORMAT = DIGEST_FORMAT
#: the formats this code reads; a format-2 manifest (no ``manifest_hash``) is verified by
#: deriving its cells and seeds from its experiment (``_check_cells``).  Runs of formats 2
#: and 3 recorded no chunk digests: their rows are read only once ``seal_run``
#: (``ginsim seal``) has recorded them
READ_FORMATS = (2, 3, 4)
#: where each kind of row goes in a run directory
SUBDIR = {"deals": "data", "games": "games"}

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


def code_fingerprint(plugins: dict[str, str] | None = None, modules: frozenset[str] | None = None) -> str:
    """A hash of the code that plays rows: the modules of ``simulator`` and ``strategies``
    that play or label rows (``simulator.infra.cache.playing_modules``, the same set the
    kernel cache is keyed by), and each plug-in by name with the code it
    plays (``strategies.plugins.plugin_digest``: its file and every module it imports from
    outside the standard library and ginsim's dependencies).  Two runs with equal
    fingerprints were played by the same code.  ``modules`` hashes those modules instead (the
    report writer's fingerprint, ``simulator.studies.reports``)."""
    from strategies.plugins import plugin_digest
    from strategies.registry import split_class_spec

    plugin_digests = {}
    for name, path in sorted((plugins or {}).items()):
        try:  # ("file.py:Class": a Python strategy)
            plugin_digests[name] = plugin_digest(split_class_spec(path)[0])
        except OSError as exc:
            raise RunError(f"plug-in {name!r}: cannot read {path}: {exc.strerror or exc}") from None
    files = package_sources(playing_modules() if modules is None else modules)
    key = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for _, p in files) + tuple(plugin_digests.items())
    if key in _FINGERPRINT_CACHE:
        return _FINGERPRINT_CACHE[key]
    digest = hashlib.sha256()
    for name, path in files:
        digest.update(f"{name}\0".encode())
        digest.update(path.read_bytes())
    for name, content in plugin_digests.items():
        digest.update(f"plugin:{name}\0".encode())
        digest.update(content.encode())
    value = digest.hexdigest()[:20]
    _FINGERPRINT_CACHE[key] = value
    return value


def experiment_hash(experiment: dict[str, Any]) -> str:
    """A hash of the resolved experiment (its canonical JSON)."""
    text = json.dumps(experiment, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


#: the manifest fields ``manifest_hash`` covers (all that decides what was played)
HASHED_FIELDS = ("format", "run_id", "experiment", "experiment_hash", "code_fingerprint", "cells", "plugin_sha256")


def manifest_hash(manifest: dict[str, Any]) -> str:
    """A hash of everything in a manifest that decides what was played and how its rows
    are labelled (``HASHED_FIELDS``), as canonical JSON."""
    covered = {key: manifest.get(key) for key in HASHED_FIELDS}
    text = json.dumps(covered, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def plugin_file(path: str) -> Path:
    """The file of a plug-in spec (``file.py`` or ``file.py:Class``)."""
    from strategies.registry import split_class_spec

    return Path(split_class_spec(path)[0])


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def plugin_digests(plugins: dict[str, str]) -> dict[str, str]:
    """Plug-in name -> sha256 of its file, as the manifest records them."""
    out = {}
    for name, path in sorted(plugins.items()):
        try:
            out[name] = file_sha256(plugin_file(path))
        except OSError as exc:
            raise RunError(f"plug-in {name!r}: cannot read {path}: {exc.strerror or exc}") from None
    return out


def load_plugins(run_dir: Path, manifest: dict[str, Any], trust: bool) -> None:
    """Register the plug-ins a run names, so its strategies can be played again.

    A run directory is data: its plug-ins are code, run only when the user says so
    (``trust``, the ``--trust-plugins`` flag), and only when each file is the one the run
    recorded: an absolute path whose sha256 equals the manifest's.  Otherwise one-line
    ``RunError``, and nothing is imported."""
    plugins = manifest["experiment"].get("plugins") or {}
    if not plugins:
        return
    names = ", ".join(f"{k} ({v})" for k, v in sorted(plugins.items()))
    if not trust:
        raise RunError(f"{run_dir} plays plug-in code ({names}); ginsim runs code named by a run directory only "
                       f"when asked: check the files, then give --trust-plugins")
    recorded = manifest.get("plugin_sha256")
    if not isinstance(recorded, dict):
        raise RunError(f"{run_dir}: its manifest (format {manifest['format']}) records no sha256 of its plug-ins, so "
                       f"they cannot be checked before running; run the experiment again")
    import strategies

    for name, path in sorted(plugins.items()):
        file = plugin_file(path)
        if not file.is_absolute():
            raise RunError(f"{run_dir}: plug-in {name!r} names a relative path {path!r}; ginsim records absolute "
                           f"paths, so this manifest was not written by ginsim")
        try:
            actual = file_sha256(file)
        except OSError as exc:
            raise RunError(f"plug-in {name!r}: cannot read {file}: {exc.strerror or exc}") from None
        if actual != recorded.get(name):
            raise RunError(f"plug-in {name!r}: {file} has sha256 {actual[:16]}..., the run recorded "
                           f"{str(recorded.get(name))[:16]}...: it is not the file that played this run")
    for name, path in sorted(plugins.items()):
        strategies.register(name, path)


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


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_experiment(exp: dict[str, Any], fail) -> None:
    """Every experiment field a reader uses, with its type and range (a crafted manifest
    gets one line naming the field, never a traceback later)."""
    if not isinstance(exp.get("name"), str):
        raise fail("experiment.name", "a string expected")
    if not _is_int(exp.get("seed")) or not 0 <= exp["seed"] < SEED_LIMIT:
        raise fail("experiment.seed", f"{SEED_TEXT} expected, got {exp.get('seed')!r}")
    if not isinstance(exp.get("mirrored"), bool):
        raise fail("experiment.mirrored", f"true or false expected, got {exp.get('mirrored')!r}")
    for size_key, chunk_key in (("deals", "chunk"), ("games", "game_chunk")):
        size, chunk = exp.get(size_key), exp.get(chunk_key)
        if size is not None and (not _is_int(size) or not 0 < size <= MAX_PER_CELL):
            raise fail(f"experiment.{size_key}",
                       f"null or an integer from 1 to 2**{PER_CELL_BITS} expected, got {size!r}")
        if not _is_int(chunk) or not 0 < chunk <= MAX_PER_CELL:
            raise fail(f"experiment.{chunk_key}", f"an integer from 1 to 2**{PER_CELL_BITS} expected, got {chunk!r}")
    if not exp.get("deals") and not exp.get("games"):
        raise fail("experiment.deals", "a run plays deals, games or both; both are null")
    matchups = exp.get("matchups")
    if not isinstance(matchups, list) or not all(
            isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m) for m in matchups):
        raise fail("experiment.matchups", "a list of [strategy A, strategy B] pairs expected")
    for key in ("variants", "sweep", "plugins"):
        if not isinstance(exp.get(key), dict):
            raise fail(f"experiment.{key}", "a table expected")
    if not all(isinstance(v, str) for v in exp["plugins"].values()):
        raise fail("experiment.plugins", "a table of name = path expected")


_CELL_TYPES = {"a": str, "b": str, "variant": str, "rules": dict, "sweep": dict, "seed": int}


def _check_cells(manifest: dict[str, Any], fail) -> None:
    """Each cell's fields have their types and its seed is the one the experiment gives
    it; when the experiment can be expanded without plug-in code (``Experiment.cells``),
    every cell must be exactly the one it implies."""

    exp = manifest["experiment"]
    for i, cell in enumerate(manifest["cells"]):
        if not isinstance(cell, dict) or cell.get("cell") != i or not all(
                isinstance(cell.get(k), t) and not isinstance(cell.get(k), bool) for k, t in _CELL_TYPES.items()):
            raise fail(f"cells[{i}]", "malformed")
        if cell["seed"] != derive_seed(exp["seed"], i):
            raise fail(f"cells[{i}].seed", f"{cell['seed']} is not the seed the experiment gives cell {i}")
    derived = _derived_cells(exp)
    if derived is None:
        if manifest["format"] < HASHED_FORMAT:  # nothing else vouches for the cells
            raise fail("cells", f"a format-{manifest['format']} run whose sweep needs its plug-ins to list its cells "
                                "cannot be verified; run the experiment again")
        return
    if len(derived) != len(manifest["cells"]):
        raise fail("cells", f"{len(manifest['cells'])} cells, the experiment has {len(derived)}")
    for i, (want, have) in enumerate(zip(derived, manifest["cells"], strict=True)):
        for key in ("a", "b", "variant", "rules", "sweep"):
            if have[key] != want[key]:
                raise fail(f"cells[{i}].{key}", f"{have[key]!r} is not what the experiment gives ({want[key]!r})")


_DERIVED: dict[str, list[dict[str, Any]] | None] = {}


def _derived_cells(exp: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The cells the experiment implies (as JSON data), or None when listing them needs
    plug-in code (a sweep over a plug-in strategy's parameter); computed once per
    experiment in a process."""
    key = experiment_hash(exp)
    if key not in _DERIVED:
        if len(_DERIVED) > 16:
            _DERIVED.clear()
        _DERIVED[key] = _derive_cells(exp)
    return _DERIVED[key]


def _derive_cells(exp: dict[str, Any]) -> list[dict[str, Any]] | None:
    from .experiment import Experiment

    plugin_names = set(exp["plugins"])
    if exp["sweep"] and any(spec.split(":", 1)[0].strip() in plugin_names for m in exp["matchups"] for spec in m):
        return None
    try:
        experiment = Experiment(**{**exp, "matchups": [tuple(m) for m in exp["matchups"]]})
        cells = experiment.cells()
    except (TypeError, ValueError):
        return None
    return json.loads(json.dumps([{"a": c.a, "b": c.b, "variant": c.variant, "rules": c.rules, "sweep": c.sweep}
                                  for c in cells]))


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The manifest of a run directory, verified (its fields, its hash, its cells, its
    chunk records); one-line RunError otherwise.  It is read as every file of a run is
    (``simulator.infra.inputs.read_json``: a regular file, no link, never waited on,
    bounded in size and nesting before it is parsed)."""
    path = Path(run_dir) / MANIFEST
    if not path.exists() and not path.is_symlink():
        raise RunError(f"{run_dir} is not a run directory (no {MANIFEST})")
    manifest = read_json(MANIFEST, "a ginsim manifest", RunError, within=run_dir)
    if not isinstance(manifest, dict):
        raise RunError(f"{path}: not a ginsim manifest (a JSON object expected)")
    if "format" not in manifest and "experiment" in manifest:
        raise RunError(f"{path}: written by an older ginsim without chunk provenance; "
                       f"its rows cannot be verified, so run the experiment again")
    for key, kind in _MANIFEST_KEYS.items():
        if not isinstance(manifest.get(key), kind) or (kind is int and isinstance(manifest.get(key), bool)):
            raise RunError(f"{path}: not a ginsim manifest (field {key!r} missing or not a {kind.__name__})")
    if manifest["format"] not in READ_FORMATS:
        raise RunError(f"{path}: run-directory format {manifest['format']}, this ginsim reads formats "
                       f"{', '.join(map(str, READ_FORMATS))}")

    def fail(key: str, message: str) -> RunError:
        return RunError(f"{path}: {key}: {message} (the manifest was edited or damaged)")

    if manifest["format"] >= HASHED_FORMAT:
        if manifest.get("manifest_hash") != manifest_hash(manifest):
            raise RunError(f"{path}: the manifest was edited after the run started (its manifest_hash differs)")
        sha = manifest.get("plugin_sha256")
        if not isinstance(sha, dict) or set(sha) != set(manifest["experiment"].get("plugins") or {}):
            raise fail("plugin_sha256", "one sha256 per plug-in expected")
    if experiment_hash(manifest["experiment"]) != manifest["experiment_hash"]:
        raise RunError(f"{path}: the experiment was edited after the run started (its hash differs)")
    _check_experiment(manifest["experiment"], fail)
    _check_cells(manifest, fail)
    if manifest["format"] >= DIGEST_FORMAT:
        _check_chunk_records(manifest, fail)
    return manifest


_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _check_chunk_records(manifest: dict[str, Any], fail) -> None:
    """``chunks``: per chunk file written, by its path in the run directory, its sha256,
    size in bytes and rows."""
    records = manifest.get("chunks")
    if not isinstance(records, dict):
        raise fail("chunks", "a table of chunk file -> {sha256, bytes, rows} expected")
    for rel, record in records.items():
        sub, _, name = rel.partition("/")
        if sub not in SUBDIR.values() or not _CHUNK_NAME.match(name):
            raise fail(f"chunks[{rel!r}]", "not the path of a chunk file (data/ or games/cell-NNNN-chunk-NNNNN.parquet)")
        if not isinstance(record, dict) or set(record) != {"sha256", "bytes", "rows"} \
                or not isinstance(record["sha256"], str) or not _SHA256.match(record["sha256"]) \
                or not all(_is_int(record[k]) and record[k] >= 0 for k in ("bytes", "rows")):
            raise fail(f"chunks[{rel!r}]", "{sha256: 64 hex digits, bytes and rows: non-negative integers} expected")


def new_file(path: Path, data: bytes) -> None:
    """Create ``path`` with ``data``: exclusively, never through a symbolic link."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def create_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Write the manifest only if none exists (``O_EXCL`` through a hard link), atomically."""
    path = Path(run_dir) / MANIFEST
    tmp = temp_name(path, manifest["run_id"])
    new_file(tmp, json.dumps(manifest, indent=2).encode())
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise RunError(f"{run_dir} already holds a run (its {MANIFEST} appeared while starting)") from None
    finally:
        tmp.unlink(missing_ok=True)


def update_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    path = Path(run_dir) / MANIFEST
    tmp = temp_name(path, manifest["run_id"])
    tmp.unlink(missing_ok=True)
    new_file(tmp, json.dumps(manifest, indent=2).encode())
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- the lock

class RunLock:
    """An exclusive lock on a run directory for the life of one ``ginsim run``.

    ``fcntl.flock`` on a file in the directory: the operating system releases it when the
    holder exits in any way, so only live processes block.  The file records who holds it.
    It is opened with ``O_NOFOLLOW`` and must be a regular file with a single link, so
    the lock never writes through a link to a file outside the directory.
    """

    def __init__(self, run_dir: Path, what: str):
        self.path = Path(run_dir) / LOCK
        self.what = what
        self.fd: int | None = None

    def __enter__(self) -> "RunLock":
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise RunError(f"{self.path} is a symbolic link; ginsim writes its lock only to a file of its own "
                               f"there: remove the link or choose another --out") from None
            raise
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            os.close(fd)
            raise RunError(f"{self.path} is not a plain file of its own (a "
                           f"{'hard link' if stat.S_ISREG(info.st_mode) else 'special file'}); ginsim writes its "
                           f"lock only to a file of its own there: remove it or choose another --out")
        for _ in range(LOCK_TRIES):  # a reader's probe (live_holder) holds it for an instant only
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise
            time.sleep(0.05)
        else:
            os.close(fd)
            raise RunError(f"{self.path.parent} is in use by another ginsim run ({self.holder()}); "
                           f"wait for it or choose another --out")
        self.fd = fd
        info = {"pid": os.getpid(), "host": socket.gethostname(), "what": self.what,
                "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        return self

    def holder(self) -> str:
        try:
            info = read_json(self.path, "a lock file", RunError, limit=1 << 16)
            return f"pid {info['pid']} on {info['host']}, {info['what']}, since {info['since']}"
        except (RunError, KeyError, TypeError):
            return "holder unknown"

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def live_holder(run_dir: Path) -> str | None:
    """Who is writing ``run_dir`` now (``RunLock.holder``), or None when no live process
    holds its lock: the lock is taken shared for an instant and given back, which a run
    starting in that instant waits out (``LOCK_TRIES``)."""
    try:
        fd = os.open(Path(run_dir) / LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None  # no lock file: no run has written here
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        return RunLock(run_dir, "").holder() if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES) else None
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def finish_advice(run_dir: Path) -> str:
    """How an unfinished run gets finished, for the messages that find one: wait for the
    live ginsim run writing it, else resume it."""
    holder = live_holder(run_dir)
    if holder is not None:
        return f"ginsim is still writing this run ({holder}): wait for it to finish"
    return f"finish the run with: ginsim run EXPERIMENT --out {run_dir} --resume"


def locked_output(out: Path, what: str, error: type[Exception], work: Callable[[], Any]) -> Any:
    """Make the output directory ``out`` and run ``work()`` holding its ``RunLock`` (for
    ``ginsim tune`` and ``ginsim equilibrium``): a directory that cannot be made, or that
    another process holds, is refused as ``error`` with one line."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise error(f"output directory {out} is not writable: {exc.strerror or exc}") from None
    try:
        with RunLock(out, what):
            return work()
    except RunError as exc:
        raise error(str(exc)) from None


def kept_state(out: Path, resume: bool, state_file: str, mark: str, error: type[Exception], kind: str,
               locked: bool = True) -> dict[str, Any] | None:
    """The kept state (``out/state_file``, a JSON document whose ``_`` is ``mark``) of a
    resumable study in ``out`` (``ginsim equilibrium``'s runs; ``kind`` names one in errors),
    or None for a new run.  Refused as ``error`` with one line: ``out`` a file, a state there
    without --resume, a state that cannot be read or that ginsim did not write, a non-empty
    directory without one.  Before the lock is taken (``locked`` false) a directory with a lock
    file and no state yet is left to the lock: a run that has just started there holds it."""
    if out.exists() and not out.is_dir():
        raise error(f"--out {out} is a file, not a directory")
    if not out.exists():
        return None
    state = out / state_file
    if state.exists():
        if not resume:
            raise error(f"{out} already holds {kind}; continue it with --resume or choose another out")
        try:
            data = read_json(state, kind.removeprefix("an ").removeprefix("a ") + "'s state", error)
        except error as exc:
            raise error(f"{exc}; move it away or choose another out") from None
        if not isinstance(data, dict) or data.get("_") != mark:
            raise error(f"{state} was not written by ginsim; move it away or choose another out")
        return data
    entries = [p.name for p in out.iterdir() if p.name != LOCK]
    if not locked and (out / LOCK).exists():
        return None
    if entries:
        raise error(f"--out {out} is not empty and holds no {kind.removeprefix('an ').removeprefix('a ')} "
                    f"(found {sorted(entries)[0]!r}); choose a new or empty directory")
    return None


def check_subdirs(run_dir: Path) -> None:
    """Refuse a ``data/`` or ``games/`` that is not a real directory inside ``run_dir`` (a
    symbolic link would send chunk writes outside the run directory)."""
    for sub in SUBDIR.values():
        folder = Path(run_dir) / sub
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            raise RunError(f"{folder} is {'a symbolic link' if folder.is_symlink() else 'not a directory'}; a run "
                           f"writes only into real directories of its own: remove it or choose another --out")


# ----------------------------------------------------------------------------- verification

@dataclass
class Verification:
    """What a run directory holds against its plan."""

    plan: Plan
    good: dict[str, list[Path]] = field(default_factory=lambda: {"deals": [], "games": []})
    missing: int = 0
    first_missing: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)  # truncated, unreadable or changed planned chunks
    foreign: list[str] = field(default_factory=list)  # files ginsim did not write for this run
    other_code: list[str] = field(default_factory=list)  # chunks played by other code
    unrecorded: list[str] = field(default_factory=list)  # written, but the manifest holds no digest yet
    present: dict[str, set[tuple[int, int]]] = field(default_factory=dict)  # verified (cell, index)

    @property
    def complete(self) -> bool:
        return not (self.missing or self.damaged or self.foreign or self.other_code or self.unrecorded)

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
            out.append(f"{len(self.damaged)} truncated, damaged or changed chunk(s): {names(self.damaged)}")
        if self.missing:
            unrecorded = f", {len(self.unrecorded)} of them written but not recorded in the manifest" \
                if self.unrecorded else ""
            out.append(f"{self.missing} of {self.plan.n_chunks()} chunk(s) missing{unrecorded}: "
                       f"{names(self.first_missing, self.missing)}")
        return out


#: what ``_read_provenance`` gives for a path that is no regular file (a link, a FIFO...)
NOT_A_FILE: dict[str, Any] = {"not": "a regular file"}


def _read_provenance(run_dir: Path, rel: str) -> tuple[dict[str, Any] | None, int | None]:
    """(provenance, number of rows) from the Parquet footer of ``run_dir/rel``, the file
    opened as every run file is (``open_regular``: no link, never waited on); (None, None)
    when its footer cannot be read, (``NOT_A_FILE``, None) when it is no regular file."""
    import pyarrow.parquet as pq

    try:
        fd = open_regular(rel, "a chunk file", RunError, within=run_dir)
    except RunError:
        return NOT_A_FILE, None
    with os.fdopen(fd, "rb") as handle:
        try:
            meta = pq.read_metadata(handle)
        except Exception:  # noqa: BLE001 - any unreadable footer is a damaged file
            return None, None
    raw = (meta.metadata or {}).get(META_KEY)
    try:
        return (parse_json(raw, f"{run_dir / rel}", RunError, limit=1 << 16, what="a chunk's provenance")
                if raw else {}), \
            meta.num_rows
    except RunError:
        return {}, meta.num_rows


def chunk_record(data: bytes, rows: int) -> dict[str, Any]:
    """What the manifest records of a chunk file as it is written: the sha256 of its bytes,
    their number and the rows they hold."""
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "rows": int(rows)}


def read_chunk(run_dir: Path, rel: str, manifest: dict[str, Any]) -> bytes:
    """The bytes of the chunk file ``rel`` (``data/cell-0000-chunk-00000.parquet``) of a run,
    proven to be the bytes ginsim wrote: read as every run file is (``read_regular``: a
    regular file, no link in its path, never waited on, no more than the recorded size)
    and their sha256 equal to the one the manifest recorded when the chunk was written.
    Otherwise one-line ``RunError`` naming the chunk.  Everything ginsim reads from a chunk
    (the statistics of ``show`` and ``report``, ``replay``'s stored row) is parsed from
    these bytes, so what is verified is what is read."""
    record = (manifest.get("chunks") or {}).get(rel)
    path = Path(run_dir) / rel
    if record is None:
        raise RunError(f"{path}: the manifest records no digest for this chunk, so its rows cannot be proven; "
                       f"re-play it with: ginsim run EXPERIMENT --out {run_dir} --resume")
    fd = open_regular(rel, "a chunk file", RunError, within=run_dir)
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size  # never more than the recorded size is read
        data = handle.read(record["bytes"] + 1) if size == record["bytes"] else b""
    if len(data) != record["bytes"] or hashlib.sha256(data).hexdigest() != record["sha256"]:
        now = f"sha256 {hashlib.sha256(data).hexdigest()[:12]}..." if data else f"{size:,} bytes"
        raise RunError(f"{path}: changed since ginsim wrote it ({now}, the manifest recorded "
                       f"{record['sha256'][:12]}... in {record['bytes']:,} bytes); re-play it with: ginsim run "
                       f"EXPERIMENT --out {run_dir} --resume")
    return data


def read_chunk_table(run_dir: Path, path: Path, manifest: dict[str, Any], columns=None):
    """The Arrow table of a verified chunk file ``path`` of a run, parsed from the bytes
    ``read_chunk`` proved.  ``columns``: every column (None), a list, or a function of the
    file's column names that gives the list."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rel = Path(path).relative_to(run_dir).as_posix()
    data = read_chunk(run_dir, rel, manifest)
    try:
        if callable(columns):
            columns = columns(pq.read_schema(pa.BufferReader(data)).names)
        return pq.read_table(pa.BufferReader(data), columns=columns, use_threads=False)
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise RunError(f"{path}: a damaged chunk ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}); "
                       f"re-play it with: ginsim run EXPERIMENT --out {run_dir} --resume") from None


def read_rows(run_dir: Path, mode: str, columns: list[str] | None = None):
    """Every row of ``mode`` ("deals" or "games") of a complete, verified run
    (``readable_run``), each chunk's bytes proven as it is read (``read_chunk_table``), as
    one pandas DataFrame of ``columns`` (default all): what a study's own analysis reads
    instead of ``pandas.read_parquet`` on the folder."""
    import pyarrow as pa

    run_dir = run_path(run_dir)
    manifest, verification = readable_run(run_dir)
    tables = [read_chunk_table(run_dir, path, manifest, columns) for path in verification.good[mode]]
    if not tables:
        raise RunError(f"{run_dir}: the run holds no {mode}")
    return pa.concat_tables(tables).to_pandas()


def _proven(run_dir: Path, rel: str, manifest: dict[str, Any]) -> bool:
    """True when ``read_chunk`` proves the chunk (for ``--resume`` and the reuse of a finished run)."""
    try:
        read_chunk(run_dir, rel, manifest)
    except RunError:
        return False
    return True


def verify_run(run_dir: Path, manifest: dict[str, Any], deep: bool = False, unsealed: bool = False) -> Verification:
    """Check every file of ``data/`` and ``games/`` against the plan, the provenance and the
    chunk records in the manifest.  Reads Parquet footers only (a reader proves each chunk's
    bytes as it reads them: ``read_chunk``), and with ``deep`` (``--resume``, the reuse of a
    finished run) every byte too, so that a chunk changed or damaged inside counts as
    damaged.  A planned chunk the manifest holds no record of (a run killed between writing
    it and recording it) counts as missing, to be played again.  ``unsealed`` (for
    ``seal_run``: a manifest that records no digests yet) checks footers and provenance alone."""
    run_dir = Path(run_dir)
    plan = Plan.from_experiment(manifest["experiment"], len(manifest["cells"]))
    result = Verification(plan)
    run_id = manifest["run_id"]
    records = manifest.get("chunks") or {}
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
            prov, rows = _read_provenance(run_dir, rel)
            if prov is None:
                result.damaged.append(rel)
                continue
            if prov is NOT_A_FILE or prov.get("run_id") != run_id or prov.get("experiment_hash") != manifest["experiment_hash"]:
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
            if not unsealed and rel not in records:
                result.unrecorded.append(rel)
                continue
            if not unsealed and (records[rel]["rows"] != chunk.count or (deep and not _proven(run_dir, rel, manifest))):
                result.damaged.append(rel)
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


def require_digests(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Refuse, in one line naming what to run, a run whose manifest (format 2 or 3, written
    by an earlier ginsim) records no digest of its chunks: its rows cannot be proven."""
    if manifest["format"] < DIGEST_FORMAT:
        raise RunError(f"{run_dir}: written by an earlier ginsim (run-directory format {manifest['format']}), which "
                       f"recorded no digest of its chunks, so its rows cannot be proven; record them with: ginsim "
                       f"seal {run_dir} (it checks every chunk first), or play the run again")


def readable_run(run_dir: Path, allow_missing: bool = False) -> tuple[dict[str, Any], Verification]:
    """The manifest and the verified files of a run, for reading.  Refuses (RunError, one
    line) a run without chunk digests (``require_digests``), one with foreign, damaged or
    other-code files, and one with missing chunks unless ``allow_missing``."""
    manifest = read_manifest(run_dir)
    require_digests(run_dir, manifest)
    verification = verify_run(run_dir, manifest)
    problems = [p for p in verification.problems() if allow_missing is False or "missing" not in p]
    if problems:
        hint = f" ({finish_advice(run_dir)})" if verification.missing and not (
            verification.foreign or verification.damaged or verification.other_code) else ""
        raise RunError(f"{run_dir}: " + "; ".join(problems) + hint)
    return manifest, verification


def seal_run(run_dir: Path) -> int | None:
    """Record the digest of every chunk of a run written by an earlier ginsim (format 2 or
    3), the explicit step that lets this ginsim read it (``ginsim seal``); returns the
    number of chunks recorded (None for a run that carries its digests already, 0 for one
    without any chunk file, whose manifest is left as it is).

    Holding the run's lock, every chunk is checked first as ``--resume`` checks it (its
    footer's provenance against the manifest, and every page decoded): a foreign, damaged
    or other-code file stops it before anything is written.  The manifest is then rewritten
    in the current format, its hash recomputed.  This vouches for the chunks as they are
    now: it cannot tell an edit made before it ran, so it is never done without being asked."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    run_dir = Path(run_dir)
    with RunLock(run_dir, "ginsim seal"):
        manifest = read_manifest(run_dir)
        if manifest["format"] >= DIGEST_FORMAT:
            return None
        if manifest["format"] < HASHED_FORMAT and manifest["experiment"].get("plugins"):
            raise RunError(f"{run_dir}: a format-{manifest['format']} run of plug-ins recorded no sha256 of their "
                           f"files, so they cannot be vouched for; play the run again")
        verification = verify_run(run_dir, manifest, unsealed=True)
        problems = [p for p in verification.problems() if "missing" not in p]
        if problems:
            raise RunError(f"{run_dir}: " + "; ".join(problems) + "; nothing recorded")
        if not any(verification.good.values()):
            return 0  # nothing to vouch for: the manifest stays as it is
        records = {}
        for mode in SUBDIR:
            for path in verification.good[mode]:
                rel = path.relative_to(run_dir).as_posix()
                data = read_regular(rel, "a chunk file", 1 << 40, RunError, within=run_dir)
                try:
                    rows = pq.read_table(pa.BufferReader(data), use_threads=False).num_rows
                except (OSError, ValueError, pa.ArrowException):
                    raise RunError(f"{path}: a damaged chunk (a page does not decode); nothing recorded") from None
                records[rel] = chunk_record(data, rows)
        manifest = {**manifest, "format": DIGEST_FORMAT, "chunks": dict(sorted(records.items()))}
        manifest.setdefault("plugin_sha256", {})
        manifest["manifest_hash"] = manifest_hash(manifest)
        update_manifest(run_dir, manifest)
        return len(records)


#: every file ``ginsim report`` writes carries this mark, so a report is only ever
#: replaced by another report, never a user's own file of the same name
GENERATOR = "ginsim report"


def head_of(path: Path, size: int = 4096) -> bytes:
    """The first ``size`` bytes of ``path``, read as every run file is (``open_regular``:
    a regular file, no link, never waited on); empty when it cannot be read so."""
    try:
        fd = open_regular(path, "a file", RunError)
    except RunError:
        return b""
    with os.fdopen(fd, "rb") as handle:
        try:
            return handle.read(size)
        except OSError:
            return b""


def written_by_ginsim(path: Path) -> bool:
    """True when ``path`` is a file that ``ginsim report`` wrote (it carries the mark)."""
    head = head_of(Path(path))
    if Path(path).suffix == ".png":
        return b"tEXtSoftware\x00" + GENERATOR.encode() in head
    return f'<meta name="generator" content="{GENERATOR}">'.encode() in head or \
        f"<!-- generated by {GENERATOR}".encode() in head


# ----------------------------------------------------------------------------- sealed documents

#: the key of a sealed JSON document (``seal``): the sha256 of the rest of it, canonical
SEAL = "seal"


def _canonical(document: dict[str, Any]) -> bytes:
    body = {k: v for k, v in document.items() if k != SEAL}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def seal(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with its seal: under ``SEAL``, the sha256 of the rest of it as canonical
    JSON.  A derived file ginsim writes and later reads back as fact (``confirm.json``, the
    report's record of its files) is sealed, so that an edit is refused (``check_seal``)."""
    return {**{k: v for k, v in document.items() if k != SEAL},
            SEAL: {"sha256": hashlib.sha256(_canonical(document)).hexdigest()}}


def check_seal(document: Any, path: Path, fix: str) -> dict[str, Any]:
    """``document`` (read from ``path``) when its seal matches its content; else one-line
    ``RunError`` saying it was edited (or written by an earlier ginsim) and ``fix``."""
    recorded = document.get(SEAL) if isinstance(document, dict) else None
    if not isinstance(recorded, dict) or not isinstance(recorded.get("sha256"), str):
        raise RunError(f"{path}: not sealed (written by an earlier ginsim, or edited); {fix}")
    if hashlib.sha256(_canonical(document)).hexdigest() != recorded["sha256"]:
        raise RunError(f"{path}: edited since ginsim wrote it (its content no longer matches its seal); {fix}")
    return document


def read_sealed(path: Path, what: str, fix: str) -> dict[str, Any]:
    """A sealed JSON file (``seal``), read as every run file is (``read_json``: a regular
    file, no link, never waited on, bounded before parsing) and its seal checked."""
    return check_seal(read_json(path, what, RunError), path, fix)


def seal_file(path: Path) -> bool:
    """Seal, as it stands, a JSON document ginsim wrote before it sealed them (an earlier
    ginsim's ``confirm.json``): the explicit step (``ginsim seal``) that lets this ginsim
    read it; False when it is sealed already.  A sealed file whose seal does not match (an
    edit) is refused, never sealed again."""
    path = Path(path)
    document = read_json(path, "a JSON document", RunError)
    if not isinstance(document, dict):
        raise RunError(f"{path}: not a JSON object, so not a document ginsim seals")
    if SEAL in document:
        check_seal(document, path, "re-run the command that wrote it")
        return False
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    new_file(tmp, (json.dumps(seal(document), indent=1, ensure_ascii=False, allow_nan=False) + "\n").encode())
    os.replace(tmp, path)
    return True


#: the record of the files ``ginsim report`` wrote in a directory: name -> sha256
REPORT_RECORD = ".ginsim-report.json"
#: the names of the files of a report, for a directory without a record (older reports)
_LEGACY_NAMES = ("report.md", "report.html")


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(read_regular(path, "a report file", 1 << 31, RunError)).hexdigest()
    except RunError:
        return None


def _recorded(out: Path) -> tuple[dict[str, str] | None, bool]:
    """(the record's name -> sha256, or None when there is no record it can trust; whether
    ``out`` holds an unsealed record of an earlier ginsim).  An unreadable record, or one
    whose seal does not match (an edited record), vouches for nothing."""
    path = Path(out) / REPORT_RECORD
    if not path.exists() and not path.is_symlink():
        return None, False
    try:
        data = read_json(path, "a report record", RunError, limit=1 << 20)
    except RunError:
        return None, False
    if not isinstance(data, dict) or data.get("generator") != GENERATOR:
        return None, False
    if SEAL not in data:
        return None, True
    try:
        check_seal(data, path, "")
    except RunError:
        return None, False
    files = data.get("files")
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        return None, False
    return files, False


def report_files(out: Path) -> list[Path]:
    """The files of ``out`` that ``ginsim report`` wrote and nobody changed since: those in
    its record (``REPORT_RECORD``, sealed, which is one of them) whose sha256 still matches.
    A directory without a sealed record (a report of an earlier ginsim) vouches for
    report.md and report.html when they carry the mark, for the marked figures report.md
    shows, and for the earlier ginsim's unsealed record itself (whose list it does not
    trust: anyone can edit it)."""
    out = Path(out)
    files, legacy = _recorded(out)
    if files is not None:
        ours = [out / name for name, digest in sorted(files.items())
                if "/" not in name and name not in ("", ".", "..") and written_by_ginsim(out / name)
                and _sha256(out / name) == digest]
        return ours + [out / REPORT_RECORD]
    ours = [out / name for name in _LEGACY_NAMES if written_by_ginsim(out / name)]  # (regular files, not links)
    if out / "report.md" in ours:
        try:
            text = read_regular(out / "report.md", "a report", 1 << 26, RunError).decode("utf-8", "replace")
        except RunError:
            text = ""
        shown = re.findall(r"!\[[^\]]*\]\(([^)/\\]+\.png)\)", text)
        ours += [out / name for name in dict.fromkeys(shown) if written_by_ginsim(out / name)]
    return ours + ([out / REPORT_RECORD] if legacy else [])


#: ``ginsim confirm``'s outputs in a study's results directory (``simulator.studies.confirm``):
#: file name -> the mark it carries near its start.  They depend on the confirmation's seeds,
#: not on the run there, so ``--force`` and ``ginsim reproduce`` keep them.
CONFIRM_WRITER = "ginsim confirm"
CONFIRMATION_FILES = {"confirm.json": f'"written_by": "{CONFIRM_WRITER}"',
                      "confirm.md": f"<!-- written by {CONFIRM_WRITER} -->"}


def is_confirmation_file(path: Path) -> bool:
    """True when ``path`` is a ``confirm.json`` / ``confirm.md`` that ``ginsim confirm`` wrote."""
    mark = CONFIRMATION_FILES.get(Path(path).name)
    return mark is not None and mark.encode() in head_of(Path(path))
