"""The report of real (tiny) runs: a round robin of three strategies with a sweep that one
matchup does not take, hands and games; games only (self-play and a second matchup under
two variants); hands only with too many cells for one row per cell."""

from __future__ import annotations

import base64
import json
import re
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from simulator.analysis import stats as an
from simulator.run.experiment import load_experiment
from simulator.analysis.report import write_report
from simulator.run.runner import run_experiment

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# knock_early has no knock_at: its matchup is one cell that belongs to both sweep points
ROUND_ROBIN = textwrap.dedent('''
    name = "rr_report"
    description = "three strategies, every pair, two knock thresholds for A"
    seed = 11
    deals = 600
    games = 20
    chunk = 300
    matchups = [["simple", "gin_hunter"], ["gin_hunter", "defensive"], ["defensive", "simple"],
                ["knock_early", "simple"], ["knock_early", "gin_hunter"], ["knock_early", "defensive"]]
    [variants.hoyle]
    preset = "hoyle"
    [sweep]
    "a.knock_at" = [2, 8]
''')

GAMES = textwrap.dedent('''
    name = "games_report"
    seed = 12
    games = 60
    chunk = 30
    matchups = [["simple", "simple"], ["gin_hunter", "knock_early"]]
    [variants.hoyle]
    preset = "hoyle"
    [variants.tournament]
    preset = "tournament"
''')

BIG = textwrap.dedent('''
    name = "big_sweep"
    seed = 13
    deals = 40
    matchups = [["simple", "knock_early"], ["gin_hunter", "knock_early"], ["threshold_schedule", "knock_early"]]
    [variants.hoyle]
    preset = "hoyle"
    [variants.tournament]
    preset = "tournament"
    [sweep]
    "a.knock_at" = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
''')

HAND_PNGS = {"net_points.png", "sweep_a_knock_at.png", "outcome_mix.png", "hand_length.png", "heatmap_hands.png"}
GAME_PNGS = {"game_win.png"}


def _run(tmp: Path, name: str, text: str) -> Path:
    path = tmp / f"{name}.toml"
    path.write_text(text)
    return run_experiment(load_experiment(path), tmp / name, progress=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    return {name: _run(tmp, name, text) for name, text in
            (("round_robin", ROUND_ROBIN), ("games", GAMES), ("big", BIG))}


def check_files(paths: list[Path], out: Path, expected_pngs: set[str]) -> tuple[str, str]:
    names = [p.name for p in paths]
    assert names[:2] == ["report.md", "report.html"]
    assert set(names[2:]) == expected_pngs
    for path in paths:
        assert path.parent == out and path.is_file() and path.stat().st_size > 0
    for path in paths[2:]:
        data = path.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 2000, path
    md = (out / "report.md").read_text()
    page = (out / "report.html").read_text()
    # markdown: every image it names exists next to it, and every PNG is shown
    refs = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert set(refs) == expected_pngs and len(refs) == len(expected_pngs)
    for ref in refs:
        assert (out / ref).read_bytes().startswith(PNG_MAGIC)
    # html: self-contained: every src is a PNG data URI, nothing else is loaded
    sources = re.findall(r'src="([^"]*)"', page)
    assert len(sources) == len(expected_pngs)
    for src in sources:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]).startswith(PNG_MAGIC)
    # nothing outside the page: sources are data URIs, links are anchors in the page, and the
    # one script (sortable tables) is inline
    assert not re.search(r"src=\"(?!data:)", page)
    assert not re.search(r"href=\"(?!#)", page)
    assert "<link" not in page and "<script src" not in page and page.count("<script>") == 1
    assert page.count("<figcaption>") == len(expected_pngs)
    return md, page


def test_round_robin_run_with_hands_and_games(runs):
    run = runs["round_robin"]
    paths = write_report(run)
    md, page = check_files(paths, run, HAND_PNGS | GAME_PNGS | {"sweep_games_a_knock_at.png", "heatmap_games.png"})
    manifest = json.loads((run / "manifest.json").read_text())
    cells = manifest["cells"]
    assert len(cells) == 3 * 2 + 3  # the knock_early matchups take no knock_at
    assert "# ginsim report: rr_report" in md and "three strategies, every pair" in md
    assert "Seed: 11" in md and "Deals per cell: 600" in md and "Games per cell: 20" in md
    if manifest.get("git_commit"):
        assert manifest["git_commit"] in md
    assert f"numpy {manifest['versions']['numpy']}" in md
    # per-cell tables: every cell, its hand (game) count, its units, its intervals
    for cell in cells:
        assert f"| {cell['cell']} | {cell['a']} vs {cell['b']} | hoyle |" in md
    assert md.count("| 600 | 300 |") == len(cells)  # hands and mirrored pairs behind each cell
    assert md.count("| 20 | 10 |") == len(cells)  # games and mirrored pairs of games
    assert re.search(r"[+-]\d+\.\d{3} \[[+-]\d+\.\d{3}, [+-]\d+\.\d{3}\]", md)
    # round robin: one ranking per sweep point, four strategies each (knock_early in both)
    assert "## Round robin (single hands)" in md and "## Round robin (whole games)" in md
    hands_part = md.split("## Round robin (single hands)")[1].split("## Round robin (whole games)")[0]
    ranking = re.findall(r"^\| hoyle \| (\d) \| (\d) \| (\w+) \|", hands_part, flags=re.M)
    assert sorted((k, r) for k, r, _ in ranking) == [(k, r) for k in "28" for r in "1234"]
    assert {s for _, _, s in ranking} == {"simple", "gin_hunter", "defensive", "knock_early"}
    assert "balance (self-play)" not in md  # no self-play cell
    assert "<table class=\"sortable\">" in page and "rr_report" in page
    # the report's numbers are the analysis module's
    stats = an.hand_stats(pd.read_parquet(run / "data"))
    first = stats.iloc[0]
    assert f"{first['net_mean']:+.3f} [{first['net_ci_low']:+.3f}, {first['net_ci_high']:+.3f}]" in md


def test_games_run_report_into_another_directory(runs, tmp_path):
    run = runs["games"]
    out = tmp_path / "out"
    before = sorted(p.name for p in run.iterdir())
    paths = write_report(run, out)
    md, _ = check_files(paths, out, GAME_PNGS | {"first_mover_edge.png"})
    assert sorted(p.name for p in run.iterdir()) == before  # nothing written into the run
    assert "Games per cell: 60" in md and "Deals per cell: none" in md
    assert "## Whole games" in md and "Single hands" not in md and "## Balance" in md
    # self-play cells get a balance verdict and the others a dash; the others an A vs B verdict
    lines = md.splitlines()
    header = next(line for line in lines if line.startswith("| cell |") and "balance (self-play)" in line)
    names = [h.strip() for h in header.strip("|").split("|")]
    rows = [line for line in lines if line.startswith("| ") and " vs " in line and not line.startswith("| cell |")]
    assert len(rows) == 4
    for line in rows:
        row = dict(zip(names, (v.strip() for v in line.strip("|").split("|"))))
        if "simple vs simple" in line:
            assert row["balance (self-play)"] in ("balanced", "favours non-dealer", "favours dealer")
            assert row["A vs B"] == "–"
        else:
            assert row["balance (self-play)"] == "–"
            assert row["A vs B"] in ("A ahead", "B ahead", "no detectable difference")
            assert row["A vs B: p"] != "–" and row["A vs B: p (Holm)"] != "–"
    # the family, its size and the method are stated
    assert "the first-mover edges of the self-play cells (whole games), 2 comparisons" in md
    assert "Holm's step-down method, family-wise error rate 5%" in md
    assert md.count("| 60 | 30 |") == 4  # games and mirrored pairs of games


def test_many_cells_are_drawn_against_the_swept_value(runs):
    # 46 cells: one row per cell would be unreadable, so the swept cells are drawn against
    # knock_at; threshold_schedule (no knock_at) keeps its one-row-per-cell charts
    paths = write_report(runs["big"])
    md, _ = check_files(paths, runs["big"], {"sweep_a_knock_at.png", "outcome_mix.png", "hand_length_a_knock_at.png",
                                             "net_points.png", "outcome_mix_other.png", "hand_length.png"})
    # both tables (results, how hands end) still list every cell, by matchup and variant
    assert md.count("| hoyle | ") + md.count("| tournament | ") == 2 * 46
    assert "Round robin" not in md and "Balance" not in md


def test_not_a_run_directory(tmp_path):
    from simulator.run.rundir import RunError

    with pytest.raises(RunError, match="manifest.json"):
        write_report(tmp_path)


def _report_column(md: str, section: str, header: str) -> dict[int, str]:
    """Cell -> the text of column ``header`` in the report table under heading ``section``."""
    part = md.split(f"### {section}\n", 1)[1].split("\n#", 1)[0]
    rows = [line for line in part.splitlines() if line.startswith("|")]
    names = [c.strip() for c in rows[0].strip("|").split("|")]
    index = names.index(header)
    return {int(cells[0]): cells[index] for cells in
            ([c.strip() for c in line.strip("|").split("|")] for line in rows[2:])}


def test_show_prints_the_reports_intervals(runs, capsys):
    """`ginsim show` and the report print the same interval for each cell (one code: the
    analysis module's streamed statistics and their Student t interval)."""
    from simulator.cli import main

    run = runs["round_robin"]
    md = Path(write_report(run)[0]).read_text()
    assert main(["show", str(run)]) == 0
    shown = capsys.readouterr().out.split("whole games")
    for text, section, header, fmt in ((shown[0], "Results per cell, single hands", "net points/hand to A", 3),
                                       (shown[1], "Results per cell, whole games", "margin to A (points)", 1)):
        printed = {int(m[1]): (float(m[2]), float(m[3])) for m in
                   re.finditer(r"^\s*(\d+)\s.*?\s([+-]\d+\.\d{3}) ± (\d+\.\d{3})", text, flags=re.M)}
        in_report = _report_column(md, section, header)
        assert printed and set(printed) == set(in_report)
        for cell, (mean, half) in printed.items():
            m = re.fullmatch(r"([+-]\d+\.\d+) \[([+-]\d+\.\d+), ([+-]\d+\.\d+)\]", in_report[cell])
            value, low, high = (float(x) for x in m.groups())
            tol = 0.6 * 10 ** -fmt + 0.0006  # both are rounded
            assert abs(value - mean) < tol and abs(low - (mean - half)) < tol and abs(high - (mean + half)) < tol


def test_simulate_prints_the_reports_interval(capsys):
    """`ginsim simulate` prints net points per hand with the analysis module's interval."""
    import simulator
    from simulator.cli import main

    assert main(["simulate", "simple", "knock_early", "--deals", "400", "--seed", "3", "--rules", "hoyle"]) == 0
    out = capsys.readouterr().out
    mean, half = (float(x) for x in re.search(r"to A: ([+-]\d+\.\d+) ± (\d+\.\d+)", out).groups())
    stats = an.hand_stats(simulator.simulate("simple", "knock_early", rules="hoyle", n_deals=400, seed=3)).iloc[0]
    assert f"{stats['net_mean']:+.3f}" == f"{mean:+.3f}"
    assert f"{(stats['net_ci_high'] - stats['net_ci_low']) / 2:.3f}" == f"{half:.3f}"
