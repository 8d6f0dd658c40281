"""Counter-based random streams: every deal's randomness comes from (seed, indices).

A stream is a one-element uint64 array holding a counter; each draw advances it by the
golden-ratio increment and returns splitmix64's scramble of it.  Streams are keyed with
``stream_key_nb(seed, a, b)`` so a deal's deck, its reshuffles and each player's decisions
depend only on the root seed and the deal's indices — never on thread count or chunking.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .melds import mix64_nb

GOLDEN = np.uint64(0x9E3779B97F4A7C15)


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
