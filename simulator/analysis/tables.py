"""The report's tables, and how its numbers and labels are written.

Per-cell results with 95% intervals (``hand_tables``, ``game_table``), the round-robin
ranking (``ranking_table``, over the tournaments ``tournaments`` groups), and the small
formatters the figures share (``format_swept``, ``shorten``, ``plural``, ``cell_label``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from . import stats as an


LABEL_MAX = 44


def shorten(text: str, limit: int = LABEL_MAX) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def unit_span(stats: pd.DataFrame) -> str:
    low, high = int(stats["n_units"].min()), int(stats["n_units"].max())
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


def format_swept(value: float) -> str:
    """A swept value as the experiment wrote it (``format_value``), or a dash for none."""
    from ..run.experiment import format_value

    if value is None or pd.isna(value):
        return "–"
    return format_value(value)


def _ci(stats: pd.Series, column: str, fmt: str, scale: float = 1.0, unit: str = "") -> str:
    low_name, high_name = an.ci_columns(column)
    v, lo, hi = (float(stats.get(c, np.nan)) * scale for c in (column, low_name, high_name))
    if not math.isfinite(v):
        return "–"
    if unit == "%" and (0 <= v < 0.1 or 99.9 < v <= 100):
        return _extreme_share(v, lo, hi)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        units = stats.get("n_units", np.nan)
        why = f" (n = {int(units)}: no interval)" if math.isfinite(units) and units < 2 else ""
        return f"{v:{fmt}}{unit}{why}"
    return f"{v:{fmt}}{unit} [{lo:{fmt}}, {hi:{fmt}}]"


def _extreme_share(v: float, lo: float, hi: float) -> str:
    """A share (in %) below 0.1% (or above 99.9%), which one decimal would print as
    0.0% [0.0, 0.0]: ``< 0.1%`` (``> 99.9%``; ``0%`` and ``100%`` when exact) and its
    interval with the decimals it needs to show its far bound.

    >>> _extreme_share(0.03, 0.021, 0.047)
    '< 0.1% [0.02, 0.05]'
    >>> _extreme_share(0.0, 0.0, 0.0038)
    '0% [0.000, 0.004]'
    >>> _extreme_share(99.996, 99.9912, 99.9985)
    '> 99.9% [99.991, 99.999]'
    """
    head = ("0%" if v == 0 else "< 0.1%") if v < 50 else ("100%" if v == 100 else "> 99.9%")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return head
    far = hi if v < 50 else 100 - lo
    digits = next((d for d in (1, 2, 3, 4) if far >= 10 ** -d), 4)
    return f"{head} [{lo:.{digits}f}, {hi:.{digits}f}]"


#: "estimate [low, high]" of ``column`` in a row of statistics, for text outside the tables
#: (the findings): ``ci_text(row, "net_mean", "+.3f")``
ci_text = _ci


def cell_label(row: pd.Series) -> str:
    """``cell: matchup · variant`` (the matchup's specs already carry any swept value)."""
    return f"{row['cell']}: {shorten(row.get('matchup', ''), LABEL_MAX)} · {row.get('variant', '')}"


def _identity_columns(stats: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    cols = {"cell": stats["cell"], "matchup": stats.get("matchup", ""), "variant": stats.get("variant", "")}
    frame = pd.DataFrame(cols)
    for k in keys:
        frame[k] = stats[k].map(format_swept)
    return frame


def round_robin_strategies(pairs: list[tuple[str, str]]) -> list[str] | None:
    """The strategies when the (A, B) pairs hold every pair of three or more distinct
    strategies (in either seating); else None.  Self-play pairs are ignored."""
    played = {frozenset(p) for p in pairs if p[0] != p[1]}
    names = sorted({s for p in played for s in p})
    if len(names) < 3:
        return None
    every = {frozenset((x, y)) for i, x in enumerate(names) for y in names[i + 1:]}
    return names if every <= played else None


def hand_tables(stats: pd.DataFrame, self_only: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-cell results and the "how hands end" table, both keyed by cell, matchup,
    variant and swept values.  ``self_only`` leaves out A's net points and win rate (zero
    and 50% in expectation in self-play)."""
    keys = an.sweep_columns(stats)
    results = _identity_columns(stats, keys)
    results["hands"] = stats["n_hands"].map("{:,}".format)
    results["units"] = stats["n_units"].map("{:,}".format)
    rows = [r for _, r in stats.iterrows()]
    if not self_only:
        results["net points/hand to A"] = [_ci(r, "net_mean", "+.3f") for r in rows]
        results["A hand-win rate"] = [_ci(r, "win_rate", ".1f", 100, "%") for r in rows]
    results["first-mover edge (points/hand)"] = [_ci(r, "first_mover_edge", "+.3f") for r in rows]
    self_play = (stats["a"] == stats["b"]) if {"a", "b"} <= set(stats.columns) else pd.Series(False, stats.index)
    if self_play.any():
        verdict = an.balanced(stats)
        results["balance (self-play)"] = np.where(self_play, verdict, "–")
    play = _identity_columns(stats, keys)
    play["hands"] = results["hands"]
    for outcome in an.OUTCOMES:  # gin + big gin is the gin rate: no column of its own
        play[outcome.replace("_", " ")] = [_ci(r, f"share_{outcome}", ".1f", 100, "%") for r in rows]
    play["undercuts per knock"] = [_ci(r, "undercut_rate", ".1f", 100, "%") for r in rows]
    play["draws/hand"] = [_ci(r, "draws_mean", ".2f") for r in rows]
    play["knocker deadwood"] = [_ci(r, "knocker_deadwood", ".2f") for r in rows]
    play["defender deadwood"] = [_ci(r, "defender_deadwood", ".2f") for r in rows]
    return results, play


def game_table(stats: pd.DataFrame, self_only: bool = False) -> pd.DataFrame:
    keys = an.sweep_columns(stats)
    table = _identity_columns(stats, keys)
    table["games"] = stats["n_games"].map("{:,}".format)
    table["units"] = stats["n_units"].map("{:,}".format)
    rows = [r for _, r in stats.iterrows()]
    if not self_only:
        table["A game-win probability"] = [_ci(r, "win_prob", ".1f", 100, "%") for r in rows]
        table["margin to A (points)"] = [_ci(r, "margin_mean", "+.1f") for r in rows]
    table["hands/game"] = [_ci(r, "hands_mean", ".2f") for r in rows]
    table["shutout rate"] = [_ci(r, "shutout_rate", ".1f", 100, "%") for r in rows]
    table["first-mover edge (win prob − 50%, pp)"] = [_ci(r, "first_mover_edge", "+.1f", 100) for r in rows]
    self_play = stats["a"] == stats["b"] if {"a", "b"} <= set(stats.columns) else pd.Series(False, stats.index)
    if self_play.any():
        table["balance (self-play)"] = np.where(self_play, an.balanced(stats), "–")
    return table


def ranking_table(rank: pd.DataFrame, value: str, header: str, fmt: str, scale: float, unit: str,
                   count: str) -> pd.DataFrame:
    by = [c for c in rank.columns if c not in ("rank", "strategy", value, "ci_low", "ci_high", "se",
                                                "n_opponents", "n_cells", count, "n")]
    out = pd.DataFrame({c: rank[c].map(format_swept) if c[:2] in ("a.", "b.") else rank[c] for c in by})
    out["rank"] = rank["rank"]
    out["strategy"] = rank["strategy"]
    out[header] = [f"{v * scale:{fmt}}{unit} [{lo * scale:{fmt}}, {hi * scale:{fmt}}]"
                   for v, lo, hi in zip(rank[value], rank["ci_low"], rank["ci_high"])]
    out["opponents"] = rank["n_opponents"]
    out[count.replace("n_", "")] = rank[count].map("{:,}".format) if count in rank else ""
    return out


def tournaments(rr: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """One tournament per variant and sweep point.  A cell whose matchup does not take a
    swept parameter (its value is missing) belongs to every point of that parameter."""
    keys = [k for k in an.sweep_columns(rr) if rr[k].notna().any()]
    group_cols = (["variant"] if "variant" in rr.columns else []) + keys
    if not keys:
        return rr, group_cols
    frames = []
    for point in itertools.product(*(sorted(rr[k].dropna().unique()) for k in keys)):
        mask = np.ones(len(rr), dtype=bool)
        for k, value in zip(keys, point):
            mask &= ((rr[k] == value) | rr[k].isna()).to_numpy()
        frames.append(rr[mask].assign(**dict(zip(keys, point))))
    order = {v: i for i, v in enumerate(dict.fromkeys(rr["variant"]))} if "variant" in rr.columns else {}
    out = pd.concat(frames, ignore_index=True)
    if order:
        out = out.sort_values("variant", key=lambda s: s.map(order), kind="stable")
    return out.reset_index(drop=True), group_cols
