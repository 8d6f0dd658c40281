"""The engine: hands played by strategies, one at a time or in parallel batches.

The stage after ``simulator.core`` and ``strategies``: it plays strategies on the hand state
machine (``simulator.core.state``) and records what happens, one int64 row per hand or game
(the columns: ``simulator.core.records``).

* ``work``: the work row of a match (the hand, each seat's strategy, memory, stream and lent
  copies), and the one way to allocate it, seat a matchup, start a deal or a game's hand and
  chain a game's hands;
* ``loop``: the one loop that plays a hand from a work row, asking the seats' strategies,
  until a stopping condition (``run_until_nb``), and its steps (ask, decode, apply, check);
* ``kernels``: the batch entry points over blocks of deals and games;
* ``select``: which engine plays a call (one routing what the process plays, or every
  strategy) and the generated engines;
* ``factory``: an engine's modules rendered from the loop and the kernels (templates with
  binding points), without copying their text;
* ``hand``: ``simulator.Hand``, one hand to step through from Python, reproducing
  ``simulate``'s rows, and ``Game``, a whole game of them;
* ``pydriver``: deals and games where one seat is a Python player;
* ``columns``: the records as DataFrame and Arrow columns.
"""
