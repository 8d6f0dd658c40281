"""A ledger's history: in git, and as ``ginsim claims log`` tells it.

``history_problems`` walks the commits of a checkout and finds one whose ledger
(``experiments/ledger/STUDY.jsonl``, ``simulator.studies.ledger``) is not an extension of its
parent's — a line edited, removed or reordered — or whose merge interleaves its sides' new
lines; ``working_tree_problems`` does the same for uncommitted changes.  ``log_lines`` is
every claim a ledger ever registered, with its plans, confirmations and withdrawal.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from .ledger import LEDGER_DIR, SUFFIX, Ledger


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)


def is_git_checkout(root: str | Path) -> bool:
    """True when ``root`` is the top of a git work tree and git runs."""
    try:
        done = _git(Path(root), "rev-parse", "--show-toplevel")
    except OSError:
        return False
    return done.returncode == 0 and Path(done.stdout.decode().strip()).resolve() == Path(root).resolve()


def _ledger_files(root: Path, rev: str, folder: str) -> dict[str, bytes]:
    listed = _git(root, "ls-tree", "-r", "--name-only", rev, "--", folder + "/")
    if listed.returncode != 0:
        return {}
    names = [n for n in listed.stdout.decode().splitlines() if n.endswith(SUFFIX)]
    return {n: _git(root, "show", f"{rev}:{n}").stdout for n in names}


def _lines(data: bytes) -> list[bytes]:
    """A ledger's lines, split at ``\n`` only (never at U+2028 or a carriage return)."""
    lines = data.split(b"\n")
    return lines[:-1] if lines[-1] == b"" else lines


def _prefix_problem(name: str, old: bytes, new: bytes, where: str) -> str | None:
    """Why ``new`` is not ``old`` with lines added at the end (None when it is)."""
    if new.startswith(old):
        return None
    old_lines, new_lines = _lines(old), _lines(new)
    line = next((i + 1 for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b), len(new_lines) + 1)
    what = "removed" if line > len(new_lines) else "changed"
    return f"{name}: {where} is not an extension of the ledger before it: line {line} {what}"


def _interleaving_problem(name: str, side: bytes, merged: bytes, where: str) -> str | None:
    """Why ``merged`` does not hold every line of ``side`` in ``side``'s order (None when it
    does): a merge of two ledgers keeps both sides' entries, each side's in its order."""
    lines = iter(_lines(merged))
    for number, line in enumerate(_lines(side), 1):
        if not any(line == candidate for candidate in lines):
            return f"{name}: {where} drops or reorders line {number} of a parent's ledger"
    return None


def history_problems(root: str | Path, rev: str = "HEAD", folder: str = "experiments/" + LEDGER_DIR) -> list[str]:
    """The ledgers of commit ``rev`` that are not extensions of its parent's (an entry edited,
    removed or reordered, or a ledger deleted), one line each; empty when the commit has no
    parent.  A merge commit joins two ledgers that grew apart: its ledger starts with the
    ledger both sides had (their merge base's) and holds every entry of each parent in that
    parent's order, so a merge may interleave the sides' new entries (by date) but never edit,
    drop or reorder one."""
    root = Path(root)
    if _git(root, "rev-parse", "--verify", "--quiet", f"{rev}~1").returncode != 0:
        return []
    new = _ledger_files(root, rev, folder)
    parents = [f"{rev}^1"]
    if _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^2").returncode == 0:
        parents.append(f"{rev}^2")
    problems: list[str] = []
    for parent in parents:
        old = _ledger_files(root, parent, folder)
        problems += [f"{name}: deleted at {rev}; a ledger is never deleted" for name in old if name not in new]
        if len(parents) == 1:
            for name, data in new.items():
                problem = _prefix_problem(name, old.get(name, b""), data, f"its version at {rev}")
                if problem:
                    problems.append(problem)
            return problems
        for name, data in new.items():
            problem = _interleaving_problem(name, old.get(name, b""), data, f"its version at {rev}")
            if problem:
                problems.append(problem)
    base = _git(root, "merge-base", parents[0], parents[1]).stdout.decode().strip()
    for name, data in _ledger_files(root, base, folder).items():
        problem = _prefix_problem(name, data, new.get(name, b""), f"its version at {rev}")
        if problem:
            problems.append(problem)
    return problems


def working_tree_problems(root: str | Path, folder: str = "experiments/" + LEDGER_DIR) -> list[str]:
    """The ledgers whose file in the work tree is not an extension of the committed one."""
    root = Path(root)
    problems = []
    for name, data in _ledger_files(root, "HEAD", folder).items():
        path = root / name
        now_data = path.read_bytes() if path.is_file() else b""
        problem = _prefix_problem(name, data, now_data, "the file in the work tree")
        if problem:
            problems.append(problem)
    return problems



# ----------------------------------------------------------------------------- ginsim claims log

ASSERTION_KEYS = ("sign", "above", "below", "interval", "delta")


def _what(claim: dict[str, Any]) -> str:
    """A claim's estimand and assertion in one line (``first_mover_edge per hand, simple vs
    simple, hoyle: sign = positive``); a claim recorded with its statement only says so."""
    if "metric" not in claim:
        return "recorded with its statement only (no estimand or assertion was written down)"
    assertion = "; ".join(f"{k} = {claim[k]}" for k in ASSERTION_KEYS if k in claim)
    extra = "".join(f", {k} {claim[k]}" for k in ("opponent", "tuning", "effect") if k in claim)
    return f"{claim['metric']} per {claim['unit']}, {claim['a']} vs {claim['b']}, {claim['rules']}{extra}: {assertion}"


def log_lines(ledger: Ledger) -> list[str]:
    """``ginsim claims log STUDY``: every claim the ledger ever registered, in order, with
    its content, each planned size and each confirmation, and withdrawn ones with their reason."""
    from ..analysis.claims import format_estimate, format_test_bound

    records = list(ledger.records.values())
    lines = [f"{ledger.study}: {ledger.path} — {len(records)} claims registered, {len(ledger.active)} active, "
             f"{len(records) - len(ledger.active)} withdrawn"]
    for r in records:
        state = "active" if r.active else f"withdrawn {r.withdrawn['date']}"
        lines += ["", f"{r.id} ({state}; registered {r.registered['date']}, {r.hash[:19]})",
                  f"  {r.claim.get('statement', '')}", f"  {_what(r.claim)}", f"  margin from: {r.margin_text()}"]
        kind = {"metric": r.claim.get("metric"), "unit": r.claim.get("unit")}
        for e in ledger.entries:
            if e["id"] != r.id or e["entry"] not in ("plan", "confirm"):
                continue
            if e["entry"] == "plan":
                lines.append(f"  planned {e['date']}: salt {e['salt']}, {e['units']:,} {e['unit']}, powered for "
                             f"{e['effect']:g} ({e['effect_from']}) at level {e['level']:.3g}: power {e['power']:.0%}")
            else:
                entry = {**kind, **e}
                lines.append(f"  confirmed {e['date']}: salt {e['salt']}, {format_estimate(entry, 'confirmation')} "
                             f"(n = {e['confirmation']['n']:,}), test's bound "
                             f"{format_test_bound(entry, e['test_interval'])}, p = {e['p']:.2g}: {e['status']} "
                             f"(Holm over {e['holm']['size']})")
        if not r.active:
            lines.append(f"  withdrawn: {r.withdrawn['reason']}")
    return lines
