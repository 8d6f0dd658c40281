"""The test tiers stay honest: every entry of tests/conftest.py's SLOW names a test function
that exists (a renamed slow test would otherwise join the fast tier unnoticed), and
pytest-timeout guards every test."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from conftest import FAST_ONLY, SLOW

TESTS = Path(__file__).resolve().parent


def test_every_slow_entry_names_a_test_function():
    for entry in sorted(SLOW):
        module, name = entry.split("::")
        source = (TESTS / module).read_text()
        assert re.search(rf"^def {re.escape(name)}\(", source, re.MULTILINE), entry


def _ids(mark) -> list[str]:
    """The ids pytest gives a ``parametrize`` mark's values: its ``ids`` when given, else each
    value's text (a tuple's parts joined by "-", as pytest joins them)."""
    ids = mark.kwargs.get("ids")
    if ids is not None:
        return [str(i) for i in ids]
    return ["-".join(map(str, v)) if isinstance(v, tuple) else str(v) for v in mark.args[1]]


def test_every_fast_only_parametrisation_exists():
    """The parametrisations FAST_ONLY keeps in the fast tier are real ids of their test's
    ``parametrize`` values: a renamed one would otherwise move its whole test to the slow
    tier unnoticed."""
    import importlib

    for key, keep in FAST_ONLY.items():
        module, name = key.split("::")
        func = getattr(importlib.import_module(module.removesuffix(".py")), name)
        values = {ident for mark in func.pytestmark if mark.name == "parametrize" for ident in _ids(mark)}
        assert keep <= values, (key, keep - values)

def test_every_test_has_a_timeout_and_the_default_run_is_the_fast_tier():
    options = tomllib.loads((TESTS.parent / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert int(options["timeout"]) > 0
    assert "-m 'not slow'" in options["addopts"]
    assert any(m.startswith("slow:") for m in options["markers"])


def test_ci_runs_exactly_the_readme_test_command():
    command = (TESTS.parent / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert 'pytest -m "slow or not slow"' in command and "mkdocs build --strict" in command
    assert f"\n{command}\n" in (TESTS.parent / "README.md").read_text()
