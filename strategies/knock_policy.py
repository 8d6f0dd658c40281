"""``knock_policy``: ``simple``'s play with a knock threshold that moves with the hand and the game.

Policy, in plain words: knock early in the hand with a loose threshold, then hold out for
a lower deadwood (or gin) as the hand goes on; hold out more when the opponent has been
picking up discards (it is probably close to going out, and an undercut is more likely);
in a game, knock more readily when the opponent is close to the target score.

* first upcard, every draw, every discard, the layout and the defence are exactly
  ``simple``'s (its functions are called): take the face-up card only if it melds with the
  hand, discard at random among the least-deadwood discards (never the card just taken,
  never repeating a drawn/discarded pair in either order), lay out a least-deadwood
  arrangement chosen at random as the EAAI baseline does, and defend as the EAAI baseline
  (``DEFENCE = "eaai"``): a least-deadwood arrangement chosen the same way, ignoring the
  knocker's melds, then every unmelded card that fits is laid off.  Sharing ``simple``'s
  defence keeps knock-policy tuning against ``simple`` baselines about knocking alone;
* knock when deadwood ≤ threshold, where, with t the number of cards this player has
  drawn this hand (the draw of the current turn included),

      base(t)   = ``early`` while t ≤ ``turn_a``, ``late`` from t ≥ ``turn_b`` on, and
                  linear between the two in between (when ``turn_b`` ≤ ``turn_a`` it drops
                  straight from ``early`` to ``late`` after draw ``turn_a``);
      threshold = base(t) − ``pickup_penalty`` × (cards the opponent took from the pile
                  and still holds, ``V_OPP_TOOK``)
                  + ``score_bonus`` when the opponent's game score is above zero and
                  within ``near_target`` points of the target (``target_score``).

  Gin (deadwood 0) is always knocked.  The engine asks only when deadwood ≤ the deal's
  knock limit, so the effective threshold is never above that limit (in single hands both
  scores are 0 and the score term is off);
* last discard (``last_discard_rule``): take it when the knock it forces would pass the
  same test one draw later (or is gin).

Parameters (in this order): ``early`` (default 10), ``turn_a`` (default 3), ``late``
(default 4), ``turn_b`` (default 10), ``pickup_penalty`` (default 0), ``near_target``
(default 0 = off), ``score_bonus`` (default 0).  ``early`` = ``late`` = k with no penalty
is ``simple:knock_at=k``.
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import CORE, HOT
from simulator.core.melds import discard_deadwoods_nb, popcount_nb
from simulator.core.rules import R_TARGET

from . import simple
from .thresholds import describe_curve, number_text, segments, whole_points
from .threshold_schedule import threshold_nb as schedule_nb
from .view import (
    PHASE_LAST_DISCARD,
    V_DEADWOOD,
    V_HAND,
    V_KNOCK_LIMIT,
    V_MY_DRAWS,
    V_OPP_SCORE,
    V_OPP_TOOK,
    V_PHASE,
    V_TOP,
)

PARAMS = {
    "early": 10.0,
    "turn_a": 3.0,
    "late": 4.0,
    "turn_b": 10.0,
    "pickup_penalty": 0.0,
    "near_target": 0.0,
    "score_bonus": 0.0,
}
#: integral parameters and their allowed values (``strategies.registry``): draw counts
PARAM_RANGES = {"turn_a": (0, 99), "turn_b": (0, 99)}
SUMMARY = ("simple's play; knocks at deadwood <= a threshold from early to late between draws turn_a and turn_b, "
           "minus pickup_penalty per opponent pile pickup, plus score_bonus near the opponent's target")
#: how it defends (reports name it): simple's, the EAAI baseline's
DEFENCE = simple.DEFENCE
#: the decisions that use the per-hand memory (``strategies.hybrid``): simple's discard
MEMORY_DECISIONS = simple.MEMORY_DECISIONS


def threshold(params, draws, limit, pickups=0, opp_score=0, target=100):
    """Its knock threshold after each number of ``draws`` (``threshold_nb``; see
    ``strategies.thresholds``)."""
    row = np.array([params[name] for name in PARAMS], dtype=np.float64)
    return np.array([threshold_nb(row, np.int64(t), np.int64(pickups), np.int64(opp_score), np.int64(target))
                     for t in draws], dtype=float)


def describe(params, rules) -> str:
    """Its knock rule in plain words under ``rules``: the threshold by draw (whole points,
    capped at the largest knock limit), how far it drops per card the opponent took from the
    pile, and what it does when the opponent is within ``near_target`` of the target."""
    from simulator.core.rules_api import max_knock_limit

    limit, target = max_knock_limit(rules), int(rules.target_score)
    draws = np.arange(1, 41)
    base = whole_points(threshold(params, draws, limit), limit)
    text = describe_curve(base, limit).removesuffix(" (gin always)")
    pen = params["pickup_penalty"]
    if pen and (whole_points(threshold(params, draws, limit, pickups=1), limit) != base).any():
        text += f"; {number_text(pen)} lower per card the opponent took from the pile"
    if params["score_bonus"] and params["near_target"] > 0:
        opp_score = max(1, target - int(params["near_target"]))
        near = whole_points(threshold(params, draws, limit, opp_score=opp_score, target=target), limit)
        if (near != base).any():
            text += (f"; when the opponent is within {number_text(params['near_target'])} of the target: "
                     + ("gin only" if not near.any() else "knock at deadwood " + segments(near)))
    return text + ("" if text.startswith(("gin only", "knock as soon as legal")) else " (gin always)")


@CORE
def threshold_nb(params, draws, pickups, opp_score, target):
    """The knock threshold after ``draws`` own draws, with the opponent holding ``pickups``
    cards taken from the pile and at ``opp_score`` of ``target`` (before the knock limit)."""
    # params[0..3] are early, turn_a, late, turn_b: threshold_schedule's schedule
    value = schedule_nb(params, draws) - params[4] * pickups
    if opp_score > 0 and target - opp_score <= params[5]:
        value += params[6]
    return value


@CORE
def wants_knock_nb(params, view, rules, deadwood, draws):
    if deadwood == 0:
        return True
    if deadwood > view[V_KNOCK_LIMIT]:
        return False
    return deadwood <= threshold_nb(params, draws, popcount_nb(view[V_OPP_TOOK]), view[V_OPP_SCORE], rules[R_TARGET])


@HOT
def take_nb(params, view, pile, rules, rng, memory):
    if view[V_PHASE] == PHASE_LAST_DISCARD:
        top = view[V_TOP]
        if top < 0:
            return False
        hand = view[V_HAND]
        dw, _ = discard_deadwoods_nb(hand | (np.int64(1) << top), hand)
        return wants_knock_nb(params, view, rules, dw, view[V_MY_DRAWS] + 1)
    return simple.take_nb(params, view, pile, rules, rng, memory)


@HOT
def discard_nb(params, view, pile, rules, rng, memory):
    return simple.discard_nb(params, view, pile, rules, rng, memory)


@HOT
def knock_nb(params, view, pile, rules, rng, memory):
    return wants_knock_nb(params, view, rules, view[V_DEADWOOD], view[V_MY_DRAWS])


# the layout and the defence are simple's (the same functions, compiled once)
arrange_nb = simple.arrange_nb
defend_nb = simple.defend_nb
