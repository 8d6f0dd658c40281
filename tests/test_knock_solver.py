"""The knock tables' game on recorded deals (``simulator.studies.knock_solver``): the recorded
branches replay the engine exactly, the flip gains are exact, the best response is a local
optimum, and fictitious play on them closes in on an equilibrium of the abstraction."""

from __future__ import annotations

import numpy as np
import pytest

from simulator import api
from simulator.core.rules import resolve_rules
from simulator.studies import knock_solver as ks
from simulator.studies.knock_branches import BRANCH_COLS, branch_kernels
from strategies import knock_table as kt

SEED = 4141


@pytest.fixture(scope="module")
def classic_sample():
    return ks.record(resolve_rules("classic").to_array(), SEED, 0, 1_500)


def _tables(seed: int) -> list[np.ndarray]:
    """Pure tables (levels): knock as soon as legal, gin only, two drawn at random."""
    rng = np.random.default_rng(seed)
    return [np.full(kt.N_CELLS, kt.LEVELS), np.zeros(kt.N_CELLS, dtype=int),
            *(rng.integers(0, 2, kt.N_CELLS) * kt.LEVELS for _ in range(2))]


LAST_DISCARD_RULES = {"preset": "hoyle", "last_discard_rule": True}


@pytest.mark.parametrize("rules", ["classic", "oklahoma", {"preset": "hoyle", "knock_limit": 5}, LAST_DISCARD_RULES,
                                   {"preset": "hoyle", "reshuffle_stock": True, "max_reshuffles": 3}])
def test_recorded_deals_replay_the_engine_deal_by_deal_for_pure_tables(rules):
    resolved = resolve_rules(rules)
    sample = ks.record(resolved.to_array(), SEED, 0, 600)
    tables = _tables(7)
    for a in tables:
        for b in tables:
            engine = api.hand_frame(api.play_deal_records(kt.spec_of(a), kt.spec_of(b), resolved, 0, 1_200, SEED,
                                                          True))["net_a"].to_numpy(dtype=float)
            offline = ks.deal_values(sample, a / kt.LEVELS, b / kt.LEVELS)
            assert np.array_equal(offline, engine)


def test_a_last_discard_taken_to_knock_is_a_branch():
    """Under the last-discard rule, taking the stock's last discard to knock is recorded as a
    knock of the draw after (the replay test above checks its value against the engine)."""
    from simulator.engine.select import engine_module, strategy_pair

    never = kt.spec_of(np.zeros(kt.N_CELLS, dtype=int))
    _, _, sids, params = strategy_pair(never, never)
    rules = resolve_rules(LAST_DISCARD_RULES).to_array()
    _, _, counts, branches = branch_kernels(engine_module(sids)).play_knock_branches(np.uint64(SEED), 0, 1_200, rules,
                                                                                     sids, params, ks.CAPACITY)
    col = {name: i for i, name in enumerate(BRANCH_COLS)}
    used = np.arange(ks.CAPACITY)[None, :] < counts[:, None]
    assert (counts >= 0).all() and branches[used][:, col["last_discard"]].sum() > 0


def test_a_recorded_sample_starts_where_its_first_pair_says(classic_sample):
    later = ks.record(resolve_rules("classic").to_array(), SEED, 1_000, 500)
    first = classic_sample.offsets[2_000]
    assert np.array_equal(later.ends, classic_sample.ends[2_000:])
    assert np.array_equal(later.cell, classic_sample.cell[first:])
    assert np.array_equal(later.value, classic_sample.value[first:])


def test_a_mixed_table_on_recorded_deals_agrees_with_the_engine_in_expectation(classic_sample):
    mixed = np.random.default_rng(3).integers(0, kt.LEVELS + 1, kt.N_CELLS)
    simple = np.full(kt.N_CELLS, kt.LEVELS)
    engine = api.hand_frame(api.play_deal_records(kt.spec_of(mixed), "simple", "classic", 0, 3_000, SEED,
                                                  True))["net_a"].to_numpy(dtype=float).reshape(-1, 2).mean(axis=1)
    offline = ks.pair_values(classic_sample, mixed / kt.LEVELS, simple / kt.LEVELS)
    difference = engine - offline  # the same deals: only the coins of the mixed cells differ
    assert abs(difference.mean()) < 4 * difference.std(ddof=1) / np.sqrt(len(difference))


@pytest.mark.parametrize("limit", [5, 10, 15])
def test_a_column_of_knocks_gets_the_cells_one_knock_at_a_time_gets(limit):
    """``knock_table.cell`` on arrays (how recorded deals are mapped) is the scalar cell of
    each element (which the strategy's compiled lookup reads: tests/test_knock_table.py)."""
    rng = np.random.default_rng(limit)
    deadwood, draws, pickups = rng.integers(1, limit + 1, 500), rng.integers(1, 30, 500), rng.integers(0, 5, 500)
    expected = [kt.cell(int(d), int(t), int(p), limit) for d, t, p in zip(deadwood, draws, pickups)]
    assert kt.cell(deadwood, draws, pickups, limit).tolist() == expected
    assert all(type(c) is int for c in expected)


def test_flip_gains_are_the_exact_change_of_each_flip(classic_sample):
    rng = np.random.default_rng(11)
    table = rng.integers(0, 2, kt.N_CELLS).astype(float)
    mixture = [(0.3, rng.integers(0, kt.LEVELS + 1, kt.N_CELLS) / kt.LEVELS),
               (0.7, rng.integers(0, 2, kt.N_CELLS).astype(float))]
    gains = ks.flip_gains(classic_sample, table, mixture)
    base = ks.mixture_value(classic_sample, table, mixture)
    for c in range(kt.N_CELLS):
        flipped = table.copy()
        flipped[c] = 1.0 - flipped[c]
        assert gains[c] == pytest.approx(ks.mixture_value(classic_sample, flipped, mixture) - base, abs=1e-12)
    assert (gains != 0).sum() > 20  # most cells are reached


def test_a_best_response_is_a_local_optimum_that_gains(classic_sample):
    against = [(1.0, np.full(kt.N_CELLS, 0.5))]
    start = np.ones(kt.N_CELLS)
    response, flips = ks.best_response(classic_sample, against, start)
    assert flips > 0
    assert ks.mixture_value(classic_sample, response, against) > ks.mixture_value(classic_sample, start, against)
    assert ks.flip_gains(classic_sample, response, against).max() <= 1e-12


def test_fictitious_play_on_recorded_deals_closes_in_on_an_equilibrium():
    """The knock-table study's loop at small size (20,000 recorded pairs): the best response's
    gain against the average table falls by far from the first iteration to the hundredth.
    (On 1,500 pairs it stalls near a tenth of a point: the cells forget the earlier turns,
    and fictitious play carries no guarantee there; the study measures where it got.)"""
    sample = ks.record(resolve_rules("classic").to_array(), SEED, 0, 20_000)
    average = np.ones(kt.N_CELLS)
    response = average.copy()
    gains = {}
    for t in range(1, 101):
        response, _ = ks.best_response(sample, [(1.0, average)], response)
        average = average + (response - average) / (t + 1)
        if t in (1, 100):
            gains[t], _ = ks.exploitability(sample, average)
    assert gains[1] > 0.2 and gains[100] < gains[1] / 8


def test_the_recorder_rendered_for_a_lighter_engine_records_the_same_branches(fresh_engine_choice):
    """The study's recorder lives with its study (``simulator.studies.knock_branches``) and
    plays with the loop of whichever engine plays the call: rendered by the engine factory for
    an engine routing only the knock tables' strategy, it records what the module itself
    records with the engine routing every strategy."""
    import simulator.engine.kernels as full
    from simulator.engine.select import engine_module, strategy_pair
    from simulator.studies import knock_branches

    never = kt.spec_of(np.zeros(kt.N_CELLS, dtype=int))
    _, _, sids, params = strategy_pair(never, never)
    rules = resolve_rules("hoyle").to_array()
    fresh_engine_choice("call")
    light = branch_kernels(engine_module(sids))
    assert light is not knock_branches and light.loop is not full.loop
    assert branch_kernels(full) is knock_branches
    recorded = [kernels.play_knock_branches(np.uint64(SEED), 0, 300, rules, sids, params, ks.CAPACITY)
                for kernels in (light, knock_branches)]
    assert recorded[0][2].sum() > 0 and all(np.array_equal(a, b) for a, b in zip(*recorded))
