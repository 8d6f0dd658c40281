"""Play inside other engines.

``simulator.interop.openspiel`` (needs the optional extra ``openspiel``: ``pip install
'ginsim-rummy[openspiel]'``) plays ginsim strategies inside OpenSpiel's ``gin_rummy`` as
``pyspiel.Bot`` objects (``GinsimBot``), plays OpenSpiel bots as ginsim strategies
(``OpenSpielPlayer``; importing the module registers OpenSpiel's simple bot as the
strategy ``openspiel_simple``) and matches two players on the same decks inside either
engine (``arena``; ``ginsim arena`` on the command line).  docs/openspiel.md describes it.

This package sits in the top library layer, beside ``simulator.studies``, ``simulator.env``
and ``simulator.tools``: nothing below it imports it.
"""
