"""Every module of ``simulator`` and ``strategies`` imports on its own, first, in a fresh
interpreter: no import order the user happens to choose meets a half-made module (the
strategy registry, the state machine and the search players import each other's packages)."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _modules() -> list[str]:
    names = []
    for package in ("simulator", "strategies"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__main__":
                continue
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _import_alone(name: str) -> tuple[str, int, str]:
    done = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True, cwd=ROOT)
    last_line = (done.stderr.strip().splitlines() or [""])[-1]
    return name, done.returncode, last_line


def test_every_module_imports_first_in_a_fresh_interpreter():
    names = _modules()
    assert "simulator.engine.state" in names and "strategies.mc" in names
    with ThreadPoolExecutor(max_workers=4) as pool:
        failures = [(n, err) for n, rc, err in pool.map(_import_alone, names) if rc != 0]
    assert failures == []
