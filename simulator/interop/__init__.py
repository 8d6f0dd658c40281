"""Play inside other engines.

``simulator.interop.openspiel`` (needs the optional extra ``openspiel``: ``pip install
'ginsim-rummy[openspiel]'``) plays ginsim strategies inside OpenSpiel's ``gin_rummy`` as
``pyspiel.Bot`` objects (``GinsimBot``), plays OpenSpiel bots as ginsim strategies
(``OpenSpielPlayer``; importing the module registers OpenSpiel's simple bot as the
strategy ``openspiel_simple``) and matches two players on the same decks inside either
engine (``arena``; ``ginsim arena`` on the command line).  ``simulator.interop.ospiel_game``
registers every ginsim variant as the OpenSpiel game ``python_ginsim`` (importing it
registers it), and ``simulator.interop.ospiel_play`` runs OpenSpiel's algorithms on it
(ISMCTS against a ginsim strategy, a ginsim rollout evaluator, its speed for ``ginsim
bench``).  docs/openspiel.md describes them.

This package sits in the top library layer, beside ``simulator.studies``, ``simulator.env``
and ``simulator.tools``: nothing below it imports it.
"""
