"""The one loop: strategies playing a hand held in a work row, until a stopping condition.

``run_until_nb(work, rules, stop, out, trace)`` plays the hand of a work row
(``simulator.engine.work``) from wherever it stands: while the hand is not over and
``stop`` does not name the seat to act in the phase it is in, it asks that seat's strategy
and plays its answer.  Every driver that lets strategies play calls it: the batch kernels
(to the end of the hand), the Python driver (until a seat played in Python must decide),
the vector environment's opponent (until the agent must decide), the belief study (until
a draw), ``simulator.api.play_deck``.  ``stop`` is a bit set of (phase, seat): ``stop_at``
makes one, ``STOP_AT_END`` (0) plays to the end.

Its steps, each one function that every loop uses:

* ``ask_nb``: fill the view of the seat to act (``simulator.core.view_fill.fill_view_nb``), then
  ask its strategy the phase's decision through the generated dispatch's ``answer_nb``
  (``strategies.dispatch``), its raw answer decoded by the decoder of the decision's kind
  (``simulator.core.answers``; a caller holding a raw answer uses ``decode_nb``, with the
  same decoders);
* ``play_answer_nb``: play a decoded answer (``simulator.core.state.play_nb``; the
  knocker's melds through ``lay_out_nb`` and the defender's through ``defend_nb``, which
  check them);
* ``check_lent_nb`` and ``guard_nb``: the check of the copies lent to the strategies;
  ``check_spare_nb`` the check of a plug-in's memory.

``ask_seat_nb`` asks one decision of a given strategy without playing it, as the step API
does (``simulator.Hand.bot_action``, ``strategy_action``).

**Strategies never hold the engine's arrays.**  Each seat's strategy gets its own copy of
the discard pile (kept in the work row, updated on every push and rebuilt on a reshuffle),
its own copy of the rule vector and its own parameter row; the engine plays from the
state's pile and its own rules only.  When a card is taken from the pile, before a
reshuffle, where the loop stops and at the end of every hand the engine checks that every
seat's copies (the pile's live part, the rules, the parameters) still equal its own; if a
strategy wrote into one, the hand stops with ``ERR_WROTE_PILE``, ``ERR_WROTE_RULES`` or
``ERR_WROTE_PARAMS`` against that seat (and the copy is restored).  The view is refilled
before every decision, and memory and random stream are the strategy's own, so those may
be written.  Each seat's memory is followed by a spare row that stays 0
(``simulator.engine.work.spare_of``), so a strategy writing past the end of its memory
never reaches the other seat's; in engines that route a plug-in (``GUARD_MEMORY``) the loop
checks it after every call (``check_spare_nb``) and stops the hand with
``ERR_WROTE_MEMORY``, the slot past the end as the value.  Every error records the seat
that caused it (``H_ERROR_SEAT``) and the offending value (``H_ERROR_VALUE``: the returned
card, the melds' card mask, or the slot written).

This module is a template of ``simulator.engine.factory``: ``simulator.engine.select``
compiles copies of it (and of ``simulator.engine.kernels``, which plays with it) whose
``dispatch`` routes only the strategies a process plays, or plug-ins.
"""

from __future__ import annotations

import numpy as np

from strategies import dispatch as builtin_dispatch
from strategies.view import DEFEND_BEST, DEFEND_NO_LAYOFFS

from ..core.constants import (
    A_ARRANGE,
    A_DEFEND,
    A_DEFEND_BEST,
    A_DEFEND_NO_LAYOFFS,
    A_DISCARD,
    A_DRAW_STOCK,
    A_TAKE_PILE,
    ERR_BAD_MELDS,
    ERR_ILLEGAL_ACTION,
    ERR_ILLEGAL_DISCARD,
    ERR_NONE,
    ERR_WROTE_MEMORY,
    ERR_WROTE_PARAMS,
    ERR_WROTE_PILE,
    ERR_WROTE_RULES,
    EV_DEAD,
    H_ERROR,
    H_ERROR_SEAT,
    H_ERROR_VALUE,
    K_RNGS,
    K_SCRATCH,
    K_SIDS,
    K_STATE,
    N_STATE,
    OUT_DEAD,
    PHASE_OVER,
    S_CURRENT,
    S_KNOCKER,
    S_HANDS,
    S_NTRACE,
    S_OUTCOME,
    S_PHASE,
    S_PILE,
    S_PILE_LEN,
    S_RESHUFFLES,
    S_STOCK_N,
    S_STOCK_POS,
    W_SEAT_PILES,
    W_VIEW,
    N_MEMORY,
    N_VIEW,
)
from ..core.answers import (  # noqa: F401  (ANSWER_*: what ``decode_nb`` returns besides actions)
    ANSWER_DEFENCE,
    ANSWER_LAYOUT,
    ANSWER_NOT_A_CARD,
    decode_card_nb,
    decode_defence_nb,
    decode_melds_nb,
    decode_yes_no_nb,
)
from ..core.decisions import BY_PHASE, KINDS
from ..core.melds import arrangement_index_nb
from ..core.state import (
    apply_action_nb,
    defend_nb,
    lay_out_nb,
    legal_actions_nb,
    play_nb,
    reshuffle_next_nb,
)
from ..core.view_fill import fill_view_nb
from .work import fields_nb, memory_of, param_rows_of, record_nb, rows_at, spare_of, state_of
from ..infra.jit import CORE, HOT, MERGED
from ..infra.words import as_float64_nb, as_uint64_nb
from .factory import bound

#: the dispatch this loop asks: the built-ins' (``strategies.dispatch``) here, the one an engine
#: routes in a copy rendered by ``simulator.engine.factory``
dispatch = bound(globals(), "dispatch", builtin_dispatch)

#: ``run_until_nb``'s ``stop`` that plays to the end of the hand
STOP_AT_END = 0
#: whether the loop checks the spare row after each seat's memory after every call
#: (``check_spare_nb``): true where the dispatch routes a plug-in, a compile-time constant,
#: so the engines of built-in strategies only compile no check at all
GUARD_MEMORY = dispatch.GUARD_MEMORY


def stop_at(seats=(0, 1), phases=None) -> int:
    """The ``stop`` of ``run_until_nb`` that stops before each of ``seats`` decides in each of
    ``phases`` (phase codes; default every decision point)."""
    phases = range(PHASE_OVER) if phases is None else phases
    return sum(1 << (2 * int(p) + int(s)) for p in phases for s in seats)


#: each decision point's decision (``simulator.core.decisions``), by phase code, as arrays
#: ``decode_nb`` reads: the kind of its answer (its index in ``KINDS``) and the actions a yes
#: and a no mean
_KIND = np.array([KINDS.index(BY_PHASE[p].kind) for p in range(PHASE_OVER)], np.int64)
_YES = np.array([BY_PHASE[p].yes for p in range(PHASE_OVER)], np.int64)
_NO = np.array([BY_PHASE[p].no for p in range(PHASE_OVER)], np.int64)
_YES_NO, _CARD, _MELDS = (KINDS.index(k) for k in ("yes_no", "card", "melds"))


@HOT
def decode_nb(phase, r0, r1):
    """Decode a strategy's raw answer ``(r0, r1)`` in ``phase`` by the kind of its decision
    (``simulator.core.decisions``), with the decoders of ``simulator.core.answers``: for a
    caller that holds a raw answer (a yes or no: true or false; a card: its code; melds or a
    defence: the two masks, or ``DEFEND_BEST``/``DEFEND_NO_LAYOFFS``).  The loop's own asking
    (``ask_nb``) decodes through the generated dispatch, with the same decoders."""
    kind = _KIND[phase]
    if kind == _CARD:
        return decode_card_nb(r0)
    if kind == _YES_NO:
        return decode_yes_no_nb(r0, _YES[phase], _NO[phase])
    if kind == _MELDS:
        return decode_melds_nb(r0, r1)
    return decode_defence_nb(r0, r1)


@MERGED
def ask_nb(state, sid, params, view, pile, rules, rng, memory):
    """Ask strategy ``sid`` of the seat to act for its answer in ``state``: fill that seat's
    ``view`` (``fill_view_nb``), then the generated dispatch's ``answer_nb`` calls the
    phase's strategy function of the table of decisions (``simulator.core.decisions``) and
    decodes its answer (``simulator.core.answers``).  The one way a seat is asked
    (``run_until_nb`` fills the view before it looks at ``stop``, then asks the dispatch the
    same way).  Merged into each loop, as the dispatch is, so a loop's decisions call the
    strategies directly."""
    fill_view_nb(state, state[S_CURRENT], view)
    return dispatch.answer_nb(state[S_PHASE], sid, params, view, pile, rules, rng, memory)


@MERGED
def play_answer_nb(state, rules, action, x, y, trace):
    """Play an answer decoded by ``decode_nb``: the one function that applies strategies'
    answers, merged into every loop (its own library would only hold a copy of the rules
    core below it).  A layout goes to ``lay_out_nb`` and a defence to ``defend_nb`` (both
    check the masks), the best defence and the defence without layoffs to ``defend_nb``, a
    discard that is no card is ``ERR_ILLEGAL_DISCARD``, any other action to ``play_nb``.
    Returns ``(error, value)``: the value an error records (the melds' card mask, the card)."""
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


@CORE
def check_lent_nb(state, pile, rules, own_rules, params, own_params):
    """Check the copies one strategy was lent for one decision: its pile copy (live part)
    against the state's pile, its rule copy against ``rules`` and its parameter row against
    ``params``.  Returns ``(ERR_NONE, 0)``, or the first ``ERR_WROTE_*`` found (pile, then
    rules, then parameters) and the slot written; the rule and parameter copies are
    restored either way.  (``guard_nb`` first checks both seats at once, and calls this
    when something differs.)"""
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
def check_spare_nb(work, seat):
    """The first slot past the end of seat ``seat``'s memory its strategy wrote
    (``N_MEMORY + i``, in its spare row: ``simulator.engine.work.spare_of``), or -1; the
    spare row is zeroed again either way."""
    spare = spare_of(work, seat)
    slot = np.int64(-1)
    for i in range(N_MEMORY):
        if spare[i] != 0:
            if slot < 0:
                slot = np.int64(N_MEMORY + i)
            spare[i] = 0
    return slot


@CORE
def guard_nb(work, rules, out):
    """Check what the strategies of the work row ``work`` were lent: each seat's pile copy
    (live part), rule copy and parameter row must still equal the engine's (the state's
    pile, ``rules``, the row's parameter rows), compared slot by slot as the row's int64
    words in one branch-free pass in the common case.  A difference is looked up seat by
    seat with ``check_lent_nb``, which restores the rule and parameter copies so later hands
    start clean; it stops the hand with ``ERR_WROTE_*`` in ``out`` against seat 0's first
    write, else seat 1's (unless a write was reported already).  A parameter copy whose
    bits differ but whose value is equal (another NaN, -0.0 for 0.0) is no error, as
    ``check_lent_nb`` compares values; it is restored all the same."""
    state = state_of(work)
    rules_at, params_at, lent_at, n_rules, width = rows_at(work)
    piles = K_SCRATCH + W_SEAT_PILES
    acc = np.int64(0)
    for i in range(state[S_PILE_LEN]):
        card = state[S_PILE + i]
        acc |= (work[piles + i] ^ card) | (work[piles + 64 + i] ^ card)
    for i in range(n_rules):
        acc |= (work[rules_at + i] ^ rules[i]) | (work[rules_at + n_rules + i] ^ rules[i])
    for i in range(2 * width):  # both seats' parameter rows against their lent copies, bit for bit
        acc |= work[params_at + i] ^ work[lent_at + i]
    if acc == 0:
        return
    # something was written: find the seat and slot, and restore the copies (rare)
    rows = param_rows_of(work)
    err0, slot0 = check_lent_nb(state, work[piles:piles + 64], rules, work[rules_at:rules_at + n_rules],
                                rows[:width], rows[2 * width:3 * width])
    err1, slot1 = check_lent_nb(state, work[piles + 64:piles + 128], rules,
                                work[rules_at + n_rules:rules_at + 2 * n_rules], rows[width:2 * width], rows[3 * width:])
    for i in range(2 * width):
        work[lent_at + i] = work[params_at + i]
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


@CORE
def run_until_nb(work, rules, stop, out, trace):
    """Play the hand of the work row ``work`` from wherever it stands (a fresh deal, a hand a
    driver stepped, a copy taken mid-hand) with the strategies seated in it, until the hand
    is over or the seat to act, in the phase it is in, is one ``stop`` names (bit
    ``2 * phase + seat``: ``stop_at``; ``STOP_AT_END`` plays to the end).  Fills the error
    columns of the hand row ``out``, and its play columns once the hand is over or stopped
    by an error (``record_nb``); ``trace`` (n × 3, may have 0 rows) receives the events.
    Where it stops for a seat, the row's view holds what that seat sees (``fill_view_nb``).

    ``rules`` is the engine's rule vector; each seat's copies of it and of its parameter row
    (equal to the engine's on entry) are in the row, with each seat's random stream and
    memory, and its pile copy, rebuilt here from the state.  Returns the phase reached times
    2 plus the seat to act, ``2 * PHASE_OVER`` once the hand is over, or -1 when a strategy
    erred (the error is in ``out`` and the hand stops there).  Compiled without reference
    counting, so its callers pass it the row for nothing."""
    state = state_of(work)
    rules_at, _, lent_at, n_rules, width = rows_at(work)
    piles = K_SCRATCH + W_SEAT_PILES
    # what each seat's strategy is given, bound once per call: only the blocks the loop
    # lends (``fields_nb`` would make every block's view, the deck's and the record's too),
    # sliced here rather than through the row's accessors, which compiled to a slower loop
    pile0, pile1, view = work[piles:piles + 64], work[piles + 64:piles + 128], work[K_SCRATCH + W_VIEW:K_SCRATCH + W_VIEW + N_VIEW]
    sid0, sid1 = work[K_SIDS], work[K_SIDS + 1]
    lent = as_float64_nb(work[lent_at:lent_at + 2 * width])
    lent0, lent1 = lent[:width], lent[width:]
    rules0, rules1 = work[rules_at:rules_at + n_rules], work[rules_at + n_rules:rules_at + 2 * n_rules]
    rngs = as_uint64_nb(work[K_RNGS:K_RNGS + 2])
    rng0, rng1 = rngs[0:1], rngs[1:2]
    memory0, memory1 = memory_of(work, 0), memory_of(work, 1)
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
        fill_view_nb(state, seat, view)  # what the seat to act sees: for its strategy, or the driver that asks it
        if (stop >> (2 * state[S_PHASE] + seat)) & 1:
            break
        if seat == 0:
            sid, own_params, pile, own_rules, rng, own_memory = sid0, lent0, pile0, rules0, rng0, memory0
        else:
            sid, own_params, pile, own_rules, rng, own_memory = sid1, lent1, pile1, rules1, rng1, memory1
        action, x, y = dispatch.answer_nb(state[S_PHASE], sid, own_params, view, pile, own_rules, rng, own_memory)
        if GUARD_MEMORY:  # (compiled only into engines that route a plug-in)
            slot = check_spare_nb(work, seat)
            if slot >= 0:
                out[H_ERROR] = ERR_WROTE_MEMORY
                out[H_ERROR_SEAT] = seat
                out[H_ERROR_VALUE] = slot
                break
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
            guard_nb(work, rules, out)
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
    guard_nb(work, rules, out)
    over = state[S_PHASE] == PHASE_OVER
    if out[H_ERROR] != ERR_NONE:
        # an error found at the end takes the place of the dead hand's last event
        n = state[S_NTRACE]
        if over and state[S_OUTCOME] == OUT_DEAD and 0 < n <= trace.shape[0] and trace.shape[0] > 0:
            if trace[n - 1, 1] == EV_DEAD:
                state[S_NTRACE] = n - 1
        record_nb(state, out)
        return np.int64(-1)
    if over:
        record_nb(state, out)
        return np.int64(2 * PHASE_OVER)
    return state[S_PHASE] * 2 + state[S_CURRENT]


@CORE.python_entry
def ask_seat_nb(work, sid, params, lent, rules, legal):
    """The action strategy ``sid`` (parameters ``params``; ``lent`` is the copy it is lent)
    chooses for the seat to act in the hand of the work row ``work``, asked as the loop asks
    it (``ask_nb``): the seat's view, random stream and memory (both advance), and its copies
    of the pile and rules, checked afterwards (``check_lent_nb``).  Nothing is played.  The
    answer becomes an action code: a layout or a defence (masks) its ``A_ARRANGE + k`` /
    ``A_DEFEND + k``; any other answer must be one of the phase's legal actions (``legal``:
    room for ``MAX_LEGAL``).

    Returns ``(action, err, value)``: ``err`` is ``ERR_NONE``, ``ERR_WROTE_*`` (``value``:
    the slot; ``ERR_WROTE_MEMORY`` only in engines that route a plug-in), ``ERR_BAD_MELDS``
    (``value``: the melds' card mask), ``ERR_ILLEGAL_DISCARD`` (a discard that is no card
    code; ``value``: it) or ``ERR_ILLEGAL_ACTION`` (``value``: the action)."""
    f = fields_nb(work)
    state = f.state
    seat = state[S_CURRENT]
    pile = f.pile0 if seat == 0 else f.pile1
    own_rules = f.rules0 if seat == 0 else f.rules1
    memory = f.memory0 if seat == 0 else f.memory1
    for i in range(state[S_PILE_LEN]):
        pile[i] = state[S_PILE + i]
    action, x, y = ask_nb(state, sid, lent, f.seat_view, pile, own_rules, f.rngs[seat:seat + 1], memory)
    err, slot = check_lent_nb(state, pile, rules, own_rules, params, lent)
    if err != ERR_NONE:
        return action, err, slot
    if GUARD_MEMORY:
        slot = check_spare_nb(work, seat)
        if slot >= 0:
            return action, np.int64(ERR_WROTE_MEMORY), slot
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


@CORE.python_entry
def apply_then_run_nb(work, rules, action, stop, out, trace):
    """Play ``action`` for the seat to act (a move a driver chose outside the loop: a Python
    strategy's, an agent's; -1 for none), then ``run_until_nb``.  One call per outside move;
    an action the state machine refuses stops the hand with its error in ``out`` against that
    seat (value: the action) and returns -1."""
    state = work[K_STATE:K_STATE + N_STATE]
    if action >= 0:
        seat = state[S_CURRENT]
        err = apply_action_nb(state, rules, action, trace)
        if err != ERR_NONE:
            out[H_ERROR] = err
            out[H_ERROR_SEAT] = seat
            out[H_ERROR_VALUE] = action
            record_nb(state, out)
            return np.int64(-1)
    return run_until_nb(work, rules, stop, out, trace)
