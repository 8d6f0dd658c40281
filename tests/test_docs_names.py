"""Every ``simulator.*`` / ``strategies.*`` name the README and ``docs/`` cite in backticks
exists: a module, or an attribute of one (a function, class, constant, method)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: a cited name: the start of a backticked span (``simulator.simulate(...)`` cites simulate)
NAME = re.compile(r"`((?:simulator|strategies)(?:\.[A-Za-z_]\w*)+)")


def _documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                try:  # a submodule not imported by its package
                    obj = importlib.import_module(f"{obj.__name__}.{attr}")
                    continue
                except (ModuleNotFoundError, AttributeError):
                    return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_cited_name_exists():
    missing = []
    for path in _documents():
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for name in NAME.findall(line):
                if not _resolves(name):
                    missing.append(f"{path.relative_to(ROOT)}:{n}: {name}")
    assert missing == []


def test_the_check_catches_a_missing_name():
    assert _resolves("simulator.core.melds.arrangement_nb") and _resolves("strategies.view.N_VIEW")
    assert not _resolves("simulator.engine.kernels._new_deck") and not _resolves("simulator.nowhere.x")


def _hook(name: str):
    """A module of docs/hooks/, loaded from its file."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"docs_hook_{name}", ROOT / "docs" / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_build_refuses_a_field_left_unfilled_in_prose_only():
    import pytest

    pytest.importorskip("mkdocs")
    checks = _hook("site_checks")
    assert checks.unfilled_fields("<p>Columns of a hand row:</p><p>{hand_table}</p>") == ["{hand_table}"]
    assert checks.unfilled_fields('<pre><code>{"a": 1} {name}</code></pre><p>a <code>{x}</code> set {1, 2}</p>') == []


def test_the_api_page_gets_the_column_tables_python_fills_in():
    """griffe reads ``simulator.api``'s docstring from the source, ``{hand_table}`` and all;
    the extension gives it the docstring the import filled, with every column."""
    import inspect

    import pytest

    pytest.importorskip("griffe")
    import simulator.api as api
    from simulator.core import records

    docs = _hook("runtime_docstrings")
    assert "{hand_table}" in inspect.getsource(api).split('"""')[1]
    doc = inspect.getdoc(docs.runtime_object("simulator.api"))
    assert not docs.FIELD.search(doc)
    assert records.column_table(records.HAND_ROW) in doc and records.column_table(records.GAME_ROW) in doc
