"""The Optuna study as the tuner reads it: the library made quiet, the finished trials and
the best one."""

from __future__ import annotations

import warnings

from .spec import TuneError


def _optuna():
    """Optuna, with its info logging and experimental-feature warnings off."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


def _finished(study) -> list:
    """The trials that ran to an end: complete or pruned."""
    optuna = _optuna()
    return study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED))


def _best_trial(study):
    """The complete trial of the highest value (the earliest of equals); ``TuneError`` when
    none completed."""
    optuna = _optuna()
    complete = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    if not complete:
        raise TuneError("no trial completed: raise trials or the budget")
    return max(complete, key=lambda t: (t.value, -t.number))
