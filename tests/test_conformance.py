"""Conformance to the originals: ``marjj`` scores every discard of the public MARJJ player's
own diagnostic scenarios as that player does, and ``gold_standard`` reproduces its paper's
own benchmark within that benchmark's sampling interval.

Only facts carry over from the originals (the positions, what each player knew, and the
numbers the originals printed or recorded); no code does.  docs/published.md grades each
published player's fidelity with these tests as its evidence."""

from __future__ import annotations

import numpy as np
import pytest

import simulator
from simulator.analysis.stats import wilson_interval
from simulator.core.melds import min_deadwood_nb
from strategies import marjj
from strategies.view import V_SEEN
from test_strategies import card, discard_position, mask, row

# ---- marjj: the public player's diagnostic scenarios 2-5 ------------------------------------

#: ``MARJJ_v5-1.java`` (github.com/aqib-a99/MARJJ, commit 5d1f00c), its ``main``: four
#: positions ("Scenario 2" to "Scenario 5" of the team's review), played one after another
#: into the same player.  Each: the eleven cards it holds (the last one just drawn from the
#: stock), the cards it has seen (every card it held this hand and every card the opponent
#: discarded), and the cards the opponent took.  In scenario 3 the opponent "draws" 3♣
#: without 3♣ ever being face up, so the player records it as the opponent's but not as
#: seen (3♣ stays among its possible next draws, which changes none of the values here).
#: Then, for each discard it scores, in the order it prints them: (deadwood kept, "EV",
#: "oppEV") as its ``main`` prints them.  Its turn counter is 0 there (``getDiscard`` never
#: ran), so EV = deadwood kept + 18 × 0.9^−1 × the mean of the 7 smallest next-draw
#: deadwoods, and oppEV is the danger.  The values come from running the file's diagnostic
#: (its ``main`` and the methods it calls) with the EAAI framework's ``Card`` and
#: ``GinRummyUtil`` (tneller/gin-rummy-eaai); scenario 2's agree with the components
#: jdh8/gin-rummy-engine's conformance test transcribes (test_published_players.py).
MARJJ_SCENARIOS = {
    2: dict(hand="Qc Qd Qs As 3h 5d 8h 8s Ts Js Jh",
            seen="Qc Qd Qs As 3h 5d 8h 8s Ts Js Jh", took="", pile="",
            printed={"Qc": (45, 639.2857142857143, -15.0), "Qd": (45, 639.2857142857143, -15.0),
                     "5d": (50, 507.14285714285717, 4.0), "8h": (47, 541.2857142857143, -4.0),
                     "8s": (47, 564.1428571428572, -7.0), "Ts": (45, 556.4285714285716, -6.0),
                     "Js": (45, 610.7142857142857, -14.0), "Jh": (45, 533.5714285714286, -4.0)}),
    # dealt 7♠ 9♠ 2♠ K♦ 9♦ T♠ 9♣ 8♦ T♦ 4♣; the opponent takes 3♣ and discards 7♣; it draws K♣
    3: dict(hand="7s 9s 2s Kd 9d Ts 9c 8d Td 4c Kc",
            seen="7s 9s 2s Kd 9d Ts 9c 8d Td 4c Kc 7c", took="3c", pile="7c",
            printed={"7s": (54, 545.4285714285716, -7.0), "9s": (52, 786.2857142857143, -20.0),
                     "Kd": (51, 576.7142857142857, -9.0), "Ts": (51, 662.4285714285716, -9.0),
                     "9c": (52, 652.0, -13.0), "8d": (53, 690.1428571428572, -4.0),
                     "Td": (51, 768.1428571428571, -12.0), "Kc": (51, 576.7142857142857, -9.0)}),
    # it sheds K♦; the opponent draws and sheds Q♠; it draws 5♥, sheds K♣; the opponent sheds
    # Q♥; it draws 4♦
    4: dict(hand="7s 9s 2s 9d Ts 9c 8d Td 4c 5h 4d",
            seen="7s 9s 2s Kd 9d Ts 9c 8d Td 4c Kc 7c Qs 5h Qh 4d", took="3c", pile="7c Kd Qs Kc Qh",
            printed={"7s": (43, 400.14285714285717, -7.0), "9s": (41, 623.8571428571429, -20.0),
                     "Ts": (40, 517.1428571428571, -14.0), "9c": (41, 512.4285714285716, -13.0),
                     "8d": (42, 544.8571428571429, -4.0), "Td": (40, 605.7142857142857, -12.0),
                     "5h": (45, 422.14285714285717, 4.0)}),
    # it sheds T♠; the opponent draws and sheds Q♣; it draws 8♣
    5: dict(hand="7s 9s 2s 9d 9c 8d Td 4c 5h 4d 8c",
            seen="7s 9s 2s Kd 9d Ts 9c 8d Td 4c Kc 7c Qs 5h Qh 4d Qc 8c", took="3c",
            pile="7c Kd Qs Kc Qh Ts Qc",
            printed={"7s": (41, 435.28571428571433, -7.0), "9s": (39, 556.1428571428572, -20.0),
                     "9c": (39, 556.1428571428572, -18.0), "8d": (40, 605.7142857142857, -12.0),
                     "Td": (38, 512.2857142857143, -12.0), "5h": (43, 477.28571428571433, 4.0),
                     "8c": (40, 517.1428571428571, -14.0)}),
}
#: the weight of the future term at the diagnostic's turn counter 0: 18 × 0.9^−1 = 20, which
#: ``marjj`` plays at its first draw with ``weight=20``
DIAGNOSTIC_WEIGHT = 18 / 0.9


@pytest.mark.parametrize("number", sorted(MARJJ_SCENARIOS))
def test_marjj_scores_every_candidate_of_the_public_players_diagnostic_as_it_prints_them(number):
    s = MARJJ_SCENARIOS[number]
    hand, seen, took = np.int64(mask(s["hand"])), np.int64(mask(s["seen"])), np.int64(mask(s["took"]))
    cand, now = marjj.candidates_nb(row(marjj), hand, hand)
    assert now == -1 and cand == mask(" ".join(s["printed"]))  # the same candidates, none at once
    buffer = np.empty(52, np.int64)
    for name, (kept_dw, ev, danger) in s["printed"].items():
        kept = hand & ~(np.int64(1) << card(name))
        assert min_deadwood_nb(kept) == kept_dw, name
        future = marjj.future_deadwood_nb(kept, seen | hand, np.int64(7), buffer)
        assert kept_dw + DIAGNOSTIC_WEIGHT * future == pytest.approx(ev, rel=1e-12), name
        assert marjj.danger_nb(card(name), hand | seen, took) == danger, name
    # the whole decision, from a position holding what the player knew: its scores are the
    # printed EV + oppEV, and it discards the lowest
    pos = discard_position(s["hand"], s["hand"].split()[-1], pile=s["pile"], took=s["took"], my_draws=1)
    pos.view[V_SEEN] = seen
    params = row(marjj, weight=DIAGNOSTIC_WEIGHT)
    scores = np.empty(64)
    assert marjj.discard_scores_nb(params, pos.view, pos.memory, scores) == -1
    totals = {name: ev + danger for name, (_, ev, danger) in s["printed"].items()}
    for name, total in totals.items():
        assert scores[card(name)] == pytest.approx(total, rel=1e-12), name
    assert np.isinf(scores).sum() == 64 - len(totals)
    best = sorted(totals, key=totals.get)
    assert totals[best[0]] < totals[best[1]]  # no tie for the player's random draw to break
    assert pos.discard(marjj, params) == card(best[0])


# ---- gold_standard: its paper's benchmark --------------------------------------------------

#: The gold paper's own benchmark (Nikelroid/adversarial-coevolution, ``sweep/bench_gold.py``,
#: its result ``sweep/gold_bench.json``, commit 9aada94): 600 single hands per match-up in
#: PettingZoo's ``gin_rummy_v4`` (RLCard: knock at deadwood ≤ 10, the hand dead at two stock
#: cards), the gold agent in one seat for the first 300 and in the other for the last 300.
#: A hand counts for gold when its reward is positive, which only the player who goes out
#: (knocks or goes gin) gets; a gin when it is the gin reward.  Published counts of 600, by
#: (gold's setting, its opponent, what is counted); its match-ups against the paper's
#: learned agents cannot be played here:
GOLD_BENCH_HANDS = 600
GOLD_BENCH = {
    ("gold_standard", "random", "goes out"): 597,  # 99.50%
    ("gold_standard", "random", "gin"): 10,  # 1.67%
    ("gold_standard", "gold_standard", "goes out"): 306,  # 51.0%: the first gold against the second
    ("gold_standard:hold_for_gin=1", "random", "goes out"): 579,  # 96.5%, every one a gin
    ("gold_standard:hold_for_gin=1", "random", "gin"): 579,
}
#: ginsim's sample: single hands, mirrored (each deal in both seats, as the benchmark swaps
#: seats), 40,000 hands per match-up (about 0.2 s of CPU each, compiled)
GINSIM_HANDS = 40_000


@pytest.mark.parametrize("gold, opponent", sorted({key[:2] for key in GOLD_BENCH}))
def test_gold_standard_reproduces_its_papers_benchmark_within_its_sampling_interval(gold, opponent):
    hands = simulator.simulate(gold, opponent, "single_hand", n_deals=GINSIM_HANDS, seed=2026)
    goes_out = hands["knocker"] == "a"
    measured = {"goes out": goes_out, "gin": goes_out & hands["outcome"].isin(["gin", "big_gin"])}
    for (player, against, measure), count in GOLD_BENCH.items():
        if (player, against) != (gold, opponent):
            continue
        low, high = wilson_interval(count, GOLD_BENCH_HANDS)
        share = float(measured[measure].mean())
        assert low <= share <= high, (gold, opponent, measure, share, (low, high))
