"""Comparing cells: percentiles from histograms, rankings, matchup matrices, balance.

``ranking`` combines independent cells (the mean of k estimates, standard error
``sqrt(sum se_i**2) / k``, a normal interval); ``matrix`` and ``matrix_se`` lay a round robin
out by player; ``balanced`` says which cells' first-mover edge is within its interval of 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats as st

from .intervals import ci_columns, wilson_interval


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
