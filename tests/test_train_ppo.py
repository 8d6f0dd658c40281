"""examples/train_ppo.py trains for a few thousand steps and writes its learning curve and
final evaluation (skipped without the [train] extra: torch and sb3-contrib)."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "train_ppo.py"


def test_a_short_training_run_writes_its_curve_and_final_evaluation(tmp_path):
    spec = importlib.util.spec_from_file_location("train_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--steps", "2048", "--num-envs", "16", "--n-steps", "64", "--eval-every", "1024",
                        "--eval-deals", "8", "--final-deals", "8", "--out", str(tmp_path)]) == 0
    rows = list(csv.DictReader(open(tmp_path / "curve.csv")))
    assert [int(r["steps"]) for r in rows] == [0, 1024, 2048]
    final = json.loads((tmp_path / "final.json").read_text())
    assert final["deals"] == 8 and final["steps"] == 2048
    assert final["ci95_low"] <= final["points_per_hand"] <= final["ci95_high"]
    assert (tmp_path / "model.zip").exists()


def test_the_cpu_limit_stops_training_within_one_step_not_one_evaluation_block(tmp_path):
    """With a limit far below one evaluation block, training stops in its first rollout; the
    run's CPU time, evaluations included, is reported, and the curve prints as docs/rl.md's
    table."""
    spec = importlib.util.spec_from_file_location("train_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--steps", "100000", "--num-envs", "16", "--n-steps", "64", "--eval-every", "50000",
                        "--eval-deals", "8", "--final-deals", "8", "--max-cpu-minutes", "0.0001",
                        "--out", str(tmp_path)]) == 0
    final = json.loads((tmp_path / "final.json").read_text())
    assert final["steps"] <= 16 * 64  # not one evaluation block (50,000 steps)
    assert final["total_cpu_s"] >= final["train_cpu_s"]
    table = module.curve_table(tmp_path)
    assert table.startswith("| agent steps |") and f"{final['deals']:,} mirrored deals" in table
    # inside a learn call: a deadline already reached stops it at its first step of 16 hands
    import time

    model = module.MaskablePPO("MlpPolicy", module.GinsimVecEnv(16), n_steps=64, batch_size=256, device="cpu")
    budget = module.CpuBudget(time.process_time())
    model.learn(total_timesteps=50_000, callback=budget)
    assert budget.stopped and model.num_timesteps == 16


def test_a_run_shorter_than_one_rollout_trains_the_steps_asked(tmp_path, capsys):
    """PPO trains whole rollouts: --steps below one rollout (16 hands x 64 steps = 1,024)
    shortens the rollout to fit instead of training a whole one, and says so."""
    spec = importlib.util.spec_from_file_location("train_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.rollout_plan(4096, 256, 64) == (16, 4096)
    assert module.rollout_plan(2_000_000, 256, 64) == (64, 2_015_232)  # rounded up to whole rollouts
    assert module.rollout_plan(100, 256, 64) == (1, 256)
    assert module.main(["--steps", "512", "--num-envs", "16", "--eval-every", "512",
                        "--eval-deals", "8", "--final-deals", "8", "--out", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "final.json").read_text())["steps"] == 512
    assert "whole rollouts of 16 hands x 32 steps (--n-steps 64 shortened to fit --steps)" in capsys.readouterr().err
