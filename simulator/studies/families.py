"""Opponent families in the field: a player's weakest result over a family, and what a family gains against it.

A field experiment may declare families of its players (``[families]`` in the experiment
file, ``simulator.run.experiment``): e.g. MARJJ with each of its knock windows, or the
players that knock by the solved knock tables.  For every player of the field and every
family, the field's page (``simulator.studies.field.write_field``) states:

* **the minimum over the family**: the player's lowest share of games won against any
  member (the player itself left out: its mirror match is even by symmetry), with the
  member it is reached against and a *simultaneous* 95% interval (``family_minimum``);
* **an exploitability lower bound within the family**: the most net points per hand any
  member wins against the player on single deals — the best response found within the
  class, which is searched only over its listed members, so the player's true
  exploitability is at least this — with its member and a simultaneous 95% interval
  (``exploitability``).  Points per hand, as the knock-table study measures a best
  response's gain; the game-win counterpart would only restate the minimum (a member's
  share against the player is one minus the player's against it).

The intervals are Bonferroni's over the family's k members measured: each member's
interval at confidence 1 − 0.05 / k (``simultaneous_intervals``), so that all k hold at once
with probability at least 95% whatever the dependence between them (the members' cells of
a field run are independent; a placed player's share common deals).  When they all hold,
the true minimum lies between the smallest low end and the smallest high end, and the true
maximum between the largest of each: that is the interval given.  Holm's step-down method
is sharper than Bonferroni's for *testing* each member, but it gives no sharper interval
for each member at once (its compatible intervals are Bonferroni's wherever a hypothesis
stands), and a minimum needs every member's interval at once: so Bonferroni.

Each member's interval is the one every ginsim table prints (``simulator.analysis.stats``:
Student t over the cell's independent units, a mirrored pair being one unit; Wilson's when
a share is 0 or 1 in every unit), at the adjusted confidence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: the family-wise error rate of each simultaneous interval
ALPHA = 0.05


@dataclass(frozen=True)
class FamilyEstimate:
    """A minimum (or maximum) over a family's members: its value from the player's (or the
    member's) side, the member that attains it, the simultaneous interval, the members
    measured and those the field did not pair the player with."""
    value: float
    member: str
    low: float
    high: float
    measured: int
    unpaired: tuple[str, ...]


def versus(stats: pd.DataFrame, player: str, member: str, column: str,
           proportion: bool) -> tuple[float, float, int] | None:
    """``column`` of the cell of ``player`` against ``member`` in per-cell stats
    (``hand_stats``/``game_stats`` rows of one variant), seen from ``player``'s side (when
    ``player`` sat as B: 1 − A's for a ``proportion``, A's negated otherwise), with its
    standard error and independent units; None when the two never met (a self-play cell
    does not count)."""
    base = column[:-5] if column.endswith("_mean") else column
    for a, b, as_b in ((player, member, False), (member, player, True)):
        rows = stats[(stats["a"] == a) & (stats["b"] == b)]
        if a != b and len(rows):
            r = rows.iloc[0]
            value = float(r[column])
            if as_b:
                value = 1.0 - value if proportion else -value
            return value, float(r[f"{base}_se"]), int(r["n_units"])
    return None


def simultaneous_intervals(values, ses, units, proportion: bool, alpha: float = ALPHA) -> np.ndarray:
    """Bonferroni's simultaneous intervals of k estimates (module docstring): each the
    t interval at confidence 1 − ``alpha`` / k over its units, Wilson's for a
    ``proportion`` that is 0 or 1 with no spread, a proportion's kept inside [0, 1].  Rows
    of (low, high)."""
    from ..analysis.stats import t_interval, wilson_interval

    values, ses, units = (np.asarray(x, dtype=float) for x in (values, ses, units))
    confidence = 1.0 - alpha / max(len(values), 1)
    _, low, high = t_interval(values, ses * np.sqrt(units), units, confidence)
    for i, (v, se, n) in enumerate(zip(values, ses, units)):
        if proportion and v in (0.0, 1.0) and not se > 0 and n >= 1:
            low[i], high[i] = wilson_interval(int(round(v * n)), int(n), confidence)
    if proportion:  # kept inside [0, 1], as the report's intervals of shares are
        low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    return np.column_stack([low, high])


def _extreme(stats: pd.DataFrame, player: str, members: list[str], column: str, sign: float,
             proportion: bool) -> FamilyEstimate | None:
    """The minimum (``sign`` = 1) of ``player``'s ``column`` over ``members``, or the
    maximum (``sign`` = −1) of the members' own, with Bonferroni's simultaneous interval."""
    met, unpaired = [], []
    for member in members:
        if member == player:
            continue
        found = versus(stats, player, member, column, proportion)
        if found is None:
            unpaired.append(member)
            continue
        value, se, n = found
        met.append((member, value if sign > 0 else (1.0 - value if proportion else -value), se, n))
    if not met:
        return None
    names = [m[0] for m in met]
    values = np.array([m[1] for m in met])
    bounds = simultaneous_intervals(values, [m[2] for m in met], [m[3] for m in met], proportion)
    pick = np.min if sign > 0 else np.max
    best = int(np.argmin(values) if sign > 0 else np.argmax(values))
    return FamilyEstimate(float(values[best]), names[best], float(pick(bounds[:, 0])), float(pick(bounds[:, 1])),
                          len(met), tuple(unpaired))


def family_minimum(games: pd.DataFrame, player: str, members: list[str]) -> FamilyEstimate | None:
    """``player``'s lowest share of games won against any member of the family (the player
    itself left out), from per-cell game stats of one variant, with Bonferroni's
    simultaneous 95% interval; None when it met no member."""
    return _extreme(games, player, members, "win_prob", 1.0, proportion=True)


def exploitability(hands: pd.DataFrame, player: str, members: list[str]) -> FamilyEstimate | None:
    """The best response found within the family: the most net points per hand any member
    wins against ``player`` (per-cell hand stats of one variant), with Bonferroni's
    simultaneous 95% interval; a lower bound of ``player``'s exploitability, the class
    being searched only over its members.  None when it met no member."""
    return _extreme(hands, player, members, "net_mean", -1.0, proportion=False)


def _cell(estimate: FamilyEstimate | None, fmt: str, number: dict[str, str]) -> tuple[str, str]:
    """An estimate's text with its interval, and its member by rank number (``number``)."""
    if estimate is None:
        return "not measured", ""
    text = f"{estimate.value:{fmt}} [{estimate.low:{fmt}}, {estimate.high:{fmt}}]"
    if estimate.unpaired:
        text += f" ({len(estimate.unpaired)} not met)"
    return text, number[estimate.member]


def rank_numbers(ratings: pd.DataFrame) -> dict[str, str]:
    """Each player of a rating table (strongest first) by its rank number: ``#1``, ``#2`` ..."""
    return {player: f"#{i + 1}" for i, player in enumerate(ratings["player"])}


def family_lines(name: str, members: list[str], games: pd.DataFrame, hands: pd.DataFrame,
                 ratings: pd.DataFrame) -> list[str]:
    """The field page's table of family ``name`` in one variant: every player of the
    ratings, by its minimum over the family (highest first), with its win rate against the
    whole field, its rating and its exploitability lower bound within the family.  Players
    are named with their rank number in the ratings (``#1`` the strongest), members by it alone."""
    from ..analysis.stats import ranking

    field_share = ranking(games, "win_prob").set_index("strategy") if len(games) else None
    elo = ratings.set_index("player")["elo"]
    number = rank_numbers(ratings)
    rows = []
    for player in ratings["player"]:
        low = family_minimum(games, player, members)
        gain = exploitability(hands, player, members) if len(hands) else None
        rows.append((-np.inf if low is None else low.value, player, low, gain))
    rows.sort(key=lambda r: -r[0])
    lines = [f"### Family `{name}` ({len(members)} members: " + ", ".join(f"{number.get(m, '')} `{m}`".lstrip()
                                                                           for m in members) + ")", "",
             "| player | games won vs the field [95%] | Elo vs simple | minimum share of games over the family "
             "[simultaneous 95%] | against | exploitability lower bound: points per hand a member wins "
             "[simultaneous 95%] | best response found |",
             "|---|---|---:|---|---|---|---|"]
    for _, player, low, gain in rows:
        share = ""
        if field_share is not None and player in field_share.index:
            f = field_share.loc[player]
            share = f"{f.win_prob:.1%} [{f.ci_low:.1%}, {f.ci_high:.1%}]"
        low_text, low_member = _cell(low, ".1%", number)
        gain_text, gain_member = _cell(gain, "+.2f", number) if len(hands) else ("no single deals played", "")
        lines.append(f"| {number[player]} `{player}` | {share} | {elo[player]:+.0f} | {low_text} | {low_member} | {gain_text} | "
                     f"{gain_member} |")
    return lines + [""]


#: what the field page says of its family tables, once
FAMILIES_NOTE = (
    "Families (the experiment's `[families]`; `simulator.studies.families`): for each player, its **minimum** "
    "share of games won against the family's members (itself left out) and the member it is reached against; "
    "its **exploitability lower bound** within the family: the most net points per hand any member wins "
    "against it on single deals (the best response found, searched only over the listed members, so the "
    "player can be exploited at least this much). Both intervals are simultaneous over the family's k members "
    "(Bonferroni: each member's interval at 1 − 0.05/k, so the minimum's and maximum's hold with at least 95% "
    "whatever the dependence); a player is ranked by its minimum.")


def placed_families(families: dict[str, list[str]], spec: str, games: pd.DataFrame,
                    hands: pd.DataFrame) -> dict[str, tuple[FamilyEstimate | None, FamilyEstimate | None]]:
    """A placed player's minimum and exploitability lower bound against each family (its
    per-cell game and hand stats against the members, one variant; either may be empty).
    The members then share deals: Bonferroni's intervals hold all the same."""
    return {name: (family_minimum(games, spec, members) if len(games) else None,
                   exploitability(hands, spec, members) if len(hands) else None)
            for name, members in families.items()}


def family_text(name: str, low: FamilyEstimate | None, gain: FamilyEstimate | None) -> str:
    """One line on a player against family ``name``: its minimum and its exploitability
    lower bound, each with its simultaneous interval and member (``ginsim field SPEC``)."""
    from strategies import display_spec

    parts = []
    if low is not None:
        parts.append(f"minimum {low.value:.1%} [{low.low:.1%}, {low.high:.1%}] of games (against "
                     f"{display_spec(low.member)})")
    if gain is not None:
        parts.append(f"exploitability lower bound {gain.value:+.2f} [{gain.low:+.2f}, {gain.high:+.2f}] points per "
                     f"hand (best response found: {display_spec(gain.member)})")
    return f"{name}: " + ("; ".join(parts) or "no member played")


def variant_sections(families: dict[str, list[str]], games: pd.DataFrame, hands: pd.DataFrame, variant: str,
                     ratings: pd.DataFrame) -> list[str]:
    """Every family's table for one variant of a field run (per-cell stats of the whole
    run, filtered here), after the note; nothing when the run declares no family."""
    if not families:
        return []
    games = games[games["variant"] == variant]
    hands = hands[hands["variant"] == variant] if len(hands) else hands
    lines = [FAMILIES_NOTE, ""]
    for name, members in families.items():
        lines += family_lines(name, members, games, hands, ratings)
    return lines
