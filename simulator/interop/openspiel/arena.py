"""The arena: two players on the same decks, both seats, inside OpenSpiel or inside ginsim.

``arena`` plays ``n_decks`` decks with each player in each seat and reports points per hand
with a paired interval (``ArenaResult``), optionally exporting every hand as a hand history;
``wall_census`` counts how often OpenSpiel's and ginsim's wall rules would differ.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from strategies import parse_strategy
from strategies.registry import register_player

from ...core.cards import DECK
from ...core.errors import StrategyError
from ...core.rules import resolve_rules
from ...engine.hand import Hand
from ...run.handhistory import check_export, record, write_file

from .cards import InteropError, KNOCK, Phase, UTILS, game_for, os_card, rules_for
from .replay import ConvertRefusal
from .bot import GinsimBot
from .player import OPENSPIEL_BOTS, OpenSpielPlayer
from .histories import from_openspiel
from ...core.rng import numpy_generator
from ...run.seeds import offset_seed


# --------------------------------------------------------------------------- the arena
@dataclass
class ArenaResult:
    """``arena``'s result: points per hand to A (a deck, played once in each seat, is one
    unit of the paired interval), hands A won and lost, and the translation counts."""

    a: str
    b: str
    engine: str
    n_decks: int
    seed: int
    net_mean: float
    net_ci_low: float
    net_ci_high: float
    won: float
    lost: float
    seconds: float
    stats: dict = field(default_factory=dict)
    per_deck: list = field(default_factory=list, repr=False)  # A's mean points per deck
    #: with ``export``: ``directory``, ``written`` (files), ``not_written`` (hands ginsim's rules
    #: cannot play), ``not_written_by_reason`` (their count per ``CONVERT_REFUSALS`` key) and
    #: ``first_reason`` (why the first of those was not written, else None)
    export: dict | None = None

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out.pop("per_deck")
        return out


def _not_written(exported: dict, refusal: ConvertRefusal, where: str) -> None:
    """Count a hand ``arena`` could not export under its reason; keep the first one's words."""
    exported["not_written"] += 1
    by_reason = exported["not_written_by_reason"]
    by_reason[refusal.category] = by_reason.get(refusal.category, 0) + 1
    exported["first_reason"] = exported["first_reason"] or f"{where}: {refusal}"


def _deck(seed: int, i: int) -> list[int]:
    """Deck ``i`` of an arena seeded ``seed``: our card codes, shuffled by numpy's PCG64
    keyed by (seed, i)."""
    return [int(c) for c in numpy_generator(seed, i).permutation(DECK)]


def _label(p) -> str:
    return p if isinstance(p, str) else getattr(p, "label", None) or getattr(p, "__name__", repr(p))


def _os_player(spec, game, pid: int, seed: int):
    if isinstance(spec, str) and spec.strip() in OPENSPIEL_BOTS:
        return OPENSPIEL_BOTS[spec.strip()](game, pid, seed)
    if callable(spec) and not isinstance(spec, str) and not _is_strategy_like(spec):
        return spec(game, pid)
    return GinsimBot(game, pid, spec, seed=seed)


def _is_strategy_like(obj) -> bool:
    from strategies.pyplayer import is_player

    return is_player(obj)


def _play_openspiel(game, bots, deck: list[int], observe=None):
    """One hand inside OpenSpiel, its chance outcomes dealt from ``deck`` (our codes, in
    ginsim's dealing order: non-dealer and dealer alternately, the upcard, the stock), each
    player's move asked of ``bots[player]`` (every bot is told the other's moves);
    ``observe(state)`` sees each state before a player moves.  Returns the final state."""
    state = game.new_initial_state()
    order = [os_card(c) for c in deck[0:20:2]] + [os_card(c) for c in deck[1:20:2]] + [os_card(c) for c in deck[20:]]
    k = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(order[k])
            k += 1
            continue
        if observe is not None:
            observe(state)
        p = state.current_player()
        action = bots[p].step(state)
        if action not in state.legal_actions():
            raise InteropError(f"player {p} chose illegal OpenSpiel action {action} in phase {state.current_phase()}")
        for q in (0, 1):
            if q != p:
                bots[q].inform_action(state, p, action)
        state.apply_action(action)
    return state


#: arena seeds: 0 .. ARENA_SEED_LIMIT - 1 (OpenSpiel's random bot takes a 32-bit signed seed)
ARENA_SEED_LIMIT = 2**31


def arena_seed(seed, name: str = "seed") -> int:
    """``seed`` checked as an arena seed (one-line ValueError naming ``name`` otherwise)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < ARENA_SEED_LIMIT:
        raise ValueError(f"{name} must be an integer from 0 to 2**31 - 1 (OpenSpiel's bots take a 32-bit seed), "
                         f"got {seed!r}")
    return int(seed)


def hand_file(deck: int, a_player: int) -> str:
    """The name of the hand history file ``arena`` exports for deck ``deck``, A as player ``a_player``."""
    return f"hand-{deck:05d}-a{a_player}.toml"


def arena(a, b, n_decks: int = 1000, seed: int = 0, rules="single_hand", engine: str = "openspiel",
          progress=None, export=None) -> ArenaResult:
    """Play ``a`` against ``b`` on ``n_decks`` decks, each deck twice (A as OpenSpiel's player
    0, the non-dealer, then as player 1), inside OpenSpiel (``engine="openspiel"``: ginsim
    specs play through ``GinsimBot``; ``"openspiel_simple"``, ``"openspiel_random"`` or a
    ``make(game, player_id)`` callable are OpenSpiel bots) or inside ginsim (``"ginsim"``:
    ``simulator.Hand`` on the same decks; OpenSpiel bots play through ``OpenSpielPlayer``).
    Returns points per hand to A with a 95% Student t interval over decks (a deck's two hands
    are one paired unit, as ``ginsim simulate`` pairs mirrored deals), the shares of hands A
    won and lost, and the translation counts of the ginsim bots.

    ``export`` (a directory, made if missing) receives every hand as a hand history file
    (``simulator.run.handhistory``; ``hand-DECK-aSEAT.toml``, SEAT the OpenSpiel player A
    was): inside ginsim the actions played, inside OpenSpiel its action sequence converted by
    ``from_openspiel``; a hand ginsim's rules cannot play (OpenSpiel allows a few moves
    docs/rules.md does not) is not written, and counted by reason (``ArenaResult.export``)."""
    from ...analysis.stats import mean_interval

    if isinstance(n_decks, bool) or not isinstance(n_decks, int) or n_decks < 1:
        raise ValueError(f"n_decks must be a positive integer, got {n_decks!r}")
    if engine not in ("openspiel", "ginsim"):
        raise ValueError(f"engine must be 'openspiel' or 'ginsim', got {engine!r}")
    seed = arena_seed(seed)
    game = game_for(rules)
    if engine == "ginsim":
        a, b = _ginsim_spec(a), _ginsim_spec(b)
    if export is not None:
        export = Path(export)
        if export.exists() and not export.is_dir():
            raise ValueError(f"--export {export} is a file; give a directory for the hand history files")
        export.mkdir(parents=True, exist_ok=True)
        for i in range(n_decks):  # a FIFO or a foreign file among the names is refused before any hand
            for a_player in (0, 1):
                check_export(export / hand_file(i, a_player))
    t0 = time.process_time()
    per_deck, won, lost = [], 0, 0
    stats: dict = {}
    exported = None if export is None else {"directory": str(export), "written": 0, "not_written": 0,
                                            "first_reason": None, "not_written_by_reason": {}}
    for i in range(n_decks):
        deck = _deck(seed, i)
        points = []
        for a_player in (0, 1):
            specs = (a, b) if a_player == 0 else (b, a)
            source = {"seed": seed, "deck": i, "engine": engine, "a": _label(a), "b": _label(b), "a_seat": a_player}
            if engine == "openspiel":
                bots = [_os_player(specs[p], game, p, seed) for p in (0, 1)]
                state = _play_openspiel(game, bots, deck)
                returns = list(state.returns())
                for bot in bots:
                    for k, v in getattr(bot, "stats", {}).items():
                        stats[k] = stats.get(k, 0) + v
                if export is not None:
                    try:
                        history = from_openspiel(state.history(), game, (_label(specs[0]), _label(specs[1])),
                                                 source)
                    except ConvertRefusal as exc:
                        _not_written(exported, exc, f"deck {i}, A as player {a_player}")
                        history = None
            else:
                h = Hand(rules_for(game), seed=offset_seed(seed, i), deck=deck, dealer=1, a=specs[0], b=specs[1])
                played = []
                while not h.is_over():
                    try:
                        action = h.bot_action()
                    except StrategyError as exc:
                        raise InteropError(str(exc)) from None
                    played.append((h.current_player, action))
                    h.apply(action)
                returns = list(h.returns())
                if export is not None:
                    history = record(rules_for(game), deck, 1, played, (_label(specs[0]), _label(specs[1])),
                                     source=source)
            if export is not None and history is not None:
                write_file(history, export / hand_file(i, a_player))
                exported["written"] += 1
            points.append(returns[a_player])
            won += returns[a_player] > 0
            lost += returns[a_player] < 0
        per_deck.append(sum(points) / 2)
        if progress is not None:
            progress(i + 1, n_decks)
    mean, low, high = mean_interval(per_deck)
    n_hands = 2 * n_decks
    return ArenaResult(_label(a), _label(b), engine, n_decks, seed, mean, low, high, won / n_hands, lost / n_hands,
                       time.process_time() - t0, stats, per_deck, exported)


def wall_census(a="openspiel_simple", b="openspiel_simple", n_decks: int = 10000, seed: int = 0,
                rules="single_hand") -> dict:
    """How often OpenSpiel's wall and docs/rules.md's last-discard rule differ, counted in
    ``arena``'s hands (``n_decks`` decks in both seats, inside OpenSpiel).  At each visit of
    OpenSpiel's ``Wall`` phase (a discard left 2 cards in the stock; the other player may take
    it and knock, or pass): ``hands``; ``walls`` (visits); ``openspiel_knock`` (``Knock`` is
    legal); ``rules_knock`` (docs/rules.md's last-discard rule would offer it: some discard
    *other than* the taken card leaves deadwood within the limit); ``only_openspiel`` (legal in
    OpenSpiel only: the player already holds deadwood within the limit and can knock only by
    discarding the taken card back, where ginsim's ``last_discard_rule`` ends the hand dead);
    ``only_rules`` (offered by the rule but refused by OpenSpiel's 11-card shortcut); and
    ``knocked`` / ``knocked_only_openspiel``: walls where the player did knock."""
    game = game_for(rules)
    limit = resolve_rules(rules).knock_limit
    counts = dict.fromkeys(("hands", "walls", "openspiel_knock", "rules_knock", "only_openspiel", "only_rules",
                            "knocked", "knocked_only_openspiel"), 0)
    pending = {}

    def observe(state):
        if pending:  # the move after a wall visit: did the player knock?
            counts["knocked"] += state.current_phase() == Phase.KNOCK
            counts["knocked_only_openspiel"] += state.current_phase() == Phase.KNOCK and pending["only"]
            pending.clear()
        if state.current_phase() != Phase.WALL:
            return
        p = state.current_player()
        hand, up = list(state.hands()[p]), state.upcard()
        os_knock = KNOCK in state.legal_actions()
        rules_knock = any(UTILS.min_deadwood([c for c in hand if c != d] + [up]) <= limit for d in hand)
        only = os_knock and not rules_knock
        counts["walls"] += 1
        counts["openspiel_knock"] += os_knock
        counts["rules_knock"] += rules_knock
        counts["only_openspiel"] += only
        counts["only_rules"] += rules_knock and not os_knock
        pending["only"] = only

    for i in range(n_decks):
        deck = _deck(seed, i)
        for a_player in (0, 1):
            specs = (a, b) if a_player == 0 else (b, a)
            bots = [_os_player(specs[p], game, p, seed) for p in (0, 1)]
            _play_openspiel(game, bots, deck, observe)
            pending.clear()  # a hand that ended at the wall: the player passed
            counts["hands"] += 1
    return counts


def _ginsim_spec(spec):
    """A player of ``arena`` as a ginsim strategy: an OpenSpiel bot factory through
    ``OpenSpielPlayer``, registered under its function's name."""
    if isinstance(spec, str) and spec.strip() == "openspiel_random":
        raise ValueError("openspiel_random plays only inside OpenSpiel (engine='openspiel'); "
                         "inside ginsim use the strategy random")
    if callable(spec) and not isinstance(spec, str) and not _is_strategy_like(spec):
        name = "openspiel_" + "".join(ch if ch.isalnum() else "_" for ch in getattr(spec, "__name__", "bot"))
        return parse_strategy(register_player(name, OpenSpielPlayer.for_bot(spec, name)).name)
    return spec
