"""Confirming a study's claims on fresh seeds: ``ginsim confirm STUDY``.

A study's claims live next to its experiment, in ``experiments/STUDY.claims.toml`` (a
folder of tuning specs such as ``experiments/optimal_knock`` keeps them in its
``claims.toml``), read by ``simulator.studies.claims_file``; the format is in
``docs/experiments.md``, "Claims and confirmation".  Each
claim names an estimand — a metric (net points, win share, first-mover edge, length; for a
tuning, the tuned policy's edge over a baseline against the field), a unit (hand or game),
a matchup ``a`` vs ``b`` (``b = "field"``: every opponent of ``a``) and a variant of the
study (``rules``) — and what it asserts about it: a sign, a bound, an interval, or
equivalence within ``delta`` of no difference.

Every claim must be registered, as the file states it, in the study's ledger
(``simulator.studies.ledger``; ``open_protocol`` refuses the file otherwise).  For every
claim ``confirm_study`` (``confirm_tuning`` for a tuning study,
``decision_values.confirm`` for a decision-values study), with its ``Protocol``:

1. computes the **original** estimate by re-playing the study's own cells with the study's
   own seed and size (the runner's cell seed, so the rows are the study's rows; a tuning's
   original is its own fresh-deal comparison, read from its ``tune.json``);
2. fixes the confirmation's sample size **before playing** and writes it to the ledger
   (``Protocol.units``, ``Protocol.fix``): from the original's unit standard deviation, for
   at least 90% power at a conservative effect (``conservative_effect``: the claim's
   ``effect``, else the edge of the study's interval nearest the claimed bound), one-sided
   at α / M for a family of M tests (Holm's first step, so the power holds under Holm;
   the whole record: every confirmation in every ledger, this one's included,
   ``simulator.studies.record``), capped by ``max_deals`` /
   ``max_games``; a salt whose size the ledger holds keeps it;
3. re-plays the cells on the **confirmation seed** — derived from the study seed and the
   salt (``CONFIRM_SALT`` unless ``--salt`` names another; recorded in the ledger and the
   output), never the study's seed nor a development seed (``simulator.run.seeds``);
4. tests the claim on the confirmation rows.  A one-sided claim is a one-sided t test
   against its bound; an interval or equivalence claim is two one-sided tests (TOST)
   (``test_interval``: the bound or 90% interval each uses).  The study's claims are one
   family: ``replicated`` when the claim's Holm-adjusted p-value is at most 5%, ``not
   replicated`` when the opposite (the estimand lies outside the claimed region) has a
   Holm-adjusted p-value of at most 5%, ``inconclusive`` otherwise; the result is appended
   to the ledger with the sha256 of the ``confirm.json`` that states it (``Protocol.record``),
   or checked against the one it holds for the salt.  ``ginsim claims verify`` re-plays a
   recorded confirmation from its plans through the same functions (``Protocol.verifies``,
   ``Protocol.compare``), writing nothing.

It writes ``results/STUDY/confirm.json`` and ``confirm.md`` (``simulator.studies.confirm_pages``), each atomically (no
timestamps: the same arguments and ledger give the same bytes).  A claim restated from an
earlier one, or confirmed before, is refused a salt on which any claim of its study has a
result (``record.salt_seen``): that salt's deals have been seen.  ``simulator.studies.record``
tests every confirmation of every ledger again as one family and renders the README's
opening and docs/claims.md from them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scipy import stats as st

from ..analysis.claims import METRICS
from ..infra.inputs import read_json
from ..run.experiment import Cell, Experiment, load_experiment
from ..run.rundir import CONFIRM_WRITER, CONFIRMATION_FILES, RunError
from ..run.seeds import derive_seed, development_seed_error
from .claims_file import MAX_DEALS, MAX_GAMES, Claim, ClaimError, Claims, load_claims, reads_draws
from .ledger import LEVEL, Ledger, append, file_problems, ledger_path, load_ledger, now, salt_problem
from .record import RECORD_FAMILY, power_in, record_size, salt_seen

#: the salt a confirmation's seeds derive from by default (recorded in the ledger and confirm.json);
#: ``ginsim-confirm-1`` made the confirmations recorded before the ledger planned sizes
CONFIRM_SALT = "ginsim-confirm-2"
#: family-wise level of the claims of one study, and the power each confirmation aims at
ALPHA = LEVEL
POWER = 0.9
#: at least this many independent units (pairs when mirrored) per confirmation
MIN_UNITS = 200
#: deals / games played per piece (bounded memory; results do not depend on it)
PIECE = {"deals": 200_000, "games": 10_000}
WRITTEN_BY = CONFIRM_WRITER
MD_MARK = CONFIRMATION_FILES["confirm.md"]


# ----------------------------------------------------------------------------- seeds and the ledger

def conservative_effect(claim: Claim, low: float, high: float) -> tuple[float, str]:
    """The effect a confirmation is powered for, and where it comes from: the claim's
    declared ``effect``, else the edge of the study's 95% interval ``[low, high]`` nearest
    the claimed region's bound (its lower edge for a claim of "above", the edge nearest
    ±δ for equivalence), since the study's own estimate is inflated by the selection of
    what was claimed (the winner's curse)."""
    if claim.effect is not None:
        return claim.effect, "declared effect"
    edges = [e for e in (low, high) if math.isfinite(e)]
    return min(edges, key=lambda e: min(e - claim.low, claim.high - e)), "study interval edge"


def test_interval(claim: Claim, est: float, se: float, dof: float) -> list[float | None]:
    """The interval the claim's test uses at level ``ALPHA``: a one-sided claim's one-sided
    95% bound (``[bound, None]`` for "above", ``[None, bound]`` for "below"), an interval or
    equivalence claim's 90% interval (two one-sided tests at 5%)."""
    t = float(st.t.isf(ALPHA, dof)) * se
    return [_round(est - t) if math.isfinite(claim.low) else None,
            _round(est + t) if math.isfinite(claim.high) else None]


@dataclass
class Protocol:
    """One confirmation as its study's ledger records it: the claims file checked against
    the ledger, the ``salt`` every seed derives from, the family whose level sizes it
    (``family``: the whole record, every confirmation in every ledger and this one's; a
    confirmation made before then records the headline family or the study's
    claims), the sizes fixed in ``plan`` entries before anything plays, and the results
    appended as ``confirm`` entries (``record``).  A protocol that ``verifies`` re-plays the
    ledger's confirmation of this salt from its plans, writes nothing, and plays only the
    claims in ``only`` (all when None; ``compare`` checks the figures)."""

    study: str
    claims: Claims
    ledger: Ledger
    salt: str
    family: dict[str, Any]
    caps_given: bool = False
    staged: list[dict[str, Any]] = field(default_factory=list)
    verifies: bool = False
    only: frozenset[str] | None = None

    def plays(self, claim: Claim) -> bool:
        """True when this confirmation plays ``claim`` (a verification may play a few)."""
        return self.only is None or claim.id in self.only

    def planned(self, claim: Claim) -> int:
        """The units the ledger's plan of this salt fixed for ``claim`` (0: no plan)."""
        plan = self.ledger.records[claim.id].plan(self.salt)
        return 0 if plan is None else int(plan["units"])

    @property
    def level(self) -> float:
        """The one-sided level each claim's size is powered at: α over the family's size
        (Holm's first step, so the power holds under Holm)."""
        return self.family["alpha"] / self.family["size"]

    def seed(self, study_seed: int) -> int:
        """The confirmation's seed: ``derive_seed`` of the study's seed under the salt."""
        return derive_seed(study_seed, salt=self.salt)

    def fail(self, claim: Claim, message: str) -> ClaimError:
        return ClaimError(f"{self.claims.path}: claim {claim.id}: {message}")

    def units(self, claim: Claim, effect: tuple[float, str], sd: float, cap: int, unit: str, seed: int) -> int:
        """The units (pairs when mirrored) the claim's confirmation plays: the ledger's plan
        for this salt when there is one, else the fewest with ``POWER`` at ``effect`` (at
        most ``cap``), staged as a new plan entry (``fix`` writes it before playing)."""
        record = self.ledger.records[claim.id]
        plan = record.plan(self.salt)
        if plan is not None:
            if self.caps_given:
                raise self.fail(claim, f"its size for salt {self.salt} is fixed in {self.ledger.path} "
                                       f"({plan['units']:,} {plan['unit']}); --deals/--games cannot change it: a "
                                       f"larger confirmation is a new one, with a new --salt")
            return int(plan["units"])
        if self.verifies:
            raise self.fail(claim, f"{self.ledger.path} holds no plan with salt {self.salt}: there is no "
                                   f"confirmation of it to verify")
        if record.result(self.salt) is not None:
            raise self.fail(claim, f"salt {self.salt} gave a result before sizes were recorded in the ledger; a "
                                   f"new confirmation needs a new --salt")
        n = units_for_power(claim, effect[0], sd, self.level, cap)
        self.staged.append({"entry": "plan", "id": claim.id, "date": now(), "hash": record.hash,
                            "salt": self.salt, "seed": seed, "units": n, "unit": unit,
                            "effect": _round(effect[0]), "effect_from": effect[1], "level": _round(self.level),
                            "power": _round(power(claim, effect[0], sd, n, self.level))})
        return n

    def fix(self) -> None:
        """Write the staged plan entries to the ledger: the sizes are fixed before playing."""
        self.ledger = append(self.ledger, self.staged)
        self.staged = []

    def record(self, result: dict[str, Any], confirm_json: str) -> None:
        """Append each claim's result to the ledger with ``confirm_json``, the digest of the
        sealed confirm.json that states it, or, for a salt the ledger holds a result of
        already, refuse (one line) when the figures differ (the code or the study changed)."""
        new = []
        for e in result["claims"]:
            record = self.ledger.records[e["id"]]
            entry = {"entry": "confirm", "id": e["id"], "date": now(), "hash": record.hash, "salt": self.salt,
                     "seed": e["confirmation"]["seed"], **{k: e[k] for k in RESULT_FIELDS}, "family": self.family,
                     "holm": {"size": len(result["claims"]), "p_holm": e["p_holm"],
                              "p_contradiction_holm": e["p_contradiction_holm"]}, "confirm_json": confirm_json}
            old = record.result(self.salt)
            if old is None:
                new.append(entry)
            elif self.differences(old, e):
                raise ClaimError(f"{self.claims.path}: claim {e['id']}: salt {self.salt} now gives other figures "
                                 f"than {self.ledger.path} records ({old['date']}): the code or the study changed; "
                                 f"a new confirmation needs a new --salt")
        self.ledger = append(self.ledger, new)

    @staticmethod
    def differences(old: dict[str, Any], played: dict[str, Any]) -> list[str]:
        """The fields of ``SAME_FIELDS`` in which a claim's ledger entry ``old`` and its
        re-played result differ."""
        seed = {"seed": played["confirmation"]["seed"]}
        return [k for k in SAME_FIELDS if old.get(k) != seed.get(k, played.get(k))]

    def compare(self, result: dict[str, Any]) -> list[tuple[str, list[str]]]:
        """Each re-played claim of ``result`` (a verification) against the ledger's entry of
        this salt: (id, the fields that differ; empty when every figure is the ledger's)."""
        out = []
        for e in result["claims"]:
            old = self.ledger.records[e["id"]].result(self.salt)
            out.append((e["id"], ["no confirm entry"] if old is None else self.differences(old, e)))
        return out

    def history(self, claim_id: str) -> list[dict[str, Any]]:
        """The claim's confirmations in the ledger with other salts than this one."""
        return [c for c in self.ledger.records[claim_id].confirmations if c["salt"] != self.salt]

    def withdrawn(self) -> list[dict[str, str]]:
        """The study's withdrawn claims (id, statement, reason), for confirm.json and confirm.md."""
        return [{"id": r.id, "statement": r.claim.get("statement", ""), "reason": r.withdrawn["reason"]}
                for r in self.ledger.withdrawn]


#: what a ``confirm`` entry copies of a claim's result, and what a re-run with the same salt must reproduce
RESULT_FIELDS = ("original", "confirmation", "test_interval", "p", "p_contradiction", "status", "power",
                 "powered_for", "effect_from", "z", "cells")
SAME_FIELDS = ("seed", "original", "confirmation", "test_interval", "p", "p_contradiction", "cells")


def open_protocol(study: str, claims_file: Path, experiments: Path, salt: str = CONFIRM_SALT,
                  caps_given: bool = False) -> Protocol:
    """The claims file read and checked against the study's ledger: refused (one line naming
    the claim) when a claim differs from its registered entry, is not registered, was
    withdrawn, or when a registered claim is missing from the file."""
    claims = load_claims(claims_file)
    ledger = load_ledger(ledger_path(experiments, study), study)
    problems = file_problems(ledger, [c.table() for c in claims.claims], str(claims_file), study)
    if problems:
        raise ClaimError(problems[0])
    if salt_problem(salt):
        raise ClaimError(f"--salt {salt_problem(salt)}")
    new_tests = [c for c in claims.claims if ledger.records[c.id].result(salt) is None]
    for claim in new_tests:
        reason = salt_seen(ledger, ledger.records[claim.id], salt)
        if reason:
            raise ClaimError(f"{claims_file}: claim {claim.id}: --salt {salt}: {reason}; a restated or re-confirmed "
                             f"claim plays on a salt no claim of the study has used: give a new --salt")
    family = {"name": RECORD_FAMILY, "size": record_size(experiments) + len(new_tests), "method": "holm",
              "alpha": ALPHA}
    return Protocol(study, claims, ledger, salt, family, caps_given)


def caps(protocol: Protocol, max_deals: int | None, max_games: int | None) -> dict[str, int]:
    """The caps on a claim's confirmation: the command line's, else the claims file's, else the defaults."""
    return {"deals": max_deals or protocol.claims.max_deals or MAX_DEALS,
            "games": max_games or protocol.claims.max_games or MAX_GAMES}


def result_document(protocol: Protocol, entries: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    """What ``confirm.json`` holds: the study's ``fields`` (study, experiment, seeds, caps ...),
    the family, each claim's entry with its earlier confirmations, the withdrawn claims."""
    for e in entries:
        e["earlier"] = [{k: c[k] for k in ("salt", "date", "confirmation", "test_interval", "p", "status")}
                        for c in protocol.history(e["id"])]
    return {"written_by": WRITTEN_BY, **fields, "salt": protocol.salt, "family": protocol.family,
            "holm": {"size": len(entries), "method": "holm", "alpha": ALPHA}, "power_target": POWER,
            "claims": entries, "withdrawn": protocol.withdrawn()}


def check_confirmation_seed(exp: Experiment, seed: int) -> None:
    """Refuse (one line) a confirmation seed the study used or a development seed."""
    for who, s in (("study " + exp.name, exp.seed), ("confirmation", seed)):
        message = development_seed_error(s, f"ginsim confirm {exp.name}: {who}")
        if message:
            raise ClaimError(message)
    if seed == exp.seed or seed in {derive_seed(exp.seed, c.index) for c in exp.cells()}:
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


def check_tables(claim: Claim, where: str) -> dict[str, Any]:
    """The tables a claim confirmed with the draws' luck registered, by kind: each named table
    is loaded (its own digest verified) and must have the digest the claim names."""
    from . import draw_values

    tables = {}
    for entry in claim.tables or ():
        name, digest = entry.split(":")
        kind, version = name.rsplit("_", 1)
        try:
            table = (draw_values.load if kind == "draw_values" else draw_values.load_wins)(int(version))
        except ValueError as err:
            raise ClaimError(f"{where}: claim {claim.id}: tables: {err}") from None
        if table.digest != digest:
            raise ClaimError(f"{where}: claim {claim.id}: tables: {name} has digest {table.digest[:12]}..., the claim "
                             f"registered {digest[:12]}...; a changed table is a new version and a new claim")
        tables[kind] = table
    return tables


def play_reduced_cell_stats(cell: Cell, mode: str, n: int, seed: int, claim: Claim, tables: dict[str, Any]):
    """The claim's column of a cell's statistics estimated with its estimator's control
    variates (``simulator.studies.controls.pairs_with_controls``; the draws read the claim's own
    ``tables``, ``check_tables``): ``n`` deals or games (mirrored pairs, deals 0 .. n-1 of the
    engine seed ``seed``, as ``play_cell_stats`` plays them), with the plain estimate of the same
    units beside it (``plain``)."""
    from ..analysis.stats import estimators
    from .controls import pairs_with_controls

    x, controls = pairs_with_controls(cell.a, cell.b, cell.rules, claim.unit, n, seed, claim.estimator, tables)
    column = METRICS[claim.metric][claim.unit][0]
    base = _stat_base(column)

    def stats(e):
        return {column: e.value, f"{base}_ci_low": e.low, f"{base}_ci_high": e.high, f"{base}_se": e.se,
                "n_units": e.units, "n_hands" if mode == "deals" else "n_games": n, "method": e.method}

    return stats(estimators.with_controls(x, controls)) | {"plain": stats(estimators.plain(x))}


def _stat_base(column: str) -> str:
    """The stem of a statistic's interval columns (``net_mean`` -> ``net``: ``net_ci_low``, ...)."""
    return column[:-5] if column.endswith("_mean") else column


def _oriented(stats, column: str, how: str, flipped: bool) -> tuple[float, float, float, float]:
    """(estimate, low, high, se) of ``column`` for a vs b (the cell's b vs a when ``flipped``)."""
    base = _stat_base(column)
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
    return 0.0 if units < 2 else power_in(claim.low, claim.high, effect, sd / math.sqrt(units), level)


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


def _played(cell: Cell, p: dict[str, Any]) -> tuple[int, str, str]:
    """The key of what a plan entry's cell plays: the cell, the unit's mode and the estimator
    (one play serves every claim of the same key, at the largest size they need)."""
    return cell.index, p["mode"], p["estimator"]


def _estimate(stats_by_cell: dict, p: dict[str, Any], plain: bool = False):
    """(estimate, low, high, se, units) of a plan entry's claim from its cells' statistics (with
    ``plain``, the plain estimate a reduced claim's statistics hold beside the reduced one)."""
    claim = p["claim"]
    column, how, _ = METRICS[claim.metric][claim.unit]
    parts = []
    for cell, flipped in p["cells"]:
        stats = stats_by_cell[_played(cell, p)]
        stats = stats["plain"] if plain else stats
        parts.append((*_oriented(stats, column, how, flipped), int(stats["n_units"])))
    return _combined(parts)


def _plain_entry(stats_by_cell: dict, p: dict[str, Any]) -> dict[str, float | None]:
    """The plain estimate of a reduced claim from the same units (its cells' ``plain``)."""
    est, low, high, _, _ = _estimate(stats_by_cell, p, plain=True)
    return {"estimate": _round(est), "low": _round(low), "high": _round(high)}


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
    for p, pc, pn, ac, an in zip(plan, p_claim, p_contra, adj_claim, adj_contra, strict=True):
        claim = p["claim"]
        status = "replicated" if ac <= ALPHA else "not replicated" if an <= ALPHA else "inconclusive"
        entries.append({
            "id": claim.id, "statement": claim.statement, "metric": claim.metric, "unit": claim.unit,
            "a": p.get("a", claim.a), "b": p.get("b", claim.b), "rules": p.get("rules", claim.rules),
            "assertion": claim.assertion,
            "original": {k: _round(v) if isinstance(v, float) else v for k, v in p["original"].items()},
            "confirmation": {k: _round(v) if isinstance(v, float) else v for k, v in p["confirmation"].items()},
            "test_interval": test_interval(claim, p["confirmation"]["estimate"], p["conf_se"], p["dof"]),
            "cells": p["engine_seeds"], "powered_for": _round(p["effect"]), "effect_from": p["effect_from"],
            "power": _round(p["power"]), "z": _round(p["z"]), "p": _round(pc), "p_contradiction": _round(pn),
            "p_holm": _round(float(ac)), "p_contradiction_holm": _round(float(an)), "status": status,
            **({"note": claim.note} if claim.note else {}),
            **({"estimator": claim.estimator, "tables": claim.tables, "plain": p["plain"]}
               if p.get("estimator", "plain") != "plain" else {}),
        })
    return entries


def confirm_study(experiment: str | Path, protocol: Protocol, max_deals: int | None = None,
                  max_games: int | None = None, jobs: int = 1, log=None) -> dict[str, Any]:
    """Confirm the claims of a study (``protocol``: its claims, ledger and salt); returns
    what ``confirm.json`` holds (the plan entries are in the ledger; nothing else written)."""
    experiment = Path(experiment)
    exp = load_experiment(experiment)
    root = experiment.resolve().parent.parent
    log = log or (lambda text: None)
    seed = protocol.seed(exp.seed)
    check_confirmation_seed(exp, seed)
    limits = caps(protocol, max_deals, max_games)
    where = str(protocol.claims.path)
    per_unit = 2 if exp.mirrored else 1
    count = {"deals": "n_hands", "games": "n_games"}
    plan = []
    for claim in protocol.claims.claims:  # every claim is checked before anything is played
        mode = "deals" if claim.unit == "hand" else "games"
        if (exp.deals if mode == "deals" else exp.games) is None:
            raise ClaimError(f"{where}: claim {claim.id}: unit: study {exp.name} plays no {mode}")
        estimator = claim.estimator_used
        if estimator != "plain" and not exp.mirrored:
            raise ClaimError(f"{where}: claim {claim.id}: estimator: \"{estimator}\" plays mirrored pairs, and study "
                             f"{exp.name} is not mirrored")
        plan.append({"claim": claim, "mode": mode, "estimator": estimator,
                     "tables": check_tables(claim, where) if reads_draws(estimator) else {},
                     "cells": _find_cells(exp, claim, where)})

    def play(cell: Cell, p: dict, n: int, engine_seed: int):
        if p["estimator"] != "plain":
            return play_reduced_cell_stats(cell, p["mode"], n, engine_seed, p["claim"], p["tables"])
        return play_cell_stats(cell, p["mode"], n, engine_seed, exp.mirrored, jobs)

    originals: dict[tuple[int, str, str], Any] = {}
    for p in plan:
        if not protocol.plays(p["claim"]):  # a verification of other claims: its plan still sizes shared cells
            p["rows"] = protocol.planned(p["claim"]) * per_unit
            continue
        size = exp.deals if p["mode"] == "deals" else exp.games
        for cell, _ in p["cells"]:
            key = _played(cell, p)
            if key not in originals:
                log(f"original: cell {cell.index} ({cell.a} vs {cell.b}, {cell.variant}), {size:,} {p['mode']}"
                    + ("" if p["estimator"] == "plain" else f", estimator {p['estimator']}"))
                originals[key] = play(cell, p, size, derive_seed(exp.seed, cell.index))
        est, low, high, se, units = _estimate(originals, p)
        sd = se * math.sqrt(units) if math.isfinite(se) else 0.0  # per unit of every cell (the field's mean)
        p.update(se=se, sd=sd, original={"estimate": est, "low": low, "high": high,
                                         "n": sum(int(originals[_played(c, p)][count[p["mode"]]])
                                                  for c, _ in p["cells"])})
        if p["estimator"] != "plain":
            p["plain"] = {"original": _plain_entry(originals, p)}
        cap_units = max(1, limits[p["mode"]] // (per_unit * len(p["cells"])))
        p["effect"], p["effect_from"] = conservative_effect(p["claim"], low, high)
        unit = f"{'mirrored pairs' if exp.mirrored else p['mode']} per cell"
        p["rows"] = protocol.units(p["claim"], (p["effect"], p["effect_from"]), sd, cap_units, unit, seed) * per_unit
    protocol.fix()  # the sizes are in the ledger before anything is played
    # one confirmation per cell, unit and estimator, of the largest size its claims need
    sizes: dict[tuple[int, str, str], int] = {}
    for p in plan:
        for cell, _ in p["cells"]:
            key = _played(cell, p)
            sizes[key] = max(sizes.get(key, 0), p["rows"])
    plan = [p for p in plan if protocol.plays(p["claim"])]
    confirmations: dict[tuple[int, str, str], Any] = {}
    for p in plan:
        for cell, _ in p["cells"]:
            key = _played(cell, p)
            if key not in confirmations:
                log(f"confirmation: cell {cell.index} ({cell.a} vs {cell.b}, {cell.variant}), {sizes[key]:,} {p['mode']}"
                    + ("" if p["estimator"] == "plain" else f", estimator {p['estimator']}"))
                confirmations[key] = play(cell, p, sizes[key], derive_seed(seed, cell.index))
    for p in plan:
        est, low, high, se, units = _estimate(confirmations, p)
        p["confirmation"] = {"estimate": est, "low": low, "high": high,
                             "n": sum(sizes[_played(c, p)] for c, _ in p["cells"]), "seed": seed}
        if p["estimator"] != "plain":
            p["plain"]["confirmation"] = _plain_entry(confirmations, p)
        p["engine_seeds"] = [{"cell": c.index, "a": c.a, "b": c.b, "study": derive_seed(exp.seed, c.index),
                              "confirmation": derive_seed(seed, c.index)} for c, _ in p["cells"]]
        p.update(conf_se=se, units=units, dof=max(units - 1, 1) if len(p["cells"]) == 1 else math.inf)
    return result_document(protocol, _judge(plan, protocol.level), study=exp.name,
                           experiment=_shown(experiment, root), claims_file=_shown(protocol.claims.path, root),
                           study_seed=exp.seed, seed=seed, mirrored=exp.mirrored, caps=limits)


# ----------------------------------------------------------------------------- tuning studies

def confirm_tuning(folder: str | Path, protocol: Protocol, max_deals: int | None = None,
                   max_games: int | None = None, log=None) -> dict[str, Any]:
    """Confirm the claims of a tuning study (a folder of ``ginsim tune`` specs, such as
    ``experiments/optimal_knock``): each claim compares the tuned policy of one tuning with one
    of its baselines against the tuning's weighted field.  The original is the tuning's own
    fresh-deal comparison (``tune.json``, checked against the spec); the confirmation plays
    both policies on the same new deals, from the fields' streams keyed by the confirmation
    seed (``Protocol.seed`` of the spec's seed) instead of the spec's."""
    import dataclasses

    from .tune import TUNE_SALT, Field, TuneError, load_spec, tune_out_dir

    folder = Path(folder)
    root = folder.resolve().parent.parent
    cpath = protocol.claims.path
    where = str(cpath)
    log = log or (lambda text: None)
    limits = caps(protocol, max_deals, max_games)
    plan, seeds = [], {}
    for claim in filter(protocol.plays, protocol.claims.claims):
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
            result = read_json(tune_json, "a tuning's result", RunError)
        except RunError as exc:
            raise fail("tuning", f"cannot read the tuning's result: {exc}") from None
        if result.get("name") != tspec.name or result.get("seed") != tspec.seed:
            raise fail("tuning", f"{tune_json} is not the result of {tspec.path} (name or seed differ)")
        rows = {r["name"]: r for r in result["fresh"]["rows"]}
        if claim.a != "tuned" or claim.b not in rows or claim.b == "tuned":
            raise fail("a, b", f"a = \"tuned\" and b one of the baselines: {', '.join(n for n in rows if n != 'tuned')}")
        if claim.rules != result["rules_label"]:
            raise fail("rules", f"tuning {claim.tuning} plays {result['rules_label']!r}")
        conf = protocol.seed(tspec.seed)
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
        effect = conservative_effect(claim, float(base["edge_ci"][0]), float(base["edge_ci"][1]))
        cap_pairs = max(1, limits[mode] // (2 * 2 * n_opp))  # two policies, n_opp opponents, pairs of two
        need = protocol.units(claim, effect, sd, cap_pairs, "mirrored pairs per opponent", conf)
        plan.append({"claim": claim, "spec": tspec, "conf_seed": conf, "pairs": need, "se": se, "sd": sd,
                     "effect": effect[0], "effect_from": effect[1], "a": rows["tuned"]["strategy"], "b": base["strategy"],
                     "rules": claim.rules, "original": {"estimate": float(base["edge"]), "low": float(base["edge_ci"][0]),
                                                        "high": float(base["edge_ci"][1]), "n": 2 * per_policy}})
    from ..analysis.stats.estimators import plain

    protocol.fix()  # the sizes are in the ledger before anything is played
    for p in plan:
        tspec = dataclasses.replace(p["spec"], seed=p["conf_seed"])
        field_ = Field(tspec)
        log(f"confirmation: {p['claim'].tuning}: {p['a']} and {p['b']}, {p['pairs']:,} pairs per opponent")
        diff = field_.field_units(p["a"], "fresh", p["pairs"])[0] - field_.field_units(p["b"], "fresh", p["pairs"])[0]
        e = plain(diff)
        se, low, high = e.se, e.low, e.high
        n_opp = len(tspec.opponents)
        p["confirmation"] = {"estimate": float(diff.mean()), "low": float(low), "high": float(high),
                             "n": 2 * 2 * p["pairs"] * n_opp, "seed": p["conf_seed"]}
        p["engine_seeds"] = [{"opponent": o, "study": derive_seed(p["spec"].seed, "fresh", i, salt=TUNE_SALT),
                              "confirmation": derive_seed(p["conf_seed"], "fresh", i, salt=TUNE_SALT)}
                             for i, (o, _) in enumerate(p["spec"].opponents)]
        p.update(conf_se=float(se), units=len(diff), dof=max(len(diff) - 1, 1))
    study_seeds = sorted({v[0] for v in seeds.values()})
    conf_seeds = sorted({v[1] for v in seeds.values()})
    return result_document(protocol, _judge(plan, protocol.level), study=folder.name,
                           experiment=_shown(folder, root), claims_file=_shown(cpath, root),
                           study_seed=study_seeds[0] if len(study_seeds) == 1 else study_seeds,
                           seed=conf_seeds[0] if len(conf_seeds) == 1 else conf_seeds, mirrored=True, caps=limits)
