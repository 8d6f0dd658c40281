"""Knock thresholds in plain words: what a strategy module may offer reports and the tuner.

A strategy module may define two optional plain-Python functions, found by the registry
(``StrategyInfo.threshold`` and ``StrategyInfo.describe``) and used by whatever shows a
policy (the tuner's report and summary, ``simulator.studies.tune``):

* ``threshold(params, draws, limit, pickups=0, opp_score=0, target=100)``: for each entry
  of ``draws`` (cards this player has drawn in the hand), the largest deadwood it knocks
  with, before the knock limit caps it, when the opponent holds ``pickups`` cards taken
  from the pile and has ``opp_score`` points of a game to ``target``; ``limit`` is the
  largest knock limit of the rules (``simulator.core.rules_api.max_knock_limit``).
  ``params`` is the strategy's full parameter dict (its ``PARAMS`` names).  A strategy
  whose knock rule is not such a threshold leaves it out.
* ``describe(params, rules)``: its knock rule in plain words under ``rules`` (a
  ``Rules``).  Without it, a strategy with a ``threshold`` is described from its curve
  (``describe_curve``), and one with neither by its spec.

Deadwood is counted in whole points and gin (deadwood 0) is always knocked, so a
threshold acts as ``whole_points`` of it: capped at the knock limit, rounded down, at
least 0 (docs/rules.md, "Knocking").
"""

from __future__ import annotations

import numpy as np


def number_text(value: float) -> str:
    """A parameter value as it is written in a spec: ``4`` for 4.0, ``0.5`` for 0.5."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def whole_points(values: np.ndarray, limit: int) -> np.ndarray:
    """The largest whole-point deadwood knocked with under thresholds ``values``: each
    capped at the knock limit ``limit``, rounded down, at least 0 (gin is always knocked)."""
    return np.maximum(np.floor(np.minimum(np.asarray(values, dtype=float), limit) + 1e-9), 0.0)


def knock_at_threshold(params: dict[str, float], draws: np.ndarray, limit: int, pickups: int = 0,
                       opp_score: int = 0, target: int = 100) -> np.ndarray:
    """The threshold of a strategy that knocks at deadwood ≤ ``knock_at`` whatever the
    hand: ``knock_at``, or the knock limit in force when it is negative (the convention of
    ``strategies.common.knock_threshold_nb``)."""
    k = params["knock_at"]
    return np.full(len(draws), float(limit if k < 0 else k))


def segments(curve: np.ndarray, first_draw: int = 1) -> str:
    """Whole-point thresholds by draw as words: "≤ 9 on draws 1–3, then gin only"."""
    parts = []
    i = 0
    n = len(curve)
    while i < n:
        j = i
        while j + 1 < n and curve[j + 1] == curve[i]:
            j += 1
        k = int(curve[i])
        what = "gin only" if k == 0 else f"≤ {k}"
        a, b = first_draw + i, first_draw + j
        if j == n - 1:
            span = "" if i == 0 else f"from draw {a}"
        else:
            span = f"on draw {a}" if a == b else f"on draws {a}–{b}"
        parts.append(f"{what} {span}".strip())
        i = j + 1
    return ", ".join(parts[:-1]) + (", then " if len(parts) > 1 else "") + parts[-1]


def describe_curve(curve: np.ndarray, limit: int) -> str:
    """A whole-point threshold curve (``whole_points``) under knock limit ``limit`` in
    words: "gin only", "knock as soon as legal", "knock at deadwood ≤ k" when it never
    moves, else its segments by draw."""
    if not curve.any():
        return "gin only"
    if (curve >= limit).all():
        return "knock as soon as legal"
    if (curve == curve[0]).all():
        return f"knock at deadwood ≤ {int(curve[0])}"
    return f"knock at deadwood {segments(curve)} (gin always)"
