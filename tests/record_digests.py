"""Digests of raw engine records for fixed seeds: every built-in strategy on every rules preset.

Each cell is one strategy pair on one preset: its mirrored deals (``play_deal_records``) and a
few games with every hand (``play_game_records(with_hands=True)``), played from fixed seeds.
The digest of a cell is the SHA-256 of those int64 records, so a change to the engine that
alters any row of any built-in on any preset shows up as a changed digest
(``tests/test_record_digests.py`` compares against ``tests/record_digests.json``).

    python tests/record_digests.py --write          # (re)write tests/record_digests.json
    python tests/record_digests.py --save DIR       # also keep the raw records as .npy in DIR
    python tests/record_digests.py --threads 2      # play with that many numba threads
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

DIGESTS = Path(__file__).resolve().with_name("record_digests.json")
SEED = 20260
#: deals per cell (mirrored pairs: 2 records each) and games per cell; the search players
#: (a belief, rollouts) are far slower per deal, so they play fewer
DEALS, GAMES = 2000, 40
SLOW = {"expert": (400, 8), "mc": (100, 4)}


def cells() -> list[tuple[str, str, str]]:
    """(strategy A, strategy B, preset): every built-in against ``simple`` on every preset."""
    from simulator.core.rules import Rules
    from strategies.registry import BUILTIN

    return [(name, "simple", preset) for preset in Rules.PRESETS for name, _ in BUILTIN]


def key(a: str, b: str, preset: str) -> str:
    return f"{a}|{b}|{preset}"


def records(a: str, b: str, preset: str) -> dict[str, np.ndarray]:
    """The raw records of one cell: deals, games and the hands of those games."""
    from simulator import api

    n_deals, n_games = SLOW.get(a, (DEALS, GAMES))
    seed = SEED + sum(map(ord, key(a, b, preset)))
    deals = api.play_deal_records(a, b, preset, 0, n_deals, seed)
    games, hands = api.play_game_records(a, b, preset, 0, n_games, seed + 1, with_hands=True)
    return {"deals": deals, "games": games, "hands": hands}


def digest(parts: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(parts):
        arr = np.ascontiguousarray(parts[name], dtype=np.int64)
        h.update(f"{name}:{arr.shape}".encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def compute(selection=None, save: Path | None = None) -> dict[str, str]:
    out = {}
    for a, b, preset in cells():
        k = key(a, b, preset)
        if selection is not None and k not in selection:
            continue
        parts = records(a, b, preset)
        if save is not None:
            save.mkdir(parents=True, exist_ok=True)
            for name, arr in parts.items():
                np.save(save / f"{a}-{b}-{preset}-{name}.npy", arr)
        out[k] = digest(parts)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true", help="write the digests to tests/record_digests.json")
    p.add_argument("--save", type=Path, help="also save the raw records as .npy files in this directory")
    p.add_argument("--threads", type=int, default=0, help="numba threads (default: numba's)")
    args = p.parse_args(argv)
    if args.threads:
        import numba

        numba.set_num_threads(args.threads)
    got = compute(save=args.save)
    if args.write:
        tmp = DIGESTS.with_suffix(".tmp")
        tmp.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        tmp.replace(DIGESTS)
        return 0
    want = json.loads(DIGESTS.read_text()) if DIGESTS.exists() else {}
    changed = sorted(k for k in got if want.get(k) != got[k])
    for k in changed:
        print(f"changed: {k}")
    print(f"{len(got) - len(changed)} of {len(got)} cells identical")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main())
