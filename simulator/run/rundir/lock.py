"""One writer per run directory: ``RunLock`` and the outputs written under it.

``RunLock`` holds an exclusive ``fcntl`` lock on ``.ginsim-run.lock`` for the whole run (the
kernel drops it when its holder dies, even by ``kill -9``); a second process is refused with the
holder's pid, host and experiment (``live_holder``).  ``locked_output`` and ``kept_state`` give
the same one-writer rule to other commands' output folders.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...infra.inputs import read_json

from .manifest import LOCK, LOCK_TRIES, RunError, SUBDIR


# ----------------------------------------------------------------------------- the lock

class RunLock:
    """An exclusive lock on a run directory for the life of one ``ginsim run``.

    ``fcntl.flock`` on a file in the directory: the operating system releases it when the
    holder exits in any way, so only live processes block.  The file records who holds it.
    It is opened with ``O_NOFOLLOW`` and must be a regular file with a single link, so
    the lock never writes through a link to a file outside the directory.
    """

    def __init__(self, run_dir: Path, what: str):
        self.path = Path(run_dir) / LOCK
        self.what = what
        self.fd: int | None = None

    def __enter__(self) -> "RunLock":
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise RunError(f"{self.path} is a symbolic link; ginsim writes its lock only to a file of its own "
                               f"there: remove the link or choose another --out") from None
            raise
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            os.close(fd)
            raise RunError(f"{self.path} is not a plain file of its own (a "
                           f"{'hard link' if stat.S_ISREG(info.st_mode) else 'special file'}); ginsim writes its "
                           f"lock only to a file of its own there: remove it or choose another --out")
        for _ in range(LOCK_TRIES):  # a reader's probe (live_holder) holds it for an instant only
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise
            time.sleep(0.05)
        else:
            os.close(fd)
            raise RunError(f"{self.path.parent} is in use by another ginsim run ({self.holder()}); "
                           f"wait for it or choose another --out")
        self.fd = fd
        info = {"pid": os.getpid(), "host": socket.gethostname(), "what": self.what,
                "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        return self

    def holder(self) -> str:
        try:
            info = read_json(self.path, "a lock file", RunError, limit=1 << 16)
            return f"pid {info['pid']} on {info['host']}, {info['what']}, since {info['since']}"
        except (RunError, KeyError, TypeError):
            return "holder unknown"

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def live_holder(run_dir: Path) -> str | None:
    """Who is writing ``run_dir`` now (``RunLock.holder``), or None when no live process
    holds its lock: the lock is taken shared for an instant and given back, which a run
    starting in that instant waits out (``LOCK_TRIES``)."""
    try:
        fd = os.open(Path(run_dir) / LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None  # no lock file: no run has written here
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        return RunLock(run_dir, "").holder() if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES) else None
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def finish_advice(run_dir: Path) -> str:
    """How an unfinished run gets finished, for the messages that find one: wait for the
    live ginsim run writing it, else resume it."""
    holder = live_holder(run_dir)
    if holder is not None:
        return f"ginsim is still writing this run ({holder}): wait for it to finish"
    return f"finish the run with: ginsim run EXPERIMENT --out {run_dir} --resume"


def locked_output(out: Path, what: str, error: type[Exception], work: Callable[[], Any]) -> Any:
    """Make the output directory ``out`` and run ``work()`` holding its ``RunLock`` (for
    ``ginsim tune`` and ``ginsim equilibrium``): a directory that cannot be made, or that
    another process holds, is refused as ``error`` with one line."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise error(f"output directory {out} is not writable: {exc.strerror or exc}") from None
    try:
        with RunLock(out, what):
            return work()
    except RunError as exc:
        raise error(str(exc)) from None


def kept_state(out: Path, resume: bool, state_file: str, mark: str, error: type[Exception], kind: str,
               locked: bool = True) -> dict[str, Any] | None:
    """The kept state (``out/state_file``, a JSON document whose ``_`` is ``mark``) of a
    resumable study in ``out`` (``ginsim equilibrium``'s runs; ``kind`` names one in errors),
    or None for a new run.  Refused as ``error`` with one line: ``out`` a file, a state there
    without --resume, a state that cannot be read or that ginsim did not write, a non-empty
    directory without one.  Before the lock is taken (``locked`` false) a directory with a lock
    file and no state yet is left to the lock: a run that has just started there holds it."""
    if out.exists() and not out.is_dir():
        raise error(f"--out {out} is a file, not a directory")
    if not out.exists():
        return None
    state = out / state_file
    if state.exists():
        if not resume:
            raise error(f"{out} already holds {kind}; continue it with --resume or choose another out")
        try:
            data = read_json(state, kind.removeprefix("an ").removeprefix("a ") + "'s state", error)
        except error as exc:
            raise error(f"{exc}; move it away or choose another out") from None
        if not isinstance(data, dict) or data.get("_") != mark:
            raise error(f"{state} was not written by ginsim; move it away or choose another out")
        return data
    entries = [p.name for p in out.iterdir() if p.name != LOCK]
    if not locked and (out / LOCK).exists():
        return None
    if entries:
        raise error(f"--out {out} is not empty and holds no {kind.removeprefix('an ').removeprefix('a ')} "
                    f"(found {sorted(entries)[0]!r}); choose a new or empty directory")
    return None


def check_subdirs(run_dir: Path) -> None:
    """Refuse a ``data/`` or ``games/`` that is not a real directory inside ``run_dir`` (a
    symbolic link would send chunk writes outside the run directory)."""
    for sub in SUBDIR.values():
        folder = Path(run_dir) / sub
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            raise RunError(f"{folder} is {'a symbolic link' if folder.is_symlink() else 'not a directory'}; a run "
                           f"writes only into real directories of its own: remove it or choose another --out")
