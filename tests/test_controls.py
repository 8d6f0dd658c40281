"""Control variates played on the engine (``simulator.studies.controls``): unbiased where the
answer is known, a large saving where the players play alike, and the benchmark's table."""

from __future__ import annotations

import json

import numpy as np

import pytest

from simulator.cli import main
from simulator.studies import controls
from simulator.studies.controls import pair_values

K11 = "knock_policy:early=10,turn_a=11,late=0,turn_b=2"
K12 = "knock_policy:early=10,turn_a=12,late=0,turn_b=2"


def test_a_matchup_worth_exactly_zero_is_estimated_zero_by_both():
    """K11 against itself is worth 0 by symmetry; K12's self-play on the same pairs is a
    control with expectation 0.  Both intervals cover 0, the reduced one narrower."""
    x = pair_values(K11, K11, "classic", "hand", 4_000, 31)
    reduced, cpu = controls.reduce_pairs(x, K11, K12, "classic", "hand", 31, "self_b")
    plain = controls.est.plain(x)
    assert plain.low < 0 < plain.high and reduced.low < 0 < reduced.high
    assert reduced.sd < plain.sd and cpu > 0
    assert reduced.method == f"control variates: {K12} against itself"


def test_neighbouring_thresholds_need_many_times_fewer_pairs():
    m = controls.measure(K11, K12, "classic", "hand", 2_000, 37)
    assert m.deals_ratio > 10 and m.cpu_ratio > 3
    assert abs(m.reduced.value - m.plain.value) < 2 * m.plain.se


def test_a_games_self_play_control_is_centred_on_half_the_games():
    """In whole games a self-play wins half the games in expectation, not none: the control is
    its share less ½, so the reduced share of games won stays where the plain one is."""
    m = controls.measure(K11, K12, "classic", "game", 300, 43, control="self")
    assert abs(m.reduced.value - m.plain.value) < 2 * m.plain.se
    assert 0.3 < m.reduced.value < 0.7 and m.deals_ratio > 1


def test_bad_control_is_refused():
    with pytest.raises(ValueError, match="control must be one of draws, self, self_a, self_b, draws\\+self, "):
        controls.measure(K11, K12, "classic", "hand", 100, 1, control="mirror")
    with pytest.raises(ValueError, match="at least 20 mirrored pairs"):
        controls.reduce_pairs([0.0] * 5, K11, K12, "classic", "hand", 1)


def test_warm_up_plays_the_matchup_once_and_hands_its_values_to_each_control(monkeypatch):
    """Before anything is timed, the warm-up plays the matchup's first pairs once: the self-play
    control plays only the self-play (not the matchup again), and the draws' replay is checked
    against the values played (a replay that disagrees is refused)."""
    played = []
    real = controls.pair_values

    def counting(spec_a, spec_b, *args, **kwargs):
        played.append((spec_a, spec_b))
        return real(spec_a, spec_b, *args, **kwargs)

    monkeypatch.setattr(controls, "pair_values", counting)
    controls.warm_up(K11, K12, "classic", "hand", 5, ("self", "draws"))
    assert played == [(K11, K12), (K11, K11), (K12, K12)]
    monkeypatch.setattr(controls, "pair_values", lambda *args, **kwargs: real(*args, **kwargs) + 1.0)
    with pytest.raises(RuntimeError, match="did not give the values played"):
        controls.warm_up(K11, K12, "classic", "hand", 5, ("draws",))


def test_bench_variance_prints_its_table(monkeypatch, capsys):
    monkeypatch.setattr(controls, "VARIANCE_MATCHUPS",
                        (("equilibrium_class", K11, K12, "classic", "hand", ("self", "draws"), 400, 200),))
    monkeypatch.setattr(controls, "VARIANCE_SEAT_EDGES", (("variant_balance", "simple", "tournament", "hand", 400, 2_000),
                                                          ("variant_balance", "simple", "hoyle", "game", 400, 300)))
    assert main(["bench", "--variance", "--quick", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["study"], r["unit"], r["pairs"], r["control"], r["of"]) for r in rows] == [
        ("equilibrium_class", "hand", 200, "self", "A"), ("equilibrium_class", "hand", 200, "draws", "A"),
        ("variant_balance", "hand", 2_000, "draws+deal", "first mover"),
        ("variant_balance", "hand", 2_000, "draws+deal+swap", "first mover"),
        ("variant_balance", "game", 300, "draws+deal", "first mover"),
        ("variant_balance", "game", 300, "draws+deal+swap", "first mover")]
    assert all(r["reduced"]["sd"] < r["plain"]["sd"] for r in rows)
    assert rows[0]["plain"] == rows[1]["plain"] and rows[2]["plain"] == rows[3]["plain"]  # one play, every control
    assert rows[4]["plain"] == rows[5]["plain"]
    assert main(["bench", "--variance", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "equilibrium_class" in out and "fewer pairs" in out and "simple self-play, tournament: first mover" in out


@pytest.mark.parametrize("unit, pairs, exchanged, gain", [
    ("hand", 2_000, "the same deals with the hands exchanged", 1.5),
    ("game", 1_500, "each hand played again with its hands exchanged", 2.0)])
def test_the_first_movers_edge_is_what_the_studys_statistics_give(unit, pairs, exchanged, gain):
    """variant_balance's figures, the non-dealer's net points per hand and its share of games won
    less ½ in a self-play, plain, are what ``hand_stats`` and ``game_stats`` give for a simulated
    frame of the same deals or games (value and interval); the draws' replay gives the same
    values, and its reduced estimates agree and are tighter, the hands exchanged most."""
    import simulator
    from simulator.analysis.stats import game_stats, hand_stats

    measured = controls.measure_first_mover("simple", "hoyle", pairs, 47, unit=unit)
    if unit == "hand":
        stats = hand_stats(simulator.simulate("simple", "simple", rules="hoyle", n_deals=2 * pairs, seed=47))
    else:
        stats = game_stats(simulator.simulate_games("simple", "simple", rules="hoyle", n_games=2 * pairs, seed=47))
    stats = stats.iloc[0]
    for m in measured.values():
        assert m.plain.value == pytest.approx(stats["first_mover_edge"])
        assert (m.plain.low, m.plain.high) == pytest.approx((stats["first_mover_edge_ci_low"],
                                                             stats["first_mover_edge_ci_high"]))
        assert abs(m.reduced.value - m.plain.value) < 2 * m.plain.se and m.reduced.sd < m.plain.sd
        assert "draw luck" in m.reduced.method and "deal: deadwood 0-4" in m.reduced.method
    swapped = measured["draws+deal+swap"]
    assert exchanged in swapped.reduced.method
    assert swapped.deals_ratio > gain * measured["draws+deal"].deals_ratio  # the exchanged hands' pull


def test_a_deal_with_its_hands_exchanged_is_the_same_deal_dealt_the_other_way():
    """Each seat's dealt hand becomes the other's: the dealt deadwoods trade places, deal by deal,
    and the first mover's value with the hands exchanged averages what it does without them
    (the exchange maps shuffled decks one to one), within 4 standard errors over 20,000 deals."""
    from simulator.studies import draw_values

    plain = draw_values.draw_luck_pairs("simple", "simple", "hoyle", "hand", 20_000, 59, first_mover=True)
    swapped = draw_values.draw_luck_pairs("simple", "simple", "hoyle", "hand", 20_000, 59, first_mover=True,
                                          swap=True)
    assert np.array_equal(swapped.dealt, plain.dealt[:, ::-1])
    difference = swapped.values - plain.values
    assert abs(difference.mean()) < 4 * difference.std() / np.sqrt(len(difference))
    assert np.corrcoef(swapped.values, plain.values)[0, 1] < -0.2  # the deal's luck, set against itself


def test_a_games_hands_played_exchanged_leave_the_game_as_it_was_and_average_zero():
    """Each hand of a game also played from the same scores with its two hands exchanged: the
    games themselves come out as without it (the work row is put back exactly), the chance of
    winning after the exchanged hands less after the hands played averages 0 within 4 standard
    errors over 6,000 games (each exchange maps shuffled decks one to one), and it runs against
    the game's result (a hand that won for a seat loses for it once exchanged)."""
    from simulator.studies import draw_values

    plain = draw_values.draw_luck_pairs("simple", "simple", "hoyle", "game", 6_000, 61, first_mover=True)
    exchanged = draw_values.draw_luck_pairs("simple", "simple", "hoyle", "game", 6_000, 61, first_mover=True,
                                            exchange_hands=True)
    assert plain.exchanges is None and exchanged.exchanges.shape == (3_000, 2)
    assert np.array_equal(exchanged.values, plain.values) and np.array_equal(exchanged.luck, plain.luck)
    assert np.array_equal(plain.values, pair_values("simple", "simple", "hoyle", "game", 6_000, 61, first_mover=True))
    change = exchanged.exchanges[:, 0]
    assert abs(change.mean()) < 4 * change.std() / np.sqrt(len(change))
    assert np.corrcoef(change, plain.values)[0, 1] < -0.5
    with pytest.raises(ValueError, match="exchange_hands and replay_b are for the hands of games"):
        draw_values.draw_luck_pairs("simple", "simple", "hoyle", "hand", 100, 61, exchange_hands=True)


def test_a_matchups_games_gain_from_their_hands_exchanged():
    """``draws+swap`` for a matchup's games: unbiased (near the plain estimate of the same
    games) and tighter than the draws alone."""
    draws = controls.measure("simple", "gin_hunter", "hoyle", "game", 1_500, 67, "draws")
    swap = controls.measure("simple", "gin_hunter", "hoyle", "game", 1_500, 67, "draws+swap")
    assert swap.plain == draws.plain and abs(swap.reduced.value - swap.plain.value) < 2 * swap.plain.se
    assert swap.deals_ratio > 1.3 * draws.deals_ratio
    assert "each hand played again with its hands exchanged" in swap.reduced.method


def test_each_hand_replayed_by_b_leaves_the_games_as_they_were_and_averages_zero():
    """Each hand of a game also replayed by B in both seats, as dealt, exchanged and from other
    decks: the games come out as without it (the work row is put back exactly), each replay's
    change averages 0 within 4 standard errors over 4,000 games (each deck replayed is as likely
    as the deck dealt), and where B plays much as A does the other decks' replays run against the
    game's result."""
    from simulator.studies import draw_values

    a, b = "simple:knock_at=8", "simple"
    plain = draw_values.draw_luck_pairs(a, b, "classic", "game", 4_000, 71)
    replayed = draw_values.draw_luck_pairs(a, b, "classic", "game", 4_000, 71, replay_b=True)
    assert plain.replays is None and replayed.replays.shape == (2_000, 2)
    assert np.array_equal(replayed.values, plain.values) and np.array_equal(replayed.luck, plain.luck)
    for change in replayed.replays.T:
        assert abs(change.mean()) < 4 * change.std() / np.sqrt(len(change)) and change.std() > 0.05
    assert np.corrcoef(replayed.replays[:, 1], plain.values)[0, 1] < -0.4
    with pytest.raises(ValueError, match="exchange_hands and replay_b are for the hands of games"):
        draw_values.draw_luck_pairs(a, b, "classic", "hand", 100, 71, replay_b=True)


def test_a_matchups_games_gain_from_bs_replays_and_hands_are_refused():
    """``draws+replay_b``: unbiased (near the plain estimate of the same games), tighter than the
    draws alone, its method names who replays; single hands have no such control, and the
    refusal names the ones they have."""
    draws = controls.measure(K11, K12, "classic", "game", 800, 73, "draws")
    replay = controls.measure(K11, K12, "classic", "game", 800, 73, "draws+replay_b")
    assert replay.plain == draws.plain and abs(replay.reduced.value - replay.plain.value) < 2 * replay.plain.se
    assert replay.deals_ratio > 1.5 * draws.deals_ratio
    assert f"each hand replayed by {K12} in both seats, from 4 other decks" in replay.reduced.method
    with pytest.raises(ValueError, match="control draws\\+replay_b estimates whole games only; for single hands use "
                                         "one of draws, self"):
        controls.measure(K11, K12, "classic", "hand", 100, 73, "draws+replay_b")


def test_the_hands_exchanged_and_bs_replays_in_one_pass_are_each_what_they_are_alone():
    """A game's hands exchanged and B's replays of them played in one pass of the draws' kernel
    (``draws+swap+replay_b``): the games, their draws' luck, the exchanges and the replays are
    exactly what each pass gives alone (each puts the work row back before the hand is played)."""
    from simulator.studies import draw_values

    a, b = "simple:knock_at=8", "simple"
    both = draw_values.draw_luck_pairs(a, b, "classic", "game", 1_200, 79, exchange_hands=True, replay_b=True)
    exchanged = draw_values.draw_luck_pairs(a, b, "classic", "game", 1_200, 79, exchange_hands=True)
    replayed = draw_values.draw_luck_pairs(a, b, "classic", "game", 1_200, 79, replay_b=True)
    assert np.array_equal(both.values, exchanged.values) and np.array_equal(both.values, replayed.values)
    assert np.array_equal(both.luck, exchanged.luck) and np.array_equal(both.exchanges, exchanged.exchanges)
    assert np.array_equal(both.replays, replayed.replays)


def test_the_hands_exchanged_combine_with_a_self_play_or_bs_replays():
    """``draws+swap+self`` and ``draws+swap+replay_b`` fit every part's controls together: the
    same plain estimate, a reduced one near it that saves at least what the hands exchanged alone
    save, and a method naming each part; B's replays stay refused for single hands."""
    swap = controls.measure(K11, K12, "classic", "game", 800, 73, "draws+swap")
    both = controls.measure(K11, K12, "classic", "game", 800, 73, "draws+swap+replay_b")
    assert both.plain == swap.plain and abs(both.reduced.value - both.plain.value) < 2 * both.plain.se
    assert both.deals_ratio > swap.deals_ratio
    assert "its hands exchanged" in both.reduced.method and f"replayed by {K12}" in both.reduced.method
    hands = controls.measure(K11, K12, "classic", "hand", 2_000, 73, "draws+swap+self")
    assert "the same deals with the hands exchanged" in hands.reduced.method
    assert f"{K11} against itself" in hands.reduced.method and f"{K12} against itself" in hands.reduced.method
    assert hands.deals_ratio > controls.measure(K11, K12, "classic", "hand", 2_000, 73, "draws+swap").deals_ratio
    with pytest.raises(ValueError, match="control draws\\+swap\\+replay_b estimates whole games only"):
        controls.check_control("draws+swap+replay_b", "hand")
    with pytest.raises(ValueError, match="control must be one of draws\\+swap, draws\\+replay_b, "
                                         "draws\\+swap\\+replay_b for games played in one pass, got 'draws\\+self'"):
        controls.games_with_controls(K11, K12, "classic", 100, 73, ("draws+swap", "draws+self"))


def test_the_replayed_decks_are_fixed_permutations_dealt_as_the_rules_deal():
    """The decks B replays from are fixed (the estimator's definition) and each is a
    permutation; a hand dealt again from its deck through the identity is the hand dealt, and
    through a permutation it is what the rules deal from the permuted deck."""
    from simulator.core.constants import N_STATE
    from simulator.core.rules import resolve_rules
    from simulator.core.state import deal_nb, deal_permuted_nb
    from simulator.studies import draw_values

    decks = draw_values.replay_decks()
    assert decks.shape == (draw_values.REPLAY_DECKS, 52) and np.array_equal(decks, draw_values.replay_decks())
    assert all(sorted(p) == list(range(52)) for p in decks.tolist())
    rules = resolve_rules("tournament").to_array()
    deck = np.random.default_rng(5).permutation([s * 16 + r for s in range(4) for r in range(13)]).astype(np.int64)
    trace = np.zeros((0, 3), np.int64)
    dealt, again, direct = (np.zeros(N_STATE, np.int64) for _ in range(3))
    deal_nb(dealt, deck, 1, 30, 45, rules, 7, trace)
    again[:] = dealt
    deal_permuted_nb(again, deck, np.arange(52), np.zeros(52, np.int64), rules, trace)
    assert np.array_equal(again, dealt)
    deal_permuted_nb(again, deck, decks[0], np.zeros(52, np.int64), rules, trace)
    deal_nb(direct, deck[decks[0]], 1, 30, 45, rules, 7, trace)
    assert np.array_equal(again, direct) and not np.array_equal(again, dealt)


def test_a_deal_with_its_hands_exchanged_is_the_deal_of_a_deck_with_its_hands_positions_exchanged():
    """The exchange the hands-exchanged controls rest on is a one-to-one map of the shuffled
    decks: for every dealer, the dealt state with its hands exchanged is, slot for slot, the state
    dealt from the deck whose cards 0..19 trade places two by two (the non-dealer's and the
    dealer's), with the same scores and reshuffle stream."""
    from simulator.core.constants import N_STATE
    from simulator.core.rules import resolve_rules
    from simulator.core.state import deal_nb, exchange_dealt_hands_nb

    rules = resolve_rules("hoyle").to_array()
    trace = np.zeros((0, 3), np.int64)
    swap_positions = np.arange(52)
    swap_positions[0:20:2], swap_positions[1:20:2] = np.arange(1, 20, 2), np.arange(0, 20, 2)
    rng = np.random.default_rng(11)
    for dealer in (0, 1):
        for _ in range(50):
            deck = rng.permutation([s * 16 + r for s in range(4) for r in range(13)]).astype(np.int64)
            exchanged, direct = np.zeros(N_STATE, np.int64), np.zeros(N_STATE, np.int64)
            deal_nb(exchanged, deck, dealer, 12, 40, rules, 9, trace)
            exchange_dealt_hands_nb(exchanged)
            deal_nb(direct, deck[swap_positions], dealer, 12, 40, rules, 9, trace)
            assert np.array_equal(exchanged, direct)


def test_the_deals_luck_has_expectation_zero():
    """The first mover's and the dealer's hands are dealt alike: every band's control averages
    0 within 4 standard errors over 20,000 deals, while the first mover's edge itself does not
    have to."""
    from simulator.studies import draw_values

    pairs = draw_values.draw_luck_pairs("knock_early", "knock_early", "hoyle", "hand", 20_000, 53, first_mover=True)
    for name, c in controls.deal_controls(pairs.dealt[:, 0], pairs.dealt[:, 1]).items():
        assert abs(c.mean()) < 4 * c.std() / np.sqrt(len(c)) + 1e-12, name
    assert pairs.dealt.min() >= 0 and pairs.dealt.max() <= 98


def test_simulate_control_prints_both_estimates_and_its_json_validates(capsys):
    from test_cli_json import validate

    assert main(["simulate", K11, K12, "--rules", "classic", "--deals", "4000", "--seed", "5", "--control", "self",
                 "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    validate(document, "simulate")
    reduced = document["control_variates"]
    assert reduced["control"] == "self" and reduced["estimate"]["units"] == 2000 and reduced["pairs_ratio"] > 10
    assert main(["simulate", K11, K12, "--rules", "classic", "--deals", "4000", "--seed", "5", "--control",
                 "self_b"]) == 0
    assert "with control variates (self_b: " + K12 + " against itself)" in capsys.readouterr().out


def test_simulate_frames_pairs_as_the_controls_do():
    import simulator

    df = simulator.simulate(K11, K12, rules="classic", n_deals=400, seed=5)
    assert (controls.pair_means(df) == pair_values(K11, K12, "classic", "hand", 400, 5)).all()


def test_simulate_control_needs_mirrored_pairs(capsys):
    assert main(["simulate", K11, K12, "--deals", "100", "--no-mirror", "--control", "self"]) == 2
    err = capsys.readouterr().err
    assert "leave out --no-mirror" in err and len(err.strip().splitlines()) == 1


def test_the_variance_table_names_the_median_of_each_matchups_best_control(capsys):
    def row(a, control, ratio):
        return {"study": "s", "a": a, "b": "simple", "rules": "hoyle", "unit": "hand", "of": "A", "control": control,
                "pairs": 1000, "plain": {"sd": 2.0}, "reduced": {"sd": 2.0 / ratio ** 0.5}, "deals_ratio": ratio,
                "cpu_ms_per_pair_plain": 0.01, "cpu_ms_per_pair_reduced": 0.02, "cpu_ratio": ratio / 2}

    rows = [row("x", "self", 1.0), row("x", "draws", 1.5), row("y", "self", 5.0), row("y", "draws", 1.2),
            row("z", "draws", 2.0)]
    assert sorted(r["deals_ratio"] for r in controls.best_rows(rows).values()) == [1.5, 2.0, 5.0]
    assert sorted(r["cpu_ratio"] for r in controls.best_rows(rows, "cpu_ratio").values()) == [0.75, 1.0, 2.5]
    controls.print_variance(rows)
    out = capsys.readouterr().out
    assert "the best control of each of the 3 matchups and seat edges: a median of 2.00x fewer pairs (1.50x to " \
           "5.00x); per CPU-second, the best of each: a median of 1.00x less CPU (0.75x to 2.50x)" in out
    # which control to use: y's self saves CPU; x's and z's best controls do not, so the plain estimate does
    choices = out.split("Which control to use")[1].splitlines()[1:]
    assert len(choices) == 3
    assert choices[0].endswith("fewest pairs: draws (1.50x); least CPU: the plain estimate (the best control, draws, "
                               "0.75x)")
    assert choices[1].endswith("fewest pairs: self (5.00x); least CPU: self (2.50x)")
    assert choices[2].endswith("fewest pairs: draws (2.00x); least CPU: the plain estimate (the best control, draws, "
                               "1.00x)")
