"""The meta-game of a set of policies: its payoff matrix estimated on mirrored deals, its Nash
equilibrium by linear programming, and the double-oracle loop that grows the set.

The game between two knock policies is zero-sum (what one seat wins the other loses,
docs/rules.md, "Scoring") and, on mirrored deals (each deal played twice with the seats
swapped), symmetric: a policy against itself is worth nothing in expectation.  So the meta-game of
a restricted set of policies is a symmetric zero-sum matrix game: entry ``M[i, j]`` is policy
i's value against policy j (net points per hand, or game-win probability minus ½), and
``M[j, i] = -M[i, j]`` (only i < j is played; the diagonal is 0).

* ``solve_zero_sum`` solves any zero-sum matrix game for the row player's maximin mixture
  and the game's value by linear programming (``scipy.optimize.linprog``, HiGHS):
  maximise v subject to ``sum_i x_i M[i, j] >= v`` for every column j, ``sum x = 1``,
  ``x >= 0``.  A symmetric game's value is 0 and its maximin mixture is a Nash equilibrium.
* ``payoff_matrix`` estimates ``M`` with the tuner's ``Field`` (common random numbers:
  every row policy meets column policy j on the same mirrored deals, the stream of opponent
  j), each entry with its paired 95% interval (Student t over mirrored pairs).
* ``double_oracle`` is the loop, written over two callables so that it runs on the engine
  (``simulator.studies.equilibrium``) and on toy games in the tests alike: estimate the
  matrix of the set, solve it, ask the oracle for a best response to the mixture, stop when
  the best response gains no more than the noise (its interval's lower end at most the
  tolerance) or is already in the set, else add it and repeat.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

#: the value of a policy against itself, per objective (net points; game-win probability)
NULL_VALUE = {"net_per_hand": 0.0, "game_win": 0.5}


def solve_zero_sum(payoff: np.ndarray) -> tuple[np.ndarray, float]:
    """The row player's maximin mixture and the value of the zero-sum game with row payoffs
    ``payoff`` (rows: the row player's pure strategies), by linear programming."""
    from scipy.optimize import linprog

    m = np.asarray(payoff, dtype=float)
    if m.ndim != 2 or m.size == 0 or not np.isfinite(m).all():
        raise ValueError("the payoff matrix must be a non-empty 2-D array of finite numbers")
    rows, cols = m.shape
    # variables (x_1 .. x_rows, v); minimise -v
    c = np.zeros(rows + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-m.T, np.ones((cols, 1))])  # v - sum_i x_i m[i, j] <= 0
    b_ub = np.zeros(cols)
    a_eq = np.hstack([np.ones((1, rows)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * rows + [(None, None)]
    result = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if result.status != 0:  # pragma: no cover - a finite matrix game always has a solution
        raise RuntimeError(f"the linear program failed: {result.message}")
    x = np.clip(result.x[:rows], 0.0, None)
    return x / x.sum(), float(result.x[-1])


def symmetric_nash(payoff: np.ndarray, tolerance: float = 1e-9) -> tuple[np.ndarray, float]:
    """A Nash equilibrium mixture of the symmetric zero-sum game ``payoff`` (antisymmetric:
    ``payoff[j, i] == -payoff[i, j]``) and its value (0 up to rounding)."""
    m = np.asarray(payoff, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError("a symmetric game's payoff matrix is square")
    if not np.allclose(m, -m.T, atol=tolerance, rtol=0.0):
        raise ValueError("a symmetric zero-sum game's payoff matrix is antisymmetric (M[j, i] = -M[i, j])")
    return solve_zero_sum(m)


# ----------------------------------------------------------------------------- the matrix on the engine

@dataclass(frozen=True)
class Entry:
    """One estimated payoff: the row policy's mean value against the column policy over
    ``pairs`` mirrored pairs (minus the null value), its standard error and 95% interval."""
    estimate: float
    low: float
    high: float
    se: float
    pairs: int

    def negated(self) -> "Entry":
        return Entry(-self.estimate, -self.high, -self.low, self.se, self.pairs)


def estimate_entry(field_, row_policy: str, column: int, n_pairs: int, phase: str = "matrix") -> Entry:
    """``row_policy`` against opponent ``column`` of ``field_``'s spec on ``n_pairs``
    mirrored pairs of ``phase``'s stream of that opponent: the paired mean (minus the null
    value of the objective) with its Student t 95% interval over the pairs."""
    from ..analysis.stats.estimators import plain

    values = field_.pair_values(row_policy, column, phase, 0, n_pairs) - NULL_VALUE[field_.spec.objective]
    e = plain(values)
    return Entry(e.value, e.low, e.high, e.se, int(n_pairs))


def payoff_matrix(base_spec, policies: list[str], n_pairs: int, cache: dict[str, Any] | None = None,
                  on_entry: Callable[[], None] | None = None) -> tuple[np.ndarray, list[list[Entry | None]]]:
    """The antisymmetric payoff matrix of ``policies`` under ``base_spec``'s rules, objective
    and seed (a ``TuneSpec``): entry (i, j), i < j, is policy i against policy j on
    ``n_pairs`` mirrored pairs of policy j's stream (``Field``'s opponent j, so every entry of
    a column shares its deals); (j, i) is its negation and the diagonal is 0.  ``cache``
    (``"i,j" -> Entry fields``) keeps entries already played (a growing set reuses them:
    policies are only ever appended); ``on_entry`` is called after each new entry."""
    from .tune import Field

    cache = {} if cache is None else cache
    spec = dataclasses.replace(base_spec, opponents=tuple((p, 1.0) for p in policies))
    field_ = Field(spec)
    k = len(policies)
    matrix = np.zeros((k, k))
    entries: list[list[Entry | None]] = [[None] * k for _ in range(k)]
    for j in range(k):
        for i in range(j):
            key = f"{i},{j}"
            if key not in cache:
                cache[key] = dataclasses.asdict(estimate_entry(field_, policies[i], j, n_pairs))
                if on_entry is not None:
                    on_entry()
            e = Entry(**cache[key])
            entries[i][j], entries[j][i] = e, e.negated()
            matrix[i, j], matrix[j, i] = e.estimate, -e.estimate
    return matrix, entries


# ----------------------------------------------------------------------------- double oracle

@dataclass(frozen=True)
class Response:
    """A best response to a mixture: the policy, its gain against the mixture (the mixture's
    exploitability within the family, from below) and the gain's 95% interval."""
    policy: str
    gain: float
    low: float
    high: float


def double_oracle(policies: list[str], solve: Callable[[list[str]], np.ndarray],
                  respond: Callable[[list[str], np.ndarray, int], Response], max_iterations: int,
                  tolerance: float = 0.0, history: list[dict[str, Any]] | None = None,
                  on_iteration: Callable[[list[dict[str, Any]]], None] | None = None) -> dict[str, Any]:
    """Grow the restricted set ``policies`` until the best response to its equilibrium gains
    no more than the noise.

    Each iteration k: ``solve(set)`` gives the set's payoff matrix; ``symmetric_nash`` its
    mixture; ``respond(set, mixture, k)`` a best response with its gain and interval.  The
    loop stops, converged, when the response's interval reaches down to ``tolerance``
    (``low <= tolerance``: it gains less than the noise) or the response is already in the
    set; else the response joins the set.  After ``max_iterations`` it stops unconverged.
    ``history`` holds iterations already done (a resume replays none of them) and
    ``on_iteration`` is called with it after each one, to keep it."""
    history = [] if history is None else history
    policies = list(policies)
    for record in history:  # a resume: the set as it grew
        if not record["converged"] and record["response"]["policy"] not in policies:
            policies.append(record["response"]["policy"])
    while True:
        if history and (history[-1]["converged"] or len(history) >= max_iterations):
            break
        k = len(history)
        matrix = solve(policies)
        mixture, value = symmetric_nash(matrix)
        response = respond(policies, mixture, k)
        known = response.policy in policies
        converged = known or response.low <= tolerance
        history.append({"iteration": k, "policies": list(policies), "matrix": matrix.tolist(),
                        "mixture": mixture.tolist(), "value": value, "response": dataclasses.asdict(response),
                        "response_in_set": known, "converged": converged})
        if on_iteration is not None:
            on_iteration(history)
        if not converged:
            policies.append(response.policy)
    last = history[-1]
    return {"policies": last["policies"], "mixture": last["mixture"], "value": last["value"],
            "exploitability": last["response"], "converged": last["converged"], "iterations": history}
