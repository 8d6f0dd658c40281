"""The fixed-size observation of the RL environments, and a policy as a ginsim strategy.

``encode(state, seat, target)`` turns what ``seat`` may know in a hand state
(``simulator.core.state``) into a float32 vector of ``N_OBS`` values in [0, 1].  The vector is
computed from the seat's view alone (``simulator.core.observation.encode_view_nb``, the one
encoder every environment, ``PolicyStrategy`` and ``Hand.observation_vector`` call), so what
a seat may see is decided in one place, ``fill_view_nb``.  The layout is
``OBSERVATION_LAYOUT`` (name, offset, size):

=================  ======  ====  ==========================================================
block              offset  size  meaning
=================  ======  ====  ==========================================================
``hand``           0       52    own cards (1 = held)
``drawn``          52      52    discard phase: the card just drawn (one-hot)
``opponent_held``  104     52    cards known to be in the opponent's hand: taken from the
                                 pile and not discarded since
``opponent_discards`` 156  52    every card the opponent discarded this hand
``opponent_declined`` 208  52    pile tops the opponent was offered and passed on
``pile``           260     52    cards in the discard pile
``pile_order``     312     52    position in the pile: (i + 1) / pile size for the i-th card
                                 from the bottom (the top is 1), 0 when not in the pile
``top``            364     52    the pile's top card (one-hot)
``stock``          416     32    cards left in the stock, one-hot 0 .. 31
``phase``          448     7     first_upcard, draw, last_discard, discard, knock, arrange,
                                 defend (``simulator.core.state.PHASE_*``; all 0 once over)
``knock_limit``    455     11    the deal's knock limit, one-hot 0 .. 10 (capped at 10)
``flags``          466     2     is dealer; the drawn card came from the pile
``deadwood``       468     1     own deadwood / 100 (of the cards held; in the knock and
                                 arrange phases, of the 10 cards kept)
``scores``         469     2     own and opponent's game score before the hand / the
                                 rules' target (capped at 1; 0 in single hands)
``knocker_sets``   471     52    the set cards the knocker laid out (from the defend phase
                                 on: both players see them; 0 before)
``knocker_runs``   523     52    the run cards the knocker laid out (likewise)
=================  ======  ====  ==========================================================

The phase block has a slot for the defend phase (``PHASE_DEFEND``) and the knocker's layout
planes come last, so the defender sees what it may lay off on: 575 values in all.

Where it follows OpenSpiel's ``gin_rummy`` observation tensor: cards are 52-slot planes
in OpenSpiel's card order (index ``suit * 13 + rank``, suits s c d h, ranks A..K), the
knock card / limit and the stock size are one-hot, the upcard (our ``top``) and the
discard pile are planes, and the opponent's hand plane holds only the cards known to be
there.  It adds the pile's order, the opponent's discards and declines, the card just
drawn, the phase and the scores.  The knocker's layout is two planes (set cards, run
cards) rather than OpenSpiel's one plane per meld: the defender lays off on a set by rank
and on a run by suit and end, which the two planes determine.

``PolicyStrategy(policy)`` is a plain-Python strategy (``strategies.Player``) that asks
``policy(observation, action_mask) -> action`` at every decision, with exactly the arrays
the environments give an agent: register it and evaluate it like any strategy.
"""

from __future__ import annotations

import numpy as np

from strategies.pyplayer import Player

from ..core import state as S
from ..core.constants import (  # noqa: F401  (the observation's blocks: simulator.core.layouts)
    N_OBS,
    N_VIEW,
    O_DEADWOOD,
    O_DRAWN,
    O_FLAGS,
    O_HAND,
    O_KNOCKER_RUNS,
    O_KNOCKER_SETS,
    O_LIMIT,
    O_OPP_DECLINED,
    O_OPP_DISCARDS,
    O_OPP_HELD,
    O_PHASE,
    O_PILE,
    O_PILE_ORDER,
    O_SCORES,
    O_STOCK,
    O_TOP,
    OBSERVATION_LAYOUT,
)
from ..core.observation import encode_state_nb, encode_view_nb  # noqa: F401  (the one encoder)
from ..core.rules import R_TARGET
from ..infra.jit import ALLOCATES

#: the decision phases the phase block covers (``PHASE_FIRST_UPCARD`` .. ``PHASE_DEFEND``)
N_PHASES = S.PHASE_OVER
#: every action code, the size of the action space
N_ACTIONS = S.N_ACTIONS


@ALLOCATES.python_entry
def encode_nb(state, seat, target, out):
    """Fill ``out`` (``N_OBS`` float32) with ``seat``'s observation: its view
    (``simulator.core.view_fill.fill_view_nb``) encoded by ``simulator.core.observation``."""
    view = np.empty(N_VIEW, np.int64)
    encode_state_nb(state, seat, target, view, out)


@ALLOCATES.python_entry
def mask_nb(state, rules, legal, out):
    """Fill ``out`` (``N_ACTIONS`` int8) with the legal-action mask of the player to act."""
    for i in range(out.shape[0]):
        out[i] = 0
    n = S.legal_actions_nb(state, rules, legal)
    for i in range(n):
        out[legal[i]] = 1
    return n


def encode(state: np.ndarray, seat: int, target: int = 0) -> np.ndarray:
    """``seat``'s observation vector (``N_OBS`` float32) in ``state``."""
    out = np.zeros(N_OBS, np.float32)
    encode_nb(state, np.int64(seat), np.int64(target), out)
    return out


class PolicyStrategy(Player):
    """A policy as a ginsim strategy: at each decision ``policy(observation, action_mask)``
    gets the arrays an environment agent sees (``encode`` and the legal-action mask) and
    returns an action code.  Register an instance, ``strategies.register("agent",
    PolicyStrategy(policy))``, or, for ``ginsim run`` (workers load it from a file), a
    subclass whose ``__init__`` loads the policy: ``[plugins] agent = "agent.py:Agent"``.
    An action that is not legal stops the run with ``StrategyError`` naming the deal."""

    def __init__(self, policy=None, **params):
        super().__init__(**params)
        if policy is not None:
            self.policy = policy
        self._obs = np.zeros(N_OBS, np.float32)
        self._mask = np.zeros(N_ACTIONS, np.int8)
        self._legal = np.zeros(S.MAX_LEGAL, np.int64)

    def policy(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NotImplementedError("give PolicyStrategy a policy, or override policy(observation, action_mask)")

    def choose_action(self, obs) -> int:
        state, rules = obs._state, obs._seat_info.rules_array
        encode_nb(state, np.int64(obs.seat), rules[R_TARGET], self._obs)
        mask_nb(state, rules, self._legal, self._mask)
        return int(self.policy(self._obs.copy(), self._mask.copy()))
