"""Command-line tools that are not experiments.

* ``play``: play a game against a bot in the terminal (``ginsim play``);
* ``bench``: the engine's speed benchmarks (``ginsim bench``).
"""
