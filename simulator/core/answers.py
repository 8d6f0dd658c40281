"""How a strategy's raw answer becomes an action, by the kind of answer of its decision
(``simulator.core.decisions.KINDS``): one decoder per kind.

A numba strategy answers a yes or no with true or false, a discard with a card code, the
knocker's layout with its set and run masks, and the defence with the defender's masks or
``DEFEND_BEST``/``DEFEND_NO_LAYOFFS`` (``simulator.core.view``).  Each decoder returns
``(action, x, y)``: an action of ``simulator.core.state`` (``x`` holds the card of a
discard), ``ANSWER_LAYOUT`` or ``ANSWER_DEFENCE`` with the masks in ``x``, ``y``, or
``ANSWER_NOT_A_CARD`` with the discard in ``x`` when it is no card code at all (a shift by 64
or more, or a negative one, is undefined); ``simulator.engine.loop.play_answer_nb`` plays it.
The generated dispatch (``strategies.codegen.dispatch_source``) calls the decoder of each
decision point's kind with the row's actions as constants, so the engine's loop decodes an
answer without looking anything up.
"""

from __future__ import annotations

import numpy as np

from ..infra.jit import HOT
from .constants import A_DEFEND_BEST, A_DEFEND_NO_LAYOFFS, A_DISCARD
from .view import DEFEND_BEST, DEFEND_NO_LAYOFFS

#: what a decoder returns besides actions: a layout in (x, y), a defence (the defender's
#: melds) in (x, y), or a discard that is no card code at all (x)
ANSWER_NOT_A_CARD = -1
ANSWER_LAYOUT = -2
ANSWER_DEFENCE = -3


@HOT
def decode_yes_no_nb(answer, yes, no):
    """A yes or no: the action ``yes`` for a true answer, ``no`` for a false one."""
    zero = np.int64(0)
    return (np.int64(yes) if answer else np.int64(no)), zero, zero


@HOT
def decode_card_nb(card):
    """A discard: ``A_DISCARD + card``, or ``ANSWER_NOT_A_CARD`` for no card code."""
    card = np.int64(card)
    if card < 0 or card > 63:
        return np.int64(ANSWER_NOT_A_CARD), card, np.int64(0)
    return A_DISCARD + card, card, np.int64(0)


@HOT
def decode_melds_nb(sets, runs):
    """The knocker's layout: its set and run masks, checked when played."""
    return np.int64(ANSWER_LAYOUT), np.int64(sets), np.int64(runs)


@HOT
def decode_defence_nb(sets, runs):
    """The defence: the best response, the one without layoffs, or the defender's masks."""
    zero = np.int64(0)
    sets, runs = np.int64(sets), np.int64(runs)
    if sets == DEFEND_BEST:
        return np.int64(A_DEFEND_BEST), zero, zero
    if sets == DEFEND_NO_LAYOFFS:
        return np.int64(A_DEFEND_NO_LAYOFFS), zero, zero
    return np.int64(ANSWER_DEFENCE), sets, runs


#: the decoder of each kind of answer, by the kind's name (the dispatch generator's names)
DECODERS = {"yes_no": "decode_yes_no_nb", "card": "decode_card_nb", "melds": "decode_melds_nb",
            "defence": "decode_defence_nb"}
