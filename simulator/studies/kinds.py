"""The kinds of study, in one table that ``ginsim run``, ``reproduce``, ``confirm``, ``report``
and ``claims`` dispatch through.

A study is found by name (``simulator.run.bundled``): a folder of tuning specs with a
``claims.toml`` (``experiments/optimal_knock``), else the file ``experiments/STUDY.toml``.
Each kind of study declares, in ``KINDS``, its spec's keys on the config layer
(``simulator.run.config``: ``schema``, which also says which files are its own), where its
claims are, and what each command does with it: ``run`` plays it into a run directory,
``reproduce`` plays it again where its results live and writes its report, ``confirm``
re-plays its claims on fresh seeds (``simulator.studies.confirm``), ``report`` writes the
report of an output directory it made.  A command a kind does not answer is refused in one
line that says how that kind is played.  A new kind of study is its module (its spec's
schema, how it plays) and its row here; the command line knows no kind by name.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..run.config import REQUIRED, Schema
from ..run.limits import RESULTS_DIR
from . import confirm as cf
from . import decision_values, ledger, reports

#: a command's options (an ``argparse.Namespace``: out, deals, games, jobs, quiet, multiplicity ...)
Options = argparse.Namespace


@dataclass(frozen=True)
class Kind:
    """One kind of study.  ``schema`` is its spec's keys (a file is the kind's when it has
    every required key and no other, ``owns``); ``played_by`` says how it is played, for the
    refusals of commands it does not answer (its fields ``name`` and ``path``, in braces, are
    filled with the study's name and file); ``output`` is the file its results directory
    holds (None: none of its own).  ``run``, ``reproduce``, ``report`` and ``confirm`` are None
    for a command the kind does not answer."""

    name: str
    label: str
    schema: Schema | None
    played_by: str
    output: str | None
    claims_file: Callable[[Path], Path] | None = None
    confirm: Callable[..., dict[str, Any]] | None = None
    reproduce: Callable[[Path, str, Options], list[str]] | None = None
    run: bool = False
    report: Callable[[Path, Options], list[Path]] | None = None

    def owns(self, data: dict[str, Any]) -> bool:
        """True when the spec ``data`` (a TOML table) has every key this kind requires and
        none it does not know."""
        if self.schema is None:
            return False
        required = {k.name for k in self.schema.keys if k.default is REQUIRED}
        return required <= set(data) <= set(self.schema.names)

    def refuse(self, command: str, path: Path) -> ValueError:
        return ValueError(f"{path} is {self.label}, which ginsim {command} does not play: "
                          f"{self.played_by.format(name=path.stem, path=path)}")


# ----------------------------------------------------------------------------- what each kind does

def _reproduce_experiment(path: Path, name: str, options: Options) -> list[str]:
    """An experiment played again into ``results/NAME`` (``--force``), then its report; the
    field study, and any experiment declaring families of players, also gets its ratings
    page (``simulator.studies.field.write_field``)."""
    from ..analysis.report import write_report
    from .field import FIELD_STUDY, write_field
    from ..run.experiment import load_experiment
    from ..run.runner import run_experiment

    exp = load_experiment(path, deals=options.deals, games=options.games)
    out = Path(options.out or Path(RESULTS_DIR) / name)
    start = time.perf_counter()
    run_experiment(exp, out, jobs=options.jobs, progress=not options.quiet, force=True)
    paths = write_report(out, multiplicity=options.multiplicity, claims=reports.study_of(out) is None)
    reports.refresh_folder(out)  # a study's results: its claims from the ledger, the inputs' digests
    pngs = [p for p in paths if p.suffix == ".png"]
    lines = [f"{exp.name}: {len(exp.cells())} cells from {path} into {out} in {time.perf_counter() - start:.1f} s",
             f"report: {paths[0]}, {paths[1]} and {len(pngs)} figure(s)"]
    if name == FIELD_STUDY or exp.families:  # a field's page too: ratings, matrix, families, CPU per decision
        lines.append(f"ratings: {write_field(out)}")
    return lines


def _reproduce_decision_values(path: Path, name: str, options: Options) -> list[str]:
    """Every block of a decision-values study played again at the spec's sizes, then its
    ``decision_values.json`` and report written (into ``--out`` when given, else where the
    spec says)."""
    for flag in ("deals", "games"):
        if getattr(options, flag) is not None:
            raise ValueError(f"--{flag}: {path} is a decision-values study, which plays the sizes of its blocks")
    if options.jobs != 1:
        raise ValueError(f"--jobs must be 1 for the decision-values study {path}, which plays in one process")
    spec = decision_values.load_spec(path)
    if options.out is not None:
        out = Path(options.out)
        spec = dataclasses.replace(spec, out=str(out), report=str(out / "report.md") if spec.report else None)
    start = time.perf_counter()
    log = (lambda text: None) if options.quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    result = decision_values.run(spec, log=log)
    paths = decision_values.write_outputs(spec, result, str(path))
    return [f"{spec.name}: {len(result['rows'])} decision values from {path} into {spec.out} in "
            f"{time.perf_counter() - start:.1f} s; wrote {', '.join(str(p) for p in paths)}"]


def _report_run(folder: Path, options: Options) -> list[Path]:
    """``ginsim report DIR``; a study's results folder also gets its claims block (``reports``)."""
    from ..analysis.report import write_report

    out = Path(options.out or folder)
    paths = write_report(folder, options.out, multiplicity=options.multiplicity, trust_plugins=options.trust_plugins,
                         claims=reports.study_of(out) is None)
    reports.refresh_folder(out)
    return paths


def _tuning_schema() -> Schema:
    from .tune.spec import SCHEMA

    return SCHEMA


def _experiment_schema() -> Schema:
    from ..run.experiment import SCHEMA

    return SCHEMA


def _equilibrium_schema() -> Schema:
    from .equilibrium import SCHEMA

    return SCHEMA


def _with_shared_head(name: str, own: Schema) -> Schema:
    """A per-hand equilibrium study's whole spec: the head it shares with a tuning spec
    (``tune.spec.SHARED_HEAD``, by the tuning schema's declarations) and its own keys."""
    from .tune.spec import SCHEMA, SHARED_HEAD

    return Schema(name, (*(SCHEMA[k] for k in SHARED_HEAD), *own.keys))


def _class_game_schema() -> Schema:
    from . import class_game

    return _with_shared_head("class_game", class_game.SCHEMA)


def _knock_table_schema() -> Schema:
    from . import knock_table

    return _with_shared_head("knock_table", knock_table.SCHEMA)


def _family_schema() -> Schema:
    from .exploit import FAMILY_SCHEMA

    return FAMILY_SCHEMA


#: the kinds, in the order a file is matched against them (an experiment file last: a file
#: no kind owns is read as one, so its loader names what is wrong with it)
KINDS = (
    Kind("decision_values", "a decision-values study", decision_values.SCHEMA,
         "ginsim reproduce {name} plays it (python -m simulator.studies.decision_values {path} keeps the "
         "blocks an earlier run played)", "decision_values.json", cf.claims_path,
         lambda path, protocol, deals, games, jobs, log: decision_values.confirm(path, protocol, deals, games, log),
         _reproduce_decision_values),
    Kind("tuning", "a tuning spec", _tuning_schema(),
         "ginsim tune {path} plays it, and ginsim tune {path} --resume rewrites its report", "tune.json",
         cf.tuning_claims_path,
         lambda path, protocol, deals, games, jobs, log: cf.confirm_tuning(path, protocol, deals, games, log)),
    Kind("class_game", "a class-game spec", _class_game_schema(),
         "ginsim equilibrium {path} plays it, and ginsim equilibrium {path} --resume rewrites its outputs",
         "class_game.json"),
    Kind("knock_table", "a knock-table spec", _knock_table_schema(),
         "ginsim equilibrium {path} plays it, and ginsim equilibrium {path} --resume rewrites its outputs",
         "knock_table.json"),
    Kind("equilibrium", "an equilibrium spec", _equilibrium_schema(),
         "ginsim equilibrium {path} plays it, and ginsim equilibrium {path} --resume rewrites its outputs",
         "equilibrium.json"),
    Kind("exploit_family", "an exploit family", _family_schema(),
         "ginsim exploit OPPONENT --family {path} plays it", None),
    Kind("experiment", "an experiment file", _experiment_schema(),
         "ginsim run {path} or ginsim reproduce {name} plays it", "manifest.json", cf.claims_path, cf.confirm_study,
         _reproduce_experiment, run=True, report=_report_run),
)
EXPERIMENT = KINDS[-1]


def kind_of(path: Path) -> Kind:
    """The kind of the study file or folder ``path``: a folder is a tuning study (its specs
    and ``claims.toml``); a file is the first kind that owns its keys, else an experiment
    file (whose loader then names what is wrong with it)."""
    from ..run.experiment import read_toml_file

    if path.is_dir():
        return next(k for k in KINDS if k.name == "tuning")
    try:
        data = read_toml_file(path, "a study file", ValueError)
    except ValueError:
        return EXPERIMENT
    return next((k for k in KINDS if k.owns(data)), EXPERIMENT)


def runnable(path: Path) -> Path:
    """``path`` when ``ginsim run`` plays its kind; else refused in one line."""
    kind = kind_of(path)
    if not kind.run:
        raise kind.refuse("run", path)
    return path


def reproduce(name: str, options: Options) -> list[str]:
    """``ginsim reproduce STUDY``: the study played again by its kind; the lines to print."""
    from ..run.bundled import study_file

    path = study_file(name)
    kind = kind_of(path)
    if kind.reproduce is None:
        raise kind.refuse("reproduce", path)
    return kind.reproduce(path, name, options)


def report(folder: Path, options: Options) -> list[Path]:
    """``ginsim report DIR``: the report of an output directory, by the kind that made it
    (the file it holds, ``Kind.output``); a directory no kind made is read as a run
    directory, whose reader names what is missing."""
    kind = next((k for k in KINDS if k.output and (Path(folder) / k.output).is_file()), EXPERIMENT)
    if kind.report is None:
        raise ValueError(f"{folder} holds the results of {kind.label}, whose report ginsim report does not write: "
                         f"{kind.played_by.format(name='NAME', path='SPEC')}")
    return kind.report(Path(folder), options)


# ----------------------------------------------------------------------------- claims

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
        return ledger.load_ledger(self.ledger_path, self.name)

    @property
    def ledger_path(self) -> Path:
        return ledger.ledger_path(self.experiments, self.name)


def find_study(name: str) -> Study:
    """The study called ``name`` with claims (one-line ``ValueError`` when there is none, or
    when its kind keeps no claims or it has no claims file)."""
    from ..run.bundled import study_file, tuning_folder

    folder = tuning_folder(name)
    path = folder if folder is not None else study_file(name)
    kind = kind_of(path)
    if kind.claims_file is None or kind.confirm is None:
        raise kind.refuse("confirm", path)
    claims = kind.claims_file(path)
    if not claims.is_file():
        raise ValueError(f"study {name} has no claims file {claims} (format: docs/experiments.md)")
    return Study(name, kind, path, claims, path.parent)


def confirm(name: str, out: str | Path, salt: str | None = None, max_deals: int | None = None,
            max_games: int | None = None, jobs: int = 1, log: Callable[[str], None] | None = None
            ) -> tuple[dict[str, Any], tuple[Path, Path]]:
    """``ginsim confirm STUDY``: the claims file checked against the ledger (``open_protocol``),
    the sizes fixed in the ledger, the claims played and judged, each result appended to the
    ledger (or checked against the one it holds for this salt) with the sha256 of the sealed
    ``confirm.json`` that states it, then ``confirm.json`` and ``confirm.md`` written into
    ``out``.  Returns the result and the two paths.  A ledger that came with ginsim is
    refused before anything plays (``ledger.check_writable``)."""
    study = find_study(name)
    ledger.check_writable(study.ledger_path)
    protocol = cf.open_protocol(name, study.claims_file, study.experiments, cf.CONFIRM_SALT if salt is None else salt,
                                caps_given=max_deals is not None or max_games is not None)
    cf.check_outputs(out)
    result = study.kind.confirm(study.path, protocol, max_deals, max_games, jobs, log)
    protocol.record(result, ledger.digest(cf.render_json(result).encode("utf-8")))
    written = cf.write_confirmation(result, out)
    from .reports import refresh_folder

    refresh_folder(out)  # the study's reports and confirm.md say where its claims stand now
    return result, written


def verify(name: str, claim_id: str | None = None, salt: str | None = None, jobs: int = 1,
           log: Callable[[str], None] | None = None) -> tuple[str, list[tuple[str, list[str]]]]:
    """``ginsim claims verify STUDY [ID] [--salt S]``: re-play the ledger's confirmation of
    salt ``salt`` (default ``CONFIRM_SALT``) from its plans, through the code ``confirm``
    plays, for the claim ``claim_id`` (default: every claim the salt confirmed), and compare
    the seed, the study's and the confirmation's estimates and intervals, the test's
    interval and the p-values with the ledger's entries.  Writes nothing.  Returns the salt
    and, per claim, the fields that differ (none: the entry is what its plan plays)."""
    study = find_study(name)
    salt = cf.CONFIRM_SALT if salt is None else salt
    protocol = cf.open_protocol(name, study.claims_file, study.experiments, salt)
    confirmed = [r.id for r in protocol.ledger.active if r.result(salt) is not None and r.plan(salt) is not None]
    if claim_id is not None and claim_id not in confirmed:
        raise ValueError(f"{study.ledger_path}: claim {claim_id!r} has no planned confirmation with salt {salt!r} "
                         f"to verify; claims that have: {', '.join(confirmed) or 'none'}")
    if not confirmed:
        raise ValueError(f"{study.ledger_path}: no planned confirmation with salt {salt!r} to verify")
    protocol.verifies, protocol.only = True, frozenset([claim_id] if claim_id is not None else confirmed)
    result = study.kind.confirm(study.path, protocol, None, None, jobs, log)
    return salt, protocol.compare(result)


def register(name: str, date: str | None = None) -> tuple[Path, list[str]]:
    """``ginsim claims register STUDY``: every claim of the claims file not in the ledger
    yet is registered; returns the ledger's path and the ids registered."""
    study = find_study(name)
    ledger.check_writable(study.ledger_path)
    claims = cf.load_claims(study.claims_file)
    book, ids = ledger.register(study.ledger(), [c.table() for c in claims.claims], str(study.claims_file), date)
    return book.path, ids


def withdraw(name: str, claim_id: str, reason: str, date: str | None = None) -> Path:
    """``ginsim claims withdraw STUDY ID --why REASON``."""
    study = find_study(name)
    ledger.check_writable(study.ledger_path)
    return ledger.withdraw(study.ledger(), claim_id, reason, date).path


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
