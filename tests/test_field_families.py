"""Opponent families in the field (issue 59, items 2-3; ``simulator.studies.families``): the
MARJJ family's knock windows, the ``[families]`` of an experiment file, each player's minimum
over a family and its exploitability lower bound with Bonferroni's simultaneous intervals, and
the field's page with its family tables from one command."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import scipy.stats as st

import strategies
from cli_runner import ginsim, one_line_error
from simulator import api
from simulator.analysis.stats import game_stats, hand_stats
from simulator.run.experiment import ExperimentError, load_experiment, parse_experiment
from simulator.run.rundir import experiment_hash
from simulator.studies.families import exploitability, family_minimum, simultaneous_intervals

ROOT = Path(__file__).resolve().parents[1]
#: the knock table solved under the EAAI rules (results/equilibrium_class/table_tournament)
TABLE = ("knock_table:t0=35116724289472,t1=7518257599,t2=280925220896768,t3=14422008,t4=0,t5=1056964608,t6=0,"
         "t7=1970324836974592")


# ----------------------------------------------------------------------------- the MARJJ family

def test_marjj_knock_windows_one_to_six_are_distinct_players_and_three_is_marjj_itself():
    from strategies import marjj

    members = [strategies.parse_strategy(f"marjj:knock_turns={w}") for w in range(1, 7)]
    assert [m.values["knock_turns"] for m in members] == [1, 2, 3, 4, 5, 6]
    assert members[2].label == "marjj" and len({m.label for m in members}) == 6
    for w, m in enumerate(members, start=1):  # deadwood 1-10 knocks on draws 1..w only; gin always
        row = m.row
        assert marjj.knocks_with_nb(row, 7, w) and not marjj.knocks_with_nb(row, 7, w + 1)
        assert marjj.knocks_with_nb(row, 0, 30) and not marjj.knocks_with_nb(row, 11, 1)


def test_mc_rollouts_keep_modelling_the_v5_window_whatever_marjj_the_table_plays():
    from strategies import marjj, mc

    # the rollouts' marjj is a constant row with v5's window, whichever marjj the opponent is
    assert mc.MARJJ_PARAMS[list(marjj.PARAMS).index("knock_turns")] == 3
    assert list(mc.MARJJ_PARAMS[:len(marjj.PARAMS)]) == list(strategies.parse_strategy("marjj").row[:len(marjj.PARAMS)])


def test_marjj_knocking_by_the_solved_table_is_a_hybrid_of_the_two():
    hybrid = strategies.parse_strategy("marjj+knock=" + TABLE)
    assert hybrid.host.name == "marjj" and hybrid.donor.name == "knock_table" and hybrid.decisions == ("knock",)


# ----------------------------------------------------------------------------- [families] in an experiment

BASE = {"name": "f", "seed": 1, "games": 4, "matchups": [["simple", "knock_early"], ["simple", "gin_hunter"]]}


@pytest.mark.parametrize("families, words", [
    ({"k": ["simple", "expert"]}, ["families.k[1]", "'expert' is not a player", "players: simple, knock_early"]),
    ({"k": []}, ["families.k", "non-empty list"]),
    ({"k": "simple"}, ["families.k", "non-empty list"]),
    ({"k": ["simple", "simple"]}, ["families.k[1]", "listed twice"]),
    ({"two words": ["simple"]}, ["families.two words", "letters, digits"]),
    ({"k": ["simple:knock_at=-1"]}, ["families.k[0]", "spelled as there"]),
])
def test_a_bad_family_is_refused_in_one_line_naming_it(families, words):
    with pytest.raises(ExperimentError) as caught:
        parse_experiment({**BASE, "families": families}, "x.toml")
    assert "\n" not in str(caught.value) and str(caught.value).startswith("x.toml: families")
    for word in words:
        assert word in str(caught.value)


def test_ginsim_run_refuses_a_bad_family_with_one_line_and_no_run(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('name = "bad"\nseed = 1\ngames = 4\nmatchups = [["simple", "knock_early"]]\n'
                    '[families]\nk = ["simple", "random"]\n')
    one_line_error(ginsim("run", path, "--out", tmp_path / "run"), "families.k[1]", "not a player of the matchups")
    assert not (tmp_path / "run").exists()


def test_families_are_kept_in_the_manifest_only_when_declared_so_older_runs_keep_their_hash():
    declared = parse_experiment({**BASE, "families": {"k": ["knock_early", "gin_hunter"]}})
    assert declared.to_dict()["families"] == {"k": ["knock_early", "gin_hunter"]}
    assert "families" not in parse_experiment(BASE).to_dict()
    manifest = json.loads((ROOT / "results" / "field" / "manifest.json").read_text())
    field_toml = load_experiment(ROOT / "experiments" / "field.toml").to_dict()
    assert experiment_hash(json.loads(json.dumps(field_toml))) == manifest["experiment_hash"]


def test_the_field_families_study_declares_the_families_the_issue_names():
    exp = load_experiment(ROOT / "experiments" / "field_families.toml")
    assert exp.families["marjj"][:6] == ["marjj:knock_turns=1", "marjj:knock_turns=2", "marjj",
                                         "marjj:knock_turns=4", "marjj:knock_turns=5", "marjj:knock_turns=6"]
    assert "marjj:weight=20,future=6" in exp.families["marjj"]  # the paper's constants
    players = {s for pair in exp.matchups for s in pair}
    assert {"expert", "gold_standard", "undercut_aware", "simple", "marjj+knock=" + TABLE, TABLE} <= players
    assert len(exp.matchups) == len(players) * (len(players) - 1) // 2  # a round robin
    assert {frozenset(p) for p in exp.matchups} == {frozenset((a, b)) for a in players for b in players if a != b}
    assert list(exp.variants) == ["tournament"]


# ----------------------------------------------------------------------------- the minimum and the best response

def stats_frame(rows, column="win_prob"):
    """Per-cell stats rows (a, b, value, se, units) as hand_stats/game_stats name them."""
    base = column[:-5] if column.endswith("_mean") else column
    return pd.DataFrame([{"a": a, "b": b, column: v, f"{base}_se": se, "n_units": n, "variant": "t"}
                         for a, b, v, se, n in rows])


def test_the_minimum_is_over_the_members_from_the_players_side_with_bonferronis_interval():
    games = stats_frame([("p", "m1", 0.60, 0.01, 2000), ("m2", "p", 0.45, 0.02, 2000), ("p", "m3", 0.58, 0.005, 2000),
                         ("p", "p", 0.5, 0.01, 2000), ("m1", "m2", 0.9, 0.01, 2000)])
    low = family_minimum(games, "p", ["m1", "m2", "m3", "p", "m4"])
    assert low.value == pytest.approx(0.55) and low.member == "m2"  # p sat as B against m2: 1 - 0.45
    assert low.measured == 3 and low.unpaired == ("m4",)  # itself left out; m4 never met
    q = st.t.ppf(1 - 0.05 / 3 / 2, 1999)  # each of the 3 members at 1 - 0.05/3
    assert low.low == pytest.approx(min(0.60 - q * 0.01, 0.55 - q * 0.02, 0.58 - q * 0.005))
    assert low.high == pytest.approx(min(0.60 + q * 0.01, 0.55 + q * 0.02, 0.58 + q * 0.005))
    assert low.high == pytest.approx(0.58 + q * 0.005)  # the smallest high end need not be the minimum's
    assert family_minimum(games, "p", ["p", "m4"]) is None


def test_the_exploitability_bound_is_the_most_points_any_member_wins():
    hands = stats_frame([("p", "m1", -0.40, 0.10, 500), ("m2", "p", 0.90, 0.20, 500), ("p", "m3", 0.30, 0.10, 500)],
                        "net_mean")
    gain = exploitability(hands, "p", ["m1", "m2", "m3"])
    assert gain.member == "m2" and gain.value == pytest.approx(0.90)
    q = st.t.ppf(1 - 0.05 / 6, 499)
    assert gain.low == pytest.approx(max(0.40 - q * 0.10, 0.90 - q * 0.20, -0.30 - q * 0.10))
    assert gain.high == pytest.approx(max(0.40 + q * 0.10, 0.90 + q * 0.20, -0.30 + q * 0.10))


def test_one_member_gets_the_cells_own_interval_and_more_members_widen_it():
    games = api.simulate_games("simple", "knock_early", "tournament", n_games=200, seed=5)
    row = game_stats(games).iloc[0]
    (low, high), = simultaneous_intervals([row.win_prob], [row.win_prob_se], [row.n_units], proportion=True)
    assert (low, high) == pytest.approx((row.win_prob_ci_low, row.win_prob_ci_high))
    wide = simultaneous_intervals([row.win_prob] * 6, [row.win_prob_se] * 6, [row.n_units] * 6, proportion=True)
    assert wide[0, 0] < low and wide[0, 1] > high


def test_a_share_won_in_every_unit_gets_wilsons_interval_not_a_point():
    (low, high), = simultaneous_intervals([1.0], [0.0], [500], proportion=True)
    assert high == 1.0 and 0.98 < low < 1.0


# ----------------------------------------------------------------------------- the field's page

TINY = ('name = "tiny_families"\nseed = 13\ndeals = 200\ngames = 40\nmirrored = true\n'
        'matchups = [["simple", "knock_early"], ["simple", "gin_hunter"], ["knock_early", "gin_hunter"], '
        '["simple", "undercut_aware"], ["knock_early", "undercut_aware"], ["gin_hunter", "undercut_aware"]]\n'
        '[variants.tournament]\npreset = "tournament"\n'
        '[families]\nknockers = ["knock_early", "gin_hunter"]\nbaselines = ["simple", "undercut_aware"]\n')


def test_reproduce_writes_the_family_tables_of_a_field_with_families(tmp_path):
    """One command regenerates a field with families: the run, its report and its page, with
    each family's table (every player, its minimum and its exploitability lower bound)."""
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "tiny_families.toml").write_text(TINY)
    done = ginsim("reproduce", "tiny_families", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    run = tmp_path / "results" / "tiny_families"
    text = (tmp_path / "results" / "tiny_families_ratings" / "field.md").read_text()
    number = {line.split("`")[1]: f"#{line.split(' | ')[0][2:]}" for line in text.split("| rank |")[1].splitlines()
              if line[:3].strip("| ").isdigit()}  # the ratings table: each player's rank number
    assert (f"### Family `knockers` (2 members: {number['knock_early']} `knock_early`, "
            f"{number['gin_hunter']} `gin_hunter`)") in text
    assert "### Family `baselines`" in text and "Bonferroni" in text
    table = text.split("### Family `knockers`")[1].split("###")[0]
    rows = [line for line in table.splitlines() if line.startswith("| #")]
    assert len(rows) == 4  # every player of the field
    low = family_minimum(game_stats(run), "simple", ["knock_early", "gin_hunter"])
    gain = exploitability(hand_stats(run), "simple", ["knock_early", "gin_hunter"])
    simple_row = next(r for r in rows if r.startswith(f"| {number['simple']} `simple` |"))
    assert f"{low.value:.1%} [{low.low:.1%}, {low.high:.1%}]" in simple_row and f"| {number[low.member]} |" in simple_row
    assert f"{gain.value:+.2f} [{gain.low:+.2f}, {gain.high:+.2f}]" in simple_row
    knock_early = next(r for r in rows if r.startswith(f"| {number['knock_early']} `knock_early` |"))
    assert knock_early.count(f"| {number['gin_hunter']} |") == 2  # its family minus itself: one member, min and max
    shares = [float(r.split(" | ")[3].split("%")[0]) for r in rows]
    assert shares == sorted(shares, reverse=True)  # ranked by the minimum


@pytest.mark.slow
def test_the_field_families_study_runs_whole_at_a_tiny_size(tmp_path):
    """experiments/field_families.toml through the whole pipeline (run, report, page) at 2 deals
    and 2 games a cell: every family's table lists every player."""
    out = tmp_path / "field_families"
    done = ginsim("reproduce", "field_families", "--deals", 2, "--games", 2, "--quiet", "--out", out, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    exp = load_experiment(ROOT / "experiments" / "field_families.toml")
    players = {strategies.display_spec(s) for pair in exp.matchups for s in pair}  # a solved table by its name
    text = (tmp_path / "field_families_ratings" / "field.md").read_text()
    assert "knock_table:t0=" not in text
    for name, members in exp.families.items():
        table = text.split(f"### Family `{name}` ({len(members)} members")[1].split("###")[0].split("## CPU")[0]
        assert {line.split("`")[1] for line in table.splitlines() if line.startswith("| #")} == players


@pytest.fixture(scope="module")
def tiny_families(tmp_path_factory) -> Path:
    from simulator.run.runner import run_experiment

    tmp = tmp_path_factory.mktemp("families")
    (tmp / "tiny_families.toml").write_text(TINY)
    return run_experiment(load_experiment(tmp / "tiny_families.toml"), tmp / "tiny_families", progress=False)


def test_a_placed_player_gets_its_minimum_and_exploitability_against_each_family(tiny_families):
    from simulator.studies import field

    done = ginsim("field", "threshold_schedule", "--run", tiny_families, "--deals", 100, "--games", 20)
    assert done.returncode == 0, done.stderr
    placed = field.place("threshold_schedule", tiny_families, n_deals=100, n_games=20)["tournament"]
    low, gain = placed["families"]["knockers"]
    assert low == family_minimum(placed["games"], "threshold_schedule", ["knock_early", "gin_hunter"])
    assert gain == exploitability(placed["hands"], "threshold_schedule", ["knock_early", "gin_hunter"])
    line = next(line for line in done.stdout.splitlines() if line.strip().startswith("knockers:"))
    assert f"minimum {low.value:.1%} [{low.low:.1%}, {low.high:.1%}] of games (against {low.member})" in line
    assert f"exploitability lower bound {gain.value:+.2f} [{gain.low:+.2f}, {gain.high:+.2f}]" in line
    assert any(line.strip().startswith("baselines:") for line in done.stdout.splitlines())
