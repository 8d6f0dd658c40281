"""Studies that go beyond one experiment, built on the engine and the runner.

* ``tune``: tunes a strategy's parameters with Optuna (``ginsim tune``), resumable;
* ``inference``: fits and calibrates the belief model the strong players read their
  opponent with (``python -m simulator.studies.inference``);
* ``strong_study``: the strong players' supplement (search speed, legality, belief
  calibration tables) written next to their experiment (``python -m simulator.studies.strong_study``);
* ``gamevalue``: learns and checks the game-value table of ``strategies.gamevalue``.
"""
