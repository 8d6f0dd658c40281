"""``GinsimState``: a ``python_ginsim`` state, ginsim's rules core under OpenSpiel's state API.

The state holds a ginsim hand (or game) and its history; each OpenSpiel action is applied by
the rules core and chance deals one card at a time.  ``_Resampler`` deals the cards a seat has
not seen, for OpenSpiel's ISMCTS, and a state serialises as text (``STATE_FORMAT``: game
parameters and history), rebuilt by replaying that history (``_read_state_text``).
"""

from __future__ import annotations

import base64
import pickle
import re
from array import array

import numpy as np
import pyspiel

from strategies import view as V
from strategies.belief import THETA, weights_nb
from strategies.mc import PARAMS as MC_PARAMS
from strategies.mc import opponent_hidden_nb, opponent_tries_nb

from ...core import state as S
from ...core.cards import DECK, format_card, mask_cards
from ...core.constants import N_VIEW
from ...core.hand_reading import hand_of, knocker_of, phase_of, pile_of, result_of
from ...core.narrate import tell
from ...core.view_fill import view_of
from ...core.observation import encode_view_nb
from ...core.records import G_POINTS0, G_POINTS1, G_SCORE0, G_SCORE1, N_GAME_COLS
from ...core.rules import MAX_HANDS_PER_GAME
from ...core.scoring import end_of_hand_nb, new_game_nb
from ...engine.hand import Hand
from ...core.rng import golden_scramble, python_random
from ...run.seeds import derive_seed
from ..openspiel import os_card

from .params import CHANCE, SHORT_NAME, TERMINAL, _DECK_MASK, _OS_DECK, _OUR


# --------------------------------------------------------------------------- the state
# the kinds of a hand's entries (``GinsimState._trail``): a card dealt (to a seat, or the
# upcard: seat -1), a stock card drawn (by a seat), a player's move
_DEALT, _DRAWN, _MOVE = 0, 1, 2
_ENTRY = 5  # ints per entry: kind, seat, action, then the cards unknown to seat 0 and to seat 1 after it


class GinsimState(pyspiel.State):
    """A ``python_ginsim`` state.  ``hand`` is the ginsim ``Hand`` being played (None while
    its cards are dealt); the rest is private bookkeeping."""

    def __init__(self, game: pyspiel.Game):
        super().__init__(game)
        self.hand: Hand | None = None
        self._dealt: list[int] = []  # the deal in progress: our card codes, in OpenSpiel's dealing order
        self._pending = -1  # a move that draws from the stock, waiting for its chance node
        self._drawer = -1
        self._dealer = 1
        self._scores = (0, 0)
        self._hand_no = 0
        self._moves = 0  # entries in the history
        self._hand_start = 0  # entries before this hand's first card
        self._trail = array("q")  # this hand's entries (``_ENTRY`` ints each)
        self._past: list[tuple[str, str]] = []  # finished hands as each player saw them
        self._returns: list[float] | None = None
        self._texts: dict = {}  # the strings of this state, made once: (player, perfect recall) -> text
        self._game_row = None
        if game.whole_game:
            self._game_row = np.zeros(N_GAME_COLS, np.int64)  # kept by ``end_of_hand_nb``
            new_game_nb(self._game_row, np.int64(0), np.int64(0), np.int64(0), np.int64(self._dealer))

    # OpenSpiel's interface -------------------------------------------------------------
    def current_player(self) -> int:
        if self._returns is not None:
            return TERMINAL
        if self.hand is None or self._pending >= 0:
            return CHANCE
        return self.hand.current_player

    def is_terminal(self) -> bool:
        return self._returns is not None

    def returns(self) -> list[float]:
        return list(self._returns) if self._returns is not None else [0.0, 0.0]

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player():
            return []
        return self.hand.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next card: one of those not dealt yet, or of the stock's cards."""
        if self.hand is None:
            dealt = {os_card(c) for c in self._dealt}
            cards = [c for c in _OS_DECK if c not in dealt]
        else:
            cards = sorted(os_card(c) for c in self.hand.stock())
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]

    def _apply_action(self, action: int) -> None:
        action = int(action)
        self._moves += 1
        self._texts = {}
        if self.hand is None:
            self._deal(action)
            return
        h = self.hand
        if self._pending >= 0:
            card = _OUR[action] if 0 <= action < 52 else -1
            stock = h.stock()
            if card not in stock:
                raise ValueError(f"chance outcome {action} is not a card left in the stock")
            stock.remove(card)
            h.set_stock([card] + stock)
            move, self._pending = self._pending, -1
            h.apply(move)
            self._note(_DRAWN, self._drawer, action)
        else:
            seat, phase = h.current_player, h.phase
            if (phase == S.PHASE_DRAW and action == S.A_DRAW_STOCK) or (
                    phase == S.PHASE_FIRST_UPCARD and action == S.A_PASS and seat == h.dealer):
                # a stock draw (after both passed the upcard, the non-dealer's): the card is chance's
                self._pending, self._drawer = action, seat if phase == S.PHASE_DRAW else 1 - h.dealer
            else:
                h.apply(action)
            self._note(_MOVE, seat, action)
        if h.is_over():
            self._end_of_hand()

    def serialize(self) -> str:
        """This state as text (``STATE_FORMAT``): the game's name with every parameter, then
        the history as OpenSpiel writes it (``player:action``, chance as -1), which
        ``GinsimGame.deserialize_state`` plays again."""
        moves = ",".join(f"{int(h.player)}:{int(h.action)}" for h in self.full_history())
        return f"{STATE_FORMAT}\ngame={self.get_game()}\nhistory={moves}"

    def _action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            return f"chance {format_card(_OUR[action])}" if 0 <= action < 52 else f"chance {action}"
        return S.action_name(action)

    def __str__(self) -> str:
        """Everything in the state, both hands and the stock's order included (for tests and
        debugging: ``observation_string`` is what a player sees)."""
        head = f"hand {self._hand_no + 1}, dealer P{self._dealer}, scores {self._scores[0]}-{self._scores[1]}"
        if self.hand is None:
            return head + f"; dealing: {' '.join(format_card(c) for c in self._dealt)}"
        st = self.hand.state
        pile = pile_of(st)
        mover = "" if self.hand.is_over() else f", P{self.hand.current_player} to act"
        text = (f"{head}; phase {self.hand.phase_name}{mover}"
                f"{'' if self._pending < 0 else f' (a stock card for P{self._drawer})'}; "
                f"P0 {_cards(hand_of(st, 0))}; P1 {_cards(hand_of(st, 1))}; "
                f"pile {' '.join(format_card(int(c)) for c in pile)}; "
                f"stock {' '.join(format_card(c) for c in self.hand.stock())}")
        if self._returns is not None:
            text += f"; returns {self._returns[0]:g} {self._returns[1]:g}"
        return text

    def resample_from_infostate(self, player_id: int, probability_sampler):
        """A state ``player_id`` cannot tell from this one: the opponent's hidden cards dealt
        again from ``mc``'s belief (``_Resampler``), the hand replayed with them."""
        return _Resampler(self, int(player_id), probability_sampler).state()

    # what a player sees (``GinsimObserver``) --------------------------------------------
    def _encode(self, player: int, out: np.ndarray) -> None:
        """``player``'s view through ginsim's one encoder.  While a hand is dealt the view
        holds the player's cards so far and the game scores, no phase."""
        if self.hand is not None:
            out[:] = self.hand.observation_vector(player)
            return
        view = np.zeros(N_VIEW, np.int64)
        view[V.V_PHASE] = S.PHASE_OVER
        view[V.V_HAND] = _mask(self._seat_dealt(player))
        view[V.V_TOP] = view[V.V_DRAWN] = view[V.V_DEADWOOD] = -1
        view[V.V_IS_DEALER] = player == self._dealer
        view[V.V_MY_SCORE], view[V.V_OPP_SCORE] = self._scores[player], self._scores[1 - player]
        rules = self.get_game().rules
        encode_view_nb(view, np.zeros(1, np.int64), np.int64(rules.target_score), out)

    def text(self, player: int, perfect_recall: bool) -> str:
        """``player``'s observation string (``perfect_recall``: its information state string),
        made once per state."""
        key = (player, perfect_recall)
        if key not in self._texts:
            self._texts[key] = self._record_text(player) if perfect_recall else self._view_text(player)
        return self._texts[key]

    def _view_text(self, player: int) -> str:
        game = self.get_game()
        head = f"P{player}"
        if game.whole_game:
            head += f", hand {self._hand_no + 1}, scores {self._scores[player]}-{self._scores[1 - player]} " \
                    f"(to {game.rules.target_score})"
        if self._returns is not None:
            head += f"; over, returns {self._returns[player]:g}"
        if self.hand is None:
            return head + f"; being dealt: {' '.join(format_card(c) for c in self._seat_dealt(player)) or '-'}"
        obs = self.hand.observation(player)
        mover = "chance (a stock card)" if self._pending >= 0 else f"P{obs['current_player']}"
        lines = [f"{head}; {'dealer' if obs['is_dealer'] else 'non-dealer'}; phase {obs['phase']}"
                 + ("" if self.hand.is_over() else f", {mover} to act"),
                 f"hand {' '.join(obs['hand'])} (deadwood {obs['deadwood']})",
                 f"pile {' '.join(obs['pile']) or '-'}; stock {obs['stock_size']}; knock limit {obs['knock_limit']}",
                 f"opponent took {' '.join(obs['opponent_took']) or '-'}; discarded "
                 f"{' '.join(obs['opponent_discards']) or '-'}; declined {' '.join(obs['opponent_declined']) or '-'}"]
        if obs["drawn"] is not None:
            lines.append(f"drawn {obs['drawn']}; may discard {' '.join(obs['legal_discards'])}")
        if "knocker_melds" in obs:
            m = obs["knocker_melds"]
            lines.append(f"knocker's melds: sets {' '.join(m['sets']) or '-'}, runs {' '.join(m['runs']) or '-'}; "
                         f"deadwood {m['deadwood']}")
        if "result" in obs:
            r = obs["result"]
            lines.append(f"result: {r['outcome']}, P{r['winner']} scores {r['points']}" if r["winner"] >= 0
                         else f"result: {r['outcome']}, no score")
        return "\n".join(lines)

    def _record_text(self, player: int) -> str:
        parts = [f"{SHORT_NAME} P{player}"]
        parts += [past[player] for past in self._past]
        parts.append(self._hand_text(player))
        parts.append("now: " + self.text(player, False))
        return "\n".join(parts)

    def _hand_text(self, player: int) -> str:
        """This hand as ``player`` saw it: its own cards, every public event, its own stock
        draws; the knocker's cards once spread, both hands at a scored end."""
        lines = [f"hand {self._hand_no + 1}, dealer P{self._dealer}"]
        if self.hand is None:
            lines.append("dealt " + " ".join(format_card(c) for c in self._seat_dealt(player)))
            if len(self._dealt) == 21:
                lines.append(f"upcard {format_card(self._dealt[20])}")
            return "\n".join(lines)
        st = self.hand.state
        lines.append("dealt " + " ".join(format_card(c) for s, e, c in self.hand.events if e == "deal" and s == player))
        for seat, event, value in self.hand.events:
            line = _event_text(player, seat, event, value, st)
            if line:
                lines.append(line)
        result = result_of(st)
        if result is not None and result.outcome != "dead":
            lines.append(f"hands shown: P0 {_cards(hand_of(st, 0))}; P1 {_cards(hand_of(st, 1))}")
        return "\n".join(lines)

    # the deal and the game ---------------------------------------------------------------
    def _seat_dealt(self, seat: int) -> list[int]:
        return self._dealt[10 * seat:10 * seat + 10]

    def _deal(self, action: int) -> None:
        """One card of the deal (OpenSpiel's order: ten to player 0, ten to player 1, the
        upcard); with the upcard the hand starts: a ``Hand`` dealt those cards, its stock the
        other cards (their order is chance's, drawn at each stock draw)."""
        card = _OUR[action] if 0 <= action < 52 else -1
        if card < 0 or card in self._dealt:
            raise ValueError(f"chance outcome {action} is not a card left to deal")
        self._dealt.append(card)
        n = len(self._dealt)
        owner = 0 if n <= 10 else 1 if n <= 20 else -1
        if n == 21:
            d = self._dealer
            non_dealer, dealer = self._seat_dealt(1 - d), self._seat_dealt(d)
            stock = [int(c) for c in DECK if int(c) not in self._dealt]
            deck = [c for pair in zip(non_dealer, dealer) for c in pair] + [card] + stock
            # the seats' streams (used only by ginsim strategies asked to play, StrategyBot): the
            # hand's number in the game and its cards
            seed = derive_seed(self._hand_no, ",".join(map(str, self._dealt)))
            self.hand = Hand(self.get_game().rules, seed=seed, deck=deck, dealer=d, scores=self._scores)
        self._note(_DEALT, owner, action)

    def _at_hand_start(self) -> GinsimState:
        """A new state holding this game as it stood when this hand's first card was dealt
        (the finished hands, scores and dealer), for ``_Resampler`` to play this hand again on
        its Python side: its pyspiel history is empty."""
        other = self.get_game().new_initial_state()
        other._dealer, other._scores, other._hand_no = self._dealer, self._scores, self._hand_no
        other._moves = other._hand_start = self._hand_start
        other._past = list(self._past)
        other._game_row = None if self._game_row is None else self._game_row.copy()
        return other

    def _note(self, kind: int, seat: int, action: int) -> None:
        """Record a history entry of this hand with the cards unknown to each seat after it
        (what ``_Resampler`` may give the opponent)."""
        self._trail.extend((kind, seat, action, self._unknown(0), self._unknown(1)))

    def _unknown(self, seat: int) -> int:
        """The cards ``seat`` cannot place: not its own, not in the pile, not taken from the
        pile by the opponent, not spread on the table."""
        if self.hand is None:
            return _DECK_MASK & ~_mask(self._seat_dealt(seat)) & ~_mask(self._dealt[20:])
        st = self.hand.state
        other = 1 - seat
        view = view_of(st, seat)
        unknown = _DECK_MASK & ~int(view[V.V_HAND]) & ~int(view[V.V_PILE_MASK]) & ~int(view[V.V_OPP_TOOK])
        result = result_of(st)
        if (phase_of(st) == S.PHASE_DEFEND and knocker_of(st) == other) or (
                result is not None and result.outcome != "dead"):
            unknown &= ~hand_of(st, other)
        return unknown

    def _end_of_hand(self) -> None:
        """A single hand ends the game; in a whole game the hand is chained into the game
        (``end_of_hand_nb``) and the next hand is dealt, or the game ends with its totals."""
        h = self.hand
        game = self.get_game()
        if not game.whole_game:
            self._returns = [float(x) for x in h.returns()]
            return
        row = self._game_row
        dealer = int(end_of_hand_nb(row, h.record(), np.int64(MAX_HANDS_PER_GAME), game.rules_array))
        if dealer < 0:
            diff = float(row[G_SCORE0] - row[G_SCORE1])
            self._returns = [diff, -diff]
            return
        self._past.append((self._hand_text(0), self._hand_text(1)))
        self.hand, self._dealt, self._dealer = None, [], dealer
        self._scores = (int(row[G_POINTS0]), int(row[G_POINTS1]))
        self._hand_no += 1
        self._hand_start = self._moves
        self._trail = array("q")


def _mask(cards) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


def _cards(mask) -> str:
    return " ".join(format_card(c) for c in mask_cards(int(mask))) or "-"


def _event_text(player: int, seat: int, event: str, value: int, st: np.ndarray) -> str:
    """One event of ginsim's trace as ``player`` may know it, in the one narrator's words
    (``simulator.core.narrate.tell``, told to ``player``: a stock card only to its drawer): ""
    for the deal (listed apart), and with the knocker's melds the cards it spreads (all ten,
    docs/rules.md#laying-out-and-laying-off)."""
    text = tell((seat, event, value), ("P0", "P1"), you=player)
    if event == "sets":
        text = f"P{seat} spreads {_cards(hand_of(st, seat))}\n{text}"
    return text


# --------------------------------------------------------------------------- resampling
class _Resampler:
    """``resample_from_infostate(player)``: a state the player cannot tell from ``state``.

    Only this hand is dealt again (a finished hand's cards were shown or no longer matter;
    its history is kept).  The opponent's *private* cards are those of its chance entries
    (its dealt cards, its stock draws); the player saw some of them later (a discard, the
    knocker's spread hand) and the rest it still holds unseen.  The unseen ones are drawn as
    ``mc`` draws them (``strategies.mc.opponent_hidden_nb`` on the player's view: the belief's
    weights, the best of ``mc``'s tries), then every private card is given a place among the
    opponent's chance entries (a matching: a card may fill an entry only if the player could
    not place that card from before the entry until it was shown, or until now), and the
    hand is replayed with those cards.  The opponent's private decisions follow its new
    cards: it plays on wherever it now may knock and the true hand showed no knock.  A world
    the replay refuses (a big gin the true hand did not have, a knock it now could not make)
    is drawn again; after ``BELIEF_TRIES`` the unseen cards are drawn uniformly.  The result
    is checked: the same player to act and the same information state string."""

    BELIEF_TRIES = 8
    TRIES = 100

    def __init__(self, state: GinsimState, player: int, sampler):
        if player not in (0, 1):
            raise ValueError(f"resample_from_infostate: player must be 0 or 1, got {player!r}")
        self.src, self.p, self.q = state, player, 1 - player
        seed = int(float(sampler()) * 2.0 ** 53)
        self.rng = python_random(seed)
        self.stream = np.array([golden_scramble(seed)], np.uint64)  # mc's draws (numba)

    def state(self) -> GinsimState:
        src = self.src
        if src.is_terminal():
            return src.clone()
        trail = np.frombuffer(src._trail, np.int64).reshape(-1, _ENTRY)
        for attempt in range(self.TRIES):
            places = self._places(trail, belief=attempt < self.BELIEF_TRIES)
            if places is None:
                continue
            world = self._replay(trail, places)
            if world is not None:
                return world
        raise RuntimeError(f"resample_from_infostate: no deal of the opponent's cards agrees with player {self.p}'s "
                           f"information after {self.TRIES} tries")

    def _places(self, trail: np.ndarray, belief: bool) -> dict | None:
        """The opponent's private cards: {trail index of its chance entry: our card code}, or
        None when this draw cannot be placed."""
        n, q = len(trail), self.q
        unknown = np.empty(n + 1, np.int64)
        unknown[0] = _DECK_MASK
        unknown[1:] = trail[:, 3 + self.p]
        slots = [j for j in range(n) if trail[j, 0] != _MOVE and trail[j, 1] == q]
        shown = sorted(((c, u) for u in range(n) if trail[u, 0] == _MOVE and trail[u, 1] == q
                        for c in mask_cards(int(unknown[u] & ~unknown[u + 1]))), key=lambda x: x[1])
        k = len(slots) - len(shown)
        # seen[r, c]: rows before r (row 0: before the hand; row j + 1: after entry j) where the
        # player could place card c; a card fills entry t until it is shown at entry u (or now,
        # u = n) only if the player could place it at none of the rows t .. u
        bits = (unknown[:, None] >> np.arange(64, dtype=np.int64)) & 1
        seen = np.zeros((n + 2, 64), np.int64)
        np.cumsum(bits == 0, axis=0, out=seen[1:])

        def fits(c: int, u: int, t: int) -> bool:
            return t < u and seen[u + 1, c] == seen[t, c]

        weights = self._weights(k)
        if belief:
            hidden = self._mc_hidden(int(unknown[n]), k, weights)
            if hidden is None:
                return None
            items = shown + [(c, n) for c in hidden]
            at = np.array(slots, np.int64)
            options = [[t for t in at[(at < u) & (seen[at, c] == seen[u + 1, c])].tolist()] for c, u in items]
            return self._match(items, slots, options)
        return self._build(shown, slots, fits, int(unknown[n]), n, weights)

    def _weights(self, k: int):
        """The belief's weights of the opponent's candidate cards (``strategies.belief``) on
        the player's view, or None before the hand is dealt (then uniform)."""
        hand = self.src.hand
        if k <= 0 or hand is None:
            return None
        view = hand.view(self.p)
        weights = np.empty(64, np.float64)
        cand, _ = weights_nb(view, THETA, weights)
        return view, int(cand), weights

    def _mc_hidden(self, candidates: int, k: int, belief) -> list[int] | None:
        """The ``k`` cards the opponent holds unseen, drawn as ``mc`` draws them
        (``opponent_hidden_nb``: the belief's weights, the best of its tries)."""
        if k <= 0:
            return []
        if belief is None:
            return self.rng.sample(mask_cards(candidates), k)
        view, cand, weights = belief
        tries = opponent_tries_nb(np.float64(MC_PARAMS["skill"]), view)
        drawn = int(opponent_hidden_nb(np.int64(cand & candidates), np.int64(k), weights,
                                       np.int64(view[V.V_OPP_TOOK]), tries, self.stream))
        return mask_cards(drawn) if bin(drawn).count("1") == k else None

    def _match(self, items: list, slots: list[int], options: list[list[int]]) -> dict | None:
        """A place for every (card, shown at) item among the slots, ``options[i]`` the slots
        item i fits (Kuhn's augmenting paths, each item's slots tried in a random order)."""
        if len(items) != len(slots):
            return None
        for opts in options:
            self.rng.shuffle(opts)
        taken: dict[int, int] = {}  # slot -> item index

        def place(i: int, visited: set) -> bool:
            for t in options[i]:
                if t not in visited:
                    visited.add(t)
                    if t not in taken or place(taken[t], visited):
                        taken[t] = i
                        return True
            return False

        if not all(place(i, set()) for i in range(len(items))):
            return None
        return {t: items[i][0] for t, i in taken.items()}

    def _build(self, shown: list, slots: list[int], fits, candidates: int, n: int, belief) -> dict | None:
        """Places built slot by slot, earliest first, when ``mc``'s draw cannot be placed
        (after a reshuffle the opponent can hold a reshuffled card only from a later draw):
        each slot takes the shown card with the earliest showing that fits it, else a card
        still unseen that fits it, drawn in proportion to the belief's weights (a card
        unseen since an earlier slot fits every later one)."""
        places: dict[int, int] = {}
        waiting = list(range(len(shown)))
        free = []
        for t in sorted(slots):
            fit = [i for i in waiting if fits(*shown[i], t)]
            if fit:
                i = min(fit, key=lambda i: shown[i][1])
                waiting.remove(i)
                places[t] = shown[i][0]
            else:
                free.append(t)
        if waiting:
            return None
        cards = mask_cards(candidates)
        held: set[int] = set()  # (a shown card may be held again after a reshuffle: only these exclude)
        for t in free:
            avail = [c for c in cards if c not in held and fits(c, n, t)]
            if not avail:
                return None
            w = None if belief is None else [max(belief[2][c], 1e-12) for c in avail]
            places[t] = self.rng.choices(avail, weights=w)[0]
            held.add(places[t])
        return places

    def _replay(self, trail: np.ndarray, places: dict) -> GinsimState | None:
        """This hand again from its start with the opponent's cards ``places``, played on the
        Python side (``_apply_action``) of a state holding the game up to this hand; None when
        the world parts from what the player saw.  The result is made as pyspiel makes a
        deserialized state, with the world's history: the game's so far, then this hand's."""
        src, q = self.src, self.q
        world = src._at_hand_start()
        moves: list[tuple[int, int]] = []

        def play(player: int, action: int) -> None:
            world._apply_action(action)
            moves.append((player, action))

        for j in range(len(trail)):
            kind, seat, action = (int(x) for x in trail[j, :3])
            if kind != _MOVE:
                if world.current_player() != CHANCE:
                    return None
                try:  # (a card not left to deal or draw is refused)
                    play(CHANCE, os_card(places[j]) if j in places else action)
                except ValueError:
                    return None
                continue
            if seat == q and action == S.A_NO_KNOCK:  # private: the world's opponent may not have had the choice
                if self._may_knock(world):
                    play(q, action)
                continue
            if not (seat == q and action == S.A_KNOCK):
                self._play_on(play, world)
            if world.current_player() != seat or action not in world.hand.legal_actions():
                return None
            play(seat, action)
        if self._may_knock(src) != self._may_knock(world):
            if self._may_knock(src):
                return None
            self._play_on(play, world)
        if world.current_player() != src.current_player() or world.text(self.p, True) != src.text(self.p, True):
            return None
        history = [(int(h.player), int(h.action)) for h in src.full_history()[:src._hand_start]] + moves
        return _state_from(src.get_game(), history, world.__dict__)

    def _may_knock(self, state: GinsimState) -> bool:
        """The opponent decides whether to knock (a private decision point)."""
        return (state.current_player() == self.q and state.hand is not None
                and state.hand.phase == S.PHASE_KNOCK)

    def _play_on(self, play, world: GinsimState) -> None:
        while self._may_knock(world):
            play(self.q, S.A_NO_KNOCK)


def _state_from(game: pyspiel.Game, history: list[tuple[int, int]], fields: dict) -> GinsimState:
    """A ``python_ginsim`` state with this history ((player, action) pairs) and these fields,
    made by pyspiel's own deserializer for Python games (``pyspiel.Game.deserialize_state``,
    not ``GinsimGame``'s) from the text it reads (the history, the move number and the
    pickled ``__dict__``): the history is taken as it is, not replayed.  The text is made
    here from the resampled world's own fields, never read from outside."""
    fields = dict(fields, _texts={})
    text = "\n".join([
        "history=" + ",".join(f"{p}:{a}" for p, a in history),
        f"move_number={len(history)}",
        "__dict__=" + base64.b64encode(pickle.dumps(fields)).decode("ascii"),
    ])
    return pyspiel.Game.deserialize_state(game, text)


#: the first line of a serialized ``python_ginsim`` state (``GinsimState.serialize``)
STATE_FORMAT = "python_ginsim state 1"
_INTEGER = re.compile(r"-?[0-9]{1,9}")


def _read_state_text(game: pyspiel.Game, text) -> list[tuple[int, int]]:
    """The history of a serialized state (``STATE_FORMAT``) of ``game``, each entry two
    integers; one-line ``ValueError`` for a text of another format or game, or one too long
    for the game."""
    if not isinstance(text, str):
        raise ValueError(f"python_ginsim state: must be the text GinsimState.serialize writes, got "
                         f"{type(text).__name__}")
    lines = text.split("\n", 2)
    if len(lines) != 3 or lines[0] != STATE_FORMAT or not lines[1].startswith("game=") \
            or not lines[2].startswith("history=") or "\n" in lines[2]:
        raise ValueError(f"python_ginsim state: not the text GinsimState.serialize writes ({STATE_FORMAT!r}, then "
                         "game=NAME and history=PLAYER:ACTION,...); OpenSpiel's pickled form is not read")
    if lines[1][5:] != str(game):
        raise ValueError(f"python_ginsim state: a state of {lines[1][5:]:.600}, not of {game}")
    most = game.max_game_length()
    if len(lines[2]) > 16 * most:
        raise ValueError(f"python_ginsim state: {len(lines[2]):,} characters of history, longer than a game of at "
                         f"most {most:,} moves")
    entries = lines[2][8:].split(",") if lines[2][8:] else []
    if len(entries) > most:
        raise ValueError(f"python_ginsim state: {len(entries):,} moves, more than the game's {most:,}")
    history = []
    for k, entry in enumerate(entries):
        player, sep, action = entry.partition(":")
        if not (sep and _INTEGER.fullmatch(player) and _INTEGER.fullmatch(action)):
            raise ValueError(f"python_ginsim state: history[{k}]: must be PLAYER:ACTION (two integers), got "
                             f"{entry!r:.40}")
        history.append((int(player), int(action)))
    return history
