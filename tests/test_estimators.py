"""The estimator layer (``simulator.analysis.stats.estimators``): the plain mean and the
cross-fitted control-variate estimate, checked on data whose answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.analysis.stats import estimators as est
from simulator.core.rng import numpy_generator


def test_plain_is_the_mean_with_its_t_interval():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    e = est.plain(x)
    assert e.value == 2.5 and e.units == 4 and e.method == "plain"
    assert e.sd == pytest.approx(np.std(x, ddof=1))
    assert e.se == pytest.approx(e.sd / 2)
    assert e.low == pytest.approx(2.5 - 3.182446305284263 * e.se) and e.high == pytest.approx(2.5 + 3.182446305284263 * e.se)


def test_a_control_that_explains_the_noise_removes_it_and_keeps_the_mean():
    rng = numpy_generator(20261205, 1)
    c = rng.normal(size=4000)
    x = 1.5 + 4.0 * c + rng.normal(scale=0.5, size=4000)
    plain, reduced = est.plain(x), est.with_controls(x, {"c": c})
    assert reduced.method == "control variates: c"
    assert reduced.low < 1.5 < reduced.high
    assert est.deals_ratio(plain, reduced) > 40  # variance 16.25 per unit against 0.25
    assert reduced.sd == pytest.approx(0.5, rel=0.05)


def test_a_useless_control_costs_nothing_to_speak_of():
    rng = numpy_generator(20261205, 2)
    x, c = rng.normal(size=2000), rng.normal(size=2000)
    assert 0.97 < est.deals_ratio(est.plain(x), est.with_controls(x, c)) < 1.01


def test_cross_fitted_estimates_are_unbiased_and_cover_where_the_same_data_slope_is_biased():
    """x = c**2 with c ~ N(0, 1) on 40 units: mean 1, control c (mean 0).  The estimator with
    the slope fitted on the same units is biased at this size; the cross-fitted one is not.
    Its 95% intervals cover the mean as often as the plain mean's do on these skewed values
    (about 90% at 40 units), and 95% of the time when the noise is normal."""
    rng = numpy_generator(20261205, 3)
    reps, n = 6000, 40
    c = rng.normal(size=(reps, n))
    x = c ** 2 + c
    cross = np.array([est.with_controls(x[r], c[r], folds=4).value for r in range(reps)])
    same = np.array([x[r].mean() - np.polyfit(c[r], x[r], 1)[0] * c[r].mean() for r in range(reps)])
    se = cross.std(ddof=1) / np.sqrt(reps)
    assert abs(cross.mean() - 1.0) < 3 * se
    assert abs(same.mean() - 1.0) > 3 * same.std(ddof=1) / np.sqrt(reps)

    def coverage(values, estimate):
        return np.mean([(lambda e: e.low <= 1.0 <= e.high)(estimate(values[r], c[r])) for r in range(2000)])

    plain = coverage(x, lambda values, _: est.plain(values))
    assert abs(coverage(x, lambda values, control: est.with_controls(values, control, folds=4)) - plain) < 0.02
    normal = 1.0 + 2.0 * c + rng.normal(size=(reps, n))
    assert 0.93 <= coverage(normal, lambda values, control: est.with_controls(values, control, folds=4)) <= 0.965


def test_known_means_are_subtracted():
    rng = numpy_generator(20261205, 4)
    c = 3.0 + rng.normal(size=1000)
    x = 2.0 * c + rng.normal(scale=0.1, size=1000)  # mean 6
    e = est.with_controls(x, c, means=3.0)
    assert e.low < 6.0 < e.high and e.high - e.low < 0.05


def test_bad_input_is_refused_in_one_line():
    with pytest.raises(ValueError, match="one value per unit"):
        est.with_controls(np.zeros(40), np.zeros(39))
    with pytest.raises(ValueError, match="at least 20 units"):
        est.with_controls(np.zeros(10), np.zeros(10))
    with pytest.raises(ValueError, match="finite"):
        est.plain([1.0, float("nan")])
    with pytest.raises(ValueError, match="folds must be at least 2"):
        est.with_controls(np.zeros(40), np.zeros(40), folds=1)


def test_moments_form_is_the_same_data_regression_estimate():
    """``cv_from_moments`` from block sums equals the regression estimate on the units."""
    rng = numpy_generator(20261205, 5)
    blocks, per = 8, 25
    v = rng.normal(size=blocks * per)
    x = np.vstack([0.3 + 2 * v + rng.normal(size=v.size), -1 + 0.5 * v + rng.normal(size=v.size)])
    sums = {"v": v.reshape(blocks, per).sum(1), "vv": (v ** 2).reshape(blocks, per).sum(1),
            "x": x.reshape(2, blocks, per).sum(2), "xx": (x ** 2).reshape(2, blocks, per).sum(2),
            "xv": (x * v).reshape(2, blocks, per).sum(2)}
    estimate, se = est.cv_from_moments(sums, np.ones(blocks), per)
    for row in range(2):
        slope = np.polyfit(v, x[row], 1)[0]
        assert estimate[row] == pytest.approx(x[row].mean() - slope * v.mean())
        assert se[row] == pytest.approx(np.std(x[row] - slope * v) / np.sqrt(v.size))
    plain, plain_se = est.plain_from_moments(sums, np.ones(blocks), per)  # the control left out
    assert plain == pytest.approx(x.mean(axis=1)) and plain_se == pytest.approx(x.std(axis=1) / np.sqrt(v.size))
    assert (plain_se > se).all()


def test_pairs_saved_when_a_side_has_no_spread():
    """Units all alike (a player that never wins a game) need one unit either way; a reduced
    estimate with no spread left needs one unit against the plain one's many."""
    flat, spread = est.plain(np.zeros(20)), est.plain(np.arange(20.0))
    assert est.deals_ratio(flat, flat) == 1.0
    assert est.deals_ratio(spread, flat) == float("inf")
    assert est.deals_ratio(spread, spread) == 1.0
    rounding = est.plain(np.arange(20.0) * 1e-14)  # what is left of an exact cancellation
    assert est.deals_ratio(spread, rounding) == float("inf")
