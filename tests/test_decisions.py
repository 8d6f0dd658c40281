"""The decisions are declared once (``simulator.core.decisions``): the dispatch generator,
the plug-in checks, Python players, hybrids and the terminal table read that table, and the
engine's compiled asking and decoding agree with it."""

from __future__ import annotations

import ast
import inspect

import numpy as np
import pytest

from simulator.core import decisions as D
from simulator.core import state as S
from simulator.core.view import DEFEND_BEST, DEFEND_NO_LAYOFFS


def test_one_row_per_decision_point_named_as_its_phase():
    assert [d.phase for d in D.DECISIONS] == list(range(S.PHASE_OVER))
    assert [d.name for d in D.DECISIONS] == list(S.PHASE_NAMES[:S.PHASE_OVER])
    assert D.FUNCTIONS == ("take_nb", "discard_nb", "knock_nb", "arrange_nb", "defend_nb")
    assert D.EVERY_TURN == ("take_nb", "discard_nb", "knock_nb")
    assert D.decision("layout") is D.BY_NAME["arrange"] and D.decision("defence") is D.BY_NAME["defend"]
    assert D.decision("nonsense") is None


def test_the_engines_decoder_gives_the_tables_actions():
    from simulator.engine.loop import ANSWER_DEFENCE, ANSWER_LAYOUT, decode_nb

    for d in D.DECISIONS:
        phase = np.int64(d.phase)
        if d.kind == "yes_no":
            assert decode_nb(phase, np.int64(1), np.int64(0))[0] == d.yes, d.name
            assert decode_nb(phase, np.int64(0), np.int64(0))[0] == d.no, d.name
        elif d.kind == "card":
            assert tuple(decode_nb(phase, np.int64(7), np.int64(0))) == (S.A_DISCARD + 7, 7, 0)
        elif d.kind == "melds":
            assert tuple(decode_nb(phase, np.int64(6), np.int64(9))) == (ANSWER_LAYOUT, 6, 9)
        else:
            assert decode_nb(phase, np.int64(DEFEND_BEST), np.int64(0))[0] == S.A_DEFEND_BEST
            assert decode_nb(phase, np.int64(DEFEND_NO_LAYOFFS), np.int64(0))[0] == S.A_DEFEND_NO_LAYOFFS
            assert tuple(decode_nb(phase, np.int64(6), np.int64(9))) == (ANSWER_DEFENCE, 6, 9)


def test_the_loop_asks_each_phase_the_tables_function():
    """``simulator.engine.loop.ask_nb`` branches on the phase in compiled code: each branch calls
    the function the table names for that phase (the last, unconditioned one, the rest)."""
    from simulator.engine import loop

    tree = ast.parse(inspect.getsource(loop.ask_nb.py_func))
    asked: dict[int, str] = {}
    branch = next(n for n in ast.walk(tree) if isinstance(n, ast.If))
    while True:
        phase = getattr(S, branch.test.comparators[0].id)
        asked[phase] = next(n.func.attr for n in ast.walk(branch.body[0]) if isinstance(n, ast.Call)
                            and isinstance(n.func, ast.Attribute) and getattr(n.func.value, "id", "") == "dispatch")
        if not (len(branch.orelse) == 1 and isinstance(branch.orelse[0], ast.If)):
            rest = next(n.func.attr for n in ast.walk(branch.orelse[0]) if isinstance(n, ast.Call)
                        and isinstance(n.func, ast.Attribute) and getattr(n.func.value, "id", "") == "dispatch")
            break
        branch = branch.orelse[0]
    for d in D.DECISIONS:
        assert asked.get(d.phase, rest) == d.function, d.name


def test_every_reader_reads_the_table():
    from simulator.tools.play import _CHOICES
    from strategies import hybrid, plugins, pyplayer

    assert {p: m for p, (m, _) in pyplayer.DECISIONS.items()} == {d.phase: d.name for d in D.DECISIONS}
    assert all(hasattr(pyplayer.Player, d.name) for d in D.DECISIONS)
    assert hybrid.DECISION_PHASES == {d.name: d.phase for d in D.DECISIONS}
    assert plugins.DECISIONS + tuple(plugins.OPTIONAL_DECISIONS) == D.FUNCTIONS
    assert plugins.HOT_DECISIONS == D.EVERY_TURN
    yes_no = {d.phase: {d.yes, d.no} for d in D.DECISIONS if d.kind == "yes_no"}
    assert {p: {a for _, a, _ in c} for p, c in _CHOICES.items()} == yes_no


@pytest.mark.parametrize("decision", [d for d in D.DECISIONS if d.kind == "yes_no"], ids=lambda d: d.name)
def test_a_python_players_yes_or_no_becomes_the_tables_action(decision):
    convert = __import__("strategies.pyplayer", fromlist=["DECISIONS"]).DECISIONS[decision.phase][1]
    assert convert(True, None) == decision.yes and convert(False, None) == decision.no
    if decision.words:
        assert [convert(w, None) for w in decision.words] == [decision.yes, decision.no]


def test_hybrid_specs_read_the_older_words_and_write_the_one_vocabulary():
    from strategies import parse_strategy

    assert parse_strategy("mc+layout=simple").label == "mc+arrange=simple"
    assert parse_strategy("mc+defence=simple+knock=simple").label == "mc+knock=simple+defend=simple"
    with pytest.raises(ValueError, match="given twice"):
        parse_strategy("mc+layout=simple+arrange=simple")
