"""The compiled-kernel cache is keyed by the sources kernels are built from."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from simulator.infra import cache as _cache

ROOT = Path(__file__).resolve().parents[1]


def test_modules_left_out_of_the_cache_key_hold_no_kernels():
    root = Path(_cache.__file__).resolve().parents[2]
    keyed = _cache.cache_key_modules()
    for name, path in _cache.package_sources():
        if name not in keyed:
            assert not re.search(r"^\s*@(numba\.)?(njit|jit)\b", path.read_text(), re.M), name
    assert (root / "simulator/engine/kernels.py").is_file()


def test_the_cache_key_covers_every_playing_module_and_the_subpackages():
    names = [name for name, _ in _cache.package_sources()]
    keyed = _cache.cache_key_modules()
    playing = _cache.playing_modules()
    for kernel_module in ("simulator/engine/kernels.py", "simulator/core/melds.py", "simulator/env/encoding.py",
                          "strategies/mc.py", "strategies/thresholds.py"):
        assert kernel_module in names and kernel_module in keyed
    assert playing <= keyed  # one definition: whatever plays is in both the key and the fingerprint
    assert set(_cache.PLAY_ROOTS) <= playing
    for module in ("simulator/api.py", "simulator/run/runner/play.py", "simulator/run/runner/rows.py",
                   "simulator/core/records.py", "simulator/studies/tune/search.py", "strategies/registry.py"):
        assert module in playing, module
    for reader in ("simulator/cli/commands.py", "simulator/analysis/report.py", "simulator/analysis/rendering.py",
                   "simulator/studies/tune/report.py", "simulator/studies/tune/outputs.py", "simulator/tools/play.py"):
        assert reader not in keyed and reader not in playing, reader


#: run in a copy of the packages: for each file, append a comment and report whether the
#: kernel cache key and the run fingerprint changed (then restore the file)
_EDITS = textwrap.dedent('''
    import json, sys
    from pathlib import Path
    from simulator.infra import cache as _cache
    from simulator.run.rundir import code_fingerprint

    def now():
        _cache._STATE["hash"] = None
        return _cache.source_hash(), code_fingerprint()

    base = now()
    changed = {}
    for name in sys.argv[1:]:
        path = Path(name)
        text = path.read_text()
        path.write_text(text + "\\n# an edit\\n")
        key, fingerprint = now()
        path.write_text(text)
        changed[name] = [key != base[0], fingerprint != base[1]]
    assert now() == base
    print(json.dumps(changed))
''')


def test_an_edit_to_a_playing_module_changes_both_the_cache_key_and_the_fingerprint(tmp_path):
    tree = tmp_path / "tree"
    for package in ("simulator", "strategies"):
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    playing = ["simulator/engine/kernels.py", "simulator/core/melds.py", "strategies/simple.py",
               "strategies/registry.py", "simulator/api.py", "simulator/run/runner/rows.py",
               "simulator/studies/tune/search.py", "simulator/studies/tune/fresh.py"]
    kernels_only = ["simulator/studies/inference.py", "simulator/tools/bench.py"]
    neither = ["simulator/analysis/report.py", "simulator/cli/commands.py", "simulator/studies/tune/report.py",
               "simulator/studies/tune/outputs.py", "simulator/tools/replay_html.py"]
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(PYTHONPATH=str(tree), GINSIM_CACHE_DIR=str(tmp_path / "cache"), GINSIM_ENGINE="call")
    done = subprocess.run([sys.executable, "-c", _EDITS, *playing, *kernels_only, *neither], capture_output=True,
                          text=True, cwd=tree, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    changed = json.loads(done.stdout)
    assert {name: changed[name] for name in playing} == {name: [True, True] for name in playing}
    # modules that hold kernels but play no run's rows: a new cache directory, the same fingerprint
    assert {name: changed[name] for name in kernels_only} == {name: [True, False] for name in kernels_only}
    assert {name: changed[name] for name in neither} == {name: [False, False] for name in neither}


def test_the_roots_of_play_must_exist(monkeypatch):
    monkeypatch.setattr(_cache, "PLAY_ROOTS", (*_cache.PLAY_ROOTS, "simulator/no_such_module.py"))
    with pytest.raises(RuntimeError, match="no_such_module"):
        _cache.playing_modules()


def test_kernels_go_to_a_marked_directory_keyed_by_the_source_hash():
    path = _cache.numba_cache_dir()
    assert path.name == f"ginsim-numba-{_cache.source_hash()}"
    assert (path / _cache.MARKER).is_file()
    assert _cache.numba_cache_dir() == path  # idempotent


def test_ginsim_kernels_cache_in_its_directory_and_numba_settings_stay():
    import numba

    from simulator.core import melds

    from numba.core.caching import CacheImpl

    from simulator.infra import sealed

    before, locators = numba.config.CACHE_DIR, list(CacheImpl._locator_classes)
    path = _cache.numba_cache_dir()
    assert numba.config.CACHE_DIR == before  # numba's own setting is the user's
    assert sealed.KernelDirLocator not in locators  # numba's own locators are numba's
    locator = melds.popcount_nb._cache._impl._locator  # the one numba chose when the module loaded
    assert Path(locator.get_cache_path()).parent == path


def test_a_users_cached_function_caches_where_numba_would_put_it(tmp_path, monkeypatch):
    """``import simulator`` leaves a user's own ``@njit(cache=True)`` code to numba: its cache
    files are not in ginsim's directory (so ``ginsim cache clear`` never removes them)."""
    from simulator.core import melds  # noqa: F401  (ginsim's kernels loaded first)
    from simulator.infra import sealed
    (tmp_path / "user_kernels_x.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import user_kernels_x

    assert user_kernels_x.twice(21) == 42
    locator = user_kernels_x.twice._cache._impl._locator
    assert not isinstance(locator, sealed.KernelDirLocator)
    where = Path(locator.get_cache_path())
    assert list(where.glob("user_kernels_x.twice-*.nbi"))
    assert not where.is_relative_to(_cache.numba_cache_dir().parent)
    assert not list(_cache.numba_cache_dir().glob("*/user_kernels_x.*"))


def test_import_simulator_does_not_load_numba_and_ginsim_kernels_cache_in_its_directory():
    """``import simulator`` alone does not load numba; the first kernel module's functions are
    sealed and cache in the kernel directory, through their own locator."""
    child = textwrap.dedent("""
        import sys
        import simulator
        assert "numba" not in sys.modules
        from simulator.core import melds
        from simulator.infra import cache as _cache, sealed
        locator = melds.popcount_nb._cache._impl._locator
        assert isinstance(locator, sealed.KernelDirLocator), type(locator)
        print(locator.get_cache_path() == str(_cache.numba_cache_dir() / locator.get_suitable_cache_subpath(melds.__file__)))
    """)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
