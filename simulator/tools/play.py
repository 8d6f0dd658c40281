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
from ..core.cards import format_card, mask_cards, parse_cards
from ..engine.hand import Hand
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
    OUTCOMES,
)
from ..core.rules import MAX_HANDS_PER_GAME, R_TARGET, resolve_rules
from ..core.rules_api import _arrangement, best_arrangement
from ..core.scoring import end_of_hand_nb, new_game_nb

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


#: phase -> (key, action, label) choices; the discard and arrange phases are built per state
_CHOICES = {
    S.PHASE_FIRST_UPCARD: (("t", S.A_TAKE_PILE, "take {top}"), ("p", S.A_PASS, "pass")),
    S.PHASE_DRAW: (("s", S.A_DRAW_STOCK, "draw from the stock"), ("t", S.A_TAKE_PILE, "take {top}")),
    S.PHASE_KNOCK: (("k", S.A_KNOCK, "knock ({deadwood} deadwood)"), ("n", S.A_NO_KNOCK, "play on")),
    S.PHASE_LAST_DISCARD: (("t", S.A_TAKE_PILE, "take {top} (then you must knock)"),
                           ("p", S.A_PASS, "pass: the hand is dead")),
}


class Table:
    """One session: the bot, the rules, the deals and the running score."""

    def __init__(self, vs: str = "simple", rules="hoyle", seed: int | None = None, game: bool = False,
                 read: Callable[[str], str] = input, out: TextIO | None = None):
        self.bot = parse_strategy(vs)
        self.rules = resolve_rules(rules)
        self.rules_name = rules if isinstance(rules, str) else "custom"
        self.vector = self.rules.to_array()
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**32)
        self.seed = seed
        self.game = game
        self.read = read
        self.out = out or sys.stdout
        self.scores = [0, 0]
        self.boxes = [0, 0]
        self.record = np.zeros(N_GAME_COLS, np.int64)  # the game's record (``end_of_hand_nb``)
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
            dealer, number = None, 1
            while True:
                hand = self.play_hand(dealer, number)
                if number == 1:
                    new_game_nb(self.record, np.int64(0), np.int64(0), np.int64(hand.a_seat), np.int64(hand.dealer))
                if not self.game:
                    return 0
                # the game's hands chain as simulate_games chains them (scores, target, next
                # dealer, the hand guard, the final totals)
                g = self.record
                dealer = int(end_of_hand_nb(g, hand.record(), np.int64(self.max_hands), self.vector))
                self.scores = [int(g[G_POINTS0]), int(g[G_POINTS1])]
                self.boxes = [int(g[G_BOXES0]), int(g[G_BOXES1])]
                target = int(self.vector[R_TARGET])
                self.say(f"Score: you {self.scores[HUMAN]}, {self.name} {self.scores[BOT]} (game to {target})")
                if dealer < 0:
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

    def play_hand(self, dealer: int | None, number: int) -> Hand:
        # the session is game 0 (one hand: deal 0) of the seed, unmirrored, dealt as
        # simulate_games (simulate) deals it: one keying of decks and streams, simulator.core.rng
        if self.game:
            hand = Hand(self.rules, seed=self.seed, deal=0, mirrored=False, hand_in_game=number - 1, dealer=dealer,
                        scores=tuple(self.scores))
        else:
            hand = Hand(self.rules, seed=self.seed, deal=0, mirrored=False)
        who = "you deal" if hand.dealer == HUMAN else f"{self.name} deals"
        limit = int(hand.state[S.S_LIMIT])
        self.say(f"\n=== Hand {number}: {who}; knock limit {limit}; upcard {format_card(int(hand.state[S.S_UPCARD]))} ===")
        seen = len(hand.events)
        while not hand.is_over():
            if hand.current_player == HUMAN:
                action = self.ask(hand)
            else:
                action = hand.strategy_action(self.bot)
            hand.apply(action)
            for event in hand.events[seen:]:
                self.tell(event, hand)
            seen = len(hand.events)
        self.hand_over(hand)
        return hand

    # ---- your turn ----------------------------------------------------------------------
    def show(self, hand: Hand) -> None:
        st = hand.state
        mask = int(st[S.S_HANDS + HUMAN])
        phase = hand.phase
        if phase == S.PHASE_DEFEND:
            knocker = _arrangement(int(st[S.S_HANDS + BOT]), int(st[S.S_SETS]), int(st[S.S_RUNS]))
            self.say(f"{self.name} lays out {_melds_text(knocker)}")
        drawn = f"   (drew {format_card(int(st[S.S_DRAWN]))})" if phase == S.PHASE_DISCARD else ""
        self.say(f"Your hand: {_hand_text(mask)}{drawn}")
        top = int(st[S.S_PILE + st[S.S_PILE_LEN] - 1]) if st[S.S_PILE_LEN] else -1
        known = int(st[S.S_TOOK + BOT])
        line = (f"Pile top: {format_card(top) if top >= 0 else '-'}   stock: {int(st[S.S_STOCK_N] - st[S.S_STOCK_POS])}"
                f"   {self.name} holds (from the pile): {_cards(known)}")
        if self.game:
            line += f"   score: you {self.scores[HUMAN]}, {self.name} {self.scores[BOT]}"
        self.say(line)

    def choices(self, hand: Hand) -> list[tuple[str, int, str]]:
        st = hand.state
        phase = hand.phase
        top = format_card(int(st[S.S_PILE + st[S.S_PILE_LEN] - 1])) if st[S.S_PILE_LEN] else "-"
        if phase in _CHOICES:
            return [(k, a, label.format(top=top, deadwood=int(st[S.S_DEADWOOD]))) for k, a, label in _CHOICES[phase]]
        if phase == S.PHASE_DISCARD:
            legal = [int(c) for c in mask_cards(int(st[S.S_LEGAL]))]
            out = [(format_card(c), S.A_DISCARD + c, "") for c in legal]
            drawn = int(st[S.S_DRAWN])
            if drawn in legal:
                out.append(("d", S.A_DISCARD + drawn, f"discard {format_card(drawn)}, the card drawn"))
            return out
        if phase == S.PHASE_ARRANGE:
            mask = int(st[S.S_HANDS + HUMAN])
            out = []
            for k, (sets, runs) in enumerate(hand.arrangements()):
                arrangement = _arrangement(mask, _mask(sets), _mask(runs))
                out.append((str(k + 1), S.A_ARRANGE + k, "lay out " + _melds_text(arrangement)))
            return out
        if phase == S.PHASE_DEFEND:
            mask = np.int64(st[S.S_HANDS + HUMAN])
            knocker_sets, knocker_runs = st[S.S_SETS], st[S.S_RUNS]
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
    def tell(self, event: tuple[int, str, int], hand: Hand | None = None) -> None:
        seat, name, value = event
        me = seat == HUMAN
        who = "You" if me else self.name
        if name == "defend" and hand is not None:  # the hand is over: the defender's melds are known
            st = hand.state
            melded = int(st[S.S_DEFENDER_MELDS])
            melds = " ".join("[" + " ".join(map(str, m)) + "]"
                             for m in best_arrangement([int(c) for c in mask_cards(melded)]).melds) if melded else "no melds"
            how = {-1: "the best response", -2: "no layoffs"}.get(value, f"least-deadwood arrangement {value + 1}")
            self.say(f"{who} {'defend' if me else 'defends'} with {how}: {'lay' if me else 'lays'} out {melds}, "
                     f"{'lay' if me else 'lays'} off {_laid_text(int(st[S.S_LAID]))}.")
            return
        card = format_card(value) if 0 <= value < 64 and value % 16 < 13 else ""
        text = {
            "decline": f"{who} {'pass' if me else 'passes'} on {card}.",
            "take_pile": f"{who} {'take' if me else 'takes'} {card} from the pile.",
            "draw_stock": f"You draw {card} from the stock." if me else f"{who} draws from the stock.",
            "discard": f"{who} {'discard' if me else 'discards'} {card}.",
            "knock": f"{who} {'knock' if me else 'knocks'} with {value} deadwood.",
            "gin": f"{who} {'go' if me else 'goes'} gin!",
            "big_gin": f"{who} {'have' if me else 'has'} big gin!",
            "reshuffle": f"The pile is shuffled into a new stock of {value} cards.",
            "pass_last_discard": f"{who} {'pass' if me else 'passes'} on the last discard {card}.",
            "dead": "The stock is exhausted: the hand is dead.",
        }.get(name)
        if text:
            self.say(text)

    def hand_over(self, hand: Hand) -> None:
        st = hand.state
        outcome = OUTCOMES[int(st[S.S_OUTCOME])]
        self.say(f"\n--- Hand over: {outcome} ---")
        knocker = int(st[S.S_KNOCKER])
        for seat in (HUMAN, BOT):
            name = "You" if seat == HUMAN else self.name
            mask = int(st[S.S_HANDS + seat])
            if outcome == "dead" or knocker < 0:
                self.say(f"{name:>12}: {_hand_text(mask)}")
            elif seat == knocker:
                sets, runs = int(st[S.S_SETS]), int(st[S.S_RUNS])
                text = _melds_text(_arrangement(mask, sets, runs)) if sets | runs else _hand_text(mask)
                self.say(f"{name:>12}: {text}   (knocker)")
            else:
                laid = int(st[S.S_LAID])
                rest = mask & ~laid
                melded = int(st[S.S_DEFENDER_MELDS])  # 0 after gin: the least deadwood is kept
                text = _melded_text(rest, melded) if melded else _hand_text(rest)
                self.say(f"{name:>12}: {text}   laid off: {_cards(laid)}")
        winner, points = int(st[S.S_WINNER]), int(st[S.S_POINTS])
        if outcome == "dead":
            self.say("No score.")
        elif winner < 0:
            self.say("A tie: no score.")
        else:
            who = "You score" if winner == HUMAN else f"{self.name} scores"
            extra = " (undercut)" if outcome == "undercut" else ""
            self.say(f"{who} {points} points{extra} (knocker deadwood {int(st[S.S_KNOCKER_DW])}, "
                     f"defender deadwood {int(st[S.S_DEFENDER_DW])}).")


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
