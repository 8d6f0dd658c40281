"""What a player may know when it decides: the *view* every strategy receives (the view contract).

Strategies import these names from ``strategies.view``, which re-exports this module.

The engine fills one int64 vector per decision; the ``V_*`` constants name its slots.  It
holds only public or own information — never the opponent's hand or the order of the
stock.  Along with it a strategy gets the discard pile (``pile[:view[V_PILE_LEN]]``, top
last), the rule vector, its own parameter row (float64), its own random stream and a
per-hand scratch memory (int64[64], zeroed at the start of each hand).

Decision points (``V_PHASE``):

* ``PHASE_FIRST_UPCARD``: take the first upcard or decline (non-dealer asked first).
* ``PHASE_DRAW``: draw the pile's top card (``V_TOP``) or from the stock.
* ``PHASE_LAST_DISCARD``: the stock is spent; take the last discard only to knock
  (``last_discard_rule``).
* ``PHASE_DISCARD``: 11 cards in hand; discard one card of ``V_LEGAL_DISCARDS``.
* ``PHASE_KNOCK``: 10 cards left with deadwood ``V_DEADWOOD`` ≤ ``V_KNOCK_LIMIT``: knock?
* ``PHASE_ARRANGE``: the knocker lays out its melds.
* ``PHASE_DEFEND``: the defender, seeing the knocker's melds (``V_KNOCKER_SETS``,
  ``V_KNOCKER_RUNS``) and deadwood (``V_KNOCKER_DEADWOOD``), chooses its own melds; every
  unmelded card that fits the knocker's melds is then laid off (docs/rules.md#laying-out-
  and-laying-off).  ``defend_nb`` answers ``(DEFEND_BEST, 0)`` for the best response (the
  melds and layoffs leaving the least deadwood, breaking its own melds when that pays),
  ``(DEFEND_NO_LAYOFFS, 0)`` to spread a least-deadwood arrangement and lay off nothing
  (laying off is the defender's option), or the (sets, runs) masks of one of its
  least-deadwood arrangements.

``V_LAST_CHANCE`` is 1 in the discard phase after taking the last discard
(``last_discard_rule``, docs/rules.md): the player must discard so as to knock, and its
legal discards (``V_LEGAL_DISCARDS``) are those that leave a knock.
"""

from .constants import (  # noqa: F401  (the view contract's slots and phases: simulator.core.layouts)
    V_PHASE,
    V_HAND,
    V_TOP,
    V_PILE_LEN,
    V_PILE_MASK,
    V_OPP_TOOK,
    V_OPP_DECLINED,
    V_STOCK_LEFT,
    V_TURN,
    V_MY_DRAWS,
    V_KNOCK_LIMIT,
    V_MY_SCORE,
    V_OPP_SCORE,
    V_IS_DEALER,
    V_DRAWN,
    V_FROM_PILE,
    V_LEGAL_DISCARDS,
    V_DEADWOOD,
    V_OPP_DISCARDS,
    V_SEEN,
    V_KNOCKER_SETS,
    V_KNOCKER_RUNS,
    V_KNOCKER_DEADWOOD,
    V_LAST_CHANCE,
    N_VIEW,
    PHASE_FIRST_UPCARD,
    PHASE_DRAW,
    PHASE_LAST_DISCARD,
    PHASE_DISCARD,
    PHASE_KNOCK,
    PHASE_ARRANGE,
    PHASE_DEFEND,
    N_PARAMS,
    N_MEMORY,
)

#: ``defend_nb``'s answer ``(DEFEND_BEST, 0)``: the best response, computed by the engine
#: (``simulator.core.melds.layoff_solution_nb``), the default defence of every strategy
DEFEND_BEST = -2
#: ``defend_nb``'s answer ``(DEFEND_NO_LAYOFFS, 0)``: the defender spreads its first
#: least-deadwood arrangement (``simulator.core.melds.arrangement_nb``'s order) and lays off
#: nothing; its deadwood is its hand's least deadwood
DEFEND_NO_LAYOFFS = -3
