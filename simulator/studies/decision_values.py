"""What each decision is worth: a strong player with one decision played by a baseline.

    python -m simulator.studies.decision_values experiments/decision_values.toml [--json]

For each player X of the spec, each opponent O, each rules variant and each decision D
(the decision points of docs/rules.md, ``strategies.hybrid.DECISION_PHASES``), it plays X
against O and the hybrid ``X+D=DONOR`` (X with decision D taken from the donor) against O
on the **same deals** (common random numbers: one engine seed for the full player and
every swapped one, mirrored seats), and reports the loss of the swap:

* per hand: X's net points per hand against O minus the hybrid's, paired by mirrored deal
  pair (the unit), with a 95% t interval;
* per game (``unit = "game"``): X's share of games won against O minus the hybrid's, paired
  by mirrored game pair.

A positive loss means the decision is worth that much to X over the donor's way of making
it.  The engine seed of a (player, opponent, rules, unit) block is ``derive_seed(seed,
player, opponent, rules, unit)``, so each block has its own deals and adding a block
changes no other; a development seed (``simulator.run.seeds``) is refused.

Spec (TOML; its keys are declared in ``SCHEMA`` and ``BLOCK_SCHEMA``, whose table is in
docs/experiments.md), every key required unless marked::

    name = "decision_values"
    seed = 20262901
    players = ["mc", "expert"]          # strategy specs
    opponents = ["simple"]              # strategy specs (a block may give its own: opponents = [...])
    donor = "simple"                    # a strategy spec: who makes the swapped decision
    decisions = ["first_upcard", "draw", "discard", "knock", "arrange", "defend"]
    out = "results/decision_values"     # decision_values.json is written there
    report = "experiments/decision_values.md"   # optional: the Markdown report

    [[blocks]]                          # one per rules variant and unit
    rules = "tournament"                # a rules preset
    unit = "hand"                       # "hand" or "game"
    size = { mc = 40_000, expert = 100_000 }   # deals (hand) or games (game) per player

Outputs are written atomically; the same spec gives the same bytes.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

import strategies
from strategies.hybrid import DECISION_PHASES

from ..analysis.stats.estimators import plain
from ..core.decisions import decision as named_decision
from ..infra.inputs import outside_work, read_json
from ..core.rules import resolve_rules
from ..run.rundir import code_fingerprint
from ..run.config import REQUIRED, Key, Schema, is_int, seed_key
from ..run.seeds import derive_seed, development_seed_error
from .controls import pair_values

UNITS = ("hand", "game")


class DecisionValuesError(ValueError):
    """A bad spec: one line naming the file and the key."""


@dataclass(frozen=True)
class Block:
    rules: str
    unit: str
    size: dict[str, int]  # player spec -> deals or games
    opponents: tuple[str, ...]  # the block's own, else the spec's


@dataclass(frozen=True)
class Spec:
    name: str
    seed: int
    players: tuple[str, ...]
    opponents: tuple[str, ...]
    donor: str
    decisions: tuple[str, ...]
    out: str
    report: str | None
    blocks: tuple[Block, ...]


def _specs(value: Any, fail, key: str) -> tuple[str, ...] | None:
    """A list of numba strategy specs that are not hybrids (one string counts as a list of
    one), each as its label; None stays None (a block without its own opponents)."""
    if value is None:
        return None
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise fail(key, f"must be a non-empty list of strategy specs, got {value!r}")
    out = []
    for v in value:
        try:
            parsed = strategies.parse_strategy(v)
        except ValueError as exc:
            raise fail(key, str(exc)) from None
        if parsed.is_python or isinstance(parsed, strategies.registry.Hybrid):
            raise fail(key, f"{v!r}: a numba strategy that is not a hybrid")
        out.append(parsed.label)
    if len(set(out)) != len(out):
        raise fail(key, "a strategy is given twice")
    return tuple(out)


def _specs_key(name: str, help: str, default: Any = REQUIRED) -> Key:
    return Key(name, "any", default, help, text="a non-empty list of strategy specs", got=False, type_text="list",
               check=lambda v, values, fail: _specs(v, fail, values["_prefix"] + name),
               default_text="the spec's `opponents`" if default is None else None)


def _rules(value: str, values: dict[str, Any], fail) -> str:
    try:
        resolve_rules(value)
    except (ValueError, TypeError) as exc:
        raise fail(values["_prefix"] + "rules", str(exc)) from None
    return value


def _sizes(value: dict[str, Any], values: dict[str, Any], fail) -> dict[str, int]:
    """``size``: an even count for each player of the spec (named by its spec or its strategy
    name), as player spec -> count."""
    players = values["players"]
    key = values["_prefix"] + "size"
    if set(value) != {strategies.parse_strategy(p).name for p in players} and set(value) != set(players):
        raise fail(key, f"must give a count for each player ({', '.join(players)}), got {value!r}")
    if not all(is_int(v) and v > 0 and v % 2 == 0 for v in value.values()):
        raise fail(key, f"counts must be even positive integers (mirrored pairs), got {value!r}")
    return {p: int(value.get(p, value.get(strategies.parse_strategy(p).name, 0))) for p in players}


def _decisions(value: list, values: dict[str, Any], fail) -> tuple[str, ...]:
    """The decisions to swap, each named as ``simulator.core.decisions`` names it (one
    vocabulary; older words such as ``layout`` are read), in phase order."""
    named = [named_decision(d) if isinstance(d, str) else None for d in value]
    if not named or None in named or len({d.name for d in named}) != len(named):
        raise fail("decisions", f"must be a list of distinct decisions among {', '.join(DECISION_PHASES)}, "
                                f"got {value!r}")
    return tuple(d for d in DECISION_PHASES if d in {n.name for n in named})


def _seed(value: int, values: dict[str, Any], fail) -> int:
    problem = development_seed_error(value, "seed")
    if problem:
        raise fail("seed", problem.removeprefix("seed: "))
    return value


def _path(name: str, help: str, default: Any) -> Key:
    def check(value, values, fail):
        if value is not None and not value:
            raise fail(name, "must be a path, got ''")
        problem = None if value is None else outside_work(value)  # a spec never writes outside the working directory
        if problem:
            raise fail(name, problem)
        return value

    return Key(name, "str", default, help, text="a path", check=check,
               default_text="none" if default is None else None)


#: the keys of one ``[[blocks]]`` table: a rules variant and unit the players are measured in
BLOCK_SCHEMA = Schema("decision_values_block", (
    Key("rules", "str", REQUIRED, "the block's rules", text="a rules preset (`ginsim variants`)", check=_rules),
    Key("unit", "choice", REQUIRED, "single hands or whole games", choices=UNITS),
    Key("size", "table", REQUIRED, "deals (unit hand) or games (unit game) per player: `{ mc = 30_000, ... }`",
        text="a table of an even positive count per player", got=False, check=_sizes),
    _specs_key("opponents", "the block's own opponents, instead of the spec's", None),
))


def _blocks(value: list, values: dict[str, Any], fail) -> tuple[Block, ...]:
    if not value or not all(isinstance(b, dict) for b in value):
        raise fail("blocks", "must be a non-empty list of [[blocks]] tables")
    parsed, seen = [], set()
    for i, table in enumerate(value):
        b = BLOCK_SCHEMA.read(table, fail, prefix=f"blocks[{i}].", values={"players": values["players"]})
        if (b["rules"], b["unit"]) in seen:
            raise fail(f"blocks[{i}]", f"rules {b['rules']!r} with unit {b['unit']!r} is given twice")
        seen.add((b["rules"], b["unit"]))
        parsed.append(Block(b["rules"], b["unit"], b["size"], b["opponents"] or values["opponents"]))
    return tuple(parsed)


#: every key of a decision-values spec, in the order they are checked
SCHEMA = Schema("decision_values", (
    Key("name", "name", REQUIRED, "the study's name"),
    replace(seed_key("Every block's engine seed derives from it (`derive_seed`); a development seed is refused."),
            default=REQUIRED, check=_seed),
    _specs_key("players", "the strong players whose decisions are valued"),
    _specs_key("opponents", "the opponents they meet (a block may give its own)"),
    Key("donor", "str", REQUIRED, "the strategy that makes the swapped decision", text="one strategy spec",
        check=lambda v, values, fail: _specs(v, fail, "donor")[0]),
    Key("decisions", "list", REQUIRED, "the decisions to swap, one at a time", check=_decisions,
        text="distinct decisions among " + ", ".join(DECISION_PHASES)),
    _path("out", "where decision_values.json is written", REQUIRED),
    _path("report", "where the Markdown report is written", None),
    Key("blocks", "list", REQUIRED, "one per rules variant and unit (keys below)", text="`[[blocks]]` tables",
        got=False, check=_blocks),
))


def parse_spec(data: dict[str, Any], where: str = "<spec>") -> Spec:
    """A spec checked by ``SCHEMA``: one-line ``DecisionValuesError`` naming the key and its
    allowed values."""
    def fail(key: str, text: str) -> DecisionValuesError:
        return DecisionValuesError(f"{where}: {key}: {text}")

    v = SCHEMA.read(data, fail)
    return Spec(v["name"], v["seed"], v["players"], v["opponents"], v["donor"], v["decisions"], v["out"],
                v["report"], v["blocks"])


def load_spec(path: str | Path) -> Spec:
    from ..run.experiment import read_toml_file

    return parse_spec(read_toml_file(Path(path), "a decision-values spec", DecisionValuesError), str(path))


def interval(diff: np.ndarray) -> dict[str, float]:
    """Mean, 95% t interval, standard error and unit sd of paired differences (the plain
    estimate of ``simulator.analysis.stats.estimators``)."""
    e = plain(diff)
    return {"estimate": e.value, "low": e.low, "high": e.high, "se": e.se, "sd": e.sd, "pairs": e.units}


def previous_rows(spec: Spec) -> dict[tuple, dict[str, Any]]:
    """The rows of an earlier ``OUT/decision_values.json`` that this spec would play again
    exactly (same name, seed, donor, ginsim version and code fingerprint,
    ``simulator.run.rundir.code_fingerprint``; each row's size and engine seed are
    checked again by ``run``), by (player, opponent, rules, unit, decision); empty when
    there is none."""
    from .._version import __version__

    path = Path(spec.out) / "decision_values.json"
    if not path.is_file():
        return {}
    try:
        doc = read_json(path, "a decision-values result", DecisionValuesError)
    except DecisionValuesError:
        return {}
    if not isinstance(doc, dict):
        return {}
    if (doc.get("name"), doc.get("seed"), doc.get("donor"), doc.get("version"), doc.get("code")) != \
            (spec.name, spec.seed, spec.donor, __version__, code_fingerprint()):
        return {}
    return {(r["player"], r["opponent"], r["rules"], r["unit"], r["decision"]): r for r in doc.get("rows", [])}


def run(spec: Spec, log=print, reuse: dict[tuple, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Play the study; returns what ``decision_values.json`` holds.  ``reuse``
    (``previous_rows``): a block whose every row is there with this size and engine seed is
    taken from it instead of played again (the same deals give the same rows)."""
    rows = []
    reuse = reuse or {}
    cpu = time.process_time()
    for block in spec.blocks:
        for player in spec.players:
            n = block.size[player]
            for opponent in block.opponents:
                seed = derive_seed(spec.seed, player, opponent, block.rules, block.unit)
                kept = [reuse.get((player, opponent, block.rules, block.unit, d)) for d in spec.decisions]
                if all(r is not None and r["size"] == n and r["seed"] == seed for r in kept):
                    rows.extend(kept)
                    log(f"{player} vs {opponent}, {block.rules}, per {block.unit}: kept from the earlier run")
                    continue
                full = pair_values(player, opponent, block.rules, block.unit, n, seed)
                base = interval(full)
                log(f"{player} vs {opponent}, {block.rules}, per {block.unit}: {base['estimate']:+.4f} "
                    f"({n:,} {block.unit}s)")
                for decision in spec.decisions:
                    hybrid = strategies.parse_strategy(f"{player}+{decision}={spec.donor}").label
                    swapped = pair_values(hybrid, opponent, block.rules, block.unit, n, seed)
                    loss = interval(full - swapped)
                    changed = float(np.mean(full != swapped))
                    rows.append({"player": player, "opponent": opponent, "rules": block.rules, "unit": block.unit,
                                 "decision": decision, "hybrid": hybrid, "size": n, "seed": seed,
                                 "full": base, "swapped": interval(swapped), "loss": loss,
                                 "pairs_changed": changed})
                    log(f"  {decision:13s} loss {loss['estimate']:+.4f} [{loss['low']:+.4f}, {loss['high']:+.4f}]")
    from .._version import __version__

    return {"name": spec.name, "seed": spec.seed, "donor": spec.donor, "code": code_fingerprint(), "players": list(spec.players),
            "opponents": list(dict.fromkeys(o for b in spec.blocks for o in b.opponents)), "decisions": list(spec.decisions), "version": __version__,
            "rows": [_rounded(r) for r in rows], "cpu_seconds_unrounded": time.process_time() - cpu}


def _rounded(value):
    if isinstance(value, float):
        return None if not math.isfinite(value) else float(f"{value:.6g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def _fmt(row: dict[str, Any]) -> str:
    loss = row["loss"]
    if row["unit"] == "game":
        return f"{100 * loss['estimate']:+.2f} [{100 * loss['low']:+.2f}, {100 * loss['high']:+.2f}] pp"
    return f"{loss['estimate']:+.3f} [{loss['low']:+.3f}, {loss['high']:+.3f}]"


def render_markdown(result: dict[str, Any], spec_path: str) -> str:
    """The report: one table per player and opponent, a row per decision, a column per block."""
    lines = [f"# What each decision is worth ({result['name']})", "",
             f"Generated by `python -m simulator.studies.decision_values {spec_path}` "
             f"(ginsim {result['version']}); do not edit.", "",
             f"Each row replaces one decision of the player by `{result['donor']}`'s (a hybrid "
             "`PLAYER+DECISION=" + result["donor"] + "`, `strategies/hybrid.py`) and gives the **loss**: the "
             "full player's result against the opponent minus the hybrid's, on the same mirrored deals "
             "(common random numbers), with a paired 95% t interval over mirrored pairs. Per hand: net "
             "points per hand; per game: share of games won, in percentage points. Positive: the "
             "player's own way of making the decision is worth that much.", ""]
    blocks = list(dict.fromkeys((r["rules"], r["unit"]) for r in result["rows"]))  # in the spec's order
    for player in result["players"]:
        for opponent in result["opponents"]:
            rows = [r for r in result["rows"] if r["player"] == player and r["opponent"] == opponent]
            if not rows:
                continue
            lines += [f"## {player} against {opponent}", ""]
            head = [f"`{rules}` per {unit}" for rules, unit in blocks]
            lines.append("| decision | " + " | ".join(head) + " |")
            lines.append("|---|" + "---|" * len(head))
            full = []
            for rules, unit in blocks:
                r = next((r for r in rows if (r["rules"], r["unit"]) == (rules, unit)), None)
                if r is None:
                    full.append("—")
                    continue
                f = r["full"]
                if unit == "game":
                    full.append(f"{100 * f['estimate']:.1f}% [{100 * f['low']:.1f}, {100 * f['high']:.1f}]")
                else:
                    full.append(f"{f['estimate']:+.3f} [{f['low']:+.3f}, {f['high']:+.3f}]")
            lines.append(f"| *{player} itself* | " + " | ".join(full) + " |")
            for decision in result["decisions"]:
                cells = []
                for rules, unit in blocks:
                    r = next((r for r in rows if (r["rules"], r["unit"], r["decision"]) == (rules, unit, decision)), None)
                    cells.append("—" if r is None else _fmt(r))
                lines.append(f"| {decision} | " + " | ".join(cells) + " |")
            lines.append("")
            sizes = sorted({(r["rules"], r["unit"], r["size"], r["seed"]) for r in rows})
            lines.append("Sizes and engine seeds: " + "; ".join(
                f"`{rules}` per {unit}: {size:,} {unit}s ({size // 2:,} mirrored pairs), seed {seed}"
                for rules, unit, size, seed in sizes) + ".")
            lines.append("")
    lines += ["The first row of each table is the full player's own result against the opponent (net points "
              "per hand, or its share of games won, with its interval); a dash: the block does not play that "
              "opponent. The share of pairs whose result the swap changed is in `decision_values.json` "
              "(`pairs_changed`).", ""]
    return "\n".join(lines)


def write_outputs(spec: Spec, result: dict[str, Any], spec_path: str) -> list[Path]:
    """``OUT/decision_values.json`` and the report, each written atomically."""
    from ..analysis.rendering import atomic_write as atomic_write_text

    out = Path(spec.out)
    out.mkdir(parents=True, exist_ok=True)
    doc = {k: v for k, v in result.items() if k != "cpu_seconds_unrounded"}
    paths = [out / "decision_values.json"]
    atomic_write_text(paths[0], json.dumps(doc, indent=1, sort_keys=True) + "\n")
    if spec.report:
        paths.append(Path(spec.report))
        atomic_write_text(paths[1], render_markdown(result, spec_path))
    return paths


def is_spec(path: str | Path) -> bool:
    """True when the TOML file ``path`` is a decision-values spec (it has ``blocks`` and a
    ``donor``), so ``ginsim confirm`` confirms it here instead of as a runner experiment."""
    from ..run.experiment import read_toml_file

    try:
        data = read_toml_file(Path(path), "a study file", ValueError)
    except ValueError:
        return False
    return "blocks" in data and "donor" in data


def _study_rows(spec: Spec) -> dict[tuple, dict[str, Any]]:
    """The committed ``OUT/decision_values.json`` rows by (player, hybrid, opponent, rules, unit);
    refused (one line) when it was not made from this spec's seed and sizes."""
    from .claims_file import ClaimError

    path = Path(spec.out) / "decision_values.json"
    if not path.is_file():
        raise ClaimError(f"{path}: missing; run python -m simulator.studies.decision_values first")
    doc = read_json(path, "a decision-values result", ClaimError)
    if not isinstance(doc, dict) or doc.get("seed") != spec.seed or doc.get("name") != spec.name:
        raise ClaimError(f"{path}: made from another spec (seed {doc.get('seed') if isinstance(doc, dict) else '?'}); "
                         f"run the study again")
    rows = {}
    for r in doc["rows"]:
        block = next((b for b in spec.blocks if (b.rules, b.unit) == (r["rules"], r["unit"])), None)
        if block is None or block.size.get(r["player"]) != r["size"] or \
                r["seed"] != derive_seed(spec.seed, r["player"], r["opponent"], r["rules"], r["unit"]):
            raise ClaimError(f"{path}: row {r['hybrid']} vs {r['opponent']} ({r['rules']}, {r['unit']}) does not "
                             "match the spec's sizes and seeds; run the study again")
        rows[(r["player"], r["hybrid"], r["opponent"], r["rules"], r["unit"])] = r
    return rows


def confirm(spec_path: str | Path, protocol, max_deals: int | None = None, max_games: int | None = None,
            log=None) -> dict[str, Any]:
    """Confirm a decision-values study's claims (metric ``decision_loss``) as ``ginsim
    confirm`` confirms every study (``simulator.studies.confirm``; ``protocol``: its
    claims, ledger and salt): the original is the study's own row
    (``decision_values.json``); the size is fixed before playing for 90% power at the
    conservative effect (``confirm.conservative_effect``) at the family's level; the full
    player and the hybrid are re-played on the same deals from the confirmation seed; Holm
    over the claims.  Returns what ``confirm.json`` holds."""
    from . import confirm as cf
    from .claims_file import ClaimError

    spec = load_spec(spec_path)
    claims = protocol.claims
    log = log or (lambda text: None)
    seed = protocol.seed(spec.seed)
    used = {spec.seed} | {derive_seed(spec.seed, p, o, b.rules, b.unit)
                          for b in spec.blocks for p in spec.players for o in b.opponents}
    for who, s in (("study " + spec.name, spec.seed), ("confirmation", seed)):
        message = development_seed_error(s, f"ginsim confirm {spec.name}: {who}")
        if message:
            raise ClaimError(message)
    if seed in used:
        raise ClaimError(f"ginsim confirm {spec.name}: seed {seed} is one the study used; "
                            "a confirmation plays on seeds the study never used")
    rows = _study_rows(spec)
    caps = cf.caps(protocol, max_deals, max_games)
    plan = []
    for claim in filter(protocol.plays, claims.claims):  # every claim is checked before anything is played
        where = f"{claims.path}: claim {claim.id}"
        if claim.metric != "decision_loss":
            raise ClaimError(f"{where}: metric: a decision-values study's claims have metric = \"decision_loss\"")
        opponent = claim.opponent or (spec.opponents[0] if len(spec.opponents) == 1 else None)
        if opponent is None:
            raise ClaimError(f"{where}: opponent: required (the study has opponents {', '.join(spec.opponents)})")
        try:
            key = (strategies.parse_strategy(claim.a).label, strategies.parse_strategy(claim.b).label,
                   strategies.parse_strategy(opponent).label, claim.rules, claim.unit)
        except ValueError as exc:
            raise ClaimError(f"{where}: {exc}") from None
        if key not in rows:
            raise ClaimError(f"{where}: a, b, opponent, rules, unit: the study has no row {key[1]} vs {key[2]} "
                                f"({key[3]}, per {key[4]}) for player {key[0]}")
        row = rows[key]
        loss = row["loss"]
        effect = cf.conservative_effect(claim, loss["low"], loss["high"])
        cap_pairs = max(1, caps["deals" if claim.unit == "hand" else "games"] // 2)
        pairs = protocol.units(claim, effect, loss["sd"], cap_pairs, "mirrored pairs", seed)
        plan.append({"claim": claim, "key": key, "row": row, "effect": effect[0], "effect_from": effect[1],
                     "se": loss["se"], "sd": loss["sd"], "pairs": pairs,
                     "original": {"estimate": loss["estimate"], "low": loss["low"], "high": loss["high"],
                                  "n": row["size"]}})
    protocol.fix()  # the sizes are in the ledger before anything is played
    for p in plan:
        player, hybrid, opponent, rules, unit = p["key"]
        engine_seed = derive_seed(seed, player, opponent, rules, unit)
        n = 2 * p["pairs"]
        log(f"confirmation: {hybrid} vs {opponent} ({rules}, per {unit}), {n:,} {unit}s")
        diff = pair_values(player, opponent, rules, unit, n, engine_seed) - \
            pair_values(hybrid, opponent, rules, unit, n, engine_seed)
        loss = interval(diff)
        p["confirmation"] = {"estimate": loss["estimate"], "low": loss["low"], "high": loss["high"], "n": n,
                             "seed": seed}
        p["engine_seeds"] = [{"a": player, "b": hybrid, "opponent": opponent, "study": p["row"]["seed"],
                              "confirmation": engine_seed}]
        p.update(conf_se=loss["se"], units=loss["pairs"], dof=max(loss["pairs"] - 1, 1))
    entries = cf._judge(plan, protocol.level)
    for e, p in zip(entries, plan, strict=True):
        e["opponent"] = p["key"][2]
    root = Path(spec_path).resolve().parent.parent
    return cf.result_document(protocol, entries, kind="decision_values", study=spec.name,
                              experiment=cf._shown(Path(spec_path), root), claims_file=cf._shown(claims.path, root),
                              study_seed=spec.seed, seed=seed, mirrored=True, caps=caps)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulator.studies.decision_values",
                                     description="What each decision of a strong player is worth: the loss when "
                                                 "one decision is played by a donor strategy, on common deals.")
    parser.add_argument("spec", help="the study spec (TOML; format in this module's docstring)")
    parser.add_argument("--json", action="store_true", help="print decision_values.json to standard output")
    parser.add_argument("--fresh", action="store_true",
                        help="play every block again (default: keep the blocks of an earlier decision_values.json "
                             "made by this spec and ginsim version with the same sizes and seeds)")
    args = parser.parse_args(argv)
    try:
        spec = load_spec(args.spec)
    except (DecisionValuesError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = run(spec, log=(lambda text: print(text, file=sys.stderr, flush=True)) if args.json else
                 (lambda text: print(text, flush=True)), reuse=None if args.fresh else previous_rows(spec))
    paths = write_outputs(spec, result, args.spec)
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k != "cpu_seconds_unrounded"}, indent=1, sort_keys=True))
    else:
        print(f"CPU {result['cpu_seconds_unrounded']:.0f} s; wrote {', '.join(str(p) for p in paths)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
