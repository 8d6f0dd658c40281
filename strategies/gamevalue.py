"""Score awareness: what a hand's result is worth in a whole game (numba).

``hand_utility_nb`` values a finished hand state (``simulator.core.state``) from seat 0's side:

* hand points (``game_aware`` off): + the points seat 0 scored, − those seat 1 scored;
* game-aware: the probability that seat 0 goes on to win the game from the scores after
  the hand, ``win_probability_nb(mine, theirs, target)``, read from ``GAME_WIN``.

``GAME_WIN[a, b]`` is the chance that a player with ``a`` points wins a game to 100
against one with ``b`` (scores of other targets are scaled to 100).  It is computed from
``HAND_POINTS``, the distribution of one hand's result between equal strong players:
``HAND_POINTS[x]`` is the probability that a given seat wins a hand by exactly ``x``
points (dead hands left out: they are dealt again).  Then, exactly,

    W(a, b) = Σx HAND_POINTS[x] · (W(a + x, b) + W(a, b + x)) / (2 Σx HAND_POINTS[x]),

with W = 1 once a ≥ 100 and 0 once b ≥ 100 (the dealer's small edge is averaged out).
``HAND_POINTS`` was learned by simulation (``python -m simulator.studies.gamevalue``: 200,000
hands of ``expert`` against itself under the ``tournament`` rules).  ``python -m
simulator.studies.gamevalue check`` (``check_table``) compares the table with the outcomes of
simulated games.  Box and game bonuses
do not change who reaches the target first, so one table serves every preset.
"""

from __future__ import annotations

import numpy as np

from simulator.infra.jit import ALLOCATES
from simulator.core.rules import R_TARGET
from simulator.core.hand_reading import hand_points_to_seat_nb, score_before_nb

TABLE_TARGET = 100

#: P(a given seat wins a hand by exactly x points), x = 0 .. len - 1 (learned; see above)
HAND_POINTS = np.array([
    0.000000, 0.000534, 0.000813, 0.000962, 0.001204, 0.001291, 0.001501, 0.001433, 0.001570,
    0.001657, 0.001837, 0.001756, 0.002023, 0.001942, 0.001892, 0.001806, 0.002364, 0.002023,
    0.002078, 0.002004, 0.002060, 0.002178, 0.002141, 0.002482, 0.002488, 0.002513, 0.067393,
    0.048500, 0.036476, 0.036867, 0.034236, 0.034044, 0.029688, 0.028063, 0.021250, 0.016696,
    0.013904, 0.011584, 0.009195, 0.007259, 0.006242, 0.005361, 0.004449, 0.004238, 0.003927,
    0.003692, 0.003003, 0.003034, 0.002680, 0.002674, 0.002172, 0.002178, 0.002010, 0.001905,
    0.001557, 0.001228, 0.001104, 0.001061, 0.000999, 0.000918, 0.000869, 0.000620, 0.000552,
    0.000422, 0.000360, 0.000403, 0.000292, 0.000285, 0.000304, 0.000186, 0.000161, 0.000118,
    0.000136, 0.000136, 0.000136, 0.000112, 0.000074, 0.000056, 0.000043, 0.000081, 0.000062,
    0.000068, 0.000037, 0.000025, 0.000031, 0.000025, 0.000037, 0.000050, 0.000025, 0.000006,
    0.000025, 0.000037, 0.000006, 0.000019, 0.000012, 0.000006, 0.000019, 0.000012, 0.000006,
    0.000006
], dtype=np.float64)


def game_win_table(hand_points: np.ndarray, target: int = TABLE_TARGET) -> np.ndarray:
    """``W[a, b]`` for 0 ≤ a, b < target (the recursion of the module docstring)."""
    p = np.asarray(hand_points, dtype=np.float64)
    total = 2 * p.sum()
    if total <= 0:
        return np.full((target, target), 0.5)
    xs = np.flatnonzero(p)
    px = p[xs] / total
    size = target + int(xs.max()) + 1
    w = np.zeros((size, size))
    w[target:, :] = 1.0  # a reached the target first
    w[:target, target:] = 0.0
    for a in range(target - 1, -1, -1):
        for b in range(target - 1, -1, -1):
            w[a, b] = px @ w[a + xs, b] + px @ w[a, b + xs]
    return w[:target, :target].copy()


GAME_WIN = game_win_table(HAND_POINTS)


@ALLOCATES
def win_probability_nb(mine, theirs, target):
    """The chance of winning a game to ``target`` from these scores (``GAME_WIN``)."""
    if mine >= target:
        return 1.0
    if theirs >= target:
        return 0.0
    a = mine * TABLE_TARGET // target
    b = theirs * TABLE_TARGET // target
    return GAME_WIN[a, b]


@ALLOCATES
def hand_utility_nb(state, rules, game_aware):
    """A finished hand's value to seat 0: hand points, or game-win probability."""
    points = hand_points_to_seat_nb(state, 0)
    if not game_aware or rules[R_TARGET] <= 0:
        return np.float64(points)
    mine = score_before_nb(state, 0) + max(points, 0)
    theirs = score_before_nb(state, 1) + max(-points, 0)
    return win_probability_nb(mine, theirs, rules[R_TARGET])
