"""The view contract every strategy (built-in or plug-in) is written against: the ``V_*``
slots of the view vector, the ``PHASE_*`` decision points, ``DEFEND_BEST``,
``DEFEND_NO_LAYOFFS``, ``N_PARAMS`` and ``N_MEMORY``.  They are declared with the hand state machine, in ``simulator.core.view``;
this module re-exports them so that a strategy imports them from its own package."""

from simulator.core.view import *  # noqa: F401,F403  (re-exported: every name of the view contract)
