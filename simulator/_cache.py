"""Where numba keeps compiled kernels: one directory per version of ginsim's sources.

numba's on-disk cache is keyed by each function's own file, so a kernel that inlines code
from another module keeps stale machine code after that module is edited.  ginsim keys the
whole cache by a hash of every source file of ``simulator`` and ``strategies`` instead: an
edit anywhere starts a fresh cache directory, and ``ginsim cache clear`` removes them all.
The root is ``$GINSIM_CACHE_DIR`` or ``~/.cache/ginsim``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def cache_root() -> Path:
    return Path(os.environ.get("GINSIM_CACHE_DIR") or Path.home() / ".cache" / "ginsim")


def source_hash() -> str:
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for package in (here, here.parent / "strategies"):
        for path in sorted(package.glob("*.py")):
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
