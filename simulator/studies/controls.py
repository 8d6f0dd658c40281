"""A matchup's value estimated with control variates played on the same deals.

The estimators are ``simulator.analysis.stats.estimators``; this module plays what they need.
The controls with an exactly known expectation that ginsim can play today:

* ``draws``: **the luck of the matchup's own stock draws** (AIVAT's chance correction,
  ``simulator.studies.draw_luck``), counted inside the kernels with the draw-value table
  fitted on development seeds (``simulator.studies.draw_values``, its digest in the
  estimate's method).  Its expectation is exactly 0 whatever the players: each draw's card
  is uniform over the stock.  For whole games each hand's luck in points is weighed by
  what a point is worth in chances of winning the game at the hand's scores (the game-win
  table, ``draw_values.load_wins``).  It replays the matchup itself, so it needs no plain
  play beside it;
* ``self``: **each player's self-play on the same mirrored pairs** (A against A, B against B,
  the same decks and decision streams as A against B); ``self_a`` and ``self_b`` play only one
  of them (the cheaper player's, when one player's decisions cost far more than the other's).
  Its expectation is known: in self-play the two seatings of a mirrored pair are exchangeable
  (docs/rules.md, "Scoring": the game is zero-sum), so A's net points per hand average 0 and
  A wins half the games (``SELF_PLAY_MEAN``; the control is the self-play's value less it).
  Where the two players play alike, most of what decides A against B decides the self-plays
  too and the estimate's variance falls many-fold (neighbouring knock thresholds: about 40
  times); where they play differently it explains next to nothing, and the two extra plays
  cost twice the CPU of the matchup itself;
* ``swap`` (with the draws: ``draws+swap``): **the hands exchanged** (``exchanged_controls``).
  For single hands, the same deals played again with their two hands exchanged, the value there
  less the value played.  For games, each hand played again from the same scores with its two
  hands exchanged, before the hand itself, and the chance of winning the game after it less
  after the hand played, summed over the game.  Either way the exchanged deal is dealt exactly
  as the deal played (exchanging the hands maps the shuffled decks one to one), so the control
  is 0 in expectation; its own draws' luck is a control too.  It needs no two players who play
  alike: on the published matchups' games it doubles what the draws save, for one more play of
  every hand;
* ``replay_b`` (with the draws: ``draws+replay_b``; whole games only): **each hand replayed by
  B's player in both seats** (``replayed_controls``): from the same scores and with the same
  random numbers, as dealt, with its two hands exchanged and from ``draw_values.REPLAY_DECKS``
  other decks (fixed permutations of the hand's deck); the chance of winning the game after the
  exchanged replay, and the mean after the other decks', each less after the replay as dealt,
  summed over the game.  Each is 0 in expectation whoever replays, since each deck replayed is
  as likely as the deck dealt.  It is meant for a player whose decisions cost far more than
  B's and mostly agree with them (the challenger, ``marjj``'s play but for its searched knock):
  B's replays cost little beside the player's own hands.  (In a mirrored pair of single deals
  one player replaying both seats sets each replay against itself, so hands have no such
  control);
* for a **seat edge** (the first mover's net points per hand, or its share of games won less
  ½, in a self-play: ``first_mover_edge``, ``measure_first_mover``), the draws' luck counted
  for the first mover and **the deal's luck** (``deal_controls``: per band of dealt deadwood,
  the first mover's hand in it less the dealer's, in a game its first hand's; 0 in expectation
  because the two hands are dealt alike) and, with ``+swap``, the hands exchanged, as above,
  counted for the first mover.  In a mirrored matchup the deal's luck cancels: each player holds each dealt hand once;
  a self-play's mirrored deals are near repeats of each other, and the exchanged hands are what
  sets its deal's luck against itself.

A control may combine the draws with a self-play (``draws+self``, ``draws+self_a``,
``draws+self_b``), with the hands exchanged or with B's replays, and the hands exchanged with a
self-play or B's replays (``draws+swap+self``, ..., ``draws+swap+replay_b``: the draws' kernel
plays the exchanged hands and B's replays of a game in one pass, each as it would alone); the
coefficients are cross-fitted together
(``simulator.analysis.stats.estimators.with_controls``).  The names are
``simulator.studies.control_names``'; ``pairs_with_controls`` plays any of them, and ``ginsim
simulate --control``, ``ginsim confirm`` (a claim's ``estimator``) and the benchmarks call it
or its parts.

The plain estimate is computed beside the reduced one from the same pairs, always.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..analysis.stats import estimators as est
from ..core import constants as C
from . import draw_values
from .control_names import CONTROLS, GAMES_ONLY, REPLAY_B, SEAT_EDGE_CONTROLS, SEAT_EDGE_SWAP, SELF_PLAY, SWAP

#: the expectation of a self-play's value per mirrored pair, by unit: net points per hand to
#: A, and the share of games A wins
SELF_PLAY_MEAN = {"hand": 0.0, "game": 0.5}


def first_mover_edge(values, unit: str) -> np.ndarray:
    """A seat edge from the first mover's values per mirrored pair (net points per hand, or
    share of games won): what it gets beyond what either seat gets without an edge
    (``SELF_PLAY_MEAN``), as the reports' first-mover edge counts it."""
    return np.asarray(values, dtype=np.float64) - SELF_PLAY_MEAN[unit]


@dataclass(frozen=True)
class Measured:
    """A matchup's value per unit (net points per hand, or share of games won, per mirrored
    pair) estimated ``plain`` and ``reduced`` from the same ``pairs``, with the CPU seconds of
    this process spent playing the matchup (``cpu_matchup``) and its controls
    (``cpu_controls``); ``replays_matchup`` when the controls' play replays the matchup
    itself (the draws), so the reduced estimate needs no plain play beside it."""

    plain: est.Estimate
    reduced: est.Estimate
    pairs: int
    cpu_matchup: float
    cpu_controls: float
    replays_matchup: bool = False

    @property
    def deals_ratio(self) -> float:
        """How many times fewer pairs the reduced estimate needs for the same interval."""
        return est.deals_ratio(self.plain, self.reduced)

    @property
    def cpu_reduced(self) -> float:
        """The CPU seconds the reduced estimate took: its controls' play, and the matchup's
        unless the controls replay it."""
        return self.cpu_controls + (0.0 if self.replays_matchup else self.cpu_matchup)

    @property
    def cpu_ratio(self) -> float:
        """How many times less CPU the reduced estimate needs for the same interval, its
        controls' play counted."""
        per_reduced = self.cpu_reduced
        return self.deals_ratio * self.cpu_matchup / per_reduced if per_reduced > 0 else float("nan")


#: deals or games ``pair_values`` plays per call
PAIR_PIECE = {"hand": 20_000, "game": 2_000}


def pair_values(spec_a: str, spec_b: str, rules: str, unit: str, n: int, seed: int,
                first_mover: bool = False) -> np.ndarray:
    """Per mirrored pair, the mean value to A (net points per hand, or games won) of
    deals / games ``0 .. n-1`` played by ``spec_a`` against ``spec_b``; ``first_mover``: to the
    seat that moves first (the non-dealer; in a game, of its first hand), whichever player
    holds it."""
    from .. import api

    values = np.empty(n, np.float64)
    piece = PAIR_PIECE[unit]
    for start in range(0, n, piece):
        count = min(piece, n - start)
        if unit == "hand":
            rec = api.play_deal_records(spec_a, spec_b, rules, start, count, seed, True)
            api.check_hand_errors(rec, spec_a, spec_b)
            to = 1 - rec[:, C.H_DEALER] if first_mover else rec[:, C.H_A_SEAT]
            sign = np.where(rec[:, C.H_WINNER] == to, 1.0, np.where(rec[:, C.H_WINNER] < 0, 0.0, -1.0))
            values[start:start + count] = sign * rec[:, C.H_POINTS]
        else:
            games, _ = api.play_game_records(spec_a, spec_b, rules, start, count, seed, True)
            api.check_game_errors(games, spec_a, spec_b)
            to = 1 - games[:, C.G_FIRST_DEALER] if first_mover else games[:, C.G_A_SEAT]
            values[start:start + count] = (games[:, C.G_WINNER] == to).astype(np.float64)
    return values.reshape(-1, 2).mean(axis=1)


def check_control(control: str, unit: str | None = None) -> None:
    """Refuse, in one line naming the allowed values, a control ``CONTROLS`` does not name, or
    one defined for whole games only (``GAMES_ONLY``) given single hands (``unit`` "hand")."""
    if control not in CONTROLS:
        raise ValueError(f"control must be one of {', '.join(CONTROLS)}, got {control!r}")
    if unit == "hand" and control in GAMES_ONLY:
        raise ValueError(f"control {control} estimates whole games only; for single hands use one of "
                         f"{', '.join(c for c in CONTROLS if c not in GAMES_ONLY)}")


def pair_means(hands):
    """Per mirrored pair, in pair order, the mean net points to A of a ``simulate`` frame's two
    deals (the unit ``reduce_pairs`` takes)."""
    return hands.groupby("pair", sort=True)["net_a"].mean().to_numpy(dtype="float64")


def reduce_pairs(x, spec_a: str, spec_b: str, rules, unit: str, seed: int, control: str = "self"
                 ) -> tuple[est.Estimate, float]:
    """The control-variate estimate of a matchup whose per-pair values ``x`` (pairs 0 ..
    len(x) - 1 of ``seed``, ``unit`` "hand" or "game") were played already: plays ``control``
    on the same pairs and returns the estimate and the CPU seconds its play took.  The draws'
    replay of the matchup must give ``x`` again exactly; a difference is refused.  A seat edge's
    ``control`` (``SEAT_EDGE_CONTROLS``) estimates the first mover's edge of ``spec_a``'s
    self-play (``first_mover_edge``), which ``x`` then holds."""
    _check_playable(control, unit)
    x = np.asarray(x, dtype=np.float64)
    if len(x) < 2 * est.FOLDS:
        raise ValueError(f"control variates need at least {2 * est.FOLDS} mirrored pairs, got {len(x)}")
    start = time.process_time()
    _, controls = pairs_with_controls(spec_a, spec_b, rules, unit, 2 * len(x), seed, control, played=x)
    return est.with_controls(x, controls), time.process_time() - start


def _check_playable(control: str, unit: str) -> None:
    """Refuse, in one line, a control ``pairs_with_controls`` cannot play in ``unit``: a
    matchup's (``check_control``) or a seat edge's (``SEAT_EDGE_CONTROLS``)."""
    if control not in SEAT_EDGE_CONTROLS:
        check_control(control, unit)


def _same_replay(replay: np.ndarray, played: np.ndarray | None, what: str, seed: int) -> None:
    """Refuse a draws' replay whose values differ from those ``played`` (None: nothing to check)."""
    if played is not None and not np.array_equal(replay, played):
        raise RuntimeError(f"the draws' replay of {what} (seed {seed}) did not give the values played; the engine "
                           "and the draw-luck kernel disagree")


def self_play_controls(spec_a: str, spec_b: str, rules, unit: str, n: int, seed: int,
                       which: str) -> dict[str, np.ndarray]:
    """The self-play controls ``which`` names (``SELF_PLAY``; any other name: none) on deals or
    games ``0 .. n - 1`` of ``seed``: per mirrored pair, each chosen player's value against
    itself less its known expectation (``SELF_PLAY_MEAN``), by name."""
    mine = [spec for spec, used in zip((spec_a, spec_b), SELF_PLAY.get(which, (False, False))) if used]
    return {f"{spec} against itself": pair_values(spec, spec, rules, unit, n, seed) - SELF_PLAY_MEAN[unit]
            for spec in dict.fromkeys(mine)}


def pairs_with_controls(spec_a: str, spec_b: str, rules, unit: str, n: int, seed: int, control: str,
                        tables: dict | None = None,
                        played: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Deals (``unit`` "hand") or games ("game") ``0 .. n - 1`` of ``seed`` played by ``spec_a``
    against ``spec_b`` with ``control`` (``CONTROLS``) on the same mirrored pairs: A's value per
    pair and each control's, centred on its known expectation, by name.  With the draws, their
    kernel plays the matchup itself (reading ``tables``, ``draw_values.draw_luck_pairs``);
    otherwise the engine does (``pair_values``), unless its values were ``played`` already,
    which the draws' replay must then give again exactly (a difference is refused).  With
    ``SWAP`` the hands are also played exchanged (``exchanged_controls``).  With a seat edge's
    control (``SEAT_EDGE_CONTROLS``) the value is the first mover's edge (``first_mover_edge``),
    not A's value, and the controls are its draws' luck and the deal's luck (``deal_controls``;
    in a game, of its first hand) and, with ``SEAT_EDGE_SWAP``, the hands exchanged."""
    _check_playable(control, unit)
    edge = control in SEAT_EDGE_CONTROLS
    parts = control.split("+")
    controls = {}
    if "draws" in parts:
        pairs = draw_values.draw_luck_pairs(spec_a, spec_b, rules, unit, n, seed, tables, first_mover=edge,
                                            exchange_hands=SWAP in parts and unit == "game",
                                            replay_b=REPLAY_B in parts)
        x = first_mover_edge(pairs.values, unit) if edge else pairs.values
        _same_replay(x, played, f"{spec_a} vs {spec_b}" + (" (the first mover's)" if edge else ""), seed)
        controls = draws_controls(pairs, parts, spec_a, spec_b, rules, unit, n, seed, tables, edge)
    else:
        x = pair_values(spec_a, spec_b, rules, unit, n, seed) if played is None else played
    controls.update(self_play_controls(spec_a, spec_b, rules, unit, n, seed, parts[-1]))
    return x, controls


def draws_controls(pairs, parts: list[str], spec_a: str, spec_b: str, rules, unit: str, n: int, seed: int,
                   tables: dict | None, edge: bool) -> dict[str, np.ndarray]:
    """The controls of a draws' control whose ``+``-separated ``parts`` are given, per mirrored
    pair, from the draws' replay ``pairs`` (``draw_values.LuckPairs``, played with the hands
    exchanged and B's replays when ``parts`` need them): the draws' luck, for a seat edge
    (``edge``) the deal's luck, and the hands exchanged (``exchanged_controls``) and B's replays
    (``replayed_controls``) when named.  The one place a draws' control is put together, whether
    its replay served one control or several."""
    controls = {pairs.name: pairs.luck}
    if edge:
        controls |= deal_controls(pairs.dealt[:, 0], pairs.dealt[:, 1])
    if SWAP in parts:
        controls |= exchanged_controls(pairs, spec_a, spec_b, rules, unit, n, seed, tables, edge)
    if REPLAY_B in parts:
        controls |= replayed_controls(pairs, spec_b)
    return controls


def games_with_controls(spec_a: str, spec_b: str, rules, n: int, seed: int, names: tuple[str, ...],
                        tables: dict | None = None) -> tuple[np.ndarray, dict[str, dict[str, np.ndarray]]]:
    """Games ``0 .. n - 1`` of ``seed`` played once by the draws' kernel, with each hand exchanged
    and B's replays of it when ``names`` need them, and each of ``names`` (controls of the draws
    with the hands exchanged, B's replays or both: no self-play) estimated from that one pass:
    A's share of games won per mirrored pair and, by name, each control's controls as
    ``pairs_with_controls`` gives them (the kernel plays the exchanged hands and the replays
    each exactly as it would alone).  A name outside that set is refused in one line."""
    allowed = (f"draws+{SWAP}", f"draws+{REPLAY_B}", f"draws+{SWAP}+{REPLAY_B}")
    for name in names:
        if name not in allowed:
            raise ValueError(f"control must be one of {', '.join(allowed)} for games played in one pass, got {name!r}")
    wanted = {part for name in names for part in name.split("+")}
    pairs = draw_values.draw_luck_pairs(spec_a, spec_b, rules, "game", n, seed, tables,
                                        exchange_hands=SWAP in wanted, replay_b=REPLAY_B in wanted)
    return pairs.values, {name: draws_controls(pairs, name.split("+"), spec_a, spec_b, rules, "game", n, seed, tables,
                                               False) for name in names}


def exchanged_controls(pairs, spec_a: str, spec_b: str, rules, unit: str, n: int, seed: int,
                       tables: dict | None, first_mover: bool) -> dict[str, np.ndarray]:
    """The controls of the hands exchanged (``SWAP``), per mirrored pair, for the matchup whose
    draws' replay gave ``pairs`` (``draw_values.LuckPairs``): for hands, the same deals played
    again with their two hands exchanged, the value counted there less the value played, and
    their draws' luck; for games (played with ``exchange_hands``), each hand played again from
    the same scores with its hands exchanged, the chance of winning the game after it less after
    the hand played, summed over the game, and those hands' draws' luck.  Each is 0 in
    expectation: exchanging the hands maps the shuffled decks one to one."""
    if unit == "game":
        return {"each hand played again with its hands exchanged: the chance of winning after it": pairs.exchanges[:, 0],
                f"their {pairs.name}": pairs.exchanges[:, 1]}
    swapped = draw_values.draw_luck_pairs(spec_a, spec_b, rules, unit, n, seed, tables, first_mover=first_mover,
                                          swap=True)
    return {"the same deals with the hands exchanged": swapped.values - pairs.values,
            f"their {pairs.name}": swapped.luck}


def replayed_controls(pairs, spec_b: str) -> dict[str, np.ndarray]:
    """The controls of each hand of a game replayed by B's player in both seats (``REPLAY_B``),
    per mirrored pair, for the games whose draws' replay gave ``pairs`` (played with
    ``replay_b``): the chance of winning the game after the replay with the hands exchanged, and
    the mean chance after the replays from other decks, each less the chance after the replay as
    dealt, summed over the game.  Each is 0 in expectation: the decks replayed are as likely as
    the deck dealt, and B plays each with the same random numbers."""
    from strategies import display_spec

    who = f"each hand replayed by {display_spec(spec_b)} in both seats"
    return {f"{who}, its hands exchanged: the chance of winning after it": pairs.replays[:, 0],
            f"{who}, from {draw_values.REPLAY_DECKS} other decks: the chance of winning after them": pairs.replays[:, 1]}


def measure(spec_a: str, spec_b: str, rules, unit: str, pairs: int, seed: int,
            control: str = "self") -> Measured:
    """``spec_a`` against ``spec_b`` on ``pairs`` mirrored pairs of deals (``unit`` "hand") or
    games ("game") of ``seed``, estimated plain and with ``control``; CPU time counted."""
    check_control(control, unit)  # before the matchup is played
    warm_up(spec_a, spec_b, rules, unit, seed, (control,))
    start = time.process_time()
    x = pair_values(spec_a, spec_b, rules, unit, 2 * pairs, seed)
    return _measured(x, time.process_time() - start, spec_a, spec_b, rules, unit, seed, control)


#: mirrored pairs ``warm_up`` plays of a matchup and of each control before any is timed
WARM_PAIRS = 10


def warm_up(spec_a: str, spec_b: str, rules, unit: str, seed: int, controls: tuple[str, ...],
            first_mover: bool = False) -> None:
    """Play the first ``WARM_PAIRS`` mirrored pairs of ``seed`` plain and with each of
    ``controls``, untimed, so that each timing that follows counts the play alone: the first call
    of an engine or a draws' kernel in a process loads its compiled code (or compiles it), which
    on a light matchup costs as much as tens of thousands of its pairs.  Nothing is kept: the
    timed plays replay the same pairs from their seeds.  The controls are given the plain values
    played here, as the timed ones are, so a control without the draws does not play the matchup
    again, and one with them checks its replay against them."""
    x = pair_values(spec_a, spec_b, rules, unit, 2 * WARM_PAIRS, seed, first_mover=first_mover)
    played = first_mover_edge(x, unit) if first_mover else x
    for control in controls:
        pairs_with_controls(spec_a, spec_b, rules, unit, 2 * WARM_PAIRS, seed, control, played=played)


def _measured(x, cpu_matchup: float, spec_a: str, spec_b: str, rules, unit: str, seed: int,
              control: str) -> Measured:
    """The matchup's per-pair values ``x``, played in ``cpu_matchup`` seconds, estimated plain
    and with ``control`` played on the same pairs (``reduce_pairs``)."""
    reduced, cpu_controls = reduce_pairs(x, spec_a, spec_b, rules, unit, seed, control)
    return Measured(est.plain(x), reduced, len(x), cpu_matchup, cpu_controls, "draws" in control.split("+"))


#: the controls of a light matchup's row (the challenger's hands skip the hands exchanged: for a
#: matchup's single hands they saved no more, on development seeds, than doubling the pairs
#: does, and two more plays of the challenger's pairs would cost many minutes); a light matchup's
#: games also take B's replays, alone and with the hands exchanged
LIGHT = ("self", "draws", "draws+self", f"draws+{SWAP}", f"draws+{SWAP}+self")
LIGHT_GAMES = (*LIGHT, f"draws+{REPLAY_B}", f"draws+{SWAP}+{REPLAY_B}")
CHALLENGER = ("mc:rollout=4,late_knock=0,skill=5,game_aware=1+first_upcard=marjj+draw=marjj+discard=marjj"
              "+layout=marjj+defence=marjj")
#: the published matchups the variance benchmark measures: (study, A, B, rules, unit, controls,
#: mirrored pairs in full, in a quick run), each control measured on the same pairs.
#: variant_balance's figures are seat edges of self-play, not a matchup's value: they are
#: ``VARIANCE_SEAT_EDGES``.
VARIANCE_MATCHUPS = (
    ("knock_vs_gin", "gin_hunter", "knock_early", "hoyle", "hand", LIGHT, 50_000, 10_000),
    ("knock_vs_gin", "simple:knock_at=8", "simple", "classic", "hand", LIGHT, 50_000, 10_000),
    ("strategy_tournament", "simple", "gin_hunter", "hoyle", "hand", LIGHT, 50_000, 10_000),
    ("strategy_tournament", "defensive", "undercut_aware", "hoyle", "hand", LIGHT, 50_000, 10_000),
    ("equilibrium_class", "knock_policy:early=10,turn_a=11,late=0,turn_b=2",
     "knock_policy:early=10,turn_a=12,late=0,turn_b=2", "classic", "hand", LIGHT, 50_000, 10_000),
    ("challenger", CHALLENGER, "marjj", "tournament", "game",
     ("self_b", "draws", "draws+self_b", f"draws+{SWAP}", f"draws+{REPLAY_B}", f"draws+{SWAP}+{REPLAY_B}"), 1_000,
     200),
    ("challenger", CHALLENGER, "marjj", "tournament", "hand", ("self_b", "draws", "draws+self_b"), 10_000, 1_000),
    ("knock_vs_gin", "gin_hunter", "knock_early", "hoyle", "game", LIGHT_GAMES, 10_000, 2_000),
    ("knock_vs_gin", "simple:knock_at=8", "simple", "classic", "game", LIGHT_GAMES, 10_000, 2_000),
    ("strategy_tournament", "simple", "gin_hunter", "hoyle", "game", LIGHT_GAMES, 10_000, 2_000),
    ("strategy_tournament", "defensive", "undercut_aware", "hoyle", "game", LIGHT_GAMES, 10_000, 2_000),
)


#: the published seat edges the benchmark measures: variant_balance's self-play of ``simple``
#: under three rule sets, the first mover's (the non-dealer's) edge per hand and per game: (study,
#: player, rules, unit, mirrored pairs in full, in a quick run)
VARIANCE_SEAT_EDGES = (
    ("variant_balance", "simple", "tournament", "hand", 50_000, 10_000),
    ("variant_balance", "simple", "oklahoma", "hand", 50_000, 10_000),
    ("variant_balance", "simple", "gin_only", "hand", 50_000, 10_000),
    ("variant_balance", "simple", "tournament", "game", 10_000, 2_000),
    ("variant_balance", "simple", "oklahoma", "game", 10_000, 2_000),
    ("variant_balance", "simple", "gin_only", "game", 10_000, 2_000),
)


def measure_first_mover(spec: str, rules, pairs: int, seed: int,
                        controls: tuple[str, ...] = SEAT_EDGE_CONTROLS, unit: str = "hand") -> dict[str, Measured]:
    """The first mover's edge (the non-dealer's net points per hand, or its share of games won
    less ½, ``first_mover_edge``) in ``spec``'s self-play on ``pairs`` mirrored pairs of deals or
    games (``unit``) of ``seed``, played once, estimated plain and with each of a seat edge's
    ``controls`` (``reduce_pairs``; a seat edge has no self-play control: it is a self-play), by
    control; CPU time counted.  The draws' replay must give the plain play's values exactly; a
    difference is refused."""
    warm_up(spec, spec, rules, unit, seed, controls, first_mover=True)
    start = time.process_time()
    x = first_mover_edge(pair_values(spec, spec, rules, unit, 2 * pairs, seed, first_mover=True), unit)
    cpu_matchup = time.process_time() - start
    return {control: _measured(x, cpu_matchup, spec, spec, rules, unit, seed, control) for control in controls}


#: the edges of the bands of a dealt hand's least deadwood the deal's luck is counted in
#: (50 and more is the band left out: the bands' controls would otherwise sum to 0); chosen on
#: a pilot, development seed 1,300,901, 20,000 deals of ``simple``'s self-play.  Claims confirmed
#: with ``SEAT_EDGE_CONTROLS`` read them, so other bands would be another estimator, under a new name
DEAL_BANDS = (0, 5, 10, 15, 20, 25, 30, 35, 40, 50)


def deal_controls(first: np.ndarray, dealer: np.ndarray) -> dict[str, np.ndarray]:
    """The deal's luck for a seat edge (AIVAT's correction at the deal): per band of
    ``DEAL_BANDS``, whether the first mover's dealt deadwood ``first`` is in it less whether the
    dealer's ``dealer`` is.  Each has expectation exactly 0, since the two hands are dealt alike
    (exchangeable); their coefficients are the estimator's, cross-fitted, so any weighting of
    the bands stays unbiased."""
    return {f"deal: deadwood {lo}-{hi - 1}": ((first >= lo) & (first < hi)).astype(float)
            - ((dealer >= lo) & (dealer < hi)).astype(float) for lo, hi in zip(DEAL_BANDS[:-1], DEAL_BANDS[1:])}


def _row(study: str, a: str, b: str, rules, unit: str, control: str, of: str, m: Measured) -> dict:
    """One row of the variance benchmark: what was measured (``of``: "A", or "first mover" for a
    seat edge) and its two estimates, the pairs the reduced one saves and the CPU of each."""
    return {"study": study, "a": a, "b": b, "rules": rules, "unit": unit, "of": of, "control": control,
            "pairs": m.pairs, "plain": m.plain.as_dict(), "reduced": m.reduced.as_dict(),
            "deals_ratio": m.deals_ratio, "cpu_ms_per_pair_plain": 1e3 * m.cpu_matchup / m.pairs,
            "cpu_ms_per_pair_reduced": 1e3 * m.cpu_reduced / m.pairs, "cpu_ratio": m.cpu_ratio}


def variance_table(quick: bool = False, seed: int = 20261205) -> list[dict]:
    """``ginsim bench --variance``: each of ``VARIANCE_MATCHUPS`` measured plain and with each
    of its controls on the same pairs (``measure``), then each seat edge of
    ``VARIANCE_SEAT_EDGES`` plain and with each seat edge's control (``measure_first_mover``): standard
    deviation per pair, how many times fewer pairs the reduced estimate needs, and CPU per pair
    of each, its controls' play counted."""
    from ..run.seeds import derive_seed

    rows = []
    for study, a, b, rules, unit, controls, full, small in VARIANCE_MATCHUPS:
        pairs = small if quick else full
        matchup_seed = derive_seed(seed, study, a, b, rules, unit)
        warm_up(a, b, rules, unit, matchup_seed, controls)
        start = time.process_time()
        x = pair_values(a, b, rules, unit, 2 * pairs, matchup_seed)
        cpu_matchup = time.process_time() - start
        for control in controls:
            m = _measured(x, cpu_matchup, a, b, rules, unit, matchup_seed, control)
            rows.append(_row(study, a, b, rules, unit, control, "A", m))
    for study, spec, rules, unit, full, small in VARIANCE_SEAT_EDGES:
        # a hand's edge keeps the seed its rows were first published with
        edge_seed = derive_seed(seed, study, spec, rules, "edge", *(() if unit == "hand" else (unit,)))
        for control, m in measure_first_mover(spec, rules, small if quick else full, edge_seed, unit=unit).items():
            rows.append(_row(study, spec, spec, rules, unit, control, "first mover", m))
    return rows


#: deals per matchup of the unbiasedness check, in full and in a quick run
UNBIASED_DEALS = (10_000_000, 200_000)
#: games per matchup or seat edge of the unbiasedness check, in full and in a quick run: in full, at
#: least the hand rows' ten million deals (the published games last 5.7 to 15.2 hands)
UNBIASED_GAMES = (1_800_000, 20_000)
#: the controls the unbiasedness check estimates a light matchup's games with, all from one pass
#: of the draws' kernel (``games_with_controls``)
UNBIASED_GAME_CONTROLS = (f"draws+{SWAP}", f"draws+{REPLAY_B}", f"draws+{SWAP}+{REPLAY_B}")


def unbiasedness_table(quick: bool = False, seed: int = 20261206) -> list[dict]:
    """``ginsim bench --unbiased``: each published matchup of ``VARIANCE_MATCHUPS`` whose players
    are light (the challenger's 3 ms a hand would take days), its hands on ``UNBIASED_DEALS``
    deals with the draws' luck and its games on ``UNBIASED_GAMES`` games, played once, with each of
    ``UNBIASED_GAME_CONTROLS`` (the hands exchanged, B's replays, both: ``games_with_controls``),
    then each seat edge of whole games of ``VARIANCE_SEAT_EDGES`` with ``draws+deal+swap``:
    estimated plain and reduced from the same units, with each control's own mean (each exactly 0
    in expectation) and interval, and the CPU seconds of the play the row was estimated from (a
    matchup's game rows share one)."""
    from ..run.seeds import derive_seed

    deals, games = UNBIASED_DEALS[1 if quick else 0], UNBIASED_GAMES[1 if quick else 0]
    plan = [(study, a, b, rules, unit, ("draws",) if unit == "hand" else UNBIASED_GAME_CONTROLS, "A")
            for study, a, b, rules, unit, *_ in VARIANCE_MATCHUPS if CHALLENGER not in (a, b)]
    plan += [(study, spec, spec, rules, unit, (SEAT_EDGE_SWAP,), "first mover")
             for study, spec, rules, unit, *_ in VARIANCE_SEAT_EDGES if unit == "game"]
    rows = []
    for study, a, b, rules, unit, names, of in plan:
        n = deals if unit == "hand" else games
        start = time.process_time()
        # a hand matchup keeps the seed its rows were first published with
        path = (study, a, b, rules) if (unit, of) == ("hand", "A") else (study, a, b, rules, unit, of)
        matchup_seed = derive_seed(seed, "unbiased", *path)
        if names == UNBIASED_GAME_CONTROLS:
            x, made_by = games_with_controls(a, b, rules, n, matchup_seed, names)
        else:
            x, made = pairs_with_controls(a, b, rules, unit, n, matchup_seed, names[0])
            made_by = {names[0]: made}
        cpu = time.process_time() - start
        plain = est.plain(x)  # a matchup's game rows share their games
        for control, made in made_by.items():
            reduced = est.with_controls(x, made)
            means = {name: est.plain(c).as_dict() for name, c in made.items()}
            rows.append({"study": study, "a": a, "b": b, "rules": rules, "unit": unit, "of": of, "control": control,
                         "deals": n, "plain": plain.as_dict(), "reduced": reduced.as_dict(), "controls": means,
                         "luck": next(iter(means.values())),
                         "intervals_overlap": bool(plain.low <= reduced.high and reduced.low <= plain.high),
                         "controls_covering_0": sum(m["low"] <= 0.0 <= m["high"] for m in means.values()),
                         "cpu_s": cpu})
    return rows


def _matchup_key(row: dict) -> tuple:
    """What a benchmark row measures, whatever its control: the study, players, rules, unit and
    whose value (A's, or the first mover's)."""
    return row["study"], row["a"], row["b"], row["rules"], row["unit"], row["of"]


def _matchup_name(row: dict) -> str:
    """A benchmark row's matchup as its table prints it: A vs B, cut to 44 characters."""
    from strategies import display_spec

    name = f"{display_spec(row['a'])} vs {display_spec(row['b'])}"
    if row.get("of") == "first mover":
        name = f"{display_spec(row['a'])} self-play, {row['rules']}: first mover"
    return name if len(name) <= 44 else name[:41] + "..."


#: the width of the benchmarks' control column: the longest control's name
CONTROL_WIDTH = max(map(len, (*CONTROLS, *SEAT_EDGE_CONTROLS)))


def print_unbiasedness(rows: list[dict]) -> None:
    """The unbiasedness check's table: per matchup, the plain and the reduced estimate from the
    same units and the draws' mean luck, then every other control's mean."""
    print("Plain and reduced estimates on the same units (A's net points per hand, A's share of games won, or the "
          "first mover's edge), and the controls' means (each exactly 0 in expectation):")
    print(f"{'study':<20} {'matchup':<44} {'unit':<5} {'control':<{CONTROL_WIDTH}} {'deals':>11} "
          f"{'plain [95%]':>26} {'reduced [95%]':>26} {'mean luck [95%]':>26}")
    means = {}  # each control of each matchup once: a matchup's game rows share their games
    for r in rows:
        name = _matchup_name(r)
        cells = [f"{e['value']:+.4f} [{e['low']:+.4f}, {e['high']:+.4f}]" for e in (r["plain"], r["reduced"], r["luck"])]
        print(f"{r['study']:<20} {name:<44} {r['unit']:<5} {r['control']:<{CONTROL_WIDTH}} {r['deals']:>11,} "
              f"{cells[0]:>26} {cells[1]:>26} {cells[2]:>26}")
        luck = next(iter(r["controls"]))  # printed in the row itself
        for control, m in r["controls"].items():
            key = (*_matchup_key(r), control)
            if key not in means and control != luck:
                print(f"{'':<20} mean of {control}: {m['value']:+.5f} [{m['low']:+.5f}, {m['high']:+.5f}]")
            means[key] = m
    covering = sum(m["low"] <= 0.0 <= m["high"] for m in means.values())
    print("the plain and reduced intervals overlap in " + f"{sum(r['intervals_overlap'] for r in rows)} of {len(rows)}; "
          f"the controls' intervals cover 0 in {covering} of {len(means)} (at 95%, about one in twenty misses by "
          f"chance)")


def print_variance(rows: list[dict]) -> None:
    """The variance benchmark's table."""
    print("Variance per mirrored pair, plain and with control variates, on the same pairs (this machine's CPU):")
    print(f"{'study':<20} {'matchup':<44} {'unit':<5} {'control':<{CONTROL_WIDTH}} {'pairs':>7} {'sd plain':>9} "
          f"{'sd reduced':>10} {'fewer pairs':>11} {'ms/pair plain':>13} {'ms/pair reduced':>15} {'less CPU':>8}")
    for r in rows:
        name = _matchup_name(r)
        print(f"{r['study']:<20} {name:<44} {r['unit']:<5} {r['control']:<{CONTROL_WIDTH}} {r['pairs']:>7,} "
              f"{r['plain']['sd']:>9.3f} {r['reduced']['sd']:>10.3f} {r['deals_ratio']:>10.2f}x "
              f"{r['cpu_ms_per_pair_plain']:>13.3f} {r['cpu_ms_per_pair_reduced']:>15.3f} {r['cpu_ratio']:>7.2f}x")
    fewest, cheapest = best_rows(rows), best_rows(rows, "cpu_ratio")
    pairs = [r["deals_ratio"] for r in fewest.values()]
    cpu = [r["cpu_ratio"] for r in cheapest.values()]
    print(f"the best control of each of the {len(pairs)} matchups and seat edges: a median of "
          f"{float(np.median(pairs)):.2f}x fewer pairs ({min(pairs):.2f}x to {max(pairs):.2f}x); per CPU-second, "
          f"the best of each: a median of {float(np.median(cpu)):.2f}x less CPU ({min(cpu):.2f}x to {max(cpu):.2f}x)")
    print("fewer pairs: (sd plain / sd reduced)^2, pairs needed for the same interval; less CPU: the same, per "
          "CPU-second, the controls' play counted (below 1: the reduced estimate costs more per interval)")
    print("Which control to use, per matchup and seat edge: the one needing the fewest pairs, and the one needing "
          "the least CPU for the same interval (the plain estimate when no control saves CPU):")
    for key, r in fewest.items():
        c = cheapest[key]
        least_cpu = (f"{c['control']} ({c['cpu_ratio']:.2f}x)" if c["cpu_ratio"] > 1.0
                     else f"the plain estimate (the best control, {c['control']}, {c['cpu_ratio']:.2f}x)")
        print(f"{r['study']:<20} {_matchup_name(r):<44} {r['unit']:<5} fewest pairs: {r['control']} "
              f"({r['deals_ratio']:.2f}x); least CPU: {least_cpu}")


def best_rows(rows: list[dict], saving: str = "deals_ratio") -> dict[tuple, dict]:
    """Per matchup or seat edge of the variance table (its study, players, rules, unit and what
    is measured), the row of the control that saves the most: pairs (``deals_ratio``), or CPU
    for the same interval (``cpu_ratio``); the first such row on a tie."""
    best: dict[tuple, dict] = {}
    for r in rows:
        key = _matchup_key(r)
        if key not in best or r[saving] > best[key][saving]:
            best[key] = r
    return best
