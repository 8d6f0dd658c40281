"""The table of study kinds (simulator/studies/kinds.py): every study file of experiments/ is
one kind, matched by its spec's declared keys, and every command answers through the table,
refusing in one line a kind it does not play and saying how that kind is played."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from simulator.cli import main
from simulator.studies import kinds

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("path, kind", [
    ("experiments/knock_vs_gin.toml", "experiment"),
    ("experiments/quickstart.toml", "experiment"),
    ("experiments/decision_values.toml", "decision_values"),
    ("experiments/tune_small.toml", "tuning"),
    ("experiments/optimal_knock/hoyle.toml", "tuning"),
    ("experiments/optimal_knock", "tuning"),
    ("experiments/equilibrium_knock/classic.toml", "equilibrium"),
    ("experiments/equilibrium_class/classic.toml", "class_game"),
    ("experiments/equilibrium_class/table_classic.toml", "knock_table"),
    ("experiments/equilibrium_knock.toml", "experiment"),
    ("experiments/exploit/mc_family.toml", "exploit_family"),
])
def test_every_study_is_the_kind_its_keys_declare(path, kind):
    assert kinds.kind_of(ROOT / path).name == kind


def test_a_file_no_kind_owns_is_read_as_an_experiment_whose_loader_names_the_key(tmp_path, capsys):
    path = tmp_path / "odd.toml"
    path.write_text('name = "odd"\nmatchups = [["simple", "simple"]]\ncolour = 1\n')
    assert kinds.kind_of(path) is kinds.EXPERIMENT
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "colour: unknown key" in err


def test_commands_refuse_a_kind_they_do_not_play_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert main(["run", "tune_small"]) == 2
    err = capsys.readouterr().err.strip()
    assert "is a tuning spec, which ginsim run does not play: ginsim tune" in err and len(err.splitlines()) == 1
    assert main(["reproduce", "tune_small", "--out", str(tmp_path / "x")]) == 2
    assert "which ginsim reproduce does not play: ginsim tune" in capsys.readouterr().err
    assert main(["report", "results/optimal_knock/hoyle", "--out", str(tmp_path / "y")]) == 2
    assert "holds the results of a tuning spec, whose report ginsim report does not write: ginsim tune SPEC " \
           "plays it, and ginsim tune SPEC --resume rewrites its report" in capsys.readouterr().err
    assert main(["run", "experiments/equilibrium_knock/classic.toml"]) == 2
    assert "is an equilibrium spec, which ginsim run does not play: ginsim equilibrium " \
           "experiments/equilibrium_knock/classic.toml plays it" in capsys.readouterr().err
    assert main(["report", "results/equilibrium_knock/classic", "--out", str(tmp_path / "z")]) == 2
    assert "--resume rewrites its outputs" in capsys.readouterr().err
    assert not any((tmp_path / d).exists() for d in "xyz")


def test_every_study_file_of_experiments_is_one_kind():
    """Each TOML file under experiments/ (claims files aside) is owned by one kind, or by none
    and read as an experiment file, which then loads."""
    from simulator.run.experiment import load_experiment

    for path in sorted(ROOT.glob("experiments/**/*.toml")):
        if path.name.endswith("claims.toml"):
            continue
        owners = [k.name for k in kinds.KINDS if k.owns(tomllib.loads(path.read_text(encoding="utf-8")))]
        assert len(owners) <= 1, (path, owners)
        if not owners:
            load_experiment(path)  # read as an experiment file, it is one
