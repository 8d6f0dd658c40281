"""Hand-written rule cases, each test named after the rule it proves.

Hands are drawn as a grid in the comments, one row per suit:

        A 2 3 4 5 6 7 8 9 T J Q K
    ♠   x x x

Every expected number is also checked against the brute-force oracle
(``tests/oracle.py``), so a typo in an expectation shows up as an oracle failure.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

try:
    import simulator
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import simulator

from simulator import (best_arrangement, best_discard, format_cards, is_big_gin,
                       knocker_arrangement, layoff, min_deadwood, optimal_discards,
                       parse_cards, score_hand)

import oracle as o

C = o.cards  # oracle-side parser, independent of simulator.parse_cards


def assert_deadwood(hand: str, expected: int) -> None:
    assert o.oracle_min_deadwood(C(hand)) == expected, f"oracle disagrees on {hand}"
    assert min_deadwood(hand) == expected, hand
    assert min_deadwood(C(hand)) == expected, hand  # codes as well as strings
    arr = best_arrangement(hand)
    assert arr.deadwood == expected
    assert all(o.is_meld(tuple(m)) for m in arr.melds), arr
    assert sorted([c for m in arr.melds for c in m] + list(arr.unmatched)) == sorted(C(hand))
    assert sum(o.VALUE[c] for c in arr.unmatched) == expected


def assert_layoff(knocker_melds: list[str], defender: str, expected: int,
                  laid: str | None = None) -> None:
    """Defender's final deadwood; `laid`, when given, is the unique optimal layoff."""
    melds = [C(m) for m in knocker_melds]
    assert o.oracle_layoff_deadwood(melds, C(defender)) == expected, "oracle disagrees"
    res = layoff(knocker_melds, defender)
    assert res.deadwood == expected, res
    assert o.oracle_can_lay_all(melds, res.laid_off), res
    assert res.layoff_points == sum(o.VALUE[c] for c in res.laid_off)
    assert o.oracle_min_deadwood([c for c in C(defender) if c not in res.laid_off]) == expected
    if laid is not None:
        assert sorted(res.laid_off) == sorted(C(laid)), format_cards(res.laid_off)
    # melds given as codes work the same
    assert layoff(melds, C(defender)).deadwood == expected


# --------------------------------------------------------------------------- runs: ace low
def test_ace_two_three_is_a_run():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠   x x x
    assert_deadwood("As 2s 3s", 0)


def test_queen_king_ace_is_not_a_run():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠   x                     x x      -> 1 + 10 + 10
    assert_deadwood("Qs Ks As", 21)


def test_king_ace_two_is_not_a_run():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠   x x                       x    -> 10 + 1 + 2
    assert_deadwood("Ks As 2s", 13)
    # Q-K-A-2: no wrap-around anywhere -> 10 + 10 + 1 + 2
    assert_deadwood("Qs Ks As 2s", 23)


def test_eleven_card_run_is_one_meld_and_big_gin():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠   x x x x x x x x x x x
    assert_deadwood("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js", 0)
    assert is_big_gin("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js")


# --------------------------------------------------------------------------- set or run
def test_card_usable_in_set_or_run_goes_to_the_set_when_that_is_better():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠     x x x                       run 2-3-4♠ leaves 4♥4♦ = 8
    # ♥         x                       set 4♠4♥4♦ leaves 2♠3♠ = 5  <- best
    # ♦         x
    assert_deadwood("2s 3s 4s 4h 4d", 5)


def test_card_usable_in_set_or_run_goes_to_the_run_when_that_is_better():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠                 x x x           run 8-9-T♠ leaves 8♥8♦ = 16  <- best
    # ♥                 x               set 8♠8♥8♦ leaves 9♠T♠ = 19
    # ♦                 x
    assert_deadwood("8s 9s Ts 8h 8d", 16)


def test_four_set_gives_a_card_to_a_run_when_that_is_better():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠               x                 4-set of 7s leaves 8♣9♣ = 17
    # ♥               x                 7♠7♥7♦ + run 7-8-9♣ leaves 0  <- best
    # ♦               x
    # ♣               x x x
    assert_deadwood("7s 7h 7d 7c 8c 9c", 0)
    arr = best_arrangement("7s 7h 7d 7c 8c 9c")
    assert sorted(map(sorted, arr.melds)) == sorted(map(sorted, [C("7s 7h 7d"), C("7c 8c 9c")]))


def test_four_set_kept_whole_when_no_run_needs_its_card():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠               x
    # ♥               x
    # ♦               x
    # ♣               x x               4-set, 8♣ left = 8
    assert_deadwood("7s 7h 7d 7c 8c", 8)


# --------------------------------------------------------------------------- long runs
def test_six_card_run_ace_to_six_is_a_meld():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠   x x x x x x
    assert o.is_run(C("As 2s 3s 4s 5s 6s"))
    assert_deadwood("As 2s 3s 4s 5s 6s", 0)


def test_long_run_splits_around_a_middle_card_needed_for_a_set():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠       x x x x x x x             3-4-5♠ | 6♠6♥6♦ | 7-8-9♠ -> 0
    # ♥           x                     (keeping 3..9♠ whole leaves 6♥6♦ = 12)
    # ♦           x
    assert_deadwood("3s 4s 5s 6s 7s 8s 9s 6h 6d", 0)


def test_long_run_kept_whole_when_splitting_leaves_more():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠       x x x x x x x             3..9♠ whole, 7♥7♦ left = 14  <- best
    # ♥             x                   3-6♠ | 7♠7♥7♦ leaves 8♠9♠ = 17
    # ♦             x
    assert_deadwood("3s 4s 5s 6s 7s 8s 9s 7h 7d", 14)


# --------------------------------------------------------------------------- 11 cards
def test_best_discard_is_exact_where_the_popular_shortcut_is_wrong():
    # docs/rules.md#the-exact-11-card-rule example.
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠       x x x
    # ♥       x x x x
    # ♦         x x x
    # ♣           x
    hand = "3s 4s 5s 6c 4d 5d 6d 3h 4h 5h 6h"
    assert optimal_discards(hand) == (0, tuple(C("6c")))
    assert tuple(best_discard(hand)) == (C("6c")[0], 0)
    assert o.oracle_discards(C(hand)) == (0, tuple(C("6c")))
    # The shortcut (best 11-card arrangement, drop its highest unmatched card) can pick
    # 4♠4♥4♦ | 5♠5♥5♦ | 6♥6♦6♣ with 3♠3♥ unmatched (also 6 points) and answer 3.
    shortcut = {dw - max(o.VALUE[c] for c in un)
                for _m, un, dw in o.oracle_least_arrangements(C(hand))}
    assert shortcut == {0, 3}


def test_best_discard_is_exact_where_the_shortcut_is_always_wrong():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠       x x x                     the only least 11-card arrangement is
    # ♥         x                       3s | 4s | 5s (5♠5♥5♣) leaving 2♦2♣ = 4:
    # ♦     x x x                       the shortcut says 2.  Discarding 5♥ leaves
    # ♣     x x x x                     3-4-5♠ | 2-3-4♦ | 2-3-4-5♣ = gin.
    hand = "3s 4s 5s 5h 2d 3d 4d 2c 3c 4c 5c"
    arrs = o.oracle_least_arrangements(C(hand))
    assert [dw - max(o.VALUE[c] for c in un) for _m, un, dw in arrs] == [2]
    assert o.oracle_discards(C(hand)) == (0, tuple(C("5h")))
    assert optimal_discards(hand) == (0, tuple(C("5h")))
    assert tuple(best_discard(hand)) == (C("5h")[0], 0)


def test_best_discard_respects_the_forbidden_card():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠   x x x
    # ♥         x x x
    # ♦             x x x
    # ♣                       x x       discard K♣ (tie with Q♣, higher rank) unless
    #                                   K♣ was just taken from the pile
    hand = "As 2s 3s 4h 5h 6h 7d 8d 9d Qc Kc"
    assert optimal_discards(hand) == (10, tuple(sorted(C("Qc Kc"))))
    assert tuple(best_discard(hand)) == (C("Kc")[0], 10)
    assert tuple(best_discard(hand, forbidden=C("Kc")[0])) == (C("Qc")[0], 10)
    assert tuple(best_discard(hand, forbidden="Kc")) == (C("Qc")[0], 10)
    assert optimal_discards(hand, forbidden="Kc") == (10, tuple(C("Qc")))
    assert o.oracle_discards(C(hand), C("Kc")[0]) == (10, tuple(C("Qc")))


def test_forbidden_card_can_force_a_worse_discard():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠   x x x
    # ♥         x x x
    # ♦             x x x
    # ♣     x                   x       best: discard K♣ -> 2; with K♣ forbidden,
    #                                   discard 2♣ -> 10
    hand = "As 2s 3s 4h 5h 6h 7d 8d 9d 2c Kc"
    assert tuple(best_discard(hand)) == (C("Kc")[0], 2)
    assert tuple(best_discard(hand, forbidden="Kc")) == (C("2c")[0], 10)
    assert o.oracle_best_discard(C(hand), C("Kc")[0]) == (C("2c")[0], 10)


def test_best_discard_tie_break_highest_value_first():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠   x x x
    # ♦             x x x
    # ♣     x x x x x                   discarding 2♣ or 6♣ both leave gin: 6♣ (value)
    hand = "As 2s 3s 7d 8d 9d 2c 3c 4c 5c 6c"
    assert optimal_discards(hand) == (0, tuple(sorted(C("2c 6c"))))
    assert tuple(best_discard(hand)) == (C("6c")[0], 0)


def test_best_discard_tie_break_highest_rank_among_equal_values():
    # ... plus T♣ and K♦ (both worth 10): discard K♦ (higher rank)
    hand = "As 2s 3s 4h 5h 6h 7d 8d 9d Tc Kd"
    assert optimal_discards(hand) == (10, tuple(sorted(C("Tc Kd"))))
    assert tuple(best_discard(hand)) == (C("Kd")[0], 10)


def test_best_discard_tie_break_highest_suit_index_among_equal_ranks():
    # ... plus K♠ and K♥: discard K♥ (suit index ♠0 ♥1 ♦2 ♣3)
    hand = "As 2s 3s 4h 5h 6h 7d 8d 9d Ks Kh"
    assert tuple(best_discard(hand)) == (C("Kh")[0], 10)
    assert o.oracle_best_discard(C(hand)) == (C("Kh")[0], 10)


def test_big_gin_all_eleven_cards_melded():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠       x x x x                   3-6♠ | 7♥7♦7♣ | 9-Q♣
    # ♥             x
    # ♦             x
    # ♣             x   x x x x
    assert is_big_gin("3s 4s 5s 6s 7h 7d 7c 9c Tc Jc Qc")
    assert o.oracle_is_big_gin(C("3s 4s 5s 6s 7h 7d 7c 9c Tc Jc Qc"))


def test_gin_after_discard_is_not_big_gin():
    # same with K♣ instead of Q♣: discard K♣ for an ordinary gin
    hand = "3s 4s 5s 6s 7h 7d 7c 9c Tc Jc Kc"
    assert not is_big_gin(hand)
    assert optimal_discards(hand) == (0, tuple(C("Kc")))


# --------------------------------------------------------------------------- layoffs
# Defender filler cards below are chosen to meld with nothing and fit no knocker meld.

def test_layoff_fourth_card_on_a_set_of_three():
    # knocker: 7♠7♥7♦            defender lays off 7♣
    assert_layoff(["7s 7h 7d"], "7c Ks Qh Jd 9c 2s 4d Th 3c Kh", 75 - 7, laid="7c")


def test_layoff_extends_a_run_at_the_low_end():
    # knocker: 5-6-7♥            defender lays off 4♥
    assert_layoff(["5h 6h 7h"], "4h Ks Qh Jd 9c 2s 4d Tc 3c Kc", 72 - 4, laid="4h")


def test_layoff_extends_a_run_at_the_high_end():
    # knocker: 5-6-7♥            defender lays off 8♥
    assert_layoff(["5h 6h 7h"], "8h Ks Qh Jd 9c 2s 4d Tc 3c Kc", 76 - 8, laid="8h")


def test_layoff_chain_eight_then_nine_on_five_six_seven():
    # knocker: 5-6-7♥            defender lays off 8♥, then 9♥ on the lengthened run
    assert_layoff(["5h 6h 7h"], "8h 9h Ks Qd Jd 2s 4d Tc 3c Kc", 76 - 17, laid="8h 9h")


def test_layoff_chain_at_the_low_end():
    # knocker: 5-6-7♥            defender lays off 4♥, then 3♥
    assert_layoff(["5h 6h 7h"], "4h 3h Ks Qd Jd 2s 4d Tc 8c Kc", 71 - 7, laid="4h 3h")


def test_no_layoff_onto_a_four_set():
    # knocker: 7♠7♥7♦7♣ (complete) defender's 6♠ 8♠ fit no set
    assert_layoff(["7s 7h 7d 7c"], "6s 8s Ks Qh Jd 9c 2s 4d Th 3c", 72, laid="")


def test_no_run_layoff_onto_a_set():
    # knocker: 7♠7♥7♦            6♠ and 8♠ are not layable on a set
    assert_layoff(["7s 7h 7d"], "6s 8s Ks Qh Jd 9c 2s 4d Th 3c", 72, laid="")


def test_no_layoff_around_the_corner():
    # knocker: J-Q-K♠ does not take A♠; A-2-3♠ does not take K♠
    assert_layoff(["Js Qs Ks"], "As Th 8h Jd 9c 2s 4d 3c 5c Kh", 62, laid="")
    assert_layoff(["As 2s 3s"], "Ks Th 8h Jd 9c 5s 4d 3c 5c Kh", 74, laid="")


def test_layoff_card_fitting_a_set_and_a_run_goes_where_it_opens_a_chain():
    # knocker: 7♠7♥7♦ and 4-5-6♣ defender: 7♣ 8♣ -> 7♣ on the run, then 8♣
    assert_layoff(["7s 7h 7d", "4c 5c 6c"], "7c 8c Ks Qh Jd 2s 4d Th 3d Kh", 74 - 15,
                  laid="7c 8c")


def test_layoff_defender_breaks_own_meld_when_that_leaves_less():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠         K K K D D                knocker K: 4-5-6♠ and 4-5-6♥
    # ♥         K K K D D                defender D: 7♠7♥7♦ set, 8♠ 8♥ (+ filler 35)
    # ♦               D
    # keeping the set leaves 8♠+8♥ = 16; breaking it lays off 7♠ 8♠ and 7♥ 8♥,
    # leaving only 7♦ = 7.
    defender = "7s 7h 7d 8s 8h Kc Qd Jc 2c 3d"
    assert o.oracle_min_deadwood(C(defender)) == 35 + 16
    assert_layoff(["4s 5s 6s", "4h 5h 6h"], defender, 35 + 7, laid="7s 8s 7h 8h")


def test_layoff_defender_takes_a_card_from_its_four_set():
    # knocker: 3-4-5♥       defender: 6♠6♥6♦6♣ 7♥ (+ filler 41): keep 6♠6♦6♣ and lay
    # off 6♥ then 7♥ -> 41 (keeping the 4-set would leave 7♥: 48)
    assert_layoff(["3h 4h 5h"], "6s 6h 6d 6c 7h Kc Qd Jc 2c 9d", 41, laid="6h 7h")


def test_layoff_defender_keeps_own_meld_when_breaking_leaves_more():
    # knocker: 4-5-6♥       defender: 7♠7♥7♦ set + 8♥ (+ filler 44).  Breaking the set
    # to lay off 7♥ 8♥ would leave 7♠7♦ = 14 > 8: keep the set, lay off nothing.
    assert_layoff(["4h 5h 6h"], "7s 7h 7d 8h Kc Qd Jc 2c 3d 9s", 44 + 8, laid="")


# --------------------------------------------------------------------------- knocker's choice
def test_knocker_arrangement_sets_instead_of_runs_to_deny_layoffs():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠           D K K K
    # ♥             K K K D                 knocker K: three runs or three sets (+A♣)
    # ♦             K K K D                 runs expose 6♠ T♥ T♦ (26 points)
    # ♣   K         D                       sets expose 7♣ (7 points)
    knocker = "7s 8s 9s 7h 8h 9h 7d 8d 9d Ac"
    defender = "6s Th Td 7c 2c 4d Qs Kh Jc 3s"  # 72 points, no melds
    arr = knocker_arrangement(knocker, defender)
    assert arr.deadwood == 1 and tuple(arr.unmatched) == tuple(C("Ac"))
    assert all(o.is_set(tuple(m)) for m in arr.melds), arr
    assert layoff(arr.melds, defender).deadwood == 72 - 7
    assert o.oracle_knocker_choice_value(C(knocker), C(defender)) == 72 - 7


def test_knocker_arrangement_runs_instead_of_sets_to_deny_layoffs():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠             K K K               same knocker; now the defender holds 7♣ and 9♣,
    # ♥             K K K               which the sets would take (16 points) and the
    # ♦             K K K               runs would not: the knocker shows runs
    # ♣   K         D   D
    knocker = "7s 8s 9s 7h 8h 9h 7d 8d 9d Ac"
    defender = "7c 9c Ks Qd Jh 2c 4d 3s 5c Kh"  # 70 points, no melds
    arr = knocker_arrangement(knocker, defender)
    assert arr.deadwood == 1
    assert all(o.is_run(tuple(m)) for m in arr.melds), arr
    assert layoff(arr.melds, defender).deadwood == 70
    assert o.oracle_knocker_choice_value(C(knocker), C(defender)) == 70


def test_knocker_arrangement_chooses_among_equal_deadwood_arrangements():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠     K                               A-2-3♥ leaves 2♠2♦ = 4, and exposes 4♥ 5♥
    # ♥   K K K D D                         2♠2♥2♦ leaves A♥3♥ = 4, and exposes 2♣
    # ♦     K                               knocker keeps the set: defender lays off 2
    # ♣     D       K K K K K
    knocker = "Ah 2h 3h 2s 2d 7c 8c 9c Tc Jc"
    defender = "4h 5h 2c Ks Qd Js 9d 8s 3c 6d"  # 67 points, no melds
    arr = knocker_arrangement(knocker, defender)
    assert arr.deadwood == 4
    assert sorted(arr.unmatched) == sorted(C("Ah 3h")), arr
    assert layoff(arr.melds, defender).deadwood == 67 - 2
    assert o.oracle_knocker_choice_value(C(knocker), C(defender)) == 67 - 2


# --------------------------------------------------------------------------- scoring
def _rules(undercut_on_tie=True):
    # distinct bonuses, so the points show which bonus applied
    return SimpleNamespace(gin_bonus=25, big_gin_bonus=6, undercut_bonus=13,
                           undercut_on_tie=undercut_on_tie)


def _score(k, d, gin=False, big_gin=False, tie=True):
    got = tuple(score_hand(k, d, gin=gin, big_gin=big_gin, rules=_rules(tie)))
    assert got == o.oracle_score(k, d, gin=gin, big_gin=big_gin, rules=_rules(tie))
    return got


def test_score_knock_win_is_the_difference():
    assert _score(5, 30) == ("knocker", 25, False)
    assert score_hand(5, 30, gin=False, big_gin=False, rules=_rules()).winner == "knocker"


def test_score_gin_is_gin_bonus_plus_defender_deadwood():
    assert _score(0, 17, gin=True) == ("knocker", 25 + 17, False)


def test_score_gin_with_defender_at_zero_is_never_undercut():
    assert _score(0, 0, gin=True) == ("knocker", 25, False)
    assert _score(0, 0, gin=True, tie=False) == ("knocker", 25, False)


def test_score_big_gin_adds_big_gin_bonus_on_top_of_gin_bonus():
    assert _score(0, 17, gin=True, big_gin=True) == ("knocker", 25 + 6 + 17, False)


def test_score_undercut_when_defender_has_less():
    assert _score(8, 3) == ("defender", 5 + 13, True)


def test_score_tie_is_undercut_when_undercut_on_tie():
    assert _score(7, 7, tie=True) == ("defender", 13, True)


def test_score_tie_scores_nothing_without_undercut_on_tie():
    assert _score(7, 7, tie=False) == (None, 0, False)
    # and a strict undercut is still an undercut
    assert _score(8, 3, tie=False) == ("defender", 5 + 13, True)


# --------------------------------------------------------------------------- parsing
def test_parse_ten_as_10_or_T():
    assert parse_cards("10d") == parse_cards("Td") == (2 * 16 + 9,)
    assert parse_cards("10♦") == (2 * 16 + 9,)


def test_parse_encoding_suit_times_16_plus_rank():
    assert parse_cards("As Kh 2d Qc") == (0, 16 + 12, 32 + 1, 48 + 11)


def test_parse_is_case_insensitive():
    want = (0, 16 + 12, 2 * 16 + 9)
    for text in ("As Kh Td", "as kh td", "AS KH TD", "aS kH tD", "as KH 10D"):
        assert parse_cards(text) == want, text


def test_parse_suit_symbols():
    assert parse_cards("A♠ 2♥ 3♦ 4♣") == parse_cards("As 2h 3d 4c") == (0, 17, 34, 51)


def test_parse_keeps_order():
    assert parse_cards("Kc As 7d") == (3 * 16 + 12, 0, 2 * 16 + 6)


@pytest.mark.parametrize("text, token", [
    ("As Xs 3s", "Xs"),     # unknown rank
    ("As 1s", "1s"),        # unknown rank
    ("As 2z", "2z"),        # unknown suit
    ("As 11h", "11h"),      # unknown rank
    ("As 2s As", "As"),     # duplicate card
    ("10d Td", "Td"),       # duplicate written differently
])
def test_parse_rejects_bad_cards_naming_the_token(text, token):
    with pytest.raises(ValueError) as err:
        parse_cards(text)
    assert token in str(err.value), str(err.value)


def test_format_cards():
    assert format_cards(parse_cards("as 2S 3s 10d kH")) == "As 2s 3s Td Kh"
    assert format_cards((0, 17, 34, 51)) == "As 2h 3d 4c"
    assert format_cards(parse_cards("Kc As 7d")) == "Kc As 7d"  # order kept


def test_format_parse_round_trip_whole_deck():
    deck = o.ALL_CODES[::-1]
    text = format_cards(deck)
    assert text == " ".join(o.names(deck).split())
    assert parse_cards(text) == deck
    assert format_cards(parse_cards(text)) == text


# --------------------------------------------------------------------------- extremes
def test_worst_ten_card_deadwood_is_98():
    #     A 2 3 4 5 6 7 8 9 T J Q K
    # ♠                 x   x   x       two each of K Q J T 9, no three in a row in a
    # ♥                 x   x   x       suit: nothing melds, 8 x 10 + 2 x 9 = 98
    # ♦                   x   x
    # ♣                   x   x
    hand = "Ks Kh Qd Qc Js Jh Td Tc 9s 9h"
    assert not o.all_melds(C(hand))
    assert_deadwood(hand, 98)
    # No 10-card hand has more.  Deadwood >= 99 needs total value >= 99, i.e. at least
    # nine 10-point cards (T J Q K, 16 in the deck).  Nine cards over four ranks always
    # include three of one rank: a set, whose removal leaves <= 100 - 30 = 70.
    ten_pointers = [c for c in o.ALL_CODES if o.VALUE[c] == 10]
    assert len(ten_pointers) == 16
    for nine in itertools.combinations(ten_pointers, 9):
        ranks = [o.rank_of(c) for c in nine]
        assert max(ranks.count(r) for r in set(ranks)) >= 3
    # and the oracle agrees on a sample of the candidate hands (nine 10-pointers + any)
    for i, nine in enumerate(itertools.combinations(ten_pointers, 9)):
        if i % 97 == 0:
            rest = [c for c in o.ALL_CODES if c not in nine]
            hand = nine + (rest[i % len(rest)],)
            assert o.oracle_min_deadwood(hand) <= 70
            assert min_deadwood(hand) <= 70


def test_full_deck_has_329_melds():
    runs, sets = o.count_melds_full_deck()
    # runs per suit: 11 of length 3, 10 of length 4, ..., 1 of length 13 = 66; x4 suits
    assert runs == 4 * sum(range(1, 12)) == 264
    # sets per rank: four 3-card sets + one 4-card set = 5; x13 ranks
    assert sets == 13 * 5 == 65
    assert runs + sets == 329


def test_empty_and_tiny_hands():
    assert min_deadwood(()) == 0
    assert_deadwood("Kd", 10)
    assert_deadwood("As 2s", 3)
