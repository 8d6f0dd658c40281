"""ginsim play: a scripted file of moves plays a whole hand; bad keys get a one-line hint;
q and end of input quit cleanly."""

from __future__ import annotations

import io
import subprocess
import sys

from simulator.tools.play import Table

#: a move for each prompt: pass the upcard, draw from the stock, throw what was drawn,
#: knock when offered, first layout, the best defence
_MOVES = {"first_upcard> ": "p", "draw> ": "s", "discard> ": "d", "knock> ": "k", "last_discard> ": "p",
          "arrange> ": "1", "defend> ": "b"}


def _script(seed: int, vs: str = "simple", game: bool = False, **moves: str) -> tuple[list[str], str]:
    """Play in-process with the moves above (``moves``: more, by phase name); returns the
    lines typed and the output."""
    typed: list[str] = []
    keys = {**_MOVES, **{f"{phase}> ": key for phase, key in moves.items()}}

    def read(prompt: str) -> str:
        typed.append(keys[prompt])
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


def test_a_game_stops_at_the_hand_guard_as_simulate_games_does():
    """The game's hand guard (``MAX_HANDS_PER_GAME``, lowered here to 3): a game whose target
    nobody can reach stops after that many hands, with no winner and no game bonus; the
    running score and the final one agree with the game record."""
    keys = dict(_MOVES)
    out = io.StringIO()
    table = Table("knock_early", {"preset": "hoyle", "target_score": 100_000}, 2, True,
                  lambda prompt: keys[prompt], out)
    table.max_hands = 3
    assert table.run() == 0
    text = out.getvalue()
    assert text.count("=== Hand ") == 3
    assert "=== Game stopped after 3 hands without a winner (the hand guard). Final score: " in text
    assert "=== Game over:" not in text
    g = table.record
    from simulator.core.records import G_BOXES0, G_BOXES1, G_HANDS, G_POINTS0, G_POINTS1, G_SCORE0, G_SCORE1, G_WINNER
    assert g[G_HANDS] == 3 and g[G_WINNER] == -1
    box = table.rules.box_bonus
    assert g[G_SCORE0] == g[G_POINTS0] + box * g[G_BOXES0] and g[G_SCORE1] == g[G_POINTS1] + box * g[G_BOXES1]
    assert f"Final score: you {g[G_SCORE0]}, knock_early {g[G_SCORE1]} ===" in text


def test_the_human_defends_against_the_bots_layout(tmp_path):
    """Seed 172: simple knocks; you hold 5h 5d 5c and 3h 4h among your cards.  Your only
    least-deadwood arrangement melds the fives and keeps 37; the best defence melds
    3h 4h 5h instead and lays off 5d on the knocker's melds, keeping 35."""
    typed, best = _script(seed=172, defend="")  # Enter: the best defence
    assert "defend> " not in best and typed[-1] == ""
    assert "simple lays out [" in best and "[b] (or Enter) best defence: [3h 4h 5h]" in best
    assert "[1] lay out [5h 5d 5c]" in best and "[2]" not in best.split("simple lays out")[1]
    assert "You defend with the best response.\nYou lay off 5d." in best
    assert "defender deadwood 35)" in best
    _, first = _script(seed=172, defend="1")
    assert "You defend with least-deadwood arrangement 1.\nYou lay off nothing." in first
    assert "defender deadwood 37)" in first
    _, none = _script(seed=172, defend="n")  # no layoffs: the first arrangement, nothing laid off
    assert "[n] lay out [5h 5d 5c]  | deadwood 3s 7s 3h 4h Th 2c 8c (37), lay off nothing\n" in none
    assert "You defend with no layoffs.\nYou lay off nothing." in none
    assert "defender deadwood 37)" in none
    # the same moves from a file, the defence an empty line
    moves = tmp_path / "moves.txt"
    moves.write_text("\n".join(typed) + "\n")
    with moves.open() as stdin:
        done = subprocess.run([sys.executable, "-m", "simulator.cli", "play", "--vs", "simple", "--rules", "hoyle",
                               "--seed", "172"], stdin=stdin, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "Traceback" not in done.stderr + done.stdout, done.stderr
    assert "You defend with the best response" in done.stdout and "defender deadwood 35)" in done.stdout


def test_the_bots_defence_is_printed():
    import simulator
    from simulator.core import state as S

    for deal in range(40):
        hand = simulator.Hand("hoyle", seed=1, deal=deal, a="simple", b="simple")
        while not hand.is_over():
            hand.apply(hand.bot_action())
        if int(hand.state[S.S_KNOCKER]) == 0 and int(hand.state[S.S_DEFENDER_MELDS]):
            break
    out = io.StringIO()
    table = Table("simple", "hoyle", 1, False, input, out)
    (event,) = [e for e in hand.events if e[1] == "defend"]
    assert event[0] == 1 and event[2] >= 0  # simple defends with one of its arrangements
    for e in hand.events[hand.events.index(event):]:
        table.tell(e)
    text = out.getvalue()
    assert text.startswith(f"simple defends with least-deadwood arrangement {event[2] + 1}.\nsimple lays off ")
