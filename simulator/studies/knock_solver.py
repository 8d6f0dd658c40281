"""Knock tables played exactly on recorded deals: the game the knock-table study solves.

When both players draw, discard, lay out and defend as one fixed player (``simple``'s, in
``strategies.knock_table``) and only the knock decision differs, a hand's course up to a
knock never depends on the knock policies.  So the engine records each deal once
(``simulator.studies.knock_branches.play_knock_branches``): the hand played with every
knock declined but gin, and at each knock a seat could make, the net points that knock would bring (the
knock played out in a copy of the hand).  A deal is then a list of **branches** (the seat
that may knock, its cell of the abstraction, the value of knocking) and the value of the
hand's end.  Two knock tables meet on a deal by walking its branches: the first branch whose
seat's table knocks ends the hand with that branch's value; a cell strictly between knock
and not is a coin of that probability at each visit.  For pure tables this is exactly what
the engine plays deal by deal (tested); for mixed tables it is the same game in law (the
coin the strategy draws from its stream is independent of the rest of the hand).

On a recorded sample this module gives, all in compiled loops over the branches:

* ``deal_values``: the value to A of table A against table B on every deal (exact);
* ``flip_gains``: for a pure table against a table (or a mixture of tables), the exact
  change of its value when any one cell flips, all 135 in one pass over the branches;
* ``best_response``: a pure table against a table by steepest ascent over single-cell flips
  until none gains: a best response within the abstraction found by a local search, so its
  gain is a LOWER bound on the exploitability (``exploitability`` searches from several
  starts).  The knock-table study (``simulator.studies.knock_table``) runs fictitious play
  with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..infra.jit import CORE

#: room for the knock branches of one deal (a deal with more is refused: ``record``)
CAPACITY = 96


@dataclass(frozen=True)
class Branches:
    """A recorded sample: deal i's branches are ``offsets[i]:offsets[i + 1]`` of ``seat``,
    ``cell`` and ``value`` (net points to seat 0 of knocking there); ``ends[i]`` is the net
    points to seat 0 when nobody knocks but gin; ``a_seat[i]`` is A's seat.  Deals 2p and
    2p + 1 are the two seatings of mirrored pair p."""
    offsets: np.ndarray
    seat: np.ndarray
    cell: np.ndarray
    value: np.ndarray
    ends: np.ndarray
    a_seat: np.ndarray

    @property
    def deals(self) -> int:
        return len(self.ends)

    @property
    def branches(self) -> int:
        return len(self.seat)


def record(rules, seed: int, first_pair: int, n_pairs: int, chunk_pairs: int = 50_000) -> Branches:
    """Record mirrored pairs ``first_pair ..`` of ``seed``'s stream under ``rules`` (a rule
    vector) with ``strategies.knock_table``'s play: deals ``2 * first_pair ..``, as
    ``simulator.api.play_deal_records`` numbers them.  A deal whose branches overflow
    ``CAPACITY`` or whose strategies err is refused with a RuntimeError."""
    from strategies import knock_table as kt

    from ..core.rules import R_KNOCK_LIMIT
    from ..engine.select import engine_module, strategy_pair
    from .knock_branches import BRANCH_COLS, BRANCHES_ERROR, BRANCHES_OVERFLOW, branch_kernels

    never = kt.spec_of(np.zeros(kt.N_CELLS, dtype=int))
    _, _, sids, params = strategy_pair(never, never)
    engine = branch_kernels(engine_module(sids))
    limit = int(rules[R_KNOCK_LIMIT])
    col = {name: i for i, name in enumerate(BRANCH_COLS)}
    parts = []  # per chunk: counts, seats, cells, values, ends, A's seats
    for first in range(first_pair, first_pair + n_pairs, chunk_pairs):
        n = min(chunk_pairs, first_pair + n_pairs - first)
        a_seats, ends, counts, branches = engine.play_knock_branches(np.uint64(seed), 2 * first, 2 * n, rules, sids,
                                                                     params, CAPACITY)
        if (counts == BRANCHES_OVERFLOW).any():
            raise RuntimeError(f"a deal of seed {seed} offers more than {CAPACITY} knocks; raise knock_solver.CAPACITY")
        if (counts == BRANCHES_ERROR).any():
            raise RuntimeError(f"a strategy erred while deals of seed {seed} were recorded")
        used = np.arange(CAPACITY)[None, :] < counts[:, None]
        flat = branches[used]
        cells = kt.cell(flat[:, col["deadwood"]], flat[:, col["draws"]], flat[:, col["pickups"]], limit)
        parts.append((counts, flat[:, col["seat"]].astype(np.int8), cells.astype(np.int16),
                      flat[:, col["value"]].astype(np.float64), ends.astype(np.float64), a_seats.astype(np.int8)))
    counts = np.concatenate([p[0] for p in parts])
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return Branches(offsets, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts]),
                    np.concatenate([p[3] for p in parts]), np.concatenate([p[4] for p in parts]),
                    np.concatenate([p[5] for p in parts]))


# ----------------------------------------------------------------------------- exact play on the sample

@CORE
def _deal_values_nb(offsets, seat, cell, value, ends, a_seat, p_a, p_b, out):
    for i in range(ends.shape[0]):
        reach = 1.0
        total = 0.0
        for j in range(offsets[i], offsets[i + 1]):
            q = p_a[cell[j]] if seat[j] == a_seat[i] else p_b[cell[j]]
            total += reach * q * value[j]
            reach *= 1.0 - q
            if reach == 0.0:
                break
        total += reach * ends[i]
        out[i] = total if a_seat[i] == 0 else -total


def deal_values(sample: Branches, table_a, table_b) -> np.ndarray:
    """Net points to A, per deal, when A knocks by ``table_a`` and B by ``table_b`` (knock
    probabilities per cell)."""
    out = np.empty(sample.deals)
    _deal_values_nb(sample.offsets, sample.seat, sample.cell, sample.value, sample.ends, sample.a_seat,
                    np.asarray(table_a, dtype=np.float64), np.asarray(table_b, dtype=np.float64), out)
    return out


def pair_values(sample: Branches, table_a, table_b) -> np.ndarray:
    """``deal_values`` as the mean of each mirrored pair's two deals."""
    return deal_values(sample, table_a, table_b).reshape(-1, 2).mean(axis=1)


# ----------------------------------------------------------------------------- best responses

@CORE
def _flip_gains_nb(offsets, seat, cell, value, ends, a_seat, table, against, weight, gains, first, stamp, after):
    """Adds to ``gains`` (per cell) ``weight`` times the exact change of A's mean value when
    the pure table ``table`` (A's) flips that cell alone, against ``against`` (B's knock
    probabilities), summed over the deals.  Per deal, O(its branches): before A's first knock
    nothing a flip changes has happened, so a cell that goes on gains, at its first visit,
    the value of knocking there minus the value of going on (reached with the probability
    B has not knocked yet); the cell A knocks in gains what the hand is worth when A goes on
    there and at its later visits; every other cell changes nothing."""
    for i in range(ends.shape[0]):
        start, stop = offsets[i], offsets[i + 1]
        me = a_seat[i]
        sign = 1.0 if me == 0 else -1.0
        knock_at = stop  # A's first knock (stop: none)
        n_first = 0
        for j in range(start, stop):
            c = cell[j]
            if seat[j] == me:
                if table[c] >= 0.5:
                    knock_at = j
                    break
                if stamp[c] != i:  # the first visit of a cell A goes on in
                    stamp[c] = i
                    first[n_first] = j
                    n_first += 1
        # the value of the hand from each branch on (given it is reached), back from A's knock or the end
        later = value[knock_at] if knock_at < stop else ends[i]
        for j in range(knock_at - 1, start - 1, -1):
            after[j - start] = later
            if seat[j] != me:
                q = against[cell[j]]
                later = q * value[j] + (1.0 - q) * later
        # reach: the probability B has not knocked before each branch
        reach = 1.0
        f = 0
        for j in range(start, knock_at):
            if f < n_first and first[f] == j:
                gains[cell[j]] += weight * sign * reach * (value[j] - after[j - start])
                f += 1
            if seat[j] != me:
                reach *= 1.0 - against[cell[j]]
        if knock_at < stop:
            c_knock = cell[knock_at]
            alive = 1.0
            total = 0.0
            for j in range(knock_at + 1, stop):
                c = cell[j]
                if seat[j] == me:
                    if c != c_knock and table[c] >= 0.5:
                        total += alive * value[j]
                        alive = 0.0
                        break
                else:
                    q = against[c]
                    total += alive * q * value[j]
                    alive *= 1.0 - q
            total += alive * ends[i]
            gains[c_knock] += weight * sign * reach * (total - value[knock_at])


def flip_gains(sample: Branches, table, opponents) -> np.ndarray:
    """The exact change of the pure table ``table``'s mean deal value on ``sample`` when any
    one cell flips, against ``opponents``: a list of (weight, knock probabilities) (a mixture
    of tables, or one table with weight 1)."""
    table = np.asarray(table, dtype=np.float64)
    gains = np.zeros(len(table))
    width = int(np.diff(sample.offsets).max(initial=0)) + 1
    first = np.empty(width, dtype=np.int64)
    stamp = np.full(len(table), -1, dtype=np.int64)
    after = np.empty(width)
    for weight, against in opponents:
        stamp[:] = -1
        _flip_gains_nb(sample.offsets, sample.seat, sample.cell, sample.value, sample.ends, sample.a_seat, table,
                       np.asarray(against, dtype=np.float64), float(weight), gains, first, stamp, after)
    return gains / sample.deals


def mixture_value(sample: Branches, table, opponents) -> float:
    """The mean deal value on ``sample`` of ``table`` against the mixture ``opponents``."""
    return float(sum(w * deal_values(sample, table, t).mean() for w, t in opponents))


def best_response(sample: Branches, opponents, start, max_flips: int = 10_000) -> tuple[np.ndarray, int]:
    """A pure table against ``opponents`` (a list of (weight, knock probabilities)) on
    ``sample``, by steepest ascent from the pure table ``start``: flip the cell whose flip
    gains most (``flip_gains``, exact on the sample) until no flip gains.  Returns the table
    and the flips made.  A local search: its gain bounds the exploitability within the
    abstraction from below only."""
    table = np.asarray(start, dtype=np.float64).copy()
    for flips in range(max_flips):
        gains = flip_gains(sample, table, opponents)
        c = int(np.argmax(gains))
        if gains[c] <= 1e-12:
            return table, flips
        table[c] = 1.0 - table[c]
    return table, max_flips


def response_gain(sample: Branches, response, table) -> float:
    """What ``response`` gains against ``table`` on ``sample``: its mean deal value against the
    table minus the table's own against itself (0 in expectation, not on a sample)."""
    table = np.asarray(table, dtype=np.float64)
    return float(deal_values(sample, response, table).mean() - deal_values(sample, table, table).mean())


def exploitability(sample: Branches, table, starts=()) -> tuple[float, np.ndarray]:
    """The gain on ``sample`` of the best response found against ``table`` (its mean value
    minus the table's own against itself), searched from the table rounded to pure, from
    knocking wherever it may knock at all, from knocking always and from never, and from
    ``starts``; the best one and its gain.  A lower bound of the table's exploitability
    within the abstraction on this sample."""
    table = np.asarray(table, dtype=np.float64)
    responses = [best_response(sample, [(1.0, table)], start)[0]
                 for start in (np.rint(table), (table > 0).astype(float), np.ones_like(table), np.zeros_like(table),
                               *starts)]
    gains = [response_gain(sample, response, table) for response in responses]
    best = int(np.argmax(gains))
    return gains[best], responses[best]
