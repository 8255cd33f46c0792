"""Two-class Kullback-Leibler networks (BNKL) of Balov (2013).

N. Balov, "A categorical network approach for discovering differentially
expressed regulations in cancer", BMC Medical Genomics 6 (Suppl 3): S1, 2013
(the method of the R package sdnet). One DAG is learned for a table whose rows
belong to two classes; each class then gets its own conditional probability
tables on that DAG ("one DAG, two probability tables").

Score (Eq. 3-4): ``S(G) = R(G) / df(G)`` with ``R(G) = sum_i R_i`` the
accumulated KL divergence between the conditionals estimated from all rows and
from the class-0 rows (see :func:`bnexplore.scores.kl_statistics`) and
``df(G) = sum_i q_i (r_i - 1)``. R depends on which class is class 0 (the
reference): swapping the classes gives another score and possibly another
network.

Search (Eq. 5 and 8): DAGs compatible with one node order, the IDE order of
Eq. 7 / Algorithm 1(a) (least differential variable first), with at most M
parents per node. Because R and df are both sums over nodes, the best R for
every total complexity is a knapsack over the nodes; :func:`complexity_path`
solves it exactly as a merge of upper Pareto frontiers of ``(df, R)``.

The public entry points are :func:`bnkl` (a table with a class column),
:func:`bnkl_xy` (features and labels apart) and :func:`bnkl_search` (coded
data, 0 / 1 labels and an optional node order).
"""

import dataclasses
import math
import time
from dataclasses import dataclass, field
from itertools import chain, combinations

import numpy as np
import pandas as pd
from scipy import special as _special
from scipy import stats as _stats

from ..bif import Network, fit_network
from ..control import Control
from ..data import NUMERIC, Dataset, Encoder
from ..errors import BIFError, DataError, ResourceError, SearchError
from ..graphs import DAG
from ..result import Result
from ..scores.kl import KLStatistics, class_labels

SELECT_RULES = ("ratio", "bic", "aic")
"""How a network is picked from the complexity path (see :func:`select_index`)."""

_CHUNK = 1 << 17
"""Families scored per kernel call (between calls the search can be stopped)."""

_MAX_FAMILIES = 60_000_000
"""Refuse searches that would score more parent sets than this."""

_TIE = 1e-12
"""Relative gain in R below which a more complex network does not enter the path."""


# ----------------------------------------------------------------------------
# Class labels
# ----------------------------------------------------------------------------


def _sorted_labels(values):
    """Distinct labels in sorted order (numbers numerically; mixed types by text)."""
    distinct = list(pd.unique(pd.Series(values, dtype=object)))
    try:
        return sorted(distinct)
    except TypeError:
        return sorted(distinct, key=str)


def _plain_label(value):
    """A label as a plain Python value (numpy scalars unwrapped)."""
    return value.item() if isinstance(value, np.generic) else value


def _short(items, limit=6):
    shown = ", ".join(repr(_plain_label(x)) for x in items[:limit])
    return shown + (f", ... (+{len(items) - limit} more)" if len(items) > limit else "")


def encode_classes(y, class0=None, column="class"):
    """Turn two-class labels into 0 / 1 codes.

    Parameters
    ----------
    y : array_like
        One label per row, exactly two distinct labels, no missing values.
    class0 : optional
        The label of the reference class 0 (the one whose conditionals R is
        measured against). Default: the first label in sorted order (numbers
        numerically, text alphabetically), so ``("benign", "malignant")``
        makes "benign" class 0. A label is matched by value, or else by its
        text (``"1"`` picks the label ``1``).
    column : str
        Name of the class column, for messages.

    Returns
    -------
    codes : ndarray of uint8
        0 for class 0, 1 for class 1.
    classes : list
        ``[class 0 label, class 1 label]``.

    Raises
    ------
    DataError
        Missing labels, not exactly two labels, or ``class0`` not a label.
    """
    values = pd.Series(np.asarray(y, dtype=object).reshape(-1), dtype=object)
    missing = values.isna().to_numpy()
    if missing.any():
        row = int(np.argmax(missing)) + 1
        raise DataError(f"class column {column!r} row {row} is missing; give every row one of the two class labels "
                        f"or drop the unlabelled rows")
    labels = _sorted_labels(values)
    if len(labels) != 2:
        raise DataError(f"class column {column!r} must have exactly two labels, found {len(labels)}: {_short(labels)}; "
                        f"BNKL compares two classes, so keep the rows of two of them")
    if class0 is None:
        class0 = labels[0]
    matches = [x for x in labels if x == class0] or [x for x in labels if str(x) == str(class0)]
    if not matches:
        raise DataError(f"class0={class0!r} is not a label of class column {column!r}; "
                        f"use one of {_short(labels)}")
    first = matches[0]
    classes = [first, labels[1] if first == labels[0] else labels[0]]
    codes = (values != first).to_numpy().astype(np.uint8)
    return codes, [_plain_label(c) for c in classes]


# ----------------------------------------------------------------------------
# IDE order: Balov (2013), Eq. 7 and Algorithm 1(a)
# ----------------------------------------------------------------------------


def _t_tail_log_sf(t, dof):
    """``log P(T > t)`` for Student's t far in the tail (t > 0), without underflow.

    ``2 P(T > t) = I_x(dof / 2, 1 / 2)`` with ``x = dof / (dof + t^2)``, and
    ``I_x(a, b) = x^a (1 - x)^b F(a + b, 1; a + 1; x) / (a B(a, b))``
    (DLMF 8.17.8), taken on the log scale.
    """
    a = dof / 2
    log_x = math.log(dof) - 2 * math.log(t) - math.log1p(dof / (t * t))
    x = math.exp(log_x)
    return (math.log(0.5) + a * log_x + 0.5 * math.log1p(-x) - math.log(a) - float(_special.betaln(a, 0.5))
            + math.log(float(_special.hyp2f1(a + 0.5, 1.0, a + 1.0, x))))


def _chi2_tail_log_sf(g, k):
    """``log P(chi2_k > g)`` far in the tail (``g / 2 > k / 2 + 1``), without underflow.

    ``Q(s, x) = Gamma(s, x) / Gamma(s)`` with ``s = k / 2``, ``x = g / 2``;
    ``Gamma(s, x) = e^-x x^s / (x + 1 - s - 1 (1 - s) / (x + 3 - s - ...))``,
    the continued fraction evaluated by the modified Lentz method (Press et
    al., Numerical Recipes, Section 6.2).
    """
    s, x = k / 2, g / 2
    tiny = 1e-300
    b = x + 1 - s
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - s)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return -x + s * math.log(x) - math.lgamma(s) + math.log(h)


def welch_log_pvalue(a, b):
    """Natural log of the two-sided Welch t-test p-value of two samples.

    Welch's unequal-variance test is what R's ``t.test`` does by default, and
    sdnet is an R package; it also does not assume that a differential
    variable has the same spread in both classes. NaNs are ignored. A sample
    with fewer than two values gives p = 1 (no evidence); two constant
    samples give p = 1 when their values are equal and p = 0 otherwise.
    The log is taken from the t distribution's ``logsf`` (from a tail series
    where that underflows), so strongly differential variables do not all
    tie at p = 0.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if a.size < 2 or b.size < 2:
        return 0.0
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    diff = a.mean() - b.mean()
    se2 = va + vb
    if se2 == 0:
        return 0.0 if diff == 0 else -math.inf
    t = diff / math.sqrt(se2)
    dof = se2 ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    log_sf = float(_stats.t.logsf(abs(t), dof))
    if not math.isfinite(log_sf):
        log_sf = _t_tail_log_sf(abs(t), dof)
    return min(0.0, math.log(2.0) + log_sf)


def g_test_log_pvalue(codes, labels, arity):
    """Natural log of the p-value of the G-test (likelihood-ratio chi-square)
    of independence between a categorical variable and the class.

    ``G = 2 sum obs log(obs / expected)`` over the (state x class) table, with
    ``(states that occur - 1)`` degrees of freedom; fewer than two occurring
    states give p = 1. Log scale throughout, like :func:`welch_log_pvalue`.
    """
    counts = np.bincount(np.asarray(codes, np.int64) * 2 + np.asarray(labels, np.int64),
                         minlength=2 * int(arity)).reshape(-1, 2).astype(np.float64)
    counts = counts[counts.sum(axis=1) > 0]
    if counts.shape[0] < 2:
        return 0.0
    expected = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / counts.sum()
    seen = counts > 0
    g = 2.0 * float(np.sum(counts[seen] * np.log(counts[seen] / expected[seen])))
    dof = counts.shape[0] - 1
    log_sf = float(_stats.chi2.logsf(max(g, 0.0), dof))
    return min(0.0, log_sf if math.isfinite(log_sf) else _chi2_tail_log_sf(g, dof))


def class_difference_tests(data, labels, values=None):
    """Per-variable test of a marginal class difference.

    Parameters
    ----------
    data : Dataset
    labels : array of 0 / 1
    values : dict of str to array_like, optional
        Raw numeric values of the variables that were discretized (one per
        row); these get the Welch t-test of :func:`welch_log_pvalue`, every
        other variable the G-test of :func:`g_test_log_pvalue` on its codes.

    Returns
    -------
    log_pvalues : ndarray of float64
    tests : list of str
        ``"welch-t"`` or ``"g-test"`` per variable.
    """
    values = values or {}
    labels = np.asarray(labels)
    log_p, tests = np.zeros(data.n_vars), []
    for i, name in enumerate(data.names):
        if name in values:
            x = np.asarray(values[name], dtype=np.float64)
            log_p[i] = welch_log_pvalue(x[labels == 0], x[labels == 1])
            tests.append("welch-t")
        else:
            log_p[i] = g_test_log_pvalue(data.codes[:, i], labels, data.arities[i])
            tests.append("g-test")
    return log_p, tests


def ide_order(log_pvalues):
    """The order of increasing differential expression (Balov 2013, Eq. 7).

    Variables by decreasing p-value: the least differential first (upstream),
    the most differential last. Ties keep the column order.

    Parameters
    ----------
    log_pvalues : array_like of float
        Log p-values of the marginal class-difference tests.

    Returns
    -------
    list of int
    """
    return np.argsort(-np.asarray(log_pvalues, dtype=np.float64), kind="stable").tolist()


# ----------------------------------------------------------------------------
# The complexity path: an exact knapsack over nodes
# ----------------------------------------------------------------------------


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


# ----------------------------------------------------------------------------
# Scoring the candidate parent sets
# ----------------------------------------------------------------------------


def _colex_combinations(p, k):
    """All k-subsets of ``0 .. p-1`` as rows of an int64 array, in colexicographic
    order (largest element first), so the subsets of ``0 .. q-1`` are the first
    ``C(q, k)`` rows for every ``q <= p``."""
    count = math.comb(p, k)
    rows = np.fromiter(chain.from_iterable(combinations(range(p), k)), np.int64, count * k).reshape(count, k)
    return rows[np.lexsort(rows.T)]


def _families_per_node(n, max_parents):
    """Number of candidate parent sets (of size >= 1) of the node at each position."""
    return [sum(math.comb(p, k) for k in range(1, min(max_parents, p) + 1)) for p in range(n)]


def n_statistics(n, max_parents):
    """KL statistics the search computes on ``n`` variables: every node's empty
    parent set plus its candidate sets (:func:`_families_per_node`)."""
    return n + sum(_families_per_node(n, max_parents))


def _check_size(n, max_parents):
    """ResourceError when the search would score more than ``_MAX_FAMILIES`` parent sets."""
    total = n_statistics(n, max_parents)
    if total > _MAX_FAMILIES:
        raise ResourceError(f"BNKL with max_parents={max_parents} on {n} variables would score {total:,} parent sets "
                            f"(limit {_MAX_FAMILIES:,}); lower max_parents or use fewer variables")


@dataclass
class _Options:
    """Non-dominated parent sets of one node: sets, df, R."""

    sets: list
    df: np.ndarray
    R: np.ndarray


def _node_options(marginal, parents, R, df):
    """The node's own ``(df, R)`` frontier among the empty parent set (with
    statistics ``marginal = (R, df)``) and the padded parent rows ``parents``."""
    all_df = np.concatenate(([marginal[1]], df))
    all_R = np.concatenate(([marginal[0]], R))
    keep = pareto_frontier(all_df, all_R)
    sets = [tuple(sorted(int(x) for x in parents[t - 1] if x >= 0)) if t else () for t in keep]
    return _Options(sets, all_df[keep], all_R[keep])


def _batch(order, positions, subsets):
    """Children and padded parent rows of every candidate parent set of the
    nodes at ``positions`` of ``order``; ``subsets[k - 1]`` holds the k-subsets
    of positions in colexicographic order (:func:`_colex_combinations`)."""
    width = max(1, len(subsets))
    blocks = []
    for q in positions:
        for k, table in enumerate(subsets[: min(len(subsets), q)], start=1):
            block = np.full((math.comb(q, k), width), -1, np.int64)
            block[:, :k] = order[table[: len(block)]]
            blocks.append((q, block))
    children = np.concatenate([np.full(len(b), order[q], np.int64) for q, b in blocks])
    return children, np.concatenate([b for _, b in blocks])


def _score_candidates(scorer, order, max_parents, control):
    """Options of every node: all subsets of its predecessors of size <= M,
    reduced to the node's frontier. Nodes not reached before a stop keep
    the empty parent set only.

    Returns
    -------
    options : list of _Options, by position in the order
    marginal : (R, df) of every node without parents, by node
    reached : number of positions whose parent sets were all scored
    """
    n = len(order)
    order = np.asarray(order, np.int64)
    marginal_R, marginal_df = scorer.families(range(n), [() for _ in range(n)])
    options = [_Options([()], marginal_df[order[p]: order[p] + 1], marginal_R[order[p]: order[p] + 1])
               for p in range(n)]
    counts = _families_per_node(n, max_parents)
    total = sum(counts)
    subsets = [_colex_combinations(n - 1, k) for k in range(1, min(max_parents, n - 1) + 1)]
    done = 0
    p = 1 if max_parents else n  # position 0 (and every node when M = 0) has the empty set only
    while p < n and not control.should_stop():
        batch = [p]
        size = counts[p]
        while batch[-1] + 1 < n and size + counts[batch[-1] + 1] <= _CHUNK:
            batch.append(batch[-1] + 1)
            size += counts[batch[-1]]
        children, parents = _batch(order, batch, subsets)
        R, df = scorer.packed(children, parents)
        start = 0
        for q in batch:
            stop = start + counts[q]
            v = order[q]
            options[q] = _node_options((marginal_R[v], marginal_df[v]), parents[start:stop], R[start:stop],
                                       df[start:stop])
            start = stop
        done += size
        p = batch[-1] + 1
        control.report(done=done / total, message=f"bnkl: scored the parent sets of {p} of {n} nodes",
                       iteration=p)
    return options, (marginal_R, marginal_df), p


# ----------------------------------------------------------------------------
# The network at a path point: statistics, KL edge contributions, CPTs
# ----------------------------------------------------------------------------


def _class_networks(dag, data, labels):
    """CPTs of the two classes on one DAG, Balov (2013) Eq. 2 and Algorithm 1(d).

    Maximum likelihood from each class's rows (a parent configuration a class
    never shows gets the uniform distribution); then, as the paper does
    before classifying, every zero probability is reset to ``1 / (3 n)``
    (``n`` training rows) and each distribution renormalised.
    """
    floor = 1.0 / (3.0 * data.n_rows)
    networks = []
    for c in (0, 1):
        fitted = fit_network(dag, data.subset(np.flatnonzero(labels == c)), ess=0.0)
        cpts = []
        for table in fitted.cpts:
            table = np.where(table > 0, table, floor)
            cpts.append(table / table.sum(axis=-1, keepdims=True))
        networks.append(Network(f"class{c}", fitted.names, fitted.states, fitted.parents, cpts))
    return tuple(networks)


def marginal_divergence(data, labels):
    """How far each variable's own distribution is from the reference class's, as a true KL divergence.

    ``D_i = sum_k P_k log(P_k / P0_k)`` with ``P_k`` the share of all rows in
    state k and ``P0_k`` that of the class-0 rows, a zero ``P0_k`` reset to
    ``1 / (3 n)`` and the distribution renormalised, as the classifier does
    (Balov 2013, Algorithm 1(d)). Unlike the statistic ``R_i`` of the score,
    whose sdnet convention skips the cells without class-0 rows (and can then
    go negative), ``D_i >= 0``, with 0 only when the two distributions agree.

    Parameters
    ----------
    data : Dataset
    labels : ndarray of 0 / 1

    Returns
    -------
    ndarray of float64, one value per variable
    """
    labels = np.asarray(labels)
    n = data.n_rows
    floor = 1.0 / (3.0 * n)
    out = np.empty(data.n_vars)
    for v in range(data.n_vars):
        codes = np.asarray(data.codes[:, v], np.int64)
        r = int(data.arities[v])
        p = np.bincount(codes, minlength=r) / n
        p0 = np.bincount(codes[labels == 0], minlength=r) / max(1, int((labels == 0).sum()))
        p0 = np.where(p0 > 0, p0, floor)
        p0 /= p0.sum()
        seen = p > 0
        out[v] = max(0.0, float(np.sum(p[seen] * np.log(p[seen] / p0[seen]))))
    return out


def _arc_contributions(scorer, parent_sets, node_R):
    """``[(u, v, R_v(Pa_v) - R_v(Pa_v - u)), ...]`` for every arc u -> v."""
    arcs = [(u, v) for v, ps in enumerate(parent_sets) for u in ps]
    if not arcs:
        return []
    children = np.array([v for _, v in arcs], np.int64)
    width = max(1, max(len(ps) for ps in parent_sets) - 1)
    packed = np.full((len(arcs), width), -1, np.int64)
    for t, (u, v) in enumerate(arcs):
        rest = [x for x in parent_sets[v] if x != u]
        packed[t, : len(rest)] = rest
    reduced, _ = scorer.packed(children, packed)
    return [(u, v, float(node_R[v] - r)) for (u, v), r in zip(arcs, reduced)]


def network_loglik(network, codes):
    """Log-likelihood of every row under a network, Balov (2013) Eq. 1.

    Parameters
    ----------
    network : bnexplore.bif.Network
    codes : (n_rows, n_vars) integer array
        Columns in the network's variable order.

    Returns
    -------
    ndarray of float64, shape (n_rows,)
    """
    codes = np.asarray(codes, np.intp)
    total = np.zeros(codes.shape[0])
    for i, (parents, table) in enumerate(zip(network.parents, network.cpts)):
        index = tuple(codes[:, p] for p in parents) + (codes[:, i],)
        total += np.log(table[index])
    return total


# ----------------------------------------------------------------------------
# Result
# ----------------------------------------------------------------------------


@dataclass
class BNKLResult:
    """A learned two-class KL network, its complexity path and its two CPT sets.

    Nodes are integers (positions in ``names``) everywhere except in
    :meth:`to_json`, which uses names.

    Attributes
    ----------
    names : list of str
        Variables, in column order.
    classes : list
        ``[class 0 label, class 1 label]``; class 0 is the reference whose
        conditionals R is measured against.
    class_counts : tuple of int
        Training rows of class 0 and class 1.
    class_column : str or None
        Name of the class column, when known.
    order : list of int
        The node order searched (IDE unless given): least differential first.
    pvalues : ndarray
        Marginal class-difference p-value of each node.
    tests : list of str
        Test behind each p-value: ``"welch-t"`` (numeric, before
        discretization) or ``"g-test"`` (categorical or coded).
    marginal_R : ndarray
        R of each node without parents, as the score counts it (sdnet
        convention: cells without class-0 rows skipped, so it can be negative).
    marginal_kl : ndarray
        Each node's marginal class difference as a true KL divergence
        (:func:`marginal_divergence`, never negative).
    path : list of dict
        The complexity path, by increasing ``df``: ``{"df", "R", "S",
        "parents"}`` with ``parents[v]`` the parent tuple of node v.
    selected : int
        Index of the network in ``path`` that ``select`` picked.
    select : str
        ``"ratio"``, ``"bic"`` or ``"aic"`` (see :func:`select_index`).
    dag : DAG
        The network at ``selected``.
    R, df, S : float, int, float
        Its statistic, complexity and score ``S = R / df``.
    node_R, node_df : ndarray
        Per-node ``R_i`` and ``df_i``.
    arc_kl : list of (int, int, float)
        KL edge contributions: for each arc u -> v, how much ``R_v`` drops
        when u is removed from v's parents.
    networks : tuple of Network
        Class-0 and class-1 networks (CPTs of Eq. 2, zeros reset to
        ``1 / (3 n)``).
    cut_points : dict of str to list of float
        Cut points of the discretized columns (learned on the training rows).
    encoder : Encoder or None
        The fitted encoder, to code new rows the same way.
    params, stats : dict
        Settings and search statistics (keys of ``bnexplore.result.STATS_KEYS``).
    data : Dataset
        The coded training rows (not in the JSON), kept for :meth:`at`.
    labels : ndarray
        Their 0 / 1 classes.
    """

    names: list
    classes: list
    class_counts: tuple
    class_column: object
    order: list
    pvalues: np.ndarray
    tests: list
    marginal_R: np.ndarray
    marginal_kl: np.ndarray
    path: list
    selected: int
    select: str
    dag: DAG
    R: float
    df: int
    S: float
    node_R: np.ndarray
    node_df: np.ndarray
    arc_kl: list
    networks: tuple
    cut_points: dict
    encoder: object
    params: dict
    stats: dict
    data: Dataset = field(repr=False)
    labels: np.ndarray = field(repr=False)

    def dag_at(self, index):
        """The DAG at path index ``index``."""
        self._check_index(index)
        return DAG.from_parents([list(ps) for ps in self.path[index]["parents"]], self.names)

    def at(self, index):
        """This result with path network ``index`` selected instead: its DAG,
        statistics, KL edge contributions and CPTs."""
        self._check_index(index)
        details = _details(self.data, self.labels, self.path[index]["parents"], KLStatistics(self.data, self.labels))
        return dataclasses.replace(self, selected=int(index), **details)

    def _check_index(self, index):
        if not isinstance(index, (int, np.integer)) or not -len(self.path) <= index < len(self.path):
            raise SearchError(f"path index {index!r} is out of range; the path has {len(self.path)} networks "
                              f"(0..{len(self.path) - 1})")

    def coded(self, X):
        """Code a table of new rows with the training encoder (a Dataset is taken by column names)."""
        if isinstance(X, Dataset):
            columns = X.indices(self.names)
            changed = [v for v, c in enumerate(columns) if X.arities[c] != self.data.arities[v]]
            if changed:
                name = self.names[changed[0]]
                raise DataError(f"column {name!r} has {X.arities[columns[changed[0]]]} states here but "
                                f"{self.data.arities[changed[0]]} in the training data; code both the same way")
            return X.codes[:, columns]
        if self.encoder is None:
            raise DataError("this network was learned from coded data (no encoder); pass a Dataset with its columns")
        if not isinstance(X, pd.DataFrame):
            raise DataError(f"expected a pandas DataFrame of new rows, got {type(X).__name__}")
        coded = self.encoder.transform(X)
        if coded.n_rows != len(X):
            raise DataError(f"the encoder dropped {len(X) - coded.n_rows} rows with missing values; "
                            f"drop or fill them before scoring rows")
        return coded.codes[:, coded.indices(self.names)]

    def log_likelihoods(self, X):
        """``(l0, l1)`` of each row under the two class networks, Algorithm 1 step 2.

        Parameters
        ----------
        X : pandas.DataFrame or Dataset
            New rows with the training columns (extra columns are ignored).

        Returns
        -------
        ndarray of float64, shape (n_rows, 2)
        """
        codes = self.coded(X)
        return np.column_stack([network_loglik(net, codes) for net in self.networks])

    def to_json(self):
        """A JSON-ready dict; nodes by name, the complexity path included."""
        names = self.names
        path = [{"df": int(point["df"]), "R": float(point["R"]), "S": float(point["S"]),
                 "arcs": [[names[u], names[v]] for v, ps in enumerate(point["parents"]) for u in ps]}
                for point in self.path]
        cpts = {net.name: [{"node": names[i], "parents": [names[p] for p in net.parents[i]], "table": t.tolist()}
                           for i, t in enumerate(net.cpts)]
                for net in self.networks}
        return {
            "algorithm": "bnkl",
            "names": list(names),
            "states": {name: list(labels) for name, labels in zip(names, self.networks[0].states)},
            "class_column": self.class_column,
            "classes": [_plain_label(c) for c in self.classes],
            "class_counts": [int(c) for c in self.class_counts],
            "order": [names[v] for v in self.order],
            "pvalues": {names[v]: float(p) for v, p in enumerate(self.pvalues)},
            "tests": {names[v]: t for v, t in enumerate(self.tests)},
            "marginal_R": {names[v]: float(r) for v, r in enumerate(self.marginal_R)},
            "marginal_kl": {names[v]: float(d) for v, d in enumerate(self.marginal_kl)},
            "cut_points": {k: [float(c) for c in v] for k, v in self.cut_points.items()},
            "select": self.select,
            "selected": int(self.selected),
            "graph": self.dag.to_json(),
            "R": float(self.R),
            "df": int(self.df),
            "S": float(self.S),
            "node_R": {names[v]: float(r) for v, r in enumerate(self.node_R)},
            "node_df": {names[v]: int(d) for v, d in enumerate(self.node_df)},
            "arc_kl": [{"from": names[u], "to": names[v], "kl": float(kl)} for u, v, kl in self.arc_kl],
            "cpts": cpts,
            "path": path,
            "params": _json_params(self.params),
            "stats": dict(self.stats),
        }

    def to_result(self):
        """A :class:`bnexplore.result.Result`: algorithm ``"bnkl"``, score the value
        the selection rule maximised (``S`` for ``"ratio"``), score name
        ``"kl-ratio"``, ``"kl-bic"`` or ``"kl-aic"``; the rest of :meth:`to_json` in ``extra``."""
        extra = {k: v for k, v in self.to_json().items() if k not in ("algorithm", "graph", "params", "stats")}
        score = rule_values([self.df], [self.R], self.params["n_rows"], self.select)[0]
        return Result(graph=self.dag, score=float(score), score_name=f"kl-{self.select}", algorithm="bnkl",
                      params=_json_params(self.params), stats=dict(self.stats), extra=extra)


def class_networks_from_json(doc):
    """The class-0 and class-1 networks of a BNKL result from its JSON.

    Parameters
    ----------
    doc : dict
        :meth:`BNKLResult.to_json`, or the ``extra`` of its
        :meth:`~BNKLResult.to_result` (what the app keeps and re-imports).

    Returns
    -------
    tuple of Network
        Named ``class0`` and ``class1``, ready for :func:`bnexplore.write_bif`.

    Raises
    ------
    BIFError
        If the JSON lacks the state labels (files written before they were
        stored) or its tables do not fit the graph.
    """
    names = list(doc["names"])
    if "states" not in doc:
        raise BIFError("this BNKL result has no state labels (saved by an older version); learn it again to "
                       "export its class networks")
    states = [doc["states"][name] for name in names]
    position = {name: v for v, name in enumerate(names)}
    networks = []
    for label in ("class0", "class1"):
        families = {family["node"]: family for family in doc["cpts"][label]}
        parents = [[position[p] for p in families[name]["parents"]] for name in names]
        cpts = [families[name]["table"] for name in names]
        networks.append(Network(label, names, states, parents, cpts))
    return tuple(networks)


def _json_params(params):
    return {k: (v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)) for k, v in params.items()}


def _details(data, labels, parent_sets, scorer):
    """The fields of :class:`BNKLResult` that belong to one network."""
    parent_sets = [tuple(ps) for ps in parent_sets]
    dag = DAG.from_parents([list(ps) for ps in parent_sets], data.names)
    node_R, node_df = scorer.families(range(len(parent_sets)), parent_sets)
    R, df = float(node_R.sum()), int(node_df.sum())
    return {"dag": dag, "R": R, "df": df, "S": R / df, "node_R": node_R, "node_df": node_df,
            "arc_kl": _arc_contributions(scorer, parent_sets, node_R),
            "networks": _class_networks(dag, data, labels)}


# ----------------------------------------------------------------------------
# Entry points
# ----------------------------------------------------------------------------


def _check_max_parents(max_parents):
    if isinstance(max_parents, (bool, np.bool_)) or not isinstance(max_parents, (int, np.integer)) or max_parents < 0:
        raise SearchError(f"max_parents must be a whole number >= 0, got {max_parents!r}; the paper uses 2")
    return int(max_parents)


def _check_order(order, data):
    """A node order given by names or positions, as a permutation of the variables."""
    order = data.indices(order)
    if sorted(order) != list(range(data.n_vars)):
        missing = [data.names[v] for v in sorted(set(range(data.n_vars)) - set(order))]
        raise SearchError(f"the node order must list every variable once; missing or repeated: "
                          f"{', '.join(missing) or 'a repeated variable'}")
    return order


def bnkl_search(data, labels, order=None, max_parents=2, select="ratio", values=None,
                progress=None, time_limit=None, stop=None, control=None):
    """BNKL on coded data: the exact order-restricted search along the complexity path.

    Balov (2013), Eq. 3-8 and Algorithm 1(a), (c), (d). Every subset of at
    most ``max_parents`` predecessors of every node is scored with one
    batched, parallel :func:`bnexplore.scores.kernels.kl_statistics` call per
    chunk (``O(n^(M+1))`` families), each node keeps its own ``(df, R)``
    frontier, and :func:`complexity_path` merges them into the best R at
    every total complexity. :func:`select_index` picks one network.

    Parameters
    ----------
    data : Dataset
        Coded data (numeric columns already discretized).
    labels : array of 0 / 1
        Class of each row; 0 is the reference class.
    order : sequence of str or int, optional
        Node order; default the IDE order (least differential first) of the
        tests of :func:`class_difference_tests`.
    max_parents : int
        M, the largest parent set (the paper uses 2).
    select : {"ratio", "bic", "aic"}
    values : dict of str to array_like, optional
        Raw values of discretized columns, for the Welch t-tests.
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`. When stopped, nodes whose
        parent sets were not scored yet keep no parents (exact for that
        smaller class); ``stats["stopped"]`` says why.

    Returns
    -------
    BNKLResult
    """
    start = time.perf_counter()
    control = Control.of(control, progress, time_limit, stop)
    max_parents = _check_max_parents(max_parents)
    if select not in SELECT_RULES:
        raise SearchError(f"select={select!r} is not a selection rule; use one of {', '.join(SELECT_RULES)}")
    _check_size(data.n_vars, max_parents)
    labels = class_labels(labels, data.n_rows)
    if not labels.any():
        raise SearchError("no row belongs to class 1, so there is no class difference to learn")
    if not (np.asarray(data.arities) > 1).any():
        raise DataError("every variable has a single state; BNKL needs at least one variable with two or more states")
    log_p, tests = class_difference_tests(data, labels, values)
    order = ide_order(log_p) if order is None else _check_order(order, data)
    scorer = KLStatistics(data, labels)
    options, (marginal_R, _), reached = _score_candidates(scorer, order, max_parents, control)
    df, R, choice = complexity_path([o.df for o in options], [o.R for o in options])
    per_node = [None] * data.n_vars
    for t, v in enumerate(order):
        sets = np.empty(len(options[t].sets), dtype=object)
        sets[:] = options[t].sets
        per_node[v] = sets[choice[:, t]]
    path = [{"df": int(d), "R": float(r), "S": float(r / d), "parents": parents}
            for d, r, parents in zip(df, R, zip(*per_node))]
    selected = select_index(df, R, data.n_rows, select)
    details = _details(data, labels, path[selected]["parents"], scorer)
    n1 = int(labels.sum())
    stats = {"seconds": time.perf_counter() - start, "iterations": reached, "structures_evaluated": len(path),
             "local_scores_computed": scorer.computed, "local_score_lookups": scorer.computed,
             "nvar": scorer.variables / scorer.computed, "cache_hits": 0, "stopped": control.reason}
    control.finish(message="bnkl: done", score=details["S"])
    return BNKLResult(
        names=list(data.names), classes=[0, 1], class_counts=(data.n_rows - n1, n1), class_column=None,
        order=list(order), pvalues=np.exp(log_p), tests=tests, marginal_R=marginal_R,
        marginal_kl=marginal_divergence(data, labels), path=path,
        selected=selected, select=select,
        cut_points=data.encoder.cut_points() if data.encoder is not None else {}, encoder=data.encoder,
        params={"max_parents": max_parents, "select": select, "n_rows": data.n_rows}, stats=stats,
        data=data, labels=labels, **details)


def bnkl_xy(X, y, class0=None, max_parents=2, select="ratio", discretize="uniform3", encoder=None,
            progress=None, time_limit=None, stop=None, control=None, class_column=None):
    """BNKL on a table of features and a separate vector of two-class labels.

    Balov (2013), Algorithm 1, training part: the IDE order from Welch
    t-tests on the numeric columns (G-tests on categorical ones), uniform
    3-level discretization learned on these rows (Algorithm 1(b)), the
    search of :func:`bnkl_search`, then the two class networks.

    Parameters
    ----------
    X : pandas.DataFrame
        Features, one row per sample.
    y : array_like
        Class labels, exactly two distinct values.
    class0 : optional
        Label of the reference class 0 (default: the first label in sorted
        order). R measures the class difference against class 0, so swapping
        the classes can change the network.
    max_parents : int
    select : {"ratio", "bic", "aic"}
    discretize : str, list or dict
        Discretization of numeric columns (see :class:`bnexplore.data.Encoder`);
        the paper's ``"uniform3"`` by default.
    encoder : Encoder, optional
        Used instead of ``Encoder(discretize=discretize)``; fitted on X unless
        it is fitted already (then its cut points are kept as they are).
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`.
    class_column : str, optional
        Name of the labels, for messages and the result.

    Returns
    -------
    BNKLResult
    """
    name = class_column if class_column is not None else getattr(y, "name", None)
    name = None if name is None else str(name)
    if not isinstance(X, pd.DataFrame):
        raise DataError(f"expected a pandas DataFrame of features, got {type(X).__name__}")
    if len(np.asarray(y, dtype=object).reshape(-1)) != len(X):
        raise DataError(f"the class labels ({len(y)}) and the table ({len(X)} rows) differ in length; "
                        f"give one label per row")
    labels, classes = encode_classes(y, class0, name or "class")
    encoder = encoder if encoder is not None else Encoder(discretize=discretize)
    data = encoder.transform(X) if encoder.columns else encoder.fit_transform(X)
    if data.n_rows != len(X):
        raise DataError(f"the encoder dropped {len(X) - data.n_rows} rows with missing values, which would "
                        f"misalign the class labels; drop or fill those rows first")
    raw = {str(c): X[c] for c in X.columns}
    values = {v: pd.to_numeric(raw[v], errors="coerce").to_numpy(np.float64)
              for v in data.names if encoder.columns[v].kind == NUMERIC}
    result = bnkl_search(data, labels, max_parents=max_parents, select=select, values=values,
                         progress=progress, time_limit=time_limit, stop=stop, control=control)
    result.params.update(class0=classes[0], discretize=encoder.discretize)
    return dataclasses.replace(result, classes=classes, class_column=name)


def bnkl(frame, class_column, class0=None, max_parents=2, select="ratio", discretize="uniform3", encoder=None,
         knowledge=None, progress=None, time_limit=None, stop=None, control=None):
    """Learn a two-class KL network (BNKL, Balov 2013) from a table with a class column.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table; every column but ``class_column`` is a variable.
    class_column : str
        Column holding the two class labels.
    class0 : optional
        Label of the reference class 0; default the first label in sorted
        order (e.g. "benign" before "malignant"). R measures the class
        difference against class 0: pass the other label to swap.
    max_parents : int
        M, largest parent set (default 2, as in the paper).
    select : {"ratio", "bic", "aic"}
        Rule that picks the network from the complexity path (see
        :func:`select_index`); the whole path is kept in the result.
    discretize : str, list or dict
        Discretization of numeric columns, default the paper's ``"uniform3"``.
    encoder : Encoder, optional
        See :func:`bnkl_xy`.
    knowledge : Knowledge, optional
        Refused when not empty: BNKL's node order comes from the class-
        difference tests and every arc follows it (Balov 2013, Algorithm 1),
        so a required arc against that order cannot be honoured and a
        forbidden one changes which network the complexity path selects.
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`.

    Returns
    -------
    BNKLResult

    Raises
    ------
    SearchError
        When ``knowledge`` is given.
    """
    if knowledge:
        raise SearchError("BNKL does not take knowledge: its variable order comes from the class-difference tests "
                          "(Balov 2013), and arcs follow that order; leave the knowledge out to run it, or learn "
                          "under the knowledge with another search (hc, tabu, rpdag, exact, asobs, ...)")
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    columns = [str(c) for c in frame.columns]
    if str(class_column) not in columns:
        raise DataError(f"the table has no class column {class_column!r}; the columns are {_short(columns)}")
    position = columns.index(str(class_column))
    X = frame.drop(columns=frame.columns[position])
    if X.shape[1] == 0:
        raise DataError(f"the table has only the class column {class_column!r}; add the variables to learn from")
    return bnkl_xy(X, frame.iloc[:, position], class0=class0, max_parents=max_parents, select=select,
                   discretize=discretize, encoder=encoder, progress=progress, time_limit=time_limit, stop=stop,
                   control=control, class_column=str(class_column))
