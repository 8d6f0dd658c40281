"""Confirming a study's claims on fresh seeds: ``ginsim confirm STUDY``.

A study's claims live next to its experiment, in ``experiments/STUDY.claims.toml`` (a
folder of tuning specs such as ``experiments/optimal_knock`` keeps them in its
``claims.toml``); the format is in ``docs/experiments.md``, "Claims and confirmation".  Each
claim names an estimand — a metric (net points, win share, first-mover edge, length; for a
tuning, the tuned policy's edge over a baseline against the field), a unit (hand or game),
a matchup ``a`` vs ``b`` (``b = "field"``: every opponent of ``a``) and a variant of the
study (``rules``) — and what it asserts about it: a sign, a bound, an interval, or
equivalence within ``delta`` of no difference.

For every claim ``confirm_study`` (``confirm_tuning`` for a tuning study):

1. computes the **original** estimate by re-playing the study's own cells with the study's
   own seed and size (the runner's cell seed, so the rows are the study's rows; a tuning's
   original is its own fresh-deal comparison, read from its ``tune.json``);
2. fixes the confirmation's sample size **before playing**, from the original's unit
   standard deviation, for at least 90% power at the original estimate (or the claim's
   ``effect``), one-sided at α / m for m claims (Holm's first step, so the power holds
   under Holm), capped by ``max_deals`` / ``max_games``;
3. re-plays the cells on the **confirmation seed** — derived from the study seed and the
   fixed salt ``CONFIRM_SALT`` (recorded in the output), never the study's seed nor a
   development seed (``simulator.studies.seeds``);
4. tests the claim on the confirmation rows.  A one-sided claim is a one-sided t test
   against its bound; an interval or equivalence claim is two one-sided tests (TOST).  The
   study's claims are one family: ``replicated`` when the claim's Holm-adjusted p-value is
   at most 5%, ``not replicated`` when the opposite (the estimand lies outside the claimed
   region) has a Holm-adjusted p-value of at most 5%, ``inconclusive`` otherwise.

It writes ``results/STUDY/confirm.json`` and ``confirm.md``, each atomically (no
timestamps: the same arguments give the same bytes).  ``headline_block`` renders the
README's headline block from the committed ``confirm.json`` files (``python -m
simulator.studies.confirm headlines --write`` / ``--check``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scipy import stats as st

from ..analysis.claims import format_estimate
from ..analysis.claims import number as _number
from ..analysis.claims import scale as _scale
from ..run.experiment import Cell, Experiment, load_experiment, read_toml_file
from ..run.config import REQUIRED, Key, Schema, is_number
from ..run.limits import RESULTS_DIR
from ..run.rundir import CONFIRM_WRITER, CONFIRMATION_FILES, is_confirmation_file
from .seeds import development_seed_error

#: the salt that makes a study's confirmation seed (recorded in confirm.json)
CONFIRM_SALT = "ginsim-confirm-1"
#: family-wise level of the claims of one study, and the power each confirmation aims at
ALPHA = 0.05
POWER = 0.9
#: default caps on the confirmation's rows per claim, unless the claims file or the caller sets them
MAX_DEALS = 1_000_000
MAX_GAMES = 40_000
#: at least this many independent units (pairs when mirrored) per confirmation
MIN_UNITS = 200
#: deals / games played per piece (bounded memory; results do not depend on it)
PIECE = {"deals": 200_000, "games": 10_000}
#: the studies whose confirm.json the README's headline block is made from, in its order
HEADLINE_STUDIES = ("knock_vs_gin", "variant_balance", "strategy_tournament", "strong_players",
                    "score_awareness_games", "score_awareness", "optimal_knock", "equilibrium_knock",
                    "decision_values")
HEADLINE_BEGIN = "<!-- headlines:begin (generated from results/*/confirm.json by " \
                 "python -m simulator.studies.confirm headlines --write; do not edit) -->"
HEADLINE_END = "<!-- headlines:end -->"
WRITTEN_BY = CONFIRM_WRITER
MD_MARK = CONFIRMATION_FILES["confirm.md"]

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


@dataclass(frozen=True)
class Claims:
    path: Path
    claims: list[Claim]
    withdrawn: list[dict[str, str]] = field(default_factory=list)
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
    Key("tuning", "name", None, "a tuning study's claim: its spec's file name without .toml",
        doc="Given exactly when `metric = \"field_edge\"`.", default_text="none"),
    Key("opponent", "str", None, "a decision-values claim: the opponent both players meet, a strategy spec",
        text="a non-empty strategy spec", check=lambda value, values, fail: _opponent(value, fail),
        doc="Only with `metric = \"decision_loss\"`.", default_text="none"),
))
#: the keys of one ``[[withdrawn]]`` table
WITHDRAWN_SCHEMA = Schema("withdrawn", (
    Key("id", "name", REQUIRED, "the withdrawn claim's name, unique in the file"),
    _text_key("statement", "the claim as it was made"),
    _text_key("reason", "why it was taken back"),
))


def _tables(name: str, read) -> Key:
    """A list of ``[[name]]`` tables, each read by ``read(table, fail)`` (a list of values)."""
    def check(value: list | None, values: dict[str, Any], fail) -> list:
        if value is None:
            return []
        if not all(isinstance(t, dict) for t in value):
            raise fail(name, f"must be [[{name}]] tables")
        return [read(t, lambda k, m, i=i: fail(f"{name}[{i}].{k}", m)) for i, t in enumerate(value)]

    what = "the claims, one table each" if name == "claims" else "claims taken back, listed in confirm.md with the reason"
    return Key(name, "list", None, what + " (keys below)", text=f"`[[{name}]]` tables", got=False,
               check=check, default_text="required" if name == "claims" else "none")


#: the top-level keys of a claims file
CLAIMS_FILE_SCHEMA = Schema("claims_file", (
    Key("max_deals", "int", None, "cap on a claim's confirmation, in single hands (`--deals` overrides)", low=1,
        default_text=f"{MAX_DEALS:,}"),
    Key("max_games", "int", None, "cap on a claim's confirmation, in whole games (`--games` overrides)", low=1,
        default_text=f"{MAX_GAMES:,}"),
    _tables("claims", lambda t, fail: _parse_claim(t, fail)),
    _tables("withdrawn", WITHDRAWN_SCHEMA.read),
))


def parse_claims(data: dict[str, Any], where: str) -> Claims:
    """Validate a claims table (``experiments/STUDY.claims.toml`` read as TOML) against
    ``CLAIMS_FILE_SCHEMA``; ids are unique across claims and withdrawn claims."""
    def fail(key: str, message: str) -> ClaimError:
        return ClaimError(f"{where}: {key}: {message}")

    values = CLAIMS_FILE_SCHEMA.read(data, fail)
    if not values["claims"]:
        raise fail("claims", "needs at least one [[claims]] table")
    ids: set[str] = set()
    for kind in ("claims", "withdrawn"):
        for i, item in enumerate(values[kind]):
            name = item.id if kind == "claims" else item["id"]
            if name in ids:
                raise fail(f"{kind}[{i}].id", f"duplicate id {name!r}")
            ids.add(name)
    return Claims(Path(where), values["claims"], values["withdrawn"], values["max_deals"], values["max_games"])


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
    null = METRICS[v["metric"]][v["unit"]][2]
    if kind == "sign":
        low, high = (null, math.inf) if value == "positive" else (-math.inf, null)
    elif kind == "above":
        low, high = float(value), math.inf
    elif kind == "below":
        low, high = -math.inf, float(value)
    elif kind == "interval":
        low, high = float(value[0]), float(value[1])
    else:
        low, high = null - float(value), null + float(value)
    return Claim(v["id"], v["statement"], v["metric"], v["unit"], v["a"], v["b"], v["rules"],
                 {kind: value}, low, high, v["note"].strip(),
                 float(v["effect"]) if v["effect"] is not None else None, v["tuning"], v["opponent"])


def claims_path(experiment: Path) -> Path:
    """``experiments/STUDY.claims.toml`` beside ``experiments/STUDY.toml``."""
    return experiment.with_name(experiment.stem + ".claims.toml")


def load_claims(path: str | Path) -> Claims:
    path = Path(path)
    return parse_claims(read_toml_file(path, "a claims file", ClaimError), str(path))


# ----------------------------------------------------------------------------- seeds

def confirmation_seed(study_seed: int, salt: str = CONFIRM_SALT) -> int:
    """The confirmation's experiment seed: from the study seed and the salt, below 2**63."""
    digest = hashlib.blake2b(f"{salt}:{study_seed}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def check_confirmation_seed(exp: Experiment, seed: int) -> None:
    """Refuse (one line) a confirmation seed the study used or a development seed."""
    from ..run.runner import cell_seed

    for who, s in (("study " + exp.name, exp.seed), ("confirmation", seed)):
        message = development_seed_error(s, f"ginsim confirm {exp.name}: {who}")
        if message:
            raise ClaimError(message)
    if seed == exp.seed or seed in {cell_seed(exp.seed, c.index) for c in exp.cells()}:
        raise ClaimError(f"ginsim confirm {exp.name}: seed {seed} is one the study used (its seed or a cell's); "
                         f"a confirmation plays on seeds the study never used")


# ----------------------------------------------------------------------------- playing

_STAT_COLUMNS = {"deals": ("pair", "a_dealt", "outcome", "winner", "net_a", "draws", "knocker_deadwood",
                           "defender_deadwood"),
                 "games": ("pair", "a_dealt_first", "winner", "margin_a", "hands", "shutout")}


def _play_piece(a: str, b: str, rules: dict, mode: str, start: int, count: int, seed: int, mirrored: bool):
    """Rows ``start .. start + count`` of a cell (the columns the statistics read)."""
    from .. import api

    if mode == "deals":
        records = api.play_deal_records(a, b, rules, start, count, seed, mirrored)
        api.check_hand_errors(records, a, b)
        frame = api.hand_frame(records)
    else:
        records, _ = api.play_game_records(a, b, rules, start, count, seed, mirrored)
        api.check_game_errors(records, a, b)
        frame = api.game_frame(records)
    return frame[list(_STAT_COLUMNS[mode])]


def play_cell_stats(cell: Cell, mode: str, n: int, seed: int, mirrored: bool, jobs: int = 1):
    """The ``hand_stats`` / ``game_stats`` row of ``n`` deals or games of a cell played with
    the engine seed ``seed`` (deals 0 .. n-1, as the runner and ``simulate`` play them)."""
    import pandas as pd

    from ..analysis.stats import game_stats, hand_stats

    piece = PIECE[mode]
    parts = [(s, min(piece, n - s)) for s in range(0, n, piece)]
    args = [(cell.a, cell.b, cell.rules, mode, s, k, seed, mirrored) for s, k in parts]
    if jobs > 1 and len(parts) > 1:
        from joblib import Parallel, delayed

        frames = Parallel(n_jobs=jobs)(delayed(_play_piece)(*x) for x in args)
    else:
        frames = [_play_piece(*x) for x in args]
    rows = pd.concat(frames, ignore_index=True)
    stats = (hand_stats if mode == "deals" else game_stats)(rows, mirrored=mirrored)
    return stats.iloc[0]


def _oriented(stats, column: str, how: str, flipped: bool) -> tuple[float, float, float, float]:
    """(estimate, low, high, se) of ``column`` for a vs b (the cell's b vs a when ``flipped``)."""
    base = column[:-5] if column.endswith("_mean") else column
    est, low, high = (float(stats[column]), float(stats[f"{base}_ci_low"]), float(stats[f"{base}_ci_high"]))
    se = float(stats[f"{base}_se"])
    if flipped and how == "negate":
        est, low, high = -est, -high, -low
    elif flipped and how == "complement":
        est, low, high = 1 - est, 1 - high, 1 - low
    return est, low, high, se


# ----------------------------------------------------------------------------- tests and power

def _p_values(claim: Claim, est: float, se: float, dof: float) -> tuple[float, float]:
    """(p of the claim, p of its contradiction): one-sided t tests against the claimed
    region's bounds (two one-sided tests for an interval; the contradiction of an interval
    is the smaller side's p doubled)."""
    def above(bound: float) -> float:  # H0: estimand <= bound
        if se <= 0:
            return 0.0 if est > bound else 1.0
        return float(st.t.sf((est - bound) / se, dof))

    def below(bound: float) -> float:  # H0: estimand >= bound
        if se <= 0:
            return 0.0 if est < bound else 1.0
        return float(st.t.cdf((est - bound) / se, dof))

    lo, hi = claim.low, claim.high
    if math.isinf(hi):
        return above(lo), below(lo)
    if math.isinf(lo):
        return below(hi), above(hi)
    return max(above(lo), below(hi)), min(1.0, 2 * min(below(lo), above(hi)))


def power(claim: Claim, effect: float, sd: float, units: int, level: float) -> float:
    """Normal-approximation power of the claim's test at ``level`` (one-sided) with
    ``units`` independent units of standard deviation ``sd``, when the estimand is ``effect``."""
    if units < 2:
        return 0.0
    se = sd / math.sqrt(units)
    if se <= 0:
        return 1.0 if claim.low < effect < claim.high else 0.0
    z = st.norm.isf(level)
    up = st.norm.cdf((effect - claim.low) / se - z) if math.isfinite(claim.low) else 1.0
    down = st.norm.cdf((claim.high - effect) / se - z) if math.isfinite(claim.high) else 1.0
    return float(max(0.0, up + down - 1.0))


def units_for_power(claim: Claim, effect: float, sd: float, level: float, cap: int) -> int:
    """The fewest units (at least ``MIN_UNITS``, at most ``cap``) with ``POWER`` at ``effect``."""
    low, high = min(MIN_UNITS, cap), cap
    if power(claim, effect, sd, high, level) < POWER:
        return high
    while low < high:
        mid = (low + high) // 2
        if power(claim, effect, sd, mid, level) >= POWER:
            high = mid
        else:
            low = mid + 1
    return low


# ----------------------------------------------------------------------------- confirming

FIELD = "field"


def _find_cells(exp: Experiment, claim: Claim, where: str) -> list[tuple[Cell, bool]]:
    """The cells a claim reads, each with True when its a and b are the claim's b and a:
    one cell, or with ``b = "field"`` every cell of ``rules`` where ``a`` meets another strategy."""
    if claim.rules not in exp.variants:
        raise ClaimError(f"{where}: claim {claim.id}: rules: {claim.rules!r} is not a variant of study {exp.name} "
                         f"({', '.join(exp.variants)})")
    cells = [c for c in exp.cells() if c.variant == claim.rules]
    if claim.b == FIELD:
        found = [(c, c.b == claim.a) for c in cells if c.a != c.b and claim.a in (c.a, c.b)]
    else:
        found = [(c, False) for c in cells if (c.a, c.b) == (claim.a, claim.b)][:1]
        found = found or [(c, True) for c in cells if (c.a, c.b) == (claim.b, claim.a)][:1]
    if not found:
        pairs = sorted({f"{c.a} vs {c.b}" for c in cells})
        raise ClaimError(f"{where}: claim {claim.id}: a, b: no cell {claim.a} vs {claim.b} under {claim.rules} in "
                         f"study {exp.name}; its matchups: {'; '.join(pairs[:12])}{' ...' if len(pairs) > 12 else ''}")
    return found


def _combined(parts: list[tuple[float, float, float, float, int]]) -> tuple[float, float, float, float, int]:
    """(estimate, low, high, se, units) of one cell, or of the mean over several independent
    cells (se ``sqrt(sum se_i**2) / k``, a normal interval: as ``analysis.stats.ranking``)."""
    if len(parts) == 1:
        return parts[0]
    k = len(parts)
    est = sum(p[0] for p in parts) / k
    se = math.sqrt(sum(p[3] ** 2 for p in parts)) / k
    z = st.norm.ppf(0.975)
    return est, est - z * se, est + z * se, se, min(p[4] for p in parts)


def _shown(path: Path, root: Path) -> str:
    """``path`` relative to the checkout holding the study (its name when outside it)."""
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.name


def _round(x: float) -> float | None:
    return None if not math.isfinite(x) else float(f"{x:.6g}")


def _estimate(stats_by_cell: dict, claim: Claim, cells: list[tuple[Cell, bool]], mode: str):
    column, how, _ = METRICS[claim.metric][claim.unit]
    parts = []
    for cell, flipped in cells:
        stats = stats_by_cell[(cell.index, mode)]
        parts.append((*_oriented(stats, column, how, flipped), int(stats["n_units"])))
    return _combined(parts)


def _judge(plan: list[dict[str, Any]], level: float) -> list[dict[str, Any]]:
    """The confirm.json entries of a family of claims, each played (``original``,
    ``confirmation``, their standard errors ``se`` / ``conf_se``, the confirmation's
    ``units`` and ``dof``, the unit ``sd`` and the ``effect`` it was powered for): tests,
    Holm over the family, status."""
    from ..analysis.stats import holm_adjust

    p_claim, p_contra = [], []
    for p in plan:
        est, se = p["confirmation"]["estimate"], p["conf_se"]
        p["power"] = power(p["claim"], p["effect"], p["sd"], p["units"], level)
        both = math.hypot(p["se"], se)  # agreement of the two estimates
        p["z"] = (est - p["original"]["estimate"]) / both if both > 0 else 0.0
        pc, pn = _p_values(p["claim"], est, se, p["dof"])
        p_claim.append(pc)
        p_contra.append(pn)
    adj_claim, adj_contra = holm_adjust(p_claim), holm_adjust(p_contra)
    entries = []
    for p, pc, ac, an in zip(plan, p_claim, adj_claim, adj_contra, strict=True):
        claim = p["claim"]
        status = "replicated" if ac <= ALPHA else "not replicated" if an <= ALPHA else "inconclusive"
        entries.append({
            "id": claim.id, "statement": claim.statement, "metric": claim.metric, "unit": claim.unit,
            "a": p.get("a", claim.a), "b": p.get("b", claim.b), "rules": p.get("rules", claim.rules),
            "assertion": claim.assertion,
            "original": {k: _round(v) if isinstance(v, float) else v for k, v in p["original"].items()},
            "confirmation": {k: _round(v) if isinstance(v, float) else v for k, v in p["confirmation"].items()},
            "cells": p["engine_seeds"], "powered_for": _round(p["effect"]), "power": _round(p["power"]),
            "z": _round(p["z"]), "p": _round(pc), "p_holm": _round(float(ac)),
            "p_contradiction_holm": _round(float(an)), "status": status,
            **({"note": claim.note} if claim.note else {}),
        })
    return entries


def confirm_study(experiment: str | Path, claims: str | Path | None = None, max_deals: int | None = None,
                  max_games: int | None = None, jobs: int = 1, seed: int | None = None,
                  log=None) -> dict[str, Any]:
    """Confirm the claims of a study; returns what ``confirm.json`` holds (nothing written)."""
    from ..run.runner import cell_seed

    experiment = Path(experiment)
    exp = load_experiment(experiment)
    root = experiment.resolve().parent.parent
    cpath = Path(claims) if claims is not None else claims_path(experiment)
    spec = load_claims(cpath)
    log = log or (lambda text: None)
    salt_seed = confirmation_seed(exp.seed)
    seed = salt_seed if seed is None else seed
    check_confirmation_seed(exp, seed)
    caps = {"deals": max_deals or spec.max_deals or MAX_DEALS, "games": max_games or spec.max_games or MAX_GAMES}
    m = len(spec.claims)
    level = ALPHA / m
    where = str(cpath)
    per_unit = 2 if exp.mirrored else 1
    count = {"deals": "n_hands", "games": "n_games"}
    plan = []
    for claim in spec.claims:  # every claim is checked before anything is played
        mode = "deals" if claim.unit == "hand" else "games"
        if (exp.deals if mode == "deals" else exp.games) is None:
            raise ClaimError(f"{where}: claim {claim.id}: unit: study {exp.name} plays no {mode}")
        plan.append({"claim": claim, "mode": mode, "cells": _find_cells(exp, claim, where)})
    originals: dict[tuple[int, str], Any] = {}
    for p in plan:
        size = exp.deals if p["mode"] == "deals" else exp.games
        for cell, _ in p["cells"]:
            key = (cell.index, p["mode"])
            if key not in originals:
                log(f"original: cell {cell.index} ({cell.a} vs {cell.b}, {cell.variant}), {size:,} {p['mode']}")
                originals[key] = play_cell_stats(cell, p["mode"], size, cell_seed(exp.seed, cell.index),
                                                 exp.mirrored, jobs)
        est, low, high, se, units = _estimate(originals, p["claim"], p["cells"], p["mode"])
        sd = se * math.sqrt(units) if math.isfinite(se) else 0.0  # per unit of every cell (the field's mean)
        p.update(se=se, sd=sd, original={"estimate": est, "low": low, "high": high,
                                         "n": sum(int(originals[(c.index, p["mode"])][count[p["mode"]]])
                                                  for c, _ in p["cells"])})
        cap_units = max(1, caps[p["mode"]] // (per_unit * len(p["cells"])))
        p["effect"] = est if p["claim"].effect is None else p["claim"].effect
        p["rows"] = units_for_power(p["claim"], p["effect"], sd, level, cap_units) * per_unit
    # one confirmation per cell and unit, of the largest size its claims need: fixed before playing
    sizes: dict[tuple[int, str], int] = {}
    for p in plan:
        for cell, _ in p["cells"]:
            key = (cell.index, p["mode"])
            sizes[key] = max(sizes.get(key, 0), p["rows"])
    confirmations: dict[tuple[int, str], Any] = {}
    for p in plan:
        for cell, _ in p["cells"]:
            key = (cell.index, p["mode"])
            if key not in confirmations:
                log(f"confirmation: cell {cell.index} ({cell.a} vs {cell.b}, {cell.variant}), {sizes[key]:,} {p['mode']}")
                confirmations[key] = play_cell_stats(cell, p["mode"], sizes[key], cell_seed(seed, cell.index),
                                                     exp.mirrored, jobs)
    for p in plan:
        claim, mode = p["claim"], p["mode"]
        est, low, high, se, units = _estimate(confirmations, claim, p["cells"], mode)
        p["confirmation"] = {"estimate": est, "low": low, "high": high,
                             "n": sum(sizes[(c.index, mode)] for c, _ in p["cells"]), "seed": seed}
        p["engine_seeds"] = [{"cell": c.index, "a": c.a, "b": c.b, "study": cell_seed(exp.seed, c.index),
                              "confirmation": cell_seed(seed, c.index)} for c, _ in p["cells"]]
        p.update(conf_se=se, units=units, dof=max(units - 1, 1) if len(p["cells"]) == 1 else math.inf)
    entries = _judge(plan, level)
    return {
        "written_by": WRITTEN_BY, "study": exp.name, "experiment": _shown(experiment, root),
        "claims_file": _shown(cpath, root), "study_seed": exp.seed, "salt": CONFIRM_SALT, "seed": seed,
        "seed_from_salt": seed == salt_seed, "mirrored": exp.mirrored,
        "family": {"size": m, "method": "holm", "alpha": ALPHA}, "power_target": POWER,
        "caps": caps, "claims": entries, "withdrawn": spec.withdrawn,
    }


# ----------------------------------------------------------------------------- tuning studies

def tuning_claims_path(folder: Path) -> Path:
    """``experiments/STUDY/claims.toml``: the claims of a folder of tuning specs."""
    return folder / "claims.toml"


def confirm_tuning(folder: str | Path, claims: str | Path | None = None, max_deals: int | None = None,
                   max_games: int | None = None, seed: int | None = None, log=None) -> dict[str, Any]:
    """Confirm the claims of a tuning study (a folder of ``ginsim tune`` specs, such as
    ``experiments/optimal_knock``): each claim compares the tuned policy of one tuning with one
    of its baselines against the tuning's weighted field.  The original is the tuning's own
    fresh-deal comparison (``tune.json``, checked against the spec); the confirmation plays
    both policies on the same new deals, from the fields' streams keyed by the confirmation
    seed (``confirmation_seed`` of the spec's seed) instead of the spec's."""
    import dataclasses

    from .tune import Field, TuneError, load_spec, stream_seed, tune_out_dir

    folder = Path(folder)
    root = folder.resolve().parent.parent
    cpath = Path(claims) if claims is not None else tuning_claims_path(folder)
    spec = load_claims(cpath)
    where = str(cpath)
    log = log or (lambda text: None)
    caps = {"deals": max_deals or spec.max_deals or MAX_DEALS, "games": max_games or spec.max_games or MAX_GAMES}
    m = len(spec.claims)
    level = ALPHA / m
    plan, seeds = [], {}
    for claim in spec.claims:
        fail = (lambda key, message, claim=claim: ClaimError(f"{where}: claim {claim.id}: {key}: {message}"))
        if claim.tuning is None:
            raise fail("tuning", f"required in a tuning study's claims file ({', '.join(sorted(p.stem for p in folder.glob('*.toml') if p != cpath))})")
        try:
            tspec = load_spec(folder / f"{claim.tuning}.toml")
        except TuneError as exc:
            raise fail("tuning", str(exc)) from None
        mode = "deals" if tspec.objective == "net_per_hand" else "games"
        if claim.unit != ("hand" if mode == "deals" else "game"):
            raise fail("unit", f"tuning {claim.tuning} plays {mode}: unit = \"{'hand' if mode == 'deals' else 'game'}\"")
        tune_json = root / tune_out_dir(tspec) / "tune.json"
        try:
            result = json.loads(tune_json.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise fail("tuning", f"cannot read the tuning's result {tune_json}: {exc}") from None
        if result.get("name") != tspec.name or result.get("seed") != tspec.seed:
            raise fail("tuning", f"{tune_json} is not the result of {tspec.path} (name or seed differ)")
        rows = {r["name"]: r for r in result["fresh"]["rows"]}
        if claim.a != "tuned" or claim.b not in rows or claim.b == "tuned":
            raise fail("a, b", f"a = \"tuned\" and b one of the baselines: {', '.join(n for n in rows if n != 'tuned')}")
        if claim.rules != result["rules_label"]:
            raise fail("rules", f"tuning {claim.tuning} plays {result['rules_label']!r}")
        conf = confirmation_seed(tspec.seed) if seed is None else seed
        for who, value in (("tuning " + tspec.name, tspec.seed), ("confirmation", conf)):
            message = development_seed_error(value, f"ginsim confirm {folder.name}: {who}")
            if message:
                raise ClaimError(message)
        if conf == tspec.seed:
            raise ClaimError(f"ginsim confirm {folder.name}: seed {conf} is the one tuning {tspec.name} used")
        seeds[claim.tuning] = (tspec.seed, conf)
        base = rows[claim.b]
        n_opp, pairs = len(tspec.opponents), int(result["fresh"]["pairs_per_opponent"])
        per_policy = 2 * pairs * n_opp
        se = float(base["edge_se"])
        sd = se * math.sqrt(pairs)
        effect = float(base["edge"]) if claim.effect is None else claim.effect
        cap_pairs = max(1, caps[mode] // (2 * 2 * n_opp))  # two policies, n_opp opponents, pairs of two
        need = units_for_power(claim, effect, sd, level, cap_pairs)
        plan.append({"claim": claim, "spec": tspec, "conf_seed": conf, "pairs": need, "se": se, "sd": sd,
                     "effect": effect, "a": rows["tuned"]["strategy"], "b": base["strategy"],
                     "rules": claim.rules, "original": {"estimate": float(base["edge"]), "low": float(base["edge_ci"][0]),
                                                        "high": float(base["edge_ci"][1]), "n": 2 * per_policy}})
    from ..analysis.stats import t_interval

    for p in plan:
        tspec = dataclasses.replace(p["spec"], seed=p["conf_seed"])
        field_ = Field(tspec)
        log(f"confirmation: {p['claim'].tuning}: {p['a']} and {p['b']}, {p['pairs']:,} pairs per opponent")
        diff = field_.field_units(p["a"], "fresh", p["pairs"])[0] - field_.field_units(p["b"], "fresh", p["pairs"])[0]
        se, low, high = t_interval(diff.mean(), diff.std(ddof=1), len(diff), 0.95)
        n_opp = len(tspec.opponents)
        p["confirmation"] = {"estimate": float(diff.mean()), "low": float(low), "high": float(high),
                             "n": 2 * 2 * p["pairs"] * n_opp, "seed": p["conf_seed"]}
        p["engine_seeds"] = [{"opponent": o, "study": stream_seed(p["spec"].seed, "fresh", i),
                              "confirmation": stream_seed(p["conf_seed"], "fresh", i)}
                             for i, (o, _) in enumerate(p["spec"].opponents)]
        p.update(conf_se=float(se), units=len(diff), dof=max(len(diff) - 1, 1))
    entries = _judge(plan, level)
    study_seeds = sorted({v[0] for v in seeds.values()})
    conf_seeds = sorted({v[1] for v in seeds.values()})
    return {
        "written_by": WRITTEN_BY, "study": folder.name, "experiment": _shown(folder, root),
        "claims_file": _shown(cpath, root), "study_seed": study_seeds[0] if len(study_seeds) == 1 else study_seeds,
        "salt": CONFIRM_SALT, "seed": conf_seeds[0] if len(conf_seeds) == 1 else conf_seeds,
        "seed_from_salt": seed is None, "mirrored": True,
        "family": {"size": m, "method": "holm", "alpha": ALPHA}, "power_target": POWER,
        "caps": caps, "claims": entries, "withdrawn": spec.withdrawn,
    }


# ----------------------------------------------------------------------------- formatting

def _assertion_text(entry: dict[str, Any]) -> str:
    (kind, value), = entry["assertion"].items()
    mult, dec, _, _ = _scale(entry["metric"], entry["unit"])
    pct = "%" if entry["metric"] == "win_share" else ""
    num = (lambda v: f"{mult * v:.{dec + 1}f}".rstrip("0").rstrip(".") + pct)
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


def render_markdown(result: dict[str, Any]) -> str:
    n_claims = result["family"]["size"]
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
    lines = [MD_MARK, f"# Confirmation of {result['study']}", "",
             f"Claims: `{result['claims_file']}`; study: `{result['experiment']}` (seed {result['study_seed']}).",
             f"Confirmation seed {result['seed']}" + (f", derived from the study seed and the salt "
                                                      f"`{result['salt']}`" if result["seed_from_salt"] else
                                                      " (given on the command line)")
             + (streams if tuning else decisions if result.get("kind") == "decision_values" else cells),
             f"The {n_claims} claim{'s' if n_claims != 1 else ''} are one family: Holm at "
             f"{result['family']['alpha']:.0%}. Sample sizes were fixed before playing, from the study's own "
             f"variance, for {result['power_target']:.0%} power at the study's estimate or the claim's "
             f"`effect` (the table's *powered for*; one-sided tests at level "
             f"{result['family']['alpha']:.0%} / {n_claims}), capped at {result['caps']['deals']:,} deals and "
             f"{result['caps']['games']:,} games per claim.",
             "Status: *replicated* when the claim's Holm-adjusted p-value is at most 5%; *not replicated* when "
             "the estimand lies outside the claimed region at that level; *inconclusive* otherwise.", "",
             "z is the confirmation's estimate minus the study's over the standard error of the difference "
             "(|z| > 2: the two disagree by more than sampling error).", "",
             "| id | claim | a vs b, rules | asserts | study (n) | confirmation (n) | powered for | power | z | status |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for e in result["claims"]:
        _, _, unit_text, _ = _scale(e["metric"], e["unit"])
        lines.append(f"| {e['id']} | {e['statement']} | {e['a']} vs {e['b']}, {e['rules']} | {unit_text} "
                     f"{_assertion_text(e)} | {format_estimate(e, 'original')} ({e['original']['n']:,}) | "
                     f"{format_estimate(e, 'confirmation')} ({e['confirmation']['n']:,}) | "
                     f"{_number(e, e['powered_for'])} | {e['power']:.0%} | {e['z']:+.1f} | **{e['status']}** |")
    notes = [e for e in result["claims"] if e.get("note")]
    if notes:
        lines += ["", "## Notes", ""] + [f"* `{e['id']}`: {e['note']}" for e in notes]
    if result["withdrawn"]:
        lines += ["", "## Withdrawn claims", ""]
        lines += [f"* `{w['id']}`: {w['statement']} — withdrawn: {w['reason']}" for w in result["withdrawn"]]
    lines += ["", "## Closing note", ""]
    for e in result["claims"]:
        lines.append(f"* `{e['id']}` ({e['status']}): study {format_estimate(e, 'original')}, confirmation "
                     f"{format_estimate(e, 'confirmation')}.")
    return "\n".join(lines) + "\n"


def render_json(result: dict[str, Any]) -> str:
    return json.dumps(result, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def _outputs(result: dict[str, Any] | None = None) -> list[tuple[str, str, str | None]]:
    """(file name, its mark, its text) of each file ``ginsim confirm`` writes."""
    return [("confirm.json", CONFIRMATION_FILES["confirm.json"], result and render_json(result)),
            ("confirm.md", MD_MARK, result and render_markdown(result))]


def write_confirmation(result: dict[str, Any], out: str | Path) -> tuple[Path, Path]:
    """Write ``confirm.json`` and ``confirm.md`` into ``out``, each atomically; refuses, before
    writing either, to replace a file of that name that ginsim confirm did not write."""
    from ..analysis.rendering import atomic_write

    out = Path(out)
    outputs = _outputs(result)
    for name, _, _ in outputs:
        if (out / name).exists() and not is_confirmation_file(out / name):
            raise ClaimError(f"{out / name} exists and was not written by ginsim confirm; move it away")
    out.mkdir(parents=True, exist_ok=True)
    for name, _, text in outputs:
        atomic_write(out / name, text)
    return out / "confirm.json", out / "confirm.md"


# ----------------------------------------------------------------------------- README headlines

def headline_block(root: str | Path) -> str:
    """The README's headline block, made from ``results/STUDY/confirm.json`` of every study in
    ``HEADLINE_STUDIES`` that has one: each replicated claim with the study's and the
    confirmation's interval.  A claim that is not replicated is no headline: it is named, with
    its status and no figure, so a reader can look it up in the study's ``confirm.md``."""
    root = Path(root)
    lines = [HEADLINE_BEGIN, "",
             "Each finding is a claim in the study's claims file (`experiments/STUDY.claims.toml`), re-played by "
             "`ginsim confirm STUDY` on seeds the study never used and replicated there (Holm over the study's "
             "claims); the study's 95% interval comes first, the confirmation's second "
             "(`results/STUDY/confirm.md` has the sample sizes, power and tests).", ""]
    unconfirmed = []
    for study in HEADLINE_STUDIES:
        path = root / RESULTS_DIR / study / "confirm.json"
        if not path.is_file():
            continue
        result = json.loads(path.read_text(encoding="utf-8"))
        claims = [e for e in result["claims"] if e["status"] == "replicated"]
        unconfirmed += [f"`{e['id']}` ({study}, {e['status']})" for e in result["claims"] if e["status"] != "replicated"]
        if not claims:
            continue
        lines.append(f"* **{study}** ([report](results/{study}/report.md), "
                     f"[confirmation](results/{study}/confirm.md)):")
        for e in claims:
            _, _, unit_text, _ = _scale(e["metric"], e["unit"])
            who = "" if e["metric"] == "field_edge" else f"{e['a']} vs {e['b']}, `{e['rules']}`; "
            lines.append(f"  * {e['statement']} ({who}{unit_text}): study {format_estimate(e, 'original')}, "
                         f"confirmation **{format_estimate(e, 'confirmation')}**.")
    if unconfirmed:
        lines += ["", "Not headlines, because the confirmation did not replicate them (their figures are in each "
                      "study's `confirm.md`): " + ", ".join(unconfirmed) + "."]
    lines += ["", HEADLINE_END]
    return "\n".join(lines)


def readme_with_headlines(readme: str, block: str) -> str:
    """``readme`` with its headline block replaced by ``block`` (a ValueError if it has none)."""
    begin, end = readme.find("<!-- headlines:begin"), readme.find(HEADLINE_END)
    if begin < 0 or end < begin:
        raise ValueError(f"README.md has no headline block ({HEADLINE_BEGIN[:22]} ... {HEADLINE_END})")
    return readme[:begin] + block + readme[end + len(HEADLINE_END):]


def _headlines_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulator.studies.confirm headlines",
                                     description="Write or check README.md's headline block from results/*/confirm.json.")
    parser.add_argument("--root", default=".", help="the checkout (default: the current directory)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the block in README.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when README.md's block differs")
    args = parser.parse_args(argv)
    readme = Path(args.root) / "README.md"
    text = readme.read_text(encoding="utf-8")
    new = readme_with_headlines(text, headline_block(args.root))
    if args.check:
        if new != text:
            print("README.md: the headline block differs from results/*/confirm.json; run "
                  "python -m simulator.studies.confirm headlines --write", file=sys.stderr)
            return 1
        return 0
    if new != text:
        tmp = readme.with_name(f".README.md.{os.getpid()}.tmp")
        tmp.write_text(new, encoding="utf-8")
        os.replace(tmp, readme)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] != ["headlines"]:
        sys.exit("usage: python -m simulator.studies.confirm headlines --write|--check")
    sys.exit(_headlines_main(sys.argv[2:]))
