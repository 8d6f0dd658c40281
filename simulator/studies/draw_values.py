"""The value function of the draw-luck correction: a table fitted on development seeds.

``simulator.studies.draw_luck`` counts each stock draw's luck as ``v(card drawn)`` minus the
mean of ``v`` over the cards the stock held.  ``v`` is this table: the expected net points
to the drawer of a hand, by the *cell* of the position just after the draw
(``draw_luck.cell_nb``, where the kernel computes it):

* the drawer's deadwood after its best discard (0 .. 30, more counted as 30);
* the opponent's deadwood (0 .. 30 one by one, then bands of 5 up to 100);
* the stock left after the draw, in four bands (0-7, 8-15, 16-23, 24 and more);
* the deal's knock limit, in four bands (0: gin only; 1-5; 6-9; 10 and more).

``fit`` plays a pool of matchups on development seeds (``FIT_POOL``), records every stock
draw's drawer and cell, and sets each cell's value to the mean net points its drawers went on
to score, shrunk towards the cell without the stock band, which is shrunk towards the cell
of the drawer's deadwood alone (``PRIOR_WEIGHT`` pseudo-draws each), so a rarely seen cell
falls back on a well-measured one.  The correction is unbiased whatever the table holds; a
table that predicts the hand well makes it remove more variance.

The fitted table is an artefact (``experiments/values/draw_values_N.json``): its values,
how it was fitted, and its ``digest`` (sha256 of the document without it).  ``load``
verifies the digest and the cell layout before a kernel reads it, and refuses with one
line otherwise.  The rule: a table is fitted on development seeds only, written once, and
never changed; a new fit is a new version.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..run.bundled import bundled_dir
from .draw_luck import LAYOUT, N_CELLS, N_LIMIT, N_MINE, N_OPPONENT, N_STOCK

#: pseudo-draws of the coarser cell each cell's mean is shrunk towards
PRIOR_WEIGHT = 30.0
#: the folder of the fitted tables: ``experiments/values`` of the checkout, or the wheel's copy
VALUES_DIR = bundled_dir("experiments") / "values"
#: the table the estimators use unless told otherwise
DEFAULT_VERSION = 1
#: the matchups a table is fitted on: (A, B, rules preset), each played on development seeds
FIT_POOL = (
    ("gin_hunter", "knock_early", "hoyle"),
    ("simple:knock_at=8", "simple", "classic"),
    ("simple", "gin_hunter", "hoyle"),
    ("defensive", "undercut_aware", "hoyle"),
    ("marjj", "simple", "tournament"),
    ("marjj", "marjj", "tournament"),
    ("simple", "knock_early", "oklahoma"),
    ("simple", "gin_hunter", "gin_only"),
)
#: deals or games the draw-luck kernels play per call (their outputs are a few numbers each)
DRAWS_PIECE = 200_000
#: the most stock draws a hand's recording holds (31 stock cards; a reshuffle starts a new stock)
DRAW_CAPACITY = 160
#: the decks stand-ins replay each hand of a game from (``replay_decks``): fixed permutations of a
#: deck's 52 positions, written out so that no library's random stream can move them (drawn once,
#: with numpy's ``default_rng(20261206)``); other decks would be another estimator, under a new
#: name.  How many: chosen on development seeds 1,300,963-1,300,965 (the challenger's games
#: against ``marjj``, ``marjj`` replaying): 2, 4 and 8 decks saved as much per CPU-second as the
#: CPU's noise can tell, 16 less; 4 is the middle
REPLAY_PERMUTATIONS = (
    (21, 0, 25, 9, 26, 50, 13, 32, 43, 7, 20, 12, 27, 15, 38, 34, 24, 44, 40, 29, 1, 10, 8, 31, 49, 48, 33, 46,
     6, 3, 23, 36, 28, 41, 45, 51, 5, 18, 37, 16, 4, 42, 22, 14, 19, 30, 39, 17, 11, 35, 2, 47),
    (31, 41, 22, 37, 19, 0, 23, 45, 51, 9, 7, 35, 15, 29, 2, 13, 33, 27, 28, 6, 11, 26, 42, 30, 5, 34, 21, 39,
     10, 24, 25, 17, 8, 48, 36, 14, 46, 49, 50, 3, 20, 47, 12, 4, 44, 18, 16, 38, 40, 43, 32, 1),
    (47, 24, 37, 41, 29, 45, 18, 36, 25, 26, 30, 21, 14, 9, 16, 3, 23, 51, 22, 50, 34, 15, 4, 2, 1, 17, 19, 38,
     20, 7, 0, 48, 43, 10, 35, 27, 44, 40, 5, 42, 31, 32, 11, 49, 13, 33, 46, 8, 39, 28, 6, 12),
    (23, 8, 16, 29, 33, 28, 7, 40, 12, 21, 0, 46, 37, 20, 18, 34, 26, 15, 6, 31, 44, 1, 19, 48, 9, 13, 4, 49, 51,
     43, 27, 11, 30, 32, 38, 10, 41, 45, 3, 24, 50, 47, 14, 2, 5, 17, 35, 39, 36, 42, 22, 25),
)
#: how many other decks each hand is replayed from
REPLAY_DECKS = len(REPLAY_PERMUTATIONS)


def replay_decks() -> np.ndarray:
    """The fixed permutations of the 52 positions of a deck (``REPLAY_DECKS`` × 52: the deck
    replayed takes its j-th card from position ``perm[j]`` of the deck dealt) from which
    stand-ins replay each hand of a game (``simulator.studies.draw_luck.play_stand_in_hands_nb``).
    A fixed permutation maps the shuffled decks one to one, so each deck replayed is as likely
    as the deck dealt."""
    return np.array(REPLAY_PERMUTATIONS, dtype=np.int64)


@dataclass(frozen=True)
class FittedTable:
    """A fitted table of ``kind`` "draw_values" (``N_CELLS`` values, net points to the drawer
    by ``cell_nb``'s cell) or "win_values" (``WIN_BANDS`` × ``WIN_BANDS``: the chance that the
    seat with the first score wins the game, by the two scores' bands of the target): its
    ``version``, ``values``, ``digest`` and how it was fitted (``fitted``: the pool, seed, size)."""

    kind: str
    version: int
    values: np.ndarray
    digest: str
    fitted: dict

    @property
    def name(self) -> str:
        return f"{self.kind}_{self.version}"


def win_slopes(wins: FittedTable, target: int) -> np.ndarray:
    """Per pair of score bands, the chance of winning the game one net point of the hand is
    worth to the first seat under target ``target`` (``wins``: a game-win table): the
    difference between scoring ``WIN_STEP`` bands and conceding them, over the points between
    (reaching the target wins the game)."""
    n, step = WIN_BANDS, WIN_STEP
    ext = np.zeros((n + step, n + step))
    ext[:n, :n] = wins.values
    ext[n:, :] = 1.0  # the first seat reached the target
    ext[:n, n:] = 0.0  # the second did
    b = np.arange(n)
    return (ext[b[:, None] + step, b[None, :]] - ext[b[:, None], b[None, :] + step]) / (2 * step * max(int(target), 1) / n)


#: the game-win table's score bands (each 1/20 of the target) and the bands a hand moves a
#: score when its slope is taken (4: a fifth of the target, 20 points of 100)
WIN_BANDS, WIN_STEP = 20, 4
WIN_LAYOUT = "score-bands20"
#: the matchups a game-win table is fitted on, each played on development seeds
WIN_POOL = (
    ("marjj", "marjj", "tournament"),
    ("marjj", "simple", "tournament"),
    ("simple", "gin_hunter", "hoyle"),
    ("simple:knock_at=8", "simple", "classic"),
)


def _document(kind: str, version: int, layout: str, values: np.ndarray, fitted: dict) -> dict:
    return {"artefact": kind, "version": version, "layout": layout, "cells": int(values.size), "fitted": fitted,
            "values": [round(float(v), 4) for v in values.reshape(-1)]}


def _digest(document: dict) -> str:
    body = {k: v for k, v in document.items() if k != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def path_of(version: int, folder: Path | None = None, kind: str = "draw_values") -> Path:
    return (VALUES_DIR if folder is None else Path(folder)) / f"{kind}_{version}.json"


def _read(kind: str, version: int, folder: Path | None, layout: str, cells: int) -> dict:
    """An artefact's document read and verified (its kind, digest, layout and size); one that
    fails is refused with a ValueError of one line."""
    path = path_of(version, folder, kind)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ValueError(f"{path}: cannot read the {kind} table ({err})") from None
    values = document.get("values", ())
    if document.get("artefact") != kind or document.get("layout") != layout or len(values) != cells:
        raise ValueError(f"{path}: a {document.get('artefact')!r} table of layout {document.get('layout')!r} with "
                         f"{len(values)} cells, this ginsim reads {kind} of {layout!r} with {cells}")
    if document.get("digest") != _digest(document):
        raise ValueError(f"{path}: digest does not match its contents; the table was changed after it was fitted")
    return document


def _table(kind: str, version: int, folder: Path | None, layout: str, shape: tuple[int, ...]) -> FittedTable:
    document = _read(kind, version, folder, layout, int(np.prod(shape)))
    return FittedTable(kind, int(document["version"]), np.array(document["values"], dtype=np.float64).reshape(shape),
                       document["digest"], document["fitted"])


def load(version: int = DEFAULT_VERSION, folder: Path | None = None) -> FittedTable:
    """Draw-value table ``version`` read and verified (``_read``)."""
    return _table("draw_values", version, folder, LAYOUT, (N_CELLS,))


def load_wins(version: int = DEFAULT_VERSION, folder: Path | None = None) -> FittedTable:
    """Game-win table ``version`` read and verified (``_read``)."""
    return _table("win_values", version, folder, WIN_LAYOUT, (WIN_BANDS, WIN_BANDS))


def shrunk_means(cells: np.ndarray, outcomes: np.ndarray) -> np.ndarray:
    """Each cell's mean outcome, shrunk towards the cell without its stock band, which is
    shrunk towards the cell of the limit band and the drawer's deadwood (``PRIOR_WEIGHT``
    pseudo-draws at each step; a cell never seen takes its parent's value)."""
    shape = (N_LIMIT, N_MINE, N_OPPONENT, N_STOCK)
    count = np.bincount(cells, minlength=N_CELLS).reshape(shape).astype(np.float64)
    total = np.bincount(cells, weights=outcomes, minlength=N_CELLS).reshape(shape)
    n2, t2 = count.sum(axis=(2, 3)), total.sum(axis=(2, 3))  # limit band, drawer's deadwood
    n3, t3 = count.sum(axis=3), total.sum(axis=3)  # and the opponent's deadwood
    top = t2 / np.maximum(n2, 1.0) * (n2 > 0)
    mid = (t3 + PRIOR_WEIGHT * top[:, :, None]) / (n3 + PRIOR_WEIGHT)
    cell = (total + PRIOR_WEIGHT * mid[..., None]) / (count + PRIOR_WEIGHT)
    return cell.reshape(-1)


def record_draws(spec_a: str, spec_b: str, rules: str, seed: int, deals: int, values: np.ndarray | None = None):
    """Every stock draw of mirrored deals ``0 .. deals - 1`` of ``seed`` played by ``spec_a``
    against ``spec_b``: ``(cells, outcomes)``, each draw's cell and the net points its drawer
    scored in that hand.  A deal a strategy erred in is refused with a RuntimeError."""
    from ..core.rules import resolve_rules
    from ..engine.select import engine_module, strategy_pair
    from .draw_luck import DRAWS_ERROR, DRAWS_OVERFLOW, luck_kernels

    _, _, sids, params = strategy_pair(spec_a, spec_b)
    kernels = luck_kernels(engine_module(sids))
    table = np.zeros(N_CELLS) if values is None else values
    _, nets, _, draws, cells, _, _ = kernels.play_corrected_deals(np.uint64(seed), 0, deals,
                                                                  resolve_rules(rules).to_array(), sids, params, table,
                                                                  DRAW_CAPACITY)
    if (draws == DRAWS_ERROR).any():
        raise RuntimeError(f"a strategy erred while the draws of {spec_a} vs {spec_b} were recorded")
    if (draws == DRAWS_OVERFLOW).any():
        raise RuntimeError(f"a hand made more than {DRAW_CAPACITY} stock draws; raise draw_values.DRAW_CAPACITY")
    used = np.arange(DRAW_CAPACITY)[None, :] < draws[:, None]
    drawer = cells[:, :, 0][used]
    outcome = np.repeat(nets, draws).astype(np.float64)
    return cells[:, :, 1][used].astype(np.int64), np.where(drawer == 0, outcome, -outcome)


def fit(version: int, deals: int, seed: int, folder: Path | None = None, pool=FIT_POOL) -> FittedTable:
    """Fit table ``version`` on ``deals`` deals of each matchup of ``pool`` (a development
    ``seed``; each matchup its own derived seed) and write it; an existing version is never
    overwritten."""
    from ..run.seeds import derive_seed

    _check_development(seed, "a draw-value table")
    path = _new_path("draw_values", version, folder)
    parts = [record_draws(a, b, rules, derive_seed(seed, "draw_values", a, b, rules), deals) for a, b, rules in pool]
    cells = np.concatenate([p[0] for p in parts])
    outcomes = np.concatenate([p[1] for p in parts])
    fitted = {"pool": [list(m) for m in pool], "seed": seed, "deals_per_matchup": deals, "draws": int(len(cells)),
              "prior_weight": PRIOR_WEIGHT}
    _write(path, _document("draw_values", version, LAYOUT, shrunk_means(cells, outcomes), fitted))
    return load(version, folder)


def _check_development(seed: int, what: str) -> None:
    from ..run.seeds import DEVELOPMENT_SEEDS, is_development_seed

    if not is_development_seed(seed):
        raise ValueError(f"seed must be a development seed ({DEVELOPMENT_SEEDS.start:,} to "
                         f"{DEVELOPMENT_SEEDS.stop - 1:,}): {what} is fitted on them only, got {seed}")


def _new_path(kind: str, version: int, folder: Path | None) -> Path:
    path = path_of(version, folder, kind)
    if path.exists():
        raise ValueError(f"{path} exists: a fitted table is never changed; fit a new version")
    return path


def _write(path: Path, document: dict) -> None:
    from ..analysis.rendering import atomic_write

    document["digest"] = _digest(document)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(document, separators=(",", ":")) + "\n")


def score_bands(scores: np.ndarray, target: int) -> np.ndarray:
    """The bands of the game-win table of game scores ``scores`` under target ``target``."""
    return np.minimum(np.asarray(scores) * WIN_BANDS // max(int(target), 1), WIN_BANDS - 1)


def fit_wins(version: int, games: int, seed: int, folder: Path | None = None, pool=WIN_POOL) -> FittedTable:
    """Fit game-win table ``version`` on ``games`` games of each matchup of ``pool`` (a
    development ``seed``; each matchup its own derived seed): before every hand, the two
    scores' bands and whether the first seat went on to win the game, counted from both
    seats; each cell's share shrunk towards 1/2 by ``PRIOR_WEIGHT`` pseudo-games.  An existing
    version is never overwritten."""
    from .. import api
    from ..core.records import G_HANDS, G_WINNER, H_POINTS, H_WINNER
    from ..core.rules import resolve_rules
    from ..run.seeds import derive_seed

    _check_development(seed, "a game-win table")
    path = _new_path("win_values", version, folder)
    count = np.zeros((WIN_BANDS, WIN_BANDS))
    won = np.zeros((WIN_BANDS, WIN_BANDS))
    hands_seen = 0
    for a, b, rules in pool:
        target = resolve_rules(rules).target_score
        records, hands = api.play_game_records(a, b, rules, 0, games, derive_seed(seed, "win_values", a, b, rules),
                                               True, with_hands=True)
        api.check_game_errors(records, a, b)
        game_of = np.repeat(np.arange(games), records[:, G_HANDS])  # each hand's game
        gained = np.stack([np.where(hands[:, H_WINNER] == s, hands[:, H_POINTS], 0) for s in (0, 1)], axis=1)
        before_all = np.cumsum(gained, axis=0) - gained  # points scored in every row before this one
        starts = np.r_[0, np.cumsum(records[:, G_HANDS])[:-1]]
        before = before_all - before_all[starts][game_of]  # the game's scores before each hand
        bands = score_bands(before, target)
        first_won = (records[game_of, G_WINNER] == 0).astype(np.float64)
        for me, them, win in ((0, 1, first_won), (1, 0, 1.0 - first_won)):
            np.add.at(count, (bands[:, me], bands[:, them]), 1.0)
            np.add.at(won, (bands[:, me], bands[:, them]), win)
        hands_seen += len(hands)
    fitted = {"pool": [list(m) for m in pool], "seed": seed, "games_per_matchup": games, "hands": hands_seen,
              "prior_weight": PRIOR_WEIGHT}
    _write(path, _document("win_values", version, WIN_LAYOUT, (won + PRIOR_WEIGHT / 2) / (count + PRIOR_WEIGHT),
                           fitted))
    return load_wins(version, folder)


class LuckPairs(NamedTuple):
    """``draw_luck_pairs``' answer, per mirrored pair: the ``values`` counted, their draws'
    ``luck``, the ``name`` of that control (the tables and their digests), and for the first
    mover's values the least deadwood ``dealt`` to the first mover and to the dealer (pairs × 2;
    None otherwise), and for games whose hands were also played exchanged, what that changed to
    the side counted (``exchanges``, pairs × 2: the chance of winning the game after each
    exchanged hand less after the hand played, summed over the game's hands, and the exchanged
    hands' draws' luck; None otherwise), and for games whose hands were replayed by B in both
    seats, what that changed (``replays``, pairs × 2: the chance of winning the game after each
    replay with the hands exchanged, and the mean chance after the replays from other decks
    (``replay_decks``), each less the chance after the replay as dealt, summed over the game's
    hands, to the side counted; None otherwise)."""

    values: np.ndarray
    luck: np.ndarray
    name: str
    dealt: np.ndarray | None = None
    exchanges: np.ndarray | None = None
    replays: np.ndarray | None = None


def draw_luck_pairs(spec_a: str, spec_b: str, rules, unit: str, n: int, seed: int,
                    tables: dict[str, FittedTable] | None = None, first_mover: bool = False,
                    swap: bool = False, exchange_hands: bool = False, replay_b: bool = False) -> LuckPairs:
    """Deals (``unit`` "hand") or games ("game") ``0 .. n - 1`` of ``seed`` played by ``spec_a``
    against ``spec_b`` with their draws' luck counted (``simulator.studies.draw_luck``, with
    the tables ``tables`` gives by kind, "draw_values" and for games "win_values"; by default
    this module's ``DEFAULT_VERSION`` of each): per mirrored pair, A's mean value (net points,
    or games won) and the mean luck to A in that unit, and the name and digest of each table
    used (``LuckPairs``); ``first_mover``: the value and luck of the seat that moves first (in a
    game, the non-dealer of its first hand), whichever player holds it, and the deadwood dealt to
    each side (in a game, in its first hand); ``swap`` (hands only): every deal played with its
    two hands exchanged (``simulator.core.state.exchange_dealt_hands_nb``); ``exchange_hands``
    (games only): every hand of every game also played from the same scores with its two hands
    exchanged, before the hand itself (``exchanges``); ``replay_b`` (games only): every hand of
    every game also replayed from the same scores by B's player in both seats, as dealt, with its
    hands exchanged and from each deck of ``replay_decks`` (``replays``).  A deal or game a
    strategy erred in is refused with a RuntimeError."""
    from ..core.rules import resolve_rules
    from ..engine.select import engine_module, strategy_rows
    from .draw_luck import DRAWS_ERROR, luck_kernels

    if swap and unit != "hand" or (exchange_hands or replay_b) and unit != "game":
        raise ValueError("swap is for single deals (unit hand); exchange_hands and replay_b are for the hands of "
                         "games (unit game)")
    tables = tables or {}
    table = tables.get("draw_values") or load()
    used = [table]
    resolved = resolve_rules(rules)
    if unit == "game":
        wins = tables.get("win_values") or load_wins()
        slopes = win_slopes(wins, resolved.target_score)
        used.append(wins)
    _, all_sids, all_params = strategy_rows(spec_a, spec_b, spec_b, spec_b)  # the players, then B standing in
    sids, params = all_sids[:2], all_params[:2]
    stand_ins = (all_sids[2:], all_params[2:], replay_decks()) if replay_b else None
    kernels = luck_kernels(engine_module(all_sids))
    vector = resolved.to_array()
    values, lucks = np.empty(n), np.empty(n)
    dealt = np.empty((n, 2)) if first_mover else None
    exchanges = np.empty((n, 2)) if exchange_hands else None
    replays = np.empty((n, 2)) if replay_b else None
    for start in range(0, n, DRAWS_PIECE):
        count = min(DRAWS_PIECE, n - start)
        if unit == "hand":
            a_seats, value, luck, draws, _, dealers, deadwood = kernels.play_corrected_deals(
                np.uint64(seed), start, count, vector, sids, params, table.values, swap=swap)
            erred = draws == DRAWS_ERROR
        else:
            a_seats, winners, luck, dealers, deadwood, exchanged, replayed = kernels.play_corrected_games(
                np.uint64(seed), start, count, vector, sids, params, table.values, slopes, wins=wins.values,
                exchange=exchange_hands, stand_ins=stand_ins)
            erred = winners < 0
        counted = 1 - dealers if first_mover else a_seats  # the seat whose value is counted
        if first_mover:
            rows = np.arange(count)
            dealt[start:start + count] = np.column_stack([deadwood[rows, counted], deadwood[rows, dealers]])
        if unit == "game":
            value = np.where(winners == counted, 1.0, 0.0)
        if erred.any():
            raise RuntimeError(f"a strategy erred in {spec_a} vs {spec_b} (seed {seed}); simulate it to see where")
        sign = np.where(counted == 0, 1.0, -1.0)  # the kernels count seat 0's points and luck
        values[start:start + count] = sign * value if unit == "hand" else value
        lucks[start:start + count] = sign * luck
        if exchange_hands:
            exchanges[start:start + count] = sign[:, None] * exchanged
        if replay_b:
            replays[start:start + count] = sign[:, None] * replayed
    names = ", ".join(f"{t.name}, sha256 {t.digest[:12]}" for t in used)
    return LuckPairs(values.reshape(-1, 2).mean(axis=1), lucks.reshape(-1, 2).mean(axis=1), f"draw luck ({names})",
                     None if dealt is None else dealt.reshape(-1, 2, 2).mean(axis=1),
                     None if exchanges is None else exchanges.reshape(-1, 2, 2).mean(axis=1),
                     None if replays is None else replays.reshape(-1, 2, 2).mean(axis=1))
