"""Scoring one hand (docs/rules.md#scoring-a-hand), and the knock limit of a deal.

K is the knocker's deadwood, D the defender's after layoffs (no layoffs against gin):

* gin: the knocker scores ``gin_bonus + D`` and can never be undercut, even when D = 0;
* big gin: ``gin_bonus + big_gin_bonus + D``;
* knock with K < D: the knocker scores ``D - K``;
* undercut, D < K, or D = K when ``undercut_on_tie``: the defender scores
  ``K - D + undercut_bonus``; a tie without ``undercut_on_tie`` scores 0 for both.

Oklahoma's spade doubling is applied by the engine on top of these points.
"""

from __future__ import annotations

from numba import njit

from .cards import CARD_VALUE
from .rules import (
    R_BIG_GIN_BONUS,
    R_GIN_BONUS,
    R_GIN_ONLY,
    R_KNOCK_LIMIT,
    R_OKLAHOMA,
    R_OKLAHOMA_ACE_LIMIT,
    R_SPADE_DOUBLE,
    R_UNDERCUT_BONUS,
    R_UNDERCUT_ON_TIE,
)

KNOCKER = 0
DEFENDER = 1
NOBODY = -1


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def hand_multiplier_nb(upcard, rules):
    """2 when Oklahoma spade doubling applies to this deal (a spade upcard), else 1."""
    if rules[R_OKLAHOMA] and rules[R_SPADE_DOUBLE] and upcard >> 4 == 0:
        return 2
    return 1
