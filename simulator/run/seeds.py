"""The seeds of studies: how every seed derives from a study's seed, and the development seeds.

**Deriving seeds.**  Every seed a study plays on that is not its own seed — a run's cell, a
tuning's stream of deals, a decision-values block, a confirmation, an OpenSpiel bot's
shadow hand — comes from ``derive_seed(study_seed, *path, salt=None)``: 63 bits of BLAKE2b
(an 8-byte digest, read little-endian, shifted right one bit) of the UTF-8 text

    [SALT:]STUDY_SEED:PART:PART:...

each part written by ``str()``.  The parts name what the seed is for (a cell's index; a
phase and an opponent; a player, an opponent, rules and a unit), so each gets streams of
its own and adding one changes no other.  A ``salt`` goes first: the seeds of a
confirmation (its salt, ``ginsim-confirm-2``) or of a tuning's streams (``ginsim-tune``)
never meet a seed derived without it.  This is the one format: a run's cell seeds
(``derive_seed(seed, cell)``) and every other seed ginsim derived before this function
existed are exactly what it gives.

**Every other seed and generator is made here too** (``tests/test_seeds.py`` fails on seed
arithmetic or a random generator created anywhere else in ``simulator`` or ``strategies``):
``offset_seed(seed, k)`` is ``seed + k``, the sub-seeds of the studies and tools whose
published figures were played that way (an equilibrium's k-th best response, the field's
placement, the strong study's opponents, the belief model's collection, the Python arena's
shadow hands), kept so that those figures replay — new code derives with ``derive_seed``;
the random generators made from a seed are ``simulator.core.rng``'s, below the strategies
(``numpy_generator``, ``python_random``, ``random_state``, ``golden_scramble``, ``fresh_seed``).

**Development seeds**: the one declared range of seeds on which players are tuned by hand.
The discipline (``docs/experiments.md``, "Development seeds and confirmation seeds"):
built-in players' defaults (mc's ``late_knock``, expert's windows, ...) are chosen while
watching results on seeds from ``DEVELOPMENT_SEEDS`` only; a study's seed, a tuning's
fresh-deal evaluation and a confirmation (``ginsim confirm``) never use one, so no number a
study or a confirmation publishes was looked at while a default was being chosen.  The
tools refuse what they can check: ``ginsim confirm`` and ``ginsim tune`` stop with one line
when given a development seed.
"""

from __future__ import annotations

import hashlib


def derive_seed(study_seed: int, *path: object, salt: str | None = None) -> int:
    """The seed of ``path`` under ``study_seed`` (``salt`` first when given), below 2**63.

    >>> derive_seed(20261129, 0) == derive_seed(20261129, "0")  # parts are text
    True
    >>> derive_seed(20261129, salt="ginsim-confirm-1")  # knock_vs_gin's first confirmation seed
    2400264374607180512
    """
    text = ":".join(map(str, ([salt] if salt is not None else []) + [study_seed, *path]))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 1

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


def offset_seed(seed: int, k: int) -> int:
    """``seed + k``: the sub-seed scheme of the studies and tools registered before every
    sub-seed was derived (see the module's docstring); kept so their figures replay."""
    return seed + k
