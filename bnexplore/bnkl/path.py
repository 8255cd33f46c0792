"""The complexity path of BNKL: the best R at every total complexity, and the rule that picks one network.

Because ``R(G)`` and ``df(G)`` are both sums over nodes (Balov 2013, Eq. 3-4),
the best R for every total complexity in an order-restricted class (Eq. 8)
is a knapsack over the nodes; :func:`complexity_path` solves it exactly as a
merge of upper Pareto frontiers of ``(df, R)`` (:func:`pareto_frontier`), and
:func:`select_index` picks one network by a rule of :data:`SELECT_RULES`.
"""

import math

import numpy as np

from bnexplore.errors import SearchError

SELECT_RULES = ("ratio", "bic", "aic")
"""How a network is picked from the complexity path (see :func:`select_index`)."""

_TIE = 1e-12
"""Relative gain in R below which a more complex network does not enter the path."""


def pareto_frontier(df, R):
    """Indices of the upper Pareto frontier of points ``(df, R)``.

    A point is kept when its R exceeds, by more than a relative ``1e-12``,
    the R of every point with smaller df (rounding noise does not make a
    more complex network "better"); among points with equal df the one with
    the largest R (the first on ties) stands for them. The indices are
    returned by increasing df, along which R increases strictly.

    Parameters
    ----------
    df : array_like of int
    R : array_like of float

    Returns
    -------
    ndarray of int64
    """
    df = np.asarray(df)
    R = np.asarray(R, dtype=np.float64)
    if df.size == 0:
        return np.empty(0, np.int64)
    order = np.argsort(df, kind="stable")
    d, r = df[order], R[order]
    starts = np.flatnonzero(np.concatenate(([True], d[1:] != d[:-1])))
    group_max = np.maximum.reduceat(r, starts)
    at_max = np.flatnonzero(r == np.repeat(group_max, np.diff(np.append(starts, d.size))))
    group = np.searchsorted(starts, at_max, side="right") - 1
    best = order[at_max[np.concatenate(([True], group[1:] != group[:-1]))]]
    r = R[best]
    before = np.maximum.accumulate(np.concatenate(([-np.inf], r[:-1])))
    keep = np.ones(best.size, bool)
    keep[1:] = r[1:] > before[1:] + _TIE * np.maximum(1.0, np.abs(before[1:]))
    return best[keep]


def complexity_path(option_df, option_R):
    """Best total R for every complexity: the upper Pareto frontier of
    ``(df(G), R(G))`` over all DAGs built from one option per node.

    ``R(G) = sum_i R_i`` and ``df(G) = sum_i df_i`` (Balov 2013, Eq. 3-4),
    and in an order-restricted class (Eq. 8) every node picks its parent set
    among its predecessors independently of the others: a multiple-choice
    knapsack over the nodes. The frontier of a sum of independent choices is
    the frontier of the sums of the frontiers, so the nodes are merged one at
    a time, keeping only non-dominated partial sums (no other partial
    network has at most its df and at least its R). Exact; the work is the
    sum over nodes of (frontier size x options of the node).

    Parameters
    ----------
    option_df : list of int arrays
        ``option_df[t]`` holds the complexities of the options of node t.
    option_R : list of float arrays
        Their R.

    Returns
    -------
    df : ndarray of int64, shape (P,)
        Increasing total complexities of the path.
    R : ndarray of float64, shape (P,)
        Strictly increasing best R at those complexities.
    choice : ndarray of int64, shape (P, n)
        ``choice[j, t]`` is the option node t takes in path network j.

    Examples
    --------
    Node 0 may take ``(df, R)`` = (1, 0) or (2, 0.5), node 1 (1, 0) or (3, 0.2);
    of the four networks, (4, 0.2) is beaten by (3, 0.5):

    >>> df, R, choice = complexity_path([[1, 2], [1, 3]], [[0.0, 0.5], [0.0, 0.2]])
    >>> df.tolist(), R.tolist(), choice.tolist()
    ([2, 3, 5], [0.0, 0.5, 0.7], [[0, 0], [1, 0], [1, 1]])
    """
    front_df, front_R = np.zeros(1, np.int64), np.zeros(1)
    steps = []
    for dfs, Rs in zip(option_df, option_R):
        dfs, Rs = np.asarray(dfs, np.int64), np.asarray(Rs, np.float64)
        k = dfs.size
        sums_df = (front_df[:, None] + dfs[None, :]).ravel()
        sums_R = (front_R[:, None] + Rs[None, :]).ravel()
        keep = pareto_frontier(sums_df, sums_R)
        steps.append((keep // k, keep % k))
        front_df, front_R = sums_df[keep], sums_R[keep]
    choice = np.zeros((front_df.size, len(steps)), np.int64)
    point = np.arange(front_df.size)
    for t in range(len(steps) - 1, -1, -1):
        previous, option = steps[t]
        choice[:, t] = option[point]
        point = previous[point]
    return front_df, front_R, choice


def rule_values(df, R, n_rows, select="ratio"):
    """The value a selection rule maximises, at every point of the complexity path.

    Parameters
    ----------
    df, R : array_like
        The complexity path.
    n_rows : int
        Training rows N.
    select : {"ratio", "bic", "aic"}
        ``"ratio"``: ``S = R / df`` (Balov 2013, Eq. 5); ``"bic"``:
        ``N R - df log(N) / 2``; ``"aic"``: ``N R - df`` (``N R`` is a
        log-likelihood ratio, so these are the usual penalties).

    Returns
    -------
    ndarray of float64
    """
    df = np.asarray(df, np.float64)
    R = np.asarray(R, np.float64)
    if select == "ratio":
        return R / df
    if select == "bic":
        return n_rows * R - df * math.log(n_rows) / 2
    if select == "aic":
        return n_rows * R - df
    raise SearchError(f"select={select!r} is not a selection rule; use one of {', '.join(SELECT_RULES)}")


def select_index(df, R, n_rows, select="ratio"):
    """Index of the path network a selection rule picks: the largest :func:`rule_values`
    (ties go to the simpler network)."""
    return int(np.argmax(rule_values(df, R, n_rows, select)))
