"""The field study's ratings, matrix, CPU per decision and placement (``simulator.studies.field``,
``ginsim field``): the Bradley–Terry fit recovers known ratings, a tiny field run is rated and
a new player placed in it in one command."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cli_runner import ginsim, one_line_error
from simulator.run.experiment import load_experiment
from simulator.run.runner import run_experiment
from simulator.studies import field
from simulator.studies.field import Pairing, bradley_terry, matrix_rows


def expected_share(r_a: float, r_b: float) -> float:
    return 1.0 / (1.0 + 10 ** ((r_b - r_a) / 400))


def test_bradley_terry_recovers_the_ratings_behind_exact_shares():
    truth = {"simple": 0.0, "a": 150.0, "b": -80.0, "c": 300.0}
    names = list(truth)
    games = [Pairing(x, y, expected_share(truth[x], truth[y]), 0.01, 4000)
             for i, x in enumerate(names) for y in names[i + 1:]]
    rated = bradley_terry(games).set_index("player")
    for name, elo in truth.items():
        assert rated.at[name, "elo"] == pytest.approx(elo, abs=1e-6)
    assert list(rated.index) == ["c", "a", "simple", "b"]  # best first
    assert rated.at["simple", "se"] == 0 and (rated.drop("simple")["se"] > 0).all()
    row = rated.loc["a"]
    assert row.ci_low < row.elo < row.ci_high and row.ci_high - row.elo == pytest.approx(1.96 * row.se)


def test_bradley_terry_intervals_shrink_with_smaller_errors_and_a_perfect_record_stays_finite():
    wide = bradley_terry([Pairing("a", "simple", 0.6, 0.02, 1000)]).set_index("player")
    narrow = bradley_terry([Pairing("a", "simple", 0.6, 0.005, 1000)]).set_index("player")
    assert narrow.at["a", "se"] < wide.at["a", "se"]
    assert wide.at["a", "elo"] == pytest.approx(400 * math.log10(0.6 / 0.4))
    shutout = bradley_terry([Pairing("simple", "random", 1.0, 0.0, 100)]).set_index("player")
    assert np.isfinite(shutout.at["random", "elo"]) and shutout.at["random", "elo"] < -700  # half a game short of 100%


def test_bradley_terry_refuses_a_field_without_the_anchor_or_not_connected_to_it():
    with pytest.raises(ValueError, match="anchor"):
        bradley_terry([Pairing("a", "b", 0.6, 0.01, 100)])
    with pytest.raises(ValueError, match="connect"):
        bradley_terry([Pairing("a", "simple", 0.6, 0.01, 100), Pairing("b", "c", 0.5, 0.01, 100)])


def test_the_matrix_marks_only_what_holm_rejects():
    games = [Pairing("a", "b", 0.60, 0.01, 4000), Pairing("a", "c", 0.52, 0.01, 4000),
             Pairing("b", "c", 0.5, 0.01, 4000)]
    table = matrix_rows(games, ["a", "b", "c"])
    assert table.at["a", "b"] == "60.0%*" and table.at["b", "a"] == "40.0%*"
    assert table.at["a", "c"] == "52.0%"  # p = 0.045 raw, 0.09 after Holm over two: no mark
    assert table.at["a", "a"] == "·"


def test_cpu_per_decision_times_only_the_players_own_decisions():
    light = field.cpu_per_decision("simple", "tournament", n_deals=8, seed=3)
    search = field.cpu_per_decision("mc:samples=256", "tournament", n_deals=8, seed=3)
    for c in (light, search):  # at least a draw and a discard per hand, fewer than the hand's turn guard
        assert 2 * 8 <= c["decisions"] <= 8 * 200
        assert c["cpu_ms_per_hand"] == pytest.approx(c["mean_us"] * c["decisions"] / 8 / 1e3)
    assert search["mean_us"] > 5 * light["mean_us"]  # mc's knock searches show; simple's decisions do not


@pytest.fixture(scope="module")
def tiny_field(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("field")
    path = tmp / "tiny_field.toml"
    path.write_text('name = "tiny_field"\nseed = 7\ndeals = 200\ngames = 40\nmirrored = true\n'
                    'matchups = [["simple", "knock_early"], ["simple", "gin_hunter"], ["knock_early", "gin_hunter"]]\n'
                    '[variants.tournament]\npreset = "tournament"\n')
    return run_experiment(load_experiment(path), tmp / "tiny_field", progress=False)


def test_ginsim_field_writes_the_ratings_page_beside_the_run(tiny_field, tmp_path):
    done = ginsim("field", "--run", tiny_field, "--cpu-deals", 4, "--out", tmp_path / "field.md")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "field.md").read_text()
    assert "## tournament" in page and "| `simple` | +0 | [+0, +0] | 2 |" in page
    lines = page.splitlines()
    assert sum(line.startswith("| `knock_early` |") for line in lines) == 1  # its CPU row
    rank = next(line for line in lines if " | `knock_early` | " in line and line[2].isdigit()).split(" | ")[0][2:]
    assert sum(line.startswith(f"| #{rank} `knock_early` |") for line in lines) == 1  # its matrix row, by number
    assert "| | #1 | #2 | #3 |" in page and "`ginsim reproduce tiny_field`" in page  # the run's own experiment
    assert field.ratings_path(tiny_field) == tiny_field.parent / "tiny_field_ratings" / "field.md"


def test_reproduce_field_writes_its_report_and_its_ratings_page_in_one_command(tmp_path):
    """``ginsim reproduce field`` regenerates the whole field study: the run, its report and
    the ratings page beside it (here a field of three, in a folder of its own)."""
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "field.toml").write_text(
        'name = "field"\nseed = 11\ndeals = 200\ngames = 40\nmirrored = true\n'
        'matchups = [["simple", "knock_early"], ["simple", "gin_hunter"], ["knock_early", "gin_hunter"]]\n'
        '[variants.tournament]\npreset = "tournament"\n')
    done = ginsim("reproduce", "field", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    page = tmp_path / "results" / "field_ratings" / "field.md"
    assert f"ratings: {Path('results') / 'field_ratings' / 'field.md'}" in done.stdout
    assert (tmp_path / "results" / "field" / "report.md").is_file()
    text = page.read_text()
    assert "## tournament" in text and "| `simple` | +0 | [+0, +0] | 2 |" in text
    assert "## CPU per decision" in text and sum(line.startswith("| `gin_hunter` |") for line in text.splitlines()) == 1
    assert sum(line.startswith("| #") and " `gin_hunter` | " in line for line in text.splitlines()) == 1


def test_ginsim_field_places_a_new_player_in_one_command(tiny_field):
    done = ginsim("field", "threshold_schedule", "--run", tiny_field, "--deals", 100, "--games", 20)
    assert done.returncode == 0, done.stderr
    assert "<- placed" in done.stdout and "threshold_schedule" in done.stdout
    for member in ("simple", "knock_early", "gin_hunter"):
        assert f"\n{member} " in done.stdout  # a row of its results against each member
    placed = field.place("threshold_schedule", tiny_field, n_deals=100, n_games=20)
    rated = placed["tournament"]["ratings"]
    assert set(rated["player"]) == {"simple", "knock_early", "gin_hunter", "threshold_schedule"}
    assert len(placed["tournament"]["games"]) == 3 and len(placed["tournament"]["hands"]) == 3


def test_ginsim_field_places_a_python_player_given_as_a_plugin(tiny_field):
    example = Path(__file__).resolve().parents[1] / "examples" / "cautious.py"
    done = ginsim("field", "cautious_field", "--plugin", f"cautious_field={example}:Cautious", "--run", tiny_field,
                  "--deals", 20, "--games", 4)
    assert done.returncode == 0, done.stderr
    assert "cautious_field" in done.stdout and "<- placed" in done.stdout


def test_ginsim_field_refuses_bad_input_in_one_line(tiny_field):
    one_line_error(ginsim("field", "simple", "--run", tiny_field), "in the field already")
    one_line_error(ginsim("field", "threshold_schedule", "--run", tiny_field, "--deals", 3), "--deals", "even")
    one_line_error(ginsim("field", "no_such_player", "--run", tiny_field), "unknown strategy")


def test_ginsim_field_refuses_a_duplicate_a_run_without_games_and_bad_flags_in_one_line(tiny_field, tmp_path):
    """Issue 54: ``simple:knock_at=-1`` is ``simple`` (its default) and is refused as a member;
    a run without whole games, ``--cpu-deals 0`` (was taken as 200), an ``--out`` that is a
    folder (was an Errno, leaving ``DIR.tmp``) or a file ginsim did not write (was replaced)
    are refused in one line before anything is played, and nothing is left behind."""
    one_line_error(ginsim("field", "simple:knock_at=-1", "--run", tiny_field), "in the field already", "'simple'")
    path = tmp_path / "hands_only.toml"
    path.write_text('name = "hands_only"\nseed = 7\ndeals = 20\nmatchups = [["simple", "knock_early"]]\n')
    hands_only = run_experiment(load_experiment(path), tmp_path / "hands_only", progress=False)
    for args in ((), ("simple:knock_at=3",)):
        one_line_error(ginsim("field", *args, "--run", hands_only, "--out", tmp_path / "p.md"), "no whole games")
    one_line_error(ginsim("field", "--run", tiny_field, "--cpu-deals", 0), "--cpu-deals must be a positive integer")
    folder = tmp_path / "pages"
    folder.mkdir()
    one_line_error(ginsim("field", "--run", tiny_field, "--cpu-deals", 2, "--out", folder), "is a directory")
    mine = tmp_path / "mine.md"
    mine.write_text("my notes\n")
    one_line_error(ginsim("field", "--run", tiny_field, "--cpu-deals", 2, "--out", mine), "not written by ginsim")
    assert mine.read_text() == "my notes\n" and list(folder.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hands_only", "hands_only.toml", "mine.md", "pages"]
    ours = tmp_path / "ours.md"
    for _ in range(2):  # its own page: replaced
        assert ginsim("field", "--run", tiny_field, "--cpu-deals", 2, "--out", ours).returncode == 0
    assert ours.read_text().startswith(field.FIELD_TITLE)
