"""``ginsim bench``: how fast the rules core and the engine run on this machine.

Prints, as tables or JSON:

* nanoseconds per ``min_deadwood`` (10 cards) and ``best_discard`` (11 cards) on random
  hands;
* deals per second for several matchups and rule sets on one thread and on all cores, and
  the parallel efficiency (deals/s on n threads ÷ n × deals/s on one);
* the floor model (``bench_floor``, CPU time): nanoseconds per deal of the kernel against a
  stripped loop of the same rules functions with the kernel's mean number of draws;
* the end-to-end paths against the kernel, in turns on the same deals: deals per CPU-second
  and per second of the kernel alone, of ``simulate`` (DataFrame) and of ``ginsim run``
  (Parquet files), and each one's ratio to the kernel (``bench_paths``);
* end to end: wall time, deals per second and peak memory of ``ginsim run`` on a
  2,000,000-deal experiment (a child process; its memory high-water mark from /proc);
* start-up: time from a fresh Python process to the first dealt hand with an empty numba
  cache (cold: compiles) and with the cache filled (warm), wall and CPU;
* plain-Python strategies (``simulator.engine.pydriver``): deals per second of the greedy and the
  trivial Python player against numba ``simple`` on one core, and the ratio to numba
  ``simple`` vs ``simple`` on one thread;
* the strong players: ``mc`` against ``simple`` at 16, 64 and 128 samples on one thread,
  next to ``simple`` and ``expert`` (``simulator.studies.strong_study.bench_mc``);
* when ``open_spiel`` is installed: OpenSpiel's ``gin_rummy`` played by its own C++ simple
  bot (``evaluate_bots`` on clones of one initial state) in the same run, hands per second
  on one core, and our ``simple`` vs ``simple`` on one thread as a ratio of it, in wall and
  in CPU time;
* small calls (``bench_small_calls``): microseconds per deal, CPU and wall, of calls of 100
  and 1,000 deals on one and on two threads;
* the one-hand step path (``bench_step_path``, CPU time): ``Hand.bot_action`` per decision
  for ``simple``, ``Hand.clone``, and random-play ``Hand`` steps per CPU-second against
  OpenSpiel's ``pyspiel`` state played at random in the same run (when installed);
* the RL environments (``bench_rl_env``, CPU time): agent steps per second of
  ``GinRummyVectorEnv`` at 1024 hands against ``simple``, beside RLCard's ``gin-rummy`` env
  and OpenSpiel's ``rl_environment`` in the same run (when installed).

The comparisons with other engines and with ginsim's slower front ends (OpenSpiel, the step
path, the plain-Python players, the RL environments) are measured in
``simulator.tools.bench_compare``.  Every kernel is called once before timing, then timed as the
best of ``repeats`` runs (``simulator.tools.timing.best_time``).  Figures are wall-clock and
noisy: compare ratios from one run.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from ..core.cards import DECK
from ..core.melds import best_discard_nb, discard_deadwoods_nb, min_deadwood_nb
from ..core.rng import random_card_of_nb, shuffle_span_nb, stream_key_nb
from ..studies.strong_study import bench_mc, format_speed
from ..infra.jit import ALLOCATES
from ..core.rng import numpy_generator
from .bench_compare import (bench_openspiel, bench_python_players, bench_rl_env, bench_step_path,
                            print_comparisons)
from .timing import best_time


@ALLOCATES.python_entry
def _time_min_deadwood_nb(hands):
    acc = 0
    for i in range(hands.shape[0]):
        acc += min_deadwood_nb(hands[i])
    return acc


@ALLOCATES.python_entry
def _time_best_discard_nb(hands):
    acc = 0
    for i in range(hands.shape[0]):
        card, dw = best_discard_nb(hands[i], -1)
        acc += card + dw
    return acc


def random_hands(n: int, size: int, seed: int = 0) -> np.ndarray:
    """``n`` random hand masks of ``size`` cards."""
    rng = numpy_generator(seed)
    keys = rng.random((n, 52))
    picks = DECK[np.argpartition(keys, size, axis=1)[:, :size]]
    return np.bitwise_or.reduce(np.left_shift(np.int64(1), picks), axis=1)


def bench_rules(n: int = 1_000_000, repeats: int = 3) -> list[dict]:
    rows = []
    for name, kernel, size in (("min_deadwood (10 cards)", _time_min_deadwood_nb, 10),
                               ("best_discard (11 cards)", _time_best_discard_nb, 11)):
        hands = random_hands(n, size, seed=size)
        t = time.perf_counter()
        kernel(hands[:10])
        first = time.perf_counter() - t
        seconds = best_time(lambda: kernel(hands), repeats)
        rows.append({"benchmark": name, "ns_per_call": seconds / n * 1e9, "first_call_s": first, "calls": n})
    return rows


MATCHUPS = [("simple", "simple"), ("knock_early", "knock_early"), ("gin_hunter", "knock_early")]
RULESETS = ["tournament", "hoyle", "gin_only"]


def bench_engine(n_deals: int = 400_000, repeats: int = 3, matchups=MATCHUPS, rulesets=RULESETS) -> list[dict]:
    """Deals/s per matchup, rules and threads; the engine that played: "all" (routes every one) or "own"."""
    from ..api import play_deal_records
    from ..engine.select import engine_module, routes_every_strategy, strategy_pair

    rows = []
    threads_all = numba.config.NUMBA_NUM_THREADS
    before = numba.get_num_threads()
    t = time.perf_counter()
    play_deal_records("simple", "simple", "tournament", 0, 2, seed=1)
    first = time.perf_counter() - t
    try:
        for a, b in matchups:
            for rules in rulesets:
                for threads in sorted({1, threads_all}):
                    numba.set_num_threads(threads)
                    seconds = best_time(lambda: play_deal_records(a, b, rules, 0, n_deals, seed=1), repeats)
                    routing = "all" if routes_every_strategy(engine_module(strategy_pair(a, b)[2])) else "own"
                    rows.append({"benchmark": f"{a} vs {b}", "rules": rules, "threads": threads,
                                 "deals_per_s": n_deals / seconds, "deals": n_deals, "engine": routing})
    finally:
        numba.set_num_threads(before)
    rows.insert(0, {"benchmark": "engine first call (compile or cache load)", "seconds": first})
    return rows


def bench_knock_limits(n_deals: int = 400_000, limits=(0, 5, 10, 15, 20), repeats: int = 3) -> list[dict]:
    """How cost grows as the knock limit falls: simple vs simple on all cores, with the mean
    number of cards drawn per hand (gin-only hands run longest)."""
    from ..api import play_deal_records
    from ..core.records import H_DRAWS
    from ..core.rules import Rules

    rows = []
    for limit in limits:
        rules = Rules.preset("tournament", knock_limit=limit)
        records = play_deal_records("simple", "simple", rules, 0, n_deals, seed=1)
        seconds = best_time(lambda: play_deal_records("simple", "simple", rules, 0, n_deals, seed=1), repeats)
        rows.append({"knock_limit": limit, "deals_per_s": n_deals / seconds,
                     "draws_per_hand": float(records[:, H_DRAWS].mean())})
    return rows


def bench_end_to_end(n_deals: int = 2_000_000) -> dict:
    """``ginsim run`` of ``n_deals`` simple vs simple deals (tournament) in a child process."""
    with tempfile.TemporaryDirectory() as tmp:
        exp = Path(tmp) / "bench.toml"
        exp.write_text(f'name = "bench"\nseed = 1\ndeals = {n_deals}\nchunk = 500_000\n'
                       'matchups = [["simple", "simple"]]\n[variants.tournament]\npreset = "tournament"\n')
        # warm the child's cache with a tiny run first, so the figure is the steady state
        _child([sys.executable, "-m", "simulator.cli", "run", str(exp), "--out", str(Path(tmp) / "w"),
                "--deals", "2", "--quiet"])
        start = time.perf_counter()
        peak_kb = _run_watching_memory([sys.executable, "-m", "simulator.cli", "run", str(exp), "--out",
                                        str(Path(tmp) / "run"), "--quiet"])
        seconds = time.perf_counter() - start
    return {"deals": n_deals, "seconds": seconds, "deals_per_s": n_deals / seconds, "peak_rss_mb": peak_kb / 1024}


@ALLOCATES.python_entry
def _floor_deals_nb(n_deals, seed, draws):
    """The stripped loop of the floor model (``bench_floor``): per deal a shuffled deck and two
    ten-card hands, then ``draws`` turns of drawing a stock card, the least-deadwood discards
    (``discard_deadwoods_nb``), a random pick among them and the knock test on the ten kept
    (``min_deadwood_nb``): the rules work a deal of that many draws cannot skip, without
    views, strategies, records or checks."""
    cards = np.empty(52, np.int64)
    rng = np.zeros(1, np.uint64)
    check = np.int64(0)
    for d in range(n_deals):
        for i in range(52):
            cards[i] = DECK[i]
        key = stream_key_nb(seed, d, 0)
        rng[0] = key
        shuffle_span_nb(key, cards, 0, 52)
        h0 = np.int64(0)
        h1 = np.int64(0)
        for i in range(10):
            h0 |= np.int64(1) << cards[i]
            h1 |= np.int64(1) << cards[10 + i]
        pos = 21
        for t in range(draws):
            hand = (h0 if t % 2 == 0 else h1) | (np.int64(1) << cards[pos])
            pos = pos + 1 if pos < 51 else 21
            _, optimal = discard_deadwoods_nb(hand, hand)
            hand &= ~(np.int64(1) << random_card_of_nb(rng, optimal))
            check += min_deadwood_nb(hand)
            if t % 2 == 0:
                h0 = hand
            else:
                h1 = hand
    return check


def bench_floor(n_deals: int = 200_000, repeats: int = 3, rules: str = "hoyle") -> dict:
    """The floor model: CPU nanoseconds per deal of the batch kernel (simple vs simple, one
    thread) against the stripped loop ``_floor_deals_nb`` played with the kernel's own mean
    number of draws per deal on the same rules, so the difference is what the engine spends
    besides the rules functions (views, dispatch, the state machine, records, checks)."""
    from ..api import play_deal_records
    from ..core.records import H_DRAWS

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        records = play_deal_records("simple", "simple", rules, 0, n_deals, seed=1)
        kernel_s = best_time(lambda: play_deal_records("simple", "simple", rules, 0, n_deals, seed=1), repeats,
                             time.process_time)
    finally:
        numba.set_num_threads(before)
    draws = int(round(float(records[:, H_DRAWS].mean())))
    _floor_deals_nb(10, np.uint64(1), draws)
    floor_s = best_time(lambda: _floor_deals_nb(n_deals, np.uint64(1), draws), repeats, time.process_time)
    return {"rules": rules, "deals": n_deals, "draws_per_deal": draws, "kernel_ns_per_deal": kernel_s / n_deals * 1e9,
            "floor_ns_per_deal": floor_s / n_deals * 1e9, "kernel_over_floor": kernel_s / floor_s}


def bench_paths(n_deals: int = 2_000_000, chunk: int = 250_000, repeats: int = 3,
                matchup=("simple", "simple"), rules: str = "tournament") -> dict:
    """Deals per second of the kernel alone, of ``simulate`` (kernel + DataFrame) and of a
    ``ginsim run`` (kernel + Arrow + Parquet files, ``run_experiment`` in this process with
    one job and every thread, chunks of ``chunk``), and each path's ratio to the kernel, in
    CPU time (``*_ratio``: deals per CPU-second of the process, every thread counted) and in
    wall time (``*_ratio_wall``).  The three play the same deals (the run's one cell: its
    engine seed, deals 0 .. ``n_deals`` - 1) on the same threads, every kernel compiled
    before timing; they are timed in turns, ``repeats`` rounds with the order rotated, and
    each path's figure is its best round, so a burst of other work on a shared machine
    does not fall on one path only.  The run's figure leaves out the interpreter's start-up
    (about a second of imports and cache loading, reported as "time to first deal"); it
    includes the manifest, the lock, verification and every chunk written."""
    from ..api import play_deal_records, simulate
    from ..run.experiment import load_experiment
    from ..run.seeds import derive_seed
    from ..run.runner import run_experiment

    a, b = matchup
    with tempfile.TemporaryDirectory() as tmp:
        exp_path = Path(tmp) / "paths.toml"
        exp_path.write_text(f'name = "paths"\nseed = 1\ndeals = {n_deals}\nchunk = {chunk}\n'
                            f'matchups = [["{a}", "{b}"]]\n[variants.v]\npreset = "{rules}"\n')
        exp = load_experiment(exp_path)
        run_experiment(load_experiment(exp_path, deals=chunk), Path(tmp) / "warm", progress=False)
        seed = derive_seed(exp.seed, 0)  # the seed the run's cell plays with
        simulate(a, b, rules, n_deals=1000, seed=seed)
        runs = iter(range(repeats))
        paths = {"kernel": lambda: play_deal_records(a, b, rules, 0, n_deals, seed=seed),
                 "simulate": lambda: simulate(a, b, rules, n_deals=n_deals, seed=seed),
                 "run": lambda: run_experiment(exp, Path(tmp) / f"run{next(runs)}", progress=False)}
        wall = dict.fromkeys(paths, float("inf"))
        cpu = dict.fromkeys(paths, float("inf"))
        names = list(paths)
        for round_ in range(repeats):
            for name in names[round_ % 3:] + names[:round_ % 3]:
                w, c = time.perf_counter(), time.process_time()
                paths[name]()
                wall[name] = min(wall[name], time.perf_counter() - w)
                cpu[name] = min(cpu[name], time.process_time() - c)
    return {"matchup": f"{a} vs {b}", "rules": rules, "deals": n_deals, "chunk": chunk,
            **{f"{name}_deals_per_s": n_deals / wall[name] for name in paths},
            **{f"{name}_deals_per_cpu_s": n_deals / cpu[name] for name in paths},
            "simulate_ratio": cpu["kernel"] / cpu["simulate"], "run_ratio": cpu["kernel"] / cpu["run"],
            "simulate_ratio_wall": wall["kernel"] / wall["simulate"], "run_ratio_wall": wall["kernel"] / wall["run"]}


SCALE_MATCHUPS = [("simple", "simple"), ("knock_early", "simple"), ("gin_hunter", "knock_early"),
                  ("simple", "knock_early"), ("gin_hunter", "simple")]
SCALE_VARIANTS = ("hoyle", "tournament")


#: the scale benchmark's deals (``--scale-deals``'s default)
SCALE_DEALS = 100_000_000


def bench_scale(total: int = SCALE_DEALS, chunk: int = 1_000_000, directory: str | None = None,
                keep: bool = False) -> dict:
    """The 100-million-deal benchmark (``ginsim bench --scale``): ``ginsim run`` of
    ``total`` deals over 10 cells (five matchups × two rule sets, ``total / 10`` deals
    each, files of ``chunk`` deals), then ``ginsim report`` of that run, each in a child
    process.  Returns the wall time and peak resident memory of each child, the run's size
    on disk, and the load average before and after (the machine may be shared).  The run
    goes to a new directory under ``directory`` (default: the system temp dir), removed
    afterwards unless ``keep``."""
    import shutil

    cells = len(SCALE_MATCHUPS) * len(SCALE_VARIANTS)
    text, per_cell, chunk = scale_experiment(total, chunk, directory)
    root = Path(tempfile.mkdtemp(prefix="ginsim-scale-", dir=directory))
    try:
        exp = root / "scale.toml"
        exp.write_text(text)
        _child([sys.executable, "-m", "simulator.cli", "run", str(exp), "--out", str(root / "warm"), "--deals", "2",
                "--quiet"])
        load_before = os.getloadavg()
        run_dir = root / "run"
        start = time.perf_counter()
        run_peak = _run_watching_memory([sys.executable, "-m", "simulator.cli", "run", str(exp), "--out",
                                         str(run_dir), "--quiet"])
        run_seconds = time.perf_counter() - start
        start = time.perf_counter()
        report_peak = _run_watching_memory([sys.executable, "-m", "simulator.cli", "report", str(run_dir)])
        report_seconds = time.perf_counter() - start
        load_after = os.getloadavg()
        data = sum(p.stat().st_size for p in (run_dir / "data").glob("*.parquet"))
        files = len(list((run_dir / "data").glob("*.parquet")))
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    return {"deals": per_cell * cells, "cells": cells, "chunk": chunk, "files": files,
            "run_seconds": run_seconds, "run_deals_per_s": per_cell * cells / run_seconds,
            "run_peak_rss_mb": run_peak / 1024, "report_seconds": report_seconds,
            "report_peak_rss_mb": report_peak / 1024, "total_seconds": run_seconds + report_seconds,
            "data_bytes": data, "bytes_per_deal_on_disk": data / (per_cell * cells),
            "load_before": list(load_before), "load_after": list(load_after), "cpus": os.cpu_count(),
            "directory": str(root) if keep else None}


def scale_experiment(total: int, chunk: int, directory: str | None) -> tuple[str, int, int]:
    """The scale benchmark's experiment file for ``total`` deals (``--scale-deals``) over the
    10 cells, with (deals per cell, chunk): checked as ``ginsim run`` checks an experiment
    (sizes, memory) and against the free disk where the run goes, before anything is
    written; a problem is one line naming ``--scale-deals`` (or ``--scale-dir``, when it is
    no existing directory)."""
    from ..infra.inputs import check_disk
    from ..run.experiment import ExperimentError, parse_experiment
    from ..run.runner import DISK_BYTES_PER_ROW

    cells = len(SCALE_MATCHUPS) * len(SCALE_VARIANTS)
    if directory is not None and not Path(directory).is_dir():
        problem = "not a directory" if Path(directory).exists() else "no such directory"
        raise ValueError(f"--scale-dir {directory}: {problem}; give an existing directory for the scale benchmark's run")
    if total < 2 * cells:
        raise ValueError(f"--scale-deals must be at least {2 * cells} (a mirrored pair in each of the {cells} cells), "
                         f"got {total:,}")
    per_cell = total // cells
    per_cell -= per_cell % 2
    chunk = min(chunk - chunk % 2, per_cell)
    text = (f'name = "scale"\nseed = 1\ndeals = {per_cell}\nchunk = {chunk}\nmatchups = ['
            + ", ".join(f'["{a}", "{b}"]' for a, b in SCALE_MATCHUPS) + "]\n"
            + "".join(f'[variants.{v}]\npreset = "{v}"\n' for v in SCALE_VARIANTS))
    import tomllib

    try:
        parse_experiment(tomllib.loads(text), "the scale benchmark")
    except ExperimentError as exc:
        raise ValueError(f"--scale-deals {total:,}: {exc}") from None
    check_disk(f"--scale-deals {total:,}", directory or tempfile.gettempdir(), per_cell * cells,
               DISK_BYTES_PER_ROW, "deals to write", "give --scale-deals {most} or fewer, or a --scale-dir with room")
    return text, per_cell, chunk


def print_scale(r: dict) -> None:
    print(f"ginsim bench --scale: {r['deals']:,} deals in {r['cells']} cells, files of {r['chunk']:,} deals "
          f"({r['files']} files), {r['cpus']} cpus")
    print(f"  ginsim run:    {r['run_seconds']:8.1f} s  {r['run_deals_per_s']:>10,.0f} deals/s  "
          f"peak memory {r['run_peak_rss_mb']:6.0f} MB   (the run, then its printed summary)")
    print(f"  ginsim report: {r['report_seconds']:8.1f} s  {'':>10}          peak memory "
          f"{r['report_peak_rss_mb']:6.0f} MB")
    print(f"  run + report:  {r['total_seconds']:8.1f} s")
    print(f"  on disk:       {r['data_bytes'] / 1e9:8.2f} GB  ({r['bytes_per_deal_on_disk']:.1f} bytes per deal)")
    print(f"  load average:  {' '.join(f'{x:.1f}' for x in r['load_before'])} before, "
          f"{' '.join(f'{x:.1f}' for x in r['load_after'])} after (1, 5, 15 min)")
    if r.get("directory"):
        print(f"  kept: {r['directory']}")


def _run_watching_memory(cmd: list[str]) -> int:
    """Run a child to completion; return its peak resident memory in kB.

    Read from the child's own high-water mark (``VmHWM`` in /proc), which counts only what
    the new program touched: ``getrusage(RUSAGE_CHILDREN)`` would also count the parent's
    pages the child held between fork and exec.
    """
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    status = Path(f"/proc/{proc.pid}/status")
    peak = 0
    while proc.poll() is None:
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child failed: {' '.join(cmd)}\n{proc.stderr.read()[-2000:]}")
    return peak


def _child(cmd: list[str], env: dict | None = None) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"benchmark child failed: {' '.join(cmd)}\n{done.stderr[-2000:]}")
    return done.stdout


_FIRST_DEAL = ("import time; t = time.perf_counter(); import simulator; "
               "simulator.simulate({a!r}, 'simple', 'tournament', n_deals=2); "
               "print(time.perf_counter() - t, time.process_time())")


def bench_startup(search_players: bool = False) -> dict:
    """Seconds from a new process to the first dealt hand (``simple`` vs ``simple``), with an
    empty and a filled cache; with ``search_players`` also cold for ``mc`` vs ``simple``.
    Each compiles the engine a user gets by default, routing what the call plays
    (``simulator.engine.select.engine_module``).
    Each figure is wall time; ``*_cpu_s`` is the child's CPU time over its whole life (the
    compile is single-threaded, so on a shared machine this is the figure to compare)."""
    def first_deal(strategy: str, cache: str) -> tuple[float, float]:
        env = {**os.environ, "GINSIM_CACHE_DIR": cache}
        env.pop("NUMBA_CACHE_DIR", None)
        env.pop("GINSIM_ENGINE", None)  # the engine a user gets by default: what the call plays
        wall, cpu = _child([sys.executable, "-c", _FIRST_DEAL.format(a=strategy)], env).split()
        return float(wall), float(cpu)

    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        result["cold_s"], result["cold_cpu_s"] = first_deal("simple", tmp)
        result["warm_s"], result["warm_cpu_s"] = first_deal("simple", tmp)
    if search_players:
        with tempfile.TemporaryDirectory() as tmp:
            result["cold_search_s"], result["cold_search_cpu_s"] = first_deal("mc", tmp)
    return result


def bench_small_calls(sizes=(100, 1000), threads=(1, 2), repeats: int = 15, calls: int = 20) -> list[dict]:
    """Small batches: microseconds per deal (CPU and wall) of ``play_deal_records`` calls of
    ``sizes`` deals (simple vs simple, hoyle) on each thread count, best of ``repeats`` runs
    of ``calls`` calls.  The thread counts take turns run by run, in reversed order every
    other run, so a slow spell of a shared machine, or a cost of coming first or second,
    falls on all of them.  Calls below ``simulator.infra.blocks.SMALL_CALL_ITEMS``
    deals play on one thread whatever the thread count, so both columns should match."""
    from ..api import play_deal_records

    rows = []
    before = numba.get_num_threads()
    counts = [k for k in threads if k <= numba.config.NUMBA_NUM_THREADS]
    try:
        for n in sizes:
            def batch():
                for i in range(calls):
                    play_deal_records("simple", "simple", "hoyle", i * n, n, seed=1)

            best = {k: [math.inf, math.inf] for k in counts}  # thread count -> [CPU s, wall s]
            for k in counts:
                numba.set_num_threads(k)
                batch()
            for run in range(repeats):
                for k in (counts if run % 2 == 0 else counts[::-1]):
                    numba.set_num_threads(k)
                    cpu, wall = time.process_time(), time.perf_counter()
                    batch()
                    best[k][0] = min(best[k][0], time.process_time() - cpu)
                    best[k][1] = min(best[k][1], time.perf_counter() - wall)
            rows += [{"deals": n, "threads": k, "cpu_us_per_deal": best[k][0] / (calls * n) * 1e6,
                      "wall_us_per_deal": best[k][1] / (calls * n) * 1e6} for k in counts]
    finally:
        numba.set_num_threads(before)
    return rows


def run(quick: bool = False, as_json: bool = False, extra: dict | None = None) -> dict:
    """Every benchmark, printed as tables (or JSON).  ``extra`` maps a section's name to
    ``(measure, show)``: ``measure(quick)`` gives its result, ``show(result)`` prints it after
    the tables (the command line adds sections of layers this module may not import:
    ``python_ginsim`` beside OpenSpiel's ``gin_rummy``, ``simulator.interop.ospiel_play``)."""
    n_calls = 200_000 if quick else 1_000_000
    n_deals = 100_000 if quick else 1_000_000
    result = {
        "machine": {"cpus": os.cpu_count(), "numba_threads": numba.config.NUMBA_NUM_THREADS,
                    "numba": numba.__version__, "numpy": np.__version__},
        "rules_core": bench_rules(n_calls),
        "engine": bench_engine(n_deals),
        "knock_limits": bench_knock_limits(n_deals),
        "floor": bench_floor(50_000 if quick else 200_000),
        "paths": bench_paths(1_000_000 if quick else 2_000_000),
        "end_to_end": bench_end_to_end(200_000 if quick else 2_000_000),
        "startup": bench_startup(search_players=not quick),
        "openspiel": bench_openspiel(500 if quick else 2000),
        "small_calls": bench_small_calls(),
        "step_path": bench_step_path(100 if quick else 300),
        "python_players": bench_python_players(2000 if quick else 10_000),
        "strong_players": bench_mc(500 if quick else 2000),  # mc at 16/64/128 samples vs simple, 1 thread
        "rl_env": bench_rl_env(seconds=1.0 if quick else 3.0),
    }
    for name, (measure, _) in (extra or {}).items():
        result[name] = measure(quick)
    if as_json:
        print(json.dumps(result, indent=2))
    else:
        print_tables(result)
        for name, (_, show) in (extra or {}).items():
            show(result[name])
    return result


def print_tables(result: dict) -> None:
    m = result["machine"]
    print(f"machine: {m['cpus']} cpus, numba {m['numba']} with {m['numba_threads']} threads")
    print(f"\n{'rules core':<28}{'ns/call':>10}{'first call s':>14}")
    for r in result["rules_core"]:
        print(f"{r['benchmark']:<28}{r['ns_per_call']:>10.1f}{r['first_call_s']:>14.2f}")
    engine = result["engine"]
    print(f"\nengine first call (compile or cache load): {engine[0]['seconds']:.2f} s")
    print(f"{'matchup':<28}{'rules':<12}{'threads':>8}{'deals/s':>14}{'efficiency':>12}  engine")
    single = {}
    for r in engine[1:]:
        key = (r["benchmark"], r["rules"])
        if r["threads"] == 1:
            single[key] = r["deals_per_s"]
        eff = r["deals_per_s"] / (r["threads"] * single[key]) if key in single else float("nan")
        print(f"{r['benchmark']:<28}{r['rules']:<12}{r['threads']:>8}{r['deals_per_s']:>14,.0f}{eff:>12.0%}  "
              f"{r['engine']}")
    print(f"\n{'knock limit':<14}{'deals/s':>12}{'draws/hand':>12}   (simple vs simple, all cores)")
    for r in result["knock_limits"]:
        print(f"{r['knock_limit']:<14}{r['deals_per_s']:>12,.0f}{r['draws_per_hand']:>12.1f}")
    fl = result["floor"]
    print(f"\nfloor model ({fl['rules']}, {fl['draws_per_deal']} draws per deal, CPU time, 1 thread): kernel "
          f"{fl['kernel_ns_per_deal']:,.0f} ns per deal, stripped loop of the rules functions "
          f"{fl['floor_ns_per_deal']:,.0f} ns: {fl['kernel_over_floor']:.2f}x the floor")
    paths = result["paths"]
    print(f"\n{'end to end':<28}{'deals/CPU-s':>14}{'of kernel':>12}{'deals/s':>14}{'of kernel':>12}   "
          f"({paths['matchup']}, {paths['rules']}, {paths['deals']:,} deals, all threads)")
    for name, key in (("kernel (play_deal_records)", "kernel"), ("simulate (DataFrame)", "simulate"),
                      ("ginsim run (Parquet)", "run")):
        cpu_share, wall_share = (1.0, 1.0) if key == "kernel" else (paths[f"{key}_ratio"], paths[f"{key}_ratio_wall"])
        print(f"{name:<28}{paths[f'{key}_deals_per_cpu_s']:>14,.0f}{cpu_share:>12.0%}"
              f"{paths[f'{key}_deals_per_s']:>14,.0f}{wall_share:>12.0%}")
    print(f"  (ginsim run in process, chunks of {paths['chunk']:,}, interpreter start-up excluded: see time to "
          f"first deal)")
    e2e = result["end_to_end"]
    print(f"\nginsim run, {e2e['deals']:,} deals: {e2e['seconds']:.1f} s, {e2e['deals_per_s']:,.0f} deals/s, "
          f"peak memory {e2e['peak_rss_mb']:.0f} MB")
    st = result["startup"]
    print(f"time to first deal: cold (empty cache, compiling) {st['cold_s']:.1f} s wall, "
          f"{st['cold_cpu_s']:.1f} s CPU; warm {st['warm_s']:.2f} s wall, {st['warm_cpu_s']:.2f} s CPU")
    if "cold_search_s" in st:
        print(f"time to first deal of mc (empty cache, compiling the engine with the search players): "
              f"{st['cold_search_s']:.1f} s wall, {st['cold_search_cpu_s']:.1f} s CPU")
    print(f"\n{'small calls (simple vs simple)':<32}{'threads':>8}{'CPU us/deal':>14}{'wall us/deal':>14}")
    for r in result.get("small_calls", []):
        print(f"{r['deals']:>8,} deals{'':<18}{r['threads']:>8}{r['cpu_us_per_deal']:>14.2f}"
              f"{r['wall_us_per_deal']:>14.2f}")
    print("\nstrong players (hands/s on one thread; mc's default search is the knock decision, search=7 searches all):")
    print(format_speed(result["strong_players"]))
    print_comparisons(result)
