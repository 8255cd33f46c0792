"""Local scores for discrete data: BDeu, K2, BIC, AIC, log-likelihood, KL.

See :class:`Scorer` for the cached score object every search uses and
:func:`kl_statistics` for the two-class BNKL statistic.
"""

from .kl import KLStatistics, kl_statistics
from .scorer import SCORES, Scorer, pack_parent_sets

__all__ = ["KLStatistics", "SCORES", "Scorer", "kl_statistics", "pack_parent_sets"]
