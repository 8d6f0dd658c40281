"""A broken plug-in gets one line naming its file and the cause, never a traceback: at
import (syntax errors, failing imports, any exception) and against the decision
functions' contract (argument count, numba typing errors, return types), checked when the
plug-in is registered.  Checking compiles into numba's cache, so the second time is free."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cli_runner import error_lines

import strategies
from plugin_sources import greedy_plugin
from strategies.registry import PLUGINS, REGISTRY

GOOD = greedy_plugin("careful")


def _line(start: str) -> int:
    """The 1-based line of GOOD that starts with ``start``."""
    return next(i for i, line in enumerate(GOOD.splitlines(), 1) if line.startswith(start))

KNOCK_LINE = GOOD.splitlines().index("    return view[V_DEADWOOD] <= params[0]") + 1

# (label, replace this, with that, what the one-line message must say)
IMPORT_ERRORS = [
    ("syntax", "PARAMS = {", "PARAMS = {{", [f"line {_line('PARAMS = {')}", "SyntaxError"]),
    ("raises", 'SUMMARY = "', 'raise RuntimeError("boom\\nmore")\nSUMMARY = "', [f"line {_line('SUMMARY = ')}", "RuntimeError: boom"]),
    ("import", "from strategies.view import V_DEADWOOD",
     "from strategies.view import NO_SUCH_SLOT, V_DEADWOOD", [f"line {_line('from strategies.view')}", "ImportError", "NO_SUCH_SLOT"]),
    ("module", "from numba import njit", "import no_such_module_xyz\nfrom numba import njit",
     [f"line {_line('from numba')}", "ModuleNotFoundError", "no_such_module_xyz"]),
]
CONTRACT_ERRORS = [
    ("arity", "def knock_nb(params, view, pile, rules, rng, memory):", "def knock_nb(params, view):",
     ["knock_nb", "6 arguments"]),
    ("typing", "return view[V_DEADWOOD] <= params[0]", "return view[V_DEADWOOD] <= params[0][1]",
     ["knock_nb", f"line {KNOCK_LINE}", "getitem(float64"]),
    ("unknown", "return greedy_take_nb(view)", "return greedy_take_nb(view, no_such_name)",
     ["take_nb", "no_such_name"]),
    ("float_discard", "return greedy_discard_nb(view[V_HAND], view[V_LEGAL_DISCARDS])", "return params[0]",
     ["discard_nb", "must return an integer", "float64"]),
    ("tuple_knock", "return view[V_DEADWOOD] <= params[0]", "return (1, 2)",
     ["knock_nb", "must return a boolean"]),
    ("int_arrange", "default_arrange_nb as arrange_nb, ", "",  # and ARRANGE_RETURNS_INT appended
     ["arrange_nb", "must return a tuple of two integers", "int64"]),
]
ARRANGE_RETURNS_INT = textwrap.dedent('''

    @njit(cache=True)
    def arrange_nb(params, view, pile, rules, rng, memory):
        return view[V_HAND]
''')


def _write(tmp_path: Path, label: str, old: str, new: str) -> Path:
    assert old in GOOD
    text = GOOD.replace(old, new, 1)
    if label == "int_arrange":
        text += ARRANGE_RETURNS_INT
    # a prefix keeps the file from shadowing a standard module (``typing.py`` would, for a
    # ``python -m`` child started in tmp_path)
    path = tmp_path / f"plugin_{label}.py"
    path.write_text(text)
    return path


@pytest.mark.parametrize("label, old, new, says", IMPORT_ERRORS + CONTRACT_ERRORS,
                         ids=[case[0] for case in IMPORT_ERRORS + CONTRACT_ERRORS])
def test_a_broken_plugin_is_one_line_naming_its_file(tmp_path: Path, label, old, new, says):
    path = _write(tmp_path, label, old, new)
    before = dict(REGISTRY)
    modules = set(sys.modules)
    with pytest.raises(ValueError) as caught:
        strategies.register(f"broken_{label}", path)
    message = str(caught.value)
    assert "\n" not in message, message
    assert str(path) in message and f"broken_{label}" in message, message
    assert "ginsim-generated" not in message, message  # the user's file, not ginsim's copy
    for part in says:
        assert part in message, (part, message)
    if (label, old, new, says) in CONTRACT_ERRORS:
        assert "see the plug-in contract in docs/strategies.md" in message
    assert dict(REGISTRY) == before and f"broken_{label}" not in PLUGINS
    if (label, old, new, says) in IMPORT_ERRORS:
        assert set(sys.modules) == modules


def test_the_cli_prints_one_line_for_a_broken_plugin(tmp_path: Path):
    path = _write(tmp_path, "syntax", "PARAMS = {", "PARAMS = {{")
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "strategies", "--plugin", f"s={path}"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and f"line {_line('PARAMS = {')}" in lines[0] and "SyntaxError" in lines[0], done.stderr


def test_the_cli_prints_one_line_for_a_numba_typing_error(tmp_path: Path):
    path = _write(tmp_path, "typing", "return view[V_DEADWOOD] <= params[0]", "return view[V_DEADWOOD] <= params[0][1]")
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "strategies", "--plugin", f"s={path}"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 2
    lines = error_lines(done.stderr)  # (a compile notice may come first: registering compiles the plug-in)
    assert len(lines) == 1 and str(path) in lines[0] and "knock_nb" in lines[0], done.stderr
    assert "plug-in contract" in lines[0]


REGISTER_TWICE = textwrap.dedent('''
    import sys
    import strategies
    info = strategies.register("careful", sys.argv[1])
    funcs = [getattr(info.module, d) for d in ("take_nb", "discard_nb", "knock_nb", "arrange_nb")]
    print("misses", sum(sum(f.stats.cache_misses.values()) for f in funcs),
          "hits", sum(sum(f.stats.cache_hits.values()) for f in funcs))
''')


def test_registering_compiles_into_the_cache(tmp_path: Path):
    """register() compiles the decision functions (even those written without
    cache=True); a second process loads them from the cache instead of compiling."""
    path = tmp_path / "careful.py"
    path.write_text(GOOD.replace("@njit(cache=True)", "@njit"))
    script = tmp_path / "twice.py"
    script.write_text(REGISTER_TWICE)
    outputs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True,
                              cwd=tmp_path, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        outputs.append(done.stdout.split())
    assert outputs[1] == ["misses", "0", "hits", "4"], outputs


def test_ginsim_simulate_plays_a_plugin(tmp_path: Path):
    """``ginsim simulate --plugin NAME=FILE`` registers the file, then plays NAME; a malformed
    --plugin is refused in one line."""

    path = tmp_path / "mine.py"
    path.write_text(greedy_plugin("mine"))
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "simulate", "mine:knock_at=5", "simple",
                           "--deals", "400", "--plugin", f"mine={path}"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "mine:knock_at=5 (A) vs simple (B)" in done.stdout and "400 deals" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "simulator.cli", "simulate", "simple", "simple", "--plugin", str(path)],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [f"ginsim: error: --plugin must be NAME=FILE, got {str(path)!r}"]
