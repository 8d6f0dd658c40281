"""``ginsim report RUN --control CONTROL``: a run's cells estimated again with control variates on
the run's own mirrored pairs (``simulator.studies.run_controls``), the plain estimate beside."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import pytest

from simulator.analysis.stats import estimators as est
from simulator.cli import main
from simulator.run.rundir import readable_run
from simulator.studies import controls
from simulator.studies.run_controls import cell_units, run_estimates
from test_report import _run

RUN = textwrap.dedent('''
    name = "controlled"
    seed = 31
    deals = 240
    games = 40
    chunk = 100
    game_chunk = 30
    matchups = [["simple:knock_at=8", "simple"], ["gin_hunter", "knock_early"], ["simple", "simple"]]
    [variants.classic]
    preset = "classic"
''')


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("controlled"), "controlled", RUN)


def test_a_cells_units_are_the_deals_its_seed_plays(run):
    """The run's per-pair values, read across chunk files of uneven size, are those the engine
    plays again from the manifest's seed: the controls meet the deals the run played."""
    manifest, verification = readable_run(run)
    for cell in manifest["cells"]:
        for mode, unit, n in (("deals", "hand", 240), ("games", "game", 40)):
            x = cell_units(run, manifest, verification.good[mode], cell["cell"], mode)
            replay = controls.pair_values(cell["a"], cell["b"], cell["rules"], unit, n, cell["seed"])
            assert np.array_equal(x, replay), (cell["cell"], unit)


def test_each_cell_of_two_strategies_gets_both_estimates(run):
    rows = run_estimates(run, "self", progress=False)
    assert sorted(zip(rows["cell"], rows["unit"])) == [(0, "game"), (0, "hand"), (1, "game"), (1, "hand")]
    manifest, verification = readable_run(run)
    for _, row in rows.iterrows():
        cell = manifest["cells"][row["cell"]]
        mode = "deals" if row["unit"] == "hand" else "games"
        x = cell_units(run, manifest, verification.good[mode], row["cell"], mode)
        plain = est.plain(x)
        reduced, _ = controls.reduce_pairs(x, cell["a"], cell["b"], cell["rules"], row["unit"], cell["seed"], "self")
        assert (row["plain_value"], row["plain_low"], row["plain_high"]) == (plain.value, plain.low, plain.high)
        assert (row["reduced_value"], row["reduced_sd"]) == (reduced.value, reduced.sd)
        assert row["pairs_ratio"] == pytest.approx((plain.sd / reduced.sd) ** 2)
    # neighbouring knock thresholds play alike, so their self-play explains much of the hands
    hands = rows[(rows["cell"] == 0) & (rows["unit"] == "hand")].iloc[0]
    assert hands["pairs_ratio"] > 2
    # gin_hunter and knock_early take no random decision: their self-play is 0 on every pair
    assert rows[rows["cell"] == 1]["pairs_ratio"].tolist() == [1.0, 1.0]


def test_the_draws_replay_the_runs_own_deals(run):
    """With the draws' luck the matchup is played again in the draws' kernel, which must give the
    run's values exactly (else refused); the estimate is unbiased, so it stays near the plain."""
    rows = run_estimates(run, "draws+self", progress=False)
    assert len(rows) == 4 and (rows["reduced_sd"] <= rows["plain_sd"] * 1.05).all()
    assert (abs(rows["reduced_value"] - rows["plain_value"]) < 3 * rows["plain_se"]).all()


def test_report_shows_them_and_the_next_report_without_them_drops_them(run, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["report", str(run), "--out", str(out), "--control", "self"]) == 0
    md = (out / "report.md").read_text()
    assert "## Estimates with control variates" in md and "controlled.csv" in md
    table = pd.read_csv(out / "controlled.csv", comment="#")
    assert len(table) == 4 and set(table["control"]) == {"self"}
    assert main(["report", str(run), "--out", str(out)]) == 0
    assert not (out / "controlled.csv").exists()
    assert "Estimates with control variates" not in (out / "report.md").read_text()


def test_a_run_that_is_not_mirrored_is_refused_before_anything_is_written(tmp_path, capsys):
    run = _run(tmp_path, "unmirrored", RUN.replace('seed = 31', 'seed = 31\nmirrored = false'))
    before = sorted(p.name for p in run.iterdir())
    assert main(["report", str(run), "--control", "self"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not mirrored" in err[0]
    assert sorted(p.name for p in run.iterdir()) == before


def test_a_run_of_self_play_only_is_refused(tmp_path, capsys):
    run = _run(tmp_path, "selfplay", RUN.replace(
        '[["simple:knock_at=8", "simple"], ["gin_hunter", "knock_early"], ["simple", "simple"]]', '[["simple", "simple"]]'))
    assert main(["report", str(run), "--control", "draws"]) == 2
    assert "no cell in which two different strategies meet" in capsys.readouterr().err

