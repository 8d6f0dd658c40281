"""``GinsimBot``: any ginsim strategy as a ``pyspiel.Bot`` in OpenSpiel's ``gin_rummy``.

The bot plays a shadow ``simulator.Hand`` (public methods only) dealt from a deck that agrees
with what its seat has seen (``seat._fill``), dealt again and replayed whenever the shadow can
no longer follow; where OpenSpiel's rules differ it plays the closest legal move and counts it
in ``GinsimBot.stats`` (the package docstring lists each difference).
"""

from __future__ import annotations

import pyspiel

from strategies import parse_strategy

from ... import actions as A
from ...core.cards import as_codes
from ...core.rules import Rules
from ...engine.hand import Hand
from ...run.seeds import derive_seed

from .cards import (
    CHANCE, DRAW_STOCK, DRAW_UPCARD, InteropError, KNOCK, MELD_BASE, N_DEAL, PASS, Phase, UTILS,
    _meld_masks, best_layoffs, best_meld_action, meld_ids, os_card, os_cards, our_card, rules_for,
)
from .seat import _CannotFollow, _Filled, _fill, _masked_history


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
