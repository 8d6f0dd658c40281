"""``ginsim replay``: re-play one stored deal from its seed and tell it turn by turn.

A replay is checked twice: the run directory must be intact (its manifest verified, its
chunks verified as ``show`` verifies them, and its code fingerprint this process's), and
the deal it plays must give exactly the row the run stored, else ``RunError``.  A run's
plug-ins are code: they are registered only with ``trust_plugins`` (``--trust-plugins``),
after their sha256 is checked (``rundir.load_plugins``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..core.narrate import tell_hand
from .rundir import Plan, RunError, code_fingerprint, finish_advice, load_plugins, read_chunk_table, readable_run, run_path

if TYPE_CHECKING:
    import pandas as pd



def stored_row(run_dir: Path, manifest: dict, good: list[Path], cell: int, deal: int) -> dict:
    """The hand row a run stored for (cell, deal), read from its verified chunk file."""
    import pyarrow.compute as pc

    plan = Plan.from_experiment(manifest["experiment"], len(manifest["cells"]))
    chunk = plan.chunk("deals", cell, deal // plan.sizes["deals"][1])
    path = run_dir / chunk.path
    if path not in good:
        raise RunError(f"{run_dir}: {chunk.path}, which holds deal {deal} of cell {cell}, is not written yet; "
                       f"{finish_advice(run_dir)}")
    table = read_chunk_table(run_dir, path, manifest)  # its bytes proven first
    rows = table.filter(pc.equal(table["deal"], deal)).to_pylist()
    if len(rows) != 1:
        raise RunError(f"{path}: holds {len(rows)} rows for deal {deal}, one expected")
    return rows[0]


def deal_trace(run_dir: str | Path, cell: int, deal: int, trust_plugins: bool = False
               ) -> tuple[dict, "pd.Series", list[tuple[int, str, int]]]:
    """One deal of a run re-played from its seed and checked against the row the run stored:
    the cell (as in the manifest), the hand row and the events of ``api.trace_deal``.  What
    ``replay_text`` and the replay page tell."""
    return next(deal_traces(run_dir, cell, [deal], trust_plugins))


def deal_traces(run_dir: str | Path, cell: int, deals, trust_plugins: bool = False):
    """``deal_trace`` of each of ``deals`` of one cell, in order, the run verified once (a
    generator: each deal is re-played and checked when it is asked for; every deal number
    is checked first)."""
    from ..api import trace_deal

    run_dir = run_path(run_dir)
    manifest, verification = readable_run(run_dir, allow_missing=True)
    exp = manifest["experiment"]
    if not exp["deals"]:
        raise ValueError("replay works on runs of single deals (deals = ...), not games")
    cells = {c["cell"]: c for c in manifest["cells"]}
    if cell not in cells:
        raise ValueError(f"--cell must be one of 0..{len(cells) - 1}, got {cell}")
    deals = list(deals)
    for deal in deals:
        if not 0 <= deal < exp["deals"]:
            raise ValueError(f"--deal{'s' if len(deals) > 1 else ''} must be from 0 to {exp['deals'] - 1}, got {deal}")
    c = cells[cell]
    ready_to_play_again(run_dir, manifest, [c], trust_plugins, "a replay would not reproduce its rows")
    return _checked_traces(run_dir, manifest, verification.good["deals"], c, deals, trace_deal)


def ready_to_play_again(run_dir: Path, manifest: dict, cells: list[dict], trust_plugins: bool, why: str) -> None:
    """Before any of a run's ``cells`` (manifest entries) is played again: refuse, in one line
    ending with ``why``, a run this code did not play (its code fingerprint, plug-ins included),
    and register the plug-ins those cells play, only when trusted (``load_plugins``)."""
    exp = manifest["experiment"]
    here = code_fingerprint(exp.get("plugins", {}))
    if here != manifest["code_fingerprint"]:
        raise RunError(f"{run_dir} was played by other code (fingerprint {manifest['code_fingerprint']}, now {here}: "
                       f"ginsim or a plug-in changed), so {why}")
    plays = {str(c[side]).split(":", 1)[0].strip() for c in cells for side in ("a", "b")}
    if plays & set(exp.get("plugins") or {}):  # the cells play plug-in code
        load_plugins(run_dir, manifest, trust_plugins)


def _checked_traces(run_dir: Path, manifest: dict, good: list[Path], c: dict, deals: list[int], trace_deal):
    for deal in deals:
        stored = stored_row(run_dir, manifest, good, c["cell"], deal)
        row, events = trace_deal(c["a"], c["b"], c["rules"], seed=c["seed"], deal=deal,
                                 mirrored=manifest["experiment"]["mirrored"])
        differ = [k for k, v in row.items() if k in stored and _value(v) != _value(stored[k])]
        if differ:
            k = differ[0]
            raise RunError(f"{run_dir}: cell {c['cell']} deal {deal} replays to {k} = {_value(row[k])!r}, the run "
                           f"stored {_value(stored[k])!r} (and {len(differ) - 1} more field(s) differ); the run was "
                           f"not played as its manifest says")
        yield c, row, events


def replay_text(run_dir: str | Path, cell: int, deal: int, trust_plugins: bool = False) -> tuple[str, dict]:
    """The story of one deal of a run, and its hand row (as a dict): each event told by the
    one narrator (``simulator.core.narrate.tell``)."""
    c, row, events = deal_trace(run_dir, cell, deal, trust_plugins)
    names = seat_names(c, int(row["a_seat"]))
    lines = [f"cell {cell} ({c['a']} vs {c['b']}, variant {c['variant']}), deal {deal}", *tell_hand(events, names)]
    record = {k: _value(v) for k, v in row.items()}
    lines.append(f"row: outcome {record['outcome']}, winner {record['winner']}, points {record['points']}, "
                 f"net_a {record['net_a']}")
    return "\n".join(lines), record


def seat_names(cell: dict, a_seat: int) -> list[str]:
    """Each seat's player, by seat: ``A (its spec)`` and ``B (its spec)``."""
    names = ["", ""]
    names[a_seat], names[1 - a_seat] = f"A ({cell['a']})", f"B ({cell['b']})"
    return names


def _value(v):
    """A row value as plain Python, a missing value as None."""
    import pandas as pd

    v = v.item() if hasattr(v, "item") else v
    return None if v is None or (not isinstance(v, str) and pd.isna(v)) else v
