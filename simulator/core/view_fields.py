"""The view a seat gets, declared once: the decision points it is asked at (``PHASES``), one
row per slot of the view vector (``VIEW_FIELDS``: its constant, Python name, kind, meaning and
how the RL observation encodes it) and the RL observation's blocks (``OBSERVATION``).

Everything that shows or encodes a view is made from this table:

* the view's slots (``V_*`` in ``simulator.core.constants``, laid out by
  ``simulator.core.layouts`` in the table's order);
* the properties of a Python player's ``Observation`` (``strategies.pyplayer``) and the
  keys of ``simulator.Hand.observation`` (``simulator.core.presentation``, by the row's kind);
* the one-line text of a view and the terminal game's status line (the rows with a
  ``label``, ``simulator.core.presentation.view_line``);
* the RL observation vector (``simulator.core.observation.encode_view_nb``: each row's
  ``encoding`` says which block of ``OBSERVATION`` it fills and how).

What a seat may know is decided by ``simulator.core.view_fill.fill_view_nb``, which writes
every row's slot.  A new seat-visible fact is a row here and a line there.

The kinds (how Python presents a slot's integer):

``phase``    the decision point, presented by its name (``PHASE_NAMES``)
``card``     a card code, ``None`` when the slot holds -1
``cards``    a card mask, presented as the cards it holds (sorted by suit, then rank); a row
             with a ``mask_attr`` also gives the mask itself under that name
``count``    a number of cards, turns or points
``flag``     0 or 1, presented as ``False``/``True``
``deadwood`` a deadwood count, ``None`` when the slot holds -1 (not known in this phase)

The encodings (how the RL observation encodes a slot; ``block`` names a block of
``OBSERVATION``, declared below, and ``at`` the value within it):

``plane``        a card mask: 1 at each card's index in a 52-value plane
``card``         a card code: 1 at its index in a 52-value plane, nothing for -1
``one_hot``      1 at the slot's value, clipped to ``0 .. size - 1``
``below``        1 at the slot's value when it is below the block's size (the phase: all 0
                 once the hand is over)
``flag``         1.0 when the slot is non-zero
``per_target``   the slot divided by the game's target score, at most 1 (0 in single hands)
``deadwood``     the slot / 100, at most 1; where the slot holds -1, the least deadwood of
                 the seat's hand
"""

from __future__ import annotations

from typing import NamedTuple

#: how Python presents a slot, by kind
KINDS = ("phase", "card", "cards", "count", "flag", "deadwood")
#: how the RL observation encodes a slot
ENCODINGS = ("plane", "card", "one_hot", "below", "flag", "per_target", "deadwood")


# ---- the phases: the decision points a seat sees (``V_PHASE``), then the end of the hand ------
PHASES: tuple[tuple[str, str], ...] = (
    ("first_upcard", "take the first upcard or decline (non-dealer asked first)"),
    ("draw", "draw the pile's top card (V_TOP) or from the stock"),
    ("last_discard", "the stock is spent: take the last discard only to knock (last_discard_rule)"),
    ("discard", "11 cards in hand: discard one card of V_LEGAL_DISCARDS"),
    ("knock", "10 cards left with deadwood V_DEADWOOD within V_KNOCK_LIMIT: knock?"),
    ("arrange", "the knocker lays out its melds"),
    ("defend", "the defender, seeing the knocker's melds and deadwood, chooses its own melds"),
    ("over", "the hand is over: no decision left"),
)


class Encoding(NamedTuple):
    block: str  # a block of OBSERVATION
    how: str  # ENCODINGS
    at: int = 0  # the first value the slot writes within its block


class ViewField(NamedTuple):
    const: str  # the slot's constant, V_*
    attr: str  # its Python name: an Observation property and a Hand.observation key
    kind: str  # KINDS
    doc: str
    label: str | None = None  # its word in the one-line text (None: not shown there)
    mask_attr: str | None = None  # cards: the Python name of the mask itself
    encoding: Encoding | None = None  # None: not in the RL observation


VIEW_FIELDS: tuple[ViewField, ...] = (
    ViewField("V_PHASE", "phase", "phase", "the decision point PHASE_*", label="phase",
              encoding=Encoding("phase", "below")),
    ViewField("V_HAND", "hand", "cards", "own hand mask (10 cards, or 11 after drawing)",
              label="hand", mask_attr="hand_mask", encoding=Encoding("hand", "plane")),
    ViewField("V_TOP", "top", "card", "card on top of the discard pile, -1 if empty", label="top"),
    ViewField("V_PILE_LEN", "pile_size", "count", "cards in the discard pile"),
    ViewField("V_PILE_MASK", "in_pile", "cards", "every card in the discard pile (top included)"),
    ViewField("V_OPP_TOOK", "opponent_took", "cards",
              "cards the opponent took from the pile and has not discarded since",
              label="opponent holds", encoding=Encoding("opponent_held", "plane")),
    ViewField("V_OPP_DECLINED", "opponent_declined", "cards", "pile tops the opponent was offered and passed on",
              encoding=Encoding("opponent_declined", "plane")),
    ViewField("V_STOCK_LEFT", "stock_size", "count", "cards left in the stock", label="stock",
              encoding=Encoding("stock", "one_hot")),
    ViewField("V_TURN", "turn", "count", "turns played in this hand so far (both players)"),
    ViewField("V_MY_DRAWS", "draws", "count", "cards this player has drawn this hand"),
    ViewField("V_KNOCK_LIMIT", "knock_limit", "count", "the limit in force for this deal (Oklahoma: from the upcard)",
              label="knock limit", encoding=Encoding("knock_limit", "one_hot")),
    ViewField("V_MY_SCORE", "score", "count", "game score before this hand (0 in single-hand play)",
              label="score", encoding=Encoding("scores", "per_target")),
    ViewField("V_OPP_SCORE", "opponent_score", "count", "the opponent's game score before this hand",
              label="opponent score", encoding=Encoding("scores", "per_target", 1)),
    ViewField("V_IS_DEALER", "is_dealer", "flag", "1 for the dealer", encoding=Encoding("flags", "flag")),
    ViewField("V_DRAWN", "drawn", "card", "the card just drawn (discard phase), else -1", label="drew",
              encoding=Encoding("drawn", "card")),
    ViewField("V_FROM_PILE", "drawn_from_pile", "flag", "1 when that card came from the pile",
              encoding=Encoding("flags", "flag", 1)),
    ViewField("V_LEGAL_DISCARDS", "legal_discards", "cards", "mask of cards that may be discarded now",
              mask_attr="legal_mask"),
    ViewField("V_DEADWOOD", "kept_deadwood", "deadwood", "knock phase: deadwood of the 10 cards kept",
              label="deadwood", encoding=Encoding("deadwood", "deadwood")),
    ViewField("V_OPP_DISCARDS", "opponent_discards", "cards", "every card the opponent has discarded this hand",
              encoding=Encoding("opponent_discards", "plane")),
    ViewField("V_SEEN", "seen_cards", "cards", "cards this player has seen: own hand, pile history, opponent pickups"),
    ViewField("V_KNOCKER_SETS", "knocker_sets", "cards", "the knocker's set cards once laid out (0 before)",
              encoding=Encoding("knocker_sets", "plane")),
    ViewField("V_KNOCKER_RUNS", "knocker_runs", "cards", "the knocker's run cards once laid out (0 before)",
              encoding=Encoding("knocker_runs", "plane")),
    ViewField("V_KNOCKER_DEADWOOD", "knocker_deadwood", "deadwood",
              "defend phase: the deadwood the knocker laid out, else -1", label="knocker deadwood"),
    ViewField("V_LAST_CHANCE", "last_chance", "flag",
              "discard phase: 1 when the card drawn is the last discard, taken to knock"),
)

# ---- the RL observation's blocks (``simulator.env.encoding``): name, constant, size, meaning --------
# (docs/rl.md's table is generated from it, ``simulator.core.layouts.observation_table``; the rows
# above say which view slot fills which block, the pile's blocks come from the pile)
OBSERVATION: tuple[tuple[str, str, int, str], ...] = (
    ("hand", "O_HAND", 52, "own cards"),
    ("drawn", "O_DRAWN", 52, "discard phase: the card just drawn"),
    ("opponent_held", "O_OPP_HELD", 52,
     "cards known to be in the opponent's hand (taken from the pile, not discarded since)"),
    ("opponent_discards", "O_OPP_DISCARDS", 52, "every card the opponent discarded this hand"),
    ("opponent_declined", "O_OPP_DECLINED", 52, "pile tops the opponent passed on"),
    ("pile", "O_PILE", 52, "cards in the discard pile"),
    ("pile_order", "O_PILE_ORDER", 52, "(i + 1) / pile size for the i-th card from the bottom"),
    ("top", "O_TOP", 52, "the pile's top card"),
    ("stock", "O_STOCK", 32, "cards left in the stock, one-hot 0..31"),
    ("phase", "O_PHASE", len(PHASES) - 1, ", ".join(n for n, _ in PHASES[:-1]) + " (all 0 once over)"),
    ("knock_limit", "O_LIMIT", 11, "the deal's knock limit, one-hot 0..10"),
    ("flags", "O_FLAGS", 2, "is dealer; the drawn card came from the pile"),
    ("deadwood", "O_DEADWOOD", 1, "own deadwood / 100"),
    ("scores", "O_SCORES", 2, "own and opponent's game score / target (0 in single hands)"),
    ("knocker_sets", "O_KNOCKER_SETS", 52, "the set cards the knocker laid out (from the defend phase on)"),
    ("knocker_runs", "O_KNOCKER_RUNS", 52, "the run cards the knocker laid out"),
)

#: the RL observation's blocks no view slot fills: the encoder writes them from the pile
PILE_BLOCKS = ("pile", "pile_order", "top")


def check(observation_blocks: dict[str, int]) -> list[str]:
    """What is wrong with the table (``[]``: nothing), given the RL observation's blocks
    (name -> size): each row well formed, and every block but the pile's filled by rows."""
    problems = []
    seen_const, seen_attr = set(), set()
    for f in VIEW_FIELDS:
        if f.kind not in KINDS:
            problems.append(f"{f.const}: kind {f.kind!r} is not one of {', '.join(KINDS)}")
        if f.mask_attr and f.kind != "cards":
            problems.append(f"{f.const}: only a cards row has a mask_attr")
        for name in (f.attr, f.mask_attr):
            if not name:
                continue
            if name in seen_attr:
                problems.append(f"{f.const}: Python name {name!r} is used twice")
            seen_attr.add(name)
        if f.const in seen_const:
            problems.append(f"{f.const} is declared twice")
        seen_const.add(f.const)
        e = f.encoding
        if e is not None:
            if e.how not in ENCODINGS:
                problems.append(f"{f.const}: encoding {e.how!r} is not one of {', '.join(ENCODINGS)}")
            if e.block not in observation_blocks or e.block in PILE_BLOCKS:
                problems.append(f"{f.const}: {e.block!r} is not a block a view slot may fill")
            elif not 0 <= e.at < observation_blocks[e.block]:
                problems.append(f"{f.const}: value {e.at} is outside block {e.block!r}")
    filled = {f.encoding.block for f in VIEW_FIELDS if f.encoding is not None}
    for block in observation_blocks:
        if block not in filled and block not in PILE_BLOCKS:
            problems.append(f"the RL observation's block {block!r} is filled by no view slot")
    return problems
