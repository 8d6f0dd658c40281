"""Tuning a strategy's parameters: ``ginsim tune SPEC.toml`` finds the best knock policy
against a field of opponents, then measures it on fresh deals against the baselines.

A tuning spec (TOML)::

    name = "tune_small"                  # names the study (and the default out directory)
    description = "..."                  # optional, goes into the report
    strategy = "knock_policy"            # the strategy whose parameters are tuned
    objective = "net_per_hand"           # or "game_win" (probability of winning a game)
    trials = 24                          # candidates sampled or seeded (raise it and --resume to go on)
    seed = 1                             # tuning deals, fresh deals and the sampler
    out = "results/tune_small"           # optional, relative to the current directory;
                                         # default results/<name>; --out overrides
    rules = "hoyle"                      # a preset name, or a table: [rules] preset = ..., field = ...
    sampler = "tpe"                      # optional: tpe (default), random or cmaes
    pruner = "successive_halving"        # optional: successive_halving (default), hyperband or none
    polish = 3                           # optional: rounds of neighbour polish after the search (0: off)

    [params]                             # the search space: low/high, int when both are integers
    early = { low = 0.0, high = 10.0, step = 0.5 }
    turn_b = { low = 4, high = 20 }      # optional: type = "int" | "float", step, log = true
    [fixed]                              # optional: parameters held at a value (others: defaults)
    near_target = 0

    [[opponents]]                        # the field; the objective is the weighted mean over it
    strategy = "simple"
    weight = 1.0                         # optional, default 1
    [[opponents]]
    strategy = "gin_hunter"

    [budget]
    deals = 300_000        # per candidate at the last rung, over the whole field ("games" for game_win)
    min_deals = 33_334     # the first rung (default deals / reduction**2: three rungs)
    reduction = 3          # each rung plays reduction times the deals of the one before
    fresh_deals = 1_000_000  # per policy for the final, fresh-seed comparison

    [baselines]                          # optional; these are the defaults
    "knock as soon as legal" = "simple"
    "gin only" = "simple:knock_at=0"
    [fixed_threshold]                    # optional; the best fixed threshold baseline (false: none)
    strategy = "simple"
    param = "knock_at"
    values = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]   # default 0 .. the largest knock limit of the rules

    [[enqueue]]                          # optional: candidates to try first; "best_fixed" stands
    early = "best_fixed"                 # for the best fixed threshold found on the tuning deals
    late = "best_fixed"
    [[enqueue]]                          # a list of values tries every combination (a grid):
    early = [10, 9]                      # here knock at <= 10 or <= 9 up to draw 1, 2 or 3,
    turn_a = [1, 2, 3]                   # then drop straight to the best fixed threshold
    turn_b = 2
    late = "best_fixed"
    [plugins]                            # optional: name = "file.py", relative to the spec file

How a tuning goes (``tune``):

1. **Common random numbers.**  Opponent i of the field plays on its own fixed stream of
   mirrored deals (seed derived from (seed, "tune", i)); every candidate sees exactly the
   same deals, so differences between candidates are not luck of the deal.  The objective
   is the weighted mean over the field of net points per hand (or of game-win probability),
   each opponent playing the same number of mirrored pairs.
2. **The fixed-threshold sweep.**  ``fixed_threshold.strategy`` with ``param`` = each value
   is scored at the full budget on the tuning deals; the best value is the "best fixed
   threshold" baseline (and what ``"best_fixed"`` stands for in ``[[enqueue]]``).
3. **The search** (Optuna, ``trials`` candidates).  A candidate plays in rungs of
   increasing size (``min_deals``, × ``reduction``, ..., ``deals``); after each rung but the
   last it reports its running objective with the deals played as the step, and Optuna's
   ``SuccessiveHalvingPruner`` (or ``HyperbandPruner``) stops it unless it is among the best
   1/``reduction`` at that rung.  So the budget goes where candidates are close.
   A candidate the sampler proposes again is not played again: it gets the values of the
   first (the same deals would give the same values).
   Then a **polish**: every neighbour of the best complete trial (one step in one
   parameter) is tried the same way, and again around a new best, for up to ``polish``
   rounds; these trials come on top of ``trials``.
4. **Fresh deals.**  Picking the best of many noisy candidates flatters it (selection
   bias), so the chosen candidate (the best complete trial) and the baselines are played
   again on fresh deals (seed derived from (seed, "fresh", i)), ``fresh_deals`` each, all on
   the same deals.  The edge of the chosen policy over each baseline is a paired mean: per
   mirrored pair index p, the weighted field mean of the chosen policy minus the
   baseline's; its 95% interval is the Student t interval over those pair units
   (``simulator.analysis.stats.t_interval``).

The study lives in ``OUT/study.db`` (SQLite, Optuna's RDB storage) and ``OUT`` is locked for
the whole tuning (``simulator.run.rundir.RunLock``), so a tuning killed in any way (even
``kill -9``) continues with ``--resume``: a trial that was running is marked failed and
the search goes on to ``trials`` finished (complete or pruned) trials.  Results of the
sweep and the fresh comparison are kept in the study, so a finished tuning resumed only
rewrites its outputs (even after ginsim changed: it plays nothing).  Resuming with another
spec (``trials`` aside) is refused, and so is resuming an unfinished tuning with other code,
so one study never mixes two versions of the game.  Outputs: ``best.toml`` (``strategy`` is
a spec string to paste wherever a strategy is named), ``tune.json`` (everything,
machine-readable), ``report.md``, ``report.html`` and PNG figures.

Every problem with a spec raises ``TuneError`` with one line naming the file and the key,
before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..analysis.rendering import atomic_write
from ..run.experiment import NAME_PATTERN, format_value, read_toml_file
from ..run.runner import bar_disabled

OBJECTIVES = {"net_per_hand": "deals", "game_win": "games"}
OBJECTIVE_TEXT = {"net_per_hand": "net points per hand", "game_win": "game-win probability"}
SAMPLERS = ("tpe", "random", "cmaes")
PRUNERS = ("successive_halving", "hyperband", "none")
TOP_KEYS = {"name", "description", "strategy", "objective", "trials", "seed", "out", "rules", "sampler", "pruner",
            "polish", "params", "fixed", "opponents", "budget", "baselines", "fixed_threshold", "enqueue", "plugins"}
DEFAULT_BASELINES = {"knock as soon as legal": "simple", "gin only": "simple:knock_at=0"}
STUDY_DB = "study.db"
#: the files a tuning writes besides its figures (all carry a ginsim mark)
TUNE_FILES = ("best.toml", "tune.json", "report.md", "report.html")
FIGURES = ("convergence.png", "importance.png", "policy.png", "edges.png")
MARK = "written by ginsim tune"
#: at most this many trials (a study is a list of candidates, not a stream)
MAX_TRIALS = 100_000


class TuneError(ValueError):
    """A bad tuning spec or output directory: one line naming the file and the key."""


# ----------------------------------------------------------------------------- the spec

@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "int" or "float"
    low: float
    high: float
    step: float | None = None
    log: bool = False


@dataclass(frozen=True)
class Budget:
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
    strategy: str
    param: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class TuneSpec:
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
        w = np.array([wt for _, wt in self.opponents], dtype=float)
        return w / w.sum()


def _strategy_params(spec: str) -> dict[str, float]:
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
    """Validate a tuning spec given as a dict (the parsed TOML)."""
    import strategies
    from strategies.registry import param_problem, range_text

    from ..core.rules import Rules

    def fail(key: str, message: str) -> TuneError:
        return TuneError(f"{where}: {key}: {message}")

    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise fail(unknown[0], f"unknown key; keys: {', '.join(sorted(TOP_KEYS))}")
    name = data.get("name")
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise fail("name", f"must be letters, digits, '_', '-' or '.', starting with a letter or digit, got {name!r}")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise fail("description", "must be a string")

    plugins = data.get("plugins", {})
    if not isinstance(plugins, dict):
        raise fail("plugins", "must be a table of name = \"path/to/file.py\"")
    resolved_plugins = {}
    for pname, ppath in plugins.items():
        if not isinstance(ppath, str):
            raise fail(f"plugins.{pname}", "must be a path to a Python file")
        full = (base / ppath) if base is not None else Path(ppath)
        try:
            strategies.register(pname, full)
        except (ValueError, OSError, SyntaxError, ImportError) as exc:
            raise fail(f"plugins.{pname}", str(exc)) from None
        resolved_plugins[pname] = str(full.resolve())

    strategy = data.get("strategy")
    if not isinstance(strategy, str) or not strategy.strip():
        raise fail("strategy", "must name the strategy to tune, e.g. \"knock_policy\"")
    if ":" in strategy:
        raise fail("strategy", "give the bare strategy name; set parameters under [params] and [fixed]")
    try:
        defaults = _strategy_params(strategy)
    except ValueError as exc:
        raise fail("strategy", str(exc)) from None

    objective = data.get("objective", "net_per_hand")
    if objective not in OBJECTIVES:
        raise fail("objective", f"must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    unit = OBJECTIVES[objective]

    trials = data.get("trials")
    if not _is_int(trials) or not 1 <= trials <= MAX_TRIALS:
        raise fail("trials", f"must be an integer from 1 to {MAX_TRIALS:,}, got {trials!r}")
    seed = data.get("seed", 0)
    if not _is_int(seed) or not 0 <= seed < 2**63:
        raise fail("seed", "must be an integer from 0 to 2**63 - 1")
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
    if not _is_int(polish) or not 0 <= polish <= 100:
        raise fail("polish", f"must be an integer from 0 (off) to 100 rounds, got {polish!r}")

    rules = data.get("rules", "hoyle")
    if isinstance(rules, str):
        table = {"preset": rules}
    elif isinstance(rules, dict):
        table = dict(rules)
    else:
        raise fail("rules", "must be a preset name or a table (preset = ..., field = value)")
    try:
        resolved_rules = Rules.from_dict(table)
    except (ValueError, TypeError) as exc:
        raise fail("rules", str(exc)) from None
    label = ", ".join([str(table["preset"])] if "preset" in table else []) or "custom"
    extra = [f"{k}={v}" for k, v in table.items() if k != "preset"]
    rules_label = label + (" with " + ", ".join(extra) if extra else "")

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
        ranges = strategies.REGISTRY[strategy.strip()].ranges
        if pname in ranges and ranges[pname][2] and kind != "int":
            raise fail(key, f"{pname} is integral ({range_text(*ranges[pname])}): give integer low and high")
        for k, v in (("low", low), ("high", high)):
            problem = param_problem(pname, float(v), ranges, f" of strategy {strategy.strip()!r}")
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
        params.append(Param(pname, kind, float(low), float(high), None if step is None else float(step), log))

    fixed = data.get("fixed", {})
    if not isinstance(fixed, dict):
        raise fail("fixed", "must be a table of parameter = value")
    for pname, value in fixed.items():
        if pname not in defaults:
            raise fail(f"fixed.{pname}", f"strategy {strategy!r} has no parameter {pname!r}; parameters: "
                                         f"{', '.join(defaults)}")
        if pname in params_data:
            raise fail(f"fixed.{pname}", "is also under [params]: a parameter is either tuned or fixed")
        if not _is_num(value):
            raise fail(f"fixed.{pname}", f"must be a finite number, got {value!r}")
        problem = param_problem(pname, float(value), strategies.REGISTRY[strategy.strip()].ranges,
                                f" of strategy {strategy.strip()!r}")
        if problem:
            raise fail(f"fixed.{pname}", problem)

    opponents_data = data.get("opponents")
    if not isinstance(opponents_data, list) or not opponents_data:
        raise fail("opponents", "must be a non-empty list of { strategy = \"...\", weight = ... } ([[opponents]])")
    opponents = []
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
    if max(total, fresh) > 2**40:
        raise fail("budget", "at most 2**40 deals or games per candidate")
    per = 2 * len(opponents)  # mirrored pairs, the same number against each opponent
    for k, v in ((unit, total), (f"fresh_{unit}", fresh)):
        if v % per:
            down, up = max(per, v - v % per), v - v % per + per
            raise fail(f"budget.{k}", f"{v:,} is not a multiple of {per} (mirrored pairs against each of "
                                      f"{len(opponents)} opponent(s)); give {down:,} or {up:,}")
    budget = Budget(unit, total, first, reduction, fresh)

    baselines_data = data.get("baselines", DEFAULT_BASELINES)
    if not isinstance(baselines_data, dict):
        raise fail("baselines", "must be a table of label = \"strategy spec\"")
    baselines = {}
    for label_, spec in baselines_data.items():
        if not isinstance(spec, str):
            raise fail(f"baselines.{label_}", "must be a strategy spec such as \"simple:knock_at=0\"")
        try:
            baselines[label_] = strategies.parse_strategy(spec).label
        except ValueError as exc:
            raise fail(f"baselines.{label_}", str(exc)) from None

    ft = data.get("fixed_threshold", {})
    fixed_threshold = None
    if ft is not False:
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
        values = ft.get("values", list(range(0, _max_limit(resolved_rules) + 1)))
        if not isinstance(values, list) or not values or not all(_is_num(v) for v in values):
            raise fail("fixed_threshold.values", "must be a non-empty list of numbers")
        if len(set(map(float, values))) != len(values):
            raise fail("fixed_threshold.values", "values must be distinct")
        fixed_threshold = FixedSweep(fs, fp, tuple(float(v) for v in values))

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
                    if fixed_threshold is None:
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

    return TuneSpec(name=name, path=where, strategy=strategy.strip(), objective=objective, trials=trials,
                    seed=seed, rules=table, rules_label=rules_label, params=tuple(params),
                    fixed={k: float(v) for k, v in fixed.items()}, opponents=tuple(opponents), budget=budget,
                    baselines=baselines, fixed_threshold=fixed_threshold, enqueue=tuple(enqueue_data),
                    sampler=sampler, pruner=pruner, polish=polish, out=out, plugins=resolved_plugins,
                    description=description)


def _max_limit(rules) -> int:
    """The largest knock limit a deal of these rules can have."""
    if rules.gin_only:
        return 0
    if rules.oklahoma:
        return 10
    return int(rules.knock_limit)


# ----------------------------------------------------------------------------- playing

def stream_seed(seed: int, phase: str, opponent: int) -> int:
    """The engine seed of opponent ``opponent``'s deals in ``phase`` ("tune" or "fresh")."""
    digest = hashlib.blake2b(f"ginsim-tune:{seed}:{phase}:{opponent}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


class Field:
    """Plays a strategy against every opponent of a spec on fixed streams of mirrored deals
    (or games) and returns per-pair values: net points per hand to the strategy (the mean
    of the pair's two seatings), or its game-win value (1 won, 0 lost, ½ no winner)."""

    def __init__(self, spec: TuneSpec):
        from ..core.rules import resolve_rules

        self.spec = spec
        self.rules = resolve_rules(dict(spec.rules))
        self.played = 0  # deals or games played by this object

    def pair_values(self, strategy: str, opponent: int, phase: str, first_pair: int, n_pairs: int) -> np.ndarray:
        from .. import api

        opp = self.spec.opponents[opponent][0]
        seed = stream_seed(self.spec.seed, phase, opponent)
        context = f"tuning {self.spec.name}, {phase} deals, against {opp}"
        start, count = 2 * first_pair, 2 * n_pairs
        if self.spec.objective == "net_per_hand":
            records = api.play_deal_records(strategy, opp, self.rules, start, count, seed, True)
            api.check_hand_errors(records, strategy, opp, context)
            frame = api.hand_frame(records)
            values = frame["net_a"].to_numpy(dtype=float)
        else:
            games, _ = api.play_game_records(strategy, opp, self.rules, start, count, seed, True)
            api.check_game_errors(games, strategy, opp, context)
            frame = api.game_frame(games)
            winner = frame["winner"]
            values = np.where(winner.isna().to_numpy(), 0.5, (winner == "a").fillna(False).to_numpy(dtype=float))
        pair = frame["pair"].to_numpy()
        if not np.array_equal(pair, np.repeat(np.arange(first_pair, first_pair + n_pairs), 2)):
            raise RuntimeError("the engine did not return mirrored pairs in order")  # pragma: no cover
        self.played += count
        return values.reshape(-1, 2).mean(axis=1)

    def field_units(self, strategy: str, phase: str, n_pairs: int) -> tuple[np.ndarray, np.ndarray]:
        """(units, per-opponent pair values): unit p is the weighted field mean of pair p."""
        per = np.vstack([self.pair_values(strategy, i, phase, 0, n_pairs) for i in range(len(self.spec.opponents))])
        return self.spec.weights @ per, per


def candidate_spec(spec: TuneSpec, values: dict[str, float]) -> str:
    """The full spec string of a candidate: every parameter of the strategy, in its
    ``PARAMS`` order (tuned, else fixed, else the default), exactly as played."""
    import strategies

    defaults = strategies.REGISTRY[spec.strategy].params
    parts = []
    for name, default in defaults.items():
        value = values.get(name, spec.fixed.get(name, default))
        parts.append(f"{name}={format_value(value)}")
    text = spec.strategy + (":" + ",".join(parts) if parts else "")
    strategies.parse_strategy(text)  # it must parse back
    return text


# ----------------------------------------------------------------------------- the study

def _optuna():
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


def _sampler(spec: TuneSpec):
    optuna = _optuna()
    if spec.sampler == "random":
        return optuna.samplers.RandomSampler(seed=spec.seed % 2**32)
    if spec.sampler == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=spec.seed % 2**32, warn_independent_sampling=False)
    startup = max(4, min(10, spec.trials // 4))
    return optuna.samplers.TPESampler(seed=spec.seed % 2**32, multivariate=True, n_startup_trials=startup)


def _pruner(spec: TuneSpec, n_opponents: int):
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
    if p.kind == "int":
        return float(trial.suggest_int(p.name, int(p.low), int(p.high), step=int(p.step or 1), log=p.log))
    return float(trial.suggest_float(p.name, p.low, p.high, step=p.step, log=p.log))


def _check_out_dir(out: Path, resume: bool) -> None:
    """Refuse an output directory that is not empty and not a tuning of ours (or holds a
    tuning and --resume was not given).  Writes nothing."""
    from ..run.rundir import LOCK

    if out.exists() and not out.is_dir():
        raise TuneError(f"--out {out} is a file, not a directory")
    if not out.exists():
        return
    entries = [p.name for p in out.iterdir() if p.name != LOCK]
    if (out / STUDY_DB).exists():
        if not resume:
            raise TuneError(f"{out} already holds a tuning study; continue it with --resume or choose another out")
        return
    if entries:
        raise TuneError(f"--out {out} is not empty and holds no tuning study (found {sorted(entries)[0]!r}); "
                        f"choose a new or empty directory")


def _mark_ours(path: Path) -> bool:
    from ..analysis.rendering import written_by_ginsim

    if not path.exists():
        return True
    if path.suffix in (".png", ".md", ".html") and written_by_ginsim(path):
        return True
    try:
        return MARK in path.read_text(encoding="utf-8", errors="replace")[:400]
    except OSError:
        return False


def tune_sids(specs) -> set[int]:
    """The strategy ids the tunings of ``specs`` play (their plug-ins registered first): the
    tuned strategy, the opponents, the baselines and the fixed-threshold sweep's strategy."""
    import strategies

    sids = set()
    for spec in specs:
        for pname, ppath in spec.plugins.items():
            strategies.register(pname, ppath)
        names = [spec.strategy, *(name for name, _ in spec.opponents), *spec.baselines.values()]
        if spec.fixed_threshold is not None:
            names.append(spec.fixed_threshold.strategy)
        sids.update(strategies.parse_strategy(name).sid for name in names)
    return sids


def tune_out_dir(spec: TuneSpec, out: str | Path | None = None) -> Path:
    """Where ``tune`` writes: ``out``, else the spec's ``out``, else ``results/<name>``."""
    return Path(out if out is not None else (spec.out or Path("results") / spec.name))


def tune(spec: TuneSpec, out: str | Path | None = None, resume: bool = False, progress: bool = True,
         log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run (or resume) a tuning into ``out`` and write its outputs; returns the result
    (what ``tune.json`` holds)."""
    import strategies

    from ..engine.select import will_play
    from ..run.rundir import RunError, RunLock, code_fingerprint

    from .seeds import development_seed_error

    # the fresh-deal evaluation's seeds derive from spec.seed: no development seed (docs/experiments.md)
    refusal = development_seed_error(spec.seed, f"ginsim tune {spec.name}: the final (fresh-deal) evaluation")
    if refusal:
        raise TuneError(refusal)
    optuna = _optuna()
    log = log or (lambda text: None)
    out = tune_out_dir(spec, out)
    _check_out_dir(out, resume)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TuneError(f"output directory {out} is not writable: {exc.strerror or exc}") from None
    started = time.perf_counter()
    try:
        lock = RunLock(out, f"ginsim tune {spec.path}")
        with lock:
            _check_out_dir(out, resume)  # again, now that nobody else can write here
            for name in (*TUNE_FILES, *FIGURES):
                if not _mark_ours(out / name):
                    raise TuneError(f"{out / name} exists and was not written by ginsim; move it away or choose "
                                    f"another out")
            will_play(tune_sids([spec]))  # one engine for the whole tuning
            fingerprint = _process_fingerprint(spec.plugins, code_fingerprint)
            identity = spec.identity()
            storage = optuna.storages.RDBStorage(f"sqlite:///{(out / STUDY_DB).resolve()}")
            field_ = Field(spec)
            n_opp = len(spec.opponents)
            existing = [s.study_name for s in optuna.get_all_study_summaries(storage)]
            if spec.name in existing:
                study = optuna.load_study(study_name=spec.name, storage=storage, sampler=_sampler(spec),
                                          pruner=_pruner(spec, n_opp))
                attrs = study.user_attrs
                if attrs.get("ginsim_spec") != identity:
                    raise TuneError(f"{out} holds a study of a different spec ({attrs.get('ginsim_path', '?')}); "
                                    f"cannot --resume it with {spec.path}")
                if attrs.get("ginsim_code") != fingerprint:
                    if _needs_play(spec, study):
                        raise TuneError(f"{out} was tuned by other code (fingerprint {attrs.get('ginsim_code')}, now "
                                        f"{fingerprint}: ginsim or a plug-in changed); resuming would mix the two, "
                                        f"so start again with another out")
                    log(f"{out}: a finished tuning (code {attrs.get('ginsim_code')}); rewriting its outputs only")
                    fingerprint = attrs.get("ginsim_code")
                stale = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,))
                for t in stale:  # interrupted (kill -9): nobody else runs here, we hold the lock
                    storage.set_trial_state_values(t._trial_id, optuna.trial.TrialState.FAIL)
                if stale:
                    log(f"{len(stale)} interrupted trial(s) marked failed")
            else:
                if existing:
                    raise TuneError(f"{out / STUDY_DB} holds another study ({existing[0]!r}); choose another out")
                study = optuna.create_study(study_name=spec.name, storage=storage, direction="maximize",
                                            sampler=_sampler(spec), pruner=_pruner(spec, n_opp))
                study.set_user_attr("ginsim_spec", identity)
                study.set_user_attr("ginsim_path", spec.path)
                study.set_user_attr("ginsim_code", fingerprint)
                study.set_user_attr("ginsim_started", time.strftime("%Y-%m-%dT%H:%M:%S%z"))
            sweep = _fixed_sweep(spec, study, field_, progress)
            _enqueue(spec, study, sweep)
            _search(spec, study, field_, progress)
            result = _final(spec, study, field_, sweep, progress, fingerprint)
            seconds = time.perf_counter() - started
            total_seconds = float(study.user_attrs.get("ginsim_seconds", 0.0))
            if field_.played:  # time spent playing; a resume that only rewrites outputs adds none
                total_seconds += seconds
                study.set_user_attr("ginsim_seconds", total_seconds)
            result["seconds_this_session"] = seconds
            result["seconds_total"] = total_seconds
            result["played_this_session"] = field_.played
            result["out"] = str(out)
            write_outputs(spec, study, result, out)
            return result
    except RunError as exc:
        raise TuneError(str(exc)) from None


#: the code fingerprint of this process, per plug-in set: taken once, at the first tuning, so
#: that every tuning of one process (``ginsim tune a.toml b.toml``) records the code it was
#: played by even when the files on disk change meanwhile
_FINGERPRINTS: dict[tuple, str] = {}


def _process_fingerprint(plugins: dict[str, str], code_fingerprint) -> str:
    key = tuple(sorted(plugins.items()))
    if key not in _FINGERPRINTS:
        _FINGERPRINTS[key] = code_fingerprint(plugins)
    return _FINGERPRINTS[key]


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
    import strategies

    s = strategies.parse_strategy(spec)
    values = dict(s.values)
    values[param] = float(value)
    defaults = strategies.REGISTRY[s.name].params
    changed = [f"{k}={format_value(v)}" for k, v in values.items() if v != defaults[k] or k == param]
    return s.name + (":" + ",".join(changed) if changed else "")


def _enqueue(spec: TuneSpec, study, sweep: dict[str, Any] | None) -> None:
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


def _finished(study) -> list:
    optuna = _optuna()
    return study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED))


def _search(spec: TuneSpec, study, field_: Field, progress: bool) -> None:
    from tqdm.auto import tqdm

    optuna = _optuna()
    n_opp = len(spec.opponents)
    rungs = spec.budget.rungs(n_opp)
    unit = spec.budget.unit

    def objective(trial) -> float:
        values = {p.name: _suggest(trial, p) for p in spec.params}
        label = candidate_spec(spec, values)
        trial.set_user_attr("strategy", label)
        prior = next((t for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,
                                                                            optuna.trial.TrialState.PRUNED))
                      if t.user_attrs.get("strategy") == label), None)
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

    remaining = spec.trials - len(_finished(study))
    with tqdm(total=spec.trials, initial=spec.trials - max(remaining, 0), disable=bar_disabled(progress), unit="trial",
              desc=f"{spec.name}: trials", leave=False) as bar:
        def callback(study_, trial) -> None:
            bar.update(1)
            bar.set_postfix_str(_postfix(study_), refresh=False)

        while remaining > 0:
            study.optimize(objective, n_trials=remaining, callbacks=[callback], catch=())
            remaining = spec.trials - len(_finished(study))
        if spec.polish and not study.user_attrs.get("ginsim_polish_done"):
            bar.set_description_str(f"{spec.name}: polish")
            _polish(spec, study, objective, callback, bar)


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
    optuna = _optuna()
    return len(study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.WAITING,)))


def _polish(spec: TuneSpec, study, objective, callback, bar) -> None:
    """Coordinate polish after the search: try every neighbour of the best complete trial
    (on the same deals, through the same rungs and pruner), and again around a new best,
    for at most ``polish`` rounds.  Kept in the study, so a resume picks it up."""
    optuna = _optuna()
    polished = list(study.user_attrs.get("ginsim_polished", []))
    while True:
        waiting = _waiting(study)
        if waiting:  # enqueued neighbours not yet played (also after an interruption)
            bar.total += waiting
            bar.refresh()
            study.optimize(objective, n_trials=waiting, callbacks=[callback], catch=())
        best = _best_trial(study)
        if best.number in polished or len(polished) >= spec.polish:
            break
        seen = [t.params for t in study.get_trials(deepcopy=False)
                if t.state in (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)]
        for params in _neighbours(spec, dict(best.params)):
            if not any(all(math.isclose(float(other.get(k, math.nan)), float(v)) for k, v in params.items())
                       for other in seen):
                study.enqueue_trial(params)
        polished.append(best.number)
        study.set_user_attr("ginsim_polished", polished)
    study.set_user_attr("ginsim_polish_done", True)


def _postfix(study) -> str:
    try:
        return f"best {study.best_value:+.4f}"
    except ValueError:
        return "no complete trial yet"


def _best_trial(study):
    optuna = _optuna()
    complete = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    if not complete:
        raise TuneError("no trial completed: raise trials or the budget")
    return max(complete, key=lambda t: (t.value, -t.number))


def _final(spec: TuneSpec, study, field_: Field, sweep: dict[str, Any] | None, progress: bool,
           fingerprint: str) -> dict[str, Any]:
    """The fresh-seed comparison of the chosen policy with the baselines (kept in the
    study once done for this best trial and trial count)."""
    from tqdm.auto import tqdm

    from ..analysis.stats import t_interval

    best = _best_trial(study)
    chosen = best.user_attrs["strategy"]
    key = {"best_trial": best.number, "trials": spec.trials}
    cached = study.user_attrs.get("ginsim_fresh")
    policies = {"tuned": chosen, **spec.baselines}
    if sweep is not None:
        policies[f"best fixed {sweep['param']} ({format_value(sweep['best_value'])})"] = sweep["best_spec"]
    if cached is None or cached.get("key") != key:
        n_opp = len(spec.opponents)
        pairs = spec.budget.pairs(n_opp, spec.budget.fresh)
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
            se, lo, hi = t_interval(u.mean(), u.std(ddof=1), len(u), 0.95)
            diff = u0 - u
            dse, dlo, dhi = t_interval(diff.mean(), diff.std(ddof=1), len(diff), 0.95)
            opp = []
            for i, (ospec, _) in enumerate(spec.opponents):
                d = per0[i] - per[i]
                _, olo, ohi = t_interval(d.mean(), d.std(ddof=1), len(d), 0.95)
                _, vlo, vhi = t_interval(per[i].mean(), per[i].std(ddof=1), len(d), 0.95)
                opp.append({"opponent": ospec, "value": float(per[i].mean()), "ci": [float(vlo), float(vhi)],
                            "edge": float(d.mean()), "edge_ci": [float(olo), float(ohi)]})
            rows.append({"name": name, "strategy": label, "value": float(u.mean()), "ci": [float(lo), float(hi)],
                         "se": float(se), "edge": float(diff.mean()), "edge_ci": [float(dlo), float(dhi)],
                         "edge_se": float(dse), "per_opponent": opp})
        cached = {"key": key, "pairs_per_opponent": pairs, "units": pairs, "rows": rows}
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
        "sampler": spec.sampler, "pruner": spec.pruner, "description": spec.description,
    }


# ----------------------------------------------------------------------------- outputs

def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return format_value(v) if float(v).is_integer() or isinstance(v, int) else repr(float(v))
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def best_toml(result: dict[str, Any]) -> str:
    rows = {r["name"]: r for r in result["fresh"]["rows"]}
    tuned = rows["tuned"]
    unit = result["budget"]["unit"]
    lines = [
        f"# {MARK} from {result['spec_file']}: the best policy found, and how it did on fresh {unit}.",
        "# `strategy` is a spec string: paste it wherever ginsim takes a strategy.",
        f"name = {_toml_value(result['name'])}",
        f"strategy = {_toml_value(result['strategy'])}",
        f"objective = {_toml_value(result['objective'])}",
        f"rules = {_toml_value(result['rules'])}",
        f"field = {_toml_value([o['strategy'] for o in result['opponents']])}",
        f"weights = {_toml_value([o['weight'] for o in result['opponents']])}",
        f"tuning_value = {_toml_value(round(result['tuning_value'], 6))}  # on the tuning {unit} (selection-biased)",
        f"fresh_value = {_toml_value(round(tuned['value'], 6))}  # on fresh {unit}",
        f"fresh_ci95 = {_toml_value([round(x, 6) for x in tuned['ci']])}",
        "",
        "[params]",
        *(f"{k} = {_toml_value(v)}" for k, v in result["tuned_params"].items()),
        "",
        f"# edge of the tuned policy over each baseline on the same fresh {unit}, with its paired 95% interval",
        "[edges]",
    ]
    for name, r in rows.items():
        if name == "tuned":
            continue
        edge, ci = _toml_value(round(r["edge"], 6)), _toml_value([round(x, 6) for x in r["edge_ci"]])
        lines.append(f"{json.dumps(name)} = {{ strategy = {json.dumps(r['strategy'])}, edge = {edge}, ci95 = {ci} }}")
    return "\n".join(lines) + "\n"


def _fmt_value(objective: str, v: float) -> str:
    return f"{100 * v:.2f}%" if objective == "game_win" else f"{v:+.3f}"


def tune_findings(result: dict[str, Any], limit: int, target: int) -> list[str]:
    """The tuning report's headline findings: the best policy found, its value against the
    field on fresh deals and its paired edge over each baseline, with 95% intervals."""
    objective, rows = result["objective"], result["fresh"]["rows"]
    items = [f"Best policy found: {result['strategy']} — {describe_policy(result['strategy'], limit, target)}.",
             f"On fresh deals its {result['objective_text']} against the field is "
             f"{_fmt_ci(objective, rows[0]['value'], rows[0]['ci'])} ({result['fresh']['units']:,} units)."]
    items += [f"Edge over {r['name']} ({r['strategy']}): {_fmt_ci(objective, r['edge'], r['edge_ci'], True)}"
              + (" — better" if r["edge_ci"][0] > 0 else " — worse" if r["edge_ci"][1] < 0 else
                 " — no detectable difference") + "." for r in rows[1:]]
    return items


def _fmt_ci(objective: str, v: float, ci: list[float], edge: bool = False) -> str:
    if objective == "game_win":
        scale, unit, fmt = 100, " pp" if edge else "%", "+.2f" if edge else ".2f"
        return f"{scale * v:{fmt}}{unit} [{scale * ci[0]:{fmt}}, {scale * ci[1]:{fmt}}]"
    if not all(math.isfinite(x) for x in ci):
        return f"{v:+.3f}"
    return f"{v:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]"


def _segments(curve: np.ndarray, first_draw: int = 1) -> str:
    """Whole-point thresholds by draw as words: "≤ 9 on draws 1–3, then gin only"."""
    parts = []
    i = 0
    n = len(curve)
    while i < n:
        j = i
        while j + 1 < n and curve[j + 1] == curve[i]:
            j += 1
        k = int(curve[i])
        what = "gin only" if k == 0 else f"≤ {k}"
        a, b = first_draw + i, first_draw + j
        if j == n - 1:
            span = "" if i == 0 else f"from draw {a}"
        else:
            span = f"on draw {a}" if a == b else f"on draws {a}–{b}"
        parts.append(f"{what} {span}".strip())
        i = j + 1
    text = ", ".join(parts[:-1]) + (", then " if len(parts) > 1 else "") + parts[-1]
    return text


def describe_policy(strategy: str, limit: int = 10, target: int = 100) -> str:
    """The knock rule of a spec in plain words, as it acts on whole-point deadwood under a
    knock limit of ``limit`` (knock_policy and the strategies with ``knock_at``)."""
    import strategies

    s = strategies.parse_strategy(strategy)
    v = s.values
    draws = np.arange(1, 41)
    base = threshold_curve(strategy, draws, 0, limit)
    if base is None:
        return strategy
    if s.name != "knock_policy":
        return "knock as soon as legal" if base[0] >= limit else \
            ("gin only" if not base.any() else f"knock at deadwood ≤ {int(base[0])}")
    if not base.any():
        text = "gin only"
    elif (base == limit).all():
        text = "knock as soon as legal"
    else:
        text = "knock at deadwood " + _segments(base)
    pen = v["pickup_penalty"]
    if pen and (threshold_curve(strategy, draws, 1, limit) != base).any():
        text += f"; {format_value(pen)} lower per card the opponent took from the pile"
    if v["score_bonus"] and v["near_target"] > 0:
        near = threshold_curve(strategy, draws, 0, limit, opp_score=max(1, target - int(v["near_target"])),
                               target=target)
        if (near != base).any():
            text += (f"; when the opponent is within {format_value(v['near_target'])} of the target: "
                     + ("gin only" if not near.any() else "knock at deadwood " + _segments(near)))
    return text + ("" if text.startswith(("gin only", "knock as soon as legal")) else " (gin always)")


def threshold_curve(strategy: str, draws: np.ndarray, pickups: int, limit: int, opp_score: int = 0,
                    target: int = 100) -> np.ndarray | None:
    """The largest deadwood a spec knocks with against own draws (its threshold, capped at
    the knock limit, rounded down), or None when its knock rule is not a threshold."""
    import strategies

    s = strategies.parse_strategy(strategy)
    row = s.row
    if s.name == "knock_policy":
        from strategies.knock_policy import threshold_nb

        out = np.array([threshold_nb(row, np.int64(t), np.int64(pickups), np.int64(opp_score), np.int64(target))
                        for t in draws], dtype=float)
    elif s.name == "threshold_schedule":
        from strategies.threshold_schedule import threshold_nb

        out = np.array([threshold_nb(row, np.int64(t)) for t in draws], dtype=float)
    elif "knock_at" in s.values:
        k = s.values["knock_at"]
        out = np.full(len(draws), float(limit if k < 0 else k))
    else:
        return None
    # deadwood is whole points: the largest deadwood knocked with (gin always)
    return np.maximum(np.floor(np.minimum(out, limit) + 1e-9), 0.0)


def write_outputs(spec: TuneSpec, study, result: dict[str, Any], out: Path) -> list[Path]:
    """best.toml, tune.json, report.md, report.html and the figures, each written whole."""
    written = []
    path = out / "best.toml"
    atomic_write(path, best_toml(result))
    written.append(path)
    path = out / "tune.json"
    atomic_write(path, json.dumps({"_": MARK, **result}, indent=1, default=float) + "\n")
    written.append(path)
    written += _write_report(spec, study, result, out)
    return written


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


def _write_report(spec: TuneSpec, study, result: dict[str, Any], out: Path) -> list[Path]:
    import pandas as pd

    from ..analysis.rendering import Document, findings_section, new_figure, save_figure
    from ..core.rules import resolve_rules

    objective = spec.objective
    what = OBJECTIVE_TEXT[objective]
    unit = spec.budget.unit
    rules = resolve_rules(dict(spec.rules))
    limit = _max_limit(rules)
    fresh = result["fresh"]
    rows = fresh["rows"]
    trials = _trial_table(study, spec)
    pngs: list[Path] = []
    doc = Document()
    doc.h(1, f"ginsim tune: {spec.name}")
    if spec.description:
        doc.p(spec.description)
    findings_section(doc, tune_findings(result, limit, rules.target_score),
                     "The tuned policy and its result on fresh deals, which the search never saw, with 95% "
                     "confidence intervals in brackets.")
    doc.h(2, "About this tuning")
    doc.ul([
        f"Spec file: {spec.path}; rules: {spec.rules_label}; objective: {what} against the field "
        f"(weighted mean), maximised.",
        "Field: " + ", ".join(f"{s} (weight {format_value(w)})" for s, w in spec.opponents) + ".",
        f"Search: {sum(result['trial_states'].values())} trials ({spec.trials} sampled or seeded, "
        f"{sum(result['trial_states'].values()) - spec.trials} in up to {spec.polish} polish rounds; "
        f"{result['trial_states'].get('complete', 0)} complete, "
        f"{result['trial_states'].get('pruned', 0)} pruned, {result['trial_states'].get('fail', 0)} failed), "
        f"sampler {spec.sampler}, pruner {spec.pruner}; rungs of "
        + ", ".join(f"{r:,}" for r in result["rungs"]) + f" {unit} per candidate (reduction factor "
        f"{spec.budget.reduction}); {result['search_played']:,} {unit} played in the search.",
        f"Fresh comparison: {2 * fresh['pairs_per_opponent'] * len(spec.opponents):,} {unit} per policy "
        f"({fresh['pairs_per_opponent']:,} mirrored pairs against each opponent), on seeds never used in the search.",
        f"Seed {spec.seed}; code fingerprint {result['code_fingerprint']}; "
        f"{result['seconds_total']:.0f} s of tuning in total.",
    ])

    doc.h(2, "Fresh-seed comparison")
    doc.p(f"Each policy plays the same fresh {unit} against the same field. 'value' is its {what} against "
          f"the field; 'edge of tuned' is the tuned policy's value minus this policy's, a paired mean over "
          f"{fresh['units']:,} units (unit p: the weighted field mean of mirrored pair p), with its 95% "
          f"Student t interval. An edge whose interval lies above zero means the tuned policy is better "
          f"on fresh deals; selection bias cannot produce it.")
    table = pd.DataFrame([{
        "strategy": r["name"], "spec": r["strategy"],
        "value [95% CI]": _fmt_ci(objective, r["value"], r["ci"]),
        "edge of tuned [95% CI]": "–" if r["name"] == "tuned" else _fmt_ci(objective, r["edge"], r["edge_ci"], True),
    } for r in rows])
    doc.table(table)
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

    doc.h(3, "Against each opponent")
    opp_rows = []
    for i, (ospec, w) in enumerate(spec.opponents):
        row = {"opponent": ospec, "weight": format_value(w),
               "tuned [95% CI]": _fmt_ci(objective, rows[0]["per_opponent"][i]["value"],
                                         rows[0]["per_opponent"][i]["ci"])}
        for r in base_rows:
            o = r["per_opponent"][i]
            row[f"edge over {r['name']}"] = _fmt_ci(objective, o["edge"], o["edge_ci"], True)
        opp_rows.append(row)
    doc.table(pd.DataFrame(opp_rows))

    doc.h(2, "The policy")
    curve_draws = np.arange(1, 26)
    base_curve = threshold_curve(result["strategy"], curve_draws, 0, limit)
    if base_curve is not None:
        fig = new_figure(7.5, 4.2)
        ax = fig.add_subplot()
        pickups = [0, 1, 2, 3] if _strategy_params(result["strategy"]).get("pickup_penalty", 0) else [0]
        for p in pickups:
            curve = threshold_curve(result["strategy"], curve_draws, p, limit)
            ax.step(curve_draws, curve, where="post", lw=2 if p == 0 else 1.2,
                    label="tuned" + (f", opponent took {p} pile card{'s' if p != 1 else ''}"
                                     if len(pickups) > 1 else ""))
        sp = _strategy_params(result["strategy"])
        if sp.get("score_bonus") and sp.get("near_target", 0) > 0:
            curve = threshold_curve(result["strategy"], curve_draws, 0, limit, opp_score=rules.target_score - 1,
                                    target=rules.target_score)
            ax.step(curve_draws, curve, where="post", ls="--", lw=1.2, label="tuned, opponent near the target")
        for r in base_rows:
            other = threshold_curve(r["strategy"], curve_draws, 0, limit)
            if other is not None:
                ax.step(curve_draws, other, where="post", ls=":", lw=1.2, label=r["name"])
        ax.set_xlabel("cards this player has drawn in the hand")
        ax.set_ylabel("largest deadwood it knocks with (points)")
        ax.set_ylim(-0.5, max(limit, 1) + 0.5)
        ax.set_title("Knock threshold against draws")
        ax.legend(fontsize=8, loc="upper right")
        pngs.append(save_figure(fig, out / "policy.png"))
        doc.fig(pngs[-1], "The tuned knock threshold against draws",
                f"The largest deadwood the tuned policy knocks with, against the number of cards it has drawn in "
                f"the hand (capped at the knock limit {limit}; gin is always knocked), with the baselines dotted.")
    values = [{"parameter": p.name, "range": f"{format_value(p.low)} .. {format_value(p.high)}"
               + (f" step {format_value(p.step)}" if p.step else "") + (" (log)" if p.log else ""),
               "tuned": format_value(result["tuned_params"][p.name])} for p in spec.params]
    values += [{"parameter": k, "range": "fixed", "tuned": format_value(v)} for k, v in spec.fixed.items()]
    doc.table(pd.DataFrame(values))

    if result["fixed_sweep"] is not None:
        sw = result["fixed_sweep"]
        doc.h(3, f"Fixed {sw['param']} on the tuning {unit}")
        doc.p(f"`{sw['strategy']}` with {sw['param']} fixed, each at the full budget on the tuning {unit} "
              f"(the same as every complete trial). The best, {sw['param']} = {format_value(sw['best_value'])}, "
              f"is the 'best fixed' baseline.")
        doc.table(pd.DataFrame([{sw["param"]: k, what: _fmt_value(objective, v)} for k, v in sw["values"].items()]))

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

    importance, n_imp = _importances(study, spec)
    if importance:
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
    else:
        doc.p(f"Parameter importance needs at least three trials that finished the first rung ({n_imp} did).")

    top = trials[~trials["repeat"]].drop(columns="repeat")
    top = top.sort_values("value", ascending=False, na_position="last").head(10)
    top = top.assign(value=top["value"].map(lambda v: _fmt_value(objective, v) if pd.notna(v) else "–"),
                     played=top["played"].map(lambda v: f"{v:,}"))
    repeats = int(trials["repeat"].sum())
    doc.p(f"The ten best trials (value: at the full budget for complete trials, else at the last rung; {unit}: "
          f"{unit} played). {repeats} trial(s) proposed a policy already played and took its values without "
          f"playing; they are left out here.")
    doc.table(top.rename(columns={"played": unit}))

    md, htm = out / "report.md", out / "report.html"
    atomic_write(md, doc.markdown())
    atomic_write(htm, doc.html(f"ginsim tune: {spec.name}"))
    return [md, htm, *pngs]


# ----------------------------------------------------------------------------- summary of several tunings

def write_summary(results: list[dict[str, Any]], path: str | Path, title: str | None = None) -> Path:
    """One Markdown table over several tunings (e.g. one per rule variant): the best
    policy, its fresh value, and its fresh edges over every baseline, with intervals."""
    from ..core.rules import resolve_rules

    path = Path(path)
    if path.exists() and not _mark_ours(path):
        raise TuneError(f"{path} exists and was not written by ginsim; move it away or choose another --summary")
    prefix = os.path.commonprefix([r["name"] for r in results]) if len(results) > 1 else ""
    prefix = prefix[: prefix.rfind("_") + 1] if "_" in prefix else ""
    if title is None:
        title = f"Study {prefix.rstrip('_')}: the tuned policy of each tuning" if prefix else "Tuning summary"
    lines = [f"<!-- {MARK}; rerun the tuning to replace this file -->", f"# {title}", "",
             "One row per tuning (`ginsim tune`). 'best policy' is the best complete trial of the search; every "
             "other figure comes from fresh deals (or games) never used in the search, so selection bias is "
             "removed: 'tuned vs field' is the tuned policy's objective against the weighted field, and each "
             "'edge over' is the tuned policy's value minus the baseline's on the same fresh deals, with its "
             "paired 95% interval (Student t over mirrored-pair units). Points per hand for net points; "
             "percentage points for game-win probability. A threshold never exceeds the deal's knock limit "
             "(under oklahoma, the upcard's value). Each tuning's own report has the details.", ""]
    baseline_names: list[str] = []
    for r in results:
        for row in r["fresh"]["rows"][1:]:
            base = row["name"].split(" (")[0]
            if base not in baseline_names:
                baseline_names.append(base)
    head = ["tuning", "rules", "objective", "best policy", "spec", "tuned vs field"] + \
        [f"edge over {b}" for b in baseline_names]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] * 5 + ["---:"] * (len(head) - 5)) + "|")
    for r in results:
        rows = r["fresh"]["rows"]
        rules = resolve_rules(dict(r["rules"]))
        link = Path(os.path.relpath(Path(r.get("out", r["name"])).resolve() / "report.md", path.resolve().parent))
        cells = [f"[{r['name'][len(prefix):] or r['name']}]({link.as_posix()})", r["rules_label"], r["objective_text"],
                 describe_policy(r["strategy"], _max_limit(rules), rules.target_score), f"`{r['strategy']}`",
                 _fmt_ci(r["objective"], rows[0]["value"], rows[0]["ci"])]
        by_base = {row["name"].split(" (")[0]: row for row in rows[1:]}
        for b in baseline_names:
            row = by_base.get(b)
            if row is None:
                cells.append("–")
                continue
            text = _fmt_ci(r["objective"], row["edge"], row["edge_ci"], True)
            if "(" in row["name"]:
                param = row["name"].split(" (")[0].split()[-1]
                text += f" ({param} = {row['name'].split('(')[1].rstrip(')')})"
            cells.append(text)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    atomic_write(path, "\n".join(lines) + "\n")
    return path
