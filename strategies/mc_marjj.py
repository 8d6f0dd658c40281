"""``mc`` with rollouts 2-5: its decisions when its rollouts play ``marjj`` for both seats.

Not a strategy of its own: a spec ``mc:rollout=2`` (or 3 to 5) plays through these
decisions under an engine id of its own (``strategies.mc.route``,
``strategies.registry.BUILTIN_ROUTES``), so that ``marjj``'s code in the rollouts, a few
seconds of compiling, is built only by an engine that plays such a spec.  The search, the
candidates and the rollouts are ``strategies.mc``'s (its docstring states the policy);
here the search plays out each determinization with ``mc.marjj_rollout_nb``
(``mc.PLAY_OUT_MARJJ``).
"""

from __future__ import annotations

from simulator.infra.jit import MERGED

from . import mc
from .mc import PLAY_OUT_MARJJ  # a global of this module: numba reads it as the constant play_out_nb needs

arrange_nb = mc.arrange_nb  # the layout does not depend on the rollout


@MERGED
def take_nb(params, view, pile, rules, rng, memory):
    return mc.take_with_nb(params, view, pile, rules, rng, memory, PLAY_OUT_MARJJ)


@MERGED
def discard_nb(params, view, pile, rules, rng, memory):
    return mc.discard_with_nb(params, view, pile, rules, rng, memory, PLAY_OUT_MARJJ)


@MERGED
def knock_nb(params, view, pile, rules, rng, memory):
    return mc.knock_with_nb(params, view, pile, rules, rng, memory, PLAY_OUT_MARJJ)
