"""Plug-in strategy files the tests write to disk: one template, so every test that needs a
well-behaved plug-in uses the same text (tests that need a misbehaving one edit a line of
it).  The layout is fixed: tests refer to its line numbers."""

from __future__ import annotations

_GREEDY = '''"""``{name}``: greedy play that knocks only at deadwood <= knock_at."""
from numba import njit
from strategies.common import default_arrange_nb as arrange_nb, greedy_discard_nb, greedy_take_nb
from strategies.view import V_DEADWOOD, V_HAND, V_LEGAL_DISCARDS

PARAMS = {{"knock_at": 3.0}}
SUMMARY = "greedy, knocks at deadwood <= knock_at"

@njit(cache=True)
def take_nb(params, view, pile, rules, rng, memory):
    return greedy_take_nb(view)

@njit(cache=True)
def discard_nb(params, view, pile, rules, rng, memory):
    return greedy_discard_nb(view[V_HAND], view[V_LEGAL_DISCARDS])

@njit(cache=True)
def knock_nb(params, view, pile, rules, rng, memory):
    return {knock}
'''

#: the knock line of the template, as written
KNOCK_RULE = "view[V_DEADWOOD] <= params[0]"


def greedy_plugin(name: str, knock: str = KNOCK_RULE) -> str:
    """A plug-in named ``name`` that takes and discards greedily and knocks when the
    expression ``knock`` is true (default: deadwood at most its ``knock_at``)."""
    return _GREEDY.format(name=name, knock=knock)
