"""``ginsim replay``: re-play one stored deal from its seed and tell it turn by turn."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..core.cards import format_card, format_cards, mask_cards
from .rundir import RunError, code_fingerprint, read_manifest

if TYPE_CHECKING:
    import pandas as pd


def deal_trace(run_dir: str | Path, cell: int, deal: int) -> tuple[dict, "pd.Series", list[tuple[int, str, int]]]:
    """One deal of a run re-played from its seed: the cell (as in the manifest), the hand
    row and the events of ``api.trace_deal``.  What ``replay_text`` and the replay page tell."""
    from ..api import trace_deal

    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    exp = manifest["experiment"]
    here = code_fingerprint(exp.get("plugins", {}))
    if here != manifest["code_fingerprint"]:
        raise RunError(f"{run_dir} was played by other code (fingerprint {manifest['code_fingerprint']}, now {here}: "
                       f"ginsim or a plug-in changed), so a replay would not reproduce its rows")
    if not exp["deals"]:
        raise ValueError("replay works on runs of single deals (deals = ...), not games")
    cells = {c["cell"]: c for c in manifest["cells"]}
    if cell not in cells:
        raise ValueError(f"--cell must be one of 0..{len(cells) - 1}, got {cell}")
    if not 0 <= deal < exp["deals"]:
        raise ValueError(f"--deal must be from 0 to {exp['deals'] - 1}, got {deal}")
    import strategies

    for name, path in exp.get("plugins", {}).items():
        strategies.register(name, path)
    c = cells[cell]
    row, events = trace_deal(c["a"], c["b"], c["rules"], seed=c["seed"], deal=deal, mirrored=exp["mirrored"])
    return c, row, events


def replay_text(run_dir: str | Path, cell: int, deal: int) -> tuple[str, dict]:
    """The story of one deal of a run, and its hand row (as a dict)."""
    c, row, events = deal_trace(run_dir, cell, deal)
    a_seat = int(row["a_seat"])
    name = {a_seat: f"A ({c['a']})", 1 - a_seat: f"B ({c['b']})", -1: "table"}
    dealt = {0: [], 1: []}
    lines = [f"cell {cell} ({c['a']} vs {c['b']}, variant {c['variant']}), deal {deal}"]
    for seat, kind, value in events:
        if kind == "deal":
            dealt[seat].append(value)
            if len(dealt[0]) + len(dealt[1]) == 20:
                for s in (0, 1):
                    lines.append(f"{name[s]} holds {format_cards(sorted(dealt[s]))}")
        else:
            lines.append(describe_event(name[seat], seat, kind, value))
    record = {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
    lines.append(f"row: outcome {record['outcome']}, winner {record['winner']}, points {record['points']}, "
                 f"net_a {record['net_a']}")
    return "\n".join(lines), record


_VERBS = {"decline": "declines", "take_pile": "takes from the pile", "draw_stock": "draws from the stock",
          "discard": "discards", "pass_last_discard": "passes on the last discard"}


def describe_event(who: str, seat: int, kind: str, value: int) -> str:
    """One event of a trace (any but ``deal``) in words; ``who`` names the seat's player."""
    if kind == "upcard":
        return f"upcard {format_card(value)}"
    if kind in _VERBS:
        return f"{who} {_VERBS[kind]} {format_card(value)}"
    if kind in ("knock", "gin", "big_gin"):
        return f"{who} {kind.replace('_', ' ')}s" + (f" with deadwood {value}" if kind == "knock" else "")
    if kind in ("sets", "runs"):
        return f"  {kind}: {format_cards(mask_cards(value)) or '-'}"
    if kind == "defend":
        how = "with the best response" if value < 0 else f"with its least-deadwood arrangement {value}"
        return f"{who} defends {how}"
    if kind == "layoff":
        return f"{who} lays off {format_cards(mask_cards(value)) or 'nothing'}"
    if kind == "defender_deadwood":
        return f"{who} deadwood after layoffs: {value}"
    if kind == "reshuffle":
        return f"the pile is reshuffled into a new stock of {value} cards"
    if kind == "dead":
        return "the stock is down to its last cards: dead hand, nobody scores"
    if kind == "score":
        return f"{who} scores {value}" if seat >= 0 else "tie: nobody scores"
    return f"{who}: {kind} {value}"
