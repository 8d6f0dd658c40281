"""One ginsim hand replayed into OpenSpiel's ``gin_rummy``: ``replay_events``.

A hand's events (deal, draws, discards, knock, melds, layoffs) become OpenSpiel actions and
chance outcomes, checked move by move; a hand OpenSpiel cannot play as ginsim did is refused
with a named reason (``CONVERT_REFUSALS``, ``ConvertRefusal``), a move that disagrees raises
``ReplayMismatch``.  The cross-check, hand histories and the arena all replay through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...core.cards import format_card

from .cards import (
    DRAW_STOCK, DRAW_UPCARD, InteropError, KNOCK, MELD_BASE, PASS, Phase, UTILS, best_layoffs,
    best_meld_action, card_names, game_for, meld_ids, os_card, os_cards,
)


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
