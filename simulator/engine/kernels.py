"""The batch kernels: blocks of deals or whole games played on a pool of threads.

``play_deals`` / ``play_games`` cut a batch into blocks (``simulator.infra.blocks``) and run
``play_deal_block_nb`` / ``play_game_block_nb`` on each, with a work row of its own
(``simulator.engine.work``).  A deal is started (``start_deal_nb``), its matchup seated
(``seat_nb``) and played to its end by the one loop (``simulator.engine.loop.run_until_nb``);
a game's hands are chained by ``next_hand_nb`` (``simulator.core.scoring.end_of_hand_nb``).
Kernels take arrays and fill preallocated int64 records (columns: ``simulator.core.records``);
every random draw comes from streams keyed by (seed, deal) (``simulator.core.rng``), so
results never depend on threads or chunking.  (The knock-table study's recorder, a kernel of
its own, lives with its study: ``simulator.studies.knock_branches``.)

This module is a template of ``simulator.engine.factory``: ``simulator.engine.select``
compiles copies of it whose ``loop`` is a copy of the loop asking a dispatch that routes only
the strategies a process plays, or plug-ins.
"""

from __future__ import annotations

import numpy as np

from strategies.registry import BUILTIN

from . import loop as builtin_loop
from ..core.constants import (
    G_HANDS,
    K_STATE,
    N_HAND_COLS,
    S_NTRACE,
)
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
__all__ = ["GAME_ITEMS", "TRACE_CAPACITY", "loop", "play_deal_block_nb", "play_deals", "play_game_block_nb",
           "play_game_nb", "play_games"]

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


def builtin_only(sids_ab) -> bool:
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
               n_deals, threads, n_blocks, inline=builtin_only(sids_ab))


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
               n_games, threads, min(n_blocks, n_games), inline=builtin_only(sids_ab))
