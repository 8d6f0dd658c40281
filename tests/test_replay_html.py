"""``ginsim replay RUN --cell C --deal D --html FILE``: a self-contained page that steps
through the deal (both hands, the pile, the stock, each decision, the layout and the score)
with buttons and the keyboard; checked in headless Chromium when it is installed."""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from chromium_probe import CHROMIUM, probe  # tests/chromium_probe.py
from simulator.cli import main
from simulator.run.replay import deal_trace, replay_text
from simulator.tools.replay_html import deal_steps

EXP = textwrap.dedent('''
    name = "replayed"
    seed = 9
    deals = 8
    matchups = [["simple", "knock_early"]]
    [variants.hoyle]
    preset = "hoyle"
''')


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("replay")
    (tmp / "e.toml").write_text(EXP)
    assert main(["run", str(tmp / "e.toml"), "--out", str(tmp / "run"), "--quiet"]) == 0
    return tmp / "run"


def knocked_deal(run: Path) -> int:
    """A deal of the run that ends in a knock (so it has a layout, deadwood and layoffs)."""
    for deal in range(8):
        if replay_text(run, 0, deal)[1]["outcome"] in ("knock", "undercut"):
            return deal
    pytest.skip("no knock among the deals")


def test_the_steps_follow_the_trace_and_keep_every_card(run):
    deal = knocked_deal(run)
    cell, row, events = deal_trace(run, 0, deal)
    names, steps = deal_steps(cell, row, events)
    text = replay_text(run, 0, deal)[0].splitlines()
    # the same words as the text replay, one step per event after the deal
    told = [line.strip() for line in text[4:-1]]
    assert [s["text"] for s in steps[1:]] == told
    for s in steps:  # 52 cards in all, each once: hands, pile and stock
        cards = s["hands"][0] + s["hands"][1] + s["pile"]
        assert len(cards) == len(set(cards)) and len(cards) + s["stock"] == 52, s
        assert all(len(h) in (10, 11) for h in s["hands"])
    last = steps[-1]
    assert last["score"] and last["layout"]["deadwood"] is not None
    assert last["seat"] == -1  # the score ends the hand: no seat is marked as playing
    assert {s["seat"] for s in steps[1:-1]} == {0, 1}  # every move before it marks its player
    knocker = last["layout"]["knocker"]
    melded = last["layout"]["sets"] + last["layout"]["runs"] + last["layout"]["deadwood"]
    assert Counter(melded) == Counter(last["hands"][knocker])


def test_replay_html_writes_a_self_contained_page_and_refuses_a_foreign_file(run, tmp_path, capsys):
    page = tmp_path / "deal.html"
    assert main(["replay", str(run), "--cell", "0", "--deal", "1", "--html", str(page)]) == 0
    assert capsys.readouterr().out.strip() == str(page)
    text = page.read_text()
    assert not re.search(r"(src|href)\s*=", text) and "<link" not in text and "@import" not in text
    assert main(["replay", str(run), "--cell", "0", "--deal", "2", "--html", str(page)]) == 0  # its own page
    mine = tmp_path / "mine.html"
    mine.write_text("<p>my notes</p>")
    assert main(["replay", str(run), "--cell", "0", "--deal", "1", "--html", str(mine)]) == 2
    assert "was not written by ginsim" in capsys.readouterr().err and mine.read_text() == "<p>my notes</p>"
    assert main(["replay", str(run), "--cell", "0", "--deal", "99", "--html", str(tmp_path / "x.html")]) == 2
    assert "--deal must be from 0 to 7" in capsys.readouterr().err and not (tmp_path / "x.html").exists()


_STEP = r"""
function key(k){ document.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true})); }
function state(){
  return {counter: document.getElementById('counter').textContent,
          decision: document.getElementById('decision').textContent,
          hand0: document.querySelectorAll('#hand0 .card').length, hand1: document.querySelectorAll('#hand1 .card').length,
          moved: Array.from(document.querySelectorAll('.card.moved')).map(function(c){ return c.dataset.card; }),
          stock: document.getElementById('stock').textContent,
          layout: !document.getElementById('layout').hidden,
          dead: document.querySelectorAll('#layoutbody .card.dead').length,
          score: document.getElementById('score').hidden ? null : document.getElementById('score').textContent,
          next_disabled: document.getElementById('next').disabled,
          width: document.documentElement.scrollWidth};
}
var out = {start: state(), after: []};
for (var i = 0; i < N; i++) { key('ArrowRight'); out.after.push(state()); }
key('End'); out.end = state();
key('Home'); out.home = state();
document.getElementById('next').click(); document.getElementById('next').click(); out.clicked = state();
key('ArrowLeft'); out.back = state();
return out;
"""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
@pytest.mark.parametrize("width", [1400, 390])
def test_chromium_steps_through_the_deal_with_keys_and_buttons(run, tmp_path, width):
    deal = knocked_deal(run)
    page = tmp_path / "deal.html"
    assert main(["replay", str(run), "--cell", "0", "--deal", str(deal), "--html", str(page)]) == 0
    names, steps = deal_steps(*deal_trace(run, 0, deal))
    n = 5
    m = probe(page, width, f"var N = {n};" + _STEP)
    total = len(steps)
    assert m["start"]["counter"] == f"step 1 / {total}" and m["start"]["decision"] == steps[0]["text"]
    assert (m["start"]["hand0"], m["start"]["hand1"]) == (10, 10) and m["start"]["stock"] == "31 cards"
    for i, shown in enumerate(m["after"], start=1):  # the right arrow, n times
        assert shown["counter"] == f"step {i + 1} / {total}" and shown["decision"] == steps[i]["text"]
        assert (shown["hand0"], shown["hand1"]) == tuple(len(h) for h in steps[i]["hands"])
        assert shown["stock"] == f"{steps[i]['stock']} cards"
        if steps[i]["moved"]:
            assert steps[i]["moved"] in shown["moved"]
    end = m["end"]
    assert end["counter"] == f"step {total} / {total}" and end["next_disabled"]
    assert end["layout"] and end["dead"] == len(steps[-1]["layout"]["deadwood"]) and end["score"] == steps[-1]["score"]
    assert m["home"]["counter"] == f"step 1 / {total}" and not m["home"]["layout"] and m["home"]["score"] is None
    assert m["clicked"]["counter"] == f"step 3 / {total}" and m["back"]["counter"] == f"step 2 / {total}"
    assert all(s["width"] <= width for s in [m["start"], end])  # nothing wider than the screen
