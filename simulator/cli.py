"""The ``ginsim`` command line.

    ginsim run EXPERIMENT.toml|NAME [--out DIR] [--deals N] [--jobs N] [--backend local|dask]
               [--scheduler ADDRESS] [--resume | --force]         run to Parquet, print summary
    ginsim reproduce STUDY [--deals N] [--games N] [--jobs N]     re-run experiments/STUDY.toml into
                                                                  results/STUDY and write its report
    ginsim init DIR                                               copy the experiments and examples to edit
    ginsim confirm STUDY [--salt S] [--deals N] [--games N] [--jobs N]  re-play the claims of
                                                                  experiments/STUDY.claims.toml on fresh seeds into
                                                                  results/STUDY/confirm.{md,json} and its ledger
    ginsim claims register|withdraw|log [STUDY] [ID --why TEXT]   the claims ledger experiments/ledger/STUDY.jsonl
    ginsim claims verify STUDY [ID] [--salt S] [--jobs N]         re-play a confirmation from its plan, check the ledger
    ginsim field [SPEC] [--run DIR] [--deals N] [--games N] [--plugin NAME=FILE]  the field's ratings, matrix and
                                                                  CPU per decision; with SPEC, place a new player in it
    ginsim exploit OPPONENT [--family SPEC] [--rules R] [--objective O]  best response within a family, its edge
    ginsim equilibrium SPEC.toml [--out DIR] [--resume]           equilibrium policy mixture (double oracle, or a class game)
    ginsim show RUN_DIR                                           the summary again, from files
    ginsim seal DIR                                               record the chunk digests of an earlier ginsim's run
    ginsim replay RUN_DIR --cell C --deal N [--html FILE] [--export FILE] [--trust-plugins]  one deal, turn by
                                                                  turn (or a page, or a hand history file)
    ginsim replay RUN_DIR --cell C --deals FIRST-LAST --export DIR   many deals as hand history files
    ginsim replay FILE [--html FILE]                              a hand history file played again and told
    ginsim report RUN_DIR [--out DIR] [--multiplicity holm|bh|none] [--trust-plugins]  report.md, .html, PNGs
    ginsim simulate A B [--rules PRESET] [--deals N] [--seed S]   play deals, print a summary
    ginsim arena A B [--decks N] [--seed S] [--engine openspiel|ginsim] [--export DIR]  two players on the
                                                                  same decks inside OpenSpiel (needs open_spiel)
    ginsim convert --to openspiel FILE... | --from openspiel FILE --out DIR   hand history files to OpenSpiel
                                                                  action sequences, or back (needs open_spiel)
    ginsim strategies                                             strategies and parameters
    ginsim variants                                               rule presets and fields
    ginsim play [--vs STRATEGY] [--rules PRESET] [--seed N] [--game]  play against a bot in the terminal
    ginsim bench [--quick] [--json] [--scale] [--openspiel-game]  speed on this machine
    ginsim cache clear|where                                      drop compiled kernels, or say where they are
    ginsim completion bash|zsh|tcsh                               a shell completion script

``--json`` on simulate, arena, run, show, tune, exploit and equilibrium prints one JSON document on stdout instead of
text (the schema: docs/cli.md); progress and notices go to stderr, and progress bars only
to a terminal.  Bad input prints one line naming the problem and exits with status 2.
"""

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


def _cmd_arena(args: argparse.Namespace) -> None:
    try:
        from .interop.openspiel import arena, arena_seed
    except ImportError as exc:
        raise ValueError(str(exc)) from None

    from tqdm import tqdm

    from .infra.inputs import check_memory
    from .run.runner import bar_disabled

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
    from .analysis.summary import estimate

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
        from .interop.openspiel import CONVERT_REFUSALS

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


def _cmd_convert(args: argparse.Namespace) -> None:
    """``ginsim convert``: hand history files to OpenSpiel action sequences, or back."""
    if (args.to is None) == (args.source is None):
        raise ValueError("give exactly one of --to openspiel and --from openspiel")
    try:
        from .interop.openspiel import histories_to_openspiel, openspiel_to_histories
    except ImportError as exc:
        raise ValueError(str(exc)) from None
    if args.to is not None:
        if args.out is not None:
            raise ValueError("--out is for --from openspiel (--to openspiel prints one line per file on stdout)")
        for actions in histories_to_openspiel(args.inputs):
            print(" ".join(map(str, actions)))
        return
    from .infra.inputs import read_regular
    from .run.handhistory import write_file

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


def _cmd_strategies(args: argparse.Namespace) -> None:
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


def _cmd_variants(args: argparse.Namespace) -> None:
    from .core.rules import OPTIONS, PRESET_NOTES, Rules, allowed_text

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
    from .api import check_rows_memory

    if deals <= 0:
        raise ValueError(f"--deals must be a positive integer, got {deals}")
    if deals % 2 and mirrored:
        nearest = " or ".join(f"{n:,}" for n in (deals - 1, deals + 1) if n > 0)
        raise ValueError(f"--deals must be even for mirrored deals (they come in pairs), got {deals:,}: "
                         f"give {nearest}, or add --no-mirror")
    check_rows_memory("--deals", deals, step=2 if mirrored else 1)  # before anything compiles or is allocated


def _cmd_simulate(args: argparse.Namespace) -> None:
    from .analysis.stats import hand_stats
    from .api import simulate

    _check_simulate_deals(args.deals, not args.no_mirror)

    import strategies

    from .infra.cache import announce_compile
    from .core.rules import resolve_rules
    from .engine.select import kernels_compiled

    _register_plugins(args.plugin)
    a, b = strategies.parse_strategy(args.a), strategies.parse_strategy(args.b)
    resolve_rules(args.rules)
    if not kernels_compiled(("play_deal_block_nb",), sids=(a.sid, b.sid)):
        announce_compile()
    df = simulate(args.a, args.b, rules=args.rules, n_deals=args.deals, seed=args.seed,
                  mirrored=not args.no_mirror)
    from .analysis.summary import estimate

    # the report's statistics (a mirrored pair is one independent unit; Student t interval)
    stats = hand_stats(df).iloc[0]
    net = estimate(stats["net_mean"], stats["net_ci_low"], stats["net_ci_high"], stats["n_units"],
                   "hand" if args.no_mirror else "pair")
    shares = {k: v / len(df) for k, v in df["outcome"].value_counts().items()}
    if args.json:
        _print_json("simulate", {"a": args.a, "b": args.b, "rules": args.rules, "deals": len(df), "seed": args.seed,
                                 "mirrored": not args.no_mirror, "net_points_per_hand_to_a": net,
                                 "outcomes": {k: float(shares.get(k, 0.0)) for k in
                                              ("knock", "gin", "big_gin", "undercut", "dead")},
                                 "mean_draws_per_hand": float(df["draws"].mean())})
        return
    interval = (f"± {(net['ci_high'] - net['ci_low']) / 2:.3f} (95%)" if net["no_interval"] is None
                else f"({net['no_interval']})")
    print(f"{args.a} (A) vs {args.b} (B), rules {args.rules}, {len(df):,} deals, seed {args.seed}")
    print(f"net points per hand to A: {stats['net_mean']:+.3f} {interval}")
    print("outcomes: " + ", ".join(f"{k} {v:.1%}" for k, v in shares.items()))
    print(f"mean draws per hand: {df['draws'].mean():.2f}")


def _cmd_field(args: argparse.Namespace) -> None:
    from .studies.field import place, placement_lines, write_field

    for flag in ("deals", "games"):
        if getattr(args, flag) < 0:
            raise ValueError(f"--{flag.replace('_', '-')} must be a non-negative integer, got {getattr(args, flag)}")
    if args.cpu_deals < 1:
        raise ValueError(f"--cpu-deals must be a positive integer, got {args.cpu_deals}")
    if args.spec is None:
        path = write_field(args.run, cpu_deals=args.cpu_deals, out=args.out)
        print(f"wrote {path}")
        return
    if args.deals % 2 or args.games % 2 or not (args.deals or args.games):
        raise ValueError(f"--deals and --games must be even (mirrored pairs) and not both 0, "
                         f"got {args.deals} and {args.games}")
    _register_plugins(args.plugin)
    import strategies

    strategies.parse_strategy(args.spec)
    placed = place(args.spec, args.run, n_deals=args.deals, n_games=args.games, seed=args.seed)
    for line in placement_lines(args.spec, placed, args.deals, args.games):
        print(line)


def _cmd_run(args: argparse.Namespace) -> None:
    from .run.bundled import experiment_path

    for flag in ("deals", "games", "jobs"):
        value = getattr(args, flag)
        if value is not None and value <= 0:
            raise ValueError(f"--{flag} must be a positive integer, got {value}")
    _play_specs(args, [experiment_path(args.experiment)])


def _play_specs(args: argparse.Namespace, paths: list, many: bool = False) -> None:
    """The study commands (run, tune, exploit, equilibrium): each spec played by its kind
    (``simulator.studies.kinds.play``) and its lines printed as it finishes; with ``--json``,
    one document at the end (``many``: a list of records, with the ``--summary`` file)."""
    from .studies import kinds

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


def _cmd_reproduce(args: argparse.Namespace) -> None:
    from .studies.kinds import reproduce

    for flag in ("deals", "games"):
        value = getattr(args, flag)
        if value is not None and value <= 0:
            raise ValueError(f"--{flag} must be a positive integer, got {value}")
    if args.out is not None and not args.out.strip():
        raise ValueError("--out must name a directory, got an empty string")
    for line in reproduce(args.study, args):
        print(line)


def _cmd_init(args: argparse.Namespace) -> None:
    from .run.bundled import init

    for path in init(args.directory):
        print(f"{path}{os.sep}")
    print(f"edit them there; 'ginsim run quickstart' run from {args.directory} plays its experiments/quickstart.toml")


def _cmd_confirm(args: argparse.Namespace) -> None:
    from .studies import kinds

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
        raise _NotReplicated()


def _cmd_claims(args: argparse.Namespace) -> None:
    from .studies import kinds
    from .studies.ledger_history import log_lines

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
    from .studies import kinds

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
        raise _NotReplicated()


class _NotReplicated(Exception):
    """``ginsim confirm`` found a claim that does not replicate: exit status 1."""


def _cmd_tune(args: argparse.Namespace) -> None:
    _play_specs(args, args.spec, many=True)


# ----------------------------------------------------------------------------- exploit, equilibrium (issue 29)

def _cmd_exploit(args: argparse.Namespace) -> None:
    _play_specs(args, [args.family])


def _cmd_equilibrium(args: argparse.Namespace) -> None:
    _play_specs(args, args.spec, many=True)


def _add_equilibrium_commands(command) -> None:
    """The parsers of ``ginsim exploit`` and ``ginsim equilibrium``."""
    p = command("exploit", "find a best response to one fixed opponent within a policy family, and its edge",
                "Tune a family of policies (default: knock_policy, which plays simple's draws and discards) against "
                "one fixed opponent with the tuner's common random deals, then play the best candidate on fresh "
                "mirrored deals: its edge over the opponent, with a paired 95% interval, is a lower bound on the "
                "opponent's exploitability within the family (docs/equilibrium.md). Writes the tuning's outputs "
                "into OUT (default results/exploit/<name>).")
    p.add_argument("opponent", help="the fixed opponent, a strategy spec such as simple or 'simple:knock_at=0'")
    _complete(p.add_argument("--family", metavar="SPEC",
                             help="family TOML file: a tuning spec's keys without name, rules and opponents "
                                  "(default: knock_policy's thresholds, 24 trials, 60000 deals per candidate)"), "file")
    p.add_argument("--rules", default="tournament", help="rules preset (see 'ginsim variants')")
    p.add_argument("--objective", choices=["net_per_hand", "game_win"], default="net_per_hand",
                   help="net points per hand, or the probability of winning a whole game (default: net_per_hand)")
    p.add_argument("--seed", type=int, default=29, help="seed of the tuning and fresh deals (default: 29)")
    p.add_argument("--out", help="output directory (default: results/exploit/<name>)")
    p.add_argument("--resume", action="store_true",
                   help="continue (or rewrite the outputs of) a tuning in --out (default: refuse a non-empty --out)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr (default: progress)")
    _json_option(p)
    p.set_defaults(func=_cmd_exploit)

    p = command("equilibrium", "find an equilibrium mixture of policies (double oracle, or a finite class game)",
                "Double oracle on a policy family: estimate the payoff matrix of a restricted set of policies on "
                "mirrored deals, solve the symmetric zero-sum meta-game by linear programming, tune a best response "
                "to its equilibrium mixture, add it and repeat until the best response gains no more than the noise. "
                "Prints the mixture, the game value, the exploitability bound (a lower bound) and the convergence; "
                "writes OUT/equilibrium.json and OUT/report.md. A spec with method = \"class\" plays instead the full "
                "payoff matrix of a finite class of draw-threshold policies and prints its equilibrium mixture, epsilon "
                "(a 95% upper bound on any member's gain against it) and the matrix size; writes OUT/class_game.json "
                "and OUT/report.md. A spec with method = \"table\" solves a state-dependent knock table by fictitious "
                "play on recorded deals and prints its value against the class equilibrium and the gain of the best "
                "response found to it (a lower bound on its exploitability); writes OUT/knock_table.json, "
                "OUT/report.md and OUT/heatmap.png (docs/equilibrium.md).")
    _complete(p.add_argument("spec", nargs="+", help="equilibrium spec TOML file(s), e.g. "
                                                     "experiments/equilibrium_knock/tournament.toml "
                                                     "(format: simulator/studies/equilibrium.py)"), "file")
    p.add_argument("--out", help="output directory (default: the spec's out, else results/<name>)")
    p.add_argument("--summary", help="also write one Markdown table summarising every spec's result to this file "
                                     "(default: no summary file)")
    p.add_argument("--resume", action="store_true",
                   help="continue a run in the output directory after an interruption (even kill -9), or "
                        "rewrite a finished one's outputs (default: refuse a directory holding a run)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr (default: progress)")
    _json_option(p)
    p.set_defaults(func=_cmd_equilibrium)


def _cmd_show(args: argparse.Namespace) -> None:
    from .analysis.summary import run_summaries

    if args.json:
        from .analysis.summary import run_document

        _print_json("show", run_document(args.run_dir))
        return
    print(run_summaries(args.run_dir))


def _multiplicity_option(p: argparse.ArgumentParser) -> None:
    from .analysis.multiplicity import MULTIPLICITY_METHODS

    p.add_argument("--multiplicity", choices=MULTIPLICITY_METHODS, default="holm",
                   help="how the report adjusts each family of comparisons it labels ('balanced', 'A ahead', ...): "
                        "holm controls the family-wise error rate at 5%%, bh (Benjamini-Hochberg) the false "
                        "discovery rate at 5%%, none tests each comparison on its own (default: holm)")


def _cmd_seal(args: argparse.Namespace) -> None:
    from .run.rundir import MANIFEST, is_confirmation_file, seal_file, seal_run

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


def _cmd_report(args: argparse.Namespace) -> None:
    from .studies.kinds import report

    for path in report(Path(args.run_dir), args):
        print(path)


def _cmd_replay(args: argparse.Namespace) -> None:
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
        from .run.handhistory import check_export, from_run, write_file

        check_export(args.export)  # before the deal is played again
        print(write_file(from_run(args.run_dir, args.cell, args.deal, args.trust_plugins), Path(args.export)))
    if args.html is not None:
        from .tools.replay_html import write_replay_page

        print(write_replay_page(args.run_dir, args.cell, args.deal, Path(args.html), args.trust_plugins))
    if args.export is None and args.html is None:
        from .run.replay import replay_text

        print(replay_text(args.run_dir, args.cell, args.deal, trust_plugins=args.trust_plugins)[0])


def _export_deals(args: argparse.Namespace) -> None:
    """``ginsim replay RUN --cell C --deals FIRST-LAST --export DIR``: many deals as files."""
    import re

    from .run.handhistory import export_deals

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
        from .tools.replay_html import write_history_page

        print(write_history_page(args.run_dir, Path(args.html)))
        return
    from .run.handhistory import read_file, story

    print(story(read_file(args.run_dir), args.run_dir)[0])


def _cmd_play(args: argparse.Namespace) -> None:
    from .tools.play import play

    play(vs=args.vs, rules=args.rules, seed=args.seed, game=args.game)


def _cmd_bench(args: argparse.Namespace) -> None:
    import json

    from .tools import bench

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
    if args.rl:
        result = bench.bench_rl_env(seconds=1.0 if args.quick else 3.0)
        print(json.dumps(result, indent=2)) if args.json else bench.print_rl_env(result)
        return
    try:  # python_ginsim beside OpenSpiel's gin_rummy, when open_spiel is installed
        from .interop import ospiel_play
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


def _cmd_completion(args: argparse.Namespace) -> None:
    import shtab

    print(shtab.complete(build_parser(), shell=args.shell), end="")


def _cmd_cache(args: argparse.Namespace) -> None:
    from .infra.cache import cache_description, clear_cache

    if args.action == "where":
        print(cache_description())
        return
    removed = clear_cache()
    for path in removed:
        print(f"removed {path}")
    if not removed:
        print("nothing to remove: no ginsim cache entries")


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """Shows "(default: X)" after every option that has a default value; options without
    one (None) or flags (False) say what happens in their own help text."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default is None or action.default is False or action.default == argparse.SUPPRESS \
                or "(default" in text:
            return text
        return super()._get_help_string(action)


#: what --trust-plugins does, for every command that reads a run directory
TRUST_HELP = ("run the plug-in files the run's manifest names (after checking each file's sha256 against the one "
              "the run recorded)")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(prog="ginsim", description="Monte Carlo research simulator for Gin Rummy.",
                                     formatter_class=_Help)
    parser.add_argument("-V", "--version", action="version", version=f"ginsim {__version__}",
                        help="print ginsim's version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, text: str, description: str | None = None) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=text, description=description or text[0].upper() + text[1:] + ".",
                              formatter_class=_Help)

    for add in (_play_commands, _run_commands, _tune_command, _read_commands, _info_commands):
        add(command)
    return parser


def _play_commands(command) -> None:
    """``simulate`` and ``arena``."""
    p = command("simulate", "play deals between two strategies and print a summary")
    p.add_argument("a", help="strategy A, e.g. simple or 'simple:knock_at=0' (see 'ginsim strategies')")
    p.add_argument("b", help="strategy B, same form as A")
    p.add_argument("--rules", default="hoyle", help="rules preset (see 'ginsim variants')")
    p.add_argument("--deals", type=int, default=100_000, help="deals to play (even, when mirrored)")
    p.add_argument("--seed", type=int, default=0, help="random seed: the same seed gives the same deals")
    p.add_argument("--no-mirror", action="store_true",
                   help="independent deals instead of mirrored pairs (default: mirrored pairs)")
    _plugin_and_json_options(p)
    p.set_defaults(func=_cmd_simulate)

    p = command("arena", "play two players on the same decks inside OpenSpiel's gin_rummy (needs open_spiel)",
                "Play two players on the same decks, each deck once in each seat, inside OpenSpiel's gin_rummy "
                "(ginsim strategies play through simulator.interop.openspiel.GinsimBot) or inside ginsim, and "
                "print points per hand with a paired 95% interval (docs/openspiel.md).")
    p.add_argument("a", help="player A: a ginsim strategy spec (e.g. mc, 'simple:knock_at=0') or an OpenSpiel bot "
                             "(openspiel_simple, openspiel_random)")
    p.add_argument("b", help="player B, same form as A")
    p.add_argument("--decks", type=int, default=1000, help="decks to play, each in both seats")
    p.add_argument("--seed", type=int, default=0, help="random seed: the same seed gives the same decks")
    p.add_argument("--rules", default="single_hand",
                   help="rules preset OpenSpiel can play (its knock limit and bonuses go to OpenSpiel)")
    p.add_argument("--engine", choices=["openspiel", "ginsim"], default="openspiel",
                   help="where the hands are played: OpenSpiel, or ginsim's engine with OpenSpiel bots as "
                        "strategies")
    _complete(p.add_argument("--export", metavar="DIR",
                             help="write every hand as a hand history file into DIR (made if missing; "
                                  "docs/hand-history.md) (default: none written)"), "directory")
    _plugin_and_json_options(p)
    p.set_defaults(func=_cmd_arena)

    p = command("convert", "convert hand history files to OpenSpiel action sequences, or back (needs open_spiel)",
                "Hand history files (docs/hand-history.md) to OpenSpiel gin_rummy action sequences, one line per "
                "file on stdout, in the order given (--to openspiel); or a file of OpenSpiel action sequences, one "
                "hand per line (state.history(), chance outcomes included), to hand history files in a directory "
                "(--from openspiel). Every input converts, or nothing is printed or written.")
    _complete(p.add_argument("inputs", nargs="+", metavar="FILE",
                             help="hand history files (--to), or one file of action sequences (--from)"), "file")
    p.add_argument("--to", choices=["openspiel"], help="convert hand history files to this format (default: none)")
    p.add_argument("--from", dest="source", choices=["openspiel"],
                   help="convert from this format to hand history files (default: none)")
    _complete(p.add_argument("--out", metavar="DIR", help="with --from: the directory for the hand history files, "
                             "hand-LINE.toml (default: none)"), "directory")
    p.add_argument("--rules", default="single_hand",
                   help="with --from: the rules of the OpenSpiel game the sequences were played in (default: "
                        "single_hand, OpenSpiel's gin_rummy defaults)")
    p.add_argument("--dealer", type=int, choices=[0, 1], default=1,
                   help="with --from: the seat OpenSpiel's player 1, the dealer, sits in (default: 1)")
    p.set_defaults(func=_cmd_convert)


def _run_commands(command) -> None:
    """``run``, ``reproduce``, ``init`` and ``confirm``: experiment files and studies."""
    from .run.config import option_help
    from .run.experiment import SCHEMA

    p = command("run", "run an experiment file to a Parquet run directory")
    _complete(p.add_argument("experiment", help="experiment TOML file, e.g. experiments/quickstart.toml (format: "
                                                "docs/experiments.md), or a study by name, e.g. quickstart: "
                                                "./experiments/NAME.toml, else the one that comes with ginsim"), "file")
    p.add_argument("--out", help="run directory (default: results/<name> of the experiment)")
    p.add_argument("--deals", type=int, help=option_help(SCHEMA["deals"], "file"))
    p.add_argument("--games", type=int, help=option_help(SCHEMA["games"], "file"))
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes; 1 runs in this process on all cores with numba threads")
    p.add_argument("--backend", choices=["local", "dask"], default="local",
                   help="local: this machine (joblib processes when --jobs > 1); dask: a Dask cluster")
    p.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 "
                                       "(default: start a local cluster of --jobs workers)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--resume", action="store_true",
                      help="complete an interrupted run in --out (default: refuse a directory holding a run)")
    mode.add_argument("--force", action="store_true",
                      help="replace an earlier run in --out: removes only the files ginsim wrote there (manifest, "
                           "chunk files, marked report files) and refuses if any other file is present (default: a directory "
                           "holding a run is refused)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (default: a progress bar on stderr when it is a terminal)")
    _json_option(p)
    p.set_defaults(func=_cmd_run)

    p = command("reproduce", "re-run a study of experiments/ and write its report",
                "Re-run experiments/STUDY.toml into results/STUDY, replacing an earlier run there (as run "
                "--force), then write its report there (as report). Smaller --deals/--games give a quick "
                "check of the pipeline, not the published numbers. A decision-values study "
                "(experiments/decision_values.toml) plays every block again at its own sizes and writes "
                "its decision_values.json and report.")
    p.add_argument("study", help="study name: knock_vs_gin, variant_balance, strategy_tournament, or any "
                                 "experiments/<name>.toml (./experiments first, then the ones that come with ginsim)")
    p.add_argument("--deals", type=int, help=option_help(SCHEMA["deals"], "study"))
    p.add_argument("--games", type=int, help=option_help(SCHEMA["games"], "study"))
    p.add_argument("--jobs", type=int, default=1, help="worker processes, as for run")
    p.add_argument("--out", help="run and report directory (default: results/<study> under the current directory)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (default: a progress bar on stderr when it is a terminal)")
    _multiplicity_option(p)
    p.set_defaults(func=_cmd_reproduce)

    p = command("init", "copy the experiment files and examples that come with ginsim into a directory",
                "Copy ginsim's experiment files (DIRECTORY/experiments) and examples (DIRECTORY/examples) for "
                "editing, the studies' claims files and ledgers included; refuses if either already exists. From "
                "DIRECTORY, 'ginsim run NAME', 'ginsim reproduce NAME', 'ginsim confirm NAME' and 'ginsim claims' "
                "then use the copies (the ledgers that come with ginsim are read-only).")
    p.add_argument("directory", help="where to copy them (created if missing)")
    p.set_defaults(func=_cmd_init)
    p = command("confirm", "re-play a study's claims on fresh seeds and say which replicate",
                "Re-play the claims of experiments/STUDY.claims.toml (format: docs/experiments.md) on seeds the "
                "study never used, derived from its seed and a salt; every claim must be registered in the "
                "study's ledger (experiments/ledger/STUDY.jsonl, see 'ginsim claims') as the file states it. "
                "Sample sizes are fixed, and written to the ledger, before playing: 90% power at a conservative "
                "effect (the claim's effect, else the edge of the study's interval nearest the claimed bound); "
                "each result is appended to the ledger; writes results/STUDY/confirm.md and confirm.json. Exit "
                "status 1 when a claim is not replicated.")
    p.add_argument("study", help="study name: any experiments/<name>.toml with an experiments/<name>.claims.toml, "
                                 "or a folder of tuning specs with experiments/<name>/claims.toml (optimal_knock)")
    p.add_argument("--deals", type=int, help="at most this many deals per claim (default: the claims file's max_deals, "
                                             "else 1000000)")
    p.add_argument("--games", type=int, help="at most this many games per claim (default: the claims file's max_games, "
                                             "else 40000)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes; 1 plays in this process with numba threads "
                                                       "(a tuning study always plays in this process)")
    p.add_argument("--salt", default=None,
                   help="the name the confirmation's seeds derive from, recorded in the study's ledger; a salt whose "
                        "sizes the ledger holds re-plays that confirmation and checks it, a new salt makes a new "
                        "confirmation with its own sizes, fixed before it plays (default: ginsim-confirm-2)")
    p.add_argument("--out", help="directory for confirm.md and confirm.json (default: results/<study>)")
    p.add_argument("--quiet", action="store_true", help="no progress lines (default: one line per cell on stderr)")
    p.set_defaults(func=_cmd_confirm)

    p = command("claims", "register, withdraw or list a study's claims in its ledger",
                "A study's ledger (experiments/ledger/STUDY.jsonl) keeps every claim it ever made, append-only: "
                "register adds each claim of experiments/STUDY.claims.toml not in it yet (a changed claim is "
                "refused: it is a new claim with a new id); withdraw takes a claim back with the reason; log "
                "lists every claim registered, its confirmations, and the withdrawn ones with their reasons; verify "
                "re-plays a confirmation from its plan and compares its figures with the ledger's (exit status 1 "
                "when they differ). A ledger that comes with ginsim is read-only: register and withdraw write "
                "only a working copy made by 'ginsim init DIR' (format: docs/experiments.md).")
    p.add_argument("action", choices=["register", "withdraw", "log", "verify"], help="what to do")
    p.add_argument("study", nargs="?", help="the study, as for confirm (log without it: every ledger)")
    p.add_argument("id", nargs="?", help="withdraw: the claim's id; verify: the claim to re-play (default: every "
                                         "claim the salt confirmed)")
    p.add_argument("--why", help="withdraw: the reason, recorded in the ledger (default: none; required with withdraw)")
    p.add_argument("--salt", help="verify: the confirmation to re-play (default: ginsim-confirm-2)")
    p.add_argument("--jobs", type=int, help="verify: worker processes, as for confirm (default: 1)")
    p.add_argument("--quiet", action="store_true", help="verify: no progress lines (default: one line per cell on "
                                                        "stderr)")
    p.set_defaults(func=_cmd_claims)

    p = command("field", "rate the field of players, or place a new player in it",
                "Without SPEC: write the field study's ratings (Bradley-Terry, Elo scale, simple = 0, 95% "
                "intervals), its Holm-labelled matrix of game-win shares, each family's table when the study declares "
                "[families], and every player's CPU per decision to "
                "results/field_ratings/field.md (the study: ginsim reproduce field). With SPEC: play it against "
                "every member of the field on common mirrored deals under each of the study's variants and print "
                "the ratings with it placed, and its minimum and exploitability lower bound against each family "
                "(docs/published.md#the-field).")
    p.add_argument("spec", nargs="?", help="the player to place: any strategy spec, a plug-in given with --plugin "
                                           "(default: none, write the field's page)")
    _complete(p.add_argument("--run", default="results/field", help="the field study's run directory "
                                                                     "(default: results/field)"), "dir")
    p.add_argument("--deals", type=int, default=4_000, help="single hands against each member (even; default 4000)")
    p.add_argument("--games", type=int, default=1_000, help="whole games against each member (even; default 1000)")
    p.add_argument("--seed", type=int, help="seed of the placement's deals (default: the study's seed + 1)")
    p.add_argument("--cpu-deals", type=int, default=200,
                   help="deals over which each player's decisions are timed (default 200)")
    p.add_argument("--out", help="where the field's page goes (default: results/field_ratings/field.md)")
    p.add_argument("--plugin", action="append", metavar="NAME=FILE",
                   help="register a plug-in strategy file first (numba, or FILE.py:Class for a Python player), "
                        "then use NAME as SPEC; repeatable (default: built-in strategies only)")
    p.set_defaults(func=_cmd_field)


def _tune_command(command) -> None:
    """``tune``."""
    p = command("tune", "tune a strategy's parameters against a field, then check the best on fresh deals",
                "Tune a strategy's parameters (e.g. knock_policy's knock thresholds) against a weighted field of "
                "opponents with Optuna on common random deals, pruning candidates in rungs of growing deal counts; "
                "then play the best candidate and the baselines on fresh deals and report paired 95% intervals. "
                "Writes OUT/best.toml, report.md, report.html and figures; the study is OUT/study.db.")
    _complete(p.add_argument("spec", nargs="+", help="tuning spec TOML file(s), e.g. experiments/tune_small.toml "
                                                     "(format: simulator/studies/tune/__init__.py)"), "file")
    p.add_argument("--out", help="output directory (default: the spec's out, else results/<name>)")
    p.add_argument("--resume", action="store_true",
                   help="continue the study in the output directory after an interruption (even kill -9), "
                        "or rewrite a finished one's report (default: refuse a directory holding a study)")
    p.add_argument("--summary", help="also write one Markdown table summarising every spec's result to this file "
                        "(default: no summary file)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bars (default: progress bars on stderr when it is a terminal)")
    _json_option(p)
    p.set_defaults(func=_cmd_tune)
    _add_equilibrium_commands(command)


def _read_commands(command) -> None:
    """``show``, ``report`` and ``replay``: reading a run directory."""
    p = command("show", "print a run's summary from its files")
    _complete(p.add_argument("run_dir", help="a run directory written by 'ginsim run', e.g. results/quickstart"),
              "directory")
    _json_option(p)
    p.set_defaults(func=_cmd_show)

    p = command("report", "write report.md, report.html and plots for a run")
    _complete(p.add_argument("run_dir", help="a complete run directory written by 'ginsim run', "
                                             "e.g. results/quickstart"), "directory")
    p.add_argument("--out", help="directory for the report (default: the run directory)")
    _multiplicity_option(p)
    p.add_argument("--trust-plugins", action="store_true", help=TRUST_HELP + " to say how they defend after a knock "
                   "(default: plug-ins are not run and their defence is reported as unknown)")
    p.set_defaults(func=_cmd_report)

    p = command("seal", "record the digests of a run (or confirm.json) written by an earlier ginsim",
                "A run directory written by an earlier ginsim (run-directory format 2 or 3) records no digest of "
                "its chunks, so show, report and replay refuse it. seal checks every chunk as --resume does (its "
                "provenance against the manifest, every page decoded), then records each chunk's sha256, size and "
                "rows in the manifest; a confirm.json written by an earlier ginsim confirm is sealed as it stands. "
                "It vouches for the files as they are now, so run it only on directories you trust.")
    _complete(p.add_argument("directory", help="a run directory, or a study's results directory holding confirm.json"),
              "directory")
    p.set_defaults(func=_cmd_seal)

    p = command("replay", "re-play one deal of a run, or a hand history file, turn by turn",
                "Re-play one deal of a run from its seed (checked against the row the run stored), or play a hand "
                "history file again (checked against the result it records; format: docs/hand-history.md), and "
                "tell it turn by turn.")
    _complete(p.add_argument("run_dir", metavar="RUN_OR_FILE",
                             help="a run directory written by 'ginsim run', or a hand history file (written by "
                                  "--export or 'ginsim arena --export')"), "file")
    p.add_argument("--cell", type=int, help="cell number (the 'cell' column of the summary); required with a run "
                                            "directory (default: none, for a hand history file)")
    p.add_argument("--deal", type=int, help="deal number within the cell (the 'deal' column); required with a run "
                                            "directory (default: none, for a hand history file)")
    p.add_argument("--deals", metavar="FIRST-LAST",
                   help="with --export DIR: write deals FIRST to LAST of the cell as hand history files in DIR, "
                        "each re-played and checked before any is written (default: one --deal)")
    _complete(p.add_argument("--export", metavar="FILE",
                             help="write the deal as a hand history file (rules, deal, every action, result; "
                                  "docs/hand-history.md) instead of the text; with --deals, a directory "
                                  "(default: the text on stdout)"), "file")
    _complete(p.add_argument("--html", metavar="FILE",
                             help="write a self-contained web page that steps through the deal (both hands, the "
                                  "pile, each decision, the layout and the score; arrow keys or buttons) instead "
                                  "of the text (default: the text on stdout)"), "file")
    p.add_argument("--trust-plugins", action="store_true", help=TRUST_HELP + " to re-play a cell that plays them "
                   "(default: such a cell is refused)")
    p.set_defaults(func=_cmd_replay)


def _info_commands(command) -> None:
    """``strategies``, ``variants``, ``play``, ``bench``, ``cache`` and ``completion``."""
    p = command("strategies", "list strategies with their parameters")
    p.add_argument("--plugin", action="append", metavar="NAME=FILE",
                   help="register a plug-in strategy file first; repeatable (default: built-in strategies only)")
    p.set_defaults(func=_cmd_strategies)

    p = command("variants", "list rule presets and their fields")
    p.set_defaults(func=_cmd_variants)

    p = command("play", "play Gin Rummy against a bot in the terminal",
                "Play a hand (or with --game a whole game) against a bot. Moves are read from standard input, "
                "one per line, so a file of moves can play a hand; ? lists the keys, q or Ctrl-D quits.")
    p.add_argument("--vs", default="simple", help="the bot: any strategy spec (see 'ginsim strategies')")
    p.add_argument("--rules", default="hoyle", help="rules preset (see 'ginsim variants')")
    p.add_argument("--seed", type=int, help="deal the same cards again (default: a fresh seed, printed)")
    p.add_argument("--game", action="store_true", help="play a whole game to the target (default: one hand)")
    p.set_defaults(func=_cmd_play)

    p = command("bench", "measure the rules core and the engine on this machine")
    p.add_argument("--quick", action="store_true",
                   help="smaller samples: about 2 minutes on 2 idle cores, 30 s of it timing a cold compile "
                        "(default: the full run, several minutes)")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables (default: tables)")
    p.add_argument("--scale", action="store_true",
                   help="instead: the scale benchmark, ginsim run of 100 million deals (10 cells) then ginsim report, "
                        "each timed with its peak memory, and the size on disk (about 4-5 minutes on 2 idle cores: 4 min 15 s measured; "
                        "needs about 1 GB of disk; default: the usual benchmarks instead)")
    p.add_argument("--scale-deals", type=int,
                   help="deals in the scale benchmark, over 10 cells (default: 100000000)")
    p.add_argument("--scale-dir", help="where the scale benchmark's run goes (default: the system temp dir)")
    p.add_argument("--scale-keep", action="store_true", help="keep the scale benchmark's run (default: remove it)")
    p.add_argument("--rl", action="store_true",
                   help="instead: only the RL environments, agent steps per CPU-second of GinRummyVectorEnv (1024 hands "
                        "vs simple) beside RLCard's and OpenSpiel's envs when installed (about 10 s; default: everything)")
    p.add_argument("--openspiel-game", action="store_true",
                   help="instead: only the OpenSpiel games, steps per CPU-second of python_ginsim (ginsim's rules as an "
                        "OpenSpiel game) beside OpenSpiel's C++ gin_rummy, both played at random (about 6 s; needs "
                        "open_spiel; default: everything, this included when open_spiel is installed)")
    p.set_defaults(func=_cmd_bench)

    p = command("cache", "manage compiled kernels")
    p.add_argument("action", choices=["clear", "where"],
                   help="clear: remove ginsim's compiled kernels (only what ginsim made); where: say where they live")
    p.set_defaults(func=_cmd_cache)

    p = command("completion", "print a shell completion script",
                "Print a completion script for the shell, e.g. 'ginsim completion bash > "
                "~/.local/share/bash-completion/completions/ginsim', or for zsh a file _ginsim in a directory "
                "of $fpath.")
    p.add_argument("shell", choices=["bash", "zsh", "tcsh"], help="the shell")
    p.set_defaults(func=_cmd_completion)


def _plugin_and_json_options(p: argparse.ArgumentParser) -> None:
    """``--plugin`` and ``--json`` of the commands that play strategies A and B."""
    p.add_argument("--plugin", action="append", metavar="NAME=FILE",
                   help="register a plug-in strategy file first (numba, or FILE.py:Class for a Python player), "
                        "then use NAME as A or B; repeatable (default: built-in strategies only)")
    _json_option(p)


def _json_option(p: argparse.ArgumentParser) -> None:
    """``--json``: one JSON document on stdout, in the schema docs/cli.md gives the command."""
    p.add_argument("--json", action="store_true", help="print one JSON document instead of text "
                                                        "(schema: docs/cli.md; default: text)")


def _complete(action: argparse.Action, kind: str) -> argparse.Action:
    """Let the shell completion (shtab) offer files or directories for this argument."""
    import shtab

    action.complete = shtab.FILE if kind == "file" else shtab.DIRECTORY
    return action


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def main(argv: list[str] | None = None) -> int:
    from .infra.cache import announce_compiles
    from .infra.terminal import terminal_streams

    with terminal_streams():  # every command's output: text from data escaped, any encoding
        args = build_parser().parse_args(argv)
        announce_compiles()  # every command says so before it compiles (numba is not loaded for this)
        try:
            args.func(args)
            sys.stdout.flush()
        except _NotReplicated:
            return 1
        except BrokenPipeError:
            # the reader went away (e.g. piped into head): stop quietly, as Unix tools do
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 141
        except (ValueError, OSError) as exc:
            print(f"ginsim: error: {_one_line(exc)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"ginsim: interrupted{INTERRUPTED.get(args.command, '')}", file=sys.stderr)
            return 130
    return 0


#: what Ctrl-C leaves behind, for the commands that keep their work (the others say only
#: that they were interrupted)
INTERRUPTED = {"run": "; finished chunks are kept, continue with --resume",
               "reproduce": "; finished chunks are kept, continue with ginsim run experiments/STUDY.toml --out DIR "
                            "--resume",
               "tune": "; finished trials are kept, continue with --resume",
               "exploit": "; finished trials are kept, continue with --resume",
               "equilibrium": "; finished steps are kept, continue with --resume"}


if __name__ == "__main__":
    sys.exit(main())
