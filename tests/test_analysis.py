"""Analysis functions on small synthetic frames whose answers are known by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from simulator.analysis import stats as an

T_975_9 = 2.2621571627982  # Student t, 97.5% quantile, 9 degrees of freedom (tables)
Z_975 = 1.959963984540054  # standard normal, 97.5% quantile


def hand_rows(net, a_dealt, pair=None, outcome=None, winner=None, draws=None, kdw=None, ddw=None, cell=0,
              **labels) -> pd.DataFrame:
    n = len(net)
    outcome = outcome or ["knock"] * n
    df = pd.DataFrame({
        "cell": cell, "matchup": labels.get("matchup", "x vs y"), "a": labels.get("a", "x"),
        "b": labels.get("b", "y"), "variant": labels.get("variant", "hoyle"),
        "pair": pair if pair is not None else np.arange(n),
        "a_dealt": a_dealt,
        "outcome": pd.Categorical(outcome, categories=list(an.OUTCOMES)),
        "winner": pd.Categorical(winner or [("a" if v > 0 else "b" if v < 0 else None) for v in net],
                                 categories=["a", "b"]),
        "net_a": net,
        "knocker_deadwood": pd.array(kdw or [5] * n, dtype="Int16"),
        "defender_deadwood": pd.array(ddw or [15] * n, dtype="Int16"),
        "draws": draws or [10] * n,
    })
    for k, v in labels.items():
        if k.startswith(("a.", "b.")):
            df[k] = v
    return df


def mirrored_hands() -> pd.DataFrame:
    """10 pairs: pair means 2 ± 2 (mean 2, sample variance 40/9) with ±d spread inside each
    pair; B deals the first hand of a pair, A the second (the dealer seat stays, A moves)."""
    net, a_dealt, pair = [], [], []
    for p in range(10):
        m = 2 + (2 if p % 2 == 0 else -2)
        d = 10 if p % 2 == 0 else 30
        net += [m + d, m - d]
        a_dealt += [False, True]
        pair += [p, p]
    return hand_rows(net, a_dealt, pair=pair)


def test_ci_columns():
    assert an.ci_columns("net_mean") == ("net_ci_low", "net_ci_high")
    assert an.ci_columns("first_mover_edge") == ("first_mover_edge_ci_low", "first_mover_edge_ci_high")


def test_paired_interval_matches_hand_computation():
    df = mirrored_hands()
    s = an.hand_stats(df).iloc[0]
    assert an.is_mirrored(df)
    assert s["n_hands"] == 20 and s["n_units"] == 10
    # pair means: 4, 0, 4, 0, ... -> mean 2, s^2 = 10 * 4 / 9, se = sqrt(40/9/10) = 2/3
    assert s["net_mean"] == pytest.approx(2.0)
    assert s["net_se"] == pytest.approx(2 / 3)
    assert s["net_ci_low"] == pytest.approx(2 - T_975_9 * 2 / 3, abs=1e-9)
    assert s["net_ci_high"] == pytest.approx(2 + T_975_9 * 2 / 3, abs=1e-9)
    # treating the 20 hands as independent would give a far wider interval
    rows = an.hand_stats(df, mirrored=False).iloc[0]
    assert rows["n_units"] == 20
    assert rows["net_ci_high"] - rows["net_ci_low"] > 5 * (s["net_ci_high"] - s["net_ci_low"])


def test_confidence_level_is_a_parameter():
    df = mirrored_hands()
    s90 = an.hand_stats(df, confidence=0.90).iloc[0]
    t_95_9 = 1.8331129326536335
    assert s90["net_ci_high"] == pytest.approx(2 + t_95_9 * 2 / 3, abs=1e-9)


def test_first_mover_edge_is_points_to_the_non_dealer():
    # mirrored: hand 1 (B dealt) gives A m + d, hand 2 (A dealt) gives B d - m: the pair's
    # mean edge to the non-dealer is d, which is 10 or 30 -> mean 20, s^2 = 10*100/9
    s = an.hand_stats(mirrored_hands()).iloc[0]
    assert s["first_mover_edge"] == pytest.approx(20.0)
    assert s["first_mover_edge_ci_low"] == pytest.approx(20 - T_975_9 * math.sqrt(1000 / 9 / 10))
    assert an.balanced(an.hand_stats(mirrored_hands())).iloc[0] == "favours non-dealer"
    # unmirrored: A dealt and lost 5 (non-dealer B +5); B dealt and A won 3 (non-dealer A +3)
    s = an.hand_stats(hand_rows([-5, 3], [True, False])).iloc[0]
    assert s["first_mover_edge"] == pytest.approx(4.0)
    # the dealer winning gives a negative edge
    s = an.hand_stats(hand_rows([7, -7], [True, False])).iloc[0]
    assert s["first_mover_edge"] == pytest.approx(-7.0)


def test_outcome_mix_rates_win_rate_and_deadwood():
    outcome = ["knock", "knock", "knock", "undercut", "gin", "big_gin", "dead", "knock"]
    net = [4, -6, 2, -20, 30, -40, 0, 1]
    winner = ["a", "b", "a", "b", "a", "b", None, "a"]
    kdw = [6, 4, 8, 9, 0, 0, None, 2]
    ddw = [10, 10, 10, 5, 12, 20, None, 3]
    draws = [10, 12, 14, 16, 18, 20, 31, 7]
    df = hand_rows(net, [False] * 8, outcome=outcome, winner=winner, draws=draws, kdw=kdw, ddw=ddw)
    s = an.hand_stats(df).iloc[0]
    assert s["n_units"] == 8 and not an.is_mirrored(df)
    assert s["share_knock"] == pytest.approx(4 / 8)
    assert s["share_undercut"] == pytest.approx(1 / 8)
    assert s["share_dead"] == pytest.approx(1 / 8)
    assert s["gin_rate"] == pytest.approx(2 / 8)  # gin and big gin
    assert s["undercut_rate"] == pytest.approx(1 / 5)  # undercuts per ordinary knock
    assert s["win_rate"] == pytest.approx((4 + 0.5) / 8)  # the dead hand counts 1/2
    assert s["net_mean"] == pytest.approx(sum(net) / 8)
    assert s["draws_mean"] == pytest.approx(sum(draws) / 8)
    assert s["knocker_deadwood"] == pytest.approx(29 / 7)  # dead hand excluded
    assert s["defender_deadwood"] == pytest.approx(70 / 7)
    assert sum(s[f"share_{o}"] for o in an.OUTCOMES) == pytest.approx(1.0)
    # every interval contains its estimate and stays inside [0, 1] for proportions
    for col in ["net_mean", "win_rate", "gin_rate", "undercut_rate", "draws_mean", "knocker_deadwood",
                *[f"share_{o}" for o in an.OUTCOMES]]:
        low, high = an.ci_columns(col)
        assert s[low] <= s[col] <= s[high], col
    assert 0 <= s["share_dead_ci_low"] and s["share_knock_ci_high"] <= 1


def test_unpaired_proportion_uses_the_wilson_interval():
    # 30 hands, 6 gins, every hand won by someone: Wilson score interval for 6/30
    n, k = 30, 6
    outcome = ["gin"] * k + ["knock"] * (n - k)
    df = hand_rows([5] * n, [False, True] * (n // 2), outcome=outcome)
    s = an.hand_stats(df).iloc[0]
    p, z = k / n, Z_975
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert s["share_gin_ci_low"] == pytest.approx(centre - half, abs=1e-9)
    assert s["share_gin_ci_high"] == pytest.approx(centre + half, abs=1e-9)
    # a proportion of 0 still gets a non-degenerate upper bound (1 - 0.025**(1/30) ~ Wilson)
    assert s["share_big_gin"] == 0 and s["share_big_gin_ci_high"] > 0.05


def test_cells_keep_their_labels_and_sweep_values():
    one = hand_rows([1, 3], [False, True], cell=0, a="x:knock_at=2", matchup="x:knock_at=2 vs y",
                    **{"a.knock_at": 2.0})
    two = hand_rows([-2, -4, -6], [False, True, False], cell=1, a="x:knock_at=4", matchup="x:knock_at=4 vs y",
                    **{"a.knock_at": 4.0})
    s = an.hand_stats(pd.concat([two, one], ignore_index=True))
    assert s["cell"].tolist() == [0, 1]
    assert s["a.knock_at"].tolist() == [2.0, 4.0]
    assert s["a"].tolist() == ["x:knock_at=2", "x:knock_at=4"]
    assert s["net_mean"].tolist() == pytest.approx([2.0, -4.0])
    assert s["n_hands"].tolist() == [2, 3]
    # a frame without labels (as ``simulate`` returns) is one cell
    bare = one.drop(columns=["cell", "matchup", "a", "b", "variant", "a.knock_at"])
    assert an.hand_stats(bare)["cell"].tolist() == [0]


def game_rows(winner, a_dealt_first, margin, pair=None, cell=0, a="x", b="y") -> pd.DataFrame:
    n = len(winner)
    return pd.DataFrame({
        "cell": cell, "matchup": f"{a} vs {b}", "a": a, "b": b, "variant": "hoyle",
        "game": np.arange(n), "pair": pair if pair is not None else np.arange(n),
        "a_dealt_first": a_dealt_first,
        "winner": pd.Categorical(winner, categories=["a", "b"]),
        "hands": [8] * (n - 1) + [12], "margin_a": margin, "shutout": [False] * (n - 1) + [True],
    })


def test_game_stats_and_first_dealer_edge():
    # non-dealer (first mover) wins games 0, 1, 3: A won game 0 after B dealt first; B won
    # game 1 after A dealt first; A won game 3 (B first); game 2: A dealt first and won
    g = game_rows(["a", "b", "a", "a"], [False, True, True, False], [100, -80, 60, 20])
    s = an.game_stats(g).iloc[0]
    assert s["n_games"] == 4 and s["n_units"] == 4
    assert s["win_prob"] == pytest.approx(3 / 4)
    assert s["margin_mean"] == pytest.approx(25.0)
    assert s["hands_mean"] == pytest.approx(9.0)
    assert s["shutout_rate"] == pytest.approx(1 / 4)
    assert s["first_mover_edge"] == pytest.approx(3 / 4 - 0.5)
    assert s["first_mover_edge_ci_low"] >= -0.5 and s["first_mover_edge_ci_high"] <= 0.5
    # a game without a winner counts 1/2
    s = an.game_stats(game_rows(["a", None], [False, False], [10, 0])).iloc[0]
    assert s["win_prob"] == pytest.approx(0.75)


def test_game_pairs_are_units():
    # pairs (a, b), (a, a), (b, a), (a, b), (b, b), (b, a): pair means 0.5, 1, 0.5, 0.5, 0, 0.5
    winner = ["a", "b", "a", "a", "b", "a", "a", "b", "b", "b", "b", "a"]
    g = game_rows(winner, [False, True] * 6, [1] * 12, pair=np.repeat(np.arange(6), 2))
    s = an.game_stats(g).iloc[0]
    assert s["n_games"] == 12 and s["n_units"] == 6
    se = math.sqrt(0.5 / 5 / 6)  # sample variance (2 * 0.25) / 5 over 6 pairs
    t_975_5 = 2.570581835636314
    assert s["win_prob"] == pytest.approx(0.5)
    assert s["win_prob_se"] == pytest.approx(se)
    assert s["win_prob_ci_low"] == pytest.approx(0.5 - t_975_5 * se)
    assert s["win_prob_ci_high"] == pytest.approx(0.5 + t_975_5 * se)


def round_robin_stats() -> pd.DataFrame:
    # x beats y by 2, y beats z by 1, x beats z by 3 (stored from z's side: z vs x = -3)
    return pd.DataFrame({
        "cell": [0, 1, 2, 3], "a": ["x", "y", "z", "x"], "b": ["y", "z", "x", "x"],
        "variant": "hoyle", "net_mean": [2.0, 1.0, -3.0, 0.5], "net_se": [0.1, 0.2, 0.3, 0.4],
        "win_rate": [0.6, 0.55, 0.3, 0.5], "win_rate_se": [0.01] * 4, "n_hands": [100, 100, 100, 100],
    })


def test_ranking_sign_conventions_and_interval():
    r = an.ranking(round_robin_stats())
    assert r["strategy"].tolist() == ["x", "y", "z"]
    assert r["rank"].tolist() == [1, 2, 3]
    assert r["net_mean"].tolist() == pytest.approx([2.5, -0.5, -2.0])  # x: (2+3)/2; y: (-2+1)/2; z: (-1-3)/2
    se_x = math.sqrt(0.1**2 + 0.3**2) / 2
    assert r.loc[0, "se"] == pytest.approx(se_x)
    assert r.loc[0, "ci_low"] == pytest.approx(2.5 - Z_975 * se_x)
    assert r.loc[0, "ci_high"] == pytest.approx(2.5 + Z_975 * se_x)
    assert r["n_opponents"].tolist() == [2, 2, 2] and r["n_hands"].tolist() == [200, 200, 200]
    # the self-play cell (x vs x) is ignored; rates are complemented for B
    w = an.ranking(round_robin_stats(), value="win_rate")
    assert w.set_index("strategy")["win_rate"].to_dict() == pytest.approx({"x": 0.65, "y": 0.475, "z": 0.375})
    # grouped ranking
    two = pd.concat([round_robin_stats(), round_robin_stats().assign(variant="ok", net_mean=lambda d: -d.net_mean)])
    g = an.ranking(two, by="variant")
    assert g[g["variant"] == "ok"]["strategy"].tolist() == ["z", "y", "x"]
    assert g[g["variant"] == "hoyle"]["rank"].tolist() == [1, 2, 3]


def test_matrix_is_antisymmetric_with_self_play_on_the_diagonal():
    m = an.matrix(round_robin_stats())
    assert list(m.index) == ["x", "y", "z"] and list(m.columns) == ["x", "y", "z"]
    assert m.loc["x", "y"] == 2.0 and m.loc["y", "x"] == -2.0
    assert m.loc["x", "z"] == 3.0 and m.loc["z", "x"] == -3.0
    assert m.loc["y", "z"] == 1.0 and m.loc["z", "y"] == -1.0
    assert m.loc["x", "x"] == 0.5 and np.isnan(m.loc["y", "y"])
    w = an.matrix(round_robin_stats(), value="win_rate")
    assert w.loc["x", "z"] == pytest.approx(0.7) and w.loc["z", "x"] == pytest.approx(0.3)


def test_balanced_verdicts():
    s = pd.DataFrame({"first_mover_edge": [0.0, 1.0, -1.0, 0.2],
                      "first_mover_edge_ci_low": [-0.5, 0.1, -1.5, np.nan],
                      "first_mover_edge_ci_high": [0.5, 1.9, -0.2, np.nan]})
    assert an.balanced(s).tolist() == ["balanced", "favours non-dealer", "favours dealer", "unknown"]
    g = pd.DataFrame({"win_prob": [0.5], "win_prob_ci_low": [0.52], "win_prob_ci_high": [0.6]})
    assert an.balanced(g, column="win_prob").tolist() == ["favours non-dealer"]
