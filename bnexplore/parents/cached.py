"""A scorer answered from a score cache alone: searches over parent sets scored elsewhere (a ``.jkl`` file).

The optimisers over candidate parent sets (the exact DP and ILP, OBS/ASOBS,
the credible set) take a scorer for the names, the result's score and its
counters; with a cache computed by GOBNILP, BLIP or another bnexplore run
there are no data to score. :class:`CacheScorer` is that scorer: a family in
the cache scores as the cache says, any other family ``-inf`` (it may not be
chosen), as in GOBNILP, where only the listed parent sets are allowed.
"""

import numpy as np

from ..scores.scorer import Scorer


class CacheScorer(Scorer):
    """A :class:`~bnexplore.scores.Scorer` whose local scores are the candidate sets' own.

    Parameters
    ----------
    parent_sets : ParentSets
        The cache; its names, score name and scores are the scorer's.

    Notes
    -----
    It holds no data (``rows`` is 1, no columns), so only the searches over
    candidate parent sets can use it (``exact``, ``ilp``, ``obs``/``asobs``
    without a hill-climbing seed, the credible set); a family outside the
    cache scores ``-inf``.

    Examples
    --------
    >>> from bnexplore.parents import ParentSets
    >>> ps = ParentSets(["a", "b"], [[((), -2.0)], [((0,), -1.5), ((), -3.0)]], "bic")
    >>> scorer = CacheScorer(ps)
    >>> scorer.total([[], ["a"]]), scorer.local("a", ["b"])
    (-3.5, -inf)
    """

    def __init__(self, parent_sets):
        self.score_name = parent_sets.score_name
        self.names = [str(v) for v in parent_sets.names]
        self.n_vars = len(self.names)
        self.rows = 1
        self.n_rows = 1
        self.weighted = False
        self.cols = np.zeros((self.n_vars, 0), np.int64)
        self.arities = np.ones(self.n_vars, np.int64)  # unknown; 1 keeps the joint-state check of family() quiet
        self._position = {v: i for i, v in enumerate(self.names)}
        self._cache = {(v, ps): s for v in range(self.n_vars)
                       for ps, s in zip(parent_sets.sets(v), parent_sets.scores(v).tolist())}
        self.reset_stats()

    def __repr__(self):
        return f"CacheScorer({self.score_name}, {self.n_vars} variables, {len(self._cache)} cached families)"

    @property
    def params(self):
        """The score settings: the cache's score name, and that the scores came from a cache."""
        return {"score": self.score_name, "scores": "cache"}

    def score_packed(self, children, parents, sizes):
        """``-inf`` for each family: every family the cache holds was answered before this is called."""
        self._count(len(children), int(np.sum(sizes)) + len(children))
        return np.full(len(children), -np.inf)

    def local(self, child, parents=()):
        """Local score ``s(child, parents)``: the cache's, ``-inf`` for a family it does not hold."""
        return float(self.lookup([self.family(child, parents)])[0])

__all__ = ["CacheScorer"]
