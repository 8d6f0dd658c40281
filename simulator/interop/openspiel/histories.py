"""Hand histories to and from OpenSpiel action sequences.

``to_openspiel`` replays a ginsim hand history into OpenSpiel's actions (``replay.replay_events``);
``from_openspiel`` plays an OpenSpiel action sequence through a ginsim ``Hand`` and records it
as a hand history, refusing in one line what ginsim's rules do not allow; the two batch forms
convert files and text.
"""

from __future__ import annotations

from ... import actions as A
from ...engine.hand import Hand
from ...run.handhistory import HandHistory, play, record

from .cards import (
    DRAW_STOCK, InteropError, KNOCK, MELD_BASE, PASS, Phase, UTILS, _mask, _meld_masks, card_names,
    game_for, our_card, rules_for,
)
from .replay import ConvertRefusal, replay_events
from .bot import _codes_mask


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
    from ...infra.inputs import argument

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
    from ...run.handhistory import read_file

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
