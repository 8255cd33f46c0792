"""The DAGs one family change away from a DAG (a numba kernel).

The ILP enumeration explores the credible DAGs around every class it records
through these changes (:meth:`bnexplore.search.ilp.enumeration.EnumerationRun.explore`):
credible sets are mostly connected by them. Families are laid out as in
:class:`bnexplore.search.subsets.CandidateArrays`.
"""

import numpy as np

from ..compiling import njit


@njit(cache=True)
def family_changes(chosen, masks, scores, offsets, min_gain):
    """Every DAG one family away from the DAG of ``chosen`` whose score changes by at least ``min_gain``.

    ``chosen[v]`` is node ``v``'s family. A change gives node ``v`` another
    candidate family ``f``; the result is a DAG exactly when ``f``'s parents
    hold no descendant of ``v`` (a path out of ``v`` never uses ``v``'s own
    parents, so the descendants do not depend on the family replaced). Each
    node's candidates are scanned best first and the scan stops at the first
    whose gain ``scores[f] - scores[chosen[v]]`` falls short. Returns the
    changes as two arrays, ``(nodes, families)``.
    """
    n = chosen.shape[0]
    children = np.zeros(n, np.int64)
    for v in range(n):
        parents = masks[chosen[v]]
        for u in range(n):
            if (parents >> u) & 1:
                children[u] |= np.int64(1) << v
    nodes = []
    families = []
    for v in range(n):
        reach = children[v]
        frontier = reach
        while frontier:
            w = 0
            while not (frontier >> w) & 1:
                w += 1
            frontier &= ~(np.int64(1) << w)
            new = children[w] & ~reach
            reach |= new
            frontier |= new
        old = scores[chosen[v]]
        for f in range(offsets[v], offsets[v + 1]):
            if scores[f] - old < min_gain:
                break
            if f != chosen[v] and masks[f] & reach == 0:
                nodes.append(v)
                families.append(f)
    return np.array(nodes, np.int64), np.array(families, np.int64)
