"""The tuning spec: ``TuneSpec`` and its parts, read and validated from TOML.

The format is in ``simulator.studies.tune`` (the package's docstring) and its keys are
declared once, in ``SCHEMA`` and its sub-tables (``simulator.run.config``: docs/tuning.md's
tables come from them: ``python -m simulator.studies.tune.docs_tables [--check]``).  ``parse_spec`` reads a spec by the declaration and raises
``TuneError`` with one line naming the file and the key, before anything is written or played.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...core.rules_api import max_knock_limit
from ...run.config import REQUIRED, Key, Schema, is_int, is_number, plugins_key, refuse_unknown, seed_key
from ...infra.inputs import outside_work
from ...run.experiment import format_value, read_toml_file
from ...run.limits import MAX_PER_CELL, PER_CELL_BITS

OBJECTIVES = {"net_per_hand": "deals", "game_win": "games"}
OBJECTIVE_TEXT = {"net_per_hand": "net points per hand", "game_win": "game-win probability"}
SAMPLERS = ("tpe", "random", "cmaes")
PRUNERS = ("successive_halving", "hyperband", "none")
DEFAULT_BASELINES = {"knock as soon as legal": "simple", "gin only": "simple:knock_at=0"}
#: the Optuna study (SQLite) in a tuning's output directory
STUDY_DB = "study.db"
#: at most this many trials (a study is a list of candidates, not a stream)
MAX_TRIALS = 100_000
#: at most this many polish rounds
MAX_POLISH = 100


class TuneError(ValueError):
    """A bad tuning spec or output directory: one line naming the file and the key."""


# ----------------------------------------------------------------------------- the spec

@dataclass(frozen=True)
class Param:
    """One tuned parameter: its range, int or float, step and log scale."""
    name: str
    kind: str  # "int" or "float"
    low: float
    high: float
    step: float | None = None
    log: bool = False


@dataclass(frozen=True)
class Budget:
    """Deals (or games) per candidate: the last rung ``total``, the first ``first``, the
    factor between rungs, and the fresh comparison's ``fresh``."""
    unit: str  # "deals" or "games"
    total: int  # per candidate at the last rung, over the whole field
    first: int  # the first rung
    reduction: int
    fresh: int  # per policy in the fresh comparison

    def pairs(self, n_opponents: int, units: int) -> int:
        """Mirrored pairs per opponent for ``units`` deals (or games) over the field."""
        return max(1, math.ceil(units / (2 * n_opponents)))

    def rungs(self, n_opponents: int) -> list[int]:
        """Pairs per opponent after each rung: first, × reduction, ..., the full budget."""
        first, last = self.pairs(n_opponents, self.first), self.pairs(n_opponents, self.total)
        out = []
        size = first
        while size < last:
            out.append(size)
            size *= self.reduction
        return out + [last]


@dataclass(frozen=True)
class FixedSweep:
    """The fixed-threshold baseline: ``strategy`` with ``param`` at each of ``values``."""
    strategy: str
    param: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class TuneSpec:
    """A validated tuning spec (``parse_spec``)."""
    name: str
    path: str
    strategy: str
    objective: str
    trials: int
    seed: int
    rules: dict[str, Any]
    rules_label: str
    params: tuple[Param, ...]
    fixed: dict[str, float]
    opponents: tuple[tuple[str, float], ...]
    budget: Budget
    baselines: dict[str, str]
    fixed_threshold: FixedSweep | None
    enqueue: tuple[dict[str, Any], ...] = ()
    sampler: str = "tpe"
    pruner: str = "successive_halving"
    polish: int = 3
    out: str | None = None
    plugins: dict[str, str] = field(default_factory=dict)
    description: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The spec as plain JSON data."""
        return json.loads(json.dumps(asdict(self)))

    def identity(self) -> dict[str, Any]:
        """What a resumed study must agree on: everything but the trial count, the output
        place and the words."""
        d = self.to_dict()
        for key in ("trials", "out", "path", "description"):
            d.pop(key)
        return d

    @property
    def weights(self) -> np.ndarray:
        """The opponents' weights, normalised to sum to 1."""
        w = np.array([wt for _, wt in self.opponents], dtype=float)
        return w / w.sum()


def _strategy_params(spec: str) -> dict[str, float]:
    """The full parameter values of a strategy spec (one-line ``ValueError`` if it is bad)."""
    import strategies

    return dict(strategies.parse_strategy(spec).values)


def load_spec(path: str | Path) -> TuneSpec:
    """Read and validate a tuning spec; every problem is a one-line ``TuneError``."""
    path = Path(path)
    where = str(path)
    data = read_toml_file(path, "a tuning spec", TuneError)
    return parse_spec(data, where, path.parent)


def parse_spec(data: dict[str, Any], where: str = "<spec>", base: Path | None = None) -> TuneSpec:
    """Validate a tuning spec given as a dict (the parsed TOML) by ``SCHEMA``, key by key in
    the order of the format, the first problem raised as a one-line ``TuneError``."""
    def fail(key: str, message: str) -> TuneError:
        return TuneError(f"{where}: {key}: {message}")

    v = SCHEMA.read(data, fail, values={"_base": base})
    table, rules_label, _ = v.pop("rules")
    return TuneSpec(path=where, rules=table, rules_label=rules_label, **v)


# ----------------------------------------------------------------------------- the keys
# Each check validates one key beyond its type (``simulator.run.config.Key.check``: the
# value, the values read so far, fail) and returns what the spec keeps; the checks between
# keys (a parameter's range within its strategy's, the budget in whole pairs against the
# field, enqueued candidates within the tuned ranges) are made here.

def _strategy(strategy: Any, values: dict[str, Any], fail) -> str:
    """``strategy``: a bare registered name."""
    if not isinstance(strategy, str) or not strategy.strip():
        raise fail("strategy", "must name the strategy to tune, e.g. \"knock_policy\"")
    if ":" in strategy:
        raise fail("strategy", "give the bare strategy name; set parameters under [params] and [fixed]")
    try:
        _strategy_params(strategy)
    except ValueError as exc:
        raise fail("strategy", str(exc)) from None
    return strategy.strip()


def _out(out: Any, values: dict[str, Any], fail) -> str | None:
    """``out``: a directory inside the current one, or None for the default."""
    if out is not None and (not isinstance(out, str) or not out.strip()):
        raise fail("out", "must name a directory")
    problem = None if out is None else outside_work(out)  # a spec never writes outside the working directory
    if problem:
        raise fail("out", f"must be a directory inside the current directory: {problem}; give another place with "
                          f"ginsim tune --out")
    return out


def _sampler(sampler: str, values: dict[str, Any], fail) -> str:
    if sampler == "cmaes":
        import importlib.util

        if importlib.util.find_spec("cmaes") is None:  # Optuna's CmaEsSampler needs it
            raise fail("sampler", "cmaes needs the 'cmaes' package: pip install cmaes")
    return sampler


def _rules(rules: Any, values: dict[str, Any], fail):
    """``rules``: a preset name or a table; (the table, its label, the resolved ``Rules``)."""
    from ...core.rules import Rules

    if isinstance(rules, str):
        table = {"preset": rules}
    elif isinstance(rules, dict):
        table = dict(rules)
    else:
        raise fail("rules", "must be " + SCHEMA["rules"].allowed)
    try:
        resolved = Rules.from_dict(table)
    except (ValueError, TypeError) as exc:
        raise fail("rules", str(exc)) from None
    label = ", ".join([str(table["preset"])] if "preset" in table else []) or "custom"
    extra = [f"{k}={v}" for k, v in table.items() if k != "preset"]
    return table, label + (" with " + ", ".join(extra) if extra else ""), resolved


def _params(params_data: dict[str, Any], values: dict[str, Any], fail) -> tuple[Param, ...]:
    """``[params]``: the search space, one ``Param`` per tuned parameter of the strategy."""
    if not params_data:
        raise fail("params", "must be " + SCHEMA["params"].allowed)
    strategy = values["strategy"]
    defaults = _strategy_params(strategy)
    params = []
    for pname, pd_ in params_data.items():
        key = f"params.{pname}"
        if pname not in defaults:
            raise fail(key, f"strategy {strategy!r} has no parameter {pname!r}; parameters: "
                            f"{', '.join(defaults) or 'none'}")
        if not isinstance(pd_, dict):
            raise fail(key, "must be a table { low = ..., high = ... }")
        params.append(_param(pname, PARAM_SCHEMA.read(pd_, fail, prefix=key + "."), key, strategy, fail))
    return tuple(params)


#: the most values a tuned parameter's ``step`` may make of its range (Optuna lists the grid)
MAX_GRID_POINTS = 1_000_000


def _param(pname: str, pd_: dict[str, Any], key: str, strategy: str, fail) -> Param:
    """One ``[params]`` entry, its keys read: low and high inside the strategy's range, an
    int's bounds and step integers, a log scale above 0 without a step."""
    import strategies
    from strategies.registry import param_problem, range_text

    low, high, step = pd_["low"], pd_["high"], pd_["step"]
    kind = pd_["type"] or ("int" if is_int(low) and is_int(high) else "float")
    if kind == "int" and not (float(low).is_integer() and float(high).is_integer()):
        raise fail(key, "an int parameter needs integer low and high")
    if not low < high:
        raise fail(key, f"low ({low}) must be below high ({high})")
    ranges = strategies.REGISTRY[strategy].ranges
    if pname in ranges and ranges[pname][2] and kind != "int":
        raise fail(key, f"{pname} is integral ({range_text(*ranges[pname])}): give integer low and high")
    for k, v in (("low", low), ("high", high)):
        problem = param_problem(pname, float(v), ranges, f" of strategy {strategy!r}")
        if problem:
            raise fail(f"{key}.{k}", problem)
    if step is not None and (not is_number(step) or step <= 0 or (kind == "int" and not float(step).is_integer())):
        raise fail(f"{key}.step", f"must be a positive {'integer' if kind == 'int' else 'number'}, got {step!r}")
    if step is not None and (high - low) / step > MAX_GRID_POINTS:
        raise fail(f"{key}.step", f"{step!r} makes {(high - low) / step:,.0f} grid points from {low} to {high}, at "
                                  f"most {MAX_GRID_POINTS:,}; give a step of at least {(high - low) / MAX_GRID_POINTS:.3g}")
    if pd_["log"] and (low <= 0 or step is not None):
        raise fail(f"{key}.log", "a log scale needs low > 0 and no step")
    return Param(pname, kind, float(low), float(high), None if step is None else float(step), pd_["log"])


def _fixed(fixed: dict[str, Any], values: dict[str, Any], fail) -> dict[str, float]:
    """``[fixed]``: parameters held at a value, neither tuned nor outside their range."""
    import strategies
    from strategies.registry import param_problem

    strategy = values["strategy"]
    defaults = _strategy_params(strategy)
    tuned = {p.name for p in values["params"]}
    for pname, value in fixed.items():
        if pname not in defaults:
            raise fail(f"fixed.{pname}", f"strategy {strategy!r} has no parameter {pname!r}; parameters: "
                                         f"{', '.join(defaults)}")
        if pname in tuned:
            raise fail(f"fixed.{pname}", "is also under [params]: a parameter is either tuned or fixed")
        if not is_number(value):
            raise fail(f"fixed.{pname}", f"must be a finite number, got {value!r}")
        problem = param_problem(pname, float(value), strategies.REGISTRY[strategy].ranges,
                                f" of strategy {strategy!r}")
        if problem:
            raise fail(f"fixed.{pname}", problem)
    return {k: float(v) for k, v in fixed.items()}


def _opponents(opponents_data: list, values: dict[str, Any], fail) -> tuple[tuple[str, float], ...]:
    """``[[opponents]]``: the field, each a distinct canonical spec with a positive weight."""
    if not opponents_data:
        raise fail("opponents", "must be " + SCHEMA["opponents"].allowed)
    opponents: list[tuple[str, float]] = []
    for i, item in enumerate(opponents_data):
        key = f"opponents[{i}]"
        if isinstance(item, str):
            item = {"strategy": item}
        if not isinstance(item, dict):
            raise fail(key, "must be a table { strategy = \"...\", weight = ... } or a strategy spec")
        entry = OPPONENT_SCHEMA.read(item, fail, prefix=key + ".")
        if entry["strategy"] in [o for o, _ in opponents]:
            raise fail(f"{key}.strategy", f"{entry['strategy']!r} is already in the field (give it more weight "
                                          f"instead)")
        opponents.append((entry["strategy"], float(entry["weight"])))
    return tuple(opponents)


def _canonical(prefix: str):
    """A check that a strategy spec parses; it keeps the canonical spec."""
    def check(spec: str, values: dict[str, Any], fail) -> str:
        import strategies

        try:
            return strategies.parse_strategy(spec).label
        except ValueError as exc:
            raise fail(prefix, str(exc)) from None
    return check


def _budget(budget_data: Any, values: dict[str, Any], fail) -> Budget:
    """``[budget]``: deals (or games, by the objective) per candidate, the rungs and the fresh
    comparison, in whole mirrored pairs against every opponent."""
    objective = values["objective"]
    unit = OBJECTIVES[objective]
    if not isinstance(budget_data, dict):
        raise fail("budget", f"must be a table with {unit} = N (and optionally min_{unit}, reduction, fresh_{unit})")
    schema = budget_schema(unit)
    for k in budget_data:
        if k not in schema.names:
            other = "deals" if unit == "games" else "games"
            hint = f" (objective {objective} plays {unit}, not {other})" if other in k else ""
            raise fail(f"budget.{k}", f"unknown key{hint}; keys: {', '.join(sorted(schema.names))}")
    b = schema.read(budget_data, fail, prefix="budget.")
    total, fresh = b[unit], b[f"fresh_{unit}"]
    if max(total, fresh) > MAX_PER_CELL:
        raise fail("budget", f"at most 2**{PER_CELL_BITS} deals or games per candidate")
    n_opponents = len(values["opponents"])
    per = 2 * n_opponents  # mirrored pairs, the same number against each opponent
    for k, v in ((unit, total), (f"fresh_{unit}", fresh)):
        if v % per:
            down, up = max(per, v - v % per), v - v % per + per
            raise fail(f"budget.{k}", f"{v:,} is not a multiple of {per} (mirrored pairs against each of "
                                      f"{n_opponents} opponent(s)); give {down:,} or {up:,}")
    return Budget(unit, total, b[f"min_{unit}"], b["reduction"], fresh)


def _first_rung(unit: str):
    def check(first: Any, b: dict[str, Any], fail) -> int:
        total = b[unit]
        if first is None:
            return max(2, total // b["reduction"]**2)
        if not is_int(first) or not 2 <= first <= total:
            raise fail(f"budget.min_{unit}", f"must be an integer from 2 to {unit} ({total:,}), got {first!r}")
        return first
    return check


def budget_schema(unit: str) -> Schema:
    """The keys of ``[budget]`` for a tuning that plays ``unit`` (deals or games)."""
    return Schema(f"budget_{unit}", (
        Key(unit, "int", REQUIRED, f"{unit} per candidate at the last rung, over the whole field", low=2,
            doc="A multiple of 2 × the number of opponents (mirrored pairs against each)."),
        Key("reduction", "int", 3, f"each rung plays `reduction` times the {unit} of the one before", low=2),
        Key(f"min_{unit}", "any", None, f"{unit} per candidate at the first rung", type_text="integer",
            text=f"an integer from 2 to {unit}", check=_first_rung(unit),
            default_text=f"{unit} / reduction², at least 2 (three rungs)"),
        Key(f"fresh_{unit}", "int", None, f"{unit} per policy in the final comparison on fresh deals", low=4,
            check=lambda v, b, fail: b[unit] if v is None else v, default_text=f"`{unit}`",
            doc="A multiple of 2 × the number of opponents."),
    ))


def _baselines(baselines: dict[str, Any], values: dict[str, Any], fail) -> dict[str, str]:
    """``[baselines]``: label -> canonical strategy spec."""
    out = {}
    for label, spec in baselines.items():
        if not isinstance(spec, str):
            raise fail(f"baselines.{label}", "must be a strategy spec such as \"simple:knock_at=0\"")
        out[label] = _canonical(f"baselines.{label}")(spec, values, fail)
    return out


def _fixed_threshold(ft: Any, values: dict[str, Any], fail) -> FixedSweep | None:
    """``[fixed_threshold]``: the fixed-threshold sweep, or None for ``false``."""
    if ft is False:
        return None
    if not isinstance(ft, dict):
        raise fail("fixed_threshold", "must be " + SCHEMA["fixed_threshold"].allowed)
    limit = max_knock_limit(values["rules"][2])
    f = FIXED_THRESHOLD_SCHEMA.read(ft, fail, prefix="fixed_threshold.", values={"_limit": limit})
    return FixedSweep(f["strategy"], f["param"], f["values"])


def _sweep_param(param: str, f: dict[str, Any], fail) -> str:
    fvals = _strategy_params(f["strategy"])
    if param not in fvals:
        raise fail("fixed_threshold.param", f"strategy {f['strategy']!r} has no parameter {param!r}; parameters: "
                                            f"{', '.join(fvals) or 'none'}")
    return param


def _sweep_values(sweep: Any, f: dict[str, Any], fail) -> tuple[float, ...]:
    sweep = list(range(f["_limit"] + 1)) if sweep is None else sweep
    if not isinstance(sweep, list) or not sweep or not all(is_number(v) for v in sweep):
        raise fail("fixed_threshold.values", "must be a non-empty list of numbers")
    if len(set(map(float, sweep))) != len(sweep):
        raise fail("fixed_threshold.values", "values must be distinct")
    return tuple(float(v) for v in sweep)


def _sweep_strategy(spec: str, f: dict[str, Any], fail) -> str:
    try:
        _strategy_params(spec)
    except ValueError as exc:
        raise fail("fixed_threshold.strategy", str(exc)) from None
    return spec


def _enqueue(enqueue_data: Any, values: dict[str, Any], fail) -> tuple[dict[str, Any], ...]:
    """``[[enqueue]]``: candidates (or grids of them) of tuned parameters inside their
    ranges, ``"best_fixed"`` only with the sweep, at most ``trials`` in all."""
    if not isinstance(enqueue_data, list) or not all(isinstance(e, dict) for e in enqueue_data):
        raise fail("enqueue", "must be " + SCHEMA["enqueue"].allowed)
    tuned = {p.name: p for p in values["params"]}
    n_enqueued = 0
    for i, entry in enumerate(enqueue_data):
        combinations = 1
        for pname, given in entry.items():
            key = f"enqueue[{i}].{pname}"
            if pname not in tuned:
                raise fail(key, f"is not a tuned parameter; tuned: {', '.join(tuned)}")
            points = given if isinstance(given, list) else [given]
            if not points:
                raise fail(key, "an empty list enqueues nothing")
            combinations *= len(points)
            for value in points:
                if value == "best_fixed":
                    if values["fixed_threshold"] is None:
                        raise fail(key, "\"best_fixed\" needs the fixed_threshold sweep")
                    continue
                if not is_number(value):
                    raise fail(key, f"must be a number, \"best_fixed\" or a list of them, got {value!r}")
                if not tuned[pname].low <= value <= tuned[pname].high:
                    raise fail(key, f"{value} is outside [{format_value(tuned[pname].low)}, "
                                    f"{format_value(tuned[pname].high)}]")
        n_enqueued += combinations
    if n_enqueued > values["trials"]:
        raise fail("enqueue", f"enqueues {n_enqueued} candidates, more than trials ({values['trials']})")
    return tuple(enqueue_data)


# ----------------------------------------------------------------------------- the declaration

#: one ``[params]`` entry (``params.NAME = { ... }``)
PARAM_SCHEMA = Schema("params", (
    Key("low", "number", REQUIRED, "the lowest value tried", doc="Within the strategy's range of the parameter."),
    Key("high", "number", REQUIRED, "the highest value tried", doc="Above `low`, within the strategy's range."),
    Key("type", "choice", None, "whether the parameter takes integers or any number", choices=("int", "float"),
        text='"int" or "float"', default_text="`int` when `low` and `high` are integers, else `float`",
        doc="An integral parameter of the strategy is always `int`."),
    Key("step", "any", None, "the grid of values tried: `low`, `low + step` and so on", type_text="number",
        text="a positive number (an integer for an int parameter)", default_text="none: any value"),
    Key("log", "bool", False, "sample on a log scale", got=False, doc="Needs `low` > 0 and no `step`."),
))

#: one ``[[opponents]]`` entry (or a bare strategy spec, standing for ``{ strategy = SPEC }``)
OPPONENT_SCHEMA = Schema("opponents", (
    Key("strategy", "str", REQUIRED, "the opponent, a strategy spec", text='a strategy spec such as "simple"',
        got=False, check=lambda v, e, fail: _canonical(f"{e['_prefix']}strategy")(v, e, fail),
        doc="Each opponent appears once (in canonical form: `simple:knock_at=-1` is `simple`)."),
    Key("weight", "number", 1.0, "the opponent's share of the objective (normalised over the field)", gt=0),
))

#: ``[fixed_threshold]``: the best-fixed-threshold baseline
FIXED_THRESHOLD_SCHEMA = Schema("fixed_threshold", (
    Key("strategy", "str", "simple", "the strategy whose parameter is swept", text="a strategy spec", got=False,
        check=_sweep_strategy),
    Key("param", "str", "knock_at", "the parameter swept", text="a parameter of the strategy", got=False,
        check=_sweep_param),
    Key("values", "any", None, "the values tried, each at the full budget on the tuning deals",
        text="a non-empty list of distinct numbers", type_text="list of numbers", check=_sweep_values,
        default_text="0 to the largest knock limit of the rules"),
))

#: every top-level key of a tuning spec, in the order they are checked (docs/tuning.md's
#: tables are generated from these: ``python -m simulator.run.docs_tables``)
SCHEMA = Schema("tune", (
    Key("name", "name", REQUIRED, "names the study and its default output directory `results/<name>`"),
    Key("description", "str", "", "free text for the report", got=False),
    plugins_key("spec file"),
    Key("strategy", "any", REQUIRED, "the strategy whose parameters are tuned", type_text="string",
        text='a bare strategy name, e.g. "knock_policy"', check=_strategy,
        doc="Its parameters are set under `[params]` (tuned) and `[fixed]`; the others keep their defaults."),
    Key("objective", "choice", "net_per_hand", "what a candidate maximises against the field",
        choices=tuple(OBJECTIVES), doc="`net_per_hand`: net points per hand (plays deals); `game_win`: "
        "game-win probability (plays games)."),
    Key("trials", "int", REQUIRED, "candidates sampled or enqueued (raise it and `--resume` to go on)", low=1,
        high=MAX_TRIALS),
    seed_key("The tuning deals, the fresh deals and the sampler all derive from it; a development seed is "
             "refused."),
    Key("out", "any", None, "the output directory, relative to the current directory", type_text="string",
        text="a relative directory without a leading '..'", check=_out,
        default_text="`results/<name>`", doc="`ginsim tune --out` overrides it."),
    Key("sampler", "choice", "tpe", "Optuna's sampler", choices=SAMPLERS, check=_sampler,
        doc="`cmaes` needs the `cmaes` package."),
    Key("pruner", "choice", "successive_halving", "Optuna's pruner of candidates between rungs", choices=PRUNERS),
    Key("polish", "int", 3, "rounds of neighbour polish after the search", low=0, high=MAX_POLISH,
        text=f"an integer from 0 (off) to {MAX_POLISH} rounds"),
    Key("rules", "any", "hoyle", "the rules: a preset name, or a table `preset = ..., field = value`",
        type_text="string or table", text="a preset name or a table (preset = ..., field = value)", got=False,
        check=_rules),
    Key("params", "table", REQUIRED, "the search space: `NAME = { low = ..., high = ... }` per tuned parameter",
        text="a table of parameter = { low = ..., high = ... } (at least one)", got=False, check=_params,
        doc="The keys of an entry are in the next table."),
    Key("fixed", "table", {}, "parameters held at a value: `NAME = value`", text="a table of parameter = value",
        got=False, check=_fixed, doc="Neither tuned nor outside the strategy's range."),
    Key("opponents", "list", REQUIRED, "the field: `[[opponents]]` tables (or strategy specs)",
        text='a non-empty list of { strategy = "...", weight = ... } ([[opponents]])', got=False,
        check=_opponents, type_text="list of tables", doc="The objective is the weighted mean over it."),
    Key("budget", "any", REQUIRED, "deals (or games) per candidate and per policy on fresh deals",
        type_text="table", text="a table with deals = N (games = N for game_win)", check=_budget,
        doc="The keys are in the table below."),
    Key("baselines", "table", DEFAULT_BASELINES, "the policies the tuned one is compared with on fresh deals: "
        "`label = \"spec\"`", text='a table of label = "strategy spec"', got=False, check=_baselines,
        default_text="knock as soon as legal (`simple`), gin only (`simple:knock_at=0`)"),
    Key("fixed_threshold", "any", {}, "the best-fixed-threshold baseline", type_text="table or false",
        text="a table (strategy, param, values) or false", check=_fixed_threshold, default_text="`{}`",
        doc="`false`: none. Its best value is what `\"best_fixed\"` stands for in `[[enqueue]]`."),
    Key("enqueue", "any", [], "candidates to try first: `[[enqueue]]` tables of `NAME = value`",
        type_text="list of tables", text="a list of tables of parameter = value ([[enqueue]])", check=_enqueue,
        doc="A value is a number, `\"best_fixed\"` or a list of them (a grid of every combination); at most "
            "`trials` candidates in all."),
))
TOP_KEYS = set(SCHEMA.names)

#: the keys an equilibrium spec (``simulator.studies.equilibrium.SCHEMA``), a class spec and a
#: knock-table spec share with a tuning spec: their schemas read these declarations themselves
SHARED_HEAD = ("name", "description", "objective", "rules")


def read_shared_head(data: dict[str, Any], top_keys: set[str], fail) -> dict[str, Any]:
    """The keys of ``SHARED_HEAD`` read by ``SCHEMA``'s own declarations, for a spec that also
    has keys of its own (the class game's, the knock table's): a key outside ``top_keys`` is
    refused first; ``rules`` comes back as (the table, its label, the resolved ``Rules``)."""
    refuse_unknown(data, top_keys, fail)
    head = Schema("head", tuple(SCHEMA[k] for k in SHARED_HEAD))
    return head.read({k: data[k] for k in SHARED_HEAD if k in data}, fail)
