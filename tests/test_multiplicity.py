"""Multiplicity by default, and one rule set, one label.

Holm and Benjamini–Hochberg adjusted p-values against hand-worked examples, and their error
rates on seeded synthetic families with known nulls; the p-values a report tests with agree
with its intervals; identical rule sets and matchups are recognised (a warning on stderr
naming both, one pooled comparison in the report's families)."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from simulator.analysis import stats as an
from simulator.analysis.tables import cell_families, compare_cells, pairwise_family
from simulator.core.rules import Rules
from simulator.run.experiment import identical_entries, load_experiment


# ----------------------------------------------------------------------------- adjusted p-values

def test_holm_against_a_hand_worked_example():
    # sorted: 0.005, 0.01, 0.03, 0.04 -> 4 x 0.005 = 0.02, 3 x 0.01 = 0.03, 2 x 0.03 = 0.06,
    # 1 x 0.04 = 0.04 -> running maximum 0.02, 0.03, 0.06, 0.06
    p = [0.01, 0.04, 0.03, 0.005]
    assert an.holm_adjust(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # capped at 1; a NaN stays NaN and is not a member of the family (m = 2 here)
    out = an.holm_adjust([0.6, np.nan, 0.2])
    assert out[0] == pytest.approx(0.6) and np.isnan(out[1]) and out[2] == pytest.approx(0.4)
    assert an.holm_adjust([0.7, 0.8]).tolist() == [1.0, 1.0]  # 2 x 0.7 capped at 1, then the running maximum
    assert an.holm_adjust([]).shape == (0,)


def test_benjamini_hochberg_against_a_hand_worked_example():
    # sorted: 0.005 x 4/1 = 0.02, 0.01 x 4/2 = 0.02, 0.03 x 4/3 = 0.04, 0.04 x 4/4 = 0.04;
    # running minimum from the top: 0.02, 0.02, 0.04, 0.04
    p = [0.01, 0.04, 0.03, 0.005]
    assert an.benjamini_hochberg_adjust(p) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    out = an.benjamini_hochberg_adjust([np.nan, 0.02, 0.03])
    assert np.isnan(out[0]) and out[1:] == pytest.approx([0.03, 0.03])
    # BH never adjusts more than Holm, and "none" keeps the p-values
    rng = np.random.default_rng(1)
    q = rng.uniform(size=30)
    assert (an.benjamini_hochberg_adjust(q) <= an.holm_adjust(q) + 1e-12).all()
    assert an.adjust_pvalues(q, "none").tolist() == q.tolist()


def test_bad_pvalues_and_methods_are_refused():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        an.holm_adjust([0.2, 1.5])
    with pytest.raises(ValueError, match="multiplicity must be one of holm, bh, none"):
        an.adjust_pvalues([0.1], "bonferroni")


def _families(n_families: int, m0: int, m1: int, effect: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided z-test p-values of n_families families: m0 true nulls, then m1 false ones."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n_families, m0 + m1))
    z[:, m0:] += effect
    return 2 * st.norm.sf(np.abs(z)), np.arange(m0 + m1) < m0


def test_holm_keeps_the_family_wise_error_at_the_nominal_level():
    n, alpha = 4000, an.ALPHA
    p, null = _families(n, m0=15, m1=5, effect=3.0, seed=20261201)
    holm = np.array([an.holm_adjust(row) for row in p]) <= alpha
    raw = p <= alpha
    fwer_holm = (holm & null).any(axis=1).mean()
    fwer_raw = (raw & null).any(axis=1).mean()
    margin = 3 * np.sqrt(alpha * (1 - alpha) / n)
    assert fwer_holm <= alpha + margin
    assert fwer_raw > 0.4  # 1 - 0.95**15 = 0.54 without an adjustment: the test can fail
    # and Holm still finds most of the real effects (it rejects at least what Bonferroni does)
    assert (holm | ~(p * p.shape[1] <= alpha)).all()
    assert (holm & ~null).sum(axis=1).mean() > 2.5


def test_benjamini_hochberg_keeps_the_false_discovery_rate():
    n, alpha = 4000, an.ALPHA
    p, null = _families(n, m0=12, m1=8, effect=3.0, seed=20261202)
    reject = np.array([an.benjamini_hochberg_adjust(row) for row in p]) <= alpha
    false = (reject & null).sum(axis=1)
    fdp = np.where(reject.sum(axis=1) > 0, false / np.maximum(reject.sum(axis=1), 1), 0.0)
    # expected FDR = m0 / m * alpha = 0.03 for independent tests
    assert fdp.mean() <= alpha + 3 * fdp.std() / np.sqrt(n)
    assert (reject & null).any(axis=1).mean() > alpha  # it does not control the FWER: a weaker promise


def test_t_pvalues_agree_with_the_t_interval():
    rng = np.random.default_rng(3)
    mean, sd, n = rng.normal(0, 0.05, 200), rng.uniform(0.5, 1.5, 200), rng.integers(5, 500, 200)
    se, low, high = an.t_interval(mean, sd, n, 0.95)
    p = an.t_pvalues(mean, se, n - 1)
    assert ((p < 0.05) == ((low > 0) | (high < 0))).all()
    # no spread: exact at the null, else zero; a share that is 0 in all of 20 units: binomial
    assert an.t_pvalues([0.0, 0.3], [0.0, 0.0], [9, 9]).tolist() == [1.0, 0.0]
    assert an.t_pvalues([0.0], [0.0], [np.inf], 0.5, [20])[0] == pytest.approx(2 * 0.5**20)


def test_pooled_means_of_two_cells():
    mean, se, low, high, dof, units = an.pooled_means([1.0, 3.0], [0.2, 0.2], [100, 100])
    assert (mean, units, dof) == (2.0, 200, 198.0)
    assert se == pytest.approx(np.sqrt(2) * 0.2 / 2)
    assert (low, high) == pytest.approx(st.t.interval(0.95, 198, loc=2.0, scale=se))


# ----------------------------------------------------------------------------- one rule set, one label

def test_identical_rule_sets_share_a_canonical_form():
    tournament = Rules.from_dict({"preset": "tournament"})
    assert Rules.from_dict({"preset": "tournament", "knock_limit": 10}).canonical() == tournament.canonical()
    assert Rules.from_dict({"preset": "oklahoma", "oklahoma_ace": "gin"}).canonical() == \
        Rules.preset("oklahoma").canonical()
    assert Rules.from_dict(tournament.to_dict()).canonical() == tournament.canonical()
    assert Rules.preset("tournament", knock_limit=5).canonical() != tournament.canonical()
    assert Rules.preset("hoyle").canonical() != tournament.canonical()


EXPERIMENT = textwrap.dedent('''
    name = "twins"
    seed = 1
    deals = 20
    matchups = [["simple", "simple"], ["gin_hunter", "knock_early"], ["simple:knock_at=-1", "simple"],
                ["knock_early", "gin_hunter"]]
    [variants.knock_10]
    preset = "tournament"
    knock_limit = 10
    [variants.tournament]
    preset = "tournament"
    [variants.hoyle]
    preset = "hoyle"
''')


def test_an_experiment_with_identical_variants_or_matchups_warns(tmp_path, capsys):
    path = tmp_path / "twins.toml"
    path.write_text(EXPERIMENT)
    exp = load_experiment(path)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith(f"warning: {path}: ") for line in err)
    assert "knock_10" in err[0] and "tournament" in err[0] and "identical" in err[0] and "hoyle" not in err[0]
    # simple:knock_at=-1 is simple's default: the same matchup; the swapped pairing is not a copy
    assert "matchups[0] and matchups[2]" in err[1] and "identical" in err[1] and "matchups[1]" not in err[1]
    assert identical_entries(exp) == [line.split(": ", 2)[2] for line in err]


def _cells(values: list[float], se: float = 0.1, units: int = 1000, a: str = "simple", b: str = "simple"):
    n = len(values)
    return pd.DataFrame({"cell": range(n), "matchup": f"{a} vs {b}", "a": a, "b": b,
                         "variant": [f"v{i}" for i in range(n)], "n_units": units,
                         "first_mover_edge": values, "first_mover_edge_se": se,
                         "first_mover_edge_ci_low": [v - 1.96 * se for v in values],
                         "first_mover_edge_ci_high": [v + 1.96 * se for v in values]})


def test_identical_cells_are_one_comparison_with_one_label():
    # cells 1 and 3 are the same rules: alone, cell 1 is an edge and cell 3 not after Holm
    stats = _cells([0.0, 0.30, 0.05, 0.22])
    same = {0: "x", 1: "twin", 2: "y", 3: "twin"}
    family = compare_cells(stats, pd.Series(True, index=stats.index), "first_mover_edge", 0.0,
                           ("favours non-dealer", "favours dealer", "balanced"), "edges", "holm", same)
    assert family.size == 3  # four cells, three distinct comparisons
    assert family.cells.loc[1, "verdict"] == family.cells.loc[3, "verdict"] == "favours non-dealer"
    assert family.cells.loc[1, "same_as"] == "3" and family.cells.loc[3, "same_as"] == "1"
    twin = family.pooled.iloc[0]
    assert twin["cells"] == (1, 3) and twin["estimate"] == pytest.approx(0.26) and twin["units"] == 2000
    # without identities each cell is its own test, and the words follow Holm, not the raw p
    alone = compare_cells(stats, pd.Series(True, index=stats.index), "first_mover_edge", 0.0,
                          ("favours non-dealer", "favours dealer", "balanced"), "edges", "holm")
    assert alone.size == 4 and alone.cells.loc[3, "verdict"] == "balanced"
    assert alone.members["p"].iloc[3] < 0.05 < alone.members["p_adjusted"].iloc[3]
    none = compare_cells(stats, pd.Series(True, index=stats.index), "first_mover_edge", 0.0,
                         ("favours non-dealer", "favours dealer", "balanced"), "edges", "none")
    assert none.cells.loc[3, "verdict"] == "favours non-dealer"


def test_cell_families_split_self_play_from_the_rest():
    stats = pd.concat([_cells([0.1, 0.0]), _cells([0.0]).assign(cell=2, a="gin_hunter", matchup="g vs s")],
                      ignore_index=True)
    stats["net_mean"], stats["net_se"] = [0.0, 0.0, 3.0], 0.1
    families = cell_families(stats, "hands")
    assert families["balance"].size == 2 and families["versus"].size == 1
    assert families["versus"].cells.loc[2, "verdict"] == "A ahead"
    assert "2 comparisons" in families["balance"].statement() and "Holm" in families["balance"].statement()


def test_pairwise_family_frames_follow_the_adjusted_pvalues():
    names = ["x", "y", "z"]
    table = pd.DataFrame([[np.nan, 0.25, 2.0], [-0.25, np.nan, 1.0], [-2.0, -1.0, np.nan]], index=names,
                         columns=names)
    se = pd.DataFrame(0.1, index=names, columns=names)
    pairs, undetected = pairwise_family([("all", table, se, None)], 0.0, "holm")
    assert len(pairs) == 3 and set(pairs["verdict"]) == {"x ahead", "y ahead"}
    # 0.25 / 0.1 = 2.5: p = 0.012 raw, 0.012 after Holm too (the largest p of three)
    assert undetected[0].to_numpy().sum() == 0
    pairs, undetected = pairwise_family([("all", table * 0.9, se, None)], 0.0, "holm")
    row = pairs[pairs["opponent"] == "y"].iloc[0]
    assert row["p"] < 0.05 and row["verdict"] == "x ahead"  # the last step of Holm is unadjusted
    pairs, undetected = pairwise_family([("a", table * 0.8, se, None), ("b", table * 0.8, se, None)], 0.0)
    # 0.2 / 0.1 = 2: p = 0.046 raw, twice in a family of six: Holm leaves both undetected
    assert (pairs["p"] < 0.05).all() and list(pairs["verdict"]).count("no detectable difference") == 2
    assert undetected[0].at["x", "y"] and undetected[0].at["y", "x"] and not undetected[0].at["x", "z"]


def test_the_variant_balance_study_names_its_identical_variants(capsys):
    from pathlib import Path

    exp = load_experiment(Path(__file__).resolve().parent.parent / "experiments" / "variant_balance.toml")
    assert identical_entries(exp) == [
        "variants knock_10 and tournament have identical rules; the report pools their cells",
        "variants oklahoma_ace_gin and oklahoma have identical rules; the report pools their cells",
    ]
    assert capsys.readouterr().err.count("identical") == 2
