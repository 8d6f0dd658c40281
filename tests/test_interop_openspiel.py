"""ginsim's players inside OpenSpiel and OpenSpiel's bots inside ginsim
(``simulator.interop.openspiel``): legal play, what a seat may see, and agreement between the
two engines on the same decks."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import simulator  # noqa: E402
from simulator.cli import main  # noqa: E402
from simulator.interop import openspiel as O  # noqa: E402
from simulator.interop.openspiel.arena import _deck, _os_player, _play_openspiel  # noqa: E402
from simulator.interop.openspiel.seat import _fill, _masked_history  # noqa: E402
from test_cli_json import validate  # noqa: E402
from strategies import Player  # noqa: E402
from strategies.registry import register_player  # noqa: E402

GAME = O.game_for("single_hand")


def test_the_masked_history_hides_the_opponents_deal_and_draws():
    deck = _deck(3, 0)
    state = GAME.new_initial_state()
    for c in deck[0:20:2] + deck[1:20:2] + deck[20:21]:
        state.apply_action(O.os_card(c))
    state.apply_action(O.PASS)
    state.apply_action(O.PASS)
    state.apply_action(O.DRAW_STOCK)
    state.apply_action(O.os_card(deck[21]))  # player 0 draws the stock's top card
    for me in (0, 1):
        log = _masked_history(state, me)
        chance = [a for p, a in log if p == O.CHANCE]
        own = chance[:10] if me == 0 else chance[10:20]
        other = chance[10:20] if me == 0 else chance[:10]
        assert own == [O.os_card(c) for c in (deck[0:20:2] if me == 0 else deck[1:20:2])]
        assert other == [None] * 10
        assert chance[20] == O.os_card(deck[20])  # the upcard is seen by both
        assert chance[21] == (O.os_card(deck[21]) if me == 0 else None)


def _scripted(deck: list[int], strategy: str) -> tuple[list, list[int]]:
    """Player 0 scripted (pass the upcard, draw from the stock, discard deck[4], deck[6],
    deck[8] in turn), player 1 a GinsimBot: player 1's masked histories and its answers."""
    state = GAME.new_initial_state()
    order = [O.os_card(c) for c in deck[0:20:2] + deck[1:20:2] + deck[20:]]
    bot = O.GinsimBot(GAME, 1, strategy)
    discards = [O.os_card(c) for c in (deck[4], deck[6], deck[8])]
    seen, answers, k = [], [], 0
    while not state.is_terminal() and discards:
        if state.is_chance_node():
            state.apply_action(order[k])
            k += 1
        elif state.current_player() == 0:
            phase, legal = state.current_phase(), state.legal_actions()
            move = O.PASS if O.PASS in legal and phase != O.Phase.DISCARD else (
                O.DRAW_STOCK if O.DRAW_STOCK in legal else discards.pop(0))
            state.apply_action(move)
        else:
            seen.append(_masked_history(state, 1))
            answers.append(bot.step(state))
            state.apply_action(answers[-1])
    return seen, answers


def test_the_bot_moves_the_same_whatever_the_opponents_hidden_cards():
    """Two deals that differ only in cards player 1 never sees (two of player 0's cards
    swapped with the stock's last two): player 1 sees the same history and its GinsimBot
    answers the same at every decision."""
    base = _deck(4, 0)
    other = list(base)
    other[0], other[50] = other[50], other[0]
    other[2], other[51] = other[51], other[2]
    for strategy in ("simple", "expert", "mc:samples=8"):
        seen_a, answers_a = _scripted(base, strategy)
        seen_b, answers_b = _scripted(other, strategy)
        assert len(answers_a) >= 3 and seen_a == seen_b, strategy
        assert answers_a == answers_b, strategy


@pytest.mark.parametrize("strategy", ["simple", "expert", "gin_hunter", "knock_early", "random", "mc:samples=8"])
def test_ginsim_strategies_play_inside_openspiel_without_an_illegal_action(strategy):
    result = O.arena(strategy, "openspiel_simple", n_decks=12, seed=5)
    assert result.n_decks == 12 and len(result.per_deck) == 12
    assert 0 <= result.won + result.lost <= 1
    assert all(float(2 * x).is_integer() for x in result.per_deck)  # points are whole numbers
    assert result.stats["rebuilds"] > 0  # the shadow was dealt again as the opponent showed cards


@pytest.mark.parametrize("deck, seat", [(83, 1), (89, 1), (362, 0)])
def test_the_defender_follows_a_knock_with_the_knockers_cards_filled_from_its_layout(deck, seat):
    """On these decks (seed 2026) OpenSpiel's simple bot knocks against ``simple``.  The
    defender's shadow must fill the knocker's unseen cards from the layout it shows: filled
    earlier, ginsim laid out cards the knocker never held (a gin where OpenSpiel scored a
    knock) and the defence fell back to OpenSpiel's best response."""
    specs = ("simple", "openspiel_simple") if seat == 0 else ("openspiel_simple", "simple")
    bots = [_os_player(specs[p], GAME, p, 2026) for p in (0, 1)]
    _play_openspiel(GAME, bots, _deck(2026, deck))
    ours = bots[seat]
    assert ours.stats["fallback_moves"] == 0 and not ours._broken
    result = ours._shadow.hand.observation(seat)["result"]
    assert result["outcome"] in ("knock", "undercut") and result["knocker"] == 1 - seat


class Greedy(Player):
    """The Python base class's greedy defaults."""


def test_a_python_strategy_plays_inside_openspiel():
    register_player("interop_greedy", Greedy)
    result = O.arena("interop_greedy", "openspiel_random", n_decks=6, seed=1)
    assert len(result.per_deck) == 6


class Peeking(Player):
    """Answers differently each time it is asked: a strategy the replay check must catch."""

    calls = 0

    def draw(self, obs):
        type(self).calls += 1
        return "pile" if type(self).calls % 2 else "stock"


def test_a_strategy_that_does_not_follow_its_view_is_caught():
    register_player("interop_peeking", Peeking)
    with pytest.raises(O.InteropError, match="reads more than its view"):
        O.arena("interop_peeking", "openspiel_simple", n_decks=20, seed=2)


def test_openspiel_simple_plays_inside_ginsim():
    O.OpenSpielPlayer.replaced.clear()
    df = simulator.simulate("openspiel_simple", "simple", rules="single_hand", n_deals=40, seed=3)
    assert len(df) == 40 and df["outcome"].notna().all()
    assert O.OpenSpielPlayer.replaced.get("history", 0) == 0  # every history replayed into OpenSpiel
    assert "openspiel_simple" in {s["name"] for s in __import__("strategies").available()}


def test_the_filled_history_is_a_legal_openspiel_hand():
    """At every decision of 40 hands (simple bots), either seat's public history, its unknown
    cards filled, replays legally in OpenSpiel up to that decision."""
    rng = np.random.default_rng(0)
    for i in range(40):
        bots = [O.OPENSPIEL_BOTS["openspiel_simple"](GAME, p, 0) for p in (0, 1)]
        state = GAME.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [a for a, _ in state.chance_outcomes()]
                state.apply_action(int(rng.choice(outcomes)))
                continue
            me = state.current_player()
            filled = _fill(_masked_history(state, me), me, 10)
            replay = GAME.new_initial_state()
            for _, a in filled.log:
                assert a in replay.legal_actions()
                replay.apply_action(a)
            assert replay.current_player() == me and sorted(replay.hands()[me]) == sorted(state.hands()[me])
            assert list(replay.layed_melds()[1 - me]) == list(state.layed_melds()[1 - me])
            state.apply_action(bots[me].step(state))


def test_cross_engine_agreement_on_the_same_decks():
    """Issue 27's test: ginsim's simple against OpenSpiel's simple bot gives the same points
    per hand, within intervals, played inside OpenSpiel (GinsimBot) or inside ginsim
    (OpenSpielPlayer), on the same decks.  The bot never lays off; inside ginsim it defends
    with ``DEFEND_NO_LAYOFFS``, so no move of it is replaced."""
    O.OpenSpielPlayer.replaced.clear()
    inside_os = O.arena("simple", "openspiel_simple", n_decks=300, seed=11)
    inside_gs = O.arena("simple", "openspiel_simple", n_decks=300, seed=11, engine="ginsim")
    for r in (inside_os, inside_gs):
        assert math.isfinite(r.net_ci_low) and r.net_ci_low < r.net_mean < r.net_ci_high
    assert inside_os.net_ci_low <= inside_gs.net_mean <= inside_os.net_ci_high
    assert inside_gs.net_ci_low <= inside_os.net_mean <= inside_gs.net_ci_high
    assert not O.OpenSpielPlayer.replaced  # no move of the bot replaced, its defences included


def test_openspiel_simples_defence_is_the_defence_without_layoffs():
    """The issue-17 hand (tests/test_defence.py): As fits the knocker's spades.  OpenSpiel's
    simple bot, defending inside ginsim, passes at the layoffs: its move is
    ``DEFEND_NO_LAYOFFS`` (14 kept, the knocker scores 11), not replaced."""
    from test_defence import ACTIONS, _defend_phase
    from test_state_phases import c

    deck, _, _ = _defend_phase()
    hand = simulator.Hand(rules="single_hand", deck=deck, a="openspiel_simple", b="simple")
    for a in (*ACTIONS, simulator.actions.discard(c("Qd")), simulator.actions.KNOCK, simulator.actions.lay_out(0)):
        if hand.current_player == 0:  # the bot's own move (it passes the upcard Ks), so it follows the hand
            assert hand.bot_action() == a
        hand.apply(a)
    assert hand.phase_name == "defend" and hand.current_player == 0
    O.OpenSpielPlayer.replaced.clear()
    action = hand.bot_action()
    assert action == simulator.actions.DEFEND_NO_LAYOFFS and not O.OpenSpielPlayer.replaced
    hand.apply(action)
    result = hand.observation(0)["result"]
    assert (result["defender_deadwood"], result["laid_off"], result["points"], result["winner"]) == (14, [], 11, 1)


def test_ginsim_bot_plays_the_defence_without_layoffs_as_openspiels_pass():
    """A Python strategy defending with ``"no_layoffs"`` inside OpenSpiel (GinsimBot) passes
    at OpenSpiel's layoff phase and melds the rest: at every knock it defends against, its
    deadwood in OpenSpiel is the one of its shadow hand, where nothing was laid off: its
    least deadwood."""

    class Declines(Player):
        def defend(self, obs):
            return "no_layoffs"

    register_player("interop_declines", Declines)
    checked = 0
    for i in range(30):
        for seat in (0, 1):
            specs = ("interop_declines", "openspiel_simple") if seat == 0 else ("openspiel_simple", "interop_declines")
            bots = [_os_player(specs[p], GAME, p, 7) for p in (0, 1)]
            last = [None]

            def keep(state):
                last[0] = state.clone()  # the state before the hand's last move

            _play_openspiel(GAME, bots, _deck(7, i), keep)
            shadow = bots[seat]._shadow
            if shadow is None or not shadow.hand.is_over():
                continue
            result = shadow.hand.observation(seat)["result"]
            if result["outcome"] not in ("knock", "undercut") or result["knocker"] != 1 - seat:
                continue
            assert result["laid_off"] == [] and last[0].current_player() == seat  # its last Pass
            assert last[0].deadwood()[seat] == result["defender_deadwood"] == O.UTILS.min_deadwood(list(last[0].hands()[seat]))
            checked += 1
    assert checked >= 5


def test_wall_census_counts_genuine_cases():
    counts = O.wall_census("simple", "openspiel_simple", n_decks=30, seed=4)
    assert counts["hands"] == 60
    assert counts["only_openspiel"] <= counts["openspiel_knock"] <= counts["walls"]
    assert counts["only_rules"] <= counts["rules_knock"] <= counts["walls"]
    assert counts["knocked_only_openspiel"] <= counts["knocked"] <= counts["openspiel_knock"]


def test_game_for_refuses_rules_openspiel_cannot_play():
    with pytest.raises(ValueError, match="undercut_on_tie"):
        O.game_for("hoyle")
    rules = O.rules_for(GAME)
    assert (rules.knock_limit, rules.gin_bonus, rules.undercut_bonus) == (10, 25, 25)


def test_ginsim_arena_cli(capsys, tmp_path):
    assert main(["arena", "simple", "openspiel_simple", "--decks", "4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc, "arena")  # against docs/cli.md's schema
    assert main(["arena", "simple", "openspiel_random", "--decks", "3", "--seed", "2026", "--json",
                 "--export", str(tmp_path / "hands")]) == 0
    exported = json.loads(capsys.readouterr().out)
    validate(exported, "arena")  # the export's counts by reason too
    assert sum(exported["export"]["not_written_by_reason"].values()) == exported["export"]["not_written"] > 0
    assert doc["hands"] == 8
    assert doc["net_points_per_hand_to_a"]["unit"] == "deck"
    assert main(["arena", "simple", "openspiel_simple", "--decks", "0"]) == 2


def test_from_openspiel_takes_actions_as_integers_only():
    """Issue 54: 12.4 was read as action 12 and "12" as an action; each is refused naming its
    place in the sequence, and the integers themselves still convert."""
    from simulator.run.handhistory import from_deal

    history = from_deal("simple", "gin_hunter", "single_hand", seed=5, deal=2)
    actions = O.to_openspiel(history)
    d = history.dealer
    assert O.from_openspiel(actions, dealer=d).actions == history.actions
    assert O.from_openspiel(np.array(actions), dealer=d).actions == history.actions  # numpy's integers are integers
    for k, bad in ((3, actions[3] + 0.4), (0, str(actions[0])), (5, True)):
        changed = list(actions)
        changed[k] = bad
        with pytest.raises(ValueError, match=rf"^actions\[{k}\] must be an OpenSpiel action \(an integer\), got"):
            O.from_openspiel(changed)
    with pytest.raises(ValueError, match="actions must be a sequence of OpenSpiel action integers"):
        O.from_openspiel(" ".join(map(str, actions)))
    with pytest.raises(ValueError, match="dealer must be seat 0 or 1, got 1.0"):
        O.from_openspiel(actions, dealer=1.0)
