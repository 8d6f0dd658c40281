"""The report of a run: ``write_report(run_dir)`` writes ``report.md``, a self-contained
``report.html`` (plots embedded as base64 PNG data URIs) and the PNG plots.

It reads ``RUN/manifest.json`` and the rows of ``RUN/data/*.parquet`` (hands) and
``RUN/games/*.parquet`` (games) — each file is classified by its columns, so a run with
hands only, games only (including older runs that kept game rows under ``data/``) or both
is reported.  The numbers come from ``simulator.analysis`` (intervals: see its docstring).

Plots (matplotlib ``Figure`` objects rendered by Agg; no global pyplot state), each with a
title, axis labels with units and a caption under it: net points per hand to A per cell;
net points (and game-win probability) against each swept parameter; the outcome mix;
hand length; A's game-win probability; the first mover's edge in self-play cells; a
strategy × strategy heatmap when the matchups form a round robin of three or more
strategies.  With more than ``MAX_ROWS`` cells and a sweep, the one-row-per-cell charts
give way to charts against the swept value.  Tables: per-cell statistics with 95%
intervals and the hands/games behind them, the ranking for a round robin, and the
balance verdict for self-play cells (``a == b``).
"""

from __future__ import annotations

import base64
import html
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import analysis as an

HAND_COLUMNS = ["pair", "a_dealt", "outcome", "winner", "net_a", "draws", "knocker_deadwood", "defender_deadwood"]
GAME_COLUMNS = ["pair", "a_dealt_first", "winner", "margin_a", "hands", "shutout"]
OUTCOME_COLORS = {"knock": "#4C72B0", "gin": "#55A868", "big_gin": "#8172B2", "undercut": "#C44E52",
                  "dead": "#999999"}
LABEL_MAX = 44
MAX_PANELS = 9
MAX_ROWS = 40  # above this many cells, a run with a sweep is drawn against the swept value


# ----------------------------------------------------------------------------- loading

def load_rows(run_dir: str | Path, labels: bool = True,
              files: dict[str, list[Path]] | None = None) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """The hand rows and the game rows of a run (``None`` when there are none), reading only
    the columns the report needs from the run's verified chunk files (``files``: mode →
    paths, as ``rundir.verify_run`` gives them; by default the run is verified here and
    refused when incomplete or damaged).  With ``labels=False`` the string labels (matchup,
    a, b, variant) are left out — ``cell`` and the swept values stay — which saves memory on
    big runs (the manifest has the labels)."""
    import pyarrow.parquet as pq

    from .rundir import readable_run

    if files is None:
        files = readable_run(Path(run_dir))[1].good
    parts: dict[str, list[pd.DataFrame]] = {"hands": [], "games": []}
    keep = set(an.LABELS) if labels else {"cell"}
    for mode, kind in (("deals", "hands"), ("games", "games")):
        for path in files.get(mode, []):
            names = pq.read_schema(path).names
            wanted = HAND_COLUMNS if kind == "hands" else GAME_COLUMNS
            label_cols = [c for c in names if c in keep or c[:2] in ("a.", "b.")]
            parts[kind].append(pd.read_parquet(path, columns=label_cols + [c for c in wanted if c in names]))

    def join(frames: list[pd.DataFrame]) -> pd.DataFrame | None:
        if not frames:
            return None
        df = pd.concat(frames, ignore_index=True)
        for key in an.sweep_columns(df):  # nullable in the files; NaN where a cell has no value
            df[key] = df[key].astype("float64")
        return df

    return join(parts["hands"]), join(parts["games"])


def _manifest_labels(manifest: dict[str, Any]) -> pd.DataFrame | None:
    """Per cell: matchup, a, b, variant, as the runner labels the rows; None if the
    manifest does not list them."""
    cells = manifest.get("cells") or []
    if not cells or not all({"cell", "a", "b", "variant"} <= set(c) for c in cells):
        return None
    return pd.DataFrame([{"cell": c["cell"], "matchup": f"{c['a']} vs {c['b']}", "a": c["a"], "b": c["b"],
                          "variant": c["variant"]} for c in cells])


def _attach_labels(stats: pd.DataFrame, labels: pd.DataFrame | None) -> pd.DataFrame:
    if labels is None or "a" in stats.columns:
        return stats
    merged = stats.merge(labels, on="cell", how="left")
    front = ["cell", "matchup", "a", "b", "variant", *an.sweep_columns(stats)]
    return merged[front + [c for c in merged.columns if c not in front]]


# ----------------------------------------------------------------------------- document model

@dataclass
class _Doc:
    """Blocks rendered to both Markdown and HTML: ("h", level, text), ("p", text),
    ("ul", items), ("table", frame of strings), ("fig", path, title, caption)."""

    blocks: list[tuple[Any, ...]] = field(default_factory=list)

    def h(self, level: int, text: str) -> None:
        self.blocks.append(("h", level, text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def ul(self, items: list[str]) -> None:
        self.blocks.append(("ul", items))

    def table(self, frame: pd.DataFrame) -> None:
        self.blocks.append(("table", frame))

    def fig(self, path: Path, title: str, caption: str) -> None:
        self.blocks.append(("fig", path, title, caption))

    def markdown(self) -> str:
        out: list[str] = [f"<!-- generated by {GENERATOR}; rerun it to replace this file -->"]
        for block in self.blocks:
            kind = block[0]
            if kind == "h":
                out.append("#" * block[1] + " " + block[2])
            elif kind == "p":
                out.append(block[1])
            elif kind == "ul":
                out.append("\n".join(f"- {item}" for item in block[1]))
            elif kind == "table":
                out.append(_md_table(block[1]))
            elif kind == "fig":
                _, path, title, caption = block
                out.append(f"![{title}]({path.name})\n\n*{caption}*")
        return "\n\n".join(out) + "\n"

    def html(self, title: str) -> str:
        body: list[str] = []
        for block in self.blocks:
            kind = block[0]
            if kind == "h":
                body.append(f"<h{block[1]}>{html.escape(block[2])}</h{block[1]}>")
            elif kind == "p":
                body.append(f"<p>{html.escape(block[1])}</p>")
            elif kind == "ul":
                body.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in block[1]) + "</ul>")
            elif kind == "table":
                body.append(_html_table(block[1]))
            elif kind == "fig":
                _, path, ftitle, caption = block
                data = base64.b64encode(path.read_bytes()).decode("ascii")
                body.append(f'<figure><img alt="{html.escape(ftitle, quote=True)}" '
                            f'src="data:image/png;base64,{data}"><figcaption>{html.escape(caption)}'
                            f"</figcaption></figure>")
        style = ("body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;"
                 "color:#222}table{border-collapse:collapse;font-size:0.85em;margin:1em 0}"
                 "th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}"
                 "th{background:#f0f0f0}td.l{text-align:left}"
                 "figure{margin:1.5em 0}img{max-width:100%}figcaption{font-style:italic;color:#444;"
                 "max-width:900px}.scroll{overflow-x:auto}")
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<meta name=\"generator\" content=\"{GENERATOR}\"><title>{html.escape(title)}"
                f"</title><style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def _md_cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


TEXT_COLUMNS = {"cell", "matchup", "variant", "strategy", "balance (self-play)"}


def _md_table(frame: pd.DataFrame) -> str:
    head = "| " + " | ".join(_md_cell(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" if c in TEXT_COLUMNS else "---:" for c in frame.columns) + "|"
    rows = ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def _html_table(frame: pd.DataFrame) -> str:
    left = [c in TEXT_COLUMNS for c in frame.columns]
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = "".join("<tr>" + "".join(f'<td class="l">{html.escape(str(v))}</td>' if lf else
                                    f"<td>{html.escape(str(v))}</td>" for v, lf in zip(row, left)) + "</tr>"
                   for row in frame.itertuples(index=False))
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>'


# ----------------------------------------------------------------------------- formatting

def _short(text: str, limit: int = LABEL_MAX) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _span(stats: pd.DataFrame) -> str:
    low, high = int(stats["n_units"].min()), int(stats["n_units"].max())
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


def _num(value: float) -> str:
    """A swept value as the experiment wrote it (``format_value``), or a dash for none."""
    from .experiment import format_value

    if value is None or pd.isna(value):
        return "–"
    return format_value(value)


def _ci(stats: pd.Series, column: str, fmt: str, scale: float = 1.0, unit: str = "") -> str:
    low_name, high_name = an.ci_columns(column)
    v, lo, hi = (float(stats.get(c, np.nan)) * scale for c in (column, low_name, high_name))
    if not math.isfinite(v):
        return "–"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{v:{fmt}}{unit}"
    return f"{v:{fmt}}{unit} [{lo:{fmt}}, {hi:{fmt}}]"


def _cell_label(row: pd.Series) -> str:
    """``cell: matchup · variant`` (the matchup's specs already carry any swept value)."""
    return f"{row['cell']}: {_short(row.get('matchup', ''), LABEL_MAX)} · {row.get('variant', '')}"


def _identity_columns(stats: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    cols = {"cell": stats["cell"], "matchup": stats.get("matchup", ""), "variant": stats.get("variant", "")}
    frame = pd.DataFrame(cols)
    for k in keys:
        frame[k] = stats[k].map(_num)
    return frame


# ----------------------------------------------------------------------------- experiment structure

def _base_matchups(manifest: dict[str, Any], stats: pd.DataFrame) -> pd.DataFrame:
    """Per cell, the matchup's strategies as the experiment names them (before the sweep
    set their parameters): columns ``cell``, ``base_a``, ``base_b``, ``base_matchup``."""
    try:
        from .experiment import _with_params  # how the runner names a swept strategy
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


def round_robin_strategies(pairs: list[tuple[str, str]]) -> list[str] | None:
    """The strategies when the (A, B) pairs hold every pair of three or more distinct
    strategies (in either seating); else None.  Self-play pairs are ignored."""
    played = {frozenset(p) for p in pairs if p[0] != p[1]}
    names = sorted({s for p in played for s in p})
    if len(names) < 3:
        return None
    every = {frozenset((x, y)) for i, x in enumerate(names) for y in names[i + 1:]}
    return names if every <= played else None


# ----------------------------------------------------------------------------- figures

def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig


#: every file ``ginsim report`` writes carries this mark, so a report is only ever
#: replaced by another report, never a user's own file of the same name
GENERATOR = "ginsim report"


def _save(fig, path: Path) -> Path:
    fig.savefig(path, dpi=110, metadata={"Software": GENERATOR})
    return path


def written_by_ginsim(path: Path) -> bool:
    """True when ``path`` is a file that ``ginsim report`` wrote (it carries the mark)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    if path.suffix == ".png":
        return b"tEXtSoftware\x00" + GENERATOR.encode() in head
    return f'<meta name="generator" content="{GENERATOR}">'.encode() in head or \
        f"<!-- generated by {GENERATOR}".encode() in head


def _variant_colors(variants: list[str]) -> dict[str, Any]:
    from matplotlib import colormaps

    cmap = colormaps["tab10"]
    return {v: cmap(i % 10) for i, v in enumerate(variants)}


def _errorbar_by_cell(stats: pd.DataFrame, column: str, xlabel: str, title: str, path: Path,
                      reference: float, scale: float = 1.0) -> Path:
    """Horizontal points with interval bars: one row per matchup (with swept values), one
    colour per variant."""
    low_name, high_name = an.ci_columns(column)
    variants = list(dict.fromkeys(stats["variant"])) if "variant" in stats else [""]
    if len(variants) > 4:  # too many colours: one row per cell instead
        rows = stats.assign(_row=[_cell_label(r) for _, r in stats.iterrows()], variant="")
        variants = [""]
    else:
        rows = stats.assign(_row=[_short(r["matchup"]) for _, r in stats.iterrows()])
    colors = _variant_colors(variants)
    labels = list(dict.fromkeys(rows["_row"]))
    fig = _figure(9.0, max(2.6, 0.42 * len(labels) + 1.6))
    ax = fig.subplots()
    step = 0.7 / max(len(variants), 1)
    for i, variant in enumerate(variants):
        part = rows[rows["variant"] == variant] if "variant" in rows else rows
        y = np.array([labels.index(r) for r in part["_row"]]) + (i - (len(variants) - 1) / 2) * step
        v = part[column].to_numpy(float) * scale
        err = np.vstack([v - part[low_name].to_numpy(float) * scale, part[high_name].to_numpy(float) * scale - v])
        ax.errorbar(v, y, xerr=np.nan_to_num(err), fmt="o", capsize=3, color=colors[variant], label=variant)
    ax.axvline(reference, color="#444", lw=0.8, ls="--")
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_ylabel("matchup (A vs B)" if variants != [""] else "cell: matchup (A vs B) · variant")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    if len(variants) > 1:
        ax.legend(title="variant", fontsize=8, loc="best")
    return _save(fig, path)


def _sweep_figure(stats: pd.DataFrame, bases: pd.DataFrame, key: str, column: str, ylabel: str, title: str,
                  path: Path, reference: float, scale: float = 1.0) -> tuple[Path, int]:
    """One panel per matchup, one curve per variant (and other swept values), value with
    interval bars against ``key``."""
    low_name, high_name = an.ci_columns(column)
    df = stats.merge(bases, on="cell")
    df = df[df[key].notna()]  # the matchups this parameter applies to
    others = [k for k in an.sweep_columns(stats) if k != key]
    matchups = list(dict.fromkeys(df["base_matchup"]))
    shown = matchups[:MAX_PANELS]
    ncols = min(3, len(shown))
    nrows = math.ceil(len(shown) / ncols)
    fig = _figure(4.2 * ncols + 0.6, 3.3 * nrows + 0.5)
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    variants = list(dict.fromkeys(df["variant"]))
    colors = _variant_colors(variants)
    markers = "osD^v<>ph"
    for ax, matchup in zip(axes, shown):
        part = df[df["base_matchup"] == matchup]
        groups = part.groupby(["variant", *others], sort=False, dropna=False)
        n_curves = 0
        for j, (gkey, g) in enumerate(groups):
            gkey = gkey if isinstance(gkey, tuple) else (gkey,)
            g = g.sort_values(key)
            x = g[key].to_numpy(float)
            v = g[column].to_numpy(float) * scale
            err = np.vstack([v - g[low_name].to_numpy(float) * scale, g[high_name].to_numpy(float) * scale - v])
            label = str(gkey[0]) + "".join(f", {k}={_num(val)}" for k, val in zip(others, gkey[1:]) if pd.notna(val))
            ax.errorbar(x, v, yerr=np.nan_to_num(err), marker=markers[j % len(markers)], capsize=3,
                        color=colors[gkey[0]], label=_short(label, 30), ls="-" if j < 10 else ":")
            n_curves += 1
        ax.axhline(reference, color="#444", lw=0.8, ls="--")
        ax.set_title(_short(matchup, 40), fontsize=9)
        ax.set_xlabel(f"{key} (swept parameter value)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        if n_curves > 1:
            ax.legend(fontsize=7, title="variant", title_fontsize=7)
    for ax in axes[len(shown):]:
        ax.set_visible(False)
    fig.suptitle(title)
    return _save(fig, path), len(matchups)


def _outcome_figure(stats: pd.DataFrame, path: Path) -> Path:
    labels = [_cell_label(r) for _, r in stats.iterrows()]
    fig = _figure(9.5, max(2.6, 0.36 * len(labels) + 1.8))
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
    return _save(fig, path)


def _outcome_sweep_figure(stats: pd.DataFrame, bases: pd.DataFrame, key: str, path: Path) -> tuple[Path, str]:
    """Stacked outcome shares against one swept parameter: a grid of matchups × variants."""
    df = stats.merge(bases, on="cell")
    df = df[df[key].notna()]
    all_matchups, all_variants = list(dict.fromkeys(df["base_matchup"])), list(dict.fromkeys(df["variant"]))
    matchups, variants = all_matchups[:6], all_variants[:6]
    fig = _figure(2.4 * len(variants) + 1.4, 2.1 * len(matchups) + 1.4)
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
            ax.set_xticks(x, [_num(v) for v in part[key]], fontsize=7, rotation=90 if len(x) > 8 else 0)
            ax.set_ylim(0, 100)
            if i == 0:
                ax.set_title(_short(variant, 24), fontsize=9)
            if j == 0:
                ax.set_ylabel(_short(matchup, 28) + "\nshare of hands (%)", fontsize=8)
            if i == len(matchups) - 1:
                ax.set_xlabel(f"{key} (swept value)", fontsize=8)
    fig.suptitle(f"How hands end against {_side(key)}'s {key[2:]}")
    fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncols=5, fontsize=8,
               frameon=False)
    cut = ""
    if len(all_matchups) > len(matchups) or len(all_variants) > len(variants):
        cut = (f" Only the first {len(matchups)} of {len(all_matchups)} matchups and {len(variants)} of "
               f"{len(all_variants)} variants are drawn.")
    return _save(fig, path), cut


def _edge_figure(hself: pd.DataFrame | None, gself: pd.DataFrame | None, path: Path) -> Path:
    """First-mover edge with intervals per self-play cell: hands (points) and games (pp)."""
    panels = [(p, c, x, s) for p, c, x, s in (
        (hself, "first_mover_edge", "points per hand to the non-dealer (points)", 1.0),
        (gself, "first_mover_edge", "non-dealer's game-win probability − 50% (percentage points)", 100.0),
    ) if p is not None]
    cells = sorted(set().union(*[set(p["cell"]) for p, *_ in panels]))
    labels = {}
    for p, *_ in panels:
        for _, r in p.iterrows():
            labels.setdefault(r["cell"], _cell_label(r))
    fig = _figure(5.0 * len(panels) + 2.8, max(2.6, 0.38 * len(cells) + 1.6))
    axes = np.atleast_1d(fig.subplots(1, len(panels), sharey=True, squeeze=False)).ravel()
    for ax, (part, column, xlabel, scale) in zip(axes, panels):
        low_name, high_name = an.ci_columns(column)
        y = np.array([cells.index(c) for c in part["cell"]])
        v = part[column].to_numpy(float) * scale
        err = np.vstack([v - part[low_name].to_numpy(float) * scale, part[high_name].to_numpy(float) * scale - v])
        verdict = an.balanced(part).to_numpy()
        colors = np.where(verdict == "balanced", "#4C72B0", "#C44E52")
        for yi, vi, e0, e1, col in zip(y, v, err[0], err[1], colors):
            ax.errorbar([vi], [yi], xerr=[[np.nan_to_num(e0)], [np.nan_to_num(e1)]], fmt="o", capsize=3, color=col)
        ax.axvline(0.0, color="#444", lw=0.8, ls="--")
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(cells)), [labels[c] for c in cells], fontsize=8)
    axes[0].invert_yaxis()
    axes[0].set_ylabel("self-play cell: matchup · variant")
    fig.suptitle("First-mover (non-dealer) edge in self-play, 95% intervals (red: interval excludes 0)")
    return _save(fig, path)


def _hand_length_figure(hands: pd.DataFrame, stats: pd.DataFrame, path: Path) -> tuple[Path, str]:
    labels = {int(r["cell"]): _cell_label(r) for _, r in stats.iterrows()}
    draws = hands[["cell", "draws"]]
    if len(labels) <= 3:
        fig = _figure(9.0, 4.2)
        ax = fig.subplots()
        top = int(draws["draws"].quantile(0.999)) + 1
        bins = np.arange(-0.5, top + 1.5)
        for cell, g in draws.groupby("cell", sort=True):
            counts, _ = np.histogram(g["draws"].to_numpy(), bins=bins)
            ax.step(np.arange(top + 1), counts / max(len(g), 1) * 100, where="mid", label=_short(labels[cell], 60))
        ax.set_xlabel("cards drawn in the hand by both players (draws)")
        ax.set_ylabel("share of hands (%)")
        ax.legend(fontsize=7)
        kind = "the share of hands ending after each number of draws (both players' draws, pile takes included)"
    else:
        fig = _figure(9.5, max(3.0, 0.36 * len(labels) + 1.6))
        ax = fig.subplots()
        boxes = []
        for cell, g in draws.groupby("cell", sort=True):
            q = np.percentile(g["draws"].to_numpy(float), [5, 25, 50, 75, 95])
            boxes.append({"label": labels[cell], "whislo": q[0], "q1": q[1], "med": q[2], "q3": q[3],
                          "whishi": q[4], "mean": float(g["draws"].mean()), "fliers": []})
        ax.bxp(boxes, orientation="horizontal", showmeans=True, showfliers=False)
        ax.tick_params(axis="y", labelsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("cards drawn in the hand by both players (draws)")
        ax.set_ylabel("cell: matchup · variant")
        kind = ("per cell, the median (line), quartiles (box), 5th and 95th percentiles (whiskers) and mean "
                "(triangle) of the number of cards drawn in a hand")
    ax.set_title("Hand length distribution")
    ax.grid(alpha=0.3)
    return _save(fig, path), kind


def _heatmap_figure(tables: list[tuple[str, pd.DataFrame]], title: str, cbar_label: str, center: float,
                    fmt: str, path: Path) -> Path:
    # one order for every panel: best mean result first
    score = pd.concat([t.where(~np.eye(len(t), dtype=bool)).mean(axis=1) for _, t in tables], axis=1).mean(axis=1)
    order = list(score.sort_values(ascending=False, kind="stable").index)
    tables = [(name, t.reindex(index=order, columns=order)) for name, t in tables]
    n = len(tables)
    ncols = min(2, n)
    nrows = math.ceil(n / ncols)
    size = max(len(t) for _, t in tables)
    side = max(4.2, 0.75 * size + 2.6)
    fig = _figure(side * ncols + 0.8, side * nrows * 0.85 + 0.3)
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    from matplotlib import colormaps
    from matplotlib.colors import Normalize, SymLogNorm

    values = np.concatenate([t.to_numpy(float).ravel() for _, t in tables])
    dev = np.abs(values[np.isfinite(values)] - center)
    span = float(dev.max()) if dev.size and dev.max() > 0 else 1.0
    typical = float(np.median(dev[dev > 0])) if (dev > 0).any() else span
    if span > 8 * typical:  # one strategy far from the rest: a symmetric-log scale keeps the others visible
        norm = SymLogNorm(linthresh=typical, linscale=1.0, vmin=center - span, vmax=center + span, base=10)
    else:
        norm = Normalize(vmin=center - span, vmax=center + span)
    image = None
    cmap = colormaps["RdBu"].with_extremes(bad="#dddddd")  # grey: no cell (the diagonal without self-play)
    for ax, (name, table) in zip(axes, tables):
        m = table.to_numpy(float)
        image = ax.imshow(m, cmap=cmap, norm=norm)
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                if np.isfinite(m[i, j]):
                    dark = abs(float(norm(m[i, j])) - 0.5) > 0.3
                    ax.text(j, i, format(m[i, j], fmt), ha="center", va="center", fontsize=8,
                            color="white" if dark else "black")
        ax.set_xticks(range(m.shape[1]), [_short(c, 22) for c in table.columns], rotation=35, ha="right",
                      fontsize=8)
        ax.set_yticks(range(m.shape[0]), [_short(r, 22) for r in table.index], fontsize=8)
        ax.set_xlabel("opponent")
        ax.set_ylabel("strategy")
        ax.set_title(_short(name, 50), fontsize=9)
    for ax in axes[n:]:
        ax.set_visible(False)
    symlog = isinstance(norm, SymLogNorm)
    bar = fig.colorbar(image, ax=axes[:n].tolist(), label=cbar_label + (" (symmetric-log scale)" if symlog else ""),
                       shrink=0.8)
    if symlog:  # plain numbers on a 1-2-5 ladder instead of powers of ten
        ladder = [m * 10.0**k for k in range(-4, 5) for m in (1, 2, 5) if typical / 2 <= m * 10.0**k <= span]
        ladder = ladder[::max(1, math.ceil(len(ladder) / 4))]
        ticks = sorted({center, *(center + t for t in ladder), *(center - t for t in ladder)})
        bar.set_ticks(ticks, labels=[format(t, "g") for t in ticks])
    fig.suptitle(title)
    return _save(fig, path)


# ----------------------------------------------------------------------------- tables

def _hand_tables(stats: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    keys = an.sweep_columns(stats)
    results = _identity_columns(stats, keys)
    results["hands"] = stats["n_hands"].map("{:,}".format)
    results["units"] = stats["n_units"].map("{:,}".format)
    rows = [r for _, r in stats.iterrows()]
    results["net points/hand to A"] = [_ci(r, "net_mean", "+.3f") for r in rows]
    results["A hand-win rate"] = [_ci(r, "win_rate", ".1f", 100, "%") for r in rows]
    results["first-mover edge (points/hand)"] = [_ci(r, "first_mover_edge", "+.3f") for r in rows]
    self_play = (stats["a"] == stats["b"]) if {"a", "b"} <= set(stats.columns) else pd.Series(False, stats.index)
    if self_play.any():
        verdict = an.balanced(stats)
        results["balance (self-play)"] = np.where(self_play, verdict, "–")
    play = _identity_columns(stats, keys)[["cell"]]
    play["hands"] = results["hands"]
    for outcome in an.OUTCOMES:
        play[outcome.replace("_", " ")] = [_ci(r, f"share_{outcome}", ".1f", 100, "%") for r in rows]
    play["gin rate"] = [_ci(r, "gin_rate", ".1f", 100, "%") for r in rows]
    play["undercuts per knock"] = [_ci(r, "undercut_rate", ".1f", 100, "%") for r in rows]
    play["draws/hand"] = [_ci(r, "draws_mean", ".2f") for r in rows]
    play["knocker deadwood"] = [_ci(r, "knocker_deadwood", ".2f") for r in rows]
    play["defender deadwood"] = [_ci(r, "defender_deadwood", ".2f") for r in rows]
    return results, play


def _game_table(stats: pd.DataFrame) -> pd.DataFrame:
    keys = an.sweep_columns(stats)
    table = _identity_columns(stats, keys)
    table["games"] = stats["n_games"].map("{:,}".format)
    table["units"] = stats["n_units"].map("{:,}".format)
    rows = [r for _, r in stats.iterrows()]
    table["A game-win probability"] = [_ci(r, "win_prob", ".1f", 100, "%") for r in rows]
    table["margin to A (points)"] = [_ci(r, "margin_mean", "+.1f") for r in rows]
    table["hands/game"] = [_ci(r, "hands_mean", ".2f") for r in rows]
    table["shutout rate"] = [_ci(r, "shutout_rate", ".1f", 100, "%") for r in rows]
    table["first-mover edge (win prob − 50%, pp)"] = [_ci(r, "first_mover_edge", "+.1f", 100) for r in rows]
    self_play = stats["a"] == stats["b"] if {"a", "b"} <= set(stats.columns) else pd.Series(False, stats.index)
    if self_play.any():
        table["balance (self-play)"] = np.where(self_play, an.balanced(stats), "–")
    return table


def _ranking_table(rank: pd.DataFrame, value: str, header: str, fmt: str, scale: float, unit: str,
                   count: str) -> pd.DataFrame:
    by = [c for c in rank.columns if c not in ("rank", "strategy", value, "ci_low", "ci_high", "se",
                                                "n_opponents", "n_cells", count, "n")]
    out = pd.DataFrame({c: rank[c].map(_num) if c[:2] in ("a.", "b.") else rank[c] for c in by})
    out["rank"] = rank["rank"]
    out["strategy"] = rank["strategy"]
    out[header] = [f"{v * scale:{fmt}}{unit} [{lo * scale:{fmt}}, {hi * scale:{fmt}}]"
                   for v, lo, hi in zip(rank[value], rank["ci_low"], rank["ci_high"])]
    out["opponents"] = rank["n_opponents"]
    out[count.replace("n_", "")] = rank[count].map("{:,}".format) if count in rank else ""
    return out


# ----------------------------------------------------------------------------- the report

def _header(doc: _Doc, manifest: dict[str, Any], run_dir: Path) -> None:
    exp = manifest.get("experiment", {})
    name = exp.get("name", run_dir.name)
    doc.h(1, f"ginsim report: {name}")
    if exp.get("description"):
        doc.p(str(exp["description"]))
    deals = exp.get("deals", exp.get("size") if exp.get("mode") == "deals" else None)
    n_games = exp.get("games", exp.get("size") if exp.get("mode") == "games" else None)
    variants = exp.get("variants", {})
    sweep = exp.get("sweep", {})
    versions = manifest.get("versions", {})
    items = [
        f"Run directory: {run_dir.resolve().name}",
        f"Seed: {exp.get('seed', '–')}",
        f"Deals per cell: {deals:,}" if deals else "Deals per cell: none (no hand rows)",
        f"Games per cell: {n_games:,}" if n_games else "Games per cell: none (no game rows)",
        f"Mirrored (duplicate) deals: {'yes' if exp.get('mirrored', True) else 'no'}",
        f"Cells: {len(manifest.get('cells', []))} "
        f"({_plural(len(exp.get('matchups', [])), 'matchup')} × {_plural(len(variants), 'variant')}"
        + (f" × {_plural(math.prod(len(v) for v in sweep.values()), 'sweep point')})" if sweep else ")"),
        "Variants: " + "; ".join(f"{k} = " + ", ".join(f"{f}={v}" for f, v in t.items())
                                 for k, t in variants.items()) if variants else "Variants: –",
    ]
    if sweep:
        items.append("Sweep: " + "; ".join(f"{k} = {', '.join(_num(v) for v in vs)}" for k, vs in sweep.items()))
    items.append(f"Git commit: {manifest.get('git_commit') or 'unknown'}; code fingerprint "
                 f"{manifest.get('code_fingerprint', 'unknown')}; run id {manifest.get('run_id', 'unknown')}")
    items.append("Versions: " + (", ".join(f"{k} {v}" for k, v in versions.items()) or "unknown"))
    doc.ul(items)
    doc.p("Intervals are 95% confidence intervals. With mirrored deals the two deals (or games) of a pair "
          "share a deck with the seats swapped, so each pair is one independent unit: values are averaged "
          "within the pair and the Student t interval is taken over the pair means (over single rows "
          "without mirroring; Wilson score intervals for unpaired proportions; delta-method intervals for "
          "ratios such as mean deadwood). 'units' is the number of independent units behind each row. "
          "The first mover is the non-dealer; a hand or game without a winner counts half to each side.")


def write_report(run_dir: str | Path, out_dir: str | Path | None = None) -> list[Path]:
    """Write ``report.md``, ``report.html`` (self-contained) and the PNG plots of a run into
    ``out_dir`` (default: the run directory); return the paths written (md, html, PNGs).

    The run must be complete and intact (``rundir.readable_run``).  Files are made in a
    staging folder and moved in only when all are ready; a file of the same name that
    ``ginsim report`` did not write is never replaced (``RunError`` names it)."""
    import shutil
    import tempfile

    from .rundir import RunError, readable_run

    run_dir = Path(run_dir)
    manifest, verification = readable_run(run_dir)
    if not verification.good["deals"] and not verification.good["games"]:
        raise RunError(f"{run_dir}: the run holds no rows to report")
    out = Path(out_dir) if out_dir is not None else run_dir
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"report directory {out} is not writable: {exc.strerror or exc}") from None
    stage = Path(tempfile.mkdtemp(prefix=".ginsim-report-", dir=out))
    try:
        written = _write_report_files(run_dir, manifest, verification.good, stage)
        targets = [out / p.name for p in written]
        theirs = [t for t in targets if t.exists() and not written_by_ginsim(t)]
        if theirs:
            raise RunError(f"{theirs[0]} exists and was not written by ginsim report; move it away or choose "
                           f"another --out")
        for made, target in zip(written, targets, strict=True):
            # the markdown and HTML refer to the PNGs by bare name, so they stay valid in out
            made.replace(target)
        return targets
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _write_report_files(run_dir: Path, manifest: dict[str, Any], files: dict[str, list[Path]],
                        out: Path) -> list[Path]:
    labels = _manifest_labels(manifest)
    hands, games = load_rows(run_dir, labels=labels is None, files=files)
    doc = _Doc()
    _header(doc, manifest, run_dir)
    pngs: list[Path] = []

    def figure(path: Path, title: str, caption: str) -> None:
        pngs.append(path)
        doc.fig(path, title, caption)

    mirrored = bool(manifest.get("experiment", {}).get("mirrored", True))
    hstats = _attach_labels(an.hand_stats(hands), labels) if hands is not None and len(hands) else None
    gstats = _attach_labels(an.game_stats(games), labels) if games is not None and len(games) else None
    if hstats is not None:
        _hands_section(doc, figure, manifest, hands, hstats, out, mirrored)
    if gstats is not None:
        _games_section(doc, figure, manifest, gstats, out, mirrored)
    _balance_section(doc, figure, hstats, gstats, out)
    for kind, stats in (("hands", hstats), ("games", gstats)):
        if stats is not None:
            _round_robin_section(doc, figure, manifest, kind, stats, out)

    md_path, html_path = out / "report.md", out / "report.html"
    md_path.write_text(doc.markdown(), encoding="utf-8")
    title = f"ginsim report: {manifest.get('experiment', {}).get('name', run_dir.name)}"
    html_path.write_text(doc.html(title), encoding="utf-8")
    return [md_path, html_path, *pngs]


def _sweep_figures(figure, manifest: dict[str, Any], stats: pd.DataFrame, out: Path, column: str, ylabel: str,
                   what: str, prefix: str, reference: float, scale: float = 1.0) -> None:
    bases = _base_matchups(manifest, stats)
    for key in an.sweep_columns(stats):
        png, n_matchups = _sweep_figure(stats, bases, key, column, ylabel,
                                        f"{what[0].upper()}{what[1:]} against {_side(key)}'s {key[2:]}",
                                        out / f"{prefix}_{_slug(key)}.png", reference, scale)
        cut = f" Only the first {MAX_PANELS} of {n_matchups} matchups are drawn." if n_matchups > MAX_PANELS else ""
        figure(png, f"{what[0].upper()}{what[1:]} against {key}",
               f"{what[0].upper()}{what[1:]} against the swept value of {key}, one panel per matchup and one "
               f"curve per rule variant, with 95% confidence intervals.{cut}")


def _swept(stats: pd.DataFrame) -> pd.Series:
    """Cells that take at least one swept parameter (a sweep may skip some matchups)."""
    keys = an.sweep_columns(stats)
    return stats[keys].notna().any(axis=1) if keys else pd.Series(False, index=stats.index)


def _hands_section(doc: _Doc, figure, manifest: dict[str, Any], hands: pd.DataFrame, hstats: pd.DataFrame,
                   out: Path, mirrored: bool) -> None:
    keys = an.sweep_columns(hstats)
    # with many cells, swept cells are drawn against the swept value, the rest one row per cell
    many = len(hstats) > MAX_ROWS and bool(keys)
    swept = _swept(hstats)
    rest = hstats[~swept] if many else hstats
    doc.h(2, "Single hands")
    units = "mirrored pairs" if mirrored else "hands"
    if len(rest):
        png = _errorbar_by_cell(rest, "net_mean", "net points per hand to A (points; A's minus B's)",
                                "Net points per hand to strategy A, 95% intervals", out / "net_points.png", 0.0)
        figure(png, "Net points per hand to A",
               f"Mean points per hand won by strategy A minus those won by B, one point per cell"
               f"{' without a swept parameter' if many else ''}, with 95% confidence intervals over "
               f"{_span(rest)} {units} per cell. Right of the dashed line A gains points on average.")
    if keys:
        _sweep_figures(figure, manifest, hstats, out, "net_mean", "net points per hand to A (points)",
                       "net points per hand to A", "sweep", 0.0)
    results, play = _hand_tables(hstats)
    doc.h(3, "Results per cell")
    doc.p("Point estimate with its 95% confidence interval in brackets; 'units' are the independent units "
          "behind it. 'first-mover edge' is the points per hand to the non-dealer (who moves first), "
          "whichever strategy it is.")
    doc.table(results)
    caption = ("How the hands ended: knock (knocker scores), gin, big gin, undercut (defender scores) and dead "
               "(cancelled at the end of the stock), as a share of all hands")
    if many and len(keys) == 1:
        png, cut = _outcome_sweep_figure(hstats, _base_matchups(manifest, hstats), keys[0], out / "outcome_mix.png")
        figure(png, "Outcome mix", f"{caption}, against {keys[0]}: one panel per matchup (rows) and rule variant "
                                   f"(columns).{cut}")
        if len(rest):
            figure(_outcome_figure(rest, out / "outcome_mix_other.png"), "Outcome mix (other cells)",
                   f"{caption}, per cell without a swept parameter.")
    else:
        figure(_outcome_figure(hstats, out / "outcome_mix.png"), "Outcome mix", f"{caption}, per cell.")
    doc.h(3, "How hands end")
    doc.p("Shares of all hands; 'undercuts per knock' is undercuts / (knocks + undercuts); deadwood is the "
          "mean over hands that were not cancelled (the defender's after layoffs).")
    doc.table(play)
    if many:
        _sweep_figures(figure, manifest, hstats, out, "draws_mean", "cards drawn per hand (draws)",
                       "mean hand length", "hand_length", 0.0)
    if len(rest):
        png, kind = _hand_length_figure(hands[hands["cell"].isin(rest["cell"])], rest, out / "hand_length.png")
        figure(png, "Hand length", f"Hand length: {kind}{' (cells without a swept parameter)' if many else ''}.")


def _games_section(doc: _Doc, figure, manifest: dict[str, Any], gstats: pd.DataFrame, out: Path,
                   mirrored: bool) -> None:
    keys = an.sweep_columns(gstats)
    many = len(gstats) > MAX_ROWS and bool(keys)
    rest = gstats[~_swept(gstats)] if many else gstats
    doc.h(2, "Whole games")
    if len(rest):
        figure(_errorbar_by_cell(rest, "win_prob", "probability that A wins the game (%)",
                                 "A's game-win probability, 95% intervals", out / "game_win.png", 50.0, scale=100),
               "Game-win probability",
               f"Probability that strategy A wins a whole game, per cell{' without a swept parameter' if many else ''}"
               f", with 95% confidence intervals over {_span(rest)} "
               f"{'mirrored pairs of games' if mirrored else 'games'} per cell. The dashed line is an even game.")
    if keys:
        _sweep_figures(figure, manifest, gstats, out, "win_prob", "probability that A wins the game (%)",
                       "A's game-win probability", "sweep_games", 50.0, 100)
    doc.h(3, "Results per cell")
    doc.p("Point estimate with its 95% confidence interval in brackets; margin is A's final score minus "
          "B's (game, box and shutout bonuses included); the first-mover edge is the game-win probability "
          "of the player who did not deal first, minus 50%, in percentage points.")
    doc.table(_game_table(gstats))


def _balance_section(doc: _Doc, figure, hstats: pd.DataFrame | None, gstats: pd.DataFrame | None,
                     out: Path) -> None:
    def self_play(stats):
        if stats is None or not {"a", "b"} <= set(stats.columns):
            return None
        part = stats[stats["a"] == stats["b"]]
        return part if len(part) else None

    hself, gself = self_play(hstats), self_play(gstats)
    if hself is None and gself is None:
        return
    doc.h(2, "Balance: does the first mover have an edge?")
    lines = []
    for what, part in (("hands", hself), ("games", gself)):
        if part is not None:
            counts = an.balanced(part).value_counts()
            lines.append(f"{what}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    doc.p("In self-play (the same strategy in both seats) any systematic difference comes from the seats. "
          "A cell is 'balanced' when the 95% interval of the non-dealer's edge contains zero (one test per "
          "cell, without correction for multiple comparisons). Verdicts per cell — " + "; ".join(lines) + ".")
    png = _edge_figure(hself, gself, out / "first_mover_edge.png")
    measures = [m for m, part in (("points per hand", hself),
                                  ("game-win probability minus 50%, in percentage points", gself))
                if part is not None]
    where = " (left) and ".join(measures) + " (right)" if len(measures) == 2 else measures[0]
    figure(png, "First-mover edge in self-play",
           f"Edge of the non-dealer (who moves first) in each self-play cell, with 95% confidence intervals: "
           f"{where}. Right of the dashed line the non-dealer is favoured, left the dealer; red marks an "
           f"interval that excludes zero.")


def _tournaments(rr: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
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


def _round_robin_section(doc: _Doc, figure, manifest: dict[str, Any], kind: str, stats: pd.DataFrame,
                         out: Path) -> None:
    bases = _base_matchups(manifest, stats)
    if round_robin_strategies(list(zip(bases["base_a"], bases["base_b"]))) is None:
        return
    rr = stats.merge(bases, on="cell").drop(columns=["a", "b"]).rename(columns={"base_a": "a", "base_b": "b"})
    rr, group_cols = _tournaments(rr)
    if kind == "hands":
        value, header, fmt, scale, unit, count = "net_mean", "net points/hand vs the field", "+.3f", 1, "", "n_hands"
        cbar, center, cell_fmt = "net points per hand to the row strategy (points)", 0.0, "+.2f"
    else:
        value, header, fmt, scale, unit, count = ("win_prob", "game-win probability vs the field", ".1f", 100, "%",
                                                  "n_games")
        cbar, center, cell_fmt = "probability that the row strategy wins the game", 0.5, ".2f"
    doc.h(2, f"Round robin ({'single hands' if kind == 'hands' else 'whole games'})")
    rank = an.ranking(rr, value=value, by=group_cols or None)
    doc.p(f"Each strategy's mean result against every other strategy (each opponent weighted equally, both "
          f"seatings counted; B's result is A's seen from the other side), best first within each "
          f"{' / '.join(group_cols) or 'run'}, with 95% confidence intervals.")
    doc.table(_ranking_table(rank, value, header, fmt, scale, unit, count))
    tables = []
    groups = rr.groupby(group_cols, sort=False, dropna=False) if group_cols else [((), rr)]
    for gkey, g in groups:
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        label = ", ".join(f"{c}={_num(v) if c[:2] in ('a.', 'b.') else v}" for c, v in zip(group_cols, gkey))
        tables.append((label or "all cells", an.matrix(g, value=value)))
    n_groups = len(tables)
    tables = tables[:6]
    cut = f" Only the first 6 of {n_groups} groups are drawn." if n_groups > 6 else ""
    what = "net points per hand" if kind == "hands" else "game-win probability"
    png = _heatmap_figure(tables, f"Round robin: {what}", cbar, center, cell_fmt, out / f"heatmap_{kind}.png")
    figure(png, f"Round-robin heatmap ({kind})",
           f"Strategy × strategy: each square is the {cbar.split(' (')[0]} against the column strategy, "
           f"averaged over both seatings; one panel per {' / '.join(group_cols) or 'run'}. Blue favours the row "
           f"strategy, red the column strategy; grey squares were not played.{cut}")


def _side(key: str) -> str:
    return "A" if key.startswith("a.") else "B"


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text).strip("_")
