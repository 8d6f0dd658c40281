"""A seat's observation as a fixed-size float32 vector, computed from its view only.

``fill_view_nb`` (``simulator.core.view_fill``) is the one place that decides what a seat may
know (``simulator.core.view``): never the opponent's hand nor the order of the stock.
``encode_view_nb(view, pile, target, out)`` turns that view, and the discard pile (public:
``pile[:view[V_PILE_LEN]]``, top last), into the ``N_OBS`` values of the RL observation,
laid out as ``OBSERVATION_LAYOUT`` (its blocks declared in ``simulator.core.layouts``;
``simulator.env.encoding`` documents it block by block).  How each view slot is encoded is
declared with the slot (``simulator.core.view_fields``): the encoder reads that table
(``ENCODING``), so a new seat-visible fact reaches the RL observation by its row alone.
Every observation vector of ginsim is made here: the PettingZoo and Gymnasium environments,
the vectorised environment, ``PolicyStrategy`` and ``simulator.Hand.observation_vector``.

``encode_state_nb(state, seat, target, view, out)`` is the same from a hand state: it fills
``seat``'s view first (``view``: ``N_VIEW`` int64 scratch), so nothing beyond the view
reaches the vector.
"""

from __future__ import annotations

import numpy as np

from .constants import O_PILE, O_PILE_ORDER, O_TOP, OBSERVATION_LAYOUT, S_PILE, V_HAND, V_PILE_LEN
from . import constants
from .melds import lowest_card_nb, min_deadwood_nb
from .view_fields import ENCODINGS, VIEW_FIELDS
from .view_fill import fill_view_nb
from ..infra.jit import CORE

#: our suit (s h d c) -> OpenSpiel's suit index (s c d h): card planes use OpenSpiel's order
_SUIT_TO_OPENSPIEL = np.array([0, 3, 2, 1], np.int64)

#: the encoder's codes of ``view_fields.ENCODINGS``, by name
PLANE, CARD, ONE_HOT, BELOW, FLAG, PER_TARGET, DEADWOOD = (
    ENCODINGS.index(how) for how in ("plane", "card", "one_hot", "below", "flag", "per_target", "deadwood"))


def encoding_table() -> np.ndarray:
    """The view's encodings as rows ``(slot, how, first value, largest index)``: one per row
    of ``simulator.core.view_fields`` with an encoding, ``how`` indexing ``ENCODINGS``, the
    first value its block's offset plus the row's ``at``, the largest index its block's size
    less one (where ``one_hot`` clips and ``below`` stops)."""
    blocks = {name: (offset, size) for name, offset, size in OBSERVATION_LAYOUT}
    rows = []
    for f in VIEW_FIELDS:
        if f.encoding is not None:
            offset, size = blocks[f.encoding.block]
            rows.append((getattr(constants, f.const), ENCODINGS.index(f.encoding.how), offset + f.encoding.at,
                         size - 1))
    return np.array(rows, np.int64)


#: ``encoding_table()``, compiled into the encoder as a constant
ENCODING = encoding_table()


@CORE
def card_index_nb(card):
    """A card code's slot in a 52-slot plane: ``suit * 13 + rank`` in OpenSpiel's suit order."""
    return _SUIT_TO_OPENSPIEL[card >> 4] * 13 + (card & 15)


@CORE
def _plane_nb(mask, out, offset):
    while mask:
        out[offset + card_index_nb(lowest_card_nb(mask))] = 1.0
        mask &= mask - 1


@CORE
def encode_view_nb(view, pile, target, out):
    """Fill ``out`` (``N_OBS`` float32, zeroed here) from a seat's ``view`` and the discard
    pile ``pile`` (its first ``view[V_PILE_LEN]`` cards, bottom first); ``target`` is the
    game's target score (the score block is 0 when ``target`` is 0).  Each view slot is
    encoded as its row of ``ENCODING`` says (``simulator.core.view_fields``), then the pile's
    blocks from ``pile``."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    for r in range(ENCODING.shape[0]):
        x = view[ENCODING[r, 0]]
        how = ENCODING[r, 1]
        at = ENCODING[r, 2]
        if how == PLANE:
            _plane_nb(x, out, at)
        elif how == CARD:
            if x >= 0:
                out[at + card_index_nb(x)] = 1.0
        elif how == ONE_HOT:
            out[at + min(max(x, 0), ENCODING[r, 3])] = 1.0
        elif how == BELOW:
            if 0 <= x <= ENCODING[r, 3]:
                out[at + x] = 1.0
        elif how == FLAG:
            out[at] = 1.0 if x != 0 else 0.0
        elif how == PER_TARGET:
            if target > 0:
                out[at] = min(x / target, 1.0)
        else:  # DEADWOOD: the slot's (the 10 cards kept, for the seat to act), else the hand's least
            deadwood = x if x >= 0 else min_deadwood_nb(view[V_HAND])
            out[at] = min(deadwood, 100) / 100.0
    n = view[V_PILE_LEN]
    for i in range(n):
        k = card_index_nb(pile[i])
        out[O_PILE + k] = 1.0
        out[O_PILE_ORDER + k] = (i + 1) / n
        if i == n - 1:
            out[O_TOP + k] = 1.0


@CORE
def encode_state_nb(state, seat, target, view, out):
    """``seat``'s observation in hand ``state``: its view (into ``view``), then
    ``encode_view_nb`` of that view and the state's pile."""
    fill_view_nb(state, seat, view)
    encode_view_nb(view, state[S_PILE:], target, out)
