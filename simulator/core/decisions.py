"""The decisions a seat makes, declared once: for each decision point (a phase of
``simulator.core.view``), its name, the numba strategy function that answers it, the kind of
its answer and the actions a yes-or-no answer means.

One vocabulary: a decision is named as its phase (``PHASE_NAMES``), which is also the method
a Python player answers it with and the word a hybrid spec swaps it by.  Everything that asks
a decision reads this table: the dispatch generator (``strategies.codegen.dispatch_source``:
one routing function per strategy function, the everyday ones compiled into the engine's
loop), the plug-in checks (which function each sampled state asks), Python players
(``strategies.pyplayer``: the method of each decision and how its answer becomes an action,
by the answer's kind), hybrids (``strategies.hybrid``: the decisions a donor may take) and the
terminal table (``simulator.tools.play``: the actions of its yes-or-no prompts), and the
engine's compiled loop (``simulator.engine.loop.ask_nb`` asks the generated dispatch's
``answer_nb``, written from this table: each row's function and the decoder of its kind,
``simulator.core.answers``), which ``tests/test_decisions.py`` checks on real hands.

A new decision point is a phase of the state machine (``simulator.core.layouts``,
``simulator.core.state``), exported to strategies by the view contract
(``simulator.core.view``), and a row here.  A strategy written before it existed leaves it
out: the row's ``ready`` answers for it, a ready-made function of ``strategies.common`` (a
numba strategy gets that function, a Python player the same answer in Python).
"""

from __future__ import annotations

from typing import NamedTuple

from .constants import (
    A_DRAW_STOCK,
    A_KNOCK,
    A_NO_KNOCK,
    A_PASS,
    A_TAKE_PILE,
    PHASE_ARRANGE,
    PHASE_DEFEND,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_FIRST_UPCARD,
    PHASE_KNOCK,
    PHASE_LAST_DISCARD,
    PHASE_NAMES,
)

#: the kinds of answer: a yes or no (``take_nb``, ``knock_nb``: true or false; a Python player:
#: ``True``/``False``, or the two words of the decision), a card (``discard_nb``: its code), the
#: knocker's melds (``arrange_nb``: set and run masks; a Python player: an arrangement's index)
#: and the defender's (``defend_nb``: masks, ``DEFEND_BEST`` or ``DEFEND_NO_LAYOFFS``; a Python
#: player: an index, ``"best"`` or ``"no_layoffs"``)
KINDS = ("yes_no", "card", "melds", "defence")


class Decision(NamedTuple):
    name: str  # the phase's name: the decision's, a Python player's method, a hybrid's word
    phase: int  # PHASE_*
    function: str  # the numba strategy function that answers it
    kind: str  # KINDS
    yes: int = -1  # yes_no: the action a yes means ...
    no: int = -1  # ... and a no
    words: tuple[str, str] | None = None  # yes_no: the words a Python player may answer instead
    every_turn: bool = False  # asked on every turn (its function is compiled into the loop)
    spelled: tuple[str, ...] = ()  # the older words hybrid specs still accept for it
    ready: str | None = None  # a strategy may leave it out: the function of strategies.common that answers


DECISIONS: tuple[Decision, ...] = (
    Decision("first_upcard", PHASE_FIRST_UPCARD, "take_nb", "yes_no", A_TAKE_PILE, A_PASS),
    Decision("draw", PHASE_DRAW, "take_nb", "yes_no", A_TAKE_PILE, A_DRAW_STOCK, ("pile", "stock"), every_turn=True),
    Decision("last_discard", PHASE_LAST_DISCARD, "take_nb", "yes_no", A_TAKE_PILE, A_PASS),
    Decision("discard", PHASE_DISCARD, "discard_nb", "card", every_turn=True),
    Decision("knock", PHASE_KNOCK, "knock_nb", "yes_no", A_KNOCK, A_NO_KNOCK, every_turn=True),
    Decision("arrange", PHASE_ARRANGE, "arrange_nb", "melds", spelled=("layout",)),
    Decision("defend", PHASE_DEFEND, "defend_nb", "defence", spelled=("defence",), ready="default_defend_nb"),
)
#: the decisions by phase code and by name
BY_PHASE: dict[int, Decision] = {d.phase: d for d in DECISIONS}
BY_NAME: dict[str, Decision] = {d.name: d for d in DECISIONS}
#: the strategy functions, each once, in the order of the decisions they answer
FUNCTIONS: tuple[str, ...] = tuple(dict.fromkeys(d.function for d in DECISIONS))
#: the functions asked on every turn: compiled into the engine's loop
EVERY_TURN: tuple[str, ...] = tuple(f for f in FUNCTIONS if any(d.every_turn for d in DECISIONS if d.function == f))
#: functions a strategy module may leave out, and the ready-made one (``strategies.common``)
#: that then answers (the defence: the best response)
OPTIONAL: dict[str, str] = {d.function: d.ready for d in DECISIONS if d.ready}
#: what a Python player that leaves out an optional decision answers: the same as each
#: ready-made function (``tests/test_decisions.py`` checks that they agree)
READY_ANSWERS: dict[str, object] = {"default_defend_nb": "best", "answer_yes_nb": True, "answer_no_nb": False}


def decision(word: str) -> Decision | None:
    """The decision a word names (its name, or an older spelling in ``spelled``), or None."""
    found = BY_NAME.get(word)
    return found or next((d for d in DECISIONS if word in d.spelled), None)


def _check() -> None:
    """The table covers every decision point once, in phase order (the import fails otherwise)."""
    if [d.phase for d in DECISIONS] != sorted(BY_PHASE) or len(BY_PHASE) != len(DECISIONS):
        raise ValueError("simulator.core.decisions: one row per decision point, in phase order")
    if any(PHASE_NAMES[d.phase] != d.name or d.kind not in KINDS for d in DECISIONS):
        raise ValueError("simulator.core.decisions: a decision is named as its phase, of a known kind")
    if any(d.ready is not None and d.ready not in READY_ANSWERS for d in DECISIONS):
        raise ValueError(f"simulator.core.decisions: a ready answer is one of {', '.join(READY_ANSWERS)}")
    if any(d.ready != OPTIONAL[d.function] for d in DECISIONS if d.function in OPTIONAL):
        raise ValueError("simulator.core.decisions: the rows of an optional function name one ready answer")


_check()
