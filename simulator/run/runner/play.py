"""``run_experiment``: an experiment's chunks played in worker processes, with progress, resumable.

The chunks still to play (all of them, or those ``--resume`` finds missing) go to joblib
processes, or to a Dask cluster through joblib (``backend="dask"``); a progress bar counts
rows, the manifest records each written chunk as it lands, and ``complete`` once all are.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from ..experiment import Experiment
from ..rundir import (
    LOCK, MANIFEST, SUBDIR, Chunk, Plan, RunError, DIGEST_FORMAT, RunLock, check_subdirs, chunk_provenance,
    code_fingerprint, finish_advice, is_own_temp, read_manifest, readable_run, todo_chunks,
    update_manifest, run_path, verify_run,
)

from .rows import experiment_plan
from .chunk import _play_and_write, _run_chunk, experiment_sids
from .output import (
    _check_output_dir, _remove_fresh_run, check_disk, check_jobs, clear_run_dir, clearable_files,
    prepare_run_dir,
)


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
        from ...infra.cache import announce_compile
        from ...engine.select import kernels_compiled

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
