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
from typing import Any, ClassVar

import numpy as np

SHUTOUT_MODES = ("none", "double", "double_bonus")
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


@dataclass(frozen=True)
class Rules:
    """One complete rule set.  Defaults are the common rules (close to ``hoyle``).

    Hand rules
        knock_limit: deadwood at or below which a player may knock (0 = gin only); ignored
            under ``oklahoma``, where the upcard sets it.
        gin_only: straight gin: no knocking with deadwood at all, whatever the limit.
        oklahoma: the first upcard's value sets the deal's knock limit (face cards 10).
        oklahoma_ace: an ace upcard means ``"gin"`` only or a limit of ``"one"``.
        oklahoma_spade_double: a spade upcard doubles that hand's score.
        gin_bonus, big_gin_bonus, undercut_bonus: bonuses in points; ``big_gin_bonus`` 0
            means big gin is not played (such a hand discards to an ordinary gin).
        undercut_on_tie: a defender deadwood equal to the knocker's is an undercut (the
            seeds' rule); when false a tie scores 0 for both.
        last_discard_rule: when the stock is down to two cards, the other player may still
            take the last discard, but only to knock or go gin.
        reshuffle_stock: instead of cancelling at two stock cards, the stock is played out;
            when a discard leaves it empty the pile (less its top card) is shuffled into a
            new stock, at most ``max_reshuffles`` times; after that the hand is cancelled
            when the stock is empty.
    Game rules
        target_score, game_bonus, shutout (``none`` | ``double`` | ``double_bonus``),
        box_bonus (per hand won, never counts toward the target), next_dealer
        (``alternate`` | ``loser`` | ``winner``).
    """

    knock_limit: int = 10
    gin_only: bool = False
    oklahoma: bool = False
    oklahoma_ace: str = "gin"
    oklahoma_spade_double: bool = False
    gin_bonus: int = 25
    big_gin_bonus: int = 0
    undercut_bonus: int = 25
    undercut_on_tie: bool = True
    last_discard_rule: bool = False
    reshuffle_stock: bool = False
    max_reshuffles: int = 1
    target_score: int = 100
    game_bonus: int = 100
    shutout: str = "double"
    box_bonus: int = 25
    next_dealer: str = "alternate"

    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {}

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"rules.{f.name} must be true or false, got {value!r}")
            if f.type == "int" and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
                raise ValueError(f"rules.{f.name} must be an integer, got {value!r}")
        _check_range("knock_limit", self.knock_limit, 0, 98)
        for name in ("gin_bonus", "big_gin_bonus", "undercut_bonus", "game_bonus", "box_bonus"):
            _check_range(name, getattr(self, name), 0, 10_000)
        _check_range("target_score", self.target_score, 1, 100_000)
        _check_range("max_reshuffles", self.max_reshuffles, 0, 100)
        _check_choice("shutout", self.shutout, SHUTOUT_MODES)
        _check_choice("oklahoma_ace", self.oklahoma_ace, OKLAHOMA_ACE_MODES)
        _check_choice("next_dealer", self.next_dealer, NEXT_DEALER_MODES)
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
        """The int64 vector the kernels read; slot names are the ``R_*`` constants, declared
        once in ``simulator.core.records.RULE_VECTOR``: booleans 0/1, integers as they are, a
        choice as its index in the field's allowed values."""
        out = np.zeros(N_RULE_FIELDS, dtype=np.int64)
        for i, slot in enumerate(RULE_VECTOR):
            value = getattr(self, slot.field)
            out[i] = _CHOICES[slot.field].index(value) if slot.field in _CHOICES else int(value)
        return out

def _check_range(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ValueError(f"rules.{name} must be an integer from {low} to {high}, got {value!r}")


def _check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"rules.{name} must be one of {', '.join(allowed)}; got {value!r}")


def resolve_rules(rules: "Rules | str | dict[str, Any]") -> Rules:
    """A ``Rules`` from a Rules, a preset name, or a dict (see ``Rules.from_dict``)."""
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    if isinstance(rules, dict):
        return Rules.from_dict(rules)
    raise ValueError(f"rules must be a preset name, a dict or a Rules, got {type(rules).__name__}")


# indices of the kernel rule vector: one per entry of ``simulator.core.records.RULE_VECTOR``
from .records import (  # noqa: E402, F401  (the R_* names other modules import from here)
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
    RULE_VECTOR,
)

#: the allowed values of each choice field; the vector holds the index
_CHOICES = {"oklahoma_ace": OKLAHOMA_ACE_MODES, "shutout": SHUTOUT_MODES, "next_dealer": NEXT_DEALER_MODES}

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

PRESET_NOTES = {
    "classic": "3rd/4th seed: gin 20, undercut 10, box 20, shutout doubles the game bonus",
    "modern": "4th seed: gin 25, big gin +6, undercut 25, box 25, game 25",
    "hoyle": "1st seed: gin 25, undercut 20, box 25, game 100, shutout doubles everything",
    "tournament": "AI competition rules: gin 25, undercut 25, no box or game bonus",
    "oklahoma": "upcard sets the knock limit (ace = gin only), to 150",
    "gin_only": "straight gin: no knocking with deadwood",
    "single_hand": "one hand, tie scores 0: for parity checks with other engines",
}
