"""MkDocs hook: a page that shows a ``{name}`` field left unfilled fails the build.

A docstring or page that fills a ``str.format`` field at run time (``simulator.api``'s
column tables) would otherwise show the bare field, and a strict build would pass.  Text in
code (``<pre>``, ``<code>``), scripts and styles is not checked: a dict or a format string
there is code.  Broken links and anchors are mkdocs' own check (``validation`` in
``mkdocs.yml``, failing in strict mode).
"""

from __future__ import annotations

import re

from mkdocs.exceptions import PluginError

#: markup whose text is code, not prose
_CODE = re.compile(r"<(pre|code|script|style)\b.*?</\1>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
#: a ``str.format`` field left in prose: ``{hand_table}``
FIELD = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


def unfilled_fields(html: str) -> list[str]:
    """The ``{name}`` fields in the prose of a rendered page (code left out)."""
    return FIELD.findall(_TAG.sub(" ", _CODE.sub(" ", html)))


def on_page_content(html: str, page, config, files) -> str:
    fields = unfilled_fields(html)
    if fields:
        raise PluginError(f"{page.file.src_uri}: unfilled field(s) {', '.join(sorted(set(fields)))} in the page's "
                          "text (a docstring or page formatted at run time, shown as its source)")
    return html
