"""Playing plain-Python strategies (``strategies.pyplayer``): the engine's loop, stopping
whenever a seat played in Python must decide, writes the same records as the batch kernels.

``simulator.api.play_deal_records`` / ``play_game_records`` come here when either
strategy of a matchup is a Python one; everything downstream (frames, ``ginsim run``
chunks, reports) is unchanged.  A matchup keeps one work row (``simulator.engine.work``),
and each hand is played as the batch kernels play it:

1. the hand is started by the work row's start functions (``start_deal_nb``, or for games
   ``start_game_nb`` then ``next_hand_nb``, the one chaining of hands: the same keys, so deal
   d here is deal d of ``simulate``) and the matchup seated (``seat_nb``);
2. the engine's loop (``simulator.engine.loop.run_until_nb``, one call per Python decision
   through ``apply_then_run_nb``) plays the Python seat's move, then lets numba strategies
   play until a Python seat must decide or the hand is over;
3. the Python seat is asked with an ``Observation`` of the state (read lazily), through
   the method for the phase (``strategies.pyplayer.DECISIONS``); its answer is checked
   legal there, so an illegal one, an exception, endless recursion or ``sys.exit`` in the
   strategy (or in its ``__init__``) stops with ``StrategyError``, one line naming the
   strategy, the decision, the cell and deal, and the user's own file and line.

Each Python seat gets a fresh memory dict and a ``numpy`` generator keyed by the engine's
player stream key of its seat (seed, deal or game and hand, A or B), so rows depend only on
the seed, never on chunks, threads or processes.  Python strategies play in the calling
thread; ``ginsim run`` spreads chunks over processes (joblib, Dask).
"""

from __future__ import annotations

import numpy as np

from strategies.pyplayer import Observation, SeatInfo
from strategies.registry import decider_for

from ..core import records as RC
from ..core import state as S
from ..core.constants import K_RNGS, K_SCRATCH, K_STATE, N_VIEW, W_VIEW
from ..core.rules import MAX_HANDS_PER_GAME, resolve_rules
from .work import new_work, next_hand_nb, seat_nb, start_deal_nb, start_game_nb


class _Table:
    """The work row of one matchup, reused for every hand it plays."""

    def __init__(self, a, b, rules, context: str = "", first: str = ""):
        from .select import engine_module, strategy_pair

        self.context = context  # e.g. "cell 3": named with the deal in a strategy's errors
        self.a, self.b, self.sids_ab, self.params_ab = strategy_pair(a, b)
        self.rules = resolve_rules(rules)
        self.vector = self.rules.to_array()
        self.loop = engine_module(self.sids_ab).loop
        #: how a strategy's errors name A and B (``strategy 'label' (A)``)
        self.who_ab = [f"strategy {s.label!r} ({'AB'[who]})" for who, s in enumerate((self.a, self.b))]
        self.deciders = [decider_for(s, self.who_ab[who], self._place(first)) if s.is_python else None
                         for who, s in enumerate((self.a, self.b))]
        self.work = new_work(self.vector, self.params_ab.shape[1])
        self.state = self.work[K_STATE:K_STATE + S.N_STATE]
        self.rngs = self.work[K_RNGS:K_RNGS + 2].view(np.uint64)
        # where the loop stopped for a Python seat, what that seat sees (``run_until_nb``)
        self.seat_view = self.work[K_SCRATCH + W_VIEW:K_SCRATCH + W_VIEW + N_VIEW]
        self.trace = np.zeros((0, 3), np.int64)

    def seat(self, a_seat: int) -> None:
        """Put A in seat ``a_seat`` and B in the other (fresh copies of the parameters)."""
        seat_nb(self.work, np.int64(a_seat), self.sids_ab, self.params_ab)

    def play(self, row: np.ndarray, a_seat: int, where: str) -> bool:
        """Play the dealt hand to its end into ``row``; False when a numba strategy erred
        (its error is in the row)."""
        from .loop import stop_at

        st, vector, work = self.state, self.vector, self.work
        deciders = [self.deciders[0 if seat == a_seat else 1] for seat in range(2)]
        who = [self.who_ab[0 if seat == a_seat else 1] for seat in range(2)]
        place = self._place(where)
        infos = [SeatInfo(int(self.rngs[seat]), int(row[RC.H_DEAL]), vector) if deciders[seat] is not None else None
                 for seat in range(2)]
        stop = np.int64(stop_at([seat for seat in range(2) if deciders[seat] is not None]))
        play, rules, over, trace = self.loop.apply_then_run_nb, self.rules, 2 * S.PHASE_OVER, self.trace
        at = play(work, vector, np.int64(-1), stop, row, trace)  # phase * 2 + seat to act
        while 0 <= at != over:
            seat = at & 1
            # the view the loop filled where it stopped, copied: a player may keep its observations
            obs = Observation(st, seat, infos[seat], rules, view=self.seat_view.copy())
            action = deciders[seat].ask(obs, who[seat], place)
            at = play(work, vector, np.int64(action), stop, row, trace)
        return at >= 0

    def _place(self, where: str) -> str:
        return ", ".join(p for p in (self.context, where) if p)


def play_deal_records(strategy_a, strategy_b, rules, first_deal: int, n_deals: int, seed: int,
                      mirrored: bool = True, context: str = "") -> np.ndarray:
    """The raw hand records of deals ``first_deal ..`` (as ``api.play_deal_records``;
    ``context``, e.g. ``"cell 3"``, is named in a strategy's errors)."""
    table = _Table(strategy_a, strategy_b, rules, context, f"deal {first_deal}")
    out = np.zeros((n_deals, RC.N_HAND_COLS), dtype=np.int64)
    seed64, zero = np.uint64(seed), np.int64(0)
    for i in range(n_deals):
        deal = first_deal + i
        row = out[i]
        _, _, a_seat = start_deal_nb(table.work, seed64, np.int64(deal), bool(mirrored), zero, zero, table.vector, row,
                                     table.trace)
        table.seat(int(a_seat))
        if not table.play(row, int(a_seat), f"deal {deal}"):
            return out[:i + 1]  # the first error stops the batch (``check_hand_errors`` reports it)
    return out


def play_game_records(strategy_a, strategy_b, rules, first_game: int, n_games: int, seed: int,
                      mirrored: bool = True, with_hands: bool = False, context: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Raw game records (and every hand's record when asked), as
    ``api.play_game_records``."""
    table = _Table(strategy_a, strategy_b, rules, context, f"game {first_game}, hand 0")
    max_hands = np.int64(MAX_HANDS_PER_GAME)
    games = np.zeros((n_games, RC.N_GAME_COLS), dtype=np.int64)
    hand_rows: list[np.ndarray] = []
    seed64 = np.uint64(seed)
    row = np.zeros(RC.N_HAND_COLS, np.int64)
    for i in range(n_games):
        game = first_game + i
        g = games[i]
        row[:] = 0
        a_seat = int(start_game_nb(table.work, seed64, np.int64(game), bool(mirrored), table.vector, g, row,
                                   table.trace))
        dealer = 0
        while dealer >= 0:  # the game's hands, chained by ``next_hand_nb`` as in the batch kernel
            table.seat(a_seat)  # a fresh copy of the parameters for the hand
            table.play(row, a_seat, f"game {game}, hand {int(row[RC.H_HAND_IN_GAME])}")
            if with_hands:
                hand_rows.append(row.copy())
            dealer = int(next_hand_nb(table.work, g, max_hands, table.vector, row, table.trace))
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
