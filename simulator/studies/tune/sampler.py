"""The tuning's sampler: Optuna's sampler of the spec, seeded afresh for every trial.

An Optuna sampler draws from one random stream, seeded once when the sampler is made and
consumed by every trial it samples.  A tuning resumed in a new process makes a new sampler,
whose stream starts again from the seed: the first trial sampled after the resume draws
what the first trial of the study drew, not what the uninterrupted tuning drew at that
point, and the search goes elsewhere.  ``TrialSeeded`` makes the spec's sampler again for
each trial, seeded by the spec's seed and the trial's number (``derive_seed(seed,
"sampler", number, salt=TUNE_SALT)``), so the candidate trial k gets is a function of the seed, k and the
trials finished before it (which the sampler reads from the study) and of nothing the
process did before: a resumed tuning proposes exactly what the uninterrupted one did, with
TPE, random sampling and CMA-ES alike (CMA-ES keeps its state in the finished trials).
"""

from __future__ import annotations

from collections.abc import Callable

import optuna

from ...run.seeds import derive_seed
from .field import TUNE_SALT
from .spec import TuneSpec


class TrialSeeded(optuna.samplers.BaseSampler):
    """An Optuna sampler that makes its inner sampler (``make(seed)``) again for every trial,
    seeded by ``derive_seed(seed, "sampler", trial number, salt=TUNE_SALT)``; each call goes to the inner
    sampler of its trial."""

    def __init__(self, make: Callable[[int], optuna.samplers.BaseSampler], seed: int):
        self._make = make
        self._seed = seed
        self._number: int | None = None
        self._inner: optuna.samplers.BaseSampler | None = None

    def _of(self, trial) -> optuna.samplers.BaseSampler:
        """The inner sampler of ``trial``, made at its first call for that trial."""
        if self._inner is None or trial.number != self._number:
            self._number = trial.number
            self._inner = self._make(derive_seed(self._seed, "sampler", trial.number, salt=TUNE_SALT) % 2**32)
        return self._inner

    def before_trial(self, study, trial) -> None:
        self._inner = None  # a trial starts from its own seed, even one played again under its number
        self._of(trial).before_trial(study, trial)

    def infer_relative_search_space(self, study, trial):
        return self._of(trial).infer_relative_search_space(study, trial)

    def sample_relative(self, study, trial, search_space):
        return self._of(trial).sample_relative(study, trial, search_space)

    def sample_independent(self, study, trial, param_name, param_distribution):
        return self._of(trial).sample_independent(study, trial, param_name, param_distribution)

    def after_trial(self, study, trial, state, values) -> None:
        self._of(trial).after_trial(study, trial, state, values)


def make_sampler(spec: TuneSpec) -> TrialSeeded:
    """The sampler of ``spec.sampler`` seeded per trial from the spec's seed (TPE:
    multivariate, with a quarter of the trials, 4 to 10, sampled at random first)."""
    if spec.sampler == "random":
        return TrialSeeded(lambda seed: optuna.samplers.RandomSampler(seed=seed), spec.seed)
    if spec.sampler == "cmaes":
        return TrialSeeded(lambda seed: optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False),
                           spec.seed)
    startup = max(4, min(10, spec.trials // 4))
    return TrialSeeded(lambda seed: optuna.samplers.TPESampler(seed=seed, multivariate=True,
                                                                n_startup_trials=startup), spec.seed)
