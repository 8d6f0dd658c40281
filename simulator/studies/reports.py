"""The claims section of every study report, and the record of what each report was built from.

A study's claims live in its ledger (``experiments/ledger/STUDY.jsonl``, ``simulator.studies.ledger``).
Every report of a study with a ledger (``results/STUDY/report.md`` and its ``report.html`` when
there is one) carries one block, between ``BEGIN`` and ``END``, made by ``claims_block`` alone:

* "Claims": each active claim as ``simulator.analysis.claims.claim_text`` prints every claim
  (statement, who plays under which rules in words, the study's estimate with its 95% interval
  and every confirmation the ledger holds, with the bound its test used and its status); each
  withdrawn claim as withdrawn, with its reason (``withdrawn_text``; never as standing);
* "Built from": the sha256 of each input — the run's ``manifest.json``, the study's output file
  (``decision_values.json`` ...), ``confirm.json``, the ledger — and the fingerprint of the code
  that writes reports (``report_writer_fingerprint``: ``simulator.run.rundir.code_fingerprint``
  over ``REPORT_WRITERS``), also as a JSON comment a test reads.

The reports of a study's parts made from committed files alone (a knock table, a class game,
a double-oracle equilibrium: ``knock_table.json``, ``class_game.json``, ``equilibrium.json``
and the spec each names) are made again by their writers (``regenerate_parts``).  Every other
report under ``results/`` built from a committed input (a part of a study,
``results/optimal_knock/classic/report.md`` from its ``tune.json``; a study without a ledger)
ends with the "Built from" part alone.  ``refresh`` writes (or, with ``check``, compares) the
block of every such report in place; the rest of a report is its writer's (``ginsim reproduce
STUDY``, ``ginsim equilibrium SPEC --resume`` ...).  ``python -m
simulator.studies.reports --write`` refreshes them all, ``--check`` exits 1 naming each report
whose block is not what its inputs give today.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from ..analysis.claims import claim_text, withdrawn_text
from ..analysis.rendering import Document, atomic_write, record_report, report_files
from ..run.rundir import REPORT_RECORD, code_fingerprint, file_sha256, is_confirmation_file
from . import ledger as ledgers
from . import record

BEGIN = "<!-- claims:begin (written by python -m simulator.studies.reports --write; do not edit) -->"
END = "<!-- claims:end -->"
#: the comment inside the block that holds its inputs' digests as JSON
INPUTS = re.compile(r"<!-- inputs: (\{.*?\}) -->")
#: the modules whose code writes reports (paths as ``simulator.infra.cache.package_sources`` names them)
REPORT_WRITERS = ("simulator/analysis/", "simulator/studies/reports.py", "simulator/studies/knock_table.py",
                  "simulator/studies/class_game.py", "simulator/studies/equilibrium.py",
                  "simulator/studies/decision_values.py", "simulator/studies/field.py", "simulator/studies/tune/")
#: the files of a results folder that a report is built from, when present
INPUT_FILES = ("manifest.json", "decision_values.json", "tune.json", "equilibrium.json", "class_game.json",
               "knock_table.json", "confirm.json")


def report_writer_fingerprint() -> str:
    """The fingerprint of the code that writes reports: ``code_fingerprint`` (the hash a run's
    provenance uses) over the modules of ``REPORT_WRITERS``."""
    from ..infra.cache import package_sources

    return code_fingerprint(modules=frozenset(n for n, _ in package_sources() if n.startswith(REPORT_WRITERS)))


def _variants(study_file: Path | None) -> dict[str, Any]:
    """The study's rule variants by name (an experiment file's ``[variants.NAME]``), else none."""
    from ..run.experiment import read_toml_file

    if study_file is None or not study_file.is_file():
        return {}
    try:
        variants = read_toml_file(study_file, "a study file", ValueError).get("variants", {})
    except ValueError:
        return {}
    return variants if isinstance(variants, dict) else {}


def record_sha256(root: Path) -> str:
    """The sha256 of every ledger under ``root/experiments`` (by name, then bytes): a claim's
    standing depends on every test of the whole record (``simulator.studies.record``)."""
    digest = hashlib.sha256()
    for study in record.ledger_studies(root / "experiments"):
        path = ledgers.ledger_path(root / "experiments", study)
        digest.update(study.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def inputs_of(folder: Path, study: str | None, root: Path) -> dict[str, str]:
    """The sha256 of each input of the report in ``folder`` (``INPUT_FILES`` present there and,
    for a study's own report, the study's ledger) and the report writer's fingerprint."""
    out = {name: file_sha256(folder / name) for name in INPUT_FILES if (folder / name).is_file()}
    if study is not None:
        book = ledgers.ledger_path(root / "experiments", study)
        out[book.relative_to(root).as_posix()] = file_sha256(book)
        out["the whole record"] = record_sha256(root)
    out["report writer"] = report_writer_fingerprint()
    return out


def claims_document(study: str | None, folder: Path, root: Path) -> tuple[Document, dict[str, str]]:
    """The block's content as a ``Document`` (Markdown and HTML alike) and its inputs: a
    study's claims and what the report was built from, or (``study`` None: a part of a study,
    ``results/STUDY/PART/report.md``, or a study without a ledger) only the latter."""
    inputs = inputs_of(folder, study, root)
    doc = Document()
    if study is not None:
        _claims_section(doc, study, root)
    doc.p("Built from (sha256): " + "; ".join(f"{k} {v[:16]}" for k, v in inputs.items()
                                               if k != "report writer")
          + f"; report writer fingerprint {inputs['report writer']}.")
    return doc, inputs


def _claims_section(doc: Document, study: str, root: Path) -> None:
    """The "Claims" section of a study's report, from its ledger."""
    from ..run.bundled import study_file

    book = ledgers.load_ledger(ledgers.ledger_path(root / "experiments", study), study)
    try:
        variants = _variants(study_file(study))
    except (ValueError, OSError):
        variants = {}
    doc.h(2, "Claims")
    standing = {c.record.id: c.status for c in record.whole_record(root).claims if c.study == study}
    doc.p(f"The study's registered claims, from its ledger (experiments/ledger/{study}.jsonl; ginsim claims log "
          f"{study}): each with its standing in the whole record (every confirmation of every ledger, one Holm "
          f"family: docs/claims.md, with each test's power and where its margin came from), the study's estimate "
          f"and 95% interval, then every confirmation on seeds the study never used (ginsim confirm; confirm.md "
          f"has its tests and power), its interval, the bound its test used and the study's own status.")
    doc.ul([claim_text(r.claim, r.confirmations, variants, f"{standing[r.id]} in the whole record")
            for r in book.active] or ["No active claim."])
    if book.withdrawn:
        doc.p("Withdrawn claims (kept in the ledger; none of them stands):")
        doc.ul([withdrawn_text(r.id, r.claim.get("statement", ""), r.withdrawn["reason"], r.withdrawn["date"])
                for r in book.withdrawn])


def claims_block(study: str | None, folder: Path, root: Path) -> tuple[str, str]:
    """The block of ``folder``'s report, as Markdown and as HTML (both between ``BEGIN`` and ``END``)."""
    doc, inputs = claims_document(study, folder, root)
    comment = f"<!-- inputs: {json.dumps(inputs, sort_keys=True)} -->"
    md = doc.markdown().split("\n", 1)[1].strip("\n")  # without the generator's first line
    return (f"{BEGIN}\n{comment}\n\n{md}\n\n{END}", f"{BEGIN}\n{comment}\n{doc.html_body()}\n{END}")


def _placed(text: str, block: str, anchor: re.Pattern) -> str:
    """``text`` with its block replaced by ``block``, or ``block`` put before ``anchor``'s first match."""
    begin, end = text.find(BEGIN), text.find(END)
    if begin >= 0 and end > begin:
        return text[:begin] + block + text[end + len(END):]
    match = anchor.search(text)
    at = match.start() if match else len(text)
    return text[:at] + block + "\n\n" + text[at:]


#: where a block goes when a report has none yet: a study's claims before its first section, the
#: inputs of a part of a study at the end
ANCHORS = {("report.md", True): re.compile(r"^## ", re.M), ("report.html", True): re.compile(r"<h2[ >]|</body>"),
           ("report.md", False): re.compile(r"\Z"), ("report.html", False): re.compile(r"</body>"),
           ("confirm.md", True): re.compile(r"^## Closing note", re.M)}


def standing_block(study: str, root: Path) -> str:
    """The block of a study's ``confirm.md``: each of its claims' standing in the whole record
    (``simulator.studies.record``), since the statuses ``ginsim confirm`` printed are Holm over
    that one confirmation's claims."""
    whole = record.whole_record(root)
    mine = [c for c in whole.claims if c.study == study]
    lines = [BEGIN, "## Standing in the whole record", "",
             f"The statuses above are Holm over this confirmation's claims. Tested again with every confirmation of "
             f"every ledger as one family ({whole.size} tests of {len(whole.claims)} claims, Holm at "
             f"{record.ALPHA:.0%}; every test, its power and where each margin came from: docs/claims.md), the "
             f"study's claims stand as follows:", ""]
    lines += [f"* `{c.record.id}`: " + (("**stands** (confirmed)" if c.standing else f"does not stand ({c.status})")
                                        if c.record.active else "withdrawn") for c in mine]
    lines += ["", f"<!-- inputs: {json.dumps({'the whole record': record_sha256(root)})} -->", END]
    return "\n".join(lines)


def report_folders(root: Path) -> list[tuple[str | None, Path]]:
    """Every folder of ``root/results`` with a ``report.md``: (study, folder) for a study's own
    report (``results/STUDY`` with a ledger), (None, folder) for any other report built from
    one of ``INPUT_FILES`` (a part of a study, a study without a ledger)."""
    results = root / "results"
    found = []
    for report in sorted(results.rglob("report.md")):
        folder = report.parent
        study = folder.name if folder.parent == results else None
        if study is not None and ledgers.ledger_path(root / "experiments", study).is_file():
            found.append((study, folder))
        elif any((folder / name).is_file() for name in INPUT_FILES):
            found.append((None, folder))
    return found


def studies_with_reports(root: Path) -> list[tuple[str, Path]]:
    """(study, results folder) of every study with a ledger and a ``results/STUDY/report.md``."""
    return [(s, f) for s, f in report_folders(root) if s is not None]


def study_of(folder: str | Path) -> tuple[str, Path] | None:
    """(study, checkout) when ``folder`` is a study's ``results/STUDY`` folder in a checkout that
    holds the study's ledger (its report carries the claims block); else None."""
    folder = Path(folder).resolve()
    root = folder.parent.parent
    if folder.parent.name == "results" and ledgers.ledger_path(root / "experiments", folder.name).is_file():
        return folder.name, root
    return None


def refresh_folder(folder: str | Path) -> list[str]:
    """The claims block of the report in ``folder`` written, when it is a study's (``study_of``)."""
    found = study_of(folder)
    return refresh(found[1], only=found[0]) if found else []


def refresh(root: str | Path, check: bool = False, only: str | None = None) -> list[str]:
    """Write (or with ``check`` compare) the block of every report under ``root``
    (``report_folders``; ``only``: the reports of one study's results folder).  Returns the
    reports that differed."""
    root = Path(root)
    stale = []
    for study, folder in report_folders(root):
        if only is not None and folder.relative_to(root / "results").parts[0] != only:
            continue
        blocks = dict(zip(("report.md", "report.html"), claims_block(study, folder, root)))
        if study is not None and is_confirmation_file(folder / "confirm.md"):
            blocks["confirm.md"] = standing_block(study, root)
        new = {}
        for name, block in blocks.items():
            path = folder / name
            if path.is_file():
                text = path.read_text(encoding="utf-8")
                placed = _placed(text, block, ANCHORS[name, study is not None])
                if placed != text:
                    new[path] = placed
        stale += [str(p.relative_to(root)) for p in new]
        if new and not check:
            vouched = set(report_files(folder)) if (folder / REPORT_RECORD).is_file() else set()
            for path, text in new.items():
                atomic_write(path, text)
            if vouched:  # the record of ginsim report keeps vouching for the files it wrote
                record_report(folder, [p for p in new if p in vouched])
    return stale


def _part_writers() -> dict[str, tuple[Any, Any]]:
    """The parts of a study whose report is made from committed files alone: the output file
    -> (its spec's loader, its report writer)."""
    from . import class_game, equilibrium, knock_table

    return {"knock_table.json": (knock_table.load_table_spec, knock_table.write_report),
            "class_game.json": (class_game.load_class_spec, class_game.write_report),
            "equilibrium.json": (equilibrium.load_equilibrium, equilibrium.write_report)}


def without_block(text: str) -> str:
    """A report as its writer wrote it: ``text`` without the block (``claims_block``)."""
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < begin:
        return text
    head, tail = text[:begin].rstrip("\n"), text[end + len(END):].lstrip("\n")
    return head + ("\n\n" + tail if tail else "\n")


def part_report(folder: Path, root: Path) -> str | None:
    """The report a study part's writer makes today from the committed files of ``folder``
    (``_part_writers``: its output file and its spec, ``spec_file`` in it), or None for a
    folder no such writer made."""
    import contextlib
    import tempfile

    for name, (load, write) in _part_writers().items():
        if (folder / name).is_file():
            data = json.loads((folder / name).read_text(encoding="utf-8"))
            result = data.get("result", data)
            with contextlib.chdir(root):  # the spec by the path the report names it by, from the checkout
                spec = load(result["spec_file"])
            with tempfile.TemporaryDirectory() as scratch:
                return write(spec, result, Path(scratch)).read_text(encoding="utf-8")
    return None


def regenerate_parts(root: str | Path, check: bool = False) -> list[str]:
    """Write again (or with ``check`` compare) every report ``part_report`` can make from the
    committed files alone, keeping its block; returns the reports that differed."""
    root = Path(root)
    stale = []
    for study, folder in report_folders(root):
        made = part_report(folder, root) if study is None else None
        path = folder / "report.md"
        if made is None:
            continue
        text = path.read_text(encoding="utf-8")
        if without_block(text) != made:
            stale.append(str(path.relative_to(root)))
            if not check:
                atomic_write(path, made)
    return stale


def recorded_inputs(text: str) -> dict[str, str] | None:
    """The inputs a report's block records (its JSON comment), or None without a block."""
    begin = text.find(BEGIN)
    match = INPUTS.search(text, begin) if begin >= 0 else None
    return json.loads(match.group(1)) if match else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulator.studies.reports",
                                     description="Write or check every report under results/ that its committed "
                                                 "inputs make: the study parts made from committed files alone, "
                                                 "and the block of each report (a study's claims from its ledger, "
                                                 "the digests of what it was built from).")
    parser.add_argument("--root", default=".", help="the checkout (default: the current directory)")
    parser.add_argument("--study", help="only this study")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the blocks that differ")
    mode.add_argument("--check", action="store_true", help="exit 1 when a block differs")
    args = parser.parse_args(argv)
    stale = regenerate_parts(args.root, check=args.check) if args.study is None else []
    stale += refresh(args.root, check=args.check, only=args.study)
    for path in stale:
        print(f"{path}: {'differs from its inputs' if args.check else 'rewritten'}", file=sys.stderr)
    if args.check and stale:
        print("run python -m simulator.studies.reports --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
