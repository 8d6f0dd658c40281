"""What a reader sees is current and agrees with itself (issue 58).

* The reports of a study's parts made from committed files alone (knock tables, class games,
  double-oracle equilibria) are made again and compared.
* Every committed study report (``results/STUDY/report.md`` and its ``report.html``) carries
  the claims block ``simulator.studies.reports`` writes from today's ledger, and the digests
  of what it was built from (manifest, output file, confirm.json, ledger, the report writer's
  fingerprint) match the committed files: the block is made again here and compared.  Every
  other report under ``results/`` built from a committed input (``tune.json``,
  ``knock_table.json`` ...) records and verifies that input's digest the same way.
* No committed report shows a withdrawn claim as standing.
* A report's verdict counts agree across the findings, the Balance section and the per-cell
  table (the committed variant_balance report, and tables made here with a pooled pair), and
  no word contradicts the interval beside it.
* The solved knock tables have names (``knock_table:classic`` ...) that resolve to exactly the
  specs the ledger keeps, and no report or docs page prints a raw ``knock_table:t0=`` spec.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import strategies
from simulator.analysis.tables import BALANCE_WORDS, cell_families, hand_tables, verdict, verdict_counts
from simulator.core.rules import Rules, describe_rules
from simulator.studies import ledger as ledgers
from simulator.studies import reports

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- current reports

def test_every_study_report_carries_its_claims_block_as_its_inputs_give_it_today():
    found = reports.studies_with_reports(ROOT)
    assert {s for s, _ in found} >= {"variant_balance", "knock_vs_gin", "strong_players", "field",
                                     "decision_values", "score_awareness", "equilibrium_class"}
    assert reports.refresh(ROOT, check=True) == [], "run python -m simulator.studies.reports --write"
    every = reports.report_folders(ROOT)
    assert len(every) > len(found) and (None, ROOT / "results" / "optimal_knock" / "classic") in every
    for study, folder in every:
        text = (folder / "report.md").read_text(encoding="utf-8")
        recorded = reports.recorded_inputs(text)
        assert recorded == reports.inputs_of(folder, study, ROOT), folder
        assert "report writer" in recorded and len(recorded) >= 2, folder
    for study, folder in found:
        recorded = reports.recorded_inputs((folder / "report.md").read_text(encoding="utf-8"))
        assert f"experiments/ledger/{study}.jsonl" in recorded
        assert "## Claims" in (folder / "report.md").read_text(encoding="utf-8")
        for name in ("manifest.json", "confirm.json"):
            assert (name in recorded) == (folder / name).is_file(), (study, name)
        if (folder / "report.html").is_file():
            assert reports.BEGIN in (folder / "report.html").read_text(encoding="utf-8")


def test_the_reports_made_from_committed_files_alone_are_made_again_here():
    """The knock-table, class-game and double-oracle reports come from their committed JSON and
    spec: their writers make them again, byte for byte (the block aside)."""
    parts = [f for s, f in reports.report_folders(ROOT) if s is None and reports.part_report(f, ROOT) is not None]
    assert len(parts) == 19  # 6 tables, 6 class games, 7 double-oracle equilibria
    assert reports.regenerate_parts(ROOT, check=True) == [], "run python -m simulator.studies.reports --write"


def test_each_run_report_is_the_report_of_the_committed_run():
    """A run's report names its run id; the committed manifest is that run's (the body is
    verified through the manifest's digest in the block, and the manifest through its id)."""
    for manifest in sorted((ROOT / "results").glob("*/manifest.json")):
        run_id = json.loads(manifest.read_text())["run_id"]
        for name in ("report.md", "report.html"):
            assert f"run id {run_id}" in (manifest.parent / name).read_text(encoding="utf-8"), (manifest, name)


def test_a_changed_input_makes_the_check_fail(tmp_path):
    import shutil

    shutil.copytree(ROOT / "experiments" / "ledger", tmp_path / "experiments" / "ledger")
    shutil.copytree(ROOT / "results" / "score_awareness", tmp_path / "results" / "score_awareness")
    assert reports.refresh(tmp_path, check=True) == []
    manifest = tmp_path / "results" / "score_awareness" / "manifest.json"
    manifest.write_text(manifest.read_text() + " ")
    assert reports.refresh(tmp_path, check=True) == ["results/score_awareness/report.md",
                                                     "results/score_awareness/report.html"]
    assert reports.refresh(tmp_path) and reports.refresh(tmp_path, check=True) == []


def _withdrawn_ids() -> set[str]:
    ids = set()
    for path in (ROOT / "experiments" / "ledger").glob("*.jsonl"):
        ids |= {r.id for r in ledgers.load_ledger(path, path.stem).withdrawn}
    return ids


def test_no_committed_report_shows_a_withdrawn_claim_as_standing():
    withdrawn = _withdrawn_ids()
    assert "oklahoma_ace_one_hand_small_edge" in withdrawn
    for path in sorted((ROOT / "results").rglob("report.*")):
        if path.suffix not in (".md", ".html"):
            continue
        text = path.read_text(encoding="utf-8")
        for claim in withdrawn:
            assert not re.search(rf"Claim {claim} \((?!withdrawn)", text), (path, claim)
            assert not re.search(rf"\| {claim} \|[^\n]*\*\*(replicated|not replicated)", text), (path, claim)


def test_no_report_or_docs_page_prints_a_raw_knock_table_spec():
    pages = [*(ROOT / "results").rglob("*.md"), *(ROOT / "results").rglob("*.html"), *(ROOT / "docs").rglob("*.md")]
    assert [str(p.relative_to(ROOT)) for p in pages if "knock_table:t0=" in p.read_text(encoding="utf-8")] == []


# ----------------------------------------------------------------------------- one verdict

def _counts(text: str) -> dict[str, int]:
    return {word: int(n) for n, word in re.findall(r"(\d+) (favours non-dealer|favours dealer|balanced)", text)}


def _table(md: str, title: str) -> pd.DataFrame:
    block = md.split(f"### {title}", 1)[1].split("\n#", 1)[0]
    rows = [line.strip("|").split(" | ") for line in block.splitlines() if line.startswith("| ")]
    return pd.DataFrame(rows[1:], columns=[c.strip() for c in rows[0]])


def test_the_variant_balance_report_counts_agree_across_findings_section_and_table():
    md = (ROOT / "results" / "variant_balance" / "report.md").read_text(encoding="utf-8")
    findings = md.split("## Findings", 1)[1].split("\n## ", 1)[0]
    balance = md.split("## Balance", 1)[1].split("\n## ", 1)[0]
    verdicts = re.search(r"Verdicts — hands: (.*?); games: (.*?)\.\n", balance)
    for kind, section, title, column in (
            ("hands", verdicts.group(1), "Results per cell, single hands", "first-mover edge (points/hand)"),
            ("games", verdicts.group(2), "Results per cell, whole games", "first-mover edge (win prob − 50%, pp)")):
        line = next(x for x in findings.splitlines() if x.startswith(f"- Self-play ({kind})"))
        table = _table(md, title)
        words = table["balance (self-play)"].str.strip()
        in_table = words[words != "–"].value_counts().to_dict()
        assert _counts(line.split(";")[0]) == _counts(section) == in_table, kind
        for word, interval in zip(words, table[column]):  # never a word its interval contradicts
            low, high = (float(x.replace("−", "-")) for x in re.search(r"\[(\S+), (\S+)\]", interval).groups())
            if word.startswith("favours"):
                assert low > 0 or high < 0, (word, interval)
    assert "12 favours non-dealer" not in md


def _self_play_stats() -> pd.DataFrame:
    """Six self-play cells; cells 1 and 4 are the same rules (pooled), one of them alone not
    distinguishable from zero, the pool clearly so."""
    edge = np.array([0.30, 0.20, 0.02, 0.25, 0.08, -0.01])
    se = np.full(6, 0.06)
    units = np.full(6, 100_000)
    return pd.DataFrame({
        "cell": range(6), "a": "simple", "b": "simple", "matchup": "simple vs simple",
        "variant": ["v0", "v1", "v2", "v3", "v1_again", "v5"], "n_hands": 2 * units, "n_units": units,
        "first_mover_edge": edge, "first_mover_edge_se": se,
        "first_mover_edge_ci_low": edge - 1.96 * se, "first_mover_edge_ci_high": edge + 1.96 * se})


def test_one_word_per_comparison_beside_the_interval_it_tested():
    stats = _self_play_stats()
    identities = {c: f"rules{c}" for c in range(6)} | {4: "rules1"}
    families = cell_families(stats, "hands", "holm", identities)
    results, _ = hand_tables(stats.assign(**{c: 0.0 for c in ("net_mean", "win_rate")}), True, families)
    family = families["balance"]
    words = results["balance (self-play)"]
    assert len(family.members) == 5 and (words != "–").sum() == 5
    assert words[words != "–"].value_counts().to_dict() == family.members["verdict"].value_counts().to_dict()
    assert verdict_counts(family, "distinct rule set").endswith("(of 5 distinct rule sets)")
    pool = results[results["cell"] == "1+4"].iloc[0]
    assert pool["balance (self-play)"] == "favours non-dealer" and pool["first-mover edge (points/hand)"].startswith("+0.140")
    assert results.loc[results["cell"].isin([1, 4]), "balance (self-play)"].tolist() == ["–", "–"]
    assert results.loc[results["cell"].isin([1, 4]), "pooled into"].tolist() == ["1+4", "1+4"]


def test_the_verdict_function():
    assert verdict(0.01, -0.2, 0.0, BALANCE_WORDS) == "favours dealer"
    assert verdict(0.049, 0.1, 0.0, BALANCE_WORDS) == "favours non-dealer"
    assert verdict(0.051, 0.1, 0.0, BALANCE_WORDS) == "balanced"
    assert verdict(float("nan"), 0.1, 0.0, BALANCE_WORDS) == "unknown"
    assert verdict(0.0, 0.5, 0.5, ("A ahead", "B ahead", "no detectable difference")) == "no detectable difference"


# ----------------------------------------------------------------------------- named knock tables

def _ledger_table_specs() -> dict[str, str]:
    book = ledgers.load_ledger(ROOT / "experiments" / "ledger" / "equilibrium_class.jsonl", "equilibrium_class")
    specs = {}
    for r in book.active:
        if r.id.endswith("_table_beats_class_main"):
            specs[r.claim["rules"]] = r.claim["a"]
        elif r.id.endswith("_table_best_response_gains_little"):
            specs[r.claim["rules"] + "_best_response"] = r.claim["a"]
    return specs


def test_each_named_knock_table_is_the_exact_spec_the_ledger_and_the_study_keep():
    from strategies import knock_table as kt

    specs = _ledger_table_specs()
    assert set(specs) == set(kt.PRESETS) and len(specs) == 12
    for name, exact in specs.items():
        assert strategies.parse_strategy(f"knock_table:{name}").label == exact
        assert strategies.display_spec(exact) == f"knock_table:{name}"
    for path in (ROOT / "results" / "equilibrium_class").glob("table_*/knock_table.json"):
        result = json.loads(path.read_text())["result"]
        rules = path.parent.name.removeprefix("table_")
        assert result["table_spec"] == specs[rules] and result["best_response"] == specs[rules + "_best_response"]


def test_a_raw_table_spec_still_parses_and_other_specs_print_as_given():
    exact = strategies.parse_strategy("knock_table:hoyle").label
    assert strategies.parse_strategy(exact).values == strategies.parse_strategy("knock_table:hoyle").values
    assert strategies.display_spec("knock_table:t0=1") == "knock_table:t0=1"
    assert strategies.display_spec("simple:knock_at=3") == "simple:knock_at=3"
    assert strategies.display_text(f"{exact} vs simple") == "knock_table:hoyle vs simple"
    assert strategies.display_spec(f"marjj+knock={exact}") == "marjj+knock=knock_table:hoyle"  # a hybrid's part
    with pytest.raises(ValueError, match="one named set alone: classic"):
        strategies.parse_strategy("knock_table:klassic")


def test_a_preset_is_spelled_in_words():
    assert describe_rules("classic") == ("classic (gin 20, undercut 10, box 20, game 100, shutout doubles the "
                                         "game bonus, to 100)")
    assert describe_rules({"preset": "hoyle", "knock_limit": 15}).startswith(
        "hoyle with knock_limit=15 (knock at 15 or less; gin 25, undercut 20")
    assert describe_rules("knock_20") == "knock_20"
    assert all(describe_rules(p).startswith(f"{p} (") for p in Rules.PRESETS)
