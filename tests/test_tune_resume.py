"""A tuning interrupted anywhere and resumed finds what an uninterrupted one finds (issue 46):
the same trials under the same numbers, the same best policy, tuning value and fresh edges.

The interruptions happen in this process: a call of the tuner, Optuna or the progress bar
raises after it returns, at a known count (the counts below follow the spec, and each case
checks that it stopped the trial it names).  ``Killed`` is what ``kill -9`` leaves: it is a
``BaseException`` no handler of Optuna catches, so the running trial stays running, as in a
killed process; ``KeyboardInterrupt`` is Ctrl-C, which Optuna turns into a failed trial.
The same with real ``kill -9`` of a child process, for ``tune``, ``exploit`` and
``equilibrium``: ``tests/test_tune_kill.py`` (slow tier).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import optuna
import pytest
import tqdm

from simulator.cli import main
from simulator.studies.tune import load_spec, tune
from simulator.studies.tune.field import Field
from simulator.studies.tune.sampler import TrialSeeded

#: a knock-policy tuning on small budgets: a two-value fixed sweep, two enqueued candidates,
#: four trials sampled at random then TPE (12 in all), one polish round, the fresh comparison;
#: a candidate plays rungs of 111, 333 and 999 mirrored pairs against each of two opponents
SPEC = """
name = "resume"
strategy = "knock_policy"
objective = "net_per_hand"
rules = "hoyle"
trials = 12
seed = 7
polish = 1
sampler = "{sampler}"
pruner = "{pruner}"
[params]
early = {{ low = 0, high = 10 }}
turn_a = {{ low = 0, high = 10 }}
turn_b = {{ low = 2, high = 20 }}
[fixed]
late = 0
[[opponents]]
strategy = "simple"
[[opponents]]
strategy = "gin_hunter"
[budget]
deals = 3_996
min_deals = 444
fresh_deals = 2_000
[fixed_threshold]
strategy = "simple"
param = "knock_at"
values = [0, 10]
[[enqueue]]
early = 10
turn_a = [2, 4]
turn_b = 2
"""

#: what a result holds that depends on the session, not on the study
SESSION_KEYS = {"seconds_this_session", "seconds_total", "played_this_session", "out", "interrupted_trials"}


class Killed(BaseException):
    """Stops the tuning where it is, as ``kill -9`` does: Optuna catches ``Exception`` and
    ``KeyboardInterrupt`` only, so the trial it stops in is left running."""


#: where a call raises: (owner, attribute, the call after which it raises)
PAIR_VALUES = (Field, "pair_values")  # a rung against one opponent (two per rung), the sweep, the fresh deals
SHOULD_PRUNE = (optuna.trial.Trial, "should_prune")  # the pruner, its rung kept, its decision not acted on
BEFORE_TRIAL = (TrialSeeded, "before_trial")  # a trial made, its candidate not sampled yet
UPDATE = (tqdm.std.tqdm, "update")  # a progress bar step: a trial (or sweep value, fresh policy) finished
ENQUEUE = (optuna.study.Study, "enqueue_trial")  # a candidate queued (two enqueued, then the polish's four)
STUDY_ATTR = (optuna.study.Study, "set_user_attr")  # the first: a new study's file path, before its spec

#: (id, target, count, exception, the trials the resume reports interrupted)
POINTS = [
    ("the study being created", STUDY_ATTR, 1, Killed, []),
    ("the fixed sweep", PAIR_VALUES, 1, Killed, []),
    ("an enqueued trial between two opponents", PAIR_VALUES, 5, Killed, [0]),
    ("the pruner's decision on a random trial", SHOULD_PRUNE, 5, Killed, [2]),
    ("a trial made, its candidate not sampled", BEFORE_TRIAL, 6, Killed, [5]),
    ("a TPE trial in its second rung", PAIR_VALUES, 37, Killed, [10]),
    ("between two trials", UPDATE, 9, Killed, []),
    ("the polish queueing its second neighbour", ENQUEUE, 4, Killed, []),
    ("the polish's neighbours queued, none played", ENQUEUE, 6, Killed, []),
    ("a polish trial", PAIR_VALUES, 55, Killed, [14]),
    ("the fresh comparison", PAIR_VALUES, 67, Killed, []),
    ("Ctrl-C in a TPE trial", PAIR_VALUES, 23, KeyboardInterrupt, [5]),
]


def raising_after(monkeypatch, target, count: int, exception: type[BaseException]) -> None:
    """Make ``target`` (owner, attribute) raise ``exception`` after its ``count``-th call returns."""
    owner, name = target
    real = getattr(owner, name)
    calls = [0]

    def counted(*args, **kwargs):
        result = real(*args, **kwargs)
        calls[0] += 1
        if calls[0] == count:
            raise exception()
        return result

    monkeypatch.setattr(owner, name, counted)


def trials_of(out: Path) -> list[tuple]:
    """Every trial of the study in ``out``: number, state, candidate, value, reports and attributes."""
    storage = f"sqlite:///{out / 'study.db'}"
    (name,) = optuna.get_all_study_names(storage)
    study = optuna.load_study(study_name=name, storage=storage)
    return [(t.number, t.state.name, t.params, t.value, t.intermediate_values, t.user_attrs, t.system_attrs)
            for t in study.get_trials()]


def study_result(out: Path) -> dict:
    """``tune.json`` without what depends on the session."""
    result = json.loads((out / "tune.json").read_text(encoding="utf-8"))
    return {k: v for k, v in result.items() if k not in SESSION_KEYS}


@pytest.fixture(scope="module")
def specs(tmp_path_factory):
    """The spec file of each (sampler, pruner), one path for every tuning of it (the
    outputs name their spec file)."""
    root = tmp_path_factory.mktemp("specs")

    def get(sampler: str = "tpe", pruner: str = "successive_halving"):
        path = root / f"{sampler}_{pruner}.toml"
        if not path.exists():
            path.write_text(SPEC.format(sampler=sampler, pruner=pruner), encoding="utf-8")
        return load_spec(path)

    return get


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, specs):
    """The uninterrupted tunings' output directories, by (sampler, pruner), each made when
    first asked for."""
    root = tmp_path_factory.mktemp("uninterrupted")

    def get(sampler: str = "tpe", pruner: str = "successive_halving") -> Path:
        out = root / f"{sampler}_{pruner}"
        if not out.exists():
            tune(specs(sampler, pruner), out, progress=False)
        return out

    return get


def interrupt_and_resume(spec, out: Path, monkeypatch, target, count, exception) -> Path:
    """Tune ``spec`` into ``out``, stopped by ``exception`` after the ``count``-th call of
    ``target``, then resume it to its end; returns ``out``."""
    with monkeypatch.context() as patch:
        raising_after(patch, target, count, exception)
        with pytest.raises(exception):
            tune(spec, out, progress=False)
    assert not (out / "tune.json").exists()
    tune(spec, out, resume=True, progress=False)
    return out


@pytest.mark.parametrize("target, count, exception, interrupted", [p[1:] for p in POINTS],
                         ids=[p[0] for p in POINTS])
def test_a_tuning_interrupted_anywhere_resumes_to_the_uninterrupted_study(tmp_path, monkeypatch, specs, uninterrupted,
                                                                          target, count, exception, interrupted):
    whole = uninterrupted()
    out = interrupt_and_resume(specs(), tmp_path / "out", monkeypatch, target, count, exception)
    resumed = json.loads((out / "tune.json").read_text(encoding="utf-8"))
    assert resumed["interrupted_trials"] == interrupted  # the point is where the case says
    assert trials_of(out) == trials_of(whole)  # the same trials under the same numbers
    assert study_result(out) == study_result(whole)  # best policy, tuning value, fresh edges, counts
    assert (out / "best.toml").read_text() == (whole / "best.toml").read_text()
    report = (out / "report.md").read_text(encoding="utf-8")
    assert ("played again under its own number" in report) == bool(interrupted)


@pytest.mark.parametrize("sampler, pruner, count", [("random", "hyperband", 37), ("tpe", "hyperband", 23),
                                                    ("random", "successive_halving", 17)])
def test_other_samplers_and_pruners_resume_to_the_uninterrupted_study_too(tmp_path, monkeypatch, specs, uninterrupted,
                                                                          sampler, pruner, count):
    whole = uninterrupted(sampler, pruner)
    out = interrupt_and_resume(specs(sampler, pruner), tmp_path / "out", monkeypatch, PAIR_VALUES, count, Killed)
    assert json.loads((out / "tune.json").read_text(encoding="utf-8"))["interrupted_trials"]
    assert trials_of(out) == trials_of(whole)
    assert study_result(out) == study_result(whole)


def test_cmaes_resumes_to_the_uninterrupted_study(tmp_path, monkeypatch, specs, uninterrupted):
    """CMA-ES keeps its state in the finished trials: with no pruning, trials 2-8 are its
    first generation, and trial 9 tells it their values and keeps the updated state; the
    interruption is in trial 10, which restores it."""
    pytest.importorskip("cmaes")
    whole = uninterrupted("cmaes", "none")
    out = interrupt_and_resume(specs("cmaes", "none"), tmp_path / "out", monkeypatch, PAIR_VALUES, 67, Killed)
    assert json.loads((out / "tune.json").read_text(encoding="utf-8"))["interrupted_trials"] == [10]
    assert any(key.startswith("cma:optimizer") for *_, system in trials_of(whole) for key in system)
    assert trials_of(out) == trials_of(whole)
    assert study_result(out) == study_result(whole)


def test_an_unfinished_study_is_not_resumed_under_another_optuna(tmp_path, monkeypatch, specs):
    from simulator.studies.tune import TuneError

    spec = specs()
    out = tmp_path / "out"
    with monkeypatch.context() as patch:
        raising_after(patch, PAIR_VALUES, 5, Killed)
        with pytest.raises(Killed):
            tune(spec, out, progress=False)
    study = optuna.load_study(study_name="resume", storage=f"sqlite:///{out / 'study.db'}")
    assert study.user_attrs["ginsim_optuna"] == optuna.__version__
    study.set_user_attr("ginsim_optuna", "3.0.0")
    with pytest.raises(TuneError, match=rf"^{out} was tuned with Optuna 3.0.0 \(now {optuna.__version__}\), whose "
                                        r"sampler may propose other candidates; resume it with Optuna 3.0.0 or start "
                                        r"again with another out$"):
        tune(spec, out, resume=True, progress=False)
    assert [t.state.name for t in study.get_trials()] == ["RUNNING", "WAITING"]  # refused before any change


def test_a_study_resumed_with_another_trial_count_says_it_is_not_reproducible(tmp_path, capsys, uninterrupted):
    """Raising ``trials`` and resuming goes on with the study, but the study is no longer
    the one its spec gives from the start: ``tune.json``, the report and the printed
    result say so.  A resume with the spec's own trial count never does (above)."""
    whole = uninterrupted()
    assert json.loads((whole / "tune.json").read_text(encoding="utf-8"))["not_reproducible"] is None
    out = tmp_path / "out"
    shutil.copytree(whole, out)
    more = tmp_path / "more.toml"
    more.write_text(SPEC.format(sampler="tpe", pruner="successive_halving").replace("trials = 12", "trials = 14"),
                    encoding="utf-8")
    assert main(["tune", str(more), "--out", str(out), "--quiet", "--resume"]) == 0
    why = ("played with trials = 12, then 14; a tuning of trials = 14 from the start samples and polishes at "
           "other points")
    assert f"\n  not reproducible from its spec and seed: {why}\n" in capsys.readouterr().out
    assert json.loads((out / "tune.json").read_text(encoding="utf-8"))["not_reproducible"] == why
    assert f"**Not reproducible from its spec and seed**: {why}." in (out / "report.md").read_text(encoding="utf-8")
