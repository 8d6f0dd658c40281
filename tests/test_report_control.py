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
    rows = run_estimates(run, "self", progress=False)  # cell 2, a self-play, takes no self-play control
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
    rows = rows[rows["cell"] != 2]  # the self-play's seat edge: its own test
    assert len(rows) == 4 and (rows["reduced_sd"] <= rows["plain_sd"] * 1.05).all()
    assert (abs(rows["reduced_value"] - rows["plain_value"]) < 3 * rows["plain_se"]).all()


@pytest.mark.parametrize("control", ["draws+replay_b", "draws+swap+replay_b"])
def test_bs_replays_estimate_the_runs_games_and_leave_its_hands(run, control):
    """``draws+replay_b`` (alone or with the hands exchanged) is a control of whole games: the
    cells of two strategies get their games estimated with it and no hand row; the self-play
    cell keeps its seat edges of both."""
    rows = run_estimates(run, control, progress=False)
    assert sorted(zip(rows["cell"], rows["unit"])) == [(0, "game"), (1, "game"), (2, "game"), (2, "hand")]
    games = rows[rows["cell"] != 2]
    assert (games["control"] == control).all()
    assert (abs(games["reduced_value"] - games["plain_value"]) < 3 * games["plain_se"]).all()


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


def test_a_self_play_cells_seat_edge_takes_the_draws_and_the_deals_luck(run, tmp_path, capsys):
    """With the draws' luck a self-play cell's first-mover edges, per hand and per game, are
    estimated too (the draws' and the deal's luck counted for the first mover, and the same deals
    or games with their hands exchanged), from the run's own pairs; a control without the draws
    has nothing to estimate in a run of self-play only, and says so."""
    rows = run_estimates(run, "draws", progress=False)
    edge = rows[rows["cell"] == 2]
    assert edge["unit"].tolist() == ["hand", "game"] and set(edge["control"]) == {"draws+deal+swap"}
    manifest, verification = readable_run(run)
    cell = manifest["cells"][2]
    for mode, unit, n in (("deals", "hand", 240), ("games", "game", 40)):
        x = cell_units(run, manifest, verification.good[mode], 2, mode, first_mover=True)
        replay = controls.pair_values(cell["a"], cell["a"], cell["rules"], unit, n, cell["seed"], first_mover=True)
        assert np.array_equal(x, controls.first_mover_edge(replay, unit))
        reduced, _ = controls.reduce_pairs(x, cell["a"], cell["a"], cell["rules"], unit, cell["seed"], "draws+deal+swap")
        row = edge[edge["unit"] == unit].iloc[0]
        assert (row["plain_value"], row["reduced_value"]) == (est.plain(x).value, reduced.value)
    # the game edge is the report's own: the first mover's share of games won less one half
    from simulator.analysis.stats import game_stats
    from simulator.run.rundir import read_rows

    games = read_rows(run, "games")
    stats = game_stats(games[games["cell"] == 2], mirrored=True).iloc[0]
    assert edge[edge["unit"] == "game"]["plain_value"].iloc[0] == pytest.approx(stats["first_mover_edge"])
    assert 2 not in set(run_estimates(run, "self", progress=False)["cell"])  # no seat edge without the draws
    selfplay = _run(tmp_path, "selfplay", RUN.replace(
        '[["simple:knock_at=8", "simple"], ["gin_hunter", "knock_early"], ["simple", "simple"]]', '[["simple", "simple"]]'))
    assert main(["report", str(selfplay), "--control", "self"]) == 2
    assert "a self-play cell's seat edge takes the draws' luck (--control draws)" in capsys.readouterr().err
    assert main(["report", str(selfplay), "--out", str(tmp_path / "edge"), "--control", "draws"]) == 0
    md = (tmp_path / "edge" / "report.md").read_text()
    assert "the first mover's net points per hand" in md and "the first mover's share of games won - 1/2" in md


def test_an_interrupted_report_resumes_with_the_cells_it_finished(run, tmp_path, monkeypatch):
    """Each cell's row is kept (sealed) as it is done; a second call plays only the rest and gives
    the rows an uninterrupted call gives; the report, once written, removes the kept rows."""
    from simulator.studies import run_controls

    whole = run_estimates(run, "self", progress=False)
    played, reduce = [], controls.reduce_pairs

    def stop_after_two(x, a, b, rules, unit, seed, control):
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append((a, unit))
        return reduce(x, a, b, rules, unit, seed, control)

    out = tmp_path / "report"
    monkeypatch.setattr(controls, "reduce_pairs", stop_after_two)
    with pytest.raises(KeyboardInterrupt):
        run_estimates(run, "self", progress=False, keep_in=out)
    assert (out / run_controls.CHECKPOINT).is_file()
    played.clear()
    monkeypatch.setattr(controls, "reduce_pairs", lambda *args: played.append(args[1]) or reduce(*args))
    resumed = run_estimates(run, "self", progress=False, keep_in=out)
    assert played == ["gin_hunter", "gin_hunter"]  # cell 0's hands and games were kept
    pd.testing.assert_frame_equal(resumed.drop(columns="control_cpu_s"), whole.drop(columns="control_cpu_s"))
    # another control's rows are not taken: every cell is played again
    played.clear()
    run_estimates(run, "self_a", progress=False, keep_in=out)
    assert len(played) == 4
    monkeypatch.setattr(controls, "reduce_pairs", reduce)
    assert main(["report", str(run), "--out", str(out), "--control", "self"]) == 0
    assert not (out / run_controls.CHECKPOINT).exists()


def test_edited_kept_rows_are_refused(run, tmp_path, capsys):
    from simulator.studies import run_controls

    out = tmp_path / "report"
    run_estimates(run, "self", progress=False, keep_in=out)
    path = out / run_controls.CHECKPOINT
    path.write_text(path.read_text().replace('"pairs": 120', '"pairs": 121', 1))
    assert main(["report", str(run), "--out", str(out), "--control", "self"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and "delete" in err[0]
