"""``simulator.Hand``: one hand of Gin Rummy to step through, inspect, copy and undo.

A ``Hand`` wraps the engine's state array (``simulator.core.state``) and plays it with the same
phase functions the batch engine runs, so a hand driven here follows exactly the rules
``simulate`` plays.  ``Hand(rules, seed, deal)`` starts from the same deck, dealer and seats
as deal ``deal`` of ``simulate(..., seed=seed)``; with the strategies ``a`` and ``b`` of that
call, ``bot_action()`` gives each seat's move from the same random streams, so playing
``bot_action()`` until the end reproduces the call's row exactly.

    >>> import simulator
    >>> h = simulator.Hand(rules="hoyle", seed=0, deal=0, a="simple", b="knock_early")
    >>> h.phase_name, h.current_player in (0, 1)
    ('first_upcard', True)
    >>> [simulator.action_name(a) for a in h.legal_actions()]
    ['take pile', 'pass']
    >>> g = h.clone(); g.apply(g.legal_actions()[1]); h.phase_name   # h is unchanged
    'first_upcard'
    >>> while not h.is_over():
    ...     h.apply(h.bot_action())
    >>> h.result() == simulator.simulate("simple", "knock_early", "hoyle", n_deals=1, seed=0).iloc[0].to_dict()
    True

Actions are small integers, named by ``simulator.actions`` (``discard(c)``, ``DRAW_STOCK``,
``TAKE_PILE``, ``PASS``, ``KNOCK``, ``PLAY_ON``, ``lay_out(k)``, ``DEFEND_BEST``,
``defend(k)``, ``DEFEND_NO_LAYOFFS``); ``simulator.action_name`` names one.
An illegal action raises ``ValueError`` with one line naming it and the legal ones.
``observation(player)`` is what that player may know, readable; it never shows the
opponent's hand or the stock.

Stepping costs one numba call per method: the hand lives in one work row
(``simulator.engine.work``: the state, the seats' random streams, memories and the copies
lent to strategies), so ``legal_actions``, ``apply`` and ``bot_action`` each make one call
on arrays the ``Hand`` keeps, and ``clone`` copies that one array.  A hand is dealt by the
work row's start functions and its bots asked by the engine's loop
(``simulator.engine.loop.ask_seat_nb``), as every driver deals and asks.
"""

from __future__ import annotations

import copy

import numpy as np

from strategies import view as V

from ..core import state as S
from ..core.constants import (
    K_DECK,
    K_DECK_RNG,
    K_N_RULES,
    K_RECORD,
    K_RNGS,
    K_SIDS,
    K_STATE,
    K_WIDTH,
    N_OBS,
    N_PARAMS,
    N_VIEW,
    R_TARGET,
)
from ..core.cards import DECK, as_codes, format_card, mask_cards
from ..core.errors import StrategyError
from ..core.observation import encode_state_nb
from ..core.hand_reading import (
    dealer_of,
    events_of,
    hand_of,
    knocker_of,
    phase_of,
    pile_of,
    reset_trace,
    result_of,
    seat_to_act,
    set_stock_order,
    stock_left,
    stock_of,
    trace_count,
    turn_of,
)
from ..core.presentation import view_record
from ..core.view_fill import view_of
from ..core.melds import arrangement_nb, discard_deadwoods_nb, min_deadwood_nb
from ..core.records import G_PAIR, G_POINTS0, G_POINTS1, H_ERROR_SEAT, H_HAND_IN_GAME, N_GAME_COLS, N_HAND_COLS
from ..core.rules import MAX_HANDS_PER_GAME, MAX_TARGET, Rules, resolve_rules
from ..core.scoring import points_to_seat_nb
from ..infra.inputs import argument, int_pair
from .work import (
    new_work,
    next_hand_nb,
    record_nb,
    seat_one_nb,
    start_deal_nb,
    start_deck_nb,
    start_game_hand_nb,
    start_game_nb,
)

_TRACE_ROWS = 64  # events one action can write (a deal writes 21)
_PLAY_TRACE_ROWS = 4096  # events ``Hand._play`` keeps (far more than a hand writes)


def _cards(mask: int) -> list[str]:
    return [format_card(c) for c in mask_cards(int(mask))]


#: the fields of ``HandResult`` that are card masks (``Hand.observation`` lists their cards)
_RESULT_MASKS = ("knocker_sets", "knocker_runs", "laid_off", "defender_melds")


class Hand:
    """One hand, from a deal of ``simulate`` or from an explicit deck.

    ``Hand(rules="hoyle", seed=0, deal=0, mirrored=True)`` deals deal ``deal`` of
    ``simulate(..., seed=seed, mirrored=mirrored)``: the same deck, dealer and seats (A sits
    in ``a_seat``), and each seat's random stream as the batch engine keys it.  ``a`` and
    ``b`` (strategy specs, optional) are the strategies of A and B for ``bot_action``.

    ``Hand(rules, seed, deal=g, hand_in_game=k, dealer=d, scores=(s0, s1))`` deals hand ``k``
    of game ``g`` of ``simulate_games(..., seed=seed, mirrored=mirrored)``: its deck and
    streams; the dealer and scores, which depend on the hands before, are given (hand 0's
    dealer defaults to the game's first dealer).

    ``Hand(deck=..., dealer=0, ...)`` deals an explicit 52-card deck instead (cards 0..19
    alternately to the non-dealer and the dealer, card 20 the upcard, the rest the stock in
    drawing order), with A in seat 0 and the streams of ``simulator.api.play_deck``;
    ``deck_stream`` (an int64) replaces its reshuffle stream (``rules.reshuffle_stock``),
    so a deal of a run dealt again from its deck reshuffles as the run did
    (``simulator.run.handhistory``).
    ``scores`` are the game scores before the hand, as the players see them.
    """

    def __init__(self, rules: Rules | str | dict = "hoyle", seed: int = 0, deal: int = 0, *,
                 a=None, b=None, mirrored: bool = True, deck=None, dealer: int | None = None,
                 scores=(0, 0), hand_in_game: int | None = None, deck_stream: int | None = None):
        self._setup(rules, seed, a, b)
        mirrored = argument("mirrored", mirrored, "bool")
        s0, s1 = (np.int64(x) for x in int_pair("scores", scores, 0, MAX_TARGET - 1))
        record = self._work[K_RECORD:K_RECORD + N_HAND_COLS]
        self.game, self.hand_in_game = -1, -1
        if deck_stream is not None and (deck is None or isinstance(deck_stream, bool)
                                        or not isinstance(deck_stream, (int, np.integer))
                                        or not -2**63 <= deck_stream < 2**63):
            raise ValueError(f"deck_stream must be an int64 and comes with an explicit deck, got {deck_stream!r}")
        if deck is not None:
            cards = np.array(as_codes(deck), dtype=np.int64)
            if len(cards) != 52 or set(cards.tolist()) != set(DECK.tolist()):
                raise ValueError("deck must list all 52 cards exactly once")
            dealer = argument("dealer", 0 if dealer is None else dealer, "int", 0, 1, text="seat 0 or 1")
            if deck_stream is None:
                start_deck_nb(self._work, cards, np.int64(dealer), s0, s1, np.uint64(self.seed), self._rules,
                              record, self._trace)
            else:
                start_deck_nb(self._work, cards, np.int64(dealer), s0, s1, np.uint64(self.seed), self._rules,
                              record, self._trace, np.int64(deck_stream))
            self._dealt(0, 0, 0)
            return
        deal = argument("deal", deal, "int", low=0)
        # the deck and streams as the batch kernels key them (one definition: simulator.engine.work)
        if hand_in_game is None:
            pair, dealt, a_seat = start_deal_nb(self._work, np.uint64(self.seed), np.int64(deal), bool(mirrored), s0,
                                                s1, self._rules, record, self._trace)
            if dealer is not None and dealer != dealt:
                raise ValueError("dealer is set by the deal; give an explicit deck to choose it")
            self._dealt(deal, pair, a_seat)
            return
        hand_in_game = argument("hand_in_game", hand_in_game, "int", low=0)
        if dealer is None and hand_in_game:
            raise ValueError("dealer is needed for a hand after a game's first: it depends on the hands before")
        if dealer is not None:
            dealer = argument("dealer", dealer, "int", 0, 1, text="seat 0 or 1")
        pair, _, a_seat = start_game_hand_nb(self._work, np.uint64(self.seed), np.int64(deal), np.int64(hand_in_game),
                                             np.int64(-1 if dealer is None else dealer), s0, s1, bool(mirrored),
                                             self._rules, record, self._trace)
        self.game, self.hand_in_game = deal, int(hand_in_game)
        self._dealt(int(hand_in_game), pair, a_seat)

    def _setup(self, rules, seed, a, b) -> None:
        """The rules, the strategies and a work row (``simulator.engine.work``) wide enough
        for their parameter rows; the hand is dealt into it next."""
        from strategies import parse_strategy

        self.rules = resolve_rules(rules)
        self._rules = self.rules.to_array()
        self.strategies = tuple(None if s is None else parse_strategy(s) for s in (a, b))
        self.seed = argument("seed", seed, "int", 0, 2**64 - 1, text="an integer from 0 to 2**64 - 1")
        width = max([N_PARAMS] + [len(s.row) for s in self.strategies if s is not None])
        self._work = new_work(self._rules, width)  # the hand and its seats' companions
        self._state = self._work[K_STATE:K_STATE + S.N_STATE]
        self._legal = np.zeros(S.MAX_LEGAL, np.int64)  # legal_actions' output (scratch)
        self._bots: list = [None, None]  # per seat: (loop, sid, params, lent params) once asked
        self._python_seats: dict = {}  # seat -> SeatInfo of a Python strategy asked here
        self._seated: dict = {}  # seat -> the strategy seated in the work row (``_seat``)
        self._trace = np.zeros((_TRACE_ROWS, 3), np.int64)  # written and read within one call
        self.events: list[tuple[int, str, int]] = []

    def _dealt(self, deal: int, pair: int, a_seat: int) -> None:
        """The hand is dealt: its numbers, its strategies seated (those given: the engine's
        loop can play them on from here, ``_play``) and the deal's events."""
        self.deal, self.pair, self.a_seat = int(deal), int(pair), int(a_seat)
        for who, strategy in enumerate(self.strategies):
            if strategy is not None:
                self._seat(self.a_seat if who == 0 else 1 - self.a_seat, strategy)
        self._collect_events()

    def _seat(self, seat: int, strategy) -> None:
        """Seat ``strategy`` (a Python one gets its negative id: the loop stops there) in
        ``seat`` of the work row, widening the row for a longer parameter row (a hybrid's)."""
        row = np.ascontiguousarray(strategy.row, dtype=np.float64)
        self._seated[seat] = strategy
        if len(row) > self._work[K_WIDTH]:  # a wider row: the fixed blocks kept, every seat seated again
            wider = new_work(self._rules, len(row))
            wider[:K_N_RULES] = self._work[:K_N_RULES]
            self._work, self._state = wider, wider[K_STATE:K_STATE + S.N_STATE]
        for at, seated in self._seated.items():
            padded = np.zeros(int(self._work[K_WIDTH]), np.float64)
            padded[:len(seated.row)] = seated.row
            seat_one_nb(self._work, np.int64(at), np.int64(seated.sid), padded)

    def _play(self, stop: int) -> int:
        """Let the seated strategies play with the engine's loop
        (``simulator.engine.loop.run_until_nb``) until the seat to act in the phase it is in is
        one ``stop`` names (``simulator.engine.loop.stop_at``), a seat without a numba strategy
        must act, or the hand is over; the events are added to ``events``.  Returns what
        ``run_until_nb`` returns (-1: a strategy erred, its error in the hand's record)."""
        from .loop import stop_at
        from .select import loop_module

        sids = self._work[K_SIDS:K_SIDS + 2]
        stop |= stop_at([seat for seat in range(2) if sids[seat] < 0])
        st = self._state
        reset_trace(st)
        trace = np.empty((_PLAY_TRACE_ROWS, 3), np.int64)
        at = loop_module([s for s in sids.tolist() if s >= 0]).run_until_nb(
            self._work, self._rules, np.int64(stop), self._work[K_RECORD:K_RECORD + N_HAND_COLS], trace)
        self.events.extend(events_of(trace, trace_count(st)))
        return int(at)

    @property
    def _rngs(self) -> np.ndarray:
        """The seats' random streams (2 uint64, by seat: a view into the work row)."""
        return self._work[K_RNGS:K_RNGS + 2].view(np.uint64)

    # ---- the state ------------------------------------------------------------------------
    @property
    def state(self) -> np.ndarray:
        """The state array (``simulator.core.state``), read-only: change it through ``apply``."""
        view = self._state.view()
        view.setflags(write=False)
        return view

    @property
    def current_player(self) -> int:
        """The seat to act (0 or 1), -1 once the hand is over."""
        return seat_to_act(self._state)

    @property
    def phase(self) -> int:
        """The phase (``simulator.core.state.PHASE_*``; ``phase_name`` names it)."""
        return phase_of(self._state)

    @property
    def phase_name(self) -> str:
        return S.PHASE_NAMES[self.phase]

    @property
    def dealer(self) -> int:
        return dealer_of(self._state)

    @property
    def deck(self) -> list[int]:
        """The 52 cards the hand was dealt from (codes, in dealing order: the ``deck`` that
        ``Hand(deck=...)`` takes).  Neither player may know them all."""
        return self._work[K_DECK:K_DECK + 52].tolist()

    @property
    def deck_stream(self) -> int:
        """The deck's stream (int64), which reshuffles the pile (``rules.reshuffle_stock``):
        the ``deck_stream`` that deals the hand again from ``deck`` with the same reshuffles."""
        return int(self._work[K_DECK_RNG])

    def is_over(self) -> bool:
        return self.phase == S.PHASE_OVER

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to act, in increasing order (empty once over)."""
        n = _legal_actions_nb(self._state, self._rules, self._legal)
        return self._legal[:n].tolist()

    def apply(self, action: int) -> None:
        """Play ``action`` for the player to act; the automatic steps that follow (a draw
        after both pass the upcard, big gin, the end of the stock, layoffs and the score
        after the defence) are played too.  An illegal action raises ``ValueError`` and changes
        nothing (the phase functions refuse it, ``simulator.core.state.apply_action_nb``)."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < S.N_ACTIONS:
            raise ValueError(self._illegal(action, self.legal_actions()))
        st = self._state
        before = trace_count(st)
        reset_trace(st)
        if _apply_action_nb(st, self._rules, action, self._trace) != S.ERR_NONE:
            reset_trace(st, before)
            raise ValueError(self._illegal(action, self.legal_actions()))
        self.events.extend(events_of(self._trace, trace_count(st)))

    def _illegal(self, action, legal: list[int]) -> str:
        what = _name(action)
        if self.is_over():
            return f"illegal action {what}: the hand is over"
        names = ", ".join(f"{a} ({S.action_name(a)})" for a in legal)
        return (f"illegal action {what} for player {self.current_player} in phase {self.phase_name}; "
                f"legal: {names}")

    def _collect_events(self) -> None:
        self.events.extend(events_of(self._trace, trace_count(self._state)))

    def clone(self) -> "Hand":
        """An independent copy (state, random streams, memories, events): playing it leaves
        this hand as it is.  It copies the work array; the rules, the trace buffer and the
        strategies' parameter rows are shared (never changed by play)."""
        other = object.__new__(type(self))
        fields = self.__dict__.copy()
        fields["_work"] = work = self._work.copy()
        fields["_state"] = work[K_STATE:_STATE_END]
        fields["events"] = self.events.copy()
        fields["_python_seats"] = copy.deepcopy(self._python_seats) if self._python_seats else {}
        fields["_seated"] = dict(self._seated)
        other.__dict__ = fields
        return other

    def __deepcopy__(self, memo) -> "Hand":
        """``copy.deepcopy`` is ``clone`` (pyspiel clones a Python game's state by deep-copying
        its fields)."""
        return self.clone()

    def __getstate__(self) -> dict:
        """A ``Hand`` pickles (pyspiel clones and serializes a Python game's state by
        pickling it: ``simulator.interop.ospiel_game``): its work array, rules, events and
        strategies, without the scratch buffers and the engines its seats were asked through
        (found again at the next ``bot_action``)."""
        fields = self.__dict__.copy()
        for scratch in ("_state", "_legal", "_trace"):
            del fields[scratch]
        fields["_bots"] = [None, None]
        return fields

    def __setstate__(self, fields: dict) -> None:
        self.__dict__.update(fields)
        self._state = self._work[K_STATE:_STATE_END]
        self._legal = np.zeros(S.MAX_LEGAL, np.int64)
        self._trace = np.zeros((_TRACE_ROWS, 3), np.int64)

    # ---- the stock: hidden from both players --------------------------------------------
    def stock(self) -> list[int]:
        """The cards left in the stock (codes), the next draw first.  Neither player may
        know them: this is for a driver that decides the stock's draws itself, as
        OpenSpiel's chance nodes do (``simulator.interop.ospiel_game``)."""
        return stock_of(self._state)

    def set_stock(self, cards) -> None:
        """Put the cards left in the stock in the order ``cards`` (codes or a card string,
        the next draw first): the same cards, reordered (a ``ValueError`` otherwise, and
        nothing changes).  Nothing else depends on the stock's order, so the hand plays on
        as if the stock had been shuffled so."""
        codes = as_codes(cards) if isinstance(cards, str) else [int(c) for c in cards]
        left = stock_of(self._state)
        if sorted(codes) != sorted(left):  # (bad codes, repeats too)
            raise ValueError(f"set_stock needs the {len(left)} cards left in the stock, reordered; got "
                             + (" ".join(format_card(c) if c in _CARD_CODES else str(c) for c in codes) or "none"))
        set_stock_order(self._state, codes)

    # ---- what a player may know ----------------------------------------------------------
    def view(self, player: int) -> np.ndarray:
        """The view vector a numba strategy in seat ``player`` would get now
        (``strategies.view``)."""
        self._check_player(player)
        return view_of(self._state, player)

    def observation(self, player: int) -> dict:
        """What ``player`` may know, readable: its hand (cards), its deadwood (with 11 cards:
        after its best legal discard), the card it just drew and its legal discards (when
        it must discard), the pile (bottom first) and its top, what the opponent took from
        the pile and still holds, discarded and declined, the stock's size, the knock limit,
        turns, draws, scores, the phase and whose turn it is; once the knocker has laid
        out, its melds and deadwood (what the defender defends against); once the hand is
        over, the result, the defender's melds and its layoffs.  Never the opponent's hand
        or the stock.  Every slot of the view is there under its Python name
        (``simulator.core.view_fields``), cards as text; ``deadwood``, ``pile`` (in order),
        ``scores``, ``knocker_melds`` and ``result`` are computed from them and the hand."""
        self._check_player(player)
        v = view_of(self._state, player)
        obs = {"player": player, "current_player": self.current_player, **view_record(v)}
        hand = int(v[V.V_HAND])
        if bin(hand).count("1") == 11 and v[V.V_LEGAL_DISCARDS]:
            obs["deadwood"] = int(discard_deadwoods_nb(np.int64(hand), np.int64(v[V.V_LEGAL_DISCARDS]))[0])
        else:
            obs["deadwood"] = int(min_deadwood_nb(np.int64(hand))) if bin(hand).count("1") <= 11 else None
        obs["pile"] = [format_card(c) for c in pile_of(self._state)]
        obs["scores"] = (obs["score"], obs["opponent_score"])
        if self.phase == S.PHASE_DEFEND:
            obs["knocker_melds"] = {"sets": obs["knocker_sets"], "runs": obs["knocker_runs"],
                                    "deadwood": obs["knocker_deadwood"]}
        result = result_of(self._state)
        if result is not None:
            obs["result"] = {name: _cards(value) if name in _RESULT_MASKS else value
                             for name, value in result._asdict().items()}
        return obs

    def observation_vector(self, player: int) -> np.ndarray:
        """What ``player`` may know as the RL environments' float32 vector (``N_OBS`` values,
        laid out as ``simulator.env.encoding`` documents): its view encoded by
        ``simulator.core.observation.encode_state_nb``, the one encoder of observations."""
        self._check_player(player)
        out = np.empty(N_OBS, np.float32)
        encode_state_nb(self._state, np.int64(player), self._rules[R_TARGET], np.empty(N_VIEW, np.int64), out)
        return out

    def _check_player(self, player) -> None:
        if player not in (0, 1):
            raise ValueError(f"player must be seat 0 or 1, got {player!r}")

    # ---- strategies ------------------------------------------------------------------------
    def strategy_action(self, spec=None) -> int:
        """The action strategy ``spec`` (a spec string or ``Strategy``; default: the seat's
        own, ``a`` or ``b``) chooses for the player to act, asked exactly as the batch
        engine asks it: the same view, the seat's random stream and memory (both advance)
        and copies of the pile, rules and parameters.  A knocker's melds become their
        ``A_ARRANGE + k`` action, a defender's melds their ``A_DEFEND + k`` action.  A strategy that answers illegally or writes into a copy
        raises ``StrategyError`` (a ``ValueError``) in one line."""
        from strategies import parse_strategy
        from .select import loop_module

        if self.is_over():
            raise ValueError("the hand is over: no player to act")
        seat = self.current_player
        if spec is None:
            strategy = self.strategies[0 if seat == self.a_seat else 1]
            if strategy is None:
                raise ValueError(f"seat {seat} has no strategy: give Hand(a=..., b=...) or a spec")
        else:
            strategy = parse_strategy(spec)
        if strategy.is_python:  # a plain-Python strategy (``strategies.pyplayer``)
            return self._python_action(strategy, seat)
        params = np.ascontiguousarray(strategy.row, dtype=np.float64)
        bot = (loop_module([strategy.sid]), np.int64(strategy.sid), params, params.copy())
        if spec is None:
            self._bots[seat] = bot  # bot_action asks it directly from now on
        return self._numba_action(bot, strategy)

    def _numba_action(self, bot, strategy) -> int:
        loop, sid, params, lent = bot
        action, err, value = loop.ask_seat_nb(self._work, sid, params, lent, self._rules, self._legal)
        if err:
            raise StrategyError(self._answer_error(strategy, int(action), int(err), int(value)))
        return int(action)

    def _answer_error(self, strategy, action: int, err: int, x: int) -> str:
        """The one-line message of an answer ``simulator.engine.loop.ask_seat_nb`` refused."""
        who = f"strategy {strategy.label!r} (seat {self.current_player})"
        lent = {S.ERR_WROTE_PILE: "the discard pile", S.ERR_WROTE_RULES: "the rule vector",
                S.ERR_WROTE_PARAMS: "its parameter row"}
        if err in lent:
            return f"{who} wrote into {lent[err]} it was given; pile, rules and params are read-only"
        if err == S.ERR_WROTE_MEMORY:
            return f"{who} wrote past the end of its memory (slot {x}; memory is {S.N_MEMORY} slots long)"
        if err == S.ERR_ILLEGAL_DISCARD:
            return f"{who} discarded {x}, which is not a card (codes are suit * 16 + rank 0..12)"
        if err == S.ERR_BAD_MELDS:
            verb = "laid out" if self.phase == S.PHASE_ARRANGE else "defended with"
            return (f"{who} {verb} melds {_cards(x) if x >= 0 else hex(x)}, which are not a least-deadwood "
                    "arrangement of its hand")
        return (f"{who} chose {_name(action)}, which is not legal; legal: "
                + ", ".join(S.action_name(a) for a in self.legal_actions()))

    def _python_action(self, strategy, seat: int) -> int:
        """Ask a Python strategy, with the seat's memory dict and generator for this hand
        (keyed by the seat's stream key, as ``simulator.engine.pydriver`` keys them)."""
        from strategies.pyplayer import Observation, SeatInfo
        from strategies.registry import decider_for

        info = self._python_seats.get(seat)
        if info is None:
            info = self._python_seats[seat] = SeatInfo(int(self._rngs[seat]), self.deal, self._rules)
        obs = Observation(self._state, seat, info, self.rules)
        who, where = f"strategy {strategy.label!r} (seat {seat})", f"deal {self.deal}"
        return decider_for(strategy, who, where).ask(obs, who, where)

    def bot_action(self) -> int:
        """The action of the seat's own strategy (``a`` or ``b``): ``strategy_action()``,
        one numba call once the seat's strategy has been asked."""
        st = self._state
        seat = seat_to_act(st)
        bot = self._bots[seat] if seat >= 0 else None
        if bot is None:
            return self.strategy_action(None)
        loop, sid, params, lent = bot
        action, err, value = loop.ask_seat_nb(self._work, sid, params, lent, self._rules, self._legal)
        if err:
            raise StrategyError(self._answer_error(self.strategies[0 if seat == self.a_seat else 1],
                                                   int(action), int(err), int(value)))
        return int(action)

    # ---- the outcome -----------------------------------------------------------------------
    def record(self) -> np.ndarray:
        """The hand's raw int64 record (``simulator.core.records.HAND_RECORD_NAMES``), as the
        batch engine writes it for this deal."""
        out = self._work[K_RECORD:K_RECORD + N_HAND_COLS].copy()  # its ids, from the deal
        record_nb(self._state, out)
        out[H_ERROR_SEAT] = -1
        return out

    def result(self) -> dict:
        """The hand's row, with the same fields and values as a ``simulate`` row (raises
        while the hand is being played)."""
        if not self.is_over():
            raise ValueError(f"the hand is not over (phase {self.phase_name})")
        from .columns import hand_frame

        return hand_frame(self.record()[None, :]).iloc[0].to_dict()

    def returns(self) -> tuple[int, int]:
        """Points won by seat 0 and seat 1 (the winner's points, negated for the loser;
        0, 0 for a dead hand or a scoreless tie)."""
        if not self.is_over():
            raise ValueError(f"the hand is not over (phase {self.phase_name})")
        result = result_of(self._state)
        return (int(points_to_seat_nb(result.winner, result.points, 0)),
                int(points_to_seat_nb(result.winner, result.points, 1)))

    def arrangements(self) -> list[tuple[list[str], list[str]]]:
        """In the arrange phase, the knocker's least-deadwood arrangements as (set cards,
        run cards), in the order of the ``A_ARRANGE + k`` actions; in the defend phase the
        defender's, in the order of the ``A_DEFEND + k`` actions."""
        if self.phase not in (S.PHASE_ARRANGE, S.PHASE_DEFEND):
            return []
        seat = knocker_of(self._state)
        if self.phase == S.PHASE_DEFEND:
            seat = 1 - seat
        hand = np.int64(hand_of(self._state, seat))
        count = int(arrangement_nb(hand, np.int64(-1))[2])
        out = []
        for k in range(count):
            sets, runs, _ = arrangement_nb(hand, np.int64(k))
            out.append((_cards(sets), _cards(runs)))
        return out

    def __repr__(self) -> str:
        if self.is_over():
            return f"<Hand over: {result_of(self._state).outcome}>"
        return (f"<Hand phase={self.phase_name} player={self.current_player} "
                f"turn={turn_of(self._state)} stock={stock_left(self._state)}>")


class Game:
    """A whole game of ``simulate_games`` stepped hand by hand: ``hand`` is the hand being
    played (a ``Hand``), ``record`` the game's row (``simulator.core.records.GAME_ROW``: the
    scores, boxes and hands so far, then the winner and the final totals).

    ``Game(rules, seed, game=g, mirrored=...)`` starts game ``g`` of ``simulate_games(...,
    seed=seed, mirrored=mirrored)`` (``a`` and ``b``: the strategies of A and B for
    ``bot_action``).  Once ``hand`` is over, ``next_hand()`` chains the next hand as the batch
    kernel chains them (``simulator.engine.work.next_hand_nb``: the game's record brought up to
    date by ``simulator.core.scoring.end_of_hand_nb``, then the next hand dealt with its keys,
    dealer and scores) into a new ``hand`` (the one played is left as it was), and returns
    False once the game is over.  ``GinRummyEnv(game=True)`` and ``ginsim play --game`` play
    their games with it."""

    def __init__(self, rules: Rules | str | dict = "hoyle", seed: int = 0, game: int = 0, *, a=None, b=None,
                 mirrored: bool = True):
        game = argument("game", game, "int", low=0)
        hand = Hand.__new__(Hand)
        hand._setup(rules, seed, a, b)
        mirrored = argument("mirrored", mirrored, "bool")
        self.record = np.zeros(N_GAME_COLS, np.int64)
        row = hand._work[K_RECORD:K_RECORD + N_HAND_COLS]
        a_seat = start_game_nb(hand._work, np.uint64(hand.seed), np.int64(game), bool(mirrored), hand._rules,
                               self.record, row, hand._trace)
        hand.game, hand.hand_in_game = int(game), 0
        hand._dealt(0, int(self.record[G_PAIR]), int(a_seat))
        self.hand = hand
        #: the game stops after this many hands without a winner (the batch kernel's guard)
        self.max_hands = MAX_HANDS_PER_GAME

    def next_hand(self) -> bool:
        """After ``hand`` is over: the game's record brought up to date and, unless the game is
        over, the next hand dealt into a new ``hand`` (True); False once the game is over
        (``record`` then holds the winner and the final totals, or no winner after the guard's
        ``max_hands`` hands)."""
        played = self.hand
        if not played.is_over():
            raise ValueError(f"the hand is not over (phase {played.phase_name})")
        hand = played.clone()
        row = hand._work[K_RECORD:K_RECORD + N_HAND_COLS]
        row[:] = played.record()
        reset_trace(hand._state)
        if next_hand_nb(hand._work, self.record, np.int64(self.max_hands), hand._rules, row, hand._trace) < 0:
            return False
        hand.events, hand._python_seats = [], {}
        hand.deal = hand.hand_in_game = int(row[H_HAND_IN_GAME])
        hand._collect_events()
        self.hand = hand
        return True

    @property
    def scores(self) -> tuple[int, int]:
        """Each seat's points so far (before the game's bonuses)."""
        return int(self.record[G_POINTS0]), int(self.record[G_POINTS1])


def _name(action) -> str:
    """``"67 (knock)"``, or the value as given when it is no integer."""
    try:
        return f"{int(action)} ({S.action_name(int(action))})"
    except (TypeError, ValueError):
        return repr(action)


# the numba dispatchers the step path calls, looked up once (a module attribute lookup per
# call would cost more than the call's own work)
_legal_actions_nb = S.legal_actions_nb
_apply_action_nb = S.apply_action_nb
_STATE_END = K_STATE + S.N_STATE
_CARD_CODES = frozenset(DECK.tolist())
