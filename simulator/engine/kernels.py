"""The batch kernels: blocks of deals or whole games played on a pool of threads.

``play_deals`` / ``play_games`` cut a batch into blocks (``simulator.infra.blocks``) and run
``play_deal_block_nb`` / ``play_game_block_nb`` on each, with a work row of its own
(``simulator.engine.work``).  A deal is started (``start_deal_nb``), its matchup seated
(``seat_nb``) and played to its end by the one loop (``simulator.engine.loop.run_until_nb``);
a game's hands are chained by ``next_hand_nb`` (``simulator.core.scoring.end_of_hand_nb``).
Kernels take arrays and fill preallocated int64 records (columns: ``simulator.core.records``);
every random draw comes from streams keyed by (seed, deal) (``simulator.core.rng``), so
results never depend on threads or chunking.  ``play_knock_branches`` records deals for the
knock-table study: each hand played with every knock declined but gin, and every knock a seat
could make played out in a copy of the work row (``simulator.studies.knock_solver``).

This module is a template of ``simulator.engine.factory``: ``simulator.engine.select``
compiles copies of it whose ``loop`` is a copy of the loop asking a dispatch that routes only
the strategies a process plays, or plug-ins.
"""

from __future__ import annotations

import numpy as np

from strategies.common import last_discard_deadwood_nb
from strategies.registry import BUILTIN

from . import loop as builtin_loop
from ..core.constants import (
    A_KNOCK,
    A_NO_KNOCK,
    A_PASS,
    A_TAKE_PILE,
    ERR_NONE,
    G_HANDS,
    H_ERROR,
    H_POINTS,
    H_WINNER,
    K_SCRATCH,
    K_STATE,
    N_HAND_COLS,
    N_VIEW,
    PHASE_KNOCK,
    PHASE_LAST_DISCARD,
    PHASE_OVER,
    S_NTRACE,
    V_DEADWOOD,
    V_KNOCK_LIMIT,
    V_MY_DRAWS,
    V_OPP_TOOK,
    W_VIEW,
)
from ..core.melds import popcount_nb
from ..core.rules import MAX_HANDS_PER_GAME
from ..infra.blocks import MIN_BLOCK_ITEMS, call_plan, run_blocks
from .work import fields_nb, new_work, next_hand_nb, seat_nb, start_deal_nb, start_game_nb
from ..infra.jit import KERNEL, MERGED
from .factory import bound

#: the loop these kernels play with: ``simulator.engine.loop`` here, an engine's own in a copy
#: rendered by ``simulator.engine.factory``
loop = bound(globals(), "loop", builtin_loop)

#: what this module defines and offers (it re-exports nothing: the loop is ``loop``, the work
#: row ``simulator.engine.work``, the constants ``simulator.core.constants``)
__all__ = ["BRANCH_COLS", "BRANCHES_ERROR", "BRANCHES_OVERFLOW", "GAME_ITEMS", "TRACE_CAPACITY", "loop",
           "play_deal_block_nb", "play_deals", "play_game_block_nb", "play_game_nb", "play_games", "play_knock_branches",
           "play_knock_branches_block_nb"]

#: the rows of the events of a traced deal (``simulator.api.trace_deal``)
TRACE_CAPACITY = 8192
#: a game counts as this many items when a batch is cut into blocks (about its hands)
GAME_ITEMS = 4


@KERNEL
def play_deal_block_nb(seed, first_deal, start, stop, mirrored, rules, sids_ab, params_ab, out, trace, work):
    """Play deals ``first_deal + start .. first_deal + stop - 1`` as independent hands into
    ``out[start:stop]``, with the block's work row ``work`` (``new_work``).

    Deal d belongs to pair ``d // 2`` when ``mirrored`` (both deals of a pair use the same
    deck and dealer seat, with the strategies' seats swapped: A sits in seat ``d % 2``),
    else pair ``d`` with A's seat drawn at random.  ``sids_ab``/``params_ab`` hold strategy
    A then B.  ``trace`` (n × 3), when it has rows, records the block's first deal; returns
    the number of its events."""
    zero = np.int64(0)
    events = np.int64(0)
    for i in range(start, stop):
        row = out[i]
        tr = trace if i == start else trace[:0]
        _, _, a_seat = start_deal_nb(work, seed, first_deal + i, mirrored, zero, zero, rules, row, tr)
        seat_nb(work, a_seat, sids_ab, params_ab)
        loop.run_until_nb(work, rules, np.int64(loop.STOP_AT_END), row, tr)
        if i == start:
            events = work[K_STATE + S_NTRACE]
    return events


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
    width = params_ab.shape[1]
    threads, n_blocks = call_plan(n_deals, threads)
    run_blocks(lambda start, stop: play_deal_block_nb(seed, first_deal, start, stop, mirrored, rules, sids_ab,
                                                       params_ab, out, no_trace, new_work(rules, width)),
               n_deals, threads, n_blocks, inline=_builtin_only(sids_ab))


@MERGED
def play_game_nb(work, seed, game, mirrored, rules, sids_ab, params_ab, game_out, hand_out, trace):
    """Play one whole game and fill ``game_out``; hand rows go to ``hand_out`` while it has
    room (pass a 0-row array to skip them).  ``trace`` (n × 3, may have 0 rows) receives the
    events of the game's first hand.  Merged into its one caller, ``play_game_block_nb``,
    which saves a library that would link the loop's machine code once more.  Hands are
    played by the loop and chained by ``next_hand_nb`` until the game is over, at the latest
    after ``MAX_HANDS_PER_GAME`` hands (a guard only pathological strategies reach)."""
    row = fields_nb(work).record
    a_seat = start_game_nb(work, seed, game, mirrored, rules, game_out, row, trace)
    seat_nb(work, a_seat, sids_ab, params_ab)
    max_hands = np.int64(MAX_HANDS_PER_GAME)
    dealer = np.int64(0)
    while dealer >= 0:
        hands = game_out[G_HANDS]
        loop.run_until_nb(work, rules, np.int64(loop.STOP_AT_END), row, trace if hands == 0 else trace[:0])
        if hands < hand_out.shape[0]:
            for k in range(N_HAND_COLS):
                hand_out[hands, k] = row[k]
        dealer = next_hand_nb(work, game_out, max_hands, rules, row, trace[:0])


@KERNEL
def play_game_block_nb(seed, first_game, start, stop, mirrored, rules, sids_ab, params_ab, game_out,
                       hand_out, hand_offsets, trace, work):
    """Play games ``first_game + start .. first_game + stop - 1`` into ``game_out[start:stop]``
    (``game_out`` is n_games × N_GAME_COLS), with the block's work row ``work``
    (``new_work``).  When ``hand_offsets`` has n_games + 1 entries, the hands of game i
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
        play_game_nb(work, seed, first_game + i, mirrored, rules, sids_ab, params_ab, game_out[i], hands, tr)


def play_games(seed, first_game, n_games, mirrored, rules, sids_ab, params_ab, game_out, hand_out,
               hand_offsets, threads=None):
    """The batch entry point for whole games ``first_game ..``: blocks of games
    (``play_game_block_nb``) on ``threads`` threads (default: numba's thread count)."""
    seed = np.uint64(seed)
    no_trace = np.zeros((0, 3), np.int64)
    width = params_ab.shape[1]
    threads, n_blocks = call_plan(n_games * GAME_ITEMS, threads, MIN_BLOCK_ITEMS * GAME_ITEMS)
    run_blocks(lambda start, stop: play_game_block_nb(seed, first_game, start, stop, mirrored, rules, sids_ab,
                                                       params_ab, game_out, hand_out, hand_offsets, no_trace,
                                                       new_work(rules, width)),
               n_games, threads, min(n_blocks, n_games), inline=_builtin_only(sids_ab))


#: the columns of a knock branch (``play_knock_branches``): the seat that may knock, the
#: deadwood it would knock with, the own draw its knock policy reads (the last discard's:
#: one more than drawn so far), the cards the opponent took from the pile and still holds,
#: 1 for a knock offered by taking the last discard, and the net points to seat 0 of knocking there
BRANCH_COLS = ("seat", "deadwood", "draws", "pickups", "last_discard", "value")
#: the branch outcomes of a deal (``play_knock_branches``' ``counts``): a branch beyond the
#: capacity, a strategy error
BRANCHES_OVERFLOW = -1
BRANCHES_ERROR = -2


@MERGED
def _net_to_seat0(row):
    """Net points to seat 0 of a finished hand row."""
    if row[H_WINNER] == 0:
        return row[H_POINTS]
    if row[H_WINNER] == 1:
        return -row[H_POINTS]
    return np.int64(0)


@KERNEL
def play_knock_branches_block_nb(seed, first_deal, start, stop, rules, sids_ab, params_ab, a_seats, ends,
                                 counts, branches, trace, work, fork, row, fork_row):
    """Deals ``first_deal + start .. first_deal + stop - 1`` (mirrored, as ``play_deals``)
    played with every knock declined but gin, and at each knock a seat could make, that knock
    played out in a copy of the row: a deal's knock branches.

    The seated strategies draw, discard, lay out and defend; the loop stops before every
    knock decision (``PHASE_KNOCK``) and every last discard (``PHASE_LAST_DISCARD``), where
    this kernel answers instead: gin is knocked (a last discard that makes gin is taken);
    any other legal knock (deadwood within the deal's limit; at the last discard, the deadwood
    after taking it and discarding the best card) is a branch: the work row is copied into
    ``fork``, the knock made there (at the last discard: the card taken, which forces the
    knock) and played to the end, and its net points to seat 0 kept; then the hand goes on
    without it.  So for any two knock policies that draw and discard as the seated ones do
    and draw no random number to decide, a deal's value is that of its first branch whose
    seat's policy knocks, else the end of the hand: ``ends[i]`` (net points to seat 0).

    Deal i's branches go to ``branches[i, :counts[i]]`` (columns ``BRANCH_COLS``);
    ``counts[i]`` is ``BRANCHES_OVERFLOW`` when they did not fit and ``BRANCHES_ERROR`` when a
    strategy erred; ``a_seats[i]`` is A's seat."""
    zero = np.int64(0)
    stop_mask = np.int64(0)
    for s in range(2):
        stop_mask |= (np.int64(1) << (2 * PHASE_KNOCK + s)) | (np.int64(1) << (2 * PHASE_LAST_DISCARD + s))
    capacity = branches.shape[1]
    view = work[K_SCRATCH + W_VIEW:K_SCRATCH + W_VIEW + N_VIEW]
    for i in range(start, stop):
        _, _, a_seat = start_deal_nb(work, seed, first_deal + i, True, zero, zero, rules, row, trace)
        a_seats[i] = a_seat
        seat_nb(work, a_seat, sids_ab, params_ab)
        n = np.int64(0)
        at = loop.run_until_nb(work, rules, stop_mask, row, trace)
        while 0 <= at < 2 * PHASE_OVER:
            phase, seat = at // 2, at % 2
            if phase == PHASE_KNOCK:
                deadwood, draws = view[V_DEADWOOD], view[V_MY_DRAWS]
                knock, decline = A_KNOCK, A_NO_KNOCK
            else:  # the last discard: taking it is the knock
                deadwood, draws = last_discard_deadwood_nb(view), view[V_MY_DRAWS] + 1
                knock, decline = A_TAKE_PILE, A_PASS
            if deadwood == 0:  # gin: always made, never a branch
                action = knock
            else:
                action = decline
                if 0 < deadwood <= view[V_KNOCK_LIMIT]:
                    if n == capacity:
                        n = np.int64(BRANCHES_OVERFLOW)
                        break
                    for k in range(work.shape[0]):
                        fork[k] = work[k]
                    branch = loop.apply_then_run_nb(fork, rules, knock, np.int64(loop.STOP_AT_END), fork_row, trace)
                    if branch < 0:
                        n = np.int64(BRANCHES_ERROR)
                        break
                    b = branches[i, n]
                    b[0], b[1], b[2] = seat, deadwood, draws
                    b[3], b[4], b[5] = popcount_nb(view[V_OPP_TOOK]), phase == PHASE_LAST_DISCARD, _net_to_seat0(fork_row)
                    n += 1
            at = loop.apply_then_run_nb(work, rules, action, stop_mask, row, trace)
        if at < 0 or row[H_ERROR] != ERR_NONE:
            n = np.int64(BRANCHES_ERROR)
        counts[i] = n
        ends[i] = _net_to_seat0(row)


def play_knock_branches(seed, first_deal, n_deals, rules, sids_ab, params_ab, capacity, threads=None):
    """The knock branches of deals ``first_deal ..`` (``play_knock_branches_block_nb``), on
    ``threads`` threads: ``(a_seats, ends, counts, branches)``, ``branches`` of shape
    (n_deals, ``capacity``, ``len(BRANCH_COLS)``), int16."""
    no_trace = np.zeros((0, 3), np.int64)
    seed = np.uint64(seed)
    width = params_ab.shape[1]
    a_seats = np.zeros(n_deals, np.int64)
    ends = np.zeros(n_deals, np.int64)
    counts = np.zeros(n_deals, np.int64)
    branches = np.zeros((n_deals, capacity, len(BRANCH_COLS)), np.int16)
    threads, n_blocks = call_plan(n_deals, threads)

    def block(start, stop):
        work = new_work(rules, width)
        play_knock_branches_block_nb(seed, first_deal, start, stop, rules, sids_ab, params_ab, a_seats, ends, counts,
                                     branches, no_trace, work, np.zeros_like(work),
                                     np.zeros(N_HAND_COLS, np.int64), np.zeros(N_HAND_COLS, np.int64))

    run_blocks(block, n_deals, threads, n_blocks, inline=_builtin_only(sids_ab))
    return a_seats, ends, counts, branches
