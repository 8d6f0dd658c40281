"""The robust-player candidates' strength-vs-compute curve (``ginsim bench --strength``)."""

from __future__ import annotations

import json

import pytest

from simulator.cli import main
from simulator.run.seeds import is_development_seed
from simulator.studies import strength_curve as sc


def test_the_bar_names_the_field_families_marjj_family_and_plays_on_a_development_seed():
    members = sc.family_members()
    assert members[:6] == ["marjj:knock_turns=1", "marjj:knock_turns=2", "marjj", "marjj:knock_turns=4",
                           "marjj:knock_turns=5", "marjj:knock_turns=6"]
    assert len(members) == 7 and is_development_seed(sc.SEED)
    assert sc.candidate_spec("windows", 64).startswith("mc:rollout=5,") and "samples=64" in sc.candidate_spec(
        "windows", 64)
    with pytest.raises(ValueError, match="candidate must be one of challenger, windows, got 'best'"):
        sc.candidate_spec("best", 16)
    with pytest.raises(ValueError, match="games must be an even number of mirrored games"):
        sc.curve(games=3)


def test_the_curve_states_each_cell_the_family_minimum_and_the_bar(capsys):
    rows = sc.curve(candidates=("windows",), samples=(2, 4), games=4,
                    opponents=["marjj:knock_turns=6", "marjj", "simple"], jobs=1)
    assert [(r["candidate"], r["samples"]) for r in rows] == [("windows", 2), ("windows", 4)]
    for r in rows:
        assert list(r["versus"]) == ["marjj:knock_turns=6", "marjj", "simple"]
        assert r["cpu_s_per_game"] > 0 and r["games"] == 4 and r["seed"] == sc.SEED
        family = r["family_minimum"]
        shares = {o: v["share"] for o, v in r["versus"].items()}
        assert family["members"] == 2 and family["share"] == min(shares["marjj"], shares["marjj:knock_turns=6"])
        assert family["low"] <= family["share"] <= family["high"]
        assert all(v["low"] <= v["share"] <= v["high"] for v in r["versus"].values())
        assert r["clears_bar"] == (family["share"] >= sc.BAR_FAMILY and shares["simple"] >= sc.BAR_SIMPLE)
    sc.print_curve(rows)
    out = capsys.readouterr().out
    assert "MARJJ-family minimum" in out and "windows" in out and "simple" in out


def test_bench_strength_is_one_benchmark_of_its_own(monkeypatch, capsys):
    monkeypatch.setattr(sc, "SAMPLES", {True: (2,), False: (2,)})
    monkeypatch.setattr(sc, "GAMES", {True: 2, False: 2})
    monkeypatch.setattr(sc, "OTHERS", ())
    monkeypatch.setattr(sc, "CANDIDATES", {"challenger": sc.CANDIDATES["challenger"]})
    monkeypatch.setattr(sc, "family_members", lambda: ["marjj"])
    assert main(["bench", "--strength", "--quick", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["candidate"], r["samples"], list(r["versus"])) for r in rows] == [("challenger", 2, ["marjj"])]
    assert main(["bench", "--variance", "--strength"]) == 2
    assert "--variance and --strength are separate benchmarks; give one" in capsys.readouterr().err
