"""A package's public names, each imported on first use (a module ``__getattr__``, PEP 562).

``simulator`` and ``strategies`` export their API this way, so importing either (and a
``ginsim`` command that plays nothing) loads neither numba nor the engine until a name that
needs them is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_exports(package: str, namespace: dict, public: dict[str, tuple[str, str | None]]
                 ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of package ``package`` (``namespace``: its
    ``globals()``).  ``public`` maps each exported name to (module relative to the package,
    attribute; None for the module itself).  A name loads once: the first use stores it in
    ``namespace``; any other name raises ``AttributeError``."""

    def __getattr__(name: str):
        if name not in public:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name, attribute = public[name]
        module = importlib.import_module(module_name, package)
        value = module if attribute is None else getattr(module, attribute)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
