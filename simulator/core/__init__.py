"""The rules core: what a card, a meld, a deadwood count and a hand's score are.

Stage 1 of the flow (core -> engine -> run -> analysis).  Exact and independent of how
hands are played: the engine calls these kernels, strategies read them, and
``simulator``'s public functions (``min_deadwood``, ``best_arrangement``, ``score_hand``...)
wrap them for people.

* ``cards``: the card and hand-mask encoding, parsing and formatting;
* ``melds``: melds, deadwood, best discards, layouts and layoffs (numba kernels);
* ``scoring``: one hand's score, the knock limit of a deal, game totals and the next dealer;
* ``rules``: rule variants as data (``Rules``, presets, the int64 vector kernels read);
* ``rules_api``: the rules core with readable arguments (cards as strings, named results);
* ``rng``: counter-based random streams keyed by (seed, deal indices).
"""
