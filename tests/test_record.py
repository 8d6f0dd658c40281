"""The whole record (simulator/studies/record.py): every confirmation of every ledger is one
test of one Holm family; the README's opening and docs/claims.md are what the committed ledgers
make, and count every ``confirm`` line; a test on seeds seen before its claim was written
confirms nothing; a restated or re-confirmed claim is refused a salt its study has used;
planned power is shown, and a test planned below 50% is marked underpowered.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulator.studies import claims_file
from simulator.studies import confirm as C
from simulator.studies import ledger as L
from simulator.studies import ledger_history
from simulator.studies import record as R

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_opening_and_the_claims_page_are_made_from_the_ledgers(capsys):
    assert R.main(["--root", str(ROOT), "--check"]) == 0, capsys.readouterr().err


def test_the_family_is_every_confirm_line_of_every_ledger():
    ledgers = sorted((ROOT / "experiments" / "ledger").glob("*.jsonl"))
    confirms = [(path.stem, e["id"], e["salt"]) for path in ledgers
                for e in (json.loads(line) for line in path.read_bytes().split(b"\n") if line)
                if e["entry"] == "confirm"]
    whole = R.whole_record(ROOT)
    assert whole.size == len(confirms) and whole.ledgers == len(ledgers)
    assert sorted((t.study, t.entry["id"], t.entry["salt"]) for t in whole.tests) == sorted(confirms)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    page = (ROOT / R.PAGE).read_text(encoding="utf-8")
    assert f"**{whole.size} tests of {len(whole.claims)} claims**" in readme
    assert f"**{whole.size} tests**" in page
    standing = sum(c.standing for c in whole.claims)
    assert f"**{standing} of the {len(whole.active())} claims in force stand**" in readme


def test_the_front_page_answers_are_claims_that_stand():
    whole = R.whole_record(ROOT)
    answers = [claim_id for _, items in R.FRONT for _, claim_id, _ in items]
    assert 0 < len(answers) <= 10 and len(R.FRONT) == 3
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for study, claim_id, _ in (item for _, items in R.FRONT for item in items):
        claim = whole.claim(claim_id)
        assert claim.study == study and claim.standing, (claim_id, claim.status)
        line = next(x for x in readme.splitlines() if x.endswith(f"`{claim_id}`"))
        planned = f"planned power {R._one_test(claim).planned_power:.0%}"
        assert planned in line and ("90%" not in planned or R._one_test(claim).planned_power >= 0.895), line


def test_the_restated_claims_confirmed_on_their_twins_salt_confirm_nothing():
    whole = R.whole_record(ROOT)
    reused = {(t.record.id, t.reused_from) for t in whole.tests if not t.counts}
    # the five equilibrium_knock claims re-stated without "equilibrium" (issue 41) were first confirmed
    # on ginsim-confirm-2, the salt their withdrawn twins had been confirmed on
    assert ("classic_k11_beats_simple", "classic_equilibrium_beats_simple") in reused
    for t in whole.tests:
        assert (t.reused_from is None) == t.counts
    for claim in whole.active():
        if claim.status == "confirmed":
            assert any(t.counts and t.p <= R.ALPHA for t in claim.tests)


def _claim_table(cid: str, assertion: dict, a: str = "x") -> dict:
    return {"id": cid, "statement": f"claim {cid}", "metric": "net_points", "unit": "hand", "a": a, "b": "y",
            "rules": "hoyle", **assertion}


def status(p: float, pn: float) -> str:
    return "replicated" if p <= 0.05 else "not replicated" if pn <= 0.05 else "inconclusive"


def _test_entries(reg: dict, salt: str, p: float, pn: float, bound, power: float = 0.9, day: int = 2) -> list[dict]:
    """A plan and its confirm entry for the registered claim ``reg``."""
    plan = {"entry": "plan", "id": reg["id"], "date": f"2026-12-0{day}T00:00:00Z", "hash": reg["hash"], "salt": salt,
            "seed": 7, "units": 100, "unit": "mirrored pairs per cell", "effect": 0.5,
            "effect_from": "study interval edge", "level": 0.01, "power": power}
    result = {"entry": "confirm", "id": reg["id"], "date": f"2026-12-0{day}T00:00:01Z", "hash": reg["hash"],
              "salt": salt, "seed": 7, "original": {"estimate": 1.0, "low": 0.5, "high": 1.5, "n": 100},
              "confirmation": {"estimate": 1.0, "low": 0.5, "high": 1.5, "n": 200, "seed": 7},
              "test_interval": bound, "p": p, "p_contradiction": pn, "status": status(p, pn), "power": power,
              "powered_for": 0.5, "effect_from": "study interval edge", "z": 0.0,
              "cells": [{"cell": 0, "a": reg["claim"]["a"], "b": "y", "study": 1, "confirmation": 2}],
              "family": {"name": "record", "size": 5, "method": "holm", "alpha": 0.05},
              "holm": {"size": 1, "p_holm": p, "p_contradiction_holm": pn},
              "confirm_json": "sha256:" + "0" * 64}
    return [plan, result]


def _ledger(folder: Path, study: str, entries: list[dict]) -> None:
    book = L.load_ledger(L.ledger_path(folder / "experiments", study), study)
    L.append(book, entries)


def test_the_record_is_one_holm_family_across_studies(tmp_path):
    above, delta = {"above": 0.0}, {"delta": 2.0}
    a, b = (L.register_entry(_claim_table(c, above, a=c), "2026-12-01T00:00:00Z") for c in "ab")
    _ledger(tmp_path, "one", [a, b, *_test_entries(a, "s0", 0.01, 1.0, [0.6, None]),
                              *_test_entries(b, "s0", 0.02, 1.0, [0.6, None])])
    c = L.register_entry(_claim_table("c", delta, a="c"), "2026-12-01T00:00:00Z")
    d = L.register_entry(_claim_table("d", above, a="d"), "2026-12-01T00:00:00Z")
    e = L.register_entry(_claim_table("e", above, a="e"), "2026-12-01T00:00:00Z")
    _ledger(tmp_path, "two", [c, d, e, *_test_entries(c, "s0", 0.03, 1.0, [0.4, 1.6]),
                              *_test_entries(d, "s0", 0.2, 1.0, [-0.1, None], power=0.3),
                              *_test_entries(d, "s1", 0.001, 1.0, [0.7, None], day=3)])
    whole = R.whole_record(tmp_path)
    status = {x.record.id: x.status for x in whole.claims}
    # five tests: per study, Holm would confirm a, b and c; across the record only d's second test and a survive
    assert whole.size == 5 and whole.ledgers == 2
    assert status == {"a": "confirmed", "b": "inconclusive", "c": "inconclusive", "d": "confirmed",
                      "e": "not yet tested"}
    page = R.record_page(tmp_path)
    assert "**5 tests**" in page and "Holm p = 0.04 over the record" in page
    line = next(x for x in page.splitlines() if "salt `s0`" in x and "≥ −0.10" in x)
    assert "planned power 30% — **underpowered**" in line
    assert "(selected: where the claim was chosen)" in line and line.index("confirmation") < line.index("study")


def test_a_restated_claim_on_its_twins_salt_counts_but_confirms_nothing(tmp_path):
    twin = L.register_entry(_claim_table("twin", {"above": 0.0}), "2026-12-01T00:00:00Z")
    entries = [twin, *_test_entries(twin, "s0", 0.001, 1.0, [0.6, None]),
               {"entry": "withdraw", "id": "twin", "date": "2026-12-02T12:00:00Z", "reason": "restated as new"}]
    new = L.register_entry(_claim_table("new", {"above": 0.1}), "2026-12-03T00:00:00Z")
    entries += [new, *_test_entries(new, "s0", 0.001, 1.0, [0.6, None], day=4)]
    _ledger(tmp_path, "one", entries)
    whole = R.whole_record(tmp_path)
    assert whole.size == 2
    assert whole.claim("new").status == "not yet tested on seeds of its own"
    assert whole.claim("twin").status == "confirmed" and not whole.claim("twin").standing
    assert "**Reused seeds**" in R.record_page(tmp_path)


def test_confirm_refuses_a_used_salt_for_a_restated_or_reconfirmed_claim(tmp_path):
    experiments = tmp_path / "experiments"
    twin = L.register_entry(_claim_table("twin", {"above": 0.0}), "2026-12-01T00:00:00Z")
    other = L.register_entry(_claim_table("other", {"above": 0.0}, a="z"), "2026-12-01T00:00:00Z")
    new = L.register_entry(_claim_table("new", {"above": 0.1}), "2026-12-03T00:00:00Z")
    _ledger(tmp_path, "one", [twin, other, *_test_entries(twin, "s0", 0.001, 1.0, [0.6, None]),
                              *_test_entries(other, "s0", 0.001, 1.0, [0.6, None]),
                              {"entry": "withdraw", "id": "twin", "date": "2026-12-02T12:00:00Z", "reason": "restated"},
                              new])
    claims = experiments / "one.claims.toml"

    def write(*tables: dict) -> None:
        claims.write_text("".join(
            "[[claims]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in t.items()) for t in tables))

    write(_claim_table("other", {"above": 0.0}, a="z"), _claim_table("new", {"above": 0.1}))
    with pytest.raises(C.ClaimError, match="claim new: --salt s0: it restates twin, and claim"):
        C.open_protocol("one", claims, experiments, salt="s0")
    protocol = C.open_protocol("one", claims, experiments, salt="s1")
    # the record's two tests, and the two claims this salt tests for the first time
    assert protocol.family == {"name": "record", "size": 4, "method": "holm", "alpha": 0.05}
    # a claim confirmed before may not take a salt another claim of the study was confirmed on
    book = L.load_ledger(L.ledger_path(experiments, "one"), "one")
    book = L.append(book, _test_entries(book.records["new"].registered, "s1", 0.2, 1.0, [0.0, None], day=4))
    with pytest.raises(C.ClaimError, match="claim other: --salt s1: it has been confirmed before"):
        C.open_protocol("one", claims, experiments, salt="s1")


def test_power_at_agrees_with_the_planning_power():
    table = _claim_table("x", {"above": 0.4})
    claim = claims_file.parse_claims({"claims": [table]}, "f").claims[0]
    content = L.claim_content(table)
    for n in (100, 1_000, 10_000):
        assert R.power_at(content, 0.65, 8.1 / n ** 0.5, 0.05 / 6) == pytest.approx(C.power(claim, 0.65, 8.1, n,
                                                                                              0.05 / 6))


def test_every_claim_of_the_record_says_where_its_margin_came_from():
    whole = R.whole_record(ROOT)
    page = (ROOT / R.PAGE).read_text(encoding="utf-8")
    for claim in whole.claims:
        assert claim.record.margin_from in L.MARGIN_SOURCES, claim.record.id
        assert f"Margin from {claim.record.margin_text()}." in page
    # the restated equilibrium_knock claims' margins came from fresh data that contradicted their twins
    assert whole.claim("classic_k11_beats_simple").record.margin_from == "confirmation"


def test_a_claim_is_registered_with_its_margins_source_once(tmp_path):
    book = L.load_ledger(L.ledger_path(tmp_path / "experiments", "one"), "one")
    table = _claim_table("x", {"above": 0.1})
    with pytest.raises(L.LedgerError, match="claim x: margin_from: required to register a claim"):
        L.register(book, [table], "one.claims.toml")
    book, ids = L.register(book, [{**table, "margin_from": "development"}], "one.claims.toml")
    assert ids == ["x"] and book.records["x"].registered["margin_from"] == "development"
    assert book.records["x"].hash == L.content_hash(L.claim_content(table))  # not part of the claim's content
    assert "margin from: development seeds (recorded at registration)" in "\n".join(ledger_history.log_lines(book))
    assert L.file_problems(book, [{**table, "margin_from": "study"}], "f", "one") == [
        f"f: claim x: margin_from = 'study', but {book.path} records 'development'; where a margin came from is "
        f"recorded once"]
    # a claim registered before the field existed gets it once, later, with its evidence
    old = L.register_entry(_claim_table("old", {"above": 0.0}), "2026-12-01T00:00:00Z")
    book = L.append(book, [old, {"entry": "margin", "id": "old", "date": "2026-12-02T00:00:00Z",
                                 "margin_from": "study", "evidence": "written after the report"}])
    assert book.records["old"].margin_text() == ("the study's own data (recorded 2026-12-02, after registration: "
                                                 "written after the report)")
    with pytest.raises(L.LedgerError, match="margin's source recorded already"):
        L.append(book, [{"entry": "margin", "id": "x", "date": "2026-12-05T00:00:00Z", "margin_from": "study",
                         "evidence": "again"}])


def test_a_ledger_that_cannot_be_read_is_one_line(tmp_path, capsys):
    folder = tmp_path / "experiments" / "ledger"
    folder.mkdir(parents=True)
    (folder / "one.jsonl").write_bytes(b'{"entry": "confirm", "id": "x", "date": "2026-12-01T00:00:00Z"}\n')
    (tmp_path / "README.md").write_text(f"{R.FRONT_BEGIN}\n{R.FRONT_END}\n", encoding="utf-8")
    assert R.main(["--root", str(tmp_path), "--check"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "one.jsonl:1: " in err[0]
