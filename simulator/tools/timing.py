"""The one timing rule every ``ginsim bench`` section follows: the least time of a few calls,
wall clock or CPU, so that a figure counts the work and not what else the machine was doing."""

from __future__ import annotations

import time


def best_time(fn, repeats: int, clock=time.perf_counter) -> float:
    """The least time of ``repeats`` calls of ``fn`` (wall clock; ``time.process_time``: CPU)."""
    best = float("inf")
    for _ in range(repeats):
        t = clock()
        fn()
        best = min(best, clock() - t)
    return best
