"""ginsim play: a scripted file of moves plays a whole hand; bad keys get a one-line hint;
q and end of input quit cleanly."""

from __future__ import annotations

import io
import subprocess
import sys

from simulator.play import Table

#: a move for each prompt: pass the upcard, draw from the stock, throw what was drawn,
#: knock when offered, first layout
_MOVES = {"first_upcard> ": "p", "draw> ": "s", "discard> ": "d", "knock> ": "k", "last_discard> ": "p",
          "arrange> ": "1"}


def _script(seed: int, vs: str = "simple", game: bool = False) -> tuple[list[str], str]:
    """Play in-process with the moves above; returns the lines typed and the output."""
    typed: list[str] = []

    def read(prompt: str) -> str:
        typed.append(_MOVES[prompt])
        return typed[-1]

    out = io.StringIO()
    assert Table(vs, "hoyle", seed, game, read, out).run() == 0
    return typed, out.getvalue()


def test_a_file_of_moves_plays_a_whole_hand(tmp_path):
    typed, expected = _script(seed=5)
    moves = tmp_path / "moves.txt"
    moves.write_text("\n".join(typed) + "\n")
    with moves.open() as stdin:
        done = subprocess.run([sys.executable, "-m", "simulator.cli", "play", "--vs", "simple", "--rules", "hoyle",
                               "--seed", "5"], stdin=stdin, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    out = done.stdout
    assert "--- Hand over:" in out and "bye" not in out
    assert out.count("> ") == len(typed)  # every line of the file was one move
    # the transcript shows what the in-process game showed (same seed, same moves)
    for line in ("--- Hand over:", "Your hand:", "Pile top:"):
        assert out.count(line) == expected.count(line)


def test_bad_keys_get_a_hint_and_q_or_end_of_input_quit():
    answers = iter(["zz", "9h", "?", "q"])
    out = io.StringIO()
    Table("simple", "hoyle", 5, False, lambda prompt: next(answers), out).run()
    text = out.getvalue()
    assert "is not a move here" in text and text.rstrip().endswith("bye")

    def eof(prompt):
        raise EOFError

    out = io.StringIO()
    assert Table("simple", "hoyle", 5, False, eof, out).run() == 0
    assert out.getvalue().rstrip().endswith("bye")


def test_a_whole_game_keeps_the_running_score():
    _, out = _script(seed=2, vs="knock_early", game=True)
    assert "=== Game over:" in out and "Score: you" in out
    assert out.count("=== Hand ") >= 2
