"""The search: Optuna's trials in rungs with pruning, the fixed-threshold sweep, the
enqueued candidates, the neighbour polish, and resuming a study.

``open_study`` creates the study in its SQLite storage or loads it to resume (refusing
another spec, or other code while something is left to play); ``play_study`` then plays
what is left — the sweep, the enqueued candidates, the trials and the polish, and the fresh
comparison (``simulator.studies.tune.fresh``) — each step kept in the study as it goes, so a
resume never plays anything twice.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ...run.experiment import format_value
from ...run.runner import bar_disabled
from .field import Field, candidate_spec
from .fresh import fresh_result
from .spec import STUDY_DB, Param, TuneError, TuneSpec
from .trials import _best_trial, _finished, _optuna


def open_study(spec: TuneSpec, storage, fingerprint: str, out, log: Callable[[str], None]):
    """The study of ``spec`` in ``storage``: created (with the spec, its file, the code
    fingerprint, Optuna's version and the start time as attributes), or loaded to resume:
    refused for another spec, and for other code or another Optuna unless it is finished
    (then only its outputs are rewritten).  A trial a killed tuning left unfinished is made
    waiting again, to be played under its own number (``_clear_interrupted``).  Returns
    (study, the fingerprint it was played by)."""
    optuna = _optuna()
    existing = [s.study_name for s in optuna.get_all_study_summaries(storage)]
    if spec.name not in existing:
        if existing:
            raise TuneError(f"{out / STUDY_DB} holds another study ({existing[0]!r}); choose another out")
        study = optuna.create_study(study_name=spec.name, storage=storage, direction="maximize",
                                    sampler=_sampler(spec), pruner=_pruner(spec, len(spec.opponents)))
        _mark_study(spec, study, fingerprint)
        return study, fingerprint
    study = _load_study(spec, storage)
    if "ginsim_spec" not in study.user_attrs and not study.get_trials(deepcopy=False):
        _mark_study(spec, study, fingerprint)  # killed while it was being created
    fingerprint = _check_resume(spec, study, fingerprint, out, log)
    counts = study.user_attrs.get("ginsim_trials", [spec.trials])
    if counts[-1] != spec.trials:  # "raise trials and --resume to go on": no longer the study of one spec
        study.set_user_attr("ginsim_trials", [*counts, spec.trials])
    interrupted = _clear_interrupted(storage, storage.get_study_id_from_name(spec.name))
    if interrupted:
        study = _load_study(spec, storage)  # a new view: Optuna keeps finished trials in memory
        study.set_user_attr("ginsim_interrupted", [*study.user_attrs.get("ginsim_interrupted", []), *interrupted])
        for number in interrupted:
            log(f"trial {number} was interrupted; it is played again under its own number")
    return study, fingerprint


def _load_study(spec: TuneSpec, storage):
    """The study of ``spec`` as kept in ``storage``, with the spec's sampler and pruner."""
    return _optuna().load_study(study_name=spec.name, storage=storage, sampler=_sampler(spec),
                                pruner=_pruner(spec, len(spec.opponents)))


def _mark_study(spec: TuneSpec, study, fingerprint: str) -> None:
    """Keep in a new study what a resume must agree on and where it came from; the spec
    last, so a study that has it has them all."""
    study.set_user_attr("ginsim_path", spec.path)
    study.set_user_attr("ginsim_code", fingerprint)
    study.set_user_attr("ginsim_optuna", _optuna().__version__)
    study.set_user_attr("ginsim_trials", [spec.trials])
    study.set_user_attr("ginsim_started", time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    study.set_user_attr("ginsim_spec", spec.identity())


def _check_resume(spec: TuneSpec, study, fingerprint: str, out, log: Callable[[str], None]) -> str:
    """Refuse to resume ``study`` with another spec, or with other code or another Optuna
    (whose sampler may propose other candidates) while something is left to play; returns
    the fingerprint of the code it was played by."""
    attrs = study.user_attrs
    if attrs.get("ginsim_spec") != spec.identity():
        raise TuneError(f"{out} holds a study of a different spec ({attrs.get('ginsim_path', '?')}); "
                        f"cannot --resume it with {spec.path}")
    version = _optuna().__version__
    if attrs.get("ginsim_code") != fingerprint or attrs.get("ginsim_optuna", version) != version:
        if _needs_play(spec, study):
            if attrs.get("ginsim_code") != fingerprint:
                raise TuneError(f"{out} was tuned by other code (fingerprint {attrs.get('ginsim_code')}, now "
                                f"{fingerprint}: ginsim or a plug-in changed); resuming would mix the two, "
                                f"so start again with another out")
            raise TuneError(f"{out} was tuned with Optuna {attrs['ginsim_optuna']} (now {version}), whose sampler "
                            f"may propose other candidates; resume it with Optuna {attrs['ginsim_optuna']} or "
                            f"start again with another out")
        log(f"{out}: a finished tuning (code {attrs.get('ginsim_code')}); rewriting its outputs only")
        return attrs.get("ginsim_code")
    return fingerprint


#: the tables of Optuna's SQLite storage that hold a trial's results (params, values, reports,
#: attributes); ``_clear_interrupted`` empties them for an interrupted trial
_TRIAL_TABLES = ("trial_params", "trial_values", "trial_intermediate_values", "trial_user_attributes",
                 "trial_heartbeats")


def _clear_interrupted(storage, study_id: int) -> list[int]:
    """Make the interrupted trial of a killed tuning waiting again, as it was before it
    started: the trial left running (``kill -9``), or the last trial started if it failed
    (Ctrl-C, or an error, stops the tuning inside a trial).  Its parameters, values,
    reports and attributes are removed, all but the candidate it was enqueued with, in one
    transaction of the storage, so it is played again under its own number on the same
    study as before, and the sampler (seeded by trial number) proposes it the same
    candidate.  Marking it failed instead, as Optuna does, gives its number away, drops an
    enqueued candidate and leaves its rung values to the pruner.  Returns the trials'
    numbers."""
    import sqlalchemy

    optuna = _optuna()
    state = optuna.trial.TrialState
    started = [t for t in storage.get_all_trials(study_id, deepcopy=False) if t.state != state.WAITING]
    last = max(started, key=lambda t: t.number, default=None)
    interrupted = [t for t in started if t.state == state.RUNNING or (t is last and t.state == state.FAIL)]
    with storage.engine.begin() as connection:  # one transaction: all of it or nothing
        for t in interrupted:
            ident = {"trial": t._trial_id}
            for table in _TRIAL_TABLES:
                connection.execute(sqlalchemy.text(f"DELETE FROM {table} WHERE trial_id = :trial"), ident)
            connection.execute(sqlalchemy.text("DELETE FROM trial_system_attributes WHERE trial_id = :trial "
                                               "AND key != 'fixed_params'"), ident)
            connection.execute(sqlalchemy.text("UPDATE trials SET state = 'WAITING', datetime_start = NULL, "
                                               "datetime_complete = NULL WHERE trial_id = :trial"), ident)
    return [t.number for t in interrupted]


def play_study(spec: TuneSpec, study, field_: Field, progress: bool, fingerprint: str) -> dict[str, Any]:
    """Play what the study still lacks, in order: the fixed-threshold sweep, the enqueued
    candidates, the trials and the polish, then the fresh comparison; returns the result
    (``simulator.studies.tune.fresh.fresh_result``)."""
    sweep = _fixed_sweep(spec, study, field_, progress)
    _enqueue(spec, study, sweep)
    _search(spec, study, field_, progress)
    return fresh_result(spec, study, field_, sweep, progress, fingerprint)


def _sampler(spec: TuneSpec):
    """The spec's sampler, seeded per trial (``simulator.studies.tune.sampler``)."""
    from .sampler import make_sampler

    return make_sampler(spec)


def _pruner(spec: TuneSpec, n_opponents: int):
    """Optuna's pruner for ``spec.pruner`` over the budget's rungs (none with one rung)."""
    optuna = _optuna()
    rungs = spec.budget.rungs(n_opponents)
    first, last = 2 * n_opponents * rungs[0], 2 * n_opponents * rungs[-1]
    if spec.pruner == "none" or len(rungs) == 1:
        return optuna.pruners.NopPruner()
    if spec.pruner == "hyperband":
        return optuna.pruners.HyperbandPruner(min_resource=first, max_resource=last,
                                              reduction_factor=spec.budget.reduction)
    return optuna.pruners.SuccessiveHalvingPruner(min_resource=first, reduction_factor=spec.budget.reduction)


def _suggest(trial, p: Param) -> float:
    """The trial's value of parameter ``p`` in its range (int or float, step, log scale)."""
    if p.kind == "int":
        return float(trial.suggest_int(p.name, int(p.low), int(p.high), step=int(p.step or 1), log=p.log))
    return float(trial.suggest_float(p.name, p.low, p.high, step=p.step, log=p.log))


def _needs_play(spec: TuneSpec, study) -> bool:
    """True unless the study is finished: every sweep value scored, every trial run, and
    the fresh comparison done for its best trial (then a resume only rewrites outputs)."""
    if spec.fixed_threshold is not None:
        done = study.user_attrs.get("ginsim_fixed_sweep", {})
        if any(format_value(v) not in done for v in spec.fixed_threshold.values):
            return True
    if len(_finished(study)) < spec.trials or (spec.polish and not study.user_attrs.get("ginsim_polish_done")):
        return True
    try:
        best = _best_trial(study)
    except TuneError:
        return True
    cached = study.user_attrs.get("ginsim_fresh") or {}
    return cached.get("key") != {"best_trial": best.number, "trials": spec.trials}



def _fixed_sweep(spec: TuneSpec, study, field_: Field, progress: bool) -> dict[str, Any] | None:
    """Score the fixed-threshold baseline at every value on the tuning deals (at the full
    budget); kept in the study as it goes, so a resume does not play a value twice."""
    if spec.fixed_threshold is None:
        return None
    from tqdm.auto import tqdm

    ft = spec.fixed_threshold
    done: dict[str, float] = dict(study.user_attrs.get("ginsim_fixed_sweep", {}))
    pairs = spec.budget.rungs(len(spec.opponents))[-1]
    todo = [v for v in ft.values if format_value(v) not in done]
    with tqdm(total=len(ft.values), initial=len(ft.values) - len(todo), disable=bar_disabled(progress), unit="value",
              desc=f"{spec.name}: fixed {ft.param}", leave=False) as bar:
        for value in todo:
            label = _with_param(ft.strategy, ft.param, value)
            units, _ = field_.field_units(label, "tune", pairs)
            done[format_value(value)] = float(units.mean())
            study.set_user_attr("ginsim_fixed_sweep", done)
            bar.update(1)
    best = max(ft.values, key=lambda v: (done[format_value(v)], -abs(v)))
    return {"strategy": ft.strategy, "param": ft.param, "values": {k: done[k] for k in map(format_value, ft.values)},
            "best_value": best, "best_spec": _with_param(ft.strategy, ft.param, best),
            "best_tuning": done[format_value(best)]}


def _with_param(spec: str, param: str, value: float) -> str:
    """The canonical spec of ``spec`` with ``param`` set to ``value``."""
    import strategies

    s = strategies.parse_strategy(spec)
    values = dict(s.values)
    values[param] = float(value)
    defaults = strategies.REGISTRY[s.name].params
    changed = [f"{k}={format_value(v)}" for k, v in values.items() if v != defaults[k] or k == param]
    return s.name + (":" + ",".join(changed) if changed else "")


def _enqueue(spec: TuneSpec, study, sweep: dict[str, Any] | None) -> None:
    """Queue the ``[[enqueue]]`` candidates once per study (each list a grid of
    combinations; "best_fixed" is the sweep's best value), clamped to their ranges."""
    if study.user_attrs.get("ginsim_enqueued") or not spec.enqueue:
        return
    import itertools

    tuned = {p.name: p for p in spec.params}

    def resolve(name: str, value: Any) -> float:
        if value == "best_fixed":
            value = sweep["best_value"]
        p = tuned[name]
        value = min(max(float(value), p.low), p.high)
        return int(round(value)) if p.kind == "int" else value

    for entry in spec.enqueue:
        names = list(entry)
        grids = [v if isinstance(v, list) else [v] for v in entry.values()]
        for combination in itertools.product(*grids):
            params = {name: resolve(name, value) for name, value in zip(names, combination)}
            study.enqueue_trial(params, skip_if_exists=True)
    study.set_user_attr("ginsim_enqueued", True)


def _search(spec: TuneSpec, study, field_: Field, progress: bool) -> None:
    """Run trials until ``spec.trials`` have finished (complete or pruned), then the polish."""
    from tqdm.auto import tqdm

    remaining = spec.trials - len(_finished(study))
    with tqdm(total=spec.trials, initial=spec.trials - max(remaining, 0), disable=bar_disabled(progress), unit="trial",
              desc=f"{spec.name}: trials", leave=False) as bar:
        objective = _objective(spec, study, field_, bar)

        def callback(study_, trial) -> None:
            bar.update(1)
            bar.set_postfix_str(_postfix(study_), refresh=False)

        while remaining > 0:
            study.optimize(objective, n_trials=remaining, callbacks=[callback], catch=())
            remaining = spec.trials - len(_finished(study))
        if spec.polish and not study.user_attrs.get("ginsim_polish_done"):
            bar.set_description_str(f"{spec.name}: polish")
            _polish(spec, study, objective, callback, bar)


def _objective(spec: TuneSpec, study, field_: Field, bar):
    """Optuna's objective: a candidate plays the rungs on the tuning deals, reporting its
    running value after each rung but the last (the pruner may stop it there); a policy
    already played takes the values of its first trial without playing."""
    optuna = _optuna()
    n_opp = len(spec.opponents)
    rungs = spec.budget.rungs(n_opp)
    unit = spec.budget.unit

    def objective(trial) -> float:
        values = {p.name: _suggest(trial, p) for p in spec.params}
        label = candidate_spec(spec, values)
        trial.set_user_attr("strategy", label)
        prior = next((t for t in _finished(study) if t.user_attrs.get("strategy") == label), None)
        if prior is not None:  # the sampler proposed a policy already played: same deals, same values
            trial.set_user_attr(unit, 0)
            trial.set_user_attr("same_as", prior.number)
            if prior.state == optuna.trial.TrialState.COMPLETE:
                trial.set_user_attr("per_opponent", prior.user_attrs.get("per_opponent"))
                return float(prior.value)
            for step, value in sorted(prior.intermediate_values.items()):
                trial.report(value, step=step)
            raise optuna.TrialPruned()
        sums = np.zeros(n_opp)
        done = 0
        for k, pairs in enumerate(rungs):
            for i in range(n_opp):
                sums[i] += field_.pair_values(label, i, "tune", done, pairs - done).sum()
            done = pairs
            value = float(spec.weights @ (sums / done))
            trial.set_user_attr(unit, 2 * n_opp * done)
            if k < len(rungs) - 1:
                trial.report(value, step=2 * n_opp * done)
                if trial.should_prune():
                    bar.set_postfix_str(_postfix(study), refresh=False)
                    raise optuna.TrialPruned()
        trial.set_user_attr("per_opponent", (sums / done).tolist())
        return value

    return objective


def _neighbours(spec: TuneSpec, params: dict[str, float]) -> list[dict[str, float]]:
    """The candidates one step away from ``params`` in one tuned parameter (1 for an int,
    its step for a float with a step, else a twentieth of its range), inside the ranges."""
    out = []
    for p in spec.params:
        if p.log:
            continue  # no natural step on a log scale
        step = p.step or (1.0 if p.kind == "int" else (p.high - p.low) / 20)
        for sign in (-1, 1):
            value = params[p.name] + sign * step
            if p.low - 1e-9 <= value <= p.high + 1e-9:
                value = int(round(value)) if p.kind == "int" else round(value, 12)
                out.append({**params, p.name: value})
    return out


def _waiting(study) -> int:
    """How many enqueued trials are still to play."""
    optuna = _optuna()
    return len(study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.WAITING,)))


def _polish(spec: TuneSpec, study, objective, callback, bar) -> None:
    """Coordinate polish after the search: try every neighbour of the best complete trial
    (on the same deals, through the same rungs and pruner), and again around a new best,
    for at most ``polish`` rounds.  A round is kept in the study before its neighbours are
    queued, and queueing them again queues only the missing ones, so a tuning interrupted
    anywhere in a round goes on with that round, as it would have uninterrupted."""
    polished = list(study.user_attrs.get("ginsim_polished", []))
    while True:
        if polished:
            _queue_neighbours(spec, study, polished[-1])
        waiting = _waiting(study)
        if waiting:  # the round's neighbours not yet played
            bar.total += waiting
            bar.refresh()
            study.optimize(objective, n_trials=waiting, callbacks=[callback], catch=())
        best = _best_trial(study)
        if best.number in polished or len(polished) >= spec.polish:
            break
        polished.append(best.number)
        study.set_user_attr("ginsim_polished", polished)
    study.set_user_attr("ginsim_polish_done", True)


def _queue_neighbours(spec: TuneSpec, study, number: int) -> None:
    """Queue the neighbours of trial ``number`` (``_neighbours``) that no trial has tried or
    is waiting to try."""
    optuna = _optuna()
    state = optuna.trial.TrialState
    trials = study.get_trials(deepcopy=False)
    seen = [t.params for t in trials if t.state in (state.COMPLETE, state.PRUNED)]
    seen += [t.system_attrs.get("fixed_params", {}) for t in trials if t.state == state.WAITING]
    centre = next(t for t in trials if t.number == number)
    for params in _neighbours(spec, dict(centre.params)):
        if not any(all(math.isclose(float(other.get(k, math.nan)), float(v)) for k, v in params.items())
                   for other in seen):
            study.enqueue_trial(params)


def _postfix(study) -> str:
    """The progress bar's note: the best complete value so far."""
    try:
        return f"best {study.best_value:+.4f}"
    except ValueError:
        return "no complete trial yet"


