"""The work row of a match: one int64 array holding everything a driver keeps for one
matchup, and the functions that allocate it, seat a matchup in it and start its hands.

The row is laid out as the ``K_*`` blocks of ``simulator.core.layouts`` (the hand's state,
each seat's strategy id, the view and each seat's copy of the pile, each seat's memory and
random stream, the deck and its stream, the seed, the hand's record, and the copies lent
to the strategies: each seat's rule vector and parameter row).  ``fields_nb`` reads it as a
``Work`` record of named views, so no driver passes its arrays by position; copying a
match mid-hand (``simulator.Hand.clone``) is copying the row.

Every driver makes its hands with the same functions, so a hand is started in one place
whichever driver plays it (the batch kernels, ``simulator.Hand``, the Python driver, the RL
environments, the belief study, ``ginsim play``):

* ``new_work`` allocates a row (Python);
* ``seat_nb`` seats a matchup: strategy A in one seat, B in the other, each with its
  parameter row and the copy of it the strategy is lent (each seat's copy of the rules is
  made with the row);
* ``start_deal_nb`` deals deal d of ``simulate`` (its deck, dealer, seats and streams, keyed
  by ``simulator.core.rng``), ``start_game_nb`` a game's first hand, ``start_game_hand_nb``
  hand k of a game with its dealer and scores given, ``start_deck_nb`` an explicit deck
  (with a given reshuffle stream, if any);
* ``next_hand_nb`` chains the hands of a game: after a hand, the game's record is brought up
  to date (``simulator.core.scoring.end_of_hand_nb``) and the next hand dealt, until the game
  is over;
* ``record_nb`` writes the hand's play columns into a hand row.

Each start zeroes the seats' memories and fills the ids of the row the hand is recorded to
(``out``: deal, pair, A's seat, game, hand in game).  The loop that plays a hand from a
work row is ``simulator.engine.loop.run_until_nb``.

The deal of a hand (``deal_hand_nb``) is merged into the starts that call it
(``simulator.infra.jit``, ``MERGED``): a library of its own would only compile the deal's
machine code once more in each.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..core.constants import (
    H_A_SEAT,
    H_DEAL,
    H_DEALER,
    H_DEFENDER_DW,
    H_DRAWS,
    H_GAME,
    H_HAND_IN_GAME,
    H_KNOCK_LIMIT,
    H_KNOCKER,
    H_KNOCKER_DW,
    H_LAYOFF,
    H_OUTCOME,
    H_PAIR,
    H_POINTS,
    H_RESHUFFLES,
    H_STOCK_LEFT,
    H_TURNS,
    H_UPCARD,
    H_WINNER,
    K_DECK,
    K_DECK_RNG,
    K_LENT,
    K_MEMORY,
    K_N_RULES,
    K_RECORD,
    K_RNGS,
    K_SCRATCH,
    K_SEED,
    K_SIDS,
    K_STATE,
    K_WIDTH,
    N_HAND_COLS,
    N_MEMORY,
    N_STATE,
    N_VIEW,
    G_A_SEAT,
    G_GAME,
    G_HANDS,
    G_PAIR,
    G_POINTS0,
    G_POINTS1,
    OUT_DEAD,
    PHASE_OVER,
    S_DEALER,
    S_DEFENDER_DW,
    S_DRAWS,
    S_KNOCKER,
    S_KNOCKER_DW,
    S_LAYOFF,
    S_LIMIT,
    S_OUTCOME,
    S_PHASE,
    S_POINTS,
    S_RESHUFFLES,
    S_STOCK_N,
    S_STOCK_POS,
    S_TURN,
    S_UPCARD,
    S_WINNER,
    W_SEAT_PILES,
    W_VIEW,
)
from ..core.rng import deal_streams_nb, game_hand_streams_nb, game_start_nb, scripted_streams_nb
from ..core.scoring import end_of_hand_nb, new_game_nb
from ..core.state import deal_nb
from ..infra.jit import CORE, HOT, MERGED
from ..infra.words import as_float64_nb, as_uint64_nb

#: the work row read as named views (``fields_nb``), per seat where each seat has its own
Work = namedtuple("Work", (
    "state",  # the hand (N_STATE)
    "sids",  # each seat's strategy id (2)
    "seat_view",  # the view of the seat to act (N_VIEW; not "view": numba reads that as ndarray.view)
    "pile0", "pile1",  # each seat's copy of the pile, the one its strategy gets (64)
    "memory0", "memory1",  # each seat's per-hand memory (N_MEMORY)
    "rngs",  # each seat's random stream (2, uint64; a strategy gets ``rngs[seat:seat + 1]``)
    "deck",  # the deck the hand was dealt from (52)
    "deck_rng",  # the deck's stream (1, uint64)
    "seed",  # the seed of the deal or game (1, uint64)
    "record",  # the hand's record (N_HAND_COLS)
    "rules0", "rules1",  # each seat's copy of the rule vector
    "params0", "params1",  # each seat's parameter row, the engine's (float64)
    "lent0", "lent1",  # each seat's copy of its parameter row, the one its strategy gets (float64)
))


def work_len(n_rules: int, width: int) -> int:
    """Slots of a work row for a rule vector of ``n_rules`` and parameter rows ``width`` long."""
    return K_LENT + 2 * n_rules + 4 * width


def new_work(rules: np.ndarray, width: int) -> np.ndarray:
    """A zeroed work row for the rule vector ``rules`` and parameter rows ``width`` long, each
    seat's rule copy filled and no strategy seated (id -1, where the loop stops; ``seat_nb``
    seats a matchup)."""
    n_rules = len(rules)
    work = np.zeros(work_len(n_rules, width), np.int64)
    work[K_SIDS:K_SIDS + 2] = -1
    work[K_N_RULES] = n_rules
    work[K_WIDTH] = width
    work[K_LENT:K_LENT + 2 * n_rules] = np.tile(rules, 2)
    return work


def new_works(n: int, rules: np.ndarray, width: int) -> np.ndarray:
    """``n`` work rows (an n × ``work_len`` array), each as ``new_work`` makes it."""
    return np.tile(new_work(rules, width), (n, 1))


# Each block of the row, one view each (merged into the callers): the functions of this module
# that need a block or two take those, and ``fields_nb`` takes them all.
@MERGED
def state_of(work):
    return work[K_STATE:K_STATE + N_STATE]


@MERGED
def deck_of(work):
    return work[K_DECK:K_DECK + 52]


@MERGED
def deck_rng_of(work):
    return as_uint64_nb(work[K_DECK_RNG:K_DECK_RNG + 1])


@MERGED
def rngs_of(work):
    return as_uint64_nb(work[K_RNGS:K_RNGS + 2])


@MERGED
def seed_of(work):
    return as_uint64_nb(work[K_SEED:K_SEED + 1])


@MERGED
def memory_of(work, seat):
    """Seat ``seat``'s per-hand memory (N_MEMORY): seat 0's first in the ``K_MEMORY`` block,
    seat 1's 2 x N_MEMORY in, each followed by its spare row (``spare_of``)."""
    at = K_MEMORY + 2 * N_MEMORY * seat
    return work[at:at + N_MEMORY]


@MERGED
def spare_of(work, seat):
    """The spare row after seat ``seat``'s memory: it stays 0, so a strategy writing past the
    end of its memory (by up to N_MEMORY slots) writes there and never into the other seat's
    memory or stream; engines that route plug-ins check it after each call
    (``simulator.engine.loop.check_spare_nb``)."""
    at = K_MEMORY + 2 * N_MEMORY * seat + N_MEMORY
    return work[at:at + N_MEMORY]


@MERGED
def rows_at(work):
    """Where the lent copies start: (each seat's rule copy, each seat's parameter row, each
    seat's lent copy of it), and the rule vector's and a parameter row's lengths."""
    n_rules = work[K_N_RULES]
    width = work[K_WIDTH]
    params_at = K_LENT + 2 * n_rules
    return K_LENT, params_at, params_at + 2 * width, n_rules, width


@MERGED
def param_rows_of(work):
    """Both seats' parameter rows, then both seats' lent copies of them, as float64 (four
    rows of the row's width, seat 0's first)."""
    _, params_at, lent_at, _, width = rows_at(work)
    return as_float64_nb(work[params_at:lent_at + 2 * width])


@MERGED
def fields_nb(work):
    """The work row ``work`` as a ``Work`` record of views into it (slices only, which the
    compiler drops where a caller does not use them; two reinterpretations of the row's
    words, as float64 for the parameter rows and as uint64 for the streams).  Merged into
    each caller, so its views are counted, or not, as the caller counts references."""
    rules_at, params_at, lent_at, n_rules, width = rows_at(work)
    piles = K_SCRATCH + W_SEAT_PILES
    rows = param_rows_of(work)
    streams = as_uint64_nb(work[K_RNGS:K_SEED + 1])  # the seats' streams ... the deck's stream, the seed
    return Work(state_of(work), work[K_SIDS:K_SIDS + 2],
                work[K_SCRATCH + W_VIEW:K_SCRATCH + W_VIEW + N_VIEW], work[piles:piles + 64],
                work[piles + 64:piles + 128], memory_of(work, 0), memory_of(work, 1), streams[:2],
                deck_of(work), streams[K_DECK_RNG - K_RNGS:K_DECK_RNG - K_RNGS + 1],
                streams[K_SEED - K_RNGS:K_SEED - K_RNGS + 1], work[K_RECORD:K_RECORD + N_HAND_COLS],
                work[rules_at:rules_at + n_rules], work[rules_at + n_rules:params_at],
                rows[:width], rows[width:2 * width], rows[2 * width:3 * width], rows[3 * width:])


@MERGED.python_entry
def seat_one_nb(work, seat, sid, params):
    """Seat strategy ``sid`` with the parameter row ``params`` in ``seat``, and lend it its copy
    of the row (merged into its callers)."""
    work[K_SIDS + seat] = sid
    width = work[K_WIDTH]
    rows = param_rows_of(work)
    for k in range(params.shape[0]):  # (loops: slice assignment compiles slowly)
        rows[seat * width + k] = params[k]
        rows[(2 + seat) * width + k] = params[k]


@CORE.python_entry
def seat_nb(work, a_seat, sids_ab, params_ab):
    """Seat strategy A (``sids_ab[0]``, parameter row ``params_ab[0]``) in seat ``a_seat`` and B
    in the other, each lent its copy of its parameter row.  (Each seat's copy of the rules is
    made with the row, ``new_work``; the loop checks every copy against the original and
    restores one a strategy wrote into.)"""
    seat_one_nb(work, a_seat, sids_ab[0], params_ab[0])
    seat_one_nb(work, 1 - a_seat, sids_ab[1], params_ab[1])


@MERGED
def deal_hand_nb(work, dealer, score0, score1, rules, trace):
    """Deal the hand of the row's deck (``simulator.core.state.deal_nb``, the reshuffle stream
    from the deck's stream) with the game scores ``score0``, ``score1``, and zero the seats'
    memories."""
    memory0, memory1 = memory_of(work, 0), memory_of(work, 1)
    for i in range(N_MEMORY):
        memory0[i] = 0
        memory1[i] = 0
    deal_nb(state_of(work), deck_of(work), dealer, score0, score1, rules, work[K_DECK_RNG], trace)


@MERGED
def _ids_nb(out, deal, pair, a_seat, game, hand):
    out[H_DEAL] = deal
    out[H_PAIR] = pair
    out[H_A_SEAT] = a_seat
    out[H_GAME] = game
    out[H_HAND_IN_GAME] = hand


@CORE.python_entry
def start_deal_nb(work, seed, deal, mirrored, score0, score1, rules, out, trace):
    """Deal deal ``deal`` of ``simulate(seed=seed, mirrored=mirrored)`` into the row: its deck,
    dealer and streams (``simulator.core.rng.deal_streams_nb``), the game scores ``score0``,
    ``score1`` (0, 0 in single deals).  Fills the ids of the hand row ``out`` and returns
    ``(pair, dealer, a_seat)``; seat the matchup with ``seat_nb``."""
    seed_of(work)[0] = seed
    pair, dealer, a_seat = deal_streams_nb(seed, deal, mirrored, deck_of(work), deck_rng_of(work), rngs_of(work))
    _ids_nb(out, deal, pair, a_seat, np.int64(-1), np.int64(-1))
    deal_hand_nb(work, dealer, score0, score1, rules, trace)
    return pair, dealer, a_seat


@CORE
def _game_hand_nb(work, game, pair, hand, a_seat, dealer, score0, score1, rules, out, trace):
    """Deal hand ``hand`` of game ``game`` (seed from the row) into the row."""
    game_hand_streams_nb(seed_of(work)[0], game, pair, hand, a_seat, deck_of(work), deck_rng_of(work), rngs_of(work))
    _ids_nb(out, hand, pair, a_seat, game, hand)
    deal_hand_nb(work, dealer, score0, score1, rules, trace)


@CORE
def start_game_nb(work, seed, game, mirrored, rules, game_out, out, trace):
    """Start game ``game`` of ``simulate_games(seed=seed, mirrored=mirrored)``: its record
    ``game_out`` (``simulator.core.scoring.new_game_nb``) and its first hand, dealt into the
    row (ids into the hand row ``out``).  Returns A's seat; seat the matchup with
    ``seat_nb``."""
    seed_of(work)[0] = seed
    pair, first_dealer, a_seat = game_start_nb(seed, game, mirrored, deck_rng_of(work))  # (simulator.core.rng)
    new_game_nb(game_out, game, pair, a_seat, first_dealer)
    _game_hand_nb(work, game, pair, np.int64(0), a_seat, first_dealer, np.int64(0), np.int64(0), rules, out, trace)
    return a_seat


@CORE
def next_hand_nb(work, game_out, max_hands, rules, out, trace):
    """Chain the hands of a game: the hand just played (recorded in the hand row ``out``)
    brings the game's record ``game_out`` up to date (``simulator.core.scoring.end_of_hand_nb``:
    scores, boxes, the target, the next dealer, the final totals, the guard of ``max_hands``
    hands) and, unless the game is over, the next hand is dealt into the row with the
    game's scores (its ids into ``out``).  Returns the next hand's dealer, or -1 when the
    game is over."""
    dealer = end_of_hand_nb(game_out, out, max_hands, rules)
    if dealer >= 0:
        _game_hand_nb(work, game_out[G_GAME], game_out[G_PAIR], game_out[G_HANDS], game_out[G_A_SEAT], dealer,
                      game_out[G_POINTS0], game_out[G_POINTS1], rules, out, trace)
    return dealer


@CORE
def start_game_hand_nb(work, seed, game, hand, dealer, score0, score1, mirrored, rules, out, trace):
    """Deal hand ``hand`` of game ``game`` of ``simulate_games(seed=seed, mirrored=mirrored)``
    into the row, with its dealer and the game scores before it given (they depend on the
    hands before; a negative ``dealer`` for hand 0 is the game's first dealer).  Returns
    ``(pair, dealer, a_seat)``."""
    seed_of(work)[0] = seed
    pair, first_dealer, a_seat = game_start_nb(seed, game, mirrored, deck_rng_of(work))
    if dealer < 0:
        dealer = first_dealer
    _game_hand_nb(work, game, pair, hand, a_seat, dealer, score0, score1, rules, out, trace)
    return pair, dealer, a_seat


@CORE
def start_deck_nb(work, cards, dealer, score0, score1, seed, rules, out, trace, deck_stream=None):
    """Deal the explicit 52-card deck ``cards`` (cards 0..19 alternately to the non-dealer
    and the dealer, card 20 the upcard, the rest the stock in drawing order), A in seat 0,
    with the streams of ``simulator.core.rng.scripted_streams_nb`` for ``seed``; a given
    ``deck_stream`` (int64) replaces the deck's stream, which reshuffles the pile
    (``rules.reshuffle_stock``), so a deal of a run dealt again from its deck reshuffles as
    the run did (``simulator.run.handhistory``)."""
    seed_of(work)[0] = seed
    scripted_streams_nb(seed, deck_rng_of(work), rngs_of(work))
    if deck_stream is not None:
        work[K_DECK_RNG] = deck_stream
    deck = deck_of(work)
    for i in range(52):
        deck[i] = cards[i]
    _ids_nb(out, np.int64(0), np.int64(0), np.int64(0), np.int64(-1), np.int64(-1))
    deal_hand_nb(work, dealer, score0, score1, rules, trace)


@HOT
def record_nb(state, out):
    """Fill the play columns of the hand row ``out`` from ``state`` (a hand stopped by an
    error before its end records a dead outcome and no knocker)."""
    over = state[S_PHASE] == PHASE_OVER
    out[H_DEALER] = state[S_DEALER]
    out[H_UPCARD] = state[S_UPCARD]
    out[H_KNOCK_LIMIT] = state[S_LIMIT]
    out[H_OUTCOME] = state[S_OUTCOME] if over else OUT_DEAD
    out[H_KNOCKER] = state[S_KNOCKER] if over else -1
    out[H_WINNER] = state[S_WINNER]
    out[H_POINTS] = state[S_POINTS]
    out[H_KNOCKER_DW] = state[S_KNOCKER_DW]
    out[H_DEFENDER_DW] = state[S_DEFENDER_DW]
    out[H_LAYOFF] = state[S_LAYOFF]
    out[H_DRAWS] = state[S_DRAWS] + state[S_DRAWS + 1]
    out[H_STOCK_LEFT] = state[S_STOCK_N] - state[S_STOCK_POS]
    out[H_TURNS] = state[S_TURN]
    out[H_RESHUFFLES] = state[S_RESHUFFLES]
