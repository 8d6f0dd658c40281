"""OpenSpiel's observer of ``python_ginsim``: the seat's view as a tensor and as text.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ...core.constants import N_OBS, OBSERVATION_LAYOUT

from .params import SHORT_NAME
from .state import GinsimState


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
