"""Hand histories (simulator.run.handhistory, docs/hand-history.md): a deal written as a text
file plays again to exactly the same hand, from ``ginsim replay --export`` through
``ginsim replay FILE``, on every preset; a file that does not play to its own result, or
breaks the format, is refused in one line; OpenSpiel replays an exported hand to the same
score, and its action sequence converts back."""

from __future__ import annotations

import re
import textwrap
import tomllib
from pathlib import Path

import pytest

from cli_runner import ginsim, one_line_error
from simulator.api import trace_deal
from simulator.core.rules import Rules
from simulator.run import handhistory as HH

#: per preset, the strategy pair whose deals the round trip plays (a search player, a
#: random one and the baseline all appear)
PAIRS = {"classic": ("simple", "knock_early"), "modern": ("gin_hunter", "random"), "hoyle": ("expert", "simple"),
         "tournament": ("simple", "simple:knock_at=0"), "oklahoma": ("undercut_aware", "simple"),
         "gin_only": ("gin_hunter", "knock_early"), "single_hand": ("random", "simple")}


def test_the_pairs_cover_every_preset():
    assert set(PAIRS) == set(Rules.PRESETS)


@pytest.mark.parametrize("preset", sorted(Rules.PRESETS))
def test_a_deal_round_trips_through_its_text_on_every_preset(preset):
    """For deals of every preset: the file's text reads back to the same history, and playing
    it deals and plays exactly the traced hand (every event) to the row's result."""
    a, b = PAIRS[preset]
    outcomes = set()
    for deal in range(6):
        history = HH.from_deal(a, b, preset, seed=7, deal=deal)
        text = HH.to_text(history)
        again = HH.parse(tomllib.loads(text))
        assert again == history
        hand = HH.play(again)
        row, events = trace_deal(a, b, preset, seed=7, deal=deal)
        assert hand.events == events
        assert again.result["returns"][int(row["a_seat"])] == row["net_a"]
        assert again.result["outcome"] == row["outcome"] and again.rules == Rules.preset(preset)
        assert HH.to_text(again) == text
        outcomes.add(row["outcome"])
    assert outcomes & {"knock", "undercut", "gin"}


def test_a_reshuffled_stock_replays_from_the_files_reshuffle_stream():
    rules = {"preset": "hoyle", "reshuffle_stock": True, "gin_only": True, "knock_limit": 0, "max_reshuffles": 2}
    for deal in range(40):
        row, events = trace_deal("random", "random", rules, seed=3, deal=deal)
        if row["reshuffles"]:
            break
    else:
        pytest.fail("no reshuffle in 40 gin-only deals of random play")
    history = HH.from_deal("random", "random", rules, seed=3, deal=deal)
    text = HH.to_text(history)
    assert "reshuffle_stream = " in text
    assert HH.play(HH.parse(tomllib.loads(text))).events == events
    without = tomllib.loads(text)
    del without["deal"]["reshuffle_stream"]
    with pytest.raises(HH.HandHistoryError, match="deal.reshuffle_stream: required with rules.reshuffle_stock"):
        HH.parse(without)


def test_partial_rules_a_stray_reshuffle_stream_and_scores_out_of_range_are_refused_naming_the_key():
    """Issue 54: a ``[rules]`` table missing a field was filled from the defaults (the file
    then meant what today's defaults mean), a ``reshuffle_stream`` under rules that never
    reshuffle was dropped silently, and scores of 100,000 were refused by ``Hand`` with no
    file or key named."""
    text = HH.to_text(HH.from_deal("simple", "random", "hoyle", seed=3, deal=1))
    data = tomllib.loads(text)
    assert HH.parse(data, "h.toml").rules == Rules.preset("hoyle")
    partial = tomllib.loads(text)
    del partial["rules"]["gin_bonus"]
    with pytest.raises(HH.HandHistoryError, match="^h.toml: rules: must list every rules field; missing gin_bonus$"):
        HH.parse(partial, "h.toml")
    preset = tomllib.loads(text)
    preset["rules"] = {"preset": "hoyle"}
    with pytest.raises(HH.HandHistoryError, match="^h.toml: rules.preset: a hand history lists every rules field"):
        HH.parse(preset, "h.toml")
    stray = tomllib.loads(text)
    stray["deal"]["reshuffle_stream"] = 5
    with pytest.raises(HH.HandHistoryError, match="^h.toml: deal.reshuffle_stream: only with rules.reshuffle_stock"):
        HH.parse(stray, "h.toml")
    for scores in ([100_000, 0], [0, -1]):
        high = tomllib.loads(text)
        high["scores"] = scores
        with pytest.raises(HH.HandHistoryError, match="^h.toml: scores: must be a list of two integers from 0 to "
                                                      "99,999"):
            HH.parse(high, "h.toml")
    high["scores"] = [99_999, 0]
    assert HH.play(HH.parse(high, "h.toml")).events  # the bound is the game's own: 99,999 plays


EXP = textwrap.dedent('''
    name = "exported"
    seed = 9
    deals = 8
    matchups = [["simple", "knock_early"], ["gin_hunter", "random"]]
    [variants.hoyle]
    preset = "hoyle"
''')


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("export")
    (tmp / "e.toml").write_text(EXP)
    done = ginsim("run", tmp / "e.toml", "--out", tmp / "run", "--quiet")
    assert done.returncode == 0, done.stderr
    return tmp / "run"


def test_replay_export_then_replay_file_reproduces_the_deal_exactly(run, tmp_path):
    from simulator.run.replay import deal_trace, replay_text

    for cell, deal in ((0, 3), (1, 6)):
        path = tmp_path / f"c{cell}d{deal}.toml"
        done = ginsim("replay", run, "--cell", cell, "--deal", deal, "--export", path)
        assert done.returncode == 0 and done.stdout.strip() == str(path), done.stderr
        c, row, events = deal_trace(run, cell, deal)
        history = HH.read_file(path)
        assert HH.play(history).events == events
        a_seat = int(row["a_seat"])
        assert history.players[a_seat] == c["a"] and history.players[1 - a_seat] == c["b"]
        assert history.source == {"run": str(run), "cell": cell, "variant": "hoyle", "seed": c["seed"], "deal": deal,
                                  "mirrored": True, "a": c["a"], "b": c["b"], "a_seat": a_seat}
        assert history.result["returns"][a_seat] == row["net_a"]
        told = ginsim("replay", path)
        assert told.returncode == 0, told.stderr
        # the same story as the run's replay, seat by seat, after each one's first line
        names = {f"A ({c['a']})": f"p{a_seat} ({c['a']})", f"B ({c['b']})": f"p{1 - a_seat} ({c['b']})"}
        ours = replay_text(run, cell, deal)[0].splitlines()[1:-1]
        for old, new in names.items():
            ours = [line.replace(old, new) for line in ours]
        assert told.stdout.splitlines()[1:-1] == ours
        page = ginsim("replay", path, "--html", tmp_path / f"c{cell}d{deal}.html")
        assert page.returncode == 0, page.stderr
        assert "p0 (" in (tmp_path / f"c{cell}d{deal}.html").read_text()


def test_a_file_that_breaks_the_format_or_its_own_result_is_refused_in_one_line(run, tmp_path):
    good = tmp_path / "good.toml"
    assert ginsim("replay", run, "--cell", 0, "--deal", 3, "--export", good).returncode == 0
    text = good.read_text()
    data = tomllib.loads(text)
    first = data["play"]["actions"][0]
    other = "p1" if first.startswith("p0") else "p0"
    cases = [
        (text.replace("version = 1", "version = 2"), "version: this ginsim reads version 1"),
        (text.replace("version = 1", "version = 0"), "version: must be 1, got 0"),
        (text.replace("[deal]", "colour = 1\n[deal]"), "rules: unknown rules field 'colour'"),
        (text.replace("dealer = ", "dealer = 7  # ").replace("dealer = 7  # 1", "dealer = 7").replace(
            "dealer = 7  # 0", "dealer = 7"), "dealer: must be an integer from 0 to 1"),
        (text.replace(f'"{first}"', f'"{other}{first[2:]}"', 1), "play.actions[0]"),
        (text.replace(f'"{first}"', '"p0 juggle"', 1), "play.actions[0]: must be 'p0 ACTION' or 'p1 ACTION'"),
        (text.replace('upcard = "', 'upcard = "Zz'), "deal.upcard: must list 1 cards"),
        (text.replace('"]', '"]', 1).replace('stock = "', 'stock = "' + data["deal"]["upcard"] + " ", 1),
         "deal.stock: must list 31 cards, got 32"),
        (text.replace(f"points = {data['result']['points']}", f"points = {data['result']['points'] + 1}"),
         "result.points: the actions give"),
        (text.replace('format = "ginsim-hand-history"', 'format = "phh"'), "format: must be one of ginsim-hand-history"),
    ]
    for bad, message in cases:
        (tmp_path / "bad.toml").write_text(bad)
        one_line_error(ginsim("replay", tmp_path / "bad.toml"), message)
    one_line_error(ginsim("replay", good, "--cell", 0), "--cell works on a run directory")
    one_line_error(ginsim("replay", run, "--cell", 0), "--deal is required with a run directory")
    foreign = tmp_path / "notes.toml"
    foreign.write_text("mine = 1\n")
    one_line_error(ginsim("replay", run, "--cell", 0, "--deal", 3, "--export", foreign),
                   "exists and was not written by ginsim")
    assert foreign.read_text() == "mine = 1\n"
    assert ginsim("replay", run, "--cell", 0, "--deal", 3, "--export", good).returncode == 0  # its own file: replaced


def test_the_actions_of_a_trace_are_found_by_its_events():
    """A trace with one event changed fits no action: the follower says so instead of
    guessing."""
    history = HH.from_deal("simple", "knock_early", "hoyle", seed=2, deal=1)
    row, events = trace_deal("simple", "knock_early", "hoyle", seed=2, deal=1)
    k = next(i for i, e in enumerate(events) if e[1] == "discard")
    bad = events[:k] + [(events[k][0], "discard", (events[k][2] + 1) % 13)] + events[k + 1:]
    with pytest.raises(HH.HandHistoryError, match="legal actions fit the trace"):
        HH.actions_from_events(HH.new_hand(history), bad)


def test_replay_exports_a_range_of_deals_each_the_same_as_one_at_a_time(run, tmp_path):
    done = ginsim("replay", run, "--cell", 1, "--deals", "2-7", "--export", tmp_path / "batch")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"6 hand history files written to {tmp_path / 'batch'}"
    files = sorted((tmp_path / "batch").glob("*.toml"))
    assert [f.name for f in files] == [f"cell1-deal{d}.toml" for d in range(2, 8)]
    for deal, path in zip(range(2, 8), files, strict=True):
        assert HH.to_text(HH.read_file(path)) == HH.to_text(HH.from_run(run, 1, deal))
    # a bad range, or a deal past the run, writes nothing
    for deals, message in (("5-3", "0 <= FIRST <= LAST"), ("6-8", "--deals must be from 0 to 7, got 8"),
                           ("two", "--deals must be FIRST-LAST")):
        done = ginsim("replay", run, "--cell", 1, "--deals", deals, "--export", tmp_path / "none")
        one_line_error(done, message)
        assert not (tmp_path / "none").exists()


# --------------------------------------------------------------------------- OpenSpiel
def test_an_exported_hand_is_an_openspiel_action_sequence_pyspiel_scores_the_same(run, tmp_path):
    pytest.importorskip("pyspiel")
    from simulator.interop.openspiel import ReplaySkip, from_openspiel, game_for, to_openspiel

    game = game_for("single_hand")
    converted = 0
    for deal in range(12):
        history = HH.from_deal("gin_hunter", "random", "single_hand", seed=5, deal=deal)
        path = tmp_path / f"d{deal}.toml"
        HH.write_file(history, path)
        history = HH.read_file(path)
        try:
            actions = to_openspiel(history)
        except ReplaySkip:
            continue
        state = game.new_initial_state()
        for a in actions:
            state.apply_action(a)
        assert state.is_terminal()
        non_dealer = 1 - history.dealer  # OpenSpiel's player 0
        assert [int(r) for r in state.returns()] == [history.result["returns"][s] for s in (non_dealer, 1 - non_dealer)]
        back = from_openspiel(actions, game, history.players, history.source, dealer=history.dealer)
        assert back.result == history.result and back.hands == history.hands and back.upcard == history.upcard
        assert back.actions == history.actions
        converted += 1
    assert converted >= 10
    with pytest.raises(ValueError, match="rules field big_gin_bonus"):
        to_openspiel(HH.from_deal("simple", "simple", "modern", seed=5, deal=0))


def test_openspiel_moves_ginsims_rules_forbid_are_refused_by_name():
    pytest.importorskip("pyspiel")
    from simulator.interop.openspiel import DRAW_STOCK, DRAW_UPCARD, PASS, InteropError, from_openspiel, game_for

    game = game_for("single_hand")
    state = game.new_initial_state()
    for card in range(21):  # player 0 gets As..Ts, player 1 Js..Ks + Ac..7c, upcard 8c
        state.apply_action(card)
    state.apply_action(PASS)
    state.apply_action(PASS)
    state.apply_action(DRAW_STOCK)
    state.apply_action(30)  # the stock's card
    state.apply_action(state.hands()[0][0])
    upcard = state.upcard()
    state.apply_action(DRAW_UPCARD)
    state.apply_action(upcard)  # discarding the card just taken: OpenSpiel allows it, docs/rules.md does not
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0] if not state.is_chance_node() else state.chance_outcomes()[0][0])
    with pytest.raises(InteropError, match="is not a move docs/rules.md allows here") as refused:
        from_openspiel(state.history(), game)
    assert refused.value.category == "move_outside_the_rules"


def test_arena_counts_every_hand_it_cannot_export_by_reason(tmp_path):
    """OpenSpiel's random bot breaks ginsim's rules in most hands, and its simple bot, defending
    against gin, may spread no melds (ginsim counts the defender's least deadwood): each hand not
    written is counted under its reason, and the command prints every count."""
    pytest.importorskip("pyspiel")
    from simulator.interop.openspiel import CONVERT_REFUSALS, arena

    for b, decks, reason in (("openspiel_random", 5, "move_outside_the_rules"),
                             ("openspiel_simple", 7, "defender_melds_against_gin")):
        e = arena("gin_hunter" if b == "openspiel_simple" else "simple", b, n_decks=decks, seed=2026,
                  export=tmp_path / b).export
        assert e["not_written"] == sum(e["not_written_by_reason"].values()) > 0, e
        assert set(e["not_written_by_reason"]) <= set(CONVERT_REFUSALS) and reason in e["not_written_by_reason"], e
        assert e["written"] + e["not_written"] == 2 * decks == len(list((tmp_path / b).glob("hand-*.toml"))) \
            + e["not_written"]
    done = ginsim("arena", "simple", "openspiel_random", "--decks", 5, "--seed", 2026, "--export", tmp_path / "cli")
    assert done.returncode == 0, done.stderr
    counts = re.findall(r"^  (\d+) not written: (.+)$", done.stdout, flags=re.M)
    assert sum(int(n) for n, _ in counts) == int(re.search(r"; (\d+) not written", done.stdout).group(1))
    assert {words for _, words in counts} <= set(CONVERT_REFUSALS.values()) and len(counts) >= 2
    assert "  the first: deck " in done.stdout


@pytest.mark.parametrize("engine", ["ginsim", "openspiel"])
def test_arena_exports_every_hand_and_each_file_replays(tmp_path, engine):
    pytest.importorskip("pyspiel")
    done = ginsim("arena", "simple", "gin_hunter", "--decks", 3, "--seed", 4, "--engine", engine,
                  "--export", tmp_path / "hands")
    assert done.returncode == 0, done.stderr
    files = sorted((tmp_path / "hands").glob("hand-*.toml"))
    assert f"hand histories: {len(files)} written to" in done.stdout
    assert len(files) == 6 or "not written" in done.stdout
    for path in files:
        history = HH.read_file(path)
        HH.play(history, str(path))
        assert history.source["engine"] == engine and history.rules == Rules.preset("single_hand")
        a_seat = history.source["a_seat"]
        assert history.players[a_seat] == "simple" and history.players[1 - a_seat] == "gin_hunter"


def test_convert_turns_hand_histories_into_openspiel_sequences_and_back(tmp_path, capsys):
    """``ginsim convert --to openspiel`` prints one action sequence per file, in order;
    ``--from openspiel`` writes each line back as a hand history that plays the same moves
    to the same result; a line that is not a sequence writes nothing."""
    pytest.importorskip("pyspiel")
    from simulator.cli import main

    histories = [HH.from_deal("gin_hunter", "simple", "single_hand", seed=5, deal=d) for d in range(4)]
    paths = [HH.write_file(h, tmp_path / f"h{d}.toml") for d, h in enumerate(histories)]
    assert main(["convert", "--to", "openspiel", *map(str, paths)]) == 0
    lines = capsys.readouterr().out.splitlines()
    from simulator.interop.openspiel import to_openspiel

    assert lines == [" ".join(map(str, to_openspiel(h))) for h in histories]
    (tmp_path / "actions.txt").write_text("\n".join(lines) + "\n")
    assert main(["convert", "--from", "openspiel", str(tmp_path / "actions.txt"), "--out", str(tmp_path / "back")]) == 0
    back = sorted((tmp_path / "back").glob("*.toml"))
    assert [p.name for p in back] == ["hand-1.toml", "hand-2.toml", "hand-3.toml", "hand-4.toml"]
    for history, path in zip(histories, back, strict=True):
        got = HH.read_file(path)
        dealer = {"dealer": history.dealer}
        assert got.result["outcome"] == history.result["outcome"] and got.hands == (
            history.hands if history.dealer == 1 else history.hands[::-1]), (path, dealer)
        HH.play(got, str(path))
    (tmp_path / "bad.txt").write_text(lines[0] + "\n1 2 x\n")
    assert main(["convert", "--from", "openspiel", str(tmp_path / "bad.txt"), "--out", str(tmp_path / "none")]) == 2
    assert "bad.txt:2: an OpenSpiel action sequence is integers" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()
