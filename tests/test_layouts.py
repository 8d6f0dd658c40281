"""Every integer layout is declared once (``simulator.core.layouts``) and the checked-in
constants module is generated from those tables; the size constraints between layouts hold;
``simulator.actions`` names the action codes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from simulator import actions
from simulator.core import constants as C
from simulator.core import layouts as L

ROOT = Path(__file__).resolve().parents[1]


def test_the_constants_module_is_generated_from_the_tables():
    assert L.main(["--check"]) == 0
    text = L.CONSTANTS.read_text()
    # plain NAME = value lines, nothing computed at import time
    body = [line for line in text.splitlines() if line and not line.startswith(("#", '"""', "(", "``"))]
    assert all(re.fullmatch(r"[A-Z][A-Z0-9_]* = .+?(  # .*)?", line) for line in body), body[:3]


def test_no_module_makes_constants_with_globals():
    for package in ("simulator", "strategies"):
        for path in (ROOT / package).rglob("*.py"):
            assert "globals().update" not in path.read_text(), path


def test_the_layouts_fit_each_other():
    assert C.N_VIEW <= C.W_SEAT_PILES - C.W_VIEW
    assert C.SCRATCH_LEN - C.W_SEAT_PILES == 2 * 64
    assert C.N_STATE == C.S_PILE + 64 and C.S_PILE == C.S_STOCK + 64
    assert C.PHASE_NAMES[C.PHASE_OVER] == "over" and C.EVENT_NAMES[C.EV_PASS_LAST] == "pass_last_discard"
    assert C.OBSERVATION_LAYOUT[-1][1] + C.OBSERVATION_LAYOUT[-1][2] == C.N_OBS


def test_a_view_too_big_for_its_scratch_block_is_refused(monkeypatch):
    big = L.VIEW_SLOTS + tuple(L.Block(f"V_EXTRA{i}", 1, "") for i in range(10))
    monkeypatch.setattr(L, "VIEW_SLOTS", big)
    with pytest.raises(ValueError, match="does not fit its scratch block W_VIEW"):
        L.constants_source()


def test_the_modules_read_their_layout_from_the_constants():
    from simulator.core import records as RC
    from simulator.core import state as S
    from simulator.engine import work as K
    from simulator.env import encoding as EN

    assert RC.HAND_CONSTANTS == {k: getattr(C, k) for k in RC.HAND_CONSTANTS}
    assert RC.N_HAND_COLS == len(RC.HAND_RECORD_NAMES) and RC.H_POINTS == C.H_POINTS
    assert S.N_STATE == C.N_STATE and S.A_DEFEND_BEST == C.A_DEFEND_BEST and K.K_LENT == C.K_LENT
    assert EN.N_OBS == C.N_OBS and EN.OBSERVATION_LAYOUT == C.OBSERVATION_LAYOUT


def test_actions_by_name():
    assert (actions.DRAW_STOCK, actions.TAKE_PILE, actions.PASS, actions.KNOCK, actions.PLAY_ON) == \
        (C.A_DRAW_STOCK, C.A_TAKE_PILE, C.A_PASS, C.A_KNOCK, C.A_NO_KNOCK)
    assert actions.discard("7h") == actions.discard(22) == C.A_DISCARD + 22
    assert actions.lay_out(3) == C.A_ARRANGE + 3 and actions.defend(0) == C.A_DEFEND
    assert actions.name(actions.DEFEND_BEST) == "defend best"
    for bad in (-1, 36, True, 1.0):
        with pytest.raises(ValueError, match="arrangement index from 0 to 35"):
            actions.lay_out(bad)
    with pytest.raises(ValueError):
        actions.discard("7h 8h")
