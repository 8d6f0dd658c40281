"""Runs that are never silently wrong: provenance in every chunk, verification before any
reuse, one writer per run directory, exact sweep values, one schema per run, files of
others left alone, and one-line errors instead of tracebacks.

Each test names the defect it guards against (issue "Trustworthy runs", items 2–12 and
the one-line list)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from cli_runner import ginsim as cli, one_line_error
from paused_cli import start_paused, wait_until_paused
from plugin_sources import greedy_plugin

from simulator.run.experiment import ExperimentError, load_experiment
from simulator.run.rundir import FORMAT, Plan, RunError, RunLock, create_manifest, read_manifest, verify_run
from simulator.analysis.summary import run_summaries
from simulator.run.runner import run_experiment

TINY = textwrap.dedent('''
    name = "tiny"
    seed = 3
    deals = 400
    chunk = 100
    matchups = [["simple", "random"]]
''')



def write(folder: Path, text: str, name: str = "exp.toml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def read_rows(run: Path) -> pd.DataFrame:
    return pd.read_parquet(run / "data").sort_values(["cell", "deal"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny")
    run_experiment(load_experiment(write(folder, TINY)), folder / "run", progress=False)
    return folder / "run"


# ---- item 2: code changes are caught by --resume and replay ---------------------------------

def test_resume_and_replay_refuse_a_run_played_by_other_code(tmp_path):
    plugin = tmp_path / "steady.py"
    plugin.write_text(greedy_plugin("steady"))
    text = TINY + '[plugins]\nsteady = "steady.py"\n'
    path = write(tmp_path, text.replace('["simple", "random"]', '["steady", "random"]'))
    run = tmp_path / "run"
    run_experiment(load_experiment(path), run, progress=False)
    manifest = read_manifest(run)
    # make the run unfinished, then edit the plug-in: the two halves would mix code
    (run / "data" / "cell-0000-chunk-00003.parquet").unlink()
    manifest["complete"] = False
    (run / "manifest.json").write_text(json.dumps(manifest))
    plugin.write_text(greedy_plugin("steady", knock="False"))
    done = cli("run", path, "--out", run, "--resume", "--quiet")
    one_line_error(done, "played by other code", "fingerprint")
    assert not (run / "data" / "cell-0000-chunk-00003.parquet").exists()
    done = cli("replay", run, "--cell", 0, "--deal", 0)
    one_line_error(done, "other code")


def test_every_chunk_carries_its_provenance(tiny_run):
    import pyarrow.parquet as pq

    manifest = read_manifest(tiny_run)
    for i, path in enumerate(sorted((tiny_run / "data").glob("*.parquet"))):
        prov = json.loads(pq.read_metadata(path).metadata[b"ginsim"])
        assert prov == {"format": FORMAT, "run_id": manifest["run_id"], "experiment_hash": manifest["experiment_hash"],
                        "code_fingerprint": manifest["code_fingerprint"], "mode": "deals", "cell": 0,
                        "chunk": i, "start": 100 * i, "count": 100}


# ---- item 3: chunks of another run, truncated chunks ----------------------------------------

def test_chunks_of_another_run_are_never_reused(tmp_path, tiny_run):
    import shutil

    other = tmp_path / "other"
    shutil.copytree(tiny_run, other)
    (other / "manifest.json").unlink()
    e2 = write(tmp_path, TINY.replace('name = "tiny"', 'name = "e2"').replace("seed = 3", "seed = 4"), "e2.toml")
    done = cli("run", e2, "--out", other, "--quiet")
    one_line_error(done, "not empty and holds no ginsim run")
    assert not (other / "manifest.json").exists()

    # a chunk copied in from another run is named, by show, report and --resume
    fresh = tmp_path / "fresh"
    exp2 = load_experiment(e2)
    run_experiment(exp2, fresh, progress=False)
    shutil.copy(tiny_run / "data" / "cell-0000-chunk-00001.parquet", fresh / "data" / "cell-0000-chunk-00001.parquet")
    for args in (("show", fresh), ("report", fresh, "--out", tmp_path / "rep")):
        one_line_error(cli(*args), "not written by this run", "cell-0000-chunk-00001")
    manifest = read_manifest(fresh)
    manifest["complete"] = False
    (fresh / "manifest.json").write_text(json.dumps(manifest))
    one_line_error(cli("run", e2, "--out", fresh, "--resume", "--quiet"), "not written by this run")
    # an unexpected file is named too, and never read
    (fresh / "data" / "cell-0000-chunk-00001.parquet").unlink()
    (fresh / "data" / "extra.parquet").write_bytes(b"not parquet")
    with pytest.raises(RunError, match="extra.parquet"):
        run_summaries(fresh)


def test_a_truncated_chunk_is_named_and_replayed_on_resume(tmp_path, tiny_run):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    victim = run / "data" / "cell-0000-chunk-00002.parquet"
    victim.write_bytes(victim.read_bytes()[:500])
    manifest = read_manifest(run)
    manifest["complete"] = False
    (run / "manifest.json").write_text(json.dumps(manifest))
    one_line_error(cli("show", run), "truncated", "cell-0000-chunk-00002")
    path = write(tmp_path, TINY)
    done = cli("run", path, "--out", run, "--resume", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "re-playing 1 truncated" in done.stderr
    pd.testing.assert_frame_equal(read_rows(run), read_rows(tiny_run))
    assert read_manifest(run)["complete"]


def test_a_chunk_with_too_few_rows_is_truncated_not_complete(tmp_path, tiny_run):
    import shutil

    import pyarrow.parquet as pq

    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    victim = run / "data" / "cell-0000-chunk-00000.parquet"
    table = pq.read_table(victim)
    pq.write_table(table.slice(0, 50).replace_schema_metadata(table.schema.metadata), victim)
    verification = verify_run(run, read_manifest(run))
    assert verification.damaged == ["data/cell-0000-chunk-00000.parquet"] and not verification.complete


# ---- item 4: one writer ------------------------------------------------------------------------

def test_a_locked_run_directory_is_refused_naming_the_holder(tmp_path):
    path = write(tmp_path, TINY)
    out = tmp_path / "run"
    out.mkdir()
    with RunLock(out, "experiment 'holder'"):
        done = cli("run", path, "--out", out, "--quiet")
    one_line_error(done, "in use by another ginsim run", f"pid {os.getpid()}", "holder")
    assert not (out / "manifest.json").exists()
    # the lock is free again: the run goes through
    assert cli("run", path, "--out", out, "--quiet").returncode == 0


def test_two_runs_started_at_once_never_mix(tmp_path):
    e1 = write(tmp_path, TINY.replace("deals = 400", "deals = 4000").replace("chunk = 100", "chunk = 200"))
    e2 = write(tmp_path, TINY.replace('name = "tiny"', 'name = "e2"').replace("deals = 400", "deals = 4000")
               .replace("chunk = 100", "chunk = 200"), "e2.toml")
    out = tmp_path / "run"
    procs = [subprocess.Popen([sys.executable, "-m", "simulator.cli", "run", str(e), "--out", str(out), "--quiet"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for e in (e1, e2)]
    results = [p.communicate(timeout=600) + (p.returncode,) for p in procs]
    assert sorted(r[2] for r in results) == [0, 2], results
    loser = next(r for r in results if r[2] == 2)
    assert "in use by another ginsim run" in loser[1] or "already holds" in loser[1]
    manifest = read_manifest(out)
    assert verify_run(out, manifest).complete


def test_the_manifest_is_created_exclusively(tmp_path):
    manifest = {"run_id": "a" * 32}
    create_manifest(tmp_path, manifest)
    with pytest.raises(RunError, match="already holds a run"):
        create_manifest(tmp_path, {"run_id": "b" * 32})
    assert json.loads((tmp_path / "manifest.json").read_text())["run_id"] == "a" * 32


# ---- item 5 and 9: exact sweep values, one schema per run ---------------------------------

def test_sweep_values_are_played_and_labelled_exactly_with_one_schema(tmp_path):
    text = textwrap.dedent('''
        name = "exact"
        deals = 20
        chunk = 10
        matchups = [["random", "random"], ["simple", "random"]]
        [sweep]
        "a.knock_at" = [0.2000001, 0.2000004, 1234567]
    ''')
    exp = load_experiment(write(tmp_path, text))
    labels = [c.a for c in exp.cells()]
    assert labels == ["random", "simple:knock_at=0.2000001", "simple:knock_at=0.2000004", "simple:knock_at=1234567"]
    import strategies

    assert [strategies.parse_strategy(a).values.get("knock_at") for a in labels[1:]] == [0.2000001, 0.2000004,
                                                                                        1234567.0]
    run_experiment(exp, tmp_path / "run", progress=False)
    df = pd.read_parquet(tmp_path / "run" / "data")  # one dataset: the sweep column survives
    by_cell = df.groupby("cell")["a.knock_at"].first()
    assert pd.isna(by_cell[0]) and list(by_cell[1:]) == [0.2000001, 0.2000004, 1234567.0]
    import pyarrow.parquet as pq

    schemas = {str(pq.read_schema(p).remove_metadata()) for p in (tmp_path / "run" / "data").glob("*.parquet")}
    assert len(schemas) == 1


@pytest.mark.parametrize("values, message", [
    ("[nan]", "finite"), ("[inf, 1]", "finite"), ("[9007199254740993]", "not exactly representable"),
    ("[1, 1.0]", "distinct"),
])
def test_bad_sweep_values_are_refused(tmp_path, values, message):
    text = f'name = "x"\ndeals = 10\nmatchups = [["simple", "random"]]\n[sweep]\n"a.knock_at" = {values}\n'
    with pytest.raises(ExperimentError, match=message):
        load_experiment(write(tmp_path, text))


# ---- item 10: other people's files ---------------------------------------------------------------

def test_a_directory_that_is_not_a_run_is_left_untouched(tmp_path):
    out = tmp_path / "mine"
    (out / "data").mkdir(parents=True)
    (out / "data" / ".keep.tmp").write_text("mine")
    (out / "data" / "cell-0000-chunk-00000.parquet").write_text("my own file")
    done = cli("run", write(tmp_path, TINY), "--out", out, "--quiet")
    one_line_error(done, "not empty and holds no ginsim run")
    assert sorted(p.name for p in (out / "data").iterdir()) == [".keep.tmp", "cell-0000-chunk-00000.parquet"]
    assert sorted(p.name for p in out.iterdir()) == ["data"]


def test_resume_removes_only_its_own_temporary_files(tmp_path, tiny_run):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    manifest = read_manifest(run)
    manifest["complete"] = False
    (run / "manifest.json").write_text(json.dumps(manifest))
    ours = run / "data" / f".cell-0000-chunk-00001.parquet.{manifest['run_id'][:12]}-99999.tmp"
    theirs = run / "data" / ".cell-0000-chunk-00001.parquet.someoneelse-1.tmp"
    ours.write_text("half written")
    theirs.write_text("not ginsim's")
    with pytest.raises(RunError, match="not written by this run"):
        run_experiment(load_experiment(write(tmp_path, TINY)), run, resume=True, progress=False)
    theirs.unlink()
    run_experiment(load_experiment(write(tmp_path, TINY)), run, resume=True, progress=False)
    assert not ours.exists()


# ---- item 12: reports ---------------------------------------------------------------------------

def test_report_refuses_a_run_without_data_and_keeps_the_old_report(tmp_path, tiny_run):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    shutil.rmtree(run / "data")
    (run / "report.md").write_text("a full report\n")
    one_line_error(cli("report", run), "missing")
    assert (run / "report.md").read_text() == "a full report\n"


def test_report_never_overwrites_a_users_file_but_replaces_its_own(tmp_path, tiny_run):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "report.md").write_text("my notes\n")
    one_line_error(cli("report", tiny_run, "--out", out), "report.md", "not written by ginsim")
    assert (out / "report.md").read_text() == "my notes\n"
    assert sorted(p.name for p in out.iterdir()) == ["report.md"]  # nothing else was left
    (out / "report.md").unlink()
    assert cli("report", tiny_run, "--out", out).returncode == 0
    first = (out / "report.md").read_text()
    assert cli("report", tiny_run, "--out", out).returncode == 0  # its own files are replaced
    assert (out / "report.md").read_text() == first


# ---- show on unfinished runs -------------------------------------------------------------------

def test_show_says_an_unfinished_run_is_unfinished_in_its_first_line(tmp_path, tiny_run):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    (run / "data" / "cell-0000-chunk-00001.parquet").unlink()
    done = cli("show", run)
    assert done.returncode == 0
    first = done.stdout.splitlines()[0]
    assert first.startswith("UNFINISHED RUN") and "1 of 4 chunk(s) missing" in first
    assert "cell-0000-chunk-00001" in first
    intact = cli("show", tiny_run)
    assert intact.returncode == 0 and intact.stdout.startswith("single hands")


# ---- one line, never a traceback -----------------------------------------------------------------

BASE = 'name = "x"\ndeals = 10\nmatchups = [["simple", "random"]]\n'


@pytest.mark.parametrize("text, words", [
    ('name = "."\ndeals = 10\nmatchups = [["simple", "random"]]\n', ["name: must be letters"]),
    ('name = ".."\ndeals = 10\nmatchups = [["simple", "random"]]\n', ["name: must be letters"]),
    (BASE + '[variants.v]\npreset = ["hoyle"]\n', ["variants.v", "unknown rules preset ['hoyle']"]),
    (BASE + 'mirrored = "no"\n', ["mirrored: must be true or false"]),
    (BASE + '[sweep]\n"a.knock_at" = [nan]\n', ["sweep.a.knock_at", "finite"]),
    ('name = "x"\ndeals = 2_000_000_000_000\nmatchups = [["simple", "random"]]\n', ["deals: at most 2**40"]),
])
def test_bad_experiment_files_get_one_line(tmp_path, text, words):
    done = cli("run", write(tmp_path, text), "--out", tmp_path / "out")
    one_line_error(done, *words)
    assert not (tmp_path / "out").exists()


def test_bad_files_and_arguments_get_one_line(tmp_path):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(BASE.encode() + b'description = "caf\xe9"\n')
    one_line_error(cli("run", bad), "latin1.toml", "not UTF-8")
    one_line_error(cli("run", "/dev/zero"), "/dev/zero", "not a regular file")
    one_line_error(cli("run", write(tmp_path, BASE), "--out", ""), "--out")
    one_line_error(cli("run", write(tmp_path, BASE), "--games", 10, "--out", tmp_path / "o"), "--games", "no games")
    one_line_error(cli("simulate", "simple", "simple", "--deals", 0), "--deals must be a positive integer")
    one_line_error(cli("simulate", "simple:knock_at=nan", "random"), "knock_at", "finite")
    shapeless = tmp_path / "shapeless"
    shapeless.mkdir()
    (shapeless / "manifest.json").write_text('["not", "a", "manifest"]')
    one_line_error(cli("show", shapeless), "not a ginsim manifest")
    (shapeless / "manifest.json").write_text('{"format": 2, "run_id": 7}')
    one_line_error(cli("show", shapeless), "not a ginsim manifest", "run_id")


def test_a_huge_experiment_is_planned_at_once(tmp_path, monkeypatch):
    exp = load_experiment(write(tmp_path, 'name = "huge"\ndeals = 1_000_000_000_000\nmatchups = [["simple", "random"]]\n'))
    made = []
    chunk = Plan.chunk
    monkeypatch.setattr(Plan, "chunk", lambda self, *a: made.append(a) or chunk(self, *a))
    plan = Plan.from_experiment(exp.to_dict(), len(exp.cells()))
    assert plan.n_chunks() == 10_000_000 and plan.total_rows() == 10**12
    first = next(iter(plan))
    assert (first.start, first.count) == (0, 100_000)
    assert len(made) == 1  # counted and started without making the other 9,999,999 chunks


def test_output_piped_into_head_ends_quietly(tmp_path):
    done = subprocess.run(f"{sys.executable} -m simulator.cli variants | head -n 1", shell=True, capture_output=True,
                          text=True)
    assert done.stdout.startswith("presets") and "Traceback" not in done.stderr and "Error" not in done.stderr


def test_local_workers_exit_when_the_main_process_is_killed(tmp_path):
    import signal

    text = TINY.replace("deals = 400", "deals = 2_000_000").replace("chunk = 100", "chunk = 20_000")
    path = write(tmp_path, text)
    flag = tmp_path / "paused"  # the main process freezes once the first chunk has landed, workers alive
    proc = start_paused(flag, 1, "run", path, "--out", tmp_path / "run", "--quiet", "--jobs", "2",
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_paused(proc, flag)
    except BaseException:
        proc.kill()
        proc.wait()
        raise

    def workers() -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    children = workers()
    assert children, "the run should have started worker processes"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 20
    alive = children
    while alive and time.time() < deadline:
        time.sleep(0.2)
        alive = [p for p in alive if _alive(p)]
    assert not alive, f"workers {alive} outlived the main process"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_the_lock_file_is_the_only_trace_of_a_run_that_could_not_start(tmp_path):
    out = tmp_path / "run"
    done = cli("run", write(tmp_path, BASE.replace('"random"', '"nobody"')), "--out", out)
    one_line_error(done, "unknown strategy")
    assert not out.exists()
