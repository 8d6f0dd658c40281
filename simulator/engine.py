"""The engine: one hand and whole games as a phase machine, and the parallel batch kernels.

A hand, in the order docs/rules.md gives it:

1. **Deal** — from a shuffled deck: cards 0..19 alternately to the non-dealer and the
   dealer, card 20 is the upcard (the pile), cards 21..51 are the stock, drawn in order.
2. **First turn** — the non-dealer may take the upcard; if it declines the dealer may;
   if both decline, the non-dealer draws from the stock.  Declining costs no draw.
3. **Turns** — draw (stock, or the pile's top card), then discard a card that is not the
   one just taken from the pile.  With ``big_gin_bonus`` > 0 a player whose 11 cards are
   all melded goes out at once (big gin, taken automatically).  After the discard, a
   player whose deadwood is at or below the deal's knock limit may knock; deadwood 0 is
   gin.
4. **Knock** — the knocker lays out melds (its strategy picks among least-deadwood
   arrangements); unless it is gin the defender lays off; the hand is scored
   (``simulator.scoring``); Oklahoma spade doubling multiplies the points.
5. **End of stock** — a discard that leaves two cards in the stock without a knock cancels
   the hand (a *dead* hand).  With ``last_discard_rule`` the other player may first take
   that discard, only to knock.  With ``reshuffle_stock`` the stock is instead played to
   the last card, and a discard that leaves it empty turns the pile less its top card
   into a new shuffled stock, at most ``max_reshuffles`` times; then the hand is dead.
   Stock draws are thus bounded; pile draws are not, so a hand that reaches
   ``MAX_TURNS_PER_HAND`` (500) discards without a knock is dead too.  Together these
   guards make every hand end.

Games (``play_game_nb``) chain hands until a score reaches the target, then add the game
bonus, the box bonus per hand won and the shutout rule; after a dead hand the same dealer
deals again, otherwise ``next_dealer`` decides.  A game stops after ``MAX_HANDS_PER_GAME``
hands without a winner (a guard that only pathological strategies reach).

**Strategies never hold the engine's arrays.**  Each seat's strategy gets its own copy of
the discard pile (kept in the worker scratch, updated on every push and rebuilt on a
reshuffle), its own copy of the rule vector (made once per block of deals or per game)
and its own parameter row; the engine plays from its private pile and rules only.  When a
card is taken from the pile, on a reshuffle and at the end of every hand the engine checks
that every seat's copies (the pile's live part, the rules, the parameters) still equal its
own; if a strategy wrote into one, the hand stops with ``ERR_WROTE_PILE``,
``ERR_WROTE_RULES`` or ``ERR_WROTE_PARAMS`` against that seat (and the copy is restored).
The view is refilled before every decision, and memory and random stream are the
strategy's own, so those may be written.  Every error records the seat that caused it
(``H_ERROR_SEAT``) and the offending value (``H_ERROR_VALUE``: the returned card, the
melds' card mask, or the slot written).

Kernels take arrays and fill preallocated int64 outputs; every random draw comes from
streams keyed by (seed, deal) so results never depend on threads or chunking.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from strategies import dispatch
from strategies.view import (
    N_MEMORY,
    N_VIEW,
    PHASE_ARRANGE,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_FIRST_UPCARD,
    PHASE_KNOCK,
    PHASE_LAST_DISCARD,
    V_DEADWOOD,
    V_DRAWN,
    V_FROM_PILE,
    V_HAND,
    V_IS_DEALER,
    V_KNOCK_LIMIT,
    V_LEGAL_DISCARDS,
    V_MY_DRAWS,
    V_MY_SCORE,
    V_OPP_DECLINED,
    V_OPP_DISCARDS,
    V_OPP_SCORE,
    V_OPP_TOOK,
    V_PHASE,
    V_PILE_LEN,
    V_PILE_MASK,
    V_SEEN,
    V_STOCK_LEFT,
    V_TOP,
    V_TURN,
)

from .cards import DECK
from .melds import (
    hand_value_nb,
    layoff_solution_nb,
    min_deadwood_nb,
    popcount_nb,
    rank_cards_nb,
    run_cover_nb,
)
from .rng import shuffle_nb, stream_key_nb
from .rules import (
    NEXT_ALTERNATE,
    NEXT_LOSER,
    R_BIG_GIN_BONUS,
    R_BOX_BONUS,
    R_GAME_BONUS,
    R_LAST_DISCARD,
    R_MAX_RESHUFFLES,
    R_NEXT_DEALER,
    R_RESHUFFLE,
    R_SHUTOUT,
    R_TARGET,
    SHUTOUT_DOUBLE,
    SHUTOUT_DOUBLE_BONUS,
    CANCEL_AT_STOCK,
    MAX_TURNS_PER_HAND,
)
from .scoring import DEFENDER, KNOCKER, NOBODY, deal_knock_limit_nb, hand_multiplier_nb, score_hand_nb

# ---- hand record columns (seats are 0/1; -1 = nobody) --------------------------------
(
    H_DEAL, H_PAIR, H_A_SEAT, H_DEALER, H_OUTCOME, H_KNOCKER, H_WINNER, H_POINTS,
    H_KNOCKER_DW, H_DEFENDER_DW, H_LAYOFF, H_DRAWS, H_STOCK_LEFT, H_UPCARD, H_KNOCK_LIMIT,
    H_TURNS, H_RESHUFFLES, H_ERROR, H_GAME, H_HAND_IN_GAME, H_ERROR_SEAT, H_ERROR_VALUE,
    N_HAND_COLS,
) = range(23)
#: names of the raw hand record's columns, in order (seats, not a/b)
HAND_RECORD_NAMES = (
    "deal", "pair", "a_seat", "dealer", "outcome", "knocker", "winner", "points",
    "knocker_deadwood", "defender_deadwood", "layoff_points", "draws", "stock_left", "upcard",
    "knock_limit", "turns", "reshuffles", "error", "game", "hand_in_game", "error_seat",
    "error_value",
)

OUTCOMES = ("knock", "gin", "big_gin", "undercut", "dead")
OUT_KNOCK, OUT_GIN, OUT_BIG_GIN, OUT_UNDERCUT, OUT_DEAD = range(5)

# ---- game record columns ------------------------------------------------------------
(
    G_GAME, G_PAIR, G_A_SEAT, G_FIRST_DEALER, G_WINNER, G_HANDS, G_SCORE0, G_SCORE1,
    G_POINTS0, G_POINTS1, G_BOXES0, G_BOXES1, G_SHUTOUT, G_DEAD_HANDS, G_ERROR, G_ERROR_SEAT,
    G_ERROR_VALUE, N_GAME_COLS,
) = range(18)
# (a game stopped by an error stopped in its last hand, number G_HANDS - 1)

MAX_HANDS_PER_GAME = 2000

# ---- errors a strategy can cause (the engine stops the hand and reports) --------------
# The record's H_ERROR_SEAT is the seat at fault (-1 without an error) and H_ERROR_VALUE the
# offending value: the card returned (illegal discard, last-discard discard), the card mask
# sets | runs (bad melds), or the slot index written (pile, rules, params).
ERR_NONE, ERR_ILLEGAL_DISCARD, ERR_LAST_DISCARD_NO_KNOCK, ERR_BAD_MELDS = 0, 1, 2, 3
ERR_WROTE_PILE, ERR_WROTE_RULES, ERR_WROTE_PARAMS = 4, 5, 6
ERROR_TEXT = {
    ERR_ILLEGAL_DISCARD: "strategy discarded a card it may not discard",
    ERR_LAST_DISCARD_NO_KNOCK: "strategy took the last discard but its discard does not allow a knock",
    ERR_BAD_MELDS: "strategy laid out melds that are not a least-deadwood arrangement of its hand",
    ERR_WROTE_PILE: "strategy wrote into the discard pile it was given",
    ERR_WROTE_RULES: "strategy wrote into the rule vector it was given",
    ERR_WROTE_PARAMS: "strategy wrote into its parameter row",
}

# ---- trace events (player, event, value) for replay and cross-checks -------------------
(
    EV_DEAL, EV_UPCARD, EV_DECLINE, EV_TAKE_PILE, EV_DRAW_STOCK, EV_DISCARD, EV_KNOCK,
    EV_GIN, EV_BIG_GIN, EV_SETS, EV_RUNS, EV_LAYOFF, EV_DEFENDER_DEADWOOD, EV_RESHUFFLE,
    EV_DEAD, EV_SCORE, EV_PASS_LAST,
) = range(17)
TRACE_CAPACITY = 8192

# scratch layout: one int64 block per worker, reused for every deal it plays
S_STOCK = 0  # 64 slots: the stock, drawn from the front
S_PILE = 64  # 64 slots: the discard pile, top last
S_VIEW = 128  # N_VIEW slots
S_SEATS = 160  # 12 slots: per-seat hands, took, declined, discards, seen, draws
S_SEAT_PILES = 192  # 2 x 64 slots: each seat's copy of the pile, the one its strategy gets
SCRATCH_LEN = 320


@njit(cache=True)
def _fill_view(view, phase, seat, dealer, hands, took, declined, discards, seen, draws, scores,
               pile, pile_len, pile_mask, stock_left, turn, limit):
    """What ``seat`` may know, written into ``view``: its own hand, draws and score, the
    pile, and of the opponent only its pickups, declines, discards and score."""
    opponent = 1 - seat
    view[V_PHASE] = phase
    view[V_HAND] = hands[seat]
    view[V_TOP] = pile[pile_len - 1] if pile_len > 0 else -1
    view[V_PILE_LEN] = pile_len
    view[V_PILE_MASK] = pile_mask
    view[V_OPP_TOOK] = took[opponent]
    view[V_OPP_DECLINED] = declined[opponent]
    view[V_OPP_DISCARDS] = discards[opponent]
    view[V_SEEN] = seen[seat]
    view[V_STOCK_LEFT] = stock_left
    view[V_TURN] = turn
    view[V_MY_DRAWS] = draws[seat]
    view[V_KNOCK_LIMIT] = limit
    view[V_MY_SCORE] = scores[seat]
    view[V_OPP_SCORE] = scores[opponent]
    view[V_IS_DEALER] = seat == dealer
    view[V_DRAWN] = -1
    view[V_FROM_PILE] = 0
    view[V_LEGAL_DISCARDS] = 0
    view[V_DEADWOOD] = -1


@njit(cache=True)
def _trace(trace, n, player, event, value):
    """Record one event.  Callers pass every argument as ``np.int64``: numba compiles a
    separate copy of a function for each combination of literal constants it is called
    with, and the engine's cold compile time is the sum of those copies."""
    if n < trace.shape[0]:
        trace[n, 0] = player
        trace[n, 1] = event
        trace[n, 2] = value
    return n + 1


@njit(cache=True)
def _guard_nb(pile, pile0, pile1, pile_len, params, seat_params, rules, seat_rules, out):
    """Check what the strategies were lent: each seat's pile copy (live part), rule copy
    and parameter row must still equal the engine's (one branch-free pass in the common
    case).  A difference stops the hand with ``ERR_WROTE_*`` against the first seat found
    (unless a write was reported already) and restores the rule and parameter copies, so
    later hands of the block or game start clean.  (Plain loops only: slice assignment
    and array views would cost seconds of compile time.)"""
    acc = np.int64(0)
    for i in range(pile_len):
        acc |= (pile0[i] ^ pile[i]) | (pile1[i] ^ pile[i])
    for i in range(rules.shape[0]):
        acc |= (seat_rules[0, i] ^ rules[i]) | (seat_rules[1, i] ^ rules[i])
    differ = False
    for seat in range(2):
        for i in range(params.shape[1]):
            a = seat_params[seat, i]
            b = params[seat, i]
            differ |= a != b and (a == a or b == b)  # a NaN parameter equals itself
    if acc == 0 and not differ:
        return
    # something was written: find the seat and slot (rare, so plain loops)
    found = out[H_ERROR] >= ERR_WROTE_PILE
    for seat in range(2):
        copy = pile0 if seat == 0 else pile1
        for i in range(pile_len):
            if copy[i] != pile[i] and not found:
                found = True
                out[H_ERROR] = ERR_WROTE_PILE
                out[H_ERROR_SEAT] = seat
                out[H_ERROR_VALUE] = i
    for seat in range(2):
        for i in range(rules.shape[0]):
            if seat_rules[seat, i] != rules[i]:
                if not found:
                    found = True
                    out[H_ERROR] = ERR_WROTE_RULES
                    out[H_ERROR_SEAT] = seat
                    out[H_ERROR_VALUE] = i
                seat_rules[seat, i] = rules[i]
    for seat in range(2):
        for i in range(params.shape[1]):
            a = seat_params[seat, i]
            b = params[seat, i]
            if a != b and (a == a or b == b):
                if not found:
                    found = True
                    out[H_ERROR] = ERR_WROTE_PARAMS
                    out[H_ERROR_SEAT] = seat
                    out[H_ERROR_VALUE] = i
                seat_params[seat, i] = b


@njit(cache=True)
def play_hand_nb(deck, dealer, sids, params, rules, seat_params, seat_rules, scores,
                 player_rngs, deck_rng, scratch, memory, out, trace):
    """Play one hand from a shuffled 52-card ``deck`` and fill the hand record ``out``.

    ``dealer`` is the dealing seat; ``sids``/``params`` the strategy id and parameter row
    of each seat; ``scores`` the game scores before the hand (for the players' views);
    ``player_rngs[seat]`` each seat's random stream and ``deck_rng`` the stream used for
    reshuffles.  Strategies get copies only: ``seat_params[seat]`` and
    ``seat_rules[seat]`` (equal to ``params[seat]`` and ``rules`` on entry; the caller
    fills them) and a pile copy per seat in ``scratch``; the hand checks them at its end.
    ``trace`` (n × 3) receives the events when it has rows.  Returns the number of trace
    events.
    """
    stock = scratch[S_STOCK:S_STOCK + 64]
    pile = scratch[S_PILE:S_PILE + 64]
    # what each seat's strategy is given, bound once per hand: every decision passes these
    # variables as they are, one call per seat (choosing an array into a temporary, or
    # indexing per decision, costs numba a reference-count update each time)
    pile0 = scratch[S_SEAT_PILES:S_SEAT_PILES + 64]
    pile1 = scratch[S_SEAT_PILES + 64:S_SEAT_PILES + 128]
    sid0, sid1 = sids[0], sids[1]
    params0, params1 = seat_params[0], seat_params[1]
    rules0, rules1 = seat_rules[0], seat_rules[1]
    rng0, rng1 = player_rngs[0], player_rngs[1]
    memory0, memory1 = memory[0], memory[1]
    view = scratch[S_VIEW:S_VIEW + N_VIEW]
    non_dealer = 1 - dealer
    seats = scratch[S_SEATS:S_SEATS + 12]
    seats[:] = 0
    hands = seats[0:2]
    took = seats[2:4]  # cards each seat took from the pile and still holds
    declined = seats[4:6]  # pile tops each seat passed on
    discards = seats[6:8]  # every card each seat discarded
    seen = seats[8:10]
    draws = seats[10:12]
    memory[:, :] = 0
    nt = np.int64(0)
    for i in range(20):
        seat = non_dealer if i % 2 == 0 else dealer
        hands[seat] |= np.int64(1) << deck[i]
        if trace.shape[0] > 0:
            nt = _trace(trace, nt, np.int64(seat), np.int64(EV_DEAL), np.int64(deck[i]))
    upcard = deck[20]
    pile[0] = upcard
    pile0[0] = upcard
    pile1[0] = upcard
    pile_len = np.int64(1)
    pile_mask = np.int64(1) << upcard
    stock_n = 31
    for i in range(31):
        stock[i] = deck[21 + i]
    stock_pos = 0
    if trace.shape[0] > 0:
        nt = _trace(trace, nt, np.int64(-1), np.int64(EV_UPCARD), np.int64(upcard))
    seen[0] = hands[0] | pile_mask
    seen[1] = hands[1] | pile_mask
    limit = deal_knock_limit_nb(upcard, rules)
    multiplier = hand_multiplier_nb(upcard, rules)

    out[H_DEALER] = dealer
    out[H_UPCARD] = upcard
    out[H_KNOCK_LIMIT] = limit
    out[H_KNOCKER] = -1
    out[H_WINNER] = -1
    out[H_POINTS] = 0
    out[H_KNOCKER_DW] = -1
    out[H_DEFENDER_DW] = -1
    out[H_LAYOFF] = 0
    out[H_ERROR] = ERR_NONE
    out[H_ERROR_SEAT] = -1
    out[H_ERROR_VALUE] = 0
    out[H_OUTCOME] = OUT_DEAD

    # ---- first turn: the upcard is offered to the non-dealer, then to the dealer ------
    current = non_dealer
    from_pile = False
    for k in range(2):
        seat = non_dealer if k == 0 else dealer
        _fill_view(view, np.int64(PHASE_FIRST_UPCARD), seat, dealer, hands, took, declined, discards,
                   seen, draws, scores, pile, pile_len, pile_mask, stock_n - stock_pos, np.int64(0), limit)
        if seat == 0:
            take = dispatch.take_nb(sid0, params0, view, pile0, rules0, rng0, memory0)
        else:
            take = dispatch.take_nb(sid1, params1, view, pile1, rules1, rng1, memory1)
        if take:
            current = seat
            from_pile = True
            break
        declined[seat] |= np.int64(1) << upcard
        if trace.shape[0] > 0:
            nt = _trace(trace, nt, np.int64(seat), np.int64(EV_DECLINE), np.int64(upcard))

    turn = np.int64(0)
    reshuffles = 0
    last_chance = False
    while True:
        # ---- draw ------------------------------------------------------------------------
        if from_pile:
            pile_len -= 1
            card = pile[pile_len]
            if pile0[pile_len] != card or pile1[pile_len] != card:
                # a strategy wrote into this slot of its copy; once the slot leaves the live
                # pile the end-of-hand check could no longer see it, so check it here
                out[H_ERROR] = ERR_WROTE_PILE
                out[H_ERROR_SEAT] = 0 if pile0[pile_len] != card else 1
                out[H_ERROR_VALUE] = pile_len
                break
            pile_mask &= ~(np.int64(1) << card)
            took[current] |= np.int64(1) << card
            if trace.shape[0] > 0:
                nt = _trace(trace, nt, np.int64(current), np.int64(EV_TAKE_PILE), np.int64(card))
        else:
            card = stock[stock_pos]
            stock_pos += 1
            seen[current] |= np.int64(1) << card
            if trace.shape[0] > 0:
                nt = _trace(trace, nt, np.int64(current), np.int64(EV_DRAW_STOCK), np.int64(card))
        hands[current] |= np.int64(1) << card
        draws[current] += 1
        opponent = 1 - current

        # ---- big gin: all eleven cards melded goes out at once ---------------------------
        if rules[R_BIG_GIN_BONUS] > 0 and min_deadwood_nb(hands[current]) == 0:
            if trace.shape[0] > 0:
                nt = _trace(trace, nt, np.int64(current), np.int64(EV_BIG_GIN), np.int64(0))
            nt = _settle(hands, current, np.int64(0), np.int64(1), sids, seat_params, rules,
                         seat_rules, scratch, player_rngs, memory, view, pile, pile_len,
                         pile_mask, took, declined, discards, seen, stock_n - stock_pos, turn,
                         draws, limit, scores, dealer, multiplier, out, trace, nt)
            break

        # ---- discard ---------------------------------------------------------------------
        legal = hands[current]
        if from_pile:
            legal &= ~(np.int64(1) << card)
        if last_chance:
            legal = _knockable_discards(hands[current], legal, limit)
        _fill_view(view, np.int64(PHASE_DISCARD), current, dealer, hands, took, declined, discards,
                   seen, draws, scores, pile, pile_len, pile_mask, stock_n - stock_pos, turn, limit)
        view[V_DRAWN] = card
        view[V_FROM_PILE] = from_pile
        view[V_LEGAL_DISCARDS] = legal
        if current == 0:
            discard = dispatch.discard_nb(sid0, params0, view, pile0, rules0, rng0, memory0)
        else:
            discard = dispatch.discard_nb(sid1, params1, view, pile1, rules1, rng1, memory1)
        # range first: a shift by 64 or more (or a negative one) is undefined; codes 13..15
        # of a suit are not cards
        if discard < 0 or discard > 63 or discard % 16 >= 13 or (legal >> discard) & 1 == 0:
            out[H_ERROR] = ERR_ILLEGAL_DISCARD
            out[H_ERROR_SEAT] = current
            out[H_ERROR_VALUE] = discard
            break
        bit = np.int64(1) << discard
        hands[current] &= ~bit
        took[current] &= ~bit
        discards[current] |= bit
        pile[pile_len] = discard
        pile0[pile_len] = discard
        pile1[pile_len] = discard
        pile_len += 1
        pile_mask |= bit
        seen[opponent] |= bit
        if trace.shape[0] > 0:
            nt = _trace(trace, nt, np.int64(current), np.int64(EV_DISCARD), np.int64(discard))
        turn += 1

        # ---- knock -----------------------------------------------------------------------
        deadwood = min_deadwood_nb(hands[current])
        if deadwood <= limit:
            knock = last_chance
            if not knock:
                _fill_view(view, np.int64(PHASE_KNOCK), current, dealer, hands, took, declined, discards,
                           seen, draws, scores, pile, pile_len, pile_mask, stock_n - stock_pos, turn, limit)
                view[V_DEADWOOD] = deadwood
                if current == 0:
                    knock = dispatch.knock_nb(sid0, params0, view, pile0, rules0, rng0, memory0)
                else:
                    knock = dispatch.knock_nb(sid1, params1, view, pile1, rules1, rng1, memory1)
            if knock:
                if trace.shape[0] > 0:
                    nt = _trace(trace, nt, np.int64(current), np.int64(EV_GIN if deadwood == 0 else EV_KNOCK), np.int64(deadwood))
                nt = _settle(hands, current, deadwood, np.int64(0), sids, seat_params, rules,
                             seat_rules, scratch, player_rngs, memory, view, pile, pile_len,
                             pile_mask, took, declined, discards, seen, stock_n - stock_pos,
                             turn, draws, limit, scores, dealer, multiplier, out, trace, nt)
                break
        elif last_chance:
            out[H_ERROR] = ERR_LAST_DISCARD_NO_KNOCK
            out[H_ERROR_SEAT] = current
            out[H_ERROR_VALUE] = discard
            break
        if last_chance:
            break  # unreachable: a last-chance turn always knocks or errs

        # ---- end of the stock --------------------------------------------------------------
        stock_left = stock_n - stock_pos
        if rules[R_RESHUFFLE]:
            if stock_left == 0:
                if reshuffles >= rules[R_MAX_RESHUFFLES] or pile_len < 2:
                    break  # dead hand: the termination guard
                # the pile copies are about to be rebuilt: check what was lent first
                _guard_nb(pile, pile0, pile1, pile_len, params, seat_params, rules, seat_rules, out)
                if out[H_ERROR] != ERR_NONE:
                    break
                # the pile less its top card becomes the new stock
                for i in range(pile_len - 1):
                    stock[i] = pile[i]
                stock_n = pile_len - 1
                stock_pos = 0
                shuffle_nb(deck_rng, stock, stock_n)
                pile[0] = pile[pile_len - 1]
                pile0[0] = pile[0]
                pile1[0] = pile[0]
                pile_len = 1
                pile_mask = np.int64(1) << pile[0]
                reshuffles += 1
                if trace.shape[0] > 0:
                    nt = _trace(trace, nt, np.int64(-1), np.int64(EV_RESHUFFLE), np.int64(stock_n))
        elif stock_left <= CANCEL_AT_STOCK:
            if not rules[R_LAST_DISCARD]:
                break
            # the other player may take this last discard, only to knock
            top = pile[pile_len - 1]
            trial = hands[opponent] | (np.int64(1) << top)
            if _knockable_discards(trial, hands[opponent], limit) == 0:
                break
            _fill_view(view, np.int64(PHASE_LAST_DISCARD), opponent, dealer, hands, took, declined, discards,
                       seen, draws, scores, pile, pile_len, pile_mask, stock_left, turn, limit)
            if opponent == 0:
                take = dispatch.take_nb(sid0, params0, view, pile0, rules0, rng0, memory0)
            else:
                take = dispatch.take_nb(sid1, params1, view, pile1, rules1, rng1, memory1)
            if not take:
                if trace.shape[0] > 0:
                    nt = _trace(trace, nt, np.int64(opponent), np.int64(EV_PASS_LAST), np.int64(top))
                break
            last_chance = True
            current = opponent
            from_pile = True
            continue

        if turn >= MAX_TURNS_PER_HAND:
            break  # dead hand: the termination guard against endless pile draws

        # ---- next player's draw ---------------------------------------------------------
        current = opponent
        _fill_view(view, np.int64(PHASE_DRAW), current, dealer, hands, took, declined, discards,
                   seen, draws, scores, pile, pile_len, pile_mask, stock_n - stock_pos, turn, limit)
        if current == 0:
            from_pile = dispatch.take_nb(sid0, params0, view, pile0, rules0, rng0, memory0)
        else:
            from_pile = dispatch.take_nb(sid1, params1, view, pile1, rules1, rng1, memory1)
        if not from_pile:
            declined[current] |= np.int64(1) << pile[pile_len - 1]

    _guard_nb(pile, pile0, pile1, pile_len, params, seat_params, rules, seat_rules, out)
    if out[H_OUTCOME] == OUT_DEAD and trace.shape[0] > 0 and out[H_ERROR] == ERR_NONE:
        nt = _trace(trace, nt, np.int64(-1), np.int64(EV_DEAD), np.int64(stock_n - stock_pos))
    out[H_DRAWS] = draws[0] + draws[1]
    out[H_STOCK_LEFT] = stock_n - stock_pos
    out[H_TURNS] = turn
    out[H_RESHUFFLES] = reshuffles
    return nt


@njit(cache=True)
def _knockable_discards(hand, allowed, limit):
    """The allowed discards of an 11-card hand after which deadwood ≤ ``limit``."""
    result = np.int64(0)
    rest = hand & allowed
    while rest:
        low = rest & -rest
        rest &= rest - 1
        if min_deadwood_nb(hand & ~low) <= limit:
            result |= low
    return result


@njit(cache=True)
def _valid_layout(hand, sets, runs, deadwood):
    """True when ``sets`` are whole sets and ``runs`` whole runs of the hand, disjoint, and
    the cards left over are worth exactly ``deadwood``."""
    if (sets | runs) & ~hand or sets & runs:
        return False
    if run_cover_nb(runs) != runs:
        return False
    for rank in range(13):
        n = popcount_nb(sets & rank_cards_nb(rank))
        if n == 1 or n == 2:
            return False
    return hand_value_nb(hand & ~(sets | runs)) == deadwood


@njit(cache=True)
def _settle(hands, knocker, deadwood, big_gin_flag, sids, seat_params, rules, seat_rules,
            scratch, player_rngs, memory, view, pile, pile_len, pile_mask, took, declined,
            discards, seen, stock_left, turn, draws, limit, scores, dealer, multiplier, out,
            trace, nt):
    """Lay out the knocker's melds, let the defender lay off, score, fill the record.

    ``big_gin_flag`` is 1 for big gin (all eleven cards melded), else 0; deadwood 0 is gin.
    (Every argument is a typed variable, never a literal, so numba compiles this once.)
    """
    big_gin = big_gin_flag == 1
    gin = big_gin or deadwood == 0
    defender = 1 - knocker
    if gin or big_gin:
        defender_dw = min_deadwood_nb(hands[defender])  # no layoffs against gin
        laid_value = 0
    else:
        _fill_view(view, np.int64(PHASE_ARRANGE), knocker, dealer, hands, took, declined, discards,
                   seen, draws, scores, pile, pile_len, pile_mask, stock_left, turn, limit)
        view[V_DEADWOOD] = deadwood
        start = S_SEAT_PILES + 64 * knocker
        sets, runs = dispatch.arrange_nb(sids[knocker], seat_params[knocker], view,
                                         scratch[start:start + 64], seat_rules[knocker],
                                         player_rngs[knocker], memory[knocker])
        # the engine trusts no strategy: the melds must be the knocker's, disjoint and
        # leave exactly the deadwood it knocked with
        if not _valid_layout(hands[knocker], sets, runs, deadwood):
            out[H_ERROR] = ERR_BAD_MELDS
            out[H_ERROR_SEAT] = knocker
            out[H_ERROR_VALUE] = sets | runs
            return nt
        defender_dw, laid, _ = layoff_solution_nb(hands[defender], sets, runs)
        laid_value = hand_value_nb(laid)
        if trace.shape[0] > 0:
            nt = _trace(trace, nt, np.int64(knocker), np.int64(EV_SETS), np.int64(sets))
            nt = _trace(trace, nt, np.int64(knocker), np.int64(EV_RUNS), np.int64(runs))
            nt = _trace(trace, nt, np.int64(defender), np.int64(EV_LAYOFF), np.int64(laid))
    winner, points, undercut = score_hand_nb(deadwood, defender_dw, gin, big_gin, rules)
    points *= multiplier
    out[H_KNOCKER] = knocker
    out[H_KNOCKER_DW] = deadwood
    out[H_DEFENDER_DW] = defender_dw
    out[H_LAYOFF] = laid_value
    out[H_POINTS] = points
    if winner == KNOCKER:
        out[H_WINNER] = knocker
    elif winner == DEFENDER:
        out[H_WINNER] = defender
    else:
        out[H_WINNER] = -1
    if big_gin:
        out[H_OUTCOME] = OUT_BIG_GIN
    elif gin:
        out[H_OUTCOME] = OUT_GIN
    elif undercut:
        out[H_OUTCOME] = OUT_UNDERCUT
    else:
        out[H_OUTCOME] = OUT_KNOCK
    if trace.shape[0] > 0:
        nt = _trace(trace, nt, np.int64(defender), np.int64(EV_DEFENDER_DEADWOOD), np.int64(defender_dw))
        nt = _trace(trace, nt, np.int64(out[H_WINNER]), np.int64(EV_SCORE), np.int64(points))
    return nt


# ---- seeds ----------------------------------------------------------------------------------
# Stream keys: the deck of pair p (and of hand h of game pair p) from (seed, p, h); the
# dealer from the same deck stream; each player's decisions from (seed ^ PLAYER_SALT, deal,
# seat) for single deals and (seed ^ PLAYER_SALT, game, hand * 2 + seat) for games.
PLAYER_SALT = 0x0123456789ABCDEF
DECK_SALT = 0x7F4A7C159E3779B9


@njit(cache=True)
def _new_deck(seed, pair, hand_index, deck, rng):
    rng[0] = stream_key_nb(seed ^ DECK_SALT, pair, hand_index)
    for i in range(52):
        deck[i] = DECK[i]
    shuffle_nb(rng, deck, np.int64(52))


@njit(cache=True)
def play_deal_block_nb(seed, first_deal, start, stop, mirrored, rules, sids_ab, params_ab, out,
                       trace):
    """Play deals ``first_deal + start .. first_deal + stop - 1`` as independent hands into
    ``out[start:stop]``, with scratch allocated once for the block.

    Deal d belongs to pair ``d // 2`` when ``mirrored`` (both deals of a pair use the same
    deck and dealer seat, with the strategies' seats swapped: A sits in seat ``d % 2``),
    else pair ``d`` with A's seat drawn at random.  ``sids_ab``/``params_ab`` hold strategy
    A then B.  ``trace`` (n × 3), when it has rows, records the block's first deal.
    """
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    memory = np.zeros((2, N_MEMORY), np.int64)
    deck = np.empty(52, np.int64)
    deck_rng = np.zeros(1, np.uint64)
    player_rngs = np.zeros((2, 1), np.uint64)
    sids = np.empty(2, np.int64)
    params = np.empty((2, params_ab.shape[1]), np.float64)
    seat_params = np.empty((2, params_ab.shape[1]), np.float64)  # the strategies' copies
    seat_rules = np.empty((2, rules.shape[0]), np.int64)
    for i in range(rules.shape[0]):
        seat_rules[0, i] = rules[i]
        seat_rules[1, i] = rules[i]
    scores = np.zeros(2, np.int64)
    nt = np.int64(0)
    for i in range(start, stop):
        deal = first_deal + i
        pair = deal // 2 if mirrored else deal
        _new_deck(seed, pair, np.int64(0), deck, deck_rng)
        dealer = np.int64(deck_rng[0] >> np.uint64(13)) & 1
        if mirrored:
            a_seat = deal % 2
        else:
            a_seat = np.int64(deck_rng[0] >> np.uint64(17)) & 1
        deck_rng[0] = stream_key_nb(seed ^ DECK_SALT, pair, np.int64(1 << 40))  # reshuffle stream
        for seat in range(2):
            who = 0 if seat == a_seat else 1
            sids[seat] = sids_ab[who]
            params[seat, :] = params_ab[who, :]
            seat_params[seat, :] = params_ab[who, :]
            player_rngs[seat, 0] = stream_key_nb(seed ^ PLAYER_SALT, deal, who)
        row = out[i]
        row[H_DEAL] = deal
        row[H_PAIR] = pair
        row[H_A_SEAT] = a_seat
        row[H_GAME] = -1
        row[H_HAND_IN_GAME] = -1
        tr = trace if i == start else trace[:0]
        n = play_hand_nb(deck, dealer, sids, params, rules, seat_params, seat_rules, scores,
                         player_rngs, deck_rng, scratch, memory, row, tr)
        if i == start:
            nt = n
    return nt


@njit(cache=True, parallel=True)
def play_deals_nb(seed, first_deal, n_deals, mirrored, rules, sids_ab, params_ab, out):
    """The parallel entry point for single deals: ``out`` (n_deals × N_HAND_COLS) gets
    deals ``first_deal ..``; blocks of deals run on numba's threads."""
    n_blocks = min(n_deals, 256)
    no_trace = np.zeros((0, 3), np.int64)
    for block in prange(n_blocks):
        start = block * n_deals // n_blocks
        stop = (block + 1) * n_deals // n_blocks
        play_deal_block_nb(seed, first_deal, start, stop, mirrored, rules, sids_ab, params_ab,
                           out, no_trace)


@njit(cache=True)
def play_game_nb(seed, game, mirrored, rules, sids_ab, params_ab, game_out, hand_out,
                 scratch, memory, deck, deck_rng, player_rngs, sids, params, seat_params,
                 seat_rules, trace):
    """Play one whole game and fill ``game_out``; hand rows go to ``hand_out`` while it
    has room (pass a 0-row array to skip them).  Returns the number of hands played.
    ``seat_params`` (2 × params) and ``seat_rules`` (2 × rules) are work arrays for the
    strategies' copies, filled here."""
    pair = game // 2 if mirrored else game
    deck_rng[0] = stream_key_nb(seed ^ DECK_SALT, pair, np.int64(1 << 41))
    first_dealer = np.int64(deck_rng[0] >> np.uint64(13)) & 1
    if mirrored:
        a_seat = game % 2
    else:
        a_seat = np.int64(deck_rng[0] >> np.uint64(17)) & 1
    for seat in range(2):
        who = 0 if seat == a_seat else 1
        sids[seat] = sids_ab[who]
        params[seat, :] = params_ab[who, :]
        seat_params[seat, :] = params_ab[who, :]
        for i in range(rules.shape[0]):
            seat_rules[seat, i] = rules[i]
    scores = np.zeros(2, np.int64)
    boxes = np.zeros(2, np.int64)
    row = np.zeros(N_HAND_COLS, np.int64)
    dealer = first_dealer
    hands = 0
    dead = 0
    winner = -1
    error = 0
    error_seat = -1
    error_value = 0
    nt = np.int64(0)
    while hands < MAX_HANDS_PER_GAME:
        _new_deck(seed, pair, hands + 1, deck, deck_rng)
        deck_rng[0] = stream_key_nb(seed ^ DECK_SALT, pair, np.int64((hands + 1) | (1 << 40)))
        for seat in range(2):
            who = 0 if seat == a_seat else 1
            player_rngs[seat, 0] = stream_key_nb(seed ^ PLAYER_SALT, game, hands * 2 + who)
        row[H_DEAL] = hands
        row[H_PAIR] = pair
        row[H_A_SEAT] = a_seat
        row[H_GAME] = game
        row[H_HAND_IN_GAME] = hands
        tr = trace if hands == 0 else trace[:0]
        play_hand_nb(deck, dealer, sids, params, rules, seat_params, seat_rules, scores,
                     player_rngs, deck_rng, scratch, memory, row, tr)
        if hands < hand_out.shape[0]:
            hand_out[hands, :] = row
        hands += 1
        if row[H_ERROR] != ERR_NONE:
            error = row[H_ERROR]
            error_seat = row[H_ERROR_SEAT]
            error_value = row[H_ERROR_VALUE]
            break
        hand_winner = row[H_WINNER]
        if row[H_OUTCOME] == OUT_DEAD:
            dead += 1
            continue  # the same dealer deals again
        if hand_winner >= 0:
            scores[hand_winner] += row[H_POINTS]
            boxes[hand_winner] += 1
        if scores[0] >= rules[R_TARGET] or scores[1] >= rules[R_TARGET]:
            winner = 0 if scores[0] >= rules[R_TARGET] else 1
            break
        mode = rules[R_NEXT_DEALER]
        if mode == NEXT_ALTERNATE or hand_winner < 0:
            dealer = 1 - dealer
        elif mode == NEXT_LOSER:
            dealer = 1 - hand_winner
        else:
            dealer = hand_winner
    game_out[G_GAME] = game
    game_out[G_PAIR] = pair
    game_out[G_A_SEAT] = a_seat
    game_out[G_FIRST_DEALER] = first_dealer
    game_out[G_HANDS] = hands
    game_out[G_POINTS0] = scores[0]
    game_out[G_POINTS1] = scores[1]
    game_out[G_BOXES0] = boxes[0]
    game_out[G_BOXES1] = boxes[1]
    game_out[G_DEAD_HANDS] = dead
    game_out[G_ERROR] = error
    game_out[G_ERROR_SEAT] = error_seat
    game_out[G_ERROR_VALUE] = error_value
    total0 = scores[0] + boxes[0] * rules[R_BOX_BONUS]
    total1 = scores[1] + boxes[1] * rules[R_BOX_BONUS]
    shutout = False
    if winner >= 0:
        loser = 1 - winner
        shutout = scores[loser] == 0
        bonus = rules[R_GAME_BONUS]
        if shutout and rules[R_SHUTOUT] == SHUTOUT_DOUBLE_BONUS:
            bonus *= 2
        if winner == 0:
            total0 += bonus
            if shutout and rules[R_SHUTOUT] == SHUTOUT_DOUBLE:
                total0 *= 2
        else:
            total1 += bonus
            if shutout and rules[R_SHUTOUT] == SHUTOUT_DOUBLE:
                total1 *= 2
    game_out[G_WINNER] = winner
    game_out[G_SCORE0] = total0
    game_out[G_SCORE1] = total1
    game_out[G_SHUTOUT] = shutout
    return hands


@njit(cache=True, parallel=True)
def play_games_nb(seed, first_game, n_games, mirrored, rules, sids_ab, params_ab, game_out,
                  hand_out, hand_offsets):
    """Play games ``first_game ..`` in parallel.  ``game_out`` is n_games × N_GAME_COLS.
    When ``hand_offsets`` has n_games + 1 entries, the hands of game i are written to
    ``hand_out[hand_offsets[i]:hand_offsets[i + 1]]`` (count them in a first pass)."""
    n_blocks = min(n_games, 256)
    with_hands = hand_offsets.shape[0] == n_games + 1
    for block in prange(n_blocks):
        scratch = np.zeros(SCRATCH_LEN, np.int64)
        memory = np.zeros((2, N_MEMORY), np.int64)
        deck = np.empty(52, np.int64)
        deck_rng = np.zeros(1, np.uint64)
        player_rngs = np.zeros((2, 1), np.uint64)
        sids = np.empty(2, np.int64)
        params = np.empty((2, params_ab.shape[1]), np.float64)
        seat_params = np.empty((2, params_ab.shape[1]), np.float64)
        seat_rules = np.empty((2, rules.shape[0]), np.int64)
        no_trace = np.zeros((0, 3), np.int64)
        start = block * n_games // n_blocks
        stop = (block + 1) * n_games // n_blocks
        for i in range(start, stop):
            if with_hands:
                hands = hand_out[hand_offsets[i]:hand_offsets[i + 1]]
            else:
                hands = hand_out[:0]
            play_game_nb(seed, first_game + i, mirrored, rules, sids_ab, params_ab, game_out[i],
                         hands, scratch, memory, deck, deck_rng, player_rngs, sids, params,
                         seat_params, seat_rules, no_trace)
