"""``GinsimGame``, the ``python_ginsim`` game, and ``StrategyBot``, any ginsim strategy as its bot.
"""

from __future__ import annotations

import pyspiel

from strategies import parse_strategy

from ..openspiel import rules_for

from .params import SHORT_NAME, _GAME_TYPE, _game_info, _reported, rules_from_parameters
from .state import GinsimState, _read_state_text
from .observer import GinsimObserver


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
