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


@pytest.mark.parametrize("mirrored", [True, False])
def test_hands_of_a_game_chained_by_end_of_hand_reproduce_simulate_games(mirrored):
    """``Hand(seed, deal=g, hand_in_game=k, dealer, scores)`` deals hand k of game g as the
    batch game kernel does (one keying of streams: ``simulator.core.rng``), and chaining the
    hands with ``end_of_hand_nb`` gives the kernel's game record and every hand record."""
    from simulator.api import play_game_records
    from simulator.core import records as RC
    from simulator.core.rules import MAX_HANDS_PER_GAME, resolve_rules
    from simulator.core.scoring import end_of_hand_nb, new_game_nb

    seed, first = 11, 3
    games, hands = play_game_records("gin_hunter", "knock_early", "oklahoma", first, 4, seed, mirrored, True)
    vector = resolve_rules("oklahoma").to_array()
    rows = []
    for i in range(4):
        game = first + i
        g = np.zeros(RC.N_GAME_COLS, np.int64)
        dealer = None
        while True:
            k = int(g[RC.G_HANDS])
            h = Hand("oklahoma", seed=seed, deal=game, hand_in_game=k, mirrored=mirrored, dealer=dealer,
                     scores=(int(g[RC.G_POINTS0]), int(g[RC.G_POINTS1])), a="gin_hunter", b="knock_early")
            if k == 0:
                new_game_nb(g, np.int64(game), np.int64(h.pair), np.int64(h.a_seat), np.int64(h.dealer))
            while not h.is_over():
                h.apply(h.bot_action())
            rows.append(h.record())
            dealer = int(end_of_hand_nb(g, rows[-1], np.int64(MAX_HANDS_PER_GAME), vector))
            if dealer < 0:
                break
        assert np.array_equal(g, games[i]), (game, g, games[i])
    assert np.array_equal(np.array(rows), hands)


def test_a_pickled_hand_plays_on_as_the_original():
    """A ``Hand`` pickles (pyspiel clones a Python game's state so): the copy's state is a
    view into its own work array again, so it plays on, strategies and streams included,
    exactly as the original."""
    import pickle

    h = Hand("modern", seed=3, deal=11, a="simple", b="gin_hunter")
    for _ in range(7):
        h.apply(h.bot_action())
    g = pickle.loads(pickle.dumps(h))
    assert np.shares_memory(g.state, g._work) and not np.shares_memory(g._work, h._work)
    while not h.is_over():
        action = h.bot_action()
        assert g.bot_action() == action
        h.apply(action)
        g.apply(action)
    assert g.result() == h.result() and g.events == h.events


def test_set_stock_orders_the_next_draws_and_refuses_other_cards():
    h = Hand("hoyle", seed=1, deal=2, a="simple", b="simple")
    left = h.stock()
    assert len(left) == 31 and not set(left) & {c for _, e, c in h.events if e in ("deal", "upcard")}
    wanted = left[::-1]
    h.set_stock(wanted)
    assert h.stock() == wanted
    drawn = []
    while not h.is_over() and len(drawn) < 3:
        before = h.stock()
        h.apply(h.bot_action())
        drawn += [c for _, e, c in h.events[-3:] if e == "draw_stock" and c not in drawn]
        assert h.stock() in (before, before[1:])
    assert drawn == wanted[:len(drawn)] and drawn
    state = h.state.copy()
    for bad in (h.stock()[1:], h.stock()[1:] + [h.stock()[1]], h.stock()[1:] + [15], [c for c in range(52) if c % 16 < 13][:len(h.stock())]):
        with pytest.raises(ValueError, match="set_stock needs the"):
            h.set_stock(bad)
    assert np.array_equal(h.state, state)
