"""A state-dependent knock policy, solved on its abstraction: ``ginsim equilibrium SPEC.toml``
with ``method = "table"``.

The abstraction is ``strategies.knock_table``'s: a knock probability per cell of what a player
sees when it may knock — deadwood bucket × own-draw bucket × the opponent's pile pickups
(135 cells) — with draws, discards, layout and defence fixed to ``simple``'s on both sides.

**The game on recorded deals** (``simulator.studies.knock_solver``): since the tables change
nothing but where a hand stops, each deal is recorded once with every knock's value, and two
tables then meet on it exactly (for pure tables deal by deal what the engine plays, tested).

**Fictitious play with exact best responses** (Brown 1951; Heinrich, Lanctot & Silver 2015 on
fictitious play in extensive-form games):

* the average table σ̄ starts at the main member of the draw-only class equilibrium
  (``simulator.studies.class_game``) written as a table, and so does the pure response τ;
* iteration t: τ ← a best response to σ̄ on the ``train_pairs`` recorded pairs (steepest
  ascent over single-cell flips from the previous τ, every flip's gain exact on the sample:
  ``knock_solver.best_response``), then σ̄ ← σ̄ + (τ − σ̄)/(t + 1);
* the table played is σ̄ rounded to sevenths (what the strategy reads).  The cells forget
  the earlier turns (imperfect recall), so fictitious play carries no convergence guarantee
  here; what certifies the result is a best response searched against it:
* **exploitability within the abstraction, from below**: a best response to the table is
  searched on ``br_pairs`` recorded pairs of a stream of its own (from several starts,
  the draw-only members among them), then played against the table by the engine on fresh
  deals.  The search is local (single-cell flips), not exhaustive over the 2^135 pure tables,
  and a revisited cell may even be best mixed, so its gain is a LOWER bound on the table's
  exploitability within the abstraction, and is reported in those words; the gain found on
  the training sample itself (exact there) shows how far fictitious play got;
* **what state-dependence is worth**: the table against the draw-only class equilibrium
  mixture, and every draw-only member against the table, on fresh deals (the self-play
  control variate of ``class_game``), with 95% intervals.

Everything is kept as it finishes (``OUT/knock_table.json``; the recorded samples are played
again on ``--resume``, deterministically), ``OUT`` is locked while it runs, and ``--resume``
continues a killed run.  Outputs: ``knock_table.json``, ``report.md`` and ``heatmap.png``
(knock probability by deadwood × draw, one panel per pickup count).

A table spec (TOML)::

    method = "table"
    name = "knock_table_classic"
    rules = "classic"
    seed = 20264201
    out = "results/knock_table/classic"
    draw_only = "results/equilibrium_class/classic"   # the class game of the same rules, played first
    train_pairs = 400_000    # recorded mirrored pairs fictitious play is solved on
    iterations = 300         # fictitious-play iterations
    br_pairs = 400_000       # recorded mirrored pairs of the best response's search (own stream)
    fresh_pairs = 200_000    # mirrored pairs per comparison on fresh deals
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.rendering import atomic_write
from ..infra.inputs import read_json
from ..run.config import Key, Schema, seed_key
from ..run.experiment import read_toml_file
from ..run.limits import MAX_PER_CELL, RESULTS_DIR
from .class_game import out_key, read_study_spec
from .tune import TuneError

STATE = "knock_table.json"
MARK = "written by ginsim equilibrium (knock table)"
CONFIDENCE = 0.95
#: the blocks of a fresh comparison's control-variate estimate
FRESH_BLOCKS = 20
#: the most mirrored pairs a recorded sample holds (about 1 GB of branches)
MAX_RECORDED_PAIRS = 4_000_000
#: fictitious-play iterations between two saves of the state
SAVE_EVERY = 25
#: the iterations after which the table's exploitability on the training sample is measured
#: (and after the last), for the report's convergence table
CHECKPOINTS = (1, 3, 10, 30, 100, 300, 1000, 3000, 10000, 30000)


class KnockTableError(TuneError):
    """A bad table spec or output directory: one line naming the file and the key."""


def _fresh(value: Any, values: dict[str, Any], fail) -> int:
    if value % FRESH_BLOCKS:
        raise fail("fresh_pairs", f"must be a multiple of {FRESH_BLOCKS}, got {value}")
    return value


SCHEMA = Schema("knock_table", (
    Key("method", "choice", "table", "selects the knock-table study", choices=("table",)),
    seed_key("Every stream of the study derives from it."),
    out_key(),
    Key("draw_only", "str", "", "the output directory of the class game of the same rules (played first)"),
    Key("train_pairs", "int", 400_000, "recorded mirrored pairs fictitious play is solved on", low=10,
        high=MAX_RECORDED_PAIRS),
    Key("iterations", "int", 300, "fictitious-play iterations", low=1, high=100_000),
    Key("br_pairs", "int", 400_000, "recorded mirrored pairs (a stream of their own) the final best response "
        "is searched on", low=10, high=MAX_RECORDED_PAIRS),
    Key("fresh_pairs", "int", 200_000, f"mirrored pairs per comparison on fresh deals (a multiple of {FRESH_BLOCKS})",
        low=FRESH_BLOCKS, high=MAX_PER_CELL // 2, check=_fresh),
))


@dataclass(frozen=True)
class TableSpec:
    """A validated table spec (``parse_table_spec``)."""
    name: str
    path: str
    rules: Any
    rules_label: str
    limit: int
    seed: int
    draw_only: str
    train_pairs: int
    iterations: int
    br_pairs: int
    fresh_pairs: int
    out: str | None = None
    description: str = ""

    def identity(self) -> dict[str, Any]:
        """What a resumed run must agree on (the words, the place and the iteration count aside)."""
        d = json.loads(json.dumps(asdict(self)))
        for key in ("out", "path", "description"):
            d.pop(key)
        return d


def load_table_spec(path: str | Path, data: dict[str, Any] | None = None) -> TableSpec:
    """Read and validate a table spec; every problem is a one-line ``KnockTableError``."""
    path = Path(path)
    if data is None:
        data = read_toml_file(path, "a table spec", KnockTableError)
    return parse_table_spec(data, str(path))


def parse_table_spec(data: dict[str, Any], where: str = "<spec>") -> TableSpec:
    """Validate a table spec given as a dict; the first problem is a one-line ``KnockTableError``."""
    head, own, label, limit = read_study_spec(data, where, SCHEMA, KnockTableError, "the knock-table study")
    if not own["draw_only"].strip():
        raise KnockTableError(f"{where}: draw_only: required: the output directory of the class game of the same rules")
    return TableSpec(name=head["name"], path=where, rules=data.get("rules", "hoyle"), rules_label=label,
                     limit=limit, seed=own["seed"], draw_only=own["draw_only"],
                     train_pairs=own["train_pairs"], iterations=own["iterations"],
                     br_pairs=own["br_pairs"], fresh_pairs=own["fresh_pairs"], out=own["out"],
                     description=head["description"])


def out_dir(spec: TableSpec, out: str | Path | None = None) -> Path:
    """Where the study writes: ``out``, else the spec's ``out``, else ``results/<name>``."""
    return Path(out if out is not None else (spec.out or Path(RESULTS_DIR) / spec.name))


# ----------------------------------------------------------------------------- the method

def table_of_member(policy: str, limit: int) -> np.ndarray:
    """A draw-only class member ("knock at the limit through draw k, then gin only", gin only,
    or as soon as legal) as table levels: a cell knocks when every draw of its bucket is at most
    k (so k is exact at a bucket's end: 4, 6, 8, 9, ..., 13, and as soon as legal)."""
    import strategies
    from strategies import knock_table as kt

    values = strategies.parse_strategy(policy).values
    early, late, turn_a = values["early"], values["late"], values["turn_a"]
    if early == 0 and late == 0:
        k = 0
    elif late >= limit:
        k = 10 ** 6
    else:
        k = int(turn_a)
    levels = np.zeros(kt.N_CELLS, dtype=int)
    for s in range(kt.SIGNALS):
        for t, (_, last) in enumerate(kt.DRAW_BUCKETS):
            if last <= k:
                for d in range(kt.DEADWOOD_BUCKETS):
                    levels[(s * len(kt.DRAW_BUCKETS) + t) * kt.DEADWOOD_BUCKETS + d] = kt.LEVELS
    return levels


def sample_seed(spec: TableSpec, phase: str) -> int:
    """The engine seed of the recorded sample ``phase`` ("train", "best_response")."""
    from ..run.seeds import derive_seed

    return derive_seed(spec.seed, "knock_table", phase)


def record_sample(spec: TableSpec, phase: str, pairs: int):
    """The recorded deals (``knock_solver.record``) of ``phase``'s stream."""
    from ..core.rules import resolve_rules
    from .knock_solver import record

    return record(resolve_rules(spec.rules).to_array(), sample_seed(spec, phase), 0, pairs)


# ----------------------------------------------------------------------------- the run

def _check_out(out: Path, resume: bool, locked: bool = True) -> dict[str, Any] | None:
    """The kept state of a table study in ``out`` (None for a new run; ``rundir.kept_state``)."""
    from ..run.rundir import kept_state

    return kept_state(out, resume, STATE, MARK, KnockTableError, "a knock-table study", locked)


def draw_only_result(spec: TableSpec) -> dict[str, Any]:
    """The class game's result the study measures against (its ``class_game.json``); a
    missing or unfinished one is refused with one line naming the command that makes it."""
    from .class_game import STATE as CLASS_STATE

    path = Path(spec.draw_only) / CLASS_STATE
    try:
        state = read_json(path, "a class game's state", KnockTableError)  # bounded before it is parsed
    except KnockTableError:
        state = None
    result = state.get("result") if isinstance(state, dict) else None
    if result is None:
        raise KnockTableError(f"{spec.path}: draw_only: {path} holds no finished class game; run "
                              f"ginsim equilibrium on the class spec of the same rules first")
    problem = draw_only_problem(result, spec)
    if problem:
        raise KnockTableError(f"{spec.path}: draw_only: {path}: {problem}")
    return result


def draw_only_problem(result: Any, spec: TableSpec) -> str | None:
    """None when a class game's ``result`` holds what the study of ``spec`` reads from it,
    else the first problem in words, naming the key: ``rules`` (the study's) and
    ``rules_label``; ``members``, a non-empty list of ``{name, policy}`` whose policies are
    draw-threshold members under the study's knock limit (``class_game.draw_class``);
    ``mixture``, one finite non-negative weight per member summing to 1; ``epsilon``, a
    finite number."""
    from ..infra.inputs import is_number
    from .class_game import MAX_DRAWS, draw_class

    if not isinstance(result, dict):
        return f"result: must be a table, got {type(result).__name__}"
    for key in ("rules", "rules_label", "members", "mixture", "epsilon"):
        if key not in result:
            return f"result.{key}: missing"
    if not isinstance(result["rules"], (str, dict)) or not isinstance(result["rules_label"], str):
        return "result.rules: must be a preset name or a table, with rules_label a string"
    if result["rules"] != spec.rules:
        return f"result.rules: the class game was played under {result['rules_label']:.80}, not {spec.rules_label}"
    members = result["members"]
    if not isinstance(members, list) or not members:
        return f"result.members: must be a non-empty list of the class's members, got {members!r:.80}"
    allowed = {label for _, label in draw_class(spec.limit, tuple(range(1, MAX_DRAWS + 1)))}
    for i, m in enumerate(members):
        if not (isinstance(m, dict) and isinstance(m.get("name"), str) and isinstance(m.get("policy"), str)
                and m["policy"] in allowed):
            return (f"result.members[{i}]: must be {{name, policy}} with policy a draw-threshold knock_policy "
                    f"under the knock limit {spec.limit} (class_game.draw_class), got {m!r:.120}")
    mixture = result["mixture"]
    if not (isinstance(mixture, list) and len(mixture) == len(members)
            and all(is_number(w) and w >= 0 for w in mixture) and abs(sum(mixture) - 1) <= 1e-6):
        return (f"result.mixture: must be {len(members)} finite non-negative weights (one per member) summing "
                f"to 1, got {mixture!r:.120}")
    if not is_number(result["epsilon"]):
        return f"result.epsilon: must be a finite number, got {result['epsilon']!r:.40}"
    return None


def knock_table_study(spec: TableSpec, out: str | Path | None = None, resume: bool = False, log=None) -> dict[str, Any]:
    """Run (or resume) the knock-table study of ``spec`` into ``out``; returns its result."""
    from ..run.rundir import locked_output
    from ..run.seeds import development_seed_error

    refusal = development_seed_error(spec.seed, f"ginsim equilibrium {spec.name}")
    if refusal:
        raise KnockTableError(refusal)
    draw_only = draw_only_result(spec)
    out = out_dir(spec, out)
    _check_out(out, resume, locked=False)
    return locked_output(out, f"ginsim equilibrium {spec.path}", KnockTableError,
                         lambda: _run_locked(spec, draw_only, out, resume, log or (lambda text: None)))


def _run_locked(spec: TableSpec, draw_only: dict[str, Any], out: Path, resume: bool, log) -> dict[str, Any]:
    """The study once ``out`` is locked: fictitious play on the recorded training deals, the
    best response's search on deals of its own, the fresh comparisons, each step kept as it
    finishes; then the report and the heat map."""
    import strategies
    from strategies import knock_table as kt

    from ..engine.select import will_play
    from . import knock_solver as ks

    state = _check_out(out, resume) or {"_": MARK, "spec": spec.identity(), "iterations": [], "fp": None,
                                        "best_response": None, "fresh": None, "cpu_seconds": 0.0, "deals": 0}
    if state["spec"] != spec.identity():
        raise KnockTableError(f"{out} holds a knock-table study of a different spec; cannot --resume it with "
                              f"{spec.path}")
    members = [m["policy"] for m in draw_only["members"]]
    will_play({strategies.parse_strategy(s).sid for s in members} | {strategies.REGISTRY["knock_table"].sid})

    def save() -> None:
        atomic_write(out / STATE, json.dumps(state, indent=1) + "\n")

    main_member = members[int(np.argmax(draw_only["mixture"]))]
    start = table_of_member(main_member, spec.limit) / kt.LEVELS
    fp = state["fp"] or {"done": 0, "average": start.tolist(), "response": start.tolist()}
    average, response = np.array(fp["average"]), np.array(fp["response"])
    if fp["done"] < spec.iterations or state["best_response"] is None:
        log(f"{spec.name}: recording {spec.train_pairs:,} mirrored pairs")
        cpu = time.process_time()
        train = record_sample(spec, "train", spec.train_pairs)
        state["cpu_seconds"] += time.process_time() - cpu
        if not state["fp"]:
            state["deals"] += train.deals
    while fp["done"] < spec.iterations:
        cpu = time.process_time()
        for t in range(fp["done"] + 1, min(spec.iterations, fp["done"] + SAVE_EVERY) + 1):
            response, flips = ks.best_response(train, [(1.0, average)], response)
            average = average + (response - average) / (t + 1)
            if t in CHECKPOINTS or t == spec.iterations:
                played = kt.quantize(average) / kt.LEVELS
                gain, _ = ks.exploitability(train, played)
                state["iterations"].append({"iteration": t, "flips": flips, "exploitability_train": gain})
                log(f"{spec.name}: fictitious play, iteration {t:,} of {spec.iterations:,}: a best response on the "
                    f"training deals gains {gain:+.4f} against the table")
        fp = {"done": t, "average": average.tolist(), "response": response.tolist()}
        state["fp"] = fp
        state["cpu_seconds"] += time.process_time() - cpu
        save()
    table = kt.quantize(average)
    if state["best_response"] is None:
        log(f"{spec.name}: a best response to the table on {spec.br_pairs:,} mirrored pairs of their own")
        cpu = time.process_time()
        sample = record_sample(spec, "best_response", spec.br_pairs)
        gain, best = ks.exploitability(sample, table / kt.LEVELS,
                                       [table_of_member(m, spec.limit) / kt.LEVELS for m in members])
        train_gain = ks.response_gain(train, best, table / kt.LEVELS)
        state["best_response"] = {"response": np.rint(best * kt.LEVELS).astype(int).tolist(), "search_gain": gain,
                                  "train_gain": train_gain}
        state["deals"] += sample.deals
        state["cpu_seconds"] += time.process_time() - cpu
        save()
    best = np.array(state["best_response"]["response"])
    if state["fresh"] is None:
        log(f"{spec.name}: the table, its best response and the draw-only class on fresh deals")
        cpu = time.process_time()
        state["fresh"] = _fresh(spec, members, kt.spec_of(table), kt.spec_of(best))
        state["cpu_seconds"] += time.process_time() - cpu
        state["deals"] += state["fresh"]["deals"]
        save()
    elif not _has_plain(state["fresh"]):
        log(f"{spec.name}: the fresh comparisons, kept without their plain estimate, played again on their streams")
        again = _fresh(spec, members, kt.spec_of(table), kt.spec_of(best))
        if _without_plain(again) != state["fresh"]:
            raise KnockTableError(f"{out / STATE}: the fresh comparisons played again differ from the kept ones; "
                                  f"this ginsim does not play them as the one that wrote them")
        state["fresh"] = again
        save()
    result = _result(spec, state, draw_only, table, best)
    state["result"] = result
    save()
    write_heatmap(result, out / "heatmap.png")
    write_report(spec, result, out)
    return result


def _has_plain(fresh: dict[str, Any]) -> bool:
    """Whether kept fresh comparisons hold the plain estimate beside each controlled one."""
    return all("plain" in r for r in (*fresh["against_member"], *fresh["against_table"]))


def _without_plain(fresh: dict[str, Any]) -> dict[str, Any]:
    """Fresh comparisons as they were kept before the plain estimate was kept beside."""
    return {key: [{k: v for k, v in r.items() if k != "plain"} for r in rows] if isinstance(rows, list) else rows
            for key, rows in fresh.items()}


def _fresh(spec: TableSpec, members: list[str], table: str, best: str) -> dict[str, Any]:
    """On fresh streams, with the self-play control variate (``class_game.play_column``):
    the table against each draw-only member (column: the member), each draw-only member and
    the best response against the table (column: the table)."""
    from ..analysis.stats.estimators import cv_from_moments, plain_from_moments
    from .class_game import play_column, policy_field

    policies = [*members, table, best]
    k = len(members)
    field_ = policy_field(f"{spec.name}_fresh", spec.rules, spec.seed, spec.limit, policies, spec.path)
    per = spec.fresh_pairs // FRESH_BLOCKS
    ones = np.ones(FRESH_BLOCKS)

    def estimates(sums: dict[str, np.ndarray]) -> list[dict[str, Any]]:
        est, se = cv_from_moments(sums, ones, per)
        plain, plain_se = plain_from_moments(sums, ones, per)
        return [{"value": float(e), "se": float(s), "plain": {"value": float(pe), "se": float(ps)}}
                for e, s, pe, ps in zip(est, se, plain, plain_se)]

    rows: dict[str, Any] = {"against_member": [], "against_table": []}
    for j in range(k):
        rows["against_member"] += estimates(play_column(field_, policies, j, [k], spec.fresh_pairs, FRESH_BLOCKS,
                                                        "fresh"))
    rows["against_table"] = estimates(play_column(field_, policies, k, [*range(k), k + 1], spec.fresh_pairs,
                                                  FRESH_BLOCKS, "fresh"))
    rows["deals"] = 2 * spec.fresh_pairs * (2 * k + k + 2)
    return rows


def _interval(value: float, se: float) -> dict[str, float]:
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + CONFIDENCE / 2))
    return {"value": value, "low": value - z * se, "high": value + z * se, "se": se}


def _figures(draw_only: dict[str, Any], mixture: np.ndarray, vs_member: list[dict[str, float]],
             on_table: list[dict[str, float]], k: int) -> dict[str, Any]:
    """The study's intervals from one estimate of each fresh comparison (``value``, ``se``):
    the best response against the table, the table against the draw-only mixture (its members'
    values weighed by the mixture), the table against each member, each member against it and
    the best of those."""
    members = draw_only["members"]
    best = max(range(k), key=lambda i: on_table[i]["value"])
    return {"exploitability_lower_bound": _interval(on_table[k]["value"], on_table[k]["se"]),
            "against_draw_only_equilibrium": _interval(
                float(sum(w * r["value"] for w, r in zip(mixture, vs_member))),
                float(np.sqrt(sum((w * r["se"]) ** 2 for w, r in zip(mixture, vs_member))))),
            "against_members": [{"name": m["name"], **_interval(r["value"], r["se"])}
                                for m, r in zip(members, vs_member)],
            "members_against_table": [{"name": m["name"], **_interval(r["value"], r["se"])}
                                      for m, r in zip(members, on_table[:k])],
            "best_member_against_table": {"name": members[best]["name"],
                                          **_interval(on_table[best]["value"], on_table[best]["se"])}}


def _result(spec: TableSpec, state: dict[str, Any], draw_only: dict[str, Any], table: np.ndarray,
            best: np.ndarray) -> dict[str, Any]:
    """What ``knock_table.json``'s ``result`` holds."""
    from strategies import knock_table as kt

    fresh = state["fresh"]
    mixture = np.array(draw_only["mixture"])
    vs_member = fresh["against_member"]
    on_table = fresh["against_table"]
    k = len(draw_only["members"])
    plain = None
    if _has_plain(fresh):  # fresh rows kept before the plain estimate was: none (--resume plays them again)
        plain = _figures(draw_only, mixture, [r["plain"] for r in vs_member], [r["plain"] for r in on_table], k)
    return {
        "name": spec.name, "spec_file": spec.path, "rules": spec.rules, "rules_label": spec.rules_label,
        "seed": spec.seed, "limit": spec.limit, "abstraction": {
            "deadwood_width": kt.deadwood_width(spec.limit), "deadwood_buckets": kt.DEADWOOD_BUCKETS,
            "draw_buckets": [list(b) for b in kt.DRAW_BUCKETS], "signals": kt.SIGNALS, "cells": kt.N_CELLS},
        "table": table.tolist(), "table_spec": kt.spec_of(table), "best_response": kt.spec_of(best),
        **_figures(draw_only, mixture, vs_member, on_table, k),
        "draw_only_mixture": [{"name": m["name"], "policy": m["policy"], "weight": w}
                              for m, w in zip(draw_only["members"], mixture) if w > 1e-6],
        "draw_only_epsilon": draw_only["epsilon"],
        "plain": plain,
        "iterations": state["iterations"],
        "exploitability_train": state["iterations"][-1]["exploitability_train"],
        "best_response_search_gain": state["best_response"]["search_gain"],
        "best_response_train_gain": state["best_response"]["train_gain"],
        "train_pairs": spec.train_pairs, "br_pairs": spec.br_pairs, "fresh_pairs": spec.fresh_pairs,
        "deals": int(state["deals"]), "cpu_seconds": float(state["cpu_seconds"]),
    }


# ----------------------------------------------------------------------------- outputs

def _draw_labels() -> list[str]:
    from strategies import knock_table as kt

    return [f"{a}–{b}" if b != a and b < 99 else (f"{a}+" if b >= 99 else str(a)) for a, b in kt.DRAW_BUCKETS]


def _deadwood_labels(limit: int) -> list[str]:
    from strategies import knock_table as kt

    w = kt.deadwood_width(limit)
    labels = []
    for d in range(kt.DEADWOOD_BUCKETS):
        low, high = d * w + 1, (d + 1) * w if d < kt.DEADWOOD_BUCKETS - 1 else max(limit, d * w + 1)
        labels.append(str(low) if low == high else f"{low}–{high}")
    return labels


def write_heatmap(result: dict[str, Any], path: Path) -> Path:
    """The knock probability of the table by deadwood (columns) × own draws (rows), one panel
    per count of the opponent's pile pickups."""
    from strategies import knock_table as kt

    from ..analysis.rendering import new_figure, save_figure

    fig = new_figure(10.5, 4.2)
    axes = fig.subplots(1, kt.SIGNALS, sharey=True)
    image = None
    for s, ax in enumerate(axes):
        g = kt.grid(result["table"], s)
        image = ax.imshow(g, vmin=0, vmax=1, cmap="viridis", aspect="auto", origin="upper")
        ax.set_xticks(range(kt.DEADWOOD_BUCKETS), _deadwood_labels(result["limit"]))
        ax.set_yticks(range(len(kt.DRAW_BUCKETS)), _draw_labels())
        ax.set_xlabel("deadwood (points)")
        ax.set_title(f"opponent took {s}{'+' if s == kt.SIGNALS - 1 else ''} from the pile")
        for i in range(g.shape[0]):
            for j in range(g.shape[1]):
                ax.text(j, i, f"{g[i, j]:.2f}".rstrip("0").rstrip(".") if g[i, j] not in (0, 1) else str(int(g[i, j])),
                        ha="center", va="center", fontsize=7, color="white" if g[i, j] < 0.6 else "black")
    axes[0].set_ylabel("own draws this hand")
    fig.colorbar(image, ax=axes, label="knock probability")
    fig.suptitle(f"{result['name']}: knock probability of the table ({result['rules_label']})")
    return save_figure(fig, path)


def _fmt(r: dict[str, float]) -> str:
    return f"{r['value']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}]"


def estimator_lines(result: dict[str, Any]) -> list[str]:
    """The report's section on its estimator: each fresh figure with the self-play control and
    plain from the same pairs, and the pairs the control saves."""
    plain = result.get("plain")
    if plain is None:  # a result whose fresh rows were kept before the plain estimate was
        return []
    rows = [("best response against the table", result["exploitability_lower_bound"],
             plain["exploitability_lower_bound"]),
            ("table against the draw-only equilibrium", result["against_draw_only_equilibrium"],
             plain["against_draw_only_equilibrium"])]
    rows += [(f"table against {a['name']}", a, p) for a, p in zip(result["against_members"], plain["against_members"])]
    rows += [(f"{a['name']} against the table", a, p)
             for a, p in zip(result["members_against_table"], plain["members_against_table"])]
    saves = [(p["se"] / controlled["se"]) ** 2 if controlled["se"] > 0 else float("inf") for _, controlled, p in rows]
    lines = ["## The estimator", "",
             "Every figure on fresh deals is estimated with a control variate (`simulator.analysis.stats.estimators."
             "cv_from_moments`): the column player's self-play on the same mirrored pairs, whose expectation is 0, "
             "its coefficient the regression slope on the same pairs. The plain mean of the same pairs is computed "
             "beside it (`plain_from_moments`; `result.plain` in knock_table.json). The control saves a median of "
             f"**{np.median(saves):,.1f}×** the pairs for the same interval, from {min(saves):,.1f}× to "
             f"{max(saves):,.1f}× over the {len(saves)} figures.", "",
             "| figure | with the control | plain | pairs the control saves |", "|---|---:|---:|---:|"]
    for (name, controlled, p), saved in zip(rows, saves):
        lines.append(f"| {name} | {_fmt(controlled)} | {_fmt(p)} | {saved:,.1f}× |")
    return lines + [""]


def write_report(spec: TableSpec, result: dict[str, Any], out: Path) -> Path:
    """``OUT/report.md``: the abstraction and method, the exploitability's lower bound, what
    state-dependence is worth against the draw-only class, the heat map and the convergence."""
    from strategies import display_spec
    from strategies import knock_table as kt

    from ..core.rules import describe_rules

    lines = [f"<!-- {MARK} from {spec.path} -->", f"# A state-dependent knock policy: {spec.name}", "",
             *([spec.description, ""] if spec.description else []),
             f"Rules: {describe_rules(result['rules'])}; net points per hand; seed {spec.seed}; {result['deals']:,} deals, "
             f"{result['cpu_seconds']:,.0f} s of CPU. Both players draw, discard, lay out and defend as `simple`; "
             f"the knock decision is a table of {kt.N_CELLS} cells (deadwood in {kt.DEADWOOD_BUCKETS} buckets of "
             f"{result['abstraction']['deadwood_width']} points × own draws in {len(kt.DRAW_BUCKETS)} buckets × the "
             f"opponent's pile pickups 0, 1, 2+), solved by fictitious play over {spec.iterations:,} iterations with "
             f"exact best responses on {spec.train_pairs:,} recorded mirrored pairs (every knock's value recorded "
             f"once per deal; `simulator/studies/knock_solver.py`), and rounded to sevenths.", "",
             "## Results (fresh deals, 95% intervals)", "",
             f"- **Exploitability within the abstraction, a LOWER bound**: a best response searched on "
             f"{spec.br_pairs:,} recorded pairs of a stream of its own (single-cell flips from several starts) gains "
             f"**{_fmt(result['exploitability_lower_bound'])}** points per hand against the table on fresh deals "
             f"({result['best_response_search_gain']:+.4f} on the deals it was searched on, "
             f"{result['best_response_train_gain']:+.4f} on the training deals). The search is local, not "
             f"exhaustive over the 2^{kt.N_CELLS} tables: the true exploitability may be larger. On the training "
             f"deals themselves the best response found gains {result['exploitability_train']:+.4f}: how far "
             f"fictitious play got.",
             "- **What state-dependence is worth**: the table against the draw-only class equilibrium ("
             + "; ".join(f"{m['weight']:.2f} × {m['name']}" for m in result["draw_only_mixture"])
             + f", ε = {result['draw_only_epsilon']:.4f} within its class): "
             f"**{_fmt(result['against_draw_only_equilibrium'])}** points per hand.",
             f"- **The best draw-only member against the table**: {result['best_member_against_table']['name']}, "
             f"{_fmt(result['best_member_against_table'])} points per hand.", "",
             "![knock probability by deadwood and draw](heatmap.png)", "",
             "The table (knock probability; rows: own draws, columns: deadwood; the opponent took nothing from "
             "the pile):", "",
             "| draws | " + " | ".join(_deadwood_labels(result["limit"])) + " |",
             "|---|" + "---:|" * kt.DEADWOOD_BUCKETS]
    g = kt.grid(result["table"], 0)
    for label, row in zip(_draw_labels(), g):
        lines.append(f"| {label} | " + " | ".join(f"{p:.2f}" for p in row) + " |")
    named = display_spec(result["table_spec"]) != result["table_spec"]
    lines += ["", "As a strategy spec any study can play:", "", f"    {display_spec(result['table_spec'])}", "",
              *(["(a named table: its exact parameters are `table_spec` in knock_table.json and "
                 "`strategies.knock_table.PRESETS`)", ""] if named else []),
              "## Against each draw-only member", "",
              "| member | table against it | it against the table |", "|---|---:|---:|"]
    for a, b in zip(result["against_members"], result["members_against_table"]):
        lines.append(f"| {a['name']} | {_fmt(a)} | {_fmt(b)} |")
    lines += ["", *estimator_lines(result), "## Convergence", "",
              "The table after each number of iterations, rounded to sevenths, against the best response found on "
              "the training deals (exact there; single-cell flips from four starts).", "",
              "| iteration | flips of the pure response | best response's gain on the training deals |",
              "|---:|---:|---:|"]
    for it in result["iterations"]:
        lines.append(f"| {it['iteration']:,} | {it['flips']} | {it['exploitability_train']:+.4f} |")
    lines += ["", f"Best response found: `{display_spec(result['best_response'])}`"]
    path = out / "report.md"
    atomic_write(path, "\n".join(lines) + "\n")
    return path


def table_summary_lines(results: list[dict[str, Any]]) -> list[str]:
    """A Markdown section over several knock-table studies (one per rule variant)."""
    lines = ["## State-dependent knock tables", "",
             "One row per study: a knock table over deadwood × own draws × the opponent's pile pickups, with "
             "`simple`'s draws and discards on both sides, solved by fictitious play with exact best responses on "
             "recorded deals. Points per hand on fresh deals, 95% intervals. The exploitability is a LOWER bound "
             "(the best-response search is a local search over single-cell flips, not exhaustive).", "",
             "| run | rules | table against the draw-only equilibrium | best draw-only member against the table | "
             "exploitability within the abstraction (lower bound) | CPU s |", "|---|---|---:|---:|---:|---:|"]
    for r in results:
        b = r["best_member_against_table"]
        lines.append(f"| [{r['name']}]({Path(r['spec_file']).stem}/report.md) | `{r['rules_label']}` | "
                     f"{_fmt(r['against_draw_only_equilibrium'])} | {b['name']}: {_fmt(b)} | "
                     f"{_fmt(r['exploitability_lower_bound'])} | {r['cpu_seconds']:,.0f} |")
    return lines + [""]


# ----------------------------------------------------------------------------- what ginsim equilibrium prints

def plain_view(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with every fresh figure replaced by its plain estimate from the same pairs
    (``result.plain``, made by ``_figures`` as the controlled ones are; ``--plain``).  A result
    without them whole is refused with one line."""
    plain = result.get("plain")
    if plain is None or "best_member_against_table" not in plain:
        raise KnockTableError(f"{result['name']}: its knock_table.json keeps no plain estimate beside the controlled "
                              f"one; ginsim equilibrium SPEC --resume plays its fresh comparisons again")
    return {**result, **plain}


def summary_lines(result: dict[str, Any], seconds: float, out: Path, plain: bool = False) -> list[str]:
    """The lines ``ginsim equilibrium`` prints for one knock table's ``result`` (played in
    ``seconds`` into ``out``): its value against the draw-only equilibrium and its
    exploitability's lower bound; ``plain``: their plain estimates (``plain_view``)."""
    from strategies import display_spec

    from .class_game import ESTIMATORS

    r = plain_view(result) if plain else result
    vs, ex, best = r["against_draw_only_equilibrium"], r["exploitability_lower_bound"], r["best_member_against_table"]
    return [
        f"{r['name']}: a knock table over deadwood x draws x opponent pickups under {r['rules_label']} "
        f"(fictitious play, {r['iterations'][-1]['iteration']:,} iterations on {r['train_pairs']:,} recorded pairs)",
        f"  estimates on fresh deals: {ESTIMATORS['plain' if plain else 'control']}"
        + ("" if plain else " (--plain: the plain mean beside it)"),
        f"  against the draw-only class equilibrium: {vs['value']:+.4f} [{vs['low']:+.4f}, {vs['high']:+.4f}] "
        f"points per hand",
        f"  best draw-only member against it ({best['name']}): {best['value']:+.4f} [{best['low']:+.4f}, "
        f"{best['high']:+.4f}]",
        f"  exploitability within the abstraction, a LOWER bound: {ex['value']:+.4f} [{ex['low']:+.4f}, "
        f"{ex['high']:+.4f}] (a best response found by a local search over single-cell flips, played on fresh "
        f"deals; on the training deals the best response found there gains {r['exploitability_train']:+.4f})",
        f"  table: {display_spec(r['table_spec'])}",
        f"  ({seconds:.1f} s, {r['cpu_seconds']:,.1f} s CPU; report: {out / 'report.md'})"]


def json_record(result: dict[str, Any], seconds: float, out: Path, plain: bool = False) -> dict[str, Any]:
    """One knock table's record in ``ginsim equilibrium --json`` (docs/cli.md); ``plain``: the
    fresh figures' plain estimates (``plain_view``)."""
    from ..analysis.summary import estimate

    r = plain_view(result) if plain else result
    vs, ex, best = r["against_draw_only_equilibrium"], r["exploitability_lower_bound"], r["best_member_against_table"]
    return {
        "name": r["name"], "out": str(out), "rules": r["rules_label"], "method": "table",
        "estimator": "plain" if plain else "control",
        "table": r["table_spec"], "best_response": r["best_response"],
        "against_draw_only_equilibrium": estimate(vs["value"], vs["low"], vs["high"], r["fresh_pairs"], "pair"),
        "exploitability_lower_bound": estimate(ex["value"], ex["low"], ex["high"], r["fresh_pairs"], "pair"),
        "best_member_against_table": {"member": best["name"], "value": estimate(
            best["value"], best["low"], best["high"], r["fresh_pairs"], "pair")},
        "exploitability_train": round(r["exploitability_train"], 6),
        "cpu_seconds": round(r["cpu_seconds"], 3), "seconds": round(seconds, 3)}
