"""The actions of a hand by name: the integer codes ``simulator.Hand`` (``legal_actions``,
``apply``, ``bot_action``) and the RL environments' action space use.

    >>> from simulator import actions
    >>> actions.DRAW_STOCK, actions.TAKE_PILE, actions.PASS, actions.KNOCK, actions.PLAY_ON
    (64, 65, 66, 67, 68)
    >>> actions.discard("7h"), actions.lay_out(0), actions.DEFEND_BEST, actions.defend(1), actions.DEFEND_NO_LAYOFFS
    (22, 69, 105, 107, 142)
    >>> actions.name(actions.discard("7h"))
    'discard 7h'

Which action is legal when is ``docs/rules.md``'s sequence of play; the table of phases
and their actions is in ``simulator.core.state``.  The codes are declared once, in
``simulator.core.layouts`` (``A_*`` in ``simulator.core.constants``).
"""

from __future__ import annotations

from .core.cards import Card, as_codes
from .core.constants import (
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
    N_ACTIONS,
)
from .core.melds import MAX_ARRANGEMENTS
from .core.state import action_name as name

__all__ = ["DISCARD", "DRAW_STOCK", "TAKE_PILE", "PASS", "KNOCK", "PLAY_ON", "LAY_OUT", "DEFEND_BEST", "DEFEND_NO_LAYOFFS",
           "N_ACTIONS",
           "discard", "lay_out", "defend", "name"]

#: the discard actions are ``DISCARD + c`` for card code c (0 .. 63, suit * 16 + rank): ``discard(c)``
DISCARD = A_DISCARD

#: draw the stock's top card
DRAW_STOCK = A_DRAW_STOCK
#: take the pile's top card: the first upcard, a draw, or the last discard
TAKE_PILE = A_TAKE_PILE
#: decline the first upcard or the last discard
PASS = A_PASS
#: knock (or go gin) after discarding
KNOCK = A_KNOCK
#: play on without knocking
PLAY_ON = A_NO_KNOCK
#: the knocker lays out its least-deadwood arrangement that comes first in
#: ``simulator.core.melds.arrangement_nb``'s order (``lay_out(0)``): the same rule in every
#: state, the layout of the RL environments' stable action set (``simulator.env.rewards``)
LAY_OUT = A_ARRANGE
#: the defender's best response to the knocker's layout (melds and layoffs chosen together)
DEFEND_BEST = A_DEFEND_BEST
#: the defender lays out its least-deadwood arrangement that comes first in
#: ``simulator.core.melds.arrangement_nb``'s order and lays off nothing (laying off is the
#: defender's option, docs/rules.md#laying-out-and-laying-off): it keeps its least deadwood
DEFEND_NO_LAYOFFS = A_DEFEND_NO_LAYOFFS


def discard(card: int | str | Card) -> int:
    """Discard ``card``: a card code (``Card``) or its name, e.g. ``"7h"``."""
    codes = as_codes(card) if isinstance(card, str) else as_codes([card])
    if len(codes) != 1:
        raise ValueError(f"discard takes one card, got {card!r}")
    return A_DISCARD + codes[0]


def _arrangement(what: str, base: int, k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < MAX_ARRANGEMENTS:
        raise ValueError(f"{what} takes an arrangement index from 0 to {MAX_ARRANGEMENTS - 1}, got {k!r}")
    return base + k


def lay_out(k: int) -> int:
    """The knocker lays out its ``k``-th least-deadwood arrangement (the order of
    ``simulator.core.melds.arrangement_nb``)."""
    return _arrangement("lay_out", A_ARRANGE, k)


def defend(k: int) -> int:
    """The defender lays out its own ``k``-th least-deadwood arrangement; every unmelded card
    that fits the knocker's melds is then laid off."""
    return _arrangement("defend", A_DEFEND, k)
