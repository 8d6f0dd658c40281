"""The ``ginsim`` command line's parsers: one sub-command each, its options, defaults and
help (``build_parser``), each calling its ``simulator.cli.commands.cmd_NAME``."""

from __future__ import annotations

import argparse

from ..studies.control_names import CONTROLS, GAMES_ONLY
from . import commands


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
    from .. import __version__

    parser = argparse.ArgumentParser(prog="ginsim", description="Monte Carlo research simulator for Gin Rummy.",
                                     formatter_class=_Help)
    parser.add_argument("-V", "--version", action="version", version=f"ginsim {__version__}",
                        help="print ginsim's version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, text: str, description: str | None = None) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=text, description=description or text[0].upper() + text[1:] + ".",
                              formatter_class=_Help)

    for add in (_play_commands, _run_commands, _study_commands, _read_commands, _info_commands):
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
    p.add_argument("--control", choices=[c for c in CONTROLS if c not in GAMES_ONLY],
                   help="also estimate with control variates, each worth 0 in expectation: draws, the luck of the "
                        "matchup's own stock draws (AIVAT's correction, with the draw-value table fitted on development "
                        "seeds); self, each player's self-play on the same pairs (self_a, self_b: only A's or B's), "
                        "which pays off when A and B play alike; draws+self etc. both; draws+swap, the draws and the "
                        "same deals played again with their hands exchanged; draws+swap+self etc. all three. "
                        "Prints both estimates and the pairs the reduced one saves (docs/analysis.md; default: the "
                        "plain estimate only)")
    _plugin_and_json_options(p)
    p.set_defaults(func=commands.cmd_simulate)

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
    p.set_defaults(func=commands.cmd_arena)

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
    p.set_defaults(func=commands.cmd_convert)


def _run_commands(command) -> None:
    """``run``, ``reproduce``, ``init`` and ``confirm``: experiment files and studies."""
    from ..run.config import option_help
    from ..run.experiment import SCHEMA

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
    p.set_defaults(func=commands.cmd_run)

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
    p.set_defaults(func=commands.cmd_reproduce)

    p = command("init", "copy the experiment files and examples that come with ginsim into a directory",
                "Copy ginsim's experiment files (DIRECTORY/experiments) and examples (DIRECTORY/examples) for "
                "editing, the studies' claims files and ledgers included; refuses if either already exists. From "
                "DIRECTORY, 'ginsim run NAME', 'ginsim reproduce NAME', 'ginsim confirm NAME' and 'ginsim claims' "
                "then use the copies (the ledgers that come with ginsim are read-only).")
    p.add_argument("directory", help="where to copy them (created if missing)")
    p.set_defaults(func=commands.cmd_init)
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
    p.set_defaults(func=commands.cmd_confirm)

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
    p.set_defaults(func=commands.cmd_claims)


def _study_commands(command) -> None:
    """The commands particular to kinds of study (``simulator.studies.commands``), each added
    from its declaration."""
    from ..studies.commands import COMMANDS

    for study in COMMANDS:
        p = command(study.name, study.text, study.description)
        for one in study.options:
            action = p.add_argument(*one.flags, help=one.help, **one.keywords)
            if one.complete:
                _complete(action, one.complete)
        if study.plugins:
            _plugin_option(p, "SPEC")
        if study.json:
            _json_option(p)
        p.set_defaults(func=commands.cmd_study)


def _read_commands(command) -> None:
    """``show``, ``report`` and ``replay``: reading a run directory."""
    p = command("show", "print a run's summary from its files")
    _complete(p.add_argument("run_dir", help="a run directory written by 'ginsim run', e.g. results/quickstart"),
              "directory")
    _json_option(p)
    p.set_defaults(func=commands.cmd_show)

    p = command("report", "write report.md, report.html and plots for a run")
    _complete(p.add_argument("run_dir", help="a complete run directory written by 'ginsim run', "
                                             "e.g. results/quickstart"), "directory")
    p.add_argument("--out", help="directory for the report (default: the run directory)")
    p.add_argument("--control", choices=list(CONTROLS),
                   help="also estimate every cell of two different strategies with control variates, played on the "
                        "run's own mirrored pairs: draws, the luck of the stock draws (with it, each self-play cell's "
                        "first-mover edges too, per hand and per game, with the deal's luck and the hands "
                        "exchanged); self, each player's self-play on the same deals (self_a, self_b: one player's); "
                        "draws+self ... both; draws+swap, the draws and the hands exchanged (a game's, each hand "
                        "played again from the same scores); draws+replay_b, games only: the draws and each hand "
                        "replayed by B in both seats, as dealt, exchanged and from other decks, which pays off "
                        "when A's decisions cost far more than B's and resemble them; draws+swap+self ... and "
                        "draws+swap+replay_b, the hands exchanged with either. Adds the section "
                        "'Estimates with control variates' and controlled.csv, the plain estimate beside each "
                        "(default: none; every figure is the plain mean of mirrored pairs)")
    _multiplicity_option(p)
    p.add_argument("--trust-plugins", action="store_true", help=TRUST_HELP + " to say how they defend after a knock "
                   "(default: plug-ins are not run and their defence is reported as unknown)")
    p.set_defaults(func=commands.cmd_report)

    p = command("seal", "record the digests of a run (or confirm.json) written by an earlier ginsim",
                "A run directory written by an earlier ginsim (run-directory format 2 or 3) records no digest of "
                "its chunks, so show, report and replay refuse it. seal checks every chunk as --resume does (its "
                "provenance against the manifest, every page decoded), then records each chunk's sha256, size and "
                "rows in the manifest; a confirm.json written by an earlier ginsim confirm is sealed as it stands. "
                "It vouches for the files as they are now, so run it only on directories you trust.")
    _complete(p.add_argument("directory", help="a run directory, or a study's results directory holding confirm.json"),
              "directory")
    p.set_defaults(func=commands.cmd_seal)

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
    p.set_defaults(func=commands.cmd_replay)


def _info_commands(command) -> None:
    """``strategies``, ``variants``, ``play``, ``bench``, ``cache`` and ``completion``."""
    p = command("strategies", "list strategies with their parameters")
    p.add_argument("--plugin", action="append", metavar="NAME=FILE",
                   help="register a plug-in strategy file first; repeatable (default: built-in strategies only)")
    p.set_defaults(func=commands.cmd_strategies)

    p = command("variants", "list rule presets and their fields")
    p.set_defaults(func=commands.cmd_variants)

    p = command("play", "play Gin Rummy against a bot in the terminal",
                "Play a hand (or with --game a whole game) against a bot. Moves are read from standard input, "
                "one per line, so a file of moves can play a hand; ? lists the keys, q or Ctrl-D quits.")
    p.add_argument("--vs", default="simple", help="the bot: any strategy spec (see 'ginsim strategies')")
    p.add_argument("--rules", default="hoyle", help="rules preset (see 'ginsim variants')")
    p.add_argument("--seed", type=int, help="deal the same cards again (default: a fresh seed, printed)")
    p.add_argument("--game", action="store_true", help="play a whole game to the target (default: one hand)")
    p.set_defaults(func=commands.cmd_play)

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
    p.add_argument("--variance", action="store_true",
                   help="instead: the variance benchmark, each published matchup's and seat edge's standard deviation "
                        "per mirrored pair plain and with each control (the draws' luck, the players' self-play on the "
                        "same pairs, the hands exchanged, B's replays of each hand of a game), the pairs and the CPU the "
                        "reduced estimate saves for the same interval, and per matchup the control needing the fewest "
                        "pairs and the one needing the least CPU (about 2 minutes with --quick, 8 without, on 2 idle "
                        "cores; default: everything else)")
    p.add_argument("--unbiased", action="store_true",
                   help="instead: the controls' unbiasedness check, each published matchup of light players on "
                        "10,000,000 deals (200,000 with --quick) with the draws' luck and 1,800,000 games (20,000) with "
                        "the hands exchanged too, with B's replays and with both, and the seat edges of games, "
                        "estimated plain and reduced, and each control's mean, which is 0 in expectation (about 36 "
                        "minutes, 1 with --quick, on 2 idle cores; default: everything else)")
    p.add_argument("--strength", action="store_true",
                   help="instead: the robust-player candidates' strength vs compute, each knock searched over 16, "
                        "64, 256 and 1,024 determinizations, 1,000 mirrored games against each MARJJ-family member, "
                        "expert and simple on a development seed (about 80 minutes on 2 idle cores; --quick: 4 and "
                        "16, 40 games, about 1 minute; default: everything else)")
    p.add_argument("--openspiel-game", action="store_true",
                   help="instead: only the OpenSpiel games, steps per CPU-second of python_ginsim (ginsim's rules as an "
                        "OpenSpiel game) beside OpenSpiel's C++ gin_rummy, both played at random (about 6 s; needs "
                        "open_spiel; default: everything, this included when open_spiel is installed)")
    p.set_defaults(func=commands.cmd_bench)

    p = command("cache", "manage compiled kernels")
    p.add_argument("action", choices=["clear", "where"],
                   help="clear: remove ginsim's compiled kernels (only what ginsim made); where: say where they live")
    p.set_defaults(func=commands.cmd_cache)

    p = command("completion", "print a shell completion script",
                "Print a completion script for the shell, e.g. 'ginsim completion bash > "
                "~/.local/share/bash-completion/completions/ginsim', or for zsh a file _ginsim in a directory "
                "of $fpath.")
    p.add_argument("shell", choices=["bash", "zsh", "tcsh"], help="the shell")
    p.set_defaults(func=cmd_completion)


def _plugin_and_json_options(p: argparse.ArgumentParser) -> None:
    """``--plugin`` and ``--json`` of the commands that play strategies A and B."""
    _plugin_option(p, "A or B")
    _json_option(p)


def _plugin_option(p: argparse.ArgumentParser, used_as: str) -> None:
    """``--plugin NAME=FILE`` of a command that plays the strategies its arguments ``used_as`` name."""
    p.add_argument("--plugin", action="append", metavar="NAME=FILE",
                   help="register a plug-in strategy file first (numba, or FILE.py:Class for a Python player), "
                        f"then use NAME as {used_as}; repeatable (default: built-in strategies only)")


def _json_option(p: argparse.ArgumentParser) -> None:
    """``--json``: one JSON document on stdout, in the schema docs/cli.md gives the command."""
    p.add_argument("--json", action="store_true", help="print one JSON document instead of text "
                                                        "(schema: docs/cli.md; default: text)")


def _complete(action: argparse.Action, kind: str) -> argparse.Action:
    """Let the shell completion (shtab) offer files or directories for this argument."""
    import shtab

    action.complete = shtab.FILE if kind == "file" else shtab.DIRECTORY
    return action



def _multiplicity_option(p: argparse.ArgumentParser) -> None:
    from ..analysis.multiplicity import MULTIPLICITY_METHODS

    p.add_argument("--multiplicity", choices=MULTIPLICITY_METHODS, default="holm",
                   help="how the report adjusts each family of comparisons it labels ('balanced', 'A ahead', ...): "
                        "holm controls the family-wise error rate at 5%%, bh (Benjamini-Hochberg) the false "
                        "discovery rate at 5%%, none tests each comparison on its own (default: holm)")


def cmd_completion(args: argparse.Namespace) -> None:
    """``ginsim completion SHELL``: the completion script of these parsers (shtab)."""
    import shtab

    print(shtab.complete(build_parser(), shell=args.shell), end="")
