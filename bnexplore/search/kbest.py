"""Keeping the best ``limit`` DAGs of an enumeration, and what the finished set then holds.

Both credible-set engines (the subset DP's :func:`bnexplore.search.credible.dp.collect`
and the ILP's enumeration) keep every DAG they meet until ``limit`` are held,
then the best ``limit`` in a min-heap on the score (:func:`heapify`,
:func:`sift_down`; the ILP's :class:`Collector`), with the threshold rising to
the worst kept score. The finished set drops the DAGs tied with the worst kept
one (:func:`tie_slack`, :func:`limited_set`), so that it is every DAG within a
smaller, stated margin of the optimum; both engines share these rules.
"""

import math

import numpy as np

from ..compiling import njit
from ..numerics import tie_tolerance
from ..parents.pruning import tolerance

DEFAULT_LIMIT = 150_000
"""Most credible DAGs collected (the paper's counting limit)."""


LP_MARGIN = 1e-6
"""Relative slack of an LP bound in the ILP enumeration: a node is pruned only when its bound is more than
``LP_MARGIN * (1 + |OPT|)`` below what a DAG needs (:func:`lp_margin`)."""


def lp_margin(opt):
    """The ILP enumeration's absolute LP slack near ``opt`` (see :data:`LP_MARGIN`)."""
    return LP_MARGIN * (1.0 + abs(opt))


def tie_slack(opt):
    """How far above the worst kept DAG of a full set a DAG must score to stay in the finished set.

    Twice the score tolerance plus twice the LP margin: a DAG closer than that
    to the worst kept one counts as tied with it and is dropped
    (:func:`limited_set`), by both engines alike. The margin lets the branch
    and cut prune DAGs tied with the worst kept one instead of meeting them one
    by one (:class:`Collector`): a data set may hold far more DAGs tied with
    the optimum itself than any limit.
    """
    return 2.0 * (tolerance(opt) + lp_margin(opt))
@njit(cache=True)
def sift_down(heap, keys, i):
    """Restore the min-heap property of ``heap`` (indices ordered by ``keys``) below position ``i``."""
    size = heap.shape[0]
    item = heap[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[heap[child + 1]] < keys[heap[child]]:
            child += 1
        if keys[heap[child]] >= keys[item]:
            break
        heap[i] = heap[child]
        i = child
    heap[i] = item


@njit(cache=True)
def heapify(keys):
    """The indices ``0 .. len(keys) - 1`` as a min-heap on ``keys`` (worst score at the top)."""
    heap = np.arange(keys.shape[0])
    for i in range(keys.shape[0] // 2 - 1, -1, -1):
        sift_down(heap, keys, i)
    return heap


def enumeration_memory(n, limit):
    """Bytes for the collected DAGs: masks, scores, heap and grouping keys of ``limit`` DAGs."""
    return (limit + 1) * (3 * n + 3) * 8


def limited_set(masks, scores, opt, epsilon, limit, overflow):
    """The finished set of an enumeration that kept the best ``limit`` DAGs.

    With no overflow (no DAG met while ``limit`` were held) the set is every
    credible DAG. Otherwise the DAGs tied with the worst kept one (less than
    :func:`tie_slack` above it) are dropped, so what remains is *every* DAG
    within a smaller margin ``complete_epsilon`` of the optimum (see
    :func:`bnexplore.search.credible.dp.collect`). Shared by both engines.

    Returns
    -------
    masks, scores : arrays
    reason : str or None
    complete_epsilon : float or None
    """
    if not overflow:
        return masks, scores, None, epsilon
    slack = tie_slack(opt)
    cut = scores.min() + slack
    keep = scores >= cut
    more = f"the counting limit of {limit:,} DAGs was reached: more credible DAGs exist"
    if not keep.any():  # the optimum is never evicted, so every DAG held ties with it
        reason = (f"{more}; all {limit:,} DAGs held tie with the optimum (within {slack:.2g}), so no smaller "
                  "margin is complete; raise the limit")
        return masks, scores, reason, None
    complete = opt - cut
    reason = (f"{more}; the set holds the {int(keep.sum()):,} best, every DAG within a Bayes factor of "
              f"{math.exp(complete):.4g} (epsilon {complete:.4g}) of the optimum")
    return masks[keep], scores[keep], reason, complete


class Collector:
    """The DAGs an enumeration records: every one at or above ``threshold``, or the best ``limit``.

    Until ``limit`` DAGs are held every one is kept; then the arrays become a
    min-heap on the score (:func:`heapify`), a better
    DAG replaces the worst kept one and, from the first DAG met while full
    (``overflow``), ``threshold`` follows the worst kept score, as in
    :func:`bnexplore.search.credible.dp.enumerate_table`.

    The finished set then drops every DAG scoring below the worst kept plus
    ``slack`` (:func:`limited_set`), so from the overflow on only a DAG scoring
    at least :meth:`floor` can still change it, and the search prunes below
    that: DAGs tied with the worst kept (millions of class members on some data
    sets) are no longer listed and branched on one by one.

    ``clock`` (optional, a callable returning seconds) dates the moment ``limit``
    DAGs were first held (``full_at``): where the paper's GOBNILP stops counting
    (SCIP's ``constraints/countsols/sollimit``), while this search goes on to
    keep the best ``limit``.
    """

    def __init__(self, n, threshold, limit, slack=0.0, clock=None):
        self.threshold = threshold
        self.limit = limit
        self.slack = slack
        self.capacity = min(limit, 1 << 12)
        self.masks = np.zeros((self.capacity, n), np.int64)
        self.scores = np.empty(self.capacity)
        self.count = 0
        self.heap = None
        self.overflow = 0
        self.best = None
        self.clock = clock
        self.full_at = None

    def floor(self):
        """Least score a DAG needs to change the finished set: ``threshold``, plus ``slack`` after an overflow."""
        return self.threshold + self.slack if self.overflow else self.threshold

    def rejects(self, score):
        """True when the set is full and a DAG scoring ``score`` (up to round-off) cannot change it.

        Then no Markov equivalent DAG can either, so an enumeration need not list
        the class; the overflow is marked as :meth:`add` would mark it."""
        if self.heap is None:
            return False
        worst = float(self.scores[self.heap[0]])
        needed = max(worst, self.floor())
        if score > needed - tie_tolerance(needed):
            return False
        if score >= self.threshold:
            self.overflow += 1
            self.threshold = max(self.threshold, worst)
        return True

    def add(self, parent_masks, score):
        """Keep one DAG (its parent bitmasks and score) if it is good enough; True if kept."""
        if score < self.threshold:
            return False
        self.best = score if self.best is None else max(self.best, score)
        if self.count == self.capacity and self.capacity < self.limit:
            self.capacity = min(2 * self.capacity, self.limit)
            self.masks = np.concatenate([self.masks, np.zeros((self.capacity - len(self.masks),
                                                               self.masks.shape[1]), np.int64)])
            self.scores = np.concatenate([self.scores, np.empty(self.capacity - len(self.scores))])
        if self.count < self.capacity:
            self.masks[self.count] = parent_masks
            self.scores[self.count] = score
            self.count += 1
            if self.count == self.limit:
                self.heap = heapify(self.scores)
                self.full_at = None if self.clock is None else self.clock()
            return True
        self.overflow += 1  # more than limit DAGs exist: the search may now skip what cannot be kept
        row = self.heap[0]
        self.threshold = max(self.threshold, float(self.scores[row]))
        if score <= self.scores[row]:
            return False
        self.masks[row] = parent_masks
        self.scores[row] = score
        sift_down(self.heap, self.scores, 0)
        self.threshold = max(self.threshold, float(self.scores[self.heap[0]]))
        return True
