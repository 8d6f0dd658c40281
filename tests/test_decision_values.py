"""The decision-values study (simulator.studies.decision_values) and its confirmation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simulator.studies import decision_values as dv
from simulator.studies import ledger
from simulator.studies.claims_file import ClaimError, load_claims
from simulator.studies.confirm import open_protocol
from simulator.studies.confirm_pages import render_markdown

SPEC = """
name = "tiny_values"
seed = 20262977
players = ["expert"]
opponents = ["simple"]
donor = "simple"
decisions = ["draw", "knock"]
out = "{out}"
report = "{report}"

[[blocks]]
rules = "tournament"
unit = "hand"
size = {{ expert = 400 }}

[[blocks]]
rules = "hoyle"
unit = "game"
size = {{ expert = 20 }}
"""

CLAIMS = """
[[claims]]
id = "knock_is_worth_points"
margin_from = "study"
statement = "expert's knock is worth points per hand over simple's against simple"
metric = "decision_loss"
unit = "hand"
a = "expert"
b = "expert+knock=simple"
rules = "tournament"
sign = "positive"
"""


def _protocol(folder, claims):
    """The claims registered in a ledger under ``folder``, and the protocol of a confirmation."""
    book = ledger.load_ledger(ledger.ledger_path(folder, "tiny_values"), "tiny_values")
    ledger.register(book, [c.table() for c in load_claims(claims).claims], str(claims))
    return open_protocol("tiny_values", claims, folder)


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path, monkeypatch):
    """Every test works in its own directory: a spec writes only inside the working one."""
    monkeypatch.chdir(tmp_path)


def _study(tmp_path):
    spec = tmp_path / "tiny_values.toml"
    spec.write_text(SPEC.format(out="out", report="report.md"))
    return spec


def test_study_pairs_the_full_player_and_the_hybrid(tmp_path):
    spec = dv.load_spec(_study(tmp_path))
    result = dv.run(spec, log=lambda text: None)
    rows = {(r["rules"], r["unit"], r["decision"]): r for r in result["rows"]}
    assert set(rows) == {(r, u, d) for r, u in (("tournament", "hand"), ("hoyle", "game")) for d in ("draw", "knock")}
    knock = rows[("tournament", "hand", "knock")]
    # the loss is the full player's mean minus the hybrid's, on the same pairs
    assert knock["loss"]["estimate"] == pytest.approx(knock["full"]["estimate"] - knock["swapped"]["estimate"], abs=1e-4)
    assert knock["loss"]["pairs"] == 200 and knock["hybrid"] == "expert+knock=simple"
    assert knock["loss"]["low"] > 0  # knocking as simple does costs expert points (interval excludes 0)
    # the full player's rows are the same in every row of a block: one seed per block
    assert len({r["seed"] for r in result["rows"] if r["rules"] == "tournament"}) == 1
    paths = dv.write_outputs(spec, result, "tiny_values.toml")
    assert json.loads(paths[0].read_text())["rows"][0]["player"] == "expert"
    assert "| knock |" in paths[1].read_text()
    # same spec, same bytes
    again = dv.run(spec, log=lambda text: None)
    assert again["rows"] == result["rows"]

    claims = tmp_path / "tiny_values.claims.toml"
    claims.write_text(CLAIMS)
    assert dv.is_spec(tmp_path / "tiny_values.toml")
    confirmed = dv.confirm(tmp_path / "tiny_values.toml", _protocol(tmp_path, claims), max_deals=2_000)
    entry = confirmed["claims"][0]
    assert entry["status"] == "replicated" and entry["opponent"] == "simple"
    assert entry["cells"][0]["confirmation"] != entry["cells"][0]["study"]
    assert "same mirrored deals" in render_markdown(confirmed)


def test_pair_values_are_per_mirrored_pair():
    v = dv.pair_values("expert", "simple", "tournament", "hand", 40, 20262978)
    assert v.shape == (20,) and np.all(np.isfinite(v))


@pytest.mark.parametrize("change, words", [
    (("seed = 20262977", "seed = 1000001"), ": seed: seed 1000001 is a development seed"),
    (("seed = 20262977", "seed = 20262977\ncolour = 1"), "colour: unknown key; keys: blocks, decisions, donor"),
    (('donor = "simple"\n', ""), "donor: required: one strategy spec"),
    (('rules = "hoyle"\nunit = "game"', 'rules = "tournament"\nunit = "hand"'),
     "blocks[1]: rules 'tournament' with unit 'hand' is given twice"),
    (('decisions = ["draw", "knock"]', 'decisions = ["drw"]'), "decisions: must be a list of distinct decisions among first_upcard"),
    (('unit = "hand"', 'unit = "deal"'), "blocks[0].unit: must be one of hand, game"),
    (("size = { expert = 400 }", "size = { expert = 401 }"), "blocks[0].size: counts must be even"),
    (('players = ["expert"]', 'players = ["expert+draw=simple"]'), "players: 'expert+draw=simple': a numba strategy that is not a hybrid"),
    (('donor = "simple"', 'donor = "nobody"'), "donor: unknown strategy 'nobody'"),
])
def test_bad_specs(tmp_path, change, words):
    path = _study(tmp_path)
    path.write_text(path.read_text().replace(*change))
    with pytest.raises(dv.DecisionValuesError) as err:
        dv.load_spec(path)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_confirm_refuses_a_missing_study(tmp_path):
    claims = tmp_path / "c.toml"
    claims.write_text(CLAIMS)
    with pytest.raises(ClaimError, match="missing; run python -m simulator.studies.decision_values"):
        dv.confirm(_study(tmp_path), _protocol(tmp_path, claims))


def test_the_module_and_ginsim_confirm(tmp_path, monkeypatch, capsys):
    from simulator.cli import main

    (tmp_path / "experiments").mkdir()
    spec = tmp_path / "experiments" / "tiny_values.toml"
    spec.write_text(SPEC.format(out="results/tiny_values", report="results/tiny_values/report.md")
                    .replace("size = { expert = 20 }", "size = { expert = 10 }"))
    (tmp_path / "experiments" / "tiny_values.claims.toml").write_text(CLAIMS)
    monkeypatch.chdir(tmp_path)
    assert dv.main(["experiments/tiny_values.toml", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["rows"] and printed["code"]
    # a second run keeps every block (same spec, code and seeds) and writes the same bytes
    before = (tmp_path / "results" / "tiny_values" / "decision_values.json").read_bytes()
    assert dv.main(["experiments/tiny_values.toml"]) == 0
    assert "kept from the earlier run" in capsys.readouterr().out
    assert (tmp_path / "results" / "tiny_values" / "decision_values.json").read_bytes() == before
    assert main(["claims", "register", "tiny_values"]) == 0
    assert main(["confirm", "tiny_values", "--quiet", "--deals", "2000"]) == 0
    assert "knock_is_worth_points: replicated" in capsys.readouterr().out
    md = (tmp_path / "results" / "tiny_values" / "confirm.md").read_text()
    assert "expert vs expert+knock=simple, tournament" in md
    assert dv.main(["experiments/nope.toml"]) == 2
    assert "no such" in capsys.readouterr().err


def test_ginsim_reproduce_replays_a_decision_values_study_and_ginsim_run_points_to_it(tmp_path):
    from cli_runner import ginsim, one_line_error

    (tmp_path / "experiments").mkdir()
    spec = _study(tmp_path)
    spec.rename(tmp_path / "experiments" / spec.name)
    direct = dv.run(dv.load_spec(tmp_path / "experiments" / spec.name), log=lambda text: None)
    done = ginsim("reproduce", "tiny_values", "--out", "again", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = json.loads((tmp_path / "again" / "decision_values.json").read_text())
    assert (tmp_path / "again" / "report.md").is_file() and not (tmp_path / "out").exists()
    assert [r["loss"] for r in written["rows"]] == [r["loss"] for r in direct["rows"]]
    one_line_error(ginsim("run", "tiny_values", cwd=tmp_path), "decision-values study", "ginsim reproduce tiny_values")
    one_line_error(ginsim("reproduce", "tiny_values", "--deals", "10", cwd=tmp_path), "--deals", "sizes of its blocks")
