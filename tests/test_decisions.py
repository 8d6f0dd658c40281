"""The decisions are declared once (``simulator.core.decisions``): the dispatch generator,
the plug-in checks, Python players, hybrids and the terminal table read that table, and the
engine's compiled asking and decoding agree with it."""

from __future__ import annotations

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
    """``simulator.engine.loop.ask_nb`` asks, at each phase, the strategy function the table
    names: on real hands, the engine's answer (``Hand.bot_action``, through ``ask_nb``) is that
    function's own answer, decoded, on the same view, pile copy and stream (``simple`` keeps
    no memory)."""
    import simulator
    from simulator.core.melds import arrangement_index_nb
    from simulator.engine import loop
    from strategies import parse_strategy, simple

    import inspect

    from simulator.core.answers import DECODERS
    from strategies import dispatch

    # the generated answer names, for each decision point, the table's function and decoder
    source = inspect.getsource(dispatch.answer_nb.py_func)
    for d in D.DECISIONS:
        assert f"{d.function}(sid" in source and f"{DECODERS[d.kind]}(" in source and f"# {d.name}" in source
    params, seen = parse_strategy("simple").row, set()
    for deal in range(30):
        h = simulator.Hand("hoyle", seed=2, deal=deal, a="simple", b="simple")
        while not h.is_over():
            seat, state, d = h.current_player, h.state, D.BY_PHASE[h.phase]
            raw = getattr(simple, d.function)(params.copy(), h.view(seat), state[S.S_PILE:S.S_PILE + 64].copy(),
                                              h._rules.copy(), np.array([h._rngs[seat]], np.uint64),
                                              np.zeros(64, np.int64))
            r0, r1 = (raw, 0) if np.ndim(raw) == 0 else raw
            want, x, y = loop.decode_nb(np.int64(d.phase), np.int64(r0), np.int64(r1))
            if want in (loop.ANSWER_LAYOUT, loop.ANSWER_DEFENCE):
                melder = state[S.S_KNOCKER] if want == loop.ANSWER_LAYOUT else 1 - state[S.S_KNOCKER]
                k = arrangement_index_nb(np.int64(state[S.S_HANDS + melder]), x, y)
                want = (S.A_ARRANGE if want == loop.ANSWER_LAYOUT else S.A_DEFEND) + k
            action = h.bot_action()
            assert action == want, d.name
            seen.add(d.name)
            h.apply(action)
    assert {"draw", "discard", "knock", "arrange", "defend"} <= seen


def test_every_reader_reads_the_table():
    from simulator.tools.play import _CHOICES
    from strategies import hybrid, plugins, pyplayer

    assert {p: m for p, (m, _) in pyplayer.DECISIONS.items()} == {d.phase: d.name for d in D.DECISIONS}
    assert all(hasattr(pyplayer.Player, d.name) for d in D.DECISIONS if d.ready is None)
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


def test_a_ready_answer_is_the_same_for_numba_and_python_strategies():
    """Each ready-made function of ``strategies.common`` answers what ``READY_ANSWERS`` gives a
    Python player, decoded to the same action."""
    import strategies.common as common
    from simulator.engine.loop import decode_nb
    from strategies import pyplayer

    view = np.zeros(S.N_VIEW, np.int64)
    args = (np.zeros(8), view, np.zeros(64, np.int64), np.zeros(32, np.int64), np.zeros(1, np.uint64),
            np.zeros(64, np.int64))
    for d in D.DECISIONS:
        for ready in ([d.ready] if d.ready else []) + ["answer_yes_nb", "answer_no_nb"] * (d.kind == "yes_no"):
            raw = getattr(common, ready)(*args)
            first, second = (raw if isinstance(raw, tuple) else (raw, 0))
            action = decode_nb(np.int64(d.phase), np.int64(first), np.int64(second))[0]
            assert pyplayer.DECISIONS[d.phase][1](D.READY_ANSWERS[ready], None) == action, (d.name, ready)


def test_a_python_player_without_an_optional_decision_gets_the_ready_answer():
    from strategies.pyplayer import Decider

    class NoDefence:
        def __getattr__(self, name):  # every decision but the defence
            if name == "defend" or name.startswith("_") or name == "choose_action":
                raise AttributeError(name)
            return lambda obs: None

    decider = Decider(NoDefence())
    assert decider.methods[S.PHASE_DEFEND][0](None) == "best"
    with pytest.raises(AttributeError, match=r"needs a method discard\(obs\)"):
        Decider(type("NoDiscard", (), {d.name: (lambda self, obs: None) for d in D.DECISIONS if d.name != "discard"})())


def test_hybrid_specs_read_the_older_words_and_write_the_one_vocabulary():
    from strategies import parse_strategy

    assert parse_strategy("mc+layout=simple").label == "mc+arrange=simple"
    assert parse_strategy("mc+defence=simple+knock=simple").label == "mc+knock=simple+defend=simple"
    with pytest.raises(ValueError, match="given twice"):
        parse_strategy("mc+layout=simple+arrange=simple")


def test_a_decision_values_spec_reads_the_older_words_into_the_one_vocabulary():
    """``experiments/decision_values.toml`` names ``layout`` and ``defence``: they are read as
    ``arrange`` and ``defend``; one decision given in both words is given twice."""
    import tomllib
    from pathlib import Path

    from simulator.studies.decision_values import DecisionValuesError, parse_spec

    data = tomllib.loads((Path(__file__).resolve().parents[1] / "experiments" / "decision_values.toml").read_text())
    assert parse_spec(data).decisions == ("first_upcard", "draw", "discard", "knock", "arrange", "defend")
    with pytest.raises(DecisionValuesError, match="decisions: must be a list of distinct decisions"):
        parse_spec({**data, "decisions": ["layout", "arrange"]})
