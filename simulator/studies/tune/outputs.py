"""A tuning's outputs: ``best.toml`` (written with ``tomli_w``), ``tune.json``, the report
(``simulator.studies.tune.report``), and the summary table over several tunings.

Every file carries a ginsim mark (``MARK``), so a rerun replaces its own files and refuses
to overwrite anyone else's.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ...analysis.rendering import atomic_write
from .report import _fmt_ci, describe_policy, write_report
from .spec import TuneError, TuneSpec

#: the files a tuning writes besides its figures (all carry a ginsim mark)
TUNE_FILES = ("best.toml", "tune.json", "report.md", "report.html")
FIGURES = ("convergence.png", "importance.png", "policy.png", "edges.png")
MARK = "written by ginsim tune"


def _mark_ours(path: Path) -> bool:
    """True when ``path`` does not exist or carries ginsim's mark (a file ginsim may replace)."""
    from ...analysis.rendering import written_by_ginsim

    if not path.exists():
        return True
    if path.suffix in (".png", ".md", ".html") and written_by_ginsim(path):
        return True
    from ...run.rundir import head_of

    return MARK.encode() in head_of(path, 400)  # read as every run file is: a FIFO is never waited on


def best_document(result: dict[str, Any]) -> dict[str, Any]:
    """What ``best.toml`` holds, as data: the best policy (``strategy``, a spec string), its
    tuned parameters, its value on the tuning and on fresh deals, and its fresh edge over
    each baseline with the paired 95% interval (values rounded to 6 decimals)."""
    rows = {r["name"]: r for r in result["fresh"]["rows"]}
    tuned = rows["tuned"]
    return {
        "name": result["name"],
        "strategy": result["strategy"],
        "objective": result["objective"],
        "field": [o["strategy"] for o in result["opponents"]],
        "weights": [o["weight"] for o in result["opponents"]],
        "tuning_value": round(result["tuning_value"], 6),
        "fresh_value": round(tuned["value"], 6),
        "fresh_ci95": [round(x, 6) for x in tuned["ci"]],
        "rules": dict(result["rules"]),
        "params": dict(result["tuned_params"]),
        "edges": {name: {"strategy": r["strategy"], "edge": round(r["edge"], 6),
                         "ci95": [round(x, 6) for x in r["edge_ci"]]}
                  for name, r in rows.items() if name != "tuned"},
    }


def best_toml(result: dict[str, Any]) -> str:
    """``best.toml``'s text: a commented header, then ``best_document`` as TOML."""
    import tomli_w

    unit = result["budget"]["unit"]
    header = [
        f"# {MARK} from {result['spec_file']}: the best policy found, and how it did on fresh {unit}.",
        "# `strategy` is a spec string: paste it wherever ginsim takes a strategy.",
        f"# tuning_value: on the tuning {unit} (selection-biased); fresh_value and fresh_ci95: on fresh {unit}.",
        f"# [edges]: the tuned policy's edge over each baseline on the same fresh {unit}, with its paired 95% "
        f"interval.",
    ]
    return "\n".join(header) + "\n" + tomli_w.dumps(best_document(result))


def write_outputs(spec: TuneSpec, study, result: dict[str, Any], out: Path) -> list[Path]:
    """best.toml, tune.json, report.md, report.html and the figures, each written whole."""
    written = []
    path = out / "best.toml"
    atomic_write(path, best_toml(result))
    written.append(path)
    path = out / "tune.json"
    atomic_write(path, json.dumps({"_": MARK, **result}, indent=1, default=float) + "\n")
    written.append(path)
    written += write_report(spec, study, result, out)
    return written


def write_summary(results: list[dict[str, Any]], path: str | Path, title: str | None = None) -> Path:
    """One Markdown table over several tunings (e.g. one per rule variant): the best
    policy, its fresh value, and its fresh edges over every baseline, with intervals."""
    from ...core.rules import resolve_rules

    path = Path(path)
    if path.exists() and not _mark_ours(path):
        raise TuneError(f"{path} exists and was not written by ginsim; move it away or choose another --summary")
    prefix = os.path.commonprefix([r["name"] for r in results]) if len(results) > 1 else ""
    prefix = prefix[: prefix.rfind("_") + 1] if "_" in prefix else ""
    if title is None:
        title = f"Study {prefix.rstrip('_')}: the tuned policy of each tuning" if prefix else "Tuning summary"
    lines = [f"<!-- {MARK}; rerun the tuning to replace this file -->", f"# {title}", "",
             "One row per tuning (`ginsim tune`). 'best policy' is the best complete trial of the search; every "
             "other figure comes from fresh deals (or games) never used in the search, so selection bias is "
             "removed: 'tuned vs field' is the tuned policy's objective against the weighted field, and each "
             "'edge over' is the tuned policy's value minus the baseline's on the same fresh deals, with its "
             "paired 95% interval (Student t over mirrored-pair units). Points per hand for net points; "
             "percentage points for game-win probability. A threshold never exceeds the deal's knock limit "
             "(under oklahoma, the upcard's value). Each tuning's own report has the details.", ""]
    baseline_names: list[str] = []
    for r in results:
        for row in r["fresh"]["rows"][1:]:
            base = row["name"].split(" (")[0]
            if base not in baseline_names:
                baseline_names.append(base)
    head = ["tuning", "rules", "objective", "best policy", "spec", "tuned vs field"] + \
        [f"edge over {b}" for b in baseline_names]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] * 5 + ["---:"] * (len(head) - 5)) + "|")
    for r in results:
        rows = r["fresh"]["rows"]
        rules = resolve_rules(dict(r["rules"]))
        link = Path(os.path.relpath(Path(r.get("out", r["name"])).resolve() / "report.md", path.resolve().parent))
        cells = [f"[{r['name'][len(prefix):] or r['name']}]({link.as_posix()})", r["rules_label"], r["objective_text"],
                 describe_policy(r["strategy"], rules), f"`{r['strategy']}`",
                 _fmt_ci(r["objective"], rows[0]["value"], rows[0]["ci"])]
        by_base = {row["name"].split(" (")[0]: row for row in rows[1:]}
        for b in baseline_names:
            row = by_base.get(b)
            if row is None:
                cells.append("–")
                continue
            text = _fmt_ci(r["objective"], row["edge"], row["edge_ci"], True)
            if "(" in row["name"]:
                param = row["name"].split(" (")[0].split()[-1]
                text += f" ({param} = {row['name'].split('(')[1].rstrip(')')})"
            cells.append(text)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    atomic_write(path, "\n".join(lines) + "\n")
    return path


# ----------------------------------------------------------------------------- what ginsim tune prints

def summary_lines(result: dict[str, Any], seconds: float, name: str) -> list[str]:
    """The lines ``ginsim tune`` prints for the tuning ``name``'s ``result`` (played in
    ``seconds``, or read from its ``tune.json``): the tuned policy's fresh value and its edge
    over each baseline."""
    tuned = result["fresh"]["rows"][0]
    lines = [f"{name}: {result['strategy']}  fresh {result['objective_text']} {tuned['value']:+.4f} "
             f"[{tuned['ci'][0]:+.4f}, {tuned['ci'][1]:+.4f}]  ({seconds:.1f} s)"]
    lines += [f"  edge over {row['name']:<32} {row['edge']:+.4f} [{row['edge_ci'][0]:+.4f}, {row['edge_ci'][1]:+.4f}]"
              for row in result["fresh"]["rows"][1:]]
    if result.get("not_reproducible"):  # a tune.json written before ginsim recorded it has none
        lines.append(f"  not reproducible from its spec and seed: {result['not_reproducible']}")
    return lines


def json_record(result: dict[str, Any], seconds: float, name: str, out: Path) -> dict[str, Any]:
    """One tuning's record in ``ginsim tune --json`` (docs/cli.md)."""
    from ...analysis.summary import estimate

    tuned, units = result["fresh"]["rows"][0], int(result["fresh"]["units"])
    return {
        "name": name, "out": str(out), "strategy": result["strategy"],
        "tuned_params": result["tuned_params"], "objective": result["objective"],
        "objective_text": result["objective_text"], "seconds": round(seconds, 3),
        "fresh": estimate(tuned["value"], *tuned["ci"], units, "pair"),
        "edges": [{"baseline": row["name"], "strategy": row["strategy"],
                   "edge": estimate(row["edge"], *row["edge_ci"], units, "pair")}
                  for row in result["fresh"]["rows"][1:]],
        "not_reproducible": result.get("not_reproducible")}
