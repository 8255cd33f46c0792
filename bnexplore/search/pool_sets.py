"""The parent sets a seeded ordering search adds to its candidates, and the ones it can drop.

:class:`bnexplore.search.ordering` grows its candidate pool around every graph
it adopts (:func:`around`: each parent set, its subsets and its one-parent
supersets), so the OBS choice on that graph's topological order reproduces it;
:func:`undominated` keeps of a node's scored sets those an ordering could ever
choose (a set scoring no higher than a subset it contains never is).
"""

import itertools

import numpy as np

SUBSETS_UP_TO = 6
"""A seed graph's parent sets of up to this many parents join the candidates with all
their subsets; larger ones with the subsets one parent smaller."""


def around(parents, v, n, cap):
    """Parent sets around ``parents`` of node ``v``.

    Parameters
    ----------
    parents : tuple of int
        A sorted parent set of ``v``.
    v, n : int
        The node and the number of variables.
    cap : int
        The largest parent set allowed (the in-degree bound).

    Returns
    -------
    set of tuple
        The set, its subsets (all of them up to :data:`SUBSETS_UP_TO` parents,
        else those one parent smaller), the empty set, and every set one parent
        larger (up to ``cap`` parents).

    Examples
    --------
    >>> sorted(around((1,), 0, 3, cap=2))
    [(), (1,), (1, 2)]
    """
    k = len(parents)
    sizes = range(k + 1) if k <= SUBSETS_UP_TO else (0, k - 1, k)
    sets = {sub for size in sizes for sub in itertools.combinations(parents, size)}
    if k < cap:
        sets.update(tuple(sorted(parents + (u,))) for u in range(n) if u != v and u not in parents)
    return sets


def undominated(scored):
    """The sets of ``{set: score}`` that score above every smaller set they contain.

    Checked through the chain of sets one parent smaller, as the explorers'
    families do (:mod:`bnexplore.parents.explore`): no ordering can prefer a
    dominated set to its subset.

    Parameters
    ----------
    scored : dict
        Sorted parent tuples of one node and their scores.

    Returns
    -------
    list of tuple
        The undominated sets (the keys themselves, not copies: the candidate
        pool keeps them), smallest first.

    Examples
    --------
    >>> undominated({(): -10.0, (1,): -8.0, (2,): -11.0, (1, 2): -9.0})
    [(), (1,)]
    """
    best_within, kept = {}, []
    for c in sorted(scored, key=lambda c: (len(c), c)):
        below = max([best_within[c[:i] + c[i + 1:]] for i in range(len(c)) if c[:i] + c[i + 1:] in best_within]
                    + [-np.inf])
        best_within[c] = max(scored[c], below)
        if scored[c] > below:
            kept.append(c)
    return kept


__all__ = ["around", "undominated", "SUBSETS_UP_TO"]
