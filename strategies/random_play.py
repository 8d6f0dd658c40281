"""``random``: uniform over legal moves — a baseline and a fuzzer.

Policy: take the first upcard with probability 1/2; draw from the pile or the stock with
probability 1/2 each; discard a card drawn uniformly from the legal discards; when knocking
is legal, knock with probability 1/2; lay out a least-deadwood arrangement chosen at
random.  With ``last_discard_rule``, takes the last discard with probability 1/2.  Defends
with the best response (melds and layoffs leaving the least deadwood, breaking its own melds
when that pays: ``DEFENCE = "best"``), not at random: the engine's default.
No parameters.
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import CORE, HOT
from simulator.core.rng import below_nb, random_card_of_nb

from .common import arrange_random_nb, default_defend_nb
from .view import V_LEGAL_DISCARDS

PARAMS: dict[str, float] = {}
SUMMARY = "uniform over legal moves (baseline, fuzzing)"
DEFENCE = "best"  # how it defends (reports name it): the engine's best response


@HOT
def take_nb(params, view, pile, rules, rng, memory):
    return below_nb(rng, np.int64(2)) == 1


@HOT
def discard_nb(params, view, pile, rules, rng, memory):
    return random_card_of_nb(rng, view[V_LEGAL_DISCARDS])


@HOT
def knock_nb(params, view, pile, rules, rng, memory):
    return below_nb(rng, np.int64(2)) == 1


@CORE
def arrange_nb(params, view, pile, rules, rng, memory):
    return arrange_random_nb(view, rng)


# the defence: the best response, computed by the engine (strategies.view.DEFEND_BEST)
defend_nb = default_defend_nb
