"""OpenSpiel's algorithms on ``python_ginsim`` (``simulator.interop.ospiel_play``): the ginsim
rollout evaluator, OpenSpiel's ISMCTS against a ginsim strategy from
``examples/openspiel_ismcts.py``, and the speed benchmark ``ginsim bench --openspiel-game``."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from simulator.interop import ospiel_play as P  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "openspiel_ismcts.py"


def test_the_rollout_evaluator_plays_the_state_to_its_end_with_a_ginsim_strategy():
    game = pyspiel.load_game("python_ginsim(preset=hoyle)")
    state = game.new_initial_state()
    deck = P._deck(3, 0)
    while state.is_chance_node():
        state.apply_action(P.deck_chance(state, deck))
    evaluator = P.RolloutEvaluator("simple", n_rollouts=4, random_state=np.random.RandomState(1))
    value = evaluator.evaluate(state)
    assert value[0] == -value[1] and abs(value[0]) <= game.max_utility()
    assert not state.is_terminal()  # played on clones
    prior = evaluator.prior(state)
    assert [a for a, _ in prior] == state.legal_actions() and sum(p for _, p in prior) == pytest.approx(1)
    with pytest.raises(ValueError, match="n_rollouts must be a positive integer"):
        P.RolloutEvaluator("simple", n_rollouts=0)


def test_ismcts_plays_a_ginsim_variant_against_simple_in_both_seats():
    r = P.ismcts_match("python_ginsim(preset=oklahoma)", "simple", n_decks=2, simulations=8, seed=4)
    assert r.per == "hand" and r.n_decks == 2 and r.opponent == "simple"
    assert r.net_ci_low <= r.net_mean <= r.net_ci_high and len(r.per_deck) == 2
    assert 0 <= r.lost <= 1 - r.won and r.decisions > 4 and 0 < r.cpu_s_per_decision < r.cpu_s
    for bad, message in (({"n_decks": 0}, "n_decks must be"), ({"simulations": 0}, "simulations must be"),
                         ({"game": "gin_rummy"}, "must be a python_ginsim game")):
        with pytest.raises(ValueError, match=message):
            P.ismcts_match(**{"game": "python_ginsim", **bad})


def test_the_example_script_runs_ismcts_and_prints_its_figures(capsys):
    spec = importlib.util.spec_from_file_location("openspiel_ismcts", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--rules", "single_hand", "--decks", "1", "--simulations", "4", "--rollout", "random",
                        "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rollout"] == "random" and out["simulations"] == 4 and "preset=single_hand" in out["game"]
    assert out["decisions"] > 0 and out["cpu_s_per_decision"] > 0


def test_bench_game_counts_steps_of_both_games():
    r = P.bench_game(seconds=0.2)
    assert r["python_ginsim_steps_per_cpu_s"] > 0 and r["gin_rummy_steps_per_cpu_s"] > 0
    assert r["ratio"] == pytest.approx(r["python_ginsim_steps_per_cpu_s"] / r["gin_rummy_steps_per_cpu_s"])


def test_the_dqn_example_trains_through_rl_environment_and_writes_its_curve(tmp_path):
    """examples/openspiel_dqn.py (skipped without torch and dm-tree): OpenSpiel's DQN through
    rl_environment on python_ginsim, its greedy policy evaluated on fixed decks."""
    pytest.importorskip("torch")
    pytest.importorskip("tree")
    path = Path(__file__).resolve().parents[1] / "examples" / "openspiel_dqn.py"
    spec = importlib.util.spec_from_file_location("openspiel_dqn", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "curve.json"
    assert module.main(["--episodes", "30", "--eval-every", "15", "--eval-hands", "6", "--hidden", "16",
                        "--opponent", "simple", "--out", str(out)]) == 0
    curve = json.loads(out.read_text())["curve"]
    assert [row["episodes"] for row in curve] == [0, 15, 30]
    assert all(row["ci95_low"] <= row["points_per_hand"] <= row["ci95_high"] for row in curve)
