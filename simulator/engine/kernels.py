"""The engine: strategies playing the hand state machine, and the parallel batch kernels.

The rules of play live in ``simulator.core.state`` (the state array and its phase functions),
``simulator.core.melds`` and ``simulator.core.scoring``; this module only asks strategies for their
moves and records what happens.  A hand is a short loop (``play_hand_nb``): while the hand
is not over, fill the view of the seat to act, ask its strategy (``strategies.dispatch``)
for its answer and decode it (``answer_nb``), and play it (``play_answer_nb``: through
``simulator.core.state.play_nb``; the knocker's melds go to ``lay_out_nb`` and the defender's
answer to ``defend_nb``, which check them).  Every loop that lets strategies play (the batch
kernel, ``advance_nb`` for the Python driver, the belief study) decodes and plays answers
with these two.  ``play_game_nb`` chains hands
into a game (``simulator.core.scoring.end_of_hand_nb`` chains them), and
``play_deals`` / ``play_games`` run blocks of deals or games (``play_deal_block_nb``,
``play_game_block_nb``) on a pool of threads (``simulator.infra.blocks``).

Because the whole hand is one array, a numba function can copy a state mid-hand and play
it forward with ``play_out_nb`` (rollouts for search players); ``decide_nb`` asks one
strategy for its action in any state, which is how ``simulator.Hand`` plays bots from
Python with the batch engine's random streams.

**Strategies never hold the engine's arrays.**  Each seat's strategy gets its own copy of
the discard pile (kept in the worker scratch, updated on every push and rebuilt on a
reshuffle), its own copy of the rule vector (made once per block of deals or per game)
and its own parameter row; the engine plays from the state's pile and its own rules only.
When a card is taken from the pile, before a reshuffle and at the end of every hand the
engine checks that every seat's copies (the pile's live part, the rules, the parameters)
still equal its own; if a strategy wrote into one, the hand stops with ``ERR_WROTE_PILE``,
``ERR_WROTE_RULES`` or ``ERR_WROTE_PARAMS`` against that seat (and the copy is restored).
The view is refilled before every decision, and memory and random stream are the
strategy's own, so those may be written.  Every error records the seat that caused it
(``H_ERROR_SEAT``) and the offending value (``H_ERROR_VALUE``: the returned card, the
melds' card mask, or the slot written).

Kernels take arrays and fill preallocated int64 records (columns: ``simulator.core.records``);
every random draw comes from streams keyed by (seed, deal) so results never depend on
threads or chunking.
"""

from __future__ import annotations

import numpy as np

from ..infra.jit import CORE, HOT, KERNEL, MERGED, PLAIN
from strategies import dispatch
from strategies.registry import BUILTIN
from strategies.view import (
    DEFEND_BEST,
    DEFEND_NO_LAYOFFS,
    N_MEMORY,
    N_VIEW,
    PHASE_ARRANGE,
    PHASE_DEFEND,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_KNOCK,
)

# (the record, error and event constants are also re-exported for callers that know them
# from here: ``kernels.H_DEAL``, ``kernels.ERR_ILLEGAL_DISCARD``, ``kernels.EV_DEAL`` ...)
from ..infra.blocks import MIN_BLOCK_ITEMS, call_plan, run_blocks
from ..core.cards import DECK  # noqa: F401  (re-exported)
from ..core.records import (  # noqa: F401  (re-exported)
    G_A_SEAT,
    G_BOXES0,
    G_BOXES1,
    G_DEAD_HANDS,
    G_ERROR,
    G_ERROR_SEAT,
    G_ERROR_VALUE,
    G_FIRST_DEALER,
    G_GAME,
    G_HANDS,
    G_PAIR,
    G_POINTS0,
    G_POINTS1,
    G_SCORE0,
    G_SCORE1,
    G_SHUTOUT,
    G_WINNER,
    H_A_SEAT,
    H_DEAL,
    H_DEALER,
    H_DEFENDER_DW,
    H_DRAWS,
    H_ERROR,
    H_ERROR_SEAT,
    H_ERROR_VALUE,
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
    HAND_RECORD_NAMES,
    N_GAME_COLS,
    N_HAND_COLS,
    OUT_BIG_GIN,
    OUT_DEAD,
    OUT_GIN,
    OUT_KNOCK,
    OUT_UNDERCUT,
    OUTCOMES,
)
from ..core.constants import (  # noqa: F401  (re-exported)
    K_MEMORY,
    K_PYTHON,
    K_RNGS,
    K_SCRATCH,
    K_SEAT_RULES,
    K_SIDS,
    K_STATE,
    SCRATCH_LEN,
    W_SEAT_PILES,
    W_VIEW,
)
from ..core.melds import arrangement_index_nb
from ..core.rng import deal_streams_nb, game_hand_streams_nb, game_start_nb
from ..core.rules import MAX_HANDS_PER_GAME  # noqa: F401  (re-exported)
from ..core.scoring import end_of_hand_nb, new_game_nb
from ..core.state import (  # noqa: F401  (re-exported)
    A_ARRANGE,
    A_DEFEND,
    A_DEFEND_BEST,
    A_DEFEND_NO_LAYOFFS,
    A_DISCARD,
    A_DRAW_STOCK,
    A_KNOCK,
    A_NO_KNOCK,
    A_PASS,
    A_TAKE_PILE,
    ERR_BAD_MELDS,
    ERR_ILLEGAL_ACTION,
    ERR_ILLEGAL_DISCARD,
    ERR_NONE,
    ERR_WROTE_PARAMS,
    ERR_WROTE_PILE,
    ERR_WROTE_RULES,
    ERROR_TEXT,
    EV_BIG_GIN,
    EV_DEAD,
    EV_DEAL,
    EV_DECLINE,
    EV_DEFENDER_DEADWOOD,
    EV_DISCARD,
    EV_DRAW_STOCK,
    EV_GIN,
    EV_KNOCK,
    EV_LAYOFF,
    EV_PASS_LAST,
    EV_RESHUFFLE,
    EV_RUNS,
    EV_SCORE,
    EV_SETS,
    EV_TAKE_PILE,
    EV_UPCARD,
    N_STATE,
    PHASE_OVER,
    S_DEALER,
    S_DRAWS,
    S_KNOCKER,
    S_KNOCKER_DW,
    S_DEFENDER_DW,
    S_LAYOFF,
    S_LIMIT,
    S_NTRACE,
    S_OUTCOME,
    S_PHASE,
    S_PILE,
    S_PILE_LEN,
    S_POINTS,
    S_RESHUFFLES,
    S_STOCK_N,
    S_STOCK_POS,
    S_TURN,
    S_UPCARD,
    S_WINNER,
    S_CURRENT,
    S_HANDS,
    apply_action_nb,
    deal_nb,
    defend_nb,
    fill_view_nb,
    lay_out_nb,
    legal_actions_nb,
    play_nb,
    reshuffle_next_nb,
)

TRACE_CAPACITY = 8192

# work scratch: one int64 block per worker, reused for every deal it plays (W_VIEW: the view
# of the seat to act; W_SEAT_PILES: each seat's copy of the pile; SCRATCH_LEN) and the work
# array of ``advance_nb`` (K_*) are declared in simulator.core.layouts

# what ``answer_nb`` returns besides actions: a layout in (x, y), a defence (the
# defender's melds) in (x, y), or a discard that is no card code at all (x)
ANSWER_LAYOUT = -2
ANSWER_DEFENCE = -3
ANSWER_NOT_A_CARD = -1


@CORE
def check_lent_nb(state, pile, rules, own_rules, params, own_params):
    """Check the copies one strategy was lent for one decision: its pile copy (live part)
    against the state's pile, its rule copy against ``rules`` and its parameter row against
    ``params``.  Returns ``(ERR_NONE, 0)``, or the first ``ERR_WROTE_*`` found (pile, then
    rules, then parameters) and the slot written; the rule and parameter copies are
    restored either way.  (The batch kernels first check both seats at once, ``_guard_nb``,
    and call this when something differs.)"""
    err = ERR_NONE
    slot = np.int64(0)
    for i in range(state[S_PILE_LEN]):
        if pile[i] != state[S_PILE + i] and err == ERR_NONE:
            err, slot = ERR_WROTE_PILE, np.int64(i)
    for i in range(rules.shape[0]):
        if own_rules[i] != rules[i]:
            if err == ERR_NONE:
                err, slot = ERR_WROTE_RULES, np.int64(i)
            own_rules[i] = rules[i]
    for i in range(params.shape[0]):
        a = own_params[i]
        b = params[i]
        if a != b and (a == a or b == b):  # a NaN parameter equals itself
            if err == ERR_NONE:
                err, slot = ERR_WROTE_PARAMS, np.int64(i)
            own_params[i] = b
    return err, slot


@CORE
def _guard_nb(state, pile0, pile1, params, seat_params, rules, seat_rules, out):
    """Check what the strategies were lent: each seat's pile copy (live part), rule copy
    and parameter row must still equal the engine's (one branch-free pass in the common
    case).  A difference is looked up seat by seat with ``check_lent_nb`` (the one check
    of lent arrays), which restores the rule and parameter copies so later hands of the
    block or game start clean; it stops the hand with ``ERR_WROTE_*`` against seat 0's
    first write, else seat 1's (unless a write was reported already)."""
    pile_len = state[S_PILE_LEN]
    acc = np.int64(0)
    for i in range(pile_len):
        card = state[S_PILE + i]
        acc |= (pile0[i] ^ card) | (pile1[i] ^ card)
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
    # something was written: find the seat and slot, and restore the copies (rare)
    err0, slot0 = check_lent_nb(state, pile0, rules, seat_rules[0], params[0], seat_params[0])
    err1, slot1 = check_lent_nb(state, pile1, rules, seat_rules[1], params[1], seat_params[1])
    if out[H_ERROR] >= ERR_WROTE_PILE:  # a write reported already
        return
    if err0 != ERR_NONE:
        out[H_ERROR] = err0
        out[H_ERROR_SEAT] = 0
        out[H_ERROR_VALUE] = slot0
    elif err1 != ERR_NONE:
        out[H_ERROR] = err1
        out[H_ERROR_SEAT] = 1
        out[H_ERROR_VALUE] = slot1


@HOT
def answer_nb(phase, r0, r1):
    """Decode a strategy's raw answer in ``phase``: the one decoder of answers, which every
    loop calls.  ``r0`` is what the phase's decision returned (``discard_nb``: the card;
    ``knock_nb``, ``take_nb``: true or false; ``arrange_nb``, ``defend_nb``: the set mask,
    ``r1`` the run mask).

    Returns ``(action, x, y)``: an action of ``simulator.core.state`` (``x`` holds the card of
    a discard; the best defence, ``(DEFEND_BEST, _)``, is ``A_DEFEND_BEST``, the defence without
    layoffs, ``(DEFEND_NO_LAYOFFS, _)``, ``A_DEFEND_NO_LAYOFFS``); ``ANSWER_LAYOUT``
    with the knocker's set and run masks in ``x``, ``y``; ``ANSWER_DEFENCE`` with the
    defender's; or ``ANSWER_NOT_A_CARD`` with the discard in ``x`` when it is no card code
    at all (a shift by 64 or more, or a negative one, is undefined).  ``play_answer_nb``
    plays it."""
    zero = np.int64(0)
    if phase == PHASE_DISCARD:
        if r0 < 0 or r0 > 63:
            return np.int64(ANSWER_NOT_A_CARD), r0, zero
        return A_DISCARD + r0, r0, zero
    if phase == PHASE_KNOCK:
        return (np.int64(A_KNOCK) if r0 != 0 else np.int64(A_NO_KNOCK)), zero, zero
    if phase == PHASE_ARRANGE:
        return np.int64(ANSWER_LAYOUT), r0, r1
    if phase == PHASE_DEFEND:
        if r0 == DEFEND_BEST:
            return np.int64(A_DEFEND_BEST), zero, zero
        if r0 == DEFEND_NO_LAYOFFS:
            return np.int64(A_DEFEND_NO_LAYOFFS), zero, zero
        return np.int64(ANSWER_DEFENCE), r0, r1
    # the first upcard, a draw, the last discard
    if r0 != 0:
        return np.int64(A_TAKE_PILE), zero, zero
    if phase == PHASE_DRAW:
        return np.int64(A_DRAW_STOCK), zero, zero
    return np.int64(A_PASS), zero, zero


@MERGED
def ask_nb(phase, sid, params, view, pile, rules, rng, memory):
    """Ask strategy ``sid`` the decision of ``phase`` (``strategies.dispatch``; the view
    already filled) and return its raw answer ``(r0, r1)`` for ``answer_nb``.  Merged into
    its caller (``inline='always'``), as the dispatch is, so a loop's decisions call the
    strategies directly."""
    zero = np.int64(0)
    if phase == PHASE_DISCARD:
        return np.int64(dispatch.discard_nb(sid, params, view, pile, rules, rng, memory)), zero
    if phase == PHASE_KNOCK:
        return np.int64(dispatch.knock_nb(sid, params, view, pile, rules, rng, memory)), zero
    if phase == PHASE_ARRANGE:
        sets, runs = dispatch.arrange_nb(sid, params, view, pile, rules, rng, memory)
        return np.int64(sets), np.int64(runs)
    if phase == PHASE_DEFEND:
        sets, runs = dispatch.defend_nb(sid, params, view, pile, rules, rng, memory)
        return np.int64(sets), np.int64(runs)
    return np.int64(dispatch.take_nb(sid, params, view, pile, rules, rng, memory)), zero


@MERGED
def play_answer_nb(state, rules, action, x, y, trace):
    """Play an answer decoded by ``answer_nb``: the one function that applies strategies'
    answers, which every loop calls, merged into each (``inline='always'``: its own library
    would only hold a copy of the rules core below it).  A layout goes to ``lay_out_nb`` and
    a defence to ``defend_nb`` (both check the masks), the best defence and the defence
    without layoffs to ``defend_nb``, a discard that is no card is ``ERR_ILLEGAL_DISCARD``,
    any other action to ``play_nb``.  Returns
    ``(error, value)``: the value an error records (the melds' card mask, the card)."""
    if action == ANSWER_LAYOUT:
        return lay_out_nb(state, rules, x, y, trace), x | y
    if action == ANSWER_DEFENCE:
        return defend_nb(state, rules, x, y, trace), x | y
    if action == A_DEFEND_BEST:  # (``play_nb`` plays no defence)
        return defend_nb(state, rules, np.int64(DEFEND_BEST), np.int64(0), trace), x
    if action == A_DEFEND_NO_LAYOFFS:
        return defend_nb(state, rules, np.int64(DEFEND_NO_LAYOFFS), np.int64(0), trace), x
    if action == ANSWER_NOT_A_CARD:
        return np.int64(ERR_ILLEGAL_DISCARD), x
    return play_nb(state, rules, action, trace), x


@MERGED
def decide_nb(state, sid, params, view, pile, rules, rng, memory):
    """Ask the strategy ``sid`` of the seat to act for its answer in ``state``, after
    filling that seat's ``view``, decoded by ``answer_nb``; the other arguments are the
    arrays lent to it (``pile``: its copy of the discard pile).  The one way every loop
    asks a seat (``play_hand_nb``, ``advance_nb``, ``hand_decide_nb``); merged into each
    (``inline='always'``)."""
    fill_view_nb(state, state[S_CURRENT], view)
    phase = state[S_PHASE]
    r0, r1 = ask_nb(phase, sid, params, view, pile, rules, rng, memory)
    return answer_nb(phase, r0, r1)


@HOT
def record_nb(state, out):
    """Fill the play columns of the hand record ``out`` from ``state`` (a hand stopped by
    an error before its end records a dead outcome and no knocker)."""
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


@CORE
def new_hand_nb(state, deck, dealer, score0, score1, rules, deck_rng, memory, trace):
    """Deal a hand into ``state`` (``simulator.core.state.deal_nb``) and zero the strategies'
    memories."""
    for seat in range(2):
        for i in range(memory.shape[1]):
            memory[seat, i] = 0
    deal_nb(state, deck, dealer, score0, score1, rules, np.int64(deck_rng[0]), trace)


@CORE
def play_hand_nb(state, sids, params, rules, seat_params, seat_rules, player_rngs, scratch, memory,
                 out, trace):
    """Play the hand in ``state`` to its end, from wherever it stands (a fresh deal:
    ``new_hand_nb``, or a copy taken mid-hand), with the strategies ``sids``, filling the
    play and error columns of the hand record ``out``.

    ``params``/``rules`` are the engine's; ``seat_params[seat]`` and ``seat_rules[seat]``
    the copies lent to each seat (equal to them on entry); ``player_rngs[seat]`` and
    ``memory[seat]`` each strategy's random stream and memory; ``scratch``
    (``SCRATCH_LEN``) holds the view and each seat's copy of the pile, filled here from
    the state.  ``trace`` (n × 3, may have 0 rows) receives the events.  Returns the
    number of trace events.  The kernels that play hands (``play_deal_block_nb``,
    ``play_game_block_nb``, ``play_out_nb``) call it compiled without reference counting
    (profile ``CORE``), on work arrays their callers allocate (``block_work``), so passing
    it its arrays counts no references.
    """
    # what each seat's strategy is given, bound once per hand
    pile0 = scratch[W_SEAT_PILES:W_SEAT_PILES + 64]
    pile1 = scratch[W_SEAT_PILES + 64:W_SEAT_PILES + 128]
    view = scratch[W_VIEW:W_VIEW + N_VIEW]
    sid0, sid1 = sids[0], sids[1]
    params0, params1 = seat_params[0], seat_params[1]
    rules0, rules1 = seat_rules[0], seat_rules[1]
    rng0, rng1 = player_rngs[0], player_rngs[1]
    memory0, memory1 = memory[0], memory[1]
    for i in range(state[S_PILE_LEN]):
        card = state[S_PILE + i]
        pile0[i] = card
        pile1[i] = card
    out[H_ERROR] = ERR_NONE
    out[H_ERROR_SEAT] = -1
    out[H_ERROR_VALUE] = 0
    while state[S_PHASE] != PHASE_OVER:
        # ask the seat to act, with the arrays bound above for its seat (one call: the
        # dispatch it merges is compiled once per decision kind, not once per seat)
        seat = state[S_CURRENT]
        if seat == 0:
            sid, own_params, pile, own_rules, rng, own_memory = sid0, params0, pile0, rules0, rng0, memory0
        else:
            sid, own_params, pile, own_rules, rng, own_memory = sid1, params1, pile1, rules1, rng1, memory1
        action, x, y = decide_nb(state, sid, own_params, view, pile, own_rules, rng, own_memory)
        if action == A_TAKE_PILE:
            # a strategy may have written into this slot of its copy; once the slot
            # leaves the live pile the end-of-hand check could no longer see it
            top = state[S_PILE_LEN] - 1
            card = state[S_PILE + top]
            if pile0[top] != card or pile1[top] != card:
                out[H_ERROR] = ERR_WROTE_PILE
                out[H_ERROR_SEAT] = 0 if pile0[top] != card else 1
                out[H_ERROR_VALUE] = top
                break
        elif state[S_STOCK_N] == state[S_STOCK_POS] and reshuffle_next_nb(state, rules, action):
            # the pile copies are about to be rebuilt: check what was lent first
            _guard_nb(state, pile0, pile1, params, seat_params, rules, seat_rules, out)
            if out[H_ERROR] != ERR_NONE:
                break
        reshuffles = state[S_RESHUFFLES]
        err, value = play_answer_nb(state, rules, action, x, y, trace)
        if err != ERR_NONE:
            out[H_ERROR] = err
            out[H_ERROR_SEAT] = seat
            out[H_ERROR_VALUE] = value
            break
        if state[S_RESHUFFLES] != reshuffles:  # the pile is now its old top card
            top_card = state[S_PILE]
            pile0[0] = top_card
            pile1[0] = top_card
        elif 0 <= action < A_DRAW_STOCK:  # a discard: push it onto the copies
            n = state[S_PILE_LEN] - 1
            pile0[n] = x
            pile1[n] = x
    _guard_nb(state, pile0, pile1, params, seat_params, rules, seat_rules, out)
    if out[H_ERROR] != ERR_NONE and trace.shape[0] > 0:
        # an error found at the end takes the place of the dead hand's last event
        n = state[S_NTRACE]
        if state[S_PHASE] == PHASE_OVER and state[S_OUTCOME] == OUT_DEAD and 0 < n <= trace.shape[0]:
            if trace[n - 1, 1] == EV_DEAD:
                state[S_NTRACE] = n - 1
    record_nb(state, out)
    return state[S_NTRACE]


@CORE
def play_out_nb(state, rules, sids, params, seat_params, seat_rules, player_rngs, memory, scratch,
                out, trace):
    """Play ``state`` to the end of its hand, from wherever it stands (a fresh deal or a
    copy taken mid-hand: a rollout), with the strategies ``sids``; fills the play and error
    columns of the hand record ``out`` and returns the number of trace events.  Arguments
    as for ``play_hand_nb``; the strategies' memories and streams are used as they are."""
    return play_hand_nb(state, sids, params, rules, seat_params, seat_rules, player_rngs, scratch, memory,
                        out, trace)


def work_len(n_rules: int) -> int:
    return K_SEAT_RULES + 2 * n_rules


@PLAIN
def hand_decide_nb(work, sid, params, own_params, rules, legal):
    """The action strategy ``sid`` (parameters ``params``; ``own_params`` is the copy it is
    lent) chooses for the seat to act in the hand kept in ``work`` (``K_*`` slots:
    ``simulator.engine.hand.Hand``), asked as the batch engine asks it: the seat's view,
    random stream and memory (both advance), and copies of the pile and rules, checked
    afterwards (``check_lent_nb``).  The answer becomes an action code: a layout or a
    defence (masks) its ``A_ARRANGE + k`` / ``A_DEFEND + k``; any other answer must be
    one of the phase's legal actions (``legal``: room for ``MAX_LEGAL``).

    Returns ``(action, err, value)``: ``err`` is ``ERR_NONE``, ``ERR_WROTE_*`` (``value``:
    the slot), ``ERR_BAD_MELDS`` (``value``: the melds' card mask), ``ERR_ILLEGAL_DISCARD``
    (a discard that is no card code; ``value``: it) or ``ERR_ILLEGAL_ACTION`` (``value``:
    the action).  Nothing is played."""
    state = work[K_STATE:K_STATE + N_STATE]
    seat = state[S_CURRENT]
    n_rules = rules.shape[0]
    start = K_SCRATCH + W_SEAT_PILES + 64 * seat
    pile = work[start:start + 64]
    for i in range(state[S_PILE_LEN]):
        pile[i] = state[S_PILE + i]
    own_rules = work[K_SEAT_RULES + seat * n_rules:K_SEAT_RULES + (seat + 1) * n_rules]
    view = work[K_SCRATCH + W_VIEW:K_SCRATCH + W_VIEW + N_VIEW]
    rngs = work[K_RNGS:K_RNGS + 2].view(np.uint64)
    memory = work[K_MEMORY + seat * N_MEMORY:K_MEMORY + (seat + 1) * N_MEMORY]
    action, x, y = decide_nb(state, sid, own_params, view, pile, own_rules, rngs[seat:seat + 1], memory)
    err, slot = check_lent_nb(state, pile, rules, own_rules, params, own_params)
    if err != ERR_NONE:
        return action, err, slot
    if action == ANSWER_LAYOUT or action == ANSWER_DEFENCE:
        melder = state[S_KNOCKER] if action == ANSWER_LAYOUT else 1 - state[S_KNOCKER]
        k = arrangement_index_nb(state[S_HANDS + melder], x, y)
        if k < 0:
            return action, np.int64(ERR_BAD_MELDS), x | y
        return (A_ARRANGE if action == ANSWER_LAYOUT else A_DEFEND) + k, np.int64(ERR_NONE), np.int64(0)
    if action == ANSWER_NOT_A_CARD:
        return action, np.int64(ERR_ILLEGAL_DISCARD), x
    n = legal_actions_nb(state, rules, legal)
    for i in range(n):
        if legal[i] == action:
            return action, np.int64(ERR_NONE), np.int64(0)
    return action, np.int64(ERR_ILLEGAL_ACTION), action


@PLAIN
def advance_nb(work, fparams, rules, action, out):
    """Move a hand on for a driver written in Python (``simulator.engine.pydriver``).

    ``work`` holds the state and the numba seats' companions (``K_*`` slots), ``fparams``
    (4 × params) the strategies' parameter rows by seat, then the copies lent to them.
    Plays ``action`` (a Python strategy's move, checked legal by the caller; -1 for none),
    then lets the numba strategies play (asked as ``play_hand_nb`` asks them) until a seat
    played in Python must decide or the hand is over.  Returns the phase reached times 2
    plus the seat to act (``2 * PHASE_OVER`` at the end: one number, so the caller reads
    nothing else from the state), or -1 when a numba strategy erred: its error is in
    ``out``'s error columns and the hand stops there.  Each numba seat gets a fresh copy
    of the live pile per decision, checked afterwards with its rule and parameter copies
    (``ERR_WROTE_*``, the copy restored)."""
    state = work[K_STATE:K_STATE + N_STATE]
    trace = np.zeros((0, 3), np.int64)
    n_rules = rules.shape[0]
    if action >= 0:
        err = apply_action_nb(state, rules, action, trace)
        if err != ERR_NONE:
            out[H_ERROR] = err
            out[H_ERROR_SEAT] = state[S_CURRENT]
            out[H_ERROR_VALUE] = action
            return np.int64(-1)
    view = work[K_SCRATCH + W_VIEW:K_SCRATCH + W_VIEW + N_VIEW]
    rngs = work[K_RNGS:K_RNGS + 2].view(np.uint64)
    while state[S_PHASE] != PHASE_OVER:
        seat = state[S_CURRENT]
        if work[K_PYTHON + seat] != 0:
            return state[S_PHASE] * 2 + seat
        start = K_SCRATCH + W_SEAT_PILES + 64 * seat
        pile = work[start:start + 64]
        n = state[S_PILE_LEN]
        for i in range(n):
            pile[i] = state[S_PILE + i]
        own_params = fparams[2 + seat]
        own_rules = work[K_SEAT_RULES + seat * n_rules:K_SEAT_RULES + (seat + 1) * n_rules]
        memory = work[K_MEMORY + seat * N_MEMORY:K_MEMORY + (seat + 1) * N_MEMORY]
        action, x, y = decide_nb(state, work[K_SIDS + seat], own_params, view, pile, own_rules,
                                 rngs[seat:seat + 1], memory)
        err, value = check_lent_nb(state, pile, rules, own_rules, fparams[seat], own_params)
        if err == ERR_NONE:
            err, value = play_answer_nb(state, rules, action, x, y, trace)
        if err != ERR_NONE:
            out[H_ERROR] = err
            out[H_ERROR_SEAT] = seat
            out[H_ERROR_VALUE] = value
            return np.int64(-1)
    return np.int64(PHASE_OVER * 2)


def block_work(rules, params_ab) -> tuple:
    """The work arrays of one block of deals or games (``play_deal_block_nb``,
    ``play_game_block_nb``), allocated by their caller once per block: the state, scratch,
    the two seats' memory, the deck and its stream, the players' streams, per seat its
    strategy id, parameters and the strategies' copies of parameters and rules, the game
    scores before a single deal (0, 0) and a game's hand record."""
    width = params_ab.shape[1]
    return (np.zeros(N_STATE, np.int64), np.zeros(SCRATCH_LEN, np.int64), np.zeros((2, N_MEMORY), np.int64),
            np.empty(52, np.int64), np.zeros(1, np.uint64), np.zeros((2, 1), np.uint64), np.empty(2, np.int64),
            np.empty((2, width), np.float64), np.empty((2, width), np.float64),
            np.empty((2, rules.shape[0]), np.int64), np.zeros(2, np.int64), np.zeros(N_HAND_COLS, np.int64))


@KERNEL
def play_deal_block_nb(seed, first_deal, start, stop, mirrored, rules, sids_ab, params_ab, out,
                       trace, work):
    """Play deals ``first_deal + start .. first_deal + stop - 1`` as independent hands into
    ``out[start:stop]``, with the block's work arrays ``work`` (``block_work``).

    Deal d belongs to pair ``d // 2`` when ``mirrored`` (both deals of a pair use the same
    deck and dealer seat, with the strategies' seats swapped: A sits in seat ``d % 2``),
    else pair ``d`` with A's seat drawn at random.  ``sids_ab``/``params_ab`` hold strategy
    A then B.  ``trace`` (n × 3), when it has rows, records the block's first deal.
    """
    (state, scratch, memory, deck, deck_rng, player_rngs, sids, params, seat_params, seat_rules, scores,
     _) = work
    for i in range(rules.shape[0]):
        seat_rules[0, i] = rules[i]
        seat_rules[1, i] = rules[i]
    nt = np.int64(0)
    for i in range(start, stop):
        deal = first_deal + i
        pair, dealer, a_seat = deal_streams_nb(seed, deal, mirrored, deck, deck_rng, player_rngs)  # (core.rng)
        for seat in range(2):
            who = 0 if seat == a_seat else 1
            sids[seat] = sids_ab[who]
            for k in range(params_ab.shape[1]):  # (loops: slice assignment compiles slowly)
                params[seat, k] = params_ab[who, k]
                seat_params[seat, k] = params_ab[who, k]
        row = out[i]
        row[H_DEAL] = deal
        row[H_PAIR] = pair
        row[H_A_SEAT] = a_seat
        row[H_GAME] = -1
        row[H_HAND_IN_GAME] = -1
        tr = trace if i == start else trace[:0]
        new_hand_nb(state, deck, dealer, scores[0], scores[1], rules, deck_rng, memory, tr)
        n = play_hand_nb(state, sids, params, rules, seat_params, seat_rules, player_rngs, scratch, memory,
                         row, tr)
        if i == start:
            nt = n
    return nt


#: a game counts as this many items when a batch is cut into blocks (about its hands)
GAME_ITEMS = 4


def _builtin_only(sids_ab) -> bool:
    """True when both strategies are built-ins (ids below ``len(BUILTIN)``): their kernels
    always return, so a one-thread call may run in the calling thread."""
    return bool(0 <= min(sids_ab) and max(sids_ab) < len(BUILTIN))


def play_deals(seed, first_deal, n_deals, mirrored, rules, sids_ab, params_ab, out, threads=None):
    """The batch entry point for single deals: ``out`` (n_deals × N_HAND_COLS) gets deals
    ``first_deal ..``, blocks of deals (``play_deal_block_nb``) on ``threads`` threads
    (default: numba's thread count)."""
    no_trace = np.zeros((0, 3), np.int64)
    seed = np.uint64(seed)
    threads, n_blocks = call_plan(n_deals, threads)
    run_blocks(lambda start, stop: play_deal_block_nb(seed, first_deal, start, stop, mirrored, rules, sids_ab,
                                                       params_ab, out, no_trace, block_work(rules, params_ab)),
               n_deals, threads, n_blocks,
               inline=_builtin_only(sids_ab))


@MERGED
def play_game_nb(seed, game, mirrored, rules, sids_ab, params_ab, game_out, hand_out, work, trace):
    """Play one whole game and fill ``game_out``; hand rows go to ``hand_out`` while it
    has room (pass a 0-row array to skip them).  Returns the number of hands played.
    ``work`` holds the work arrays (``block_work``), filled here; ``trace`` (n × 3, may
    have 0 rows) receives the events of the game's first hand.  Merged into its one
    caller, ``play_game_block_nb`` (``inline='always'``), which saves a library that would
    link the hand loop's machine code once more.  Hands chain through
    ``simulator.core.scoring.end_of_hand_nb`` (scores, boxes, the target, the next dealer,
    the final totals) until the game is over, at the latest after ``MAX_HANDS_PER_GAME``
    hands (a guard only pathological strategies reach)."""
    (state, scratch, memory, deck, deck_rng, player_rngs, sids, params, seat_params, seat_rules, _,
     row) = work
    pair, first_dealer, a_seat = game_start_nb(seed, game, mirrored, deck_rng)  # (simulator.core.rng)
    for seat in range(2):
        who = 0 if seat == a_seat else 1
        sids[seat] = sids_ab[who]
        for k in range(params_ab.shape[1]):  # (loops: slice assignment compiles slowly)
            params[seat, k] = params_ab[who, k]
            seat_params[seat, k] = params_ab[who, k]
        for i in range(rules.shape[0]):
            seat_rules[seat, i] = rules[i]
    new_game_nb(game_out, game, pair, a_seat, first_dealer)
    scores = game_out[G_POINTS0:G_POINTS0 + 2]  # each seat's points so far (G_POINTS0, G_POINTS1)
    for k in range(N_HAND_COLS):
        row[k] = 0
    dealer = first_dealer
    max_hands = np.int64(MAX_HANDS_PER_GAME)
    while dealer >= 0:
        hands = game_out[G_HANDS]
        game_hand_streams_nb(seed, game, pair, hands, a_seat, deck, deck_rng, player_rngs)
        row[H_DEAL] = hands
        row[H_PAIR] = pair
        row[H_A_SEAT] = a_seat
        row[H_GAME] = game
        row[H_HAND_IN_GAME] = hands
        tr = trace if hands == 0 else trace[:0]
        new_hand_nb(state, deck, dealer, scores[0], scores[1], rules, deck_rng, memory, tr)
        play_hand_nb(state, sids, params, rules, seat_params, seat_rules, player_rngs, scratch, memory, row, tr)
        if hands < hand_out.shape[0]:
            for k in range(N_HAND_COLS):
                hand_out[hands, k] = row[k]
        dealer = end_of_hand_nb(game_out, row, max_hands, rules)
    return game_out[G_HANDS]


@KERNEL
def play_game_block_nb(seed, first_game, start, stop, mirrored, rules, sids_ab, params_ab, game_out,
                       hand_out, hand_offsets, trace, work):
    """Play games ``first_game + start .. first_game + stop - 1`` into ``game_out[start:stop]``
    (``game_out`` is n_games × N_GAME_COLS), with the block's work arrays ``work``
    (``block_work``).  When ``hand_offsets`` has n_games + 1 entries, the hands of game i
    are written to ``hand_out[hand_offsets[i]:hand_offsets[i + 1]]`` (count them in a
    first pass).  ``trace`` (n × 3), when it has rows, records the first hand of the
    block's first game."""
    with_hands = hand_offsets.shape[0] == game_out.shape[0] + 1
    for i in range(start, stop):
        if with_hands:
            hands = hand_out[hand_offsets[i]:hand_offsets[i + 1]]
        else:
            hands = hand_out[:0]
        tr = trace if i == start else trace[:0]
        play_game_nb(seed, first_game + i, mirrored, rules, sids_ab, params_ab, game_out[i], hands, work, tr)


def play_games(seed, first_game, n_games, mirrored, rules, sids_ab, params_ab, game_out, hand_out,
               hand_offsets, threads=None):
    """The batch entry point for whole games ``first_game ..``: blocks of games
    (``play_game_block_nb``) on ``threads`` threads (default: numba's thread count)."""
    seed = np.uint64(seed)
    no_trace = np.zeros((0, 3), np.int64)
    threads, n_blocks = call_plan(n_games * GAME_ITEMS, threads, MIN_BLOCK_ITEMS * GAME_ITEMS)
    run_blocks(lambda start, stop: play_game_block_nb(seed, first_game, start, stop, mirrored, rules, sids_ab,
                                                       params_ab, game_out, hand_out, hand_offsets, no_trace,
                                                       block_work(rules, params_ab)),
                n_games, threads, min(n_blocks, n_games), inline=_builtin_only(sids_ab))
