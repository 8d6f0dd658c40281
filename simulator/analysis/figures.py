"""The report's figures, each drawn from per-cell statistics (or hand-length histograms)
on a matplotlib ``Figure`` with a title and axis labels with units.

Net points per hand (or game-win probability) per cell, and against each swept parameter
(``errorbar_by_cell``, ``sweep_figure``); the outcome mix (``outcome_figure``,
``outcome_sweep_figure``); hand length (``hand_length_figure``); the first mover's edge
in self-play cells (``edge_figure``); a strategy × strategy heatmap for a round robin
(``heatmap_figure``).  ``split_outliers`` keeps a far-off row from flattening a shared axis.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import stats as an
from .rendering import new_figure, save_figure
from .tables import cell_label, format_swept, plural, shorten


OUTCOME_COLORS = {"knock": "#4C72B0", "gin": "#55A868", "big_gin": "#8172B2", "undercut": "#C44E52",
                  "dead": "#999999"}


MAX_PANELS = 9


def _variant_colors(variants: list[str]) -> dict[str, Any]:
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return {v: cmap(i % 10) for i, v in enumerate(variants)}


def split_outliers(values: np.ndarray) -> np.ndarray:
    """Rows far from the rest (a mask): the smaller group on one side of the widest gap
    between the sorted values, when that gap is wider than 1.5 times the spread of the
    larger group and the larger group holds at least 3 rows.  Such rows would stretch a
    shared axis until the other rows' differences vanish (``random`` losing 50 to 80
    points a hand next to strategies a point or two apart).

    >>> split_outliers(np.array([-1.0, 0.5, 1.2, -0.4, 0.9, -78.0])).tolist()
    [False, False, False, False, False, True]
    >>> split_outliers(np.array([-1.0, 0.5, 1.2, -0.4, 0.9, 3.0])).tolist()
    [False, False, False, False, False, False]
    """
    values = np.asarray(values, dtype=float)
    none = np.zeros(len(values), dtype=bool)
    finite = np.flatnonzero(np.isfinite(values))
    if len(finite) < 4:
        return none
    order = finite[np.argsort(values[finite], kind="stable")]
    ordered = values[order]
    gaps = np.diff(ordered)
    cut = int(np.argmax(gaps)) + 1  # rows [:cut] and [cut:]
    low, high = order[:cut], order[cut:]
    small, big = (low, high) if len(low) < len(high) else (high, low)
    if len(small) == len(big) or len(big) < 3:
        return none
    spread = float(values[big].max() - values[big].min())
    if gaps[cut - 1] <= 1.5 * spread:
        return none
    none[small] = True
    return none


def errorbar_by_cell(stats: pd.DataFrame, column: str, xlabel: str, title: str, path: Path,
                      reference: float, scale: float = 1.0) -> tuple[Path, str]:
    """Horizontal points with interval bars: one row per matchup (with swept values), one
    colour per variant, rows sorted by effect (largest first).  Rows far from the rest
    (``split_outliers``) get a panel of their own below, on their own scale.  Returns the
    PNG and a sentence for the caption about that panel (or "")."""
    low_name, high_name = an.ci_columns(column)
    variants = list(dict.fromkeys(stats["variant"])) if "variant" in stats else [""]
    if len(variants) > 4:  # too many colours: one row per cell instead
        rows = stats.assign(_row=[cell_label(r) for _, r in stats.iterrows()], variant="")
        variants = [""]
    else:
        rows = stats.assign(_row=[shorten(r["matchup"]) for _, r in stats.iterrows()])
    effect = (rows[column].astype(float) * scale).groupby(rows["_row"], sort=False).mean()
    effect = effect.sort_values(ascending=False, kind="stable")
    far = pd.Series(split_outliers(effect.to_numpy()), index=effect.index)
    groups = [list(effect.index[~far.to_numpy()])]
    if far.any():
        groups.append(list(effect.index[far.to_numpy()]))
    colors = _variant_colors(variants)
    heights = [max(len(g), 1) for g in groups]
    fig = new_figure(9.0, max(2.6, 0.42 * sum(heights) + 1.6 + 0.9 * (len(groups) - 1)))
    axes = np.atleast_1d(fig.subplots(len(groups), 1, squeeze=False,
                                      gridspec_kw={"height_ratios": heights})).ravel()
    step = 0.7 / max(len(variants), 1)
    for panel, (ax, labels) in enumerate(zip(axes, groups)):
        for i, variant in enumerate(variants):
            part = rows[(rows["variant"] == variant) & rows["_row"].isin(labels)] if "variant" in rows else \
                rows[rows["_row"].isin(labels)]
            if part.empty:
                continue
            y = np.array([labels.index(r) for r in part["_row"]]) + (i - (len(variants) - 1) / 2) * step
            v = part[column].to_numpy(float) * scale
            err = np.vstack([v - part[low_name].to_numpy(float) * scale,
                             part[high_name].to_numpy(float) * scale - v])
            ax.errorbar(v, y, xerr=np.nan_to_num(np.maximum(err, 0)), fmt="o", capsize=3, color=colors[variant],
                        label=variant if panel == 0 else None)
        lo, hi = ax.get_xlim()
        if lo <= reference <= hi or panel == 0:
            ax.axvline(reference, color="#444", lw=0.8, ls="--")
        ax.set_yticks(range(len(labels)), labels, fontsize=8)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.grid(axis="x", alpha=0.3)
        ax.set_xlabel(xlabel)
    axes[0].set_ylabel("matchup (A vs B)" if variants != [""] else "cell: matchup (A vs B) · variant")
    axes[0].set_title(title)
    note = ""
    if len(groups) > 1:
        far_rows = groups[1]
        axes[1].set_title(f"Far from the rest, on their own scale ({plural(len(far_rows), 'row')})", fontsize=9)
        note = (f" Rows far from the rest ({', '.join(far_rows[:3])}{', …' if len(far_rows) > 3 else ''}) are "
                f"drawn in a separate panel below, on their own x axis, so that the differences between the other "
                f"rows stay visible.")
    if len(variants) > 1:
        axes[0].legend(title="variant", fontsize=8, loc="best")
    return save_figure(fig, path), note


def _pooled_if_alike(curves: list[tuple[Any, pd.DataFrame]], key: str, column: str, scale: float):
    """One pooled curve for curves that do not differ: when they share their x values and a
    chi-square test of homogeneity over all x values (Cochran's Q: sum of w·(v − v̄)² with
    w = 1/se², on n_x·(k − 1) degrees of freedom) does not reject equality at the 5%
    level.  Returns (x, inverse-variance weighted mean, its 95% half-width, p-value), or
    None."""
    from scipy.stats import chi2

    if len(curves) < 2:
        return None
    base = column[:-5] if column.endswith("_mean") else column
    frames = [g.sort_values(key).reset_index(drop=True) for _, g in curves]
    x = frames[0][key].to_numpy(float)
    if f"{base}_se" not in frames[0] or any(len(f) != len(x) or not np.array_equal(f[key].to_numpy(float), x)
                                            for f in frames):
        return None
    values = np.array([f[column].to_numpy(float) for f in frames])
    ses = np.array([f[f"{base}_se"].to_numpy(float) for f in frames])
    if not (np.isfinite(values).all() and np.isfinite(ses).all() and (ses > 0).all()):
        return None
    w = 1.0 / ses**2
    pooled = (w * values).sum(axis=0) / w.sum(axis=0)
    q = float((w * (values - pooled) ** 2).sum())
    p = float(chi2.sf(q, len(x) * (len(frames) - 1)))
    if p < 0.05:
        return None
    return x, pooled * scale, 1.959964 / np.sqrt(w.sum(axis=0)) * scale, p


def sweep_figure(stats: pd.DataFrame, bases: pd.DataFrame, key: str, column: str, ylabel: str, title: str,
                  path: Path, reference: float | None, scale: float = 1.0,
                  merge_alike: bool = False) -> tuple[Path, int, bool]:
    """One panel per matchup, one curve per variant (and other swept values), value with
    interval bars against ``key``.  ``reference``: a dashed horizontal line (None: none).
    ``merge_alike``: curves that agree within their intervals everywhere are drawn as one
    pooled curve.  Returns the PNG, the number of matchups and whether curves were pooled."""
    low_name, high_name = an.ci_columns(column)
    df = stats.merge(bases, on="cell")
    df = df[df[key].notna()]  # the matchups this parameter applies to
    others = [k for k in an.sweep_columns(stats) if k != key]
    matchups = list(dict.fromkeys(df["base_matchup"]))
    shown = matchups[:MAX_PANELS]
    ncols = min(3, len(shown))
    nrows = math.ceil(len(shown) / ncols)
    fig = new_figure(4.2 * ncols + 0.6, 3.3 * nrows + 0.5)
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    variants = list(dict.fromkeys(df["variant"]))
    colors = _variant_colors(variants)
    markers = "osD^v<>ph"
    merged_any = False
    for ax, matchup in zip(axes, shown):
        part = df[df["base_matchup"] == matchup]
        curves = [(gkey if isinstance(gkey, tuple) else (gkey,), g)
                  for gkey, g in part.groupby(["variant", *others], sort=False, dropna=False)]
        pooled = _pooled_if_alike(curves, key, column, scale) if merge_alike else None
        if pooled is not None:
            x, v, half, p_value = pooled
            names = ", ".join(str(k[0]) for k, _ in curves)
            ax.errorbar(x, v, yerr=half, marker="o", capsize=3, color="#333",
                        label=f"{shorten(names, 45)}\npooled: no difference (χ² test, p = {p_value:.2f})")
            merged_any = True
            n_curves = 2  # always explain the pooled curve in a legend
        else:
            n_curves = 0
            for j, (gkey, g) in enumerate(curves):
                g = g.sort_values(key)
                x = g[key].to_numpy(float)
                v = g[column].to_numpy(float) * scale
                err = np.vstack([v - g[low_name].to_numpy(float) * scale, g[high_name].to_numpy(float) * scale - v])
                label = str(gkey[0]) + "".join(f", {k}={format_swept(val)}" for k, val in zip(others, gkey[1:])
                                               if pd.notna(val))
                ax.errorbar(x, v, yerr=np.nan_to_num(np.maximum(err, 0)), marker=markers[j % len(markers)],
                            capsize=3, color=colors[gkey[0]], label=shorten(label, 30), ls="-" if j < 10 else ":")
                n_curves += 1
        if reference is not None:
            ax.axhline(reference, color="#444", lw=0.8, ls="--")
        ax.set_title(shorten(matchup, 40), fontsize=9)
        ax.set_xlabel(f"{key} (swept parameter value)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        if n_curves > 1:
            ax.legend(fontsize=7, title=None if pooled is not None else "variant", title_fontsize=7)
    for ax in axes[len(shown):]:
        ax.set_visible(False)
    fig.suptitle(title)
    return save_figure(fig, path), len(matchups), merged_any


def outcome_figure(stats: pd.DataFrame, path: Path) -> Path:
    labels = [cell_label(r) for _, r in stats.iterrows()]
    fig = new_figure(9.5, max(2.6, 0.36 * len(labels) + 1.8))
    ax = fig.subplots()
    left = np.zeros(len(stats))
    y = np.arange(len(stats))
    for outcome in an.OUTCOMES:
        share = stats[f"share_{outcome}"].to_numpy(float) * 100
        ax.barh(y, share, left=left, color=OUTCOME_COLORS[outcome], label=outcome.replace("_", " "), height=0.7)
        left += share
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of hands (%)")
    ax.set_ylabel("cell: matchup · variant")
    ax.set_title("How hands end, per cell")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=5, fontsize=8, frameon=False)
    return save_figure(fig, path)


def outcome_sweep_figure(stats: pd.DataFrame, bases: pd.DataFrame, key: str, path: Path) -> tuple[Path, str]:
    """Stacked outcome shares against one swept parameter: a grid of matchups × variants."""
    df = stats.merge(bases, on="cell")
    df = df[df[key].notna()]
    all_matchups, all_variants = list(dict.fromkeys(df["base_matchup"])), list(dict.fromkeys(df["variant"]))
    matchups, variants = all_matchups[:6], all_variants[:6]
    fig = new_figure(2.4 * len(variants) + 1.4, 2.1 * len(matchups) + 1.4)
    axes = fig.subplots(len(matchups), len(variants), squeeze=False, sharey=True)
    for i, matchup in enumerate(matchups):
        for j, variant in enumerate(variants):
            ax = axes[i, j]
            part = df[(df["base_matchup"] == matchup) & (df["variant"] == variant)].sort_values(key)
            x = np.arange(len(part))
            bottom = np.zeros(len(part))
            for outcome in an.OUTCOMES:
                share = part[f"share_{outcome}"].to_numpy(float) * 100
                ax.bar(x, share, bottom=bottom, width=0.85, color=OUTCOME_COLORS[outcome],
                       label=outcome.replace("_", " "))
                bottom += share
            ax.set_xticks(x, [format_swept(v) for v in part[key]], fontsize=7, rotation=90 if len(x) > 8 else 0)
            ax.set_ylim(0, 100)
            if i == 0:
                ax.set_title(shorten(variant, 24), fontsize=9)
            if j == 0:
                ax.set_ylabel(shorten(matchup, 28) + "\nshare of hands (%)", fontsize=8)
            if i == len(matchups) - 1:
                ax.set_xlabel(f"{key} (swept value)", fontsize=8)
    fig.suptitle(f"How hands end against {side_of(key)}'s {key[2:]}")
    fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncols=5, fontsize=8,
               frameon=False)
    cut = ""
    if len(all_matchups) > len(matchups) or len(all_variants) > len(variants):
        cut = (f" Only the first {len(matchups)} of {len(all_matchups)} matchups and {len(variants)} of "
               f"{len(all_variants)} variants are drawn.")
    return save_figure(fig, path), cut


def edge_figure(hself: pd.DataFrame | None, gself: pd.DataFrame | None, path: Path,
                red_means: str = "interval excludes 0") -> Path:
    """First-mover edge with intervals per self-play cell: hands (points) and games (pp).
    A cell is red when its verdict is not "balanced": the ``balance`` column of the frame
    when it has one (the report's adjusted verdict), else its interval (``stats.balanced``);
    ``red_means`` says which in the title."""
    panels = [(p, c, x, s, t) for p, c, x, s, t in (
        (hself, "first_mover_edge", "points per hand to the non-dealer (points)", 1.0, "Single hands"),
        (gself, "first_mover_edge", "non-dealer's game-win probability − 50% (percentage points)", 100.0,
         "Whole games"),
    ) if p is not None]
    # rows by effect, largest first (the first panel's edge; cells only in the second after)
    first = panels[0][0].set_index("cell")["first_mover_edge"].astype(float)
    cells = sorted(set().union(*[set(p["cell"]) for p, *_ in panels]),
                   key=lambda c: (-first.get(c, -np.inf) if np.isfinite(first.get(c, np.nan)) else np.inf, c))
    labels = {}
    for p, *_ in panels:
        for _, r in p.iterrows():
            labels.setdefault(r["cell"], cell_label(r))
    fig = new_figure(5.0 * len(panels) + 2.8, max(2.6, 0.38 * len(cells) + 1.6))
    axes = np.atleast_1d(fig.subplots(1, len(panels), sharey=True, squeeze=False)).ravel()
    for ax, (part, column, xlabel, scale, panel_title) in zip(axes, panels):
        ax.set_title(panel_title, fontsize=9)
        low_name, high_name = an.ci_columns(column)
        y = np.array([cells.index(c) for c in part["cell"]])
        v = part[column].to_numpy(float) * scale
        err = np.vstack([v - part[low_name].to_numpy(float) * scale, part[high_name].to_numpy(float) * scale - v])
        verdict = part["balance"].to_numpy() if "balance" in part.columns else an.balanced(part).to_numpy()
        colors = np.where(verdict == "balanced", "#4C72B0", "#C44E52")
        for yi, vi, e0, e1, col in zip(y, v, err[0], err[1], colors):
            ax.errorbar([vi], [yi], xerr=[[np.nan_to_num(e0)], [np.nan_to_num(e1)]], fmt="o", capsize=3, color=col)
        ax.axvline(0.0, color="#444", lw=0.8, ls="--")
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(cells)), [labels[c] for c in cells], fontsize=8)
    axes[0].invert_yaxis()
    axes[0].set_ylabel("self-play cell: matchup · variant")
    fig.suptitle(f"First-mover (non-dealer) edge in self-play, 95% intervals (red: {red_means})")
    return save_figure(fig, path)


def hand_length_figure(draws: dict[int, np.ndarray], stats: pd.DataFrame, path: Path) -> tuple[Path, str]:
    """Hand length from each cell's histogram of draws (``stats.RunScan.draws``: the
    whole distribution, counted while the run was scanned)."""
    labels = {int(r["cell"]): cell_label(r) for _, r in stats.iterrows()}
    cells = sorted(c for c in labels if c in draws)
    if len(labels) <= 3:
        fig = new_figure(9.0, 4.2)
        ax = fig.subplots()
        size = max(len(draws[c]) for c in cells)
        pooled = sum(np.pad(draws[c], (0, size - len(draws[c]))) for c in cells)
        top = int(an.histogram_percentiles(pooled, [99.9])[0]) + 1
        for cell in cells:
            counts = np.pad(draws[cell], (0, max(0, top + 1 - len(draws[cell]))))[: top + 1]
            ax.step(np.arange(top + 1), counts / max(int(draws[cell].sum()), 1) * 100, where="mid",
                    label=shorten(labels[cell], 60))
        ax.set_xlabel("cards drawn in the hand by both players (draws)")
        ax.set_ylabel("share of hands (%)")
        ax.legend(fontsize=7)
        kind = "the share of hands ending after each number of draws (both players' draws, pile takes included)"
    else:
        fig = new_figure(9.5, max(3.0, 0.36 * len(labels) + 1.6))
        ax = fig.subplots()
        boxes = []
        for cell in cells:
            counts = draws[cell]
            q = an.histogram_percentiles(counts, [5, 25, 50, 75, 95])
            mean = float((np.arange(len(counts)) * counts).sum() / max(int(counts.sum()), 1))
            boxes.append({"label": labels[cell], "whislo": q[0], "q1": q[1], "med": q[2], "q3": q[3],
                          "whishi": q[4], "mean": mean, "fliers": []})
        parts = ax.bxp(boxes, orientation="horizontal", showmeans=True, showfliers=False)
        ax.tick_params(axis="y", labelsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("cards drawn in the hand by both players (draws)")
        ax.set_ylabel("cell: matchup · variant")
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        median, mean = parts["medians"][0], parts["means"][0]
        whisker = parts["whiskers"][0]
        keys = [Line2D([], [], color=median.get_color(), lw=2, label="median"),
                Patch(facecolor="white", edgecolor="black", label="quartiles (25th–75th percentile)"),
                Line2D([], [], color=whisker.get_color(), marker="|", markersize=10,
                       label="whiskers: 5th and 95th percentiles"),
                Line2D([], [], ls="", marker=mean.get_marker(), color=mean.get_markerfacecolor(),
                       markeredgecolor=mean.get_markeredgecolor(), label="mean")]
        fig.legend(handles=keys, loc="outside lower center", ncols=4, fontsize=8, frameon=False)
        kind = ("per cell, the median (line), quartiles (box), 5th and 95th percentiles (whiskers) and mean "
                "(triangle) of the number of cards drawn in a hand; the key is under the plot")
    ax.set_title("Hand length distribution")
    ax.grid(alpha=0.3)
    return save_figure(fig, path), kind


def heatmap_figure(tables: list[tuple[str, pd.DataFrame, pd.DataFrame | None, pd.DataFrame | None]], title: str,
                    cbar_label: str, center: float, fmt: str, path: Path,
                    undetected: list[pd.DataFrame] | None = None, frame_means: str = "") -> Path:
    """Strategy × strategy panels: each square shows its value and, under it, the half-width
    of its 95% interval (1.96 × se from ``stats.matrix_se``); a square whose interval
    contains ``center`` (no detectable advantage) gets a dashed frame.  A probability of 0 or 1
    with no spread (one side won every game) shows its Wilson interval over the units behind
    it (the fourth table) instead of a meaningless ±0.  ``undetected`` (one boolean table per
    panel) decides the dashed frames instead of the intervals, e.g. after a multiplicity
    adjustment; ``frame_means`` then says what a frame means in the note under the plot."""
    # one order for every panel: best mean result first
    score = pd.concat([t.where(~np.eye(len(t), dtype=bool)).mean(axis=1) for _, t, *_ in tables],
                      axis=1).mean(axis=1)
    order = list(score.sort_values(ascending=False, kind="stable").index)
    def ordered(table: pd.DataFrame | None) -> pd.DataFrame | None:
        return None if table is None else table.reindex(index=order, columns=order)

    tables = [(name, ordered(t), ordered(se), ordered(units)) for name, t, se, units in tables]
    frames = None if undetected is None else [ordered(u) for u in undetected]
    n = len(tables)
    ncols = min(2, n)
    nrows = math.ceil(n / ncols)
    size = max(len(t) for _, t, *_ in tables)
    side = max(4.2, 0.8 * size + 2.6)
    fig = new_figure(side * ncols + 0.8, side * nrows * 0.85 + 0.3)
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    from matplotlib import colormaps
    from matplotlib.colors import Normalize, SymLogNorm

    values = np.concatenate([t.to_numpy(float).ravel() for _, t, *_ in tables])
    dev = np.abs(values[np.isfinite(values)] - center)
    span = float(dev.max()) if dev.size and dev.max() > 0 else 1.0
    typical = float(np.median(dev[dev > 0])) if (dev > 0).any() else span
    if span > 8 * typical:  # one strategy far from the rest: a symmetric-log scale keeps the others visible
        norm = SymLogNorm(linthresh=typical, linscale=1.0, vmin=center - span, vmax=center + span, base=10)
    else:
        norm = Normalize(vmin=center - span, vmax=center + span)
    image = None
    cmap = colormaps["RdBu"].with_extremes(bad="#dddddd")  # grey: no cell (the diagonal without self-play)
    from matplotlib.patches import Rectangle

    any_dashed = any_bound = False
    for k, (ax, (name, table, se, units)) in enumerate(zip(axes, tables)):
        m = table.to_numpy(float)
        framed = None if frames is None else frames[k].fillna(False).to_numpy(bool)
        half = 1.959964 * se.to_numpy(float) if se is not None else np.full_like(m, np.nan)
        n_units = units.to_numpy(float) if units is not None else np.full_like(m, np.nan)
        image = ax.imshow(m, cmap=cmap, norm=norm)
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                if not np.isfinite(m[i, j]):
                    continue
                dark = abs(float(norm(m[i, j])) - 0.5) > 0.3
                color = "white" if dark else "black"
                bound = half[i, j] == 0 and m[i, j] in (0.0, 1.0) and np.isfinite(n_units[i, j]) and \
                    n_units[i, j] >= 1
                if bound:  # every unit the same way: the Wilson interval, not ±0
                    any_bound = True
                    n = int(round(n_units[i, j]))
                    low, high = an.wilson_interval(0 if m[i, j] == 0 else n, n)
                    ax.text(j, i - 0.12, format(m[i, j], fmt), ha="center", va="center", fontsize=8, color=color)
                    ax.text(j, i + 0.22, f"[{low:.2f}, {high:.2f}]", ha="center", va="center", fontsize=6.5,
                            color=color)
                elif np.isfinite(half[i, j]):
                    ax.text(j, i - 0.12, format(m[i, j], fmt), ha="center", va="center", fontsize=8, color=color)
                    ax.text(j, i + 0.22, "±" + format(half[i, j], fmt.lstrip("+")), ha="center", va="center",
                            fontsize=6.5, color=color)
                    if (abs(m[i, j] - center) <= half[i, j]) if framed is None else framed[i, j]:
                        any_dashed = True
                        ax.add_patch(Rectangle((j - 0.44, i - 0.44), 0.88, 0.88, fill=False, ls=(0, (3, 2)),
                                               lw=1.0, edgecolor="#222" if not dark else "white"))
                else:
                    ax.text(j, i, format(m[i, j], fmt), ha="center", va="center", fontsize=8, color=color)
        ax.set_xticks(range(m.shape[1]), [shorten(c, 22) for c in table.columns], rotation=35, ha="right",
                      fontsize=8)
        ax.set_yticks(range(m.shape[0]), [shorten(r, 22) for r in table.index], fontsize=8)
        ax.set_xlabel("opponent")
        ax.set_ylabel("strategy")
        ax.set_title(shorten(name, 50), fontsize=9)
    for ax in axes[n:]:
        ax.set_visible(False)
    symlog = isinstance(norm, SymLogNorm)
    if symlog:  # "... (points)" becomes "... (points, symmetric-log colour scale)"
        cbar_label = (cbar_label[:-1] + ", symmetric-log colour scale)" if cbar_label.endswith(")")
                      else cbar_label + " (symmetric-log colour scale)")
    bar = fig.colorbar(image, ax=axes[:n].tolist(), label=cbar_label, shrink=0.8)
    note = "under each value: ± half-width of its 95% interval" + (
        " ([low, high]: one side won every time)" if any_bound else "")
    if any_dashed:
        note += "; dashed frame: " + (frame_means or f"the interval contains {format(center, 'g')} "
                                                     f"(no detectable advantage)")
    fig.supxlabel(note, fontsize=8, color="#333")  # inside the layout: never over the axis labels
    if symlog:  # plain numbers on a 1-2-5 ladder instead of powers of ten
        ladder = [m * 10.0**k for k in range(-4, 5) for m in (1, 2, 5) if typical / 2 <= m * 10.0**k <= span]
        ladder = ladder[::max(1, math.ceil(len(ladder) / 4))]
        ticks = sorted({center, *(center + t for t in ladder), *(center - t for t in ladder)})
        bar.set_ticks(ticks, labels=[format(t, "g") for t in ticks])
    fig.suptitle(title)
    return save_figure(fig, path)


def side_of(key: str) -> str:
    return "A" if key.startswith("a.") else "B"
