"""The import graph of ``simulator`` and ``strategies`` has no cycle, lazy imports (inside
functions) included: each stage imports only the stages below it (the order is the
import-linter "layers" contract in ``pyproject.toml``, which ``.ci/run`` checks with
``lint-imports``)."""

from __future__ import annotations

import grimp


def _cycles(adjacency: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in sorted(adjacency):
        if root in index:
            continue
        work = [(root, iter(sorted(adjacency[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(adjacency[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.append(m)
                    if m == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_among_simulator_and_strategies():
    graph = grimp.build_graph("simulator", "strategies", cache_dir=None)
    adjacency = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert "simulator.core.state" in adjacency and "strategies.mc" in adjacency
    assert _cycles(adjacency) == []
