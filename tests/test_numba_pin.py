"""numba is pinned to the releases ginsim is tested on, and the one installed is one of them.

ginsim reaches into numba's internals (the kernel cache's seals in ``simulator.infra.cache``,
the callee dispatchers of ``simulator.infra.jit``, the word views of ``simulator.infra.words``),
so ``pyproject.toml`` admits only the tested range: TESTED lists its releases, its lowest is the
pin's lower end, and the pin stops before the next minor release.  The whole suite runs on the
installed numba, which must be one of TESTED: a range is widened by adding a release to
TESTED, and the pin with it, once the suite has passed on it.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
#: the numba releases the whole suite has passed on (lowest and highest: the pin's ends)
TESTED = ("0.68.1",)


def _numba_requirement() -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (line,) = [d for d in project["dependencies"] if Requirement(d).name == "numba"]
    return Requirement(line)


def test_the_pin_spans_exactly_the_tested_releases():
    spec = _numba_requirement().specifier
    lowest, highest = min(map(Version, TESTED)), max(map(Version, TESTED))
    assert all(spec.contains(str(v)) for v in map(Version, TESTED))
    assert {(s.operator, s.version) for s in spec} == {(">=", str(lowest)), ("<", f"0.{highest.minor + 1}")}


def test_the_installed_numba_is_a_tested_release():
    installed = version("numba")
    assert installed in TESTED, f"numba {installed} is not among the tested releases {TESTED}"
