"""ginsim: a Monte Carlo research simulator for Gin Rummy.

The public API re-exported here:

* cards: ``parse_cards``, ``format_cards``, ``Card``, ``cards_mask``, ``mask_cards``;
* rules core: ``min_deadwood``, ``best_discard``, ``optimal_discards``,
  ``best_arrangement``, ``is_big_gin``, ``layoff``, ``knocker_arrangement``, ``score_hand``;
* rule variants: ``Rules`` and its presets;
* play: ``simulate``, ``simulate_games``, and ``Hand`` (one hand to step through, with
  ``action_name`` naming its actions, ``simulator.actions`` their codes by name), loaded on first use.
"""

from ._version import __version__

from .core._cache import configure_numba_cache

configure_numba_cache()

from .core.cards import Card, cards_mask, format_cards, mask_cards, parse_cards
from .core.rules import Rules
from .core.rules_api import (
    Arrangement,
    Discard,
    HandScore,
    Layoff,
    best_arrangement,
    best_discard,
    is_big_gin,
    knocker_arrangement,
    layoff,
    min_deadwood,
    optimal_discards,
    score_hand,
)

__all__ = [
    "Arrangement", "Card", "Discard", "HandScore", "Layoff", "Rules", "best_arrangement",
    "best_discard", "cards_mask", "format_cards", "is_big_gin", "knocker_arrangement", "layoff",
    "mask_cards", "min_deadwood", "optimal_discards", "parse_cards", "score_hand",
]

__all__ += ["__version__", "simulate", "simulate_games", "Hand", "action_name", "actions"]


def __getattr__(name: str):
    # the façade, the engine and the strategy library load on first use: ``import simulator``
    # stays the rules core only
    if name in ("simulate", "simulate_games"):
        from . import api

        return getattr(api, name)
    if name == "Hand":
        from .engine.hand import Hand

        return Hand
    if name == "actions":  # the action codes by name
        import importlib

        return importlib.import_module(".actions", __name__)
    if name == "action_name":
        from .core.state import action_name

        return action_name
    raise AttributeError(f"module 'simulator' has no attribute {name!r}")
