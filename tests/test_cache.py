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
    path = _cache.configure_numba_cache()
    assert path.name == f"ginsim-numba-{_cache.source_hash()}"
    assert (path / _cache.MARKER).is_file()
    assert _cache.configure_numba_cache() == path  # idempotent


def test_ginsim_kernels_cache_in_its_directory_and_numba_settings_stay():
    import numba

    from simulator.core import melds

    before = numba.config.CACHE_DIR
    path = _cache.configure_numba_cache()
    assert numba.config.CACHE_DIR == before  # numba's own setting is the user's
    locator = melds.popcount_nb._cache._impl._locator  # the one numba chose when the module loaded
    assert Path(locator.get_cache_path()).parent == path


def test_a_users_cached_function_caches_where_numba_would_put_it(tmp_path, monkeypatch):
    """``import simulator`` leaves a user's own ``@njit(cache=True)`` code to numba: its cache
    files are not in ginsim's directory (so ``ginsim cache clear`` never removes them)."""
    _cache.configure_numba_cache()
    (tmp_path / "user_kernels_x.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import user_kernels_x

    assert user_kernels_x.twice(21) == 42
    locator = user_kernels_x.twice._cache._impl._locator
    assert not getattr(locator, "_ginsim", False)
    where = Path(locator.get_cache_path())
    assert list(where.glob("user_kernels_x.twice-*.nbi"))
    assert not where.is_relative_to(_cache.numba_cache_dir().parent)
    assert not list(_cache.numba_cache_dir().glob("*/user_kernels_x.*"))
