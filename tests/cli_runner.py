"""Run the ``ginsim`` command line inside the test process and see what a shell would.

``ginsim(*args, cwd=...)`` calls ``simulator.cli.main`` with stdout and stderr captured and
returns a ``subprocess.CompletedProcess`` (exit status, stdout, stderr), as running
``python -m simulator.cli ARGS`` in a child does, without a child's two seconds of
interpreter start and imports.  Tests that need a real process (a kill, Ctrl-C, a fresh
interpreter, a plug-in registered only in the child) keep starting one.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess


def ginsim(*args, cwd=None) -> subprocess.CompletedProcess:
    from simulator.cli import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    before = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as stop:  # argparse's own errors and --help
                status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(["ginsim", *argv], status, out.getvalue(), err.getvalue())


def error_lines(stderr: str) -> list[str]:
    """A command's stderr lines but the compile notice, which a command prints before its first
    compile (``simulator.infra.cache.announce_compile``), an error that follows included."""
    from simulator.infra.cache import COMPILING_MESSAGE

    return [line for line in stderr.strip().splitlines() if line != COMPILING_MESSAGE]


def one_line_error(done: subprocess.CompletedProcess, *words: str) -> None:
    """The command refused with status 2 and one line ``ginsim: error: ...`` holding ``words``."""
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ginsim: error: "), done.stderr[-2000:]
    for word in words:
        assert word in lines[0], (word, lines[0])
