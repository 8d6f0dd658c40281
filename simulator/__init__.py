"""ginsim: a Monte Carlo research simulator for Gin Rummy.

The public API re-exported here:

* cards: ``parse_cards``, ``format_cards``, ``Card``, ``cards_mask``, ``mask_cards``;
* rules core: ``min_deadwood``, ``best_discard``, ``optimal_discards``,
  ``best_arrangement``, ``is_big_gin``, ``layoff``, ``knocker_arrangement``, ``score_hand``;
* rule variants: ``Rules`` and its presets;
* play: ``simulate``, ``simulate_games``, and ``Hand`` (one hand to step through, with
  ``action_name`` naming its actions, ``simulator.actions`` their codes by name).

Every name loads on first use, so ``import simulator`` (and a ``ginsim`` command that plays
nothing, such as ``--version``, ``--help``, ``show`` or ``cache where``) imports neither numba
nor the engine.
"""

from typing import TYPE_CHECKING

from ._version import __version__

from .infra.lazy import lazy_exports

if TYPE_CHECKING:  # what type checkers and the API reference see; ``_PUBLIC`` loads the same names
    from . import actions
    from .api import simulate, simulate_games
    from .core.cards import Card, cards_mask, format_cards, mask_cards, parse_cards
    from .core.rules import Rules
    from .core.rules_api import (
        Arrangement, Discard, HandScore, Layoff, best_arrangement, best_discard, is_big_gin,
        knocker_arrangement, layoff, min_deadwood, optimal_discards, score_hand)
    from .core.state import action_name
    from .engine.hand import Hand

#: where each public name lives (module relative to this package, attribute)
_PUBLIC = {
    **{name: (".core.cards", name) for name in ("Card", "cards_mask", "format_cards", "mask_cards", "parse_cards")},
    "Rules": (".core.rules", "Rules"),
    **{name: (".core.rules_api", name) for name in (
        "Arrangement", "Discard", "HandScore", "Layoff", "best_arrangement", "best_discard", "is_big_gin",
        "knocker_arrangement", "layoff", "min_deadwood", "optimal_discards", "score_hand")},
    "simulate": (".api", "simulate"),
    "simulate_games": (".api", "simulate_games"),
    "Hand": (".engine.hand", "Hand"),
    "action_name": (".core.state", "action_name"),
    "actions": (".actions", None),
}

__all__ = [
    "Arrangement", "Card", "Discard", "Hand", "HandScore", "Layoff", "Rules", "__version__", "action_name",
    "actions", "best_arrangement", "best_discard", "cards_mask", "format_cards", "is_big_gin",
    "knocker_arrangement", "layoff", "mask_cards", "min_deadwood", "optimal_discards", "parse_cards",
    "score_hand", "simulate", "simulate_games",
]


__getattr__, __dir__ = lazy_exports(__name__, globals(), _PUBLIC)
