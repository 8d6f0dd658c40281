"""docs/experiments.md's table of an experiment file's keys, generated from their
declaration (``simulator.run.experiment.SCHEMA``) by ``simulator.run.config``::

    python -m simulator.run.docs_tables            # rewrite the table
    python -m simulator.run.docs_tables --check    # exit 1 when it is stale
"""

from __future__ import annotations

import sys

from . import config, experiment

PROG = "python -m simulator.run.docs_tables"


def main(argv: list[str] | None = None) -> int:
    return config.main(argv, {config.ROOT / "docs" / "experiments.md": [experiment.SCHEMA]}, PROG)


if __name__ == "__main__":
    sys.exit(main())
