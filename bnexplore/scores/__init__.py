"""Local scores for discrete data: BDeu, K2, BIC, AIC, log-likelihood, KL.

:data:`SCORES` is the table of the scores (name, label, hyperparameters, score
equivalence, penalty; :mod:`bnexplore.scores.registry`) every door and search
reads; :class:`Scorer` is the cached score object every search uses and
:func:`kl_statistics` the two-class BNKL statistic.

Each name loads from its module on first use (PEP 562, as :mod:`bnexplore`
does), so reading the registry loads no numba kernel.
"""

from ..exports import lazy_exports

EXPORTS = {
    "kl": ["KLStatistics", "kl_statistics"],
    "registry": ["Hyperparameter", "SCORES", "ScoreSpec", "penalty_weight", "score_spec"],
    "scorer": ["Scorer", "check_scorer", "pack_parent_sets"],
}
"""The module of :mod:`bnexplore.scores` each public name is loaded from."""

HOME, __all__, __getattr__, __dir__ = lazy_exports(__name__, EXPORTS)
