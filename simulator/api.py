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
from strategies.registry import Strategy, engine_module

from .engine import kernels as E
from .core import records as RC
from .core.cards import format_card
from .core.records import GAME_ROW, HAND_ROW, frame_doc_table
from .core.rules import Rules, resolve_rules
from .engine.state import EVENT_NAMES as EV_NAMES

__doc__ = __doc__.format(hand_table=frame_doc_table(HAND_ROW), game_table=frame_doc_table(GAME_ROW))

_CARD_NAMES = [format_card(c) if c % 16 < 13 else "" for c in range(64)]
_UPCARD_CATEGORIES = [n for n in _CARD_NAMES if n]


def _strategies(strategy_a, strategy_b) -> tuple[Strategy, Strategy, np.ndarray, np.ndarray]:
    a, b = parse_strategy(strategy_a), parse_strategy(strategy_b)
    sids = np.array([a.sid, b.sid], dtype=np.int64)
    params = np.vstack([a.row, b.row])
    return a, b, sids, params


def _count(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


class StrategyError(ValueError):
    """A strategy made an illegal move or wrote into an array the engine lent it.  The
    message is one line: strategy (spec label, A or B), decision, offending value, deal."""


#: the decision in which each error arises
_ERROR_DECISION = {
    E.ERR_ILLEGAL_DISCARD: "discard",
    E.ERR_BAD_MELDS: "arrange",
    E.ERR_WROTE_PILE: "any, found by the engine's copy check",
    E.ERR_WROTE_RULES: "any, found by the engine's copy check",
    E.ERR_WROTE_PARAMS: "any, found by the engine's copy check",
    E.ERR_ILLEGAL_ACTION: "any",
}
_RULE_SLOTS = dict(enumerate(RC.RULE_SLOT_NAMES))


_READ_ONLY = "; pile, rules and params are read-only"


def _is_card(value: int) -> bool:
    return 0 <= value <= 63 and value % 16 < 13


def _card_or_number(value: int) -> str:
    """A card code as its name (``7h``), anything else as the raw number."""
    return format_card(value) if _is_card(value) else str(value)


def _mask_text(mask: int) -> str:
    """A card mask as its cards, or as a hex number when it has bits that are not cards."""
    cards = [c for c in range(64) if (mask >> c) & 1] if mask >= 0 else []
    if mask < 0 or not all(_is_card(c) for c in cards):
        return hex(mask & (2**64 - 1))
    return "[" + " ".join(format_card(c) for c in cards) + "]"


def _what(code: int, value: int, strategy: Strategy | None) -> str:
    if code == E.ERR_ILLEGAL_DISCARD:
        if not _is_card(value):
            return f"discarded {value}, which is not a card (codes are suit * 16 + rank 0..12)"
        return (f"discarded {format_card(value)}, which is not one of its legal discards "
                "(a card in its hand, not the one just taken from the pile)")
    if code == E.ERR_BAD_MELDS:
        return (f"laid out melds {_mask_text(value)}, which are not a least-deadwood "
                "arrangement of its hand")
    if code == E.ERR_WROTE_PILE:
        return f"wrote into the discard pile it was given (slot {value}){_READ_ONLY}"
    if code == E.ERR_WROTE_RULES:
        name = _RULE_SLOTS.get(value)
        slot = f"slot {value}, {name}" if name else f"slot {value}"
        return f"wrote into the rule vector it was given ({slot}){_READ_ONLY}"
    if code == E.ERR_WROTE_PARAMS:
        names = list(strategy.values) if strategy is not None else []
        name = names[value] if 0 <= value < len(names) else None
        slot = f"slot {value}, {name}" if name else f"slot {value}"
        return f"wrote into its parameter row ({slot}){_READ_ONLY}"
    if code == E.ERR_ILLEGAL_ACTION:
        return f"made an action that is not legal in its phase (value {value})"
    return f"caused engine error {code} (value {_card_or_number(value)})"


def _error_message(code: int, seat: int, a_seat: int, value: int, strategies: tuple, where: str,
                   context: str) -> str:
    if seat in (0, 1):
        who = 0 if seat == a_seat else 1
        strategy = strategies[who]
        label = f"{strategy.label!r} " if strategy is not None else ""
        name = f"strategy {label}({'AB'[who]})"
    else:
        strategy, name = None, "a strategy"
    place = ", ".join(p for p in (context, where) if p)
    decision = _ERROR_DECISION.get(code, "unknown")
    return f"{name} {_what(code, value, strategy)} (decision: {decision}; {place})"


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
    raise StrategyError(_error_message(int(r[RC.H_ERROR]), int(r[RC.H_ERROR_SEAT]), int(r[RC.H_A_SEAT]),
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
    raise StrategyError(_error_message(int(g[RC.G_ERROR]), int(g[RC.G_ERROR_SEAT]), int(g[RC.G_A_SEAT]),
                                       int(g[RC.G_ERROR_VALUE]), _resolve_pair(strategy_a, strategy_b),
                                       where, context))


def play_deal_records(strategy_a, strategy_b, rules, first_deal: int, n_deals: int, seed: int,
                      mirrored: bool = True, context: str = "") -> np.ndarray:
    """The raw int64 hand records (n_deals × N_HAND_COLS) of deals ``first_deal ..``;
    ``context`` (e.g. ``"cell 3"``) is named with the deal when a Python strategy fails."""
    a, b, sids, params = _strategies(strategy_a, strategy_b)
    if a.is_python or b.is_python:  # plain-Python strategies: the Python driver
        from .engine import pydriver

        return pydriver.play_deal_records(a, b, rules, first_deal, n_deals, seed, mirrored, context)
    rules = resolve_rules(rules)
    out = np.zeros((n_deals, RC.N_HAND_COLS), dtype=np.int64)
    if n_deals:
        engine_module(sids).play_deals(np.uint64(seed), first_deal, n_deals, bool(mirrored), rules.to_array(),
                        sids, params, out)
    return out


#: card code -> index of its name in ``_UPCARD_CATEGORIES`` (-1: not a card)
_CARD_CODE_INDEX = np.array([_UPCARD_CATEGORIES.index(n) if n else -1 for n in _CARD_NAMES], dtype=np.int8)
_CATEGORIES = {"seat": ("a", "b"), "outcome": tuple(RC.OUTCOMES), "card": tuple(_UPCARD_CATEGORIES)}


def _gather_dtype(c) -> np.dtype:
    """The dtype a raw column is gathered into: the frame's for plain numbers, else int16
    (seats, codes, deadwood and card codes all fit)."""
    if c.kind in ("int", "by_seat"):
        return np.dtype(c.dtype)
    return np.dtype(np.int16)


def record_columns(records: np.ndarray, row: tuple, names: tuple[str, ...],
                   a_seat_col: int) -> list[tuple[str, str, object]]:
    """The frame's columns made from records, in frame order, as ``(name, form, data)``:
    ``plain`` (a numpy array of the final dtype), ``category`` (``(codes, categories)``,
    int8 codes, -1 for missing) or ``masked`` (``(values, mask)``, True = missing).

    Built column by column as the schema entries ``row`` say (``simulator.core.records``:
    ``kind`` and ``dtype``), with no per-row Python work: the raw columns are gathered in
    one parallel pass per dtype (``simulator.analysis.columns.gather``), and every derived column
    is one vectorised expression.  ``hand_frame``/``game_frame`` wrap the result in pandas,
    ``hand_table``/``game_table`` in Arrow."""
    from .analysis.columns import gather

    r = np.asarray(records)
    if r.ndim != 2:
        raise ValueError("records must be a 2-d array (rows × record columns)")
    raw = [c for c in row if c.raw is not None]
    groups: dict[np.dtype, list[str]] = {}
    for c in raw:
        for name in ((c.raw + "0", c.raw + "1") if c.kind == "by_seat" else (c.raw,)):
            groups.setdefault(_gather_dtype(c), []).append(name)
    blocks = gather(r, {dtype: [names.index(n) for n in group] for dtype, group in groups.items()})
    cols: dict[str, np.ndarray] = {}
    for dtype, group in groups.items():
        cols.update(zip(group, blocks[dtype]))
    a_seat = cols[names[a_seat_col]]
    out: list[tuple[str, str, object]] = []
    for c in row:
        if c.frame is None:
            continue
        kind = c.kind
        if kind == "int":
            out.append((c.frame, "plain", cols[c.raw]))
        elif kind == "a_seat":
            out.append((c.frame, "plain", cols[c.raw] == a_seat))
        elif kind == "seat":
            seat = cols[c.raw]
            codes = np.where(seat < 0, np.int8(-1), (seat != a_seat).astype(np.int8))
            out.append((c.frame, "category", (codes, _CATEGORIES["seat"])))
        elif kind == "outcome":
            out.append((c.frame, "category", (cols[c.raw].astype(np.int8), _CATEGORIES["outcome"])))
        elif kind == "card":
            out.append((c.frame, "category", (_CARD_CODE_INDEX[cols[c.raw] & 63], _CATEGORIES["card"])))
        elif kind == "deadwood":  # missing for a dead hand
            dead = cols["outcome"] == RC.OUT_DEAD
            values = cols[c.raw]
            values[dead] = 0
            out.append((c.frame, "masked", (values, dead)))
        elif kind == "flag":
            out.append((c.frame, "plain", cols[c.raw] == 1))
        elif kind == "by_seat":
            seat0, seat1 = cols[c.raw + "0"], cols[c.raw + "1"]
            a_first = a_seat == 0
            out.append((c.frame + "_a", "plain", np.where(a_first, seat0, seat1)))
            out.append((c.frame + "_b", "plain", np.where(a_first, seat1, seat0)))
        elif kind == "net_a":  # points to A minus points to B
            winner = cols["winner"]
            points = cols["points"]
            net = np.where(winner < 0, 0, np.where(winner == a_seat, points, -points))
            out.append((c.frame, "plain", net.astype(c.dtype, copy=False)))
        elif kind == "margin_a":
            score = {name: data for name, _, data in out}
            out.append((c.frame, "plain", (score["score_a"] - score["score_b"]).astype(c.dtype, copy=False)))
        else:
            raise ValueError(f"record column {c.frame!r}: unknown kind {kind!r}")
    return out


_DTYPES: dict[tuple, pd.CategoricalDtype] = {}


def _categorical(codes: np.ndarray, categories: tuple) -> pd.Categorical:
    dtype = _DTYPES.get(categories)
    if dtype is None:
        dtype = _DTYPES[categories] = pd.CategoricalDtype(list(categories))
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def _frame(records: np.ndarray, row: tuple, names: tuple[str, ...], a_seat_col: int) -> pd.DataFrame:
    """Records as a DataFrame (``record_columns`` wrapped in pandas arrays)."""
    return columns_frame(record_columns(records, row, names, a_seat_col))


def columns_frame(columns: list[tuple[str, str, object]]) -> pd.DataFrame:
    """``record_columns`` as a DataFrame, each column wrapped without a copy."""
    frame: dict[str, object] = {}
    for name, form, data in columns:
        if form == "plain":
            frame[name] = data
        elif form == "category":
            frame[name] = _categorical(*data)
        else:
            frame[name] = pd.arrays.IntegerArray(*data)
    return pd.DataFrame(frame, copy=False)


def arrow_arrays(columns: list[tuple[str, str, object]]) -> list:
    """``record_columns`` as Arrow arrays (numbers without a copy, categories as dictionary
    arrays with int8 indices, missing values as nulls)."""
    import pyarrow as pa

    arrays = []
    for _, form, data in columns:
        if form == "plain":
            arrays.append(pa.array(data))
        elif form == "category":
            codes, categories = data
            missing = codes < 0
            indices = pa.array(codes, mask=missing) if missing.any() else pa.array(codes)
            arrays.append(pa.DictionaryArray.from_arrays(indices, _dictionary(categories)))
        else:
            values, mask = data
            arrays.append(pa.array(values, mask=mask) if mask.any() else pa.array(values))
    return arrays


_ARROW_DICTIONARIES: dict[tuple, object] = {}


def _dictionary(categories: tuple):
    import pyarrow as pa

    if categories not in _ARROW_DICTIONARIES:
        _ARROW_DICTIONARIES[categories] = pa.array(list(categories), type=pa.string())
    return _ARROW_DICTIONARIES[categories]


def hand_columns(records: np.ndarray) -> list[tuple[str, str, object]]:
    """``record_columns`` of hand records."""
    return record_columns(records, HAND_ROW, RC.HAND_RECORD_NAMES, RC.H_A_SEAT)


def game_columns(records: np.ndarray) -> list[tuple[str, str, object]]:
    """``record_columns`` of game records."""
    return record_columns(records, GAME_ROW, RC.GAME_RECORD_NAMES, RC.G_A_SEAT)


def hand_frame(records: np.ndarray) -> pd.DataFrame:
    """Hand records as the documented DataFrame (columns: ``simulator.core.records.HAND_ROW``)."""
    return _frame(records, HAND_ROW, RC.HAND_RECORD_NAMES, RC.H_A_SEAT)


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
    records = play_deal_records(strategy_a, strategy_b, rules, 0, n_deals, _seed(seed), mirrored)
    check_hand_errors(records, strategy_a, strategy_b)
    from .analysis.stats import frame_context  # what the frame was played with, in df.attrs

    frame = hand_frame(records)
    frame.attrs.update(frame_context(strategy_a, strategy_b, rules, seed, mirrored))
    return frame


def _seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer from 0 to 2**64 - 1, got {seed!r}")
    return int(seed)


def play_game_records(strategy_a, strategy_b, rules, first_game: int, n_games: int, seed: int,
                      mirrored: bool = True, with_hands: bool = False, context: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Raw game records, and hand records (every hand of every game) when asked;
    ``context`` as for ``play_deal_records``."""
    a, b, sids, params = _strategies(strategy_a, strategy_b)
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
    hands = np.zeros((offsets[-1], RC.N_HAND_COLS), dtype=np.int64)
    engine_module(sids).play_games(np.uint64(seed), first_game, n_games, bool(mirrored), vector, sids, params,
                    games, hands, offsets)
    return games, hands


def game_frame(records: np.ndarray) -> pd.DataFrame:
    """Game records as the documented DataFrame (columns: ``simulator.core.records.GAME_ROW``)."""
    return _frame(records, GAME_ROW, RC.GAME_RECORD_NAMES, RC.G_A_SEAT)


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
    games, hand_records = play_game_records(strategy_a, strategy_b, rules, 0, n_games, _seed(seed),
                                            mirrored, with_hands=hands)
    check_game_errors(games, strategy_a, strategy_b)
    from .analysis.stats import frame_context  # what the frames were played with, in df.attrs

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


EVENT_NAMES = dict(enumerate(EV_NAMES))


def _events(trace: np.ndarray, n: int) -> list[tuple[int, str, int]]:
    if n > len(trace):
        raise RuntimeError("trace capacity exceeded")
    return [(int(p), EVENT_NAMES[int(e)], int(v)) for p, e, v in trace[:n]]


def trace_deal(strategy_a, strategy_b, rules="hoyle", seed: int = 0, deal: int = 0,
               mirrored: bool = True) -> tuple[pd.Series, list[tuple[int, str, int]]]:
    """Re-play one deal of ``simulate`` and return its hand row and its events.

    Events are ``(seat, event, value)``: seats are 0/1 (-1 for the table), values are card
    codes, deadwood, points, or card masks (``sets``, ``runs``, ``layoff``).  The row is
    the same as ``simulate(...)`` gives for that deal, plus ``a_seat``.
    """
    a, b, sids, params = _strategies(strategy_a, strategy_b)
    if a.is_python or b.is_python:  # plain-Python strategies: the Python driver
        from .engine import pydriver

        return pydriver.trace_deal(a, b, rules, _seed(seed), _count("deal", deal), mirrored)
    vector = resolve_rules(rules).to_array()
    out = np.zeros((1, RC.N_HAND_COLS), dtype=np.int64)
    trace = np.zeros((E.TRACE_CAPACITY, 3), dtype=np.int64)
    n = engine_module(sids).play_deal_block_nb(np.uint64(_seed(seed)), _count("deal", deal), 0, 1, bool(mirrored), vector,
                             sids, params, out, trace)
    row = hand_frame(out).iloc[0].copy()
    row["a_seat"] = int(out[0, RC.H_A_SEAT])
    return row, _events(trace, n)


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
    if dealer not in (0, 1):
        raise ValueError(f"dealer must be seat 0 or 1, got {dealer!r}")
    _, _, sids, params = _strategies(strategy_a, strategy_b)
    vector = resolve_rules(rules).to_array()
    from .core.rng import stream_key_nb

    rngs = np.array([[stream_key_nb(np.uint64(seed), 0, 0)], [stream_key_nb(np.uint64(seed), 0, 1)]],
                    dtype=np.uint64)
    deck_rng = np.array([stream_key_nb(np.uint64(seed), 1, 0)], dtype=np.uint64)
    state = np.zeros(E.N_STATE, np.int64)
    scratch = np.zeros(E.SCRATCH_LEN, np.int64)
    memory = np.zeros((2, E.N_MEMORY), np.int64)
    out = np.zeros(RC.N_HAND_COLS, np.int64)
    trace = np.zeros((E.TRACE_CAPACITY, 3), np.int64)
    seat_params = params.copy()  # the strategies' copies, checked by the engine
    seat_rules = np.vstack([vector, vector])
    n = engine_module(sids).play_hand_nb(state, codes, dealer, sids, params, vector, seat_params, seat_rules,
                                     np.array(scores, np.int64), rngs, deck_rng, scratch, memory, out,
                                     trace)
    record = dict(zip(RC.HAND_RECORD_NAMES, (int(x) for x in out), strict=True))
    record["outcome"] = RC.OUTCOMES[record["outcome"]]
    return record, _events(trace, n)
