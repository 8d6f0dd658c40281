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

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - depends on the machine
    raise ImportError("simulator.interop.ospiel_game needs OpenSpiel (the open_spiel package): "
                      "pip install 'ginsim-rummy[openspiel]'") from exc

from .game import GinsimGame, StrategyBot, game_like_gin_rummy
from .params import _GAME_TYPE, CHANCE, SHORT_NAME, parameter_specification, rules_from_parameters
from .state import STATE_FORMAT, GinsimState

__all__ = ["SHORT_NAME", "GinsimGame", "GinsimState", "StrategyBot", "parameter_specification",
           "rules_from_parameters", "game_like_gin_rummy", "CHANCE", "STATE_FORMAT"]

pyspiel.register_game(_GAME_TYPE, GinsimGame)
