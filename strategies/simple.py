"""``simple``: the standard baseline player of the AI gin rummy competitions.

It plays as ``SimpleGinRummyPlayer`` of the EAAI framework (Todd Neller's gin rummy
competition code) plays with that framework's ``GinRummyGame``; docs/eaai.md compares the
two line by line and lists what still differs.  Policy, exactly:

* first upcard and every draw: take the face-up card only if it would be part of some meld
  with the current hand (a set of its rank or a run through it); otherwise draw the stock;
* discard: uniformly at random among the cards whose discard leaves the least deadwood,
  never the face-up card it just took, and never a card that would repeat a (card drawn,
  card discarded) pair it already made earlier in the same hand, in either order (the
  framework keeps each pair as a set of two cards); if that excluded every card, the
  repeat rule is dropped;
* knock as soon as deadwood ≤ ``knock_at`` (default −1: the rules' knock limit), laying
  out a least-deadwood arrangement chosen at random: uniform over the framework's list of
  least-deadwood meld lists, where a run may be split (A-6 or A23 + 456 are two lists);
* defend (``DEFENCE = "eaai"``): after the opponent knocks, lay out a least-deadwood
  arrangement chosen at random the same way, ignoring the knocker's melds; the engine then
  lays off every card left unmelded that fits the knocker's melds, chains included
  (docs/rules.md#laying-out-and-laying-off).  It never breaks its own melds to lay off,
  so its deadwood after layoffs can exceed the best response's;
* it ignores the opponent.

Random choices come from the player's own stream.  Parameters: ``knock_at`` (default −1 =
the knock limit in force).
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import HOT, MERGED
from simulator.core.melds import discard_deadwoods_nb, melds_with_card_nb
from simulator.core.rng import random_card_of_nb

from .common import arrange_as_eaai_nb
from .thresholds import knock_at_threshold
from .view import V_DEADWOOD, V_DRAWN, V_HAND, V_KNOCK_LIMIT, V_LEGAL_DISCARDS, V_TOP

PARAMS = {"knock_at": -1.0}
SUMMARY = "competition baseline: takes cards that meld, random least-deadwood discard, knocks at knock_at"
#: how it defends (reports name it): the EAAI baseline's defence, not the best response
DEFENCE = "eaai"
#: the decisions that use the per-hand memory (``strategies.hybrid``): the discard's (drawn, discarded) pairs
MEMORY_DECISIONS = ("discard_nb",)
#: its knock rule as a threshold by draw (``strategies.thresholds``): ``knock_at``, −1 the limit
threshold = knock_at_threshold


@HOT
def take_nb(params, view, pile, rules, rng, memory):
    top = view[V_TOP]
    return top >= 0 and melds_with_card_nb(view[V_HAND], top)


@HOT
def discard_nb(params, view, pile, rules, rng, memory):
    # memory[c]: the cards that made a (drawn, discarded) pair with card c, either way round
    drawn = view[V_DRAWN]
    legal = view[V_LEGAL_DISCARDS]
    allowed = legal & ~memory[drawn]
    if allowed == 0:
        allowed = legal
    _, optimal = discard_deadwoods_nb(view[V_HAND], allowed)
    card = random_card_of_nb(rng, optimal)
    memory[drawn] |= np.int64(1) << card
    memory[card] |= np.int64(1) << drawn
    return card


@HOT
def knock_nb(params, view, pile, rules, rng, memory):
    knock_at = params[0]
    if knock_at < 0:
        knock_at = view[V_KNOCK_LIMIT]
    return view[V_DEADWOOD] <= knock_at


@MERGED
def arrange_nb(params, view, pile, rules, rng, memory):
    return arrange_as_eaai_nb(view[V_HAND], rng)


@MERGED
def defend_nb(params, view, pile, rules, rng, memory):
    return arrange_as_eaai_nb(view[V_HAND], rng)
