"""Playing plain-Python strategies (``strategies.pyplayer``): a Python loop over the hand
state machine that writes the same records as the numba kernels.

``simulator.api.play_deal_records`` / ``play_game_records`` come here when either
strategy of a matchup is a Python one; everything downstream (frames, ``ginsim run``
chunks, reports) is unchanged.  For each hand:

1. the deck, dealer, seats and streams are made exactly as ``simulator.engine.kernels`` makes them
   (``_start_deal_nb`` / ``_start_game_hand_nb``: the same keys, so deal d here is deal d
   of ``simulate``);
2. ``kernels.advance_nb`` (compiled, one call per Python decision) plays the Python seat's
   action, then lets numba strategies play inside numba until a Python seat must decide
   or the hand is over;
3. the Python seat is asked with an ``Observation`` of the state (read lazily), through
   the method for the phase (``strategies.pyplayer.DECISIONS``); its answer is checked
   legal here, so an illegal one, an exception, endless recursion or ``sys.exit`` in the
   strategy (or in its ``__init__``) stops with ``StrategyError``, one line naming the
   strategy, the decision, the cell and deal, and the user's own file and line;
4. ``kernels.record_nb`` fills the hand record, as in the kernels.

Games chain hands as ``kernels.play_game_nb`` does: the same deck keys, and the same
end-of-hand function (``simulator.core.scoring.end_of_hand_nb``: scores, target, next
dealer, guard, totals).  Each Python seat gets a fresh memory dict and a ``numpy`` generator keyed by
the engine's player stream key of its seat (seed, deal or game and hand, A or B), so rows
depend only on the seed, never on chunks, threads or processes.  Python strategies play in
the calling thread; ``ginsim run`` spreads chunks over processes (joblib, Dask).
"""

from __future__ import annotations

import numpy as np

from ..infra.jit import PLAIN
from strategies import view as V
from strategies.pyplayer import Observation, SeatInfo
from strategies.registry import decider_for

from ..core import records as RC
from ..core import state as S
from .kernels import new_hand_nb, record_nb
from ..core.rng import deal_streams_nb, game_hand_streams_nb, game_start_nb
from ..core.rules import MAX_HANDS_PER_GAME, resolve_rules
from ..core.scoring import end_of_hand_nb, new_game_nb


@PLAIN
def _start_deal_nb(seed, deal, mirrored, rules, state, deck, deck_rng, player_rngs, memory, trace, info):
    """Deal deal ``deal`` as ``kernels.play_deal_block_nb`` does; ``info`` gets (pair,
    A's seat, dealer)."""
    pair, dealer, a_seat = deal_streams_nb(seed, deal, mirrored, deck, deck_rng, player_rngs)
    new_hand_nb(state, deck, dealer, np.int64(0), np.int64(0), rules, deck_rng, memory, trace)
    info[0] = pair
    info[1] = a_seat
    info[2] = dealer


@PLAIN
def _start_game_nb(seed, game, mirrored, deck_rng, info):
    """A game's pair, A's seat and first dealer, as ``kernels.play_game_nb``."""
    pair, first_dealer, a_seat = game_start_nb(seed, game, mirrored, deck_rng)
    info[0] = pair
    info[1] = a_seat
    info[2] = first_dealer


@PLAIN
def _start_game_hand_nb(seed, game, pair, a_seat, hand, dealer, score0, score1, rules, state, deck, deck_rng,
                        player_rngs, memory, trace):
    """Deal hand ``hand`` of a game, as ``kernels.play_game_nb``."""
    game_hand_streams_nb(seed, game, pair, hand, a_seat, deck, deck_rng, player_rngs)
    new_hand_nb(state, deck, dealer, score0, score1, rules, deck_rng, memory, trace)


class _Table:
    """The arrays of one matchup, reused for every hand it plays."""

    def __init__(self, a, b, rules, context: str = "", first: str = ""):
        from .select import engine_module, strategy_pair

        self.context = context  # e.g. "cell 3": named with the deal in a strategy's errors
        self.a, self.b, sids_ab, self.params_ab = strategy_pair(a, b)
        self.sids_ab = sids_ab
        self.rules = resolve_rules(rules)
        self.vector = self.rules.to_array()
        self.engine = E = engine_module(sids_ab)
        self.deciders = [decider_for(s, self._who_ab(who), self._place(first)) if s.is_python else None
                         for who, s in enumerate((self.a, self.b))]
        n_rules = len(self.vector)
        self.work = np.zeros(E.work_len(n_rules), np.int64)  # (layout: ``engine.K_*``)
        self.state = self.work[E.K_STATE:E.K_STATE + S.N_STATE]
        self.python_seats = self.work[E.K_PYTHON:E.K_PYTHON + 2]
        self.sids = self.work[E.K_SIDS:E.K_SIDS + 2]
        self.memory = self.work[E.K_MEMORY:E.K_MEMORY + 2 * V.N_MEMORY].reshape(2, V.N_MEMORY)
        self.player_rngs = self.work[E.K_RNGS:E.K_RNGS + 2].view(np.uint64).reshape(2, 1)
        self.seat_rules = self.work[E.K_SEAT_RULES:E.K_SEAT_RULES + 2 * n_rules].reshape(2, n_rules)
        self.fparams = np.zeros((4, self.params_ab.shape[1]), np.float64)  # by seat, then the seats' copies
        self.deck = np.empty(52, np.int64)
        self.deck_rng = np.zeros(1, np.uint64)
        self.trace = np.zeros((0, 3), np.int64)
        self.info = np.zeros(3, np.int64)
        self.seat_deciders = [None, None]

    def seat(self, a_seat: int) -> None:
        """Put A in seat ``a_seat`` and B in the other."""
        for seat in range(2):
            who = 0 if seat == a_seat else 1
            self.sids[seat] = self.sids_ab[who]
            self.fparams[seat] = self.params_ab[who]
            self.fparams[2 + seat] = self.params_ab[who]
            self.seat_rules[seat] = self.vector
            self.python_seats[seat] = self.deciders[who] is not None
            self.seat_deciders[seat] = self.deciders[who]

    def play(self, row: np.ndarray, a_seat: int, where: str) -> bool:
        """Play the dealt hand to its end into ``row``; False when a numba strategy erred
        (its error is in the row)."""
        st, vector = self.state, self.vector
        advance, work, fparams = self.engine.advance_nb, self.work, self.fparams
        infos = [SeatInfo(int(self.player_rngs[seat, 0]), int(row[RC.H_DEAL]), vector)
                 if self.seat_deciders[seat] is not None else None for seat in range(2)]
        row[RC.H_ERROR] = 0
        row[RC.H_ERROR_SEAT] = -1
        row[RC.H_ERROR_VALUE] = 0
        rules, deciders, over = self.rules, self.seat_deciders, 2 * S.PHASE_OVER
        at = advance(work, fparams, vector, -1, row)  # phase * 2 + seat to act
        while 0 <= at != over:
            seat = at & 1
            obs = Observation(st, seat, infos[seat], rules, at >> 1)
            action = deciders[seat].ask(obs, self._who_ab(0 if seat == a_seat else 1), self._place(where))
            at = advance(work, fparams, vector, action, row)
        record_nb(st, row)
        return at >= 0

    def _who_ab(self, who: int) -> str:
        return f"strategy {(self.a, self.b)[who].label!r} ({'AB'[who]})"

    def _place(self, where: str) -> str:
        return ", ".join(p for p in (self.context, where) if p)


def play_deal_records(strategy_a, strategy_b, rules, first_deal: int, n_deals: int, seed: int,
                      mirrored: bool = True, context: str = "") -> np.ndarray:
    """The raw hand records of deals ``first_deal ..`` (as ``api.play_deal_records``;
    ``context``, e.g. ``"cell 3"``, is named in a strategy's errors)."""
    table = _Table(strategy_a, strategy_b, rules, context, f"deal {first_deal}")
    out = np.zeros((n_deals, RC.N_HAND_COLS), dtype=np.int64)
    seed64 = np.uint64(seed)
    for i in range(n_deals):
        deal = first_deal + i
        _start_deal_nb(seed64, deal, bool(mirrored), table.vector, table.state, table.deck, table.deck_rng,
                       table.player_rngs, table.memory, table.trace, table.info)
        pair, a_seat = int(table.info[0]), int(table.info[1])
        row = out[i]
        row[RC.H_DEAL], row[RC.H_PAIR], row[RC.H_A_SEAT] = deal, pair, a_seat
        row[RC.H_GAME] = row[RC.H_HAND_IN_GAME] = -1
        table.seat(a_seat)
        if not table.play(row, a_seat, f"deal {deal}"):
            return out[:i + 1]  # the first error stops the batch (``check_hand_errors`` reports it)
    return out


def play_game_records(strategy_a, strategy_b, rules, first_game: int, n_games: int, seed: int,
                      mirrored: bool = True, with_hands: bool = False, context: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Raw game records (and every hand's record when asked), as
    ``api.play_game_records``."""
    table = _Table(strategy_a, strategy_b, rules, context, f"game {first_game}, hand 0")
    vector = table.vector
    max_hands = np.int64(MAX_HANDS_PER_GAME)
    games = np.zeros((n_games, RC.N_GAME_COLS), dtype=np.int64)
    hand_rows: list[np.ndarray] = []
    seed64 = np.uint64(seed)
    row = np.zeros(RC.N_HAND_COLS, np.int64)
    for i in range(n_games):
        game = first_game + i
        _start_game_nb(seed64, game, bool(mirrored), table.deck_rng, table.info)
        pair, a_seat, first_dealer = (int(x) for x in table.info)
        g = games[i]
        new_game_nb(g, np.int64(game), np.int64(pair), np.int64(a_seat), np.int64(first_dealer))
        dealer = first_dealer
        while dealer >= 0:  # the game's hands, chained by ``end_of_hand_nb`` as in ``kernels.play_game_nb``
            hands = int(g[RC.G_HANDS])
            _start_game_hand_nb(seed64, game, pair, a_seat, hands, dealer, g[RC.G_POINTS0], g[RC.G_POINTS1], vector,
                                table.state, table.deck, table.deck_rng, table.player_rngs, table.memory,
                                table.trace)
            table.seat(a_seat)  # fresh copies of rules and parameters for the hand
            row[:] = 0
            row[RC.H_DEAL], row[RC.H_PAIR], row[RC.H_A_SEAT] = hands, pair, a_seat
            row[RC.H_GAME], row[RC.H_HAND_IN_GAME] = game, hands
            table.play(row, a_seat, f"game {game}, hand {hands}")
            if with_hands:
                hand_rows.append(row.copy())
            dealer = int(end_of_hand_nb(g, row, max_hands, vector))
        if g[RC.G_ERROR]:
            games = games[:i + 1]
            break
    hands_out = np.array(hand_rows, dtype=np.int64).reshape(-1, RC.N_HAND_COLS)
    return games, hands_out


def trace_deal(strategy_a, strategy_b, rules, seed: int, deal: int, mirrored: bool = True):
    """``api.trace_deal`` for a matchup with a Python strategy: the deal re-played step by
    step with ``simulator.Hand`` (same deck, seats and streams as ``play_deal_records``),
    returning its row (plus ``a_seat``) and its events."""
    import pandas as pd

    from .hand import Hand

    hand = Hand(rules, seed=seed, deal=deal, a=strategy_a, b=strategy_b, mirrored=mirrored)
    while not hand.is_over():
        hand.apply(hand.bot_action())
    row = pd.Series(hand.result())
    row["a_seat"] = hand.a_seat
    return row, list(hand.events)
