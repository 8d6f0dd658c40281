"""``ginsim replay RUN --cell C --deal D --html FILE``: one deal of a run as a web page.

The deal is re-played from its seed by ``simulator.run.replay.deal_trace`` (the engine's
own trace; no second game loop), and the page steps through its events: both hands, the
discard pile and the stock after each one, the decision in words (the one narrator,
``simulator.core.narrate.tell``, as the text replay and ``ginsim play`` tell it), the knocker's layout (sets, runs, deadwood; docs/rules.md#laying-out-and-laying-off)
with the defender's layoffs, and the score.  ``deal_steps`` turns the events into those
states; ``replay_page`` renders them into one self-contained HTML file (inline style,
script and data; nothing loaded from elsewhere) driven by buttons or the keyboard: right
and left arrows step, Home and End jump to the start and the end.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from ..analysis.rendering import GENERATOR, atomic_write, written_by_ginsim
from ..core.cards import format_card, mask_cards
from ..core.narrate import tell
from ..run.replay import deal_trace, seat_names


def deal_steps(cell: dict, row: Any, events: list[tuple[int, str, int]]) -> tuple[list[str], list[dict]]:
    """The players' names by seat and one state per step: after the deal (hands, upcard),
    then after each further event.  A state holds ``text`` (the event in words), ``seat``
    (who acted, -1 for the table), ``hands`` (both seats' cards), ``pile`` (bottom to top),
    ``stock`` (cards left), ``moved`` (the card the event moved, if any), ``layout`` once
    someone has knocked, and ``score`` once the hand is scored."""
    names = seat_names(cell, int(row["a_seat"]))
    return names, named_steps(names, events)


def named_steps(names: list[str], events: list[tuple[int, str, int]]) -> list[dict]:
    """``deal_steps``'s states of a hand whose seats are called ``names``, each event told by
    the one narrator (``simulator.core.narrate.tell``)."""
    hands: list[list[int]] = [[], []]
    pile: list[int] = []
    stock = 52
    layout: dict[str, Any] | None = None
    score: str | None = None
    steps: list[dict] = []

    def snapshot(seat: int, text: str, moved: int | None = None) -> None:
        steps.append({"seat": seat, "text": text.strip(), "moved": None if moved is None else format_card(moved),
                      "hands": [[format_card(c) for c in sorted(h)] for h in hands],
                      "pile": [format_card(c) for c in pile], "stock": stock,
                      "layout": None if layout is None else json.loads(json.dumps(layout)), "score": score})

    for seat, kind, value in events:
        if kind == "deal":
            hands[seat].append(value)
            stock -= 1
            continue
        if kind == "upcard":
            pile.append(value)
            stock -= 1
            snapshot(-1, f"{names[0]} and {names[1]} are dealt ten cards each. {tell((seat, kind, value), names)}",
                     value)
            continue
        moved = None
        if kind == "take_pile":
            pile.pop()
            hands[seat].append(value)
            moved = value
        elif kind == "draw_stock":
            stock -= 1
            hands[seat].append(value)
            moved = value
        elif kind == "discard":
            hands[seat].remove(value)
            pile.append(value)
            moved = value
        elif kind == "reshuffle":
            pile, stock = pile[-1:], int(value)  # the top card stays as the pile (docs/rules.md)
        elif kind in ("knock", "gin", "big_gin"):
            layout = {"knocker": seat, "kind": kind.replace("_", " "), "sets": [], "runs": [], "deadwood": [],
                      "layoff": [], "defender_deadwood": None}
        elif kind in ("sets", "runs") and layout is not None:
            layout[kind] = [format_card(c) for c in mask_cards(value)]
            melded = set(layout["sets"]) | set(layout["runs"])
            layout["deadwood"] = [format_card(c) for c in sorted(hands[seat]) if format_card(c) not in melded]
        elif kind == "layoff" and layout is not None:
            layout["layoff"] = [format_card(c) for c in mask_cards(value)]
        elif kind == "defender_deadwood" and layout is not None:
            layout["defender_deadwood"] = int(value)
        elif kind in ("score", "dead"):
            score = tell((seat, kind, value), names)
        # the score and a dead hand end the hand: the table announces them, nobody plays
        snapshot(-1 if kind in ("score", "dead") else seat, tell((seat, kind, value), names), moved)
    return steps


_WINNER = {"a": "A", "b": "B"}


def replay_page(run_dir: str | Path, cell: int, deal: int, trust_plugins: bool = False) -> str:
    """The self-contained HTML page of one deal of a run (``trust_plugins`` as for
    ``replay.deal_trace``)."""
    c, row, events = deal_trace(run_dir, cell, deal, trust_plugins)
    names, steps = deal_steps(c, row, events)
    record = {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
    title = f"ginsim replay: cell {cell}, deal {deal}"
    a_seat = int(record["a_seat"])
    dealer = names[a_seat] if record.get("a_dealt") else names[1 - a_seat]
    facts = (f"{c['a']} (A) vs {c['b']} (B), variant {c['variant']}, run {Path(run_dir).resolve().name}; "
             f"{dealer} deals. Result: {record['outcome'].replace('_', ' ')}, winner {_WINNER.get(record['winner'], record['winner'])}, "
             f"{record['points']} points, net {record['net_a']:+d} to A.")
    return _page(title, facts, names, steps)


def history_page(path: str | Path) -> str:
    """The page of a hand history file (``simulator.run.handhistory``), played and checked
    against its result first."""
    from ..run.handhistory import play, read_file, seat_names

    history = read_file(path)
    hand = play(history, str(path))
    names = seat_names(history)
    r = history.result
    winner = names[r["winner"]] if r["winner"] >= 0 else "nobody"
    facts = (f"{names[0]} vs {names[1]}, hand history {Path(path).name}; {names[history.dealer]} deals. "
             f"Result: {r['outcome'].replace('_', ' ')}, winner {winner}, {r['points']} points.")
    return _page(f"ginsim replay: {Path(path).name}", facts, names, named_steps(names, hand.events))


def _page(title: str, facts: str, names: list[str], steps: list[dict]) -> str:
    """The self-contained HTML page stepping through ``steps``."""
    data = json.dumps({"names": names, "steps": steps}).replace("</", "<\\/")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"generator\" content=\"{GENERATOR}\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>\n"
            f"<h1>{html.escape(title)}</h1><p class=\"facts\">{html.escape(facts)}</p>\n{_BODY}\n"
            f"<script type=\"application/json\" id=\"deal\">{data}</script>\n<script>{_SCRIPT}</script>\n"
            f"</body></html>\n")


def write_replay_page(run_dir: str | Path, cell: int, deal: int, path: Path, trust_plugins: bool = False) -> Path:
    """Write the page of a run's deal to ``path`` whole or not at all; a file there that
    ginsim did not write is never replaced (a ``ValueError`` names it)."""
    return _write(path, lambda: replay_page(run_dir, cell, deal, trust_plugins))


def write_history_page(history: str | Path, path: Path) -> Path:
    """Write the page of a hand history file to ``path``, as ``write_replay_page`` does."""
    return _write(path, lambda: history_page(history))


def _write(path: Path, make) -> Path:
    path = Path(path)
    if path.exists() and (path.is_dir() or not written_by_ginsim(path)):
        raise ValueError(f"--html {path} exists and was not written by ginsim; choose another file")
    if not path.parent.is_dir():
        raise ValueError(f"--html {path}: the directory {path.parent} does not exist")
    page = make()  # every check and the replay before anything is written
    atomic_write(path, page)
    return path


_BODY = """<div class="controls" role="toolbar" aria-label="step through the deal">
<button type="button" id="first" title="first step (Home)">&#xAB; start</button>
<button type="button" id="prev" title="previous step (left arrow)">&#x25C0; back</button>
<span id="counter" aria-live="polite"></span>
<button type="button" id="next" title="next step (right arrow)">next &#x25B6;</button>
<button type="button" id="last" title="last step (End)">end &#xBB;</button>
</div>
<p id="decision" aria-live="polite"></p>
<section class="table">
<div class="seat" id="seat1"><h2 id="name1"></h2><div class="cards" id="hand1"></div></div>
<div class="middle"><div><h2>Pile</h2><div class="cards" id="pile"></div><p id="pilesize"></p></div>
<div><h2>Stock</h2><p id="stock"></p></div></div>
<div class="seat" id="seat0"><h2 id="name0"></h2><div class="cards" id="hand0"></div></div>
</section>
<section id="layout" hidden><h2>Layout</h2><div id="layoutbody"></div></section>
<p id="score" hidden></p>
<details><summary>Every step</summary><ol id="log"></ol></details>
<p class="keys">Keys: &#x2192; next, &#x2190; back, Home start, End end; or click a step in the list.</p>"""

_STYLE = (
    "*{box-sizing:border-box}body{font-family:system-ui,sans-serif;max-width:1000px;margin:1em auto;padding:0 .8em;"
    "color:#222;line-height:1.4}h1{font-size:1.4em;overflow-wrap:anywhere}h2{font-size:1em;margin:.3em 0}"
    ".facts{color:#444}.controls{display:flex;flex-wrap:wrap;gap:.4em;align-items:center;margin:.8em 0}"
    ".controls button{font:inherit;padding:.35em .8em;border:1px solid #999;border-radius:4px;background:#f4f4f4;"
    "cursor:pointer}.controls button:disabled{opacity:.4;cursor:default}#counter{min-width:7em;text-align:center}"
    "#decision{font-weight:600;min-height:1.4em;background:#fff8e0;border-left:4px solid #e0a800;padding:.3em .6em}"
    ".table{display:grid;gap:.6em;background:#0b6e3a;color:#fff;border-radius:8px;padding:.8em}"
    ".middle{display:flex;gap:2em;flex-wrap:wrap}.seat.active h2::after{content:' \\2190 plays'}"
    ".cards{display:flex;flex-wrap:wrap;gap:.25em;min-height:2.6em}"
    ".card{display:inline-block;min-width:2.3em;padding:.35em .3em;border-radius:5px;background:#fff;color:#111;"
    "text-align:center;font-weight:600;border:1px solid #ccc}.card.red{color:#c00}"
    ".card.moved{outline:3px solid #ffcc00}.card.meld{background:#dff0ff}.card.dead{background:#ffe3e3}"
    ".card.laid{background:#e6ffe0}.pile .card{opacity:.75}"
    "#layout,#score{margin:.8em 0}#score{font-weight:700}ol{padding-left:1.6em}"
    "#log li{cursor:pointer}#log li.current{background:#fff3c0}.keys{color:#666;font-size:.9em}"
)

_SCRIPT = r"""
(function(){
var deal = JSON.parse(document.getElementById('deal').textContent), steps = deal.steps, at = 0;
var SUIT = {s: '\u2660', h: '\u2665', d: '\u2666', c: '\u2663'};
function card(code, cls){
  var el = document.createElement('span'), rank = code[0] === 'T' ? '10' : code[0], suit = code[1];
  el.className = 'card' + (suit === 'h' || suit === 'd' ? ' red' : '') + (cls ? ' ' + cls : '');
  el.textContent = rank + SUIT[suit]; el.dataset.card = code; return el;
}
function fill(id, codes, mark){
  var box = document.getElementById(id); box.textContent = '';
  codes.forEach(function(c){ box.appendChild(card(c, mark ? mark(c) : '')); });
}
function show(i){
  at = Math.max(0, Math.min(steps.length - 1, i));
  var s = steps[at], lay = s.layout;
  document.getElementById('counter').textContent = 'step ' + (at + 1) + ' / ' + steps.length;
  document.getElementById('decision').textContent = s.text;
  [0, 1].forEach(function(seat){
    document.getElementById('name' + seat).textContent = deal.names[seat] + ' \u2014 ' + s.hands[seat].length + ' cards';
    document.getElementById('seat' + seat).classList.toggle('active', s.seat === seat);
    fill('hand' + seat, s.hands[seat], function(c){
      var cls = c === s.moved ? 'moved' : '';
      if (lay && lay.knocker === seat) cls += lay.deadwood.indexOf(c) >= 0 ? ' dead' : ' meld';
      if (lay && lay.knocker !== seat && lay.layoff.indexOf(c) >= 0) cls += ' laid';
      return cls;
    });
  });
  fill('pile', s.pile.slice(-6), function(c){ return c === s.moved ? 'moved' : ''; });
  document.getElementById('pile').className = 'cards pile';
  document.getElementById('pilesize').textContent = s.pile.length + ' card' + (s.pile.length === 1 ? '' : 's') +
    (s.pile.length > 6 ? ' (the top 6 shown, top last)' : ' (top last)');
  document.getElementById('stock').textContent = s.stock + ' card' + (s.stock === 1 ? '' : 's');
  var box = document.getElementById('layout');
  box.hidden = !lay;
  if (lay) {
    var body = document.getElementById('layoutbody'); body.textContent = '';
    var head = document.createElement('p');
    head.textContent = deal.names[lay.knocker] + ' goes out (' + lay.kind + ') and lays out:';
    body.appendChild(head);
    [['sets', lay.sets, 'meld'], ['runs', lay.runs, 'meld'], ['deadwood', lay.deadwood, 'dead'],
     ['laid off by ' + deal.names[1 - lay.knocker], lay.layoff, 'laid']].forEach(function(part){
      var p = document.createElement('p'); p.className = 'cards';
      p.appendChild(document.createTextNode(part[0] + ': '));
      if (!part[1].length) p.appendChild(document.createTextNode('none'));
      part[1].forEach(function(c){ p.appendChild(card(c, part[2])); });
      body.appendChild(p);
    });
    if (lay.defender_deadwood !== null) {
      var d = document.createElement('p'); d.textContent = 'defender deadwood after layoffs: ' + lay.defender_deadwood;
      body.appendChild(d);
    }
  }
  var score = document.getElementById('score'); score.hidden = !s.score; score.textContent = s.score || '';
  Array.from(document.getElementById('log').children).forEach(function(li, k){
    li.classList.toggle('current', k === at);
  });
  document.getElementById('first').disabled = document.getElementById('prev').disabled = at === 0;
  document.getElementById('last').disabled = document.getElementById('next').disabled = at === steps.length - 1;
}
var log = document.getElementById('log');
steps.forEach(function(s, k){
  var li = document.createElement('li'); li.textContent = s.text; li.onclick = function(){ show(k); }; log.appendChild(li);
});
document.getElementById('first').onclick = function(){ show(0); };
document.getElementById('prev').onclick = function(){ show(at - 1); };
document.getElementById('next').onclick = function(){ show(at + 1); };
document.getElementById('last').onclick = function(){ show(steps.length - 1); };
document.addEventListener('keydown', function(e){
  var go = {ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: steps.length - 1}[e.key];
  if (go !== undefined) { e.preventDefault(); show(go); }
});
window.ginsimReplay = {show: show, step: function(){ return at; }, steps: steps.length};
show(0);
})();
"""
