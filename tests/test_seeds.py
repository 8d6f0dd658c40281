"""Every seed a study derives comes from ``simulator.run.seeds.derive_seed``, and it gives
exactly the seeds the committed studies were played on (so their results stay valid): a
run's cells, a decision-values study's blocks, a tuning's streams, a confirmation's seed,
an OpenSpiel bot's shadow hand."""

from __future__ import annotations

import ast
import hashlib
import json
import re
from pathlib import Path

import pytest

from simulator.run.seeds import derive_seed

ROOT = Path(__file__).resolve().parent.parent


def _blake(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 1


@pytest.mark.parametrize("seed", [0, 5, 20261129, 2**63 - 1])
def test_derive_seed_is_the_one_format_every_earlier_helper_used(seed):
    # the formats of the helpers it replaced: the runner's cell seed, the confirmation seed, a
    # tuning's stream and sampler seeds, a decision-values block seed, OpenSpiel's shadow seed
    # (and python_ginsim's hand seed, whose root is the hand's number in the game)
    assert derive_seed(seed, 3) == _blake(f"{seed}:3")
    assert derive_seed(seed, salt="ginsim-confirm-1") == _blake(f"ginsim-confirm-1:{seed}")
    assert derive_seed(seed, "fresh", 2, salt="ginsim-tune") == _blake(f"ginsim-tune:{seed}:fresh:2")
    assert derive_seed(seed, "mc", "simple", "hoyle", "game") == _blake(f"{seed}:mc:simple:hoyle:game")
    assert derive_seed(seed, 1, "4,17,30") == _blake(f"{seed}:1:4,17,30")
    assert derive_seed(seed, "sampler", 7, salt="ginsim-tune") == _blake(f"ginsim-tune:{seed}:sampler:7")
    assert 0 <= derive_seed(seed, 3) < 2**63


def test_the_committed_studies_seeds_are_what_derive_seed_gives():
    checked = 0
    for path in sorted(ROOT.glob("results/*/confirm.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        seeds = doc["seed"] if isinstance(doc["seed"], list) else [doc["seed"]]
        study_seeds = doc["study_seed"] if isinstance(doc["study_seed"], list) else [doc["study_seed"]]
        assert sorted(seeds) == sorted(derive_seed(s, salt=doc["salt"]) for s in study_seeds), path
        for entry in doc["claims"]:
            conf = entry["confirmation"]["seed"]
            for i, cell in enumerate(entry["cells"]):
                if "cell" in cell:  # a run's cell: the runner's cell seed, of the study and of the confirmation
                    assert cell["study"] == derive_seed(doc["study_seed"], cell["cell"])
                    assert cell["confirmation"] == derive_seed(conf, cell["cell"])
                elif "a" not in cell:  # a tuning's fresh stream against its opponent i
                    assert cell["study"] in {derive_seed(s, "fresh", i, salt="ginsim-tune") for s in study_seeds}
                    assert cell["confirmation"] == derive_seed(conf, "fresh", i, salt="ginsim-tune")
                else:  # a decision-values block: player, opponent, rules, unit
                    assert cell["confirmation"] == derive_seed(conf, cell["a"], cell["opponent"], entry["rules"],
                                                               entry["unit"])
                checked += 1
    rows = json.loads((ROOT / "results" / "decision_values" / "decision_values.json").read_text())
    for row in rows["rows"]:
        assert row["seed"] == derive_seed(rows["seed"], row["player"], row["opponent"], row["rules"], row["unit"])
        checked += 1
    assert checked > 100


# ----------------------------------------------------------------------------- one seed module
#: where seeds are derived and generators made: the study-level seed module, and the core's
#: keyed streams (``seed ^ DECK_SALT`` and the stream keys the kernels draw from)
SEED_MODULES = {"simulator/run/seeds.py", "simulator/core/rng.py"}
#: a call making a random generator or seeding one
_GENERATOR_CALLS = {"default_rng", "SeedSequence", "RandomState", "Random", "Generator", "PCG64", "MT19937",
                    "Philox", "SFC64", "seed"}
_SEEDISH = re.compile(r"(^|_)seeds?$")


def _name(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _name(node.func)
    return None


def _ad_hoc_seeds(tree):
    """(line, what) of each generator made and each arithmetic on a seed in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _GENERATOR_CALLS:
            base = node.func.value
            chain = []
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name):
                chain.append(base.id)
            if {"random", "np", "numpy"} & set(chain):
                yield node.lineno, f"a generator made by {'.'.join(reversed(chain))}.{node.func.attr}()"
        if isinstance(node, ast.BinOp) and not isinstance(node.op, (ast.Mod, ast.Div, ast.FloorDiv)):
            for side in (node.left, node.right):
                name = _name(side)
                if name and _SEEDISH.search(name) and not isinstance(side, ast.Call):
                    yield node.lineno, f"arithmetic on the seed {name!r}"


def test_every_seed_and_generator_comes_from_the_seed_module():
    """No seed arithmetic (``seed + k``, ``seed * N``, ``seed ^ SALT``) and no random generator
    (numpy's or Python's) anywhere in ``simulator`` or ``strategies`` but the seed modules: a
    sub-seed is ``derive_seed``'s (or, for figures played before it covered them,
    ``offset_seed``'s), a generator ``numpy_generator``'s, ``python_random``'s or
    ``random_state``'s, so this file's checks see every seed a study plays."""
    root = Path(__file__).resolve().parents[1]
    found = []
    for package in ("simulator", "strategies"):
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel in SEED_MODULES or "__pycache__" in rel:
                continue
            found += [f"{rel}:{line}: {what}" for line, what in _ad_hoc_seeds(ast.parse(path.read_text()))]
    assert not found, "seeds made outside simulator/run/seeds.py:\n" + "\n".join(found)


def test_the_ad_hoc_seed_check_catches_what_it_names():
    caught = [what for _, what in _ad_hoc_seeds(ast.parse(
        "a = seed + k\nb = np.random.default_rng(3)\nc = random.Random(1)\nd = self.seed * 2\n"
        "e = np.random.SeedSequence().entropy\nf = n_seeds\ng = derive_seed(seed, k)\n"))]
    assert caught == ["arithmetic on the seed 'seed'", "a generator made by np.random.default_rng()",
                      "a generator made by random.Random()", "arithmetic on the seed 'seed'",
                      "a generator made by np.random.SeedSequence()"]
