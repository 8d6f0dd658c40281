"""The exact equilibrium of a finite class of knock policies, certified: ``ginsim equilibrium
SPEC.toml`` with ``method = "class"``.

The class is the **draw-threshold grid** of ``knock_policy`` (``simple``'s draws, discards,
layout and defence): *knock at deadwood ≤ the knock limit through the player's k-th draw, then
gin only*, for every k of ``draws``, with gin only (k = 0) and knocking as soon as legal
(``simple``'s play, k = ∞) always included.  Every member plays against every other, so the
best response to any mixture of the class is exhaustive over the class: nothing is left to a
search.

How it goes (``class_game``):

1. **The full antisymmetric payoff matrix** on mirrored deals (docs/rules.md, "Scoring": the
   game is zero-sum; mirrored, it is symmetric).  Entry (i, j), i < j, is member i's net points
   per hand against member j on ``pairs`` mirrored pairs of column j's stream; every entry of a
   column is played on the same deals (common random numbers), and (j, i) is its negation.
   Each column also plays member j against itself on its deals: that value is 0 in
   expectation (the two seatings of a mirrored pair are exchangeable), so it is a **control
   variate**: the entry is ``mean(x) − β·mean(v)`` with β the regression slope of the pair
   values x on the self-play values v (``simulator.analysis.stats.estimators.cv_from_moments``).
   Where i and j play alike (neighbouring thresholds) most pairs cancel, and the entry's
   standard error falls several-fold.
2. **The symmetric Nash equilibrium** of the estimated matrix by linear programming
   (``metagame.symmetric_nash``).
3. **ε, an upper confidence bound on exploitability within the class.**  Member i's gain
   against the mixture x is g_i = (M x)_i (the game's value is 0).  The pairs of every
   column's stream are resampled in blocks (``blocks`` per stream, one resampling per stream
   shared by all its entries, the control variate's slope re-estimated in every replicate),
   ``bootstrap`` times; with ĝ = M̂x and ĝ* = M̂*x, ε is the 95% quantile of
   max_i (ĝ_i − c (ĝ*_i − ĝ_i)), c = sqrt(B/(B − 1)) for B blocks: a simultaneous one-sided bound on the largest gain any member gets
   against the mixture (the basic bootstrap of every gain at once; Tuyls et al. 2020 on
   estimated games).  ``delta`` is the 95% quantile of the largest entry error
   max_ij |M̂*_ij − M̂_ij|: since a symmetric game's value is known to be 0, every mixture
   that is an equilibrium of M̂ is a ``delta``-equilibrium of the true game, whichever was chosen.
   Each replicate's matrix is solved too: how often each member is in the support, and which
   supports come out, is the **bootstrap distribution of the equilibrium's support**.
4. **The check on fresh seeds.**  Every member plays every member of the mixture's support
   on fresh streams (the same control variate): its value against the mixture, with its
   paired 95% interval.  No member should beat the mixture by more than ε.

Everything is kept as it is played (``OUT/class_game.json``, the block moments in
``OUT/moments.npz``), ``OUT`` is locked while it runs, and ``--resume`` continues a killed run,
playing no column twice.  Raising ``pairs`` and ``blocks`` together (the same pairs per block)
and resuming a run that was stopped before its result extends every column on the same streams: the blocks played
are kept.  A finished game is never extended: its ε has been seen, and playing on until it
looks better is optional continuation; a larger game is a second stage with a seed of its
own, reported with its own ε.  Outputs: ``class_game.json`` and ``report.md``.

A class spec (TOML)::

    method = "class"                     # this module (without it: the double oracle)
    name = "equilibrium_class_classic"
    rules = "classic"                    # a preset name, or a table
    seed = 20263101
    out = "results/equilibrium_class/classic"
    draws = [6, 7, 8, 9, 10, 11, 12, 13, 14, 16]   # the thresholds k (gin only and simple always in)
    pairs = 400_000                      # mirrored pairs per payoff-matrix entry
    blocks = 200                         # bootstrap blocks per stream (pairs % blocks == 0)
    bootstrap = 2000                     # bootstrap replicates
    fresh_pairs = 200_000                # per member and support column on fresh deals
    epsilon_target = 0.02                # the ε the sizes were chosen for (the report says if met)
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.rendering import atomic_write
from ..analysis.stats.estimators import cv_from_moments
from ..run.config import Key, Schema, is_int, seed_key
from ..run.experiment import read_toml_file
from ..run.limits import MAX_PER_CELL, RESULTS_DIR
from .metagame import symmetric_nash
from .tune import TuneError
from ..core.rng import numpy_generator

STATE = "class_game.json"
MOMENTS = "moments.npz"
MARK = "written by ginsim equilibrium (class game)"
#: the confidence of ε, ``delta`` and every interval
CONFIDENCE = 0.95
#: a member whose weight is at most this is outside the mixture's support
SUPPORT_TOL = 1e-6
#: the most draw thresholds a class takes (each adds a row and a column)
MAX_DRAWS = 40
#: the blocks of a fresh column (its control-variate estimate; no bootstrap)
FRESH_BLOCKS = 200


class ClassGameError(TuneError):
    """A bad class spec or output directory: one line naming the file and the key."""


def _draws(value: Any, values: dict[str, Any], fail) -> tuple[int, ...]:
    if not value or not all(is_int(d) and 1 <= d <= MAX_DRAWS for d in value) or len(set(value)) != len(value):
        raise fail("draws", f"must be a non-empty list of distinct integers from 1 to {MAX_DRAWS}, got {value!r}")
    return tuple(sorted(value))


def _out(value: Any, values: dict[str, Any], fail) -> str | None:
    from ..infra.inputs import outside_work

    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise fail("out", f"must name a directory inside the current directory, got {value!r}")
    problem = None if value is None else outside_work(value)  # a spec never writes outside the working directory
    if problem:
        raise fail("out", f"must be a directory inside the current directory: {problem}")
    return value


def _pairs(value: Any, values: dict[str, Any], fail) -> int:
    if value % values["blocks"]:
        raise fail("pairs", f"must be a multiple of blocks ({values['blocks']}), got {value}")
    return value


def _fresh_pairs(value: Any, values: dict[str, Any], fail) -> int:
    if value % FRESH_BLOCKS:
        raise fail("fresh_pairs", f"must be a multiple of {FRESH_BLOCKS}, got {value}")
    return value


def out_key() -> Key:
    """The ``out`` key of a study spec: a relative directory inside the current one."""
    return Key("out", "any", None, "output directory, inside the current directory (default `results/<name>`)",
               check=_out, type_text="string", default_text="none", text="a relative path inside the current directory")


#: the keys of a class spec besides ``name``, ``description``, ``rules`` and ``objective``
#: (read by the tuning spec's declarations, ``tune.spec.read_shared_head``)
SCHEMA = Schema("class_game", (
    Key("method", "choice", "class", "selects the finite-class game (without it, a spec is a double oracle's)",
        choices=("class",)),
    seed_key("Every stream of the study derives from it."),
    out_key(),
    Key("draws", "list", [2, 4, 6, 8, 10, 12], "the class's thresholds k: knock at the limit through draw k, "
        "then gin only (gin only and knocking as soon as legal are always members)", check=_draws,
        text=f"a non-empty list of distinct integers from 1 to {MAX_DRAWS}"),
    Key("blocks", "int", 200, "bootstrap blocks per stream", low=20, high=2000),
    Key("pairs", "int", 100_000, "mirrored pairs per payoff-matrix entry (a multiple of blocks)", low=20,
        high=MAX_PER_CELL // 2, check=_pairs),
    Key("bootstrap", "int", 2000, "bootstrap replicates of the matrix", low=100, high=100_000),
    Key("fresh_pairs", "int", 100_000, f"fresh mirrored pairs per member and support column (a multiple of "
        f"{FRESH_BLOCKS})", low=FRESH_BLOCKS, high=MAX_PER_CELL // 2, check=_fresh_pairs),
    Key("epsilon_target", "number", 0.02, "the ε (points per hand) the sizes were chosen for", gt=0),
))


@dataclass(frozen=True)
class ClassSpec:
    """A validated class spec (``parse_class_spec``)."""
    name: str
    path: str
    rules: Any
    rules_label: str
    limit: int
    seed: int
    draws: tuple[int, ...]
    pairs: int
    blocks: int
    bootstrap: int
    fresh_pairs: int
    epsilon_target: float
    out: str | None = None
    description: str = ""
    members: tuple[tuple[str, str], ...] = field(default=())

    def identity(self) -> dict[str, Any]:
        """What a resumed run must agree on: everything that changes what is played."""
        d = json.loads(json.dumps(asdict(self)))
        for key in ("out", "path", "description", "bootstrap", "epsilon_target", "pairs", "blocks"):
            d.pop(key)
        d["block_pairs"] = self.pairs // self.blocks  # pairs may grow on --resume, a block may not
        return d


def draw_class(limit: int, draws: tuple[int, ...]) -> list[tuple[str, str]]:
    """The draw-threshold class under a largest knock limit ``limit``: (name, canonical
    ``knock_policy`` spec) for gin only, "knock at the limit through draw k, then gin only"
    for each k of ``draws``, and knocking as soon as legal (``simple``'s play), in that order."""
    import strategies

    specs = [("gin only", "knock_policy:early=0,late=0")]
    specs += [(f"k={k}", f"knock_policy:early={limit},turn_a={k},late=0,turn_b=2") for k in draws]
    specs.append(("as soon as legal", f"knock_policy:early={limit},late={limit}"))
    return [(name, strategies.parse_strategy(s).label) for name, s in specs]


def load_class_spec(path: str | Path, data: dict[str, Any] | None = None) -> ClassSpec:
    """Read and validate a class spec; every problem is a one-line ``ClassGameError``."""
    path = Path(path)
    if data is None:
        data = read_toml_file(path, "a class spec", ClassGameError)
    return parse_class_spec(data, str(path))


def read_study_spec(data: dict[str, Any], where: str, schema: Schema, error: type[Exception],
                    what: str) -> tuple[dict[str, Any], dict[str, Any], str, int]:
    """The head (``name``, ``description``, ``objective``, ``rules``, read by the tuning spec's
    declarations) and ``schema``'s keys of a per-hand study spec (``what`` names it in errors):
    (head, own keys, the rules' label, their largest knock limit).  The first problem is a
    one-line ``error`` naming ``where`` and the key."""
    from ..core.rules_api import max_knock_limit
    from .tune.spec import read_shared_head

    def fail(key: str, message: str) -> Exception:
        return error(f"{where}: {key}: {message}")

    head = read_shared_head(data, {"name", "description", "rules", "objective", *schema.names}, fail)
    if head["objective"] != "net_per_hand":
        raise fail("objective", f"{what} plays net_per_hand only, got {head['objective']!r}")
    table, _, resolved = head["rules"]
    own = schema.read({k: v for k, v in data.items() if k in schema.names}, fail)
    label = str(table.get("preset", "custom")) + "".join(f", {k}={v}" for k, v in table.items() if k != "preset")
    return head, own, label, int(max_knock_limit(resolved))


def parse_class_spec(data: dict[str, Any], where: str = "<spec>") -> ClassSpec:
    """Validate a class spec given as a dict; the first problem is a one-line ``ClassGameError``."""
    head, own, label, limit = read_study_spec(data, where, SCHEMA, ClassGameError, "the class game")
    return ClassSpec(name=head["name"], path=where, rules=data.get("rules", "hoyle"), rules_label=label, limit=limit,
                     seed=own["seed"], draws=own["draws"], pairs=own["pairs"], blocks=own["blocks"],
                     bootstrap=own["bootstrap"], fresh_pairs=own["fresh_pairs"],
                     epsilon_target=float(own["epsilon_target"]), out=own["out"], description=head["description"],
                     members=tuple(draw_class(limit, own["draws"])))


def out_dir(spec: ClassSpec, out: str | Path | None = None) -> Path:
    """Where the class game writes: ``out``, else the spec's ``out``, else ``results/<name>``."""
    return Path(out if out is not None else (spec.out or Path(RESULTS_DIR) / spec.name))


# ----------------------------------------------------------------------------- playing a column

def policy_field(name: str, rules: Any, seed: int, limit: int, opponents: list[str], where: str):
    """The tuner's ``Field`` with ``opponents`` under ``rules`` and ``seed``: opponent j's stream
    of a phase is column j's deals (``Field.pair_values``)."""
    from .exploit import default_family, response_spec
    from .tune import Field

    return Field(response_spec(default_family(limit), name, rules, "net_per_hand", seed,
                               [(s, 1.0) for s in opponents], where))


def play_column(field_, members: list[str], j: int, rows: list[int], pairs: int, blocks: int,
                phase: str, first_block: int = 0) -> dict[str, np.ndarray]:
    """Member j's column on ``pairs`` mirrored pairs of its ``phase`` stream, in ``blocks``
    blocks of ``pairs // blocks`` pairs, from block ``first_block`` on (earlier blocks were
    played already): per block, the self-play sums ``v`` and ``vv`` (member j against itself)
    and, for each row i of ``rows``, the sums ``x``, ``xx`` and ``xv`` of member i's pair values
    against j (arrays of shape (blocks − first_block,) and (len(rows), blocks − first_block))."""
    per = pairs // blocks
    n = blocks - first_block
    v = np.zeros(n)
    vv = np.zeros(n)
    x = np.zeros((len(rows), n))
    xx = np.zeros((len(rows), n))
    xv = np.zeros((len(rows), n))
    for b in range(n):
        first = (first_block + b) * per
        self_play = field_.pair_values(members[j], j, phase, first, per)
        v[b], vv[b] = self_play.sum(), (self_play ** 2).sum()
        for r, i in enumerate(rows):
            values = field_.pair_values(members[i], j, phase, first, per)
            x[r, b], xx[r, b], xv[r, b] = values.sum(), (values ** 2).sum(), (values * self_play).sum()
    return {"v": v, "vv": vv, "x": x, "xx": xx, "xv": xv}


def extend_column(kept: dict[str, np.ndarray] | None, more: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A column's block sums ``kept`` followed by the blocks of ``more`` (the same rows)."""
    if kept is None:
        return more
    return {name: np.concatenate([kept[name], more[name]], axis=-1) for name in kept}


# ----------------------------------------------------------------------------- the matrix, ε and the support

def matrix_from(columns: dict[int, dict[str, np.ndarray]], k: int, per: int,
                weights: dict[int, np.ndarray] | None = None, replicates: int | None = None,
                control: bool = True) -> np.ndarray:
    """The antisymmetric payoff matrix from the columns' block sums (column j holds rows
    0 .. j-1): shape (k, k), or (replicates, k, k) with ``weights[j]`` of shape
    (replicates, blocks) per column; ``control`` False: the plain means, the self-play left out."""
    shape = (k, k) if replicates is None else (replicates, k, k)
    m = np.zeros(shape)
    for j in range(1, k):
        blocks = columns[j]["v"].shape[0]
        w = np.ones(blocks) if weights is None else weights[j]
        est, _ = cv_from_moments(columns[j], w, per, control)
        m[..., :j, j] = est
        m[..., j, :j] = -est
    return m


def entry_errors(columns: dict[int, dict[str, np.ndarray]], k: int, per: int, control: bool = True) -> np.ndarray:
    """The standard error of every entry (0 on the diagonal), shape (k, k); ``control`` False:
    the plain means'."""
    se = np.zeros((k, k))
    for j in range(1, k):
        _, s = cv_from_moments(columns[j], np.ones(columns[j]["v"].shape[0]), per, control)
        se[:j, j] = s
        se[j, :j] = s
    return se


def bootstrap_weights(blocks: int, replicates: int, k: int, seed: int) -> dict[int, np.ndarray]:
    """Per stream (column 1 .. k-1), ``replicates`` multinomial resamplings of its ``blocks``
    blocks (the counts), from a generator seeded by ``seed``: one resampling per stream, shared
    by every entry of that column, independent between streams (their deals are)."""
    rng = numpy_generator(seed)
    return {j: rng.multinomial(blocks, np.full(blocks, 1.0 / blocks), size=replicates).astype(float)
            for j in range(1, k)}


def epsilon_delta(matrix: np.ndarray, mixture: np.ndarray, replicas: np.ndarray, blocks: int) -> tuple[float, float]:
    """ε and δ of ``mixture`` on the estimated ``matrix`` from its bootstrap ``replicas``
    (``certify`` says what they bound)."""
    c = np.sqrt(blocks / (blocks - 1))
    gains = matrix @ mixture
    boot = replicas @ mixture
    top = np.max(gains[None, :] - c * (boot - gains[None, :]), axis=1)
    return (float(np.quantile(top, CONFIDENCE)),
            float(c * np.quantile(np.abs(replicas - matrix[None]).max(axis=(1, 2)), CONFIDENCE)))


def certify(matrix: np.ndarray, mixture: np.ndarray, replicas: np.ndarray, blocks: int) -> dict[str, Any]:
    """ε, ``delta`` and the bootstrap distribution of the support, from the estimated
    ``matrix``, its equilibrium ``mixture`` and the bootstrap ``replicas`` (R, k, k) of
    ``blocks`` blocks per stream.

    ε is the ``CONFIDENCE`` quantile of max_i (ĝ_i − c (ĝ*_i − ĝ_i)), ĝ = matrix @ mixture
    and ĝ* = replica @ mixture, c = sqrt(blocks / (blocks − 1)) (a resample of B blocks has
    (B − 1)/B of the mean's variance): a simultaneous upper bound on every member's gain against
    the mixture.  ``delta`` is that quantile of the largest entry error (times c).  Every replica
    is solved: the share of replicates in which each member is in the support, its mean weight,
    the share in which it has the largest weight, and the supports that come out with their shares."""
    epsilon, delta = epsilon_delta(matrix, mixture, replicas, blocks)
    gains = matrix @ mixture
    k = matrix.shape[0]
    weights = np.zeros((len(replicas), k))
    supports: dict[str, int] = {}
    for r, rep in enumerate(replicas):
        anti = (rep - rep.T) / 2  # exactly antisymmetric for the solver
        weights[r], _ = symmetric_nash(anti)
        key = ",".join(str(i) for i in np.flatnonzero(weights[r] > SUPPORT_TOL))
        supports[key] = supports.get(key, 0) + 1
    in_support = (weights > SUPPORT_TOL).mean(axis=0)
    largest = np.bincount(weights.argmax(axis=1), minlength=k) / len(replicas)
    ranked = sorted(supports.items(), key=lambda kv: -kv[1])
    return {"epsilon": epsilon, "delta": delta, "gains": gains.tolist(), "max_gain": float(gains.max()),
            "in_support": in_support.tolist(), "mean_weight": weights.mean(axis=0).tolist(),
            "largest_weight": largest.tolist(), "replicates": int(len(replicas)),
            "supports": [{"members": [int(i) for i in key.split(",")], "share": n / len(replicas)}
                         for key, n in ranked]}


# ----------------------------------------------------------------------------- the run

def _check_out(out: Path, resume: bool, locked: bool = True) -> dict[str, Any] | None:
    """The kept state of a class game in ``out`` (None for a new run; ``rundir.kept_state``)."""
    from ..run.rundir import kept_state

    return kept_state(out, resume, STATE, MARK, ClassGameError, "a class game", locked)


def class_game(spec: ClassSpec, out: str | Path | None = None, resume: bool = False, log=None) -> dict[str, Any]:
    """Play (or resume) the class game of ``spec`` into ``out``; returns the result (what
    ``class_game.json`` holds under ``result``)."""
    from ..run.rundir import locked_output
    from ..run.seeds import development_seed_error

    refusal = development_seed_error(spec.seed, f"ginsim equilibrium {spec.name}")
    if refusal:
        raise ClassGameError(refusal)
    out = out_dir(spec, out)
    _check_out(out, resume, locked=False)
    return locked_output(out, f"ginsim equilibrium {spec.path}", ClassGameError,
                         lambda: _run_locked(spec, out, resume, log or (lambda text: None)))


def _load_moments(out: Path, state: dict[str, Any]) -> dict[str, dict[int, dict[str, np.ndarray]]]:
    """The block sums of the columns the state says are done: phase -> column -> sums."""
    done = {phase: [int(j) for j in cols] for phase, cols in state["done"].items()}
    if not any(done.values()):
        return {"matrix": {}, "fresh": {}}
    with np.load(out / MOMENTS) as z:
        return {phase: {j: {name: z[f"{phase}_{j}_{name}"] for name in ("v", "vv", "x", "xx", "xv")}
                        for j in cols} for phase, cols in done.items()}


def _save(out: Path, state: dict[str, Any], moments: dict[str, dict[int, dict[str, np.ndarray]]]) -> None:
    """Keep the block sums, then the state that names them (a kill between the two leaves a
    state naming only columns whose sums are on disk)."""
    import io

    arrays = {f"{phase}_{j}_{name}": a for phase, cols in moments.items() for j, sums in cols.items()
              for name, a in sums.items()}
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    tmp = out / (MOMENTS + ".tmp")
    tmp.write_bytes(buffer.getvalue())
    tmp.replace(out / MOMENTS)
    atomic_write(out / STATE, json.dumps(state, indent=1) + "\n")


def _run_locked(spec: ClassSpec, out: Path, resume: bool, log) -> dict[str, Any]:
    """The class game once ``out`` is locked: the matrix's columns, the equilibrium, ε and the
    support's bootstrap, the fresh check, each column kept as it finishes; then the report."""
    import strategies

    from ..engine.select import will_play
    from ..run.seeds import derive_seed
    from .tune.field import TUNE_SALT

    state = _check_out(out, resume) or {"_": MARK, "spec": spec.identity(), "done": {"matrix": [], "fresh": []},
                                        "cpu_seconds": 0.0, "deals": 0}
    if state["spec"] != spec.identity():
        raise ClassGameError(f"{out} holds a class game of a different spec; cannot --resume it with {spec.path}")
    seen = state.get("result")
    if seen is not None and (seen["pairs"], seen["blocks"]) != (spec.pairs, spec.blocks):
        raise ClassGameError(f"{out} holds a finished class game of {seen['pairs']:,} pairs per entry whose ε "
                             f"({seen['epsilon']:.4f}) has been seen: playing on its streams after that would be "
                             f"optional continuation; a larger game is a second stage, with a new seed and --out, "
                             f"reported with its own ε")
    moments = _load_moments(out, state)
    members = [s for _, s in spec.members]
    k = len(members)
    will_play({strategies.parse_strategy(s).sid for s in members})
    field_ = policy_field(f"{spec.name}_class", spec.rules, spec.seed, spec.limit, members, spec.path)
    per = spec.pairs // spec.blocks

    def play(phase: str, j: int, rows: list[int], pairs: int, blocks: int) -> None:
        kept = moments[phase].get(j)
        have = 0 if kept is None else kept["v"].shape[0]
        if have >= blocks:
            return
        log(f"{spec.name}: {phase} column {j + 1} of {k} ({spec.members[j][0]}), {len(rows)} rows, "
            f"{pairs:,} pairs" + (f" (blocks {have + 1} to {blocks})" if have else ""))
        cpu = time.process_time()
        more = play_column(field_, members, j, rows, pairs, blocks, phase, have)
        moments[phase][j] = extend_column(kept, more)
        state["cpu_seconds"] += time.process_time() - cpu
        state["deals"] += 2 * (pairs // blocks) * (blocks - have) * (len(rows) + 1)
        if j not in state["done"][phase]:
            state["done"][phase].append(j)
        _save(out, state, moments)

    for j in range(1, k):  # a resume with more pairs (the same pairs per block) extends every column
        play("matrix", j, list(range(j)), spec.pairs, spec.blocks)
    matrix = matrix_from(moments["matrix"], k, per)
    mixture, value = symmetric_nash((matrix - matrix.T) / 2)
    weights = bootstrap_weights(spec.blocks, spec.bootstrap, k, derive_seed(spec.seed, "class-bootstrap", 0, salt=TUNE_SALT))
    replicas = matrix_from(moments["matrix"], k, per, weights, spec.bootstrap)
    cert = certify(matrix, mixture, replicas, spec.blocks)
    support = [int(j) for j in np.flatnonzero(mixture > SUPPORT_TOL)]
    for j in support:
        play("fresh", j, [i for i in range(k) if i != j], spec.fresh_pairs, FRESH_BLOCKS)
    fresh = _fresh_values(moments["fresh"], support, mixture, k, spec.fresh_pairs // FRESH_BLOCKS)
    result = _result(spec, state, matrix, entry_errors(moments["matrix"], k, per), mixture, value, cert, fresh)
    result["plain"] = plain_beside(moments, k, per, spec.fresh_pairs // FRESH_BLOCKS, support, mixture, weights,
                                   spec.bootstrap, spec.blocks, spec.epsilon_target)
    state["result"] = result
    atomic_write(out / STATE, json.dumps(state, indent=1) + "\n")
    write_report(spec, result, out)
    return result


def _fresh_values(columns: dict[int, dict[str, np.ndarray]], support: list[int], mixture: np.ndarray, k: int,
                  per: int, control: bool = True) -> list[dict[str, float]]:
    """Each member's value against the mixture on the fresh streams of the support's columns:
    Σ_j x_j (its control-variate estimate against j; ``control`` False: its plain mean), with a
    normal 95% interval (the columns' streams are independent)."""
    from scipy.stats import norm

    value = np.zeros(k)
    var = np.zeros(k)
    for j in support:
        sums = columns[j]
        est, se = cv_from_moments(sums, np.ones(sums["v"].shape[0]), per, control)
        rows = [i for i in range(k) if i != j]
        value[rows] += mixture[j] * est
        var[rows] += (mixture[j] * se) ** 2
    z = float(norm.ppf(0.5 + CONFIDENCE / 2))
    sd = np.sqrt(var)
    return [{"value": float(v), "low": float(v - z * s), "high": float(v + z * s)} for v, s in zip(value, sd)]


def plain_beside(moments: dict[str, dict[int, dict[str, np.ndarray]]], k: int, per: int, fresh_per: int,
                 support: list[int], mixture: np.ndarray, weights: dict[int, np.ndarray], replicates: int,
                 blocks: int, target: float) -> dict[str, Any]:
    """The plain estimates from the same block sums, the self-play control left out
    (``estimated``): the matrix and its standard errors, the equilibrium solved on it with its
    ε, δ and the bootstrap distribution of its support (``certify``, the same bootstrap
    ``weights``), and every member's fresh value against the published (controlled)
    ``mixture``; what ``class_game.json``'s ``result.plain`` holds."""
    matrix = matrix_from(moments["matrix"], k, per, control=False)
    mixture_plain, value = symmetric_nash((matrix - matrix.T) / 2)
    replicas = matrix_from(moments["matrix"], k, per, weights, replicates, control=False)
    return estimated(matrix, entry_errors(moments["matrix"], k, per, control=False), mixture_plain, value,
                     certify(matrix, mixture_plain, replicas, blocks),
                     _fresh_values(moments["fresh"], support, mixture, k, fresh_per, control=False), target)


def plain_view(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with every figure ``ginsim equilibrium`` prints and records replaced by its
    plain estimate from the same pairs (``result.plain``; ``--plain``): the mixture of the plain
    matrix with its ε, δ and support bootstrap, and the fresh values, against the published
    mixture, of the plain means.  A result written before the plain estimate was kept whole is
    refused with one line."""
    plain = result.get("plain")
    if plain is None or "epsilon_met" not in plain:  # "epsilon_met": written whole, by ``estimated``
        raise ClassGameError(f"{result['name']}: its class_game.json keeps no plain estimate beside the controlled "
                             f"one; ginsim equilibrium SPEC --resume rewrites it from its moments")
    return {**result, **plain}


def estimator_lines(result: dict[str, Any]) -> list[str]:
    """The report's section on its estimator: the self-play control variate against the plain
    mean of the same pairs, entry by entry (the units each saves) and in what it decides."""
    plain = result.get("plain")
    if plain is None:  # a result written before the plain estimate was kept beside
        return []
    k = result["size"]
    upper = [(i, j) for j in range(1, k) for i in range(j)]
    cv_se = np.array([result["se"][i][j] for i, j in upper])
    plain_se = np.array([plain["se"][i][j] for i, j in upper])
    ok = cv_se > 0
    ratio = (plain_se[ok] / cv_se[ok]) ** 2
    apart = np.array([abs(result["matrix"][i][j] - plain["matrix"][i][j]) for i, j in upper])[ok] / plain_se[ok]
    members = result["members"]
    best = plain["fresh_best"]["member"]
    same = sorted(np.flatnonzero(np.array(plain["mixture"]) > SUPPORT_TOL).tolist()) == sorted(
        np.flatnonzero(np.array(result["mixture"]) > SUPPORT_TOL).tolist())
    return ["## The estimator", "",
            "Every entry above is estimated with a control variate (`simulator.analysis.stats.estimators."
            "cv_from_moments`): the column member's self-play on the same mirrored pairs, whose expectation is 0, "
            "its coefficient the regression slope on the same pairs. The plain mean of the same pairs is computed "
            "beside it (`plain_from_moments`; `result.plain` in class_game.json holds its matrix, standard errors, "
            "equilibrium with its ε and δ, and fresh values).", "",
            f"- Pairs the control saves for the same interval (plain variance over controlled, per entry): median "
            f"**{np.median(ratio):,.1f}×**, from {ratio.min():,.1f}× to {ratio.max():,.1f}× over {ratio.size} entries.",
            f"- The two estimates of an entry differ by at most {apart.max():.2f} plain standard errors (median "
            f"{np.median(apart):.2f}).",
            f"- The equilibrium of the plain matrix: {mixture_text({**result, 'mixture': plain['mixture']})} "
            f"({'the same support' if same else 'a different support'}), ε = {plain['epsilon']:.4f} and "
            f"δ = {plain['delta']:.4f} by the same bootstrap, against ε = {result['epsilon']:.4f} and "
            f"δ = {result['delta']:.4f} with the control.",
            f"- On fresh deals, plain: the member that does best against the mixture is {members[best]['name']}: "
            f"{plain['fresh'][best]['value']:+.4f} [{plain['fresh'][best]['low']:+.4f}, "
            f"{plain['fresh'][best]['high']:+.4f}].", ""]


def _result(spec: ClassSpec, state: dict[str, Any], matrix: np.ndarray, se: np.ndarray, mixture: np.ndarray,
            value: float, cert: dict[str, Any], fresh: list[dict[str, float]]) -> dict[str, Any]:
    """What ``class_game.json``'s ``result`` holds."""
    from ..core.rules import resolve_rules
    from .tune import describe_policy

    rules = resolve_rules({"preset": spec.rules} if isinstance(spec.rules, str) else dict(spec.rules))
    k = len(spec.members)
    members = [{"name": n, "policy": s, "description": describe_policy(s, rules)} for n, s in spec.members]
    return {
        "name": spec.name, "spec_file": spec.path, "rules": spec.rules, "rules_label": spec.rules_label,
        "seed": spec.seed, "class": f"the draw-threshold class of {k} knock_policy members (knock at deadwood "
        f"<= {spec.limit} through draw k, then gin only; k in {list(spec.draws)}, gin only and as soon as legal)",
        "members": members, "size": k, "pairs": spec.pairs, "blocks": spec.blocks,
        "epsilon_target": spec.epsilon_target, "fresh_pairs": spec.fresh_pairs,
        **estimated(matrix, se, mixture, value, cert, fresh, spec.epsilon_target),
        "deals": int(state["deals"]), "cpu_seconds": float(state["cpu_seconds"]),
    }


def estimated(matrix: np.ndarray, se: np.ndarray, mixture: np.ndarray, value: float, cert: dict[str, Any],
              fresh: list[dict[str, float]], target: float) -> dict[str, Any]:
    """The figures of one estimate of the class game (with the control, or plain): the matrix
    and its errors, the equilibrium and its value, its certificate (``certify``) against the ε
    ``target``, and the fresh check: every member's value against the mixture, the best of
    them, whether it stays within ε and which members' intervals lie above it."""
    best = max(range(len(fresh)), key=lambda i: fresh[i]["value"])
    return {"mixture": mixture.tolist(), "value": float(value), "matrix": matrix.tolist(), "se": se.tolist(),
            "epsilon": cert["epsilon"], "delta": cert["delta"], "epsilon_met": cert["epsilon"] <= target,
            "gains": cert["gains"], "bootstrap": cert, "fresh": fresh, "fresh_best": {"member": best, **fresh[best]},
            "fresh_within_epsilon": fresh[best]["value"] <= cert["epsilon"],
            "fresh_above_epsilon": [i for i, f in enumerate(fresh) if f["low"] > cert["epsilon"]]}


# ----------------------------------------------------------------------------- reports

def mixture_text(result: dict[str, Any], digits: int = 2) -> str:
    """The mixture in words: ``0.54 × k=13; 0.40 × k=12`` (largest weight first)."""
    pairs = sorted(((w, m["name"]) for w, m in zip(result["mixture"], result["members"]) if w > SUPPORT_TOL),
                   reverse=True)
    return "; ".join(f"{w:.{digits}f} × {name}" for w, name in pairs)


def write_report(spec: ClassSpec, result: dict[str, Any], out: Path) -> Path:
    """``OUT/report.md``: the class, the equilibrium and its ε, the support's bootstrap, the
    fresh check and the payoff matrix."""
    from ..core.rules import describe_rules

    members = result["members"]
    k = result["size"]
    boot = result["bootstrap"]
    lines = [f"<!-- {MARK} from {spec.path} -->", f"# Equilibrium within a finite class: {spec.name}", "",
             *([spec.description, ""] if spec.description else []),
             f"Rules: {describe_rules(result['rules'])}; net points per hand; seed {spec.seed}. Within {result['class']}, "
             f"played in full: a {k} × {k} antisymmetric payoff matrix, {spec.pairs:,} mirrored pairs per entry "
             f"({result['deals']:,} deals in all, fresh check included; {result['cpu_seconds']:,.0f} s of CPU).", "",
             "## The equilibrium and its ε", "",
             f"Mixture: **{mixture_text(result)}**. Within this class it is an **ε-equilibrium with ε = "
             f"{result['epsilon']:.4f}** points per hand: a 95% upper confidence bound on the largest gain any "
             f"member of the class gets against the mixture, simultaneous over the sampling error of the whole "
             f"matrix ({boot['replicates']:,} block-bootstrap replicates; the target was "
             f"{result['epsilon_target']:.3f}, {'met' if result['epsilon_met'] else 'NOT met'}). Any equilibrium "
             f"of the estimated matrix is a δ-equilibrium of the true class game with δ = {result['delta']:.4f} "
             f"(95% bound on the largest entry error). Nothing outside the class is bounded.", "",
             "| member | knock rule | weight | gain against the mixture | in the support (bootstrap) | "
             "largest weight (bootstrap) | fresh value against the mixture |", "|---|---|---:|---:|---:|---:|---:|"]
    for i, m in enumerate(members):
        f = result["fresh"][i]
        lines.append(f"| {m['name']} | {m['description']} | {result['mixture'][i]:.3f} | {result['gains'][i]:+.4f} | "
                     f"{boot['in_support'][i]:.1%} | {boot['largest_weight'][i]:.1%} | {f['value']:+.4f} "
                     f"[{f['low']:+.4f}, {f['high']:+.4f}] |")
    best = result["fresh_best"]
    lines += ["", f"On fresh deals ({result['fresh_pairs']:,} mirrored pairs per member and support column) the "
              f"member that does best against the mixture is {members[best['member']]['name']}: "
              f"{best['value']:+.4f} [{best['low']:+.4f}, {best['high']:+.4f}], "
              f"{'within' if result['fresh_within_epsilon'] else 'ABOVE'} ε.", "",
              "## The bootstrap distribution of the support", "",
              "The supports of the equilibria of the bootstrap replicates, most frequent first:", "",
              "| support | share of replicates |", "|---|---:|"]
    for s in boot["supports"][:10]:
        lines.append(f"| {', '.join(members[i]['name'] for i in s['members'])} | {s['share']:.1%} |")
    lines += ["", "## The payoff matrix", "",
              f"Row member's net points per hand against the column member (standard error in brackets), "
              f"{spec.pairs:,} mirrored pairs per entry, control variate: the column member against itself.", "",
              "| | " + " | ".join(m["name"] for m in members) + " |", "|---|" + "---:|" * k]
    for i in range(k):
        cells = ["0" if i == j else f"{result['matrix'][i][j]:+.3f} ({result['se'][i][j]:.3f})" for j in range(k)]
        lines.append(f"| {members[i]['name']} | " + " | ".join(cells) + " |")
    lines += ["", *estimator_lines(result), "Members:", ""] + [f"- {m['name']}: `{m['policy']}`" for m in members]
    path = out / "report.md"
    atomic_write(path, "\n".join(lines) + "\n")
    return path


def class_summary_lines(results: list[dict[str, Any]]) -> list[str]:
    """A Markdown section over several class games (one per rule variant): the class, the
    mixture, ε and δ, the matrix size, the fresh check and the CPU time."""
    lines = ["## Equilibria within the draw-threshold class", "",
             "One row per class game. Each equilibrium holds **within the class of** its draw-threshold members "
             "(knock at the limit through draw k, then gin only; gin only and knocking as soon as legal included), "
             "with `simple`'s draws and discards on both sides; ε is a 95% upper confidence bound on the best gain "
             "any member gets against the mixture, simultaneous over the matrix's sampling error; δ bounds every "
             "entry's error at 95%. Points per hand.", "",
             "| run | rules | matrix | pairs per entry | mixture | ε (95%) | δ (95%) | best member on fresh deals | "
             "CPU s |", "|---|---|---:|---:|---|---:|---:|---:|---:|"]
    for r in results:
        b = r["fresh_best"]
        lines.append(f"| [{r['name']}]({Path(r['spec_file']).stem}/report.md) | `{r['rules_label']}` | "
                     f"{r['size']}×{r['size']} | {r['pairs']:,} | {mixture_text(r)} | {r['epsilon']:.4f} | "
                     f"{r['delta']:.4f} | {r['members'][b['member']]['name']}: {b['value']:+.4f} "
                     f"[{b['low']:+.4f}, {b['high']:+.4f}] | {r['cpu_seconds']:,.0f} |")
    return lines + [""]


def write_sections(path: str | Path, title: str, sections: list[list[str]], error: type[Exception]) -> Path:
    """A summary file of several runs' sections (``--summary``): refuses to replace a file
    ginsim did not write."""
    path = Path(path)
    if path.exists() and "written by ginsim equilibrium" not in path.read_text(encoding="utf-8",
                                                                               errors="replace")[:400]:
        raise error(f"{path} exists and was not written by ginsim; move it away or choose another --summary")
    lines = ["<!-- written by ginsim equilibrium; rerun the studies to replace this file -->", f"# {title}", ""]
    atomic_write(path, "\n".join(lines + [line for section in sections for line in section]) + "\n")
    return path


# ----------------------------------------------------------------------------- what ginsim equilibrium prints

#: how ``ginsim equilibrium`` names each estimator of a class game's or knock table's figures
ESTIMATORS = {"control": "the self-play control variate", "plain": "the plain mean of the same pairs"}


def summary_lines(result: dict[str, Any], seconds: float, out: Path, plain: bool = False) -> list[str]:
    """The lines ``ginsim equilibrium`` prints for one class game's ``result`` (played in
    ``seconds`` into ``out``): the mixture, epsilon and the matrix size; ``plain``: each
    figure's plain estimate (``plain_view``)."""
    r = plain_view(result) if plain else result
    best = r["fresh_best"]
    return [
        f"{r['name']}: equilibrium within {r['class']} under {r['rules_label']}",
        f"  estimates: {ESTIMATORS['plain' if plain else 'control']}"
        + (" (against the published mixture on fresh deals)" if plain else " (--plain: the plain mean beside it)"),
        f"  mixture: {mixture_text(r, 3)}",
        f"  epsilon (95% upper bound on any member's gain against the mixture): {r['epsilon']:.4f} points per hand "
        f"(target {r['epsilon_target']:g}: {'met' if r['epsilon_met'] else 'NOT met'}); delta {r['delta']:.4f}",
        f"  matrix: {r['size']} x {r['size']}, {r['pairs']:,} mirrored pairs per entry ({r['deals']:,} deals, "
        f"{r['cpu_seconds']:,.1f} s CPU)",
        f"  best member against the mixture on fresh deals: {r['members'][best['member']]['name']} "
        f"{best['value']:+.4f} [{best['low']:+.4f}, {best['high']:+.4f}]",
        f"  ({seconds:.1f} s; report: {out / 'report.md'})"]


def json_record(result: dict[str, Any], seconds: float, out: Path, plain: bool = False) -> dict[str, Any]:
    """One class game's record in ``ginsim equilibrium --json`` (docs/cli.md); ``plain``: each
    figure's plain estimate (``plain_view``)."""
    from ..analysis.summary import estimate

    r = plain_view(result) if plain else result
    best = r["fresh_best"]
    return {
        "name": r["name"], "out": str(out), "rules": r["rules_label"], "method": "class",
        "estimator": "plain" if plain else "control",
        "members": [{"name": m["name"], "policy": m["policy"]} for m in r["members"]],
        "mixture": [{"policy": m["policy"], "weight": w} for m, w in zip(r["members"], r["mixture"]) if w > 0],
        "epsilon": r["epsilon"], "delta": r["delta"], "epsilon_target": r["epsilon_target"],
        "matrix_size": r["size"], "pairs_per_entry": r["pairs"],
        "fresh_best": {"member": r["members"][best["member"]]["policy"],
                       "value": estimate(best["value"], best["low"], best["high"], r["fresh_pairs"], "pair")},
        "support_bootstrap": r["bootstrap"]["supports"][:10], "cpu_seconds": round(r["cpu_seconds"], 3),
        "seconds": round(seconds, 3)}
