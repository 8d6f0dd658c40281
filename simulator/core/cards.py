"""Cards: the encoding every other module uses, plus parsing and formatting.

A card is one small integer, its *code*: ``suit * 16 + rank``, where rank 0..12 is
A, 2, ..., 10, J, Q, K and suit 0..3 is spades, hearts, diamonds, clubs.  A hand is a
64-bit mask with bit ``code`` set for each card it holds.  Each suit occupies its own
16-bit slot whose top three bits are always zero, so shifting a mask by one moves every
card one rank up or down *within its suit* and never into the neighbouring suit: runs are
found with a couple of shifts and ANDs.

Ace is low only (docs/rules.md#cards): it is rank 0, with nothing below it, and
king (rank 12) has nothing above it, so Q-K-A is not a run.

Deadwood values: ace 1, two to ten face value, J Q K 10.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..infra.inputs import argument

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "shdc"
SUIT_SYMBOLS = "♠♥♦♣"
N_RANKS = 13
N_SUITS = 4
SUIT_SHIFT = 16
RANK_MASK = (1 << N_RANKS) - 1  # the 13 valid bits of one suit slot

#: every valid card bit of a hand mask (52 bits in four 13-bit groups)
FULL_DECK_MASK = sum(RANK_MASK << (SUIT_SHIFT * s) for s in range(N_SUITS))

#: the 52 card codes in suit-major order, the order a fresh deck is shuffled from
DECK = np.array([s * SUIT_SHIFT + r for s in range(N_SUITS) for r in range(N_RANKS)], dtype=np.int64)

#: deadwood value by card code (0 for the unused codes 13..15 of each slot)
CARD_VALUE = np.zeros(64, dtype=np.int64)
for _code in DECK:
    CARD_VALUE[_code] = min(int(_code) % SUIT_SHIFT + 1, 10)


class Card(int):
    """A card code that prints as its name: ``Card(9 + 2 * 16)`` is ``Td``.

    It is an ``int`` in every other way, so it compares equal to its code and indexes
    arrays; the public functions return cards as ``Card``.
    """

    __slots__ = ()

    def __new__(cls, code: int) -> "Card":
        return super().__new__(cls, argument("card", code, "int", text=CODE_TEXT))

    def __repr__(self) -> str:
        return format_card(self)

    __str__ = __repr__


def card_code(rank: int, suit: int) -> int:
    """Code of the card of ``rank`` (0 = ace .. 12 = king) and ``suit`` (0..3 = s h d c)."""
    return suit * SUIT_SHIFT + rank


def rank_of(code: int) -> int:
    return int(code) % SUIT_SHIFT


def suit_of(code: int) -> int:
    return int(code) // SUIT_SHIFT


def card_value(code: int) -> int:
    """Deadwood value of one card: ace 1, 2-10 face value, J Q K 10."""
    return int(CARD_VALUE[int(code)])


_RANK_TOKENS = {c: i for i, c in enumerate(RANK_CHARS)}
_RANK_TOKENS["10"] = 9
_SUIT_TOKENS = {c: i for i, c in enumerate(SUIT_CHARS)}
_SUIT_TOKENS.update({c: i for i, c in enumerate(SUIT_SYMBOLS)})
_SUIT_TOKENS.update({"♤": 0, "♡": 1, "♢": 2, "♧": 3})


def _parse_token(token: str) -> int:
    rank_text, suit_text = token[:-1].upper(), token[-1:].lower()
    if rank_text not in _RANK_TOKENS:
        raise ValueError(
            f"unknown rank in card {token!r}: ranks are A 2-9 T (or 10) J Q K, any case"
        )
    if suit_text not in _SUIT_TOKENS:
        raise ValueError(f"unknown suit in card {token!r}: suits are s h d c or ♠ ♥ ♦ ♣")
    return card_code(_RANK_TOKENS[rank_text], _SUIT_TOKENS[suit_text])


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse ``"As 2s 3s Td Kh"`` into card codes, keeping the order given.

    Accepts ``10`` or ``T`` for ten, any case, and the suit symbols ♠♥♦♣; cards may be
    separated by spaces or commas.  Raises ``ValueError`` naming the offending token for
    an unknown rank or suit and for a card given twice.

    >>> format_cards(parse_cards("10♦ qh AS"))
    'Td Qh As'
    """
    codes: list[Card] = []
    seen: set[int] = set()
    for token in text.replace(",", " ").split():
        code = _parse_token(token)
        if code in seen:
            raise ValueError(f"duplicate card {token!r}")
        seen.add(code)
        codes.append(Card(code))
    return tuple(codes)


#: a card code in words, for one-line errors
CODE_TEXT = "a card code (suit * 16 + rank: 0-12, 16-28, 32-44 or 48-60)"


def format_card(code: int) -> str:
    code = argument("card", code, "int", text=CODE_TEXT)
    if not (0 <= code < 64 and code % SUIT_SHIFT < N_RANKS):
        raise ValueError(f"not a card code: {code}")
    return RANK_CHARS[code % SUIT_SHIFT] + SUIT_CHARS[code // SUIT_SHIFT]


def format_cards(cards: Iterable[int] | int) -> str:
    """Format card codes (or a hand mask) as ``"As 2s 3s"``; a mask is listed in code order."""
    if isinstance(cards, (int, np.integer)):
        cards = mask_cards(int(cards))
    return " ".join(format_card(c) for c in cards)


def as_codes(cards: str | Sequence[int] | np.ndarray) -> tuple[int, ...]:
    """Card codes from a card string or a sequence of codes; rejects duplicates and bad codes."""
    if isinstance(cards, str):
        return parse_cards(cards)
    if isinstance(cards, (bytes, dict)) or not hasattr(cards, "__iter__"):
        raise ValueError(f"cards must be a string such as \"As 2s 3s\" or a sequence of card codes, got {cards!r}")
    codes = tuple(argument("card", c, "int", text=CODE_TEXT) for c in cards)
    for c in codes:
        format_card(c)  # validates
    if len(set(codes)) != len(codes):
        dup = next(c for c in codes if codes.count(c) > 1)
        raise ValueError(f"duplicate card {format_card(dup)!r}")
    return codes


def cards_mask(cards: str | Sequence[int] | np.ndarray) -> int:
    """The 64-bit hand mask of a card string or a sequence of codes."""
    mask = 0
    for c in as_codes(cards):
        mask |= 1 << c
    return mask


def mask_cards(mask: int) -> tuple[Card, ...]:
    """The cards of a hand mask, in increasing code order."""
    mask = argument("mask", mask, "int", 0, 2**64 - 1, text="a hand mask (an integer from 0 to 2**64 - 1)")
    return tuple(Card(c) for c in range(64) if mask >> c & 1)
