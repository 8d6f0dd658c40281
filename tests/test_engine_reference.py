"""Differential tests: the numba engine against the plain-Python reference engine.

``tests/reference_engine.py`` re-implements the hand phase machine and whole games from
docs/rules.md with the brute-force oracle for every rules computation; it shares only the random
streams and the strategies' decision functions with the engine.  Here both play the same
deals (``simulator.api.play_deal_records``) and games (``simulator.api.play_game_records``)
and every record column must agree.

One column is compared by membership: ``layoff_points``.  When the defender has several
least-deadwood responses (meld 8♠8♥8♦8♣, or keep 8♥8♦8♣ and lay 8♠ on a spade run) the rules
do not say which is reported, so the engine's value must be one that *some* optimal
response gives.  The event-trace test also checks the engine's actual layoff cards.

Each rule configuration plays 2,000+ single deals across four strategy pairings (half of
them mirrored, half with A's seat drawn at random) and a few hundred whole games.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import oracle as O  # noqa: E402
import reference_engine as R  # noqa: E402

import simulator  # noqa: E402
from simulator import api  # noqa: E402
from simulator.core import constants as E  # noqa: E402  (the record columns)
from simulator.core.decisions import BY_PHASE  # noqa: E402
from simulator.core import records as RC  # noqa: E402
from simulator.core.rules import MAX_HANDS_PER_GAME  # noqa: E402
from simulator.core import state as S  # noqa: E402
from simulator.core.melds import arrangement_index_nb  # noqa: E402
from strategies import view as V  # noqa: E402
from simulator.core.cards import format_cards  # noqa: E402
from simulator.core.rules import Rules  # noqa: E402

# ---- what is played ------------------------------------------------------------------------
HAND_CONFIGS = {
    "classic": Rules.preset("classic"),
    "modern": Rules.preset("modern"),
    "hoyle": Rules.preset("hoyle"),
    "tournament": Rules.preset("tournament"),
    "oklahoma": Rules.preset("oklahoma"),
    "gin_only": Rules.preset("gin_only"),
    "single_hand": Rules.preset("single_hand"),
    "oklahoma_ace_one_spades": Rules.preset("oklahoma", oklahoma_ace="one",
                                            oklahoma_spade_double=True),
    "last_discard": Rules.preset("hoyle", last_discard_rule=True),
    "reshuffle": Rules.preset("hoyle", reshuffle_stock=True, max_reshuffles=2),
    "tie_not_undercut": Rules.preset("classic", undercut_on_tie=False),
}
# further variants, fewer deals each: edge settings of the same rules
EXTRA_HAND_CONFIGS = {
    "reshuffle_max0": Rules.preset("hoyle", reshuffle_stock=True, max_reshuffles=0),
    "reshuffle_last_discard": Rules.preset("modern", reshuffle_stock=True, max_reshuffles=1,
                                           last_discard_rule=True),
    "gin_only_big_gin_last_discard": Rules.preset("gin_only", big_gin_bonus=11,
                                                  last_discard_rule=True),
    "knock_25_big_gin": Rules.preset("hoyle", knock_limit=25, big_gin_bonus=6),
    "knock_0": Rules.preset("tournament", knock_limit=0),
}
EXTRA_DEALS_PER_PAIR = 100
GAME_CONFIGS = {
    **HAND_CONFIGS,
    "next_dealer_loser": Rules.preset("hoyle", next_dealer="loser"),
    "next_dealer_winner": Rules.preset("classic", next_dealer="winner"),
}

HAND_PAIRS = [
    ("random", "random"),
    ("simple", "knock_early"),
    ("gin_hunter", "random"),
    ("knock_early", "simple"),
]
DEALS_PER_PAIR = 500  # x 4 pairs = 2,000 deals per configuration
# random-vs-random games are mostly dead hands (random seldom knocks): too slow to replay
GAME_PAIRS = [
    ("knock_early", "random"),
    ("simple", "knock_early"),
    ("gin_hunter", "simple"),
    ("gin_hunter:panic_stock=6", "random"),
]
GAMES_PER_PAIR = 60  # x 4 pairs = 240 games per configuration
TRACED_DEALS = 25  # per pair and configuration: full event traces compared

HAND_COLS = R.HAND_COLUMNS
LAYOFF = HAND_COLS.index("layoff_points")


def test_record_layouts_agree():
    """The reference names the engine's record columns in the engine's order."""
    assert len(HAND_COLS) == E.N_HAND_COLS and LAYOFF == E.H_LAYOFF
    assert [HAND_COLS.index(c) for c in ("deal", "outcome", "points", "reshuffles", "error")] == [
        E.H_DEAL, E.H_OUTCOME, E.H_POINTS, E.H_RESHUFFLES, E.H_ERROR]
    assert len(R.GAME_COLUMNS) == E.N_GAME_COLS
    assert [R.GAME_COLUMNS.index(c) for c in ("winner", "score0", "shutout", "dead_hands")] == [
        E.G_WINNER, E.G_SCORE0, E.G_SHUTOUT, E.G_DEAD_HANDS]
    assert R.OUTCOMES == RC.OUTCOMES and R.MAX_HANDS_PER_GAME == MAX_HANDS_PER_GAME


def _seed(config: str, k: int) -> int:
    """A distinct seed per configuration and pairing; some above 2**63 (uint64 keys)."""
    base = sorted({**GAME_CONFIGS, **EXTRA_HAND_CONFIGS}).index(config) * 7919 + k * 104729 + 17
    return base if k % 2 == 0 else 2**64 - base


def _mirrored(k: int) -> bool:
    return k % 2 == 0


def _describe(result: R.HandResult) -> str:
    rec = result.record
    parts = [f"{c}={rec[c]}" for c in HAND_COLS]
    if result.final_hands:
        parts.append(f"hands at end: seat0 [{format_cards(sorted(result.final_hands[0]))}]"
                     f" seat1 [{format_cards(sorted(result.final_hands[1]))}]")
    return "; ".join(parts)


def _diff_hand(engine_row: np.ndarray, ref: R.HandResult) -> list[str]:
    """Column names where the engine row and the reference record disagree."""
    ref_row = R.hand_row(ref)
    bad = []
    for i, col in enumerate(HAND_COLS):
        if i == LAYOFF:
            if int(engine_row[i]) not in ref.layoff_options:
                bad.append(f"{col}: engine {int(engine_row[i])}, optimal responses give "
                           f"{sorted(ref.layoff_options)}")
        elif int(engine_row[i]) != ref_row[i]:
            bad.append(f"{col}: engine {int(engine_row[i])}, reference {ref_row[i]}")
    return bad


# ---- single deals ---------------------------------------------------------------------------
@pytest.mark.parametrize("config", list(HAND_CONFIGS))
def test_deals_match_reference(config):
    _check_deals(config, HAND_CONFIGS[config], DEALS_PER_PAIR, strict_coverage=True)


@pytest.mark.parametrize("config", list(EXTRA_HAND_CONFIGS))
def test_extra_variants_match_reference(config):
    _check_deals(config, EXTRA_HAND_CONFIGS[config], EXTRA_DEALS_PER_PAIR, strict_coverage=False)


def _check_deals(config: str, rules: Rules, deals_per_pair: int, strict_coverage: bool) -> None:
    outcomes: Counter = Counter()
    extras: Counter = Counter()
    failures = []
    for k, (a, b) in enumerate(HAND_PAIRS):
        seed, mirrored = _seed(config, k), _mirrored(k)
        first = 1000 * k  # not always from deal 0
        records = api.play_deal_records(a, b, rules, first, deals_per_pair, seed, mirrored)
        for i, row in enumerate(records):
            deal = first + i
            ref = R.play_deal(a, b, rules, deal, seed, mirrored)
            bad = _diff_hand(row, ref)
            if bad:
                failures.append(
                    f"[{config}] {a} vs {b}, seed={seed}, mirrored={mirrored}, deal {deal}: "
                    + " | ".join(bad) + f"\n    reference: {_describe(ref)}")
            outcomes[ref.record["outcome"]] += 1
            extras["reshuffled"] += ref.record["reshuffles"] > 0
            extras["reshuffled_twice"] += ref.record["reshuffles"] >= 2
            extras["last_chance"] += ref.last_chance
            extras["ambiguous_layoff"] += len(ref.layoff_options) > 1
            extras["doubled"] += ref.record["points"] > 0 and (
                R.score_multiplier(ref.record["upcard"], rules) == 2)
            extras["tie"] += ref.record["outcome"] == "knock" and ref.record["winner"] == -1
            extras["limit_" + str(ref.record["knock_limit"])] += 1
    assert not failures, f"{len(failures)} deals differ; first ones:\n" + "\n".join(failures[:5])

    if not strict_coverage:
        return
    # the deals must actually exercise the configuration's rules
    assert outcomes["knock"] + outcomes["gin"] > 0 and outcomes["dead"] > 0, outcomes
    if not rules.gin_only:
        assert outcomes["undercut"] > 0 and outcomes["knock"] > 0, outcomes
    else:
        assert outcomes["knock"] == outcomes["undercut"] == 0, outcomes
    if rules.big_gin_bonus:
        assert outcomes["big_gin"] > 0, outcomes
    else:
        assert outcomes["big_gin"] == 0, outcomes
    if rules.reshuffle_stock:
        assert extras["reshuffled_twice"] > 0, extras
    else:
        assert extras["reshuffled"] == 0, extras
    if rules.last_discard_rule:
        assert extras["last_chance"] > 0, extras
    if rules.oklahoma:
        assert extras["limit_1" if rules.oklahoma_ace == "one" else "limit_0"] > 0, extras
    if rules.oklahoma_spade_double:
        assert extras["doubled"] > 0, extras
    if not rules.undercut_on_tie:
        assert extras["tie"] > 0, extras


# ---- event traces -----------------------------------------------------------------------------
@pytest.mark.parametrize("config", list(HAND_CONFIGS))
def test_traces_match_reference(config):
    """The full event sequence of a deal, and the engine's layoff cards checked with the
    oracle: they can all be laid off on the knocker's melds and what the defender keeps
    has exactly the reported deadwood."""
    rules = HAND_CONFIGS[config]
    failures = []
    for k, (a, b) in enumerate(HAND_PAIRS):
        seed, mirrored = _seed(config, k), _mirrored(k)
        for deal in range(1000 * k, 1000 * k + TRACED_DEALS):
            row, events = api.trace_deal(a, b, rules, seed, deal, mirrored)
            ref = R.play_deal(a, b, rules, deal, seed, mirrored)
            where = f"[{config}] {a} vs {b}, seed={seed}, mirrored={mirrored}, deal {deal}"
            # layoff masks are the implementation's choice; a defence by arrangement is
            # compared as such (its index is an encoding)
            engine_events = [(p, e, None if e == "layoff" or (e == "defend" and v >= 0) else v)
                             for p, e, v in events]
            if engine_events != ref.events:
                n = next(i for i, (x, y) in enumerate(zip(engine_events + [None] * 9999, ref.events + [None] * 9999)) if x != y)
                failures.append(f"{where}: events differ from #{n}: engine {engine_events[n:n + 4]}"
                                f" reference {ref.events[n:n + 4]}")
                continue
            laid = [v for p, e, v in events if e == "layoff"]
            if laid:
                rec = ref.record
                knocker, defender = rec["knocker"], 1 - rec["knocker"]
                sets = next(v for p, e, v in events if e == "sets")
                runs = next(v for p, e, v in events if e == "runs")
                melds = R.split_layout(set(ref.final_hands[knocker]), sets, runs, rec["knocker_deadwood"])
                laid_cards = R.cards_of(laid[0])
                kept = sorted(set(ref.final_hands[defender]) - set(laid_cards))
                if not (set(laid_cards) <= ref.final_hands[defender]
                        and O.oracle_can_lay_all(melds, laid_cards)
                        and O.oracle_min_deadwood(kept) == rec["defender_deadwood"]
                        and O.total_value(laid_cards) == row["layoff_points"]):
                    failures.append(f"{where}: engine lays off {format_cards(laid_cards)}, not an "
                                    f"optimal response; {_describe(ref)}")
    assert not failures, f"{len(failures)} traces differ; first ones:\n" + "\n".join(failures[:5])


# ---- the views strategies are given, decision by decision -----------------------------------------
VIEW_DEALS = 12  # per pair and configuration


def _engine_action(view, answer) -> int:
    """The reference's raw strategy answer as the action the engine plays."""
    phase = int(view[V.V_PHASE])
    decision = BY_PHASE[phase]  # a yes or no: the action the table of decisions gives it
    if decision.kind == "yes_no":
        return decision.yes if answer else decision.no
    if phase == V.PHASE_DISCARD:
        return S.A_DISCARD + int(answer)
    if phase == V.PHASE_ARRANGE:
        sets, runs = (int(x) for x in answer)
        return S.A_ARRANGE + int(arrangement_index_nb(np.int64(view[V.V_HAND]), np.int64(sets), np.int64(runs)))
    if phase == V.PHASE_DEFEND:
        sets, runs = (int(x) for x in answer)
        if sets == V.DEFEND_BEST:
            return S.A_DEFEND_BEST
        return S.A_DEFEND + int(arrangement_index_nb(np.int64(view[V.V_HAND]), np.int64(sets), np.int64(runs)))
    raise AssertionError(f"no action for the answer {answer!r} in phase {phase}")


@pytest.mark.parametrize("config", list(HAND_CONFIGS))
def test_views_and_decisions_match_reference(config):
    """Stepping ``simulator.Hand`` with the strategies (``bot_action``): at every decision
    the seat to act, the whole view it is given (every slot of ``strategies.view``) and its
    action equal the reference engine's, and the hands end with equal records."""
    rules = HAND_CONFIGS[config]
    failures = []
    for k, (a, b) in enumerate(HAND_PAIRS):
        seed, mirrored = _seed(config, k), _mirrored(k)
        for deal in range(1000 * k + 100, 1000 * k + 100 + VIEW_DEALS):
            ref = R.play_deal(a, b, rules, deal, seed, mirrored)
            hand = simulator.Hand(rules, seed, deal, a=a, b=b, mirrored=mirrored)
            where = f"[{config}] {a} vs {b}, seed={seed}, mirrored={mirrored}, deal {deal}"
            i = 0
            while not hand.is_over() and not failures:
                seat = hand.current_player
                view = hand.view(seat)
                action = hand.bot_action()
                if i >= len(ref.decisions):
                    failures.append(f"{where}: the engine asks decision #{i}, the reference made {i}")
                    break
                ref_seat, ref_view, answer = ref.decisions[i]
                if seat != ref_seat or not np.array_equal(view, ref_view):
                    bad = [n for n in dir(V) if n.startswith("V_") and view[getattr(V, n)] != ref_view[getattr(V, n)]]
                    failures.append(f"{where}: decision #{i}: seat {seat} vs {ref_seat}, view slots differ: {bad}")
                elif action != _engine_action(ref_view, answer):
                    failures.append(f"{where}: decision #{i}: engine {action}, reference {answer!r}")
                hand.apply(action)
                i += 1
            if not failures and i != len(ref.decisions):
                failures.append(f"{where}: engine made {i} decisions, the reference {len(ref.decisions)}")
            bad = _diff_hand(hand.record(), ref)
            if bad:
                failures.append(f"{where}: " + " | ".join(bad))
            if failures:
                break
    assert not failures, failures[0]


# ---- whole games --------------------------------------------------------------------------------
@pytest.mark.parametrize("config", list(GAME_CONFIGS))
def test_games_match_reference(config):
    rules = GAME_CONFIGS[config]
    failures = []
    seen: Counter = Counter()
    for k, (a, b) in enumerate(GAME_PAIRS):
        seed, mirrored = _seed(config, k + 10), _mirrored(k)
        first = 500 * k
        games, hands = api.play_game_records(a, b, rules, first, GAMES_PER_PAIR, seed, mirrored,
                                             with_hands=True)
        offsets = np.concatenate([[0], np.cumsum(games[:, E.G_HANDS])])
        for i in range(GAMES_PER_PAIR):
            game = first + i
            where = f"[{config}] {a} vs {b}, seed={seed}, mirrored={mirrored}, game {game}"
            ref = R.play_game(a, b, rules, game, seed, mirrored)
            ref_row = R.game_row(ref)
            bad = [f"{col}: engine {int(games[i, j])}, reference {ref_row[j]}"
                   for j, col in enumerate(R.GAME_COLUMNS) if int(games[i, j]) != ref_row[j]]
            engine_hands = hands[offsets[i]:offsets[i + 1]]
            for h, (row, ref_hand) in enumerate(zip(engine_hands, ref.hands)):
                hand_bad = _diff_hand(row, ref_hand)
                if hand_bad:
                    bad.append(f"hand {h}: " + " | ".join(hand_bad))
                    break
            if bad:
                failures.append(f"{where}: " + " | ".join(bad))
            rec = ref.record
            seen["shutout"] += rec["shutout"]
            seen["dead"] += rec["dead_hands"] > 0
            seen["b_wins"] += rec["winner"] == 1 - rec["a_seat"]
            seen["first_dealer_1"] += rec["first_dealer"]
    assert not failures, f"{len(failures)} games differ; first ones:\n" + "\n".join(failures[:5])
    assert seen["shutout"] > 0 and seen["b_wins"] > 0, seen
    if not rules.reshuffle_stock:  # reshuffles all but remove dead hands
        assert seen["dead"] > 0, seen
    assert 0 < seen["first_dealer_1"] < len(GAME_PAIRS) * GAMES_PER_PAIR, seen


def test_game_hand_guard_matches_reference():
    """Straight gin between two random players almost never ends: the game stops after
    ``MAX_HANDS_PER_GAME`` hands without a winner, with no game bonus."""
    rules = GAME_CONFIGS["gin_only"]
    seed = 99
    games, _ = api.play_game_records("random", "random", rules, 0, 4, seed, True)
    guarded = [i for i in range(4) if games[i, E.G_WINNER] < 0]
    assert guarded, "expected a game stopped by the hand guard"
    i = guarded[0]
    ref = R.play_game("random", "random", rules, i, seed, True)
    ref_row = R.game_row(ref)
    assert ref.record["hands"] == R.MAX_HANDS_PER_GAME and ref.record["winner"] == -1
    assert list(games[i]) == ref_row, (
        f"game {i}, seed {seed}: engine {dict(zip(R.GAME_COLUMNS, games[i].tolist()))}, "
        f"reference {ref.record}")
