"""The engine: hands played by strategies, one at a time or in parallel batches.

The stage after ``simulator.core`` and ``strategies``: it plays strategies on the hand state
machine (``simulator.core.state``) and records what happens, one int64 row per hand or game
(the columns: ``simulator.core.records``).

* ``kernels``: strategies playing that state machine (``play_hand_nb``, rollouts with
  ``play_out_nb``) and the batch entry points over blocks of deals and games;
* ``select``: which engine plays a call (one routing what the process plays, or every strategy) and the generated engines;
* ``hand``: ``simulator.Hand``, one hand to step through from Python, reproducing
  ``simulate``'s rows;
* ``pydriver``: deals and games where one seat is a Python player;
* ``columns``: the records as DataFrame and Arrow columns.
"""
