"""``OpenSpielPlayer``: any ``pyspiel.Bot`` as a ginsim Python strategy.

The player rebuilds the public history from the ginsim observations it was shown and replays
it into an OpenSpiel state whose unknown chance outcomes are filled as ``seat._fill`` fills
them, then asks the bot.  ``OpenSpielSimple`` is OpenSpiel's C++ simple bot, registered under
the strategy name ``openspiel_simple`` when this module is imported; ``OPENSPIEL_BOTS`` are the
bots the arena plays natively inside OpenSpiel.
"""

from __future__ import annotations

import pyspiel

from strategies import Player
from strategies.registry import register_player

from ... import actions as A

from .cards import (
    CHANCE, DRAW_STOCK, DRAW_UPCARD, InteropError, KNOCK, MELD_BASE, N_DEAL, PASS, Phase, UTILS,
    _meld_masks, game_for, meld_ids, os_card, our_card,
)
from .seat import _fill
from .bot import _codes_mask


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
