"""The strategy library.  ``available()`` lists every strategy with its parameters;
``parse_strategy("simple:knock_at=0")`` resolves a spec.  Each strategy is one module whose
docstring states its policy; ``strategies.view`` documents what a strategy may see.

The names below load on first use, so ``import strategies`` (and reading
``strategies.builtin_params``) imports no numba until a strategy is resolved or played.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers and the API reference see; ``_PUBLIC`` loads the same names
    from .pyplayer import GreedyPlayer, Observation, Player, TrivialPlayer
    from .registry import REGISTRY, Strategy, available, parse_strategy, register

#: where each public name lives (module relative to this package)
_PUBLIC = {
    **{name: ".registry" for name in ("REGISTRY", "Strategy", "available", "parse_strategy", "register")},
    **{name: ".pyplayer" for name in ("GreedyPlayer", "Observation", "Player", "TrivialPlayer")},
}

__all__ = ["REGISTRY", "GreedyPlayer", "Observation", "Player", "Strategy", "TrivialPlayer", "available",
           "parse_strategy", "register"]


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'strategies' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_PUBLIC[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
