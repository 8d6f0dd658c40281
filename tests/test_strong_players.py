"""The strong players: the opponent belief, ``expert`` and ``mc`` do what their docstrings say.

Views are built by hand (``strategies.view``) for the belief and ``expert``; ``mc`` is
asked through ``simulator.Hand`` on real deals.  The heavy checks (100,000 hands per preset,
calibration over 100,000 decisions, speed) are in ``python -m simulator.studies.strong_study`` and
``ginsim bench``.
"""

from __future__ import annotations

import numpy as np
import pytest

import simulator
from simulator import cards_mask
from simulator.core.cards import DECK
from simulator.core.melds import hand_value_nb, min_deadwood_nb
from strategies import belief, expert
from strategies.gamevalue import GAME_WIN, game_win_table
from strategies.view import (
    N_MEMORY,
    N_PARAMS,
    N_VIEW,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_KNOCK,
    V_DEADWOOD,
    V_DRAWN,
    V_HAND,
    V_KNOCK_LIMIT,
    V_LEGAL_DISCARDS,
    V_MY_DRAWS,
    V_OPP_DISCARDS,
    V_OPP_TOOK,
    V_PHASE,
    V_PILE_LEN,
    V_PILE_MASK,
    V_SEEN,
    V_STOCK_LEFT,
    V_TOP,
)


def mask(text: str) -> int:
    return int(cards_mask(text))


def make_view(hand: str, phase=PHASE_DRAW, pile="", took="", discards="", draws=0, deadwood=-1, stock=20):
    v = np.zeros(N_VIEW, np.int64)
    v[V_PHASE] = phase
    v[V_HAND] = mask(hand)
    pile_cards = pile.split()
    v[V_PILE_LEN] = len(pile_cards)
    v[V_PILE_MASK] = mask(pile) if pile else 0
    v[V_TOP] = code(pile_cards[-1]) if pile_cards else -1
    v[V_OPP_TOOK] = mask(took) if took else 0
    v[V_OPP_DISCARDS] = mask(discards) if discards else 0
    v[V_SEEN] = v[V_HAND] | v[V_PILE_MASK] | v[V_OPP_TOOK]
    v[V_MY_DRAWS] = draws
    v[V_KNOCK_LIMIT] = 10
    v[V_DEADWOOD] = deadwood
    v[V_STOCK_LEFT] = stock
    v[V_DRAWN] = -1
    pile_arr = np.zeros(64, np.int64)
    for i, c in enumerate(pile_cards):
        pile_arr[i] = code(c)
    return v, pile_arr


def probs_of(view, theta=belief.THETA):
    weights = np.zeros(64)
    probs = np.zeros(64)
    cand, k = belief.belief_nb(view, np.asarray(theta, dtype=np.float64), weights, probs)
    return int(cand), int(k), probs


def code(text: str) -> int:
    return int(simulator.parse_cards(text)[0])


HAND = "2s 3s 4s 5h 6h 7h 9d 9c Kc Qd"


# ---- the belief --------------------------------------------------------------------------


def test_belief_gives_known_cards_one_impossible_cards_zero_and_sums_to_the_hand_size():
    view, _ = make_view(HAND, pile="Jd 8c", took="Th Td", discards="8c")
    cand, k, p = probs_of(view)
    assert k == 8
    assert p[code("Th")] == 1.0 and p[code("Td")] == 1.0
    for c in HAND.split() + ["Jd", "8c"]:
        assert p[code(c)] == 0.0
    assert cand & mask(HAND) == 0 and bin(cand).count("1") == 52 - 10 - 2 - 2
    assert abs(sum(p[c] for c in range(64) if cand >> c & 1) - k) < 1e-9
    assert np.all((p >= 0) & (p <= 1))


def test_belief_is_uniform_with_zero_weights():
    view, _ = make_view(HAND, pile="Jd", took="Th")
    cand, k, p = probs_of(view, np.zeros(belief.N_FEATURES))
    ps = {p[c] for c in range(64) if cand >> c & 1}
    assert len(ps) == 1 and abs(ps.pop() - k / bin(cand).count("1")) < 1e-12


def test_belief_raises_cards_that_meld_with_taken_ones_and_lowers_those_near_discards():
    base, _ = make_view(HAND, pile="2c")
    _, _, p0 = probs_of(base)
    view, _ = make_view(HAND, pile="2c 3d", took="Th", discards="3d")
    _, _, p = probs_of(view)
    assert p[code("Tc")] > p0[code("Tc")]  # same rank as a taken card
    assert p[code("Jh")] > p0[code("Jh")]  # next to it in its suit
    assert p[code("3c")] < p[code("Jc")]  # same rank as a discard vs an unrelated card of equal value class
    assert p[code("4d")] < p[code("Jc")]  # next to a discard


def test_sampler_draws_k_distinct_candidates_and_is_deterministic():
    view, _ = make_view(HAND, pile="Jd", took="Th")
    weights = np.zeros(64)
    probs = np.zeros(64)
    cand, k = belief.belief_nb(view, belief.THETA, weights, probs)
    draws = []
    for _ in range(2):
        rng = np.array([12345], np.uint64)
        draws.append([int(belief.sample_hidden_nb(cand, k, weights, rng)) for _ in range(200)])
    assert draws[0] == draws[1]
    counts = np.zeros(64)
    for hidden in draws[0]:
        assert hidden & ~cand == 0 and bin(hidden).count("1") == k
        for c in range(64):
            counts[c] += hidden >> c & 1
    assert counts.sum() == 200 * k


def test_meld_chance_counts_pairs_of_the_rank_and_run_neighbours():
    probs = np.zeros(64)
    assert belief.meld_chance_nb(code("7h"), probs) == 0.0
    probs[code("7s")] = probs[code("7d")] = 1.0
    assert belief.meld_chance_nb(code("7h"), probs) == 1.0
    probs[:] = 0
    probs[code("8h")] = probs[code("9h")] = 0.5
    assert abs(belief.meld_chance_nb(code("7h"), probs) - 0.25) < 1e-12


# ---- expert ------------------------------------------------------------------------------

PARAMS = np.zeros(N_PARAMS)
PARAMS[: len(expert.PARAMS)] = list(expert.PARAMS.values())
RNG = np.array([7], np.uint64)
MEMORY = np.zeros(N_MEMORY, np.int64)
RULES = simulator.Rules.preset("tournament").to_array()


def test_expert_takes_the_face_up_card_only_when_it_melds_and_lowers_deadwood():
    # 8h extends 5h-7h and As extends 2s-4s (both lower deadwood: Kc goes); Ks would only
    # pair with Kc and 5c melds with nothing
    for top, want in (("8h", True), ("Ks", False), ("As", True), ("5c", False)):
        view, pile = make_view(HAND, pile=f"Jd {top}")
        assert expert.take_nb(PARAMS, view, pile, RULES, RNG, MEMORY) == want, top


def test_expert_knocks_on_its_first_turns_then_only_with_gin():
    for draws, deadwood, want in ((1, 5, True), (3, 9, True), (4, 5, False), (9, 1, False), (9, 0, True), (2, 11, False)):
        view, pile = make_view(HAND, phase=PHASE_KNOCK, draws=draws, deadwood=deadwood)
        assert expert.knock_nb(PARAMS, view, pile, RULES, RNG, MEMORY) == want, (draws, deadwood)


def test_expert_discards_a_legal_card_that_is_never_the_card_just_taken():
    hand = HAND + " Kd"
    view, pile = make_view(hand, phase=PHASE_DISCARD, pile="Kd")
    view[V_LEGAL_DISCARDS] = mask(hand) & ~mask("Kd")
    view[V_DRAWN] = code("Kd")
    c = expert.discard_nb(PARAMS, view, pile, RULES, RNG, MEMORY)
    assert c != code("Kd") and view[V_LEGAL_DISCARDS] >> c & 1


def test_expert_avoids_feeding_the_opponent_a_card_next_to_what_it_took():
    # Qd and Kc are the two high loose cards; the opponent took Jd Td: Qd would extend its run
    view, pile = make_view("2s 3s 4s 5h 6h 7h 9d 9c 9s Kc Qd", phase=PHASE_DISCARD, pile="3c", took="Jd Td")
    view[V_LEGAL_DISCARDS] = view[V_HAND]
    assert expert.discard_nb(PARAMS, view, pile, RULES, RNG, MEMORY) == code("Kc")


def test_expert_lays_out_a_least_deadwood_arrangement():
    hand = "5h 6h 7h 8h 8s 8d 8c Ad 2s 3c"
    view, pile = make_view(hand, phase=5, deadwood=6)
    sets, runs = expert.arrange_nb(PARAMS, view, pile, RULES, RNG, MEMORY)
    assert (sets | runs) & ~mask(hand) == 0 and sets & runs == 0
    left = mask(hand) & ~(sets | runs)
    assert int(min_deadwood_nb(np.int64(left))) == 6 == int(hand_value_nb(np.int64(left)))


# ---- mc ----------------------------------------------------------------------------------

MC = "mc:samples=8,search=7"


def _paired_hands(seed):
    """Two hands whose decks differ only in a card the opponent (seat 1, non-dealer) was
    dealt and the stock's last card, so seat 0 sees the same until one of them shows."""
    rng = np.random.default_rng(seed)
    deck = [int(c) for c in rng.permutation(DECK)]
    other = list(deck)
    other[0], other[51] = other[51], other[0]
    return simulator.Hand("tournament", seed=seed, deck=deck, dealer=0), simulator.Hand("tournament", seed=seed, deck=other, dealer=0)


def test_mc_never_sees_the_hidden_cards():
    compared = 0
    for seed in range(3):
        h1, h2 = _paired_hands(seed)
        while not h1.is_over() and compared < 12:
            seat = h1.current_player
            if not np.array_equal(h1.view(0), h2.view(0)):
                break  # the swapped card became visible to seat 0
            if seat == 0 and h1.phase in (PHASE_DRAW, PHASE_DISCARD, PHASE_KNOCK):
                a1 = h1.clone().strategy_action(MC)
                a2 = h2.clone().strategy_action(MC)
                assert a1 == a2
                compared += 1
            action = h1.strategy_action("simple")
            h2.strategy_action("simple")  # keep both seats' streams in step
            if action not in h2.legal_actions():
                break
            h1.apply(action)
            h2.apply(action)
    assert compared >= 6


def test_mc_is_deterministic_for_a_seed_and_plays_legally():
    a = simulator.simulate(MC, "simple", "hoyle", n_deals=20, seed=3)
    b = simulator.simulate(MC, "simple", "hoyle", n_deals=20, seed=3)
    assert a.equals(b)
    games = simulator.simulate_games("mc:samples=4", "expert", "tournament", n_games=4, seed=1)
    assert set(games["winner"].astype(str)) <= {"a", "b"}


def test_mc_rollout_knocks_after_its_early_turns_only_within_late_knock():
    from simulator.core.state import S_DRAWS, S_KNOCKER
    from strategies.mc import MARJJ_PARAMS, PLAY_OUT_GREEDY, rollout_nb

    for seed in range(300):
        h = simulator.Hand("tournament", seed=seed)
        while not h.is_over():
            state = np.array(h.state)
            dw = int(h.view(0)[V_DEADWOOD]) if h.current_player == 0 and h.phase == PHASE_KNOCK else 0
            if state[S_DRAWS] > 3 and 0 < dw <= 6:
                for late_knock, knocks_now in ((6, True), (dw - 1, False)):
                    s = state.copy()
                    assert rollout_nb(PLAY_OUT_GREEDY, s, h._rules, 1, 3, late_knock, 0, MARJJ_PARAMS.copy(),
                                      np.zeros(N_VIEW, np.int64),
                                      np.zeros((0, 3), np.int64), np.zeros(1, np.uint64),
                                      np.zeros((2, N_MEMORY), np.int64))
                    assert (s[S_KNOCKER] == 0 and s[S_DRAWS] == state[S_DRAWS]) == knocks_now
                return
            h.apply(h.strategy_action("expert"))
    raise AssertionError("no late knock decision with deadwood 1-6 in 300 deals")


def test_mc_marjj_rollout_opponent_knocks_late_only_when_eager():
    """Rollouts 2-4 play both seats as marjj: past its third draw the opponent (seat 1)
    passes a knock with deadwood 1-10 (marjj plays for gin), unless the rollout's opponent
    knocks whenever it may (``opp_late_knock`` 100, rollout 3); and a seat-0 late knock
    follows ``late_knock`` as in rollout 1."""
    from simulator.core.state import S_DRAWS, S_KNOCKER
    from strategies.mc import MARJJ_PARAMS, PLAY_OUT_MARJJ, ROLLOUT_MARJJ, marjj_rollout_nb

    def roll(state, rules, late_knock, opp_late_knock):
        s = state.copy()
        assert marjj_rollout_nb(PLAY_OUT_MARJJ, s, rules, ROLLOUT_MARJJ, 3, late_knock, opp_late_knock,
                                MARJJ_PARAMS.copy(), np.zeros(N_VIEW, np.int64), np.zeros((0, 3), np.int64), np.array([7], np.uint64),
                                np.zeros((2, N_MEMORY), np.int64))
        return s

    found = set()
    for seed in range(600):
        h = simulator.Hand("tournament", seed=seed)
        while not h.is_over() and len(found) < 2:
            state = np.array(h.state)
            seat = h.current_player
            dw = int(h.view(seat)[V_DEADWOOD]) if h.phase == PHASE_KNOCK else 0
            if state[S_DRAWS + seat] > 3 and 0 < dw <= 6 and seat not in found:
                found.add(seat)
                if seat == 1:
                    for opp_late_knock, knocks_now in ((0, False), (100, True)):
                        s = roll(state, h._rules, 6, opp_late_knock)
                        assert (s[S_KNOCKER] == 1 and s[S_DRAWS + 1] == state[S_DRAWS + 1]) == knocks_now
                else:
                    for late_knock, knocks_now in ((6, True), (dw - 1, False)):
                        s = roll(state, h._rules, late_knock, 0)
                        assert (s[S_KNOCKER] == 0 and s[S_DRAWS] == state[S_DRAWS]) == knocks_now
            h.apply(h.strategy_action("expert"))
        if len(found) == 2:
            return
    raise AssertionError(f"late knock decisions with deadwood 1-6 found only for seats {sorted(found)} in 600 deals")


def test_mc_marjj_rollout_opponent_knocks_within_the_window_it_is_given():
    """Rollout 5's opponent is marjj with the knock window of ``opp_params``: on its 4th to
    6th draw with deadwood 1-10 it knocks with a window of 6 and plays on with v5's window of 3;
    and rollout 5 cycles the windows 1-6 over the determinizations (a spec with it plays)."""
    from simulator.core.state import S_DRAWS, S_KNOCKER
    from strategies.mc import (MARJJ_KNOCK_TURNS, MARJJ_PARAMS, PLAY_OUT_MARJJ, ROLLOUT_MARJJ_WINDOWS,
                               marjj_rollout_nb)

    def roll(state, rules, window):
        s = state.copy()
        opp_params = MARJJ_PARAMS.copy()
        opp_params[MARJJ_KNOCK_TURNS] = window
        assert marjj_rollout_nb(PLAY_OUT_MARJJ, s, rules, ROLLOUT_MARJJ_WINDOWS, 3, 0, 0, opp_params,
                                np.zeros(N_VIEW, np.int64), np.zeros((0, 3), np.int64), np.array([7], np.uint64),
                                np.zeros((2, N_MEMORY), np.int64))
        return s

    for seed in range(600):
        h = simulator.Hand("tournament", seed=seed)
        while not h.is_over():
            state = np.array(h.state)
            dw = int(h.view(1)[V_DEADWOOD]) if h.phase == PHASE_KNOCK and h.current_player == 1 else 0
            if 3 < state[S_DRAWS + 1] <= 6 and 0 < dw <= 10:
                for window, knocks_now in ((3, False), (6, True)):
                    s = roll(state, h._rules, window)
                    assert (s[S_KNOCKER] == 1 and s[S_DRAWS + 1] == state[S_DRAWS + 1]) == knocks_now
                games = simulator.simulate_games("mc:rollout=5,samples=6+draw=marjj+discard=marjj", "marjj",
                                                 "tournament", n_games=2, seed=seed)
                assert len(games) == 2
                return
            h.apply(h.strategy_action("expert"))
    raise AssertionError("no knock decision of seat 1 on its 4th-6th draw with deadwood 1-10 in 600 deals")


def test_knock_threshold_is_knock_at_or_the_limit_in_force():
    from strategies.common import knock_threshold_nb

    view, _ = make_view(HAND, phase=PHASE_KNOCK, deadwood=5)
    assert knock_threshold_nb(-1.0, view) == 10.0 and knock_threshold_nb(4.0, view) == 4.0


@pytest.mark.parametrize("preset", ["oklahoma", "gin_only", "classic"])
def test_strong_players_play_legally_under_other_presets(preset):
    from simulator.studies.strong_study import check_invariants

    check_invariants(simulator.simulate("expert", "random", preset, n_deals=2000, seed=5))
    check_invariants(simulator.simulate("mc:samples=4,search=7", "simple", preset, n_deals=20, seed=5))


# ---- the game-win table ----------------------------------------------------------------


def test_game_win_table_is_symmetric_and_monotone():
    assert abs(GAME_WIN[0, 0] - 0.5) < 1e-9
    assert np.allclose(GAME_WIN + GAME_WIN.T, 1.0)
    assert np.all(np.diff(GAME_WIN, axis=0) >= -1e-12)  # more points, better chances
    assert np.all(np.diff(GAME_WIN, axis=1) <= 1e-12)


def test_game_win_table_solves_a_coin_toss_game_exactly():
    # every hand is won by 50 points by either seat with probability 1/2: to 100 points the
    # first to win two hands wins; from 50-0 that is 3/4
    p = np.zeros(51)
    p[50] = 0.5
    w = game_win_table(p, target=100)
    assert abs(w[50, 0] - 0.75) < 1e-12 and abs(w[0, 0] - 0.5) < 1e-12


def test_inference_probabilities_match_the_numba_belief():
    from simulator.studies.inference import probabilities

    view, _ = make_view(HAND, pile="2c 3d", took="Th Td", discards="3d")
    cand, k, p = probs_of(view)
    cards = [c for c in range(64) if cand >> c & 1]
    feats = np.zeros((len(cards), belief.N_FEATURES))
    f = np.zeros(belief.N_FEATURES)
    for i, c in enumerate(cards):
        belief.features_nb(view, c, f)
        feats[i] = f
    q = probabilities(belief.THETA, feats, np.zeros(len(cards), np.int64), np.array([k]))
    assert np.allclose(q, [p[c] for c in cards])
