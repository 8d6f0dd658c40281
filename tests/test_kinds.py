"""The study kinds (simulator/studies/kinds.py): every study file of experiments/ is one kind,
matched by its spec's declared keys; every kind answers every verb of the protocol or refuses
it in one line; and every command answers through the kinds, refusing in one line a kind it
does not play and saying how that kind is played."""

from __future__ import annotations

import argparse
import inspect
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


# ----------------------------------------------------------------------------- every kind, every verb

def _study_file(kind: kinds.Kind) -> Path:
    """A study file (or folder) of experiments/ that is ``kind``, found by ``kind_of``."""
    return next(p for p in sorted(ROOT.glob("experiments/**/*.toml"))
                if not p.name.endswith("claims.toml") and kinds.kind_of(p) is kind)


def _arguments(verb: str, kind: kinds.Kind) -> tuple:
    """Arguments of the protocol's signature for ``verb`` (what a refusal is asked with)."""
    options = argparse.Namespace(out=None, deals=None, games=None, jobs=1, quiet=True, resume=False, force=False)
    played = kinds.Played(kind, None, None, 0.0, ROOT / "results")
    return {"load": (ROOT / "experiments", options), "run": (None, options), "headline": (played,),
            "summary": (played,), "to_json": (played,), "report": (ROOT / "results", options),
            "reproduce": (ROOT / "experiments", "x", options), "confirm": (ROOT, None, None, None, 1, None),
            "claims": (ROOT / "experiments",)}[verb]


@pytest.mark.parametrize("verb", kinds.VERBS)
@pytest.mark.parametrize("kind", kinds.KINDS, ids=lambda k: k.name)
def test_every_kind_answers_every_verb_or_refuses_it_in_one_line(kind, verb):
    """Each kind has each verb of the protocol with the protocol's parameters; a verb it
    does not answer is refused in one line naming the kind and the verbs it answers; a verb
    it answers is its own method (playing ones are exercised by the commands' tests)."""
    method = getattr(kind, verb)
    protocol = getattr(kinds.Kind(None), verb)
    assert list(inspect.signature(method).parameters) == list(inspect.signature(protocol).parameters)
    if not kind.answers(verb):
        with pytest.raises(ValueError) as refused:
            method(*_arguments(verb, kind))
        text = str(refused.value)
        assert len(text.splitlines()) == 1 and kind.label in text and f"does not answer {verb}" in text
        assert text.split("; it answers ", 1)[1].startswith(", ".join(kind.verbs()) + ":")
        return
    assert verb in vars(type(kind)) or any(verb in vars(c) for c in type(kind).__mro__[1:-2])
    if verb == "load":  # a study file of the kind loads (experiments/ holds one of each)
        assert method(_study_file(kind), argparse.Namespace(rules="tournament", objective="net_per_hand")) is not None
    if verb == "claims":
        assert method(_study_file(kind)).suffix == ".toml"


def test_every_kind_loads_runs_and_prints_so_every_command_can_play_it():
    """Each kind answers the verbs a command needs to play and print it."""
    for kind in kinds.KINDS:
        assert {"load", "run", "headline", "summary", "to_json"} <= set(kind.verbs()), kind


@pytest.mark.parametrize("kind", [k for k in kinds.KINDS if k.output and k.output != "manifest.json"],
                         ids=lambda k: k.name)
def test_a_committed_result_prints_its_headline_first_and_its_json_record(kind):
    """A result committed under results/ (the kind's output file) printed by its kind: the
    headline is the first line of the summary, the ``--json`` record is JSON."""
    import json

    def spec_file(folder: Path) -> Path:
        result = json.loads((folder / kind.output).read_text(encoding="utf-8"))
        return ROOT / result.get("result", result).get("spec_file", f"experiments/{folder.name}.toml")

    folder = next(p.parent for p in sorted(ROOT.glob(f"results/**/{kind.output}"))
                  if spec_file(p.parent).is_file() and kinds.kind_of(spec_file(p.parent)) is kind)
    data = json.loads((folder / kind.output).read_text(encoding="utf-8"))
    result, spec_file = data.get("result", data), spec_file(folder)
    spec = kind.load(spec_file, argparse.Namespace(out=None))
    played = kinds.Played(kind, spec, result, 1.5, folder, spec_file, (str(folder / kind.output),))
    lines = kind.summary(played)
    assert lines and kind.headline(played) == lines[0] and "\n" not in lines[0]
    json.dumps(kind.to_json(played), allow_nan=False)
