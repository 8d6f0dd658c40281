"""The vectorised environment (simulator.env.vector) and the one observation encoder
(simulator.core.observation): the encoder gives the values of the state-based reference
below on every decision of many hands; the vector env's shapes, masks, both autoreset
modes, per-sub-env seeding (the same episodes as GinRummySingleEnv with the same seeds),
rewards, registration and the wrapped PettingZoo env."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import gymnasium as gym
from gymnasium.vector import AutoresetMode

import simulator
from simulator.core import state as S
from simulator.core.melds import min_deadwood_nb
from simulator.env import N_ACTIONS, N_OBS, GinRummySingleEnv, GinRummyVectorEnv, encode
from simulator.env import encoding as EN


def _index(card):
    return [0, 3, 2, 1][card >> 4] * 13 + (card & 15)


def _plane(mask, out, offset):
    for c in range(64):
        if mask >> c & 1:
            out[offset + _index(c)] = 1.0


def reference_encode(state, seat, target):
    """The observation read straight from the state (what the encoder gave before it was
    derived from the view): the test's independent statement of every block."""
    out = np.zeros(N_OBS, np.float32)
    phase, opp = int(state[S.S_PHASE]), 1 - seat
    hand = int(state[S.S_HANDS + seat])
    own = phase != S.PHASE_OVER and int(state[S.S_CURRENT]) == seat
    _plane(hand, out, EN.O_HAND)
    if own and phase == S.PHASE_DISCARD:
        out[EN.O_DRAWN + _index(int(state[S.S_DRAWN]))] = 1
        out[EN.O_FLAGS + 1] = state[S.S_FROM_PILE]
    _plane(int(state[S.S_TOOK + opp]), out, EN.O_OPP_HELD)
    _plane(int(state[S.S_DISCARDS + opp]), out, EN.O_OPP_DISCARDS)
    _plane(int(state[S.S_DECLINED + opp]), out, EN.O_OPP_DECLINED)
    n = int(state[S.S_PILE_LEN])
    for i in range(n):
        k = _index(int(state[S.S_PILE + i]))
        out[EN.O_PILE + k] = 1
        out[EN.O_PILE_ORDER + k] = np.float32((i + 1) / n)
        if i == n - 1:
            out[EN.O_TOP + k] = 1
    out[EN.O_STOCK + min(max(int(state[S.S_STOCK_N] - state[S.S_STOCK_POS]), 0), 31)] = 1
    if phase < S.PHASE_OVER:
        out[EN.O_PHASE + phase] = 1
    out[EN.O_LIMIT + min(max(int(state[S.S_LIMIT]), 0), 10)] = 1
    out[EN.O_FLAGS] = 1.0 if state[S.S_DEALER] == seat else 0.0
    dw = int(state[S.S_DEADWOOD]) if own and phase in (S.PHASE_KNOCK, S.PHASE_ARRANGE) else int(min_deadwood_nb(hand))
    out[EN.O_DEADWOOD] = np.float32(min(dw, 100) / 100.0)
    if target > 0:
        out[EN.O_SCORES] = np.float32(min(state[S.S_SCORES + seat] / target, 1.0))
        out[EN.O_SCORES + 1] = np.float32(min(state[S.S_SCORES + opp] / target, 1.0))
    _plane(int(state[S.S_SETS]), out, EN.O_KNOCKER_SETS)
    _plane(int(state[S.S_RUNS]), out, EN.O_KNOCKER_RUNS)
    return out


@pytest.mark.parametrize("preset", ["hoyle", "oklahoma"])
def test_the_encoder_from_the_view_gives_the_state_based_values(preset):
    checked = 0
    for deal in range(40):
        h = simulator.Hand(preset, seed=3, deal=deal, a="simple", b="gin_hunter", scores=(0, 0))
        while True:
            for seat in (0, 1):
                want = reference_encode(h.state, seat, 100)
                np.testing.assert_array_equal(encode(h.state, seat, 100), want)
                np.testing.assert_array_equal(h.observation_vector(seat), reference_encode(h.state, seat,
                                                                                         int(h._rules[12])))
                checked += 1
            if h.is_over():
                break
            h.apply(h.bot_action())
    assert checked > 1000


def _random_actions(masks, rng):
    out = np.zeros(len(masks), np.int64)
    for i, row in enumerate(masks):
        legal = np.flatnonzero(row)
        if legal.size:
            out[i] = legal[rng.integers(legal.size)]
    return out


def test_shapes_spaces_and_masks():
    env = GinRummyVectorEnv(5, opponent="simple", rules="hoyle")
    obs, info = env.reset(seed=4)
    assert obs["observation"].shape == (5, N_OBS) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (5, N_ACTIONS) and obs["action_mask"].dtype == np.int8
    assert env.observation_space.contains(obs) and env.single_action_space.n == N_ACTIONS
    assert set(info["seat"]) <= {0, 1}
    np.testing.assert_array_equal(env.action_masks(), obs["action_mask"].astype(bool))
    assert obs["action_mask"].any(axis=1).all()  # every agent has a decision after reset
    with pytest.raises(ValueError, match="actions must be 5 integers"):
        env.step(np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="not a member of the action space"):
        env.step(np.full(5, N_ACTIONS))


def _single_trajectory(seed, n_steps, rng_seed, **kw):
    env = GinRummySingleEnv(**kw)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(rng_seed)
    rows = [(obs["observation"].copy(), obs["action_mask"].copy(), 0.0, False, False)]
    seats = [info["seat"]]
    done = False
    for _ in range(n_steps):
        if done:  # next-step autoreset: the vector env resets here, reward 0
            obs, info = env.reset()
            seats.append(info["seat"])
            rows.append((obs["observation"].copy(), obs["action_mask"].copy(), 0.0, False, False))
            done = False
            rng.integers(1)  # the vector env's sampler draws for every sub-env at every step
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        obs, r, te, tr, _ = env.step(action)
        done = te or tr
        rows.append((obs["observation"].copy(), obs["action_mask"].copy(), r, te, tr))
    return rows, seats


@pytest.mark.parametrize("kw", [dict(opponent="simple", rules="hoyle"),
                                dict(opponent="gin_hunter", rules="oklahoma", game=True, reward="points/100")])
def test_same_seeds_give_the_single_envs_trajectories(kw):
    n, steps, seed = 3, 120, 11
    want = [_single_trajectory(seed + i, steps, 100 + i, **kw) for i in range(n)]
    env = GinRummyVectorEnv(n, **kw)
    obs, info = env.reset(seed=seed)
    rngs = [np.random.default_rng(100 + i) for i in range(n)]
    got = [[(obs["observation"][i].copy(), obs["action_mask"][i].copy(), 0.0, False, False)] for i in range(n)]
    for _ in range(steps):
        actions = np.zeros(n, np.int64)
        for i in range(n):
            legal = np.flatnonzero(obs["action_mask"][i])
            actions[i] = legal[rngs[i].integers(legal.size)] if legal.size else rngs[i].integers(1)
        obs, r, te, tr, info = env.step(actions)
        for i in range(n):
            got[i].append((obs["observation"][i].copy(), obs["action_mask"][i].copy(), r[i], te[i], tr[i]))
    ends = 0
    for i in range(n):
        rows, _ = want[i]
        assert len(rows) == len(got[i])
        for k, (a, b) in enumerate(zip(rows, got[i])):
            np.testing.assert_array_equal(a[0], b[0], err_msg=f"sub-env {i} step {k}")
            np.testing.assert_array_equal(a[1], b[1], err_msg=f"sub-env {i} step {k}")
            assert a[2:] == pytest.approx(b[2:]), (i, k)
            ends += bool(a[3] or a[4])
    assert ends >= 2


def _random_play(env, seed: int, steps: int) -> list:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = [obs["observation"].copy()]
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs["action_mask"]])
        obs, rewards, terminated, truncated, _ = env.step(actions)
        out += [obs["observation"].copy(), obs["action_mask"].copy(), rewards.copy(), terminated | truncated]
    return out


def test_the_env_compiles_against_an_engine_for_its_opponent_and_plays_as_with_all(fresh_engine_choice):
    """By default the vector env's kernels are a copy bound to an engine routing only what the
    process plays (``simulator.env.vector.batch_kernels``), so its first step compiles no other
    strategy; it plays exactly as the module bound to the engine routing every strategy."""
    from simulator.engine import select
    from simulator.env import vector

    everything = GinRummyVectorEnv(4, opponent="gin_hunter", rules="oklahoma")
    full_engine = select.engine_module([everything.opponent.sid])  # the session's routes every strategy (conftest.py)
    assert not getattr(full_engine.loop.dispatch, "LEFT_OUT", ())
    assert everything._batch.loop is full_engine.loop
    full = _random_play(everything, 3, 150)
    fresh_engine_choice("call")
    env = GinRummyVectorEnv(4, opponent="gin_hunter", rules="oklahoma")
    engine = select.engine_module([env.opponent.sid])
    assert engine.loop.dispatch.LEFT_OUT and env._batch.loop is engine.loop
    assert vector.batch_kernels(env.opponent.sid) is env._batch  # built once per engine
    got = _random_play(env, 3, 150)
    assert len(got) == len(full) and all(np.array_equal(a, b) for a, b in zip(full, got))


def test_next_step_autoreset_has_an_empty_terminal_mask_and_same_step_returns_the_final_obs():
    rng = np.random.default_rng(0)
    env = GinRummyVectorEnv(8, opponent="simple")
    obs, _ = env.reset(seed=2)
    seen_end = False
    for _ in range(80):
        obs, r, te, tr, info = env.step(_random_actions(obs["action_mask"], rng))
        ended = te | tr
        assert not obs["action_mask"][ended].any()  # the terminal observation: no decision left
        assert obs["action_mask"][~ended].any(axis=1).all()
        seen_end |= ended.any()
    assert seen_end
    env = GinRummyVectorEnv(8, opponent="simple", autoreset_mode=AutoresetMode.SAME_STEP)
    obs, _ = env.reset(seed=2)
    finals = 0
    for _ in range(80):
        obs, r, te, tr, info = env.step(_random_actions(obs["action_mask"], rng))
        assert obs["action_mask"].any(axis=1).all()  # always the next decision
        if (te | tr).any():
            np.testing.assert_array_equal(info["_final_obs"], te | tr)
            for i in np.flatnonzero(te | tr):
                assert not info["final_obs"][i]["action_mask"].any()
                finals += 1
    assert finals


def test_illegal_actions_end_the_episode_and_rewards_scale():
    env = GinRummyVectorEnv(4, opponent="simple", reward="points/100")
    obs, _ = env.reset(seed=0)
    bad = np.array([int(np.flatnonzero(m == 0)[0]) for m in obs["action_mask"]])
    _, r, te, _, info = env.step(bad)
    assert te.all() and info["illegal_action"].all() and (r == -0.25).all()
    with pytest.raises(ValueError, match="needs game=True"):
        GinRummyVectorEnv(2, reward="win")
    with pytest.raises(ValueError, match="built-in numba strategies only"):
        import strategies
        strategies.register("py_greedy_vec", strategies.GreedyPlayer)
        GinRummyVectorEnv(2, opponent="py_greedy_vec")


def test_win_reward_pays_one_per_game_and_stable_actions_mask_the_kth_arrangements():
    rng = np.random.default_rng(1)
    env = GinRummyVectorEnv(16, opponent="knock_early", rules="hoyle", game=True, reward="win", actions="stable")
    obs, _ = env.reset(seed=5)
    rewards = []
    stable = np.ones(N_ACTIONS, bool)
    stable[70:105] = False
    stable[106:142] = False  # (142, no layoffs, is stable)
    for _ in range(400):
        assert not obs["action_mask"][:, ~stable].any()
        obs, r, te, tr, _ = env.step(_random_actions(obs["action_mask"], rng))
        rewards.extend(r[r != 0].tolist())
        assert (r[~(te | tr)] == 0).all()
    assert rewards and set(rewards) <= {-1.0, 1.0}


def test_registration_make_and_make_vec():
    from gymnasium.utils.env_checker import check_env

    env = gym.make("ginsim/GinRummy-v0", opponent="simple", rules="hoyle")
    assert env.spec.id == "ginsim/GinRummy-v0"
    check_env(env.unwrapped, skip_render_check=True)
    vec = gym.make_vec("ginsim/GinRummy-v0", num_envs=4, opponent="simple")
    assert isinstance(vec, GinRummyVectorEnv) and vec.num_envs == 4
    obs, _ = vec.reset(seed=0)
    assert obs["observation"].shape == (4, N_OBS)


def test_wrapped_pettingzoo_env_enforces_order_and_terminates_illegal_moves():
    from pettingzoo.test import api_test
    from simulator.env import env as make_env, raw_env

    e = make_env()
    with pytest.raises(Exception, match="reset"):
        e.step(0)
    api_test(make_env(), num_cycles=200)
    e.reset(seed=1)
    obs, *_ = e.last()
    agent = e.agent_selection
    e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(e.terminations.values()) and e.rewards[agent] == -25
    assert type(raw_env()).__name__ == "GinRummyEnv"


def test_the_docs_observation_table_matches_the_one_declaration():
    import re
    from pathlib import Path

    from simulator.env import OBSERVATION_LAYOUT

    text = (Path(__file__).resolve().parents[1] / "docs" / "rl.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \|", text, re.MULTILINE)
    assert [(n, int(o), int(s)) for n, o, s in rows] == [tuple(b) for b in OBSERVATION_LAYOUT]


def test_bench_rl_env_reports_steps_per_cpu_second_beside_the_others(capsys):
    from simulator.tools.bench_compare import bench_rl_env, print_rl_env

    r = bench_rl_env(num_envs=16, seconds=0.2)
    assert r["num_envs"] == 16 and r["ginsim_vector_steps_per_cpu_s"] > 0
    for other in ("rlcard", "openspiel"):
        if f"{other}_steps_per_cpu_s" in r:
            assert r[f"ratio_to_{other}"] == pytest.approx(r["ginsim_vector_steps_per_cpu_s"]
                                                          / r[f"{other}_steps_per_cpu_s"])
    print_rl_env(r)
    assert "GinRummyVectorEnv (16 hands vs simple)" in capsys.readouterr().out


def test_ginsim_bench_rl_help_names_the_option():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "simulator.cli", "bench", "--help"], capture_output=True, text=True,
                         check=True).stdout
    assert "--rl" in out and "RLCard" in out
