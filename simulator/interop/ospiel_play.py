"""OpenSpiel's algorithms on ``python_ginsim`` (``simulator.interop.ospiel_game``).

* ``RolloutEvaluator``: an evaluator for OpenSpiel's MCTS and ISMCTS that plays a state to
  its end with a ginsim strategy in both seats (``simple`` by default; OpenSpiel's own
  ``RandomRolloutEvaluator`` plays uniformly random moves, which in Gin Rummy rarely knock).
* ``ismcts_match``: OpenSpiel's ISMCTS bot (``open_spiel.python.algorithms.ismcts``) against a
  ginsim strategy on the same decks in both seats, with points per hand, a paired 95% interval
  and the CPU time of its decisions (``examples/openspiel_ismcts.py`` runs it).
* ``bench_game``: steps per CPU-second of ``python_ginsim`` beside OpenSpiel's C++
  ``gin_rummy``, both played at random (``ginsim bench --openspiel-game``).
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass, field

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from strategies import parse_strategy

from ..analysis.stats import mean_interval
from ..core.cards import DECK
from .openspiel import os_card
from .ospiel_game import SHORT_NAME, GinsimGame, GinsimState, StrategyBot
from ..core.rng import numpy_generator, python_random, random_state

__all__ = ["RolloutEvaluator", "MatchResult", "ismcts_match", "deck_chance", "bench_game"]


class RolloutEvaluator(mcts.Evaluator):
    """Values a ``python_ginsim`` state by playing it to its end ``n_rollouts`` times with
    ``strategy`` in both seats (``StrategyBot``) and chance drawn from ``random_state``; the
    prior is uniform over the legal moves (chance: its outcomes)."""

    def __init__(self, strategy="simple", n_rollouts: int = 1, random_state=None):
        if isinstance(n_rollouts, bool) or not isinstance(n_rollouts, int) or n_rollouts < 1:
            raise ValueError(f"n_rollouts must be a positive integer, got {n_rollouts!r}")
        self.n_rollouts = n_rollouts
        self.bots = [StrategyBot(0, strategy), StrategyBot(1, strategy)]
        self._rng = random_state or random_state()

    def evaluate(self, state: GinsimState) -> np.ndarray:
        total = np.zeros(2)
        for _ in range(self.n_rollouts):
            s = state.clone()
            while not s.is_terminal():
                if s.is_chance_node():
                    outcomes = s.chance_outcomes()
                    s.apply_action(outcomes[self._rng.randint(len(outcomes))][0])
                else:
                    s.apply_action(self.bots[s.current_player()].step(s))
            total += s.returns()
        return total / self.n_rollouts

    def prior(self, state: GinsimState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def deck_chance(state: GinsimState, deck: list[int]) -> int:
    """The chance outcome that deals ``deck`` (52 card codes in ginsim's dealing order: the
    non-dealer's and the dealer's cards alternately, the upcard, the stock from the top; as
    ``simulator.Hand(deck=...)`` deals it): during the deal the next card in OpenSpiel's
    order (the non-dealer's ten, the dealer's ten, the upcard), at a stock draw the first card
    of the deck's stock still in the stock (after a reshuffle: the reshuffled pile's cards in
    the deck's order)."""
    if state.hand is None:
        dealer = state._dealer
        seats = {1 - dealer: deck[0:20:2], dealer: deck[1:20:2]}
        order = seats[0] + seats[1] + deck[20:21]
        return os_card(order[len(state._dealt)])
    left = set(state.hand.stock())
    return os_card(next(c for c in deck[21:] + deck[:21] if c in left))


def _deck(seed: int, i: int, hand_no: int = 0) -> list[int]:
    """Deck ``i`` (hand ``hand_no`` of a game) of a match seeded ``seed``: numpy's PCG64 keyed
    by (seed, i, hand)."""
    return [int(c) for c in numpy_generator(seed, i, hand_no).permutation(DECK)]


@dataclass
class MatchResult:
    """``ismcts_match``'s result: points per hand (per game with ``whole_game``) to the ISMCTS
    bot with a 95% Student t interval over decks (a deck, played once in each seat, is one
    paired unit), the shares it won and lost, and the CPU time of its decisions (those with
    more than one legal move; ISMCTS answers a single legal move at once)."""

    game: str
    opponent: str
    per: str  # "hand", or "game" with whole_game
    n_decks: int
    seed: int
    simulations: int
    uct_c: float
    rollout: str
    net_mean: float
    net_ci_low: float
    net_ci_high: float
    won: float
    lost: float
    decisions: int
    cpu_s_per_decision: float
    cpu_s: float
    per_deck: list = field(default_factory=list, repr=False)

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out.pop("per_deck")
        return out


def ismcts_match(game="python_ginsim(preset=tournament)", opponent="simple", n_decks: int = 20,
                 simulations: int = 200, uct_c: float = 20.0, rollout="simple", max_world_samples: int = -1,
                 seed: int = 0, progress=None) -> MatchResult:
    """OpenSpiel's ISMCTS (``ismcts.ISMCTSBot``: ``simulations`` simulations per decision,
    UCT constant ``uct_c`` in points, the most visited move; each simulation starts from
    ``resample_from_infostate``, ``max_world_samples`` > 0 reuses that many) against the ginsim
    strategy ``opponent`` (``StrategyBot``), on ``n_decks`` decks each played twice (ISMCTS as
    player 0, then as player 1).  Its leaves are valued by ``RolloutEvaluator(rollout)`` (a
    ginsim strategy in both seats) or, with ``rollout="random"``, OpenSpiel's
    ``RandomRolloutEvaluator``.  ``game`` is a ``python_ginsim`` game or its name."""
    if isinstance(n_decks, bool) or not isinstance(n_decks, int) or n_decks < 1:
        raise ValueError(f"n_decks must be a positive integer, got {n_decks!r}")
    if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
        raise ValueError(f"simulations must be a positive integer, got {simulations!r}")
    if isinstance(game, str):
        game = pyspiel.load_game(game)
    if not isinstance(game, GinsimGame):
        raise ValueError(f"game must be a {SHORT_NAME} game or its name, got {game}")
    rng = random_state(seed)
    if rollout == "random":
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    else:
        evaluator = RolloutEvaluator(rollout, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c, simulations, max_world_samples=max_world_samples,
                           random_state=rng)
    per_deck, won, lost, decisions, thinking = [], 0, 0, 0, 0.0
    t0 = time.process_time()
    for i in range(n_decks):
        points = []
        for seat in (0, 1):
            players = [None, None]
            players[1 - seat] = StrategyBot(1 - seat, opponent)
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(deck_chance(state, _deck(seed, i, state._hand_no)))
                elif state.current_player() == seat:
                    if len(state.legal_actions()) > 1:
                        start = time.process_time()
                        action = bot.step(state)
                        thinking += time.process_time() - start
                        decisions += 1
                    else:
                        action = state.legal_actions()[0]
                    state.apply_action(action)
                else:
                    state.apply_action(players[1 - seat].step(state))
            r = state.returns()[seat]
            points.append(r)
            won += r > 0
            lost += r < 0
        per_deck.append(sum(points) / 2)
        if progress is not None:
            progress(i + 1, n_decks)
    mean, low, high = mean_interval(per_deck)
    return MatchResult(str(game), parse_strategy(opponent).label, "game" if game.whole_game else "hand", n_decks, seed, simulations, float(uct_c), str(rollout), mean,
                       low, high, won / (2 * n_decks), lost / (2 * n_decks), decisions,
                       thinking / max(decisions, 1), time.process_time() - t0, per_deck)


def bench_game(seconds: float = 2.0, preset: str = "single_hand", seed: int = 1) -> dict:
    """Steps per CPU-second of ``python_ginsim(preset=...)`` and of OpenSpiel's C++
    ``gin_rummy``, each played at random for about ``seconds`` of CPU time back to back in
    this process: a step is one ``apply_action``, chance outcomes and decisions alike, with
    the chance outcomes or legal moves listed before it (OpenSpiel's random simulation)."""
    rng = python_random(seed)
    result = {"preset": preset}
    for label, name in (("python_ginsim", f"{SHORT_NAME}(preset={preset})"), ("gin_rummy", "gin_rummy")):
        game = pyspiel.load_game(name)
        steps, hands = 0, 0
        _random_hand(game, rng)  # warm: the kernels loaded
        t0 = time.process_time()
        while time.process_time() - t0 < seconds:
            steps += _random_hand(game, rng)
            hands += 1
        spent = time.process_time() - t0
        result[f"{label}_steps_per_cpu_s"] = steps / spent
        result[f"{label}_hands_per_cpu_s"] = hands / spent
    result["ratio"] = result["python_ginsim_steps_per_cpu_s"] / result["gin_rummy_steps_per_cpu_s"]
    return result


def _random_hand(game, rng: random.Random) -> int:
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    return steps


def print_bench(r: dict) -> None:
    print(f"\nOpenSpiel games played at random, steps per CPU-second (chance outcomes included): "
          f"python_ginsim(preset={r['preset']}) {r['python_ginsim_steps_per_cpu_s']:,.0f} "
          f"({r['python_ginsim_hands_per_cpu_s']:,.0f} hands); OpenSpiel's C++ gin_rummy "
          f"{r['gin_rummy_steps_per_cpu_s']:,.0f} ({r['gin_rummy_hands_per_cpu_s']:,.0f} hands); "
          f"ratio {r['ratio']:.2f}")
