"""The one-hand step path (``simulator.Hand``): one numba call per method on the work array
the hand keeps; an illegal action changes nothing, a clone is independent, and the fast
``bot_action`` answers exactly as ``strategy_action`` does."""

from __future__ import annotations

import numpy as np
import pytest

from simulator import actions
from simulator.core import state as S
from simulator.engine.hand import Hand


def _to_discard(h: Hand) -> Hand:
    while h.phase != S.PHASE_DISCARD:
        h.apply(h.bot_action())
    return h


def test_an_illegal_action_changes_nothing():
    h = _to_discard(Hand("hoyle", seed=4, deal=3, a="simple", b="simple"))
    state, events, work = h.state.copy(), list(h.events), h._work.copy()
    not_legal = next(actions.discard(c) for c in range(61) if c % 16 < 13 and actions.discard(c) not in h.legal_actions())
    for bad in (not_legal, actions.KNOCK, S.N_ACTIONS, -1, True, 2**70, "draw"):
        with pytest.raises(ValueError, match="illegal action"):
            h.apply(bad)
    assert np.array_equal(h.state, state) and h.events == events and np.array_equal(h._work, work)


def test_a_clone_is_independent():
    h = Hand("hoyle", seed=9, deal=5, a="simple", b="knock_early")
    for _ in range(6):
        h.apply(h.bot_action())
    work, events = h._work.copy(), list(h.events)
    g = h.clone()
    while not g.is_over():
        g.apply(g.bot_action())
    assert np.array_equal(h._work, work) and h.events == events  # streams and memories too
    while not h.is_over():
        h.apply(h.bot_action())
    assert h.result() == g.result() and h.events == g.events


def test_bot_action_answers_as_strategy_action():
    h = Hand("oklahoma", seed=2, deal=7, a="gin_hunter", b="simple")
    while not h.is_over():
        spec = "gin_hunter" if h.current_player == h.a_seat else "simple"
        assert h.clone().bot_action() == h.clone().strategy_action(spec)
        h.apply(h.bot_action())
    assert h.legal_actions() == []
