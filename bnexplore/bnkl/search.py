"""The BNKL search (Balov 2013): every parent set of every node scored, the complexity path, the entry points.

Search (Eq. 5 and 8): DAGs compatible with one node order, the IDE order of
Eq. 7 / Algorithm 1(a) (least differential variable first,
:func:`bnexplore.bnkl.divergence.ide_order`), with at most M parents per node.
Every candidate parent set is scored by one batched kernel call per chunk;
each node keeps its own ``(df, R)`` frontier and
:func:`bnexplore.bnkl.path.complexity_path` merges them.

The public entry points are :func:`bnkl` (a table with a class column),
:func:`bnkl_xy` (features and labels apart) and :func:`bnkl_search` (coded
data, 0 / 1 labels and an optional node order).
"""

import dataclasses
import math
from dataclasses import dataclass
from itertools import chain, combinations

import numpy as np
import pandas as pd

from bnexplore.bnkl.classes import encode_classes, shown
from bnexplore.bnkl.divergence import class_difference_tests, ide_order, marginal_divergence
from bnexplore.bnkl.networks import network_details
from bnexplore.bnkl.path import SELECT_RULES, complexity_path, pareto_frontier, select_index
from bnexplore.bnkl.result import BNKLResult
from bnexplore.compiling import search_clock
from bnexplore.control import Control
from bnexplore.data import NUMERIC, Encoder, require_complete, require_unweighted
from bnexplore.errors import DataError, ResourceError, SearchError
from bnexplore.scores.kl import KLStatistics, class_labels

_CHUNK = 1 << 17
"""Families scored per kernel call (between calls the search can be stopped)."""

_MAX_FAMILIES = 60_000_000
"""Refuse searches that would score more parent sets than this."""


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
    start = search_clock()
    control = Control.of(control, progress, time_limit, stop)
    max_parents = _check_max_parents(max_parents)
    if select not in SELECT_RULES:
        raise SearchError(f"select={select!r} is not a selection rule; use one of {', '.join(SELECT_RULES)}")
    _check_size(data.n_vars, max_parents)
    require_complete(data, "BNKL")
    require_unweighted(data, "BNKL")
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
    details = network_details(data, labels, path[selected]["parents"], scorer)
    n1 = int(labels.sum())
    stats = {"seconds": search_clock() - start, "iterations": reached, "structures_evaluated": len(path),
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
            progress=None, time_limit=None, stop=None, control=None, class_column=None, missing_values=None):
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
        Used instead of ``Encoder(discretize=discretize,
        missing_values=missing_values)``; fitted on X unless it is fitted
        already (then its cut points are kept as they are).
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`.
    class_column : str, optional
        Name of the labels, for messages and the result.
    missing_values : str or list of str, optional
        The table's own marks for "no value" (see :class:`bnexplore.data.Encoder`).

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
    labels, classes = encode_classes(y, class0, name or "class", missing_values)
    encoder = encoder if encoder is not None else Encoder(discretize=discretize, missing_values=missing_values)
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
         knowledge=None, progress=None, time_limit=None, stop=None, control=None, missing_values=None):
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
    missing_values : str or list of str, optional
        The table's own marks for "no value" (see :class:`bnexplore.data.Encoder`).

    Returns
    -------
    BNKLResult

    Raises
    ------
    SearchError
        When ``knowledge`` is given.

    Examples
    --------
    In class "tumour" ``y`` copies ``x``; in class "normal" the two are
    independent. No variable's own distribution differs between the classes:
    only the arc between ``x`` and ``y`` does.

    >>> import numpy as np
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> cls = rng.choice(["normal", "tumour"], 300)
    >>> x = rng.choice(["low", "high"], 300)
    >>> y = np.where(cls == "tumour", x, rng.choice(["low", "high"], 300))
    >>> z = rng.choice(["low", "high"], 300)
    >>> result = bnkl(pd.DataFrame({"x": x, "y": y, "z": z, "cls": cls}), "cls")
    >>> result.classes, result.class_counts, result.dag
    (['normal', 'tumour'], (137, 163), DAG(3 nodes, 1 edges: y -> x))
    """
    if knowledge:
        raise SearchError("BNKL does not take knowledge: its variable order comes from the class-difference tests "
                          "(Balov 2013), and arcs follow that order; leave the knowledge out to run it, or learn "
                          "under the knowledge with another search (hc, tabu, rpdag, exact, asobs, ...)")
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    columns = [str(c) for c in frame.columns]
    if str(class_column) not in columns:
        raise DataError(f"the table has no class column {class_column!r}; the columns are {shown(columns)}")
    position = columns.index(str(class_column))
    X = frame.drop(columns=frame.columns[position])
    if X.shape[1] == 0:
        raise DataError(f"the table has only the class column {class_column!r}; add the variables to learn from")
    return bnkl_xy(X, frame.iloc[:, position], class0=class0, max_parents=max_parents, select=select,
                   discretize=discretize, encoder=encoder, progress=progress, time_limit=time_limit, stop=stop,
                   control=control, class_column=str(class_column), missing_values=missing_values)
