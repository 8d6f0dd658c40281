"""Engines for a set of strategies, rendered from the engine's own modules without copying
their text.

A *template* is a kernel module with binding points: module-level names bound, in the module
itself, to their default (``bound``), such as the loop's ``dispatch`` (``strategies.dispatch``,
routing every built-in) or the kernels' ``loop``.  ``render`` writes, into the cache's
generated directory, a module of three lines that runs the template's unchanged source in its
own namespace with those names bound to other modules (``fill``): the loop asking a dispatch
that routes only the strategies a process plays, or plug-ins, and the kernels playing with
that loop.  ``TEMPLATES`` lists each template and its binding points; rendering a binding a
template does not declare, or one its source does not take, is refused, so a rendered module
can never silently play the code it was meant to replace.

The rendered module is named by the template, the bindings and a hash of the template's source
(``strategies.plugins.write_module``, written atomically), and numba caches its kernels under
that file like any module's: two engines never share cache entries, a second process loads
their machine code instead of compiling it, and an edited template is a new name.  numba,
tracebacks and ``inspect`` read the template's lines under the rendered file's name
(``linecache``).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import linecache
from pathlib import Path
from types import ModuleType

from strategies.plugins import generated_module_dir, write_module

#: every template, by module name, with its binding points (``bound``); the default of each is
#: the module the template imports for it
TEMPLATES = {
    "simulator.engine.loop": ("dispatch",),
    "simulator.engine.kernels": ("loop",),
    "simulator.env.batch": ("loop",),
    "simulator.studies.knock_branches": ("loop",),
    "simulator.studies.draw_luck": ("loop",),
}
#: the name under which a rendered module's namespace holds its bindings while its template runs
_BINDINGS = "__ginsim_bindings__"


def bound(namespace: dict, name: str, default: ModuleType) -> ModuleType:
    """The module a template's binding point ``name`` stands for: ``default`` in the template
    itself, the module ``render`` bound it to in a rendered copy.  A template calls it at
    module level with its ``globals()``."""
    bindings = namespace.get(_BINDINGS)
    return default if bindings is None else bindings.get(name, default)


def _template_source(template: str) -> tuple[Path, str]:
    spec = importlib.util.find_spec(template)
    if template not in TEMPLATES or spec is None or spec.origin is None:
        raise RuntimeError(f"{template!r} is not a template of simulator.engine.factory.TEMPLATES")
    path = Path(spec.origin)
    return path, path.read_text()


def render(template: str, stem: str, bindings: dict[str, str]) -> ModuleType:
    """Template ``template`` (a module of ``TEMPLATES``) rendered with each binding point of
    ``bindings`` bound to the module named by its value, imported; the module is written to
    the generated directory as ``<stem>_<hash>.py`` unless there already."""
    unknown = set(bindings) - set(TEMPLATES.get(template, ()))
    if unknown:
        raise RuntimeError(f"{template} has no binding point {', '.join(sorted(unknown))} "
                           f"(simulator.engine.factory.TEMPLATES)")
    _, source = _template_source(template)
    text = (f'"""{template} rendered by simulator.engine.factory with {bindings!r}; do not edit.\n\n'
            f'Template source sha256 {hashlib.sha256(source.encode()).hexdigest()}.\n"""\n\n'
            "from simulator.engine.factory import fill\n\n"
            f"fill(globals(), {template!r}, {bindings!r})\n")
    return importlib.import_module(write_module(generated_module_dir(), stem, text))


def with_loop(template: str, stem: str, engine: ModuleType) -> ModuleType:
    """Template ``template`` (a module of ``TEMPLATES`` whose binding point is ``loop``)
    playing with engine ``engine``'s loop (an engine of
    ``simulator.engine.select.engine_module``): the template itself when that loop is the one
    it imports, else rendered with it as ``<stem>_<hash>.py`` (once per process: the rendered
    module is named by its bindings)."""
    module = importlib.import_module(template)
    if engine.loop is module.loop:
        return module
    return render(template, stem, {"loop": engine.loop.__name__})


def fill(namespace: dict, template: str, bindings: dict[str, str]) -> None:
    """Run template ``template``'s source in ``namespace`` (a rendered module's globals, its
    functions compiled under the rendered file's name) with ``bindings`` in force; a binding
    the source does not take raises a RuntimeError."""
    path, source = _template_source(template)
    file = namespace["__file__"]
    modules = {name: importlib.import_module(module) for name, module in bindings.items()}
    # run as a module of the template's package (its relative imports), keeping its own name
    own = {key: namespace.get(key) for key in ("__doc__", "__package__", "__spec__")}
    namespace.update({"__package__": template.rpartition(".")[0], "__spec__": None, _BINDINGS: modules})
    linecache.cache[file] = (len(source), None, source.splitlines(True), file)
    try:
        exec(compile(source, file, "exec"), namespace)
    finally:
        namespace.update(own)
        del namespace[_BINDINGS]
    untaken = [name for name, module in modules.items() if namespace.get(name) is not module]
    if untaken:
        raise RuntimeError(f"{path} does not take its binding {', '.join(untaken)} (bound(globals(), NAME, default)); "
                           "rendered modules cannot be built")
