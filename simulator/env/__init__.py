"""Reinforcement-learning environments for ginsim (``pip install -e '.[rl]'``).

* ``env()`` / ``raw_env()`` / ``GinRummyEnv`` (``simulator.env.aec``): a PettingZoo AEC
  environment, two agents, any ``Rules``, single hands or whole games, action masks;
  ``env()`` wraps it as PettingZoo's classic environments are (order enforcing, an illegal
  action ends the episode with ``illegal_reward``), ``raw_env()`` is the bare one;
* ``GinRummySingleEnv`` (``simulator.env.single``): a Gymnasium environment, one agent
  against any ginsim strategy (numba or plain Python), registered as
  ``gymnasium.make("ginsim/GinRummy-v0", opponent=..., rules=...)``;
* ``GinRummyVectorEnv`` (``simulator.env.vector``): a Gymnasium ``VectorEnv`` of many hands
  against a built-in numba strategy stepped in one numba call, what
  ``gymnasium.make_vec("ginsim/GinRummy-v0", num_envs=...)`` builds;
* ``encode`` / ``OBSERVATION_LAYOUT`` (``simulator.env.encoding``): the fixed-size
  observation all of them give, documented block by block, computed from the seat's view
  by one encoder (``simulator.core.observation``);
* reward options and the stable action set: ``simulator.env.rewards``;
* ``PolicyStrategy``: a policy ``(observation, action_mask) -> action`` as a ginsim
  strategy, to evaluate it with ``simulate`` or ``ginsim run`` against the built-ins.

Importing this package registers ``ginsim/GinRummy-v0`` with Gymnasium when Gymnasium is
installed; the environments import PettingZoo and Gymnasium when first used, and the
encoding and the policy adapter need neither.
"""

from .encoding import N_ACTIONS, N_OBS, OBSERVATION_LAYOUT, PolicyStrategy, encode

__all__ = ["GinRummyEnv", "GinRummySingleEnv", "GinRummyVectorEnv", "N_ACTIONS", "N_OBS", "OBSERVATION_LAYOUT",
           "PolicyStrategy", "ENV_ID", "encode", "env", "raw_env"]

#: the Gymnasium id of the single-agent environment (and, through ``make_vec``, the vector one)
ENV_ID = "ginsim/GinRummy-v0"


def _register() -> None:
    try:
        import gymnasium
    except ImportError:  # the [rl] extra is not installed: nothing to register
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(ENV_ID, entry_point="simulator.env.single:GinRummySingleEnv",
                           vector_entry_point="simulator.env.vector:GinRummyVectorEnv",
                           disable_env_checker=False, order_enforce=True)


_register()


def __getattr__(name):
    if name in ("GinRummyEnv", "env", "raw_env"):
        from . import aec

        return getattr(aec, name)
    if name == "GinRummySingleEnv":
        from .single import GinRummySingleEnv

        return GinRummySingleEnv
    if name == "GinRummyVectorEnv":
        from .vector import GinRummyVectorEnv

        return GinRummyVectorEnv
    raise AttributeError(f"module 'simulator.env' has no attribute {name!r}")
