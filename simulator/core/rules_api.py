"""The rules core for people: deadwood, discards, arrangements, layoffs and scores.

Each function takes cards as a string (``"As 2s 3s Td Kh"``) or a sequence of card codes
and calls the numba kernels of ``simulator.core.melds`` and ``simulator.core.scoring``.  Examples::

    >>> min_deadwood("As 2s 3s 7h 7d 7c Kd")
    10
    >>> best_discard("3s 4s 5s 6c 4d 5d 6d 3h 4h 5h 6h")
    Discard(card=6c, deadwood=0)
    >>> best_arrangement("As 2s 3s 7h 7d 7c Kd").melds
    ((As, 2s, 3s), (7h, 7d, 7c))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from . import melds
from .cards import SUIT_SHIFT, Card, as_codes, cards_mask, format_card, mask_cards, parse_cards
from .rules import Rules, resolve_rules
from .scoring import DEFENDER, KNOCKER, score_hand_nb

Cards = str | Sequence[int]


class Discard(NamedTuple):
    card: Card
    deadwood: int


class Arrangement(NamedTuple):
    """Melds (each a tuple of cards), the unmatched cards, and their deadwood."""

    melds: tuple[tuple[Card, ...], ...]
    unmatched: tuple[Card, ...]
    deadwood: int


class Layoff(NamedTuple):
    deadwood: int
    laid_off: tuple[Card, ...]
    layoff_points: int


class HandScore(NamedTuple):
    winner: str | None  # "knocker", "defender" or None for a scoreless tie
    points: int
    undercut: bool


def _mask(cards: Cards, sizes: range | None = None, what: str = "cards") -> int:
    codes = as_codes(cards)
    if sizes is not None and len(codes) not in sizes:
        raise ValueError(f"{what}: expected {sizes.start} to {sizes.stop - 1} cards, got {len(codes)}")
    return cards_mask(codes)


def _one_card(card: int | str | None) -> int:
    if card is None:
        return -1
    if isinstance(card, str):
        codes = parse_cards(card)
        if len(codes) != 1:
            raise ValueError(f"forbidden: expected one card, got {card!r}")
        return codes[0]
    format_card(card)
    return int(card)


def min_deadwood(cards: Cards) -> int:
    """Least deadwood of exactly these cards (0 to 11 cards).

    >>> min_deadwood("Ks Kh Kd 2c 3c 4c 9h")
    9
    """
    return int(melds.min_deadwood_nb(_mask(cards, range(0, 12))))


def optimal_discards(cards: Cards, forbidden: int | str | None = None) -> tuple[int, tuple[int, ...]]:
    """(least deadwood after discarding, codes of every discard achieving it), 11 cards.

    ``forbidden`` is a card that may not be discarded (the one just taken from the pile).
    """
    mask = _mask(cards, range(11, 12), "best discard")
    bad = _one_card(forbidden)
    if bad >= 0 and not mask >> bad & 1:
        raise ValueError(f"forbidden card {format_card(bad)!r} is not in the hand")
    allowed = mask & ~(1 << bad) if bad >= 0 else mask
    dw, optimal = melds.discard_deadwoods_nb(mask, allowed)
    return int(dw), mask_cards(int(optimal))


def best_discard(cards: Cards, forbidden: int | str | None = None) -> Discard:
    """The discard of an 11-card hand that leaves the least deadwood, and that deadwood.

    Exact over all 11 discards.  Ties go to the highest-value card, then the highest rank,
    then the highest suit index (clubs, diamonds, hearts, spades).  ``forbidden`` names a
    card that may not be discarded (the card just taken from the discard pile).

    >>> best_discard("As 2s 3s 7h 7d 7c Kd Qd 5c 5h 5s")
    Discard(card=Kd, deadwood=10)
    >>> best_discard("As 2s 3s 7h 7d 7c Kd Qd 5c 5h 5s", forbidden="Kd")
    Discard(card=Qd, deadwood=10)
    """
    mask = _mask(cards, range(11, 12), "best discard")
    bad = _one_card(forbidden)
    if bad >= 0 and not mask >> bad & 1:
        raise ValueError(f"forbidden card {format_card(bad)!r} is not in the hand")
    card, dw = melds.best_discard_nb(mask, bad)
    return Discard(Card(card), int(dw))


def is_big_gin(cards: Cards) -> bool:
    """True when all 11 cards (after the draw) are melded."""
    return melds.min_deadwood_nb(_mask(cards, range(11, 12), "big gin")) == 0


def _split_runs(run_cards: int) -> list[tuple[int, ...]]:
    """Split a mask of run cards into runs: each block of consecutive ranks of a suit, with
    blocks longer than five cut into runs of three to five cards (any split is equivalent
    for deadwood and layoffs)."""
    runs: list[tuple[int, ...]] = []
    codes = mask_cards(run_cards)
    block: list[int] = []
    for code in codes + (-2,):
        if block and code == block[-1] + 1 and code // SUIT_SHIFT == block[-1] // SUIT_SHIFT:
            block.append(code)
            continue
        while len(block) > 5:
            cut = 3 if len(block) - 3 >= 3 else len(block) - 3
            runs.append(tuple(block[:cut]))
            block = block[cut:]
        if block:
            runs.append(tuple(block))
        block = [code]
    return runs


def _split_sets(set_cards: int) -> list[tuple[int, ...]]:
    by_rank: dict[int, list[int]] = {}
    for code in mask_cards(set_cards):
        by_rank.setdefault(code % SUIT_SHIFT, []).append(code)
    return [tuple(v) for _, v in sorted(by_rank.items())]


def _arrangement(mask: int, set_cards: int, run_cards: int) -> Arrangement:
    melds_ = [tuple(Card(c) for c in m) for m in _split_runs(run_cards) + _split_sets(set_cards)]
    unmatched = mask & ~(set_cards | run_cards)
    return Arrangement(tuple(melds_), mask_cards(unmatched),
                       int(melds.hand_value_nb(unmatched)))


def _least_arrangement_masks(mask: int) -> tuple[int, int]:
    """Set and run masks of one least-deadwood arrangement (the first the kernels find)."""
    sets, runs, _ = melds.knocker_arrangement_nb(mask, 0, melds.KNOCKER_VS_LIVE)
    return int(sets), int(runs)


def best_arrangement(cards: Cards) -> Arrangement:
    """The melds and unmatched cards of a least-deadwood arrangement (0 to 11 cards).

    >>> best_arrangement("4h 5h 6h 7h 7s 7d").melds
    ((4h, 5h, 6h), (7s, 7h, 7d))
    """
    mask = _mask(cards, range(0, 12))
    sets, runs = _least_arrangement_masks(mask)
    return _arrangement(mask, sets, runs)


def _meld_masks(knocker_melds: Sequence[Cards]) -> tuple[int, int]:
    """Set and run masks of a list of melds, each checked to be a valid meld."""
    set_cards = run_cards = 0
    seen = 0
    for meld in knocker_melds:
        codes = as_codes(meld)
        mask = cards_mask(codes)
        if mask & seen:
            raise ValueError(f"knocker melds share a card: {meld!r}")
        seen |= mask
        ranks = {c % SUIT_SHIFT for c in codes}
        suits = {c // SUIT_SHIFT for c in codes}
        if len(ranks) == 1 and len(codes) in (3, 4):
            set_cards |= mask
        elif len(suits) == 1 and len(codes) >= 3 and max(ranks) - min(ranks) == len(codes) - 1:
            run_cards |= mask
        else:
            raise ValueError(f"not a meld: {meld!r}")
    return set_cards, run_cards


def layoff(knocker_melds: Sequence[Cards], defender_cards: Cards) -> Layoff:
    """The defender's least deadwood after arranging its own melds and laying off.

    Layoffs: a 4th card on a set of three, cards extending a run at either end, chains
    included (8 then 9 on 5-6-7); the defender breaks one of its own melds when that leaves
    less deadwood.  (No layoffs against gin: the caller does not call this then.)

    >>> layoff(["5h 6h 7h"], "8h 9h Kc Kd 2s 3c 4d 9s Jc Qd").laid_off
    (8h, 9h)
    """
    set_cards, run_cards = _meld_masks(knocker_melds)
    defender = _mask(defender_cards, range(0, 12), "defender")
    if defender & (set_cards | run_cards):
        raise ValueError("defender cards overlap the knocker's melds")
    dw, laid, _ = melds.layoff_solution_nb(defender, set_cards, run_cards)
    return Layoff(int(dw), mask_cards(int(laid)),
                  int(melds.hand_value_nb(laid)))


def knocker_arrangement(knocker_cards: Cards, defender_cards: Cards) -> Arrangement:
    """Among the knocker's least-deadwood arrangements of its 10 cards, the one that leaves
    the defender (whose hand is given) the highest deadwood after layoffs."""
    mask = _mask(knocker_cards, range(0, 12), "knocker")
    defender = _mask(defender_cards, range(0, 12), "defender")
    sets, runs, _ = melds.knocker_arrangement_nb(mask, defender, melds.KNOCKER_VS_HAND)
    return _arrangement(mask, int(sets), int(runs))


#: the most deadwood 10 cards can hold (two each of K, Q, J, 10 and 9 in no meld)
MAX_DEADWOOD = 98


def score_hand(knocker_deadwood: int, defender_deadwood: int, *, gin: bool, big_gin: bool = False,
               rules: Rules | str = "hoyle") -> HandScore:
    """Score one hand.  ``rules`` is a ``Rules``, a preset name, or any object with the
    fields gin_bonus, big_gin_bonus, undercut_bonus and undercut_on_tie.

    >>> score_hand(7, 20, gin=False, rules="hoyle")
    HandScore(winner='knocker', points=13, undercut=False)
    >>> score_hand(7, 5, gin=False, rules="hoyle")
    HandScore(winner='defender', points=22, undercut=True)

    Impossible hands are refused with a ValueError: deadwoods are integers 0 ..
    ``MAX_DEADWOOD``, gin is a knock with deadwood 0 and a knock with deadwood 0 is gin
    (docs/rules.md, "Knocking and gin"), and big gin is gin.
    """
    for name, value in (("knocker_deadwood", knocker_deadwood), ("defender_deadwood", defender_deadwood)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
                or not 0 <= value <= MAX_DEADWOOD:
            raise ValueError(f"{name} must be an integer from 0 to {MAX_DEADWOOD} (the most deadwood 10 cards "
                             f"hold), got {value!r}")
    for name, value in (("gin", gin), ("big_gin", big_gin)):
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be True or False, got {value!r}")
    if big_gin and not gin:
        raise ValueError("big gin is gin: pass gin=True with big_gin=True")
    if bool(gin) != (knocker_deadwood == 0):
        raise ValueError(f"gin is a knock with deadwood 0 (docs/rules.md, \"Knocking and gin\"): knocker_deadwood="
                         f"{knocker_deadwood} needs gin={knocker_deadwood == 0}")
    if isinstance(rules, (str, dict, Rules)):
        rules = resolve_rules(rules)
    vector = Rules(gin_bonus=int(rules.gin_bonus), big_gin_bonus=int(rules.big_gin_bonus),
                   undercut_bonus=int(rules.undercut_bonus),
                   undercut_on_tie=bool(rules.undercut_on_tie)).to_array()
    winner, points, undercut = score_hand_nb(int(knocker_deadwood), int(defender_deadwood),
                                             bool(gin), bool(big_gin), vector)
    name = {KNOCKER: "knocker", DEFENDER: "defender"}.get(int(winner))
    return HandScore(name, int(points), bool(undercut))


def max_knock_limit(rules: Rules) -> int:
    """The largest knock limit a deal of ``rules`` can have (docs/rules.md, "Knock limits"):
    0 for gin only, 10 under Oklahoma (a ten or a face card turned up), else ``knock_limit``."""
    if rules.gin_only:
        return 0
    if rules.oklahoma:
        return 10
    return int(rules.knock_limit)
