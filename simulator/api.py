"""The Python façade over the engine: ``simulate`` (hands) and ``simulate_games`` (games).

It validates arguments, preallocates the kernels' outputs, and turns records into pandas
DataFrames.  Columns of a **hand row** (declared once, in ``simulator.core.records.HAND_ROW``):

{hand_table}

Columns of a **game row** (``simulator.core.records.GAME_ROW``):

{game_table}

A strategy that breaks the rules or writes into the engine's arrays stops its hand (and
game); ``simulate`` and ``simulate_games`` then raise ``StrategyError``, a ``ValueError``
with one line naming the strategy, the decision, the offending value and the deal (see
``check_hand_errors`` / ``check_game_errors``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from strategies import parse_strategy
from strategies.registry import Strategy

from ._version import __version__
from .core import records as RC
from .engine.columns import (  # noqa: F401  (the record -> frame conversion, re-exported)
    arrow_arrays,
    columns_frame,
    game_columns,
    game_frame,
    hand_columns,
    hand_frame,
    record_columns,
)
from .core.errors import StrategyError, error_message
from .infra.inputs import argument, check_memory, int_pair
from .core.records import GAME_ROW, HAND_ROW, column_table
from .core.constants import K_STATE, N_STATE
from .core.hand_reading import events_of, trace_count
from .engine.kernels import TRACE_CAPACITY
from .engine.loop import STOP_AT_END
from .engine.select import engine_module, loop_module, strategy_pair
from .engine.work import new_work, seat_nb, start_deck_nb
from .core.rules import MAX_TARGET, Rules, resolve_rules

__doc__ = __doc__.format(hand_table=column_table(HAND_ROW), game_table=column_table(GAME_ROW))


#: peak memory per row of ``simulate`` and ``simulate_games`` (the records, the frame and its
#: statistics), measured (ru_maxrss above the first call) over 1,000,000 deals: 393 B, and
#: 100,000 games: 173 B; each hand of a game kept with ``hands=True``: about 370 B
BYTES_PER_ROW = {"deals": 400, "games": 200, "hands": 400}


def _count(name: str, value: int) -> int:
    return argument(name, value, "int", low=0)


def check_rows_memory(what: str, rows: int, kind: str = "deals", step: int = 1) -> None:
    """Refuse, before anything is allocated, ``rows`` rows of ``kind`` ("deals", "games",
    "hands") that would not fit in this machine's memory (``inputs.check_memory``): one
    line naming ``what`` (the argument or flag) and the most that fit (a multiple of
    ``step``).  ``ginsim run`` plays any number, chunk by chunk, to disk."""
    flag = what.startswith("--")
    check_memory(what, rows, BYTES_PER_ROW[kind], kind,
                 f"give {what}{' ' if flag else '='}{{most}} or fewer, or play them with ginsim run (an experiment "
                 f"file), which keeps one chunk in memory at a time", step=step)


def _resolve_pair(strategy_a, strategy_b) -> tuple:
    out = []
    for spec in (strategy_a, strategy_b):
        try:
            out.append(parse_strategy(spec))
        except ValueError:
            out.append(None)
    return tuple(out)


def check_hand_errors(records: np.ndarray, strategy_a, strategy_b, context: str = "") -> None:
    """Raise ``StrategyError`` for the first hand record with an error.

    ``records`` are raw hand records (``play_deal_records``, or the hands of
    ``play_game_records``); ``strategy_a``/``strategy_b`` the specs (or ``Strategy``)
    they were played with; ``context`` (e.g. ``"cell 3"``) goes into the message before
    the deal.  The message is one line, e.g. ``strategy 'pat' (A) discarded 99, which is
    not a card (...) (decision: discard; cell 3, deal 1234)``.
    """
    records = np.asarray(records)
    if records.ndim != 2 or records.shape[0] == 0:
        return
    bad = np.flatnonzero(records[:, RC.H_ERROR])
    if not bad.size:
        return
    r = records[bad[0]]
    if r[RC.H_GAME] >= 0:
        where = f"game {int(r[RC.H_GAME])}, hand {int(r[RC.H_HAND_IN_GAME])}"
    else:
        where = f"deal {int(r[RC.H_DEAL])}"
    raise StrategyError(error_message(int(r[RC.H_ERROR]), int(r[RC.H_ERROR_SEAT]), int(r[RC.H_A_SEAT]),
                                       int(r[RC.H_ERROR_VALUE]), _resolve_pair(strategy_a, strategy_b),
                                       where, context))


def check_game_errors(games: np.ndarray, strategy_a, strategy_b, context: str = "") -> None:
    """Raise ``StrategyError`` for the first game record with an error; the message names
    the game and the hand (``G_HANDS - 1``) in which it stopped.  Arguments as for
    ``check_hand_errors``."""
    games = np.asarray(games)
    if games.ndim != 2 or games.shape[0] == 0:
        return
    bad = np.flatnonzero(games[:, RC.G_ERROR])
    if not bad.size:
        return
    g = games[bad[0]]
    where = f"game {int(g[RC.G_GAME])}, hand {int(g[RC.G_HANDS]) - 1}"
    raise StrategyError(error_message(int(g[RC.G_ERROR]), int(g[RC.G_ERROR_SEAT]), int(g[RC.G_A_SEAT]),
                                       int(g[RC.G_ERROR_VALUE]), _resolve_pair(strategy_a, strategy_b),
                                       where, context))


def play_deal_records(strategy_a, strategy_b, rules, first_deal: int, n_deals: int, seed: int,
                      mirrored: bool = True, context: str = "") -> np.ndarray:
    """The raw int64 hand records (n_deals × N_HAND_COLS) of deals ``first_deal ..``;
    ``context`` (e.g. ``"cell 3"``) is named with the deal when a Python strategy fails."""
    a, b, sids, params = strategy_pair(strategy_a, strategy_b)
    if a.is_python or b.is_python:  # plain-Python strategies: the Python driver
        from .engine import pydriver

        return pydriver.play_deal_records(a, b, rules, first_deal, n_deals, seed, mirrored, context)
    rules = resolve_rules(rules)
    out = np.zeros((n_deals, RC.N_HAND_COLS), dtype=np.int64)
    if n_deals:
        engine_module(sids).play_deals(np.uint64(seed), first_deal, n_deals, bool(mirrored), rules.to_array(),
                        sids, params, out)
    return out


def frame_context(strategy_a, strategy_b, rules, seed: int, mirrored: bool) -> dict:
    """What a frame of ``simulate``/``simulate_games`` was played with, for its ``attrs``:
    ``a``, ``b`` (the strategies' canonical specs), ``rules`` (the preset name when one was
    given by name, else ``"custom"``), ``rules_fields`` (every field of the rules),
    ``seed``, ``mirrored`` and ``version`` (of ginsim)."""
    def label(spec) -> str:
        try:
            return parse_strategy(spec).label
        except (ValueError, KeyError):
            return str(spec)

    if isinstance(rules, str):
        name = rules
    elif isinstance(rules, dict) and set(rules) == {"preset"}:
        name = str(rules["preset"])
    else:
        name = "custom"
    return {"a": label(strategy_a), "b": label(strategy_b), "rules": name,
            "rules_fields": resolve_rules(rules).to_dict(), "seed": int(seed), "mirrored": bool(mirrored),
            "version": __version__}


def simulate(strategy_a: str | Strategy, strategy_b: str | Strategy, rules: Rules | str | dict = "hoyle",
             n_deals: int = 10_000, seed: int = 0, mirrored: bool = True) -> pd.DataFrame:
    """Play ``n_deals`` independent single hands of A against B; one row per hand.

    With ``mirrored`` (the default) deals come in pairs that share a shuffled deck and
    dealer seat with A's and B's seats swapped, which cancels most of the luck of the deal
    from A-versus-B comparisons (``n_deals`` should then be even).  The same seed gives the
    same frame whatever the number of threads.

    >>> df = simulate("knock_early", "random", rules="hoyle", n_deals=2000, seed=1)
    >>> len(df), df["net_a"].mean() > 0
    (2000, np.True_)
    """
    n_deals = _count("n_deals", n_deals)
    mirrored = argument("mirrored", mirrored, "bool")
    check_rows_memory("n_deals", n_deals)
    records = play_deal_records(strategy_a, strategy_b, rules, 0, n_deals, _seed(seed), mirrored)
    check_hand_errors(records, strategy_a, strategy_b)
    frame = hand_frame(records)
    frame.attrs.update(frame_context(strategy_a, strategy_b, rules, seed, mirrored))
    return frame


def _seed(seed: int) -> int:
    return argument("seed", seed, "int", 0, 2**64 - 1, text="an integer from 0 to 2**64 - 1")


def play_game_records(strategy_a, strategy_b, rules, first_game: int, n_games: int, seed: int,
                      mirrored: bool = True, with_hands: bool = False, context: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Raw game records, and hand records (every hand of every game) when asked;
    ``context`` as for ``play_deal_records``."""
    a, b, sids, params = strategy_pair(strategy_a, strategy_b)
    if a.is_python or b.is_python:  # plain-Python strategies: the Python driver
        from .engine import pydriver

        return pydriver.play_game_records(a, b, rules, first_game, n_games, seed, mirrored, with_hands, context)
    vector = resolve_rules(rules).to_array()
    games = np.zeros((n_games, RC.N_GAME_COLS), dtype=np.int64)
    no_hands = np.zeros((0, RC.N_HAND_COLS), dtype=np.int64)
    if n_games == 0:
        return games, no_hands
    engine_module(sids).play_games(np.uint64(seed), first_game, n_games, bool(mirrored), vector, sids, params,
                    games, no_hands, np.zeros(0, np.int64))
    if not with_hands:
        return games, no_hands
    # games are deterministic: replay them, now writing every hand at its offset
    offsets = np.zeros(n_games + 1, dtype=np.int64)
    np.cumsum(games[:, RC.G_HANDS], out=offsets[1:])
    check_rows_memory("n_games", int(offsets[-1]), "hands")  # every hand of every game, counted first
    hands = np.zeros((offsets[-1], RC.N_HAND_COLS), dtype=np.int64)
    engine_module(sids).play_games(np.uint64(seed), first_game, n_games, bool(mirrored), vector, sids, params,
                    games, hands, offsets)
    return games, hands


def simulate_games(strategy_a: str | Strategy, strategy_b: str | Strategy,
                   rules: Rules | str | dict = "hoyle", n_games: int = 1000, seed: int = 0,
                   mirrored: bool = True, hands: bool = False):
    """Play ``n_games`` whole games of A against B; one row per game.

    The first dealer of each game is drawn from the seed; with ``mirrored`` games come in
    pairs that see the same decks with A's and B's seats swapped.  With ``hands=True``
    returns ``(games, hands)``, the second frame holding every hand (hand columns plus
    ``game`` and ``hand``, the hand's number within its game).

    >>> games = simulate_games("knock_early", "random", rules="hoyle", n_games=200, seed=1)
    >>> bool((games["winner"] == "a").mean() > 0.9)
    True
    """
    n_games = _count("n_games", n_games)
    mirrored = argument("mirrored", mirrored, "bool")
    hands = argument("hands", hands, "bool")
    check_rows_memory("n_games", n_games, "games")
    games, hand_records = play_game_records(strategy_a, strategy_b, rules, 0, n_games, _seed(seed),
                                            mirrored, with_hands=hands)
    check_game_errors(games, strategy_a, strategy_b)
    context = frame_context(strategy_a, strategy_b, rules, seed, mirrored)
    frame = game_frame(games)
    frame.attrs.update(context)
    if not hands:
        return frame
    hf = hand_frame(hand_records)
    hf.insert(0, "game", hand_records[:, RC.H_GAME])
    hf = hf.rename(columns={"deal": "hand"})
    hf["hand"] = hand_records[:, RC.H_HAND_IN_GAME]
    hf.attrs.update(context)
    return frame, hf


def trace_deal(strategy_a, strategy_b, rules="hoyle", seed: int = 0, deal: int = 0,
               mirrored: bool = True) -> tuple[pd.Series, list[tuple[int, str, int]]]:
    """Re-play one deal of ``simulate`` and return its hand row and its events.

    Events are ``(seat, event, value)``: seats are 0/1 (-1 for the table), values are card
    codes, deadwood, points, or card masks (``sets``, ``runs``, ``layoff``).  The row is
    the same as ``simulate(...)`` gives for that deal, plus ``a_seat``.
    """
    a, b, sids, params = strategy_pair(strategy_a, strategy_b)
    if a.is_python or b.is_python:  # plain-Python strategies: the Python driver
        from .engine import pydriver

        return pydriver.trace_deal(a, b, rules, _seed(seed), _count("deal", deal), argument("mirrored", mirrored,
                                                                                            "bool"))
    mirrored = argument("mirrored", mirrored, "bool")
    vector = resolve_rules(rules).to_array()
    out = np.zeros((1, RC.N_HAND_COLS), dtype=np.int64)
    trace = np.zeros((TRACE_CAPACITY, 3), dtype=np.int64)
    engine = engine_module(sids)
    n = engine.play_deal_block_nb(np.uint64(_seed(seed)), _count("deal", deal), 0, 1, bool(mirrored), vector, sids,
                                  params, out, trace, new_work(vector, params.shape[1]))
    row = hand_frame(out).iloc[0].copy()
    row["a_seat"] = int(out[0, RC.H_A_SEAT])
    return row, events_of(trace, n)


def play_deck(deck, dealer: int = 0, strategy_a="knock_early", strategy_b="knock_early",
              rules="hoyle", seed: int = 0, scores=(0, 0)) -> tuple[dict, list[tuple[int, str, int]]]:
    """Play one hand from an explicit deck order (A in seat 0, B in seat 1).

    ``deck`` lists the 52 cards (string or codes): cards 0..19 are dealt alternately to the
    non-dealer and the dealer, card 20 is the upcard, the rest is the stock in drawing
    order.  Returns the raw hand record as a dict of column name → value (seats, not a/b)
    and the events.  For scripted tests and exploration.
    """
    from .core.cards import DECK, as_codes

    codes = np.array(as_codes(deck), dtype=np.int64)
    if len(codes) != 52 or set(codes.tolist()) != set(DECK.tolist()):
        raise ValueError("deck must list all 52 cards exactly once")
    dealer = argument("dealer", dealer, "int", 0, 1, text="seat 0 or 1")
    seed = _seed(seed)
    scores = int_pair("scores", scores, 0, MAX_TARGET - 1)
    _, _, sids, params = strategy_pair(strategy_a, strategy_b)
    vector = resolve_rules(rules).to_array()
    work = new_work(vector, params.shape[1])
    out = np.zeros(RC.N_HAND_COLS, np.int64)
    trace = np.zeros((TRACE_CAPACITY, 3), np.int64)
    start_deck_nb(work, codes, np.int64(dealer), np.int64(scores[0]), np.int64(scores[1]), np.uint64(seed), vector,
                  out, trace)
    seat_nb(work, np.int64(0), sids, params)
    loop_module(sids).run_until_nb(work, vector, np.int64(STOP_AT_END), out, trace)
    record = dict(zip(RC.HAND_RECORD_NAMES, (int(x) for x in out), strict=True))
    record["outcome"] = RC.OUTCOMES[record["outcome"]]
    return record, events_of(trace, trace_count(work[K_STATE:K_STATE + N_STATE]))
