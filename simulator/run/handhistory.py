"""Hand histories: one deal of Gin Rummy as a text file a person can read and ginsim can play
again (docs/hand-history.md is the format).

A hand history holds the rules (every field), the deal (both dealt hands in dealing order,
the upcard, the stock from the top), the dealer and the scores before the hand, every action
in order (``"p0 take pile"``, ``"p1 discard 7h"``: the seat and ``simulator.action_name``
of the action) and the result.  It is TOML, so any TOML reader reads it; each action line
carries, as a comment, what it did in words (the card drawn, the melds laid out).  The
``version`` field names the format's version; ``SCHEMA`` and its tables declare every key.

* **Written** by ``ginsim replay RUN --cell C --deal D --export FILE`` (``from_run``: the
  run's deal re-played from its seed through the replay path, ``replay.deal_trace``, checked
  against the row the run stored) and ``ginsim arena ... --export DIR``; ``from_deal`` does
  the same for a deal of ``simulate``; ``record`` for a deck and a list of actions.
* **Read** by ``ginsim replay FILE`` (``read_file``, then ``play``): a ``simulator.Hand``
  dealt from the file's deck plays the file's actions; each must be legal and the hand must
  end with the file's result, else one line names the first key that disagrees.  Playing a
  file needs no strategy: the actions are in it.

The actions of a traced deal are found by following its events (``actions_from_events``):
at each decision the one legal action whose events are the trace's next ones.
``simulator.interop.openspiel`` converts a hand history to OpenSpiel's action sequence and
back (``to_openspiel``, ``from_openspiel``).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.cards import as_codes, format_card, format_cards
from ..core.records import OUTCOMES
from ..core.rules import MAX_TARGET, Rules, resolve_rules
from ..core.state import N_ACTIONS, action_name
from ..infra.inputs import check_target, read_toml, starts_with
from .config import Key, Schema, is_int

#: the ``format`` field of every hand history, and the version this ginsim writes and reads
FORMAT = "ginsim-hand-history"
VERSION = 1
#: the first line of a file ginsim wrote: ``--export`` replaces only a file that starts so
HEADER = "# A hand of Gin Rummy recorded by ginsim"

#: ``"discard 7h"`` -> its action code: the inverse of ``simulator.action_name``
ACTION_CODES = {action_name(a): a for a in range(N_ACTIONS)}


class HandHistoryError(ValueError):
    """A hand history that cannot be read, or that does not play to its own result."""


@dataclass
class HandHistory:
    """One hand: ``rules``; ``dealer`` (seat 0 or 1; the other seat is offered the upcard
    first); ``scores`` before the hand; ``hands`` (each seat's ten dealt cards, in dealing
    order); ``upcard``; ``stock`` (31 cards, the top first); ``deck_stream`` (the reshuffle
    stream, for rules that reshuffle the pile, else None); ``players`` (seat 0's and seat 1's
    names: labels only); ``actions`` ((seat, action code) in order); ``result`` (``RESULT``'s
    keys); ``source`` (where the hand comes from, ``SOURCE``'s keys; informational)."""

    rules: Rules
    dealer: int
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    upcard: int
    stock: tuple[int, ...]
    actions: list[tuple[int, int]]
    result: dict[str, Any]
    players: tuple[str, str] = ("", "")
    scores: tuple[int, int] = (0, 0)
    deck_stream: int | None = None
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def deck(self) -> list[int]:
        """The 52 cards in ginsim's dealing order (``simulator.Hand``'s ``deck``): cards
        0..19 alternately to the non-dealer and the dealer, the upcard, the stock."""
        first, second = self.hands[1 - self.dealer], self.hands[self.dealer]
        return [c for pair in zip(first, second, strict=True) for c in pair] + [self.upcard, *self.stock]


def seat_names(history: HandHistory) -> list[str]:
    """How the seats are called when the hand is told: ``p0 (simple)``, or ``p0`` unnamed."""
    return [f"p{s} ({history.players[s]})" if history.players[s] else f"p{s}" for s in (0, 1)]


def preset_of(rules: Rules) -> str | None:
    """The preset whose rules are ``rules`` field for field, if one is."""
    return next((name for name in Rules.PRESETS if Rules.preset(name) == rules), None)


def split_deck(deck, dealer: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], int, tuple[int, ...]]:
    """``deck`` (dealing order, as ``HandHistory.deck``) as (each seat's dealt cards, the
    upcard, the stock)."""
    deck = [int(c) for c in deck]
    hands = [(), ()]
    hands[1 - dealer], hands[dealer] = tuple(deck[0:20:2]), tuple(deck[1:20:2])
    return (hands[0], hands[1]), deck[20], tuple(deck[21:])


# ----------------------------------------------------------------------------- playing
def new_hand(history: HandHistory):
    """A ``simulator.Hand`` dealt from the history's deck, dealer, scores and reshuffle stream."""
    from ..engine.hand import Hand

    return Hand(history.rules, deck=history.deck, dealer=history.dealer, scores=history.scores,
                deck_stream=history.deck_stream)


def seat_result(hand) -> dict[str, Any]:
    """The result of a finished ``Hand`` by seat (``RESULT``'s keys): the outcome, the
    knocker and the winner (seats, -1 for none), the points, the deadwoods and the cards laid
    off (not for a dead hand), and each seat's points (``Hand.returns``)."""
    r = hand.observation(0)["result"]
    out = {"outcome": r["outcome"], "knocker": r["knocker"], "winner": r["winner"], "points": r["points"]}
    if r["outcome"] != "dead":
        out.update(knocker_deadwood=r["knocker_deadwood"], defender_deadwood=r["defender_deadwood"],
                   laid_off=" ".join(r["laid_off"]))
    out["returns"] = list(hand.returns())
    return out


def play(history: HandHistory, where: str = "hand history"):
    """Play the history's actions on a hand dealt from its deck; the finished ``Hand``.
    Raises ``HandHistoryError`` naming the first action that is not the seat's to play or
    not legal, actions that stop before the hand ends, or a result that differs from the
    file's."""
    hand = _played(history, where)
    got = seat_result(hand)
    for key in sorted(set(got) | set(history.result)):
        if got.get(key) != history.result.get(key):
            raise HandHistoryError(f"{where}: result.{key}: the actions give {got.get(key)!r}, the file says "
                                   f"{history.result.get(key)!r}")
    return hand


def _played(history: HandHistory, where: str):
    """The hand dealt from the history, its actions played (each the seat's to play and
    legal) to the end of the hand; ``HandHistoryError`` otherwise."""
    hand = new_hand(history)
    for i, (seat, action) in enumerate(history.actions):
        key = f"{where}: play.actions[{i}] ({_action_text(seat, action)!r})"
        if hand.is_over():
            raise HandHistoryError(f"{key}: the hand is over already ({len(history.actions) - i} action(s) too many)")
        if seat != hand.current_player:
            raise HandHistoryError(f"{key}: it is p{hand.current_player}'s turn, not p{seat}'s")
        try:
            hand.apply(action)
        except ValueError as exc:
            raise HandHistoryError(f"{key}: {exc}") from None
    if not hand.is_over():
        legal = ", ".join(action_name(a) for a in hand.legal_actions())
        raise HandHistoryError(f"{where}: play.actions: the hand is not over after the last action "
                               f"(p{hand.current_player} to play one of: {legal})")
    return hand


def actions_from_events(hand, events: list[tuple[int, str, int]]) -> list[tuple[int, int]]:
    """The actions that play ``hand`` (freshly dealt) through ``events`` (a trace of the same
    deal: ``simulator.api.trace_deal``), as (seat, action code); ``hand`` is played to its
    end.  At each decision the legal action whose events are the trace's next ones is
    taken; an action that makes no event (playing on instead of knocking) only when no other
    fits.  Raises ``HandHistoryError`` when no action or more than one fits."""
    actions: list[tuple[int, int]] = []
    if hand.events != events[:len(hand.events)]:
        raise HandHistoryError("the trace's deal is not the hand's")
    while not hand.is_over():
        done = len(hand.events)
        fits, silent = [], []
        for action in hand.legal_actions():
            trial = hand.clone()
            trial.apply(action)
            made = trial.events[done:]
            if made and made == events[done:done + len(made)]:
                fits.append(action)
            elif not made:
                silent.append(action)
        chosen = fits or silent
        if len(chosen) != 1:
            raise HandHistoryError(f"after {len(actions)} action(s), {len(chosen)} legal actions fit the trace's "
                                   f"next event {events[done] if done < len(events) else None}")
        actions.append((hand.current_player, chosen[0]))
        hand.apply(chosen[0])
    if hand.events != events:
        raise HandHistoryError(f"the hand ended after {len(hand.events)} events, the trace has {len(events)}")
    return actions


def record(rules, deck, dealer: int, actions: list[tuple[int, int]], players=("", ""), scores=(0, 0),
           deck_stream: int | None = None, source: dict | None = None) -> HandHistory:
    """The hand history of ``actions`` played on ``deck`` (dealing order) under ``rules``, its
    result found by playing them (each checked as ``play`` checks a file's)."""
    rules = resolve_rules(rules)
    hands, upcard, stock = split_deck(as_codes(list(deck)), dealer)
    history = HandHistory(rules, int(dealer), hands, upcard, stock, list(actions), {},
                          (str(players[0]), str(players[1])), (int(scores[0]), int(scores[1])),
                          _stream(rules, deck_stream), dict(source or {}))
    history.result = seat_result(_played(history, "recorded hand"))
    return history


def _stream(rules: Rules, deck_stream: int | None) -> int | None:
    """The reshuffle stream a history keeps: only for rules that reshuffle the pile."""
    return int(deck_stream) if rules.reshuffle_stock and deck_stream is not None else None


def from_deal(strategy_a, strategy_b, rules="hoyle", seed: int = 0, deal: int = 0, mirrored: bool = True,
              source: dict | None = None) -> HandHistory:
    """Deal ``deal`` of ``simulate(strategy_a, strategy_b, rules, seed=seed, mirrored=mirrored)``
    as a hand history: its trace (``simulator.api.trace_deal``), followed action by action."""
    from ..api import trace_deal

    row, events = trace_deal(strategy_a, strategy_b, rules, seed=seed, deal=deal, mirrored=mirrored)
    return _from_trace(strategy_a, strategy_b, rules, seed, deal, mirrored, row, events,
                       {"seed": seed, "deal": deal, "mirrored": mirrored, **(source or {})})


def from_run(run_dir, cell: int, deal: int, trust_plugins: bool = False) -> HandHistory:
    """Deal ``deal`` of cell ``cell`` of a run as a hand history, re-played through the
    replay path (``simulator.run.replay.deal_trace``: the run verified, the row it stored
    reproduced)."""
    return next(from_run_deals(run_dir, cell, [deal], trust_plugins))


def from_run_deals(run_dir, cell: int, deals, trust_plugins: bool = False):
    """``from_run`` of each of ``deals`` of one cell, in order, the run verified once
    (``simulator.run.replay.deal_traces``; a generator, every deal number checked first)."""
    from .replay import deal_traces

    from .rundir import read_manifest, run_path

    deals = list(deals)
    traces = deal_traces(run_dir, cell, deals, trust_plugins)
    mirrored = bool(read_manifest(run_path(run_dir))["experiment"]["mirrored"])
    return (_from_trace(c["a"], c["b"], c["rules"], c["seed"], deal, mirrored, row, events,
                        {"run": str(Path(run_dir)), "cell": cell, "variant": c["variant"], "seed": c["seed"],
                         "deal": deal, "mirrored": mirrored})
            for deal, (c, row, events) in zip(deals, traces, strict=True))


#: memory a batch export holds per deal until it writes (a history and its text, measured
#: about 3 kB on long hands)
HISTORY_BYTES = 8_000


def export_deals(run_dir, cell: int, first: int, last: int, directory, trust_plugins: bool = False) -> list[Path]:
    """Deals ``first`` to ``last`` (inclusive) of cell ``cell`` of a run as hand history
    files in ``directory`` (made if missing), ``cell<C>-deal<N>.toml`` (N zero-padded to the
    width of ``last``): every deal is re-played and checked (``from_run_deals``) before the
    first file is written, so a refused deal writes nothing.  The paths written."""
    from ..infra.inputs import check_memory

    if not 0 <= first <= last:
        raise ValueError(f"--deals must be FIRST-LAST with 0 <= FIRST <= LAST, got {first}-{last}")
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise ValueError(f"--export {directory} is a file; with --deals give a directory for the hand history files")
    width = len(str(last))
    paths = {deal: directory / f"cell{cell}-deal{deal:0{width}d}.toml" for deal in range(first, last + 1)}
    if directory.is_dir():  # a FIFO or a foreign file among the names is refused before any deal is played
        for path in paths.values():
            check_export(path)
    pending = from_run_deals(run_dir, cell, range(first, last + 1), trust_plugins)  # the run and deals checked
    check_memory("--deals", last - first + 1, HISTORY_BYTES, "deals", "export {most} deals or fewer at a time")
    histories = list(pending)
    directory.mkdir(parents=True, exist_ok=True)
    return [write_file(h, paths[h.source["deal"]]) for h in histories]


def _from_trace(a, b, rules, seed: int, deal: int, mirrored: bool, row, events, source: dict) -> HandHistory:
    """A traced deal of ``simulate`` as a hand history, checked against its row (the deal's
    deck, dealer, seats and reshuffle stream as ``simulator.Hand`` deals it)."""
    from ..engine.hand import Hand

    dealt = Hand(rules, seed=seed, deal=deal, mirrored=mirrored)
    deck, dealer, a_seat = dealt.deck, dealt.dealer, dealt.a_seat
    a_label, b_label = (s if isinstance(s, str) else getattr(s, "label", str(s)) for s in (a, b))
    players = [b_label, b_label]
    players[a_seat] = a_label
    rules = resolve_rules(rules)
    history = HandHistory(rules, dealer, *split_deck(deck, dealer), [], {}, (players[0], players[1]), (0, 0),
                          _stream(rules, dealt.deck_stream),
                          {**source, "a": a_label, "b": b_label, "a_seat": a_seat})
    history.actions = actions_from_events(new_hand(history), events)
    history.result = seat_result(_played(history, "traced deal"))
    net_a = history.result["returns"][a_seat]
    if net_a != int(row["net_a"]) or history.result["outcome"] != row["outcome"]:
        raise HandHistoryError(f"the deal re-played from its deck gives {history.result['outcome']} and net_a "
                               f"{net_a}, its row {row['outcome']} and {int(row['net_a'])}")
    return history


# ----------------------------------------------------------------------------- the file
def _cards_check(count: int, name: str):
    """The check of a key ``name`` holding ``count`` cards (``"As 2s 3s"``): their codes."""
    def check(value, values, fail):
        try:
            codes = as_codes(value)
        except ValueError as exc:
            raise fail(values["_prefix"] + name, f"must list {count} cards: {exc}") from None
        if len(codes) != count:
            raise fail(values["_prefix"] + name, f"must list {count} cards, got {len(codes)}")
        return codes
    return check


def _pair(kind: str, text: str):
    def check(value, values, fail):
        ok = isinstance(value, list) and len(value) == 2 and all(
            is_int(v) and 0 <= v < MAX_TARGET if kind == "int" else isinstance(v, str) for v in value)
        if not ok:
            raise fail(values["_prefix"] + ("scores" if kind == "int" else "players"), f"must be {text}, got {value!r}")
        return tuple(value)
    return check


def _hands_check(value, values, fail):
    if not isinstance(value, list) or len(value) != 2:
        raise fail(values["_prefix"] + "hands", f"must be a list of two strings of ten cards, got {value!r}")
    out = []
    for seat, text in enumerate(value):
        name = f"hands[{seat}]"
        if not isinstance(text, str):
            raise fail(values["_prefix"] + name, f"must be a string of ten cards, got {text!r}")
        out.append(_cards_check(10, name)(text, values, fail))
    return tuple(out)


def _actions_check(value, values, fail):
    if not isinstance(value, list):
        raise fail(values["_prefix"] + "actions", f"must be a list of strings, got {value!r}")
    out = []
    for i, text in enumerate(value):
        seat, _, name = text.partition(" ") if isinstance(text, str) else ("", "", "")
        if seat not in ("p0", "p1") or name not in ACTION_CODES:
            raise fail(values["_prefix"] + f"actions[{i}]", "must be 'p0 ACTION' or 'p1 ACTION', ACTION one of "
                       "draw stock, take pile, pass, discard CARD, knock, no knock, arrange K, defend best, "
                       f"defend K, defend no layoffs; got {text!r}")
        out.append((int(seat[1]), ACTION_CODES[name]))
    return out


def _returns_check(value, values, fail):
    if not (isinstance(value, list) and len(value) == 2 and all(is_int(v) for v in value)):
        raise fail(values["_prefix"] + "returns", f"must be a list of two integers, got {value!r}")
    return list(value)


#: the top-level keys of a hand history
SCHEMA = Schema("hand", (
    Key("format", "choice", choices=(FORMAT,), help="what the file is"),
    Key("version", "int", help=f"the version of the format; this ginsim reads {VERSION}", low=VERSION,
        high=VERSION, text=str(VERSION)),
    Key("players", "list", ["", ""], "the names of seat 0's and seat 1's players (labels only: playing the file "
                                      "needs no strategy)", text="a list of two strings",
        check=_pair("str", "a list of two strings")),
    Key("dealer", "int", help="the seat that dealt; the other seat is offered the upcard first", low=0, high=1),
    Key("scores", "list", [0, 0], "the game scores of seat 0 and seat 1 before the hand (what the players see)",
        text=f"a list of two integers from 0 to {MAX_TARGET - 1:,}",
        check=_pair("int", f"a list of two integers from 0 to {MAX_TARGET - 1:,}")),
    Key("rules", "table", help="every field of the rules (docs/rules.md), as `ginsim variants` lists them",
        text="a table of rules fields"),
    Key("deal", "table", help="the cards (`[deal]`'s keys below)", text="a table"),
    Key("play", "table", help="every action in order (`[play]`'s key below)", text="a table"),
    Key("result", "table", help="how the hand ended, by seat (`[result]`'s keys below)", text="a table"),
    Key("source", "table", {}, "where the hand comes from (`[source]`'s keys below; informational)",
        text="a table"),
))

DEAL = Schema("deal", (
    Key("hands", "list", help="seat 0's and seat 1's ten dealt cards, in dealing order",
        text="a list of two strings of ten cards", check=_hands_check),
    Key("upcard", "str", help="the card turned up to start the pile", check=_cards_check(1, "upcard")),
    Key("stock", "str", help="the 31 cards of the stock, the top (drawn first) first",
        check=_cards_check(31, "stock")),
    Key("reshuffle_stream", "int", None, "the stream that reshuffles the pile into a new stock (only with "
                                         "`rules.reshuffle_stock`)", low=-2**63, high=2**63 - 1,
        text="an int64", default_text="none"),
))

PLAY = Schema("play", (
    Key("actions", "list", help="every action in order: `pS NAME`, the seat and the action's name "
                                "(`simulator.action_name`)", text="a list of strings", check=_actions_check),
))

RESULT = Schema("result", (
    Key("outcome", "choice", choices=OUTCOMES, help="how the hand ended"),
    Key("knocker", "int", help="the seat that knocked or went gin, -1 for a dead hand", low=-1, high=1),
    Key("winner", "int", help="the seat that scored, -1 for none (a dead hand, a scoreless tie)", low=-1, high=1),
    Key("points", "int", help="the points the winner scored", low=0),
    Key("knocker_deadwood", "int", None, "the knocker's deadwood (not for a dead hand)", low=0,
        default_text="none"),
    Key("defender_deadwood", "int", None, "the defender's deadwood after layoffs (not for a dead hand)", low=0,
        default_text="none"),
    Key("laid_off", "str", None, "the cards the defender laid off (not for a dead hand)", default_text="none"),
    Key("returns", "list", help="the points won by seat 0 and seat 1 (the loser's negated)",
        text="a list of two integers", check=_returns_check),
))

SOURCE = Schema("source", (
    Key("run", "str", None, "the run directory the deal was exported from", default_text="none"),
    Key("cell", "int", None, "its cell", low=0, default_text="none"),
    Key("variant", "str", None, "the cell's rule variant", default_text="none"),
    Key("seed", "int", None, "the seed of the deal (`simulate`'s, or the cell's), or of the arena", low=0,
        high=2**63 - 1, default_text="none"),
    Key("deal", "int", None, "the deal number under that seed", low=0, default_text="none"),
    Key("mirrored", "bool", None, "whether the deals came in mirrored pairs", default_text="none"),
    Key("deck", "int", None, "the arena's deck number", low=0, default_text="none"),
    Key("engine", "choice", None, "where the arena played the hand", choices=("openspiel", "ginsim"),
        default_text="none"),
    Key("a", "str", None, "strategy A", default_text="none"),
    Key("b", "str", None, "strategy B", default_text="none"),
    Key("a_seat", "int", None, "A's seat", low=0, high=1, default_text="none"),
))

#: every table of the format, as docs/hand-history.md lists them
TABLES = (SCHEMA, DEAL, PLAY, RESULT, SOURCE)


def _rules(table: dict[str, Any], fail) -> Rules:
    """The ``[rules]`` table as ``Rules``: every field, no preset (a file keeps its meaning
    when a preset or a default changes), each checked as ``Rules`` checks it."""
    names = list(Rules().to_dict())
    if "preset" in table:
        raise fail("rules.preset", f"a hand history lists every rules field ({', '.join(names)}), not a preset")
    missing = [name for name in names if name not in table]
    if missing:
        raise fail("rules", f"must list every rules field; missing {', '.join(missing)}")
    try:
        return Rules.from_dict(table)
    except ValueError as exc:
        raise fail("rules", str(exc)) from None


def parse(data: dict[str, Any], where: str = "hand history") -> HandHistory:
    """A hand history from its TOML document (a dict), every key checked; one-line
    ``HandHistoryError`` naming the key and what it must be.  Not played: ``play`` checks
    the actions."""
    def fail(key: str, message: str) -> HandHistoryError:
        return HandHistoryError(f"{where}: {key}: {message}")

    if data.get("format") == FORMAT and is_int(data.get("version")) and data["version"] > VERSION:
        raise fail("version", f"this ginsim reads version {VERSION}, the file is version {data['version']}; "
                              "upgrade ginsim")
    top = SCHEMA.read(data, fail)
    rules = _rules(top["rules"], fail)
    deal = DEAL.read(top["deal"], fail, "deal.")
    hands, upcard, stock = deal["hands"], deal["upcard"][0], deal["stock"]
    cards = [*hands[0], *hands[1], upcard, *stock]
    if len(set(cards)) != 52:
        twice = next(c for c in cards if cards.count(c) > 1)
        raise fail("deal", f"must hold the 52 cards once each; {format_card(twice)} is there twice")
    if rules.reshuffle_stock and deal["reshuffle_stream"] is None:
        raise fail("deal.reshuffle_stream", "required with rules.reshuffle_stock: an int64")
    if not rules.reshuffle_stock and deal["reshuffle_stream"] is not None:
        raise fail("deal.reshuffle_stream", "only with rules.reshuffle_stock (these rules never reshuffle the pile); "
                                            "remove it")
    actions = PLAY.read(top["play"], fail, "play.")["actions"]
    result = {k: v for k, v in RESULT.read(top["result"], fail, "result.").items() if v is not None}
    source = {k: v for k, v in SOURCE.read(top["source"], fail, "source.").items() if v is not None}
    return HandHistory(rules, top["dealer"], hands, upcard, stock, actions, result, top["players"],
                       top["scores"], _stream(rules, deal["reshuffle_stream"]), source)


def read_file(path: str | Path) -> HandHistory:
    """Read and check a hand history file (``parse``; not played)."""
    path = Path(path)
    # a regular file, never waited on, bounded in size and nesting before it is parsed
    data = read_toml(path, "a hand history file", HandHistoryError)
    return parse(data, str(path))


def _value(value: Any) -> str:
    """A TOML value on one line (strings as TOML basic strings, lists inline)."""
    import tomli_w

    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return tomli_w.dumps({"v": value}).split("=", 1)[1].strip()


def _action_text(seat: int, action: int) -> str:
    return f"p{seat} {action_name(action)}"


def to_text(history: HandHistory) -> str:
    """The hand history as its file's text: the keys in ``SCHEMA``'s order, the rules with
    every field, and each action with what it did in words as a comment (playing the file
    finds the same events: the comments are for people and are not read back)."""
    from ..core.narrate import tell

    names = seat_names(history)
    preset = preset_of(history.rules)
    lines = [HEADER + ": the rules, the deal, every action in order and the result.",
             "# `ginsim replay FILE` plays it again and checks the result; the format: docs/hand-history.md.",
             f"format = {_value(FORMAT)}", f"version = {VERSION}",
             f"players = {_value(list(history.players))}  # seat 0, seat 1",
             f"dealer = {history.dealer}  # p{1 - history.dealer} is offered the upcard first",
             f"scores = {_value(list(history.scores))}  # before the hand", "",
             "[rules]" + (f"  # the preset {preset}" if preset else "")]
    lines += [f"{name} = {_value(value)}" for name, value in history.rules.to_dict().items()]
    lines += ["", "[deal]", "hands = ["]
    lines += [f"  {_value(format_cards(history.hands[s]))},  # {names[s]}" for s in (0, 1)]
    lines += ["]", f"upcard = {_value(format_card(history.upcard))}",
              f"stock = {_value(format_cards(history.stock))}  # the top first"]
    if history.deck_stream is not None:
        lines.append(f"reshuffle_stream = {history.deck_stream}")
    lines += ["", "[play]", "actions = ["]
    hand = new_hand(history)
    for seat, action in history.actions:
        done = len(hand.events)
        hand.apply(action)
        told = " ".join(tell(event, names) for event in hand.events[done:])
        lines.append(f"  {_value(_action_text(seat, action))},  # {told}" if told
                     else f"  {_value(_action_text(seat, action))},")
    lines += ["]", "", "[result]"]
    lines += [f"{key} = {_value(value)}" for key, value in history.result.items()]
    if history.source:
        lines += ["", "[source]  # where the hand comes from"]
        lines += [f"{key} = {_value(value)}" for key, value in history.source.items()]
    return "\n".join(lines) + "\n"


def check_export(path: str | Path) -> Path:
    """``path`` when a hand history may be written there: nothing there, or a hand history
    ginsim wrote (it starts with ``HEADER``), in an existing directory.  Anything else is
    refused in one line: a file ginsim did not write, and (``check_target``, never opened)
    a FIFO, a device, a directory or a link."""
    path = Path(path)
    if check_target(path, "a hand history") and not starts_with(path, HEADER):
        raise ValueError(f"{path} exists and was not written by ginsim; choose another file")
    if not path.parent.is_dir():
        raise ValueError(f"{path}: the directory {path.parent} does not exist")
    return path


def write_file(history: HandHistory, path: str | Path) -> Path:
    """Write the history to ``path`` whole or not at all (a temporary file beside it, then
    one rename), where ``check_export`` allows it: a file there that ginsim did not write,
    or that is no regular file, is never replaced or opened."""
    path = check_export(path)
    text = to_text(history)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return path


def story(history: HandHistory, where: str = "hand history") -> tuple[str, Any]:
    """The hand told in words (as ``ginsim replay`` tells a run's deal), after ``play`` has
    checked it; and the finished ``Hand``.  The events are told by the one narrator
    (``simulator.core.narrate.tell_hand``)."""
    from ..core.narrate import tell_hand

    hand = play(history, where)
    names = seat_names(history)
    preset = preset_of(history.rules) or "custom rules"
    r = history.result
    lines = [f"{where}: {names[0]} vs {names[1]}, rules {preset}, p{history.dealer} deals",
             *tell_hand(hand.events, names),
             f"result: {r['outcome']}, winner {'p' + str(r['winner']) if r['winner'] >= 0 else 'nobody'}, "
             f"points {r['points']}, returns {r['returns']}"]
    return "\n".join(lines), hand
