"""Writing a report: a document model rendered to Markdown and self-contained HTML,
matplotlib figures saved with ginsim's mark, and atomic file writes.

The public API other reports use (``ginsim report``, ``ginsim tune``, the strong players'
supplement):

* ``Document``: headings, paragraphs, lists, tables and figures, rendered by ``markdown()``
  and ``html(title)`` (sortable tables, plots embedded as base64 PNG data URIs, a table of
  contents with the anchors GitHub gives the headings).  The page reads on a phone: tables
  put their estimate columns right after the sticky key column and scroll sideways, every
  figure has a zoom to full size, and a tall figure folds away;
* ``findings_section(doc, findings)``: the "Findings" section every report opens with;
* ``new_figure(width, height)``: a matplotlib ``Figure`` (Agg, no global pyplot state);
* ``save_figure(fig, path)``: the PNG, carrying the ``GENERATOR`` mark;
* ``written_by_ginsim(path)``: True for a file ginsim's reports wrote (they carry the mark),
  so a report only ever replaces another report, never a user's own file of the same name;
* ``record_report(out, paths)`` and ``report_files(out)``: the record (``REPORT_RECORD``)
  of the files a report wrote, by exact name and sha256, and the files of ``out`` it
  vouches for.  Only those are ever replaced or removed: a user's copy of a report, a
  renamed figure or an edited report carries the mark but is not in the record;
* ``atomic_write(path, text)``: a text file written whole or not at all.
"""

from __future__ import annotations

import base64
import html
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..run.rundir import (  # noqa: F401  (re-exported: the mark of report files and their record)
    GENERATOR,
    REPORT_RECORD,
    file_sha256,
    report_files,
    seal,
    written_by_ginsim,
)


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
    # a figure shrunk to a narrow screen: its button (or a click on it) shows it at full size,
    # scrolling sideways in its frame, and back
    "document.querySelectorAll('figure').forEach(function(fig){var img=fig.querySelector('img'),"
    "btn=fig.querySelector('button.zoom');if(!img)return;img.title='click to zoom';"
    "var toggle=function(){var on=img.classList.toggle('zoom');if(btn){btn.setAttribute('aria-pressed',on);"
    "btn.textContent=on?'Fit to screen':'Zoom to full size';}};img.onclick=toggle;if(btn)btn.onclick=toggle;});"
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
    "figure{margin:1.5em 0}.frame{overflow-x:auto;max-width:100%}"
    "img{max-width:100%;height:auto;display:block;cursor:zoom-in}"
    "img.zoom{max-width:none;cursor:zoom-out}"
    "button.zoom{font:inherit;font-size:.85em;margin:0 0 .4em;padding:.2em .7em;border:1px solid #bbb;"
    "border-radius:4px;background:#f7f7f7;cursor:pointer}"
    "figcaption{font-style:italic;color:#444;max-width:900px}"
    # the first column (the row's key) stays in view while the rest of a wide table scrolls
    "th:first-child,td:first-child{position:sticky;left:0;z-index:1;background:#fff;"
    "box-shadow:inset -1px 0 0 #ccc}th:first-child{background:#f0f0f0;z-index:2}"
    "tbody tr:nth-child(even) td:first-child{background:#fafafa}"
    "@media (max-width:600px){body{padding:0 .6em;margin:.8em auto}h1{font-size:1.3em}"
    "table{font-size:0.78em}}"
    "@media (min-width:1000px){button.zoom{display:none}}"
)


#: a figure taller than this (pixels of its PNG) folds into a closed <details> element: a
#: one-row-per-cell chart of many cells would otherwise be thousands of pixels tall
TALL_PX = 1800


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) of a PNG, from its header."""
    with open(path, "rb") as handle:
        head = handle.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG file")
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


#: a cell holding an estimate with its interval, "+0.12 [+0.05, +0.19]" or "< 0.1% [0.02, 0.05]"
_INTERVAL = re.compile(r"\[[^\[\],]+,[^\[\],]+\]")


def estimate_columns_first(frame: pd.DataFrame) -> pd.DataFrame:
    """The table with its key column first (``strategy`` when it has one, else its first
    column) and its estimate columns (those holding an interval) right after it, so a
    narrow screen shows them before the rest."""
    if frame.shape[1] < 3:
        return frame
    first = "strategy" if "strategy" in frame.columns else frame.columns[0]
    rest = [c for c in frame.columns if c != first]
    estimates = [c for c in rest if frame[c].astype(str).str.contains(_INTERVAL).any()]
    return frame[[first, *estimates, *[c for c in rest if c not in estimates]]]


@dataclass
class Document:
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
                figure = f"![{title}]({path.name})\n\n*{caption}*"
                height = png_size(path)[1]
                out.append(figure if height <= TALL_PX else
                           f"<details><summary>{html.escape(_tall_summary(title, height))}</summary>\n\n{figure}"
                           f"\n\n</details>")
        return "\n\n".join(out) + "\n"

    def html(self, title: str) -> str:
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<meta name=\"generator\" content=\"{GENERATOR}\">"
                f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>\n"
                + self.html_body() + f"\n<script>{_SORT_JS}</script>\n</body></html>\n")

    def html_body(self) -> str:
        """The blocks as HTML elements, one a line (what ``html`` puts in the page's body)."""
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
                body.append(_html_figure(*block[1:]))
        return "\n".join(body)


def findings_section(doc: Document, findings: list[str], note: str | None = None) -> None:
    """The first section of every report, "Findings": its headline estimates, one item
    each with its 95% interval (``findings``), before anything about how the run was made.
    ``note`` replaces the sentence that introduces them."""
    doc.h(2, "Findings")
    doc.p(note or "The headline estimates, each with its 95% confidence interval in brackets; the sections "
                  "below give every cell, the figures and how the numbers were made.")
    if findings:
        doc.ul(findings)
    else:
        doc.p("No estimates: the run holds no rows.")


def _tall_summary(title: str, height: int) -> str:
    return f"{title}: a tall figure ({height:,} px), click here to show or hide it"


def _html_figure(path: Path, title: str, caption: str) -> str:
    """A figure scaled to the page, with a button (shown on narrow screens) that shows it
    at full size in a frame scrolling sideways; a tall one folds into closed <details>."""
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    width, height = png_size(path)
    figure = (f'<figure><button class="zoom" type="button" aria-pressed="false">Zoom to full size</button>'
              f'<div class="frame"><img alt="{html.escape(title, quote=True)}" width="{width}" height="{height}" '
              f'src="data:image/png;base64,{data}"></div><figcaption>{html.escape(caption)}</figcaption></figure>')
    if height <= TALL_PX:
        return figure
    return f'<details class="tall"><summary>{html.escape(_tall_summary(title, height))}</summary>{figure}</details>'


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


TEXT_COLUMNS = {"cell", "matchup", "variant", "strategy", "balance (self-play)", "A vs B", "group", "opponent", "verdict"}


def _md_table(frame: pd.DataFrame) -> str:
    head = "| " + " | ".join(_md_cell(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" if c in TEXT_COLUMNS else "---:" for c in frame.columns) + "|"
    rows = ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def _html_table(frame: pd.DataFrame, title: str = "table") -> str:
    """A sortable table in a horizontally scrolling wrapper; headers aligned like their
    cells; the estimate columns first after the key column, which stays in view as the
    rest scrolls; a long one folds into <details> (closed when very long)."""
    frame = estimate_columns_first(frame)
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


def new_figure(width: float, height: float):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig


def save_figure(fig, path: Path) -> Path:
    fig.savefig(path, dpi=110, metadata={"Software": GENERATOR})
    return path


def record_report(out: Path, paths: list[Path]) -> Path:
    """Record ``paths`` (files a report just wrote in ``out``) by name and sha256, keeping
    the entries of earlier reports whose files are still as they wrote them.  The record is
    sealed (``rundir.seal``): an edited record vouches for no file."""
    import json

    out = Path(out)
    files = {p.name: file_sha256(p) for p in report_files(out) if p.name != REPORT_RECORD}
    files.update({p.name: file_sha256(p) for p in paths})
    atomic_write(out / REPORT_RECORD, json.dumps(seal({"generator": GENERATOR, "files": dict(sorted(files.items()))}),
                                                 indent=1) + "\n")
    return out / REPORT_RECORD


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all: a temporary file next to it,
    then one rename, so a reader never sees half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)  # never through a link
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)  # left only when the write or the rename failed
