"""The family variables of the integer programme as plain arrays: which to exclude, how to find one, cut rows.

Families are laid out as in :class:`bnexplore.search.subsets.CandidateArrays`
(node ``v`` owns ``masks[offsets[v]:offsets[v + 1]]``, best first); a cut is
a row ``lhs <= sum of x[f] over its families <= rhs``, built here from the
kernels of :mod:`bnexplore.search.cuts` and handed to SCIP by
:mod:`bnexplore.search.ilp.branch_and_cut`. :class:`KnownCuts` carries the
cuts of one search to the next. Nothing here needs SCIP.
"""

import numpy as np

from .. import cuts

def bits(mask):
    """Node indices of a bitmask, ascending (plain Python)."""
    mask = int(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sorted_families(masks, offsets):
    """Every node's candidate parent sets in ascending order and their family indices (two int64 arrays).

    The families of node ``v`` stay within ``offsets[v]:offsets[v + 1]``; the
    search structure of :func:`bnexplore.search.classes.member_families`.
    """
    index = np.arange(len(masks), dtype=np.int64)
    for lo, hi in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
        index[lo:hi] = lo + np.argsort(masks[lo:hi], kind="stable")
    return masks[index], index


def forbidden_families(candidates, allowed=None, required=None):
    """Families excluded by arc constraints (bool array over the families).

    ``allowed[u, v]`` False forbids u -> v: a family of ``v`` containing ``u``
    is excluded. ``required[u, v]`` True requires u -> v: a family of ``v``
    without ``u`` is excluded. (With required arcs the candidate sets must
    have been pruned knowing them: a set pruned because a subset without the
    required parent scored better is needed again.)
    """
    masks, offsets, n = candidates.masks, candidates.offsets, candidates.n
    out = np.zeros(len(masks), bool)
    for v in range(n):
        lo, hi = offsets[v], offsets[v + 1]
        if allowed is not None:
            banned = sum(1 << u for u in range(n) if u != v and not allowed[u, v])
            out[lo:hi] |= (masks[lo:hi] & banned) != 0
        if required is not None:
            needed = sum(1 << u for u in range(n) if u != v and required[u, v])
            out[lo:hi] |= (masks[lo:hi] & needed) != needed
    return out


def cluster_row(candidates, cluster, k):
    """The ``k``-cluster constraint of ``cluster`` as ``(families, lhs, rhs)``: ``lhs <= sum of x[f] <= rhs``.

    At least ``k`` nodes of the cluster have at most ``k - 1`` parents inside
    it, written over whichever side has fewer families
    (:func:`bnexplore.search.cuts.cut_families`)."""
    families, inside = cuts.cut_families(candidates.masks, candidates.offsets, np.int64(cluster), int(k))
    if inside:
        return families, None, float(cuts.popcount(np.int64(cluster)) - k)
    return families, float(k), None


def four_b_row(candidates, a, b, c, d):
    """The 4B inequality of the pairs ``{a, b}`` and ``{c, d}`` as ``(families, None, 2.0)`` (:func:`cluster_row`'s form)."""
    return cuts.four_b_families(candidates.masks, candidates.offsets, a, b, c, d), None, 2.0


class KnownCuts:
    """Cluster and 4B cuts one search found, to start another search over the same candidates.

    Every cut holds for every DAG (they describe acyclicity, not the
    objective), so an enumeration may start from the cuts that closed the
    optimisation's gap instead of finding them again (on hard data sets the
    enumeration finds nothing in long without them). Stored as a few
    integers per cut, not as rows.

    Parameters
    ----------
    clusters : iterable of (int, int)
        ``(cluster bitmask, k)`` of every k-cluster cut (duplicates dropped).
    four_b : iterable of (int, int, int, int)
        The four nodes of every 4B cut, in the order of :func:`bnexplore.search.cuts.four_b_families`.
    """

    def __init__(self, clusters=(), four_b=()):
        self.clusters = np.array(sorted(set(map(tuple, clusters))), np.int64).reshape(-1, 2)
        self.four_b = np.array(sorted(set(map(tuple, four_b))), np.int64).reshape(-1, 4)

    def __len__(self):
        return len(self.clusters) + len(self.four_b)
