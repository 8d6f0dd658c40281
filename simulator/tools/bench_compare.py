"""``ginsim bench``'s comparisons: how ginsim's engine stands against other engines, and how its
own slower front ends stand against its engine, each measured back to back in one run.

* OpenSpiel's ``gin_rummy`` played by its own C++ simple bot, against ginsim's ``simple`` vs
  ``simple`` on one thread (``bench_openspiel``; when ``open_spiel`` is installed);
* the one-hand step path, ``simulator.engine.hand.Hand`` (``bench_step_path``), beside
  OpenSpiel's ``pyspiel`` state played at random;
* plain-Python strategies driven by ``simulator.engine.pydriver`` (``bench_python_players``),
  against numba ``simple``;
* the RL environments (``bench_rl_env``): ``GinRummyVectorEnv`` beside RLCard's and OpenSpiel's
  (when installed).

``print_comparisons`` prints them after the engine's own tables (``simulator.tools.bench``).
"""

from __future__ import annotations

import time

import numba
import numpy as np

from ..core.rng import numpy_generator, python_random
from ..infra.jit import ALLOCATES
from .timing import best_time


def bench_openspiel(n_hands: int = 2000, repeats: int = 3) -> dict | None:
    """OpenSpiel's C++ simple bot against itself, and our simple vs simple, one core each."""
    try:
        import pyspiel
    except ImportError:
        return None
    from ..api import play_deal_records

    game = pyspiel.load_game("gin_rummy")
    bots = [pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p) for p in range(2)]
    initial = game.new_initial_state()

    def openspiel_hands():
        for i in range(n_hands):
            pyspiel.evaluate_bots(initial.clone(), bots, i)

    openspiel_hands()
    theirs = n_hands / best_time(openspiel_hands, repeats)
    theirs_cpu = n_hands / best_time(openspiel_hands, repeats, time.process_time)
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        n = 400_000

        def our_deals():
            play_deal_records("simple", "simple", "single_hand", 0, n, seed=1)

        play_deal_records("simple", "simple", "single_hand", 0, 2, seed=1)
        ours = n / best_time(our_deals, repeats)
        ours_cpu = n / best_time(our_deals, repeats, time.process_time)
    finally:
        numba.set_num_threads(before)
    return {"openspiel_hands_per_s": theirs, "ginsim_deals_per_s_1_thread": ours, "ratio": ours / theirs,
            "openspiel_hands_per_cpu_s": theirs_cpu, "ginsim_deals_per_cpu_s": ours_cpu,
            "ratio_cpu": ours_cpu / theirs_cpu}


def bench_step_path(n_hands: int = 300, repeats: int = 3) -> dict:
    """The one-hand step path (``simulator.Hand``) in CPU time: ``bot_action`` per decision
    for ``simple`` (asked at every decision point of ``n_hands`` hands, on clones standing
    there), ``clone``, and a random-play step (``legal_actions`` + a random choice +
    ``apply``; the hand's deal included) beside OpenSpiel's ``pyspiel`` ``gin_rummy`` state
    played at random the same way (its chance nodes included), back to back in this run."""
    from ..engine.hand import Hand

    spots = []
    for deal in range(n_hands):
        h = Hand("single_hand", seed=1, deal=deal, a="simple", b="simple")
        while not h.is_over():
            spots.append(h.clone())
            h.apply(h.bot_action())

    def ask():
        for h in spots:
            h.bot_action()

    ask()
    bot_us = best_time(ask, repeats, time.process_time) / len(spots) * 1e6
    sample = spots[:: max(1, len(spots) // 2000)]

    def clones():
        for h in sample:
            for _ in range(10):
                h.clone()

    clone_us = best_time(clones, repeats, time.process_time) / (10 * len(sample)) * 1e6
    rng = python_random(7)
    steps = [0]

    def ours():
        choice = rng.choice
        for deal in range(n_hands):
            h = Hand("single_hand", seed=2, deal=deal)
            while not h.is_over():
                h.apply(choice(h.legal_actions()))
                steps[0] += 1

    ours()
    steps[0] = 0
    our_s = best_time(ours, 1, time.process_time)
    result = {"bot_action_us": bot_us, "clone_us": clone_us, "hand_steps_per_cpu_s": steps[0] / our_s,
              "decisions": len(spots)}
    try:
        import pyspiel
    except ImportError:
        return result
    game = pyspiel.load_game("gin_rummy")
    their_steps = [0]

    def theirs():
        choice = rng.choice
        for _ in range(n_hands):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(choice(state.chance_outcomes())[0])
                else:
                    state.apply_action(choice(state.legal_actions()))
                    their_steps[0] += 1

    theirs()
    their_steps[0] = 0
    their_s = best_time(theirs, 1, time.process_time)
    result["openspiel_steps_per_cpu_s"] = their_steps[0] / their_s
    result["step_ratio"] = result["hand_steps_per_cpu_s"] / result["openspiel_steps_per_cpu_s"]
    return result


def bench_python_players(n_deals: int = 4000, repeats: int = 3) -> list[dict]:
    """Plain-Python strategies (``strategies.pyplayer``) played by ``simulator.engine.pydriver``
    on one core: the greedy player and the trivial one (whose decisions cost almost
    nothing: the driver's own overhead) against numba ``simple``, with the numba
    ``simple`` vs ``simple`` on one thread as the ratio's base (hoyle rules)."""
    import strategies

    from ..api import play_deal_records

    for name, cls in (("py_greedy", strategies.GreedyPlayer), ("py_trivial", strategies.TrivialPlayer)):
        if name not in strategies.REGISTRY:
            strategies.register(name, cls)
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        play_deal_records("simple", "simple", "hoyle", 0, 2, seed=1)
        numba_rate = 200_000 / best_time(lambda: play_deal_records("simple", "simple", "hoyle", 0, 200_000, seed=1),
                                         repeats)
        rows = []
        for a in ("py_greedy", "py_trivial"):
            play_deal_records(a, "simple", "hoyle", 0, 2, seed=1)
            rate = n_deals / best_time(lambda: play_deal_records(a, "simple", "hoyle", 0, n_deals, seed=1), repeats)
            rows.append({"benchmark": f"{a} vs simple", "deals_per_s": rate, "numba_simple_vs_simple": numba_rate,
                         "ratio_to_numba": rate / numba_rate})
    finally:
        numba.set_num_threads(before)
    return rows


@ALLOCATES.python_entry
def _random_legal_nb(masks, u, out):
    """A uniformly random legal action per row of ``masks`` (0 for an empty row), from ``u``."""
    for i in range(masks.shape[0]):
        n = 0
        for j in range(masks.shape[1]):
            n += masks[i, j]
        out[i] = 0
        k = int(u[i] * n)
        for j in range(masks.shape[1]):
            if masks[i, j]:
                if k == 0:
                    out[i] = j
                    break
                k -= 1


def bench_rl_env(num_envs: int = 1024, seconds: float = 3.0) -> dict:
    """RL environment throughput in agent steps per CPU-second, observations included, back
    to back in this run: ``GinRummyVectorEnv`` (``num_envs`` hands against ``simple``,
    random legal actions; a step counts the sub-environments that had a decision), RLCard's
    ``gin-rummy`` env and OpenSpiel's ``rl_environment`` on ``gin_rummy`` (random legal play,
    every step of either player counted), each for about ``seconds`` of CPU time; the
    last two only when installed (``pip install rlcard``, ``open_spiel``)."""
    from ..env.vector import GinRummyVectorEnv

    env = GinRummyVectorEnv(num_envs, opponent="simple", rules="hoyle")
    obs, _ = env.reset(seed=1)
    rng = numpy_generator(1)
    actions = np.zeros(num_envs, np.int64)
    _random_legal_nb(obs["action_mask"], rng.random(num_envs), actions)
    env.step(actions)  # compiled and warm
    steps, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        masks = obs["action_mask"]
        _random_legal_nb(masks, rng.random(num_envs), actions)
        steps += int(masks.any(axis=1).sum())
        obs, *_ = env.step(actions)
    result = {"num_envs": num_envs, "ginsim_vector_steps_per_cpu_s": steps / (time.process_time() - t0)}
    choice = python_random(1).choice
    try:
        import rlcard
    except ImportError:
        rlcard = None
    if rlcard is not None:
        game = rlcard.make("gin-rummy", config={"seed": 1})
        steps, t0 = 0, time.process_time()
        while time.process_time() - t0 < seconds:
            state, _ = game.reset()
            while not game.is_over():
                state, _ = game.step(choice(list(state["legal_actions"])))
                steps += 1
        result["rlcard_steps_per_cpu_s"] = steps / (time.process_time() - t0)
        result["ratio_to_rlcard"] = result["ginsim_vector_steps_per_cpu_s"] / result["rlcard_steps_per_cpu_s"]
    try:
        from open_spiel.python import rl_environment
    except ImportError:
        rl_environment = None
    if rl_environment is not None:
        game = rl_environment.Environment("gin_rummy")
        game.seed(1)
        steps, t0 = 0, time.process_time()
        while time.process_time() - t0 < seconds:
            ts = game.reset()
            while not ts.last():
                player = ts.observations["current_player"]
                ts = game.step([choice(ts.observations["legal_actions"][player])])
                steps += 1
        result["openspiel_steps_per_cpu_s"] = steps / (time.process_time() - t0)
        result["ratio_to_openspiel"] = result["ginsim_vector_steps_per_cpu_s"] / result["openspiel_steps_per_cpu_s"]
    return result


def print_rl_env(r: dict) -> None:
    line = (f"\nRL environments, agent steps per CPU-second (observations included): GinRummyVectorEnv "
            f"({r['num_envs']} hands vs simple) {r['ginsim_vector_steps_per_cpu_s']:,.0f}")
    if "rlcard_steps_per_cpu_s" in r:
        line += f"; RLCard gin-rummy {r['rlcard_steps_per_cpu_s']:,.0f} (ratio {r['ratio_to_rlcard']:.0f}x)"
    if "openspiel_steps_per_cpu_s" in r:
        line += (f"; OpenSpiel rl_environment {r['openspiel_steps_per_cpu_s']:,.0f} "
                 f"(ratio {r['ratio_to_openspiel']:.0f}x)")
    print(line)


def print_comparisons(result: dict) -> None:
    """Print the comparisons of a ``simulator.tools.bench.run`` result: OpenSpiel's C++ bot, the
    RL environments, the step path and the plain-Python players, each when measured."""
    osp = result["openspiel"]
    if osp is None:
        print("OpenSpiel: not installed (pip install open_spiel) - comparison skipped")
    else:
        print(f"OpenSpiel gin_rummy, C++ simple bot, 1 core: {osp['openspiel_hands_per_s']:,.0f} hands/s; "
              f"ginsim simple vs simple, 1 thread: {osp['ginsim_deals_per_s_1_thread']:,.0f} deals/s; "
              f"ratio {osp['ratio']:.0f}x wall; per CPU-second {osp['openspiel_hands_per_cpu_s']:,.0f} against "
              f"{osp['ginsim_deals_per_cpu_s']:,.0f}: ratio {osp['ratio_cpu']:.0f}x")
    if result.get("rl_env"):
        print_rl_env(result["rl_env"])
    sp = result.get("step_path")
    if sp:
        line = (f"\nsimulator.Hand step path (CPU time): bot_action (simple) {sp['bot_action_us']:.2f} us per "
                f"decision, clone {sp['clone_us']:.2f} us, random-play step {sp['hand_steps_per_cpu_s']:,.0f}/s")
        if "step_ratio" in sp:
            line += (f"; OpenSpiel pyspiel state, random play: {sp['openspiel_steps_per_cpu_s']:,.0f} steps/s; "
                     f"ratio {sp['step_ratio']:.2f}x")
        print(line)
    print(f"\n{'plain-Python strategy, 1 core':<32}{'deals/s':>10}{'numba simple vs simple':>24}{'ratio':>10}")
    for r in result.get("python_players", []):
        print(f"{r['benchmark']:<32}{r['deals_per_s']:>10,.0f}{r['numba_simple_vs_simple']:>24,.0f}"
              f"{r['ratio_to_numba']:>10.4f}")
