"""One narrator of a hand's events: an event record in words.

A hand's events are records ``(seat, event, value)`` (``simulator.Hand.events``,
``simulator.api.trace_deal``; seat -1 is the table; the event names are
``simulator.core.layouts.EVENTS``).  ``tell(event, names)`` words one of them as a sentence:
``ginsim replay`` (its text), the replay page (``simulator.tools.replay_html``), ``ginsim
play`` and the OpenSpiel game's information strings (``simulator.interop.ospiel_game``) all
tell events with it.  ``names`` names each seat's player (a seat named ``"You"`` is spoken
to: "You draw 7h from the stock."); told to ``you`` (a seat), its opponent's stock draws are
told without the card, which that seat does not see.  The deal's single cards (``deal``) are
told as a whole: ``tell_hand(events, names)`` tells a hand from its events, both dealt hands
once the deal is complete and then every later event (``ginsim replay``'s text for a run's
deal and for a hand history file); ``tell`` returns "" for a dealt card.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import format_card, format_cards, mask_cards

#: how each defence (``EV_DEFEND``'s value) is told: -1 the best response, -2 no layoffs, else
#: the defender's own least-deadwood arrangement k (told from 1, as ``ginsim play`` numbers them)
_DEFENCES = {-1: "the best response", -2: "no layoffs"}


def _card(value: int) -> str:
    return format_card(value) if 0 <= value < 64 and value % 16 < 13 else str(value)


def _cards(mask: int) -> str:
    return format_cards(mask_cards(int(mask))) or "nothing"


def tell(event: tuple[int, str, int], names: Sequence[str], you: int | None = None) -> str:
    """The event ``(seat, event, value)`` in one sentence; ``names[seat]`` names each seat's
    player (``"You"``: in the second person), ``you`` the seat it is told to (None: every card
    told).  "" for a dealt card."""
    seat, kind, value = event
    who = names[seat] if seat in (0, 1) else "The table"
    second = who == "You"

    def verb(base: str, third: str | None = None) -> str:  # "draw" / "draws"
        return base if second else (third or base + "s")

    if kind == "deal":
        return ""
    if kind == "upcard":
        return f"The upcard is {_card(value)}."
    if kind == "decline":
        return f"{who} {verb('pass', 'passes')} on {_card(value)}."
    if kind == "take_pile":
        return f"{who} {verb('take')} {_card(value)} from the pile."
    if kind == "draw_stock":
        hidden = you is not None and seat != you
        return f"{who} {verb('draw')} {'' if hidden else _card(value) + ' '}from the stock."
    if kind == "discard":
        return f"{who} {verb('discard')} {_card(value)}."
    if kind == "pass_last_discard":
        return f"{who} {verb('pass', 'passes')} on the last discard {_card(value)}."
    if kind == "knock":
        return f"{who} {verb('knock')} with {value} deadwood."
    if kind == "gin":
        return f"{who} {verb('go', 'goes')} gin!"
    if kind == "big_gin":
        return f"{who} {verb('have', 'has')} big gin!"
    if kind in ("sets", "runs"):
        return f"{who} {verb('lay')} out the {kind} {_cards(value)}." if value else f"{who} {verb('lay')} out no {kind}."
    if kind == "defend":
        how = _DEFENCES.get(value, f"least-deadwood arrangement {value + 1}")
        return f"{who} {verb('defend')} with {how}."
    if kind == "layoff":
        return f"{who} {verb('lay')} off {_cards(value)}."
    if kind == "defender_deadwood":
        return f"{who} {verb('keep')} {value} deadwood after layoffs."
    if kind == "reshuffle":
        return f"The pile is shuffled into a new stock of {value} cards."
    if kind == "dead":
        return f"The hand is dead ({value} cards left in the stock): nobody scores."
    if kind == "score":
        return f"{who} {verb('score')} {value} points." if seat >= 0 else "A tie: nobody scores."
    return f"{who}: {kind} {value}"


def tell_hand(events: Sequence[tuple[int, str, int]], names: Sequence[str], you: int | None = None) -> list[str]:
    """A hand's events in words, one line each: both dealt hands once the deal is complete
    (``"A (simple) holds 2c 3c ..."``), then every later event as ``tell`` tells it."""
    dealt: dict[int, list[int]] = {0: [], 1: []}
    lines = []
    for seat, kind, value in events:
        if kind == "deal":
            dealt[seat].append(value)
            if len(dealt[0]) + len(dealt[1]) == 20:
                lines += [f"{names[s]} holds {format_cards(sorted(dealt[s]))}" for s in (0, 1)]
        else:
            lines.append(tell((seat, kind, value), names, you))
    return lines
