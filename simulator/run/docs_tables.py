"""The generated tables of docs/experiments.md, docs/hand-history.md and docs/rl.md: the keys of an
experiment file, from their declaration (``simulator.run.experiment.SCHEMA``); the columns of
a run's files, from theirs (``simulator.core.records``: the labels, the hand row and the game
row, each with the description its Parquet fields carry); the keys of a hand history
(``simulator.run.handhistory.TABLES``) and its example file, written from a deal played
now; the RL observation's blocks (``simulator.core.view_fields.OBSERVATION``); all written by
``simulator.run.config``::

    python -m simulator.run.docs_tables            # rewrite the tables
    python -m simulator.run.docs_tables --check    # exit 1 when one is stale
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NamedTuple

from ..core import layouts, records
from . import config, experiment, handhistory

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


def example_hand() -> str:
    """docs/hand-history.md's example: deal 0 of ``simulate("gin_hunter", "knock_early",
    rules="hoyle", seed=1)`` as ``handhistory.to_text`` writes it."""
    history = handhistory.from_deal("gin_hunter", "knock_early", "hoyle", seed=1, deal=0)
    return "```toml\n" + handhistory.to_text(history) + "```"


PAGES = {config.ROOT / "docs" / "experiments.md": TABLES,
         config.ROOT / "docs" / "hand-history.md": [*handhistory.TABLES,
                                                    ColumnTable("hand", example_hand, "example")],
         config.ROOT / "docs" / "rl.md": [ColumnTable("observation", layouts.observation_table, "blocks")]}


def main(argv: list[str] | None = None) -> int:
    return config.main(argv, PAGES, PROG)


if __name__ == "__main__":
    sys.exit(main())
