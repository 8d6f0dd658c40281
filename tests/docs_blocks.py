"""The code blocks of the README and the docs, checked as a reader would use them.

* ``bash`` and ``sh`` blocks list commands: every one is checked without running it
  (``command_problems``): a ``ginsim`` command line must parse with ginsim's own parser, and
  the experiment files and examples it names must exist; ``pip install`` may name only the
  extras ``pyproject.toml`` declares; ``python examples/X.py`` and ``python -m MODULE`` must
  name a script and options, or a module, that exist; ``pytest`` node ids must exist; any
  other program must be one of ``TOOLS``.  The fast tier runs this (``tests/test_docs_blocks.py``).
* ``console`` blocks (``$ command`` lines, each followed by its output) and ``pycon`` blocks
  (``>>>`` examples, as doctest writes them) are run, in page order, in a scratch directory
  holding copies of ``experiments/`` and ``examples/`` (``ginsim`` is this checkout's), and
  their output is compared with the page's: ``...`` stands for any text (a time taken), and
  runs of spaces compare equal.  A block whose first line is a comment naming a file
  (``# patient.py``) is that file: it is written into the scratch directory first.  This is
  the docs tier (slow: it plays the README's quick start), which CI runs.

``python tests/docs_blocks.py --update [PAGE ...]`` runs the pages and writes each output
that no longer matches back into its block: the docs' outputs come from runs.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: ``` fences, any indentation; the language word, then the body up to the closing fence
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
#: a block that is a file: its first line names it (``# patient.py``, ``# experiments/x.toml``)
FILE_HEADER = re.compile(r"^# ([\w./-]+\.(?:py|toml))\s*$")
#: programs a command block may run besides ginsim, pip, python and pytest
TOOLS = {"mkdocs", "lint-imports", "cd", "git"}
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence
    lang: str
    body: str
    start: int  # offsets of the body in the page's text
    end: int

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents() -> list[Path]:
    """The README, the docs and the study pages the site publishes."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "experiments").glob("*.md")),
            *sorted((ROOT / "experiments").glob("*/README.md"))]


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        indent = len(m.group("indent"))
        body = "\n".join(line[indent:] for line in m.group("body").splitlines())
        out.append(Block(path, text.count("\n", 0, m.start()) + 1, m.group("lang"), body + "\n",
                         m.start("body"), m.end("body")))
    return out


# ----------------------------------------------------------------------------- checking commands
def commands(body: str) -> list[list[str]]:
    """The commands of a shell block: lines joined at a trailing backslash, comments dropped,
    split at ``&&``, ``;`` and ``|``; each as its words."""
    text = body.replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("$ "):
            line = line[2:]
        words = shlex.split(line, comments=True)
        current: list[str] = []
        redirect = False
        for word in words + [";"]:
            if redirect:  # the file of a redirection is no argument
                redirect = False
            elif word in (">", ">>", "<", "2>"):
                redirect = True
            elif word in ("&&", ";", "|", "||"):
                if current:
                    out.append(current)
                current = []
            elif word.endswith(";"):
                current.append(word[:-1])
                out.append(current)
                current = []
            else:
                current.append(word)
    return out


def _extras() -> set[str]:
    return set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])


def command_problems(argv: list[str]) -> str | None:
    """What is wrong with one documented command line, without running it (None: nothing)."""
    program, args = argv[0], argv[1:]
    if program == "ginsim":
        return _ginsim_problem(args)
    if program == "pip":
        for arg in args:
            extras = re.fullmatch(r"\.\[([\w,-]+)\]", arg)
            if extras and not set(extras.group(1).split(",")) <= _extras():
                return f"pip: extra(s) {sorted(set(extras.group(1).split(',')) - _extras())} not in pyproject.toml"
        if args[:1] not in (["install"], ["wheel"]):
            return f"pip {args[:1]}: only install and wheel are documented"
        return None
    if program == "python":
        if args[:1] == ["-m"]:
            import importlib.util

            return None if importlib.util.find_spec(args[1]) else f"python -m {args[1]}: no such module"
        script = ROOT / args[0]
        if not script.is_file():
            return f"python {args[0]}: no such script"
        text = script.read_text()
        missing = [a for a in args[1:] if a.startswith("--") and f'"{a.split("=")[0]}"' not in text]
        return f"python {args[0]}: no option {missing[0]}" if missing else None
    if program == "pytest":
        for arg in args:
            if arg.startswith("tests/"):
                file, _, name = arg.partition("::")
                if not (ROOT / file).is_file() or (name and f"def {name.split('[')[0]}(" not in (ROOT / file).read_text()):
                    return f"pytest {arg}: no such test"
        return None
    return None if program in TOOLS else f"{program}: a program the docs checker does not know (tests/docs_blocks.py)"


def _ginsim_problem(args: list[str]) -> str | None:
    import contextlib
    import io

    from simulator.cli import build_parser

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(args)
    except SystemExit as stop:
        if stop.code:
            return f"ginsim {' '.join(args)}: {err.getvalue().strip().splitlines()[-1]}"
    for arg in args:
        if re.match(r"(experiments|examples)/[\w./*-]+\.(toml|py)$", arg):
            if not any(ROOT.glob(arg)):
                return f"ginsim {' '.join(args)}: {arg} does not exist"
    return None


# ----------------------------------------------------------------------------- running pages
def sandbox(tmp: Path) -> dict[str, str]:
    """A scratch directory for running pages: copies of experiments/ and examples/, and a
    ``ginsim`` on the PATH that runs this checkout.  Returns the environment to run in."""
    for folder in ("experiments", "examples"):
        shutil.copytree(ROOT / folder, tmp / folder, ignore=shutil.ignore_patterns("__pycache__"))
    bin_dir = tmp / ".bin"
    bin_dir.mkdir()
    shim = bin_dir / "ginsim"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m simulator.cli "$@"\n')
    shim.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
            "COLUMNS": "200"}


def _console(block: Block) -> list[tuple[str, str]]:
    """(command, expected output) of each ``$`` line of a console block."""
    out: list[tuple[str, list[str]]] = []
    for line in block.body.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return [(cmd, "\n".join(lines).rstrip() + "\n" if lines else "") for cmd, lines in out]


def run_page(path: Path, tmp: Path, env: dict[str, str], update: bool = False) -> list[str]:
    """Run a page's console and pycon blocks in order in ``tmp``; the mismatches, as lines.
    With ``update``, each block's output that does not match is written back into the page."""
    checker = doctest.OutputChecker()
    failures: list[str] = []
    edits: list[tuple[int, int, str]] = []
    globs: dict = {"__name__": "__docs__"}
    before = os.getcwd()
    os.chdir(tmp)
    saved_env = dict(os.environ)
    os.environ.update(env)
    try:
        for block in blocks(path):
            header = FILE_HEADER.match(block.body.splitlines()[0]) if block.body.strip() else None
            if header and block.lang in ("python", "toml"):
                target = tmp / header.group(1)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(block.body)
            elif block.lang == "console":
                new_body = []
                for command, expected in _console(block):
                    done = subprocess.run(["bash", "-c", command], cwd=tmp, env=env, capture_output=True, text=True)
                    got = done.stdout if done.returncode == 0 else f"{done.stdout}[exit {done.returncode}] {done.stderr}"
                    ok = checker.check_output(expected, got, FLAGS)
                    if not ok:
                        failures.append(f"{block.where}: $ {command}\n--- the page says\n{expected}--- it prints\n{got}")
                    new_body.append(f"$ {command}\n" + (expected if ok else got))
                edits.append((block.start, block.end, "".join(new_body)))
            elif block.lang == "pycon":
                test = doctest.DocTestParser().get_doctest(block.body, globs, block.where, str(path), block.line)
                got_lines: list[str] = []
                for example in test.examples:
                    out = _run_example(example, globs)
                    ok = checker.check_output(example.want, out, FLAGS)
                    if not ok:
                        failures.append(f"{block.where}: >>> {example.source.strip()}\n--- the page says\n"
                                        f"{example.want}--- it prints\n{out}")
                    got_lines.append(_example_text(example, example.want if ok else out))
                edits.append((block.start, block.end, "".join(got_lines)))
    finally:
        os.chdir(before)
        os.environ.clear()
        os.environ.update(saved_env)
    if update and failures:
        text = path.read_text(encoding="utf-8")
        for start, end, body in sorted(edits, reverse=True):
            text = text[:start] + body + text[end:]
        path.write_text(text, encoding="utf-8")
    return failures


def _run_example(example: doctest.Example, globs: dict) -> str:
    """What one doctest example prints (its value's repr for an expression), or its error."""
    import contextlib
    import io
    import traceback

    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            code = compile(example.source, "<docs>", "single")
            exec(code, globs)
    except Exception:
        return out.getvalue() + traceback.format_exc(limit=0)
    return out.getvalue()


def _example_text(example: doctest.Example, want: str) -> str:
    lines = example.source.rstrip("\n").split("\n")
    text = ">>> " + lines[0] + "\n" + "".join("... " + line + "\n" for line in lines[1:])
    return text + want


#: the pages the docs tier runs: every page holding a console or pycon block
def runnable_pages() -> list[Path]:
    return [p for p in documents() if any(b.lang in ("console", "pycon") for b in blocks(p))]


if __name__ == "__main__":
    import tempfile

    update = "--update" in sys.argv
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    pages = [ROOT / n for n in names] if names else runnable_pages()
    sys.path.insert(0, str(ROOT))
    problems = 0
    with tempfile.TemporaryDirectory() as tmp:
        env = sandbox(Path(tmp))
        for page in pages:
            for failure in run_page(page, Path(tmp), env, update):
                problems += 1
                print(failure, file=sys.stderr)
    print(f"{problems} output(s) differ" + (" (written back)" if update and problems else ""))
    sys.exit(1 if problems and not update else 0)
