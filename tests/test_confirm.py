"""``ginsim confirm``: claims as data re-played on fresh seeds (simulator/studies/confirm.py).

A planted false claim is reported ``not replicated`` (exit status 1) beside a true one that
replicates; the output is byte-identical when re-run; the study's seeds and development
seeds are refused in one line with nothing written; bad claims files fail in one line
naming the file and the key; Holm keeps the family-wise error at its level.  The ledger's own tests are in
tests/test_ledger.py, the whole record's (the README's opening, docs/claims.md) in tests/test_record.py.  A run's report
leads its Findings with the claims of a confirm.json of its own seeds, and shows none of
another seed's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import shutil

import numpy as np
import pytest

from simulator.analysis.claims import format_estimate
from simulator.analysis.report import write_report
from simulator.analysis.stats import holm_adjust
from simulator.cli import main
from simulator.run.experiment import load_experiment
from simulator.run.rundir import RunError, seal
from simulator.run.runner import run_experiment
from simulator.studies import claims_file
from simulator.studies import confirm as C
from simulator.run.seeds import DEVELOPMENT_SEEDS, derive_seed

ROOT = Path(__file__).resolve().parent.parent

EXPERIMENT = """
name = "tiny"
seed = 424242
deals = 2_000
games = 40
mirrored = true
matchups = [["knock_early", "random"]]
[variants.hoyle]
preset = "hoyle"
"""

CLAIMS = """
max_deals = 2_000
max_games = 40

[[claims]]
id = "true_claim"
margin_from = "study"
statement = "knock_early beats random per hand"
metric = "net_points"
unit = "hand"
a = "knock_early"
b = "random"
rules = "hoyle"
sign = "positive"

[[claims]]
id = "planted_false_claim"
margin_from = "study"
statement = "random beats knock_early per hand"
metric = "net_points"
unit = "hand"
a = "random"
b = "knock_early"
rules = "hoyle"
above = 0.0
"""


def tiny_study(folder: Path, claims: str, experiment: str = EXPERIMENT) -> Path:
    """The tiny study (``experiment``: its file, named "tiny") and its claims under
    ``folder/experiments``, the claims registered (run from ``folder``)."""
    (folder / "experiments").mkdir()
    (folder / "experiments" / "tiny.toml").write_text(experiment)
    (folder / "experiments" / "tiny.claims.toml").write_text(claims)
    assert main(["claims", "register", "tiny"]) == 0
    return folder


@pytest.fixture
def study(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tiny_study(tmp_path, CLAIMS)


def test_a_planted_false_claim_is_not_replicated_and_the_rerun_is_byte_identical(study, capsys):
    assert main(["confirm", "tiny", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "planted_false_claim: not replicated" in out and "true_claim: replicated" in out
    first = {name: (study / "results" / "tiny" / name).read_bytes() for name in ("confirm.json", "confirm.md")}
    result = json.loads(first["confirm.json"])
    by_id = {e["id"]: e for e in result["claims"]}
    assert by_id["planted_false_claim"]["status"] == "not replicated"
    assert by_id["true_claim"]["status"] == "replicated"
    for e in result["claims"]:
        assert set(e) >= {"id", "statement", "metric", "a", "b", "rules", "original", "confirmation", "status"}
        assert set(e["original"]) >= {"estimate", "low", "high", "n"}
        assert set(e["confirmation"]) >= {"estimate", "low", "high", "n", "seed"}
        assert e["original"]["n"] == 2_000 and e["confirmation"]["n"] <= 2_000
    # the confirmation seed comes from the study seed and the salt, and the study's seed is not it
    assert result["seed"] == derive_seed(424242, salt=C.CONFIRM_SALT) != 424242 and result["salt"] == C.CONFIRM_SALT
    # the original is the study's own rows: a vs b is the cell's b vs a, negated
    assert math.isclose(by_id["planted_false_claim"]["original"]["estimate"],
                        -by_id["true_claim"]["original"]["estimate"], rel_tol=1e-9)
    assert main(["confirm", "tiny", "--quiet"]) == 1
    capsys.readouterr()
    again = {name: (study / "results" / "tiny" / name).read_bytes() for name in first}
    assert again == first


def _findings(md: str) -> str:
    return md.split("## Findings", 1)[1].split("\n## ", 1)[0]


def test_the_reports_findings_show_the_studys_claims_and_not_those_of_other_seeds(study, capsys):
    path = study / "experiments" / "tiny.claims.toml"
    path.write_text(CLAIMS + '[[claims]]\nid = "old_claim"\nmargin_from = "study"\nstatement = "random wins most hands"\nmetric = "win_share"\n'
                    'unit = "hand"\na = "random"\nb = "knock_early"\nrules = "hoyle"\nsign = "positive"\n')
    assert main(["claims", "register", "tiny"]) == 0
    path.write_text(CLAIMS)
    assert main(["claims", "withdraw", "tiny", "old_claim", "--why", "the study's own estimate has the other sign"]) == 0
    run_dir = run_experiment(load_experiment(study / "experiments" / "tiny.toml"), study / "results" / "tiny",
                             progress=False)
    assert main(["confirm", "tiny", "--quiet"]) == 1
    capsys.readouterr()
    entries = json.loads((run_dir / "confirm.json").read_text())["claims"]
    write_report(run_dir)
    findings = _findings((run_dir / "report.md").read_text())
    assert "declared claims come first" in findings
    for e in entries:
        line = next(x for x in findings.splitlines() if f"Claim {e['id']} " in x)
        assert e["statement"] in line and f"Claim {e['id']} ({e['status']}): " in line
        assert f"study {format_estimate(e, 'original')} (n = {e['original']['n']:,})" in line
        assert f"confirmation {format_estimate(e, 'confirmation')} (n = {e['confirmation']['n']:,})" in line
    assert {e["status"] for e in entries} == {"replicated", "not replicated"}
    assert "Withdrawn claim old_claim: random wins most hands — withdrawn: the study's own estimate" in findings
    # the claims lead, before the run's own headline estimates
    assert findings.index("Claim true_claim") < findings.index("net points per hand to A")
    assert "planted_false_claim" in (run_dir / "report.html").read_text()

    # a report written into another --out directory finds the confirmation there
    out = study / "elsewhere"
    out.mkdir()
    shutil.move(run_dir / "confirm.json", out / "confirm.json")
    write_report(run_dir, out)
    assert "Claim true_claim (" in _findings((out / "report.md").read_text())
    # a damaged confirm.json is one error naming the field (even sealed again), and no report file is replaced
    good = (out / "confirm.json").read_text()
    damaged = json.loads(good)
    del damaged["claims"][0]["original"]["low"]
    (out / "confirm.json").write_text(json.dumps(seal(damaged), indent=1))
    before = (out / "report.md").read_bytes()
    with pytest.raises(RunError, match=r"claims\[0\]\.original\.low is missing"):
        write_report(run_dir, out)
    assert (out / "report.md").read_bytes() == before
    (out / "confirm.json").write_text(good)

    # the same study on another seed: other cell seeds, so the confirmation is not this run's
    other_toml = study / "other.toml"
    other_toml.write_text(EXPERIMENT.replace("seed = 424242", "seed = 515151"))
    other = run_experiment(load_experiment(other_toml), study / "other", progress=False)
    shutil.copy(out / "confirm.json", other / "confirm.json")
    write_report(other)
    findings = _findings((other / "report.md").read_text())
    assert "belongs to other seeds" in findings and "declared claims come first" not in findings
    assert not any(name in findings for name in ("true_claim", "planted_false_claim", "old_claim"))


@pytest.mark.parametrize("seed, words", [(424242, "is one the study used"),
                                         (DEVELOPMENT_SEEDS.start + 5, "is a development seed")])
def test_the_study_seed_and_development_seeds_are_refused(study, seed, words):
    exp = load_experiment(study / "experiments" / "tiny.toml")
    with pytest.raises(C.ClaimError, match=words) as err:
        C.check_confirmation_seed(exp, seed)
    assert "\n" not in str(err.value)


def test_a_study_whose_own_seed_is_a_development_seed_is_refused(study, capsys):
    text = EXPERIMENT.replace("seed = 424242", f"seed = {DEVELOPMENT_SEEDS.start}")
    (study / "experiments" / "tiny.toml").write_text(text)
    assert main(["confirm", "tiny", "--quiet"]) == 2
    assert "study tiny: seed 1000000 is a development seed" in capsys.readouterr().err


@pytest.mark.parametrize("edit, key", [
    (("metric = \"net_points\"", "metric = \"points\""), "claims[0].metric"),
    (("unit = \"hand\"", "unit = \"deal\""), "claims[0].unit"),
    (("sign = \"positive\"", "sign = \"up\""), "claims[0].sign"),
    (("sign = \"positive\"", "interval = [2, 1]"), "claims[0].interval"),
    (("sign = \"positive\"", "delta = -1"), "claims[0].delta"),
    (("sign = \"positive\"", "sign = \"positive\"\nabove = 1"), "claims[0].above"),
    (("id = \"planted_false_claim\"", "id = \"true_claim\""), "claims[1].id"),
    (("rules = \"hoyle\"", "rules = \"classic\""), "rules"),
    (("b = \"random\"", "b = \"gin_hunter\""), "a, b"),
    (("max_deals = 2_000", "max_deals = 0"), "max_deals"),
    (("max_deals = 2_000", "colour = 1"), "colour"),
    (("statement = ", "# statement = "), "claims[0].statement: required"),
    (("sign = \"positive\"", "sign = \"positive\"\ndelta = 0"), "claims[0].delta: must be a positive number"),
])
def test_a_bad_claims_file_is_one_line_naming_the_file_and_the_key(study, capsys, edit, key):
    path = study / "experiments" / "tiny.claims.toml"
    path.write_text(CLAIMS.replace(*edit, 1))
    (study / "experiments" / "ledger" / "tiny.jsonl").unlink()  # a new study: its claims as edited
    main(["claims", "register", "tiny"])  # registers the edited claims when they parse
    capsys.readouterr()
    assert main(["confirm", "tiny", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and key in err, err
    assert not (study / "results").exists()


def test_sample_size_is_the_fewest_units_with_the_target_power():
    claim = claims_file.parse_claims({"claims": [{"id": "x", "statement": "s", "metric": "net_points", "unit": "hand",
                                        "a": "a", "b": "b", "rules": "r", "above": 0.4}]}, "f").claims[0]
    n = C.units_for_power(claim, 0.65, 8.1, 0.05 / 6, 10**9)
    assert C.power(claim, 0.65, 8.1, n, 0.05 / 6) >= C.POWER > C.power(claim, 0.65, 8.1, n - 1, 0.05 / 6)
    assert C.units_for_power(claim, 0.3, 8.1, 0.05, 5_000) == 5_000  # the effect is outside the claim: the cap


def test_holm_keeps_the_family_wise_error_at_its_level():
    rng = np.random.default_rng(20261201)
    families, m, alpha = 4_000, 10, 0.05
    p = rng.uniform(size=(families, m))  # every hypothesis true: any rejection is a family-wise error
    errors = np.mean([np.any(holm_adjust(row) <= alpha) for row in p])
    assert errors <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / families)
    assert np.mean(np.any(p <= alpha, axis=1)) > 0.3  # unadjusted, the error is far above the level
    assert list(holm_adjust([0.01, 0.04, 0.03])) == pytest.approx([0.03, 0.06, 0.06])


TUNING = """
name = "tiny_tuning"
strategy = "simple"
objective = "net_per_hand"
rules = "tournament"
trials = 2
seed = 31337
out = "results/folder/tiny"
[params]
knock_at = { low = 0, high = 10 }
[[opponents]]
strategy = "simple"
[budget]
deals = 2_000
min_deals = 2_000
fresh_deals = 2_000
"""


def test_tune_refuses_a_development_seed_for_its_final_evaluation(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(TUNING.replace("seed = 31337", f"seed = {DEVELOPMENT_SEEDS.start + 1}"))
    assert main(["tune", str(spec), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "final (fresh-deal) evaluation: seed 1000001 is a development seed" in err
    assert not (tmp_path / "out").exists()


TUNING_CLAIM = """
[[claims]]
id = "{id}"
margin_from = "study"
statement = "{statement}"
tuning = "tiny"
metric = "field_edge"
unit = "hand"
a = "tuned"
b = "knock as soon as legal"
rules = "tournament"
sign = "{sign}"
"""
TUNING_CLAIMS = "max_deals = 4_000\n" + TUNING_CLAIM.format(
    id="holding_out_pays", statement="the tuned policy (hold out for gin) beats knocking as soon as legal",
    sign="positive") + TUNING_CLAIM.format(
    id="planted_false_claim", statement="the tuned policy loses to knocking as soon as legal", sign="negative")


def test_a_tuning_study_is_confirmed_against_its_fresh_comparison(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "experiments" / "folder"
    folder.mkdir(parents=True)
    (folder / "tiny.toml").write_text(TUNING)
    (folder / "claims.toml").write_text(TUNING_CLAIMS)
    out = tmp_path / "results" / "folder" / "tiny"
    out.mkdir(parents=True)
    # the tuning's own fresh-deal comparison, as ginsim tune writes it (tuned minus baseline)
    rows = [{"name": "tuned", "strategy": "simple:knock_at=0", "edge": 0.0, "edge_ci": [0.0, 0.0], "edge_se": 0.0},
            {"name": "knock as soon as legal", "strategy": "simple", "edge": 3.5, "edge_ci": [2.5, 4.5],
             "edge_se": 0.5}]
    (out / "tune.json").write_text(json.dumps({"name": "tiny_tuning", "seed": 31337, "rules_label": "tournament",
                                               "fresh": {"pairs_per_opponent": 1_000, "rows": rows}}))
    monkeypatch.chdir(tmp_path)
    assert main(["claims", "register", "folder"]) == 0
    assert main(["confirm", "folder", "--quiet"]) == 1
    result = json.loads((tmp_path / "results" / "folder" / "confirm.json").read_text())
    status = {e["id"]: e["status"] for e in result["claims"]}
    assert status == {"holding_out_pays": "replicated", "planted_false_claim": "not replicated"}
    assert result["seed"] == derive_seed(31337, salt=C.CONFIRM_SALT)
    monkeypatch.setattr(C.Protocol, "seed", lambda self, seed: 31337)  # a salt that gave the tuning's seed
    assert main(["confirm", "folder", "--salt", "another", "--quiet"]) == 2
    assert "is the one tuning tiny_tuning used" in capsys.readouterr().err
