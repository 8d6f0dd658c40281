"""The strong players' study: supplement to the ``strong_players`` report, legality and speed.

    python -m simulator.studies.strong_study supplement   # results/strong_players_supplement/supplement.md (+ PNG)
    python -m simulator.studies.strong_study legality     # expert and mc, 100,000 hands per preset
    python -m simulator.studies.strong_study speed        # mc hands/s vs simple on one core

``supplement`` adds what ``ginsim report`` does not compute: the opponent belief's
calibration and log-loss (``simulator.studies.inference``, 100,000 decisions, with its plot), each
player's gins, undercuts and knocks by deadwood pooled over its pairings in the
``strong_players`` run, the knock-vs-gin sweep with strong players (the
``strong_knock_vs_gin`` run), the score-awareness comparison (``score_awareness``) and a
check of the game-win table against 20,000 simulated games (``strategies.gamevalue``).
Every rate comes with a 95% interval over mirrored pairs (hands) or games.

``legality`` plays each new player against ``simple`` and ``random`` under every preset:
the engine refuses any illegal move (``simulate`` raises on the first), and each finished
hand must satisfy the scoring invariants (a knock within the limit, gin at deadwood 0, an
undercut only when the defender's deadwood is at most the knocker's).

``speed`` is also part of ``ginsim bench`` (``bench_mc``): hands per second of ``mc``
against ``simple`` at 16, 64 and 128 samples on one thread, next to ``simple`` against
``simple`` and ``expert`` against ``simple``; wall-clock and per CPU-second of the process
(on a shared machine the second is the per-core figure), and as a ratio of ``simple``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.rules import Rules
from ..run.limits import RESULTS_DIR
from ..run.rundir import read_rows
from ..run.seeds import offset_seed

ROOT = Path(__file__).resolve().parents[2]  # the checkout: simulator/studies/ is two levels down
RESULTS = ROOT / RESULTS_DIR
PRESETS = list(Rules.PRESETS)  # every rules preset, in its declared order
NEW_PLAYERS = ["expert", "mc"]


# ---- speed -----------------------------------------------------------------------------------

def bench_mc(n_hands: int = 2000, samples=(16, 64, 128), rules: str = "tournament") -> list[dict]:
    """hands/s on one numba thread: simple vs simple, expert vs simple, and mc vs simple at
    each sample count, with mc's default search (knock decisions) and full search (take,
    discard among 3 candidates, knock: ``search=7``)."""
    import numba

    import simulator

    before = numba.get_num_threads()
    rows = []
    try:
        numba.set_num_threads(1)
        specs = [("simple", 20 * n_hands), ("expert", 5 * n_hands)]
        specs += [(f"mc:samples={s}", n_hands) for s in samples]
        specs += [(f"mc:samples={s},search=7", max(n_hands // 4, 50)) for s in samples]
        for spec, n in specs:
            simulator.simulate(spec, "simple", rules, n_deals=2, seed=1)  # compile or load
            t = time.perf_counter()
            cpu = time.process_time()
            simulator.simulate(spec, "simple", rules, n_deals=n, seed=3)
            seconds = time.perf_counter() - t
            cpu_seconds = time.process_time() - cpu
            rows.append({"benchmark": f"{spec} vs simple", "rules": rules, "threads": 1, "hands": n,
                         "hands_per_s": n / seconds, "hands_per_cpu_s": n / max(cpu_seconds, 1e-9)})
    finally:
        numba.set_num_threads(before)
    return rows


def format_speed(rows: list[dict]) -> str:
    lines = [f"{'matchup (1 thread)':<40}{'hands':>8}{'hands/s':>12}{'hands/CPU-s':>13}{'vs simple':>11}"]
    base = rows[0]["hands_per_cpu_s"]
    for r in rows:
        lines.append(f"{r['benchmark']:<40}{r['hands']:>8}{r['hands_per_s']:>12,.0f}{r['hands_per_cpu_s']:>13,.0f}"
                     f"{r['hands_per_cpu_s'] / base:>11.4f}")
    return "\n".join(lines)


# ---- legality --------------------------------------------------------------------------------

def check_invariants(df: pd.DataFrame) -> None:
    """The scoring invariants every finished hand satisfies (raises AssertionError)."""
    dead = df["outcome"] == "dead"
    live = df[~dead]
    assert (df.loc[dead, "points"] == 0).all()
    assert (live["knocker_deadwood"] <= live["knock_limit"]).all(), "knock above the limit"
    gin = live["outcome"].isin(["gin", "big_gin"])
    assert (live.loc[gin, "knocker_deadwood"] == 0).all(), "gin with deadwood"
    und = live[live["outcome"] == "undercut"]
    assert (und["defender_deadwood"] <= und["knocker_deadwood"]).all(), "undercut without lower deadwood"
    sign = np.where(df["winner"] == "a", 1, np.where(df["winner"] == "b", -1, 0))
    assert (df["net_a"] == sign * df["points"]).all(), "net points disagree with the winner"


def legality(n_hands: int = 100_000, players=NEW_PLAYERS, opponents=("simple", "random"), presets=PRESETS,
             seed: int = 13) -> list[dict]:
    """Play each new player against each opponent for ``n_hands`` per preset (split evenly
    over the opponents); rows of (player, preset, hands, seconds)."""
    import simulator

    rows = []
    for player in players:
        for preset in presets:
            t = time.perf_counter()
            total = 0
            for j, opp in enumerate(opponents):
                n = n_hands // len(opponents)
                df = simulator.simulate(player, opp, preset, n_deals=n, seed=offset_seed(seed, j))  # raises on an illegal move
                check_invariants(df)
                total += len(df)
            rows.append({"player": player, "preset": preset, "hands": total, "illegal": 0,
                         "seconds": time.perf_counter() - t})
            print(f"{player:<8}{preset:<13}{total:>9,} hands legal ({rows[-1]['seconds']:.0f} s)", flush=True)
    return rows


# ---- supplement ------------------------------------------------------------------------------

def _pair_rate(frame: pd.DataFrame, flag: pd.Series) -> tuple[float, float, float]:
    """Mean of a 0/1 flag with a 95% interval, mirrored pairs as the units."""
    from ..analysis.stats import mean_interval

    units = flag.groupby([frame["cell"], frame["pair"]]).mean()
    return mean_interval(units, proportion=True)


def _fmt(rate: tuple[float, float, float]) -> str:
    m, lo, hi = rate
    return f"{100 * m:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def _read_hands(run_dir: Path) -> pd.DataFrame:
    cols = ["cell", "a", "b", "variant", "pair", "outcome", "knocker", "winner", "knocker_deadwood"]
    return read_rows(run_dir, "deals", cols)


def knock_profile(hands: pd.DataFrame) -> pd.DataFrame:
    """Per player and variant, pooled over all its pairings: the share of its hands it won
    by gin, lost by being undercut, won by undercutting, and its knocks by deadwood."""
    rows = []
    for variant, vh in hands.groupby("variant", observed=True):
        players = sorted(set(vh["a"].astype(str)) | set(vh["b"].astype(str)))
        for player in players:
            parts = []
            for side in ("a", "b"):
                sub = vh[vh[side].astype(str) == player]
                if len(sub):
                    me = sub["knocker"].astype(str) == side
                    parts.append(pd.DataFrame({"cell": sub["cell"].to_numpy(), "pair": sub["pair"].to_numpy(),
                                               "me_knock": me.to_numpy(), "outcome": sub["outcome"].astype(str).to_numpy(),
                                               "dw": sub["knocker_deadwood"].to_numpy()}))
            f = pd.concat(parts, ignore_index=True)
            knocked = f["me_knock"]
            out = f["outcome"]
            row = {"variant": variant, "player": player, "hands": len(f),
                   "gin": _pair_rate(f, knocked & out.isin(["gin", "big_gin"])),
                   "undercut against it": _pair_rate(f, knocked & (out == "undercut")),
                   "undercuts it made": _pair_rate(f, ~knocked & (out == "undercut")),
                   "knock 1-3": _pair_rate(f, knocked & out.isin(["knock", "undercut"]) & f["dw"].between(1, 3)),
                   "knock 4-6": _pair_rate(f, knocked & out.isin(["knock", "undercut"]) & f["dw"].between(4, 6)),
                   "knock 7-10": _pair_rate(f, knocked & out.isin(["knock", "undercut"]) & f["dw"].between(7, 10))}
            rows.append(row)
    return pd.DataFrame(rows)


def _game_cells(run_dir: Path) -> pd.DataFrame:
    """Game-win rate of A per cell (matchup, variant), 95% interval over mirrored pairs."""
    g = read_rows(run_dir, "games", ["cell", "a", "b", "variant", "pair", "winner"])
    rows = []
    for (a, b, variant), sub in g.groupby(["a", "b", "variant"], observed=True):
        win = (sub["winner"].astype(str) == "a").astype(float)
        rows.append({"a": a, "b": b, "variant": variant, "games": len(sub), "a_wins": _pair_rate(sub, win)})
    return pd.DataFrame(rows)


def _hand_cells(run_dir: Path) -> pd.DataFrame:
    from ..analysis.stats import mean_interval

    h = read_rows(run_dir, "deals", ["cell", "a", "b", "variant", "pair", "net_a"])
    rows = []
    for (a, b, variant), sub in h.groupby(["a", "b", "variant"], observed=True):
        units = sub.groupby("pair")["net_a"].mean()
        rows.append({"a": a, "b": b, "variant": variant, "net": mean_interval(units)})
    return pd.DataFrame(rows)


def supplement(out_dir: Path = RESULTS / "strong_players_supplement", decisions: int = 100_000,
               table_games: int = 20_000) -> Path:
    """Write ``supplement.md`` and ``belief_calibration.png`` into ``out_dir`` (not the run's
    own directory, which ``ginsim reproduce`` replaces and which holds only what ginsim run and
    report wrote)."""
    from . import inference
    from ..analysis.rendering import atomic_write

    out_dir.mkdir(parents=True, exist_ok=True)
    lines = ["<!-- generated by python -m simulator.studies.strong_study supplement; rerun it to replace this file -->", "",
             "# Strong players: supplement to the report", ""]
    # 1. the belief
    result = inference.measure(decisions)
    png = out_dir / "belief_calibration.png"
    tmp_png = out_dir / ".belief_calibration.tmp.png"
    inference.plot_calibration(result, tmp_png)
    tmp_png.replace(png)
    lines += ["## Opponent belief: calibration and log-loss", "",
              "For every draw decision, each card the opponent might hold gets a probability from",
              "public events only (`strategies.belief`); the truth is read from the state only to",
              f"score it. Self-play of {', '.join(inference.OPPONENTS)} under the tournament rules.", "",
              "![calibration](belief_calibration.png)", "", inference.format_result(result), ""]
    # 2. knocks, gins, undercuts
    run = RESULTS / "strong_players"
    if (run / "data").is_dir():
        prof = knock_profile(_read_hands(run))
        lines += ["## Gins, undercuts and knocks by deadwood", "",
                  "Share of each player's hands (pooled over all its pairings in the round robin; 95%",
                  "intervals over mirrored pairs) that it won by gin, that it lost by being undercut after",
                  "knocking, that it won by undercutting the opponent's knock, and that ended with its",
                  "own knock at deadwood 1-3, 4-6 and 7-10.", ""]
        keys = ["gin", "undercut against it", "undercuts it made", "knock 1-3", "knock 4-6", "knock 7-10"]
        for variant, pv in prof.groupby("variant"):
            lines += [f"### {variant}", "", "| player | hands | " + " | ".join(keys) + " |",
                      "|---|---:|" + "---:|" * len(keys)]
            for _, r in pv.iterrows():
                lines.append(f"| {r['player']} | {r['hands']:,} | " + " | ".join(_fmt(r[k]) for k in keys) + " |")
            lines.append("")
        games = _game_cells(run)
        hands = _hand_cells(run)
        lines += ["## Each player against simple", "",
                  "Net points per hand to the player (95% interval over mirrored pairs) and the share of",
                  "whole games it wins against `simple`.", "",
                  "| player | variant | net points/hand | games won |", "|---|---|---:|---:|"]
        for _, r in hands.iterrows():
            if "simple" not in (r["a"], r["b"]) or r["a"] == r["b"]:
                continue
            player = r["b"] if r["a"] == "simple" else r["a"]
            sign = -1 if r["a"] == "simple" else 1
            m, lo, hi = r["net"]
            net = (sign * m, min(sign * lo, sign * hi), max(sign * lo, sign * hi))
            gr = games[(games["a"] == r["a"]) & (games["b"] == r["b"]) & (games["variant"] == r["variant"])].iloc[0]
            gm, glo, ghi = gr["a_wins"]
            if sign < 0:
                gm, glo, ghi = 1 - gm, 1 - ghi, 1 - glo
            lines.append(f"| {player} | {r['variant']} | {net[0]:+.2f} [{net[1]:+.2f}, {net[2]:+.2f}] | "
                         f"{_fmt((gm, glo, ghi))} |")
        lines.append("")
    # 3. knock vs gin with strong players
    sweep = RESULTS / "strong_knock_vs_gin"
    if (sweep / "data").is_dir():
        hands = _hand_cells(sweep)
        games = _game_cells(sweep)
        lines += ["## Knock early or play for gin, with strong players", "",
                  "`expert` with its window for voluntary knocks (`knock_turns`: it knocks with deadwood",
                  "within the limit only while it has drawn at most that many cards, then only with gin;",
                  "99 = whenever allowed) against `expert` (window 3) and against `simple`.", "",
                  "| A | B | variant | net points/hand to A | A's games won |", "|---|---|---|---:|---:|"]
        merged = hands.merge(games, on=["a", "b", "variant"])
        for _, r in merged.iterrows():
            m, lo, hi = r["net"]
            lines.append(f"| {r['a']} | {r['b']} | {r['variant']} | {m:+.2f} [{lo:+.2f}, {hi:+.2f}] | {_fmt(r['a_wins'])} |")
        lines.append("")
    # 4. score awareness
    score = RESULTS / "score_awareness"
    if (score / "games").is_dir():
        games = _game_cells(score)
        lines += ["## Score awareness", "",
                  "`mc:game_aware=1` values each rollout by the game-win probability after the hand",
                  "(`strategies.gamevalue`), `mc` by the hand's points. Whole games:", "",
                  "| A | B | variant | games | A's games won |", "|---|---|---|---:|---:|"]
        for _, r in games.iterrows():
            lines.append(f"| {r['a']} | {r['b']} | {r['variant']} | {r['games']:,} | {_fmt(r['a_wins'])} |")
        lines.append("")
    # 5. the game-win table against simulated games
    from .gamevalue import check_table

    table = check_table(table_games)
    lines += ["## The game-win table against simulated games", "",
              f"At the start of every hand of {table_games:,} mirrored games of `expert` against itself",
              "(`tournament` rules), the game-win table's chance that A wins from the scores so far",
              "(`strategies.gamevalue.GAME_WIN`), against the share of those hands whose game A went",
              "on to win (`python -m simulator.studies.gamevalue check`).", "",
              "| predicted | hands | mean prediction | share won | standard error |", "|---|---:|---:|---:|---:|"]
    for _, r in table.iterrows():
        lines.append(f"| {r['predicted']} | {r['hands']:,} | {r['mean_prediction']:.3f} | {r['share_won']:.3f} | "
                     f"{r['se']:.3f} |")
    lines.append("")
    path = out_dir / "supplement.md"
    atomic_write(path, "\n".join(lines) + "\n")
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulator.studies.strong_study", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["supplement", "legality", "speed"])
    parser.add_argument("--hands", type=int, default=None, help="hands per preset (legality) or per mc row (speed)")
    parser.add_argument("--decisions", type=int, default=100_000, help="belief decisions (supplement)")
    parser.add_argument("--players", default="expert,mc", help="comma-separated strategy specs (legality)")
    parser.add_argument("--out", default=None, help="also write the legality table (Markdown) here")
    args = parser.parse_args(argv)
    if args.command == "supplement":
        print(supplement(decisions=args.decisions))
    elif args.command == "legality":
        rows = legality(args.hands or 100_000, players=[p for p in args.players.split(",") if p])
        if args.out:
            lines = ["| player | preset | hands | illegal moves | seconds |", "|---|---|---:|---:|---:|"]
            lines += [f"| {r['player']} | {r['preset']} | {r['hands']:,} | {r['illegal']} | {r['seconds']:.0f} |"
                      for r in rows]
            from ..analysis.rendering import atomic_write

            atomic_write(Path(args.out), "\n".join(lines) + "\n")
    else:
        print(format_speed(bench_mc(args.hands or 2000)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
