"""The printed summary of a run directory: per cell, net points per hand (or game margin)
to A with a 95% interval, and the outcome mix (or A's game-win probability), read from the
run's verified files (``ginsim run`` and ``ginsim summary`` print it), and the same as the
``--json`` document of ``ginsim show`` (``run_document``, its figures made by ``estimate``,
which every study's ``--json`` record uses too)."""

from __future__ import annotations

from pathlib import Path

from typing import Any

import numpy as np
import pandas as pd

from ..infra.terminal import printable
from ..run.rundir import read_manifest, readable_run, run_path
from ..run.runner import run_status
from .stats import scan_run


def summarize(run_dir: str | Path, mode: str = "deals") -> pd.DataFrame:
    """Per cell, for ``mode`` "deals" (hand rows) or "games" (game rows): rows, net points
    per hand (or game margin) to A with a 95% interval, the outcome mix (or A's
    game-win probability, a game without a winner counting ½), and in a self-play cell (the
    same spec in both seats, where A's figures are zero or ½ by construction) the first
    mover's edge (``first_mover``: points per hand, or game-win probability minus ½, to the
    non-dealer) with the half-width of its 95% interval (``first_mover_ci95``; NaN in other
    cells).  The numbers are those of
    ``stats.hand_stats``/``game_stats`` on the run's verified files, streamed one file
    at a time (``stats.scan_run``: with mirrored deals each pair is one unit, and memory
    stays bounded by the number of cells); the interval is ``stats.t_interval``."""
    run_dir = run_path(run_dir)
    manifest, verification = readable_run(run_dir, allow_missing=True)
    deals = mode == "deals"
    files = {mode: verification.good[mode]}
    scan = scan_run(run_dir, files=files, manifest=manifest)
    stats = scan.hands if deals else scan.games
    by_cell = stats.set_index("cell") if stats is not None else pd.DataFrame()
    value = "net_a" if deals else "margin_a"
    estimate = "net_mean" if deals else "margin_mean"
    low, high = ("net_ci_low", "net_ci_high") if deals else ("margin_ci_low", "margin_ci_high")
    rows = []
    for cell in manifest["cells"]:
        index = cell["cell"]
        have = index in by_cell.index
        s = by_cell.loc[index] if have else None
        row = {"cell": index, "matchup": f"{cell['a']} vs {cell['b']}", "variant": cell["variant"],
               "rows": int(s["n_hands" if deals else "n_games"]) if have else 0,
               "units": int(s["n_units"]) if have else 0,
               value: float(s[estimate]) if have else float("nan"),
               "ci95": float((s[high] - s[low]) / 2) if have else float("nan")}
        if deals:
            for outcome in ("knock", "gin", "big_gin", "undercut", "dead"):
                row[outcome] = float(s[f"share_{outcome}"]) if have else float("nan")
        else:
            row["a_wins"] = float(s["win_prob"]) if have else float("nan")
        # self-play: A's result is zero in expectation by construction; the seats are the question
        selfplay = have and cell["a"] == cell["b"]
        row["first_mover"] = float(s["first_mover_edge"]) if selfplay else float("nan")
        row["first_mover_ci95"] = (float((s["first_mover_edge_ci_high"] - s["first_mover_edge_ci_low"]) / 2)
                                   if selfplay else float("nan"))
        rows.append(row)
    return pd.DataFrame(rows)


def run_summaries(run_dir: str | Path) -> str:
    """The printed summary of a run: a status line when it is unfinished, then a table for
    hands and one for games, as present."""
    run_dir = run_path(run_dir)
    manifest = read_manifest(run_dir)
    parts = []
    status = run_status(run_dir)
    if status:
        parts.append(status)
    for mode, title in (("deals", "single hands: net points per hand to A"),
                        ("games", "whole games: final margin per game to A")):
        if manifest["experiment"].get(mode):
            parts.append(f"{title}\n{format_summary(summarize(run_dir, mode), unit_word(manifest, mode))}")
    return "\n\n".join(parts)


def unit_word(manifest: dict[str, Any], mode: str) -> str:
    """The independent unit of a run's ``mode`` ("deals" or "games"): a mirrored pair, or one row."""
    return "pair" if manifest["experiment"].get("mirrored", True) else ("hand" if mode == "deals" else "game")


def no_interval(units: int, unit: str) -> str:
    """The words printed instead of an interval that cannot be computed: ``n = 1 pair: no interval``."""
    return f"n = {units:,} {unit}{'' if units == 1 else 's'}: no interval"


def _number(value: float | None) -> float | None:
    """``value`` as a JSON number, or None when it is missing or not finite."""
    import math

    return float(value) if value is not None and math.isfinite(value) else None


def estimate(value: float, low: float, high: float, units: int, unit: str) -> dict:
    """An estimate for ``--json``: the value, its 95% interval (null, with the reason in
    ``no_interval``, when fewer than two independent units make one impossible)."""
    low, high, units = _number(low), _number(high), int(units)
    missing = low is None or high is None
    return {"estimate": _number(value), "ci_low": None if missing else low, "ci_high": None if missing else high,
            "units": units, "unit": unit, "no_interval": no_interval(units, unit) if missing else None}


def run_document(run_dir: str | Path) -> dict:
    """What ``show --json`` prints (and ``run --json`` with its timing): the run's status
    and, per mode, one record per cell (docs/cli.md)."""
    run_dir = run_path(run_dir)
    manifest = read_manifest(run_dir)
    status = run_status(run_dir)
    cells = {c["cell"]: c for c in manifest["cells"]}
    doc: dict = {"experiment": manifest["experiment"].get("name"), "run_dir": str(run_dir),
                 "run_id": manifest.get("run_id"), "complete": status is None, "status": status,
                 "hands": None, "games": None}
    for mode, key in (("deals", "hands"), ("games", "games")):
        if not manifest["experiment"].get(mode):
            continue
        unit = unit_word(manifest, mode)
        records = []
        for r in summarize(run_dir, mode).to_dict("records"):
            value = r["net_a"] if mode == "deals" else r["margin_a"]
            c = cells[r["cell"]]
            record = {"cell": int(r["cell"]), "a": c["a"], "b": c["b"], "variant": r["variant"],
                      "sweep": c.get("sweep") or {}, "rows": int(r["rows"]),
                      ("net_points_per_hand_to_a" if mode == "deals" else "margin_per_game_to_a"):
                          estimate(value, value - r["ci95"], value + r["ci95"], r["units"], unit)}
            if mode == "deals":
                record["outcomes"] = {k: _number(r[k]) for k in ("knock", "gin", "big_gin", "undercut", "dead")}
            else:
                record["a_game_win_share"] = _number(r["a_wins"])
            records.append(record)
        doc[key] = records
    return doc


def format_summary(summary: pd.DataFrame, unit: str = "unit") -> str:
    """The summary as a text table; every label is shown whole (columns as wide as the
    longest), so distinct cells never print alike; a row without an interval (fewer than
    two ``unit``s) says so instead of printing ``± nan``, and a cell with no rows yet (an
    unfinished run) prints a dash for each figure."""
    value = "net_a" if "net_a" in summary else "margin_a"
    rows = [r._asdict() for r in summary.itertuples(index=False)]
    # self-play cells: a column for the first mover's edge (points, or percentage points of games)
    edge = "first_mover" in summary and bool(np.isfinite(summary["first_mover"]).any())
    scale = 1.0 if value == "net_a" else 100.0
    edge_head = "first_mover ± 95%" if value == "net_a" else "first_mover pp ± 95%"
    # every label on one line of the table, control characters shown escaped
    matchups = [printable(d["matchup"], keep_lines=False) for d in rows]
    variants = [printable(d["variant"], keep_lines=False) for d in rows]
    wm = max([43, *map(len, matchups)]) + 1
    wv = max([13, *map(len, variants)]) + 1
    lines = []
    head = f"{'cell':>4}  {'matchup':<{wm}}{'variant':<{wv}}{'rows':>10}  {value + ' ± 95%':>18}"
    extra = [c for c in ("knock", "gin", "big_gin", "undercut", "dead", "a_wins") if c in summary]
    lines.append(head + "".join(f"{c:>9}" for c in extra) + (f"  {edge_head:>21}" if edge else ""))
    for d, matchup, variant in zip(rows, matchups, variants, strict=True):
        start = f"{d['cell']:>4}  {matchup:<{wm}}{variant:<{wv}}{d['rows']:>10,}  "
        if not d["rows"]:
            lines.append(start + f"{'—':>9}{'':9}" + "".join(f"{'—':>9}" for _ in extra))
            continue
        ci = f" ± {d['ci95']:<6.3f}" if np.isfinite(d["ci95"]) else f" ({no_interval(d['units'], unit)})"
        line = start + f"{d[value]:>+9.3f}{ci}" + "".join(f"{d[c]:>9.1%}" for c in extra)
        if edge and np.isfinite(d["first_mover"]):
            half = d["first_mover_ci95"] * scale
            line += f"  {d['first_mover'] * scale:>+12.3f}" + (f" ± {half:<6.3f}" if np.isfinite(half) else " ± –")
        lines.append(line.rstrip())
    if edge:
        lines.append("first_mover: the non-dealer's (first mover's) edge in a self-play cell, "
                     + ("points per hand" if value == "net_a" else "percentage points of game-win probability")
                     + f", where {value} is zero by construction (ginsim report tests it)")
    return "\n".join(lines)
