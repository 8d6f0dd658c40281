"""A hand of Gin Rummy as a steppable state machine: one flat int64 ``state`` array, the
phase functions that move it, and the action encoding.

The whole state of a hand lives in one int64 array of ``N_STATE`` slots, so copying a
state is ``state.copy()``: a search player can copy it, try moves, play it out and throw
the copy away, inside numba or from Python (``simulator.Hand``).  Nothing else is needed to
continue a hand: the reshuffle stream is a slot too.  (The players' random streams and
memories belong to the strategies, not to the hand: ``simulator.engine.kernels`` and
``simulator.Hand`` keep them next to the state.)

Slots (seats are 0/1, -1 = nobody; card masks as in ``simulator.core.cards``)
-----------------------------------------------------------------------------------------

=====================  ===========================================================================
``S_PHASE``            the phase: a decision point ``PHASE_*`` (those of ``simulator.core.view``) or
                       ``PHASE_OVER``
``S_CURRENT``          the seat to act (the knocker while laying out, then the defender; last to
                       act once over)
``S_DEALER``           the dealing seat
``S_HANDS`` + seat     each seat's hand mask (10 cards, 11 between a draw and a discard)
``S_TOOK`` + seat      cards the seat took from the pile and still holds (public)
``S_DECLINED`` + seat  pile tops the seat was offered and passed on (public)
``S_DISCARDS`` + seat  every card the seat discarded this hand (public)
``S_SEEN`` + seat      cards the seat has seen: its hand, pile history, its stock draws
``S_DRAWS`` + seat     cards the seat drew this hand (pile takes included)
``S_SCORES`` + seat    game scores before this hand (shown to the players; 0 in single deals)
``S_STOCK_POS``        the next stock card is ``state[S_STOCK + S_STOCK_POS]``
``S_STOCK_N``          cards in the stock including those drawn: ``S_STOCK_N - S_STOCK_POS`` left
``S_PILE_LEN``         cards in the discard pile
``S_PILE_MASK``        mask of the cards in the pile
``S_TURN``             discards made so far (both players)
``S_RESHUFFLES``       times the pile was turned into a new stock this hand
``S_UPCARD``           the deal's first upcard
``S_LIMIT``            the deal's knock limit (Oklahoma: from the upcard; gin only: 0)
``S_MULTIPLIER``       the deal's score multiplier (2 with Oklahoma spade doubling, else 1)
``S_DRAWN``            discard phase: the card just drawn, else -1
``S_FROM_PILE``        discard phase: 1 when it came from the pile (it may not be discarded)
``S_LAST_CHANCE``      1 once the last discard was taken (``last_discard_rule``): must knock
``S_LEGAL``            discard phase: mask of the legal discards, else 0
``S_DEADWOOD``         knock and arrange phases: the current player's deadwood after its discard;
                       defend phase and once over: the knocker's
``S_KNOCKER``          the seat that knocked (or went gin), -1 before
``S_OUTCOME``          once over: ``OUT_*`` (``simulator.core.records``); -1 while the hand is played
``S_WINNER``           once over: the seat that scores, -1 for a dead hand or a scoreless tie
``S_POINTS``           once over: the points it scores (spade doubling included)
``S_KNOCKER_DW``       once over: the knocker's deadwood (-1: dead hand)
``S_DEFENDER_DW``      once over: the defender's deadwood after layoffs (-1: dead hand)
``S_LAYOFF``           once over: value of the cards laid off
``S_SETS``/``S_RUNS``  from the layout on: the knocker's set and run cards (0 after gin)
``S_LAID``             once over: the cards the defender laid off
``S_DEFENDER_MELDS``   once over after a knock: the cards the defender melded (0 after gin)
``S_DECK_RNG``         the reshuffle stream (a ``simulator.core.rng`` counter, as int64 bits)
``S_NTRACE``           bookkeeping: trace events written since the deal (not part of the game)
``S_STOCK`` .. +63     the stock in drawing order (live from ``S_STOCK_POS`` to ``S_STOCK_N``)
``S_PILE`` .. +63      the discard pile, top last (live below ``S_PILE_LEN``)
=====================  ===========================================================================

Slots of the stock and pile beyond their live parts hold stale cards; everything else is
defined in every phase.

Phases and actions
------------------

A hand rests only where a player decides (``PHASE_*``, the same numbers a strategy sees in
``view[V_PHASE]``) or when it is over.  Every automatic step happens inside the action
that leads to it: the stock draw after both players declined the upcard, big gin, the
knock after taking the last discard, settling after gin, the end of the stock (cancel,
last-discard offer, reshuffle) and the turn guard.

=========================  ==============================  ===========================================
phase                      who                             legal actions
=========================  ==============================  ===========================================
``PHASE_FIRST_UPCARD``     non-dealer, then dealer         ``A_TAKE_PILE``, ``A_PASS``
``PHASE_DRAW``             the player to move              ``A_DRAW_STOCK``, ``A_TAKE_PILE``
``PHASE_DISCARD``          the player who drew             ``A_DISCARD + c`` for each legal card c
``PHASE_KNOCK``            deadwood ≤ limit after discard  ``A_KNOCK``, ``A_NO_KNOCK``
``PHASE_LAST_DISCARD``     the other player                ``A_TAKE_PILE`` (then must knock), ``A_PASS``
``PHASE_ARRANGE``          the knocker (not after gin)     ``A_ARRANGE + k``, k < number of arrangements
``PHASE_DEFEND``           the defender                    ``A_DEFEND_BEST``, ``A_DEFEND + k``, k < number
                                                           of its arrangements, ``A_DEFEND_NO_LAYOFFS``
``PHASE_OVER``             nobody                          none
=========================  ==============================  ===========================================

Action codes (``N_ACTIONS`` in all, ``action_name`` names each):

* ``0 .. 63``: ``A_DISCARD + c``, discard the card of code c;
* ``64`` ``A_DRAW_STOCK``: draw the stock's top card;
* ``65`` ``A_TAKE_PILE``: take the pile's top card (the upcard, a draw, the last discard);
* ``66`` ``A_PASS``: decline the upcard or the last discard;
* ``67`` ``A_KNOCK``, ``68`` ``A_NO_KNOCK``;
* ``69 + k`` ``A_ARRANGE + k``: lay out the k-th least-deadwood arrangement in the order of
  ``simulator.core.melds.arrangement_nb`` (k < ``MAX_ARRANGEMENTS``).  Numba strategies answer
  with (sets, runs) masks instead: ``lay_out_nb`` takes those, checked;
* ``105`` ``A_DEFEND_BEST``: the defender's best response to the layout: its melds and
  layoffs chosen together to leave the least deadwood (``simulator.core.melds.layoff_solution_nb``;
  it breaks its own melds when laying off those cards pays);
* ``106 + k`` ``A_DEFEND + k``: the defender lays out its own k-th least-deadwood
  arrangement (``arrangement_nb``'s order) whatever the knocker laid out, and every card
  it left unmelded that fits the knocker's melds is laid off, chains included
  (``simulator.core.melds.layoff_after_melds_nb``).  Numba strategies answer with (sets, runs)
  masks or ``(DEFEND_BEST, 0)`` (``simulator.core.view``): ``defend_nb`` takes those, checked;
* ``142`` ``A_DEFEND_NO_LAYOFFS``: the defender lays out its first least-deadwood arrangement
  (``arrangement_nb``'s order) and lays off nothing (laying off is its option,
  docs/rules.md#laying-out-and-laying-off): its deadwood is its hand's least deadwood.
  Numba strategies answer ``(DEFEND_NO_LAYOFFS, 0)``.

The trace's ``EV_DEFEND`` event holds the defence chosen: -1 the best response, -2 no
layoffs, k ≥ 0 the arrangement k; ``EV_LAYOFF`` the cards laid off (0 after no layoffs).

How to defend is the defender's decision, not a rule: docs/rules.md fixes what may be laid
off, a strategy chooses its melds (``defend_nb`` in each strategy module; the default is the
best response).  Against gin there is nothing to choose: no layoffs, the defender keeps its
least deadwood.

Functions (numba)
-----------------

* ``deal_nb(state, deck, dealer, score0, score1, rules, deck_rng, trace)`` starts a hand;
* ``apply_action_nb(state, rules, action, trace) -> error`` plays one action, automatic
  steps included; ``play_nb`` is the same for every phase but the layout and the defence
  (the engine's loop: strategies answer those with masks, through ``lay_out_nb(state,
  rules, sets, runs, trace) -> error`` and ``defend_nb(state, rules, sets, runs, trace)
  -> error``);
* ``legal_actions_nb(state, rules, out) -> n``; ``reshuffle_next_nb(state, rules, action)``
  tells whether an action will rebuild the stock from the pile.  What a seat may know of a
  state is ``simulator.core.view_fill``'s; code outside the state machine reads a state
  through ``simulator.core.hand_reading``.

An illegal action returns an error code (``ERR_*``) and leaves the state as it was.
``trace`` (n × 3, may have 0 rows) receives events ``(seat, EV_*, value)`` at
``state[S_NTRACE]``.  Inside: one phase function per decision point (``upcard_phase_nb``,
``draw_phase_nb``, ``discard_phase_nb``, ``knock_phase_nb``, ``last_discard_phase_nb``,
``arrange_phase_nb``, ``defend_phase_nb``) and the automatic steps (``take_card_nb``: draw
and big gin; ``knock_nb``; ``settle_gin_nb``; ``score_nb``; ``end_of_turn_nb``: cancel,
last-discard offer, ``reshuffle_nb``, turn guard; ``dead_nb``).

Every rule comes from the rules core: deadwood, knockable discards and layouts from
``simulator.core.melds``, scores, knock limits and multipliers from ``simulator.core.scoring``; this
module only sequences them.
"""

from __future__ import annotations

import numpy as np

from .view import DEFEND_BEST, DEFEND_NO_LAYOFFS

# the slots, phases, actions, trace events and error codes (declared in simulator.core.layouts)
from .constants import *  # noqa: F403
from .cards import FULL_DECK_MASK, format_card
from .melds import (
    MAX_ARRANGEMENTS,
    arrangement_index_nb,
    arrangement_nb,
    hand_value_nb,
    knockable_discards_nb,
    layoff_after_melds_nb,
    layoff_solution_nb,
    lowest_card_nb,
    min_deadwood_nb,
    popcount_nb,
    unmeldable_value_nb,
    valid_layout_nb,
)
from .layouts import ERRORS
from .rng import next_u64_nb, shuffle_span_nb
from .rules import (
    CANCEL_AT_STOCK,
    MAX_TURNS_PER_HAND,
    R_BIG_GIN_BONUS,
    R_LAST_DISCARD,
    R_MAX_RESHUFFLES,
    R_RESHUFFLE,
)
from .scoring import DEFENDER, KNOCKER, deal_knock_limit_nb, hand_multiplier_nb, settled_points_nb
from ..infra.jit import CORE, HOT, MERGED

# How the functions below are compiled (the profiles of ``simulator.infra.jit``): they pass
# the state array from function to function and never allocate, so none counts references.
# The phase functions and the automatic steps (``end_of_turn_nb``) are merged into their one
# caller at numba's IR level (``MERGED``), so ``play_nb`` compiles once; ``play_nb`` is in
# turn inlined by LLVM into the engine's loop (``HOT``).  Rare steps (the deal, settling, the
# layout check) stay separate calls (``CORE``), as do the rules-core functions the turn calls
# only on rare paths (the last-discard check,
# ``knockable_discards_nb``): merged into the turn, their code would slow every turn.  Every
# rules-core function called from here states ``forceinline=False`` (its profile), which numba
# would otherwise hand on from these; ``tests/test_state_phases.py`` checks this.

#: room ``legal_actions_nb`` needs in its output (at most 11 discards, 36 arrangements, or
#: the best defence, 36 arrangements and the defence without layoffs)
MAX_LEGAL = MAX_ARRANGEMENTS + 2

#: what each error code means (``simulator.core.layouts.ERRORS``; ``simulator.core.errors``
#: words each one with the offending value)
ERROR_TEXT = {e.code: e.text for e in ERRORS if e.code}


def action_name(action: int) -> str:
    """A readable name: ``"discard 7h"``, ``"draw stock"``, ``"take pile"``, ``"pass"``,
    ``"knock"``, ``"no knock"``, ``"arrange 2"`` (the knocker's third arrangement),
    ``"defend best"``, ``"defend 1"`` (the defender's second arrangement), ``"defend no
    layoffs"``."""
    a = int(action)
    if A_DISCARD <= a < A_DISCARD + 64:
        card = a - A_DISCARD
        return f"discard {format_card(card)}" if card % 16 < 13 else f"discard {card} (not a card)"
    fixed = {A_DRAW_STOCK: "draw stock", A_TAKE_PILE: "take pile", A_PASS: "pass", A_KNOCK: "knock",
             A_NO_KNOCK: "no knock"}
    if a in fixed:
        return fixed[a]
    if A_ARRANGE <= a < A_DEFEND_BEST:
        return f"arrange {a - A_ARRANGE}"
    if a == A_DEFEND_BEST:
        return "defend best"
    if A_DEFEND <= a < A_DEFEND_NO_LAYOFFS:
        return f"defend {a - A_DEFEND}"
    if a == A_DEFEND_NO_LAYOFFS:
        return "defend no layoffs"
    return f"action {a} (no such action)"


# ---- helpers ---------------------------------------------------------------------------------
@HOT
def trace_nb(state, trace, player, event, value):
    """Record one event at ``state[S_NTRACE]`` (counted even past the trace's capacity).
    Callers check ``trace.shape[0] > 0`` first and pass every argument as ``np.int64``:
    numba compiles a separate copy of a function for each combination of literal
    constants it is called with, and cold compile time is the sum of those copies."""
    n = state[S_NTRACE]
    if n < trace.shape[0]:
        trace[n, 0] = player
        trace[n, 1] = event
        trace[n, 2] = value
    state[S_NTRACE] = n + 1


@CORE
def deal_nb(state, deck, dealer, score0, score1, rules, deck_rng, trace):
    """Start a hand from a shuffled 52-card ``deck`` (docs/rules.md#the-deal): cards 0..19
    alternately to the non-dealer and the dealer, card 20 the upcard, 21..51 the stock.
    ``score0``/``score1`` are the game scores before the hand (for the players' views),
    ``deck_rng`` the reshuffle stream's counter (int64 bits).  The non-dealer is offered
    the upcard first."""
    for i in range(N_HEADER):
        state[i] = 0
    non_dealer = 1 - dealer
    for i in range(20):
        seat = non_dealer if i % 2 == 0 else dealer
        state[S_HANDS + seat] |= np.int64(1) << deck[i]
        if trace.shape[0] > 0:
            trace_nb(state, trace, np.int64(seat), np.int64(EV_DEAL), np.int64(deck[i]))
    upcard = deck[20]
    state[S_PILE] = upcard
    state[S_PILE_LEN] = 1
    state[S_PILE_MASK] = np.int64(1) << upcard
    for i in range(31):
        state[S_STOCK + i] = deck[21 + i]
    state[S_STOCK_N] = 31
    if trace.shape[0] > 0:
        trace_nb(state, trace, np.int64(-1), np.int64(EV_UPCARD), np.int64(upcard))
    state[S_SEEN] = state[S_HANDS] | state[S_PILE_MASK]
    state[S_SEEN + 1] = state[S_HANDS + 1] | state[S_PILE_MASK]
    state[S_SCORES] = score0
    state[S_SCORES + 1] = score1
    state[S_DEALER] = dealer
    state[S_UPCARD] = upcard
    state[S_LIMIT] = deal_knock_limit_nb(upcard, rules)
    state[S_MULTIPLIER] = hand_multiplier_nb(upcard, rules)
    state[S_DRAWN] = -1
    state[S_DEADWOOD] = -1
    state[S_KNOCKER] = -1
    state[S_OUTCOME] = -1
    state[S_WINNER] = -1
    state[S_KNOCKER_DW] = -1
    state[S_DEFENDER_DW] = -1
    state[S_DECK_RNG] = deck_rng
    state[S_PHASE] = PHASE_FIRST_UPCARD
    state[S_CURRENT] = non_dealer


@CORE
def exchange_dealt_hands_nb(state):
    """The hand just dealt (``deal_nb``) with its two hands exchanged, the upcard and the stock as
    they were: the deal of the deck whose cards 0..19 went to the other seats
    (docs/rules.md#the-deal); what each seat has seen is its new hand and the upcard.  Its chance
    is the deal's own, since exchanging the hands maps the shuffled decks one to one: a seat
    edge's draws' luck sets a deal against itself with it (``simulator.studies.draw_luck``)."""
    hand0 = state[S_HANDS]
    state[S_HANDS] = state[S_HANDS + 1]
    state[S_HANDS + 1] = hand0
    state[S_SEEN] = state[S_HANDS] | state[S_PILE_MASK]
    state[S_SEEN + 1] = state[S_HANDS + 1] | state[S_PILE_MASK]


@CORE
def deal_permuted_nb(state, deck, perm, permuted, rules, trace):
    """Deal the hand just dealt (``deal_nb``) again from its deck with the cards moved by
    ``perm`` (``permuted[j] = deck[perm[j]]``, ``permuted`` the scratch deck): the same dealer,
    game scores and reshuffle stream.  A fixed permutation maps the shuffled decks one to one,
    so the deck dealt is exactly as likely as the deck played (docs/rules.md#the-deal): a
    stand-in's replays set a hand against the hands it might have been
    (``simulator.studies.draw_luck``)."""
    for j in range(deck.shape[0]):
        permuted[j] = deck[perm[j]]
    deal_nb(state, permuted, state[S_DEALER], state[S_SCORES], state[S_SCORES + 1], rules, state[S_DECK_RNG], trace)


@HOT
def dead_nb(state, trace):
    """The hand ends without a score (end of the stock, a pass on the last discard, the
    turn guard)."""
    state[S_PHASE] = PHASE_OVER
    state[S_OUTCOME] = OUT_DEAD
    if trace.shape[0] > 0:
        trace_nb(state, trace, np.int64(-1), np.int64(EV_DEAD), state[S_STOCK_N] - state[S_STOCK_POS])


# ---- automatic steps -------------------------------------------------------------------------
# What follows a decision without another decision in between.  A draw is played by the
# phase function that decides it; the others are returned by the phase functions and run
# by ``play_nb`` (one call site each, so the engine's loop holds one copy of each).
STEP_NONE = 0  # the state rests at the next decision point (or the hand is over)
STEP_END_TURN = 2  # the turn ends without a knock: end_of_turn_nb
STEP_KNOCK = 3  # S_CURRENT knocks with S_DEADWOOD: knock_nb
STEP_DEAD = 4  # the hand ends without a score: dead_nb


@HOT
def take_card_nb(state, rules, seat, from_pile, trace):
    """``seat`` draws the pile's top card (``from_pile`` 1) or the stock's.  Big gin
    (``big_gin_bonus`` > 0 and all 11 cards melded) goes out at once and the hand is
    settled (returns True); otherwise the seat must discard: a card other than one just
    taken from the pile and, after taking the last discard, one that leaves a knock.
    (Called with a constant ``from_pile`` at each site: LLVM specialises each copy.)"""
    state[S_CURRENT] = seat
    if from_pile:
        n = state[S_PILE_LEN] - 1
        card = state[S_PILE + n]
        bit = np.int64(1) << card
        state[S_PILE_LEN] = n
        state[S_PILE_MASK] &= ~bit
        state[S_TOOK + seat] |= bit
        if trace.shape[0] > 0:
            trace_nb(state, trace, seat, np.int64(EV_TAKE_PILE), card)
    else:
        pos = state[S_STOCK_POS]
        card = state[S_STOCK + pos]
        bit = np.int64(1) << card
        state[S_STOCK_POS] = pos + 1
        state[S_SEEN + seat] |= bit
        if trace.shape[0] > 0:
            trace_nb(state, trace, seat, np.int64(EV_DRAW_STOCK), card)
    hand = state[S_HANDS + seat] | bit
    state[S_HANDS + seat] = hand
    state[S_DRAWS + seat] += 1
    if rules[R_BIG_GIN_BONUS] > 0 and min_deadwood_nb(hand) == 0:
        if trace.shape[0] > 0:
            trace_nb(state, trace, seat, np.int64(EV_BIG_GIN), np.int64(0))
        state[S_KNOCKER] = seat
        state[S_DEADWOOD] = 0
        settle_gin_nb(state, rules, np.int64(1), trace)
        return True
    legal = hand
    if from_pile:
        legal &= ~bit
    if state[S_LAST_CHANCE]:
        legal = knockable_discards_nb(hand, legal, state[S_LIMIT])
    state[S_DRAWN] = card
    state[S_FROM_PILE] = from_pile
    state[S_LEGAL] = legal
    state[S_PHASE] = PHASE_DISCARD
    return False


@MERGED
def knock_nb(state, rules, trace):
    """``S_CURRENT`` knocks with ``S_DEADWOOD``.  Gin (deadwood 0) is settled at once, with
    no layout and no layoffs (returns True); otherwise the knocker lays out next."""
    seat = state[S_CURRENT]
    deadwood = state[S_DEADWOOD]
    if trace.shape[0] > 0:
        trace_nb(state, trace, seat, np.int64(EV_GIN if deadwood == 0 else EV_KNOCK), deadwood)
    state[S_KNOCKER] = seat
    if deadwood == 0:
        settle_gin_nb(state, rules, np.int64(0), trace)
        return True
    state[S_PHASE] = PHASE_ARRANGE
    return False


@CORE
def settle_gin_nb(state, rules, big_gin_flag, trace):
    """Settle gin (``big_gin_flag`` 0) or big gin (1) by ``S_KNOCKER``: no layout, no
    layoffs; the defender keeps its least deadwood (docs/rules.md#scoring-a-hand)."""
    defender_hand = state[S_HANDS + 1 - state[S_KNOCKER]]
    score_nb(state, rules, min_deadwood_nb(defender_hand), np.int64(0), np.int64(0), np.int64(big_gin_flag),
             np.int64(1), trace)


@CORE
def score_nb(state, rules, defender_dw, laid, defender_melds, big_gin_flag, gin_flag, trace):
    """Score the hand (docs/rules.md#scoring-a-hand) from the knocker's deadwood
    ``S_DEADWOOD`` and the defender's ``defender_dw`` after laying off ``laid``, by
    ``simulator.core.scoring.settled_points_nb`` (Oklahoma spade doubling included): the
    result written and the hand over.  The flags are int64
    1/0 (never a literal ``True``/``False``, which numba would compile a second copy for)."""
    knocker = state[S_KNOCKER]
    defender = 1 - knocker
    deadwood = state[S_DEADWOOD]
    gin = gin_flag == 1
    big_gin = big_gin_flag == 1
    winner, points, undercut = settled_points_nb(deadwood, defender_dw, gin, big_gin, state[S_MULTIPLIER], rules)
    state[S_KNOCKER_DW] = deadwood
    state[S_DEFENDER_DW] = defender_dw
    state[S_LAYOFF] = hand_value_nb(laid)
    state[S_LAID] = laid
    state[S_DEFENDER_MELDS] = defender_melds
    state[S_POINTS] = points
    if winner == KNOCKER:
        state[S_WINNER] = knocker
    elif winner == DEFENDER:
        state[S_WINNER] = defender
    else:
        state[S_WINNER] = -1
    if big_gin:
        state[S_OUTCOME] = OUT_BIG_GIN
    elif gin:
        state[S_OUTCOME] = OUT_GIN
    elif undercut:
        state[S_OUTCOME] = OUT_UNDERCUT
    else:
        state[S_OUTCOME] = OUT_KNOCK
    state[S_PHASE] = PHASE_OVER
    if trace.shape[0] > 0:
        trace_nb(state, trace, defender, np.int64(EV_DEFENDER_DEADWOOD), defender_dw)
        trace_nb(state, trace, state[S_WINNER], np.int64(EV_SCORE), points)


@CORE
def reshuffle_nb(state, trace):
    """The pile less its top card becomes the new stock, shuffled with the reshuffle
    stream (``simulator.core.rng.shuffle_span_nb`` on the stream's counter, kept in
    ``S_DECK_RNG``)."""
    pile_len = state[S_PILE_LEN]
    n = pile_len - 1
    for i in range(n):
        state[S_STOCK + i] = state[S_PILE + i]
    counter = shuffle_span_nb(np.uint64(state[S_DECK_RNG]), state, np.int64(S_STOCK), n)
    state[S_DECK_RNG] = np.int64(counter)
    state[S_STOCK_N] = n
    state[S_STOCK_POS] = 0
    top = state[S_PILE + n]
    state[S_PILE] = top
    state[S_PILE_LEN] = 1
    state[S_PILE_MASK] = np.int64(1) << top
    state[S_RESHUFFLES] += 1
    if trace.shape[0] > 0:
        trace_nb(state, trace, np.int64(-1), np.int64(EV_RESHUFFLE), n)


@MERGED
def end_of_turn_nb(state, rules, trace):
    """After a discard without a knock (docs/rules.md#end-of-the-stock): the end of the
    stock (cancel at two cards, or the last-discard offer, or a reshuffle of the pile into
    a new stock), the turn guard, else the other player's draw."""
    opponent = 1 - state[S_CURRENT]
    stock_left = state[S_STOCK_N] - state[S_STOCK_POS]
    if rules[R_RESHUFFLE]:
        if stock_left == 0:
            if state[S_RESHUFFLES] >= rules[R_MAX_RESHUFFLES] or state[S_PILE_LEN] < 2:
                dead_nb(state, trace)
                return
            reshuffle_nb(state, trace)
    elif stock_left <= CANCEL_AT_STOCK:
        if not rules[R_LAST_DISCARD]:
            dead_nb(state, trace)
            return
        # the other player may take this last discard, only to knock
        top = state[S_PILE + state[S_PILE_LEN] - 1]
        trial = state[S_HANDS + opponent] | (np.int64(1) << top)
        if knockable_discards_nb(trial, state[S_HANDS + opponent], state[S_LIMIT]) == 0:
            dead_nb(state, trace)
            return
        state[S_PHASE] = PHASE_LAST_DISCARD
        state[S_CURRENT] = opponent
        return
    if state[S_TURN] >= MAX_TURNS_PER_HAND:
        dead_nb(state, trace)  # the termination guard against endless pile draws
        return
    state[S_PHASE] = PHASE_DRAW
    state[S_CURRENT] = opponent


# ---- phase functions: one per decision point --------------------------------------------------
# Each checks its action (an illegal one returns (error, STEP_NONE) with the state as it
# was), plays the decision (and the draw it leads to) and returns (ERR_NONE, the automatic
# step that follows), which ``play_nb`` runs: ``play_nb`` / ``apply_action_nb`` move a
# state from one decision point to the next.


@MERGED
def upcard_phase_nb(state, rules, action, trace):
    """The first upcard, offered to the non-dealer then the dealer: take it, or pass.  When
    both pass the non-dealer draws from the stock."""
    seat = state[S_CURRENT]
    if action == A_TAKE_PILE:
        take_card_nb(state, rules, seat, np.int64(1), trace)
        return ERR_NONE, STEP_NONE
    if action != A_PASS:
        return ERR_ILLEGAL_ACTION, STEP_NONE
    upcard = state[S_PILE + state[S_PILE_LEN] - 1]
    state[S_DECLINED + seat] |= np.int64(1) << upcard
    if trace.shape[0] > 0:
        trace_nb(state, trace, seat, np.int64(EV_DECLINE), upcard)
    dealer = state[S_DEALER]
    if seat != dealer:
        state[S_CURRENT] = dealer
        return ERR_NONE, STEP_NONE
    take_card_nb(state, rules, 1 - dealer, np.int64(0), trace)
    return ERR_NONE, STEP_NONE


@MERGED
def draw_phase_nb(state, rules, action, trace):
    """A turn's draw: the stock's top card (passing on the pile's top) or the pile's."""
    seat = state[S_CURRENT]
    if action == A_TAKE_PILE:
        take_card_nb(state, rules, seat, np.int64(1), trace)
        return ERR_NONE, STEP_NONE
    if action != A_DRAW_STOCK:
        return ERR_ILLEGAL_ACTION, STEP_NONE
    state[S_DECLINED + seat] |= np.int64(1) << state[S_PILE + state[S_PILE_LEN] - 1]
    take_card_nb(state, rules, seat, np.int64(0), trace)
    return ERR_NONE, STEP_NONE


@MERGED
def last_discard_phase_nb(state, rules, action, trace):
    """The last discard (``last_discard_rule``): take it, then discard and knock; or pass,
    and the hand is dead."""
    if action == A_TAKE_PILE:
        state[S_LAST_CHANCE] = 1
        take_card_nb(state, rules, state[S_CURRENT], np.int64(1), trace)
        return ERR_NONE, STEP_NONE
    if action != A_PASS:
        return ERR_ILLEGAL_ACTION, STEP_NONE
    if trace.shape[0] > 0:
        trace_nb(state, trace, state[S_CURRENT], np.int64(EV_PASS_LAST),
                 state[S_PILE + state[S_PILE_LEN] - 1])
    return ERR_NONE, STEP_DEAD


@MERGED
def discard_phase_nb(state, action, trace):
    """Discard a legal card; then knock when the last discard was taken, offer the knock
    when deadwood is within the limit, else end the turn."""
    card = action - A_DISCARD
    if card < 0 or card > 63:
        return ERR_ILLEGAL_ACTION, STEP_NONE
    if (state[S_LEGAL] >> card) & 1 == 0:
        return ERR_ILLEGAL_DISCARD, STEP_NONE
    seat = state[S_CURRENT]
    bit = np.int64(1) << card
    hand = state[S_HANDS + seat] & ~bit
    state[S_HANDS + seat] = hand
    state[S_TOOK + seat] &= ~bit
    state[S_DISCARDS + seat] |= bit
    n = state[S_PILE_LEN]
    state[S_PILE + n] = card
    state[S_PILE_LEN] = n + 1
    state[S_PILE_MASK] |= bit
    state[S_SEEN + 1 - seat] |= bit
    state[S_TURN] += 1
    state[S_DRAWN] = -1
    state[S_FROM_PILE] = 0
    state[S_LEGAL] = 0
    if trace.shape[0] > 0:
        trace_nb(state, trace, seat, np.int64(EV_DISCARD), card)
    if unmeldable_value_nb(hand) > state[S_LIMIT]:  # (a lower bound of the deadwood)
        return ERR_NONE, STEP_END_TURN  # (after taking the last discard this cannot be)
    deadwood = min_deadwood_nb(hand)
    if deadwood > state[S_LIMIT]:
        return ERR_NONE, STEP_END_TURN
    state[S_DEADWOOD] = deadwood
    if state[S_LAST_CHANCE]:
        return ERR_NONE, STEP_KNOCK  # taken only to knock: automatic
    state[S_PHASE] = PHASE_KNOCK
    return ERR_NONE, STEP_NONE


@MERGED
def knock_phase_nb(state, action, trace):
    """Knock (or go gin) with the deadwood in ``S_DEADWOOD``, or play on."""
    if action == A_KNOCK:
        return ERR_NONE, STEP_KNOCK
    if action != A_NO_KNOCK:
        return ERR_ILLEGAL_ACTION, STEP_NONE
    state[S_DEADWOOD] = -1
    return ERR_NONE, STEP_END_TURN


@HOT
def play_nb(state, rules, action, trace):
    """Play ``action`` in every phase but the layout and the defence (which strategies give
    as masks, to ``lay_out_nb`` and ``defend_nb``): the phase's decision, then the
    automatic step that follows.  The
    engine's loop calls this (without the arrangement enumeration).  Returns ``ERR_NONE``,
    or an error code with the state unchanged."""
    phase = state[S_PHASE]
    if phase == PHASE_DISCARD:
        err, step = discard_phase_nb(state, action, trace)
    elif phase == PHASE_DRAW:
        err, step = draw_phase_nb(state, rules, action, trace)
    elif phase == PHASE_KNOCK:
        err, step = knock_phase_nb(state, action, trace)
    elif phase == PHASE_FIRST_UPCARD:
        err, step = upcard_phase_nb(state, rules, action, trace)
    elif phase == PHASE_LAST_DISCARD:
        err, step = last_discard_phase_nb(state, rules, action, trace)
    else:
        return ERR_ILLEGAL_ACTION  # the layout, the defence, or the hand is over
    if err != ERR_NONE:
        return err
    if step == STEP_END_TURN:
        end_of_turn_nb(state, rules, trace)
    elif step == STEP_KNOCK:
        knock_nb(state, rules, trace)
    elif step == STEP_DEAD:
        dead_nb(state, trace)
    return ERR_NONE


@CORE
def lay_out_nb(state, rules, sets, runs, trace):
    """The knocker lays out ``sets``/``runs`` (the arrange phase,
    docs/rules.md#laying-out-and-laying-off): whole sets and runs of its own cards,
    disjoint, leaving exactly the deadwood it knocked with (else ``ERR_BAD_MELDS``, the
    state unchanged).  The defender, who sees them, defends next.  Returns an error code."""
    if state[S_PHASE] != PHASE_ARRANGE:
        return ERR_ILLEGAL_ACTION
    knocker = state[S_KNOCKER]
    if not valid_layout_nb(state[S_HANDS + knocker], sets, runs, state[S_DEADWOOD]):
        return ERR_BAD_MELDS
    state[S_SETS] = sets
    state[S_RUNS] = runs
    state[S_PHASE] = PHASE_DEFEND
    state[S_CURRENT] = 1 - knocker
    if trace.shape[0] > 0:
        trace_nb(state, trace, knocker, np.int64(EV_SETS), sets)
        trace_nb(state, trace, knocker, np.int64(EV_RUNS), runs)
    return ERR_NONE


@CORE
def arrange_phase_nb(state, rules, action, trace):
    """Lay out the arrangement ``action - A_ARRANGE`` in the order of
    ``simulator.core.melds.arrangement_nb``."""
    if state[S_PHASE] != PHASE_ARRANGE:
        return ERR_ILLEGAL_ACTION
    k = action - A_ARRANGE
    if k < 0 or k >= MAX_ARRANGEMENTS:
        return ERR_ILLEGAL_ACTION
    sets, runs, count = arrangement_nb(state[S_HANDS + state[S_KNOCKER]], k)
    if k >= count:
        return ERR_ILLEGAL_ACTION
    return lay_out_nb(state, rules, sets, runs, trace)


@CORE
def defend_nb(state, rules, sets, runs, trace):
    """The defender's answer to the layout (the defend phase,
    docs/rules.md#laying-out-and-laying-off), then the score.  ``sets`` = ``DEFEND_BEST``:
    the best response, its melds chosen together with the layoffs to leave the least
    deadwood (``simulator.core.melds.layoff_solution_nb``, breaking its own melds when that
    pays).  ``sets`` = ``DEFEND_NO_LAYOFFS``: its first least-deadwood arrangement, and no
    layoff (laying off is the defender's option), so it keeps its hand's least deadwood.
    Otherwise ``sets``/``runs`` must be one of the defender's least-deadwood
    arrangements (else ``ERR_BAD_MELDS``, the state unchanged), and every card it left
    unmelded that fits the knocker's melds is laid off, chains included
    (``layoff_after_melds_nb``).  Returns an error code."""
    if state[S_PHASE] != PHASE_DEFEND:
        return ERR_ILLEGAL_ACTION
    defender = 1 - state[S_KNOCKER]
    hand = state[S_HANDS + defender]
    knocker_sets = state[S_SETS]
    knocker_runs = state[S_RUNS]
    if sets == DEFEND_BEST:
        choice = np.int64(-1)
        defender_dw, laid, melded = layoff_solution_nb(hand, knocker_sets, knocker_runs)
    elif sets == DEFEND_NO_LAYOFFS:
        choice = np.int64(-2)
        own_sets, own_runs, _ = arrangement_nb(hand, np.int64(0))
        melded = own_sets | own_runs
        laid = np.int64(0)
        defender_dw = hand_value_nb(hand & ~melded)
    else:
        choice = arrangement_index_nb(hand, sets, runs)
        if choice < 0:
            return ERR_BAD_MELDS
        melded = sets | runs
        defender_dw, laid = layoff_after_melds_nb(hand, melded, knocker_sets, knocker_runs)
    if trace.shape[0] > 0:
        trace_nb(state, trace, defender, np.int64(EV_DEFEND), choice)
        trace_nb(state, trace, defender, np.int64(EV_LAYOFF), laid)
    score_nb(state, rules, defender_dw, laid, melded, np.int64(0), np.int64(0), trace)
    return ERR_NONE


@CORE
def defend_phase_nb(state, rules, action, trace):
    """``A_DEFEND_BEST``; ``A_DEFEND_NO_LAYOFFS``; or ``A_DEFEND + k``: lay out the defender's
    k-th least-deadwood arrangement in the order of ``simulator.core.melds.arrangement_nb``
    and lay off."""
    if state[S_PHASE] != PHASE_DEFEND:
        return ERR_ILLEGAL_ACTION
    if action == A_DEFEND_BEST:
        return defend_nb(state, rules, np.int64(DEFEND_BEST), np.int64(0), trace)
    if action == A_DEFEND_NO_LAYOFFS:
        return defend_nb(state, rules, np.int64(DEFEND_NO_LAYOFFS), np.int64(0), trace)
    k = action - A_DEFEND
    if k < 0 or k >= MAX_ARRANGEMENTS:
        return ERR_ILLEGAL_ACTION
    sets, runs, count = arrangement_nb(state[S_HANDS + 1 - state[S_KNOCKER]], k)
    if k >= count:
        return ERR_ILLEGAL_ACTION
    return defend_nb(state, rules, sets, runs, trace)


@CORE.python_entry
def apply_action_nb(state, rules, action, trace):
    """Play ``action`` in the current phase and move the state on (automatic steps
    included).  Returns ``ERR_NONE``, or an error code with the state unchanged."""
    phase = state[S_PHASE]
    if phase == PHASE_ARRANGE:
        return arrange_phase_nb(state, rules, action, trace)
    if phase == PHASE_DEFEND:
        return defend_phase_nb(state, rules, action, trace)
    return play_nb(state, rules, action, trace)


@CORE.python_entry
def legal_actions_nb(state, rules, out):
    """Fill ``out`` (length ≥ ``MAX_LEGAL``) with the legal actions, in increasing order;
    returns how many (0 once the hand is over)."""
    phase = state[S_PHASE]
    if phase == PHASE_DISCARD:
        legal = state[S_LEGAL]
        n = 0
        for card in range(64):
            if (legal >> card) & 1:
                out[n] = A_DISCARD + card
                n += 1
        return n
    if phase == PHASE_DRAW:
        out[0] = A_DRAW_STOCK
        out[1] = A_TAKE_PILE
        return 2
    if phase == PHASE_FIRST_UPCARD or phase == PHASE_LAST_DISCARD:
        out[0] = A_TAKE_PILE
        out[1] = A_PASS
        return 2
    if phase == PHASE_KNOCK:
        out[0] = A_KNOCK
        out[1] = A_NO_KNOCK
        return 2
    if phase == PHASE_ARRANGE:
        n = arrangement_nb(state[S_HANDS + state[S_KNOCKER]], np.int64(-1))[2]
        for k in range(n):
            out[k] = A_ARRANGE + k
        return n
    if phase == PHASE_DEFEND:
        n = arrangement_nb(state[S_HANDS + 1 - state[S_KNOCKER]], np.int64(-1))[2]
        out[0] = A_DEFEND_BEST
        for k in range(n):
            out[k + 1] = A_DEFEND + k
        out[n + 1] = A_DEFEND_NO_LAYOFFS
        return n + 2
    return 0


@MERGED
def reshuffle_next_nb(state, rules, action):
    """True when playing the legal ``action`` will turn the pile into a new stock (a
    caller that lent copies of the pile checks them before they are rebuilt)."""
    if not rules[R_RESHUFFLE] or state[S_STOCK_N] != state[S_STOCK_POS]:
        return False
    if state[S_RESHUFFLES] >= rules[R_MAX_RESHUFFLES]:
        return False
    phase = state[S_PHASE]
    if phase == PHASE_KNOCK:
        return action == A_NO_KNOCK and state[S_PILE_LEN] >= 2
    if phase == PHASE_DISCARD and 0 <= action - A_DISCARD < 64:
        hand = state[S_HANDS + state[S_CURRENT]] & ~(np.int64(1) << (action - A_DISCARD))
        return min_deadwood_nb(hand) > state[S_LIMIT] and state[S_PILE_LEN] + 1 >= 2
    return False
