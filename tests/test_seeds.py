"""Every seed a study derives comes from ``simulator.run.seeds.derive_seed``, and it gives
exactly the seeds the committed studies were played on (so their results stay valid): a
run's cells, a decision-values study's blocks, a tuning's streams, a confirmation's seed,
an OpenSpiel bot's shadow hand."""

from __future__ import annotations

import hashlib
import json
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
