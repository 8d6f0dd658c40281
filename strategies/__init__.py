"""The strategy library.  ``available()`` lists every strategy with its parameters;
``parse_strategy("simple:knock_at=0")`` resolves a spec.  Each strategy is one module whose
docstring states its policy; ``strategies.view`` documents what a strategy may see.

The names below load on first use, so ``import strategies`` (and reading
``strategies.builtin_params``) imports no numba until a strategy is resolved or played.
"""

from typing import TYPE_CHECKING

from simulator.infra.lazy import lazy_exports

if TYPE_CHECKING:  # what type checkers and the API reference see; ``_PUBLIC`` loads the same names
    from .pyplayer import GreedyPlayer, Observation, Player, TrivialPlayer
    from .registry import REGISTRY, Strategy, available, display_spec, display_text, parse_strategy, register

#: where each public name lives (module relative to this package, attribute)
_PUBLIC = {
    **{name: (".registry", name) for name in ("REGISTRY", "Strategy", "available", "display_spec", "display_text",
                                                      "parse_strategy", "register")},
    **{name: (".pyplayer", name) for name in ("GreedyPlayer", "Observation", "Player", "TrivialPlayer")},
}

__all__ = ["REGISTRY", "GreedyPlayer", "Observation", "Player", "Strategy", "TrivialPlayer", "available",
           "display_spec", "display_text", "parse_strategy", "register"]


__getattr__, __dir__ = lazy_exports(__name__, globals(), _PUBLIC)
