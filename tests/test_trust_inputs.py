"""Trust, second pass (issue 30, inputs): what a careless or hostile user gives ginsim is
checked before it plays: RL actions are taken as the action space defines them, strategy
parameters are validated (never coerced), a plug-in's identity covers every module it
imports, and a Python strategy's errors are one line naming who, where and the user's own
file and line."""

from __future__ import annotations

import numpy as np
import pytest

import simulator
import strategies


# ----------------------------------------------------------------------------- the RL envs

def _first_legal(obs) -> int:
    return int(np.flatnonzero(obs["action_mask"])[0])


def test_single_env_takes_a_0d_array_action_as_the_action_it_holds():
    """SB3's ``model.predict`` returns a 0-d array: it is a valid member of Discrete(142)
    and must play the same as the int (it used to end the episode as illegal, -25)."""
    pytest.importorskip("gymnasium")
    from simulator.env import GinRummySingleEnv

    plain, wrapped = GinRummySingleEnv("random", seat=0), GinRummySingleEnv("random", seat=0)
    obs_p, _ = plain.reset(seed=3)
    obs_w, _ = wrapped.reset(seed=3)
    done = False
    while not done:
        action = _first_legal(obs_p)
        obs_p, r_p, done, _, info_p = plain.step(action)
        obs_w, r_w, done_w, _, info_w = wrapped.step(np.array(action))
        assert (r_p, done) == (r_w, done_w) and not info_w.get("illegal_action")
        assert np.array_equal(obs_p["observation"], obs_w["observation"])
    with pytest.raises(ValueError, match=r"not a member of the action space Discrete\(142\)"):
        wrapped.reset(seed=3)
        wrapped.step(3.0)
    with pytest.raises(ValueError, match="not a member"):
        wrapped.step(np.array([1, 2]))


def test_single_env_refuses_step_after_the_episode_instead_of_paying_again():
    pytest.importorskip("gymnasium")
    from simulator.env import GinRummySingleEnv

    env = GinRummySingleEnv("random", seat=0)
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(illegal)
    assert reward == -25.0 and done and info["illegal_action"]
    with pytest.raises(RuntimeError, match=r"episode is over: call reset\(\)"):
        env.step(_first_legal(obs))


def test_aec_env_step_and_last_after_the_episode_say_reset():
    pytest.importorskip("pettingzoo")
    from simulator.env import GinRummyEnv

    env = GinRummyEnv()
    env.reset(seed=2)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else np.array(_first_legal(obs)))
    assert env.agents == []
    for call in (env.last, lambda: env.step(0)):
        with pytest.raises(RuntimeError, match=r"call reset\(\)"):
            call()
