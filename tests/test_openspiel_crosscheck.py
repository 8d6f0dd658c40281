"""Cross-check against OpenSpiel: replay our ``single_hand`` deals move by move through
``pyspiel``'s ``gin_rummy`` and demand identical scores.

For every deal, ``simulator.api.trace_deal`` gives the events of one hand.  The replay
builds an OpenSpiel state that receives exactly our cards (chance outcomes chosen to
match the deal, the upcard and every stock draw), applies our players' decisions as
OpenSpiel actions, lays the knocker's melds exactly as our knocker laid them, lets the
defender play its *best response inside OpenSpiel's own action space* (found here by
exhaustive search over OpenSpiel's legal layoffs, then OpenSpiel's legal melds) and
compares ``state.returns()`` with our score.  Our engine's defender deadwood, computed by
``simulator.core.melds.layoff_solution_nb``, must equal the best OpenSpiel allows.

Where OpenSpiel's rules differ from docs/rules.md the replay aligns them; ``docs/openspiel.md``
lists each difference.  A deal that *cannot* be replayed is never dropped silently: it is
put in a named skip category (``SKIP_CATEGORIES``), the reason is re-verified
independently (``test_skipped_deals_are_genuine``) and the counts are reported.
"""

from __future__ import annotations

import sys
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")

try:
    import simulator  # noqa: F401  (the package, from this checkout or installed)
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import simulator  # noqa: F401

from simulator.api import trace_deal
from simulator.core.cards import DECK, format_card
from simulator.core.rules import Rules

gr = pyspiel.gin_rummy

RULES = Rules.preset("single_hand")

# The deals replayed: (strategy A, strategy B, seed, number of deals).  Deals are mirrored
# (deals 2p and 2p+1 share a deck with the seats swapped).  Fixed seeds: the run is
# deterministic, so the counts below never drift unless the engine or a strategy changes.
PLAN = [
    ("simple", "simple", 11, 640),
    ("knock_early", "random", 12, 480),
    ("gin_hunter", "knock_early", 13, 640),
    ("random", "simple", 14, 320),
    ("gin_hunter", "random", 15, 320),  # long hands: most dead hands come from here
]
MIN_MATCHED = 2000

# Deals that cannot be replayed through OpenSpiel, by reason (see docs/openspiel.md).
SKIP_CATEGORIES = {
    "knock_blocked_by_openspiel_shortcut": (
        "OpenSpiel decides whether an 11-card hand may knock with the shortcut 'best "
        "11-card arrangement, then drop the highest unmatched card', which overestimates "
        "some hands; our knocker (exact minimum over the 11 discards, docs/rules.md) knocked "
        "where OpenSpiel offers no Knock action, so the hand cannot continue identically."
    ),
    "openspiel_upcard_draw_cap": (
        "OpenSpiel ends a hand as a 0-0 draw at the 50th draw of an upcard "
        "(kMaxNumDrawUpcardActions, a termination guard); docs/rules.md has no such cap."
    ),
}


# --------------------------------------------------------------------------- translations
# The seat, card, meld and layoff translations live in simulator.interop.openspiel (one
# definition, shared with GinsimBot and OpenSpielPlayer); this file proves them.
from simulator.interop.openspiel import (  # noqa: E402
    DRAW_STOCK,
    DRAW_UPCARD,
    PASS,
    UTILS,
    game_for,
    os_card,
    os_cards,
    split_run,
)


def load_game():
    """OpenSpiel's gin_rummy with the parameters of our ``single_hand`` preset."""
    assert not RULES.oklahoma and not RULES.gin_only and RULES.big_gin_bonus == 0
    assert not RULES.last_discard_rule and not RULES.reshuffle_stock
    assert not RULES.undercut_on_tie  # OpenSpiel scores a tie D == K as 0 (docs/openspiel.md)
    return game_for(RULES)


# --------------------------------------------------------------------------- the replay
# One hand replayed into OpenSpiel (``replay``) is simulator.interop.openspiel.replay_events,
# the function ``to_openspiel`` converts hand histories with; this file proves it.
from simulator.interop.openspiel import EventReplay as Result  # noqa: E402, F401
from simulator.interop.openspiel import ReplayMismatch as Mismatch  # noqa: E402
from simulator.interop.openspiel import ReplaySkip as Skip  # noqa: E402


class OpenSpielSkipReport(UserWarning):
    """Shown in pytest's warning summary: how many deals were skipped, and why."""


def replay(events: list[tuple[int, str, int]], game=None):
    """Replay one traced hand through OpenSpiel (``single_hand``'s parameters unless ``game``
    is given).  Raises ``Skip`` for a documented unreplayable case and ``Mismatch`` for any
    disagreement."""
    from simulator.interop.openspiel import replay_events

    return replay_events(events, game or load_game())


# --------------------------------------------------------------------------- the run
@dataclass
class Report:
    matched: Counter = field(default_factory=Counter)  # by outcome
    skipped: dict = field(default_factory=dict)  # category -> [(label, detail)]
    failures: list = field(default_factory=list)
    layoff_sets_differ: int = 0

    @property
    def n_matched(self) -> int:
        return sum(self.matched.values())

    def summary(self) -> str:
        skips = {k: len(v) for k, v in self.skipped.items()}
        return (f"matched {self.n_matched} ({dict(self.matched)}); skipped {skips}; "
                f"failures {len(self.failures)}; defender layoff sets chosen differently "
                f"(same deadwood) {self.layoff_sets_differ}")


def run_plan(plan=PLAN) -> Report:
    game = load_game()
    report = Report()
    for a, b, seed, n in plan:
        for deal in range(n):
            label = f"{a} vs {b}, seed={seed}, deal={deal}"
            row, events = trace_deal(a, b, "single_hand", seed=seed, deal=deal)
            try:
                res = replay(events, game)
                _check_row(row, res)
            except Skip as s:
                report.skipped.setdefault(s.category, []).append((label, s.detail, events))
                continue
            except Mismatch as m:
                report.failures.append(f"{label}: {m}")
                continue
            report.matched[res.outcome] += 1
            if res.extra.get("same_layoffs") is False:
                report.layoff_sets_differ += 1
    return report


def _check_row(row, res: Result) -> None:
    """The hand row (what ``simulate`` reports) agrees with OpenSpiel too: A's net points
    are OpenSpiel's return to A's player, and the deadwoods are OpenSpiel's."""
    os_a = res.openspiel[res.osp[int(row["a_seat"])]]
    if os_a != float(row["net_a"]):
        raise Mismatch(f"row net_a {row['net_a']} but OpenSpiel gives A {os_a}")
    if res.outcome == "dead":
        if row["outcome"] != "dead":
            raise Mismatch(f"row outcome {row['outcome']} for a dead hand")
        return
    if (int(row["knocker_deadwood"]), int(row["defender_deadwood"])) != tuple(res.deadwood):
        raise Mismatch(f"row deadwood {row['knocker_deadwood']}/{row['defender_deadwood']}, "
                       f"OpenSpiel {res.deadwood}")
    expected = {"tie": "knock"}.get(res.outcome, res.outcome)  # a scoreless tie is a knock row
    if row["outcome"] != expected:
        raise Mismatch(f"row outcome {row['outcome']}, OpenSpiel replay says {res.outcome}")


@pytest.fixture(scope="module")
def report() -> Report:
    rep = run_plan()
    print("\nOpenSpiel cross-check:", rep.summary())
    return rep


# --------------------------------------------------------------------------- tests
def test_card_mapping_matches_openspiel_names():
    for code in DECK:
        assert UTILS.card_string(os_card(int(code))) == format_card(int(code))
    assert sorted(os_card(int(c)) for c in DECK) == list(range(52))


def test_openspiel_parameters_are_single_hand():
    params = load_game().get_parameters()
    assert params["knock_card"] == 10 and params["gin_bonus"] == 25
    assert params["undercut_bonus"] == 25 and params["oklahoma"] is False
    assert (params["num_ranks"], params["num_suits"], params["hand_size"]) == (13, 4, 10)


def test_openspiel_eleven_card_shortcut_is_what_we_think():
    """The documented difference: docs/rules.md's example hand has deadwood 0 after the best
    discard (6c); OpenSpiel's 11-card MinDeadwood gives more, 10-card hands are exact."""
    hand = [UTILS.card_int(x) for x in "3s 4s 5s 6c 4d 5d 6d 3h 4h 5h 6h".split()]
    assert UTILS.min_deadwood(hand) > 0
    assert min(UTILS.min_deadwood([c for c in hand if c != d]) for d in hand) == 0
    assert UTILS.min_deadwood([c for c in hand if c != UTILS.card_int("6c")]) == 0


def test_openspiel_layoff_chain_limit_is_what_we_think():
    """OpenSpiel extends a run by at most two layoffs at one end (5-6-7: 8, 9 but not T);
    the replay's defender melds such a chain instead, which leaves the same deadwood."""
    meld = UTILS.meld_to_int([UTILS.card_int(x) for x in "5s 6s 7s".split()])
    laid = [UTILS.card_int(x) for x in "8s 9s".split()]
    assert UTILS.card_int("Ts") not in UTILS.all_layoffs([meld], laid)


def _dealt_state():
    state = load_game().new_initial_state()
    for card in range(21):  # player 0 gets As..Ts, player 1 Js..Ks + Ac..7c, upcard 8c
        state.apply_action(card)
    state.apply_action(PASS)
    state.apply_action(PASS)
    state.apply_action(DRAW_STOCK)
    state.apply_action(30)
    state.apply_action(state.hands()[0][0])
    return state


def test_openspiel_upcard_draw_cap_is_what_we_think():
    """OpenSpiel ends the hand 0-0 at the 50th upcard draw (after the first turn)."""
    state = _dealt_state()
    draws = 0
    while not state.is_terminal():
        player, upcard = state.current_player(), state.upcard()
        state.apply_action(DRAW_UPCARD)
        draws += 1
        if not state.is_terminal():
            state.apply_action(next(c for c in state.hands()[player] if c != upcard))
    assert draws == gr.MAX_NUM_DRAW_UPCARD_ACTIONS == 50
    assert list(state.returns()) == [0.0, 0.0]


def test_openspiel_repeated_move_rule_is_what_we_think():
    """OpenSpiel allows discarding the card just taken from the pile (docs/rules.md does not);
    when both players do it in succession the hand ends 0-0.  Unreachable in a replay."""
    state = _dealt_state()
    for k in range(2):
        upcard = state.upcard()
        state.apply_action(DRAW_UPCARD)
        assert upcard in state.legal_actions()
        state.apply_action(upcard)
        assert state.is_terminal() == (k == 1)
    assert list(state.returns()) == [0.0, 0.0]


def _a_knock_trace():
    for deal in range(50):
        row, events = trace_deal("simple", "simple", "single_hand", seed=11, deal=deal)
        if row["outcome"] == "knock" and row["points"] > 0:
            return events
    raise AssertionError("no knock among the first deals")


@pytest.mark.parametrize("event", ["score", "defender_deadwood", "knock", "draw_stock"])
def test_replay_detects_a_corrupted_trace(event):
    """The replay is not vacuous: changing one recorded number makes it fail."""
    events = _a_knock_trace()
    assert replay(events).outcome == "knock"
    k = max(i for i, e in enumerate(events) if e[1] == event)
    seat, name, value = events[k]
    if name == "draw_stock":  # another card: one the drawer's opponent holds
        value = next(c for s, e, c in events if e == "deal" and s != seat)
    else:
        value += 1
    bad = events[:k] + [(seat, name, value)] + events[k + 1:]
    with pytest.raises(Mismatch):
        replay(bad)


def test_split_run():
    for n in range(3, 14):
        pieces = split_run(list(range(n)))
        assert sum(pieces, []) == list(range(n))
        assert all(3 <= len(p) <= 5 for p in pieces)


def test_all_replayed_deals_match(report):
    assert not report.failures, (f"{len(report.failures)} deals disagree with OpenSpiel:\n"
                                 + "\n".join(report.failures[:10]) + "\n" + report.summary())


def test_enough_deals_replayed(report):
    assert report.n_matched >= MIN_MATCHED, report.summary()
    # every kind of ending was exercised
    for outcome in ("knock", "gin", "undercut", "tie", "dead"):
        assert report.matched[outcome] > 0, f"no {outcome} hand replayed: {report.summary()}"


def test_skips_only_in_documented_categories(report):
    unknown = set(report.skipped) - set(SKIP_CATEGORIES)
    assert not unknown, f"undocumented skip categories {unknown}"
    total = sum(len(v) for v in report.skipped.values())
    deals = sum(n for *_, n in PLAN)
    if total:  # reported, never silent (the reasons are re-checked below)
        warnings.warn(OpenSpielSkipReport(
            f"{total} of {deals} deals not replayable through OpenSpiel: "
            + "; ".join(f"{k}: {len(v)} ({', '.join(lbl for lbl, *_ in v[:3])})"
                        for k, v in report.skipped.items())))
    # a handful at most: more would mean the replay is not testing what it claims
    assert total <= 0.02 * deals, report.summary()


def test_skipped_deals_are_genuine(report):
    """Re-verify every skip: for the shortcut category, the knocker's 11 cards really do
    allow a knock by the exact rule, and OpenSpiel's 11-card deadwood really exceeds the
    limit."""
    for label, detail, events in report.skipped.get("knock_blocked_by_openspiel_shortcut", []):
        hand = _hand_before_knock(events)
        assert len(hand) == 11, label
        exact = min(UTILS.min_deadwood([c for c in hand if c != d]) for d in hand)
        assert exact <= RULES.knock_limit < UTILS.min_deadwood(hand), f"{label}: {detail}"
    for label, detail, events in report.skipped.get("openspiel_upcard_draw_cap", []):
        takes = 0
        first_turn_over = False
        for _, e, _ in events:
            if e in ("draw_stock", "discard"):
                first_turn_over = True
            if e == "take_pile" and first_turn_over:
                takes += 1
        assert takes >= gr.MAX_NUM_DRAW_UPCARD_ACTIONS, label


def _hand_before_knock(events) -> list[int]:
    """The knocker's 11 cards (OpenSpiel indices) just before its knocking discard."""
    hands = {0: set(), 1: set()}
    for k, (s, e, v) in enumerate(events):
        if e == "deal" or e in ("take_pile", "draw_stock"):
            hands[s].add(v)
        elif e == "discard":
            if k + 1 < len(events) and events[k + 1][1] in ("knock", "gin"):
                return os_cards(sorted(hands[s]))
            hands[s].discard(v)
    raise AssertionError("no knock in the trace")


if __name__ == "__main__":  # a quick report: python tests/test_openspiel_crosscheck.py
    import time

    t0 = time.time()
    rep = run_plan()
    print(rep.summary(), f"{time.time() - t0:.1f}s")
    for f in rep.failures[:20]:
        print(f)
    for cat, items in rep.skipped.items():
        for label, detail, _ in items[:5]:
            print(cat, label, detail)
