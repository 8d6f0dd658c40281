"""p-values of a family of comparisons and their adjustment (Holm, Benjamini-Hochberg).

``t_pvalues`` tests estimates against a null; ``holm_adjust`` and
``benjamini_hochberg_adjust`` control the family (``adjust_pvalues`` by name, the methods and
words in ``simulator.analysis.multiplicity``); ``pooled_means`` pools independent estimates.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import stats as st


from ..multiplicity import MULTIPLICITY_METHODS


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
