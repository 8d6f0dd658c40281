"""The claims ledger cannot be forged, raced or misplaced (issue 54, simulator/studies/ledger.py).

A ``confirm`` entry stands only after its ``plan`` (same claim, salt and seed, dates in
order, the rows the plan's units make, the digest of its confirm.json), so a confirmation
that never ran is refused by the reader, and with it by ``claims log``, the whole record
(simulator/studies/record.py) and their tests; the ledgers as they stood before that rule are pinned byte for byte.  Every
entry is checked against one declared schema per kind (one line ``file:line: field:
message``, never a traceback); a ledger is read only from a regular file (a FIFO is never
waited on), UTF-8 per line, split at ``\\n`` only; two writers at once both land (an
``flock`` from the comparison to the rename); a ledger that comes with ginsim is read-only
(``ginsim init DIR`` makes a working copy).  ``ginsim claims verify`` re-plays a
confirmation from its plan and compares its figures with the ledger's; the slow tier runs
it over a cheap claim of each kind of study.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
import shutil
from pathlib import Path

import pytest

from cli_runner import ginsim, one_line_error
from simulator.run.bundled import bundled_dir
from simulator.studies import confirm as C
from simulator.studies import kinds
from simulator.studies import ledger as L
from simulator.studies import record as R
from test_confirm import tiny_study
from test_ledger import CLAIMS

ROOT = Path(__file__).resolve().parent.parent
LEDGERS = ROOT / "experiments" / "ledger"
DATE = "2030-01-02T00:00:00Z"  # after the tiny study registers its claims (now)


@pytest.fixture
def study(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tiny_study(tmp_path, CLAIMS)


def _ledger(folder: Path) -> Path:
    return folder / "experiments" / "ledger" / "tiny.jsonl"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().split(b"\n") if line]


def _registered(study: Path) -> tuple[dict, dict]:
    """The tiny study's ledger's two register entries, by id."""
    entries = {e["id"]: e for e in _lines(_ledger(study))}
    return entries["knock_early_wins"], entries["random_loses"]


def _plan(register: dict, salt: str = "s", units: int = 300, date: str = DATE) -> dict:
    return {"entry": "plan", "id": register["id"], "date": date, "hash": register["hash"], "salt": salt, "seed": 7,
            "units": units, "unit": "mirrored pairs per cell", "effect": 1.0, "effect_from": "declared effect",
            "level": 0.025, "power": 0.9}


def _confirm(register: dict, salt: str = "s", n: int = 600, date: str = DATE, p: float = 0.001, **extra) -> dict:
    entry = {"entry": "confirm", "id": register["id"], "date": date, "hash": register["hash"], "salt": salt,
             "seed": 7, "original": {"estimate": 50.0, "low": 45.0, "high": 55.0, "n": 4000},
             "confirmation": {"estimate": 50.0, "low": 45.0, "high": 55.0, "n": n, "seed": 7},
             "test_interval": [46.0, None], "p": p, "p_contradiction": 1.0, "status": "replicated",
             "cells": [{"cell": 0, "a": "knock_early", "b": "random", "study": 1, "confirmation": 2}],
             "power": 0.9, "powered_for": 1.0, "effect_from": "declared effect", "z": 0.0,
             "family": {"name": "tiny", "size": 2, "method": "holm", "alpha": 0.05},
             "holm": {"size": 2, "p_holm": 2 * p, "p_contradiction_holm": 1.0},
             "confirm_json": "sha256:" + "ab" * 32}
    entry.update(extra)
    entry["confirmation"]["seed"] = entry["seed"]
    return entry


def _with(study: Path, *entries: dict) -> bytes:
    """The tiny ledger's bytes with ``entries`` appended as lines (written to the file)."""
    data = _ledger(study).read_bytes() + b"".join(L.entry_line(e).encode() for e in entries)
    _ledger(study).write_bytes(data)
    return data


# ----------------------------------------------------------------------------- bug 1: a confirmation proves its plan

def test_a_forged_confirmation_of_a_headline_claim_is_refused_by_the_reader_log_and_the_record(tmp_path):
    """The red team's probe: a ``confirm`` entry with the registered hash, a salt never used,
    no plan, a date before the registration, n = 999,999 and p = 1e-300, appended to a real
    headline ledger.  The reader refuses it (naming the line), and so ``claims log``, the
    whole record (the README's and docs/claims.md's generator, tested on the committed
    ledgers) and the check of committed ledgers fail."""
    folder = tmp_path / "experiments" / "ledger"
    folder.mkdir(parents=True)
    shutil.copy(LEDGERS / "knock_vs_gin.jsonl", folder)
    path = folder / "knock_vs_gin.jsonl"
    register = next(e for e in _lines(path) if e["entry"] == "register")
    lines = len(_lines(path))
    forged = _confirm(register, salt="never-used", n=999_999, date="2026-01-01T00:00:00Z", p=1e-300)
    forged.pop("confirm_json")  # as the red team wrote it: refused for that alone
    path.write_bytes(path.read_bytes() + L.entry_line(forged).encode())
    with pytest.raises(L.LedgerError, match=rf":{lines + 1}: confirm_json: missing from a confirm entry"):
        L.load_ledger(path, "knock_vs_gin")
    forged["confirm_json"] = "sha256:" + "0" * 64  # a digest is easy to invent: the other rules refuse it
    path.write_bytes(path.read_bytes().rsplit(b"\n", 2)[0] + b"\n" + L.entry_line(forged).encode())
    with pytest.raises(L.LedgerError, match=rf"knock_vs_gin.jsonl:{lines + 1}: date: .* is before") as err:
        L.load_ledger(path, "knock_vs_gin")
    assert "\n" not in str(err.value)
    with pytest.raises(L.LedgerError, match=f":{lines + 1}: "):
        R.whole_record(tmp_path)
    one_line_error(ginsim("claims", "log", cwd=tmp_path), f"knock_vs_gin.jsonl:{lines + 1}: date")
    # dated correctly, it still has no plan
    forged["date"] = DATE
    path.write_bytes(path.read_bytes().rsplit(b"\n", 2)[0] + b"\n" + L.entry_line(forged).encode())
    with pytest.raises(L.LedgerError, match=f":{lines + 1}: salt: no plan of .* with salt 'never-used'"):
        L.load_ledger(path, "knock_vs_gin")


def test_the_pinned_legacy_prefix_is_each_committed_ledger_and_nothing_after_it(tmp_path):
    """Every committed ledger starts with its pinned prefix (so the rules spare exactly
    those bytes); a legacy-shaped entry (no plan, no digest: as the first confirmations
    were written) appended after it is refused."""
    for path in sorted(LEDGERS.glob("*.jsonl")):
        data = path.read_bytes()
        pinned = L.LEGACY_PREFIX[path.stem][0] if path.stem in L.LEGACY_PREFIX else 0  # a ledger begun later: none
        assert L.legacy_lines(data, path.stem) == pinned, path.name
        assert L.load_ledger(path, path.stem).legacy == pinned
    assert set(L.LEGACY_PREFIX) <= {p.stem for p in LEDGERS.glob("*.jsonl")}
    data = (LEDGERS / "knock_vs_gin.jsonl").read_bytes()
    old = next(line for line in data.split(b"\n") if b'"ginsim-confirm-1"' in line and b'"confirm"' in line)
    again = old.replace(b'"ginsim-confirm-1"', b'"ginsim-confirm-9"')
    after = data.count(b"\n") + 1  # the line an appended entry takes
    with pytest.raises(L.LedgerError, match=rf":{after}: confirm_json: missing from a confirm entry"):
        L.parse_ledger(data + again + b"\n", tmp_path / "knock_vs_gin.jsonl", "knock_vs_gin")
    entry = json.loads(again)
    entry["confirm_json"] = "sha256:" + "0" * 64
    with pytest.raises(L.LedgerError, match=rf":{after}: salt: no plan of"):
        L.parse_ledger(data + L.entry_line(entry).encode(), tmp_path / "knock_vs_gin.jsonl", "knock_vs_gin")
    # the same bytes under another study's name are not that study's prefix: every rule applies
    with pytest.raises(L.LedgerError, match=r":5: confirm_json: missing from a confirm entry"):
        L.parse_ledger(data, tmp_path / "other.jsonl", "other")


@pytest.mark.parametrize("entries, words", [
    (lambda r: [_confirm(r)], "3: salt: no plan of 'knock_early_wins' with salt 's'"),
    (lambda r: [_plan(r, date="2026-11-01T00:00:00Z")], "3: date: 2026-11-01T00:00:00Z is before 'knock_early_wins' "
                                                        "was registered"),
    (lambda r: [_plan(r), _confirm(r, date="2030-01-01T00:00:00Z")], "4: date: 2030-01-01T00:00:00Z is before its "
                                                                     "plan"),
    (lambda r: [_plan(r), _confirm(r, n=999_999)], "4: confirmation.n: is 999,999, but its plan's 300 mirrored pairs "
                                                   "per cell over 1 cell(s) make 600"),
    (lambda r: [_plan(r), _confirm(r, seed=8)], "4: seed: is 8, but its plan"),
    (lambda r: [_plan(r), {k: v for k, v in _confirm(r).items() if k != "confirm_json"}],
     "4: confirm_json: missing from a confirm entry"),
    (lambda r: [_plan(r), _confirm(r, p=1.5)], "4: p: must be a number from 0 to 1, got 1.5"),
    (lambda r: [_plan(r), _confirm(r, status="confirmed")], "4: status: must be one of 'replicated'"),
    (lambda r: [_plan(r), _confirm(r, holm={"size": 2, "p_holm": 0.5, "p_contradiction_holm": 1.0})],
     "4: status: is 'replicated', but its Holm-adjusted p-values (0.5, 1) make it 'inconclusive'"),
    (lambda r: [_plan(r, units=0)], "3: units: must be an integer of at least 1, got 0"),
])
def test_a_confirm_entry_follows_its_plan_and_its_figures_are_consistent(study, entries, words):
    register, _ = _registered(study)
    _with(study, *entries(register))
    with pytest.raises(L.LedgerError, match=re.escape(words)) as err:
        L.load_ledger(_ledger(study), "tiny")
    assert str(err.value).startswith(f"{_ledger(study)}:") and "\n" not in str(err.value)


def test_a_confirmation_in_order_reads_and_counts(study):
    register, other = _registered(study)
    _with(study, _plan(register), _plan(other, units=500), _confirm(register, n=1000))  # the shared cell's larger plan
    book = L.load_ledger(_ledger(study), "tiny")
    assert book.records["knock_early_wins"].result("s")["confirmation"]["n"] == 1000


# ----------------------------------------------------------------------------- bug 2: one schema, one line

@pytest.mark.parametrize("edit, words", [
    (lambda e: e.pop("holm"), "holm: missing from a confirm entry"),
    (lambda e: e.update(confirmation=[1, 2]), "confirmation: must be a JSON object, got list"),
    (lambda e: e.update(test_interval=None), "test_interval: must be a list of two numbers or nulls, got None"),
    (lambda e: e.update(family="headlines"), "family: must be a JSON object, got str"),
    (lambda e: e["family"].pop("size"), "family.size: missing from a confirm entry"),
    (lambda e: e["confirmation"].update(n="600"), "confirmation.n: must be an integer of at least 1, got '600'"),
    (lambda e: e.update(cells=[]), "cells: must be a non-empty list of JSON objects"),
])
def test_a_malformed_confirm_entry_is_one_line_naming_its_field_in_log_and_confirm(study, edit, words):
    register, _ = _registered(study)
    entry = _confirm(register)
    edit(entry)
    _with(study, _plan(register), entry)
    for args in (("claims", "log", "tiny"), ("claims", "log"), ("confirm", "tiny", "--quiet")):
        one_line_error(ginsim(*args), f"tiny.jsonl:4: {words}")


def test_a_register_entry_without_its_unit_is_one_line(study):
    table = {"id": "no_unit", "statement": "s", "metric": "net_points", "a": "x", "b": "y", "rules": "hoyle",
             "sign": "positive"}
    entry = {"entry": "register", "id": "no_unit", "date": DATE, "hash": L.content_hash(table), "claim": table}
    _with(study, entry)
    one_line_error(ginsim("claims", "log", "tiny"), "tiny.jsonl:3: claim: unit must be a string")


def test_invalid_utf8_is_named_by_file_and_line(study):
    data = _ledger(study).read_bytes()
    first, second = data.split(b"\n")[:2]
    _ledger(study).write_bytes(first + b"\n" + second.replace(b"random", b"rand\xffom") + b"\n")
    one_line_error(ginsim("claims", "log", "tiny"), f"{_ledger(study)}:2: line: not UTF-8 text")


def test_a_statement_holding_u2028_registers_and_reads_back(study):
    claims = study / "experiments" / "tiny.claims.toml"
    claims.write_text(CLAIMS + CLAIMS[CLAIMS.index("[[claims]]\nid = \"random_loses\""):]
                      .replace("random_loses", "line_separator").replace("per hand", "per\u2028hand"),
                      encoding="utf-8")
    done = ginsim("claims", "register", "tiny")
    assert done.returncode == 0 and "registered line_separator" in done.stdout, done.stderr
    book = L.load_ledger(_ledger(study), "tiny")
    assert book.records["line_separator"].claim["statement"].endswith("per\u2028hand") and len(book.entries) == 3
    assert ginsim("claims", "log", "tiny").returncode == 0


# ----------------------------------------------------------------------------- bug 3: never waited on

@pytest.mark.timeout(120)  # a reader that waited on the FIFO would hang here
@pytest.mark.parametrize("args", [("claims", "log", "tiny"), ("claims", "register", "tiny"),
                                  ("claims", "withdraw", "tiny", "random_loses", "--why", "x"),
                                  ("confirm", "tiny", "--quiet")])
def test_a_fifo_in_a_ledgers_place_is_refused_at_once(study, args):
    _ledger(study).unlink()
    os.mkfifo(_ledger(study))
    one_line_error(ginsim(*args), "tiny.jsonl is a FIFO, not a regular file")


# ----------------------------------------------------------------------------- bug 4: two writers both land

def _withdraw(path: str, claim_id: str, barrier) -> None:
    book = L.load_ledger(path, "race")  # read before any of them writes: every other write makes it stale
    barrier.wait()
    L.withdraw(book, claim_id, "released together")


def test_writers_released_together_all_land(tmp_path, monkeypatch):
    """Eight processes each read the ledger, then, released by one barrier, withdraw a claim
    of their own: every withdrawal is in the ledger (each writer checks its entry against the
    file as it is under the lock, not as it read it)."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "race.jsonl"
    ids = [f"c{i}" for i in range(8)]
    tables = [{"id": i, "statement": i, "metric": "net_points", "unit": "hand", "a": "x", "b": "y",
               "rules": "hoyle", "sign": "positive"} for i in ids]
    L.append(L.load_ledger(path, "race"), [L.register_entry(t, "2026-12-01T00:00:00Z") for t in tables])
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(len(ids))
    workers = [context.Process(target=_withdraw, args=(str(path), i, barrier)) for i in ids]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0] * len(ids)
    book = L.load_ledger(path, "race")
    assert sorted(e["id"] for e in book.entries if e["entry"] == "withdraw") == ids and not book.active


def test_a_ledger_rewritten_under_a_writer_is_refused(study):
    book = L.load_ledger(_ledger(study), "tiny")
    _ledger(study).write_bytes(_ledger(study).read_bytes().split(b"\n")[0] + b"\n")
    with pytest.raises(L.LedgerError, match="changed while this command ran"):
        L.withdraw(book, "random_loses", "r")


# ----------------------------------------------------------------------------- bug 5: nothing written outside ./

def test_a_bundled_ledger_is_read_only_and_init_makes_a_working_copy(tmp_path):
    bundled = bundled_dir("experiments") / "ledger" / "knock_vs_gin.jsonl"
    before = bundled.read_bytes()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    claim = L.load_ledger(bundled, "knock_vs_gin").active[0].id
    for args in (("claims", "withdraw", "knock_vs_gin", claim, "--why", "x"), ("claims", "register", "knock_vs_gin"),
                 ("confirm", "knock_vs_gin", "--quiet")):
        one_line_error(ginsim(*args, cwd=elsewhere), "comes with ginsim is read-only", "ginsim init DIR")
    assert bundled.read_bytes() == before
    assert list(elsewhere.iterdir()) == []
    assert ginsim("claims", "log", "knock_vs_gin", cwd=elsewhere).returncode == 0  # reading stays fine
    assert ginsim("init", tmp_path / "copy").returncode == 0
    copy = tmp_path / "copy" / "experiments" / "ledger" / "knock_vs_gin.jsonl"
    assert copy.read_bytes() == before and (tmp_path / "copy" / "experiments" / "knock_vs_gin.claims.toml").is_file()
    done = ginsim("claims", "withdraw", "knock_vs_gin", claim, "--why", "a working copy's", cwd=tmp_path / "copy")
    assert done.returncode == 0, done.stderr
    assert copy.read_bytes().startswith(before) and _lines(copy)[-1]["entry"] == "withdraw"
    assert bundled.read_bytes() == before


# ----------------------------------------------------------------------------- salts

@pytest.mark.parametrize("salt, words", [("", "--salt must be a non-empty name"),
                                         ("a\nb", "--salt must hold no control characters or line breaks"),
                                         ("a\tb", "U+0009"), ("a\u2028b", "U+2028")])
def test_a_salt_that_is_empty_or_holds_a_control_character_is_refused(study, salt, words):
    before = _ledger(study).read_bytes()
    one_line_error(ginsim("confirm", "tiny", "--quiet", "--salt", salt), words)
    assert _ledger(study).read_bytes() == before


# ----------------------------------------------------------------------------- the digest, and verify

def test_a_confirmation_carries_its_confirm_json_digest_and_verify_replays_it(study, tmp_path):
    assert ginsim("confirm", "tiny", "--quiet").returncode == 0
    sealed = (study / "results" / "tiny" / "confirm.json").read_bytes()
    results = [e for e in _lines(_ledger(study)) if e["entry"] == "confirm"]
    assert [e["confirm_json"] for e in results] == ["sha256:" + hashlib.sha256(sealed).hexdigest()] * 2
    done = ginsim("claims", "verify", "tiny", "knock_early_wins", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "knock_early_wins: the ledger entry is what its plan plays" in done.stdout
    assert "random_loses" not in done.stdout
    # a copy of the study whose ledger states another p for the same plan: verify finds it
    other = tmp_path / "other"
    shutil.copytree(study / "experiments", other / "experiments")
    data = _ledger(other).read_bytes().split(b"\n")
    line = json.loads(data[4])
    line["p"] = line["p"] / 10
    data[4] = L.entry_line(line).encode().rstrip(b"\n")
    _ledger(other).write_bytes(b"\n".join(data))
    done = ginsim("claims", "verify", "tiny", "--quiet", cwd=other)
    assert done.returncode == 1 and "knock_early_wins: differs in p" in done.stdout, (done.stdout, done.stderr)
    assert "random_loses: the ledger entry is what its plan plays" in done.stdout
    one_line_error(ginsim("claims", "verify", "tiny", "nobody", "--salt", "x", "--quiet"),
                   "claim 'nobody' has no planned confirmation with salt 'x'")


@pytest.mark.parametrize("study, claim", [
    ("knock_vs_gin", "gin_hunter_classic_game"),  # an experiment's cells: 4,000 + 2,622 games
    ("optimal_knock", "hoyle_knock15_tuned_beats_best_fixed"),  # a tuning's field: 4,000 hands
    ("decision_values", "expert_knock_hoyle_games"),  # a decision-values row: 400 games
])
def test_verify_replays_the_cheapest_headline_claim_from_its_plan(study, claim):
    """The slow tier: the cheapest claim of the former headline studies (knock_vs_gin's
    gin_hunter_classic_game), and a cheap one of each other kind of study, re-played from
    its plan in the committed ledger, matches its entry."""
    assert kinds.find_study(study).ledger().records[claim].plan(C.CONFIRM_SALT) is not None
    done = ginsim("claims", "verify", study, claim, "--quiet", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert f"{claim}: the ledger entry is what its plan plays" in done.stdout


def test_invalid_utf8_in_a_claims_file_is_named_by_file_and_line(study):
    claims = study / "experiments" / "tiny.claims.toml"
    claims.write_bytes(CLAIMS.replace("beats random", "beats r\xe9ndom").encode("latin-1"))
    line = CLAIMS.split("\n").index(next(x for x in CLAIMS.split("\n") if "beats random" in x)) + 1
    one_line_error(ginsim("claims", "register", "tiny"), f"{claims}:{line}: not UTF-8 text")
