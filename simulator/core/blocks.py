"""Blocks of a batch on a pool of threads: how the kernels use more than one core.

A batch of deals, games or record rows is cut into at most ``N_BLOCKS`` consecutive blocks,
and a pool of Python threads runs a kernel on one block at a time.  The kernels are compiled
with ``nogil=True``, so the threads run them in parallel; a thread pool instead of a numba
``prange`` loop saves numba's parallel compile, several seconds of every cold start.  Which
items a block holds never changes a result: every deal and game has its own random streams
(``simulator.core.rng``), so rows are the same for any thread count.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable

#: a batch is split into at most this many blocks, handed to the threads as they free up
N_BLOCKS = 256


def run_blocks(kernel: Callable[[int, int], object], n_items: int, threads: int | None = None,
               n_blocks: int = N_BLOCKS) -> None:
    """Call ``kernel(start, stop)`` over ``min(n_items, n_blocks)`` consecutive blocks of
    ``0 .. n_items`` on ``threads`` threads (default ``numba.get_num_threads()``, which
    ``numba.set_num_threads`` sets).  Blocks are taken in order as threads free up, so a
    thread slowed by other work leaves the rest to the others.  An exception in a block (or
    an interrupt) is raised here once the blocks already started have ended; the others
    never start."""
    n_blocks = min(n_items, n_blocks)
    if n_blocks <= 0:
        return
    bounds = [(block * n_items // n_blocks, (block + 1) * n_items // n_blocks) for block in range(n_blocks)]
    if threads is None:
        import numba

        threads = numba.get_num_threads()
    threads = max(1, min(int(threads), n_blocks))
    if threads == 1:
        for start, stop in bounds:
            kernel(start, stop)
        return
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="ginsim-kernel") as pool:
        futures = [pool.submit(kernel, start, stop) for start, stop in bounds]
        try:
            for future in futures:
                future.result()
        except BaseException:  # an error or Ctrl-C: blocks not yet started never start
            for future in futures:
                future.cancel()
            raise
