"""ginsim and OpenSpiel's ``gin_rummy``, each playing inside the other.

* ``GinsimBot(game, player_id, strategy)``: a ``pyspiel.Bot`` that plays any ginsim strategy
  (numba, plug-in or Python) in OpenSpiel's ``gin_rummy``.
* ``OpenSpielPlayer``: a ginsim Python strategy (``strategies.Player``) that asks a
  ``pyspiel.Bot``.  Importing this module registers OpenSpiel's C++ simple bot under the
  name ``openspiel_simple`` (``simulate("openspiel_simple", "simple", rules="single_hand")``).
* ``arena(a, b, n_decks, seed)``: two players on the same decks, both seats, inside OpenSpiel
  (or inside ginsim with ``engine="ginsim"``), with points per hand and a paired interval.

**What a seat may see.**  Neither adapter reads a hidden card.  ``GinsimBot`` follows the game
through ``state.full_history()``, OpenSpiel's own actions and chance outcomes, and keeps only
what its player may see: its own dealt cards and stock draws, the upcard, and every public
action (draws, discards, knocks, melds, layoffs); the opponent's dealt cards and stock draws
are *unknown*.  It plays a *shadow* ``simulator.Hand`` (public methods only) dealt from a deck
that agrees with everything the seat has seen, and fills the unknown places with cards the
seat has never seen (``_fill``): a card the opponent later shows (a discard, a meld) is put in
one of the opponent's unknown places that it could have come from.  Whenever the shadow can no
longer follow (the opponent discards a card the shadow did not give it, a stock draw differs),
the shadow is dealt again from a deck that agrees with the longer history, and the whole
history is replayed; the ginsim strategy is asked again at each of its own past decisions, so
its random stream and memory advance as in one uninterrupted hand.  The strategy sees only its
view, in which the filled cards never appear, so it answers the same as before: the replay
checks that it does and raises ``InteropError`` if not (a strategy that reads more than its
view).  ``OpenSpielPlayer`` does the same the other way round: it rebuilds the public history
from the ginsim observations it was shown and replays it into an OpenSpiel state whose unknown
chance outcomes are filled the same way.

**Seats and cards** (docs/openspiel.md, "Seats and the deal"): OpenSpiel's player 0 acts first,
so it is the non-dealer (the shadow ``Hand`` is dealt with seat 1 the dealer, so a seat is
the OpenSpiel player id); OpenSpiel numbers cards ``suit * 13 + rank`` with suits s c d h
(``os_card``).  **Moves**: OpenSpiel's knock comes before the discard, ginsim's after it;
OpenSpiel lays melds one action at a time (runs of 3 to 5 cards: ``split_run``), the
defender lays off then melds.  **Where the rules differ** (docs/openspiel.md lists each):

* OpenSpiel decides whether 11 cards may knock with a shortcut that overestimates some hands:
  a knock the ginsim strategy chose that OpenSpiel does not offer is played as the same discard
  without a knock (counted in ``GinsimBot.stats["knock_blocked"]``);
* at the wall OpenSpiel lets a player take the last discard and knock with any discard,
  that card included; the shadow is played with ``last_discard_rule`` on (docs/rules.md: the
  card may be taken only to knock with another discard), so a ginsim strategy is asked at the
  wall and passes where only OpenSpiel's wider rule would knock;
* OpenSpiel allows discarding the card just taken from the pile and laying a knock out that
  is not least-deadwood, which docs/rules.md forbids.  When the opponent does either, the shadow
  cannot follow: the rest of that hand is played by OpenSpiel's simple bot for a move of
  the hand's middle, or by OpenSpiel's best response for a defence, and counted in
  ``GinsimBot.stats["fallback_moves"]`` (``arena`` reports the counts).

The translations (``os_card``, ``meld_ids``, ``split_run``, ``best_layoffs``,
``best_meld_action``, ``game_for``) are the ones ``tests/test_openspiel_crosscheck.py`` proved
on 2,400 deals; that test imports them from here.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - depends on the machine
    raise ImportError("simulator.interop.openspiel needs OpenSpiel (the open_spiel package): "
                      "pip install 'ginsim-rummy[openspiel]'") from exc

from strategies import Player, parse_strategy
from strategies.registry import register_player

from .. import actions as A
from ..core.cards import DECK, as_codes, format_card, mask_cards
from ..core.errors import StrategyError
from ..infra.inputs import argument
from ..core.rules import Rules, resolve_rules
from ..engine.hand import Hand
from ..run.handhistory import HandHistory, check_export, play, record, write_file
from ..run.seeds import derive_seed

__all__ = ["GinsimBot", "OpenSpielPlayer", "OpenSpielSimple",
           "ArenaResult", "InteropError", "arena", "wall_census", "game_for", "rules_for", "os_card", "our_card",
           "os_cards", "card_names", "split_run", "meld_ids", "best_layoffs", "best_meld_action", "OPENSPIEL_BOTS",
           "ARENA_SEED_LIMIT", "arena_seed", "ConvertRefusal", "CONVERT_REFUSALS", "to_openspiel", "from_openspiel", "histories_to_openspiel",
           "openspiel_to_histories"]

gr = pyspiel.gin_rummy
UTILS = gr.GinRummyUtils(13, 4, 10)
PASS, KNOCK = gr.PASS_ACTION, gr.KNOCK_ACTION
DRAW_UPCARD, DRAW_STOCK = gr.DRAW_UPCARD_ACTION, gr.DRAW_STOCK_ACTION
MELD_BASE = gr.MELD_ACTION_BASE
Phase = gr.Phase
CHANCE = -1  # the player id OpenSpiel gives chance in ``full_history()``
N_DEAL = 20  # chance outcomes 1..10 deal player 0, 11..20 player 1, the 21st is the upcard


class InteropError(RuntimeError):
    """A move one engine cannot translate into the other, or a player that broke a rule."""


# --------------------------------------------------------------------------- card mapping
# ours: code = suit * 16 + rank, suits s h d c.  OpenSpiel: index = suit * 13 + rank,
# suits s c d h ("scdh").  Ranks are A..K = 0..12 in both.
OUR_SUIT_TO_OS = (0, 3, 2, 1)
OS_SUIT_TO_OURS = (0, 3, 2, 1)  # the permutation is its own inverse


def os_card(code: int) -> int:
    """OpenSpiel's index of our card code (a ValueError for anything that is not one)."""
    code = as_codes([code])[0]
    return OUR_SUIT_TO_OS[code >> 4] * 13 + (code & 15)


def our_card(index: int) -> int:
    """Our card code of OpenSpiel's card index 0..51 (a ValueError for anything else)."""
    index = argument("OpenSpiel card index", index, "int", 0, 51)
    return OS_SUIT_TO_OURS[index // 13] * 16 + index % 13


def os_cards(mask_or_codes) -> list[int]:
    """OpenSpiel indices of a card mask (int) or of a sequence of our codes."""
    codes = mask_cards(mask_or_codes) if isinstance(mask_or_codes, (int, np.integer)) else mask_or_codes
    return [os_card(int(c)) for c in codes]


def card_names(os_list) -> str:
    return " ".join(UTILS.card_string(c) for c in os_list)


def _mask(os_list) -> int:
    out = 0
    for c in os_list:
        out |= 1 << our_card(c)
    return out


# --------------------------------------------------------------------------- the game
def game_for(rules="single_hand", strict: bool = True):
    """OpenSpiel's ``gin_rummy`` with the parameters of ginsim ``rules`` (knock limit, gin
    and undercut bonuses).  ``strict``: refuse rules OpenSpiel cannot play (big gin, Oklahoma,
    gin only, reshuffles, a tie counted as an undercut), with one line naming the field;
    not strict (an OpenSpiel bot deciding inside ginsim): those fields are left out."""
    r = resolve_rules(rules)
    if strict:
        unsupported = {"oklahoma": r.oklahoma, "gin_only": r.gin_only, "big_gin_bonus": r.big_gin_bonus != 0,
                       "reshuffle_stock": r.reshuffle_stock, "undercut_on_tie": r.undercut_on_tie}
        bad = [k for k, v in unsupported.items() if v]
        if bad:
            raise ValueError(f"rules field {bad[0]} = {getattr(r, bad[0])!r} has no OpenSpiel gin_rummy equivalent; "
                             "allowed: oklahoma/gin_only/reshuffle_stock/undercut_on_tie false, big_gin_bonus 0 "
                             "(the preset single_hand)")
    return pyspiel.load_game("gin_rummy", {
        "knock_card": int(r.knock_limit), "gin_bonus": int(r.gin_bonus), "undercut_bonus": int(r.undercut_bonus),
        "oklahoma": False, "num_ranks": 13, "num_suits": 4, "hand_size": 10})


def rules_for(game, last_discard_rule: bool = False) -> Rules:
    """The ginsim rules of an OpenSpiel ``gin_rummy`` game: ``single_hand`` with the game's
    knock card, gin and undercut bonuses (``last_discard_rule``: play OpenSpiel's wall as
    docs/rules.md's last-discard option)."""
    p = game.get_parameters()
    if (p.get("num_ranks", 13), p.get("num_suits", 4), p.get("hand_size", 10)) != (13, 4, 10) or p.get("oklahoma"):
        raise ValueError("game parameters num_ranks/num_suits/hand_size/oklahoma must be 13/4/10/false "
                         f"(ginsim plays the standard deck without Oklahoma), got {dict(p)}")
    return dataclasses.replace(Rules.preset("single_hand"), knock_limit=int(p["knock_card"]),
                               gin_bonus=int(p["gin_bonus"]), undercut_bonus=int(p["undercut_bonus"]),
                               last_discard_rule=last_discard_rule)


# --------------------------------------------------------------------------- melds
def split_run(cards: list[int]) -> list[list[int]]:
    """A run (sorted, consecutive) as OpenSpiel melds: OpenSpiel's meld actions only
    cover runs of length 3..5, so a longer run is laid as several consecutive pieces."""
    pieces = []
    while len(cards) > 5:
        take = min(5, len(cards) - 3)
        pieces.append(cards[:take])
        cards = cards[take:]
    pieces.append(cards)
    return pieces


def meld_ids(sets_mask: int, runs_mask: int) -> list[int]:
    """OpenSpiel meld ids of a layout given as our ``sets``/``runs`` masks."""
    ids = []
    by_rank: dict[int, list[int]] = {}
    for c in mask_cards(sets_mask):
        by_rank.setdefault(c & 15, []).append(c)
    for rank, cards in sorted(by_rank.items()):
        if len(cards) not in (3, 4):
            raise InteropError(f"bad set {cards}")
        ids.append(UTILS.meld_to_int(sorted(os_cards(cards))))
    for suit in range(4):
        ranks = [r for r in range(13) if runs_mask >> (suit * 16 + r) & 1]
        i = 0
        while i < len(ranks):
            j = i
            while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
                j += 1
            segment = [os_card(suit * 16 + r) for r in ranks[i:j + 1]]
            if len(segment) < 3:
                raise InteropError(f"bad run {card_names(segment)}")
            for piece in split_run(segment):
                ids.append(UTILS.meld_to_int(piece))
            i = j + 1
    return ids


def _meld_masks(melds: list[list[int]]) -> tuple[int, int]:
    """(sets mask, runs mask), our codes, of OpenSpiel melds (lists of card indices)."""
    sets = runs = 0
    for meld in melds:
        mask = _mask(meld)
        if len({c % 13 for c in meld}) == 1:
            sets |= mask
        else:
            runs |= mask
    return sets, runs


def best_layoffs(knocker_melds: list[int], hand: list[int]) -> tuple[int, list[int]]:
    """The defender's best response in OpenSpiel's action space: over every set of
    layoffs OpenSpiel's ``AllLayoffs`` allows (one card at a time, each time among the
    cards it offers), the least deadwood left after melding the rest.  OpenSpiel's
    offered layoffs depend only on the *set* of cards laid so far, so a memo on that set
    makes the search exact.  Returns (deadwood, layoff sequence)."""
    memo: dict[frozenset, tuple[int, list[int]]] = {}

    def search(laid: tuple[int, ...]) -> tuple[int, list[int]]:
        key = frozenset(laid)
        if key in memo:
            return memo[key]
        rest = [c for c in hand if c not in key]
        best = (UTILS.min_deadwood(rest), [])
        for card in UTILS.all_layoffs(knocker_melds, list(laid)):
            if card in rest:
                dw, seq = search(laid + (card,))
                if dw < best[0]:
                    best = (dw, [card] + seq)
        memo[key] = best
        return best

    return search(())


def best_meld_action(state, player: int) -> int | None:
    """A legal meld action of ``player`` that keeps its hand's least deadwood (one step of
    laying a least-deadwood layout), or None when nothing is left to meld (then ``Pass``).
    Any meld that leaves the least deadwood unchanged belongs to an optimal layout."""
    hand = list(state.hands()[player])
    target = UTILS.min_deadwood(hand)
    if target == UTILS.total_card_value(hand):
        return None
    for a in state.legal_actions():
        if a >= MELD_BASE:
            meld = set(UTILS.int_to_meld[a - MELD_BASE])
            if UTILS.min_deadwood([c for c in hand if c not in meld]) == target:
                return a
    raise InteropError(f"no legal OpenSpiel meld keeps deadwood {target} in {card_names(hand)}")


# --------------------------------------------------------------------------- a ginsim hand inside OpenSpiel
class ReplaySkip(InteropError):
    """A hand OpenSpiel cannot play as ginsim played it, for a documented reason
    (docs/openspiel.md): ``category`` names it (``knock_blocked_by_openspiel_shortcut``,
    ``openspiel_upcard_draw_cap``)."""

    def __init__(self, category: str, detail: str):
        super().__init__(f"{category}: {detail}")
        self.category = category
        self.detail = detail


class ReplayMismatch(InteropError):
    """OpenSpiel and ginsim disagree on a hand replayed into OpenSpiel."""


#: why ``from_openspiel`` refuses a hand OpenSpiel played: ``ConvertRefusal.category`` and
#: the words ``ginsim arena --export`` counts it under
CONVERT_REFUSALS = {
    "move_outside_the_rules": "a move docs/rules.md does not allow (such as discarding the card just taken)",
    "layout_not_least_deadwood": "the knocker's melds not a least-deadwood arrangement",
    "defender_deadwood_unreachable": "the defender's melds and layoffs leaving deadwood no ginsim defence leaves",
    "defender_melds_against_gin": "against gin, the defender's melds not its best (ginsim counts its least deadwood)",
    "scored_differently": "a hand ginsim ends or scores differently",
}


class ConvertRefusal(InteropError):
    """A hand played inside OpenSpiel that ginsim's rules cannot play (``from_openspiel``):
    ``category`` is a key of ``CONVERT_REFUSALS``, the message names the move."""

    def __init__(self, category: str, message: str):
        super().__init__(message)
        self.category = category


@dataclass
class EventReplay:
    """A ginsim hand replayed inside OpenSpiel (``replay_events``): ``outcome`` (knock, gin,
    undercut, tie or dead), ``ours`` (ginsim's winner seat or -1, points), ``openspiel``
    (``state.returns()`` by OpenSpiel player), ``osp`` (ginsim seat -> OpenSpiel player),
    OpenSpiel's final (knocker, defender) ``deadwood``, ``extra`` and the final ``state``."""

    outcome: str
    ours: tuple
    openspiel: list
    osp: dict
    deadwood: tuple = (None, None)
    extra: dict = field(default_factory=dict)
    state: object = None


def _apply(state, action, what: str):
    legal = state.legal_actions()
    if action not in legal:
        raise ReplayMismatch(f"{what}: action {action} ({state.action_to_string(state.current_player(), action)}) "
                             f"not legal in phase {state.current_phase()}; legal: {legal}")
    state.apply_action(action)


def _chance(state, os_code: int, what: str):
    if not state.is_chance_node():
        raise ReplayMismatch(f"{what}: expected a chance node, phase {state.current_phase()}")
    if os_code not in {a for a, _ in state.chance_outcomes()}:
        raise ReplayMismatch(f"{what}: card {UTILS.card_string(os_code)} is not a chance outcome")
    state.apply_action(os_code)


def _lay_best_melds(state, player: int, what: str) -> None:
    """Lay melds (OpenSpiel's legal meld actions) reaching the hand's least deadwood, then
    pass (``best_meld_action`` one meld at a time)."""
    while True:
        try:
            meld = best_meld_action(state, player)
        except InteropError as exc:
            raise ReplayMismatch(f"{what}: {exc}") from None
        if meld is None:
            break
        _apply(state, meld, what)
    _apply(state, PASS, what)


def replay_events(events: list[tuple[int, str, int]], game=None) -> EventReplay:
    """Replay one ginsim hand, given by its events (``simulator.api.trace_deal``,
    ``simulator.Hand.events``), through OpenSpiel's ``gin_rummy`` (``game``, default the
    ``single_hand`` rules): the chance outcomes deal exactly ginsim's cards (the hands, the
    upcard, every stock draw), each decision becomes OpenSpiel's action, the knocker lays
    ginsim's melds and the defender lays off ginsim's cards (or plays OpenSpiel's best
    response where ginsim's defender did: ``best_layoffs``).  Raises ``ReplaySkip`` for a
    documented case OpenSpiel cannot follow and ``ReplayMismatch`` for any disagreement;
    ``tests/test_openspiel_crosscheck.py`` proves it on 2,400 deals."""
    game = game or game_for("single_hand")
    state = game.new_initial_state()
    deals = [(s, c) for s, e, c in events if e == "deal"]
    non_dealer = deals[0][0]
    # OpenSpiel's player 0 always acts first: it is our non-dealer
    osp = {non_dealer: 0, 1 - non_dealer: 1}
    # OpenSpiel deals player 0's ten cards, then player 1's, then the upcard
    for seat in (non_dealer, 1 - non_dealer):
        for s, c in deals:
            if s == seat:
                _chance(state, os_card(c), "deal")
    upcard = next(v for _, e, v in events if e == "upcard")
    _chance(state, os_card(upcard), "upcard")
    for seat in (0, 1):
        ours = sorted(os_card(c) for s, c in deals if s == seat)
        if sorted(state.hands()[osp[seat]]) != ours:
            raise ReplayMismatch("dealt hands differ")
    if state.current_phase() != Phase.FIRST_UPCARD or state.current_player() != 0:
        raise ReplayMismatch("OpenSpiel does not start with player 0 facing the upcard")

    stock = 31
    rest = [ev for ev in events if ev[1] not in ("deal", "upcard")]
    i = 0
    while i < len(rest):
        seat, ev, value = rest[i]
        i += 1
        where = f"event {ev} {format_card(value) if ev in ('decline', 'take_pile', 'draw_stock', 'discard') else value}"
        if ev in ("decline", "take_pile", "draw_stock", "discard") and state.current_player() != osp[seat]:
            raise ReplayMismatch(f"{where}: OpenSpiel's player to move is {state.current_player()}, "
                                 f"ours is seat {seat} (OpenSpiel {osp[seat]})")
        if ev == "decline":
            if state.current_phase() != Phase.FIRST_UPCARD:
                raise ReplayMismatch(f"{where}: not in OpenSpiel's first-upcard phase")
            _apply(state, PASS, where)
        elif ev == "take_pile":
            if state.upcard() != os_card(value):
                raise ReplayMismatch(f"{where}: OpenSpiel's upcard is {UTILS.card_string(state.upcard())}")
            _apply(state, DRAW_UPCARD, where)
            if state.is_terminal():
                raise ReplaySkip("openspiel_upcard_draw_cap", "OpenSpiel ended the hand at its upcard-draw cap")
        elif ev == "draw_stock":
            _apply(state, DRAW_STOCK, where)
            _chance(state, os_card(value), where)
            stock -= 1
            if state.stock_size() != stock:
                raise ReplayMismatch(f"{where}: stock {state.stock_size()} vs ours {stock}")
        elif ev == "discard":
            knock = i < len(rest) and rest[i][1] in ("knock", "gin")
            if not knock:
                _apply(state, os_card(value), where)
                if state.is_terminal():
                    raise ReplayMismatch(f"{where}: OpenSpiel ended the hand (repeated-move rule?)")
                continue
            # OpenSpiel: Knock is a decision taken *before* the discard
            if KNOCK not in state.legal_actions():
                hand = list(state.hands()[osp[seat]])
                raise ReplaySkip("knock_blocked_by_openspiel_shortcut",
                                 f"{card_names(hand)}: OpenSpiel's 11-card deadwood {UTILS.min_deadwood(hand)} > "
                                 f"{game.get_parameters()['knock_card']}")
            _apply(state, KNOCK, where)
            _apply(state, os_card(value), where + " (knock discard)")
            _, kind, k_dw = rest[i]
            i += 1
            return _settle(state, osp, seat, kind, k_dw, rest[i:])
        elif ev == "dead":
            if state.current_phase() != Phase.WALL or state.stock_size() != 2:
                raise ReplayMismatch(f"dead hand but OpenSpiel is in phase {state.current_phase()}, "
                                     f"stock {state.stock_size()}")
            _apply(state, PASS, "wall: pass")  # single_hand has no last_discard_rule
            if not state.is_terminal():
                raise ReplayMismatch("OpenSpiel did not end the hand after passing at the wall")
            returns = list(state.returns())
            if returns != [0.0, 0.0]:
                raise ReplayMismatch(f"dead hand: OpenSpiel returns {returns}")
            return EventReplay("dead", (-1, 0), returns, osp, state=state)
        else:
            raise ReplayMismatch(f"unexpected event {ev} before the end of the hand")
    raise ReplayMismatch("the trace ended without a knock or a dead hand")


def _settle(state, osp, knocker_seat, kind, k_dw, tail) -> EventReplay:
    """The end of a replayed hand after the knock: the knocker's melds, the defender's
    layoffs and melds, and the returns compared with ginsim's score."""
    knocker = osp[knocker_seat]
    defender = 1 - knocker
    tail_by_name = {e: (s, v) for s, e, v in tail}
    if kind == "knock":
        ids = meld_ids(tail_by_name["sets"][1], tail_by_name["runs"][1])
        for mid in ids:
            _apply(state, MELD_BASE + mid, f"knocker meld {card_names(UTILS.int_to_meld[mid])}")
        _apply(state, PASS, "knocker done laying melds")
    else:  # gin: our trace has no layout; any full layout is the same (no layoffs)
        _lay_best_melds(state, knocker, "gin melds")
    os_k = state.deadwood()[knocker]
    if os_k != k_dw:
        raise ReplayMismatch(f"knocker deadwood: OpenSpiel {os_k}, ours {k_dw}")
    if state.current_phase() != Phase.LAYOFF or state.current_player() != defender:
        raise ReplayMismatch(f"after the knock OpenSpiel is in {state.current_phase()}")

    hand = list(state.hands()[defender])
    extra = {}
    defence = tail_by_name.get("defend", (None, -1))[1]
    if not state.finished_layoffs() and defence != -1:
        # our defender kept one of its least-deadwood arrangements (``simple``'s EAAI
        # defence) and laid off what fits, or none (-2, no layoffs): lay off the same cards
        # in an order OpenSpiel offers them, then meld the rest to its least deadwood
        our_laid = os_cards(tail_by_name["layoff"][1])
        seq: list[int] = []
        knocker_melds = list(state.layed_melds()[knocker])
        while len(seq) < len(our_laid):
            offered = set(UTILS.all_layoffs(knocker_melds, list(seq)))
            card = next((x for x in our_laid if x not in seq and x in offered), None)
            if card is None:
                raise ReplayMismatch(f"OpenSpiel does not offer our layoffs {card_names(our_laid)}")
            _apply(state, card, f"layoff {UTILS.card_string(card)}")
            seq.append(card)
        _apply(state, PASS, "defender done laying off")
        best_dw = UTILS.min_deadwood([x for x in hand if x not in seq])
    elif not state.finished_layoffs():  # OpenSpiel skips layoffs against gin, as we do
        best_dw, seq = best_layoffs(list(state.layed_melds()[knocker]), hand)
        for card in seq:
            _apply(state, card, f"layoff {UTILS.card_string(card)}")
        _apply(state, PASS, "defender done laying off")
        our_laid = sorted(os_cards(tail_by_name["layoff"][1]))
        extra["same_layoffs"] = sorted(seq) == our_laid
    else:
        best_dw = UTILS.min_deadwood(hand)
    _lay_best_melds(state, defender, "defender melds")
    if not state.is_terminal():
        raise ReplayMismatch("OpenSpiel's hand is not over after the defender's melds")
    d_ours = tail_by_name["defender_deadwood"][1]
    os_d = state.deadwood()[defender]
    if not (os_d == best_dw == d_ours):
        raise ReplayMismatch(f"defender deadwood: OpenSpiel {'best response' if defence < 0 else 'same defence'} "
                             f"{best_dw} (state {os_d}), ours {d_ours}")
    winner_seat, points = tail_by_name["score"]
    returns = list(state.returns())
    expected = [0.0, 0.0]
    if winner_seat >= 0:
        expected[osp[winner_seat]] = float(points)
        expected[1 - osp[winner_seat]] = -float(points)
    if returns != expected:
        raise ReplayMismatch(f"returns: OpenSpiel {returns}, ours {expected} (K={k_dw}, D={d_ours}, {kind})")
    if kind == "gin":
        outcome = "gin"
    elif winner_seat < 0:
        outcome = "tie"
    elif winner_seat == knocker_seat:
        outcome = "knock"
    else:
        outcome = "undercut"
    return EventReplay(outcome, (winner_seat, points), returns, osp, (os_k, os_d), extra, state)


# --------------------------------------------------------------------------- the public history
def _masked_history(state, me: int) -> list[tuple[int, int | None]]:
    """``state.full_history()`` as (player, action), with the chance outcomes ``me`` may not
    see (the opponent's dealt cards and stock draws) replaced by None."""
    out: list[tuple[int, int | None]] = []
    n_chance, drawer = 0, -1
    for item in state.full_history():
        p, a = int(item.player), int(item.action)
        if p == CHANCE:
            n_chance += 1
            if n_chance <= N_DEAL:
                owner = 0 if n_chance <= N_DEAL // 2 else 1
            elif n_chance == N_DEAL + 1:
                owner = me  # the upcard: seen by both
            else:
                owner = drawer
            out.append((p, a if owner == me else None))
        else:
            if a == DRAW_STOCK:
                drawer = p
            out.append((p, a))
    return out


@dataclass
class _Filled:
    log: list  # the history with every chance outcome a card
    order: list  # the 52 OpenSpiel cards in dealing order: the deal, the upcard, the stock draws, then the rest
    #: the opponent knocked and laid out before the fill: its unseen cards complete that layout
    opponent_layout_known: bool = False


def _fill(log: list, me: int, knock_limit: int) -> _Filled:
    """Fill the unknown chance outcomes of ``log`` (None) with cards so that the history is
    a legal hand: each card the opponent shows (a discard or layoff of a card it was not seen
    to take, a meld) goes into an unknown place the opponent held by then (its dealt cards
    first, then its stock draws, earliest first); the other unknown places get cards the seat
    has never seen.  When the opponent has knocked and laid its melds, its unseen deadwood is
    chosen so that its hand is legal: total within the knock limit, and its melds a
    least-deadwood layout (``_safe_deadwood``)."""
    opp = 1 - me
    slots: list[int] = []  # log indices of the opponent's unknown chance outcomes, in order
    card_of: dict[int, int] = {}
    mentioned: set[int] = set()
    opp_known: set[int] = set()  # cards seen to enter the opponent's hand (pile takes)
    opp_melded: list[list[int]] = []
    pile: list[int] = []
    n_chance = 0
    knocker, laid_out = None, False
    prev_player = None

    def shown(card: int, remove: bool) -> None:
        if card in opp_known:
            if remove:
                opp_known.discard(card)
            return
        free = next((s for s in slots if s not in card_of), None)
        if free is None:
            raise InteropError(f"the opponent showed {UTILS.card_string(card)} but holds no unknown card")
        card_of[free] = card

    for i, (p, a) in enumerate(log):
        if p == CHANCE:
            n_chance += 1
            if a is None:
                slots.append(i)
            else:
                mentioned.add(a)
            if n_chance == N_DEAL + 1:
                pile.append(a)
            continue
        if a == DRAW_UPCARD or (a == KNOCK and prev_player is not None and prev_player != p):
            card = pile.pop()  # a draw from the pile, or the wall's knock on the last discard
            if p == opp:
                opp_known.add(card)
        if a == KNOCK:
            knocker = p
        elif a < DRAW_UPCARD:  # a card: a discard onto the pile, or a layoff once the knocker laid out
            mentioned.add(a)
            if p == opp:
                shown(a, remove=True)
            if not laid_out:
                pile.append(a)
        elif a >= MELD_BASE:
            meld = list(UTILS.int_to_meld[a - MELD_BASE])
            mentioned.update(meld)
            if p == opp:
                for c in meld:
                    shown(c, remove=False)
                opp_melded.append(meld)
        elif a == PASS and p == knocker:
            laid_out = True
        prev_player = p
    mentioned.update(card_of.values())
    unseen = [c for c in range(52) if c not in mentioned]
    free = [s for s in slots if s not in card_of]
    if knocker == opp and laid_out and free:
        melded = {c for m in opp_melded for c in m}
        known_dw = [c for c in opp_known if c not in melded]
        chosen = _safe_deadwood(melded, known_dw, unseen, len(free), knock_limit)
        if chosen is None:
            raise InteropError("no unseen cards complete the knocker's hand legally")
        unseen = chosen + [c for c in unseen if c not in chosen]  # the free places take them first
    for s in free:
        card_of[s] = unseen.pop(0)
    filled = [(p, card_of.get(i, a) if p == CHANCE else a) for i, (p, a) in enumerate(log)]
    dealt = [a for p, a in filled if p == CHANCE]
    return _Filled(filled, dealt + unseen, knocker == opp and laid_out)


def _safe_deadwood(melded: set, known_dw: list, unseen: list, k: int, limit: int, cap: int = 20000) -> list | None:
    """``k`` unseen cards that complete a knocker's hand (``melded`` cards plus ``known_dw``)
    legally: deadwood within ``limit`` and the melds a least-deadwood layout.  Depth-first
    over the cards by value, lowest first; None when none is found within ``cap`` tries."""
    budget = limit - sum(UTILS.card_value(c) for c in known_dw)
    cands = sorted(unseen, key=lambda c: (UTILS.card_value(c), c))
    base = list(melded) + list(known_dw)
    tries = 0

    def dfs(start: int, chosen: list, total: int):
        nonlocal tries
        if len(chosen) == k:
            tries += 1
            hand = base + chosen
            return chosen if UTILS.min_deadwood(hand) == total + (limit - budget) else None
        for j in range(start, len(cands)):
            if tries > cap:
                return None
            v = UTILS.card_value(cands[j])
            if total + v * (k - len(chosen)) > budget:
                break
            got = dfs(j + 1, chosen + [cands[j]], total + v)
            if got is not None:
                return got
        return None

    return dfs(0, [], 0) if budget >= 0 else None


class _CannotFollow(Exception):
    """The shadow ``Hand`` cannot play a move of the OpenSpiel history."""


# --------------------------------------------------------------------------- ginsim inside OpenSpiel
class _Shadow:
    """A ``simulator.Hand`` that follows an OpenSpiel history (``feed``), asking the seat's
    ginsim strategy at each of its decisions (``bot_action``) so its random stream and memory
    advance as they would in play; a strategy answer different from the history's move is an
    ``InteropError``, except where OpenSpiel refused it (a knock blocked by OpenSpiel's
    shortcut, ``allowed``)."""

    def __init__(self, filled: _Filled, me: int, rules: Rules, seed: int, strategy):
        deck = [our_card(c) for c in _deck_order(filled.order)]
        self.me = me
        self.hand = Hand(rules, seed=seed, deck=deck, dealer=1,
                         a=strategy if me == 0 else None, b=strategy if me == 1 else None)
        self.pending_knock = False
        self.opponent_layout_known = filled.opponent_layout_known
        self.melds: list[list[int]] = []
        self.defending = False  # the knocker laid out: the rest is the defence
        self._last_drew = -1  # the player of the last stock draw (whose card the next chance outcome is)

    def feed(self, entries: list) -> None:
        for p, a in entries:
            if p == CHANCE:
                if a is not None and self._last_drew == self.me:
                    drawn = self.hand.observation(self.me)["drawn"]
                    if drawn is None or os_card(_code(drawn)) != a:
                        raise _CannotFollow("stock draw differs")
                continue
            self._move(p, a)

    def _apply(self, p: int, action: int, allowed=()) -> None:
        h = self.hand
        if h.is_over() or h.current_player != p:
            raise _CannotFollow(f"the hand is {h.phase_name}, player {h.current_player}")
        if p == self.me:
            asked = h.bot_action()
            if asked != action and (asked, action) not in allowed:
                raise InteropError(f"the ginsim strategy chose {A.name(asked)} where it chose {A.name(action)} "
                                   "in the same position: it reads more than its view")
        try:
            h.apply(action)
        except ValueError as exc:
            raise _CannotFollow(str(exc)) from None

    def _move(self, p: int, a: int) -> None:
        h = self.hand
        if self.defending:
            return
        phase = "over" if h.is_over() else h.phase_name
        if phase == "over":
            if a == PASS:
                return  # the wall: ginsim already ended the hand dead
            raise _CannotFollow("OpenSpiel plays on where ginsim's hand is over")
        if phase == "first_upcard":
            self._apply(p, A.TAKE_PILE if a == DRAW_UPCARD else A.PASS)
        elif phase == "draw":
            self._last_drew = p
            self._apply(p, A.TAKE_PILE if a == DRAW_UPCARD else A.DRAW_STOCK)
        elif phase == "last_discard":
            if a == KNOCK and p != self.me and not self.opponent_layout_known:
                raise _CannotFollow("the opponent knocked before its layout was known")
            self._apply(p, A.TAKE_PILE if a == KNOCK else A.PASS, allowed={(A.TAKE_PILE, A.PASS)})
        elif phase == "discard":
            if a == DRAW_STOCK:  # both passed the upcard: ginsim drew for the non-dealer already
                self._last_drew = p
                return
            if a == KNOCK:
                self.pending_knock = True
                return
            if self.pending_knock and p != self.me and not self.opponent_layout_known:
                # the opponent's unseen cards were filled before its layout was shown: ginsim
                # would lay out (even call gin on) cards it never held; fill again from the layout
                raise _CannotFollow("the opponent knocked before its layout was known")
            self._apply(p, A.discard(our_card(a)))
            if not h.is_over() and h.phase_name == "knock":
                self._apply(p, A.KNOCK if self.pending_knock else A.PLAY_ON, allowed={(A.KNOCK, A.PLAY_ON)})
            elif self.pending_knock and (h.is_over() or h.phase_name not in ("arrange", "defend")):
                raise _CannotFollow("OpenSpiel knocked where ginsim cannot")
            if h.is_over() or h.phase_name == "defend":
                self.defending = True  # a gin (ginsim lays its melds out by itself) or a dead hand
            self.pending_knock = False
        elif phase == "arrange":
            if a >= MELD_BASE:
                self.melds.append(list(UTILS.int_to_meld[a - MELD_BASE]))
                return
            if a != PASS:
                raise _CannotFollow(f"OpenSpiel action {a} in ginsim's arrange phase")
            sets, runs = _meld_masks(self.melds)
            for k, (s, r) in enumerate(h.arrangements()):
                if _codes_mask(s) == sets and _codes_mask(r) == runs:
                    self._apply(p, A.lay_out(k))
                    self.defending = True
                    return
            raise _CannotFollow("the knocker's layout is not a least-deadwood arrangement of ginsim's")
        elif phase == "knock":
            raise _CannotFollow("ginsim waits for a knock decision OpenSpiel did not make")
        elif phase == "defend":
            self.defending = True
        else:
            raise _CannotFollow(f"OpenSpiel action {a} in ginsim's {phase} phase")


def _code(card) -> int:
    return as_codes(card if isinstance(card, str) else [card])[0]


def _codes_mask(cards) -> int:
    out = 0
    for c in cards:
        out |= 1 << _code(c)
    return out


def _deck_order(order: list[int]) -> list[int]:
    """A ginsim deck (non-dealer, dealer alternately; the upcard; the stock in drawing order)
    from OpenSpiel's dealing order (player 0's ten cards, player 1's ten, the upcard, the draws)."""
    p0, p1 = order[:10], order[10:20]
    deck = [c for pair in zip(p0, p1) for c in pair]
    return deck + order[20:]


def _dealt(log: list) -> str:
    """The cards dealt and the upcard, as the text a shadow's seed derives from (``derive_seed``
    of the bot's seed, the seat and this), so a seat dealt the same cards plays the same,
    whatever came before."""
    return ",".join(str(a) for p, a in log[:N_DEAL + 1] if p == CHANCE and a is not None)


def _decide(hand: Hand) -> int:
    """The seat's strategy's answer on ``hand``, played there."""
    action = hand.bot_action()
    hand.apply(action)
    return action


def _layout(hand: Hand, me: int) -> list[int]:
    """The strategy's layout (``arrange``) as OpenSpiel meld actions, then ``Pass``; a gin,
    which ginsim lays out by itself, as the layout it laid."""
    if not hand.is_over() and hand.phase_name == "arrange":
        arrangements = hand.arrangements()
        k = _decide(hand) - A.lay_out(0)
        sets, runs = (_codes_mask(x) for x in arrangements[k])
    else:
        obs = hand.observation(me)
        if "knocker_melds" in obs:
            sets, runs = (_codes_mask(obs["knocker_melds"][k]) for k in ("sets", "runs"))
        else:
            sets, runs = (_codes_mask(obs["result"][k]) for k in ("knocker_sets", "knocker_runs"))
    if not sets | runs:
        return []  # gin without a recorded layout: any least-deadwood layout (``best_meld_action``)
    return [MELD_BASE + m for m in meld_ids(sets, runs)] + [PASS]


class GinsimBot(pyspiel.Bot):
    """A ginsim strategy as a ``pyspiel.Bot`` for OpenSpiel's ``gin_rummy``.

    ``GinsimBot(game, player_id, strategy, seed=0)``: ``strategy`` is a ginsim spec
    (``"mc"``, ``"simple:knock_at=0"``), a ``strategies.Strategy`` or a Python strategy class
    or object.  ``step(state)`` returns the strategy's move for ``player_id``; it reads only
    what that player may see (the module docstring says how).  The strategy's random stream is
    keyed by ``seed`` and the cards the seat was dealt.  ``stats`` counts what had to be
    translated: ``rebuilds`` (shadow hands dealt again), ``knock_blocked`` (a knock OpenSpiel
    did not offer, played as the discard alone), ``fallback_moves`` (moves made by OpenSpiel's
    simple bot or best response where the shadow could not follow the opponent).
    """

    def __init__(self, game, player_id: int, strategy, seed: int = 0):
        pyspiel.Bot.__init__(self)
        if player_id not in (0, 1):
            raise ValueError(f"player_id must be 0 or 1, got {player_id!r}")
        self.game = game
        self.player_id = player_id
        self.strategy = parse_strategy(strategy)
        self.rules = rules_for(game, last_discard_rule=True)
        self.seed = int(seed)
        self.stats = {"rebuilds": 0, "knock_blocked": 0, "fallback_moves": 0}
        self._fallback = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), player_id)
        self.restart()

    # pyspiel.Bot's interface ------------------------------------------------------------
    def restart(self):
        self._log: list = []
        self._shadow: _Shadow | None = None
        self._broken = False
        self._plan: list[int] = []
        self._defence = None

    def restart_at(self, state):
        self.restart()

    def inform_action(self, state, player_id, action):
        pass  # the history is read from the state at each step

    def provides_policy(self):
        return False

    def step(self, state) -> int:
        if state.current_player() != self.player_id:
            raise ValueError(f"GinsimBot for player {self.player_id} asked to move for player {state.current_player()}")
        self._sync(state)
        legal = state.legal_actions()
        action = self._choose(state, legal)
        if action not in legal:
            raise InteropError(f"GinsimBot ({self.strategy.label}) chose OpenSpiel action {action} "
                               f"({state.action_to_string(self.player_id, action)}), not legal in phase "
                               f"{state.current_phase()}; legal: {legal}")
        return action

    # following the game ----------------------------------------------------------------
    def _sync(self, state) -> None:
        log = _masked_history(state, self.player_id)
        if log[:len(self._log)] != self._log:
            self.restart()
        new = log[len(self._log):]
        self._log = log
        if self._broken:
            return
        if self._shadow is not None:
            try:
                self._shadow.feed(new)
                return
            except _CannotFollow:
                pass
        self._rebuild()

    def _rebuild(self) -> None:
        self.stats["rebuilds"] += 1
        try:
            filled = _fill(self._log, self.player_id, self.rules.knock_limit)
            shadow = _Shadow(filled, self.player_id, self.rules, derive_seed(self.seed, self.player_id, _dealt(self._log)),
                             self.strategy)
            shadow.feed(self._log)
        except (_CannotFollow, InteropError) as exc:
            if "reads more than its view" in str(exc):
                raise
            self.why_broken = str(exc)
            self._shadow, self._broken = None, True
            return
        self._shadow = shadow

    # choosing a move -------------------------------------------------------------------
    def _choose(self, state, legal: list[int]) -> int:
        me = self.player_id
        phase = state.current_phase()
        if self._plan:
            return self._plan.pop(0)
        if phase == Phase.LAYOFF:
            return self._defend(state, legal)
        if phase == Phase.KNOCK and len(state.hands()[me]) <= 10:
            # the knocker's melds with no layout planned (a gin): a least-deadwood layout
            meld = best_meld_action(state, me)
            return PASS if meld is None else meld
        if self._broken or self._shadow is None:
            self.stats["fallback_moves"] += 1
            return self._fallback.step(state)
        h = self._shadow.hand
        if legal == [DRAW_STOCK]:
            return DRAW_STOCK  # both passed the upcard: ginsim draws for the non-dealer by itself
        if h.is_over():
            if phase == Phase.WALL:
                return PASS  # docs/rules.md's last discard offers no knock here
            raise InteropError(f"ginsim's hand is over but OpenSpiel asks player {me} in phase {phase}")
        if h.current_player != me:
            raise InteropError(f"ginsim waits for seat {h.current_player}, OpenSpiel asks player {me}")
        # decide on a copy: the shadow itself advances only with the history, where each of
        # the strategy's answers is asked again from the same random stream and memory
        probe = h.clone()
        if phase in (Phase.FIRST_UPCARD, Phase.DRAW):
            return {A.TAKE_PILE: DRAW_UPCARD, A.DRAW_STOCK: DRAW_STOCK, A.PASS: PASS}[_decide(probe)]
        if phase == Phase.DISCARD:
            card = _decide(probe) - A.DISCARD
            if probe.is_over() or probe.phase_name != "knock" or _decide(probe) != A.KNOCK:
                return os_card(card)
            if KNOCK not in legal:  # OpenSpiel's 11-card shortcut refuses this knock
                self.stats["knock_blocked"] += 1
                return os_card(card)
            self._plan = [os_card(card)] + _layout(probe, me)
            return KNOCK
        if phase == Phase.WALL:
            if _decide(probe) != A.TAKE_PILE:
                return PASS
            card = _decide(probe) - A.DISCARD  # the knock after taking the last discard is automatic
            if KNOCK not in legal:
                self.stats["knock_blocked"] += 1
                return PASS
            self._plan = [os_card(card)] + _layout(probe, me)
            return KNOCK
        raise InteropError(f"GinsimBot has no move planned in OpenSpiel phase {phase}")

    def _defend(self, state, legal: list[int]) -> int:
        """The defender's moves: layoffs, ``Pass``, melds, ``Pass``.  The strategy's defence
        on the shadow: the best response is OpenSpiel's best response (an exhaustive search of
        its layoffs, which the cross-check proved equals ginsim's); an arrangement lays off the
        cards ginsim laid off, in an order OpenSpiel offers them, then melds the rest to their
        least deadwood; the defence without layoffs passes at once, then melds."""
        me = self.player_id
        if self._defence is None and not state.finished_layoffs():  # (none against gin)
            knocker_melds = list(state.layed_melds()[1 - me])
            hand = list(state.hands()[me])
            sh = self._shadow
            if (not self._broken and sh is not None and not sh.hand.is_over() and sh.hand.phase_name == "defend"
                    and sh.hand.current_player == me):
                d = sh.hand.bot_action()
                sh.hand.apply(d)
                if d == A.DEFEND_BEST:
                    self._defence = best_layoffs(knocker_melds, hand)[1]
                else:
                    self._defence = os_cards(_codes_mask(sh.hand.observation(me)["result"]["laid_off"]))
            else:
                self.stats["fallback_moves"] += 1
                self._defence = best_layoffs(knocker_melds, hand)[1]
        if not state.finished_layoffs():
            held = set(state.hands()[me])
            card = next((c for c in self._defence if c in held and c in legal), None)
            return PASS if card is None else card
        meld = best_meld_action(state, me)
        return PASS if meld is None else meld


# --------------------------------------------------------------------------- OpenSpiel inside ginsim
class OpenSpielPlayer(Player):
    """A ``pyspiel.Bot`` for ``gin_rummy`` as a ginsim Python strategy.

    ``OpenSpielPlayer.for_bot(make_bot)`` is a strategy class asking the bots
    ``make_bot(game, player_id)`` makes (register it: ``strategies.register("mine",
    OpenSpielPlayer.for_bot(make_bot))``).  At each ginsim decision it extends the public
    history of the hand from the observation (kept in ``obs.memory``: the seat's own moves and
    what the opponent did since, read from the pile and the cards the opponent took), replays
    it into an OpenSpiel state whose unknown chance outcomes are filled with cards the seat has
    never seen (``_fill``, as ``GinsimBot`` does), calls the bot's ``restart_at`` and ``step``
    on it, and translates the answer: OpenSpiel's knock before the discard becomes ginsim's
    discard then knock, its melds the matching ``lay_out(k)``, its defence
    ``DEFEND_NO_LAYOFFS`` when it laid nothing off (OpenSpiel's simple bot never lays off),
    else the ginsim defence that leaves the same deadwood.  The bot decides in OpenSpiel's game with
    ginsim's knock limit and bonuses (``game_for(rules, strict=False)``).  A move docs/rules.md
    forbids (a discard of the card just taken from the pile; a layout that is not
    least-deadwood; a defence no ginsim defence matches) is replaced by the greedy default's
    move and counted in ``OpenSpielPlayer.replaced`` (class-wide, by reason).
    """

    replaced: dict = {}

    @staticmethod
    def make_bot(game, player_id):
        raise NotImplementedError("OpenSpielPlayer.make_bot: use OpenSpielPlayer.for_bot(make_bot)")

    @classmethod
    def for_bot(cls, make_bot, name: str = "OpenSpielBot"):
        """A subclass asking the bots ``make_bot(game, player_id)`` makes."""
        return type(name, (cls,), {"make_bot": staticmethod(make_bot), "__doc__": cls.__doc__})

    def __init__(self, **params):
        super().__init__(**params)
        self._games: dict = {}
        self._bots: dict = {}

    def _bot(self, rules, player_id: int):
        key = (rules.knock_limit, rules.gin_bonus, rules.undercut_bonus)
        if key not in self._games:
            self._games[key] = game_for(rules, strict=False)
        if (key, player_id) not in self._bots:
            self._bots[(key, player_id)] = self.make_bot(self._games[key], player_id)
        return self._games[key], self._bots[(key, player_id)]

    def choose_action(self, obs) -> int:
        action = self._choose(obs)
        _record(obs.memory, obs.phase, action)
        return action

    def _choose(self, obs) -> int:
        mem = obs.memory
        me = 1 if obs.is_dealer else 0
        log = _observe(mem, obs, me)
        phase, legal = obs.phase, obs.legal_actions
        if phase == "knock":
            return A.KNOCK if mem.pop("knock", False) and A.KNOCK in legal else A.PLAY_ON
        if len(legal) == 1:
            return legal[0]
        game, bot = self._bot(obs.rules, me)
        state = _os_state(game, log, me, obs.knock_limit, bot)
        if state is None or state.is_terminal() or state.current_player() != me:
            return self._replace(obs, "history")
        if phase in ("first_upcard", "draw"):
            a = _ask(bot, state)
            return {DRAW_UPCARD: A.TAKE_PILE, DRAW_STOCK: A.DRAW_STOCK, PASS: A.PASS}[a]
        if phase == "last_discard":
            if _ask(bot, state) != KNOCK:
                return A.PASS
            state.apply_action(KNOCK)  # OpenSpiel's wall: take the last discard and knock
            mem["card"], mem["melds"] = _knock_plan(bot, state, me)
            return A.TAKE_PILE
        if phase == "discard":
            card = mem.pop("card", None)
            if card is None:
                card = _ask(bot, state)
                if card == KNOCK:
                    state.apply_action(KNOCK)
                    card, mem["melds"] = _knock_plan(bot, state, me)
                    mem["knock"] = True
            action = A.discard(our_card(card)) if card is not None and card < DRAW_UPCARD else -1
            if action not in legal:  # e.g. the card just taken from the pile: docs/rules.md forbids it
                mem.pop("knock", None)
                mem.pop("melds", None)
                return self._replace(obs, "discard")
            return action
        if phase == "arrange":
            melds = mem.pop("melds", None)
            sets, runs = _meld_masks(melds or [])
            for k, (s, r) in enumerate(obs.arrangements):
                if melds is not None and _codes_mask(s) == sets and _codes_mask(r) == runs:
                    return A.lay_out(k)
            return self._replace(obs, "layout")
        if phase == "defend":
            if state.current_phase() != Phase.LAYOFF:
                return self._replace(obs, "defence")
            laid_off = False
            while not state.is_terminal() and state.current_player() == me:
                a = _ask(bot, state)
                laid_off |= a < DRAW_UPCARD and not state.finished_layoffs()  # a card, before its Pass
                state.apply_action(a)
            return self._defence(obs, state.deadwood()[me], laid_off)
        return self._replace(obs, phase)

    def _defence(self, obs, deadwood: int, laid_off: bool) -> int:
        """The ginsim defence of a bot that left ``deadwood``: ``DEFEND_NO_LAYOFFS`` when it laid
        nothing off and melded the rest to its least deadwood (what OpenSpiel's simple bot
        does); else, as the score depends on the defender's deadwood only, the defence leaving
        the bot's deadwood, or the nearest (a defence docs/rules.md has no move for, such as
        melds that are not least-deadwood), counted in ``replaced["defence"]``."""
        no_layoffs = [(obs.deadwood, A.DEFEND_NO_LAYOFFS)]
        options = [(obs.best_defence[2], A.DEFEND_BEST)] + [(dw, A.defend(k))
                                                            for k, (_, _, dw) in enumerate(obs.defences)]
        options = options + no_layoffs if laid_off else no_layoffs + options
        dw, action = min(options, key=lambda o: abs(o[0] - deadwood))
        if dw != deadwood:
            type(self).replaced["defence"] = type(self).replaced.get("defence", 0) + 1
        return action

    def _replace(self, obs, reason: str) -> int:
        """The greedy default's move (``strategies.Player``), where the bot's has no ginsim match."""
        type(self).replaced[reason] = type(self).replaced.get(reason, 0) + 1
        obs.memory.pop("knock", None)
        phase = obs.phase
        if phase == "discard":
            return A.discard(int(obs.best_discard))
        if phase == "arrange":
            return A.lay_out(0)
        if phase == "defend":
            return A.DEFEND_BEST
        if phase == "knock":
            return A.KNOCK
        if phase == "last_discard":
            return A.TAKE_PILE
        if phase == "first_upcard":
            return A.TAKE_PILE if Player.first_upcard(self, obs) else A.PASS
        return A.TAKE_PILE if Player.draw(self, obs) == "pile" else A.DRAW_STOCK


def _knock_plan(bot, state, me: int) -> tuple[int | None, list]:
    """After OpenSpiel's knock: the bot's discard and then its melds, asked in one go (a bot
    such as OpenSpiel's simple bot plans them when it knocks)."""
    card = _ask(bot, state)
    if card >= DRAW_UPCARD or card not in state.legal_actions():
        return None, []
    state.apply_action(card)
    melds = []
    while not state.is_terminal() and state.current_player() == me and state.current_phase() == Phase.KNOCK:
        a = _ask(bot, state)
        if a == PASS or a < MELD_BASE or a not in state.legal_actions():
            break
        melds.append(list(UTILS.int_to_meld[a - MELD_BASE]))
        state.apply_action(a)
    return card, melds


def _ask(bot, state) -> int:
    return int(bot.step(state))


def _os_state(game, log: list, me: int, knock_limit: int, bot):
    """An OpenSpiel state that has played ``log`` (unknown chance outcomes filled by
    ``_fill``), or None when OpenSpiel refuses a move of it.  The bot is restarted and told
    every action on the way (``restart``, ``inform_action``), as OpenSpiel's own
    ``evaluate_bots`` does; OpenSpiel's simple bot plans its knock, discard and melds ahead
    and forgets the plan on ``restart``."""
    try:
        filled = _fill(log, me, knock_limit)
    except InteropError:
        return None
    bot.restart()
    state = game.new_initial_state()
    for p, a in filled.log:
        if a not in state.legal_actions():
            return None
        if p != CHANCE:
            bot.inform_action(state, p, a)
        state.apply_action(a)
    return state


def _record(mem: dict, phase: str, action: int) -> None:
    """The seat's move, for ``_observe`` at its next decision."""
    if phase in ("first_upcard", "draw"):
        kind = {A.TAKE_PILE: "take", A.PASS: "pass", A.DRAW_STOCK: "stock"}[action]
    elif phase == "last_discard":
        kind = "wall_take" if action == A.TAKE_PILE else "pass"
    elif phase == "discard":
        kind = "wall_discard" if mem.get("after_wall") else "discard"
    elif phase == "knock":
        kind = "knock" if action == A.KNOCK else "play_on"
    else:
        kind = "end"
    mem["last"] = (kind, os_card(action - A.DISCARD) if phase == "discard" else None)
    mem["after_wall"] = kind == "wall_take"


def _observe(mem: dict, obs, me: int) -> list:
    """The public history of the hand in OpenSpiel's terms, (player, action), with the
    opponent's dealt cards and stock draws None, extended at each decision: the seat's last
    move (``_record``), then what the opponent did since (``_opponent_turn``)."""
    pile = [os_card(int(c)) for c in obs.pile]
    took = [os_card(int(c)) for c in obs.opponent_took]
    log = mem.get("log")
    if log is None:  # the first decision: the deal, and the non-dealer's move before the dealer's first
        dealt = sorted(os_card(int(c)) for c in obs.hand)
        log = []
        for player in (0, 1):
            log.extend((CHANCE, c) for c in dealt) if player == me else log.extend([(CHANCE, None)] * 10)
        log.append((CHANCE, took[0] if took else pile[-1]))
        mem["log"], mem["pile"], mem["took"], mem["stock"] = log, [log[-1][1]], [], 31
        if me == 1:
            if took:
                _opponent_turn(mem, log, obs, me, pile, took, first=True)
            else:
                log.append((0, PASS))
        return _seen(mem, obs, pile, took)
    kind, card = mem.pop("last")
    opp_moves = False
    before = mem["pile"]  # the pile the seat saw, then changed by its own moves
    if kind in ("take", "wall_take"):
        log.append((me, DRAW_UPCARD if kind == "take" else KNOCK))  # (the wall's knock takes the card)
        before = before[:-1]
    elif kind == "stock":
        log.append((me, DRAW_STOCK))
        log.append((CHANCE, os_card(int(obs.drawn))))
    elif kind == "pass":
        log.append((me, PASS))
        opp_moves = True
    elif kind == "discard":
        if obs.phase == "knock":  # the knock decision comes next: OpenSpiel's knock goes before the card
            mem["held"] = card
            return _seen(mem, obs, pile, took)
        log.append((me, card))
        before = before + [card]
        opp_moves = True
    elif kind in ("knock", "play_on"):
        held = mem.pop("held")
        if kind == "knock":
            log.append((me, KNOCK))
        log.append((me, held))
        before = before + [held]
        opp_moves = kind == "play_on"
    elif kind == "wall_discard":
        log.append((me, card))
    mem["pile"] = before
    if opp_moves:
        _opponent_turn(mem, log, obs, me, pile, took)
    return _seen(mem, obs, pile, took)


def _opponent_turn(mem: dict, log: list, obs, me: int, pile: list, took: list, first: bool = False) -> None:
    """The opponent's moves since the seat's last move, from the change in the pile and the
    cards the opponent took (docs/rules.md's turn: draw, discard, perhaps knock)."""
    opp = 1 - me
    before, stock = mem["pile"], mem["stock"]
    if log[-1] == (me, PASS) and len(log) == N_DEAL + 2 and me == 0:  # the non-dealer passed the upcard
        if obs.phase == "discard" and not took:  # the dealer passed too: ginsim drew for us
            log += [(opp, PASS), (me, DRAW_STOCK), (CHANCE, os_card(int(obs.drawn)))]
            return
    if log[-1] == (me, PASS) and len(log) == N_DEAL + 3 and me == 1:  # both passed: the non-dealer drew
        log += [(opp, DRAW_STOCK), (CHANCE, None)]
    elif stock - _stock_draws(log) <= 2 and not first:  # the wall: the opponent took the last discard to knock
        log.append((opp, KNOCK))
    elif before and before[-1] in took:
        log.append((opp, DRAW_UPCARD))
    else:
        log += [(opp, DRAW_STOCK), (CHANCE, None)]
    if obs.phase == "defend" and log[-1] != (opp, KNOCK):
        log.append((opp, KNOCK))
    log.append((opp, pile[-1]))
    if obs.phase == "defend":
        sets, runs = obs.knocker_melds
        log += [(opp, MELD_BASE + m) for m in meld_ids(_codes_mask(sets), _codes_mask(runs))]
        log.append((opp, PASS))


def _stock_draws(log: list) -> int:
    return sum(1 for p, a in log if p != CHANCE and a == DRAW_STOCK)


def _seen(mem: dict, obs, pile: list, took: list) -> list:
    mem["pile"], mem["took"] = pile, took
    return mem["log"]


def _make_simple(game, player_id):
    return pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), player_id)


class OpenSpielSimple(OpenSpielPlayer):
    """OpenSpiel's C++ simple bot (``pyspiel.make_simple_gin_rummy_bot``), not the EAAI
    framework's ``SimpleGinRummyPlayer`` (ginsim's ``simple``): a different player."""

    NAME = "openspiel_simple"
    DEFENCE = "no_layoffs"  # the bot passes at OpenSpiel's layoffs (reports name it)
    SUMMARY = "OpenSpiel's C++ simple gin_rummy bot, asked through OpenSpiel (not ginsim's 'simple')"
    make_bot = staticmethod(_make_simple)


# the strategy name, registered when this module is imported (docs/openspiel.md)
register_player("openspiel_simple", OpenSpielSimple)

#: players ``arena`` plays natively inside OpenSpiel, by name: ``make(game, player_id, seed)``
OPENSPIEL_BOTS = {
    "openspiel_simple": lambda game, pid, seed: _make_simple(game, pid),
    "openspiel_random": lambda game, pid, seed: pyspiel.make_uniform_random_bot(pid, seed),
}


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
    return [int(c) for c in np.random.default_rng([seed, i]).permutation(DECK)]


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
    from ..analysis.stats import mean_interval

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
                h = Hand(rules_for(game), seed=seed + i, deck=deck, dealer=1, a=specs[0], b=specs[1])
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


# --------------------------------------------------------------------------- hand histories
def to_openspiel(history: HandHistory, game=None) -> list[int]:
    """A hand history (``simulator.run.handhistory``) as OpenSpiel's action sequence:
    ``state.history()`` of OpenSpiel's ``gin_rummy`` (``game``, default the one of the
    history's rules, ``game_for``) after ``replay_events`` has played the hand there, chance
    outcomes (the deal, the upcard, each stock draw) included.  OpenSpiel's player 0 is the
    history's non-dealer.  Raises ``ValueError`` for rules OpenSpiel cannot play,
    ``ReplaySkip`` for a hand it cannot follow (docs/openspiel.md) and ``ReplayMismatch``
    if it scores the hand differently."""
    hand = play(history)
    return [int(a) for a in replay_events(hand.events, game or game_for(history.rules)).state.history()]


def from_openspiel(actions, game=None, players=("", ""), source: dict | None = None,
                   dealer: int = 1) -> HandHistory:
    """OpenSpiel's action sequence of one ``gin_rummy`` hand (``state.history()``, chance
    outcomes included) as a hand history under the game's rules (``rules_for``): the deck is
    the chance outcomes (player 0's ten cards, player 1's, the upcard, the stock draws, then
    the cards never drawn in increasing order); OpenSpiel's player 1 deals, and sits in seat
    ``dealer`` (default 1: each player in the seat of its number; ``to_openspiel`` of a
    history whose dealer is seat 0 converts back with ``dealer=0``); ``players`` names the
    seats.  Each
    OpenSpiel move becomes ginsim's action (OpenSpiel's knock before the discard is ginsim's
    after it; its melds one at a time are the one ginsim arrangement of those melds).  The
    defender's layoffs and melds become the ginsim defence that lays off the same cards and
    leaves the same deadwood, else one that leaves the same deadwood (the same score).
    Raises ``ConvertRefusal`` (an ``InteropError`` whose ``category`` is a key of
    ``CONVERT_REFUSALS``) naming the first move ginsim's rules do not allow (docs/openspiel.md
    lists them: the card just taken discarded, a layout that is not least-deadwood, the
    last discard taken at the wall, a defender that does not spread its best melds against
    gin) or a result ginsim scores differently; ``InteropError`` for actions that are not a
    whole legal OpenSpiel hand."""
    from ..infra.inputs import argument

    game = game or game_for("single_hand")
    if isinstance(actions, (str, bytes, dict)) or not hasattr(actions, "__iter__"):
        raise ValueError(f"actions must be a sequence of OpenSpiel action integers, got {actions!r:.80}")
    # an action is an integer as it is (12.4 is no action 12, "12" no action at all)
    actions = [argument(f"actions[{k}]", a, "int", text="an OpenSpiel action (an integer)")
               for k, a in enumerate(actions)]
    dealer = argument("dealer", dealer, "int", 0, 1, text="seat 0 or 1")
    state = game.new_initial_state()
    dealt: list[int] = []
    for k, action in enumerate(actions):
        legal = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        if state.is_terminal() or action not in legal:
            raise InteropError(f"OpenSpiel action {k} ({action}) is not legal there")
        if state.is_chance_node():
            dealt.append(action)
        state.apply_action(action)
    if not state.is_terminal():
        raise InteropError(f"the {len(actions)} OpenSpiel actions stop before the hand ends")
    seat = (1 - dealer, dealer)  # OpenSpiel player -> seat
    returns = [int(r) for r in state.returns()]
    stock = dealt[21:] + sorted(set(range(52)) - set(dealt))
    deck = [our_card(c) for pair in zip(dealt[0:10], dealt[10:20], strict=True) for c in pair]
    deck += [our_card(dealt[20])] + [our_card(c) for c in stock]
    rules = rules_for(game)
    hand = Hand(rules, deck=deck, dealer=dealer)
    played = _ginsim_moves(game, actions, hand, seat)
    if [hand.returns()[seat[p]] for p in (0, 1)] != returns:
        result = hand.observation(0)["result"]
        if result["outcome"] in ("gin", "big_gin"):
            theirs = int(state.deadwood()[seat.index(1 - result["knocker"])])
            if theirs != result["defender_deadwood"]:
                raise ConvertRefusal("defender_melds_against_gin",
                                     f"against gin the defender's melds leave it deadwood {theirs} in OpenSpiel, "
                                     f"where docs/rules.md counts its least deadwood, {result['defender_deadwood']}")
        raise ConvertRefusal("scored_differently",
                             f"ginsim scores the hand {list(hand.returns())} by seat, OpenSpiel {returns} by player")
    return record(rules, deck, dealer, played, players, source=source)


def histories_to_openspiel(paths) -> list[list[int]]:
    """``to_openspiel`` of each hand history file in ``paths``, in order (``ginsim convert
    --to openspiel``); the first file that does not convert raises ``ValueError`` naming it."""
    from ..run.handhistory import read_file

    out = []
    for path in paths:
        try:
            out.append(to_openspiel(read_file(path)))
        except (InteropError, ValueError) as exc:  # read_file's errors name the file already
            raise ValueError(str(exc) if str(exc).startswith(str(path)) else f"{path}: {exc}") from None
    return out


def openspiel_to_histories(text: str, where: str, rules="single_hand", dealer: int = 1
                           ) -> list[tuple[int, HandHistory]]:
    """``from_openspiel`` of each non-empty line of ``text``, one hand's action sequence per
    line (integers separated by spaces or commas, brackets allowed: ``state.history()`` as
    Python prints it), played as OpenSpiel's ``gin_rummy`` with ginsim ``rules``
    (``game_for``): (line number, history) pairs.  ``where`` names the text in errors
    (``FILE:LINE``).  Every line converts or ``ValueError`` names the first that does not
    (``ginsim convert --from openspiel``)."""
    game = game_for(rules)
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.replace("[", " ").replace("]", " ").replace(",", " ").split()
        if not fields:
            continue
        if not all(f.isdigit() for f in fields):
            raise ValueError(f"{where}:{number}: an OpenSpiel action sequence is integers separated by spaces or "
                             f"commas, got {line.strip()[:60]!r}")
        try:
            out.append((number, from_openspiel([int(f) for f in fields], game, source={"engine": "openspiel"},
                                               dealer=dealer)))
        except InteropError as exc:
            raise ValueError(f"{where}:{number}: {exc}") from None
    if not out:
        raise ValueError(f"{where}: no action sequence in it (one hand per line)")
    return out


def _ginsim_moves(game, actions: list[int], hand: Hand, seat: tuple[int, int]) -> list[tuple[int, int]]:
    """Play OpenSpiel's ``actions`` on ``hand`` (dealt from the same deck; OpenSpiel's player
    p in ``seat[p]``) as ginsim's actions; the (seat, action) pairs played."""
    state = game.new_initial_state()
    played: list[tuple[int, int]] = []
    layout: list[int] = []  # the knocker's meld actions
    laid: list[int] = []  # the defender's layoffs (OpenSpiel cards)
    knocked = False

    def move(action: int, what: str) -> None:
        if hand.is_over() or action not in hand.legal_actions():
            legal = ", ".join(A.name(a) for a in hand.legal_actions()) if not hand.is_over() else "none (over)"
            raise ConvertRefusal("move_outside_the_rules", f"OpenSpiel's {what} is not a move docs/rules.md allows "
                                 f"here (ginsim's legal moves: {legal})")
        played.append((hand.current_player, action))
        hand.apply(action)

    for k, action in enumerate(actions):
        if state.is_chance_node():
            state.apply_action(action)
            continue
        player, phase = state.current_player(), state.current_phase()
        what = f"move {k} ({state.action_to_string(player, action)}, player {player})"
        if phase in (Phase.FIRST_UPCARD, Phase.DRAW):
            # after both players pass the first upcard OpenSpiel's player 0 draws from the stock
            # as a move; ginsim has drawn for it already
            if not (action == DRAW_STOCK and hand.phase_name == "discard" and hand.current_player == seat[player]):
                move({PASS: A.PASS, DRAW_STOCK: A.DRAW_STOCK}.get(action, A.TAKE_PILE), what)
        elif phase in (Phase.DISCARD, Phase.KNOCK) and action < 52 and not layout:
            move(A.discard(our_card(action)), what)
            if knocked and not hand.is_over() and hand.phase_name == "knock":
                move(A.KNOCK, what + " after OpenSpiel's knock")
            elif not knocked and not hand.is_over() and hand.phase_name == "knock":
                move(A.PLAY_ON, what + " without a knock")
        elif phase == Phase.DISCARD and action == KNOCK:
            knocked = True
        elif phase == Phase.KNOCK and action >= MELD_BASE:
            layout.append(action - MELD_BASE)
        elif phase == Phase.KNOCK and action == PASS:
            if not hand.is_over() and hand.phase_name == "arrange":
                move(A.lay_out(_arrangement(hand, [UTILS.int_to_meld[m] for m in layout], what)), what)
        elif phase == Phase.LAYOFF and action < 52:
            laid.append(action)
        elif phase == Phase.WALL:
            if action != PASS:
                move(A.TAKE_PILE, what)
        state.apply_action(action)
        if state.is_terminal() and not hand.is_over() and hand.phase_name == "defend":
            _defend(hand, laid, int(state.deadwood()[seat.index(hand.current_player)]), move)
    if not hand.is_over():
        raise ConvertRefusal("scored_differently", f"OpenSpiel's hand is over, ginsim's is in phase {hand.phase_name}")
    return played


def _arrangement(hand: Hand, melds: list[list[int]], what: str) -> int:
    """The index of the knocker's ginsim arrangement made of OpenSpiel's ``melds``."""
    sets, runs = _meld_masks(melds)
    for k, (set_cards, run_cards) in enumerate(hand.arrangements()):
        if _codes_mask(set_cards) == sets and _codes_mask(run_cards) == runs:
            return k
    raise ConvertRefusal("layout_not_least_deadwood", f"{what}: the knocker's melds {card_names(sum(melds, []))} "
                         "are not a least-deadwood arrangement of its hand (docs/rules.md lays out one)")


def _defend(hand: Hand, laid: list[int], deadwood: int, move) -> None:
    """The ginsim defence matching OpenSpiel's defender: the one laying off the cards
    ``laid`` and leaving ``deadwood``, else one leaving ``deadwood``."""
    same_deadwood = []
    for action in hand.legal_actions():
        trial = hand.clone()
        trial.apply(action)
        result = trial.observation(0)["result"]
        if result["defender_deadwood"] == deadwood:
            if _codes_mask(result["laid_off"]) == _mask(laid):
                move(action, "defence")
                return
            same_deadwood.append(action)
    if not same_deadwood:
        raise ConvertRefusal("defender_deadwood_unreachable",
                             f"no ginsim defence leaves the defender OpenSpiel's deadwood {deadwood}")
    move(same_deadwood[0], "defence")

