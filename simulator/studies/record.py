"""The whole record: every confirmation in every ledger, tested as one family.

Each study keeps its claims' history in its ledger (``experiments/ledger/STUDY.jsonl``,
``simulator.studies.ledger``).  Every ``confirm`` entry there is one statistical test of one
claim on seeds the study never used.  This module reads all of them — every study, every
salt, the tests of withdrawn claims too — and controls the family-wise error of the whole
record at ``ALPHA`` with Holm's step-down method (Holm 1979), which holds whatever the
dependence between the tests.  The record only grows: a new confirmation is one more test,
so it makes every other test's threshold stricter, and a claim that stands today can stop
standing when the record grows (``ginsim confirm`` sizes a new confirmation at the record's
size after it, ``record_size``).

A claim **stands** when one of its tests survives Holm (``confirmed``); it is ``not
replicated`` when the contradiction of one of its tests does, else ``inconclusive``.  A test
cannot confirm its claim when it played on seeds already seen before the claim was written:
the confirmation, on the same salt, of an earlier claim of the study about the same matchup
(``seen_before``; a restated claim confirmed on its withdrawn twin's salt plays its twin's
deals again).  Such a test still counts in the family's size, so it costs every other test
power, but it is shown as ``reused seeds`` and never confirms anything.

Each test is shown with its power: the power its plan recorded before it played (``planned
power``, at the conservative effect and the level of the family it was planned for), and the
power of the test as it ran (``power_as_run``: its own standard error, at the record's
first Holm step today).  A test whose planned power is below ``UNDERPOWERED`` is marked
*underpowered* wherever it is shown.  The confirmation's estimate comes first; the study's
own estimate beside it is marked *selected*: the study is where the claim was chosen, so its
estimate runs high.

``record_page`` writes the docs page of every claim (``docs/claims.md``) and ``front_block``
the README's opening answers, both from the ledgers (``python -m simulator.studies.record
--write`` / ``--check``).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scipy import stats as st

from strategies import display_spec

from ..analysis.claims import ASSERTIONS, METRICS, assertion_text, format_estimate, format_test_bound, rules_text
from ..analysis.claims import number as _number
from ..analysis.claims import scale as _scale
from .ledger import LEDGER_DIR, MARGIN_SOURCES, MARGIN_WORDS, SUFFIX, Ledger, Record, load_ledger

#: the family-wise level of the whole record, and the family name a confirmation records
ALPHA = 0.05
RECORD_FAMILY = "record"
#: a test whose planned power is below this is marked underpowered
UNDERPOWERED = 0.5
#: the order studies are shown in (any other ledger follows, by name)
STUDY_ORDER = ("knock_vs_gin", "variant_balance", "strategy_tournament", "strong_players", "score_awareness_games",
               "score_awareness", "optimal_knock", "equilibrium_knock", "equilibrium_class", "decision_values",
               "challenger", "field")
#: what identifies the estimand a claim is about: a claim restating another has the same
MATCHUP = ("a", "b", "rules", "metric", "unit", "opponent", "tuning")
FRONT_BEGIN = ("<!-- answers:begin (generated from experiments/ledger/*.jsonl by python -m simulator.studies.record "
               "--write; do not edit) -->")
FRONT_END = "<!-- answers:end -->"
PAGE = Path("docs") / "claims.md"
PAGE_MARK = ("<!-- generated from experiments/ledger/*.jsonl by python -m simulator.studies.record --write; "
             "do not edit -->")


@dataclass
class Test:
    """One ``confirm`` entry of a ledger as a test of the whole record."""

    study: str
    record: Record
    entry: dict[str, Any]
    plan: dict[str, Any] | None
    reused_from: str | None  # the earlier claim whose confirmation on this salt this test plays again
    p: float = math.nan  # Holm-adjusted over the whole record
    p_contradiction: float = math.nan

    @property
    def counts(self) -> bool:
        """Whether this test can confirm (or contradict) its claim."""
        return self.reused_from is None

    @property
    def planned_power(self) -> float:
        """The power fixed before it played: its ledger plan's, or for a confirmation made
        before plans were kept in the ledger, the power its result records."""
        return float((self.plan or self.entry)["power"])

    @property
    def underpowered(self) -> bool:
        return self.planned_power < UNDERPOWERED

    def power_as_run(self, level: float) -> float:
        """The test's power at its conservative effect (``powered_for``) with the standard
        error it ran with (from its 95% interval and n) at one-sided ``level``."""
        c = self.entry["confirmation"]
        dof = max(int(c["n"]) - 1, 1)
        se = (c["high"] - c["low"]) / (2 * float(st.t.isf(0.025, dof)))
        return power_at(self.record.claim, float(self.entry["powered_for"]), se, level)


@dataclass
class Claim:
    """A claim of the record, with its tests and its standing."""

    study: str
    record: Record
    tests: list[Test] = field(default_factory=list)
    status: str = "not yet tested"

    @property
    def standing(self) -> bool:
        return self.record.active and self.status == "confirmed"


@dataclass
class WholeRecord:
    """Every claim of every ledger, every test, and the record's size."""

    claims: list[Claim]
    tests: list[Test]
    ledgers: int

    @property
    def size(self) -> int:
        return len(self.tests)

    @property
    def level(self) -> float:
        """Holm's first step over the record: the one-sided level a test must reach alone."""
        return ALPHA / max(self.size, 1)

    def active(self) -> list[Claim]:
        return [c for c in self.claims if c.record.active]

    def claim(self, claim_id: str) -> Claim:
        return next(c for c in self.claims if c.record.id == claim_id)


def claim_region(content: dict[str, Any]) -> tuple[float, float]:
    """The claimed region [low, high] of a claim's estimand, from its metric, unit and
    assertion (``sign``, ``above``, ``below``, ``interval`` or ``delta``)."""
    null = METRICS[content["metric"]][content["unit"]][2]
    if "sign" in content:
        return (null, math.inf) if content["sign"] == "positive" else (-math.inf, null)
    if "above" in content:
        return float(content["above"]), math.inf
    if "below" in content:
        return -math.inf, float(content["below"])
    if "interval" in content:
        return float(content["interval"][0]), float(content["interval"][1])
    return null - float(content["delta"]), null + float(content["delta"])


def power_at(content: dict[str, Any], effect: float, se: float, level: float) -> float:
    """``power_in`` of a registered claim's region."""
    return power_in(*claim_region(content), effect, se, level)


def power_in(low: float, high: float, effect: float, se: float, level: float) -> float:
    """Normal-approximation power of a test that the estimand lies in [low, high], at
    one-sided ``level``, when it is ``effect`` and the estimate's standard error is ``se``
    (two one-sided tests for an interval: the chance both pass)."""
    if se <= 0:
        return 1.0 if low < effect < high else 0.0
    z = float(st.norm.isf(level))
    up = float(st.norm.cdf((effect - low) / se - z)) if math.isfinite(low) else 1.0
    down = float(st.norm.cdf((high - effect) / se - z)) if math.isfinite(high) else 1.0
    return max(0.0, up + down - 1.0)


def matchup(content: dict[str, Any]) -> tuple:
    """The estimand a claim is about, whatever it asserts of it."""
    return tuple(content.get(k) for k in MATCHUP)


def seen_before(ledger: Ledger, record: Record, salt: str) -> str | None:
    """The id of an earlier claim of ``ledger`` about the same matchup as ``record`` whose
    confirmation on ``salt`` was recorded before ``record`` was registered (its deals were
    seen before the claim was written), else None."""
    mine = matchup(record.claim)
    for other in ledger.records.values():
        if other is record or matchup(other.claim) != mine:
            continue
        seen = other.result(salt)
        if seen is not None and seen["date"] < record.registered["date"]:
            return other.id
    return None


def salt_seen(ledger: Ledger, record: Record, salt: str) -> str | None:
    """Why ``record``'s claim may not be confirmed on ``salt``, or None.  A study's
    confirmation seeds derive from its seed and the salt alone, so every claim confirmed on a
    salt plays that salt's deals.  A claim that restates an earlier one (the same matchup,
    registered before it) or that has been confirmed before must play deals nobody has seen:
    a salt on which any other claim of the study has a result is refused for it."""
    restates = [o.id for o in ledger.records.values() if o is not record and matchup(o.claim) == matchup(record.claim)
                and o.registered["date"] < record.registered["date"]]
    if not restates and not record.confirmations:
        return None
    for other in ledger.records.values():
        seen = other.result(salt)
        if other is not record and seen is not None:
            why = f"restates {restates[0]}" if restates else "has been confirmed before"
            return f"it {why}, and claim {other.id} of the study was confirmed on this salt ({seen['date'][:10]})"
    return None


def ledger_studies(experiments: str | Path) -> list[str]:
    """Every study with a ledger under ``experiments``, in ``STUDY_ORDER`` then by name."""
    found = sorted(p.name[:-len(SUFFIX)] for p in (Path(experiments) / LEDGER_DIR).glob(f"*{SUFFIX}"))
    return [s for s in STUDY_ORDER if s in found] + [s for s in found if s not in STUDY_ORDER]


def record_size(experiments: str | Path) -> int:
    """The number of tests in the whole record under ``experiments`` (every ``confirm`` entry)."""
    return sum(len(r.confirmations) for s in ledger_studies(experiments)
               for r in load_ledger(Path(experiments) / LEDGER_DIR / f"{s}{SUFFIX}", s).records.values())


def whole_record(root: str | Path) -> WholeRecord:
    """Every ledger under ``root/experiments``, each claim with its tests, Holm at ``ALPHA``
    across all the record's tests."""
    from ..analysis.stats import holm_adjust

    experiments = Path(root) / "experiments"
    studies = ledger_studies(experiments)
    claims: list[Claim] = []
    tests: list[Test] = []
    for study in studies:
        book = load_ledger(experiments / LEDGER_DIR / f"{study}{SUFFIX}", study)
        for record in book.records.values():
            claim = Claim(study, record, [Test(study, record, c, record.plan(c["salt"]),
                                               seen_before(book, record, c["salt"]))
                                          for c in record.confirmations])
            claims.append(claim)
            tests += claim.tests
    if tests:
        for t, a, c in zip(tests, holm_adjust([t.entry["p"] for t in tests]),
                           holm_adjust([t.entry["p_contradiction"] for t in tests]), strict=True):
            t.p, t.p_contradiction = float(a), float(c)
    for claim in claims:
        counted = [t for t in claim.tests if t.counts]
        if any(t.p <= ALPHA for t in counted):
            claim.status = "confirmed"
        elif any(t.p_contradiction <= ALPHA for t in counted):
            claim.status = "not replicated"
        elif counted:
            claim.status = "inconclusive"
        elif claim.tests:
            claim.status = "not yet tested on seeds of its own"
    return WholeRecord(claims, tests, len(studies))


# ----------------------------------------------------------------------------- what a reader sees

#: the README's opening: the mission's three questions, each answered by registered claims,
#: each claim with its answer in plain words (the numbers, interval and rules come from the ledgers)
FRONT: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    ("Knock early or play for gin?", (
        ("knock_vs_gin", "gin_hunter_tournament_hand",
         "Where gin and undercut both pay 25 and there is no box or game bonus, holding out for gin beats knocking "
         "as soon as you may"),
        ("knock_vs_gin", "gin_hunter_classic_hand",
         "Where gin pays only 20 and an undercut 10, the same gin hunter loses to knocking early"),
        ("equilibrium_class", "hoyle_table_beats_class_main",
         "Under hoyle scoring, a knock rule that also looks at how many cards the opponent took from the pile "
         "(the solved knock table) beats the main policy of the equilibrium among knock rules that look only at "
         "deadwood and draws"),
    )),
    ("Which rule variant is balanced?", (
        ("variant_balance", "hoyle_hand_edge", "Under hoyle rules the player who moves first has a small edge per hand"),
        ("variant_balance", "hoyle_game_no_edge",
         "... but over whole hoyle games to 100 that edge is below 2 percentage points of game-win probability"),
        ("variant_balance", "knock_20_hand_edge", "With a knock limit of 20 the first mover has an edge per hand too"),
    )),
    ("Which strategy is best?", (
        ("field", "marjj_field_games", "marjj, the EAAI-21 competition winner (ported exactly), wins most games "
                                       "against the field of ginsim's players"),
        ("field", "marjj_beats_mc_games", "marjj beats ginsim's Monte Carlo search player, mc"),
        ("strong_players", "mc_vs_expert_tournament", "mc nets points per hand against ginsim's hand-written "
                                                      "expert"),
    )),
)


def rules_words(root: str | Path, study: str, variant: str) -> str:
    """The rules of ``variant`` of ``study`` (``experiments/STUDY.toml``) as reports print
    them (``analysis.claims.rules_text``), or the variant's name when the study keeps its
    rules elsewhere (a tuning folder)."""
    from ..run.experiment import read_toml_file

    path = Path(root) / "experiments" / f"{study}.toml"
    variants = read_toml_file(path, "an experiment file", ValueError).get("variants", {}) if path.exists() else {}
    return rules_text(variant, variants if isinstance(variants, dict) else {})


def _kind(content: dict[str, Any]) -> dict[str, Any]:
    return {"metric": content["metric"], "unit": content["unit"]}


def _claimed(content: dict[str, Any]) -> str:
    return assertion_text({**_kind(content), "assertion": {k: content[k] for k in ASSERTIONS if k in content}})


def _power_words(test: Test, level: float) -> str:
    flag = " — **underpowered**" if test.underpowered else ""
    return f"planned power {test.planned_power:.0%}{flag}; as run {test.power_as_run(level):.0%}"


def test_line(test: Test, level: float) -> str:
    """One test as the claims page shows it: the confirmation's estimate first, the bound
    its test used, the record's Holm p, the powers, and the study's (selected) estimate."""
    content, e = test.record.claim, test.entry
    kind = _kind(content)
    reused = (f" **Reused seeds**: played the deals of `{test.reused_from}`'s confirmation on this salt, seen "
              f"before this claim was written; it cannot confirm it." if test.reused_from else "")
    return (f"salt `{e['salt']}` ({e['date'][:10]}): confirmation {format_estimate({**kind, **e}, 'confirmation')} "
            f"on {e['confirmation']['n']:,} {content['unit']}s, test's bound {format_test_bound(kind, e['test_interval'])}, "
            f"Holm p = {test.p:.2g} over the record; {_power_words(test, level)}; study "
            f"{format_estimate({**kind, **e}, 'original')} (selected: where the claim was chosen).{reused}")


def _one_test(claim: Claim) -> Test:
    """The test a headline quotes: the first one that confirms the claim."""
    return min((t for t in claim.tests if t.counts), key=lambda t: t.p)


def front_block(root: str | Path) -> str:
    """The README's opening answers (``FRONT``), each with its confirmation estimate, its
    interval and its rules, and the count of the whole record."""
    whole = whole_record(root)
    standing = [c for c in whole.active() if c.standing]
    lines = [FRONT_BEGIN, ""]
    for question, answers in FRONT:
        lines += [f"**{question}**", ""]
        for study, claim_id, words in answers:
            claim = whole.claim(claim_id)
            content = claim.record.claim
            if not claim.standing:
                lines.append(f"* {words}: **no longer stands** in the record ({claim.status}; `{claim_id}`).")
                continue
            t = _one_test(claim)
            _, _, unit_text, _ = _scale(content["metric"], content["unit"])
            e = t.entry
            flag = ", **underpowered**" if t.underpowered else ""
            lines.append(f"* {words}: **{format_estimate({**_kind(content), **e}, 'confirmation')}** {unit_text} on "
                         f"{e['confirmation']['n']:,} fresh {content['unit']}s, planned power "
                         f"{t.planned_power:.0%}{flag} ({display_spec(content['a'])} vs "
                         f"{display_spec(content['b'])}; "
                         f"rules {rules_words(root, study, content['rules'])}). `{claim_id}`")
        lines.append("")
    lines += [f"Each answer is a claim registered before its confirmation and confirmed on seeds its study never used, "
              f"with the 95% interval of the confirmation and the power its size was planned for in the ledger "
              f"before it played. The whole record is one family: **{whole.size} tests of "
              f"{len(whole.claims)} claims** in {whole.ledgers} ledgers, Holm at {ALPHA:.0%} family-wise across all "
              f"of them; **{len(standing)} of the {len(whole.active())} claims in force stand**. Every claim, every "
              f"test and what does not stand: [docs/claims.md](docs/claims.md).", "", FRONT_END]
    return "\n".join(lines)


def record_page(root: str | Path) -> str:
    """``docs/claims.md``: the whole record, study by study: each claim with its status,
    what it claims, the source of its margin and every test of it."""
    whole = whole_record(root)
    level = whole.level
    active = whole.active()
    standing = [c for c in active if c.standing]
    counts = {s: sum(c.status == s for c in active) for s in
              ("confirmed", "inconclusive", "not replicated", "not yet tested on seeds of its own", "not yet tested")}
    under = [t for t in whole.tests if t.underpowered]
    margins = {s: sum(c.record.margin_from == s for c in whole.claims) for s in MARGIN_SOURCES}
    reused = [t for t in whole.tests if not t.counts]
    lines = [PAGE_MARK, "# Every claim and every test", "",
             f"The record holds **{whole.size} tests** (every `confirm` entry of the {whole.ledgers} ledgers in "
             f"`experiments/ledger/`: every study, every salt, the tests of withdrawn claims too) of "
             f"**{len(whole.claims)} claims**, {len(active)} in force and {len(whole.claims) - len(active)} withdrawn. "
             f"They are one family: Holm's step-down method at {ALPHA:.0%} family-wise across all {whole.size} tests "
             f"(valid whatever the dependence between them). A claim **stands** when one of its tests survives; it "
             f"is *not replicated* when the contradiction of one does, else *inconclusive*. The record only grows: "
             f"each new test makes every threshold stricter, so a claim standing today can stop standing; `ginsim "
             f"confirm` plans a new confirmation at the record's size after it.", "",
             f"Of the {len(active)} claims in force, **{len(standing)} stand**; "
             + ", ".join(f"{n} {s}" for s, n in counts.items() if n and s != "confirmed") + ".", "",
             f"*Planned power* is what the ledger's plan recorded before the test played (at the conservative effect "
             f"and the level of the family it was planned for); a test planned below {UNDERPOWERED:.0%} is marked "
             f"**underpowered** ({len(under)} of {whole.size}: a capped size). *As run* is the test's power at the "
             f"same effect with its own standard error, at the record's first Holm step today (α / {whole.size}). "
             f"*Reused seeds* ({len(reused)} tests): a restated claim confirmed on the salt its withdrawn twin was "
             f"confirmed on plays the same deals, seen before the claim was written; such a test counts in the "
             f"family's size but confirms nothing. Each test shows the confirmation's estimate first; the study's "
             f"estimate is *selected* (the claim was chosen there, so it runs high). *Margin from* says where the "
             f"claim's bound came from: development seeds, the study's own data, an earlier confirmation's fresh data "
             f"(a restated claim) or before any data; "
             + ", ".join(f"{n} from {MARGIN_WORDS[s]}" for s, n in margins.items() if n)
             + " (for claims registered before the ledger kept it, recorded later from the git history).", "",
             "Re-make this page and the README's opening from the ledgers with `python -m simulator.studies.record "
             "--write`; `--check` fails when either differs.", ""]
    for study in dict.fromkeys(c.study for c in whole.claims):
        mine = [c for c in whole.claims if c.study == study]
        lines += [f"## {study}", ""]
        for c in mine:
            content = c.record.claim
            status = c.status if c.record.active else f"withdrawn ({c.record.withdrawn['date'][:10]}); its tests " \
                                                      f"still count"
            if "metric" not in content:  # registered from a withdrawn-claims list, with its statement only
                lines.append(f"* **`{c.record.id}`** — {status}. {content['statement']} (registered with its "
                             f"statement only).")
            else:
                _, _, unit_text, _ = _scale(content["metric"], content["unit"])
                who = "" if content["metric"] == "field_edge" else \
                    f"{display_spec(content['a'])} vs {display_spec(content['b'])}, "
                lines.append(f"* **`{c.record.id}`** — {status}. {content['statement']} ({who}rules "
                             f"{rules_words(root, study, content['rules'])}; {unit_text}; claimed "
                             f"{_claimed(content)}).")
            lines.append(f"  * Margin from {c.record.margin_text()}.")
            lines += [f"  * {test_line(t, level)}" for t in c.tests]
            if c.record.withdrawn:
                lines.append(f"  * Withdrawn: {c.record.withdrawn['reason']}")
        lines.append("")
    return "\n".join(lines)


def readme_with_front(readme: str, block: str) -> str:
    """``readme`` with its answers block replaced by ``block`` (a ValueError if it has none)."""
    begin, end = readme.find(FRONT_BEGIN[:20]), readme.find(FRONT_END)
    if begin < 0 or end < begin:
        raise ValueError(f"README.md has no answers block ({FRONT_BEGIN[:20]} ... {FRONT_END})")
    return readme[:begin] + block + readme[end + len(FRONT_END):]


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulator.studies.record",
                                     description="Write or check docs/claims.md and README.md's opening answers from "
                                                 "experiments/ledger/*.jsonl.")
    parser.add_argument("--root", default=".", help="the checkout (default: the current directory)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite both")
    mode.add_argument("--check", action="store_true", help="exit 1 when either differs")
    args = parser.parse_args(argv)
    try:
        return _main(Path(args.root), args.check)
    except ValueError as exc:  # a ledger or study file that cannot be read: one line
        print(f"python -m simulator.studies.record: error: {exc}", file=sys.stderr)
        return 2


def _main(root: Path, check: bool) -> int:
    readme = root / "README.md"
    old = {readme: readme.read_text(encoding="utf-8"),
           root / PAGE: (root / PAGE).read_text(encoding="utf-8") if (root / PAGE).is_file() else ""}
    new = {readme: readme_with_front(old[readme], front_block(root)), root / PAGE: record_page(root)}
    stale = [path for path in new if new[path] != old[path]]
    if check:
        for path in stale:
            print(f"{path}: differs from experiments/ledger/*.jsonl; run python -m simulator.studies.record --write",
                  file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        _write(path, new[path])
    return 0


if __name__ == "__main__":
    sys.exit(main())
