"""``knock_table`` (a knock decision read from a table over deadwood × own draws × the
opponent's pile pickups) and the fictitious-play study that solves one (``ginsim equilibrium``
with ``method = "table"``)."""

import json

import numpy as np
import pytest

import strategies
from simulator import api
from simulator.cli import main
from simulator.studies.knock_table import KnockTableError, parse_table_spec, table_of_member
from strategies import knock_table as kt
from test_cli_json import validate
from test_strategies import MELDED, Position, knock_position
from strategies.view import PHASE_LAST_DISCARD


def _row(levels) -> np.ndarray:
    return strategies.parse_strategy(kt.spec_of(levels)).row


def test_a_table_round_trips_through_its_spec_and_its_parameter_row():
    levels = np.arange(kt.N_CELLS) % (kt.LEVELS + 1)
    spec = kt.spec_of(levels)
    assert (kt.decode(strategies.parse_strategy(spec).values) == levels).all()
    assert (kt.decode(_row(levels)) == levels).all()
    assert strategies.parse_strategy("knock_table").label == "knock_table"  # every cell 7: the default
    with pytest.raises(ValueError, match="t0"):
        strategies.parse_strategy(f"knock_table:t0={kt.FULL_SLOT + 1}")


@pytest.mark.parametrize("deadwood, draws, pickups, limit", [
    (1, 1, 0, 10), (10, 13, 1, 10), (9, 9, 2, 10), (3, 14, 5, 10), (5, 30, 0, 5), (15, 7, 1, 15), (4, 5, 0, 15),
])
def test_the_engine_reads_the_cell_the_python_side_names(deadwood, draws, pickups, limit):
    from simulator.core.rules import Rules

    levels = np.zeros(kt.N_CELLS, dtype=int)
    c = kt.cell(deadwood, draws, pickups, limit)
    levels[c] = 5
    rules = Rules.from_dict({"preset": "hoyle", "knock_limit": limit}).to_array()
    assert kt.level_nb(_row(levels), rules, deadwood, draws, pickups) == 5
    levels[c] = 0
    assert kt.level_nb(_row(levels), rules, deadwood, draws, pickups) == 0


def test_it_knocks_by_the_cell_always_never_or_at_its_rate():
    levels = np.zeros(kt.N_CELLS, dtype=int)
    never = _row(levels)
    assert knock_position(MELDED + " 9s", my_draws=3).knock(kt, never)  # gin, always
    assert not knock_position(MELDED + " 2c", my_draws=3).knock(kt, never)
    levels[kt.cell(2, 3, 0, 10)] = kt.LEVELS
    assert knock_position(MELDED + " 2c", my_draws=3).knock(kt, _row(levels))
    assert not knock_position(MELDED + " 2c", my_draws=3, took="Qd").knock(kt, _row(levels))  # another cell
    # never above the deal's knock limit (Oklahoma upcard 5, say), whatever the cell says
    assert not knock_position(MELDED + " Jc", my_draws=3, limit=5).knock(kt, _row(np.full(kt.N_CELLS, kt.LEVELS)))
    levels[kt.cell(2, 3, 0, 10)] = 3  # 3/7
    knocks = [knock_position(MELDED + " 2c", my_draws=3, seed=s).knock(kt, _row(levels)) for s in range(2000)]
    assert np.mean(knocks) == pytest.approx(3 / 7, abs=0.04)


def test_it_takes_the_last_discard_only_when_its_cell_one_draw_later_knocks():
    hand = "2s 3s 4s 5h 6h 7h 9d 9c 5c Kc"  # 9s completes the nines, Kc goes: deadwood 5
    levels = np.zeros(kt.N_CELLS, dtype=int)
    assert not Position(hand, PHASE_LAST_DISCARD, "9s", my_draws=12).take(kt, _row(levels))
    levels[kt.cell(5, 13, 0, 10)] = kt.LEVELS
    assert Position(hand, PHASE_LAST_DISCARD, "9s", my_draws=12).take(kt, _row(levels))
    gin = Position("2s 3s 4s 5h 6h 7h 9d 9c 9h Kd", PHASE_LAST_DISCARD, "9s", my_draws=12)
    assert gin.take(kt, _row(np.zeros(kt.N_CELLS, dtype=int)))


@pytest.mark.parametrize("member, k", [("knock_policy:late=10", None), ("knock_policy:early=0,late=0", 0),
                                       ("knock_policy:turn_a=8,late=0,turn_b=2", 8),
                                       ("knock_policy:turn_a=11,late=0,turn_b=2", 11)])
def test_a_draw_only_member_written_as_a_table_plays_exactly_as_it(member, k):
    table = kt.spec_of(table_of_member(member, 10))
    for preset in ("classic", "oklahoma"):
        a = api.play_deal_records(table, "simple", preset, 0, 3000, 31)
        b = api.play_deal_records(member, "simple", preset, 0, 3000, 31)
        assert np.array_equal(a, b)


SMALL_CLASS = """
method = "class"
name = "class_for_table"
rules = "classic"
seed = 5151
draws = [8, 12]
pairs = 2_000
blocks = 20
bootstrap = 200
fresh_pairs = 2_000
"""

SMALL_TABLE = """
method = "table"
name = "table_small"
rules = "classic"
seed = 5252
draw_only = "{draw_only}"
train_pairs = 2_000
iterations = 40
br_pairs = 2_000
fresh_pairs = 2_000
"""


@pytest.mark.parametrize("change, key", [
    ('iterations = 0', "iterations"), ('fresh_pairs = 2_001', "fresh_pairs"), ('draw_only = ""', "draw_only"),
    ('objective = "game_win"', "objective"), ('colour = 1', "colour"),
])
def test_a_bad_table_spec_is_one_line_naming_the_key(change, key):
    import tomllib

    text = SMALL_TABLE.format(draw_only="somewhere")
    lines = [line for line in text.splitlines() if not line.startswith(change.split(" = ")[0] + " ")]
    with pytest.raises(KnockTableError) as info:
        parse_table_spec(tomllib.loads("\n".join(lines + [change])), "t.toml")
    assert "\n" not in str(info.value) and str(info.value).startswith(f"t.toml: {key}:")


def test_the_table_study_runs_reports_and_resumes(tmp_path, capsys):
    class_spec = tmp_path / "class.toml"
    class_spec.write_text(SMALL_CLASS, encoding="utf-8")
    table_spec = tmp_path / "table.toml"
    table_spec.write_text(SMALL_TABLE.format(draw_only=(tmp_path / "class").as_posix()), encoding="utf-8")
    # without its class game the study refuses, naming the key
    assert main(["equilibrium", str(table_spec), "--out", str(tmp_path / "table"), "--quiet"]) == 2
    assert "draw_only" in capsys.readouterr().err
    assert main(["equilibrium", str(class_spec), "--out", str(tmp_path / "class"), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["equilibrium", str(table_spec), "--out", str(tmp_path / "table"), "--quiet", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc, "equilibrium")
    run = doc["results"][0]
    assert run["table"].startswith("knock_table") and run["best_response"].startswith("knock_table")
    state = json.loads((tmp_path / "table" / "knock_table.json").read_text())
    result = state["result"]
    assert [it["iteration"] for it in result["iterations"]] == [1, 3, 10, 30, 40]
    assert len(result["against_members"]) == 4 and len(result["table"]) == kt.N_CELLS
    report = (tmp_path / "table" / "report.md").read_text()
    assert "a LOWER bound" in report and "heatmap.png" in report
    # the plain estimate of every fresh figure beside the controlled one, from the same pairs
    plain = result["plain"]
    assert len(plain["against_members"]) == len(result["against_members"]) == len(plain["members_against_table"])
    for controlled, p in [(result["exploitability_lower_bound"], plain["exploitability_lower_bound"]),
                          (result["against_draw_only_equilibrium"], plain["against_draw_only_equilibrium"]),
                          *zip(result["against_members"], plain["against_members"]),
                          *zip(result["members_against_table"], plain["members_against_table"])]:
        assert abs(controlled["value"] - p["value"]) < 4 * p["se"] and p["se"] > 0
    assert plain["against_draw_only_equilibrium"]["se"] > result["against_draw_only_equilibrium"]["se"]
    assert "## The estimator" in report and "pairs the control saves" in report
    assert run["estimator"] == "control"
    assert (tmp_path / "table" / "heatmap.png").stat().st_size > 10_000
    # a resume plays nothing more
    assert main(["equilibrium", str(table_spec), "--out", str(tmp_path / "table"), "--quiet", "--resume"]) == 0
    assert "a LOWER bound" in capsys.readouterr().out
    again = json.loads((tmp_path / "table" / "knock_table.json").read_text())["result"]
    assert again["deals"] == result["deals"] and again["table_spec"] == result["table_spec"]
    # --plain: the fresh figures' plain estimates, from the same pairs
    assert main(["equilibrium", str(table_spec), "--out", str(tmp_path / "table"), "--quiet", "--resume", "--plain",
                 "--json"]) == 0
    flat = json.loads(capsys.readouterr().out)
    validate(flat, "equilibrium")
    flat = flat["results"][0]
    assert flat["estimator"] == "plain"
    assert flat["against_draw_only_equilibrium"]["estimate"] == pytest.approx(
        plain["against_draw_only_equilibrium"]["value"])
    assert flat["exploitability_lower_bound"]["estimate"] == pytest.approx(plain["exploitability_lower_bound"]["value"])
    assert flat["best_member_against_table"]["value"]["estimate"] == pytest.approx(
        max(r["value"] for r in plain["members_against_table"]))
    # a study kept before the plain estimate was: --resume plays its fresh comparisons again on their
    # streams, checks they give the kept figures, and keeps the plain ones beside
    path = tmp_path / "table" / "knock_table.json"
    state = json.loads(path.read_text())
    for key in ("against_member", "against_table"):
        for row in state["fresh"][key]:
            del row["plain"]
    state["result"]["plain"] = None
    path.write_text(json.dumps(state))
    assert main(["equilibrium", str(table_spec), "--out", str(tmp_path / "table"), "--quiet", "--resume",
                 "--plain"]) == 0
    assert "estimates on fresh deals: the plain mean of the same pairs" in capsys.readouterr().out
    again = json.loads(path.read_text())["result"]
    assert again["plain"] == plain and again["against_members"] == result["against_members"]
    state = json.loads(path.read_text())
    for key in ("against_member", "against_table"):
        for row in state["fresh"][key]:
            del row["plain"]
    state["fresh"]["against_table"][0]["value"] += 0.001
    path.write_text(json.dumps(state))
    assert main(["equilibrium", str(table_spec), "--out", str(tmp_path / "table"), "--quiet", "--resume"]) == 2
    assert "differ from the kept ones" in capsys.readouterr().err


def test_a_table_study_killed_in_fictitious_play_resumes_to_the_same_result(tmp_path, monkeypatch, capsys):
    """Interrupted after its first save (iteration 25 of 40), the study resumes from that save
    and ends exactly where an uninterrupted run ends."""
    from simulator.studies import knock_solver

    class_spec = tmp_path / "class.toml"
    class_spec.write_text(SMALL_CLASS, encoding="utf-8")
    assert main(["equilibrium", str(class_spec), "--out", str(tmp_path / "class"), "--quiet"]) == 0
    table_spec = tmp_path / "table.toml"
    table_spec.write_text(SMALL_TABLE.format(draw_only=(tmp_path / "class").as_posix()), encoding="utf-8")
    assert main(["equilibrium", str(table_spec), "--out", str(tmp_path / "whole"), "--quiet"]) == 0
    whole = json.loads((tmp_path / "whole" / "knock_table.json").read_text())["result"]

    real, calls = knock_solver.best_response, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) > 40:  # iteration 29: 25 + 4 searches at each checkpoint 1, 3, 10 = 37 calls by the save at 25
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(knock_solver, "best_response", interrupted)
    assert main(["equilibrium", str(table_spec), "--out", str(tmp_path / "killed"), "--quiet"]) == 130
    assert "continue with --resume" in capsys.readouterr().err
    kept = json.loads((tmp_path / "killed" / "knock_table.json").read_text())
    assert kept["fp"]["done"] == 25 and "result" not in kept
    monkeypatch.setattr(knock_solver, "best_response", real)
    capsys.readouterr()
    assert main(["equilibrium", str(table_spec), "--out", str(tmp_path / "killed"), "--quiet", "--resume"]) == 0
    resumed = json.loads((tmp_path / "killed" / "knock_table.json").read_text())["result"]
    for key in ("table", "table_spec", "best_response", "iterations", "exploitability_lower_bound", "deals"):
        assert resumed[key] == whole[key], key


def _class_dir(tmp_path, change) -> str:
    """A finished class game's state under ``classic`` (three members, a mixture, ε) with
    ``change`` applied to its result: the draw-only input of a table study, made by hand."""
    from simulator.studies.class_game import draw_class

    members = [{"name": n, "policy": p} for n, p in draw_class(10, (8,))]
    result = {"rules": "classic", "rules_label": "classic", "members": members, "mixture": [0.0, 0.75, 0.25],
              "epsilon": 0.01}
    change(result)
    (tmp_path / "class").mkdir(exist_ok=True)
    (tmp_path / "class" / "class_game.json").write_text(json.dumps({"result": result}), encoding="utf-8")
    return (tmp_path / "class").as_posix()


@pytest.mark.parametrize("change, words", [
    (lambda r: r.pop("members"), "result.members: missing"),
    (lambda r: r.pop("rules"), "result.rules: missing"),
    (lambda r: r.update(members="k=8"), "result.members: must be a non-empty list"),
    (lambda r: r.update(members=[], mixture=[]), "result.members: must be a non-empty list"),
    (lambda r: r["members"][1].update(policy="simple"), "result.members[1]: must be {name, policy} with policy a "
                                                         "draw-threshold knock_policy"),
    (lambda r: r["members"][0].pop("name"), "result.members[0]"),
    (lambda r: r.update(mixture=[float("nan"), 0.5, 0.5]), "result.mixture: must be 3 finite non-negative"),
    (lambda r: r.update(mixture=[0.5, 0.5]), "result.mixture: must be 3"),
    (lambda r: r.update(mixture=[0.5, 0.75, -0.25]), "result.mixture"),
    (lambda r: r.update(epsilon="small"), "result.epsilon: must be a finite number"),
    (lambda r: r.update(rules="hoyle", rules_label="hoyle"), "result.rules: the class game was played under hoyle"),
])
def test_a_damaged_draw_only_class_game_is_one_line_naming_the_file_and_key(tmp_path, capsys, change, words):
    """Issue 54: members missing, not draw-threshold policies or a string, rules missing, a
    NaN or empty mixture gave tracebacks (or ``+nan [+nan, +nan]``); each is refused before
    anything is played, naming the spec, the class game's file and the key."""
    import tomllib

    from simulator.studies.knock_table import draw_only_result

    spec = parse_table_spec(tomllib.loads(SMALL_TABLE.format(draw_only=_class_dir(tmp_path, change))), "t.toml")
    with pytest.raises(KnockTableError) as info:
        draw_only_result(spec)
    assert str(info.value).startswith(f"t.toml: draw_only: {tmp_path / 'class' / 'class_game.json'}: ")
    assert words in str(info.value) and "\n" not in str(info.value)
    table_spec = tmp_path / "table.toml"
    table_spec.write_text(SMALL_TABLE.format(draw_only=(tmp_path / "class").as_posix()), encoding="utf-8")
    assert main(["equilibrium", str(table_spec), "--out", str(tmp_path / "table"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ginsim: error: ") and words in err[0]
    assert not (tmp_path / "table").exists()


def test_the_hand_made_draw_only_input_is_accepted_as_it_is(tmp_path):
    """The input the test above damages is itself valid (so each refusal is the change's)."""
    import tomllib

    from simulator.studies.knock_table import draw_only_result

    spec = parse_table_spec(tomllib.loads(SMALL_TABLE.format(draw_only=_class_dir(tmp_path, lambda r: None))), "t")
    assert draw_only_result(spec)["mixture"] == [0.0, 0.75, 0.25]
