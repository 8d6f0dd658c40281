"""The limits every input of a run, a tuning or a confirmation shares, defined once.

Experiments (``simulator.run.experiment``), run manifests (``simulator.run.rundir``), tuning
specs (``simulator.studies.tune``) and the command line check their sizes and seeds against
these, and their one-line errors name them from here.
"""

#: the most deals (or games) one cell, or one tuning candidate, may ask for: 2**PER_CELL_BITS,
#: so deal numbers stay far inside int64
PER_CELL_BITS = 40
MAX_PER_CELL = 2**PER_CELL_BITS
#: seeds of experiments, tunings and confirmations: 0 .. 2**SEED_BITS - 1 (``derive_seed``
#: keeps 63 bits of a hash, and the engine takes a signed 64-bit seed)
SEED_BITS = 63
SEED_LIMIT = 2**SEED_BITS
#: the allowed seeds in words, for one-line errors
SEED_TEXT = f"an integer from 0 to 2**{SEED_BITS} - 1"
#: the default parent of a run's, study's or tuning's output directory (under the current directory)
RESULTS_DIR = "results"
