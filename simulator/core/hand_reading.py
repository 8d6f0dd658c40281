"""A hand state read by name: the one place outside the state machine that knows which slot
holds what (``simulator.core.layouts.STATE_SLOTS``).  Drivers, environments, interop and tools
read a hand through these functions, never through ``state[S_*]``
(``tests/test_view_fields.py`` checks that no module outside ``simulator.core`` and the
engine's compiled loop reads a slot).

* numba, for kernels and search players (inlined into their callers, ``HOT``):
  ``is_over_nb``, ``phase_nb``, ``seat_to_act_nb`` (the seat to act, also after the end),
  ``hand_of_nb``, ``score_before_nb``, ``hand_points_to_seat_nb`` (what a finished hand is
  worth to a seat), ``pile_nb`` (a slice, merged into its caller), and for an evaluator that
  sees the chance (``simulator.studies.draw_luck``) ``stock_place_nb``, ``stock_card_nb`` and
  ``knock_limit_nb``;
* Python: ``phase_of``, ``seat_to_act`` (-1 once over), ``dealer_of``, ``hand_of``,
  ``pile_of`` (bottom first), ``stock_of`` (the next draw first; hidden from both players),
  ``set_stock_order``, ``turn_of``, ``stock_left``, ``trace_count``/``reset_trace`` (the
  trace's bookkeeping), ``events_of`` (a trace array as named events, for every driver) and
  ``result_of``, the finished hand as a ``HandResult`` record.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .constants import (
    EVENT_NAMES,
    PHASE_OVER,
    S_CURRENT,
    S_DEALER,
    S_DEFENDER_DW,
    S_DEFENDER_MELDS,
    S_HANDS,
    S_KNOCKER,
    S_KNOCKER_DW,
    S_LAID,
    S_LIMIT,
    S_OUTCOME,
    S_PHASE,
    S_PILE,
    S_PILE_LEN,
    S_POINTS,
    S_RESHUFFLES,
    S_RUNS,
    S_SCORES,
    S_SETS,
    S_STOCK,
    S_STOCK_N,
    S_STOCK_POS,
    S_NTRACE,
    S_TURN,
    S_WINNER,
)
from .records import OUTCOMES
from .scoring import points_to_seat_nb
from ..infra.jit import HOT, MERGED


# ---- numba ---------------------------------------------------------------------------------------
@HOT
def is_over_nb(state):
    """True once the hand is over."""
    return state[S_PHASE] == PHASE_OVER


@HOT
def phase_nb(state):
    """The phase: a decision point PHASE_* or PHASE_OVER."""
    return state[S_PHASE]


@HOT
def seat_to_act_nb(state):
    """The seat to act (once over: the last seat that acted)."""
    return state[S_CURRENT]


@HOT
def hand_of_nb(state, seat):
    """``seat``'s hand mask."""
    return state[S_HANDS + seat]


@HOT
def score_before_nb(state, seat):
    """``seat``'s game score before this hand (0 in single deals)."""
    return state[S_SCORES + seat]


@HOT
def stock_place_nb(state):
    """Where the stock stands: the position of its next card, its cards counting those drawn,
    and the reshuffles so far this hand (a reshuffle starts a new stock at position 0)."""
    return state[S_STOCK_POS], state[S_STOCK_N], state[S_RESHUFFLES]


@HOT
def stock_card_nb(state, k):
    """The stock's ``k``-th card in drawing order, drawn or not (hidden from both players)."""
    return state[S_STOCK + k]


@HOT
def knock_limit_nb(state):
    """The deal's knock limit (Oklahoma: from the upcard; gin only: 0)."""
    return state[S_LIMIT]


@HOT
def hand_points_to_seat_nb(state, seat):
    """What the finished hand is worth to ``seat``: its points if it scored, minus the
    opponent's if the opponent did, 0 for a dead hand (``core.scoring.points_to_seat_nb``)."""
    return points_to_seat_nb(state[S_WINNER], state[S_POINTS], seat)


@MERGED
def pile_nb(state):
    """The discard pile, bottom first: a slice of the state (merged into its caller, which
    counts references as it does, ``simulator.infra.jit``)."""
    return state[S_PILE:S_PILE + state[S_PILE_LEN]]


# ---- Python ----------------------------------------------------------------------------------------
def phase_of(state: np.ndarray) -> int:
    """The phase: a decision point PHASE_* or PHASE_OVER."""
    return int(state[S_PHASE])


def seat_to_act(state: np.ndarray) -> int:
    """The seat to act, -1 once the hand is over."""
    return -1 if state[S_PHASE] == PHASE_OVER else int(state[S_CURRENT])


def dealer_of(state: np.ndarray) -> int:
    return int(state[S_DEALER])


def hand_of(state: np.ndarray, seat: int) -> int:
    """``seat``'s hand mask."""
    return int(state[S_HANDS + seat])


def pile_of(state: np.ndarray) -> list[int]:
    """The discard pile's cards, bottom first."""
    return state[S_PILE:S_PILE + state[S_PILE_LEN]].tolist()


def stock_of(state: np.ndarray) -> list[int]:
    """The cards left in the stock, the next draw first (neither player may know them)."""
    return state[S_STOCK + state[S_STOCK_POS]:S_STOCK + state[S_STOCK_N]].tolist()


def set_stock_order(state: np.ndarray, codes: list[int]) -> None:
    """Put the cards left in the stock in the order ``codes`` (the caller checked that they
    are those cards)."""
    pos, n = int(state[S_STOCK_POS]), int(state[S_STOCK_N])
    state[S_STOCK + pos:S_STOCK + n] = codes


def turn_of(state: np.ndarray) -> int:
    """Discards made so far (both players)."""
    return int(state[S_TURN])


def stock_left(state: np.ndarray) -> int:
    return int(state[S_STOCK_N] - state[S_STOCK_POS])


def events_of(trace: np.ndarray, n: int) -> list[tuple[int, str, int]]:
    """The first ``n`` rows of a trace array (the state machine writes one row per event:
    seat, event code, value) as events ``(seat, event name, value)``, the form ``Hand.events``,
    ``simulator.trace_deal`` and the narration read (``simulator.core.narrate``).  More events
    than the array holds is an error: the trace was cut short."""
    if n > len(trace):
        raise RuntimeError(f"trace capacity exceeded: {n} events for {len(trace)} rows")
    return [(p, EVENT_NAMES[e], v) for p, e, v in trace[:n].tolist()]


def trace_count(state: np.ndarray) -> int:
    """Trace events written since the trace was last reset."""
    return int(state[S_NTRACE])


def reset_trace(state: np.ndarray, count: int = 0) -> None:
    """Start the trace's count again at ``count`` (the next event is written there)."""
    state[S_NTRACE] = count


class HandResult(NamedTuple):
    """A finished hand, as the state holds it: masks are card masks (``simulator.core.cards``)."""

    outcome: str  # simulator.core.records.OUTCOMES
    knocker: int  # the seat that knocked or went gin, -1 for a dead hand
    winner: int  # the seat that scores, -1 for none
    points: int
    knocker_deadwood: int  # -1: dead hand
    defender_deadwood: int  # after layoffs; -1: dead hand
    knocker_sets: int
    knocker_runs: int
    laid_off: int  # the cards the defender laid off
    defender_melds: int  # the cards the defender melded (0 after gin)


def result_of(state: np.ndarray) -> HandResult | None:
    """The finished hand's result, None while it is played."""
    if state[S_PHASE] != PHASE_OVER:
        return None
    return HandResult(OUTCOMES[int(state[S_OUTCOME])], int(state[S_KNOCKER]), int(state[S_WINNER]),
                      int(state[S_POINTS]), int(state[S_KNOCKER_DW]), int(state[S_DEFENDER_DW]),
                      int(state[S_SETS]), int(state[S_RUNS]), int(state[S_LAID]), int(state[S_DEFENDER_MELDS]))


def knocker_of(state: np.ndarray) -> int:
    """The seat that knocked (or went gin), -1 before."""
    return int(state[S_KNOCKER])
