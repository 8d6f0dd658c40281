"""Scale: statistics streamed file by file equal the in-memory ones; a run's rows are compact
(dictionary-encoded labels, one schema) and readable by pandas and DuckDB; the runner's Arrow
tables are the DataFrames it documents; a run directory may be given as a file:// URL."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simulator.analysis import stats as an
from simulator.analysis.summary import summarize
from simulator import api
from simulator.core import records as RC
from simulator.core.cards import format_card
from simulator.run import runner
from simulator.run.experiment import load_experiment
from simulator.run.rundir import Chunk, RunError, run_path

EXPERIMENT = textwrap.dedent('''
    name = "streaming"
    seed = 11
    deals = 3000
    games = 60
    chunk = 600
    game_chunk = 14
    mirrored = {mirrored}
    matchups = [["simple", "knock_early"], ["gin_hunter", "gin_hunter"]]
    [variants.hoyle]
    preset = "hoyle"
    [variants.gin]
    preset = "gin_only"
    [sweep]
    "a.knock_at" = [0, 6]
''')


@pytest.fixture(scope="module", params=[True, False], ids=["mirrored", "unmirrored"])
def run(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scale")
    path = tmp / "exp.toml"
    path.write_text(EXPERIMENT.format(mirrored=str(request.param).lower()))
    exp = load_experiment(path)
    out = runner.run_experiment(exp, tmp / "run", progress=False)
    return exp, out


def _assert_same_stats(streamed: pd.DataFrame, loaded: pd.DataFrame) -> None:
    assert list(streamed.columns) == list(loaded.columns)
    for column in streamed.columns:
        a, b = streamed[column], loaded[column]
        if pd.api.types.is_numeric_dtype(b) and not pd.api.types.is_bool_dtype(b):
            np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-9, atol=1e-12,
                                       equal_nan=True, err_msg=column)
        else:
            assert a.astype(str).tolist() == b.astype(str).tolist(), column


def test_streamed_statistics_equal_the_in_memory_ones(run):
    _, out = run
    hands = pd.read_parquet(out / "data")
    games = pd.read_parquet(out / "games")
    assert len(list((out / "data").glob("*.parquet"))) == 8 * 5  # five files per cell: units merge across them
    _assert_same_stats(an.hand_stats(out), an.hand_stats(hands))
    _assert_same_stats(an.game_stats(str(out)), an.game_stats(games))
    summary = summarize(out)
    stats = an.hand_stats(hands)
    np.testing.assert_allclose(summary["net_a"], stats["net_mean"], rtol=1e-9)
    np.testing.assert_allclose(summary["ci95"], (stats["net_ci_high"] - stats["net_ci_low"]) / 2, rtol=1e-9)
    # outcome shares split by the player who knocked: each pair sums to the outcome's share
    for outcome in ("knock", "gin", "big_gin", "undercut"):
        np.testing.assert_allclose(stats[f"share_{outcome}_a"] + stats[f"share_{outcome}_b"],
                                   stats[f"share_{outcome}"], rtol=1e-12)
        by_a = hands.assign(hit=(hands["outcome"] == outcome) & (hands["knocker"] == "a")).groupby("cell")["hit"].mean()
        np.testing.assert_allclose(stats.set_index("cell")[f"share_{outcome}_a"], by_a, rtol=1e-12)


def test_streamed_hand_length_distribution_is_exact(run):
    _, out = run
    hands = pd.read_parquet(out / "data", columns=["cell", "draws"])
    scan = an.scan_run(out)
    for cell, g in hands.groupby("cell"):
        counts = scan.draws[cell]
        assert counts.sum() == len(g)
        q = [0, 5, 25, 50, 75, 95, 99.9, 100]
        np.testing.assert_allclose(an.histogram_percentiles(counts, q), np.percentile(g["draws"], q))


def test_one_compact_schema_for_the_run(run):
    exp, out = run
    df = pd.read_parquet(out / "data")
    for label in runner.LABEL_COLUMNS:
        assert isinstance(df[label].dtype, pd.CategoricalDtype), label
    assert list(df["variant"].cat.categories) == ["hoyle", "gin"]
    frame = api.simulate("simple", "knock_early", "hoyle", n_deals=3000, seed=1)
    per_row = df.memory_usage(deep=True).sum() / len(df)
    # the simulate frame, plus cell (4 bytes), four label codes (1 each) and the swept value (9)
    assert per_row <= frame.memory_usage(deep=True).sum() / len(frame) + 18
    # the runner's Arrow table is the documented frame, column for column
    cell = exp.cells()[3]
    chunk = Chunk("deals", cell.index, 0, 0, 600)
    pd.testing.assert_frame_equal(runner.chunk_table(exp, cell, chunk).to_pandas(),
                                  runner.chunk_frame(exp, cell, chunk))
    games = Chunk("games", cell.index, 1, 14, 14)
    pd.testing.assert_frame_equal(runner.chunk_table(exp, cell, games).to_pandas(),
                                  runner.chunk_frame(exp, cell, games))


def test_duckdb_reads_the_run_in_place(run):
    duckdb = pytest.importorskip("duckdb")
    _, out = run
    got = duckdb.sql(f"SELECT cell, variant, count(*) AS n, avg(net_a) AS net FROM "
                     f"read_parquet('{out}/data/*.parquet') GROUP BY ALL ORDER BY cell").df()
    df = pd.read_parquet(out / "data")
    want = df.groupby("cell", observed=True).agg(n=("net_a", "size"), net=("net_a", "mean"))
    assert got["n"].tolist() == want["n"].tolist()
    np.testing.assert_allclose(got["net"], want["net"], rtol=1e-12)
    assert got["variant"].tolist() == df.drop_duplicates("cell").sort_values("cell")["variant"].astype(str).tolist()


def test_polars_reads_the_run(run):
    pl = pytest.importorskip("polars")
    _, out = run
    got = pl.read_parquet(f"{out}/data/*.parquet")
    assert got.height == len(pd.read_parquet(out / "data"))


def test_run_directories_as_paths_or_file_urls(tmp_path):
    assert run_path(f"file://{tmp_path}/x") == tmp_path / "x"
    assert run_path(f"file://localhost{tmp_path}/a%20b") == tmp_path / "a b"
    assert run_path(tmp_path / "y") == tmp_path / "y"
    with pytest.raises(RunError, match=r"s3:// storage has neither"):
        run_path("s3://bucket/run")
    with pytest.raises(RunError, match="not on host 'other'"):
        run_path("file://other/run")


def test_frames_come_straight_from_the_records():
    records = api.play_deal_records("simple", "knock_early", "oklahoma", 0, 400, seed=3)
    frame = api.hand_frame(records)
    names = list(RC.HAND_RECORD_NAMES)
    upcards = [format_card(int(c)) for c in records[:, names.index("upcard")]]
    assert frame["upcard"].astype(str).tolist() == upcards
    dead = records[:, names.index("outcome")] == RC.OUT_DEAD
    assert frame["knocker_deadwood"].isna().to_numpy().tolist() == dead.tolist()
    a_seat = records[:, names.index("a_seat")]
    winner = records[:, names.index("winner")]
    want = np.where(winner < 0, None, np.where(winner == a_seat, "a", "b"))
    assert frame["winner"].astype(object).where(frame["winner"].notna(), None).tolist() == want.tolist()
