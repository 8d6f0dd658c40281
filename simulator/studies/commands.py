"""The commands particular to kinds of study, declared as data: ``tune``, ``exploit`` and
``equilibrium`` play the specs of their kinds (``simulator.studies.kinds``: a kind's ``command``),
and ``field`` writes or extends the field study's page (``simulator.studies.field``).

Each ``StudyCommand`` says its name, help, options and how it runs; the command line
(``simulator.cli.parser``) adds every one of ``COMMANDS`` the same way, so it knows no study by
name.  This module imports nothing heavy: the command line reads it to build its parsers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Option:
    """One argument of a command: its ``flags`` (a positional's name, or ``--name``), its
    ``help``, what the shell completes for it (``complete``: "file", "dir" or None) and the
    rest of ``argparse``'s keywords (``type``, ``default``, ``nargs``, ``choices`` ...)."""

    flags: tuple[str, ...]
    help: str
    complete: str | None = None
    keywords: dict[str, Any] = field(default_factory=dict)


def option(*flags: str, help: str, complete: str | None = None, **keywords: Any) -> Option:
    """An ``Option`` written as ``argparse.add_argument`` is called."""
    return Option(flags, help, complete, keywords)


@dataclass(frozen=True)
class StudyCommand:
    """A study's command.  ``text`` is its one-line help, ``description`` its help page;
    ``options`` its arguments.  ``specs`` names the argument holding the spec files it plays
    through its kind (``plays_many``: a list of them, with a ``--summary`` file and a list of
    ``--json`` records); a command that plays no specs names instead ``runs``, the function
    ``"module:function"`` (``function(args, register) -> lines``, ``register`` registering the
    command's ``--plugin`` files) whose lines it prints.  ``plugins`` and ``json`` add the
    shared ``--plugin`` and ``--json`` options."""

    name: str
    text: str
    description: str
    options: tuple[Option, ...]
    specs: str | None = None
    plays_many: bool = False
    runs: str | None = None
    plugins: bool = False
    json: bool = False

    def __post_init__(self):
        if (self.specs is None) == (self.runs is None):
            raise ValueError(f"study command {self.name!r}: give exactly one of specs and runs")


_OUT_SPEC = option("--out", help="output directory (default: the spec's out, else results/<name>)")
_SUMMARY = option("--summary", help="also write one Markdown table summarising every spec's result to this file "
                                    "(default: no summary file)")
_QUIET = option("--quiet", action="store_true", help="no progress on stderr (default: progress)")

FIELD = StudyCommand(
    name="field", text="rate the field of players, or place a new player in it",
    description="Without SPEC: write the field study's ratings (Bradley-Terry, Elo scale, simple = 0, 95% "
                "intervals), its Holm-labelled matrix of game-win shares, each family's table when the study declares "
                "[families], and every player's CPU per decision to RUN_ratings/field.md beside the run "
                "(results/field_ratings/field.md; the study: ginsim reproduce field). With SPEC: play it against "
                "every member of the field on common mirrored deals under each of the study's variants and print "
                "the ratings with it placed, and its minimum and exploitability lower bound against each family "
                "(docs/published.md#the-field).",
    options=(
        option("spec", nargs="?", help="the player to place: any strategy spec, a plug-in given with --plugin "
                                       "(default: none, write the field's page)"),
        option("--run", default="results/field", complete="dir",
               help="the field study's run directory (default: results/field)"),
        option("--deals", type=int, default=4_000, help="single hands against each member (even; default 4000)"),
        option("--games", type=int, default=1_000, help="whole games against each member (even; default 1000)"),
        option("--seed", type=int, help="seed of the placement's deals (default: the study's seed + 1)"),
        option("--cpu-deals", type=int, default=200,
               help="deals over which each player's decisions are timed (default 200)"),
        option("--out", help="where the field's page goes (default: field.md in a folder beside the run, "
                             "RUN_ratings: results/field_ratings/field.md for results/field)"),
    ),
    runs="simulator.studies.field:field_main", plugins=True)

TUNE = StudyCommand(
    name="tune", text="tune a strategy's parameters against a field, then check the best on fresh deals",
    description="Tune a strategy's parameters (e.g. knock_policy's knock thresholds) against a weighted field of "
                "opponents with Optuna on common random deals, pruning candidates in rungs of growing deal counts; "
                "then play the best candidate and the baselines on fresh deals and report paired 95% intervals. "
                "Writes OUT/best.toml, report.md, report.html and figures; the study is OUT/study.db.",
    options=(
        option("spec", nargs="+", complete="file", help="tuning spec TOML file(s), e.g. experiments/tune_small.toml "
                                                        "(format: simulator/studies/tune/__init__.py)"),
        _OUT_SPEC,
        option("--resume", action="store_true",
               help="continue the study in the output directory after an interruption (even kill -9), "
                    "or rewrite a finished one's report (default: refuse a directory holding a study)"),
        _SUMMARY,
        option("--quiet", action="store_true",
               help="no progress bars (default: progress bars on stderr when it is a terminal)"),
    ),
    specs="spec", plays_many=True, json=True)

EXPLOIT = StudyCommand(
    name="exploit", text="find a best response to one fixed opponent within a policy family, and its edge",
    description="Tune a family of policies (default: knock_policy, which plays simple's draws and discards) against "
                "one fixed opponent with the tuner's common random deals, then play the best candidate on fresh "
                "mirrored deals: its edge over the opponent, with a paired 95% interval, is a lower bound on the "
                "opponent's exploitability within the family (docs/equilibrium.md). Writes the tuning's outputs "
                "into OUT (default results/exploit/<name>).",
    options=(
        option("opponent", help="the fixed opponent, a strategy spec such as simple or 'simple:knock_at=0'"),
        option("--family", metavar="SPEC", complete="file",
               help="family TOML file: a tuning spec's keys without name, rules and opponents "
                    "(default: knock_policy's thresholds, 24 trials, 60000 deals per candidate)"),
        option("--rules", default="tournament", help="rules preset (see 'ginsim variants')"),
        option("--objective", choices=["net_per_hand", "game_win"], default="net_per_hand",
               help="net points per hand, or the probability of winning a whole game (default: net_per_hand)"),
        option("--seed", type=int, default=29, help="seed of the tuning and fresh deals (default: 29)"),
        option("--out", help="output directory (default: results/exploit/<name>)"),
        option("--resume", action="store_true",
               help="continue (or rewrite the outputs of) a tuning in --out (default: refuse a non-empty --out)"),
        _QUIET,
    ),
    specs="family", json=True)

EQUILIBRIUM = StudyCommand(
    name="equilibrium", text="find an equilibrium mixture of policies (double oracle, or a finite class game)",
    description="Double oracle on a policy family: estimate the payoff matrix of a restricted set of policies on "
                "mirrored deals, solve the symmetric zero-sum meta-game by linear programming, tune a best response "
                "to its equilibrium mixture, add it and repeat until the best response gains no more than the noise. "
                "Prints the mixture, the game value, the exploitability bound (a lower bound) and the convergence; "
                "writes OUT/equilibrium.json and OUT/report.md. A spec with method = \"class\" plays instead the full "
                "payoff matrix of a finite class of draw-threshold policies and prints its equilibrium mixture, "
                "epsilon (a 95% upper bound on any member's gain against it) and the matrix size; writes "
                "OUT/class_game.json and OUT/report.md. A spec with method = \"table\" solves a state-dependent knock "
                "table by fictitious play on recorded deals and prints its value against the class equilibrium and "
                "the gain of the best response found to it (a lower bound on its exploitability); writes "
                "OUT/knock_table.json, OUT/report.md and OUT/heatmap.png (docs/equilibrium.md).",
    options=(
        option("spec", nargs="+", complete="file", help="equilibrium spec TOML file(s), e.g. "
                                                        "experiments/equilibrium_knock/tournament.toml "
                                                        "(format: simulator/studies/equilibrium.py)"),
        _OUT_SPEC,
        _SUMMARY,
        option("--resume", action="store_true",
               help="continue a run in the output directory after an interruption (even kill -9), or "
                    "rewrite a finished one's outputs (default: refuse a directory holding a run)"),
        option("--plain", action="store_true",
               help="print (and record in --json) the plain mean of the same pairs for every figure a class game "
                    "or knock table estimates with its self-play control variate: the plain matrix's equilibrium, "
                    "epsilon and support, the fresh values; files are unchanged, they hold both (default: the "
                    "controlled estimates; a double oracle's figures are plain means either way)"),
        _QUIET,
    ),
    specs="spec", plays_many=True, json=True)

#: every study command, in the order ``ginsim --help`` lists them
COMMANDS = (FIELD, TUNE, EXPLOIT, EQUILIBRIUM)


def study_command(name: str) -> StudyCommand:
    """The study command called ``name``."""
    found = next((c for c in COMMANDS if c.name == name), None)
    if found is None:
        raise ValueError(f"no study command {name!r}; study commands: {', '.join(c.name for c in COMMANDS)}")
    return found
