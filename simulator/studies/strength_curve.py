"""The strength-vs-compute curve of the robust-player candidates, on development seeds.

The bar a robust player must clear under the EAAI rules (``tournament``): at least 55% of
games against **every** member of the MARJJ family (its knock windows 1-6 and the paper's
constants: the ``marjj`` family of ``experiments/field_families.toml``) and against
``expert``, and at least 80% against ``simple``.  This module measures how close each
candidate comes as it is given more compute, so that a candidate is chosen, and its claims
registered, only when the curve says it can clear the bar.

The candidates are ``mc``'s knock search on top of ``marjj``'s draws, discards and layout (the
challenger's build), with two models of the opponent in its rollouts:

* ``challenger``: rollout 4, half ``marjj`` (its three-draw knock window), half an opponent
  that knocks whenever it may;
* ``windows``: rollout 5, ``marjj`` with each knock window 1-6 of the family in turn.

Compute is the number of determinizations each searched knock plays out (``samples``);
everything else is the challenger's.  Each (candidate, samples) plays ``games`` mirrored
games against each opponent, every cell on the same development seed (common games, so
the candidates and compute levels differ by their play, not their luck).  Per row:

* the CPU seconds per game (``time.process_time`` in the worker that played it, after two
  untimed games that load the engine);
* the share of games won against each opponent with its 95% t interval over mirrored pairs;
* the minimum over the MARJJ family with Bonferroni's simultaneous interval
  (``simulator.studies.families.family_minimum``);
* whether the point estimates clear the bar (a development figure: a claim would still have
  to be registered and confirmed on fresh seeds, ``ginsim confirm``).

``ginsim bench --strength`` prints it (``--json`` the rows).
"""

from __future__ import annotations

import time

import pandas as pd

from ..run.seeds import DEVELOPMENT_SEEDS

#: the rules of the bar: the EAAI competition's
RULES = "tournament"
#: the bar: share of games against every MARJJ-family member and expert, and against simple
BAR_FAMILY = 0.55
BAR_SIMPLE = 0.80
#: the field whose ``marjj`` family the bar names
FAMILY_STUDY = "field_families"
FAMILY = "marjj"
#: the opponents outside the family the bar names
OTHERS = ("expert", "simple")

#: the candidates: name -> (what its rollouts model, the ``mc`` rollout)
CANDIDATES = {
    "challenger": ("half marjj's window of 3, half knocking whenever it may", 4),
    "windows": ("marjj with each knock window 1-6 in turn", 5),
}
#: the challenger's build with the knock searched at a given rollout and samples
SPEC = ("mc:rollout={rollout},late_knock=0,skill=5,game_aware=1,samples={samples}+first_upcard=marjj+draw=marjj"
        "+discard=marjj+layout=marjj+defence=marjj")
#: compute levels (determinizations per searched knock) and games per opponent: full, quick
SAMPLES = {False: (16, 64, 256, 1024), True: (4, 16)}
GAMES = {False: 1_000, True: 40}
#: the development seed every cell plays on
SEED = DEVELOPMENT_SEEDS[300_001]


def candidate_spec(name: str, samples: int) -> str:
    """The spec of candidate ``name`` searching each knock over ``samples`` determinizations."""
    if name not in CANDIDATES:
        raise ValueError(f"candidate must be one of {', '.join(CANDIDATES)}, got {name!r}")
    return SPEC.format(rollout=CANDIDATES[name][1], samples=samples)


def family_members() -> list[str]:
    """The MARJJ family the bar names, as ``experiments/field_families.toml`` declares it."""
    from ..run.bundled import bundled_dir
    from ..run.experiment import load_experiment

    return list(load_experiment(bundled_dir("experiments") / f"{FAMILY_STUDY}.toml").families[FAMILY])


def _play(spec: str, opponent: str, games: int, seed: int) -> tuple[pd.DataFrame, float]:
    """``games`` mirrored games of ``spec`` against ``opponent`` under the bar's rules: their
    per-cell game stats (A = ``spec``) and the CPU seconds per game of this process."""
    from .field import play_against_field

    play_against_field(spec, [opponent], {RULES: RULES}, 0, 2, seed)  # untimed: loads the engine
    start = time.process_time()
    _, stats = play_against_field(spec, [opponent], {RULES: RULES}, 0, games, seed)
    return stats, (time.process_time() - start) / games


def curve(quick: bool = False, candidates: tuple[str, ...] | None = None, samples: tuple[int, ...] | None = None,
          games: int | None = None, opponents: list[str] | None = None, jobs: int = 2, seed: int = SEED
          ) -> list[dict]:
    """Every candidate (default: all) at every compute level against every opponent (default:
    the MARJJ family, ``expert`` and ``simple``), ``jobs`` processes at a time; one row per
    (candidate, samples), in order (module docstring)."""
    from joblib import Parallel, delayed

    from .families import family_minimum

    candidates = tuple(CANDIDATES) if candidates is None else candidates
    samples = SAMPLES[quick] if samples is None else samples
    games = GAMES[quick] if games is None else games
    if games < 2 or games % 2:
        raise ValueError(f"games must be an even number of mirrored games, at least 2, got {games}")
    members = family_members()
    opponents = members + list(OTHERS) if opponents is None else opponents
    cells = [(name, s, opp) for name in candidates for s in samples for opp in opponents]
    played = Parallel(n_jobs=jobs)(delayed(_play)(candidate_spec(name, s), opp, games, seed) for name, s, opp in cells)
    rows = []
    for name in candidates:
        for s in samples:
            mine = [(opp, stats, cpu) for (n, k, opp), (stats, cpu) in zip(cells, played) if (n, k) == (name, s)]
            stats = pd.concat([st for _, st, _ in mine], ignore_index=True)
            spec = candidate_spec(name, s)
            versus = {opp: {"share": float(st["win_prob"].iloc[0]), "low": float(st["win_prob_ci_low"].iloc[0]),
                            "high": float(st["win_prob_ci_high"].iloc[0])} for opp, st, _ in mine}
            low = family_minimum(stats, spec, [m for m in members if m in versus])
            family = None if low is None else {"share": low.value, "member": low.member, "low": low.low,
                                               "high": low.high, "members": low.measured}
            clears = (family is not None and family["share"] >= BAR_FAMILY
                      and all(versus[o]["share"] >= (BAR_SIMPLE if o == "simple" else BAR_FAMILY)
                              for o in OTHERS if o in versus))
            rows.append({"candidate": name, "samples": s, "spec": spec, "games": games, "seed": seed,
                         "cpu_s_per_game": sum(cpu for _, _, cpu in mine) / len(mine), "versus": versus,
                         "family_minimum": family, "clears_bar": bool(clears)})
    return rows


def _share(v: dict | None) -> str:
    return "" if v is None else f"{v['share']:.1%} [{v['low']:.1%}, {v['high']:.1%}]"


def print_curve(rows: list[dict]) -> None:
    """The curve as a table: one line per (candidate, samples), then every cell."""
    from strategies import display_spec

    if not rows:
        return
    print(f"strength vs compute under the {RULES} rules: {rows[0]['games']:,} mirrored games per opponent, "
          f"development seed {rows[0]['seed']:,}; the bar: >= {BAR_FAMILY:.0%} against every MARJJ-family member "
          f"and expert, >= {BAR_SIMPLE:.0%} against simple")
    for name, (model, rollout) in CANDIDATES.items():
        if any(r["candidate"] == name for r in rows):
            print(f"  {name}: rollout {rollout}, its rollouts' opponent: {model}")
    print(f"{'candidate':<11} {'samples':>7} {'CPU s/game':>10}  {'MARJJ-family minimum [simultaneous 95%]':<40} "
          f"{'vs expert':<22} {'vs simple':<22} bar")
    for r in rows:
        fam = r["family_minimum"]
        low = "" if fam is None else f"{_share(fam)} ({display_spec(fam['member'])})"
        print(f"{r['candidate']:<11} {r['samples']:>7} {r['cpu_s_per_game']:>10.4f}  {low:<40} "
              f"{_share(r['versus'].get('expert')):<22} {_share(r['versus'].get('simple')):<22} "
              f"{'clears' if r['clears_bar'] else 'no'}")
    print("\nevery cell (share of games won, 95% interval):")
    for r in rows:
        cells = "; ".join(f"{display_spec(o)} {_share(v)}" for o, v in r["versus"].items())
        print(f"  {r['candidate']} samples={r['samples']}: {cells}")
