"""The draws' luck (AIVAT's chance correction, ``simulator.studies.draw_luck``) and its value
table (``simulator.studies.draw_values``): the kernel plays the engine's deals, its luck is what
a plain-Python replay with a brute-force deadwood counts, its expectation is 0 whatever the
table holds, and a table that fails its digest is refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

import simulator
from oracle import oracle_discards, oracle_min_deadwood
from simulator import actions
from simulator.api import play_deal_records
from simulator.core import records as C
from simulator.core.constants import PHASE_DRAW, PHASE_FIRST_UPCARD, S_CURRENT, S_DEALER, S_HANDS, S_LIMIT, S_PHASE
from simulator.core.hand_reading import stock_of
from simulator.core.rules import resolve_rules
from simulator.engine.select import engine_module, strategy_pair
from simulator.studies import controls, draw_values
from simulator.core.cards import card_code
from simulator.core.melds import discard_deadwoods_nb, melds_with_card_nb, min_deadwood_nb
from simulator.studies.draw_luck import DRAWS_OVERFLOW, cell_nb, isolated_deadwood_nb, luck_kernels

K11 = "knock_policy:early=10,turn_a=11,late=0,turn_b=2"
RESHUFFLE = {"preset": "hoyle", "reshuffle_stock": True}


def _play(a, b, rules, n, seed, values=None, capacity=0):
    _, _, sids, params = strategy_pair(a, b)
    table = draw_values.load().values if values is None else values
    return luck_kernels(engine_module(sids)).play_corrected_deals(np.uint64(seed), 0, n, resolve_rules(rules).to_array(),
                                                                  sids, params, table, capacity)


@pytest.mark.parametrize("a, b, rules", [("simple", "gin_hunter", "hoyle"), ("marjj", "simple", "tournament"),
                                         ("knock_early", "simple", RESHUFFLE)])
def test_the_kernel_plays_the_engines_deals(a, b, rules):
    """Stopping before every discard changes nothing: each deal ends as ``play_deals`` ends it."""
    a_seats, nets, _, draws, _, dealers, dealt = _play(a, b, rules, 400, 11)
    records = play_deal_records(a, b, rules, 0, 400, 11, True)
    winner, points = records[:, C.H_WINNER], records[:, C.H_POINTS]
    assert (a_seats == records[:, C.H_A_SEAT]).all() and (dealers == records[:, C.H_DEALER]).all()
    for deal in range(4):  # each seat's dealt ten cards, by brute force
        state = simulator.Hand(rules=rules, seed=11, deal=deal, a=a, b=b)._state
        assert [oracle_min_deadwood([c for c in range(64) if int(state[S_HANDS + s]) >> c & 1]) for s in (0, 1)] \
            == dealt[deal].tolist()
    assert (nets == np.where(winner == 0, points, np.where(winner < 0, 0, -points))).all()
    assert (draws >= 0).all() and draws.sum() > 0


def _python_luck(rules, seed, deal, a, b, values):
    """A deal's luck to seat 0 counted by stepping ``simulator.Hand`` in Python: at each stock
    draw, the stock before it, the drawer's deadwood after its best discard by brute force
    (``oracle``) for every card it could have drawn, and the table's value of each cell."""
    hand = simulator.Hand(rules=rules, seed=seed, deal=deal, a=a, b=b)
    state = hand._state
    luck = 0.0
    while not hand.is_over():
        action = hand.bot_action()
        phase, seat = int(state[S_PHASE]), int(state[S_CURRENT])
        drawer = None
        if phase == PHASE_DRAW and action == actions.DRAW_STOCK:
            drawer = seat
        elif phase == PHASE_FIRST_UPCARD and action == actions.PASS and seat == int(state[S_DEALER]):
            drawer = 1 - seat  # both passed: the non-dealer draws from the stock
        stock = stock_of(state)
        hand.apply(action)
        if drawer is None:
            continue
        mine = [c for c in range(64) if int(state[S_HANDS + drawer]) >> c & 1]
        theirs = [c for c in range(64) if int(state[S_HANDS + 1 - drawer]) >> c & 1]
        drawn = stock[0]
        before = [c for c in mine if c != drawn]
        opponent = oracle_min_deadwood(theirs)
        left, limit = len(stock) - 1, int(state[S_LIMIT])
        value = {c: values[int(cell_nb(oracle_discards(before + [c])[0], opponent, left, limit))]
                 for c in stock}
        change = value[drawn] - sum(value.values()) / len(stock)
        luck += change if drawer == 0 else -change
    return luck


def test_a_card_that_melds_with_nothing_needs_no_search():
    """The shortcut the luck takes for a card meldable with none of the hand's gives the
    brute-force deadwood after the best discard, on random ten-card hands and every such card."""
    rng = np.random.default_rng(41)
    deck = [card_code(rank, suit) for suit in range(4) for rank in range(13)]
    checked = 0
    for _ in range(60):
        hand = [int(c) for c in rng.choice(deck, 10, replace=False)]
        mask = sum(1 << c for c in hand)
        kept = min_deadwood_nb(np.int64(mask))
        one_out, _ = discard_deadwoods_nb(np.int64(mask), np.int64(mask))
        for c in set(deck) - set(hand):
            if not melds_with_card_nb(np.int64(mask), np.int64(c)):
                assert isolated_deadwood_nb(kept, one_out, np.int64(c)) == oracle_discards(hand + [c])[0]
                checked += 1
    assert checked > 500


def test_the_luck_is_what_a_plain_python_replay_counts():
    values = draw_values.load().values
    _, _, lucks, draws, _, _, _ = _play("simple", "knock_early", "hoyle", 3, 23)
    for deal in range(3):
        assert _python_luck("hoyle", 23, deal, "simple", "knock_early", values) == pytest.approx(lucks[deal], abs=1e-9)
    assert draws.min() > 0


@pytest.mark.parametrize("a, b, rules", [("simple", "gin_hunter", "hoyle"), ("defensive", "knock_early", RESHUFFLE)])
def test_the_luck_has_expectation_zero_whatever_the_table(a, b, rules):
    """With the fitted table and with random values, the mean luck is within 4 standard errors
    of 0 (a wrong stock, drawer or sign would put it tens of errors away)."""
    random_values = np.random.default_rng(5).normal(0.0, 20.0, draw_values.N_CELLS)
    for values in (None, random_values):
        _, _, lucks, _, _, _, _ = _play(a, b, rules, 20_000, 29, values)
        assert abs(lucks.mean()) < 4 * lucks.std() / np.sqrt(len(lucks))
        assert lucks.std() > 1.0


def test_a_matchup_worth_zero_is_estimated_zero_and_tighter_with_the_draws():
    m = controls.measure(K11, K11, "classic", "hand", 2_000, 31, "draws")
    assert m.plain.low < 0 < m.plain.high and m.reduced.low < 0 < m.reduced.high
    assert m.reduced.sd < m.plain.sd and m.replays_matchup
    assert m.reduced.method.startswith("control variates: draw luck (draw_values_1, sha256 ")


def test_an_unlike_matchup_needs_fewer_pairs_with_the_draws():
    m = controls.measure("simple", "gin_hunter", "hoyle", "hand", 4_000, 41, "draws+self")
    assert m.deals_ratio > 1.2
    assert abs(m.reduced.value - m.plain.value) < 3 * m.plain.se


def test_games_weigh_each_hands_luck_by_the_score_and_stay_unbiased():
    """A game's luck is its hands' luck in points times what a point is worth at their
    scores: the kernel plays the engine's games, and the luck's mean is 0."""
    from simulator.api import play_game_records

    _, _, sids, params = strategy_pair("simple", "gin_hunter")
    rules = resolve_rules("hoyle")
    slopes = draw_values.win_slopes(draw_values.load_wins(), rules.target_score)
    kernels = luck_kernels(engine_module(sids))
    a_seats, winners, lucks, first_dealers, _, _, _ = kernels.play_corrected_games(
        np.uint64(9), 0, 6_000, rules.to_array(), sids, params, draw_values.load().values, slopes)
    games, _ = play_game_records("simple", "gin_hunter", "hoyle", 0, 6_000, 9, True)
    assert (winners == games[:, C.G_WINNER]).all() and (a_seats == games[:, C.G_A_SEAT]).all()
    assert (first_dealers == games[:, C.G_FIRST_DEALER]).all()
    assert abs(lucks.mean()) < 4 * lucks.std() / np.sqrt(len(lucks)) and lucks.std() > 0.05
    m = controls.measure("simple", "gin_hunter", "hoyle", "game", 1_500, 9, "draws")
    assert m.deals_ratio > 1.1 and "win_values_1, sha256 " in m.reduced.method


def test_the_slopes_of_the_win_table():
    """Reaching the target wins: near it a hand's points are worth more of the game."""
    slopes = draw_values.win_slopes(draw_values.load_wins(), 100)
    assert slopes.shape == (draw_values.WIN_BANDS, draw_values.WIN_BANDS) and (slopes > 0).all()
    assert slopes[-1, -1] == pytest.approx(1 / 40) and slopes[-1, -1] > slopes[0, 0]


def test_recorded_cells_fit_a_table_and_overflow_is_reported():
    a_seats, nets, _, draws, cells, _, _ = _play("simple", "gin_hunter", "hoyle", 200, 3,
                                             capacity=draw_values.DRAW_CAPACITY)
    used = np.arange(draw_values.DRAW_CAPACITY)[None, :] < draws[:, None]
    assert int(used.sum()) == int(draws.sum()) and (cells[used][:, 1] < draw_values.N_CELLS).all()
    _, _, _, small, _, _, _ = _play("simple", "gin_hunter", "hoyle", 200, 3, capacity=2)
    assert ((small == DRAWS_OVERFLOW) == (draws > 2)).all()


def test_a_table_is_fitted_on_development_seeds_once_and_verified(tmp_path):
    pool = (("simple", "knock_early", "hoyle"),)
    with pytest.raises(ValueError, match="must be a development seed"):
        draw_values.fit(1, 100, 20261205, tmp_path, pool)
    table = draw_values.fit(1, 2_000, 1_000_001, tmp_path, pool)
    assert table.values.shape == (draw_values.N_CELLS,) and table.fitted["draws"] > 2_000
    assert draw_values.load(1, tmp_path).digest == table.digest
    with pytest.raises(ValueError, match="is never changed"):
        draw_values.fit(1, 2_000, 1_000_001, tmp_path, pool)
    path = draw_values.path_of(1, tmp_path)
    document = json.loads(path.read_text())
    document["values"][0] += 1.0
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match="digest does not match its contents"):
        draw_values.load(1, tmp_path)
    document["layout"] = "other"
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match="this ginsim reads"):
        draw_values.load(1, tmp_path)
    with pytest.raises(ValueError, match="must be a development seed"):
        draw_values.fit_wins(1, 100, 7, tmp_path)
    wins = draw_values.fit_wins(1, 300, 1_000_003, tmp_path, (("simple", "knock_early", "hoyle"),))
    assert wins.values.shape == (draw_values.WIN_BANDS, draw_values.WIN_BANDS) and wins.fitted["hands"] > 300
    assert draw_values.load_wins(1, tmp_path).digest == wins.digest


def test_the_shipped_tables_were_fitted_on_development_seeds():
    table, wins = draw_values.load(), draw_values.load_wins()
    assert table.fitted["seed"] in range(1_000_000, 2_000_000) and wins.fitted["seed"] in range(1_000_000, 2_000_000)
    assert [tuple(m) for m in table.fitted["pool"]] == list(draw_values.FIT_POOL)
    assert [tuple(m) for m in wins.fitted["pool"]] == list(draw_values.WIN_POOL)


def test_simulate_control_draws_prints_both_estimates_and_its_json_validates(capsys):
    from test_cli_json import validate

    from simulator.cli import main

    assert main(["simulate", "simple", "gin_hunter", "--deals", "4000", "--seed", "5", "--control", "draws",
                 "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    validate(document, "simulate")
    reduced = document["control_variates"]
    assert reduced["control"] == "draws" and reduced["estimate"]["units"] == 2000 and reduced["pairs_ratio"] > 1.1
    assert "draw luck (draw_values_1, sha256" in reduced["estimate"]["method"]


def test_bench_unbiased_prints_plain_reduced_and_the_mean_luck(monkeypatch, capsys):
    from simulator.cli import main
    from simulator.run.seeds import derive_seed

    monkeypatch.setattr(controls, "VARIANCE_MATCHUPS",
                        (("knock_vs_gin", "simple", "knock_early", "hoyle", "hand", ("draws",), 100, 100),
                         ("knock_vs_gin", controls.CHALLENGER, "marjj", "tournament", "hand", ("draws",), 100, 100),
                         ("knock_vs_gin", "simple", "knock_early", "hoyle", "game", ("draws",), 100, 100)))
    monkeypatch.setattr(controls, "VARIANCE_SEAT_EDGES", (("variant_balance", "simple", "hoyle", "hand", 100, 100),
                                                          ("variant_balance", "simple", "hoyle", "game", 100, 100)))
    monkeypatch.setattr(controls, "UNBIASED_DEALS", (4_000, 2_000))
    monkeypatch.setattr(controls, "UNBIASED_GAMES", (800, 400))
    assert main(["bench", "--unbiased", "--quick", "--json"]) == 0
    hands, games, replayed, both, edge = json.loads(capsys.readouterr().out)  # the challenger is too heavy for it
    assert (hands["unit"], hands["control"], hands["deals"], hands["plain"]["units"]) == ("hand", "draws", 2_000, 1_000)
    assert (games["unit"], games["control"], games["deals"]) == ("game", "draws+swap", 400)
    assert (replayed["control"], replayed["plain"]) == ("draws+replay_b", games["plain"])  # the same games
    assert (both["control"], both["plain"], both["cpu_s"]) == ("draws+swap+replay_b", games["plain"], games["cpu_s"])
    assert len(replayed["controls"]) == 3 and both["controls"] == games["controls"] | replayed["controls"]
    seed = derive_seed(20261206, "unbiased", "knock_vs_gin", "simple", "knock_early", "hoyle", "game", "A")
    alone = controls.pairs_with_controls("simple", "knock_early", "hoyle", "game", 400, seed, "draws+replay_b")
    assert controls.est.with_controls(*alone).as_dict() == replayed["reduced"]  # one pass, as each alone
    assert (edge["of"], edge["control"], edge["deals"]) == ("first mover", "draws+deal+swap", 400)
    for row in (hands, games, replayed, both, edge):
        assert row["intervals_overlap"] and row["reduced"]["sd"] < row["plain"]["sd"]
        assert row["luck"] == next(iter(row["controls"].values())) and row["luck"]["low"] < row["luck"]["high"]
        assert 0 <= row["controls_covering_0"] <= len(row["controls"])
    assert len(games["controls"]) == 3 and len(edge["controls"]) == 3 + len(controls.DEAL_BANDS) - 1
    assert main(["bench", "--unbiased", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "mean luck" in out and "mean of each hand played again with its hands exchanged: the chance" in out
    assert "mean of each hand replayed by knock_early in both seats, from 4 other decks: the chance" in out
    assert main(["bench", "--unbiased", "--variance"]) == 2
    assert "give one" in capsys.readouterr().err
