"""Counter-based random streams: every deal's randomness comes from (seed, indices).

A stream is a one-element uint64 array holding a counter; each draw advances it by the
golden-ratio increment and returns splitmix64's scramble of it.  Streams are keyed with
``stream_key_nb(seed, a, b)`` so a deal's deck, its reshuffles and each player's decisions
depend only on the root seed and the deal's indices — never on thread count or chunking.

How a deal's streams are keyed is defined once, here, for every way a hand starts:
``deal_streams_nb`` (deal ``d`` of ``simulate``), ``game_start_nb`` and
``game_hand_streams_nb`` (hand ``k`` of game ``g`` of ``simulate_games``) and
``scripted_streams_nb`` (an explicit deck: ``simulator.api.play_deck``,
``simulator.Hand(deck=...)``).  The batch kernels (``simulator.engine.kernels``), the Python
driver (``simulator.engine.pydriver``), ``simulator.Hand``, the RL environment (an episode
is a game, or a deal, of a seed drawn from its generator) and the belief study call them, so
they deal the same cards and streams by construction:

* the deck of hand ``h`` of pair ``p`` (``h`` = 0 for a single deal, hand ``k`` of a game
  is ``h = k + 1``) is shuffled by the stream ``(seed ^ DECK_SALT, p, h)``; after the
  shuffle its key gives a single deal's dealer (bit 13) and, unmirrored, A's seat (bit 17);
* the same hand's reshuffles draw from ``(seed ^ DECK_SALT, p, h | 2**40)``;
* each seat's decisions from ``(seed ^ PLAYER_SALT, d, i + who)`` (``who`` 0 for A, 1 for
  B): ``d`` the deal and ``i = 0`` for a single deal, ``d`` the game and ``i = 2k`` for
  hand ``k`` of a game;
* a game's first dealer and A's seat come from ``(seed ^ DECK_SALT, p, 2**41)``;
* an explicit deck (A in seat 0) has no shuffle: its reshuffles draw from
  ``(seed, 1, 0)`` and seat ``s``'s decisions from ``(seed, 0, s)``.

Every shuffle, of a deck, of the pile into a new stock (``simulator.core.state``) or of a
search player's sampled stock (``strategies.mc``), is ``shuffle_span_nb``.

The generators Python code makes from a seed are made here too, below the strategies
(``tests/test_seeds.py`` fails on one made anywhere else): ``numpy_generator(*key)``, numpy's
PCG64 keyed by integers (the OpenSpiel arena's and match's decks, the class game's bootstrap,
a Python player's own stream, the plug-in check's chooser, benchmark inputs);
``python_random(seed)``, Python's own (OpenSpiel's random simulation, the resampler's draws);
``random_state(seed)``, numpy's legacy generator, which OpenSpiel's MCTS bots take;
``golden_scramble(seed)``, a seed times the 64-bit golden ratio (the first state of ``mc``'s
stream in the OpenSpiel game); ``fresh_seed()``, a seed from the operating system's entropy
(a game at the terminal given none).  Seeds derived from a study's seed are
``simulator.run.seeds``'s.
"""

from __future__ import annotations

import random

import numpy as np

from .bits import ctpop_u64, cttz_u64
from .cards import DECK
from .melds import mix64_nb
from ..infra.jit import CORE

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: salts of the deck and player streams, and the stream indices of reshuffles and game starts
PLAYER_SALT = 0x0123456789ABCDEF
DECK_SALT = 0x7F4A7C159E3779B9
RESHUFFLE_STREAM = 1 << 40
GAME_START_STREAM = 1 << 41


@CORE
def stream_key_nb(seed, a, b):
    """A 64-bit stream key from the root seed and two indices."""
    k = mix64_nb(np.uint64(seed) ^ np.uint64(0x5851F42D4C957F2D))
    k = mix64_nb(k ^ np.uint64(a))
    return mix64_nb(k ^ (np.uint64(b) * np.uint64(0x2545F4914F6CDD1D)))


@CORE
def next_u64_nb(state):
    state[0] = state[0] + GOLDEN
    return mix64_nb(state[0] - GOLDEN)


@CORE
def below_nb(state, n):
    """A uniform integer in [0, n) for n < 2**32 (multiply-shift; bias below 2**-32)."""
    return np.int64(((next_u64_nb(state) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@CORE
def random_card_of_nb(state, mask):
    """A card drawn uniformly from a non-empty hand mask: the k-th lowest of its cards for
    k = ``below_nb(state, number of cards)``."""
    x = np.uint64(mask)
    k = below_nb(state, ctpop_u64(x))
    for _ in range(k):
        x &= x - np.uint64(1)
    return cttz_u64(x) & 63


@CORE
def shuffle_span_nb(counter, cards, start, n):
    """Fisher-Yates shuffle of ``cards[start:start + n]`` in place, drawing from the stream
    whose counter is ``counter`` (as ``below_nb`` draws: position ``i`` swaps with one of
    ``0 .. i``, from the top down); returns the advanced counter.  (A counter, not a
    stream array, so the hand state can keep its reshuffle stream in one int64 slot.)"""
    c = np.uint64(counter)
    for i in range(n - 1, 0, -1):
        x = mix64_nb(c)
        c += GOLDEN
        j = np.int64(((x >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
        t = cards[start + i]
        cards[start + i] = cards[start + j]
        cards[start + j] = t
    return c


@CORE
def shuffle_nb(state, cards, n):
    """Fisher-Yates shuffle of ``cards[:n]`` in place with the stream ``state``
    (``shuffle_span_nb``)."""
    state[0] = shuffle_span_nb(state[0], cards, np.int64(0), np.int64(n))


# ---- a deal's streams (see the module docstring) ---------------------------------------------

@CORE
def deal_deck_nb(seed, pair, hand_index, deck, rng):
    """Shuffle the 52 cards into ``deck`` with the deck stream of hand ``hand_index`` of
    pair ``pair``, left in ``rng``."""
    rng[0] = stream_key_nb(seed ^ DECK_SALT, pair, hand_index)
    for i in range(52):
        deck[i] = DECK[i]
    rng[0] = shuffle_span_nb(rng[0], deck, np.int64(0), np.int64(52))


@CORE
def deal_seats_nb(key, deal, mirrored):
    """(dealer, A's seat) of deal (or game) ``deal`` from the deck stream's ``key``: with
    mirrored deals A sits in seat ``deal % 2``, else in the seat the key draws."""
    dealer = np.int64(np.uint64(key) >> np.uint64(13)) & 1
    if mirrored:
        return dealer, np.int64(deal % 2)
    return dealer, np.int64(np.uint64(key) >> np.uint64(17)) & 1


@CORE
def hand_streams_nb(seed, pair, hand_index, unit, first_index, a_seat, deck_rng, player_rngs):
    """Key the reshuffle stream of hand ``hand_index`` of pair ``pair`` into ``deck_rng``
    and each seat's decision stream ``(unit, first_index + who)`` into ``player_rngs`` (2, by
    seat)."""
    deck_rng[0] = stream_key_nb(seed ^ DECK_SALT, pair, np.int64(hand_index) | RESHUFFLE_STREAM)
    for seat in range(2):
        who = 0 if seat == a_seat else 1
        player_rngs[seat] = stream_key_nb(seed ^ PLAYER_SALT, unit, first_index + who)


@CORE
def game_start_nb(seed, game, mirrored, rng):
    """(pair, first dealer, A's seat) of game ``game``; its start stream is left in ``rng``."""
    pair = game // 2 if mirrored else game
    rng[0] = stream_key_nb(seed ^ DECK_SALT, pair, np.int64(GAME_START_STREAM))
    dealer, a_seat = deal_seats_nb(rng[0], game, mirrored)
    return np.int64(pair), dealer, a_seat


@CORE
def deal_streams_nb(seed, deal, mirrored, deck, deck_rng, player_rngs):
    """Start deal ``deal`` of ``simulate(seed=seed, mirrored=mirrored)``: its shuffled deck
    into ``deck``, its reshuffle stream into ``deck_rng`` and each seat's decision stream
    into ``player_rngs`` (2, by seat).  Returns (pair, dealer, A's seat)."""
    pair = deal // 2 if mirrored else deal
    deal_deck_nb(seed, pair, np.int64(0), deck, deck_rng)
    dealer, a_seat = deal_seats_nb(deck_rng[0], deal, mirrored)
    hand_streams_nb(seed, pair, np.int64(0), deal, np.int64(0), a_seat, deck_rng, player_rngs)
    return np.int64(pair), dealer, a_seat


@CORE
def game_hand_streams_nb(seed, game, pair, hand, a_seat, deck, deck_rng, player_rngs):
    """Start hand ``hand`` of game ``game`` (pair ``pair``, A in ``a_seat``: from
    ``game_start_nb``): its deck, reshuffle stream and the seats' decision streams."""
    deal_deck_nb(seed, pair, np.int64(hand + 1), deck, deck_rng)
    hand_streams_nb(seed, pair, np.int64(hand + 1), game, np.int64(hand * 2), a_seat, deck_rng, player_rngs)


@CORE
def scripted_streams_nb(seed, deck_rng, player_rngs):
    """The streams of a hand dealt from an explicit deck (A in seat 0): the reshuffle
    stream into ``deck_rng``, seat ``s``'s decision stream into ``player_rngs[s]``."""
    deck_rng[0] = stream_key_nb(seed, np.int64(1), np.int64(0))
    for seat in range(2):
        player_rngs[seat] = stream_key_nb(seed, np.int64(0), np.int64(seat))


# ----------------------------------------------------------------------------- generators made from a seed
def numpy_generator(*key: int) -> np.random.Generator:
    """numpy's default generator (PCG64) keyed by ``key``: one integer, or several (a list)."""
    return np.random.default_rng(key[0] if len(key) == 1 else list(key))


def python_random(seed: int) -> random.Random:
    """Python's generator (Mersenne Twister) seeded ``seed``."""
    return random.Random(seed)


def random_state(seed: int | None = None) -> np.random.RandomState:
    """numpy's legacy generator seeded ``seed`` (None: from the operating system's entropy),
    the kind OpenSpiel's MCTS bots take."""
    return np.random.RandomState(seed)


#: the 64-bit golden ratio, ``2**64 / phi`` rounded to odd
GOLDEN_64 = 0x9E3779B97F4A7C15


def golden_scramble(seed: int) -> int:
    """``seed`` times the 64-bit golden ratio, modulo 2**64: a stream state from a seed."""
    return seed * GOLDEN_64 % 2 ** 64


def fresh_seed() -> int:
    """A seed below 2**32 from the operating system's entropy (a game with no seed given)."""
    return int(np.random.SeedSequence().entropy % 2 ** 32)
