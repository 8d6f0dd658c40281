"""Writing a report: a document model rendered to Markdown and self-contained HTML,
matplotlib figures saved with ginsim's mark, and atomic file writes.

The public API other reports use (``ginsim report``, ``ginsim tune``, the strong players'
supplement):

* ``Document``: headings, paragraphs, lists, tables and figures, rendered by ``markdown()``
  and ``html(title)`` (sortable tables, plots embedded as base64 PNG data URIs, a table of
  contents with the anchors GitHub gives the headings);
* ``new_figure(width, height)``: a matplotlib ``Figure`` (Agg, no global pyplot state);
* ``save_figure(fig, path)``: the PNG, carrying the ``GENERATOR`` mark;
* ``written_by_ginsim(path)``: True for a file ginsim's reports wrote (they carry the mark),
  so a report only ever replaces another report, never a user's own file of the same name;
* ``atomic_write(path, text)``: a text file written whole or not at all.
"""

from __future__ import annotations

import base64
import html
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..run.rundir import GENERATOR, written_by_ginsim  # noqa: F401  (re-exported: the mark of report files)


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


def new_figure(width: float, height: float):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig


def save_figure(fig, path: Path) -> Path:
    fig.savefig(path, dpi=110, metadata={"Software": GENERATOR})
    return path


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all: a temporary file next to it,
    then one rename, so a reader never sees half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
