"""``threshold_schedule``: greedy play whose knock threshold falls as the hand goes on.

Policy: the longer the hand has gone on, the better the hand must be to knock.

* first upcard and every draw: take the face-up card exactly when it lowers the hand's
  deadwood (after the best discard that keeps it), as ``knock_early``; otherwise draw the
  stock;
* discard: the card leaving the least deadwood (ties: highest value, then rank, then suit);
* knock when deadwood ≤ threshold(t), where t is the number of cards this player has drawn
  this hand (the draw of the current turn included).  The threshold is ``early`` for the
  first ``early_draws`` draws, ``late`` from ``late_draws`` draws on, and moves linearly
  between the two in between (when ``late_draws`` ≤ ``early_draws`` it drops straight from
  ``early`` to ``late`` after draw ``early_draws``).  Gin is always knocked.  The engine
  asks only when deadwood ≤ the knock limit in force, so the effective threshold is the
  smaller of threshold(t) and that limit;
* last discard (``last_discard_rule``): take it when the knock it allows would leave
  deadwood ≤ threshold(t + 1) (or gin);
* lay out the least-deadwood melds that expose the least value of live cards to layoffs;
* defend with the best response: melds and layoffs leaving the least deadwood, breaking its
  own melds when that pays (``DEFENCE = "best"``).

Parameters (in this order): ``early`` (default 10), ``early_draws`` (default 4), ``late``
(default 2), ``late_draws`` (default 10).
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import CORE, HOT
from simulator.core.melds import discard_deadwoods_nb
from strategies.common import least_exposure_arrange_nb, default_defend_nb, greedy_discard_nb, greedy_take_nb
from strategies.view import (
    PHASE_LAST_DISCARD,
    V_DEADWOOD,
    V_HAND,
    V_LEGAL_DISCARDS,
    V_MY_DRAWS,
    V_PHASE,
    V_TOP,
)

PARAMS = {"early": 10.0, "early_draws": 4.0, "late": 2.0, "late_draws": 10.0}
#: integral parameters and their allowed values (``strategies.registry``): draw counts
PARAM_RANGES = {"early_draws": (0, 99), "late_draws": (0, 99)}
SUMMARY = "greedy; knocks at deadwood <= a threshold falling from early (10) to late (2) between draws 4 and 10"
DEFENCE = "best"  # how it defends (reports name it): the engine's best response


def threshold(params, draws, limit, pickups=0, opp_score=0, target=100):
    """Its knock threshold after each number of ``draws`` (``threshold_nb``; see
    ``strategies.thresholds``)."""
    row = np.array([params[name] for name in PARAMS], dtype=np.float64)
    return np.array([threshold_nb(row, np.int64(t)) for t in draws], dtype=float)


@CORE
def threshold_nb(params, draws):
    """The knock threshold after ``draws`` cards drawn by this player."""
    early = params[0]
    early_draws = params[1]
    late = params[2]
    late_draws = params[3]
    t = np.float64(draws)
    if t <= early_draws:
        return early
    if t >= late_draws:
        return late
    return early + (late - early) * (t - early_draws) / (late_draws - early_draws)


@CORE
def wants_knock_nb(params, deadwood, draws):
    return deadwood == 0 or deadwood <= threshold_nb(params, draws)


@HOT
def take_nb(params, view, pile, rules, rng, memory):
    if view[V_PHASE] == PHASE_LAST_DISCARD:
        top = view[V_TOP]
        if top < 0:
            return False
        hand = view[V_HAND]
        dw, _ = discard_deadwoods_nb(hand | (np.int64(1) << top), hand)
        return wants_knock_nb(params, dw, view[V_MY_DRAWS] + 1)
    return greedy_take_nb(view)


@HOT
def discard_nb(params, view, pile, rules, rng, memory):
    return greedy_discard_nb(view[V_HAND], view[V_LEGAL_DISCARDS])


@HOT
def knock_nb(params, view, pile, rules, rng, memory):
    return wants_knock_nb(params, view[V_DEADWOOD], view[V_MY_DRAWS])


# the layout: least-deadwood melds exposing the least to layoffs (shared, compiled once)
arrange_nb = least_exposure_arrange_nb


# the defence: the best response, computed by the engine (strategies.view.DEFEND_BEST)
defend_nb = default_defend_nb
