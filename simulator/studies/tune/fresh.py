"""The fresh-deal evaluation: the chosen policy and the baselines again, on deals the search
never saw.

Picking the best of many noisy candidates flatters it (selection bias), so the best
complete trial and every baseline (and the best fixed threshold) play ``fresh_deals`` each
on the same fresh streams (``derive_seed(seed, "fresh", i, salt=TUNE_SALT)``).  The edge of the chosen
policy over a baseline is a paired mean: per mirrored pair index p, the weighted field mean
of the chosen policy minus the baseline's; its 95% interval is the Student t interval over
those pair units (``simulator.analysis.stats.estimators.plain``).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np

from ...run.experiment import format_value
from ...run.runner import bar_disabled
from .field import Field
from .spec import OBJECTIVE_TEXT, TuneSpec
from .trials import _best_trial, _optuna


def fresh_result(spec: TuneSpec, study, field_: Field, sweep: dict[str, Any] | None, progress: bool,
                 fingerprint: str) -> dict[str, Any]:
    """The tuning's result (what ``tune.json`` holds): the best trial, the search's counts,
    the sweep and the fresh comparison of the chosen policy with the baselines (played once
    per best trial and trial count, then kept in the study)."""
    best = _best_trial(study)
    chosen = best.user_attrs["strategy"]
    key = {"best_trial": best.number, "trials": spec.trials}
    policies = {"tuned": chosen, **spec.baselines}
    if sweep is not None:
        policies[f"best fixed {sweep['param']} ({format_value(sweep['best_value'])})"] = sweep["best_spec"]
    cached = study.user_attrs.get("ginsim_fresh")
    if cached is None or cached.get("key") != key:
        pairs = spec.budget.pairs(len(spec.opponents), spec.budget.fresh)
        cached = {"key": key, "pairs_per_opponent": pairs, "units": pairs,
                  "rows": _fresh_rows(spec, field_, chosen, policies, pairs, progress)}
        study.set_user_attr("ginsim_fresh", cached)

    optuna = _optuna()
    trials = study.get_trials(deepcopy=False)
    states = {s.name.lower(): sum(t.state == s for t in trials) for s in optuna.trial.TrialState}
    played_search = sum(int(t.user_attrs.get(spec.budget.unit, 0)) for t in trials)
    values = {p.name: best.params[p.name] for p in spec.params}
    return {
        "name": spec.name, "spec_file": spec.path, "strategy": chosen, "tuned_params": values,
        "objective": spec.objective, "objective_text": OBJECTIVE_TEXT[spec.objective],
        "rules": spec.rules, "rules_label": spec.rules_label,
        "opponents": [{"strategy": s, "weight": w} for s, w in spec.opponents],
        "budget": asdict(spec.budget),
        "rungs": [2 * len(spec.opponents) * r for r in spec.budget.rungs(len(spec.opponents))],
        "seed": spec.seed, "trials": spec.trials, "trial_states": states, "best_trial": best.number,
        "tuning_value": float(best.value), "search_played": played_search,
        "fixed_sweep": sweep, "fresh": cached, "code_fingerprint": fingerprint,
        "sampler": spec.sampler, "pruner": spec.pruner, "optuna": study.user_attrs.get("ginsim_optuna"),
        "interrupted_trials": study.user_attrs.get("ginsim_interrupted", []),
        "not_reproducible": _not_reproducible(spec, study), "description": spec.description,
    }


def _not_reproducible(spec: TuneSpec, study) -> str | None:
    """Why the study is not the one its spec and seed give from the start (it was resumed
    with another trial count), or None.  An interrupted study resumed with its own spec is
    (``simulator.studies.tune.sampler``, ``search._clear_interrupted``)."""
    counts = study.user_attrs.get("ginsim_trials", [spec.trials])
    if len(counts) == 1:
        return None
    return (f"played with trials = {', then '.join(map(str, counts))}; a tuning of trials = {spec.trials} from the "
            f"start samples and polishes at other points")


def _fresh_rows(spec: TuneSpec, field_: Field, chosen: str, policies: dict[str, str], pairs: int,
                progress: bool) -> list[dict[str, Any]]:
    """Play each distinct policy ``pairs`` mirrored pairs against every opponent on the
    fresh deals; one row per policy: its value with a 95% interval, and the chosen policy's
    paired edge over it, against the field and against each opponent."""
    from tqdm.auto import tqdm

    from ...analysis.stats.estimators import plain

    played: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    with tqdm(total=len(set(policies.values())), disable=bar_disabled(progress), unit="policy",
              desc=f"{spec.name}: fresh deals", leave=False) as bar:
        for label in policies.values():
            if label not in played:
                played[label] = field_.field_units(label, "fresh", pairs)
                bar.update(1)
    rows = []
    u0, per0 = played[chosen]
    for name, label in policies.items():
        u, per = played[label]
        value, edge = plain(u), plain(u0 - u)
        opp = []
        for i, (ospec, _) in enumerate(spec.opponents):
            against, gain = plain(per[i]), plain(per0[i] - per[i])
            opp.append({"opponent": ospec, "value": against.value, "ci": [against.low, against.high],
                        "edge": gain.value, "edge_ci": [gain.low, gain.high]})
        rows.append({"name": name, "strategy": label, "value": value.value, "ci": [value.low, value.high],
                     "se": value.se, "edge": edge.value, "edge_ci": [edge.low, edge.high],
                     "edge_se": edge.se, "per_opponent": opp})
    return rows
