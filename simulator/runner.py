"""Running an experiment: cells split into chunks, played in parallel, written to Parquet.

A run directory holds ``manifest.json`` (the resolved experiment, seeds, versions, git
commit, and ``complete`` once every chunk is written), ``data/`` with the hand rows of
single deals and ``games/`` with the game rows, one Parquet file per chunk of a cell:
``pandas.read_parquet(run_dir + "/data")`` reads every hand.

* **Deterministic**: cell c plays deals 0..N-1 with its own seed derived from (experiment
  seed, c); a chunk is a range of those deals, so results do not depend on the chunk
  size, the number of jobs, or the backend.
* **Atomic and resumable**: each chunk is written under a temporary name and renamed;
  ``--resume`` skips the chunks already on disk, so a run killed at any moment completes
  to the same dataset.  A finished run directory is never overwritten.
* **Parallel**: numba threads within a process; joblib processes across chunks; with
  ``backend="dask"`` the chunks go to a Dask distributed cluster through joblib.
* **Bounded memory**: a worker holds one chunk at a time.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .experiment import Cell, Experiment

MANIFEST = "manifest.json"


class RunError(ValueError):
    """A run that cannot start (bad output directory, finished run, mismatched resume)."""


def cell_seed(seed: int, cell: int) -> int:
    digest = hashlib.blake2b(f"{seed}:{cell}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


#: where each kind of row goes in a run directory
SUBDIR = {"deals": "data", "games": "games"}


@dataclass(frozen=True)
class Chunk:
    mode: str  # "deals" or "games"
    cell: int
    index: int
    start: int
    count: int

    @property
    def path(self) -> str:
        return f"{SUBDIR[self.mode]}/cell-{self.cell:04d}-chunk-{self.index:05d}.parquet"


def plan_chunks(exp: Experiment) -> list[Chunk]:
    chunks = []
    for mode, size, per_file in (("deals", exp.deals, exp.chunk), ("games", exp.games, exp.game_chunk)):
        if not size:
            continue
        for cell in exp.cells():
            for k, start in enumerate(range(0, size, per_file)):
                chunks.append(Chunk(mode, cell.index, k, start, min(per_file, size - start)))
    return chunks


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


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


def chunk_frame(exp: Experiment, cell: Cell, chunk: Chunk) -> pd.DataFrame:
    """Play one chunk and label its rows with the cell."""
    from . import api

    seed = cell_seed(exp.seed, cell.index)
    if chunk.mode == "deals":
        records = api.play_deal_records(cell.a, cell.b, cell.rules, chunk.start, chunk.count, seed, exp.mirrored)
        api._check_errors(records[:, api.E.H_ERROR], records[:, api.E.H_DEAL])
        df = api.hand_frame(records)
    else:
        games, _ = api.play_game_records(cell.a, cell.b, cell.rules, chunk.start, chunk.count, seed, exp.mirrored)
        api._check_errors(games[:, api.E.G_ERROR], games[:, api.E.G_GAME])
        df = api.game_frame(games)
    labels = {"cell": cell.index, "matchup": f"{cell.a} vs {cell.b}", "a": cell.a, "b": cell.b,
              "variant": cell.variant}
    labels.update(cell.sweep)
    for i, (k, v) in enumerate(labels.items()):
        df.insert(i, k, v)
    return df


def _run_chunk(exp: Experiment, cell: Cell, chunk: Chunk, run_dir: str, threads: int) -> tuple[int, int]:
    import numba

    import strategies

    for name, path in exp.plugins.items():
        strategies.register(name, path)
    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    df = chunk_frame(exp, cell, chunk)
    target = Path(run_dir) / chunk.path
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    df.to_parquet(tmp, index=False)
    os.replace(tmp, target)
    return chunk.cell, chunk.count


def prepare_run_dir(exp: Experiment, out: Path, resume: bool) -> dict[str, Any]:
    manifest_path = out / MANIFEST
    wanted = exp.to_dict()
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if not resume:
            state = "a finished run" if manifest.get("complete") else "an unfinished run (use --resume)"
            raise RunError(f"{out} already holds {state}; choose another --out")
        if manifest["experiment"] != json.loads(json.dumps(wanted)):
            raise RunError(f"{out} holds a run of a different experiment; cannot --resume it")
        return manifest
    try:
        for mode, size in (("deals", exp.deals), ("games", exp.games)):
            if size:
                (out / SUBDIR[mode]).mkdir(parents=True, exist_ok=True)
        probe = out / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise RunError(f"output directory {out} is not writable: {exc.strerror or exc}") from None
    manifest = {
        "experiment": wanted,
        "cells": [{"cell": c.index, "a": c.a, "b": c.b, "variant": c.variant, "rules": c.rules,
                   "sweep": c.sweep, "seed": cell_seed(exp.seed, c.index)} for c in exp.cells()],
        "versions": _versions(),
        "git_commit": _git_commit(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "complete": False,
    }
    _atomic_write_text(manifest_path, json.dumps(manifest, indent=2))
    return manifest


def run_experiment(exp: Experiment, out: str | Path, jobs: int = 1, backend: str = "local",
                   scheduler: str | None = None, resume: bool = False, progress: bool = True) -> Path:
    """Run every missing chunk of ``exp`` into ``out``; returns the run directory."""
    import joblib
    from tqdm import tqdm

    if backend not in ("local", "dask"):
        raise RunError(f"backend must be local or dask, got {backend!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise RunError(f"--jobs must be a positive integer, got {jobs!r}")
    out = Path(out)
    manifest = prepare_run_dir(exp, out, resume)
    cells = {c.index: c for c in exp.cells()}
    planned = plan_chunks(exp)
    todo = [c for c in planned if not (out / c.path).exists()]
    for sub in SUBDIR.values():
        for stale in (out / sub).glob(".*.tmp"):
            stale.unlink()
    # progress counts output rows: one per deal, one per game
    total = sum(c.count for c in planned)
    done = total - sum(c.count for c in todo)
    threads = max(1, (os.cpu_count() or 1) // jobs)
    unit = "deal" if not exp.games else ("game" if not exp.deals else "row")
    bar = tqdm(total=total, initial=done, unit=unit, unit_scale=True, disable=not progress,
               desc=exp.name, smoothing=0.1)
    tasks = (joblib.delayed(_run_chunk)(exp, cells[c.cell], c, str(out), threads) for c in todo)
    try:
        if backend == "dask":
            from distributed import Client, LocalCluster

            cluster = None if scheduler else LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                                          dashboard_address=None)
            with Client(scheduler or cluster) as client:
                with joblib.parallel_config(backend="dask", wait_for_workers_timeout=120):
                    for _, count in joblib.Parallel(return_as="generator_unordered")(tasks):
                        bar.update(count)
                del client
            if cluster is not None:
                cluster.close()
        elif jobs == 1:
            for task in tasks:
                fn, args, kwargs = task
                _, count = fn(*args, **kwargs)
                bar.update(count)
        else:
            for _, count in joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")(tasks):
                bar.update(count)
    finally:
        bar.close()
    manifest["complete"] = True
    manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    _atomic_write_text(out / MANIFEST, json.dumps(manifest, indent=2))
    return out


def summarize(run_dir: str | Path, mode: str = "deals") -> pd.DataFrame:
    """Per cell, for ``mode`` "deals" (hand rows) or "games" (game rows): rows, net points
    per hand (or game margin) to A with a 95% interval, and the outcome mix (or A's game
    wins).  With mirrored deals each pair is one unit (paired difference); chunks hold whole
    pairs, so the files are read one at a time and memory stays bounded."""
    import pyarrow.parquet as pq

    run_dir = Path(run_dir)
    manifest = json.loads((run_dir / MANIFEST).read_text())
    exp = manifest["experiment"]
    deals = mode == "deals"
    value = "net_a" if deals else "margin_a"
    label = "outcome" if deals else "winner"
    acc: dict[int, dict[str, Any]] = {c["cell"]: {"n": 0, "sum": 0.0, "sumsq": 0.0, "rows": 0, "mix": {}}
                                      for c in manifest["cells"]}
    for path in sorted((run_dir / SUBDIR[mode]).glob("*.parquet")):
        part = pq.read_table(path, columns=["cell", "pair", value, label]).to_pandas()
        cell = int(part["cell"].iloc[0])
        units = part.groupby("pair")[value].mean() if exp["mirrored"] else part[value]
        a = acc[cell]
        a["n"] += len(units)
        a["sum"] += float(units.sum())
        a["sumsq"] += float((units.astype(float) ** 2).sum())
        a["rows"] += len(part)
        for k, v in part[label].value_counts().items():
            a["mix"][k] = a["mix"].get(k, 0) + int(v)
    rows = []
    for cell in manifest["cells"]:
        a = acc[cell["cell"]]
        n = a["n"]
        mean = a["sum"] / n if n else float("nan")
        var = (a["sumsq"] - n * mean * mean) / (n - 1) if n > 1 else float("nan")
        half = float(1.96 * np.sqrt(max(var, 0.0) / n)) if n > 1 else float("nan")
        row = {"cell": cell["cell"], "matchup": f"{cell['a']} vs {cell['b']}", "variant": cell["variant"],
               "rows": a["rows"], value: mean, "ci95": half}
        if deals:
            for outcome in ("knock", "gin", "big_gin", "undercut", "dead"):
                row[outcome] = a["mix"].get(outcome, 0) / a["rows"] if a["rows"] else float("nan")
        else:
            row["a_wins"] = a["mix"].get("a", 0) / a["rows"] if a["rows"] else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def run_summaries(run_dir: str | Path) -> str:
    """The printed summary of a run: a table for hands and one for games, as present."""
    manifest = json.loads((Path(run_dir) / MANIFEST).read_text())
    parts = []
    for mode, title in (("deals", "single hands: net points per hand to A"),
                        ("games", "whole games: final margin per game to A")):
        if manifest["experiment"].get(mode):
            parts.append(f"{title}\n{format_summary(summarize(run_dir, mode))}")
    return "\n\n".join(parts)


def format_summary(summary: pd.DataFrame) -> str:
    value = "net_a" if "net_a" in summary else "margin_a"
    lines = []
    head = f"{'cell':>4}  {'matchup':<44}{'variant':<14}{'rows':>10}  {value + ' ± 95%':>18}"
    extra = [c for c in ("knock", "gin", "big_gin", "undercut", "dead", "a_wins") if c in summary]
    lines.append(head + "".join(f"{c:>9}" for c in extra))
    for r in summary.itertuples(index=False):
        d = r._asdict()
        lines.append(f"{d['cell']:>4}  {d['matchup'][:43]:<44}{d['variant'][:13]:<14}{d['rows']:>10,}  "
                     f"{d[value]:>+9.3f} ± {d['ci95']:<6.3f}" + "".join(f"{d[c]:>9.1%}" for c in extra))
    return "\n".join(lines)
