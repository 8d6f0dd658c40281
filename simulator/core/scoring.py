"""Scoring one hand (docs/rules.md#scoring-a-hand), the knock limit of a deal, and the
totals and next dealer of a game (docs/rules.md#the-game), and the end of a hand within a
game (``end_of_hand_nb``: the one place every game driver chains hands).

K is the knocker's deadwood, D the defender's after layoffs (no layoffs against gin):

* gin: the knocker scores ``gin_bonus + D`` and can never be undercut, even when D = 0;
* big gin: ``gin_bonus + big_gin_bonus + D``;
* knock with K < D: the knocker scores ``D - K``;
* undercut, D < K, or D = K when ``undercut_on_tie``: the defender scores
  ``K - D + undercut_bonus``; a tie without ``undercut_on_tie`` scores 0 for both.

With Oklahoma's spade doubling a spade upcard doubles these points, whatever the outcome
(``hand_multiplier_nb`` gives the deal's multiplier, ``settled_points_nb`` applies it; the
state machine's ``simulator.core.state.score_nb`` settles a hand with it).
"""

from __future__ import annotations


from .cards import CARD_VALUE
from .constants import (
    G_A_SEAT,
    G_BOXES0,
    G_BOXES1,
    G_DEAD_HANDS,
    G_ERROR,
    G_ERROR_SEAT,
    G_ERROR_VALUE,
    G_FIRST_DEALER,
    G_GAME,
    G_HANDS,
    G_PAIR,
    G_POINTS0,
    G_POINTS1,
    G_SCORE0,
    G_SCORE1,
    G_SHUTOUT,
    G_WINNER,
    H_DEALER,
    H_ERROR,
    H_ERROR_SEAT,
    H_ERROR_VALUE,
    H_OUTCOME,
    H_POINTS,
    H_WINNER,
    N_GAME_COLS,
    OUT_DEAD,
)
from .rules import (
    NEXT_ALTERNATE,
    NEXT_LOSER,
    R_BIG_GIN_BONUS,
    R_BOX_BONUS,
    R_GAME_BONUS,
    R_GIN_BONUS,
    R_GIN_ONLY,
    R_KNOCK_LIMIT,
    R_NEXT_DEALER,
    R_OKLAHOMA,
    R_OKLAHOMA_ACE_LIMIT,
    R_SHUTOUT,
    R_SPADE_DOUBLE,
    R_TARGET,
    R_UNDERCUT_BONUS,
    R_UNDERCUT_ON_TIE,
    SHUTOUT_DOUBLE,
    SHUTOUT_DOUBLE_BONUS,
)
from ..infra.jit import CORE

KNOCKER = 0
DEFENDER = 1
NOBODY = -1


@CORE
def score_hand_nb(knocker_deadwood, defender_deadwood, gin, big_gin, rules):
    """(winner, points, undercut): winner is KNOCKER, DEFENDER or NOBODY (a scoreless tie)."""
    if big_gin:
        return KNOCKER, rules[R_GIN_BONUS] + rules[R_BIG_GIN_BONUS] + defender_deadwood, False
    if gin:
        return KNOCKER, rules[R_GIN_BONUS] + defender_deadwood, False
    if knocker_deadwood < defender_deadwood:
        return KNOCKER, defender_deadwood - knocker_deadwood, False
    if knocker_deadwood == defender_deadwood and not rules[R_UNDERCUT_ON_TIE]:
        return NOBODY, 0, False
    return DEFENDER, knocker_deadwood - defender_deadwood + rules[R_UNDERCUT_BONUS], True


@CORE
def settled_points_nb(knocker_deadwood, defender_deadwood, gin, big_gin, multiplier, rules):
    """(winner, points, undercut) of a settled hand (docs/rules.md#scoring-a-hand): the points
    of ``score_hand_nb`` times the deal's ``multiplier`` (``hand_multiplier_nb``: 2 under
    Oklahoma spade doubling with a spade upcard, else 1)."""
    winner, points, undercut = score_hand_nb(knocker_deadwood, defender_deadwood, gin, big_gin, rules)
    return winner, points * multiplier, undercut


@CORE.python_entry
def points_to_seat_nb(winner, points, seat):
    """What a finished hand gives ``seat``: the winner's ``points``, negated for the loser, 0
    when nobody won (a dead hand, a scoreless tie).  The one reading of a hand's result from
    a seat's side: ``Hand.returns``, the RL environments' rewards and ``mc``'s rollout values."""
    if winner < 0:
        return 0
    return points if winner == seat else -points


@CORE
def deal_knock_limit_nb(upcard, rules):
    """The knock limit in force for a deal whose first upcard is ``upcard``.

    Gin only: 0.  Oklahoma: the upcard's value (face cards 10), an ace giving 0 (gin only)
    or 1 by ``oklahoma_ace``.  Otherwise ``knock_limit``.
    """
    if rules[R_GIN_ONLY]:
        return 0
    if rules[R_OKLAHOMA]:
        if upcard & 15 == 0:
            return rules[R_OKLAHOMA_ACE_LIMIT]
        return CARD_VALUE[upcard]
    return rules[R_KNOCK_LIMIT]


@CORE
def hand_multiplier_nb(upcard, rules):
    """2 when Oklahoma spade doubling applies to this deal (a spade upcard), else 1."""
    if rules[R_OKLAHOMA] and rules[R_SPADE_DOUBLE] and upcard >> 4 == 0:
        return 2
    return 1


@CORE
def game_totals_nb(points0, points1, boxes0, boxes1, winner, rules):
    """(total0, total1, shutout): the final scores of a finished game
    (docs/rules.md#the-game).

    ``points``: each seat's hand points; ``boxes``: hands won; ``winner``: the seat that
    reached the target, or -1 when the hand guard stopped the game (then no game bonus and
    no shutout, but box points still count).  The winner adds ``game_bonus``; a shutout (the
    loser has no hand points) doubles the winner's whole total (``double``) or only the game
    bonus (``double_bonus``)."""
    total0 = points0 + boxes0 * rules[R_BOX_BONUS]
    total1 = points1 + boxes1 * rules[R_BOX_BONUS]
    shutout = False
    if winner >= 0:
        shutout = (points1 if winner == 0 else points0) == 0
        bonus = rules[R_GAME_BONUS]
        if shutout and rules[R_SHUTOUT] == SHUTOUT_DOUBLE_BONUS:
            bonus *= 2
        if winner == 0:
            total0 += bonus
            if shutout and rules[R_SHUTOUT] == SHUTOUT_DOUBLE:
                total0 *= 2
        else:
            total1 += bonus
            if shutout and rules[R_SHUTOUT] == SHUTOUT_DOUBLE:
                total1 *= 2
    return total0, total1, shutout


@CORE
def next_dealer_nb(dealer, dead, hand_winner, rules):
    """The dealer of the next hand: the same after a dead hand, the other player after a
    scoreless tie (``hand_winner`` -1), otherwise as ``next_dealer`` says."""
    if dead:
        return dealer
    mode = rules[R_NEXT_DEALER]
    if mode == NEXT_ALTERNATE or hand_winner < 0:
        return 1 - dealer
    if mode == NEXT_LOSER:
        return 1 - hand_winner
    return hand_winner


@CORE
def new_game_nb(game_row, game, pair, a_seat, first_dealer):
    """Start the game record ``game_row`` (``G_*`` columns, ``simulator.core.records``) of a
    game about to be played: its identity, no hands, no points, no winner, no error."""
    for i in range(N_GAME_COLS):
        game_row[i] = 0
    game_row[G_GAME] = game
    game_row[G_PAIR] = pair
    game_row[G_A_SEAT] = a_seat
    game_row[G_FIRST_DEALER] = first_dealer
    game_row[G_WINNER] = -1
    game_row[G_ERROR_SEAT] = -1


@CORE
def end_of_hand_nb(game_row, hand_row, max_hands, rules):
    """Chain a finished hand into its game (docs/rules.md#the-game); every game driver
    (the batch kernel, the Python driver, the RL environment, ``ginsim play``) calls this.

    ``hand_row`` is the hand's record (``H_*``), ``game_row`` the game's (``G_*``, started
    by ``new_game_nb``), updated here: one more hand; a dead hand counted; the hand's
    points and box to its winner (a scoreless tie scores nothing).  The game ends when a
    seat's points reach ``target_score`` (that seat wins), when the hand stopped on a
    strategy's error (copied into the game's error columns), or after ``max_hands`` hands
    (the guard: no winner); then the final totals, with the game, box and shutout bonuses
    (``game_totals_nb``), are written.  Returns the dealer of the next hand
    (``next_dealer_nb``: the same after a dead hand), or -1 when the game is over."""
    game_row[G_HANDS] += 1
    dealer = hand_row[H_DEALER]
    hand_winner = hand_row[H_WINNER]
    dead = hand_row[H_OUTCOME] == OUT_DEAD
    over = False
    if hand_row[H_ERROR] != 0:
        game_row[G_ERROR] = hand_row[H_ERROR]
        game_row[G_ERROR_SEAT] = hand_row[H_ERROR_SEAT]
        game_row[G_ERROR_VALUE] = hand_row[H_ERROR_VALUE]
        over = True
    else:
        if dead:
            game_row[G_DEAD_HANDS] += 1
        elif hand_winner >= 0:
            game_row[G_POINTS0 + hand_winner] += hand_row[H_POINTS]  # (G_POINTS1, G_BOXES1 follow)
            game_row[G_BOXES0 + hand_winner] += 1
        target = rules[R_TARGET]
        if game_row[G_POINTS0] >= target:
            game_row[G_WINNER] = 0
            over = True
        elif game_row[G_POINTS1] >= target:
            game_row[G_WINNER] = 1
            over = True
        elif game_row[G_HANDS] >= max_hands:
            over = True
    if not over:
        return next_dealer_nb(dealer, dead, hand_winner, rules)
    total0, total1, shutout = game_totals_nb(game_row[G_POINTS0], game_row[G_POINTS1], game_row[G_BOXES0],
                                             game_row[G_BOXES1], game_row[G_WINNER], rules)
    game_row[G_SCORE0] = total0
    game_row[G_SCORE1] = total1
    game_row[G_SHUTOUT] = shutout
    return -1
