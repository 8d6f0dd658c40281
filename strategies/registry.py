"""The strategy registry: names, ids, parameters, and strategy specs.

A *spec* names a strategy and optionally sets parameters: ``"simple"``,
``"simple:knock_at=0"``, ``"gin_hunter:knock_at=2,panic_stock=6"``.  Parameters travel to
the engine as a float row (``N_PARAMS`` long), so changing them never recompiles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from . import gin_hunter, knock_early, random_play, simple
from .view import N_PARAMS


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    sid: int
    module: ModuleType
    params: dict[str, float]
    summary: str


@dataclass(frozen=True)
class Strategy:
    """A resolved strategy spec: id, full parameter values, and the parameter row."""

    name: str
    sid: int
    values: dict[str, float] = field(default_factory=dict)

    @property
    def row(self) -> np.ndarray:
        out = np.zeros(N_PARAMS, dtype=np.float64)
        out[: len(self.values)] = list(self.values.values())
        return out

    @property
    def label(self) -> str:
        """The canonical spec: name plus the parameters that differ from the defaults."""
        defaults = REGISTRY[self.name].params
        changed = [f"{k}={_fmt(v)}" for k, v in self.values.items() if v != defaults[k]]
        return self.name + (":" + ",".join(changed) if changed else "")


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


# ids are positions: strategies.dispatch routes on them
BUILTIN: list[tuple[str, ModuleType]] = [
    ("random", random_play),
    ("knock_early", knock_early),
    ("simple", simple),
    ("gin_hunter", gin_hunter),
]

REGISTRY: dict[str, StrategyInfo] = {
    name: StrategyInfo(name, sid, module, dict(module.PARAMS), module.SUMMARY)
    for sid, (name, module) in enumerate(BUILTIN)
}


def available() -> list[dict]:
    """Every strategy: name, parameters with defaults, one-line summary."""
    return [{"name": i.name, "params": dict(i.params), "summary": i.summary} for i in REGISTRY.values()]


def parse_strategy(spec: "str | Strategy") -> Strategy:
    """Resolve ``"name"`` or ``"name:param=value,..."``; unknown names or parameters raise
    a ValueError listing the valid ones."""
    if isinstance(spec, Strategy):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"strategy spec must be a non-empty string, got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    if name not in REGISTRY:
        raise ValueError(f"unknown strategy {name!r}; strategies: {', '.join(REGISTRY)}")
    info = REGISTRY[name]
    values = dict(info.params)
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, text = item.partition("=")
        key = key.strip()
        if key not in values:
            allowed = ", ".join(values) if values else "none"
            raise ValueError(f"unknown parameter {key!r} for strategy {name!r}; parameters: {allowed}")
        if not eq:
            raise ValueError(f"parameter {key!r} of strategy {name!r} needs a value: {key}=<number>")
        try:
            values[key] = float(text)
        except ValueError:
            raise ValueError(f"parameter {key!r} of strategy {name!r} must be a number, got {text.strip()!r}") from None
    if len(values) > N_PARAMS:
        raise ValueError(f"strategy {name!r} has more than {N_PARAMS} parameters")
    return Strategy(name, info.sid, values)
