"""What ginsim writes to a terminal: text from data escaped, and output that any stream
can encode.

A run directory, an experiment file or a plug-in is data, and its text (a variant's name, a
strategy's label, a claim's statement) can hold control characters: an escape sequence
printed as is would drive the reader's terminal.  And a stream may encode only ASCII
(``LANG=C`` without UTF-8, a log opened as ASCII), where ``±`` or ``—`` would end the
command with a ``UnicodeEncodeError``.  ``terminal_streams`` deals with both for every
command at once: ``ginsim``'s ``main`` runs each command with ``sys.stdout`` and
``sys.stderr`` wrapped in a ``TerminalStream``, which escapes every control character but
newline, carriage return and tab (``printable``) and writes what the stream cannot encode
as its ASCII stand-in (``±`` as ``+/-``; anything else as a ``\\u`` escape).
"""

from __future__ import annotations

import codecs
import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

#: ASCII stand-ins for the characters ginsim's own output uses
ASCII = {"±": "+/-", "−": "-", "–": "-", "—": "--", "≤": "<=", "≥": ">=", "×": "x", "½": "1/2", "…": "...",
         "→": "->", "←": "<-", "·": ".", "°": " deg", "é": "e", "’": "'", "‘": "'", "“": '"', "”": '"',
         "♠": "s", "♥": "h", "♦": "d", "♣": "c", "█": "#", "▏": "|", "▎": "|", "▍": "|", "▌": "|", "▋": "|",
         "▊": "|", "▉": "|"}
ERRORS = "ginsim-ascii"


def _ascii_stand_in(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start:exc.end]
    return "".join(ASCII.get(ch, ch.encode("ascii", "backslashreplace").decode("ascii")) for ch in text), exc.end


codecs.register_error(ERRORS, _ascii_stand_in)

#: what may need escaping: anything outside printable ASCII but newline, carriage return and tab
_SUSPECT = re.compile(r"[^\x20-\x7e\n\r\t]")


def _escape(match: re.Match) -> str:
    ch = match.group()
    return ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")


def printable(text: str, keep_lines: bool = True) -> str:
    """``text`` with every character that is not printable (control characters, escape
    sequences, bidirectional overrides) shown escaped as in a Python string (``\\x1b``);
    newline, carriage return and tab are kept unless ``keep_lines`` is False (a label
    printed as one cell of a table)."""
    text = _SUSPECT.sub(_escape, str(text))
    if not keep_lines:
        text = text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return text


class TerminalStream:
    """A text stream that writes ``printable`` text, encoded with ASCII stand-ins where
    the stream's encoding cannot hold a character.  Everything else is the stream's own."""

    def __init__(self, stream: TextIO):
        self._stream = stream
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            self._encoding = codecs.lookup(encoding).name
        except LookupError:
            self._encoding = "ascii"

    def write(self, text: str) -> int:
        text = printable(text)
        if not self._encoding.startswith("utf"):
            text = text.encode(self._encoding, ERRORS).decode(self._encoding)
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def terminal_streams() -> Iterator[None]:
    """Run the body with ``sys.stdout`` and ``sys.stderr`` as ``TerminalStream``s (put back
    afterwards): every command's output escaped and encodable."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalStream(out), TerminalStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
