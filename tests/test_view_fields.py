"""The view declared once (``simulator.core.view_fields``): every presentation of a view (a
Python player's ``Observation``, ``Hand.observation``, the one-line text, the RL encoder) is
made from the table, and nothing outside the core reads a hand state's slots."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

import simulator
from simulator.core import constants as C
from simulator.core import layouts
from simulator.core.observation import ENCODING, encode_view_nb
from simulator.core.presentation import present, view_line
from simulator.core.view_fields import ENCODINGS, OBSERVATION, PILE_BLOCKS, VIEW_FIELDS, check
from simulator.core.view_fill import view_of
from strategies.pyplayer import Observation, SeatInfo

ROOT = Path(__file__).resolve().parents[1]
#: where a hand state's slots may be read: the core, and the engine's compiled loop and kernels
#: (they run the state machine: ``simulator.core.hand_reading`` is what everything else uses)
SLOT_READERS = ("simulator/core/", "simulator/engine/loop.py", "simulator/engine/work.py",
                "simulator/engine/kernels.py")


def _hands(n: int = 6):
    """Hands stopped at every decision of a few deals, with the seat to act."""
    for deal in range(n):
        hand = simulator.Hand("hoyle", seed=deal, a="simple", b="simple")
        while not hand.is_over():
            yield hand, hand.current_player
            hand.apply(hand.bot_action())


def test_the_table_is_well_formed_and_fills_every_block_but_the_piles():
    assert check({name: size for name, _, size, _ in OBSERVATION}) == []
    assert [b.name for b in layouts.VIEW_SLOTS] == [f.const for f in VIEW_FIELDS]
    assert [getattr(C, f.const) for f in VIEW_FIELDS] == list(range(len(VIEW_FIELDS)))
    assert C.N_VIEW == len(VIEW_FIELDS)
    filled = {f.encoding.block for f in VIEW_FIELDS if f.encoding}
    assert filled | set(PILE_BLOCKS) == {name for name, *_ in OBSERVATION}


def test_the_check_names_each_problem():
    blocks = {name: size for name, _, size, _ in OBSERVATION}
    assert any("filled by no view slot" in p for p in check({**blocks, "extra": 3}))
    assert any("is not a block" in p for p in check({k: v for k, v in blocks.items() if k != "hand"}))


def test_every_row_is_an_observation_property_presented_by_its_kind():
    for hand, seat in _hands(3):
        view = view_of(hand.state, seat)
        obs = Observation(hand.state, seat, SeatInfo(1, 0, hand.rules.to_array()), hand.rules)
        for f in VIEW_FIELDS:
            raw = int(view[getattr(C, f.const)])
            value = getattr(obs, f.attr)
            assert value == present(f, raw)
            if f.kind == "cards":
                assert sum(1 << int(c) for c in value) == raw
                if f.mask_attr:
                    assert getattr(obs, f.mask_attr) == raw
            elif f.kind == "flag":
                assert value is bool(raw)
            elif f.kind in ("card", "deadwood"):
                assert (value is None) == (raw < 0)
            elif f.kind == "phase":
                assert value == C.PHASE_NAMES[raw]


def test_hand_observation_has_every_row_with_cards_as_text():
    for hand, seat in _hands(2):
        record = hand.observation(seat)
        view = view_of(hand.state, seat)
        for f in VIEW_FIELDS:
            value = present(f, view[getattr(C, f.const)])
            expected = [str(c) for c in value] if isinstance(value, tuple) else (
                str(value) if f.kind == "card" and value is not None else value)
            assert record[f.attr] == expected, f.attr


def test_the_one_line_text_shows_the_labelled_rows_known_now():
    hand, seat = next(h for h in _hands(1) if h[0].phase == C.PHASE_DISCARD)
    line = view_line(view_of(hand.state, seat))
    assert line.startswith("phase discard | hand ")
    assert " | drew " in line and " | stock " in line and "knocker deadwood" not in line
    assert "opp holds" in view_line(view_of(hand.state, seat), opponent="opp")


def test_each_encoded_row_writes_only_its_block():
    """Changing one slot changes the RL observation only inside the block its row names."""
    blocks = {name: (offset, size) for name, offset, size in C.OBSERVATION_LAYOUT}
    hand, seat = next(h for h in _hands(2) if h[0].phase == C.PHASE_DISCARD)
    view = view_of(hand.state, seat)
    view[C.V_DEADWOOD] = 8  # known: the deadwood block then reads no other slot (-1 reads the hand)
    pile = np.asarray(hand.state[C.S_PILE:], np.int64)
    base = np.empty(C.N_OBS, np.float32)
    encode_view_nb(view, pile, np.int64(100), base)
    changed = {"plane": lambda x: x ^ (1 << 5), "card": lambda x: 5 if x != 5 else 6, "one_hot": lambda x: x - 1 if x > 0 else x + 1,
               "below": lambda x: (x + 1) % 7, "flag": lambda x: 1 - x, "per_target": lambda x: x + 40,
               "deadwood": lambda x: 17}
    assert set(changed) == set(ENCODINGS)
    for f in VIEW_FIELDS:
        if f.encoding is None:
            continue
        other = view.copy()
        slot = getattr(C, f.const)
        other[slot] = changed[f.encoding.how](int(view[slot]))
        out = np.empty(C.N_OBS, np.float32)
        encode_view_nb(other, pile, np.int64(100), out)
        offset, size = blocks[f.encoding.block]
        diff = np.flatnonzero(out != base)
        assert len(diff) and diff.min() >= offset and diff.max() < offset + size, f.const
    assert len(ENCODING) == sum(1 for f in VIEW_FIELDS if f.encoding)


def _slot_reads(source: str, where: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else \
            node.name if isinstance(node, ast.alias) else None
        if name and re.fullmatch(r"S_[A-Z_]+", name) and not name.startswith(("S_IS", "S_IF")):
            found.append(f"{where}:{node.lineno}: {name}")
    return found


def test_no_module_outside_the_core_reads_a_state_slot():
    outside = [p for top in ("simulator", "strategies") for p in sorted((ROOT / top).rglob("*.py"))
               if not str(p.relative_to(ROOT)).startswith(SLOT_READERS)]
    assert [read for p in outside for read in _slot_reads(p.read_text(), str(p.relative_to(ROOT)))] == []


@pytest.mark.parametrize("source", ["x = state[S.S_PHASE]", "from simulator.core.state import S_HANDS",
                                    "y = state[S_CURRENT]"])
def test_the_slot_scan_sees_each_form(source):
    assert _slot_reads(source, "probe") == [f"probe:1: {re.search(r'S_[A-Z]+', source).group()}"]
