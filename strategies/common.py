"""Building blocks shared by the built-in strategies (numba).

Every helper reads only the player's view (see ``strategies.view``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator.cards import FULL_DECK_MASK
from simulator.melds import (
    KNOCKER_RANDOM,
    KNOCKER_VS_LIVE,
    discard_deadwoods_nb,
    knocker_arrangement_nb,
    min_deadwood_nb,
    preferred_discard_nb,
)
from simulator.rng import next_u64_nb

from .view import V_HAND, V_OPP_TOOK, V_PILE_MASK, V_TOP

_DECK = np.int64(FULL_DECK_MASK)


@njit(cache=True)
def lowers_deadwood_nb(hand, card):
    """True when taking ``card`` and then discarding well leaves less deadwood than now
    (the taken card itself may not be discarded)."""
    dw_after, _ = discard_deadwoods_nb(hand | (np.int64(1) << card), hand)
    return dw_after < min_deadwood_nb(hand)


@njit(cache=True)
def greedy_discard_nb(hand, legal):
    """The legal discard leaving the least deadwood; ties as ``best_discard`` breaks them
    (highest value, then rank, then suit)."""
    _, optimal = discard_deadwoods_nb(hand, legal)
    return preferred_discard_nb(optimal)


@njit(cache=True)
def greedy_take_nb(view):
    """Take the pile's top card when that lowers deadwood."""
    top = view[V_TOP]
    return top >= 0 and lowers_deadwood_nb(view[V_HAND], top)


@njit(cache=True)
def live_cards_nb(view):
    """Cards the opponent might hold: not in own hand and not in the pile."""
    return _DECK & ~view[V_HAND] & ~view[V_PILE_MASK] | view[V_OPP_TOOK]


@njit(cache=True)
def arrange_least_exposure_nb(view):
    """Least-deadwood melds that expose the least value of live cards to layoffs."""
    sets, runs, _ = knocker_arrangement_nb(view[V_HAND], live_cards_nb(view), np.int64(KNOCKER_VS_LIVE))
    return sets, runs


@njit(cache=True)
def arrange_random_nb(view, rng):
    """A least-deadwood arrangement chosen at random."""
    salt = np.int64(next_u64_nb(rng) >> np.uint64(1))
    sets, runs, _ = knocker_arrangement_nb(view[V_HAND], salt, np.int64(KNOCKER_RANDOM))
    return sets, runs


@njit(cache=True)
def default_arrange_nb(params, view, pile, rules, rng, memory):
    """A ready-made ``arrange_nb`` for plug-ins: least exposure to layoffs."""
    return arrange_least_exposure_nb(view)
