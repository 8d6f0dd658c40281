"""``GinRummySingleEnv``: one agent against a ginsim strategy, as a Gymnasium environment.

The agent plays one seat of ``GinRummyEnv`` (``simulator.env.aec``: same observations,
actions and rewards); the opponent is any ginsim strategy spec, numba (``"simple"``,
``"gin_hunter:knock_at=4"``) or plain Python, and plays its moves inside ``step`` with its
own random stream (``simulator.Hand.strategy_action``).  The agent's seat is drawn per
episode unless ``seat`` is given.  An action that is not legal ends the episode with
reward ``illegal_reward`` and ``info["illegal_action"] = True`` (mask actions with
``observation["action_mask"]`` or ``action_masks()``).  ``reset(seed=s)`` makes the
episodes that follow reproducible, the opponent's play included.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from strategies import parse_strategy

from ..core import state as S
from .aec import AGENTS, GinRummyEnv


class GinRummySingleEnv(gym.Env):
    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(self, opponent="simple", rules="hoyle", game: bool = False, seat: int | None = None,
                 illegal_reward: float = -25.0, render_mode: str | None = None):
        if seat not in (None, 0, 1):
            raise ValueError(f"seat must be 0, 1 or None (drawn per episode), got {seat!r}")
        self.opponent = parse_strategy(opponent)
        self.aec = GinRummyEnv(rules, game=game, render_mode=render_mode)
        self.observation_space = self.aec.observation_space(AGENTS[0])
        self.action_space = self.aec.action_space(AGENTS[0])
        self.fixed_seat = seat
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.seat = 0

    @property
    def agent(self) -> str:
        return AGENTS[self.seat]

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.aec.reset(seed=None if seed is None else int(self.np_random.integers(2**63)))
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(2))
        reward, done = self._opponent_moves()
        return self.aec.observe(self.agent), {"seat": self.seat}

    def _opponent_moves(self) -> tuple[float, bool]:
        """Let the opponent play until the agent must act or the episode ends."""
        reward = 0.0
        while not self.aec.terminations[self.agent] and self.aec.agent_selection != self.agent:
            self.aec.step(self.aec.hand.strategy_action(self.opponent))
            reward += self.aec.rewards[self.agent]
        return reward, self.aec.terminations[self.agent]

    def action_masks(self) -> np.ndarray:
        """The legal-action mask as booleans (for masked policies, e.g. sb3-contrib)."""
        return self.aec.observe(self.agent)["action_mask"].astype(bool)

    def step(self, action):
        mask = self.aec.observe(self.agent)["action_mask"]
        if not (isinstance(action, (int, np.integer)) and 0 <= int(action) < S.N_ACTIONS and mask[int(action)]):
            return self.aec.observe(self.agent), self.illegal_reward, True, False, {"illegal_action": True}
        self.aec.step(int(action))
        reward = float(self.aec.rewards[self.agent])
        more, done = self._opponent_moves()
        info = dict(self.aec.infos[self.agent])
        return self.aec.observe(self.agent), reward + more, done, False, info

    def render(self):
        return self.aec.render()
