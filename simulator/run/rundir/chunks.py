"""A run's chunk files: proven before they are read, verified against the plan, sealed.

``verify_run`` checks every file of ``data/`` and ``games/`` against the plan the manifest
implies (Parquet footers only); ``read_chunk`` reads no byte whose sha256, size and rows the
manifest has not recorded; ``seal_run`` records them for runs of older formats.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...infra.inputs import open_regular, parse_json, read_regular

from .manifest import (
    Chunk, DIGEST_FORMAT, HASHED_FORMAT, META_KEY, Plan, RunError, SUBDIR, _CHUNK_NAME, is_own_temp,
    manifest_hash, read_manifest, run_path, update_manifest,
)
from .lock import RunLock, finish_advice


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
