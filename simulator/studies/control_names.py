"""The names of the control variates ginsim can play beside a matchup.

``simulator.studies.controls`` plays them and ``simulator.studies.claims_file`` lets a claim
name one as its estimator; both read the names here, so the vocabulary is written once and
neither module imports the other.

* ``draws``: the luck of the matchup's own stock draws (AIVAT's chance correction);
* ``self``: each player's self-play on the same mirrored pairs; ``self_a`` and ``self_b`` only
  A's or only B's;
* ``draws+self`` and so on: the draws' luck with a self-play;
* ``draws+swap``: the draws' luck with the same deals played again with their two hands
  exchanged; in a game, each hand played again so from the same scores;
* ``draws+replay_b`` (whole games only): the draws' luck with each hand of the game replayed
  from the same scores by B's player in both seats, as dealt, with its hands exchanged and from
  other decks: for a player whose decisions cost far more than B's and play much like B's;
* ``draws+swap+self`` (``+self_a``, ``+self_b``) and ``draws+swap+replay_b`` (whole games only):
  the hands exchanged with a self-play or with B's replays, all fitted together;
* ``draws+deal``: a seat edge's (per hand or per game), the draws' and the deal's luck counted
  for the first mover; ``draws+deal+swap`` adds the same deals (games) with their two hands
  exchanged.
"""

#: the self-play controls: name -> whose self-play (A's, B's)
SELF_PLAY = {"self": (True, True), "self_a": (True, False), "self_b": (False, True)}
#: every control a matchup can be played with
#: the hands of a deal, or of each hand of a game, exchanged and played again
SWAP = "swap"
#: each hand of a game replayed by B's player in both seats
REPLAY_B = "replay_b"
CONTROLS = ("draws", *SELF_PLAY, *(f"draws+{name}" for name in SELF_PLAY), f"draws+{SWAP}", f"draws+{REPLAY_B}",
            *(f"draws+{SWAP}+{name}" for name in (*SELF_PLAY, REPLAY_B)))
#: the controls defined for whole games only (a mirrored pair of deals replayed by one player in
#: both seats sets each replay against itself)
GAMES_ONLY = tuple(name for name in CONTROLS if REPLAY_B in name.split("+"))
#: the controls of a seat edge (the first mover's net points per hand, or share of games won):
#: its draws' luck and the deal's luck, both counted for the first mover (a self-play control has
#: nothing to add there); with ``+swap``, also the same deals (every hand of the same games) played
#: again with their two hands exchanged
SEAT_EDGE_CONTROL = "draws+deal"
SEAT_EDGE_SWAP = "draws+deal+swap"
SEAT_EDGE_CONTROLS = (SEAT_EDGE_CONTROL, SEAT_EDGE_SWAP)
