"""A seat's observation as a fixed-size float32 vector, computed from its view only.

``fill_view_nb`` (``simulator.core.state``) is the one place that decides what a seat may
know (``simulator.core.view``): never the opponent's hand nor the order of the stock.
``encode_view_nb(view, pile, target, out)`` turns that view, and the discard pile (public:
``pile[:view[V_PILE_LEN]]``, top last), into the ``N_OBS`` values of the RL observation,
laid out as ``OBSERVATION_LAYOUT`` (declared once in ``simulator.core.layouts``;
``simulator.env.encoding`` documents it block by block).  Every observation vector of
ginsim is made here: the PettingZoo and Gymnasium environments, the vectorised environment,
``PolicyStrategy`` and ``simulator.Hand.observation_vector``.

``encode_state_nb(state, seat, target, view, out)`` is the same from a hand state: it fills
``seat``'s view first (``view``: ``N_VIEW`` int64 scratch), so nothing beyond the view
reaches the vector.
"""

from __future__ import annotations

import numpy as np

from .constants import (
    O_DEADWOOD,
    O_DRAWN,
    O_FLAGS,
    O_HAND,
    O_KNOCKER_RUNS,
    O_KNOCKER_SETS,
    O_LIMIT,
    O_OPP_DECLINED,
    O_OPP_DISCARDS,
    O_OPP_HELD,
    O_PHASE,
    O_PILE,
    O_PILE_ORDER,
    O_SCORES,
    O_STOCK,
    O_TOP,
    PHASE_OVER,
    S_PILE,
    V_DEADWOOD,
    V_DRAWN,
    V_FROM_PILE,
    V_HAND,
    V_IS_DEALER,
    V_KNOCK_LIMIT,
    V_KNOCKER_RUNS,
    V_KNOCKER_SETS,
    V_MY_SCORE,
    V_OPP_DECLINED,
    V_OPP_DISCARDS,
    V_OPP_SCORE,
    V_OPP_TOOK,
    V_PHASE,
    V_PILE_LEN,
    V_STOCK_LEFT,
)
from .melds import lowest_card_nb, min_deadwood_nb
from .state import fill_view_nb
from ..infra.jit import CORE

#: our suit (s h d c) -> OpenSpiel's suit index (s c d h): card planes use OpenSpiel's order
_SUIT_TO_OPENSPIEL = np.array([0, 3, 2, 1], np.int64)


@CORE
def card_index_nb(card):
    """A card code's slot in a 52-slot plane: ``suit * 13 + rank`` in OpenSpiel's suit order."""
    return _SUIT_TO_OPENSPIEL[card >> 4] * 13 + (card & 15)


@CORE
def _plane_nb(mask, out, offset):
    while mask:
        out[offset + card_index_nb(lowest_card_nb(mask))] = 1.0
        mask &= mask - 1


@CORE
def encode_view_nb(view, pile, target, out):
    """Fill ``out`` (``N_OBS`` float32, zeroed here) from a seat's ``view`` and the discard
    pile ``pile`` (its first ``view[V_PILE_LEN]`` cards, bottom first); ``target`` is the
    game's target score (the score block is 0 when ``target`` is 0)."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    hand = view[V_HAND]
    _plane_nb(hand, out, O_HAND)
    if view[V_DRAWN] >= 0:  # the seat to act, in its discard phase
        out[O_DRAWN + card_index_nb(view[V_DRAWN])] = 1.0
        out[O_FLAGS + 1] = view[V_FROM_PILE]
    _plane_nb(view[V_OPP_TOOK], out, O_OPP_HELD)
    _plane_nb(view[V_OPP_DISCARDS], out, O_OPP_DISCARDS)
    _plane_nb(view[V_OPP_DECLINED], out, O_OPP_DECLINED)
    n = view[V_PILE_LEN]
    for i in range(n):
        k = card_index_nb(pile[i])
        out[O_PILE + k] = 1.0
        out[O_PILE_ORDER + k] = (i + 1) / n
        if i == n - 1:
            out[O_TOP + k] = 1.0
    out[O_STOCK + min(max(view[V_STOCK_LEFT], 0), 31)] = 1.0
    phase = view[V_PHASE]
    if phase < PHASE_OVER:
        out[O_PHASE + phase] = 1.0
    out[O_LIMIT + min(max(view[V_KNOCK_LIMIT], 0), 10)] = 1.0
    out[O_FLAGS] = 1.0 if view[V_IS_DEALER] else 0.0
    # the knock and arrange phases: the deadwood of the 10 cards kept (the view's, only for
    # the seat to act); otherwise the least deadwood of the cards held
    deadwood = view[V_DEADWOOD] if view[V_DEADWOOD] >= 0 else min_deadwood_nb(hand)
    out[O_DEADWOOD] = min(deadwood, 100) / 100.0
    if target > 0:
        out[O_SCORES] = min(view[V_MY_SCORE] / target, 1.0)
        out[O_SCORES + 1] = min(view[V_OPP_SCORE] / target, 1.0)
    _plane_nb(view[V_KNOCKER_SETS], out, O_KNOCKER_SETS)
    _plane_nb(view[V_KNOCKER_RUNS], out, O_KNOCKER_RUNS)


@CORE
def encode_state_nb(state, seat, target, view, out):
    """``seat``'s observation in hand ``state``: its view (into ``view``), then
    ``encode_view_nb`` of that view and the state's pile."""
    fill_view_nb(state, seat, view)
    encode_view_nb(view, state[S_PILE:], target, out)
