"""Building blocks shared by the built-in strategies (numba).

Every helper reads only the player's view (see ``strategies.view``).
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import CORE, MERGED
from simulator.core.cards import FULL_DECK_MASK
from simulator.core.melds import (
    KNOCKER_RANDOM,
    KNOCKER_VS_LIVE,
    arrangement_nb,
    arrangement_scan_nb,
    discard_deadwoods_nb,
    knocker_arrangement_nb,
    min_deadwood_nb,
    preferred_discard_nb,
)
from simulator.core.rng import below_nb, next_u64_nb

from .view import DEFEND_BEST, V_HAND, V_KNOCK_LIMIT, V_OPP_TOOK, V_PILE_MASK, V_TOP

_DECK = np.int64(FULL_DECK_MASK)


@CORE
def knock_threshold_nb(knock_at, view):
    """The most deadwood a player knocks with: its ``knock_at`` parameter, or the knock
    limit in force (docs/rules.md, "Knock limits") when ``knock_at`` is negative."""
    if knock_at < 0:
        return np.float64(view[V_KNOCK_LIMIT])
    return np.float64(knock_at)


@CORE
def last_discard_deadwood_nb(view):
    """The deadwood the hand would knock with after taking the last discard (``view[V_TOP]``)
    and discarding its best card (``last_discard_rule``), or -1 when there is no discard."""
    top = view[V_TOP]
    if top < 0:
        return np.int64(-1)
    hand = view[V_HAND]
    dw, _ = discard_deadwoods_nb(hand | (np.int64(1) << top), hand)
    return np.int64(dw)


@MERGED
def lowers_deadwood_nb(hand, card):
    """True when taking ``card`` and then discarding well leaves less deadwood than now
    (the taken card itself may not be discarded)."""
    dw_after, _ = discard_deadwoods_nb(hand | (np.int64(1) << card), hand)
    return dw_after < min_deadwood_nb(hand)


@CORE
def greedy_discard_nb(hand, legal):
    """The legal discard leaving the least deadwood; ties as ``best_discard`` breaks them
    (highest value, then rank, then suit)."""
    _, optimal = discard_deadwoods_nb(hand, legal)
    return preferred_discard_nb(optimal)


@CORE
def greedy_take_nb(view):
    """Take the pile's top card when that lowers deadwood."""
    top = view[V_TOP]
    return top >= 0 and lowers_deadwood_nb(view[V_HAND], top)


@CORE
def live_cards_nb(view):
    """Cards the opponent might hold: not in own hand and not in the pile."""
    return _DECK & ~view[V_HAND] & ~view[V_PILE_MASK] | view[V_OPP_TOOK]


@CORE
def arrange_least_exposure_nb(view):
    """Least-deadwood melds that expose the least value of live cards to layoffs."""
    sets, runs, _ = knocker_arrangement_nb(view[V_HAND], live_cards_nb(view), np.int64(KNOCKER_VS_LIVE))
    return sets, runs


@CORE
def least_exposure_arrange_nb(params, view, pile, rules, rng, memory):
    """A ready-made ``arrange_nb`` decision (the strategy-module signature): lay out the
    least-deadwood melds that expose the least value of live cards to layoffs
    (``arrange_least_exposure_nb``).  Strategies share this one function rather than each
    wrapping it, so numba compiles it once for all of them."""
    return arrange_least_exposure_nb(view)


@CORE
def arrange_random_nb(view, rng):
    """A least-deadwood arrangement chosen at random."""
    salt = np.int64(next_u64_nb(rng) >> np.uint64(1))
    sets, runs, _ = knocker_arrangement_nb(view[V_HAND], salt, np.int64(KNOCKER_RANDOM))
    return sets, runs


@CORE
def first_arrange_nb(params, view, pile, rules, rng, memory):
    """A ready-made ``arrange_nb`` (and ``defend_nb``) decision: the first least-deadwood
    arrangement of the hand in the canonical order (``simulator.core.melds.arrangement_nb``),
    for a player whose source lays out "the best melds" without saying which.  Shared, so
    numba compiles it once for all of them."""
    sets, runs, _ = arrangement_nb(view[V_HAND], np.int64(0))
    return sets, runs


@CORE
def deadwood_taking_top_nb(view):
    """The least deadwood left after taking the face-up card ``view[V_TOP]`` and discarding
    another card (the card taken may not go back: docs/rules.md, "The turn"); a large
    number when there is no face-up card.  What a player weighs before taking the last
    discard, which it may take only to knock (docs/rules.md#end-of-the-stock)."""
    top = view[V_TOP]
    if top < 0:
        return np.int64(1 << 30)
    hand = view[V_HAND]
    dw, _ = discard_deadwoods_nb(hand | (np.int64(1) << top), hand)
    return dw


@CORE
def default_arrange_nb(params, view, pile, rules, rng, memory):
    """A ready-made ``arrange_nb`` for plug-ins: least exposure to layoffs."""
    return arrange_least_exposure_nb(view)


@CORE
def default_defend_nb(params, view, pile, rules, rng, memory):
    """A ready-made ``defend_nb`` (the one a plug-in without ``defend_nb`` gets): the best
    response, melds and layoffs chosen together by the engine to leave the least deadwood
    (``DEFEND_BEST``)."""
    return np.int64(DEFEND_BEST), np.int64(0)


@CORE
def answer_yes_nb(params, view, pile, rules, rng, memory):
    """A ready-made answer of a yes-or-no decision that a strategy leaves out: yes."""
    return True


@CORE
def answer_no_nb(params, view, pile, rules, rng, memory):
    """A ready-made answer of a yes-or-no decision that a strategy leaves out: no."""
    return False


#: ways to split a block of n consecutive cards of a suit into runs of three or more
#: (n = 0 .. 13): c(n) = c(n - 1) + c(n - 3), c(0) = 1
RUN_SPLITS = np.array([1, 0, 0, 1, 1, 1, 2, 3, 4, 6, 9, 13, 19, 28], np.int64)


@CORE
def meld_lists_nb(runs):
    """How many lists of melds an arrangement with run cards ``runs`` stands for when runs
    are told apart by their extent, as the EAAI framework's ``cardsToBestMeldSets`` does
    (A-6 and A23 + 456 are two lists): the product over blocks of consecutive run cards
    of ``RUN_SPLITS`` of the block's length.  Sets are whole (a 4-set is one meld)."""
    count = np.int64(1)
    rest = runs
    while rest:
        low = rest & -rest
        n = 0
        while rest & low:  # the block of consecutive cards starting at ``low``
            rest &= ~low
            low <<= 1
            n += 1
        count *= RUN_SPLITS[n]
    return count


@CORE
def arrange_as_eaai_nb(hand, rng):
    """(sets, runs): a least-deadwood arrangement of ``hand`` drawn from the player's
    stream as the EAAI framework's ``SimpleGinRummyPlayer.getFinalMelds`` draws one: uniform
    over its list of least-deadwood meld lists, so each arrangement (``arrangement_nb``)
    weighs as many lists as ``meld_lists_nb`` counts for it.  The draw is made even when
    the hand has one arrangement (it then always picks that one)."""
    dw_min = min_deadwood_nb(hand)
    none = np.int64(-1)
    sets, runs, count, _ = arrangement_scan_nb(hand, dw_min, np.int64(0), none, none)
    if count == 1:
        below_nb(rng, meld_lists_nb(runs))
        return sets, runs
    total = np.int64(0)
    for k in range(count):
        total += meld_lists_nb(arrangement_scan_nb(hand, dw_min, np.int64(k), none, none)[1])
    pick = np.int64(below_nb(rng, total))
    for k in range(count):
        sets, runs, _, _ = arrangement_scan_nb(hand, dw_min, np.int64(k), none, none)
        pick -= meld_lists_nb(runs)
        if pick < 0:
            return sets, runs
    return np.int64(0), np.int64(0)  # not reached
