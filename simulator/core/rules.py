"""Rule variants as data: the ``Rules`` dataclass, its validation, and the named presets.

Every option of docs/rules.md is one field here, with its default and the values it allows.
A ``Rules`` reaches the numba kernels as a small int64 vector (``Rules.to_array``), so
switching variant never recompiles anything.  Presets are the rule sets tabled in
docs/rules.md#presets; ``Rules.preset("hoyle", target_score=150)`` applies overrides,
and ``Rules.from_dict`` builds rules from a TOML table.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any, ClassVar, NamedTuple

import numpy as np

SHUTOUT_MODES = ("none", "double", "double_bonus")
#: the highest game target a rule set may have (``target_score``); game scores before a hand are below it
MAX_TARGET = 100_000
OKLAHOMA_ACE_MODES = ("gin", "one")
NEXT_DEALER_MODES = ("alternate", "loser", "winner")

#: a hand is cancelled when the stock is down to this many cards and nobody knocked
CANCEL_AT_STOCK = 2
#: the termination guard: a hand with this many discards and no knock is dead.  Stock
#: draws are bounded by the rules, pile draws are not: only a strategy that keeps taking
#: from the pile without ever knocking can reach it (built-in play never comes close).
MAX_TURNS_PER_HAND = 500
#: the game's guard: a game still without a winner after this many hands stops there (no
#: game bonus, no shutout); only pathological strategies reach it
MAX_HANDS_PER_GAME = 2000


class Option(NamedTuple):
    """What a ``Rules`` field declares beside its default (``dataclasses.field`` metadata):

    * ``doc``: one line saying what it does (``ginsim variants``, docs/rules.md);
    * ``low``/``high`` (an integer field) or ``choices`` (a text field, whose kernel slot
      holds the index of its value): the values ``__post_init__`` allows;
    * ``slot``/``slot_doc``: the kernel's rule-vector slot ``R_<SLOT>`` and what it holds
      (``RULE_VECTOR``: ``Rules.to_array``, and the ``R_*`` constants of
      ``simulator.core.constants``);
    * ``sections``: the sections of docs/rules.md whose options line lists the field;
    * ``note``: how a preset's value reads in ``PRESET_NOTES`` (``{}`` is the value; a dict
      maps values to words, ``""`` says nothing, ``"*"`` is the fallback);
    * ``ignored_by``: a boolean field under which this one has no effect (docs/rules.md's
      presets table marks the value unused)."""

    doc: str
    slot: str
    slot_doc: str
    sections: tuple[str, ...]
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    note: str | dict[Any, str] = ""
    ignored_by: str = ""


def option(default: Any, doc: str, slot: str, slot_doc: str, sections: tuple[str, ...], **more: Any) -> Any:
    """A ``Rules`` field: its default and its ``Option``."""
    return dataclasses.field(default=default, metadata={"option": Option(doc, slot, slot_doc, sections, **more)})


_BONUS = dict(low=0, high=10_000)


@dataclass(frozen=True)
class Rules:
    """One complete rule set.  Defaults are the common rules (close to ``hoyle``).

    Each field is declared once below with its default, what it does, the values it allows
    and its kernel slot (``Option``); ``ginsim variants`` lists them, and docs/rules.md says
    in which section each rule lives (its options lines are generated from these
    declarations: ``python -m simulator.core.rules_doc``).
    """

    knock_limit: int = option(
        10, "deadwood at or below which a player may knock (0 = gin only); ignored under oklahoma, where the "
        "upcard sets it", "knock_limit", "deadwood at or below which a player may knock",
        ("knocking-and-gin", "knock-limits"), low=0, high=98, note={10: "", 0: "", "*": "knock at {} or less"},
        ignored_by="oklahoma")
    gin_only: bool = option(
        False, "straight gin: no knocking with deadwood at all, whatever the limit", "gin_only",
        "1: straight gin, no knocking with deadwood", ("gin-only",),
        note={True: "straight gin: no knocking with deadwood"})
    oklahoma: bool = option(
        False, "the first upcard's value sets the deal's knock limit (face cards 10)", "oklahoma",
        "1: the first upcard sets the knock limit", ("oklahoma",), note={True: "upcard sets the knock limit"})
    oklahoma_ace: str = option(
        "gin", "under oklahoma, an ace upcard means gin only or a limit of one", "oklahoma_ace_limit",
        "knock limit of an ace upcard: 0 (gin) or 1 (one)", ("oklahoma",), choices=OKLAHOMA_ACE_MODES,
        note={"one": "an ace upcard allows 1"})
    oklahoma_spade_double: bool = option(
        False, "under oklahoma, a spade upcard doubles that hand's score", "spade_double",
        "1: a spade upcard doubles the hand (Oklahoma)", ("scoring-a-hand", "oklahoma"),
        note={True: "a spade upcard doubles the hand"})
    gin_bonus: int = option(
        25, "bonus of a gin, in points", "gin_bonus", "gin bonus", ("knocking-and-gin", "scoring-a-hand"),
        note="gin {}", **_BONUS)
    big_gin_bonus: int = option(
        0, "bonus of a big gin on top of the gin bonus; 0 means big gin is not played (such a hand discards "
        "to an ordinary gin)", "big_gin_bonus", "big gin bonus (0: big gin not played)",
        ("big-gin", "scoring-a-hand"), note={0: "", "*": "big gin +{}"}, **_BONUS)
    undercut_bonus: int = option(
        25, "bonus of an undercut, in points", "undercut_bonus", "undercut bonus", ("scoring-a-hand",),
        note="undercut {}", **_BONUS)
    undercut_on_tie: bool = option(
        True, "a defender deadwood equal to the knocker's is an undercut (the sources' rule); when false a tie "
        "scores 0 for both", "undercut_on_tie", "1: equal deadwood is an undercut", ("scoring-a-hand",),
        note={False: "tie scores 0"})
    last_discard_rule: bool = option(
        False, "when the stock is down to two cards, the other player may still take the last discard, but only "
        "to knock or go gin", "last_discard", "1: the last discard may be taken to knock", ("end-of-the-stock",),
        note={True: "the last discard may be taken to knock"})
    reshuffle_stock: bool = option(
        False, "instead of cancelling at two stock cards, the stock is played out and the pile (less its top "
        "card) reshuffled into a new one, at most max_reshuffles times", "reshuffle",
        "1: the pile is reshuffled into a new stock", ("end-of-the-stock",), note={True: "the pile is reshuffled"})
    max_reshuffles: int = option(
        1, "reshuffles allowed per hand under reshuffle_stock; after that the hand is cancelled when the stock is "
        "empty", "max_reshuffles", "reshuffles allowed per hand", ("end-of-the-stock",), low=0, high=100)
    target_score: int = option(
        100, "hand points that win the game", "target", "game target score", ("the-game",), low=1, high=MAX_TARGET,
        note="to {}")
    game_bonus: int = option(
        100, "bonus of the game's winner", "game_bonus", "game bonus", ("the-game",),
        note={0: "no game bonus", "*": "game {}"}, **_BONUS)
    shutout: str = option(
        "double", "when the loser scored no hand points: double the winner's whole total, only the game bonus, "
        "or nothing", "shutout", "0 none, 1 double, 2 double_bonus", ("the-game",), choices=SHUTOUT_MODES,
        note={"double": "shutout doubles everything", "double_bonus": "shutout doubles the game bonus",
              "none": ""})
    box_bonus: int = option(
        25, "points per hand won, added at the end (never counts toward the target)", "box_bonus",
        "box bonus per hand won", ("the-game",), note={0: "no box", "*": "box {}"}, **_BONUS)
    next_dealer: str = option(
        "alternate", "who deals the next hand: the players alternate, or the hand's loser, or its winner",
        "next_dealer", "0 alternate, 1 loser, 2 winner", ("the-game",), choices=NEXT_DEALER_MODES,
        note={"alternate": "", "*": "the {} deals next"})

    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {}

    def __post_init__(self) -> None:
        """Each field's type and its declared range or choices; then the one rule between
        fields (oklahoma and gin_only exclude each other)."""
        for f in fields(self):
            value, spec = getattr(self, f.name), f.metadata["option"]
            if f.type == "bool" and not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"rules.{f.name} must be true or false, got {value!r}")
            if f.type == "int" and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
                raise ValueError(f"rules.{f.name} must be an integer, got {value!r}")
            if f.type == "int" and not spec.low <= value <= spec.high:
                raise ValueError(f"rules.{f.name} must be an integer from {spec.low} to {spec.high}, got {value!r}")
            if spec.choices and value not in spec.choices:
                raise ValueError(f"rules.{f.name} must be one of {', '.join(spec.choices)}; got {value!r}")
        if self.oklahoma and self.gin_only:
            raise ValueError("rules.oklahoma and rules.gin_only cannot both be true")

    # -- construction -------------------------------------------------------------------
    @classmethod
    def preset(cls, name: str, **overrides: Any) -> "Rules":
        """The named rule set of docs/rules.md#presets, with optional field overrides."""
        if name not in cls.PRESETS:
            raise ValueError(f"unknown rules preset {name!r}; presets: {', '.join(cls.PRESETS)}")
        return cls.from_dict({**cls.PRESETS[name], **overrides})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Rules":
        """Rules from a plain dict (e.g. a TOML table).  A ``preset`` key starts from that
        preset; any other key must be a field name."""
        data = dict(data)
        base: dict[str, Any] = {}
        if "preset" in data:
            preset = data.pop("preset")
            if not isinstance(preset, str) or preset not in cls.PRESETS:
                raise ValueError(f"unknown rules preset {preset!r}; presets: {', '.join(cls.PRESETS)}")
            base = dict(cls.PRESETS[preset])
        names = [f.name for f in fields(cls)]
        for key in data:
            if key not in names:
                raise ValueError(f"unknown rules field {key!r}; fields: {', '.join(names)}")
        return cls(**{**base, **data})

    def replace(self, **changes: Any) -> "Rules":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def canonical(self) -> str:
        """The canonical form of these rules: every field, in declaration order, as
        ``field=value`` joined by ``;`` (booleans ``true``/``false``).  Two rule sets play the
        same game field for field exactly when their canonical forms are equal, however
        they were written (a preset, a preset with overrides, a plain table): e.g.
        ``{"preset": "tournament", "knock_limit": 10}`` and ``{"preset": "tournament"}``.
        A field the rules leave unused (the knock limit under ``oklahoma``) still counts:
        a strategy may read it.

        >>> Rules.preset("tournament", knock_limit=10).canonical() == Rules.preset("tournament").canonical()
        True
        """
        def text(value: Any) -> str:
            return ("true" if value else "false") if isinstance(value, (bool, np.bool_)) else str(value)

        return ";".join(f"{f.name}={text(getattr(self, f.name))}" for f in fields(self))

    # -- kernel form ----------------------------------------------------------------------
    def to_array(self) -> np.ndarray:
        """The int64 vector the kernels read; its slots are the fields' (``RULE_VECTOR``,
        whose ``R_*`` constants ``simulator.core.layouts`` writes): booleans 0/1, integers as they are, a
        choice as its index in the field's allowed values."""
        out = np.zeros(N_RULE_FIELDS, dtype=np.int64)
        for i, slot in enumerate(RULE_VECTOR):
            value, choices = getattr(self, slot.field), OPTIONS[slot.field].choices
            out[i] = choices.index(value) if choices else int(value)
        return out

def resolve_rules(rules: "Rules | str | dict[str, Any]") -> Rules:
    """A ``Rules`` from a Rules, a preset name, or a dict (see ``Rules.from_dict``)."""
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    if isinstance(rules, dict):
        return Rules.from_dict(rules)
    raise ValueError(f"rules must be a preset name, a dict or a Rules, got {type(rules).__name__}")


class RuleSlot(NamedTuple):
    slot: str  # name of the slot (``R_<SLOT>``)
    field: str  # the ``Rules`` field it encodes
    doc: str


#: each field's declaration, by name
OPTIONS: dict[str, Option] = {f.name: f.metadata["option"] for f in fields(Rules)}
#: the kernel rule vector (``Rules.to_array``), one slot per field in declaration order:
#: booleans 0/1, integers as they are, a choice its index in the field's choices
RULE_VECTOR: tuple[RuleSlot, ...] = tuple(RuleSlot(o.slot, name, o.slot_doc) for name, o in OPTIONS.items())

# indices of the kernel rule vector, generated from RULE_VECTOR into simulator/core/constants.py
from .constants import (  # noqa: E402, F401  (the R_* names other modules import from here)
    N_RULE_FIELDS,
    R_BIG_GIN_BONUS,
    R_BOX_BONUS,
    R_GAME_BONUS,
    R_GIN_BONUS,
    R_GIN_ONLY,
    R_KNOCK_LIMIT,
    R_LAST_DISCARD,
    R_MAX_RESHUFFLES,
    R_NEXT_DEALER,
    R_OKLAHOMA,
    R_OKLAHOMA_ACE_LIMIT,
    R_RESHUFFLE,
    R_SHUTOUT,
    R_SPADE_DOUBLE,
    R_TARGET,
    R_UNDERCUT_BONUS,
    R_UNDERCUT_ON_TIE,
)

SHUTOUT_NONE, SHUTOUT_DOUBLE, SHUTOUT_DOUBLE_BONUS = range(3)
NEXT_ALTERNATE, NEXT_LOSER, NEXT_WINNER = range(3)

# The presets of docs/rules.md#presets.  Each lists every field it sets; the rest keep the defaults.
Rules.PRESETS.update(
    {
        "classic": dict(knock_limit=10, gin_bonus=20, big_gin_bonus=0, undercut_bonus=10,
                        undercut_on_tie=True, box_bonus=20, game_bonus=100,
                        shutout="double_bonus", target_score=100),
        "modern": dict(knock_limit=10, gin_bonus=25, big_gin_bonus=6, undercut_bonus=25,
                       undercut_on_tie=True, box_bonus=25, game_bonus=25, shutout="none",
                       target_score=100),
        "hoyle": dict(knock_limit=10, gin_bonus=25, big_gin_bonus=0, undercut_bonus=20,
                      undercut_on_tie=True, box_bonus=25, game_bonus=100, shutout="double",
                      target_score=100),
        "tournament": dict(knock_limit=10, gin_bonus=25, big_gin_bonus=0, undercut_bonus=25,
                           undercut_on_tie=True, box_bonus=0, game_bonus=0, shutout="none",
                           target_score=100),
        "oklahoma": dict(oklahoma=True, oklahoma_ace="gin", gin_bonus=25, big_gin_bonus=0,
                         undercut_bonus=25, undercut_on_tie=True, box_bonus=25, game_bonus=100,
                         shutout="double", target_score=150),
        "gin_only": dict(gin_only=True, knock_limit=0, gin_bonus=25, big_gin_bonus=0,
                         undercut_bonus=0, box_bonus=25, game_bonus=100, shutout="double",
                         target_score=100),
        "single_hand": dict(knock_limit=10, gin_bonus=25, big_gin_bonus=0, undercut_bonus=25,
                            undercut_on_tie=False, box_bonus=0, game_bonus=0, shutout="none",
                            target_score=100),
    }
)

#: where each preset comes from (the sources of docs/rules.md#sources)
PRESET_ORIGINS = {
    "classic": "source 3; source 4 \"Classic\"",
    "modern": "source 4 \"Modern\"",
    "hoyle": "source 1",
    "tournament": "AI competition scoring (not in the sources)",
    "oklahoma": "source 1's variant",
    "gin_only": "source 1's variant",
    "single_hand": "one hand scored as OpenSpiel does, for parity checks with other engines",
}


def option_note(name: str, value: Any) -> str:
    """How ``value`` of field ``name`` reads in a preset's note (``Option.note``)."""
    note = OPTIONS[name].note
    if isinstance(note, dict):
        note = note.get(value, note.get("*", ""))
    return note.format(value)


def rules_words(values: dict[str, Any]) -> str:
    """Rule fields and their values in words, in order (``Option.note``; a field whose value
    has no note, such as the default knock limit, says nothing): ``gin 20, undercut 10, ...``."""
    words = [option_note(n, v) for n, v in values.items()]
    return ", ".join(w for w in words if w)


def preset_note(preset: str) -> str:
    """The preset's origin, then the values it sets, in words (``rules_words``)."""
    return PRESET_ORIGINS[preset] + ": " + rules_words(Rules.PRESETS[preset])


def describe_rules(rules: str | dict[str, Any]) -> str:
    """A rule set as reports name it, its rules spelled beside its name: a preset
    (``"classic"``) -> ``classic (gin 20, undercut 10, box 20, game 100, shutout doubles the
    game bonus, to 100)``; a preset with changes (``{"preset": "hoyle", "knock_limit": 15}``)
    -> ``hoyle with knock_limit=15 (knock at 15 or less; gin 25, ...)``.  Any other name (a
    study's own variant name) is returned as given."""
    if isinstance(rules, str):
        return f"{rules} ({rules_words(Rules.PRESETS[rules])})" if rules in Rules.PRESETS else rules
    changes = {k: v for k, v in rules.items() if k != "preset"}
    preset = rules.get("preset")
    if preset not in Rules.PRESETS:
        return ", ".join(f"{k}={v}" for k, v in changes.items()) or "the default rules"
    if not changes:
        return describe_rules(preset)
    changed = "; ".join(option_note(k, v) or f"{k} {v}" for k, v in changes.items() if k in OPTIONS)
    base = rules_words({k: v for k, v in Rules.PRESETS[preset].items() if k not in changes})
    return (f"{preset} with " + ", ".join(f"{k}={v}" for k, v in changes.items())
            + f" ({changed}; {base})")


#: one line per preset for ``ginsim variants``, made from its fields' notes
PRESET_NOTES = {preset: preset_note(preset) for preset in Rules.PRESETS}


def allowed_text(name: str) -> str:
    """The values field ``name`` allows, in words (docs/rules.md's options lines, ``ginsim variants``)."""
    o, kind = OPTIONS[name], next(f.type for f in fields(Rules) if f.name == name)
    if o.choices:
        return ", ".join(f"`{c}`" for c in o.choices[:-1]) + f" or `{o.choices[-1]}`"
    return "true or false" if kind == "bool" else f"{o.low}–{o.high}"


def options_line(section: str) -> str:
    """docs/rules.md's options line of ``section``: each field listed there, its default and
    its allowed values."""
    items = []
    for f in fields(Rules):
        if section in OPTIONS[f.name].sections:
            default = f"`{f.default}`" if isinstance(f.default, str) else str(f.default).replace("True", "true") \
                .replace("False", "false")
            extra = "" if f.type == "bool" else f"; {allowed_text(f.name)}"
            items.append(f"`{f.name}` (default {default}{extra})")
    return "Option(s): " + ", ".join(items) + "\\"
