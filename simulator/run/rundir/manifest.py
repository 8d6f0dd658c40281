"""A run directory's manifest and provenance: what was played, by which code, verified before use.

The manifest records the run id, the resolved experiment and its hash, the cells with their
seeds, the code fingerprint (``code_fingerprint``) and each plug-in's sha256; ``manifest_hash``
covers all of it.  ``read_manifest`` checks every field's type and range, that hash, and that
each cell's seed is the one the experiment implies; ``create_manifest`` writes it once,
exclusively, ``update_manifest`` atomically.  The chunk plan (``Plan``, ``Chunk``) is arithmetic.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...infra.cache import package_sources, playing_modules
from ...infra.inputs import read_json
from ..limits import MAX_PER_CELL, PER_CELL_BITS, SEED_LIMIT, SEED_TEXT
from ..seeds import derive_seed


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
    from ..experiment import Experiment

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
