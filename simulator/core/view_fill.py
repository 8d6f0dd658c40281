"""What a seat sees, decided in one place: ``fill_view_nb`` writes a seat's view of a hand
state (the vector every strategy decides on, its slots declared in
``simulator.core.view_fields``), and ``determinize_nb`` goes the other way, building a full
hand state consistent with a view and sampled hidden cards (the one determinization: the
search player ``strategies.mc`` and the OpenSpiel game's resampler play such states).

Never the opponent's hand nor the order of the stock: the view holds the seat's own cards,
draws and score, the pile, of the opponent only its pickups, declines, discards and score,
and once laid out the knocker's melds (docs/rules.md).  ``view_of`` is the same from Python.
"""

from __future__ import annotations

import numpy as np

from .cards import FULL_DECK_MASK
from .constants import (
    N_STATE,
    N_VIEW,
    PHASE_ARRANGE,
    PHASE_DEFEND,
    PHASE_DISCARD,
    PHASE_KNOCK,
    S_CURRENT,
    S_DEADWOOD,
    S_DEALER,
    S_DECK_RNG,
    S_DECLINED,
    S_DISCARDS,
    S_DRAWN,
    S_DRAWS,
    S_FROM_PILE,
    S_HANDS,
    S_KNOCKER,
    S_LAST_CHANCE,
    S_LEGAL,
    S_LIMIT,
    S_MULTIPLIER,
    S_OUTCOME,
    S_PHASE,
    S_PILE,
    S_PILE_LEN,
    S_PILE_MASK,
    S_RUNS,
    S_SCORES,
    S_SEEN,
    S_SETS,
    S_STOCK,
    S_STOCK_N,
    S_STOCK_POS,
    S_TOOK,
    S_TURN,
    S_UPCARD,
    S_WINNER,
    V_DEADWOOD,
    V_DRAWN,
    V_FROM_PILE,
    V_HAND,
    V_IS_DEALER,
    V_KNOCKER_DEADWOOD,
    V_KNOCKER_RUNS,
    V_KNOCKER_SETS,
    V_KNOCK_LIMIT,
    V_LAST_CHANCE,
    V_LEGAL_DISCARDS,
    V_MY_DRAWS,
    V_MY_SCORE,
    V_OPP_DECLINED,
    V_OPP_DISCARDS,
    V_OPP_SCORE,
    V_OPP_TOOK,
    V_PHASE,
    V_PILE_LEN,
    V_PILE_MASK,
    V_SEEN,
    V_STOCK_LEFT,
    V_TOP,
    V_TURN,
)
from .melds import lowest_card_nb, popcount_nb
from .rng import next_u64_nb, shuffle_span_nb
from ..infra.jit import CORE, MERGED


@MERGED
def fill_view_nb(state, seat, view):
    """What ``seat`` may know, written into ``view`` (``simulator.core.view``): its own hand,
    draws and score, the pile, and of the opponent only its pickups, declines, discards
    and score, and once laid out the knocker's melds.  The phase's private slots (the card
    drawn, the legal discards, the deadwood) are filled only for the seat to act."""
    opponent = 1 - seat
    phase = state[S_PHASE]
    pile_len = state[S_PILE_LEN]
    view[V_PHASE] = phase
    view[V_HAND] = state[S_HANDS + seat]
    view[V_TOP] = state[S_PILE + pile_len - 1] if pile_len > 0 else -1
    view[V_PILE_LEN] = pile_len
    view[V_PILE_MASK] = state[S_PILE_MASK]
    view[V_OPP_TOOK] = state[S_TOOK + opponent]
    view[V_OPP_DECLINED] = state[S_DECLINED + opponent]
    view[V_OPP_DISCARDS] = state[S_DISCARDS + opponent]
    view[V_SEEN] = state[S_SEEN + seat]
    view[V_STOCK_LEFT] = state[S_STOCK_N] - state[S_STOCK_POS]
    view[V_TURN] = state[S_TURN]
    view[V_MY_DRAWS] = state[S_DRAWS + seat]
    view[V_KNOCK_LIMIT] = state[S_LIMIT]
    view[V_MY_SCORE] = state[S_SCORES + seat]
    view[V_OPP_SCORE] = state[S_SCORES + opponent]
    view[V_IS_DEALER] = seat == state[S_DEALER]
    view[V_DRAWN] = -1
    view[V_FROM_PILE] = 0
    view[V_LEGAL_DISCARDS] = 0
    view[V_DEADWOOD] = -1
    view[V_KNOCKER_SETS] = state[S_SETS]
    view[V_KNOCKER_RUNS] = state[S_RUNS]
    view[V_KNOCKER_DEADWOOD] = state[S_DEADWOOD] if phase == PHASE_DEFEND else -1
    view[V_LAST_CHANCE] = 0
    if seat == state[S_CURRENT]:
        if phase == PHASE_DISCARD:
            view[V_DRAWN] = state[S_DRAWN]
            view[V_FROM_PILE] = state[S_FROM_PILE]
            view[V_LEGAL_DISCARDS] = state[S_LEGAL]
            view[V_LAST_CHANCE] = state[S_LAST_CHANCE]
        elif phase == PHASE_KNOCK or phase == PHASE_ARRANGE:
            view[V_DEADWOOD] = state[S_DEADWOOD]


@CORE
def determinize_nb(view, pile, hidden, rng, state):
    """A full hand state consistent with what a seat sees (its ``view``, ``fill_view_nb``'s,
    and its copy of the ``pile``) and with sampled hidden cards, built in ``state``: the seat
    of the view sits in seat 0, the opponent in seat 1 holding the cards it took plus
    ``hidden``, and every other card nobody has seen goes to the stock in an order shuffled
    with the stream ``rng`` (``simulator.core.rng.shuffle_span_nb``), which also keys the
    state's reshuffle stream.  Public facts the view does not carry (the seat's own pile
    takes, the reshuffle count) are left at 0, the score multiplier at 1.  The one
    determinization, next to the view it inverts: search players (``strategies.mc``) play
    such states forward."""
    for i in range(N_STATE):
        state[i] = 0
    took = view[V_OPP_TOOK]
    opp = took | hidden
    state[S_PHASE] = view[V_PHASE]
    state[S_CURRENT] = 0
    state[S_DEALER] = 0 if view[V_IS_DEALER] else 1
    state[S_HANDS] = view[V_HAND]
    state[S_HANDS + 1] = opp
    state[S_TOOK + 1] = took
    state[S_DECLINED + 1] = view[V_OPP_DECLINED]
    state[S_DISCARDS + 1] = view[V_OPP_DISCARDS]
    state[S_DISCARDS] = view[V_PILE_MASK] & ~view[V_OPP_DISCARDS]
    state[S_SEEN] = view[V_SEEN]
    state[S_SEEN + 1] = opp | view[V_PILE_MASK]
    state[S_DRAWS] = view[V_MY_DRAWS]
    state[S_DRAWS + 1] = popcount_nb(view[V_OPP_DISCARDS])
    state[S_SCORES] = view[V_MY_SCORE]
    state[S_SCORES + 1] = view[V_OPP_SCORE]
    # the stock: the unknown cards the opponent does not hold, shuffled
    stock_cards = np.int64(FULL_DECK_MASK) & ~view[V_HAND] & ~view[V_PILE_MASK] & ~opp
    n = 0
    rest = stock_cards
    while rest:
        state[S_STOCK + n] = lowest_card_nb(rest)
        rest &= rest - 1
        n += 1
    rng[0] = shuffle_span_nb(rng[0], state, np.int64(S_STOCK), np.int64(n))
    state[S_STOCK_N] = n
    state[S_STOCK_POS] = 0
    pile_len = view[V_PILE_LEN]
    for i in range(pile_len):
        state[S_PILE + i] = pile[i]
    state[S_PILE_LEN] = pile_len
    state[S_PILE_MASK] = view[V_PILE_MASK]
    state[S_TURN] = view[V_TURN]
    state[S_UPCARD] = pile[0] if pile_len > 0 else -1
    state[S_LIMIT] = view[V_KNOCK_LIMIT]
    state[S_MULTIPLIER] = 1
    state[S_DRAWN] = view[V_DRAWN]
    state[S_FROM_PILE] = view[V_FROM_PILE]
    state[S_LEGAL] = view[V_LEGAL_DISCARDS]
    state[S_LAST_CHANCE] = view[V_LAST_CHANCE]
    state[S_DEADWOOD] = view[V_DEADWOOD] if view[V_PHASE] == PHASE_KNOCK else -1
    state[S_KNOCKER] = -1
    state[S_OUTCOME] = -1
    state[S_WINNER] = -1
    state[S_DECK_RNG] = np.int64(next_u64_nb(rng) >> np.uint64(1))


def view_of(state: np.ndarray, seat: int) -> np.ndarray:
    """The view vector ``seat``'s strategy would get in this state (a new array)."""
    view = np.zeros(N_VIEW, np.int64)
    fill_view_nb(state, np.int64(seat), view)
    return view
