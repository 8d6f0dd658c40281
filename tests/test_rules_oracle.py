"""Differential tests: the fast rules core in ``simulator`` against the brute-force
oracle in ``tests/oracle.py``, on hundreds of thousands of seeded random hands.

Hand families: uniform random hands, and meld-dense hands (few ranks x 4 suits, 1-2
suits, small rank x suit blocks) where sets, runs and shared cards pile up.  Every
failure message shows the hand with ``format_cards``.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

try:
    import simulator
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import simulator

import oracle as o
from oracle import VALUE

N_RANDOM = 200_000
N_DENSE = 50_000
MAX_REPORTED = 5  # failing hands listed per assertion


def fmt(codes) -> str:
    return simulator.format_cards(tuple(codes))


def check(failures: list[str], what: str) -> None:
    assert not failures, f"{what}: {len(failures)}+ disagreements, first ones:\n" + "\n".join(
        failures[:MAX_REPORTED])


# --------------------------------------------------------------------------- oracle self-checks
def test_oracle_meld_enumerators_agree():
    """The fast-ish meld lister of the oracle equals its literal version."""
    rng = random.Random(101)
    hands = o.random_hands(rng, 1000, 11) + o.dense_hands(rng, 2000, 11)
    hands += o.dense_hands(rng, 500, 16) + [o.ALL_CODES]
    for hand in hands:
        assert sorted(o.all_melds(hand)) == sorted(o.all_melds_naive(hand)), o.names(hand)


def test_oracle_discard_table_equals_naive_loop():
    """The single-enumeration discard table equals brute-forcing each of the 11 discards."""
    rng = random.Random(102)
    for hand in o.random_hands(rng, 1000, 11) + o.dense_hands(rng, 1500, 11):
        assert o.oracle_discard_table(hand) == o.oracle_discard_table_naive(hand), o.names(hand)


def test_oracle_min_deadwood_equals_literal_arrangement_minimum():
    """oracle_min_deadwood (dedup by melded cards) equals the min over every arrangement."""
    rng = random.Random(103)
    for hand in o.random_hands(rng, 500, 10) + o.dense_hands(rng, 1000, 10):
        literal = min(dw for _m, _u, dw in o.arrangements(hand))
        assert o.oracle_min_deadwood(hand) == literal, o.names(hand)


# --------------------------------------------------------------------------- deadwood
def _discards_and_deadwood(hands: list[tuple[int, ...]]) -> list[str]:
    failures: list[str] = []
    for i, hand in enumerate(hands):
        table = o.oracle_discard_table(hand)
        best = min(table.values())
        expected = (best, tuple(sorted(c for c, dw in table.items() if dw == best)))
        got = simulator.optimal_discards(hand)
        if (got[0], tuple(got[1])) != expected:
            failures.append(f"optimal_discards({fmt(hand)}): fast {got[0]}, {fmt(got[1])}; "
                            f"oracle {expected[0]}, {fmt(expected[1])}")
        # min_deadwood of a 10-card hand: the 11-card hand without one of its cards
        dropped = hand[i % 11]
        ten = tuple(c for c in hand if c != dropped)
        got_dw = simulator.min_deadwood(ten)
        if got_dw != table[dropped]:
            failures.append(f"min_deadwood({fmt(ten)}): fast {got_dw}, oracle {table[dropped]}")
        if len(failures) >= MAX_REPORTED:
            break
    return failures


def test_optimal_discards_and_min_deadwood_random_hands():
    hands = o.random_hands(random.Random(1), N_RANDOM, 11)
    check(_discards_and_deadwood(hands), f"{N_RANDOM} uniform 11-card hands")


def test_optimal_discards_and_min_deadwood_meld_dense_hands():
    hands = o.dense_hands(random.Random(2), N_DENSE, 11)
    check(_discards_and_deadwood(hands), f"{N_DENSE} meld-dense 11-card hands")


def test_min_deadwood_every_hand_size():
    """0..11 cards, uniform and meld-dense."""
    rng = random.Random(3)
    failures = []
    for i in range(20_000):
        size = i % 12
        hand = (o.random_hands(rng, 1, size)[0] if i % 2 else
                o.DENSE_GENERATORS[i % 3](rng, size))
        got, want = simulator.min_deadwood(hand), o.oracle_min_deadwood(hand)
        if got != want:
            failures.append(f"min_deadwood({fmt(hand)}): fast {got}, oracle {want}")
    check(failures, "min_deadwood on 0..11 cards")


def test_unmeldable_value_is_the_value_of_cards_in_no_meld():
    """``unmeldable_value_nb`` (the engine's lower bound of the deadwood after a discard)
    is the value of the cards the oracle finds in no meld, and never above the least
    deadwood, on uniform and meld-dense hands of 10 and 11 cards."""
    import numpy as np

    from simulator.core.melds import unmeldable_value_nb

    rng = random.Random(6)
    failures = []
    for size in (10, 11):
        for hand in o.random_hands(rng, 3000, size) + o.dense_hands(rng, 3000, size):
            melded = {c for meld in o.all_melds(hand) for c in meld}
            want = sum(VALUE[c] for c in hand if c not in melded)
            got = int(unmeldable_value_nb(np.int64(sum(1 << c for c in hand))))
            if got != want or got > o.oracle_min_deadwood(hand):
                failures.append(f"unmeldable_value({fmt(hand)}): fast {got}, oracle {want}")
    check(failures, "unmeldable value of 10- and 11-card hands")


def test_optimal_discards_with_forbidden_card():
    rng = random.Random(4)
    hands = o.random_hands(rng, 10_000, 11) + o.dense_hands(rng, 10_000, 11)
    failures = []
    for hand in hands:
        forbidden = rng.choice(hand)
        want = o.oracle_discards(hand, forbidden)
        got = simulator.optimal_discards(hand, forbidden=forbidden)
        if (got[0], tuple(got[1])) != want:
            failures.append(f"optimal_discards({fmt(hand)}, forbidden={fmt([forbidden])}): "
                            f"fast {got[0]}, {fmt(got[1])}; oracle {want[0]}, {fmt(want[1])}")
    check(failures, "optimal_discards with a forbidden card")


def test_best_discard_tie_break():
    """Among optimal discards: highest value, then highest rank, then highest suit index."""
    rng = random.Random(5)
    hands = o.random_hands(rng, 10_000, 11) + o.dense_hands(rng, 10_000, 11)
    failures = []
    for i, hand in enumerate(hands):
        forbidden = rng.choice(hand) if i % 3 == 0 else None
        want = o.oracle_best_discard(hand, forbidden)
        got = simulator.best_discard(hand, forbidden=forbidden)
        if (got.card, got.deadwood) != want:
            failures.append(f"best_discard({fmt(hand)}, forbidden={forbidden}): fast "
                            f"{fmt([got.card])} dw {got.deadwood}; oracle {fmt([want[0]])} dw {want[1]}")
    check(failures, "best_discard")


# --------------------------------------------------------------------------- arrangements
def _arrangement_problems(cards: tuple[int, ...], arr, want_dw: int) -> str | None:
    """Why `arr` is not a valid least-deadwood arrangement of `cards` (None if it is)."""
    melds = [tuple(m) for m in arr.melds]
    for m in melds:
        if not o.is_meld(m):
            return f"not a meld: {fmt(m)}"
    used = [c for m in melds for c in m] + list(arr.unmatched)
    if sorted(used) != sorted(cards):
        return f"melds + unmatched ({fmt(used)}) are not the cards"
    if arr.deadwood != sum(VALUE[c] for c in arr.unmatched):
        return f"deadwood {arr.deadwood} != value of unmatched {fmt(arr.unmatched)}"
    if arr.deadwood != want_dw:
        return f"deadwood {arr.deadwood}, oracle least deadwood {want_dw}"
    return None


def test_best_arrangement_is_valid_and_least():
    rng = random.Random(6)
    hands = (o.random_hands(rng, 6_000, 10) + o.dense_hands(rng, 6_000, 10)
             + o.random_hands(rng, 3_000, 11) + o.dense_hands(rng, 3_000, 11)
             + [o.random_hands(rng, 1, i % 12)[0] for i in range(1_000)]
             + [o.DENSE_GENERATORS[i % 3](rng, i % 12) for i in range(1_000)])
    failures = []
    for hand in hands:
        arr = simulator.best_arrangement(hand)
        why = _arrangement_problems(hand, arr, o.oracle_min_deadwood(hand))
        if why:
            failures.append(f"best_arrangement({fmt(hand)}) -> {arr}: {why}")
    check(failures, "best_arrangement")


def test_is_big_gin():
    rng = random.Random(7)
    hands = ([o.melded_hand(rng, 11, 11) for _ in range(3_000)]      # all big gin
             + [o.melded_hand(rng, 11, 10) for _ in range(2_000)]    # gin after a discard
             + o.dense_hands(rng, 10_000, 11) + o.random_hands(rng, 5_000, 11))
    failures = []
    n_big = 0
    for hand in hands:
        want = o.oracle_is_big_gin(hand)
        n_big += want
        got = simulator.is_big_gin(hand)
        if got != want:
            failures.append(f"is_big_gin({fmt(hand)}): fast {got}, oracle {want}")
    check(failures, "is_big_gin")
    assert n_big >= 3_000


# --------------------------------------------------------------------------- layoffs
def _layoff_problems(knocker_melds, defender, result, want_dw: int) -> str | None:
    laid = tuple(result.laid_off)
    if result.deadwood != want_dw:
        return f"deadwood {result.deadwood}, oracle {want_dw}"
    if len(set(laid)) != len(laid) or not set(laid) <= set(defender):
        return f"laid off {fmt(laid)} are not distinct defender cards"
    if not o.oracle_can_lay_all(knocker_melds, laid):
        return f"{fmt(laid)} cannot all be laid off on these melds"
    if result.layoff_points != sum(VALUE[c] for c in laid):
        return f"layoff_points {result.layoff_points} != value of {fmt(laid)}"
    rest = [c for c in defender if c not in laid]
    if o.oracle_min_deadwood(rest) != result.deadwood:
        return (f"deadwood {result.deadwood} inconsistent: the cards kept ({fmt(rest)}) have "
                f"least deadwood {o.oracle_min_deadwood(rest)}")
    return None


def _layoff_cases(dense: bool, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    failures = []
    for i in range(n):
        knocker, defender = o.knock_deal(rng, dense)
        if i % 4 == 3:
            # any least-deadwood arrangement (e.g. a split run, a 3-subset of a 4-set)
            melds = rng.choice(o.oracle_knocker_arrangements(knocker))[0]
        else:
            melds = simulator.best_arrangement(knocker).melds
        melds = [tuple(m) for m in melds]
        arg = [fmt(m) for m in melds] if i % 10 == 0 else melds  # strings accepted too
        result = simulator.layoff(arg, defender)
        why = _layoff_problems(melds, defender, result, o.oracle_layoff_deadwood(melds, defender))
        if why:
            failures.append(f"layoff(knocker melds {[fmt(m) for m in melds]}, defender "
                            f"{fmt(defender)}) -> {tuple(result)}: {why}")
            if len(failures) >= MAX_REPORTED:
                break
    return failures


def test_layoff_random_deals():
    check(_layoff_cases(dense=False, n=10_000, seed=8), "layoff, random deals")


def test_layoff_meld_dense_deals():
    check(_layoff_cases(dense=True, n=10_000, seed=9), "layoff, meld-dense deals")


def test_knocker_arrangement_denies_layoffs():
    rng = random.Random(10)
    failures = []
    n_choice_matters = 0
    for i in range(2_000):
        if i % 2:  # the knocker's least-deadwood arrangements expose different cards
            knocker, defender = o.ambiguous_knock_deal(rng)
        else:
            knocker, defender = o.knock_deal(rng, dense=i % 4 == 0)
        arr = simulator.knocker_arrangement(knocker, defender)
        why = _arrangement_problems(knocker, arr, o.oracle_min_deadwood(knocker))
        values = {o.oracle_layoff_deadwood(m, defender)
                  for m, _u, _d in o.oracle_knocker_arrangements(knocker)}
        n_choice_matters += len(values) > 1
        if why is None:
            got = o.oracle_layoff_deadwood(arr.melds, defender)
            if got != max(values):
                why = (f"leaves the defender {got} after layoffs; best knocker choice leaves "
                       f"{max(values)} (possible: {sorted(values)})")
        if why:
            failures.append(f"knocker_arrangement({fmt(knocker)}, defender {fmt(defender)}) "
                            f"-> {arr}: {why}")
    check(failures, "knocker_arrangement")
    assert n_choice_matters >= 500, f"only {n_choice_matters} deals where the choice matters"


# --------------------------------------------------------------------------- scoring
def test_score_hand_all_branches_vs_oracle():
    class R:  # distinct bonuses, so the points show which one applied
        def __init__(self, tie):
            self.gin_bonus, self.big_gin_bonus, self.undercut_bonus = 23, 7, 13
            self.undercut_on_tie = tie

    failures = []
    for tie in (True, False):
        rules = R(tie)
        for k in range(0, 31):
            for d in range(0, 99):
                for gin, big in ((False, False), (True, False), (True, True)):
                    if gin != (k == 0):  # gin is knocking with 0 deadwood
                        continue
                    want = o.oracle_score(k, d, gin=gin, big_gin=big, rules=rules)
                    got = simulator.score_hand(k, d, gin=gin, big_gin=big, rules=rules)
                    if tuple(got) != want:
                        failures.append(f"score_hand({k}, {d}, gin={gin}, big_gin={big}, "
                                        f"tie={tie}): fast {tuple(got)}, oracle {want}")
    check(failures, "score_hand")
