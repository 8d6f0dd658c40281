"""What ``ginsim confirm`` writes: ``confirm.md``, the confirmation told for a reader, and
``confirm.json``, its result sealed (``simulator.run.rundir.seal``), each written atomically
into the output directory, never over a file of that name ginsim confirm did not write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..analysis.claims import assertion_text, format_estimate, format_test_bound
from ..analysis.claims import number as _number
from ..analysis.claims import scale as _scale
from ..run.rundir import CONFIRMATION_FILES, is_confirmation_file, seal
from .claims_file import ClaimError
from .confirm import ALPHA, FIELD, MD_MARK
from .record import RECORD_FAMILY


def render_markdown(result: dict[str, Any]) -> str:
    from strategies import display_spec

    n_claims = result["holm"]["size"]
    family = result["family"]
    tuning = any(e["metric"] == "field_edge" for e in result["claims"])
    decisions = ("; each claim plays the full player (a) and the hybrid (b) against the opponent on the same "
                 "mirrored deals, with the engine seed derived from the confirmation seed as the study derives "
                 "its own (`cells[].confirmation` in confirm.json).")
    streams = ("; each policy plays the tuning's field on the streams `ginsim tune` keys by (seed, \"fresh\", "
               "opponent), with the confirmation seed in place of the tuning's (`cells[].confirmation` in "
               "confirm.json), both policies on the same deals.")
    cells = ("; each cell plays with the runner's cell seed derived from it (`cells[].confirmation` in "
             "confirm.json: `simulate(a, b, rules, n, seed=...)` re-plays it)."
             + (" A claim against the `field` is the mean over every cell where its strategy meets another, each "
                "opponent weighing the same (as the report's ranking)."
                if any(e["b"] == FIELD for e in result["claims"]) else ""))
    which = (f"the whole record's {family['size']} tests (every confirmation in every ledger, this one's included)"
             if family["name"] == RECORD_FAMILY else
             f"the README's headline family of {family['size']} claims" if family["name"] == "headlines" else
             f"the study's {family['size']} claim{'s' if family['size'] != 1 else ''}")
    lines = [MD_MARK, f"# Confirmation of {result['study']}", "",
             f"Claims: `{result['claims_file']}`; study: `{result['experiment']}` (seed {result['study_seed']}); "
             f"every claim is registered in the study's ledger (`ginsim claims log {result['study']}`).",
             f"Confirmation seed {result['seed']}, derived from the study seed and the salt `{result['salt']}`"
             + (streams if tuning else decisions if result.get("kind") == "decision_values" else cells),
             f"**Sizes** were fixed before playing and written to the ledger first (its `plan` entries): from "
             f"the study's own variance, for {result['power_target']:.0%} power at a conservative effect (*powered "
             f"for*: the claim's declared `effect`, else the edge of the study's 95% interval nearest the claimed "
             f"bound, since the study's own estimate is inflated by the choice of what to claim), one-sided at "
             f"level {ALPHA:.0%} / {family['size']} for {which} (Holm's first step), capped at "
             f"{result['caps']['deals']:,} deals and {result['caps']['games']:,} games per claim. *Power* is at "
             f"that effect; a claim whose conservative effect is outside its claimed region plays the cap.",
             f"**Status**, Holm at {ALPHA:.0%} over the study's {n_claims} claim{'s' if n_claims != 1 else ''}: "
             f"*replicated* when the claim's Holm-adjusted p-value is at most 5%; *not replicated* when the "
             f"estimand lies outside the claimed region at that level; *inconclusive* otherwise. The README's "
             f"record (docs/claims.md) tests the same p-values again, in one family with every confirmation of "
             f"every ledger. *Test's "
             f"bound*: what the test compares with the claimed region (a one-sided claim's one-sided 95% bound, "
             f"an equivalence or interval claim's 90% interval).",
             "A second confirmation uses a new salt (`ginsim confirm STUDY --salt NAME`) and a size fixed in the "
             "ledger before it plays: it never extends this one. Every confirmation stays in the ledger and is "
             "listed below.", "",
             "z is the confirmation's estimate minus the study's over the standard error of the difference "
             "(|z| > 2: the two disagree by more than sampling error).", "",
             "| id | claim | a vs b, rules | asserts | study (n) | confirmation (n) | test's bound | powered for | "
             "power | z | p | status |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for e in result["claims"]:
        _, _, unit_text, _ = _scale(e["metric"], e["unit"])
        lines.append(f"| {e['id']} | {e['statement']} | {display_spec(e['a'])} vs {display_spec(e['b'])}, {e['rules']} | "
                     f"{unit_text} "
                     f"{assertion_text(e)} | {format_estimate(e, 'original')} ({e['original']['n']:,}) | "
                     f"{format_estimate(e, 'confirmation')} ({e['confirmation']['n']:,}) | "
                     f"{format_test_bound(e, e['test_interval'])} | {_number(e, e['powered_for'])} "
                     f"({e['effect_from']}) | {e['power']:.0%} | {e['z']:+.1f} | {e['p']:.2g} | **{e['status']}** |")
    reduced = [e for e in result["claims"] if e.get("estimator")]
    if reduced:
        lines += ["", "## Estimators", "", "Every figure above is the plain mean over mirrored pairs except these "
                  "claims', whose study and confirmation figures were both estimated with control variates on the same "
                  "pairs (docs/analysis.md): the draws' luck, reading the tables their registered content names, "
                  "and/or the players' self-play:", ""]
        lines += [f"* `{e['id']}`: {e['estimator']}"
                  + "".join(f", `{t.split(':')[0]}` (sha256 {t.split(':')[1][:12]})" for t in e["tables"] or ())
                  + f"; the plain mean of the same units: study {format_estimate(e | e['plain'], 'original')}, "
                    f"confirmation {format_estimate(e | e['plain'], 'confirmation')}" for e in reduced]
    notes = [e for e in result["claims"] if e.get("note")]
    if notes:
        lines += ["", "## Notes", ""] + [f"* `{e['id']}`: {e['note']}" for e in notes]
    earlier = [(e, c) for e in result["claims"] for c in e.get("earlier", [])]
    if earlier:
        lines += ["", "## Earlier confirmations", "", "Recorded in the ledger with other salts (each on its own "
                  "seeds and sizes; none replaces another):", ""]
        lines += [f"* `{e['id']}`, salt `{c['salt']}` ({c['date'][:10]}): {format_estimate(c | _kind(e), 'confirmation')} "
                  f"(n = {c['confirmation']['n']:,}), test's bound {format_test_bound(e, c['test_interval'])}, "
                  f"p = {c['p']:.2g}: {c['status']}." for e, c in earlier]
    if result["withdrawn"]:
        lines += ["", "## Withdrawn claims", ""]
        lines += [f"* `{w['id']}`: {w['statement']} — withdrawn: {w['reason']}" for w in result["withdrawn"]]
    lines += ["", "## Closing note", ""]
    for e in result["claims"]:
        lines.append(f"* `{e['id']}` ({e['status']}): study {format_estimate(e, 'original')}, confirmation "
                     f"{format_estimate(e, 'confirmation')}, test's bound {format_test_bound(e, e['test_interval'])}.")
    return "\n".join(lines) + "\n"


def _kind(entry: dict[str, Any]) -> dict[str, Any]:
    """The fields that say how a claim's numbers print (its metric and unit)."""
    return {"metric": entry["metric"], "unit": entry["unit"]}


def render_json(result: dict[str, Any]) -> str:
    """``confirm.json``: the result, sealed (``rundir.seal``), so that a report refuses it
    once edited."""
    return json.dumps(seal(result), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def _outputs(result: dict[str, Any] | None = None) -> list[tuple[str, str, str | None]]:
    """(file name, its mark, its text) of each file ``ginsim confirm`` writes."""
    return [("confirm.json", CONFIRMATION_FILES["confirm.json"], result and render_json(result)),
            ("confirm.md", MD_MARK, result and render_markdown(result))]


def check_outputs(out: str | Path) -> None:
    """Refuse (one line) an output directory holding a ``confirm.json`` or ``confirm.md``
    that ginsim confirm did not write: checked before playing, and again before writing."""
    for name, _, _ in _outputs():
        path = Path(out) / name
        if path.exists() and not is_confirmation_file(path):
            raise ClaimError(f"{path} exists and was not written by ginsim confirm; move it away")


def write_confirmation(result: dict[str, Any], out: str | Path) -> tuple[Path, Path]:
    """Write ``confirm.json`` and ``confirm.md`` into ``out``, each atomically; refuses, before
    writing either, to replace a file of that name that ginsim confirm did not write."""
    from ..analysis.rendering import atomic_write

    out = Path(out)
    outputs = _outputs(result)
    check_outputs(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, _, text in outputs:
        atomic_write(out / name, text)
    return out / "confirm.json", out / "confirm.md"
