"""``knock_early``: greedy play that knocks as soon as the rules allow.

Policy: take the first upcard, and draw from the pile, exactly when the face-up card
lowers the hand's deadwood (after the best discard that keeps it); otherwise draw from the
stock.  Discard the card leaving the least deadwood (ties: highest value, then rank, then
suit).  Knock the first time deadwood is at or below the knock limit.  Lay out the
least-deadwood melds that expose the least value of live cards to layoffs.  Defend with the
best response: melds and layoffs leaving the least deadwood, breaking its own melds when
that pays (``DEFENCE = "best"``).
No parameters.
"""

from __future__ import annotations

from simulator.infra.jit import HOT

from .common import least_exposure_arrange_nb, default_defend_nb, greedy_discard_nb, greedy_take_nb
from .view import V_HAND, V_LEGAL_DISCARDS

PARAMS: dict[str, float] = {}
SUMMARY = "greedy draws and discards, knocks as soon as legal"
DEFENCE = "best"  # how it defends (reports name it): the engine's best response


@HOT
def take_nb(params, view, pile, rules, rng, memory):
    return greedy_take_nb(view)


@HOT
def discard_nb(params, view, pile, rules, rng, memory):
    return greedy_discard_nb(view[V_HAND], view[V_LEGAL_DISCARDS])


@HOT
def knock_nb(params, view, pile, rules, rng, memory):
    return True


# the layout: least-deadwood melds exposing the least to layoffs (shared, compiled once)
arrange_nb = least_exposure_arrange_nb


# the defence: the best response, computed by the engine (strategies.view.DEFEND_BEST)
defend_nb = default_defend_nb
