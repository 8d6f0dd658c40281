"""``kill -9`` of a real ``ginsim tune``, ``exploit`` or ``equilibrium`` at several points,
then ``--resume``: the same trials, best policy, tuning value, fresh edges and printed
result as the uninterrupted command (issue 46).

Each child freezes at its point (``tests/paused_cli.py --at``: after the N-th call of a
function) and is killed with SIGKILL there; the uninterrupted command and the resume run in
this process.  The points (the counts follow the specs of ``tests/test_tune_resume.py`` and
``tests/test_equilibrium.py``; each case checks the trial its resume reports interrupted):

- ``tune``: between two trials (the 9th progress step: trial 6 finished, trial 7 not
  made); inside TPE trial 10, between the two opponents of its second rung; in random
  trial 2, after the pruner kept its rung value and before the trial was pruned;
- ``exploit``: inside TPE trial 4, in its second rung;
- ``equilibrium``: inside trial 3 of the second best response, after the first was kept.

Slow tier: every case starts a child that loads the kernels and plays up to its point.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from paused_cli import start_paused, wait_until_paused
from test_equilibrium import SMALL_FAMILY, _spec_text
from test_tune_resume import SPEC, study_result, trials_of

from simulator.cli import main

ROOT = Path(__file__).resolve().parent.parent
PAIR_VALUES = "simulator.studies.tune.field:Field.pair_values"


def killed_at(tmp_path: Path, at: str, n: int, *args) -> None:
    """Run ``ginsim ARGS`` in a child, freeze it after the ``n``-th call of ``at`` and kill it
    with SIGKILL."""
    flag = tmp_path / "paused"
    proc = start_paused(flag, n, *args, at=at, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_paused(proc, flag)
    finally:
        proc.kill()  # SIGKILL, as kill -9
        proc.wait(timeout=30)


def printed(capsys) -> tuple[str, str]:
    """What the command printed (the seconds taken removed) and its messages."""
    captured = capsys.readouterr()
    return re.sub(r"\(\d+\.\d s\)", "(s)", captured.out), captured.err


@pytest.mark.parametrize("at, n, interrupted", [
    ("tqdm:tqdm.update", 9, []),
    (PAIR_VALUES, 37, [10]),
    ("optuna.trial._trial:Trial.should_prune", 5, [2]),
], ids=["between two trials", "inside a TPE trial", "the pruner's decision"])
def test_ginsim_tune_killed_with_sigkill_resumes_to_the_uninterrupted_tuning(tmp_path, capsys, at, n, interrupted):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(sampler="tpe", pruner="successive_halving"), encoding="utf-8")
    whole, out = tmp_path / "whole", tmp_path / "out"
    assert main(["tune", str(spec), "--out", str(whole), "--quiet"]) == 0
    expected, _ = printed(capsys)
    killed_at(tmp_path, at, n, "tune", spec, "--out", out, "--quiet")
    assert not (out / "tune.json").exists()
    assert main(["tune", str(spec), "--out", str(out), "--quiet", "--resume"]) == 0
    text, messages = printed(capsys)
    assert text == expected  # the exit lines: best policy, fresh value, edges
    assert json.loads((out / "tune.json").read_text())["interrupted_trials"] == interrupted
    assert [f"trial {k} was interrupted; it is played again under its own number" for k in interrupted] == \
        [line for line in messages.splitlines() if "was interrupted" in line]
    assert trials_of(out) == trials_of(whole)
    assert study_result(out) == study_result(whole)
    assert (out / "best.toml").read_text() == (whole / "best.toml").read_text()


def test_ginsim_exploit_killed_inside_a_trial_resumes_to_the_uninterrupted_best_response(tmp_path, capsys):
    family = tmp_path / "family.toml"
    family.write_text(SMALL_FAMILY, encoding="utf-8")
    whole, out = tmp_path / "whole", tmp_path / "out"
    command = ["exploit", "simple", "--family", str(family), "--rules", "tournament", "--quiet", "--json"]
    assert main([*command, "--out", str(whole)]) == 0
    expected = json.loads(capsys.readouterr().out)
    killed_at(tmp_path, PAIR_VALUES, 7, *command, "--out", out)
    assert main([*command, "--out", str(out), "--resume"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    for document in (expected, resumed):
        del document["seconds"], document["out"]
    assert resumed == expected  # best response, tuned parameters, edge and interval
    assert json.loads((out / "tune.json").read_text())["interrupted_trials"] == [4]
    assert trials_of(out) == trials_of(whole)
    assert study_result(out) == study_result(whole)


def test_ginsim_equilibrium_killed_inside_a_best_response_resumes_to_the_uninterrupted_equilibrium(tmp_path,
                                                                                                    capsys):
    spec = tmp_path / "eq.toml"
    spec.write_text(_spec_text(2), encoding="utf-8")
    whole, out = tmp_path / "whole", tmp_path / "out"
    assert main(["equilibrium", str(spec), "--out", str(whole), "--quiet", "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    killed_at(tmp_path, PAIR_VALUES, 15, "equilibrium", spec, "--out", out, "--quiet")
    assert (out / "br_0" / "tune.json").exists() and not (out / "br_1" / "tune.json").exists()
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet", "--json", "--resume"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    for document in (expected, resumed):
        for result in document["results"]:
            del result["seconds"], result["out"]
    assert resumed == expected  # mixture, value, exploitability, comparisons
    assert json.loads((out / "br_1" / "tune.json").read_text())["interrupted_trials"] == [3]
    for k in (0, 1):
        assert trials_of(out / f"br_{k}") == trials_of(whole / f"br_{k}")
        assert study_result(out / f"br_{k}") == study_result(whole / f"br_{k}")
