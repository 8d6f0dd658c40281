"""The knock-table study's recorder: deals played with every knock declined but gin, and
each knock a seat could make played out in a copy of the work row (``play_knock_branches``),
for ``simulator.studies.knock_solver.record``.

It plays with the engine's loop (``loop``), a binding point of ``simulator.engine.factory``:
``branch_kernels`` gives this module itself for the engine routing every strategy, and this
module rendered with the loop of a lighter engine otherwise.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from strategies.common import last_discard_deadwood_nb

from ..core.constants import (
    A_KNOCK,
    A_NO_KNOCK,
    A_PASS,
    A_TAKE_PILE,
    ERR_NONE,
    H_ERROR,
    H_POINTS,
    H_WINNER,
    K_SCRATCH,
    N_HAND_COLS,
    N_VIEW,
    PHASE_KNOCK,
    PHASE_LAST_DISCARD,
    PHASE_OVER,
    V_DEADWOOD,
    V_KNOCK_LIMIT,
    V_MY_DRAWS,
    V_OPP_TOOK,
    W_VIEW,
)
from ..core.melds import popcount_nb
from ..engine import loop as builtin_loop
from ..engine.factory import bound, with_loop
from ..engine.kernels import builtin_only
from ..engine.work import new_work, seat_nb, start_deal_nb
from ..infra.blocks import call_plan, run_blocks
from ..infra.jit import KERNEL, MERGED

#: the loop the recorder plays with: ``simulator.engine.loop`` here, an engine's own in a copy
#: rendered by ``simulator.engine.factory`` (``branch_kernels``)
loop = bound(globals(), "loop", builtin_loop)
#: this module's name as a template of ``simulator.engine.factory.TEMPLATES``
TEMPLATE = "simulator.studies.knock_branches"


def branch_kernels(engine: ModuleType) -> ModuleType:
    """This module playing with engine ``engine``'s loop (``simulator.engine.factory.with_loop``)."""
    return with_loop(TEMPLATE, "ginsim_knock_branches", engine)


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

    run_blocks(block, n_deals, threads, n_blocks, inline=builtin_only(sids_ab))
    return a_seats, ends, counts, branches
