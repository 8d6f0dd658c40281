"""``expert``: a heuristic player in the style of the EAAI gin rummy competition's winner.

Policy, in plain words (rules: docs/rules.md):

* first upcard and every draw: take the face-up card only if it lands in a meld with the
  current hand (a set of its rank or a run through it) *and* taking it (then discarding
  well) lowers the deadwood; otherwise draw from the stock;
* discard: among the legal discards (never the card just taken from the pile), minimise

      score(c) = d(c) − ``lookahead`` × G(c) + ``danger`` × M(c)

  - d(c): the deadwood of the ten cards kept;
  - G(c): the one-draw look-ahead, the expected fall in deadwood from the next stock draw
    (each unseen card u weighted by the chance it is in the stock, 1 − p(u) from the
    opponent belief; the gain from u is d(c) less the least deadwood after drawing u and
    discarding well, or 0);
  - M(c): the chance that c completes or extends a meld in the opponent's hand, from the
    belief (``strategies.belief.meld_chance_nb``).

  When it is about to knock (some discard leaves deadwood it will knock with), it discards
  for the least deadwood, ties broken by the smaller danger;
* knock: always with gin; with deadwood ≤ ``knock_at`` (−1: the knock limit in force) only
  while it has drawn at most ``knock_turns`` cards this hand, or once the stock holds at
  most ``late_stock`` cards; otherwise play on for gin;
* last discard (``last_discard_rule``): take it when that allows a knock;
* lay out, among its least-deadwood arrangements (``simulator.core.melds.arrangement_nb``), the
  one that leaves the opponent the fewest layoffs: the least expected value of the cards
  the opponent may lay off, each candidate card weighted by the belief's probability that
  the opponent holds it (``layout`` = 1: a random least-deadwood arrangement instead).

Parameters (in this order): ``lookahead`` (default 1: weight of the look-ahead gain),
``danger`` (default 4: deadwood points per unit of meld chance), ``knock_turns`` (default
3), ``late_stock`` (default 0: never), ``knock_at`` (default −1), ``layout`` (default 0).
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import ALLOCATES, CORE, MERGED
from simulator.core.cards import CARD_VALUE
from simulator.core.melds import (
    arrangement_nb,
    chain_layable_nb,
    discard_deadwoods_nb,
    discard_key_nb,
    lowest_card_nb,
    melds_with_card_nb,
    min_deadwood_nb,
    set_layoff_targets_nb,
)

from .belief import THETA, belief_nb, meld_chance_nb
from .common import arrange_random_nb, knock_threshold_nb, lowers_deadwood_nb
from .view import (
    PHASE_LAST_DISCARD,
    V_DEADWOOD,
    V_HAND,
    V_KNOCK_LIMIT,
    V_LEGAL_DISCARDS,
    V_MY_DRAWS,
    V_PHASE,
    V_STOCK_LEFT,
    V_TOP,
)

PARAMS = {"lookahead": 1.0, "danger": 4.0, "knock_turns": 3.0, "late_stock": 0.0, "knock_at": -1.0, "layout": 0.0}
#: integral parameters and their allowed values (``strategies.registry``): draws, stock cards, a flag
PARAM_RANGES = {"knock_turns": (0, 99), "late_stock": (0, 52), "layout": (0, 1)}
SUMMARY = "EAAI-winner style: takes melding cards that lower deadwood; discards by deadwood, look-ahead and danger; knocks early only, then plays for gin"
DEFENCE = "best"  # how it defends (reports name it): the engine's best response after a knock


@CORE
def may_knock_nb(params, view, deadwood):
    """Whether ``expert`` knocks with ``deadwood`` in this view (before score awareness)."""
    if deadwood == 0:
        return True
    if deadwood > knock_threshold_nb(params[4], view):
        return False
    return view[V_MY_DRAWS] <= params[2] or view[V_STOCK_LEFT] <= params[3]


@ALLOCATES  # (both stated: the dispatch, inlined and without NRT, would pass its flags on)
def take_nb(params, view, pile, rules, rng, memory):
    top = view[V_TOP]
    if top < 0:
        return False
    hand = view[V_HAND]
    if view[V_PHASE] == PHASE_LAST_DISCARD:
        dw, _ = discard_deadwoods_nb(hand | (np.int64(1) << top), hand)
        return dw <= view[V_KNOCK_LIMIT]
    return melds_with_card_nb(hand, top) and lowers_deadwood_nb(hand, top)


@ALLOCATES
def lookahead_gain_nb(kept, deadwood, cand, probs):
    """Expected fall in deadwood of the ten cards ``kept`` from one stock draw (each
    candidate weighted by 1 − the chance the opponent holds it)."""
    total_w = 0.0
    gain = 0.0
    rest = cand
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        w = 1.0 - probs[card]
        if w <= 0.0:
            continue
        total_w += w
        hand = kept | (np.int64(1) << card)
        dw, _ = discard_deadwoods_nb(hand, hand)
        if dw < deadwood:
            gain += w * (deadwood - dw)
    return gain / total_w if total_w > 0 else 0.0


@ALLOCATES
def discard_scores_nb(params, view, scores):
    """Fill ``scores[c]`` for each legal discard c (``np.inf`` elsewhere); returns the best
    card.  The search player ``mc`` uses these scores to prune its candidates."""
    hand = view[V_HAND]
    legal = view[V_LEGAL_DISCARDS] & hand
    weights = np.empty(64, np.float64)
    probs = np.empty(64, np.float64)
    cand, _ = belief_nb(view, THETA, weights, probs)
    for c in range(64):
        scores[c] = np.inf
    best_dw, _ = discard_deadwoods_nb(hand, legal)
    knocking = may_knock_nb(params, view, best_dw)
    best_card = np.int64(-1)
    best_score = np.inf
    rest = legal
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        kept = hand & ~(np.int64(1) << card)
        dw = min_deadwood_nb(kept)
        danger = meld_chance_nb(card, probs)
        if knocking:
            score = dw + 0.01 * danger
        else:
            score = dw + params[1] * danger
            if params[0] != 0:
                score -= params[0] * lookahead_gain_nb(kept, dw, cand, probs)
        scores[card] = score
        if score < best_score - 1e-12 or (
                abs(score - best_score) <= 1e-12 and discard_key_nb(card) > discard_key_nb(best_card)):
            best_score = score
            best_card = card
    return best_card


@ALLOCATES  # (both stated: the dispatch, inlined and without NRT, would pass its flags on)
def discard_nb(params, view, pile, rules, rng, memory):
    scores = np.empty(64, np.float64)
    return discard_scores_nb(params, view, scores)


@ALLOCATES  # (both stated: the dispatch, inlined and without NRT, would pass its flags on)
def knock_nb(params, view, pile, rules, rng, memory):
    return may_knock_nb(params, view, view[V_DEADWOOD])


@MERGED
def arrange_fewest_layoffs_nb(view):
    """The least-deadwood arrangement with the least expected layoff value (belief)."""
    weights = np.empty(64, np.float64)
    probs = np.empty(64, np.float64)
    cand, _ = belief_nb(view, THETA, weights, probs)
    hand = view[V_HAND]
    n = arrangement_nb(hand, np.int64(-1))[2]
    best_sets = np.int64(0)
    best_runs = np.int64(0)
    best = np.inf
    for k in range(n):
        sets, runs, _ = arrangement_nb(hand, np.int64(k))
        laid = chain_layable_nb(cand, set_layoff_targets_nb(sets), runs)
        exposure = 0.0
        while laid:
            card = lowest_card_nb(laid)
            laid &= laid - 1
            exposure += probs[card] * CARD_VALUE[card]
        if exposure < best:
            best = exposure
            best_sets = sets
            best_runs = runs
    return best_sets, best_runs


@ALLOCATES  # (both stated: the dispatch, inlined and without NRT, would pass its flags on)
def arrange_nb(params, view, pile, rules, rng, memory):
    if params[5] == 1:
        return arrange_random_nb(view, rng)
    return arrange_fewest_layoffs_nb(view)
