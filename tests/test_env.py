"""The RL environments (simulator.env): PettingZoo's and Gymnasium's own checkers, random
masked play that always ends legally with the hand's points as rewards, reproducible
seeding, and a policy played back as a ginsim strategy."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import simulator
import strategies
from simulator.core import state as S
from simulator.env import N_OBS, OBSERVATION_LAYOUT, GinRummyEnv, GinRummySingleEnv, PolicyStrategy, encode
from simulator.core.rules import Rules


@pytest.fixture(autouse=True)
def _forget_python_strategies():
    """Python strategies registered by a test are dropped after it (other modules' tests
    play every registered strategy)."""
    from strategies.registry import PY_PLUGINS, REGISTRY

    before = set(REGISTRY)
    yield
    for name in set(REGISTRY) - before:
        if REGISTRY[name].kind == "python":
            del REGISTRY[name]
            PY_PLUGINS.pop(name, None)


def test_pettingzoo_api_test_single_hands_and_games():
    from pettingzoo.test import api_test, seed_test

    api_test(GinRummyEnv("hoyle"), num_cycles=300)
    api_test(GinRummyEnv("oklahoma", game=True), num_cycles=300)
    seed_test(lambda: GinRummyEnv("hoyle"), num_cycles=50)


def test_gymnasium_check_env_against_numba_and_python_opponents():
    from gymnasium.utils.env_checker import check_env

    check_env(GinRummySingleEnv("simple", "hoyle"), skip_render_check=True)
    check_env(GinRummySingleEnv(strategies.GreedyPlayer, "gin_only", game=True), skip_render_check=True)


def _random_episode(env, rng):
    total = {a: 0 for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size and obs["observation"].shape == (N_OBS,)
        env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
    return total, steps


@pytest.mark.parametrize("preset", list(Rules.PRESETS))
def test_random_masked_play_ends_legally_with_the_hands_points(preset):
    """1,000 episodes of random masked play under each preset."""
    env = GinRummyEnv(preset)
    rng = np.random.default_rng(1)
    env.reset(seed=123)
    outcomes = set()
    for episode in range(1000):
        if episode:
            env.reset()
        total, _ = _random_episode(env, rng)
        hand = env.hand
        assert hand.is_over()
        row = hand.result()
        outcomes.add(row["outcome"])
        if row["winner"] is None or row["winner"] != row["winner"]:  # dead hand or scoreless tie
            assert total == {"player_0": 0, "player_1": 0}
        else:
            winner = f"player_{0 if (row['winner'] == 'a') == (hand.a_seat == 0) else 1}"
            loser = "player_1" if winner == "player_0" else "player_0"
            assert total[winner] == row["points"] and total[loser] == -row["points"]
    assert "dead" in outcomes and (preset == "gin_only" or len(outcomes) >= 2)  # random play rarely goes gin


def test_seeded_episodes_repeat_and_games_pay_the_final_margin():
    env = GinRummyEnv("hoyle", game=True)
    runs = []
    for _ in range(2):
        env.reset(seed=9)
        runs.append(_random_episode(env, np.random.default_rng(4)))
    assert runs[0] == runs[1]
    total, _ = runs[0]
    final = env.final_scores
    assert total["player_0"] == final[0] - final[1] == -total["player_1"]


def test_observation_layout_is_contiguous_and_encodes_the_hand():
    offset = 0
    for _, start, size in OBSERVATION_LAYOUT:
        assert start == offset
        offset += size
    assert offset == N_OBS
    hand = simulator.Hand("hoyle", seed=0, deal=0)
    obs = encode(hand.state, 0)
    assert obs[:52].sum() == 10 and obs.min() >= 0 and obs.max() <= 1


def test_a_policy_plays_as_a_strategy_in_simulate():
    def first_legal(observation, action_mask):
        # never knocks when it may choose (68 before 67 is not the order: prefer no knock)
        legal = np.flatnonzero(action_mask)
        return S.A_NO_KNOCK if action_mask[S.A_NO_KNOCK] else int(legal[0])

    strategies.register("policy_first_legal", PolicyStrategy(first_legal))
    df = simulator.simulate("policy_first_legal", "simple", "hoyle", n_deals=40, seed=3)
    assert len(df) == 40 and (df["knocker"] != "a").all()


def test_the_defend_phase_is_observed_and_masked():
    """The issue-17 hand: the defender sees the defend phase and the knocker's layout, and
    may play the best response, its one least-deadwood arrangement or no layoffs."""
    from test_defence import _defend_phase

    from simulator.env.encoding import N_ACTIONS, O_KNOCKER_RUNS, O_KNOCKER_SETS, O_PHASE, mask_nb

    _, state, rules = _defend_phase()
    assert N_ACTIONS == S.N_ACTIONS == 143
    mask = np.zeros(N_ACTIONS, np.int8)
    mask_nb(state, rules, np.zeros(S.MAX_LEGAL, np.int64), mask)
    assert np.flatnonzero(mask).tolist() == [S.A_DEFEND_BEST, S.A_DEFEND, S.A_DEFEND_NO_LAYOFFS]
    for seat in (0, 1):
        obs = encode(state, seat)
        assert np.flatnonzero(obs[O_PHASE:O_PHASE + 7]).tolist() == [S.PHASE_DEFEND]
        assert obs[O_KNOCKER_SETS:O_KNOCKER_SETS + 52].sum() == 0 and obs[O_KNOCKER_RUNS:O_KNOCKER_RUNS + 52].sum() == 8
    over = state.copy()
    assert S.apply_action_nb(over, rules, np.int64(S.A_DEFEND), np.zeros((0, 3), np.int64)) == S.ERR_NONE
    assert encode(over, 0)[O_PHASE:O_PHASE + 7].sum() == 0
