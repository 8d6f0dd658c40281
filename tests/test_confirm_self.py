"""``ginsim confirm`` with the players' self-play as the estimator (``estimator = "self"`` in a
claim): for two players that play alike, the same power costs many times fewer pairs than the
plain mean's, the study's and the confirmation's estimates agree with the plain mean of the same
units, and whole games' self-play is centred on half the games."""

from __future__ import annotations

import json

import pytest

from simulator.cli import main
from test_confirm import tiny_study

K11 = "knock_policy:turn_a=11,late=0,turn_b=2"
K12 = "knock_policy:turn_a=12,late=0,turn_b=2"
EXPERIMENT = f"""
name = "tiny"
seed = 515151
deals = 20_000
games = 200
mirrored = true
matchups = [["{K12}", "{K11}"]]

[variants.classic]
preset = "classic"
"""


def _claim(claim_id: str, metric: str, unit: str, sign: str, extra: str = "") -> str:
    return (f'\n[[claims]]\nid = "{claim_id}"\nmargin_from = "prior"\nstatement = "k=12 against k=11 under classic, {claim_id}"\n'
            f'metric = "{metric}"\nunit = "{unit}"\na = "{K12}"\nb = "{K11}"\nrules = "classic"\n{sign}\n{extra}')


CLAIMS = ("max_deals = 400_000\nmax_games = 400\n"
          + _claim("plain_hands", "net_points", "hand", 'sign = "positive"', 'effect = 0.05\nestimator = "plain"\n')
          + _claim("self_hands", "net_points", "hand", 'sign = "positive"', 'effect = 0.05\nestimator = "self"\n')
          + _claim("self_games", "win_share", "game", "above = 0.3", 'estimator = "self"\n'))


@pytest.fixture
def study(tmp_path, monkeypatch):
    """The study of k=12 against k=11 and its claims, registered (run from ``tmp_path``)."""
    monkeypatch.chdir(tmp_path)
    return tiny_study(tmp_path, CLAIMS, EXPERIMENT)


def test_self_play_confirms_a_close_claim_on_many_times_fewer_pairs(study, capsys):
    assert main(["confirm", "tiny", "--quiet"]) in (0, 1)  # k=12's edge is far below the powered 0.05
    result = json.loads((study / "results" / "tiny" / "confirm.json").read_text())
    by_id = {e["id"]: e for e in result["claims"]}
    plain, reduced, games = by_id["plain_hands"], by_id["self_hands"], by_id["self_games"]
    assert "estimator" not in plain and reduced["estimator"] == "self" and reduced["tables"] is None
    # the power each plans for, from its own spread: the plain claim reaches the deals' cap short of
    # it, the reduced one reaches it on a small fraction of them
    assert plain["confirmation"]["n"] == 400_000 and plain["power"] < 0.89 <= reduced["power"]
    assert reduced["confirmation"]["n"] * 10 < plain["confirmation"]["n"]
    # the study's estimate from the same deals, two ways: they agree, the reduced one narrower
    for e in (reduced, games):
        width = e["plain"]["original"]["high"] - e["plain"]["original"]["low"]
        assert abs(e["original"]["estimate"] - e["plain"]["original"]["estimate"]) < width / 2
        assert e["original"]["high"] - e["original"]["low"] < width
    assert reduced["plain"]["original"]["estimate"] == pytest.approx(plain["original"]["estimate"], abs=1e-6)
    # a game's self-play wins half the games: the reduced share stays a share
    assert 0.35 < games["original"]["estimate"] < 0.65
    md = (study / "results" / "tiny" / "confirm.md").read_text()
    assert "`self_hands`: self; the plain mean of the same units: study " in md


def test_a_self_play_claim_names_no_tables(study, capsys):
    path = study / "experiments" / "tiny.claims.toml"
    path.write_text(CLAIMS.replace('estimator = "self"\n', 'estimator = "self"\ntables = ["draw_values_1:' + "0" * 64
                                   + '"]\n', 1))
    (study / "experiments" / "ledger" / "tiny.jsonl").unlink()
    main(["claims", "register", "tiny"])
    capsys.readouterr()
    assert main(["confirm", "tiny", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "claims[1].tables: estimator = \"self\" reads no table" in err, err
