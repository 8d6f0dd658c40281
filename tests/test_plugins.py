"""A strategy plugged in from a file outside the package, used by name without editing the
engine; the engine's turn guard ending a runaway plug-in's hands; and the checked-in
dispatch module kept in sync with its generator."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

from plugin_sources import greedy_plugin
from simulator.core.decisions import FUNCTIONS
from strategies.codegen import dispatch_source
from strategies.registry import BUILTIN, BUILTIN_ROUTES

PLUGIN = greedy_plugin("patient")

HOARDER = textwrap.dedent('''
    """``hoarder``: always takes the pile's top card, discards its lowest legal card, never
    knocks: a runaway strategy that only the engine's turn guard stops."""
    import numpy as np
    from numba import njit
    from strategies.common import default_arrange_nb as arrange_nb
    from strategies.view import V_LEGAL_DISCARDS

    PARAMS = {}
    SUMMARY = "takes every pile card, never knocks"

    @njit(cache=True)
    def take_nb(params, view, pile, rules, rng, memory):
        return True

    @njit(cache=True)
    def discard_nb(params, view, pile, rules, rng, memory):
        legal = view[V_LEGAL_DISCARDS]
        card = 0
        while not (legal >> card) & 1:
            card += 1
        return np.int64(card)

    @njit(cache=True)
    def knock_nb(params, view, pile, rules, rng, memory):
        return False
''')

SCRIPT = textwrap.dedent('''
    import sys
    import pandas as pd
    import simulator, strategies
    strategies.register("patient", sys.argv[1])
    strategies.register("hoarder", sys.argv[2])
    endless = simulator.simulate("hoarder", "hoarder", "hoyle", n_deals=20, seed=3)
    assert (endless["outcome"] == "dead").all() and (endless["turns"] == 500).all(), endless
    assert (endless["stock_left"] == 31).all()
    assert "patient" in [s["name"] for s in strategies.available()]
    mine = simulator.simulate("patient:knock_at=2", "simple", "tournament", n_deals=4000, seed=7)
    # the plug-in plays exactly like gin_hunter with the same threshold
    ref = simulator.simulate("gin_hunter:knock_at=2", "simple", "tournament", n_deals=4000, seed=7)
    pd.testing.assert_frame_equal(mine, ref)
    games = simulator.simulate_games("patient", "random", "hoyle", n_games=50, seed=1)
    assert (games["winner"] == "a").mean() > 0.9
    try:
        simulator.simulate("patient:knock=1", "simple", n_deals=2)
    except ValueError as e:
        assert "parameters: knock_at" in str(e)
    else:
        raise AssertionError("bad parameter accepted")
    print("plugin ok")
''')


def test_plugin_strategy_from_outside_the_package(tmp_path: Path):
    plugin = tmp_path / "patient.py"
    plugin.write_text(PLUGIN)
    hoarder = tmp_path / "hoarder.py"
    hoarder.write_text(HOARDER)
    script = tmp_path / "use_plugin.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script), str(plugin), str(hoarder)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "plugin ok" in done.stdout


def test_checked_in_dispatch_and_parameter_table_match_their_generator():
    from strategies.builtin_params import BUILTIN_PARAMS
    from strategies.codegen import builtin_dispatch_source, builtin_params_source
    from strategies.registry import REGISTRY

    text = (Path(__file__).parents[1] / "strategies" / "dispatch.py").read_text()
    assert text == builtin_dispatch_source()
    assert (Path(__file__).parents[1] / "strategies" / "builtin_params.py").read_text() == builtin_params_source()
    assert BUILTIN_PARAMS == {name: tuple(REGISTRY[name].params) for name, _ in BUILTIN}
    done = subprocess.run([sys.executable, "-m", "strategies.codegen", "--check"], capture_output=True, text=True)
    assert done.returncode == 0 and "up to date" in done.stdout, done.stderr


def test_dispatch_names_every_id_and_refuses_unknown_ones():
    import numpy as np

    from strategies import dispatch

    source = dispatch_source([(module, None) for _, module in BUILTIN])
    for sid in range(len(BUILTIN)):
        # one explicit branch per strategy function of the table of decisions
        assert source.count(f"    if sid == {sid}:\n") == len(FUNCTIONS)
    assert dispatch.N_STRATEGIES == len(BUILTIN) + len(BUILTIN_ROUTES)
    args = (np.zeros(8), np.zeros(20, np.int64), np.zeros(64, np.int64), np.zeros(20, np.int64),
            np.zeros(1, np.uint64), np.zeros(64, np.int64))
    unknown = dispatch.N_STRATEGIES + 3
    assert dispatch.discard_nb(unknown, *args) == -1  # no card: the engine stops with an error
    assert not dispatch.take_nb(unknown, *args) and not dispatch.knock_nb(unknown, *args)
    assert tuple(dispatch.arrange_nb(unknown, *args)) == (-1, -1)
    assert tuple(dispatch.defend_nb(unknown, *args)) == (-1, -1)  # no melds: refused (not DEFEND_BEST)


def test_a_plugin_without_defend_nb_defends_with_the_best_response():
    """``defend_nb`` is optional: the generated dispatch routes a module without it to
    ``strategies.common.default_defend_nb`` (the best response); a module with it to its own."""
    import sys
    import types

    from strategies import common, simple

    bare = types.ModuleType("ginsim_test_bare_plugin")
    for name in ("take_nb", "discard_nb", "knock_nb", "arrange_nb"):
        setattr(bare, name, getattr(simple, name))
    sys.modules[bare.__name__] = bare
    try:
        source = dispatch_source([("strategies.simple", None), (bare.__name__, "0" * 64)])
    finally:
        del sys.modules[bare.__name__]
    imported = re.search(r"^from strategies\.common import (.*)$", source, re.MULTILINE)
    assert imported and "default_defend_nb" in imported.group(1).split(", ")
    assert "    if sid == 1:\n        return default_defend_nb(params, view, pile, rules, rng, memory)\n" in source
    assert "    if sid == 0:\n        return simple.defend_nb(params, view, pile, rules, rng, memory)\n" in source
    assert "default_defend_nb" not in dispatch_source([("strategies.simple", None)])
    assert tuple(common.default_defend_nb(*([None] * 6))) == (-2, 0)


def test_the_factory_renders_engines_from_the_templates_unchanged_and_checks_bindings(monkeypatch):
    """A rendered loop (``simulator.engine.factory.render``) runs the template's own source
    under the rendered file's name with its dispatch bound, holds no copy of the template's
    text, and a binding a template does not declare or does not take is refused."""
    import inspect

    import pytest

    from simulator.engine import factory, loop
    from strategies.plugins import generated_module_dir, write_module

    name = write_module(generated_module_dir(), "ginsim_dispatch", dispatch_source([("strategies.simple", None)]))
    copy = factory.render("simulator.engine.loop", "ginsim_loop", {"dispatch": name})
    assert copy.dispatch.__name__ == name and loop.dispatch.__name__ == "strategies.dispatch"
    assert copy.GUARD_MEMORY is False and copy.dispatch.N_STRATEGIES == 1
    assert copy.run_until_nb is not loop.run_until_nb
    assert copy.run_until_nb.py_func.__code__.co_filename == copy.__file__  # numba caches it under its own file
    assert len(Path(copy.__file__).read_text().splitlines()) < 10  # the rendered file holds no copy of the loop
    assert inspect.getsource(copy.run_until_nb.py_func) == inspect.getsource(loop.run_until_nb.py_func)
    assert factory.render("simulator.engine.loop", "ginsim_loop", {"dispatch": name}) is copy
    with pytest.raises(RuntimeError, match="has no binding point loop"):
        factory.render("simulator.engine.loop", "ginsim_loop", {"loop": name})
    with pytest.raises(RuntimeError, match="is not a template"):
        factory.fill({}, "simulator.engine.work", {})
    monkeypatch.setitem(factory.TEMPLATES, "simulator.engine.work", ("dispatch",))
    with pytest.raises(RuntimeError, match="does not take its binding dispatch"):
        factory.render("simulator.engine.work", "ginsim_work", {"dispatch": name})


def test_parameter_rows_are_built_by_name():
    import numpy as np
    import pytest

    from strategies.registry import REGISTRY, Strategy

    names = list(REGISTRY["gin_hunter"].params)
    assert len(names) >= 2
    values = {names[1]: 7.0, names[0]: 3.0}  # reversed order
    row = Strategy("gin_hunter", REGISTRY["gin_hunter"].sid, values).row
    assert row[0] == 3.0 and row[1] == 7.0
    assert np.all(row[len(names):] == 0)
    with pytest.raises(ValueError, match="unknown parameter 'nope'"):
        Strategy("gin_hunter", REGISTRY["gin_hunter"].sid, {"nope": 1.0}).row


EDIT_SCRIPT = textwrap.dedent('''
    import hashlib, sys
    from pathlib import Path
    import simulator, strategies
    from strategies.plugin_checks import contract_types
    from strategies.plugins import plugin_digest
    from simulator.engine.select import engine_module
    path = Path(sys.argv[1])
    info = strategies.register("pat", path)
    assert info.digest == plugin_digest(path) == hashlib.sha256(path.read_bytes()).hexdigest()
    assert info.path == str(path.resolve()) and info.module.__file__ != info.path  # a content-addressed copy
    # the copy's kernels inline ginsim's core: sealed, and cached in the kernel directory of these sources
    from simulator.infra.cache import numba_cache_dir
    from simulator.infra.sealed import SealedDispatcher
    for decision in ("take_nb", "discard_nb", "knock_nb"):
        kernel = getattr(info.module, decision)
        assert isinstance(kernel, SealedDispatcher), (decision, type(kernel))
        assert Path(kernel._cache._cache_path).is_relative_to(numba_cache_dir()), kernel._cache._cache_path
    df = simulator.simulate("pat", "pat", "hoyle", n_deals=200, seed=5)
    print("knocked:", int((df["outcome"] != "dead").sum()))
    # register() checked the plug-in against the arguments the engine really passes: when
    # this process compiled the engine (the first run after any edit of it) the dispatch
    # functions saw those types (an engine loaded from the cache leaves them uncompiled)
    dispatch = engine_module().loop.dispatch
    for decision in ("take_nb", "discard_nb", "knock_nb", "arrange_nb"):
        seen = [tuple(s[1:]) for s in getattr(dispatch, decision).signatures]
        assert seen in ([], [contract_types()]), (decision, seen, contract_types())
    if len(sys.argv) > 2:  # edit the file in this process and register it again
        path.write_text(path.read_text().replace(sys.argv[2], sys.argv[3]))
        again = strategies.register("pat", path)
        assert again.sid == info.sid and again.digest != info.digest
        df = simulator.simulate("pat", "pat", "hoyle", n_deals=200, seed=5)
        print("knocked:", int((df["outcome"] != "dead").sum()))
''')
NEVER_KNOCKS = ("return view[V_DEADWOOD] <= params[0]", "return False")


def _knocks(script: Path, plugin: Path, *edit: str) -> list[int]:
    done = subprocess.run([sys.executable, str(script), str(plugin), *edit], capture_output=True, text=True,
                          cwd=plugin.parent, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return [int(line.split()[-1]) for line in done.stdout.splitlines() if line.startswith("knocked:")]


def test_an_edited_plugin_plays_as_edited(tmp_path: Path):
    """Numba caches the engine that inlines a plug-in: an edit must still take effect, in a
    new process and when registered again in the same one."""
    plugin = tmp_path / "pat.py"
    plugin.write_text(PLUGIN)
    script = tmp_path / "edit_plugin.py"
    script.write_text(EDIT_SCRIPT)
    assert _knocks(script, plugin)[0] > 0
    plugin.write_text(PLUGIN.replace(*NEVER_KNOCKS))
    assert _knocks(script, plugin) == [0], "the edited plug-in (never knocks) did not take effect"
    plugin.write_text(PLUGIN)
    first, edited = _knocks(script, plugin, *NEVER_KNOCKS)
    assert first > 0 and edited == 0
