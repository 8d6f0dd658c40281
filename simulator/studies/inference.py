"""Measuring the opponent belief (``strategies.belief``): data, fit, calibration.

    python -m simulator.studies.inference fit --decisions 50000   # refit belief.THETA (prints the new values)
    python -m simulator.studies.inference calibrate  # calibration table and log-loss, 100,000 decisions

Hands are played among built-in strategies by the engine's loop, stopping at every draw
decision (a draw from the stock or the pile, both seats), where the deciding seat's view is
taken and for each candidate card (``belief.candidates_nb``) its features and whether the
opponent truly holds it are recorded.  The belief only ever reads the view; the truth comes
from the state and is used only to score it.

Calibration: the candidates' probabilities are binned (0-0.05, 0.05-0.1, ...); for each bin
the mean probability is set against the share of those cards the opponent truly held.
Log-loss: the mean Bernoulli log-loss per candidate card of the belief, and of the uniform
belief (k/|candidates|) on the same cards.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from strategies import belief
from strategies.view import N_VIEW, PHASE_DRAW

from ..core.constants import K_STATE, N_HAND_COLS
from ..core.hand_reading import hand_of_nb, seat_to_act_nb
from ..core.state import N_STATE, PHASE_OVER
from ..core.view_fill import fill_view_nb
from ..engine import loop
from ..engine.work import new_work, seat_nb, start_deal_nb
from ..infra.jit import ALLOCATES
from ..run.seeds import offset_seed

#: self-play of these strategies is what the belief was fitted on (seed 1) ...
FIT_OPPONENTS = ("simple", "knock_early", "gin_hunter", "defensive", "undercut_aware")
#: ... and what it is measured on (seed 777): the same plus ``expert``, which the fit never saw
OPPONENTS = FIT_OPPONENTS + ("expert",)


#: ``run_until_nb``'s ``stop`` at every draw decision, either seat's
_DRAWS = loop.stop_at(phases=(PHASE_DRAW,))


@ALLOCATES.python_entry
def collect_nb(seed, first_hand, n_hands, sids, params, rules, max_decisions, feats, truth, decision, ks,
               opp_sid, work):
    """Play hands ``first_hand ..`` (deal h of ``simulate(seed=seed, mirrored=False)``: its deck,
    dealer and streams) with ``sids`` (seat 0, seat 1) in the work row ``work``, stopping the
    engine's loop at every draw decision until ``max_decisions``, and record each candidate's
    features (``feats``), whether the opponent holds it (``truth``), the decision's index
    (``decision``) and k (``ks``, per decision), and the opponent's strategy id (``opp_sid``,
    per decision).  Returns (rows, decisions)."""
    state = work[K_STATE:K_STATE + N_STATE]
    record = np.zeros(N_HAND_COLS, np.int64)
    view = np.zeros(N_VIEW, np.int64)
    trace = np.zeros((0, 3), np.int64)
    f = np.empty(belief.N_FEATURES, np.float64)
    zero = np.int64(0)
    rows = 0
    n_dec = 0
    for h in range(first_hand, first_hand + n_hands):
        if n_dec >= max_decisions:
            break
        start_deal_nb(work, seed, np.int64(h), False, zero, zero, rules, record, trace)  # deal h, unmirrored
        seat_nb(work, zero, sids, params)  # sids[0] in seat 0
        at = loop.run_until_nb(work, rules, np.int64(_DRAWS), record, trace)
        while 0 <= at < 2 * PHASE_OVER:
            seat = seat_to_act_nb(state)
            if n_dec < max_decisions:
                fill_view_nb(state, seat, view)  # the view the seat decides on
                cand, k = belief.candidates_nb(view)
                opp_hand = hand_of_nb(state, 1 - seat)
                rest = cand
                while rest:
                    card = np.int64(0)
                    low = rest & -rest
                    while (low >> card) != 1:
                        card += 1
                    rest &= rest - 1
                    if rows < truth.shape[0]:
                        belief.features_nb(view, card, f)
                        for i in range(belief.N_FEATURES):
                            feats[rows, i] = f[i]
                        truth[rows] = (opp_hand >> card) & 1
                        decision[rows] = n_dec
                        rows += 1
                ks[n_dec] = k
                opp_sid[n_dec] = sids[1 - seat]
                n_dec += 1
            # the draw is played by the seat's own strategy: stop again at the next draw
            at = loop.run_until_nb(work, rules, np.int64(_DRAWS) & ~(np.int64(1) << at), record, trace)
    return rows, n_dec


def collect(matchups, rules="tournament", decisions_per_matchup=20_000, seed=1):
    """Features, truth, decision index, k and opponent id of draw decisions over
    ``matchups`` (pairs of strategy specs); decisions are numbered across matchups."""
    from ..engine.select import strategy_pair
    from ..core.rules import resolve_rules

    rules_arr = resolve_rules(rules).to_array()
    parts = []
    offset = 0
    for j, (a, b) in enumerate(matchups):
        _, _, sids, params = strategy_pair(a, b)
        cap = decisions_per_matchup * 45
        feats = np.zeros((cap, belief.N_FEATURES))
        truth = np.zeros(cap, np.int64)
        decision = np.zeros(cap, np.int64)
        ks = np.zeros(decisions_per_matchup, np.int64)
        opp = np.zeros(decisions_per_matchup, np.int64)
        rows, n_dec = collect_nb(np.uint64(offset_seed(seed, 1000 * j)), 0, 10**7, sids, params, rules_arr,
                                 decisions_per_matchup, feats, truth, decision, ks, opp,
                                 new_work(rules_arr, params.shape[1]))
        parts.append((feats[:rows], truth[:rows], decision[:rows] + offset, ks[:n_dec], opp[:n_dec]))
        offset += n_dec
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(5))


def probabilities(theta, feats, decision, ks):
    """The belief's probability for each recorded candidate (as ``belief_nb``: k·w/Σw,
    capped at 1 with the excess spread over the others)."""
    w = np.exp(feats @ np.asarray(theta, dtype=float))
    n_dec = ks.shape[0]
    p = np.zeros_like(w)
    capped = np.zeros(w.shape[0], bool)
    k_left = ks.astype(float).copy()
    for _ in range(11):
        total = np.bincount(decision, weights=np.where(capped, 0.0, w), minlength=n_dec)
        q = np.where(capped, 1.0, k_left[decision] * w / np.maximum(total[decision], 1e-300))
        newly = (q >= 1.0) & ~capped
        p = np.minimum(q, 1.0)
        if not newly.any():
            break
        capped |= newly
        k_left -= np.bincount(decision, weights=newly.astype(float), minlength=n_dec)
    return p


def log_loss(p, truth):
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(truth * np.log(p) + (1 - truth) * np.log(1 - p)))


def fit(feats, truth, decision, ks):
    """Maximum-likelihood θ (Nelder-Mead then Powell on the mean log-loss)."""
    from scipy.optimize import minimize

    def loss(theta):
        return log_loss(probabilities(theta, feats, decision, ks), truth)

    res = minimize(loss, np.zeros(feats.shape[1]), method="Powell", options={"maxiter": 20000, "xtol": 1e-3})
    return res.x, res.fun


def calibration(p, truth, bins=20):
    """Rows (bin low, bin high, cards, mean probability, share held)."""
    edges = np.linspace(0, 1, bins + 1)
    idx = np.clip(np.digitize(p, edges) - 1, 0, bins - 1)
    out = []
    for b in range(bins):
        m = idx == b
        if m.any():
            out.append((edges[b], edges[b + 1], int(m.sum()), float(p[m].mean()), float(truth[m].mean())))
    return out


def measure(n_decisions=100_000, rules="tournament", seed=777):
    """Calibration and log-loss of the fitted belief against the uniform one over
    ``n_decisions`` draw decisions, spread evenly over self-play of each of ``OPPONENTS``
    (other seeds than the fit's).  Returns a dict."""
    matchups = [(o, o) for o in OPPONENTS]
    per = -(-n_decisions // len(matchups))
    feats, truth, decision, ks, opp = collect(matchups, rules, per, seed)
    p = probabilities(belief.THETA, feats, decision, ks)
    p0 = probabilities(np.zeros(belief.N_FEATURES), feats, decision, ks)
    by_opponent = {}
    from strategies.registry import name_of

    opp_rows = opp[decision]
    for sid in np.unique(opp):
        m = opp_rows == sid
        by_opponent[name_of(int(sid))] = {"log_loss": log_loss(p[m], truth[m]), "uniform_log_loss": log_loss(p0[m], truth[m])}
    return {"decisions": int(ks.shape[0]), "cards": int(truth.shape[0]), "rules": str(rules),
            "log_loss": log_loss(p, truth), "uniform_log_loss": log_loss(p0, truth),
            "calibration": calibration(p, truth), "uniform_calibration": calibration(p0, truth),
            "by_opponent": by_opponent, "theta": [float(t) for t in belief.THETA]}


def plot_calibration(result, path):
    """The reliability diagram (belief and uniform) as a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfect")
    for key, label in (("calibration", "belief"), ("uniform_calibration", "uniform")):
        rows = result[key]
        ax.plot([r[3] for r in rows], [r[4] for r in rows], marker="o", label=label)
    ax.set_xlabel("probability given to a card")
    ax.set_ylabel("share of those cards the opponent held")
    ax.set_title(f"opponent belief, {result['decisions']:,} decisions")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def format_result(result) -> str:
    lines = [f"opponent belief over {result['decisions']:,} draw decisions ({result['cards']:,} candidate cards, "
             f"{result['rules']} rules)",
             f"log-loss per card: belief {result['log_loss']:.4f}, uniform {result['uniform_log_loss']:.4f} "
             f"({100 * (1 - result['log_loss'] / result['uniform_log_loss']):.1f}% lower)",
             "", "| probability bin | cards | mean probability | share held |", "|---|---:|---:|---:|"]
    for lo, hi, n, mp, share in result["calibration"]:
        lines.append(f"| {lo:.2f}-{hi:.2f} | {n:,} | {mp:.3f} | {share:.3f} |")
    lines += ["", "| opponent | log-loss belief | log-loss uniform |", "|---|---:|---:|"]
    for name, r in result["by_opponent"].items():
        lines.append(f"| {name} | {r['log_loss']:.4f} | {r['uniform_log_loss']:.4f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulator.studies.inference", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["fit", "calibrate"])
    parser.add_argument("--decisions", type=int, default=100_000)
    parser.add_argument("--plot", default=None, help="write the calibration plot (PNG) here")
    parser.add_argument("--json", default=None, help="write the result (JSON) here")
    args = parser.parse_args(argv)
    if args.command == "fit":
        matchups = [(o, o) for o in FIT_OPPONENTS]
        feats, truth, decision, ks, _ = collect(matchups, "tournament", args.decisions // len(matchups), seed=1)
        theta, loss = fit(feats, truth, decision, ks)
        print(f"log-loss {loss:.4f} (uniform {log_loss(probabilities(np.zeros(len(theta)), feats, decision, ks), truth):.4f})")
        print("THETA = np.array([" + ", ".join(f"{t:.3f}" for t in theta) + "], dtype=np.float64)")
        return 0
    result = measure(args.decisions)
    print(format_result(result))
    if args.plot:
        plot_calibration(result, args.plot)
    if args.json:
        import json

        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
