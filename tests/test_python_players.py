"""Plain-Python strategies (strategies.pyplayer, simulator.engine.pydriver): the Python driver plays
the same hands as the numba kernels, keys its random streams by deal, refuses illegal
answers in one line, and Python strategies work in experiment files and ginsim run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import simulator
import strategies
from simulator import api
from simulator.core import state as S
from simulator.api import StrategyError
from simulator.core.melds import arrangement_index_nb
from simulator.run.runner import run_experiment
from strategies import Player, TrivialPlayer
from simulator.engine.select import engine_module
from strategies.registry import parse_strategy
from strategies.view import N_MEMORY


@pytest.fixture(autouse=True)
def _forget_python_strategies():
    """Python strategies registered by a test are dropped after it (other modules' tests
    play every registered strategy)."""
    from strategies.registry import PY_PLUGINS, REGISTRY

    before = set(REGISTRY)
    yield
    for name in set(REGISTRY) - before:
        if REGISTRY[name].kind == "python":
            del REGISTRY[name]
            PY_PLUGINS.pop(name, None)


class NumbaInPython(Player):
    """A numba strategy asked from Python: the view, a stream keyed like the engine's and
    a memory kept in obs.memory.  Played by the Python driver it must give the numba
    kernels' rows exactly."""

    def choose_action(self, obs):
        memory = obs.memory
        if not memory:
            memory["rng"] = np.array([obs._seat_info.key], np.uint64)
            memory["mem"] = np.zeros(N_MEMORY, np.int64)
        engine = engine_module().loop
        state = obs._state
        n = int(state[S.S_PILE_LEN])
        pile = np.zeros(64, np.int64)
        pile[:n] = state[S.S_PILE:S.S_PILE + n]
        view = np.zeros(len(obs.view), np.int64)
        strategy = parse_strategy(self.target)
        action, x, y = engine.ask_nb(state, np.int64(strategy.sid), strategy.row, view, pile,
                                     obs._seat_info.rules_array.copy(), memory["rng"], memory["mem"])
        if action == engine.ANSWER_LAYOUT:
            return S.A_ARRANGE + int(arrangement_index_nb(np.int64(obs.hand_mask), np.int64(x), np.int64(y)))
        if action == engine.ANSWER_DEFENCE:  # a least-deadwood arrangement (simple: EAAI's defence)
            return S.A_DEFEND + int(arrangement_index_nb(np.int64(obs.hand_mask), np.int64(x), np.int64(y)))
        return int(action)


_WRAPPED: dict = {}


def _wrapped(name: str):
    if name not in _WRAPPED:
        _WRAPPED[name] = type(f"Py_{name}", (NumbaInPython,), {"target": name, "PARAMS": {}})
    strategies.register(f"py_{name}", _WRAPPED[name])
    return f"py_{name}"


@pytest.mark.parametrize("rules", ["hoyle", "oklahoma", "gin_only"])
def test_python_driver_reproduces_the_numba_rows(rules):
    py_simple, py_random = _wrapped("simple"), _wrapped("random")
    for a, b, wa, wb in (("simple", "knock_early", py_simple, "knock_early"),
                         ("random", "simple", py_random, py_simple)):
        expected = simulator.simulate(a, b, rules, n_deals=120, seed=7)
        got = simulator.simulate(wa, wb, rules, n_deals=120, seed=7)
        pd.testing.assert_frame_equal(got, expected, check_like=False)


def test_python_driver_reproduces_numba_games():
    py_simple = _wrapped("simple")
    games, hands = simulator.simulate_games("simple", "gin_hunter", "hoyle", n_games=6, seed=3, hands=True)
    pgames, phands = simulator.simulate_games(py_simple, "gin_hunter", "hoyle", n_games=6, seed=3, hands=True)
    pd.testing.assert_frame_equal(pgames, games)
    pd.testing.assert_frame_equal(phands, hands)


class Coin(Player):
    """Random draws and discards from obs.rng; remembers nothing."""

    def draw(self, obs):
        return "pile" if obs.rng.random() < 0.3 else "stock"

    def discard(self, obs):
        cards = obs.legal_discards
        return cards[int(obs.rng.integers(len(cards)))]


def test_the_same_seed_gives_the_same_rows_whatever_the_chunks():
    strategies.register("py_coin", Coin)
    whole = api.play_deal_records("py_coin", "simple", "hoyle", 0, 60, seed=11)
    parts = np.vstack([api.play_deal_records("py_coin", "simple", "hoyle", start, 20, seed=11)
                       for start in (0, 20, 40)])
    np.testing.assert_array_equal(whole, parts)
    other = api.play_deal_records("py_coin", "simple", "hoyle", 0, 60, seed=12)
    assert not np.array_equal(whole, other)


class Cheater(Player):
    def discard(self, obs):
        return obs.top  # the card just taken from the pile, or not in the hand at all


class Knocky(Player):
    def knock(self, obs):
        return "yes"


def test_an_illegal_answer_stops_with_one_line_naming_strategy_decision_and_deal():
    strategies.register("py_cheater", Cheater)
    strategies.register("py_knocky", Knocky)
    with pytest.raises(StrategyError) as err:
        simulator.simulate("simple", "py_cheater", "hoyle", n_deals=20, seed=1)
    text = str(err.value)
    assert "\n" not in text and "strategy 'py_cheater' (B)" in text and "decision: discard" in text
    assert "deal " in text and "not one of its legal discards" in text
    with pytest.raises(StrategyError, match=r"'py_knocky' \(A\) returned 'yes'; expected True .*decision: knock; "
                                            r"game \d+, hand \d+"):
        simulator.simulate_games("py_knocky", "simple", "hoyle", n_games=4, seed=1)


def test_registration_by_class_instance_and_errors(tmp_path):
    info = strategies.register("py_trivial", TrivialPlayer)
    assert info.kind == "python" and info.sid < 0
    assert strategies.register("py_trivial", TrivialPlayer) is info  # again: a no-op
    with pytest.raises(ValueError, match="taken"):
        strategies.register("simple", TrivialPlayer)
    with pytest.raises(ValueError, match="not a Python strategy"):
        strategies.register("py_bad", object())
    df = simulator.simulate(TrivialPlayer(), "simple", "hoyle", n_deals=4, seed=1)  # an instance, by itself
    assert len(df) == 4 and df.attrs
    # a Python strategy's parameters come from its spec
    class Patient(Player):
        PARAMS = {"knock_at": 10}

        def knock(self, obs):
            return obs.deadwood <= self.params["knock_at"]

    strategies.register("py_patient", Patient)
    gins = simulator.simulate("py_patient:knock_at=0", "simple", "hoyle", n_deals=40, seed=2)
    assert set(gins.loc[gins.knocker == "a", "knocker_deadwood"].dropna()) <= {0}


PLAYER_FILE = '''
from strategies import Player


class Greedy(Player):
    """Greedy, from a file."""
'''


def test_python_strategy_in_an_experiment_file_and_run_with_two_jobs(tmp_path):
    from simulator.run.experiment import load_experiment

    (tmp_path / "ginsim_test_mine.py").write_text(PLAYER_FILE)
    exp_file = tmp_path / "exp.toml"
    exp_file.write_text('name = "py"\nseed = 5\ndeals = 40\nchunk = 10\n'
                        'matchups = [["mine", "simple"]]\n[variants.hoyle]\npreset = "hoyle"\n'
                        '[plugins]\nmine = "ginsim_test_mine.py:Greedy"\n')
    exp = load_experiment(exp_file)
    out = run_experiment(exp, tmp_path / "run", jobs=2, progress=False)
    df = pd.read_parquet(out / "data").sort_values("deal").reset_index(drop=True)
    direct = simulator.simulate("mine", "simple", exp.cells()[0].rules, n_deals=40,
                                seed=__import__("simulator.run.seeds", fromlist=["derive_seed"]).derive_seed(5, 0))
    np.testing.assert_array_equal(df["net_a"].to_numpy(), direct["net_a"].to_numpy())
    assert strategies.REGISTRY["mine"].kind == "python"


def test_a_deal_with_a_python_strategy_replays_with_its_events():
    py_simple = _wrapped("simple")
    row, events = api.trace_deal("simple", "gin_hunter", "hoyle", seed=4, deal=3)
    prow, pevents = api.trace_deal(py_simple, "gin_hunter", "hoyle", seed=4, deal=3)
    assert prow.drop("a_seat").to_dict() == row.drop("a_seat").to_dict() and prow["a_seat"] == row["a_seat"]
    assert pevents == events


class FirstArrangementDefender(Player):
    """The greedy player, but it defends with its first least-deadwood arrangement."""

    def defend(self, obs):
        return 0


class BaselineDefender(Player):
    DEFENCE = "eaai"


def test_a_python_defender_sees_the_layout_and_chooses_its_defence():
    """The issue-17 hand: the knocker lays out 2s-6s 4h5h6h with 3; the defender's only
    least-deadwood arrangement keeps 13 after laying off As, the best response 2."""
    from test_defence import _defend_phase

    from strategies.pyplayer import DECISIONS, Decider, Observation, SeatInfo, _Answer

    _, state, rules = _defend_phase()
    obs = Observation(state, 0, SeatInfo(1, 0, rules), simulator.Rules.preset("tournament"))
    assert obs.phase == "defend" and DECISIONS[S.PHASE_DEFEND][0] == "defend"
    sets, runs = obs.knocker_melds
    assert " ".join(map(str, sets)) == "" and " ".join(map(str, runs)) == "2s 3s 4s 5s 6s 4h 5h 6h"
    assert obs.knocker_deadwood == 3 and obs.deadwood == 14
    assert [(" ".join(map(str, s)), " ".join(map(str, r))) for s, r in obs.arrangements] == [("7s Ts 7h Th 7c Tc", "")]
    assert [(" ".join(map(str, m)), " ".join(map(str, l)), d) for m, l, d in obs.defences] == [
        ("7s Ts 7h Th 7c Tc", "As", 13)]
    melded, laid, deadwood = obs.best_defence
    assert " ".join(map(str, laid)) == "As 7s 7h" and deadwood == 2
    assert Decider(Player()).decide(obs) == S.A_DEFEND_BEST
    assert Decider(FirstArrangementDefender()).decide(obs) == S.A_DEFEND
    with pytest.raises(_Answer, match="returned arrangement 1; there are 1"):
        Decider(type("Bad", (Player,), {"defend": lambda self, obs: 1})()).decide(obs)
    with pytest.raises(_Answer, match='expected "best", "no_layoffs" or an index'):
        Decider(type("Worse", (Player,), {"defend": lambda self, obs: "worst"})()).decide(obs)


def test_python_defences_in_simulate_and_as_reports_name_them():
    from strategies.registry import DEFENCES, defence_of

    strategies.register("py_greedy", Player)
    strategies.register("py_first_defence", FirstArrangementDefender)
    strategies.register("py_baseline", BaselineDefender)
    assert defence_of("py_greedy") == DEFENCES["best"]
    assert defence_of("py_first_defence") == "its own defend()"
    assert defence_of("py_baseline") == DEFENCES["eaai"]
    assert defence_of(_wrapped("simple")) == "its own choose_action"
    # the two players differ only in their defence: same hands up to it, never less deadwood
    best = simulator.simulate("py_greedy", "knock_early", "hoyle", n_deals=200, seed=6)
    first = simulator.simulate("py_first_defence", "knock_early", "hoyle", n_deals=200, seed=6)
    knocks = (best["knocker"] == "b") & best["outcome"].isin(["knock", "undercut"])
    assert knocks.sum() > 20
    pd.testing.assert_series_equal(first.loc[~knocks, "net_a"], best.loc[~knocks, "net_a"])
    assert (first.loc[knocks, "defender_deadwood"] >= best.loc[knocks, "defender_deadwood"]).all()
