"""``gold_standard``: the "gold standard" heuristic of a 2026 reinforcement-learning paper.

Source: the fixed expert opponent of the adversarial co-evolution paper (2026; public
repository Nikelroid/adversarial-coevolution, ``agents/gold_standard_agent.py``), the
benchmark its learned agents are measured against.  Written here from its published
policy.  Fidelity grade: *exact port* of the policy (docs/published.md#fidelity): it
reproduces the paper's own benchmark (tests/test_conformance.py); docs/published.md says
what was adapted and why.  Policy, in plain words (rules: docs/rules.md):

* first upcard and every draw: take the face-up card only if keeping it, and discarding
  the best other card, leaves strictly less deadwood than now; otherwise draw the stock;
* discard: a legal discard leaving the least deadwood.  Ties go to the card of highest
  value, then to the lowest card in the source's card order (spades, hearts, diamonds,
  clubs; ace up to king); but when that least deadwood lets it knock (at most
  ``knock_at`` and the knock limit in force, and not ``hold_for_gin``), it discards as
  the source's knock does: the lowest card in that order among the least-deadwood discards,
  whatever its value.  Gin goes out with the highest-value least-deadwood discard;
* knock: always with gin; otherwise as soon as deadwood ≤ ``knock_at`` (default 10),
  unless ``hold_for_gin`` = 1, when it plays on for gin;
* last discard (``last_discard_rule``, not in its source): take it when that lets it
  knock by the rule above;
* lay out the first least-deadwood arrangement in ginsim's canonical order (its source
  lets the environment meld); defend with the best response (its source's environment
  has no layoffs; ``DEFENCE = "best"``).

It reads only its own hand, the face-up card and the knock limit: it ignores the opponent.
Parameters: ``knock_at`` (default 10), ``hold_for_gin`` (default 0).
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import CORE, HOT
from simulator.core.cards import CARD_VALUE
from simulator.core.melds import discard_deadwoods_nb, lowest_card_nb

from .common import deadwood_taking_top_nb, default_defend_nb, first_arrange_nb, greedy_take_nb
from .view import PHASE_LAST_DISCARD, V_DEADWOOD, V_HAND, V_KNOCK_LIMIT, V_LEGAL_DISCARDS, V_PHASE

PARAMS = {"knock_at": 10.0, "hold_for_gin": 0.0}
#: integral parameters and their allowed values (``strategies.registry``): a flag
PARAM_RANGES = {"hold_for_gin": (0, 1)}
SUMMARY = "2026 RL paper's gold standard: greedy draws and least-deadwood discards, knocks as soon as deadwood <= knock_at"
DEFENCE = "best"  # how it defends (reports name it): the engine's best response
#: where the policy comes from (``ginsim strategies`` prints it; docs/published.md)
SOURCE = ("gold standard heuristic of the 2026 adversarial co-evolution paper "
          "(github.com/Nikelroid/adversarial-coevolution, agents/gold_standard_agent.py)")


@CORE
def knocks_with_nb(params, view, deadwood):
    """Whether ``gold_standard`` knocks with ``deadwood``: gin always; otherwise at most
    ``knock_at`` and the knock limit in force, unless it holds out for gin."""
    if deadwood == 0:
        return True
    if params[1] != 0:
        return False
    return deadwood <= params[0] and deadwood <= view[V_KNOCK_LIMIT]


@CORE
def source_order_nb(card):
    """The card's place in the source's card order: suit by suit (spades, hearts,
    diamonds, clubs: ginsim's suit order too), ace up to king within a suit."""
    return (card >> 4) * 13 + (card & 15)


@CORE
def gold_discard_nb(params, view):
    """The discard described in the module docstring."""
    dw, optimal = discard_deadwoods_nb(view[V_HAND], view[V_LEGAL_DISCARDS])
    by_value = dw == 0 or not knocks_with_nb(params, view, dw)
    best = np.int64(-1)
    best_key = np.int64(1 << 30)
    rest = optimal
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        key = source_order_nb(card) - (CARD_VALUE[card] * 64 if by_value else 0)
        if key < best_key:
            best_key = key
            best = card
    return best


@HOT
def take_nb(params, view, pile, rules, rng, memory):
    if view[V_PHASE] == PHASE_LAST_DISCARD:
        return knocks_with_nb(params, view, deadwood_taking_top_nb(view))
    return greedy_take_nb(view)


@HOT
def discard_nb(params, view, pile, rules, rng, memory):
    return gold_discard_nb(params, view)


@HOT
def knock_nb(params, view, pile, rules, rng, memory):
    return knocks_with_nb(params, view, view[V_DEADWOOD])


# the layout: the first least-deadwood arrangement (shared, compiled once)
arrange_nb = first_arrange_nb


# the defence: the best response, computed by the engine (strategies.view.DEFEND_BEST)
defend_nb = default_defend_nb
