"""The analysis API a notebook meets: frames that carry their context in ``df.attrs``,
``with_context`` to put them side by side, and intervals that never collapse to a point
for a proportion of 0 or 1 (Wilson, also in mirrored runs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import simulator
from simulator.analysis import stats as an


def test_frames_carry_their_context_and_with_context_keeps_it():
    hoyle = simulator.simulate("gin_hunter", "knock_early", rules="hoyle", n_deals=400, seed=3)
    classic = simulator.simulate("gin_hunter:knock_at=2", "knock_early", rules={"preset": "classic"},
                                 n_deals=400, seed=4, mirrored=False)
    assert hoyle.attrs["a"] == "gin_hunter" and hoyle.attrs["b"] == "knock_early"
    assert hoyle.attrs["rules"] == "hoyle" and hoyle.attrs["seed"] == 3 and hoyle.attrs["mirrored"] is True
    assert hoyle.attrs["version"] == simulator.__version__
    assert hoyle.attrs["rules_fields"]["undercut_bonus"] == simulator.Rules.preset("hoyle").undercut_bonus
    assert classic.attrs["a"] == "gin_hunter:knock_at=2" and classic.attrs["rules"] == "classic"
    custom = simulator.simulate("simple", "simple", rules=simulator.Rules.preset("hoyle", knock_limit=5), n_deals=20)
    assert custom.attrs["rules"] == "custom" and custom.attrs["rules_fields"]["knock_limit"] == 5

    both = an.with_context([hoyle, classic])
    assert len(both) == 800
    assert list(both.columns[:8]) == ["cell", "matchup", "a", "b", "variant", "seed", "mirrored", "version"]
    assert both.groupby("cell")["variant"].first().tolist() == ["hoyle", "classic"]
    assert both.groupby("cell")["mirrored"].first().tolist() == [True, False]
    stats = an.hand_stats(both)  # one row per frame, each with its own pairing
    assert stats["matchup"].tolist() == ["gin_hunter vs knock_early", "gin_hunter:knock_at=2 vs knock_early"]
    alone = an.hand_stats(hoyle)
    assert stats.loc[0, "net_mean"] == pytest.approx(alone.loc[0, "net_mean"])
    assert stats.loc[0, "net_ci_low"] == pytest.approx(alone.loc[0, "net_ci_low"])
    named = an.with_context([hoyle, classic], names=["h", "c"])
    assert named["name"].unique().tolist() == ["h", "c"]
    # the per-frame labels survive into the statistics: which seed (and name) each row played
    assert stats["seed"].tolist() == [3, 4]
    assert an.hand_stats(named)[["name", "seed"]].values.tolist() == [["h", 3], ["c", 4]]

    games, hands = simulator.simulate_games("knock_early", "random", n_games=20, seed=2, hands=True)
    assert games.attrs["a"] == hands.attrs["a"] == "knock_early"
    assert an.game_stats(an.with_context(games))["matchup"].tolist() == ["knock_early vs random"]
    assert an.game_stats(an.with_context(games))["seed"].tolist() == [2]

    with pytest.raises(ValueError, match="attrs"):
        an.with_context([pd.DataFrame({"net_a": [1]})])


def test_swept_columns_need_backticks_in_query():
    stats = pd.DataFrame({"a.knock_at": [0.0, 4.0, 8.0], "net_mean": [1.0, 2.0, 3.0]})
    assert stats.query("`a.knock_at` >= 4")["net_mean"].tolist() == [2.0, 3.0]


def _games(win_a: list[int], mirrored: bool) -> pd.DataFrame:
    n = len(win_a)
    return pd.DataFrame({
        "pair": np.arange(n) // 2 if mirrored else np.arange(n),
        "a_dealt_first": np.arange(n) % 2 == 0,
        "winner": pd.Categorical(["a" if w else "b" for w in win_a], categories=["a", "b"]),
        "margin_a": np.where(win_a, 100, -100),
        "hands": np.full(n, 5),
        "shutout": np.zeros(n, dtype=bool),
    })


@pytest.mark.parametrize("mirrored", [True, False])
def test_a_proportion_of_zero_or_one_gets_a_wilson_interval(mirrored):
    n = 4000
    for wins, inside in ((0, 0.0), (n, 1.0)):
        stats = an.game_stats(_games([1] * wins + [0] * (n - wins), mirrored))
        row = stats.iloc[0]
        assert row["win_prob"] == inside
        units = n // 2 if mirrored else n
        low, high = an.wilson_interval(0 if wins == 0 else units, units)
        assert (row["win_prob_ci_low"], row["win_prob_ci_high"]) == pytest.approx((low, high))
        assert row["win_prob_ci_high"] - row["win_prob_ci_low"] > 0.0005  # never [0.0, 0.0]
        assert row["shutout_rate_ci_high"] > 0  # never shutout: still a Wilson upper bound
    # an ordinary proportion in a mirrored run keeps its t interval over pairs
    stats = an.game_stats(_games([1, 0] * (n // 2), True))
    assert stats.loc[0, "win_prob"] == 0.5


def test_hand_shares_of_an_outcome_that_never_happens_are_not_points():
    df = simulator.simulate("simple", "simple", rules="hoyle", n_deals=2000, seed=1)
    stats = an.hand_stats(df)
    assert stats.loc[0, "share_big_gin"] == 0.0  # hoyle plays no big gin
    assert stats.loc[0, "share_big_gin_ci_high"] == pytest.approx(an.wilson_interval(0, 1000)[1])
