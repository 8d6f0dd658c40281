"""The runner: experiment validation, Parquet output, determinism across chunking, jobs and
backends, resume after kill -9, and the CLI's one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from cli_runner import ginsim
from paused_cli import start_paused, wait_until_paused

from simulator.run.experiment import ExperimentError, load_experiment
from simulator.run.runner import run_experiment

SMALL = textwrap.dedent('''
    name = "small"
    seed = 5
    deals = 6000
    chunk = 2000
    matchups = [["simple", "random"], ["gin_hunter", "knock_early"]]
    [variants.hoyle]
    preset = "hoyle"
    [variants.ok]
    preset = "oklahoma"
    oklahoma_spade_double = true
    [sweep]
    "a.knock_at" = [0, 4]
''')


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def read(run_dir: Path) -> pd.DataFrame:
    df = pd.read_parquet(run_dir / "data")
    return df.sort_values(["cell", "deal"]).reset_index(drop=True)


def test_cells_parquet_and_determinism_across_chunks_and_jobs(tmp_path):
    exp = load_experiment(write(tmp_path, SMALL))
    assert len(exp.cells()) == 2 * 2 * 2
    assert exp.cells()[1].a == "simple:knock_at=4"
    run_experiment(exp, tmp_path / "one", jobs=1, progress=False)
    df = read(tmp_path / "one")
    assert len(df) == 8 * 6000 and set(df["cell"]) == set(range(8))
    assert {"matchup", "variant", "a.knock_at", "net_a", "outcome"} <= set(df.columns)
    # other chunk sizes and two worker processes give the same rows
    exp2 = load_experiment(write(tmp_path, SMALL.replace("chunk = 2000", "chunk = 1500"), "exp2.toml"))
    run_experiment(exp2, tmp_path / "two", jobs=2, progress=False)
    pd.testing.assert_frame_equal(df, read(tmp_path / "two"))
    with pytest.raises(ValueError, match="already holds a finished run"):
        run_experiment(exp, tmp_path / "one", progress=False)


def test_dask_local_cluster_matches_local_backend(tmp_path):
    """Two worker processes of a local Dask cluster write their chunks straight into a run
    directory named by a file:// URL (as workers of a real cluster would into a shared
    filesystem); the rows equal a local run's and the run verifies."""
    from simulator.run.rundir import readable_run

    text = SMALL.replace("deals = 6000", "deals = 2000").replace("chunk = 2000", "chunk = 1000")
    exp = load_experiment(write(tmp_path, text))
    run_experiment(exp, tmp_path / "local", jobs=1, progress=False)
    run_experiment(exp, f"file://{tmp_path / 'dask'}", jobs=2, backend="dask", progress=False)
    pd.testing.assert_frame_equal(read(tmp_path / "local"), read(tmp_path / "dask"))
    manifest, verification = readable_run(tmp_path / "dask")
    assert manifest["complete"] and verification.complete


def test_resume_after_kill_gives_the_uninterrupted_dataset(tmp_path):
    """The child freezes after its 5th chunk lands (tests/paused_cli.py), so kill -9 hits a
    run exactly 5 chunks in, however fast or loaded the machine is."""
    text = SMALL.replace("deals = 6000", "deals = 40000").replace("chunk = 2000", "chunk = 2000")
    path = write(tmp_path, text)
    flag = tmp_path / "paused"
    proc = start_paused(flag, 5, "run", path, "--out", tmp_path / "killed", "--quiet",
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_until_paused(proc, flag)
    finally:
        proc.kill()  # SIGKILL, as kill -9
        proc.wait()
    data = tmp_path / "killed" / "data"
    assert len(list(data.glob("*.parquet"))) == 5  # of 160: the kill landed mid-run
    done = subprocess.run([sys.executable, "-m", "simulator.cli", "run", str(path), "--out",
                           str(tmp_path / "killed"), "--quiet", "--resume"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    run_experiment(load_experiment(path), tmp_path / "clean", progress=False)
    pd.testing.assert_frame_equal(read(tmp_path / "killed"), read(tmp_path / "clean"))


@pytest.mark.parametrize("text, message", [
    ("name = 'x'\ndeals = 10\nmatchups = [['simple', 'random']]\nbogus = 1", "bogus: unknown key"),
    ("name = 'x'\ndeals = -4\nmatchups = [['simple', 'random']]", "deals: must be a positive integer"),
    ("name = 'x'\ndeals = 10\nmatchups = [['smart', 'random']]", "unknown strategy 'smart'"),
    ("name = 'x'\ndeals = 10\nmatchups = [['simple:knock=1', 'random']]", "unknown parameter 'knock'"),
    ("name = 'x'\ndeals = 10\nmatchups = [['simple', 'random']]\n[variants.v]\npreset = 'vegas'",
     "variants.v: unknown rules preset 'vegas'"),
    ("name = 'x'\ndeals = 10\nmatchups = [['simple', 'random']]\n[variants.v]\nknock_limit = -2",
     "variants.v: rules.knock_limit must be an integer from 0 to 98"),
    ("name = 'x\ndeals = 10", "malformed TOML"),
    ("name = 'x'\ndeals = 10", "(or give round_robin)"),
    ("name = 'x'\ndeals = 10\nround_robin = ['simple']", "round_robin: must be a list of at least two distinct"),
    ("name = 'x'\ndeals = 10\nround_robin = ['simple', 'random', 'simple']", "'simple' is listed twice"),
    ("name = 'x'\ndeals = 10\nround_robin = ['simple', 'smart']", "unknown strategy 'smart'"),
])
def test_bad_experiments_give_one_line_errors_exit_2_and_write_nothing(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ExperimentError, match=message):
        load_experiment(path)
    done = ginsim("run", path, "--out", tmp_path / "out")
    assert done.returncode == 2
    assert message.split("'")[0] in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_unwritable_output_directory_is_refused(tmp_path):
    path = write(tmp_path, "name = 'x'\ndeals = 10\nmatchups = [['simple', 'random']]")
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = ginsim("run", path, "--out", blocker / "run")
    assert done.returncode == 2 and "not writable" in done.stderr


def test_replay_reproduces_a_stored_row(tmp_path):
    from simulator.run.replay import replay_text

    text = SMALL.replace("deals = 6000", "deals = 400").replace("chunk = 2000", "chunk = 200")
    run_experiment(load_experiment(write(tmp_path, text)), tmp_path / "run", progress=False)
    df = read(tmp_path / "run")
    for cell, deal in [(0, 0), (3, 137), (7, 399)]:
        stored = df[(df["cell"] == cell) & (df["deal"] == deal)].iloc[0]
        story, row = replay_text(tmp_path / "run", cell, deal)
        for col in ("outcome", "winner", "points", "net_a", "draws", "upcard", "knocker_deadwood"):
            assert (pd.isna(stored[col]) and pd.isna(row[col])) or stored[col] == row[col], col
        assert "holds" in story and "upcard" in story
    done = ginsim("replay", tmp_path / "run", "--cell", 99, "--deal", 0)
    assert done.returncode == 2 and "--cell must be one of" in done.stderr


def test_deals_and_games_in_one_run_match_the_api(tmp_path):
    import simulator
    from simulator.analysis.summary import run_summaries
    from simulator.run.seeds import derive_seed

    text = textwrap.dedent('''
        name = "both"
        seed = 8
        deals = 1000
        games = 60
        chunk = 400
        game_chunk = 16
        matchups = [["knock_early", "random"]]
        [variants.hoyle]
        preset = "hoyle"
    ''')
    exp = load_experiment(write(tmp_path, text))
    run_experiment(exp, tmp_path / "run", progress=False)
    hands = read(tmp_path / "run")
    games = pd.read_parquet(tmp_path / "run" / "games").sort_values("game").reset_index(drop=True)
    seed = derive_seed(8, 0)
    api_hands = simulator.simulate("knock_early", "random", "hoyle", n_deals=1000, seed=seed)
    api_games = simulator.simulate_games("knock_early", "random", "hoyle", n_games=60, seed=seed)
    pd.testing.assert_frame_equal(hands[api_hands.columns], api_hands, check_categorical=False)
    pd.testing.assert_frame_equal(games[api_games.columns], api_games, check_categorical=False)
    text = run_summaries(tmp_path / "run")
    assert "single hands" in text and "whole games" in text


def test_the_summary_shows_the_first_movers_edge_in_self_play_cells(tmp_path):
    """In self-play A's net points are zero by construction: the printed summary adds the
    first mover's edge (hand_stats' and game_stats' figure) for those cells, and only for them."""
    from simulator.analysis.stats import game_stats, hand_stats
    from simulator.analysis.summary import run_summaries, summarize

    text = textwrap.dedent('''
        name = "selfplay"
        seed = 3
        deals = 400
        games = 20
        matchups = [["knock_early", "knock_early"], ["knock_early", "random"]]
        [variants.hoyle]
        preset = "hoyle"
    ''')
    run_experiment(load_experiment(write(tmp_path, text)), tmp_path / "run", progress=False)
    hands, games = summarize(tmp_path / "run", "deals"), summarize(tmp_path / "run", "games")
    h, g = hand_stats(tmp_path / "run"), game_stats(tmp_path / "run")
    assert hands.loc[0, "first_mover"] == pytest.approx(h.loc[0, "first_mover_edge"])
    assert hands.loc[0, "first_mover_ci95"] == pytest.approx((h.loc[0, "first_mover_edge_ci_high"]
                                                              - h.loc[0, "first_mover_edge_ci_low"]) / 2)
    assert games.loc[0, "first_mover"] == pytest.approx(g.loc[0, "first_mover_edge"])
    assert pd.isna(hands.loc[1, "first_mover"]) and pd.isna(games.loc[1, "first_mover"])
    printed = run_summaries(tmp_path / "run")
    hand_part, game_part = printed.split("whole games")
    assert "first_mover ± 95%" in hand_part and "first_mover pp ± 95%" in game_part
    row0, row1 = (line for line in hand_part.splitlines() if line.lstrip().startswith(("0 ", "1 ")))
    assert f"{hands.loc[0, 'first_mover']:+.3f} ± {hands.loc[0, 'first_mover_ci95']:.3f}" in row0
    assert row1.endswith("%")  # no edge for a cell that is not self-play
    assert "zero by construction" in hand_part


def test_a_round_robin_adds_every_pair_after_the_matchups(tmp_path):
    exp = load_experiment(write(tmp_path, textwrap.dedent('''
        name = "robin"
        deals = 10
        matchups = [["simple", "simple"]]
        round_robin = ["simple", "gin_hunter", "knock_early", "random", "expert"]
        [sweep]
        "b.knock_at" = [0, 4]
    ''')))
    players = ["simple", "gin_hunter", "knock_early", "random", "expert"]
    assert exp.matchups == [("simple", "simple")] + [(players[i], players[j]) for i in range(5) for j in range(i + 1, 5)]
    assert len(exp.matchups) == 1 + 10
    assert json.loads(json.dumps(exp.to_dict()))["matchups"] == [list(m) for m in exp.matchups]  # the manifest's pairs
    # the sweep sees the round robin's pairs: gin_hunter's B side has knock_at
    assert [c.b for c in exp.cells() if c.a == "simple" and c.b.startswith("gin_hunter")] == \
        ["gin_hunter:knock_at=0", "gin_hunter:knock_at=4"]
    only = load_experiment(write(tmp_path, 'name = "r"\ndeals = 10\nround_robin = ["simple", "random"]', "r.toml"))
    assert only.matchups == [("simple", "random")]
    for players, key in ((["simple", "random", "simple"], r"round_robin\[2\]: 'simple' is listed twice"),
                         (["simple", "smart"], r"round_robin\[1\]: unknown strategy 'smart'"),
                         (["simple", 3], r"round_robin\[1\]: must be a strategy spec")):
        with pytest.raises(ExperimentError, match=key):
            load_experiment(write(tmp_path, f'name = "r"\ndeals = 10\nround_robin = {players!r}', "bad.toml"))


def test_sweeps_apply_to_the_matchups_whose_strategy_has_the_parameter(tmp_path):
    text = textwrap.dedent('''
        name = "mixed"
        deals = 10
        matchups = [["simple", "random"], ["threshold_schedule", "random"]]
        [sweep]
        "a.knock_at" = [0, 5]
    ''')
    cells = load_experiment(write(tmp_path, text)).cells()
    assert [(c.a, c.sweep) for c in cells] == [
        ("simple:knock_at=0", {"a.knock_at": 0.0}), ("simple:knock_at=5", {"a.knock_at": 5.0}),
        ("threshold_schedule", {})]
    with pytest.raises(ExperimentError, match="no matchup's strategy B has a parameter 'knock_at'"):
        load_experiment(write(tmp_path, text.replace('"a.knock_at"', '"b.knock_at"')))


def test_every_column_of_a_runs_files_carries_its_description(tmp_path):
    """Each Parquet file describes its columns in the fields' metadata (``description``):
    the labels, a swept parameter, the hand and the game columns, as declared in
    ``simulator.core.records``; pandas still reads the files as before."""
    import pyarrow.parquet as pq

    from simulator.core import records

    text = textwrap.dedent('''
        name = "described"
        seed = 3
        deals = 40
        games = 4
        matchups = [["simple", "random"]]
        [variants.hoyle]
        preset = "hoyle"
        [sweep]
        "a.knock_at" = [0, 4]
    ''')
    run_experiment(load_experiment(write(tmp_path, text)), tmp_path / "run", progress=False)
    for mode, row in (("data", records.HAND_ROW), ("games", records.GAME_ROW)):
        chunk = sorted((tmp_path / "run" / mode).glob("*.parquet"))[0]
        schema = pq.read_schema(chunk)
        described = {f.name: (f.metadata or {}).get(b"description", b"").decode() for f in schema}
        assert all(described.values()), [name for name, text in described.items() if not text]
        expected = {**records.column_descriptions(records.RUN_LABELS),
                    "a.knock_at": records.SWEEP_DOC.format(name="a.knock_at"),
                    **records.column_descriptions(row)}
        assert described == expected
    assert pq.read_schema(chunk).field("margin_a").metadata[b"description"] == b"`score_a - score_b`"
    hands = pq.read_schema(sorted((tmp_path / "run" / "data").glob("*.parquet"))[0])
    assert hands.field("net_a").metadata[b"description"] == b"points to A minus points to B"
    assert len(read(tmp_path / "run")) == 2 * 40
