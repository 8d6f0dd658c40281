"""Trust, third pass (issue 39): a run directory proves its own numbers, and nothing hangs,
escapes or crashes.

Each test names the defect or the principle it guards; each fails on the code before the
fix.  The principles are each one function (``simulator.infra.inputs``,
``simulator.infra.terminal``, ``simulator.run.rundir``) that every command calls; their own
tests come first, then the red team's probes through the command line."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import threading
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_runner import ginsim, one_line_error
from test_trustworthy_runs import TINY, read_rows, tiny_run, write  # noqa: F401  (tiny_run: a fixture)

from simulator.run.rundir import MANIFEST, REPORT_RECORD, RunError, experiment_hash, manifest_hash, read_manifest

# (the functions this issue adds are imported inside the tests that use them, so that this
# file also runs against the code before them, where each test fails)

CHUNK = "data/cell-0000-chunk-00001.parquet"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def run(tmp_path, tiny_run) -> Path:
    """A copy of the tiny run (400 deals of simple vs random in four chunks), to damage."""
    shutil.copytree(tiny_run, tmp_path / "run")
    return tmp_path / "run"


def rehash(run: Path, edit) -> None:
    """Edit a run's manifest and recompute its hashes, as a hostile user can."""
    manifest = json.loads((run / MANIFEST).read_text())
    edit(manifest)
    manifest["experiment_hash"] = experiment_hash(manifest["experiment"])
    manifest["manifest_hash"] = manifest_hash(manifest)
    (run / MANIFEST).write_text(json.dumps(manifest))


def edit_chunk(path: Path, points: int = 50) -> None:
    """What the red team did: a plain pyarrow read/modify/write of one chunk (its provenance
    metadata rides along), moving A's net points."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    i = table.schema.get_field_index("net_a")
    net = [v + points for v in table["net_a"].to_pylist()]
    pq.write_table(table.set_column(i, table.schema.field(i), pa.array(net, table.schema.field(i).type)), path)


@contextlib.contextmanager
def deadline(seconds: float, fifo: Path):
    """Fail instead of hanging on ``fifo``: once ``seconds`` have passed, a thread keeps
    opening and closing its write end, which lets any reader blocked on it go, and the
    test fails (a blocked open in C code never returns to Python for a signal to stop it)."""
    done, fired = threading.Event(), []

    def release() -> None:
        if done.wait(seconds):
            return
        fired.append(True)
        while not done.wait(0.05):
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    watcher = threading.Thread(target=release, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
    assert not fired, f"a reader blocked on {fifo} for more than {seconds} s"


# ---- the principles, each one function ----------------------------------------------------

def test_read_regular_opens_no_link_and_never_waits(tmp_path):
    from simulator.infra import inputs

    (tmp_path / "real.json").write_text('{"a": 1}')
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    os.mkfifo(tmp_path / "fifo.json")
    (tmp_path / "sub").symlink_to(tmp_path)
    assert inputs.read_json("real.json", "a doc", within=tmp_path) == {"a": 1}
    with deadline(10, tmp_path / "fifo.json"):
        for name, words in (("link.json", "symbolic link"), ("fifo.json", "is a FIFO, not a regular file"),
                            ("sub/real.json", "symbolic link"), ("../x.json", "not a plain path"),
                            ("nothing.json", "no such file")):
            with pytest.raises(ValueError, match=words):
                inputs.read_json(name, "a doc", within=tmp_path)
        with pytest.raises(ValueError, match="character device"):
            inputs.read_regular("/dev/zero", "a doc", 100)
    (tmp_path / "big.json").write_text("1" * 200)
    with pytest.raises(ValueError, match="200 bytes; a doc is at most 100 bytes"):
        inputs.read_json("big.json", "a doc", limit=100, within=tmp_path)


def test_json_and_toml_are_bounded_in_nesting_before_parsing(tmp_path):
    from simulator.infra import inputs

    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(ValueError, match="nested more than 64 deep"):
        inputs.parse_json(deep, "doc")
    # brackets inside strings (and TOML comments) are text, not nesting
    assert inputs.parse_json('{"a": "' + "[" * 200 + '"}', "doc") == {"a": "[" * 200}
    path = tmp_path / "x.toml"
    path.write_text('a = "' + "[" * 200 + "\"\n# " + "{" * 200 + "\nb = [[1], [2]]\n")
    assert inputs.read_toml(path, "an experiment file")["b"] == [[1], [2]]
    path.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ValueError, match=f"{path}: arrays or tables nested more than 64 deep"):
        inputs.read_toml(path, "an experiment file")


def test_inside_work_keeps_paths_in_the_working_directory_or_out(tmp_path, monkeypatch):
    from simulator.infra import inputs

    monkeypatch.chdir(tmp_path)
    (tmp_path / "escape").symlink_to(tmp_path.parent)
    assert inputs.inside_work("a/../b", "out") == Path("a/../b")
    for path in ("a/../../x", "/etc", "escape/x"):
        with pytest.raises(ValueError, match=r"^out: .* outside .*; ginsim writes only inside the working directory"):
            inputs.inside_work(path, "out")
    assert inputs.inside_work(tmp_path.parent / "elsewhere", "out", roots=[tmp_path.parent]) is not None


def test_sizes_are_checked_against_memory_and_disk(tmp_path):
    from simulator.infra import inputs

    budget = inputs.memory_budget()
    assert inputs.memory_problem(10, 100, "deals", "give fewer") is None
    problem = inputs.memory_problem(budget, 100, "deals", "give --deals {most} or fewer", step=2)
    assert problem.startswith(f"{budget:,} deals need about ") and "half this machine's memory" in problem
    assert f"give --deals {budget // 100 // 2 * 2:,} or fewer" in problem
    with pytest.raises(ValueError, match=r"^--x: .* on disk, and .* free at "):
        inputs.check_disk("--x", tmp_path / "not" / "yet", 10**15, 12, "rows", "give fewer")


@pytest.mark.parametrize("kind, good, bad", [
    ("int", [0, 5, np.int64(3)], [1.5, True, "3", np.float64(2.0), None]),
    ("number", [0, 2.5, np.float32(1)], [float("nan"), float("inf"), False, "1"]),
    ("bool", [True, False, np.bool_(True)], ["no", 0, 1, None]),
])
def test_python_arguments_are_checked_as_the_toml_keys_are(kind, good, bad):
    from simulator.infra import inputs

    from simulator.run.config import Key

    for value in good:
        assert inputs.argument("x", value, kind) == value
    for value in bad:
        with pytest.raises(ValueError, match=f"^x must be {Key('x', kind).allowed}, got "):
            inputs.argument("x", value, kind)


def test_text_from_data_is_escaped_and_any_encoding_works():
    from simulator.infra.terminal import TerminalStream, printable

    assert printable("a\x1b[31mred\x07\u202e\nb\tc") == "a\\x1b[31mred\\x07\\u202e\nb\tc"
    assert printable("x\ny", keep_lines=False) == "x\\ny"
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    TerminalStream(stream).write("net ± 95% — ♠ \x1b[2J 日\n")
    stream.flush()
    assert raw.getvalue() == b"net +/- 95% -- s \\x1b[2J \\u65e5\n"


def test_a_sealed_document_refuses_an_edit(tmp_path):
    from simulator.run.rundir import check_seal, seal

    doc = seal({"claims": [{"estimate": 1.5}], "study": "s"})
    assert check_seal(json.loads(json.dumps(doc)), tmp_path, "fix it") == doc
    doc["claims"][0]["estimate"] = 9.0
    with pytest.raises(RunError, match="edited since ginsim wrote it .*; fix it"):
        check_seal(doc, tmp_path, "fix it")
    with pytest.raises(RunError, match="not sealed"):
        check_seal({"study": "s"}, tmp_path, "fix it")


# ---- bug 1: a run proves its numbers ---------------------------------------------------------

def test_the_manifest_records_each_chunks_digest_and_rows(run):
    from simulator.run.rundir import read_chunk

    manifest = read_manifest(run)
    assert manifest["format"] == 4
    chunks = sorted(p.relative_to(run).as_posix() for p in (run / "data").iterdir())
    assert sorted(manifest["chunks"]) == chunks
    for rel in chunks:
        data = (run / rel).read_bytes()
        assert manifest["chunks"][rel] == {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                                           "rows": 100}
        assert read_chunk(run, rel, manifest) == data


def test_a_chunk_edited_in_place_is_refused_by_every_reader(run, tmp_path):
    before = ginsim("show", run).stdout
    edit_chunk(run / CHUNK)
    for argv in (["show", run], ["show", run, "--json"], ["report", run, "--out", tmp_path / "rep"],
                 ["replay", run, "--cell", 0, "--deal", 150]):
        one_line_error(ginsim(*argv), CHUNK, "changed since ginsim wrote it", "--resume")
    assert not (tmp_path / "rep").exists()
    # reuse: the same command again does not show the changed run as finished
    one_line_error(ginsim("run", write(tmp_path, TINY), "--out", run, "--quiet"), "already holds a finished run")
    # --resume proves every chunk's bytes and plays the changed one again
    rehash(run, lambda m: m.update(complete=False))
    done = ginsim("run", write(tmp_path, TINY), "--out", run, "--resume", "--quiet")
    assert done.returncode == 0 and "re-playing 1 truncated or damaged chunk(s)" in done.stderr
    assert ginsim("show", run).stdout == before


def test_a_chunk_written_but_not_recorded_is_played_again(run, tiny_run, tmp_path):
    rehash(run, lambda m: (m["chunks"].pop(CHUNK), m.update(complete=False)))
    shown = ginsim("show", run)
    assert shown.returncode == 0 and "written but not recorded in the manifest" in shown.stdout
    one_line_error(ginsim("report", run), "not recorded", "--resume")
    assert ginsim("run", write(tmp_path, TINY), "--out", run, "--resume", "--quiet").returncode == 0
    assert read_manifest(run)["chunks"] == read_manifest(tiny_run)["chunks"]
    pd.testing.assert_frame_equal(read_rows(run), read_rows(tiny_run))


def test_a_run_of_an_earlier_ginsim_is_read_only_once_sealed(run, tiny_run):
    def as_format_3(m):
        m["format"] = 3
        del m["chunks"]

    rehash(run, as_format_3)
    for argv in (["show", run], ["report", run], ["replay", run, "--cell", 0, "--deal", 0]):
        one_line_error(ginsim(*argv), "format 3", "recorded no digest", f"ginsim seal {run}")
    edit_chunk(run / CHUNK)  # sealing vouches for the chunks as they are: it checks provenance and pages first
    (run / "data" / "cell-0000-chunk-00003.parquet").write_bytes(b"PAR1 not a chunk")
    one_line_error(ginsim("seal", run), "cell-0000-chunk-00003.parquet", "nothing recorded")
    assert read_manifest(run)["format"] == 3
    shutil.copy(tiny_run / "data" / "cell-0000-chunk-00003.parquet", run / "data")
    shutil.copy(tiny_run / CHUNK, run / CHUNK)
    done = ginsim("seal", run)
    assert done.returncode == 0 and "recorded the digests of 4 chunk(s)" in done.stdout
    assert read_manifest(run)["chunks"] == read_manifest(tiny_run)["chunks"]
    assert ginsim("show", run).stdout == ginsim("show", tiny_run).stdout
    assert "already" in ginsim("seal", run).stdout


# ---- bug 2: a FIFO never hangs a reader -------------------------------------------------------

@pytest.mark.parametrize("name", [CHUNK, MANIFEST, "confirm.json", REPORT_RECORD])
def test_a_fifo_in_a_run_directory_is_refused_at_once(run, tmp_path, name):
    assert ginsim("report", run).returncode == 0
    (run / name).unlink(missing_ok=True)
    os.mkfifo(run / name)
    with deadline(30, run / name):
        for argv in (["show", run], ["report", run, "--out", tmp_path / "rep"]):
            done = ginsim(*argv)
            if name in (CHUNK, MANIFEST):
                one_line_error(done, name.rsplit("/", 1)[-1])
            else:  # a FIFO named like a confirmation or a report record is none of ginsim's
                assert done.returncode == 0, done.stderr


# ---- bug 3: an edited confirm.json is never presented as findings -----------------------------

def confirmation(manifest: dict) -> dict:
    """What ginsim confirm writes, reduced to the fields a report reads."""
    cell = manifest["cells"][0]
    estimate = {"estimate": 49.5, "low": 48.0, "high": 51.0, "n": 400}
    return {"written_by": "ginsim confirm", "study": manifest["experiment"]["name"], "withdrawn": [],
            "claims": [{"id": "simple_crushes_random", "statement": "simple crushes random", "metric": "net_points",
                        "unit": "hand", "a": "simple", "b": "random", "rules": "hoyle", "status": "replicated",
                        "original": estimate, "confirmation": estimate,
                        "cells": [{"cell": 0, "study": cell["seed"]}]}]}


def test_an_edited_confirmation_is_refused(run, tmp_path):
    from simulator.studies.confirm_pages import render_json

    (run / "confirm.json").write_text(render_json(confirmation(read_manifest(run))))
    assert ginsim("report", run, "--out", tmp_path / "a").returncode == 0
    assert "Claim simple_crushes_random (replicated)" in (tmp_path / "a" / "report.md").read_text()
    edited = json.loads((run / "confirm.json").read_text())
    edited["claims"][0]["statement"] = "random crushes simple"
    edited["claims"][0]["confirmation"]["estimate"] = -80.0
    (run / "confirm.json").write_text(json.dumps(edited, indent=1))
    one_line_error(ginsim("report", run, "--out", tmp_path / "b"), "confirm.json", "edited since ginsim wrote it")
    assert not (tmp_path / "b" / "report.md").exists()
    del edited["seal"]  # as an earlier ginsim wrote it: sealed only when asked
    (run / "confirm.json").write_text(json.dumps(edited, indent=1))
    one_line_error(ginsim("report", run, "--out", tmp_path / "b"), "not sealed", "ginsim seal")


def test_an_edited_report_record_vouches_for_nothing(run):
    assert ginsim("report", run).returncode == 0
    mine = run / "notes.md"
    mine.write_text("my notes\n")
    record = json.loads((run / REPORT_RECORD).read_text())
    record["files"]["notes.md"] = hashlib.sha256(mine.read_bytes()).hexdigest()
    (run / REPORT_RECORD).write_text(json.dumps(record))  # would make --force remove notes.md
    # the edited record is nobody's report file now: it and notes.md are refused, nothing removed
    one_line_error(ginsim("run", write(run.parent, TINY), "--out", run, "--force", "--quiet"), REPORT_RECORD,
                   "and 1 more")
    assert mine.read_text() == "my notes\n" and (run / "report.md").is_file()


def test_a_record_of_an_earlier_ginsim_is_replaced_not_trusted(run):
    assert ginsim("report", run).returncode == 0
    record = json.loads((run / REPORT_RECORD).read_text())
    del record["seal"]  # as an earlier ginsim wrote it (the committed results/ hold such records)
    (run / REPORT_RECORD).write_text(json.dumps(record))
    assert ginsim("report", run).returncode == 0  # replaced, now sealed
    assert "seal" in json.loads((run / REPORT_RECORD).read_text())
    (run / REPORT_RECORD).write_text(json.dumps({**record, "files": {**record["files"], "notes.md": "0" * 64}}))
    (run / "notes.md").write_text("my notes\n")  # an unsealed record lists nothing ginsim trusts
    one_line_error(ginsim("run", write(run.parent, TINY), "--out", run, "--force", "--quiet"), "notes.md")
    (run / "notes.md").unlink()
    assert ginsim("run", write(run.parent, TINY), "--out", run, "--force", "--quiet").returncode == 0
    assert not (run / REPORT_RECORD).exists() and not (run / "report.md").exists()


# ---- bug 4: a spec never writes outside the working directory ---------------------------------

def test_a_spec_out_that_escapes_the_working_directory_is_refused(tmp_path, monkeypatch):
    from test_tune import write_spec

    from simulator.studies.decision_values import parse_spec as parse_dv
    from simulator.studies.equilibrium import EquilibriumError, load_equilibrium
    from simulator.studies.tune import TuneError, load_spec

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    spec = work / "eq.toml"
    spec.write_text('name = "eq"\nrules = "hoyle"\nseed = 5\nout = "a/../../x"\n')
    with pytest.raises(EquilibriumError, match=r"eq.toml: out: .* 'a/../../x' resolves to .*/x, outside"):
        load_equilibrium(spec)
    one_line_error(ginsim("equilibrium", spec, cwd=work), "out", "outside")
    with pytest.raises(TuneError, match=r"out: .* 'a/../../x' resolves to"):
        load_spec(write_spec(work / "t.toml", top='out = "a/../../x"'))
    study = tomllib.loads((ROOT / "experiments" / "decision_values.toml").read_text())
    for key in ("out", "report"):
        with pytest.raises(ValueError, match=rf"dv.toml: {key}: 'ok/../../x' resolves to"):
            parse_dv({**study, key: "ok/../../x"}, "dv.toml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work"]


def test_a_report_never_goes_into_the_runs_data(run):
    for sub in ("data", "data/x"):
        one_line_error(ginsim("report", run, "--out", run / sub), "inside the run's data/ folder")
    assert ginsim("show", run).returncode == 0


# ---- bug 5: deeply nested JSON in a run directory ---------------------------------------------

DEEP = "[" * 50_000 + "]" * 50_000


@pytest.mark.parametrize("name", [MANIFEST, "confirm.json", REPORT_RECORD, "provenance"])
def test_deeply_nested_json_in_a_run_directory_is_one_line(run, tmp_path, name):
    from simulator.studies.confirm_pages import render_json

    (run / "confirm.json").write_text(render_json(confirmation(read_manifest(run))))
    assert ginsim("report", run).returncode == 0
    if name == "provenance":
        import pyarrow.parquet as pq

        table = pq.read_table(run / CHUNK)
        pq.write_table(table.replace_schema_metadata({**table.schema.metadata, b"ginsim": DEEP.encode()}),
                       run / CHUNK)
    else:
        (run / name).write_text(('{"written_by": "ginsim confirm", "x": ' if name == "confirm.json" else "")
                                + DEEP + ("}" if name == "confirm.json" else ""))
    for argv in (["show", run], ["report", run], ["replay", run, "--cell", 0, "--deal", 0]):
        done = ginsim(*argv)
        if name == REPORT_RECORD or (name == "confirm.json" and argv[0] != "report"):
            assert done.returncode == 0, done.stderr  # not read (a record that cannot be read vouches for nothing)
        else:
            one_line_error(done)
            assert "nested more than 64 deep" in done.stderr or "not written by this run" in done.stderr


def test_a_deeply_nested_experiment_file_is_one_line(tmp_path):
    path = write(tmp_path, TINY + "x = " + "[" * 3000 + "]" * 3000 + "\n")
    one_line_error(ginsim("run", path, "--out", tmp_path / "r"), "exp.toml", "nested more than 64 deep")
    assert not (tmp_path / "r").exists()


# ---- bugs 6 and 7: sizes checked before anything is allocated --------------------------------

def test_simulate_refuses_more_deals_than_memory_holds(monkeypatch):
    import simulator.api as api

    monkeypatch.setattr(api, "play_deal_records", lambda *a, **k: pytest.fail("allocated"))
    one_line_error(ginsim("simulate", "simple", "simple", "--deals", 2_000_000_000), "--deals: 2,000,000,000 deals",
                   "of memory", "ginsim run")
    with pytest.raises(ValueError, match=r"^n_deals: 2,000,000,000 deals need about .* give n_deals="):
        api.simulate("simple", "simple", n_deals=2_000_000_000)
    with pytest.raises(ValueError, match=r"^n_games: .* games need about"):
        api.simulate_games("simple", "simple", n_games=2_000_000_000)


@pytest.mark.parametrize("deals, words", [(10, "at least 20"), (19, "at least 20"),
                                          (10**12, "on disk"), (2**50, "deals")])
def test_bench_scale_refuses_sizes_it_cannot_run(tmp_path, deals, words):
    one_line_error(ginsim("bench", "--scale", "--scale-deals", deals, "--scale-dir", tmp_path), "--scale-deals", words)
    assert list(tmp_path.iterdir()) == []


def test_arena_decks_are_bounded():
    pytest.importorskip("pyspiel")
    one_line_error(ginsim("arena", "simple", "simple", "--decks", 10**12), "--decks", "of memory")


# ---- minors ------------------------------------------------------------------------------------

def test_escape_sequences_in_a_variant_name_never_reach_the_terminal(tmp_path):
    text = TINY.replace("deals = 400", "deals = 200") + '[variants."\\u001b[2J\\u001b]0;pwned\\u0007"]\npreset = "hoyle"\n'
    exp = write(tmp_path, text)
    assert ginsim("run", exp, "--out", tmp_path / "r", "--quiet").returncode == 0
    for argv in (["show", tmp_path / "r"], ["replay", tmp_path / "r", "--cell", 0, "--deal", 1]):
        done = ginsim(*argv)
        assert done.returncode == 0 and "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout
        assert "\\x1b[2J\\x1b]0;pwned\\x07" in done.stdout


def test_output_works_on_an_ascii_only_stream(run, monkeypatch):
    from simulator.cli import main

    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    monkeypatch.setattr("sys.stdout", stream)
    assert main(["show", str(run)]) == 0
    stream.flush()
    assert "net_a +/- 95%" in raw.getvalue().decode("ascii")


def test_the_python_api_never_truncates_an_argument():
    import simulator
    from simulator.api import simulate

    with pytest.raises(ValueError, match="^mirrored must be true or false, got 'no'"):
        simulate("simple", "simple", n_deals=10, mirrored="no")
    with pytest.raises(ValueError, match="^n_deals must be an integer of at least 0, got 10.0"):
        simulate("simple", "simple", n_deals=10.0)
    for call in (lambda: simulator.min_deadwood([1.5]), lambda: simulator.min_deadwood([True, 2]),
                 lambda: simulator.Card(2.0), lambda: simulator.best_discard([0.0] * 11)):
        with pytest.raises(ValueError, match="^card must be a card code"):
            call()
    with pytest.raises(ValueError, match="^scores must be a pair of integers from 0 to 99,999, got -5"):
        simulator.Hand(scores=(-5, 0))
    with pytest.raises(ValueError, match="^mirrored must be true or false"):
        simulator.Hand(mirrored="no")
    assert simulator.min_deadwood([np.int64(0), 1, 2]) == 0


def test_rl_envs_and_interop_refuse_what_is_not_a_value():
    from simulator.env.single import GinRummySingleEnv
    from simulator.env.vector import GinRummyVectorEnv

    for make in (GinRummySingleEnv, GinRummyVectorEnv):
        with pytest.raises(ValueError, match="^illegal_reward must be a finite number, got nan"):
            make(illegal_reward=float("nan"))
        with pytest.raises(ValueError, match="^seat must be 0, 1 or None"):
            make(seat=True)
    pytest.importorskip("pyspiel")
    from simulator.interop.openspiel import os_card, our_card

    assert our_card(os_card(16 + 3)) == 19
    for index in (-1, 52, 99, 1.0):
        with pytest.raises(ValueError, match="^OpenSpiel card index must be an integer from 0 to 51"):
            our_card(index)
    for code in (-1, 13, 64):
        with pytest.raises(ValueError, match="not a card code"):
            os_card(code)


def test_a_tuning_step_too_fine_to_list_is_one_line(tmp_path):
    from test_tune import write_spec

    from simulator.studies.tune import TuneError, load_spec

    text = write_spec(tmp_path / "s.toml").read_text().replace('strategy = "simple"', 'strategy = "undercut_aware"', 1)
    (tmp_path / "s.toml").write_text(text.replace("knock_at = { low = 0, high = 10 }",
                                                  "max_risk = { low = 0.0, high = 1.0, step = 1e-300 }"))
    with pytest.raises(TuneError, match=r"params\.max_risk\.step: 1e-300 makes .* grid points .* at most 1,000,000"):
        load_spec(tmp_path / "s.toml")


def test_ctrl_c_advises_resume_only_where_there_is_one(monkeypatch):
    import simulator.api as api

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "simulate", interrupted)
    done = ginsim("simulate", "simple", "simple", "--deals", 100)
    assert done.returncode == 130 and done.stderr.strip().splitlines()[-1] == "ginsim: interrupted"


def test_the_promise_is_one_sentence_in_the_docs():
    text = (ROOT / "docs" / "runs.md").read_text()
    head = "**ginsim's promise.** "
    promise = " ".join(next(p for p in text.split("\n\n") if p.startswith(head)).split())[len(head):]
    for words in ("proven", "sha256", "refuses", "never", "outside the working directory and `--out`"):
        assert words in promise
    assert promise.endswith(".") and ". " not in promise  # one sentence: what it verifies, refuses, never touches
