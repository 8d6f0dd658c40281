"""The compile policy is one module: every numba function of ``simulator`` and ``strategies``
is compiled with a named profile of ``simulator.infra.jit``, and no other file spells a
numba flag."""

from __future__ import annotations

import importlib
import io
import re
import tokenize

from numba.core.registry import CPUDispatcher

from simulator.infra import cache, jit

#: modules whose kernels need an optional extra to import (the RL environments' package)
_OPTIONAL = ("simulator/env/",)


def _kernel_modules():
    for name, path in cache.package_sources():
        text = path.read_text(encoding="utf-8")
        if cache._KERNEL.search(text) and name != "simulator/infra/jit.py":
            yield name[:-3].replace("/", "."), text


def test_every_jitted_function_has_a_profile():
    seen = 0
    for module_name, _ in _kernel_modules():
        module = importlib.import_module(module_name)
        for attr, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module_name:
                seen += 1
                assert jit.profile_of(value) is not None, f"{module_name}.{attr}: {value.targetoptions}"
    assert seen > 150, seen


def _code(text: str) -> str:
    """``text`` without its comments, each string as ``STR`` (docstrings may name the flags)."""
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return " ".join("STR" if t.type == tokenize.STRING else t.string for t in tokens if t.type != tokenize.COMMENT)


def test_no_numba_flag_is_spelled_outside_the_compile_policy():
    spelled = re.compile(r"\b_nrt\s*=|\bnjit\b|\bforceinline\s*=|\binline\s*=\s*STR")
    offenders = [name for name, path in cache.package_sources()
                 if name != "simulator/infra/jit.py" and spelled.search(_code(path.read_text(encoding="utf-8")))]
    assert offenders == []


def test_the_profiles_are_few_and_distinct():
    """Four profiles compile a function; the exceptions are ``MERGED`` (compiles nothing of its
    own) and the two that only the dispatch modules ``strategies.codegen`` generates use."""
    flags = [tuple(sorted(f.items())) for f in jit.PROFILES.values()]
    assert len(set(flags)) == len(flags)
    assert list(jit.PROFILES) == ["CORE", "HOT", "ALLOCATES", "KERNEL", "MERGED", "MERGED_HOT", "PLUGIN_HOT"]
    for name in jit.PROFILES:
        assert callable(getattr(jit, name)), name
    decorated = re.compile(r"^@(\w+)", re.M)
    by_file = {name: {m.group(1) for m in decorated.finditer(path.read_text("utf-8"))}
               for name, path in cache.package_sources()}
    assert {"CORE", "HOT", "ALLOCATES", "KERNEL", "MERGED"} <= set().union(*by_file.values())
    assert {name for name, used in by_file.items() if used & {"MERGED_HOT", "PLUGIN_HOT"}} == {"strategies/dispatch.py"}


def test_the_kernels_module_offers_only_what_it_defines():
    """``simulator.engine.kernels`` re-exports nothing: every name it offers (``__all__``) is its
    own (or ``loop``, the loop it plays with), and no module reads another name from it."""
    from pathlib import Path

    from simulator.engine import kernels

    own = {name for name, value in vars(kernels).items()
           if getattr(value, "__module__", kernels.__name__) == kernels.__name__ and not name.startswith("__")
           and (callable(value) or isinstance(value, (int, tuple)))}
    assert set(kernels.__all__) <= own | {"loop"}
    root = Path(__file__).resolve().parents[1]
    used = re.compile(r"\bkernels\.([A-Za-z_]\w*)|from simulator\.engine\.kernels import ([\w, ]+)|"
                      r"from \.+engine\.kernels import ([\w, ]+)|from \.kernels import ([\w, ]+)")
    for path in [*root.glob("simulator/**/*.py"), *root.glob("strategies/*.py"), *root.glob("tests/*.py")]:
        for match in used.finditer(_code(path.read_text(encoding="utf-8"))):
            names = [n.strip() for group in match.groups() if group for n in group.split(",")]
            assert set(names) <= set(kernels.__all__) | {"__file__", "__name__"}, (path.name, names)


def test_a_callee_compiles_without_the_python_wrapper_and_python_calls_its_twin():
    """The callee profiles (``jit.CALLEE_PROFILES``) build no CPython wrapper; a call from
    Python goes to the function's twin (its own cache name, the same flags and answers),
    and a bounds-checked copy of a callee can be called from Python too; a profile's
    ``python_entry`` keeps the wrapper."""
    import numba
    import numpy as np

    from simulator.core import melds

    for name in jit.CALLEE_PROFILES:
        decorator = getattr(jit, name)
        assert decorator.__qualname__.startswith("_callee_profile"), name
    hand = np.int64(0b1111 | 1 << 20 | 1 << 33 | 1 << 46)
    callee = melds.runs_deadwood_nb
    assert isinstance(callee, jit.CalleeDispatcher) and callee.targetoptions["no_cpython_wrapper"] is True
    value = callee(hand)
    twin = callee.__dict__["_python_twin"]
    assert twin.py_func.__qualname__ == "runs_deadwood_nb__python" and "no_cpython_wrapper" not in twin.targetoptions
    assert jit.profile_of(twin) == jit.profile_of(callee) == "CORE"

    @numba.njit
    def from_numba(h):
        return melds.runs_deadwood_nb(h)

    assert from_numba(hand) == value == callee.py_func(hand)
    assert jit.bounds_checked(callee)(callee.py_func)(hand) == value
    # a function Python calls on every step keeps the wrapper, in the same profile
    entry = melds.min_deadwood_nb
    assert not isinstance(entry, jit.CalleeDispatcher) and jit.profile_of(entry) == "CORE"
    assert entry(hand) == entry.py_func(hand)
