"""Griffe extension for the API reference: a docstring's doctest examples (``>>>`` lines and
the output under them) are shown as Python console code blocks, not as Markdown quotes.

The docstrings stay plain doctest, which ``pytest --doctest-modules`` runs; only their
rendering on the docs site changes.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """``text`` with each run of doctest lines (a ``>>>`` line, its ``...`` continuations and
    the output up to the next blank line) wrapped in a ```` ```pycon ```` fence."""
    out: list[str] = []
    indent = None  # the indentation of the example's first ">>>" line, removed inside the fence
    for line in text.splitlines():
        if indent is None and line.lstrip().startswith(">>>"):
            indent = len(line) - len(line.lstrip())
            if out and out[-1].strip():
                out.append("")  # a fence starts its own block
            out.append("```pycon")
        elif indent is not None and not line.strip():
            out.append("```")
            indent = None
        if indent is None:
            out.append(line)
        else:  # output indented less than its ">>>" line keeps only its own text
            out.append(line[indent:] if not line[:indent].strip() else line.strip())
    if indent is not None:
        out.append("```")
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
