"""Refusals that name the option or file and what it allows, in one line (issue 46): an odd
or too large ``simulate --deals``, ``arena --seed -1``, a strategy parameter written with a
plus sign, a manifest holding a number too long for Python, and ``show``/``report``/
``replay`` on a run that a live ``ginsim run`` is still writing (wait for it, not
``--resume``, which that run's lock would refuse)."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
from pathlib import Path

import pytest
from cli_runner import ginsim as cli, one_line_error
from test_trustworthy_runs import tiny_run  # noqa: F401 - the tiny run (400 deals in four chunks)

import strategies
from simulator.run import rundir
from simulator.run.rundir import RunLock


@pytest.fixture
def unfinished_run(tmp_path, tiny_run) -> Path:
    """A copy of the tiny run without its second chunk (deals 100-199)."""
    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    (run / "data" / "cell-0000-chunk-00001.parquet").unlink()
    return run


def test_simulate_an_odd_deal_count_of_one_is_told_the_one_even_count_near_it():
    done = cli("simulate", "simple", "random", "--deals", "1")
    assert done.returncode == 2
    assert done.stderr.strip() == ("ginsim: error: --deals must be even for mirrored deals (they come in pairs), "
                                   "got 1: give 2, or add --no-mirror")


def test_simulate_more_deals_than_memory_holds_is_one_line_naming_the_largest_and_ginsim_run():
    from simulator.api import BYTES_PER_ROW
    from simulator.infra.inputs import memory_budget

    most = memory_budget() // BYTES_PER_ROW["deals"] // 2 * 2
    done = cli("simulate", "simple", "random", "--deals", str(10**20))
    one_line_error(done, "--deals: 100,000,000,000,000,000,000 deals need about", "half this machine's memory",
                   f"give --deals {most:,} or fewer", "ginsim run")
    assert "dimension" not in done.stderr


def test_a_plus_sign_on_a_parameter_value_is_the_numbers_sign_not_a_hybrid():
    assert strategies.parse_strategy("simple:knock_at=+5").label == "simple:knock_at=5"
    assert strategies.parse_strategy("simple:knock_at=1e+0").label == "simple:knock_at=1"
    hybrid = strategies.parse_strategy("mc:samples=+32+knock=simple:knock_at=+3")
    assert hybrid.label == "mc:samples=32+knock=simple:knock_at=3"
    assert strategies.parse_strategy("mc+draw=simple").label == "mc+draw=simple"
    with pytest.raises(ValueError, match=r"^hybrid spec 'simple\+': unknown decision ''; decisions: "):
        strategies.parse_strategy("simple+")


def test_arena_names_its_seed_option_and_the_seeds_it_takes():
    pytest.importorskip("pyspiel")
    for seed in ("-1", str(2**31)):
        done = cli("arena", "simple", "simple", "--seed", seed)
        assert done.returncode == 2
        assert done.stderr.strip() == (f"ginsim: error: --seed must be an integer from 0 to 2**31 - 1 (OpenSpiel's "
                                       f"bots take a 32-bit seed), got {seed}")


def test_a_manifest_holding_a_5000_digit_number_is_refused_naming_the_file(tmp_path, tiny_run):
    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    path = run / "manifest.json"
    path.write_text(re.sub(r'"seed": \d+', '"seed": ' + "7" * 5000, path.read_text(), count=1))
    expected = (f"ginsim: error: {path}: not a ginsim manifest (unreadable JSON: Exceeds the limit (4300 digits) for "
                f"integer string conversion: value has 5000 digits)")
    for args in (("show", run), ("report", run, "--out", tmp_path / "rep"), ("replay", run, "--cell", 0, "--deal", 0),
                 ("run", tiny_run.parent / "exp.toml", "--out", run, "--resume", "--quiet")):
        done = cli(*args)
        assert done.returncode == 2 and done.stderr.strip() == expected, (args, done.stderr)


def test_an_unfinished_run_nobody_writes_is_to_be_resumed(tmp_path, unfinished_run):
    advice = f"finish the run with: ginsim run EXPERIMENT --out {unfinished_run} --resume"
    assert advice in cli("show", unfinished_run).stdout.splitlines()[0]
    one_line_error(cli("report", unfinished_run, "--out", tmp_path / "rep"), advice)
    one_line_error(cli("replay", unfinished_run, "--cell", 0, "--deal", 150), advice)


def test_a_run_a_live_ginsim_run_is_writing_is_to_be_waited_for_not_resumed(tmp_path, unfinished_run):
    with RunLock(unfinished_run, "ginsim run exp.toml"):
        advice = f"ginsim is still writing this run (pid {os.getpid()} on "
        wait = ", ginsim run exp.toml, since "
        first = cli("show", unfinished_run).stdout.splitlines()[0]
        assert first.startswith("UNFINISHED RUN") and advice in first and wait in first and "--resume" not in first
        for args in (("report", unfinished_run, "--out", tmp_path / "rep"),
                     ("replay", unfinished_run, "--cell", 0, "--deal", 150)):
            done = cli(*args)
            one_line_error(done, advice, wait, "wait for it to finish")
            assert "--resume" not in done.stderr


def test_a_run_starting_while_a_reader_checks_its_lock_waits_the_check_out(tmp_path, monkeypatch):
    """``live_holder`` takes the lock shared for an instant: a run starting in that instant
    tries again (``LOCK_TRIES``) instead of refusing a directory nobody writes."""
    tmp_path.joinpath(rundir.LOCK).write_text("")
    probe = os.open(tmp_path / rundir.LOCK, os.O_RDONLY)
    fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)  # a reader's check, caught in the middle
    waits = []

    def check_ends(seconds):
        waits.append(seconds)
        fcntl.flock(probe, fcntl.LOCK_UN)

    monkeypatch.setattr(rundir.lock.time, "sleep", check_ends)  # RunLock waits with time.sleep
    try:
        with RunLock(tmp_path, "ginsim run"):
            assert rundir.live_holder(tmp_path) is not None
    finally:
        os.close(probe)
    assert waits == [0.05]
    assert rundir.live_holder(tmp_path) is None
