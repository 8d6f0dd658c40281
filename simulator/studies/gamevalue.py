"""Learning and checking the game-value table of ``strategies.gamevalue`` by simulation.

    python -m simulator.studies.gamevalue         # HAND_POINTS from 200,000 hands of expert
    python -m simulator.studies.gamevalue check   # GAME_WIN against simulated games
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from strategies.gamevalue import win_probability_nb

from ..api import simulate, simulate_games
from ..core.rules import resolve_rules


def learn_hand_points(n_deals: int = 200_000, strategy: str = "expert", rules: str = "tournament",
                      seed: int = 20261129) -> np.ndarray:
    """``HAND_POINTS`` from ``n_deals`` mirrored hands of ``strategy`` against itself."""
    df = simulate(strategy, strategy, rules, n_deals=n_deals, seed=seed)
    scored = df[df["winner"].astype(str).isin(["a", "b"])]
    counts = np.bincount(scored["points"].to_numpy(np.int64))
    live = len(df) - int((df["outcome"] == "dead").sum())
    return counts / (2.0 * live)


def check_table(n_games: int = 20_000, strategy: str = "expert", rules: str = "tournament", seed: int = 5):
    """``GAME_WIN`` against simulated games: at the start of every hand of ``n_games``
    mirrored games of ``strategy`` against itself, the table's chance that A wins from the
    scores so far, against whether A went on to win.  Returns one row per tenth of the
    predicted chance: hands, mean prediction, share won and its standard error."""
    games, hands = simulate_games(strategy, strategy, rules, n_games=n_games, seed=seed, hands=True)
    target = resolve_rules(rules).target_score
    hands = hands.sort_values(["game", "hand"]).reset_index(drop=True)
    winner = hands["winner"].astype(str)
    to_a = np.where(winner == "a", hands["points"], 0)
    to_b = np.where(winner == "b", hands["points"], 0)
    by_game = pd.Series(to_a).groupby(hands["game"])
    score_a = by_game.cumsum().to_numpy() - to_a
    score_b = pd.Series(to_b).groupby(hands["game"]).cumsum().to_numpy() - to_b
    won = (hands["game"].map(games.set_index("game")["winner"].astype(str)) == "a").to_numpy(float)
    predicted = np.array([win_probability_nb(a, b, target) for a, b in zip(score_a, score_b)])
    tenth = np.minimum((predicted * 10).astype(int), 9)
    rows = []
    for k in range(10):
        sel = tenth == k
        n = int(sel.sum())
        if n:
            share = won[sel].mean()
            rows.append({"predicted": f"{k / 10:.1f}-{(k + 1) / 10:.1f}", "hands": n,
                         "mean_prediction": predicted[sel].mean(), "share_won": share,
                         "se": float(np.sqrt(share * (1 - share) / n))})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["check"]:
        print(check_table().to_string(index=False))
    else:
        p = learn_hand_points()
        print("HAND_POINTS = np.array([" + ", ".join(f"{v:.6f}" for v in p) + "], dtype=np.float64)")
