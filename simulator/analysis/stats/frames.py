"""The statistics of rows, per cell: each quantity's values and its estimates with intervals; ``with_context``.

Each per-row quantity (net points, wins, outcomes, deadwood, game margin ...) is computed from
hand or game rows (``_hand_values``, ``_game_values``), averaged within independent units and
estimated with its interval (``stats.intervals``); ``with_context`` joins frames from
``simulate`` keeping what each was played with.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .intervals import (
    KNOCKER_OUTCOMES, Moments, OUTCOMES, _clip, _label_columns, _mean_estimates, _ratio_estimates, _units,
    _with_cell, is_mirrored, wilson_interval,
)


def _labels(df: pd.DataFrame) -> pd.DataFrame:
    cols = _label_columns(df)
    return df[cols].drop_duplicates("cell").set_index("cell", drop=False).sort_index()


def _in(labels: pd.Series, wanted: Sequence[str]) -> np.ndarray:
    """True where ``labels`` is one of ``wanted`` (a categorical compares its codes)."""
    if isinstance(labels.dtype, pd.CategoricalDtype):
        categories = list(labels.cat.categories)
        table = np.zeros(len(categories) + 1, dtype=bool)  # the last entry: code -1, missing
        table[[categories.index(w) for w in wanted if w in categories]] = True
        return table[labels.cat.codes.to_numpy()]
    return labels.isin(list(wanted)).to_numpy(dtype=bool)


def win_value(winner: pd.Series, side: str) -> np.ndarray:
    """1 when ``side`` won, 0 when the other side won, ½ without a winner (what a hand or game
    counts for in every share of wins; ``simulator.studies.run_controls`` counts a run's games so)."""
    missing = winner.isna().to_numpy()
    won = _in(winner, [side]) & ~missing
    return np.where(missing, 0.5, won.astype(float))


def first_mover_net(net_a: np.ndarray, a_dealt: np.ndarray) -> np.ndarray:
    """The first mover's (the non-dealer's) net points per hand from A's (``net_a``): A's when B
    dealt, B's when A dealt (``a_dealt``)."""
    return np.where(a_dealt, -net_a, net_a)


def first_mover_win(win_a: np.ndarray, a_dealt_first: np.ndarray) -> np.ndarray:
    """The first mover's (the non-dealer of the first hand's) game-win value from A's
    (``win_a``): A's when B dealt first, B's when A did (``a_dealt_first``)."""
    return np.where(a_dealt_first, 1.0 - win_a, win_a)


def _deadwood(column: pd.Series, played: np.ndarray) -> np.ndarray:
    values = column.array
    if isinstance(values, pd.arrays.IntegerArray):  # the frames' nullable Int16: no object round trip
        data = values.to_numpy(dtype=float, na_value=0.0)
    else:
        data = pd.to_numeric(column).astype(float).fillna(0.0).to_numpy()
    return np.where(played, data, 0.0)


def _hand_value_columns(df: pd.DataFrame) -> dict[str, np.ndarray]:
    """The per-hand quantities behind ``hand_stats`` (one float array per quantity)."""
    net = df["net_a"].to_numpy(dtype=float)
    a_dealt = df["a_dealt"].to_numpy(dtype=bool)
    outcome = df["outcome"]
    played = ~_in(outcome, ["dead"])
    return {
        "net": net,
        "win": win_value(df["winner"], "a"),
        "edge": first_mover_net(net, a_dealt),
        "draws": df["draws"].to_numpy(dtype=float),
        **{f"share_{o}": _in(outcome, [o]).astype(float) for o in OUTCOMES},
        **({f"share_{o}_{side}": (_in(outcome, [o]) & _in(df["knocker"], [side])).astype(float)
            for o in KNOCKER_OUTCOMES for side in ("a", "b")} if "knocker" in df.columns else {}),
        "gin_any": _in(outcome, ["gin", "big_gin"]).astype(float),
        "knocks": _in(outcome, ["knock", "undercut"]).astype(float),
        "played": played.astype(float),
        "kdw": _deadwood(df["knocker_deadwood"], played),
        "ddw": _deadwood(df["defender_deadwood"], played),
    }


def _game_value_columns(df: pd.DataFrame) -> dict[str, np.ndarray]:
    """The per-game quantities behind ``game_stats`` (one float array per quantity);
    ``nd`` is the non-dealer's (first mover's) game-win value, ``edge`` + ½."""
    win_a = win_value(df["winner"], "a")
    edge = first_mover_win(win_a, df["a_dealt_first"].to_numpy(dtype=bool)) - 0.5
    return {
        "win": win_a,
        "margin": df["margin_a"].to_numpy(dtype=float),
        "hands": df["hands"].to_numpy(dtype=float),
        "shutout": df["shutout"].to_numpy(dtype=bool).astype(float),
        "edge": edge,
        "nd": edge + 0.5,
    }


def _hand_values(df: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(_hand_value_columns(df), index=df.index)


def _game_values(df: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(_game_value_columns(df), index=df.index)


def _frame_stats(rows: pd.DataFrame, mirrored: bool | None, confidence: float, values_of, estimates_of) -> pd.DataFrame:
    """``hand_stats`` / ``game_stats`` of rows in memory: per-row values (``values_of``), their
    unit moments per cell (a mirrored pair is one unit), then the estimates
    (``estimates_of``), the same path a streamed run takes through ``scan_run``."""
    df = _with_cell(rows)
    if mirrored is None:
        mirrored = is_mirrored(df)
    values = values_of(df)
    moments = Moments.from_units(_units(df, values, mirrored), list(values.columns))
    return estimates_of(moments, _labels(df), df.groupby("cell", sort=True).size(), not mirrored,
                        bool(df["winner"].notna().all()), confidence)


def _hand_estimates(moments: Moments, labels: pd.DataFrame, n_rows: pd.Series, binary: bool,
                    all_won: bool, confidence: float) -> pd.DataFrame:
    """``hand_stats`` from the cells' unit moments (``binary``: units are single hands;
    ``all_won``: every hand has a winner)."""
    share_cols = [f"share_{o}" for o in OUTCOMES] + [c for o in KNOCKER_OUTCOMES for side in ("a", "b")
                                                      if (c := f"share_{o}_{side}") in moments.columns]
    means = _mean_estimates(
        moments,
        ["net", "win", "edge", "draws", *share_cols, "gin_any"],
        ["net_mean", "win_rate", "first_mover_edge", "draws_mean", *share_cols, "gin_rate"],
        confidence,
        wilson=[False, binary and all_won, False, False] + [binary] * (len(share_cols) + 1),
        proportion=[False, True, False, False] + [True] * (len(share_cols) + 1),
    )
    out = labels
    out.insert(len(out.columns), "n_hands", n_rows)
    out.insert(len(out.columns), "n_units", moments.n())
    out = out.join(means)
    out = out.join(_ratio_estimates(moments, "share_undercut", "knocks", "undercut_rate", confidence))
    # undercuts per knock is a proportion of the knocks: at 0 or 1 the delta-method interval
    # has zero width, so Wilson with k = 0 (or n) of the knocks (in units, pairs when mirrored)
    knocks = moments.mean()["knocks"] * moments.n()
    for cell, rate in out["undercut_rate"].items():
        n_knocks = int(round(knocks.get(cell, 0)))
        if n_knocks >= 1 and rate in (0.0, 1.0):
            low, high = wilson_interval(0 if rate == 0.0 else n_knocks, n_knocks, confidence)
            out.loc[cell, ["undercut_rate_ci_low", "undercut_rate_ci_high"]] = [low, high]
    out = out.join(_ratio_estimates(moments, "kdw", "played", "knocker_deadwood", confidence))
    out = out.join(_ratio_estimates(moments, "ddw", "played", "defender_deadwood", confidence))
    _clip(out, ["win_rate", *share_cols, "gin_rate", "undercut_rate"], 0.0, 1.0)
    _clip(out, ["knocker_deadwood", "defender_deadwood", "draws_mean"], 0.0, np.inf)
    return out.reset_index(drop=True)


def _game_estimates(moments: Moments, labels: pd.DataFrame, n_rows: pd.Series, binary: bool,
                    complete: bool, confidence: float) -> pd.DataFrame:
    """``game_stats`` from the cells' unit moments (``complete``: every game has a winner)."""
    means = _mean_estimates(moments, ["win", "margin", "hands", "shutout", "edge"],
                            ["win_prob", "margin_mean", "hands_mean", "shutout_rate", "first_mover_edge"],
                            confidence, wilson=[binary and complete, False, False, binary],
                            proportion=[True, False, False, True])
    # the edge is a proportion minus ½: Wilson on the proportion (unpaired, or all 0 / all 1)
    nd = _mean_estimates(moments, ["nd"], ["nd"], confidence, [binary and complete], [True])
    use = (binary and complete) | nd["nd"].isin([0.0, 1.0])
    means.loc[use, "first_mover_edge_ci_low"] = nd.loc[use, "nd_ci_low"] - 0.5
    means.loc[use, "first_mover_edge_ci_high"] = nd.loc[use, "nd_ci_high"] - 0.5
    out = labels
    out.insert(len(out.columns), "n_games", n_rows)
    out.insert(len(out.columns), "n_units", moments.n())
    out = out.join(means)
    _clip(out, ["win_prob", "shutout_rate"], 0.0, 1.0)
    _clip(out, ["first_mover_edge"], -0.5, 0.5)
    _clip(out, ["hands_mean"], 0.0, np.inf)
    return out.reset_index(drop=True)


#: the keys of ``DataFrame.attrs`` that ``simulate`` and ``simulate_games`` set
CONTEXT_KEYS = ("a", "b", "rules", "seed", "mirrored", "version")


def with_context(frames: pd.DataFrame | Sequence[pd.DataFrame], names: Sequence[str] | None = None) -> pd.DataFrame:
    """Concatenate frames from ``simulate``/``simulate_games``, keeping what each was played
    with as columns.

    Each frame's ``attrs`` (set by ``simulate``/``simulate_games``) become the columns
    ``cell`` (the frame's position in ``frames``; ``name`` too when ``names`` are given),
    ``matchup`` ("A vs B"),
    ``a``, ``b``, ``variant`` (the rules: preset name or ``"custom"``), ``seed``,
    ``mirrored`` and ``version``, in front of the rows.  The result reads like the rows of
    a run directory, so ``hand_stats``/``game_stats`` give one row per frame::

        frames = [simulate("gin_hunter", "knock_early", rules=r, n_deals=20_000) for r in ("hoyle", "classic")]
        hand_stats(with_context(frames))[["variant", "net_mean", "net_ci_low", "net_ci_high"]]

    A frame without ``attrs`` (e.g. after a pandas operation dropped them) raises a
    ``ValueError`` naming it.
    """
    if isinstance(frames, pd.DataFrame):
        frames = [frames]
    frames = list(frames)
    if not frames:
        raise ValueError("with_context needs at least one frame")
    if names is not None and len(names) != len(frames):
        raise ValueError(f"names has {len(names)} entries for {len(frames)} frames")
    parts = []
    for i, frame in enumerate(frames):
        attrs = frame.attrs
        missing = [k for k in CONTEXT_KEYS if k not in attrs]
        if missing:
            raise ValueError(f"frame {i} has no {missing[0]!r} in its attrs: pass frames as simulate or "
                             f"simulate_games return them (a pandas operation may have dropped the attrs)")
        if "cell" in frame.columns:
            raise ValueError(f"frame {i} already has a 'cell' column (rows of a run directory carry their context)")
        n = len(frame)
        labels = pd.DataFrame({
            "cell": np.full(n, i, dtype=np.int64),
            "matchup": f"{attrs['a']} vs {attrs['b']}",
            "a": attrs["a"], "b": attrs["b"], "variant": attrs["rules"],
            "seed": np.full(n, attrs["seed"], dtype=np.uint64), "mirrored": attrs["mirrored"],
            "version": attrs["version"],
        }, index=frame.index)
        if names is not None:
            labels.insert(1, "name", str(names[i]))
        parts.append(pd.concat([labels, frame], axis=1))
    out = pd.concat(parts, ignore_index=True)
    out.attrs = {}
    return out
