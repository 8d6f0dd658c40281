"""Every ginsim variant as an OpenSpiel game: ``python_ginsim``.

Importing this module registers the game with ``pyspiel.register_game``, so OpenSpiel's own
algorithms (ISMCTS, MCTS, CFR-style solvers on small samples, ``rl_environment`` with DQN or
NFSP) play any ginsim rule set::

    >>> import pyspiel
    >>> import simulator.interop.ospiel_game
    >>> game = pyspiel.load_game("python_ginsim(preset=oklahoma)")
    >>> state = game.new_initial_state()
    >>> state.is_chance_node(), len(state.chance_outcomes())      # the deal: one card at a time
    (True, 52)

**Parameters** are ``preset`` (a ginsim preset name; ``""``, the default, is ginsim's default
rules), every field of ``simulator.core.rules.Rules`` (read from that one declaration, so a
new rule option is a parameter here without a second list) and ``whole_game`` (false: one
hand; true: hands chained into a game to its target, with its bonuses).  OpenSpiel fills in
every parameter's default before the game sees it, so a rules parameter's default is *unset*
(-1 for numbers and yes/no options, ``""`` for named choices) and means "the preset's
value": ``python_ginsim(preset=single_hand,undercut_on_tie=1)`` is ``single_hand`` with
ties counted as undercuts.  Yes/no options take 0 or 1 (OpenSpiel checks each parameter's
type against its default's).  A game reports every field's value (``str(game)``), so its
name loads the same rules again.

**The state machine is ginsim's.**  A hand is a ``simulator.Hand`` (the public step API), so
the registered game plays exactly the rules ``simulate`` plays; whole games are chained by
``simulator.core.scoring.end_of_hand_nb``, the one function every ginsim game driver calls.
Players are seats: OpenSpiel's player 0 is ginsim's seat 0.  The first hand is dealt by
seat 1, so player 0 is offered the upcard first, as in OpenSpiel's ``gin_rummy``; later
hands' dealers follow the rules' ``next_dealer``.

**Actions** are ginsim's action codes (``simulator.actions``: ``discard(c)``, ``DRAW_STOCK``,
``TAKE_PILE``, ``PASS``, ``KNOCK``, ``PLAY_ON``, ``lay_out(k)``, ``DEFEND_BEST``,
``defend(k)``, ``DEFEND_NO_LAYOFFS``; 143 in all).  **Chance outcomes** are OpenSpiel's card
indices (``suit * 13 + rank``, suits s c d h: ``simulator.interop.openspiel.os_card``), in
OpenSpiel's ``gin_rummy`` order: ten cards to player 0, ten to player 1, the upcard, then one
chance node at each stock draw over the cards left in the stock (a reshuffled stock
included), so a deal's chance outcomes are those ``gin_rummy`` would take for the same cards.

**What each player sees.**  ``observation_tensor`` and ``information_state_tensor`` are
ginsim's one observation encoder (``simulator.core.observation.encode_view_nb``, 575 values
laid out as ``simulator.env.encoding`` documents) of the player's view;
``observation_string`` is that view in words, ``information_state_string`` the whole record of
what the player saw, hand by hand (its own cards and draws, every public move, the knocker's
spread cards, both hands at a scored end), then the view.  The opponent's decision to play on
when it could have knocked is private: no string shows it.

**Returns** are points: a hand's points (the winner's, negated for the loser), or at the end
of a whole game the final scores' difference (bonuses included), as ginsim's environments
pay them.

**Serialization** is text: ``state.serialize()`` writes the game's name and the history,
``game.deserialize_state`` plays the history again, each move checked, and unpickles
nothing (OpenSpiel's C++ ``serialize_game_and_state`` keeps its own pickled form).

``resample_from_infostate(player, sampler)`` deals the opponent's hidden cards again from
``mc``'s belief (``strategies.mc.opponent_hidden_nb``: the determinization ``mc`` searches
on) and replays the hand with them (``_Resampler``), so the new state's history is a legal one
and the player's information state is the same.
"""

from __future__ import annotations

import base64
import pickle
import random
import re
from array import array
from dataclasses import fields

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - depends on the machine
    raise ImportError("simulator.interop.ospiel_game needs OpenSpiel (the open_spiel package): "
                      "pip install 'ginsim-rummy[openspiel]'") from exc

from strategies import parse_strategy
from strategies import view as V
from strategies.belief import THETA, weights_nb
from strategies.mc import PARAMS as MC_PARAMS
from strategies.mc import opponent_hidden_nb, opponent_tries_nb

from ..core import state as S
from ..core.cards import DECK, FULL_DECK_MASK, format_card, mask_cards
from ..core.constants import N_OBS, N_VIEW, OBSERVATION_LAYOUT
from ..core.narrate import tell
from ..core.observation import encode_view_nb
from ..core.records import G_POINTS0, G_POINTS1, G_SCORE0, G_SCORE1, N_GAME_COLS, OUTCOMES
from ..core.rules import CANCEL_AT_STOCK, MAX_HANDS_PER_GAME, MAX_TURNS_PER_HAND, OPTIONS, Rules
from ..core.scoring import end_of_hand_nb, new_game_nb
from ..engine.hand import Hand
from ..run.seeds import derive_seed
from .openspiel import os_card, our_card, rules_for

__all__ = ["SHORT_NAME", "GinsimGame", "GinsimState", "StrategyBot", "parameter_specification",
           "rules_from_parameters", "game_like_gin_rummy", "CHANCE"]

SHORT_NAME = "python_ginsim"
CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)
#: a rules parameter left at its default: the preset's value (ginsim's default without one)
UNSET_NUMBER, UNSET_CHOICE = -1, ""
#: the most deadwood ten cards can leave: two of each ten-value rank and two nines (a third
#: card of a rank, or three in a row of a suit, would meld)
MAX_DEADWOOD = 98
_DECK_MASK = int(FULL_DECK_MASK)
_OS_DECK = sorted(os_card(int(c)) for c in DECK)
_OUR = [our_card(i) for i in range(52)]  # OpenSpiel index -> our code


# --------------------------------------------------------------------------- parameters
def parameter_specification() -> dict:
    """The game's parameters and their defaults: ``preset``, ``whole_game`` and every
    ``Rules`` field, in its declaration order, unset (-1, or ``""`` for a named choice)."""
    spec: dict = {"preset": "", "whole_game": False}
    for f in fields(Rules):
        spec[f.name] = UNSET_CHOICE if OPTIONS[f.name].choices else UNSET_NUMBER
    return spec


def rules_from_parameters(params: dict) -> tuple[Rules, bool]:
    """The rules and whether a whole game is played, from the game's parameters: the preset
    (none: ginsim's defaults), then every field that is set.  Bad input raises a one-line
    ``ValueError`` naming the parameter and the values it allows."""
    spec = parameter_specification()
    unknown = [k for k in params if k not in spec]
    if unknown:
        raise ValueError(f"unknown {SHORT_NAME} parameter {unknown[0]!r}; parameters: {', '.join(spec)}")
    preset = params.get("preset", "")
    if not isinstance(preset, str):
        raise ValueError(f"{SHORT_NAME} parameter preset must be a preset name or empty; presets: "
                         f"{', '.join(Rules.PRESETS)}")
    table: dict = {} if preset == "" else {"preset": preset}
    for f in fields(Rules):
        value = params.get(f.name, spec[f.name])
        if value == spec[f.name] and type(value) is type(spec[f.name]):
            continue
        if f.type == "bool":
            if isinstance(value, bool) or value not in (0, 1):
                raise ValueError(f"{SHORT_NAME} parameter {f.name} must be 0 or 1 (-1: the preset's value), "
                                 f"got {value!r}")
            value = bool(value)
        table[f.name] = value
    whole = params.get("whole_game", False)
    if not isinstance(whole, bool):
        raise ValueError(f"{SHORT_NAME} parameter whole_game must be true or false, got {whole!r}")
    return Rules.from_dict(table), whole


def _reported(rules: Rules, whole_game: bool, preset: str) -> dict:
    """The parameters a game reports (``get_parameters``, its name): every field's value, so
    that loading its name gives the same rules."""
    out: dict = {"preset": preset, "whole_game": whole_game}
    for f in fields(Rules):
        value = getattr(rules, f.name)
        out[f.name] = int(value) if f.type == "bool" else value
    return out


def hand_points_bound(rules: Rules) -> int:
    """The most points one hand can score (docs/rules.md#scoring-a-hand): a gin's bonuses
    and the defender's deadwood, an undercut's bonus and the knock limit, or a knock's
    deadwood difference, doubled by Oklahoma's spade upcard."""
    limit = 10 if rules.oklahoma else rules.knock_limit
    worst = max(MAX_DEADWOOD + rules.gin_bonus + rules.big_gin_bonus, rules.undercut_bonus + limit)
    return worst * (2 if rules.oklahoma and rules.oklahoma_spade_double else 1)


def game_points_bound(rules: Rules) -> int:
    """The most a whole game's final scores can differ by (docs/rules.md#the-game): the
    winner's hand points (below the target before its last hand), a box for every hand up to
    the game's guard, the game bonus, doubled by a shutout."""
    bonus = rules.game_bonus * (2 if rules.shutout == "double_bonus" else 1)
    total = rules.target_score - 1 + hand_points_bound(rules) + rules.box_bonus * MAX_HANDS_PER_GAME + bonus
    return total * (2 if rules.shutout == "double" else 1)


def _hand_length_bound() -> int:
    """The most nodes one hand visits: the deal (21 chance nodes), both first-upcard
    decisions, and per turn (at most ``MAX_TURNS_PER_HAND`` discards) a draw, its stock card,
    a discard and a knock decision, then the last discard, the layout and the defence."""
    return 21 + 2 + 4 * MAX_TURNS_PER_HAND + 3


_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="ginsim Gin Rummy (every rule variant, single hands or whole games)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=parameter_specification(),
)


def _game_info(rules: Rules, whole_game: bool) -> pyspiel.GameInfo:
    bound = game_points_bound(rules) if whole_game else hand_points_bound(rules)
    hands = MAX_HANDS_PER_GAME if whole_game else 1
    return pyspiel.GameInfo(num_distinct_actions=S.N_ACTIONS, max_chance_outcomes=52, num_players=2,
                            min_utility=-float(bound), max_utility=float(bound), utility_sum=0.0,
                            max_game_length=hands * _hand_length_bound())


class GinsimGame(pyspiel.Game):
    """``python_ginsim``: a ginsim rule set as an OpenSpiel game (the module docstring says
    how).  ``rules`` is its ``simulator.core.rules.Rules``, ``whole_game`` whether hands are
    chained into a game."""

    def __init__(self, params=None):
        params = dict(params or {})
        self.rules, self.whole_game = rules_from_parameters(params)
        super().__init__(_GAME_TYPE, _game_info(self.rules, self.whole_game),
                         _reported(self.rules, self.whole_game, params.get("preset", "")))
        self.rules_array = self.rules.to_array()

    def new_initial_state(self):
        return GinsimState(self)

    def deserialize_state(self, text: str) -> "GinsimState":
        """The state ``GinsimState.serialize`` wrote (``STATE_FORMAT``: this game's name, then
        its history), made by playing that history again from the start, each move checked
        against the legal moves and chance outcomes there; nothing is unpickled.  A string of
        another game, a malformed one or a history that is not a legal play of this game
        (cards dealt twice, a card drawn that is not in the stock, an illegal move) is
        refused with one ``ValueError`` naming the first entry that is wrong."""
        history = _read_state_text(self, text)
        state = self.new_initial_state()
        for k, (player, action) in enumerate(history):
            if state.is_terminal():
                raise ValueError(f"python_ginsim state: history[{k}]: the game is over before it")
            legal = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            if player != state.current_player() or action not in legal:
                raise ValueError(f"python_ginsim state: history[{k}]: {player}:{action} is not a legal move there "
                                 f"(player {state.current_player()} moves)")
            state.apply_action(action)
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        return GinsimObserver(iig_obs_type, params)


def game_like_gin_rummy(game) -> GinsimGame:
    """The ``python_ginsim`` game with the rules of an OpenSpiel ``gin_rummy`` game: one hand
    of ``single_hand`` with its knock card, gin and undercut bonuses
    (``simulator.interop.openspiel.rules_for``; docs/openspiel.md tables the parameters)."""
    rules = rules_for(game)
    return pyspiel.load_game(SHORT_NAME, _reported(rules, False, ""))


# --------------------------------------------------------------------------- the state
# the kinds of a hand's entries (``GinsimState._trail``): a card dealt (to a seat, or the
# upcard: seat -1), a stock card drawn (by a seat), a player's move
_DEALT, _DRAWN, _MOVE = 0, 1, 2
_ENTRY = 5  # ints per entry: kind, seat, action, then the cards unknown to seat 0 and to seat 1 after it


class GinsimState(pyspiel.State):
    """A ``python_ginsim`` state.  ``hand`` is the ginsim ``Hand`` being played (None while
    its cards are dealt); the rest is private bookkeeping."""

    def __init__(self, game: GinsimGame):
        super().__init__(game)
        self.hand: Hand | None = None
        self._dealt: list[int] = []  # the deal in progress: our card codes, in OpenSpiel's dealing order
        self._pending = -1  # a move that draws from the stock, waiting for its chance node
        self._drawer = -1
        self._dealer = 1
        self._scores = (0, 0)
        self._hand_no = 0
        self._moves = 0  # entries in the history
        self._hand_start = 0  # entries before this hand's first card
        self._trail = array("q")  # this hand's entries (``_ENTRY`` ints each)
        self._past: list[tuple[str, str]] = []  # finished hands as each player saw them
        self._returns: list[float] | None = None
        self._texts: dict = {}  # the strings of this state, made once: (player, perfect recall) -> text
        self._game_row = None
        if game.whole_game:
            self._game_row = np.zeros(N_GAME_COLS, np.int64)  # kept by ``end_of_hand_nb``
            new_game_nb(self._game_row, np.int64(0), np.int64(0), np.int64(0), np.int64(self._dealer))

    # OpenSpiel's interface -------------------------------------------------------------
    def current_player(self) -> int:
        if self._returns is not None:
            return TERMINAL
        if self.hand is None or self._pending >= 0:
            return CHANCE
        return self.hand.current_player

    def is_terminal(self) -> bool:
        return self._returns is not None

    def returns(self) -> list[float]:
        return list(self._returns) if self._returns is not None else [0.0, 0.0]

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player():
            return []
        return self.hand.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next card: one of those not dealt yet, or of the stock's cards."""
        if self.hand is None:
            dealt = {os_card(c) for c in self._dealt}
            cards = [c for c in _OS_DECK if c not in dealt]
        else:
            cards = sorted(os_card(c) for c in self.hand.stock())
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]

    def _apply_action(self, action: int) -> None:
        action = int(action)
        self._moves += 1
        self._texts = {}
        if self.hand is None:
            self._deal(action)
            return
        h = self.hand
        if self._pending >= 0:
            card = _OUR[action] if 0 <= action < 52 else -1
            stock = h.stock()
            if card not in stock:
                raise ValueError(f"chance outcome {action} is not a card left in the stock")
            stock.remove(card)
            h.set_stock([card] + stock)
            move, self._pending = self._pending, -1
            h.apply(move)
            self._note(_DRAWN, self._drawer, action)
        else:
            seat, phase = h.current_player, h.phase
            if (phase == S.PHASE_DRAW and action == S.A_DRAW_STOCK) or (
                    phase == S.PHASE_FIRST_UPCARD and action == S.A_PASS and seat == h.dealer):
                # a stock draw (after both passed the upcard, the non-dealer's): the card is chance's
                self._pending, self._drawer = action, seat if phase == S.PHASE_DRAW else 1 - h.dealer
            else:
                h.apply(action)
            self._note(_MOVE, seat, action)
        if h.is_over():
            self._end_of_hand()

    def serialize(self) -> str:
        """This state as text (``STATE_FORMAT``): the game's name with every parameter, then
        the history as OpenSpiel writes it (``player:action``, chance as -1), which
        ``GinsimGame.deserialize_state`` plays again."""
        moves = ",".join(f"{int(h.player)}:{int(h.action)}" for h in self.full_history())
        return f"{STATE_FORMAT}\ngame={self.get_game()}\nhistory={moves}"

    def _action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            return f"chance {format_card(_OUR[action])}" if 0 <= action < 52 else f"chance {action}"
        return S.action_name(action)

    def __str__(self) -> str:
        """Everything in the state, both hands and the stock's order included (for tests and
        debugging: ``observation_string`` is what a player sees)."""
        head = f"hand {self._hand_no + 1}, dealer P{self._dealer}, scores {self._scores[0]}-{self._scores[1]}"
        if self.hand is None:
            return head + f"; dealing: {' '.join(format_card(c) for c in self._dealt)}"
        st = self.hand.state
        pile = st[S.S_PILE:S.S_PILE + st[S.S_PILE_LEN]]
        mover = "" if self.hand.is_over() else f", P{self.hand.current_player} to act"
        text = (f"{head}; phase {self.hand.phase_name}{mover}"
                f"{'' if self._pending < 0 else f' (a stock card for P{self._drawer})'}; "
                f"P0 {_cards(st[S.S_HANDS])}; P1 {_cards(st[S.S_HANDS + 1])}; "
                f"pile {' '.join(format_card(int(c)) for c in pile)}; "
                f"stock {' '.join(format_card(c) for c in self.hand.stock())}")
        if self._returns is not None:
            text += f"; returns {self._returns[0]:g} {self._returns[1]:g}"
        return text

    def resample_from_infostate(self, player_id: int, probability_sampler):
        """A state ``player_id`` cannot tell from this one: the opponent's hidden cards dealt
        again from ``mc``'s belief (``_Resampler``), the hand replayed with them."""
        return _Resampler(self, int(player_id), probability_sampler).state()

    # what a player sees (``GinsimObserver``) --------------------------------------------
    def _encode(self, player: int, out: np.ndarray) -> None:
        """``player``'s view through ginsim's one encoder.  While a hand is dealt the view
        holds the player's cards so far and the game scores, no phase."""
        if self.hand is not None:
            out[:] = self.hand.observation_vector(player)
            return
        view = np.zeros(N_VIEW, np.int64)
        view[V.V_PHASE] = S.PHASE_OVER
        view[V.V_HAND] = _mask(self._seat_dealt(player))
        view[V.V_TOP] = view[V.V_DRAWN] = view[V.V_DEADWOOD] = -1
        view[V.V_IS_DEALER] = player == self._dealer
        view[V.V_MY_SCORE], view[V.V_OPP_SCORE] = self._scores[player], self._scores[1 - player]
        rules = self.get_game().rules
        encode_view_nb(view, np.zeros(1, np.int64), np.int64(rules.target_score), out)

    def text(self, player: int, perfect_recall: bool) -> str:
        """``player``'s observation string (``perfect_recall``: its information state string),
        made once per state."""
        key = (player, perfect_recall)
        if key not in self._texts:
            self._texts[key] = self._record_text(player) if perfect_recall else self._view_text(player)
        return self._texts[key]

    def _view_text(self, player: int) -> str:
        game = self.get_game()
        head = f"P{player}"
        if game.whole_game:
            head += f", hand {self._hand_no + 1}, scores {self._scores[player]}-{self._scores[1 - player]} " \
                    f"(to {game.rules.target_score})"
        if self._returns is not None:
            head += f"; over, returns {self._returns[player]:g}"
        if self.hand is None:
            return head + f"; being dealt: {' '.join(format_card(c) for c in self._seat_dealt(player)) or '-'}"
        obs = self.hand.observation(player)
        mover = "chance (a stock card)" if self._pending >= 0 else f"P{obs['current_player']}"
        lines = [f"{head}; {'dealer' if obs['is_dealer'] else 'non-dealer'}; phase {obs['phase']}"
                 + ("" if self.hand.is_over() else f", {mover} to act"),
                 f"hand {' '.join(obs['hand'])} (deadwood {obs['deadwood']})",
                 f"pile {' '.join(obs['pile']) or '-'}; stock {obs['stock_size']}; knock limit {obs['knock_limit']}",
                 f"opponent took {' '.join(obs['opponent_took']) or '-'}; discarded "
                 f"{' '.join(obs['opponent_discards']) or '-'}; declined {' '.join(obs['opponent_declined']) or '-'}"]
        if obs["drawn"] is not None:
            lines.append(f"drawn {obs['drawn']}; may discard {' '.join(obs['legal_discards'])}")
        if "knocker_melds" in obs:
            m = obs["knocker_melds"]
            lines.append(f"knocker's melds: sets {' '.join(m['sets']) or '-'}, runs {' '.join(m['runs']) or '-'}; "
                         f"deadwood {m['deadwood']}")
        if "result" in obs:
            r = obs["result"]
            lines.append(f"result: {r['outcome']}, P{r['winner']} scores {r['points']}" if r["winner"] >= 0
                         else f"result: {r['outcome']}, no score")
        return "\n".join(lines)

    def _record_text(self, player: int) -> str:
        parts = [f"{SHORT_NAME} P{player}"]
        parts += [past[player] for past in self._past]
        parts.append(self._hand_text(player))
        parts.append("now: " + self.text(player, False))
        return "\n".join(parts)

    def _hand_text(self, player: int) -> str:
        """This hand as ``player`` saw it: its own cards, every public event, its own stock
        draws; the knocker's cards once spread, both hands at a scored end."""
        lines = [f"hand {self._hand_no + 1}, dealer P{self._dealer}"]
        if self.hand is None:
            lines.append("dealt " + " ".join(format_card(c) for c in self._seat_dealt(player)))
            if len(self._dealt) == 21:
                lines.append(f"upcard {format_card(self._dealt[20])}")
            return "\n".join(lines)
        st = self.hand.state
        lines.append("dealt " + " ".join(format_card(c) for s, e, c in self.hand.events if e == "deal" and s == player))
        for seat, event, value in self.hand.events:
            line = _event_text(player, seat, event, value, st)
            if line:
                lines.append(line)
        if self.hand.is_over() and OUTCOMES[int(st[S.S_OUTCOME])] != "dead":
            lines.append(f"hands shown: P0 {_cards(st[S.S_HANDS])}; P1 {_cards(st[S.S_HANDS + 1])}")
        return "\n".join(lines)

    # the deal and the game ---------------------------------------------------------------
    def _seat_dealt(self, seat: int) -> list[int]:
        return self._dealt[10 * seat:10 * seat + 10]

    def _deal(self, action: int) -> None:
        """One card of the deal (OpenSpiel's order: ten to player 0, ten to player 1, the
        upcard); with the upcard the hand starts: a ``Hand`` dealt those cards, its stock the
        other cards (their order is chance's, drawn at each stock draw)."""
        card = _OUR[action] if 0 <= action < 52 else -1
        if card < 0 or card in self._dealt:
            raise ValueError(f"chance outcome {action} is not a card left to deal")
        self._dealt.append(card)
        n = len(self._dealt)
        owner = 0 if n <= 10 else 1 if n <= 20 else -1
        if n == 21:
            d = self._dealer
            non_dealer, dealer = self._seat_dealt(1 - d), self._seat_dealt(d)
            stock = [int(c) for c in DECK if int(c) not in self._dealt]
            deck = [c for pair in zip(non_dealer, dealer) for c in pair] + [card] + stock
            # the seats' streams (used only by ginsim strategies asked to play, StrategyBot): the
            # hand's number in the game and its cards
            seed = derive_seed(self._hand_no, ",".join(map(str, self._dealt)))
            self.hand = Hand(self.get_game().rules, seed=seed, deck=deck, dealer=d, scores=self._scores)
        self._note(_DEALT, owner, action)

    def _at_hand_start(self) -> GinsimState:
        """A new state holding this game as it stood when this hand's first card was dealt
        (the finished hands, scores and dealer), for ``_Resampler`` to play this hand again on
        its Python side: its pyspiel history is empty."""
        other = self.get_game().new_initial_state()
        other._dealer, other._scores, other._hand_no = self._dealer, self._scores, self._hand_no
        other._moves = other._hand_start = self._hand_start
        other._past = list(self._past)
        other._game_row = None if self._game_row is None else self._game_row.copy()
        return other

    def _note(self, kind: int, seat: int, action: int) -> None:
        """Record a history entry of this hand with the cards unknown to each seat after it
        (what ``_Resampler`` may give the opponent)."""
        self._trail.extend((kind, seat, action, self._unknown(0), self._unknown(1)))

    def _unknown(self, seat: int) -> int:
        """The cards ``seat`` cannot place: not its own, not in the pile, not taken from the
        pile by the opponent, not spread on the table."""
        if self.hand is None:
            return _DECK_MASK & ~_mask(self._seat_dealt(seat)) & ~_mask(self._dealt[20:])
        st = self.hand.state
        other = 1 - seat
        unknown = _DECK_MASK & ~int(st[S.S_HANDS + seat]) & ~int(st[S.S_PILE_MASK]) & ~int(st[S.S_TOOK + other])
        phase = int(st[S.S_PHASE])
        if (phase == S.PHASE_DEFEND and int(st[S.S_KNOCKER]) == other) or (
                phase == S.PHASE_OVER and OUTCOMES[int(st[S.S_OUTCOME])] != "dead"):
            unknown &= ~int(st[S.S_HANDS + other])
        return unknown

    def _end_of_hand(self) -> None:
        """A single hand ends the game; in a whole game the hand is chained into the game
        (``end_of_hand_nb``) and the next hand is dealt, or the game ends with its totals."""
        h = self.hand
        game = self.get_game()
        if not game.whole_game:
            self._returns = [float(x) for x in h.returns()]
            return
        row = self._game_row
        dealer = int(end_of_hand_nb(row, h.record(), np.int64(MAX_HANDS_PER_GAME), game.rules_array))
        if dealer < 0:
            diff = float(row[G_SCORE0] - row[G_SCORE1])
            self._returns = [diff, -diff]
            return
        self._past.append((self._hand_text(0), self._hand_text(1)))
        self.hand, self._dealt, self._dealer = None, [], dealer
        self._scores = (int(row[G_POINTS0]), int(row[G_POINTS1]))
        self._hand_no += 1
        self._hand_start = self._moves
        self._trail = array("q")


def _mask(cards) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


def _cards(mask) -> str:
    return " ".join(format_card(c) for c in mask_cards(int(mask))) or "-"


def _event_text(player: int, seat: int, event: str, value: int, st: np.ndarray) -> str:
    """One event of ginsim's trace as ``player`` may know it, in the one narrator's words
    (``simulator.core.narrate.tell``, told to ``player``: a stock card only to its drawer): ""
    for the deal (listed apart), and with the knocker's melds the cards it spreads (all ten,
    docs/rules.md#laying-out-and-laying-off)."""
    text = tell((seat, event, value), ("P0", "P1"), you=player)
    if event == "sets":
        text = f"P{seat} spreads {_cards(st[S.S_HANDS + seat])}\n{text}"
    return text


# --------------------------------------------------------------------------- ginsim strategies as bots
class StrategyBot(pyspiel.Bot):
    """A ginsim strategy (a spec such as ``"simple"`` or ``"mc:samples=32"``, a
    ``strategies.Strategy``, or a registered Python strategy) as a ``pyspiel.Bot`` for
    ``python_ginsim``: ``step(state)`` asks it through ``state.hand.strategy_action``, exactly
    as the batch engine asks it, with the seat's view only.  The seat's random stream and
    memory live in the state's ``Hand`` (keyed by the hand's cards), so asking advances them
    as playing a hand in ginsim does."""

    def __init__(self, player_id: int, strategy="simple"):
        pyspiel.Bot.__init__(self)
        if player_id not in (0, 1):
            raise ValueError(f"player_id must be 0 or 1, got {player_id!r}")
        self.player_id = player_id
        self.strategy = parse_strategy(strategy)

    def step(self, state: GinsimState) -> int:
        if state.current_player() != self.player_id:
            raise ValueError(f"StrategyBot for player {self.player_id} asked to move for player "
                             f"{state.current_player()}")
        return state.hand.strategy_action(self.strategy)

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass

    def provides_policy(self) -> bool:
        return False


# --------------------------------------------------------------------------- resampling
class _Resampler:
    """``resample_from_infostate(player)``: a state the player cannot tell from ``state``.

    Only this hand is dealt again (a finished hand's cards were shown or no longer matter;
    its history is kept).  The opponent's *private* cards are those of its chance entries
    (its dealt cards, its stock draws); the player saw some of them later (a discard, the
    knocker's spread hand) and the rest it still holds unseen.  The unseen ones are drawn as
    ``mc`` draws them (``strategies.mc.opponent_hidden_nb`` on the player's view: the belief's
    weights, the best of ``mc``'s tries), then every private card is given a place among the
    opponent's chance entries (a matching: a card may fill an entry only if the player could
    not place that card from before the entry until it was shown, or until now), and the
    hand is replayed with those cards.  The opponent's private decisions follow its new
    cards: it plays on wherever it now may knock and the true hand showed no knock.  A world
    the replay refuses (a big gin the true hand did not have, a knock it now could not make)
    is drawn again; after ``BELIEF_TRIES`` the unseen cards are drawn uniformly.  The result
    is checked: the same player to act and the same information state string."""

    BELIEF_TRIES = 8
    TRIES = 100

    def __init__(self, state: GinsimState, player: int, sampler):
        if player not in (0, 1):
            raise ValueError(f"resample_from_infostate: player must be 0 or 1, got {player!r}")
        self.src, self.p, self.q = state, player, 1 - player
        seed = int(float(sampler()) * 2.0 ** 53)
        self.rng = random.Random(seed)
        self.stream = np.array([seed * 0x9E3779B97F4A7C15 % 2 ** 64], np.uint64)  # mc's draws (numba)

    def state(self) -> GinsimState:
        src = self.src
        if src.is_terminal():
            return src.clone()
        trail = np.frombuffer(src._trail, np.int64).reshape(-1, _ENTRY)
        for attempt in range(self.TRIES):
            places = self._places(trail, belief=attempt < self.BELIEF_TRIES)
            if places is None:
                continue
            world = self._replay(trail, places)
            if world is not None:
                return world
        raise RuntimeError(f"resample_from_infostate: no deal of the opponent's cards agrees with player {self.p}'s "
                           f"information after {self.TRIES} tries")

    def _places(self, trail: np.ndarray, belief: bool) -> dict | None:
        """The opponent's private cards: {trail index of its chance entry: our card code}, or
        None when this draw cannot be placed."""
        n, q = len(trail), self.q
        unknown = np.empty(n + 1, np.int64)
        unknown[0] = _DECK_MASK
        unknown[1:] = trail[:, 3 + self.p]
        slots = [j for j in range(n) if trail[j, 0] != _MOVE and trail[j, 1] == q]
        shown = sorted(((c, u) for u in range(n) if trail[u, 0] == _MOVE and trail[u, 1] == q
                        for c in mask_cards(int(unknown[u] & ~unknown[u + 1]))), key=lambda x: x[1])
        k = len(slots) - len(shown)
        # seen[r, c]: rows before r (row 0: before the hand; row j + 1: after entry j) where the
        # player could place card c; a card fills entry t until it is shown at entry u (or now,
        # u = n) only if the player could place it at none of the rows t .. u
        bits = (unknown[:, None] >> np.arange(64, dtype=np.int64)) & 1
        seen = np.zeros((n + 2, 64), np.int64)
        np.cumsum(bits == 0, axis=0, out=seen[1:])

        def fits(c: int, u: int, t: int) -> bool:
            return t < u and seen[u + 1, c] == seen[t, c]

        weights = self._weights(k)
        if belief:
            hidden = self._mc_hidden(int(unknown[n]), k, weights)
            if hidden is None:
                return None
            items = shown + [(c, n) for c in hidden]
            at = np.array(slots, np.int64)
            options = [[t for t in at[(at < u) & (seen[at, c] == seen[u + 1, c])].tolist()] for c, u in items]
            return self._match(items, slots, options)
        return self._build(shown, slots, fits, int(unknown[n]), n, weights)

    def _weights(self, k: int):
        """The belief's weights of the opponent's candidate cards (``strategies.belief``) on
        the player's view, or None before the hand is dealt (then uniform)."""
        hand = self.src.hand
        if k <= 0 or hand is None:
            return None
        view = hand.view(self.p)
        weights = np.empty(64, np.float64)
        cand, _ = weights_nb(view, THETA, weights)
        return view, int(cand), weights

    def _mc_hidden(self, candidates: int, k: int, belief) -> list[int] | None:
        """The ``k`` cards the opponent holds unseen, drawn as ``mc`` draws them
        (``opponent_hidden_nb``: the belief's weights, the best of its tries)."""
        if k <= 0:
            return []
        if belief is None:
            return self.rng.sample(mask_cards(candidates), k)
        view, cand, weights = belief
        tries = opponent_tries_nb(np.float64(MC_PARAMS["skill"]), view)
        drawn = int(opponent_hidden_nb(np.int64(cand & candidates), np.int64(k), weights,
                                       np.int64(view[V.V_OPP_TOOK]), tries, self.stream))
        return mask_cards(drawn) if bin(drawn).count("1") == k else None

    def _match(self, items: list, slots: list[int], options: list[list[int]]) -> dict | None:
        """A place for every (card, shown at) item among the slots, ``options[i]`` the slots
        item i fits (Kuhn's augmenting paths, each item's slots tried in a random order)."""
        if len(items) != len(slots):
            return None
        for opts in options:
            self.rng.shuffle(opts)
        taken: dict[int, int] = {}  # slot -> item index

        def place(i: int, visited: set) -> bool:
            for t in options[i]:
                if t not in visited:
                    visited.add(t)
                    if t not in taken or place(taken[t], visited):
                        taken[t] = i
                        return True
            return False

        if not all(place(i, set()) for i in range(len(items))):
            return None
        return {t: items[i][0] for t, i in taken.items()}

    def _build(self, shown: list, slots: list[int], fits, candidates: int, n: int, belief) -> dict | None:
        """Places built slot by slot, earliest first, when ``mc``'s draw cannot be placed
        (after a reshuffle the opponent can hold a reshuffled card only from a later draw):
        each slot takes the shown card with the earliest showing that fits it, else a card
        still unseen that fits it, drawn in proportion to the belief's weights (a card
        unseen since an earlier slot fits every later one)."""
        places: dict[int, int] = {}
        waiting = list(range(len(shown)))
        free = []
        for t in sorted(slots):
            fit = [i for i in waiting if fits(*shown[i], t)]
            if fit:
                i = min(fit, key=lambda i: shown[i][1])
                waiting.remove(i)
                places[t] = shown[i][0]
            else:
                free.append(t)
        if waiting:
            return None
        cards = mask_cards(candidates)
        held: set[int] = set()  # (a shown card may be held again after a reshuffle: only these exclude)
        for t in free:
            avail = [c for c in cards if c not in held and fits(c, n, t)]
            if not avail:
                return None
            w = None if belief is None else [max(belief[2][c], 1e-12) for c in avail]
            places[t] = self.rng.choices(avail, weights=w)[0]
            held.add(places[t])
        return places

    def _replay(self, trail: np.ndarray, places: dict) -> GinsimState | None:
        """This hand again from its start with the opponent's cards ``places``, played on the
        Python side (``_apply_action``) of a state holding the game up to this hand; None when
        the world parts from what the player saw.  The result is made as pyspiel makes a
        deserialized state, with the world's history: the game's so far, then this hand's."""
        src, q = self.src, self.q
        world = src._at_hand_start()
        moves: list[tuple[int, int]] = []

        def play(player: int, action: int) -> None:
            world._apply_action(action)
            moves.append((player, action))

        for j in range(len(trail)):
            kind, seat, action = (int(x) for x in trail[j, :3])
            if kind != _MOVE:
                if world.current_player() != CHANCE:
                    return None
                try:  # (a card not left to deal or draw is refused)
                    play(CHANCE, os_card(places[j]) if j in places else action)
                except ValueError:
                    return None
                continue
            if seat == q and action == S.A_NO_KNOCK:  # private: the world's opponent may not have had the choice
                if self._may_knock(world):
                    play(q, action)
                continue
            if not (seat == q and action == S.A_KNOCK):
                self._play_on(play, world)
            if world.current_player() != seat or action not in world.hand.legal_actions():
                return None
            play(seat, action)
        if self._may_knock(src) != self._may_knock(world):
            if self._may_knock(src):
                return None
            self._play_on(play, world)
        if world.current_player() != src.current_player() or world.text(self.p, True) != src.text(self.p, True):
            return None
        history = [(int(h.player), int(h.action)) for h in src.full_history()[:src._hand_start]] + moves
        return _state_from(src.get_game(), history, world.__dict__)

    def _may_knock(self, state: GinsimState) -> bool:
        """The opponent decides whether to knock (a private decision point)."""
        return (state.current_player() == self.q and state.hand is not None
                and state.hand.phase == S.PHASE_KNOCK)

    def _play_on(self, play, world: GinsimState) -> None:
        while self._may_knock(world):
            play(self.q, S.A_NO_KNOCK)


def _state_from(game: GinsimGame, history: list[tuple[int, int]], fields: dict) -> GinsimState:
    """A ``python_ginsim`` state with this history ((player, action) pairs) and these fields,
    made by pyspiel's own deserializer for Python games (``pyspiel.Game.deserialize_state``,
    not ``GinsimGame``'s) from the text it reads (the history, the move number and the
    pickled ``__dict__``): the history is taken as it is, not replayed.  The text is made
    here from the resampled world's own fields, never read from outside."""
    fields = dict(fields, _texts={})
    text = "\n".join([
        "history=" + ",".join(f"{p}:{a}" for p, a in history),
        f"move_number={len(history)}",
        "__dict__=" + base64.b64encode(pickle.dumps(fields)).decode("ascii"),
    ])
    return pyspiel.Game.deserialize_state(game, text)


#: the first line of a serialized ``python_ginsim`` state (``GinsimState.serialize``)
STATE_FORMAT = "python_ginsim state 1"
_INTEGER = re.compile(r"-?[0-9]{1,9}")


def _read_state_text(game: GinsimGame, text) -> list[tuple[int, int]]:
    """The history of a serialized state (``STATE_FORMAT``) of ``game``, each entry two
    integers; one-line ``ValueError`` for a text of another format or game, or one too long
    for the game."""
    if not isinstance(text, str):
        raise ValueError(f"python_ginsim state: must be the text GinsimState.serialize writes, got "
                         f"{type(text).__name__}")
    lines = text.split("\n", 2)
    if len(lines) != 3 or lines[0] != STATE_FORMAT or not lines[1].startswith("game=") \
            or not lines[2].startswith("history=") or "\n" in lines[2]:
        raise ValueError(f"python_ginsim state: not the text GinsimState.serialize writes ({STATE_FORMAT!r}, then "
                         "game=NAME and history=PLAYER:ACTION,...); OpenSpiel's pickled form is not read")
    if lines[1][5:] != str(game):
        raise ValueError(f"python_ginsim state: a state of {lines[1][5:]:.600}, not of {game}")
    most = game.max_game_length()
    if len(lines[2]) > 16 * most:
        raise ValueError(f"python_ginsim state: {len(lines[2]):,} characters of history, longer than a game of at "
                         f"most {most:,} moves")
    entries = lines[2][8:].split(",") if lines[2][8:] else []
    if len(entries) > most:
        raise ValueError(f"python_ginsim state: {len(entries):,} moves, more than the game's {most:,}")
    history = []
    for k, entry in enumerate(entries):
        player, sep, action = entry.partition(":")
        if not (sep and _INTEGER.fullmatch(player) and _INTEGER.fullmatch(action)):
            raise ValueError(f"python_ginsim state: history[{k}]: must be PLAYER:ACTION (two integers), got "
                             f"{entry!r:.40}")
        history.append((int(player), int(action)))
    return history


# --------------------------------------------------------------------------- observations
class GinsimObserver:
    """OpenSpiel's observer of ``python_ginsim`` (``make_py_observer``): the tensor is
    ginsim's encoder of the player's view, for the observation and the information state
    alike (``dict`` names its blocks, ``simulator.env.encoding``); the string is the view in
    words, or with ``perfect_recall`` the whole record of what the player saw.  Only the
    player's own observation is offered (public and private information together)."""

    def __init__(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"{SHORT_NAME} observers take no parameters, got {dict(params)}")
        if iig_obs_type is not None and (not iig_obs_type.public_info or iig_obs_type.private_info
                                         != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError(f"{SHORT_NAME} observes a player's own view only: public_info true and private_info "
                             "SINGLE_PLAYER")
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.tensor = np.zeros(N_OBS, np.float32)
        self.dict = {name: self.tensor[offset:offset + size] for name, offset, size in OBSERVATION_LAYOUT}

    def set_from(self, state: GinsimState, player: int) -> None:
        state._encode(player, self.tensor)

    def string_from(self, state: GinsimState, player: int) -> str:
        return state.text(player, self.perfect_recall)


pyspiel.register_game(_GAME_TYPE, GinsimGame)
