"""``ginsim play``: a hand (or a game) of Gin Rummy against a bot, in the terminal.

You sit in seat 0; the bot is any ginsim strategy (``--vs simple``, ``gin_hunter:knock_at=4``,
a registered Python strategy).  Before each of your decisions the screen shows your hand
sorted into melds and deadwood, the pile's top, the stock count and what the bot is known
to hold, then the legal moves with their keys.  The bot's moves are printed as they
happen (never the card it draws from the stock).  At the end of a hand both hands are
shown with their melds, the knocker's layout, the defender's melds, the cards laid off and
the score; with ``--game`` hands follow one another to the target with the running score.

When the bot knocks, you defend: the screen shows its layout, and you choose the best
defence (``b``, or just Enter: your melds and layoffs chosen together to leave the least
deadwood, breaking a meld of yours when laying off its cards pays) or one of your
least-deadwood arrangements by number (then every unmelded card that fits the knocker's
melds is laid off; docs/rules.md#laying-out-and-laying-off), or ``n``: your first
arrangement, laying off nothing.  When you knock, the bot's
defence is printed: the melds it laid out and whether it was its best response or which
of its arrangements.

Moves are read line by line from standard input, so a file of moves plays a whole hand
(``ginsim play --seed 3 < moves.txt``).  Keys: ``t`` take the pile's top card, ``s`` draw
from the stock, ``p`` pass, a card such as ``7h`` (or ``d``, the card just drawn) to
discard it, ``k`` knock, ``n`` play on, a number to choose a layout, ``b`` the best
defence, ``n`` (defending) no layoffs, ``?`` the keys again,
``q`` (or Ctrl-D) to quit.  A key that is not a move here gets a one-line hint.

Rules: docs/rules.md; the hand is played by ``simulator.Hand``, the engine ``simulate``
runs.
"""

from __future__ import annotations

import sys
from typing import Callable, TextIO

import numpy as np

from strategies import parse_strategy

from ..core import state as S
from ..core import view as V
from ..core.errors import StrategyError
from ..core.cards import format_card, mask_cards, parse_cards
from ..core.decisions import DECISIONS
from ..core.hand_reading import hand_of, result_of
from ..core.narrate import tell
from ..core.presentation import view_line
from ..engine.hand import Game, Hand
from ..engine.loop import stop_at
from ..core.melds import hand_value_nb, layoff_after_melds_nb, layoff_solution_nb
from ..core.records import (
    G_BOXES0,
    G_BOXES1,
    G_HANDS,
    G_POINTS0,
    G_POINTS1,
    G_SCORE0,
    G_SCORE1,
    G_SHUTOUT,
    G_WINNER,
    N_GAME_COLS,
)
from ..core.rules import MAX_HANDS_PER_GAME, R_TARGET, resolve_rules
from ..core.rules_api import _arrangement, best_arrangement
from ..core.rng import fresh_seed

HUMAN, BOT = 0, 1


class Quit(Exception):
    """The player quit (``q``, Ctrl-D or Ctrl-C)."""


def _cards(mask: int) -> str:
    return " ".join(format_card(c) for c in mask_cards(int(mask))) or "-"


def _melds_text(arrangement) -> str:
    melds = " ".join("[" + " ".join(map(str, meld)) + "]" for meld in arrangement.melds)
    rest = " ".join(map(str, arrangement.unmatched))
    return f"{melds or '(no melds)'}  | deadwood {rest or '-'} ({arrangement.deadwood})"


def _laid_text(mask: int) -> str:
    return _cards(mask) if mask else "nothing"


def _hand_text(mask: int) -> str:
    return _melds_text(best_arrangement([int(c) for c in mask_cards(int(mask))]))


def _melded_text(mask: int, melded: int) -> str:
    """``mask``'s cards shown with the cards ``melded`` (whole melds) as melds and the rest
    as deadwood."""
    melds = best_arrangement([int(c) for c in mask_cards(int(melded))]).melds if melded else ()
    rest = int(mask) & ~int(melded)
    melds_text = " ".join("[" + " ".join(map(str, meld)) + "]" for meld in melds)
    return f"{melds_text or '(no melds)'}  | deadwood {_cards(rest) if rest else '-'} ({int(hand_value_nb(rest))})"


#: the yes-or-no decisions (``simulator.core.decisions``) as prompts: for each, its (key,
#: label) for yes and for no, the order shown first; the action each means is the table's
_YES_NO = {
    "first_upcard": (("t", "take {top}"), ("p", "pass"), "yes"),
    "draw": (("t", "take {top}"), ("s", "draw from the stock"), "no"),
    "knock": (("k", "knock ({deadwood} deadwood)"), ("n", "play on"), "yes"),
    "last_discard": (("t", "take {top} (then you must knock)"), ("p", "pass: the hand is dead"), "yes"),
}


def _prompt(decision) -> tuple:
    """A yes-or-no decision's (key, action, label) choices, in the order shown (a decision
    without keys of its own here: ``y`` and ``n``, labelled with the actions' names)."""
    default = (("y", S.action_name(decision.yes)), ("n", S.action_name(decision.no)), "yes")
    (yes_key, yes_label), (no_key, no_label), first = _YES_NO.get(decision.name, default)
    yes, no = (yes_key, decision.yes, yes_label), (no_key, decision.no, no_label)
    return (yes, no) if first == "yes" else (no, yes)


#: phase -> (key, action, label) choices of the yes-or-no decisions; the others are built per state
_CHOICES = {d.phase: _prompt(d) for d in DECISIONS if d.kind == "yes_no"}


class Table:
    """One session: the bot, the rules, the deals and the running score."""

    def __init__(self, vs: str = "simple", rules="hoyle", seed: int | None = None, game: bool = False,
                 read: Callable[[str], str] = input, out: TextIO | None = None):
        self.bot = parse_strategy(vs)
        self.rules = resolve_rules(rules)
        self.rules_name = rules if isinstance(rules, str) else "custom"
        self.vector = self.rules.to_array()
        if seed is None:
            seed = fresh_seed()
        self.seed = seed
        self.game = game
        self.read = read
        self.out = out or sys.stdout
        self.scores = [0, 0]
        self.boxes = [0, 0]
        self.record = np.zeros(N_GAME_COLS, np.int64)  # the game's record (``Game.record``)
        #: the game stops after this many hands without a winner, as ``simulate_games`` does
        self.max_hands = MAX_HANDS_PER_GAME
        self.name = self.bot.label

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    # ---- a session ----------------------------------------------------------------------
    def run(self) -> int:
        self.say(f"ginsim play: you against {self.name}, rules {self.rules_name}, seed {self.seed} "
                 f"(the same --seed deals the same cards). Keys: ? for help, q to quit.")
        try:
            # the session is game 0 (one hand: deal 0) of the seed, unmirrored, dealt as
            # simulate_games (simulate) deals it: one keying of decks and streams, simulator.engine.work
            if not self.game:
                self.play_hand(Hand(self.rules, seed=self.seed, deal=0, mirrored=False), 1)
                return 0
            match = Game(self.rules, seed=self.seed, game=0, mirrored=False)
            match.max_hands = self.max_hands
            self.record = match.record
            number = 1
            while True:
                self.play_hand(match.hand, number)
                # the game's hands chain as simulate_games chains them (scores, target, next
                # dealer, the hand guard, the final totals)
                more = match.next_hand()
                g = self.record
                self.scores = [int(g[G_POINTS0]), int(g[G_POINTS1])]
                self.boxes = [int(g[G_BOXES0]), int(g[G_BOXES1])]
                target = int(self.vector[R_TARGET])
                self.say(f"Score: you {self.scores[HUMAN]}, {self.name} {self.scores[BOT]} (game to {target})")
                if not more:
                    self.game_over()
                    return 0
                number += 1
        except (Quit, KeyboardInterrupt):
            self.say("\nbye")
            return 0

    def game_over(self) -> None:
        g = self.record
        t0, t1, winner = int(g[G_SCORE0]), int(g[G_SCORE1]), int(g[G_WINNER])
        if winner < 0:
            self.say(f"\n=== Game stopped after {int(g[G_HANDS])} hands without a winner (the hand guard). "
                     f"Final score: you {t0}, {self.name} {t1} ===")
            return
        who = "You win" if winner == HUMAN else f"{self.name} wins"
        self.say(f"\n=== Game over: {who}{' (shutout)' if g[G_SHUTOUT] else ''}. Final score with bonuses: "
                 f"you {t0}, {self.name} {t1} ===")

    def play_hand(self, hand: Hand, number: int) -> Hand:
        who = "you deal" if hand.dealer == HUMAN else f"{self.name} deals"
        v = hand.view(HUMAN)  # at the deal: the knock limit, the upcard on the pile
        self.say(f"\n=== Hand {number}: {who}; knock limit {int(v[V.V_KNOCK_LIMIT])}; upcard {format_card(int(v[V.V_TOP]))} ===")
        seen = len(hand.events)
        while not hand.is_over():
            if hand.current_player == HUMAN:
                action = self.ask(hand)
                hand.apply(action)
            elif self.bot.is_python:
                hand.apply(hand.strategy_action(self.bot))
            else:  # the bot plays with the engine's loop until your turn or the hand's end
                hand._seat(BOT, self.bot)
                if hand._play(stop_at((HUMAN,))) < 0:
                    raise StrategyError(f"{self.name} broke the rules or wrote into what it was lent "
                                        "(simulate reports the error in one line)")
            for event in hand.events[seen:]:
                self.tell(event)
            seen = len(hand.events)
        self.hand_over(hand)
        return hand

    # ---- your turn ----------------------------------------------------------------------
    def show(self, hand: Hand) -> None:
        """What you see before a decision, read from your view (``Hand.view``: the engine's
        ``fill_view_nb``, what a numba strategy in your seat would get)."""
        v = hand.view(HUMAN)
        if int(v[V.V_PHASE]) == S.PHASE_DEFEND:
            sets, runs = int(v[V.V_KNOCKER_SETS]), int(v[V.V_KNOCKER_RUNS])
            melds = _arrangement(sets | runs, sets, runs).melds
            self.say(f"{self.name} lays out {' '.join('[' + ' '.join(map(str, m)) + ']' for m in melds)}")
        self.say(f"Your hand: {_hand_text(int(v[V.V_HAND]))}")
        # the rest of what you see, as the view's one-line text words it (its labelled slots)
        self.say(view_line(v, skip=("phase", "hand") if self.game else ("phase", "hand", "score", "opponent_score"),
                           opponent=self.name))

    def choices(self, hand: Hand) -> list[tuple[str, int, str]]:
        """Your moves, with their keys and labels, read from your view (as ``show``)."""
        v = hand.view(HUMAN)
        phase = int(v[V.V_PHASE])
        top = format_card(int(v[V.V_TOP])) if v[V.V_TOP] >= 0 else "-"
        if phase in _CHOICES:
            return [(k, a, label.format(top=top, deadwood=int(v[V.V_DEADWOOD]))) for k, a, label in _CHOICES[phase]]
        mask = np.int64(v[V.V_HAND])
        if phase == S.PHASE_DISCARD:
            legal = [int(c) for c in mask_cards(int(v[V.V_LEGAL_DISCARDS]))]
            out = [(format_card(c), S.A_DISCARD + c, "") for c in legal]
            drawn = int(v[V.V_DRAWN])
            if drawn in legal:
                out.append(("d", S.A_DISCARD + drawn, f"discard {format_card(drawn)}, the card drawn"))
            return out
        if phase == S.PHASE_ARRANGE:
            out = []
            for k, (sets, runs) in enumerate(hand.arrangements()):
                arrangement = _arrangement(int(mask), _mask(sets), _mask(runs))
                out.append((str(k + 1), S.A_ARRANGE + k, "lay out " + _melds_text(arrangement)))
            return out
        if phase == S.PHASE_DEFEND:
            knocker_sets, knocker_runs = v[V.V_KNOCKER_SETS], v[V.V_KNOCKER_RUNS]
            deadwood, laid, melded = layoff_solution_nb(mask, knocker_sets, knocker_runs)
            out = [("b", S.A_DEFEND_BEST, f"best defence: {_melded_text(mask & ~laid, melded)}, "
                                          f"laying off {_laid_text(laid)}")]
            for k, (sets, runs) in enumerate(hand.arrangements()):
                own = _mask(sets) | _mask(runs)
                deadwood, laid = layoff_after_melds_nb(mask, np.int64(own), knocker_sets, knocker_runs)
                out.append((str(k + 1), S.A_DEFEND + k, f"lay out {_melds_text(_arrangement(int(mask), _mask(sets), _mask(runs)))}"
                                                        f", then lay off {_laid_text(laid)} ({int(deadwood)} left)"))
            sets, runs = hand.arrangements()[0]
            out.append(("n", S.A_DEFEND_NO_LAYOFFS,
                        f"lay out {_melds_text(_arrangement(int(mask), _mask(sets), _mask(runs)))}, lay off nothing"))
            return out
        return []

    def menu(self, hand: Hand, choices) -> str:
        if hand.phase == S.PHASE_DISCARD:
            cards = " ".join(k for k, _, label in choices if not label)
            extra = "".join(f"   [{k}] {label}" for k, _, label in choices if label)
            return f"Discard one of: {cards}{extra}"
        if hand.phase == S.PHASE_DEFEND:
            return "\n".join(f"[{k}]{' (or Enter)' if k == 'b' else ''} {label}" for k, _, label in choices)
        return "   ".join(f"[{k}] {label}" for k, _, label in choices)

    def ask(self, hand: Hand) -> int:
        choices = self.choices(hand)
        if hand.phase == S.PHASE_ARRANGE and len(choices) == 1:  # one way to lay out: no question
            self.say(f"You {choices[0][2]}.")
            return choices[0][1]
        self.say()
        self.show(hand)
        self.say(self.menu(hand, choices))
        keys = {k.lower(): a for k, a, _ in choices}
        while True:
            try:
                line = self.read(f"{hand.phase_name}> ")
            except (EOFError, KeyboardInterrupt):
                raise Quit from None
            key = line.strip().lower()
            if key in ("q", "quit", "exit"):
                raise Quit
            if key in keys:
                return keys[key]
            if not key and hand.phase == S.PHASE_DEFEND:  # Enter: the best defence
                return S.A_DEFEND_BEST
            if key in ("?", "h", "help"):
                self.say(self.menu(hand, choices) + "   [q] quit")
                continue
            self.say(self.hint(hand, key, choices))

    def hint(self, hand: Hand, key: str, choices) -> str:
        if hand.phase == S.PHASE_DISCARD:
            try:
                card = parse_cards(key)
            except ValueError:
                card = ()
            if len(card) == 1:
                return f"you cannot discard {card[0]} now (not in your hand, or just taken from the pile); " \
                       "type a card of your hand, e.g. " + choices[0][0]
            return f"{key or '(empty)'!r} is not a move: type a card to discard, e.g. {choices[0][0]}, or ? for help"
        options = ", ".join(f"{k} ({label})" for k, _, label in choices)
        return f"{key or '(empty)'!r} is not a move here: type {options}; q quits"

    # ---- the table talks ------------------------------------------------------------------
    #: the events the table tells as they happen (``simulator.core.narrate.tell``); the deal
    #: and upcard open the hand, the knocker's layout is shown to the defender, the score closes it
    TOLD = frozenset({"decline", "take_pile", "draw_stock", "discard", "knock", "gin", "big_gin", "defend", "layoff",
                      "reshuffle", "pass_last_discard", "dead"})

    def tell(self, event: tuple[int, str, int]) -> None:
        """Tell an event of the hand, as the one narrator words it: you in the second person,
        the bot's stock draws without the card."""
        if event[1] in self.TOLD:
            names = ["", ""]
            names[HUMAN], names[BOT] = "You", self.name
            self.say(tell(event, names, you=HUMAN))

    def hand_over(self, hand: Hand) -> None:
        result = result_of(hand.state)
        outcome = result.outcome
        self.say(f"\n--- Hand over: {outcome} ---")
        knocker = result.knocker
        for seat in (HUMAN, BOT):
            name = "You" if seat == HUMAN else self.name
            mask = hand_of(hand.state, seat)
            if outcome == "dead" or knocker < 0:
                self.say(f"{name:>12}: {_hand_text(mask)}")
            elif seat == knocker:
                sets, runs = result.knocker_sets, result.knocker_runs
                text = _melds_text(_arrangement(mask, sets, runs)) if sets | runs else _hand_text(mask)
                self.say(f"{name:>12}: {text}   (knocker)")
            else:
                laid = result.laid_off
                rest = mask & ~laid
                melded = result.defender_melds  # 0 after gin: the least deadwood is kept
                text = _melded_text(rest, melded) if melded else _hand_text(rest)
                self.say(f"{name:>12}: {text}   laid off: {_cards(laid)}")
        if outcome == "dead":
            self.say("No score.")
        elif result.winner < 0:
            self.say("A tie: no score.")
        else:
            who = "You score" if result.winner == HUMAN else f"{self.name} scores"
            extra = " (undercut)" if outcome == "undercut" else ""
            self.say(f"{who} {result.points} points{extra} (knocker deadwood {result.knocker_deadwood}, "
                     f"defender deadwood {result.defender_deadwood}).")


def _mask(cards) -> int:
    mask = 0
    for c in parse_cards(" ".join(cards)) if cards else ():
        mask |= 1 << int(c)
    return mask


def play(vs: str = "simple", rules="hoyle", seed: int | None = None, game: bool = False,
         read: Callable[[str], str] | None = None, out: TextIO | None = None) -> int:
    """Play in the terminal (``read``: a function like ``input``; default: lines of standard
    input, prompts on standard output)."""
    return Table(vs, rules, seed, game, read or _reader(), out).run()


def _reader() -> Callable[[str], str]:
    """``input`` for a terminal; for piped input, read lines and echo each move after
    its prompt, so a transcript reads like a session."""
    if sys.stdin.isatty():
        return input

    def read(prompt: str) -> str:
        print(prompt, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        print(line.rstrip("\n"), flush=True)
        return line

    return read
