"""``heisenbot``: an approximation of Heisenbot, the rule-based player of Eicholtz, Moss, Traino
and Roberson (AAAI-21), not the paper's player.

Source: "Heisenbot: A Rule-Based Game Agent for Gin Rummy", Proceedings of AAAI-21
(EAAI track), 35(17):15489-15495.  The paper splits play into three disjoint policies,
one for drawing, one for discarding and one for knocking, each chosen by tournament
simulation.  Written here from the only public description of those three policies (a
third party's reimplementation), not from the paper's program.  Fidelity grade:
*approximation* (docs/published.md#fidelity): two of its readings of that description are
doubtful (its turn windows count its own draws, not both players' turns; its safety count
takes the cards the opponent took from the pile as live), and it loses to ``simple`` where
the paper calls Heisenbot competitive.  docs/published.md says what was adapted and why.
Policy, in plain words (rules: docs/rules.md):

* first upcard and every draw: take the face-up card when it would be part of a meld with
  the hand (a set of its rank or a run through it); or when it is an ace or a two (almost
  no deadwood); or, on its first ``triangle_draws`` (5) draws, when it makes a
  *triangle* with two cards of the hand: three cards of which two share a rank and two are
  next to each other in one suit (5♥ with 5♠ and 6♠), which a draw can turn into a set or
  a run; otherwise draw the stock;
* discard: sort the unmelded cards of its hand (the first least-deadwood arrangement),
  less the card just taken from the pile, into *triangles* (in a triangle with two other
  unmelded cards), *doubles* (next to another unmelded card in its suit, or of the same
  rank as one) and *deadwood* (the rest); from its ``double_draws``-th (8th) draw on,
  doubles count as deadwood.  Discard from deadwood first, then doubles, then triangles
  (a fully melded hand: any legal card); within the class, the card the opponent can
  meld in the fewest ways (its *safety count*: the pairs of the other cards of its rank,
  and the three-card runs through it, whose other cards are all still live, that is
  neither in its hand nor seen, the cards the opponent took from the pile counting as
  live), ties to the highest rank, then the lowest suit;
* knock (a decision tree): always with gin; never when the game scores differ by
  ``lead`` (30) or more either way (it plays on for gin: ahead, to end the game
  sooner; behind, because a small knock hardly helps); on its first ``early_knock`` (3)
  draws, yes (the opponent's hand is still poor); from its ``late_knock``-th (14th) draw
  on, yes (the opponent is probably close); otherwise yes with deadwood ≤ ``low`` (5),
  and with more only when it holds at least three deadwood cards (with fewer, one draw
  may well bring it under);
* last discard (``last_discard_rule``, not in its source): take it when the knock rule
  above would knock with the hand it leaves;
* lay out the first least-deadwood arrangement (its source melds "the best melds");
  defend with the best response (``DEFENCE = "best"``).

Parameters (in this order): ``early_knock`` (3), ``late_knock`` (14), ``low`` (5),
``lead`` (30), ``triangle_draws`` (5), ``double_draws`` (8).
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import CORE, HOT
from simulator.core.cards import FULL_DECK_MASK
from simulator.core.melds import (
    arrangement_nb,
    discard_deadwoods_nb,
    lowest_card_nb,
    melds_with_card_nb,
    popcount_nb,
    rank_cards_nb,
)

from .common import default_defend_nb, first_arrange_nb
from .view import (
    PHASE_LAST_DISCARD,
    V_DEADWOOD,
    V_HAND,
    V_KNOCK_LIMIT,
    V_LEGAL_DISCARDS,
    V_MY_DRAWS,
    V_MY_SCORE,
    V_OPP_SCORE,
    V_OPP_TOOK,
    V_PHASE,
    V_SEEN,
    V_TOP,
)

PARAMS = {"early_knock": 3.0, "late_knock": 14.0, "low": 5.0, "lead": 30.0, "triangle_draws": 5.0,
          "double_draws": 8.0}
#: integral parameters and their allowed values (``strategies.registry``): draws
PARAM_RANGES = {"early_knock": (0, 99), "late_knock": (0, 99), "triangle_draws": (0, 99), "double_draws": (0, 99)}
SUMMARY = ("an approximation of AAAI-21 Heisenbot: separate draw, discard and knock policies; takes melding cards, aces, twos and "
           "early triangles; discards by class and safety; knocks by a decision tree")
DEFENCE = "best"  # how it defends (reports name it): the engine's best response
#: where the policy comes from (``ginsim strategies`` prints it; docs/published.md)
SOURCE = ("Eicholtz, Moss, Traino, Roberson: Heisenbot: A Rule-Based Game Agent for Gin Rummy, "
          "AAAI-21 (EAAI), 35(17):15489-15495")

_DECK = np.int64(FULL_DECK_MASK)


@CORE
def next_to_nb(card):
    """The two cards next to ``card`` in its suit (one at an ace or a king)."""
    bit = np.int64(1) << card
    return ((bit << 1) | (bit >> 1)) & _DECK


@CORE
def same_rank_nb(card):
    """The three other cards of ``card``'s rank."""
    return rank_cards_nb(card & 15) & ~(np.int64(1) << card)


@CORE
def in_triangle_nb(card, others):
    """True when ``card`` and two cards of ``others`` make a triangle: of the three, two
    share a rank and two are next to each other in one suit."""
    ranked = same_rank_nb(card) & others
    suited = next_to_nb(card) & others
    if ranked and suited:  # the card links both ways
        return True
    rest = ranked
    while rest:  # a card of its rank with a suited neighbour
        x = lowest_card_nb(rest)
        rest &= rest - 1
        if next_to_nb(x) & others:
            return True
    rest = suited
    while rest:  # a suited neighbour with a card of that neighbour's rank
        x = lowest_card_nb(rest)
        rest &= rest - 1
        if same_rank_nb(x) & others:
            return True
    return False


@CORE
def safety_count_nb(card, blocked):
    """In how many ways the opponent could meld ``card`` with two live cards: pairs of
    the other three cards of its rank, plus three-card runs of its suit through it, whose
    two other cards are not in ``blocked``."""
    live = popcount_nb(same_rank_nb(card) & ~blocked)
    count = live * (live - 1) // 2
    rank = card & 15
    for start in range(max(rank - 2, 0), min(rank, 10) + 1):
        run = np.int64(7) << (card - rank + start)
        if not (run & ~(np.int64(1) << card)) & blocked:
            count += 1
    return count


@CORE
def wants_card_nb(params, view):
    """The draw policy: take the face-up card (module docstring)."""
    top = view[V_TOP]
    if top < 0:
        return False
    hand = view[V_HAND]
    if melds_with_card_nb(hand, top) or (top & 15) <= 1:
        return True
    return view[V_MY_DRAWS] < params[4] and in_triangle_nb(top, hand)


@CORE
def knocks_with_nb(params, hand, deadwood, draws, my_score, opp_score):
    """The knock decision tree (module docstring) for the 10 cards ``hand`` with
    ``deadwood``, after ``draws`` draws, at game scores ``my_score``/``opp_score``."""
    if deadwood == 0:
        return True
    if abs(my_score - opp_score) >= params[3]:
        return False
    if draws <= params[0] or draws >= params[1] or deadwood <= params[2]:
        return True
    sets, runs, _ = arrangement_nb(hand, np.int64(0))
    return popcount_nb(hand & ~(sets | runs)) >= 3


@CORE
def takes_last_discard_nb(params, view):
    """Take the last discard when it leaves a hand within the knock limit that the knock
    decision tree would knock with (the hand kept after its least-deadwood discard)."""
    top = view[V_TOP]
    if top < 0:
        return False
    hand = view[V_HAND]
    eleven = hand | (np.int64(1) << top)
    dw, optimal = discard_deadwoods_nb(eleven, hand)
    if dw > view[V_KNOCK_LIMIT]:
        return False
    kept = eleven & ~(optimal & -optimal)
    return knocks_with_nb(params, kept, dw, view[V_MY_DRAWS] + 1, view[V_MY_SCORE], view[V_OPP_SCORE])


@CORE
def heisenbot_discard_nb(params, view):
    """The discard policy (module docstring)."""
    hand = view[V_HAND]
    legal = view[V_LEGAL_DISCARDS] & hand
    sets, runs, _ = arrangement_nb(hand, np.int64(0))
    unmelded = hand & ~(sets | runs)
    late = view[V_MY_DRAWS] >= params[5]
    deadwood = np.int64(0)
    doubles = np.int64(0)
    triangles = np.int64(0)
    rest = unmelded & legal
    while rest:
        card = lowest_card_nb(rest)
        bit = rest & -rest
        rest &= rest - 1
        others = unmelded & ~bit
        if in_triangle_nb(card, others):
            triangles |= bit
        elif (same_rank_nb(card) | next_to_nb(card)) & others and not late:
            doubles |= bit
        else:
            deadwood |= bit
    pool = deadwood if deadwood else doubles if doubles else triangles if triangles else legal
    blocked = hand | (view[V_SEEN] & ~view[V_OPP_TOOK])
    best = np.int64(-1)
    best_key = np.int64(1 << 30)
    rest = pool
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        key = safety_count_nb(card, blocked) * 1024 - (card & 15) * 8 + (card >> 4)
        if key < best_key:
            best_key = key
            best = card
    return best


@HOT
def take_nb(params, view, pile, rules, rng, memory):
    if view[V_PHASE] == PHASE_LAST_DISCARD:
        return takes_last_discard_nb(params, view)
    return wants_card_nb(params, view)


@HOT
def discard_nb(params, view, pile, rules, rng, memory):
    return heisenbot_discard_nb(params, view)


@HOT
def knock_nb(params, view, pile, rules, rng, memory):
    return knocks_with_nb(params, view[V_HAND], view[V_DEADWOOD], view[V_MY_DRAWS], view[V_MY_SCORE],
                          view[V_OPP_SCORE])


# the layout: the first least-deadwood arrangement (shared, compiled once)
arrange_nb = first_arrange_nb


# the defence: the best response, computed by the engine (strategies.view.DEFEND_BEST)
defend_nb = default_defend_nb
