"""Opponent inference: what the opponent probably holds, from public events only (numba).

Everything here reads the *view* a strategy gets (``strategies.view``): the player's own
hand, the discard pile, and of the opponent only the cards it took from the pile and still
holds (``V_OPP_TOOK``), the pile tops it passed on (``V_OPP_DECLINED``: declined upcards
and cards it let pass by drawing from the stock), the cards it discarded
(``V_OPP_DISCARDS``), the stock size and the turn.  Never the opponent's hand or the stock
order.

The model, in plain words.  While a player decides, the opponent holds 10 cards: the pile
cards it took and still holds (certain), plus ``k`` = 10 − that many cards hidden among the
*candidates*: every card that is not in our hand, not in the pile and not known to be held
(``candidates_nb``; the candidates are exactly the hidden cards plus the stock).  Each
candidate c gets a weight

    w(c) = exp(θ · f(c))

from a few features f(c) of what the opponent showed (``N_FEATURES``, in this order):

0. cards it took and holds of c's rank (it collects that rank);
1. cards it took and holds of c's suit one rank away, 2. two ranks away (it builds a run);
3. cards it discarded of c's rank, 4. of c's suit one rank away (it did not want them, so
   it probably holds nothing that melds with them);
5. pile tops it passed on of c's rank, 6. of c's suit one rank away (the same, weaker);
7. 1 when c was seen in the pile before (a reshuffled card: more likely in the stock);
8. c's deadwood value / 10, 9. the same times the opponent's turns so far / 10 (players shed
   high unmatched cards as a hand goes on).

The opponent's hidden cards are modelled as ``k`` draws without replacement in proportion
to the weights (successive sampling: ``sample_hidden_nb``).  The probability that it holds
c is approximated by p(c) = k·w(c)/Σw, capped at 1 with the excess spread over the other
candidates (``belief_nb``); known cards get 1, impossible ones 0.  With θ = 0 the belief is
uniform: k/|candidates| for every candidate.

``THETA`` was fitted by maximum likelihood (``python -m simulator.studies.inference fit``) on
hands among the built-in strategies under the ``tournament`` rules; its calibration and
log-loss against the uniform belief are measured by ``python -m simulator.studies.inference
calibrate`` and shown in results/strong_players.
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import ALLOCATES, MERGED
from simulator.core.cards import CARD_VALUE, FULL_DECK_MASK, RANK_MASK
from simulator.core.melds import lowest_card_nb, popcount_nb, rank_cards_nb
from simulator.core.rng import next_u64_nb

from .view import V_HAND, V_OPP_DECLINED, V_OPP_DISCARDS, V_OPP_TOOK, V_PILE_MASK, V_SEEN

N_FEATURES = 10
#: the opponent's hand size while a player decides
OPP_HAND_SIZE = 10
_DECK = np.int64(FULL_DECK_MASK)
_RANKS = np.int64(RANK_MASK)

#: fitted feature weights (``python -m simulator.studies.inference fit``; see the module docstring)
THETA = np.array([0.293, 0.355, 0.289, -0.614, -0.440, -0.587, -0.387, 0.000, -0.256, 0.446], dtype=np.float64)


@ALLOCATES
def candidates_nb(view):
    """(candidates, k): the cards that are either hidden in the opponent's hand or in the
    stock, and how many of them the opponent holds."""
    took = view[V_OPP_TOOK]
    cand = _DECK & ~view[V_HAND] & ~view[V_PILE_MASK] & ~took
    return cand, OPP_HAND_SIZE - popcount_nb(took)


@ALLOCATES
def opponent_draws_nb(view):
    """Turns the opponent has played this hand: the cards it discarded."""
    return popcount_nb(view[V_OPP_DISCARDS])


@ALLOCATES
def features_nb(view, card, out):
    """Write the ``N_FEATURES`` features of candidate ``card`` into ``out``."""
    bit = np.int64(1) << card
    suit_cards = _RANKS << (16 * (card >> 4))
    same_rank = rank_cards_nb(card & 15) & ~bit
    near1 = ((bit << 1) | (bit >> 1)) & suit_cards
    near2 = ((bit << 2) | (bit >> 2)) & suit_cards
    took = view[V_OPP_TOOK]
    discards = view[V_OPP_DISCARDS]
    declined = view[V_OPP_DECLINED] & ~discards
    out[0] = popcount_nb(took & same_rank)
    out[1] = popcount_nb(took & near1)
    out[2] = popcount_nb(took & near2)
    out[3] = popcount_nb(discards & same_rank)
    out[4] = popcount_nb(discards & near1)
    out[5] = popcount_nb(declined & same_rank)
    out[6] = popcount_nb(declined & near1)
    out[7] = 1.0 if (view[V_SEEN] >> card) & 1 else 0.0
    value = CARD_VALUE[card] / 10.0
    out[8] = value
    out[9] = value * opponent_draws_nb(view) / 10.0


@MERGED
def weights_nb(view, theta, weights):
    """Fill ``weights[c]`` (64 slots) with each candidate's weight, 0 elsewhere; returns
    (candidates, k)."""
    cand, k = candidates_nb(view)
    f = np.empty(N_FEATURES, np.float64)
    for c in range(64):
        weights[c] = 0.0
    rest = cand
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        features_nb(view, card, f)
        s = 0.0
        for i in range(N_FEATURES):
            s += theta[i] * f[i]
        weights[card] = np.exp(s)
    return cand, k


@ALLOCATES
def probs_from_weights_nb(cand, k, weights, probs):
    """p(c) = k·w(c)/Σw over the candidates, capped at 1 (the excess goes to the others)."""
    capped = np.int64(0)
    k_left = k
    for _ in range(OPP_HAND_SIZE + 1):
        total = 0.0
        rest = cand & ~capped
        while rest:
            card = lowest_card_nb(rest)
            rest &= rest - 1
            total += weights[card]
        newly = False
        rest = cand & ~capped
        while rest:
            card = lowest_card_nb(rest)
            rest &= rest - 1
            p = k_left * weights[card] / total if total > 0 else 0.0
            if p >= 1.0:
                capped |= np.int64(1) << card
                probs[card] = 1.0
                k_left -= 1
                newly = True
            else:
                probs[card] = p
        if not newly:
            break


@ALLOCATES
def belief_nb(view, theta, weights, probs):
    """The belief: ``probs[c]`` (64 slots) = probability that the opponent holds card c
    (1 for the cards it took and holds, 0 for cards it cannot hold); ``weights`` receives
    the candidates' sampling weights.  Returns (candidates, k) as ``candidates_nb``."""
    cand, k = weights_nb(view, theta, weights)
    for c in range(64):
        probs[c] = 0.0
    took = view[V_OPP_TOOK]
    rest = took
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        probs[card] = 1.0
    if k > 0:
        probs_from_weights_nb(cand, k, weights, probs)
    return cand, k


@ALLOCATES
def uniform_nb(rng):
    """A float in [0, 1) from a strategy's random stream."""
    return np.float64(next_u64_nb(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@ALLOCATES
def sample_hidden_nb(cand, k, weights, rng):
    """``k`` distinct candidates drawn one by one in proportion to their weights (the
    opponent's hidden cards in one determinization); returns their mask."""
    total = 0.0
    rest = cand
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        total += weights[card]
    chosen = np.int64(0)
    for _ in range(k):
        u = uniform_nb(rng) * total
        pick = np.int64(-1)
        rest = cand & ~chosen
        while rest:
            card = lowest_card_nb(rest)
            rest &= rest - 1
            pick = card
            u -= weights[card]
            if u < 0:
                break
        if pick < 0:
            break
        chosen |= np.int64(1) << pick
        total -= weights[pick]
    return chosen


@ALLOCATES
def meld_chance_nb(card, probs):
    """How likely ``card`` completes or extends a meld in the opponent's hand, if the
    belief's cards were held independently: it holds two more of c's rank, or two cards
    of c's suit that make a run through c (c−2 c−1, c−1 c+1, c+1 c+2).  Capped at 1."""
    rank = card & 15
    suit = card >> 4
    # the other three cards of the rank: P(at least two held)
    q = np.zeros(3, np.float64)
    n = 0
    for s in range(4):
        if s != suit:
            q[n] = probs[s * 16 + rank]
            n += 1
    none = (1 - q[0]) * (1 - q[1]) * (1 - q[2])
    one = q[0] * (1 - q[1]) * (1 - q[2]) + q[1] * (1 - q[0]) * (1 - q[2]) + q[2] * (1 - q[0]) * (1 - q[1])
    chance = 1.0 - none - one
    base = suit * 16
    pm2 = probs[base + rank - 2] if rank >= 2 else 0.0
    pm1 = probs[base + rank - 1] if rank >= 1 else 0.0
    pp1 = probs[base + rank + 1] if rank <= 11 else 0.0
    pp2 = probs[base + rank + 2] if rank <= 10 else 0.0
    chance += pm2 * pm1 + pm1 * pp1 + pp1 * pp2
    return min(chance, 1.0)
