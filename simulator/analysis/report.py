"""The report of a run: ``write_report(run_dir)`` writes ``report.md``, a self-contained
``report.html`` (plots embedded as base64 PNG data URIs) and the PNG plots.

This module assembles the report from its parts: ``loading`` (per-cell statistics
streamed from the run's verified files, so memory grows with the number of cells, not
rows; the numbers and their intervals come from ``simulator.analysis.stats``),
``figures`` and ``tables`` (what is shown), ``rendering`` (the document, figure files,
Markdown and HTML).  The "Findings" section opens the report: the study's declared claims
first when the run directory (or the report's directory) holds the study's ``confirm.json``
from ``ginsim confirm`` (``claims.claims_findings``; one sentence instead when it confirms
other seeds), then the run's headline estimates.  Sections: the header (experiment, provenance, how intervals are
made); single hands (net points per cell and against each swept parameter, results per
cell, the outcome mix, hand length); whole games (A's game-win probability, results per
cell); balance (the first mover's edge in self-play cells, first when every cell is
self-play); a round robin's ranking and heatmap when the matchups form one of three or
more strategies.  With more than ``MAX_ROWS`` cells and a sweep, the one-row-per-cell
charts give way to charts against the swept value.

Every word that labels a comparison (balance verdicts, A vs B, the heatmap's dashed
frames) belongs to a family of comparisons adjusted together, Holm by default
(``tables.compare_cells``, ``tables.pairwise_family``; docs/experiments.md, "How a report
labels many comparisons"); cells with identical rules and matchup are pooled into one.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.rules import describe_rules
from . import stats as an
from .claims import belongs_to_run, claims_findings, confirmation_of
from .figures import (
    MAX_PANELS,
    edge_figure,
    errorbar_by_cell,
    hand_length_figure,
    heatmap_figure,
    outcome_figure,
    outcome_sweep_figure,
    side_of,
    sweep_figure,
)
from .loading import base_matchups, defences, run_statistics
from .rendering import GENERATOR, Document, findings_section, record_report, report_files
from .tables import (
    METHOD_LABEL,
    Family,
    cell_families,
    cell_identities,
    ci_text,
    format_p,
    format_swept,
    pairwise_family,
    pairwise_table,
    game_table,
    hand_tables,
    plural,
    ranking_table,
    round_robin_strategies,
    shorten,
    tournaments,
    unit_span,
    verdict_counts,
)


MAX_ROWS = 40  # above this many cells, a run with a sweep is drawn against the swept value


#: the findings list at most this many cells per measure (the largest estimates), the rest
#: are in the tables
FINDINGS_CELLS = 6


#: the sentence that opens the findings when the run directory holds the study's confirm.json
CLAIMS_NOTE = ("The study's declared claims come first, each with the study's estimate and 95% confidence "
               "interval, the confirmation's (ginsim confirm, on seeds the study never used; confirm.md has "
               "its tests and power) and its status; then the run's headline estimates, each with its 95% "
               "confidence interval in brackets. The sections below give every cell, the figures and how the "
               "numbers were made.")


def _title(doc: Document, manifest: dict[str, Any], run_dir: Path) -> None:
    exp = manifest.get("experiment", {})
    doc.h(1, f"ginsim report: {exp.get('name', run_dir.name)}")
    if exp.get("description"):
        doc.p(str(exp["description"]))


def run_findings(manifest: dict[str, Any], hstats: pd.DataFrame | None, gstats: pd.DataFrame | None,
                 self_only: bool, families: dict[str, dict[str, Family]] | None = None) -> list[str]:
    """The report's headline estimates, one sentence each with its 95% interval: per measure
    the cells with the largest estimates (at most ``FINDINGS_CELLS``), the self-play balance
    verdicts (counted over the same family as the Balance section and the tables,
    ``families``: "hands"/"games" -> ``cell_families``), and each round robin's leader."""
    mirrored = bool(manifest.get("experiment", {}).get("mirrored", True))
    items: list[str] = []

    def largest(stats: pd.DataFrame, column: str, center: float) -> tuple[pd.DataFrame, int]:
        order = (stats[column] - center).abs().sort_values(ascending=False, kind="stable").index
        return stats.loc[order[:FINDINGS_CELLS]], max(0, len(stats) - FINDINGS_CELLS)

    def label(row: pd.Series) -> str:
        return f"cell {row['cell']} ({shorten(row.get('matchup', ''))}, {row.get('variant', '')})"

    def rest(n: int, table: str) -> list[str]:
        return [f"{plural(n, 'more cell')} in {table}."] if n else []

    for stats, kind in ((hstats, "hands"), (gstats, "games")):
        if stats is None:
            continue
        units = "mirrored pairs" if mirrored else kind
        if not self_only:
            others = stats[stats["a"] != stats["b"]] if {"a", "b"} <= set(stats.columns) else stats
            column, fmt, scale, unit, center, what = (
                ("net_mean", "+.3f", 1, "", 0.0, "net points per hand to A") if kind == "hands" else
                ("win_prob", ".1f", 100, "%", 0.5, "A's game-win probability"))
            shown, more = largest(others, column, center)
            for _, row in shown.iterrows():
                items.append(f"{label(row)}: {what} {ci_text(row, column, fmt, scale, unit)} over "
                             f"{int(row['n_units']):,} {units}.")
            items += rest(more, f"Results per cell, {'single hands' if kind == 'hands' else 'whole games'}")
        if {"a", "b"} <= set(stats.columns) and (stats["a"] == stats["b"]).any():
            part = stats[stats["a"] == stats["b"]]
            family = ((families or {}).get(kind) or cell_families(stats, kind))["balance"]
            fmt, scale, what = ("+.3f", 1, "points per hand") if kind == "hands" else ("+.1f", 100, "pp of games")
            top = part.loc[part["first_mover_edge"].abs().idxmax()]
            items.append(f"Self-play ({kind}): " + verdict_counts(family, "distinct rule set")
                         + f", after the {METHOD_LABEL[family.method]} adjustment (the Balance section); largest "
                           f"first-mover edge {ci_text(top, 'first_mover_edge', fmt, scale)} {what} in {label(top)}.")
        robin = _round_robin(manifest, kind, stats)
        if robin is not None:
            _, group_cols, rank = robin
            value, fmt, scale, unit = ("net_mean", "+.3f", 1, "") if kind == "hands" else ("win_prob", ".1f", 100, "%")
            groups = rank.groupby(group_cols, sort=False, dropna=False) if group_cols else [((), rank)]
            for n, (gkey, g) in enumerate(groups):
                if n == FINDINGS_CELLS:
                    items.append(f"{plural(len(groups) - n, 'more round-robin group')} in the ranking table.")
                    break
                gkey = gkey if isinstance(gkey, tuple) else (gkey,)
                group = ", ".join(f"{c}={format_swept(v) if c[:2] in ('a.', 'b.') else v}"
                                  for c, v in zip(group_cols, gkey))
                best = g.iloc[0]
                items.append(f"Round robin ({kind}{', ' + group if group else ''}): {best['strategy']} ranks first "
                             f"with {best[value] * scale:{fmt}}{unit} [{best['ci_low'] * scale:{fmt}}, "
                             f"{best['ci_high'] * scale:{fmt}}] "
                             f"{'net points per hand' if kind == 'hands' else 'game-win probability'} against the "
                             f"field.")
    return items


def _header(doc: Document, manifest: dict[str, Any], run_dir: Path) -> None:
    exp = manifest.get("experiment", {})
    doc.toc()
    doc.h(2, "About this run")
    deals = exp.get("deals", exp.get("size") if exp.get("mode") == "deals" else None)
    n_games = exp.get("games", exp.get("size") if exp.get("mode") == "games" else None)
    variants = exp.get("variants", {})
    sweep = exp.get("sweep", {})
    versions = manifest.get("versions", {})
    items = [
        f"Run directory: {run_dir.resolve().name}",
        f"Seed: {exp.get('seed', '–')}",
        f"Deals per cell: {deals:,}" if deals else "Deals per cell: none (no hand rows)",
        f"Games per cell: {n_games:,}" if n_games else "Games per cell: none (no game rows)",
        f"Mirrored (duplicate) deals: {'yes' if exp.get('mirrored', True) else 'no'}",
        f"Cells: {len(manifest.get('cells', []))} "
        f"({plural(len(exp.get('matchups', [])), 'matchup')} × {plural(len(variants), 'variant')}"
        + (f" × {plural(math.prod(len(v) for v in sweep.values()), 'sweep point')})" if sweep else ")"),
        "Variants: " + "; ".join(f"{k} = {describe_rules(t)}" for k, t in variants.items())
        if variants else "Variants: –",
    ]
    if sweep:
        items.append("Sweep: " + "; ".join(f"{k} = {', '.join(format_swept(v) for v in vs)}" for k, vs in sweep.items()))
    by_defence: dict[str, list[str]] = {}
    for name, defence in defences(manifest).items():
        by_defence.setdefault(defence, []).append(name)
    if by_defence:
        items.append("Defence after a knock (docs/rules.md#laying-out-and-laying-off): "
                     + "; ".join(f"{', '.join(names)}: {d}" for d, names in by_defence.items()))
    items.append(f"Git commit: {manifest.get('git_commit') or 'unknown'}; code fingerprint "
                 f"{manifest.get('code_fingerprint', 'unknown')}; run id {manifest.get('run_id', 'unknown')}")
    items.append("Versions: " + (", ".join(f"{k} {v}" for k, v in versions.items()) or "unknown"))
    doc.ul(items)
    doc.p("Intervals are 95% confidence intervals. With mirrored deals the two deals (or games) of a pair "
          "share a deck with the seats swapped, so each pair is one independent unit: values are averaged "
          "within the pair and the Student t interval is taken over the pair means (over single rows "
          "without mirroring; Wilson score intervals for unpaired proportions and for a share that is 0% or "
          "100% in every unit, which a t interval would shrink to a point; delta-method intervals for ratios "
          "such as mean deadwood). 'units' is the number of independent units behind each row. "
          "The first mover is the non-dealer; a hand or game without a winner counts half to each side.")


def write_report(run_dir: str | Path, out_dir: str | Path | None = None, multiplicity: str = "holm",
                 trust_plugins: bool = False, claims: bool = True,
                 controlled: pd.DataFrame | None = None) -> list[Path]:
    """Write ``report.md``, ``report.html`` (self-contained) and the PNG plots of a run into
    ``out_dir`` (default: the run directory); return the paths written (md, html, PNGs),
    recorded by name and sha256 in ``rendering.REPORT_RECORD``.

    ``multiplicity`` (``holm``, ``bh`` or ``none``; ``stats.MULTIPLICITY_METHODS``) is how
    every family of comparisons the report labels is adjusted (``tables.compare_cells``).
    ``claims`` False leaves the claims of a confirm.json out of the findings: a study's
    results folder gets them from the ledger instead (``simulator.studies.reports``).
    ``controlled`` (``ginsim report --control``: ``simulator.studies.run_controls.run_estimates``'
    rows) adds the section "Estimates with control variates" and its values as ``controlled.csv``.

    The run must be complete and intact (``rundir.readable_run``).  Its plug-ins are run
    only with ``trust_plugins`` (``rundir.load_plugins``: sha256 checked first), to name how
    they defend; without it their defence is "unknown".  Files are made in a
    staging folder and moved in only when all are ready; a file of the same name that
    ``ginsim report`` did not write, or that changed since, is never replaced (``RunError``
    names it; ``rendering.report_files``)."""
    import contextlib
    import shutil
    import tempfile

    from ..run.rundir import SUBDIR, RunError, load_plugins, readable_run, run_path

    if multiplicity not in an.MULTIPLICITY_METHODS:
        raise ValueError(f"multiplicity must be one of {', '.join(an.MULTIPLICITY_METHODS)}; got {multiplicity!r}")
    run_dir = run_path(run_dir)
    manifest, verification = readable_run(run_dir)
    if trust_plugins:
        load_plugins(run_dir, manifest, trust=True)
    if not verification.good["deals"] and not verification.good["games"]:
        raise RunError(f"{run_dir}: the run holds no rows to report")
    out = run_path(out_dir) if out_dir is not None else run_dir
    for sub in SUBDIR.values():  # a report's files there would be foreign files of the run
        folder = (run_dir / sub).resolve()
        if out.resolve() == folder or out.resolve().is_relative_to(folder):
            raise RunError(f"--out {out} is inside the run's {sub}/ folder, which holds only its chunk files; give the "
                           f"run directory or a folder outside it")
    made = [p for p in (out, *out.parents) if not p.exists()]  # the folders this report creates
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"report directory {out} is not writable: {exc.strerror or exc}") from None
    stage = Path(tempfile.mkdtemp(prefix=".ginsim-report-", dir=out))
    done = False
    try:
        written = _write_report_files(run_dir, manifest, verification.good, stage, multiplicity,
                                      confirm_dirs=[run_dir, out] if claims else [], controlled=controlled)
        targets = [out / p.name for p in written]
        ours = set(report_files(out))
        theirs = [t for t in targets if (t.exists() or t.is_symlink()) and t not in ours]
        if theirs:
            raise RunError(f"{theirs[0]} exists and was not written by ginsim report (or was changed since); move it "
                           f"away or choose another --out")
        for made, target in zip(written, targets, strict=True):
            # the markdown and HTML refer to the PNGs by bare name, so they stay valid in out
            made.replace(target)
        stale = out / CONTROLLED_CSV  # an earlier report's estimates this one does not show
        if controlled is None and stale in ours:
            stale.unlink()
        record_report(out, targets)
        done = True
        return targets
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        for folder in made if not done else ():  # a refused report leaves nothing behind
            with contextlib.suppress(OSError):
                folder.rmdir()


def _write_report_files(run_dir: Path, manifest: dict[str, Any], files: dict[str, list[Path]],
                        out: Path, multiplicity: str = "holm", confirm_dirs: list[Path] | None = None,
                        controlled: pd.DataFrame | None = None) -> list[Path]:
    hstats, gstats, draws = run_statistics(run_dir, manifest, files)
    identities = cell_identities(manifest)
    hfam = cell_families(hstats, "hands", multiplicity, identities) if hstats is not None else {}
    gfam = cell_families(gstats, "games", multiplicity, identities) if gstats is not None else {}
    doc = Document()
    pngs: list[Path] = []

    def figure(path: Path, title: str, caption: str) -> None:
        pngs.append(path)
        doc.fig(path, title, caption)

    mirrored = bool(manifest.get("experiment", {}).get("mirrored", True))
    # only self-play: A's result is zero in expectation by construction, the seats are the question
    self_only = all(s is None or ({"a", "b"} <= set(s.columns) and bool((s["a"] == s["b"]).all()))
                    for s in (hstats, gstats))
    # findings first (the headline estimates), then what the run was, then the detail
    _title(doc, manifest, run_dir)
    findings = run_findings(manifest, hstats, gstats, self_only, {"hands": hfam, "games": gfam})
    confirmation = confirmation_of(confirm_dirs if confirm_dirs is not None else [run_dir])
    if confirmation is None:
        findings_section(doc, findings)
    else:
        ours = belongs_to_run(confirmation[1], manifest)
        findings_section(doc, claims_findings(confirmation[1], manifest) + findings, CLAIMS_NOTE if ours else None)
    _header(doc, manifest, run_dir)
    tables: list[Path] = []
    if controlled is not None:
        _controlled_section(doc, controlled)
        tables.append(out / CONTROLLED_CSV)
        with open(tables[-1], "w", encoding="utf-8", newline="") as handle:
            handle.write(f"# generated by {GENERATOR}; read with pandas.read_csv(path, comment='#')\n")
            controlled.to_csv(handle, index=False)
    if self_only:
        _balance_section(doc, figure, hstats, gstats, out, hfam, gfam, lead=True)
    if hstats is not None:
        _hands_section(doc, figure, manifest, draws, hstats, out, mirrored, self_only, hfam)
    if gstats is not None:
        _games_section(doc, figure, manifest, gstats, out, mirrored, self_only, gfam)
    if not self_only:
        _balance_section(doc, figure, hstats, gstats, out, hfam, gfam)
    for kind, stats in (("hands", hstats), ("games", gstats)):
        if stats is not None:
            _round_robin_section(doc, figure, manifest, kind, stats, out, multiplicity)

    # every solved knock table by its name, also inside a hybrid or a cell's "A vs B" label
    from strategies import display_text

    md_path, html_path = out / "report.md", out / "report.html"
    md_path.write_text(display_text(doc.markdown()), encoding="utf-8")
    title = f"ginsim report: {manifest.get('experiment', {}).get('name', run_dir.name)}"
    html_path.write_text(display_text(doc.html(title)), encoding="utf-8")
    return [md_path, html_path, *pngs, *tables]


#: the file ``ginsim report --control`` writes its estimates to, beside the report
CONTROLLED_CSV = "controlled.csv"


def _estimate_text(row: pd.Series, which: str) -> str:
    """One estimate of a ``controlled`` row (``which``: "plain" or "reduced") with its interval:
    net points per hand signed, a share of games won in percent, a seat edge of games (a share
    less ½, a self-play cell's) in signed percentage points."""
    edge = row["a"] == row["b"]
    scale, fmt, unit = ((100.0, "+.1f", " pp") if edge else (100.0, ".1f", "%")) if row["unit"] == "game" else \
        (1.0, "+.3f", "")
    v, lo, hi = (scale * float(row[f"{which}_{k}"]) for k in ("value", "low", "high"))
    return f"{v:{fmt}}{unit} [{lo:{fmt}}, {hi:{fmt}}]"


def _controlled_section(doc: Document, controlled: pd.DataFrame) -> None:
    """``ginsim report --control``: each cell of two different strategies estimated again with
    control variates on the run's own mirrored pairs, the plain estimate beside it."""
    from strategies import display_spec

    doc.h(2, "Estimates with control variates")
    doc.p(f"Every other figure of this report is the plain estimate: the mean of the independent units with its "
          f"Student t interval. Here each cell in which two different strategies meet is estimated again with "
          f"control variates ({', '.join(dict.fromkeys(controlled['control']))}: the luck of the stock draws, "
          f"AIVAT's chance correction, with each player's self-play on the same deals, with the hands "
          f"exchanged (the same deals, or each hand of the games, played again with its two hands exchanged) or, "
          f"for games, with each hand replayed by B's player in both seats (as dealt, exchanged and from other "
          f"decks); a "
          f"self-play cell's first-mover edges, per hand and per game, with the luck of its draws and of its "
          f"deal, counted for the first mover, and the hands exchanged), played "
          f"on the run's own mirrored pairs from the seeds its manifest records. Each control is exactly 0 in expectation, so "
          f"both estimates are unbiased and differ by chance alone; the coefficients are cross-fitted "
          f"(docs/analysis.md, \"Estimators\"). 'Pairs needed' is how many times fewer mirrored pairs the "
          f"reduced estimate needs for an interval as wide as the plain one; 'CPU' is what the controls' play "
          f"took. The values are in {CONTROLLED_CSV}.")
    rows = controlled.sort_values(["unit", "cell"], ascending=[False, True])
    doc.table(pd.DataFrame({
        "cell": rows["cell"].to_numpy(),
        "matchup": [shorten(f"{display_spec(a)} vs {display_spec(b)}") for a, b in zip(rows["a"], rows["b"])],
        "variant": rows["variant"].to_numpy(),
        "measure": rows["measure"].to_numpy(),
        "pairs": [f"{n:,}" for n in rows["pairs"]],
        "plain": [_estimate_text(r, "plain") for _, r in rows.iterrows()],
        "with controls": [_estimate_text(r, "reduced") for _, r in rows.iterrows()],
        "sd per pair, plain": [f"{v:.3g}" for v in rows["plain_sd"]],
        "with controls, sd": [f"{v:.3g}" for v in rows["reduced_sd"]],
        "pairs needed": [f"{v:.2f}× fewer" if math.isfinite(v) else "one (no spread left)"
                         for v in rows["pairs_ratio"]],
        "CPU (s)": [f"{v:.1f}" for v in rows["control_cpu_s"]],
    }), "Estimates with control variates")


def _sweep_figures(figure, manifest: dict[str, Any], stats: pd.DataFrame, out: Path, column: str, ylabel: str,
                   what: str, prefix: str, reference: float | None, scale: float = 1.0,
                   merge_alike: bool = False, reference_text: str = "") -> None:
    bases = base_matchups(manifest, stats)
    for key in an.sweep_columns(stats):
        png, n_matchups, merged = sweep_figure(stats, bases, key, column, ylabel,
                                                f"{what[0].upper()}{what[1:]} against {side_of(key)}'s {key[2:]}",
                                                out / f"{prefix}_{_slug(key)}.png", reference, scale, merge_alike)
        cut = f" Only the first {MAX_PANELS} of {n_matchups} matchups are drawn." if n_matchups > MAX_PANELS else ""
        alike = (" Where the rule variants' curves do not differ (a chi-square test of homogeneity over every "
                 "swept value does not reject equality at the 5% level, as when variants differ only in "
                 "scoring), one pooled curve, their inverse-variance weighted mean, is drawn instead of several "
                 "on top of each other; its legend says so.") if merged else ""
        figure(png, f"{what[0].upper()}{what[1:]} against {key}",
               f"{what[0].upper()}{what[1:]} against the swept value of {key}, one panel per matchup and one "
               f"curve per rule variant, with 95% confidence intervals.{reference_text}{alike}{cut}")


def _swept(stats: pd.DataFrame) -> pd.Series:
    """Cells that take at least one swept parameter (a sweep may skip some matchups)."""
    keys = an.sweep_columns(stats)
    return stats[keys].notna().any(axis=1) if keys else pd.Series(False, index=stats.index)


def _hands_section(doc: Document, figure, manifest: dict[str, Any], draws: dict[int, np.ndarray], hstats: pd.DataFrame,
                   out: Path, mirrored: bool, self_only: bool = False,
                   families: dict[str, Family] | None = None) -> None:
    keys = an.sweep_columns(hstats)
    # with many cells, swept cells are drawn against the swept value, the rest one row per cell
    many = len(hstats) > MAX_ROWS and bool(keys)
    swept = _swept(hstats)
    rest = hstats[~swept] if many else hstats
    doc.h(2, "Single hands")
    units = "mirrored pairs" if mirrored else "hands"
    if len(rest) and not self_only:
        png, note = errorbar_by_cell(rest, "net_mean", "net points per hand to A (points; A's minus B's)",
                                      "Net points per hand to strategy A, 95% intervals", out / "net_points.png", 0.0)
        figure(png, "Net points per hand to A",
               f"Mean points per hand won by strategy A minus those won by B, one point per cell"
               f"{' without a swept parameter' if many else ''}, with 95% confidence intervals over "
               f"{unit_span(rest)} {units} per cell, largest first. Right of the dashed line A gains points on "
               f"average.{note}")
    if keys:
        _sweep_figures(figure, manifest, hstats, out, "net_mean", "net points per hand to A (points)",
                       "net points per hand to A", "sweep", 0.0,
                       reference_text=" Above the dashed line A gains points on average.")
    families = cell_families(hstats, "hands") if families is None else families
    results, play = hand_tables(hstats, self_only, families)
    doc.h(3, "Results per cell, single hands")
    doc.p("Point estimate with its 95% confidence interval in brackets; 'units' are the independent units "
          "behind it. 'first-mover edge' is the points per hand to the non-dealer (who moves first), "
          "whichever strategy it is."
          + (" Net points to A are left out: with the same strategy in both seats they are zero in "
             "expectation by construction." if self_only else "") + _families_text(families))
    doc.table(results, "Results per cell, single hands")
    doc.h(3, "How hands end")
    caption = ("How the hands ended: knock (knocker scores), gin, big gin, undercut (defender scores) and dead "
               "(cancelled at the end of the stock), as a share of all hands")
    if many and len(keys) == 1:
        png, cut = outcome_sweep_figure(hstats, base_matchups(manifest, hstats), keys[0], out / "outcome_mix.png")
        figure(png, "Outcome mix", f"{caption}, against {keys[0]}: one panel per matchup (rows) and rule variant "
                                   f"(columns).{cut}")
        if len(rest):
            figure(outcome_figure(rest, out / "outcome_mix_other.png"), "Outcome mix (other cells)",
                   f"{caption}, per cell without a swept parameter.")
    else:
        figure(outcome_figure(hstats, out / "outcome_mix.png"), "Outcome mix", f"{caption}, per cell.")
    doc.p("Shares of all hands (gin and big gin together make the gin rate); 'undercuts per knock' is "
          "undercuts / (knocks + undercuts); deadwood is the mean over hands that were not cancelled (the "
          "defender's after layoffs).")
    doc.table(play, "How hands end")
    if many:
        _sweep_figures(figure, manifest, hstats, out, "draws_mean", "cards drawn per hand (draws)",
                       "mean hand length", "hand_length", None, merge_alike=True)
    if len(rest):
        png, kind = hand_length_figure({c: draws[c] for c in rest["cell"] if c in draws}, rest,
                                        out / "hand_length.png")
        figure(png, "Hand length", f"Hand length: {kind}{' (cells without a swept parameter)' if many else ''}.")


def _games_section(doc: Document, figure, manifest: dict[str, Any], gstats: pd.DataFrame, out: Path,
                   mirrored: bool, self_only: bool = False, families: dict[str, Family] | None = None) -> None:
    keys = an.sweep_columns(gstats)
    many = len(gstats) > MAX_ROWS and bool(keys)
    rest = gstats[~_swept(gstats)] if many else gstats
    families = cell_families(gstats, "games") if families is None else families
    doc.h(2, "Whole games")
    if len(rest) and not self_only:
        png, note = errorbar_by_cell(rest, "win_prob", "probability that A wins the game (%)",
                                      "A's game-win probability, 95% intervals", out / "game_win.png", 50.0,
                                      scale=100)
        figure(png, "Game-win probability",
               f"Probability that strategy A wins a whole game, per cell{' without a swept parameter' if many else ''}"
               f", with 95% confidence intervals over {unit_span(rest)} "
               f"{'mirrored pairs of games' if mirrored else 'games'} per cell, largest first. The dashed line is "
               f"an even game.{note}")
    if keys:
        _sweep_figures(figure, manifest, gstats, out, "win_prob", "probability that A wins the game (%)",
                       "A's game-win probability", "sweep_games", 50.0, 100,
                       reference_text=" The dashed line is an even game.")
    doc.h(3, "Results per cell, whole games")
    doc.p("Point estimate with its 95% confidence interval in brackets; margin is A's final score minus "
          "B's (game, box and shutout bonuses included); the first-mover edge is the game-win probability "
          "of the player who did not deal first, minus 50%, in percentage points."
          + (" A's game-win probability and margin are left out: with the same strategy in both seats they "
             "are 50% and zero in expectation by construction." if self_only else "")
          + _families_text(families))
    doc.table(game_table(gstats, self_only, families), "Results per cell, whole games")


def _families_text(families: dict[str, Family]) -> str:
    """What the p-value and verdict columns of a results table mean."""
    parts = []
    for key, family in families.items():
        adjusted = f", 'p ({METHOD_LABEL[family.method]})' the adjusted p-value" if family.method != "none" else ""
        if key == "balance":
            parts.append(f" 'edge: p' is the raw p-value of the two-sided test of a zero first-mover edge in a "
                         f"self-play cell{adjusted}; 'balance (self-play)' is its verdict (the family is described "
                         f"under Balance).")
        else:
            parts.append(f" 'A vs B: p' is the raw p-value of the two-sided test of no difference between A and B"
                         f"{adjusted}; 'A vs B' is its verdict. {family.statement()}"
                         + (" " + _pooled_text(family) if len(family.pooled) else ""))
    return "".join(parts)


def _pooled_text(family: Family) -> str:
    """The cells a family counts once because they are the same rules and matchup."""
    items = []
    for _, m in family.pooled.iterrows():
        cells = ", ".join(str(c) for c in m["cells"])
        items.append(f"cells {cells} ({m['variant']}) are the same matchup under identical rules, pooled into "
                     f"one test over {m['units']:,} units: {family.interval(m)}, p {format_p(m['p'])}"
                     + (f", adjusted {format_p(m['p_adjusted'])}" if family.method != "none" else "")
                     + f": {m['verdict']}")
    return ("Same rules, one label: " + "; ".join(items) + " (in the table, a row of its own named by its cells, "
            "and 'pooled into' beside each of them, whose own interval carries no word).")


def _balance_section(doc: Document, figure, hstats: pd.DataFrame | None, gstats: pd.DataFrame | None,
                     out: Path, hfam: dict[str, Family] | None = None, gfam: dict[str, Family] | None = None,
                     lead: bool = False) -> None:
    def self_play(stats, families, kind):
        if stats is None or not {"a", "b"} <= set(stats.columns):
            return None, None
        part = stats[stats["a"] == stats["b"]]
        if not len(part):
            return None, None
        family = (families or {}).get("balance")
        if family is None:
            family = cell_families(stats, kind)["balance"]
        return part.assign(balance=family.cells.loc[part.index, "verdict"]), family

    (hself, hf), (gself, gf) = self_play(hstats, hfam, "hands"), self_play(gstats, gfam, "games")
    if hself is None and gself is None:
        return
    doc.h(2, "Balance: does the first mover have an edge?")
    lines = []
    for what, part, family in (("hands", hself, hf), ("games", gself, gf)):
        if part is not None:
            lines.append(f"{what}: " + verdict_counts(family, "distinct rule set"))
    method = (hf or gf).method
    rule = ("its adjusted p-value (" + an.MULTIPLICITY_TEXT[method] + ", over the family of every self-play "
            "edge in the table) is above 5%" if method != "none" else
            "its unadjusted p-value is above 5% (no correction for multiple comparisons)")
    doc.p("In self-play (the same strategy in both seats) any systematic difference comes from the seats. "
          f"A rule set is 'balanced' when {rule}; else it favours the seat its edge points to. Verdicts — "
          + "; ".join(lines) + ".")
    for family in (hf, gf):
        if family is not None:
            doc.p(family.statement() + (" " + _pooled_text(family) if len(family.pooled) else ""))
    if lead:
        doc.p("Every cell of this run is self-play, so this comes first: A's net points and win rate are zero "
              "(50%) in expectation by construction and are not drawn.")
    red = "not balanced after the " + METHOD_LABEL[method] + " adjustment" if method != "none" else \
        "interval excludes 0"
    png = edge_figure(hself, gself, out / "first_mover_edge.png", red)
    measures = [m for m, part in (("points per hand", hself),
                                  ("game-win probability minus 50%, in percentage points", gself))
                if part is not None]
    where = " (left) and ".join(measures) + " (right)" if len(measures) == 2 else measures[0]
    figure(png, "First-mover edge in self-play",
           f"Edge of the non-dealer (who moves first) in each self-play cell, with raw 95% confidence intervals: "
           f"{where}, largest first. Right of the dashed line the non-dealer is favoured, left the dealer; "
           f"red marks a cell whose verdict is not 'balanced' ({red})"
           + ("; a cell pooled with others (the same rules) is coloured by its pool's word, the test of the pooled "
              "interval in the table." if any(len(f.pooled) for f in (hf, gf) if f is not None) else "."))


def _round_robin(manifest: dict[str, Any], kind: str, stats: pd.DataFrame
                 ) -> tuple[pd.DataFrame, list[str], pd.DataFrame] | None:
    """A round robin's cells (one tournament per variant and sweep point), its group columns
    and its ranking; None when the matchups do not form one."""
    bases = base_matchups(manifest, stats)
    if round_robin_strategies(list(zip(bases["base_a"], bases["base_b"]))) is None:
        return None
    rr = stats.merge(bases, on="cell").drop(columns=["a", "b"]).rename(columns={"base_a": "a", "base_b": "b"})
    rr, group_cols = tournaments(rr)
    rank = an.ranking(rr, value="net_mean" if kind == "hands" else "win_prob", by=group_cols or None)
    return rr, group_cols, rank


def _round_robin_section(doc: Document, figure, manifest: dict[str, Any], kind: str, stats: pd.DataFrame,
                         out: Path, multiplicity: str = "holm") -> None:
    robin = _round_robin(manifest, kind, stats)
    if robin is None:
        return
    rr, group_cols, rank = robin
    if kind == "hands":
        value, header, fmt, scale, unit, count = "net_mean", "net points/hand vs the field", "+.3f", 1, "", "n_hands"
        cbar, center, cell_fmt = "net points per hand to the row strategy (points)", 0.0, "+.2f"
    else:
        value, header, fmt, scale, unit, count = ("win_prob", "game-win probability vs the field", ".1f", 100, "%",
                                                  "n_games")
        cbar, center, cell_fmt = "probability that the row strategy wins the game", 0.5, ".2f"
    doc.h(2, f"Round robin ({'single hands' if kind == 'hands' else 'whole games'})")
    doc.p(f"Each strategy's mean result against every other strategy (each opponent weighted equally, both "
          f"seatings counted; B's result is A's seen from the other side), best first within each "
          f"{' / '.join(group_cols) or 'run'}, with 95% confidence intervals.")
    doc.table(ranking_table(rank, value, header, fmt, scale, unit, count), f"Ranking ({kind})")
    tables = []
    groups = rr.groupby(group_cols, sort=False, dropna=False) if group_cols else [((), rr)]
    for gkey, g in groups:
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        label = ", ".join(f"{c}={format_swept(v) if c[:2] in ('a.', 'b.') else v}" for c, v in zip(group_cols, gkey))
        units = an.matrix(g, value="n_units").abs() if "n_units" in g.columns else None
        tables.append((label or "all cells", an.matrix(g, value=value), an.matrix_se(g, value=value), units))
    n_groups = len(tables)
    pairs, undetected = pairwise_family(tables, center, multiplicity)
    if len(pairs):
        size = int(np.isfinite(pairs["p"].to_numpy(float)).sum())
        adjusted = (f"the verdicts follow the p-values adjusted by {an.MULTIPLICITY_TEXT[multiplicity]}"
                    if multiplicity != "none" else "the verdicts follow each unadjusted p-value at 5% (no "
                    "multiplicity adjustment)")
        doc.p(f"Pairings: each pair of strategies within each {' / '.join(group_cols) or 'run'}, the better side "
              f"first, averaged over both seatings as in the heatmap, with the raw 95% interval (normal, from the "
              f"cells' standard errors) and the two-sided test of no advantage. Family: every pairing of this "
              f"table, {plural(size, 'comparison')}; {adjusted}.")
        doc.table(pairwise_table(pairs, fmt, scale, unit, multiplicity), f"Pairings ({kind})")
    tables, undetected = tables[:6], undetected[:6]
    cut = f" Only the first 6 of {n_groups} groups are drawn." if n_groups > 6 else ""
    what = "net points per hand" if kind == "hands" else "game-win probability"
    frame_means = (f"{METHOD_LABEL[multiplicity]}-adjusted p above 5%" if multiplicity != "none"
                   else f"the interval contains {format(center, 'g')}")
    png = heatmap_figure(tables, f"Round robin: {what}", cbar, center, cell_fmt, out / f"heatmap_{kind}.png",
                         undetected, f"no detectable advantage ({frame_means})")
    figure(png, f"Round-robin heatmap ({kind})",
           f"Strategy × strategy: each square is the {cbar.split(' (')[0]} against the column strategy, "
           f"averaged over both seatings, with the half-width of its 95% confidence interval under it"
           f"{' (the whole Wilson interval where one side won every game)' if kind == 'games' else ''}; one "
           f"panel per {' / '.join(group_cols) or 'run'}. Blue favours the row strategy, red the column strategy; "
           f"a dashed frame marks a pairing with no detectable advantage ({frame_means}; see the table of "
           f"pairings); grey squares were not played.{cut}")


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text).strip("_")
