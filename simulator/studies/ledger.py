"""The claims ledger: every claim a study ever made, append-only (``experiments/ledger/STUDY.jsonl``).

A study's claims file (``experiments/STUDY.claims.toml``) holds the claims it makes now; its
ledger holds their history, one JSON object per line, lines only ever added at the end:

* ``register`` — a claim's full content (``claim``: the claims-file table without its
  ``note``, numbers as floats), its ``hash`` (``content_hash``: sha256 of that content as
  canonical JSON) and the ``date`` it was registered (``ginsim claims register STUDY``);
* ``withdraw`` — a claim taken back, with the ``reason`` (``ginsim claims withdraw STUDY ID
  --why "..."``); a withdrawn claim's id is never used again;
* ``plan`` — a confirmation's size, fixed before it plays: the ``salt`` its seeds derive
  from, the ``seed``, the ``units`` to play, the effect it is powered for and its power;
* ``confirm`` — a confirmation's result: salt, seed, n, the study's and the confirmation's
  estimates with their 95% intervals, the interval its test uses, p-values and status.

Every entry names its claim (``id``) and carries a UTC ``date``; ``plan`` and ``confirm``
carry the claim's ``hash`` too, so a result always says which content it tested.  A claim
changed in any way is a new claim with a new id; the old one stays, withdrawn with its
reason.  ``ginsim confirm`` refuses a claims file that disagrees with its ledger
(``file_problems``); ``history_problems`` finds a commit whose ledger is not an extension
of its parent's, and a test runs it on the checkout, so history cannot be rewritten
quietly.  The format is in docs/experiments.md, "The claims ledger".
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..infra.inputs import check_nesting

#: the ledgers' folder inside ``experiments/``, and a ledger's suffix
LEDGER_DIR = "ledger"
SUFFIX = ".jsonl"
#: the kinds of entry, and the fields each must have (besides ``entry``, ``id`` and ``date``)
FIELDS = {
    "register": ("hash", "claim"),
    "withdraw": ("reason",),
    "plan": ("hash", "salt", "seed", "units", "unit", "effect", "effect_from", "level", "power"),
    "confirm": ("hash", "salt", "seed", "family", "original", "confirmation", "test_interval", "p",
                "p_contradiction", "status"),
}
#: the claims-file keys whose values are numbers (kept as floats, so 20 and 20.0 are one claim)
NUMBER_KEYS = ("above", "below", "delta", "effect")
#: the claim's keys that are not its content (commentary, changed freely)
NOT_CONTENT = ("note",)


class LedgerError(ValueError):
    """A ledger that cannot be read as written, or an entry it refuses: one line."""


def now() -> str:
    """The current UTC time as the ledger writes it (``2026-12-01T08:36:58Z``)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def ledger_path(experiments: str | Path, study: str) -> Path:
    """``experiments/ledger/STUDY.jsonl``: the ledger of a study kept under ``experiments``."""
    return Path(experiments) / LEDGER_DIR / f"{study}{SUFFIX}"


def claim_content(table: dict[str, Any]) -> dict[str, Any]:
    """A claim's content: its claims-file table without commentary, numbers as floats and
    keys sorted, so the same claim written twice has one content."""
    out: dict[str, Any] = {}
    for key in sorted(table):
        value = table[key]
        if key in NOT_CONTENT or value is None:
            continue
        if key in NUMBER_KEYS:
            value = float(value)
        elif key == "interval":
            value = [float(v) for v in value]
        out[key] = value
    return out


def content_hash(content: dict[str, Any]) -> str:
    """``sha256:`` and the hex digest of ``content`` as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Record:
    """What the ledger says of one claim: its registration, withdrawal, plans and results."""

    registered: dict[str, Any]
    withdrawn: dict[str, Any] | None = None
    plans: list[dict[str, Any]] = field(default_factory=list)
    confirmations: list[dict[str, Any]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.registered["id"]

    @property
    def hash(self) -> str:
        return self.registered["hash"]

    @property
    def claim(self) -> dict[str, Any]:
        return self.registered["claim"]

    @property
    def active(self) -> bool:
        return self.withdrawn is None

    def plan(self, salt: str) -> dict[str, Any] | None:
        return next((p for p in self.plans if p["salt"] == salt), None)

    def result(self, salt: str) -> dict[str, Any] | None:
        return next((c for c in self.confirmations if c["salt"] == salt), None)


@dataclass
class Ledger:
    """A study's ledger as read: its path, its bytes, its entries and a record per claim."""

    path: Path
    study: str
    data: bytes = b""
    entries: list[dict[str, Any]] = field(default_factory=list)
    records: dict[str, Record] = field(default_factory=dict)

    @property
    def active(self) -> list[Record]:
        return [r for r in self.records.values() if r.active]

    @property
    def withdrawn(self) -> list[Record]:
        return [r for r in self.records.values() if not r.active]


def _check_entry(entry: Any, records: dict[str, Record], fail) -> None:
    """One entry against the records before it; ``fail(field, message)`` raises."""
    if not isinstance(entry, dict):
        raise fail("entry", "must be a JSON object")
    kind = entry.get("entry")
    if kind not in FIELDS:
        raise fail("entry", f"must be one of {', '.join(FIELDS)}, got {kind!r}")
    for name in ("id", "date", *FIELDS[kind]):
        if name not in entry:
            raise fail(name, f"missing from a {kind} entry")
    if not isinstance(entry["id"], str) or not entry["id"] or not isinstance(entry["date"], str):
        raise fail("id", "an entry's id and date are non-empty strings")
    record = records.get(entry["id"])
    if kind == "register":
        if record is not None:
            raise fail("id", f"{entry['id']!r} is registered already ({record.registered['date']}); an id is "
                             f"registered once")
        if not isinstance(entry["claim"], dict) or content_hash(entry["claim"]) != entry["hash"]:
            raise fail("hash", "is not the sha256 of the entry's claim")
        if entry["claim"].get("id") != entry["id"]:
            raise fail("claim", "its id differs from the entry's")
        return
    if record is None:
        raise fail("id", f"{entry['id']!r} is not registered before this line")
    if not record.active:
        raise fail("id", f"{entry['id']!r} was withdrawn on {record.withdrawn['date']}")
    if kind == "withdraw":
        if not isinstance(entry["reason"], str) or not entry["reason"].strip():
            raise fail("reason", "must be a non-empty string")
        return
    if entry["hash"] != record.hash:
        raise fail("hash", f"is not the registered content of {entry['id']!r}")
    if kind == "plan" and record.plan(entry["salt"]) is not None:
        raise fail("salt", f"{entry['id']!r} has a plan with salt {entry['salt']!r} already")
    if kind == "confirm" and record.result(entry["salt"]) is not None:
        raise fail("salt", f"{entry['id']!r} has a result with salt {entry['salt']!r} already")


def _add(entry: dict[str, Any], records: dict[str, Record]) -> None:
    kind = entry["entry"]
    if kind == "register":
        records[entry["id"]] = Record(entry)
        return
    record = records[entry["id"]]
    if kind == "withdraw":
        record.withdrawn = entry
    elif kind == "plan":
        record.plans.append(entry)
    else:
        record.confirmations.append(entry)


def parse_ledger(data: bytes, path: Path, study: str) -> Ledger:
    """A ledger from its bytes, every line checked in order (``LedgerError``: one line
    naming the file, the line and the field)."""
    ledger = Ledger(Path(path), study, data)
    for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
        def fail(name: str, message: str, number=number) -> LedgerError:
            return LedgerError(f"{path}:{number}: {name}: {message}")

        check_nesting(line, f"{path}:{number}: line", LedgerError)  # bounded before it is parsed
        try:
            entry = json.loads(line)
        except ValueError as exc:
            raise fail("line", f"not a JSON object ({exc})") from None
        _check_entry(entry, ledger.records, fail)
        ledger.entries.append(entry)
        _add(entry, ledger.records)
    if data and not data.endswith(b"\n"):
        raise LedgerError(f"{path}: the last line has no newline (a write was cut short?)")
    return ledger


def load_ledger(path: str | Path, study: str) -> Ledger:
    """The ledger at ``path`` (an empty one when the file does not exist yet)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    return parse_ledger(data, path, study)


def entry_line(entry: dict[str, Any]) -> str:
    """An entry as its ledger line (keys in the order given, UTF-8, no NaN)."""
    return json.dumps(entry, ensure_ascii=False, allow_nan=False) + "\n"


def append(ledger: Ledger, entries: list[dict[str, Any]]) -> Ledger:
    """Append ``entries`` to the ledger's file and return the ledger with them.  Every new
    entry is checked against the ledger first; the file is rewritten whole (its old bytes,
    then the new lines) and renamed into place, and refused when it changed since it was
    read, so an interrupted or concurrent write never loses or half-writes a line."""
    if not entries:
        return ledger
    text = b"".join(entry_line(e).encode() for e in entries)
    new = parse_ledger(ledger.data + text, ledger.path, ledger.study)
    path = ledger.path
    try:
        current = path.read_bytes()
    except FileNotFoundError:
        current = b""
    if current != ledger.data:
        raise LedgerError(f"{path}: changed while this command ran; run it again")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(new.data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    return new


# ----------------------------------------------------------------------------- a claims file against its ledger

def register_entry(table: dict[str, Any], date: str) -> dict[str, Any]:
    """The ``register`` entry of a claim given as its claims-file table."""
    content = claim_content(table)
    return {"entry": "register", "id": content["id"], "date": date, "hash": content_hash(content),
            "claim": content}


def file_problems(ledger: Ledger, tables: list[dict[str, Any]], where: str, study: str,
                  unregistered_ok: bool = False) -> list[str]:
    """What keeps a claims file (its ``[[claims]]`` tables, checked already) from being the
    ledger's active claims, one line each: a claim whose content differs from its registered
    entry, a withdrawn claim still in the file, a claim not registered (unless
    ``unregistered_ok``), and a registered claim missing from the file."""
    problems = []
    ids = set()
    for table in tables:
        content = claim_content(table)
        cid = content["id"]
        ids.add(cid)
        record = ledger.records.get(cid)
        if record is None:
            if not unregistered_ok:
                problems.append(f"{where}: claim {cid}: not registered in {ledger.path}; register it before "
                                f"confirming it: ginsim claims register {study}")
        elif not record.active:
            problems.append(f"{where}: claim {cid}: withdrawn on {record.withdrawn['date']} "
                            f"({record.withdrawn['reason']}); an id is never used again: remove it from the file")
        elif content_hash(content) != record.hash:
            changed = sorted(k for k in set(content) | set(record.claim) if content.get(k) != record.claim.get(k))
            problems.append(f"{where}: claim {cid}: differs from its registered entry ({ledger.path}, "
                            f"{record.registered['date']}) in {', '.join(changed)}; a changed claim is a new claim: "
                            f"give it a new id and withdraw {cid} (ginsim claims withdraw {study} {cid} --why ...)")
    for record in ledger.active:
        if record.id not in ids:
            problems.append(f"{where}: claim {record.id} is registered ({ledger.path}, {record.registered['date']}) "
                            f"but missing from the file: put it back, or withdraw it (ginsim claims withdraw "
                            f"{study} {record.id} --why ...)")
    return problems


def register(ledger: Ledger, tables: list[dict[str, Any]], where: str, date: str | None = None
             ) -> tuple[Ledger, list[str]]:
    """Register every claim of the file that the ledger does not hold yet; refuses (one
    line, nothing written) when any claim of the file disagrees with the ledger otherwise.
    Returns the ledger and the ids registered."""
    problems = file_problems(ledger, tables, where, ledger.study, unregistered_ok=True)
    if problems:
        raise LedgerError(problems[0])
    date = date or now()
    new = [register_entry(t, date) for t in tables if t["id"] not in ledger.records]
    return append(ledger, new), [e["id"] for e in new]


def withdraw(ledger: Ledger, claim_id: str, reason: str, date: str | None = None) -> Ledger:
    """Withdraw an active claim with its reason (one line)."""
    reason = " ".join(reason.split())
    record = ledger.records.get(claim_id)
    if record is None:
        known = ", ".join(ledger.records) or "none"
        raise LedgerError(f"{ledger.path}: no claim {claim_id!r} is registered; claims: {known}")
    if not record.active:
        raise LedgerError(f"{ledger.path}: claim {claim_id} was withdrawn on {record.withdrawn['date']} already")
    if not reason:
        raise LedgerError("--why must give the reason, got an empty string")
    return append(ledger, [{"entry": "withdraw", "id": claim_id, "date": date or now(), "reason": reason}])


# ----------------------------------------------------------------------------- history

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


def _prefix_problem(name: str, old: bytes, new: bytes, where: str) -> str | None:
    """Why ``new`` is not ``old`` with lines added at the end (None when it is)."""
    if new.startswith(old):
        return None
    old_lines, new_lines = old.splitlines(), new.splitlines()
    line = next((i + 1 for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b), len(new_lines) + 1)
    what = "removed" if line > len(new_lines) else "changed"
    return f"{name}: {where} is not an extension of the ledger before it: line {line} {what}"


def _interleaving_problem(name: str, side: bytes, merged: bytes, where: str) -> str | None:
    """Why ``merged`` does not hold every line of ``side`` in ``side``'s order (None when it
    does): a merge of two ledgers keeps both sides' entries, each side's in its order."""
    lines = iter(merged.splitlines())
    for number, line in enumerate(side.splitlines(), 1):
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
                  f"  {r.claim.get('statement', '')}", f"  {_what(r.claim)}"]
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
