"""docs/tuning.md's tables of a tuning spec's keys, generated from their declaration
(``simulator.studies.tune.spec.SCHEMA`` and its sub-tables) by ``simulator.run.config``::

    python -m simulator.studies.tune.docs_tables            # rewrite the tables
    python -m simulator.studies.tune.docs_tables --check    # exit 1 when they are stale
"""

from __future__ import annotations

import sys

from ...run import config
from . import spec

PROG = "python -m simulator.studies.tune.docs_tables"


def main(argv: list[str] | None = None) -> int:
    page = config.ROOT / "docs" / "tuning.md"
    schemas = [spec.SCHEMA, spec.PARAM_SCHEMA, spec.OPPONENT_SCHEMA, spec.budget_schema("deals"),
               spec.FIXED_THRESHOLD_SCHEMA]
    return config.main(argv, {page: schemas}, PROG)


if __name__ == "__main__":
    sys.exit(main())
