"""The strategy registry: names, ids, parameters, and strategy specs.

A *spec* names a strategy and optionally sets parameters: ``"simple"``,
``"simple:knock_at=0"``, ``"gin_hunter:knock_at=2,panic_stock=6"``.  Parameters travel to
the engine as a float row (``N_PARAMS`` long), so changing them never recompiles.

A strategy declares its parameters in ``PARAMS`` (name -> default number, finite) and may
bound them in ``PARAM_RANGES`` (name -> ``(low, high)``, inclusive): integer bounds make
the parameter *integral* (a count, a flag, a bit set), float bounds a real one.  A spec
is validated, never coerced: a value outside its range, a non-integral value of an
integral parameter, a parameter given twice or a non-finite value is refused with a
one-line ``ValueError`` naming the parameter and its allowed values, so two labels never
play the same code.
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import numpy as np

from .hybrid import Hybrid, is_hybrid, parse_hybrid
from .pyplayer import Decider, Player, is_player, strategy_failure
from .plugin_checks import check_contract
from .plugins import DECISIONS, OPTIONAL_DECISIONS, load_plugin, plugin_digest
from .view import N_PARAMS


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    sid: int
    module: ModuleType
    params: dict[str, float]
    summary: str
    path: str | None = None  # the file of a plug-in; None for a built-in
    digest: str | None = None  # SHA-256 of a plug-in file's content (``plugin_digest``); None for a built-in
    kind: str = "numba"  # "numba": decision functions in ``module``; "python": a Python player (``player``)
    player: object = None  # a Python strategy: its class (made with the parameters) or instance
    ranges: dict = field(default_factory=dict)  # name -> (low, high, integral): ``PARAM_RANGES`` checked
    #: the module's optional ``threshold(params, draws, limit, ...)``: its knock threshold by
    #: draw (``strategies.thresholds``), or None when its knock rule is not a threshold
    threshold: Callable | None = None
    #: the module's optional ``describe(params, rules)``: its knock rule in plain words
    describe: Callable | None = None
    #: the module's optional ``SOURCE``: the paper or program a published player is written
    #: from (``ginsim strategies`` prints it); None for ginsim's own players
    source: str | None = None


@dataclass(frozen=True)
class Strategy:
    """A resolved strategy spec: id, full parameter values, and the parameter row."""

    name: str
    sid: int
    values: dict[str, float] = field(default_factory=dict)

    @property
    def row(self) -> np.ndarray:
        """The parameter row the engine reads: slot i holds the i-th parameter of the
        strategy's ``PARAMS``, looked up by name (never by the order of ``values``)."""
        names = list(REGISTRY[self.name].params)
        unknown = set(self.values) - set(names)
        if unknown:
            raise ValueError(f"unknown parameter {sorted(unknown)[0]!r} for strategy {self.name!r}; "
                             f"parameters: {', '.join(names) or 'none'}")
        out = np.zeros(N_PARAMS, dtype=np.float64)
        for i, name in enumerate(names):
            out[i] = self.values.get(name, REGISTRY[self.name].params[name])
        return out

    @property
    def is_python(self) -> bool:
        """True for a plain-Python strategy (``strategies.pyplayer``), played by
        ``simulator.engine.pydriver`` instead of the numba kernels."""
        return REGISTRY[self.name].kind == "python"

    @property
    def label(self) -> str:
        """The canonical spec: name plus the parameters that differ from the defaults."""
        defaults = REGISTRY[self.name].params
        changed = [f"{k}={_fmt(v)}" for k, v in self.values.items() if v != defaults[k]]
        return self.name + (":" + ",".join(changed) if changed else "")


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


# ids are positions in this list: the dispatch module routes on them
BUILTIN: list[tuple[str, str]] = [
    ("random", "strategies.random_play"),
    ("knock_early", "strategies.knock_early"),
    ("simple", "strategies.simple"),
    ("gin_hunter", "strategies.gin_hunter"),
    ("threshold_schedule", "strategies.threshold_schedule"),
    ("defensive", "strategies.defensive"),
    ("undercut_aware", "strategies.undercut_aware"),
    ("knock_policy", "strategies.knock_policy"),
    ("expert", "strategies.expert"),
    ("mc", "strategies.mc"),
    ("knock_table", "strategies.knock_table"),
    # published players, written from their papers or public descriptions (docs/published.md)
    ("gold_standard", "strategies.gold_standard"),
    ("heisenbot", "strategies.heisenbot"),
    ("marjj", "strategies.marjj"),
]

#: engine routes that are not strategies of their own: (strategy name, module), ids after the
#: built-ins'.  A spec of the strategy whose parameters its module's ``route(values)`` sends
#: to the module plays through that module's decisions under the route's id, so an engine
#: compiles that code only in a process that plays such a spec (``engine_entries``,
#: ``simulator.engine.select.engine_module``): ``mc``'s rollouts that play ``marjj`` for both
#: seats are a few seconds of compiling that no other ``mc`` needs
BUILTIN_ROUTES: list[tuple[str, str]] = [
    ("mc", "strategies.mc_marjj"),
]
#: a route's module name -> its id
ROUTE_IDS: dict[str, int] = {module: len(BUILTIN) + i for i, (_, module) in enumerate(BUILTIN_ROUTES)}

REGISTRY: dict[str, StrategyInfo] = {}
#: plug-ins registered in this process: name -> file path
PLUGINS: dict[str, str] = {}
#: Python strategies registered from files in this process: name -> "file.py:ClassName"
PY_PLUGINS: dict[str, str] = {}


def _number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def declared_params(who: str, params, ranges) -> tuple[dict[str, float], dict[str, tuple[float, float, bool]]]:
    """A strategy's ``PARAMS`` and ``PARAM_RANGES`` checked (``who`` names it in errors):
    the defaults as floats, and name -> (low, high, integral).  Defaults must be finite
    numbers inside their ranges; bounds are pairs of numbers, integral when both are
    integers; a one-line ValueError otherwise."""
    if not isinstance(params, dict) or not all(isinstance(k, str) and _number(v) for k, v in params.items()):
        raise ValueError(f"{who}: PARAMS must be a dict of parameter name -> default number")
    if len(params) > N_PARAMS:
        raise ValueError(f"{who}: at most {N_PARAMS} parameters")
    for key, value in params.items():
        if not math.isfinite(float(value)):
            raise ValueError(f"{who}: PARAMS[{key!r}] must be a finite number, got {value!r}")
    ranges = {} if ranges is None else ranges
    if not isinstance(ranges, dict):
        raise ValueError(f"{who}: PARAM_RANGES must be a dict of parameter name -> (low, high)")
    checked = {}
    for key, bounds in ranges.items():
        if key not in params:
            raise ValueError(f"{who}: PARAM_RANGES names {key!r}, which is not in PARAMS ({', '.join(params) or 'none'})")
        if not (isinstance(bounds, (tuple, list)) and len(bounds) == 2 and all(_number(b) for b in bounds)
                and all(math.isfinite(float(b)) for b in bounds) and bounds[0] <= bounds[1]):
            raise ValueError(f"{who}: PARAM_RANGES[{key!r}] must be (low, high) with finite low <= high, got {bounds!r}")
        integral = all(isinstance(b, (int, np.integer)) for b in bounds)
        checked[key] = (float(bounds[0]), float(bounds[1]), integral)
    values = {k: float(v) for k, v in params.items()}
    for key, value in values.items():
        problem = param_problem(key, value, checked)
        if problem:
            raise ValueError(f"{who}: the default of {problem}")
    return values, checked


def range_text(low: float, high: float, integral: bool) -> str:
    """``an integer in 1 .. 100000`` or ``a number in 0.0 .. 1.0``."""
    if integral:
        return f"an integer in {int(low)} .. {int(high)}"
    return f"a number in {low!r} .. {high!r}"


def param_problem(key: str, value: float, ranges: dict, owner: str = "", shown: str | None = None) -> str | None:
    """What is wrong with ``value`` for parameter ``key`` under ``ranges`` (from
    ``declared_params``; ``owner``, e.g. `` of strategy 'mc'``, follows the name; ``shown``
    is the value as the user wrote it), or None when it is allowed."""
    if key not in ranges:
        return None
    low, high, integral = ranges[key]
    if (integral and not float(value).is_integer()) or not low <= value <= high:
        return f"parameter {key!r}{owner} must be {range_text(low, high, integral)}, got {shown or _fmt(value)}"
    return None


def _info(name: str, sid: int, module: ModuleType, path: str | None, digest: str | None = None) -> StrategyInfo:
    where = path or module.__name__
    params, ranges = declared_params(f"strategy {name!r} ({where})", getattr(module, "PARAMS", None),
                                     getattr(module, "PARAM_RANGES", None))
    summary = getattr(module, "SUMMARY", None)
    if not isinstance(summary, str):
        raise ValueError(f"strategy {name!r} ({where}): SUMMARY must be a one-line string")
    for decision in DECISIONS + tuple(d for d in OPTIONAL_DECISIONS if hasattr(module, d)):
        if not hasattr(getattr(module, decision, None), "py_func"):
            raise ValueError(f"strategy {name!r} ({where}): {decision} must be a numba @njit function")
    shown = {}
    for hook in ("threshold", "describe"):  # optional plain-Python views of the knock rule (strategies.thresholds)
        shown[hook] = getattr(module, hook, None)
        if shown[hook] is not None and not callable(shown[hook]):
            raise ValueError(f"strategy {name!r} ({where}): {hook} must be a function (see strategies.thresholds)")
    source = getattr(module, "SOURCE", None)
    if source is not None and (not isinstance(source, str) or "\n" in source):
        raise ValueError(f"strategy {name!r} ({where}): SOURCE must be a one-line string naming where the policy comes from")
    return StrategyInfo(name, sid, module, params, summary, path, digest, ranges=ranges, source=source, **shown)


for _sid, (_name, _module) in enumerate(BUILTIN):
    REGISTRY[_name] = _info(_name, _sid, importlib.import_module(_module), None)


#: what each ``DEFENCE`` a strategy module declares means (reports print it)
DEFENCES = {
    "best": "best response (melds and layoffs chosen together to leave the least deadwood)",
    "eaai": "EAAI baseline (a random least-deadwood arrangement, ignoring the knocker's melds; "
            "then every unmelded card that fits is laid off)",
    "no_layoffs": "no layoffs (its first least-deadwood arrangement, nothing laid off)",
}


def defence_of(spec: str) -> str:
    """How the strategy of ``spec`` defends after a knock, in words: its module's
    ``DEFENCE`` (``DEFENCES``); a plug-in without ``defend_nb`` defends with the best
    response, one with it as its ``defend_nb`` decides; "unknown" for a strategy not
    registered in this process.  A Python strategy (``strategies.pyplayer``) may name its
    defence in a class attribute ``DEFENCE``; otherwise it defends with the best response
    unless its class overrides ``Player.defend`` (or decides everything in
    ``choose_action``)."""
    info = REGISTRY.get(str(spec).split(":", 1)[0].strip())
    if info is None:
        return "unknown"
    if info.kind == "python":
        cls = info.player if inspect.isclass(info.player) else type(info.player)
        declared = getattr(cls, "DEFENCE", None)
        if declared in DEFENCES:
            return DEFENCES[declared]
        if callable(getattr(cls, "choose_action", None)):
            return "its own choose_action"
        if getattr(cls, "defend", Player.defend) is not Player.defend:
            return "its own defend()"
        return DEFENCES["best"]
    declared = getattr(info.module, "DEFENCE", None)
    if declared in DEFENCES:
        return DEFENCES[declared]
    return "its own defend_nb" if hasattr(info.module, "defend_nb") else DEFENCES["best"]


def register(name: str, path) -> StrategyInfo:
    """Register a plug-in strategy from a Python file, usable by ``name`` everywhere.

    ``path`` is either a file of numba functions (below), or ``"file.py:ClassName"`` (or a
    class or instance) for a plain-Python strategy (``strategies.pyplayer.Player``; see
    ``register_player``).

    The file defines ``PARAMS``, ``SUMMARY`` and numba functions ``take_nb``,
    ``discard_nb``, ``knock_nb`` and ``arrange_nb``, and may define ``defend_nb`` (without
    it the strategy defends with the best response; see ``strategies.view`` and the
    plug-in contract in docs/strategies.md).  Each function is compiled here for the engine's argument
    types (and cached), so a broken plug-in fails now with a one-line ``ValueError``
    naming the file, not later inside the engine.  Registering the same name and file
    again is a no-op while the file is unchanged; after an edit it loads the new content
    under the same id.  A different file under a taken name raises.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"strategy name must be an identifier, got {name!r}")
    if not isinstance(path, (str, Path)) or split_class_spec(str(path))[1]:
        return register_player(name, path)
    path = str(Path(path).resolve())
    known = REGISTRY.get(name)
    if known is not None and known.kind == "python":
        raise ValueError(f"strategy name {name!r} is taken by a Python strategy; strategies: {', '.join(REGISTRY)}")
    if known is not None and known.path != path:
        raise ValueError(f"strategy name {name!r} is taken; strategies: {', '.join(REGISTRY)}")
    if not Path(path).is_file():
        raise ValueError(f"strategy file {path!r} does not exist")
    if known is not None and known.digest == plugin_digest(path):
        return known
    module, digest = load_plugin(name, path)
    info = _info(name, known.sid if known else numba_count(), module, path, digest)
    check_contract(name, module, path)
    REGISTRY[name] = info
    PLUGINS[name] = path
    return info


def numba_count() -> int:
    """Ids the numba engine routes, numba strategies' and ``BUILTIN_ROUTES``': 0 ..
    numba_count() - 1 (Python strategies get negative ids, which the engine refuses)."""
    return sum(1 for i in REGISTRY.values() if i.kind == "numba") + len(BUILTIN_ROUTES)


def engine_entries() -> list[tuple[str, str | None]]:
    """What each engine id routes to, by id: (module name, content digest; None for a
    built-in), for every numba strategy and every route (``BUILTIN_ROUTES``); the input of
    ``strategies.codegen.dispatch_source``."""
    entries: list[tuple[str, str | None] | None] = [None] * numba_count()
    for info in REGISTRY.values():
        if info.kind == "numba":
            entries[info.sid] = (info.module.__name__, info.digest)
    for module, sid in ROUTE_IDS.items():
        entries[sid] = (module, None)
    return entries


def name_of(sid: int) -> str:
    """The name of the strategy that plays under engine id ``sid`` (a route's strategy for a
    route's id); a KeyError for an id nothing plays under."""
    for info in REGISTRY.values():
        if info.sid == sid:
            return info.name
    for (name, module) in BUILTIN_ROUTES:
        if ROUTE_IDS[module] == sid:
            return name
    raise KeyError(sid)


def available() -> list[dict]:
    """Every strategy: name, parameters with defaults, one-line summary, and the source a
    published player is written from (None for ginsim's own)."""
    return [{"name": i.name, "params": dict(i.params), "summary": i.summary, "source": i.source}
            for i in REGISTRY.values()]


def parse_strategy(spec: "str | Strategy") -> Strategy:
    """Resolve ``"name"`` or ``"name:param=value,..."``, or a hybrid
    ``"HOST+DECISION=DONOR"`` (``strategies.hybrid.Hybrid``); unknown names or parameters
    raise a ValueError listing the valid ones."""
    if isinstance(spec, Strategy) or isinstance(spec, Hybrid):
        return spec
    if not isinstance(spec, str) and spec is not None and _is_player_object(spec):
        return parse_strategy(register_player(None, spec).name)
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"strategy spec must be a non-empty string, got {spec!r}")
    if is_hybrid(spec):  # a hybrid: "HOST+DECISION=DONOR" (strategies.hybrid)
        return parse_hybrid(spec, parse_strategy, REGISTRY)
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    if name not in REGISTRY:
        raise ValueError(f"unknown strategy {name!r}; strategies: {', '.join(REGISTRY)}")
    info = REGISTRY[name]
    values = dict(info.params)
    given = set()
    presets = presets_of(name)
    items = [p.strip() for p in rest.split(",") if p.strip()]
    if len(items) == 1 and items[0] in presets:  # a named parameter set: "knock_table:classic"
        items = presets[items[0]].split(",")
    for item in items:
        key, eq, text = item.partition("=")
        key = key.strip()
        if key in given:
            raise ValueError(f"parameter {key!r} of strategy {name!r} is given twice in {spec.strip()!r}; give it once")
        given.add(key)
        if key not in values:
            allowed = ", ".join(values) if values else "none"
            named = f"; or one named set alone: {', '.join(presets)}" if presets else ""
            raise ValueError(f"unknown parameter {key!r} for strategy {name!r}; parameters: {allowed}{named}")
        if not eq:
            raise ValueError(f"parameter {key!r} of strategy {name!r} needs a value: {key}=<number>")
        try:
            values[key] = float(text)
        except ValueError:
            raise ValueError(f"parameter {key!r} of strategy {name!r} must be a number, got {text.strip()!r}") from None
        if not math.isfinite(values[key]):
            raise ValueError(f"parameter {key!r} of strategy {name!r} must be a finite number, got {text.strip()!r}")
        problem = param_problem(key, values[key], info.ranges, f" of strategy {name!r}", text.strip())
        if problem:
            raise ValueError(problem)
    if len(values) > N_PARAMS:
        raise ValueError(f"strategy {name!r} has more than {N_PARAMS} parameters")
    sid = info.sid
    route = getattr(info.module, "route", None) if info.kind == "numba" and info.digest is None else None
    if route is not None and route(values):  # a built-in's parameters that play through a route
        sid = ROUTE_IDS[route(values)]
    return Strategy(name, sid, values)


def presets_of(name: str) -> dict[str, str]:
    """The named parameter sets of built-in strategy ``name`` (its module's ``PRESETS``: name ->
    ``"param=value,..."``), e.g. the solved knock tables of ``strategies.knock_table``."""
    info = REGISTRY.get(name)
    presets = getattr(info.module, "PRESETS", None) if info is not None and info.kind == "numba" else None
    return dict(presets) if isinstance(presets, dict) else {}


#: per strategy name: its registry entry and its named parameter sets as (exact label, name:preset)
_PRESET_LABELS: dict[str, tuple[object, tuple[tuple[str, str], ...]]] = {}


def _preset_labels(name: str) -> tuple[tuple[str, str], ...]:
    """Strategy ``name``'s named parameter sets as (exact canonical label, ``name:preset``),
    parsed once per registration of ``name``."""
    info = REGISTRY.get(name)
    cached = _PRESET_LABELS.get(name)
    if cached is None or cached[0] is not info:
        labels = tuple((parse_strategy(f"{name}:{params}").label, f"{name}:{preset}")
                       for preset, params in presets_of(name).items())
        cached = _PRESET_LABELS[name] = (info, labels)
    return cached[1]


def display_spec(spec: str) -> str:
    """A spec as a person reads it: a strategy whose parameters are exactly one of its named
    sets is written by that name (``knock_table:t0=2005501692641279,...`` -> ``knock_table:classic``),
    and so is each part of a hybrid (``marjj+knock=knock_table:tournament``); anything else, or a spec
    that does not parse, is returned as given.  Reports, confirmations and the command line print
    specs through this; the ledgers keep the exact one."""
    if not isinstance(spec, str):
        return spec
    if is_hybrid(spec):
        return display_text(spec)
    try:
        strategy = parse_strategy(spec)
    except (ValueError, KeyError):
        return spec
    return next((named for exact, named in _preset_labels(strategy.name) if exact == strategy.label), spec)


def display_text(text: str) -> str:
    """``text`` with every exact spec of a named parameter set in it written by its name
    (``display_spec``): for prose and tables that quote specs."""
    for name in list(REGISTRY):
        for exact, named in _preset_labels(name):
            if exact in text:
                text = re.sub(re.escape(exact) + r"(?!\d)", named, text)
    return text


def split_class_spec(text: str) -> tuple[str, str | None]:
    """``"dir/mine.py:MyPlayer"`` -> (``"dir/mine.py"``, ``"MyPlayer"``); a plain path ->
    (path, None)."""
    file, sep, cls = text.rpartition(":")
    if sep and cls.isidentifier() and file.endswith(".py"):
        return file, cls
    return text, None


def _is_player_object(obj) -> bool:
    return is_player(obj)


def register_player(name: str | None, source):
    """Register a Python strategy under ``name`` (None: the class's ``NAME`` or its class
    name): ``source`` is a class (made with the spec's parameters), an instance (played as
    it is; no parameters) or ``"file.py:ClassName"`` (loaded from a content-addressed
    copy, as numba plug-ins are).  Registering the same object or unchanged file again is
    a no-op; registering a new class or instance under a name given to a class or instance
    before replaces it (a class redefined in a notebook)."""
    path = digest = None
    if isinstance(source, (str, Path)):
        file, cls_name = split_class_spec(str(source))
        if cls_name is None:
            raise ValueError(f"strategy {name!r}: {source!r} is not \"file.py:ClassName\"")
        file = str(Path(file).resolve())
        if not Path(file).is_file():
            raise ValueError(f"strategy file {file!r} does not exist")
        path = f"{file}:{cls_name}"
        known = REGISTRY.get(name)
        if known is not None and known.path == path and known.digest == plugin_digest(file):
            return known
        module, digest = load_plugin(name, file)
        obj = getattr(module, cls_name, None)
        if obj is None:
            raise ValueError(f"strategy {name!r}: {file} defines no {cls_name!r}")
    else:
        obj = source
    if not is_player(obj):
        raise ValueError(f"strategy {name!r}: {obj!r} is not a Python strategy (subclass strategies.Player, "
                         "or define choose_action(obs))")
    cls = obj if inspect.isclass(obj) else type(obj)
    if name is None:
        name = getattr(cls, "NAME", None) or cls.__name__
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"strategy name must be an identifier, got {name!r}")
    known = REGISTRY.get(name)
    if known is not None:
        if known.kind == "python" and known.player is obj:
            return known
        # a class redefined in a notebook replaces its old self; an edited file reloads
        if known.kind != "python" or known.path != path:
            raise ValueError(f"strategy name {name!r} is taken; register this one under another name "
                             f"with strategies.register(name, ...); strategies: {', '.join(REGISTRY)}")
    params, ranges = declared_params(f"strategy {name!r}", getattr(cls, "PARAMS", {}) if inspect.isclass(obj) else {},
                                     getattr(cls, "PARAM_RANGES", None) if inspect.isclass(obj) else None)
    summary = getattr(cls, "SUMMARY", "") or (inspect.getdoc(cls) or "").split("\n")[0] or "Python strategy"
    python_ids = [i.sid for i in REGISTRY.values() if i.kind == "python"]
    sid = known.sid if known is not None else -1 - len(python_ids)
    info = StrategyInfo(name, sid, inspect.getmodule(cls), params, f"[python] {summary}", path, digest,
                        kind="python", player=obj, ranges=ranges)
    REGISTRY[name] = info
    if path is not None:
        PY_PLUGINS[name] = path
    _INSTANCES.clear()
    return info


_INSTANCES: dict = {}


def decider_for(strategy, who: str | None = None, where: str = "") -> Decider:
    """The ``Decider`` of a resolved Python ``Strategy`` (one instance per spec and
    process).  A class whose ``__init__`` fails raises one ``StrategyError`` line naming
    ``who`` (default: the strategy's label), ``where`` and the user's file and line."""
    info = REGISTRY[strategy.name]
    key = (strategy.name, tuple(sorted(strategy.values.items())))
    decider = _INSTANCES.get(key)
    if decider is None:
        obj = info.player
        if inspect.isclass(obj):
            cls = obj
            try:
                obj = cls(**strategy.values) if info.params else cls()
            except (Exception, SystemExit) as exc:
                raise strategy_failure(exc, who or f"strategy {strategy.label!r}", "__init__", where,
                                       cls.__init__) from None
        decider = Decider(obj)
        _INSTANCES[key] = decider
    return decider
