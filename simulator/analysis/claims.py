"""How a study's claims and their confirmation are printed, and the report's claims findings.

``ginsim confirm`` (``simulator.studies.confirm``) writes ``confirm.json`` and ``confirm.md``
into a study's results directory (docs/experiments.md, "Claims and confirmation").  This
module holds the pure formatting both it and the reports use — a claim metric's
scale and unit text (``scale``), one value (``number``) and an estimate with its 95%
interval (``format_estimate``), the interval a claim's test used (``format_test_bound``) — and ``claims_findings``: the lines the report's
"Findings" section leads with when the run directory holds a ``confirm.json`` of this
run's experiment and seeds.  It imports nothing from ``simulator.studies`` (the layering
in pyproject.toml: analysis sits below studies).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..run.rundir import RunError, is_confirmation_file, read_sealed


#: metric -> unit -> (stats column, how the value maps when a and b are the cell's b and a, null value)
METRICS: dict[str, dict[str, tuple[str, str, float]]] = {
    "net_points": {"hand": ("net_mean", "negate", 0.0), "game": ("margin_mean", "negate", 0.0)},
    "win_share": {"hand": ("win_rate", "complement", 0.5), "game": ("win_prob", "complement", 0.5)},
    "first_mover_edge": {"hand": ("first_mover_edge", "same", 0.0), "game": ("first_mover_edge", "same", 0.0)},
    "length": {"hand": ("draws_mean", "same", 0.0), "game": ("hands_mean", "same", 0.0)},
    # a tuning's claims (claims.toml in a folder of tuning specs): the tuned policy's value
    # against the weighted field minus a baseline's, on the same deals (tune.json's "edge")
    "field_edge": {"hand": ("edge", "same", 0.0), "game": ("edge", "same", 0.0)},
    # a decision-values study's claims (simulator.studies.decision_values): the full player's
    # result against ``opponent`` minus the hybrid's (a = the player, b = the hybrid), on the same deals
    "decision_loss": {"hand": ("loss", "same", 0.0), "game": ("loss", "same", 0.0)},
}
ASSERTIONS = ("sign", "above", "below", "interval", "delta")


def scale(metric: str, unit: str) -> tuple[float, int, str, bool]:
    """(multiplier, decimals, unit text, signed) for printing a metric."""
    if metric == "win_share":
        return 100.0, 1, f"share of {unit}s won", False
    if metric == "first_mover_edge" and unit == "game":
        return 100.0, 1, "percentage points of game-win probability to the first mover", True
    if metric == "first_mover_edge":
        return 1.0, 2, "points per hand to the first mover", True
    if metric == "field_edge":
        return (1.0, 3, "points per hand against the field", True) if unit == "hand" else \
            (100.0, 2, "percentage points of game-win probability against the field", True)
    if metric == "decision_loss":
        return (1.0, 3, "points per hand lost by the swap", True) if unit == "hand" else \
            (100.0, 2, "percentage points of games won lost by the swap", True)
    if metric == "length":
        return 1.0, 1, "cards drawn per hand" if unit == "hand" else "hands per game", False
    return 1.0, 2 if unit == "hand" else 1, f"points per {unit}", True


def number(entry: dict[str, Any], value: float) -> str:
    """One value of a claim's metric as the tables print it (``+3.76``, ``68.1%``)."""
    mult, dec, _, signed = scale(entry["metric"], entry["unit"])
    text = f"{mult * value:{'+' if signed else ''}.{dec}f}".replace("-", "−")
    return text + ("%" if entry["metric"] == "win_share" else "")


def format_estimate(entry: dict[str, Any], which: str) -> str:
    """``+3.76 [+3.67, +3.84]`` (or ``68.1% [67.0, 69.3]``) of the original or confirmation."""
    e = entry[which]
    values = [number(entry, e[k]).rstrip("%") for k in ("estimate", "low", "high")]
    pct = "%" if entry["metric"] == "win_share" else ""
    return f"{values[0]}{pct} [{values[1]}, {values[2]}]"


def assertion_text(entry: dict[str, Any]) -> str:
    """What a claim asserts, as the tables print it: ``> 3.5``, ``< 45%``, ``in [a, b]``,
    ``within ±0.05 of 0 (equivalence)``."""
    (kind, value), = entry["assertion"].items()
    mult, dec, _, _ = scale(entry["metric"], entry["unit"])
    pct = "%" if entry["metric"] == "win_share" else ""
    num = (lambda v: f"{mult * v:.{dec + 1}f}".rstrip("0").rstrip(".").replace("-", "−") + pct)
    if kind == "sign":
        null = METRICS[entry["metric"]][entry["unit"]][2]
        return f"{'>' if value == 'positive' else '<'} {num(null)}"
    if kind == "above":
        return f"> {num(value)}"
    if kind == "below":
        return f"< {num(value)}"
    if kind == "interval":
        return f"in [{num(value[0])}, {num(value[1])}]"
    null = METRICS[entry["metric"]][entry["unit"]][2]
    return f"within ±{num(value)} of {num(null)} (equivalence)"


def format_test_bound(entry: dict[str, Any], interval: list[float | None]) -> str:
    """The interval a claim's test used, as printed beside it: ``≥ +0.009`` (a one-sided
    95% bound of a claim of "above"), ``≤ 40.2%`` (of "below"), ``90% [−0.06, +0.07]`` (the
    90% interval of an equivalence or interval claim)."""
    low, high = interval
    shown = [number(entry, v) if v is not None else None for v in (low, high)]
    if low is not None and high is not None:
        return f"90% [{shown[0]}, {shown[1]}]"
    return f"≥ {shown[0]}" if low is not None else f"≤ {shown[1]}"


#: what the report reads of each claim of a confirm.json (its numbers: estimate, low, high, n)
CLAIM_FIELDS = ("id", "statement", "metric", "unit", "a", "b", "rules", "status", "original", "confirmation")
ESTIMATE_FIELDS = ("estimate", "low", "high", "n")
WITHDRAWN_FIELDS = ("id", "statement", "reason")


def _check(confirmation: Any, path: Path) -> dict[str, Any]:
    """``confirmation`` when it has every field the report reads; else a RunError naming the field."""
    def fail(field: str) -> RunError:
        return RunError(f"{path}: {field} is missing or not as ginsim confirm writes it; re-run ginsim confirm "
                        f"or move the file away")

    if not isinstance(confirmation, dict) or not isinstance(confirmation.get("study"), str):
        raise fail("study")
    for key, fields in (("claims", CLAIM_FIELDS), ("withdrawn", WITHDRAWN_FIELDS)):
        entries = confirmation.get(key, [])
        if not isinstance(entries, list):
            raise fail(key)
        for i, e in enumerate(entries):
            missing = [f for f in fields if not isinstance(e, dict) or f not in e]
            if missing:
                raise fail(f"{key}[{i}].{missing[0]}")
            for which in ("original", "confirmation") if key == "claims" else ():
                bad = [f for f in ESTIMATE_FIELDS if not isinstance(e[which], dict)
                       or not isinstance(e[which].get(f), (int, float)) or isinstance(e[which].get(f), bool)]
                if bad:
                    raise fail(f"{key}[{i}].{which}.{bad[0]}")
    return confirmation


def confirmation_of(folders: list[Path]) -> tuple[Path, dict[str, Any]] | None:
    """The first ``confirm.json`` written by ginsim confirm in ``folders`` (the run directory,
    then the report's output directory), with its contents; None when there is none.  It is
    read as every file of a run is (bounded, no link, never waited on) and must carry the
    seal ginsim confirm gave it (``rundir.read_sealed``): an edited one, or one that is not
    valid JSON or lacks a field the report reads, is a ``RunError`` naming it."""
    for folder in folders:
        path = Path(folder) / "confirm.json"
        if is_confirmation_file(path):  # (a regular file, not a link, carrying ginsim confirm's mark)
            data = read_sealed(path, "a confirmation", "re-run ginsim confirm, or move the file away (a "
                                                        "confirm.json of an earlier ginsim is sealed as it stands by "
                                                        "ginsim seal DIR)")
            return path, _check(data, path)
    return None


def belongs_to_run(confirmation: dict[str, Any], manifest: dict[str, Any]) -> bool:
    """True when ``confirmation`` confirms this run's study: the same study name as the
    manifest's experiment, and every claim's cells carry the study seed the manifest gives
    that cell (a study run again on another seed has other cell seeds)."""
    if confirmation.get("study") != manifest.get("experiment", {}).get("name"):
        return False
    seeds = {c.get("cell"): c.get("seed") for c in manifest.get("cells", [])}
    cells = [c for e in confirmation.get("claims", []) for c in e.get("cells", [])]
    return all(isinstance(c, dict) and "cell" in c and seeds.get(c["cell"], object()) == c.get("study")
               for c in cells)


def rules_text(rules: Any, variants: dict[str, Any] | None = None) -> str:
    """A claim's rules as reports print them: a preset with its rules in words
    (``simulator.core.rules.describe_rules``), a study's variant (``variants``: the study's
    ``[variants.NAME]`` tables) as its name and its rules in words."""
    from ..core.rules import describe_rules

    variant = (variants or {}).get(rules) if isinstance(rules, str) else None
    if isinstance(variant, dict):
        if set(variant) == {"preset"} and variant["preset"] == rules:
            return describe_rules(rules)
        words = describe_rules(variant)
        return rules if words == rules else f"{rules} = {words}"
    return describe_rules(rules) if isinstance(rules, (str, dict)) else str(rules)


def claim_text(claim: dict[str, Any], confirmations: list[dict[str, Any]],
               variants: dict[str, Any] | None = None, standing: str | None = None) -> str:
    """One claim as every report prints it (the run report's findings, each study report's
    claims section, ``simulator.studies.reports``): ``Claim ID (STATUS): statement (A vs B,
    rules in words; unit): study ESTIMATE [95%] (n = N), confirmation ESTIMATE [95%] (n = N)
    (salt, date, the bound its test used: status)`` and so on for every confirmation, the
    latest one's status in the head (``standing``, when given, instead: a study's report shows
    the claim's standing in the whole record, ``simulator.studies.record``).  ``claim`` holds the claim's content (statement, metric,
    unit, a, b, rules); each confirmation its ``original`` and ``confirmation`` numbers, its
    ``status`` and, from a ledger, ``salt``, ``date`` and ``test_interval``.  Specs are
    written as people read them (``strategies.display_spec``: a solved knock table by name)."""
    from strategies import display_spec

    if "metric" not in claim:
        return f"Claim {claim.get('id', '?')} (recorded with its statement only): {claim.get('statement', '')}."
    kind = {"metric": claim["metric"], "unit": claim["unit"]}
    _, _, unit_text, _ = scale(claim["metric"], claim["unit"])
    who = "" if claim["metric"] == "field_edge" else f"{display_spec(claim['a'])} vs {display_spec(claim['b'])}, "
    status = standing or (confirmations[-1]["status"] if confirmations else "registered, not confirmed yet")
    text = f"Claim {claim['id']} ({status}): {claim['statement']} ({who}{rules_text(claim['rules'], variants)}; {unit_text})"
    if not confirmations:
        return text + "."
    first = {**kind, **confirmations[0]}
    parts = [f"study {format_estimate(first, 'original')} (n = {first['original']['n']:,})"]
    for c in confirmations:
        entry = {**kind, **c}
        detail = [x for x in (c.get("salt"), str(c.get("date", ""))[:10]) if x]
        if c.get("test_interval"):
            detail.append(f"test's bound {format_test_bound(entry, c['test_interval'])}")
        parts.append(f"confirmation {format_estimate(entry, 'confirmation')} (n = {c['confirmation']['n']:,})"
                     + (f" ({', '.join(detail)}: {c['status']})" if detail else ""))
    return text + ": " + ", ".join(parts) + "."


def withdrawn_text(claim_id: str, statement: str, reason: str, date: str | None = None) -> str:
    """A withdrawn claim as every report prints it: never as standing."""
    when = f" on {date[:10]}" if date else ""
    return f"Withdrawn claim {claim_id}: {statement} — withdrawn{when}: {reason} (not a standing claim)"


def claims_findings(confirmation: dict[str, Any], manifest: dict[str, Any]) -> list[str]:
    """The report's findings from the study's declared claims in ``confirmation`` (a
    confirm.json), each printed by ``claim_text``; each withdrawn claim by
    ``withdrawn_text``.  One sentence and nothing listed when the confirmation belongs to
    other seeds of the study (or another study)."""
    if not belongs_to_run(confirmation, manifest):
        return [f"The directory's confirm.json (study {confirmation.get('study', '?')}) belongs to other seeds "
                f"than this run's, so its claims are not shown as this run's."]
    items = [claim_text(e, [e]) for e in confirmation.get("claims", [])]
    items += [withdrawn_text(w["id"], w["statement"], w["reason"]) for w in confirmation.get("withdrawn", [])]
    return items
