"""Where numba keeps compiled kernels: one directory per version of ginsim's sources.

numba's on-disk cache is keyed by each function's own file, so a kernel that inlines code
from another module keeps stale machine code after that module is edited.  ginsim keys the
whole cache by a hash of the source files that kernels are built from — every module of
``simulator`` and ``strategies`` except the pure-Python ones listed in
``PURE_PYTHON_MODULES`` (façade, runner, CLI, analysis, reports) — so an edit to a kernel,
a strategy or a constant a kernel reads starts a fresh cache directory, while editing a
report does not recompile anything.  ``ginsim cache clear`` removes them all.
The root is ``$GINSIM_CACHE_DIR`` or ``~/.cache/ginsim``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def cache_root() -> Path:
    return Path(os.environ.get("GINSIM_CACHE_DIR") or Path.home() / ".cache" / "ginsim")


#: modules with no numba code and nothing a kernel reads (a module that gains a kernel, or
#: constants a kernel uses, must leave this list)
PURE_PYTHON_MODULES = frozenset({
    "simulator/__init__.py", "simulator/_cache.py", "simulator/api.py", "simulator/cli.py",
    "simulator/experiment.py", "simulator/runner.py", "simulator/replay.py", "simulator/rules_api.py",
    "simulator/analysis.py", "simulator/report.py", "strategies/__init__.py", "strategies/registry.py",
})


def source_hash() -> str:
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for package in (here, here.parent / "strategies"):
        for path in sorted(package.glob("*.py")):
            if f"{package.name}/{path.name}" in PURE_PYTHON_MODULES:
                continue
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    digest.update(numba.__version__.encode())
    return digest.hexdigest()[:16]


def configure_numba_cache() -> Path:
    """Point numba's cache at this source version's directory (unless the user set
    NUMBA_CACHE_DIR, which is then respected as given)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    path = cache_root() / f"numba-{source_hash()}"
    numba.config.CACHE_DIR = str(path)
    return path
