"""Regenerate ``strategies/dispatch.py``, the built-in strategies' dispatch module.

    python -m strategies.codegen            # rewrite strategies/dispatch.py from the registry
    python -m strategies.codegen --check    # exit 1 when the checked-in file is stale

Run it after adding a built-in strategy to ``strategies.registry.BUILTIN``; a test runs
``--check`` so a stale module never lands.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from simulator.core.layouts import write_or_check

DISPATCH = Path(__file__).resolve().parent / "dispatch.py"


def builtin_dispatch_source() -> str:
    """The text ``strategies/dispatch.py`` must hold for the built-in registry."""
    from .plugins import dispatch_source
    from .registry import BUILTIN

    return dispatch_source([(module, None) for _, module in BUILTIN], generator="python -m strategies.codegen")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m strategies.codegen", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that dispatch.py is up to date")
    args = parser.parse_args(argv)
    return write_or_check(DISPATCH, builtin_dispatch_source(), args.check, "python -m strategies.codegen")


if __name__ == "__main__":
    sys.exit(main())
