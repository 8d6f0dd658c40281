"""What each ``ginsim`` command does (``cmd_NAME`` for ``ginsim NAME``): its options checked,
then the work done by the layer below and its lines printed.  The study commands hold no study
of their own: run, reproduce, report, confirm and claims go through ``simulator.studies.kinds``,
whose kinds and study modules play and print; the commands particular to kinds of study (field,
tune, exploit, equilibrium) are declared in ``simulator.studies.commands`` and all run through
``cmd_study``.  The parsers are in ``simulator.cli.parser``; ``simulator.cli.main`` runs them."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path


def _register_plugins(specs: list[str] | None) -> None:
    """Register each ``--plugin NAME=FILE`` (a numba strategy file, or ``FILE.py:Class`` for a
    Python player) before anything else runs."""
    import strategies

    _register_openspiel()
    for spec in specs or []:
        name, eq, file = spec.partition("=")
        if not eq or not name.strip() or not file.strip():
            raise ValueError(f"--plugin must be NAME=FILE, got {spec!r}")
        strategies.register(name.strip(), file.strip())


def _register_openspiel() -> None:
    """Register OpenSpiel's simple bot as the strategy ``openspiel_simple`` when open_spiel is
    installed (importing ``simulator.interop.openspiel`` registers it)."""
    try:
        import simulator.interop.openspiel  # noqa: F401
    except ImportError:
        pass


def cmd_arena(args: argparse.Namespace) -> None:
    try:
        from ..interop.openspiel import arena, arena_seed
    except ImportError as exc:
        raise ValueError(str(exc)) from None

    from tqdm import tqdm

    from ..infra.inputs import check_memory
    from ..run.runner import bar_disabled

    if args.decks <= 0:
        raise ValueError(f"--decks must be a positive integer, got {args.decks}")
    arena_seed(args.seed, "--seed")
    check_memory("--decks", args.decks, ARENA_BYTES_PER_DECK, "decks", "give --decks {most} or fewer")
    _register_plugins(args.plugin)
    if args.export is not None and not args.export.strip():
        raise ValueError("--export must name a directory, got an empty string")
    # hands inside OpenSpiel play at Python speed (hundreds of decks a second): a bar with its
    # rate and time left on a terminal's stderr
    with tqdm(total=args.decks, unit="deck", disable=bar_disabled(not args.json), desc="arena") as bar:
        result = arena(args.a, args.b, n_decks=args.decks, seed=args.seed, rules=args.rules, engine=args.engine,
                       export=args.export, progress=lambda done, total: bar.update(done - bar.n))
    from ..analysis.summary import estimate

    net = estimate(result.net_mean, result.net_ci_low, result.net_ci_high, result.n_decks, "deck")
    if args.json:
        _print_json("arena", {"a": args.a, "b": args.b, "rules": args.rules, "engine": args.engine,
                              "decks": result.n_decks, "hands": 2 * result.n_decks, "seed": args.seed,
                              "net_points_per_hand_to_a": net, "won_by_a": result.won, "lost_by_a": result.lost,
                              "translations": result.stats,
                              **({"export": result.export} if result.export is not None else {})})
        return
    interval = (f"± {(net['ci_high'] - net['ci_low']) / 2:.3f} (95%)" if net["no_interval"] is None
                else f"({net['no_interval']})")
    print(f"{args.a} (A) vs {args.b} (B) inside {args.engine}, rules {args.rules}, {result.n_decks:,} decks "
          f"in both seats ({2 * result.n_decks:,} hands), seed {args.seed}")
    print(f"net points per hand to A: {result.net_mean:+.3f} {interval}")
    print(f"hands won by A: {result.won:.1%}, lost: {result.lost:.1%}")
    if result.stats:
        print("translations: " + ", ".join(f"{k} {v:,}" for k, v in result.stats.items()))
    if result.export is not None:
        from ..interop.openspiel import CONVERT_REFUSALS

        e = result.export
        print(f"hand histories: {e['written']:,} written to {e['directory']}"
              + (f"; {e['not_written']:,} not written, as ginsim's rules cannot play them" if e["not_written"] else ""))
        for category, count in sorted(e["not_written_by_reason"].items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {count:,} not written: {CONVERT_REFUSALS[category]}")
        if e["not_written"]:
            print(f"  the first: {e['first_reason']}")


#: the largest file of OpenSpiel action sequences ``ginsim convert --from openspiel`` reads (a
#: hand is about 200 integers: some 600 bytes a line)
CONVERT_BYTES = 64 << 20


def cmd_convert(args: argparse.Namespace) -> None:
    """``ginsim convert``: hand history files to OpenSpiel action sequences, or back."""
    if (args.to is None) == (args.source is None):
        raise ValueError("give exactly one of --to openspiel and --from openspiel")
    try:
        from ..interop.openspiel import histories_to_openspiel, openspiel_to_histories
    except ImportError as exc:
        raise ValueError(str(exc)) from None
    if args.to is not None:
        if args.out is not None:
            raise ValueError("--out is for --from openspiel (--to openspiel prints one line per file on stdout)")
        for actions in histories_to_openspiel(args.inputs):
            print(" ".join(map(str, actions)))
        return
    from ..infra.inputs import read_regular
    from ..run.handhistory import write_file

    if len(args.inputs) != 1 or args.out is None or not args.out.strip():
        raise ValueError("--from openspiel takes one file of action sequences (one hand per line) and --out DIR")
    path, out = args.inputs[0], Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file; give a directory for the hand history files")
    data = read_regular(path, "a file of OpenSpiel action sequences", CONVERT_BYTES, follow=True)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    histories = openspiel_to_histories(text, path, args.rules, args.dealer)
    out.mkdir(parents=True, exist_ok=True)
    width = len(str(histories[-1][0]))
    for line, h in histories:
        write_file(h, out / f"hand-{line:0{width}d}.toml")
    print(f"{len(histories):,} hand history files written to {out}")


#: memory ``arena`` keeps per deck (its points, a Python float in a list)
ARENA_BYTES_PER_DECK = 64


def cmd_strategies(args: argparse.Namespace) -> None:
    import strategies
    from strategies.registry import presets_of

    _register_plugins(args.plugin)
    for s in strategies.available():
        params = ", ".join(f"{k}={_num(v)}" for k, v in s["params"].items()) or "no parameters"
        print(f"{s['name']:<20} {s['summary']}\n{'':<20} parameters: {params}")
        if presets_of(s["name"]):
            print(f"{'':<20} named sets: {', '.join(presets_of(s['name']))}")
        if s["source"]:
            print(f"{'':<20} source: {s['source']}")


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


def cmd_variants(args: argparse.Namespace) -> None:
    from ..core.rules import OPTIONS, PRESET_NOTES, Rules, allowed_text

    names = [f.name for f in dataclasses.fields(Rules)]
    print("presets (every field; override any in an experiment file or with Rules.preset(name, field=value)):")
    for preset in Rules.PRESETS:
        rules = Rules.preset(preset)
        print(f"\n{preset}: {PRESET_NOTES[preset]}")
        print("  " + ", ".join(f"{n}={getattr(rules, n)}" for n in names))
    print("\nfields (docs/rules.md says where each rule applies):")
    for f in dataclasses.fields(Rules):
        print(f"  {f.name} (default {f.default}; {allowed_text(f.name).replace('`', '')}): {OPTIONS[f.name].doc}")


#: the version of the JSON documents ``--json`` prints (docs/cli.md): a field is only ever
#: added within a version; a change of meaning or a removal makes a new one
JSON_VERSION = 1


def _print_json(kind: str, document: dict) -> None:
    import json

    print(json.dumps({"schema": f"ginsim.{kind}/{JSON_VERSION}", **document}, indent=2, allow_nan=False))


def _check_simulate_deals(deals: int, mirrored: bool) -> None:
    """``simulate --deals``: a positive integer, even when mirrored, whose rows fit in the
    memory budget (``api.check_rows_memory``: ``simulate`` holds every row at once; ``ginsim
    run`` writes chunks to disk instead)."""
    from ..api import check_rows_memory

    if deals <= 0:
        raise ValueError(f"--deals must be a positive integer, got {deals}")
    if deals % 2 and mirrored:
        nearest = " or ".join(f"{n:,}" for n in (deals - 1, deals + 1) if n > 0)
        raise ValueError(f"--deals must be even for mirrored deals (they come in pairs), got {deals:,}: "
                         f"give {nearest}, or add --no-mirror")
    check_rows_memory("--deals", deals, step=2 if mirrored else 1)  # before anything compiles or is allocated


def cmd_simulate(args: argparse.Namespace) -> None:
    from ..analysis.stats import hand_stats
    from ..api import simulate

    _check_simulate_deals(args.deals, not args.no_mirror)
    if args.control and args.no_mirror:
        raise ValueError("--control plays the controls on the same mirrored pairs: leave out --no-mirror")

    import strategies

    from ..infra.cache import announce_compile
    from ..core.rules import resolve_rules
    from ..engine.select import kernels_compiled

    _register_plugins(args.plugin)
    a, b = strategies.parse_strategy(args.a), strategies.parse_strategy(args.b)
    resolve_rules(args.rules)
    if not kernels_compiled(("play_deal_block_nb",), sids=(a.sid, b.sid)):
        announce_compile()
    df = simulate(args.a, args.b, rules=args.rules, n_deals=args.deals, seed=args.seed,
                  mirrored=not args.no_mirror)
    from ..analysis.summary import estimate

    # the report's statistics (a mirrored pair is one independent unit; Student t interval)
    stats = hand_stats(df).iloc[0]
    net = estimate(stats["net_mean"], stats["net_ci_low"], stats["net_ci_high"], stats["n_units"],
                   "hand" if args.no_mirror else "pair")
    shares = {k: v / len(df) for k, v in df["outcome"].value_counts().items()}
    reduced = _controlled(df, args) if args.control else None
    if args.json:
        document = {"a": args.a, "b": args.b, "rules": args.rules, "deals": len(df), "seed": args.seed,
                    "mirrored": not args.no_mirror, "net_points_per_hand_to_a": net,
                    "outcomes": {k: float(shares.get(k, 0.0)) for k in ("knock", "gin", "big_gin", "undercut", "dead")},
                    "mean_draws_per_hand": float(df["draws"].mean())}
        if reduced is not None:
            document["control_variates"] = reduced
        _print_json("simulate", document)
        return
    interval = (f"± {(net['ci_high'] - net['ci_low']) / 2:.3f} (95%)" if net["no_interval"] is None
                else f"({net['no_interval']})")
    print(f"{args.a} (A) vs {args.b} (B), rules {args.rules}, {len(df):,} deals, seed {args.seed}")
    print(f"net points per hand to A: {stats['net_mean']:+.3f} {interval}")
    print("outcomes: " + ", ".join(f"{k} {v:.1%}" for k, v in shares.items()))
    print(f"mean draws per hand: {df['draws'].mean():.2f}")
    if reduced is not None:
        r = reduced["estimate"]
        print(f"with control variates ({reduced['control']}: {r['method'].removeprefix('control variates: ')}): "
              f"{r['value']:+.3f} ± {(r['high'] - r['low']) / 2:.3f} (95%), {reduced['pairs_ratio']:.2f}x fewer pairs "
              f"for the same interval, {reduced['control_cpu_s']:.2f} s of CPU for the controls")


def _controlled(df, args: argparse.Namespace) -> dict:
    """``simulate --control``: the control-variate estimate of A's net points per hand from the
    frame's pairs, the controls played on the same pairs (``simulator.studies.controls``)."""
    from ..analysis.stats import estimators
    from ..studies import controls

    x = controls.pair_means(df)
    reduced, cpu = controls.reduce_pairs(x, args.a, args.b, args.rules, "hand", args.seed, args.control)
    return {"control": args.control, "estimate": reduced.as_dict(),
            "pairs_ratio": estimators.deals_ratio(estimators.plain(x), reduced), "control_cpu_s": cpu}


def cmd_study(args: argparse.Namespace) -> None:
    """A study's own command (``simulator.studies.commands``): its specs played through their
    kind, or its function's lines printed."""
    from importlib import import_module

    from ..studies.commands import study_command

    study = study_command(args.command)
    if study.runs is not None:
        module, _, function = study.runs.partition(":")
        for line in getattr(import_module(module), function)(args, lambda: _register_plugins(args.plugin)):
            print(line)
        return
    specs = getattr(args, study.specs)
    _play_specs(args, list(specs) if study.plays_many else [specs], many=study.plays_many)


def cmd_run(args: argparse.Namespace) -> None:
    from ..run.bundled import experiment_path

    for flag in ("deals", "games", "jobs"):
        value = getattr(args, flag)
        if value is not None and value <= 0:
            raise ValueError(f"--{flag} must be a positive integer, got {value}")
    _play_specs(args, [experiment_path(args.experiment)])


def _play_specs(args: argparse.Namespace, paths: list, many: bool = False) -> None:
    """The study commands (run, tune, exploit, equilibrium): each spec played by its kind
    (``simulator.studies.kinds.play``) and its lines printed as it finishes; with ``--json``,
    one document at the end (``many``: a list of records, with the ``--summary`` file)."""
    from ..studies import kinds

    played = []
    for one in kinds.play(args.command, paths, args):
        played.append(one)
        if not args.json:
            for line in one.kind.summary(one):
                print(line)
    summary = kinds.write_summary(played, args.summary) if getattr(args, "summary", None) else None
    if args.json:
        records = [one.kind.to_json(one) for one in played]
        _print_json(args.command, {"results": records, "summary": None if summary is None else str(summary)}
                    if many else records[0])
    elif summary is not None:
        print(f"summary: {summary}")


def cmd_reproduce(args: argparse.Namespace) -> None:
    from ..studies.kinds import reproduce

    for flag in ("deals", "games"):
        value = getattr(args, flag)
        if value is not None and value <= 0:
            raise ValueError(f"--{flag} must be a positive integer, got {value}")
    if args.out is not None and not args.out.strip():
        raise ValueError("--out must name a directory, got an empty string")
    for line in reproduce(args.study, args):
        print(line)


def cmd_init(args: argparse.Namespace) -> None:
    from ..run.bundled import init

    for path in init(args.directory):
        print(f"{path}{os.sep}")
    print(f"edit them there; 'ginsim run quickstart' run from {args.directory} plays its experiments/quickstart.toml")


def cmd_confirm(args: argparse.Namespace) -> None:
    from ..studies import kinds

    for flag in ("deals", "games", "jobs"):
        value = getattr(args, flag)
        if value is not None and value <= 0:
            raise ValueError(f"--{flag} must be a positive integer, got {value}")
    out = Path(kinds.out_dir(args.out, args.study))
    start, cpu = time.perf_counter(), time.process_time()
    log = None if args.quiet else (lambda t: print(t, file=sys.stderr, flush=True))
    result, (json_path, md_path) = kinds.confirm(args.study, out, args.salt, max_deals=args.deals, max_games=args.games,
                                           jobs=args.jobs or 1, log=log)
    for e in result["claims"]:
        print(f"{e['id']}: {e['status']}")
    print(f"{args.study}: {len(result['claims'])} claims confirmed (salt {result['salt']}) into {md_path} and "
          f"{json_path} in {time.perf_counter() - start:.1f} s ({time.process_time() - cpu:.1f} s CPU in this "
          f"process)")
    if any(e["status"] == "not replicated" for e in result["claims"]):
        raise NotReplicated()


def cmd_claims(args: argparse.Namespace) -> None:
    from ..studies import kinds
    from ..studies.ledger_history import log_lines

    if args.action != "log" and args.study is None:
        raise ValueError(f"ginsim claims {args.action} needs a STUDY")
    if args.action == "withdraw" and (args.id is None or args.why is None):
        raise ValueError("ginsim claims withdraw needs STUDY ID --why \"the reason\"")
    if args.action not in ("withdraw", "verify") and args.id is not None:
        raise ValueError(f"ginsim claims {args.action} takes no ID (only withdraw and verify do)")
    if args.action != "withdraw" and args.why is not None:
        raise ValueError(f"ginsim claims {args.action} takes no --why (only withdraw does)")
    if args.action != "verify" and (args.salt is not None or args.jobs is not None or args.quiet):
        raise ValueError(f"ginsim claims {args.action} takes no --salt, --jobs or --quiet (only verify does)")
    if args.action == "verify":
        _claims_verify(args)
    elif args.action == "register":
        path, ids = kinds.register(args.study)
        print(f"{args.study}: registered {', '.join(ids)} in {path}" if ids else
              f"{args.study}: every claim of the claims file is registered in {path} already")
    elif args.action == "withdraw":
        print(f"{args.study}: withdrew {args.id} in {kinds.withdraw(args.study, args.id, args.why)}")
    else:
        books = kinds.ledgers(args.study)
        if not books:
            print("no ledgers: experiments/ledger/ holds none")
        print("\n\n".join("\n".join(log_lines(book)) for book in books))


def _claims_verify(args: argparse.Namespace) -> None:
    from ..studies import kinds

    if args.jobs is not None and args.jobs <= 0:
        raise ValueError(f"--jobs must be a positive integer, got {args.jobs}")
    start = time.perf_counter()
    log = None if args.quiet else (lambda t: print(t, file=sys.stderr, flush=True))
    salt, found = kinds.verify(args.study, args.id, args.salt, args.jobs or 1, log)
    for cid, differ in found:
        print(f"{cid}: {'the ledger entry is what its plan plays' if not differ else 'differs in ' + ', '.join(differ)}")
    print(f"{args.study}: {len(found)} confirmation(s) of salt {salt} re-played from their plans, "
          f"{sum(1 for _, d in found if d)} differ ({time.perf_counter() - start:.1f} s)")
    if any(d for _, d in found):
        raise NotReplicated()


class NotReplicated(Exception):
    """``ginsim confirm`` found a claim that does not replicate: exit status 1."""


def cmd_show(args: argparse.Namespace) -> None:
    from ..analysis.summary import run_summaries

    if args.json:
        from ..analysis.summary import run_document

        _print_json("show", run_document(args.run_dir))
        return
    print(run_summaries(args.run_dir))


def cmd_seal(args: argparse.Namespace) -> None:
    from ..run.rundir import MANIFEST, is_confirmation_file, seal_file, seal_run

    folder = Path(args.directory)
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a directory")
    did = []
    if (folder / MANIFEST).exists():
        n = seal_run(folder)
        did.append(f"{folder / MANIFEST} records its chunks' digests already" if n is None else
                   f"recorded the digests of {n:,} chunk(s) in {folder / MANIFEST}" if n else
                   f"{folder}: no chunk file to record, the manifest is left as it is (play the run again)")
    for name in ("confirm.json",):
        if is_confirmation_file(folder / name):
            did.append(f"sealed {folder / name} as it stands" if seal_file(folder / name) else
                       f"{folder / name} is sealed already")
    if not did:
        raise ValueError(f"{folder} holds neither a run ({MANIFEST}) nor a confirm.json written by ginsim confirm")
    for line in did:
        print(line)


def cmd_report(args: argparse.Namespace) -> None:
    from ..studies.kinds import report

    for path in report(Path(args.run_dir), args):
        print(path)


def cmd_replay(args: argparse.Namespace) -> None:
    for option in ("html", "export"):
        if getattr(args, option) is not None and not getattr(args, option).strip():
            raise ValueError(f"--{option} must name a file, got an empty string")
    if Path(args.run_dir).is_file():  # a hand history file
        _replay_history(args)
        return
    if Path(args.run_dir).exists() and not Path(args.run_dir).is_dir():
        raise ValueError(f"{args.run_dir} is neither a run directory nor a hand history file (a regular file)")
    if args.deals is not None:
        _export_deals(args)
        return
    for option in ("cell", "deal"):
        if getattr(args, option) is None:
            raise ValueError(f"--{option} is required with a run directory (a hand history file takes neither)")
    if args.export is not None:
        from ..run.handhistory import check_export, from_run, write_file

        check_export(args.export)  # before the deal is played again
        print(write_file(from_run(args.run_dir, args.cell, args.deal, args.trust_plugins), Path(args.export)))
    if args.html is not None:
        from ..tools.replay_html import write_replay_page

        print(write_replay_page(args.run_dir, args.cell, args.deal, Path(args.html), args.trust_plugins))
    if args.export is None and args.html is None:
        from ..run.replay import replay_text

        print(replay_text(args.run_dir, args.cell, args.deal, trust_plugins=args.trust_plugins)[0])


def _export_deals(args: argparse.Namespace) -> None:
    """``ginsim replay RUN --cell C --deals FIRST-LAST --export DIR``: many deals as files."""
    import re

    from ..run.handhistory import export_deals

    found = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", args.deals)
    if found is None:
        raise ValueError(f"--deals must be FIRST-LAST, two deal numbers (0-99), got {args.deals!r}")
    for option, why in (("deal", "give --deal or --deals, not both"), ("html", "--html pages one deal; use --deal")):
        if getattr(args, option) is not None:
            raise ValueError(f"--{option} with --deals: {why}")
    if args.cell is None or args.export is None:
        raise ValueError("--deals needs --cell and --export DIR (the directory for the hand history files)")
    paths = export_deals(args.run_dir, args.cell, int(found.group(1)), int(found.group(2)), Path(args.export),
                         args.trust_plugins)
    print(f"{len(paths):,} hand history files written to {args.export}")


def _replay_history(args: argparse.Namespace) -> None:
    """``ginsim replay FILE``: a hand history played again, checked, and told (or paged)."""
    for option in ("cell", "deal", "deals", "export"):
        if getattr(args, option) is not None:
            raise ValueError(f"--{option} works on a run directory; {args.run_dir} is a hand history file")
    if args.html is not None:
        from ..tools.replay_html import write_history_page

        print(write_history_page(args.run_dir, Path(args.html)))
        return
    from ..run.handhistory import read_file, story

    print(story(read_file(args.run_dir), args.run_dir)[0])


def cmd_play(args: argparse.Namespace) -> None:
    from ..tools.play import play

    play(vs=args.vs, rules=args.rules, seed=args.seed, game=args.game)


def cmd_bench(args: argparse.Namespace) -> None:
    import json

    from ..tools import bench

    given = [flag for flag, value in (("--scale-deals", args.scale_deals), ("--scale-dir", args.scale_dir),
                                      ("--scale-keep", args.scale_keep or None)) if value is not None]
    if given and not args.scale:
        raise ValueError(f"{', '.join(given)} go{'es' if len(given) == 1 else ''} with --scale (the scale benchmark); "
                         "add --scale or leave them out")
    if args.scale:
        deals = bench.SCALE_DEALS if args.scale_deals is None else args.scale_deals
        if deals <= 0:
            raise ValueError(f"--scale-deals must be a positive integer, got {deals}")
        result = bench.bench_scale(deals, directory=args.scale_dir, keep=args.scale_keep)
        print(json.dumps(result, indent=2)) if args.json else bench.print_scale(result)
        return
    chosen = [flag for flag, on in (("--variance", args.variance), ("--unbiased", args.unbiased),
                                    ("--strength", args.strength), ("--rl", args.rl)) if on]
    if len(chosen) > 1:
        raise ValueError(f"{' and '.join(chosen)} are separate benchmarks; give one")
    if args.strength:
        from ..studies import strength_curve

        rows = strength_curve.curve(quick=args.quick)
        print(json.dumps(rows, indent=2)) if args.json else strength_curve.print_curve(rows)
        return
    if args.variance or args.unbiased:
        from ..studies import controls

        table, show = ((controls.variance_table, controls.print_variance) if args.variance
                       else (controls.unbiasedness_table, controls.print_unbiasedness))
        rows = table(quick=args.quick)
        print(json.dumps(rows, indent=2)) if args.json else show(rows)
        return
    if args.rl:
        from ..tools import bench_compare

        result = bench_compare.bench_rl_env(seconds=1.0 if args.quick else 3.0)
        print(json.dumps(result, indent=2)) if args.json else bench_compare.print_rl_env(result)
        return
    try:  # python_ginsim beside OpenSpiel's gin_rummy, when open_spiel is installed
        from ..interop import ospiel_play
    except ImportError:
        ospiel_play = None
    if args.openspiel_game:
        if ospiel_play is None:
            raise ValueError("--openspiel-game needs OpenSpiel (the open_spiel package): pip install 'ginsim-rummy[openspiel]'")
        result = ospiel_play.bench_game(seconds=1.0 if args.quick else 3.0)
        print(json.dumps(result, indent=2)) if args.json else ospiel_play.print_bench(result)
        return
    extra = {} if ospiel_play is None else {
        "openspiel_game": (lambda quick: ospiel_play.bench_game(seconds=1.0 if quick else 2.0), ospiel_play.print_bench)}
    bench.run(quick=args.quick, as_json=args.json, extra=extra)


def cmd_cache(args: argparse.Namespace) -> None:
    from ..infra.cache import cache_description, clear_cache

    if args.action == "where":
        print(cache_description())
        return
    removed = clear_cache()
    for path in removed:
        print(f"removed {path}")
    if not removed:
        print("nothing to remove: no ginsim cache entries")
