"""Every integer layout of ginsim as plain constants, generated from the tables of
``simulator.core.layouts`` by ``python -m simulator.core.layouts``: do not edit by hand
(``tests/test_layouts.py`` fails when this file is stale)."""


# ---- the hand state's slots (simulator.core.state)
S_PHASE = 0  # the phase: a decision point PHASE_* or PHASE_OVER
S_CURRENT = 1  # the seat to act (the knocker while laying out, then the defender)
S_DEALER = 2  # the dealing seat
S_HANDS = 3  # each seat's hand mask (+ seat)
S_TOOK = 5  # cards the seat took from the pile and still holds (public)
S_DECLINED = 7  # pile tops the seat was offered and passed on (public)
S_DISCARDS = 9  # every card the seat discarded this hand (public)
S_SEEN = 11  # cards the seat has seen: its hand, pile history, its stock draws
S_DRAWS = 13  # cards the seat drew this hand (pile takes included)
S_SCORES = 15  # game scores before this hand (0 in single deals)
S_STOCK_POS = 17  # the next stock card is state[S_STOCK + S_STOCK_POS]
S_STOCK_N = 18  # cards in the stock including those drawn
S_PILE_LEN = 19  # cards in the discard pile
S_PILE_MASK = 20  # mask of the cards in the pile
S_TURN = 21  # discards made so far (both players)
S_RESHUFFLES = 22  # times the pile was turned into a new stock this hand
S_UPCARD = 23  # the deal's first upcard
S_LIMIT = 24  # the deal's knock limit
S_MULTIPLIER = 25  # the deal's score multiplier
S_DRAWN = 26  # discard phase: the card just drawn, else -1
S_FROM_PILE = 27  # discard phase: 1 when it came from the pile
S_LAST_CHANCE = 28  # 1 once the last discard was taken: must knock
S_LEGAL = 29  # discard phase: mask of the legal discards, else 0
S_DEADWOOD = 30  # the current player's deadwood after its discard; later the knocker's
S_KNOCKER = 31  # the seat that knocked (or went gin), -1 before
S_OUTCOME = 32  # once over: OUT_*; -1 while the hand is played
S_WINNER = 33  # once over: the seat that scores, -1 for none
S_POINTS = 34  # once over: the points it scores
S_KNOCKER_DW = 35  # once over: the knocker's deadwood (-1: dead hand)
S_DEFENDER_DW = 36  # once over: the defender's deadwood after layoffs (-1: dead hand)
S_LAYOFF = 37  # once over: value of the cards laid off
S_SETS = 38  # from the layout on: the knocker's set cards
S_RUNS = 39  # from the layout on: the knocker's run cards
S_LAID = 40  # once over: the cards the defender laid off
S_DECK_RNG = 41  # the reshuffle stream (a simulator.core.rng counter, as int64 bits)
S_NTRACE = 42  # bookkeeping: trace events written since the deal
S_DEFENDER_MELDS = 43  # once over after a knock: the cards the defender melded
N_HEADER = 64  # the header's length: the scalar slots above
S_STOCK = 64  # the stock in drawing order
S_PILE = 128  # the discard pile, top last
N_STATE = 192  # slots in all

# ---- the view's slots (simulator.core.view)
V_PHASE = 0  # the decision point PHASE_*
V_HAND = 1  # own hand mask (10 cards, or 11 after drawing)
V_TOP = 2  # card on top of the discard pile, -1 if empty
V_PILE_LEN = 3  # cards in the discard pile
V_PILE_MASK = 4  # every card in the discard pile (top included)
V_OPP_TOOK = 5  # cards the opponent took from the pile and has not discarded since
V_OPP_DECLINED = 6  # pile tops the opponent was offered and passed on
V_STOCK_LEFT = 7  # cards left in the stock
V_TURN = 8  # turns played in this hand so far (both players)
V_MY_DRAWS = 9  # cards this player has drawn this hand
V_KNOCK_LIMIT = 10  # the limit in force for this deal (Oklahoma: from the upcard)
V_MY_SCORE = 11  # game score before this hand (0 in single-hand play)
V_OPP_SCORE = 12  # the opponent's game score before this hand
V_IS_DEALER = 13  # 1 for the dealer
V_DRAWN = 14  # the card just drawn (discard phase), else -1
V_FROM_PILE = 15  # 1 when that card came from the pile
V_LEGAL_DISCARDS = 16  # mask of cards that may be discarded now
V_DEADWOOD = 17  # knock phase: deadwood of the 10 cards kept
V_OPP_DISCARDS = 18  # every card the opponent has discarded this hand
V_SEEN = 19  # cards this player has seen: own hand, pile history, opponent pickups
V_KNOCKER_SETS = 20  # the knocker's set cards once laid out (0 before)
V_KNOCKER_RUNS = 21  # the knocker's run cards once laid out (0 before)
V_KNOCKER_DEADWOOD = 22  # defend phase: the deadwood the knocker laid out, else -1
V_LAST_CHANCE = 23  # discard phase: 1 when the card drawn is the last discard, taken to knock
N_VIEW = 24  # slots in all
N_PARAMS = 8  # length of every strategy parameter row (unused slots are 0)
N_MEMORY = 64  # length of each player's per-hand memory

# ---- phases
PHASE_FIRST_UPCARD = 0  # take the first upcard or decline (non-dealer asked first)
PHASE_DRAW = 1  # draw the pile's top card (V_TOP) or from the stock
PHASE_LAST_DISCARD = 2  # the stock is spent: take the last discard only to knock (last_discard_rule)
PHASE_DISCARD = 3  # 11 cards in hand: discard one card of V_LEGAL_DISCARDS
PHASE_KNOCK = 4  # 10 cards left with deadwood V_DEADWOOD within V_KNOCK_LIMIT: knock?
PHASE_ARRANGE = 5  # the knocker lays out its melds
PHASE_DEFEND = 6  # the defender, seeing the knocker's melds and deadwood, chooses its own melds
PHASE_OVER = 7  # the hand is over: no decision left
#: phase code -> name
PHASE_NAMES = ('first_upcard', 'draw', 'last_discard', 'discard', 'knock', 'arrange', 'defend', 'over')

# ---- action codes
A_DISCARD = 0  # A_DISCARD + c: discard the card of code c
A_DRAW_STOCK = 64  # draw the stock's top card
A_TAKE_PILE = 65  # take the pile's top card (the upcard, a draw, the last discard)
A_PASS = 66  # decline the upcard or the last discard
A_KNOCK = 67  # knock
A_NO_KNOCK = 68  # play on without knocking
A_ARRANGE = 69  # A_ARRANGE + k: lay out the k-th least-deadwood arrangement
A_DEFEND_BEST = 105  # the defender's best response to the layout
A_DEFEND = 106  # A_DEFEND + k: defend with its own k-th arrangement
A_DEFEND_NO_LAYOFFS = 142  # the defender spreads its own first arrangement, lays off nothing
N_ACTIONS = 143  # action codes in all

# ---- trace events
EV_DEAL = 0
EV_UPCARD = 1
EV_DECLINE = 2
EV_TAKE_PILE = 3
EV_DRAW_STOCK = 4
EV_DISCARD = 5
EV_KNOCK = 6
EV_GIN = 7
EV_BIG_GIN = 8
EV_SETS = 9
EV_RUNS = 10
EV_LAYOFF = 11
EV_DEFENDER_DEADWOOD = 12
EV_RESHUFFLE = 13
EV_DEAD = 14
EV_SCORE = 15
EV_PASS_LAST = 16
EV_DEFEND = 17
#: event code -> name
EVENT_NAMES = ('deal', 'upcard', 'decline', 'take_pile', 'draw_stock', 'discard', 'knock', 'gin', 'big_gin', 'sets', 'runs', 'layoff', 'defender_deadwood', 'reshuffle', 'dead', 'score', 'pass_last_discard', 'defend')

# ---- error codes (the record's H_ERROR)
ERR_NONE = 0  # no error
ERR_ILLEGAL_DISCARD = 1  # strategy discarded a card it may not discard
ERR_BAD_MELDS = 3  # strategy laid out melds that are not a least-deadwood arrangement of its hand
ERR_WROTE_PILE = 4  # strategy wrote into the discard pile it was given
ERR_WROTE_RULES = 5  # strategy wrote into the rule vector it was given
ERR_WROTE_PARAMS = 6  # strategy wrote into its parameter row
ERR_ILLEGAL_ACTION = 7  # an action that is not legal in the hand's phase
ERR_WROTE_MEMORY = 8  # strategy wrote past the end of its memory

# ---- the scratch of the work row (simulator.engine.work)
W_VIEW = 0  # the view of the seat to act (N_VIEW slots used)
W_SEAT_PILES = 32  # each seat's copy of the pile, the one its strategy gets
SCRATCH_LEN = 160  # slots in all

# ---- the work row of a match (simulator.engine.work)
K_STATE = 0  # the hand
K_SIDS = 192  # each seat's strategy id (a Python strategy's is negative)
K_SCRATCH = 194  # the view and the seats' pile copies
K_MEMORY = 354  # each seat's per-hand memory, then a spare row that stays 0 (work.memory_of)
K_RNGS = 610  # each seat's random stream (uint64 bits)
K_DECK = 612  # the deck the hand was dealt from
K_DECK_RNG = 664  # the deck's stream (uint64 bits)
K_SEED = 665  # the seed of the deal or game (uint64 bits)
K_RECORD = 666  # the hand's record (a hand row)
K_N_RULES = 688  # the rule vector's length
K_WIDTH = 689  # the parameter rows' width
#: 2 x rules (each seat's rule copy), 2 x width (each seat's parameter row, float64 bits), 2 x width (the copies lent)
K_LENT = 690

# ---- the RL observation's blocks (simulator.env.encoding)
O_HAND = 0  # hand: 52 values
O_DRAWN = 52  # drawn: 52 values
O_OPP_HELD = 104  # opponent_held: 52 values
O_OPP_DISCARDS = 156  # opponent_discards: 52 values
O_OPP_DECLINED = 208  # opponent_declined: 52 values
O_PILE = 260  # pile: 52 values
O_PILE_ORDER = 312  # pile_order: 52 values
O_TOP = 364  # top: 52 values
O_STOCK = 416  # stock: 32 values
O_PHASE = 448  # phase: 7 values
O_LIMIT = 455  # knock_limit: 11 values
O_FLAGS = 466  # flags: 2 values
O_DEADWOOD = 468  # deadwood: 1 values
O_SCORES = 469  # scores: 2 values
O_KNOCKER_SETS = 471  # knocker_sets: 52 values
O_KNOCKER_RUNS = 523  # knocker_runs: 52 values
N_OBS = 575  # values in all
#: (name, offset, size) of each block
OBSERVATION_LAYOUT = (('hand', 0, 52), ('drawn', 52, 52), ('opponent_held', 104, 52), ('opponent_discards', 156, 52), ('opponent_declined', 208, 52), ('pile', 260, 52), ('pile_order', 312, 52), ('top', 364, 52), ('stock', 416, 32), ('phase', 448, 7), ('knock_limit', 455, 11), ('flags', 466, 2), ('deadwood', 468, 1), ('scores', 469, 2), ('knocker_sets', 471, 52), ('knocker_runs', 523, 52))

# ---- outcomes of a hand record
OUT_KNOCK = 0
OUT_GIN = 1
OUT_BIG_GIN = 2
OUT_UNDERCUT = 3
OUT_DEAD = 4

# ---- the hand row (simulator.core.records.HAND_ROW)
H_DEAL = 0
H_PAIR = 1
H_A_SEAT = 2
H_DEALER = 3
H_OUTCOME = 4
H_KNOCKER = 5
H_WINNER = 6
H_POINTS = 7
H_KNOCKER_DW = 8
H_DEFENDER_DW = 9
H_LAYOFF = 10
H_DRAWS = 11
H_TURNS = 12
H_STOCK_LEFT = 13
H_UPCARD = 14
H_KNOCK_LIMIT = 15
H_RESHUFFLES = 16
H_ERROR = 17
H_GAME = 18
H_HAND_IN_GAME = 19
H_ERROR_SEAT = 20
H_ERROR_VALUE = 21
N_HAND_COLS = 22

# ---- the game row (simulator.core.records.GAME_ROW)
G_GAME = 0
G_PAIR = 1
G_A_SEAT = 2
G_FIRST_DEALER = 3
G_WINNER = 4
G_HANDS = 5
G_DEAD_HANDS = 6
G_POINTS0 = 7
G_POINTS1 = 8
G_BOXES0 = 9
G_BOXES1 = 10
G_SCORE0 = 11
G_SCORE1 = 12
G_SHUTOUT = 13
G_ERROR = 14
G_ERROR_SEAT = 15
G_ERROR_VALUE = 16
N_GAME_COLS = 17

# ---- the rule vector (simulator.core.records.RULE_VECTOR)
R_KNOCK_LIMIT = 0
R_GIN_ONLY = 1
R_OKLAHOMA = 2
R_OKLAHOMA_ACE_LIMIT = 3
R_SPADE_DOUBLE = 4
R_GIN_BONUS = 5
R_BIG_GIN_BONUS = 6
R_UNDERCUT_BONUS = 7
R_UNDERCUT_ON_TIE = 8
R_LAST_DISCARD = 9
R_RESHUFFLE = 10
R_MAX_RESHUFFLES = 11
R_TARGET = 12
R_GAME_BONUS = 13
R_SHUTOUT = 14
R_BOX_BONUS = 15
R_NEXT_DEALER = 16
N_RULE_FIELDS = 17
