"""Control-variate estimates of a finished run's matchups: ``ginsim report RUN --control CONTROL``.

A run's report gives every figure as the plain estimate: the mean of its independent units (a
mirrored pair of deals or of games) with a Student t interval.  With ``--control`` the report
also estimates, for every cell in which two different strategies meet, A's net points per hand
and A's share of games won with control variates (``simulator.studies.controls``: the draws'
luck, the players' self-play on the same deals, or both), each quantity being exactly 0 in
expectation, so the reduced estimate is unbiased.  The controls are played on the run's own
deals and games: the manifest records each cell's seed, and deal ``d`` of a cell is deal ``d``
of that seed (``simulator.run.runner.rows``).  The plain estimate of the same units stays
beside each reduced one.

What is refused, in one line: a run that is not mirrored (the controls are defined on mirrored
pairs), a run played by other code than this ginsim's (its deals would not be played again as
they were), a run with no cell of two different strategies (a self-play cell's value is 0 by
construction), and, with the draws' luck, a replay whose values differ from the run's rows.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..analysis.stats import estimators as est
from ..run.replay import ready_to_play_again
from ..run.rundir import Plan, RunError, read_chunk_table, readable_run, run_path
from . import controls

#: per mode of a run, the unit its controls measure and what that unit's value is, in words
UNITS = {"deals": ("hand", "net points per hand to A"), "games": ("game", "A's share of games won")}


def cell_units(run_dir: Path, manifest: dict, good: list[Path], cell: int, mode: str) -> np.ndarray:
    """A cell's value per mirrored pair, in pair order, from its verified chunk files: A's net
    points per hand (mode "deals") or A's share of the pair's games won (mode "games": a game
    won counts 1, lost 0, without a winner ½, as ``game_stats`` counts it)."""
    plan = Plan.from_experiment(manifest["experiment"], len(manifest["cells"]))
    good = set(good)
    index = "deal" if mode == "deals" else "game"
    parts = []
    for i in range(plan.chunks_per_cell(mode)):
        path = run_dir / plan.chunk(mode, cell, i).path
        if path not in good:
            raise RunError(f"{run_dir}: {plan.chunk(mode, cell, i).path} is not written yet; finish the run first")
        columns = [index, "net_a"] if mode == "deals" else [index, "winner"]
        table = read_chunk_table(run_dir, path, manifest, columns).to_pandas()
        order = table[index].to_numpy()
        if not bool((np.diff(order) == 1).all()) or (parts and order[0] != parts[-1][0][-1] + 1):
            raise RunError(f"{path}: its rows are not the cell's {index}s in order")
        if mode == "deals":
            values = table["net_a"].to_numpy(dtype=np.float64)
        else:
            winner = table["winner"]
            values = np.where(winner == "a", 1.0, np.where(winner.isna(), 0.5, 0.0))
        parts.append((order, values))
    values = np.concatenate([v for _, v in parts])
    if len(values) % 2:
        raise RunError(f"{run_dir}: cell {cell} holds an odd number of {index}s, so not mirrored pairs")
    return values.reshape(-1, 2).mean(axis=1)


def run_estimates(run_dir: str | Path, control: str, trust_plugins: bool = False,
                  progress: bool = True) -> pd.DataFrame:
    """Every cell of two different strategies in a complete run, estimated plain and with
    ``control`` (``control_names.CONTROLS``) played on the run's own mirrored pairs: one row
    per cell and unit (hand, game) with both estimates, how many times fewer pairs the reduced
    one needs (``estimators.deals_ratio``) and the CPU seconds the controls took."""
    from tqdm.auto import tqdm

    from ..run.runner.play import bar_disabled

    controls.check_control(control)
    run_dir = run_path(run_dir)
    manifest, verification = readable_run(run_dir)
    experiment = manifest["experiment"]
    if not experiment.get("mirrored", True):
        raise ValueError(f"--control plays its controls on mirrored pairs, and {run_dir} is not mirrored")
    cells = [c for c in manifest["cells"] if c["a"] != c["b"]]
    if not cells:
        raise ValueError(f"--control: {run_dir} has no cell in which two different strategies meet (a self-play "
                         f"cell's value to A is 0 by construction)")
    ready_to_play_again(run_dir, manifest, cells, trust_plugins, "its deals would not be played again as they were")
    modes = [m for m in UNITS if experiment.get(m)]
    rows = []
    with tqdm(total=len(cells) * len(modes), disable=bar_disabled(progress), unit="cell",
              desc=f"controls ({control})", leave=False) as bar:
        for c in cells:
            for mode in modes:
                unit, what = UNITS[mode]
                x = cell_units(run_dir, manifest, verification.good[mode], c["cell"], mode)
                start = time.process_time()
                reduced, _ = controls.reduce_pairs(x, c["a"], c["b"], c["rules"], unit, c["seed"], control)
                cpu = time.process_time() - start
                plain = est.plain(x)
                rows.append({"cell": c["cell"], "a": c["a"], "b": c["b"], "variant": c["variant"], "unit": unit,
                             "measure": what, "control": control, "pairs": len(x),
                             **{f"plain_{k}": v for k, v in plain.as_dict().items() if k != "units"},
                             **{f"reduced_{k}": v for k, v in reduced.as_dict().items() if k != "units"},
                             "pairs_ratio": est.deals_ratio(plain, reduced), "control_cpu_s": cpu})
                bar.update(1)
    return pd.DataFrame(rows)
