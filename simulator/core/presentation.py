"""A view presented in Python, made from its declaration (``simulator.core.view_fields``):
every slot is shown the way its kind says, under its Python name.

* ``present(field, value)``: one slot's value (cards as ``Card``, a phase by its name, a
  flag as ``bool``, -1 as ``None`` where the kind says it means "not known");
* ``ViewProperty``/``MaskProperty``: the descriptors that make ``strategies.pyplayer``'s
  ``Observation`` properties, one per row (and one per ``mask_attr``);
* ``view_record(view)``: every slot by Python name, cards as text (``simulator.Hand.observation``);
* ``view_line(view)``: the labelled slots in one line (``Observation``'s text and the
  terminal game's status line).
"""

from __future__ import annotations

import numpy as np

from . import constants
from .cards import Card, format_card
from .view_fields import VIEW_FIELDS, ViewField

_CARD = tuple(Card(c) for c in range(64))

#: each row's slot in the view vector
SLOT = {f.attr: getattr(constants, f.const) for f in VIEW_FIELDS}
#: the rows by Python name
BY_ATTR = {f.attr: f for f in VIEW_FIELDS}


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask as ``Card``s, in code order (suit, then rank)."""
    out = []
    mask = int(mask)
    while mask:
        low = mask & -mask
        out.append(_CARD[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def present(field: ViewField, value) -> object:
    """One slot's value as Python shows it (``view_fields.KINDS``)."""
    value = int(value)
    kind = field.kind
    if kind == "cards":
        return cards_of(value)
    if kind == "card":
        return _CARD[value] if value >= 0 else None
    if kind == "flag":
        return bool(value)
    if kind == "phase":
        return constants.PHASE_NAMES[value]
    if kind == "deadwood":
        return value if value >= 0 else None
    return value


def as_text(value) -> object:
    """A presented value with its cards as text (``"7h"``), for records meant to be printed or
    written as JSON."""
    if isinstance(value, Card):
        return format_card(value)
    if isinstance(value, tuple):
        return [format_card(c) for c in value]
    return value


class ViewProperty:
    """An ``Observation`` property: the slot of ``field`` in the owner's view vector (its
    ``seen``), presented by the slot's kind."""

    def __init__(self, field: ViewField):
        self.field, self.slot = field, SLOT[field.attr]
        self.__doc__ = f"{field.doc} (``{field.const}``)"

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return present(self.field, obj.seen[self.slot])


class MaskProperty:
    """The mask of a cards row (its ``mask_attr``) as an ``int``."""

    def __init__(self, field: ViewField):
        self.slot = SLOT[field.attr]
        self.__doc__ = f"{field.doc}: the int64 card mask (``{field.const}``)"

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return int(obj.seen[self.slot])


def view_properties() -> dict[str, object]:
    """The properties of a class whose ``seen`` is a view vector: one per row, one per mask."""
    out: dict[str, object] = {}
    for f in VIEW_FIELDS:
        out[f.attr] = ViewProperty(f)
        if f.mask_attr:
            out[f.mask_attr] = MaskProperty(f)
    return out


def view_record(view: np.ndarray) -> dict[str, object]:
    """Every slot of ``view`` by Python name, cards as text (masks under their ``mask_attr``
    are left out: the cards say the same)."""
    return {f.attr: as_text(present(f, view[SLOT[f.attr]])) for f in VIEW_FIELDS}


def view_line(view: np.ndarray, skip: tuple[str, ...] = (), opponent: str = "opponent") -> str:
    """The labelled slots of ``view`` in one line, those not known in this phase left out, and
    those named in ``skip`` (Python names): ``phase discard | hand 2c 3c ... | drew 7h | top 5h
    | stock 21 | ...``.  ``opponent`` replaces the word "opponent" in the labels."""
    parts = []
    for f in VIEW_FIELDS:
        if f.label is None or f.attr in skip:
            continue
        value = present(f, view[SLOT[f.attr]])
        if value is None:
            continue
        if isinstance(value, tuple):
            value = " ".join(map(str, value)) or "-"
        parts.append(f"{f.label.replace('opponent', opponent)} {value}")
    return " | ".join(parts)
