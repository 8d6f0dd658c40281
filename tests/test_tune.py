"""``ginsim tune``: the search finds a known optimum through the real CRN and pruning path,
bad specs fail in one line with nothing written, and a study killed with ``kill -9``
continues with ``--resume``.

The known optimum: under ``tournament`` scoring (undercut bonus 25), ``simple`` holding out
for gin beats ``simple`` knocking at any positive threshold by about a point per hand
(results/knock_vs_gin: knock_at 0 +3.57, 1 +2.60, 2 +1.84 ... against simple knocking as
soon as legal), so the best ``knock_at`` is 0.
"""

from __future__ import annotations

import sqlite3
import subprocess
import tomllib
from pathlib import Path

import optuna
import pytest
from paused_cli import start_paused, wait_until_paused

import strategies
from simulator.cli import main
from simulator.run.rundir import RunLock
from simulator.studies.tune import TuneError, parse_spec, tune

ROOT = Path(__file__).resolve().parent.parent

SMALL = """
name = "t"
strategy = "simple"
objective = "net_per_hand"
rules = "tournament"
trials = {trials}
seed = 3
{top}
[params]
knock_at = {{ low = 0, high = 10 }}
[[opponents]]
strategy = "simple"
[budget]
deals = {deals}
min_deals = {min_deals}
fresh_deals = 24_000
{extra}
"""


def write_spec(path: Path, trials: int = 12, deals: int = 24_000, min_deals: int = 2_700, extra: str = "",
               top: str = "") -> Path:
    path.write_text(SMALL.format(trials=trials, deals=deals, min_deals=min_deals, extra=extra, top=top))
    return path


def finished_trials(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
        return con.execute("select count(*) from trials where state in ('COMPLETE', 'PRUNED')").fetchone()[0]


def test_tune_finds_the_known_best_threshold_with_common_deals_and_pruning(tmp_path):
    from simulator.studies.tune import load_spec

    spec = load_spec(write_spec(tmp_path / "spec.toml"))
    result = tune(spec, tmp_path / "out", progress=False)
    assert result["strategy"] == "simple:knock_at=0"
    assert result["tuned_params"] == {"knock_at": 0}
    states = result["trial_states"]
    assert states["complete"] + states["pruned"] >= 12 and states["pruned"] >= 3  # the pruner worked
    # common random numbers: the complete trial of knock_at 0 played exactly the deals of
    # the fixed sweep's knock_at 0, so the two values agree to the last bit
    sweep = result["fixed_sweep"]
    assert sweep["best_value"] == 0 and result["tuning_value"] == sweep["values"]["0"]
    assert sweep["values"]["0"] > sweep["values"]["1"] + 0.5 > sweep["values"]["2"] + 0.5
    rows = {r["name"]: r for r in result["fresh"]["rows"]}
    asap = rows["knock as soon as legal"]
    assert asap["edge_ci"][0] > 2.0  # fresh deals: holding out for gin gains 3+ points per hand
    assert rows["gin only"]["edge"] == 0.0  # the same policy on the same deals
    out = tmp_path / "out"
    for name in ("best.toml", "tune.json", "report.md", "report.html", "convergence.png", "policy.png", "edges.png"):
        assert (out / name).is_file(), name
    best = tomllib.loads((out / "best.toml").read_text())
    assert strategies.parse_strategy(best["strategy"]).label == "simple:knock_at=0"
    assert "Fresh-seed comparison" in (out / "report.md").read_text()
    from simulator.studies.tune import write_summary

    summary = write_summary([result, result], tmp_path / "summary.md")
    assert write_summary([result], summary) == summary  # its own file is replaced
    assert "simple:knock_at=0" in summary.read_text()
    (tmp_path / "mine.md").write_text("# my notes\n")
    with pytest.raises(TuneError, match="was not written by ginsim"):
        write_summary([result], tmp_path / "mine.md")


def test_knock_policy_candidates_are_full_spec_strings():
    from simulator.studies.tune import candidate_spec

    spec = parse_spec({"name": "x", "strategy": "knock_policy", "trials": 1, "rules": "hoyle",
                       "params": {"early": {"low": 0, "high": 10}}, "fixed": {"late": 2},
                       "opponents": [{"strategy": "simple"}], "budget": {"deals": 100}})
    text = candidate_spec(spec, {"early": 7.5})
    assert text == "knock_policy:early=7.5,turn_a=3,late=2,turn_b=10,pickup_penalty=0,near_target=0,score_bonus=0"
    assert spec.budget.rungs(1) == [6, 18, 50]  # pairs per opponent: 11 deals up, × 3, the full 100


BAD = [
    ("trials = 12", "trials = 0", "trials"),
    ('strategy = "simple"', 'strategy = "nope"', "strategy"),
    ("knock_at = { low = 0, high = 10 }", "knock_at = { low = 5, high = 1 }", "params.knock_at"),
    ("knock_at = { low = 0, high = 10 }", "knock_att = { low = 0, high = 10 }", "params.knock_att"),
    ('[[opponents]]\nstrategy = "simple"', '[[opponents]]\nstrategy = "simple:bad=1"', "opponents[0].strategy"),
    ('objective = "net_per_hand"', 'objective = "points"', "objective"),
    ('rules = "tournament"', 'rules = "tournamnet"', "rules"),
    ("deals = 24000", "games = 24000", "budget.games"),
    ("min_deals = 2700", "min_deals = 400000", "budget.min_deals"),
    ("seed = 3", "seed = 3\ncolour = 1", "colour"),
]


@pytest.mark.parametrize("old,new,key", BAD, ids=[b[2] for b in BAD])
def test_a_bad_spec_is_one_line_naming_file_and_key_and_writes_nothing(tmp_path, capsys, old, new, key):
    text = SMALL.format(trials=12, deals=24000, min_deals=2700, extra="", top="")
    assert old in text
    path = tmp_path / "bad.toml"
    path.write_text(text.replace(old, new))
    out = tmp_path / "out"
    assert main(["tune", str(path), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"ginsim: error: {path}: {key}:"), err
    assert not out.exists()


def test_malformed_toml_and_a_missing_file_are_one_line_too(tmp_path, capsys):
    path = tmp_path / "broken.toml"
    path.write_text("name = \n")
    assert main(["tune", str(path), "--quiet"]) == 2
    assert f"{path}: malformed TOML" in capsys.readouterr().err
    assert main(["tune", str(tmp_path / "none.toml"), "--quiet"]) == 2
    assert "no such tuning spec" in capsys.readouterr().err


def test_a_tuning_directory_is_locked_and_not_reused_without_resume(tmp_path, capsys):
    spec = write_spec(tmp_path / "spec.toml", trials=2, deals=2_000, min_deals=2_000,
                      extra="[fixed_threshold]\nvalues = [0]")
    out = tmp_path / "out"
    out.mkdir()
    with RunLock(out, "someone else"):
        assert main(["tune", str(spec), "--out", str(out), "--quiet"]) == 2
        assert "in use by another ginsim run" in capsys.readouterr().err
    assert main(["tune", str(spec), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["tune", str(spec), "--out", str(out), "--quiet"]) == 2
    assert "already holds a tuning study; continue it with --resume" in capsys.readouterr().err
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert main(["tune", str(spec), "--out", str(other), "--quiet"]) == 2
    assert "is not empty and holds no tuning study" in capsys.readouterr().err


def test_a_study_killed_with_sigkill_resumes_to_the_full_trial_count(tmp_path, capsys):
    trials = 30
    spec = write_spec(tmp_path / "spec.toml", trials=trials, deals=36_000, min_deals=4_000,
                      top="fixed_threshold = false")
    out = tmp_path / "out"
    flag = tmp_path / "paused"  # the child freezes after its 3rd finished trial (tests/paused_cli.py)
    proc = start_paused(flag, 3, "tune", spec, "--out", out, "--quiet", cwd=ROOT,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_paused(proc, flag)
    finally:
        proc.kill()  # SIGKILL, as kill -9
        proc.wait(timeout=30)
    assert finished_trials(out / "study.db") >= 3
    assert finished_trials(out / "study.db") < trials
    assert not (out / "best.toml").exists()
    assert main(["tune", str(spec), "--out", str(out), "--quiet"]) == 2  # a study is there: --resume it
    assert "--resume" in capsys.readouterr().err
    study = optuna.load_study(study_name="t", storage=f"sqlite:///{out / 'study.db'}")
    code = study.user_attrs["ginsim_code"]
    study.set_user_attr("ginsim_code", "0" * 20)  # as if ginsim had changed since
    assert main(["tune", str(spec), "--out", str(out), "--quiet", "--resume"]) == 2
    assert "tuned by other code" in capsys.readouterr().err
    study.set_user_attr("ginsim_code", code)
    assert main(["tune", str(spec), "--out", str(out), "--quiet", "--resume"]) == 0
    finished = finished_trials(out / "study.db")
    assert finished >= trials  # the trials, then the polish around the best
    best = tomllib.loads((out / "best.toml").read_text())
    assert best["strategy"] == "simple:knock_at=0"
    # resuming a finished study plays nothing new and rewrites the same outputs
    before = (out / "best.toml").read_text()
    assert main(["tune", str(spec), "--out", str(out), "--quiet", "--resume"]) == 0
    assert (out / "best.toml").read_text() == before and finished_trials(out / "study.db") == finished
    # ... even after a code change, since it plays nothing (the report keeps the tuning's fingerprint)
    study.set_user_attr("ginsim_code", "f" * 20)
    assert main(["tune", str(spec), "--out", str(out), "--quiet", "--resume"]) == 0
    assert (out / "best.toml").read_text() == before and "f" * 20 in (out / "report.md").read_text()
    # a different spec is refused
    changed = write_spec(tmp_path / "changed.toml", trials=trials, deals=36_000, min_deals=4_000,
                         top="fixed_threshold = false", extra="[[enqueue]]\nknock_at = 3")
    capsys.readouterr()
    assert main(["tune", str(changed), "--out", str(out), "--quiet", "--resume"]) == 2
    assert "holds a study of a different spec" in capsys.readouterr().err


def test_an_enqueue_list_is_a_grid_of_candidates(tmp_path):
    from simulator.studies.tune import _enqueue

    data = {"name": "x", "strategy": "knock_policy", "trials": 6, "rules": "hoyle",
            "params": {"early": {"low": 0, "high": 10}, "turn_a": {"low": 0, "high": 12}},
            "opponents": ["simple"], "budget": {"deals": 100},
            "enqueue": [{"early": [10, 9], "turn_a": [1, 2, 3]}]}
    spec = parse_spec(data)
    study = optuna.create_study(direction="maximize")
    _enqueue(spec, study, None)
    waiting = [t.system_attrs["fixed_params"] for t in study.get_trials(deepcopy=False)]
    grid = sorted((p["early"], p["turn_a"]) for p in waiting)
    assert grid == [(9, 1), (9, 2), (9, 3), (10, 1), (10, 2), (10, 3)]
    with pytest.raises(TuneError, match=r"<spec>: enqueue: enqueues 6 candidates, more than trials \(5\)"):
        parse_spec({**data, "trials": 5})


def test_tune_errors_are_tune_errors():
    with pytest.raises(TuneError, match=r"<spec>: opponents: must be a non-empty list"):
        parse_spec({"name": "x", "strategy": "simple", "trials": 1, "params": {"knock_at": {"low": 0, "high": 3}},
                    "opponents": [], "budget": {"deals": 10}})


def _fake_result() -> dict:
    """A tuning result as ``fresh_result`` makes it, with awkward labels and values."""
    row = {"per_opponent": [], "se": 0.01, "edge_se": 0.01}
    return {
        "name": "t", "spec_file": "experiments/t.toml", "strategy": "knock_policy:early=8,late=0.5",
        "objective": "net_per_hand", "rules": {"preset": "hoyle", "target_score": 150},
        "opponents": [{"strategy": "simple", "weight": 1.0}, {"strategy": "gin_hunter:knock_at=2", "weight": 2.5}],
        "budget": {"unit": "deals"}, "tuning_value": 0.12345678, "tuned_params": {"early": 8, "late": 0.5},
        "fresh": {"rows": [
            {**row, "name": "tuned", "strategy": "knock_policy:early=8,late=0.5", "value": 0.1, "ci": [0.05, 0.15],
             "edge": 0.0, "edge_ci": [0.0, 0.0]},
            {**row, "name": 'gin "only"', "strategy": "simple:knock_at=0", "value": -0.2, "ci": [-0.3, -0.1],
             "edge": 0.3000001, "edge_ci": [0.2, 0.4]},
            {**row, "name": "best fixed knock_at (3)", "strategy": "simple:knock_at=3", "value": 0.0,
             "ci": [-0.1, 0.1], "edge": 0.1, "edge_ci": [-0.01, 0.21]},
        ]},
    }


def test_best_toml_is_written_by_a_toml_library_and_parses_back_to_the_same_values():
    from simulator.studies.tune import MARK, best_document, best_toml

    result = _fake_result()
    text = best_toml(result)
    assert text.startswith(f"# {MARK} from experiments/t.toml")
    parsed = tomllib.loads(text)
    assert parsed == best_document(result)
    assert parsed["strategy"] == "knock_policy:early=8,late=0.5" and parsed["params"] == {"early": 8, "late": 0.5}
    assert parsed["rules"] == {"preset": "hoyle", "target_score": 150}
    assert parsed["edges"]['gin "only"'] == {"strategy": "simple:knock_at=0", "edge": 0.3, "ci95": [0.2, 0.4]}
    assert set(parsed["edges"]) == {'gin "only"', "best fixed knock_at (3)"}
    assert parsed["tuning_value"] == 0.123457 and parsed["weights"] == [1.0, 2.5]


def test_policy_words_and_curves_come_from_the_strategy_modules():
    import numpy as np

    from simulator import Rules
    from simulator.studies.tune import describe_policy, threshold_curve

    hoyle = Rules.preset("hoyle")
    draws = np.arange(1, 6)
    # knock_policy provides describe and threshold
    assert strategies.REGISTRY["knock_policy"].describe is not None
    assert describe_policy("knock_policy:early=10,turn_a=2,late=0,turn_b=2", hoyle) == \
        "knock at deadwood ≤ 10 on draws 1–2, then gin only from draw 3 (gin always)"
    assert threshold_curve("knock_policy:early=12,turn_a=2,late=2.5,turn_b=2", draws, 0, 10).tolist() == \
        [10, 10, 2, 2, 2]
    # simple provides a threshold only: knock_at, -1 the knock limit
    assert describe_policy("simple", hoyle) == "knock as soon as legal"
    assert describe_policy("simple:knock_at=0", hoyle) == "gin only"
    assert describe_policy("simple:knock_at=4", Rules.preset("gin_only")) == "gin only"
    assert threshold_curve("simple:knock_at=3", draws, 0, 10).tolist() == [3] * 5
    # gin_hunter's own convention: a negative knock_at never knocks with deadwood
    assert threshold_curve("gin_hunter:knock_at=-1", draws, 0, 10).tolist() == [0] * 5
    # threshold_schedule: a falling curve, described by its segments
    assert describe_policy("threshold_schedule:early=10,early_draws=2,late=2,late_draws=4", hoyle) == \
        "knock at deadwood ≤ 10 on draws 1–2, ≤ 6 on draw 3, then ≤ 2 from draw 4 (gin always)"
    # a strategy that provides neither is named by its spec and has no curve
    assert strategies.REGISTRY["mc"].threshold is None
    assert describe_policy("random", hoyle) == "random"
    assert threshold_curve("random", draws, 0, 10) is None
