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

try:
    import pyspiel  # noqa: F401  (every module of this package needs it)
except ImportError as exc:  # pragma: no cover - depends on the machine
    raise ImportError("simulator.interop.openspiel needs OpenSpiel (the open_spiel package): "
                      "pip install 'ginsim-rummy[openspiel]'") from exc

from .arena import ARENA_SEED_LIMIT, ArenaResult, arena, arena_seed, hand_file, wall_census
from .bot import GinsimBot
from .cards import (
    CHANCE, DRAW_STOCK, DRAW_UPCARD, KNOCK, MELD_BASE, N_DEAL, PASS, UTILS, InteropError, Phase, best_layoffs,
    best_meld_action, card_names, game_for, meld_ids, os_card, os_cards, our_card, rules_for, split_run,
)
from .histories import from_openspiel, histories_to_openspiel, openspiel_to_histories, to_openspiel
from .player import OPENSPIEL_BOTS, OpenSpielPlayer, OpenSpielSimple
from .replay import CONVERT_REFUSALS, ConvertRefusal, EventReplay, ReplayMismatch, ReplaySkip, replay_events

__all__ = ["GinsimBot", "OpenSpielPlayer", "OpenSpielSimple",
           "ArenaResult", "InteropError", "arena", "wall_census", "game_for", "rules_for", "os_card", "our_card",
           "os_cards", "card_names", "split_run", "meld_ids", "best_layoffs", "best_meld_action", "OPENSPIEL_BOTS",
           "ARENA_SEED_LIMIT", "arena_seed", "ConvertRefusal", "CONVERT_REFUSALS", "to_openspiel", "from_openspiel",
           "histories_to_openspiel", "openspiel_to_histories", "hand_file", "replay_events", "EventReplay",
           "ReplayMismatch", "ReplaySkip",
           "CHANCE", "DRAW_STOCK", "DRAW_UPCARD", "KNOCK", "MELD_BASE", "N_DEAL", "PASS", "UTILS", "Phase"]
