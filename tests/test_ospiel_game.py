"""``python_ginsim``: every ginsim variant as an OpenSpiel game (``simulator.interop.ospiel_game``).

Its parameters come from the one ``Rules`` declaration; it passes OpenSpiel's own
conformance checks (``pyspiel.random_sim_test`` with serialization, and the simulation test
OpenSpiel runs on its registered games, ``games_sim_test.GamesSimTest.sim_game``) on every
preset; it plays exactly the hands ``simulator.Hand`` plays; ``resample_from_infostate``
keeps the player's information state and reads nothing hidden."""

from __future__ import annotations

import dataclasses
import random
import re

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from simulator.core import state as S  # noqa: E402
from simulator.core.cards import DECK, format_card, mask_cards  # noqa: E402
from simulator.core.constants import OBSERVATION_LAYOUT  # noqa: E402
from simulator.core.records import G_POINTS0, G_POINTS1, G_SCORE0, G_SCORE1  # noqa: E402
from simulator.run.seeds import derive_seed  # noqa: E402
from simulator.core.rules import OPTIONS, Rules  # noqa: E402
from strategies import view as V  # noqa: E402
from simulator.engine.hand import Hand  # noqa: E402
from simulator.interop import ospiel_game as G  # noqa: E402
from simulator.interop.openspiel import os_card  # noqa: E402
from simulator.interop.ospiel_play import deck_chance  # noqa: E402

PRESETS = list(Rules.PRESETS)


def _load(**params):
    return pyspiel.load_game(G.SHORT_NAME, params)


def _random_play(state, rng, until=None):
    """Random legal moves and chance outcomes (drawn with their probabilities) until the end,
    or until ``until(state)`` holds."""
    while not state.is_terminal() and not (until and until(state)):
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


# --------------------------------------------------------------------------- parameters
def test_every_rules_field_is_a_parameter_read_from_the_one_declaration():
    spec = pyspiel.load_game(G.SHORT_NAME).get_type().parameter_specification
    fields = [f.name for f in dataclasses.fields(Rules)]
    assert set(spec) == {"preset", "whole_game", *fields}
    for name in fields:  # unset by default: the preset's value
        assert spec[name] == ("" if OPTIONS[name].choices else -1)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_preset_loads_by_name_and_the_games_name_loads_the_same_rules(preset):
    game = pyspiel.load_game(f"python_ginsim(preset={preset})")
    assert game.rules == Rules.preset(preset) and not game.whole_game
    again = pyspiel.load_game(str(game))
    assert again.rules == game.rules and str(again) == str(game)


def test_a_field_overrides_the_preset_even_back_to_ginsims_default():
    """OpenSpiel fills every default in, so the defaults are 'unset': a field set to ginsim's
    own default still overrides a preset that differs (single_hand scores a tie 0)."""
    assert Rules().undercut_on_tie and not Rules.preset("single_hand").undercut_on_tie
    game = pyspiel.load_game("python_ginsim(preset=single_hand,undercut_on_tie=1,box_bonus=25,shutout=double)")
    assert game.rules == Rules.preset("single_hand", undercut_on_tie=True, box_bonus=25, shutout="double")
    assert pyspiel.load_game("python_ginsim").rules == Rules()
    assert _load(knock_limit=5, whole_game=True).rules == Rules(knock_limit=5)


@pytest.mark.parametrize("params, message", [
    ({"knock_limit": 200}, "rules.knock_limit must be an integer from 0 to 98"),
    ({"oklahoma": 2}, "parameter oklahoma must be 0 or 1"),
    ({"preset": "nope"}, "unknown rules preset 'nope'; presets: classic"),
    ({"shutout": "half"}, "rules.shutout must be one of none, double, double_bonus"),
    ({"oklahoma": 1, "gin_only": 1}, "cannot both be true"),
])
def test_bad_parameters_are_refused_in_one_line_naming_the_field(params, message):
    with pytest.raises(ValueError, match=message) as err:
        _load(**params)
    assert "\n" not in str(err.value)


def test_utility_bounds_hold_the_largest_hand():
    """A gin against 98 deadwood (the most ten cards can leave) scores gin bonus + 98:
    OpenSpiel's gin_rummy reports the same bound, 123, for its default rules."""
    game = pyspiel.load_game("python_ginsim(preset=single_hand)")
    assert game.max_utility() == 123 == pyspiel.load_game("gin_rummy").max_utility()
    assert pyspiel.load_game("python_ginsim(preset=oklahoma,oklahoma_spade_double=1)").max_utility() == 2 * 123
    assert _load(preset="hoyle", whole_game=True).max_utility() > 100 * 25


# --------------------------------------------------------------------------- OpenSpiel's checks
@pytest.mark.parametrize("preset", PRESETS)
def test_random_sim_test_with_serialization_on_every_preset(preset):
    game = pyspiel.load_game(f"python_ginsim(preset={preset})")
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("name", [
    "python_ginsim(preset=hoyle,whole_game=true,target_score=10)",
    "python_ginsim(preset=modern,reshuffle_stock=1,max_reshuffles=2)",
    "python_ginsim(preset=oklahoma,last_discard_rule=1,oklahoma_ace=one,oklahoma_spade_double=1)",
])
def test_random_sim_test_on_whole_games_reshuffles_and_the_last_discard(name):
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", [
    "python_ginsim(preset=tournament)",
    "python_ginsim(preset=hoyle,whole_game=true,target_score=30)",
    "python_ginsim(preset=modern,reshuffle_stock=1,max_reshuffles=2,gin_only=1)",
])
def test_a_state_serializes_as_text_and_deserializes_by_playing_its_history_again(name):
    """Issue 54: a state is written as text (the game's name, then its history) and read by
    playing that history again; at every tenth move and at the end the state read is the
    state written (its string, history, player and returns)."""
    game = pyspiel.load_game(name)
    state, rng, checked = game.new_initial_state(), random.Random(7), 0
    while not state.is_terminal():
        _random_play(state, rng, until=lambda s: s.move_number() % 10 == 0 or s.is_terminal())
        text = state.serialize()
        assert text.splitlines()[:2] == [G.STATE_FORMAT, f"game={game}"] and "__dict__" not in text
        again = game.deserialize_state(text)
        assert (str(again), again.history(), again.current_player(), again.returns()) == \
               (str(state), state.history(), state.current_player(), state.returns())
        checked += 1
        if not state.is_terminal():
            state.apply_action(state.legal_actions()[0] if not state.is_chance_node() else
                               state.chance_outcomes()[0][0])
    assert checked > 5


class _Runs:
    """A pickle that would create ``path`` when unpickled."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        import pathlib

        return pathlib.Path.touch, (pathlib.Path(self.path),)


def test_a_state_string_is_never_unpickled_and_an_inconsistent_history_is_refused(tmp_path):
    """Issue 54: ``deserialize_state`` unpickled its string (a crafted one ran code) and
    took an edited history whose cards then disagreed with ``history()``.  OpenSpiel's
    pickled form is refused unread, as are a history of another game, a card dealt twice, a
    move out of turn or illegal, and a malformed entry; each names the first wrong entry."""
    import base64
    import pickle

    game = pyspiel.load_game("python_ginsim(preset=hoyle)")
    state = _random_play(game.new_initial_state(), random.Random(4), until=lambda s: s.move_number() > 30)
    text = state.serialize()
    moves = [f"{h.player}:{h.action}" for h in state.full_history()]
    crafted = "\n".join(["history=" + ",".join(moves), f"move_number={len(moves)}",
                         "__dict__=" + base64.b64encode(pickle.dumps({"x": _Runs(tmp_path / "ran")})).decode()])
    head = f"{G.STATE_FORMAT}\ngame={game}\nhistory="
    first_move = next(k for k, m in enumerate(moves) if not m.startswith("-1:"))
    cases = [
        (crafted, "not the text GinsimState.serialize writes"),
        (text.replace("preset=hoyle", "preset=oklahoma"), r"a state of python_ginsim\(.*preset=oklahoma"),
        (head + ",".join([moves[0], moves[0], *moves[2:]]), r"history\[1\]: -1:\d+ is not a legal move"),
        (head + ",".join(moves[:first_move] + ["1" + moves[first_move][1:]] + moves[first_move + 1:]),
         rf"history\[{first_move}\]: 1:\d+ is not a legal move there \(player 0 moves\)"),
        (head + ",".join(moves[:first_move] + ["0:141"]), rf"history\[{first_move}\]: 0:141 is not a legal move"),
        (head + ",".join(moves[:3] + ["-1:1.5"]), r"history\[3\]: must be PLAYER:ACTION"),
        (text + "\n", "not the text"),
    ]
    for bad, words in cases:
        with pytest.raises(ValueError, match=words):
            game.deserialize_state(bad)
    assert not (tmp_path / "ran").exists()
    assert str(game.deserialize_state(text)) == str(state)


@pytest.mark.parametrize("preset", PRESETS)
def test_openspiels_own_game_simulation_test_on_every_preset(preset):
    """The check OpenSpiel's test suite runs on every registered game (``games_sim_test``):
    pickling the game, its type and states, serialization at powers of two, clones that
    stay equal, terminal returns within the bounds."""
    games_sim_test = pytest.importorskip("open_spiel.python.tests.games_sim_test")
    check = games_sim_test.GamesSimTest("test_pig")
    np.random.seed(PRESETS.index(preset))
    check.sim_game(pyspiel.load_game(f"python_ginsim(preset={preset})"))


def test_observers_give_the_encoders_vector_and_readable_strings():
    from open_spiel.python.observation import make_observation

    rng = random.Random(2)
    game = pyspiel.load_game("python_ginsim(preset=tournament)")
    state = _random_play(game.new_initial_state(), rng, until=lambda s: s.move_number() > 40 and not s.is_chance_node())
    p = state.current_player()
    for iig in (None, pyspiel.IIGObservationType(perfect_recall=True)):
        obs = make_observation(game, iig)
        obs.set_from(state, p)
        assert np.array_equal(obs.tensor, state.hand.observation_vector(p))
        assert set(obs.dict) == {name for name, _, _ in OBSERVATION_LAYOUT}
    assert state.observation_tensor(p) == list(state.hand.observation_vector(p))
    assert state.information_state_tensor(p) == state.observation_tensor(p)
    info = state.information_state_string(p)
    assert info.startswith(f"python_ginsim P{p}\nhand 1, dealer P1\ndealt ") and "now: P" in info
    assert state.observation_string(p) in info
    with pytest.raises(ValueError, match="own view only"):
        make_observation(game, pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))


def test_the_strings_never_show_the_opponents_stock_draws():
    rng = random.Random(5)
    state = _random_play(pyspiel.load_game("python_ginsim(preset=hoyle)").new_initial_state(), rng,
                         until=lambda s: s.move_number() > 60 and not s.is_chance_node())
    for p in (0, 1):
        info = state.information_state_string(p)
        for seat, event, card in state.hand.events:
            if event == "draw_stock":
                assert (f"P{seat} draws {format_card(card)} from the stock." in info) == (seat == p)


# --------------------------------------------------------------------------- ginsim's own state machine
@pytest.mark.parametrize("preset", ["hoyle", "modern", "oklahoma", "gin_only"])
def test_strategy_bots_play_exactly_the_hand_ginsim_plays(preset):
    """The same deck, the same strategies: ``python_ginsim`` with ``StrategyBot``s and
    ``simulator.Hand`` give the same events and returns (one state machine)."""
    game = pyspiel.load_game(f"python_ginsim(preset={preset})")
    bots = [G.StrategyBot(0, "simple"), G.StrategyBot(1, "gin_hunter")]
    for i in range(12):
        deck = [int(c) for c in np.random.default_rng([7, i]).permutation(DECK)]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(deck_chance(state, deck))
            else:
                state.apply_action(bots[state.current_player()].step(state))
        dealt = deck[0:20:2] + deck[1:20:2] + deck[20:21]
        # the game's first hand: its seats' seed is derive_seed(hand number 0, the cards dealt)
        h = Hand(preset, seed=derive_seed(0, ",".join(map(str, dealt))), deck=deck, dealer=1, a="simple",
                 b="gin_hunter")
        while not h.is_over():
            h.apply(h.bot_action())
        assert state.hand.events == h.events
        assert state.returns() == [float(x) for x in h.returns()]


def test_the_deal_is_gin_rummys_chance_outcomes():
    """The same 21 chance outcomes deal the same hands and upcard in OpenSpiel's gin_rummy."""
    deck = list(np.random.default_rng(4).permutation(52))
    ours = pyspiel.load_game("python_ginsim(preset=single_hand)").new_initial_state()
    theirs = pyspiel.load_game("gin_rummy").new_initial_state()
    for a in deck[:21]:
        ours.apply_action(int(a))
        theirs.apply_action(int(a))
    for p in (0, 1):
        assert sorted(theirs.hands()[p]) == sorted(os_card(c) for c in mask_cards(int(ours.hand.state[S.S_HANDS + p])))
    assert theirs.upcard() == os_card(int(ours.hand.state[S.S_UPCARD]))
    assert ours.current_player() == theirs.current_player() == 0


def test_whole_games_chain_hands_to_the_target_and_pay_the_final_scores():
    game = pyspiel.load_game("python_ginsim(preset=hoyle,whole_game=true,target_score=40)")
    bots = [G.StrategyBot(0, "simple"), G.StrategyBot(1, "knock_early")]
    rng = random.Random(1)
    state = game.new_initial_state()
    hands = 0
    while not state.is_terminal():
        if state.is_chance_node():
            hands += state.hand is None and not state._dealt
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(bots[state.current_player()].step(state))
    row = state._game_row
    assert hands == state._hand_no + 1 > 1 and max(row[G_POINTS0], row[G_POINTS1]) >= 40
    assert state.returns() == [float(row[G_SCORE0] - row[G_SCORE1]), float(row[G_SCORE1] - row[G_SCORE0])]
    info = state.information_state_string(0)
    assert len(re.findall(r"^hand \d+, dealer P\d$", info, re.M)) == hands and "hands shown" in info


# --------------------------------------------------------------------------- resampling
def _sampler(u: float):
    return lambda: u


def _decisions(game, strategy: str, n_games: int, rng):
    """Every decision point of ``n_games`` games of ``strategy`` against itself (chance drawn
    from ``rng``): each state is yielded before the player's bot moves."""
    bots = [G.StrategyBot(0, strategy), G.StrategyBot(1, strategy)]
    for _ in range(n_games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            yield state
            state.apply_action(bots[state.current_player()].step(state))


_RESAMPLED = [
    ("python_ginsim(preset=hoyle)", "simple", 30),
    ("python_ginsim(preset=oklahoma,last_discard_rule=1)", "simple", 20),
    ("python_ginsim(preset=gin_only,reshuffle_stock=1,max_reshuffles=2)", "random", 4),
    ("python_ginsim(preset=modern,whole_game=true,target_score=30)", "simple", 3),
]


@pytest.mark.parametrize("name, strategy, n_games", _RESAMPLED)
def test_a_resampled_state_is_the_same_to_the_player_and_deals_the_opponent_again(name, strategy, n_games):
    """At random decision points (a knock, a layout and a defence among them; reshuffled
    stocks; later hands of a game) the resampled state shows the player the same information
    state, observation and legal moves, its history is legal (it deserializes to itself), and
    the opponent's hidden cards are dealt again."""
    game = pyspiel.load_game(name)
    rng = random.Random(11)
    n = dealt_again = 0
    phases = set()
    for state in _decisions(game, strategy, n_games, rng):
        p = state.current_player()
        if rng.random() < 0.3 or state.hand.phase_name in ("knock", "arrange", "defend"):
            world = state.resample_from_infostate(p, _sampler(rng.random()))
            assert world.information_state_string(p) == state.information_state_string(p)
            assert world.observation_tensor(p) == state.observation_tensor(p)
            assert world.legal_actions() == state.legal_actions() and world.current_player() == p
            again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, world))[1]
            assert str(again) == str(world)
            q = 1 - p
            dealt_again += (world.hand.state[S.S_HANDS + q] != state.hand.state[S.S_HANDS + q])
            phases.add(state.hand.phase_name)
            n += 1
    assert n > 20 and dealt_again > 0.7 * n
    if "gin_only" not in name:
        assert {"knock", "arrange", "defend"} <= phases


def test_resampling_reads_nothing_the_player_cannot_see():
    """Two states the player cannot tell apart resample to the same state for the same
    random draws: nothing of the opponent's true cards reaches the result."""
    game = pyspiel.load_game("python_ginsim(preset=tournament)")
    rng = random.Random(3)
    checked = 0
    for state in _decisions(game, "simple", 6, rng):
        p = state.current_player()
        if rng.random() < 0.25:
            other = state.resample_from_infostate(p, _sampler(rng.random()))
            u = rng.random()
            a = state.resample_from_infostate(p, _sampler(u))
            b = other.resample_from_infostate(p, _sampler(u))
            assert str(a) == str(b) and a.history() == b.history()
            checked += 1
    assert checked > 20


def test_the_opponents_unseen_cards_follow_mcs_belief():
    """Resampled opponent hands hold the cards the belief favours: a card of a rank the
    opponent collected (took from the pile) more often than a card of a rank it discarded."""
    from strategies.belief import THETA

    assert THETA[0] > 0 > THETA[3]  # the features: rank collected, rank discarded
    rng = random.Random(8)
    game = pyspiel.load_game("python_ginsim(preset=tournament)")
    bots = [G.StrategyBot(0, "simple"), G.StrategyBot(1, "simple")]
    favoured = disfavoured = 0
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal() and not (state.current_player() == 0 and state.hand.phase_name == "draw"
                                               and state.hand.view(0)[V.V_OPP_TOOK]):
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(bots[state.current_player()].step(state))
        if state.is_terminal():
            continue
        view = state.hand.view(0)
        took, discarded = view[V.V_OPP_TOOK], view[V.V_OPP_DISCARDS]
        hot = {c & 15 for c in mask_cards(int(took))}
        cold = {c & 15 for c in mask_cards(int(discarded))} - hot
        for _ in range(20):
            world = state.resample_from_infostate(0, _sampler(rng.random()))
            hidden = mask_cards(int(world.hand.state[S.S_HANDS + 1]) & ~int(took))
            favoured += sum(c & 15 in hot for c in hidden) / max(len(hot), 1)
            disfavoured += sum(c & 15 in cold for c in hidden) / max(len(cold), 1)
    assert favoured > 1.5 * disfavoured > 0


# --------------------------------------------------------------------------- OpenSpiel's gin_rummy
@pytest.mark.parametrize("params", [{}, {"knock_card": 7, "gin_bonus": 20, "undercut_bonus": 10}])
def test_under_openspiels_rules_both_games_return_the_same_for_the_same_moves(params):
    """Under ``gin_rummy``'s own rules options, every hand of ``python_ginsim`` (ginsim
    strategies with random moves mixed in) replayed in ``gin_rummy`` through the cross-check's
    translation (``replay_events``: the same chance outcomes, each move as OpenSpiel's
    actions) returns the same to both players; a hand that cannot be replayed is skipped only
    for a documented reason (OpenSpiel's 11-card knock shortcut, its upcard-draw cap)."""
    from collections import Counter

    from simulator.interop.openspiel import ReplaySkip, replay_events
    from test_openspiel_crosscheck import SKIP_CATEGORIES

    theirs = pyspiel.load_game("gin_rummy", params)
    game = G.game_like_gin_rummy(theirs)
    assert game.rules.knock_limit == theirs.get_parameters()["knock_card"] and not game.rules.undercut_on_tie
    rng = random.Random(len(params))
    outcomes, skipped = Counter(), Counter()
    for i in range(240):
        names = [("simple", "knock_early", "gin_hunter", "random")[(i + k) % 4] for k in (0, 1)]
        bots = [G.StrategyBot(p, names[p]) for p in (0, 1)]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            elif rng.random() < 0.1:
                state.apply_action(rng.choice(state.legal_actions()))
            else:
                state.apply_action(bots[state.current_player()].step(state))
        try:
            replay = replay_events(state.hand.events, theirs)
        except ReplaySkip as skip:
            skipped[skip.category] += 1
            continue
        assert replay.openspiel == state.returns(), replay
        history = replay.state.history()
        assert history[:21] == state.history()[:21]  # the deal: the same chance outcomes
        outcomes[replay.outcome] += 1
    assert set(skipped) <= set(SKIP_CATEGORIES) and sum(skipped.values()) <= 12, skipped
    assert {"knock", "gin", "undercut", "dead"} <= set(outcomes), outcomes


def test_the_docs_table_maps_every_gin_rummy_parameter_to_ginsim_fields():
    """docs/openspiel.md's table names every parameter of OpenSpiel's gin_rummy, and every
    ginsim field it names exists."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "openspiel.md").read_text()
    table = text[text.index("| OpenSpiel `gin_rummy` parameter |"):].split("\n\n")[0].split("\n")[2:]
    theirs, ours = set(), set()
    for row in table:
        cells = row.split("|")
        theirs |= set(re.findall(r"`(\w+)`", cells[1]))
        ours |= set(re.findall(r"`(\w+)`", cells[2]))
    assert theirs == set(pyspiel.load_game("gin_rummy").get_type().parameter_specification)
    assert ours and ours <= {f.name for f in dataclasses.fields(Rules)}
    game = G.game_like_gin_rummy(pyspiel.load_game("gin_rummy", {"knock_card": 8, "gin_bonus": 30}))
    assert game.rules == Rules.preset("single_hand", knock_limit=8, gin_bonus=30)
