"""The cache of ginsim's own numba functions, sealed: what a compiled function's cache file holds
is checked before numba loads it, and a file that fails the check is a cache miss.

numba 0.68 raises a traceback on a truncated or garbled cache file (a pickle error from its
index or data file) and would load garbled machine code as it is.  Every function ginsim
compiles (the profiles of ``simulator.infra.jit``) is a ``SealedDispatcher``, whose cache is a
``SealedCache``: numba's own per-function cache with two changes, both through the interfaces
numba's caching is built on rather than its file class —

* what it stores for a compiled function is sealed (``SealedImpl``, the ``CacheImpl`` numba's
  caches are specialised by: its ``reduce`` and ``rebuild``): the compile result numba would
  store, serialised, followed by its SHA-256 (``seal``); a payload
  whose digest does not match is refused before it is unpickled;
* a load that fails for any reason — an index or data file that does not unpickle, a broken
  seal — is a miss (``SealedCache.load_overload``): the function's index is cleared (numba's
  ``flush``), one warning line says so, and the function is compiled and saved again.

The files go to this version of the sources' kernel directory (``simulator.infra.cache``):
``SealedImpl`` tries its own locator first (``KernelDirLocator``), the way numba's caches are
specialised, so nothing of numba's is changed for the process.  A user's own
``@njit(cache=True)`` functions are numba's dispatchers and caches, untouched; a plug-in's copy
is compiled sealed (``seal_module``).
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

from numba.core.caching import CompileResultCacheImpl, FunctionCache, NullCache, UserProvidedCacheLocator
from numba.core.registry import CPUDispatcher
from numba.core.serialize import dumps

from . import cache as _cache


#: what separates a sealed payload from its SHA-256
SEAL_MARK = b"\x00ginsim-sha256:"
_SEAL_LEN = len(SEAL_MARK) + 32


def seal(payload: bytes) -> bytes:
    """``payload`` followed by a marker and its SHA-256: what a ``SealedImpl`` stores."""
    return payload + SEAL_MARK + hashlib.sha256(payload).digest()


def unseal(blob: bytes) -> bytes | None:
    """The payload of a sealed entry, or None when it is truncated, garbled or unsealed."""
    if len(blob) < _SEAL_LEN or blob[-_SEAL_LEN:-32] != SEAL_MARK:
        return None
    payload = blob[:-_SEAL_LEN]
    return payload if hashlib.sha256(payload).digest() == blob[-32:] else None


class CorruptedCacheFile(Exception):
    """A cache file's content failed its seal."""


class KernelDirLocator(UserProvidedCacheLocator):
    """Places a sealed function's cache files in this source version's kernel directory
    (``simulator.infra.cache.numba_cache_dir``), under numba's usual subdirectory for its
    source file.  numba's own locators stay as they are for every other function."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(_cache.numba_cache_dir() / self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        return super(UserProvidedCacheLocator, cls).from_function(py_func, py_file)


class SealedImpl(CompileResultCacheImpl):
    """numba's compile-result cache logic, storing each result sealed with its SHA-256, in the
    kernel directory (its locators: ``KernelDirLocator`` first, then numba's own for a file
    it cannot place)."""

    _locator_classes = [KernelDirLocator, *CompileResultCacheImpl._locator_classes]

    def reduce(self, cres):
        return seal(dumps(super().reduce(cres)))

    def rebuild(self, target_context, payload):
        unsealed = unseal(payload) if isinstance(payload, bytes) else None
        if unsealed is None:
            raise CorruptedCacheFile("a compiled function's cache entry failed its seal")
        return super().rebuild(target_context, pickle.loads(unsealed))


class SealedCache(FunctionCache):
    """numba's per-function cache with sealed entries; a failed load is a miss."""

    _impl_class = SealedImpl

    def load_overload(self, sig, target_context):
        try:
            return super().load_overload(sig, target_context)
        except Exception:
            try:
                self.flush()
            except OSError:
                pass
            _cache.warn_once(f"discarded a corrupted compiled-kernel cache file in {Path(self.cache_path).parent}; "
                             "recompiling (if this repeats, run `ginsim cache clear`)")
            return None

    def save_overload(self, sig, data):
        _cache.mark_kernels(Path(self.cache_path).parent)
        super().save_overload(sig, data)


class SealedDispatcher(CPUDispatcher):
    """A numba dispatcher whose cache is a ``SealedCache``."""

    def enable_caching(self):
        self._cache = SealedCache(self.py_func)


def sealed(dispatcher_class, func, options: dict):
    """``func`` as a ``dispatcher_class`` (a ``SealedDispatcher``) with numba target ``options``,
    cached: what ``njit(cache=True, **options)`` makes, with the sealed cache."""
    dispatcher = dispatcher_class(py_func=func, locals={}, targetoptions=options)
    dispatcher.enable_caching()
    return dispatcher


def seal_module(module) -> int:
    """Compile a loaded module's own cached numba functions (``@njit(cache=True)``, each a
    module attribute) with the sealed cache in the kernel directory instead of numba's: each
    is replaced in the module by a ``SealedDispatcher`` of the same function and options,
    before anything compiles it, so the module's functions, which call one another through
    its globals, all compile sealed.  ginsim does this to a plug-in's copy
    (``strategies.plugins.load_plugin``): its kernels inline ginsim's core, so they must be
    keyed by ginsim's sources like ginsim's own.  Returns how many functions it replaced."""
    replaced = 0
    for name, value in list(vars(module).items()):
        if (isinstance(value, CPUDispatcher) and not isinstance(value, SealedDispatcher)
                and not isinstance(value._cache, NullCache) and value.py_func.__module__ == module.__name__
                and not value.overloads):
            setattr(module, name, sealed(SealedDispatcher, value.py_func, dict(value.targetoptions)))
            replaced += 1
    return replaced


_cache.numba_loaded(SealedDispatcher)  # the compile notice's listener, if a command asked for it
