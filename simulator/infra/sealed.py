"""The cache of ginsim's own numba functions, sealed: what a compiled function's cache file holds
is checked before numba loads it, and a file that fails the check is a cache miss.

numba 0.68 raises a traceback on a truncated or garbled cache file (a pickle error from its
index or data file) and would load garbled machine code as it is.  Every function ginsim
compiles (the profiles of ``simulator.infra.jit``) is a ``SealedDispatcher``, whose cache is a
``SealedCache``: numba's own per-function cache with two changes, both through the interfaces
numba's caching is built on rather than its file class —

* what it stores for a compiled function is sealed (``SealedImpl``, the ``CacheImpl`` numba's
  caches are specialised by: its ``reduce`` and ``rebuild``): the compile result numba would
  store, serialised, followed by its SHA-256 (``simulator.infra.cache._seal``); a payload
  whose digest does not match is refused before it is unpickled;
* a load that fails for any reason — an index or data file that does not unpickle, a broken
  seal — is a miss (``SealedCache.load_overload``): the function's index is cleared (numba's
  ``flush``), one warning line says so, and the function is compiled and saved again.

Where the files go is ``simulator.infra.cache``'s business (one directory per version of the
sources).  A user's own ``@njit(cache=True)`` functions are numba's dispatchers and caches,
untouched.
"""

from __future__ import annotations

import pickle
from pathlib import Path

from numba.core.caching import CompileResultCacheImpl, FunctionCache
from numba.core.registry import CPUDispatcher
from numba.core.serialize import dumps

from . import cache as _cache


class CorruptedCacheFile(Exception):
    """A cache file's content failed its seal."""


class SealedImpl(CompileResultCacheImpl):
    """numba's compile-result cache logic, storing each result sealed with its SHA-256."""

    def reduce(self, cres):
        return _cache._seal(dumps(super().reduce(cres)))

    def rebuild(self, target_context, payload):
        unsealed = _cache._unseal(payload) if isinstance(payload, bytes) else None
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
            _cache._warn(f"discarded a corrupted compiled-kernel cache file in {Path(self.cache_path).parent}; "
                         "recompiling (if this repeats, run `ginsim cache clear`)")
            return None

    def save_overload(self, sig, data):
        kernels = Path(self.cache_path).parent
        if kernels.name.startswith(_cache.NUMBA_PREFIX) and not (kernels / _cache.MARKER).exists():
            # numba re-makes a kernel directory cleared meanwhile: mark it as ginsim's again
            kernels.mkdir(parents=True, exist_ok=True)
            (kernels / _cache.MARKER).write_text(_cache._MARKER_TEXT)
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
