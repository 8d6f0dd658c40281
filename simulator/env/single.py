"""``GinRummySingleEnv``: one agent against a ginsim strategy, as a Gymnasium environment.

The agent plays one seat of ``GinRummyEnv`` (``simulator.env.aec``: same observations,
actions and rewards); the opponent is any ginsim strategy spec, numba (``"simple"``,
``"gin_hunter:knock_at=4"``) or plain Python, and plays its moves inside ``step`` with its
own random stream (a numba one played by the engine's loop, as every driver plays it).  The
agent's seat is drawn per episode unless ``seat`` is given.  An action that is not legal ends the episode with
reward ``illegal_reward`` and ``info["illegal_action"] = True`` (mask actions with
``observation["action_mask"]`` or ``action_masks()``).  An action is any member of the
action space ``Discrete(143)``: a Python or NumPy integer, or a 0-d integer array (what
Stable-Baselines3's ``model.predict`` returns); anything else (a float, an out-of-range
code, a wrong shape) raises a one-line ``ValueError`` instead of counting as illegal play.
``step`` after the episode has ended raises a ``RuntimeError`` (call ``reset``), so an
ended episode never pays the illegal reward again.  ``reset(seed=s)`` makes the episodes
that follow reproducible, the opponent's play included.  What the agent earns before its
first decision (a hand of a game the opponent ends) is paid with its first step, and an
episode that ends before the agent's first decision (the opponent's big gin on the first
upcard) is skipped: ``reset`` deals the next one.  ``reward=`` and ``actions=`` are
described in ``simulator.env.rewards``; ``illegal_reward`` is in the reward's units
(default -25 points).  A game cut by the engine's guard (``MAX_HANDS_PER_GAME`` hands) ends
the episode as truncated.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from strategies import parse_strategy

from .aec import AGENTS, GinRummyEnv, action_code
from ..infra.inputs import argument
from .rewards import illegal_reward_for


class GinRummySingleEnv(gym.Env):
    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(self, opponent="simple", rules="hoyle", game: bool = False, seat: int | None = None,
                 illegal_reward: float | None = None, render_mode: str | None = None, reward: str = "points",
                 actions: str = "all"):
        seat = None if seat is None else argument("seat", seat, "int", 0, 1, text="0, 1 or None (drawn per episode)")
        self.opponent = parse_strategy(opponent)
        self.aec = GinRummyEnv(rules, game=game, render_mode=render_mode, reward=reward, actions=actions)
        if illegal_reward is None:
            illegal_reward = illegal_reward_for(reward)
        self.observation_space = self.aec.observation_space(AGENTS[0])
        self.action_space = self.aec.action_space(AGENTS[0])
        self.fixed_seat = seat
        self.illegal_reward = argument("illegal_reward", illegal_reward, "number")
        self.render_mode = render_mode
        self.seat = 0
        self._over = True  # no episode until reset()
        self._pending = 0.0

    @property
    def agent(self) -> str:
        return AGENTS[self.seat]

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        aec_seed = None if seed is None else int(self.np_random.integers(2**63))
        while True:
            self.aec.reset(seed=aec_seed)
            aec_seed = None
            self.seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(2))
            # what the agent earns before its first decision (a game's hand the opponent ended)
            # is paid with its first step; an episode over before that decision is skipped
            self._pending, done = self._opponent_moves()
            if not done:
                break
        self._over = False
        return self.aec.observe(self.agent), {"seat": self.seat}

    def _ended(self) -> bool:
        return bool(self.aec.terminations[self.agent] or self.aec.truncations[self.agent])

    def _opponent_moves(self) -> tuple[float, bool]:
        """Let the opponent play until the agent must act or the episode ends (terminated or
        truncated): a numba strategy with the engine's loop (``GinRummyEnv._let_play``), a
        Python one decision by decision (``Hand.strategy_action``)."""
        reward = 0.0
        while not self._ended() and self.aec.agent_selection != self.agent:
            if self.opponent.is_python:
                self.aec.step(self.aec.hand.strategy_action(self.opponent))
            else:
                self.aec._let_play(1 - self.seat, self.opponent)
            reward += self.aec.rewards[self.agent]
        return reward, self._ended()

    def action_masks(self) -> np.ndarray:
        """The legal-action mask as booleans (for masked policies, e.g. sb3-contrib)."""
        return self.aec.observe(self.agent)["action_mask"].astype(bool)

    def step(self, action):
        if self._over:
            raise RuntimeError("the episode is over: call reset() before step()")
        code = action_code(action, self.action_space)
        if not self.aec.observe(self.agent)["action_mask"][code]:
            self._over = True
            self._pending = 0.0
            return self.aec.observe(self.agent), self.illegal_reward, True, False, {"illegal_action": True}
        self.aec.step(code)
        reward = self._pending + float(self.aec.rewards[self.agent])
        self._pending = 0.0
        more, self._over = self._opponent_moves()
        info = dict(self.aec.infos[self.agent])
        truncated = bool(self.aec.truncations[self.agent])
        return self.aec.observe(self.agent), reward + more, self._over and not truncated, truncated, info

    def render(self):
        return self.aec.render()
