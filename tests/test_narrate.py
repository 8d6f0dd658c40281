"""One narrator tells a hand's events (``simulator.core.narrate.tell``): the text replay, the
replay page and ``ginsim play`` word every event with it."""

from __future__ import annotations

import io

from simulator import api
from simulator.core.cards import format_cards
from simulator.core.layouts import EVENTS
from simulator.core.narrate import tell, tell_hand
from simulator.tools.play import Table
from simulator.tools.replay_html import deal_steps

NAMES = ("A (simple)", "B (knock_early)")


def test_every_event_has_its_words():
    for kind in EVENTS:
        text = tell((0, kind, 5), NAMES)
        assert (text == "") == (kind == "deal"), kind
        assert ": " + kind not in text, kind  # no event falls through to the generic words
    assert tell((1, "discard", 0x15), NAMES) == "B (knock_early) discards 6h."
    assert tell((0, "take_pile", 0x15), NAMES) == "A (simple) takes 6h from the pile."
    assert tell((-1, "score", 0), NAMES) == "A tie: nobody scores."
    assert tell((0, "sets", 0), NAMES) == "A (simple) lays out no sets."
    assert tell((0, "runs", 0x7), NAMES) == "A (simple) lays out the runs As 2s 3s."


def test_you_are_spoken_to_and_do_not_see_the_opponents_stock_draws():
    you = ("You", "B (knock_early)")
    assert tell((0, "draw_stock", 0x15), you, you=0) == "You draw 6h from the stock."
    assert tell((1, "draw_stock", 0x15), you, you=0) == "B (knock_early) draws from the stock."
    assert tell((1, "draw_stock", 0x15), NAMES) == "B (knock_early) draws 6h from the stock."
    assert tell((1, "draw_stock", 0x15), NAMES, you=1) == "B (knock_early) draws 6h from the stock."
    assert tell((0, "draw_stock", 0x15), NAMES, you=1) == "A (simple) draws from the stock."
    assert tell((0, "gin", 0), you) == "You go gin!" and tell((1, "gin", 0), NAMES) == "B (knock_early) goes gin!"
    assert tell((0, "defend", 1), you) == "You defend with least-deadwood arrangement 2."


def test_the_replay_page_and_the_terminal_tell_the_events_in_the_same_words():
    row, events = api.trace_deal("simple", "knock_early", "hoyle", seed=3, deal=1)
    names, steps = deal_steps({"a": "simple", "b": "knock_early"}, row, events)
    told = [tell(e, names) for e in events if e[1] not in ("deal", "upcard")]
    assert [s["text"] for s in steps[1:]] == told
    out = io.StringIO()
    table = Table("knock_early", "hoyle", 1, False, input, out)
    for event in events:
        table.tell(event)
    names_you = ["You", "knock_early"]
    want = [tell(e, names_you, you=0) for e in events if e[1] in Table.TOLD]
    assert out.getvalue().splitlines() == want


def test_a_whole_hand_is_told_with_the_dealt_hands_first():
    """``tell_hand``: both dealt hands once the deal is complete, then every later event in
    ``tell``'s words; what ``ginsim replay`` prints for a run's deal and a hand history file."""
    _, events = api.trace_deal("simple", "knock_early", "hoyle", seed=3, deal=1)
    lines = tell_hand(events, NAMES)
    dealt = [sorted(v for s, k, v in events if k == "deal" and s == seat) for seat in (0, 1)]
    assert lines[:2] == [f"{NAMES[s]} holds {format_cards(dealt[s])}" for s in (0, 1)]
    assert lines[2:] == [tell(e, NAMES) for e in events if e[1] != "deal"]
