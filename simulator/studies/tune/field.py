"""Playing candidates against the field: common random numbers for every candidate.

Opponent i of the field plays on its own fixed stream of mirrored deals (or games),
seeded by ``derive_seed(seed, phase, i, salt=TUNE_SALT)``: every candidate sees exactly the same deals in
a phase ("tune" for the search and the sweep, "fresh" for the final comparison), so the
differences between candidates are not luck of the deal.
"""

from __future__ import annotations

import numpy as np

from ...run.experiment import format_value
from ...run.seeds import derive_seed
from .spec import TuneSpec


#: the salt of a tuning's streams, so they never meet a seed derived without it
TUNE_SALT = "ginsim-tune"


class Field:
    """Plays a strategy against every opponent of a spec on fixed streams of mirrored deals
    (or games) and returns per-pair values: net points per hand to the strategy (the mean
    of the pair's two seatings), or its game-win value (1 won, 0 lost, ½ no winner)."""

    def __init__(self, spec: TuneSpec):
        from ...core.rules import resolve_rules

        self.spec = spec
        self.rules = resolve_rules(dict(spec.rules))
        self.played = 0  # deals or games played by this object

    def pair_values(self, strategy: str, opponent: int, phase: str, first_pair: int, n_pairs: int) -> np.ndarray:
        """Per-pair values of ``strategy`` against opponent ``opponent`` on mirrored pairs
        ``first_pair`` .. ``first_pair + n_pairs - 1`` of ``phase``'s stream: the mean of each
        pair's two seatings."""
        from ... import api

        opp = self.spec.opponents[opponent][0]
        seed = derive_seed(self.spec.seed, phase, opponent, salt=TUNE_SALT)
        context = f"tuning {self.spec.name}, {phase} deals, against {opp}"
        start, count = 2 * first_pair, 2 * n_pairs
        if self.spec.objective == "net_per_hand":
            records = api.play_deal_records(strategy, opp, self.rules, start, count, seed, True)
            api.check_hand_errors(records, strategy, opp, context)
            frame = api.hand_frame(records)
            values = frame["net_a"].to_numpy(dtype=float)
        else:
            games, _ = api.play_game_records(strategy, opp, self.rules, start, count, seed, True)
            api.check_game_errors(games, strategy, opp, context)
            frame = api.game_frame(games)
            winner = frame["winner"]
            values = np.where(winner.isna().to_numpy(), 0.5, (winner == "a").fillna(False).to_numpy(dtype=float))
        pair = frame["pair"].to_numpy()
        if not np.array_equal(pair, np.repeat(np.arange(first_pair, first_pair + n_pairs), 2)):
            raise RuntimeError("the engine did not return mirrored pairs in order")  # pragma: no cover
        self.played += count
        return values.reshape(-1, 2).mean(axis=1)

    def field_units(self, strategy: str, phase: str, n_pairs: int) -> tuple[np.ndarray, np.ndarray]:
        """(units, per-opponent pair values): unit p is the weighted field mean of pair p."""
        per = np.vstack([self.pair_values(strategy, i, phase, 0, n_pairs) for i in range(len(self.spec.opponents))])
        return self.spec.weights @ per, per


def candidate_spec(spec: TuneSpec, values: dict[str, float]) -> str:
    """The full spec string of a candidate: every parameter of the strategy, in its
    ``PARAMS`` order (tuned, else fixed, else the default), exactly as played."""
    import strategies

    defaults = strategies.REGISTRY[spec.strategy].params
    parts = []
    for name, default in defaults.items():
        value = values.get(name, spec.fixed.get(name, default))
        parts.append(f"{name}={format_value(value)}")
    text = spec.strategy + (":" + ",".join(parts) if parts else "")
    strategies.parse_strategy(text)  # it must parse back
    return text

