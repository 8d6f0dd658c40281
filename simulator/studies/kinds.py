"""The kinds of study: one object per kind, each answering every verb, and the one path the
command line plays studies through.

A study is found by name (``simulator.run.bundled``): a folder of tuning specs with a
``claims.toml`` (``experiments/optimal_knock``), else the file ``experiments/STUDY.toml``.
Each kind of study is an object of a ``Kind`` class here; ``KINDS`` lists them.  A kind
declares its spec's keys on the config layer (``simulator.run.config``: ``schema``, which also
says which files are its own), the command that plays its specs (``command``; ``method``
picks among kinds that share one), the file its results directory holds (``output``), and
answers each verb of ``VERBS``:

- ``load``: read and check a spec file;
- ``run``: play a loaded spec (``Played``: the spec, the result, its time and directory);
- ``headline``, ``summary`` and ``to_json``: a played result's first line, all the lines the
  command prints, and its ``--json`` record (the lines and records are made by the study's
  own module);
- ``report``: write the report of a results directory the kind made (``ginsim report``);
- ``reproduce``: play a study again where its results live and write its report;
- ``confirm`` and ``claims``: re-play a study's claims on fresh seeds
  (``simulator.studies.confirm``), and the claims file they are read from.

A verb that makes no sense for a kind answers with a one-line refusal naming the kind and the
verbs it has (``Kind.refusal``); which and why is in each kind's docstring.  The commands
refuse a kind in their own words, saying how that kind is played (``Kind.refuse``).  A new
kind of study is its module (its spec's schema, how it plays and prints) and its class here;
the command line knows no kind by name (``play``, ``reproduce``, ``report``, ``confirm``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..run.config import REQUIRED, Schema
from ..run.limits import RESULTS_DIR
from . import claims_file, confirm_pages, decision_values, ledger, reports
from . import confirm as cf

#: a command's options (an ``argparse.Namespace``: out, deals, games, jobs, quiet, multiplicity ...)
Options = argparse.Namespace

#: what a study kind answers: every kind has each of these methods, answering or refusing
VERBS = ("load", "run", "headline", "summary", "to_json", "report", "reproduce", "confirm", "claims")


@dataclass(frozen=True)
class Played:
    """A spec played by its kind: the loaded ``spec``, the ``result``, the wall-clock
    ``seconds`` it took, the directory ``out`` its outputs are in, the spec's file ``path``
    (None: a default spec), the ``files`` it wrote that its lines name, and whether its lines
    and record give the ``plain`` estimate of figures the study reduces (``--plain``)."""

    kind: Kind
    spec: Any
    result: Any
    seconds: float
    out: Path
    path: Path | None = None
    files: tuple[str, ...] = ()
    plain: bool = False


def _log(options: Options) -> Callable[[str], None] | None:
    """Progress lines on stderr, or None with ``--quiet``."""
    return None if getattr(options, "quiet", False) else (lambda text: print(text, file=sys.stderr, flush=True))


class Kind:
    """One kind of study.  ``schema`` is its spec's keys (a file is the kind's when it has
    every required key and no other, ``owns``); ``played_by`` says how it is played, for the
    refusals of commands it does not answer (its fields ``name`` and ``path``, in braces, are
    filled with the study's name and file); ``output`` is the file its results directory
    holds (None: none of its own); ``command`` is the ``ginsim`` command that plays its specs
    and ``method`` the spec's ``method`` that picks it among the kinds sharing that command.
    Each verb of ``VERBS`` is a method; here each refuses (``refusal``), and a kind answers
    a verb by defining it."""

    name = ""
    label = ""
    played_by = ""
    output: str | None = None
    command: str | None = None
    method: str | None = None
    #: played before the other specs of the same command
    first = False

    def __init__(self, schema: Schema | None) -> None:
        self.schema = schema

    def __repr__(self) -> str:
        return f"<study kind {self.name}>"

    def owns(self, data: dict[str, Any]) -> bool:
        """True when the spec ``data`` (a TOML table) has every key this kind requires and
        none it does not know."""
        if self.schema is None:
            return False
        required = {k.name for k in self.schema.keys if k.default is REQUIRED}
        return required <= set(data) <= set(self.schema.names)

    def answers(self, verb: str) -> bool:
        """True when this kind defines ``verb`` (one of ``VERBS``) rather than refusing it."""
        return getattr(type(self), verb) is not getattr(Kind, verb)

    def verbs(self) -> tuple[str, ...]:
        return tuple(v for v in VERBS if self.answers(v))

    def refusal(self, verb: str) -> ValueError:
        """The one-line answer of a verb this kind has not: its name and the verbs it has."""
        return ValueError(f"{self.label} ({self.name} study) does not answer {verb}; it answers "
                          f"{', '.join(self.verbs())}: {self.played_by.format(name='NAME', path='SPEC')}")

    def refuse(self, command: str, path: Path) -> ValueError:
        """A command's refusal of the study file ``path``, saying how its kind is played."""
        return ValueError(f"{path} is {self.label}, which ginsim {command} does not play: "
                          f"{self.played_by.format(name=path.stem, path=path)}")

    # ------------------------------------------------------------------------- the verbs

    def load(self, path: Path | None, options: Options) -> Any:
        """The spec in the file ``path``, checked (one-line ``ValueError`` naming what is wrong)."""
        raise self.refusal("load")

    def run(self, spec: Any, options: Options, path: Path | None = None) -> Played:
        """``spec`` (read from the file ``path``) played, or resumed, into its output directory."""
        raise self.refusal("run")

    def headline(self, played: Played) -> str:
        """The first line printed for ``played``: the study's name and its answer."""
        raise self.refusal("headline")

    def summary(self, played: Played) -> list[str]:
        """The lines the command prints for ``played``, its headline first."""
        raise self.refusal("summary")

    def to_json(self, played: Played) -> dict[str, Any]:
        """``played``'s ``--json`` record (docs/cli.md)."""
        raise self.refusal("to_json")

    def report(self, folder: Path, options: Options) -> list[Path]:
        """``ginsim report DIR`` on a results directory this kind made: the files written."""
        raise self.refusal("report")

    def reproduce(self, path: Path, name: str, options: Options) -> list[str]:
        """``ginsim reproduce STUDY``: the study file ``path`` played again where its results
        live, then its report; the lines to print."""
        raise self.refusal("reproduce")

    def confirm(self, path: Path, protocol: cf.Protocol, deals: int | None, games: int | None, jobs: int,
                log: Callable[[str], None] | None) -> dict[str, Any]:
        """The study ``path``'s claims played on fresh seeds under ``protocol`` and judged."""
        raise self.refusal("confirm")

    def claims(self, path: Path) -> Path:
        """The claims file of the study file or folder ``path``."""
        raise self.refusal("claims")

    # ------------------------------------------------------------------------- several specs at once

    def prepare(self, specs: list[Any]) -> None:
        """Before the first of a command's ``specs`` of this kind plays (nothing, unless a
        kind says so)."""

    def write_summary(self, played: list[Played], path: str | Path) -> Path:
        """``--summary FILE``: one table over every result in ``played``."""
        raise ValueError(f"--summary: {self.label} writes no summary table")


# ----------------------------------------------------------------------------- the kinds

class DecisionValues(Kind):
    """A decision-values study (``simulator.studies.decision_values``): played whole by
    ``ginsim reproduce``, which writes its ``decision_values.json`` and report in one go, so
    ``report`` is refused (a results folder is rewritten by playing it again, as the module's
    ``python -m`` keeps the blocks an earlier run played)."""

    name, label, output, command = "decision_values", "a decision-values study", "decision_values.json", "reproduce"
    played_by = ("ginsim reproduce {name} plays it (python -m simulator.studies.decision_values {path} keeps the "
                 "blocks an earlier run played)")

    def load(self, path: Path | None, options: Options) -> Any:
        spec = decision_values.load_spec(path)
        if getattr(options, "out", None) is not None:
            out = Path(options.out)
            spec = dataclasses.replace(spec, out=str(out), report=str(out / "report.md") if spec.report else None)
        return spec

    def run(self, spec: Any, options: Options, path: Path | None = None) -> Played:
        start = time.perf_counter()
        log = _log(options) or (lambda text: None)
        result = decision_values.run(spec, log=log)
        files = tuple(str(p) for p in decision_values.write_outputs(spec, result, str(path)))
        return Played(self, spec, result, time.perf_counter() - start, Path(spec.out), path, files)

    def headline(self, played: Played) -> str:
        return (f"{played.spec.name}: {len(played.result['rows'])} decision values from {played.path} "
                f"into {played.spec.out} in {played.seconds:.1f} s; wrote {', '.join(played.files)}")

    def summary(self, played: Played) -> list[str]:
        return [self.headline(played)]

    def to_json(self, played: Played) -> dict[str, Any]:
        return {k: v for k, v in played.result.items() if k != "cpu_seconds_unrounded"}

    def reproduce(self, path: Path, name: str, options: Options) -> list[str]:
        for flag in ("deals", "games"):
            if getattr(options, flag) is not None:
                raise ValueError(f"--{flag}: {path} is a decision-values study, which plays the sizes of its blocks")
        if options.jobs != 1:
            raise ValueError(f"--jobs must be 1 for the decision-values study {path}, which plays in one process")
        return self.summary(self.run(self.load(path, options), options, path))

    def confirm(self, path, protocol, deals, games, jobs, log):
        return decision_values.confirm(path, protocol, deals, games, log)

    def claims(self, path: Path) -> Path:
        return claims_file.claims_path(path)


class Tuning(Kind):
    """A tuning spec, or a folder of them with a ``claims.toml`` (``simulator.studies.tune``):
    ``ginsim tune`` plays it and, with ``--resume``, rewrites its report, so ``report`` and
    ``reproduce`` are refused (the tuning's own resume is both)."""

    name, label, output, command = "tuning", "a tuning spec", "tune.json", "tune"
    played_by = "ginsim tune {path} plays it, and ginsim tune {path} --resume rewrites its report"

    def load(self, path: Path | None, options: Options) -> Any:
        from .tune import load_spec

        return load_spec(path)

    def prepare(self, specs: list[Any]) -> None:
        """Say that numba compiles, once, when the kernels the tunings play are not cached."""
        from ..engine.select import kernels_compiled
        from ..infra.cache import announce_compile
        from .tune import tune_sids

        kernels = tuple({"play_deal_block_nb" if s.objective == "net_per_hand" else "play_game_block_nb"
                         for s in specs})
        if not kernels_compiled(kernels, sids=tune_sids(specs)):
            announce_compile()

    def run(self, spec: Any, options: Options, path: Path | None = None) -> Played:
        from .tune import tune, tune_out_dir

        start = time.perf_counter()
        result = tune(spec, options.out, resume=options.resume, progress=not options.quiet,
                      log=lambda text: print(text, file=sys.stderr))
        return Played(self, spec, result, time.perf_counter() - start, tune_out_dir(spec, options.out), path)

    def headline(self, played: Played) -> str:
        return self.summary(played)[0]

    def summary(self, played: Played) -> list[str]:
        from .tune import summary_lines

        return summary_lines(played.result, played.seconds, played.spec.name)

    def to_json(self, played: Played) -> dict[str, Any]:
        from .tune import json_record

        return json_record(played.result, played.seconds, played.spec.name, played.out)

    def write_summary(self, played: list[Played], path: str | Path) -> Path:
        from .tune import write_summary

        return write_summary([p.result for p in played], path)

    def confirm(self, path, protocol, deals, games, jobs, log):
        return cf.confirm_tuning(path, protocol, deals, games, log)

    def claims(self, path: Path) -> Path:
        return claims_file.tuning_claims_path(path)


class _EquilibriumPart(Kind):
    """A spec ``ginsim equilibrium`` plays, by its module (``module_name``: its loader and
    player, ``out_dir``, ``summary_lines`` and ``json_record``).  ``report`` and ``reproduce`` are
    refused: ``--resume`` rewrites its outputs, report included.  ``confirm`` and ``claims``
    are refused: its claims are confirmed by the experiment file of the same study name
    (``experiments/equilibrium_class.toml``), which plays the policies it found."""

    command = "equilibrium"
    played_by = "ginsim equilibrium {path} plays it, and ginsim equilibrium {path} --resume rewrites its outputs"
    #: the title of the summary file the class-game and knock-table parts share, a section each
    SECTIONS_TITLE = "Knock policies in equilibrium, by variant"

    #: the study's module in this package
    module_name = ""
    #: whether its figures are estimated with a control variate, the plain mean kept beside
    #: (its module's lines and record then take ``plain``, which ``--plain`` sets)
    reduced = True

    def module(self) -> Any:
        import importlib

        return importlib.import_module(f"{__package__}.{self.module_name}")

    def played(self, spec: Any, options: Options, path: Path | None, start: float, result: Any) -> Played:
        return Played(self, spec, result, time.perf_counter() - start, self.module().out_dir(spec, options.out), path,
                      plain=self.reduced and bool(getattr(options, "plain", False)))

    def _estimator(self, played: Played) -> dict[str, bool]:
        return {"plain": played.plain} if self.reduced else {}

    def headline(self, played: Played) -> str:
        return self.summary(played)[0]

    def summary(self, played: Played) -> list[str]:
        return self.module().summary_lines(played.result, played.seconds, played.out, **self._estimator(played))

    def to_json(self, played: Played) -> dict[str, Any]:
        return self.module().json_record(played.result, played.seconds, played.out, **self._estimator(played))

    def write_summary(self, played: list[Played], path: str | Path) -> Path:
        """Class games and knock tables share one file, a section each (class games first)."""
        from .class_game import ClassGameError, class_summary_lines, write_sections
        from .knock_table import table_summary_lines

        classes = [p.result for p in played if p.kind.name == "class_game"]
        tables = [p.result for p in played if p.kind.name == "knock_table"]
        return write_sections(path, self.SECTIONS_TITLE, [class_summary_lines(classes) if classes else [],
                                                          table_summary_lines(tables) if tables else []],
                              ClassGameError)


class ClassGame(_EquilibriumPart):
    __doc__ = "A class game (``simulator.studies.class_game``). " + _EquilibriumPart.__doc__

    name, label, output, method = "class_game", "a class-game spec", "class_game.json", "class"
    module_name = "class_game"
    first = True  # a table study measures itself against the class game of its rules

    def load(self, path: Path | None, options: Options) -> Any:
        from .class_game import load_class_spec

        return load_class_spec(path)

    def run(self, spec: Any, options: Options, path: Path | None = None) -> Played:
        from .class_game import class_game

        start = time.perf_counter()
        return self.played(spec, options, path, start,
                           class_game(spec, options.out, resume=options.resume, log=_log(options)))


class KnockTable(_EquilibriumPart):
    __doc__ = "A knock table (``simulator.studies.knock_table``). " + _EquilibriumPart.__doc__

    name, label, output, method = "knock_table", "a knock-table spec", "knock_table.json", "table"
    module_name = "knock_table"

    def load(self, path: Path | None, options: Options) -> Any:
        from .knock_table import load_table_spec

        return load_table_spec(path)

    def run(self, spec: Any, options: Options, path: Path | None = None) -> Played:
        from .knock_table import knock_table_study

        start = time.perf_counter()
        return self.played(spec, options, path, start,
                           knock_table_study(spec, options.out, resume=options.resume, log=_log(options)))


class Equilibrium(_EquilibriumPart):
    __doc__ = ("A double oracle's equilibrium (``simulator.studies.equilibrium``), the spec without a "
               "``method``. " + _EquilibriumPart.__doc__)

    name, label, output = "equilibrium", "an equilibrium spec", "equilibrium.json"
    without_method = "a double oracle"
    module_name = "equilibrium"
    reduced = False  # its payoffs are plain means already

    def load(self, path: Path | None, options: Options) -> Any:
        from .equilibrium import load_equilibrium

        return load_equilibrium(path)

    def run(self, spec: Any, options: Options, path: Path | None = None) -> Played:
        from .equilibrium import equilibrium

        start = time.perf_counter()
        return self.played(spec, options, path, start, equilibrium(spec, options.out, resume=options.resume,
                                                                   progress=not options.quiet, log=_log(options)))

    def write_summary(self, played: list[Played], path: str | Path) -> Path:
        from .equilibrium import write_summary

        return write_summary([p.result for p in played], path)


class ExploitFamily(Kind):
    """A policy family (``simulator.studies.exploit``): ``ginsim exploit OPPONENT --family
    SPEC`` plays it against the command's opponent (no file: the default family).  Its
    outputs are a tuning's, rewritten by ``--resume``, so ``report`` and ``reproduce`` are
    refused; it makes no claims of its own, so ``confirm`` and ``claims`` are refused."""

    name, label, command = "exploit_family", "an exploit family", "exploit"
    played_by = "ginsim exploit OPPONENT --family {path} plays it"

    def load(self, path: Path | None, options: Options) -> Any:
        """The family file ``path`` checked (its keys; the tuner checks their values when the
        opponent and rules make a tuning of it), or None for the default family."""
        from .exploit import load_family

        if path is not None:
            load_family(path, {"preset": options.rules}, options.objective)
        return path

    def run(self, spec: Any, options: Options, path: Path | None = None) -> Played:
        from .exploit import exploit

        start = time.perf_counter()
        result = exploit(options.opponent, options.rules, spec, options.objective, options.seed, options.out,
                         options.resume, progress=not options.quiet, log=_log(options))
        return Played(self, spec, result, time.perf_counter() - start, Path(result["out"]), path)

    def headline(self, played: Played) -> str:
        return self.summary(played)[0]

    def summary(self, played: Played) -> list[str]:
        from .exploit import summary_lines

        return summary_lines(played.result, played.seconds)

    def to_json(self, played: Played) -> dict[str, Any]:
        from .exploit import json_record

        return json_record(played.result, played.seconds)


class Experiment(Kind):
    """An experiment file (``simulator.run.experiment``): every verb.  Its ``load`` takes
    ``--deals``/``--games`` as overrides of the file's sizes."""

    name, label, output, command = "experiment", "an experiment file", "manifest.json", "run"
    played_by = "ginsim run {path} or ginsim reproduce {name} plays it"

    def load(self, path: Path | None, options: Options) -> Any:
        from ..run.experiment import load_experiment

        return load_experiment(path, deals=getattr(options, "deals", None), games=getattr(options, "games", None))

    def run(self, spec: Any, options: Options, path: Path | None = None) -> Played:
        """The experiment played into ``--out`` (default ``results/NAME``); the same command
        again on its finished, intact run (same experiment, same code) would only reproduce
        the same rows, so that run is shown instead (``--force`` plays it again)."""
        from ..run.runner import finished_run_of, run_experiment

        out = out_dir(options.out, spec.name)
        start = time.perf_counter()
        reused = not (options.force or options.resume) and finished_run_of(spec, out)
        if reused:
            print(f"ginsim: {out} already holds this finished run (same experiment and code, every file verified): "
                  f"showing it; --force re-plays it", file=sys.stderr)
        else:
            run_experiment(spec, out, jobs=options.jobs, backend=options.backend, scheduler=options.scheduler,
                           resume=options.resume, progress=not options.quiet, force=options.force)
        return Played(self, spec, {"reused": bool(reused)}, time.perf_counter() - start, Path(out), path)

    def headline(self, played: Played) -> str:
        cells = len(played.spec.cells())
        return f"{played.spec.name}: {cells} cells " + (f"in {played.out} (finished earlier)" if played.result["reused"]
                                                        else f"into {played.out} in {played.seconds:.1f} s")

    def summary(self, played: Played) -> list[str]:
        from ..analysis.summary import run_summaries

        return [self.headline(played), run_summaries(played.out)]

    def to_json(self, played: Played) -> dict[str, Any]:
        from ..analysis.summary import run_document

        return {**run_document(played.out), "cells": len(played.spec.cells()), "seconds": round(played.seconds, 3),
                "reused": played.result["reused"]}

    def report(self, folder: Path, options: Options) -> list[Path]:
        """``ginsim report DIR``; a study's results folder also gets its claims block (``reports``)."""
        from ..analysis.report import write_report

        out = Path(options.out or folder)
        control = getattr(options, "control", None)
        controlled = None
        if control is not None:
            from . import run_controls

            controlled = run_controls.run_estimates(folder, control, options.trust_plugins, keep_in=out)
        paths = write_report(folder, options.out, multiplicity=options.multiplicity,
                             trust_plugins=options.trust_plugins, claims=reports.study_of(out) is None,
                             controlled=controlled)
        if control is not None:
            run_controls.discard_checkpoint(out)
        reports.refresh_folder(out)
        return paths

    def reproduce(self, path: Path, name: str, options: Options) -> list[str]:
        """The experiment played again into ``results/NAME`` (``--force``), then its report;
        a study with a ratings page (``field.has_ratings_page``) gets that page too."""
        from ..analysis.report import write_report
        from ..run.runner import run_experiment
        from .field import has_ratings_page, write_field

        exp = self.load(path, options)
        out = Path(options.out or Path(RESULTS_DIR) / name)
        start = time.perf_counter()
        run_experiment(exp, out, jobs=options.jobs, progress=not options.quiet, force=True)
        paths = write_report(out, multiplicity=options.multiplicity, claims=reports.study_of(out) is None)
        reports.refresh_folder(out)  # a study's results: its claims from the ledger, the inputs' digests
        pngs = [p for p in paths if p.suffix == ".png"]
        lines = [f"{exp.name}: {len(exp.cells())} cells from {path} into {out} in {time.perf_counter() - start:.1f} s",
                 f"report: {paths[0]}, {paths[1]} and {len(pngs)} figure(s)"]
        if has_ratings_page(name, exp):
            lines.append(f"ratings: {write_field(out)}")
        return lines

    def confirm(self, path, protocol, deals, games, jobs, log):
        return cf.confirm_study(path, protocol, deals, games, jobs, log)

    def claims(self, path: Path) -> Path:
        return claims_file.claims_path(path)


def _with_shared_head(name: str, own: Schema) -> Schema:
    """A per-hand equilibrium study's whole spec: the head it shares with a tuning spec
    (``tune.spec.SHARED_HEAD``, by the tuning schema's declarations) and its own keys."""
    from .tune.spec import SCHEMA, SHARED_HEAD

    return Schema(name, (*(SCHEMA[k] for k in SHARED_HEAD), *own.keys))


def _kinds() -> tuple[Kind, ...]:
    """One object per kind, in the order a file is matched against them (an experiment file
    last: a file no kind owns is read as one, so its loader names what is wrong with it)."""
    from ..run.experiment import SCHEMA as EXPERIMENT_SCHEMA
    from . import class_game, knock_table
    from .equilibrium import SCHEMA as EQUILIBRIUM_SCHEMA
    from .exploit import FAMILY_SCHEMA
    from .tune.spec import SCHEMA as TUNING_SCHEMA

    return (DecisionValues(decision_values.SCHEMA), Tuning(TUNING_SCHEMA),
            ClassGame(_with_shared_head("class_game", class_game.SCHEMA)),
            KnockTable(_with_shared_head("knock_table", knock_table.SCHEMA)), Equilibrium(EQUILIBRIUM_SCHEMA),
            ExploitFamily(FAMILY_SCHEMA), Experiment(EXPERIMENT_SCHEMA))


KINDS = _kinds()
EXPERIMENT = KINDS[-1]


# ----------------------------------------------------------------------------- finding a file's kind

def kind_of(path: Path) -> Kind:
    """The kind of the study file or folder ``path``: a folder is a tuning study (its specs
    and ``claims.toml``); a file is the first kind that owns its keys, else an experiment
    file (whose loader then names what is wrong with it)."""
    from ..run.experiment import read_toml_file

    if path.is_dir():
        return next(k for k in KINDS if isinstance(k, Tuning))
    try:
        data = read_toml_file(path, "a study file", ValueError)
    except ValueError:
        return EXPERIMENT
    return next((k for k in KINDS if k.owns(data)), EXPERIMENT)


def kind_for(command: str, path: Path | None) -> Kind:
    """The kind ``ginsim COMMAND`` plays the spec ``path`` as.  Kinds sharing the command are
    told apart by the spec's ``method``; a command with one kind reads every file as that
    kind, whose loader names what is wrong with it — but a file no kind owns is read as an
    experiment file, so ``ginsim run`` first refuses a file another kind owns."""
    mine = [k for k in KINDS if k.command == command]
    if len(mine) > 1:
        return _by_method(mine, path)
    if mine[0] is EXPERIMENT:
        kind = kind_of(path)
        if kind is not EXPERIMENT:
            raise kind.refuse(command, path)
    return mine[0]


def _by_method(mine: list[Kind], path: Path) -> Kind:
    from ..run.experiment import read_toml_file
    from .class_game import ClassGameError

    default = next(k for k in mine if k.method is None)  # the spec without a method
    method = read_toml_file(Path(path), default.label, ClassGameError).get("method")
    found = next((k for k in mine if k.method == method), None)
    if found is None:
        raise ClassGameError(f"{path}: method: must be one of {', '.join(k.method for k in mine if k.method)} "
                             f"(or left out for {default.without_method}), got {method!r}")
    return found


# ----------------------------------------------------------------------------- the commands

def out_dir(out: str | None, name: str) -> str | Path:
    """An ``--out`` as given, else ``results/NAME`` under the current directory; an empty
    ``--out`` is refused with one line."""
    if out is not None and not out.strip():
        raise ValueError("--out must name a directory, got an empty string")
    return out if out is not None else Path(RESULTS_DIR) / name


def play(command: str, paths: list[str | None], options: Options) -> Iterator[Played]:
    """``ginsim COMMAND SPEC...`` (run, tune, equilibrium, exploit): every spec loaded and
    checked by its kind before any plays, then each played in turn (kinds marked ``first``
    before the others), yielded as it finishes."""
    if getattr(options, "out", None) is not None:
        if len(paths) > 1:
            raise ValueError("--out needs exactly one spec (several specs each use their own out)")
        out_dir(options.out, "")
    loaded = []
    for given in paths:
        path = None if given is None else Path(given)
        kind = kind_for(command, path)
        loaded.append((kind, kind.load(path, options), path))
    if getattr(options, "summary", None):
        writers = {type(k).write_summary for k, _, _ in loaded}
        if len(writers) > 1:
            raise ValueError("--summary needs specs that share one summary table: "
                             + "; ".join(f"{k.label} ({k.method or 'no method'})" for k in dict.fromkeys(
                                 k for k, _, _ in loaded)) + " do not")
    loaded.sort(key=lambda one: 0 if one[0].first else 1)
    for kind in dict.fromkeys(k for k, _, _ in loaded):
        kind.prepare([spec for k, spec, _ in loaded if k is kind])
    for kind, spec, path in loaded:
        yield kind.run(spec, options, path)


def write_summary(played: list[Played], path: str | Path) -> Path:
    """``--summary FILE``: the table the played specs' kinds share (``play`` checked they
    share one)."""
    return played[0].kind.write_summary(played, path)


def reproduce(name: str, options: Options) -> list[str]:
    """``ginsim reproduce STUDY``: the study played again by its kind; the lines to print."""
    from ..run.bundled import study_file

    path = study_file(name)
    kind = kind_of(path)
    if not kind.answers("reproduce"):
        raise kind.refuse("reproduce", path)
    return kind.reproduce(path, name, options)


def report(folder: Path, options: Options) -> list[Path]:
    """``ginsim report DIR``: the report of an output directory, by the kind that made it
    (the file it holds, ``Kind.output``); a directory no kind made is read as a run
    directory, whose reader names what is missing."""
    kind = next((k for k in KINDS if k.output and (Path(folder) / k.output).is_file()), EXPERIMENT)
    if not kind.answers("report"):
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
    if not (kind.answers("claims") and kind.answers("confirm")):
        raise kind.refuse("confirm", path)
    claims = kind.claims(path)
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
    confirm_pages.check_outputs(out)
    result = study.kind.confirm(study.path, protocol, max_deals, max_games, jobs, log)
    protocol.record(result, ledger.digest(confirm_pages.render_json(result).encode("utf-8")))
    written = confirm_pages.write_confirmation(result, out)
    reports.refresh_folder(out)  # the study's reports and confirm.md say where its claims stand now
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
    claims = claims_file.load_claims(study.claims_file)
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
