"""A matchup's value estimated with control variates played on the same deals.

The estimators are ``simulator.analysis.stats.estimators``; this module plays what they need.
The controls with an exactly known expectation that ginsim can play today:

* ``self``: **each player's self-play on the same mirrored pairs** (A against A, B against B,
  the same decks and decision streams as A against B); ``self_a`` and ``self_b`` play only one
  of them (the cheaper player's, when one player's decisions cost far more than the other's).
  Its expectation is 0: in self-play the two seatings of a mirrored pair are exchangeable
  (docs/rules.md, "Scoring": the game is zero-sum).  Where the two players play alike, most of what decides A against B decides
  the self-plays too and the estimate's variance falls many-fold (neighbouring knock
  thresholds: about 40 times); where they play differently it explains next to nothing, and
  the two extra plays cost twice the CPU of the matchup itself.

The plain estimate is computed beside the reduced one from the same pairs, always.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..analysis.stats import estimators as est

#: the controls a matchup can be played with: name -> whose self-play (A's, B's)
CONTROLS = {"self": (True, True), "self_a": (True, False), "self_b": (False, True)}


@dataclass(frozen=True)
class Measured:
    """A matchup's value per unit (net points per hand, or share of games won, per mirrored
    pair) estimated ``plain`` and ``reduced`` from the same ``pairs``, with the CPU seconds of
    this process spent playing the matchup (``cpu_matchup``) and its controls
    (``cpu_controls``)."""

    plain: est.Estimate
    reduced: est.Estimate
    pairs: int
    cpu_matchup: float
    cpu_controls: float

    @property
    def deals_ratio(self) -> float:
        """How many times fewer pairs the reduced estimate needs for the same interval."""
        return est.deals_ratio(self.plain, self.reduced)

    @property
    def cpu_ratio(self) -> float:
        """How many times less CPU the reduced estimate needs for the same interval, its
        controls' play counted."""
        per_plain = self.cpu_matchup
        per_reduced = self.cpu_matchup + self.cpu_controls
        return self.deals_ratio * per_plain / per_reduced if per_reduced > 0 else float("nan")


def _check_control(control: str) -> None:
    if control not in CONTROLS:
        raise ValueError(f"control must be one of {', '.join(CONTROLS)}, got {control!r}")


def pair_means(hands):
    """Per mirrored pair, in pair order, the mean net points to A of a ``simulate`` frame's two
    deals (the unit ``reduce_pairs`` takes)."""
    return hands.groupby("pair", sort=True)["net_a"].mean().to_numpy(dtype="float64")


def reduce_pairs(x, spec_a: str, spec_b: str, rules, unit: str, seed: int, control: str = "self"
                 ) -> tuple[est.Estimate, float]:
    """The control-variate estimate of a matchup whose per-pair values ``x`` (pairs 0 ..
    len(x) - 1 of ``seed``, ``unit`` "hand" or "game") were played already: plays ``control``
    on the same pairs and returns the estimate and the CPU seconds its play took."""
    from .decision_values import pair_values

    _check_control(control)
    if len(x) < 2 * est.FOLDS:
        raise ValueError(f"control variates need at least {2 * est.FOLDS} mirrored pairs, got {len(x)}")
    mine = [spec for spec, used in zip((spec_a, spec_b), CONTROLS[control]) if used]
    start = time.process_time()
    controls = {f"{spec} against itself": pair_values(spec, spec, rules, unit, 2 * len(x), seed)
                for spec in dict.fromkeys(mine)}
    return est.with_controls(x, controls), time.process_time() - start


def measure(spec_a: str, spec_b: str, rules, unit: str, pairs: int, seed: int,
            control: str = "self") -> Measured:
    """``spec_a`` against ``spec_b`` on ``pairs`` mirrored pairs of deals (``unit`` "hand") or
    games ("game") of ``seed``, estimated plain and with ``control``; CPU time counted."""
    from .decision_values import pair_values

    _check_control(control)  # before the matchup is played
    start = time.process_time()
    x = pair_values(spec_a, spec_b, rules, unit, 2 * pairs, seed)
    matchup = time.process_time() - start
    reduced, cpu_controls = reduce_pairs(x, spec_a, spec_b, rules, unit, seed, control)
    return Measured(est.plain(x), reduced, pairs, matchup, cpu_controls)


#: the published matchups the variance benchmark measures: (study, A, B, rules, unit, control,
#: mirrored pairs in full, in a quick run).  variant_balance's figures are seat edges of
#: self-play, not a matchup's value, and are not among them.
CHALLENGER = ("mc:rollout=4,late_knock=0,skill=5,game_aware=1+first_upcard=marjj+draw=marjj+discard=marjj"
              "+layout=marjj+defence=marjj")
VARIANCE_MATCHUPS = (
    ("knock_vs_gin", "gin_hunter", "knock_early", "hoyle", "hand", "self", 50_000, 10_000),
    ("knock_vs_gin", "simple:knock_at=8", "simple", "classic", "hand", "self", 50_000, 10_000),
    ("strategy_tournament", "simple", "gin_hunter", "hoyle", "hand", "self", 50_000, 10_000),
    ("strategy_tournament", "defensive", "undercut_aware", "hoyle", "hand", "self", 50_000, 10_000),
    ("equilibrium_class", "knock_policy:early=10,turn_a=11,late=0,turn_b=2",
     "knock_policy:early=10,turn_a=12,late=0,turn_b=2", "classic", "hand", "self", 50_000, 10_000),
    ("challenger", CHALLENGER, "marjj", "tournament", "game", "self_b", 1_000, 200),
    ("challenger", CHALLENGER, "marjj", "tournament", "hand", "self_b", 10_000, 1_000),
)


def variance_table(quick: bool = False, seed: int = 20261205) -> list[dict]:
    """``ginsim bench --variance``: each of ``VARIANCE_MATCHUPS`` measured plain and with its
    control on the same pairs (``measure``): standard deviation per pair, how many times fewer
    pairs the reduced estimate needs, and CPU per pair of each, its controls' play counted."""
    from ..run.seeds import derive_seed

    rows = []
    for study, a, b, rules, unit, control, full, small in VARIANCE_MATCHUPS:
        pairs = small if quick else full
        m = measure(a, b, rules, unit, pairs, derive_seed(seed, study, a, b, rules, unit), control)
        rows.append({"study": study, "a": a, "b": b, "rules": rules, "unit": unit, "control": control,
                     "pairs": pairs, "plain": m.plain.as_dict(), "reduced": m.reduced.as_dict(),
                     "deals_ratio": m.deals_ratio, "cpu_ms_per_pair_plain": 1e3 * m.cpu_matchup / pairs,
                     "cpu_ms_per_pair_reduced": 1e3 * (m.cpu_matchup + m.cpu_controls) / pairs,
                     "cpu_ratio": m.cpu_ratio})
    return rows


def print_variance(rows: list[dict]) -> None:
    """The variance benchmark's table."""
    from strategies import display_spec

    print("Variance per mirrored pair, plain and with control variates, on the same pairs (this machine's CPU):")
    print(f"{'study':<20} {'matchup':<44} {'unit':<5} {'control':<7} {'pairs':>7} {'sd plain':>9} {'sd reduced':>10} "
          f"{'fewer pairs':>11} {'ms/pair plain':>13} {'ms/pair reduced':>15} {'less CPU':>8}")
    for r in rows:
        name = f"{display_spec(r['a'])} vs {display_spec(r['b'])}"
        name = name if len(name) <= 44 else name[:41] + "..."
        print(f"{r['study']:<20} {name:<44} {r['unit']:<5} {r['control']:<7} {r['pairs']:>7,} {r['plain']['sd']:>9.3f} "
              f"{r['reduced']['sd']:>10.3f} {r['deals_ratio']:>10.2f}x {r['cpu_ms_per_pair_plain']:>13.3f} "
              f"{r['cpu_ms_per_pair_reduced']:>15.3f} {r['cpu_ratio']:>7.2f}x")
    print("fewer pairs: (sd plain / sd reduced)^2, pairs needed for the same interval; less CPU: the same, per "
          "CPU-second, the controls' play counted (below 1: the reduced estimate costs more per interval)")
