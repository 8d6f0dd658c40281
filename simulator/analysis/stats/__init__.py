"""Statistics of a run: hand and game rows in, one row per cell out (pure pandas functions).

``hand_stats(hands)`` and ``game_stats(games)`` take the rows a run writes (``RUN/data``,
``RUN/games``; columns documented in ``simulator/api.py``) or a frame from
``simulate``/``simulate_games`` (no ``cell`` column: one cell, numbered 0).  Each returns one
row per cell with the cell's labels (``cell, matchup, a, b, variant`` and any swept
parameter such as ``a.knock_at``), the number of rows and of independent units behind it,
and for every estimated quantity ``Q`` the columns ``Q`` (or ``Q_mean``), ``Q_ci_low``,
``Q_ci_high`` and ``Q_se`` (``ci_columns`` gives the names).

**Independent units.**  In a mirrored run the two deals (or games) of a pair share a deck
with the seats swapped, so they are not independent: every per-row quantity is first
averaged within each ``(cell, pair)`` and the pair means are the sample (for ``net_a`` the
pair mean is half the paired difference of the two seatings, which removes most of the
luck of the deal).  Without mirroring (every pair number appears once) each row is a
unit.  ``mirrored=None`` (the default) detects which from the data.

**Intervals** (``confidence`` = 0.95 unless given):

* a mean over units (net points, win rate, draws, first-mover edge, outcome shares, game
  margin ...): the Student t interval ``scipy.stats.t.interval(confidence, n - 1,
  loc=mean, scale=s / sqrt(n))`` over the n unit values (s: their sample standard
  deviation);
* a proportion whose units are single 0/1 rows (an unmirrored run): the Wilson score
  interval, ``scipy.stats.binomtest(k, n).proportion_ci(confidence, "wilson")``, which
  stays inside [0, 1] and does not collapse to a point when k = 0 or k = n;
* a proportion that is 0 (or 1) in every unit of a mirrored run (a strategy that never
  wins a game, an outcome a variant never produces): the t interval would have zero
  width, so it is the Wilson interval of k = 0 (or k = n) in n units instead — e.g.
  0.0% [0.0, 0.2] from 2,000 pairs, never ``[0.0, 0.0]``;
* a ratio of means (mean knocker and defender deadwood over the hands that were not
  cancelled; undercuts per knock): the delta-method (linearisation) standard error of
  ``sum(y) / sum(x)`` over the units, with the t quantile from ``scipy.stats.t``.

With hundreds of units or more these are the usual large-sample intervals; with one unit
the interval is missing (NaN).  Intervals of proportions are clipped to [0, 1] (a t
interval on a rare outcome may otherwise dip below zero).  ``ranking`` combines independent cells: the mean of k cell
estimates has standard error ``sqrt(sum se_i**2) / k`` and a normal
(``scipy.stats.norm``) interval.

Wins: a hand or game with no winner (cancelled hand, scoreless tie, game stopped by the
hand guard) counts ½ to each side, so in self-play every win rate is 0.5 in expectation.
"""

from __future__ import annotations

from ..multiplicity import ALPHA, MULTIPLICITY_METHODS, MULTIPLICITY_TEXT
from .intervals import (
    ci_columns, FRAME_LABELS, is_mirrored, KNOCKER_OUTCOMES, LABELS, mean_interval, Moments, OUTCOMES,
    sweep_columns, t_interval, wilson_interval,
)
from .frames import CONTEXT_KEYS, with_context
from .scan import GAME_SCAN_COLUMNS, game_stats, HAND_SCAN_COLUMNS, hand_stats, RunScan, scan_run
from .rankings import balanced, histogram_percentiles, matrix, matrix_se, ranking
from .pvalues import adjust_pvalues, benjamini_hochberg_adjust, holm_adjust, pooled_means, t_pvalues

__all__ = ["ALPHA", "MULTIPLICITY_METHODS", "MULTIPLICITY_TEXT", "ci_columns", "FRAME_LABELS", "is_mirrored",
           "KNOCKER_OUTCOMES", "LABELS", "mean_interval", "Moments", "OUTCOMES", "sweep_columns",
           "t_interval", "wilson_interval", "CONTEXT_KEYS", "with_context", "GAME_SCAN_COLUMNS",
           "game_stats", "HAND_SCAN_COLUMNS", "hand_stats", "RunScan", "scan_run", "balanced",
           "histogram_percentiles", "matrix", "matrix_se", "ranking", "adjust_pvalues",
           "benjamini_hochberg_adjust", "holm_adjust", "pooled_means", "t_pvalues"]
