"""Control-variate estimates of a finished run's matchups: ``ginsim report RUN --control CONTROL``.

A run's report gives every figure as the plain estimate: the mean of its independent units (a
mirrored pair of deals or of games) with a Student t interval.  With ``--control`` the report
also estimates, for every cell in which two different strategies meet, A's net points per hand
and A's share of games won with control variates (``simulator.studies.controls``: the draws'
luck, with the players' self-play on the same deals or with the hands exchanged), each quantity
being exactly 0 in expectation, so the reduced estimate is unbiased.  The controls are played on the run's own
deals and games: the manifest records each cell's seed, and deal ``d`` of a cell is deal ``d``
of that seed (``simulator.run.runner.rows``).  The plain estimate of the same units stays
beside each reduced one.  When the control counts the draws' luck, each self-play cell's seat
edge is estimated too, the first mover's net points per hand and its share of games won less ½,
with the draws' luck and the deal's luck counted for the first mover and the hands exchanged (the
same deals, or each hand of the same games, played again with their two hands exchanged:
``controls.reduce_pairs``; a self-play control has nothing to add to a self-play).

Each cell's row is kept, sealed, as it is done (``CHECKPOINT``, in the report's folder), so an
interrupted report resumes with the cells it finished; the report removes it once written.

What is refused, in one line: a run that is not mirrored (the controls are defined on mirrored
pairs); a run played by other code than this ginsim's (its deals would not be played again as
they were); a run with nothing the control estimates (self-play cells only, whose value to A is
0 by construction, with a control without the draws' luck or a run without hands); a run's
plug-ins unless trusted (``replay.ready_to_play_again``); kept rows that were edited; and, with
the draws' luck, a replay whose values differ from the run's rows.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..analysis.rendering import atomic_write
from ..analysis.stats import estimators as est
from ..analysis.stats.frames import first_mover_net, first_mover_win, win_value
from ..run.replay import ready_to_play_again
from ..run.rundir import Plan, RunError, read_chunk_table, read_sealed, readable_run, run_path, seal
from . import controls
from .control_names import GAMES_ONLY, SEAT_EDGE_SWAP

#: per mode of a run, the unit its controls measure and what that unit's value is, in words
UNITS = {"deals": ("hand", "net points per hand to A"), "games": ("game", "A's share of games won")}
#: a self-play cell's seat edge: per mode of a run, what is measured, and the controls it takes
#: (its draws' luck and the deal's luck, counted for the first mover, and the same deals or games
#: with their hands exchanged: ``controls.reduce_pairs``)
SEAT_EDGE = {"deals": "the first mover's net points per hand", "games": "the first mover's share of games won - 1/2"}
SEAT_EDGE_CONTROL = SEAT_EDGE_SWAP


def cell_units(run_dir: Path, manifest: dict, good: list[Path], cell: int, mode: str,
               first_mover: bool = False) -> np.ndarray:
    """A cell's value per mirrored pair, in pair order, from its verified chunk files: A's net
    points per hand (mode "deals") or A's share of the pair's games won (mode "games": a game
    won counts 1, lost 0, without a winner ½, as ``game_stats`` counts it); ``first_mover``: the
    seat edge, the net points per hand of the seat that moves first (the non-dealer), or its share
    of games won less ½ (the non-dealer of a game's first hand), as the reports' first-mover edge
    counts them."""
    plan = Plan.from_experiment(manifest["experiment"], len(manifest["cells"]))
    good = set(good)
    index = "deal" if mode == "deals" else "game"
    parts = []
    for i in range(plan.chunks_per_cell(mode)):
        path = run_dir / plan.chunk(mode, cell, i).path
        if path not in good:
            raise RunError(f"{run_dir}: {plan.chunk(mode, cell, i).path} is not written yet; finish the run first")
        columns = [index, "net_a", "a_dealt"] if mode == "deals" else [index, "winner", "a_dealt_first"]
        table = read_chunk_table(run_dir, path, manifest, columns).to_pandas()
        order = table[index].to_numpy()
        if not bool((np.diff(order) == 1).all()) or (parts and order[0] != parts[-1][0][-1] + 1):
            raise RunError(f"{path}: its rows are not the cell's {index}s in order")
        if mode == "deals":
            values = table["net_a"].to_numpy(dtype=np.float64)
            if first_mover:
                values = first_mover_net(values, table["a_dealt"].to_numpy(dtype=bool))
        else:
            values = win_value(table["winner"], "a")
            if first_mover:
                values = controls.first_mover_edge(first_mover_win(values, table["a_dealt_first"].to_numpy(dtype=bool)),
                                                   "game")
        parts.append((order, values))
    values = np.concatenate([v for _, v in parts])
    if len(values) % 2:
        raise RunError(f"{run_dir}: cell {cell} holds an odd number of {index}s, so not mirrored pairs")
    return values.reshape(-1, 2).mean(axis=1)


def run_estimates(run_dir: str | Path, control: str, trust_plugins: bool = False, progress: bool = True,
                  keep_in: Path | None = None) -> pd.DataFrame:
    """Every cell of two different strategies in a complete run, estimated plain and with
    ``control`` (``control_names.CONTROLS``) played on the run's own mirrored pairs: one row
    per cell and unit (hand, game) with both estimates, how many times fewer pairs the reduced
    one needs (``estimators.deals_ratio``) and the CPU seconds the controls took.

    With ``keep_in`` (the report's folder, made when the first cell is done) each cell's row is
    kept as it is done (``CHECKPOINT``), so that an interrupted call resumes where it stopped:
    rows kept for this run, this code and this control are taken as they are, any other kept
    rows are played again (``discard_checkpoint`` removes the file once the report is out)."""
    from tqdm.auto import tqdm

    from ..run.runner.play import bar_disabled

    controls.check_control(control)
    run_dir = run_path(run_dir)
    manifest, verification = readable_run(run_dir)
    experiment = manifest["experiment"]
    if not experiment.get("mirrored", True):
        raise ValueError(f"--control plays its controls on mirrored pairs, and {run_dir} is not mirrored")
    work = _work(manifest, control)
    if not work:
        raise ValueError(f"--control: {run_dir} has no cell in which two different strategies meet, and a self-play "
                         f"cell's seat edge takes the draws' luck (--control draws)")
    ready_to_play_again(run_dir, manifest, [c for c, _ in work], trust_plugins,
                        "its deals would not be played again as they were")
    checkpoint = None if keep_in is None else Path(keep_in) / CHECKPOINT
    whose = {"run_id": manifest["run_id"], "code_fingerprint": manifest["code_fingerprint"], "control": control}
    done = _kept_rows(checkpoint, whose)
    with tqdm(total=len(work), initial=len(done), disable=bar_disabled(progress), unit="cell",
              desc=f"controls ({control})", leave=False) as bar:
        for c, mode in work:
            key = f"{c['cell']}:{mode}"
            if key in done:
                continue
            done[key] = _cell_row(run_dir, manifest, verification.good[mode], c, mode, control)
            if checkpoint is not None:
                checkpoint.parent.mkdir(parents=True, exist_ok=True)
                rows = {k: {name: _plain_json(v) for name, v in row.items()} for k, row in done.items()}
                atomic_write(checkpoint, json.dumps(seal({"generator": GENERATOR, **whose, "rows": rows})))
            bar.update(1)
    return pd.DataFrame([done[f"{c['cell']}:{mode}"] for c, mode in work])


def _work(manifest: dict, control: str) -> list[tuple[dict, str]]:
    """What ``control`` estimates in a run, in cell order: (cell, mode) for both modes of each
    cell of two different strategies and, when the control counts the draws' luck, of each
    self-play cell (its seat edges, with ``SEAT_EDGE_CONTROL``)."""
    modes = [m for m in UNITS if manifest["experiment"].get(m)]
    draws = "draws" in control.split("+")
    games_only = control in GAMES_ONLY  # the run's hands are left to another control
    return [(c, m) for c in manifest["cells"] for m in modes
            if c["a"] == c["b"] and draws or c["a"] != c["b"] and not (games_only and m == "deals")]


def _cell_row(run_dir: Path, manifest: dict, good: list[Path], cell: dict, mode: str, control: str) -> dict:
    """One cell's unit (``mode``) estimated plain and with ``control``, or a self-play cell's
    seat edge with ``SEAT_EDGE``: ``run_estimates``' row."""
    unit, what = UNITS[mode]
    edge = cell["a"] == cell["b"]
    x = cell_units(run_dir, manifest, good, cell["cell"], mode, first_mover=edge)
    start = time.process_time()
    if edge:
        what, control = SEAT_EDGE[mode], SEAT_EDGE_CONTROL
    reduced, _ = controls.reduce_pairs(x, cell["a"], cell["b"], cell["rules"], unit, cell["seed"], control)
    cpu = time.process_time() - start
    plain = est.plain(x)
    return {"cell": cell["cell"], "a": cell["a"], "b": cell["b"], "variant": cell["variant"], "unit": unit,
            "measure": what, "control": control, "pairs": len(x),
            **{f"plain_{k}": v for k, v in plain.as_dict().items() if k != "units"},
            **{f"reduced_{k}": v for k, v in reduced.as_dict().items() if k != "units"},
            "pairs_ratio": est.deals_ratio(plain, reduced), "control_cpu_s": cpu}


#: the file, in the report's folder, that keeps each cell's row while ``run_estimates`` plays
#: (sealed; removed once the report is written)
CHECKPOINT = ".ginsim-controls.json"
#: who writes it
GENERATOR = "ginsim report --control"


def _kept_rows(checkpoint: Path | None, whose: dict) -> dict[str, dict]:
    """The rows an interrupted call kept for this run, code and control, by "cell:mode"; none
    when there is no file or it is another run's, code's or control's.  An edited file (its
    seal broken) is refused in one line."""
    if checkpoint is None or not checkpoint.is_file():
        return {}
    kept = read_sealed(checkpoint, "the rows an earlier ginsim report --control kept",
                       f"delete {checkpoint} to play every cell again")
    if kept.get("generator") != GENERATOR or any(kept.get(k) != v for k, v in whose.items()):
        return {}
    return {k: {name: _from_json(v) for name, v in row.items()} for k, row in kept["rows"].items()}


def _plain_json(value):
    """A row's value as strict JSON holds it: an infinite or undefined number tagged as text."""
    return {"nonfinite": repr(value)} if isinstance(value, float) and not math.isfinite(value) else value


def _from_json(value):
    """``_plain_json`` undone."""
    return float(value["nonfinite"]) if isinstance(value, dict) and set(value) == {"nonfinite"} else value


def discard_checkpoint(keep_in: Path) -> None:
    """Remove the rows ``run_estimates`` kept in ``keep_in``, once the report that shows them is
    written: only a sealed file of ``GENERATOR``'s (anything else there is left alone)."""
    checkpoint = Path(keep_in) / CHECKPOINT
    if not checkpoint.is_file():
        return
    try:
        kept = read_sealed(checkpoint, "the rows ginsim report --control kept", "")
    except RunError:
        return
    if kept.get("generator") == GENERATOR:
        checkpoint.unlink()
