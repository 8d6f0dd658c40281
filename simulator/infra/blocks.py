"""Blocks of a batch on a pool of threads: how the kernels use more than one core.

A batch of deals, games or record rows is cut into at most ``N_BLOCKS`` consecutive blocks,
and a pool of Python threads runs a kernel on one block at a time.  The kernels are compiled
with ``nogil=True``, so the threads run them in parallel; a thread pool instead of a numba
``prange`` loop saves numba's parallel compile, several seconds of every cold start.  Which
items a block holds never changes a result: every deal and game has its own random streams
(``simulator.core.rng``), so rows are the same for any thread count.
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Callable

#: a batch is split into at most this many blocks, handed to the threads as they free up
N_BLOCKS = 256
#: after Ctrl-C, how long the blocks already running may take to end before the process
#: stops anyway (compiled code cannot be interrupted: a plug-in's endless loop never ends)
INTERRUPT_GRACE_S = 3.0


def _stop_stuck_process() -> None:
    """Ctrl-C came while compiled code did not return: nothing can stop that thread, so
    end the process (exit status 130, as for an interrupt) with one line saying why."""
    print(f"ginsim: interrupted, but a kernel has not returned {INTERRUPT_GRACE_S:g} s later (an endless loop "
          "in a strategy's compiled code?); stopping the process", file=sys.stderr, flush=True)
    os._exit(130)


#: the pools of kernel threads, one per thread count, started on first use and kept for the
#: process (a call starts no threads); a forked child starts its own
_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()
_THREAD_PREFIX = "ginsim-kernel"


def _forget_pools_after_fork() -> None:
    global _POOLS_LOCK
    _POOLS.clear()  # the parent's threads do not exist in the child
    _POOLS_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_pools_after_fork)


def _pool(threads: int) -> ThreadPoolExecutor:
    with _POOLS_LOCK:
        pool = _POOLS.get(threads)
        if pool is None:
            pool = _POOLS[threads] = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=_THREAD_PREFIX)
        return pool


#: a call of fewer items than this plays on one thread (``call_plan``): handing blocks to a
#: second thread costs more than it saves on a call this small
SMALL_CALL_ITEMS = 2048
#: fewest items per block (``call_plan``): each block costs a Python call and a hand-over
MIN_BLOCK_ITEMS = 256


def call_plan(n_items: int, threads: int | None = None, min_block: int = MIN_BLOCK_ITEMS) -> tuple[int, int]:
    """``(threads, n_blocks)`` for a batch of ``n_items`` items: one thread below
    ``SMALL_CALL_ITEMS`` items, else ``threads`` (default numba's thread count); blocks of
    at least ``min_block`` items, at most ``N_BLOCKS`` of them, and at least one per thread.
    Neither changes a result (rows never depend on the blocks)."""
    if threads is None:
        import numba

        threads = numba.get_num_threads()
    threads = 1 if n_items < SMALL_CALL_ITEMS else max(1, int(threads))
    return threads, max(threads, min(N_BLOCKS, n_items // max(1, min_block)))


def run_blocks(kernel: Callable[[int, int], object], n_items: int, threads: int | None = None,
               n_blocks: int = N_BLOCKS, inline: bool = False) -> None:
    """Call ``kernel(start, stop)`` over ``min(n_items, n_blocks)`` consecutive blocks of
    ``0 .. n_items`` on ``threads`` threads (default ``numba.get_num_threads()``, which
    ``numba.set_num_threads`` sets).  Blocks are taken in order as threads free up, so a
    thread slowed by other work leaves the rest to the others.  An exception in a block (or
    an interrupt) is raised here once the blocks already started have ended; the others
    never start.  The blocks always run on pool threads (one thread for ``threads`` = 1;
    the pools live as long as the process, so a call starts no thread), and the calling
    thread stays interruptible: after Ctrl-C a block still running
    ``INTERRUPT_GRACE_S`` later (compiled code that never returns) ends the process with
    status 130 instead of ignoring the interrupt.  ``inline`` (for kernels known to return:
    the built-in strategies') runs the blocks of a one-thread call in the calling thread
    instead, which saves a hand-over per block; Ctrl-C then stops the call between blocks."""
    n_blocks = min(n_items, n_blocks)
    if n_blocks <= 0:
        return
    bounds = [(block * n_items // n_blocks, (block + 1) * n_items // n_blocks) for block in range(n_blocks)]
    if threads is None:
        import numba

        threads = numba.get_num_threads()
    threads = max(1, min(int(threads), n_blocks))
    if (inline and threads == 1) or threading.current_thread().name.startswith(_THREAD_PREFIX):
        # one thread for kernels that return, or called from a block (no pool to wait on)
        for start, stop in bounds:
            kernel(start, stop)
        return
    futures = [_pool(threads).submit(kernel, start, stop) for start, stop in bounds]
    try:
        for future in futures:
            future.result()
    except BaseException as exc:  # an error or Ctrl-C: blocks not yet started never start
        for future in futures:
            future.cancel()
        _, running = wait(futures, timeout=INTERRUPT_GRACE_S if isinstance(exc, KeyboardInterrupt) else None)
        if running:
            _stop_stuck_process()
        raise
