"""What one seat has seen of an OpenSpiel hand, and a deck that agrees with it.

``_masked_history`` keeps of ``state.full_history()`` only what the seat may see (its own
dealt cards and stock draws, the upcard, every public action); ``_fill`` deals the unknown
places with cards the seat has never seen, putting each card the opponent later shows where
it could have come from.  Both adapters (``GinsimBot``, ``OpenSpielPlayer``) fill from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import CHANCE, DRAW_STOCK, DRAW_UPCARD, InteropError, KNOCK, MELD_BASE, N_DEAL, PASS, UTILS


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
