"""A plug-in whose decision function indexes an array out of bounds is refused when it is
registered (``strategies.plugin_checks.check_bounds``): one line naming the strategy, the
function and "index out of bounds", exit status 2 from the CLI, never a segfault.  Each
case runs in a child process, so a regression that crashes fails the test instead of
killing pytest."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from cli_runner import error_lines
from plugin_sources import greedy_plugin

DISCARD = "    return greedy_discard_nb(view[V_HAND], view[V_LEGAL_DISCARDS])"
HELPER = textwrap.dedent('''

    @njit(cache=True)
    def remember_nb(memory, slot):
        memory[slot] = 1
        return slot
''')
# (label, the discard line replaced by, extra source, what the decision function does)
CASES = {
    "write": (f"    memory[10_000] = 1\n{DISCARD}", "", "discard_nb"),
    "read": (f"    if view[500] > 99:\n        return view[500]\n{DISCARD}", "", "discard_nb"),
    # out of bounds in a helper of its own, from the 8th discard of a hand (memory[0] counts them)
    "helper": (f"    memory[0] += 1\n    remember_nb(memory, memory[0] * 8)\n{DISCARD}", HELPER, "discard_nb"),
    # in bounds: every slot of the real memory, the last pile slot, the whole view
    "fine": (f"    memory[63] += view[23] + pile[63]\n{DISCARD}", "", None),
}
REGISTER = textwrap.dedent('''
    import json, sys
    import strategies
    out = {}
    for label, path in json.loads(sys.argv[1]).items():
        try:
            strategies.register(f"bounds_{label}", path)
            out[label] = "registered"
        except ValueError as exc:
            out[label] = str(exc)
    print(json.dumps(out))
''')


def _write(tmp_path: Path, label: str) -> Path:
    line, extra, _ = CASES[label]
    text = greedy_plugin(f"bounds_{label}")
    assert DISCARD in text
    path = tmp_path / f"plugin_bounds_{label}.py"
    path.write_text(text.replace(DISCARD, line, 1) + extra)
    return path


def test_an_out_of_bounds_plugin_is_refused_in_one_line(tmp_path: Path):
    paths = {label: str(_write(tmp_path, label)) for label in CASES}
    done = subprocess.run([sys.executable, "-c", REGISTER, json.dumps(paths)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]  # a segfault is -11
    answers = json.loads(done.stdout.strip().splitlines()[-1])
    for label, (_, _, decision) in CASES.items():
        message = answers[label]
        if decision is None:
            assert message == "registered", message
            continue
        assert "\n" not in message
        assert f"strategy 'bounds_{label}'" in message and paths[label] in message, message
        assert f"{decision}: index out of bounds" in message and "memory 64" in message, message


def test_ginsim_simulate_refuses_an_out_of_bounds_plugin(tmp_path: Path):
    path = _write(tmp_path, "write")
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "simulate", "--plugin", f"x={path}", "x", "simple",
                           "--deals", "2"], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 2, (done.returncode, done.stderr[-3000:])
    lines = error_lines(done.stderr)  # (a compile notice may come first: registering compiles the plug-in)
    assert len(lines) == 1 and "strategy 'x'" in lines[0] and "discard_nb: index out of bounds" in lines[0], done.stderr
    assert done.stdout == ""


STUCK = textwrap.dedent('''
    import os, signal, sys, threading
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, even if run in the background
    from simulator.infra import blocks
    blocks.INTERRUPT_GRACE_S = 0.5
    run_blocks = blocks.run_blocks
    def interrupted_soon(*args, **kwargs):  # Ctrl-C 1 s after the trial starts
        threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        return run_blocks(*args, **kwargs)
    blocks.run_blocks = interrupted_soon
    import strategies
    strategies.register("bounds_endless", sys.argv[1])
''')


def test_ctrl_c_stops_a_plugin_that_never_returns_at_registration(tmp_path: Path):
    """The bounds trial used to run in the registering thread, where a decision function
    that loops forever made registration hang with Ctrl-C ignored; it runs on a pool thread
    now, so the interrupt ends the process with status 130 and one line."""
    text = greedy_plugin("bounds_endless")
    path = tmp_path / "plugin_bounds_endless.py"
    path.write_text(text.replace(DISCARD, f"    while view[0] >= -1:\n        memory[1] += 1\n{DISCARD}", 1))
    try:
        done = subprocess.run([sys.executable, "-c", STUCK, str(path)], capture_output=True, text=True,
                              cwd=tmp_path, timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError("Ctrl-C was ignored while a plug-in's trial did not return") from None
    assert done.returncode == 130, done.stderr[-3000:]
    assert done.stderr.strip().splitlines() == [
        "ginsim: interrupted, but a kernel has not returned 0.5 s later (an endless loop in a strategy's compiled "
        "code?); stopping the process"]
