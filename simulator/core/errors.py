"""The errors a strategy can cause, and the one-line message of each (the codes ``ERR_*``
are the hand state machine's, ``simulator.core.state``).

A strategy that breaks the rules or writes into an array the engine lent it stops its hand;
the record keeps the code, the seat and the offending value, and ``error_message`` turns
them into the text ``StrategyError`` carries.
"""

from __future__ import annotations

from .cards import format_card
from .layouts import ERRORS
from .records import RULE_SLOT_NAMES
from .constants import (
    ERR_BAD_MELDS,
    ERR_ILLEGAL_ACTION,
    ERR_ILLEGAL_DISCARD,
    ERR_WROTE_MEMORY,
    ERR_WROTE_PARAMS,
    ERR_WROTE_PILE,
    ERR_WROTE_RULES,
    N_MEMORY,
)


class StrategyError(ValueError):
    """A strategy made an illegal move or wrote into an array the engine lent it.  The
    message is one line: strategy (spec label, A or B), decision, offending value, deal."""


#: the decision in which each error arises (``simulator.core.layouts.ERRORS``)
_ERROR_DECISION = {e.code: e.decision for e in ERRORS if e.code}
_RULE_SLOTS = dict(enumerate(RULE_SLOT_NAMES))


_READ_ONLY = "; pile, rules and params are read-only"


def _is_card(value: int) -> bool:
    return 0 <= value <= 63 and value % 16 < 13


def _card_or_number(value: int) -> str:
    """A card code as its name (``7h``), anything else as the raw number."""
    return format_card(value) if _is_card(value) else str(value)


def _mask_text(mask: int) -> str:
    """A card mask as its cards, or as a hex number when it has bits that are not cards."""
    cards = [c for c in range(64) if (mask >> c) & 1] if mask >= 0 else []
    if mask < 0 or not all(_is_card(c) for c in cards):
        return hex(mask & (2**64 - 1))
    return "[" + " ".join(format_card(c) for c in cards) + "]"


def _what(code: int, value: int, strategy) -> str:
    if code == ERR_ILLEGAL_DISCARD:
        if not _is_card(value):
            return f"discarded {value}, which is not a card (codes are suit * 16 + rank 0..12)"
        return (f"discarded {format_card(value)}, which is not one of its legal discards "
                "(a card in its hand, not the one just taken from the pile)")
    if code == ERR_BAD_MELDS:
        return (f"laid out melds {_mask_text(value)}, which are not a least-deadwood "
                "arrangement of its hand")
    if code == ERR_WROTE_PILE:
        return f"wrote into the discard pile it was given (slot {value}){_READ_ONLY}"
    if code == ERR_WROTE_RULES:
        name = _RULE_SLOTS.get(value)
        slot = f"slot {value}, {name}" if name else f"slot {value}"
        return f"wrote into the rule vector it was given ({slot}){_READ_ONLY}"
    if code == ERR_WROTE_PARAMS:
        names = list(strategy.values) if strategy is not None else []
        name = names[value] if 0 <= value < len(names) else None
        slot = f"slot {value}, {name}" if name else f"slot {value}"
        return f"wrote into its parameter row ({slot}){_READ_ONLY}"
    if code == ERR_ILLEGAL_ACTION:
        return f"made an action that is not legal in its phase (value {value})"
    if code == ERR_WROTE_MEMORY:
        return f"wrote past the end of its memory (slot {value}; memory is {N_MEMORY} slots long)"
    return f"caused engine error {code} (value {_card_or_number(value)})"


def error_message(code: int, seat: int, a_seat: int, value: int, strategies: tuple, where: str,
                   context: str) -> str:
    if seat in (0, 1):
        who = 0 if seat == a_seat else 1
        strategy = strategies[who]
        label = f"{strategy.label!r} " if strategy is not None else ""
        name = f"strategy {label}({'AB'[who]})"
    else:
        strategy, name = None, "a strategy"
    place = ", ".join(p for p in (context, where) if p)
    decision = _ERROR_DECISION.get(code, "unknown")
    return f"{name} {_what(code, value, strategy)} (decision: {decision}; {place})"
