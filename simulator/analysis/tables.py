"""The report's tables, and how its numbers and labels are written.

Per-cell results with 95% intervals (``hand_tables``, ``game_table``), the round-robin
ranking (``ranking_table``, over the tournaments ``tournaments`` groups), and the small
formatters the figures share (``format_swept``, ``shorten``, ``plural``, ``cell_label``).

**Labels of many comparisons.**  A word such as "favours non-dealer" or "A ahead" is a
test, and a table of many cells is a family of tests: ``compare_cells`` makes a ``Family``
(one two-sided test per distinct comparison, p-values adjusted together by Holm's method
by default, Benjamini–Hochberg or none on request; ``stats.adjust_pvalues``) and the words
follow the adjusted p-values at 5%, while the intervals shown stay the raw 95% intervals.
Cells that are the same comparison (identical resolved rules, ``Rules.canonical``, the
same strategies in the same seats and the same swept values; ``cell_identities``) are
pooled into one estimate, one test and one verdict: they count once in the family.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as st

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


def hand_tables(stats: pd.DataFrame, self_only: bool = False,
                families: dict[str, Family] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-cell results and the "how hands end" table, both keyed by cell, matchup,
    variant and swept values.  ``self_only`` leaves out A's net points and win rate (zero
    and 50% in expectation in self-play).  The results carry each family's p-values and
    words (``cell_families``; by default Holm over the table's cells)."""
    keys = an.sweep_columns(stats)
    results = _identity_columns(stats, keys)
    results["hands"] = stats["n_hands"].map("{:,}".format)
    results["units"] = stats["n_units"].map("{:,}".format)
    rows = [r for _, r in stats.iterrows()]
    if not self_only:
        results["net points/hand to A"] = [_ci(r, "net_mean", "+.3f") for r in rows]
        results["A hand-win rate"] = [_ci(r, "win_rate", ".1f", 100, "%") for r in rows]
    results["first-mover edge (points/hand)"] = [_ci(r, "first_mover_edge", "+.3f") for r in rows]
    results = _family_columns(results, cell_families(stats, "hands") if families is None else families,
                              {"versus": "A vs B:", "balance": "edge:"},
                              {"versus": "A vs B", "balance": "balance (self-play)"},
                              {"versus": ("net points/hand to A", "+.3f", 1.0, ""),
                               "balance": ("first-mover edge (points/hand)", "+.3f", 1.0, "")}, "hands")
    play = _identity_columns(stats, keys)
    play["hands"] = stats["n_hands"].map("{:,}".format)
    for outcome in an.OUTCOMES:  # gin + big gin is the gin rate: no column of its own
        play[outcome.replace("_", " ")] = [_ci(r, f"share_{outcome}", ".1f", 100, "%") for r in rows]
    play["undercuts per knock"] = [_ci(r, "undercut_rate", ".1f", 100, "%") for r in rows]
    play["draws/hand"] = [_ci(r, "draws_mean", ".2f") for r in rows]
    play["knocker deadwood"] = [_ci(r, "knocker_deadwood", ".2f") for r in rows]
    play["defender deadwood"] = [_ci(r, "defender_deadwood", ".2f") for r in rows]
    return results, play


def game_table(stats: pd.DataFrame, self_only: bool = False, families: dict[str, Family] | None = None) -> pd.DataFrame:
    """The per-cell results of whole games, with each family's p-values and words (as
    ``hand_tables``)."""
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
    return _family_columns(table, cell_families(stats, "games") if families is None else families,
                           {"versus": "A vs B:", "balance": "edge:"},
                           {"versus": "A vs B", "balance": "balance (self-play)"},
                           {"versus": ("A game-win probability", ".1f", 100.0, "%"),
                            "balance": ("first-mover edge (win prob − 50%, pp)", "+.1f", 100.0, "")}, "games")


def ranking_table(rank: pd.DataFrame, value: str, header: str, fmt: str, scale: float, unit: str,
                   count: str) -> pd.DataFrame:
    by = [c for c in rank.columns if c not in ("rank", "strategy", value, "ci_low", "ci_high", "se",
                                                "n_opponents", "n_cells", count, "n")]
    out = pd.DataFrame({c: rank[c].map(format_swept) if c[:2] in ("a.", "b.") else rank[c] for c in by})
    from strategies import display_spec

    out["rank"] = rank["rank"]
    out["strategy"] = rank["strategy"].map(display_spec)
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


# ----------------------------------------------------------------------------- families of comparisons

#: the header word of each method's adjusted p-value
METHOD_LABEL = {"holm": "Holm", "bh": "BH", "none": "unadjusted"}
#: the words of a family: (estimate above the null, below it, not distinguishable)
BALANCE_WORDS = ("favours non-dealer", "favours dealer", "balanced")
VERSUS_WORDS = ("A ahead", "B ahead", "no detectable difference")


def verdict(p_adjusted: float, estimate: float, null: float, words: tuple[str, str, str]) -> str:
    """The word of one test, the only place a report's labels come from (per cell, per pool of
    cells, per round-robin pairing, and the counts of the findings and the sections, which
    count these words): ``words[0]`` when the adjusted p-value is at most 5% and the estimate
    is above ``null``, ``words[1]`` when below, ``words[2]`` otherwise; "unknown" without a
    p-value.  The p-value is the two-sided test of the very estimate and interval printed
    beside the word (a pool's beside the pool, never beside one of its cells), and an adjusted
    p at most 5% means the raw one is too, so that raw 95% interval excludes ``null``: a
    label never contradicts its interval.

    >>> verdict(0.01, 0.2, 0.0, BALANCE_WORDS), verdict(0.2, 0.2, 0.0, BALANCE_WORDS)
    ('favours non-dealer', 'balanced')
    """
    if p_adjusted is None or not math.isfinite(p_adjusted):
        return "unknown"
    if p_adjusted <= an.ALPHA and estimate != null:
        return words[0] if estimate > null else words[1]
    return words[2]


def verdict_counts(family: "Family", noun: str = "distinct comparison") -> str:
    """How many of a family's comparisons got each word (``verdict``), as the findings and the
    report's sections say it: ``8 favours non-dealer, 6 balanced (of 14 distinct rule sets)``."""
    counts = family.members["verdict"].value_counts()
    return ", ".join(f"{v} {k}" for k, v in counts.items()) + f" (of {plural(len(family.members), noun)})"


def format_p(p: float) -> str:
    """A p-value for a table: three decimals, or two significant digits below 0.001 (below
    the smallest double, "<1e-300").

    >>> format_p(0.04321), format_p(0.00012), format_p(0.0)
    ('0.043', '1.2e-04', '<1e-300')
    """
    if p is None or not math.isfinite(p):
        return "–"
    if p < 1e-300:
        return "<1e-300"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def cell_identities(manifest: dict) -> dict[int, str]:
    """Per cell of a run's manifest, a key that two cells share exactly when they are the
    same comparison: the canonical specs of A and B (``parse_strategy(...).label``), the
    canonical form of the resolved rules (``Rules.canonical``) and the swept values."""
    import strategies

    from ..core.rules import Rules

    def spec(text: str) -> str:
        try:
            return strategies.parse_strategy(text).label
        except (ValueError, KeyError):
            return str(text)

    out = {}
    for c in manifest.get("cells", []):
        try:
            rules = Rules.from_dict(dict(c.get("rules", {}))).canonical()
        except (ValueError, TypeError):
            rules = repr(sorted(dict(c.get("rules", {})).items()))
        sweep = ";".join(f"{k}={format_swept(v)}" for k, v in sorted(dict(c.get("sweep", {})).items()))
        out[int(c["cell"])] = "|".join((spec(c["a"]), spec(c["b"]), rules, sweep))
    return out


@dataclass(frozen=True)
class Family:
    """Comparisons labelled together.  ``members``: one row per distinct comparison
    (``cells``, a tuple; ``variant``; ``units``; ``estimate``, ``se``, raw ``low``/``high``;
    ``p``; ``p_adjusted``; ``verdict``).  ``cells``: per cell of the table (index = the
    stats' index): ``p``, ``p_adjusted``, ``verdict`` and ``same_as`` (the other cells
    pooled with it, "" for none)."""

    what: str
    method: str
    members: pd.DataFrame
    cells: pd.DataFrame
    fmt: str = "+.3f"  # how an estimate is written: format, scale, unit
    scale: float = 1.0
    unit: str = ""

    def interval(self, m: pd.Series) -> str:
        """A member's estimate and raw interval, written as the tables write the cells'."""
        v, lo, hi = (float(m[c]) * self.scale for c in ("estimate", "low", "high"))
        return f"{v:{self.fmt}}{self.unit} [{lo:{self.fmt}}, {hi:{self.fmt}}]"

    @property
    def size(self) -> int:
        return int(np.isfinite(self.members["p"].to_numpy(float)).sum()) if len(self.members) else 0

    @property
    def pooled(self) -> pd.DataFrame:
        return self.members[[len(c) > 1 for c in self.members["cells"]]] if len(self.members) else self.members

    def statement(self) -> str:
        """The family, its size and the method, in one sentence."""
        adjusted = ("the words follow the p-values adjusted by " + an.MULTIPLICITY_TEXT[self.method]
                    if self.method != "none" else "the words follow each unadjusted p-value at 5% "
                    "(no multiplicity adjustment: about one in twenty true nulls is labelled)")
        return (f"Family: {self.what}, {plural(self.size, 'comparison')}; {adjusted}. The intervals shown are "
                f"the raw 95% intervals of each cell.")


def compare_cells(stats: pd.DataFrame, rows: pd.Series, column: str, null: float, words: tuple[str, str, str],
                  what: str, method: str = "holm", identities: dict[int, str] | None = None,
                  style: tuple[str, float, str] = ("+.3f", 1.0, "")) -> Family:
    """The family of the ``rows`` of ``stats`` (a boolean mask): per distinct comparison the
    two-sided test of ``column = null`` (``stats.t_pvalues`` with the units' degrees of
    freedom, the test of the cell's 95% t interval), the p-values adjusted together
    (``stats.adjust_pvalues``) and the verdict ``words``: the first when the adjusted p is
    at most 5% and the estimate is above ``null``, the second when below, the third
    otherwise ("unknown" without a test).  Cells with equal ``identities`` are one
    comparison, their units pooled (``stats.pooled_means``); ``style`` is how the report
    writes an estimate (format, scale, unit)."""
    an.adjust_pvalues([], method)  # a bad method fails before any work
    part = stats[rows.to_numpy(bool)] if len(stats) else stats
    se_name = (column[:-5] if column.endswith("_mean") else column) + "_se"
    low_name, high_name = an.ci_columns(column)
    groups: dict[object, list] = {}
    for idx, r in part.iterrows():
        key = identities.get(int(r["cell"]), int(r["cell"])) if identities else int(r["cell"])
        groups.setdefault(key, []).append(idx)
    members = []
    for idxs in groups.values():
        g = part.loc[idxs]
        units = g["n_units"].to_numpy(float)
        if len(idxs) == 1:
            r = g.iloc[0]
            est, se, low, high = (float(r.get(c, np.nan)) for c in (column, se_name, low_name, high_name))
            dof, n = units[0] - 1, units[0]
        else:
            est, se, low, high, dof, n = an.pooled_means(g[column], g[se_name], units)
        variants = " = ".join(dict.fromkeys(str(v) for v in g["variant"])) if "variant" in g else ""
        matchup = str(g["matchup"].iloc[0]) if "matchup" in g else ""
        members.append({"cells": tuple(int(c) for c in g["cell"]), "index": tuple(idxs),
                        "variant": " · ".join(x for x in (matchup, variants) if x),
                        "units": int(n), "estimate": est, "se": se, "low": low, "high": high, "dof": dof})
    members = pd.DataFrame(members, columns=["cells", "index", "variant", "units", "estimate", "se", "low", "high",
                                             "dof"])
    p = an.t_pvalues(members["estimate"], members["se"], members["dof"], null, members["units"]) \
        if len(members) else np.array([])
    adjusted = an.adjust_pvalues(p, method)
    words_of = [verdict(float(q), float(e), null, words) for q, e in zip(adjusted, members["estimate"])]
    members = members.assign(p=p, p_adjusted=adjusted, verdict=pd.Series(words_of, index=members.index, dtype=object))
    cells = pd.DataFrame(index=part.index, columns=["p", "p_adjusted", "verdict", "same_as"], dtype=object)
    for _, m in members.iterrows():
        for idx, cell in zip(m["index"], m["cells"]):
            others = ", ".join(str(c) for c in m["cells"] if c != cell)
            cells.loc[idx] = [m["p"], m["p_adjusted"], m["verdict"], others]
    return Family(what, method, members.drop(columns=["index"]), cells, *style)


def self_play_rows(stats: pd.DataFrame) -> pd.Series:
    """True for the self-play cells (the same strategy in both seats)."""
    if {"a", "b"} <= set(stats.columns):
        return stats["a"] == stats["b"]
    return pd.Series(False, index=stats.index)


def cell_families(stats: pd.DataFrame, kind: str, method: str = "holm",
                  identities: dict[int, str] | None = None) -> dict[str, Family]:
    """The families a results table labels: ``"balance"``, the first-mover edges of the
    self-play cells, and ``"versus"``, A's result against B in the other cells (net points
    per hand against 0 for ``kind`` "hands", game-win probability against 50% for
    "games").  A family without members is left out."""
    self_play = self_play_rows(stats)
    what = "single hands" if kind == "hands" else "whole games"
    out = {}
    if self_play.any():
        out["balance"] = compare_cells(stats, self_play, "first_mover_edge", 0.0, BALANCE_WORDS,
                                       f"the first-mover edges of the self-play cells ({what})", method, identities,
                                       ("+.3f", 1.0, "") if kind == "hands" else ("+.1f", 100.0, " pp"))
    if (~self_play).any():
        column, null, measure = (("net_mean", 0.0, "A's net points per hand against 0") if kind == "hands"
                                 else ("win_prob", 0.5, "A's game-win probability against 50%"))
        out["versus"] = compare_cells(stats, ~self_play, column, null, VERSUS_WORDS,
                                      f"{measure} in the cells with two different strategies ({what})", method,
                                      identities, ("+.3f", 1.0, "") if kind == "hands" else (".1f", 100.0, "%"))
    return out


def pool_name(cells: tuple[int, ...]) -> str:
    """The row of a pool of cells in a results table: ``2+13``."""
    return "+".join(str(c) for c in cells)


def _family_columns(table: pd.DataFrame, families: dict[str, Family], prefix: dict[str, str],
                    verdict_header: dict[str, str], estimates: dict[str, tuple[str, str, float, str]],
                    count: str) -> pd.DataFrame:
    """The table with the p-value, adjusted p-value and verdict columns of each family (a
    dash in the cells outside it).  Cells pooled into one comparison (the same rules and
    matchup) show their own interval and no word; the pool gets a row of its own (``2+13``)
    with its pooled interval in the family's estimate column (``estimates``: key -> header,
    format, scale, unit), its p-values and its word, so each word stands beside the interval
    it tested and the table has one word per comparison of the family."""
    same = pd.Series("", index=table.index, dtype=object)
    pools = []
    for key, family in families.items():
        cells = family.cells.reindex(table.index)
        alone = cells["verdict"].notna() & (cells["same_as"].fillna("") == "")
        table[f"{prefix[key]} p"] = [format_p(float(v)) if ok else "–" for v, ok in zip(cells["p"], alone)]
        if family.method != "none":
            table[f"{prefix[key]} p ({METHOD_LABEL[family.method]})"] = [
                format_p(float(v)) if ok else "–" for v, ok in zip(cells["p_adjusted"], alone)]
        table[verdict_header[key]] = np.where(alone, cells["verdict"], "–")
        header, fmt, scale, unit = estimates[key]
        for _, m in family.pooled.iterrows():
            name = pool_name(m["cells"])
            members = table[table["cell"].isin(m["cells"])]
            for idx in members.index:
                same.loc[idx] = name
            v, lo, hi = (float(m[c]) * scale for c in ("estimate", "low", "high"))
            row = {c: "–" for c in table.columns}
            row.update({"cell": name, "matchup": members["matchup"].iloc[0] if len(members) else "",
                        "variant": " = ".join(dict.fromkeys(str(x) for x in members["variant"])),
                        count: f"{sum(int(str(x).replace(',', '')) for x in members[count]):,}",
                        "units": f"{int(m['units']):,}", header: f"{v:{fmt}}{unit} [{lo:{fmt}}, {hi:{fmt}}]",
                        f"{prefix[key]} p": format_p(float(m["p"])), verdict_header[key]: m["verdict"]})
            if family.method != "none":
                row[f"{prefix[key]} p ({METHOD_LABEL[family.method]})"] = format_p(float(m["p_adjusted"]))
            pools.append(row)
    if pools:
        table["pooled into"] = np.where(same != "", same, "–")
        for row in pools:
            row["pooled into"] = "(the pool)"
        table = pd.concat([table, pd.DataFrame(pools, columns=table.columns)], ignore_index=True)
    return table


def pairwise_family(panels: list[tuple[str, pd.DataFrame, pd.DataFrame, pd.DataFrame | None]], center: float,
                    method: str = "holm") -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    """The pairings of a round robin as one family: ``panels`` are (group label,
    ``stats.matrix``, ``stats.matrix_se``, units matrix or None) per tournament.  Each
    unordered pair of a panel is one two-sided normal test of ``value = center`` (the test of
    the heatmap's ±1.96 se interval; the exact binomial test when one side won every unit),
    all pairs of all panels adjusted together.  Returns the table of pairings (the better
    side first: ``group``, ``strategy``, ``opponent``, ``estimate``, ``low``, ``high``,
    ``p``, ``p_adjusted``, ``verdict``) and, per panel, a boolean matrix that is True where
    the pairing is not distinguished from ``center`` (the heatmap's dashed frames)."""
    rows = []
    z = float(st.norm.ppf(0.975))
    for k, (label, table, se, units) in enumerate(panels):
        names = list(table.index)
        for i, r in enumerate(names):
            for c in names[i + 1:]:
                v = float(table.at[r, c]) if c in table.columns else np.nan
                if not math.isfinite(v):
                    continue
                s = float(se.at[r, c]) if se is not None and c in se.columns else np.nan
                n = float(units.at[r, c]) if units is not None and c in units.columns else np.nan
                if v < center:  # the better side first: the flip of the matrix's own
                    r_, c_, v = c, r, (1.0 - v if center == 0.5 else -v)
                else:
                    r_, c_ = r, c
                if s == 0 and v in (0.0, 1.0) and math.isfinite(n) and n >= 1:
                    low, high = an.wilson_interval(0 if v == 0 else int(round(n)), int(round(n)))
                else:
                    low, high = v - z * s, v + z * s
                rows.append({"panel": k, "group": label, "strategy": r_, "opponent": c_, "estimate": v, "se": s,
                             "units": n, "low": low, "high": high})
    pairs = pd.DataFrame(rows, columns=["panel", "group", "strategy", "opponent", "estimate", "se", "units", "low",
                                        "high"])
    p = an.t_pvalues(pairs["estimate"], pairs["se"], np.inf, center, pairs["units"]) if len(pairs) else np.array([])
    adjusted = an.adjust_pvalues(p, method)
    words = [verdict(float(q), float(v), center, (f"{r} ahead", f"{c} ahead", "no detectable difference"))
             for q, r, c, v in zip(adjusted, pairs["strategy"], pairs["opponent"], pairs["estimate"])]
    pairs = pairs.assign(p=p, p_adjusted=adjusted, verdict=words)
    undetected = []
    for k, (_, table, *_) in enumerate(panels):
        frame = pd.DataFrame(False, index=table.index, columns=table.columns)
        for _, row in pairs[pairs["panel"] == k].iterrows():
            if row["verdict"] == "no detectable difference":
                frame.at[row["strategy"], row["opponent"]] = frame.at[row["opponent"], row["strategy"]] = True
        undetected.append(frame)
    return pairs.drop(columns=["panel"]), undetected


def pairwise_table(pairs: pd.DataFrame, fmt: str, scale: float, unit: str, method: str) -> pd.DataFrame:
    """The pairings of ``pairwise_family`` as the report shows them."""
    from strategies import display_spec

    out = pd.DataFrame({"group": pairs["group"], "strategy": pairs["strategy"].map(display_spec),
                        "opponent": pairs["opponent"].map(display_spec)})
    out["result (raw 95% interval)"] = [f"{v * scale:{fmt}}{unit} [{lo * scale:{fmt}}, {hi * scale:{fmt}}]"
                                        for v, lo, hi in zip(pairs["estimate"], pairs["low"], pairs["high"])]
    out["p"] = pairs["p"].map(format_p)
    if method != "none":
        out[f"p ({METHOD_LABEL[method]})"] = pairs["p_adjusted"].map(format_p)
    out["verdict"] = pairs["verdict"]
    return out
