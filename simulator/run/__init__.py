"""Running experiments: from a TOML file to a trustworthy run directory.

The stage after ``simulator.api``: it turns an experiment into
cells and chunks, plays them with the engine on local processes or a cluster, and writes
each chunk atomically with its provenance, so a run can be resumed, checked and
reproduced.

* ``experiment``: the experiment file format (TOML), validated, and its cells;
* ``runner``: plays the cells chunk by chunk (threads, processes or dask) and resumes;
* ``rundir``: the run directory: manifest, code fingerprint, locks, chunk names and checks;
* ``replay``: one recorded deal replayed move by move (``ginsim replay``).
"""
