"""A policy as a ginsim strategy (simulator.env.PolicyStrategy).

``policy(observation, action_mask) -> action`` sees exactly what an agent of
``simulator.env.GinRummyEnv`` sees.  This one is a scripted stand-in for a trained network
(load the network in ``__init__``, e.g. ``self.net = torch.load("agent.pt")``, and call it
in ``policy``): knock whenever it may, take the upcard or the pile's top only when the
observation's deadwood is low, otherwise draw from the stock, and discard the
highest-ranked legal card.
"""

import numpy as np

from simulator.actions import DEFEND_BEST, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_PILE
from simulator.env import PolicyStrategy
from simulator.env.encoding import O_DEADWOOD


class Agent(PolicyStrategy):
    def policy(self, observation, action_mask):
        legal = np.flatnonzero(action_mask)
        if action_mask[KNOCK]:
            return KNOCK
        if action_mask[TAKE_PILE]:
            low = observation[O_DEADWOOD] * 100 <= 20
            return TAKE_PILE if low else (DRAW_STOCK if action_mask[DRAW_STOCK] else PASS)
        discards = legal[(legal >= DISCARD) & (legal < DISCARD + 64)]  # DISCARD + card code
        if discards.size:
            cards = discards - DISCARD  # card code = suit * 16 + rank
            return int(discards[np.argmax(cards % 16)])
        if action_mask[DEFEND_BEST]:
            return DEFEND_BEST  # the defender's best response
        return int(legal[0])  # a layout: the first arrangement
