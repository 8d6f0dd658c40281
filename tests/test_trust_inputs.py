"""Trust, second pass (issue 30, inputs): what a careless or hostile user gives ginsim is
checked before it plays: RL actions are taken as the action space defines them, strategy
parameters are validated (never coerced), a plug-in's identity covers every module it
imports, and a Python strategy's errors are one line naming who, where and the user's own
file and line."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import simulator
import strategies


# ----------------------------------------------------------------------------- the RL envs

def _first_legal(obs) -> int:
    return int(np.flatnonzero(obs["action_mask"])[0])


def test_single_env_takes_a_0d_array_action_as_the_action_it_holds():
    """SB3's ``model.predict`` returns a 0-d array: it is a valid member of Discrete(143)
    and must play the same as the int (it used to end the episode as illegal, -25)."""
    pytest.importorskip("gymnasium")
    from simulator.env import GinRummySingleEnv

    plain, wrapped = GinRummySingleEnv("random", seat=0), GinRummySingleEnv("random", seat=0)
    obs_p, _ = plain.reset(seed=3)
    obs_w, _ = wrapped.reset(seed=3)
    done = False
    while not done:
        action = _first_legal(obs_p)
        obs_p, r_p, done, _, info_p = plain.step(action)
        obs_w, r_w, done_w, _, info_w = wrapped.step(np.array(action))
        assert (r_p, done) == (r_w, done_w) and not info_w.get("illegal_action")
        assert np.array_equal(obs_p["observation"], obs_w["observation"])
    with pytest.raises(ValueError, match=r"not a member of the action space Discrete\(143\)"):
        wrapped.reset(seed=3)
        wrapped.step(3.0)
    with pytest.raises(ValueError, match="not a member"):
        wrapped.step(np.array([1, 2]))


def test_single_env_refuses_step_after_the_episode_instead_of_paying_again():
    pytest.importorskip("gymnasium")
    from simulator.env import GinRummySingleEnv

    env = GinRummySingleEnv("random", seat=0)
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(illegal)
    assert reward == -25.0 and done and info["illegal_action"]
    with pytest.raises(RuntimeError, match=r"episode is over: call reset\(\)"):
        env.step(_first_legal(obs))


def test_aec_env_step_and_last_after_the_episode_say_reset():
    pytest.importorskip("pettingzoo")
    from simulator.env import GinRummyEnv

    env = GinRummyEnv()
    env.reset(seed=2)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else np.array(_first_legal(obs)))
    assert env.agents == []
    for call in (env.last, lambda: env.step(0)):
        with pytest.raises(RuntimeError, match=r"call reset\(\)"):
            call()


# ----------------------------------------------------------------------------- parameters

@pytest.mark.parametrize("value", ["1e30", "0", "-5", "0.5", "1.9", "100001"])
def test_integral_parameters_refuse_out_of_range_and_fractional_values(value):
    """``mc:samples`` used to play all of these exactly like ``samples=1`` under its own label."""
    with pytest.raises(ValueError, match=rf"parameter 'samples' of strategy 'mc' must be an integer in 1 \.\. "
                                         rf"100000, got {value}$"):
        strategies.parse_strategy(f"mc:samples={value}")


def test_valid_parameters_keep_their_labels_and_rows():
    assert strategies.parse_strategy("mc:samples=8,search=7").label == "mc:samples=8,search=7"
    assert strategies.parse_strategy("simple:knock_at=0.2000001").label == "simple:knock_at=0.2000001"  # a real one
    for spec, problem in [("mc:search=8", "'search' of strategy 'mc' must be an integer in 0 .. 7"),
                          ("mc:candidates=12", "'candidates' of strategy 'mc' must be an integer in 1 .. 11"),
                          ("expert:layout=2", "'layout' of strategy 'expert' must be an integer in 0 .. 1"),
                          ("knock_policy:turn_a=2.5", "'turn_a' of strategy 'knock_policy' must be an integer")]:
        with pytest.raises(ValueError, match=problem):
            strategies.parse_strategy(spec)
    # every built-in default is inside its declared range (the registry checks it at import)
    for info in strategies.REGISTRY.values():
        for name, (low, high, integral) in info.ranges.items():
            assert low <= info.params[name] <= high and (not integral or info.params[name].is_integer())


def test_a_parameter_given_twice_is_refused_not_last_wins():
    with pytest.raises(ValueError, match="parameter 'knock_at' of strategy 'simple' is given twice"):
        strategies.parse_strategy("simple:knock_at=1,knock_at=5")


def test_nan_defaults_and_bad_ranges_are_refused_at_registration():
    class NanDefault(strategies.Player):
        PARAMS = {"knock_at": float("nan")}

    class OutOfRange(strategies.Player):
        PARAMS = {"n": 9}
        PARAM_RANGES = {"n": (1, 5)}

    with pytest.raises(ValueError, match=r"PARAMS\['knock_at'\] must be a finite number, got nan"):
        strategies.register("trust_nan_default", NanDefault)
    with pytest.raises(ValueError, match="the default of parameter 'n' must be an integer in 1 .. 5, got 9"):
        strategies.register("trust_out_of_range", OutOfRange)
    assert "trust_nan_default" not in strategies.REGISTRY and "trust_out_of_range" not in strategies.REGISTRY


def test_python_strategy_ranges_are_checked_like_numba_ones():
    from strategies.registry import PY_PLUGINS, REGISTRY

    class Bounded(strategies.Player):
        PARAMS = {"n": 3, "w": 0.5}
        PARAM_RANGES = {"n": (1, 5), "w": (0.0, 1.0)}

    strategies.register("trust_bounded", Bounded)
    try:
        assert strategies.parse_strategy("trust_bounded:n=5,w=0.25").values == {"n": 5.0, "w": 0.25}
        with pytest.raises(ValueError, match="'n' of strategy 'trust_bounded' must be an integer in 1 .. 5, got 6"):
            strategies.parse_strategy("trust_bounded:n=6")
        with pytest.raises(ValueError, match=r"'w' of strategy 'trust_bounded' must be a number in 0.0 .. 1.0, got 2"):
            strategies.parse_strategy("trust_bounded:w=2")
    finally:
        REGISTRY.pop("trust_bounded", None)
        PY_PLUGINS.pop("trust_bounded", None)


# ----------------------------------------------------------------------------- ginsim tune specs

_TUNE = """
name = "t"
strategy = "{strategy}"
trials = 4
{top}
[params]
{params}
[[opponents]]
strategy = "simple"
[[opponents]]
strategy = "gin_hunter"
[budget]
deals = {deals}
min_deals = 400
fresh_deals = {fresh}
"""


def _tune_spec(strategy="simple", params="knock_at = { low = 0, high = 10 }", deals=1_200, fresh=2_400, top=""):
    import tomllib

    from simulator.studies.tune import parse_spec

    return parse_spec(tomllib.loads(_TUNE.format(strategy=strategy, params=params, deals=deals, fresh=fresh,
                                                 top=top)), "spec.toml")


@pytest.mark.parametrize("changes, key, message", [
    ({"deals": 1_202}, "budget.deals", "1,202 is not a multiple of 4 .* give 1,200 or 1,204"),
    ({"fresh": 2_402}, "budget.fresh_deals", "2,402 is not a multiple of 4"),
    ({"top": 'out = "/tmp/elsewhere"'}, "out", "must be a directory inside the current directory"),
    ({"top": 'out = "../elsewhere"'}, "out", "must be a directory inside the current directory"),
    ({"strategy": "mc", "params": "samples = { low = 0, high = 8 }"}, "params.samples.low",
     "parameter 'samples' of strategy 'mc' must be an integer in 1 .. 100000, got 0"),
    ({"strategy": "mc", "params": "samples = { low = 1.5, high = 8.0 }"}, "params.samples",
     "samples is integral"),
])
def test_tune_spec_refuses_rounded_budgets_outside_outs_and_bad_ranges(changes, key, message):
    from simulator.studies.tune import TuneError

    with pytest.raises(TuneError, match=f"^spec.toml: {key}: {message}"):
        _tune_spec(**changes)
    assert _tune_spec(top='out = "results/sub/t"').out == "results/sub/t"


# ----------------------------------------------------------------------------- Python strategy errors

BAD_PLAYERS = '''\
import sys
from strategies import Player


class Raises(Player):
    def discard(self, obs):
        return helper(obs)


def helper(obs):
    raise RuntimeError("my bug")


class InitRaises(Player):
    def __init__(self, **params):
        super().__init__(**params)
        raise KeyError("setup")


class Recurses(Player):
    def knock(self, obs):
        return self.knock(obs)


class Exits(Player):
    def draw(self, obs):
        sys.exit(4)


class Answers(Player):
    def knock(self, obs):
        return "yes"
'''


def _bad_line(start: str) -> int:
    """The (last) 1-based line of BAD_PLAYERS that starts with ``start``."""
    return max(i for i, line in enumerate(BAD_PLAYERS.splitlines(), 1) if line.strip().startswith(start))


@pytest.fixture
def bad_players(tmp_path):
    from strategies.registry import PY_PLUGINS, REGISTRY

    path = tmp_path / "bad_players.py"
    path.write_text(BAD_PLAYERS)
    names = []

    def register(cls: str) -> str:
        name = f"trust_{cls.lower()}"
        strategies.register(name, f"{path}:{cls}")
        names.append(name)
        return name

    yield path, register
    for name in names:
        REGISTRY.pop(name, None)
        PY_PLUGINS.pop(name, None)


@pytest.mark.parametrize("cls, what, decision, line", [
    ("Raises", "raised RuntimeError: my bug", "discard", 'raise RuntimeError("my bug")'),
    ("InitRaises", "raised KeyError: 'setup'", "__init__", 'raise KeyError("setup")'),
    ("Recurses", r"recursed without end \(RecursionError", "knock", "return self.knock(obs)"),
    ("Exits", r"called sys.exit\(4\)", "first_upcard", "sys.exit(4)"),
    ("Answers", "returned 'yes'; expected True", "knock", "def knock(self, obs):"),
])
def test_a_python_strategy_failure_is_one_line_naming_who_where_and_the_users_line(bad_players, cls, what,
                                                                                   decision, line):
    """It used to be a full traceback through the generated copy (and ``sys.exit(4)`` ended
    the process with 4, silently), with no strategy, decision, cell or deal named."""
    from simulator.api import StrategyError

    path, register = bad_players
    name = register(cls)
    with pytest.raises(StrategyError) as err:
        simulator.simulate("simple", name, "hoyle", n_deals=6, seed=1)
    text = str(err.value)
    assert "\n" not in text and "ginsim-generated" not in text and "ginsim_plugin" not in text
    assert text.startswith(f"strategy '{name}' (B) ") and re.search(what, text), text
    assert f"at {path}, line {_bad_line(line)}" in text
    assert re.search(rf"\(decision: {decision}; deal \d+\)$", text), text


def test_ginsim_run_names_the_cell_and_exits_2_not_the_strategys_code(bad_players, tmp_path, capsys):
    from simulator.cli import main

    path, _ = bad_players
    spec = tmp_path / "exp.toml"
    spec.write_text(f'name = "e"\ndeals = 8\nseed = 1\nmatchups = [["simple", "random"], ["simple", "quits"]]\n'
                    f'[plugins]\nquits = "{path}:Exits"\n[variants.hoyle]\npreset = "hoyle"\n')
    try:
        code = main(["run", str(spec), "--out", str(tmp_path / "out"), "--quiet"])
    finally:
        from strategies.registry import PY_PLUGINS, REGISTRY

        REGISTRY.pop("quits", None)
        PY_PLUGINS.pop("quits", None)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("ginsim: error: strategy 'quits' (B) called sys.exit(4)")
    assert f"at {path}, line {_bad_line('sys.exit(4)')}" in err[0] and "cell 1, deal" in err[0]


# ----------------------------------------------------------------------------- plug-in code identity

HELPER = '''from numba import njit


@njit(cache=True)
def threshold():
    return {value}
'''


@pytest.fixture
def helper_plugin(tmp_path, monkeypatch):
    """A plug-in whose knock rule comes from ``from trust_helper_<n> import threshold``, a
    numba helper in its own module on ``sys.path``."""
    import sys

    from plugin_sources import greedy_plugin
    from strategies.registry import PLUGINS, REGISTRY

    helper = f"trust_helper_{tmp_path.name.replace('-', '_')}"
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / f"{helper}.py").write_text(HELPER.format(value=3))
    source = greedy_plugin("helped", knock="view[V_DEADWOOD] <= threshold()").replace(
        "from numba import njit\n", f"from numba import njit\nfrom {helper} import threshold\n")
    plugin = tmp_path / "helped.py"
    plugin.write_text(source)
    yield plugin, tmp_path / f"{helper}.py"
    REGISTRY.pop("trust_helped", None)
    PLUGINS.pop("trust_helped", None)
    sys.modules.pop(helper, None)


def _knocks_at_deadwood(info, deadwood: int) -> bool:
    from strategies.view import N_PARAMS, N_VIEW, V_DEADWOOD

    view = np.zeros(N_VIEW, np.int64)
    view[V_DEADWOOD] = deadwood
    empty = np.zeros(64, np.int64)
    return bool(info.module.knock_nb(np.zeros(N_PARAMS), view, empty, empty, np.zeros(1, np.uint64),
                                     np.zeros(8, np.int64)))


def test_an_edited_helper_module_is_played_and_changes_the_plugin_identity(helper_plugin):
    """A plug-in doing ``from helper import threshold`` kept playing the old helper after it
    was edited: its digest, module names and the run fingerprint hashed the plug-in file
    only, and numba's cached machine code had the old helper inlined."""
    import os

    from simulator.run.rundir import code_fingerprint

    plugin, helper = helper_plugin
    before = strategies.register("trust_helped", plugin)
    fingerprint = code_fingerprint({"trust_helped": str(plugin)})
    assert _knocks_at_deadwood(before, 3) and not _knocks_at_deadwood(before, 4)
    helper.write_text(HELPER.format(value=5))
    os.utime(helper, ns=(1, 1))  # a new mtime is not what tells the edit apart: the content does
    after = strategies.register("trust_helped", plugin)
    assert _knocks_at_deadwood(after, 5) and not _knocks_at_deadwood(after, 6)
    assert code_fingerprint({"trust_helped": str(plugin)}) != fingerprint
    assert after.module.__name__ != before.module.__name__ and after.sid == before.sid

    from strategies.plugins import import_closure, plugin_digest

    assert after.digest == plugin_digest(plugin) != before.digest
    closure = import_closure(plugin)
    assert closure.files == (plugin.resolve(), helper.resolve()) and not closure.missing


def test_import_closure_leaves_out_the_standard_library_ginsim_and_its_dependencies(tmp_path, monkeypatch):
    from strategies.plugins import import_closure

    monkeypatch.syspath_prepend(str(tmp_path))
    pkg = tmp_path / "trust_pkg_closure"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import inner\n")
    (pkg / "inner.py").write_text("import json\nfrom .deep import x\n")
    (pkg / "deep.py").write_text("x = 1\n")
    plugin = tmp_path / "p.py"
    plugin.write_text("import os, numpy, numba, pytest\nimport strategies.common\nfrom trust_pkg_closure import inner\n"
                      "try:\n    import trust_not_installed_anywhere\nexcept ImportError:\n    pass\n")
    closure = import_closure(plugin)
    assert closure.files == (plugin.resolve(), *sorted(p.resolve() for p in pkg.glob("*.py")))
    assert closure.missing == ("trust_not_installed_anywhere",)
    assert closure.distributions == (f"pytest=={pytest.__version__}",)  # installed, not a ginsim dependency


# ----------------------------------------------------------------------------- smaller inputs

def test_score_hand_refuses_impossible_hands():
    """K = 0 without gin used to be scored as an undercut, and negative deadwood was scored."""
    with pytest.raises(ValueError, match=r"knocker_deadwood=0 needs gin=True"):
        simulator.score_hand(0, 20, gin=False, rules="hoyle")
    with pytest.raises(ValueError, match=r"knocker_deadwood=5 needs gin=False"):
        simulator.score_hand(5, 20, gin=True, rules="hoyle")
    with pytest.raises(ValueError, match="defender_deadwood must be an integer from 0 to 98"):
        simulator.score_hand(5, -3, gin=False, rules="hoyle")
    with pytest.raises(ValueError, match="knocker_deadwood must be an integer from 0 to 98"):
        simulator.score_hand(7.5, 3, gin=False, rules="hoyle")
    with pytest.raises(ValueError, match="big gin is gin"):
        simulator.score_hand(0, 3, gin=False, big_gin=True, rules="hoyle")
    assert tuple(simulator.score_hand(7, 5, gin=False, rules="hoyle")) == ("defender", 22, True)
    assert tuple(simulator.score_hand(0, 0, gin=True, rules="hoyle")) == ("knocker", 25, False)


def test_a_utf8_bom_in_a_toml_file_is_read_not_an_invalid_statement(tmp_path):
    from simulator.run.experiment import load_experiment

    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + b'name = "bom"\ndeals = 10\nmatchups = [["simple", "random"]]\n'
                     b'[variants.hoyle]\npreset = "hoyle"\n')
    assert load_experiment(path).name == "bom"


def test_ginsim_simulate_refuses_an_odd_mirrored_deal_count(capsys):
    from simulator.cli import main

    assert main(["simulate", "simple", "random", "--deals", "7"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("ginsim: error: --deals must be even for mirrored deals (they come in pairs), got 7: "
                           "give 6 or 8, or add --no-mirror")


def test_ctrl_c_stops_a_batch_whose_kernel_never_returns(tmp_path):
    """Compiled code cannot be interrupted: a plug-in's endless loop used to make Ctrl-C do
    nothing (the caller waited for the block forever).  The blocks run on pool threads, so
    the caller sees the interrupt, and a block still running after the grace period ends
    the process with status 130 and one line.  (A kernel that blocks the signal and sleeps in
    C stands in for the stuck compiled one: no compile needed.)"""
    import os
    import subprocess
    import sys

    script = tmp_path / "stuck.py"
    script.write_text(
        "import os, signal, threading, time\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, even if run in the background\n"
        "from simulator.infra import blocks\n"
        "blocks.INTERRUPT_GRACE_S = 0.5\n"
        "def kernel(start, stop):  # like compiled code: no Python signal handler ever runs in it\n"
        "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})\n"
        "    time.sleep(1000)\n"
        "threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
        "blocks.run_blocks(kernel, 10, threads=1)\n")
    root = str(Path(simulator.__file__).parent.parent)
    try:
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=30, cwd=root,
                              env={**os.environ, "PYTHONPATH": root})
    except subprocess.TimeoutExpired:
        pytest.fail("Ctrl-C was ignored while a kernel did not return")
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "ginsim: interrupted, but a kernel has not returned 0.5 s later (an endless loop in a strategy's compiled "
        "code?); stopping the process"]
