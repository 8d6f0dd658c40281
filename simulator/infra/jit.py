"""How ginsim's numba functions are compiled: the few named profiles, each defined once.

Every jitted function of ``simulator`` and ``strategies`` is decorated with one of the
profiles below (``@CORE``, ``@HOT``, ...) and states no numba flag of its own, so how a
function compiles is read from its profile's name, and the reasons are written here once.
Every profile caches its machine code (in ginsim's directory, ``simulator.infra.cache``,
sealed: ``simulator.infra.sealed``) and compiles without numba's C-callable wrapper (``no_cfunc_wrapper``: nothing calls a kernel
through a C pointer, and the wrapper cost every function compile time).  The profiles of
functions that numba code calls (all but ``KERNEL``) also compile without numba's CPython
wrapper, the code that lets Python call a function (about 15 ms of compiling each time numba
builds a function: a second of the cold start of ``simple`` vs ``simple``); a call from
Python goes to a twin compiled with it (``CalleeDispatcher``).  A function Python calls on
every step, or a driver Python calls, uses its profile's ``python_entry``: the same flags,
with the wrapper.

Two numba behaviours shape the profiles:

* **Reference counting.**  A function compiled with numba's runtime (NRT) updates an atomic
  reference count for each array it receives, slices or returns.  In the engine's loop that
  costs more than the rules themselves, so every function that allocates nothing compiles
  without it.  A function that allocates (a search player's tables) must compile with it,
  and must say so, because numba hands a caller's setting on to a callee that states none.
  An array returned across a function boundary compiled without NRT to a caller with NRT
  would be released twice: functions that return a slice are merged into their callers.
* **Inlining.**  numba builds every function into a library of its own that links and
  generates again the machine code of everything it calls, so each function boundary costs
  compile time; LLVM's ``forceinline`` puts a callee's code into its caller's loop (no
  arguments pushed on the stack), and ``inline='always'`` merges a callee into its caller at
  numba's IR level (no library of its own at all).  numba hands ``forceinline`` on to a
  function first compiled from inside one that sets it, so every function states it.

Four profiles compile a function:

``CORE``
    A called function without reference counting, never inlined by LLVM and handing no
    inlining on: the rules core, the rare steps of a hand, the engine's checks and loops.
``HOT``
    As ``CORE``, and LLVM inlines it into its caller: what runs on every turn (the everyday
    decisions of the light strategies, ``play_nb``).
``ALLOCATES``
    With reference counting, not inlined: functions that allocate or are called from code
    that does (``mc``'s search and rollouts, ``expert``'s decisions, the belief model, the
    vector environment's kernels, drivers that allocate their scratch), and the dispatch of an
    engine with plug-ins, whose decisions the plug-ins inherit NRT from.
``KERNEL``
    A batch kernel run on a pool thread (``simulator.infra.blocks``): it releases the GIL
    (``nogil``) and counts no references.

and three are exceptions, each for one reason:

``MERGED``
    Compiles nothing of its own: merged into each caller at numba's IR level (it counts
    references as its caller does): thin wrappers, the phase functions, the dispatch of
    built-ins, the way the loop asks and answers, the view's filling (``fill_view_nb``).
    Called from Python it compiles alone with numba's default (reference counting on), so one
    that allocates still works there.
``MERGED_HOT`` and ``PLUGIN_HOT``
    Only in the dispatch modules ``strategies.codegen`` generates, for their everyday
    decisions: ``MERGED`` with ``forceinline`` (the built-ins' dispatch, ``strategies/dispatch.py``)
    and ``ALLOCATES`` with ``forceinline`` (an engine with plug-ins, so a plug-in's decision is
    inlined into the loop as a built-in's is).  The built-ins' could be plain ``MERGED`` in
    principle, but the flag changes where LLVM lays out the loop: without it ``simple`` and
    ``knock_early`` ran 3-4% slower and ``gin_hunter`` 2-7% faster (docs/benchmarks.md).

A plug-in's decision functions are the user's code, compiled with the flags the user wrote;
``bounds_checked`` makes the checked copies ``strategies.plugin_checks.check_bounds`` runs.
"""

from __future__ import annotations

from types import FunctionType

from numba import njit

from .sealed import SealedDispatcher, sealed

#: every profile's flags, by name (``flags_of`` reads them back from a compiled function)
PROFILES: dict[str, dict] = {
    "CORE": {"_nrt": False, "forceinline": False},
    "HOT": {"_nrt": False, "forceinline": True},
    "ALLOCATES": {"_nrt": True, "forceinline": False},
    "KERNEL": {"_nrt": False, "nogil": True},
    "MERGED": {"forceinline": False, "inline": "always"},
    "MERGED_HOT": {"forceinline": True, "inline": "always"},
    "PLUGIN_HOT": {"_nrt": True, "forceinline": True},
}
#: what every profile states
BASE = {"cache": True, "no_cfunc_wrapper": True}
#: the profiles of functions called from numba code, compiled without the CPython wrapper
CALLEE_PROFILES = ("CORE", "HOT", "ALLOCATES", "MERGED", "MERGED_HOT", "PLUGIN_HOT")


class CalleeDispatcher(SealedDispatcher):
    """A numba function compiled for numba callers, without the CPython wrapper
    (``no_cpython_wrapper``; numba would crash calling that code from Python).  A call from
    Python goes to its twin: the same function under the qualified name ``<name>__python``
    (so its cache files are its own), compiled with the same flags and the wrapper."""

    def __call__(self, *args, **kwargs):
        twin = self.__dict__.get("_python_twin")
        if twin is None:
            fn = self.py_func
            copy = FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
            copy.__qualname__ = f"{fn.__qualname__}__python"
            copy.__module__, copy.__doc__ = fn.__module__, fn.__doc__
            options = {k: v for k, v in self.targetoptions.items() if k != "no_cpython_wrapper"}
            twin = self.__dict__["_python_twin"] = sealed(SealedDispatcher, copy, options)
        return twin(*args, **kwargs)


def _callee_profile(flags: dict):
    """The decorator of a callee profile: a sealed, cached ``CalleeDispatcher`` compiled with
    ``BASE``, ``flags`` and no CPython wrapper (what ``njit`` would make, with
    ``simulator.infra.sealed``'s cache).  Its ``python_entry`` is the same profile with
    the wrapper, for the few functions Python also calls on every step (the step API's,
    the Python players'): a twin's call from Python costs a Python-level call more (about
    0.3 µs), which made the step API 18% slower."""
    options = _options(flags)
    callee = {**options, "no_cpython_wrapper": True}

    def decorate(func):
        return sealed(CalleeDispatcher, func, callee)
    decorate.python_entry = _python_profile(flags)
    return decorate


def _options(flags: dict) -> dict:
    """numba's target options for a profile's ``flags``: what ``njit(**BASE, **flags)`` gives
    its dispatcher, caching aside (every profile's cache is ``simulator.infra.sealed``'s)."""
    options = {"nopython": True, "boundscheck": None, **BASE, **flags}
    del options["cache"]
    return options


def _python_profile(flags: dict):
    """The decorator of a profile Python calls directly (``KERNEL``, a ``python_entry``): a
    sealed, cached dispatcher with numba's CPython wrapper."""
    options = _options(flags)
    return lambda func: sealed(SealedDispatcher, func, options)


CORE = _callee_profile(PROFILES["CORE"])
HOT = _callee_profile(PROFILES["HOT"])
ALLOCATES = _callee_profile(PROFILES["ALLOCATES"])
MERGED = _callee_profile(PROFILES["MERGED"])
MERGED_HOT = _callee_profile(PROFILES["MERGED_HOT"])
PLUGIN_HOT = _callee_profile(PROFILES["PLUGIN_HOT"])
KERNEL = _python_profile(PROFILES["KERNEL"])


def profile_of(dispatcher) -> str | None:
    """The name of the profile a jitted function was compiled with (None: none of them)."""
    stated = {k for flags in PROFILES.values() for k in flags}
    options = {k: v for k, v in dispatcher.targetoptions.items() if k in stated}
    return next((name for name, flags in PROFILES.items() if flags == options), None)


def bounds_checked(dispatcher):
    """The decorator of a bounds-checked, uncached copy of the numba function ``dispatcher``
    (its own flags kept, its cache files left alone); it releases the GIL, so a copy that
    never returns does not hold the interpreter lock an interrupted caller needs."""
    options = {k: v for k, v in dispatcher.targetoptions.items()
               if k not in ("cache", "boundscheck", "nopython", "nogil", "no_cpython_wrapper")}
    return njit(boundscheck=True, cache=False, nogil=True, **options)
