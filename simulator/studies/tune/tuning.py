"""``tune``: one tuning from its spec to its outputs, in its locked output directory.

The study lives in ``OUT/study.db`` and ``OUT`` is locked for the whole tuning
(``simulator.run.rundir.RunLock``); ``tune`` checks the directory, picks the engine for
every strategy the tuning names, opens (or resumes) the study
(``simulator.studies.tune.search.open_study``), plays what is left (``play_study``) and
writes the outputs (``simulator.studies.tune.outputs``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...run.limits import RESULTS_DIR
from .field import Field
from .outputs import FIGURES, TUNE_FILES, _mark_ours, write_outputs
from .search import open_study, play_study
from .spec import STUDY_DB, TuneError, TuneSpec


def _check_out_dir(out: Path, resume: bool) -> None:
    """Refuse an output directory that is not empty and not a tuning of ours (or holds a
    tuning and --resume was not given).  Writes nothing."""
    from ...run.rundir import LOCK

    if out.exists() and not out.is_dir():
        raise TuneError(f"--out {out} is a file, not a directory")
    if not out.exists():
        return
    entries = [p.name for p in out.iterdir() if p.name != LOCK]
    if (out / STUDY_DB).exists():
        if not resume:
            raise TuneError(f"{out} already holds a tuning study; continue it with --resume or choose another out")
        return
    if entries:
        raise TuneError(f"--out {out} is not empty and holds no tuning study (found {sorted(entries)[0]!r}); "
                        f"choose a new or empty directory")



def tune_sids(specs) -> set[int]:
    """The strategy ids the tunings of ``specs`` play (their plug-ins registered first): the
    tuned strategy, the opponents, the baselines and the fixed-threshold sweep's strategy."""
    import strategies

    sids = set()
    for spec in specs:
        for pname, ppath in spec.plugins.items():
            strategies.register(pname, ppath)
        names = [spec.strategy, *(name for name, _ in spec.opponents), *spec.baselines.values()]
        if spec.fixed_threshold is not None:
            names.append(spec.fixed_threshold.strategy)
        sids.update(strategies.parse_strategy(name).sid for name in names)
    return sids


def tune_out_dir(spec: TuneSpec, out: str | Path | None = None) -> Path:
    """Where ``tune`` writes: ``out``, else the spec's ``out``, else ``results/<name>``."""
    return Path(out if out is not None else (spec.out or Path(RESULTS_DIR) / spec.name))



def tune(spec: TuneSpec, out: str | Path | None = None, resume: bool = False, progress: bool = True,
         log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run (or resume) a tuning into ``out`` and write its outputs; returns the result
    (what ``tune.json`` holds)."""
    from ...run.rundir import locked_output
    from ...run.seeds import development_seed_error

    # the fresh-deal evaluation's seeds derive from spec.seed: no development seed (docs/experiments.md)
    refusal = development_seed_error(spec.seed, f"ginsim tune {spec.name}: the final (fresh-deal) evaluation")
    if refusal:
        raise TuneError(refusal)
    log = log or (lambda text: None)
    out = tune_out_dir(spec, out)
    _check_out_dir(out, resume)
    return locked_output(out, f"ginsim tune {spec.path}", TuneError,
                         lambda: _tune_locked(spec, out, resume, progress, log))


def _tune_locked(spec: TuneSpec, out: Path, resume: bool, progress: bool, log: Callable[[str], None]) -> dict[str, Any]:
    """The tuning, once ``out`` is locked: the directory checked again, the study opened and
    played, the time kept in the study, the outputs written."""
    from ...engine.select import will_play
    from ...run.rundir import code_fingerprint
    from .trials import _optuna

    started = time.perf_counter()
    _check_out_dir(out, resume)  # again, now that nobody else can write here
    for name in (*TUNE_FILES, *FIGURES):
        if not _mark_ours(out / name):
            raise TuneError(f"{out / name} exists and was not written by ginsim; move it away or choose "
                            f"another out")
    will_play(tune_sids([spec]))  # one engine for the whole tuning
    storage = _optuna().storages.RDBStorage(f"sqlite:///{(out / STUDY_DB).resolve()}")
    study, fingerprint = open_study(spec, storage, _process_fingerprint(spec.plugins, code_fingerprint), out, log)
    field_ = Field(spec)
    result = play_study(spec, study, field_, progress, fingerprint)
    seconds = time.perf_counter() - started
    total_seconds = float(study.user_attrs.get("ginsim_seconds", 0.0))
    if field_.played:  # time spent playing; a resume that only rewrites outputs adds none
        total_seconds += seconds
        study.set_user_attr("ginsim_seconds", total_seconds)
    result["seconds_this_session"] = seconds
    result["seconds_total"] = total_seconds
    result["played_this_session"] = field_.played
    result["out"] = str(out)
    write_outputs(spec, study, result, out)
    return result


#: the code fingerprint of this process, per plug-in set: taken once, at the first tuning, so
#: that every tuning of one process (``ginsim tune a.toml b.toml``) records the code it was
#: played by even when the files on disk change meanwhile
_FINGERPRINTS: dict[tuple, str] = {}


def _process_fingerprint(plugins: dict[str, str], code_fingerprint) -> str:
    """The code fingerprint of ``plugins``' tunings in this process (``_FINGERPRINTS``)."""
    key = tuple(sorted(plugins.items()))
    if key not in _FINGERPRINTS:
        _FINGERPRINTS[key] = code_fingerprint(plugins)
    return _FINGERPRINTS[key]
