"""``gin_hunter``: greedy play that holds out for gin.

Policy: draws and discards exactly as ``knock_early`` (take the face-up card when it
lowers deadwood; discard to least deadwood).  Knock only when deadwood ≤ ``knock_at``
(default 0: only gin).  Optionally panic: when ``panic_stock`` > 0 and the stock holds
that many cards or fewer, knock whenever the rules allow.  Lays out the least-deadwood
melds that expose the least value of live cards to layoffs.  Defends with the best
response: melds and layoffs leaving the least deadwood, breaking its own melds when that
pays (``DEFENCE = "best"``).

Parameters: ``knock_at`` (default 0), ``panic_stock`` (default 0 = never panic).
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import HOT
from .common import least_exposure_arrange_nb, default_defend_nb, greedy_discard_nb, greedy_take_nb
from .view import V_DEADWOOD, V_HAND, V_LEGAL_DISCARDS, V_STOCK_LEFT

PARAMS = {"knock_at": 0.0, "panic_stock": 0.0}
#: integral parameters and their allowed values (``strategies.registry``): stock cards (0: no panic)
PARAM_RANGES = {"panic_stock": (0, 52)}
SUMMARY = "greedy, knocks only at deadwood <= knock_at (default gin); optional panic when the stock runs low"
DEFENCE = "best"  # how it defends (reports name it): the engine's best response


def threshold(params, draws, limit, pickups=0, opp_score=0, target=100):
    """Its knock threshold by draw (``strategies.thresholds``): ``knock_at`` whatever the
    draw (a negative one never knocks with deadwood); the panic on a short stock depends on
    the stock, not the draws, and is not part of it."""
    return np.full(len(draws), float(params["knock_at"]))


@HOT
def take_nb(params, view, pile, rules, rng, memory):
    return greedy_take_nb(view)


@HOT
def discard_nb(params, view, pile, rules, rng, memory):
    return greedy_discard_nb(view[V_HAND], view[V_LEGAL_DISCARDS])


@HOT
def knock_nb(params, view, pile, rules, rng, memory):
    if view[V_DEADWOOD] <= params[0]:
        return True
    return params[1] > 0 and view[V_STOCK_LEFT] <= params[1]


# the layout: least-deadwood melds exposing the least to layoffs (shared, compiled once)
arrange_nb = least_exposure_arrange_nb


# the defence: the best response, computed by the engine (strategies.view.DEFEND_BEST)
defend_nb = default_defend_nb
