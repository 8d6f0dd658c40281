"""Every integer layout of ginsim, each declared once, as a table: the hand state's slots, the
view's slots, the phases (with their names), the action codes, the trace events, the error
codes, the kernels' scratch and work blocks, the RL observation's blocks, and (from the
schemas of ``simulator.core.records``) the hand row, the game row and the rule vector.

A table is a sequence of blocks ``(name, size, doc)`` laid end to end from offset 0: each
name becomes a constant holding its block's offset, and the layout's length is a constant
too (a block of size 0 only marks an offset; a block named ``None`` is free space).  The
constants are written, as plain ``NAME = value`` lines that grep, an IDE and a type checker
all see, into ``simulator/core/constants.py``:

    python -m simulator.core.layouts            # rewrite simulator/core/constants.py
    python -m simulator.core.layouts --check    # exit 1 when the checked-in file is stale

The same command writes the view contract's import of its constants (``simulator/core/view.py``,
``view_contract_names``), so a new view slot or decision point is exported to strategies
without a hand-kept list.

(``tests/test_layouts.py`` runs the check).  The modules that use a layout import its
constants from there; the size constraints between layouts (the view fits its scratch
block, the pile copies hold a whole pile) are asserted here, when the file is generated.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import NamedTuple

from . import records as RC
from .melds import MAX_ARRANGEMENTS
from .view_fields import OBSERVATION, PHASES, VIEW_FIELDS
from .view_fields import check as check_view_fields

CONSTANTS = Path(__file__).resolve().with_name("constants.py")
#: the view contract (``simulator.core.view``): its import of the view's constants is generated
VIEW = Path(__file__).resolve().with_name("view.py")


class Block(NamedTuple):
    name: str | None  # the constant holding the block's offset (None: free slots)
    size: int
    doc: str


def offsets(blocks: tuple[Block, ...]) -> tuple[dict[str, int], int]:
    """Each named block's offset, and the layout's length."""
    out: dict[str, int] = {}
    at = 0
    for b in blocks:
        if b.size < 0:
            raise ValueError(f"block {b.name!r} has a negative size")
        if b.name is not None:
            if b.name in out:
                raise ValueError(f"block {b.name!r} is declared twice")
            out[b.name] = at
        at += b.size
    return out, at


def _ones(names_docs: tuple[tuple[str, str], ...]) -> tuple[Block, ...]:
    return tuple(Block(n, 1, d) for n, d in names_docs)


# ---- the hand state (``simulator.core.state``): seats are 0/1, -1 = nobody --------------------
STATE_SLOTS: tuple[Block, ...] = _ones((
    ("S_PHASE", "the phase: a decision point PHASE_* or PHASE_OVER"),
    ("S_CURRENT", "the seat to act (the knocker while laying out, then the defender)"),
    ("S_DEALER", "the dealing seat"),
)) + (
    Block("S_HANDS", 2, "each seat's hand mask (+ seat)"),
    Block("S_TOOK", 2, "cards the seat took from the pile and still holds (public)"),
    Block("S_DECLINED", 2, "pile tops the seat was offered and passed on (public)"),
    Block("S_DISCARDS", 2, "every card the seat discarded this hand (public)"),
    Block("S_SEEN", 2, "cards the seat has seen: its hand, pile history, its stock draws"),
    Block("S_DRAWS", 2, "cards the seat drew this hand (pile takes included)"),
    Block("S_SCORES", 2, "game scores before this hand (0 in single deals)"),
) + _ones((
    ("S_STOCK_POS", "the next stock card is state[S_STOCK + S_STOCK_POS]"),
    ("S_STOCK_N", "cards in the stock including those drawn"),
    ("S_PILE_LEN", "cards in the discard pile"),
    ("S_PILE_MASK", "mask of the cards in the pile"),
    ("S_TURN", "discards made so far (both players)"),
    ("S_RESHUFFLES", "times the pile was turned into a new stock this hand"),
    ("S_UPCARD", "the deal's first upcard"),
    ("S_LIMIT", "the deal's knock limit"),
    ("S_MULTIPLIER", "the deal's score multiplier"),
    ("S_DRAWN", "discard phase: the card just drawn, else -1"),
    ("S_FROM_PILE", "discard phase: 1 when it came from the pile"),
    ("S_LAST_CHANCE", "1 once the last discard was taken: must knock"),
    ("S_LEGAL", "discard phase: mask of the legal discards, else 0"),
    ("S_DEADWOOD", "the current player's deadwood after its discard; later the knocker's"),
    ("S_KNOCKER", "the seat that knocked (or went gin), -1 before"),
    ("S_OUTCOME", "once over: OUT_*; -1 while the hand is played"),
    ("S_WINNER", "once over: the seat that scores, -1 for none"),
    ("S_POINTS", "once over: the points it scores"),
    ("S_KNOCKER_DW", "once over: the knocker's deadwood (-1: dead hand)"),
    ("S_DEFENDER_DW", "once over: the defender's deadwood after layoffs (-1: dead hand)"),
    ("S_LAYOFF", "once over: value of the cards laid off"),
    ("S_SETS", "from the layout on: the knocker's set cards"),
    ("S_RUNS", "from the layout on: the knocker's run cards"),
    ("S_LAID", "once over: the cards the defender laid off"),
    ("S_DECK_RNG", "the reshuffle stream (a simulator.core.rng counter, as int64 bits)"),
    ("S_NTRACE", "bookkeeping: trace events written since the deal"),
    ("S_DEFENDER_MELDS", "once over after a knock: the cards the defender melded"),
)) + (
    Block(None, 20, "free"),
    Block("N_HEADER", 0, "the header's length: the scalar slots above"),
    Block("S_STOCK", 64, "the stock in drawing order"),
    Block("S_PILE", 64, "the discard pile, top last"),
)

# ---- the view a strategy gets (``simulator.core.view``) ------------------------------------------
#: the view's slots, in the order of its declaration (``simulator.core.view_fields``: each slot's
#: Python name, kind and RL encoding)
VIEW_SLOTS: tuple[Block, ...] = tuple(Block(f.const, 1, f.doc) for f in VIEW_FIELDS)
#: the scalars of the strategy contract: parameter row and per-hand memory lengths
VIEW_SCALARS = (("N_PARAMS", 8, "length of every strategy parameter row (unused slots are 0)"),
                ("N_MEMORY", 64, "length of each player's per-hand memory"))

# ---- action codes (``simulator.actions`` names them for users) --------------------------------
ACTIONS: tuple[Block, ...] = (
    Block("A_DISCARD", 64, "A_DISCARD + c: discard the card of code c"),
    Block("A_DRAW_STOCK", 1, "draw the stock's top card"),
    Block("A_TAKE_PILE", 1, "take the pile's top card (the upcard, a draw, the last discard)"),
    Block("A_PASS", 1, "decline the upcard or the last discard"),
    Block("A_KNOCK", 1, "knock"),
    Block("A_NO_KNOCK", 1, "play on without knocking"),
    Block("A_ARRANGE", MAX_ARRANGEMENTS, "A_ARRANGE + k: lay out the k-th least-deadwood arrangement"),
    Block("A_DEFEND_BEST", 1, "the defender's best response to the layout"),
    Block("A_DEFEND", MAX_ARRANGEMENTS, "A_DEFEND + k: defend with its own k-th arrangement"),
    Block("A_DEFEND_NO_LAYOFFS", 1, "the defender spreads its own first arrangement, lays off nothing"),
)

# ---- trace events (player, event, value) ---------------------------------------------------------
EVENTS: tuple[str, ...] = (
    "deal", "upcard", "decline", "take_pile", "draw_stock", "discard", "knock", "gin",
    "big_gin", "sets", "runs", "layoff", "defender_deadwood", "reshuffle", "dead", "score",
    "pass_last_discard", "defend",
)
#: an event's constant name where it is not ``EV_`` + its name upper-cased
_EVENT_CONSTANTS = {"pass_last_discard": "EV_PASS_LAST"}


class Error(NamedTuple):
    name: str
    code: int
    decision: str  # the decision in which it arises
    text: str  # what it means, in words


# ---- error codes (the record's H_ERROR): returned for an illegal action (the state is left as
# it was) and recorded against the seat whose strategy caused them; ERR_WROTE_* come from the
# engine's checks of the arrays it lends.  Code 2 is unused.
ERRORS: tuple[Error, ...] = (
    Error("ERR_NONE", 0, "", "no error"),
    Error("ERR_ILLEGAL_DISCARD", 1, "discard", "strategy discarded a card it may not discard"),
    Error("ERR_BAD_MELDS", 3, "arrange",
          "strategy laid out melds that are not a least-deadwood arrangement of its hand"),
    Error("ERR_WROTE_PILE", 4, "any, found by the engine's copy check", "strategy wrote into the discard pile it was given"),
    Error("ERR_WROTE_RULES", 5, "any, found by the engine's copy check", "strategy wrote into the rule vector it was given"),
    Error("ERR_WROTE_PARAMS", 6, "any, found by the engine's copy check", "strategy wrote into its parameter row"),
    Error("ERR_ILLEGAL_ACTION", 7, "any", "an action that is not legal in the hand's phase"),
    Error("ERR_WROTE_MEMORY", 8, "any, found by the plug-in engine's memory check",
          "strategy wrote past the end of its memory"),
)


def _state_len() -> int:
    return offsets(STATE_SLOTS)[1]


# ---- the scratch of the work row (``simulator.engine.work``) --------------------------------------
SCRATCH: tuple[Block, ...] = (
    Block("W_VIEW", 32, "the view of the seat to act (N_VIEW slots used)"),
    Block("W_SEAT_PILES", 2 * 64, "each seat's copy of the pile, the one its strategy gets"),
)


def _work() -> tuple[Block, ...]:
    """The work row of a match (``simulator.engine.work``): everything int64 a driver keeps for
    one matchup, the hand included.  Its last block holds the lent copies, whose size
    depends on the rule vector's length and the parameter rows' width (``work_len``)."""
    memory = dict((n, v) for n, v, _ in VIEW_SCALARS)["N_MEMORY"]
    return (
        Block("K_STATE", _state_len(), "the hand"),
        Block("K_SIDS", 2, "each seat's strategy id (a Python strategy's is negative)"),
        Block("K_SCRATCH", offsets(SCRATCH)[1], "the view and the seats' pile copies"),
        Block("K_MEMORY", 4 * memory, "each seat's per-hand memory, then a spare row that stays 0 (work.memory_of)"),
        Block("K_RNGS", 2, "each seat's random stream (uint64 bits)"),
        Block("K_DECK", 52, "the deck the hand was dealt from"),
        Block("K_DECK_RNG", 1, "the deck's stream (uint64 bits)"),
        Block("K_SEED", 1, "the seed of the deal or game (uint64 bits)"),
        Block("K_RECORD", len(RC.HAND_RECORD_NAMES), "the hand's record (a hand row)"),
        Block("K_N_RULES", 1, "the rule vector's length"),
        Block("K_WIDTH", 1, "the parameter rows' width"),
        Block("K_LENT", 0, "2 x rules (each seat's rule copy), 2 x width (each seat's parameter row, "
                           "float64 bits), 2 x width (the copies lent)"),
    )


def observation_table() -> str:
    """docs/rl.md's table of the RL observation's blocks: name, offset, size, meaning."""
    rows, at = ["| block | offset | size | meaning |", "|---|---|---|---|"], 0
    for name, _, size, meaning in OBSERVATION:
        rows.append(f"| `{name}` | {at} | {size} | {meaning} |")
        at += size
    return "\n".join(rows)


def sections() -> list[tuple[str, list[tuple[str, object, str]]]]:
    """The generated module's sections: (title, [(name, value, comment)])."""
    out = []
    state, n_state = offsets(STATE_SLOTS)
    out.append(("the hand state's slots (simulator.core.state)",
                [(b.name, state[b.name], b.doc) for b in STATE_SLOTS if b.name] + [("N_STATE", n_state, "slots in all")]))
    view, n_view = offsets(VIEW_SLOTS)
    out.append(("the view's slots (simulator.core.view)",
                [(b.name, view[b.name], b.doc) for b in VIEW_SLOTS] + [("N_VIEW", n_view, "slots in all")]
                + [(n, v, d) for n, v, d in VIEW_SCALARS]))
    out.append(("phases", [("PHASE_" + n.upper(), i, d) for i, (n, d) in enumerate(PHASES)]
                + [("PHASE_NAMES", tuple(n for n, _ in PHASES), "phase code -> name")]))
    actions, n_actions = offsets(ACTIONS)
    out.append(("action codes", [(b.name, actions[b.name], b.doc) for b in ACTIONS]
                + [("N_ACTIONS", n_actions, "action codes in all")]))
    out.append(("trace events", [(_EVENT_CONSTANTS.get(n, "EV_" + n.upper()), i, "") for i, n in enumerate(EVENTS)]
                + [("EVENT_NAMES", EVENTS, "event code -> name")]))
    out.append(("error codes (the record's H_ERROR)", [(e.name, e.code, e.text) for e in ERRORS]))
    scratch, n_scratch = offsets(SCRATCH)
    out.append(("the scratch of the work row (simulator.engine.work)",
                [(b.name, scratch[b.name], b.doc) for b in SCRATCH] + [("SCRATCH_LEN", n_scratch, "slots in all")]))
    work, _ = offsets(_work())
    out.append(("the work row of a match (simulator.engine.work)",
                [(b.name, work[b.name], b.doc) for b in _work()]))
    obs, at = [], 0
    for name, const, size, _ in OBSERVATION:
        obs.append((const, at, f"{name}: {size} values"))
        at += size
    out.append(("the RL observation's blocks (simulator.env.encoding)", obs + [
        ("N_OBS", at, "values in all"),
        ("OBSERVATION_LAYOUT", tuple((n, o, s) for (n, _, s, _), (_, o, _) in zip(OBSERVATION, obs)),
         "(name, offset, size) of each block")]))
    out.append(("outcomes of a hand record", [("OUT_" + o.upper(), i, "") for i, o in enumerate(RC.OUTCOMES)]))
    out.append(("the hand row (simulator.core.records.HAND_ROW)",
                [(n, v, "") for n, v in RC.HAND_CONSTANTS.items()] + [("N_HAND_COLS", len(RC.HAND_RECORD_NAMES), "")]))
    out.append(("the game row (simulator.core.records.GAME_ROW)",
                [(n, v, "") for n, v in RC.GAME_CONSTANTS.items()] + [("N_GAME_COLS", len(RC.GAME_RECORD_NAMES), "")]))
    out.append(("the rule vector (simulator.core.records.RULE_VECTOR)",
                [(n, v, "") for n, v in RC.RULE_CONSTANTS.items()] + [("N_RULE_FIELDS", len(RC.RULE_VECTOR), "")]))
    _check(dict(item[:2] for _, items in out for item in items))
    return out


def _check(c: dict[str, object]) -> None:
    """The constraints between layouts (a failed one stops the generator)."""
    problems = []
    if c["N_VIEW"] > c["W_SEAT_PILES"] - c["W_VIEW"]:
        problems.append(f"the view ({c['N_VIEW']} slots) does not fit its scratch block W_VIEW")
    if c["SCRATCH_LEN"] - c["W_SEAT_PILES"] < 2 * 64:
        problems.append("the seats' pile copies need 2 x 64 scratch slots")
    if c["S_PILE"] - c["S_STOCK"] < 52 or c["N_STATE"] - c["S_PILE"] < 52:
        problems.append("the stock and the pile need room for 52 cards each")
    if c["S_DEFENDER_MELDS"] >= c["N_HEADER"]:
        problems.append("the state's scalar slots overflow its header")
    if c["PHASE_OVER"] != len(PHASES) - 1:
        problems.append("PHASE_OVER must be the last phase")
    problems += check_view_fields({name: size for name, _, size, _ in OBSERVATION})
    if len({e.code for e in ERRORS}) != len(ERRORS):
        problems.append("two errors share a code")
    if problems:
        raise ValueError("; ".join(problems))


def constants_source() -> str:
    """The text ``simulator/core/constants.py`` must hold."""
    lines = ['"""Every integer layout of ginsim as plain constants, generated from the tables of',
             '``simulator.core.layouts`` by ``python -m simulator.core.layouts``: do not edit by hand',
             '(``tests/test_layouts.py`` fails when this file is stale)."""', ""]
    for title, items in sections():
        lines += ["", f"# ---- {title}"]
        for name, value, doc in items:
            text = f"{name} = {value!r}"
            if doc and len(text) + len(doc) + 4 <= 110:
                text += f"  # {doc}"
            elif doc:
                lines.append(f"#: {doc}")
            lines.append(text)
    return "\n".join(lines) + "\n"


def view_contract_names() -> list[str]:
    """The constants of the view contract a strategy imports (``simulator.core.view``): the
    view's slots, ``N_VIEW``, the scalars ``N_PARAMS`` and ``N_MEMORY``, and the decision
    points (every phase but ``PHASE_OVER``, at which nobody is asked)."""
    view = [b.name for b in VIEW_SLOTS] + ["N_VIEW"]
    phases = ["PHASE_" + n.upper() for n, _ in PHASES[:-1]]
    return view + phases + [n for n, _, _ in VIEW_SCALARS]


_VIEW_IMPORT = re.compile(r"^from \.constants import \(.*?^\)\n", re.M | re.S)


def view_source(current: str) -> str:
    """The text ``simulator/core/view.py`` must hold: ``current`` with its import of the
    constants rewritten to name exactly ``view_contract_names()``, so that a new slot or
    decision point reaches every strategy without a hand-kept list."""
    block = ("from .constants import (  # noqa: F401  (generated by python -m simulator.core.layouts)\n"
             + "".join(f"    {name},\n" for name in view_contract_names()) + ")\n")
    if len(_VIEW_IMPORT.findall(current)) != 1:
        raise ValueError(f"{VIEW}: expected one 'from .constants import (...)' block to regenerate")
    return _VIEW_IMPORT.sub(lambda _: block, current)


def write_or_check(path: Path, wanted: str, check: bool, command: str) -> int:
    """Rewrite the generated file ``path`` to ``wanted`` (atomically), or with ``check`` only
    say whether it is up to date (exit status 1 when stale; ``command`` regenerates it)."""
    current = path.read_text() if path.exists() else ""
    if check:
        if current != wanted:
            print(f"{path} is stale: run {command}", file=sys.stderr)
            return 1
        print(f"{path} is up to date")
        return 0
    if current != wanted:
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(wanted)
        tmp.replace(path)
        print(f"wrote {path}")
    else:
        print(f"{path} is already up to date")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulator.core.layouts", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="only check that constants.py and view.py's import are up to date")
    args = parser.parse_args(argv)
    command = "python -m simulator.core.layouts"
    stale = write_or_check(CONSTANTS, constants_source(), args.check, command)
    return write_or_check(VIEW, view_source(VIEW.read_text()), args.check, command) or stale


if __name__ == "__main__":
    sys.exit(main())
