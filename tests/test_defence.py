"""The defence is the defender's decision (docs/rules.md#laying-out-and-laying-off): the
defend phase on the issue's example hand, ``simple``'s EAAI-baseline defence, and the
default best response of every other strategy.

The example (tournament rules): the knocker (seat 1) lays out 2s-6s and 4h5h6h with
Ac 2c, 3 deadwood.  The defender (seat 0, the dealer) holds

        A 2 3 4 5 6 7 8 9 T J Q K
    ♠   x           x     x
    ♥               x     x
    ♦     x
    ♣           x x x     x

Its only least-deadwood arrangement is 7s7h7c + TsThTc (14: As 2d 5c 6c).  Keeping it, it
lays off As on the spades and keeps 13: the knocker scores 10.  The best response melds
5c6c7c and the tens, lays off As and 7s on the spades (A-7s) and 7h on 4h5h6h, keeps 2d = 2 and undercuts: 3 - 2 + 25 = 26.
"""

from __future__ import annotations

import numpy as np

import oracle as O
import simulator
from simulator import actions
from simulator.core import records
from simulator.core import state as S
from simulator.core.view_fill import view_of
from simulator.core.melds import arrangement_nb, layoff_solution_nb, min_deadwood_nb, valid_layout_nb
from strategies import Player, common, knock_policy, simple
from strategies import view as V
from test_state_phases import NO_TRACE, assert_only_legal_accepted, assert_refused, c, changes, deal, legal, make_deck, mask, play, step

KNOCKER = "2s 3s 4s 5s 6s 4h 5h 6h Ac 2c"
DEFENDER = "As 7s Ts 7h Th 2d 5c 6c 7c Tc"
ACTIONS = (S.A_PASS, S.A_PASS)  # both pass the upcard Ks; the mover draws Qd from the stock


def _defend_phase():
    deck = make_deck(KNOCKER, DEFENDER, "Ks", "Qd")
    state, rules = deal(deck, "tournament")
    arrange = play(state, rules, *ACTIONS, S.A_DISCARD + c("Qd"), S.A_KNOCK)
    assert legal(arrange, rules) == [S.A_ARRANGE]
    return deck, play(arrange, rules, S.A_ARRANGE), rules


def test_the_defender_sees_the_layout_and_chooses_its_defence():
    _, defend, rules = _defend_phase()
    assert (defend[S.S_PHASE], defend[S.S_CURRENT], defend[S.S_DEADWOOD]) == (S.PHASE_DEFEND, 0, 3)
    view = view_of(defend, 0)
    assert (view[V.V_KNOCKER_SETS], view[V.V_KNOCKER_RUNS], view[V.V_KNOCKER_DEADWOOD]) == (
        0, mask("2s 3s 4s 5s 6s 4h 5h 6h"), 3)
    # one least-deadwood arrangement; the best response; no layoffs
    assert legal(defend, rules) == [S.A_DEFEND_BEST, S.A_DEFEND, S.A_DEFEND_NO_LAYOFFS]
    assert_only_legal_accepted(defend, rules)
    assert_refused(defend, rules, S.A_DEFEND + 1, S.ERR_ILLEGAL_ACTION)
    assert_refused(defend, rules, S.A_ARRANGE, S.ERR_ILLEGAL_ACTION)
    # melds that are not a least-deadwood arrangement are refused, the state unchanged
    for sets, runs in [(mask("Ts Th Tc"), mask("5c 6c 7c")),  # legal melds, but 17 deadwood
                       (mask("7s 7h 7c"), mask("5c 6c 7c")),  # 7c twice
                       (mask("7s 7h 7c Ts Th Tc 2d"), 0), (-1, -1)]:
        before = defend.copy()
        assert S.defend_nb(defend, rules, np.int64(sets), np.int64(runs), NO_TRACE) == S.ERR_BAD_MELDS
        np.testing.assert_array_equal(defend, before)


def test_the_baseline_defence_keeps_13_and_the_knocker_wins():
    _, defend, rules = _defend_phase()
    assert arrangement_nb(np.int64(defend[S.S_HANDS]), np.int64(0))[:2] == (mask("7s 7h 7c Ts Th Tc"), 0)
    over = step(defend, rules, S.A_DEFEND)
    assert changes(defend, over) == {
        "S_PHASE": (S.PHASE_DEFEND, S.PHASE_OVER), "S_OUTCOME": (-1, records.OUT_KNOCK),
        "S_WINNER": (-1, 1), "S_POINTS": (0, 10), "S_KNOCKER_DW": (-1, 3), "S_DEFENDER_DW": (-1, 13),
        "S_LAYOFF": (0, 1), "S_LAID": (0, mask("As")), "S_DEFENDER_MELDS": (0, mask("7s 7h 7c Ts Th Tc")),
    }


def test_the_best_response_keeps_2_and_undercuts():
    _, defend, rules = _defend_phase()
    over = step(defend, rules, S.A_DEFEND_BEST)
    assert changes(defend, over) == {
        "S_PHASE": (S.PHASE_DEFEND, S.PHASE_OVER), "S_OUTCOME": (-1, records.OUT_UNDERCUT),
        "S_WINNER": (-1, 0), "S_POINTS": (0, 26), "S_KNOCKER_DW": (-1, 3), "S_DEFENDER_DW": (-1, 2),
        "S_LAYOFF": (0, 15), "S_LAID": (0, mask("As 7s 7h")), "S_DEFENDER_MELDS": (0, mask("5c 6c 7c Ts Th Tc")),
    }


def test_declining_the_layoffs_keeps_14_and_the_knocker_scores_11():
    """``A_DEFEND_NO_LAYOFFS``: the defender spreads its one least-deadwood arrangement and
    lays off nothing, though As fits the knocker's spades: it keeps As 2d 5c 6c = 14 and
    the knocker scores 14 - 3 = 11 (one more than after the baseline's layoff)."""
    _, defend, rules = _defend_phase()
    trace = np.zeros((8, 3), np.int64)
    over = defend.copy()
    assert S.apply_action_nb(over, rules, np.int64(S.A_DEFEND_NO_LAYOFFS), trace) == S.ERR_NONE
    assert changes(defend, over) == {
        "S_PHASE": (S.PHASE_DEFEND, S.PHASE_OVER), "S_OUTCOME": (-1, records.OUT_KNOCK),
        "S_WINNER": (-1, 1), "S_POINTS": (0, 11), "S_KNOCKER_DW": (-1, 3), "S_DEFENDER_DW": (-1, 14),
        "S_DEFENDER_MELDS": (0, mask("7s 7h 7c Ts Th Tc")),
    }
    assert trace[:4].tolist() == [[0, S.EV_DEFEND, -2], [0, S.EV_LAYOFF, 0], [0, S.EV_DEFENDER_DEADWOOD, 14],
                                  [1, S.EV_SCORE, 11]]
    # a numba strategy's answer (DEFEND_NO_LAYOFFS, 0) is the same action, played the same way
    from simulator.engine.loop import decode_nb, play_answer_nb

    action, x, y = decode_nb(np.int64(S.PHASE_DEFEND), np.int64(V.DEFEND_NO_LAYOFFS), np.int64(0))
    assert action == S.A_DEFEND_NO_LAYOFFS
    played = defend.copy()
    assert play_answer_nb(played, rules, action, x, y, NO_TRACE)[0] == S.ERR_NONE
    assert changes(defend, played) == changes(defend, over)


def test_no_layoffs_through_the_hand_api_and_a_python_player():
    deck, _, _ = _defend_phase()

    class Declines(Player):
        def defend(self, obs):
            return "no_layoffs"

    hand = simulator.Hand(rules="tournament", deck=deck, a=Declines, b="knock_early")
    for a in (*ACTIONS, S.A_DISCARD + c("Qd"), S.A_KNOCK, S.A_ARRANGE):
        hand.apply(a)
    assert hand.legal_actions()[-1] == actions.DEFEND_NO_LAYOFFS == S.A_DEFEND_NO_LAYOFFS
    assert actions.name(actions.DEFEND_NO_LAYOFFS) == "defend no layoffs"
    assert hand.bot_action() == actions.DEFEND_NO_LAYOFFS
    hand.apply(actions.DEFEND_NO_LAYOFFS)
    result = hand.observation(0)["result"]
    assert (result["outcome"], result["defender_deadwood"], result["laid_off"], result["points"]) == (
        "knock", 14, [], 11)
    assert [e for e in hand.events if e[1] == "defend"] == [(0, "defend", -2)]


def test_no_layoffs_is_legal_only_in_the_defend_phase():
    """Over 60 hands (``knock_early`` against ``random``): at every decision
    ``A_DEFEND_NO_LAYOFFS`` is among the legal actions exactly in the defend phase, and
    anywhere else (the hand over included) it is refused with the state unchanged."""
    rules = simulator.Rules.preset("hoyle").to_array()
    defends = 0
    for d in range(60):
        hand = simulator.Hand("hoyle", seed=5, deal=d, a="knock_early", b="random")
        while True:
            state = hand.state.copy()
            is_defence = state[S.S_PHASE] == S.PHASE_DEFEND
            assert (S.A_DEFEND_NO_LAYOFFS in legal(state, rules)) == is_defence
            defends += is_defence
            if not is_defence:
                assert_refused(state, rules, S.A_DEFEND_NO_LAYOFFS, S.ERR_ILLEGAL_ACTION)
            if hand.is_over():
                break
            hand.apply(hand.bot_action())
    assert defends > 10


def test_no_layoffs_against_the_plain_python_reference():
    """Oracle check over 300 knocked hands (``knock_early`` against itself, tournament
    rules): after ``A_DEFEND_NO_LAYOFFS`` the defender's deadwood is the brute-force least
    deadwood of its hand (``tests/oracle.py``), its melds leave exactly that, nothing is laid
    off, the score is the plain-Python reference's (``tests/reference_engine.score``), and
    no other defence leaves more deadwood."""
    import reference_engine as R

    rules = simulator.Rules.preset("tournament")
    checked = 0
    for d in range(400):
        hand = simulator.Hand(rules, seed=27, deal=d, a="knock_early", b="knock_early")
        while not hand.is_over() and hand.phase_name != "defend":
            hand.apply(hand.bot_action())
        if hand.is_over():
            continue
        st = hand.state
        defender = 1 - int(st[S.S_KNOCKER])
        cards = R.cards_of(int(st[S.S_HANDS + defender]))
        others = []
        for a in hand.legal_actions()[:-1]:
            g = hand.clone()
            g.apply(a)
            others.append(int(g.state[S.S_DEFENDER_DW]))
        hand.apply(S.A_DEFEND_NO_LAYOFFS)
        st = hand.state
        dw, melded = int(st[S.S_DEFENDER_DW]), int(st[S.S_DEFENDER_MELDS])
        assert dw == R.min_deadwood(R.mask_of(cards)) == O.total_value(R.cards_of(R.mask_of(cards) & ~melded))
        assert O.oracle_min_deadwood(R.cards_of(melded)) == 0 and st[S.S_LAID] == 0 and st[S.S_LAYOFF] == 0
        who, points, outcome = R.score(int(st[S.S_KNOCKER_DW]), dw, False, False, rules)
        winner = {"knocker": int(st[S.S_KNOCKER]), "defender": defender, None: -1}[who]
        assert (int(st[S.S_WINNER]), int(st[S.S_POINTS]), records.OUTCOMES[int(st[S.S_OUTCOME])]) == (
            winner, points, outcome)
        assert max(others) <= dw
        checked += 1
    assert checked >= 300


def test_simple_defends_as_the_baseline_and_the_others_with_the_best_response():
    deck, _, _ = _defend_phase()
    hand = simulator.Hand(rules="tournament", deck=deck, a="simple", b="knock_early")
    for a in (*ACTIONS, S.A_DISCARD + c("Qd"), S.A_KNOCK, S.A_ARRANGE):
        hand.apply(a)
    obs = hand.observation(0)
    assert obs["phase"] == "defend" and obs["knocker_melds"] == {
        "sets": [], "runs": ["2s", "3s", "4s", "5s", "6s", "4h", "5h", "6h"], "deadwood": 3}
    assert "knocker_melds" not in simulator.Hand(rules="tournament", deck=deck).observation(0)
    assert hand.arrangements() == [(["7s", "Ts", "7h", "Th", "7c", "Tc"], [])]
    assert hand.strategy_action("knock_policy") == S.A_DEFEND  # it shares simple's defence
    for spec in ("knock_early", "gin_hunter", "random", "defensive", "undercut_aware", "threshold_schedule"):
        assert hand.strategy_action(spec) == S.A_DEFEND_BEST, spec
    hand.apply(hand.bot_action())  # seat 0 is A: simple
    result = hand.observation(0)["result"]
    assert (result["outcome"], result["defender_deadwood"], result["laid_off"]) == ("knock", 13, ["As"])
    assert result["defender_melds"] == ["7s", "Ts", "7h", "Th", "7c", "Tc"]
    assert simple.DEFENCE == knock_policy.DEFENCE == "eaai"


def _defend_view(hand):
    view = np.zeros(V.N_VIEW, np.int64)
    view[V.V_PHASE] = V.PHASE_DEFEND
    view[V.V_HAND] = hand
    return view


def test_simples_defence_never_lays_out_more_deadwood_than_a_least_deadwood_arrangement():
    """Over 3,000 random ten-card hands: the melds ``simple`` defends with are always one of
    the hand's least-deadwood arrangements (before layoffs), whatever the knocker laid out."""
    rng = np.random.default_rng(17)
    stream = np.array([12345], np.uint64)
    params = np.zeros(V.N_PARAMS)
    empty = np.zeros(64, np.int64)
    rules = np.zeros(1, np.int64)
    memory = np.zeros(V.N_MEMORY, np.int64)
    deck = np.array([s * 16 + r for s in range(4) for r in range(13)], np.int64)
    for _ in range(3000):
        cards = rng.choice(deck, 10, replace=False)
        hand = np.int64(sum(1 << int(x) for x in cards))
        sets, runs = simple.defend_nb(params, _defend_view(hand), empty, rules, stream, memory)
        assert valid_layout_nb(hand, np.int64(sets), np.int64(runs), min_deadwood_nb(hand)), hex(hand)


def test_simples_defence_in_play_keeps_a_least_deadwood_arrangement_and_lays_off_what_fits():
    """Stepping simple-vs-simple tournament deals: at every knock the defender melds a
    least-deadwood arrangement, and its deadwood after layoffs lies between the best
    response's and that arrangement's."""
    knocks = 0
    for deal_no in range(120):
        hand = simulator.Hand(rules="tournament", seed=5, deal=deal_no, a="simple", b="simple")
        while not hand.is_over():
            if hand.phase == S.PHASE_DEFEND:
                st = hand.state
                defender = 1 - int(st[S.S_KNOCKER])
                cards = np.int64(st[S.S_HANDS + defender])
                best = int(layoff_solution_nb(cards, np.int64(st[S.S_SETS]), np.int64(st[S.S_RUNS]))[0])
                hand.apply(hand.bot_action())
                st = hand.state
                melded = int(st[S.S_DEFENDER_MELDS])
                kept = int(min_deadwood_nb(cards))
                assert int(st[S.S_DEFENDER_DW]) + int(st[S.S_LAYOFF]) == kept, deal_no  # unmelded = least deadwood
                assert melded & ~int(cards) == 0
                assert best <= int(st[S.S_DEFENDER_DW]) <= kept
                knocks += 1
            else:
                hand.apply(hand.bot_action())
    assert knocks > 60


def test_simples_pick_weighs_each_arrangement_by_its_meld_lists():
    # 3h-8h, 8s 8d 8c, Kc: two least-deadwood arrangements (10): the six-card run 3h-8h with
    # 8s8d8c (two meld lists: 3h-8h, or 3h4h5h + 6h7h8h) or 3h-7h with the four eights (one)
    hand = np.int64(mask("3h 4h 5h 6h 7h 8h 8s 8d 8c Kc"))
    arrangements = [arrangement_nb(hand, np.int64(k))[:2] for k in range(arrangement_nb(hand, np.int64(-1))[2])]
    assert sorted(common.meld_lists_nb(np.int64(r)) for _, r in arrangements) == [1, 2]
    counts = {}
    stream = np.array([99], np.uint64)
    for _ in range(6000):
        pick = tuple(int(x) for x in common.arrange_as_eaai_nb(hand, stream))
        counts[pick] = counts.get(pick, 0) + 1
    six_run = counts[(mask("8s 8d 8c"), mask("3h 4h 5h 6h 7h 8h"))]
    assert 3800 < six_run < 4200  # 2 of the 3 meld lists: 4000 expected
    assert [int(common.meld_lists_nb(np.int64(mask(" ".join(f"{r}s" for r in "A23456789T"[:n])))))
            for n in range(3, 11)] == [1, 1, 1, 2, 3, 4, 6, 9]


def test_simple_never_repeats_a_drawn_discarded_pair_in_either_order():
    # it drew Kd and discarded Kc; later it draws Kc: discarding Kd would repeat {Kc, Kd}
    params = np.zeros(V.N_PARAMS)
    stream = np.array([7], np.uint64)
    memory = np.zeros(V.N_MEMORY, np.int64)
    view = np.zeros(V.N_VIEW, np.int64)
    melded = "As 2s 3s 4h 5h 6h 7d 8d 9d"
    view[V.V_HAND] = mask(melded + " Kd Kc")
    view[V.V_DRAWN] = c("Kd")
    view[V.V_LEGAL_DISCARDS] = view[V.V_HAND]
    assert simple.discard_nb(params, view, np.zeros(64, np.int64), np.zeros(1, np.int64), stream, memory) in (
        c("Kd"), c("Kc"))
    # force the first pair: drawn Kd, discarded Kc (both leave deadwood 10: a random pick)
    while True:
        memory[:] = 0
        if simple.discard_nb(params, view, np.zeros(64, np.int64), np.zeros(1, np.int64), stream, memory) == c("Kc"):
            break
    view[V.V_DRAWN] = c("Kc")
    for _ in range(50):
        m = memory.copy()
        assert simple.discard_nb(params, view, np.zeros(64, np.int64), np.zeros(1, np.int64), stream, m) == c("Kc")


def test_reports_name_each_players_defence():
    from simulator.analysis.loading import defences
    from strategies.registry import DEFENCES, defence_of

    manifest = {"cells": [{"a": "simple", "b": "knock_early"}, {"a": "knock_policy:early=8", "b": "simple:knock_at=0"}]}
    assert defences(manifest) == {"simple": DEFENCES["eaai"], "knock_early": DEFENCES["best"],
                                   "knock_policy": DEFENCES["eaai"]}
    assert defence_of("no_such_strategy") == "unknown"
