"""Test tiers and the environment every test runs in.

``pytest`` runs the fast tier (``addopts = -m 'not slow'`` in pyproject.toml); the tests
listed in ``SLOW`` below carry the ``slow`` marker and run with ``pytest -m "slow or not
slow"`` (as ``.ci/run`` does).  A test is slow when it compiles numba kernels cold in a child
process (a fresh cache directory, an edited source tree, a new plug-in engine), waits on a
child process through a long run, or plays a large sample (100,000 hands per preset, the
brute-force oracle over 250,000 hands, OpenSpiel replays).  Listing them here, by test
function (every parametrisation included), keeps the test modules as they are; ``FAST_ONLY``
keeps some parametrisations of a few tests in the fast tier and makes the others slow.  A slow test
named by its id (``pytest tests/test_runner.py::test_resume_after_kill_gives_the_uninterrupted_dataset``)
runs without ``-m``.

Child processes (``python -m simulator.cli ...``) import this checkout: its root is put
first on ``PYTHONPATH``, whatever ginsim is installed in the interpreter.  Every test plays
on the engine routing all strategies (``GINSIM_ENGINE=all``), except where a test says
otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
#: the session and its children play dozens of different strategy pairs: one engine routing
#: every strategy, compiled once, instead of one per new pair (``GINSIM_ENGINE``,
#: ``simulator.engine.select.engine_module``); children that compile into a fresh cache set
#: ``call``, the default a user gets
os.environ["GINSIM_ENGINE"] = "all"

#: the compile notice (``simulator.infra.cache.announce_compile``) is printed once per process,
#: at the first compile: in the test process that would be whichever test compiles first, and
#: tests read the command line's stderr line by line, so the session counts it as printed
#: (the tests of the notice set it back with monkeypatch)
from simulator.infra import cache as _cache  # noqa: E402

_cache._STATE["announced"] = True

#: "module::test function" of every slow test (all its parametrisations)
SLOW = frozenset({
    # cold compiles in a child: a fresh cache directory or an edited copy of the sources
    "test_cache_safety.py::test_edit_takes_effect_with_numba_cache_dir_set",
    "test_cache_safety.py::test_edit_takes_effect_when_the_cache_dir_is_not_writable",
    "test_cache_safety.py::test_corrupted_cache_files_are_recompiled",
    "test_cache_safety.py::test_a_directory_numba_remakes_after_clearing_is_marked",
    # a child compiling plug-in engines (one per plug-in file)
    "test_engine_guards.py::test_a_plugin_writing_into_the_pile_is_stopped_and_named",
    "test_engine_guards.py::test_the_engine_never_takes_a_card_that_was_not_on_its_pile",
    "test_engine_guards.py::test_a_plugin_writing_into_the_rules_is_stopped_and_results_do_not_depend_on_threads",
    "test_engine_guards.py::test_a_plugin_writing_into_its_parameters_is_stopped_and_named",
    "test_engine_guards.py::test_an_illegal_discard_names_strategy_decision_value_and_deal",
    "test_plugins.py::test_plugin_strategy_from_outside_the_package",
    "test_plugins.py::test_an_edited_plugin_plays_as_edited",
    "test_plugin_errors.py::test_registering_compiles_into_the_cache",
    "test_plugin_errors.py::test_ginsim_simulate_plays_a_plugin",
    # a fresh interpreter per module; a notebook kernel; an installed wheel in a new venv
    "test_notebook.py::test_the_example_notebook_runs",
    "test_wheel.py::test_the_installed_wheel_runs_the_quick_start_from_an_empty_directory",
    # children killed mid-run, then resumed; a local Dask cluster; a study reproduced end to end
    "test_runner.py::test_resume_after_kill_gives_the_uninterrupted_dataset",
    "test_runner.py::test_dask_local_cluster_matches_local_backend",
    "test_trustworthy_runs.py::test_local_workers_exit_when_the_main_process_is_killed",
    "test_tune.py::test_a_study_killed_with_sigkill_resumes_to_the_full_trial_count",
    "test_tune_kill.py::test_ginsim_tune_killed_with_sigkill_resumes_to_the_uninterrupted_tuning",
    "test_tune_kill.py::test_ginsim_exploit_killed_inside_a_trial_resumes_to_the_uninterrupted_best_response",
    "test_tune_kill.py::test_ginsim_equilibrium_killed_inside_a_best_response_resumes_to_the_uninterrupted_equilibrium",
    # tunings on the engine: a best response, a two-iteration double oracle, a resume (about 20 s together)
    "test_equilibrium.py::test_exploit_finds_an_edge_over_simple_under_tournament",
    "test_equilibrium.py::test_equilibrium_runs_resumes_and_reports",
    "test_equilibrium.py::test_a_run_interrupted_in_its_first_best_response_resumes",
    "test_reproduce.py::test_reproduce_a_study_into_a_copy_of_its_committed_results",
    # a child compiling the kernels of an edited copy of a plug-in
    "test_trustworthy_runs.py::test_resume_and_replay_refuse_a_run_played_by_other_code",
    # children compiling plug-in engines for the trust checks
    "test_trust_rundir.py::test_replay_runs_a_runs_plugins_only_when_trusted",
    "test_trust_edges.py::test_a_plugin_writing_past_the_end_of_its_memory_is_stopped_and_named",
    "test_plugin_bounds.py::test_an_out_of_bounds_plugin_is_refused_in_one_line",
    "test_plugin_bounds.py::test_ginsim_simulate_refuses_an_out_of_bounds_plugin",
    "test_plugin_bounds.py::test_ctrl_c_stops_a_plugin_that_never_returns_at_registration",
    "test_trust_inputs.py::test_an_edited_helper_module_is_played_and_changes_the_plugin_identity",
    "test_trust_rundir.py::test_a_crafted_plugin_is_never_imported",
    # both engines compiled and compared; kernels compiled for a test's own rollout
    "test_engine.py::test_an_engine_for_the_call_plays_the_rows_of_the_engine_for_all",
    "test_vector_env.py::test_the_env_compiles_against_an_engine_for_its_opponent_and_plays_as_with_all",
    "test_state_phases.py::test_a_numba_rollout_from_a_copied_mid_hand_state",
    # OpenSpiel's own game stepped hand by hand from Python
    "test_interop_openspiel.py::test_the_bot_moves_the_same_whatever_the_opponents_hidden_cards",
    "test_interop_openspiel.py::test_openspiel_simple_plays_inside_ginsim",
    "test_interop_openspiel.py::test_the_filled_history_is_a_legal_openspiel_hand",
    # whole games at Python speed
    "test_python_players.py::test_python_driver_reproduces_numba_games",
    # several runs started at once as children
    "test_trustworthy_runs.py::test_two_runs_started_at_once_never_mix",
    # the docs tier: every console and pycon block of the README and the docs, run (the quick
    # start's 800,000 deals, the RL and hand history examples)
    "test_docs_blocks.py::test_docs_run_as_written_and_print_what_they_say",
    # large samples
    "test_ledger_trust.py::test_verify_replays_the_cheapest_headline_claim_from_its_plan",
    "test_rules_oracle.py::test_layoff_random_deals",
    "test_rules_oracle.py::test_layoff_meld_dense_deals",
    "test_engine_reference.py::test_game_hand_guard_matches_reference",
    "test_strategies.py::test_every_builtin_plays_100k_legal_hands_per_preset",
    "test_engine.py::test_invariants_over_100k_random_hands",
    "test_rules_oracle.py::test_optimal_discards_and_min_deadwood_random_hands",
    "test_rules_oracle.py::test_optimal_discards_and_min_deadwood_meld_dense_hands",
    "test_env.py::test_random_masked_play_ends_legally_with_the_hands_points",
    "test_openspiel_crosscheck.py::test_all_replayed_deals_match",
    "test_openspiel_crosscheck.py::test_enough_deals_replayed",
    "test_openspiel_crosscheck.py::test_skips_only_in_documented_categories",
    "test_openspiel_crosscheck.py::test_skipped_deals_are_genuine",
    "test_interop_openspiel.py::test_cross_engine_agreement_on_the_same_decks",
})

#: parametrised tests whose other parametrisations are slow: the fast tier keeps the ones
#: named here (the rule variants that exercise the most distinct code), the slow tier runs all
FAST_ONLY = {
    "test_engine_reference.py::test_deals_match_reference": {"hoyle", "last_discard"},
    "test_engine_reference.py::test_games_match_reference": {"hoyle", "next_dealer_loser"},
    "test_reproduce.py::test_force_refuses_a_file_ginsim_did_not_write_and_removes_nothing": {"report.md"},
    # a tuning interrupted in this process at twelve points (about 1.5 s each): three in the fast tier
    "test_tune_resume.py::test_a_tuning_interrupted_anywhere_resumes_to_the_uninterrupted_study": {
        "a TPE trial in its second rung", "the polish's neighbours queued, none played", "Ctrl-C in a TPE trial"},
    "test_tune_resume.py::test_other_samplers_and_pruners_resume_to_the_uninterrupted_study_too": {
        "random-hyperband-37"},
}


def _is_slow(item: pytest.Item) -> bool:
    key = _key(item)
    if key in SLOW:
        return True
    keep = FAST_ONLY.get(key)
    callspec = getattr(item, "callspec", None)
    return keep is not None and callspec is not None and callspec.id not in keep


def _key(item: pytest.Item) -> str:
    return f"{Path(item.location[0]).name}::{item.originalname if hasattr(item, 'originalname') else item.name}"


def _named(config: pytest.Config) -> set[str]:
    """The tests named on the command line by id (``tests/test_x.py::test_y``)."""
    named = set()
    for arg in config.args:
        if "::" in arg:
            path, name = arg.split("::")[:2]
            named.add(f"{Path(path).name}::{name.split('[')[0]}")
    return named


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow tests; one named by its id on the command line runs even in the fast tier."""
    named = _named(config)
    for item in items:
        if _is_slow(item) and _key(item) not in named:
            item.add_marker(pytest.mark.slow)



@pytest.fixture
def fresh_engine_choice(monkeypatch):
    """A function ``choose(value)``: from then on ``engine_module`` acts as in a process that
    has played nothing yet, with an empty cache and ``GINSIM_ENGINE`` set to ``value`` (the
    session sets ``all``, above)."""
    from simulator.engine import select

    def choose(choice: str) -> None:
        monkeypatch.setenv(select.ENGINE_ENV, choice)
        monkeypatch.setattr(select, "_WILL_PLAY", set())
        monkeypatch.setattr(select, "_BUILT", [])
        monkeypatch.setattr(select, "kernels_compiled", lambda *a, **k: False)  # as with an empty cache

    return choose
