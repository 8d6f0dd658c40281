"""Counter-based random streams: every deal's randomness comes from (seed, indices).

A stream is a one-element uint64 array holding a counter; each draw advances it by the
golden-ratio increment and returns splitmix64's scramble of it.  Streams are keyed with
``stream_key_nb(seed, a, b)`` so a deal's deck, its reshuffles and each player's decisions
depend only on the root seed and the deal's indices — never on thread count or chunking.

How a deal's streams are keyed is defined once, here (``deal_deck_nb``, ``deal_seats_nb``,
``hand_streams_nb``, ``game_start_nb``), and used by the batch kernels
(``simulator.engine.kernels``), the Python driver (``simulator.engine.pydriver``) and
``simulator.Hand``, so the three deal the same cards and streams by construction:

* the deck of hand ``h`` of pair ``p`` (``h`` = 0 for a single deal, hand ``k`` of a game
  is ``h = k + 1``) is shuffled by the stream ``(seed ^ DECK_SALT, p, h)``; after the
  shuffle its key gives a single deal's dealer (bit 13) and, unmirrored, A's seat (bit 17);
* the same hand's reshuffles draw from ``(seed ^ DECK_SALT, p, h | 2**40)``;
* each seat's decisions from ``(seed ^ PLAYER_SALT, d, i + who)`` (``who`` 0 for A, 1 for
  B): ``d`` the deal and ``i = 0`` for a single deal, ``d`` the game and ``i = 2k`` for
  hand ``k`` of a game;
* a game's first dealer and A's seat come from ``(seed ^ DECK_SALT, p, 2**41)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import DECK
from .melds import mix64_nb

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: salts of the deck and player streams, and the stream indices of reshuffles and game starts
PLAYER_SALT = 0x0123456789ABCDEF
DECK_SALT = 0x7F4A7C159E3779B9
RESHUFFLE_STREAM = 1 << 40
GAME_START_STREAM = 1 << 41


@njit(cache=True)
def stream_key_nb(seed, a, b):
    """A 64-bit stream key from the root seed and two indices."""
    k = mix64_nb(np.uint64(seed) ^ np.uint64(0x5851F42D4C957F2D))
    k = mix64_nb(k ^ np.uint64(a))
    return mix64_nb(k ^ (np.uint64(b) * np.uint64(0x2545F4914F6CDD1D)))


@njit(cache=True)
def next_u64_nb(state):
    state[0] = state[0] + GOLDEN
    return mix64_nb(state[0] - GOLDEN)


@njit(cache=True)
def below_nb(state, n):
    """A uniform integer in [0, n) for n < 2**32 (multiply-shift; bias below 2**-32)."""
    return np.int64(((next_u64_nb(state) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def random_card_of_nb(state, mask):
    """A card drawn uniformly from a non-empty hand mask."""
    x = np.uint64(mask)
    n = 0
    y = x
    while y:
        y &= y - np.uint64(1)
        n += 1
    k = below_nb(state, n)
    for _ in range(k):
        x &= x - np.uint64(1)
    low = x & (~x + np.uint64(1))
    card = 0
    while low > np.uint64(1):
        low >>= np.uint64(1)
        card += 1
    return np.int64(card)


@njit(cache=True)
def shuffle_nb(state, cards, n):
    """Fisher-Yates shuffle of ``cards[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = below_nb(state, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t


# ---- a deal's streams (see the module docstring) ---------------------------------------------

@njit(cache=True)
def deal_deck_nb(seed, pair, hand_index, deck, rng):
    """Shuffle the 52 cards into ``deck`` with the deck stream of hand ``hand_index`` of
    pair ``pair``, left in ``rng``."""
    rng[0] = stream_key_nb(seed ^ DECK_SALT, pair, hand_index)
    for i in range(52):
        deck[i] = DECK[i]
    shuffle_nb(rng, deck, np.int64(52))


@njit(cache=True)
def deal_seats_nb(key, deal, mirrored):
    """(dealer, A's seat) of deal (or game) ``deal`` from the deck stream's ``key``: with
    mirrored deals A sits in seat ``deal % 2``, else in the seat the key draws."""
    dealer = np.int64(np.uint64(key) >> np.uint64(13)) & 1
    if mirrored:
        return dealer, np.int64(deal % 2)
    return dealer, np.int64(np.uint64(key) >> np.uint64(17)) & 1


@njit(cache=True)
def hand_streams_nb(seed, pair, hand_index, unit, first_index, a_seat, deck_rng, player_rngs):
    """Key the reshuffle stream of hand ``hand_index`` of pair ``pair`` into ``deck_rng``
    and each seat's decision stream ``(unit, first_index + who)`` into ``player_rngs``."""
    deck_rng[0] = stream_key_nb(seed ^ DECK_SALT, pair, np.int64(hand_index) | RESHUFFLE_STREAM)
    for seat in range(2):
        who = 0 if seat == a_seat else 1
        player_rngs[seat, 0] = stream_key_nb(seed ^ PLAYER_SALT, unit, first_index + who)


@njit(cache=True)
def game_start_nb(seed, game, mirrored, rng):
    """(pair, first dealer, A's seat) of game ``game``; its start stream is left in ``rng``."""
    pair = game // 2 if mirrored else game
    rng[0] = stream_key_nb(seed ^ DECK_SALT, pair, np.int64(GAME_START_STREAM))
    dealer, a_seat = deal_seats_nb(rng[0], game, mirrored)
    return np.int64(pair), dealer, a_seat
