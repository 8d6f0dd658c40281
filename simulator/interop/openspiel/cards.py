"""OpenSpiel's ``gin_rummy`` and ginsim, translated: cards, the game for a rule set, melds and layoffs.

OpenSpiel numbers cards ``suit * 13 + rank`` with suits s c d h (``os_card``, ``our_card``); a
rule set becomes an OpenSpiel game (``game_for``) and back (``rules_for``); OpenSpiel lays melds
one action at a time, runs of 3 to 5 cards (``split_run``, ``meld_ids``), and the defender's
best layoffs and meld action are chosen as OpenSpiel scores them (``best_layoffs``,
``best_meld_action``).  ``tests/test_openspiel_crosscheck.py`` proved these on 2,400 deals.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

from ...core.cards import as_codes, mask_cards
from ...infra.inputs import argument
from ...core.rules import Rules, resolve_rules



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
