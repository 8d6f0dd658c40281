"""Melds, deadwood, best discard, layoffs: the exact rules core, compiled with numba.

Rules implemented here (docs/rules.md#melds-and-deadwood and #laying-out-and-laying-off):

* a *set* is 3 or 4 cards of one rank, a *run* 3 or more consecutive ranks of one suit
  (ace low only), a card belongs to at most one meld, and a hand's deadwood is the value of
  the cards left unmatched by the arrangement that makes it smallest;
* after drawing, the deadwood that matters is the least over all 11 possible discards;
* after a knock the defender arranges its own melds and lays off unmatched cards on the
  knocker's melds (4th card on a set of 3, run extensions at either end, chains included):
  ``layoff_after_melds_nb`` for melds the defender chose, ``layoff_solution_nb`` for the
  best response (whatever leaves the least deadwood, breaking its own melds if that helps).

How it is exact and fast.  Runs live inside one suit and sets take at most one card from
each suit, so an arrangement is (1) a choice of sets and (2), independently in each suit,
a choice of runs among the cards the sets left.  Ranks that can form a set are at most three
in an 11-card hand (3 + 4 + 4 = 11), with two choices for a rank held three times (set or
not) and six for a rank held four times (no set, the 4-set, or one of its four 3-subsets).
For part (2) a table over all 8,192 subsets of one suit gives the least runs-only deadwood
(``SUIT_RUN_DEADWOOD``): the cards of one suit can be covered exactly by runs if and only if
every block of consecutive ranks among them is at least three long, so the table is a
small dynamic programme.  The least deadwood of a hand is then the minimum, over the few
set choices, of four table look-ups.  The deadwood after each discard follows from the same
set choices by replacing one suit's look-up, so all 11 discards cost about 15 look-ups per
set choice: no search, no allocation.

Every ``*_nb`` function is a numba kernel taking hand masks (see ``simulator.core.cards``);
the public Python functions with readable arguments live in ``simulator.core.rules_api``.
"""

from __future__ import annotations

import numpy as np

from .bits import ctpop_u64, cttz_u64
from .cards import CARD_VALUE, N_RANKS, RANK_MASK, SUIT_SHIFT
from ..infra.jit import ALLOCATES, CORE

SUIT_SUBSETS = 1 << N_RANKS  # 8192 subsets of one suit


def _build_suit_tables() -> tuple[np.ndarray, np.ndarray]:
    """Value sum and least runs-only deadwood of every subset of one suit (13-bit mask)."""
    rank_value = np.array([min(r + 1, 10) for r in range(N_RANKS)], dtype=np.int64)
    value = np.zeros(SUIT_SUBSETS, dtype=np.int16)
    run_deadwood = np.zeros(SUIT_SUBSETS, dtype=np.int16)
    for m in range(1, SUIT_SUBSETS):
        low = (m & -m).bit_length() - 1
        value[m] = value[m & (m - 1)] + rank_value[low]
        # the lowest card is either unmatched or the first card of a run low..low+k-1
        best = rank_value[low] + run_deadwood[m & (m - 1)]
        run = 0
        for top in range(low, N_RANKS):
            if not m >> top & 1:
                break
            run |= 1 << top
            if top - low >= 2:
                best = min(best, run_deadwood[m & ~run])
        run_deadwood[m] = best
    return value, run_deadwood


#: value (sum of deadwood points) of each subset of one suit
SUIT_VALUE, SUIT_RUN_DEADWOOD = _build_suit_tables()


def _build_removal_tables() -> tuple[np.ndarray, np.ndarray]:
    """For each subset of one suit: the least runs-only deadwood left after removing one of
    its cards, and the 13-bit mask of the cards whose removal achieves it."""
    masks = np.arange(SUIT_SUBSETS)
    best = np.full(SUIT_SUBSETS, 1 << 14, dtype=np.int64)
    which = np.zeros(SUIT_SUBSETS, dtype=np.int64)
    for r in range(N_RANKS):
        has = (masks >> r) & 1 == 1
        dw = np.where(has, SUIT_RUN_DEADWOOD[masks & ~(1 << r)], 1 << 14)
        better = dw < best
        which = np.where(better, 1 << r, np.where((dw == best) & has, which | (1 << r), which))
        best = np.minimum(best, dw)
    return best.astype(np.int16), which.astype(np.int16)


#: least runs-only deadwood after removing one card of a suit subset, and which cards
SUIT_REMOVAL_DEADWOOD, SUIT_REMOVAL_CARDS = _build_removal_tables()

_SUIT_MASK = RANK_MASK


@CORE
def lowest_card_nb(mask):
    """Code of the lowest card in a hand mask (count of trailing zeros; 0 for an empty mask)."""
    return cttz_u64(np.uint64(mask)) & 63


@CORE
def popcount_nb(mask):
    """Number of cards in a hand mask."""
    return ctpop_u64(np.uint64(mask))


@CORE
def suit_slot_nb(mask, suit):
    return (mask >> (SUIT_SHIFT * suit)) & _SUIT_MASK


@CORE
def hand_value_nb(mask):
    """Sum of the deadwood values of every card in the mask."""
    return np.int64(
        SUIT_VALUE[mask & _SUIT_MASK]
        + SUIT_VALUE[(mask >> 16) & _SUIT_MASK]
        + SUIT_VALUE[(mask >> 32) & _SUIT_MASK]
        + SUIT_VALUE[(mask >> 48) & _SUIT_MASK]
    )


@CORE
def runs_deadwood_nb(mask):
    """Least deadwood of a hand using runs only (each suit by table look-up)."""
    return np.int64(
        SUIT_RUN_DEADWOOD[mask & _SUIT_MASK]
        + SUIT_RUN_DEADWOOD[(mask >> 16) & _SUIT_MASK]
        + SUIT_RUN_DEADWOOD[(mask >> 32) & _SUIT_MASK]
        + SUIT_RUN_DEADWOOD[(mask >> 48) & _SUIT_MASK]
    )


@CORE
def run_cover_nb(mask):
    """The cards of ``mask`` that lie in a block of at least three consecutive ranks of a suit.

    Exactly these cards can be melded by runs alone; the 16-bit suit slots keep shifts from
    crossing suits.
    """
    starts = mask & (mask >> 1) & (mask >> 2)
    return starts | (starts << 1) | (starts << 2)


@CORE
def set_ranks_nb(mask):
    """(ranks held in at least three suits, ranks held in all four) as 13-bit rank masks."""
    a = mask & _SUIT_MASK
    b = (mask >> 16) & _SUIT_MASK
    c = (mask >> 32) & _SUIT_MASK
    d = (mask >> 48) & _SUIT_MASK
    three = (a & b & (c | d)) | (c & d & (a | b))
    four = a & b & c & d
    return three, four


@CORE
def rank_cards_nb(rank):
    """Mask of the four cards of one rank."""
    return np.int64(0x0001000100010001) << rank


@CORE
def set_option_nb(mask, rank, option):
    """Cards melded as a set of ``rank`` under ``option``.

    Option 0: no set; 1: every card of the rank held (a 3- or 4-set); 2..5: the 4-set less
    the card of suit ``option - 2`` (a 3-subset, only for a rank held four times).
    """
    held = mask & rank_cards_nb(rank)
    if option == 0:
        return np.int64(0)
    if option == 1:
        return held
    return held & ~(np.int64(1) << (SUIT_SHIFT * (option - 2) + rank))


@CORE
def set_choices_nb(mask):
    """The set-forming ranks of a hand and how many set options each has.

    Returns (r0, r1, r2, n0, n1, n2): up to three ranks (-1 when absent) and their option
    counts (1 when absent, 2 for a rank held three times, 6 for one held four times).
    Choice ``(i0, i1, i2)`` melds ``set_option_nb(mask, r_k, i_k)`` for each k.  Hands of
    more than 11 cards can hold more set ranks; they are not supported.
    """
    three, four = set_ranks_nb(mask)
    r0 = np.int64(-1)
    r1 = np.int64(-1)
    r2 = np.int64(-1)
    n0 = np.int64(1)
    n1 = np.int64(1)
    n2 = np.int64(1)
    k = 0
    while three:
        rank = lowest_card_nb(three)
        three &= three - 1
        n = np.int64(6) if (four >> rank) & 1 else np.int64(2)
        if k == 0:
            r0, n0 = rank, n
        elif k == 1:
            r1, n1 = rank, n
        else:
            r2, n2 = rank, n
        k += 1
    return r0, r1, r2, n0, n1, n2


@CORE
def sets_melded_nb(mask, r0, r1, r2, i0, i1, i2):
    melded = np.int64(0)
    if r0 >= 0:
        melded |= set_option_nb(mask, r0, i0)
    if r1 >= 0:
        melded |= set_option_nb(mask, r1, i1)
    if r2 >= 0:
        melded |= set_option_nb(mask, r2, i2)
    return melded


@CORE.python_entry
def min_deadwood_nb(mask):
    """Least deadwood of exactly the cards in ``mask`` (at most 11 cards)."""
    r0, r1, r2, n0, n1, n2 = set_choices_nb(mask)
    best = runs_deadwood_nb(mask)  # the choice "no sets"
    if r0 < 0:
        return best
    for i0 in range(n0):
        for i1 in range(n1):
            for i2 in range(n2):
                left = mask & ~sets_melded_nb(mask, r0, r1, r2, i0, i1, i2)
                dw = runs_deadwood_nb(left)
                if dw < best:
                    best = dw
    return best


@CORE
def unmeldable_value_nb(mask):
    """The value of the cards of ``mask`` that no meld can hold: in no block of three or
    more consecutive cards of a suit and of a rank held fewer than three times.  Every
    arrangement leaves them as deadwood, so this is a lower bound of ``min_deadwood_nb``
    (a few bit operations against its search of set choices)."""
    three, _ = set_ranks_nb(mask)
    in_sets = mask & (three * np.int64(0x0001000100010001))  # each such rank in every suit
    return hand_value_nb(mask & ~(run_cover_nb(mask) | in_sets))


@CORE.python_entry
def discard_deadwoods_nb(mask, allowed):
    """Least deadwood after discarding, over the allowed discards of an 11-card hand.

    ``allowed`` is the mask of cards that may be discarded (the hand less the card just
    taken from the pile, say).  Returns ``(deadwood, optimal)``: the least deadwood of the
    ten cards kept and the mask of every allowed discard that achieves it.  Exact: for each
    set choice, a card not melded in a set can be discarded and its suit is looked up
    again (one look-up per suit in a table of best single removals, unless a card of the
    suit is held back); a card melded in a set is covered by the choices that leave it out
    of every set.
    """
    allowed &= mask
    best = np.int64(1 << 30)
    optimal = np.int64(0)
    r0, r1, r2, n0, n1, n2 = set_choices_nb(mask)
    for i0 in range(n0):
        for i1 in range(n1):
            for i2 in range(n2):
                left = mask & ~sets_melded_nb(mask, r0, r1, r2, i0, i1, i2)
                total = runs_deadwood_nb(left)
                for suit in range(4):
                    shift = SUIT_SHIFT * suit
                    slot = (left >> shift) & _SUIT_MASK
                    movable = (allowed >> shift) & slot
                    if movable == 0:
                        continue
                    base = total - SUIT_RUN_DEADWOOD[slot]
                    if movable == slot:  # every card of the suit may go: one table look-up
                        dw = base + SUIT_REMOVAL_DEADWOOD[slot]
                        cards = np.int64(SUIT_REMOVAL_CARDS[slot]) << shift
                    else:  # some card is held back (the one just taken): try each other card
                        dw = np.int64(1 << 30)
                        cards = np.int64(0)
                        while movable:
                            rank = lowest_card_nb(movable)
                            movable &= movable - 1
                            d = base + SUIT_RUN_DEADWOOD[slot & ~(1 << rank)]
                            if d < dw:
                                dw = d
                                cards = np.int64(1) << (rank + shift)
                            elif d == dw:
                                cards |= np.int64(1) << (rank + shift)
                    if dw < best:
                        best = dw
                        optimal = cards
                    elif dw == best:
                        optimal |= cards
    return best, optimal


@CORE
def discard_key_nb(card):
    """Tie-break order among equally good discards: higher value, then rank, then suit."""
    return CARD_VALUE[card] * 1024 + (card & 15) * 4 + (card >> 4)


@CORE.python_entry
def preferred_discard_nb(optimal):
    """The card that ``best_discard`` picks among the optimal discards in a mask."""
    best_card = np.int64(-1)
    best_key = np.int64(-1)
    while optimal:
        card = lowest_card_nb(optimal)
        optimal &= optimal - 1
        key = discard_key_nb(card)
        if key > best_key:
            best_key = key
            best_card = card
    return best_card


@CORE
def best_discard_nb(mask, forbidden):
    """(card, deadwood): the discard of an 11-card hand leaving the least deadwood.

    Ties go to the highest-value card, then the highest rank, then the highest suit index
    (clubs > diamonds > hearts > spades).
    """
    allowed = mask
    if forbidden >= 0:
        allowed = mask & ~(np.int64(1) << forbidden)
    dw, optimal = discard_deadwoods_nb(mask, allowed)
    return preferred_discard_nb(optimal), dw


@CORE
def melds_with_card_nb(mask, card):
    """True when ``card`` would be part of some meld together with cards of ``mask``."""
    hand = mask | (np.int64(1) << card)
    rank = card & 15
    if popcount_nb(hand & rank_cards_nb(rank)) >= 3:
        return True
    return (run_cover_nb(hand) >> card) & 1 == 1


# ---------------------------------------------------------------------------
# Layoffs.  The knocker's melds are described by two masks: ``set_cards`` (cards melded in
# sets) and ``run_cards`` (cards melded in runs).  That is all layoffs depend on: a run's
# ends are where its blocks of consecutive cards end, and a knocker's set of three takes
# the fourth card of its rank.
# ---------------------------------------------------------------------------


@CORE
def set_layoff_targets_nb(set_cards):
    """Cards that can be laid off on the knocker's sets: the 4th card of each set of three."""
    targets = np.int64(0)
    three, four = set_ranks_nb(set_cards)
    three &= ~four
    while three:
        rank = lowest_card_nb(three)
        three &= three - 1
        targets |= rank_cards_nb(rank) & ~set_cards
    return targets


@CORE
def chain_layable_nb(unmatched, set_targets, run_cards):
    """Every card of ``unmatched`` the defender can lay off (set 4ths and run chains)."""
    reach = run_cards
    while True:
        grow = ((reach << 1) | (reach >> 1)) & unmatched & ~reach
        if grow == 0:
            break
        reach |= grow
    return (reach & unmatched) | (unmatched & set_targets)


@CORE
def suit_layoff_nb(slot, suit, set_targets, run_cards):
    """(least unmatched − laid-off value, laid-off slot, melded slot) of one suit's cards
    arranged as runs only.

    ``slot`` is the defender's 13-bit mask in ``suit`` after its sets are taken out.  Every
    unmatched subset whose complement splits into blocks of three or more is a legal runs
    arrangement; cards outside every 3-block are unmatched in all of them.
    """
    cover = run_cover_nb(slot)
    forced = slot & ~cover
    shift = SUIT_SHIFT * suit
    best = np.int64(1 << 30)
    best_laid = np.int64(0)
    best_melded = np.int64(0)
    sub = cover
    while True:
        unmatched = forced | sub
        melded = slot & ~unmatched
        if run_cover_nb(melded) == melded:
            laid = (chain_layable_nb(unmatched << shift, set_targets, run_cards) >> shift) & unmatched
            dw = np.int64(SUIT_VALUE[unmatched] - SUIT_VALUE[laid])
            if dw < best:
                best = dw
                best_laid = laid
                best_melded = melded
        if sub == 0:
            break
        sub = (sub - 1) & cover
    return best, best_laid, best_melded


@CORE
def layoff_solution_nb(defender, set_cards, run_cards):
    """(deadwood, laid-off mask, melded mask) of one optimal defender response.

    ``defender`` is the defender's 10-card mask, ``set_cards``/``run_cards`` the knocker's
    melds.  Exact: every set choice of the defender, and in each suit every runs
    arrangement, is considered (so breaking an own meld to lay off is found when it pays).
    """
    set_targets = set_layoff_targets_nb(set_cards)
    best = np.int64(1 << 30)
    best_laid = np.int64(0)
    best_melded = np.int64(0)
    r0, r1, r2, n0, n1, n2 = set_choices_nb(defender)
    for i0 in range(n0):
        for i1 in range(n1):
            for i2 in range(n2):
                sets = sets_melded_nb(defender, r0, r1, r2, i0, i1, i2)
                left = defender & ~sets
                total = np.int64(0)
                laid_all = np.int64(0)
                melded_all = sets
                for suit in range(4):
                    dw, laid, melded = suit_layoff_nb(suit_slot_nb(left, suit), suit, set_targets, run_cards)
                    total += dw
                    laid_all |= laid << (SUIT_SHIFT * suit)
                    melded_all |= melded << (SUIT_SHIFT * suit)
                if total < best:
                    best = total
                    best_laid = laid_all
                    best_melded = melded_all
    return best, best_laid, best_melded


@CORE
def layoff_after_melds_nb(defender, melded, set_cards, run_cards):
    """(deadwood, laid-off mask) when the defender melds the cards ``melded`` of its hand
    ``defender`` and lays off every other card that fits the knocker's melds
    (``set_cards``/``run_cards``): the 4th card of a set of three, run extensions at either
    end, chains included.  Laying off every card that fits is the most a defender keeping
    these melds can lay off (a card fitting both a set and a run end goes on the run, where
    it may carry a chain; the set could take no other card)."""
    unmatched = defender & ~melded
    laid = chain_layable_nb(unmatched, set_layoff_targets_nb(set_cards), run_cards)
    return hand_value_nb(unmatched) - hand_value_nb(laid), laid


@CORE
def layoff_deadwood_nb(defender, set_cards, run_cards):
    """The defender's least deadwood after arranging its melds and laying off."""
    return layoff_solution_nb(defender, set_cards, run_cards)[0]


# ---------------------------------------------------------------------------
# The knocker's arrangement.  Among the arrangements of least deadwood the knocker picks
# the one that suits it best against layoffs; what it may know decides the score used.
# ---------------------------------------------------------------------------

KNOCKER_VS_HAND = 0  # maximise the defender's deadwood after layoffs (defender hand known)
KNOCKER_VS_LIVE = 1  # minimise the value of the given cards that could be laid off
KNOCKER_RANDOM = 2  # a least-deadwood arrangement drawn at random (``target`` is the salt)


@CORE
def mix64_nb(x):
    """splitmix64's finaliser: a bijective scramble of a 64-bit integer."""
    z = np.uint64(x) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@ALLOCATES  # (it allocates its candidate table; stated, as callers without NRT pass that on)
def knocker_arrangement_nb(mask, target, objective):
    """(set_cards, run_cards, deadwood) of the knocker's preferred least-deadwood arrangement.

    ``objective`` KNOCKER_VS_HAND: ``target`` is the defender's hand and the arrangement
    leaving it the highest deadwood after layoffs wins.  KNOCKER_VS_LIVE: ``target`` holds
    the cards the defender might hold, and the arrangement exposing the least value of them
    to layoffs wins.  KNOCKER_RANDOM: each arrangement gets a pseudo-random score from its
    index and the salt ``target``, so the pick is uniform-ish and reproducible.  Ties keep the first arrangement found (set choices in order, then the
    fewest run cards in each suit), so the choice is deterministic.
    """
    dw_min = min_deadwood_nb(mask)
    best_score = np.int64(-(1 << 30))
    best_sets = np.int64(0)
    best_runs = np.int64(0)
    r0, r1, r2, n0, n1, n2 = set_choices_nb(mask)
    # per suit: the runs arrangements of least deadwood are the melded submasks of the suit
    # slot with least unmatched value; enumerate each suit's candidates into a small array
    cand = np.zeros((4, 64), np.int64)
    count = np.zeros(4, np.int64)
    for i0 in range(n0):
        for i1 in range(n1):
            for i2 in range(n2):
                sets = sets_melded_nb(mask, r0, r1, r2, i0, i1, i2)
                left = mask & ~sets
                if runs_deadwood_nb(left) != dw_min:
                    continue
                for suit in range(4):
                    slot = suit_slot_nb(left, suit)
                    target_dw = SUIT_RUN_DEADWOOD[slot]
                    count[suit] = 0
                    cover = run_cover_nb(slot)
                    sub = np.int64(0)
                    while True:  # submasks of cover in increasing order: melded cards
                        if run_cover_nb(sub) == sub and SUIT_VALUE[slot & ~sub] == target_dw:
                            if count[suit] < 64:
                                cand[suit, count[suit]] = sub << (SUIT_SHIFT * suit)
                                count[suit] += 1
                        if sub == cover:
                            break
                        sub = (sub - cover) & cover
                total = count[0] * count[1] * count[2] * count[3]
                for k in range(total):
                    runs = np.int64(0)
                    rest = k
                    for suit in range(4):
                        runs |= cand[suit, rest % count[suit]]
                        rest //= count[suit]
                    if objective == KNOCKER_VS_HAND:
                        score = layoff_deadwood_nb(target, sets, runs)
                    elif objective == KNOCKER_RANDOM:
                        score = np.int64(mix64_nb(np.uint64(target ^ (i0 * 64 + i1 * 8 + i2) ^ (k << 12))) >> np.uint64(2))
                    else:
                        laid = chain_layable_nb(target, set_layoff_targets_nb(sets), runs)
                        score = -hand_value_nb(laid)
                    if score > best_score:
                        best_score = score
                        best_sets = sets
                        best_runs = runs
    return best_sets, best_runs, dw_min


# ---------------------------------------------------------------------------
# Knocking and laying out: which discards allow a knock, what a valid layout is, and the
# canonical enumeration of the knocker's least-deadwood arrangements.
# ---------------------------------------------------------------------------


@CORE
def knockable_discards_nb(hand, allowed, limit):
    """The allowed discards of an 11-card hand after which deadwood ≤ ``limit``
    (docs/rules.md#end-of-the-stock: the only discards a last-discard taker may make)."""
    result = np.int64(0)
    rest = hand & allowed
    while rest:
        low = rest & -rest
        rest &= rest - 1
        if min_deadwood_nb(hand & ~low) <= limit:
            result |= low
    return result


@CORE
def valid_layout_nb(hand, sets, runs, deadwood):
    """True when ``sets`` are whole sets (3 or 4 cards of a rank) and ``runs`` whole runs
    (blocks of 3+ consecutive cards of a suit) of ``hand``, disjoint, and the cards left
    over are worth exactly ``deadwood`` (docs/rules.md#laying-out-and-laying-off).  With
    ``deadwood`` the hand's least deadwood, these are exactly the arrangements that
    ``arrangement_nb`` enumerates."""
    if (sets | runs) & ~hand or sets & runs:
        return False
    if run_cover_nb(runs) != runs:
        return False
    for rank in range(13):
        n = popcount_nb(sets & rank_cards_nb(rank))
        if n == 1 or n == 2:
            return False
    return hand_value_nb(hand & ~(sets | runs)) == deadwood


#: at most this many least-deadwood arrangements of a 10-card hand: set choices are at
#: most 6 x 6 (two ranks held four times) or 6 x 2 x 2, and each fixes the runs
MAX_ARRANGEMENTS = 36


@CORE.python_entry
def arrangement_nb(mask, k):
    """(sets, runs, count): the ``k``-th least-deadwood arrangement of a hand of at most
    11 cards in the canonical order, and how many there are (sets = runs = 0 when
    ``k`` is out of range; ``k`` -1 just counts them).

    Canonical order: the set choices of ``set_choices_nb`` in nested order (first set rank
    slowest; per rank: no set, every card, then the 4-set less spades, hearts, diamonds,
    clubs), keeping those whose remaining cards reach the least deadwood with runs.  Each
    set choice fixes the runs: every card in a block of three or more consecutive cards of
    a suit (``run_cover_nb``), since every card has a positive value.  Arrangements are
    told apart by their two masks (A23 + 456 of a suit is the run A-6).  These are exactly
    the layouts ``valid_layout_nb`` accepts at the least deadwood.  (No allocation: the
    engine's phase functions call this without numba's runtime.)"""
    sets, runs, n, _ = arrangement_scan_nb(mask, min_deadwood_nb(mask), k, np.int64(-1), np.int64(-1))
    return sets, runs, n


@CORE
def arrangement_scan_nb(mask, dw_min, k, sets, runs):
    """One pass over the canonical order of ``arrangement_nb`` for a hand whose least
    deadwood is ``dw_min``: ``(sets_k, runs_k, count, index)``, the ``k``-th arrangement
    (zeros when out of range), how many there are, and the position of the arrangement
    (``sets``, ``runs``) (-1 when it is not one of them)."""
    r0, r1, r2, n0, n1, n2 = set_choices_nb(mask)
    n = np.int64(0)
    index = np.int64(-1)
    found_sets = np.int64(0)
    found_runs = np.int64(0)
    for i0 in range(n0):
        for i1 in range(n1):
            for i2 in range(n2):
                melded = sets_melded_nb(mask, r0, r1, r2, i0, i1, i2)
                left = mask & ~melded
                if runs_deadwood_nb(left) == dw_min:
                    cover = run_cover_nb(left)
                    if n == k:
                        found_sets = melded
                        found_runs = cover
                    if melded == sets and cover == runs:
                        index = n
                    n += 1
    return found_sets, found_runs, n, index


@CORE
def arrangement_index_nb(mask, sets, runs):
    """The position of the arrangement (``sets``, ``runs``) in ``arrangement_nb``'s
    order, or -1 when it is not a least-deadwood arrangement of ``mask``."""
    return arrangement_scan_nb(mask, min_deadwood_nb(mask), np.int64(-1), sets, runs)[3]
