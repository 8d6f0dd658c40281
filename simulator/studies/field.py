"""The field: every built-in and published player rated in one table, and a new player placed in it.

The field study (``experiments/field.toml``, run by ``ginsim reproduce field``) is a round
robin of every built-in strategy, the published players among them, under the EAAI rules
(``tournament``) and ``hoyle`` scoring, single hands and whole games.  Its report
(``results/field/report.md``) has every pairing with its interval and the Holm-labelled
pairings.  This module adds what a reader of a field wants in one place
(``results/field_ratings/field.md``, written by ``ginsim reproduce field`` after the report,
and by ``ginsim field`` from an existing run):

* **ratings**: a Bradley–Terry model of the game results, one rating per player and
  variant, ``P(i beats j) = 1 / (1 + 10^((R_j − R_i) / 400))`` (the Elo scale), anchored at
  ``simple`` (the EAAI baseline) = 0.  It is fitted by weighted least squares on each
  pairing's log-odds of game wins, weighted by the inverse of its delta-method variance
  from the pairing's mirrored-pair standard error (so the pairs' correlation is counted);
  the 95% intervals come from the fit's covariance (``bradley_terry``).  A pairing one side
  won every game of counts as half a game short of that (its variance as a binomial's);
* **the matrix**: each player's game-win share against each other, marked where Holm's
  step-down method over the variant's pairings (5% family-wise) rejects an even match
  (``matrix_rows``);
* **CPU per decision**: each player's mean CPU time per decision it makes, timed call by
  call through ``simulator.Hand`` against ``simple`` under the EAAI rules, with the hands
  and games it costs (``cpu_per_decision``); the call's own overhead is what ``random``
  shows;
* **families**, when the experiment declares ``[families]`` of its players: per family,
  each player's minimum share of games over the members and its exploitability lower bound
  within the family, with simultaneous intervals (``simulator.studies.families``).

``place(spec, ...)`` plays a new player (any spec: a plug-in, a Python player, a hybrid)
against every member of the field on common mirrored deals (one seed for every opponent)
under each of the study's variants, and rates it together with the study's own results:
``ginsim field SPEC``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .families import placed_families, rank_numbers, variant_sections
from ..run.seeds import offset_seed

#: the player every rating is measured from (0 Elo): the EAAI competition's baseline
ANCHOR = "simple"
#: Elo points per natural-log unit of odds
ELO = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class Pairing:
    """One pairing's game results seen from ``a``: its win share, standard error and games."""
    a: str
    b: str
    share: float
    se: float
    games: int


def pairings(games: pd.DataFrame, variant: str) -> list[Pairing]:
    """The pairings of ``variant`` in per-cell game statistics (``simulator.analysis.stats.game_stats``
    columns), self-play left out."""
    rows = games[(games["variant"] == variant) & (games["a"] != games["b"])]
    return [Pairing(str(r.a), str(r.b), float(r.win_prob), float(r.win_prob_se), int(r.n_games))
            for r in rows.itertuples()]


def _log_odds(p: Pairing) -> tuple[float, float]:
    """(log-odds of ``a`` winning, its variance): shares clipped half a game inside (0, 1);
    the variance from the pairing's standard error by the delta method, or a binomial's
    when the error is 0 (one side won every game)."""
    half = 0.5 / max(p.games, 1)
    share = min(max(p.share, half), 1.0 - half)
    se = p.se if p.se > 0 else math.sqrt(share * (1.0 - share) / max(p.games, 1))
    return math.log(share / (1.0 - share)), (se / (share * (1.0 - share))) ** 2


def bradley_terry(games: list[Pairing], anchor: str = ANCHOR) -> pd.DataFrame:
    """Bradley–Terry ratings (Elo scale) of the players of ``games``, ``anchor`` = 0, by
    weighted least squares on the pairings' log-odds (module docstring).  Columns:
    ``player``, ``elo``, ``ci_low``, ``ci_high``, ``se``, ``opponents``, best first.  A
    player not connected to ``anchor`` by pairings cannot be rated and is refused."""
    players = sorted({p.a for p in games} | {p.b for p in games})
    if anchor not in players:
        raise ValueError(f"the field has no {anchor!r} to anchor the ratings at; players: {', '.join(players)}")
    free = [q for q in players if q != anchor]
    index = {q: i for i, q in enumerate(free)}
    x = np.zeros((len(games), len(free)))
    y = np.zeros(len(games))
    w = np.zeros(len(games))
    for k, p in enumerate(games):
        y[k], var = _log_odds(p)
        w[k] = 1.0 / var
        if p.a in index:
            x[k, index[p.a]] += 1.0
        if p.b in index:
            x[k, index[p.b]] -= 1.0
    info = x.T @ (w[:, None] * x)
    if np.linalg.matrix_rank(info) < len(free):
        raise ValueError("the pairings do not connect every player to the anchor: some ratings are undefined")
    cov = np.linalg.inv(info)
    beta = cov @ (x.T @ (w * y))
    se = np.sqrt(np.diag(cov))
    opponents = {q: len({p.b if p.a == q else p.a for p in games if q in (p.a, p.b)}) for q in players}
    rows = [{"player": anchor, "elo": 0.0, "ci_low": 0.0, "ci_high": 0.0, "se": 0.0, "opponents": opponents[anchor]}]
    for q, i in index.items():
        rows.append({"player": q, "elo": ELO * beta[i], "ci_low": ELO * (beta[i] - 1.96 * se[i]),
                     "ci_high": ELO * (beta[i] + 1.96 * se[i]), "se": ELO * se[i], "opponents": opponents[q]})
    return pd.DataFrame(rows).sort_values("elo", ascending=False, kind="stable").reset_index(drop=True)


def matrix_rows(games: list[Pairing], order: list[str]) -> pd.DataFrame:
    """Each player's game-win share against each other (rows and columns in ``order``),
    as text: the share, ``*`` where Holm's method over all the pairings given (5%
    family-wise) rejects an even match, ``·`` on the diagonal, blank where not played."""
    from scipy.stats import norm

    from ..analysis.stats import holm_adjust

    p_raw = [2 * norm.sf(abs(p.share - 0.5) / p.se) if p.se > 0 else (0.0 if p.share != 0.5 else 1.0)
             for p in games]
    adjusted = holm_adjust(np.array(p_raw)) if games else np.array([])
    cells = {}
    for p, adj in zip(games, adjusted):
        mark = "*" if adj <= 0.05 else ""
        cells[(p.a, p.b)] = f"{p.share:.1%}{mark}"
        cells[(p.b, p.a)] = f"{1 - p.share:.1%}{mark}"
    table = pd.DataFrame([[("·" if r == c else cells.get((r, c), "")) for c in order] for r in order],
                         index=pd.Index(order, name="player"), columns=order)
    return table


# ----------------------------------------------------------------------------- CPU per decision

def cpu_per_decision(player: str, rules: str = "tournament", n_deals: int = 200, seed: int = 0,
                     opponent: str = ANCHOR) -> dict:
    """``player``'s CPU time per decision against ``opponent``: ``n_deals`` mirrored deals
    stepped through ``simulator.Hand``, each of its decisions timed alone
    (``time.process_time``, so other processes' load does not count), after two untimed
    deals that load the engine.  Returns the
    decisions, the mean and the 99th percentile in microseconds, and the CPU it spends per
    hand."""
    from ..engine.hand import Hand

    times = []
    for deal in range(-2, n_deals):  # two deals first, untimed: the engine is loaded on the first call
        h = Hand(rules=rules, seed=seed, deal=max(deal, 0), a=player, b=opponent)
        while not h.is_over():
            mine = h.current_player == h.a_seat and deal >= 0
            t0 = time.process_time()
            action = h.bot_action()
            if mine:
                times.append(time.process_time() - t0)
            h.apply(action)
    t = np.array(times) * 1e6
    return {"player": player, "decisions": len(t), "mean_us": float(t.mean()), "p99_us": float(np.percentile(t, 99)),
            "cpu_ms_per_hand": float(t.sum() / 1e3 / n_deals)}


# ----------------------------------------------------------------------------- placing a new player

def play_against_field(spec: str, field: list[str], variants: dict, n_deals: int, n_games: int, seed: int
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``spec`` against every member of ``field`` under each variant (name -> rules), on
    common mirrored deals and games (``seed`` for every opponent): per-cell hand and game
    statistics, A = ``spec``."""
    from .. import api
    from ..analysis.stats import game_stats, hand_stats

    hands, games = [], []
    cell = 0
    for variant, rules in variants.items():
        for member in field:
            labels = {"cell": cell, "a": spec, "b": member, "variant": variant, "matchup": f"{spec} vs {member}"}
            if n_deals:
                hands.append(api.simulate(spec, member, rules, n_deals=n_deals, seed=seed).assign(**labels))
            if n_games:
                games.append(api.simulate_games(spec, member, rules, n_games=n_games, seed=seed).assign(**labels))
            cell += 1
    return (hand_stats(pd.concat(hands, ignore_index=True)) if hands else pd.DataFrame(),
            game_stats(pd.concat(games, ignore_index=True)) if games else pd.DataFrame())


@dataclass(frozen=True)
class FieldRun:
    """A field run read once (its manifest and chunks verified): the experiment's ``name``,
    its ``players`` in order of first appearance, its ``variants`` (name -> rules), its
    ``seed``, per-cell ``hands`` and ``games`` stats, and the ``families`` it declares
    (``[families]``; none: empty)."""

    name: str
    players: list[str]
    variants: dict
    seed: int
    hands: pd.DataFrame
    games: pd.DataFrame
    families: dict[str, list[str]]


def field_of(run_dir) -> FieldRun:
    """The field run in ``run_dir``, read and verified once; refused in one line when it
    played no whole games (the ratings are fitted on game results)."""
    from ..analysis.stats import scan_run
    from ..run.rundir import readable_run, run_path

    manifest, _ = readable_run(run_path(run_dir))
    exp = manifest["experiment"]
    if not exp.get("games"):
        raise ValueError(f"{run_path(run_dir)}: the run plays no whole games (its experiment has no `games`); the "
                         "field's ratings are fitted on game results: give a run of experiments/field.toml")
    scan = scan_run(run_dir)
    return FieldRun(name=str(exp["name"]),
                    players=list(dict.fromkeys([m for pair in exp["matchups"] for m in pair])),
                    variants={c["variant"]: c["rules"] for c in manifest["cells"]}, seed=int(exp["seed"]),
                    hands=scan.hands, games=scan.games, families=dict(exp.get("families") or {}))


def _canonical(spec: str) -> str:
    """``spec``'s canonical label (``simple:knock_at=-1`` is ``simple``: its default), or
    ``spec`` itself for a player this process cannot parse (a member's unregistered plug-in)."""
    import strategies

    try:
        return strategies.parse_strategy(spec).label
    except ValueError:
        return spec


def place(spec: str, run_dir, n_deals: int = 4_000, n_games: int = 1_000, seed: int | None = None) -> dict:
    """Rate ``spec`` in the field of ``run_dir``: play it against every member (common
    mirrored deals, ``seed`` default the study's + 1) and refit the ratings of each
    variant with the study's own pairings.  Returns per variant the rating table and
    ``spec``'s pairings (game-win share and net points per hand against each member), and
    against each family the run declares its minimum and exploitability lower bound
    (``simulator.studies.families.placed_families``)."""
    run = field_of(run_dir)
    label = _canonical(spec)
    same = next((p for p in run.players if _canonical(p) == label), None)
    if same is not None:
        raise ValueError(f"{spec!r} is in the field already (as {same!r}); give another spec or a plug-in under "
                         "another name")
    seed = offset_seed(run.seed, 1) if seed is None else seed
    new_hands, new_games = play_against_field(spec, run.players, run.variants, n_deals, n_games, seed)
    out = {}
    for variant in run.variants:
        both = pairings(run.games, variant) + (pairings(new_games, variant) if n_games else [])
        mine = new_games[new_games["variant"] == variant] if n_games else pd.DataFrame()
        hands = new_hands[new_hands["variant"] == variant] if n_deals else pd.DataFrame()
        out[variant] = {"ratings": bradley_terry(both) if n_games else None, "games": mine, "hands": hands,
                        "families": placed_families(run.families, spec, mine, hands)}
    return out



def field_command(spec: str | None, run_dir, n_deals: int, n_games: int, seed: int | None, cpu_deals: int,
                  out: str | None, register=lambda: None) -> list[str]:
    """``ginsim field [SPEC]``: without ``spec``, the field's page written (``write_field``);
    with it, ``spec`` placed in the field (``place``, after ``register`` has registered the
    command's plug-ins) and told (``placement_lines``).  The sizes are checked first, each
    refused in one line."""
    import strategies

    for flag, value in (("deals", n_deals), ("games", n_games)):
        if value < 0:
            raise ValueError(f"--{flag} must be a non-negative integer, got {value}")
    if cpu_deals < 1:
        raise ValueError(f"--cpu-deals must be a positive integer, got {cpu_deals}")
    if spec is None:
        return [f"wrote {write_field(run_dir, cpu_deals=cpu_deals, out=out)}"]
    if n_deals % 2 or n_games % 2 or not (n_deals or n_games):
        raise ValueError(f"--deals and --games must be even (mirrored pairs) and not both 0, "
                         f"got {n_deals} and {n_games}")
    register()
    strategies.parse_strategy(spec)
    return placement_lines(spec, place(spec, run_dir, n_deals=n_deals, n_games=n_games, seed=seed), n_deals, n_games)


def field_main(args, register) -> list[str]:
    """``ginsim field`` (``simulator.studies.commands.FIELD``): ``field_command`` with the
    command's options."""
    return field_command(args.spec, args.run, args.deals, args.games, args.seed, args.cpu_deals, args.out,
                         register=register)


def placement_lines(spec: str, placed: dict, n_deals: int, n_games: int) -> list[str]:
    """What ``ginsim field SPEC`` prints of ``place``'s result: per variant, the ratings with
    ``spec`` placed, its points per hand and games won against each member, and its minimum
    and exploitability lower bound against each family."""
    from .families import family_text

    lines = []
    for variant, result in placed.items():
        lines.append(f"\n{variant}: {spec} against the field ({n_deals:,} deals and {n_games:,} games per "
                     "opponent, common mirrored deals)")
        if result["ratings"] is not None:
            lines.append(f"{'rank':>4}  {'player':<28} {'Elo vs simple':>13}  95% interval")
            for i, r in result["ratings"].iterrows():
                mark = "  <- placed" if r.player == spec else ""
                lines.append(f"{i + 1:>4}  {r.player:<28} {r.elo:>+13.0f}  [{r.ci_low:+.0f}, {r.ci_high:+.0f}]{mark}")
        hands = result["hands"].set_index("b") if len(result["hands"]) else None
        games = result["games"].set_index("b") if len(result["games"]) else None
        lines.append(f"{'opponent':<28} {'points per hand [95%]':>26} {'games won [95%]':>24}")
        for b in (hands if hands is not None else games).index:
            h = (f"{hands.at[b, 'net_mean']:+.2f} [{hands.at[b, 'net_ci_low']:+.2f}, {hands.at[b, 'net_ci_high']:+.2f}]"
                 if hands is not None else "")
            g = (f"{games.at[b, 'win_prob']:.1%} [{games.at[b, 'win_prob_ci_low']:.1%}, "
                 f"{games.at[b, 'win_prob_ci_high']:.1%}]" if games is not None else "")
            lines.append(f"{b:<28} {h:>26} {g:>24}")
        if result["families"]:
            lines.append("against the study's families (simultaneous 95% intervals, Bonferroni over each family's "
                         "members):")
            lines += ["  " + family_text(name, low, gain) for name, (low, gain) in result["families"].items()]
    return lines

# ----------------------------------------------------------------------------- the field table

#: the field study's name: ``ginsim reproduce field`` plays it, writes its report, then this
#: module's page (``write_field``), so one command regenerates all of it
FIELD_STUDY = "field"


def has_ratings_page(study: str, experiment) -> bool:
    """True when ``ginsim reproduce`` also writes this module's page (``write_field``) for
    the study ``study`` (its loaded ``experiment``): the field study, and any experiment
    declaring families of players (ratings, matrix, families, CPU per decision)."""
    return study == FIELD_STUDY or bool(experiment.families)


def ratings_path(run_dir) -> Path:
    """Where ``write_field`` writes by default: ``field.md`` in a folder beside the run
    (``results/field_ratings/`` for ``results/field``), never inside it: a run directory
    holds only what ``ginsim run`` and ``ginsim report`` wrote."""
    from ..run.rundir import run_path

    run = run_path(run_dir)
    return run.parent / f"{run.name}_ratings" / "field.md"


#: the first line of the page ``write_field`` writes: it replaces only a file that starts so
FIELD_TITLE = "# The field: ratings, pairings and CPU per decision"


def check_out(path: Path) -> Path:
    """``path`` when ``write_field`` may write its page there: nothing there, or a page it
    wrote (it starts with ``FIELD_TITLE``).  A directory, a FIFO, a link
    (``check_target``, never opened) or a file ginsim did not write is refused in one line."""
    from ..infra.inputs import check_target, starts_with

    if check_target(path, "the field's page (--out)") and not starts_with(path, FIELD_TITLE):
        raise ValueError(f"--out {path} exists and was not written by ginsim field; choose another file")
    return path


def write_field(run_dir, cpu_deals: int = 200, out: Path | None = None) -> Path:
    """Write ``field.md`` (``out``, default ``ratings_path(run_dir)``; ``check_out``
    decides, before anything is played): per variant the ratings and the Holm-labelled
    matrix of game-win shares, then every player's CPU per decision under the EAAI rules.
    Written whole or not at all.  Returns the file written."""
    from strategies import display_text

    from ..analysis.rendering import atomic_write
    from ..infra.inputs import argument
    from ..run.rundir import run_path

    argument("cpu_deals", cpu_deals, "int", low=1)
    path = check_out(Path(out) if out is not None else ratings_path(run_dir))
    run = field_of(run_dir)
    study = run.name
    lines = [FIELD_TITLE, "",
             f"From the run in `{run_path(run_dir)}` (`experiments/{study}.toml`; `ginsim reproduce {study}` and "
             "`ginsim field` write this page). "
             "Ratings: Bradley–Terry on game results, Elo scale, `simple` = 0, 95% intervals "
             "(`simulator.studies.field`). Each player is numbered by its rank (#1 the strongest) and named by "
             "that number in the matrix and the family tables. Matrix: the row player's share of games won "
             "against the column player; `*` where Holm's method over the variant's pairings rejects an even "
             "match at 5%.", ""]
    for variant in run.variants:
        field_games = pairings(run.games, variant)
        rating = bradley_terry(field_games)
        lines += [f"## {variant}", "", "| rank | player | Elo vs simple | 95% interval | opponents |",
                  "|---:|---|---:|---|---:|"]
        for i, r in rating.iterrows():
            lines.append(f"| {i + 1} | `{r.player}` | {r.elo:+.0f} | [{r.ci_low:+.0f}, {r.ci_high:+.0f}] | {r.opponents} |")
        order = list(rating["player"])
        number = rank_numbers(rating)
        table = matrix_rows(field_games, order)
        lines += ["", "| | " + " | ".join(number[c] for c in order) + " |", "|---|" + "---:|" * len(order)]
        for r in order:
            lines.append(f"| {number[r]} `{r}` | " + " | ".join(table.loc[r]) + " |")
        lines.append("")
        lines += variant_sections(run.families, run.games, run.hands, variant, rating)
    lines += ["## CPU per decision (EAAI rules, against `simple`)", "",
              f"Each player's decisions timed one by one through `simulator.Hand` over {cpu_deals} mirrored deals "
              "(CPU time of this process). A call's own overhead is what `random` shows.", "",
              "| player | decisions | mean µs per decision | 99th percentile µs | CPU ms per hand |",
              "|---|---:|---:|---:|---:|"]
    for player in run.players:
        c = cpu_per_decision(player, "tournament", cpu_deals, run.seed)
        lines.append(f"| `{player}` | {c['decisions']:,} | {c['mean_us']:,.1f} | {c['p99_us']:,.1f} | "
                     f"{c['cpu_ms_per_hand']:,.2f} |")
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(check_out(path), display_text("\n".join(lines) + "\n"))  # a solved table by its name
    return path
