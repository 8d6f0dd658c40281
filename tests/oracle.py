"""Plain-Python brute-force reference ("oracle") for the Gin Rummy rules core.

Used only by the tests, to check the fast numba code in ``simulator`` (differential
testing).  Everything here is written to be *obviously* right rather than fast:

* every meld of a card set is listed explicitly (every 3- and 4-card set, every run of
  length >= 3, including every sub-run of a long run and every 3-subset of a 4-set);
* every collection of pairwise-disjoint melds is enumerated;
* deadwood is the least value of the cards left outside the melds.

It shares only the card encoding with ``simulator`` (see below) and none of its code.

Card encoding: a card code is ``suit * 16 + rank``; rank 0..12 = A,2,..,10,J,Q,K;
suit 0..3 = spades, hearts, diamonds, clubs.  Ace is low only.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence

RANKS = "A23456789TJQK"
SUITS = "shdc"
ALL_CODES = tuple(s * 16 + r for s in range(4) for r in range(13))


# --------------------------------------------------------------------------- cards
def rank_of(code: int) -> int:
    return code & 15


def suit_of(code: int) -> int:
    return code >> 4


def value_of(code: int) -> int:
    """Deadwood value: A=1, 2..10 face value, J/Q/K = 10."""
    return min(rank_of(code) + 1, 10)


VALUE = [value_of(c) for c in range(64)]  # lookup table, same numbers


def card(text: str) -> int:
    """One card from 'As', 'Td', '10d' (oracle-side parser, ASCII only)."""
    text = text.strip()
    rank_text, suit_text = text[:-1].upper(), text[-1].lower()
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANKS or suit_text not in SUITS:
        raise ValueError(f"bad card {text!r}")
    return SUITS.index(suit_text) * 16 + RANKS.index(rank_text)


def cards(text: str) -> tuple[int, ...]:
    """Card codes from 'As 2s 3s Td' (oracle-side parser, ASCII only)."""
    out = tuple(card(t) for t in text.split())
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate card in {text!r}")
    return out


def name(code: int) -> str:
    return RANKS[rank_of(code)] + SUITS[suit_of(code)]


def names(codes: Iterable[int]) -> str:
    return " ".join(name(c) for c in codes)


def codes_of(hand) -> tuple[int, ...]:
    """Accept a card string or an iterable of codes."""
    if isinstance(hand, str):
        return cards(hand)
    return tuple(int(c) for c in hand)


def total_value(codes: Iterable[int]) -> int:
    return sum(VALUE[c] for c in codes)


# --------------------------------------------------------------------------- melds
def is_set(meld: Sequence[int]) -> bool:
    return (3 <= len(meld) <= 4 and len(set(meld)) == len(meld)
            and len({rank_of(c) for c in meld}) == 1)


def is_run(meld: Sequence[int]) -> bool:
    if len(meld) < 3 or len({suit_of(c) for c in meld}) != 1:
        return False
    ranks = sorted(rank_of(c) for c in meld)
    return all(b == a + 1 for a, b in zip(ranks, ranks[1:]))


def is_meld(meld: Sequence[int]) -> bool:
    return is_set(meld) or is_run(meld)


def all_melds(codes: Iterable[int]) -> list[tuple[int, ...]]:
    """Every meld that can be made from these cards, each as a sorted tuple of codes.

    Sets: every 3-card and 4-card combination of one rank.  Runs: every stretch
    lo..hi (hi - lo >= 2) of consecutive ranks of one suit, A low, no wrap, all of
    whose cards are held.
    """
    held = set(codes)
    melds: list[tuple[int, ...]] = []
    for r in range(13):
        same_rank = [s * 16 + r for s in range(4) if s * 16 + r in held]
        if len(same_rank) >= 3:
            for k in (3, 4):
                melds.extend(itertools.combinations(same_rank, k))
    for s in range(4):
        for lo in range(11):
            hi = lo
            while hi < 13 and s * 16 + hi in held:  # extend while the next card is held
                if hi - lo >= 2:
                    melds.append(tuple(range(s * 16 + lo, s * 16 + hi + 1)))
                hi += 1
    return melds


def all_melds_naive(codes: Iterable[int]) -> list[tuple[int, ...]]:
    """all_melds written even more literally (every rank/suit window tested); the
    tests check that both list the same melds."""
    held = set(codes)
    melds = []
    for r in range(13):
        for k in (3, 4):
            for suits in itertools.combinations(range(4), k):
                m = tuple(s * 16 + r for s in suits)
                if all(c in held for c in m):
                    melds.append(m)
    for s in range(4):
        for lo in range(13):
            for hi in range(lo + 2, 13):
                run = tuple(s * 16 + r for r in range(lo, hi + 1))
                if all(c in held for c in run):
                    melds.append(run)
    return melds


def disjoint_collections(melds: Sequence[tuple[int, ...]]):
    """Yield every collection (tuple of melds) of pairwise-disjoint melds, incl. ()."""
    masks = [sum(1 << c for c in m) for m in melds]

    def rec(start: int, used: int, chosen: tuple):
        yield chosen
        for j in range(start, len(melds)):
            if masks[j] & used == 0:
                yield from rec(j + 1, used | masks[j], chosen + (melds[j],))

    yield from rec(0, 0, ())


def arrangements(codes: Iterable[int]):
    """Yield (melds, unmatched, deadwood) for every arrangement of the cards."""
    codes = tuple(codes)
    for coll in disjoint_collections(all_melds(codes)):
        melded = {c for m in coll for c in m}
        unmatched = tuple(c for c in codes if c not in melded)
        yield coll, unmatched, total_value(unmatched)


def _melded_masks(codes: Sequence[int]) -> set[int]:
    """The distinct sets (as bitmasks) of cards covered by some disjoint-meld collection."""
    melds = [sum(1 << c for c in m) for m in all_melds(codes)]
    seen: set[int] = set()

    def rec(start: int, used: int):
        seen.add(used)
        for j in range(start, len(melds)):
            if melds[j] & used == 0:
                rec(j + 1, used | melds[j])

    rec(0, 0)
    return seen


def oracle_min_deadwood(codes) -> int:
    """Least deadwood of exactly these cards (brute force over all arrangements)."""
    codes = codes_of(codes)
    assert len(set(codes)) == len(codes), "duplicate cards"
    best = total_value(codes)
    for used in _melded_masks(codes):
        best = min(best, total_value(c for c in codes if not used >> c & 1))
    return best


def oracle_discard_table(codes) -> dict[int, int]:
    """For each card c of the hand: least deadwood of the hand without c.

    One enumeration of the full hand serves every discard: the melds of (hand - c) are
    exactly the melds of the hand that do not contain c, so the arrangements of
    (hand - c) are the hand's arrangements that leave c unmatched, with c then removed
    from the unmatched cards.  (``oracle_discard_table_naive`` checks this in a test.)
    """
    codes = codes_of(codes)
    assert len(set(codes)) == len(codes), "duplicate cards"
    best = {c: total_value(codes) - value_of(c) for c in codes}
    for used in _melded_masks(codes):
        unmatched = [c for c in codes if not used >> c & 1]
        left = total_value(unmatched)
        for c in unmatched:
            if left - value_of(c) < best[c]:
                best[c] = left - value_of(c)
    return best


def oracle_discard_table_naive(codes) -> dict[int, int]:
    """Same as oracle_discard_table, literally: brute-force each of the discards."""
    codes = codes_of(codes)
    return {c: oracle_min_deadwood([d for d in codes if d != c]) for c in codes}


def oracle_discards(codes, forbidden=None) -> tuple[int, tuple[int, ...]]:
    """(least deadwood after the best discard, sorted codes of every optimal discard)."""
    table = oracle_discard_table(codes)
    if forbidden is not None:
        if isinstance(forbidden, str):
            (forbidden,) = cards(forbidden)
        table.pop(forbidden)
    best = min(table.values())
    return best, tuple(sorted(c for c, dw in table.items() if dw == best))


def oracle_best_discard(codes, forbidden=None) -> tuple[int, int]:
    """(card, deadwood): optimal discard, ties -> highest value, rank, then suit index."""
    best, optimal = oracle_discards(codes, forbidden)
    chosen = max(optimal, key=lambda c: (value_of(c), rank_of(c), suit_of(c)))
    return chosen, best


def oracle_is_big_gin(codes) -> bool:
    codes = codes_of(codes)
    return len(codes) == 11 and oracle_min_deadwood(codes) == 0


def count_melds_full_deck() -> tuple[int, int]:
    """(runs, sets) among all melds of the 52-card deck."""
    melds = all_melds(ALL_CODES)
    runs = sum(1 for m in melds if is_run(m))
    sets = sum(1 for m in melds if is_set(m))
    assert runs + sets == len(melds)
    return runs, sets


# --------------------------------------------------------------------------- layoffs
def _meld_state(meld: Sequence[int]):
    """A knocker meld as layoff state: ('set', rank, size) or ('run', suit, lo, hi)."""
    if is_set(meld):
        return ("set", rank_of(meld[0]), len(meld))
    if is_run(meld):
        ranks = [rank_of(c) for c in meld]
        return ("run", suit_of(meld[0]), min(ranks), max(ranks))
    raise ValueError(f"not a meld: {names(meld)}")


def _lay_moves(state, code):
    """Meld states after laying `code` on `state`, if legal (list of 0 or 1 states)."""
    if state[0] == "set":
        _, r, size = state
        if size == 3 and rank_of(code) == r:  # the missing 4th card of a 3-set
            return [("set", r, 4)]
        return []
    _, s, lo, hi = state
    if suit_of(code) != s:
        return []
    if rank_of(code) == lo - 1:
        return [("run", s, lo - 1, hi)]
    if rank_of(code) == hi + 1:
        return [("run", s, lo, hi + 1)]
    return []


def oracle_max_layoff(knocker_melds, cards_to_lay) -> int:
    """Most points of `cards_to_lay` that can be laid off, one card at a time, on the
    knocker's melds (4th card on a 3-set; a card extending a run at either end,
    including a run already extended by earlier layoffs).  Exhaustive search over
    every order and every target meld, memoized on the full state."""
    states = tuple(_meld_state(codes_of(m)) for m in knocker_melds)
    memo: dict = {}

    def search(states, remaining: frozenset) -> int:
        key = (states, remaining)
        if key in memo:
            return memo[key]
        best = 0
        for c in remaining:
            for i, st in enumerate(states):
                for new in _lay_moves(st, c):
                    nxt = states[:i] + (new,) + states[i + 1:]
                    best = max(best, value_of(c) + search(nxt, remaining - {c}))
        memo[key] = best
        return best

    return search(states, frozenset(codes_of(cards_to_lay)))


def oracle_can_lay_all(knocker_melds, cards_to_lay) -> bool:
    """True if every one of these cards can be laid off on the knocker's melds."""
    cs = codes_of(cards_to_lay)
    return oracle_max_layoff(knocker_melds, cs) == total_value(cs)


def oracle_layoff_deadwood(knocker_melds, defender_codes) -> int:
    """Defender's least final deadwood: over every arrangement of the defender's cards
    (so breaking its own melds is covered), unmatched value minus the most that can be
    laid off from those unmatched cards."""
    knocker_melds = [codes_of(m) for m in knocker_melds]
    defender_codes = codes_of(defender_codes)
    knocker_cards = {c for m in knocker_melds for c in m}
    assert not knocker_cards & set(defender_codes), "knocker and defender share cards"
    best = None
    for _coll, unmatched, dw in arrangements(defender_codes):
        final = dw - oracle_max_layoff(knocker_melds, unmatched)
        best = final if best is None else min(best, final)
    return best


def oracle_least_arrangements(codes):
    """Every least-deadwood arrangement (melds, unmatched, deadwood) of the cards."""
    arrs = list(arrangements(codes_of(codes)))
    least = min(a[2] for a in arrs)
    return [a for a in arrs if a[2] == least]


oracle_knocker_arrangements = oracle_least_arrangements  # the knocker's options


def oracle_knocker_choice_value(knocker_codes, defender_codes) -> int:
    """Defender's final deadwood when the knocker picks, among its least-deadwood
    arrangements, the one that leaves the defender the most deadwood after layoffs."""
    return max(oracle_layoff_deadwood(melds, defender_codes)
               for melds, _u, _d in oracle_knocker_arrangements(knocker_codes))


# --------------------------------------------------------------------------- scoring
def oracle_score(knocker_deadwood, defender_deadwood, *, gin, big_gin, rules):
    """(winner, points, undercut) for one hand, straight from docs/rules.md#scoring-a-hand."""
    k, d = knocker_deadwood, defender_deadwood
    if big_gin:
        return ("knocker", rules.gin_bonus + rules.big_gin_bonus + d, False)
    if gin:
        return ("knocker", rules.gin_bonus + d, False)
    if k < d:
        return ("knocker", d - k, False)
    if d < k or rules.undercut_on_tie:
        return ("defender", k - d + rules.undercut_bonus, True)
    return (None, 0, False)


# --------------------------------------------------------------------------- hands
def random_hands(rng: random.Random, n: int, size: int) -> list[tuple[int, ...]]:
    """n hands of `size` distinct cards, uniform over the deck."""
    return [tuple(rng.sample(ALL_CODES, size)) for _ in range(n)]


def few_ranks_hand(rng: random.Random, size: int) -> tuple[int, ...]:
    """Cards from 3-5 ranks (x 4 suits) chosen inside a short window of ranks, so the
    hand is thick with sets, runs and cards that could go in either."""
    nranks = max(rng.randint(3, 5), -(-size // 4))
    width = rng.randint(nranks, min(13, nranks + 2))
    lo = rng.randint(0, 13 - width)
    ranks = rng.sample(range(lo, lo + width), nranks)
    pool = [s * 16 + r for r in ranks for s in range(4)]
    return tuple(rng.sample(pool, size))


def few_suits_hand(rng: random.Random, size: int) -> tuple[int, ...]:
    """Cards from 1-2 suits (optionally inside a window of ranks): long runs."""
    nsuits = rng.randint(1, 2) if size <= 13 else 2
    suits = rng.sample(range(4), nsuits)
    width = rng.randint(max(-(-size // nsuits), 7), 13)
    lo = rng.randint(0, 13 - width)
    pool = [s * 16 + r for s in suits for r in range(lo, lo + width)]
    return tuple(rng.sample(pool, size))


def block_hand(rng: random.Random, size: int) -> tuple[int, ...]:
    """Cards from a block of 3-4 suits x 4-6 consecutive ranks: runs and sets crossing."""
    nsuits = rng.randint(3, 4)
    width = rng.randint(max(4, -(-size // nsuits)), 6)
    suits = rng.sample(range(4), nsuits)
    lo = rng.randint(0, 13 - width)
    pool = [s * 16 + r for s in suits for r in range(lo, lo + width)]
    return tuple(rng.sample(pool, size))


DENSE_GENERATORS = (few_ranks_hand, few_suits_hand, block_hand)


def dense_hands(rng: random.Random, n: int, size: int) -> list[tuple[int, ...]]:
    """n meld-dense hands, cycling through the dense generators."""
    return [DENSE_GENERATORS[i % len(DENSE_GENERATORS)](rng, size) for i in range(n)]


def melded_hand(rng: random.Random, size: int, n_melded: int,
                exclude: Iterable[int] = ()) -> tuple[int, ...]:
    """A hand holding random disjoint melds covering exactly `n_melded` cards, the rest
    random other cards (which may happen to meld too).  Used for big-gin hands
    (n_melded = size = 11) and for knocking hands."""
    excluded = set(exclude)
    deck = [c for c in ALL_CODES if c not in excluded]
    melds = [m for m in all_melds(deck) if len(m) <= n_melded]
    while True:
        held: set[int] = set()
        while len(held) < n_melded:
            room = n_melded - len(held)
            options = [m for m in rng.sample(melds, min(len(melds), 60))
                       if len(m) <= room and not held & set(m)]
            if not options:
                break
            held |= set(rng.choice(options))
        if len(held) != n_melded:
            continue
        rest = [c for c in deck if c not in held]
        out = list(held) + rng.sample(rest, size - n_melded)
        rng.shuffle(out)
        return tuple(out)


def knock_deal(rng: random.Random, dense: bool, max_deadwood: int = 10):
    """(knocker 10 cards with least deadwood <= max_deadwood, defender 10 other cards).

    dense=False: knocker built from random melds plus random filler (then checked by
    the oracle); defender uniform from the other 42 cards.
    dense=True: both hands drawn from one meld-dense pool (a block of ranks and suits)
    so the defender often holds cards that fit the knocker's melds, plus a few outsiders.
    """
    while True:
        if dense:
            nsuits = rng.randint(2, 4)
            width = rng.randint(max(5, -(-16 // nsuits)), 9)
            lo = rng.randint(0, 13 - width)
            suits = rng.sample(range(4), nsuits)
            pool = [s * 16 + r for s in suits for r in range(lo, lo + width)]
            rng.shuffle(pool)
            knocker = tuple(pool[:10])
            if oracle_min_deadwood(knocker) > max_deadwood:
                continue
            rest_pool = pool[10:]
            outside = [c for c in ALL_CODES if c not in set(pool)]
            k = rng.randint(max(0, 10 - len(outside)), min(10, len(rest_pool)))
            defender = tuple(rng.sample(rest_pool, k) + rng.sample(outside, 10 - k))
        else:
            knocker = melded_hand(rng, 10, rng.randint(6, 10))
            if oracle_min_deadwood(knocker) > max_deadwood:
                continue
            others = [c for c in ALL_CODES if c not in set(knocker)]
            defender = tuple(rng.sample(others, 10))
        return knocker, defender


def near_cards(melds) -> set[int]:
    """Cards that could be laid off on these melds in one or two steps (the missing
    card of a 3-set; the two cards beyond each end of a run)."""
    out: set[int] = set()
    for m in melds:
        st = _meld_state(codes_of(m))
        if st[0] == "set":
            if st[2] == 3:
                out |= {s * 16 + st[1] for s in range(4)} - set(m)
        else:
            _, s, lo, hi = st
            out |= {s * 16 + r for r in (lo - 2, lo - 1, hi + 1, hi + 2) if 0 <= r <= 12}
    return out


def _ambiguous_core(rng: random.Random) -> list[int]:
    """Cards that can be melded in several equally good ways (knocker's core)."""
    kind = rng.randrange(4)
    if kind == 0:  # 3 consecutive ranks x 3 suits: three runs or three sets
        lo = rng.randint(0, 10)
        return [s * 16 + r for s in rng.sample(range(4), 3) for r in range(lo, lo + 3)]
    if kind == 1:  # run (r-1, r, r+1) + two more r: run or set leave the same deadwood
        r = rng.randint(1, 8)
        s, *others = rng.sample(range(4), 3)
        return [s * 16 + r - 1, s * 16 + r, s * 16 + r + 1] + [t * 16 + r for t in others]
    if kind == 2:  # 4-set + two 2-card tails: the set lends its card to either tail
        r = rng.randint(0, 12)
        step = 1 if r <= 10 and (r < 2 or rng.random() < 0.5) else -1
        a, b = rng.sample(range(4), 2)
        return ([t * 16 + r for t in range(4)]
                + [u * 16 + r + k * step for u in (a, b) for k in (1, 2)])
    knocker, _ = knock_deal(rng, dense=True)  # whatever a meld-dense deal gives
    return list(knocker)


def ambiguous_knock_deal(rng: random.Random, max_deadwood: int = 10):
    """A knock deal where the knocker's least-deadwood arrangements expose different
    cards to layoffs (so its choice may matter), and the defender holds several of
    the exposed cards."""
    while True:
        core = _ambiguous_core(rng)
        rest = [c for c in ALL_CODES if c not in set(core)]
        low = [c for c in rest if rank_of(c) <= 4]
        filler = rng.sample(low if rng.random() < 0.7 else rest, 10 - len(core))
        knocker = core + filler
        rng.shuffle(knocker)
        knocker = tuple(knocker)
        if oracle_min_deadwood(knocker) > max_deadwood:
            continue
        exposed = [frozenset(near_cards(m) - set(knocker))
                   for m, _u, _d in oracle_knocker_arrangements(knocker)]
        if len(set(exposed)) < 2:
            continue
        candidates = sorted(set().union(*exposed) - set(knocker))
        mine = rng.sample(candidates, min(len(candidates), rng.randint(2, 7)))
        others = [c for c in ALL_CODES if c not in set(knocker) and c not in set(mine)]
        defender = mine + rng.sample(others, 10 - len(mine))
        rng.shuffle(defender)
        return knocker, tuple(defender)
