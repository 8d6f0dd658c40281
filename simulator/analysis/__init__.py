"""Analysis: from a run's rows to statistics, figures and the report.

The stage after ``simulator.run``.

* ``stats``: per-cell statistics with 95% intervals (Student t over independent units,
  Wilson for proportions, delta method for ratios), rankings and matrices, streamed over a
  run's files (``scan_run``) or computed on frames;
* ``summary``: the printed summary of a run directory (``ginsim run``, ``ginsim show``);
* the report (``ginsim report``), in parts: ``loading`` (what it reads from a run),
  ``figures``, ``tables``, ``rendering`` (the document model, figure files, Markdown and
  HTML, atomic writes: the public API other reports use) and ``report``, which assembles
  them (``write_report``).
"""
