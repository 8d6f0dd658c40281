"""Raw engine records for fixed seeds are unchanged: every built-in strategy against ``simple``
on every rules preset (deals and whole games, ``tests/record_digests.py``), and the same on one
and on two numba threads.  A deliberate change of the rows regenerates the digests with
``python tests/record_digests.py --write`` (and says why in the commit)."""

from __future__ import annotations

import json

import numba
import pytest

import record_digests as RD
from simulator.engine import select


@pytest.fixture(autouse=True)
def _engine_choice_restored():
    """Playing the search players makes every later call of the process use the full engine
    (``select.will_play``): leave the choice as the other tests found it."""
    before = set(select._WILL_PLAY)
    yield
    select._WILL_PLAY.clear()
    select._WILL_PLAY.update(before)


def test_records_match_the_checked_in_digests():
    want = json.loads(RD.DIGESTS.read_text())
    assert set(want) == {RD.key(*c) for c in RD.cells()}
    got = RD.compute()
    assert {k: v for k, v in got.items() if want[k] != v} == {}


def test_records_do_not_depend_on_the_thread_count():
    some = {RD.key("simple", "simple", "hoyle"), RD.key("mc", "simple", "oklahoma")}
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = RD.compute(some)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = RD.compute(some)
    finally:
        numba.set_num_threads(before)
    assert one == two and len(one) == 2
