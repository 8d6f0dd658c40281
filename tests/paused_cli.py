"""Run the ``ginsim`` command line and freeze it at a known point, for the kill tests.

    python tests/paused_cli.py FLAG N [--at MODULE:OWNER.FUNCTION] ginsim-arguments...

Every progress update (``tqdm.tqdm.update``, called once per chunk written by ``ginsim run``
and once per finished trial by ``ginsim tune``, whether or not the bar is shown) is counted;
after the N-th one returns, the process writes N to the file FLAG and blocks, so a test that
waits for FLAG kills a run that is exactly N steps in, instead of guessing a time window.
``--at`` counts the calls of another function instead (a method as ``module:Class.method``),
e.g. ``simulator.studies.tune.field:Field.pair_values`` to freeze a tuning inside a trial.
It exits by itself after ``GIVE_UP`` seconds if nobody kills it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

GIVE_UP = 900.0
SCRIPT = Path(__file__).resolve()


def start_paused(flag: Path, n: int, *args: str, at: str | None = None, **popen) -> subprocess.Popen:
    """``ginsim ARGS`` in a child that freezes after its N-th progress update (or its N-th
    call of the function ``at``, ``module:Owner.function``)."""
    where = ["--at", at] if at else []
    return subprocess.Popen([sys.executable, str(SCRIPT), str(flag), str(n), *where, *map(str, args)], **popen)


def wait_until_paused(proc: subprocess.Popen, flag: Path, timeout: float = 600.0) -> None:
    """Block until the child has written FLAG (it is then frozen, alive), or fail if it ended
    first; ``timeout`` only bounds a broken child, it is not a window the test relies on."""
    deadline = time.monotonic() + timeout
    while not flag.exists():
        if proc.poll() is not None:
            raise AssertionError(f"the child ended (status {proc.returncode}) before pausing")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"the child did not pause within {timeout:.0f} s")
        time.sleep(0.05)
    assert proc.poll() is None, "the child should be frozen, not finished"


def _owner_and_name(at: str) -> tuple[object, str]:
    """The object holding the function ``module:Owner.function`` (or ``module:function``) and its name."""
    import importlib

    module, _, path = at.partition(":")
    *owners, name = path.split(".")
    owner = importlib.import_module(module)
    for part in owners:
        owner = getattr(owner, part)
    return owner, name


def main() -> int:
    flag, n, args = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    at = "tqdm:tqdm.update"
    if args[:1] == ["--at"]:
        at, args = args[1], args[2:]
    owner, name = _owner_and_name(at)
    real = getattr(owner, name)
    calls = [0]
    lock = threading.Lock()

    def counted(*a, **k):
        result = real(*a, **k)
        with lock:
            calls[0] += 1
            reached = calls[0] == n
        if reached:
            temp = flag.with_name(flag.name + ".tmp")
            temp.write_text(str(n))
            os.replace(temp, flag)  # the test sees the flag whole
            threading.Event().wait(GIVE_UP)
            os._exit(3)
        return result

    setattr(owner, name, counted)
    from simulator.cli import main as cli

    return cli(args)


if __name__ == "__main__":
    sys.exit(main())
