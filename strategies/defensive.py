"""``defensive``: discards that keep away from what the opponent is collecting.

Policy:

* first upcard and every draw: take the face-up card when it would be part of a meld with
  the current hand (a set of its rank or a run through it) — the sources' tip; otherwise
  draw the stock;
* discard: among the legal discards (never the card just taken from the pile), minimise

      score(c) = deadwood left after discarding c  +  ``weight`` × danger(c)

  where danger(c) counts the opponent's known cards c could meld with, less a credit for
  the cards it showed it does not want:

  - +1 for each card the opponent took from the pile and still holds (``V_OPP_TOOK``)
    that has c's rank (c would help a set) or c's suit within two ranks of c (c would
    make or extend a run with it);
  - −``relief`` for each card the opponent passed on — pile tops it declined
    (``V_OPP_DECLINED``) and cards it discarded (``V_OPP_DISCARDS``) — that has c's rank
    or c's suit one rank from c: a card next to an unwanted card is less likely wanted.

  Ties: less deadwood, then highest value, then rank, then suit.  Danger no longer matters
  once the hand ends, so when some legal discard leaves deadwood at or below the knock
  threshold, it discards for the least deadwood (and knocks);
* knock when deadwood ≤ ``knock_at`` (−1: the knock limit in force);
* last discard (``last_discard_rule``): take it when it allows a knock at ``knock_at``;
* lay out the least-deadwood melds that expose the least value of live cards to layoffs;
* defend with the best response: melds and layoffs leaving the least deadwood, breaking its
  own melds when that pays (``DEFENCE = "best"``).

Parameters (in this order): ``weight`` (default 5: deadwood points one unit of danger is
worth), ``knock_at`` (default −1 = the knock limit in force), ``relief`` (default 0.5).
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import CORE, HOT
from simulator.core.cards import RANK_MASK
from simulator.core.melds import (
    discard_deadwoods_nb,
    discard_key_nb,
    lowest_card_nb,
    melds_with_card_nb,
    min_deadwood_nb,
    popcount_nb,
    preferred_discard_nb,
    rank_cards_nb,
)
from strategies.common import least_exposure_arrange_nb, default_defend_nb, knock_threshold_nb
from strategies.thresholds import knock_at_threshold
from strategies.view import (
    PHASE_LAST_DISCARD,
    V_DEADWOOD,
    V_HAND,
    V_LEGAL_DISCARDS,
    V_OPP_DECLINED,
    V_OPP_DISCARDS,
    V_OPP_TOOK,
    V_PHASE,
    V_TOP,
)

PARAMS = {"weight": 5.0, "knock_at": -1.0, "relief": 0.5}
SUMMARY = "takes cards that meld; discards minimising deadwood + weight x danger to the opponent; knocks at knock_at"
DEFENCE = "best"  # how it defends (reports name it): the engine's best response
#: its knock rule as a threshold by draw (``strategies.thresholds``): ``knock_at``, −1 the limit
threshold = knock_at_threshold

_RANKS = np.int64(RANK_MASK)


@CORE
def danger_nb(card, took, passed, relief):
    """How much ``card`` could help the opponent: +1 per taken card of its rank or of its
    suit within two ranks, −``relief`` per passed card of its rank or of its suit one rank
    away."""
    bit = np.int64(1) << card
    suit_cards = _RANKS << (16 * (card >> 4))
    same_rank = rank_cards_nb(card & 15) & ~bit
    near1 = ((bit << 1) | (bit >> 1)) & suit_cards
    near2 = (near1 | (bit << 2) | (bit >> 2)) & suit_cards
    wanted = popcount_nb(took & (same_rank | near2))
    unwanted = popcount_nb(passed & (same_rank | near1))
    return wanted - relief * unwanted


@HOT
def take_nb(params, view, pile, rules, rng, memory):
    top = view[V_TOP]
    if top < 0:
        return False
    hand = view[V_HAND]
    if view[V_PHASE] == PHASE_LAST_DISCARD:
        dw, _ = discard_deadwoods_nb(hand | (np.int64(1) << top), hand)
        return dw <= knock_threshold_nb(params[1], view)
    return melds_with_card_nb(hand, top)


@HOT
def discard_nb(params, view, pile, rules, rng, memory):
    hand = view[V_HAND]
    legal = view[V_LEGAL_DISCARDS] & hand
    best_dw, optimal = discard_deadwoods_nb(hand, legal)
    if best_dw <= knock_threshold_nb(params[1], view):
        return preferred_discard_nb(optimal)  # it will knock: danger no longer matters
    weight = params[0]
    relief = params[2]
    took = view[V_OPP_TOOK]
    passed = view[V_OPP_DECLINED] | view[V_OPP_DISCARDS]
    best_card = np.int64(-1)
    best_score = np.inf
    best_card_dw = np.int64(0)
    rest = legal
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        dw = min_deadwood_nb(hand & ~(np.int64(1) << card))
        score = dw + weight * danger_nb(card, took, passed, relief)
        better = False
        if best_card < 0 or score < best_score:
            better = True
        elif score == best_score:
            if dw < best_card_dw:
                better = True
            elif dw == best_card_dw and discard_key_nb(card) > discard_key_nb(best_card):
                better = True
        if better:
            best_card = card
            best_score = score
            best_card_dw = dw
    return best_card


@HOT
def knock_nb(params, view, pile, rules, rng, memory):
    return view[V_DEADWOOD] <= knock_threshold_nb(params[1], view)


# the layout: least-deadwood melds exposing the least to layoffs (shared, compiled once)
arrange_nb = least_exposure_arrange_nb


# the defence: the best response, computed by the engine (strategies.view.DEFEND_BEST)
defend_nb = default_defend_nb
