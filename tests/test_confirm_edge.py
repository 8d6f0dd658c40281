"""``ginsim confirm`` of a seat edge with its draws' and deal's luck (``estimator = "draws+deal"``
in a claim on ``first_mover_edge`` per hand or per game; ``draws+deal+swap`` with the same deals'
or games' hands exchanged too): the same power on fewer pairs than the plain mean's,
the study's estimate agreeing with the plain mean of the same units, and the estimator refused,
in one line, for anything but a first-mover edge (and any other for one)."""

from __future__ import annotations

import json

import pytest

from simulator.cli import main
from simulator.studies import draw_values
from test_confirm import tiny_study

TABLE = f"draw_values_1:{draw_values.load().digest}"
WINS = f"win_values_1:{draw_values.load_wins().digest}"
EXPERIMENT = """
name = "tiny"
seed = 626262
deals = 20_000
mirrored = true
matchups = [["simple", "simple"]]

[variants.classic]
preset = "classic"
"""


def _claim(claim_id: str, extra: str, metric: str = "first_mover_edge", unit: str = "hand",
           effect: float = 0.2) -> str:
    return (f'\n[[claims]]\nid = "{claim_id}"\nmargin_from = "prior"\nstatement = "the first mover\'s edge, {claim_id}"\n'
            f'metric = "{metric}"\nunit = "{unit}"\na = "simple"\nb = "simple"\nrules = "classic"\nsign = "positive"\n'
            f'effect = {effect}\n{extra}')


CLAIMS = ("max_deals = 400_000\n" + _claim("plain_edge", "")
          + _claim("reduced_edge", f'estimator = "draws+deal"\ntables = ["{TABLE}"]\n')
          + _claim("swapped_edge", f'estimator = "draws+deal+swap"\ntables = ["{TABLE}"]\n'))


@pytest.fixture
def study(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tiny_study(tmp_path, CLAIMS, EXPERIMENT)


def test_a_seat_edge_is_confirmed_on_fewer_pairs_with_its_draws_and_deal(study, capsys):
    assert main(["confirm", "tiny", "--quiet"]) in (0, 1)
    result = json.loads((study / "results" / "tiny" / "confirm.json").read_text())
    by_id = {e["id"]: e for e in result["claims"]}
    plain, reduced, swapped = by_id["plain_edge"], by_id["reduced_edge"], by_id["swapped_edge"]
    assert "estimator" not in plain and reduced["estimator"] == "draws+deal" and reduced["tables"] == [TABLE]
    # all powered for the same effect, each from its own spread: the reduced ones on fewer pairs, the
    # exchanged hands' on fewer still
    assert swapped["confirmation"]["n"] * 1.5 < reduced["confirmation"]["n"]
    assert reduced["confirmation"]["n"] * 1.3 < plain["confirmation"]["n"]
    # the study's estimate from the same deals, two ways: they agree, the reduced one narrower
    width = reduced["plain"]["original"]["high"] - reduced["plain"]["original"]["low"]
    assert abs(reduced["original"]["estimate"] - reduced["plain"]["original"]["estimate"]) < width / 2
    assert reduced["original"]["high"] - reduced["original"]["low"] < width
    assert reduced["plain"]["original"]["estimate"] == pytest.approx(plain["original"]["estimate"], abs=1e-6)
    md = (study / "results" / "tiny" / "confirm.md").read_text()
    assert "`reduced_edge`: draws+deal, `draw_values_1`" in md


@pytest.mark.parametrize("claim, field, words", [
    (_claim("edge_with_self", 'estimator = "self"\n'), "estimator",
     'a first-mover edge takes estimator = "draws+deal" or "draws+deal+swap"'),
    (_claim("game_edge_one_table", f'estimator = "draws+deal+swap"\ntables = ["{TABLE}"]\n', unit="game"), "tables",
     "first_mover_edge per game reads one table of each of draw_values, win_values"),
    (_claim("points_with_deal", f'estimator = "draws+deal+swap"\ntables = ["{TABLE}"]\n', metric="net_points"),
     "estimator", "and they measure only that"),
])
def test_the_seat_edge_estimator_fits_only_a_seat_edge(tmp_path, monkeypatch, capsys, claim, field, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "tiny.toml").write_text(EXPERIMENT)
    (tmp_path / "experiments" / "tiny.claims.toml").write_text("max_deals = 400_000\n" + claim)
    assert main(["claims", "register", "tiny"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"claims[0].{field}" in err and words in err, err


GAMES = EXPERIMENT.replace("deals = 20_000", "games = 2_000")
GAME_CLAIMS = ("max_games = 40_000\n" + _claim("plain_game_edge", "", unit="game", effect=0.03)
               + _claim("swapped_game_edge", f'estimator = "draws+deal+swap"\ntables = ["{TABLE}", "{WINS}"]\n',
                        unit="game", effect=0.03))


def test_a_game_seat_edge_is_confirmed_on_fewer_games_with_the_hands_exchanged(tmp_path, monkeypatch):
    """A first mover's edge over whole games (its share of games won less ½) with the draws' and
    the first hand's luck and the same games with every hand's two hands exchanged: powered for the
    same effect on a fraction of the plain mean's games, the study's estimate agreeing with the
    plain mean of the same games (the report's own figure)."""
    monkeypatch.chdir(tmp_path)
    study = tiny_study(tmp_path, GAME_CLAIMS, GAMES)
    assert main(["confirm", "tiny", "--quiet"]) in (0, 1)
    result = json.loads((study / "results" / "tiny" / "confirm.json").read_text())
    by_id = {e["id"]: e for e in result["claims"]}
    plain, swapped = by_id["plain_game_edge"], by_id["swapped_game_edge"]
    assert swapped["estimator"] == "draws+deal+swap" and swapped["tables"] == [TABLE, WINS]
    assert swapped["confirmation"]["n"] * 2 < plain["confirmation"]["n"]
    assert swapped["plain"]["original"]["estimate"] == pytest.approx(plain["original"]["estimate"], abs=1e-9)
    width = plain["original"]["high"] - plain["original"]["low"]
    assert abs(swapped["original"]["estimate"] - plain["original"]["estimate"]) < width / 2
    assert swapped["original"]["high"] - swapped["original"]["low"] < width
