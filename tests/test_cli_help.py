"""The command line explains itself: a version, help text on every argument, and the
default of every option that has one."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path
import subprocess
import sys

import simulator
from simulator.cli import build_parser
from simulator.cli.parser import _Help


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_version():
    for flag in ("--version", "-V"):
        done = subprocess.run([sys.executable, "-m", "simulator.cli", flag], capture_output=True, text=True)
        assert done.returncode == 0 and done.stdout.strip() == f"ginsim {simulator.__version__}"


def test_every_argument_has_help_and_every_default_is_shown():
    commands = subcommands()
    assert {"simulate", "run", "reproduce", "show", "report", "replay", "strategies", "variants", "bench",
            "cache"} <= set(commands)
    for name, parser in commands.items():
        formatter = _Help(prog=name)
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"ginsim {name} {action.dest}: no help text"
            text = formatter._get_help_string(action)
            has_default = action.default is not None and action.default is not False
            if action.option_strings and not action.required:
                assert "default" in text, f"ginsim {name} {action.option_strings[0]}: help says no default"
            if has_default:
                assert "(default" in text, f"ginsim {name} {action.dest}: default {action.default!r} not shown"
    usage = commands["simulate"].format_help()
    assert "(default: 100000)" in usage and "(default: 0)" in usage and "(default: hoyle)" in usage
    assert "(default: local)" in commands["run"].format_help()
    assert "about 20 s" not in commands["bench"].format_help()


def test_commands_that_play_nothing_import_no_numba_pandas_or_scipy():
    """``--version``, ``--help``, a command's ``--help``, ``variants`` and ``cache where`` load
    neither numba nor pandas nor scipy (one child process runs them all in turn)."""
    child = textwrap.dedent("""
        import contextlib, io, sys
        from simulator.cli import main
        for argv in (["--version"], ["--help"], ["run", "--help"], ["report", "--help"], ["variants"],
                     ["cache", "where"]):
            with contextlib.redirect_stdout(io.StringIO()):
                try:
                    main(argv)
                except SystemExit as stop:
                    assert stop.code == 0, argv
        print(sorted(m for m in ("numba", "pandas", "scipy") if m in sys.modules))
    """)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_public_names_load_on_first_use_and_match_what_type_checkers_see():
    """``simulator.__all__``, the lazy table and the ``TYPE_CHECKING`` imports (which the API
    reference and type checkers read) name the same things, and every name resolves."""
    import ast

    tree = ast.parse(Path(simulator.__file__).read_text())
    guarded = next(node for node in tree.body if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING")
    declared = {alias.asname or alias.name for node in guarded.body for alias in node.names}
    assert declared == set(simulator._PUBLIC) == set(simulator.__all__) - {"__version__"}
    for name in simulator.__all__:
        assert getattr(simulator, name) is not None, name


def _parsers(parser: argparse.ArgumentParser, path: str = "ginsim"):
    """``(path, parser)`` of the command and every subcommand below it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def test_help_texts_read_as_printed_no_doubled_default_no_escaped_percent():
    """What ``--help`` prints: a description is not %-formatted by argparse, so a ``%%`` in it
    would print as is; an option's help that says its default itself gets no second one."""
    bad = []
    for path, parser in _parsers(build_parser()):
        text = parser.format_help()
        if "%%" in text:
            bad.append(f"{path}: prints %%")
        formatter = _Help(prog=path)
        for action in parser._actions:
            if action.help and not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                shown = formatter._expand_help(action)
                if shown.count("default:") > 1 or shown.count("(default") > 1:
                    bad.append(f"{path} {action.dest}: {shown}")
    assert bad == []
