"""The tuning's report: ``report.md`` and ``report.html`` with their figures, one function
per section (as ``simulator.analysis.report`` does), and the words and curves of a policy.

What a policy is in words and as a threshold by draw comes from its strategy
(``strategies.thresholds``: a module's optional ``describe`` and ``threshold``, found
through the registry); a strategy without them is named by its spec and drawn not at all.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ...analysis.rendering import atomic_write
from ...core.rules_api import max_knock_limit
from ...run.experiment import format_value
from .spec import OBJECTIVE_TEXT, TuneSpec
from .trials import _optuna

#: draws shown in the policy figure, and draws a policy's words cover
FIGURE_DRAWS = np.arange(1, 26)
WORD_DRAWS = np.arange(1, 41)


def _fmt_value(objective: str, v: float) -> str:
    """A value as the report prints it: a percentage for game-win, signed points otherwise."""
    return f"{100 * v:.2f}%" if objective == "game_win" else f"{v:+.3f}"


def _fmt_ci(objective: str, v: float, ci: list[float], edge: bool = False) -> str:
    """A value with its 95% interval in brackets (percentage points for a game-win edge)."""
    if objective == "game_win":
        scale, unit, fmt = 100, " pp" if edge else "%", "+.2f" if edge else ".2f"
        return f"{scale * v:{fmt}}{unit} [{scale * ci[0]:{fmt}}, {scale * ci[1]:{fmt}}]"
    if not all(math.isfinite(x) for x in ci):
        return f"{v:+.3f}"
    return f"{v:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]"


def threshold_curve(strategy: str, draws: np.ndarray, pickups: int, limit: int, opp_score: int = 0,
                    target: int = 100) -> np.ndarray | None:
    """The largest deadwood a spec knocks with against own draws (its strategy's
    ``threshold``, capped at the knock limit, rounded down: ``strategies.thresholds``), or
    None when its strategy provides no threshold."""
    import strategies
    from strategies.thresholds import whole_points

    s = strategies.parse_strategy(strategy)
    threshold = strategies.REGISTRY[s.name].threshold
    if threshold is None:
        return None
    values = threshold(dict(s.values), draws, limit, pickups=pickups, opp_score=opp_score, target=target)
    return whole_points(values, limit)


def describe_policy(strategy: str, rules) -> str:
    """The knock rule of a spec in plain words under ``rules``: its strategy's
    ``describe``, else its threshold curve in words, else the spec itself."""
    import strategies
    from strategies.thresholds import describe_curve

    s = strategies.parse_strategy(strategy)
    info = strategies.REGISTRY[s.name]
    if info.describe is not None:
        return info.describe(dict(s.values), rules)
    limit = max_knock_limit(rules)
    base = threshold_curve(strategy, WORD_DRAWS, 0, limit)
    return strategy if base is None else describe_curve(base, limit)


def tune_findings(result: dict[str, Any], rules) -> list[str]:
    """The tuning report's headline findings: the best policy found, its value against the
    field on fresh deals and its paired edge over each baseline, with 95% intervals."""
    objective, rows = result["objective"], result["fresh"]["rows"]
    items = [f"Best policy found: {result['strategy']} — {describe_policy(result['strategy'], rules)}.",
             f"On fresh deals its {result['objective_text']} against the field is "
             f"{_fmt_ci(objective, rows[0]['value'], rows[0]['ci'])} ({result['fresh']['units']:,} units)."]
    items += [f"Edge over {r['name']} ({r['strategy']}): {_fmt_ci(objective, r['edge'], r['edge_ci'], True)}"
              + (" — better" if r["edge_ci"][0] > 0 else " — worse" if r["edge_ci"][1] < 0 else
                 " — no detectable difference") + "." for r in rows[1:]]
    return items


def _trial_table(study, spec: TuneSpec):
    """Per trial: number, state, value (final or last rung), deals played, params."""
    import pandas as pd

    optuna = _optuna()
    rows = []
    for t in study.get_trials(deepcopy=False):
        if t.state == optuna.trial.TrialState.COMPLETE:
            value = t.value
        elif t.intermediate_values:
            value = t.intermediate_values[max(t.intermediate_values)]
        else:
            value = np.nan
        rows.append({"trial": t.number, "state": t.state.name.lower(), "value": value,
                     "played": int(t.user_attrs.get(spec.budget.unit, 0)), "repeat": "same_as" in t.user_attrs,
                     **t.params})
    return pd.DataFrame(rows)


def _importances(study, spec: TuneSpec) -> tuple[dict[str, float], int]:
    """Parameter importance (Optuna's default evaluator, PED-ANOVA) over every trial that
    finished its first rung, scored by its first-rung value (the same deals for all)."""
    optuna = _optuna()
    if len(spec.params) == 1:
        return {spec.params[0].name: 1.0}, 0
    first_step = 2 * len(spec.opponents) * spec.budget.rungs(len(spec.opponents))[0]
    trials = []
    for t in study.get_trials(deepcopy=False):
        if t.state == optuna.trial.TrialState.COMPLETE and not t.intermediate_values:
            value = t.value  # a single-rung budget
        elif first_step in t.intermediate_values:
            value = t.intermediate_values[first_step]
        else:
            continue
        trials.append(optuna.trial.create_trial(params=t.params, distributions=t.distributions, value=value))
    if len(trials) < 3:
        return {}, len(trials)
    shadow = optuna.create_study(direction="maximize")
    shadow.add_trials(trials)
    try:
        return dict(optuna.importance.get_param_importances(shadow)), len(trials)
    except (ValueError, RuntimeError, ZeroDivisionError):
        return {}, len(trials)



def write_report(spec: TuneSpec, study, result: dict[str, Any], out: Path) -> list[Path]:
    """``report.md`` and ``report.html`` in ``out``, section by section, with the figures
    they show; returns the files written."""
    from ...analysis.rendering import Document, findings_section
    from ...core.rules import resolve_rules

    rules = resolve_rules(dict(spec.rules))
    trials = _trial_table(study, spec)
    pngs: list[Path] = []
    doc = Document()
    doc.h(1, f"ginsim tune: {spec.name}")
    if spec.description:
        doc.p(spec.description)
    findings_section(doc, tune_findings(result, rules),
                     "The tuned policy and its result on fresh deals, which the search never saw, with 95% "
                     "confidence intervals in brackets.")
    _about_section(doc, spec, result)
    _fresh_section(doc, spec, result, out, pngs)
    _opponents_section(doc, spec, result)
    _policy_section(doc, spec, result, rules, out, pngs)
    _sweep_section(doc, spec, result)
    _search_section(doc, spec, result, trials, out, pngs)
    _importance_section(doc, spec, study, out, pngs)
    _top_trials_section(doc, spec, trials)
    md, htm = out / "report.md", out / "report.html"
    atomic_write(md, doc.markdown())
    atomic_write(htm, doc.html(f"ginsim tune: {spec.name}"))
    return [md, htm, *pngs]


def _about_section(doc, spec: TuneSpec, result: dict[str, Any]) -> None:
    """What was tuned, against whom, how the search went and how much it played."""
    unit, fresh, states = spec.budget.unit, result["fresh"], result["trial_states"]
    doc.h(2, "About this tuning")
    doc.ul([
        f"Spec file: {spec.path}; rules: {spec.rules_label}; objective: {OBJECTIVE_TEXT[spec.objective]} against "
        f"the field (weighted mean), maximised.",
        "Field: " + ", ".join(f"{s} (weight {format_value(w)})" for s, w in spec.opponents) + ".",
        f"Search: {sum(states.values())} trials ({spec.trials} sampled or seeded, "
        f"{sum(states.values()) - spec.trials} in up to {spec.polish} polish rounds; "
        f"{states.get('complete', 0)} complete, "
        f"{states.get('pruned', 0)} pruned, {states.get('fail', 0)} failed), "
        f"sampler {spec.sampler}, pruner {spec.pruner}; rungs of "
        + ", ".join(f"{r:,}" for r in result["rungs"]) + f" {unit} per candidate (reduction factor "
        f"{spec.budget.reduction}); {result['search_played']:,} {unit} played in the search.",
        f"Fresh comparison: {2 * fresh['pairs_per_opponent'] * len(spec.opponents):,} {unit} per policy "
        f"({fresh['pairs_per_opponent']:,} mirrored pairs against each opponent), on seeds never used in the search.",
        f"Seed {spec.seed}; code fingerprint {result['code_fingerprint']}; "
        f"{result['seconds_total']:.0f} s of tuning in total.",
        *([f"Resumed after an interruption in trial(s) {', '.join(map(str, result['interrupted_trials']))}: each "
           f"was played again under its own number, so the trials are those of an uninterrupted tuning."]
          if result["interrupted_trials"] else []),
        *([f"**Not reproducible from its spec and seed**: {result['not_reproducible']}."]
          if result["not_reproducible"] else []),
    ])


def _fresh_section(doc, spec: TuneSpec, result: dict[str, Any], out: Path, pngs: list[Path]) -> None:
    """Every policy's value on the fresh deals and the tuned policy's paired edge over each,
    as a table and a figure (``edges.png``)."""
    import pandas as pd

    from ...analysis.rendering import new_figure, save_figure

    objective, unit, fresh = spec.objective, spec.budget.unit, result["fresh"]
    rows = fresh["rows"]
    doc.h(2, "Fresh-seed comparison")
    doc.p(f"Each policy plays the same fresh {unit} against the same field. 'value' is its "
          f"{OBJECTIVE_TEXT[objective]} against the field; 'edge of tuned' is the tuned policy's value minus this "
          f"policy's, a paired mean over {fresh['units']:,} units (unit p: the weighted field mean of mirrored pair "
          f"p), with its 95% Student t interval. An edge whose interval lies above zero means the tuned policy is "
          f"better on fresh deals; selection bias cannot produce it.")
    doc.table(pd.DataFrame([{
        "strategy": r["name"], "spec": r["strategy"],
        "value [95% CI]": _fmt_ci(objective, r["value"], r["ci"]),
        "edge of tuned [95% CI]": "–" if r["name"] == "tuned" else _fmt_ci(objective, r["edge"], r["edge_ci"], True),
    } for r in rows]))
    fig = new_figure(7.5, 0.6 + 0.55 * max(1, len(rows) - 1))
    ax = fig.add_subplot()
    scale = 100.0 if objective == "game_win" else 1.0
    base_rows = rows[1:]
    ys = np.arange(len(base_rows))
    for y, r in zip(ys, base_rows):
        ax.errorbar(scale * r["edge"], y, xerr=[[scale * (r["edge"] - r["edge_ci"][0])],
                                                [scale * (r["edge_ci"][1] - r["edge"])]],
                    fmt="o", color="#4C72B0", capsize=4)
    ax.axvline(0, color="#888", ls="--", lw=1)
    ax.set_yticks(ys, [r["name"] for r in base_rows])
    ax.invert_yaxis()
    ax.set_xlabel("edge of the tuned policy (" + ("percentage points of game-win probability" if objective == "game_win"
                                                  else "net points per hand") + ")")
    ax.set_title("Tuned policy against each baseline, fresh deals")
    pngs.append(save_figure(fig, out / "edges.png"))
    doc.fig(pngs[-1], "Edge of the tuned policy over each baseline",
            "Edge of the tuned policy over each baseline on the same fresh deals, with paired 95% confidence "
            "intervals. Right of the dashed line the tuned policy is better.")


def _opponents_section(doc, spec: TuneSpec, result: dict[str, Any]) -> None:
    """The tuned policy's value against each opponent, and its edge over each baseline there."""
    import pandas as pd

    objective, rows = spec.objective, result["fresh"]["rows"]
    doc.h(3, "Against each opponent")
    opp_rows = []
    for i, (ospec, w) in enumerate(spec.opponents):
        row = {"opponent": ospec, "weight": format_value(w),
               "tuned [95% CI]": _fmt_ci(objective, rows[0]["per_opponent"][i]["value"],
                                         rows[0]["per_opponent"][i]["ci"])}
        for r in rows[1:]:
            o = r["per_opponent"][i]
            row[f"edge over {r['name']}"] = _fmt_ci(objective, o["edge"], o["edge_ci"], True)
        opp_rows.append(row)
    doc.table(pd.DataFrame(opp_rows))


def _policy_section(doc, spec: TuneSpec, result: dict[str, Any], rules, out: Path, pngs: list[Path]) -> None:
    """The tuned policy: its threshold by draw beside the baselines' (``policy.png``, when
    its strategy provides a threshold) and its parameter values."""
    import pandas as pd

    doc.h(2, "The policy")
    limit = max_knock_limit(rules)
    if threshold_curve(result["strategy"], FIGURE_DRAWS, 0, limit) is not None:
        pngs.append(_policy_figure(result, rules, limit, out))
        doc.fig(pngs[-1], "The tuned knock threshold against draws",
                f"The largest deadwood the tuned policy knocks with, against the number of cards it has drawn in "
                f"the hand (capped at the knock limit {limit}; gin is always knocked), with the baselines dotted.")
    values = [{"parameter": p.name, "range": f"{format_value(p.low)} .. {format_value(p.high)}"
               + (f" step {format_value(p.step)}" if p.step else "") + (" (log)" if p.log else ""),
               "tuned": format_value(result["tuned_params"][p.name])} for p in spec.params]
    values += [{"parameter": k, "range": "fixed", "tuned": format_value(v)} for k, v in spec.fixed.items()]
    doc.table(pd.DataFrame(values))


def _policy_figure(result: dict[str, Any], rules, limit: int, out: Path) -> Path:
    """``policy.png``: the tuned threshold by draw, again for 1–3 cards the opponent took from
    the pile and with the opponent near the target when those curves differ, and the
    baselines' thresholds dotted."""
    from ...analysis.rendering import new_figure, save_figure

    strategy, draws, target = result["strategy"], FIGURE_DRAWS, rules.target_score
    base = threshold_curve(strategy, draws, 0, limit)
    took = {p: threshold_curve(strategy, draws, p, limit) for p in (1, 2, 3)}
    pickups = [0, 1, 2, 3] if any((c != base).any() for c in took.values()) else [0]
    fig = new_figure(7.5, 4.2)
    ax = fig.add_subplot()
    for p in pickups:
        ax.step(draws, base if p == 0 else took[p], where="post", lw=2 if p == 0 else 1.2,
                label="tuned" + (f", opponent took {p} pile card{'s' if p != 1 else ''}" if len(pickups) > 1 else ""))
    near = threshold_curve(strategy, draws, 0, limit, opp_score=target - 1, target=target)
    if (near != base).any():
        ax.step(draws, near, where="post", ls="--", lw=1.2, label="tuned, opponent near the target")
    for r in result["fresh"]["rows"][1:]:
        other = threshold_curve(r["strategy"], draws, 0, limit)
        if other is not None:
            ax.step(draws, other, where="post", ls=":", lw=1.2, label=r["name"])
    ax.set_xlabel("cards this player has drawn in the hand")
    ax.set_ylabel("largest deadwood it knocks with (points)")
    ax.set_ylim(-0.5, max(limit, 1) + 0.5)
    ax.set_title("Knock threshold against draws")
    ax.legend(fontsize=8, loc="upper right")
    return save_figure(fig, out / "policy.png")


def _sweep_section(doc, spec: TuneSpec, result: dict[str, Any]) -> None:
    """The fixed-threshold sweep's value at each threshold on the tuning deals."""
    import pandas as pd

    sw = result["fixed_sweep"]
    if sw is None:
        return
    unit, objective = spec.budget.unit, spec.objective
    doc.h(3, f"Fixed {sw['param']} on the tuning {unit}")
    doc.p(f"`{sw['strategy']}` with {sw['param']} fixed, each at the full budget on the tuning {unit} "
          f"(the same as every complete trial). The best, {sw['param']} = {format_value(sw['best_value'])}, "
          f"is the 'best fixed' baseline.")
    doc.table(pd.DataFrame([{sw["param"]: k, OBJECTIVE_TEXT[objective]: _fmt_value(objective, v)}
                            for k, v in sw["values"].items()]))


def _search_section(doc, spec: TuneSpec, result: dict[str, Any], trials, out: Path, pngs: list[Path]) -> None:
    """Convergence: every trial's value on the tuning deals and the best so far (``convergence.png``)."""
    from ...analysis.rendering import new_figure, save_figure

    objective, what, unit = spec.objective, OBJECTIVE_TEXT[spec.objective], spec.budget.unit
    scale = 100.0 if objective == "game_win" else 1.0
    doc.h(2, "Search")
    fig = new_figure(7.5, 4.0)
    ax = fig.add_subplot()
    complete = trials[trials["state"] == "complete"]
    pruned = trials[trials["state"] == "pruned"]
    ax.scatter(pruned["trial"], scale * pruned["value"], facecolors="none", edgecolors="#999", s=18,
               label="pruned (value at its last rung)")
    ax.scatter(complete["trial"], scale * complete["value"], color="#4C72B0", s=22, label="complete (full budget)")
    if len(complete):
        best_so_far = complete.set_index("trial")["value"].cummax()
        ax.step(best_so_far.index, scale * best_so_far.to_numpy(), where="post", color="#C44E52", label="best so far")
    if result["fixed_sweep"] is not None:
        ax.axhline(scale * result["fixed_sweep"]["best_tuning"], color="#55A868", ls=":", lw=1.2,
                   label="best fixed threshold")
    ax.set_xlabel("trial")
    ax.set_ylabel(what + (" (%)" if objective == "game_win" else " against the field"))
    ax.set_title("Convergence: objective by trial on the tuning deals")
    ax.legend(fontsize=8)
    pngs.append(save_figure(fig, out / "convergence.png"))
    doc.fig(pngs[-1], "Convergence",
            f"The objective of every trial on the tuning {unit} (complete trials at the full budget, pruned ones "
            f"at the last rung they finished), and the best complete trial so far. These values are "
            f"selection-biased upwards; the fresh-seed comparison above is not.")


def _importance_section(doc, spec: TuneSpec, study, out: Path, pngs: list[Path]) -> None:
    """Optuna's parameter importance over the trials' first-rung values (``importance.png``)."""
    from ...analysis.rendering import new_figure, save_figure

    importance, n_imp = _importances(study, spec)
    if not importance:
        doc.p(f"Parameter importance needs at least three trials that finished the first rung ({n_imp} did).")
        return
    fig = new_figure(6.5, 0.8 + 0.4 * len(importance))
    ax = fig.add_subplot()
    names = list(importance)[::-1]
    ax.barh(names, [importance[n] for n in names], color="#4C72B0")
    ax.set_xlabel("importance (share, sums to 1)")
    ax.set_title("Parameter importance")
    pngs.append(save_figure(fig, out / "importance.png"))
    doc.fig(pngs[-1], "Parameter importance",
            "Optuna's parameter importance (PED-ANOVA) over " + (f"{n_imp} trials scored by their first-rung "
            "value (every trial plays those same deals)" if n_imp else "the one tuned parameter") + ".")


def _top_trials_section(doc, spec: TuneSpec, trials) -> None:
    """The ten best trials that played (repeats of a policy already played left out)."""
    import pandas as pd

    objective, unit = spec.objective, spec.budget.unit
    top = trials[~trials["repeat"]].drop(columns="repeat")
    top = top.sort_values("value", ascending=False, na_position="last").head(10)
    top = top.assign(value=top["value"].map(lambda v: _fmt_value(objective, v) if pd.notna(v) else "–"),
                     played=top["played"].map(lambda v: f"{v:,}"))
    repeats = int(trials["repeat"].sum())
    doc.p(f"The ten best trials (value: at the full budget for complete trials, else at the last rung; {unit}: "
          f"{unit} played). {repeats} trial(s) proposed a policy already played and took its values without "
          f"playing; they are left out here.")
    doc.table(top.rename(columns={"played": unit}))
