"""The engine's guards against plug-ins that misbehave.

* Strategies get copies of the discard pile, the rule vector and their parameter row; a
  plug-in that writes into one stops its hand with ``ERR_WROTE_PILE`` / ``ERR_WROTE_RULES``
  / ``ERR_WROTE_PARAMS`` against its seat.  The engine never takes a card that was not on
  its own pile, and its rules never change, so results do not depend on the thread count.
* An illegal move is named: ``simulate`` raises a one-line ``StrategyError`` (a
  ``ValueError``) naming the strategy (spec label, A or B), the decision, the offending
  value and the deal (or game and hand).

The plug-ins are registered in a child process (the strategy registry is process-wide,
and other test modules list every registered strategy), which plays every scenario once
and reports back as JSON; the tests below check the report.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from simulator import api
from simulator.core import constants as E  # the record columns and error codes
from simulator.core.cards import DECK
from simulator.core.records import HAND_RECORD_NAMES

_GREEDY = '''
import numpy as np
from numba import njit
from simulator.core.cards import FULL_DECK_MASK
from strategies.common import default_arrange_nb as arrange_nb, greedy_discard_nb, greedy_take_nb
from strategies.view import V_DEADWOOD, V_HAND, V_LEGAL_DISCARDS, V_PILE_LEN, V_PILE_MASK
'''

PLUGINS = {
    # where=0: in take_nb, overwrites the pile's top card with a card that is neither on the
    # pile nor in its hand, then takes "it"; where=1: in discard_nb, overwrites the bottom card
    "guard_pile_vandal": _GREEDY + '''
PARAMS = {"where": 0.0}
SUMMARY = "greedy, writes into the discard pile"
_DECK = np.int64(FULL_DECK_MASK)

@njit(cache=True)
def take_nb(params, view, pile, rules, rng, memory):
    n = view[V_PILE_LEN]
    if params[0] == 0 and n > 0:
        free = _DECK & ~view[V_HAND] & ~view[V_PILE_MASK]
        card = 0
        while not (free >> card) & 1:
            card += 1
        pile[n - 1] = card
        return True
    return greedy_take_nb(view)

@njit(cache=True)
def discard_nb(params, view, pile, rules, rng, memory):
    card = greedy_discard_nb(view[V_HAND], view[V_LEGAL_DISCARDS])
    if params[0] == 1 and view[V_PILE_LEN] > 1:
        pile[0] = card
    return card

@njit(cache=True)
def knock_nb(params, view, pile, rules, rng, memory):
    return True
''',
    # raises the knock limit (rules[0]) by one at every draw decision
    "guard_rules_vandal": _GREEDY + '''
PARAMS = {}
SUMMARY = "greedy, writes into the rule vector"

@njit(cache=True)
def take_nb(params, view, pile, rules, rng, memory):
    rules[0] += 1
    return greedy_take_nb(view)

@njit(cache=True)
def discard_nb(params, view, pile, rules, rng, memory):
    return greedy_discard_nb(view[V_HAND], view[V_LEGAL_DISCARDS])

@njit(cache=True)
def knock_nb(params, view, pile, rules, rng, memory):
    return True
''',
    # lowers its own knock_at parameter when asked to knock
    "guard_params_vandal": _GREEDY + '''
PARAMS = {"knock_at": 3.0}
SUMMARY = "greedy, writes into its parameter row"

@njit(cache=True)
def take_nb(params, view, pile, rules, rng, memory):
    return greedy_take_nb(view)

@njit(cache=True)
def discard_nb(params, view, pile, rules, rng, memory):
    return greedy_discard_nb(view[V_HAND], view[V_LEGAL_DISCARDS])

@njit(cache=True)
def knock_nb(params, view, pile, rules, rng, memory):
    params[0] = -1.0
    return view[V_DEADWOOD] <= 10
''',
    # writes -0.0 over its parameter 0.0 when asked to knock: the same value, other bits
    "guard_params_same_value": _GREEDY + '''
PARAMS = {"zero": 0.0}
SUMMARY = "greedy, writes an equal value into its parameter row"

@njit(cache=True)
def take_nb(params, view, pile, rules, rng, memory):
    return greedy_take_nb(view)

@njit(cache=True)
def discard_nb(params, view, pile, rules, rng, memory):
    return greedy_discard_nb(view[V_HAND], view[V_LEGAL_DISCARDS])

@njit(cache=True)
def knock_nb(params, view, pile, rules, rng, memory):
    params[0] = -params[0]
    return view[V_DEADWOOD] <= 10
''',
    # always discards the code given by its parameter
    "guard_bad_discard": _GREEDY + '''
PARAMS = {"value": 99.0}
SUMMARY = "discards a fixed code, legal or not"

@njit(cache=True)
def take_nb(params, view, pile, rules, rng, memory):
    return greedy_take_nb(view)

@njit(cache=True)
def discard_nb(params, view, pile, rules, rng, memory):
    return np.int64(params[0])

@njit(cache=True)
def knock_nb(params, view, pile, rules, rng, memory):
    return True
''',
}

#: (value the plug-in discards, it plays as A?, the value as the message shows it, the reason)
BAD_DISCARDS = [
    (99, True, "99", "which is not a card"),
    (-1, False, "-1", "which is not a card"),
    (64, False, "64", "which is not a card"),
    (13, True, "13", "which is not a card"),  # rank slot 13 of spades: no such card
    (22, False, "7h", "which is not one of its legal discards"),  # a card, not always its own
]

SCRIPT = textwrap.dedent('''
    import json, sys
    import numba
    import numpy as np
    import simulator, strategies
    from simulator import api
    from simulator.core import constants as E
    from simulator.core.rules import Rules
    from simulator.engine.select import engine_module, strategy_pair

    for name, path in json.loads(sys.argv[1]).items():
        strategies.register(name, path)
    bad_discards = json.loads(sys.argv[2])
    report = {}

    def attempt(key, call):
        try:
            call()
        except Exception as exc:
            report[key] = {"type": type(exc).__name__, "is_value_error": isinstance(exc, ValueError),
                           "message": str(exc)}
        else:
            report[key] = {"type": None, "message": ""}

    def first_error(records):
        bad = np.flatnonzero(records[:, E.H_ERROR])
        return records[bad[0]].tolist() if bad.size else None

    two = min(2, numba.config.NUMBA_NUM_THREADS)

    # ---- the pile ------------------------------------------------------------------------
    for where in (0, 1):
        spec = f"guard_pile_vandal:where={where}"
        attempt(f"pile{where}", lambda: simulator.simulate(spec, "simple", "hoyle", n_deals=200, seed=1))
        report[f"pile{where}_record"] = first_error(
            api.play_deal_records(spec, "simple", "hoyle", 0, 200, 1))
    # replay the traces: every card taken from the pile was the pile's top
    wrong, taken = [], 0
    for deal in range(40):
        _, events = api.trace_deal("guard_pile_vandal", "simple", "hoyle", seed=1, deal=deal)
        pile = []
        for seat, kind, value in events:
            if kind in ("upcard", "discard"):
                pile.append(value)
            elif kind == "take_pile":
                taken += 1
                if not pile or pile[-1] != value:
                    wrong.append((deal, value))
                else:
                    pile.pop()
            elif kind == "reshuffle":
                pile = pile[-1:]
    report["pile_wrong_takes"] = wrong
    report["pile_takes"] = taken

    # ---- the rules -----------------------------------------------------------------------
    rules = Rules.preset("tournament")
    attempt("rules", lambda: simulator.simulate("guard_rules_vandal", "simple", rules, n_deals=2000, seed=3))
    report["rules_record"] = first_error(
        api.play_deal_records("guard_rules_vandal", "simple", rules, 0, 2000, 3))
    # the engine's own rule vector: unchanged, and the same records on 1 and 2 threads
    _, _, sids, params = strategy_pair("guard_rules_vandal", "simple")
    outs = []
    vector = rules.to_array()
    for threads in (1, two, 1):
        numba.set_num_threads(threads)
        out = np.zeros((4000, E.N_HAND_COLS), np.int64)
        engine_module(sids).play_deals(np.uint64(3), 0, 4000, True, vector, sids, params, out)
        outs.append(out)
    report["rules_vector_unchanged"] = vector.tolist() == rules.to_array().tolist()
    report["rules_same_for_threads"] = all(np.array_equal(outs[0], o) for o in outs[1:])
    report["rules_every_hand_flagged"] = bool(
        ((outs[0][:, E.H_ERROR] == E.ERR_WROTE_RULES) | (outs[0][:, E.H_ERROR] == 0)).all()
        and (outs[0][:, E.H_ERROR] == E.ERR_WROTE_RULES).sum() > 3000)
    well = []
    for threads in (1, two):
        numba.set_num_threads(threads)
        well.append(api.play_deal_records("simple", "gin_hunter", rules, 0, 20000, 3))
    numba.set_num_threads(1)
    report["well_behaved_same_for_threads"] = bool(np.array_equal(well[0], well[1]))

    # ---- the parameters --------------------------------------------------------------------
    attempt("params", lambda: simulator.simulate("simple", "guard_params_vandal", "hoyle",
                                                 n_deals=200, seed=2))
    attempt("params_games", lambda: simulator.simulate_games("guard_params_vandal", "simple", "hoyle",
                                                             n_games=20, seed=2))
    same = api.play_deal_records("guard_params_same_value", "simple", "hoyle", 0, 400, 2)
    report["params_same_value_errors"] = int((same[:, E.H_ERROR] != 0).sum())
    report["params_same_value_knocks"] = int((same[:, E.H_KNOCKER] == same[:, E.H_A_SEAT]).sum())

    # ---- illegal discards ------------------------------------------------------------------
    for value, as_a in bad_discards:
        spec = f"guard_bad_discard:value={value}"
        a, b = (spec, "simple") if as_a else ("simple", spec)
        attempt(f"discard{value}", lambda: simulator.simulate(a, b, "hoyle", n_deals=100, seed=4))
        report[f"discard{value}_record"] = first_error(api.play_deal_records(a, b, "hoyle", 0, 100, 4))
        records = api.play_deal_records(a, b, "hoyle", 0, 100, 4)
        attempt(f"discard{value}_context", lambda: api.check_hand_errors(records, a, b, context="cell 3"))
        attempt(f"discard{value}_games", lambda: simulator.simulate_games(a, b, "hoyle", n_games=10, seed=4))
        games, _ = api.play_game_records(a, b, "hoyle", 0, 10, 4)
        bad = np.flatnonzero(games[:, E.G_ERROR])
        report[f"discard{value}_game"] = games[bad[0]].tolist() if bad.size else None
    print("REPORT " + json.dumps(report))
''')


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("guards")
    paths = {}
    for name, text in PLUGINS.items():
        path = tmp / f"{name}.py"
        path.write_text(text)
        paths[name] = str(path)
    script = tmp / "guards.py"
    script.write_text(SCRIPT)
    bad = json.dumps([[v, as_a] for v, as_a, _, _ in BAD_DISCARDS])
    done = subprocess.run([sys.executable, str(script), json.dumps(paths), bad], capture_output=True,
                          text=True, cwd=tmp, timeout=1200)
    assert done.returncode == 0, done.stderr[-4000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("REPORT "))
    return json.loads(line[len("REPORT "):])


def _one_line_strategy_error(result: dict) -> str:
    assert result["type"] == "StrategyError" and result["is_value_error"], result
    message = result["message"]
    assert "\n" not in message and "Traceback" not in message, message
    return message


def _who(record: list[int], a_seat_col: int, seat_col: int) -> str:
    return "A" if record[seat_col] == record[a_seat_col] else "B"


# ---- writes into the engine's arrays --------------------------------------------------------
@pytest.mark.parametrize("where", [0, 1])
def test_a_plugin_writing_into_the_pile_is_stopped_and_named(report, where):
    record = report[f"pile{where}_record"]
    assert record is not None and record[E.H_ERROR] == E.ERR_WROTE_PILE
    who = _who(record, E.H_A_SEAT, E.H_ERROR_SEAT)
    assert who == "A"  # the vandal plays A; the well-behaved opponent is never blamed
    message = _one_line_strategy_error(report[f"pile{where}"])
    label = "guard_pile_vandal" if where == 0 else "guard_pile_vandal:where=1"
    assert message.startswith(f"strategy '{label}' (A) wrote into the discard pile"), message
    assert f"deal {record[E.H_DEAL]})" in message, message


def test_the_engine_never_takes_a_card_that_was_not_on_its_pile(report):
    # every take_pile event of 40 traced deals took the top card of the pile as replayed
    # from the events (the vandal's own takes stop its hand before the card moves)
    assert report["pile_wrong_takes"] == []


def test_a_plugin_writing_into_the_rules_is_stopped_and_results_do_not_depend_on_threads(report):
    record = report["rules_record"]
    assert record is not None and record[E.H_ERROR] == E.ERR_WROTE_RULES
    assert record[E.H_ERROR_VALUE] == 0  # the knock limit's slot
    message = _one_line_strategy_error(report["rules"])
    assert message.startswith("strategy 'guard_rules_vandal' (A) wrote into the rule vector"), message
    assert "slot 0, knock_limit" in message and f"deal {record[E.H_DEAL]})" in message, message
    # the engine plays from its own rules: they never change, every hand is flagged, and
    # 1 or 2 threads give the same records
    assert report["rules_vector_unchanged"]
    assert report["rules_every_hand_flagged"]
    assert report["rules_same_for_threads"]
    assert report["well_behaved_same_for_threads"]


def test_a_plugin_writing_into_its_parameters_is_stopped_and_named(report):
    message = _one_line_strategy_error(report["params"])
    assert message.startswith("strategy 'guard_params_vandal' (B) wrote into its parameter row "
                              "(slot 0, knock_at)"), message
    message = _one_line_strategy_error(report["params_games"])
    assert message.startswith("strategy 'guard_params_vandal' (A) wrote into its parameter row"), message
    assert re.search(r"; game \d+, hand \d+\)$", message), message


def test_a_plugin_writing_an_equal_value_into_its_parameters_is_no_error(report):
    # -0.0 over 0.0: the guard sees other bits, compares values, finds no write and restores
    # the copy; every hand plays on (and the plug-in did knock, so it did write)
    assert report["params_same_value_errors"] == 0
    assert report["params_same_value_knocks"] > 100


# ---- illegal moves, named -----------------------------------------------------------------------
@pytest.mark.parametrize("value, as_a, shown, reason", BAD_DISCARDS)
def test_an_illegal_discard_names_strategy_decision_value_and_deal(report, value, as_a, shown, reason):
    label = "guard_bad_discard" if value == 99 else f"guard_bad_discard:value={value}"
    who = "A" if as_a else "B"
    record = report[f"discard{value}_record"]
    assert record[E.H_ERROR] == E.ERR_ILLEGAL_DISCARD and record[E.H_ERROR_VALUE] == value
    assert _who(record, E.H_A_SEAT, E.H_ERROR_SEAT) == who
    deal = record[E.H_DEAL]
    expected = f"strategy '{label}' ({who}) discarded {shown}, {reason}"
    message = _one_line_strategy_error(report[f"discard{value}"])
    assert message.startswith(expected), message
    assert message.endswith(f"(decision: discard; deal {deal})"), message
    message = _one_line_strategy_error(report[f"discard{value}_context"])
    assert message.startswith(expected), message
    assert message.endswith(f"(decision: discard; cell 3, deal {deal})"), message
    # whole games: the game and the hand it stopped in (G_HANDS - 1)
    game = report[f"discard{value}_game"]
    assert game[E.G_ERROR] == E.ERR_ILLEGAL_DISCARD and game[E.G_ERROR_VALUE] == value
    assert _who(game, E.G_A_SEAT, E.G_ERROR_SEAT) == who
    message = _one_line_strategy_error(report[f"discard{value}_games"])
    assert message.startswith(expected), message
    hand = game[E.G_HANDS] - 1
    assert message.endswith(f"(decision: discard; game {game[E.G_GAME]}, hand {hand})"), message


# ---- the messages, from hand-made records (no plug-in needed) ---------------------------------
def _records(code: int, seat: int, value: int, a_seat: int = 0, deal: int = 7) -> np.ndarray:
    records = np.zeros((3, E.N_HAND_COLS), np.int64)
    records[:, E.H_DEAL] = [deal - 1, deal, deal + 1]
    records[:, E.H_GAME] = -1
    records[:, E.H_ERROR_SEAT] = -1
    records[1, [E.H_ERROR, E.H_ERROR_SEAT, E.H_ERROR_VALUE, E.H_A_SEAT]] = [code, seat, value, a_seat]
    return records


@pytest.mark.parametrize("code, value, decision, text", [
    (E.ERR_BAD_MELDS, 0b111, "arrange", "laid out melds [As 2s 3s], which are not"),
    (E.ERR_BAD_MELDS, 1 << 13, "arrange", "laid out melds 0x2000, which are not"),
    (E.ERR_WROTE_PARAMS, 0, "any", "wrote into its parameter row (slot 0, knock_at)"),
])
def test_every_error_code_has_a_one_line_message(code, value, decision, text):
    with pytest.raises(api.StrategyError) as info:
        api.check_hand_errors(_records(code, 1, value, a_seat=1), "simple:knock_at=0", "random",
                              context="cell 2")
    message = str(info.value)
    assert message.startswith(f"strategy 'simple:knock_at=0' (A) {text}"), message
    assert f"(decision: {decision}" in message and message.endswith("cell 2, deal 7)"), message
    assert "\n" not in message


def test_records_without_errors_pass_and_the_error_columns_are_at_the_end():
    api.check_hand_errors(np.zeros((5, E.N_HAND_COLS), np.int64), "simple", "simple")
    api.check_game_errors(np.zeros((5, E.N_GAME_COLS), np.int64), "simple", "simple")
    assert HAND_RECORD_NAMES[-2:] == ("error_seat", "error_value")
    assert (E.H_ERROR_SEAT, E.H_ERROR_VALUE, E.N_HAND_COLS) == (20, 21, 22)
    assert (E.G_ERROR_SEAT, E.G_ERROR_VALUE, E.N_GAME_COLS) == (15, 16, 17)
    record, _ = api.play_deck([int(c) for c in DECK], rules="hoyle")
    assert record["error"] == 0 and record["error_seat"] == -1 and record["error_value"] == 0
