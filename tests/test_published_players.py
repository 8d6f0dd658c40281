"""The published players (``marjj``, ``heisenbot``, ``gold_standard``) decide what their
docstrings say, position by position, and ``marjj`` scores discards as the public MARJJ
player does (its own diagnostic scenario).

Positions are built by hand as in ``tests/test_strategies.py``: only the slots a decision
reads are filled."""

from __future__ import annotations

import numpy as np
import pytest

import simulator
from simulator.core.cards import CARD_VALUE
from simulator.core.melds import min_deadwood_nb
from strategies import gold_standard, heisenbot, marjj
from strategies.view import (
    PHASE_ARRANGE,
    PHASE_DRAW,
    PHASE_FIRST_UPCARD,
    V_MY_DRAWS,
    V_MY_SCORE,
    V_OPP_SCORE,
    V_OPP_TOOK,
    V_SEEN,
)
from test_strategies import MELDED, Position, card, discard_position, draw, knock_position, mask, row

# ---- marjj ---------------------------------------------------------------------------------

#: the public MARJJ_v5 player's own diagnostic (its ``main``, "Scenario 2"): the 11 cards it
#: holds, nothing else seen, and for each candidate it scores: (deadwood kept, the sum of the
#: 7 smallest future deadwoods, danger).  Its ``main`` printed these components.
SCENARIO_2 = "Qc Qd Qs As 3h 5d 8h 8s Ts Js Jh"
SCENARIO_2_SCORES = {"Qc": (45, 208, -15.0), "8h": (47, 173, -4.0), "Jh": (45, 171, -4.0), "8s": (47, 181, -7.0),
                     "Ts": (45, 179, -6.0), "Js": (45, 198, -14.0), "5d": (50, 160, 4.0), "Qd": (45, 208, -15.0)}


def scenario_2(draws: int = 1) -> Position:
    pos = discard_position(SCENARIO_2, "Jh")
    pos.view[V_SEEN] = mask(SCENARIO_2)
    pos.view[V_MY_DRAWS] = draws
    return pos


def test_marjj_scores_the_public_players_diagnostic_scenario_component_by_component():
    hand = np.int64(mask(SCENARIO_2))
    cand, now = marjj.candidates_nb(row(marjj), hand, hand)
    assert now == -1 and cand == mask(" ".join(SCENARIO_2_SCORES))  # As, 3h and Qs are not scored
    buffer = np.empty(52, np.int64)
    for name, (kept_dw, future_sum, danger) in SCENARIO_2_SCORES.items():
        kept = hand & ~(np.int64(1) << card(name))
        assert min_deadwood_nb(kept) == kept_dw, name
        assert marjj.future_deadwood_nb(kept, hand, np.int64(7), buffer) == pytest.approx(future_sum / 7), name
        assert marjj.danger_nb(card(name), hand, np.int64(0)) == danger, name
    pos = scenario_2()
    scores = np.empty(64)
    assert marjj.discard_scores_nb(row(marjj), pos.view, pos.memory, scores) == -1
    for name, (kept_dw, future_sum, danger) in SCENARIO_2_SCORES.items():
        assert scores[card(name)] == pytest.approx(kept_dw + 18 * future_sum / 7 + danger)
    assert np.isinf(scores[card("As")]) and pos.discard(marjj) == card("5d")  # the lowest score


def test_marjj_discounts_the_future_by_its_draws_and_reads_the_papers_setting():
    later = scenario_2(draws=5)
    scores = np.empty(64)
    marjj.discard_scores_nb(row(marjj), later.view, later.memory, scores)
    assert scores[card("5d")] == pytest.approx(50 + 18 * 0.9 ** 4 * 160 / 7 + 4)
    paper = row(marjj, weight=20, future=6)
    marjj.discard_scores_nb(paper, scenario_2().view, scenario_2().memory, scores)
    hand = np.int64(mask(SCENARIO_2))
    six = marjj.future_deadwood_nb(hand & ~(np.int64(1) << card("5d")), hand, np.int64(6), np.empty(52, np.int64))
    assert scores[card("5d")] == pytest.approx(50 + 20 * six + 4)


def test_marjj_danger_penalises_cards_next_to_what_the_opponent_took_even_after_it_shed_them():
    seven = card("7c")
    own = np.int64(mask("7c"))
    assert marjj.danger_nb(seven, own, np.int64(0)) == 4.0  # its rank rule counts the card itself
    assert marjj.danger_nb(card("Qc"), np.int64(mask("Qc")), np.int64(0)) == -1.0  # the queen's king check
    took = np.int64(mask("6c 8c"))
    assert marjj.danger_nb(seven, own | took, took) == 24.0  # a run the opponent can make: +20
    # the memory keeps a card the opponent took after it discards it
    pos = discard_position(MELDED + " 7c Kd", "Kd", took="6c 8c")
    pos.discard(marjj)
    pos.view[V_OPP_TOOK] = 0
    assert marjj.opponent_took_nb(pos.view, pos.memory) == mask("6c 8c")


def test_marjj_discards_a_single_candidate_or_a_gin_card_at_once():
    hand = np.int64(mask(MELDED + " 4h Kd"))  # 4h extends the hearts run: only Kd is unmelded
    assert marjj.candidates_nb(row(marjj), hand, hand)[1] == card("Kd")
    gin = np.int64(mask("2s 3s 4s 5s 5h 6h 7h 9d 9c 9h Kd"))  # Kd, 2s or 5s? Kd leaves gin
    cand, now = marjj.candidates_nb(row(marjj), gin, gin)
    assert now == card("Kd")
    # cards worth more than 5 below the dearest candidate are not candidates
    spread = np.int64(mask(MELDED + " 3d Kd"))
    assert marjj.candidates_nb(row(marjj), spread, spread)[1] == card("Kd")
    assert marjj.candidates_nb(row(marjj, spread=7), spread, spread)[0] == mask("3d Kd")


def test_marjj_knocks_on_its_first_three_draws_then_only_with_gin():
    for draws, hand, want in [(1, MELDED + " Tc", True), (3, MELDED + " 7c", True), (4, MELDED + " Ac", False),
                              (20, MELDED + " 9s", True), (4, MELDED + " 9s", True)]:
        assert knock_position(hand, my_draws=draws).knock(marjj) is want, (draws, hand)
    assert knock_position(MELDED + " Ac", my_draws=5).knock(marjj, row(marjj, knock_turns=5))


def test_marjj_takes_a_card_only_if_its_layout_melds_it_and_deadwood_falls():
    fillers = "Ad 3d 8d Qd 2h Kh"
    # 5h makes both the run 4c5c6c... no: the set of fives or the run; the set exposes fewer layoffs
    pos = draw("4c 5c 6c 5s " + fillers, "5h")
    pos.view[V_SEEN] = mask("4c 5c 6c 5s 5h " + fillers)
    assert pos.take(marjj)
    # 4c lowers deadwood but the arrangement with fewer layoffs (the set of fives) leaves it out
    pos = draw("5c 6c 5h 5s " + fillers, "4c")
    pos.view[V_SEEN] = mask("5c 6c 5h 5s 4c " + fillers)
    assert not pos.take(marjj)
    # once both ends of the run are seen, the run exposes less and 4c is taken
    pos.view[V_SEEN] |= mask("3c 7c")
    assert pos.take(marjj)
    assert not draw(MELDED + " Kc", "Ad").take(marjj)  # lowers deadwood, melds nothing


def test_marjj_lays_out_and_defends_with_the_fewest_estimated_layoffs():
    # AMBIGUOUS: run 5h-8h + set 8s8d8c, or run 5h-7h + four eights.  Nothing seen: the
    # 4-set exposes nothing, the run 5h-7h its ends (4h: 5, 8h held); 5h-8h exposes both
    # ends and the set's 8h... held: 4h (5) + 9h (8) + the set's next-suit cards
    pos = Position("5h 6h 7h 8h 8s 8d 8c Ad 2s 3c", PHASE_ARRANGE, "Qd", deadwood=6)
    pos.view[V_SEEN] = mask("5h 6h 7h 8h 8s 8d 8c Ad 2s 3c Qd")
    assert pos.arrange(marjj) == (mask("8s 8h 8d 8c"), mask("5h 6h 7h"))
    assert marjj.layoff_estimate_nb(np.int64(mask("8s 8h 8d 8c")), np.int64(mask("5h 6h 7h")),
                                    np.int64(pos.view[V_SEEN]), np.int64(0)) == CARD_VALUE[card("5h")]
    sets, runs = marjj.defend_nb(row(marjj), pos.view, pos.pile, np.zeros(1, np.int64), pos.rng, pos.memory)
    assert (int(sets), int(runs)) == (mask("8s 8h 8d 8c"), mask("5h 6h 7h"))


# ---- heisenbot -----------------------------------------------------------------------------


@pytest.mark.parametrize("phase", [PHASE_FIRST_UPCARD, PHASE_DRAW])
def test_heisenbot_takes_melding_cards_aces_twos_and_early_triangles(phase):
    loose = "5s 7h 9d Jc Ks 4h 6d 8c Ts Qh"  # nothing melds, nothing next to anything of a rank pair
    assert Position(loose, phase, "Ad").take(heisenbot)  # an ace
    assert Position(loose, phase, "2d").take(heisenbot)  # a two
    assert not Position(loose, phase, "3d").take(heisenbot)
    assert Position(MELDED + " Kc", phase, "5s").take(heisenbot)  # extends 2s-4s
    triangle = "7h 8h 2s 4d 6c 9s Td Jc Qs Kd"  # 7s with 7h and 8h: a triangle
    assert Position(triangle, phase, "7s", my_draws=4).take(heisenbot)
    assert not Position(triangle, phase, "7s", my_draws=5).take(heisenbot)


def test_heisenbot_triangles_and_safety_counts():
    others = np.int64(mask("5s 6s"))
    assert heisenbot.in_triangle_nb(card("5h"), others)  # 5h-5s rank, 5s-6s suited
    assert heisenbot.in_triangle_nb(card("6h"), np.int64(mask("6s 5s")))  # 6h-6s, 6s-5s
    assert heisenbot.in_triangle_nb(card("5h"), np.int64(mask("5s 6h")))  # 5h links both
    assert not heisenbot.in_triangle_nb(card("5h"), np.int64(mask("5s 5d")))  # a set, no suit link
    assert not heisenbot.in_triangle_nb(card("5h"), np.int64(mask("7h 6s")))
    # a lone nine: three pairs of nines and three runs through it, all live
    assert heisenbot.safety_count_nb(card("9d"), np.int64(0)) == 6
    assert heisenbot.safety_count_nb(card("Kd"), np.int64(0)) == 4  # one run at the top
    assert heisenbot.safety_count_nb(card("9d"), np.int64(mask("9s 8d"))) == 1 + 1  # 9h9c; 9-T-J


def test_heisenbot_discards_deadwood_before_doubles_by_safety_then_rank():
    # melded 2s3s4s 5h6h7h; unmelded Kd (deadwood), Tc Jc and 8d 8c (doubles)
    hand = "2s 3s 4s 5h 6h 7h Kd Tc Jc 8d 8c"
    assert discard_position(hand, "8c").discard(heisenbot) == card("Kd")
    # from its 8th draw doubles count as deadwood: safety counts Kd 4, Jc 4, Tc 3, 8c 3,
    # 8d 4; of Tc and 8c the higher rank goes
    assert heisenbot.safety_count_nb(card("Tc"), np.int64(mask(hand))) == 3
    assert heisenbot.safety_count_nb(card("8c"), np.int64(mask(hand))) == 3
    assert discard_position(hand, "8c", my_draws=8).discard(heisenbot) == card("Tc")
    # two deadwood cards: the lower safety count goes (the king's run is blocked by the pile)
    assert discard_position(MELDED + " Kd Tc", "Tc", pile="Qd Jd").discard(heisenbot) == card("Kd")
    # equal safety counts (4 each): the higher rank goes
    assert discard_position(MELDED + " Js Ts", "Ts").discard(heisenbot) == card("Js")


def test_heisenbot_knock_decision_tree():
    def knocks(hand, draws, mine=0, theirs=0):
        pos = knock_position(hand, my_draws=draws)
        pos.view[V_MY_SCORE] = mine
        pos.view[V_OPP_SCORE] = theirs
        return pos.knock(heisenbot)

    assert knocks(MELDED + " Tc", 2)  # early: knock
    assert not knocks(MELDED + " Tc", 6)  # 10 > 5 with one deadwood card: play on
    assert knocks("2s 3s 4s 5h 6h 7h Ac 2d 3h 4c", 6)  # 10 in four deadwood cards: knock
    assert knocks(MELDED + " 4c", 6)  # deadwood 4 <= 5
    assert knocks(MELDED + " Tc", 14)  # late: knock
    assert not knocks(MELDED + " 4c", 2, mine=40, theirs=10)  # 30 ahead: play for gin
    assert not knocks(MELDED + " 4c", 2, mine=10, theirs=40)  # 30 behind: likewise
    assert knocks(MELDED + " 9s", 6, mine=40, theirs=10)  # gin always


# ---- gold_standard -------------------------------------------------------------------------


def test_gold_standard_takes_when_deadwood_strictly_falls():
    hand = MELDED + " Kc"
    assert draw(hand, "Ad").take(gold_standard)  # Ad for Kc: 10 -> 1
    assert not draw(hand, "Qd").take(gold_standard)  # 10 -> 10


def test_gold_standard_discards_by_value_but_knocks_with_the_first_card_in_its_order():
    # Ks, Kc, Qh leave 10 each (no knock): the highest value, then spades first
    assert discard_position(MELDED + " Ks Kc", "Kc").discard(gold_standard) == card("Ks")
    # 8c and 2d: keeping 2d (deadwood 2) lets it knock, and only 8c does that
    assert discard_position(MELDED + " 8c 2d", "8c").discard(gold_standard) == card("8c")
    # Ah and Ad both leave 1 and a knock: the first in its order (hearts before diamonds)
    assert discard_position("2s 3s 4s 5c 6c 7c 9d 9c 9h Ah Ad", "Ad").discard(gold_standard) == card("Ah")
    assert [gold_standard.source_order_nb(card(c)) for c in ("As", "Ks", "Ah", "Kc")] == [0, 12, 13, 51]
    assert knock_position(MELDED + " Tc").knock(gold_standard)
    assert not knock_position(MELDED + " Tc").knock(gold_standard, row(gold_standard, hold_for_gin=1))
    assert knock_position(MELDED + " 9s").knock(gold_standard, row(gold_standard, hold_for_gin=1))


# ---- every published player ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["marjj", "heisenbot", "gold_standard"])
def test_published_players_play_legal_hands_and_games_under_every_preset(name):
    # the engine checks every move and raises on a violation
    for preset in simulator.Rules.PRESETS:
        for opponent in ("simple", "random"):
            df = simulator.simulate(name, opponent, preset, n_deals=1000, seed=31)
            assert len(df) == 1000
    games = simulator.simulate_games(name, "expert", "tournament", n_games=20, seed=3)
    assert len(games) == 20


def test_ginsim_strategies_lists_the_published_players_with_their_sources():
    from cli_runner import ginsim

    out = ginsim("strategies").stdout
    for name, words in (("marjj", "Hand Strength Estimation"), ("heisenbot", "Rule-Based Game Agent"),
                        ("gold_standard", "adversarial-coevolution")):
        block = out[out.index(name):]
        assert "source: " in block.split("\n")[2] and words in block.split("\n")[2], name
