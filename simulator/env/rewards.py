"""The reward options and the stable action set of the RL environments.

``reward=`` (every environment: ``GinRummyEnv``, ``GinRummySingleEnv``, ``GinRummyVectorEnv``):

* ``"points"`` (default): at the end of each hand the winner gets the hand's points and the
  loser minus them (docs/rules.md#scoring); with ``game=True`` the game's bonuses (game,
  boxes, shutout: docs/rules.md#the-game) are paid with the last hand, so an episode's
  return is the final game score minus the opponent's;
* ``"points/100"``: the same divided by 100 (returns of order 1, what default PPO settings
  expect);
* ``"win"`` (needs ``game=True``): +1 to the game's winner and -1 to the loser when the game
  ends, 0 for every hand and for a game cut by the engine's guard.

An illegal action in the Gymnasium environments ends the episode with ``illegal_reward``,
given in the reward's own units; by default -25 points, -0.25 with ``"points/100"``, -1
with ``"win"``.

``actions=`` (every environment): ``"all"`` (default) is the whole action space, where
``lay_out(k)`` and ``defend(k)`` for k >= 1 mean "the k-th least-deadwood arrangement of
this hand", a meaning that shifts from state to state; ``"stable"`` masks those out, so
every legal code means the same thing in every state: the discards, ``DRAW_STOCK``,
``TAKE_PILE``, ``PASS``, ``KNOCK``, ``PLAY_ON``, ``LAY_OUT`` (lay out the least-deadwood
arrangement that comes first in ``simulator.core.melds.arrangement_nb``'s order),
``DEFEND_BEST`` (the best response: melds and layoffs leaving the least deadwood) and
``DEFEND_NO_LAYOFFS`` (that first arrangement, nothing laid off).  The
codes keep their numbers, so a policy trained on either set reads the same codes.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..core.constants import A_ARRANGE, A_DEFEND, A_DEFEND_BEST, G_POINTS0, G_POINTS1, G_SCORE0, G_SCORE1, G_WINNER, N_ACTIONS
from ..core.melds import MAX_ARRANGEMENTS
from ..infra.jit import ALLOCATES

REWARDS = ("points", "points/100", "win")
#: ``REWARDS``' indices, as the numba side takes them
REWARD_POINTS, REWARD_POINTS_100, REWARD_WIN = range(3)
ACTION_SETS = ("all", "stable")
_ILLEGAL = {"points": -25.0, "points/100": -0.25, "win": -1.0}


def reward_mode(reward: str, game: bool) -> int:
    """The index of ``reward`` in ``REWARDS`` (a one-line ValueError otherwise)."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
    if reward == "win" and not game:
        raise ValueError("reward='win' rewards game wins: it needs game=True")
    return REWARDS.index(reward)


def illegal_reward_for(reward: str) -> float:
    """The default reward of an illegal action under ``reward``."""
    return _ILLEGAL[reward]


def check_action_set(actions: str) -> str:
    if actions not in ACTION_SETS:
        raise ValueError(f"actions must be one of {', '.join(ACTION_SETS)}, got {actions!r}")
    return actions


def scale(points: float, reward: str) -> float:
    """A hand's (or a game's) points as the reward ``reward`` pays them per hand."""
    return float(scaled_nb(np.float64(points), REWARDS.index(reward)))


@ALLOCATES.python_entry
def scaled_nb(points, mode):
    """``points`` as the reward of index ``mode`` (``REWARDS``) pays them for a hand: as they
    are, divided by 100, or 0 (``"win"`` pays only a game's end)."""
    if mode == REWARD_POINTS_100:
        return points / 100.0
    if mode == REWARD_WIN:
        return 0.0
    return points


@ALLOCATES.python_entry
def game_end_reward_nb(game, seat, hand_points, mode):
    """The reward ``seat`` gets when its game ends with a winner (``game``, the game row after
    its last hand; ``hand_points``, what that hand gave the seat): +1 or -1 under ``"win"``,
    else the hand's points with the game's bonuses (game, boxes, shutout: the final totals'
    difference beyond the hands' points), scaled.  The one game-end reward of the RL
    environments (``GinRummyEnv`` and the vector environment's kernels)."""
    if mode == REWARD_WIN:
        return 1.0 if game[G_WINNER] == seat else -1.0
    bonus = np.float64((game[G_SCORE0] - game[G_SCORE1]) - (game[G_POINTS0] - game[G_POINTS1]))
    return scaled_nb(np.float64(hand_points) + (bonus if seat == 0 else -bonus), mode)


@lru_cache(maxsize=1)
def stable_mask() -> np.ndarray:
    """``int8[N_ACTIONS]``: 1 for the codes of the stable action set."""
    mask = np.ones(N_ACTIONS, np.int8)
    mask[A_ARRANGE + 1:A_ARRANGE + MAX_ARRANGEMENTS] = 0
    mask[A_DEFEND:A_DEFEND + MAX_ARRANGEMENTS] = 0
    mask[A_DEFEND_BEST] = 1
    mask.setflags(write=False)
    return mask
