"""Edited code always runs as edited, whatever the cache configuration; a corrupted cache
recovers by recompiling; ``clear_cache`` removes only what ginsim created.

The edit tests work on a copy of ``simulator/`` and ``strategies/`` in a temporary
directory (run with PYTHONPATH pointing there), never on the real tree.  They edit
``knock_early.knock_nb`` and call the dispatch module's ``knock_nb``, which inlines it: the
smallest kernel that inlines strategy code from another file, as the engine does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from simulator.infra import cache as _cache

ROOT = Path(__file__).resolve().parents[1]

KNOCK = textwrap.dedent('''
    import numpy as np
    import simulator
    from strategies import dispatch
    from strategies.view import N_VIEW
    rules = simulator.Rules.preset("hoyle").to_array()
    knock = dispatch.knock_nb(np.int64(1), np.zeros(8), np.zeros(N_VIEW, np.int64), np.zeros(64, np.int64),
                              rules, np.zeros(4, np.uint64), np.zeros(64, np.int64))
    print("knock_early knocks:", bool(knock))
''')


def _package_copy(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    for package in ("simulator", "strategies"):
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    return tree


def _env(tree: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "GINSIM_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(PYTHONPATH=str(tree), GINSIM_ENGINE="call", **extra)  # a fresh cache compiles only what it plays
    return env


def _knocks(tree: Path, env: dict[str, str]) -> tuple[bool, str]:
    done = subprocess.run([sys.executable, "-c", KNOCK], capture_output=True, text=True, cwd=tree.parent,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return "knock_early knocks: True" in done.stdout, done.stderr


def _edit_knock_early(tree: Path) -> None:
    path = tree / "strategies" / "knock_early.py"
    text = path.read_text()
    assert "    return True\n" in text
    path.write_text(text.replace("    return True\n", "    return False\n"))


def test_edit_takes_effect_with_numba_cache_dir_set(tmp_path: Path):
    tree = _package_copy(tmp_path)
    numba_dir = tmp_path / "numba-cache"
    env = _env(tree, NUMBA_CACHE_DIR=str(numba_dir), GINSIM_CACHE_DIR=str(tmp_path / "ginsim"))
    assert _knocks(tree, env)[0]
    _edit_knock_early(tree)
    assert not _knocks(tree, env)[0], "stale compiled code ran after knock_early.py was edited"
    # the user's NUMBA_CACHE_DIR holds one hash-keyed, marked directory per source version
    kernels = sorted(p.name for p in numba_dir.iterdir() if p.is_dir())
    assert len(kernels) == 2 and all(k.startswith("ginsim-numba-") for k in kernels), kernels
    assert all((numba_dir / k / _cache.MARKER).is_file() for k in kernels)


def test_edit_takes_effect_when_the_cache_dir_is_not_writable(tmp_path: Path):
    tree = _package_copy(tmp_path)
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory's parent should be\n")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = _env(tree, GINSIM_CACHE_DIR=str(blocker / "cache"), TMPDIR=str(temp))
    knocks, stderr = _knocks(tree, env)
    assert knocks
    _edit_knock_early(tree)
    assert not _knocks(tree, env)[0], "stale compiled code ran after knock_early.py was edited"
    warnings = [line for line in stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and "ginsim: warning:" in warnings[0] and str(temp) in warnings[0], stderr
    fallback = [p for p in temp.iterdir() if p.name.startswith("ginsim-cache-")]
    assert len(fallback) == 1
    assert len(list(fallback[0].glob("ginsim-numba-*"))) == 2
    # numba never fell back to caches next to the sources, keyed by file timestamps only
    assert not list(tree.rglob("*.nbi"))


# --------------------------------------------------------------------------- corruption

MIN_DEADWOOD = "import simulator; print(simulator.min_deadwood('As 2s 3s 7h 7d 7c Kd'))"


def _min_deadwood(env: dict[str, str]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", MIN_DEADWOOD], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.stdout.split() == ["10"]
    return [line for line in done.stderr.splitlines() if line.strip()]


def test_corrupted_cache_files_are_recompiled(tmp_path: Path):
    env = _env(ROOT, GINSIM_CACHE_DIR=str(tmp_path / "cache"))
    assert _min_deadwood(env) == []
    index = sorted((tmp_path / "cache").rglob("*.nbi"))
    data = sorted((tmp_path / "cache").rglob("*.nbc"))
    assert index and data
    for path in index:  # truncated index files: numba itself raises an UnpicklingError
        path.write_bytes(path.read_bytes()[:10])
    warnings = _min_deadwood(env)
    assert len(warnings) == 1 and "corrupted" in warnings[0] and "ginsim cache clear" in warnings[0], warnings
    assert _min_deadwood(env) == []  # the rewritten files are sound again
    for path in data:  # garbled machine code: numba would load it as it is
        blob = bytearray(path.read_bytes())
        middle = len(blob) // 2
        blob[middle:middle + 16] = bytes(b ^ 0xFF for b in blob[middle:middle + 16])
        path.write_bytes(bytes(blob))
    warnings = _min_deadwood(env)
    assert len(warnings) == 1 and "corrupted" in warnings[0], warnings
    for path in data:  # truncated data files
        path.write_bytes(path.read_bytes()[:100])
    assert len(_min_deadwood(env)) == 1
    assert _min_deadwood(env) == []


def test_the_seal_lives_in_ginsims_own_dispatchers_and_numba_is_not_patched():
    """Every ginsim function's cache is the sealed one (``simulator.infra.sealed``); numba's
    file class keeps its own methods, and a user's ``njit`` function gets numba's plain cache."""
    import numba
    from numba.core import caching

    from simulator.core import melds
    from simulator.infra import sealed

    for name in ("_load_index", "_save_index", "_load_data", "_save_data", "load", "save"):
        assert getattr(caching.IndexDataCacheFile, name).__module__ == "numba.core.caching", name
    for function in (melds.min_deadwood_nb, melds.runs_deadwood_nb):
        assert isinstance(function, sealed.SealedDispatcher) and isinstance(function._cache, sealed.SealedCache)

    @numba.njit
    def users(x):
        return x + 1

    assert not isinstance(users, sealed.SealedDispatcher) and users(1) == 2


def test_seal_detects_truncation_and_garbling():
    from simulator.infra import sealed as sealed_module

    payload = b"\x80\x05some pickled bytes."
    sealed = sealed_module.seal(payload)
    assert sealed_module.unseal(sealed) == payload
    assert sealed_module.unseal(sealed[:-1]) is None
    assert sealed_module.unseal(payload) is None
    garbled = bytearray(sealed)
    garbled[3] ^= 1
    assert sealed_module.unseal(bytes(garbled)) is None


# --------------------------------------------------------------------------- clearing


@pytest.fixture
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME with a ~/.cache full of other programs' files, and a private temp dir."""
    home = tmp_path / "home"
    cache = home / ".cache"
    (cache / "pip" / "wheels").mkdir(parents=True)
    (cache / "pip" / "wheels" / "x.whl").write_text("user file")
    (cache / "numba-1234abcd").mkdir()  # looks like a cache, not made by this ginsim: kept
    (cache / "numba-1234abcd" / "f.nbi").write_text("user file")
    (cache / "ginsim-notes").mkdir()  # named like ginsim's but unmarked: kept
    (cache / "ginsim-notes" / "todo.txt").write_text("user file")
    (cache / "ginsim-numba-file").write_text("a file, not a directory: kept")
    (cache / "generated").mkdir()
    (cache / "generated" / "g.py").write_text("user file")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / _cache.MARKER).write_text("")
    (elsewhere / "precious").write_text("user file")
    (cache / "ginsim-link").symlink_to(elsewhere)  # a link to a marked directory: kept
    monkeypatch.setenv("HOME", str(home))
    for name in ("GINSIM_CACHE_DIR", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setitem(_cache._STATE, "resolved", {})
    monkeypatch.setitem(_cache._STATE, "warned", set())
    return home


def _user_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "ginsim-numba-" not in str(p)
            and "ginsim-generated" not in str(p) and not p.name.startswith(".ginsim")}


def test_clear_cache_in_a_shared_cache_dir_removes_only_ginsim_entries(fake_home: Path, monkeypatch):
    cache = fake_home / ".cache"
    monkeypatch.setenv("GINSIM_CACHE_DIR", str(cache))
    before = _user_files(cache.parent.parent)
    assert _cache.cache_root() == cache
    kernels, generated = _cache.numba_cache_dir(), _cache.generated_dir()
    assert kernels.parent == cache and kernels.name.startswith("ginsim-numba-")
    assert generated == cache / "ginsim-generated"
    (kernels / "sub").mkdir()
    (kernels / "sub" / "melds.f-1.py311.nbi").write_bytes(b"kernel")
    (generated / "ginsim_engine_0.py").write_text("generated")
    assert not (cache / _cache.ROOT_MARKER).exists()  # ginsim did not create ~/.cache
    removed = _cache.clear_cache()
    assert sorted(removed) == sorted([kernels, generated])
    assert cache.is_dir() and _user_files(cache.parent.parent) == before
    assert (cache / "ginsim-link").is_symlink() and (cache.parent.parent / "elsewhere" / "precious").is_file()
    assert _cache.clear_cache() == []


def test_clear_cache_removes_a_root_ginsim_created_unless_the_user_put_files_in_it(fake_home: Path, monkeypatch):
    xdg = fake_home / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    root = _cache.cache_root()
    assert root == xdg / "ginsim"  # platformdirs honours XDG_CACHE_HOME
    kernels = _cache.numba_cache_dir()
    assert kernels.parent == root and (root / _cache.ROOT_MARKER).is_file()
    assert _cache.clear_cache() == [kernels, root]
    assert not root.exists() and xdg.is_dir()

    _cache.generated_dir()
    (root / "mine.txt").write_text("user file")
    assert _cache.clear_cache() == [root / "ginsim-generated"]
    assert (root / "mine.txt").read_text() == "user file"


def test_default_root_is_the_user_cache_dir(fake_home: Path):
    assert _cache.cache_root() == fake_home / ".cache" / "ginsim"


def test_clear_cache_covers_numba_cache_dir_and_the_temp_fallback(fake_home: Path, monkeypatch, tmp_path: Path):
    numba_dir = tmp_path / "numba"
    (numba_dir / "other-project").mkdir(parents=True)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(numba_dir))
    kernels = _cache.numba_cache_dir()
    assert kernels.parent == numba_dir and kernels.name == f"ginsim-numba-{_cache.source_hash()}"
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("GINSIM_CACHE_DIR", str(blocker / "cache"))
    generated = _cache.generated_dir()  # not writable: the per-user temp fallback
    assert generated.parent == _cache._temp_root() and str(generated).startswith(str(tmp_path / "tmp"))
    removed = _cache.clear_cache()
    assert kernels in removed and generated in removed and _cache._temp_root() in removed
    assert (numba_dir / "other-project").is_dir()


def test_cache_description_says_where_and_how_to_move(fake_home: Path, monkeypatch):
    monkeypatch.setenv("GINSIM_CACHE_DIR", str(fake_home / "c"))
    text = _cache.cache_description()
    assert 1 <= len(text.splitlines()) <= 2
    assert str(fake_home / "c") in text and "GINSIM_CACHE_DIR" in text and "ginsim cache clear" in text
    assert not (fake_home / "c").exists()  # describing creates nothing


CLEAR_THEN_COMPILE = textwrap.dedent('''
    import simulator
    from simulator.infra import cache as _cache
    simulator.min_deadwood("As 2s 3s")
    kernels = _cache.numba_cache_dir()
    assert kernels in _cache.clear_cache() and not kernels.exists()
    simulator.best_discard("3s 4s 5s 6c 4d 5d 6d 3h 4h 5h 6h")  # numba re-makes the directory to save
    assert (kernels / _cache.MARKER).is_file()
    assert kernels in _cache.clear_cache()
    print("ok")
''')


def test_a_directory_numba_remakes_after_clearing_is_marked(tmp_path: Path):
    done = subprocess.run([sys.executable, "-c", CLEAR_THEN_COMPILE], capture_output=True, text=True,
                          env=_env(ROOT, GINSIM_CACHE_DIR=str(tmp_path / "cache")), timeout=600)
    assert done.returncode == 0 and done.stdout.split() == ["ok"], done.stderr[-3000:]
