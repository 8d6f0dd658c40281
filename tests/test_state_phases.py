"""The hand state machine, phase by phase, in the style of OpenSpiel's game tests: a given
state, one action, the exact next state (or returns); an illegal action is refused with an
error code and the state left exactly as it was.

States are dealt from explicit decks (``deal``): seat 0 deals, so seat 1 (the *mover*) is
offered the upcard first and draws first.  Hands are drawn as grids in the comments, one
row per suit.  ``changes(before, after)`` lists every slot an action changed, by name, so
an expectation names the whole next state.

The common cast (as in ``tests/test_engine.py``):

    mover (seat 1)             dealer (seat 0)
        A 2 3 4 5 6 7 8 9 T J Q K      A 2 3 4 5 6 7 8 9 T J Q K
    ♠     x x x                    ♠             x   x
    ♥           x x x              ♥ x     x             x
    ♦                 x            ♦     x     x           x
    ♣                 x       x    ♣   x     x
    2s3s4s 5h6h7h 9d9c9h | Kc: deadwood 10     no melds: deadwood 57

Also here: ``simulator.Hand`` (it replays ``simulate`` exactly on every preset, its
observations hide the opponent's hand and the stock, illegal actions raise one line), a
numba rollout from a copied mid-hand state, and the record schema.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numba import njit

import simulator
from simulator import api
from simulator.core import records
from simulator.core import constants as C
from simulator.engine.loop import run_until_nb
from simulator.core import state as S
from simulator.core.cards import DECK, parse_cards
from simulator.core.rules import Rules

MOVER = "2s 3s 4s 5h 6h 7h 9d 9c 9h Kc"
LOOSE_DEALER = "Ah 3d 5c 7s 9s Jh Qd 2c 4h 6d"
NO_TRACE = np.zeros((0, 3), np.int64)


def c(text: str) -> int:
    return int(parse_cards(text)[0])


def mask(text: str) -> int:
    return sum(1 << int(x) for x in parse_cards(text))


def make_deck(mover: str, dealer: str, upcard: str, stock: str = "") -> list[int]:
    """Seat 0 deals: the mover (seat 1) gets cards 0, 2, ..., the dealer 1, 3, ...; then
    the upcard, then the stock with ``stock`` drawn first and the rest in deck order."""
    m, d = parse_cards(mover), parse_cards(dealer)
    head = [int(x) for pair in zip(m, d) for x in pair] + [c(upcard)] + [int(x) for x in parse_cards(stock)]
    deck = head + [int(x) for x in DECK if int(x) not in head]
    assert len(set(deck)) == 52
    return deck


def deal(deck, rules="hoyle", scores=(0, 0), deck_rng=12345) -> tuple[np.ndarray, np.ndarray]:
    """A fresh state dealt from ``deck`` by seat 0, and the rule vector."""
    vector = Rules.preset(rules).to_array() if isinstance(rules, str) else rules.to_array()
    state = np.zeros(S.N_STATE, np.int64)
    S.deal_nb(state, np.array(deck, np.int64), np.int64(0), np.int64(scores[0]), np.int64(scores[1]),
              vector, np.int64(deck_rng), NO_TRACE)
    return state, vector


def legal(state, rules) -> list[int]:
    out = np.zeros(S.MAX_LEGAL, np.int64)
    return [int(a) for a in out[:S.legal_actions_nb(state, rules, out)]]


def step(state, rules, action) -> np.ndarray:
    """Apply a legal action to a copy; the original is never touched."""
    after = state.copy()
    err = S.apply_action_nb(after, rules, np.int64(action), NO_TRACE)
    assert err == S.ERR_NONE, (S.action_name(action), err)
    return after


def play(state, rules, *actions) -> np.ndarray:
    for a in actions:
        state = step(state, rules, a)
    return state


_SLOT_NAMES = {}
for _name in dir(S):
    if _name.startswith("S_") and isinstance(getattr(S, _name), int) and getattr(S, _name) < S.N_HEADER:
        _SLOT_NAMES[getattr(S, _name)] = _name
for _base in ("S_HANDS", "S_TOOK", "S_DECLINED", "S_DISCARDS", "S_SEEN", "S_DRAWS", "S_SCORES"):
    _SLOT_NAMES[getattr(S, _base)] = _base + "[0]"
    _SLOT_NAMES[getattr(S, _base) + 1] = _base + "[1]"


def changes(before: np.ndarray, after: np.ndarray) -> dict:
    """Every header slot that changed, by name (old, new); the live pile and stock as
    lists when they changed."""
    out = {_SLOT_NAMES[i]: (int(before[i]), int(after[i]))
           for i in range(S.N_HEADER) if before[i] != after[i] and i != S.S_NTRACE}

    def pile(s):
        return [int(x) for x in s[S.S_PILE:S.S_PILE + s[S.S_PILE_LEN]]]

    def stock(s):
        return [int(x) for x in s[S.S_STOCK + s[S.S_STOCK_POS]:S.S_STOCK + s[S.S_STOCK_N]]]

    if pile(before) != pile(after):
        out["pile"] = pile(after)
    if stock(before) != stock(after):
        out["stock"] = stock(after)
    return out


def assert_refused(state, rules, action, code=None) -> None:
    """An illegal action returns an error and leaves the state exactly as it was."""
    before = state.copy()
    err = S.apply_action_nb(state, rules, np.int64(action), NO_TRACE)
    assert err != S.ERR_NONE, S.action_name(action)
    if code is not None:
        assert err == code
    np.testing.assert_array_equal(state, before)


def assert_only_legal_accepted(state, rules) -> None:
    """Every action outside ``legal_actions_nb`` is refused, the state unchanged."""
    ok = set(legal(state, rules))
    for a in list(range(-3, S.N_ACTIONS + 3)) + [1000, -(1 << 40)]:
        if a not in ok:
            assert_refused(state, rules, a)


# ---- the deal and the first upcard ---------------------------------------------------------------


def test_the_deal_gives_ten_cards_each_the_upcard_and_a_31_card_stock():
    deck = make_deck(MOVER, LOOSE_DEALER, "Ks", "8c")
    state, rules = deal(deck)
    assert state[S.S_HANDS + 1] == mask(MOVER) and state[S.S_HANDS] == mask(LOOSE_DEALER)
    assert (state[S.S_PHASE], state[S.S_CURRENT], state[S.S_DEALER]) == (S.PHASE_FIRST_UPCARD, 1, 0)
    assert list(state[S.S_PILE:S.S_PILE + state[S.S_PILE_LEN]]) == [c("Ks")]
    assert state[S.S_STOCK_N] - state[S.S_STOCK_POS] == 31 and state[S.S_STOCK] == c("8c")
    assert state[S.S_SEEN + 1] == mask(MOVER) | mask("Ks")
    assert (state[S.S_UPCARD], state[S.S_LIMIT], state[S.S_MULTIPLIER]) == (c("Ks"), 10, 1)
    assert legal(state, rules) == [S.A_TAKE_PILE, S.A_PASS]
    assert_only_legal_accepted(state, rules)


def test_non_dealer_takes_the_first_upcard():
    # 9s completes the mover's 9d 9c 9h: it takes the upcard and must discard (not the 9s)
    deck = make_deck(MOVER, LOOSE_DEALER.replace("9s", "Ts"), "9s")
    state, rules = deal(deck)
    after = step(state, rules, S.A_TAKE_PILE)
    assert changes(state, after) == {
        "S_PHASE": (S.PHASE_FIRST_UPCARD, S.PHASE_DISCARD),
        "S_HANDS[1]": (mask(MOVER), mask(MOVER) | mask("9s")),
        "S_TOOK[1]": (0, mask("9s")),
        "S_DRAWS[1]": (0, 1),
        "S_PILE_LEN": (1, 0),
        "S_PILE_MASK": (mask("9s"), 0),
        "S_DRAWN": (-1, c("9s")),
        "S_FROM_PILE": (0, 1),
        "S_LEGAL": (0, mask(MOVER)),
        "pile": [],
    }
    assert legal(after, rules) == sorted(S.A_DISCARD + x for x in parse_cards(MOVER))
    assert_refused(after, rules, S.A_DISCARD + c("9s"), S.ERR_ILLEGAL_DISCARD)  # the card just taken
    assert_only_legal_accepted(after, rules)
    # discarding Kc leaves 2s3s4s 5h6h7h 9s9d9c9h: deadwood 0, and gin is settled at once
    knock = step(after, rules, S.A_DISCARD + c("Kc"))
    assert (knock[S.S_PHASE], knock[S.S_DEADWOOD]) == (S.PHASE_KNOCK, 0)
    over = step(knock, rules, S.A_KNOCK)
    assert over[S.S_PHASE] == S.PHASE_OVER
    assert (over[S.S_OUTCOME], over[S.S_KNOCKER], over[S.S_WINNER]) == (records.OUT_GIN, 1, 1)
    assert (over[S.S_POINTS], over[S.S_DEFENDER_DW], over[S.S_LAYOFF]) == (25 + 58, 58, 0)


def test_non_dealer_declines_then_the_dealer_takes_the_upcard():
    # the dealer's Th Qh Kh wants Jh; the mover passes on it
    dealer = "As Ad Ac 2h 3h 4h Th Qh Kh 2c"
    state, rules = deal(make_deck(MOVER, dealer, "Jh"))
    passed = step(state, rules, S.A_PASS)
    assert changes(state, passed) == {"S_CURRENT": (1, 0), "S_DECLINED[1]": (0, mask("Jh"))}
    assert passed[S.S_PHASE] == S.PHASE_FIRST_UPCARD and legal(passed, rules) == [S.A_TAKE_PILE, S.A_PASS]
    taken = step(passed, rules, S.A_TAKE_PILE)
    assert (taken[S.S_PHASE], taken[S.S_CURRENT], taken[S.S_DRAWN]) == (S.PHASE_DISCARD, 0, c("Jh"))
    # discarding 2c: As Ad Ac | 2h 3h 4h | Th Jh Qh Kh is gin: 25 + the mover's 10
    over = play(taken, rules, S.A_DISCARD + c("2c"), S.A_KNOCK)
    assert (over[S.S_OUTCOME], over[S.S_WINNER], over[S.S_POINTS]) == (records.OUT_GIN, 0, 35)


def test_both_decline_the_upcard_and_the_non_dealer_draws_from_the_stock():
    state, rules = deal(make_deck(MOVER, LOOSE_DEALER, "Ks", "8c"))
    passed = step(state, rules, S.A_PASS)
    drawn = step(passed, rules, S.A_PASS)  # the dealer passes too: the mover draws 8c at once
    assert changes(passed, drawn) == {
        "S_PHASE": (S.PHASE_FIRST_UPCARD, S.PHASE_DISCARD),
        "S_CURRENT": (0, 1),
        "S_DECLINED[0]": (0, mask("Ks")),
        "S_HANDS[1]": (mask(MOVER), mask(MOVER) | mask("8c")),
        "S_SEEN[1]": (mask(MOVER) | mask("Ks"), mask(MOVER) | mask("Ks 8c")),
        "S_DRAWS[1]": (0, 1),
        "S_STOCK_POS": (0, 1),
        "S_DRAWN": (-1, c("8c")),
        "S_LEGAL": (0, mask(MOVER) | mask("8c")),  # a stock card may be discarded again
        "stock": list(drawn[S.S_STOCK + 1:S.S_STOCK + 31]),
    }


# ---- draw, discard, knock ------------------------------------------------------------------------


def _after_mover_discards_kc(rules="hoyle", dealer=LOOSE_DEALER, stock="8c"):
    """Both pass on Ks; the mover draws 8c and discards Kc: deadwood 8, may knock."""
    state, vector = deal(make_deck(MOVER, dealer, "Ks", stock), rules)
    state = play(state, vector, S.A_PASS, S.A_PASS)
    return step(state, vector, S.A_DISCARD + c("Kc")), vector


def test_a_discard_with_deadwood_within_the_limit_offers_the_knock():
    state, rules = deal(make_deck(MOVER, LOOSE_DEALER, "Ks", "8c"))
    state = play(state, rules, S.A_PASS, S.A_PASS)
    after = step(state, rules, S.A_DISCARD + c("Kc"))
    hand = mask(MOVER) | mask("8c")
    assert changes(state, after) == {
        "S_PHASE": (S.PHASE_DISCARD, S.PHASE_KNOCK),
        "S_HANDS[1]": (hand, hand & ~mask("Kc")),
        "S_DISCARDS[1]": (0, mask("Kc")),
        "S_SEEN[0]": (mask(LOOSE_DEALER) | mask("Ks"), mask(LOOSE_DEALER) | mask("Ks Kc")),
        "S_PILE_LEN": (1, 2),
        "S_PILE_MASK": (mask("Ks"), mask("Ks Kc")),
        "S_TURN": (0, 1),
        "S_DRAWN": (c("8c"), -1),
        "S_LEGAL": (hand, 0),
        "S_DEADWOOD": (-1, 8),
        "pile": [c("Ks"), c("Kc")],
    }
    assert legal(after, rules) == [S.A_KNOCK, S.A_NO_KNOCK]
    assert_only_legal_accepted(after, rules)


def test_no_knock_passes_the_turn_and_the_next_player_draws_stock_or_pile():
    knock, rules = _after_mover_discards_kc()
    draw = step(knock, rules, S.A_NO_KNOCK)
    assert changes(knock, draw) == {"S_PHASE": (S.PHASE_KNOCK, S.PHASE_DRAW), "S_CURRENT": (1, 0),
                                    "S_DEADWOOD": (8, -1)}
    assert legal(draw, rules) == [S.A_DRAW_STOCK, S.A_TAKE_PILE]
    assert_only_legal_accepted(draw, rules)
    # taking the pile's Kc: the dealer may discard anything but the Kc
    took = step(draw, rules, S.A_TAKE_PILE)
    assert (took[S.S_DRAWN], took[S.S_FROM_PILE], took[S.S_TOOK]) == (c("Kc"), 1, mask("Kc"))
    assert list(took[S.S_PILE:S.S_PILE + took[S.S_PILE_LEN]]) == [c("Ks")]
    assert_refused(took, rules, S.A_DISCARD + c("Kc"), S.ERR_ILLEGAL_DISCARD)
    assert_refused(took, rules, S.A_DISCARD + c("As"), S.ERR_ILLEGAL_DISCARD)  # not in its hand
    # drawing the stock passes on the pile's top: it counts as declined
    drew = step(draw, rules, S.A_DRAW_STOCK)
    second = int(draw[S.S_STOCK + 1])
    assert (drew[S.S_DRAWN], drew[S.S_FROM_PILE], drew[S.S_DECLINED]) == (second, 0, mask("Ks Kc"))
    assert drew[S.S_LEGAL] == drew[S.S_HANDS]  # a stock card may go straight back


def test_knock_then_the_layout_then_the_defence_layoffs_and_the_score():
    # K = 8 (8c).  The dealer lays off 9s on 9d9c9h and 4h on 5h6h7h: 57 - 13 = 44; 44 - 8 = 36
    knock, rules = _after_mover_discards_kc()
    arrange = step(knock, rules, S.A_KNOCK)
    assert changes(knock, arrange) == {"S_PHASE": (S.PHASE_KNOCK, S.PHASE_ARRANGE), "S_KNOCKER": (-1, 1)}
    assert legal(arrange, rules) == [S.A_ARRANGE]  # one least-deadwood arrangement
    assert_only_legal_accepted(arrange, rules)
    defend = step(arrange, rules, S.A_ARRANGE)
    assert changes(arrange, defend) == {
        "S_PHASE": (S.PHASE_ARRANGE, S.PHASE_DEFEND),
        "S_CURRENT": (1, 0),
        "S_SETS": (0, mask("9d 9c 9h")),
        "S_RUNS": (0, mask("2s 3s 4s 5h 6h 7h")),
    }
    # the dealer has no melds: one arrangement (nothing melded), the best response, or no layoffs
    assert legal(defend, rules) == [S.A_DEFEND_BEST, S.A_DEFEND, S.A_DEFEND_NO_LAYOFFS]
    assert_only_legal_accepted(defend, rules)
    over = step(defend, rules, S.A_DEFEND_BEST)
    assert changes(defend, over) == {
        "S_PHASE": (S.PHASE_DEFEND, S.PHASE_OVER),
        "S_OUTCOME": (-1, records.OUT_KNOCK),
        "S_WINNER": (-1, 1),
        "S_POINTS": (0, 36),
        "S_KNOCKER_DW": (-1, 8),
        "S_DEFENDER_DW": (-1, 44),
        "S_LAYOFF": (0, 13),
        "S_LAID": (0, mask("9s 4h")),
    }
    np.testing.assert_array_equal(step(defend, rules, S.A_DEFEND), over)  # the same, here
    # declining the layoffs keeps all 57: the knocker scores 57 - 8
    kept = step(defend, rules, S.A_DEFEND_NO_LAYOFFS)
    assert changes(defend, kept) == {
        "S_PHASE": (S.PHASE_DEFEND, S.PHASE_OVER), "S_OUTCOME": (-1, records.OUT_KNOCK), "S_WINNER": (-1, 1),
        "S_POINTS": (0, 49), "S_KNOCKER_DW": (-1, 8), "S_DEFENDER_DW": (-1, 57),
    }
    assert legal(over, rules) == []
    assert_only_legal_accepted(over, rules)


def test_a_layout_given_as_masks_is_checked():
    knock, rules = _after_mover_discards_kc()
    arrange = step(knock, rules, S.A_KNOCK)
    good_sets, good_runs = mask("9d 9c 9h"), mask("2s 3s 4s 5h 6h 7h")
    for sets, runs in [(good_sets, mask("2s 3s 4s 5h 6h")),  # leaves 7h: deadwood 15, not 8
                       (good_sets | mask("9s"), good_runs),  # 9s is not the knocker's
                       (mask("9d 9c"), good_runs | mask("9h")),  # a two-card set
                       (good_sets, good_runs | mask("9h"))]:  # a card in both
        before = arrange.copy()
        assert S.lay_out_nb(arrange, rules, np.int64(sets), np.int64(runs), NO_TRACE) == S.ERR_BAD_MELDS
        np.testing.assert_array_equal(arrange, before)
    assert S.lay_out_nb(arrange, rules, np.int64(good_sets), np.int64(good_runs), NO_TRACE) == S.ERR_NONE
    assert arrange[S.S_PHASE] == S.PHASE_DEFEND
    assert S.defend_nb(arrange, rules, np.int64(S.DEFEND_BEST), np.int64(0), NO_TRACE) == S.ERR_NONE
    assert arrange[S.S_POINTS] == 36


def test_the_knockers_choice_of_arrangement_decides_the_layoffs():
    # The mover draws 8c, discards Kc and knocks with As Ah 2d (deadwood 4):
    #       A 2 3 4 5 6 7 8 9 T J Q K
    #   ♠   x       x x x x              the 8s goes in the set of four 8s (k = 0)
    #   ♥   x             x              or ends the run 5s-8s (k = 1)
    #   ♦     x           x
    #   ♣                 x
    # The dealer (no melds, 69) holds 9s: it lays off on the run 5s-8s only.
    mover = "5s 6s 7s 8s 8h 8d As Ah 2d Kc"
    dealer = "9s Jh Qd 2c 4h 6d 3c Kh Th 5c"
    state, rules = deal(make_deck(mover, dealer, "Ks", "8c"))
    arrange = play(state, rules, S.A_PASS, S.A_PASS, S.A_DISCARD + c("Kc"), S.A_KNOCK)
    assert arrange[S.S_DEADWOOD] == 4
    assert legal(arrange, rules) == [S.A_ARRANGE, S.A_ARRANGE + 1]
    hand = simulator.Hand(deck=make_deck(mover, dealer, "Ks", "8c"))
    for a in (S.A_PASS, S.A_PASS, S.A_DISCARD + c("Kc"), S.A_KNOCK):
        hand.apply(a)
    assert hand.arrangements() == [(["8s", "8h", "8d", "8c"], ["5s", "6s", "7s"]),
                                   (["8h", "8d", "8c"], ["5s", "6s", "7s", "8s"])]
    four = play(arrange, rules, S.A_ARRANGE, S.A_DEFEND_BEST)
    run = play(arrange, rules, S.A_ARRANGE + 1, S.A_DEFEND_BEST)
    assert (four[S.S_LAID], four[S.S_DEFENDER_DW], four[S.S_POINTS]) == (0, 69, 65)
    assert (run[S.S_LAID], run[S.S_DEFENDER_DW], run[S.S_POINTS]) == (mask("9s"), 60, 56)
    assert_refused(arrange, rules, S.A_ARRANGE + 2)


def test_undercut_pays_the_defender():
    # dealer: Ah Ad Ac | 2h 3h 4h | 5d 6d 7d | 2c: deadwood 2 < 8: 8 - 2 + 20 (hoyle) = 26
    knock, rules = _after_mover_discards_kc(dealer="Ah Ad Ac 2h 3h 4h 5d 6d 7d 2c")
    over = play(knock, rules, S.A_KNOCK, S.A_ARRANGE, S.A_DEFEND_BEST)
    assert (over[S.S_OUTCOME], over[S.S_KNOCKER], over[S.S_WINNER], over[S.S_POINTS]) == (
        records.OUT_UNDERCUT, 1, 0, 26)


def test_gin_is_settled_without_a_layout_and_without_layoffs():
    # the mover draws As: As 2s 3s 4s, discards Kc: gin; the dealer's 9s and 4h stay: 25 + 57
    state, rules = deal(make_deck(MOVER, LOOSE_DEALER, "Ks", "As"))
    knock = play(state, rules, S.A_PASS, S.A_PASS, S.A_DISCARD + c("Kc"))
    assert (knock[S.S_PHASE], knock[S.S_DEADWOOD]) == (S.PHASE_KNOCK, 0)
    over = step(knock, rules, S.A_KNOCK)
    assert changes(knock, over) == {
        "S_PHASE": (S.PHASE_KNOCK, S.PHASE_OVER), "S_KNOCKER": (-1, 1),
        "S_OUTCOME": (-1, records.OUT_GIN), "S_WINNER": (-1, 1), "S_POINTS": (0, 82),
        "S_KNOCKER_DW": (-1, 0), "S_DEFENDER_DW": (-1, 57),
    }


@pytest.mark.parametrize("preset, phase", [("modern", S.PHASE_OVER), ("hoyle", S.PHASE_DISCARD)])
def test_big_gin_goes_out_on_the_draw_only_when_played(preset, phase):
    # mover 2s3s4s5s 6h7h8h 9d9c9h draws 9s: all eleven melded
    mover = "2s 3s 4s 5s 6h 7h 8h 9d 9c 9h"
    state, rules = deal(make_deck(mover, LOOSE_DEALER.replace("9s", "Ts"), "Ks", "9s"), preset)
    after = play(state, rules, S.A_PASS, S.A_PASS)
    assert after[S.S_PHASE] == phase
    if phase == S.PHASE_OVER:  # modern: gin 25 + big gin 6 + the dealer's 58
        assert (after[S.S_OUTCOME], after[S.S_KNOCKER], after[S.S_POINTS]) == (records.OUT_BIG_GIN, 1, 89)
        assert after[S.S_KNOCKER_DW] == 0 and after[S.S_LAYOFF] == 0


def test_oklahoma_upcard_sets_the_limit_and_a_spade_doubles():
    state, rules = deal(make_deck(MOVER, LOOSE_DEALER.replace("7s", "Ts"), "7s", "8c"),
                        Rules.preset("oklahoma", oklahoma_spade_double=True))
    assert (state[S.S_LIMIT], state[S.S_MULTIPLIER]) == (7, 2)
    knock = play(state, rules, S.A_PASS, S.A_PASS, S.A_DISCARD + c("Kc"))
    assert knock[S.S_PHASE] == S.PHASE_DRAW  # deadwood 8 > 7: no knock offered


# ---- the end of the stock ------------------------------------------------------------------------

# The dealer's hand for the end-of-stock cases: one card (7d) from knocking.
#       A 2 3 4 5 6 7 8 9 T J Q K
#   ♠   x               x
#   ♥   x x x                   x
#   ♦   x       x x
#   ♣   x
# As Ad Ac | 2h 3h 4h | 5d 6d + 9s Kh: deadwood 30; with 7d and Kh out: 9.
WAITER = "As Ad Ac 2h 3h 4h 5d 6d 9s Kh"


def _to_the_end_of_the_stock(rules, last=None):
    """Both pass on the upcard; then each turn draws the stock and discards the card drawn
    (the mover, deadwood 10 with Kc, declines every knock) until the mover's 29th draw
    (``last``, else the stock's own card), discarded: the stock is down to two cards."""
    stock = "Qs Js Ts 8s 7s 6s 5s 8h 9h Th Jh Qh 7c 8c Tc Jc Qc Kc 2d 3d 4d 8d Td Jd Qd Kd 2c 3c"
    stock = stock.replace("Kc", "Ks")  # Kc is the mover's
    deck = make_deck(MOVER, WAITER, "6c", stock + (f" {last}" if last else ""))
    state, vector = deal(deck, rules)
    state = play(state, vector, S.A_PASS, S.A_PASS)
    while True:
        state = step(state, vector, S.A_DISCARD + int(state[S.S_DRAWN]))
        if state[S.S_PHASE] == S.PHASE_KNOCK:
            state = step(state, vector, S.A_NO_KNOCK)
        if state[S.S_PHASE] != S.PHASE_DRAW:
            return state, vector
        state = step(state, vector, S.A_DRAW_STOCK)


def test_the_hand_is_dead_when_a_discard_leaves_two_stock_cards():
    over, _ = _to_the_end_of_the_stock("hoyle")
    assert over[S.S_PHASE] == S.PHASE_OVER and over[S.S_OUTCOME] == records.OUT_DEAD
    assert over[S.S_STOCK_N] - over[S.S_STOCK_POS] == 2 and over[S.S_TURN] == 29
    assert (over[S.S_WINNER], over[S.S_POINTS], over[S.S_KNOCKER]) == (-1, 0, -1)


def test_last_discard_rule_offers_the_discard_only_when_it_allows_a_knock():
    rules = Rules.preset("hoyle", last_discard_rule=True)
    dead, _ = _to_the_end_of_the_stock(rules)  # the last discard (Ah) leaves the waiter at 20
    assert dead[S.S_OUTCOME] == records.OUT_DEAD
    offer, vector = _to_the_end_of_the_stock(rules, last="7d")
    assert (offer[S.S_PHASE], offer[S.S_CURRENT]) == (S.PHASE_LAST_DISCARD, 0)
    assert legal(offer, vector) == [S.A_TAKE_PILE, S.A_PASS]
    assert_only_legal_accepted(offer, vector)
    passed = step(offer, vector, S.A_PASS)
    assert passed[S.S_OUTCOME] == records.OUT_DEAD
    took = step(offer, vector, S.A_TAKE_PILE)
    assert (took[S.S_PHASE], took[S.S_LAST_CHANCE], took[S.S_DRAWN]) == (S.PHASE_DISCARD, 1, c("7d"))
    # only discards that leave a knock: Kh (deadwood 9) or 9s (deadwood 10)
    assert took[S.S_LEGAL] == mask("9s Kh")
    assert_refused(took, vector, S.A_DISCARD + c("As"), S.ERR_ILLEGAL_DISCARD)
    # the knock is automatic: straight to the layout
    arrange = step(took, vector, S.A_DISCARD + c("Kh"))
    assert (arrange[S.S_PHASE], arrange[S.S_KNOCKER], arrange[S.S_DEADWOOD]) == (S.PHASE_ARRANGE, 0, 9)


@pytest.mark.parametrize("max_reshuffles", [0, 1])
def test_reshuffle_turns_the_pile_less_its_top_into_a_new_stock(max_reshuffles):
    # two hands that never knock; every stock card goes straight back to the pile, and
    # the mover's 31st draw empties the stock
    mover, dealer = LOOSE_DEALER, "Kd Kh 2s 3c 4d 5h 6s 7c 8d 9h"
    rules = Rules.preset("hoyle", reshuffle_stock=True, max_reshuffles=max_reshuffles)
    state, vector = deal(make_deck(mover, dealer, "Tc"), rules, deck_rng=987654321)
    state = play(state, vector, S.A_PASS, S.A_PASS)
    while state[S.S_STOCK_N] - state[S.S_STOCK_POS] > 0:
        state = play(state, vector, S.A_DISCARD + int(state[S.S_DRAWN]), S.A_DRAW_STOCK)
    assert (state[S.S_PHASE], state[S.S_CURRENT], state[S.S_TURN]) == (S.PHASE_DISCARD, 1, 30)
    discard = S.A_DISCARD + int(state[S.S_DRAWN])
    pile = [int(x) for x in state[S.S_PILE:S.S_PILE + state[S.S_PILE_LEN]]] + [discard]
    assert bool(S.reshuffle_next_nb(state, vector, np.int64(discard))) == (max_reshuffles > 0)
    after = step(state, vector, discard)
    if max_reshuffles == 0:
        assert after[S.S_OUTCOME] == records.OUT_DEAD and after[S.S_STOCK_N] == after[S.S_STOCK_POS]
        return
    # the new stock is the old pile less its top, shuffled by the reshuffle stream
    expected = np.array(pile[:-1] + [0] * (64 - len(pile) + 1), np.int64)
    stream = np.array([987654321], np.uint64)
    from simulator.core.rng import shuffle_nb

    shuffle_nb(stream, expected, np.int64(len(pile) - 1))
    hand = int(state[S.S_HANDS + 1])
    assert changes(state, after) == {
        "S_PHASE": (S.PHASE_DISCARD, S.PHASE_DRAW), "S_CURRENT": (1, 0),
        "S_HANDS[1]": (hand, hand & ~(1 << discard)),
        "S_DISCARDS[1]": (int(state[S.S_DISCARDS + 1]), int(state[S.S_DISCARDS + 1]) | 1 << discard),
        "S_SEEN[0]": (int(state[S.S_SEEN]), int(state[S.S_SEEN]) | 1 << discard),
        "S_STOCK_POS": (31, 0),  # (the new stock has 32 - 1 = 31 cards, as the old one)
        "S_PILE_LEN": (len(pile) - 1, 1), "S_PILE_MASK": (int(state[S.S_PILE_MASK]), 1 << discard),
        "S_TURN": (30, 31), "S_RESHUFFLES": (0, 1), "S_DRAWN": (discard, -1),
        "S_LEGAL": (hand, 0), "S_DECK_RNG": (987654321, int(stream.view(np.int64)[0])),
        "pile": [discard], "stock": [int(x) for x in expected[:len(pile) - 1]],
    }
    assert len(pile) - 1 == after[S.S_STOCK_N] == 31
    assert sorted(after[S.S_STOCK:S.S_STOCK + len(pile) - 1]) == sorted(pile[:-1])


def test_endless_pile_draws_end_at_the_turn_guard():
    # both players take the pile's top and throw back another card: the stock never runs out
    state, rules = deal(make_deck(MOVER, LOOSE_DEALER, "Ks", "8c"))
    state = play(state, rules, S.A_PASS, S.A_PASS)
    while state[S.S_PHASE] != S.PHASE_OVER:
        phase = state[S.S_PHASE]
        if phase == S.PHASE_DRAW:
            state = step(state, rules, S.A_TAKE_PILE)
        elif phase == S.PHASE_KNOCK:
            state = step(state, rules, S.A_NO_KNOCK)
        else:
            state = step(state, rules, legal(state, rules)[0])
    assert state[S.S_OUTCOME] == records.OUT_DEAD and state[S.S_TURN] == S.MAX_TURNS_PER_HAND
    assert state[S.S_STOCK_N] - state[S.S_STOCK_POS] == 30


# ---- names, helpers, compile flags ----------------------------------------------------------------


def test_every_action_has_a_name():
    assert simulator.action_name(c("7h")) == "discard 7h"
    assert [simulator.action_name(a) for a in range(64, 70)] == [
        "draw stock", "take pile", "pass", "knock", "no knock", "arrange 0"]
    assert [simulator.action_name(a) for a in (104, 105, 106, 141, 142)] == [
        "arrange 35", "defend best", "defend 0", "defend 35", "defend no layoffs"]
    assert simulator.action_name(S.N_ACTIONS) == f"action {S.N_ACTIONS} (no such action)"
    assert len({simulator.action_name(a) for a in range(S.N_ACTIONS)}) == S.N_ACTIONS
    assert S.PHASE_NAMES[S.PHASE_OVER] == "over" and len(S.PHASE_NAMES) == S.PHASE_OVER + 1


def test_rules_core_functions_called_by_the_phase_functions_do_not_inherit_forceinline():
    """numba hands ``forceinline`` (and the runtime flag) on to functions first compiled
    from inside a function that sets it: every rules-core function the state module
    calls must set ``forceinline=False`` itself, or the engine's compile time balloons."""
    from numba.core.registry import CPUDispatcher

    glue = {n for n in dir(S) if isinstance(getattr(S, n), CPUDispatcher)
            and getattr(S, n).py_func.__module__ == S.__name__}
    called = set()
    for name in glue:
        code = getattr(S, name).py_func.__code__
        called |= {n for n in code.co_names if isinstance(getattr(S, n, None), CPUDispatcher)}
    outside = called - glue
    assert outside, "expected calls into the rules core"
    for name in outside:
        assert getattr(S, name).targetoptions.get("forceinline") is False, name


# ---- simulator.Hand -------------------------------------------------------------------------------

HAND_PAIRS = [("simple", "knock_early"), ("gin_hunter", "random"), ("undercut_aware", "defensive"),
              ("knock_early", "threshold_schedule"), ("random", "simple"), ("defensive", "gin_hunter"),
              ("threshold_schedule", "undercut_aware")]
HAND_DEALS = 300


@pytest.mark.parametrize("preset", list(Rules.PRESETS))
def test_hand_driven_by_the_strategies_reproduces_simulate(preset):
    a, b = HAND_PAIRS[list(Rules.PRESETS).index(preset)]
    seed = 1000 + list(Rules.PRESETS).index(preset)
    df = simulator.simulate(a, b, preset, n_deals=HAND_DEALS, seed=seed)
    records_ = []
    for d in range(HAND_DEALS):
        h = simulator.Hand(preset, seed, d, a=a, b=b)
        while not h.is_over():
            h.apply(h.bot_action())
        records_.append(h.record())
        if d < 20:  # the readable row too
            row, want = h.result(), df.iloc[d].to_dict()
            assert row.keys() == want.keys()
            assert all(x is y or x == y for x, y in zip(row.values(), want.values())), (d, row, want)
    pd.testing.assert_frame_equal(api.hand_frame(np.array(records_)), df, check_exact=True)
    np.testing.assert_array_equal(np.array(records_), api.play_deal_records(a, b, preset, 0, HAND_DEALS, seed))


def test_hand_clone_is_independent_and_replays_identically():
    h = simulator.Hand("tournament", 5, 3, a="random", b="random")
    for _ in range(7):
        h.apply(h.bot_action())
    before = h.state.copy()
    g = h.clone()
    first = []
    while not g.is_over():
        a = g.bot_action()
        first.append(a)
        g.apply(a)
    np.testing.assert_array_equal(h.state, before)  # h untouched
    again = h.clone()
    second = []
    while not again.is_over():
        a = again.bot_action()
        second.append(a)
        again.apply(a)
    assert first == second and g.result() == again.result() and g.events == again.events
    with pytest.raises(ValueError):
        h.state[0] = 1  # read-only


def test_hand_events_are_the_trace_of_trace_deal():
    h = simulator.Hand("oklahoma", 9, 4, a="gin_hunter", b="simple")
    while not h.is_over():
        h.apply(h.bot_action())
    _, events = api.trace_deal("gin_hunter", "simple", "oklahoma", seed=9, deal=4)
    assert h.events == events


def test_illegal_actions_raise_one_line_naming_the_action_and_the_legal_ones():
    h = simulator.Hand("hoyle", 0, 0)
    with pytest.raises(ValueError) as info:
        h.apply(S.A_KNOCK)
    assert str(info.value) == (f"illegal action 67 (knock) for player {h.current_player} in phase first_upcard; "
                               "legal: 65 (take pile), 66 (pass)")
    for bad in (-1, 1000, "knock", 65.0, True):
        with pytest.raises(ValueError) as info:
            h.apply(bad)
        assert "\n" not in str(info.value) and "legal: 65 (take pile), 66 (pass)" in str(info.value)
    assert h.phase_name == "first_upcard" and h.events[-1][1] == "upcard"


def _hidden(h: "simulator.Hand", player: int) -> tuple[list[int], list[int]]:
    """Cards ``player`` cannot know: the opponent's cards it never saw taken, and the
    stock's cards it has not seen."""
    st = h.state
    opp = 1 - player
    seen = int(st[S.S_SEEN + player]) | int(st[S.S_TOOK + opp]) | int(st[S.S_DISCARDS + opp])
    seen |= int(st[S.S_SETS]) | int(st[S.S_RUNS])  # the knocker's melds, public once laid out
    opp_cards = [x for x in range(64) if (int(st[S.S_HANDS + opp]) >> x) & 1 and not (seen >> x) & 1]
    stock = [int(x) for x in st[S.S_STOCK + st[S.S_STOCK_POS]:S.S_STOCK + st[S.S_STOCK_N]] if not (seen >> int(x)) & 1]
    return opp_cards, stock


def test_observations_never_reveal_the_opponents_hand_or_the_stock():
    """Swapping a card of the opponent's hand that the player never saw with an unseen
    stock card changes nothing in the player's observation or view, in any phase."""
    rng = np.random.default_rng(7)
    checked = 0
    for d in range(60):
        h = simulator.Hand("hoyle", 21, d, a="random", b="simple")
        while not h.is_over():
            for player in (0, 1):
                opp_cards, stock = _hidden(h, player)
                if not opp_cards or not stock:
                    continue
                x, y = int(rng.choice(opp_cards)), int(rng.choice(stock))
                g = h.clone()
                st = g._state  # the swap: a state the player cannot tell apart
                st[S.S_HANDS + 1 - player] ^= (1 << x) | (1 << y)
                st[S.S_SEEN + 1 - player] ^= (1 << x) | (1 << y)
                if st[S.S_PHASE] == S.PHASE_DISCARD and st[S.S_CURRENT] != player:
                    st[S.S_LEGAL] ^= (1 << x) | (1 << y)
                    if st[S.S_DRAWN] == x:
                        st[S.S_DRAWN] = y
                pos = int(np.flatnonzero(st[S.S_STOCK:S.S_STOCK + 64] == y)[0])
                st[S.S_STOCK + pos] = x
                assert g.observation(player) == h.observation(player)
                np.testing.assert_array_equal(g.view(player), h.view(player))
                text = repr(h.observation(player))
                assert all(f"'{simulator.format_cards([z])}'" not in text for z in opp_cards + stock)
                checked += 1
            h.apply(h.bot_action())
    assert checked > 1000


def test_observation_shows_the_players_own_decision_data():
    deck = make_deck(MOVER, LOOSE_DEALER, "Ks", "8c")
    h = simulator.Hand(deck=deck)
    h.apply(S.A_PASS)
    h.apply(S.A_PASS)
    mine, theirs = h.observation(1), h.observation(0)
    assert mine["drawn"] == "8c" and mine["deadwood"] == 8 and len(mine["hand"]) == 11
    assert set(mine["legal_discards"]) == set(mine["hand"])
    assert theirs["drawn"] is None and theirs["legal_discards"] == [] and len(theirs["hand"]) == 10
    assert mine["opponent_declined"] == ["Ks"] and theirs["opponent_declined"] == ["Ks"]
    assert (mine["stock_size"], mine["pile"], mine["top"], mine["phase"]) == (30, ["Ks"], "Ks", "discard")


# ---- a rollout inside numba -----------------------------------------------------------------------


@njit
def _two_rollouts(work, rules):
    """Copy the work row ``work`` (the hand, the strategies' streams and memories) twice and play
    each copy to the end with the engine's loop; return both final states and records."""
    finals = np.zeros((2, S.N_STATE), np.int64)
    outs = np.zeros((2, records.N_HAND_COLS), np.int64)
    no_trace = np.zeros((0, 3), np.int64)
    for k in range(2):
        w = work.copy()
        run_until_nb(w, rules, np.int64(0), outs[k], no_trace)
        for i in range(S.N_STATE):
            finals[k, i] = w[i]
    return finals, outs


def test_a_numba_rollout_from_a_copied_mid_hand_state():
    """From a state after six decisions: two copies played forward inside numba with the
    same strategies and streams end identically, the original is untouched, and the
    result is the batch engine's row for that deal."""
    a, b = "simple", "undercut_aware"
    h = simulator.Hand("tournament", 3, 7, a=a, b=b)
    for _ in range(6):
        h.apply(h.bot_action())
    assert not h.is_over()
    state = h.state.copy()
    finals, outs = _two_rollouts(h._work, h._rules)  # the hand's work row: its strategies seated
    np.testing.assert_array_equal(state, h.state)  # the original is untouched
    np.testing.assert_array_equal(finals[0], finals[1])
    np.testing.assert_array_equal(outs[0], outs[1])
    assert finals[0][S.S_PHASE] == S.PHASE_OVER
    want = api.play_deal_records(a, b, "tournament", 7, 1, 3)[0]
    play = [records.HAND_RECORD_NAMES.index(n) for n in records.HAND_RECORD_NAMES
            if n not in ("deal", "pair", "a_seat", "game", "hand_in_game")]
    np.testing.assert_array_equal(outs[0][play], want[play])


# ---- one schema per record ------------------------------------------------------------------------


def test_the_record_schema_drives_the_frames_the_indices_and_the_reference():
    hand = api.hand_frame(np.zeros((0, records.N_HAND_COLS), np.int64))
    assert [(n, str(t)) for n, t in hand.dtypes.items()] == [
        (n, str(pd.api.types.pandas_dtype(t))) for n, t, _ in records.frame_columns(records.HAND_ROW)]
    game = api.game_frame(np.zeros((0, records.N_GAME_COLS), np.int64))
    assert list(game.columns) == [n for n, _, _ in records.frame_columns(records.GAME_ROW)]
    assert records.HAND_RECORD_NAMES.index("error_seat") == records.H_ERROR_SEAT == 20
    for name, index in records.HAND_CONSTANTS.items():
        assert getattr(C, name) == index
    import reference_engine as R

    assert R.HAND_COLUMNS == records.HAND_RECORD_NAMES and R.GAME_COLUMNS == records.GAME_RECORD_NAMES
    doc = api.__doc__
    assert all(n in doc for n, _, _ in records.frame_columns(records.HAND_ROW) if not n.endswith("_b"))
    assert list(records.RULE_SLOT_NAMES) == [n[2:].lower() for n in sorted(records.RULE_CONSTANTS,
                                                                              key=records.RULE_CONSTANTS.get)]
    assert Rules.preset("oklahoma", oklahoma_ace="one").to_array()[records.R_OKLAHOMA_ACE_LIMIT] == 1
