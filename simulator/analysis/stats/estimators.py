"""Estimators of a matchup's value from independent units, plain and with control variates.

A **unit** is what is independent: a mirrored pair of deals (its two seatings averaged), a
pair of games, or a single deal when the run is not mirrored.  Every estimator here takes the
units' values ``x`` (one number each) and returns an ``Estimate``: the value, its standard
error, its t interval, the number of units and the standard deviation per unit, which is
what decides how many units an interval of a given width costs.

* ``plain``: the mean of the units, Student t interval (what every figure used before
  variance reduction; always computed beside a reduced one).
* ``with_controls``: **control variates**.  A control is a quantity ``c`` of the same unit whose
  expectation ``mu`` is known exactly (a player's self-play on the same deals has expectation
  0, because the two seatings of a mirrored pair are exchangeable).  The estimate is
  ``mean(x - beta . (c - mu))``: unbiased for any fixed ``beta``, and ``beta`` near the
  regression slope of ``x`` on ``c`` removes the part of ``x``'s variance the controls explain.
  ``beta`` is **cross-fitted**: the units are split into ``folds`` contiguous blocks and
  each block's residuals use the slope fitted on the other blocks, so no unit's own value
  enters its coefficient and the estimate is exactly unbiased whenever units are independent
  (the plain regression estimator, slope fitted on the same units, has a bias of order
  1/n).  The standard error is the residuals' sample standard deviation over sqrt(n).
* ``cv_from_moments``: the same-data regression estimator from block sums of ``x``, ``c`` and
  their products, for studies that keep only moments and resample blocks (the class game's
  bootstrap); its bias is of order 1/n (units per block times blocks) and vanishes.
  ``plain_from_moments`` is the plain estimate from the same sums, the control left out.

``deals_ratio(plain, reduced)`` is how many times fewer units the reduced estimate needs for
the same interval: the ratio of the variances per unit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .intervals import t_interval

#: the confidence of every interval unless a caller says otherwise
LEVEL = 0.95
#: blocks the units are split into for the cross-fitted coefficients
FOLDS = 10
#: a reduced spread per unit below this share of the plain one is none (``deals_ratio``)
EXACT = 1e-9


@dataclass(frozen=True)
class Estimate:
    """An estimate of a mean: ``value`` with standard error ``se`` and the ``level`` t interval
    [``low``, ``high``] over ``units`` independent units, whose standard deviation per unit is
    ``sd``.  ``method`` says how it was made ("plain", or "control variates: NAMES")."""

    value: float
    se: float
    low: float
    high: float
    units: int
    sd: float
    method: str
    level: float = LEVEL

    def as_dict(self) -> dict:
        """Its fields by name (for JSON records and tables)."""
        return {"value": self.value, "se": self.se, "low": self.low, "high": self.high, "units": self.units,
                "sd": self.sd, "method": self.method, "level": self.level}


def _estimate(mean: float, sd: float, n: int, method: str, level: float) -> Estimate:
    """An estimate of ``n`` units with this mean and standard deviation: its standard error and
    Student t interval are ``intervals.t_interval``'s, the one interval ginsim prints."""
    se, low, high = t_interval(mean, sd, n, level)
    return Estimate(float(mean), float(se), float(low), float(high), int(n), float(sd), method, level)


def _values(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"unit values must be one number per unit (a 1-D array), got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("unit values must be finite numbers")
    return x


def plain(x, level: float = LEVEL) -> Estimate:
    """The mean of the unit values ``x`` and its t interval."""
    x = _values(x)
    sd = float(x.std(ddof=1)) if len(x) > 1 else float("nan")
    return _estimate(float(x.mean()) if len(x) else float("nan"), sd, len(x), "plain", level)


def _controls(controls, n: int, means) -> tuple[np.ndarray, list[str]]:
    """The controls as an (n, k) array centred on their known means, and their names."""
    if isinstance(controls, dict):
        names, columns = list(controls), list(controls.values())
    else:
        columns = [controls] if np.ndim(controls) == 1 else list(np.asarray(controls, dtype=np.float64).T)
        names = [f"c{i}" for i in range(len(columns))]
    c = np.column_stack([_values(col) for col in columns]) if columns else np.zeros((n, 0))
    if c.shape[0] != n:
        raise ValueError(f"each control needs one value per unit: {c.shape[0]} values for {n} units")
    mu = np.zeros(c.shape[1]) if means is None else np.broadcast_to(np.asarray(means, dtype=np.float64),
                                                                     (c.shape[1],))
    return c - mu, names


def _slope(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The least-squares slope of ``x`` on the columns of ``c`` (intercept fitted); a control
    without variation gets slope 0."""
    xc = x - x.mean()
    cc = c - c.mean(axis=0)
    beta = np.zeros(c.shape[1])
    live = cc.std(axis=0) > 0
    if live.any():
        beta[live] = np.linalg.lstsq(cc[:, live], xc, rcond=None)[0]
    return beta


def with_controls(x, controls, means=None, folds: int = FOLDS, level: float = LEVEL) -> Estimate:
    """The control-variate estimate of the mean of ``x``: ``controls`` is one array of one value
    per unit, a 2-D array (units, k), or a dict name -> array; ``means`` their known
    expectations (default 0).  Coefficients cross-fitted over ``folds`` contiguous blocks (see
    the module's doc); fewer than ``2 * folds`` units are refused."""
    x = _values(x)
    c, names = _controls(controls, len(x), means)
    if folds < 2:
        raise ValueError(f"folds must be at least 2, got {folds}")
    if len(x) < 2 * folds:
        raise ValueError(f"control variates need at least {2 * folds} units ({folds} folds), got {len(x)}")
    edges = np.linspace(0, len(x), folds + 1).astype(np.int64)
    residual = np.empty_like(x)
    for lo, hi in zip(edges[:-1], edges[1:]):
        rest = np.r_[0:lo, hi:len(x)]
        beta = _slope(x[rest], c[rest])
        residual[lo:hi] = x[lo:hi] - c[lo:hi] @ beta
    return _estimate(float(residual.mean()), float(residual.std(ddof=1)), len(x),
                     "control variates: " + ", ".join(names), level)


def deals_ratio(reference: Estimate, reduced: Estimate) -> float:
    """How many times fewer units ``reduced`` needs than ``reference`` for an interval of the
    same width: the ratio of their variances per unit.  Infinite when only the reduced one has
    no spread (a spread below ``EXACT`` of the reference's is float rounding of an exact
    cancellation, as when a control is the matchup itself under another name); 1 when neither
    has any, as when one player never wins a game."""
    if reduced.sd > EXACT * reference.sd:
        return float((reference.sd / reduced.sd) ** 2)
    return float("inf") if reference.sd > 0 else 1.0


def cv_from_moments(sums: dict[str, np.ndarray], weights: np.ndarray, per: int,
                    control: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The same-data control-variate estimates of several rows sharing one control, and their
    standard errors, from block sums: ``sums`` holds per block the control's ``v`` and ``vv``
    (sum of c and of c squared) and per row and block ``x``, ``xx``, ``xv`` (shape (rows,
    blocks)); ``per`` units per block; ``weights`` (shape (..., blocks)) weigh the blocks (all
    ones for the sample itself, a bootstrap replicate's counts otherwise).  The control's
    expectation is 0: each row's estimate is ``mean(x) - beta mean(v)`` with beta the regression
    slope of x on v in the (re)sample (``control`` False: beta 0, the plain mean and its
    standard error, ``plain_from_moments``).  Shapes out: (..., rows)."""
    w = np.asarray(weights, dtype=float)
    n = w.sum(axis=-1, keepdims=True) * per  # units in the (re)sample
    v = (w @ sums["v"])[..., None] / n
    vv = (w @ sums["vv"])[..., None] / n
    x = (w @ sums["x"].T) / n
    xx = (w @ sums["xx"].T) / n
    xv = (w @ sums["xv"].T) / n
    var_v = vv - v ** 2
    cov = xv - x * v
    beta = np.where(var_v > 0, cov / np.where(var_v > 0, var_v, 1.0), 0.0) if control else np.zeros_like(cov)
    estimate = x - beta * v
    var_y = np.maximum(xx - x ** 2 - 2 * beta * cov + beta ** 2 * var_v, 0.0)
    return estimate, np.sqrt(var_y / n)


def plain_from_moments(sums: dict[str, np.ndarray], weights: np.ndarray, per: int) -> tuple[np.ndarray, np.ndarray]:
    """The plain estimates (each row's mean of x) and their standard errors from the block sums
    ``cv_from_moments`` reads, the control left out: the figure beside every controlled one."""
    return cv_from_moments(sums, weights, per, control=False)
