"""Trust, fourth pass (issue 54), its edges: what ginsim writes never waits on a FIFO, and a
damaged input or a flag out of range is refused in one line instead of a traceback, a hang
or a silent default.

Each test names the defect it guards and fails on the code before the fix."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_runner import ginsim, one_line_error
from test_trust_third import deadline
from test_trustworthy_runs import tiny_run  # noqa: F401  (a fixture: 400 deals of simple vs random)


# ---- bug 6: --export onto a FIFO ----------------------------------------------------------

def test_check_target_refuses_what_is_no_regular_file_without_opening_it(tmp_path):
    from simulator.infra.inputs import check_target

    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    assert check_target(tmp_path / "file", "a page") is True
    assert check_target(tmp_path / "none", "a page") is False
    with deadline(10, tmp_path / "fifo"):
        for name, words in (("fifo", "is a FIFO, not a regular file"), ("link", "is a symbolic link"),
                            (".", "is a directory")):
            with pytest.raises(ValueError, match=words):
                check_target(tmp_path / name, "a page")


def test_replay_export_onto_a_fifo_is_refused_at_once(tiny_run, tmp_path):
    fifo = tmp_path / "hand.toml"
    os.mkfifo(fifo)
    with deadline(20, fifo):
        done = ginsim("replay", tiny_run, "--cell", 0, "--deal", 1, "--export", fifo)
    one_line_error(done, str(fifo), "is a FIFO, not a regular file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hand.toml"]  # no temporary left
    good = tmp_path / "good.toml"
    assert ginsim("replay", tiny_run, "--cell", 0, "--deal", 1, "--export", good).returncode == 0
    assert good.read_text().startswith("# A hand of Gin Rummy recorded by ginsim")


def test_replay_deals_export_refuses_a_fifo_among_its_file_names_before_any_deal(tiny_run, tmp_path):
    hands = tmp_path / "hands"
    hands.mkdir()
    fifo = hands / "cell0-deal3.toml"
    os.mkfifo(fifo)
    with deadline(20, fifo):
        done = ginsim("replay", tiny_run, "--cell", 0, "--deals", "1-4", "--export", hands)
    one_line_error(done, str(fifo), "is a FIFO")
    assert [p.name for p in hands.iterdir()] == [fifo.name]


def test_arena_export_refuses_a_fifo_among_its_file_names_before_any_hand(tmp_path):
    from simulator.interop.openspiel import hand_file

    hands = tmp_path / "hands"
    hands.mkdir()
    fifo = hands / hand_file(1, 0)
    os.mkfifo(fifo)
    with deadline(20, fifo):
        done = ginsim("arena", "simple", "random", "--decks", 2, "--engine", "ginsim", "--export", hands)
    one_line_error(done, str(fifo), "is a FIFO")
    assert [p.name for p in hands.iterdir()] == [fifo.name]  # no hand written before the refusal


def test_replay_of_a_fifo_names_it_instead_of_asking_for_cell(tmp_path):
    fifo = tmp_path / "run"
    os.mkfifo(fifo)
    with deadline(10, fifo):
        one_line_error(ginsim("replay", fifo), str(fifo), "neither a run directory nor a hand history file")


# ---- bench --scale-* ---------------------------------------------------------------------

def test_bench_scale_flags_without_scale_and_a_scale_dir_that_is_a_file_are_refused(tmp_path):
    """Issue 54: ``--scale-*`` without ``--scale`` were ignored and the full benchmark
    started; ``--scale-dir`` onto a file failed naming a temporary folder inside it."""
    one_line_error(ginsim("bench", "--scale-keep"), "--scale-keep goes with --scale")
    one_line_error(ginsim("bench", "--scale-deals", 100, "--scale-dir", tmp_path),
                   "--scale-deals, --scale-dir go with --scale")
    (tmp_path / "file").write_text("x")
    for name, words in (("file", "not a directory"), ("none", "no such directory")):
        one_line_error(ginsim("bench", "--scale", "--scale-deals", 100, "--scale-dir", tmp_path / name),
                       f"--scale-dir {tmp_path / name}: {words}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


# ---- a plug-in's memory --------------------------------------------------------------------

OVERFLOW = '''"""``{name}``: greedy play; with ``overflow`` = 1 it writes one slot past the end of its memory."""
from numba import njit
from strategies.common import default_arrange_nb as arrange_nb, greedy_discard_nb, greedy_take_nb
from strategies.view import N_MEMORY, V_DEADWOOD, V_HAND, V_LEGAL_DISCARDS

PARAMS = {{"knock_at": 3.0, "overflow": 0.0}}
SUMMARY = "greedy; overflow = 1 writes past the end of its memory"

@njit(cache=True)
def take_nb(params, view, pile, rules, rng, memory):
    return greedy_take_nb(view)

@njit(cache=True)
def discard_nb(params, view, pile, rules, rng, memory):
    memory[0] += 1
    if params[1] > 0 and memory[0] == 3:
        memory[N_MEMORY + 5] = 1  # the next seat's memory would start here without the spare row
    return greedy_discard_nb(view[V_HAND], view[V_LEGAL_DISCARDS])

@njit(cache=True)
def knock_nb(params, view, pile, rules, rng, memory):
    return view[V_DEADWOOD] <= params[0]
'''

OVERFLOW_SCRIPT = '''
import json, sys
import numpy as np
import simulator
import strategies
from simulator import api
from simulator.core import constants as E

strategies.register("overflow_vandal", sys.argv[1])  # the registration's sampled states: overflow 0, no write
out = {}
for seat, (a, b) in enumerate((("overflow_vandal:overflow=1", "simple"), ("simple", "overflow_vandal:overflow=1"))):
    try:
        simulator.simulate(a, b, "hoyle", n_deals=20, seed=5)
        out[f"simulate{seat}"] = None
    except ValueError as exc:
        out[f"simulate{seat}"] = [type(exc).__name__, str(exc)]
    records = api.play_deal_records(a, b, "hoyle", 0, 20, 5)
    bad = records[records[:, E.H_ERROR] != 0]
    out[f"records{seat}"] = [len(bad), sorted(set(bad[:, E.H_ERROR].tolist())),
                             sorted(set(bad[:, E.H_ERROR_VALUE].tolist()))]
h = simulator.Hand("hoyle", seed=1, a="overflow_vandal:overflow=1", b="simple")
try:
    while not h.is_over():
        h.apply(h.bot_action())
    out["hand"] = None
except ValueError as exc:
    out["hand"] = str(exc)
same = api.play_deal_records("overflow_vandal", "simple", "hoyle", 0, 200, 5)
out["well_behaved_errors"] = int((same[:, E.H_ERROR] != 0).sum())
print("REPORT " + json.dumps(out))
'''


def test_a_plugin_writing_past_the_end_of_its_memory_is_stopped_and_named(tmp_path):
    """Issue 54 (from the third pass): a numba plug-in writing past the end of its memory
    changed the opponent's play silently (the opponent's memory was the next row).  Each
    seat's memory is now followed by a spare row, checked after every call in engines that
    route a plug-in: the hand stops, the plug-in is named with the slot, from either seat,
    through the batch kernels and the step API; the same plug-in within its memory plays on."""
    import json
    import subprocess
    import sys

    from simulator.core.constants import N_MEMORY

    path = tmp_path / "overflow_vandal.py"
    path.write_text(OVERFLOW.format(name="overflow_vandal"))
    done = subprocess.run([sys.executable, "-c", OVERFLOW_SCRIPT, str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=1200)
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(next(x for x in done.stdout.splitlines() if x.startswith("REPORT "))[len("REPORT "):])
    slot = N_MEMORY + 5
    for seat, who in ((0, "A"), (1, "B")):
        kind, message = report[f"simulate{seat}"]
        assert kind == "StrategyError" and "\n" not in message, message
        assert message.startswith(f"strategy 'overflow_vandal:overflow=1' ({who}) wrote past the end of its memory "
                                  f"(slot {slot}; memory is {N_MEMORY} slots long)"), message
        n_bad, codes, values = report[f"records{seat}"]
        assert n_bad > 0 and codes == [8] and values == [slot]
    assert report["hand"].startswith("strategy 'overflow_vandal:overflow=1' (seat ")
    assert report["hand"].endswith(f") wrote past the end of its memory (slot {slot}; memory is {N_MEMORY} slots long)")
    assert report["well_behaved_errors"] == 0


def test_the_engine_of_builtin_strategies_compiles_no_memory_check():
    """The check exists only where a plug-in is routed: the built-in dispatch says so, and a
    generated dispatch over built-ins only does too (the loop reads it as a constant)."""
    from simulator.engine import loop
    from strategies import dispatch
    from strategies.codegen import dispatch_source
    from strategies.registry import engine_entries

    assert dispatch.GUARD_MEMORY is False and loop.GUARD_MEMORY is False
    assert "\nGUARD_MEMORY = False\n" in dispatch_source(engine_entries())
    entries = list(engine_entries()) + [("strategies.simple", "0" * 64)]  # (any importable module as a plug-in)
    assert "\nGUARD_MEMORY = True\n" in dispatch_source(entries)


def test_tune_summary_onto_a_fifo_is_refused_without_waiting(tmp_path):
    """ginsim tune's outputs are checked as every run file is: a FIFO in the place of a
    summary is not ginsim's and is never opened to wait on."""
    import os

    from simulator.studies.tune.outputs import _mark_ours

    fifo = tmp_path / "summary.md"
    os.mkfifo(fifo)
    assert _mark_ours(fifo) is False
    ours = tmp_path / "best.toml"
    ours.write_text("# written by ginsim tune\n", encoding="utf-8")
    assert _mark_ours(ours) and _mark_ours(tmp_path / "absent.md")
