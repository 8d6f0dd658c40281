"""The strategy library.  ``available()`` lists every strategy with its parameters;
``parse_strategy("simple:knock_at=0")`` resolves a spec.  Each strategy is one module whose
docstring states its policy; ``strategies.view`` documents what a strategy may see."""

from .registry import REGISTRY, Strategy, available, parse_strategy, register
from .pyplayer import GreedyPlayer, Observation, Player, TrivialPlayer

__all__ = ["REGISTRY", "GreedyPlayer", "Observation", "Player", "Strategy", "TrivialPlayer", "available",
           "parse_strategy", "register"]
