"""docs/experiments.md's generated tables: the keys of an experiment file, from their
declaration (``simulator.run.experiment.SCHEMA``), and the columns of a run's files, from
theirs (``simulator.core.records``: the labels, the hand row and the game row, each with the
description its Parquet fields carry), written by ``simulator.run.config``::

    python -m simulator.run.docs_tables            # rewrite the tables
    python -m simulator.run.docs_tables --check    # exit 1 when one is stale
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NamedTuple

from ..core import records
from . import config, experiment

PROG = "python -m simulator.run.docs_tables"


class ColumnTable(NamedTuple):
    """A table of columns between ``<!-- columns:NAME:begin -->`` and its end marker."""

    name: str
    render: Callable[[], str]
    marker: str = "columns"

    def markdown(self) -> str:
        return self.render()


TABLES = [experiment.SCHEMA,
          ColumnTable("labels", records.run_label_table),
          ColumnTable("hand_row", lambda: records.column_table(records.HAND_ROW)),
          ColumnTable("game_row", lambda: records.column_table(records.GAME_ROW))]


def main(argv: list[str] | None = None) -> int:
    return config.main(argv, {config.ROOT / "docs" / "experiments.md": TABLES}, PROG)


if __name__ == "__main__":
    sys.exit(main())
