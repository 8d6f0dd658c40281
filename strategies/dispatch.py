"""Route each decision to the strategy whose id the engine holds (numba).

One ``if`` chain per decision; ids are the positions in ``strategies.registry.BUILTIN``.
Dispatching on an integer keeps one compiled engine for every matchup.
"""

from __future__ import annotations

from numba import njit

from . import gin_hunter, knock_early, random_play, simple


@njit(cache=True)
def take_nb(sid, params, view, pile, rules, rng, memory):
    if sid == 0:
        return random_play.take_nb(params, view, pile, rules, rng, memory)
    if sid == 1:
        return knock_early.take_nb(params, view, pile, rules, rng, memory)
    if sid == 2:
        return simple.take_nb(params, view, pile, rules, rng, memory)
    return gin_hunter.take_nb(params, view, pile, rules, rng, memory)


@njit(cache=True)
def discard_nb(sid, params, view, pile, rules, rng, memory):
    if sid == 0:
        return random_play.discard_nb(params, view, pile, rules, rng, memory)
    if sid == 1:
        return knock_early.discard_nb(params, view, pile, rules, rng, memory)
    if sid == 2:
        return simple.discard_nb(params, view, pile, rules, rng, memory)
    return gin_hunter.discard_nb(params, view, pile, rules, rng, memory)


@njit(cache=True)
def knock_nb(sid, params, view, pile, rules, rng, memory):
    if sid == 0:
        return random_play.knock_nb(params, view, pile, rules, rng, memory)
    if sid == 1:
        return knock_early.knock_nb(params, view, pile, rules, rng, memory)
    if sid == 2:
        return simple.knock_nb(params, view, pile, rules, rng, memory)
    return gin_hunter.knock_nb(params, view, pile, rules, rng, memory)


@njit(cache=True)
def arrange_nb(sid, params, view, pile, rules, rng, memory):
    if sid == 0:
        return random_play.arrange_nb(params, view, pile, rules, rng, memory)
    if sid == 1:
        return knock_early.arrange_nb(params, view, pile, rules, rng, memory)
    if sid == 2:
        return simple.arrange_nb(params, view, pile, rules, rng, memory)
    return gin_hunter.arrange_nb(params, view, pile, rules, rng, memory)
