"""Development seeds: the one declared range of seeds on which players are tuned by hand.

The discipline (``docs/experiments.md``, "Development seeds and confirmation seeds"):
built-in players' defaults (mc's ``late_knock``, expert's windows, ...) are chosen while
watching results on seeds from ``DEVELOPMENT_SEEDS`` only; a study's seed, a tuning's
fresh-deal evaluation and a confirmation (``ginsim confirm``) never use one, so no number a
study or a confirmation publishes was looked at while a default was being chosen.  The
tools refuse what they can check: ``ginsim confirm`` and ``ginsim tune`` stop with one line
when given a development seed.
"""

from __future__ import annotations

#: the development seeds: 1,000,000 to 1,999,999 (pass ``seed=DEVELOPMENT_SEEDS[k]`` while
#: trying out a player; no study or confirmation may use them)
DEVELOPMENT_SEEDS = range(1_000_000, 2_000_000)


def is_development_seed(seed: int) -> bool:
    """True when ``seed`` is in the declared development range."""
    return seed in DEVELOPMENT_SEEDS


def development_seed_error(seed: int, what: str) -> str | None:
    """A one-line refusal when ``seed`` is a development seed (``what`` names its use), else None."""
    if not is_development_seed(seed):
        return None
    return (f"{what}: seed {seed} is a development seed ({DEVELOPMENT_SEEDS.start:,} to "
            f"{DEVELOPMENT_SEEDS.stop - 1:,}, kept for choosing players' defaults); use a seed outside that range")
