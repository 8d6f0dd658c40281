"""``undercut_aware``: greedy play that knocks only when an undercut looks unlikely.

Policy:

* first upcard and every draw: take the face-up card exactly when it lowers the hand's
  deadwood (after the best discard that keeps it), as ``knock_early``; otherwise draw the
  stock;
* discard: the card leaving the least deadwood (ties: highest value, then rank, then suit);
* knock with deadwood d (the engine asks only when d ≤ the knock limit) when the
  estimated undercut risk is at most ``max_risk``; always knock gin;
* last discard (``last_discard_rule``): take it when the knock it allows is gin or passes
  the same risk test;
* lay out the least-deadwood melds that expose the least value of live cards to layoffs;
* defend with the best response: melds and layoffs leaving the least deadwood, breaking its
  own melds when that pays (``DEFENCE = "best"``).

The opponent model, in plain words.  The opponent's deadwood is guessed from how far its
hand has come.  A freshly dealt ten-card hand typically holds about ``start`` (37) points
of deadwood.  Every card the opponent drew from the stock multiplies that typical value by
``stock_decay`` (0.86); every card it took from the pile and still holds multiplies it by
``take_decay`` (0.75), because a card taken from the pile usually went into a meld.  The
opponent has drawn (turns played − own draws) cards; the pile cards it still holds are
``V_OPP_TOOK``; the rest count as stock draws (a declined upcard means a stock draw, so
declines count through that; cards taken and later thrown back count as stock draws).
Against a knock the opponent also lays off, typically ``layoff`` (3) points.  The risk is
the chance that the opponent's deadwood after layoffs is at or below ours, taken as a
logistic curve around the typical value m whose width grows with m:

    m    = start × stock_decay^(stock draws) × take_decay^(pile cards held)
    risk = 1 / (1 + exp((m − d − layoff) / (scale + spread × m)))

The defaults were fitted (maximum likelihood of "opponent deadwood ≤ x", x = 1..10) to
greedy self-play under the ``hoyle`` rules: ``gin_hunter`` and ``simple:knock_at=0``
holding out for gin, 5,000 hands, 115,000 positions.  For m between 8 and 12, 27% of
opponents held ≤ 6 against 23% predicted, 48% ≤ 10 against 51%.  Layoffs against
``knock_early`` knocks average about 3 points.

Parameters (in this order): ``max_risk`` (default 0.2), ``start`` (37), ``stock_decay``
(0.86), ``take_decay`` (0.75), ``layoff`` (3), ``scale`` (2.4), ``spread`` (0.075).
"""

from __future__ import annotations

import math

import numpy as np

from simulator.infra.jit import CORE, HOT
from simulator.core.melds import discard_deadwoods_nb, popcount_nb
from strategies.common import least_exposure_arrange_nb, default_defend_nb, greedy_discard_nb, greedy_take_nb
from strategies.view import (
    PHASE_LAST_DISCARD,
    V_DEADWOOD,
    V_HAND,
    V_LEGAL_DISCARDS,
    V_MY_DRAWS,
    V_OPP_TOOK,
    V_PHASE,
    V_TOP,
    V_TURN,
)

PARAMS = {
    "max_risk": 0.2,
    "start": 37.0,
    "stock_decay": 0.86,
    "take_decay": 0.75,
    "layoff": 3.0,
    "scale": 2.4,
    "spread": 0.075,
}
SUMMARY = "greedy; knocks only when the estimated undercut risk <= max_risk (opponent model: draws, pile pickups); gin always"
DEFENCE = "best"  # how it defends (reports name it): the engine's best response


@CORE
def opponent_draws_nb(view):
    """Cards the opponent has drawn: every turn played is one draw and one discard, and
    this player's own draws (the current one included) are in ``V_MY_DRAWS``."""
    n = view[V_TURN] - view[V_MY_DRAWS]
    return n if n > 0 else np.int64(0)


@CORE
def opponent_deadwood_estimate_nb(params, view):
    """The typical (median) deadwood of the opponent's hand under the model."""
    held = popcount_nb(view[V_OPP_TOOK])
    stock_draws = opponent_draws_nb(view) - held
    if stock_draws < 0:
        stock_draws = 0
    return params[1] * params[2] ** stock_draws * params[3] ** held


@CORE
def undercut_risk_nb(params, view, deadwood):
    """Estimated chance that the opponent ends at or below ``deadwood`` after layoffs."""
    m = opponent_deadwood_estimate_nb(params, view)
    width = params[5] + params[6] * m
    if width < 1e-9:
        width = 1e-9
    z = (m - deadwood - params[4]) / width
    if z > 700.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(z))


@CORE
def wants_knock_nb(params, view, deadwood):
    return deadwood == 0 or undercut_risk_nb(params, view, deadwood) <= params[0]


@HOT
def take_nb(params, view, pile, rules, rng, memory):
    if view[V_PHASE] == PHASE_LAST_DISCARD:
        top = view[V_TOP]
        if top < 0:
            return False
        hand = view[V_HAND]
        dw, _ = discard_deadwoods_nb(hand | (np.int64(1) << top), hand)
        return wants_knock_nb(params, view, dw)
    return greedy_take_nb(view)


@HOT
def discard_nb(params, view, pile, rules, rng, memory):
    return greedy_discard_nb(view[V_HAND], view[V_LEGAL_DISCARDS])


@HOT
def knock_nb(params, view, pile, rules, rng, memory):
    return wants_knock_nb(params, view, view[V_DEADWOOD])


# the layout: least-deadwood melds exposing the least to layoffs (shared, compiled once)
arrange_nb = least_exposure_arrange_nb


# the defence: the best response, computed by the engine (strategies.view.DEFEND_BEST)
defend_nb = default_defend_nb
