"""Hybrid players: one strategy with some of its decisions taken from another.

A *hybrid spec* names a host strategy, then one or more decisions taken from a donor:
``"mc+draw=simple"`` plays ``mc`` except for its draws, which ``simple`` makes;
``"mc:samples=32+knock=simple:knock_at=5+arrange=simple:knock_at=5"`` takes two decisions
from one donor (each with its own parameters).  The decisions are the decision points of
docs/rules.md, one per phase of the view, named as in ``simulator.core.decisions``:

* ``first_upcard`` (take or decline the first upcard), ``draw`` (take the face-up card or
  the stock), ``last_discard`` (the stock is spent: take the last discard to knock);
* ``discard``, ``knock``, ``arrange`` (the knocker's melds), ``defend`` (the defender's
  melds).  ``layout`` and ``defence``, their older names, are still read.

It is data, compiled into the engine like every strategy: the hybrid has the reserved id
``HYBRID_SID`` and a longer parameter row (``HYBRID_ROW``): the host's row, the donor's
row, the bit set of the donor's phases and the two strategy ids.  The dispatch module
(``strategies.codegen.dispatch_source``) routes a hybrid's decision to the host's or the
donor's decision function with that strategy's own row (``N_PARAMS`` long, as the plug-in
contract says), so each plays exactly the code it plays alone: a hybrid with no decision
swapped plays the host's rows.

Both strategies get the seat's random stream and per-hand memory.  The memory is shared,
so a hybrid is refused when the host keeps a decision that uses the memory and the donor
gives one that uses it too (they would write the same slots): a built-in strategy lists its
memory-using decisions in ``MEMORY_DECISIONS`` (absent: none); a plug-in is taken to use
the memory in every decision.  Host and donor are numba strategies (built-in or plug-in),
neither of them a hybrid.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from simulator.core.decisions import DECISIONS, decision

from .view import N_PARAMS

#: the engine id of every hybrid (never a registry position: those are 0 .. and Python ids < 0)
HYBRID_SID = 1_000_000
#: the hybrid's parameter row: host row, donor row, then these slots
H_DONOR_ROW = N_PARAMS
H_MASK = 2 * N_PARAMS
H_HOST_SID = 2 * N_PARAMS + 1
H_DONOR_SID = 2 * N_PARAMS + 2
HYBRID_ROW = 2 * N_PARAMS + 3

#: decision name -> the phase (``V_PHASE``) it answers, in the order of docs/rules.md, and the
#: strategy function that answers it (``simulator.core.decisions``)
DECISION_PHASES = {d.name: d.phase for d in DECISIONS}
DECISION_FUNCTIONS = {d.name: d.function for d in DECISIONS}


@dataclass(frozen=True)
class Hybrid:
    """A resolved hybrid spec: the host, the donor and the decisions the donor makes.
    It answers what the engine and the runner ask of a ``strategies.registry.Strategy``:
    ``name`` (the host's), ``sid``, ``values`` (the host's), ``row``, ``label``, ``is_python``."""

    host: object  # strategies.registry.Strategy
    donor: object
    decisions: tuple[str, ...]  # in DECISION_PHASES order
    sid: int = HYBRID_SID
    values: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.host.name

    @property
    def is_python(self) -> bool:
        return False

    @property
    def mask(self) -> int:
        """The bit set of the phases the donor answers (bit ``PHASE_*``)."""
        return sum(1 << DECISION_PHASES[d] for d in self.decisions)

    @property
    def row(self) -> np.ndarray:
        out = np.zeros(HYBRID_ROW, dtype=np.float64)
        out[:N_PARAMS] = self.host.row
        out[H_DONOR_ROW:H_DONOR_ROW + N_PARAMS] = self.donor.row
        out[H_MASK] = self.mask
        out[H_HOST_SID] = self.host.sid
        out[H_DONOR_SID] = self.donor.sid
        return out

    @property
    def label(self) -> str:
        """The canonical spec: the host, then each donated decision in rules order."""
        return self.host.label + "".join(f"+{d}={self.donor.label}" for d in self.decisions)

    def component_sids(self) -> tuple[int, int]:
        return int(self.host.sid), int(self.donor.sid)


def memory_decisions(info) -> frozenset[str]:
    """The decision functions of a registered strategy (its ``StrategyInfo``) that read or
    write the per-hand memory: a built-in's ``MEMORY_DECISIONS`` (absent: none), every
    decision of a plug-in."""
    if info.path is not None:
        return frozenset(DECISION_FUNCTIONS.values())
    return frozenset(getattr(info.module, "MEMORY_DECISIONS", ()))


#: the '+' between a hybrid's host and its decisions: any '+' but a number's sign
#: ("simple:knock_at=+5" is simple with knock_at 5; "mc+draw=simple" is a hybrid)
HYBRID_PLUS = re.compile(r"\+(?!\s*[0-9.])")


def is_hybrid(spec: str) -> bool:
    """True when the strategy spec ``spec`` names a hybrid (``HYBRID_PLUS``)."""
    return HYBRID_PLUS.search(spec) is not None


def parse_hybrid(spec: str, parse, registry: dict) -> Hybrid:
    """Resolve ``"HOST+DECISION=DONOR[+DECISION=DONOR ...]"``, each part a strategy spec
    resolved by ``parse`` (``strategies.registry.parse_strategy``, whose ``REGISTRY`` is
    ``registry``); a bad part raises a one-line ValueError naming it and its allowed values."""
    text = spec.strip()
    host_text, *parts = [p.strip() for p in HYBRID_PLUS.split(text)]
    if not host_text:
        raise ValueError(f"hybrid spec {text!r}: the host strategy is missing before '+'; "
                         "write HOST+DECISION=DONOR, e.g. mc+draw=simple")
    host = parse(host_text)
    decisions: dict[str, object] = {}
    allowed = ", ".join(DECISION_PHASES)
    for part in parts:
        word, eq, donor_text = part.partition("=")
        found = decision(word.strip())
        if found is None:
            raise ValueError(f"hybrid spec {text!r}: unknown decision {word.strip()!r}; decisions: {allowed}")
        swapped = found.name
        if not eq or not donor_text.strip():
            raise ValueError(f"hybrid spec {text!r}: decision {swapped!r} needs a donor strategy: {swapped}=<strategy>")
        if swapped in decisions:
            raise ValueError(f"hybrid spec {text!r}: decision {swapped!r} is given twice; give it once")
        decisions[swapped] = parse(donor_text.strip())
    if not decisions:
        raise ValueError(f"hybrid spec {text!r}: no decision after '+'; write HOST+DECISION=DONOR with "
                         f"DECISION one of {allowed}")
    donors = {d.label for d in decisions.values()}
    if len(donors) > 1:
        raise ValueError(f"hybrid spec {text!r}: every decision must come from one donor, got {', '.join(sorted(donors))}")
    donor = next(iter(decisions.values()))
    for role, s in (("host", host), ("donor", donor)):
        if s.is_python:
            raise ValueError(f"hybrid spec {text!r}: the {role} {s.label!r} is a Python strategy; "
                             "a hybrid's host and donor are numba strategies")
    chosen = tuple(d for d in DECISION_PHASES if d in decisions)
    given = {DECISION_FUNCTIONS[d] for d in chosen}
    kept = set(DECISION_FUNCTIONS.values()) - given
    # take_nb answers three decisions: kept by the host when any of them is not donated
    if any(DECISION_FUNCTIONS[d] == "take_nb" for d in DECISION_PHASES if d not in decisions):
        kept.add("take_nb")
    host_memory = sorted(memory_decisions(registry[host.name]) & kept)
    donor_memory = sorted(memory_decisions(registry[donor.name]) & given)
    if host_memory and donor_memory:
        raise ValueError(f"hybrid spec {text!r}: {host.label!r} keeps decisions that use the per-hand memory "
                         f"({', '.join(host_memory)}) and {donor.label!r} gives ones that use it too "
                         f"({', '.join(donor_memory)}); they would share its slots")
    return Hybrid(host, donor, chosen, values=dict(host.values))
