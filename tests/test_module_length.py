"""No production module (simulator/ and strategies/) is longer than MAX_LINES lines: a module
that grows past it holds more than one concern and is split into modules named by them
(issue 56).  The modules still waiting for their split are listed in SPLIT_PENDING, each with
its concerns; the test fails when one of them is split (drop it) or when any other grows."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 800
#: module path -> its concerns, to be split into modules of their own
SPLIT_PENDING: dict[str, str] = {}


def _lengths() -> dict[str, int]:
    lengths = {}
    for root in ("simulator", "strategies"):
        for path in sorted((ROOT / root).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if "__pycache__" not in rel:
                lengths[rel] = len(path.read_text(encoding="utf-8").splitlines())
    return lengths


def test_no_production_module_is_longer_than_800_lines_but_those_waiting_for_their_split():
    lengths = _lengths()
    too_long = {path: n for path, n in lengths.items() if n > MAX_LINES and path not in SPLIT_PENDING}
    assert not too_long, f"modules over {MAX_LINES} lines (split them by concern): {too_long}"
    done = {path for path in SPLIT_PENDING if lengths.get(path, 0) <= MAX_LINES}
    assert not done, f"no longer over {MAX_LINES} lines, drop from SPLIT_PENDING: {sorted(done)}"
