"""The tuning spec: ``TuneSpec`` and its parts, read and validated from TOML.

The format is in ``simulator.studies.tune`` (the package's docstring).  ``parse_spec``
checks each section with its own function and raises ``TuneError`` with one line naming
the file and the key, before anything is written or played.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...core.rules_api import max_knock_limit
from ...run.experiment import NAME_PATTERN, format_value, read_toml_file
from ...run.limits import MAX_PER_CELL, PER_CELL_BITS, SEED_LIMIT, SEED_TEXT

OBJECTIVES = {"net_per_hand": "deals", "game_win": "games"}
OBJECTIVE_TEXT = {"net_per_hand": "net points per hand", "game_win": "game-win probability"}
SAMPLERS = ("tpe", "random", "cmaes")
PRUNERS = ("successive_halving", "hyperband", "none")
TOP_KEYS = {"name", "description", "strategy", "objective", "trials", "seed", "out", "rules", "sampler", "pruner",
            "polish", "params", "fixed", "opponents", "budget", "baselines", "fixed_threshold", "enqueue", "plugins"}
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


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)



def parse_spec(data: dict[str, Any], where: str = "<spec>", base: Path | None = None) -> TuneSpec:
    """Validate a tuning spec given as a dict (the parsed TOML): each section in the order
    of the format, the first problem raised as a one-line ``TuneError``."""
    def fail(key: str, message: str) -> TuneError:
        return TuneError(f"{where}: {key}: {message}")

    name, description = spec_head(data, TOP_KEYS, fail)
    plugins = _plugins(data, base, fail)
    strategy, defaults = _strategy(data, fail)
    objective = spec_objective(data, fail)
    run = _run_options(data, fail)
    table, rules_label, resolved_rules = spec_rules(data, fail)
    params = _params(data, strategy, defaults, fail)
    fixed = _fixed(data, strategy, defaults, fail)
    opponents = _opponents(data, fail)
    budget = _budget(data, OBJECTIVES[objective], objective, len(opponents), fail)
    baselines = _baselines(data, fail)
    fixed_threshold = _fixed_threshold(data, max_knock_limit(resolved_rules), fail)
    enqueue = _enqueue_entries(data, params, fixed_threshold is not None, run["trials"], fail)
    return TuneSpec(name=name, path=where, strategy=strategy, objective=objective, rules=table,
                    rules_label=rules_label, params=params, fixed=fixed, opponents=opponents, budget=budget,
                    baselines=baselines, fixed_threshold=fixed_threshold, enqueue=enqueue, plugins=plugins,
                    description=description, **run)


def spec_head(data: dict[str, Any], top_keys: set[str], fail) -> tuple[str, str]:
    """What a tuning spec and an equilibrium spec (``simulator.studies.equilibrium``) both
    begin with: no key outside ``top_keys``, a ``name`` fit for a directory, a ``description``."""
    unknown = sorted(set(data) - top_keys)
    if unknown:
        raise fail(unknown[0], f"unknown key; keys: {', '.join(sorted(top_keys))}")
    name = data.get("name")
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise fail("name", f"must be letters, digits, '_', '-' or '.', starting with a letter or digit, got {name!r}")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise fail("description", "must be a string")
    return name, description


def spec_objective(data: dict[str, Any], fail) -> str:
    """``objective``: one of ``OBJECTIVES`` (default net points per hand)."""
    objective = data.get("objective", "net_per_hand")
    if objective not in OBJECTIVES:
        raise fail("objective", f"must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    return objective


def _plugins(data: dict[str, Any], base: Path | None, fail) -> dict[str, str]:
    """``[plugins]``: each file registered (relative to the spec's folder); name -> absolute path."""
    import strategies

    plugins = data.get("plugins", {})
    if not isinstance(plugins, dict):
        raise fail("plugins", "must be a table of name = \"path/to/file.py\"")
    resolved = {}
    for pname, ppath in plugins.items():
        if not isinstance(ppath, str):
            raise fail(f"plugins.{pname}", "must be a path to a Python file")
        full = (base / ppath) if base is not None else Path(ppath)
        try:
            strategies.register(pname, full)
        except (ValueError, OSError, SyntaxError, ImportError) as exc:
            raise fail(f"plugins.{pname}", str(exc)) from None
        resolved[pname] = str(full.resolve())
    return resolved


def _strategy(data: dict[str, Any], fail) -> tuple[str, dict[str, float]]:
    """``strategy``: a bare registered name; (the name, its parameters' defaults)."""
    strategy = data.get("strategy")
    if not isinstance(strategy, str) or not strategy.strip():
        raise fail("strategy", "must name the strategy to tune, e.g. \"knock_policy\"")
    if ":" in strategy:
        raise fail("strategy", "give the bare strategy name; set parameters under [params] and [fixed]")
    try:
        defaults = _strategy_params(strategy)
    except ValueError as exc:
        raise fail("strategy", str(exc)) from None
    return strategy.strip(), defaults


def _run_options(data: dict[str, Any], fail) -> dict[str, Any]:
    """``trials``, ``seed``, ``out``, ``sampler``, ``pruner`` and ``polish``."""
    trials = data.get("trials")
    if not _is_int(trials) or not 1 <= trials <= MAX_TRIALS:
        raise fail("trials", f"must be an integer from 1 to {MAX_TRIALS:,}, got {trials!r}")
    seed = data.get("seed", 0)
    if not _is_int(seed) or not 0 <= seed < SEED_LIMIT:
        raise fail("seed", f"must be {SEED_TEXT}")
    out = data.get("out")
    if out is not None and (not isinstance(out, str) or not out.strip()):
        raise fail("out", "must name a directory")
    if out is not None and (Path(out).is_absolute() or os.path.normpath(out).split(os.sep)[0] == ".."):
        raise fail("out", f"must be a directory inside the current directory (a relative path without a leading "
                          f"'..'), got {out!r}; give another place with ginsim tune --out")
    sampler = data.get("sampler", "tpe")
    if sampler not in SAMPLERS:
        raise fail("sampler", f"must be one of {', '.join(SAMPLERS)}, got {sampler!r}")
    if sampler == "cmaes":
        import importlib.util

        if importlib.util.find_spec("cmaes") is None:  # Optuna's CmaEsSampler needs it
            raise fail("sampler", "cmaes needs the 'cmaes' package: pip install cmaes")
    pruner = data.get("pruner", "successive_halving")
    if pruner not in PRUNERS:
        raise fail("pruner", f"must be one of {', '.join(PRUNERS)}, got {pruner!r}")
    polish = data.get("polish", 3)
    if not _is_int(polish) or not 0 <= polish <= MAX_POLISH:
        raise fail("polish", f"must be an integer from 0 (off) to {MAX_POLISH} rounds, got {polish!r}")
    return {"trials": trials, "seed": seed, "out": out, "sampler": sampler, "pruner": pruner, "polish": polish}


def spec_rules(data: dict[str, Any], fail):
    """``rules``: a preset name or a table; (the table, its label, the resolved ``Rules``)."""
    from ...core.rules import Rules

    rules = data.get("rules", "hoyle")
    if isinstance(rules, str):
        table = {"preset": rules}
    elif isinstance(rules, dict):
        table = dict(rules)
    else:
        raise fail("rules", "must be a preset name or a table (preset = ..., field = value)")
    try:
        resolved = Rules.from_dict(table)
    except (ValueError, TypeError) as exc:
        raise fail("rules", str(exc)) from None
    label = ", ".join([str(table["preset"])] if "preset" in table else []) or "custom"
    extra = [f"{k}={v}" for k, v in table.items() if k != "preset"]
    return table, label + (" with " + ", ".join(extra) if extra else ""), resolved


def _params(data: dict[str, Any], strategy: str, defaults: dict[str, float], fail) -> tuple[Param, ...]:
    """``[params]``: the search space, one ``Param`` per tuned parameter of the strategy."""
    params_data = data.get("params")
    if not isinstance(params_data, dict) or not params_data:
        raise fail("params", "must be a table of parameter = { low = ..., high = ... } (at least one)")
    params = []
    for pname, pd_ in params_data.items():
        key = f"params.{pname}"
        if pname not in defaults:
            raise fail(key, f"strategy {strategy!r} has no parameter {pname!r}; parameters: "
                            f"{', '.join(defaults) or 'none'}")
        if not isinstance(pd_, dict):
            raise fail(key, "must be a table { low = ..., high = ... }")
        params.append(_param(pname, pd_, key, strategy, fail))
    return tuple(params)


def _param(pname: str, pd_: dict[str, Any], key: str, strategy: str, fail) -> Param:
    """One ``[params]`` entry: low and high inside the strategy's range, type, step, log."""
    import strategies
    from strategies.registry import param_problem, range_text

    bad = sorted(set(pd_) - {"low", "high", "type", "step", "log"})
    if bad:
        raise fail(f"{key}.{bad[0]}", "unknown key; keys: high, log, low, step, type")
    low, high = pd_.get("low"), pd_.get("high")
    for k, v in (("low", low), ("high", high)):
        if not _is_num(v):
            raise fail(f"{key}.{k}", f"must be a finite number, got {v!r}")
    kind = pd_.get("type", "int" if _is_int(low) and _is_int(high) else "float")
    if kind not in ("int", "float"):
        raise fail(f"{key}.type", f"must be \"int\" or \"float\", got {kind!r}")
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
    step = pd_.get("step")
    if step is not None and (not _is_num(step) or step <= 0 or (kind == "int" and not float(step).is_integer())):
        raise fail(f"{key}.step", f"must be a positive {'integer' if kind == 'int' else 'number'}, got {step!r}")
    log = pd_.get("log", False)
    if not isinstance(log, bool):
        raise fail(f"{key}.log", "must be true or false")
    if log and (low <= 0 or step is not None):
        raise fail(f"{key}.log", "a log scale needs low > 0 and no step")
    return Param(pname, kind, float(low), float(high), None if step is None else float(step), log)


def _fixed(data: dict[str, Any], strategy: str, defaults: dict[str, float], fail) -> dict[str, float]:
    """``[fixed]``: parameters held at a value, neither tuned nor outside their range."""
    import strategies
    from strategies.registry import param_problem

    fixed = data.get("fixed", {})
    if not isinstance(fixed, dict):
        raise fail("fixed", "must be a table of parameter = value")
    for pname, value in fixed.items():
        if pname not in defaults:
            raise fail(f"fixed.{pname}", f"strategy {strategy!r} has no parameter {pname!r}; parameters: "
                                         f"{', '.join(defaults)}")
        if pname in data["params"]:
            raise fail(f"fixed.{pname}", "is also under [params]: a parameter is either tuned or fixed")
        if not _is_num(value):
            raise fail(f"fixed.{pname}", f"must be a finite number, got {value!r}")
        problem = param_problem(pname, float(value), strategies.REGISTRY[strategy].ranges,
                                f" of strategy {strategy!r}")
        if problem:
            raise fail(f"fixed.{pname}", problem)
    return {k: float(v) for k, v in fixed.items()}


def _opponents(data: dict[str, Any], fail) -> tuple[tuple[str, float], ...]:
    """``[[opponents]]``: the field, each a distinct canonical spec with a positive weight."""
    import strategies

    opponents_data = data.get("opponents")
    if not isinstance(opponents_data, list) or not opponents_data:
        raise fail("opponents", "must be a non-empty list of { strategy = \"...\", weight = ... } ([[opponents]])")
    opponents: list[tuple[str, float]] = []
    for i, item in enumerate(opponents_data):
        key = f"opponents[{i}]"
        if isinstance(item, str):
            item = {"strategy": item}
        if not isinstance(item, dict):
            raise fail(key, "must be a table { strategy = \"...\", weight = ... } or a strategy spec")
        bad = sorted(set(item) - {"strategy", "weight"})
        if bad:
            raise fail(f"{key}.{bad[0]}", "unknown key; keys: strategy, weight")
        spec = item.get("strategy")
        if not isinstance(spec, str):
            raise fail(f"{key}.strategy", "must be a strategy spec such as \"simple\"")
        try:
            canonical = strategies.parse_strategy(spec).label
        except ValueError as exc:
            raise fail(f"{key}.strategy", str(exc)) from None
        weight = item.get("weight", 1.0)
        if not _is_num(weight) or weight <= 0:
            raise fail(f"{key}.weight", f"must be a positive number, got {weight!r}")
        if canonical in [o for o, _ in opponents]:
            raise fail(f"{key}.strategy", f"{canonical!r} is already in the field (give it more weight instead)")
        opponents.append((canonical, float(weight)))
    return tuple(opponents)


def _budget(data: dict[str, Any], unit: str, objective: str, n_opponents: int, fail) -> Budget:
    """``[budget]``: deals (or games) per candidate, the rungs and the fresh comparison, in
    whole mirrored pairs against every opponent."""
    budget_data = data.get("budget")
    if not isinstance(budget_data, dict):
        raise fail("budget", f"must be a table with {unit} = N (and optionally min_{unit}, reduction, fresh_{unit})")
    allowed = {unit, f"min_{unit}", f"fresh_{unit}", "reduction"}
    for k in budget_data:
        if k not in allowed:
            other = "deals" if unit == "games" else "games"
            hint = f" (objective {objective} plays {unit}, not {other})" if other in k else ""
            raise fail(f"budget.{k}", f"unknown key{hint}; keys: {', '.join(sorted(allowed))}")
    total = budget_data.get(unit)
    if not _is_int(total) or total < 2:
        raise fail(f"budget.{unit}", f"must be an integer of at least 2, got {total!r}")
    reduction = budget_data.get("reduction", 3)
    if not _is_int(reduction) or reduction < 2:
        raise fail("budget.reduction", f"must be an integer of at least 2, got {reduction!r}")
    first = budget_data.get(f"min_{unit}", max(2, total // reduction**2))
    if not _is_int(first) or not 2 <= first <= total:
        raise fail(f"budget.min_{unit}", f"must be an integer from 2 to {unit} ({total:,}), got {first!r}")
    fresh = budget_data.get(f"fresh_{unit}", total)
    if not _is_int(fresh) or fresh < 4:
        raise fail(f"budget.fresh_{unit}", f"must be an integer of at least 4, got {fresh!r}")
    if max(total, fresh) > MAX_PER_CELL:
        raise fail("budget", f"at most 2**{PER_CELL_BITS} deals or games per candidate")
    per = 2 * n_opponents  # mirrored pairs, the same number against each opponent
    for k, v in ((unit, total), (f"fresh_{unit}", fresh)):
        if v % per:
            down, up = max(per, v - v % per), v - v % per + per
            raise fail(f"budget.{k}", f"{v:,} is not a multiple of {per} (mirrored pairs against each of "
                                      f"{n_opponents} opponent(s)); give {down:,} or {up:,}")
    return Budget(unit, total, first, reduction, fresh)


def _baselines(data: dict[str, Any], fail) -> dict[str, str]:
    """``[baselines]``: label -> canonical strategy spec (default ``DEFAULT_BASELINES``)."""
    import strategies

    baselines_data = data.get("baselines", DEFAULT_BASELINES)
    if not isinstance(baselines_data, dict):
        raise fail("baselines", "must be a table of label = \"strategy spec\"")
    baselines = {}
    for label, spec in baselines_data.items():
        if not isinstance(spec, str):
            raise fail(f"baselines.{label}", "must be a strategy spec such as \"simple:knock_at=0\"")
        try:
            baselines[label] = strategies.parse_strategy(spec).label
        except ValueError as exc:
            raise fail(f"baselines.{label}", str(exc)) from None
    return baselines


def _fixed_threshold(data: dict[str, Any], limit: int, fail) -> FixedSweep | None:
    """``[fixed_threshold]``: the fixed-threshold sweep (default ``simple``'s ``knock_at``
    from 0 to the largest knock limit ``limit``), or None for ``false``."""
    ft = data.get("fixed_threshold", {})
    if ft is False:
        return None
    if not isinstance(ft, dict):
        raise fail("fixed_threshold", "must be a table (strategy, param, values) or false")
    bad = sorted(set(ft) - {"strategy", "param", "values"})
    if bad:
        raise fail(f"fixed_threshold.{bad[0]}", "unknown key; keys: param, strategy, values")
    fs = ft.get("strategy", "simple")
    fp = ft.get("param", "knock_at")
    if not isinstance(fs, str):
        raise fail("fixed_threshold.strategy", "must be a strategy spec")
    try:
        fvals = _strategy_params(fs)
    except ValueError as exc:
        raise fail("fixed_threshold.strategy", str(exc)) from None
    if fp not in fvals:
        raise fail("fixed_threshold.param", f"strategy {fs!r} has no parameter {fp!r}; parameters: "
                                            f"{', '.join(fvals) or 'none'}")
    values = ft.get("values", list(range(limit + 1)))
    if not isinstance(values, list) or not values or not all(_is_num(v) for v in values):
        raise fail("fixed_threshold.values", "must be a non-empty list of numbers")
    if len(set(map(float, values))) != len(values):
        raise fail("fixed_threshold.values", "values must be distinct")
    return FixedSweep(fs, fp, tuple(float(v) for v in values))


def _enqueue_entries(data: dict[str, Any], params: tuple[Param, ...], has_sweep: bool, trials: int,
                     fail) -> tuple[dict[str, Any], ...]:
    """``[[enqueue]]``: candidates (or grids of them) of tuned parameters inside their
    ranges, ``"best_fixed"`` only with the sweep, at most ``trials`` in all."""
    enqueue_data = data.get("enqueue", [])
    if not isinstance(enqueue_data, list) or not all(isinstance(e, dict) for e in enqueue_data):
        raise fail("enqueue", "must be a list of tables of parameter = value ([[enqueue]])")
    tuned = {p.name: p for p in params}
    n_enqueued = 0
    for i, entry in enumerate(enqueue_data):
        combinations = 1
        for pname, given in entry.items():
            key = f"enqueue[{i}].{pname}"
            if pname not in tuned:
                raise fail(key, f"is not a tuned parameter; tuned: {', '.join(tuned)}")
            values = given if isinstance(given, list) else [given]
            if not values:
                raise fail(key, "an empty list enqueues nothing")
            combinations *= len(values)
            for value in values:
                if value == "best_fixed":
                    if not has_sweep:
                        raise fail(key, "\"best_fixed\" needs the fixed_threshold sweep")
                    continue
                if not _is_num(value):
                    raise fail(key, f"must be a number, \"best_fixed\" or a list of them, got {value!r}")
                if not tuned[pname].low <= value <= tuned[pname].high:
                    raise fail(key, f"{value} is outside [{format_value(tuned[pname].low)}, "
                                    f"{format_value(tuned[pname].high)}]")
        n_enqueued += combinations
    if n_enqueued > trials:
        raise fail("enqueue", f"enqueues {n_enqueued} candidates, more than trials ({trials})")
    return tuple(enqueue_data)
