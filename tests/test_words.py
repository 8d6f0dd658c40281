"""The work row's words read as another 8-byte type (``simulator.infra.words``): the same
memory as numpy's ``view``, from callers with and without reference counting, and refused
at compile time for anything but a contiguous 1-D array of 8-byte words."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from simulator.infra.jit import CORE
from simulator.infra.words import as_float64_nb, as_uint64_nb


@njit
def _read_and_write(row):  # reference counting on (numba's default)
    floats = as_float64_nb(row[2:5])
    floats[0] = -0.0
    streams = as_uint64_nb(row[5:7])
    streams[1] = np.uint64(2**64 - 1)
    return floats.sum(), streams[0]


@CORE
def _read_and_write_no_nrt(row):  # the engine's profile: no reference counting
    floats = as_float64_nb(row[2:5])
    floats[2] = 2.5
    return floats[1] + floats[2]


def test_the_words_are_read_as_numpy_views_them_and_writes_land_in_the_row():
    row = np.arange(8, dtype=np.int64)
    row[2:5] = np.array([1.5, np.nan, 3.0]).view(np.int64)
    row[5] = np.array([2**63 + 7], np.uint64).view(np.int64)[0]
    total, first = _read_and_write(row)
    assert np.isnan(total) and first == np.uint64(2**63 + 7)
    assert row[2:5].view(np.float64)[0] == 0.0 and np.signbit(row[2:5].view(np.float64)[0])  # -0.0, bit for bit
    assert row[6] == -1  # 2**64 - 1 written as uint64 is every bit set
    row[3] = np.array([4.0]).view(np.int64)[0]
    assert _read_and_write_no_nrt(row) == 6.5 and row[4] == np.array([2.5]).view(np.int64)[0]


def test_anything_but_contiguous_one_dimensional_eight_byte_words_is_refused_when_compiled():
    @njit
    def two_d(a):
        return as_float64_nb(a)

    @njit
    def strided(a):
        return as_float64_nb(a[::2])

    @njit
    def four_byte_words(a):
        return as_uint64_nb(a)

    with pytest.raises(TypingError):
        two_d(np.zeros((2, 2), np.int64))
    with pytest.raises(TypingError):
        strided(np.zeros(4, np.int64))
    with pytest.raises(TypingError):
        four_byte_words(np.zeros(4, np.int32))
