"""report.html as a browser sees it: a table of contents whose anchors resolve, nothing
loaded from outside the page, alt text on every figure, a viewport for phones, tables
that scroll sideways and sort, and — when chromium is installed — a headless render at
a desktop (1400 px) and a phone (390 px) width without a script error."""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from simulator.run.experiment import load_experiment
from simulator.analysis.rendering import written_by_ginsim
from simulator.analysis.report import write_report
from simulator.run.runner import run_experiment

# random against three strategies: its results lie far from the rest (an outlier panel)
TOURNAMENT = textwrap.dedent('''
    name = "html_report"
    seed = 21
    deals = 400
    games = 20
    matchups = [["random", "simple"], ["random", "gin_hunter"], ["random", "knock_early"], ["random", "defensive"],
                ["simple", "gin_hunter"], ["simple", "knock_early"], ["simple", "defensive"],
                ["gin_hunter", "knock_early"], ["gin_hunter", "defensive"], ["knock_early", "defensive"]]
''')

SELF_PLAY = textwrap.dedent('''
    name = "self_play_report"
    seed = 22
    deals = 400
    games = 20
    matchups = [["simple", "simple"]]
    [variants.hoyle]
    preset = "hoyle"
    [variants.gin_only]
    preset = "gin_only"
''')


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.sources: list[str] = []
        self.images: list[dict] = []
        self.meta: list[dict] = []
        self.tags: list[str] = []
        self.headers: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if "href" in attrs:
            self.links.append(attrs["href"])
        if "src" in attrs:
            self.sources.append(attrs["src"])
        if tag == "img":
            self.images.append(attrs)
        if tag == "meta":
            self.meta.append(attrs)
        if tag == "th":
            self.headers.append(attrs)


def _report(tmp: Path, name: str, text: str) -> Path:
    path = tmp / f"{name}.toml"
    path.write_text(text)
    run = run_experiment(load_experiment(path), tmp / name, progress=False)
    write_report(run)
    return run


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("html")
    return {"tournament": _report(tmp, "tournament", TOURNAMENT), "self_play": _report(tmp, "self_play", SELF_PLAY)}


@pytest.mark.parametrize("which", ["tournament", "self_play"])
def test_html_structure(reports, which):
    run = reports[which]
    text = (run / "report.html").read_text()
    page = Page()
    page.feed(text)
    # a viewport for phones, and the report's own mark
    assert {"name": "viewport", "content": "width=device-width, initial-scale=1"} in page.meta
    assert written_by_ginsim(run / "report.html")
    # a table of contents whose every link is an anchor of the page
    assert 'class="toc"' in text
    assert page.links and all(link.startswith("#") for link in page.links)
    missing = [link for link in page.links if link[1:] not in page.ids]
    assert not missing, missing
    h2 = re.findall(r"<h2 id=\"([^\"]+)\">", text)
    assert h2 and set(h2) <= {link[1:] for link in page.links}
    # nothing from outside: no http(s) anywhere in a src or href, images are data URIs
    assert not [s for s in page.sources if not s.startswith("data:image/png;base64,")]
    assert not re.search(r"(src|href)\s*=\s*[\"']?\s*(https?:)?//", text)
    assert "<link" not in text and "<script src" not in text and "@import" not in text
    # every figure has alt text
    assert page.images and all(img.get("alt", "").strip() for img in page.images)
    # tables scroll sideways inside a wrapper, sort, and long ones fold
    assert text.count('<div class="scroll"><table class="sortable">') == text.count("<table")
    assert "overflow-x:auto" in text and "img{max-width:100%" in text
    # headers align with their cells: text columns left, numbers right, in both
    assert '<th class="l" scope="col">matchup</th>' in text and '<td class="l">' in text


def test_tables_are_keyed_by_matchup_and_variant_without_duplicate_columns(reports):
    md = (reports["tournament"] / "report.md").read_text()
    how = md.split("### How hands end")[1].split("\n## ")[0]
    header = next(line for line in how.splitlines() if line.startswith("| cell"))
    assert header.startswith("| cell | matchup | variant | hands | knock | gin | big gin |")
    assert "gin rate" not in header
    assert "**Contents**" in md and "](#round-robin-single-hands)" in md


def test_outliers_sorted_rows_and_honest_figures(reports):
    md = (reports["tournament"] / "report.md").read_text()
    # random loses by so much that it gets a panel of its own, and the caption says so
    assert "drawn in a separate panel below, on their own x axis" in md
    assert "largest first" in md
    # the heatmap shows intervals; its colour bar label is fixed
    assert "half-width of its 95% confidence interval" in md
    assert "(points) (symmetric-log scale)" not in md
    # no proportion is reported with a zero-width interval
    assert "[0.0, 0.0]" not in md


def test_self_play_leads_with_the_first_mover_edge(reports):
    md = (reports["self_play"] / "report.md").read_text()
    body = md.split("**Contents**")[1]
    headings = re.findall(r"^## (.+)$", body, flags=re.M)
    assert headings[0] == "About this run" and headings[1].startswith("Balance")
    assert "net_points.png" not in md and "game_win.png" not in md
    assert not (reports["self_play"] / "net_points.png").exists()
    assert "net points/hand to A" not in md and "first-mover edge" in md


from chromium_probe import CHROMIUM, FLAGS, probe  # noqa: E402  (tests/chromium_probe.py)

#: measured in the page: the viewport and page widths, the headings, each table's key and
#: first estimate column, and each figure before and after its zoom button is pressed
_MEASURE = r"""
var vw = window.innerWidth, out = {vw: vw, page: document.documentElement.scrollWidth, tables: [], figures: [],
  h2: Array.from(document.querySelectorAll('h2')).map(function(h){return h.textContent;}),
  tall_closed: Array.from(document.querySelectorAll('details.tall')).every(function(d){return !d.open;})};
document.querySelectorAll('details').forEach(function(d){d.open = true;});
document.querySelectorAll('table').forEach(function(t){
  var head = t.tHead.rows[0].cells, cell = t.tBodies[0].rows[0].cells;
  out.tables.push({key: head[0].textContent, sticky: getComputedStyle(head[0]).position,
                   second: head[1].textContent, second_value: cell[1].textContent,
                   second_right: head[1].getBoundingClientRect().right});
});
document.querySelectorAll('figure').forEach(function(f){
  var img = f.querySelector('img'), button = f.querySelector('button.zoom'), frame = f.querySelector('.frame');
  var fit = img.getBoundingClientRect().width, shown = getComputedStyle(button).display !== 'none';
  button.click();
  out.figures.push({fit: fit, natural: img.naturalWidth, zoomed: img.getBoundingClientRect().width,
                    frame: frame.clientWidth, scrolls: frame.scrollWidth > frame.clientWidth, button: shown,
                    pressed: button.getAttribute('aria-pressed')});
});
return out;
"""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
@pytest.mark.parametrize("which", ["tournament", "self_play"])
@pytest.mark.parametrize("width", [1400, 390])
def test_the_report_reads_on_a_desktop_and_a_phone(reports, which, width):
    """In headless Chromium at 1400 and 390 CSS px: findings first; nothing wider than the
    screen but the tables and zoomed figures, which scroll inside their frames; every table's
    sticky key column is followed by an estimate column in view; every figure fits, and its
    zoom (a visible button on the phone) shows it at full size."""
    m = probe(reports[which] / "report.html", width, _MEASURE)
    assert m["vw"] == width and m["page"] <= width, m
    assert m["h2"][0] == "Findings" and m["tall_closed"]
    assert m["tables"], m
    for t in m["tables"]:
        assert t["sticky"] == "sticky", t
        assert re.search(r"\[.+, .+\]", t["second_value"]) and t["second_right"] <= width, t
    assert m["figures"]
    for f in m["figures"]:
        assert f["fit"] <= f["frame"] + 1 and f["zoomed"] == f["natural"] and f["pressed"] == "true", f
        assert f["button"] == (width < 1000), f
        if width == 390:
            assert f["natural"] > width and f["scrolls"], f  # full size, scrolling sideways in its frame


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
@pytest.mark.parametrize("width", [1400, 390])
def test_chromium_renders_the_report(reports, tmp_path, width):
    shot = tmp_path / f"report_{width}.png"
    page = (reports["tournament"] / "report.html").resolve().as_uri()
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                           "--enable-logging=stderr", "--v=0", f"--screenshot={shot}",
                           f"--window-size={width},3000", page], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Uncaught" not in done.stderr, done.stderr[-2000:]  # the inline script runs cleanly
    from PIL import Image

    with Image.open(shot) as image:
        assert image.size == (width, 3000)


@pytest.mark.parametrize("which", ["tournament", "self_play"])
def test_every_report_opens_with_its_findings(reports, which):
    md = (reports[which] / "report.md").read_text()
    assert re.findall(r"^## (.+)$", md, flags=re.M)[0] == "Findings"
    findings = md.split("## Findings", 1)[1].split("\n## ", 1)[0].split("**Contents**")[0]
    items = [line[2:] for line in findings.splitlines() if line.startswith("- ")]
    estimates = [item for item in items if " more cell" not in item]
    assert estimates and all(re.search(r"\[[^\]]+, [^\]]+\]", item) for item in estimates), items
    if which == "tournament":  # the largest estimates of 10 cells, then the round robin's leader
        assert sum("net points per hand to A" in i for i in items) == 6
        assert "4 more cells in Results per cell, single hands." in items
        assert any(i.startswith("Round robin (hands") and "ranks first with" in i for i in items)
    else:
        assert any(i.startswith("Self-play (hands): ") for i in items)
        assert not any("net points per hand to A" in i for i in items)


def test_a_share_below_a_tenth_of_a_percent_keeps_its_interval():
    from simulator.analysis.tables import ci_text

    row = pd.Series({"share_big_gin": 0.0003, "share_big_gin_ci_low": 0.00021, "share_big_gin_ci_high": 0.00047,
                     "share_gin": 0.0, "share_gin_ci_low": 0.0, "share_gin_ci_high": 0.00004})
    assert ci_text(row, "share_big_gin", ".1f", 100, "%") == "< 0.1% [0.02, 0.05]"
    assert ci_text(row, "share_gin", ".1f", 100, "%") == "0% [0.000, 0.004]"  # none in any unit: Wilson


def test_tables_lead_with_their_estimates_and_tall_figures_fold(tmp_path):
    from simulator.analysis.rendering import Document, estimate_columns_first, new_figure, save_figure

    frame = pd.DataFrame({"cell": [0], "matchup": ["a vs b"], "hands": ["10"], "net": ["+0.1 [-0.2, +0.4]"],
                          "share": ["< 0.1% [0.02, 0.05]"]})
    assert list(estimate_columns_first(frame).columns) == ["cell", "net", "share", "matchup", "hands"]
    ranking = pd.DataFrame({"rank": [1], "strategy": ["x"], "value": ["+1 [+0, +2]"], "opponents": [2]})
    assert list(estimate_columns_first(ranking).columns) == ["strategy", "value", "rank", "opponents"]
    doc = Document()
    for name, height in (("short", 3), ("tall", 20)):
        fig = new_figure(4, height)
        fig.add_subplot().plot([0, 1])
        doc.fig(save_figure(fig, tmp_path / f"{name}.png"), name, f"a {name} figure")
    page, md = doc.html("t"), doc.markdown()
    assert page.count('<details class="tall"><summary>tall: a tall figure (2,200 px)') == 1
    assert page.count("<figure>") == 2 and page.count('<button class="zoom"') == 2
    assert md.count("<details><summary>tall: a tall figure") == 1 and "![short](short.png)" in md
