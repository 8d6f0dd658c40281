"""A study's claims file: ``experiments/STUDY.claims.toml`` (or ``claims.toml`` in a folder of
tuning specs such as ``experiments/optimal_knock``), read and checked.

Each ``[[claims]]`` table names an estimand — a metric, a unit (hand or game), a matchup
``a`` vs ``b`` (``b = "field"``: every opponent of ``a``) and a variant of the study
(``rules``) — and exactly one assertion about it: a sign, a bound, an interval, or
equivalence within ``delta`` of no difference.  Its keys are declared in ``CLAIM_SCHEMA``
and the file's in ``CLAIMS_FILE_SCHEMA`` (docs/experiments.md prints both tables,
``python -m simulator.studies.docs_tables``); a bad file is refused in one line naming the
file and the key (``ClaimError``).  ``simulator.studies.confirm`` plays the claims on fresh
seeds; the ledger (``simulator.studies.ledger``) registers them as this module reads them
(``Claim.table``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..analysis.claims import ASSERTIONS, METRICS
from ..run.config import REQUIRED, Key, Schema, is_number
from ..run.experiment import read_toml_file
from .control_names import CONTROLS, GAMES_ONLY, SEAT_EDGE_CONTROLS
from .ledger import MARGIN_SOURCES
from .record import claim_region

#: default caps on the confirmation's rows per claim, unless the claims file or the caller sets them
MAX_DEALS = 1_000_000
MAX_GAMES = 40_000


class ClaimError(ValueError):
    """A bad claims file (one line naming the file and the key), or a refused confirmation."""


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    metric: str
    unit: str
    a: str
    b: str
    rules: str
    assertion: dict[str, Any]
    low: float  # the claimed region [low, high] of the estimand (infinite for one-sided claims)
    high: float
    note: str = ""
    effect: float | None = None  # the effect the confirmation is powered for (None: the study's estimate)
    tuning: str | None = None  # a tuning study's claim: the spec's file name without .toml
    opponent: str | None = None  # a decision_loss claim: the opponent both players meet
    margin_from: str | None = None  # where the margin came from (recorded at registration, not content)
    estimator: str | None = None  # a control of ``control_names.CONTROLS`` it is confirmed with (None, "plain": none)
    tables: list[str] | None = None  # with the draws' luck in its estimator: the fitted tables it reads, NAME:SHA256


    @property
    def estimator_used(self) -> str:
        """The estimator it is confirmed with: ``"plain"`` or a control (``estimator_name``)."""
        return estimator_name(self.estimator)

    def table(self) -> dict[str, Any]:
        """The claim as its claims-file table, without its ``note`` (what the ledger registers)."""
        table = {"id": self.id, "statement": self.statement, "metric": self.metric, "unit": self.unit, "a": self.a,
                 "b": self.b, "rules": self.rules, **self.assertion, "effect": self.effect, "tuning": self.tuning,
                 "opponent": self.opponent, "margin_from": self.margin_from, "estimator": self.estimator,
                 "tables": self.tables}
        return {k: v for k, v in table.items() if v is not None}


@dataclass(frozen=True)
class Claims:
    path: Path
    claims: list[Claim]
    max_deals: int | None = None
    max_games: int | None = None


def _text_key(name: str, help: str) -> Key:
    """A required string key that may not be blank."""
    def check(value: str, values: dict[str, Any], fail) -> str:
        if not value.strip():
            raise fail(values["_prefix"] + name, "required, a non-empty string")
        return value.strip()

    return Key(name, "str", REQUIRED, help, text="a non-empty string", check=check)


def _interval(value: list, values: dict[str, Any], fail) -> list:
    if value is not None and not (len(value) == 2 and all(is_number(v) for v in value) and value[0] < value[1]):
        raise fail(values["_prefix"] + "interval", f"must be [LOW, HIGH] with LOW < HIGH, got {value!r}")
    return value


def _tables(value: list | None, values: dict[str, Any], fail) -> list | None:
    if value is not None and not (value and all(isinstance(t, str) and TABLE_NAME.fullmatch(t) for t in value)):
        raise fail(values["_prefix"] + "tables", f"must list NAME:SHA256 entries (e.g. \"draw_values_1:<64 hex "
                                                 f"digits>\"), got {value!r}")
    return value


#: a fitted table named in a claim: its name and version, and its full sha256
TABLE_NAME = re.compile(r"(draw_values|win_values)_[1-9][0-9]*:[0-9a-f]{64}")
#: the estimators a claim may be confirmed with: the plain mean, or a control
#: ``simulator.studies.controls`` plays (the draws' luck, a self-play, or both; for a seat edge,
#: the draws' and the deal's luck); the (metric, unit) pairs a control measures, and the kinds of
#: table the draws read for each
ESTIMATORS = ("plain", *CONTROLS, *SEAT_EDGE_CONTROLS)
DRAWS_MEASURES = {("net_points", "hand"): ("draw_values",), ("win_share", "game"): ("draw_values", "win_values"),
                  ("first_mover_edge", "hand"): ("draw_values",),
                  ("first_mover_edge", "game"): ("draw_values", "win_values")}


def _opponent(value: str | None, fail) -> str | None:
    if value is not None and not value.strip():
        raise fail("opponent", "must be a non-empty strategy spec, got ''")
    return value


#: the keys of one ``[[claims]]`` table; exactly one of ``ASSERTIONS`` is given
CLAIM_SCHEMA = Schema("claim", (
    Key("id", "name", REQUIRED, "the claim's name, unique in the file"),
    _text_key("statement", "the finding in words, as confirm.md and the README print it"),
    Key("metric", "choice", REQUIRED, "what is measured", choices=tuple(METRICS),
        doc="`field_edge` only in a tuning study's claims (below), `decision_loss` only in a decision-values study's."),
    Key("unit", "choice", REQUIRED, "single hands or whole games", choices=("hand", "game")),
    _text_key("a", "strategy A, the cell's label as `ginsim show` prints it"),
    _text_key("b", "strategy B, or `\"field\"`: every opponent of A under `rules`"),
    _text_key("rules", "the study's variant the claim is about"),
    Key("sign", "choice", None, "assertion: the estimand is above (positive) or below (negative) its null "
        "(0, or ½ for a share)", choices=("positive", "negative"), default_text="none"),
    Key("above", "number", None, "assertion: the estimand is above this bound", default_text="none"),
    Key("below", "number", None, "assertion: the estimand is below this bound", default_text="none"),
    Key("interval", "list", None, "assertion: the estimand lies in [LOW, HIGH]", text="[LOW, HIGH] with LOW < HIGH",
        check=_interval, default_text="none"),
    Key("delta", "number", None, "assertion: no difference from the null larger than this (equivalence)", gt=0,
        default_text="none"),
    Key("effect", "number", None, "the effect to power the confirmation for", default_text="the original estimate"),
    Key("note", "str", "", "printed under the claim in confirm.md"),
    Key("margin_from", "choice", None, "where the claim's margin (its bound, interval, δ or sign) came from: "
        "`development` (runs on development seeds only), `study` (the study's own data), `confirmation` (an "
        "earlier confirmation's fresh data: a restated claim) or `prior` (set before any data)",
        choices=MARGIN_SOURCES, default_text="required to register",
        doc="Recorded in the ledger's `register` entry beside the claim's content (not part of its hash) and shown "
            "by `ginsim claims log` and docs/claims.md."),
    Key("tuning", "name", None, "a tuning study's claim: its spec's file name without .toml",
        doc="Given exactly when `metric = \"field_edge\"`.", default_text="none"),
    Key("opponent", "str", None, "a decision-values claim: the opponent both players meet, a strategy spec",
        text="a non-empty strategy spec", check=lambda value, values, fail: _opponent(value, fail),
        doc="Only with `metric = \"decision_loss\"`.", default_text="none"),
    Key("estimator", "choice", None, "how the study's estimate and the confirmation's are made: `plain` (the mean "
        "over mirrored pairs), or with control variates on the same pairs (docs/analysis.md): `draws` (the draws' "
        "luck), `self` (both players' self-play; `self_a`, `self_b`: one player's), or the draws with a self-play "
        "(`draws+self`, ...), with the hands exchanged (`draws+swap`) or, for games, with each hand replayed by B in "
        "both seats (`draws+replay_b`), or the hands exchanged with either (`draws+swap+self`, ..., "
        "`draws+swap+replay_b`); a first-mover edge: `draws+deal` (the "
        "draws' and the deal's luck, counted for the first mover) or `draws+deal+swap` (and the hands exchanged)",
        choices=ESTIMATORS, default_text="plain",
        doc="A control measures `net_points` per hand and `win_share` of games (`draws+replay_b` and "
            "`draws+swap+replay_b` games only), and `draws+deal` and "
            "`draws+deal+swap` the `first_mover_edge` per hand or per game, in a mirrored study; one with the draws "
            "names its tables in `tables`."),
    Key("tables", "list", None, "with the draws' luck in `estimator`: the fitted tables it reads, each `NAME:SHA256` "
        "(`draw_values_N`, and `win_values_N` for games)", text="[\"NAME:SHA256\", ...]", check=_tables,
        default_text="none",
        doc="Part of the claim's content, so the ledger registers the tables' digests before a confirmation uses "
            "them; `ginsim confirm` refuses a table whose digest differs."),
))
def _claim_tables(value: list | None, values: dict[str, Any], fail) -> list:
    """``[[claims]]``: each table read by ``_parse_claim``."""
    if value is None:
        return []
    if not all(isinstance(t, dict) for t in value):
        raise fail("claims", "must be [[claims]] tables")
    return [_parse_claim(t, lambda k, m, i=i: fail(f"claims[{i}].{k}", m)) for i, t in enumerate(value)]


#: the top-level keys of a claims file
CLAIMS_FILE_SCHEMA = Schema("claims_file", (
    Key("max_deals", "int", None, "cap on a claim's confirmation, in single hands (`--deals` overrides)", low=1,
        default_text=f"{MAX_DEALS:,}"),
    Key("max_games", "int", None, "cap on a claim's confirmation, in whole games (`--games` overrides)", low=1,
        default_text=f"{MAX_GAMES:,}"),
    Key("claims", "list", None, "the claims, one table each (keys below)", text="`[[claims]]` tables", got=False,
        check=_claim_tables, default_text="required",
        doc="A claim taken back is withdrawn in the study's ledger (`ginsim claims withdraw`), not kept here."),
))


def parse_claims(data: dict[str, Any], where: str) -> Claims:
    """Validate a claims table (``experiments/STUDY.claims.toml`` read as TOML) against
    ``CLAIMS_FILE_SCHEMA``; ids are unique."""
    def fail(key: str, message: str) -> ClaimError:
        return ClaimError(f"{where}: {key}: {message}")

    values = CLAIMS_FILE_SCHEMA.read(data, fail)
    if not values["claims"]:
        raise fail("claims", "needs at least one [[claims]] table")
    ids: set[str] = set()
    for i, claim in enumerate(values["claims"]):
        if claim.id in ids:
            raise fail(f"claims[{i}].id", f"duplicate id {claim.id!r}")
        ids.add(claim.id)
    return Claims(Path(where), values["claims"], values["max_deals"], values["max_games"])


def _parse_claim(c: dict[str, Any], fail) -> Claim:
    """One ``[[claims]]`` table: its keys (``CLAIM_SCHEMA``), then what no single key checks:
    exactly one assertion, and ``tuning`` given exactly for ``field_edge``."""
    v = CLAIM_SCHEMA.read(c, fail)
    if (v["tuning"] is not None) != (v["metric"] == "field_edge"):
        raise fail("tuning" if v["tuning"] is not None else "metric",
                   "a tuning's claims (with tuning = ...) have metric = \"field_edge\", and only they")
    if v["opponent"] is not None and v["metric"] != "decision_loss":
        raise fail("opponent", "only a decision_loss claim names an opponent")
    given = [k for k in ASSERTIONS if v[k] is not None]
    if len(given) != 1:
        raise fail("sign" if not given else given[1],
                   "give exactly one assertion: sign = \"positive\"|\"negative\", above = X, below = X, "
                   "interval = [LOW, HIGH] or delta = D")
    kind = given[0]
    value = v[kind]
    low, high = claim_region({"metric": v["metric"], "unit": v["unit"], kind: value})
    _check_estimator(v, fail)
    return Claim(v["id"], v["statement"], v["metric"], v["unit"], v["a"], v["b"], v["rules"],
                 {kind: value}, low, high, v["note"].strip(),
                 float(v["effect"]) if v["effect"] is not None else None, v["tuning"], v["opponent"],
                 v["margin_from"], v["estimator"], v["tables"])


def estimator_name(estimator: str | None) -> str:
    """A claim's ``estimator`` key as the estimator it names: none given is the plain mean."""
    return estimator or "plain"


def reads_draws(estimator: str | None) -> bool:
    """Whether a claim's estimator counts the draws' luck (and so reads fitted tables)."""
    return estimator is not None and "draws" in estimator.split("+")


def _check_estimator(v: dict[str, Any], fail) -> None:
    """A control measures what it corrects (net points per hand or the share of games won; a
    first-mover edge takes one of ``SEAT_EDGE_CONTROLS`` and nothing else does); an estimator
    with the draws' luck names exactly the tables it reads, and ``tables`` comes with it only."""
    estimator = estimator_name(v["estimator"])
    if estimator == "plain":
        if v["tables"] is not None:
            raise fail("tables", "only a claim with estimator \"draws\" (or \"draws+...\") names tables")
        return
    edge = v["metric"] == "first_mover_edge"
    if edge != (estimator in SEAT_EDGE_CONTROLS):
        names = " or ".join(f"\"{name}\"" for name in SEAT_EDGE_CONTROLS)
        raise fail("estimator", f"a first-mover edge takes estimator = {names} (or none), and they "
                                "measure only that")
    kinds = DRAWS_MEASURES.get((v["metric"], v["unit"]))
    if kinds is None:
        raise fail("estimator", f"\"{estimator}\" measures metric = \"net_points\" with unit = \"hand\" and "
                                "metric = \"win_share\" with unit = \"game\" only")
    if estimator in GAMES_ONLY and v["unit"] != "game":
        raise fail("estimator", f"\"{estimator}\" measures whole games only: metric = \"win_share\" with "
                                "unit = \"game\"")
    if not reads_draws(estimator):
        if v["tables"] is not None:
            raise fail("tables", f"estimator = \"{estimator}\" reads no table; only one that counts the draws' "
                                 "luck names tables")
        return
    named = sorted(t.split(":")[0].rsplit("_", 1)[0] for t in v["tables"] or ())
    if named != sorted(kinds):
        raise fail("tables", f"estimator = \"{estimator}\" for {v['metric']} per {v['unit']} reads one table of "
                             f"each of {', '.join(kinds)}: give them as NAME:SHA256")


def claims_path(experiment: Path) -> Path:
    """``experiments/STUDY.claims.toml`` beside ``experiments/STUDY.toml``."""
    return experiment.with_name(experiment.stem + ".claims.toml")


def load_claims(path: str | Path) -> Claims:
    path = Path(path)
    return parse_claims(read_toml_file(path, "a claims file", ClaimError), str(path))


def tuning_claims_path(folder: Path) -> Path:
    """``experiments/STUDY/claims.toml``: the claims of a folder of tuning specs."""
    return folder / "claims.toml"
