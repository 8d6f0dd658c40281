"""Trust, fourth pass (issue 54), its edges: what ginsim writes never waits on a FIFO, and a
damaged input or a flag out of range is refused in one line instead of a traceback, a hang
or a silent default.

Each test names the defect it guards and fails on the code before the fix."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_runner import ginsim, one_line_error
from test_trust_third import deadline
from test_trustworthy_runs import tiny_run  # noqa: F401  (a fixture: 400 deals of simple vs random)


# ---- bug 6: --export onto a FIFO ----------------------------------------------------------

def test_check_target_refuses_what_is_no_regular_file_without_opening_it(tmp_path):
    from simulator.infra.inputs import check_target

    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    assert check_target(tmp_path / "file", "a page") is True
    assert check_target(tmp_path / "none", "a page") is False
    with deadline(10, tmp_path / "fifo"):
        for name, words in (("fifo", "is a FIFO, not a regular file"), ("link", "is a symbolic link"),
                            (".", "is a directory")):
            with pytest.raises(ValueError, match=words):
                check_target(tmp_path / name, "a page")


def test_replay_export_onto_a_fifo_is_refused_at_once(tiny_run, tmp_path):
    fifo = tmp_path / "hand.toml"
    os.mkfifo(fifo)
    with deadline(20, fifo):
        done = ginsim("replay", tiny_run, "--cell", 0, "--deal", 1, "--export", fifo)
    one_line_error(done, str(fifo), "is a FIFO, not a regular file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hand.toml"]  # no temporary left
    good = tmp_path / "good.toml"
    assert ginsim("replay", tiny_run, "--cell", 0, "--deal", 1, "--export", good).returncode == 0
    assert good.read_text().startswith("# A hand of Gin Rummy recorded by ginsim")


def test_arena_export_refuses_a_fifo_among_its_file_names_before_any_hand(tmp_path):
    from simulator.interop.openspiel import hand_file

    hands = tmp_path / "hands"
    hands.mkdir()
    fifo = hands / hand_file(1, 0)
    os.mkfifo(fifo)
    with deadline(20, fifo):
        done = ginsim("arena", "simple", "random", "--decks", 2, "--engine", "ginsim", "--export", hands)
    one_line_error(done, str(fifo), "is a FIFO")
    assert [p.name for p in hands.iterdir()] == [fifo.name]  # no hand written before the refusal


def test_replay_of_a_fifo_names_it_instead_of_asking_for_cell(tmp_path):
    fifo = tmp_path / "run"
    os.mkfifo(fifo)
    with deadline(10, fifo):
        one_line_error(ginsim("replay", fifo), str(fifo), "neither a run directory nor a hand history file")


# ---- bench --scale-* ---------------------------------------------------------------------

def test_bench_scale_flags_without_scale_and_a_scale_dir_that_is_a_file_are_refused(tmp_path):
    """Issue 54: ``--scale-*`` without ``--scale`` were ignored and the full benchmark
    started; ``--scale-dir`` onto a file failed naming a temporary folder inside it."""
    one_line_error(ginsim("bench", "--scale-keep"), "--scale-keep goes with --scale")
    one_line_error(ginsim("bench", "--scale-deals", 100, "--scale-dir", tmp_path),
                   "--scale-deals, --scale-dir go with --scale")
    (tmp_path / "file").write_text("x")
    for name, words in (("file", "not a directory"), ("none", "no such directory")):
        one_line_error(ginsim("bench", "--scale", "--scale-deals", 100, "--scale-dir", tmp_path / name),
                       f"--scale-dir {tmp_path / name}: {words}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
