"""``knock_table``: ``simple``'s play with a knock decision read from a table over what the player sees.

Policy, in plain words: when it may knock (deadwood at most the deal's knock limit), the
player looks up the cell of what it sees — its deadwood, how many cards it has drawn this
hand, and how many cards the opponent took from the discard pile and still holds — and
knocks with that cell's probability.  Everything else is ``simple``'s.

* first upcard, every draw, every discard, the layout and the defence are exactly
  ``simple``'s (its functions are called), as in ``knock_policy``: the table changes the
  knock decision alone;
* the cells (``N_CELLS`` = 5 × 9 × 3 = 135): deadwood bucket × draw bucket × opponent signal.
  Deadwood d (1 .. the knock limit; gin is always knocked) falls in bucket
  min((d − 1) // w, 4) with w = max(1, ceil(L / 5)) for the rules' knock limit L (L = 10:
  1–2, 3–4, 5–6, 7–8, 9–10).  The player's own draws t (the draw of the current turn
  included) fall in ``DRAW_BUCKETS``: 1–4, 5–6, 7–8, 9, 10, 11, 12, 13, 14 and later.  The
  signal is the number of cards the opponent took from the pile and still holds
  (``V_OPP_TOOK``): 0, 1, 2 or more.  Cell index = (signal × 9 + draw bucket) × 5 + deadwood
  bucket;
* each cell holds a knock probability in sevenths (3 bits, 0 = never .. 7 = always); a cell
  strictly between draws one number from the player's stream (``below_nb``), a pure cell
  draws none, so a pure table plays the same random discards as ``simple``;
* last discard (``last_discard_rule``): take it when the knock it forces would be knocked by
  the cell it lands in one draw later (or is gin).

Parameters (in this order): ``t0`` .. ``t7``, each 17 cells of 3 bits (cell c in slot
c // 17 at bit 3 × (c % 17); whole numbers below 2**51, exact in the float row); the
default, every cell 7, knocks as soon as legal (``simple``'s play).  ``encode`` and
``decode`` turn a table of probabilities into a spec and back; ``describe`` says it in words.
The tables the knock-table study solved have names (``PRESETS``): ``knock_table:classic``
is the table solved under classic rules, ``knock_table:classic_best_response`` the best
response found to it.
"""

from __future__ import annotations

import math

import numpy as np

from simulator.infra.jit import CORE, HOT
from simulator.core.melds import popcount_nb
from simulator.core.rng import below_nb
from simulator.core.rules import R_KNOCK_LIMIT

from . import simple
from .common import last_discard_deadwood_nb
from .view import PHASE_LAST_DISCARD, V_DEADWOOD, V_KNOCK_LIMIT, V_MY_DRAWS, V_OPP_TOOK, V_PHASE

#: the abstraction's axes
DEADWOOD_BUCKETS = 5
#: the draw buckets: (first draw, last draw) of each; the last has no end
DRAW_BUCKETS = ((1, 4), (5, 6), (7, 8), (9, 9), (10, 10), (11, 11), (12, 12), (13, 13), (14, 99))
SIGNALS = 3
N_CELLS = DEADWOOD_BUCKETS * len(DRAW_BUCKETS) * SIGNALS
#: the probability levels of a cell: level / LEVELS
LEVELS = 7
BITS = 3
PER_SLOT = 17
N_SLOTS = 8
FULL_SLOT = (1 << (BITS * PER_SLOT)) - 1

PARAMS = {f"t{s}": float(FULL_SLOT) for s in range(N_SLOTS)}
#: integral parameters and their allowed values (``strategies.registry``): 17 cells of 3 bits each
PARAM_RANGES = {f"t{s}": (0, FULL_SLOT) for s in range(N_SLOTS)}
SUMMARY = ("simple's play; knocks with a probability read from a table over deadwood, own draws and the "
           "opponent's pile pickups (t0..t7: 135 cells of 3 bits)")
#: how it defends (reports name it): simple's, the EAAI baseline's
DEFENCE = simple.DEFENCE
#: the decisions that use the per-hand memory (``strategies.hybrid``): simple's discard
MEMORY_DECISIONS = simple.MEMORY_DECISIONS

#: named tables (``knock_table:classic``): the six tables the knock-table study solved, one per
#: rule set it was solved under, and the best response the study found to each
#: (``results/equilibrium_class/table_*/knock_table.json``, the specs the ledger
#: ``experiments/ledger/equilibrium_class.jsonl`` keeps); ``strategies.registry`` reads a
#: name as these parameters and writes these parameters back as the name (``display_spec``)
PRESETS = {
    "classic": "t0=2005501692641279,t1=2217164140413439,t2=281407316065798,t3=1974714427510776,"
               "t4=30787265359927,t5=35116724256773,t6=504,t7=1970324836974592",
    "classic_best_response": "t0=35116726124543,t1=2217164140413439,t2=280925222993415,t3=1974714427510776,"
                             "t4=30794781552703,t5=35116724256775,t6=14680575,t7=1970324836974592",
    "hoyle": "t0=35116724289528,t1=24698126847,t2=280925222731776,t3=60146061304,t4=0,t5=1056964608,t6=0,"
             "t7=1970324836974592",
    "hoyle_best_response": "t0=35116724289528,t1=246298122879487,t2=280925220896768,t3=1970384983035896,t4=0,"
                           "t5=1056964608,t6=0,t7=1970324836974592",
    "tournament": "t0=35116724289472,t1=7518257599,t2=280925220896768,t3=14422008,t4=0,t5=1056964608,t6=0,"
                  "t7=1970324836974592",
    "tournament_best_response": "t0=35116724289528,t1=7518257663,t2=280925220896768,t3=16519160,t4=0,"
                                "t5=939524096,t6=0,t7=1970324836974592",
    "oklahoma": "t0=2005501692641272,t1=2093119,t2=280925220896768,t3=60131381240,t4=0,t5=1071644672,t6=0,"
                "t7=1970324836974592",
    "oklahoma_best_response": "t0=2005501692641272,t1=7518286335,t2=280925220896768,t3=16519160,t4=0,"
                              "t5=1071644672,t6=0,t7=1970324836974592",
    "hoyle_knock5": "t0=35116724289472,t1=246358267101695,t2=277077047643648,t3=1970866136813504,"
                    "t4=30787265130503,t5=939524096,t6=0,t7=1970324836974592",
    "hoyle_knock5_best_response": "t0=35116724289472,t1=246358252421631,t2=277077047643648,t3=1970866134978496,"
                                  "t4=30787265130503,t5=30787265102272,t6=0,t7=1970324836974592",
    "hoyle_knock15": "t0=2005501692641272,t1=8457285695,t2=280925220896768,t3=42951511544,t4=0,t5=585105408,"
                     "t6=0,t7=1970324836974592",
    "hoyle_knock15_best_response": "t0=2005501692641272,t1=8455975423,t2=280925220896768,t3=246298122879480,"
                                   "t4=0,t5=1056964608,t6=0,t7=1970324836974592",
}


def deadwood_width(limit: int) -> int:
    """The deadwood bucket width under knock limit ``limit``: max(1, ceil(limit / 5))."""
    return max(1, math.ceil(limit / DEADWOOD_BUCKETS))


#: the last draw of each draw bucket (``np.searchsorted`` finds a draw's bucket)
_BUCKET_ENDS = np.array([last for _, last in DRAW_BUCKETS])


def draw_bucket(draws):
    """The draw bucket of ``draws`` own draws (``DRAW_BUCKETS``); an int, or an array of them."""
    return np.minimum(np.searchsorted(_BUCKET_ENDS, draws), len(DRAW_BUCKETS) - 1)


def cell(deadwood, draws, pickups, limit: int):
    """The cell index of what a player sees (deadwood ≥ 1, ``draws`` ≥ 1) under knock limit
    ``limit``: an int, or an array of them for arrays of deadwood, draws and pickups (the
    knock-table study maps its recorded deals' knocks with it)."""
    d = np.minimum((np.asarray(deadwood, dtype=np.int64) - 1) // deadwood_width(limit), DEADWOOD_BUCKETS - 1)
    c = (np.minimum(pickups, SIGNALS - 1) * len(DRAW_BUCKETS) + draw_bucket(draws)) * DEADWOOD_BUCKETS + d
    return int(c) if np.ndim(c) == 0 else c


def encode(levels) -> dict[str, int]:
    """The parameters of a table of levels (``N_CELLS`` integers 0 .. 7, cell order)."""
    levels = np.asarray(levels)
    if levels.shape != (N_CELLS,) or not np.isin(levels, np.arange(LEVELS + 1)).all():
        raise ValueError(f"a knock table is {N_CELLS} levels, each an integer from 0 to {LEVELS}")
    slots = [0] * N_SLOTS
    for c, level in enumerate(levels):
        slots[c // PER_SLOT] |= int(level) << (BITS * (c % PER_SLOT))
    for c in range(N_CELLS, N_SLOTS * PER_SLOT):  # the unused cells stay "always", as the default
        slots[c // PER_SLOT] |= LEVELS << (BITS * (c % PER_SLOT))
    return {f"t{s}": v for s, v in enumerate(slots)}


def decode(params) -> np.ndarray:
    """The levels (``N_CELLS`` integers 0 .. 7) of a parameter dict or row."""
    values = [int(params[f"t{s}"]) for s in range(N_SLOTS)] if isinstance(params, dict) else \
        [int(v) for v in params[:N_SLOTS]]
    return np.array([(values[c // PER_SLOT] >> (BITS * (c % PER_SLOT))) & LEVELS for c in range(N_CELLS)])


def quantize(probabilities) -> np.ndarray:
    """Knock probabilities (``N_CELLS``) rounded to the nearest level."""
    return np.clip(np.rint(np.asarray(probabilities, dtype=float) * LEVELS), 0, LEVELS).astype(int)


def spec_of(levels) -> str:
    """The canonical strategy spec of a table of levels."""
    import strategies

    params = encode(levels)
    return strategies.parse_strategy("knock_table:" + ",".join(f"{k}={v}" for k, v in params.items())).label


def grid(levels, signal: int = 0) -> np.ndarray:
    """The knock probabilities of one signal as a (draw bucket × deadwood bucket) array."""
    levels = np.asarray(levels)
    start = signal * len(DRAW_BUCKETS) * DEADWOOD_BUCKETS
    block = levels[start:start + len(DRAW_BUCKETS) * DEADWOOD_BUCKETS]
    return block.reshape(len(DRAW_BUCKETS), DEADWOOD_BUCKETS) / LEVELS


def describe(params, rules) -> str:
    """Its knock rule in plain words: how many cells knock always, never, or with a probability."""
    levels = decode(params)
    if (levels == LEVELS).all():
        return "knock as soon as legal"
    if (levels == 0).all():
        return "gin only"
    always, never = int((levels == LEVELS).sum()), int((levels == 0).sum())
    return (f"a knock table: knock always in {always}, never in {never}, with a probability in "
            f"{N_CELLS - always - never} of {N_CELLS} cells (deadwood × draw × opponent pickups; gin always)")


@CORE
def level_nb(params, rules, deadwood, draws, pickups):
    """The level (0 .. 7) of the cell of ``deadwood`` ≥ 1 after ``draws`` own draws with the
    opponent holding ``pickups`` cards it took from the pile."""
    limit = rules[R_KNOCK_LIMIT]
    width = max(np.int64(1), (np.int64(limit) + DEADWOOD_BUCKETS - 1) // DEADWOOD_BUCKETS)
    d = min((np.int64(deadwood) - 1) // width, DEADWOOD_BUCKETS - 1)
    if draws <= 4:
        t = 0
    elif draws <= 6:
        t = 1
    elif draws <= 8:
        t = 2
    else:
        t = min(np.int64(draws) - 6, 8)  # 9 -> 3, ..., 13 -> 7, 14 and later -> 8
    s = min(np.int64(pickups), SIGNALS - 1)
    c = (s * 9 + t) * DEADWOOD_BUCKETS + d
    slot = np.int64(params[c // PER_SLOT])
    return (slot >> (BITS * (c % PER_SLOT))) & LEVELS


@CORE
def wants_knock_nb(params, view, rules, rng, deadwood, draws):
    if deadwood == 0:
        return True
    if deadwood > view[V_KNOCK_LIMIT]:
        return False
    level = level_nb(params, rules, deadwood, draws, popcount_nb(view[V_OPP_TOOK]))
    if level >= LEVELS:
        return True
    if level <= 0:
        return False
    return below_nb(rng, LEVELS) < level


@HOT
def take_nb(params, view, pile, rules, rng, memory):
    if view[V_PHASE] == PHASE_LAST_DISCARD:
        dw = last_discard_deadwood_nb(view)
        return dw >= 0 and wants_knock_nb(params, view, rules, rng, dw, view[V_MY_DRAWS] + 1)
    return simple.take_nb(params, view, pile, rules, rng, memory)


@HOT
def discard_nb(params, view, pile, rules, rng, memory):
    return simple.discard_nb(params, view, pile, rules, rng, memory)


@HOT
def knock_nb(params, view, pile, rules, rng, memory):
    return wants_knock_nb(params, view, rules, rng, view[V_DEADWOOD], view[V_MY_DRAWS])


# the layout and the defence are simple's (the same functions, compiled once)
arrange_nb = simple.arrange_nb
defend_nb = simple.defend_nb
