"""An equilibrium knock policy by double oracle: ``ginsim equilibrium SPEC.toml``.

An equilibrium spec (TOML; its keys are declared in ``SCHEMA``, whose table is in
docs/equilibrium.md)::

    name = "equilibrium_knock_tournament"   # names the study (and the default out directory)
    description = "..."                      # optional, goes into the report
    rules = "tournament"                     # a preset name, or a table: [rules] preset = ..., field = ...
    objective = "net_per_hand"               # or "game_win" (whole games)
    seed = 20261202                          # every stream of the study derives from it
    out = "results/equilibrium_knock/tournament"   # optional; default results/<name>; --out overrides
    start = ["simple"]                       # the restricted set to begin with (distinct strategy specs)
    max_iterations = 6                       # best responses at most (raise it and --resume to go on)
    tolerance = 0.0                          # converged when a best response's interval reaches this
    matrix_deals = 100_000                   # per payoff-matrix entry (matrix_games for game_win)
    compare_deals = 200_000                  # per compared policy against the equilibrium (compare_games)

    [compare]                                # optional: policies measured against the equilibrium
    "knock as soon as legal" = "simple"
    "field-tuned" = "knock_policy:early=10,turn_a=4,late=0,turn_b=2"

    [family]                                 # optional: the best responses' family (default: knock_policy)
    strategy = "knock_policy"                # a tuning spec's keys without name, rules and the field
    ...                                      # (simulator.studies.exploit)

How it goes (``equilibrium``), iteration k = 0, 1, ...:

1. **Payoff matrix** of the restricted set on mirrored deals (``metagame.payoff_matrix``):
   each entry on ``matrix_deals`` deals of the column policy's stream, with its paired 95%
   interval; entries already played are kept and never played again.
2. **Nash equilibrium** of the symmetric zero-sum meta-game by linear programming
   (``metagame.symmetric_nash``): the mixture and the game value (0 for a symmetric game).
3. **Best response** to the mixture within the family: ``ginsim tune`` against the field of
   the mixture's support weighted by the mixture (``exploit.best_response``, into
   ``OUT/br_<k>``), with its fresh-deal edge against the mixture and the paired interval.
4. Converged when that interval reaches down to ``tolerance`` (the best response gains no
   more than the noise) or the best response is already in the set; else it joins the set.

The last best response's edge is the **exploitability bound**: how much the best policy the
search found wins against the equilibrium mixture (a lower bound on the mixture's
exploitability within the family).  Then each ``[compare]`` policy plays the mixture on fresh
deals: its value against the equilibrium (negative: what it loses), with the paired interval.

``OUT`` is locked for the whole run (``simulator.run.rundir.RunLock``) and every step is kept
in ``OUT/equilibrium.json`` as it finishes, each best response's tuning in its own resumable
study, so a run killed in any way continues with ``--resume``, playing nothing twice.
Resuming with another spec (``max_iterations`` and the words aside) is refused.  Every
problem with a spec is a one-line ``EquilibriumError`` naming the file and the key, before
anything is written.  Outputs: ``equilibrium.json`` (everything) and ``report.md``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.rendering import atomic_write
from ..infra.inputs import outside_work
from ..run.config import Key, Schema
from ..run.experiment import read_toml_file
from ..run.limits import MAX_PER_CELL, RESULTS_DIR, SEED_LIMIT
from .exploit import best_response, check_family, default_family, response_spec
from .metagame import Response, double_oracle, payoff_matrix
from .tune import OBJECTIVE_TEXT, OBJECTIVES, TuneError
from .tune.spec import SCHEMA as TUNE_SCHEMA
from .tune.spec import SHARED_HEAD
from ..run.seeds import offset_seed

STATE = "equilibrium.json"
MARK = "written by ginsim equilibrium"
#: at most this many iterations (each one a tuning)
MAX_ITERATIONS = 100


class EquilibriumError(TuneError):
    """A bad equilibrium spec or output directory: one line naming the file and the key."""


@dataclass(frozen=True)
class EquilibriumSpec:
    """A validated equilibrium spec (``parse_equilibrium``)."""
    name: str
    path: str
    rules: Any
    rules_label: str
    objective: str
    seed: int
    start: tuple[str, ...]
    max_iterations: int
    tolerance: float
    matrix_units: int
    compare_units: int
    compare: dict[str, str]
    family: dict[str, Any]
    out: str | None = None
    description: str = ""
    base: str | None = field(default=None, compare=False)

    def identity(self) -> dict[str, Any]:
        """What a resumed run must agree on: everything but the iteration cap, the output
        place and the words."""
        d = json.loads(json.dumps(asdict(self)))
        for key in ("max_iterations", "out", "path", "description", "base"):
            d.pop(key)
        return d

    def response_spec(self, k: int, field_: list[tuple[str, float]]):
        """The tuning spec of iteration ``k``'s best response to ``field_``."""
        return response_spec(self.family, f"{self.name}_br{k}", self.rules, self.objective, offset_seed(self.seed, k), field_,
                             f"{self.path}: family", None if self.base is None else Path(self.base))

    def matrix_spec(self):
        """A tuning spec that carries the rules, objective and seed for ``payoff_matrix``."""
        return self.response_spec(0, [(self.start[0], 1.0)])


def load_equilibrium(path: str | Path) -> EquilibriumSpec:
    """Read and validate an equilibrium spec; every problem is a one-line ``EquilibriumError``."""
    path = Path(path)
    data = read_toml_file(path, "an equilibrium spec", EquilibriumError)
    return parse_equilibrium(data, str(path), path.parent)


def _start(value: list, values: dict[str, Any], fail) -> tuple[str, ...]:
    """``start``: distinct strategy specs, each as its label."""
    import strategies

    if not value or not all(isinstance(s, str) for s in value):
        raise fail("start", "must be a non-empty list of strategy specs, e.g. [\"simple\"]")
    canonical: list[str] = []
    for i, s in enumerate(value):
        try:
            c = strategies.parse_strategy(s).label
        except ValueError as exc:
            raise fail(f"start[{i}]", str(exc)) from None
        if c in canonical:
            raise fail(f"start[{i}]", f"{c!r} is already in the set")
        canonical.append(c)
    return tuple(canonical)


def _out(value: str | None, values: dict[str, Any], fail) -> str | None:
    if value is not None and not value.strip():
        raise fail("out", f"must name a directory inside the current directory, got {value!r}")
    problem = None if value is None else outside_work(value)  # a spec never writes outside the working directory
    if problem:
        raise fail("out", f"must be a directory inside the current directory: {problem}")
    return value


def _compare(value: dict[str, Any], values: dict[str, Any], fail) -> dict[str, str]:
    """``[compare]``: label = strategy spec, each as its label."""
    import strategies

    compared = {}
    for label, s in value.items():
        if not isinstance(s, str):
            raise fail(f"compare.{label}", "must be a strategy spec such as \"simple\"")
        try:
            compared[label] = strategies.parse_strategy(s).label
        except ValueError as exc:
            raise fail(f"compare.{label}", str(exc)) from None
    return compared


def _size(name: str, default: int, help: str) -> Key:
    """``matrix_deals`` and the like: mirrored pairs in deals (or games), given only for the
    objective's unit (``net_per_hand`` plays deals, ``game_win`` games)."""
    unit = name.split("_")[1]

    def check(value: int | None, values: dict[str, Any], fail) -> int | None:
        plays = OBJECTIVES[values["objective"]]
        if value is not None and plays != unit:
            raise fail(name, f"objective {values['objective']} plays {plays}: give {name.replace(unit, plays)}")
        if value is not None and value % 2:
            raise fail(name, f"must be an even integer from 4 to {MAX_PER_CELL:,} (mirrored pairs), got {value!r}")
        return value

    return Key(name, "int", None, help, low=4, high=MAX_PER_CELL, check=check,
               text=f"an even integer from 4 to {MAX_PER_CELL:,} (mirrored pairs)", default_text=f"{default:,}",
               doc=f"Only with the objective that plays {unit}.")


def _family(value: dict[str, Any] | None, values: dict[str, Any], fail) -> dict[str, Any] | None:
    if value is not None:
        try:
            check_family(value, f"{values['_where']}: family")
        except TuneError as exc:
            raise EquilibriumError(str(exc)) from None
    return value


#: every key of an equilibrium spec, in the order they are checked (the keys it shares with a
#: tuning spec are the tuning schema's own declarations)
SCHEMA = Schema("equilibrium", (
    *(TUNE_SCHEMA[k] for k in SHARED_HEAD),
    Key("seed", "int", 0, "the study's seed: the matrix, each best response's tuning (seed + k for iteration k) "
        "and the comparisons derive from it", low=0, high=SEED_LIMIT - MAX_ITERATIONS - 1,
        text=f"an integer from 0 to 2**63 - {MAX_ITERATIONS + 1}", got=False),
    Key("out", "str", None, "the output directory (`--out` overrides)", check=_out,
        text="a directory inside the current directory", default_text="`results/<name>`"),
    Key("start", "list", ["simple"], "the restricted set to begin with", check=_start,
        text="a non-empty list of distinct strategy specs"),
    Key("max_iterations", "int", 6, "best responses at most (raise it and `--resume` to go on)", low=1,
        high=MAX_ITERATIONS),
    Key("tolerance", "number", 0.0, "converged when a best response's interval reaches down to this", low=0),
    _size("matrix_deals", 100_000, "deals per payoff-matrix entry"),
    _size("matrix_games", 10_000, "games per payoff-matrix entry"),
    _size("compare_deals", 200_000, "deals per compared policy against the equilibrium"),
    _size("compare_games", 20_000, "games per compared policy against the equilibrium"),
    Key("compare", "table", {}, "policies measured against the equilibrium: `label = \"strategy spec\"`",
        text='a table of label = "strategy spec"', check=_compare, got=False),
    Key("family", "table", None, "the best responses' family: a tuning spec's keys without name, rules and "
        "the field (`simulator.studies.exploit`)", check=_family, got=False,
        default_text="knock_policy's thresholds (`exploit.default_family`)"),
))
#: the default sizes, in mirrored-pair units of the objective's unit
DEFAULT_UNITS = {"deals": {"matrix": 100_000, "compare": 200_000}, "games": {"matrix": 10_000, "compare": 20_000}}


def parse_equilibrium(data: dict[str, Any], where: str = "<spec>", base: Path | None = None) -> EquilibriumSpec:
    """Validate an equilibrium spec given as a dict (the parsed TOML) by ``SCHEMA``; the
    first problem is raised as a one-line ``EquilibriumError``."""
    from ..core.rules_api import max_knock_limit

    def fail(key: str, message: str) -> EquilibriumError:
        return EquilibriumError(f"{where}: {key}: {message}")

    v = SCHEMA.read(data, fail, values={"_where": where, "_base": base})
    objective = v["objective"]
    unit = OBJECTIVES[objective]
    table, _, resolved = v["rules"]
    # the label equilibrium.json has always recorded (a resumed run's spec must be the same)
    label = str(table.get("preset", "custom")) + "".join(f", {k}={x}" for k, x in table.items() if k != "preset")
    units = {which: v[f"{which}_{unit}"] or DEFAULT_UNITS[unit][which] for which in ("matrix", "compare")}
    family = v["family"] if v["family"] is not None else default_family(max_knock_limit(resolved), objective)
    spec = EquilibriumSpec(name=v["name"], path=where, rules=data.get("rules", "hoyle"), rules_label=label,
                           objective=objective, seed=v["seed"], start=v["start"],
                           max_iterations=v["max_iterations"], tolerance=float(v["tolerance"]),
                           matrix_units=units["matrix"], compare_units=units["compare"], compare=v["compare"],
                           family=family, out=v["out"], description=v["description"],
                           base=None if base is None else str(base))
    try:
        spec.matrix_spec()  # the family must make a valid tuning spec (its errors name the family's key)
    except TuneError as exc:
        raise EquilibriumError(str(exc)) from None
    return spec


def out_dir(spec: EquilibriumSpec, out: str | Path | None = None) -> Path:
    """Where ``equilibrium`` writes: ``out``, else the spec's ``out``, else ``results/<name>``."""
    return Path(out if out is not None else (spec.out or Path(RESULTS_DIR) / spec.name))


def _check_out(out: Path, resume: bool, locked: bool = True) -> dict[str, Any] | None:
    """The kept state of a run in ``out`` (None for a new run); refuses a directory that holds
    something else, or a run when --resume was not given (``rundir.kept_state``)."""
    from ..run.rundir import kept_state

    return kept_state(out, resume, STATE, MARK, EquilibriumError, "an equilibrium run", locked)


def equilibrium(spec: EquilibriumSpec, out: str | Path | None = None, resume: bool = False, progress: bool = False,
                log=None) -> dict[str, Any]:
    """Run (or resume) the double oracle of ``spec`` into ``out``; returns the result (what
    ``equilibrium.json`` holds)."""
    from ..run.rundir import locked_output
    from ..run.seeds import development_seed_error

    refusal = development_seed_error(spec.seed, f"ginsim equilibrium {spec.name}")
    if refusal:
        raise EquilibriumError(refusal)
    out = out_dir(spec, out)
    _check_out(out, resume, locked=False)
    return locked_output(out, f"ginsim equilibrium {spec.path}", EquilibriumError,
                         lambda: _run_locked(spec, out, resume, progress, log or (lambda text: None)))


def _run_locked(spec: EquilibriumSpec, out: Path, resume: bool, progress: bool, log) -> dict[str, Any]:
    """The double oracle once ``out`` is locked: the kept state read (and checked against
    the spec), what is left played, each step kept as it finishes, the report written."""
    import strategies

    from ..engine.select import will_play
    from .tune import tune_sids

    state = _check_out(out, resume) or {"_": MARK, "spec": spec.identity(), "entries": {}, "history": [],
                                        "responses": {}, "compare": {}, "seconds": 0.0}
    if state["spec"] != spec.identity():
        raise EquilibriumError(f"{out} holds a run of a different spec; cannot --resume it with {spec.path}")
    started = time.perf_counter()
    atomic_write(out / STATE, json.dumps(state, indent=1) + "\n")  # a run killed from here on resumes
    base = spec.matrix_spec()
    will_play(tune_sids([base]) | {strategies.parse_strategy(s).sid for s in (*spec.start, *spec.compare.values())})

    played = []  # a step played in this session (a resume that plays nothing adds no time)

    def save() -> None:
        played.append(True)
        atomic_write(out / STATE, json.dumps(state, indent=1) + "\n")

    def solve(policies: list[str]) -> np.ndarray:
        log(f"{spec.name}: payoff matrix of {len(policies)} policies")
        matrix, _ = payoff_matrix(base, policies, spec.matrix_units // 2, state["entries"], save)
        return matrix

    def respond(policies: list[str], mixture: np.ndarray, k: int) -> Response:
        kept = state["responses"].get(str(k))
        if kept is None:
            support = [(p, float(w)) for p, w in zip(policies, mixture) if w > 1e-9]
            log(f"{spec.name}: best response {k} to {', '.join(f'{w:.3f} {p}' for p, w in support)}")
            br = best_response(spec.response_spec(k, support), out / f"br_{k}", resume=True, progress=progress,
                               log=log)
            kept = {**br, "out": f"br_{k}", "field": support}
            state["responses"][str(k)] = kept
            save()
        return Response(kept["policy"], kept["edge"], kept["low"], kept["high"])

    def keep(history: list[dict[str, Any]]) -> None:
        state["history"] = history
        save()

    result = double_oracle(list(spec.start), solve, respond, spec.max_iterations, spec.tolerance,
                           state["history"], keep)
    support = [(p, float(w)) for p, w in zip(result["policies"], result["mixture"]) if w > 1e-9]
    _compare(spec, state, support, save, log)
    if played:
        state["seconds"] = float(state["seconds"]) + time.perf_counter() - started
    final = _result(spec, state, result, support)
    state["result"] = final
    save()
    write_report(spec, final, out)
    return final


def _compare(spec: EquilibriumSpec, state: dict[str, Any], support: list[tuple[str, float]], save, log) -> None:
    """Each ``[compare]`` policy against the equilibrium mixture on fresh deals ("compare"
    streams of the support): its value (minus the null value) with the paired 95% interval;
    kept per policy and mixture."""
    from ..analysis.stats.estimators import plain
    from .metagame import NULL_VALUE
    from .tune import Field

    key = json.dumps(support)
    if state["compare"].get("key") != key:
        state["compare"] = {"key": key, "rows": {}}
    field_ = Field(spec.response_spec(0, support))  # the support weighted by the mixture
    pairs = max(1, spec.compare_units // (2 * len(support)))
    for label, policy in spec.compare.items():
        if label in state["compare"]["rows"]:
            continue
        log(f"{spec.name}: {label} ({policy}) against the equilibrium, {pairs:,} pairs per policy of the support")
        units, per = field_.field_units(policy, "compare", pairs)
        units = units - NULL_VALUE[spec.objective]
        e = plain(units)
        state["compare"]["rows"][label] = {"policy": policy, "value": e.value, "low": e.low,
                                           "high": e.high, "se": e.se, "pairs": int(pairs),
                                           "per_opponent": (per.mean(axis=1) - NULL_VALUE[spec.objective]).tolist()}
        save()


def _result(spec: EquilibriumSpec, state: dict[str, Any], result: dict[str, Any],
            support: list[tuple[str, float]]) -> dict[str, Any]:
    """What ``equilibrium.json``'s ``result`` holds: the mixture, the value, the
    exploitability bound, the convergence, the comparisons and the best responses."""
    from ..core.rules import resolve_rules
    from .tune import describe_policy

    rules = resolve_rules({"preset": spec.rules} if isinstance(spec.rules, str) else dict(spec.rules))
    last = result["iterations"][-1]
    history = [{"iteration": h["iteration"], "policies": h["policies"], "mixture": h["mixture"], "value": h["value"],
                "response": h["response"], "converged": h["converged"], "response_in_set": h["response_in_set"]}
               for h in result["iterations"]]
    entries = state["entries"]
    return {
        "name": spec.name, "spec_file": spec.path, "rules": spec.rules, "rules_label": spec.rules_label,
        "objective": spec.objective, "objective_text": OBJECTIVE_TEXT[spec.objective], "seed": spec.seed,
        "converged": bool(result["converged"]), "iterations": len(result["iterations"]),
        "max_iterations": spec.max_iterations, "tolerance": spec.tolerance,
        "mixture": [{"policy": p, "weight": w, "description": describe_policy(p, rules)} for p, w in support],
        "value": float(result["value"]), "policies": result["policies"], "matrix": last["matrix"],
        "matrix_entries": {k: entries[k] for k in sorted(entries, key=lambda s: tuple(map(int, s.split(","))))},
        "exploitability": {**result["exploitability"], "pairs": state["responses"][str(len(history) - 1)]["pairs"]},
        "exploitability_bound": _bound(result["exploitability"], state["compare"]["rows"]),
        "history": history, "responses": state["responses"],
        "compare": state["compare"]["rows"], "matrix_units": spec.matrix_units, "compare_units": spec.compare_units,
        "seconds_total": state["seconds"],
    }


def _bound(response: dict[str, Any], compare: dict[str, Any]) -> dict[str, Any]:
    """The exploitability bound: of the last best response and the compared policies, the one
    of the highest value against the mixture (any policy's value against it bounds its
    exploitability from below), with its interval and where it comes from."""
    candidates = [("best response", response["policy"], response["gain"], response["low"], response["high"])]
    candidates += [(label, c["policy"], c["value"], c["low"], c["high"]) for label, c in compare.items()]
    source, policy, gain, low, high = max(candidates, key=lambda c: c[2])
    return {"source": source, "policy": policy, "gain": gain, "low": low, "high": high}


def _fmt(objective: str, v: float, low: float, high: float) -> str:
    """A value with its interval: points for net points, percentage points for games."""
    if objective == "game_win":
        return f"{100 * v:+.2f} pp [{100 * low:+.2f}, {100 * high:+.2f}]"
    return f"{v:+.3f} [{low:+.3f}, {high:+.3f}]"


def write_report(spec: EquilibriumSpec, result: dict[str, Any], out: Path) -> Path:
    """``OUT/report.md``: the equilibrium in words and numbers, the matrix, the convergence."""
    from ..core.rules import describe_rules, resolve_rules
    from ..core.rules_api import max_knock_limit
    from .tune import threshold_curve

    obj = spec.objective
    unit = "points per hand" if obj == "net_per_hand" else "game-win probability, percentage points"
    ex = result["exploitability"]
    lines = [f"<!-- {MARK} from {spec.path} -->", f"# Equilibrium: {spec.name}", "",
             *([spec.description, ""] if spec.description else []),
             f"Rules: {describe_rules(result['rules'])}; objective {result['objective_text']}; family "
             f"`{spec.family.get('strategy', '?')}`; seed {spec.seed}. Double oracle "
             f"{'converged' if result['converged'] else 'did not converge'} after {result['iterations']} "
             f"iteration(s) (at most {spec.max_iterations}); game value {result['value'] + 0.0:+.4f} (0 for a "
             f"symmetric game).", "",
             "## The equilibrium mixture", "", "| weight | set index | knock rule | spec |", "|---:|---|---|---|"]
    for m in result["mixture"]:
        lines.append(f"| {m['weight']:.3f} | {result['policies'].index(m['policy'])} | {m['description']} | "
                     f"`{m['policy']}` |")
    rules = resolve_rules({"preset": spec.rules} if isinstance(spec.rules, str) else dict(spec.rules))
    limit = max_knock_limit(rules)
    draws = np.arange(0, 25, 2)
    lines += ["", "Knock threshold (largest deadwood knocked with) by own draws, no pile pickups:", "",
              "| policy | " + " | ".join(str(d) for d in draws) + " |", "|---|" + "---:|" * len(draws)]
    for m in result["mixture"]:
        curve = threshold_curve(m["policy"], draws, 0, limit)
        if curve is not None:
            lines.append(f"| {m['weight']:.3f} | " + " | ".join(str(int(c)) for c in curve) + " |")
    bound = result["exploitability_bound"]
    lines += ["", "## Exploitability and comparisons", "",
              f"Best response found to the mixture (the last iteration's), on fresh deals, {unit}: "
              f"{_fmt(obj, ex['gain'], ex['low'], ex['high'])} (`{ex['policy']}`). Exploitability bound (the "
              f"highest value against the mixture of that best response and the compared policies below; a lower "
              f"bound on the mixture's exploitability, which is at least 0): "
              f"**{_fmt(obj, bound['gain'], bound['low'], bound['high'])}**, by {bound['source']}.", "",
              "Each compared policy's value against the equilibrium mixture on fresh deals "
              "(negative: what it loses to the equilibrium), paired 95% interval over mirrored pairs:", "",
              "| policy | spec | value against the equilibrium |", "|---|---|---:|"]
    for label, row in result["compare"].items():
        lines.append(f"| {label} | `{row['policy']}` | {_fmt(obj, row['value'], row['low'], row['high'])} |")
    lines += ["", "## Convergence", "", "| iteration | set size | support | best response's gain |",
              "|---:|---:|---|---:|"]
    for h in result["history"]:
        support = ", ".join(f"{w:.2f}×{i}" for i, w in enumerate(h["mixture"]) if w > 1e-9)
        r = h["response"]
        lines.append(f"| {h['iteration']} | {len(h['policies'])} | {support} | "
                     f"{_fmt(obj, r['gain'], r['low'], r['high'])}{' (in the set)' if h['response_in_set'] else ''} |")
    lines += ["", "## The restricted set and its payoff matrix", "",
              f"Row policy's value against the column policy on {spec.matrix_units:,} mirrored "
              f"{OBJECTIVES[obj]} per entry ({unit}; 95% interval).", ""]
    for i, p in enumerate(result["policies"]):
        lines.append(f"- {i}: `{p}`")
    k = len(result["policies"])
    lines += ["", "| | " + " | ".join(str(j) for j in range(k)) + " |", "|---|" + "---:|" * k]
    entries = result["matrix_entries"]
    for i in range(k):
        cells = []
        for j in range(k):
            if i == j:
                cells.append("0")
                continue
            e = entries[f"{min(i, j)},{max(i, j)}"]
            sign = 1 if i < j else -1
            lo, hi = sorted((sign * e["low"], sign * e["high"]))
            cells.append(_fmt(obj, sign * e["estimate"], lo, hi))
        lines.append(f"| {i} | " + " | ".join(cells) + " |")
    path = out / "report.md"
    atomic_write(path, "\n".join(lines) + "\n")
    return path


def write_summary(results: list[dict[str, Any]], path: str | Path, title: str | None = None) -> Path:
    """One Markdown table over several equilibrium runs (e.g. one per rule variant): the
    equilibrium mixture in words, the exploitability bound, the convergence, and every
    compared policy's value against the equilibrium, each with its paired 95% interval."""
    path = Path(path)
    if path.exists() and MARK not in path.read_text(encoding="utf-8", errors="replace")[:400]:
        raise EquilibriumError(f"{path} exists and was not written by ginsim; move it away or choose another "
                               f"--summary")
    labels: list[str] = []
    for r in results:
        labels += [k for k in r["compare"] if k not in labels]
    lines = [f"<!-- {MARK}; rerun the equilibria to replace this file -->", f"# {title or 'Equilibrium summary'}", "",
             "One row per run of `ginsim equilibrium`. 'equilibrium' is the mixture of the double oracle's last "
             "restricted set (weight, then the policy in words); 'last best response's gain' is the last best "
             "response's value against it on fresh deals; 'exploitability bound' is the highest value against it "
             "of that best response and the compared policies (a lower bound on the mixture's exploitability, "
             "which is at least 0); each further column is that policy's value against the equilibrium on fresh deals "
             "(negative: what it loses). Points per hand, or percentage points of game-win probability; paired "
             "95% intervals over mirrored pairs. Each run's own report has the payoff matrix and the convergence.",
             "", "| run | rules | objective | equilibrium | iterations | last best response's gain | "
             "exploitability bound | " + " | ".join(labels) + " |",
             "|---|---|---|---|---:|---:|---:|" + "---:|" * len(labels)]
    for r in results:
        obj = r["objective"]
        mix = "; ".join(f"{m['weight']:.2f} × {m['description']}" for m in r["mixture"])
        ex, bound = r["exploitability"], r["exploitability_bound"]
        cells = [r["name"], f"`{r['rules_label']}`", r["objective_text"], mix,
                 f"{r['iterations']}{'' if r['converged'] else ' (not converged)'}",
                 _fmt(obj, ex["gain"], ex["low"], ex["high"]),
                 _fmt(obj, bound["gain"], bound["low"], bound["high"]) + f" ({bound['source']})"]
        for label in labels:
            c = r["compare"].get(label)
            cells.append("–" if c is None else _fmt(obj, c["value"], c["low"], c["high"]))
        lines.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    atomic_write(path, "\n".join(lines) + "\n")
    return path


# ----------------------------------------------------------------------------- what ginsim equilibrium prints

def summary_lines(result: dict[str, Any], seconds: float, out: Path) -> list[str]:
    """The lines ``ginsim equilibrium`` prints for one double oracle's ``result`` (played in
    ``seconds`` into ``out``): the mixture, the last best response, the exploitability bound
    and each compared policy."""
    r, ex, bound = result, result["exploitability"], result["exploitability_bound"]
    scale, unit = (100, " pp") if r["objective"] == "game_win" else (1, "")
    state = "converged" if r["converged"] else "not converged"
    lines = [f"{r['name']}: {state} after {r['iterations']} iteration(s); game value {r['value'] + 0.0:+.4f}"]
    lines += [f"  {m['weight']:.3f}  {m['policy']}  ({m['description']})" for m in r["mixture"]]
    lines.append(f"  last best response: {scale * ex['gain']:+.4f}{unit} [{scale * ex['low']:+.4f}, "
                 f"{scale * ex['high']:+.4f}] by {ex['policy']}")
    lines.append(f"  exploitability bound: {scale * bound['gain']:+.4f}{unit} [{scale * bound['low']:+.4f}, "
                 f"{scale * bound['high']:+.4f}] by {bound['source']}")
    lines += [f"  {label} against the equilibrium: {scale * c['value']:+.4f}{unit} [{scale * c['low']:+.4f}, "
              f"{scale * c['high']:+.4f}]" for label, c in r["compare"].items()]
    lines.append(f"  ({seconds:.1f} s; report: {out / 'report.md'})")
    return lines


def json_record(result: dict[str, Any], seconds: float, out: Path) -> dict[str, Any]:
    """One double oracle's record in ``ginsim equilibrium --json`` (docs/cli.md)."""
    from ..analysis.summary import estimate

    r, ex = result, result["exploitability"]
    return {
        "name": r["name"], "out": str(out), "rules": r["rules_label"],
        "objective": r["objective"], "converged": r["converged"], "iterations": r["iterations"],
        "mixture": [{"policy": m["policy"], "weight": m["weight"]} for m in r["mixture"]], "value": r["value"],
        "exploitability": {"best_response": ex["policy"],
                           "gain": estimate(ex["gain"], ex["low"], ex["high"], ex["pairs"], "pair"),
                           "bound": r["exploitability_bound"]["gain"],
                           "bound_ci": [r["exploitability_bound"]["low"], r["exploitability_bound"]["high"]],
                           "bound_source": r["exploitability_bound"]["source"]},
        "compare": [{"label": k, "policy": c["policy"],
                     "value": estimate(c["value"], c["low"], c["high"], c["pairs"], "pair")}
                    for k, c in r["compare"].items()],
        "seconds": round(seconds, 3)}
