"""The ``ginsim`` command line.

    ginsim run EXPERIMENT.toml [--out DIR] [--deals N] [--jobs N] [--backend local|dask]
               [--scheduler ADDRESS] [--resume]                   run to Parquet, print summary
    ginsim show RUN_DIR                                           the summary again, from files
    ginsim replay RUN_DIR --cell C --deal N                       one deal, turn by turn
    ginsim report RUN_DIR [--out DIR]                             report.md, report.html, PNGs
    ginsim simulate A B [--rules PRESET] [--deals N] [--seed S]   play deals, print a summary
    ginsim strategies                                             strategies and parameters
    ginsim variants                                               rule presets and fields
    ginsim bench [--quick] [--json]                               speed on this machine
    ginsim cache clear|where                                      drop compiled kernels, or say where they are

Bad input prints one line naming the problem and exits with status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time


def _cmd_strategies(args: argparse.Namespace) -> None:
    import strategies

    for path in args.plugin or []:
        name, _, file = path.partition("=")
        strategies.register(name, file)
    for s in strategies.available():
        params = ", ".join(f"{k}={_num(v)}" for k, v in s["params"].items()) or "no parameters"
        print(f"{s['name']:<20} {s['summary']}\n{'':<20} parameters: {params}")


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


def _cmd_variants(args: argparse.Namespace) -> None:
    from .rules import PRESET_NOTES, Rules

    names = [f.name for f in dataclasses.fields(Rules)]
    print("presets (every field; override any in an experiment file or with Rules.preset(name, field=value)):")
    for preset in Rules.PRESETS:
        rules = Rules.preset(preset)
        print(f"\n{preset}: {PRESET_NOTES[preset]}")
        print("  " + ", ".join(f"{n}={getattr(rules, n)}" for n in names))


def _cmd_simulate(args: argparse.Namespace) -> None:
    import numpy as np

    from .api import simulate

    if args.deals <= 0:
        raise ValueError(f"--deals must be a positive integer, got {args.deals}")

    df = simulate(args.a, args.b, rules=args.rules, n_deals=args.deals, seed=args.seed,
                  mirrored=not args.no_mirror)
    net = df["net_a"].to_numpy(dtype=float)
    if not args.no_mirror and len(df) % 2 == 0:
        units = net.reshape(-1, 2).mean(axis=1)  # a mirrored pair is one independent unit
    else:
        units = net
    half = 1.96 * units.std(ddof=1) / np.sqrt(len(units)) if len(units) > 1 else float("nan")
    print(f"{args.a} (A) vs {args.b} (B), rules {args.rules}, {len(df):,} deals, seed {args.seed}")
    print(f"net points per hand to A: {net.mean():+.3f} ± {half:.3f} (95%)")
    print("outcomes: " + ", ".join(f"{k} {v / len(df):.1%}" for k, v in df["outcome"].value_counts().items()))
    print(f"mean draws per hand: {df['draws'].mean():.2f}")


def _cmd_run(args: argparse.Namespace) -> None:
    from pathlib import Path

    from .experiment import load_experiment
    from .runner import run_experiment, run_summaries

    for flag in ("deals", "games"):
        value = getattr(args, flag)
        if value is not None and value <= 0:
            raise ValueError(f"--{flag} must be a positive integer, got {value}")
    exp = load_experiment(args.experiment, deals=args.deals, games=args.games)
    if args.out is not None and not args.out.strip():
        raise ValueError("--out must name a directory, got an empty string")
    out = Path(args.out) if args.out is not None else Path("results") / exp.name
    start = time.perf_counter()
    run_experiment(exp, out, jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                   resume=args.resume, progress=not args.quiet)
    seconds = time.perf_counter() - start
    print(f"{exp.name}: {len(exp.cells())} cells into {out} in {seconds:.1f} s")
    print(run_summaries(out))


def _cmd_show(args: argparse.Namespace) -> None:
    from .runner import run_summaries

    print(run_summaries(args.run_dir))


def _cmd_report(args: argparse.Namespace) -> None:
    from .report import write_report

    for path in write_report(args.run_dir, args.out):
        print(path)


def _cmd_replay(args: argparse.Namespace) -> None:
    from .replay import replay_text

    print(replay_text(args.run_dir, args.cell, args.deal)[0])


def _cmd_bench(args: argparse.Namespace) -> None:
    from . import bench

    bench.run(quick=args.quick, as_json=args.json)


def _cmd_cache(args: argparse.Namespace) -> None:
    from ._cache import cache_description, clear_cache

    if args.action == "where":
        print(cache_description())
        return
    removed = clear_cache()
    for path in removed:
        print(f"removed {path}")
    if not removed:
        print("nothing to remove: no ginsim cache entries")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(prog="ginsim", description="Monte Carlo research simulator for Gin Rummy.")
    parser.add_argument("-V", "--version", action="version", version=f"ginsim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("simulate", help="play deals between two strategies and print a summary")
    p.add_argument("a", help="strategy A, e.g. simple or 'simple:knock_at=0'")
    p.add_argument("b", help="strategy B")
    p.add_argument("--rules", default="hoyle", help="rules preset (see 'ginsim variants')")
    p.add_argument("--deals", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-mirror", action="store_true", help="independent deals instead of mirrored pairs")
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser("run", help="run an experiment file to a Parquet run directory")
    p.add_argument("experiment", help="experiment TOML file, e.g. experiments/quickstart.toml")
    p.add_argument("--out", help="run directory (default results/<name>)")
    p.add_argument("--deals", type=int, help="override deals per cell (when the experiment plays deals)")
    p.add_argument("--games", type=int, help="override games per cell (when the experiment plays games)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1: numba threads only)")
    p.add_argument("--backend", choices=["local", "dask"], default="local")
    p.add_argument("--scheduler", help="Dask scheduler address (default: start a local cluster)")
    p.add_argument("--resume", action="store_true", help="complete an interrupted run")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("show", help="print a run's summary from its files")
    p.add_argument("run_dir")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("report", help="write report.md, report.html and plots for a run")
    p.add_argument("run_dir")
    p.add_argument("--out", help="directory for the report (default: the run directory)")
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("replay", help="re-play one deal of a run turn by turn")
    p.add_argument("run_dir")
    p.add_argument("--cell", type=int, required=True)
    p.add_argument("--deal", type=int, required=True)
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser("strategies", help="list strategies with their parameters")
    p.add_argument("--plugin", action="append", metavar="NAME=FILE", help="register a plug-in strategy file first")
    p.set_defaults(func=_cmd_strategies)

    p = sub.add_parser("variants", help="list rule presets and their fields")
    p.set_defaults(func=_cmd_variants)

    p = sub.add_parser("bench", help="measure the rules core and the engine on this machine")
    p.add_argument("--quick", action="store_true", help="smaller samples (about 20 s)")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.set_defaults(func=_cmd_bench)

    p = sub.add_parser("cache", help="manage compiled kernels")
    p.add_argument("action", choices=["clear", "where"],
                   help="clear: remove ginsim's compiled kernels (only what ginsim made); where: say where they live")
    p.set_defaults(func=_cmd_cache)
    return parser


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away (e.g. piped into head): stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except (ValueError, OSError) as exc:
        print(f"ginsim: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ginsim: interrupted; finished chunks are kept, continue with --resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
