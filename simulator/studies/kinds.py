"""The kinds of study with claims, and the commands that confirm and register them.

A study is found by name (``simulator.run.bundled``): a folder of tuning specs with a
``claims.toml`` (``experiments/optimal_knock``), else ``experiments/STUDY.toml``, which is a
decision-values spec (``simulator.studies.decision_values``) or an experiment file.  Each
kind keeps its claims beside it and confirms them with its own function; this module
holds the table of them (``KINDS``) and what ``ginsim confirm`` and ``ginsim claims`` do
with any of them: check the claims file against the study's ledger
(``simulator.studies.ledger``), confirm, record the result, write ``confirm.json`` and
``confirm.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import confirm as cf
from . import decision_values, ledger


@dataclass(frozen=True)
class Kind:
    """A kind of study with claims: whether a study file or folder is one (``owns``), where
    its claims file is (``claims_file``) and how it confirms them (``confirm(path, protocol,
    max_deals, max_games, jobs, log)``)."""

    name: str
    owns: Callable[[Path], bool]
    claims_file: Callable[[Path], Path]
    confirm: Callable[..., dict[str, Any]]


#: the kinds, in the order a study is matched against them
KINDS = (
    Kind("tuning", Path.is_dir, cf.tuning_claims_path,
         lambda path, protocol, deals, games, jobs, log: cf.confirm_tuning(path, protocol, deals, games, log)),
    Kind("decision_values", decision_values.is_spec, cf.claims_path,
         lambda path, protocol, deals, games, jobs, log: decision_values.confirm(path, protocol, deals, games, log)),
    Kind("experiment", Path.is_file, cf.claims_path, cf.confirm_study),
)


@dataclass(frozen=True)
class Study:
    """A study found by name: its kind, its file or folder, its claims file and the
    ``experiments/`` folder that holds it and its ledger."""

    name: str
    kind: Kind
    path: Path
    claims_file: Path
    experiments: Path

    def ledger(self) -> ledger.Ledger:
        return ledger.load_ledger(ledger.ledger_path(self.experiments, self.name), self.name)


def find_study(name: str) -> Study:
    """The study called ``name`` (one-line ``ValueError`` when there is none, or when it has
    no claims file)."""
    from ..run.bundled import study_file, tuning_folder

    folder = tuning_folder(name)
    path = folder if folder is not None else study_file(name)
    kind = next(k for k in KINDS if k.owns(path))
    claims = kind.claims_file(path)
    if not claims.is_file():
        raise ValueError(f"study {name} has no claims file {claims} (format: docs/experiments.md)")
    return Study(name, kind, path, claims, path.parent)


def confirm(name: str, out: str | Path, salt: str | None = None, max_deals: int | None = None,
            max_games: int | None = None, jobs: int = 1, log: Callable[[str], None] | None = None
            ) -> tuple[dict[str, Any], tuple[Path, Path]]:
    """``ginsim confirm STUDY``: the claims file checked against the ledger (``open_protocol``),
    the sizes fixed in the ledger, the claims played and judged, each result appended to the
    ledger (or checked against the one it holds for this salt), then ``confirm.json`` and
    ``confirm.md`` written into ``out``.  Returns the result and the two paths."""
    study = find_study(name)
    protocol = cf.open_protocol(name, study.claims_file, study.experiments, salt or cf.CONFIRM_SALT,
                                caps_given=max_deals is not None or max_games is not None)
    cf.check_outputs(out)
    result = study.kind.confirm(study.path, protocol, max_deals, max_games, jobs, log)
    protocol.record(result)
    return result, cf.write_confirmation(result, out)


def register(name: str, date: str | None = None) -> tuple[Path, list[str]]:
    """``ginsim claims register STUDY``: every claim of the claims file not in the ledger
    yet is registered; returns the ledger's path and the ids registered."""
    study = find_study(name)
    claims = cf.load_claims(study.claims_file)
    book, ids = ledger.register(study.ledger(), [c.table() for c in claims.claims], str(study.claims_file), date)
    return book.path, ids


def withdraw(name: str, claim_id: str, reason: str, date: str | None = None) -> Path:
    """``ginsim claims withdraw STUDY ID --why REASON``."""
    return ledger.withdraw(find_study(name).ledger(), claim_id, reason, date).path


def ledgers(name: str | None = None) -> list[ledger.Ledger]:
    """The ledger of study ``name``, or every ledger under ``./experiments`` and ginsim's own
    (the first of each study name)."""
    if name is not None:
        return [find_study(name).ledger()]
    from ..run.bundled import study_roots

    found: dict[str, Path] = {}
    for root in study_roots():
        for path in sorted((root / ledger.LEDGER_DIR).glob(f"*{ledger.SUFFIX}")):
            found.setdefault(path.stem, path)
    return [ledger.load_ledger(path, study) for study, path in sorted(found.items())]
