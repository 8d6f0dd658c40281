"""Tuning a strategy's parameters: ``ginsim tune SPEC.toml`` finds the best knock policy
against a field of opponents, then measures it on fresh deals against the baselines.

A tuning spec (TOML)::

    name = "tune_small"                  # names the study (and the default out directory)
    description = "..."                  # optional, goes into the report
    strategy = "knock_policy"            # the strategy whose parameters are tuned
    objective = "net_per_hand"           # or "game_win" (probability of winning a game)
    trials = 24                          # candidates sampled or seeded (raise it and --resume to go on)
    seed = 1                             # tuning deals, fresh deals and the sampler (per trial)
    out = "results/tune_small"           # optional, relative to the current directory;
                                         # default results/<name>; --out overrides
    rules = "hoyle"                      # a preset name, or a table: [rules] preset = ..., field = ...
    sampler = "tpe"                      # optional: tpe (default), random or cmaes
    pruner = "successive_halving"        # optional: successive_halving (default), hyperband or none
    polish = 3                           # optional: rounds of neighbour polish after the search (0: off)

    [params]                             # the search space: low/high, int when both are integers
    early = { low = 0.0, high = 10.0, step = 0.5 }
    turn_b = { low = 4, high = 20 }      # optional: type = "int" | "float", step, log = true
    [fixed]                              # optional: parameters held at a value (others: defaults)
    near_target = 0

    [[opponents]]                        # the field; the objective is the weighted mean over it
    strategy = "simple"
    weight = 1.0                         # optional, default 1
    [[opponents]]
    strategy = "gin_hunter"

    [budget]
    deals = 300_000        # per candidate at the last rung, over the whole field ("games" for game_win)
    min_deals = 33_334     # the first rung (default deals / reduction**2: three rungs)
    reduction = 3          # each rung plays reduction times the deals of the one before
    fresh_deals = 1_000_000  # per policy for the final, fresh-seed comparison

    [baselines]                          # optional; these are the defaults
    "knock as soon as legal" = "simple"
    "gin only" = "simple:knock_at=0"
    [fixed_threshold]                    # optional; the best fixed threshold baseline (false: none)
    strategy = "simple"
    param = "knock_at"
    values = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]   # default 0 .. the largest knock limit of the rules

    [[enqueue]]                          # optional: candidates to try first; "best_fixed" stands
    early = "best_fixed"                 # for the best fixed threshold found on the tuning deals
    late = "best_fixed"
    [[enqueue]]                          # a list of values tries every combination (a grid):
    early = [10, 9]                      # here knock at <= 10 or <= 9 up to draw 1, 2 or 3,
    turn_a = [1, 2, 3]                   # then drop straight to the best fixed threshold
    turn_b = 2
    late = "best_fixed"
    [plugins]                            # optional: name = "file.py", relative to the spec file

How a tuning goes (``tune``):

1. **Common random numbers.**  Opponent i of the field plays on its own fixed stream of
   mirrored deals (seed derived from (seed, "tune", i)); every candidate sees exactly the
   same deals, so differences between candidates are not luck of the deal.  The objective
   is the weighted mean over the field of net points per hand (or of game-win probability),
   each opponent playing the same number of mirrored pairs.
2. **The fixed-threshold sweep.**  ``fixed_threshold.strategy`` with ``param`` = each value
   is scored at the full budget on the tuning deals; the best value is the "best fixed
   threshold" baseline (and what ``"best_fixed"`` stands for in ``[[enqueue]]``).
3. **The search** (Optuna, ``trials`` candidates).  A candidate plays in rungs of
   increasing size (``min_deals``, × ``reduction``, ..., ``deals``); after each rung but the
   last it reports its running objective with the deals played as the step, and Optuna's
   ``SuccessiveHalvingPruner`` (or ``HyperbandPruner``) stops it unless it is among the best
   1/``reduction`` at that rung.  So the budget goes where candidates are close.
   A candidate the sampler proposes again is not played again: it gets the values of the
   first (the same deals would give the same values).
   Then a **polish**: every neighbour of the best complete trial (one step in one
   parameter) is tried the same way, and again around a new best, for up to ``polish``
   rounds; these trials come on top of ``trials``.
4. **Fresh deals.**  Picking the best of many noisy candidates flatters it (selection
   bias), so the chosen candidate (the best complete trial) and the baselines are played
   again on fresh deals (seed derived from (seed, "fresh", i)), ``fresh_deals`` each, all on
   the same deals.  The edge of the chosen policy over each baseline is a paired mean: per
   mirrored pair index p, the weighted field mean of the chosen policy minus the
   baseline's; its 95% interval is the Student t interval over those pair units
   (``simulator.analysis.stats.t_interval``).

The study lives in ``OUT/study.db`` (SQLite, Optuna's RDB storage) and ``OUT`` is locked for
the whole tuning (``simulator.run.rundir.RunLock``), so a tuning killed in any way (even
``kill -9``) continues with ``--resume`` and finds what the uninterrupted tuning finds: the
sampler is made again for every trial, seeded by the seed and the trial's number
(``simulator.studies.tune.sampler``), a trial that was cut short is played again under its
own number (``search._clear_interrupted``), and a polish round is kept before its
neighbours are queued.  Results of the sweep and the fresh comparison are kept in the
study, so a finished tuning resumed only rewrites its outputs (even after ginsim changed:
it plays nothing).  Resuming with another spec (``trials`` aside) is refused, and so is
resuming an unfinished tuning with other code or another Optuna, so one study never mixes
two versions of the game or of the sampler.  Outputs: ``best.toml`` (``strategy`` is
a spec string to paste wherever a strategy is named), ``tune.json`` (everything,
machine-readable), ``report.md``, ``report.html`` and PNG figures.

Every problem with a spec raises ``TuneError`` with one line naming the file and the key,
before anything is written.

The package, by part: ``spec`` (the format above, validated), ``field`` (playing a policy
against the field on common deals), ``sampler`` (Optuna's sampler, seeded per trial),
``search`` (the sweep, the enqueued candidates, Optuna's rungs, pruning and polish,
resuming), ``fresh`` (the fresh-deal comparison), ``tuning``
(``tune``: the locked output directory, start to end), ``outputs`` (``best.toml``,
``tune.json``, the summary over tunings) and ``report`` (one function per section).  What a
policy is in words and as a threshold by draw comes from its strategy module
(``strategies.thresholds``), never from the tuner.
"""

from .field import TUNE_SALT, Field, candidate_spec
from .fresh import fresh_result
from .outputs import (
    FIGURES,
    MARK,
    TUNE_FILES,
    best_document,
    best_toml,
    json_record,
    summary_lines,
    write_outputs,
    write_summary,
)
from .report import describe_policy, threshold_curve, tune_findings, write_report
from .search import _enqueue as _enqueue  # the tests queue candidates without a tuning
from .search import open_study, play_study
from .spec import (
    DEFAULT_BASELINES,
    MAX_TRIALS,
    OBJECTIVE_TEXT,
    OBJECTIVES,
    PRUNERS,
    SAMPLERS,
    STUDY_DB,
    TOP_KEYS,
    Budget,
    FixedSweep,
    Param,
    TuneError,
    TuneSpec,
    load_spec,
    parse_spec,
)
from .tuning import tune, tune_out_dir, tune_sids

__all__ = [
    "DEFAULT_BASELINES", "FIGURES", "MARK", "MAX_TRIALS", "OBJECTIVES", "OBJECTIVE_TEXT", "PRUNERS", "SAMPLERS",
    "STUDY_DB", "TOP_KEYS", "TUNE_FILES", "Budget", "Field", "FixedSweep", "Param", "TuneError", "TuneSpec",
    "best_document", "best_toml", "candidate_spec", "describe_policy", "fresh_result", "json_record", "load_spec",
    "open_study", "parse_spec", "play_study", "summary_lines", "TUNE_SALT", "threshold_curve", "tune",
    "tune_findings", "tune_out_dir", "tune_sids", "write_outputs", "write_report", "write_summary",
]
