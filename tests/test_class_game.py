"""The class game (``ginsim equilibrium`` with ``method = "class"``): the control-variate
estimator, ε and the support's bootstrap on known matrices, and on the engine a small class
whose mixture no member beats on fresh seeds by more than ε, with resume and one-line errors."""

import json

import numpy as np
import pytest

from simulator.analysis.stats.estimators import cv_from_moments
from simulator.cli import main
from simulator.studies.class_game import (
    ClassGameError,
    bootstrap_weights,
    certify,
    draw_class,
    matrix_from,
    parse_class_spec,
)
from test_cli_json import validate

SMALL = """
method = "class"
name = "class_small"
rules = "classic"
seed = 4141
draws = [4, 8, 12]
pairs = 4_000
blocks = 40
bootstrap = 400
fresh_pairs = 64_000
"""


def _sums(x: np.ndarray, v: np.ndarray, blocks: int) -> dict[str, np.ndarray]:
    """Block sums of raw pair values ``x`` (rows × pairs) and self-play values ``v`` (pairs)."""
    xb = x.reshape(len(x), blocks, -1)
    vb = v.reshape(blocks, -1)
    return {"v": vb.sum(1), "vv": (vb ** 2).sum(1), "x": xb.sum(2), "xx": (xb ** 2).sum(2),
            "xv": (xb * vb[None]).sum(2)}


def test_the_control_variate_estimate_is_the_regression_estimate():
    rng = np.random.default_rng(3)
    v = rng.normal(0, 5, 4000)
    x = np.vstack([0.3 + 0.9 * v + rng.normal(0, 1, 4000), -0.2 + 0.1 * v + rng.normal(0, 4, 4000)])
    est, se = cv_from_moments(_sums(x, v, 40), np.ones(40), 100)
    for r in range(2):
        beta = np.cov(x[r], v, bias=True)[0, 1] / v.var()
        y = x[r] - beta * v
        assert est[r] == pytest.approx(x[r].mean() - beta * v.mean(), abs=1e-9)
        assert se[r] == pytest.approx(y.std() / np.sqrt(len(y)), rel=1e-6)
    # the first row, which follows v closely, is estimated far more tightly than its raw mean
    assert se[0] < 0.3 * x[0].std() / np.sqrt(4000)


def test_epsilon_bounds_every_gain_and_the_support_distribution_sums_to_one():
    # rock-paper-scissors plus a dominated fourth: equilibrium (1/3, 1/3, 1/3, 0)
    m = np.array([[0, -1, 1, 0.5], [1, 0, -1, 0.5], [-1, 1, 0, 0.5], [-0.5, -0.5, -0.5, 0]])
    mixture = np.array([1, 1, 1, 0]) / 3
    rng = np.random.default_rng(5)
    noise = rng.normal(0, 0.05, (600, 4, 4))
    replicas = m[None] + (noise - noise.transpose(0, 2, 1)) / 2
    cert = certify(m, mixture, replicas, 10 ** 9)
    gains = replicas @ mixture
    assert cert["epsilon"] == pytest.approx(np.quantile(np.max(2 * (m @ mixture)[None] - gains, axis=1), 0.95))
    assert cert["epsilon"] > 0 and cert["max_gain"] == pytest.approx(0, abs=1e-12)
    assert cert["delta"] >= cert["epsilon"] / 2
    assert sum(s["share"] for s in cert["supports"]) == pytest.approx(1)
    assert cert["in_support"][3] < 0.05 and min(cert["in_support"][:3]) > 0.9


def test_the_bootstrap_matrix_with_unit_weights_is_the_matrix():
    rng = np.random.default_rng(9)
    k, blocks, per = 3, 10, 5
    columns = {j: _sums(rng.normal(0, 1, (j, blocks * per)), rng.normal(0, 1, blocks * per), blocks)
               for j in range(1, k)}
    m = matrix_from(columns, k, per)
    assert np.allclose(m, -m.T)
    ones = {j: np.ones((2, blocks)) for j in range(1, k)}
    assert np.allclose(matrix_from(columns, k, per, ones, 2), m[None])
    w = bootstrap_weights(blocks, 50, k, 1)
    assert set(w) == {1, 2} and all((w[j].sum(axis=1) == blocks).all() for j in w)


def test_the_class_is_gin_only_the_thresholds_and_as_soon_as_legal():
    members = draw_class(10, (3, 9))
    assert [n for n, _ in members] == ["gin only", "k=3", "k=9", "as soon as legal"]
    assert [s for _, s in members] == ["knock_policy:early=0,late=0", "knock_policy:late=0,turn_b=2",
                                       "knock_policy:turn_a=9,late=0,turn_b=2", "knock_policy:late=10"]


def test_the_classes_end_members_play_exactly_as_simple_and_gin_only():
    from simulator import api

    members = dict(draw_class(10, (5,)))
    for member, same in ((members["as soon as legal"], "simple"), (members["gin only"], "simple:knock_at=0")):
        played = api.play_deal_records(member, "simple", "classic", 0, 2000, 77)
        assert np.array_equal(played, api.play_deal_records(same, "simple", "classic", 0, 2000, 77))


@pytest.mark.parametrize("change, key", [
    ('pairs = 4_001', "pairs"), ('draws = [4, 4]', "draws"), ('draws = []', "draws"),
    ('objective = "game_win"', "objective"), ('blocks = 5', "blocks"), ('colour = 1', "colour"),
    ('method = "oracle"', "method"), ('epsilon_target = 0', "epsilon_target"),
])
def test_a_bad_class_spec_is_one_line_naming_the_key(change, key):
    import tomllib

    lines = [line for line in SMALL.splitlines() if not line.startswith(change.split(" = ")[0] + " ")]
    data = tomllib.loads("\n".join(lines + [change]))
    with pytest.raises(ClassGameError) as info:
        parse_class_spec(data, "spec.toml")
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"spec.toml: {key}:")


def test_no_member_beats_the_class_mixture_on_fresh_seeds_by_more_than_epsilon(tmp_path, capsys):
    spec = tmp_path / "small.toml"
    spec.write_text(SMALL, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc, "equilibrium")
    run = doc["results"][0]
    assert run["matrix_size"] == 5 and run["pairs_per_entry"] == 4_000
    assert sum(m["weight"] for m in run["mixture"]) == pytest.approx(1)
    result = json.loads((out / "class_game.json").read_text())["result"]
    # the mixture's certificate: no member of the class gains more than ε on fresh seeds (16 times
    # the matrix's pairs: the fresh values' own noise is a quarter of the entries')
    assert max(f["value"] for f in result["fresh"]) <= result["epsilon"]
    assert result["fresh_within_epsilon"] and result["fresh_above_epsilon"] == []
    # the estimated gains are at most the game's value (0) up to the solver's rounding
    assert max(result["gains"]) <= 1e-9
    report = (out / "report.md").read_text()
    assert "ε-equilibrium with ε =" in report and "bootstrap distribution of the support" in report
    # the plain estimate beside, from the same sums: the same matrix within its noise, wider errors
    plain = result["plain"]
    upper = [(i, j) for j in range(1, 5) for i in range(j)]
    assert all(abs(plain["matrix"][i][j] - result["matrix"][i][j]) <= 4 * plain["se"][i][j] for i, j in upper)
    assert np.median([plain["se"][i][j] / result["se"][i][j] for i, j in upper]) > 1
    assert sum(plain["mixture"]) == pytest.approx(1) and plain["epsilon"] > 0 and len(plain["fresh"]) == 5
    assert "## The estimator" in report and "Pairs the control saves" in report
    # the text output names the mixture, ε and the matrix size
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet", "--resume"]) == 0
    text = capsys.readouterr().out
    assert "mixture:" in text and "epsilon (95% upper bound" in text and "matrix: 5 x 5" in text
    assert "estimates: the self-play control variate" in text
    # the resume played nothing: the same deals, the same result
    again = json.loads((out / "class_game.json").read_text())["result"]
    assert again["deals"] == result["deals"] and again["epsilon"] == result["epsilon"]
    assert run["estimator"] == "control" and run["epsilon"] == result["epsilon"]
    # --plain gives every figure's plain estimate from the same pairs, and writes nothing new
    kept = (out / "class_game.json").read_bytes()
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet", "--resume", "--plain", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc, "equilibrium")
    flat = doc["results"][0]
    assert flat["estimator"] == "plain" and flat["epsilon"] == plain["epsilon"] and flat["delta"] == plain["delta"]
    weights = {m["policy"]: m["weight"] for m in flat["mixture"]}
    assert [weights.get(m["policy"], 0.0) for m in result["members"]] == pytest.approx(plain["mixture"])
    best = max(plain["fresh"], key=lambda f: f["value"])
    assert flat["fresh_best"]["value"]["estimate"] == pytest.approx(best["value"])
    assert flat["support_bootstrap"] == plain["bootstrap"]["supports"][:10]
    assert (out / "class_game.json").read_bytes() == kept
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet", "--resume", "--plain"]) == 0
    assert "estimates: the plain mean of the same pairs" in capsys.readouterr().out
    # without --resume the directory is refused; with another spec, the resume is refused
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet"]) == 2
    assert "--resume" in capsys.readouterr().err
    spec.write_text(SMALL.replace("seed = 4141", "seed = 4142"), encoding="utf-8")
    assert main(["equilibrium", str(spec), "--out", str(out), "--quiet", "--resume"]) == 2
    assert "different spec" in capsys.readouterr().err


def test_a_finished_class_game_is_never_extended_on_its_streams(tmp_path, capsys):
    small = SMALL.replace("pairs = 4_000\nblocks = 40", "pairs = 1_000\nblocks = 20").replace(
        "fresh_pairs = 64_000", "fresh_pairs = 2_000")
    large = small.replace("pairs = 1_000\nblocks = 20", "pairs = 2_000\nblocks = 40")
    spec = tmp_path / "spec.toml"
    spec.write_text(small, encoding="utf-8")
    assert main(["equilibrium", str(spec), "--out", str(tmp_path / "seen"), "--quiet"]) == 0
    before = (tmp_path / "seen" / "class_game.json").read_bytes()
    capsys.readouterr()
    # its ε has been seen: more pairs on the same streams would be optional continuation
    spec.write_text(large, encoding="utf-8")
    assert main(["equilibrium", str(spec), "--out", str(tmp_path / "seen"), "--quiet", "--resume"]) == 2
    err = capsys.readouterr().err
    assert "optional continuation" in err and "second stage" in err and len(err.strip().splitlines()) == 1
    assert (tmp_path / "seen" / "class_game.json").read_bytes() == before
    # a block of another size cannot be resumed either
    spec.write_text(large.replace("blocks = 40", "blocks = 20"), encoding="utf-8")
    assert main(["equilibrium", str(spec), "--out", str(tmp_path / "seen"), "--quiet", "--resume"]) == 2
    assert "different spec" in capsys.readouterr().err
