"""Which engine plays a call, and the engines built for plug-ins.

The engine module is ``simulator.engine.kernels``, whose loop (``simulator.engine.loop``)
routes every built-in strategy through ``strategies.dispatch``.  ``engine_module`` picks the
engine for a set of strategy ids: by default a copy bound to a generated dispatch module
that routes only the strategies this process plays (so the first call compiles no more than
it plays), or the engine routing every strategy (``GINSIM_ENGINE=all``, or when its machine
code is cached already); with plug-ins registered, the copies route them too
(``engine_with``, the loop and the kernels rendered by ``simulator.engine.factory``).
An engine's loop is its ``loop`` attribute (``loop_module``).
``strategy_pair`` resolves two specs into the ids and parameter rows the kernels take, and
``kernels_compiled`` tells whether an engine's machine code is in the cache already.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import numpy as np

from strategies import parse_strategy
from strategies.hybrid import HYBRID_SID
from strategies.codegen import dispatch_source
from strategies.plugins import generated_module_dir, write_module
from strategies.registry import PLUGINS, Strategy, engine_entries, numba_count

from ..infra import cache as _cache
from . import kernels as engine
from .factory import render


def strategy_pair(strategy_a, strategy_b) -> tuple[Strategy, Strategy, np.ndarray, np.ndarray]:
    """Two specs resolved: the strategies, their ids (int64[2]) and parameter rows (2 × N_PARAMS)."""
    (a, b), sids, params = strategy_rows(strategy_a, strategy_b)
    return a, b, sids, params


def strategy_rows(*specs) -> tuple[list[Strategy], np.ndarray, np.ndarray]:
    """Specs resolved: the strategies, their ids (int64) and their parameter rows, one row each,
    all as wide as the widest (a hybrid's row is longer, ``strategies.hybrid``; the others are
    padded with 0), so that any of them can be seated in one work row."""
    resolved = [parse_strategy(spec) for spec in specs]
    sids = np.array([s.sid for s in resolved], dtype=np.int64)
    width = max(len(s.row) for s in resolved)
    params = np.vstack([np.pad(s.row, (0, width - len(s.row))) for s in resolved])
    return resolved, sids, params


#: the environment variable that chooses which strategies an engine routes, and its values:
#: ``call`` (the default) compiles, for the first call that needs one, an engine routing only
#: the strategies this process plays (that call's, and those given to ``will_play``);
#: ``all`` compiles one engine routing every registered strategy, which a session that
#: will play many different pairs compiles once instead of once per new pair
ENGINE_ENV = "GINSIM_ENGINE"
ENGINE_CHOICES = ("call", "all")
#: strategy ids this process plays (``will_play``, and every call's own once it has played)
_WILL_PLAY: set[int] = set()
#: the engines this process built, with the strategy ids each routes (``engine_module``)
_BUILT: list[tuple[frozenset[int], ModuleType]] = []


def will_play(sids) -> None:
    """Say up front which strategy ids (ints or ``Strategy``) this process will play, so that
    every call uses one engine: a run whose cells mix strategies compiles one engine routing
    all of them once, not a smaller one first.  The runner calls it with every strategy of
    the experiment."""
    _WILL_PLAY.update(int(getattr(s, "sid", s)) for s in sids)


def engine_choice() -> str:
    """``$GINSIM_ENGINE`` (``ENGINE_CHOICES``), default ``call``; any other value is refused
    in one line."""
    choice = os.environ.get(ENGINE_ENV, "call").strip() or "call"
    if choice not in ENGINE_CHOICES:
        raise ValueError(f"{ENGINE_ENV}: must be one of {', '.join(ENGINE_CHOICES)}, got {choice!r}")
    return choice


def _engine_routing(routed: set[int] | None) -> ModuleType:
    """The engine whose dispatch routes the engine ids ``routed`` (None: all)."""
    entries = engine_entries()
    if routed is None or set(range(len(entries))) <= routed:
        return engine if not PLUGINS else engine_with(entries)
    return engine_with([entry if sid in routed else None for sid, entry in enumerate(entries)])


def engine_module(sids=None) -> ModuleType:
    """The engine that plays strategy ids ``sids`` (default: every registered strategy).

    Compiling an engine costs as much as the strategies it routes, so by default
    (``engine_choice``) the engine routes only what this process plays: the first call
    builds a generated copy of ``simulator.engine.kernels`` whose dispatch routes ``sids``
    and the ids given to ``will_play`` (the others are refused like an unknown id); a later
    call uses an engine this process built already when that one routes its ids, and
    otherwise builds one routing everything played so far.  Before compiling a smaller
    engine, it takes the engine routing every strategy when that one's deal kernel is in the
    cache already (loading machine code costs a second or two, compiling the smallest
    engine a quarter of a minute or more).  A hybrid (``strategies.hybrid``) may route to any
    strategy and takes the engine routing all.  Every engine runs the same code for the
    strategies it routes: rows never depend on which engine played them (tested)."""
    if sids is None or engine_choice() == "all":
        return _engine_routing(None)
    numba_sids = set(range(numba_count()))
    own = {int(s) for s in sids} & (numba_sids | {HYBRID_SID})  # a Python player's id routes nowhere
    for routed, module in _BUILT:
        if own <= routed:
            return module
    wanted = own | _WILL_PLAY
    if HYBRID_SID in wanted or numba_sids <= wanted or kernels_compiled(module=_engine_routing(None).__name__):
        routed = None
    else:
        routed = wanted & numba_sids
    module = _engine_routing(routed)
    _WILL_PLAY.update(wanted)
    _BUILT.append((frozenset(numba_sids | {HYBRID_SID} if routed is None else routed), module))
    return module


def routes_every_strategy(module: ModuleType) -> bool:
    """Whether engine ``module`` (``engine_module``'s answer) is the one routing every registered
    strategy, rather than one generated for the strategies this process plays: the benchmarks
    say which they timed, since the dispatch over every strategy costs the same matchup a few
    percent more."""
    return module is _engine_routing(None)


#: engines built in this process, by their entries (``engine_with``)
_ENGINES: dict[tuple, ModuleType] = {}


def engine_with(entries: list[tuple[str, str | None] | None]) -> ModuleType:
    """The engine module compiled against a dispatch over ``entries`` (see
    ``dispatch_source``; an entry ``None`` leaves that id out): the loop rendered with that
    dispatch, and the kernels rendered with that loop (its ``loop``), by
    ``simulator.engine.factory.render``.  Built once per process for the same entries."""
    key = tuple(entries)
    if key in _ENGINES:
        return _ENGINES[key]
    dispatch_name = write_module(generated_module_dir(), "ginsim_dispatch", dispatch_source(entries))
    loop_copy = render("simulator.engine.loop", "ginsim_loop", {"dispatch": dispatch_name})
    module = render("simulator.engine.kernels", "ginsim_engine", {"loop": loop_copy.__name__})
    if module.loop.dispatch.N_STRATEGIES != len(entries):
        raise RuntimeError(f"plug-in engine {module.__name__} routes {module.loop.dispatch.N_STRATEGIES} strategies, "
                           f"expected {len(entries)}")
    _ENGINES[key] = module
    return module


def loop_module(sids=None) -> ModuleType:
    """The loop (``simulator.engine.loop`` or a copy) of the engine ``engine_module(sids)``:
    what the step API, the Python driver and the vector environment ask and play with."""
    return engine_module(sids).loop


def kernels_compiled(entries: tuple[str, ...] = ("play_deal_block_nb",), module: str | None = None,
                     sids=None) -> bool:
    """True when the cache holds machine code numba will load for every engine entry point in
    ``entries`` (``play_deal_block_nb``, ``play_game_block_nb``): the first call loads it
    instead of compiling (``simulator.infra.cache.COMPILE_SECONDS``).  Each entry's own index
    file is read where numba's locator puts it for this copy of the sources, and must match
    the source file's stamp (``simulator.infra.cache.is_cached``): the same sources installed
    at another path (a wheel beside a clone) have no machine code yet, though the cache
    directory of these sources holds the other copy's.  ``module`` is the engine module's
    name (``simulator.engine.kernels``, or a generated one: routing some strategies, or with
    plug-ins); default the engine ``engine_module(sids)`` plays strategy ids ``sids`` with.
    Cheap: an index file read per entry, nothing is compiled."""

    engine = engine_module(sids) if module is None else importlib.import_module(module)
    return all(_cache.is_cached(getattr(engine, entry)) for entry in entries)
