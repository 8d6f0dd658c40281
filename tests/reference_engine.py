"""A slow, plain-Python reference engine for Gin Rummy, used only by the tests.

It re-implements the hand phase machine and whole games of ``simulator.engine.kernels``
independently, straight from docs/rules.md and the engine's documented behaviour, so that
``tests/test_engine_reference.py`` can compare the two record by record.

What it shares with the numba engine, and why:

* **random streams** — the deck shuffle, the dealer draw and each player's stream are keyed
  exactly as in ``play_deal_block_nb`` / ``play_game_nb`` (``simulator.core.rng`` primitives are
  reused: they are not rules);
* **strategy decisions** — the strategies' numba functions (``strategies.dispatch``) are
  called from Python with a player view built here, from this engine's own state, with the
  slot meanings of ``strategies.view``.  Same view + same stream ⇒ same decision.  Every
  decision is kept (``Hand.decisions``: seat, view, answer) so that the tests can compare
  the views the engine gives its strategies as well;
* **the record's column order** — ``simulator.core.records`` (a schema, not a rule).

What it does not share: every rule.  Deadwood, knockable discards, big gin, layoffs and the
defender's best response come from the brute-force oracle in ``tests/oracle.py``; scoring,
the knock limit, Oklahoma, the end of the stock, reshuffles and the game rules are written
out below.  Nothing from ``simulator.core.melds`` or ``simulator.core.scoring`` is used.

State is kept in readable Python: hands are ``set``\\ s of card codes, the stock and the
discard pile are lists (pile top last, stock drawn from the front).  Card codes are
``suit * 16 + rank`` (rank 0 = ace … 12 = king; suit 0 = spades).

The layoff points of a hand are not fixed by the rules when the defender has several
least-deadwood responses (e.g. 7♠8♠9♠ against the knocker's 4♠5♠6♠ may be melded, or laid
off for the same deadwood).  The reference therefore reports, besides its record, the set
of layoff values any optimal response could give (``HandResult.layoff_options``); the
record itself holds the largest of them.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for `import oracle`

import oracle as O  # noqa: E402

from simulator.core.rng import shuffle_nb, stream_key_nb  # noqa: E402  (RNG primitives only)
from strategies import dispatch, parse_strategy  # noqa: E402
from strategies.view import (  # noqa: E402
    DEFEND_BEST,
    N_MEMORY,
    N_VIEW,
    PHASE_ARRANGE,
    PHASE_DEFEND,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_FIRST_UPCARD,
    PHASE_KNOCK,
    PHASE_LAST_DISCARD,
    V_DEADWOOD,
    V_DRAWN,
    V_FROM_PILE,
    V_HAND,
    V_IS_DEALER,
    V_KNOCK_LIMIT,
    V_KNOCKER_DEADWOOD,
    V_LAST_CHANCE,
    V_KNOCKER_RUNS,
    V_KNOCKER_SETS,
    V_LEGAL_DISCARDS,
    V_MY_DRAWS,
    V_MY_SCORE,
    V_OPP_DECLINED,
    V_OPP_DISCARDS,
    V_OPP_SCORE,
    V_OPP_TOOK,
    V_PHASE,
    V_PILE_LEN,
    V_PILE_MASK,
    V_SEEN,
    V_STOCK_LEFT,
    V_TOP,
    V_TURN,
)

# ---- the engine's documented key constants (simulator.engine.kernels) --------------------------
PLAYER_SALT = 0x0123456789ABCDEF
DECK_SALT = 0x7F4A7C159E3779B9
MASK64 = (1 << 64) - 1
MAX_HANDS_PER_GAME = 2000
from simulator.core.rules import MAX_TURNS_PER_HAND  # noqa: E402  (a documented rule constant)
#: a bound on one hand's turns for the reference only (a runaway strategy fails loudly)
MAX_TURNS = 20_000

# record column order of simulator.engine.kernels's hand and game records: declared once, in
# simulator.core.records (a schema, not a rule)
from simulator.core.records import GAME_RECORD_NAMES as GAME_COLUMNS  # noqa: E402
from simulator.core.records import HAND_RECORD_NAMES as HAND_COLUMNS  # noqa: E402

OUTCOMES = ("knock", "gin", "big_gin", "undercut", "dead")
ERR_NONE, ERR_ILLEGAL_DISCARD, ERR_BAD_MELDS = 0, 1, 3
# an error record names the seat at fault (-1: none) and the offending value: the card
# returned, or the melds' card mask (sets | runs)

# the fresh deck before shuffling: suit-major, as the engine shuffles it
FRESH_DECK = [suit * 16 + rank for suit in range(4) for rank in range(13)]
N_CARDS_DEALT = 20
STOCK_SIZE = 31
CANCEL_AT_STOCK = 2  # docs/rules.md#end-of-the-stock: the hand is cancelled when the stock is down to 2 cards


# ---------------------------------------------------------------------------- card helpers
def rank(card: int) -> int:
    return card % 16


def suit(card: int) -> int:
    return card // 16


def value(card: int) -> int:
    """Deadwood value: ace 1, 2..10 face value, J Q K 10."""
    return min(rank(card) + 1, 10)


_BIT = [1 << c for c in range(64)]


def mask_of(cards) -> int:
    """The 64-bit hand mask of some card codes (bit ``code`` set for each card)."""
    return sum(map(_BIT.__getitem__, cards))


def cards_of(mask: int) -> list[int]:
    """The card codes of a hand mask, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


# ---------------------------------------------------------------------------- rules via the oracle
@functools.lru_cache(maxsize=400_000)
def min_deadwood(hand_mask: int) -> int:
    """Least deadwood of exactly these cards (oracle brute force)."""
    return O.oracle_min_deadwood(cards_of(hand_mask))


@functools.lru_cache(maxsize=100_000)
def discard_table(hand_mask: int) -> dict[int, int]:
    """For an 11-card hand: card -> least deadwood of the ten others (oracle)."""
    return O.oracle_discard_table(cards_of(hand_mask))


def knockable_discards(hand: set[int], allowed: set[int], limit: int) -> set[int]:
    """The allowed discards after which the hand's deadwood is at most ``limit``."""
    table = discard_table(mask_of(hand))
    return {c for c in allowed if c in hand and table[c] <= limit}


def knock_limit_of_deal(upcard: int, rules) -> int:
    """docs/rules.md#variants: gin only → 0; Oklahoma → the upcard's value (ace: 0 = gin only, or 1);
    otherwise ``knock_limit``."""
    if rules.gin_only:
        return 0
    if rules.oklahoma:
        if rank(upcard) == 0:
            return 0 if rules.oklahoma_ace == "gin" else 1
        return value(upcard)
    return rules.knock_limit


def score_multiplier(upcard: int, rules) -> int:
    """Oklahoma spade doubling: a spade first upcard doubles the hand's score."""
    return 2 if rules.oklahoma and rules.oklahoma_spade_double and suit(upcard) == 0 else 1


def score(knocker_dw: int, defender_dw: int, gin: bool, big_gin: bool, rules):
    """docs/rules.md#scoring-a-hand: (winner 'knocker'/'defender'/None, points, outcome)."""
    if big_gin:
        return "knocker", rules.gin_bonus + rules.big_gin_bonus + defender_dw, "big_gin"
    if gin:
        return "knocker", rules.gin_bonus + defender_dw, "gin"
    if knocker_dw < defender_dw:
        return "knocker", defender_dw - knocker_dw, "knock"
    if knocker_dw == defender_dw and not rules.undercut_on_tie:
        return None, 0, "knock"
    return "defender", knocker_dw - defender_dw + rules.undercut_bonus, "undercut"


def split_layout(hand: set[int], sets_mask: int, runs_mask: int, deadwood: int):
    """The knocker's melds from the strategy's two masks, or None if they are not a valid
    layout of ``hand`` leaving exactly ``deadwood``.

    Sets: the set cards grouped by rank, each group 3 or 4 cards.  Runs: the run cards of
    each suit split into blocks of consecutive ranks, each at least 3 long.  (Adjacent runs
    of one suit, e.g. A23 + 456, form one block; for layoffs that is the same thing: only a
    block's two ends can be extended.)
    """
    set_cards, run_cards = set(cards_of(sets_mask)), set(cards_of(runs_mask))
    if not (set_cards | run_cards) <= hand or set_cards & run_cards:
        return None
    melds = []
    by_rank: dict[int, list[int]] = {}
    for c in sorted(set_cards):
        by_rank.setdefault(rank(c), []).append(c)
    for group in by_rank.values():
        if len(group) not in (3, 4):
            return None
        melds.append(tuple(group))
    for s in range(4):
        block: list[int] = []
        for r in range(14):
            c = s * 16 + r
            if r < 13 and c in run_cards:
                block.append(c)
                continue
            if block:
                if len(block) < 3:
                    return None
                melds.append(tuple(block))
                block = []
    left = hand - set_cards - run_cards
    if sum(value(c) for c in left) != deadwood:
        return None
    return melds


def defender_response(knocker_melds, defender: set[int]) -> tuple[int, frozenset[int]]:
    """(least deadwood after layoffs, layoff values of every response achieving it).

    Over every arrangement of the defender's cards (breaking its own melds included), the
    unmatched cards are laid off as much as possible on the knocker's melds (oracle search).
    """
    outcomes = []
    for _melds, unmatched, dw in O.arrangements(sorted(defender)):
        laid = O.oracle_max_layoff(knocker_melds, unmatched) if unmatched else 0
        outcomes.append((dw - laid, laid))
    best = min(d for d, _ in outcomes)
    return best, frozenset(laid for d, laid in outcomes if d == best)


# ---------------------------------------------------------------------------- random streams
def _key(seed: int, a: int, b: int) -> int:
    return int(stream_key_nb(np.uint64(seed & MASK64), a, b))


def new_stream(key: int) -> np.ndarray:
    state = np.zeros(1, np.uint64)
    state[0] = np.uint64(key)
    return state


def shuffled_deck(seed: int, pair: int, hand_index: int) -> tuple[list[int], np.ndarray]:
    """The shuffled deck of (seed, pair, hand_index) and the deck stream after shuffling."""
    rng = new_stream(_key(seed ^ DECK_SALT, pair, hand_index))
    deck = np.array(FRESH_DECK, dtype=np.int64)
    shuffle_nb(rng, deck, 52)
    return [int(c) for c in deck], rng


def shuffle_cards(rng: np.ndarray, cards: list[int]) -> list[int]:
    arr = np.array(cards + [0] * (64 - len(cards)), dtype=np.int64)
    shuffle_nb(rng, arr, len(cards))
    return [int(c) for c in arr[: len(cards)]]


# ---------------------------------------------------------------------------- players
@dataclass
class Player:
    """A seat's strategy, its random stream and its per-hand memory."""

    sid: int
    params: np.ndarray
    rng: np.ndarray = field(default_factory=lambda: np.zeros(1, np.uint64))
    memory: np.ndarray = field(default_factory=lambda: np.zeros(N_MEMORY, np.int64))

    @classmethod
    def of(cls, spec) -> "Player":
        s = parse_strategy(spec)
        return cls(s.sid, np.ascontiguousarray(s.row, dtype=np.float64))


# ---------------------------------------------------------------------------- one hand
@dataclass
class HandResult:
    record: dict
    events: list = field(default_factory=list)
    layoff_options: frozenset = frozenset({0})
    final_hands: tuple = ()  # both seats' cards when the hand ended (for messages)
    last_chance: bool = False  # the last discard was taken to knock (last_discard_rule)
    decisions: list = field(default_factory=list)  # (seat, view, answer) of every decision


class Hand:
    """One hand, played from a deck: ``Hand(...).play()`` returns a ``HandResult``."""

    def __init__(self, deck, dealer, players, rules, scores=(0, 0), deck_rng=None):
        self.rules = rules
        self.rules_vec = rules.to_array()
        self.players = players
        self.scores = list(scores)
        self.dealer = dealer
        self.deck_rng = deck_rng if deck_rng is not None else np.zeros(1, np.uint64)
        self.events: list[tuple[int, str, int]] = []
        self.decisions: list[tuple[int, np.ndarray, object]] = []  # (seat, view, answer)
        self.layoff_options = frozenset({0})
        for p in players:
            p.memory[:] = 0  # each strategy's memory is zeroed at the start of a hand
        non_dealer = 1 - dealer
        self.hands: list[set[int]] = [set(), set()]
        for i in range(N_CARDS_DEALT):
            seat = non_dealer if i % 2 == 0 else dealer
            self.hands[seat].add(deck[i])
            self.events.append((seat, "deal", deck[i]))
        self.upcard = deck[N_CARDS_DEALT]
        self.pile = [self.upcard]
        self.stock = list(deck[N_CARDS_DEALT + 1:])
        assert len(self.stock) == STOCK_SIZE
        self.events.append((-1, "upcard", self.upcard))
        # public knowledge per seat
        self.took = [set(), set()]  # taken from the pile and still held
        self.declined = [set(), set()]  # pile tops passed on
        self.discarded = [set(), set()]  # every card discarded this hand
        self.seen = [self.hands[0] | {self.upcard}, self.hands[1] | {self.upcard}]
        self.draws = [0, 0]
        self.turn = 0  # discards made
        self.reshuffles = 0
        self.last_chance = False
        self.limit = knock_limit_of_deal(self.upcard, rules)
        self.multiplier = score_multiplier(self.upcard, rules)
        self.record = {
            "dealer": dealer, "upcard": self.upcard, "knock_limit": self.limit,
            "knocker": -1, "winner": -1, "points": 0, "knocker_deadwood": -1,
            "defender_deadwood": -1, "layoff_points": 0, "error": ERR_NONE,
            "error_seat": -1, "error_value": 0,
            "outcome": "dead",
        }

    # -- the player's view (strategies.view) ---------------------------------------------
    def view(self, phase: int, seat: int) -> np.ndarray:
        opp = 1 - seat
        v = np.zeros(N_VIEW, np.int64)
        v[V_PHASE] = phase
        v[V_HAND] = mask_of(self.hands[seat])
        v[V_TOP] = self.pile[-1] if self.pile else -1
        v[V_PILE_LEN] = len(self.pile)
        v[V_PILE_MASK] = mask_of(self.pile)
        v[V_OPP_TOOK] = mask_of(self.took[opp])
        v[V_OPP_DECLINED] = mask_of(self.declined[opp])
        v[V_OPP_DISCARDS] = mask_of(self.discarded[opp])
        v[V_SEEN] = mask_of(self.seen[seat])
        v[V_STOCK_LEFT] = len(self.stock)
        v[V_TURN] = self.turn
        v[V_MY_DRAWS] = self.draws[seat]
        v[V_KNOCK_LIMIT] = self.limit
        v[V_MY_SCORE] = self.scores[seat]
        v[V_OPP_SCORE] = self.scores[opp]
        v[V_IS_DEALER] = int(seat == self.dealer)
        v[V_DRAWN] = -1
        v[V_FROM_PILE] = 0
        v[V_LEGAL_DISCARDS] = 0
        v[V_DEADWOOD] = -1
        v[V_KNOCKER_SETS] = 0  # the knocker's melds, set below once laid out
        v[V_KNOCKER_RUNS] = 0
        v[V_KNOCKER_DEADWOOD] = -1
        return v

    def pile_array(self) -> np.ndarray:
        arr = np.zeros(64, np.int64)
        arr[: len(self.pile)] = self.pile
        return arr

    def _call(self, fn, seat, view):
        p = self.players[seat]
        answer = fn(p.sid, p.params, view.copy(), self.pile_array(), self.rules_vec, p.rng, p.memory)
        self.decisions.append((seat, view, answer))
        return answer

    def ask_take(self, phase: int, seat: int) -> bool:
        return bool(self._call(dispatch.take_nb, seat, self.view(phase, seat)))

    # -- the hand ------------------------------------------------------------------------
    def play(self) -> HandResult:
        self._play()
        r = self.record
        r["draws"] = self.draws[0] + self.draws[1]
        r["stock_left"] = len(self.stock)
        r["turns"] = self.turn
        r["reshuffles"] = self.reshuffles
        if r["outcome"] == "dead" and r["error"] == ERR_NONE:
            self.events.append((-1, "dead", len(self.stock)))
        return HandResult(r, self.events, self.layoff_options,
                          (frozenset(self.hands[0]), frozenset(self.hands[1])),
                          self.last_chance, self.decisions)

    def _play(self) -> None:
        rules = self.rules
        dealer, non_dealer = self.dealer, 1 - self.dealer

        # first turn: the upcard is offered to the non-dealer, then to the dealer
        current, from_pile = non_dealer, False
        for seat in (non_dealer, dealer):
            if self.ask_take(PHASE_FIRST_UPCARD, seat):
                current, from_pile = seat, True
                break
            self.declined[seat].add(self.upcard)
            self.events.append((seat, "decline", self.upcard))
        # if both declined, the non-dealer draws from the stock

        last_chance = False  # taking the last discard, only to knock (last_discard_rule)
        for _ in range(MAX_TURNS):
            hand = self.hands[current]
            opp = 1 - current
            # draw
            if from_pile:
                card = self.pile.pop()
                self.took[current].add(card)
                self.events.append((current, "take_pile", card))
            else:
                card = self.stock.pop(0)
                self.seen[current].add(card)
                self.events.append((current, "draw_stock", card))
            hand.add(card)
            self.draws[current] += 1

            # big gin: eleven cards all melded go out at once (when big gin is played)
            if rules.big_gin_bonus > 0 and min_deadwood(mask_of(hand)) == 0:
                self.events.append((current, "big_gin", 0))
                self.settle(current, 0, gin=True, big_gin=True)
                return

            # discard (never the card just taken from the pile)
            legal = hand - {card} if from_pile else set(hand)
            if last_chance:
                legal = knockable_discards(hand, legal, self.limit)
            v = self.view(PHASE_DISCARD, current)
            v[V_DRAWN] = card
            v[V_FROM_PILE] = int(from_pile)
            v[V_LEGAL_DISCARDS] = mask_of(legal)
            v[V_LAST_CHANCE] = int(last_chance)
            discard = int(self._call(dispatch.discard_nb, current, v))
            if discard not in legal:
                self.record.update(error=ERR_ILLEGAL_DISCARD, error_seat=current, error_value=discard)
                return
            hand.remove(discard)
            self.took[current].discard(discard)
            self.discarded[current].add(discard)
            self.pile.append(discard)
            self.seen[opp].add(discard)
            self.events.append((current, "discard", discard))
            self.turn += 1

            # knock (never forced, except that a last-chance take must knock)
            deadwood = min_deadwood(mask_of(hand))
            if deadwood <= self.limit:
                if last_chance:
                    knock = True
                else:
                    v = self.view(PHASE_KNOCK, current)
                    v[V_DEADWOOD] = deadwood
                    knock = bool(self._call(dispatch.knock_nb, current, v))
                if knock:
                    self.events.append((current, "gin" if deadwood == 0 else "knock", deadwood))
                    self.settle(current, deadwood, gin=deadwood == 0, big_gin=False)
                    return
            else:  # a last-chance take leaves only discards that allow a knock (legal above)
                assert not last_chance, "a last-chance discard must leave a knock"
            if last_chance:
                return

            # end of the stock
            if rules.reshuffle_stock:
                if not self.stock:
                    if self.reshuffles >= rules.max_reshuffles or len(self.pile) < 2:
                        return  # dead hand
                    top = self.pile[-1]
                    self.stock = shuffle_cards(self.deck_rng, self.pile[:-1])
                    self.pile = [top]
                    self.reshuffles += 1
                    self.events.append((-1, "reshuffle", len(self.stock)))
            elif len(self.stock) <= CANCEL_AT_STOCK:
                if not rules.last_discard_rule:
                    return  # dead hand
                top = self.pile[-1]
                trial = self.hands[opp] | {top}
                if not knockable_discards(trial, self.hands[opp], self.limit):
                    return  # the other player could not knock with it: dead
                if not self.ask_take(PHASE_LAST_DISCARD, opp):
                    self.events.append((opp, "pass_last_discard", top))
                    return
                last_chance = self.last_chance = True
                current, from_pile = opp, True
                continue

            if self.turn >= MAX_TURNS_PER_HAND:
                return  # dead hand: the rules' guard against endless pile draws

            # the other player's draw: the pile's top card or the stock
            current = opp
            from_pile = self.ask_take(PHASE_DRAW, current)
            if not from_pile:
                self.declined[current].add(self.pile[-1])
        raise RuntimeError("reference engine: hand exceeded MAX_TURNS")

    def settle(self, knocker: int, deadwood: int, gin: bool, big_gin: bool) -> None:
        defender = 1 - knocker
        if gin or big_gin:
            defender_dw = min_deadwood(mask_of(self.hands[defender]))  # no layoffs vs gin
            laid = 0
        else:
            v = self.view(PHASE_ARRANGE, knocker)
            v[V_DEADWOOD] = deadwood
            sets_mask, runs_mask = self._call(dispatch.arrange_nb, knocker, v)
            sets_mask, runs_mask = int(sets_mask), int(runs_mask)
            melds = split_layout(self.hands[knocker], sets_mask, runs_mask, deadwood)
            if melds is None:
                self.record.update(error=ERR_BAD_MELDS, error_seat=knocker,
                                   error_value=sets_mask | runs_mask)
                return
            self.events.append((knocker, "sets", sets_mask))
            self.events.append((knocker, "runs", runs_mask))
            # the defender sees the knocker's melds and chooses its defence
            v = self.view(PHASE_DEFEND, defender)
            v[V_KNOCKER_SETS], v[V_KNOCKER_RUNS], v[V_KNOCKER_DEADWOOD] = sets_mask, runs_mask, deadwood
            own_sets, own_runs = (int(x) for x in self._call(dispatch.defend_nb, defender, v))
            if own_sets == DEFEND_BEST:
                defender_dw, options = defender_response(melds, self.hands[defender])
                self.events.append((defender, "defend", -1))
            else:
                # one of its least-deadwood arrangements; every unmelded card that fits is laid off
                own_dw = min_deadwood(mask_of(self.hands[defender]))
                own = split_layout(self.hands[defender], own_sets, own_runs, own_dw)
                if own is None:
                    self.record.update(error=ERR_BAD_MELDS, error_seat=defender,
                                       error_value=own_sets | own_runs)
                    return
                unmatched = self.hands[defender] - set(cards_of(own_sets | own_runs))
                laid_value = O.oracle_max_layoff(melds, sorted(unmatched)) if unmatched else 0
                defender_dw, options = own_dw - laid_value, frozenset({laid_value})
                self.events.append((defender, "defend", None))  # the arrangement's index: an encoding
            self.layoff_options = options
            laid = max(options)
            self.events.append((defender, "layoff", None))  # mask: implementation's choice
        who, points, outcome = score(deadwood, defender_dw, gin, big_gin, self.rules)
        points *= self.multiplier
        winner = {"knocker": knocker, "defender": defender, None: -1}[who]
        self.record.update(
            knocker=knocker, knocker_deadwood=deadwood, defender_deadwood=defender_dw,
            layoff_points=laid, points=points, winner=winner, outcome=outcome,
        )
        self.events.append((defender, "defender_deadwood", defender_dw))
        self.events.append((winner, "score", points))


# ---------------------------------------------------------------------------- single deals
def play_deal(strategy_a, strategy_b, rules, deal: int, seed: int, mirrored: bool = True) -> HandResult:
    """Deal number ``deal`` of ``simulator.api.play_deal_records`` (same seed and mirroring)."""
    pair = deal // 2 if mirrored else deal
    deck, deck_rng = shuffled_deck(seed, pair, 0)
    state = int(deck_rng[0])
    dealer = (state >> 13) & 1
    a_seat = deal % 2 if mirrored else (state >> 17) & 1
    deck_rng = new_stream(_key(seed ^ DECK_SALT, pair, 1 << 40))  # the reshuffle stream
    specs = (strategy_a, strategy_b)
    players = [None, None]
    for seat in range(2):
        who = 0 if seat == a_seat else 1
        players[seat] = Player.of(specs[who])
        players[seat].rng = new_stream(_key(seed ^ PLAYER_SALT, deal, who))
    result = Hand(deck, dealer, players, rules, (0, 0), deck_rng).play()
    result.record.update(deal=deal, pair=pair, a_seat=a_seat, game=-1, hand_in_game=-1)
    return result


# ---------------------------------------------------------------------------- whole games
@dataclass
class GameResult:
    record: dict
    hands: list  # HandResult per hand played


def play_game(strategy_a, strategy_b, rules, game: int, seed: int, mirrored: bool = True) -> GameResult:
    """Game number ``game`` of ``simulator.api.play_game_records``."""
    pair = game // 2 if mirrored else game
    key = _key(seed ^ DECK_SALT, pair, 1 << 41)
    first_dealer = (key >> 13) & 1
    a_seat = game % 2 if mirrored else (key >> 17) & 1
    specs = (strategy_a, strategy_b)
    players = [Player.of(specs[0 if seat == a_seat else 1]) for seat in range(2)]
    points = [0, 0]  # hand points: these decide the target
    boxes = [0, 0]  # hands won
    dealer = first_dealer
    n_hands = dead = error = error_value = 0
    error_seat = -1
    winner = -1
    results = []
    while n_hands < MAX_HANDS_PER_GAME:
        deck, _ = shuffled_deck(seed, pair, n_hands + 1)
        deck_rng = new_stream(_key(seed ^ DECK_SALT, pair, (n_hands + 1) | (1 << 40)))
        for seat in range(2):
            who = 0 if seat == a_seat else 1
            players[seat].rng = new_stream(_key(seed ^ PLAYER_SALT, game, n_hands * 2 + who))
        res = Hand(deck, dealer, players, rules, tuple(points), deck_rng).play()
        res.record.update(deal=n_hands, pair=pair, a_seat=a_seat, game=game, hand_in_game=n_hands)
        results.append(res)
        n_hands += 1
        rec = res.record
        if rec["error"] != ERR_NONE:
            error, error_seat, error_value = rec["error"], rec["error_seat"], rec["error_value"]
            break
        if rec["outcome"] == "dead":
            dead += 1
            continue  # the same dealer deals again
        w = rec["winner"]
        if w >= 0:
            points[w] += rec["points"]
            boxes[w] += 1
        if max(points) >= rules.target_score:
            winner = 0 if points[0] >= rules.target_score else 1
            break
        if rules.next_dealer == "alternate" or w < 0:
            dealer = 1 - dealer
        elif rules.next_dealer == "loser":
            dealer = 1 - w
        else:  # "winner"
            dealer = w
    totals = [points[s] + boxes[s] * rules.box_bonus for s in range(2)]
    shutout = False
    if winner >= 0:
        loser = 1 - winner
        shutout = points[loser] == 0
        bonus = rules.game_bonus
        if shutout and rules.shutout == "double_bonus":
            bonus = 2 * rules.game_bonus
        totals[winner] += bonus
        if shutout and rules.shutout == "double":
            totals[winner] *= 2
    record = dict(
        game=game, pair=pair, a_seat=a_seat, first_dealer=first_dealer, winner=winner,
        hands=n_hands, score0=totals[0], score1=totals[1], points0=points[0],
        points1=points[1], boxes0=boxes[0], boxes1=boxes[1], shutout=int(shutout),
        dead_hands=dead, error=error, error_seat=error_seat, error_value=error_value,
    )
    return GameResult(record, results)


def hand_row(result: HandResult) -> list[int]:
    """The record as the engine's int row (outcome as its index)."""
    r = dict(result.record)
    r["outcome"] = OUTCOMES.index(r["outcome"])
    return [int(r[c]) for c in HAND_COLUMNS]


def game_row(result: GameResult) -> list[int]:
    return [int(result.record[c]) for c in GAME_COLUMNS]
