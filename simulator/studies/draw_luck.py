"""The luck of the stock draws, measured inside the kernels: AIVAT's chance correction.

Each card drawn from the stock is chance, and the engine knows the chance exactly: given
everything played so far, the next stock card is any card still in the stock with equal
probability (the stock was shuffled at the deal, or at a reshuffle, and no strategy sees
it).  So for a value function ``v`` (expected net points to the drawer of the position
just after a draw, ``simulator.studies.draw_values``), the *luck* of a draw

    v(the card drawn) - mean of v over every card the stock held

has expectation exactly 0, whatever ``v`` is and whatever the strategies are (Burch et al.,
"AIVAT", AAAI 2018: a chance node's correction).  A deal's net points to seat 0 minus the
sum of its draws' luck (each counted for the drawer: + for seat 0, - for seat 1) is therefore
an unbiased estimate of the deal's value; as far as ``v`` tells the good draws from the bad,
it varies less than the points.  Decisions get no correction: a deterministic decision needs
none, and a randomised one (a strategy's own random numbers) is left as the plain estimate
counts it, which keeps the estimate unbiased and only forgoes that part of the saving.

The kernels play mirrored deals (``play_corrected_deals_block_nb``) or games
(``play_corrected_games_block_nb``) exactly as ``simulator.engine.kernels`` plays them, each
hand with the loop stopped before every discard (the moment after a draw,
``PHASE_DISCARD``; ``play_hand_counting_nb``): when the card in hand came from the stock, it
adds the draw's luck.  In a game, a hand's luck in points is weighed by what a point is worth
in chances of winning the game at the hand's scores (``win_slope_nb``, the slopes of the
game-win table, ``draw_values.win_slopes``): still exactly 0 in expectation, since the weight
is known before any of the hand's draws.  A hand that ends on its draw (big gin) is settled
by the same bookkeeping: a draw is counted whenever the stock's position moved since the last
count.  The cell ``v`` reads (``cell_nb``: the drawer's deadwood after its best discard, the
opponent's deadwood, the stock left and the deal's knock limit) is the one function the
fitting reads too: the kernel records each draw's cell when asked, and ``draw_values.fit``
averages the hands' outcomes over them.

**The hands exchanged.**  ``exchange_dealt_hands_nb`` gives a hand just dealt with its two hands
exchanged, the upcard and the stock as they were: the deal of the deck whose dealt cards went to
the other seats, exactly as likely as the deal played.  With ``swap`` the deals' kernel plays
every deal so.  With a game-win table the games' kernel plays each hand of a game twice, first
exchanged and then as dealt, from the same scores (``play_exchanged_hand_nb`` puts the work row
back exactly), and adds up the chance of winning the game after the exchanged hand less after
the hand played: given the game so far, 0 in expectation.  ``simulator.studies.controls`` sets
both against the values played.  The games' kernel also records each game's first dealer and
the deadwoods dealt in its first hand, for the first mover's edge.

**The stand-ins' replays.**  Given stand-ins (other players seated in the players' places), the
games' kernel replays each hand of a game from the same scores and with the same random numbers
(``play_stand_in_hands_nb``): as dealt, with its two hands exchanged, and from a few other decks,
each a fixed permutation of the hand's deck (``simulator.core.state.deal_permuted_nb``, which
maps the shuffled decks one to one).  The chance of winning the game after each replay less after
the replay as dealt is 0 in expectation given the game so far, whoever the stand-ins are; when
they play much as the players do and cost far less, the replays explain much of a game's outcome
for little CPU.

It plays with the engine's loop (``loop``), a binding point of
``simulator.engine.factory``: ``luck_kernels`` gives this module itself for the engine
routing every strategy, and this module rendered with the loop of a lighter engine otherwise.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from ..core.constants import (
    ERR_NONE,
    G_ERROR,
    G_FIRST_DEALER,
    G_WINNER,
    H_ERROR,
    H_POINTS,
    H_WINNER,
    N_GAME_COLS,
    N_HAND_COLS,
    PHASE_DISCARD,
    PHASE_OVER,
    R_TARGET,
)
from ..core.hand_reading import (
    hand_of_nb,
    hand_points_to_seat_nb,
    knock_limit_nb,
    score_before_nb,
    stock_card_nb,
    stock_place_nb,
)
from ..core.cards import CARD_VALUE
from ..core.melds import best_discard_nb, discard_deadwoods_nb, melds_with_card_nb, min_deadwood_nb
from ..core.scoring import points_to_seat_nb
from ..core.state import deal_permuted_nb, exchange_dealt_hands_nb
from ..engine import loop as builtin_loop
from ..engine.factory import bound, with_loop
from ..core.rules import MAX_HANDS_PER_GAME
from ..engine.kernels import GAME_ITEMS, builtin_only
from ..engine.work import deck_of, new_work, next_hand_nb, seat_nb, start_deal_nb, start_game_nb, state_of
from ..infra.blocks import MIN_BLOCK_ITEMS, call_plan, run_blocks
from ..infra.jit import HOT, KERNEL, MERGED

#: the loop the kernel plays with: ``simulator.engine.loop`` here, an engine's own in a copy
#: rendered by ``simulator.engine.factory`` (``luck_kernels``)
loop = bound(globals(), "loop", builtin_loop)
#: this module's name as a template of ``simulator.engine.factory.TEMPLATES``
TEMPLATE = "simulator.studies.draw_luck"
#: the cell layout: bands of the drawer's deadwood (0 .. 30, more counted as 30), of the
#: opponent's (0 .. 30 one by one, then bands of 5 up to 100), of the stock left and of the limit
N_MINE, N_OPPONENT, N_STOCK, N_LIMIT = 31, 45, 4, 4
N_CELLS = N_LIMIT * N_MINE * N_OPPONENT * N_STOCK
#: the layout's name, stored in every table (a changed layout is a new name)
LAYOUT = "limit4-mine31-opponent45-stock4"


@HOT
def cell_nb(mine, opponent, stock_left, limit):
    """The cell of the position just after a stock draw (``LAYOUT``): ``mine`` the
    drawer's deadwood after its best discard, ``opponent`` the opponent's deadwood,
    ``stock_left`` the cards left in the stock, ``limit`` the deal's knock limit."""
    m = min(mine, N_MINE - 1)
    o = opponent if opponent <= 30 else min(30 + (opponent - 26) // 5, N_OPPONENT - 1)
    s = min(stock_left // 8, N_STOCK - 1)
    if limit <= 0:
        band = 0
    elif limit <= 5:
        band = 1
    elif limit <= 9:
        band = 2
    else:
        band = 3
    return ((band * N_MINE + m) * N_OPPONENT + o) * N_STOCK + s


#: a deal's ``draws`` when a strategy erred (the deal is refused), or when its draws did not
#: fit the recording's capacity
DRAWS_ERROR = -1
DRAWS_OVERFLOW = -2


def luck_kernels(engine: ModuleType) -> ModuleType:
    """This module playing with engine ``engine``'s loop (``simulator.engine.factory.with_loop``)."""
    return with_loop(TEMPLATE, "ginsim_draw_luck", engine)


@HOT
def isolated_deadwood_nb(kept, one_out, card):
    """The least deadwood after the best discard of a ten-card hand plus ``card``, a card that
    melds with none of the hand's (``melds_with_card_nb`` false): the hand's own least deadwood
    ``kept`` (the card discarded), or the card's value on top of ``one_out``, the least deadwood
    of the hand less its best discard (the card kept).  ``best_discard_nb`` gives the same."""
    return min(kept, one_out + CARD_VALUE[card])


@MERGED
def draw_luck_nb(state, seat, card, first, values):
    """The luck of ``seat``'s draw of ``card`` from the stock, whose cards before the draw
    were the stock's cards ``first ..`` (``stock_card_nb``): ``v`` of the card drawn minus the
    mean of ``v`` over those cards (``values``: the fitted table, by ``cell_nb``), with the
    drawer's cell of the card drawn."""
    before = hand_of_nb(state, seat) & ~(np.int64(1) << card)
    opponent = min_deadwood_nb(hand_of_nb(state, 1 - seat))
    _, n, _ = stock_place_nb(state)
    left = n - first - 1  # the stock left after the draw, whichever card it was
    limit = knock_limit_nb(state)
    # a card that melds with no card of the hand is discarded, or kept at its full value in
    # place of the hand's best discard: its deadwood needs no search (``isolated_deadwood_nb``)
    kept = min_deadwood_nb(before)
    one_out, _ = discard_deadwoods_nb(before, before)
    total = 0.0
    drawn_cell = np.int64(-1)
    for k in range(first, n):
        c = stock_card_nb(state, k)
        if melds_with_card_nb(before, c):
            _, mine = best_discard_nb(before | (np.int64(1) << c), np.int64(-1))
        else:
            mine = isolated_deadwood_nb(kept, one_out, c)
        cell = cell_nb(mine, opponent, left, limit)
        total += values[cell]
        if c == card:
            drawn_cell = cell
    return values[drawn_cell] - total / (n - first), drawn_cell


@MERGED
def count_draw_nb(state, seen, values, cells, n_draws):
    """Count the stock draw made since the state was last counted (``seen``: the stock's
    position and reshuffles then, updated here), the deal's ``n_draws``-th, and record its
    drawer and cell in ``cells`` while there is room.  Returns its luck to seat 0 (0.0 when no
    stock card was drawn) and the deal's draws counted so far."""
    luck = 0.0
    pos, _, reshuffles = stock_place_nb(state)
    first = seen[0] if reshuffles == seen[1] else np.int64(0)
    if pos == first + 1:
        card = stock_card_nb(state, first)
        seat = np.int64(0) if (hand_of_nb(state, 0) >> card) & 1 else np.int64(1)
        value, cell = draw_luck_nb(state, seat, card, first, values)
        luck = value if seat == 0 else -value
        if n_draws < cells.shape[0]:
            cells[n_draws, 0] = seat
            cells[n_draws, 1] = cell
        n_draws += 1
    seen[0] = pos
    seen[1] = reshuffles
    return luck, n_draws


@MERGED
def play_hand_counting_nb(work, rules, row, trace, values, cells, seen):
    """Play the hand dealt into the work row to its end, counting every stock draw's luck
    (``count_draw_nb``; ``cells`` records each draw's drawer and cell while it has room).
    Returns how the loop ended (``2 * PHASE_OVER``, or -1 when a strategy erred), the hand's
    luck to seat 0 and its stock draws."""
    state = state_of(work)
    seen[0], _, seen[1] = stock_place_nb(state)
    # stop before either seat discards; once stopped for a seat, before the other's only,
    # so the loop plays the stopped seat's discard and exactly one draw lies between stops
    stop_mask = (np.int64(1) << (2 * PHASE_DISCARD)) | (np.int64(1) << (2 * PHASE_DISCARD + 1))
    at = loop.run_until_nb(work, rules, stop_mask, row, trace)
    luck, n_draws = count_draw_nb(state, seen, values, cells, np.int64(0))
    while 0 <= at < 2 * PHASE_OVER:
        stop_mask = np.int64(1) << (2 * PHASE_DISCARD + 1 - at % 2)
        at = loop.run_until_nb(work, rules, stop_mask, row, trace)
        more, n_draws = count_draw_nb(state, seen, values, cells, n_draws)
        luck += more
    return at, luck, n_draws


@KERNEL
def play_corrected_deals_block_nb(seed, first_deal, start, stop, rules, sids_ab, params_ab, values, a_seats, nets,
                                  lucks, draws, cells, dealers, dealt, trace, work, row, seen, swap):
    """Deals ``first_deal + start .. first_deal + stop - 1`` (mirrored, as ``play_deals``)
    played to their end with every stock draw's luck counted (``play_hand_counting_nb``):
    deal i's net points to seat 0 in ``nets[i]``, the sum of its draws' luck to seat 0 in
    ``lucks[i]``, A's seat in ``a_seats[i]``, the dealing seat in ``dealers[i]``, each seat's
    least deadwood of the ten cards dealt to it in ``dealt[i]``, its stock draws in
    ``draws[i]``.  When
    ``cells`` (n × capacity × 2) has columns, each draw's drawer and cell go to
    ``cells[i, :draws[i]]``.  ``draws[i]`` is ``DRAWS_ERROR`` for a deal where a strategy
    erred, ``DRAWS_OVERFLOW`` when its draws did not fit.  ``row`` (``N_HAND_COLS``) and
    ``seen`` (2) are the block's scratch.  With ``swap`` every deal is played with its two
    hands exchanged (``simulator.core.state.exchange_dealt_hands_nb``; ``trace`` must then record
    nothing)."""
    zero = np.int64(0)
    recording = cells.shape[1] > 0
    state = state_of(work)
    for i in range(start, stop):
        _, dealer, a_seat = start_deal_nb(work, seed, first_deal + i, True, zero, zero, rules, row, trace)
        if swap:
            exchange_dealt_hands_nb(state)
        a_seats[i] = a_seat
        dealers[i] = dealer
        dealt[i, 0] = min_deadwood_nb(hand_of_nb(state, zero))
        dealt[i, 1] = min_deadwood_nb(hand_of_nb(state, np.int64(1)))
        seat_nb(work, a_seat, sids_ab, params_ab)
        at, luck, n_draws = play_hand_counting_nb(work, rules, row, trace, values, cells[i], seen)
        nets[i] = points_to_seat_nb(row[H_WINNER], row[H_POINTS], zero)
        lucks[i] = luck
        if at < 0 or row[H_ERROR] != ERR_NONE:
            draws[i] = DRAWS_ERROR
        elif recording and n_draws > cells.shape[1]:
            draws[i] = DRAWS_OVERFLOW
        else:
            draws[i] = n_draws


@MERGED
def win_slope_nb(state, rules, slopes):
    """How much seat 0's chance of winning the game moves per net point of the hand being
    played, at the game scores before it (``slopes``: by the two scores' bands of the target,
    ``simulator.studies.draw_values.win_slopes``)."""
    bands = slopes.shape[0]
    target = max(rules[R_TARGET], np.int64(1))
    return slopes[score_band_nb(score_before_nb(state, 0), bands, target),
                  score_band_nb(score_before_nb(state, 1), bands, target)]


@HOT
def score_band_nb(score, bands, target):
    """The band of a game score below ``target`` in a table of ``bands`` equal bands of it."""
    return min(score * bands // target, bands - 1)


@MERGED
def win_after_nb(state, rules, wins):
    """Seat 0's chance of winning the game once the finished hand's points
    (``hand_points_to_seat_nb``) are added to the scores before it (``wins``: the game-win table
    by bands of both scores, ``draw_values.load_wins``; reaching the target wins)."""
    target = max(rules[R_TARGET], np.int64(1))
    net0 = hand_points_to_seat_nb(state, np.int64(0))
    s0 = score_before_nb(state, 0) + max(net0, 0)
    s1 = score_before_nb(state, 1) + max(-net0, 0)
    if s0 >= target:
        return 1.0
    if s1 >= target:
        return 0.0
    bands = wins.shape[0]
    return wins[score_band_nb(s0, bands, target), score_band_nb(s1, bands, target)]


@HOT
def copy_nb(target, source):
    """``target[:] = source`` (the kernels run without numba's runtime, which a slice copy needs)."""
    for k in range(source.shape[0]):
        target[k] = source[k]


@MERGED
def play_exchanged_hand_nb(work, rules, row, trace, values, no_cells, seen, wins, spare_work, spare_row):
    """Play the hand just dealt into the work row with its two hands exchanged
    (``exchange_dealt_hands_nb``), then put the work row back as it was dealt, so the hand
    itself is played next from exactly where it stood.  Returns whether a strategy erred, seat
    0's chance of winning the game after the exchanged hand (``win_after_nb``) and the luck to
    seat 0 of its draws, in points."""
    copy_nb(spare_work, work)
    copy_nb(spare_row, row)
    state = state_of(work)
    exchange_dealt_hands_nb(state)
    at, luck, _ = play_hand_counting_nb(work, rules, row, trace, values, no_cells, seen)
    erred = at < 0 or row[H_ERROR] != ERR_NONE
    chance = win_after_nb(state, rules, wins)
    copy_nb(work, spare_work)
    copy_nb(row, spare_row)
    return erred, chance, luck


@MERGED
def play_stand_in_hands_nb(work, rules, row, trace, wins, spare_work, spare_row, a_seat, stand_in_sids,
                           stand_in_params, perms, alt_deck, chances):
    """Play the hand just dealt into the work row again and again with stand-ins seated in place
    of the players (``stand_in_sids``, ``stand_in_params``: A's stand-in first), from the same
    scores and the same random numbers, putting the work row back as it was dealt after each:
    as dealt, with its two hands exchanged, and dealt from each deck ``perms`` makes of the
    hand's (``perms[k]``: the positions of the deck the k-th deck takes its cards from).  Seat
    0's chance of winning the game after each (``win_after_nb``) goes to ``chances`` (dealt,
    exchanged, then one per permutation).  A replay's draws are not counted: only its end is read.
    Returns whether a strategy erred."""
    state = state_of(work)
    copy_nb(spare_work, work)
    copy_nb(spare_row, row)
    erred = False
    for v in range(2 + perms.shape[0]):
        if v >= 2:
            deal_permuted_nb(state, deck_of(work), perms[v - 2], alt_deck, rules, trace)
        seat_nb(work, a_seat, stand_in_sids, stand_in_params)
        if v == 1:
            exchange_dealt_hands_nb(state)
        at = loop.run_until_nb(work, rules, np.int64(loop.STOP_AT_END), row, trace)
        erred = erred or at < 0 or row[H_ERROR] != ERR_NONE
        chances[v] = win_after_nb(state, rules, wins)
        copy_nb(work, spare_work)
        copy_nb(row, spare_row)
    return erred


@KERNEL
def play_corrected_games_block_nb(seed, first_game, start, stop, rules, sids_ab, params_ab, values, slopes, wins,
                                  a_seats, winners, lucks, first_dealers, dealt, exchanges, no_cells, trace, work, row,
                                  seen, game_row, spare_work, spare_row, stand_in_sids, stand_in_params, perms,
                                  replays, alt_deck, chances):
    """Games ``first_game + start .. first_game + stop - 1`` (mirrored, as ``play_games``)
    played to their end with every stock draw's luck counted, each hand's in points
    (``play_hand_counting_nb``) times the chance of winning the game a point is worth at the
    hand's scores (``win_slope_nb``): game i's winning seat in ``winners[i]`` (-1 when a
    strategy erred), the sum of its draws' luck in seat 0's chance of winning the game in
    ``lucks[i]``, A's seat in ``a_seats[i]``, the seat that dealt its first hand in
    ``first_dealers[i]`` and each seat's least deadwood of the ten cards dealt to it in that
    hand in ``dealt[i]``.

    When ``exchanges`` (n × 2) has columns, each hand is first played from the same scores with
    its two hands exchanged (``play_exchanged_hand_nb``), as likely as the hand dealt: game i's
    sum over its hands of seat 0's chance of winning the game after the exchanged hand less
    after the hand played (``win_after_nb``, ``wins``) goes to ``exchanges[i, 0]``, the
    exchanged hands' draws' luck, weighed as the game's, to ``exchanges[i, 1]``.  Given the
    game so far each term is 0 in expectation.

    When ``replays`` (n × 2) has columns, each hand is also replayed from the same scores by the
    stand-ins ``stand_in_sids`` (parameter rows ``stand_in_params``, A's stand-in in A's seat),
    as dealt, with its two hands exchanged and from each deck ``perms`` makes of the hand's
    (``play_stand_in_hands_nb``): game i's sum over its hands of seat 0's chance of winning the
    game after the exchanged replay less after the dealt one goes to ``replays[i, 0]``, and of
    the mean chance after the permuted decks' replays less after the dealt one to
    ``replays[i, 1]``.  Given the game so far each deck replayed is exactly as likely as the deck
    dealt, and the stand-ins play each with the same random numbers, so each term is 0 in
    expectation whoever the stand-ins are; the closer they play to the players, the more of the
    game's outcome the replays explain.

    ``no_cells`` (capacity × 2, no rows), ``row``, ``seen`` (2), ``game_row`` (``N_GAME_COLS``),
    ``spare_work`` (a work row), ``spare_row`` (``N_HAND_COLS``), ``alt_deck`` (52) and
    ``chances`` (2 + k) are the block's scratch."""
    max_hands = np.int64(MAX_HANDS_PER_GAME)
    exchanging = exchanges.shape[1] > 0
    replaying = replays.shape[1] > 0
    state = state_of(work)
    for i in range(start, stop):
        a_seat = start_game_nb(work, seed, first_game + i, True, rules, game_row, row, trace)
        a_seats[i] = a_seat
        first_dealers[i] = game_row[G_FIRST_DEALER]
        dealt[i, 0] = min_deadwood_nb(hand_of_nb(state, np.int64(0)))
        dealt[i, 1] = min_deadwood_nb(hand_of_nb(state, np.int64(1)))
        seat_nb(work, a_seat, sids_ab, params_ab)
        total = 0.0
        dealer = np.int64(0)
        erred = False
        while dealer >= 0:
            slope = win_slope_nb(state, rules, slopes)
            if exchanging:
                erred, chance, luck = play_exchanged_hand_nb(work, rules, row, trace[:0], values, no_cells, seen,
                                                             wins, spare_work, spare_row)
                exchanges[i, 0] += chance
                exchanges[i, 1] += slope * luck
                if erred:
                    break
            if replaying:
                erred = play_stand_in_hands_nb(work, rules, row, trace[:0], wins, spare_work, spare_row, a_seat,
                                               stand_in_sids, stand_in_params, perms, alt_deck, chances)
                replays[i, 0] += chances[1] - chances[0]
                permuted = 0.0
                for k in range(perms.shape[0]):
                    permuted += chances[2 + k]
                replays[i, 1] += permuted / perms.shape[0] - chances[0]
                if erred:
                    break
            at, luck, _ = play_hand_counting_nb(work, rules, row, trace[:0], values, no_cells, seen)
            total += slope * luck
            if at < 0 or row[H_ERROR] != ERR_NONE:
                erred = True
                break
            if exchanging:
                exchanges[i, 0] -= win_after_nb(state, rules, wins)
            dealer = next_hand_nb(work, game_row, max_hands, rules, row, trace[:0])
        winners[i] = -1 if erred or game_row[G_ERROR] != ERR_NONE else game_row[G_WINNER]
        lucks[i] = total


def play_corrected_deals(seed, first_deal, n_deals, rules, sids_ab, params_ab, values, capacity=0, threads=None,
                         swap=False):
    """Deals ``first_deal ..`` with their draws' luck (``play_corrected_deals_block_nb``) on
    ``threads`` threads: ``(a_seats, nets, lucks, draws, cells, dealers, dealt)``; ``cells`` is
    (n_deals × ``capacity`` × 2) int16, empty unless a ``capacity`` is given; ``dealt`` is
    (n_deals × 2).  ``swap``: each deal played with its two hands exchanged."""
    no_trace = np.zeros((0, 3), np.int64)
    seed = np.uint64(seed)
    width = params_ab.shape[1]
    values = np.ascontiguousarray(values, dtype=np.float64)
    a_seats = np.zeros(n_deals, np.int64)
    nets = np.zeros(n_deals, np.int64)
    lucks = np.zeros(n_deals, np.float64)
    draws = np.zeros(n_deals, np.int64)
    cells = np.zeros((n_deals, capacity, 2), np.int16)
    dealers = np.zeros(n_deals, np.int64)
    dealt = np.zeros((n_deals, 2), np.int64)
    threads, n_blocks = call_plan(n_deals, threads)

    def block(start, stop):
        play_corrected_deals_block_nb(seed, first_deal, start, stop, rules, sids_ab, params_ab, values, a_seats,
                                      nets, lucks, draws, cells, dealers, dealt, no_trace, new_work(rules, width),
                                      np.zeros(N_HAND_COLS, np.int64), np.zeros(2, np.int64), bool(swap))

    run_blocks(block, n_deals, threads, n_blocks, inline=builtin_only(sids_ab))
    return a_seats, nets, lucks, draws, cells, dealers, dealt


def play_corrected_games(seed, first_game, n_games, rules, sids_ab, params_ab, values, slopes, threads=None,
                         wins=None, exchange=False, stand_ins=None):
    """Games ``first_game ..`` with their draws' luck in chances of winning the game
    (``play_corrected_games_block_nb``) on ``threads`` threads: ``(a_seats, winners, lucks,
    first_dealers, dealt, exchanges, replays)``; a game a strategy erred in has winner -1;
    ``dealt`` is (n_games × 2), each seat's least deadwood dealt in the first hand.  The game-win
    table ``wins`` is read by what follows.  With ``exchange`` each hand is also played with its
    two hands exchanged and ``exchanges`` (n_games × 2) holds what that changes; with
    ``stand_ins`` (their ids, parameter rows as wide as ``params_ab``, A's stand-in first, and the
    permutations of the deck, k × 52) each hand is also replayed by the stand-ins and
    ``replays`` (n_games × 2) holds what that changes (``play_corrected_games_block_nb``); else
    each has no columns."""
    no_trace = np.zeros((0, 3), np.int64)
    seed = np.uint64(seed)
    width = params_ab.shape[1]
    values = np.ascontiguousarray(values, dtype=np.float64)
    slopes = np.ascontiguousarray(slopes, dtype=np.float64)
    if (exchange or stand_ins is not None) and wins is None:
        raise ValueError("the hands exchanged and the stand-ins' replays read a game-win table: give wins")
    a_seats = np.zeros(n_games, np.int64)
    winners = np.zeros(n_games, np.int64)
    lucks = np.zeros(n_games, np.float64)
    first_dealers = np.zeros(n_games, np.int64)
    dealt = np.zeros((n_games, 2), np.int64)
    exchanges = np.zeros((n_games, 2 if exchange else 0), np.float64)
    replays = np.zeros((n_games, 0 if stand_ins is None else 2), np.float64)
    if stand_ins is None:
        stand_in_sids, stand_in_params, perms = sids_ab, params_ab, np.zeros((0, 52), np.int64)
    else:
        stand_in_sids, stand_in_params, perms = stand_ins
        perms = np.ascontiguousarray(perms, dtype=np.int64)
        if stand_in_params.shape[1] != width or perms.ndim != 2 or perms.shape[0] < 1 or perms.shape[1] != 52:
            raise ValueError("the stand-ins' parameter rows must be as wide as the players', their decks k × 52, k ≥ 1")
    wins = np.zeros((1, 1)) if wins is None else np.ascontiguousarray(wins, dtype=np.float64)
    threads, n_blocks = call_plan(n_games * GAME_ITEMS, threads, MIN_BLOCK_ITEMS * GAME_ITEMS)

    def block(start, stop):
        play_corrected_games_block_nb(seed, first_game, start, stop, rules, sids_ab, params_ab, values, slopes, wins,
                                      a_seats, winners, lucks, first_dealers, dealt, exchanges,
                                      np.zeros((0, 2), np.int16), no_trace, new_work(rules, width),
                                      np.zeros(N_HAND_COLS, np.int64), np.zeros(2, np.int64),
                                      np.zeros(N_GAME_COLS, np.int64), new_work(rules, width),
                                      np.zeros(N_HAND_COLS, np.int64), stand_in_sids, stand_in_params, perms,
                                      replays, np.zeros(52, np.int64), np.zeros(2 + perms.shape[0]))

    inline = builtin_only(sids_ab) and builtin_only(stand_in_sids)
    run_blocks(block, n_games, threads, min(n_blocks, n_games), inline=inline)
    return a_seats, winners, lucks, first_dealers, dealt, exchanges, replays
