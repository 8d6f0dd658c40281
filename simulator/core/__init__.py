"""The game itself: cards, melds, scores, rule variants, the hand's state machine and what a
seat may see.

The stage above ``simulator.infra`` (infra -> core -> strategies -> engine -> api -> run ->
analysis -> studies, env, tools -> cli): it imports no stage but ``simulator.infra`` (how its
kernels compile).  Exact and independent of how hands are played: the engine calls these
kernels, strategies read them, and ``simulator``'s public functions (``min_deadwood``,
``best_arrangement``, ``score_hand``...) wrap them for people.

* ``cards``: the card and hand-mask encoding, parsing and formatting;
* ``melds``: melds, deadwood, best discards, layouts and layoffs (numba kernels);
* ``scoring``: one hand's score, the knock limit of a deal, game totals and the next dealer;
* ``rules``: rule variants as data (``Rules``, presets, the int64 vector kernels read);
* ``rules_api``: the rules core with readable arguments (cards as strings, named results);
* ``rng``: counter-based random streams keyed by (seed, deal indices);
* ``state``: one hand as a steppable state machine (the state array, its phase functions,
  the action codes, ``apply_action_nb``, ``legal_actions_nb``);
* ``hand_reading``: a hand state read by name, for everything outside the state machine;
* ``view_fields``: the view declared once (the decision points, each slot's Python name,
  kind and RL encoding, the RL observation's blocks);
* ``view_fill``: what a seat sees (``fill_view_nb``) and a state consistent with it
  (``determinize_nb``);
* ``view``: the view contract a strategy decides on (``strategies.view`` re-exports it);
* ``presentation``: a view shown in Python (properties, records, one line of text);
* ``decisions``: the decision points, declared once (name, strategy function, answer);
* ``narrate``: a hand's events in words;
* ``layouts``: every integer layout as a table, generating ``constants`` (plain constants);
* ``errors``: ``StrategyError`` and the one-line message of each error code;
* ``records``: the row schemas.
"""
