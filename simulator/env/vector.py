"""``GinRummyVectorEnv``: many hands of one agent against a ginsim strategy, a Gymnasium
``VectorEnv`` stepped in one numba call (``simulator.env.batch``).

Each sub-environment plays as ``GinRummySingleEnv`` (``simulator.env.single``) with the same
arguments: the same observations, masks, rewards and, for the same seeds, the same
episodes (tested).  The opponent's decisions, the resets and the observation encoding all
happen inside the one call per ``step``; the opponent must be a built-in numba strategy
(plug-ins and plain-Python strategies: use ``GinRummySingleEnv``).

Observations are a dict of batched arrays, ``{"observation": float32[num_envs, N_OBS],
"action_mask": int8[num_envs, N_ACTIONS]}``: the mask is part of the observation (as in the
single environment), and ``action_masks()`` returns it as booleans (sb3-contrib's
convention).  ``info`` holds ``"seat"`` (each agent's seat), ``"illegal_action"`` (the
sub-environments whose action was not legal: their episode ended with ``illegal_reward``).

**Autoreset** (``autoreset_mode``, Gymnasium's ``AutoresetMode``):

* ``NEXT_STEP`` (the default, as in Gymnasium's own vector envs): the step that ends an
  episode returns its terminal observation, *whose action mask is all zeros* (no decision
  is left).  The next step resets that sub-environment, ignores its action and returns
  reward 0 with the first observation of the new episode.  A masked sampler must accept an
  all-zero row there (any action will do), e.g. by testing ``mask.any(axis=1)``.
* ``SAME_STEP``: the step that ends an episode resets it at once and returns the new
  episode's first observation; the terminal one is in ``info["final_obs"]`` (an object
  array, a dict per sub-environment that ended, ``None`` elsewhere; ``info["_final_obs"]``
  marks them).  Every mask returned as an observation then has a legal action.

**Seeding**: ``reset(seed=s)`` seeds sub-environment ``i`` with ``s + i`` (a list gives one
seed each), as Gymnasium's ``SyncVectorEnv`` does; sub-environment ``i`` then plays the
episodes ``GinRummySingleEnv(...).reset(seed=s + i)`` and the automatic resets after it
play.  ``reset()`` without a seed draws fresh entropy the first time and continues the
episode streams afterwards.

**Rewards** (``reward=``): ``"points"`` (the hand's points to the winner, minus them to the
loser; with ``game=True`` the game's bonuses with the last hand), ``"points/100"`` (the same
divided by 100), ``"win"`` (``game=True`` only: +1 for winning the game, -1 for losing it, 0
otherwise and for every hand).  ``illegal_reward`` is in the reward's own units (default:
-25 points, -0.25, -1).
"""

from __future__ import annotations

from types import ModuleType

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv

from strategies import parse_strategy

from ..core.constants import N_ACTIONS, N_GAME_COLS, N_OBS, R_TARGET
from ..core.errors import StrategyError
from ..core.rules import MAX_HANDS_PER_GAME, resolve_rules
from ..engine.work import new_works
from . import batch as B
from .aec import GinRummyEnv
from ..infra.inputs import argument
from .rewards import illegal_reward_for, reward_mode

#: entries of each sub-environment's seed and seat buffers (refilled when 4 or fewer are left)
_BUFFER = 64


#: the copies of ``simulator.env.batch`` bound to engines in this process, by engine module name
#: (``batch_kernels``)
_BATCHES: dict[str, ModuleType] = {}


def batch_kernels(sid: int) -> ModuleType:
    """The environment's kernels (``simulator.env.batch``) for an opponent of strategy id
    ``sid``, bound to the engine ``simulator.engine.select.engine_module`` gives for it: by
    default one routing only the strategies this process plays, so the first step compiles
    no strategy the environment does not play.  That is the module rendered with that
    engine's loop (``simulator.engine.factory.render``); the module itself when the engine
    is the one routing every strategy."""
    from ..engine import kernels
    from ..engine.factory import render
    from ..engine.select import engine_module

    engine = engine_module([sid])
    if engine is kernels:
        return B
    module = _BATCHES.get(engine.__name__)
    if module is None:
        module = _BATCHES[engine.__name__] = render("simulator.env.batch", "ginsim_vector",
                                                    {"loop": engine.loop.__name__})
    return module


def _vector_opponent(opponent):
    strategy = parse_strategy(opponent)
    from strategies.registry import REGISTRY

    info = REGISTRY[strategy.name]
    if strategy.is_python or info.path is not None:
        raise ValueError(f"opponent {strategy.label!r}: GinRummyVectorEnv plays built-in numba strategies only "
                         "(plug-ins and plain-Python strategies: use GinRummySingleEnv)")
    return strategy


class GinRummyVectorEnv(VectorEnv):
    """``num_envs`` hands of one agent against ``opponent`` (a built-in numba strategy spec),
    stepped together; the arguments are ``GinRummySingleEnv``'s, plus ``autoreset_mode``."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, opponent="simple", rules="hoyle", game: bool = False,
                 seat: int | None = None, reward: str = "points", illegal_reward: float | None = None,
                 actions: str = "all", autoreset_mode=AutoresetMode.NEXT_STEP):
        num_envs = argument("num_envs", num_envs, "int", low=1)
        seat = None if seat is None else argument("seat", seat, "int", 0, 1, text="0, 1 or None (drawn per episode)")
        game = argument("game", game, "bool")
        modes = {m.value: m for m in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)}
        mode = modes.get(getattr(autoreset_mode, "value", autoreset_mode))
        if mode is None:
            raise ValueError(f"autoreset_mode must be AutoresetMode.NEXT_STEP or SAME_STEP, got {autoreset_mode!r}")
        self.num_envs = int(num_envs)
        self.opponent = _vector_opponent(opponent)
        self.rules = resolve_rules(rules)
        self._rules = self.rules.to_array()
        self.game = bool(game)
        self.fixed_seat = -1 if seat is None else int(seat)
        self.reward = reward
        self._reward_mode = reward_mode(reward, self.game)
        self.illegal_reward = illegal_reward_for(reward) if illegal_reward is None else \
            argument("illegal_reward", illegal_reward, "number")
        self.autoreset_mode = mode
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        single = GinRummyEnv(self.rules, game=self.game, actions=actions)
        self.actions = single.actions
        self.single_observation_space = single.observation_space(single.possible_agents[0])
        self.single_action_space = single.action_space(single.possible_agents[0])
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        n = self.num_envs
        params = np.ascontiguousarray(self.opponent.row, dtype=np.float64)
        self._works = new_works(n, self._rules, len(params))  # one work row per sub-environment
        self._meta = np.zeros((n, B.N_META), np.int64)
        self._games = np.zeros((n, N_GAME_COLS if self.game else 0), np.int64)
        self._pending = np.zeros(n, np.float64)
        self._seeds = np.zeros((n, _BUFFER), np.int64)
        self._seats = np.zeros((n, _BUFFER), np.int64)
        # the opponent, then the agent: an id no strategy has, at which the engine's loop stops
        self._sids_ab = np.array([self.opponent.sid, -1], np.int64)
        self._params_ab = np.vstack([params, params])
        self._batch = batch_kernels(self.opponent.sid)
        self._target = np.int64(self._rules[R_TARGET])
        self._episode_rngs: list = []
        self._seat_rngs: list = []
        self._obs = self._masks = None
        self._started = False

    # ---- seeding --------------------------------------------------------------------------
    def _seed(self, seed) -> None:
        n = self.num_envs
        if seed is None:
            seeds = [None] * n
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"seed must be an integer or a list of {n} seeds, got {len(seeds)} seeds")
        self._seat_rngs, self._episode_rngs = [], []
        for s in seeds:
            # as GinRummySingleEnv.reset(seed=s): its generator gives the AEC env's seed, then the seats
            rng, _ = seeding.np_random(s)
            episodes, _ = seeding.np_random(int(rng.integers(2**63)))
            self._seat_rngs.append(rng)
            self._episode_rngs.append(episodes)
        self._meta[:, B.M_POS] = _BUFFER
        self._refill(np.arange(n))

    def _refill(self, rows) -> None:
        """Top up the seed and seat buffers of ``rows`` from their generators (same draws as
        one at a time: NumPy's generators give equal sequences either way)."""
        for i in rows:
            pos = int(self._meta[i, B.M_POS])
            keep = _BUFFER - pos
            self._seeds[i, :keep] = self._seeds[i, pos:]
            self._seeds[i, keep:] = self._episode_rngs[i].integers(2**63, size=pos)
            self._seats[i, :keep] = self._seats[i, pos:]
            if self.fixed_seat < 0:
                self._seats[i, keep:] = self._seat_rngs[i].integers(2, size=pos)
            self._meta[i, B.M_POS] = 0

    def _top_up(self) -> None:
        low = np.flatnonzero(self._meta[:, B.M_POS] > _BUFFER - 4)
        if len(low):
            self._refill(low)

    # ---- the API --------------------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        if seed is not None or not self._episode_rngs:
            self._seed(seed)
        self._top_up()
        obs = np.empty((self.num_envs, N_OBS), np.float32)
        masks = np.empty((self.num_envs, N_ACTIONS), np.int8)
        self._meta[:, B.M_ERROR] = 0
        self._batch.reset_nb(self._works, self._meta, self._games, self._pending, self._seeds, self._seats,
                             np.int64(self.fixed_seat), self._sids_ab, self._params_ab, self._rules,
                             self._target, np.int64(self._reward_mode), np.int64(MAX_HANDS_PER_GAME),
                             np.ones(self.num_envs, np.bool_), obs, masks)
        self._check_errors(np.flatnonzero(self._meta[:, B.M_ERROR]))
        self._started = True
        self._restrict(masks)
        return {"observation": obs, "action_mask": masks}, {"seat": self._meta[:, B.M_SEAT].copy()}

    def step(self, actions):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = self._actions(actions)
        self._top_up()
        n = self.num_envs
        obs = np.empty((n, N_OBS), np.float32)
        masks = np.empty((n, N_ACTIONS), np.int8)
        rewards = np.empty(n, np.float64)
        terminated = np.empty(n, np.bool_)
        truncated = np.empty(n, np.bool_)
        illegal = np.empty(n, np.bool_)
        final = np.empty(n, np.bool_)
        same = self.autoreset_mode == AutoresetMode.SAME_STEP
        if same:
            if self._final_obs is None:
                self._final_obs = np.zeros((n, N_OBS), np.float32)
                self._final_masks = np.zeros((n, N_ACTIONS), np.int8)
            final_obs, final_masks = self._final_obs, self._final_masks
        else:
            final_obs, final_masks = self._no_final
        erred = self._batch.step_nb(self._works, self._meta, self._games, self._pending, self._seeds, self._seats,
                                    np.int64(self.fixed_seat), self._sids_ab, self._params_ab, self._rules,
                                    self._target, np.int64(self._reward_mode), np.int64(MAX_HANDS_PER_GAME),
                                    np.float64(self.illegal_reward), same, actions, obs, masks, rewards,
                                    terminated, truncated, illegal, final, final_obs, final_masks)
        if erred >= 0:
            self._check_errors([erred])
        self._restrict(masks)
        info = {"seat": self._meta[:, B.M_SEAT].copy(), "illegal_action": illegal}
        if same and final.any():
            rows = np.flatnonzero(final)
            if self.actions == "stable":
                from .rewards import stable_mask

                final_masks[rows] &= stable_mask()
            boxed = np.full(n, None, dtype=object)
            for i in rows:
                boxed[i] = {"observation": final_obs[i].copy(), "action_mask": final_masks[i].copy()}
            info["final_obs"], info["_final_obs"] = boxed, final.copy()
            info["final_info"] = np.full(n, None, dtype=object)
            for i in rows:
                info["final_info"][i] = {"illegal_action": bool(illegal[i])}
            info["_final_info"] = final.copy()
        return {"observation": obs, "action_mask": masks}, rewards, terminated, truncated, info

    _final_obs = None
    _final_masks = None
    _no_final = (np.zeros((0, N_OBS), np.float32), np.zeros((0, N_ACTIONS), np.int8))

    def action_masks(self) -> np.ndarray:
        """The current legal-action masks, ``bool[num_envs, N_ACTIONS]`` (sb3-contrib's name)."""
        if self._masks_now is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._masks_now.astype(bool)

    _masks_now = None

    def _restrict(self, masks) -> None:
        """With ``actions="stable"``, keep only the codes whose meaning is the same in every
        state (``simulator.env.rewards.STABLE``); remember the masks for ``action_masks``."""
        if self.actions == "stable":
            from .rewards import stable_mask

            masks &= stable_mask()
        self._masks_now = masks

    def _actions(self, actions) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_:
            raise ValueError(f"actions must be {self.num_envs} integers (one per sub-environment), got "
                             f"{a.dtype} of shape {a.shape}")
        if len(a) and (a.min() < 0 or a.max() >= N_ACTIONS):
            bad = a[(a < 0) | (a >= N_ACTIONS)][0]
            raise ValueError(f"action {int(bad)} is not a member of the action space Discrete({N_ACTIONS}): "
                             f"give integers 0 .. {N_ACTIONS - 1}")
        if self.actions == "stable":
            from .rewards import stable_mask

            allowed = stable_mask().astype(bool)
            if not allowed[a].all():
                # an unstable code counts as an illegal action, as in the single environment
                a = np.where(allowed[a], a, -1)
        return np.ascontiguousarray(a, dtype=np.int64)

    def _check_errors(self, rows) -> None:
        for i in rows:
            err = int(self._meta[i, B.M_ERROR])
            if err == -1:
                raise RuntimeError(f"sub-environment {i}: its episode-seed buffer ran out")
            raise StrategyError(f"opponent {self.opponent.label!r} (sub-environment {i}) answered with error {err} "
                                f"(value {int(self._meta[i, B.M_ERROR_VALUE])}): see simulator.core.errors")

    def close(self, **kwargs):
        pass
