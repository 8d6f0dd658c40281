"""What every input passes before ginsim uses it, each check one function that every
command and the Python API call:

* ``read_regular``: a file is opened without following a symbolic link (in any component
  below the directory it is read from, with ``within``) and without blocking, and read
  only when it is a regular file of bounded size, so a FIFO or a device named like a
  chunk or a manifest is refused at once instead of hanging the reader;
* ``check_nesting``, ``parse_json``, ``read_json``, ``read_toml``: JSON and TOML are
  bounded in size and in nesting depth *before* they are parsed (Python's parsers recurse,
  so a deeply nested document would end in a RecursionError);
* ``inside_work``: a path that a spec or a run directory names is kept inside the working
  directory (or the ``--out`` the user gave): nothing outside them is written or removed;
* ``check_target``: a file ginsim is about to write is refused when something that is not a
  regular file is there (a FIFO, a device, a directory, a link), before it is opened;
  ``starts_with`` tells a file ginsim wrote by its first bytes, read without waiting;
* ``check_memory``: a size the user gives is checked against this machine's memory
  before anything of that size is allocated;
* ``argument``: a Python API argument is checked as a key of an experiment file is, in the
  same words (``simulator.run.config.Key`` uses ``value_problem`` and ``allowed_words``),
  so a float or a bool is never truncated to a code and a string never taken as a flag.

Every refusal is one line naming the file, key or argument and what is allowed, raised as
the caller's ``ValueError`` subclass.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

#: the deepest nesting of arrays and tables (objects) ginsim parses in a JSON or TOML
#: document; its own files nest at most 6 deep
MAX_NESTING = 64
#: the largest JSON document ginsim reads from a run or study directory: a manifest lists
#: every chunk (about 150 bytes each), so this holds a run of some 200,000 chunk files
MAX_JSON_BYTES = 32 << 20
#: the largest TOML file ginsim reads (experiments, specs and claims are short texts)
MAX_TOML_BYTES = 1 << 20

_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory", stat.S_IFLNK: "a symbolic link"}


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _open_within(within: Path, rel: str) -> int:
    """A descriptor of ``within/rel`` opened one component at a time, none of them
    followed when it is a symbolic link (``O_NOFOLLOW``), the last without blocking."""
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute() or ".." in parts:
        raise OSError(errno.EINVAL, f"not a path inside {within}")
    fd = os.open(within, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
    finally:
        os.close(fd)


def open_regular(path: str | Path, what: str, error: type[ValueError] = ValueError,
                 within: str | Path | None = None, follow: bool = False, limit: int | None = None) -> int:
    """A read-only descriptor of ``path`` (relative to ``within`` when given), open only when
    it is a regular file (of at most ``limit`` bytes).

    The file is opened with ``O_NOFOLLOW | O_NONBLOCK`` (with ``within``, every directory
    below ``within`` too) and checked with ``fstat`` before one byte is read: a symbolic
    link, a FIFO, a device, a socket or a directory is refused at once, never followed and
    never waited on.  ``follow`` lets a link be followed (a file the user names on the
    command line, never one a run directory holds).  ``what`` names the file in the
    one-line ``error``; the caller closes the descriptor."""
    shown = Path(within) / path if within is not None else Path(path)
    try:
        if within is not None:
            fd = _open_within(Path(within), os.fspath(path))
        else:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW))
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) or (exc.errno == errno.EINVAL and within is not None):
            raise error(f"{shown}: a symbolic link or not a plain path; ginsim reads {what} only from a regular "
                        f"file it can open without following links") from None
        if exc.errno == errno.ENOENT:
            raise error(f"{shown}: no such file ({what})") from None
        raise error(f"{shown}: cannot read {what}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{shown} is {_kind(info.st_mode)}, not a regular file; ginsim reads {what} only from a "
                        f"regular file")
        if limit is not None and info.st_size > limit:
            raise error(f"{shown}: {info.st_size:,} bytes; {what} is at most {limit:,} bytes")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | Path, what: str, limit: int, error: type[ValueError] = ValueError,
                 within: str | Path | None = None, follow: bool = False) -> bytes:
    """The bytes of ``path`` (relative to ``within`` when given), opened by ``open_regular``
    (a regular file, no link followed, never waited on) and read only up to ``limit``
    bytes: a file that grows past it while read is refused too."""
    shown = Path(within) / path if within is not None else Path(path)
    fd = open_regular(path, what, error, within, follow, limit)
    try:
        blocks = []
        size = 0
        while True:
            block = os.read(fd, min(1 << 22, limit + 1 - size))
            if not block:
                break
            blocks.append(block)
            size += len(block)
            if size > limit:
                raise error(f"{shown}: more than {limit:,} bytes; {what} is at most {limit:,} bytes")
        return b"".join(blocks)
    except OSError as exc:
        raise error(f"{shown}: cannot read {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


#: the tokens that can open or close a level of nesting, and those that hide brackets
#: (strings; comments in TOML), per syntax
_TOKENS = {
    "json": re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S),
    "toml": re.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]',
                       re.S),
}


def check_nesting(text: str, what: str, error: type[ValueError] = ValueError, syntax: str = "json",
                  limit: int = MAX_NESTING) -> None:
    """Refuse ``text`` (JSON or TOML, ``syntax``) whose arrays and tables nest deeper than
    ``limit``, counted over its brackets outside strings (and TOML comments), before any
    parser sees it.  Unbalanced brackets are left to the parser's own error."""
    depth = 0
    for token in _TOKENS[syntax].finditer(text):
        ch = token.group()
        if ch in "[{":
            depth += 1
            if depth > limit:
                raise error(f"{what}: arrays or tables nested more than {limit} deep (at character "
                            f"{token.start():,}); ginsim reads documents nested at most {limit} deep")
        elif ch in "]}":
            depth -= 1


def parse_json(data: bytes | str, where: str, error: type[ValueError] = ValueError,
               limit: int = MAX_JSON_BYTES, what: str = "a JSON document") -> Any:
    """A JSON document (bytes or text, e.g. a Parquet footer's metadata), bounded in size
    and nesting before it is parsed; otherwise one-line ``error`` naming ``where`` (the
    file) and ``what`` it should be."""
    if len(data) > limit:
        raise error(f"{where}: {len(data):,} bytes of JSON; {what} is at most {limit:,}")
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as exc:
        raise error(f"{where}: not {what} (not UTF-8 text: byte {exc.start})") from None
    check_nesting(text, where, error)
    try:
        return json.loads(text)
    except ValueError as exc:  # malformed JSON, or an integer too long for Python (over 4,300 digits)
        raise error(f"{where}: not {what} (unreadable JSON: {str(exc).split(';')[0]})") from None


def read_json(path: str | Path, what: str, error: type[ValueError] = ValueError,
              limit: int = MAX_JSON_BYTES, within: str | Path | None = None) -> Any:
    """``read_regular`` then ``parse_json``: the JSON file ``path`` (``what``), bounded."""
    shown = Path(within) / path if within is not None else Path(path)
    return parse_json(read_regular(path, what, limit, error, within), f"{shown}", error, limit, what)


def read_toml(path: str | Path, what: str, error: type[ValueError] = ValueError,
              limit: int = MAX_TOML_BYTES) -> dict[str, Any]:
    """A TOML file read through ``read_regular``, UTF-8 (a leading byte-order mark, as
    some Windows editors write, skipped; a byte that is not UTF-8 is named with its line),
    bounded in nesting before ``tomllib`` parses it."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise error(f"{path}: no such {what.split(' ', 1)[1]}")
    data = read_regular(path, what, limit, error, follow=True)
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"{path}:{line}: not UTF-8 text (byte {exc.start} of the file); save the file as UTF-8") from None
    check_nesting(text, str(path), error, syntax="toml")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: malformed TOML: {exc}") from None


# ----------------------------------------------------------------------------- paths

def outside_work(path: str | Path, roots: Iterable[str | Path | None] = ()) -> str | None:
    """None when ``path`` resolves (symbolic links followed, ``..`` taken) inside the working
    directory or inside one of ``roots`` (the ``--out`` the user gave); else the problem in
    words.  ``inside_work`` raises it."""
    target = Path(path).resolve()
    allowed = [Path.cwd().resolve(), *(Path(r).resolve() for r in roots if r is not None)]
    if any(target == root or target.is_relative_to(root) for root in allowed):
        return None
    return (f"{os.fspath(path)!r} resolves to {target}, outside {' and '.join(str(r) for r in allowed)}; ginsim "
            f"writes only inside the working directory or --out")


def inside_work(path: str | Path, what: str, error: type[ValueError] = ValueError,
                roots: Iterable[str | Path | None] = ()) -> Path:
    """``path`` when ``outside_work`` finds no problem; otherwise a one-line ``error`` naming
    ``what`` (the key or flag), so that a spec or a run directory can never make ginsim
    write or remove anything outside the working directory or ``--out``."""
    problem = outside_work(path, roots)
    if problem:
        raise error(f"{what}: {problem}")
    return Path(path)


def check_target(path: str | Path, what: str, error: type[ValueError] = ValueError) -> bool:
    """Whether a regular file is at ``path``, the file ginsim is about to write (``what``
    names it); anything else there (a FIFO, a device, a socket, a directory, a symbolic
    link) is refused in one line, found by ``lstat`` and never opened, so a write can
    neither hang on a FIFO nor go through a link.  The caller then writes a temporary file
    beside it and renames it into place."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise error(f"{path}: cannot write {what}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{path} is {_kind(info.st_mode)}, not a regular file; ginsim writes {what} only to a new "
                    f"file or over a regular file it wrote")
    return True


def starts_with(path: str | Path, prefix: str) -> bool:
    """Whether ``path`` is a regular file whose first bytes are ``prefix`` (UTF-8): the mark
    of a file ginsim wrote, which it may replace.  Opened by ``open_regular`` (no link
    followed, never waited on); only ``prefix``'s length is read."""
    mark = prefix.encode()
    try:
        fd = open_regular(path, "a file")
    except ValueError:
        return False
    try:
        return os.read(fd, len(mark)) == mark
    except OSError:
        return False
    finally:
        os.close(fd)


# ----------------------------------------------------------------------------- memory

def memory_budget() -> int:
    """The memory one command may plan to use: half of this machine's physical memory."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not a POSIX system
        return 4 << 30


def human_bytes(n: float) -> str:
    """``1.2 GB``: a byte count in decimal units, for messages."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000
    raise AssertionError  # pragma: no cover


def room_problem(count: int, bytes_each: int, units: str, room: int, kind: str, room_text: str, hint: str,
                 step: int = 1) -> str | None:
    """None when ``count`` ``units`` of ``bytes_each`` bytes fit in ``room`` bytes; else the
    one-line problem: what they need (``kind``: "of memory", "on disk"), how many fit in the
    room (``room_text`` says which) and ``hint`` (formatted with ``most``, the most that
    fit, a multiple of ``step``)."""
    need = count * bytes_each
    if need <= room:
        return None
    most = room // bytes_each // step * step
    return (f"{count:,} {units} need about {human_bytes(need)} {kind}, and {human_bytes(room)} {room_text} "
            f"holds {most:,}; {hint.format(most=f'{most:,}')}")


def memory_problem(count: int, bytes_each: int, units: str, hint: str, step: int = 1) -> str | None:
    """``room_problem`` against ``memory_budget``."""
    return room_problem(count, bytes_each, units, memory_budget(), "of memory", "(half this machine's memory)",
                        hint, step)


def disk_problem(where: str | Path, count: int, bytes_each: int, units: str, hint: str) -> str | None:
    """``room_problem`` against the free space of the file system of ``where`` (its nearest
    existing folder)."""
    import shutil

    folder = Path(where).absolute()
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return room_problem(count, bytes_each, units, shutil.disk_usage(folder).free, "on disk", f"free at {folder}",
                        hint)


def check_memory(what: str, count: int, bytes_each: int, units: str, hint: str,
                 error: type[ValueError] = ValueError, step: int = 1) -> None:
    """Refuse ``count`` ``units`` of ``bytes_each`` bytes each when they would not fit in
    ``memory_budget``, before anything is allocated: one line naming ``what`` (the flag,
    key or argument), the memory needed, the most that fits and ``hint`` (what to do
    instead; ``{most}`` is replaced by that most)."""
    problem = memory_problem(count, bytes_each, units, hint, step)
    if problem:
        raise error(f"{what}: {problem}")


def check_disk(what: str, where: str | Path, count: int, bytes_each: int, units: str, hint: str,
               error: type[ValueError] = ValueError) -> None:
    """Refuse ``count`` ``units`` of ``bytes_each`` bytes each to be written under ``where``
    when its file system has not that much free space; one line as ``check_memory``."""
    problem = disk_problem(where, count, bytes_each, units, hint)
    if problem:
        raise error(f"{what}: {problem}")


# ----------------------------------------------------------------------------- Python arguments

def is_int(value: Any) -> bool:
    """An integer that is not a boolean (TOML's true is not 1; numpy's integers count)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_number(value: Any) -> bool:
    """A finite integer or float that is not a boolean."""
    return (is_int(value) or isinstance(value, (float, np.floating))) and math.isfinite(value)


def _num(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() and abs(x) < 2**63 else str(x)


def allowed_words(kind: str, low: float | None = None, high: float | None = None, gt: float | None = None) -> str:
    """The values of a ``kind`` ("int", "number", "bool", "str") within the bounds, in
    words, as errors and the docs' key tables say them."""
    if kind in ("int", "number"):
        what = "an integer" if kind == "int" else "a number"
        if gt == 0:
            return "a positive integer" if kind == "int" else "a positive number"
        if low is not None and high is not None:
            return f"{what} from {_num(low)} to {_num(high)}"
        if low == 1 and kind == "int":
            return "a positive integer"
        if low is not None:
            return f"{what} of at least {_num(low)}"
        return "a finite number" if kind == "number" else what
    if kind == "bool":
        return "true or false"
    return "a string"


def value_problem(kind: str, value: Any, low: float | None = None, high: float | None = None,
                  gt: float | None = None) -> bool:
    """True when ``value`` is not of ``kind`` ("int", "number", "bool", "str") within the
    bounds (``gt``: strictly above)."""
    if kind in ("int", "number"):
        return not ((is_int(value) if kind == "int" else is_number(value))
                    and (low is None or value >= low) and (high is None or value <= high)
                    and (gt is None or value > gt))
    if kind == "bool":
        return not isinstance(value, (bool, np.bool_))
    return not isinstance(value, str)


def argument(name: str, value: Any, kind: str, low: float | None = None, high: float | None = None,
             gt: float | None = None, text: str | None = None) -> Any:
    """``value`` as plain Python (int, float, bool or str) when it is of ``kind`` within the
    bounds, else ``ValueError("NAME must be ALLOWED, got VALUE")`` in the words of an
    experiment file's keys (``text`` replaces the derived words).  A Python API function
    checks each argument with it, so ``1.5`` is no card code, ``True`` no count and ``"no"``
    no flag."""
    if value_problem(kind, value, low, high, gt):
        raise ValueError(f"{name} must be {text or allowed_words(kind, low, high, gt)}, got {value!r}")
    if kind == "int":
        return int(value)
    if kind == "number":
        return float(value) if not is_int(value) else int(value)
    if kind == "bool":
        return bool(value)
    return value


def int_pair(name: str, value: Any, low: int, high: int) -> tuple[int, int]:
    """``value`` as a pair of plain ints when it is two integers from ``low`` to ``high``
    (a tuple, a list or an array), else ``ValueError`` as ``argument`` words it."""
    words = f"a pair of integers from {_num(low)} to {_num(high)}"
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ValueError(f"{name} must be {words}, got {value!r}")
    return tuple(argument(name, v, "int", low, high, text=words) for v in value)
