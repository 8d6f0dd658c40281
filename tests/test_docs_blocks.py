"""The README's and the docs' code blocks work as written (tests/docs_blocks.py says how):
every documented command parses with the program's own options and names files that exist
(fast), and every console and pycon block runs and prints what its page says (the docs
tier, slow: it plays the README's quick start)."""

from __future__ import annotations

import pytest

from docs_blocks import ROOT, blocks, command_problems, commands, documents, run_page, runnable_pages, sandbox


def _shell_commands():
    for path in documents():
        for block in blocks(path):
            if block.lang in ("bash", "sh"):
                yield block, commands(block.body)
            elif block.lang == "console":
                yield block, commands("\n".join(line for line in block.body.splitlines() if line.startswith("$ ")))


def test_every_documented_command_parses_and_names_what_exists():
    problems = [f"{block.where}: {problem}" for block, argvs in _shell_commands() for argv in argvs
                if (problem := command_problems(argv))]
    assert problems == []
    assert sum(len(argvs) for _, argvs in _shell_commands()) > 50  # the checker sees the pages' commands


def test_the_command_checker_catches_what_a_reader_would_trip_on():
    assert "invalid choice" in command_problems(["ginsim", "simulte", "a", "b"])
    assert "unrecognized arguments: --dealz" in command_problems(["ginsim", "simulate", "a", "b", "--dealz", "9"])
    assert "does not exist" in command_problems(["ginsim", "run", "experiments/nothing.toml"])
    assert "not in pyproject.toml" in command_problems(["pip", "install", "-e", ".[gpu]"])
    assert "no option --epochs" in command_problems(["python", "examples/train_ppo.py", "--epochs", "3"])
    assert "no such test" in command_problems(["pytest", "tests/test_runner.py::test_nothing_like_it"])
    assert "does not know" in command_problems(["curl", "example.org"])
    assert command_problems(["ginsim", "run", "experiments/quickstart.toml", "--jobs", "2"]) is None
    assert commands("pip install -e . && ginsim run quickstart   # the main job\nginsim --help; ginsim run --help\n") \
        == [["pip", "install", "-e", "."], ["ginsim", "run", "quickstart"], ["ginsim", "--help"], ["ginsim", "run", "--help"]]


def test_the_runnable_pages_hold_the_outputs_readers_see_first():
    pages = {p.relative_to(ROOT).as_posix() for p in runnable_pages()}
    assert {"README.md", "docs/python-api.md", "docs/rl.md", "docs/hand-history.md"} <= pages


def test_docs_run_as_written_and_print_what_they_say(tmp_path):
    """The docs tier: every console and pycon block of every page, run in page order."""
    env = sandbox(tmp_path)
    failures = [f for page in runnable_pages() for f in run_page(page, tmp_path, env)]
    assert not failures, "\n\n".join(failures[:5]) + f"\n\n({len(failures)} in all; python tests/docs_blocks.py " \
                                                       "--update writes the outputs of a run back)"


def test_the_timings_in_the_docs_are_written_from_the_measurements():
    """docs/development.md's table and the README's line come from docs/test-timings.json
    (``simulator.tools.suite_timings``), and say when a figure was taken on a loaded machine."""
    from simulator.tools import suite_timings as T

    assert T.main(["write", "--check"]) == 0
    m = {"target": "fast", "wall_s": 150.4, "cpu_s": 145.1, "cores": 2, "load_before": 1.2, "load_after": 2.0,
         "cache": "empty", "date": "2026-12-02", "commit": "abc1234", "passed": 726, "failed": 0, "skipped": 12,
         "slowest": [["test_x::test_y", 27.4]]}
    table = T.table({"fast": m})
    assert "| fast tier (`pytest`) | 726 passed, 12 skipped | 150 s (3 min) | 145 s (2 min) | 2 cores, loaded: " \
           "load average 1.2 before, 2.0 after | empty | 2026-12-02, abc1234 |" in table
    assert "2 cores, idle" in T.table({"fast": {**m, "load_before": 0.1, "load_after": 0.2}})
    # the target's own busy core is not load besides it
    assert "2 cores, idle" in T.table({"fast": {**m, "load_before": 0.1, "load_after": 1.1}})
    assert "2 cores, loaded" in T.table({"fast": {**m, "load_before": 0.1, "load_after": 1.4}})
    assert "not measured yet (python -m simulator.tools.suite_timings measure ci)" in T.readme_line({"fast": m})
