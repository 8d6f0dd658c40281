"""Which engine plays a call, and the engines built for plug-ins.

The engine module is ``simulator.engine.kernels``, routing every built-in strategy through
``strategies.dispatch``.  ``engine_module`` picks the engine for a set of strategy ids: the
built-in one, a *light* copy that leaves out the search players (``COMPILED_ON_DEMAND``), or
a copy bound to a generated dispatch module that routes the registered plug-ins
(``engine_with``, built from the kernels' own source by ``plugin_engine_source``).
``strategy_pair`` resolves two specs into the ids and parameter rows the kernels take, and
``kernels_compiled`` tells whether an engine's machine code is in the cache already.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

import numpy as np

from strategies import parse_strategy
from strategies.hybrid import HYBRID_SID
from strategies.plugins import dispatch_source, generated_module_dir, write_module
from strategies.registry import PLUGINS, REGISTRY, Strategy

from ..core import _cache
from . import kernels as engine


def strategy_pair(strategy_a, strategy_b) -> tuple[Strategy, Strategy, np.ndarray, np.ndarray]:
    """Two specs resolved: the strategies, their ids (int64[2]) and parameter rows (2 × N_PARAMS)."""
    a, b = parse_strategy(strategy_a), parse_strategy(strategy_b)
    sids = np.array([a.sid, b.sid], dtype=np.int64)
    rows = [a.row, b.row]
    width = max(len(r) for r in rows)  # a hybrid's row is longer (strategies.hybrid); the other is padded with 0
    params = np.vstack([np.pad(r, (0, width - len(r))) for r in rows])
    return a, b, sids, params


#: built-in strategies compiled into the engine only when a call plays them: the search
#: players (a belief, rollouts through the state machine) double the engine's cold compile
#: (on 2 idle cores about 29 s without them, 46 s with them)
COMPILED_ON_DEMAND = frozenset({"expert", "mc"})
#: strategy ids the engines of this process must route beyond each call's own (``will_play``;
#: ``engine_module`` adds the search players once a call has needed them)
_WILL_PLAY: set[int] = set()


def will_play(sids) -> None:
    """Say up front which strategy ids (ints or ``Strategy``) this process will play, so that
    every call uses one engine: a run whose cells mix light and search players compiles
    the full engine once, not the light one first.  The runner calls it with every
    strategy of the experiment."""
    _WILL_PLAY.update(int(getattr(s, "sid", s)) for s in sids)


def engine_module(sids=None) -> ModuleType:
    """The engine that plays strategy ids ``sids`` (default: every registered strategy).

    When neither ``sids`` nor the ids given to ``will_play`` name a strategy of
    ``COMPILED_ON_DEMAND``, this is a *light* engine: a generated copy of
    ``simulator.engine.kernels`` whose dispatch leaves those strategies out (their ids are
    refused like an unknown id), so a first run compiles in about half the time.
    Otherwise it is the engine routing every registered strategy (``simulator.engine.kernels``
    itself without plug-ins), and once a call of this process has needed that one, every
    later call uses it too (it is compiled already).  Plug-ins are in both.
    Both run the same code for the strategies they route: rows never depend on which
    engine played them (tested)."""
    # a hybrid (strategies.hybrid) may route to any strategy: it needs the full engine
    on_demand = {REGISTRY[n].sid for n in COMPILED_ON_DEMAND} | {HYBRID_SID}
    full = sids is None or bool(on_demand & ({int(s) for s in sids} | _WILL_PLAY))
    if full and sids is not None:
        _WILL_PLAY.update(on_demand)  # compiled now: every later call of this process uses it too
    if full and not PLUGINS:
        return engine
    numba_strategies = [i for i in REGISTRY.values() if i.kind == "numba"]
    return engine_with([None if not full and i.name in COMPILED_ON_DEMAND else (i.module.__name__, i.digest)
                        for i in numba_strategies])


#: the lines of the engine's source that a plug-in engine rewrites, and how often each
#: must occur: the dispatch import (once) and the package-relative imports (at least once)
_DISPATCH_IMPORT = "from strategies import dispatch\n"
_RELATIVE_IMPORT = re.compile(r"^from (\.+)([\w.]*) import", re.MULTILINE)
#: the package the engine's relative imports are relative to
_ENGINE_PACKAGE = "simulator.engine.kernels".rsplit(".", 1)[0]  # the package of the engine module


def _absolute_import(match: re.Match) -> str:
    """``from ..core.rng import`` in the engine's package as ``from simulator.core.rng import``."""
    package = _ENGINE_PACKAGE.split(".")
    dots, rest = len(match.group(1)), match.group(2)
    if dots > len(package):
        raise RuntimeError(f"the engine's import {match.group(0)!r} leaves the simulator package; "
                           "plug-in engines cannot be built (update simulator.engine.select.plugin_engine_source)")
    return f"from {'.'.join(package[:len(package) - dots + 1] + ([rest] if rest else []))} import"


def plugin_engine_source(engine_source: str, dispatch_name: str) -> str:
    """The engine's source bound to the dispatch module ``dispatch_name`` instead of the
    built-in one.  Every substitution is checked: the dispatch import must occur exactly
    once and no relative import may survive, otherwise the copy could silently route to
    the built-in strategies; a RuntimeError says which check failed."""
    count = engine_source.count(_DISPATCH_IMPORT)
    if count != 1:
        raise RuntimeError(f"the engine must import the dispatch exactly once as "
                           f"{_DISPATCH_IMPORT.strip()!r} (found {count}); plug-in engines cannot be built")
    source = engine_source.replace(_DISPATCH_IMPORT, f"import {dispatch_name} as dispatch\n")
    source, n_relative = _RELATIVE_IMPORT.subn(_absolute_import, source)
    if n_relative == 0 or "from ." in source or "import strategies.dispatch" in source \
            or "from strategies.dispatch" in source:
        raise RuntimeError("the engine's imports changed shape; plug-in engines cannot be built "
                           "(update simulator.engine.select.plugin_engine_source)")
    return source


#: engines built in this process, by their entries (``engine_with``)
_ENGINES: dict[tuple, ModuleType] = {}


def engine_with(entries: list[tuple[str, str | None] | None]) -> ModuleType:
    """The engine module compiled against a dispatch over ``entries`` (see
    ``dispatch_source``; an entry ``None`` leaves that id out).  Built once per process
    for the same entries."""
    key = tuple(entries)
    if key in _ENGINES:
        return _ENGINES[key]
    directory = generated_module_dir()
    dispatch_name = write_module(directory, "ginsim_dispatch", dispatch_source(entries))
    source = plugin_engine_source(Path(engine.__file__).read_text(), dispatch_name)
    engine_name = write_module(directory, "ginsim_engine", source)
    module = importlib.import_module(engine_name)
    if module.dispatch.N_STRATEGIES != len(entries):
        raise RuntimeError(f"plug-in engine {engine_name} routes {module.dispatch.N_STRATEGIES} strategies, "
                           f"expected {len(entries)}")
    _ENGINES[key] = module
    return module


def kernels_compiled(entries: tuple[str, ...] = ("play_deal_block_nb",), module: str | None = None,
                     sids=None) -> bool:
    """True when this source version's kernel directory holds numba's index file of every
    engine entry point in ``entries`` (``play_deal_block_nb``, ``play_game_block_nb``): the
    first call loads machine code instead of compiling it (about 30 s on 2 idle cores, a
    minute for the engine with the search players).  ``module`` is the engine module's name
    (``simulator.engine.kernels``, or a generated engine: the light one, or one with plug-ins);
    default the engine ``engine_module(sids)`` plays strategy ids
    ``sids`` with.  Cheap: one directory listing, nothing is compiled."""
    if module is None:
        module = engine_module(sids).__name__
    stem = module.rsplit(".", 1)[-1]
    try:
        names = {p.name for p in _cache.numba_cache_dir().glob(f"*/{stem}.*.nbi")}
    except OSError:
        return False
    return all(any(n.startswith(f"{stem}.{entry}-") for n in names) for entry in entries)
