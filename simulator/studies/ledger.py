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
  estimates with their 95% intervals, the interval its test uses, p-values and status, and
  the sha256 of the sealed ``confirm.json`` that states it.

Every entry names its claim (``id``) and carries a UTC ``date``; ``plan`` and ``confirm``
carry the claim's ``hash`` too, so a result always says which content it tested.  A claim
changed in any way is a new claim with a new id; the old one stays, withdrawn with its
reason.  ``ginsim confirm`` refuses a claims file that disagrees with its ledger
(``file_problems``); ``simulator.studies.ledger_history`` finds a commit whose ledger is
not an extension of its parent's, and a test runs it on the checkout, so history cannot be
rewritten quietly, and tells a ledger's history (``ginsim claims log``).

Reading a ledger checks every line in order: read as a regular file only (never waited
on), split at ``\n`` only, UTF-8, each entry against its kind's row of ``SCHEMA`` (one
line ``file:line: field: message``), then against the entries before it; a ``confirm``
entry stands only after its ``plan`` (``_check_chain``: same salt and seed, dated no
earlier, the rows its units make).  The lines written before that rule are pinned
(``LEGACY_PREFIX``).  ``append`` is the one writer: an ``flock`` held from reading the file
again to renaming the new one into place, the new entries checked against the file as it
is then; a ledger that comes with ginsim is read-only (``writable_problem``; ``ginsim init
DIR`` makes a working copy).  The format is in docs/experiments.md, "The claims ledger".
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import stat
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..infra.inputs import check_nesting, read_regular

#: the ledgers' folder inside ``experiments/``, and a ledger's suffix
LEDGER_DIR = "ledger"
SUFFIX = ".jsonl"
#: the largest ledger ginsim reads (the largest today is some 120 kB)
MAX_LEDGER_BYTES = 64 << 20
#: the claims-file keys whose values are numbers (kept as floats, so 20 and 20.0 are one claim)
NUMBER_KEYS = ("above", "below", "delta", "effect")
#: the claim's keys that are not its content (commentary, changed freely; where the margin came
#: from is recorded beside the content, in the register entry)
NOT_CONTENT = ("note", "margin_from")
#: where a claim's margin (its bound, interval, δ or sign) came from, as recorded when it is
#: registered: runs on development seeds only, the study's own data (the estimate the claim is
#: tested beside), an earlier confirmation's fresh data (a restated claim), or set before any data
MARGIN_SOURCES = ("development", "study", "confirmation", "prior")
#: a confirmation's statuses, and the family-wise level its Holm-adjusted p-values are
#: judged at (``confirm.ALPHA`` is this level)
STATUSES = ("replicated", "not replicated", "inconclusive")
LEVEL = 0.05
#: the rows a confirmation plays per unit of its plan (``plan.unit``); a unit "per cell" or
#: "per opponent" is played in each of the entry's ``cells``
ROWS_PER_UNIT = {"mirrored pairs per cell": 2, "deals per cell": 1, "games per cell": 1,
                 "mirrored pairs per opponent": 4, "mirrored pairs": 2}
#: the ledgers as they stood before a ``confirm`` entry had to follow its plan and carry the
#: digest of its confirm.json (issue 54): per study, the number of lines and the sha256 of
#: those bytes.  A ledger that starts with exactly these bytes holds them as written (its
#: first confirmations of salt ginsim-confirm-1 have no plan; every confirmation's ``n``
#: counts rows, not the plan's units; see docs/experiments.md); every line after them, and
#: every line of any other ledger, follows every rule.
LEGACY_PREFIX = {
    "challenger": (18, "97ac97deeea8ae06eac393593f28eefcf5acfd836299afd1f3ba4c680feed05f"),
    "decision_values": (48, "8690a552e763d045adbc50a00f608122dc5da658bf1cd55e969a21c625f7c366"),
    "equilibrium_class": (54, "a1708a80e0ecbdb34e3f7748fb4129e5952dc30129512fa454fa579e235e9230"),
    "equilibrium_knock": (40, "1b83b5fb16c90d6eef701975de1dee83a12cc7d4f1ce2b69bac18e40ff6bc0c7"),
    "field": (24, "f2f1e7951fd3d700269cf8c7d4e6f12aab4b2288fcdbaf2f1fa77cca6c86be0c"),
    "knock_vs_gin": (16, "0ed30d1ff7638d5188683aa5b5490950919982ead1764c28595c8d911eaeac0d"),
    "optimal_knock": (32, "97972ca2f8d05a6f50c02a246999b0137b89a83dc9260f8dc16bd686be9891c6"),
    "score_awareness": (8, "1445aabda371020397f86913382f928c2f8e1db61fe19899c5eb61e21eb57255"),
    "score_awareness_games": (4, "ad605677b379da2da93ede69ac840f0aff9e33b706e4b7b7e3977c5778e280f6"),
    "strategy_tournament": (12, "f2df7f8634b82630b52de29d2a161c5b071f68e6360d85de90e00ed1f3907968"),
    "strong_players": (34, "2c2d624530d31f12b6009f47eb2d2fe5cda478a99bac89891a4cdb7fa5f46726"),
    "variant_balance": (40, "8dc95d5c4f26212e59acb4b4c9df0f9fd462470f7ac8bc2fc4884944bd64f20a"),
}


#: each margin source in words
MARGIN_WORDS = {"development": "development seeds", "study": "the study's own data",
                "confirmation": "an earlier confirmation's fresh data", "prior": "set before any data"}


class LedgerError(ValueError):
    """A ledger that cannot be read as written, or an entry it refuses: one line."""


DATE_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def now() -> str:
    """The current UTC time as the ledger writes it (``2026-12-01T08:36:58Z``)."""
    return datetime.now(timezone.utc).strftime(DATE_FORMAT)


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


def digest(data: bytes) -> str:
    """``sha256:`` and the hex digest of ``data`` (a sealed confirm.json's bytes)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


# ----------------------------------------------------------------------------- the schema: one table per entry kind

def salt_problem(salt: Any) -> str | None:
    """Why ``salt`` cannot name a confirmation (None when it can): a salt is a non-empty
    string without surrounding spaces and without control characters or line breaks (a
    newline in a salt would break ``claims log`` and every line that shows it)."""
    if not isinstance(salt, str) or not salt.strip() or salt != salt.strip():
        return f"must be a non-empty name without surrounding spaces, got {salt!r}"
    bad = next((c for c in salt if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")), None)
    if bad is not None:
        return f"must hold no control characters or line breaks, got {salt!r} (U+{ord(bad):04X})"
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _text(value: Any) -> str | None:
    return None if isinstance(value, str) and value.strip() else "must be a non-empty string"


def _date(value: Any) -> str | None:
    if isinstance(value, str):
        try:
            datetime.strptime(value, DATE_FORMAT)
            return None
        except ValueError:
            pass
    return f"must be a UTC time written {DATE_FORMAT.replace('%', '')} (e.g. 2026-12-01T08:36:58Z), got {value!r}"


def _hash(value: Any) -> str | None:
    ok = isinstance(value, str) and len(value) == 71 and value.startswith("sha256:") \
        and all(c in "0123456789abcdef" for c in value[7:])
    return None if ok else f"must be sha256: and 64 hex digits, got {value!r}"


def _int(low: int) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= low
        return None if ok else f"must be an integer of at least {low}, got {value!r}"
    return check


def _number(value: Any) -> str | None:
    return None if _is_number(value) else f"must be a finite number, got {value!r}"


def _number_or_null(value: Any) -> str | None:
    return None if value is None or _is_number(value) else f"must be a finite number or null, got {value!r}"


def _probability(value: Any) -> str | None:
    return None if _is_number(value) and 0 <= value <= 1 else f"must be a number from 0 to 1, got {value!r}"


def _one_of(*words: str) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        return None if value in words else f"must be one of {', '.join(map(repr, words))}, got {value!r}"
    return check


def _pair(value: Any) -> str | None:
    ok = isinstance(value, list) and len(value) == 2 and all(v is None or _is_number(v) for v in value)
    return None if ok else f"must be a list of two numbers or nulls, got {value!r}"


def _salt(value: Any) -> str | None:
    return salt_problem(value)


@dataclass(frozen=True)
class Field:
    """One field of an entry: its name, its check (the problem in words, or None) and
    whether an entry must have it (``legacy_optional``: required, but a line of the
    ledger's pinned ``LEGACY_PREFIX`` may lack it).  ``inner`` declares the fields of an
    object's value."""

    name: str
    check: Callable[[Any], str | None] | None = None
    required: bool = True
    inner: tuple[Field, ...] = ()
    legacy_optional: bool = False


def _object(value: Any) -> str | None:
    """An object's check: a JSON object (its fields are checked by ``Field.inner``)."""
    return None if isinstance(value, dict) else f"must be a JSON object, got {type(value).__name__}"


def _objects(value: Any) -> str | None:
    ok = isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
    return None if ok else "must be a non-empty list of JSON objects"


def _claim(value: Any) -> str | None:
    """A registered claim's content: what ``claims log`` and the whole record read of it."""
    if not isinstance(value, dict):
        return f"must be a JSON object, got {type(value).__name__}"
    for key in ("id", "statement"):
        if not isinstance(value.get(key), str):
            return f"{key} must be a string"
    if "metric" in value:  # a claim with an estimand names all of it
        for key in ("metric", "unit", "a", "b", "rules"):
            if not isinstance(value.get(key), str):
                return f"{key} must be a string (a claim with a metric names its unit, a, b and rules)"
        if value["unit"] not in ("hand", "game"):
            return f"unit must be 'hand' or 'game', got {value['unit']!r}"
    for key in NUMBER_KEYS:
        if key in value and not _is_number(value[key]):
            return f"{key} must be a finite number, got {value[key]!r}"
    if "interval" in value and (_pair(value["interval"]) or None in value["interval"]):
        return f"interval must be a list of two numbers, got {value['interval']!r}"
    return None


_ESTIMATE = (Field("estimate", _number), Field("low", _number_or_null), Field("high", _number_or_null),
             Field("n", _int(1)))

#: every field each kind of entry has, checked as declared here before an entry is used
#: (besides ``entry``; every kind has ``id`` and ``date``).  A new field is one ``Field`` in
#: its kind's row (``legacy_optional=True`` when the pinned lines lack it, ``required=False``
#: when new entries may too); a new kind is one row here, what it adds to a claim's
#: ``Record`` in ``_add``, and its rules against the entries before it in ``_check_entry``.
SCHEMA: dict[str, tuple[Field, ...]] = {
    "register": (Field("hash", _hash), Field("claim", _claim), Field("source", _text, required=False),
                 # required by ginsim claims register (``register``) since issue 55
                 Field("margin_from", _one_of(*MARGIN_SOURCES), required=False)),
    "withdraw": (Field("reason", _text), Field("source", _text, required=False)),
    "plan": (Field("hash", _hash), Field("salt", _salt), Field("seed", _int(0)), Field("units", _int(1)),
             Field("unit", _one_of(*ROWS_PER_UNIT)), Field("effect", _number_or_null), Field("effect_from", _text),
             Field("level", _probability), Field("power", _probability)),
    "confirm": (Field("hash", _hash), Field("salt", _salt), Field("seed", _int(0)),
                Field("original", _object, inner=_ESTIMATE),
                Field("confirmation", _object, inner=(*_ESTIMATE, Field("seed", _int(0)))),
                Field("test_interval", _pair), Field("p", _probability), Field("p_contradiction", _probability),
                Field("status", _one_of(*STATUSES)),
                Field("family", _object, inner=(Field("name", _text), Field("size", _int(1)),
                                                  Field("method", _one_of("holm")), Field("alpha", _probability))),
                Field("holm", _object, inner=(Field("size", _int(1)), Field("p_holm", _probability),
                                                Field("p_contradiction_holm", _probability))),
                Field("cells", _objects), Field("power", _number_or_null), Field("powered_for", _number_or_null),
                Field("effect_from", _text), Field("z", _number_or_null),
                # the sha256 of the sealed confirm.json that states this result
                Field("confirm_json", _hash, legacy_optional=True), Field("source", _text, required=False)),
    # where the margin of a claim registered before margin_from existed came from, recorded later
    # from the history (once per claim; the evidence says how it was found)
    "margin": (Field("margin_from", _one_of(*MARGIN_SOURCES)), Field("evidence", _text)),
}
COMMON = (Field("id", _text), Field("date", _date))


def _check_fields(entry: dict[str, Any], fields: tuple[Field, ...], fail, kind: str, legacy: bool,
                  prefix: str = "") -> None:
    """Each declared field of ``entry`` (a ``kind`` entry, or an object in one; ``legacy``: a
    line of the pinned prefix) present when required and as declared."""
    for f in fields:
        name = prefix + f.name
        if f.name not in entry:
            if f.required and not (legacy and f.legacy_optional):
                raise fail(name, f"missing from a {kind} entry")
            continue
        problem = f.check(entry[f.name]) if f.check else None
        if problem:
            raise fail(name, problem)
        if f.inner:
            _check_fields(entry[f.name], f.inner, fail, kind, legacy, name + ".")


def check_schema(entry: Any, fail, legacy: bool = False) -> str:
    """``entry`` against ``SCHEMA`` (``legacy``: a line of the ledger's pinned prefix):
    returns its kind; ``fail(field, message)`` raises."""
    if not isinstance(entry, dict):
        raise fail("entry", "must be a JSON object")
    kind = entry.get("entry")
    if kind not in SCHEMA:
        raise fail("entry", f"must be one of {', '.join(SCHEMA)}, got {kind!r}")
    _check_fields(entry, COMMON + SCHEMA[kind], fail, kind, legacy)
    return kind


@dataclass
class Record:
    """What the ledger says of one claim: its registration, withdrawal, plans and results."""

    registered: dict[str, Any]
    withdrawn: dict[str, Any] | None = None
    plans: list[dict[str, Any]] = field(default_factory=list)
    confirmations: list[dict[str, Any]] = field(default_factory=list)
    margin_entry: dict[str, Any] | None = None  # a ``margin`` entry recorded after registration

    @property
    def margin_from(self) -> str | None:
        """Where the claim's margin came from: as registered, else as recorded later."""
        return self.registered.get("margin_from") or (self.margin_entry or {}).get("margin_from")

    def margin_text(self) -> str:
        """The margin's source in words, saying when it was recorded after registration."""
        if "margin_from" in self.registered:
            return f"{MARGIN_WORDS[self.registered['margin_from']]} (recorded at registration)"
        if self.margin_entry is not None:
            return (f"{MARGIN_WORDS[self.margin_entry['margin_from']]} (recorded {self.margin_entry['date'][:10]}, "
                    f"after registration: {self.margin_entry['evidence']})")
        return "not recorded"

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
    """A study's ledger as read: its path, its bytes, its entries and a record per claim;
    ``legacy`` is the number of its first lines that are its pinned ``LEGACY_PREFIX``."""

    path: Path
    study: str
    data: bytes = b""
    entries: list[dict[str, Any]] = field(default_factory=list)
    records: dict[str, Record] = field(default_factory=dict)
    legacy: int = 0

    @property
    def active(self) -> list[Record]:
        return [r for r in self.records.values() if r.active]

    @property
    def withdrawn(self) -> list[Record]:
        return [r for r in self.records.values() if not r.active]


def _when(entry: dict[str, Any]) -> datetime:
    return datetime.strptime(entry["date"], DATE_FORMAT).replace(tzinfo=timezone.utc)


def _check_entry(entry: Any, records: dict[str, Record], fail, legacy: bool = False) -> None:
    """One entry against the records before it; ``fail(field, message)`` raises.  A
    ``legacy`` line (inside the ledger's pinned prefix) is spared ``_check_chain``."""
    kind = check_schema(entry, fail, legacy)
    record = records.get(entry["id"])
    if kind == "register":
        if record is not None:
            raise fail("id", f"{entry['id']!r} is registered already ({record.registered['date']}); an id is "
                             f"registered once")
        if content_hash(entry["claim"]) != entry["hash"]:
            raise fail("hash", "is not the sha256 of the entry's claim")
        if entry["claim"].get("id") != entry["id"]:
            raise fail("claim", "its id differs from the entry's")
        return
    if record is None:
        raise fail("id", f"{entry['id']!r} is not registered before this line")
    if kind == "margin":
        if record.margin_from is not None:
            raise fail("id", f"{entry['id']!r} has its margin's source recorded already")
        return
    if not record.active:
        raise fail("id", f"{entry['id']!r} was withdrawn on {record.withdrawn['date']}")
    if _when(entry) < _when(record.registered):
        raise fail("date", f"{entry['date']} is before {entry['id']!r} was registered ({record.registered['date']})")
    if kind == "withdraw":
        return
    if entry["hash"] != record.hash:
        raise fail("hash", f"is not the registered content of {entry['id']!r}")
    if "metric" not in record.claim:
        raise fail("id", f"{entry['id']!r} was recorded with its statement only: it has no estimand to confirm")
    if kind == "plan" and record.plan(entry["salt"]) is not None:
        raise fail("salt", f"{entry['id']!r} has a plan with salt {entry['salt']!r} already")
    if kind == "confirm":
        if record.result(entry["salt"]) is not None:
            raise fail("salt", f"{entry['id']!r} has a result with salt {entry['salt']!r} already")
        holm = entry["holm"]
        status = ("replicated" if holm["p_holm"] <= LEVEL else "not replicated"
                  if holm["p_contradiction_holm"] <= LEVEL else "inconclusive")
        if entry["status"] != status:
            raise fail("status", f"is {entry['status']!r}, but its Holm-adjusted p-values "
                                 f"({holm['p_holm']:.3g}, {holm['p_contradiction_holm']:.3g}) make it {status!r}")
        if entry["confirmation"]["seed"] != entry["seed"]:
            raise fail("confirmation.seed", f"differs from the entry's seed {entry['seed']}")
        if not legacy:
            _check_chain(entry, record, records, fail)


def _check_chain(entry: dict[str, Any], record: Record, records: dict[str, Record], fail) -> None:
    """A ``confirm`` entry follows its plan: a ``plan`` of the same claim and salt earlier in
    the ledger, the same seed, a date not before the plan's, the rows its plan's units make
    (``ROWS_PER_UNIT`` in each cell; a cell several claims share plays the largest plan of
    the salt, so a claim "per cell" may have more, up to that), and the digest of its
    confirm.json (``SCHEMA``)."""
    plan = record.plan(entry["salt"])
    if plan is None:
        raise fail("salt", f"no plan of {entry['id']!r} with salt {entry['salt']!r} comes before this line; a "
                           f"confirmation's size is planned in the ledger before it plays")
    if entry["seed"] != plan["seed"]:
        raise fail("seed", f"is {entry['seed']}, but its plan ({plan['date']}) has {plan['seed']}")
    if _when(entry) < _when(plan):
        raise fail("date", f"{entry['date']} is before its plan ({plan['date']})")
    per = ROWS_PER_UNIT[plan["unit"]] * len(entry["cells"])
    n, low = entry["confirmation"]["n"], plan["units"] * per
    high = low
    if plan["unit"].endswith("per cell"):
        high = per * max(p["units"] for r in records.values() for p in r.plans if p["salt"] == entry["salt"])
    if not low <= n <= high:
        need = f"{low:,}" if low == high else f"from {low:,} to {high:,}"
        raise fail("confirmation.n", f"is {n:,}, but its plan's {plan['units']:,} {plan['unit']} over "
                                     f"{len(entry['cells'])} cell(s) make {need}")


def _add(entry: dict[str, Any], records: dict[str, Record]) -> None:
    kind = entry["entry"]
    if kind == "register":
        records[entry["id"]] = Record(entry)
        return
    record = records[entry["id"]]
    if kind == "withdraw":
        record.withdrawn = entry
    elif kind == "margin":
        record.margin_entry = entry
    elif kind == "plan":
        record.plans.append(entry)
    else:
        record.confirmations.append(entry)


def legacy_lines(data: bytes, study: str) -> int:
    """How many of the first lines of ``data`` are the study's pinned ``LEGACY_PREFIX`` (0
    when the ledger does not start with exactly those bytes)."""
    pinned = LEGACY_PREFIX.get(study)
    if pinned is None:
        return 0
    count, hexdigest = pinned
    end = -1
    for _ in range(count):
        end = data.find(b"\n", end + 1)
        if end < 0:
            return 0
    return count if hashlib.sha256(data[:end + 1]).hexdigest() == hexdigest else 0


def parse_ledger(data: bytes, path: Path, study: str) -> Ledger:
    """A ledger from its bytes, every line checked in order (``LedgerError``: one line
    naming the file, the line and the field).  Lines end at ``\\n`` only (a statement may
    hold U+2028, which ``str.splitlines`` would split at); each is UTF-8."""
    ledger = Ledger(Path(path), study, data, legacy=legacy_lines(data, study))
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the last line ends with its newline
    for number, raw in enumerate(lines + [tail] if tail else lines, 1):
        def fail(name: str, message: str, number=number) -> LedgerError:
            return LedgerError(f"{path}:{number}: {name}: {message}")

        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise fail("line", f"not UTF-8 text (byte {exc.start + 1} of the line)") from None
        check_nesting(line, f"{path}:{number}: line", LedgerError)  # bounded before it is parsed
        try:
            entry = json.loads(line)
        except ValueError as exc:
            raise fail("line", f"not a JSON object ({str(exc).split(';')[0]})") from None
        _check_entry(entry, ledger.records, fail, legacy=number <= ledger.legacy)
        ledger.entries.append(entry)
        _add(entry, ledger.records)
    if tail:
        raise LedgerError(f"{path}: the last line has no newline (a write was cut short?)")
    return ledger


def read_ledger_bytes(path: str | Path) -> bytes:
    """The bytes of the ledger at ``path`` (empty when it does not exist yet), read through
    ``read_regular``: a regular file of at most ``MAX_LEDGER_BYTES``, never waited on."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return b""
    return read_regular(path, "a claims ledger", MAX_LEDGER_BYTES, LedgerError, follow=True)


def load_ledger(path: str | Path, study: str) -> Ledger:
    """The ledger at ``path`` (an empty one when the file does not exist yet)."""
    return parse_ledger(read_ledger_bytes(path), Path(path), study)


def entry_line(entry: dict[str, Any]) -> str:
    """An entry as its ledger line (keys in the order given, UTF-8, no NaN)."""
    return json.dumps(entry, ensure_ascii=False, allow_nan=False) + "\n"


# ----------------------------------------------------------------------------- the one writer

def writable_problem(path: str | Path) -> str | None:
    """Why ginsim may not write the ledger at ``path`` (None when it may): a ledger that
    comes with ginsim (the installed package's, or the checkout's when ginsim does not run
    from the checkout) is read-only; ``ginsim init DIR`` makes a working copy to write."""
    from ..run.bundled import bundled_dir

    bundled = bundled_dir("experiments").resolve()
    here = (Path.cwd() / "experiments").resolve()
    target = Path(path).resolve()
    if target.is_relative_to(bundled) and bundled != here:
        return (f"{path}: a ledger that comes with ginsim is read-only; make a working copy with 'ginsim init DIR' "
                f"and run this command in DIR")
    return None


def check_writable(path: str | Path) -> None:
    """``writable_problem`` as a one-line ``LedgerError``."""
    problem = writable_problem(path)
    if problem:
        raise LedgerError(problem)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock (``flock``) on ``.NAME.lock`` beside the ledger ``path``, held by
    every writer from reading the file to renaming the new one into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(f".{path.name}.lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise LedgerError(f"{lock} is not a regular file; ginsim locks a ledger with a regular file beside it")
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def append(ledger: Ledger, entries: list[dict[str, Any]]) -> Ledger:
    """Append ``entries`` to the ledger's file and return the ledger with them: the one
    writer of every ledger.  Under ``locked``, the file is read again; when it grew since
    ``ledger`` was read (another command appended), the new entries are checked against it
    as it is now; then it is rewritten whole (its bytes, then the new lines) and renamed into
    place, so two writers at once both land, in turn, and an interrupted write never loses or
    half-writes a line.  Refused, in one line and writing nothing, when the ledger is one
    ginsim came with (``writable_problem``), when its file is no longer an extension of what
    was read, or when an entry does not follow the entries before it."""
    if not entries:
        return ledger
    path = ledger.path
    check_writable(path)
    text = b"".join(entry_line(e).encode() for e in entries)
    with locked(path):
        current = read_ledger_bytes(path)
        if not current.startswith(ledger.data):
            raise LedgerError(f"{path}: changed while this command ran (not by appending); run it again")
        new = parse_ledger(current + text, path, ledger.study)
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
    entry = {"entry": "register", "id": content["id"], "date": date, "hash": content_hash(content), "claim": content}
    if table.get("margin_from") is not None:
        entry["margin_from"] = table["margin_from"]
    return entry


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
        elif table.get("margin_from") is not None and table["margin_from"] != record.margin_from:
            problems.append(f"{where}: claim {cid}: margin_from = {table['margin_from']!r}, but {ledger.path} records "
                            f"{record.margin_from!r}; where a margin came from is recorded once")
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
    missing = [t["id"] for t in tables if t["id"] not in ledger.records and t.get("margin_from") is None]
    if missing:
        raise LedgerError(f"{where}: claim {missing[0]}: margin_from: required to register a claim: where its margin "
                          f"came from, one of {', '.join(MARGIN_SOURCES)}")
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
