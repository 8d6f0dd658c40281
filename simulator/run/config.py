"""The declarative config layer: every key of an experiment file and of a tuning spec is one
``Key`` (its type, default, range or choices, and a one-line help), and everything about keys
is derived from these declarations:

* validation and its one-line errors (``Schema.read``: ``FILE: KEY: must be ALLOWED, got
  VALUE``, where ALLOWED is the key's allowed values in words, ``Key.allowed``);
* the key tables of docs/experiments.md and docs/tuning.md (``Schema.markdown``, written
  between ``<!-- keys:NAME:begin -->`` and ``<!-- keys:NAME:end -->`` by
  ``python -m simulator.run.docs_tables`` and ``python -m simulator.studies.tune.docs_tables``
  (``main`` here); ``--check`` exits 1 when a page is stale, and ``tests/test_config.py`` runs
  both checks);
* the command line's help for the options that override a key (``Key.help``).

The schemas themselves are declared where they are read: ``simulator.run.experiment.SCHEMA``
and ``simulator.studies.tune.spec.SCHEMA`` (with its sub-tables).  A key whose value needs
more than a type and a range (a list of matchups, a table of rule variants) carries a
``check``: a function of (value, the values read so far, ``fail``) that returns the value
to keep.  Checks between keys that no single key can make stay in the parser.

``plugins_key`` is the ``[plugins]`` block both formats share: each entry a file registered
as a strategy (``strategies.register``) relative to the file's folder.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..infra.inputs import allowed_words, is_int, is_number, value_problem  # noqa: F401  (is_*: re-exported)
from .limits import SEED_LIMIT, SEED_TEXT


class _Required:
    def __repr__(self) -> str:
        return "required"


#: the default of a key that must be given
REQUIRED: Any = _Required()

#: names become directory names: letters, digits, ``_``, ``-`` and ``.``, not first
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
#: the allowed names in words
NAME_TEXT = "letters, digits, '_', '-' or '.', starting with a letter or digit"

#: the types of ``Key.kind``: how each is checked, and how docs name it
KINDS = {
    "int": "integer",
    "number": "number",
    "bool": "boolean",
    "str": "string",
    "name": "string",
    "choice": "string",
    "table": "table",
    "list": "list",
    "any": "value",
}

Fail = Callable[[str, str], Exception]


@dataclass(frozen=True)
class Key:
    """One key of a config file.

    ``kind`` is one of ``KINDS``; ``low``/``high`` bound an ``int`` or ``number`` (``gt``:
    strictly above), ``choices`` list a ``choice``'s values.  A key whose default is None
    may be left out (its check then sees None; a None given is checked as any value).  ``text`` replaces the derived words for the
    allowed values (``allowed``); ``got`` says whether an error quotes the value given.
    ``help`` is the one-line help (the command line's, and the docs table's first
    sentence); ``doc`` adds what the docs table says beyond it.  ``check(value, values,
    fail)`` validates what the type cannot and returns the value to keep.  ``type_text``
    and ``default_text`` replace the docs table's type and default columns."""

    name: str
    kind: str
    default: Any = REQUIRED
    help: str = ""
    low: float | None = None
    high: float | None = None
    gt: float | None = None
    choices: tuple[Any, ...] = ()
    text: str | None = None
    got: bool = True
    check: Callable[[Any, dict[str, Any], Fail], Any] | None = None
    doc: str = ""
    type_text: str | None = None
    default_text: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"key {self.name!r}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")

    @property
    def allowed(self) -> str:
        """The allowed values in words, as errors and docs say them."""
        if self.text is not None:
            return self.text
        if self.kind in ("int", "number", "bool", "str"):
            return allowed_words(self.kind, self.low, self.high, self.gt)
        if self.kind == "choice":
            return "one of " + ", ".join(map(str, self.choices))
        if self.kind == "name":
            return NAME_TEXT
        return {"table": "a table", "list": "a list"}.get(self.kind, "a value")

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` by this key's type, range or choices (None: nothing)."""
        kind = self.kind
        if kind in ("int", "number", "bool", "str"):
            ok = not value_problem(kind, value, self.low, self.high, self.gt)
        elif kind == "name":
            ok = isinstance(value, str) and bool(NAME_PATTERN.match(value))
        elif kind == "choice":
            ok = isinstance(value, (str, int, float)) and value in self.choices
        elif kind == "table":
            ok = isinstance(value, dict)
        elif kind == "list":
            ok = isinstance(value, list)
        else:
            ok = True
        if ok:
            return None
        return f"must be {self.allowed}" + (f", got {value!r}" if self.got else "")

    def docs_row(self) -> str:
        """This key's row of a docs table: key, type, default, allowed values and meaning."""
        default = self.default_text if self.default_text is not None else (
            "required" if self.default is REQUIRED else f"`{_toml(self.default)}`")
        kind = self.type_text or KINDS[self.kind]
        allowed = _markdown(self.allowed)
        text = " ".join(t for t in (self.help and self.help[0].upper() + self.help[1:] + ".", self.doc) if t)
        return f"| `{self.name}` | {kind} | {default} | {allowed}. {text} |"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def _markdown(text: str) -> str:
    """Allowed values as a docs cell: quoted TOML stays as code, ``**`` becomes a power."""
    return text.replace("|", "\\|")


def refuse_unknown(data: dict[str, Any], names, fail: Fail, prefix: str = "") -> None:
    """Refuse the first key of ``data`` (in sorted order) that is not in ``names``."""
    bad = sorted(set(data) - set(names))
    if bad:
        raise fail(prefix + bad[0], f"unknown key; keys: {', '.join(sorted(names))}")


@dataclass(frozen=True)
class Schema:
    """The keys of one table of a config file, in the order they are checked."""

    name: str  # names the table in the docs markers (``keys:NAME``)
    keys: tuple[Key, ...]

    @property
    def names(self) -> list[str]:
        return [k.name for k in self.keys]

    def __getitem__(self, name: str) -> Key:
        for k in self.keys:
            if k.name == name:
                return k
        raise KeyError(name)

    def unknown(self, data: dict[str, Any], fail: Fail, prefix: str = "") -> None:
        """Refuse the first key (in sorted order) that is not declared."""
        refuse_unknown(data, self.names, fail, prefix)

    def read(self, data: dict[str, Any], fail: Fail, prefix: str = "",
             values: dict[str, Any] | None = None) -> dict[str, Any]:
        """Every key's value (the default when absent), checked in declaration order: the
        unknown keys first, then each key's type and range, then its ``check``, the first
        problem raised as ``fail(PREFIX + KEY, message)`` (a required key left out:
        ``required: ALLOWED``).  ``values`` are values known
        before (e.g. of the enclosing table) that checks may read, and ``_prefix`` is
        ``prefix``."""
        self.unknown(data, fail, prefix)
        out: dict[str, Any] = {**(values or {}), "_prefix": prefix}
        for key in self.keys:
            value = data.get(key.name, key.default)
            if value is REQUIRED:
                raise fail(prefix + key.name, f"required: {key.allowed}")
            problem = None if key.name not in data and key.default is None else key.problem(value)
            if problem is not None:
                raise fail(prefix + key.name, problem)
            out[key.name] = key.check(value, out, fail) if key.check is not None else value
        return {k.name: out[k.name] for k in self.keys}

    def markdown(self) -> str:
        """The docs table of these keys."""
        lines = ["| key | type | default | allowed values and meaning |", "|---|---|---|---|"]
        return "\n".join(lines + [k.docs_row() for k in self.keys])


# ----------------------------------------------------------------------------- shared keys

def seed_key(doc: str) -> Key:
    """The ``seed`` both formats take: 0 to 2**63 - 1, default 0."""
    return Key("seed", "int", 0, "the study's seed", low=0, high=SEED_LIMIT - 1,
               text=SEED_TEXT, got=False, doc=doc)


def register_plugins(plugins: dict[str, Any], base: Path | None, fail: Fail) -> dict[str, str]:
    """``[plugins]``: each ``name = "file.py"`` (relative to ``base``, the file's folder)
    registered as strategy ``name``; name -> the file's absolute path."""
    import strategies

    resolved = {}
    for pname, ppath in plugins.items():
        if not isinstance(ppath, str):
            raise fail(f"plugins.{pname}", "must be a path to a Python file")
        full = (base / ppath) if base is not None else Path(ppath)
        try:
            strategies.register(pname, full)
        except (ValueError, OSError, SyntaxError, ImportError) as exc:
            raise fail(f"plugins.{pname}", str(exc)) from None
        resolved[pname] = str(full.resolve())
    return resolved


def plugins_key(what: str) -> Key:
    """The ``[plugins]`` key, registering its files relative to the folder ``Schema.read``
    is given as ``values["_base"]``."""
    return Key("plugins", "table", {}, f"plug-in strategies: NAME = \"path/to/file.py\", relative to the {what}",
               text='a table of name = "path/to/file.py"', got=False,
               check=lambda v, values, fail: register_plugins(v, values.get("_base"), fail),
               doc="Each file is registered as strategy `NAME` (`strategies.register`, which checks "
                   "[the plug-in contract](strategies.md#writing-your-own-plug-in)) before any strategy is "
                   "read, so the file's other keys may name it; `FILE.py:ClassName` registers a plain-Python "
                   "player.",
               default_text="`{}`")


def option_help(key: Key, what: str) -> str:
    """The command line's help for an option that overrides ``key`` of a ``what`` (file, study)."""
    return f"{key.help}, overriding the {what}'s {key.name} (default: the {what}'s; {key.allowed})".replace("`", "")


# ----------------------------------------------------------------------------- generated docs

ROOT = Path(__file__).resolve().parents[2]


def generated(text: str, schema: Schema, where: str, prog: str) -> str:
    """``text`` with the table between schema's markers replaced by ``schema.markdown()``
    (``prog``, the generating command, is named in the begin marker).  ``schema`` is a
    ``Schema`` or any table with a ``name``, a ``markdown()`` and a ``marker`` (``keys`` for a
    schema; ``simulator.run.docs_tables.ColumnTable`` says ``columns``)."""
    marker = getattr(schema, "marker", "keys")
    begin = f"<!-- {marker}:{schema.name}:begin (generated by {prog}; do not edit) -->"
    end = f"<!-- {marker}:{schema.name}:end -->"
    head, sep, rest = text.partition(begin)
    if not sep:
        raise ValueError(f"{where}: no line {begin!r}")
    _, sep, tail = rest.partition(end)
    if not sep:
        raise ValueError(f"{where}: no line {end!r}")
    return head + begin + "\n" + schema.markdown() + "\n" + end + tail


def main(argv: list[str] | None, pages: dict[Path, list[Schema]], prog: str) -> int:
    """Write (or with ``--check``, compare) the key tables of ``pages`` (page -> the schemas
    whose tables it holds); 1 when ``--check`` finds a stale page.  ``prog`` is the command."""
    parser = argparse.ArgumentParser(prog=prog, description="Write the key tables of the docs from the declared "
                                                            "keys.")
    parser.add_argument("--check", action="store_true", help="exit 1 when a page differs instead of writing it")
    args = parser.parse_args(argv)
    stale = []
    for page, schemas in pages.items():
        old = page.read_text(encoding="utf-8")
        new = old
        for schema in schemas:
            new = generated(new, schema, str(page), prog)
        if new != old:
            stale.append(page)
            if not args.check:
                tmp = page.with_name(page.name + ".tmp")
                tmp.write_text(new, encoding="utf-8")
                tmp.replace(page)
    for page in stale:
        print(f"{page.relative_to(ROOT)}: {'stale' if args.check else 'rewritten'}", file=sys.stderr)
    return 1 if stale and args.check else 0


