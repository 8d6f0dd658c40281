"""simulator.infra.blocks.run_blocks: every item in exactly one block, in order within a block,
for any thread count; an error in a block is raised and later blocks never start."""

from __future__ import annotations

import threading
import time

import pytest

from simulator.infra.blocks import N_BLOCKS, run_blocks


@pytest.mark.parametrize("n_items", [0, 1, 2, 7, 255, 256, 257, 10_000])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_every_item_in_exactly_one_block(n_items, threads):
    seen = []
    lock = threading.Lock()

    def kernel(start, stop):
        with lock:
            seen.append((start, stop))

    run_blocks(kernel, n_items, threads)
    assert len(seen) == min(n_items, N_BLOCKS)
    covered = sorted(i for start, stop in seen for i in range(start, stop))
    assert covered == list(range(n_items))
    assert all(stop > start for start, stop in seen)


def test_an_error_in_a_block_is_raised_and_later_blocks_never_start():
    started = []

    def kernel(start, stop):
        started.append(start)
        if start == 0:
            raise RuntimeError("block 0 failed")
        time.sleep(0.01)  # the other thread is busy while the error is seen

    with pytest.raises(RuntimeError, match="block 0 failed"):
        run_blocks(kernel, 100, threads=2, n_blocks=50)
    assert len(started) < 50


def test_default_thread_count_is_numbas():
    import numba

    names = set()

    def kernel(start, stop):
        names.add(threading.current_thread().name)

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        run_blocks(kernel, 64)
    finally:
        numba.set_num_threads(before)
    # one thread: every block on one pool thread, so the caller stays interruptible (Ctrl-C)
    assert len(names) == 1 and names != {threading.current_thread().name}


def test_calls_reuse_the_pool_threads_and_a_forked_child_starts_its_own():
    import os

    names = set()

    def kernel(start, stop):
        names.add(threading.current_thread().ident)

    run_blocks(kernel, 50, threads=2)
    before = threading.active_count()
    for _ in range(20):
        run_blocks(kernel, 50, threads=2)
    assert threading.active_count() == before  # no thread started per call
    assert len(names) <= 2
    pid = os.fork()
    if pid == 0:  # the parent's pool threads do not exist here: a new pool must serve the call
        seen = []
        try:
            run_blocks(lambda start, stop: seen.append(stop - start), 10, threads=2)
            os._exit(0 if sum(seen) == 10 else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_block_calling_run_blocks_runs_the_inner_blocks_itself():
    inner = []

    def outer(start, stop):
        run_blocks(lambda a, b: inner.append((a, b)), 4, threads=1)

    run_blocks(outer, 3, threads=1)  # would wait forever on its own one-thread pool
    assert sorted(inner) == sorted([(0, 1), (1, 2), (2, 3), (3, 4)] * 3)


def test_small_calls_play_on_one_thread_in_blocks_of_at_least_min_block():
    from simulator.infra.blocks import MIN_BLOCK_ITEMS, SMALL_CALL_ITEMS, call_plan

    assert call_plan(SMALL_CALL_ITEMS - 1, threads=2) == (1, max(1, (SMALL_CALL_ITEMS - 1) // MIN_BLOCK_ITEMS))
    assert call_plan(10, threads=2) == (1, 1)
    threads, n_blocks = call_plan(1_000_000, threads=2)
    assert threads == 2 and n_blocks == N_BLOCKS
    threads, n_blocks = call_plan(SMALL_CALL_ITEMS, threads=2)
    assert threads == 2 and n_blocks == max(2, SMALL_CALL_ITEMS // MIN_BLOCK_ITEMS)


def test_inline_runs_one_thread_calls_in_the_calling_thread_and_more_threads_on_the_pool():
    names = set()

    def kernel(start, stop):
        names.add(threading.current_thread().name)

    run_blocks(kernel, 64, threads=1, inline=True)
    assert names == {threading.current_thread().name}
    names.clear()
    run_blocks(kernel, 64, threads=2, n_blocks=8, inline=True)
    assert threading.current_thread().name not in names


def test_a_built_in_batch_is_the_same_on_one_and_two_threads_small_or_large():
    import numpy as np

    from simulator.api import play_deal_records

    before = numba_threads()
    try:
        rows = {}
        for threads in (1, 2):
            set_numba_threads(threads)
            rows[threads] = [play_deal_records("simple", "gin_hunter", "hoyle", 0, n, 5) for n in (100, 3000)]
    finally:
        set_numba_threads(before)
    assert all(np.array_equal(a, b) for a, b in zip(rows[1], rows[2]))


def numba_threads() -> int:
    import numba

    return numba.get_num_threads()


def set_numba_threads(n: int) -> None:
    import numba

    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
