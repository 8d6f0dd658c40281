"""OpenSpiel's ISMCTS on a ginsim variant against a ginsim strategy.

The variant is ``python_ginsim`` (``simulator.interop.ospiel_game``: any ginsim rule set as an
OpenSpiel game); the bot is OpenSpiel's own ``open_spiel.python.algorithms.ismcts.ISMCTSBot``,
its simulations starting from ``resample_from_infostate`` (the opponent's hidden cards dealt
again as ``mc`` deals them) and its leaves valued by playing the hand out with a ginsim
strategy in both seats (``RolloutEvaluator``; ``--rollout random`` for OpenSpiel's random
rollouts).  Each deck is played twice, the bot in each seat; the result is points per hand to
the bot with a paired 95% interval, and the CPU time per decision.

Run (needs open_spiel; docs/openspiel.md):

    python examples/openspiel_ismcts.py --rules tournament --decks 100 --simulations 200
    python examples/openspiel_ismcts.py --game "python_ginsim(preset=hoyle,whole_game=true)" --decks 5
"""

from __future__ import annotations

import argparse
import json
import sys

from simulator.interop.ospiel_play import ismcts_match


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="tournament", help="a ginsim rules preset (default: tournament)")
    p.add_argument("--game", help="a python_ginsim game name instead, e.g. 'python_ginsim(preset=hoyle,knock_limit=5)'")
    p.add_argument("--opponent", default="simple", help="the ginsim strategy it plays (default: simple)")
    p.add_argument("--decks", type=int, default=20, help="decks, each played in both seats (default: 20)")
    p.add_argument("--simulations", type=int, default=200, help="ISMCTS simulations per decision (default: 200)")
    p.add_argument("--uct-c", type=float, default=20.0, help="UCT exploration constant, in points (default: 20)")
    p.add_argument("--rollout", default="simple",
                   help="the ginsim strategy of the rollouts, or 'random' for OpenSpiel's (default: simple)")
    p.add_argument("--world-samples", type=int, default=-1,
                   help="resampled worlds per decision, reused (default: -1, a new one per simulation)")
    p.add_argument("--seed", type=int, default=0, help="decks and the bot's random draws (default: 0)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args(argv)
    game = args.game or f"python_ginsim(preset={args.rules})"

    def progress(done: int, total: int) -> None:
        print(f"\r{done}/{total} decks", end="", file=sys.stderr, flush=True)

    r = ismcts_match(game, args.opponent, args.decks, args.simulations, args.uct_c, args.rollout,
                     args.world_samples, args.seed, progress=progress)
    print(file=sys.stderr)
    if args.json:
        print(json.dumps(r.to_dict(), indent=2))
        return 0
    half = (r.net_ci_high - r.net_ci_low) / 2
    print(f"ISMCTS ({r.simulations} simulations, uct_c {r.uct_c:g}, {r.rollout} rollouts) vs {r.opponent}, "
          f"{r.n_decks} decks in both seats, seed {r.seed}\n"
          f"  points per {r.per} to ISMCTS {r.net_mean:+.2f} ± {half:.2f} (95%); hands won {r.won:.1%}, lost {r.lost:.1%}\n"
          f"  {r.decisions} decisions, {r.cpu_s_per_decision:.3f} CPU s each; {r.cpu_s:.0f} CPU s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
