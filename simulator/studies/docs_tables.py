"""docs/experiments.md's tables of a claims file's keys, generated from their declaration
(``simulator.studies.confirm.CLAIMS_FILE_SCHEMA`` and ``CLAIM_SCHEMA``) and of a
decision-values spec's (``simulator.studies.decision_values.SCHEMA`` and ``BLOCK_SCHEMA``) by
``simulator.run.config``::

    python -m simulator.studies.docs_tables            # rewrite the tables
    python -m simulator.studies.docs_tables --check    # exit 1 when they are stale
"""

from __future__ import annotations

import sys

from ..run import config
from . import confirm, decision_values

PROG = "python -m simulator.studies.docs_tables"


def main(argv: list[str] | None = None) -> int:
    schemas = [confirm.CLAIMS_FILE_SCHEMA, confirm.CLAIM_SCHEMA, decision_values.SCHEMA,
               decision_values.BLOCK_SCHEMA]
    return config.main(argv, {config.ROOT / "docs" / "experiments.md": schemas}, PROG)


if __name__ == "__main__":
    sys.exit(main())
