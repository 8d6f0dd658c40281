"""The command line for scripts (docs/cli.md): ``--json`` documents of simulate, run, show and
tune validate against the schema printed in docs/cli.md; no "± nan" (a run of one mirrored
pair says why it has no interval); progress bars only on a terminal and not counting the
compile; shell completion; the quick start re-runnable as written; its scratch ignored.

Everything runs in this process through ``simulator.cli.main`` (kernels compile once)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from simulator.cli import main

ROOT = Path(__file__).resolve().parent.parent

TINY = textwrap.dedent('''
    name = "tiny"
    seed = 5
    deals = {deals}
    {games}
    chunk = 20
    matchups = [["simple", "knock_early"], ["simple", "simple"]]
    [variants.hoyle]
    preset = "hoyle"
''')


def schema() -> dict:
    """The one JSON block of docs/cli.md's "Schema" section."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("## Schema", 1)[1]
    return json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))


def validate(document: dict, kind: str) -> None:
    jsonschema.Draft7Validator.check_schema(schema())
    jsonschema.validate(document, {**schema(), "$ref": f"#/definitions/{kind}"})
    assert document["schema"] == f"ginsim.{kind}/1"


def run_json(capsys, *argv: str) -> dict:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def write(tmp_path: Path, deals: int = 40, games: int = 0, name: str = "tiny.toml") -> Path:
    path = tmp_path / name
    path.write_text(TINY.format(deals=deals, games=f"games = {games}" if games else ""))
    return path


def test_simulate_json_and_text_say_why_one_pair_has_no_interval(capsys):
    doc = run_json(capsys, "simulate", "simple", "knock_early", "--deals", "2", "--json")
    validate(doc, "simulate")
    net = doc["net_points_per_hand_to_a"]
    assert net["units"] == 1 and net["ci_low"] is None and net["no_interval"] == "n = 1 pair: no interval"
    assert main(["simulate", "simple", "knock_early", "--deals", "2"]) == 0
    text = capsys.readouterr().out
    assert "nan" not in text and "(n = 1 pair: no interval)" in text
    doc = run_json(capsys, "simulate", "simple", "knock_early", "--deals", "40", "--no-mirror", "--json")
    validate(doc, "simulate")
    net = doc["net_points_per_hand_to_a"]
    assert net["unit"] == "hand" and net["units"] == 40 and net["no_interval"] is None
    assert net["ci_low"] < net["estimate"] < net["ci_high"]
    assert abs(sum(doc["outcomes"].values()) - 1) < 1e-9


def test_run_and_show_json_validate_and_a_rerun_shows_the_finished_run(tmp_path, capsys):
    exp, out = write(tmp_path, deals=40, games=4), tmp_path / "run"
    doc = run_json(capsys, "run", str(exp), "--out", str(out), "--json")
    validate(doc, "run")
    assert doc["complete"] and not doc["reused"] and doc["cells"] == 2
    assert [c["rows"] for c in doc["hands"]] == [40, 40] and [c["rows"] for c in doc["games"]] == [4, 4]
    assert doc["hands"][0]["net_points_per_hand_to_a"]["units"] == 20
    shown = run_json(capsys, "show", str(out), "--json")
    validate(shown, "show")
    assert shown["hands"] == doc["hands"] and shown["games"] == doc["games"]

    # the quick start as written, again: the finished run is shown, nothing is written
    files = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    assert main(["run", str(exp), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "already holds this finished run" in captured.err and "(finished earlier)" in captured.out
    assert "net_a ± 95%" in captured.out and "nan" not in captured.out
    again = run_json(capsys, "run", str(exp), "--out", str(out), "--json")
    validate(again, "run")
    assert again["reused"] and again["run_id"] == doc["run_id"] and again["hands"] == doc["hands"]
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == files
    # another experiment into the same directory is still refused
    other = write(tmp_path, deals=60, name="other.toml")
    assert main(["run", str(other), "--out", str(out), "--quiet"]) == 2
    assert "already holds a finished run" in capsys.readouterr().err
    # so is a damaged run: the same command does not show numbers from a file that fails verification
    chunk = sorted((out / "data").glob("*.parquet"))[0]
    chunk.write_bytes(chunk.read_bytes()[:-40])
    assert main(["run", str(exp), "--out", str(out), "--quiet"]) == 2
    assert "already holds a finished run" in capsys.readouterr().err


def test_show_lists_a_swept_run_without_importing_numba(tmp_path, capsys):
    """``ginsim show`` re-derives a run's cells (a sweep included) to verify its manifest,
    and does so without numba: a child process prints the same text and JSON as this one."""
    exp, out = tmp_path / "swept.toml", tmp_path / "run"
    exp.write_text(TINY.format(deals=20, games="") + "[sweep]\n\"a.knock_at\" = [0, 5]\n")
    assert main(["run", str(exp), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    here = {"text": (main(["show", str(out)]), capsys.readouterr().out),
            "json": (main(["show", str(out), "--json"]), capsys.readouterr().out)}
    assert here["text"][0] == 0 and here["text"][1].count(" simple:knock_at=") == 4  # two matchups × two points
    child = textwrap.dedent(f"""
        import contextlib, io, json, sys
        from simulator.cli import main
        shown = {{}}
        for kind, extra in (("text", []), ("json", ["--json"])):
            with contextlib.redirect_stdout(io.StringIO()) as out:
                shown[kind] = (main(["show", {str(out)!r}, *extra]), out.getvalue())
        print(json.dumps({{"shown": shown, "numba": "numba" in sys.modules}}))
    """)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["numba"] is False
    assert {kind: tuple(v) for kind, v in result["shown"].items()} == here


def test_show_prints_dashes_not_nan_for_a_cell_with_no_rows_yet(tmp_path, capsys):
    exp, out = write(tmp_path, deals=40), tmp_path / "run"
    assert main(["run", str(exp), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    for chunk in (out / "data").glob("cell-0001-*.parquet"):
        chunk.unlink()  # as if the run had stopped before cell 1
    assert main(["show", str(out)]) == 0
    captured = capsys.readouterr()
    assert "UNFINISHED RUN" in captured.err + captured.out and "nan" not in captured.out
    last = captured.out.strip().splitlines()[-1].split()
    assert last[0] == "1" and last[-6:] == ["—"] * 6 and "0" in last


def test_a_run_of_one_pair_says_why_it_has_no_interval(tmp_path, capsys):
    exp, out = write(tmp_path, deals=2), tmp_path / "run"
    assert main(["run", str(exp), "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "nan" not in text and text.count("(n = 1 pair: no interval)") == 2
    doc = run_json(capsys, "show", str(out), "--json")
    validate(doc, "show")
    assert doc["games"] is None and all(c["net_points_per_hand_to_a"]["no_interval"] for c in doc["hands"])
    assert main(["report", str(out)]) == 0  # the report says so too
    md = (out / "report.md").read_text()
    assert "nan" not in md.lower() and "(n = 1: no interval)" in md


def test_progress_goes_to_a_terminal_only_and_the_bar_starts_after_the_compile(tmp_path, capsys):
    # stderr is not a terminal here: no bar, so no carriage returns in a redirected log
    exp = write(tmp_path, deals=200)
    assert main(["run", str(exp), "--out", str(tmp_path / "run")]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "deal/s" not in err

    from simulator.run.runner.play import _Progress, bar_disabled

    assert bar_disabled(True) is None and bar_disabled(False) is True  # tqdm: None = off unless a TTY
    made = []

    class Bar:
        def __init__(self, initial):
            self.n = initial
            made.append(initial)

        def update(self, count):
            self.n += count

        def close(self):
            pass

    progress = _Progress(Bar, done=100, compiling=True)
    assert made == []  # no bar while compiling
    progress.update(20)  # the first chunk (compile included) is counted as done when the bar starts
    progress.update(20)
    progress.close()
    assert made == [120]
    assert "kernels ready" in capsys.readouterr().err
    warm = _Progress(Bar, done=0, compiling=False)
    warm.update(5)
    assert made == [120, 0]


@pytest.mark.parametrize("shell", ["bash", "zsh", "tcsh"])
def test_shell_completion_lists_the_commands(capsys, shell):
    assert main(["completion", shell]) == 0
    script = capsys.readouterr().out
    words = ("simulate", "replay", "completion") + (("--json", "--html") if shell != "tcsh" else ())
    for word in words:  # (shtab's tcsh script completes commands and their choices, not options)
        assert word in script, word
    if shell == "bash" and shutil.which("bash"):
        assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0  # it parses


def test_tune_json_validates(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(textwrap.dedent('''
        name = "t"
        strategy = "simple"
        objective = "net_per_hand"
        rules = "tournament"
        trials = 2
        seed = 3
        [params]
        knock_at = { low = 0, high = 10 }
        [[opponents]]
        strategy = "simple"
        [budget]
        deals = 2_000
        min_deals = 2_000
        fresh_deals = 2_000
    '''))
    doc = run_json(capsys, "tune", str(spec), "--out", str(tmp_path / "out"), "--quiet", "--json",
                   "--summary", str(tmp_path / "summary.md"))
    validate(doc, "tune")
    (result,) = doc["results"]
    assert result["out"] == str(tmp_path / "out") and (tmp_path / "out" / "best.toml").is_file()
    assert result["fresh"]["units"] > 1 and result["fresh"]["no_interval"] is None
    assert doc["summary"] == str(tmp_path / "summary.md")
    # its report opens with its findings, and reads on a phone
    md = (tmp_path / "out" / "report.md").read_text()
    assert re.findall(r"^## (.+)$", md, flags=re.M)[:2] == ["Findings", "About this tuning"]
    assert "- Best policy found: simple:knock_at=" in md and "- Edge over " in md
    from chromium_probe import CHROMIUM, probe

    if CHROMIUM is not None:
        m = probe(tmp_path / "out" / "report.html", 390,
                  "return {page: document.documentElement.scrollWidth, h2: document.querySelector('h2').textContent};")
        assert m == {"page": 390, "h2": "Findings"}, m


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_the_quick_start_scratch_is_ignored_by_git():
    for path in ("results/quickstart/manifest.json", "results/quickstart/data/cell=0/x.parquet",
                 "results/qs/manifest.json"):
        done = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT)
        assert done.returncode == 0, path
    # the studies' reports stay tracked
    assert subprocess.run(["git", "check-ignore", "-q", "results/knock_vs_gin/report.md"], cwd=ROOT).returncode == 1
