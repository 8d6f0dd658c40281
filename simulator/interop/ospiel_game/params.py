"""The ``python_ginsim`` game's parameters, type and bounds.

Every field of ``simulator.core.rules.Rules`` is a parameter (``parameter_specification``),
read back into rules by ``rules_from_parameters``; the game's type and information
(``_GAME_TYPE``, ``_game_info``) report its bounds to OpenSpiel from the rules: the points of a
hand and of a game, the longest hand.
"""

from __future__ import annotations

from dataclasses import fields

import pyspiel

from ...core import state as S
from ...core.cards import DECK, FULL_DECK_MASK
from ...core.rules import MAX_HANDS_PER_GAME, MAX_TURNS_PER_HAND, OPTIONS, Rules
from ..openspiel import os_card, our_card


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
