"""``ginsim replay``: re-play one stored deal from its seed and tell it turn by turn."""

from __future__ import annotations

from pathlib import Path

from ..core.cards import format_card, format_cards, mask_cards
from .rundir import RunError, code_fingerprint, read_manifest


def replay_text(run_dir: str | Path, cell: int, deal: int) -> tuple[str, dict]:
    """The story of one deal of a run, and its hand row (as a dict)."""
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
        elif kind == "upcard":
            lines.append(f"upcard {format_card(value)}")
        elif kind in ("decline", "take_pile", "draw_stock", "discard", "pass_last_discard"):
            verb = {"decline": "declines", "take_pile": "takes from the pile", "draw_stock": "draws from the stock",
                    "discard": "discards", "pass_last_discard": "passes on the last discard"}[kind]
            lines.append(f"{name[seat]} {verb} {format_card(value)}")
        elif kind in ("knock", "gin", "big_gin"):
            lines.append(f"{name[seat]} {kind.replace('_', ' ')}s" + (f" with deadwood {value}" if kind == "knock" else ""))
        elif kind in ("sets", "runs"):
            lines.append(f"  {kind}: {format_cards(mask_cards(value)) or '-'}")
        elif kind == "defend":
            how = "with the best response" if value < 0 else f"with its least-deadwood arrangement {value}"
            lines.append(f"{name[seat]} defends {how}")
        elif kind == "layoff":
            lines.append(f"{name[seat]} lays off {format_cards(mask_cards(value)) or 'nothing'}")
        elif kind == "defender_deadwood":
            lines.append(f"{name[seat]} deadwood after layoffs: {value}")
        elif kind == "reshuffle":
            lines.append(f"the pile is reshuffled into a new stock of {value} cards")
        elif kind == "dead":
            lines.append("the stock is down to its last cards: dead hand, nobody scores")
        elif kind == "score":
            lines.append(f"{name[seat]} scores {value}" if seat >= 0 else "tie: nobody scores")
    record = {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
    lines.append(f"row: outcome {record['outcome']}, winner {record['winner']}, points {record['points']}, "
                 f"net_a {record['net_a']}")
    return "\n".join(lines), record
