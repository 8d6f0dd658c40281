"""Train a Gin Rummy agent against ``simple`` with sb3-contrib's MaskablePPO on ginsim's
vectorised environment, and evaluate it the way ginsim evaluates strategies: ``simulate``
over mirrored deals, the agent played through ``PolicyStrategy``, with a 95% interval.

Install (on Linux the package index's torch is the CUDA build, several GB; the CPU build is
all this needs, from PyTorch's CPU index, first):

    pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
    pip install -e '.[train]'        # or: pip install sb3-contrib gymnasium pettingzoo

Run:

    python examples/train_ppo.py --steps 2000000 --out ppo_run      # a real run
    python examples/train_ppo.py --steps 4096 --eval-deals 20 --final-deals 20 --out /tmp/smoke   # smoke
    python examples/train_ppo.py --out ppo_run --curve-table     # a finished run as docs/rl.md's table

What it does: ``GinRummyVectorEnv`` (``num_envs`` hands against ``simple``, same-step
autoreset, ``reward="points/100"``, ``actions="stable"``: every code means the same in every
state) behind a small Stable-Baselines3 ``VecEnv`` adapter (``GinsimVecEnv``: the agent sees
the observation vector; the masks come from ``action_masks()``); ``MaskablePPO`` with an MLP
learns from it.  Every ``--eval-every`` steps the deterministic policy plays ``--eval-deals``
mirrored deals against ``simple`` (``simulate``, hoyle rules), and the learning curve (steps,
wall and CPU seconds, points per hand with its 95% interval) is written to
``OUT/curve.csv``; at the end ``--final-deals`` deals give the final figure
(``OUT/final.json``) and the model is saved as ``OUT/model.zip``.

PPO trains on whole rollouts (``--num-envs`` × ``--n-steps`` agent steps): ``--steps`` is
rounded up to whole rollouts, and ``--n-steps`` is shortened when one rollout would be longer
than ``--steps`` (``--steps 4096`` at 256 hands trains 4,096 steps, in rollouts of 16 steps);
the run says so on stderr when it changes either.

``--max-cpu-minutes`` bounds the whole run's CPU time, evaluations included: training is
checked after every rollout (``num_envs * n_steps`` agent steps, a few CPU-seconds), not
only between evaluations, and stops early enough to leave the final evaluation the CPU time
the last evaluation took per deal.  ``--curve-table OUT`` prints the learning curve and the
final figure of a finished run as the Markdown table docs/rl.md shows.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

# one core unless told otherwise: torch's and OpenMP's thread pools default to every core
os.environ.setdefault("OMP_NUM_THREADS", "1")

try:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as exc:  # the [train] extra is not installed
    raise SystemExit(f"train_ppo needs the [train] extra (pip install -e '.[train]'): {exc}") from None

import simulator
import strategies
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from simulator.env import N_OBS, GinRummyVectorEnv, PolicyStrategy
from simulator.env.rewards import stable_mask


class GinsimVecEnv(VecEnv):
    """``GinRummyVectorEnv`` as a Stable-Baselines3 ``VecEnv``: same-step autoreset (SB3's
    convention: the terminal observation in ``info["terminal_observation"]``), the
    observation vector as the observation, the legal-action masks through
    ``env_method("action_masks")`` (what MaskablePPO asks)."""

    def __init__(self, num_envs: int, opponent: str = "simple", rules: str = "hoyle", seed: int = 0):
        self.venv = GinRummyVectorEnv(num_envs, opponent=opponent, rules=rules, reward="points/100",
                                      actions="stable", autoreset_mode=AutoresetMode.SAME_STEP)
        super().__init__(num_envs, spaces.Box(0.0, 1.0, (N_OBS,), np.float32), self.venv.single_action_space)
        self._seed_value = seed
        self._actions = None

    def reset(self):
        obs, _ = self.venv.reset(seed=self._seed_value)
        self._seed_value = None
        return obs["observation"]

    def step_async(self, actions):
        self._actions = np.asarray(actions, dtype=np.int64)

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.venv.step(self._actions)
        dones = terminated | truncated
        infos = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = info["final_obs"][i]["observation"]
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return obs["observation"], rewards.astype(np.float32), dones, infos

    def action_masks(self):
        return self.venv.action_masks()

    def env_method(self, method_name, *args, indices=None, **kwargs):
        if method_name != "action_masks":
            raise AttributeError(f"GinsimVecEnv has no per-env method {method_name!r}")
        masks = self.venv.action_masks()
        return list(masks if indices is None else masks[list(indices)])

    def get_attr(self, attr_name, indices=None):
        n = self.num_envs if indices is None else len(list(indices))
        return [getattr(self.venv, attr_name)] * n

    def set_attr(self, attr_name, value, indices=None):
        setattr(self.venv, attr_name, value)

    def env_is_wrapped(self, wrapper_class, indices=None):
        n = self.num_envs if indices is None else len(list(indices))
        return [False] * n

    def close(self):
        self.venv.close()


def evaluate(model, n_deals: int, seed: int, rules: str = "hoyle") -> dict:
    """Points per hand of the deterministic policy against ``simple`` over ``n_deals``
    mirrored deals (``simulate``), with the 95% interval over the deal pairs."""
    allowed = stable_mask().astype(bool)

    def policy(observation, action_mask):
        action, _ = model.predict(observation, action_masks=action_mask.astype(bool) & allowed, deterministic=True)
        return int(action)

    name = "ppo_agent"
    strategies.REGISTRY.pop(name, None)
    strategies.register(name, PolicyStrategy(policy))
    df = simulator.simulate(name, "simple", rules, n_deals=n_deals, seed=seed, mirrored=True)
    pairs = df.groupby("pair")["net_a"].mean().to_numpy(dtype=float)
    mean = float(pairs.mean())
    half = float(1.96 * pairs.std(ddof=1) / np.sqrt(len(pairs))) if len(pairs) > 1 else float("nan")
    return {"deals": int(len(df)), "points_per_hand": mean, "ci95_low": mean - half, "ci95_high": mean + half,
            "win_rate": float((df["winner"] == "a").mean())}


def rollout_plan(steps: int, num_envs: int, n_steps: int) -> tuple[int, int]:
    """PPO's rollout length per env and the agent steps the run trains.  PPO collects and
    trains on whole rollouts of ``num_envs * n_steps`` agent steps, so ``n_steps`` is
    shortened when one rollout would be longer than ``steps`` (to ``steps // num_envs``, at
    least 1), and ``steps`` is rounded up to a whole number of rollouts."""
    length = max(1, min(n_steps, steps // num_envs))
    rollout = num_envs * length
    return length, -(-steps // rollout) * rollout


class CpuBudget(BaseCallback):
    """Stops ``model.learn`` at the first environment step (``num_envs`` hands) at which this
    process's CPU time reaches ``deadline`` (``time.process_time()`` seconds), so a CPU limit
    holds to within one step, not one evaluation block; ``stopped`` says whether it did."""

    def __init__(self, deadline: float):
        super().__init__()
        self.deadline = deadline
        self.stopped = False

    def _on_step(self) -> bool:
        self.stopped = time.process_time() >= self.deadline
        return not self.stopped


def curve_table(out: Path) -> str:
    """The learning curve of a finished run (``OUT/curve.csv``, ``OUT/final.json``) as
    docs/rl.md's Markdown table and its final line."""
    rows = list(csv.DictReader(open(out / "curve.csv")))
    final = json.loads((out / "final.json").read_text())

    def points(mean, low, high) -> str:
        return f"{float(mean):+.2f} [{float(low):+.2f}, {float(high):+.2f}]".replace("-", "\u2212")

    lines = ["| agent steps | wall s | CPU s | points per hand vs `simple` | hands won |", "|---:|---:|---:|---|---:|"]
    lines += [f"| {int(r['steps']):,} | {float(r['wall_s']):,.0f} | {float(r['cpu_s']):,.0f} | "
              f"{points(r['points_per_hand'], r['ci95_low'], r['ci95_high'])} | {float(r['win_rate']):.1%} |"
              for r in rows]
    lines += ["", f"Final evaluation, {final['deals']:,} mirrored deals: **"
              f"{points(final['points_per_hand'], final['ci95_low'], final['ci95_high'])} points per hand**, "
              f"{final['win_rate']:.1%} of hands won; {final['steps']:,} agent steps, "
              f"{final['train_cpu_s']:,.0f} CPU s of training and evaluations, {final['total_cpu_s']:,.0f} CPU s "
              f"in all."]
    return "\n".join(lines)


def _stopped_by_limit(steps: int, reserve: float) -> None:
    """Say on stderr that ``--max-cpu-minutes`` ended the training, and after how many steps
    (``reserve``: the CPU seconds kept for the evaluations still to come)."""
    print(f"train_ppo: --max-cpu-minutes stopped the training after {steps:,} steps, keeping about "
          f"{reserve:,.0f} CPU s for the evaluations" + (" (raise the limit to train at all)" if steps == 0 else ""),
          file=sys.stderr, flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=2_000_000, help="agent steps to train (default: 2000000)")
    p.add_argument("--num-envs", type=int, default=256, help="hands stepped together (default: 256)")
    p.add_argument("--n-steps", type=int, default=64, help="PPO rollout length per env (default: 64)")
    p.add_argument("--eval-every", type=int, default=250_000, help="steps between evaluations (default: 250000)")
    p.add_argument("--eval-deals", type=int, default=2000, help="mirrored deals per evaluation (default: 2000)")
    p.add_argument("--final-deals", type=int, default=20_000, help="mirrored deals of the final evaluation")
    p.add_argument("--seed", type=int, default=0, help="seed of the environments and of PPO (default: 0)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default: 1)")
    p.add_argument("--max-cpu-minutes", type=float, default=None,
                   help="CPU time of the whole run, evaluations included: training stops early enough for the "
                        "final evaluation to fit (default: no limit)")
    p.add_argument("--out", required=True, help="directory for curve.csv, final.json and model.zip")
    p.add_argument("--curve-table", action="store_true",
                   help="print the finished run in --out as docs/rl.md's table instead of training")
    args = p.parse_args(argv)
    if args.curve_table:
        print(curve_table(Path(args.out)))
        return 0
    if args.max_cpu_minutes is not None and args.max_cpu_minutes <= 0:
        p.error("--max-cpu-minutes must be positive")
    if args.steps < 1 or args.num_envs < 1 or args.eval_every < 1:
        p.error("--steps, --num-envs and --eval-every must be positive")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.threads)
    try:
        torch.set_num_interop_threads(args.threads)
    except RuntimeError:  # torch allows it once per process, before any parallel work
        pass
    n_steps, total = rollout_plan(args.steps, args.num_envs, args.n_steps)
    if (n_steps, total) != (args.n_steps, args.steps):
        print(f"train_ppo: training {total:,} agent steps, whole rollouts of {args.num_envs} hands x {n_steps} "
              f"steps" + (f" (--n-steps {args.n_steps} shortened to fit --steps)" if n_steps != args.n_steps else ""),
              file=sys.stderr)
    env = GinsimVecEnv(args.num_envs, seed=args.seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=min(2048, args.num_envs * n_steps),
                        n_epochs=4, learning_rate=3e-4, gamma=0.99, gae_lambda=0.95, ent_coef=0.01,
                        policy_kwargs={"net_arch": [256, 256]}, seed=args.seed, verbose=0, device="cpu")
    wall0, cpu0 = time.perf_counter(), time.process_time()
    rows = []
    fields = ["steps", "wall_s", "cpu_s", "points_per_hand", "ci95_low", "ci95_high", "win_rate", "deals"]

    eval_cpu = {"per_deal": 0.0}  # CPU seconds per deal of the last evaluation

    def log(steps):
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        before = time.process_time()
        r = evaluate(model, args.eval_deals, seed=10_000 + len(rows))
        eval_cpu["per_deal"] = (time.process_time() - before) / max(1, r["deals"])
        rows.append({"steps": steps, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), **r})
        tmp = out / ".curve.csv.tmp"
        with open(tmp, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)
        os.replace(tmp, out / "curve.csv")
        print(f"steps {steps:>9,}  wall {wall:7.0f} s  cpu {cpu:7.0f} s  points/hand vs simple "
              f"{r['points_per_hand']:+6.2f} [{r['ci95_low']:+.2f}, {r['ci95_high']:+.2f}]", flush=True)

    log(0)
    done = 0
    while done < total:
        deadline = float("inf")
        if args.max_cpu_minutes is not None:  # leave room for one more evaluation and the final one
            reserve = eval_cpu["per_deal"] * (args.eval_deals + args.final_deals)
            deadline = cpu0 + 60 * args.max_cpu_minutes - reserve
            if time.process_time() >= deadline:
                _stopped_by_limit(done, reserve)
                break
        budget = CpuBudget(deadline)
        chunk = min(args.eval_every, total - done)
        model.learn(total_timesteps=chunk, reset_num_timesteps=False, callback=budget)
        done = model.num_timesteps
        log(done)
        if budget.stopped:
            _stopped_by_limit(done, reserve)
            break
    model.save(out / "model.zip")
    final = evaluate(model, args.final_deals, seed=999_983)
    final.update({"steps": int(model.num_timesteps), "train_wall_s": rows[-1]["wall_s"],
                  "train_cpu_s": rows[-1]["cpu_s"], "total_cpu_s": round(time.process_time() - cpu0, 1),
                  "num_envs": args.num_envs, "seed": args.seed, "ginsim": simulator.__version__})
    tmp = out / ".final.json.tmp"
    tmp.write_text(json.dumps(final, indent=2))
    os.replace(tmp, out / "final.json")
    print(f"final: {final['points_per_hand']:+.2f} points per hand vs simple over {final['deals']:,} mirrored deals "
          f"[{final['ci95_low']:+.2f}, {final['ci95_high']:+.2f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
