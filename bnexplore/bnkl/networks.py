"""The network at one point of the complexity path: its statistics, KL edge contributions and class CPTs.

One DAG, two probability tables (Balov 2013, Eq. 2 and Algorithm 1(d)): each
class gets its own CPTs on the DAG, and a row's log-likelihood under each
(Eq. 1) is what the classifier compares.
"""

import numpy as np

from bnexplore.bif import Network, fit_network
from bnexplore.graphs import DAG


def class_networks(dag, data, labels):
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


def network_details(data, labels, parent_sets, scorer):
    """The fields of a :class:`~bnexplore.bnkl.BNKLResult` that belong to the network with these parent sets."""
    parent_sets = [tuple(ps) for ps in parent_sets]
    dag = DAG.from_parents([list(ps) for ps in parent_sets], data.names)
    node_R, node_df = scorer.families(range(len(parent_sets)), parent_sets)
    R, df = float(node_R.sum()), int(node_df.sum())
    return {"dag": dag, "R": R, "df": df, "S": R / df, "node_R": node_R, "node_df": node_df,
            "arc_kl": _arc_contributions(scorer, parent_sets, node_R),
            "networks": class_networks(dag, data, labels)}
