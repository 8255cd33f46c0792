"""Local scores for discrete data: BDeu, K2, BIC, AIC, log-likelihood, KL.

:data:`SCORES` is the table of the scores (name, label, hyperparameters, score
equivalence, penalty; :mod:`bnexplore.scores.registry`) every door and search
reads; :class:`Scorer` is the cached score object every search uses and
:func:`kl_statistics` the two-class BNKL statistic.

Each name loads from its module on first use (PEP 562, as :mod:`bnexplore`
does), so reading the registry loads no numba kernel.
"""

import importlib

EXPORTS = {
    "kl": ["KLStatistics", "kl_statistics"],
    "registry": ["Hyperparameter", "SCORES", "ScoreSpec", "penalty_weight", "score_spec"],
    "scorer": ["Scorer", "pack_parent_sets"],
}
"""The module of :mod:`bnexplore.scores` each public name is loaded from."""

HOME = {name: module for module, names in EXPORTS.items() for name in names}

__all__ = sorted(HOME)


def __getattr__(name):
    """Load a public name from its module the first time it is asked for (PEP 562)."""
    if name not in HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{HOME[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *__all__})
