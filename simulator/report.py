"""The report of a run: ``write_report(run_dir)`` writes ``report.md``, a self-contained
``report.html`` (plots embedded as base64 PNG data URIs) and the PNG plots.

It reads ``RUN/manifest.json`` and streams the verified files of ``RUN/data`` (hands) and
``RUN/games`` (games) through ``simulator.analysis.scan_run``: one file at a time, only the
columns the statistics need, reduced to per-cell moments and histograms of hand length, so
its memory grows with the number of cells, not rows.  The numbers come from
``simulator.analysis`` (intervals: see its docstring); every figure is drawn from per-cell
statistics or those histograms.

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
    """The hand rows and the game rows of a run loaded whole (``None`` when there are none;
    the report itself streams them, ``analysis.scan_run``), reading only
    the columns the report needs from the run's verified chunk files (``files``: mode →
    paths, as ``rundir.verify_run`` gives them; by default the run is verified here and
    refused when incomplete or damaged).  With ``labels=False`` the string labels (matchup,
    a, b, variant) are left out — ``cell`` and the swept values stay — which saves memory on
    big runs (the manifest has the labels)."""
    import pyarrow.parquet as pq

    from .run.rundir import readable_run

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

def slug(text: str, taken: dict[str, int] | None = None) -> str:
    """The anchor GitHub gives a Markdown heading (lower case, punctuation dropped,
    spaces to hyphens; a repeated one gets ``-1``, ``-2``...), so the report's table of
    contents works in report.md on GitHub and in report.html alike.

    >>> slug("Balance: does the first mover have an edge?")
    'balance-does-the-first-mover-have-an-edge'
    """
    base = "".join(ch for ch in text.lower() if ch.isalnum() or ch in " -_").replace(" ", "-")
    if taken is None:
        return base
    n = taken.get(base, 0)
    taken[base] = n + 1
    return base if n == 0 else f"{base}-{n}"


#: tables with more rows than this fold into a <details> element in the HTML report
FOLD_ROWS = 12
#: ... which starts closed above this many rows
CLOSED_ROWS = 40

#: click a column header to sort the table by it: numbers by value (the first number in the
#: cell, so an estimate sorts by its point value), text columns (class "l") alphabetically
_SORT_JS = (
    "document.querySelectorAll('table.sortable th').forEach(function(th){"
    "th.title='click to sort';th.onclick=function(){"
    "var body=th.closest('table').tBodies[0],i=th.cellIndex,text=th.classList.contains('l'),"
    "dir=th.dataset.dir==='asc'?'desc':'asc';"
    "var key=function(row){var s=row.cells[i].textContent.replace(/,/g,''),"
    "m=s.match(/[+\\-]?\\d+(\\.\\d+)?/);return text||!m?s:parseFloat(m[0]);};"
    "var rows=Array.from(body.rows);rows.sort(function(x,y){var p=key(x),q=key(y),"
    "c=(typeof p==='number'&&typeof q==='number')?p-q:String(p).localeCompare(String(q),undefined,{numeric:true});"
    "return dir==='asc'?c:-c;});rows.forEach(function(r){body.appendChild(r);});"
    "th.closest('tr').querySelectorAll('th').forEach(function(h){delete h.dataset.dir;});"
    "th.dataset.dir=dir;};});"
    # a figure shrunk to a narrow screen: click (tap) it to see it at full size, scrolling sideways
    "document.querySelectorAll('figure img').forEach(function(img){img.title='click to zoom';"
    "img.onclick=function(){img.classList.toggle('zoom');};});"
)

_STYLE = (
    "*{box-sizing:border-box}"
    "body{font-family:system-ui,sans-serif;max-width:1200px;margin:1.5em auto;padding:0 1em;color:#222;"
    "line-height:1.45}"
    "h1{font-size:1.6em;overflow-wrap:anywhere}h2{margin-top:2em;border-bottom:1px solid #ddd}"
    "li,p{overflow-wrap:anywhere}"
    "nav.toc{background:#f7f7f7;border:1px solid #e3e3e3;padding:.4em 1em;margin:1em 0;display:inline-block;"
    "max-width:100%}nav.toc ul{margin:.2em 0;padding-left:1.2em}nav.toc>p{margin:.3em 0;font-weight:600}"
    ".scroll{overflow-x:auto;max-width:100%;margin:1em 0}"
    "table{border-collapse:collapse;font-size:0.85em}"
    "th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}"
    "th{background:#f0f0f0;vertical-align:bottom;position:relative;cursor:pointer}"
    "th[data-dir=asc]::after{content:' \\25B2'}th[data-dir=desc]::after{content:' \\25BC'}"
    "th.l,td.l{text-align:left}tbody tr:nth-child(even){background:#fafafa}"
    "details{margin:1em 0}summary{cursor:pointer;color:#0550ae}"
    "figure{margin:1.5em 0;overflow-x:auto}img{max-width:100%;height:auto;display:block;cursor:zoom-in}"
    "img.zoom{max-width:none;cursor:zoom-out}"
    "figcaption{font-style:italic;color:#444;max-width:900px}"
    "@media (max-width:600px){body{padding:0 .6em;margin:.8em auto}h1{font-size:1.3em}"
    "table{font-size:0.78em}}"
)


@dataclass
class _Doc:
    """Blocks rendered to both Markdown and HTML: ("h", level, text), ("p", text),
    ("ul", items), ("table", frame of strings, title), ("fig", path, title, caption) and
    ("toc",), where the table of contents of the level-2 and level-3 headings goes."""

    blocks: list[tuple[Any, ...]] = field(default_factory=list)

    def h(self, level: int, text: str) -> None:
        self.blocks.append(("h", level, text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def ul(self, items: list[str]) -> None:
        self.blocks.append(("ul", items))

    def table(self, frame: pd.DataFrame, title: str = "table") -> None:
        self.blocks.append(("table", frame, title))

    def fig(self, path: Path, title: str, caption: str) -> None:
        self.blocks.append(("fig", path, title, caption))

    def toc(self) -> None:
        self.blocks.append(("toc",))

    def headings(self) -> list[tuple[int, str, str]]:
        """(level, text, anchor) of every heading, anchors as GitHub makes them."""
        taken: dict[str, int] = {}
        return [(b[1], b[2], slug(b[2], taken)) for b in self.blocks if b[0] == "h"]

    def _toc_entries(self) -> list[tuple[int, str, str]]:
        return [(level, text, anchor) for level, text, anchor in self.headings() if level in (2, 3)]

    def markdown(self) -> str:
        out: list[str] = [f"<!-- generated by {GENERATOR}; rerun it to replace this file -->"]
        for block in self.blocks:
            kind = block[0]
            if kind == "h":
                out.append("#" * block[1] + " " + block[2])
            elif kind == "toc":
                entries = self._toc_entries()
                if entries:
                    out.append("**Contents**\n\n" + "\n".join(
                        f"{'  ' * (level - 2)}- [{text}](#{anchor})" for level, text, anchor in entries))
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
        anchors = iter(self.headings())
        for block in self.blocks:
            kind = block[0]
            if kind == "h":
                _, text, anchor = next(anchors)
                body.append(f'<h{block[1]} id="{anchor}">{html.escape(text)}</h{block[1]}>')
            elif kind == "toc":
                body.append(_html_toc(self._toc_entries()))
            elif kind == "p":
                body.append(f"<p>{html.escape(block[1])}</p>")
            elif kind == "ul":
                body.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in block[1]) + "</ul>")
            elif kind == "table":
                body.append(_html_table(block[1], block[2]))
            elif kind == "fig":
                _, path, ftitle, caption = block
                data = base64.b64encode(path.read_bytes()).decode("ascii")
                body.append(f'<figure><img alt="{html.escape(ftitle, quote=True)}" '
                            f'src="data:image/png;base64,{data}"><figcaption>{html.escape(caption)}'
                            f"</figcaption></figure>")
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<meta name=\"generator\" content=\"{GENERATOR}\">"
                f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>\n"
                + "\n".join(body) + f"\n<script>{_SORT_JS}</script>\n</body></html>\n")


def _html_toc(entries: list[tuple[int, str, str]]) -> str:
    if not entries:
        return ""
    out, depth = ['<nav class="toc" aria-label="Contents"><p>Contents</p><ul>'], 2
    first = True
    for level, text, anchor in entries:
        if level > depth:
            out.append("<ul>")
        elif level < depth:
            out.append("</li></ul></li>")
        elif not first:
            out.append("</li>")
        depth, first = level, False
        out.append(f'<li><a href="#{anchor}">{html.escape(text)}</a>')
    out.append("</li>" + ("</ul></li>" if depth == 3 else "") + "</ul></nav>")
    return "".join(out)


def _md_cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


TEXT_COLUMNS = {"cell", "matchup", "variant", "strategy", "balance (self-play)"}


def _md_table(frame: pd.DataFrame) -> str:
    head = "| " + " | ".join(_md_cell(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" if c in TEXT_COLUMNS else "---:" for c in frame.columns) + "|"
    rows = ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def _html_table(frame: pd.DataFrame, title: str = "table") -> str:
    """A sortable table in a horizontally scrolling wrapper; headers aligned like their
    cells; a long one folds into <details> (closed when very long)."""
    left = [c in TEXT_COLUMNS for c in frame.columns]
    head = "".join(f'<th class="l" scope="col">{html.escape(str(c))}</th>' if lf else
                   f'<th scope="col">{html.escape(str(c))}</th>' for c, lf in zip(frame.columns, left))
    rows = "".join("<tr>" + "".join(f'<td class="l">{html.escape(str(v))}</td>' if lf else
                                    f"<td>{html.escape(str(v))}</td>" for v, lf in zip(row, left)) + "</tr>"
                   for row in frame.itertuples(index=False))
    table = (f'<div class="scroll"><table class="sortable"><thead><tr>{head}</tr></thead><tbody>{rows}'
             f"</tbody></table></div>")
    if len(frame) <= FOLD_ROWS:
        return table
    state = "" if len(frame) > CLOSED_ROWS else " open"
    return (f"<details{state}><summary>{html.escape(title)}: {len(frame):,} rows (click here to show or hide "
            f"it; click a column header to sort)</summary>{table}</details>")


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
    from .run.experiment import format_value

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
        from .run.experiment import _with_params  # how the runner names a swept strategy
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


def _errorbar_by_cell(stats: pd.DataFrame, column: str, xlabel: str, title: str, path: Path,
                      reference: float, scale: float = 1.0) -> tuple[Path, str]:
    """Horizontal points with interval bars: one row per matchup (with swept values), one
    colour per variant, rows sorted by effect (largest first).  Rows far from the rest
    (``split_outliers``) get a panel of their own below, on their own scale.  Returns the
    PNG and a sentence for the caption about that panel (or "")."""
    low_name, high_name = an.ci_columns(column)
    variants = list(dict.fromkeys(stats["variant"])) if "variant" in stats else [""]
    if len(variants) > 4:  # too many colours: one row per cell instead
        rows = stats.assign(_row=[_cell_label(r) for _, r in stats.iterrows()], variant="")
        variants = [""]
    else:
        rows = stats.assign(_row=[_short(r["matchup"]) for _, r in stats.iterrows()])
    effect = (rows[column].astype(float) * scale).groupby(rows["_row"], sort=False).mean()
    effect = effect.sort_values(ascending=False, kind="stable")
    far = pd.Series(split_outliers(effect.to_numpy()), index=effect.index)
    groups = [list(effect.index[~far.to_numpy()])]
    if far.any():
        groups.append(list(effect.index[far.to_numpy()]))
    colors = _variant_colors(variants)
    heights = [max(len(g), 1) for g in groups]
    fig = _figure(9.0, max(2.6, 0.42 * sum(heights) + 1.6 + 0.9 * (len(groups) - 1)))
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
        axes[1].set_title(f"Far from the rest, on their own scale ({_plural(len(far_rows), 'row')})", fontsize=9)
        note = (f" Rows far from the rest ({', '.join(far_rows[:3])}{', …' if len(far_rows) > 3 else ''}) are "
                f"drawn in a separate panel below, on their own x axis, so that the differences between the other "
                f"rows stay visible.")
    if len(variants) > 1:
        axes[0].legend(title="variant", fontsize=8, loc="best")
    return _save(fig, path), note


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


def _sweep_figure(stats: pd.DataFrame, bases: pd.DataFrame, key: str, column: str, ylabel: str, title: str,
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
    fig = _figure(4.2 * ncols + 0.6, 3.3 * nrows + 0.5)
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
                        label=f"{_short(names, 45)}\npooled: no difference (χ² test, p = {p_value:.2f})")
            merged_any = True
            n_curves = 2  # always explain the pooled curve in a legend
        else:
            n_curves = 0
            for j, (gkey, g) in enumerate(curves):
                g = g.sort_values(key)
                x = g[key].to_numpy(float)
                v = g[column].to_numpy(float) * scale
                err = np.vstack([v - g[low_name].to_numpy(float) * scale, g[high_name].to_numpy(float) * scale - v])
                label = str(gkey[0]) + "".join(f", {k}={_num(val)}" for k, val in zip(others, gkey[1:])
                                               if pd.notna(val))
                ax.errorbar(x, v, yerr=np.nan_to_num(np.maximum(err, 0)), marker=markers[j % len(markers)],
                            capsize=3, color=colors[gkey[0]], label=_short(label, 30), ls="-" if j < 10 else ":")
                n_curves += 1
        if reference is not None:
            ax.axhline(reference, color="#444", lw=0.8, ls="--")
        ax.set_title(_short(matchup, 40), fontsize=9)
        ax.set_xlabel(f"{key} (swept parameter value)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        if n_curves > 1:
            ax.legend(fontsize=7, title=None if pooled is not None else "variant", title_fontsize=7)
    for ax in axes[len(shown):]:
        ax.set_visible(False)
    fig.suptitle(title)
    return _save(fig, path), len(matchups), merged_any


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
            labels.setdefault(r["cell"], _cell_label(r))
    fig = _figure(5.0 * len(panels) + 2.8, max(2.6, 0.38 * len(cells) + 1.6))
    axes = np.atleast_1d(fig.subplots(1, len(panels), sharey=True, squeeze=False)).ravel()
    for ax, (part, column, xlabel, scale, panel_title) in zip(axes, panels):
        ax.set_title(panel_title, fontsize=9)
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


def _hand_length_figure(draws: dict[int, np.ndarray], stats: pd.DataFrame, path: Path) -> tuple[Path, str]:
    """Hand length from each cell's histogram of draws (``analysis.RunScan.draws``: the
    whole distribution, counted while the run was scanned)."""
    labels = {int(r["cell"]): _cell_label(r) for _, r in stats.iterrows()}
    cells = sorted(c for c in labels if c in draws)
    if len(labels) <= 3:
        fig = _figure(9.0, 4.2)
        ax = fig.subplots()
        size = max(len(draws[c]) for c in cells)
        pooled = sum(np.pad(draws[c], (0, size - len(draws[c]))) for c in cells)
        top = int(an.histogram_percentiles(pooled, [99.9])[0]) + 1
        for cell in cells:
            counts = np.pad(draws[cell], (0, max(0, top + 1 - len(draws[cell]))))[: top + 1]
            ax.step(np.arange(top + 1), counts / max(int(draws[cell].sum()), 1) * 100, where="mid",
                    label=_short(labels[cell], 60))
        ax.set_xlabel("cards drawn in the hand by both players (draws)")
        ax.set_ylabel("share of hands (%)")
        ax.legend(fontsize=7)
        kind = "the share of hands ending after each number of draws (both players' draws, pile takes included)"
    else:
        fig = _figure(9.5, max(3.0, 0.36 * len(labels) + 1.6))
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
    return _save(fig, path), kind


def _heatmap_figure(tables: list[tuple[str, pd.DataFrame, pd.DataFrame | None, pd.DataFrame | None]], title: str,
                    cbar_label: str, center: float, fmt: str, path: Path) -> Path:
    """Strategy × strategy panels: each square shows its value and, under it, the half-width
    of its 95% interval (1.96 × se from ``analysis.matrix_se``); a square whose interval
    contains ``center`` (no detectable advantage) gets a dashed frame.  A probability of 0 or 1
    with no spread (one side won every game) shows its Wilson interval over the units behind
    it (the fourth table) instead of a meaningless ±0."""
    # one order for every panel: best mean result first
    score = pd.concat([t.where(~np.eye(len(t), dtype=bool)).mean(axis=1) for _, t, *_ in tables],
                      axis=1).mean(axis=1)
    order = list(score.sort_values(ascending=False, kind="stable").index)
    def ordered(table: pd.DataFrame | None) -> pd.DataFrame | None:
        return None if table is None else table.reindex(index=order, columns=order)

    tables = [(name, ordered(t), ordered(se), ordered(units)) for name, t, se, units in tables]
    n = len(tables)
    ncols = min(2, n)
    nrows = math.ceil(n / ncols)
    size = max(len(t) for _, t, *_ in tables)
    side = max(4.2, 0.8 * size + 2.6)
    fig = _figure(side * ncols + 0.8, side * nrows * 0.85 + 0.3)
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
    for ax, (name, table, se, units) in zip(axes, tables):
        m = table.to_numpy(float)
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
                    if abs(m[i, j] - center) <= half[i, j]:  # the interval contains the centre
                        any_dashed = True
                        ax.add_patch(Rectangle((j - 0.44, i - 0.44), 0.88, 0.88, fill=False, ls=(0, (3, 2)),
                                               lw=1.0, edgecolor="#222" if not dark else "white"))
                else:
                    ax.text(j, i, format(m[i, j], fmt), ha="center", va="center", fontsize=8, color=color)
        ax.set_xticks(range(m.shape[1]), [_short(c, 22) for c in table.columns], rotation=35, ha="right",
                      fontsize=8)
        ax.set_yticks(range(m.shape[0]), [_short(r, 22) for r in table.index], fontsize=8)
        ax.set_xlabel("opponent")
        ax.set_ylabel("strategy")
        ax.set_title(_short(name, 50), fontsize=9)
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
        note += f"; dashed frame: the interval contains {format(center, 'g')} (no detectable advantage)"
    fig.supxlabel(note, fontsize=8, color="#333")  # inside the layout: never over the axis labels
    if symlog:  # plain numbers on a 1-2-5 ladder instead of powers of ten
        ladder = [m * 10.0**k for k in range(-4, 5) for m in (1, 2, 5) if typical / 2 <= m * 10.0**k <= span]
        ladder = ladder[::max(1, math.ceil(len(ladder) / 4))]
        ticks = sorted({center, *(center + t for t in ladder), *(center - t for t in ladder)})
        bar.set_ticks(ticks, labels=[format(t, "g") for t in ticks])
    fig.suptitle(title)
    return _save(fig, path)


# ----------------------------------------------------------------------------- tables

def _hand_tables(stats: pd.DataFrame, self_only: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
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


def _game_table(stats: pd.DataFrame, self_only: bool = False) -> pd.DataFrame:
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

def _defences(manifest: dict[str, Any]) -> dict[str, str]:
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


def _header(doc: _Doc, manifest: dict[str, Any], run_dir: Path) -> None:
    exp = manifest.get("experiment", {})
    name = exp.get("name", run_dir.name)
    doc.h(1, f"ginsim report: {name}")
    if exp.get("description"):
        doc.p(str(exp["description"]))
    doc.toc()
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
    by_defence: dict[str, list[str]] = {}
    for name, defence in _defences(manifest).items():
        by_defence.setdefault(defence, []).append(name)
    if by_defence:
        items.append("Defence after a knock (docs/rules.md#laying-out-and-laying-off): "
                     + "; ".join(f"{', '.join(names)}: {d}" for d, names in by_defence.items()))
    items.append(f"Git commit: {manifest.get('git_commit') or 'unknown'}; code fingerprint "
                 f"{manifest.get('code_fingerprint', 'unknown')}; run id {manifest.get('run_id', 'unknown')}")
    items.append("Versions: " + (", ".join(f"{k} {v}" for k, v in versions.items()) or "unknown"))
    doc.ul(items)
    doc.p("Intervals are 95% confidence intervals. With mirrored deals the two deals (or games) of a pair "
          "share a deck with the seats swapped, so each pair is one independent unit: values are averaged "
          "within the pair and the Student t interval is taken over the pair means (over single rows "
          "without mirroring; Wilson score intervals for unpaired proportions and for a share that is 0% or "
          "100% in every unit, which a t interval would shrink to a point; delta-method intervals for ratios "
          "such as mean deadwood). 'units' is the number of independent units behind each row. "
          "The first mover is the non-dealer; a hand or game without a winner counts half to each side.")


def write_report(run_dir: str | Path, out_dir: str | Path | None = None) -> list[Path]:
    """Write ``report.md``, ``report.html`` (self-contained) and the PNG plots of a run into
    ``out_dir`` (default: the run directory); return the paths written (md, html, PNGs).

    The run must be complete and intact (``rundir.readable_run``).  Files are made in a
    staging folder and moved in only when all are ready; a file of the same name that
    ``ginsim report`` did not write is never replaced (``RunError`` names it)."""
    import shutil
    import tempfile

    from .run.rundir import RunError, readable_run, run_path

    run_dir = run_path(run_dir)
    manifest, verification = readable_run(run_dir)
    if not verification.good["deals"] and not verification.good["games"]:
        raise RunError(f"{run_dir}: the run holds no rows to report")
    out = run_path(out_dir) if out_dir is not None else run_dir
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
    scan = an.scan_run(run_dir, files=files, manifest=manifest)  # streamed: memory bounded by cells
    doc = _Doc()
    _header(doc, manifest, run_dir)
    pngs: list[Path] = []

    def figure(path: Path, title: str, caption: str) -> None:
        pngs.append(path)
        doc.fig(path, title, caption)

    mirrored = bool(manifest.get("experiment", {}).get("mirrored", True))
    hstats = _attach_labels(scan.hands, labels) if scan.hands is not None else None
    gstats = _attach_labels(scan.games, labels) if scan.games is not None else None
    # only self-play: A's result is zero in expectation by construction, the seats are the question
    self_only = all(s is None or ({"a", "b"} <= set(s.columns) and bool((s["a"] == s["b"]).all()))
                    for s in (hstats, gstats))
    if self_only:
        _balance_section(doc, figure, hstats, gstats, out, lead=True)
    if hstats is not None:
        _hands_section(doc, figure, manifest, scan.draws, hstats, out, mirrored, self_only)
    if gstats is not None:
        _games_section(doc, figure, manifest, gstats, out, mirrored, self_only)
    if not self_only:
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
                   what: str, prefix: str, reference: float | None, scale: float = 1.0,
                   merge_alike: bool = False, reference_text: str = "") -> None:
    bases = _base_matchups(manifest, stats)
    for key in an.sweep_columns(stats):
        png, n_matchups, merged = _sweep_figure(stats, bases, key, column, ylabel,
                                                f"{what[0].upper()}{what[1:]} against {_side(key)}'s {key[2:]}",
                                                out / f"{prefix}_{_slug(key)}.png", reference, scale, merge_alike)
        cut = f" Only the first {MAX_PANELS} of {n_matchups} matchups are drawn." if n_matchups > MAX_PANELS else ""
        alike = (" Where the rule variants' curves do not differ (a chi-square test of homogeneity over every "
                 "swept value does not reject equality at the 5% level, as when variants differ only in "
                 "scoring), one pooled curve, their inverse-variance weighted mean, is drawn instead of several "
                 "on top of each other; its legend says so.") if merged else ""
        figure(png, f"{what[0].upper()}{what[1:]} against {key}",
               f"{what[0].upper()}{what[1:]} against the swept value of {key}, one panel per matchup and one "
               f"curve per rule variant, with 95% confidence intervals.{reference_text}{alike}{cut}")


def _swept(stats: pd.DataFrame) -> pd.Series:
    """Cells that take at least one swept parameter (a sweep may skip some matchups)."""
    keys = an.sweep_columns(stats)
    return stats[keys].notna().any(axis=1) if keys else pd.Series(False, index=stats.index)


def _hands_section(doc: _Doc, figure, manifest: dict[str, Any], draws: dict[int, np.ndarray], hstats: pd.DataFrame,
                   out: Path, mirrored: bool, self_only: bool = False) -> None:
    keys = an.sweep_columns(hstats)
    # with many cells, swept cells are drawn against the swept value, the rest one row per cell
    many = len(hstats) > MAX_ROWS and bool(keys)
    swept = _swept(hstats)
    rest = hstats[~swept] if many else hstats
    doc.h(2, "Single hands")
    units = "mirrored pairs" if mirrored else "hands"
    if len(rest) and not self_only:
        png, note = _errorbar_by_cell(rest, "net_mean", "net points per hand to A (points; A's minus B's)",
                                      "Net points per hand to strategy A, 95% intervals", out / "net_points.png", 0.0)
        figure(png, "Net points per hand to A",
               f"Mean points per hand won by strategy A minus those won by B, one point per cell"
               f"{' without a swept parameter' if many else ''}, with 95% confidence intervals over "
               f"{_span(rest)} {units} per cell, largest first. Right of the dashed line A gains points on "
               f"average.{note}")
    if keys:
        _sweep_figures(figure, manifest, hstats, out, "net_mean", "net points per hand to A (points)",
                       "net points per hand to A", "sweep", 0.0,
                       reference_text=" Above the dashed line A gains points on average.")
    results, play = _hand_tables(hstats, self_only)
    doc.h(3, "Results per cell, single hands")
    doc.p("Point estimate with its 95% confidence interval in brackets; 'units' are the independent units "
          "behind it. 'first-mover edge' is the points per hand to the non-dealer (who moves first), "
          "whichever strategy it is."
          + (" Net points to A are left out: with the same strategy in both seats they are zero in "
             "expectation by construction." if self_only else ""))
    doc.table(results, "Results per cell, single hands")
    doc.h(3, "How hands end")
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
    doc.p("Shares of all hands (gin and big gin together make the gin rate); 'undercuts per knock' is "
          "undercuts / (knocks + undercuts); deadwood is the mean over hands that were not cancelled (the "
          "defender's after layoffs).")
    doc.table(play, "How hands end")
    if many:
        _sweep_figures(figure, manifest, hstats, out, "draws_mean", "cards drawn per hand (draws)",
                       "mean hand length", "hand_length", None, merge_alike=True)
    if len(rest):
        png, kind = _hand_length_figure({c: draws[c] for c in rest["cell"] if c in draws}, rest,
                                        out / "hand_length.png")
        figure(png, "Hand length", f"Hand length: {kind}{' (cells without a swept parameter)' if many else ''}.")


def _games_section(doc: _Doc, figure, manifest: dict[str, Any], gstats: pd.DataFrame, out: Path,
                   mirrored: bool, self_only: bool = False) -> None:
    keys = an.sweep_columns(gstats)
    many = len(gstats) > MAX_ROWS and bool(keys)
    rest = gstats[~_swept(gstats)] if many else gstats
    doc.h(2, "Whole games")
    if len(rest) and not self_only:
        png, note = _errorbar_by_cell(rest, "win_prob", "probability that A wins the game (%)",
                                      "A's game-win probability, 95% intervals", out / "game_win.png", 50.0,
                                      scale=100)
        figure(png, "Game-win probability",
               f"Probability that strategy A wins a whole game, per cell{' without a swept parameter' if many else ''}"
               f", with 95% confidence intervals over {_span(rest)} "
               f"{'mirrored pairs of games' if mirrored else 'games'} per cell, largest first. The dashed line is "
               f"an even game.{note}")
    if keys:
        _sweep_figures(figure, manifest, gstats, out, "win_prob", "probability that A wins the game (%)",
                       "A's game-win probability", "sweep_games", 50.0, 100,
                       reference_text=" The dashed line is an even game.")
    doc.h(3, "Results per cell, whole games")
    doc.p("Point estimate with its 95% confidence interval in brackets; margin is A's final score minus "
          "B's (game, box and shutout bonuses included); the first-mover edge is the game-win probability "
          "of the player who did not deal first, minus 50%, in percentage points."
          + (" A's game-win probability and margin are left out: with the same strategy in both seats they "
             "are 50% and zero in expectation by construction." if self_only else ""))
    doc.table(_game_table(gstats, self_only), "Results per cell, whole games")


def _balance_section(doc: _Doc, figure, hstats: pd.DataFrame | None, gstats: pd.DataFrame | None,
                     out: Path, lead: bool = False) -> None:
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
    if lead:
        doc.p("Every cell of this run is self-play, so this comes first: A's net points and win rate are zero "
              "(50%) in expectation by construction and are not drawn.")
    png = _edge_figure(hself, gself, out / "first_mover_edge.png")
    measures = [m for m, part in (("points per hand", hself),
                                  ("game-win probability minus 50%, in percentage points", gself))
                if part is not None]
    where = " (left) and ".join(measures) + " (right)" if len(measures) == 2 else measures[0]
    figure(png, "First-mover edge in self-play",
           f"Edge of the non-dealer (who moves first) in each self-play cell, with 95% confidence intervals: "
           f"{where}, largest first. Right of the dashed line the non-dealer is favoured, left the dealer; "
           f"red marks an interval that excludes zero.")


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
    doc.table(_ranking_table(rank, value, header, fmt, scale, unit, count), f"Ranking ({kind})")
    tables = []
    groups = rr.groupby(group_cols, sort=False, dropna=False) if group_cols else [((), rr)]
    for gkey, g in groups:
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        label = ", ".join(f"{c}={_num(v) if c[:2] in ('a.', 'b.') else v}" for c, v in zip(group_cols, gkey))
        units = an.matrix(g, value="n_units").abs() if "n_units" in g.columns else None
        tables.append((label or "all cells", an.matrix(g, value=value), an.matrix_se(g, value=value), units))
    n_groups = len(tables)
    tables = tables[:6]
    cut = f" Only the first 6 of {n_groups} groups are drawn." if n_groups > 6 else ""
    what = "net points per hand" if kind == "hands" else "game-win probability"
    png = _heatmap_figure(tables, f"Round robin: {what}", cbar, center, cell_fmt, out / f"heatmap_{kind}.png")
    figure(png, f"Round-robin heatmap ({kind})",
           f"Strategy × strategy: each square is the {cbar.split(' (')[0]} against the column strategy, "
           f"averaged over both seatings, with the half-width of its 95% confidence interval under it"
           f"{' (the whole Wilson interval where one side won every game)' if kind == 'games' else ''}; one "
           f"panel per {' / '.join(group_cols) or 'run'}. Blue favours the row strategy, red the column strategy; "
           f"a dashed frame marks a square whose interval contains {format(center, 'g')} (no detectable "
           f"advantage); grey squares were not played.{cut}")


def _side(key: str) -> str:
    return "A" if key.startswith("a.") else "B"


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text).strip("_")
