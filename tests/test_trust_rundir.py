"""A run directory is data, nothing outside ``--out`` is touched, and every input is
bounded before work starts (issue "Trust, second pass", items 4-9 and 11 and the minors
about run directories).

Each test names the defect it guards against; each fails on the code before the fix."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from plugin_sources import greedy_plugin
from test_trustworthy_runs import TINY, read_rows, write

from simulator.cli import main
from simulator.run.experiment import ExperimentError, load_experiment, parse_experiment
from simulator.run.rundir import (
    LOCK,
    RunError,
    chunk_record,
    code_fingerprint,
    experiment_hash,
    load_plugins,
    manifest_hash,
    read_manifest,
)
from simulator.analysis.summary import format_summary, run_summaries
from simulator.run.runner import run_experiment

SWEPT = textwrap.dedent('''
    name = "swept"
    seed = 5
    deals = 200
    chunk = 100
    matchups = [["simple", "random"]]
    [sweep]
    "a.knock_at" = [0, 5]
''')


def error_line(capsys, argv: list, *words: str) -> str:
    """Run ``ginsim argv`` in this process: it must fail with one line naming ``words``."""
    assert main([str(a) for a in argv]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ginsim: error: "), lines
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def edit_manifest(run: Path, edit, rehash: bool = True) -> dict:
    """Apply ``edit`` to a run's manifest, recomputing its hashes as a hostile user can."""
    manifest = json.loads((run / "manifest.json").read_text())
    edit(manifest)
    if rehash:
        manifest["experiment_hash"] = experiment_hash(manifest["experiment"])
        manifest["manifest_hash"] = manifest_hash(manifest)
    (run / "manifest.json").write_text(json.dumps(manifest))
    return manifest


@pytest.fixture(scope="module")
def swept_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("swept")
    run_experiment(load_experiment(write(folder, SWEPT)), folder / "run", progress=False)
    return folder / "run"


@pytest.fixture
def run(tmp_path, swept_run) -> Path:
    """A copy of the swept run, to damage."""
    shutil.copytree(swept_run, tmp_path / "run")
    return tmp_path / "run"


# ---- item 4: manifest edits, replay against the stored row ---------------------------------

@pytest.mark.parametrize("rehash", [False, True])
def test_an_edited_cell_strategy_or_seed_is_refused(run, capsys, rehash):
    before = run_summaries(run)
    edit_manifest(run, lambda m: m["cells"][0].update(a="random"), rehash)
    for argv in (["show", run], ["report", run, "--out", run.parent / "rep"], ["replay", run, "--cell", 0,
                                                                                "--deal", 0]):
        error_line(capsys, argv, "cells[0].a" if rehash else "edited")
    edit_manifest(run, lambda m: m["cells"][0].update(a="simple:knock_at=0"), rehash)
    assert run_summaries(run) == before  # the cell as it was: intact again
    edit_manifest(run, lambda m: m["cells"][1].update(seed=m["cells"][1]["seed"] + 1), rehash)
    error_line(capsys, ["replay", run, "--cell", 1, "--deal", 0], "cells[1].seed" if rehash else "edited")


def test_a_format_2_run_is_verified_by_deriving_its_cells(run, capsys):
    def as_format_2(m):
        m["format"] = 2
        del m["manifest_hash"], m["plugin_sha256"], m["chunks"]

    before = run_summaries(run)
    edit_manifest(run, as_format_2, rehash=False)
    edit_manifest(run, lambda m: m["cells"][1].update(a="simple:knock_at=9"), rehash=False)
    error_line(capsys, ["show", run], "cells[1].a", "simple:knock_at=9")
    edit_manifest(run, lambda m: m["cells"][1].update(a="simple:knock_at=5"), rehash=False)
    # its chunks carry no digests: read only once sealed, by an explicit command
    error_line(capsys, ["show", run], "format 2", "no digest", f"ginsim seal {run}")
    assert main(["seal", str(run)]) == 0
    assert "recorded the digests of 4 chunk(s)" in capsys.readouterr().out
    assert read_manifest(run)["format"] == 4 and run_summaries(run) == before


def test_replay_refuses_a_deal_that_does_not_give_the_stored_row(run, capsys):
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    assert main(["replay", str(run), "--cell", "1", "--deal", "7"]) == 0
    capsys.readouterr()
    path = run / "data" / "cell-0001-chunk-00000.parquet"
    table = pq.read_table(path)
    i = table.schema.get_field_index("net_a")
    net = table["net_a"].to_pylist()
    net[7] += 10
    table = table.set_column(i, table.schema.field(i), pa.array(net, table.schema.field(i).type))
    pq.write_table(table, path)  # the provenance stays in the schema metadata
    assert pc.sum(pq.read_table(path)["net_a"]).as_py() is not None
    error_line(capsys, ["replay", run, "--cell", 1, "--deal", 7], "cell-0001-chunk-00000.parquet",
               "changed since ginsim wrote it")
    # a hostile user who records the edited chunk's digest too: the replay still catches it
    edit_manifest(run, lambda m: m["chunks"].update({"data/cell-0001-chunk-00000.parquet": chunk_record(
        path.read_bytes(), table.num_rows)}))
    error_line(capsys, ["replay", run, "--cell", 1, "--deal", 7], "replays to net_a", "the run stored")


# ---- item 5: a symlinked (or hard-linked) lock file ------------------------------------------

def test_a_linked_lock_file_never_writes_through(tmp_path, run, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    exp = write(tmp_path, SWEPT)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / LOCK).symlink_to(victim)
    error_line(capsys, ["run", exp, "--out", fresh, "--quiet"], "symbolic link", LOCK)
    (run / LOCK).unlink(missing_ok=True)
    (run / LOCK).symlink_to(victim)
    error_line(capsys, ["run", exp, "--out", run, "--quiet", "--resume"], "symbolic link")
    error_line(capsys, ["run", exp, "--out", run, "--quiet", "--force"], LOCK)
    # the same command again only reads the finished run (it takes no lock) and writes nothing
    assert main([str(a) for a in ["run", exp, "--out", run, "--quiet"]]) == 0
    capsys.readouterr()
    (run / LOCK).unlink()
    os.link(victim, run / LOCK)
    error_line(capsys, ["run", exp, "--out", run, "--quiet", "--resume"], "hard link")
    assert victim.read_text() == "precious\n"


def test_the_tune_lock_never_writes_through_a_link(tmp_path):
    from test_tune import write_spec

    from simulator.studies.tune import load_spec, tune

    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK).symlink_to(victim)
    with pytest.raises(ValueError, match="symbolic link"):  # TuneError
        tune(load_spec(write_spec(tmp_path / "spec.toml")), out, progress=False)
    assert victim.read_text() == "precious\n"


# ---- item 6: --force removes only the report files ginsim wrote, by name and content ---------

def test_force_keeps_a_users_copies_of_report_files(tmp_path, run, capsys):
    exp = write(tmp_path, SWEPT)
    assert main(["report", str(run)]) == 0
    png = sorted(run.glob("*.png"))[0]
    for copy, source in (("notes.md", run / "report.md"), ("mine.png", png)):
        shutil.copy(source, run / copy)
        error_line(capsys, ["run", exp, "--out", run, "--force", "--quiet"], copy)
        assert (run / copy).read_bytes() == source.read_bytes()
        (run / copy).unlink()
    # an edited report is the user's now
    (run / "report.md").write_text((run / "report.md").read_text() + "\nmy notes\n")
    error_line(capsys, ["run", exp, "--out", run, "--force", "--quiet"], "report.md")
    assert error_line(capsys, ["report", run], "report.md", "changed since")
    assert "my notes" in (run / "report.md").read_text()


def test_force_and_a_report_without_a_record_remove_only_the_reports_own_files(tmp_path, run, capsys):
    from simulator.analysis.rendering import REPORT_RECORD

    exp = write(tmp_path, SWEPT)
    assert main(["report", str(run)]) == 0
    (run / REPORT_RECORD).unlink()  # as an earlier ginsim left its reports
    shutil.copy(run / "report.md", run / "notes.md")
    error_line(capsys, ["run", exp, "--out", run, "--force", "--quiet"], "notes.md")
    (run / "notes.md").unlink()
    assert main(["run", str(exp), "--out", str(run), "--force", "--quiet"]) == 0
    assert sorted(p.name for p in run.iterdir()) == [LOCK, "data", "manifest.json"]


def test_force_removes_the_staging_folder_of_a_killed_report(tmp_path, run, capsys):
    exp = write(tmp_path, SWEPT)
    stage = run / ".ginsim-report-k1ll3d_x"
    stage.mkdir()
    (stage / "report.md").write_text("<!-- generated by ginsim report")
    (stage / "net_points.png").write_bytes(b"")
    assert main(["run", str(exp), "--out", str(run), "--force", "--quiet"]) == 0
    assert not stage.exists()
    stage.mkdir()
    (stage / "mine.txt").write_text("not a report's")
    error_line(capsys, ["run", exp, "--out", run, "--force", "--quiet"], "mine.txt")


# ---- item 7: symlinked data/ ------------------------------------------------------------------

def test_resume_never_writes_through_a_symlinked_data_folder(tmp_path, run, capsys):
    elsewhere = tmp_path / "elsewhere"
    shutil.move(run / "data", elsewhere)
    (run / "data").symlink_to(elsewhere)
    (elsewhere / "cell-0001-chunk-00001.parquet").unlink()
    edit_manifest(run, lambda m: m.update(complete=False), rehash=False)
    error_line(capsys, ["run", write(tmp_path, SWEPT), "--out", run, "--resume", "--quiet"], "data",
               "symbolic link")
    assert sorted(p.name for p in elsewhere.iterdir()) == [f"cell-000{c}-chunk-0000{i}.parquet"
                                                          for c, i in ((0, 0), (0, 1), (1, 0))]


# ---- item 8: a run directory's plug-ins are code, run only when trusted ----------------------

@pytest.fixture(scope="module")
def plugin_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("plug")
    (folder / "trusted_steady.py").write_text(greedy_plugin("trusted_steady"))
    text = TINY.replace('["simple", "random"]', '["trusted_steady", "random"]') + '[plugins]\ntrusted_steady = "trusted_steady.py"\n'
    run_experiment(load_experiment(write(folder, text)), folder / "run", progress=False)
    return folder / "run"


def test_replay_runs_a_runs_plugins_only_when_trusted(plugin_run, capsys, monkeypatch):
    import strategies

    calls = []
    register = strategies.register
    monkeypatch.setattr(strategies, "register", lambda name, path: calls.append(name) or register(name, path))
    manifest = read_manifest(plugin_run)
    assert set(manifest["plugin_sha256"]) == {"trusted_steady"}
    error_line(capsys, ["replay", plugin_run, "--cell", 0, "--deal", 0], "plug-in code", "--trust-plugins")
    assert calls == []
    assert main(["replay", str(plugin_run), "--cell", "0", "--deal", "0", "--trust-plugins"]) == 0
    assert calls == ["trusted_steady"] and "trusted_steady" in capsys.readouterr().out


def test_a_crafted_plugin_is_never_imported(tmp_path, plugin_run, capsys, monkeypatch):
    marker = tmp_path / "ran"
    (tmp_path / "evil.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    manifest = read_manifest(plugin_run)
    monkeypatch.chdir(tmp_path)
    for path, sha in (("evil.py", None), (str(tmp_path / "evil.py"), "0" * 64)):
        manifest["experiment"]["plugins"] = {"evil": path}
        manifest["plugin_sha256"] = {"evil": sha}
        for trust in (False, True):
            with pytest.raises(RunError, match="--trust-plugins" if not trust else "relative|not the file"):
                load_plugins(plugin_run, manifest, trust)
    assert not marker.exists()
    # and the whole path: a run directory naming evil.py beside it, hashes recomputed
    crafted = tmp_path / "crafted"
    shutil.copytree(plugin_run, crafted)
    shutil.copy(tmp_path / "evil.py", crafted / "evil.py")

    def add_evil(m):
        m["experiment"]["plugins"]["evil"] = "evil.py"
        m["plugin_sha256"]["evil"] = "0" * 64
        m["code_fingerprint"] = code_fingerprint(m["experiment"]["plugins"])

    monkeypatch.chdir(crafted)
    edit_manifest(crafted, add_evil)
    for argv in (["replay", ".", "--cell", 0, "--deal", 0], ["show", "."], ["report", ".", "--out", "rep"]):
        main([str(a) for a in argv])
    assert not marker.exists()


# ---- item 9: bounded before work starts --------------------------------------------------------

def test_sizes_are_bounded_before_anything_is_planned(tmp_path):
    base = {"name": "big", "deals": 1000, "chunk": 500, "matchups": [["undercut_aware", "knock_policy"]]}
    keys = ["a.max_risk", "a.start", "a.stock_decay", "a.take_decay", "b.early", "b.turn_a", "b.late", "b.turn_b"]
    with pytest.raises(ExperimentError, match=r"sweep: 100,000,000 cells .*, at most [\d,]+ .* sweep fewer"):
        parse_experiment({**base, "sweep": {k: list(range(10)) for k in keys}})
    with pytest.raises(ExperimentError, match=r"chunk: 1,099,511,627,776 deals per file need about .* give chunk ="):
        parse_experiment({**base, "deals": 2**40, "chunk": 2**40})
    with pytest.raises(ExperimentError, match="chunk: 100,000,000 deals per file"):
        parse_experiment({**base, "deals": 10**8, "chunk": 10**8})
    with pytest.raises(ExperimentError, match="name: 300 characters, at most 255"):
        parse_experiment({**base, "name": "n" * 300})
    exp = parse_experiment({**base, "deals": 2**40})
    with pytest.raises(RunError, match=r"deals/games: .* rows to write need about .* TB on disk"):
        run_experiment(exp, tmp_path / "out", progress=False)
    with pytest.raises(RunError, match=r"--jobs 100000: 100,000 worker processes with their chunks need about .* "
                                       r"give --jobs [\d,]+ or less"):
        run_experiment(parse_experiment(base), tmp_path / "out", jobs=100_000, progress=False)
    assert not (tmp_path / "out").exists()


def test_jobs_never_exceed_the_chunks_to_play(tmp_path, monkeypatch):
    import joblib

    seen = []

    class Parallel:
        def __init__(self, n_jobs=None, **kwargs):
            seen.append(n_jobs)

        def __call__(self, tasks):
            raise KeyboardInterrupt  # stop before any worker starts

    monkeypatch.setattr(joblib, "Parallel", Parallel)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(load_experiment(write(tmp_path, TINY.replace("chunk = 100", "chunk = 200"))), tmp_path / "r",
                       jobs=16, progress=False)
    assert seen == [2]


# ---- item 11: crafted experiment fields ------------------------------------------------------

@pytest.mark.parametrize("field, value", [("chunk", 0), ("deals", "6000"), ("mirrored", "yes"), ("seed", -1)])
def test_a_crafted_experiment_field_is_one_line(run, capsys, field, value):
    edit_manifest(run, lambda m: m["experiment"].update({field: value}))
    for argv in (["show", run], ["report", run, "--out", run.parent / "rep"], ["replay", run, "--cell", 0,
                                                                                "--deal", 0]):
        error_line(capsys, argv, f"experiment.{field}")


# ---- minors ------------------------------------------------------------------------------------

def test_a_chunk_damaged_inside_is_named_and_repaired_by_resume(tmp_path, run, swept_run, capsys):
    import pyarrow.parquet as pq

    victim = run / "data" / "cell-0001-chunk-00000.parquet"
    data = bytearray(victim.read_bytes())
    meta = pq.read_metadata(victim)
    column = meta.row_group(0).column(meta.schema.names.index("net_a"))
    start = column.data_page_offset
    data[start + 20:start + 40] = b"\xff" * 20  # inside the page, the footer intact
    victim.write_bytes(bytes(data))
    assert pq.read_metadata(victim).num_rows == meta.num_rows
    error_line(capsys, ["show", run], "cell-0001-chunk-00000.parquet", "--resume")
    edit_manifest(run, lambda m: m.update(complete=False), rehash=False)
    assert main(["run", str(write(tmp_path, SWEPT)), "--out", str(run), "--resume", "--quiet"]) == 0
    assert "re-playing 1 truncated or damaged" in capsys.readouterr().err
    pd.testing.assert_frame_equal(read_rows(run), read_rows(swept_run))


def test_show_prints_whole_labels_on_one_line():
    summary = pd.DataFrame({"cell": [0, 1, 2], "rows": [10, 10, 10], "net_a": [0.5, 1.0, 1.5], "ci95": [0.1] * 3,
                            "matchup": ["undercut_aware:max_risk=0.25,start=12,stock_decay=0.1 vs knock_policy",
                                        "undercut_aware:max_risk=0.25,start=12,stock_decay=0.2 vs knock_policy",
                                        "simple vs random"],
                            "variant": ["hoyle", "a\nb", "oklahoma_150_long_name"]})
    lines = format_summary(summary).splitlines()
    assert len(lines) == 4
    assert "stock_decay=0.1 vs knock_policy" in lines[1] and "stock_decay=0.2 vs knock_policy" in lines[2]
    assert "a\\nb" in lines[2] and "oklahoma_150_long_name" in lines[3]


def test_scheduler_without_the_dask_backend_is_refused(tmp_path, capsys):
    error_line(capsys, ["run", write(tmp_path, TINY), "--out", tmp_path / "r", "--scheduler", "tcp://h:8786"],
               "--scheduler", "--backend dask")
    assert not (tmp_path / "r").exists()


def test_report_control_plays_a_runs_plugins_only_when_trusted(plugin_run, tmp_path, capsys):
    """``ginsim report --control`` plays the run's strategies again, so a plug-in's code runs
    only with ``--trust-plugins``; refused, it writes nothing."""
    out = tmp_path / "report"
    error_line(capsys, ["report", plugin_run, "--out", out, "--control", "self"], "plug-in code", "--trust-plugins")
    assert not out.exists()
    assert main(["report", str(plugin_run), "--out", str(out), "--control", "self", "--trust-plugins"]) == 0
    assert "## Estimates with control variates" in (out / "report.md").read_text()
