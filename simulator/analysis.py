"""Statistics of a run: hand and game rows in, one row per cell out (pure pandas functions).

``hand_stats(hands)`` and ``game_stats(games)`` take the rows a run writes (``RUN/data``,
``RUN/games``; columns documented in ``simulator/api.py``) or a frame from
``simulate``/``simulate_games`` (no ``cell`` column: one cell, numbered 0).  Each returns one
row per cell with the cell's labels (``cell, matchup, a, b, variant`` and any swept
parameter such as ``a.knock_at``), the number of rows and of independent units behind it,
and for every estimated quantity ``Q`` the columns ``Q`` (or ``Q_mean``), ``Q_ci_low``,
``Q_ci_high`` and ``Q_se`` (``ci_columns`` gives the names).

**Independent units.**  In a mirrored run the two deals (or games) of a pair share a deck
with the seats swapped, so they are not independent: every per-row quantity is first
averaged within each ``(cell, pair)`` and the pair means are the sample (for ``net_a`` the
pair mean is half the paired difference of the two seatings, which removes most of the
luck of the deal).  Without mirroring (every pair number appears once) each row is a
unit.  ``mirrored=None`` (the default) detects which from the data.

**Intervals** (``confidence`` = 0.95 unless given):

* a mean over units (net points, win rate, draws, first-mover edge, outcome shares, game
  margin ...): the Student t interval ``scipy.stats.t.interval(confidence, n - 1,
  loc=mean, scale=s / sqrt(n))`` over the n unit values (s: their sample standard
  deviation);
* a proportion whose units are single 0/1 rows (an unmirrored run): the Wilson score
  interval, ``scipy.stats.binomtest(k, n).proportion_ci(confidence, "wilson")``, which
  stays inside [0, 1] and does not collapse to a point when k = 0 or k = n;
* a proportion that is 0 (or 1) in every unit of a mirrored run (a strategy that never
  wins a game, an outcome a variant never produces): the t interval would have zero
  width, so it is the Wilson interval of k = 0 (or k = n) in n units instead — e.g.
  0.0% [0.0, 0.2] from 2,000 pairs, never ``[0.0, 0.0]``;
* a ratio of means (mean knocker and defender deadwood over the hands that were not
  cancelled; undercuts per knock): the delta-method (linearisation) standard error of
  ``sum(y) / sum(x)`` over the units, with the t quantile from ``scipy.stats.t``.

With hundreds of units or more these are the usual large-sample intervals; with one unit
the interval is missing (NaN).  Intervals of proportions are clipped to [0, 1] (a t
interval on a rare outcome may otherwise dip below zero).  ``ranking`` combines independent cells: the mean of k cell
estimates has standard error ``sqrt(sum se_i**2) / k`` and a normal
(``scipy.stats.norm``) interval.

Wins: a hand or game with no winner (cancelled hand, scoreless tie, game stopped by the
hand guard) counts ½ to each side, so in self-play every win rate is 0.5 in expectation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats as st

LABELS = ("cell", "matchup", "a", "b", "variant")
OUTCOMES = ("knock", "gin", "big_gin", "undercut", "dead")


def ci_columns(column: str) -> tuple[str, str]:
    """The interval columns of an estimate column: ``net_mean`` → ``net_ci_low``,
    ``net_ci_high``; ``first_mover_edge`` → ``first_mover_edge_ci_low``, ``..._ci_high``.

    >>> ci_columns("net_mean")
    ('net_ci_low', 'net_ci_high')
    """
    base = column[:-5] if column.endswith("_mean") else column
    return f"{base}_ci_low", f"{base}_ci_high"


def sweep_columns(df: pd.DataFrame) -> list[str]:
    """The swept-parameter label columns (``a.<param>`` / ``b.<param>``) of a frame."""
    return [c for c in df.columns if isinstance(c, str) and c[:2] in ("a.", "b.") and len(c) > 2]


def _label_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in LABELS if c in df.columns] + sweep_columns(df)


def _with_cell(df: pd.DataFrame) -> pd.DataFrame:
    if "cell" not in df.columns:
        df = df.assign(cell=0)
    return df


def is_mirrored(df: pd.DataFrame) -> bool:
    """True when some ``(cell, pair)`` holds more than one row (mirrored deals or games)."""
    if "pair" not in df.columns or df.empty:
        return False
    return bool(_with_cell(df).duplicated(["cell", "pair"]).any())


def _units(df: pd.DataFrame, values: pd.DataFrame, mirrored: bool | None) -> pd.DataFrame:
    """Per-unit means of ``values`` (aligned with ``df``), with a ``cell`` column."""
    if mirrored is None:
        mirrored = is_mirrored(df)
    values = values.astype(float)
    values.insert(0, "cell", df["cell"].to_numpy())
    if not mirrored:
        return values.reset_index(drop=True)
    values.insert(1, "pair", df["pair"].to_numpy())
    return values.groupby(["cell", "pair"], sort=True).mean().reset_index(level="cell").reset_index(drop=True)


def t_interval(mean: np.ndarray, sd: np.ndarray, n: np.ndarray, confidence: float):
    """Standard error and Student t interval of means over ``n`` units with sample
    standard deviation ``sd``: the one interval every table and summary of ginsim prints."""
    n = np.asarray(n, dtype=float)
    se = np.where(n > 1, np.asarray(sd, float) / np.sqrt(np.maximum(n, 1)), np.nan)
    dof = np.where(n > 1, n - 1, np.nan)
    # a zero standard error gives a point interval (t.interval would give NaN for scale 0)
    low, high = st.t.interval(confidence, dof, loc=mean, scale=np.where(se > 0, se, 1.0))
    low = np.where(se > 0, low, np.where(np.isnan(se), np.nan, mean))
    high = np.where(se > 0, high, np.where(np.isnan(se), np.nan, mean))
    return se, low, high


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion, ``k`` successes in ``n`` trials
    (``scipy.stats.binomtest(k, n).proportion_ci(confidence, "wilson")``).

    >>> low, high = wilson_interval(0, 4000)
    >>> low, round(high, 5)
    (0.0, 0.00096)
    """
    ci = st.binomtest(int(k), int(n)).proportion_ci(confidence, method="wilson")
    return float(ci.low), float(ci.high)


def _mean_estimates(units: pd.DataFrame, columns: Sequence[str], names: Sequence[str],
                    confidence: float, wilson: Sequence[bool] = (),
                    proportion: Sequence[bool] = ()) -> pd.DataFrame:
    """Per cell: mean, se, interval of each unit column (t interval; Wilson where asked).

    ``proportion`` marks columns whose unit values are proportions in [0, 1]: when every
    unit is 0 (or every unit is 1) the t interval would have zero width, so the Wilson
    interval of k = 0 (or k = n) successes in n units is given instead — an upper (lower)
    bound of about 3.84 / (n + 3.84) from 1 (0), as for a binomial count."""
    g = units.groupby("cell", sort=True)[list(columns)]
    means, sds, counts = g.mean(), g.std(ddof=1), g.count()
    out = pd.DataFrame(index=means.index)
    wilson = list(wilson) + [False] * (len(columns) - len(wilson))
    proportion = list(proportion) + [False] * (len(columns) - len(proportion))
    for col, name, use_wilson, is_share in zip(columns, names, wilson, proportion, strict=True):
        low_name, high_name = ci_columns(name)
        mean, n = means[col].to_numpy(), counts[col].to_numpy()
        se, low, high = t_interval(mean, sds[col].to_numpy(), n, confidence)
        for i, (m, k) in enumerate(zip(mean, n)):
            if k >= 1 and np.isfinite(m) and (use_wilson or (is_share and m in (0.0, 1.0))):
                low[i], high[i] = wilson_interval(int(round(m * k)), int(k), confidence)
        out[name] = mean
        out[low_name] = low
        out[high_name] = high
        base = name[:-5] if name.endswith("_mean") else name
        out[f"{base}_se"] = se
    return out


def _ratio_estimates(units: pd.DataFrame, num: str, den: str, name: str, confidence: float) -> pd.DataFrame:
    """Per cell: sum(num)/sum(den) over units with a delta-method t interval."""
    g = units.groupby("cell", sort=True)
    mean_num, mean_den, n = g[num].mean(), g[den].mean(), g[num].count()
    ratio = mean_num / mean_den.where(mean_den > 0)
    resid = units[num] - units["cell"].map(ratio).fillna(0.0) * units[den]
    sd = resid.groupby(units["cell"]).std(ddof=1) / mean_den.where(mean_den > 0)
    se, low, high = t_interval(ratio.to_numpy(), sd.to_numpy(), n.to_numpy(), confidence)
    low_name, high_name = ci_columns(name)
    base = name[:-5] if name.endswith("_mean") else name
    return pd.DataFrame({name: ratio.to_numpy(), low_name: low, high_name: high, f"{base}_se": se},
                        index=ratio.index)


def _clip(out: pd.DataFrame, names: Sequence[str], low: float, high: float) -> None:
    """Keep the intervals of proportions inside their range (a t interval may cross it)."""
    for name in names:
        for col in ci_columns(name):
            out[col] = out[col].clip(low, high)


def _labels(df: pd.DataFrame) -> pd.DataFrame:
    cols = _label_columns(df)
    return df[cols].drop_duplicates("cell").set_index("cell", drop=False).sort_index()


def _win_value(winner: pd.Series, side: str) -> np.ndarray:
    """1 when ``side`` won, 0 when the other side won, ½ without a winner."""
    missing = winner.isna().to_numpy()
    won = (winner == side).fillna(False).to_numpy(dtype=bool)
    return np.where(missing, 0.5, won.astype(float))


def hand_stats(hands: pd.DataFrame, confidence: float = 0.95, mirrored: bool | None = None) -> pd.DataFrame:
    """One row per cell of hand rows: what happens in a hand, with intervals.

    Columns: the labels; ``n_hands``, ``n_units`` (pairs when mirrored, else hands);
    ``net_mean`` (points per hand to A, ``net_a``); ``win_rate`` (share of hands A won, no
    winner = ½); ``first_mover_edge`` (points per hand to the non-dealer, who moves first:
    ``net_a`` when B dealt, ``-net_a`` when A dealt); ``draws_mean`` (hand length in cards
    drawn); ``share_<outcome>`` for knock, gin, big_gin, undercut, dead; ``gin_rate``
    (gin or big gin, per hand); ``undercut_rate`` (undercuts per ordinary knock, i.e.
    undercut / (knock + undercut)); ``knocker_deadwood`` and ``defender_deadwood`` (mean
    over hands not cancelled, defender's after layoffs).  Each with ``_ci_low``,
    ``_ci_high`` and ``_se`` columns (see the module docstring for the method).
    """
    df = _with_cell(hands)
    if mirrored is None:
        mirrored = is_mirrored(df)
    net = df["net_a"].astype(float).to_numpy()
    a_dealt = df["a_dealt"].astype(bool).to_numpy()
    outcome = df["outcome"]
    played = (outcome != "dead").to_numpy()
    values = pd.DataFrame({
        "net": net,
        "win": _win_value(df["winner"], "a"),
        "edge": np.where(a_dealt, -net, net),
        "draws": df["draws"].astype(float).to_numpy(),
        **{f"share_{o}": (outcome == o).to_numpy(dtype=float) for o in OUTCOMES},
        "gin_any": outcome.isin(["gin", "big_gin"]).to_numpy(dtype=float),
        "knocks": outcome.isin(["knock", "undercut"]).to_numpy(dtype=float),
        "played": played.astype(float),
        "kdw": np.where(played, pd.to_numeric(df["knocker_deadwood"]).astype(float).fillna(0.0), 0.0),
        "ddw": np.where(played, pd.to_numeric(df["defender_deadwood"]).astype(float).fillna(0.0), 0.0),
    }, index=df.index)
    units = _units(df, values, mirrored)
    binary = not mirrored
    share_cols = [f"share_{o}" for o in OUTCOMES]
    means = _mean_estimates(
        units,
        ["net", "win", "edge", "draws", *share_cols, "gin_any"],
        ["net_mean", "win_rate", "first_mover_edge", "draws_mean", *share_cols, "gin_rate"],
        confidence,
        wilson=[False, binary and bool(df["winner"].notna().all()), False, False] + [binary] * 6,
        proportion=[False, True, False, False] + [True] * 6,
    )
    out = _labels(df)
    n = df.groupby("cell", sort=True).size()
    out.insert(len(out.columns), "n_hands", n)
    out.insert(len(out.columns), "n_units", units.groupby("cell", sort=True).size())
    out = out.join(means)
    out = out.join(_ratio_estimates(units, "share_undercut", "knocks", "undercut_rate", confidence))
    # undercuts per knock is a proportion of the knocks: at 0 or 1 the delta-method interval
    # has zero width, so Wilson with k = 0 (or n) of the knocks (in units, pairs when mirrored)
    knocks = units.groupby("cell", sort=True)["knocks"].sum()
    for cell, rate in out["undercut_rate"].items():
        n_knocks = int(round(knocks.get(cell, 0)))
        if n_knocks >= 1 and rate in (0.0, 1.0):
            low, high = wilson_interval(0 if rate == 0.0 else n_knocks, n_knocks, confidence)
            out.loc[cell, ["undercut_rate_ci_low", "undercut_rate_ci_high"]] = [low, high]
    out = out.join(_ratio_estimates(units, "kdw", "played", "knocker_deadwood", confidence))
    out = out.join(_ratio_estimates(units, "ddw", "played", "defender_deadwood", confidence))
    _clip(out, ["win_rate", *share_cols, "gin_rate", "undercut_rate"], 0.0, 1.0)
    _clip(out, ["knocker_deadwood", "defender_deadwood", "draws_mean"], 0.0, np.inf)
    return out.reset_index(drop=True)


def game_stats(games: pd.DataFrame, confidence: float = 0.95, mirrored: bool | None = None) -> pd.DataFrame:
    """One row per cell of game rows: who wins games and by how much, with intervals.

    Columns: the labels; ``n_games``, ``n_units``; ``win_prob`` (A's probability of winning
    the game, a game with no winner = ½); ``margin_mean`` (``margin_a``, A's final score
    minus B's, bonuses included); ``hands_mean`` (hands per game); ``shutout_rate``;
    ``first_mover_edge`` (game-win probability of the player who did *not* deal first —
    the first to move — minus 0.5).  Each with ``_ci_low``, ``_ci_high`` and ``_se``.
    """
    df = _with_cell(games)
    if mirrored is None:
        mirrored = is_mirrored(df)
    win_a = _win_value(df["winner"], "a")
    a_first = df["a_dealt_first"].astype(bool).to_numpy()
    values = pd.DataFrame({
        "win": win_a,
        "margin": df["margin_a"].astype(float).to_numpy(),
        "hands": df["hands"].astype(float).to_numpy(),
        "shutout": df["shutout"].astype(bool).to_numpy(dtype=float),
        "edge": np.where(a_first, 1.0 - win_a, win_a) - 0.5,
    }, index=df.index)
    units = _units(df, values, mirrored)
    binary = not mirrored
    complete = bool(df["winner"].notna().all())
    means = _mean_estimates(units, ["win", "margin", "hands", "shutout", "edge"],
                            ["win_prob", "margin_mean", "hands_mean", "shutout_rate", "first_mover_edge"],
                            confidence, wilson=[binary and complete, False, False, binary],
                            proportion=[True, False, False, True])
    # the edge is a proportion minus ½: Wilson on the proportion (unpaired, or all 0 / all 1)
    nd = _mean_estimates(units.assign(nd=units["edge"] + 0.5), ["nd"], ["nd"], confidence,
                         [binary and complete], [True])
    use = (binary and complete) | nd["nd"].isin([0.0, 1.0])
    means.loc[use, "first_mover_edge_ci_low"] = nd.loc[use, "nd_ci_low"] - 0.5
    means.loc[use, "first_mover_edge_ci_high"] = nd.loc[use, "nd_ci_high"] - 0.5
    out = _labels(df)
    out.insert(len(out.columns), "n_games", df.groupby("cell", sort=True).size())
    out.insert(len(out.columns), "n_units", units.groupby("cell", sort=True).size())
    out = out.join(means)
    _clip(out, ["win_prob", "shutout_rate"], 0.0, 1.0)
    _clip(out, ["first_mover_edge"], -0.5, 0.5)
    _clip(out, ["hands_mean"], 0.0, np.inf)
    return out.reset_index(drop=True)


def _flip_for(value: str) -> Callable[[pd.Series], pd.Series]:
    if value.endswith(("rate", "prob")) or "rate_" in value or "prob_" in value:
        return lambda s: 1.0 - s
    return lambda s: -s


def ranking(stats: pd.DataFrame, value: str = "net_mean", by: str | Sequence[str] | None = None,
            confidence: float = 0.95) -> pd.DataFrame:
    """Each strategy's mean result against all the others, from per-cell stats, best first.

    For every cell with ``a != b`` strategy ``a`` scores the cell's ``value`` and ``b``
    scores ``-value`` (B's net points are A's negated; for a rate or probability, B's is
    ``1 - value``).  A strategy's score is the plain mean over its cells, so each opponent
    (and variant, sweep point) weighs the same; cells are independent, so its standard
    error is ``sqrt(sum se_i**2) / k`` from the cells' ``_se`` column and the interval is
    normal (``scipy.stats.norm``) — except for a rate or probability that is 0 (or 1) in every
    cell, which gets the Wilson interval over all its cells' units.  Self-play cells are ignored.  ``by`` ranks separately
    within each group (e.g. ``"variant"``).

    Columns: [by...], ``rank``, ``strategy``, ``value`` (the name given), ``ci_low``,
    ``ci_high``, ``se``, ``n_opponents``, ``n_cells`` and ``n_hands``/``n_games``.
    """
    by = [by] if isinstance(by, str) else list(by or [])
    base = value[:-5] if value.endswith("_mean") else value
    se_col = f"{base}_se"
    flip = _flip_for(value)
    count = "n_hands" if "n_hands" in stats.columns else "n_games" if "n_games" in stats.columns else None
    cells = stats[stats["a"] != stats["b"]]
    se = cells[se_col] if se_col in cells.columns else pd.Series(np.nan, index=cells.index)
    n = cells[count] if count else pd.Series(0, index=cells.index)
    units = cells["n_units"] if "n_units" in cells.columns else n
    keys = {k: pd.concat([cells[k], cells[k]], ignore_index=True) for k in by}
    long = pd.DataFrame({
        **keys,
        "strategy": pd.concat([cells["a"], cells["b"]], ignore_index=True),
        "opponent": pd.concat([cells["b"], cells["a"]], ignore_index=True),
        "v": pd.concat([cells[value], flip(cells[value])], ignore_index=True).astype(float),
        "var": pd.concat([se, se], ignore_index=True).astype(float) ** 2,
        "n": pd.concat([n, n], ignore_index=True),
        "units": pd.concat([units, units], ignore_index=True),
    })
    if long.empty:
        return pd.DataFrame(columns=[*by, "rank", "strategy", value, "ci_low", "ci_high", "se", "n_opponents",
                                     "n_cells", count or "n"])
    g = long.groupby([*by, "strategy"], sort=False, dropna=False)
    out = g.agg(v=("v", "mean"), var=("var", "sum"), k=("v", "size"), n_opponents=("opponent", "nunique"),
                n=("n", "sum"), units=("units", "sum")).reset_index()
    out["se"] = np.sqrt(out["var"]) / out["k"]
    z = st.norm.ppf(0.5 + confidence / 2)
    out["ci_low"] = out["v"] - z * out["se"]
    out["ci_high"] = out["v"] + z * out["se"]
    if value.endswith(("rate", "prob")) or "rate_" in value or "prob_" in value:
        # a proportion that is 0 (or 1) in every cell: Wilson over all its units, not [0, 0]
        for i in out.index[out["v"].isin([0.0, 1.0]) & (out["se"].fillna(0) == 0) & (out["units"] > 0)]:
            n_units = int(out.at[i, "units"])
            out.loc[i, ["ci_low", "ci_high"]] = wilson_interval(0 if out.at[i, "v"] == 0 else n_units, n_units,
                                                                confidence)
    out = out.sort_values([*by, "v"], ascending=[True] * len(by) + [False], kind="stable")
    out["rank"] = out.groupby(by, sort=False, dropna=False).cumcount() + 1 if by else np.arange(1, len(out) + 1)
    out = out.rename(columns={"v": value, "k": "n_cells", "n": count or "n"})
    return out[[*by, "rank", "strategy", value, "ci_low", "ci_high", "se", "n_opponents", "n_cells",
                count or "n"]].reset_index(drop=True)


def matrix(stats: pd.DataFrame, value: str = "net_mean") -> pd.DataFrame:
    """Strategy × strategy table: entry (row r, column c) is ``value`` for r playing c.

    A cell with A = r and B = c gives ``value``; one with A = c and B = r gives it seen
    from the other side (``-value``; ``1 - value`` for a rate or probability).  Several
    cells for the same pair (variants, sweep points, both seatings) are averaged — filter
    ``stats`` first to compare like with like.  The diagonal holds self-play cells, else
    NaN.  Rows and columns are ordered by the row mean, best first.
    """
    flip = _flip_for(value)
    a, b, v = stats["a"], stats["b"], stats[value].astype(float)
    other = stats["a"] != stats["b"]
    long = pd.DataFrame({
        "row": pd.concat([a, b[other]], ignore_index=True),
        "col": pd.concat([b, a[other]], ignore_index=True),
        "v": pd.concat([v, flip(v[other])], ignore_index=True),
    })
    table = long.pivot_table(index="row", columns="col", values="v", aggfunc="mean", sort=False)
    names = list(dict.fromkeys([*table.index, *table.columns]))
    table = table.reindex(index=names, columns=names)
    off = table.where(~np.eye(len(names), dtype=bool))
    order = off.mean(axis=1).sort_values(ascending=False, kind="stable").index
    table = table.reindex(index=order, columns=order)
    # separate Index objects: one shared by rows and columns would take both names
    table.index = pd.Index(list(order), name="strategy")
    table.columns = pd.Index(list(order), name="opponent")
    return table


def matrix_se(stats: pd.DataFrame, value: str = "net_mean") -> pd.DataFrame:
    """The standard errors of ``matrix(stats, value)``, entry by entry, in the same order.

    An entry that averages k independent cells has standard error ``sqrt(sum se_i**2) / k``
    (from the cells' ``_se`` column; seeing a cell from the other side keeps its se).
    A 95% interval of an entry is about ``value ± 1.96 * se``.
    """
    base = value[:-5] if value.endswith("_mean") else value
    a, b = stats["a"], stats["b"]
    var = stats[f"{base}_se"].astype(float) ** 2
    other = a != b
    long = pd.DataFrame({
        "row": pd.concat([a, b[other]], ignore_index=True),
        "col": pd.concat([b, a[other]], ignore_index=True),
        "var": pd.concat([var, var[other]], ignore_index=True),
    })
    g = long.groupby(["row", "col"], sort=False)["var"]
    se = (np.sqrt(g.sum()) / g.size()).rename("se").reset_index()
    table = se.pivot_table(index="row", columns="col", values="se", aggfunc="first", sort=False)
    order = matrix(stats, value)
    table = table.reindex(index=order.index, columns=order.columns)
    table.index = pd.Index(list(order.index), name="strategy")
    table.columns = pd.Index(list(order.columns), name="opponent")
    return table


def balanced(stats: pd.DataFrame, column: str = "first_mover_edge") -> pd.Series:
    """Verdict per row on who the game favours, from an edge and its interval.

    ``column`` is an edge *to the non-dealer* (first mover); its interval columns are
    ``ci_columns(column)``.  "balanced" when the interval contains zero, "favours
    non-dealer" when it lies above zero, "favours dealer" when below; "unknown" without
    an interval.

    >>> s = pd.DataFrame({"first_mover_edge": [0.1, 0.5, -0.4],
    ...                   "first_mover_edge_ci_low": [-0.1, 0.2, -0.6],
    ...                   "first_mover_edge_ci_high": [0.3, 0.8, -0.2]})
    >>> balanced(s).tolist()
    ['balanced', 'favours non-dealer', 'favours dealer']
    """
    low_name, high_name = ci_columns(column)
    low, high = stats[low_name].astype(float), stats[high_name].astype(float)
    verdict = np.where(low > 0, "favours non-dealer", np.where(high < 0, "favours dealer", "balanced"))
    verdict = np.where(low.isna() | high.isna(), "unknown", verdict)
    return pd.Series(verdict, index=stats.index, name="balance")


# ----------------------------------------------------------------------------- notebook frames

#: the keys of ``DataFrame.attrs`` that ``simulate`` and ``simulate_games`` set
CONTEXT_KEYS = ("a", "b", "rules", "seed", "mirrored", "version")


def frame_context(strategy_a, strategy_b, rules, seed: int, mirrored: bool) -> dict:
    """What a frame of ``simulate``/``simulate_games`` was played with, for its ``attrs``:
    ``a``, ``b`` (the strategies' canonical specs), ``rules`` (the preset name when one was
    given by name, else ``"custom"``), ``rules_fields`` (every field of the rules),
    ``seed``, ``mirrored`` and ``version`` (of ginsim)."""
    import strategies

    from . import __version__
    from .rules import resolve_rules

    def label(spec) -> str:
        try:
            return strategies.parse_strategy(spec).label
        except (ValueError, KeyError):
            return str(spec)

    if isinstance(rules, str):
        name = rules
    elif isinstance(rules, dict) and set(rules) == {"preset"}:
        name = str(rules["preset"])
    else:
        name = "custom"
    return {"a": label(strategy_a), "b": label(strategy_b), "rules": name,
            "rules_fields": resolve_rules(rules).to_dict(), "seed": int(seed), "mirrored": bool(mirrored),
            "version": __version__}


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
