"""A state-dependent knock policy by fictitious play on an abstraction: ``ginsim equilibrium
SPEC.toml`` with ``method = "table"``.

The abstraction is ``strategies.knock_table``'s: a knock probability per cell of what a player
sees when it may knock — deadwood bucket × own-draw bucket × the opponent's pile pickups
(135 cells) — with draws, discards, layout and defence fixed to ``simple``'s on both sides.

**Fictitious play with per-cell best responses by rollouts on the engine** (Brown 1951; the
best response step as in policy-space response oracles, Lanctot et al. 2017):

* the average table σ̄ starts at the main member of the draw-only class equilibrium
  (``simulator.studies.class_game``) written as a table, and so does the pure response τ;
* iteration t: every cell of τ is flipped in turn (knock ↔ do not) and played against σ̄
  (its probabilities rounded to sevenths, as the strategy reads them) on the same ``pairs``
  mirrored pairs of iteration t's stream as τ itself (common random numbers: a deal that
  never reaches the cell plays identically, so only the deals that reach it differ); every
  cell whose flip gains keeps it (a per-cell best response), then σ̄ ← σ̄ + (τ − σ̄)/(t + 1);
* **exploitability within the abstraction, from below**: after the last iteration a best
  response to σ̄ is searched the same way (``br_sweeps`` sweeps of per-cell flips, on their own
  streams, ``br_pairs`` pairs), then played against σ̄ on fresh deals.  The search is per
  cell, not exhaustive over the 2^135 tables, so its gain is a LOWER bound on σ̄'s
  exploitability within the abstraction, and is reported in those words;
* **what state-dependence is worth**: σ̄ against the draw-only class equilibrium mixture,
  and every draw-only member against σ̄, on fresh deals (the self-play control variate of
  ``class_game``), with 95% intervals.

Everything is kept as it finishes (``OUT/knock_table.json``), ``OUT`` is locked while it runs,
and ``--resume`` continues a killed run without playing anything twice.  Outputs:
``knock_table.json``, ``report.md`` and ``heatmap.png`` (knock probability by deadwood × draw,
one panel per pickup count).

A table spec (TOML)::

    method = "table"
    name = "knock_table_classic"
    rules = "classic"
    seed = 20264201
    out = "results/knock_table/classic"
    draw_only = "results/equilibrium_class/classic"   # the class game of the same rules, played first
    iterations = 12          # fictitious-play iterations
    pairs = 10_000           # mirrored pairs per cell evaluation in an iteration
    br_sweeps = 3            # sweeps of the final best response's search
    br_pairs = 40_000        # mirrored pairs per cell evaluation in that search
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
    Key("iterations", "int", 12, "fictitious-play iterations", low=1, high=200),
    Key("pairs", "int", 10_000, "mirrored pairs per cell evaluation in an iteration", low=10,
        high=MAX_PER_CELL // 2),
    Key("br_sweeps", "int", 3, "sweeps of per-cell flips in the final best response's search", low=1, high=20),
    Key("br_pairs", "int", 40_000, "mirrored pairs per cell evaluation in that search", low=10,
        high=MAX_PER_CELL // 2),
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
    iterations: int
    pairs: int
    br_sweeps: int
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
                     iterations=own["iterations"], pairs=own["pairs"], br_sweeps=own["br_sweeps"],
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


def cell_gains(field_, base: np.ndarray, phase: str, pairs: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Each cell's flip gain for the pure table ``base`` (levels 0 or 7) against ``field_``'s
    opponent 0 on ``pairs`` mirrored pairs of ``phase``'s stream: the paired mean of the flipped
    table's pair values minus ``base``'s, and its standard error (0, 0 for a cell no deal
    reaches); and ``base``'s own value there."""
    from strategies import knock_table as kt

    base_values = field_.pair_values(kt.spec_of(base), 0, phase, 0, pairs)
    gain = np.zeros(kt.N_CELLS)
    se = np.zeros(kt.N_CELLS)
    for c in range(kt.N_CELLS):
        flipped = base.copy()
        flipped[c] = kt.LEVELS - base[c]
        d = field_.pair_values(kt.spec_of(flipped), 0, phase, 0, pairs) - base_values
        gain[c], se[c] = d.mean(), d.std(ddof=1) / np.sqrt(pairs)
    return gain, se, float(base_values.mean())


def respond(field_, base: np.ndarray, phase: str, pairs: int) -> tuple[np.ndarray, dict[str, Any]]:
    """One sweep of per-cell best responses: every cell of ``base`` whose flip gains on
    ``phase``'s pairs by more than its standard error is flipped.  Returns the new table and what the sweep saw."""
    from strategies import knock_table as kt

    gain, se, value = cell_gains(field_, base, phase, pairs)
    flip = gain > se  # a flip that gains by more than one standard error (noise alone flips few cells)
    new = np.where(flip, kt.LEVELS - base, base)
    return new, {"value": value, "flipped": int(flip.sum()), "reached": int((se > 0).sum()),
                 "largest_gain": float(gain.max()), "gain_sum": float(gain[flip].sum())}


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
    if result["rules"] != spec.rules:
        raise KnockTableError(f"{spec.path}: draw_only: {path} was played under {result['rules_label']}, "
                              f"not {spec.rules_label}")
    return result


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
    """The study once ``out`` is locked: fictitious play, the final best response's search,
    the fresh comparisons, each step kept as it finishes; then the report and the heat map."""
    import strategies
    from strategies import knock_table as kt

    from ..engine.select import will_play
    from .class_game import policy_field

    state = _check_out(out, resume) or {"_": MARK, "spec": spec.identity(), "iterations": [], "sweeps": [],
                                        "fresh": None, "cpu_seconds": 0.0, "deals": 0}
    if state["spec"] != spec.identity():
        raise KnockTableError(f"{out} holds a knock-table study of a different spec; cannot --resume it with "
                              f"{spec.path}")
    members = [m["policy"] for m in draw_only["members"]]
    will_play({strategies.parse_strategy(s).sid for s in members} | {strategies.REGISTRY["knock_table"].sid})

    def save() -> None:
        atomic_write(out / STATE, json.dumps(state, indent=1) + "\n")

    def field_for(opponent_levels: np.ndarray):
        return policy_field(f"{spec.name}_table", spec.rules, spec.seed, spec.limit, [kt.spec_of(opponent_levels)],
                            spec.path)

    main_member = members[int(np.argmax(draw_only["mixture"]))]
    start = table_of_member(main_member, spec.limit)
    average = np.array(state["iterations"][-1]["average"]) if state["iterations"] else start.astype(float) / kt.LEVELS
    response = np.array(state["iterations"][-1]["response"]) if state["iterations"] else start
    for t in range(len(state["iterations"]), spec.iterations):
        log(f"{spec.name}: fictitious play, iteration {t + 1} of {spec.iterations}")
        cpu = time.process_time()
        response, seen = respond(field_for(kt.quantize(average)), response, f"fp{t}", spec.pairs)
        average = average + (response / kt.LEVELS - average) / (t + 2)
        state["cpu_seconds"] += time.process_time() - cpu
        state["deals"] += 2 * spec.pairs * (kt.N_CELLS + 1)
        state["iterations"].append({**seen, "response": response.tolist(), "average": average.tolist()})
        save()
    table = kt.quantize(average)
    best = np.array(state["sweeps"][-1]["response"]) if state["sweeps"] else response
    for s in range(len(state["sweeps"]), spec.br_sweeps):
        log(f"{spec.name}: best response to the average table, sweep {s + 1} of {spec.br_sweeps}")
        cpu = time.process_time()
        best, seen = respond(field_for(table), best, f"br{s}", spec.br_pairs)
        state["cpu_seconds"] += time.process_time() - cpu
        state["deals"] += 2 * spec.br_pairs * (kt.N_CELLS + 1)
        state["sweeps"].append({**seen, "response": best.tolist()})
        save()
    if state["fresh"] is None:
        log(f"{spec.name}: the table, its best response and the draw-only class on fresh deals")
        cpu = time.process_time()
        state["fresh"] = _fresh(spec, members, kt.spec_of(table), kt.spec_of(best))
        state["cpu_seconds"] += time.process_time() - cpu
        state["deals"] += state["fresh"]["deals"]
        save()
    result = _result(spec, state, draw_only, table, best)
    state["result"] = result
    save()
    write_heatmap(result, out / "heatmap.png")
    write_report(spec, result, out)
    return result


def _fresh(spec: TableSpec, members: list[str], table: str, best: str) -> dict[str, Any]:
    """On fresh streams, with the self-play control variate (``class_game.play_column``):
    the table against each draw-only member (column: the member), each draw-only member and
    the best response against the table (column: the table)."""
    from .class_game import cv_estimate, play_column, policy_field

    policies = [*members, table, best]
    k = len(members)
    field_ = policy_field(f"{spec.name}_fresh", spec.rules, spec.seed, spec.limit, policies, spec.path)
    per = spec.fresh_pairs // FRESH_BLOCKS
    rows: dict[str, Any] = {"against_member": [], "against_table": []}
    for j in range(k):
        sums = play_column(field_, policies, j, [k], spec.fresh_pairs, FRESH_BLOCKS, "fresh")
        est, se = cv_estimate(sums, np.ones(FRESH_BLOCKS), per)
        rows["against_member"].append({"value": float(est[0]), "se": float(se[0])})
    sums = play_column(field_, policies, k, [*range(k), k + 1], spec.fresh_pairs, FRESH_BLOCKS, "fresh")
    est, se = cv_estimate(sums, np.ones(FRESH_BLOCKS), per)
    rows["against_table"] = [{"value": float(e), "se": float(s)} for e, s in zip(est, se)]
    rows["deals"] = 2 * spec.fresh_pairs * (2 * k + k + 2)
    return rows


def _interval(value: float, se: float) -> dict[str, float]:
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + CONFIDENCE / 2))
    return {"value": value, "low": value - z * se, "high": value + z * se, "se": se}


def _result(spec: TableSpec, state: dict[str, Any], draw_only: dict[str, Any], table: np.ndarray,
            best: np.ndarray) -> dict[str, Any]:
    """What ``knock_table.json``'s ``result`` holds."""
    from strategies import knock_table as kt

    fresh = state["fresh"]
    mixture = np.array(draw_only["mixture"])
    vs_member = fresh["against_member"]
    value = float(sum(w * r["value"] for w, r in zip(mixture, vs_member)))
    se = float(np.sqrt(sum((w * r["se"]) ** 2 for w, r in zip(mixture, vs_member))))
    on_table = fresh["against_table"]
    k = len(draw_only["members"])
    best_member = max(range(k), key=lambda i: on_table[i]["value"])
    return {
        "name": spec.name, "spec_file": spec.path, "rules": spec.rules, "rules_label": spec.rules_label,
        "seed": spec.seed, "limit": spec.limit, "abstraction": {
            "deadwood_width": kt.deadwood_width(spec.limit), "deadwood_buckets": kt.DEADWOOD_BUCKETS,
            "draw_buckets": [list(b) for b in kt.DRAW_BUCKETS], "signals": kt.SIGNALS, "cells": kt.N_CELLS},
        "table": table.tolist(), "table_spec": kt.spec_of(table), "best_response": kt.spec_of(best),
        "exploitability_lower_bound": _interval(on_table[k]["value"], on_table[k]["se"]),
        "against_draw_only_equilibrium": _interval(value, se),
        "draw_only_mixture": [{"name": m["name"], "policy": m["policy"], "weight": w}
                              for m, w in zip(draw_only["members"], mixture) if w > 1e-6],
        "draw_only_epsilon": draw_only["epsilon"],
        "against_members": [{"name": m["name"], **_interval(r["value"], r["se"])}
                            for m, r in zip(draw_only["members"], vs_member)],
        "members_against_table": [{"name": m["name"], **_interval(r["value"], r["se"])}
                                  for m, r in zip(draw_only["members"], on_table[:k])],
        "best_member_against_table": {"name": draw_only["members"][best_member]["name"],
                                      **_interval(on_table[best_member]["value"], on_table[best_member]["se"])},
        "iterations": [{k2: v for k2, v in it.items() if k2 not in ("response", "average")}
                       for it in state["iterations"]],
        "sweeps": [{k2: v for k2, v in s.items() if k2 != "response"} for s in state["sweeps"]],
        "pairs": spec.pairs, "br_pairs": spec.br_pairs, "fresh_pairs": spec.fresh_pairs,
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
    fig.suptitle(f"{result['name']}: knock probability of the fictitious-play table ({result['rules_label']})")
    return save_figure(fig, path)


def _fmt(r: dict[str, float]) -> str:
    return f"{r['value']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}]"


def write_report(spec: TableSpec, result: dict[str, Any], out: Path) -> Path:
    """``OUT/report.md``: the abstraction and method, the exploitability's lower bound, what
    state-dependence is worth against the draw-only class, the heat map and the convergence."""
    from strategies import knock_table as kt

    lines = [f"<!-- {MARK} from {spec.path} -->", f"# A state-dependent knock policy: {spec.name}", "",
             *([spec.description, ""] if spec.description else []),
             f"Rules `{result['rules_label']}`; net points per hand; seed {spec.seed}; {result['deals']:,} deals, "
             f"{result['cpu_seconds']:,.0f} s of CPU. Both players draw, discard, lay out and defend as `simple`; "
             f"the knock decision is a table of {kt.N_CELLS} cells (deadwood in {kt.DEADWOOD_BUCKETS} buckets of "
             f"{result['abstraction']['deadwood_width']} points × own draws in {len(kt.DRAW_BUCKETS)} buckets × the "
             f"opponent's pile pickups 0, 1, 2+), solved by fictitious play over {len(result['iterations'])} "
             f"iterations with per-cell best responses by engine rollouts ({spec.pairs:,} mirrored pairs per cell "
             f"and iteration).", "",
             "## Results (fresh deals, 95% intervals)", "",
             f"- **Exploitability within the abstraction, a LOWER bound**: the best response found by "
             f"{len(result['sweeps'])} sweep{'' if len(result['sweeps']) == 1 else 's'} of per-cell flips ({spec.br_pairs:,} pairs per cell) gains "
             f"**{_fmt(result['exploitability_lower_bound'])}** points per hand against the table. The search is "
             f"not exhaustive over the 2^{kt.N_CELLS} tables: the true exploitability may be larger.",
             f"- **What state-dependence is worth**: the table against the draw-only class equilibrium ("
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
    lines += ["", "As a strategy spec any study can play:", "", f"    {result['table_spec']}", "",
              "## Against each draw-only member", "",
              "| member | table against it | it against the table |", "|---|---:|---:|"]
    for a, b in zip(result["against_members"], result["members_against_table"]):
        lines.append(f"| {a['name']} | {_fmt(a)} | {_fmt(b)} |")
    lines += ["", "## Convergence", "",
              "| iteration | cells reached | cells flipped | largest flip gain | response's value against the average |",
              "|---:|---:|---:|---:|---:|"]
    for i, it in enumerate(result["iterations"]):
        lines.append(f"| {i + 1} | {it['reached']} | {it['flipped']} | {it['largest_gain']:+.4f} | {it['value']:+.4f} |")
    for i, s in enumerate(result["sweeps"]):
        lines.append(f"| best response {i + 1} | {s['reached']} | {s['flipped']} | {s['largest_gain']:+.4f} | "
                     f"{s['value']:+.4f} |")
    lines += ["", f"Best response found: `{result['best_response']}`"]
    path = out / "report.md"
    atomic_write(path, "\n".join(lines) + "\n")
    return path


def table_summary_lines(results: list[dict[str, Any]]) -> list[str]:
    """A Markdown section over several knock-table studies (one per rule variant)."""
    lines = ["## State-dependent knock tables", "",
             "One row per study: a knock table over deadwood × own draws × the opponent's pile pickups, with "
             "`simple`'s draws and discards on both sides, solved by fictitious play. Points per hand on fresh "
             "deals, 95% intervals. The exploitability is a LOWER bound (the best-response search is per cell, "
             "not exhaustive).", "",
             "| run | rules | table against the draw-only equilibrium | best draw-only member against the table | "
             "exploitability within the abstraction (lower bound) | CPU s |", "|---|---|---:|---:|---:|---:|"]
    for r in results:
        b = r["best_member_against_table"]
        lines.append(f"| [{r['name']}]({Path(r['spec_file']).stem}/report.md) | `{r['rules_label']}` | "
                     f"{_fmt(r['against_draw_only_equilibrium'])} | {b['name']}: {_fmt(b)} | "
                     f"{_fmt(r['exploitability_lower_bound'])} | {r['cpu_seconds']:,.0f} |")
    return lines + [""]
