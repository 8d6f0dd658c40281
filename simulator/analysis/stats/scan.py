"""``hand_stats`` and ``game_stats``: one row per cell from a frame of rows or a whole run.

A frame is summarised at once (``stats.frames``); a run directory is read chunk by chunk
(``scan_run``), a few columns at a time (``HAND_SCAN_COLUMNS``, ``GAME_SCAN_COLUMNS``), folded into
per-cell moments, so a run of any size is summarised in bounded memory with the same estimates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .intervals import LABELS, Moments, sweep_columns
from .frames import (
    _frame_stats, _game_estimates, _game_value_columns, _game_values, _hand_estimates, _hand_value_columns,
    _hand_values,
)


def _is_run(data) -> bool:
    import os

    return isinstance(data, (str, os.PathLike))


def hand_stats(hands, confidence: float = 0.95, mirrored: bool | None = None) -> pd.DataFrame:
    """One row per cell of hand rows: what happens in a hand, with intervals.

    ``hands`` is a frame of hand rows, or the path of a run directory: then its verified
    ``data/`` files are scanned one at a time (``scan_run``) and never loaded whole, with
    the same estimates to float rounding.

    Columns: the labels (``cell, matchup, a, b, variant``, the swept parameters, and a
    ``with_context`` frame's ``name`` and ``seed``); ``n_hands``, ``n_units`` (pairs when mirrored, else hands);
    ``net_mean`` (points per hand to A, ``net_a``); ``win_rate`` (share of hands A won, no
    winner = ½); ``first_mover_edge`` (points per hand to the non-dealer, who moves first:
    ``net_a`` when B dealt, ``-net_a`` when A dealt); ``draws_mean`` (hand length in cards
    drawn); ``share_<outcome>`` for knock, gin, big_gin, undercut, dead, and split by the
    player who knocked, ``share_<outcome>_a`` and ``share_<outcome>_b`` for knock, gin,
    big_gin and undercut (``share_undercut_a``: A knocked and B undercut it; each pair sums
    to ``share_<outcome>``; rows without a ``knocker`` column have no split); ``gin_rate``
    (gin or big gin, per hand); ``undercut_rate`` (undercuts per ordinary knock, i.e.
    undercut / (knock + undercut)); ``knocker_deadwood`` and ``defender_deadwood`` (mean
    over hands not cancelled, defender's after layoffs).  Each with ``_ci_low``,
    ``_ci_high`` and ``_se`` columns (see the module docstring for the method).
    """
    if _is_run(hands):
        return scan_run(hands, confidence).hands
    return _frame_stats(hands, mirrored, confidence, _hand_values, _hand_estimates)


def game_stats(games, confidence: float = 0.95, mirrored: bool | None = None) -> pd.DataFrame:
    """One row per cell of game rows: who wins games and by how much, with intervals.

    ``games`` is a frame of game rows, or the path of a run directory (its ``games/``
    files scanned one at a time, as for ``hand_stats``).

    Columns: the labels; ``n_games``, ``n_units``; ``win_prob`` (A's probability of winning
    the game, a game with no winner = ½); ``margin_mean`` (``margin_a``, A's final score
    minus B's, bonuses included); ``hands_mean`` (hands per game); ``shutout_rate``;
    ``first_mover_edge`` (game-win probability of the player who did *not* deal first —
    the first to move — minus 0.5).  Each with ``_ci_low``, ``_ci_high`` and ``_se``.
    """
    if _is_run(games):
        return scan_run(games, confidence).games
    return _frame_stats(games, mirrored, confidence, _game_values, _game_estimates)


# ----------------------------------------------------------------------------- streaming a run

#: the columns ``scan_run`` reads from hand and game files (besides labels)
HAND_SCAN_COLUMNS = ("cell", "pair", "a_dealt", "outcome", "knocker", "winner", "net_a", "draws",
                     "knocker_deadwood", "defender_deadwood")
GAME_SCAN_COLUMNS = ("cell", "pair", "a_dealt_first", "winner", "margin_a", "hands", "shutout")


@dataclass
class RunScan:
    """What ``scan_run`` gathers from a run: ``hands`` and ``games`` (the ``hand_stats``
    and ``game_stats`` frames, None without such rows), ``draws`` (per cell, the number of
    hands ending after 0, 1, 2 ... draws: the whole distribution of hand length, in memory
    bounded by the longest hand) and ``manifest``."""

    hands: pd.DataFrame | None
    games: pd.DataFrame | None
    draws: dict[int, np.ndarray]
    manifest: dict


def _unit_blocks(cells: np.ndarray, pairs: np.ndarray, values: np.ndarray, mirrored: bool):
    """(cell, unit values) per cell of a file's rows: with mirroring the mean of each
    pair's rows (pairs never span files), else the rows themselves."""
    one_cell = len(cells) and cells[0] == cells[-1] and bool((cells == cells[0]).all())
    for cell in (cells[:1] if one_cell else np.unique(cells)):
        mask = None if one_cell else cells == cell
        block = values if mask is None else values[mask]
        if not mirrored:
            yield int(cell), block
            continue
        pair = pairs if mask is None else pairs[mask]
        first, second = pair[0::2], pair[1::2]
        if len(pair) % 2 == 0 and np.array_equal(first, second) and bool((np.diff(first) > 0).all()):
            # rows in deal order, as chunk files hold them: deals 2p and 2p + 1 side by side
            yield int(cell), (block[0::2] + block[1::2]) * 0.5
            continue
        low = pair.min()
        if pair.max() - low < 4 * len(pair):
            index = pair - low
        else:
            index = np.unique(pair, return_inverse=True)[1]
        counts = np.bincount(index)
        keep = counts > 0
        sums = np.column_stack([np.bincount(index, weights=np.ascontiguousarray(block[:, j]), minlength=len(counts))
                                for j in range(block.shape[1])])
        yield int(cell), sums[keep] / counts[keep, None]


def _prefetched(paths: list, read):
    """``read(path)`` of each path in order, reading the next file in a thread while the
    caller works on the current one (pyarrow releases the GIL): two files in memory at most."""
    from concurrent.futures import ThreadPoolExecutor

    if not paths:
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ginsim-read") as pool:
        nxt = pool.submit(read, paths[0])
        for i in range(len(paths)):
            current = nxt.result()
            if i + 1 < len(paths):
                nxt = pool.submit(read, paths[i + 1])
            yield current


def _scan_mode(run_dir, manifest: dict, paths: list, columns: tuple[str, ...], values_of, mirrored: bool,
               draws: dict | None):
    """Moments, labels, rows per cell and "every row has a winner" over ``paths``, chunk
    files of the run in ``run_dir`` whose bytes are proven as they are read
    (``rundir.read_chunk_table``)."""
    moments = None
    labels: dict[int, dict] = {}
    n_rows: dict[int, int] = {}
    all_won = True

    def labels_of(names: list[str]) -> list[str]:
        return [c for c in names if (c in LABELS and c != "cell") or (c[:2] in ("a.", "b.") and len(c) > 2)]

    def read(path):
        from ...run.rundir import read_chunk_table

        table = read_chunk_table(run_dir, path, manifest, lambda names: [*columns, *labels_of(names)])
        return table, labels_of(table.schema.names)

    for table, label_cols in _prefetched(list(paths), read):
        if table.num_rows == 0:
            continue
        df = table.select(list(columns)).to_pandas()
        cells = df["cell"].to_numpy()
        present, first_rows, counts = np.unique(cells, return_index=True, return_counts=True)
        for cell, first, count in zip(present.tolist(), first_rows.tolist(), counts.tolist()):
            if cell not in labels:
                labels[cell] = {"cell": cell, **table.select(label_cols).slice(first, 1).to_pylist()[0]}
            n_rows[cell] = n_rows.get(cell, 0) + count
        all_won = all_won and bool(df["winner"].notna().all())
        named = values_of(df)
        if moments is None:
            moments = Moments(list(named))
        stacked = np.empty((len(named), len(df)))  # one contiguous row per quantity
        for j, column in enumerate(named.values()):
            stacked[j] = column
        values = stacked.T
        del named
        for cell, block in _unit_blocks(cells, df["pair"].to_numpy(), values, mirrored):
            moments.add(cell, block)
        if draws is not None:
            d = df["draws"].to_numpy()
            for cell in present:
                counts = np.bincount(d if len(present) == 1 else d[cells == cell])
                have = draws.get(int(cell), np.zeros(0, np.int64))
                size = max(len(have), len(counts))
                draws[int(cell)] = np.pad(have, (0, size - len(have))) + np.pad(counts, (0, size - len(counts)))
        del table, df, values
    if moments is None:
        return None
    order = sorted(labels)
    frame = pd.DataFrame([labels[c] for c in order])
    for key in sweep_columns(frame):
        frame[key] = frame[key].astype("float64")
    front = [c for c in LABELS if c in frame.columns]
    frame = frame[front + [c for c in frame.columns if c not in front]].set_index("cell", drop=False)
    rows = pd.Series(n_rows, dtype=np.int64).reindex(order)
    return moments, frame, rows, all_won


def scan_run(run_dir, confidence: float = 0.95, files: dict | None = None,
             allow_missing: bool = False, manifest: dict | None = None) -> RunScan:
    """Per-cell statistics of a run directory, streamed file by file.

    Reads only the verified chunk files (``files``: mode → paths as ``rundir.verify_run``
    gives them, with the ``manifest`` they were verified against; by default the run is
    verified here and refused when damaged, or when chunks are missing unless
    ``allow_missing``), only the columns the statistics need,
    one file at a time (the next one read ahead in a thread).  Each file's rows are reduced
    to units (pair means: mirrored pairs never span chunk files) and merged into per-cell
    moments (``Moments``), so memory grows with the number of cells and the size of one
    chunk, never with the number of rows; the estimates (``hand_stats``, ``game_stats``)
    equal those of the rows loaded whole, to float rounding."""
    from ...run.rundir import readable_run, run_path

    run_dir = run_path(run_dir)
    if files is None or manifest is None:  # else the caller verified the run
        manifest, verification = readable_run(run_dir, allow_missing=allow_missing)
        files = verification.good if files is None else files
    mirrored = bool(manifest["experiment"].get("mirrored", True))
    draws: dict[int, np.ndarray] = {}
    hands = games = None
    scanned = _scan_mode(run_dir, manifest, files.get("deals", []), HAND_SCAN_COLUMNS, _hand_value_columns,
                         mirrored, draws)
    if scanned is not None:
        hands = _hand_estimates(*scanned[:3], not mirrored, scanned[3], confidence)
    scanned = _scan_mode(run_dir, manifest, files.get("games", []), GAME_SCAN_COLUMNS, _game_value_columns,
                         mirrored, None)
    if scanned is not None:
        games = _game_estimates(*scanned[:3], not mirrored, scanned[3], confidence)
    return RunScan(hands, games, draws, manifest)
