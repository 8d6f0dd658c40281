"""Intervals over independent units: the labels and units of a run's rows, and the estimates of means, proportions and ratios.

A mirrored run's two deals of a pair are one unit (``_units``); ``Moments`` holds each cell's
sums over its units, from which ``_mean_estimates`` gives Student t intervals (Wilson where a
proportion's units are single rows or all equal) and ``_ratio_estimates`` delta-method ones.
``mean_interval``, ``t_interval`` and ``wilson_interval`` are the same intervals for callers.
"""

from __future__ import annotations

from collections.abc import Sequence

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
