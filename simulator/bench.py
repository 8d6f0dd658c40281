"""``ginsim bench``: how fast the rules core and the engine run on this machine.

Prints nanoseconds per ``min_deadwood`` (10 cards) and ``best_discard`` (11 cards) on
random hands, and deals per second for several matchups and rule sets on one thread and
on all cores.  Every kernel is called once before timing (that first call's time, which
includes compiling or loading the cache, is reported separately), then timed as the best
of ``repeats`` runs.  Figures are wall-clock and noisy: compare ratios from one run.
"""

from __future__ import annotations

import json
import os
import time

import numba
import numpy as np
from numba import njit

from .cards import DECK
from .melds import best_discard_nb, min_deadwood_nb


@njit(cache=True)
def _time_min_deadwood_nb(hands):
    acc = 0
    for i in range(hands.shape[0]):
        acc += min_deadwood_nb(hands[i])
    return acc


@njit(cache=True)
def _time_best_discard_nb(hands):
    acc = 0
    for i in range(hands.shape[0]):
        card, dw = best_discard_nb(hands[i], -1)
        acc += card + dw
    return acc


def random_hands(n: int, size: int, seed: int = 0) -> np.ndarray:
    """``n`` random hand masks of ``size`` cards."""
    rng = np.random.default_rng(seed)
    keys = rng.random((n, 52))
    picks = DECK[np.argpartition(keys, size, axis=1)[:, :size]]
    return np.bitwise_or.reduce(np.left_shift(np.int64(1), picks), axis=1)


def _best_time(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def bench_rules(n: int = 1_000_000, repeats: int = 3) -> list[dict]:
    rows = []
    for name, kernel, size in (("min_deadwood (10 cards)", _time_min_deadwood_nb, 10),
                               ("best_discard (11 cards)", _time_best_discard_nb, 11)):
        hands = random_hands(n, size, seed=size)
        t = time.perf_counter()
        kernel(hands[:10])
        first = time.perf_counter() - t
        seconds = _best_time(lambda: kernel(hands), repeats)
        rows.append({"benchmark": name, "ns_per_call": seconds / n * 1e9, "first_call_s": first, "calls": n})
    return rows


MATCHUPS = [("simple", "simple"), ("knock_early", "knock_early"), ("gin_hunter", "knock_early")]
RULESETS = ["tournament", "hoyle", "gin_only"]


def bench_engine(n_deals: int = 400_000, repeats: int = 3, matchups=MATCHUPS, rulesets=RULESETS) -> list[dict]:
    from .api import play_deal_records

    rows = []
    threads_all = numba.config.NUMBA_NUM_THREADS
    before = numba.get_num_threads()
    t = time.perf_counter()
    play_deal_records("simple", "simple", "tournament", 0, 2, seed=1)
    first = time.perf_counter() - t
    try:
        for a, b in matchups:
            for rules in rulesets:
                for threads in sorted({1, threads_all}):
                    numba.set_num_threads(threads)
                    seconds = _best_time(lambda: play_deal_records(a, b, rules, 0, n_deals, seed=1), repeats)
                    rows.append({"benchmark": f"{a} vs {b}", "rules": rules, "threads": threads,
                                 "deals_per_s": n_deals / seconds, "deals": n_deals})
    finally:
        numba.set_num_threads(before)
    rows.insert(0, {"benchmark": "engine first call (compile or cache load)", "seconds": first})
    return rows


def run(quick: bool = False, as_json: bool = False) -> dict:
    n_calls = 200_000 if quick else 1_000_000
    n_deals = 50_000 if quick else 400_000
    result = {
        "machine": {"cpus": os.cpu_count(), "numba_threads": numba.config.NUMBA_NUM_THREADS,
                    "numba": numba.__version__, "numpy": np.__version__},
        "rules_core": bench_rules(n_calls),
        "engine": bench_engine(n_deals),
    }
    if as_json:
        print(json.dumps(result, indent=2))
    else:
        print_tables(result)
    return result


def print_tables(result: dict) -> None:
    m = result["machine"]
    print(f"machine: {m['cpus']} cpus, numba {m['numba']} with {m['numba_threads']} threads")
    print(f"\n{'rules core':<28}{'ns/call':>10}{'first call s':>14}")
    for r in result["rules_core"]:
        print(f"{r['benchmark']:<28}{r['ns_per_call']:>10.1f}{r['first_call_s']:>14.2f}")
    engine = result["engine"]
    print(f"\nengine first call (compile or cache load): {engine[0]['seconds']:.2f} s")
    print(f"{'matchup':<28}{'rules':<12}{'threads':>8}{'deals/s':>14}")
    for r in engine[1:]:
        print(f"{r['benchmark']:<28}{r['rules']:<12}{r['threads']:>8}{r['deals_per_s']:>14,.0f}")
