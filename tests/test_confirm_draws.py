"""``ginsim confirm`` with the draws' luck as the estimator (``estimator = "draws"`` in a claim):
the tables' digests are part of the registered claim, the study's estimate and the
confirmation's are both reduced, the plain twin of the claim is confirmed beside it, and a
table that differs from the registered one is refused in one line."""

from __future__ import annotations

import json

import pytest

from simulator.cli import main
from simulator.studies import draw_values
from test_confirm import tiny_study

TABLE = f"draw_values_1:{draw_values.load().digest}"
WINS = f"win_values_1:{draw_values.load_wins().digest}"


def _claim(claim_id: str, statement: str, metric: str, unit: str, extra: str = "") -> str:
    """One ``[[claims]]`` table of knock_early against random under hoyle, asserting a positive sign."""
    return (f'\n[[claims]]\nid = "{claim_id}"\nmargin_from = "study"\nstatement = "{statement}"\nmetric = "{metric}"\n'
            f'unit = "{unit}"\na = "knock_early"\nb = "random"\nrules = "hoyle"\nsign = "positive"\n{extra}')


CLAIMS = ("max_deals = 2_000\nmax_games = 400\n"
          + _claim("plain_claim", "knock_early beats random per hand", "net_points", "hand")
          + _claim("reduced_claim", "knock_early beats random per hand, estimated with the draws' luck", "net_points",
                   "hand", f'estimator = "draws"\ntables = ["{TABLE}"]\n')
          + _claim("reduced_games", "knock_early wins more than half its games against random, estimated with the "
                   "draws' luck", "win_share", "game", f'estimator = "draws"\ntables = ["{TABLE}", "{WINS}"]\n'))


@pytest.fixture
def study(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tiny_study(tmp_path, CLAIMS)


def test_a_draws_claim_is_confirmed_with_the_reduced_estimator_beside_its_plain_twin(study, capsys):
    assert main(["confirm", "tiny", "--quiet"]) == 0
    result = json.loads((study / "results" / "tiny" / "confirm.json").read_text())
    by_id = {e["id"]: e for e in result["claims"]}
    assert {e["status"] for e in by_id.values()} == {"replicated"}
    plain, reduced = by_id["plain_claim"], by_id["reduced_claim"]
    assert "estimator" not in plain and reduced["estimator"] == "draws" and reduced["tables"] == [TABLE]
    assert by_id["reduced_games"]["tables"] == [TABLE, WINS]
    # the same deals, estimated two ways: the reduced interval is the narrower, and they agree
    width = {k: e["original"]["high"] - e["original"]["low"] for k, e in (("plain", plain), ("reduced", reduced))}
    assert width["reduced"] < width["plain"] and plain["original"]["n"] == reduced["original"]["n"] == 2_000
    assert abs(reduced["original"]["estimate"] - plain["original"]["estimate"]) < width["plain"] / 2
    # the plain mean beside the reduced one is the plain claim's own figure, from another path
    for which in ("estimate", "low", "high"):
        assert reduced["plain"]["original"][which] == pytest.approx(plain["original"][which], rel=1e-5)
    assert set(reduced["plain"]) == {"original", "confirmation"}
    md = (study / "results" / "tiny" / "confirm.md").read_text()
    assert "## Estimators" in md and f"`reduced_claim`: draws, `draw_values_1` (sha256 {TABLE.split(':')[1][:12]}); " \
        "the plain mean of the same units: study " in md


def test_a_table_that_differs_from_the_registered_one_is_refused(study, capsys, tmp_path):
    path = study / "experiments" / "tiny.claims.toml"
    path.write_text(CLAIMS.replace(TABLE, "draw_values_1:" + "0" * 64, 2))
    (study / "experiments" / "ledger" / "tiny.jsonl").unlink()  # a new study: its claims as edited
    assert main(["claims", "register", "tiny"]) == 0
    capsys.readouterr()
    assert main(["confirm", "tiny", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "tables: draw_values_1 has digest" in err, err
    assert not (study / "results").exists()


@pytest.mark.parametrize("estimator", ["draws+replay_b", "draws+swap+replay_b"])
def test_a_games_claim_is_confirmed_with_bs_replays(estimator, tmp_path, monkeypatch, capsys):
    """``estimator = "draws+replay_b"`` (alone or with the hands exchanged) on a claim of games:
    confirmed, the estimator named."""
    monkeypatch.chdir(tmp_path)
    study = tiny_study(tmp_path, "max_deals = 2_000\nmax_games = 400\n" + _claim(
        "replayed_games", "knock_early wins more than half its games against random, with random's replays",
        "win_share", "game", f'estimator = "{estimator}"\ntables = ["{TABLE}", "{WINS}"]\n'))
    assert main(["confirm", "tiny", "--quiet"]) == 0
    (claim,) = json.loads((study / "results" / "tiny" / "confirm.json").read_text())["claims"]
    assert claim["status"] == "replicated" and claim["estimator"] == estimator


@pytest.mark.parametrize("edit, words", [
    (('estimator = "draws"\ntables = ["' + TABLE + '"]\n', 'estimator = "draws+replay_b"\ntables = ["' + TABLE
      + '"]\n'), "claims[1].estimator: \"draws+replay_b\" measures whole games only"),
    (('metric = "net_points"\nunit = "hand"\na = "knock_early"\nb = "random"\nrules = "hoyle"\nsign = "positive"\n'
      'estimator', 'metric = "length"\nunit = "hand"\na = "knock_early"\nb = "random"\nrules = "hoyle"\n'
      'sign = "positive"\nestimator'), "claims[1].estimator: \"draws\" measures"),
    ((f'tables = ["{TABLE}", "{WINS}"]', f'tables = ["{TABLE}"]'), "claims[2].tables: estimator = \"draws\" for"),
    ((f'tables = ["{TABLE}"]\n', 'tables = ["draw_values_1"]\n'), "claims[1].tables: must list NAME:SHA256"),
    (('estimator = "draws"\ntables = ["' + TABLE + '"]\n', 'estimator = "aivat"\n'), "claims[1].estimator"),
    (('sign = "positive"\n\n[[claims]]\nid = "reduced_claim"',
      f'sign = "positive"\ntables = ["{TABLE}"]\n\n[[claims]]\nid = "reduced_claim"'),
     "claims[0].tables: only a claim with estimator"),
])
def test_a_bad_estimator_is_one_line_naming_the_key(study, capsys, edit, words):
    path = study / "experiments" / "tiny.claims.toml"
    text = CLAIMS.replace(*edit, 1)
    assert text != CLAIMS
    path.write_text(text)
    (study / "experiments" / "ledger" / "tiny.jsonl").unlink()
    main(["claims", "register", "tiny"])
    capsys.readouterr()
    assert main(["confirm", "tiny", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and words in err, err
