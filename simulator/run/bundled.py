"""The experiment files and examples that come with ginsim, found by name.

A checkout keeps them at the top of the repository (``experiments/``, ``examples/``); the
wheel carries the same files as the data packages ``simulator.experiments`` and
``simulator.examples`` (``pyproject.toml`` maps one onto the other), so an installed ginsim
finds them next to its own modules.  ``ginsim run quickstart`` and ``ginsim reproduce STUDY``
look a name up here, after ``experiments/`` under the current directory, which is where
``ginsim init DIR`` puts an editable copy.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

#: the bundled folders, by the name they have in a checkout and in ``ginsim init``'s copy
FOLDERS = ("experiments", "examples")


#: what ``init`` never copies: caches, notebook checkpoints, and the lock and temporary files
#: ginsim's own writers leave beside a ledger (``.NAME.jsonl.lock``) or a file being written
NOT_COPIED = ("__pycache__", "*.pyc", ".ipynb_checkpoints", ".*.lock", ".*.tmp")

def bundled_dir(folder: str) -> Path:
    """The installed ``simulator/<folder>`` if present, else the checkout's ``<folder>/``."""
    if folder not in FOLDERS:
        raise ValueError(f"bundled folder must be one of {', '.join(FOLDERS)}, got {folder!r}")
    package = Path(__file__).resolve().parent.parent  # simulator/
    installed = package / folder
    return installed if installed.is_dir() else package.parent / folder


def study_roots() -> list[Path]:
    """Where studies are looked up, in order: ./experiments, then the bundled ones."""
    return list(dict.fromkeys([Path.cwd() / "experiments", bundled_dir("experiments")]))


def is_study_name(text: str) -> bool:
    """A bare name such as ``quickstart`` (not a path, not a ``.toml`` file)."""
    return bool(text) and not any(c in text for c in "/\\") and not text.startswith(".") \
        and not text.endswith(".toml")


def study_names() -> list[str]:
    """Every study name that :func:`study_file` resolves, sorted."""
    return sorted({p.stem for root in study_roots() for p in root.glob("*.toml")
                   if not p.name.endswith(".claims.toml")})  # a study's claims file is not a study


def study_file(study: str) -> Path:
    """``experiments/STUDY.toml`` under the current directory, else the bundled one; a one-line
    ``ValueError`` listing the studies otherwise."""
    if not is_study_name(study):
        raise ValueError(f"give a study by name, e.g. knock_vs_gin (the file experiments/<name>.toml), got {study!r}")
    for root in study_roots():
        path = root / f"{study}.toml"
        if path.is_file():
            return path
    raise ValueError(f"no study {study!r}: experiments/{study}.toml is neither here nor among ginsim's own; "
                     f"studies: {', '.join(study_names()) or 'none'}")


def tuning_folder(study: str) -> Path | None:
    """``experiments/STUDY/`` when it is a folder of tuning specs with a ``claims.toml``
    (under the current directory, else the bundled one), else None."""
    if not is_study_name(study):
        return None
    for root in study_roots():
        if (root / study / "claims.toml").is_file():
            return root / study
    return None


def experiment_path(text: str) -> Path:
    """What ``ginsim run`` plays: an existing file as given, else a study by name (``quickstart``)."""
    path = Path(text)
    if path.is_file() or not is_study_name(text):
        return path  # the experiment loader names a missing or unreadable file itself
    return study_file(text)


def init(directory: str | Path) -> list[Path]:
    """Copy the bundled experiments (every experiment file, claims file, tuning folder and
    ledger: the ledgers that come with ginsim are read-only, the copies are written by
    ``ginsim claims`` and ``ginsim confirm`` run from ``DIRECTORY``) and examples into
    ``DIRECTORY/experiments`` and ``DIRECTORY/examples``; refuses, in one line and before copying anything,
    when either already exists.  Each folder is copied under a temporary name and renamed
    into place, so an interrupted copy leaves no half folder behind."""
    target = Path(directory)
    if str(directory).strip() == "":
        raise ValueError("ginsim init needs a directory, got an empty string")
    if target.exists() and not target.is_dir():
        raise ValueError(f"{target} exists and is not a directory")
    existing = [target / name for name in FOLDERS if (target / name).exists()]
    if existing:
        raise ValueError(f"{existing[0]} already exists; ginsim init never overwrites, choose another directory")
    target.mkdir(parents=True, exist_ok=True)
    made = []
    for name in FOLDERS:
        source = bundled_dir(name)
        staging = Path(tempfile.mkdtemp(prefix=f".ginsim-init-{name}-", dir=target))
        try:
            copy = staging / name
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns(*NOT_COPIED))
            copy.rename(target / name)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        made.append(target / name)
    return made
