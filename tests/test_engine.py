"""The engine: scripted deals with exact scores, invariants over many hands, determinism.

Scripted deals put exact hands in both seats (seat 0 deals, so seat 1 moves first) and
use ``knock_early`` — deterministic greedy play — so every draw, discard and score can be
worked out by hand.  The common cast:

    mover  (seat 1): 2s 3s 4s | 5h 6h 7h | 9d 9c 9h | Kc      three melds, deadwood 10
    dealer (seat 0): Ah 3d 5c 7s 9s Jh Qd 2c 4h 6d           no melds, deadwood 57
"""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest

import simulator
from simulator import Rules, parse_cards
from simulator.api import play_deal_records, play_deck, trace_deal
from simulator.core.cards import DECK

MOVER = "2s 3s 4s 5h 6h 7h 9d 9c 9h Kc"
LOOSE_DEALER = "Ah 3d 5c 7s 9s Jh Qd 2c 4h 6d"


def make_deck(mover: str, dealer: str, upcard: str, stock_top: str = "") -> list[int]:
    """Deck order for seat 0 dealing: the mover (seat 1) gets cards 0, 2, ..., the dealer
    cards 1, 3, ...; then the upcard, then the stock with ``stock_top`` drawn first."""
    m, d = parse_cards(mover), parse_cards(dealer)
    head = [c for pair in zip(m, d) for c in pair] + list(parse_cards(upcard)) + list(parse_cards(stock_top))
    rest = [int(c) for c in DECK if int(c) not in head]
    deck = head + rest
    assert len(set(deck)) == 52
    return deck


def play(deck, rules, a="knock_early", b="knock_early"):
    record, events = play_deck(deck, dealer=0, strategy_a=a, strategy_b=b, rules=rules)
    assert record["error"] == 0
    return record, events


def test_knock_scores_defender_deadwood_after_layoffs_minus_knocker_deadwood():
    # mover declines Ks, dealer declines, mover draws 8c, discards Kc, knocks with 8c = 8.
    # The dealer lays off 9s on 9d9c9h and 4h on 5h6h7h: 57 - 13 = 44, so 44 - 8 = 36.
    record, events = play(make_deck(MOVER, LOOSE_DEALER, "Ks", "8c"), "hoyle")
    assert (record["outcome"], record["knocker"], record["winner"]) == ("knock", 1, 1)
    assert (record["knocker_deadwood"], record["defender_deadwood"]) == (8, 44)
    assert record["layoff_points"] == 13
    assert record["points"] == 36
    assert [e for e in events if e[1] in ("decline", "draw_stock", "discard")][:4] == [
        (1, "decline", parse_cards("Ks")[0]), (0, "decline", parse_cards("Ks")[0]),
        (1, "draw_stock", parse_cards("8c")[0]), (1, "discard", parse_cards("Kc")[0])]


def test_gin_scores_bonus_plus_defender_deadwood_with_no_layoffs():
    # mover draws As: As-2s-3s-4s, discards Kc, gin.  The dealer's 9s and 4h could lay off
    # but layoffs are not allowed against gin: 25 + 57 = 82.
    record, _ = play(make_deck(MOVER, LOOSE_DEALER, "Ks", "As"), "hoyle")
    assert (record["outcome"], record["winner"], record["points"]) == ("gin", 1, 82)
    assert record["layoff_points"] == 0 and record["defender_deadwood"] == 57


def test_gin_bonus_comes_from_the_rules():
    record, _ = play(make_deck(MOVER, LOOSE_DEALER, "Ks", "As"), "classic")  # gin 20
    assert record["points"] == 20 + 57


def test_undercut_pays_the_defender_difference_plus_bonus():
    # dealer: Ah Ad Ac | 2h 3h 4h | 5d 6d 7d | 2c: deadwood 2 < 8: 8 - 2 + 20 (hoyle) = 26.
    dealer = "Ah Ad Ac 2h 3h 4h 5d 6d 7d 2c"
    record, _ = play(make_deck(MOVER, dealer, "Ks", "8c"), "hoyle")
    assert (record["outcome"], record["knocker"], record["winner"]) == ("undercut", 1, 0)
    assert record["points"] == 26
    record, _ = play(make_deck(MOVER, dealer, "Ks", "8c"), "tournament")  # undercut 25
    assert record["points"] == 31


@pytest.mark.parametrize("rules, winner, points", [("hoyle", 0, 20), ("single_hand", -1, 0)])
def test_equal_deadwood_is_an_undercut_only_with_undercut_on_tie(rules, winner, points):
    # dealer deadwood 8s = 8 equals the knocker's 8c: hoyle counts it an undercut (0 + 20),
    # single_hand scores a tie 0.
    dealer = "Ah Ad Ac 2h 3h 4h 5d 6d 7d 8s"
    record, _ = play(make_deck(MOVER, dealer, "Ks", "8c"), rules)
    assert record["defender_deadwood"] == record["knocker_deadwood"] == 8
    assert (record["winner"], record["points"]) == (winner, points)


def test_big_gin_goes_out_with_eleven_melded_cards_when_the_rules_play_it():
    # mover: 2s3s4s5s 6h7h8h 9d9c9h, draws 9s: all eleven melded.
    mover = "2s 3s 4s 5s 6h 7h 8h 9d 9c 9h"
    deck = make_deck(mover, LOOSE_DEALER.replace("9s", "Ts"), "Ks", "9s")
    record, _ = play(deck, "modern")  # gin 25 + big gin 6 + dealer deadwood 58
    assert (record["outcome"], record["points"]) == ("big_gin", 25 + 6 + 58)
    record, events = play(deck, "hoyle")  # no big gin: discard (9c by the tie-break) for gin
    assert (record["outcome"], record["points"]) == ("gin", 25 + 58)
    assert (1, "discard", parse_cards("9c")[0]) in events


def test_non_dealer_may_take_the_first_upcard():
    # 9s completes 9d9c9h9s; the mover takes it, discards Kc: gin on the first turn.
    record, events = play(make_deck(MOVER, LOOSE_DEALER.replace("9s", "Ts"), "9s"), "hoyle")
    assert events[21] == (1, "take_pile", parse_cards("9s")[0])
    assert (record["outcome"], record["winner"], record["draws"]) == ("gin", 1, 1)


def test_dealer_may_take_the_upcard_the_non_dealer_declined():
    # Jh would only replace the mover's Kc by another 10; the dealer's Th Qh Kh takes it,
    # discards 2c: As Ad Ac | 2h 3h 4h | Th Jh Qh Kh is gin, 25 + the mover's 10.
    dealer = "As Ad Ac 2h 3h 4h Th Qh Kh 2c"
    record, events = play(make_deck(MOVER, dealer, "Jh"), "hoyle")
    assert events[21:23] == [(1, "decline", parse_cards("Jh")[0]), (0, "take_pile", parse_cards("Jh")[0])]
    assert (record["outcome"], record["winner"], record["points"]) == ("gin", 0, 35)


def test_oklahoma_upcard_sets_the_knock_limit_and_a_spade_doubles():
    deck = make_deck(MOVER, LOOSE_DEALER, "Ks", "8c")
    record, _ = play(deck, Rules.preset("oklahoma"))
    assert (record["knock_limit"], record["points"]) == (10, 36)
    record, _ = play(deck, Rules.preset("oklahoma", oklahoma_spade_double=True))
    assert record["points"] == 72
    # an upcard of 7 allows knocking only at 7 or less: the mover's 8 is not enough
    record, _ = play(make_deck(MOVER, LOOSE_DEALER.replace("7s", "Ts"), "7s", "8c"), "oklahoma")
    assert record["knock_limit"] == 7 and record["knocker_deadwood"] != 8


@pytest.mark.parametrize("ace, limit", [("gin", 0), ("one", 1)])
def test_oklahoma_ace_upcard_means_gin_or_one(ace, limit):
    deck = make_deck(MOVER, LOOSE_DEALER.replace("Ah", "Th"), "Ah", "8c")
    record, _ = play(deck, Rules.preset("oklahoma", oklahoma_ace=ace))
    assert record["knock_limit"] == limit


def test_gin_only_never_knocks_with_deadwood():
    record, _ = play(make_deck(MOVER, LOOSE_DEALER, "Ks", "8c"), "gin_only")
    assert record["knock_limit"] == 0
    assert record["outcome"] in ("gin", "dead")


def test_a_raised_knock_limit_is_honoured():
    # knock limit 20: the mover can knock at once on the first turn? No: it has to draw
    # first, and with the limit at 20 it knocks with 8c after drawing.
    record, _ = play(make_deck(MOVER, LOOSE_DEALER, "Ks", "Qs"), Rules(knock_limit=20))
    # draws Qs (no meld), discards the Kc or Qs (tie-break: Kc is higher rank): 10 left
    assert (record["outcome"], record["knocker_deadwood"]) == ("knock", 10)


def _random_dead_deal(rules):
    for seed in range(500):
        row, events = trace_deal("gin_hunter", "gin_hunter", rules, seed=seed, deal=0)
        if row["outcome"] == "dead":
            return row, events
    raise AssertionError("no dead hand found")


def test_hand_is_dead_when_a_discard_leaves_two_cards_in_the_stock():
    row, events = _random_dead_deal("gin_only")
    assert row["stock_left"] == 2 and row["points"] == 0 and pd.isna(row["winner"])
    stock_draws = sum(1 for e in events if e[1] == "draw_stock")
    assert stock_draws == 29
    last_draw = max(i for i, e in enumerate(events) if e[1] == "draw_stock")
    drawer = events[last_draw][0]
    discards_after = [e for e in events[last_draw:] if e[1] == "discard"]
    assert discards_after == [discards_after[0]] and discards_after[0][0] == drawer
    assert events[-1][1] == "dead"


def test_reshuffle_turns_the_pile_into_a_new_stock_and_is_bounded():
    rules = Rules.preset("gin_only", reshuffle_stock=True, max_reshuffles=2)
    df = simulator.simulate("gin_hunter", "gin_hunter", rules, n_deals=2000, seed=5)
    assert df["reshuffles"].max() == 2
    dead = df[df["outcome"] == "dead"]
    assert (dead["reshuffles"] == 2).all() and (dead["stock_left"] == 0).all()


# ---- invariants over many hands --------------------------------------------------------

PRESETS = list(Rules.PRESETS)


@pytest.mark.parametrize("preset", PRESETS)
def test_invariants_over_100k_random_hands(preset):
    df = simulator.simulate("random", "random", preset, n_deals=100_000, seed=11)
    rules = Rules.preset(preset)
    assert len(df) == 100_000
    dead = df["outcome"] == "dead"
    # every hand ends with a knock or as a dead hand at two stock cards
    assert (df.loc[dead, "stock_left"] == 2).all()
    assert (df.loc[dead, "points"] == 0).all() and df.loc[dead, "winner"].isna().all()
    assert (df["draws"] >= 31 - df["stock_left"]).all()
    live = df[~dead]
    assert (live["knocker_deadwood"] <= live["knock_limit"]).all()
    assert (live.loc[live["outcome"].isin(["gin", "big_gin"]), "knocker_deadwood"] == 0).all()
    assert (live.loc[live["outcome"].isin(["gin", "big_gin"]), "layoff_points"] == 0).all()
    und = live[live["outcome"] == "undercut"]
    assert (und["defender_deadwood"] <= und["knocker_deadwood"]).all()
    assert (und["winner"] != und["knocker"]).all()
    kn = live[live["outcome"] == "knock"]
    tie = kn["winner"].isna()  # a scoreless tie exists only without undercut_on_tie
    assert (kn.loc[tie, "defender_deadwood"] == kn.loc[tie, "knocker_deadwood"]).all()
    assert tie.sum() == 0 or not rules.undercut_on_tie
    kn = kn[~tie]
    assert (kn["winner"] == kn["knocker"]).all()
    assert (kn["defender_deadwood"] > kn["knocker_deadwood"]).all()
    assert (kn["points"] == (kn["defender_deadwood"] - kn["knocker_deadwood"]) * (1 + (kn["upcard"].astype(str).str[1] == "s") * (rules.oklahoma and rules.oklahoma_spade_double))).all()
    # zero-sum: A's net is + or - the hand's points, and 0 without a winner
    sign = np.where(df["winner"] == "a", 1, np.where(df["winner"] == "b", -1, 0))
    assert (df["net_a"] == sign * df["points"]).all()
    if preset == "gin_only":
        assert set(df["outcome"].unique()) <= {"gin", "dead"}
    if preset == "oklahoma":
        assert set(df["knock_limit"].unique()) <= set(range(0, 11))


def _replay_events(events):
    """Replay a trace, checking the 52 cards are conserved and every move is legal."""
    hands = [set(), set()]
    pile: list[int] = []
    seen: set[int] = set()
    just_taken = None
    for seat, kind, value in events:
        if kind == "deal":
            assert value not in seen
            seen.add(value)
            hands[seat].add(value)
        elif kind == "upcard":
            assert value not in seen
            seen.add(value)
            pile.append(value)
        elif kind == "draw_stock":
            assert value not in seen, "stock card seen before"
            seen.add(value)
            assert len(hands[seat]) == 10
            hands[seat].add(value)
            just_taken = None
        elif kind == "take_pile":
            assert pile and pile[-1] == value, "took a card that is not the pile's top"
            pile.pop()
            assert len(hands[seat]) == 10
            hands[seat].add(value)
            just_taken = value
        elif kind == "discard":
            assert value in hands[seat] and value != just_taken and len(hands[seat]) == 11
            hands[seat].remove(value)
            pile.append(value)
        elif kind in ("knock", "gin"):
            assert len(hands[seat]) == 10
            assert simulator.min_deadwood(sorted(hands[seat])) == value
    assert len(seen) <= 52
    assert len(hands[0]) + len(hands[1]) + len(pile) + (52 - len(seen)) in (52, 53)
    return hands


@pytest.mark.parametrize("preset", ["hoyle", "oklahoma", "gin_only"])
def test_traced_deals_conserve_cards_and_make_only_legal_moves(preset):
    for deal in range(300):
        _, events = trace_deal("random", "simple", preset, seed=3, deal=deal)
        _replay_events(events)


# ---- determinism ---------------------------------------------------------------------


def test_same_seed_same_frame_for_one_and_two_threads():
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = simulator.simulate("simple", "knock_early", "tournament", n_deals=20_000, seed=42)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = simulator.simulate("simple", "knock_early", "tournament", n_deals=20_000, seed=42)
    finally:
        numba.set_num_threads(before)
    pd.testing.assert_frame_equal(one, two)
    assert not one.equals(simulator.simulate("simple", "knock_early", "tournament", n_deals=20_000, seed=43))


def test_chunking_does_not_change_results():
    whole = play_deal_records("simple", "random", "hoyle", 0, 3000, seed=9)
    parts = np.vstack([play_deal_records("simple", "random", "hoyle", s, n, seed=9)
                       for s, n in [(0, 1), (1, 999), (1000, 2000)]])
    np.testing.assert_array_equal(whole, parts)


def test_games_are_deterministic_and_hands_add_up():
    games, hands = simulator.simulate_games("simple", "knock_early", "hoyle", n_games=300, seed=4, hands=True)
    again = simulator.simulate_games("simple", "knock_early", "hoyle", n_games=300, seed=4)
    pd.testing.assert_frame_equal(games, again)
    assert (hands.groupby("game").size().values == games["hands"].values).all()
    won = hands[hands["winner"].notna()]
    pts = won.assign(pa=np.where(won["winner"] == "a", won["points"], 0),
                     pb=np.where(won["winner"] == "b", won["points"], 0)).groupby("game")[["pa", "pb"]].sum()
    pts = pts.reindex(games["game"], fill_value=0)
    assert (pts["pa"].values == games["points_a"].values).all()
    assert (pts["pb"].values == games["points_b"].values).all()
    assert ((games["points_a"] >= 100) | (games["points_b"] >= 100)).all()


def test_game_scores_add_box_game_bonus_and_shutout():
    games = simulator.simulate_games("knock_early", "random", "hoyle", n_games=400, seed=8)
    r = Rules.preset("hoyle")
    for g in games.itertuples():
        win_a = g.winner == "a"
        pw, pl = (g.points_a, g.points_b) if win_a else (g.points_b, g.points_a)
        bw, bl = (g.boxes_a, g.boxes_b) if win_a else (g.boxes_b, g.boxes_a)
        total_w = pw + bw * r.box_bonus + r.game_bonus
        if pl == 0:
            total_w *= 2  # hoyle: shutout doubles the whole score
            assert g.shutout
        sw, sl = (g.score_a, g.score_b) if win_a else (g.score_b, g.score_a)
        assert (sw, sl) == (total_w, pl + bl * r.box_bonus)


# ---- bad input ------------------------------------------------------------------------


def test_bad_rule_values_and_unknown_presets_raise_clear_errors():
    with pytest.raises(ValueError, match="rules.shutout must be one of none, double, double_bonus"):
        Rules(shutout="triple")
    with pytest.raises(ValueError, match="rules.knock_limit must be an integer from 0 to 98"):
        Rules(knock_limit=-1)
    with pytest.raises(ValueError, match="unknown rules preset 'vegas'; presets: classic"):
        Rules.preset("vegas")
    with pytest.raises(ValueError, match="unknown rules field 'knock'"):
        Rules.from_dict({"preset": "hoyle", "knock": 5})
    with pytest.raises(ValueError, match="unknown strategy 'smart'; strategies: random"):
        simulator.simulate("smart", "simple", n_deals=2)
    with pytest.raises(ValueError, match="unknown parameter 'knock' for strategy 'simple'; parameters: knock_at"):
        simulator.simulate("simple:knock=3", "simple", n_deals=2)
    with pytest.raises(ValueError, match="n_deals must be an integer of at least 0, got -5"):
        simulator.simulate("simple", "simple", n_deals=-5)


def test_switching_variant_does_not_recompile():
    simulator.simulate("simple", "simple", "hoyle", n_deals=10)
    from strategies import parse_strategy
    from simulator.engine.select import engine_module

    kernel = engine_module([parse_strategy("simple").sid, parse_strategy("gin_hunter").sid]).play_deal_block_nb
    signatures = len(kernel.signatures)
    assert signatures >= 1
    for preset in PRESETS:
        simulator.simulate("simple:knock_at=3", "gin_hunter", preset, n_deals=10)
    assert len(kernel.signatures) == signatures


def test_an_engine_for_the_call_plays_the_rows_of_the_engine_for_all(fresh_engine_choice):
    """By default the first call compiles an engine routing only what it plays
    (``simulator.engine.select.engine_module``); it runs the same code as the engine
    routing every strategy: equal rows, on 1 and 2 threads; it refuses an id it does not
    route instead of playing it."""
    import numba

    import simulator.engine.kernels as full
    from simulator.core import records as RC
    from simulator.engine.select import engine_module, strategy_pair
    from strategies.registry import numba_count

    fresh_engine_choice("call")
    _, _, sids, params = strategy_pair("simple", "gin_hunter")
    small = engine_module(sids)
    numba_sids = set(range(numba_count()))
    assert small is not full and set(small.loop.dispatch.LEFT_OUT) == numba_sids - set(sids.tolist())
    assert engine_module(sids[:1]) is small  # a later call it routes reuses it
    vector = Rules.preset("hoyle").to_array()
    rows = []
    before = numba.get_num_threads()
    try:
        for engine, threads in ((small, 1), (small, 2), (full, 1), (full, 2)):
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
            out = np.zeros((1001, RC.N_HAND_COLS), np.int64)
            engine.play_deals(np.uint64(5), 3, 1001, True, vector, sids, params, out)
            rows.append(out)
    finally:
        numba.set_num_threads(before)
    assert all(np.array_equal(rows[0], r) for r in rows[1:])
    _, _, other_sids, other_params = strategy_pair("knock_early", "simple")
    out = np.zeros((2, RC.N_HAND_COLS), np.int64)
    small.play_deals(np.uint64(5), 0, 2, True, vector, other_sids, other_params, out)
    assert (out[:, RC.H_ERROR] != 0).all()  # refused, never played by another strategy


def test_which_engine_a_call_gets(monkeypatch, fresh_engine_choice):
    """``GINSIM_ENGINE``: ``call`` builds for what the process plays and grows with it,
    ``all`` routes everything; a hybrid takes the engine routing all; a bad value is refused
    in one line naming the variable and its values."""
    import simulator.engine.kernels as full
    from simulator.engine import select
    from strategies import parse_strategy

    sid = {n: parse_strategy(n).sid for n in ("simple", "gin_hunter", "knock_early")}
    fresh_engine_choice("call")
    select.will_play([sid["simple"], sid["gin_hunter"]])
    first = select.engine_module([sid["simple"]])
    assert sid["gin_hunter"] not in first.loop.dispatch.LEFT_OUT and sid["knock_early"] in first.loop.dispatch.LEFT_OUT
    grown = select.engine_module([sid["knock_early"]])  # everything played so far, and the new one
    assert not {sid["simple"], sid["gin_hunter"], sid["knock_early"]} & set(grown.loop.dispatch.LEFT_OUT)
    assert select.engine_module([parse_strategy("mc+knock=simple").sid]) is full
    assert select.routes_every_strategy(full) and not select.routes_every_strategy(first)
    fresh_engine_choice("all")
    assert select.engine_module([sid["simple"]]) is full
    monkeypatch.setenv(select.ENGINE_ENV, "light")
    with pytest.raises(ValueError, match=r"^GINSIM_ENGINE: must be one of call, all, got 'light'$"):
        select.engine_module([sid["simple"]])


def test_the_engine_benchmark_names_the_engine_it_timed():
    """Each engine row says which engine played it: the session routes every strategy."""
    from simulator.tools.bench import bench_engine

    rows = bench_engine(n_deals=2_000, repeats=1, matchups=[("simple", "simple")], rulesets=["hoyle"])
    assert rows[0]["benchmark"].startswith("engine first call") and len(rows) >= 2
    assert all(r["engine"] == "all" and r["deals_per_s"] > 0 for r in rows[1:])


def test_mc_rollouts_that_play_marjj_compile_apart(fresh_engine_choice):
    """``mc``'s rollouts 2-4 play through a route of their own (``strategies.mc_marjj``):
    the spec and its label are unchanged, its id is the route's, and an engine for the
    other rollouts leaves the route out, so it never compiles ``marjj``'s code (nothing is
    compiled here: the engines' modules are only generated)."""
    from pathlib import Path

    from simulator.engine import select
    from strategies import parse_strategy
    from strategies.registry import REGISTRY, ROUTE_IDS, name_of

    route = ROUTE_IDS["strategies.mc_marjj"]
    for rollout in (2, 3, 4, 5):
        spec = parse_strategy(f"mc:rollout={rollout}")
        assert spec.sid == route and spec.label == f"mc:rollout={rollout}" and name_of(spec.sid) == "mc"
    assert {parse_strategy(s).sid for s in ("mc", "mc:rollout=0", "mc:rollout=1")} == {REGISTRY["mc"].sid}
    fresh_engine_choice("call")
    plain = select.engine_module([REGISTRY["mc"].sid])
    assert route in plain.loop.dispatch.LEFT_OUT and "mc_marjj" not in Path(plain.loop.dispatch.__file__).read_text()
    grown = select.engine_module([route])  # everything played so far, and the route
    assert not {REGISTRY["mc"].sid, route} & set(grown.loop.dispatch.LEFT_OUT)
