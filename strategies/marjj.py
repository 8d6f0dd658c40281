"""``marjj``: MARJJ, the winner of the EAAI-21 gin rummy competition (Penn State Harrisburg).

Sources: Ahmed, Leppo, Lesniewski, Patel, Perez, Blum, "A Heuristic Evaluation Function for
Hand Strength Estimation in Gin Rummy", Proceedings of AAAI-21 (EAAI track),
35(17):15465-15471, and the team's public Java player ``MARJJ_v5`` (github.com/aqib-a99/MARJJ,
``MARJJ_v5-1.java``, commit 5d1f00c).  Written here from those descriptions, with the
public player's constants.  Fidelity grade: *exact port* (docs/published.md#fidelity): it
scores every discard of the public player's own diagnostic scenarios as that player does
(tests/test_conformance.py); docs/published.md says what was adapted and why.
Policy, in plain words (rules: docs/rules.md):

* first upcard and every draw: take the face-up card only if it lies in a meld of the
  arrangement it would lay out with it (below: among the least-deadwood arrangements of
  the eleven cards, the one with the fewest estimated layoffs) *and* the eleven cards,
  after their best discard, leave less deadwood than the hand now;
* discard: the candidates are the legal discards left unmelded by at least one
  least-deadwood arrangement, less those worth more than ``spread`` (5) points below the
  dearest of them (none: every legal discard); a single candidate is discarded at once; a
  candidate whose discard leaves gin is discarded at once (the first in card order); the
  others keep only those leaving at most ``spread`` more deadwood than the best.  Each is
  scored

      score(c) = d(c) + ``weight`` × 0.9^(t − 1) × F(c) + D(c)      (``decay`` = 0.9)

  - d(c): the deadwood of the ten cards kept; t: its draws this hand;
  - F(c): the hand's future: for every card it has not seen, the least deadwood of the
    ten kept plus that card after the best discard; F is the mean of the ``future`` (7)
    smallest of these;
  - D(c): the danger of feeding the opponent, from the cards next to c in its suit (one
    and two ranks away) and of its rank: bonuses when they are out of the opponent's reach
    (in its own hand or seen), penalties when the opponent took them from the pile (ever,
    this hand).  A run the opponent cannot make scores −10, else −5 per unreachable
    neighbour and −3 per unreachable card two away; a run it can make +20, else +5 and +3;
    three unreachable cards of the rank −10, two −4; two of them taken by the opponent +20,
    one unreachable +4 (the public player's rule, which counts c itself: see the page).
    At the ends of a suit the missing neighbours count as unreachable; at a queen the
    player's code marks the king unreachable instead of the missing card two above.

  The lowest score wins; ties are broken at random (its own stream);
* knock: always with gin; with deadwood ≤ 10 only on its first ``knock_turns`` (3) draws
  (the knocking window the paper's counterfactual-regret solution gives, as the public
  player plays it); afterwards it plays for gin;
* last discard (``last_discard_rule``, not in its sources): take it when the knock rule
  above would knock with the hand it leaves;
* lay out, among the least-deadwood arrangements, the one with the fewest estimated
  layoff points (the first such in ginsim's canonical order): each end of a run whose next
  card the opponent may hold (taken by it, or not yet seen) counts the value of the run's
  end card, and each card of a set whose same-rank card of the next suit (clubs, hearts,
  spades, diamonds, round again) the opponent may hold counts its value;
* defend with that same choice among its least-deadwood arrangements, ignoring the
  knocker's melds; the engine then lays off every unmelded card that fits, as the EAAI
  framework does (``DEFENCE`` "its own defend_nb").

The cards it has seen are its hands this hand, the discard pile's history and the
opponent's pile pickups (``V_SEEN``); the cards the opponent took are kept for the hand
in its memory (``memory[0]``), as the public player keeps them.  Parameters (in this
order): ``weight`` (18), ``decay`` (0.9), ``future`` (7), ``spread`` (5), ``knock_turns``
(3).  The paper's own setting is ``weight`` 20 and ``future`` 6.
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import ALLOCATES, CORE
from simulator.core.cards import CARD_VALUE, FULL_DECK_MASK
from simulator.core.melds import arrangement_nb, discard_deadwoods_nb, lowest_card_nb, min_deadwood_nb, popcount_nb
from simulator.core.rng import below_nb

from .view import (
    PHASE_LAST_DISCARD,
    V_DEADWOOD,
    V_HAND,
    V_KNOCK_LIMIT,
    V_LEGAL_DISCARDS,
    V_MY_DRAWS,
    V_OPP_TOOK,
    V_PHASE,
    V_SEEN,
    V_TOP,
)

PARAMS = {"weight": 18.0, "decay": 0.9, "future": 7.0, "spread": 5.0, "knock_turns": 3.0}
#: integral parameters and their allowed values (``strategies.registry``): counts, points, draws
PARAM_RANGES = {"weight": (0.0, 1000.0), "decay": (0.0, 1.0), "future": (1, 52), "spread": (0, 100),
                "knock_turns": (0, 99)}
SUMMARY = ("EAAI-21 winner MARJJ: takes melding cards that lower deadwood; discards by deadwood, future draws "
           "and danger; knocks on its first 3 draws only, then plays for gin; lays out the fewest layoffs")
#: memory[0] holds every card the opponent took from the pile this hand: every decision reads it
MEMORY_DECISIONS = ("take_nb", "discard_nb", "knock_nb", "arrange_nb", "defend_nb")
#: where the policy comes from (``ginsim strategies`` prints it; docs/published.md)
SOURCE = ("Ahmed, Leppo, Lesniewski, Patel, Perez, Blum: A Heuristic Evaluation Function for Hand Strength "
          "Estimation in Gin Rummy, AAAI-21 (EAAI), 35(17):15465-15471; public player MARJJ_v5 "
          "(github.com/aqib-a99/MARJJ)")

_DECK = np.int64(FULL_DECK_MASK)
#: the suit after each suit in the public player's card numbering (clubs, hearts, spades,
#: diamonds): indexed by ginsim's suit (spades, hearts, diamonds, clubs)
NEXT_SUIT = np.array([2, 0, 3, 1], np.int64)


@CORE
def opponent_took_nb(view, memory):
    """Every card the opponent took from the pile this hand, still held or not: the known
    ones (``V_OPP_TOOK``) folded into ``memory[0]`` at each decision."""
    memory[0] |= view[V_OPP_TOOK]
    return memory[0]


@CORE
def reachable_nb(card, seen, took):
    """Whether the opponent may hold ``card``: it took it, or the player has not seen it."""
    return (took >> card) & 1 == 1 or (seen >> card) & 1 == 0


@CORE
def layoff_estimate_nb(sets, runs, seen, took):
    """The layoff points the arrangement (``sets``, ``runs``) is estimated to give away
    (module docstring): per run end whose next card is reachable, the end card's value;
    per set card whose same-rank card of the next suit is reachable, its value."""
    points = np.int64(0)
    rest = runs
    while rest:  # each block of consecutive run cards
        low = lowest_card_nb(rest)
        high = low
        while (rest >> (high + 1)) & 1:
            high += 1
        rest &= ~(((np.int64(1) << (high + 1)) - 1) ^ ((np.int64(1) << low) - 1))
        if (low & 15) > 0 and reachable_nb(low - 1, seen, took):
            points += CARD_VALUE[low]
        if (high & 15) < 12 and reachable_nb(high + 1, seen, took):
            points += CARD_VALUE[high]
    rest = sets
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        if reachable_nb(NEXT_SUIT[card >> 4] * 16 + (card & 15), seen, took):
            points += CARD_VALUE[card]
    return points


@CORE
def fewest_layoffs_nb(hand, seen, took):
    """(sets, runs): the least-deadwood arrangement of ``hand`` (at most 11 cards) with
    the fewest estimated layoff points, the first in canonical order on a tie."""
    n = arrangement_nb(hand, np.int64(-1))[2]
    best = np.int64(1 << 30)
    best_sets = np.int64(0)
    best_runs = np.int64(0)
    for k in range(n):
        sets, runs, _ = arrangement_nb(hand, np.int64(k))
        points = layoff_estimate_nb(sets, runs, seen, took)
        if points < best:
            best = points
            best_sets = sets
            best_runs = runs
    return best_sets, best_runs


@CORE
def unmelded_nb(hand):
    """The cards of ``hand`` left unmelded by at least one least-deadwood arrangement."""
    n = arrangement_nb(hand, np.int64(-1))[2]
    out = np.int64(0)
    for k in range(n):
        sets, runs, _ = arrangement_nb(hand, np.int64(k))
        out |= hand & ~(sets | runs)
    return out


@CORE
def future_deadwood_nb(kept, seen, count, buffer):
    """The mean of the ``count`` smallest, over every card not in ``seen``, of the least
    deadwood of the ten cards ``kept`` plus that card after its best discard (``buffer``:
    52 slots of scratch)."""
    n = 0
    rest = _DECK & ~seen
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        eleven = kept | (np.int64(1) << card)
        buffer[n], _ = discard_deadwoods_nb(eleven, eleven)
        n += 1
    m = min(n, count)
    total = 0.0
    for i in range(m):  # the m smallest, by selection (m is small)
        j_min = i
        for j in range(i + 1, n):
            if buffer[j] < buffer[j_min]:
                j_min = j
        buffer[i], buffer[j_min] = buffer[j_min], buffer[i]
        total += buffer[i]
    return total / m if m > 0 else 0.0


@CORE
def closeness_nb(card, offset, low_end, mine, took):
    """The state of the card ``offset`` ranks from ``card`` in its suit: (held by the
    opponent, out of its reach).  Past the end of the suit (``low_end``: the rank that
    has no such card) it is out of reach."""
    rank = card & 15
    if (offset < 0 and rank <= low_end) or (offset > 0 and rank >= low_end):
        return False, True
    other = card + offset
    if (took >> other) & 1:
        return True, False
    return False, (mine >> other) & 1 == 1


@CORE
def danger_nb(card, mine, took):
    """D(c) of the module docstring: ``mine`` holds the cards out of the opponent's reach
    that it does not hold (the player's hand and the cards it has seen), ``took`` the cards
    the opponent took from the pile."""
    opp_lo, out_lo = closeness_nb(card, -1, 0, mine, took)
    opp_hi, out_hi = closeness_nb(card, 1, 12, mine, took)
    opp_lo2, out_lo2 = closeness_nb(card, -2, 1, mine, took)
    opp_hi2, out_hi2 = closeness_nb(card, 2, 11, mine, took)
    if (card & 15) >= 11:  # the public player's check two ranks up marks the king instead
        out_hi2 = False
        out_hi = True
    score = 0.0
    if (out_hi and (out_lo or out_lo2)) or (out_lo and (out_hi or out_hi2)):
        score -= 10.0
    else:
        score -= 5.0 * out_lo + 5.0 * out_hi + 3.0 * out_lo2 + 3.0 * out_hi2
    if (opp_hi and (opp_lo or opp_lo2)) or (opp_lo and (opp_hi or opp_hi2)):
        score += 20.0
    else:
        score += 5.0 * opp_lo + 5.0 * opp_hi + 3.0 * opp_lo2 + 3.0 * opp_hi2
    opp_rank = 0
    out_rank = 0
    for suit in range(4):
        other = suit * 16 + (card & 15)
        if (took >> other) & 1:
            opp_rank += 1
        elif (mine >> other) & 1:
            out_rank += 1
    if out_rank >= 3:
        score -= 10.0
    elif out_rank == 2:
        score -= 4.0
    if opp_rank >= 2:
        score += 20.0
    elif out_rank == 1:
        score += 4.0
    return score


@CORE
def candidates_nb(params, hand, legal):
    """(candidates, gin card): the discards MARJJ scores (module docstring), or the card
    to discard at once (a single candidate, or the first that leaves gin; −1 if none)."""
    spread = params[3]
    cand = unmelded_nb(hand) & legal
    dearest = 0
    rest = cand
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        dearest = max(dearest, CARD_VALUE[card])
    rest = cand
    while rest:
        card = lowest_card_nb(rest)
        bit = rest & -rest
        rest &= rest - 1
        if CARD_VALUE[card] < dearest - spread:
            cand &= ~bit
    if popcount_nb(cand) == 1:
        return cand, lowest_card_nb(cand)
    if cand == 0:
        cand = legal
    best = np.int64(1 << 30)
    rest = cand
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        dw = min_deadwood_nb(hand & ~(np.int64(1) << card))
        if dw == 0:
            return cand, card
        best = min(best, dw)
    rest = cand
    while rest:
        card = lowest_card_nb(rest)
        bit = rest & -rest
        rest &= rest - 1
        if min_deadwood_nb(hand & ~bit) > best + spread:
            cand &= ~bit
    return cand, np.int64(-1)


@ALLOCATES
def discard_scores_nb(params, view, memory, scores):
    """Fill ``scores[c]`` with score(c) for each scored candidate (``np.inf`` elsewhere);
    returns the card to discard at once, or −1 when the lowest score decides."""
    hand = view[V_HAND]
    took = opponent_took_nb(view, memory)
    seen = view[V_SEEN] | hand
    for c in range(64):
        scores[c] = np.inf
    cand, now = candidates_nb(params, hand, view[V_LEGAL_DISCARDS] & hand)
    if now >= 0:
        return now
    weight = params[0] * params[1] ** max(view[V_MY_DRAWS] - 1, 0)
    buffer = np.empty(52, np.int64)
    rest = cand
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - 1
        kept = hand & ~(np.int64(1) << card)
        future = future_deadwood_nb(kept, seen, np.int64(params[2]), buffer)
        scores[card] = min_deadwood_nb(kept) + weight * future + danger_nb(card, hand | seen, took)
    return np.int64(-1)


@CORE
def knocks_with_nb(params, deadwood, draws):
    """Gin always; with deadwood ≤ 10 only on its first ``knock_turns`` draws."""
    return deadwood == 0 or (deadwood <= 10 and draws <= params[4])


@ALLOCATES  # (both stated: the dispatch, inlined and without NRT, would pass its flags on)
def take_nb(params, view, pile, rules, rng, memory):
    top = view[V_TOP]
    took = opponent_took_nb(view, memory)
    if top < 0:
        return False
    hand = view[V_HAND]
    eleven = hand | (np.int64(1) << top)
    dw, _ = discard_deadwoods_nb(eleven, eleven)
    if view[V_PHASE] == PHASE_LAST_DISCARD:
        dw, _ = discard_deadwoods_nb(eleven, hand)
        return dw <= view[V_KNOCK_LIMIT] and knocks_with_nb(params, dw, view[V_MY_DRAWS] + 1)
    if dw >= min_deadwood_nb(hand):
        return False
    sets, runs = fewest_layoffs_nb(eleven, view[V_SEEN] | eleven, took)
    return ((sets | runs) >> top) & 1 == 1


@ALLOCATES  # (both stated: the dispatch, inlined and without NRT, would pass its flags on)
def discard_nb(params, view, pile, rules, rng, memory):
    scores = np.empty(64, np.float64)
    now = discard_scores_nb(params, view, memory, scores)
    if now >= 0:
        return now
    best = np.inf
    ties = np.int64(0)
    for c in range(64):
        if scores[c] < best:
            best = scores[c]
            ties = np.int64(1) << c
        elif scores[c] == best and best < np.inf:
            ties |= np.int64(1) << c
    pick = below_nb(rng, popcount_nb(ties))
    for _ in range(pick):
        ties &= ties - 1
    return lowest_card_nb(ties)


@ALLOCATES  # (both stated: the dispatch, inlined and without NRT, would pass its flags on)
def knock_nb(params, view, pile, rules, rng, memory):
    opponent_took_nb(view, memory)
    return knocks_with_nb(params, view[V_DEADWOOD], view[V_MY_DRAWS])


@ALLOCATES  # (both stated: the dispatch, inlined and without NRT, would pass its flags on)
def arrange_nb(params, view, pile, rules, rng, memory):
    hand = view[V_HAND]
    return fewest_layoffs_nb(hand, view[V_SEEN] | hand, opponent_took_nb(view, memory))


@ALLOCATES  # (both stated: the dispatch, inlined and without NRT, would pass its flags on)
def defend_nb(params, view, pile, rules, rng, memory):
    hand = view[V_HAND]
    return fewest_layoffs_nb(hand, view[V_SEEN] | hand, opponent_took_nb(view, memory))
