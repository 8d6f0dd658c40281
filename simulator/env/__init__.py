"""Reinforcement-learning environments for ginsim (``pip install -e '.[rl]'``).

* ``GinRummyEnv`` (``simulator.env.aec``): a PettingZoo AEC environment, two agents, any
  ``Rules``, single hands or whole games, action masks;
* ``GinRummySingleEnv`` (``simulator.env.single``): a Gymnasium environment, one agent
  against any ginsim strategy (numba or plain Python);
* ``encode`` / ``OBSERVATION_LAYOUT`` (``simulator.env.encoding``): the fixed-size
  observation both give, documented block by block;
* ``PolicyStrategy``: a policy ``(observation, action_mask) -> action`` as a ginsim
  strategy, to evaluate it with ``simulate`` or ``ginsim run`` against the built-ins.

The environments import PettingZoo and Gymnasium when first used; the encoding and the
policy adapter need neither.
"""

from .encoding import N_ACTIONS, N_OBS, OBSERVATION_LAYOUT, PolicyStrategy, encode

__all__ = ["GinRummyEnv", "GinRummySingleEnv", "N_ACTIONS", "N_OBS", "OBSERVATION_LAYOUT", "PolicyStrategy",
           "encode", "env"]


def __getattr__(name):
    if name in ("GinRummyEnv", "env"):
        from . import aec

        return getattr(aec, name)
    if name == "GinRummySingleEnv":
        from .single import GinRummySingleEnv

        return GinRummySingleEnv
    raise AttributeError(f"module 'simulator.env' has no attribute {name!r}")
