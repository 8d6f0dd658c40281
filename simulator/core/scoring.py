"""Scoring one hand (docs/rules.md#scoring-a-hand), the knock limit of a deal, and the
totals and next dealer of a game (docs/rules.md#the-game).

K is the knocker's deadwood, D the defender's after layoffs (no layoffs against gin):

* gin: the knocker scores ``gin_bonus + D`` and can never be undercut, even when D = 0;
* big gin: ``gin_bonus + big_gin_bonus + D``;
* knock with K < D: the knocker scores ``D - K``;
* undercut, D < K, or D = K when ``undercut_on_tie``: the defender scores
  ``K - D + undercut_bonus``; a tie without ``undercut_on_tie`` scores 0 for both.

Oklahoma's spade doubling is applied on top of these points when a hand is settled
(``simulator.core.state.score_nb``).
"""

from __future__ import annotations

from numba import njit

from .cards import CARD_VALUE
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
    R_UNDERCUT_BONUS,
    R_UNDERCUT_ON_TIE,
    SHUTOUT_DOUBLE,
    SHUTOUT_DOUBLE_BONUS,
)

KNOCKER = 0
DEFENDER = 1
NOBODY = -1


@njit(cache=True, forceinline=False)
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


@njit(cache=True, forceinline=False)
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


@njit(cache=True, forceinline=False)
def hand_multiplier_nb(upcard, rules):
    """2 when Oklahoma spade doubling applies to this deal (a spade upcard), else 1."""
    if rules[R_OKLAHOMA] and rules[R_SPADE_DOUBLE] and upcard >> 4 == 0:
        return 2
    return 1


@njit(cache=True)
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


@njit(cache=True)
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
