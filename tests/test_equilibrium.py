"""``ginsim exploit`` and ``ginsim equilibrium`` on the engine: a best response with an edge
whose interval excludes zero, a double oracle that resumes without replaying, and one-line
errors for bad specs."""

import json
from pathlib import Path

import pytest

from simulator.cli import main
from test_cli_json import validate
from simulator.studies.equilibrium import EquilibriumError, parse_equilibrium

ROOT = Path(__file__).resolve().parent.parent

#: a small knock_policy family: the early threshold and how long it lasts (about 5 s a tuning)
SMALL_FAMILY = """
strategy = "knock_policy"
trials = 6
polish = 0
fixed_threshold = false
baselines = {}
[params]
early = { low = 0, high = 10 }
turn_a = { low = 0, high = 8 }
[fixed]
late = 0
turn_b = 2
[budget]
deals = 12_000
min_deals = 4_000
fresh_deals = 40_000
"""


def test_exploit_finds_an_edge_over_simple_under_tournament(tmp_path, capsys):
    family = tmp_path / "family.toml"
    family.write_text(SMALL_FAMILY, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["exploit", "simple", "--family", str(family), "--rules", "tournament", "--out", str(out),
                 "--quiet", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc, "exploit")
    edge = doc["edge"]
    assert edge["estimate"] > 0 and edge["ci_low"] > 0  # the interval excludes zero
    assert doc["best_response"].startswith("knock_policy:")
    assert (out / "best.toml").is_file()
    # the same command again refuses the directory, and --resume only rewrites the outputs
    assert main(["exploit", "simple", "--family", str(family), "--rules", "tournament", "--out", str(out),
                 "--quiet"]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(["exploit", "simple", "--family", str(family), "--rules", "tournament", "--out", str(out),
                 "--quiet", "--json", "--resume"]) == 0
    assert json.loads(capsys.readouterr().out)["edge"] == edge


def _spec_text(max_iterations: int) -> str:
    family = "\n".join(("[family." + line[1:]) if line.startswith("[") else line for line in SMALL_FAMILY.splitlines())
    return f"""
name = "eq_small"
rules = "tournament"
seed = 4242
start = ["simple"]
max_iterations = {max_iterations}
matrix_deals = 20_000
compare_deals = 20_000
[compare]
"knock as soon as legal" = "simple"
[family]
{family}
"""


def test_equilibrium_runs_resumes_and_reports(tmp_path, capsys):
    spec = tmp_path / "eq.toml"
    spec.write_text(_spec_text(1), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    validate(document, "equilibrium")
    first = document["results"][0]
    assert first["iterations"] == 1 and not first["converged"]
    # the best response to simple beats it clearly, so it joins the set on a resume with more iterations
    spec.write_text(_spec_text(2), encoding="utf-8")
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet", "--json"]) == 2  # needs --resume
    capsys.readouterr()
    summary = tmp_path / "summary.md"
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet", "--json", "--resume",
                 "--summary", str(summary)]) == 0
    second = json.loads(capsys.readouterr().out)["results"][0]
    assert "| eq_small | `tournament` |" in summary.read_text()
    assert second["iterations"] == 2
    state = json.loads((out / "equilibrium.json").read_text())
    assert set(state["entries"]) == {"0,1"}  # one entry of the 2-policy matrix, played once
    assert sum(m["weight"] for m in second["mixture"]) == pytest.approx(1.0)
    assert "simple" not in [m["policy"] for m in second["mixture"]]  # simple is beaten: no weight
    assert second["compare"][0]["value"]["estimate"] < 0
    assert (out / "report.md").read_text().count("## ") == 4
    # another spec in the same directory is refused
    spec.write_text(_spec_text(2).replace("seed = 4242", "seed = 4243"), encoding="utf-8")
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet", "--resume"]) == 2
    assert "different spec" in capsys.readouterr().err


BASE = {"name": "e", "rules": "hoyle", "seed": 5}


@pytest.mark.parametrize("change, key", [
    ({"bogus": 1}, "bogus: unknown key"),
    ({"name": "a b"}, "name: must be"),
    ({"objective": "points"}, "objective: must be one of"),
    ({"rules": "nope"}, "rules:"),
    ({"start": []}, "start: must be a non-empty list"),
    ({"start": ["simple", "simple"]}, "start[1]: 'simple' is already in the set"),
    ({"start": ["nobody"]}, "start[0]:"),
    ({"max_iterations": 0}, "max_iterations: must be an integer from 1"),
    ({"tolerance": -1}, "tolerance: must be a number of at least 0"),
    ({"matrix_deals": 3}, "matrix_deals: must be an even integer"),
    ({"matrix_games": 100}, "matrix_games: objective net_per_hand plays deals"),
    ({"compare": {"x": 3}}, "compare.x: must be a strategy spec"),
    ({"family": {"opponents": []}}, "family: opponents: unknown key; keys: baselines, budget"),
    ({"family": {"strategy": "knock_policy", "trials": 2, "params": {"nope": {"low": 0, "high": 1}},
                 "budget": {"deals": 100}}}, "family: params.nope: strategy 'knock_policy' has no parameter"),
])
def test_bad_specs_get_one_line_errors(change, key):
    with pytest.raises(EquilibriumError) as info:
        parse_equilibrium({**BASE, **change}, "eq.toml")
    text = str(info.value)
    assert "\n" not in text and text.startswith("eq.toml: ") and key in text, text


def test_the_committed_specs_read_as_the_runs_recorded_them():
    """The spec's keys moved to the config layer (``SCHEMA``): every committed spec reads as
    the spec its committed run recorded, so those runs still resume and reproduce."""
    from simulator.studies.equilibrium import load_equilibrium, out_dir

    specs = sorted((ROOT / "experiments" / "equilibrium_knock").glob("*.toml"))
    assert specs
    for path in specs:
        spec = load_equilibrium(path)
        state = json.loads((ROOT / out_dir(spec) / "equilibrium.json").read_text(encoding="utf-8"))
        assert spec.identity() == state["spec"], path


def test_a_run_interrupted_in_its_first_best_response_resumes(tmp_path, monkeypatch, capsys):
    import simulator.studies.equilibrium as E

    spec = tmp_path / "eq.toml"
    spec.write_text(_spec_text(1), encoding="utf-8")
    out = tmp_path / "out"
    real = E.best_response

    def interrupted(tspec, where, *args, **kwargs):
        (where / "partial").mkdir(parents=True)  # as a tuning killed midway leaves its directory
        raise KeyboardInterrupt

    monkeypatch.setattr(E, "best_response", interrupted)
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet"]) == 130
    assert json.loads((out / "equilibrium.json").read_text())["responses"] == {}
    monkeypatch.setattr(E, "best_response", lambda tspec, where, *a, **k: real(tspec, tmp_path / "br", *a, **k))
    capsys.readouterr()
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet", "--resume", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["iterations"] == 1


def test_the_default_family_makes_a_tuning_spec_for_hands_and_games():
    from simulator.studies.exploit import default_family, response_spec

    for objective, unit in (("net_per_hand", "deals"), ("game_win", "games")):
        for limit in (5, 10, 15):
            spec = response_spec(default_family(limit, objective), "x", "hoyle", objective, 7,
                                 [("simple", 0.25), ("gin_hunter", 0.75)], "family")
            assert spec.budget.unit == unit and spec.budget.total % 4 == 0  # whole pairs against both
            assert {p.name: p.high for p in spec.params}["early"] == limit
            assert list(spec.weights) == [0.25, 0.75]
