"""One schema per record: the hand row, the game row and the rule vector, each declared once.

The kernels write int64 records (one row per hand or game, 2-d arrays: fast and simple to
fill in parallel); the façade turns them into DataFrames.  Everything about a column lives
in one entry below, and the rest is derived from these tables:

* the column indices the kernels use (``H_*``, ``G_*``, ``R_*``, made from each entry's
  ``const``) and the record widths (``N_HAND_COLS``, ``N_GAME_COLS``, ``N_RULE_FIELDS``),
  written as plain constants into ``simulator/core/constants.py`` by
  ``python -m simulator.core.layouts``; the raw column names (``HAND_RECORD_NAMES``, ``GAME_RECORD_NAMES``, ``RULE_SLOT_NAMES``);
* the DataFrame columns, their order and dtypes (``simulator.api.hand_frame`` /
  ``game_frame`` read ``HAND_ROW`` / ``GAME_ROW`` entry by entry, by ``kind``);
* the column documentation: the tables in ``simulator.api``'s docstring and on the docs site
  (``column_table``) and the description each run's Parquet files carry
  in their fields' metadata (``column_descriptions``, under the key ``description``);
* the reference engine's record columns (``tests/reference_engine.py``);
* the rule vector ``Rules.to_array`` builds (``RULE_VECTOR``, made from the ``Rules`` fields'
  declarations in ``simulator.core.rules``).

The label columns a run writes before a record's columns (``cell``, ``matchup``, ``a``, ``b``,
``variant`` and one per swept parameter) are declared here too (``RUN_LABELS``,
``SWEEP_DOC``), so every column of a run's files has one description.

Adding an output column is one entry here plus the code that fills it (``out[H_NEW] = ...``
in ``simulator.engine.kernels``); the frame, its documentation and the reference's column list
follow.

A ``Column`` is (``raw``, ``frame``, ``dtype``, ``kind``, ``doc``, ``const``):

* ``raw``: the name of the record column (``None``: computed for the frame only);
* ``frame``: the DataFrame column (``None``: kept in the raw record only);
* ``dtype``: the DataFrame dtype (numpy dtype, or a pandas name such as ``"Int16"``);
* ``kind``: how the frame is made from the record: ``int`` (cast to ``dtype``), ``a_seat``
  (True when the seat in the column is A's), ``seat`` (``a``/``b``, missing for -1),
  ``outcome``, ``card``, ``deadwood`` (missing for a dead hand), ``flag`` (== 1),
  ``by_seat`` (two raw columns ``<raw>0``/``<raw>1`` by seat, shown as ``<frame>_a`` and
  ``<frame>_b``), ``net_a``/``margin_a`` (computed), ``raw`` (not shown);
* ``const``: the suffix of the index constant (default: ``raw`` upper-cased).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# H_DEAL, ..., N_HAND_COLS, G_GAME, ..., R_KNOCK_LIMIT, ..., OUT_*: one constant per column and
# outcome, generated from the tables below into simulator/core/constants.py
# (``python -m simulator.core.layouts``)
from .constants import *  # noqa: F403


class Column(NamedTuple):
    raw: str | None
    frame: str | None
    dtype: object
    kind: str
    doc: str
    const: str | None = None


#: outcome codes of a hand record, in order
OUTCOMES = ("knock", "gin", "big_gin", "undercut", "dead")

# ---- the hand row ------------------------------------------------------------------------
# Raw record order is the order below, skipping frame-only entries; the frame's column order
# is the same, skipping raw-only entries.  Seats are 0/1 in the record (-1 = nobody).
HAND_ROW: tuple[Column, ...] = (
    Column("deal", "deal", np.int64, "int",
           "deal number (0-based); with mirrored deals, 2p and 2p+1 share a deck"),
    Column("pair", "pair", np.int64, "int", "deck number: the two deals of a mirrored pair share it"),
    Column("a_seat", None, np.int64, "raw", "strategy A's seat (0 or 1)"),
    Column("dealer", "a_dealt", np.bool_, "a_seat", "True when strategy A dealt (B moved first)"),
    Column("outcome", "outcome", "category", "outcome",
           "`knock`, `gin`, `big_gin`, `undercut` or `dead` (cancelled)"),
    Column("knocker", "knocker", "category", "seat", "`a`, `b` or missing (dead hand)"),
    Column("winner", "winner", "category", "seat",
           "`a`, `b` or missing (dead hand, or a scoreless tie)"),
    Column("points", "points", np.int32, "int",
           "points to the hand's winner (Oklahoma spade doubling included)"),
    Column(None, "net_a", np.int32, "net_a", "points to A minus points to B"),
    Column("knocker_deadwood", "knocker_deadwood", "Int16", "deadwood",
           "the knocker's deadwood (missing for a dead hand)", "KNOCKER_DW"),
    Column("defender_deadwood", "defender_deadwood", "Int16", "deadwood",
           "the defender's deadwood after layoffs (missing for a dead hand)", "DEFENDER_DW"),
    Column("layoff_points", "layoff_points", np.int16, "int",
           "value of the cards the defender laid off", "LAYOFF"),
    Column("draws", "draws", np.int16, "int",
           "cards drawn in the hand by both players (pile takes included)"),
    Column("turns", "turns", np.int16, "int", "discards made in the hand"),
    Column("stock_left", "stock_left", np.int16, "int", "cards left in the stock when the hand ended"),
    Column("upcard", "upcard", "category", "card", "the first upcard (e.g. `7h`)"),
    Column("knock_limit", "knock_limit", np.int16, "int",
           "the knock limit in force (Oklahoma: set by the upcard)"),
    Column("reshuffles", "reshuffles", np.int16, "int",
           "times the pile was turned into a new stock (`reshuffle_stock`)"),
    Column("error", None, np.int64, "raw", "error code (`simulator.core.constants.ERR_*`; 0 = none)"),
    Column("game", None, np.int64, "raw", "game number (-1 for single deals)"),
    Column("hand_in_game", None, np.int64, "raw", "hand number within its game (-1 for single deals)"),
    Column("error_seat", None, np.int64, "raw", "seat whose strategy caused the error (-1 = none)"),
    Column("error_value", None, np.int64, "raw",
           "the offending value: a card returned, the melds' card mask, or the slot written"),
)

# ---- the game row ------------------------------------------------------------------------
GAME_ROW: tuple[Column, ...] = (
    Column("game", "game", np.int64, "int", "game number (0-based)"),
    Column("pair", "pair", np.int64, "int", "deck sequence number: mirrored games 2p and 2p+1 share it"),
    Column("a_seat", None, np.int64, "raw", "strategy A's seat (0 or 1)"),
    Column("first_dealer", "a_dealt_first", np.bool_, "a_seat", "True when A dealt the first hand"),
    Column("winner", "winner", "category", "seat",
           "`a`, `b` or missing (the hand guard stopped the game)"),
    Column("hands", "hands", np.int32, "int", "hands played, dead hands included"),
    Column("dead_hands", "dead_hands", np.int32, "int", "hands cancelled at the end of the stock"),
    Column("points", "points", np.int32, "by_seat", "hand points only (what reaches the target)"),
    Column("boxes", "boxes", np.int32, "by_seat", "hands won"),
    Column("score", "score", np.int32, "by_seat", "final totals, after game, box and shutout bonuses"),
    Column(None, "margin_a", np.int32, "margin_a", "`score_a - score_b`"),
    Column("shutout", "shutout", np.bool_, "flag", "the loser scored no hand points"),
    Column("error", None, np.int64, "raw", "error code of the hand that stopped the game (0 = none)"),
    Column("error_seat", None, np.int64, "raw", "seat whose strategy caused the error (-1 = none)"),
    Column("error_value", None, np.int64, "raw", "the offending value (as in the hand row)"),
)


# ---- the labels of a run's rows --------------------------------------------------------
# ``simulator.run.runner`` writes these before the hand or game columns of every row of a run
# (``kind`` ``label``: made from the cell, not from a record).  The dictionary-encoded ones
# (``category``) list the run's values in cell order in every file.
RUN_LABELS: tuple[Column, ...] = (
    Column(None, "cell", np.int32, "label", "cell number in the experiment (0-based; `ginsim show` lists them)"),
    Column(None, "matchup", "category", "label", "`A vs B`: the two strategy specs of the cell"),
    Column(None, "a", "category", "label", "strategy A's spec, e.g. `simple:knock_at=0`"),
    Column(None, "b", "category", "label", "strategy B's spec"),
    Column(None, "variant", "category", "label", "the cell's rule variant, named as in the experiment file"),
)
#: the description of a swept parameter's column, whose name is the parameter (``a.knock_at``)
SWEEP_DOC = "swept parameter `{name}`: its value in this cell (null in cells that do not take it)"


# ---- the rule vector (``Rules.to_array``) ---------------------------------------------------
# One slot per ``Rules`` field, declared with the field (``simulator.core.rules.Option``).
from .rules import RULE_VECTOR, RuleSlot  # noqa: E402, F401  (layouts and the docs read them from here)


# ---- derived ---------------------------------------------------------------------------------
def _raw_names(row: tuple[Column, ...]) -> tuple[str, ...]:
    names: list[str] = []
    for c in row:
        if c.raw is None:
            continue
        names.extend((c.raw + "0", c.raw + "1") if c.kind == "by_seat" else (c.raw,))
    return tuple(names)


def _constants(prefix: str, row: tuple[Column, ...]) -> dict[str, int]:
    out: dict[str, int] = {}
    i = 0
    for c in row:
        if c.raw is None:
            continue
        const = c.const or c.raw.upper()
        if c.kind == "by_seat":
            out[f"{prefix}{const}0"] = i
            out[f"{prefix}{const}1"] = i + 1
            i += 2
        else:
            out[prefix + const] = i
            i += 1
    return out


#: names of the raw hand record's columns, in order (seats, not a/b)
HAND_RECORD_NAMES = _raw_names(HAND_ROW)
#: names of the raw game record's columns, in order
GAME_RECORD_NAMES = _raw_names(GAME_ROW)
#: names of the rule vector's slots, in order
RULE_SLOT_NAMES = tuple(s.slot for s in RULE_VECTOR)

HAND_CONSTANTS = _constants("H_", HAND_ROW)
GAME_CONSTANTS = _constants("G_", GAME_ROW)
RULE_CONSTANTS = {"R_" + s.slot.upper(): i for i, s in enumerate(RULE_VECTOR)}


def frame_columns(row: tuple[Column, ...]) -> list[tuple[str, object, str]]:
    """(DataFrame column, dtype, doc) in frame order; a ``by_seat`` entry gives two."""
    out = []
    for c in row:
        if c.frame is None:
            continue
        if c.kind == "by_seat":
            out.append((c.frame + "_a", c.dtype, c.doc + " (A)"))
            out.append((c.frame + "_b", c.dtype, c.doc + " (B)"))
        else:
            out.append((c.frame, c.dtype, c.doc))
    return out


def column_descriptions(row: tuple[Column, ...]) -> dict[str, str]:
    """DataFrame column -> its description, in frame order (a ``by_seat`` entry gives two):
    the text each run's Parquet files carry in their fields' metadata."""
    return {name: doc for name, _, doc in frame_columns(row)}


def column_table(row: tuple[Column, ...]) -> str:
    """The frame's columns as a Markdown table (column, type, description); a ``by_seat``
    entry is one line naming both columns."""
    lines = ["| column | type | description |", "|---|---|---|"]
    for c in row:
        if c.frame is None:
            continue
        name = f"`{c.frame}_a`, `{c.frame}_b`" if c.kind == "by_seat" else f"`{c.frame}`"
        lines.append(f"| {name} | {_type_name(c.dtype)} | {c.doc} |")
    return "\n".join(lines)


def run_label_table() -> str:
    """The label columns of a run's rows as a Markdown table (``column_table`` of
    ``RUN_LABELS``), with the line of a swept parameter's column."""
    sweep = SWEEP_DOC.format(name="a.knock_at")
    return column_table(RUN_LABELS) + f"\n| one per swept parameter, e.g. `a.knock_at` | float64 | {sweep} |"


def _type_name(dtype) -> str:
    """A column's type in words: ``int32``, ``bool``, ``Int16`` (nullable), ``category``."""
    return dtype if isinstance(dtype, str) else np.dtype(dtype).name
