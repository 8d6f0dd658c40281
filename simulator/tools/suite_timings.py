"""How long the README's two commands and the test tiers take, measured and written into the
docs, never typed: ``docs/test-timings.json`` keeps the last measurement of each target, and
docs/development.md's table and the README's line are generated from it.

    python -m simulator.tools.suite_timings measure fast        # the fast tier (pytest)
    python -m simulator.tools.suite_timings measure quickstart  # ginsim run quickstart, empty cache
    python -m simulator.tools.suite_timings measure ci          # mkdocs, lint-imports, both tiers, empty cache
    python -m simulator.tools.suite_timings write               # the table and the line from the JSON
    python -m simulator.tools.suite_timings write --check       # exit 1 when they are stale

``measure`` waits (at most ``SETTLE_SECONDS``) for the load average to settle below
``IDLE_LOAD``, then runs the target in child processes from the checkout's root, with an empty
kernel cache (``GINSIM_CACHE_DIR`` a new temporary directory) unless ``--warm`` (the user's
cache as it is), and records wall time, CPU time of the children (user + system), the
machine's cores and its load average before and after (a figure taken while other work ran
says so), the test counts (pytest's JUnit XML), the slowest tests, the date and the commit;
then it writes the docs.  The installs of the README's commands (``pip install``) are not
timed: they depend on the network and on what the machine holds already.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "test-timings.json"
PAGE = ROOT / "docs" / "development.md"
README = ROOT / "README.md"
PROG = "python -m simulator.tools.suite_timings"

#: what each target runs (from the checkout's root), and how the docs name it
TARGETS = {
    "fast": {"steps": [["pytest", "-q", "-p", "no:cacheprovider"]],
             "what": "fast tier (`pytest`)"},
    "quickstart": {"steps": [["ginsim", "run", "quickstart", "--out", "{tmp}/quickstart", "--quiet"]],
                   "what": "README's first command, without the install (`ginsim run quickstart`)"},
    "ci": {"steps": [["mkdocs", "build", "--strict", "-d", "{tmp}/site"], ["lint-imports"],
                     ["pytest", "-q", "-p", "no:cacheprovider", "-m", "slow or not slow"]],
           "what": "README's second command, without the install (`mkdocs build --strict && lint-imports && "
                   "pytest -m \"slow or not slow\"`, what CI runs)"},
}
#: a machine counts as idle when its load average stays below this many busy cores besides ours
IDLE_LOAD = 0.3
#: how long ``measure`` waits, at most, for the load average to fall below ``IDLE_LOAD`` first
SETTLE_SECONDS = 300


def settle(limit: float = SETTLE_SECONDS) -> float:
    """Wait until the one-minute load average is below ``IDLE_LOAD`` (what a job that just
    ended leaves behind takes a minute or two to decay), at most ``limit`` seconds; returns the
    load average then."""
    deadline = time.monotonic() + limit
    load = os.getloadavg()[0]
    if load >= IDLE_LOAD:
        print(f"suite_timings: waiting for the load average ({load:.2f}) to fall below {IDLE_LOAD} "
              f"(at most {limit:.0f} s)", file=sys.stderr)
    while load >= IDLE_LOAD and time.monotonic() < deadline:
        time.sleep(5)
        load = os.getloadavg()[0]
    return load


def is_idle(m: dict) -> bool:
    """Whether a measurement was taken on an otherwise idle machine: the load average below
    ``IDLE_LOAD`` before, and after once the cores the target itself kept busy (its CPU time
    over its wall time) are taken out."""
    own = m["cpu_s"] / m["wall_s"] if m["wall_s"] > 0 else 0.0
    return m["load_before"] < IDLE_LOAD and m["load_after"] - own < IDLE_LOAD


def _command(step: list[str], tmp: str) -> list[str]:
    """A step's command line: ``pytest``/``ginsim`` through this interpreter, ``{tmp}`` filled."""
    argv = [part.format(tmp=tmp) for part in step]
    if argv[0] == "pytest":
        return [sys.executable, "-m", "pytest", *argv[1:]]
    if argv[0] == "ginsim":
        return [sys.executable, "-m", "simulator.cli", *argv[1:]]
    return argv


def _junit_counts(path: Path) -> dict:
    """Tests passed, failed and skipped, and the five slowest (name, seconds), from pytest's
    JUnit XML."""
    suites = ET.parse(path).getroot()
    cases = list(suites.iter("testcase"))
    failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
    skipped = sum(1 for c in cases if c.find("skipped") is not None)
    slowest = sorted(cases, key=lambda c: -float(c.get("time", 0)))[:5]
    return {"passed": len(cases) - failed - skipped, "failed": failed, "skipped": skipped,
            "slowest": [[f"{c.get('classname', '').rsplit('.', 1)[-1]}::{c.get('name')}", round(float(c.get('time', 0)), 1)]
                        for c in slowest]}


def measure(target: str, warm: bool = False) -> dict:
    """Run ``target`` once and return its measurement (see the module's docstring)."""
    spec = TARGETS[target]
    with tempfile.TemporaryDirectory(prefix="ginsim-timings-") as tmp:
        env = {**os.environ}
        if not warm:
            env["GINSIM_CACHE_DIR"] = str(Path(tmp) / "cache")
            env.pop("NUMBA_CACHE_DIR", None)
        junit = Path(tmp) / "junit.xml"
        load_before = settle()
        usage0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall0 = time.perf_counter()
        for step in spec["steps"]:
            argv = _command(step, tmp)
            if step[0] == "pytest":
                argv.append(f"--junitxml={junit}")
            done = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{' '.join(step)} failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
        wall = time.perf_counter() - wall0
        usage1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        load_after = os.getloadavg()[0]
        counts = _junit_counts(junit) if junit.exists() else {}
    cpu = (usage1.ru_utime - usage0.ru_utime) + (usage1.ru_stime - usage0.ru_stime)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    return {"target": target, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "cores": os.cpu_count(),
            "load_before": round(load_before, 3), "load_after": round(load_after, 3),
            "cache": "warm" if warm else "empty", "date": date.today().isoformat(), "commit": commit.strip(),
            **counts}


def _duration(seconds: float) -> str:
    return f"{seconds:,.0f} s" if seconds < 120 else f"{seconds:,.0f} s ({seconds / 60:.0f} min)"


def _machine(m: dict) -> str:
    state = "idle" if is_idle(m) else f"loaded: load average {m['load_before']:.1f} before, {m['load_after']:.1f} after"
    return f"{m['cores']} cores, {state}"


def table(data: dict) -> str:
    """docs/development.md's table of the measurements in ``data`` (target -> measurement)."""
    lines = ["| what | tests | wall | CPU | machine | kernel cache | measured |", "|---|---:|---:|---:|---|---|---|"]
    for target in TARGETS:
        m = data.get(target)
        if m is None:
            continue
        tests = (f"{m['passed']:,} passed, {m['skipped']} skipped" + (f", {m['failed']} failed" if m["failed"] else "")
                 if "passed" in m else "")
        lines.append(f"| {TARGETS[target]['what']} | {tests} | {_duration(m['wall_s'])} | {_duration(m['cpu_s'])} | "
                     f"{_machine(m)} | {m['cache']} | {m['date']}, {m['commit']} |")
    slow = [f"`{name}` {seconds} s" for target in ("fast",) if target in data for name, seconds in data[target]["slowest"]]
    if slow:
        lines += ["", "The fast tier's slowest tests in that run: " + ", ".join(slow) + "."]
    return "\n".join(lines)


def readme_line(data: dict) -> str:
    """The README's sentence on how long its two commands take."""
    def said(target: str, what: str) -> str:
        m = data.get(target)
        if m is None:
            return f"{what}: not measured yet ({PROG} measure {target})"
        return f"{what} {_duration(m['wall_s'])} of wall time ({_machine(m)}, empty kernel cache, {m['date']})"

    return (said("quickstart", "Without the installs, the first command takes") + "; "
            + said("ci", "the second") + "; the fast tier alone (`pytest`) "
            + (f"{_duration(data['fast']['wall_s'])}" if "fast" in data else "is not measured yet")
            + " ([every figure](docs/development.md#test-timings)).")


def _replace(text: str, name: str, body: str, where: Path) -> str:
    begin = f"<!-- timings:{name}:begin (generated by {PROG} write; do not edit) -->"
    end = f"<!-- timings:{name}:end -->"
    head, sep, rest = text.partition(begin)
    _, sep2, tail = rest.partition(end)
    if not sep or not sep2:
        raise SystemExit(f"{where}: no {begin!r} ... {end!r} lines")
    return head + begin + "\n" + body + "\n" + end + tail


def write(check: bool = False) -> int:
    """Write (or with ``check``, compare) the table and the README's line from the JSON; 1
    when ``check`` finds one stale."""
    data = json.loads(DATA.read_text()) if DATA.exists() else {}
    stale = []
    for path, name, body in ((PAGE, "table", table(data)), (README, "readme", readme_line(data))):
        old = path.read_text(encoding="utf-8")
        new = _replace(old, name, body, path)
        if new != old:
            stale.append(path)
            if not check:
                path.write_text(new, encoding="utf-8")
    for path in stale:
        print(f"{path.relative_to(ROOT)}: {'stale' if check else 'rewritten'}", file=sys.stderr)
    return 1 if stale and check else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description="Measure the README's commands and the test tiers, "
                                                            "and write the timings into the docs.")
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="run a target and record its timing, then write the docs")
    m.add_argument("target", choices=list(TARGETS), help="what to run")
    m.add_argument("--warm", action="store_true", help="keep the user's kernel cache (default: an empty one)")
    w = sub.add_parser("write", help="write the docs from docs/test-timings.json")
    w.add_argument("--check", action="store_true", help="exit 1 when the docs are stale instead of writing")
    args = parser.parse_args(argv)
    if args.command == "measure":
        data = json.loads(DATA.read_text()) if DATA.exists() else {}
        data[args.target] = measure(args.target, args.warm)
        DATA.write_text(json.dumps(data, indent=2) + "\n")
        print(json.dumps(data[args.target], indent=2))
        return write()
    return write(args.check)


if __name__ == "__main__":
    sys.exit(main())
