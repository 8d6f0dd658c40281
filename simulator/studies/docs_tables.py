"""The tables of the studies' keys, generated from their declarations by
``simulator.run.config``: docs/experiments.md's of a claims file
(``simulator.studies.claims_file.CLAIMS_FILE_SCHEMA`` and ``CLAIM_SCHEMA``) and of a
decision-values spec (``simulator.studies.decision_values.SCHEMA`` and ``BLOCK_SCHEMA``),
docs/equilibrium.md's of an equilibrium spec (``simulator.studies.equilibrium.SCHEMA``), a
class spec's and a table spec's (``simulator.studies.class_game.SCHEMA``,
``simulator.studies.knock_table.SCHEMA``)::

    python -m simulator.studies.docs_tables            # rewrite the tables
    python -m simulator.studies.docs_tables --check    # exit 1 when they are stale
"""

from __future__ import annotations

import sys

from ..run import config
from . import class_game, claims_file, decision_values, equilibrium, knock_table

PROG = "python -m simulator.studies.docs_tables"


def main(argv: list[str] | None = None) -> int:
    schemas = [claims_file.CLAIMS_FILE_SCHEMA, claims_file.CLAIM_SCHEMA, decision_values.SCHEMA,
               decision_values.BLOCK_SCHEMA]
    pages = {config.ROOT / "docs" / "experiments.md": schemas,
             config.ROOT / "docs" / "equilibrium.md": [equilibrium.SCHEMA, class_game.SCHEMA, knock_table.SCHEMA]}
    return config.main(argv, pages, PROG)


if __name__ == "__main__":
    sys.exit(main())
