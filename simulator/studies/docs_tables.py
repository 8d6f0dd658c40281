"""docs/experiments.md's tables of a claims file's keys, generated from their declaration
(``simulator.studies.confirm.CLAIMS_FILE_SCHEMA`` and ``CLAIM_SCHEMA``), and
docs/equilibrium.md's of a class spec's and a table spec's
(``simulator.studies.class_game.SCHEMA``, ``simulator.studies.knock_table.SCHEMA``), by
``simulator.run.config``::

    python -m simulator.studies.docs_tables            # rewrite the tables
    python -m simulator.studies.docs_tables --check    # exit 1 when they are stale
"""

from __future__ import annotations

import sys

from ..run import config
from . import class_game, confirm, knock_table

PROG = "python -m simulator.studies.docs_tables"


def main(argv: list[str] | None = None) -> int:
    schemas = [confirm.CLAIMS_FILE_SCHEMA, confirm.CLAIM_SCHEMA]
    return config.main(argv, {config.ROOT / "docs" / "experiments.md": schemas,
                              config.ROOT / "docs" / "equilibrium.md": [class_game.SCHEMA, knock_table.SCHEMA]}, PROG)


if __name__ == "__main__":
    sys.exit(main())
