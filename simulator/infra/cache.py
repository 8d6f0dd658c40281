"""Where numba keeps compiled kernels: one directory per version of ginsim's sources.

numba's on-disk cache is keyed by each function's own file, so a kernel that inlines code
from another module keeps stale machine code after that module is edited.  ginsim keys the
whole cache by a hash of the source files that kernels are built from and that play rows
(``cache_key_modules``): every module holding a kernel, the engine and the strategies, the
modules that choose what is played (``PLAY_ROOTS``), and every module these import, found by
reading their import statements (``import_closure``), never listed by hand.  So an edit to a
kernel, a strategy or a constant a kernel reads starts a fresh cache directory, while editing
a report, the CLI or the analysis (which import the engine, but are not imported by it) does
not recompile anything.  That holds whatever the configuration:

* the root is ``$GINSIM_CACHE_DIR``, else the user cache directory of the platform
  (``platformdirs``: ``$XDG_CACHE_HOME/ginsim`` or ``~/.cache/ginsim`` on Linux);
  kernels go to ``<root>/ginsim-numba-<hash>``, generated plug-in modules to
  ``<root>/ginsim-generated``;
* a user-set ``NUMBA_CACHE_DIR`` is honoured as a parent: ``$NUMBA_CACHE_DIR/ginsim-numba-<hash>``;
* a directory ginsim cannot write to (where numba would silently fall back to caches
  keyed by file timestamps only) is replaced by the same name under a per-user directory
  of the system temp dir, with one warning line on stderr.

Every directory ginsim creates is named ``ginsim-*`` and holds a marker file, and the
root holds one when ginsim created it: ``clear_cache`` removes only marked entries, so
``GINSIM_CACHE_DIR=~/.cache`` never costs the user other programs' caches.

What each of ginsim's functions stores there is sealed with a SHA-256 of its content, and a
file that fails to load is a cache miss: ``simulator.infra.sealed`` (numba would raise a
traceback on a truncated or garbled cache file, and load garbled machine code as it is).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import sys
import threading
import tempfile
import uuid
from importlib import metadata
from pathlib import Path

#: prefix of every directory ginsim creates in a cache root
PREFIX = "ginsim-"
NUMBA_PREFIX = "ginsim-numba-"
GENERATED = "ginsim-generated"
#: in each directory ginsim creates (``ginsim-numba-*``, ``ginsim-generated``)
MARKER = ".ginsim-cache"
#: in a cache root (or a NUMBA_CACHE_DIR, or the temp fallback) that ginsim created itself
ROOT_MARKER = ".ginsim-cache-root"
MARKER_TEXT = "Created by ginsim for compiled kernels; `ginsim cache clear` removes it.\n"


def cache_root() -> Path:
    """``$GINSIM_CACHE_DIR``, else the platform's user cache directory for ginsim
    (``$XDG_CACHE_HOME/ginsim``, default ``~/.cache/ginsim``, on Linux)."""
    env = os.environ.get("GINSIM_CACHE_DIR")
    if env:
        return Path(env).expanduser().absolute()
    import platformdirs

    return platformdirs.user_cache_path("ginsim", appauthor=False)


#: where play starts besides the engine and the strategies (``ENGINE_PACKAGES``): the modules
#: that choose what a run or a tuning plays and label its rows — the façade, the runner and
#: the experiment's cells, the tuner's spec, search and fresh comparison.  Everything these and
#: the engine import, directly or not, is found by ``playing_modules``.
PLAY_ROOTS = (
    "simulator/api.py", "simulator/run/runner/__init__.py", "simulator/run/experiment.py",
    "simulator/studies/tune/spec.py", "simulator/studies/tune/field.py", "simulator/studies/tune/search.py",
    "simulator/studies/tune/fresh.py",
)
#: packages every module of which plays: the registry imports the strategies by name, and the
#: engine's generated copies are made from the loop's and the kernels' text
ENGINE_PACKAGES = ("strategies/", "simulator/engine/")
#: a module holding a numba kernel, a root of ``kernel_modules``: one that imports the compile
#: profiles (``simulator.infra.jit``), or decorates a function with numba's own decorators
_KERNEL = re.compile(r"^\s*@(numba\.)?(njit|jit|vectorize|guvectorize|cfunc)\b|^from (simulator\.|\.+)infra\.jit import",
                     re.M)

#: the data packages an installed wheel carries (simulator.run.bundled): experiment files and
#: examples, not ginsim's code
DATA_PACKAGES = ("simulator/experiments/", "simulator/examples/")

_STATE: dict = {"hash": None, "resolved": {}, "warned": set(), "announce": False, "ours": None,
                "announced": False, "listening": False, "compiling": 0, "timer": None}


def package_sources(only: frozenset[str] | None = None) -> list[tuple[str, Path]]:
    """Every module of the ``simulator`` and ``strategies`` packages, subpackages included,
    as (path from the repository root, e.g. ``simulator/engine/kernels.py``, file), sorted;
    with ``only``, just the modules named there."""
    root = next(p for p in Path(__file__).resolve().parents if p.name == "simulator").parent
    files = []
    for package in (root / "simulator", root / "strategies"):
        for path in sorted(package.rglob("*.py")):
            name = path.relative_to(package.parent).as_posix()
            if "__pycache__" not in name and not name.startswith(DATA_PACKAGES) and (only is None or name in only):
                files.append((name, path))
    return files


def _module_name(name: str) -> str:
    """``simulator/run/runner.py`` -> ``simulator.run.runner`` (a package's ``__init__.py``: the package)."""
    dotted = name[:-3].replace("/", ".")
    return dotted[: -len(".__init__")] if dotted.endswith(".__init__") else dotted


def _scan(name: str, source: bytes) -> tuple[list[str], list[str]]:
    """The modules (dotted names, ours or not) that module ``name`` imports, read from its
    ``source``: (those run when the module loads — its top level, ``if`` and ``try`` blocks
    included, all that a kernel can reach, since numba reads a kernel's globals — and those
    imported anywhere in the file, a function's lazy imports too).  ``from pkg import x``
    names ``pkg`` and ``pkg.x`` (x may be a submodule)."""
    import ast

    tree = ast.parse(source, name)
    package = _module_name(name) if name.endswith("__init__.py") else _module_name(name).rpartition(".")[0]
    at_load, todo = [], list(tree.body)
    while todo:
        node = todo.pop()
        at_load.append(node)
        if isinstance(node, (ast.If, ast.Try)):
            todo += [*node.body, *node.orelse, *getattr(node, "finalbody", []),
                     *(n for handler in getattr(node, "handlers", []) for n in handler.body)]

    def names(nodes) -> list[str]:
        wanted: set[str] = set()
        for module, imported in import_statements(nodes, package):
            wanted.add(module)
            wanted.update(f"{module}.{name}" for name in imported)
        return sorted(wanted)

    return names(at_load), names(ast.walk(tree))


def import_statements(nodes, package: str | None):
    """``(module, names imported from it)`` for each ``import`` statement among the AST
    ``nodes`` (``import a.b``: ``("a.b", ())``), relative imports resolved against ``package``;
    one that reaches above the top package (or any, outside a package) is left out, as
    importing it fails.  The one reader of import statements: the kernel cache's module scan
    (``_scan``) and a plug-in's import closure (``strategies.plugins``) both use it."""
    import ast

    for node in nodes:
        if isinstance(node, ast.Import):
            yield from ((alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                if node.level > len(parts):
                    continue
                anchor = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{anchor}.{base}" if base else anchor
            yield base, tuple(alias.name for alias in node.names)


#: the per-file scans (``_scan``) kept between processes, keyed by the SHA-256 of the file:
#: parsing every module costs about 0.3 s, reading this table a millisecond
_SCAN_TABLE = "module-imports.json"
_SCANS: dict[str, tuple[list[str], list[str]]] = {}


def _scans(sources: list[tuple[str, Path]]) -> dict[str, tuple[list[str], list[str]]]:
    """``_scan`` of every module, by path name: from this process's table, else from the table
    in the generated-modules directory (a damaged or unreadable one is ignored), else parsed,
    and the table rewritten with the current files' entries when that directory exists and
    is writable (this creates no directory: ``ginsim cache where`` makes nothing)."""
    import json

    folder = _STATE["resolved"].get(cache_root() / GENERATED, cache_root() / GENERATED)

    contents = {name: path.read_bytes() for name, path in sources}
    digests = {name: hashlib.sha256(name.encode() + b"\0" + data).hexdigest() for name, data in contents.items()}
    if not all(d in _SCANS for d in digests.values()):
        try:
            from .inputs import read_json

            stored = read_json(folder / _SCAN_TABLE, "the cache's scan table")  # bounded before parsing
            _SCANS.update({d: (list(v[0]), list(v[1])) for d, v in stored.items()
                           if isinstance(v, list) and len(v) == 2 and all(isinstance(x, list) for x in v)})
        except (OSError, ValueError, TypeError, AttributeError):
            pass
        missing = [name for name, d in digests.items() if d not in _SCANS]
        for name in missing:
            _SCANS[digests[name]] = _scan(name, contents[name])
        if missing:
            table = {d: _SCANS[d] for d in digests.values()}
            try:
                target = folder / _SCAN_TABLE
                tmp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
                tmp.write_text(json.dumps(table), encoding="utf-8")
                os.replace(tmp, target)
            except OSError:
                pass
    return {name: _SCANS[d] for name, d in digests.items()}


_CLOSURES: dict[tuple, frozenset[str]] = {}


def import_closure(roots, everywhere: bool) -> frozenset[str]:
    """``roots`` (module paths such as ``simulator/api.py``) and every module of ours they
    import, directly or through each other, read from the source text without running it
    (``_scan``): with ``everywhere``, imports anywhere in a file; else only those run when a
    module loads.  A package's ``__init__.py`` counts when it is imported by name (``import
    strategies``, ``from . import x``), not when one of its modules is (a package here only
    re-exports its modules).  Computed once per state of the files."""
    sources = package_sources()
    state = tuple((name, path.stat().st_mtime_ns, path.stat().st_size) for name, path in sources)
    key = (tuple(sorted(roots)), everywhere, state)
    if key not in _CLOSURES:
        missing = sorted(set(roots) - {name for name, _ in sources})
        if missing:
            raise RuntimeError(f"the roots of play name modules that do not exist: {', '.join(missing)}")
        scans = _scans(sources)
        files = {_module_name(name): name for name, _ in sources}
        seen: set[str] = set()
        todo = list(roots)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(files[m] for m in scans[name][1 if everywhere else 0] if m in files)
        if len(_CLOSURES) > 8:
            _CLOSURES.clear()
        _CLOSURES[key] = frozenset(seen)
    return _CLOSURES[key]


def playing_modules() -> frozenset[str]:
    """The modules whose code plays rows or labels them: the engine and the strategies
    (``ENGINE_PACKAGES``), the roots of ``PLAY_ROOTS``, and everything they import anywhere
    (lazy imports included).  The run fingerprint (``simulator.run.rundir.code_fingerprint``)
    hashes exactly these; the compiled-kernel cache key (``source_hash``) hashes these and
    ``kernel_modules``.  Analysis, reports, the CLI and the terminal tools import the engine
    but are not imported by it, so editing them changes neither."""
    names = [name for name, _ in package_sources()]
    return import_closure([n for n in names if n.startswith(ENGINE_PACKAGES)] + list(PLAY_ROOTS), True)


def kernel_modules() -> frozenset[str]:
    """Every module that holds a numba kernel (a function of a ``simulator.infra.jit`` profile,
    or ``@njit`` and the like), the engine and the strategies, and every module they import
    when they load: all the code a compiled kernel can have inlined."""
    roots = [name for name, path in package_sources()
             if name.startswith(ENGINE_PACKAGES) or _KERNEL.search(path.read_text(encoding="utf-8"))]
    return import_closure(roots, False)


def cache_key_modules() -> frozenset[str]:
    """The sources the kernel cache is keyed by: ``kernel_modules`` and ``playing_modules``,
    so an edit to any module that plays changes both the cache key and the run fingerprint."""
    return kernel_modules() | playing_modules()


def source_hash() -> str:
    """Hash of the kernel sources as this process loaded them (computed once per process)."""
    if _STATE["hash"] is None:
        digest = hashlib.sha256()
        for name, path in package_sources(cache_key_modules()):
            digest.update(name.encode())
            digest.update(path.read_bytes())
        digest.update(metadata.version("numba").encode())
        digest.update(sys.version.split()[0].encode())
        _STATE["hash"] = digest.hexdigest()[:16]
    return _STATE["hash"]


# --------------------------------------------------------------------- directories


def warn_once(message: str) -> None:
    """Print ``message`` as a warning on stderr, once per process."""
    if message not in _STATE["warned"]:
        _STATE["warned"].add(message)
        print(f"ginsim: warning: {message}", file=sys.stderr, flush=True)


def mark_kernels(kernels: Path) -> None:
    """Mark a kernel directory of this version of the sources as ginsim's again when numba has
    re-made it after ``ginsim cache clear`` removed it (a directory of another name is left alone)."""
    if kernels.name.startswith(NUMBA_PREFIX) and not (kernels / MARKER).exists():
        kernels.mkdir(parents=True, exist_ok=True)
        (kernels / MARKER).write_text(MARKER_TEXT)


def _create_marked(path: Path, marker: str, mode: int = 0o777) -> None:
    """Create directory ``path`` holding ``marker``, atomically (a half-made directory is
    never visible under its name); an existing directory is left as it is."""
    if path.is_dir():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
    tmp.mkdir(mode=mode)
    try:
        (tmp / marker).write_text(MARKER_TEXT)
        os.rename(tmp, path)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not path.is_dir():
            raise


def _writable(path: Path) -> bool:
    """Make ``path`` (marked as ginsim's) and check that this process can write in it and
    in the subdirectories numba keeps there."""
    try:
        if not path.parent.exists():
            _create_marked(path.parent, ROOT_MARKER)
        _create_marked(path, MARKER)
        tempfile.TemporaryFile(dir=path).close()
        for sub in path.iterdir():
            if sub.is_dir() and not os.access(sub, os.W_OK | os.X_OK):
                return False
        return True
    except OSError:
        return False


def _temp_root() -> Path:
    """The per-user fallback root in the system temp directory."""
    user = os.getuid() if hasattr(os, "getuid") else (os.environ.get("USERNAME") or "user")
    return Path(tempfile.gettempdir()) / f"ginsim-cache-{user}"


def _own_private_dir(path: Path) -> bool:
    """True when ``path`` is (or was just made) a real directory of this user (not a link
    another user planted in a shared temp directory)."""
    try:
        if not path.exists():
            _create_marked(path, ROOT_MARKER, mode=0o700)
        st = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        return False
    return not hasattr(os, "getuid") or st.st_uid == os.getuid()


def _resolve(path: Path) -> Path:
    """``path`` when ginsim can write there, else the same name in a writable per-user
    temp directory (one warning line on stderr)."""
    resolved = _STATE["resolved"]
    if path in resolved:
        return resolved[path]
    if _writable(path):
        resolved[path] = path
        return path
    fallback_root = _temp_root()
    if _own_private_dir(fallback_root) and _writable(fallback_root / path.name):
        chosen = fallback_root / path.name
    else:
        chosen = Path(tempfile.mkdtemp(prefix=f"{path.name}-"))
        (chosen / MARKER).write_text(MARKER_TEXT)
    warn_once(f"cannot write to the cache directory {path.parent}; using {chosen.parent} "
              "(set GINSIM_CACHE_DIR to a writable directory)")
    resolved[path] = chosen
    return chosen


def _numba_dir_wanted() -> Path:
    base = os.environ.get("NUMBA_CACHE_DIR")
    parent = Path(base).expanduser().absolute() if base else cache_root()
    return parent / f"{NUMBA_PREFIX}{source_hash()}"


def numba_cache_dir() -> Path:
    """This source version's kernel directory, created and writable (see the module doc)."""
    return _resolve(_numba_dir_wanted())


def generated_dir() -> Path:
    """Where generated dispatch and engine modules and plug-in copies live, created and
    writable."""
    return _resolve(cache_root() / GENERATED)


def clear_cache() -> list[Path]:
    """Remove what ginsim created in its cache locations — the cache root, a user-set
    ``NUMBA_CACHE_DIR`` and the per-user temp fallback — and nothing else: only
    ``ginsim-*`` directories holding ginsim's marker, and a root only when ginsim created
    it and it is empty afterwards.  Returns the removed paths."""
    roots: list[Path] = [cache_root()]
    if os.environ.get("NUMBA_CACHE_DIR"):
        roots.append(Path(os.environ["NUMBA_CACHE_DIR"]).expanduser().absolute())
    roots.append(_temp_root())
    removed: list[Path] = []
    for root in dict.fromkeys(roots):
        if not root.is_dir():
            continue
        for entry in sorted(root.iterdir()):
            if not entry.name.lstrip(".").startswith(PREFIX) or entry.is_symlink() or not entry.is_dir():
                continue
            if not (entry / MARKER).is_file():
                continue
            try:
                shutil.rmtree(entry)
            except FileNotFoundError:
                continue
            removed.append(entry)
        marker = root / ROOT_MARKER
        if not root.is_symlink() and marker.is_file() and os.listdir(root) == [ROOT_MARKER]:
            marker.unlink()
            try:
                root.rmdir()
            except OSError:  # something appeared meanwhile: keep the root
                continue
            removed.append(root)
    _STATE["resolved"].clear()
    return removed


def cache_description() -> str:
    """Two lines: where the cache lives and how to move or clear it (creates nothing)."""
    root = cache_root()
    wanted = _numba_dir_wanted()
    kernels = _STATE["resolved"].get(wanted, wanted)
    how = "GINSIM_CACHE_DIR" if os.environ.get("GINSIM_CACHE_DIR") else "the platform's user cache directory"
    return (f"ginsim cache: {root} (from {how}); compiled kernels for these sources in {kernels}\n"
            "move it with GINSIM_CACHE_DIR=/some/dir (NUMBA_CACHE_DIR is used as a parent for the kernels); "
            "`ginsim cache clear` removes only the ginsim-* entries ginsim made")


# --------------------------------------------------------------- cold start

#: how long a first run compiles, in seconds of one core (the compile is single-threaded) with an
#: empty cache: the low end is below what `ginsim play` (a few moves), the quick start (simple,
#: gin_hunter, knock_early) and a first `ginsim simulate mc simple` took, compile and play, on
#: idle cores of the development machine; the high end allows twice that for a slower or
#: busier machine (docs/benchmarks.md#the-compile-notice)
COMPILE_SECONDS = {"light": (10, 30), "search": (15, 40)}

#: what the command line prints on stderr before this process compiles its first kernel.  Each
#: engine (the strategies a process plays: ``simulator.engine.select.engine_module``) has its
#: own kernels, so a command playing strategies no earlier command played compiles again
COMPILING_MESSAGE = (
    "ginsim: compiling kernels for this version of ginsim, once per engine (the strategies played; other "
    "strategies compile their own): about {light[0]}-{light[1]} s, {search[0]}-{search[1]} s with expert or mc, "
    "longer on a busy machine; later runs load them from the cache"
).format(**COMPILE_SECONDS)

#: seconds numba must still be compiling after a compile of ginsim's starts before a command
#: that cannot tell in advance (``announce_compiles``) prints the notice: a compile of a few
#: small functions is over before then and says nothing
COMPILE_NOTICE_GRACE = 2.0


def announce_compile() -> None:
    """Print ``COMPILING_MESSAGE`` on stderr, once per process."""
    if not _STATE["announced"]:
        _STATE["announced"] = True
        print(COMPILING_MESSAGE, file=sys.stderr, flush=True)


def announce_compiles() -> None:
    """From now on, ``announce_compile()`` when numba compiles ginsim's cached functions in
    this process, whatever the command (the command line calls this first): a listener on
    numba's ``numba:compile`` event, which numba raises only when a function is compiled, not
    when its machine code is loaded from the cache.  The notice comes once numba is still
    compiling ``COMPILE_NOTICE_GRACE`` seconds after such a compile began (at once when that
    is 0), so a compile of a few small functions says nothing.  numba is not imported for
    this: the listener is registered once numba is loaded (``numba_loaded``)."""
    _STATE["announce"] = True
    if _STATE["ours"] is not None:
        _listen()


def numba_loaded(dispatcher_class) -> None:
    """Called by ``simulator.infra.sealed`` as it loads numba, with the class of ginsim's
    cached functions: the compile notice's listener is registered now if a command asked for
    it (``announce_compiles``), and it announces compiles of that class only."""
    _STATE["ours"] = dispatcher_class
    if _STATE["announce"]:
        _listen()


def _listen() -> None:
    """Register ``announce_compiles``'s listener on numba's compile event, once."""
    if _STATE["listening"]:
        return
    from numba.core import event

    _STATE["listening"] = True

    class FirstCompile(event.Listener):
        def on_start(self, ev) -> None:
            _STATE["compiling"] += 1
            if _STATE["announced"] or _STATE["timer"] is not None:
                return
            if isinstance((ev.data or {}).get("dispatcher"), _STATE["ours"]):  # one of ginsim's, cached
                if COMPILE_NOTICE_GRACE <= 0:
                    announce_compile()
                    return
                timer = threading.Timer(COMPILE_NOTICE_GRACE, _announce_if_compiling)
                timer.daemon = True
                _STATE["timer"] = timer
                timer.start()

        def on_end(self, ev) -> None:
            _STATE["compiling"] -= 1

    event.register("numba:compile", FirstCompile())


def _announce_if_compiling() -> None:
    """The grace timer's end: the notice when numba is compiling still, else wait for the next
    compile of ginsim's to start the timer again."""
    _STATE["timer"] = None
    if _STATE["compiling"] > 0:
        announce_compile()


def is_cached(dispatcher) -> bool | None:
    """Whether the cache holds machine code of numba ``dispatcher`` that numba will load: its
    index file, in the directory and under the name numba's cache locator gives it (a
    subdirectory named after the source file's path), lists compiled signatures and carries
    the stamp of the source file as it is now (numba discards an index whose stamp differs,
    and compiles again).  None for a function that is not cached (``cache=False``)."""
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    if cache_file is None:
        return None
    try:
        return bool(cache_file._load_index())
    except Exception:  # an unreadable index: numba would compile
        return False
