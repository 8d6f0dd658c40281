"""ginsim as a package people install: the wheel carries the experiment files, the examples,
``py.typed`` and the licence; installed in a fresh virtual environment it runs the quick start
by name from an empty directory (``ginsim run quickstart``, then ``ginsim reproduce
variant_balance`` at a tiny size); ``ginsim init DIR`` copies the
experiments and examples for editing; studies are found by name from any directory.

The wheel is built without build isolation and installed with ``--no-deps --no-index`` into a
venv that sees this interpreter's packages, so no test here needs the network."""

from __future__ import annotations

import email
import fnmatch
import os
import shutil
import site
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from simulator.cli import main
from simulator.run import bundled

ROOT = Path(__file__).resolve().parent.parent
#: what the build reads: pyproject.toml names README.md and LICENSE; the rest are packages
BUILD_INPUTS = ("pyproject.toml", "README.md", "LICENSE", "simulator", "strategies", "experiments", "examples")


def _tracked_copy(dest: Path) -> None:
    """The build inputs, without caches or build leftovers (the build then writes only under dest)."""
    dest.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".ipynb_checkpoints")
    for name in BUILD_INPUTS:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=skip)
        else:
            shutil.copy2(source, dest / name)


def _clean_env(**extra: str) -> dict[str, str]:
    """This environment without PYTHONPATH (which would import the checkout instead) and
    with the engine choice a user gets by default."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GINSIM_ENGINE")}
    env.update(extra)
    return env


def _see_this_interpreters_packages(python: Path) -> None:
    """Let the new environment import the dependencies this test runs with.  Its "system"
    site-packages are the base interpreter's; when the tests run in a virtual environment
    (``python -m venv``, then ``bash .ci/run``), the dependencies are in that environment's
    site-packages instead, so they are listed in a ``.pth`` file.  Python does not read the
    ``.pth`` files of directories listed that way, so this checkout's editable install stays
    out and the wheel's copy is the one imported (asserted below)."""
    if sys.prefix == sys.base_prefix:
        return
    site_dir = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip())
    (site_dir / "test-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")



def _left_by_a_writer(path: Path) -> bool:
    """A ledger's lock file or a file being written (``bundled.NOT_COPIED``): never shipped."""
    return any(fnmatch.fnmatch(path.name, pattern) for pattern in bundled.NOT_COPIED if pattern.startswith(".*"))

@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    _tracked_copy(work / "src")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                           "--no-index", "-w", str(work / "dist"), str(work / "src")],
                          capture_output=True, text=True, env=_clean_env(), timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (path,) = (work / "dist").glob("ginsim_rummy-*.whl")
    return path


def test_the_wheel_carries_experiments_examples_types_and_licence(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder, bundled_as in (("experiments", "simulator/experiments"), ("examples", "simulator/examples")):
        files = [p for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts
                 and ".ipynb_checkpoints" not in p.parts and not _left_by_a_writer(p)]
        assert files
        for path in files:
            assert f"{bundled_as}/{path.relative_to(ROOT / folder).as_posix()}" in names, path
    assert {"simulator/py.typed", "strategies/py.typed", "simulator/cli/__init__.py", "strategies/registry.py"} <= names
    dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    assert f"{dist_info}/licenses/LICENSE" in names
    meta = email.message_from_bytes(zipfile.ZipFile(wheel).read(f"{dist_info}/METADATA"))
    assert meta["Name"] == "ginsim-rummy" and meta["License-Expression"] == "MIT"
    assert meta["Requires-Python"] == ">=3.11"
    entry_points = zipfile.ZipFile(wheel).read(f"{dist_info}/entry_points.txt").decode()
    assert "ginsim = simulator.cli:main" in entry_points
    assert not any("__pycache__" in n or n.startswith(("tests/", "results/", "docs/")) for n in names)


def test_pyproject_lists_every_subpackage():
    """pyproject.toml names the packages (so it can map the data packages): a new subpackage
    must be added there, or the wheel would leave it out."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for top in ("simulator", "strategies")
               for p in (ROOT / top).rglob("__init__.py")}
    mapped = config["package-dir"]
    assert {mapped[name] for name in mapped} == {"experiments", "examples"}
    data = {".".join((name, *p.relative_to(ROOT / folder).parts)) for name, folder in mapped.items()
            for p in [ROOT / folder, *(ROOT / folder).rglob("*")]
            if p.is_dir() and p.name not in ("__pycache__", ".ipynb_checkpoints")}
    assert set(config["packages"]) == on_disk | data


def test_the_installed_wheel_runs_the_quick_start_from_an_empty_directory(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    _see_this_interpreters_packages(python)
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                           "--no-index", str(wheel)], capture_output=True, text=True, env=_clean_env(), timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    empty = tmp_path / "empty"
    empty.mkdir()
    env = _clean_env(GINSIM_CACHE_DIR=str(tmp_path / "cache"))
    where = subprocess.run([str(python), "-c", "import simulator, strategies; print(simulator.__file__);"
                            "print(strategies.__file__)"], capture_output=True, text=True, cwd=empty, env=env)
    assert where.returncode == 0 and all(line.startswith(str(env_dir)) for line in where.stdout.split()), where
    version = subprocess.run([str(env_dir / "bin" / "ginsim"), "--version"], capture_output=True, text=True, env=env)
    expected = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert version.stdout.strip() == f"ginsim {expected}", version
    done = subprocess.run([str(env_dir / "bin" / "ginsim"), "run", "quickstart", "--deals", "200", "--quiet"],
                          capture_output=True, text=True, cwd=empty, env=env, timeout=800)
    assert done.returncode == 0, done.stderr[-3000:]
    # an empty cache: the first run says it compiles before it does, even with --quiet
    from simulator.infra.cache import COMPILING_MESSAGE

    assert COMPILING_MESSAGE in done.stderr.splitlines(), done.stderr[-3000:]
    assert "quickstart: 4 cells into results/quickstart" in done.stdout
    assert "gin_hunter vs knock_early" in done.stdout and "net_a ± 95%" in done.stdout
    assert (empty / "results" / "quickstart" / "manifest.json").is_file()
    assert sorted(p.name for p in empty.iterdir()) == ["results"]
    # a study by name, from the same directory: its run and report land under ./results
    done = subprocess.run([str(env_dir / "bin" / "ginsim"), "reproduce", "variant_balance", "--deals", "200",
                           "--games", "4", "--quiet"], capture_output=True, text=True, cwd=empty, env=env, timeout=800)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (empty / "results" / "variant_balance" / "report.md").is_file()
    assert sorted(p.name for p in (empty / "results").iterdir()) == ["quickstart", "variant_balance"]


def test_init_copies_experiments_and_examples_and_never_overwrites(tmp_path, capsys):
    target = tmp_path / "mine"
    assert main(["init", str(target)]) == 0
    for folder in bundled.FOLDERS:
        ours = sorted(p.relative_to(ROOT / folder) for p in (ROOT / folder).rglob("*")
                      if p.is_file() and "__pycache__" not in p.parts and ".ipynb_checkpoints" not in p.parts
                      and not _left_by_a_writer(p))
        theirs = sorted(p.relative_to(target / folder) for p in (target / folder).rglob("*") if p.is_file())
        assert theirs == ours
    assert (target / "experiments" / "quickstart.toml").read_bytes() == (ROOT / "experiments" / "quickstart.toml").read_bytes()
    assert sorted(p.name for p in target.iterdir()) == ["examples", "experiments"]  # no staging folder left
    capsys.readouterr()
    (target / "experiments" / "quickstart.toml").write_text("# my edit\n")
    assert main(["init", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "already exists" in err[0] and "never overwrites" in err[0]
    assert (target / "experiments" / "quickstart.toml").read_text() == "# my edit\n"
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    assert main(["init", str(not_a_dir)]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_studies_are_found_by_name_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert bundled.study_file("quickstart") == bundled.bundled_dir("experiments") / "quickstart.toml"
    assert bundled.experiment_path("quickstart") == bundled.study_file("quickstart")
    assert bundled.experiment_path("my.toml") == Path("my.toml")  # a path stays a path
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "quickstart.toml").write_text("name = 'mine'\n")
    assert bundled.study_file("quickstart") == tmp_path / "experiments" / "quickstart.toml"  # ./experiments first
    with pytest.raises(ValueError, match="no study 'nope'.*knock_vs_gin"):
        bundled.study_file("nope")
    with pytest.raises(ValueError, match="give a study by name"):
        bundled.study_file("experiments/quickstart.toml")
