"""``GinRummyEnv``: two-player Gin Rummy as a PettingZoo AEC environment.

Agents ``player_0`` and ``player_1`` are the seats of ``simulator.core.state``.  Each step is
one decision of the agent to act, an action code named by ``simulator.actions``
(``discard(c)``, ``DRAW_STOCK``, ``TAKE_PILE``, ``PASS``, ``KNOCK``, ``PLAY_ON``, ``lay_out(k)``,
``DEFEND_BEST``, ``defend(k)``, ``DEFEND_NO_LAYOFFS``: ``N_ACTIONS`` = 143 in all; ``simulator.action_name`` names
each); the automatic steps in between (the
stock draw after both pass the upcard, big gin, settling, the end of the stock) happen
inside the step, exactly as ``simulate`` plays them.  Observations are dicts
``{"observation": float32[N_OBS], "action_mask": int8[N_ACTIONS]}``
(``simulator.env.encoding`` documents the layout and where it follows OpenSpiel).

* ``GinRummyEnv(rules="hoyle")``: an episode is one hand; at its end the winner gets the
  hand's points and the loser minus them (0, 0 for a dead hand): ``Hand.returns()``.
* ``GinRummyEnv(rules, game=True)``: an episode is a whole game to the rules' target
  (hands dealt by ``next_dealer``); each hand's points are paid when it ends, and at the
  end of the game the bonuses (game, boxes, shutout: docs/rules.md#the-game), so an
  agent's return is its final game score minus its opponent's (``final_scores`` holds
  both).  Hands chain as in ``simulate_games`` (``simulator.engine.hand.Game``, on the
  engine's one chaining ``simulator.engine.work.next_hand_nb``); a game still running after
  ``MAX_HANDS_PER_GAME`` hands is truncated.

An action is a member of the action space ``Discrete(143)`` (a Python or NumPy integer, or
a 0-d integer array); anything else raises a one-line ``ValueError``, and so does a legal
code the rules refuse now (the message lists the legal ones).  Once every agent is done,
``step`` and ``last`` raise a ``RuntimeError`` saying to call ``reset``.

``reset(seed=s)`` makes the episodes that follow reproducible: each reset draws a seed from
a generator seeded with ``s``, and the episode is deal 0 of ``simulate(seed=that,
mirrored=False)`` (with ``game=True``, game 0 of ``simulate_games``): its decks, first dealer
and streams keyed by ``simulator.core.rng`` as the batch engine keys them.  ``render()`` prints the acting player's view
(``render_mode="human"``) or returns it (``"ansi"``).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from ..core import state as S
from ..core.constants import K_RECORD
from ..core.errors import StrategyError
from ..core.hand_reading import reset_trace, seat_to_act
from ..core.records import (
    G_BOXES0,
    G_BOXES1,
    G_POINTS0,
    G_POINTS1,
    G_SCORE0,
    G_SCORE1,
    G_WINNER,
    H_ERROR,
    H_ERROR_VALUE,
    N_HAND_COLS,
)
from ..core.rules import R_TARGET, resolve_rules
from ..engine.hand import Game, Hand
from ..engine.loop import stop_at
from .encoding import N_ACTIONS, N_OBS, encode_nb, mask_nb
from ..infra.inputs import argument
from .rewards import REWARDS, check_action_set, game_end_reward_nb, illegal_reward_for, reward_mode, scale, stable_mask

AGENTS = ("player_0", "player_1")


def action_code(action, space) -> int:
    """``action`` as an action code when it is a member of ``space`` (a ``Discrete``: an
    integer or a 0-d integer array in range); a one-line ValueError otherwise."""
    try:
        member = space.contains(action)
    except Exception:  # e.g. an object numpy cannot compare
        member = False
    if not member or isinstance(action, (bool, np.bool_)):
        shape = f" of shape {np.shape(action)}" if isinstance(action, np.ndarray) else ""
        raise ValueError(f"action {action!r}{shape} ({type(action).__name__}) is not a member of the action space "
                         f"Discrete({space.n}): give an integer 0 .. {space.n - 1} or a 0-d integer array")
    return int(action)


class GinRummyEnv(AECEnv):
    metadata = {"name": "ginsim_gin_rummy_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}

    def __init__(self, rules="hoyle", game: bool = False, render_mode: str | None = None, reward: str = "points",
                 actions: str = "all"):
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.rules = resolve_rules(rules)
        self._rules = self.rules.to_array()
        self.target = int(self._rules[R_TARGET])
        self.game = argument("game", game, "bool")
        self.reward = reward
        reward_mode(reward, self.game)  # checks the option
        self.actions = check_action_set(actions)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (N_OBS,), np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
        })
        self.observation_spaces = {a: space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self._legal = np.zeros(S.MAX_LEGAL, np.int64)
        self.np_random, _ = seeding.np_random(None)
        self.hand: Hand | None = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ---- episodes ---------------------------------------------------------------------
    def reset(self, seed=None, options=None):
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: {} for a in AGENTS}
        self.scores = [0, 0]
        self.boxes = [0, 0]
        self.hands_played = 0
        self.final_scores = None
        # an episode is deal 0 (or game 0) of simulate (simulate_games) with a seed drawn from
        # the episode generator, unmirrored: its decks and streams keyed as simulator.core.rng keys them
        self._seed = int(self.np_random.integers(2**63))
        self._deal()

    def _deal(self) -> None:
        """The episode's first hand: deal 0, or with ``game`` the first hand of game 0."""
        if self.game:
            self._match = Game(self.rules, seed=self._seed, game=0, mirrored=False)
            self._hand(self._match.hand)
        else:
            self._hand(Hand(self.rules, seed=self._seed, deal=0, mirrored=False))

    def _hand(self, hand: Hand) -> None:
        self.hand = hand
        self._state = hand._state
        self.agent_selection = AGENTS[seat_to_act(self._state)]

    def observe(self, agent):
        seat = AGENTS.index(agent)
        obs = np.zeros(N_OBS, np.float32)
        encode_nb(self._state, np.int64(seat), np.int64(self.target), obs)
        mask = np.zeros(N_ACTIONS, np.int8)
        if seat_to_act(self._state) == seat:
            mask_nb(self._state, self._rules, self._legal, mask)
            if self.actions == "stable":
                mask &= stable_mask()
        return {"observation": obs, "action_mask": mask}

    def _check_running(self, call: str) -> None:
        if not getattr(self, "agents", None):
            raise RuntimeError(f"the episode is over (every agent is done): call reset() before {call}()")

    def last(self, observe: bool = True):
        self._check_running("last")
        return super().last(observe)

    def step(self, action):
        self._check_running("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        code = action_code(action, self.action_spaces[agent])
        reset_trace(self._state)
        if self.actions == "stable" and not stable_mask()[code]:
            err = S.ERR_ILLEGAL_ACTION  # outside the stable action set (simulator.env.rewards)
        else:
            err = S.apply_action_nb(self._state, self._rules, np.int64(code), self.hand._trace)
        if err != S.ERR_NONE:
            legal = [a for a in self.hand.legal_actions() if self.actions == "all" or stable_mask()[a]]
            raise ValueError(f"illegal action {action!r} for {agent} in phase {self.hand.phase_name}; legal: "
                             + ", ".join(f"{a} ({S.action_name(a)})" for a in legal))
        self._moved()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _moved(self) -> None:
        """After the hand moved on: the hand's end (rewards, the next hand of a game), or the
        agent to act."""
        seat = seat_to_act(self._state)
        if seat < 0:
            self._hand_over()
        else:
            self.agent_selection = AGENTS[seat]

    def _let_play(self, seat: int, strategy) -> None:
        """``strategy`` (a numba one) plays ``seat`` with the engine's loop until the other seat
        must act or the hand is over (``Hand._play``; ``GinRummySingleEnv``'s opponent), then
        the hand's end is dealt with as after a step."""
        self._cumulative_rewards[AGENTS[seat]] = 0
        self._clear_rewards()
        self.hand._seat(seat, strategy)
        self._state = self.hand._state  # (a hybrid's wider parameter row makes a new work row)
        if self.hand._play(stop_at((1 - seat,))) < 0:
            record = self.hand._work[K_RECORD:K_RECORD + N_HAND_COLS]
            raise StrategyError(f"strategy {strategy.label!r} (seat {seat}) answered with error "
                                f"{int(record[H_ERROR])} (value {int(record[H_ERROR_VALUE])}): see simulator.core.errors")
        self._moved()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _hand_over(self) -> None:
        p0, p1 = self.hand.returns()
        self.rewards = {AGENTS[0]: scale(p0, self.reward), AGENTS[1]: scale(p1, self.reward)}
        self.hands_played += 1
        if not self.game:
            self.terminations = dict.fromkeys(AGENTS, True)
            return
        more = self._match.next_hand()  # the one chaining of hands (simulator.engine.work.next_hand_nb)
        g = self._match.record
        self.scores = [int(g[G_POINTS0]), int(g[G_POINTS1])]
        self.boxes = [int(g[G_BOXES0]), int(g[G_BOXES1])]
        if more:
            self._hand(self._match.hand)
        elif g[G_WINNER] >= 0:
            t0, t1 = int(g[G_SCORE0]), int(g[G_SCORE1])
            mode = REWARDS.index(self.reward)
            self.rewards = {AGENTS[seat]: float(game_end_reward_nb(g, seat, points, mode))
                            for seat, points in enumerate((p0, p1))}
            self.terminations = dict.fromkeys(AGENTS, True)
            self.final_scores = (t0, t1)
            self.infos = {a: {"final_scores": self.final_scores} for a in AGENTS}
        else:  # the engine's guard against endless games
            self.truncations = dict.fromkeys(AGENTS, True)

    def render(self):
        if self.render_mode is None or self.hand is None:
            return None
        seat = AGENTS.index(self.agent_selection)
        o = self.hand.observation(seat)
        text = (f"{self.agent_selection} ({o['phase']}): hand {' '.join(o['hand'])}  deadwood {o['deadwood']}  "
                f"top {o['top']}  stock {o['stock_size']}  scores {o['scores']}")
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self):
        pass


def raw_env(**kwargs) -> GinRummyEnv:
    """The bare ``GinRummyEnv`` (an illegal action raises ``ValueError``)."""
    return GinRummyEnv(**kwargs)


def env(illegal_reward: float | None = None, **kwargs):
    """``GinRummyEnv`` wrapped as PettingZoo's classic environments are: an illegal action
    ends the episode, the agent who played it getting ``illegal_reward`` (default: -25
    points in the reward's units, ``simulator.env.rewards``) and the other 0
    (``TerminateIllegalWrapper``); an action outside the action space fails an assertion
    (``AssertOutOfBoundsWrapper``); ``step``, ``last`` or ``observe`` before ``reset``
    raise PettingZoo's own error (``OrderEnforcingWrapper``).  ``raw_env()`` is the bare
    environment."""
    from pettingzoo.utils import wrappers

    inner = GinRummyEnv(**kwargs)
    penalty = illegal_reward_for(inner.reward) if illegal_reward is None else \
        argument("illegal_reward", illegal_reward, "number")
    wrapped = wrappers.TerminateIllegalWrapper(inner, illegal_reward=penalty)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
