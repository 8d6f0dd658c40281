"""Experiment files: a TOML description of a grid of cells, validated into dataclasses.

    name = "knock_policy"
    seed = 20261129
    deals = 1_000_000            # single hands per cell, and/or:
    games = 10_000               # whole games per cell
    mirrored = true
    chunk = 100_000              # deals per output file; optional
    game_chunk = 5_000           # games per output file; optional
    matchups = [["simple:knock_at=0", "simple"], ["gin_hunter", "knock_early"]]
    round_robin = ["simple", "gin_hunter", "expert"]   # optional: adds every pair as a matchup
    [variants.hoyle]
    preset = "hoyle"
    [variants.oklahoma_150]
    preset = "oklahoma"
    target_score = 150
    [sweep]                      # optional: every value becomes its own cell
    "a.knock_at" = [0, 2, 4]     # strategy A's knock_at; "b." for B.  Applies to the
                                 # matchups whose strategy has that parameter; the others
                                 # get one cell with their own parameters
    [plugins]                    # optional: name = "path/to/strategy.py" (relative to the file),
                                 # or "path/to/file.py:ClassName" for a plain-Python strategy
    patient = "patient.py"
    [families]                   # optional: named groups of the matchups' players, which the
    knockers = ["simple", "knock_early"]  # field's page rates every player against (studies.families)

Cells are matchup × variant × sweep point, numbered 0, 1, … in that nesting order.
Every key is declared once, in ``SCHEMA`` (``simulator.run.config``: its type, default,
allowed values and help, from which docs/experiments.md's table is generated), and every
problem raises ``ExperimentError`` with one line naming the file and the key.

Every size is bounded before anything is planned or written, by limits derived from this
machine (``memory_budget``: half its physical memory; the file system's longest file name):
the number of cells (counted, never listed, ``Experiment.n_cells``), the rows one chunk
holds in memory, and the length of the name.  The runner adds the disk and ``--jobs``.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..infra.inputs import MAX_TOML_BYTES, human_bytes, memory_budget, memory_problem, read_toml
from ..core.rules import Rules
from .config import NAME_PATTERN  # noqa: F401  (confirm and the tuner import it from here)
from .config import NAME_TEXT, REQUIRED, Key, Schema, plugins_key, seed_key
from .limits import MAX_PER_CELL, PER_CELL_BITS

#: the largest experiment file read (an experiment is a short text, never a stream)
MAX_FILE_BYTES = MAX_TOML_BYTES


#: memory a cell takes while a run is planned (its ``Cell``, manifest entry and labels),
#: measured with tracemalloc over 100,000 cells: about 2.9 kB
BYTES_PER_CELL = 3_000
#: peak memory per row of a chunk being played and written, measured (ru_maxrss) with
#: chunks of 1,000,000 deals (about 242 B per deal) and 20,000 games (about 490 B per game)
BYTES_PER_ROW = {"deals": 250, "games": 500}
#: chunks in memory at once in one process: one played while the previous one is written
CHUNKS_IN_MEMORY = 2


def name_max(folder: Path | None) -> int:
    """The longest file name the file system of ``folder`` (default: here) allows."""
    try:
        return os.pathconf(folder if folder is not None and folder.is_dir() else ".", "PC_NAME_MAX")
    except (ValueError, OSError):  # pragma: no cover
        return 255


class ExperimentError(ValueError):
    """A bad experiment file: the message names the file and the key."""


@dataclass(frozen=True)
class Cell:
    index: int
    matchup: int
    a: str
    b: str
    variant: str
    rules: dict[str, Any]
    sweep: dict[str, int | float] = field(default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    name: str
    seed: int
    deals: int | None  # single hands per cell (rows in data/), or None
    games: int | None  # whole games per cell (rows in games/), or None
    mirrored: bool
    chunk: int  # deals per output file
    game_chunk: int  # games per output file
    matchups: list[tuple[str, str]]
    variants: dict[str, dict[str, Any]]
    sweep: dict[str, list[int | float]]  # values exactly as written in the file
    plugins: dict[str, str]
    description: str = ""
    #: named families of players (``families``): each a list of the matchups' players
    families: dict[str, list[str]] = field(default_factory=dict)

    def n_cells(self) -> int:
        """The number of cells, counted without listing them."""
        total = 0
        for a, b in self.matchups:
            keys = [k for k in self.sweep if _takes_param(a if k[0] == "a" else b, k[2:])]
            total += len(self.variants) * math.prod(len(self.sweep[k]) for k in keys)
        return total

    def cells(self) -> list[Cell]:
        cells = []
        for m, (a, b) in enumerate(self.matchups):
            keys = [k for k in self.sweep if _takes_param(a if k[0] == "a" else b, k[2:])]
            points = list(itertools.product(*(self.sweep[k] for k in keys))) if keys else [()]
            for vname, vrules in self.variants.items():
                for point in points:
                    values = dict(zip(keys, point))
                    cells.append(Cell(len(cells), m, _with_params(a, values, "a"), _with_params(b, values, "b"),
                                      vname, vrules, values))
        return cells

    def to_dict(self) -> dict[str, Any]:
        """The experiment as its manifest keeps it; ``families`` only when some are declared,
        so an experiment without them keeps the dict (and hash) it had before the key existed."""
        out = asdict(self)
        if not out["families"]:
            del out["families"]
        return out


def _takes_param(spec: str, param: str) -> bool:
    """Whether the strategy of ``spec`` has the parameter ``param``: for a built-in, read from
    ``strategies.builtin_params`` (no numba needed, so ``ginsim show`` can list a run's
    cells); otherwise from the registry."""
    from strategies.builtin_params import BUILTIN_PARAMS

    name = spec.partition(":")[0].strip()
    if name in BUILTIN_PARAMS and "+" not in spec:  # a hybrid (HOST+DECISION=DONOR) asks the registry
        return param in BUILTIN_PARAMS[name]
    import strategies

    return param in strategies.parse_strategy(spec).values


def format_value(value: int | float) -> str:
    """A parameter value as text that parses back to exactly the same number.

    >>> format_value(4.0), format_value(1234567), format_value(0.2000001)
    ('4', '1234567', '0.2000001')
    """
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def _with_params(spec: str, values: dict[str, int | float], side: str) -> str:
    extra = [f"{k[2:]}={format_value(v)}" for k, v in values.items() if k.startswith(side + ".")]
    if not extra:
        return spec
    name, _, rest = spec.partition(":")
    params = [p for p in rest.split(",") if p.strip() and p.split("=")[0].strip() not in {e.split("=")[0] for e in extra}]
    return name + ":" + ",".join(params + extra)


def read_toml_file(path: Path, what: str, error: type[ValueError]) -> dict[str, Any]:
    """The table in the TOML file ``path``, read with the limits every ginsim input file
    has (``simulator.infra.inputs.read_toml``): a regular file, never waited on, at most
    ``MAX_FILE_BYTES``, UTF-8, nested at most ``MAX_NESTING`` deep.  ``what`` names the
    kind of file in messages (e.g. "an experiment file"); every problem is one line as
    ``error``."""
    return read_toml(path, what, error, MAX_FILE_BYTES)


def load_experiment(path: str | Path, deals: int | None = None, games: int | None = None) -> Experiment:
    """Read and validate an experiment file; ``deals``/``games`` override its sizes."""
    path = Path(path)
    where = str(path)
    data = read_toml_file(path, "an experiment file", ExperimentError)
    exp = parse_experiment(data, where, path.parent, deals, games)
    for line in identical_entries(exp):
        print(f"warning: {where}: {line}", file=sys.stderr)
    return exp


def _names(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def identical_entries(exp: Experiment) -> list[str]:
    """One line per group of variants whose resolved rules are identical (equal
    ``Rules.canonical()``, e.g. ``knock_10 = {preset = "tournament", knock_limit = 10}`` and
    ``tournament``) and per group of matchups that name the same two strategies in the same
    seats (equal canonical specs); ``load_experiment`` prints them on stderr.  The report
    pools such cells into one estimate and one verdict."""
    import strategies

    def spec(text: str) -> str:
        try:
            return strategies.parse_strategy(text).label
        except (ValueError, KeyError):
            return text

    groups: dict[str, list[str]] = {}
    for vname, table in exp.variants.items():
        groups.setdefault(Rules.from_dict(table).canonical(), []).append(vname)
    lines = [f"variants {_names(names)} have identical rules; the report pools their cells"
             for names in groups.values() if len(names) > 1]
    pairs: dict[tuple[str, str], list[str]] = {}
    for i, (a, b) in enumerate(exp.matchups):
        pairs.setdefault((spec(a), spec(b)), []).append(f"matchups[{i}]")
    lines += [f"{_names(names)} are identical ({a} vs {b}); the report pools their cells"
              for (a, b), names in pairs.items() if len(names) > 1]
    return lines


def parse_experiment(data: dict[str, Any], where: str = "<experiment>", base: Path | None = None,
                     deals: int | None = None, games: int | None = None) -> Experiment:
    """Validate an experiment given as a dict (the parsed TOML) by ``SCHEMA``; ``deals`` and
    ``games`` override the file's sizes.  The first problem is a one-line ``ExperimentError``."""
    def fail(key: str, message: str) -> ExperimentError:
        return ExperimentError(f"{where}: {key}: {message}")

    SCHEMA.unknown(data, fail)
    data = dict(data)
    for key, override in (("deals", deals), ("games", games)):
        if override is not None and key not in data:
            raise fail(key, f"--{key} given, but this experiment plays no {key if key == 'games' else 'single deals'}"
                            f" (add {key} = N to the file to play them)")
        if override is not None:
            data[key] = override
    v = SCHEMA.read(data, fail, values={"_base": base})
    experiment = Experiment(name=v["name"], seed=v["seed"], deals=v["deals"], games=v["games"],
                            mirrored=v["mirrored"], chunk=v["chunk"], game_chunk=v["game_chunk"],
                            matchups=v["matchups"], variants=v["variants"], sweep=v["sweep"],
                            plugins=v["plugins"], description=v["description"], families=v["families"])
    budget = memory_budget()
    n_cells, most = experiment.n_cells(), budget // BYTES_PER_CELL
    if n_cells > most:
        raise fail("sweep" if v["sweep"] else "matchups",
                   f"{n_cells:,} cells (matchups × variants × sweep points), at most {most:,} (about "
                   f"{human_bytes(BYTES_PER_CELL)} each within {human_bytes(budget)}, half this machine's memory); "
                   f"sweep fewer values or split the experiment")
    return experiment


# ----------------------------------------------------------------------------- the keys
# Each check below validates one key beyond its type (config.Key.check: value, the values
# read so far, fail) and returns the value the experiment keeps.

def _name(name: str, values: dict[str, Any], fail) -> str:
    longest = name_max(values["_base"])
    if len(name) > longest:
        raise fail("name", f"{len(name)} characters, at most {longest} (the longest file name this file system "
                           f"allows: the name is the run directory's); shorten it")
    return name


def _size(key: str):
    def check(size: int | None, values: dict[str, Any], fail) -> int | None:
        if key == "games" and size is None and values["deals"] is None:
            raise fail("deals", "give deals (single hands per cell), games (whole games per cell), or both")
        if size is None:
            return None
        if size > MAX_PER_CELL:
            raise fail(key, f"at most 2**{PER_CELL_BITS} ({MAX_PER_CELL:,}) per cell, got {size:,}")
        if values["mirrored"] and size % 2:
            raise fail(key, "must be even with mirrored = true (they come in pairs)")
        return size
    return check


def _chunk(key: str):
    def check(chunk: int, values: dict[str, Any], fail) -> int:
        if values["mirrored"] and chunk % 2:
            raise fail(key, "must be " + SCHEMA[key].allowed)
        if key == "game_chunk":
            _chunk_memory({**values, key: chunk}, fail)
        return chunk
    return check


def _chunk_memory(values: dict[str, Any], fail) -> None:
    """The rows of one chunk of deals and of games, two chunks at once, within the memory
    budget (``simulator.infra.inputs.memory_problem``)."""
    for mode, key in (("deals", "chunk"), ("games", "game_chunk")):
        rows = min(values[key], values[mode] or 0)
        problem = memory_problem(rows, BYTES_PER_ROW[mode] * CHUNKS_IN_MEMORY, f"{mode} per file",
                                 f"give {key} = {{most}} or less", step=2)
        if problem:
            raise fail(key, problem)


def _strategy_spec(spec: str, key: str, fail) -> None:
    import strategies

    try:
        strategies.parse_strategy(spec)
    except ValueError as exc:
        raise fail(key, str(exc)) from None


def _round_robin(players: list, values: dict[str, Any], fail) -> list[str]:
    if not players:
        return []
    if len(players) < 2:
        raise fail("round_robin", "must be " + SCHEMA["round_robin"].allowed)
    for i, spec in enumerate(players):
        if not isinstance(spec, str):
            raise fail(f"round_robin[{i}]", f"must be a strategy spec (a string), got {spec!r}")
        _strategy_spec(spec, f"round_robin[{i}]", fail)
        if spec in players[:i]:
            raise fail(f"round_robin[{i}]", f"{spec!r} is listed twice")
    return list(players)


def _matchups(matchups: list, values: dict[str, Any], fail) -> list[tuple[str, str]]:
    """The matchups as written, then every pair of ``round_robin`` (read before them) in the
    order listed: for players p1 … pn, [p1, p2], [p1, p3], … [p(n-1), pn]."""
    if not matchups and not values["round_robin"]:
        raise fail("matchups", "must be " + SCHEMA["matchups"].allowed + " (or give round_robin)")
    for i, pair in enumerate(matchups):
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(s, str) for s in pair)):
            raise fail(f"matchups[{i}]", "must be a pair of strategy specs, e.g. [\"simple\", \"random\"]")
        for s in pair:
            _strategy_spec(s, f"matchups[{i}]", fail)
    return [tuple(m) for m in matchups] + list(itertools.combinations(values["round_robin"], 2))


def _variants(variants: dict, values: dict[str, Any], fail) -> dict[str, dict[str, Any]]:
    if not variants:
        raise fail("variants", "must be " + SCHEMA["variants"].allowed)
    for vname, table in variants.items():
        if not isinstance(table, dict):
            raise fail(f"variants.{vname}", "must be a table (preset = ..., field = value)")
        try:
            Rules.from_dict(table)
        except (ValueError, TypeError) as exc:
            raise fail(f"variants.{vname}", str(exc)) from None
    return variants


def _sweep(sweep: dict, values: dict[str, Any], fail) -> dict[str, list[int | float]]:
    for key, points in sweep.items():
        side, _, param = key.partition(".")
        if side not in ("a", "b") or not param:
            raise fail(f"sweep.{key}", "keys are \"a.<parameter>\" or \"b.<parameter>\"")
        if not isinstance(points, list) or not points or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in points):
            raise fail(f"sweep.{key}", "must be a non-empty list of numbers")
        for v in points:
            if isinstance(v, float) and not math.isfinite(v):
                raise fail(f"sweep.{key}", f"values must be finite numbers, got {v!r}")
            if isinstance(v, int) and abs(v) > 2**53:
                raise fail(f"sweep.{key}", f"{v} is not exactly representable as a parameter (|value| <= 2**53)")
        if len(set(map(float, points))) != len(points):
            raise fail(f"sweep.{key}", "values must be distinct")
        if not any(_takes_param(a if side == "a" else b, param) for a, b in values["matchups"]):
            raise fail(f"sweep.{key}", f"no matchup's strategy {side.upper()} has a parameter {param!r}")
    return {k: list(vs) for k, vs in sweep.items()}


def _families(families: dict, values: dict[str, Any], fail) -> dict[str, list[str]]:
    """Each family a non-empty list of distinct players of the matchups, spelled as there
    (the field's page looks their pairings up by that spelling)."""
    players = list(dict.fromkeys(s for pair in values["matchups"] for s in pair))
    for name, members in families.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise fail(f"families.{name}", "a family's name must be letters, digits or '_', starting with a letter or '_'")
        if not isinstance(members, list) or not members:
            raise fail(f"families.{name}", "must be a non-empty list of the matchups' players")
        for i, spec in enumerate(members):
            if spec not in players:
                raise fail(f"families.{name}[{i}]", f"{spec!r} is not a player of the matchups (spelled as there); "
                                                    f"players: {', '.join(players)}")
            if spec in members[:i]:
                raise fail(f"families.{name}[{i}]", f"{spec!r} is listed twice")
    return {name: list(members) for name, members in families.items()}


#: every key of an experiment file, in the order they are checked (docs/experiments.md's
#: table is generated from it: ``python -m simulator.run.docs_tables``)
SCHEMA = Schema("experiment", (
    Key("name", "name", REQUIRED, "names the run directory: `ginsim run` writes to `results/<name>` unless "
        "`--out` says otherwise", text=NAME_TEXT + " (it names the run directory)", check=_name,
        doc="At most the file system's longest file name."),
    Key("description", "str", "", "free text; the report prints it under its title", got=False),
    seed_key("Each cell plays with its own seed derived from (seed, cell number), so cells are independent "
             "and a run is reproducible from the file alone."),
    Key("mirrored", "bool", True, "deals (and games) `2p` and `2p+1` share one shuffled deck with the "
        "strategies' seats swapped", got=False,
        doc="The analysis then treats each pair as one unit (paired intervals)."),
    Key("deals", "int", None, "single hands per cell (rows in `data/`)", gt=0, check=_size("deals"),
        default_text="none", doc=f"At most 2**{PER_CELL_BITS}, even when `mirrored`. At least one of `deals` "
        "and `games` is required. `--deals N` overrides it; `--deals` on a file without `deals` is refused."),
    Key("games", "int", None, "whole games per cell (rows in `games/`)", gt=0, check=_size("games"),
        default_text="none", doc="Bounded as `deals`; `--games N` overrides it."),
    Key("chunk", "int", 100_000, "deals per output file", gt=0, text="a positive (and, mirrored, even) integer",
        got=False, check=_chunk("chunk"), doc="Results do not depend on it."),
    Key("game_chunk", "int", 5_000, "games per output file", gt=0, text="a positive (and, mirrored, even) integer",
        got=False, check=_chunk("game_chunk"), doc="As `chunk`."),
    plugins_key("experiment file"),
    Key("round_robin", "list", [], "strategies that play each other: every pair becomes a matchup",
        text="a list of at least two distinct strategy specs", got=False, check=_round_robin,
        type_text="list of specs", default_text="none",
        doc="`round_robin = [\"a\", \"b\", \"c\"]` adds the matchups `[\"a\", \"b\"]`, `[\"a\", \"c\"]`, "
            "`[\"b\", \"c\"]` (each pair once, the one listed first as A; mirrored deals seat each both "
            "ways) after any `matchups` given."),
    Key("matchups", "list", [], "the pairs of strategies to play, A then B",
        text="a non-empty list of [strategy A, strategy B] pairs", got=False, check=_matchups,
        type_text="list of `[A, B]`", default_text="required, unless `round_robin` is given",
        doc="Each strategy is a spec: a name (`ginsim strategies` lists them) optionally with parameters, "
            "`\"simple:knock_at=0\"`, `\"gin_hunter:knock_at=2,panic_stock=6\"`. Unknown strategies or "
            "parameters are refused."),
    Key("variants", "table", {"hoyle": {"preset": "hoyle"}}, "the rule sets to play, by name",
        text="a table of named rule variants", got=False, check=_variants, type_text="table of tables",
        doc="Each `[variants.NAME]` is `preset = \"<name>\"` and/or any field of `simulator.Rules` with its "
            "value (`knock_limit = 5`, `target_score = 150` ...); `ginsim variants` prints every preset with "
            "every field and [the rules](rules.md) say what each field does and which values it allows. The "
            "variant's name labels its cells."),
    Key("sweep", "table", {}, "strategy parameters to sweep: every value becomes its own cell",
        text="a table of \"a.param\" = [values]", got=False, check=_sweep,
        doc="`\"a.<param>\"` sweeps parameter `<param>` of strategy A, `\"b.<param>\"` of B; see below."),
    Key("families", "table", {}, "named families of the matchups' players, for the field's page",
        text="a table of name = [players of the matchups]", got=False, check=_families, default_text="none",
        doc="`[families] marjj = [\"marjj:knock_turns=1\", \"marjj\"]`: each member spelled as in `matchups`, "
            "none twice. Playing is unchanged; the field's page (`ginsim field`, `ginsim reproduce`) states each "
            "player's minimum win share over each family and the largest gain a member makes against it "
            "([the field](published.md#opponent-families))."),
))
TOP_KEYS = set(SCHEMA.names)
