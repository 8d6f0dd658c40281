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
  melds and layoffs leaving the least deadwood, breaking its own melds when that pays) or
  the (sets, runs) masks of one of its least-deadwood arrangements.
"""

V_PHASE = 0
V_HAND = 1  # own hand mask (10 cards, or 11 after drawing)
V_TOP = 2  # card on top of the discard pile, -1 if empty
V_PILE_LEN = 3
V_PILE_MASK = 4  # every card in the discard pile (top included)
V_OPP_TOOK = 5  # cards the opponent took from the pile and has not discarded since
V_OPP_DECLINED = 6  # pile tops the opponent was offered and passed on
V_STOCK_LEFT = 7
V_TURN = 8  # turns played in this hand so far (both players)
V_MY_DRAWS = 9  # cards this player has drawn this hand
V_KNOCK_LIMIT = 10  # the limit in force for this deal (Oklahoma: from the upcard)
V_MY_SCORE = 11  # game score before this hand (0 in single-hand play)
V_OPP_SCORE = 12
V_IS_DEALER = 13
V_DRAWN = 14  # the card just drawn (discard phase), else -1
V_FROM_PILE = 15  # 1 when that card came from the pile
V_LEGAL_DISCARDS = 16  # mask of cards that may be discarded now
V_DEADWOOD = 17  # knock phase: deadwood of the 10 cards kept
V_OPP_DISCARDS = 18  # every card the opponent has discarded this hand
V_SEEN = 19  # cards this player has seen: own hand, pile history, opponent pickups
V_KNOCKER_SETS = 20  # the knocker's set cards once laid out (0 before)
V_KNOCKER_RUNS = 21  # the knocker's run cards once laid out (0 before)
V_KNOCKER_DEADWOOD = 22  # defend phase: the deadwood the knocker laid out, else -1
N_VIEW = 23

PHASE_FIRST_UPCARD = 0
PHASE_DRAW = 1
PHASE_LAST_DISCARD = 2
PHASE_DISCARD = 3
PHASE_KNOCK = 4
PHASE_ARRANGE = 5
PHASE_DEFEND = 6

#: ``defend_nb``'s answer ``(DEFEND_BEST, 0)``: the best response, computed by the engine
#: (``simulator.core.melds.layoff_solution_nb``), the default defence of every strategy
DEFEND_BEST = -2

#: length of every strategy parameter row (unused slots are 0)
N_PARAMS = 8
#: length of each player's per-hand memory
N_MEMORY = 64
