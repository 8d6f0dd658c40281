"""Hybrid players (strategies.hybrid): one strategy with some decisions taken from another,
compiled into the engine like every strategy."""

from __future__ import annotations

import numpy as np
import pytest

import strategies.hybrid as hybrid
from simulator import api
from strategies import parse_strategy

#: the events each decision can make first differ, by the hybrid's seat
DECISION_EVENTS = {
    "first_upcard": {"take_pile", "decline"},
    "draw": {"take_pile", "draw_stock"},
    "discard": {"discard"},
    "knock": {"knock"},
    "arrange": {"sets", "runs", "layoff", "defender_deadwood"},
    "defend": {"sets", "runs", "layoff", "defender_deadwood", "defend"},
}


def test_every_decision_from_the_host_plays_the_host_rows():
    every = "+".join(f"{d}=expert" for d in hybrid.DECISION_PHASES)
    for rules in ("tournament", "hoyle"):
        host = api.play_deal_records("expert", "simple", rules, 0, 400, 11)
        same = api.play_deal_records(f"expert+{every}", "simple", rules, 0, 400, 11)
        assert np.array_equal(host, same)
        # and as seat B, and in whole games
        assert np.array_equal(api.play_deal_records("simple", "expert", rules, 0, 200, 3),
                              api.play_deal_records("simple", f"expert+{every}", rules, 0, 200, 3))
    g1, _ = api.play_game_records("expert", "simple", "hoyle", 0, 20, 5)
    g2, _ = api.play_game_records("expert+knock=expert", "simple", "hoyle", 0, 20, 5)
    assert np.array_equal(g1, g2)


def test_mc_host_rows():
    assert np.array_equal(api.play_deal_records("mc:samples=8", "simple", "tournament", 0, 60, 2),
                          api.play_deal_records("mc:samples=8+draw=mc:samples=8", "simple", "tournament", 0, 60, 2))


def _first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None


@pytest.mark.parametrize("decision", list(DECISION_EVENTS))
def test_a_swap_changes_only_its_decision(decision):
    """On traced deals, the full player's and the hybrid's events agree up to the first
    decision of the swapped kind by the hybrid's seat."""
    changed = 0
    for deal in range(60):
        row, full = api.trace_deal("expert", "simple", "tournament", seed=21, deal=deal)
        row2, swapped = api.trace_deal(f"expert+{decision}=simple", "simple", "tournament", seed=21, deal=deal)
        i = _first_difference(full, swapped)
        if i is None:
            assert len(full) == len(swapped)
            continue
        changed += 1
        seat = int(row["a_seat"])
        ours = [e for e in (full[i], swapped[i]) if e[0] == seat and e[1] in DECISION_EVENTS[decision]]
        assert ours, (deal, full[i], swapped[i])
    if decision not in ("first_upcard", "arrange"):  # rare or identical for expert
        assert changed > 0


def test_label_and_row():
    h = parse_strategy("mc:samples=32+knock=simple+draw=simple")
    assert h.label == "mc:samples=32+draw=simple+knock=simple"
    assert parse_strategy(h.label).label == h.label
    row = h.row
    assert len(row) == hybrid.HYBRID_ROW and row[0] == 32
    assert int(row[hybrid.H_MASK]) == (1 << hybrid.DECISION_PHASES["draw"]) | (1 << hybrid.DECISION_PHASES["knock"])
    assert row[hybrid.H_HOST_SID] == parse_strategy("mc").sid
    assert row[hybrid.H_DONOR_SID] == parse_strategy("simple").sid


@pytest.mark.parametrize("spec, words", [
    ("mc+drw=simple", "unknown decision 'drw'; decisions: first_upcard, draw"),
    ("mc+draw", "decision 'draw' needs a donor strategy"),
    ("mc+draw=", "decision 'draw' needs a donor strategy"),
    ("mc+draw=simple+draw=simple", "decision 'draw' is given twice"),
    ("mc+draw=simple+knock=expert", "every decision must come from one donor"),
    ("+draw=simple", "the host strategy is missing"),
    ("mc+", "unknown decision ''"),
    ("mc+draw=nobody", "unknown strategy 'nobody'"),
    ("mc+draw=simple:knock_at=x", "parameter 'knock_at' of strategy 'simple' must be a number"),
])
def test_bad_specs(spec, words):
    with pytest.raises(ValueError) as err:
        parse_strategy(spec)
    text = str(err.value)
    assert words in text and "\n" not in text


def test_shared_memory_is_refused(monkeypatch):
    monkeypatch.setattr(hybrid, "memory_decisions", lambda info: frozenset({"take_nb", "discard_nb"}))
    with pytest.raises(ValueError, match="use the per-hand memory"):
        parse_strategy("simple+draw=knock_policy")


def test_builtin_memory_users_never_clash():
    # simple and knock_policy keep memory only in their discard: a hybrid gives it or keeps it
    assert parse_strategy("knock_policy+discard=simple").label == "knock_policy+discard=simple"
    assert parse_strategy("simple+discard=knock_policy").decisions == ("discard",)


def test_a_hybrid_steps_through_simulator_hand_without_corrupting_memory():
    """The hybrid's route returns a slice of its parameter row; compiled as a function of its
    own without reference counting, a caller with NRT (``Hand.bot_action``, the Python
    driver, the vector env) released that slice once too often and corrupted the heap (the
    process aborted a few hands later).  A child plays hands through ``Hand`` with a hybrid,
    allocates, and must exit cleanly with the rows ``simulate`` plays."""
    import subprocess
    import sys

    import simulator

    simulator.Hand("hoyle", seed=0, deal=0, a="simple", b="simple").bot_action()  # the engine, compiled here
    child = (
        "import numpy as np, simulator\n"
        "rows = simulator.simulate('mc:samples=8+knock=simple', 'simple', 'hoyle', n_deals=6, seed=3)\n"
        "for deal in range(6):\n"
        "    h = simulator.Hand('hoyle', seed=3, deal=deal, a='mc:samples=8+knock=simple', b='simple')\n"
        "    while not h.is_over():\n"
        "        h.apply(h.bot_action())\n"
        "    assert h.result() == rows.iloc[deal].to_dict(), deal\n"
        "    junk = [np.zeros(1000 + i) for i in range(1000)]\n"
        "print('played')\n")
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "played", done.stderr[-2000:]
