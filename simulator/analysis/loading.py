"""What a report reads from a run: per-cell statistics and the experiment's structure.

The statistics are streamed (``simulator.analysis.stats.scan_run``: one verified chunk file
at a time, only the columns they need, reduced to per-cell moments and histograms of hand
length), so memory grows with the number of cells, not rows.  The manifest gives each
cell's labels (matchup, strategies, variant), the matchups as the experiment names them
before a sweep set their parameters, and how each strategy defends after a knock.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import stats as an


def _manifest_labels(manifest: dict[str, Any]) -> pd.DataFrame | None:
    """Per cell: matchup, a, b, variant, as the runner labels the rows (the matchup as a person
    reads it, a named table by its name: ``strategies.display_spec``); None if the manifest
    does not list them."""
    from strategies import display_spec

    cells = manifest.get("cells") or []
    if not cells or not all({"cell", "a", "b", "variant"} <= set(c) for c in cells):
        return None
    return pd.DataFrame([{"cell": c["cell"], "matchup": f"{display_spec(c['a'])} vs {display_spec(c['b'])}",
                          "a": c["a"], "b": c["b"],
                          "variant": c["variant"]} for c in cells])


def _attach_labels(stats: pd.DataFrame, labels: pd.DataFrame | None) -> pd.DataFrame:
    if labels is None or "a" in stats.columns:
        return stats
    merged = stats.merge(labels, on="cell", how="left")
    front = ["cell", "matchup", "a", "b", "variant", *an.sweep_columns(stats)]
    return merged[front + [c for c in merged.columns if c not in front]]


def base_matchups(manifest: dict[str, Any], stats: pd.DataFrame) -> pd.DataFrame:
    """Per cell, the matchup's strategies as the experiment names them (before the sweep
    set their parameters): columns ``cell``, ``base_a``, ``base_b``, ``base_matchup``."""
    try:
        from ..run.experiment import _with_params  # how the runner names a swept strategy
    except ImportError:  # pragma: no cover - then every cell is its own matchup
        def _with_params(spec: str, values: dict[str, float], side: str) -> str:
            return spec

    matchups = [tuple(m) for m in manifest.get("experiment", {}).get("matchups", [])]
    index = {c.get("cell"): c.get("matchup") for c in manifest.get("cells") or []}
    keys = an.sweep_columns(stats)
    rows = []
    for _, row in stats.iterrows():
        sweep = {k: float(row[k]) for k in keys if pd.notna(row[k])}
        m = index.get(row["cell"])
        if isinstance(m, int) and not isinstance(m, bool) and 0 <= m < len(matchups):
            base = matchups[m]  # the manifest names the cell's matchup
        else:  # find the matchup whose specs, with the cell's swept values, give the cell's
            base = next(((ma, mb) for ma, mb in matchups if _with_params(ma, sweep, "a") == row["a"]
                         and _with_params(mb, sweep, "b") == row["b"]), (row["a"], row["b"]))
        rows.append({"cell": row["cell"], "base_a": base[0], "base_b": base[1],
                     "base_matchup": f"{base[0]} vs {base[1]}"})
    return pd.DataFrame(rows, columns=["cell", "base_a", "base_b", "base_matchup"])


def defences(manifest: dict[str, Any]) -> dict[str, str]:
    """Strategy name -> how it defends after a knock (``strategies.registry.defence_of``),
    for every strategy the run's cells play."""
    from strategies.registry import defence_of

    names = []
    for cell in manifest.get("cells", []):
        for side in ("a", "b"):
            name = str(cell.get(side, "")).split(":", 1)[0].strip()
            if name and name not in names:
                names.append(name)
    return {name: defence_of(name) for name in names}


def run_statistics(run_dir: Path, manifest: dict[str, Any], files: dict[str, list[Path]]
                   ) -> tuple[pd.DataFrame | None, pd.DataFrame | None, dict[int, np.ndarray]]:
    """Per-cell statistics of a run's hands and of its games (None when it has none), with
    each cell's labels from the manifest, and per cell the histogram of hand length
    (``stats.scan_run``, streamed over the verified chunk ``files``: mode -> paths)."""
    labels = _manifest_labels(manifest)
    scan = an.scan_run(run_dir, files=files, manifest=manifest)  # streamed: memory bounded by cells
    hstats = _attach_labels(scan.hands, labels) if scan.hands is not None else None
    gstats = _attach_labels(scan.games, labels) if scan.games is not None else None
    return hstats, gstats, scan.draws
