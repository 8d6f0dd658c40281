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
    ginsim bench [--quick] [--json] [--scale] [--variance] [--openspiel-game]  speed (or variance) on this machine
    ginsim cache clear|where                                      drop compiled kernels, or say where they are
    ginsim completion bash|zsh|tcsh                               a shell completion script

``--json`` on simulate, arena, run, show, tune, exploit and equilibrium prints one JSON document on stdout instead of
text (the schema: docs/cli.md); progress and notices go to stderr, and progress bars only
to a terminal.  Bad input prints one line naming the problem and exits with status 2.

``main`` (here) parses the arguments (``simulator.cli.parser``), runs the command
(``simulator.cli.commands``) and turns its errors into that one line.
"""

from __future__ import annotations

import os
import sys

from .commands import NotReplicated
from .parser import build_parser


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def main(argv: list[str] | None = None) -> int:
    from ..infra.cache import announce_compiles
    from ..infra.terminal import terminal_streams

    with terminal_streams():  # every command's output: text from data escaped, any encoding
        args = build_parser().parse_args(argv)
        announce_compiles()  # every command says so before it compiles (numba is not loaded for this)
        try:
            args.func(args)
            sys.stdout.flush()
        except NotReplicated:
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

