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
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as st

LABELS = ("cell", "matchup", "a", "b", "variant")
#: the outcomes a player ends a hand with as its knocker (``share_<outcome>_a`` / ``_b``)
KNOCKER_OUTCOMES = ("knock", "gin", "big_gin", "undercut")
#: labels a frame from ``with_context`` carries besides ``LABELS``, kept by ``hand_stats`` /
#: ``game_stats`` when present (a run's rows have neither: a run's seeds are in its manifest)
FRAME_LABELS = ("name", "seed")
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
    return [c for c in (*LABELS, *FRAME_LABELS) if c in df.columns] + sweep_columns(df)


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


class Moments:
    """Per cell: the number of units, the mean of each unit column and their co-moment
    matrix (sum of products of deviations from the means), merged part by part.

    ``add(cell, units)`` takes a block of unit values (rows = units, one column per entry
    of ``columns``) and merges it into the cell's running totals with the pairwise update
    of Chan, Golub and LeVeque (1979), which stays exact to rounding however the units are
    split into parts: a run is summarised file by file with memory bounded by the number
    of cells, and the sample standard deviations and covariances equal those of all the
    units at once (``sd``, ``residual_sd``)."""

    def __init__(self, columns: Sequence[str]):
        self.columns = list(columns)
        self._n: dict[int, int] = {}
        self._mean: dict[int, np.ndarray] = {}
        self._comoment: dict[int, np.ndarray] = {}

    def add(self, cell: int, units: np.ndarray) -> None:
        units = np.asarray(units, dtype=float)
        m = units.shape[0]
        if m == 0:
            return
        mean = units.mean(axis=0)
        dev = units - mean
        comoment = dev.T @ dev
        cell = int(cell)
        n0 = self._n.get(cell, 0)
        if n0 == 0:
            self._n[cell], self._mean[cell], self._comoment[cell] = m, mean, comoment
            return
        n = n0 + m
        delta = mean - self._mean[cell]
        self._mean[cell] = self._mean[cell] + delta * (m / n)
        self._comoment[cell] = self._comoment[cell] + comoment + np.outer(delta, delta) * (n0 * m / n)
        self._n[cell] = n

    @classmethod
    def from_units(cls, units: pd.DataFrame, columns: Sequence[str]) -> "Moments":
        """The moments of a frame of unit values with a ``cell`` column."""
        out = cls(columns)
        cells = units["cell"].to_numpy()
        values = units[list(columns)].to_numpy(dtype=float)
        order = np.argsort(cells, kind="stable")
        cells, values = cells[order], values[order]
        bounds = np.flatnonzero(np.diff(cells)) + 1
        for part_cells, part in zip(np.split(cells, bounds), np.split(values, bounds)):
            if len(part):
                out.add(int(part_cells[0]), part)
        return out

    @property
    def cells(self) -> list[int]:
        return sorted(self._n)

    def n(self) -> pd.Series:
        """Units per cell."""
        cells = self.cells
        return pd.Series([self._n[c] for c in cells], index=pd.Index(cells, name="cell"), dtype=np.int64)

    def mean(self) -> pd.DataFrame:
        cells = self.cells
        return pd.DataFrame([self._mean[c] for c in cells], index=pd.Index(cells, name="cell"),
                            columns=self.columns)

    def sd(self) -> pd.DataFrame:
        """Sample standard deviations (ddof 1) of the unit columns; NaN with one unit."""
        cells = self.cells
        rows = [np.sqrt(np.maximum(np.diag(self._comoment[c]), 0.0) / (self._n[c] - 1)) if self._n[c] > 1
                else np.full(len(self.columns), np.nan) for c in cells]
        return pd.DataFrame(rows, index=pd.Index(cells, name="cell"), columns=self.columns)

    def residual_sd(self, num: str, den: str, ratio: pd.Series) -> pd.Series:
        """Per cell, the sample standard deviation of ``num - ratio * den`` over units."""
        i, j = self.columns.index(num), self.columns.index(den)
        out = {}
        for c in self.cells:
            r, comoment, n = float(ratio.get(c, np.nan)), self._comoment[c], self._n[c]
            if n < 2 or not np.isfinite(r):
                out[c] = np.nan
                continue
            var = (comoment[i, i] - 2 * r * comoment[i, j] + r * r * comoment[j, j]) / (n - 1)
            out[c] = float(np.sqrt(max(var, 0.0)))
        return pd.Series(out, dtype=float).rename_axis("cell")


def _mean_estimates(moments: Moments, columns: Sequence[str], names: Sequence[str],
                    confidence: float, wilson: Sequence[bool] = (),
                    proportion: Sequence[bool] = ()) -> pd.DataFrame:
    """Per cell: mean, se, interval of each unit column (t interval; Wilson where asked).

    ``proportion`` marks columns whose unit values are proportions in [0, 1]: when every
    unit is 0 (or every unit is 1) the t interval would have zero width, so the Wilson
    interval of k = 0 (or k = n) successes in n units is given instead — an upper (lower)
    bound of about 3.84 / (n + 3.84) from 1 (0), as for a binomial count."""
    means, sds, counts = moments.mean(), moments.sd(), moments.n()
    out = pd.DataFrame(index=means.index)
    wilson = list(wilson) + [False] * (len(columns) - len(wilson))
    proportion = list(proportion) + [False] * (len(columns) - len(proportion))
    for col, name, use_wilson, is_share in zip(columns, names, wilson, proportion, strict=True):
        low_name, high_name = ci_columns(name)
        mean, n = means[col].to_numpy(), counts.to_numpy()
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


def mean_interval(units, confidence: float = 0.95, proportion: bool = False) -> tuple[float, float, float]:
    """(mean, low, high): the mean of independent unit values with its interval, made as
    the report's tables make it (``_mean_estimates``: Student t; for a ``proportion``, the
    Wilson interval when every unit is 0 or every unit is 1, and the interval kept inside
    [0, 1]).  For numbers printed outside a report, so that they match it.

    >>> [round(x, 4) for x in mean_interval([1.0, 2.0, 3.0, 4.0])]
    [2.5, 0.4457, 4.5543]
    """
    units = np.asarray(units, dtype=float).reshape(-1, 1)
    if len(units) == 0:
        return float("nan"), float("nan"), float("nan")
    moments = Moments(["value"])
    moments.add(0, units)
    out = _mean_estimates(moments, ["value"], ["value"], confidence, proportion=[proportion])
    if proportion:
        _clip(out, ["value"], 0.0, 1.0)
    row = out.iloc[0]
    return float(row["value"]), float(row["value_ci_low"]), float(row["value_ci_high"])


def _ratio_estimates(moments: Moments, num: str, den: str, name: str, confidence: float) -> pd.DataFrame:
    """Per cell: sum(num)/sum(den) over units with a delta-method t interval."""
    means, n = moments.mean(), moments.n()
    mean_num, mean_den = means[num], means[den]
    ratio = mean_num / mean_den.where(mean_den > 0)
    sd = moments.residual_sd(num, den, ratio).reindex(ratio.index) / mean_den.where(mean_den > 0)
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


def _in(labels: pd.Series, wanted: Sequence[str]) -> np.ndarray:
    """True where ``labels`` is one of ``wanted`` (a categorical compares its codes)."""
    if isinstance(labels.dtype, pd.CategoricalDtype):
        categories = list(labels.cat.categories)
        table = np.zeros(len(categories) + 1, dtype=bool)  # the last entry: code -1, missing
        table[[categories.index(w) for w in wanted if w in categories]] = True
        return table[labels.cat.codes.to_numpy()]
    return labels.isin(list(wanted)).to_numpy(dtype=bool)


def _win_value(winner: pd.Series, side: str) -> np.ndarray:
    """1 when ``side`` won, 0 when the other side won, ½ without a winner."""
    missing = winner.isna().to_numpy()
    won = _in(winner, [side]) & ~missing
    return np.where(missing, 0.5, won.astype(float))


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
        "win": _win_value(df["winner"], "a"),
        "edge": np.where(a_dealt, -net, net),
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
    win_a = _win_value(df["winner"], "a")
    a_first = df["a_dealt_first"].to_numpy(dtype=bool)
    edge = np.where(a_first, 1.0 - win_a, win_a) - 0.5
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


def _is_run(data) -> bool:
    import os

    return isinstance(data, (str, os.PathLike))


def hand_stats(hands, confidence: float = 0.95, mirrored: bool | None = None) -> pd.DataFrame:
    """One row per cell of hand rows: what happens in a hand, with intervals.

    ``hands`` is a frame of hand rows, or the path of a run directory: then its verified
    ``data/`` files are scanned one at a time (``scan_run``) and never loaded whole, with
    the same estimates to float rounding.

    Columns: the labels (``cell, matchup, a, b, variant``, the swept parameters, and a
    ``with_context`` frame's ``name`` and ``seed``); ``n_hands``, ``n_units`` (pairs when mirrored, else hands);
    ``net_mean`` (points per hand to A, ``net_a``); ``win_rate`` (share of hands A won, no
    winner = ½); ``first_mover_edge`` (points per hand to the non-dealer, who moves first:
    ``net_a`` when B dealt, ``-net_a`` when A dealt); ``draws_mean`` (hand length in cards
    drawn); ``share_<outcome>`` for knock, gin, big_gin, undercut, dead, and split by the
    player who knocked, ``share_<outcome>_a`` and ``share_<outcome>_b`` for knock, gin,
    big_gin and undercut (``share_undercut_a``: A knocked and B undercut it; each pair sums
    to ``share_<outcome>``; rows without a ``knocker`` column have no split); ``gin_rate``
    (gin or big gin, per hand); ``undercut_rate`` (undercuts per ordinary knock, i.e.
    undercut / (knock + undercut)); ``knocker_deadwood`` and ``defender_deadwood`` (mean
    over hands not cancelled, defender's after layoffs).  Each with ``_ci_low``,
    ``_ci_high`` and ``_se`` columns (see the module docstring for the method).
    """
    if _is_run(hands):
        return scan_run(hands, confidence).hands
    return _frame_stats(hands, mirrored, confidence, _hand_values, _hand_estimates)


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


def game_stats(games, confidence: float = 0.95, mirrored: bool | None = None) -> pd.DataFrame:
    """One row per cell of game rows: who wins games and by how much, with intervals.

    ``games`` is a frame of game rows, or the path of a run directory (its ``games/``
    files scanned one at a time, as for ``hand_stats``).

    Columns: the labels; ``n_games``, ``n_units``; ``win_prob`` (A's probability of winning
    the game, a game with no winner = ½); ``margin_mean`` (``margin_a``, A's final score
    minus B's, bonuses included); ``hands_mean`` (hands per game); ``shutout_rate``;
    ``first_mover_edge`` (game-win probability of the player who did *not* deal first —
    the first to move — minus 0.5).  Each with ``_ci_low``, ``_ci_high`` and ``_se``.
    """
    if _is_run(games):
        return scan_run(games, confidence).games
    return _frame_stats(games, mirrored, confidence, _game_values, _game_estimates)


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


# ----------------------------------------------------------------------------- streaming a run

#: the columns ``scan_run`` reads from hand and game files (besides labels)
HAND_SCAN_COLUMNS = ("cell", "pair", "a_dealt", "outcome", "knocker", "winner", "net_a", "draws",
                     "knocker_deadwood", "defender_deadwood")
GAME_SCAN_COLUMNS = ("cell", "pair", "a_dealt_first", "winner", "margin_a", "hands", "shutout")


@dataclass
class RunScan:
    """What ``scan_run`` gathers from a run: ``hands`` and ``games`` (the ``hand_stats``
    and ``game_stats`` frames, None without such rows), ``draws`` (per cell, the number of
    hands ending after 0, 1, 2 ... draws: the whole distribution of hand length, in memory
    bounded by the longest hand) and ``manifest``."""

    hands: pd.DataFrame | None
    games: pd.DataFrame | None
    draws: dict[int, np.ndarray]
    manifest: dict


def _unit_blocks(cells: np.ndarray, pairs: np.ndarray, values: np.ndarray, mirrored: bool):
    """(cell, unit values) per cell of a file's rows: with mirroring the mean of each
    pair's rows (pairs never span files), else the rows themselves."""
    one_cell = len(cells) and cells[0] == cells[-1] and bool((cells == cells[0]).all())
    for cell in (cells[:1] if one_cell else np.unique(cells)):
        mask = None if one_cell else cells == cell
        block = values if mask is None else values[mask]
        if not mirrored:
            yield int(cell), block
            continue
        pair = pairs if mask is None else pairs[mask]
        first, second = pair[0::2], pair[1::2]
        if len(pair) % 2 == 0 and np.array_equal(first, second) and bool((np.diff(first) > 0).all()):
            # rows in deal order, as chunk files hold them: deals 2p and 2p + 1 side by side
            yield int(cell), (block[0::2] + block[1::2]) * 0.5
            continue
        low = pair.min()
        if pair.max() - low < 4 * len(pair):
            index = pair - low
        else:
            index = np.unique(pair, return_inverse=True)[1]
        counts = np.bincount(index)
        keep = counts > 0
        sums = np.column_stack([np.bincount(index, weights=np.ascontiguousarray(block[:, j]), minlength=len(counts))
                                for j in range(block.shape[1])])
        yield int(cell), sums[keep] / counts[keep, None]


def _prefetched(paths: list, read):
    """``read(path)`` of each path in order, reading the next file in a thread while the
    caller works on the current one (pyarrow releases the GIL): two files in memory at most."""
    from concurrent.futures import ThreadPoolExecutor

    if not paths:
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ginsim-read") as pool:
        nxt = pool.submit(read, paths[0])
        for i in range(len(paths)):
            current = nxt.result()
            if i + 1 < len(paths):
                nxt = pool.submit(read, paths[i + 1])
            yield current


def _scan_mode(run_dir, manifest: dict, paths: list, columns: tuple[str, ...], values_of, mirrored: bool,
               draws: dict | None):
    """Moments, labels, rows per cell and "every row has a winner" over ``paths``, chunk
    files of the run in ``run_dir`` whose bytes are proven as they are read
    (``rundir.read_chunk_table``)."""
    import pyarrow.parquet as pq

    moments = None
    labels: dict[int, dict] = {}
    n_rows: dict[int, int] = {}
    all_won = True

    def labels_of(names: list[str]) -> list[str]:
        return [c for c in names if (c in LABELS and c != "cell") or (c[:2] in ("a.", "b.") and len(c) > 2)]

    def read(path):
        from ..run.rundir import read_chunk_table

        table = read_chunk_table(run_dir, path, manifest, lambda names: [*columns, *labels_of(names)])
        return table, labels_of(table.schema.names)

    for table, label_cols in _prefetched(list(paths), read):
        if table.num_rows == 0:
            continue
        df = table.select(list(columns)).to_pandas()
        cells = df["cell"].to_numpy()
        present, first_rows, counts = np.unique(cells, return_index=True, return_counts=True)
        for cell, first, count in zip(present.tolist(), first_rows.tolist(), counts.tolist()):
            if cell not in labels:
                labels[cell] = {"cell": cell, **table.select(label_cols).slice(first, 1).to_pylist()[0]}
            n_rows[cell] = n_rows.get(cell, 0) + count
        all_won = all_won and bool(df["winner"].notna().all())
        named = values_of(df)
        if moments is None:
            moments = Moments(list(named))
        stacked = np.empty((len(named), len(df)))  # one contiguous row per quantity
        for j, column in enumerate(named.values()):
            stacked[j] = column
        values = stacked.T
        del named
        for cell, block in _unit_blocks(cells, df["pair"].to_numpy(), values, mirrored):
            moments.add(cell, block)
        if draws is not None:
            d = df["draws"].to_numpy()
            for cell in present:
                counts = np.bincount(d if len(present) == 1 else d[cells == cell])
                have = draws.get(int(cell), np.zeros(0, np.int64))
                size = max(len(have), len(counts))
                draws[int(cell)] = np.pad(have, (0, size - len(have))) + np.pad(counts, (0, size - len(counts)))
        del table, df, values
    if moments is None:
        return None
    order = sorted(labels)
    frame = pd.DataFrame([labels[c] for c in order])
    for key in sweep_columns(frame):
        frame[key] = frame[key].astype("float64")
    front = [c for c in LABELS if c in frame.columns]
    frame = frame[front + [c for c in frame.columns if c not in front]].set_index("cell", drop=False)
    rows = pd.Series(n_rows, dtype=np.int64).reindex(order)
    return moments, frame, rows, all_won


def scan_run(run_dir, confidence: float = 0.95, files: dict | None = None,
             allow_missing: bool = False, manifest: dict | None = None) -> RunScan:
    """Per-cell statistics of a run directory, streamed file by file.

    Reads only the verified chunk files (``files``: mode → paths as ``rundir.verify_run``
    gives them, with the ``manifest`` they were verified against; by default the run is
    verified here and refused when damaged, or when chunks are missing unless
    ``allow_missing``), only the columns the statistics need,
    one file at a time (the next one read ahead in a thread).  Each file's rows are reduced
    to units (pair means: mirrored pairs never span chunk files) and merged into per-cell
    moments (``Moments``), so memory grows with the number of cells and the size of one
    chunk, never with the number of rows; the estimates (``hand_stats``, ``game_stats``)
    equal those of the rows loaded whole, to float rounding."""
    from ..run.rundir import readable_run, run_path

    run_dir = run_path(run_dir)
    if files is None or manifest is None:  # else the caller verified the run
        manifest, verification = readable_run(run_dir, allow_missing=allow_missing)
        files = verification.good if files is None else files
    mirrored = bool(manifest["experiment"].get("mirrored", True))
    draws: dict[int, np.ndarray] = {}
    hands = games = None
    scanned = _scan_mode(run_dir, manifest, files.get("deals", []), HAND_SCAN_COLUMNS, _hand_value_columns,
                         mirrored, draws)
    if scanned is not None:
        hands = _hand_estimates(*scanned[:3], not mirrored, scanned[3], confidence)
    scanned = _scan_mode(run_dir, manifest, files.get("games", []), GAME_SCAN_COLUMNS, _game_value_columns,
                         mirrored, None)
    if scanned is not None:
        games = _game_estimates(*scanned[:3], not mirrored, scanned[3], confidence)
    return RunScan(hands, games, draws, manifest)


def histogram_percentiles(counts: np.ndarray, q) -> np.ndarray:
    """Percentiles ``q`` (0-100) of the values 0, 1, 2 ... counted ``counts`` times, exactly
    as ``numpy.percentile`` (linear interpolation) gives them on the values themselves.

    >>> histogram_percentiles(np.array([1, 0, 3]), [0, 50, 100]).tolist()
    [0.0, 2.0, 2.0]
    """
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.full(len(np.atleast_1d(q)), np.nan)
    cum = np.cumsum(counts)
    h = (total - 1) * np.asarray(q, dtype=float) / 100.0
    lo, hi = np.floor(h).astype(np.int64), np.ceil(h).astype(np.int64)
    x_lo = np.searchsorted(cum, lo, side="right").astype(float)
    x_hi = np.searchsorted(cum, hi, side="right").astype(float)
    return x_lo + (h - lo) * (x_hi - x_lo)


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
    """Verdict per row on who the game favours, from an edge and its interval, one row at
    a time (no multiplicity adjustment: the report's words come from
    ``tables.compare_cells``, which adjusts a family of rows together).

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


# ----------------------------------------------------------------------------- many comparisons

from .multiplicity import ALPHA, MULTIPLICITY_METHODS, MULTIPLICITY_TEXT  # noqa: E402, F401  (re-exported)


def _finite_pvalues(pvalues) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(pvalues, dtype=float)
    ok = ~np.isnan(p)
    if ((p[ok] < 0) | (p[ok] > 1)).any():
        raise ValueError("p-values must lie in [0, 1] (NaN for a comparison without one)")
    return p, ok


def _stepwise(pvalues, step: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``step`` applied to the finite p-values in increasing order, capped at 1, put back in
    the given order; NaN stays NaN."""
    p, ok = _finite_pvalues(pvalues)
    out = np.full(p.shape, np.nan)
    values = p[ok]
    if len(values):
        order = np.argsort(values, kind="stable")
        adjusted = np.empty(len(values))
        adjusted[order] = np.minimum(step(values[order]), 1.0)
        out[ok] = adjusted
    return out


def holm_adjust(pvalues) -> np.ndarray:
    """Holm-adjusted p-values (Holm 1979), same shape as ``pvalues``; NaN stays NaN and does
    not count towards the family size.

    With the m finite p-values in increasing order p(1) <= ... <= p(m), the adjusted value
    of p(i) is ``max over j <= i of min(1, (m - j + 1) * p(j))``.  Rejecting every
    comparison whose adjusted p-value is at most alpha keeps the probability of any false
    rejection (the family-wise error rate) at most alpha, whatever the dependence between
    the tests.

    >>> holm_adjust([0.01, 0.04, 0.03, np.nan]).round(4).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    return _stepwise(pvalues, lambda s: np.maximum.accumulate((len(s) - np.arange(len(s))) * s))


def benjamini_hochberg_adjust(pvalues) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (q-values; Benjamini and Hochberg 1995), same
    shape as ``pvalues``; NaN stays NaN and does not count towards the family size.

    With the m finite p-values in increasing order, the adjusted value of p(i) is
    ``min over j >= i of min(1, m * p(j) / j)``.  Rejecting those at most alpha keeps the
    expected share of false rejections among the rejections (the false discovery rate) at
    most alpha for independent or positively dependent tests.

    >>> benjamini_hochberg_adjust([0.01, 0.04, 0.03, np.nan]).round(4).tolist()
    [0.03, 0.04, 0.04, nan]
    """
    return _stepwise(pvalues, lambda s: np.minimum.accumulate((s * len(s) / np.arange(1, len(s) + 1))[::-1])[::-1])


def adjust_pvalues(pvalues, method: str = "holm") -> np.ndarray:
    """``holm_adjust``, ``benjamini_hochberg_adjust`` (``"bh"``) or the p-values as they are
    (``"none"``)."""
    if method == "holm":
        return holm_adjust(pvalues)
    if method == "bh":
        return benjamini_hochberg_adjust(pvalues)
    if method == "none":
        p, _ = _finite_pvalues(pvalues)
        return p.astype(float).copy()
    raise ValueError(f"multiplicity must be one of {', '.join(MULTIPLICITY_METHODS)}; got {method!r}")


def t_pvalues(estimate, se, dof, null: float = 0.0, n_units=None) -> np.ndarray:
    """Two-sided p-values of ``estimate = null`` from the t statistic ``(estimate - null) / se``
    with ``dof`` degrees of freedom (``np.inf``: normal) — the test whose 95% acceptance
    region is the report's t (or normal) interval, so p < 0.05 exactly when that interval
    leaves out ``null``.

    Without spread (se 0) the estimate is exact for its units: p is 1 at the null and 0
    elsewhere, except for a proportion that is 0 or 1 in all ``n_units`` units (the
    intervals' Wilson case), which gets the exact binomial test of 0 (or n) successes in
    n units against ``null``.  NaN where there is no standard error."""
    est, se = np.asarray(estimate, float), np.asarray(se, float)
    dof = np.broadcast_to(np.asarray(dof, float), est.shape)
    units = np.broadcast_to(np.asarray(np.nan if n_units is None else n_units, float), est.shape)
    out = np.full(est.shape, np.nan)
    spread = np.isfinite(se) & (se > 0) & np.isfinite(est)
    stat = np.abs(est[spread] - null) / se[spread]
    out[spread] = np.where(np.isinf(dof[spread]), 2 * st.norm.sf(stat),
                           2 * st.t.sf(stat, np.where(np.isinf(dof[spread]), 1, dof[spread])))
    for i in np.flatnonzero(np.isfinite(se) & (se == 0) & np.isfinite(est)):
        value, n = float(est.flat[i]), units.flat[i]
        if value == null:
            out.flat[i] = 1.0
        elif 0 < null < 1 and value in (0.0, 1.0) and np.isfinite(n) and n >= 1:
            out.flat[i] = st.binomtest(0 if value == 0.0 else int(n), int(n), null).pvalue
        else:
            out.flat[i] = 0.0
    return out


def pooled_means(estimate, se, n_units, confidence: float = 0.95) -> tuple[float, float, float, float, float, int]:
    """Several independent cells estimating one quantity (e.g. the same rules listed twice)
    as one: ``(mean, se, low, high, dof, units)``.

    The pooled mean weighs each cell by its units, ``sum(n_i * x_i) / N`` with
    ``N = sum(n_i)``; its standard error is ``sqrt(sum((n_i * se_i) ** 2)) / N`` and the
    t interval has ``sum(n_i - 1)`` degrees of freedom.  One cell is returned as it is."""
    x, s, n = (np.asarray(v, float) for v in (estimate, se, n_units))
    total = float(n.sum())
    mean = float((n * x).sum() / total)
    pooled_se = float(np.sqrt(((n * s) ** 2).sum()) / total)
    dof = float((n - 1).sum())
    if pooled_se > 0 and dof > 0:
        low, high = st.t.interval(confidence, dof, loc=mean, scale=pooled_se)
    else:
        low = high = mean if pooled_se == 0 else np.nan
    return mean, pooled_se, float(low), float(high), dof, int(total)


# ----------------------------------------------------------------------------- notebook frames

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
