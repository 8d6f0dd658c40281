"""Control variates played on the engine (``simulator.studies.controls``): unbiased where the
answer is known, a large saving where the players play alike, and the benchmark's table."""

from __future__ import annotations

import json

import pytest

from simulator.cli import main
from simulator.studies import controls
from simulator.studies.decision_values import pair_values

K11 = "knock_policy:early=10,turn_a=11,late=0,turn_b=2"
K12 = "knock_policy:early=10,turn_a=12,late=0,turn_b=2"


def test_a_matchup_worth_exactly_zero_is_estimated_zero_by_both():
    """K11 against itself is worth 0 by symmetry; K12's self-play on the same pairs is a
    control with expectation 0.  Both intervals cover 0, the reduced one narrower."""
    x = pair_values(K11, K11, "classic", "hand", 4_000, 31)
    reduced, cpu = controls.reduce_pairs(x, K11, K12, "classic", "hand", 31, "self_b")
    plain = controls.est.plain(x)
    assert plain.low < 0 < plain.high and reduced.low < 0 < reduced.high
    assert reduced.sd < plain.sd and cpu > 0
    assert reduced.method == f"control variates: {K12} against itself"


def test_neighbouring_thresholds_need_many_times_fewer_pairs():
    m = controls.measure(K11, K12, "classic", "hand", 2_000, 37)
    assert m.deals_ratio > 10 and m.cpu_ratio > 3
    assert abs(m.reduced.value - m.plain.value) < 2 * m.plain.se


def test_bad_control_is_refused():
    with pytest.raises(ValueError, match="control must be one of self, self_a, self_b"):
        controls.measure(K11, K12, "classic", "hand", 100, 1, control="mirror")
    with pytest.raises(ValueError, match="at least 20 mirrored pairs"):
        controls.reduce_pairs([0.0] * 5, K11, K12, "classic", "hand", 1)


def test_bench_variance_prints_its_table(monkeypatch, capsys):
    monkeypatch.setattr(controls, "VARIANCE_MATCHUPS",
                        (("equilibrium_class", K11, K12, "classic", "hand", "self", 400, 200),))
    main(["bench", "--variance", "--quick", "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert [(r["study"], r["pairs"], r["control"]) for r in rows] == [("equilibrium_class", 200, "self")]
    assert rows[0]["reduced"]["sd"] < rows[0]["plain"]["sd"]
    main(["bench", "--variance", "--quick"])
    out = capsys.readouterr().out
    assert "equilibrium_class" in out and "fewer pairs" in out
