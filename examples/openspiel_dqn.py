"""A short DQN run on a ginsim variant through OpenSpiel's ``rl_environment``: does it learn?

OpenSpiel's PyTorch DQN (``open_spiel.python.pytorch.dqn``) plays player 0 of ``python_ginsim``
single hands (``simulator.interop.ospiel_game``) against a ginsim strategy in seat 1
(``StrategyBot``), through OpenSpiel's ``rl_environment`` (which deals the chance nodes): it
sees the information-state tensor (ginsim's encoder of its view) and learns from the hand's
points / 100 (Huber loss, Adam; exploration decays over about the run's first third).  Every ``--eval-every`` episodes its greedy policy plays the
same ``--eval-hands`` hands (fixed decks, player 0) against the same opponent, and the curve
(episodes, CPU seconds, points per hand with a 95% interval) is printed and, with ``--out``,
written as JSON; the first row is the untrained network.

Install and run (torch's CPU build, and dm-tree, which OpenSpiel's PyTorch agents import; docs/openspiel.md):

    pip install open_spiel torch==2.13.0 dm-tree
    python examples/openspiel_dqn.py --rules single_hand --opponent random --episodes 6000
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: torch's thread pool defaults to every core

try:
    import torch
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import dqn
except ImportError as exc:
    raise SystemExit(f"openspiel_dqn needs open_spiel, torch and dm-tree (pip install open_spiel torch==2.13.0 dm-tree): "
                     f"{exc}") from None

import pyspiel

from simulator.analysis.stats import mean_interval
from simulator.interop.ospiel_game import StrategyBot
from simulator.interop.ospiel_play import _deck, deck_chance


class DeckSampler:
    """``rl_environment``'s chance sampler dealing a fixed deck (``ospiel_play.deck_chance``)."""

    def __init__(self):
        self.deck: list[int] = []

    def seed(self, seed=None) -> None:
        pass

    def __call__(self, state) -> int:
        return deck_chance(state, self.deck)


def _scaled(time_step, scale: float):
    """The time step with its rewards divided by ``scale`` (points per 100: returns of order 1)."""
    if time_step.rewards is None:
        return time_step
    return time_step._replace(rewards=[r / scale for r in time_step.rewards])


def evaluate(agent, game, opponent: str, hands: int, seed: int) -> tuple[float, float, float]:
    """Points per hand to the greedy agent (player 0) over ``hands`` fixed decks."""
    sampler = DeckSampler()
    env = rl_environment.Environment(game, chance_event_sampler=sampler)
    bot = StrategyBot(1, opponent)
    points = []
    for i in range(hands):
        sampler.deck = _deck(seed, i)
        time_step = env.reset()
        while not time_step.last():
            if time_step.observations["current_player"] == 0:
                action = agent.step(time_step, is_evaluation=True).action
            else:
                action = bot.step(env.get_state)
            time_step = env.step([action])
        points.append(time_step.rewards[0])
    return mean_interval(points)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="single_hand", help="a ginsim rules preset (default: single_hand)")
    p.add_argument("--opponent", default="random", help="the ginsim strategy in seat 1 (default: random)")
    p.add_argument("--episodes", type=int, default=6000, help="training hands (default: 6000)")
    p.add_argument("--eval-every", type=int, default=1000, help="evaluate every this many hands (default: 1000)")
    p.add_argument("--eval-hands", type=int, default=400, help="hands per evaluation, fixed decks (default: 400)")
    p.add_argument("--hidden", type=int, default=256, help="units in each of the two hidden layers (default: 256)")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate (default: 0.001)")
    p.add_argument("--epsilon-decay", type=int,
                   help="agent steps over which exploration decays from 1 to 0.05 (default: 3 per training hand, "
                        "about a third of the run)")
    p.add_argument("--seed", type=int, default=1, help="the network's, the exploration's and the decks' seed (default: 1)")
    p.add_argument("--out", help="write the curve as JSON here (default: print only)")
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    game = pyspiel.load_game(f"python_ginsim(preset={args.rules})")
    env = rl_environment.Environment(game, seed=args.seed)
    agent = dqn.DQN(player_id=0, state_representation_size=env.observation_spec()["info_state"][0],
                    num_actions=env.action_spec()["num_actions"], hidden_layers_sizes=[args.hidden, args.hidden],
                    replay_buffer_capacity=50_000, batch_size=64, learning_rate=args.lr, optimizer_str="adam",
                    loss_str="huber", learn_every=4, update_target_network_every=1000,
                    min_buffer_size_to_learn=1000, epsilon_start=1.0, epsilon_end=0.05,
                    epsilon_decay_duration=max(1, args.epsilon_decay or 3 * args.episodes), seed=args.seed)
    bot = StrategyBot(1, args.opponent)
    curve = []
    t0 = time.process_time()

    def point(episodes: int) -> None:
        mean, low, high = evaluate(agent, game, args.opponent, args.eval_hands, args.seed + 1000)
        row = {"episodes": episodes, "cpu_s": round(time.process_time() - t0, 1), "points_per_hand": mean,
               "ci95_low": low, "ci95_high": high}
        curve.append(row)
        print(f"{episodes:>8} hands  {row['cpu_s']:>8.1f} CPU s   points per hand vs {args.opponent} "
              f"{mean:+7.2f} [{low:+.2f}, {high:+.2f}]", flush=True)

    point(0)
    for episode in range(1, args.episodes + 1):
        time_step = env.reset()
        while not time_step.last():
            if time_step.observations["current_player"] == 0:
                action = agent.step(_scaled(time_step, 100.0)).action
            else:
                action = bot.step(env.get_state)
            time_step = env.step([action])
        agent.step(_scaled(time_step, 100.0))
        if episode % args.eval_every == 0 or episode == args.episodes:
            point(episode)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"rules": args.rules, "opponent": args.opponent, "eval_hands": args.eval_hands,
                       "seed": args.seed, "curve": curve}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
