"""The checks a plug-in passes before ``strategies.registry.register`` accepts it.

``check_contract`` compiles each decision function of the plug-in for the exact argument
types the engine passes (``contract_types``) and checks what it returns; contract
violations become one-line ``ValueError``s naming the file, the function and the cause.
``check_bounds`` then runs bounds-checked copies of the decision functions on real decision
inputs from a few deals, so an index out of bounds is refused at registration instead of
crashing the batch engine, which runs unchecked (it sees only the sampled states;
docs/strategies.md says so).
"""

from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from simulator.core.decisions import BY_NAME

from .plugins import CONTRACT, DECISIONS, OPTIONAL_DECISIONS, SEE_CONTRACT, library_dirs, one_line

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def contract_types() -> tuple:
    """The numba argument types the engine calls every decision function with: params
    float64, then view, pile, rules, rng (uint64) and memory, all C-contiguous 1-d slices."""
    from numba.core import types

    def c(dtype):
        return types.Array(dtype, 1, "C")

    return (c(types.float64), c(types.int64), c(types.int64), c(types.int64), c(types.uint64), c(types.int64))


def _integer(t) -> bool:
    from numba.core import types

    # uint64 would turn the engine's integer arithmetic into float64
    return isinstance(t, types.Integer) and (t.signed or t.bitwidth < 64)


def _return_problem(decision: str, rtype) -> str | None:
    from numba.core import types

    if decision in ("take_nb", "knock_nb"):
        ok, wanted = isinstance(rtype, types.Boolean) or _integer(rtype), "a boolean"
    elif decision == "discard_nb":
        ok, wanted = _integer(rtype), "an integer card code"
    else:  # arrange_nb, defend_nb
        ok = isinstance(rtype, types.BaseTuple) and len(rtype.types) == 2 and all(_integer(t) for t in rtype.types)
        wanted = "a tuple of two integers (sets, runs)"
    return None if ok else f"must return {wanted}, it returns {rtype}"


def _numba_summary(exc: BaseException, copy: str, original: str) -> str:
    """The first meaningful line of a numba compile error, with the plug-in line it names."""
    text = _ANSI.sub("", str(exc)).replace(copy, original)
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith(("Failed in ", "During:"))]
    if not lines:
        return type(exc).__name__
    first = lines[0]
    if first.endswith(":") and len(lines) > 1:
        first = f"{first} {lines[1]}"
    where = ""
    match = re.search(r'File "([^"]+)", line (\d+)', text)
    if match:
        file = match.group(1)
        same = Path(file).name in (Path(copy).name, Path(original).name)
        where = f"line {match.group(2)}: " if same else f"{file}, line {match.group(2)}: "
    return one_line(where + first)


def check_contract(name: str, module: ModuleType, path: str) -> None:
    """Compile each decision function of a plug-in for the exact argument types the engine
    passes and check what it returns; a problem raises a one-line ValueError naming the
    strategy, the file, the function and numba's error.  Compiled code goes to numba's
    cache (caching is turned on for functions without ``cache=True``), so checking a
    plug-in a second time only loads it.  Then ``check_bounds``."""
    from numba.core.caching import NullCache

    signature = contract_types()
    copy = str(getattr(module, "__file__", "") or "")
    for decision in DECISIONS + tuple(d for d in OPTIONAL_DECISIONS if hasattr(module, d)):
        func = getattr(module, decision)
        where = f"strategy {name!r} ({path}): {decision}"
        try:
            inspect.signature(func.py_func).bind(*range(6))
        except (TypeError, ValueError):
            raise ValueError(f"{where} must take the 6 arguments (params, view, pile, rules, rng, memory); "
                             f"{SEE_CONTRACT}") from None
        if isinstance(getattr(func, "_cache", None), NullCache):
            try:
                func.enable_caching()
            except Exception:  # a function numba cannot cache still works, compiled each run
                pass
        try:
            func.compile(signature)
            rtype = func.overloads[signature].signature.return_type
        except Exception as exc:
            raise ValueError(f"{where} does not compile for the engine's arguments ({CONTRACT}): "
                             f"{_numba_summary(exc, copy, path)}; {SEE_CONTRACT}") from None
        problem = _return_problem(decision, rtype)
        if problem:
            raise ValueError(f"{where} {problem}; {SEE_CONTRACT}")
    check_bounds(name, module, path)


# -------------------------------------------------------------------- out-of-bounds accesses

#: sample deals for ``check_bounds``: (rules preset, seed, deals); a few presets so gin-only,
#: single-hand and Oklahoma knock limits are among the states
BOUNDS_DEALS = (("hoyle", 0, 4), ("oklahoma", 1, 2), ("gin_only", 2, 2))
#: the length of the discard-pile copy the engine lends a strategy (``simulator.engine.work``)
PILE_COPY_LEN = 64


@dataclass(frozen=True)
class _SampleHand:
    """One hand played by ``_decision_samples``: the rules vector, each seat's stream key at
    the deal, and every decision asked in order as (seat, decision, view, pile copy)."""

    rules: object
    rng_keys: tuple[int, int]
    steps: tuple


def _sample_action(state, legal, phase: str, chooser) -> int:
    """A plausible move, so the sampled hands reach knocks, layouts and defences: discard
    to least deadwood, knock when allowed, the first layout or defence, else a seeded
    choice."""
    import numpy as np

    from simulator.core import state as S
    from simulator.core.hand_reading import hand_of, seat_to_act
    from simulator.core.melds import discard_deadwoods_nb

    if phase == "discard":
        cards = hand_of(state, seat_to_act(state))
        allowed = sum(1 << (a - S.A_DISCARD) for a in legal)
        best = int(discard_deadwoods_nb(np.int64(cards), np.int64(allowed))[1])
        return next(a for a in legal if best >> (a - S.A_DISCARD) & 1)
    if phase == "knock" and S.A_KNOCK in legal:
        return S.A_KNOCK
    if phase in ("arrange", "defend"):
        return legal[0]
    return legal[int(chooser.integers(len(legal)))]


@functools.lru_cache(maxsize=1)
def _decision_samples() -> tuple[_SampleHand, ...]:
    """Real decision inputs, as the engine lends them: the deals of ``BOUNDS_DEALS``, dealt
    with the batch engine's decks, dealers and streams (``simulator.core.rng``, as
    ``simulator.Hand`` deals them) and played by the hand state machine
    (``simulator.core.state``) with ``_sample_action``'s moves; every state a seat is asked
    in gives its view (``N_VIEW`` long), its pile copy (``PILE_COPY_LEN`` long, the pile
    first) and the rules vector."""
    import numpy as np

    from simulator.core import state as S
    from simulator.core.hand_reading import phase_of, pile_of, reset_trace, seat_to_act
    from simulator.core.rng import deal_streams_nb, numpy_generator
    from simulator.core.rules import resolve_rules
    from simulator.core.view_fill import view_of

    hands = []
    legal, trace = np.zeros(S.MAX_LEGAL, np.int64), np.zeros((64, 3), np.int64)
    for preset, seed, deals in BOUNDS_DEALS:
        rules = resolve_rules(preset).to_array()
        chooser = numpy_generator(seed)
        for deal in range(deals):
            deck, deck_rng, streams = np.empty(52, np.int64), np.zeros(1, np.uint64), np.zeros(2, np.uint64)
            _, dealer, _ = deal_streams_nb(np.uint64(seed), np.int64(deal), True, deck, deck_rng, streams)
            state = np.zeros(S.N_STATE, np.int64)
            S.deal_nb(state, deck, np.int64(dealer), np.int64(0), np.int64(0), rules,
                      deck_rng.view(np.int64)[0], trace)
            steps = []
            while seat_to_act(state) >= 0:
                seat, phase = seat_to_act(state), S.PHASE_NAMES[phase_of(state)]
                pile = np.zeros(PILE_COPY_LEN, np.int64)
                cards = pile_of(state)
                pile[:len(cards)] = cards
                steps.append((seat, BY_NAME[phase].function, view_of(state, seat), pile))
                moves = legal[:S.legal_actions_nb(state, rules, legal)].tolist()
                reset_trace(state)
                if S.apply_action_nb(state, rules, _sample_action(state, moves, phase, chooser), trace) != S.ERR_NONE:
                    break  # cannot happen: the move is one of the legal ones
            hands.append(_SampleHand(rules, (int(streams[0]), int(streams[1])), tuple(steps)))
    return tuple(hands)


def _user_code(func) -> bool:
    """True for a function defined outside the standard library, installed packages and
    ginsim (the user's plug-in or a module of its own)."""
    code = getattr(func, "__code__", None)
    if code is None or code.co_filename.startswith("<"):
        return False
    return not str(Path(code.co_filename).resolve()).startswith(library_dirs())


def _names_used(code) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _names_used(const)
    return names


def _bounds_checked(dispatcher, copies: dict):
    """A copy of numba function ``dispatcher`` compiled with bounds checking and no cache
    (the function's own cache files are left alone), with every numba function of the
    user's own code it calls by a global name checked the same way; ginsim's and other
    libraries' functions are called as they are (``simulator.infra.jit.bounds_checked``)."""
    from numba.core.registry import CPUDispatcher

    from simulator.infra.jit import bounds_checked

    key = id(dispatcher)
    if key in copies:
        return copies[key] or dispatcher  # None: being copied (recursion) -> the original
    copies[key] = None
    py_func = dispatcher.py_func
    env = dict(py_func.__globals__)
    for name in _names_used(py_func.__code__):
        value = env.get(name)
        if isinstance(value, CPUDispatcher) and _user_code(value.py_func):
            env[name] = _bounds_checked(value, copies)
    clone = type(py_func)(py_func.__code__, env, py_func.__name__, py_func.__defaults__, py_func.__closure__)
    clone.__qualname__ = py_func.__qualname__
    # the trial runs on a pool thread (``check_bounds``): the copy releases the GIL
    copies[key] = checked = bounds_checked(dispatcher)(clone)
    return checked


def check_bounds(name: str, module: ModuleType, path: str) -> None:
    """Run bounds-checked copies of a plug-in's decision functions (``_bounds_checked``) on
    real decision inputs (``_decision_samples``: each seat's memory zeroed each hand and
    kept across its calls, its own random stream), so an index outside an array raises
    here, as a one-line ValueError naming the strategy, the file and the function, instead
    of crashing or corrupting the batch engine, which runs without bounds checks.  Only
    the sampled states are tried: an access that only a rare state reaches is not seen.

    The trial runs on a pool thread (``simulator.infra.blocks.run_blocks``), as the batch
    engine's blocks do, so a decision that never returns on a sampled state is stopped by
    Ctrl-C like a stuck batch: the process ends with status 130 and one line."""
    import numpy as np

    from simulator.infra import blocks
    from strategies.view import N_MEMORY, N_PARAMS

    params = np.zeros(N_PARAMS, np.float64)
    values = list(getattr(module, "PARAMS", {}).values())
    params[:len(values)] = values
    decisions = [d for d in DECISIONS + tuple(OPTIONAL_DECISIONS) if hasattr(module, d)]
    copies: dict = {}
    checked = {d: _bounds_checked(getattr(module, d), copies) for d in decisions}
    signature = contract_types()
    for decision, func in checked.items():
        try:
            func.compile(signature)
        except Exception as exc:  # compiled already without bounds checks: report as check_contract does
            copy = str(getattr(module, "__file__", "") or "")
            raise ValueError(f"strategy {name!r} ({path}): {decision} does not compile with bounds checking: "
                             f"{_numba_summary(exc, copy, path)}") from None
    samples = _decision_samples()

    def try_samples(start: int, stop: int) -> None:
        for sample in samples:
            memory = np.zeros((2, N_MEMORY), np.int64)
            rng = np.array([[sample.rng_keys[0]], [sample.rng_keys[1]]], np.uint64)
            for seat, decision, view, pile in sample.steps:
                func = checked.get(decision)
                if func is None:
                    continue  # an optional decision the plug-in leaves to the default
                try:
                    func(params.copy(), view.copy(), pile.copy(), sample.rules.copy(), rng[seat], memory[seat])
                except IndexError:
                    raise ValueError(
                        f"strategy {name!r} ({path}): {decision}: index out of bounds on a real decision input "
                        f"(view is {len(view)} long, pile {len(pile)}, rules {len(sample.rules)}, "
                        f"params {N_PARAMS}, rng 1, memory {N_MEMORY}); {SEE_CONTRACT}") from None
                except Exception:
                    break  # another error in this hand (e.g. a division by zero) is not checked here

    blocks.run_blocks(try_samples, 1, threads=1)
