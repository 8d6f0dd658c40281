"""One command regenerates a study: ``ginsim run EXP --force`` replaces an earlier run (only
the files ginsim wrote; any other file stops it, naming the file, before anything is
removed), ``ginsim reproduce STUDY`` runs experiments/STUDY.toml with --force into
results/STUDY and writes its report there, and a cold cache says it is compiling."""

from __future__ import annotations

import os
import shutil
import textwrap
from pathlib import Path

import pytest
from cli_runner import ginsim as cli, one_line_error

from simulator.analysis.rendering import REPORT_RECORD, written_by_ginsim
from simulator.run.rundir import LOCK, read_manifest, verify_run

ROOT = Path(__file__).resolve().parent.parent

TINY = textwrap.dedent('''
    name = "tiny"
    seed = 3
    deals = 200
    chunk = 100
    matchups = [["simple", "random"]]
''')


@pytest.fixture()
def reported_run(tmp_path) -> tuple[Path, Path]:
    exp = tmp_path / "tiny.toml"
    exp.write_text(TINY)
    run = tmp_path / "run"
    assert cli("run", exp, "--out", run, "--quiet").returncode == 0
    assert cli("report", run).returncode == 0
    return exp, run


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_force_replaces_a_run_and_its_report(reported_run):
    exp, run = reported_run
    old_id = read_manifest(run)["run_id"]
    # a copy of a report file under another name is the user's (issue "Trust, second pass", item 6)
    (run / "stale_plot.png").write_bytes((run / "outcome_mix.png").read_bytes())
    one_line_error(cli("run", exp, "--out", run, "--force", "--quiet"), "stale_plot.png")
    assert (run / "stale_plot.png").read_bytes() == (run / "outcome_mix.png").read_bytes()
    (run / "stale_plot.png").unlink()
    # the same command again shows the finished run (nothing written); another experiment is refused
    again = cli("run", exp, "--out", run, "--quiet")
    assert again.returncode == 0 and "already holds this finished run" in again.stderr, again.stderr
    assert "(finished earlier)" in again.stdout and read_manifest(run)["run_id"] == old_id
    other = exp.with_name("other.toml")
    other.write_text(TINY.replace("seed = 3", "seed = 4"))
    one_line_error(cli("run", other, "--out", run, "--quiet"), "already holds a finished run")
    done = cli("run", exp, "--out", run, "--force")
    assert done.returncode == 0, done.stderr
    assert "--force: removed the earlier run" in done.stderr
    manifest = read_manifest(run)
    assert manifest["run_id"] != old_id and manifest["complete"]
    assert verify_run(run, manifest).complete
    names = {p.name for p in run.iterdir()}
    assert names == {"manifest.json", "data", LOCK}  # the old report is gone with the old run
    assert cli("report", run).returncode == 0


@pytest.mark.parametrize("intruder", ["notes.txt", "data/mine.csv", "report.md", "sub/"])
def test_force_refuses_a_file_ginsim_did_not_write_and_removes_nothing(reported_run, intruder):
    exp, run = reported_run
    target = run / intruder.rstrip("/")
    if intruder.endswith("/"):
        target.mkdir()
    else:
        target.write_text("my own notes\n")  # report.md: a user's file of that name, without the mark
    before = listing(run)
    done = cli("run", exp, "--out", run, "--force", "--quiet")
    one_line_error(done, "--force removes only files ginsim wrote", intruder.rstrip("/"))
    assert listing(run) == before


def test_force_refuses_a_foreign_manifest(tmp_path):
    exp = tmp_path / "tiny.toml"
    exp.write_text(TINY)
    out = tmp_path / "out"
    out.mkdir()
    (out / "manifest.json").write_text('{"name": "somebody else\'s"}')
    one_line_error(cli("run", exp, "--out", out, "--force", "--quiet"), "manifest.json")
    assert (out / "manifest.json").read_text() == '{"name": "somebody else\'s"}'


def test_force_and_resume_exclude_each_other(reported_run):
    exp, run = reported_run
    done = cli("run", exp, "--out", run, "--force", "--resume")
    assert done.returncode == 2 and "not allowed with argument" in done.stderr


def test_reproduce_a_study_into_a_copy_of_its_committed_results(tmp_path):
    """The committed results/<study> holds a manifest of an older format (no data) and the
    report files of an older ginsim: reproduce replaces them all, at a small size."""
    study = "strategy_tournament"
    (tmp_path / "experiments").mkdir()
    shutil.copy(ROOT / "experiments" / f"{study}.toml", tmp_path / "experiments")
    committed = ROOT / "results" / study
    if committed.is_dir():
        shutil.copytree(committed, tmp_path / "results" / study,
                        ignore=shutil.ignore_patterns("data", "games", LOCK))
    done = cli("reproduce", study, "--deals", 2000, "--games", 40, "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    out = tmp_path / "results" / study
    manifest = read_manifest(out)
    assert manifest["experiment"]["deals"] == 2000 and manifest["experiment"]["games"] == 40
    assert verify_run(out, manifest).complete
    assert f"{study}: 21 cells from" in done.stdout and "report: " in done.stdout
    for name in ("report.md", "report.html", "net_points.png", "heatmap_hands.png", "heatmap_games.png"):
        assert written_by_ginsim(out / name), name
    md = (out / "report.md").read_text()
    assert "Deals per cell: 2,000" in md and "Games per cell: 40" in md
    leftovers = [p.name for p in out.iterdir() if p.is_file() and p.name not in ("manifest.json", LOCK, REPORT_RECORD)
                 and not written_by_ginsim(p)]
    # ginsim confirm's files depend on the seeds, not on the run: reproduce keeps them as they were
    kept = [name for name in ("confirm.json", "confirm.md") if (committed / name).is_file()]
    assert sorted(leftovers) == kept
    for name in kept:
        assert (out / name).read_bytes() == (committed / name).read_bytes()
    # and again: it replaces its own run
    again = cli("reproduce", study, "--deals", 2000, "--games", 40, "--quiet", cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert read_manifest(out)["run_id"] != manifest["run_id"]


def test_reproduce_names_the_studies_when_one_is_unknown(tmp_path):
    one_line_error(cli("reproduce", "no_such_study", cwd=tmp_path), "no study 'no_such_study'", "knock_vs_gin",
                   "variant_balance", "strategy_tournament")
    one_line_error(cli("reproduce", "experiments/knock_vs_gin.toml"), "give a study by name")


def test_every_study_has_a_reproduce_line():
    for study in ("knock_vs_gin", "variant_balance", "strategy_tournament"):
        text = (ROOT / "experiments" / f"{study}.md").read_text()
        assert f"ginsim reproduce {study}" in text
    assert "ginsim reproduce" in (ROOT / "README.md").read_text()


# ---- a cold cache says it is compiling instead of showing a bar frozen at 0% ------------------

def test_kernels_compiled_reads_numbas_own_index_for_this_copy_of_the_sources(tmp_path):
    """The wheel case: the same sources at another path (a wheel installed beside a clone)
    share the cache directory of their content hash, but numba files machine code by each
    source file's path and time stamp, so that copy compiles.  ``kernels_compiled`` must say
    so (it used to find the clone's index files in the shared directory and stay silent
    while the wheel compiled for a minute and a half)."""
    import subprocess
    import sys

    from simulator.engine import select

    # this session has played the engine routing every strategy (GINSIM_ENGINE=all): its
    # machine code is in the cache for this checkout
    import simulator

    simulator.simulate("simple", "simple", "hoyle", n_deals=2, seed=1)
    assert select.kernels_compiled(("play_deal_block_nb",), module="simulator.engine.kernels")
    copy = tmp_path / "site-packages"
    for package in ("simulator", "strategies"):
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    probe = ("import simulator.infra.cache as c, simulator.engine.select as s; "
             "print(c.numba_cache_dir().name, s.kernels_compiled(('play_deal_block_nb',), "
             "module='simulator.engine.kernels'))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(copy)})
    assert done.returncode == 0, done.stderr
    from simulator.infra import cache as _cache

    directory, compiled = done.stdout.split()
    assert directory == _cache.numba_cache_dir().name  # the same sources: the same cache directory
    assert compiled == "False"  # but no machine code for this copy yet


def _load_module(source: Path, name: str):
    """The module of file ``source`` imported under ``name`` (a new module each time)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_is_cached_follows_numbas_index_and_the_source_stamp(tmp_path, monkeypatch):
    """``is_cached`` is numba's own verdict: no index, an index of the file as it is, the file
    changed since (numba would compile again), a function that is not cached."""
    from simulator.infra import cache as _cache

    source = tmp_path / "tiny_kernel.py"
    source.write_text("from numba import njit\n\n@njit(cache=True)\ndef add(x):\n    return x + 1\n\n"
                      "@njit\ndef plain(x):\n    return x\n")

    def load(name):
        return _load_module(source, name)

    first = load("tiny_kernel_a")
    assert _cache.is_cached(first.add) is False and _cache.is_cached(first.plain) is None
    assert first.add(1) == 2
    assert _cache.is_cached(load("tiny_kernel_b").add) is True
    source.write_text(source.read_text() + "# edited\n")
    assert _cache.is_cached(load("tiny_kernel_c").add) is False


def test_any_command_says_so_before_it_compiles_and_not_when_it_loads(tmp_path, monkeypatch, capsys):
    """``announce_compiles`` (every ``ginsim`` command calls it first): the notice comes at
    numba's first compile of a ginsim function in the process, once, and never for machine
    code loaded from the cache."""
    from simulator.infra import cache as _cache

    source = tmp_path / "tiny_engine.py"
    source.write_text("from simulator.infra.jit import KERNEL\n\n@KERNEL\ndef twice(x):\n    return 2 * x\n\n"
                      "@KERNEL\ndef thrice(x):\n    return 3 * x\n")

    def load(name):
        return _load_module(source, name)

    monkeypatch.setitem(_cache._STATE, "announced", False)
    monkeypatch.setattr(_cache, "COMPILE_NOTICE_GRACE", 0.0)  # at once: these compiles are quick
    _cache.announce_compiles()
    first = load("tiny_engine_a")
    assert first.twice(2) == 4 and first.thrice(1) == 3  # two compiles: one notice
    assert capsys.readouterr().err == _cache.COMPILING_MESSAGE + "\n"
    monkeypatch.setitem(_cache._STATE, "announced", False)
    assert load("tiny_engine_b").twice(3) == 6  # loaded from the cache: no compile, no notice
    assert capsys.readouterr().err == ""


def test_a_compile_over_within_the_grace_says_nothing_and_a_longer_one_says_so(tmp_path, monkeypatch, capsys):
    """A command that cannot tell in advance whether it compiles prints the notice only when
    numba is still compiling COMPILE_NOTICE_GRACE seconds after a compile of ginsim's began."""
    import threading
    import time

    from simulator.infra import cache as _cache

    source = tmp_path / "tiny_slow.py"
    source.write_text("from simulator.infra.jit import KERNEL\n\n@KERNEL\ndef twice(x):\n    return 2 * x\n\n"
                      "@KERNEL\ndef thrice(x):\n    return 3 * x\n")
    monkeypatch.setitem(_cache._STATE, "announced", False)
    monkeypatch.setattr(_cache, "COMPILE_NOTICE_GRACE", 5.0)
    _cache.announce_compiles()
    quick = _load_module(source, "tiny_slow_a")
    assert quick.twice(2) == 4
    timer = _cache._STATE["timer"]
    assert timer is not None and _cache._STATE["compiling"] == 0
    timer.cancel()  # what firing after the compile ended does, without waiting 5 s
    _cache._announce_if_compiling()
    assert capsys.readouterr().err == "" and not _cache._STATE["announced"]
    # a compile still running when the grace ends: the notice, once
    monkeypatch.setattr(_cache, "COMPILE_NOTICE_GRACE", 0.05)
    from numba.core import event

    def slow_compile(ev):
        time.sleep(0.5)

    listener = type("Slow", (event.Listener,), {"on_start": lambda self, ev: slow_compile(ev),
                                                 "on_end": lambda self, ev: None})()
    event.register("numba:compile", listener)  # after ginsim's listener: its timer runs during the sleep
    try:
        assert quick.thrice(1) == 3
    finally:
        event.unregister("numba:compile", listener)
    for thread in threading.enumerate():
        if isinstance(thread, threading.Timer):
            thread.join(2)
    assert capsys.readouterr().err == _cache.COMPILING_MESSAGE + "\n"


def test_a_run_on_a_cold_cache_says_it_compiles(tmp_path, monkeypatch, capsys):
    from simulator.engine import select
    from simulator.infra import cache as _cache
    from simulator.run.experiment import load_experiment
    from simulator.run.runner import run_experiment

    exp = tmp_path / "tiny.toml"
    exp.write_text(TINY)
    monkeypatch.setattr(select, "kernels_compiled", lambda *a, **k: False)
    monkeypatch.setitem(_cache._STATE, "announced", False)  # (the session announces nothing: conftest)
    run_experiment(load_experiment(exp), tmp_path / "cold", progress=True)
    assert _cache.COMPILING_MESSAGE in capsys.readouterr().err
    monkeypatch.setitem(_cache._STATE, "announced", False)
    monkeypatch.setattr(select, "kernels_compiled", lambda *a, **k: True)
    run_experiment(load_experiment(exp), tmp_path / "warm", progress=True)
    assert _cache.COMPILING_MESSAGE not in capsys.readouterr().err
    lo, hi = _cache.COMPILE_SECONDS["light"]
    assert "compiling kernels for this version of ginsim, once per engine" in _cache.COMPILING_MESSAGE
    assert f": about {lo}-{hi} s" in _cache.COMPILING_MESSAGE
