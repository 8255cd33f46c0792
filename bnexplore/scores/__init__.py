"""Local scores for discrete data: BDeu, K2, BIC, AIC, log-likelihood, KL.

:data:`SCORES` is the table of the scores (name, label, hyperparameters, score
equivalence, penalty; :mod:`bnexplore.scores.registry`) every door and search
reads; :class:`Scorer` is the cached score object every search uses and
:func:`kl_statistics` the two-class BNKL statistic.
"""

from .kl import KLStatistics, kl_statistics
from .registry import SCORES, Hyperparameter, ScoreSpec, penalty_weight, score_spec
from .scorer import Scorer, pack_parent_sets

__all__ = ["Hyperparameter", "KLStatistics", "SCORES", "ScoreSpec", "Scorer", "kl_statistics", "pack_parent_sets",
           "penalty_weight", "score_spec"]
