"""``mc``: Monte Carlo search over determinizations of the hidden cards (PIMC).

Policy, in plain words.  At a decision that matters it builds ``samples`` guesses of the
hidden cards (*determinizations*): an opponent hand drawn from the opponent belief
(``strategies.belief``: the cards it took and holds, plus hidden cards drawn in
proportion to their weights) and the rest of the unknown cards shuffled into a stock.
Because an opponent improves its hand as it plays, each guess is the least-deadwood hand
of 1 + ``skill`` × (the opponent's turns so far) draws from the belief (``skill`` = 0: one
draw).  It
reads only its view (``strategies.view``), never the true hidden cards.  For each
determinization it builds a hand state consistent with its view (the core's one
determinization, ``simulator.core.view_fill.determinize_nb``), and for each candidate
action copies it, plays the action and plays the hand to its end with a fast rollout
policy for both seats, through the engine's own phase functions (``play_nb``,
``lay_out_nb``).  It picks the candidate with the best mean result (every candidate sees
the same determinizations: common random numbers); ties go to ``expert``'s choice.

Which decisions are searched (``search``, a sum of 1 = draws, 2 = discards, 4 = knocks;
default 4), and the candidates (pruning); a decision not searched is ``expert``'s:

* first upcard and every draw (1): when the face-up card would meld with the hand, take
  or leave it (otherwise it plays as ``expert``, without searching);
* discard (2): the ``candidates`` best discards by ``expert``'s score (deadwood,
  look-ahead, danger; ``strategies.expert.discard_scores_nb``); one legal discard needs
  no search;
* knock with deadwood > 0 (4): knock or play on; gin is always knocked;
* last discard and the layout: as ``expert``.

Why knocks only by default: against ``simple`` under the tournament rules (3,000 mirrored
hands, seed 7, net points per hand ±0.85), searching knocks gained +5.9 against +5.7 for
``expert``'s own rule, while searching discards with greedy rollouts lost ground (+5.2 with
every decision searched): the rollouts' greedy discards are weaker than ``expert``'s.

Rollout policy (``rollout``): 0 = greedy for both seats (take the face-up card when it
melds and lowers deadwood, discard to least deadwood, knock as soon as allowed, lay out
the first least-deadwood arrangement); 1 = the same for the opponent, while its own seat
knocks as soon as allowed only on its ``expert``-style early turns (``knock_turns``), and
after them only with deadwood ≤ ``late_knock`` (0: only with gin); 2 = ``marjj``'s draws,
discards and layout for both seats (``strategies.marjj``, each seat with a per-hand memory of
its own), its own seat knocking as rollout 1 does and the opponent as ``marjj`` does (deadwood
≤ 10 on its first 3 draws, then only gin); 3 = the same with an opponent that knocks whenever
it may; 4 = the opponent of 2 in half the determinizations and of 3 in the other half (the
searching player does not know which kind of opponent it faces); 5 = the opponent of 2 with
a knock window (``marjj``'s ``knock_turns``) of 1 to 6 draws, one after the other across the
determinizations (the MARJJ family's windows: the searching player does not know which
MARJJ it faces).  Rollouts 2-5 cost more than rollout 1 (marjj scores each discard by the
next draws it allows); docs/published.md gives the CPU per game measured.  A spec with
rollouts 2-5 plays through ``strategies.mc_marjj`` (``route``), so an engine that plays only
rollouts 0 and 1 never compiles ``marjj``'s code.

Why ``late_knock`` = 6: a rollout in which our own seat plays only for gin after its early
turns undervalues playing on (``mc`` itself searches every later knock), so ``mc`` knocked
too often.  Against ``expert`` under the tournament rules (20,000 mirrored hands, seed
11; net points per hand to ``mc``), ``late_knock`` = 6 scored +0.33 [+0.17, +0.49]
against −0.07 [−0.19, +0.05] with 0 (3: +0.16; with draws searched too, ``search`` = 5:
+0.24); against ``simple`` it gives up 0.43 of +5.62.

Utility: the hand's points from its own side (+ won, − lost); with ``game_aware`` = 1 in
a game with a target, the change in game-win probability instead
(``strategies.gamevalue``: a table learned by simulation).

Parameters (in this order): ``samples`` (default 64), ``candidates`` (3), ``rollout``
(1), ``knock_turns`` (3: used by ``rollout`` 1 to 4), ``game_aware`` (0), ``search`` (4),
``skill`` (2), ``late_knock`` (6: used by ``rollout`` 1 to 4).  Randomness comes from the
player's own stream, so play is deterministic for a seed.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from simulator.infra.jit import ALLOCATES, MERGED
from simulator.core.melds import (
    arrangement_nb,
    discard_deadwoods_nb,
    lowest_card_nb,
    melds_with_card_nb,
    min_deadwood_nb,
    popcount_nb,
    preferred_discard_nb,
)
from simulator.core.state import (
    A_DISCARD,
    A_DRAW_STOCK,
    A_KNOCK,
    A_NO_KNOCK,
    A_PASS,
    A_TAKE_PILE,
    N_STATE,
    defend_nb as defend_phase_nb,
    lay_out_nb,
    play_nb,
)
from simulator.core.hand_reading import is_over_nb, phase_nb, pile_nb, seat_to_act_nb
from simulator.core.view_fill import determinize_nb, fill_view_nb

from . import expert, marjj
from .belief import THETA, belief_nb, sample_hidden_nb
from .gamevalue import hand_utility_nb
from .view import (
    N_MEMORY,
    N_PARAMS,
    N_VIEW,
    DEFEND_BEST,
    PHASE_ARRANGE,
    PHASE_DEFEND,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_FIRST_UPCARD,
    PHASE_KNOCK,
    V_DEADWOOD,
    V_HAND,
    V_KNOCK_LIMIT,
    V_LEGAL_DISCARDS,
    V_MY_DRAWS,
    V_OPP_DISCARDS,
    V_OPP_TOOK,
    V_PHASE,
    V_SEEN,
    V_TOP,
)

PARAMS = {"samples": 64.0, "candidates": 3.0, "rollout": 1.0, "knock_turns": 3.0, "game_aware": 0.0, "search": 4.0,
          "skill": 2.0, "late_knock": 6.0}
_MAX_CANDIDATES = 11
#: the rollout policies that play both seats as ``marjj`` (``marjj_rollout_nb``): the opponent
#: knocking as marjj does, as soon as it may, each in half the determinizations, or as MARJJ
#: with each knock window of its family in turn
ROLLOUT_MARJJ = 2
ROLLOUT_MARJJ_EAGER = 3
ROLLOUT_MARJJ_MIXED = 4
ROLLOUT_MARJJ_WINDOWS = 5
#: the knock windows rollout 5's opponent cycles through, one per determinization: the MARJJ
#: family's (``marjj:knock_turns=1`` to ``6``)
OPPONENT_WINDOWS = 6
#: integral parameters and their allowed values (``strategies.registry``): counts, a flag, a bit set
PARAM_RANGES = {"samples": (1, 100_000), "candidates": (1, _MAX_CANDIDATES), "rollout": (0, ROLLOUT_MARJJ_WINDOWS), "knock_turns": (0, 99),
                "game_aware": (0, 1), "search": (0, 7), "late_knock": (0, 100)}
SUMMARY = "Monte Carlo search: belief-sampled determinizations, candidate actions played out with a fast rollout, best mean result"
DEFENCE = "best"  # how it defends (reports name it): the engine's best response after a knock

#: the expert parameters mc uses for pruning, the last discard and the layout: its defaults
EXPERT_PARAMS = np.zeros(N_PARAMS, dtype=np.float64)
EXPERT_PARAMS[: len(expert.PARAMS)] = list(expert.PARAMS.values())
#: the marjj parameters of rollout 2's decisions: its defaults
MARJJ_PARAMS = np.zeros(N_PARAMS, dtype=np.float64)
MARJJ_PARAMS[: len(marjj.PARAMS)] = list(marjj.PARAMS.values())
#: where ``marjj``'s knock window sits in its parameters
MARJJ_KNOCK_TURNS = list(marjj.PARAMS).index("knock_turns")


@MERGED
def opponent_tries_nb(skill, view):
    """How many belief draws one guess of the opponent's hand takes the best of: 1 +
    ``skill`` × the opponent's turns so far (its discards), at least 1."""
    return 1 + max(np.int64(skill * popcount_nb(view[V_OPP_DISCARDS])), 0)


@MERGED
def opponent_hidden_nb(cand, k, weights, took, tries, rng):
    """The opponent's hidden cards in one determinization: ``k`` of the candidates ``cand``
    drawn in proportion to the belief's ``weights`` (``strategies.belief.sample_hidden_nb``);
    with ``tries`` > 1 (the opponent has improved its hand as it played) the draw that,
    with the cards it ``took`` and holds, has the least deadwood of ``tries`` draws.  The
    one guess of the opponent's hand: ``mc``'s search and OpenSpiel's
    ``resample_from_infostate`` (``simulator.interop.ospiel_game``) both draw it here."""
    hidden = sample_hidden_nb(cand, k, weights, rng)
    if tries > 1:
        best_dw = min_deadwood_nb(took | hidden)
        for _ in range(tries - 1):
            other = sample_hidden_nb(cand, k, weights, rng)
            dw = min_deadwood_nb(took | other)
            if dw < best_dw:
                best_dw = dw
                hidden = other
    return hidden


@ALLOCATES
def marjj_action_nb(state, rules, seat, phase, knock_turns, late_knock, opp_late_knock, opp_params, view, rng, memory):
    """Rollout 2's action for ``seat`` at ``phase`` (not the layout or the defence), the
    ``view`` filled: ``marjj``'s draw, discard and knock (``memory``: that seat's marjj
    memory), seat 0 with ``marjj``'s defaults and seat 1 with ``opp_params`` (its knock
    window), except in the knock: seat 0, the searching player, knocks by rollout 1's rule
    (early turns, then deadwood ≤ ``late_knock``), and seat 1 knocks as that ``marjj`` does
    or, after its early turns, also with deadwood ≤ ``opp_late_knock``."""
    pile = pile_nb(state)
    params = MARJJ_PARAMS if seat == 0 else opp_params
    if phase == PHASE_DISCARD:
        return A_DISCARD + marjj.discard_nb(params, view, pile, rules, rng, memory)
    if phase == PHASE_KNOCK:
        dw = view[V_DEADWOOD]
        if seat == 0:
            knock = dw == 0 or view[V_MY_DRAWS] <= knock_turns or dw <= late_knock
        else:
            knock = dw <= opp_late_knock or marjj.knock_nb(params, view, pile, rules, rng, memory)
        return A_KNOCK if knock else A_NO_KNOCK
    if marjj.take_nb(params, view, pile, rules, rng, memory):
        return A_TAKE_PILE
    return A_DRAW_STOCK if phase == PHASE_DRAW else A_PASS


@ALLOCATES
def rollout_nb(kind, state, rules, policy, knock_turns, late_knock, opp_late_knock, opp_params, view, trace, rng, memory):
    """Play ``state`` to the end of the hand with rollout ``policy`` 0 or 1 for both seats
    (see the module docstring); returns False if a move was refused (never expected).  The
    arguments are ``play_out_nb``'s (``kind``, ``PLAY_OUT_GREEDY``, is unused here; ``rng``,
    ``memory``, ``opp_late_knock`` and ``opp_params`` serve only ``marjj_rollout_nb``)."""
    while not is_over_nb(state):
        seat = seat_to_act_nb(state)
        phase = phase_nb(state)
        fill_view_nb(state, seat, view)
        hand = view[V_HAND]
        if phase == PHASE_DISCARD:
            _, optimal = discard_deadwoods_nb(hand, view[V_LEGAL_DISCARDS])
            action = A_DISCARD + preferred_discard_nb(optimal)
        elif phase == PHASE_KNOCK:
            dw = view[V_DEADWOOD]
            knock = (dw == 0 or policy == 0 or seat == 1 or view[V_MY_DRAWS] <= knock_turns
                     or dw <= late_knock)
            action = A_KNOCK if knock else A_NO_KNOCK
        elif phase == PHASE_ARRANGE:  # the layout: the first least-deadwood arrangement
            sets, runs, _ = arrangement_nb(hand, np.int64(0))
            if lay_out_nb(state, rules, sets, runs, trace) != 0:
                return False
            continue
        elif phase == PHASE_DEFEND:  # the defender: the best response (docs/rules.md)
            if defend_phase_nb(state, rules, np.int64(DEFEND_BEST), np.int64(0), trace) != 0:
                return False
            continue
        else:
            top = view[V_TOP]
            take = False
            if top >= 0:
                bit = np.int64(1) << top
                if phase == PHASE_DRAW or phase == PHASE_FIRST_UPCARD:
                    if melds_with_card_nb(hand, top):
                        dw, _ = discard_deadwoods_nb(hand | bit, hand)
                        take = dw < min_deadwood_nb(hand)
                else:
                    dw, _ = discard_deadwoods_nb(hand | bit, hand)
                    take = dw <= view[V_KNOCK_LIMIT]
            if take:
                action = A_TAKE_PILE
            elif phase == PHASE_DRAW:
                action = A_DRAW_STOCK
            else:
                action = A_PASS
        if play_nb(state, rules, np.int64(action), trace) != 0:
            return False
    return True


@ALLOCATES
def marjj_rollout_nb(kind, state, rules, policy, knock_turns, late_knock, opp_late_knock, opp_params, view, trace, rng, memory):
    """Play ``state`` to the end of the hand with rollout ``policy`` 2 to 5 (``marjj``
    for both seats; see the module docstring); returns False if a move was refused (never
    expected).  The arguments are ``play_out_nb``'s (``kind``, ``PLAY_OUT_MARJJ``, is unused
    here); ``rng`` and ``memory`` (two rows of per-hand memory, one per seat, cleared here)
    serve ``marjj``'s decisions; ``opp_late_knock`` and ``opp_params`` (the opponent's
    ``marjj`` parameters) are the opponent's knock (``marjj_action_nb``)."""
    for i in range(memory.shape[1]):
        memory[0, i] = 0
        memory[1, i] = 0
    while not is_over_nb(state):
        seat = seat_to_act_nb(state)
        phase = phase_nb(state)
        fill_view_nb(state, seat, view)
        hand = view[V_HAND]
        if phase == PHASE_ARRANGE:  # marjj's fewest layoffs
            sets, runs = marjj.fewest_layoffs_nb(hand, view[V_SEEN] | hand,
                                                 marjj.opponent_took_nb(view, memory[seat]))
            if lay_out_nb(state, rules, sets, runs, trace) != 0:
                return False
            continue
        if phase == PHASE_DEFEND:  # the defender: the best response (docs/rules.md)
            if defend_phase_nb(state, rules, np.int64(DEFEND_BEST), np.int64(0), trace) != 0:
                return False
            continue
        action = marjj_action_nb(state, rules, seat, phase, knock_turns, late_knock, opp_late_knock, opp_params, view, rng,
                                 memory[seat])
        if play_nb(state, rules, np.int64(action), trace) != 0:
            return False
    return True


#: which rollout function a search plays out with (``play_out_nb``): ``rollout_nb`` (rollouts
#: 0 and 1) or ``marjj_rollout_nb`` (2-5)
PLAY_OUT_GREEDY = 0
PLAY_OUT_MARJJ = 1


def play_out_nb(kind, state, rules, policy, knock_turns, late_knock, opp_late_knock, opp_params, view, trace, rng, memory):
    """Play ``state`` to the end of the hand with ``rollout_nb`` (``kind`` =
    ``PLAY_OUT_GREEDY``) or ``marjj_rollout_nb`` (``PLAY_OUT_MARJJ``).  Numba code only
    (``_play_out``): ``kind`` is a constant of the caller's code, so numba compiles the one
    rollout it names, in place of this call (no function level between), and never the
    other."""
    raise TypeError("play_out_nb is called from numba code only")


@overload(play_out_nb)
def _play_out(kind, state, rules, policy, knock_turns, late_knock, opp_late_knock, opp_params, view, trace, rng, memory):
    if not isinstance(kind, types.IntegerLiteral):  # numba types the call again with the constant
        return None
    return (marjj_rollout_nb if kind.literal_value == PLAY_OUT_MARJJ else rollout_nb).py_func


@ALLOCATES
def candidates_nb(params, view, pile, rules, rng, memory, actions):
    """Fill ``actions`` with the candidates searched at the view's phase, ``expert``'s
    choice first, and return how many: at a draw, take the face-up card or not; at a
    discard, the ``params[1]`` best legal discards by ``expert``'s score; at a knock,
    knock or play on."""
    phase = view[V_PHASE]
    if phase == PHASE_KNOCK:
        knock = expert.may_knock_nb(EXPERT_PARAMS, view, view[V_DEADWOOD])
        actions[0] = A_KNOCK if knock else A_NO_KNOCK
        actions[1] = A_NO_KNOCK if knock else A_KNOCK
        return np.int64(2)
    if phase == PHASE_DISCARD:
        scores = np.empty(64, np.float64)
        best = expert.discard_scores_nb(EXPERT_PARAMS, view, scores)
        n_cand = min(max(np.int64(params[1]), 1), _MAX_CANDIDATES)
        legal = view[V_LEGAL_DISCARDS] & view[V_HAND]
        n = np.int64(0)
        taken = np.int64(0)
        while n < n_cand:  # the best-scoring legal discard not yet taken, expert's own first
            pick = np.int64(-1)
            rest = legal & ~taken
            while rest:
                card = lowest_card_nb(rest)
                rest &= rest - 1
                if pick < 0 or scores[card] < scores[pick]:
                    pick = card
            if pick < 0:
                break
            if n == 0:
                pick = best
            taken |= np.int64(1) << pick
            actions[n] = A_DISCARD + pick
            n += 1
        return n
    take = expert.take_nb(EXPERT_PARAMS, view, pile, rules, rng, memory)
    leave = A_DRAW_STOCK if phase == PHASE_DRAW else A_PASS
    actions[0] = A_TAKE_PILE if take else leave
    actions[1] = leave if take else A_TAKE_PILE
    return np.int64(2)


@ALLOCATES
def searched_action_nb(params, view, pile, rules, rng, memory, play_out):
    """The action ``mc`` plays by search at the view's draw, discard or knock: its
    candidates, ``expert``'s choice first (``candidates_nb``), and the one with the best
    mean utility over ``params[0]`` determinizations, each played out by the rollout
    ``play_out`` names (``play_out_nb``; a constant, so numba compiles the search once for
    each, with only that rollout's code).  The one function that searches, so that the
    search's machine code is built once per rollout, not once per decision."""
    actions = np.empty(_MAX_CANDIDATES, np.int64)
    n_actions = candidates_nb(params, view, pile, rules, rng, memory, actions)
    samples = max(np.int64(params[0]), 1)
    late_knock = np.int64(params[7])
    policy = np.int64(params[2])
    eager = np.int64(100)  # the opponent's late knock in rollouts 3 and 4: whenever it may
    knock_turns = np.int64(params[3])
    game_aware = params[4] != 0
    weights = np.empty(64, np.float64)
    probs = np.empty(64, np.float64)
    cand, k = belief_nb(view, THETA, weights, probs)
    base = np.empty(N_STATE, np.int64)
    work = np.empty(N_STATE, np.int64)
    rview = np.empty(N_VIEW, np.int64)
    trace = np.zeros((0, 3), np.int64)
    rmemory = np.zeros((2, N_MEMORY), np.int64)
    opp_params = MARJJ_PARAMS.copy()
    totals = np.zeros(_MAX_CANDIDATES, np.float64)
    took = view[V_OPP_TOOK]
    tries = opponent_tries_nb(params[6], view)
    for s in range(samples):
        hidden = opponent_hidden_nb(cand, k, weights, took, tries, rng)
        opp_late_knock = np.int64(0)  # marjj's own rule: gin only after its early turns
        if policy == ROLLOUT_MARJJ_EAGER or (policy == ROLLOUT_MARJJ_MIXED and s % 2 == 1):
            opp_late_knock = eager
        if policy == ROLLOUT_MARJJ_WINDOWS:
            opp_params[MARJJ_KNOCK_TURNS] = 1 + s % OPPONENT_WINDOWS
        determinize_nb(view, pile, hidden, rng, base)
        for a in range(n_actions):
            for i in range(N_STATE):
                work[i] = base[i]
            if play_nb(work, rules, actions[a], trace) != 0:
                totals[a] -= 1e9
                continue
            play_out_nb(play_out, work, rules, policy, knock_turns, late_knock, opp_late_knock, opp_params, rview, trace, rng,
                        rmemory)
            totals[a] += hand_utility_nb(work, rules, game_aware)
    best = 0
    for a in range(1, n_actions):
        if totals[a] > totals[best] + 1e-9:
            best = a
    return actions[best]


@MERGED
def take_with_nb(params, view, pile, rules, rng, memory, play_out):
    """The take decision, searched with the rollout ``play_out`` names (``searched_action_nb``) when asked."""
    phase = view[V_PHASE]
    top = view[V_TOP]
    if top < 0:
        return False
    if ((phase != PHASE_DRAW and phase != PHASE_FIRST_UPCARD) or not melds_with_card_nb(view[V_HAND], top)
            or not np.int64(params[5]) & 1):
        return expert.take_nb(EXPERT_PARAMS, view, pile, rules, rng, memory)
    return searched_action_nb(params, view, pile, rules, rng, memory, play_out) == A_TAKE_PILE


@MERGED
def discard_with_nb(params, view, pile, rules, rng, memory, play_out):
    """The discard, searched with the rollout ``play_out`` names when asked."""
    n_cand = min(max(np.int64(params[1]), 1), _MAX_CANDIDATES)
    legal = view[V_LEGAL_DISCARDS] & view[V_HAND]
    if n_cand == 1 or popcount_nb(legal) == 1 or not np.int64(params[5]) & 2:
        return expert.discard_nb(EXPERT_PARAMS, view, pile, rules, rng, memory)
    return searched_action_nb(params, view, pile, rules, rng, memory, play_out) - A_DISCARD


@MERGED
def knock_with_nb(params, view, pile, rules, rng, memory, play_out):
    """The knock, searched with the rollout ``play_out`` names when asked."""
    if view[V_DEADWOOD] == 0:
        return True
    if not np.int64(params[5]) & 4:
        return expert.may_knock_nb(EXPERT_PARAMS, view, view[V_DEADWOOD])
    return searched_action_nb(params, view, pile, rules, rng, memory, play_out) == A_KNOCK


def route(values: dict[str, float]) -> str | None:
    """The module that plays a spec with these parameter values when it is not this one
    (``strategies.registry.BUILTIN_ROUTES``): rollouts 2-5 play through
    ``strategies.mc_marjj``, whose decisions search with ``marjj_rollout_nb``; this
    module's decisions search with ``rollout_nb`` (rollouts 0 and 1)."""
    return "strategies.mc_marjj" if values["rollout"] >= ROLLOUT_MARJJ else None


# the decisions of rollouts 0 and 1 (``route``)
@MERGED
def take_nb(params, view, pile, rules, rng, memory):
    return take_with_nb(params, view, pile, rules, rng, memory, PLAY_OUT_GREEDY)


@MERGED
def discard_nb(params, view, pile, rules, rng, memory):
    return discard_with_nb(params, view, pile, rules, rng, memory, PLAY_OUT_GREEDY)


@MERGED
def knock_nb(params, view, pile, rules, rng, memory):
    return knock_with_nb(params, view, pile, rules, rng, memory, PLAY_OUT_GREEDY)


@ALLOCATES  # (both stated: the dispatch, inlined and without NRT, would pass its flags on)
def arrange_nb(params, view, pile, rules, rng, memory):
    return expert.arrange_fewest_layoffs_nb(view)
