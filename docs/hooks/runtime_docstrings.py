"""Griffe extension for the API reference: a docstring completed when its module is imported
is shown as Python has it, not as its source reads.

``simulator.api``'s docstring holds ``{hand_table}`` and ``{game_table}``, filled at import
from the column declarations (``simulator.core.records.column_table``), so the tables can
never drift from the columns.  griffe reads the source without running it; for an object
whose source docstring still holds such a ``{name}`` field, this extension imports it and
takes its ``__doc__``.  ``docs/hooks/site_checks.py`` fails the build on any field left.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any

import griffe

#: the checkout the site is built from: its packages are the ones imported, whatever ginsim
#: is installed in the interpreter
ROOT = Path(__file__).resolve().parents[2]

#: a ``str.format`` field as the docstrings use them: ``{name}``
FIELD = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


def runtime_object(path: str) -> Any:
    """The object at dotted ``path`` (a module, or an attribute of one), imported from this
    checkout (``ROOT``); a package already imported from elsewhere is refused."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        where = Path(getattr(module, "__file__", "") or "").resolve()
        if not where.is_relative_to(ROOT):
            raise ImportError(f"{module.__name__} was imported from {where}, not from the checkout {ROOT} the docs "
                              "are built from")
        obj = module
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ModuleNotFoundError(path)


class RuntimeDocstrings(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and FIELD.search(obj.docstring.value):
            doc = inspect.getdoc(runtime_object(obj.path))
            if doc and not FIELD.search(doc):
                obj.docstring.value = doc
