"""Plain-Python strategies: a class with one method per decision.

A numba strategy reads an int64 bitmask view; a Python strategy is an ordinary class whose
methods receive an ``Observation`` (cards as ``simulator.Card`` objects, which print as
``7h`` and are their integer codes) and return the move in plain terms::

    from strategies import Player

    class Cautious(Player):
        "Draws from the stock, throws the highest deadwood card, knocks at 5 or less."
        PARAMS = {"knock_at": 5}

        def draw(self, obs):
            return "stock"

        def knock(self, obs):
            return obs.deadwood <= self.params["knock_at"]

Register it (``strategies.register("cautious", Cautious)``, or in an experiment file
``[plugins] cautious = "cautious.py:Cautious"``) and name it wherever a strategy is named:
``simulate("cautious:knock_at=3", "simple")``, matchups, ``ginsim run`` (joblib and Dask
workers load the file themselves).  ``simulator.engine.pydriver`` plays it against numba or other
Python strategies and writes the same rows as the numba kernels.

The decisions (one method each; ``Player`` gives every one a default, so a subclass
overrides only what it cares about).  Each receives the observation and returns:

=================  ==============================  ========================================
method             when (``obs.phase``)            returns
=================  ==============================  ========================================
``first_upcard``   ``first_upcard``: the deal's    ``True`` to take it, ``False`` to pass
                   upcard is offered
``draw``           ``draw``: a turn's draw         ``"pile"`` (the top card) or ``"stock"``
``discard``        ``discard`` (11 cards held)     a card of ``obs.legal_discards`` (a
                                                   ``Card``, its code, or ``"7h"``)
``knock``          ``knock``: deadwood within the  ``True`` to knock (gin at 0), ``False``
                   limit after the discard
``last_discard``   ``last_discard``: take the last ``True`` to take it (then discard and
                   discard, only to knock          knock), ``False`` to pass (dead hand)
``arrange``        ``arrange``: the knocker lays   an index into ``obs.arrangements``
                   out
``defend``         ``defend``: the defender, after ``"best"`` (the best response: melds
                   the knocker laid out            and layoffs chosen together to leave the
                   (``obs.knocker_melds``)         least deadwood), an index into
                                                   ``obs.arrangements`` (its k-th
                                                   least-deadwood arrangement; every
                                                   unmelded card that fits is laid off), or
                                                   ``"no_layoffs"`` (its first arrangement,
                                                   nothing laid off)
=================  ==============================  ========================================

A class may instead override ``choose_action(obs)`` and return an action code of
``obs.legal_actions`` (named by ``simulator.actions``: ``discard(c)``, ``DRAW_STOCK``,
``TAKE_PILE``, ``PASS``, ``KNOCK``, ``PLAY_ON``, ``lay_out(k)``, ``DEFEND_BEST``,
``defend(k)``, ``DEFEND_NO_LAYOFFS``) for every decision; the RL
policy adapter (``simulator.env.PolicyStrategy``) does.  A new decision point of the engine
is a row of the table of decisions (``simulator.core.decisions``); a player without a method
for it gets the row's ready answer.

The defaults form a greedy player (``GreedyPlayer``): take the pile's top when it lowers
the deadwood (after the best discard), discard so as to keep the least deadwood (the
highest card among equals), knock whenever allowed, take the last discard, lay out the
first arrangement, defend with the best response (``simulator.core.melds.layoff_solution_nb``,
as numba strategies do by default).  ``TrivialPlayer`` draws from the stock, discards the card it drew
(else its first legal card) and always knocks: it measures the driver's own cost.

One instance plays every hand (one per parameter set and process): keep what a strategy
remembers about a hand in ``obs.memory`` (a dict, fresh for each hand and seat), and draw
random numbers from ``obs.rng`` (a ``numpy.random.Generator`` keyed by seed, deal and seat
like the engine's streams), so the same seed gives the same rows whatever the chunking or
the number of workers.
"""

from __future__ import annotations

import inspect

import numpy as np

from simulator.core import state as S
from simulator.core import view as V
from simulator.core.decisions import BY_PHASE, READY_ANSWERS
from simulator.core.decisions import DECISIONS as TABLE
from simulator.core.cards import Card, parse_cards
from simulator.core.rng import numpy_generator
from simulator.core.hand_reading import pile_of
from simulator.core.presentation import cards_of, view_line, view_properties
from simulator.core.view_fill import view_of
from simulator.core.melds import (
    arrangement_nb,
    discard_deadwoods_nb,
    layoff_after_melds_nb,
    layoff_solution_nb,
    min_deadwood_nb,
    preferred_discard_nb,
)

_CARD = tuple(Card(c) for c in range(64))
_PHASE_NAMES = S.PHASE_NAMES


_cards = cards_of

#: the view's slots as properties, one per row of ``simulator.core.view_fields`` (and one per
#: mask), made by ``simulator.core.presentation``: ``Observation`` inherits them
_ViewProperties = type("_ViewProperties", (), {"__slots__": (), **view_properties()})


class Observation(_ViewProperties):
    """What the player to act may know: its view (``simulator.core.view_fill.fill_view_nb``,
    the one definition of what a seat sees, the vector a numba strategy gets) and the
    discard pile, read lazily.

    Public information and the player's own cards only: never the opponent's hand or the
    stock.  Every slot of the view is a property under its Python name, presented by its
    kind (``simulator.core.view_fields``: card lists are tuples of ``Card``, sorted by suit
    then rank; a ``Card`` prints as ``7h`` and equals its integer code; masks, ``*_mask``,
    are the int64 bit sets of ``simulator.core.cards``; a card or deadwood not known in this
    phase is ``None``).  The properties below the generated ones compute from them: the
    deadwood in every phase, discards, arrangements and defences, the pile in order.
    """

    __slots__ = ("_state", "_seat_info", "seat", "phase_code", "rules", "_view")

    def __init__(self, state: np.ndarray, seat: int, seat_info, rules, view: np.ndarray | None = None):
        self._state = state
        self.seat = seat
        self._view = view  # filled by the engine's loop where it stopped for this seat, else on first use
        self.phase_code = int(self.seen[V.V_PHASE])
        self._seat_info = seat_info
        self.rules = rules

    @property
    def seen(self) -> np.ndarray:
        """The view vector (``strategies.view``): every property reads it."""
        if self._view is None:
            self._view = view_of(self._state, self.seat)
        return self._view

    # ---- the decision ---------------------------------------------------------------
    @property
    def legal_actions(self) -> list[int]:
        """The legal action codes (``simulator.action_name`` names them)."""
        out = np.zeros(S.MAX_LEGAL, np.int64)
        n = S.legal_actions_nb(self._state, self._seat_info.rules_array, out)
        return out[:n].tolist()

    # ---- own cards --------------------------------------------------------------------
    @property
    def deadwood(self) -> int:
        """Own deadwood: of the 10 cards held; in the discard phase, after the best legal
        discard; in the knock and arrange phases, of the 10 cards kept."""
        if self.phase_code in (S.PHASE_KNOCK, S.PHASE_ARRANGE):
            return self.kept_deadwood
        if self.phase_code == S.PHASE_DISCARD:
            return int(discard_deadwoods_nb(np.int64(self.hand_mask), np.int64(self.legal_mask))[0])
        return int(min_deadwood_nb(np.int64(self.hand_mask)))

    def deadwood_after(self, card) -> int:
        """Discard phase: own deadwood after discarding ``card`` (a legal discard)."""
        code = _code(card)
        hand = self.hand_mask
        return int(min_deadwood_nb(np.int64(hand & ~(1 << code))))

    @property
    def best_discards(self) -> tuple[Card, ...]:
        """Discard phase: the legal discards that keep the least deadwood."""
        if self.phase_code != S.PHASE_DISCARD:
            return ()
        return _cards(int(discard_deadwoods_nb(np.int64(self.hand_mask), np.int64(self.legal_mask))[1]))

    @property
    def best_discard(self) -> Card | None:
        """Discard phase: the least-deadwood discard, highest card first among equals
        (``simulator.best_discard``'s choice)."""
        if self.phase_code != S.PHASE_DISCARD:
            return None
        optimal = discard_deadwoods_nb(np.int64(self.hand_mask), np.int64(self.legal_mask))[1]
        return _CARD[int(preferred_discard_nb(optimal))]

    @property
    def arrangements(self) -> list[tuple[tuple[Card, ...], tuple[Card, ...]]]:
        """Arrange and defend phases: own least-deadwood layouts as (set cards, run cards),
        in the order the ``arrange`` and ``defend`` indices count them."""
        if self.phase_code not in (S.PHASE_ARRANGE, S.PHASE_DEFEND):
            return []
        hand = np.int64(self.hand_mask)
        count = int(arrangement_nb(hand, np.int64(-1))[2])
        out = []
        for k in range(count):
            sets, runs, _ = arrangement_nb(hand, np.int64(k))
            out.append((_cards(int(sets)), _cards(int(runs))))
        return out

    # ---- the defence ------------------------------------------------------------------
    @property
    def knocker_melds(self) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """Defend phase: the melds the knocker laid out, as (set cards, run cards); empty
        before the knocker lays out."""
        if self.phase_code != S.PHASE_DEFEND:
            return (), ()
        return self.knocker_sets, self.knocker_runs

    @property
    def defences(self) -> list[tuple[tuple[Card, ...], tuple[Card, ...], int]]:
        """Defend phase: for each of ``obs.arrangements`` (same order, the ``defend``
        index), the cards the engine would then lay off on the knocker's melds and the
        deadwood left: (melded cards, laid-off cards, deadwood after layoffs)."""
        if self.phase_code != S.PHASE_DEFEND:
            return []
        hand, sets, runs = np.int64(self.hand_mask), self.seen[V.V_KNOCKER_SETS], self.seen[V.V_KNOCKER_RUNS]
        count = int(arrangement_nb(hand, np.int64(-1))[2])
        out = []
        for k in range(count):
            own_sets, own_runs, _ = arrangement_nb(hand, np.int64(k))
            melded = own_sets | own_runs
            deadwood, laid = layoff_after_melds_nb(hand, melded, sets, runs)
            out.append((_cards(int(melded)), _cards(int(laid)), int(deadwood)))
        return out

    @property
    def best_defence(self) -> tuple[tuple[Card, ...], tuple[Card, ...], int] | None:
        """Defend phase: the best response ``"best"`` plays, as (melded cards, laid-off
        cards, deadwood after layoffs); it may break an own meld to lay off."""
        if self.phase_code != S.PHASE_DEFEND:
            return None
        deadwood, laid, melded = layoff_solution_nb(np.int64(self.hand_mask), self.seen[V.V_KNOCKER_SETS],
                                                    self.seen[V.V_KNOCKER_RUNS])
        return _cards(int(melded)), _cards(int(laid)), int(deadwood)

    # ---- the table ------------------------------------------------------------------------
    @property
    def pile(self) -> tuple[Card, ...]:
        """The discard pile, bottom first (its top last): what a numba strategy gets as its
        copy of the pile."""
        return tuple(_CARD[c] for c in pile_of(self._state))

    @property
    def scores(self) -> tuple[int, int]:
        """(own, opponent's) game score before this hand (0, 0 in single deals)."""
        return self.score, self.opponent_score

    @property
    def view(self) -> np.ndarray:
        """The view vector a numba strategy would get now (``strategies.view``; a copy)."""
        return self.seen.copy()

    # ---- the player's own -------------------------------------------------------------
    @property
    def memory(self) -> dict:
        """A dict for this player and hand: fresh at every deal, kept between decisions."""
        return self._seat_info.memory

    @property
    def rng(self) -> np.random.Generator:
        """This player's random generator for the hand, keyed by (seed, deal or game and
        hand, seat) as the engine keys its players' streams."""
        return self._seat_info.generator()

    @property
    def deal(self) -> int:
        """The deal number (in games: the hand's number in its game)."""
        return self._seat_info.deal

    def __repr__(self) -> str:
        return f"<Observation seat={self.seat} {view_line(self.seen)}>"


class SeatInfo:
    """A seat's per-hand companions of the observation: its memory dict and its random
    generator (made on first use from ``key``)."""

    __slots__ = ("key", "memory", "deal", "rules_array", "_rng")

    def __init__(self, key: int, deal: int, rules_array: np.ndarray):
        self.key = key
        self.deal = deal
        self.rules_array = rules_array
        self.memory = {}
        self._rng = None

    def generator(self) -> np.random.Generator:
        if self._rng is None:
            self._rng = numpy_generator(self.key)
        return self._rng


def _code(card) -> int:
    if type(card) is Card or type(card) is int:
        return int(card)
    if isinstance(card, str):
        cards = parse_cards(card)
        if len(cards) != 1:
            raise ValueError(f"{card!r} is not one card")
        return int(cards[0])
    if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)):
        raise ValueError(f"{card!r} is not a card")
    return int(card)


class Player:
    """Base class of plain-Python strategies; the defaults play greedily (see the module
    docstring).  ``PARAMS`` (name -> default number) are the strategy's parameters, set
    by a spec (``"mine:knock_at=3"``) and read from ``self.params``; ``PARAM_RANGES``
    (name -> (low, high), integer bounds for an integral parameter) bounds them as for
    numba strategies (``strategies.registry``); ``SUMMARY`` is the line ``ginsim
    strategies`` shows."""

    PARAMS: dict[str, float] = {}
    PARAM_RANGES: dict[str, tuple] = {}
    SUMMARY: str = ""

    def __init__(self, **params):
        self.params = {**{k: float(v) for k, v in type(self).PARAMS.items()}, **params}

    def first_upcard(self, obs: Observation) -> bool:
        return self.draw(obs) == "pile"

    def draw(self, obs: Observation) -> str:
        top = obs.top
        hand = obs.hand_mask
        after = int(discard_deadwoods_nb(np.int64(hand | (1 << top)), np.int64(hand))[0])
        return "pile" if after < int(min_deadwood_nb(np.int64(hand))) else "stock"

    def discard(self, obs: Observation):
        return obs.best_discard

    def knock(self, obs: Observation) -> bool:
        return True

    def last_discard(self, obs: Observation) -> bool:
        return True

    def arrange(self, obs: Observation) -> int:
        return 0

    def defend(self, obs: Observation):
        return "best"


GreedyPlayer = Player


class TrivialPlayer(Player):
    """Draws from the stock, discards the card just drawn (else its first legal card) and
    knocks whenever it may: almost no work per decision."""

    SUMMARY = "stock draws, throws what it drew, always knocks (driver overhead)"

    def first_upcard(self, obs):
        return False

    def draw(self, obs):
        return "stock"

    def discard(self, obs):
        drawn = int(obs.seen[V.V_DRAWN])
        if (obs.legal_mask >> drawn) & 1:
            return drawn
        return obs.legal_discards[0]


# ---- the decisions: how each kind of answer becomes an action (simulator.core.decisions) ----------
def _yes_no(decision):
    yes_word, no_word = decision.words or (None, None)

    def convert(value, obs):
        if isinstance(value, (bool, np.bool_)):
            return decision.yes if value else decision.no
        if yes_word is not None and isinstance(value, str) and value in (yes_word, no_word):
            return decision.yes if value == yes_word else decision.no
        if yes_word is not None:
            raise _Answer(f"returned {value!r}; expected \"{yes_word}\" or \"{no_word}\"")
        raise _Answer(f"returned {value!r}; expected True ({S.action_name(decision.yes)}) or False")
    return convert


def _card(decision):
    def convert(value, obs):
        try:
            code = _code(value)
        except ValueError as exc:
            raise _Answer(f"returned {value!r}: {exc}") from None
        if 0 <= code < 64 and (obs.legal_mask >> code) & 1:
            return S.A_DISCARD + code
        legal = " ".join(map(str, obs.legal_discards))
        name = str(_CARD[code]) if 0 <= code < 64 and code % 16 < 13 else repr(value)
        raise _Answer(f"discarded {name}, which is not one of its legal discards ({legal})")
    return convert


def _index(value, obs, first: int) -> int:
    """An arrangement's index as its action (``first`` + index), checked against the count."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        count = int(arrangement_nb(np.int64(obs.hand_mask), np.int64(-1))[2])
        if 0 <= value < count:
            return first + int(value)
        raise _Answer(f"returned arrangement {value}; there are {count} (0 .. {count - 1})")
    return -1


def _melds(decision):
    def convert(value, obs):
        action = _index(value, obs, S.A_ARRANGE)
        if action < 0:
            raise _Answer(f"returned {value!r}; expected an index into obs.arrangements")
        return action
    return convert


def _defence(decision):
    def convert(value, obs):
        if isinstance(value, str) and value == "best":
            return S.A_DEFEND_BEST
        if isinstance(value, str) and value == "no_layoffs":
            return S.A_DEFEND_NO_LAYOFFS
        action = _index(value, obs, S.A_DEFEND)
        if action < 0:
            raise _Answer(f"returned {value!r}; expected \"best\", \"no_layoffs\" or an index into obs.arrangements")
        return action
    return convert


#: how each kind of answer (``simulator.core.decisions.KINDS``) becomes an action
_CONVERTERS = {"yes_no": _yes_no, "card": _card, "melds": _melds, "defence": _defence}
#: phase -> (the ``Player`` method that decides it: the decision's name, its answer -> action
#: code), from the one table of decisions (``simulator.core.decisions``); a decision the
#: player has no method for gets its row's ready answer.
DECISIONS = {d.phase: (d.name, _CONVERTERS[d.kind](d)) for d in TABLE}


def _ready(phase: int, name: str):
    """The answer of a decision a Python player leaves out: its row's ready answer
    (``simulator.core.decisions``); a decision without one must be answered."""
    ready = BY_PHASE[phase].ready
    if ready is None:
        raise AttributeError(f"a Python player needs a method {name}(obs) (or choose_action(obs))")
    answer = READY_ANSWERS[ready]
    return lambda obs: answer


class _Answer(ValueError):
    """A strategy's answer that is not a legal move (the driver adds who, where and when)."""


def _any_action(value, legal_of):
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        legal = legal_of()
        if int(value) in legal:
            return int(value)
        raise _Answer(f"chose {S.action_name(int(value))} ({int(value)}), which is not legal; legal: "
                      + ", ".join(S.action_name(a) for a in legal))
    raise _Answer(f"returned {value!r}; expected an action code of obs.legal_actions")


class Decider:
    """One Python strategy ready to play: ``decide(obs) -> action code`` through the
    method for the observation's phase (or ``choose_action``), checked legal.  An answer
    that is not a legal move raises ``_Answer`` (one line, what it returned)."""

    __slots__ = ("player", "methods", "generic")

    def __init__(self, player):
        self.player = player
        chooser = getattr(type(player), "choose_action", None)
        self.generic = chooser is not None
        self.methods = [None] * (max(DECISIONS) + 1)  # by phase code
        if not self.generic:
            for phase, (name, convert) in DECISIONS.items():
                self.methods[phase] = (getattr(player, name, None) or _ready(phase, name), convert)

    def decide(self, obs: Observation) -> int:
        if self.generic:
            return _any_action(self.player.choose_action(obs), lambda: obs.legal_actions)
        method, convert = self.methods[obs.phase_code]
        return convert(method(obs), obs)

    def ask(self, obs: Observation, who: str, where: str) -> int:
        """``decide(obs)``, with every failure of the strategy (a wrong answer, an
        exception, endless recursion, ``sys.exit``) as one ``StrategyError`` line naming
        ``who``, the decision, ``where`` (cell, deal) and the user's file and line."""
        try:
            return self.decide(obs)
        except (Exception, SystemExit) as exc:
            method = self.player.choose_action if self.generic else self.methods[obs.phase_code][0]
            raise strategy_failure(exc, who, obs.phase, where, method) from None


def strategy_failure(exc: BaseException, who: str, decision: str, where: str, method=None):
    """The one-line ``simulator.core.errors.StrategyError`` for ``exc``, raised by a Python
    strategy (``who``, e.g. ``strategy 'mine' (A)``) in ``decision`` (a phase name or
    ``__init__``) at ``where`` (``cell 0, deal 7``): what went wrong, and where in the
    user's own file (``strategies.plugins.user_location``; without a frame there, the
    definition of ``method``), never a generated copy."""
    from simulator.core.errors import StrategyError

    from .plugins import user_location

    if isinstance(exc, _Answer):
        what = str(exc)
    elif isinstance(exc, SystemExit):
        what = f"called sys.exit({exc.code!r}) (a strategy may not end the process)"
    elif isinstance(exc, RecursionError):
        what = "recursed without end (RecursionError: maximum recursion depth exceeded)"
    else:
        message = str(exc).strip().splitlines()
        what = f"raised {type(exc).__name__}: {message[0] if message else '(no message)'}"
    location = user_location(exc, method)
    place = "; ".join(p for p in (f"decision: {decision}", where) if p)
    return StrategyError(f"{who} {what}{f' at {location}' if location else ''} ({place})")


# ---- registration ------------------------------------------------------------------------------
def is_player(obj) -> bool:
    """A Python strategy: a ``Player`` subclass or instance, or any class or object with a
    ``choose_action`` method."""
    cls = obj if inspect.isclass(obj) else type(obj)
    return issubclass(cls, Player) or callable(getattr(cls, "choose_action", None))
