"""The strategy library.  ``available()`` lists every strategy with its parameters;
``parse_strategy("simple:knock_at=0")`` resolves a spec.  Each strategy is one module whose
docstring states its policy; ``strategies.view`` documents what a strategy may see."""

from .registry import REGISTRY, Strategy, available, parse_strategy, register

__all__ = ["REGISTRY", "Strategy", "available", "parse_strategy", "register"]
