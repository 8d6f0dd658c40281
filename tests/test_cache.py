"""The compiled-kernel cache is keyed by the sources kernels are built from."""

import re
from pathlib import Path

from simulator.core import _cache


def test_modules_left_out_of_the_cache_key_hold_no_kernels():
    root = Path(_cache.__file__).resolve().parents[2]
    for name in _cache.PURE_PYTHON_MODULES:
        text = (root / name).read_text()
        assert not re.search(r"^\s*@(numba\.)?(njit|jit)\b", text, re.M), name


def test_the_cache_key_covers_the_subpackages():
    from simulator.run.rundir import NOT_PLAYING_MODULES

    names = [name for name, _ in _cache.package_sources()]
    for kernel_module in ("simulator/engine/kernels.py", "simulator/core/melds.py", "simulator/env/encoding.py",
                          "strategies/mc.py"):
        assert kernel_module in names
    keyed = {name for name, _ in _cache.package_sources(_cache.PURE_PYTHON_MODULES)}
    assert "simulator/engine/kernels.py" in keyed and "simulator/cli.py" not in keyed
    assert set(_cache.PURE_PYTHON_MODULES) <= set(names) and set(NOT_PLAYING_MODULES) <= set(names)



def test_kernels_go_to_a_marked_directory_keyed_by_the_source_hash():
    import numba

    path = _cache.configure_numba_cache()
    assert numba.config.CACHE_DIR == str(path)
    assert path.name == f"ginsim-numba-{_cache.source_hash()}"
    assert (path / _cache.MARKER).is_file()
    assert _cache.configure_numba_cache() == path  # idempotent
