"""The engine: hands played by strategies, one at a time or in parallel batches.

Stage 2 of the flow (core -> engine -> run -> analysis): it sequences the rules core into
turns and phases and records what happens, one int64 row per hand or game (the columns:
``simulator.core.records``).

* ``state``: one hand as a steppable state machine (the state array, its phase functions,
  the action codes, ``apply_action_nb``, ``legal_actions_nb``, ``fill_view_nb``);
* ``kernels``: strategies playing that state machine (``play_hand_nb``, rollouts with
  ``play_out_nb``) and the batch entry points over blocks of deals and games;
* ``blocks``: those blocks on a pool of threads (the kernels release the GIL);
* ``hand``: ``simulator.Hand``, one hand to step through from Python, reproducing
  ``simulate``'s rows;
* ``pydriver``: deals and games where one seat is a Python player;
* ``_cache``: where numba keeps the compiled kernels (one directory per source version).
"""
